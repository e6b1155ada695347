/* splitmix.h: the test generators' random numbers (splitmix64), so that one seed gives the same
 * stream on every machine; each generator holds its own state. */
#ifndef TEST_SPLITMIX_H
#define TEST_SPLITMIX_H

#include <stdint.h>

static inline uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

#endif
