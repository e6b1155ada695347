/* og_rng: stream derivation and weighted choice for the order generator's PRNG
 * (the per-draw functions are inline in rng.h, they sit in the hot loop). */
#include "rng.h"

void og_rng_stream(og_rng *r, uint64_t seed, uint64_t a, uint64_t b)
{
    /* Nested mixing: (a, b) pairs that differ anywhere land far apart. */
    r->s = og_mix64(og_mix64(og_mix64(seed ^ 0x6F72646572736765ULL) + a) + b * 0x9E3779B97F4A7C15ULL);
}

unsigned og_rng_pick(og_rng *r, const uint16_t *weights, unsigned n)
{
    uint32_t sum = 0;
    for (unsigned i = 0; i < n; i++)
        sum += weights[i];
    uint32_t x = og_rng_below(r, sum);
    for (unsigned i = 0; i < n; i++) {
        if (x < weights[i])
            return i;
        x -= weights[i];
    }
    return n - 1;
}
