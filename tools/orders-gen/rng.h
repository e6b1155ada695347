/* og_rng: the order generator's PRNG, splitmix64: tiny, fast, and the same bytes everywhere,
 * so one --seed always gives one output; a stream per (seed, order, purpose) keeps days independent. */
#ifndef OG_RNG_H
#define OG_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t s;
} og_rng;

/* The splitmix64 output function: a bijection of 64-bit integers with good avalanche. */
static inline uint64_t og_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline uint64_t og_rng_next(og_rng *r)
{
    r->s += 0x9E3779B97F4A7C15ULL;
    return og_mix64(r->s);
}

/* Uniform in [0, n) for n > 0 (multiply-shift: the bias is below 2^-32, irrelevant here). */
static inline uint32_t og_rng_below(og_rng *r, uint32_t n)
{
    return (uint32_t)(((og_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform in [lo, hi], lo <= hi, hi - lo < 2^32. */
static inline int64_t og_rng_range(og_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)og_rng_below(r, (uint32_t)(hi - lo + 1));
}

/* An independent stream for (seed, a, b): different purposes never share draws, so adding a
 * draw to one never shifts another (the world stays the same whatever --dirty says). */
void og_rng_stream(og_rng *r, uint64_t seed, uint64_t a, uint64_t b);

/* An index in [0, n) drawn with the given integer weights (their sum must be > 0). */
unsigned og_rng_pick(og_rng *r, const uint16_t *weights, unsigned n);

#endif
