/* Per-thread pair buffers of the parallel broad phases and their concatenation in chunk order. */
#ifndef PF_COLLISION_PAIR_CHUNKS_H
#define PF_COLLISION_PAIR_CHUNKS_H

#include "pair_vec.h"
#include "parallel.h"

#include <stdint.h>

/* One buffer per chunk, kept across calls. */
typedef struct pf_pair_chunks {
    pf_pair_vec *vec;
    uint64_t *candidates; /* per chunk */
    int *status;          /* per chunk: PF_OK or PF_ENOMEM */
    int count;
} pf_pair_chunks;

/* Makes room for `count` chunks, emptied. PF_OK or PF_ENOMEM. */
int pf_pair_chunks_reset(pf_pair_chunks *c, int count);
/* Appends the chunks to `out` in chunk order and adds their candidates to *candidates. PF_OK or PF_ENOMEM
 * (also when a chunk failed to grow). */
int pf_pair_chunks_gather(pf_pair_chunks *c, pf_pair_vec *out, uint64_t *candidates);
/* The same, the chunks copied in parallel (each to its offset): with many chunks the copy of nearly every pair
 * would otherwise be the caller's alone. */
int pf_pair_chunks_gather_par(pf_pair_chunks *c, pf_pair_vec *out, uint64_t *candidates, const pf_par *par);
size_t pf_pair_chunks_bytes(const pf_pair_chunks *c);
void pf_pair_chunks_free(pf_pair_chunks *c);

/* Closed boxes: touching counts as overlapping. The six comparisons without a branch: in the broad phases'
 * loops the outcomes are data, which a branch per comparison would mispredict. */
static inline int pf_aabb_overlap(const pf_aabb *a, const pf_aabb *b)
{
    return (a->min[0] <= b->max[0]) & (b->min[0] <= a->max[0]) & (a->min[1] <= b->max[1]) &
           (b->min[1] <= a->max[1]) & (a->min[2] <= b->max[2]) & (b->min[2] <= a->max[2]);
}

/* Chunk k of `count` equal chunks of [0, n): [*lo, *hi). */
static inline void pf_chunk_range(size_t n, int count, int k, size_t *lo, size_t *hi)
{
    *lo = n * (size_t)k / (size_t)count;
    *hi = n * (size_t)(k + 1) / (size_t)count;
}

#endif
