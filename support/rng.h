/* The one random generator of the tests, tools and examples: splitmix64, seeded, the same numbers on every
 * machine. */
#ifndef PF_SUPPORT_RNG_H
#define PF_SUPPORT_RNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t s;
} rng;

static inline uint64_t rng_u64(rng *r)
{
    r->s += UINT64_C(0x9E3779B97F4A7C15);
    uint64_t z = r->s;
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [0, 1), 53 bits. */
static inline double urand(rng *r)
{
    return (double)(rng_u64(r) >> 11) * 0x1p-53;
}

/* The top 32 bits. */
static inline uint32_t rng_u32(rng *r)
{
    return (uint32_t)(rng_u64(r) >> 32);
}

/* Uniform in [lo, hi). */
static inline double rng_range(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * urand(r);
}

/* Uniform in [0, n) for n >= 1 (the top 32 bits scaled: no modulo bias worth the name for small n). */
static inline uint32_t rng_below(rng *r, uint32_t n)
{
    return (uint32_t)(((rng_u64(r) >> 32) * (uint64_t)n) >> 32);
}

#endif
