/* Radix sorts: LSD of (64-bit key, 32-bit value) records (11-bit digits, constant digits skipped, parallel over par),
 * and an MSD sort of 64-bit words. */
#ifndef PF_COLLISION_RADIX_SORT_H
#define PF_COLLISION_RADIX_SORT_H

#include "parallel.h"

#include <stddef.h>
#include <stdint.h>

/* Reusable scratch of the sort (per-thread digit histograms). */
typedef struct pf_radix_scratch {
    uint32_t *hist; /* threads x 6 x 2048 counters */
    int threads;
} pf_radix_scratch;

/* Sorts keys[0..n) with vals alongside, stably (ties keep their input order, so the result depends on the
 * input only, never on the workers). keys2/vals2 are buffers of n entries. The sorted records end in (keys,
 * vals) or in (keys2, vals2): returns 0 for the first, 1 for the second. PF_ENOMEM (negative) when scratch
 * can't grow. */
int pf_radix_sort64(uint64_t *keys, uint32_t *vals, uint64_t *keys2, uint32_t *vals2, size_t n, const pf_par *par,
                    pf_radix_scratch *scratch);
/* Sorts n 64-bit words ascending with a buffer tmp of n words (MSD radix: one pass into tmp, each bucket back
 * in cache; below 4096 words in place). Equal words are indistinguishable, so the result never depends on
 * the workers (par NULL: the calling thread). */
void pf_radix_sort_u64_scratch(uint64_t *a, size_t n, uint64_t *tmp, const pf_par *par);
void pf_radix_scratch_free(pf_radix_scratch *scratch);
size_t pf_radix_scratch_bytes(const pf_radix_scratch *scratch);

#endif
