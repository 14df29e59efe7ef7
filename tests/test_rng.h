/* The tests' random inputs: splitmix64, fixed seeds, the same numbers on every machine. */
#ifndef PF_TESTS_TEST_RNG_H
#define PF_TESTS_TEST_RNG_H

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

#endif
