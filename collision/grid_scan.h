/* The sweep of the grid's stencil layout over its sorted records (see grid.c): a scalar reference and an AVX2
 * version that give the same pairs in the same order, chosen at run time. */
#ifndef PF_COLLISION_GRID_SCAN_H
#define PF_COLLISION_GRID_SCAN_H

#include "pair_vec.h"

#include <stddef.h>
#include <stdint.h>

/* Row ranges are read in windows of this many records, and the row pointers moved over this many at once (for
 * random spheres at 0.19 boxes a cell, a pointer moves by 2 records or more for one box in 1 of 4 moves, by 4
 * or more in 1 of 16: a loop stepping by 2 would go on, and mispredict, far more often); GRID_PAD records of key
 * GRID_KEY_END follow the last. */
#define GRID_WINDOW 2
#define GRID_ADVANCE 4
#define GRID_PAD (GRID_ADVANCE + 1)
/* Above every cell key (those are below 2^63 - 1); signed, for the AVX2 comparisons. */
#define GRID_KEY_END ((uint64_t)INT64_MAX)

/* One record: a box in the cell of its lower corner, one cache line (the sweep reads five ranges of records at
 * once, so that each range is one stream of memory). */
typedef struct pf_grid_rec {
    double lo[3], hi[3];
    uint64_t key; /* cell key, ascending over the records */
    uint32_t box; /* index of the box */
    uint32_t pad;
} pf_grid_rec;

/* The sorted records (ending in records of key GRID_KEY_END) and the row offsets of the stencil. */
typedef struct pf_grid_records {
    const pf_grid_rec *rec;
    size_t m;        /* records swept: rec[m].key is GRID_KEY_END */
    uint64_t row[4]; /* key offsets of the rows scanned whole: (y + 1), (y - 1, z + 1), (z + 1), (y + 1, z + 1) */
} pf_grid_records;

/* The pairs of the records [r0, r1) with the records after them in their row and in the four rows ahead,
 * appended to out in record order; adds the records tested to *candidates. PF_OK or PF_ENOMEM. A record's
 * five ranges (the rest of its own row, then the four rows ahead) are read first one window each, in one block
 * without a branch, then the ranges that go on past their first window in the same order: a range holds 0.57
 * records on average for the falling spheres (one in nine goes on), and a loop per range, as before, had an
 * exit to predict for each of the five. So a record's pairs come as those of the first windows, in range
 * order, then those of the rest of the ranges, in range order. */
typedef int (*pf_grid_sweep_fn)(const pf_grid_records *g, size_t r0, size_t r1, pf_pair_vec *out,
                                uint64_t *candidates);

int pf_grid_sweep_scalar(const pf_grid_records *g, size_t r0, size_t r1, pf_pair_vec *out, uint64_t *candidates);
/* NULL where the compiler has no AVX2 target. */
extern const pf_grid_sweep_fn pf_grid_sweep_avx2;

/* The records [r0, r1) against record a (not among them): pairs in record order. */
typedef int (*pf_grid_range_fn)(const pf_grid_records *g, const pf_grid_rec *a, size_t r0, size_t r1,
                                pf_pair_vec *out, uint64_t *candidates);
int pf_grid_range_scalar(const pf_grid_records *g, const pf_grid_rec *a, size_t r0, size_t r1, pf_pair_vec *out,
                         uint64_t *candidates);
extern const pf_grid_range_fn pf_grid_range_avx2;

/* 1 (the default): the AVX2 versions where the processor has AVX2; 0: the scalar reference always (the tests
 * compare the two). */
extern int pf_grid_simd;

/* The versions to use now (pf_grid_simd and the processor). */
pf_grid_sweep_fn pf_grid_sweep_select(void);
pf_grid_range_fn pf_grid_range_select(void);

#endif
