/* The stencil layout of the grid broad phase (see grid.c): one record a box, kept sorted from one call to the
 * next, and the boxes larger than the cell kept apart. */
#ifndef PF_COLLISION_GRID_STENCIL_H
#define PF_COLLISION_GRID_STENCIL_H

#include "pair_chunks.h"
#include "radix_sort.h"

#include "physflow/collision.h"

#include <stddef.h>
#include <stdint.h>

/* How the last call ordered its records. */
typedef enum {
    PF_GRID_SORTED,   /* every key sorted afresh */
    PF_GRID_MERGED,   /* the boxes whose cell changed sorted, merged into the previous order */
    PF_GRID_UNCHANGED /* no box changed cell: the previous order kept */
} pf_grid_order;

typedef struct pf_grid_stencil {
    uint64_t *K[2]; /* cell keys of the records, sorted in K[cur] (GRID_PAD entries of room past n) */
    uint32_t *V[2]; /* their box indices */
    int cur;
    size_t cap;
    uint64_t *key_of; /* per box: its key in the last call (GRID_KEY_END for a box kept apart) */
    uint8_t *moved;   /* per box: its key changed in this call */
    size_t prev_n;    /* boxes of the last call, 0 when K[cur] is not theirs */
    uint64_t *mk[2];  /* the boxes that changed cell: keys and indices, and the sort's buffers */
    uint32_t *mv[2];
    size_t mcap;
    struct pf_grid_rec *rec; /* the boxes in record order with their keys */
    pf_radix_scratch radix;
    pf_pair_chunks chunks;
    pf_grid_order order; /* of the last call */
    size_t changed;      /* boxes whose key changed in the last call (n when it sorted afresh) */
} pf_grid_stencil;

/* The pairs of n >= 1 boxes of bounds (lo, hi) whose extents are at most `largest` except those above
 * `big_above` (kept apart, tested row range by row range; +inf: none), appended to out. */
int pf_grid_stencil_pairs(pf_grid_stencil *s, const pf_aabb *boxes, size_t n, const pf_par *par,
                          const double lo[3], const double hi[3], double largest, double floor_cell, double big_above,
                          pf_pair_vec *out, pf_broadphase_stats *stats);
/* The stencil layout's state of a grid broad phase's state (pf_broadphase_state), for the tests. */
const pf_grid_stencil *pf_grid_stencil_of(const void *grid);
/* Forgets the order of the last call (the next one sorts afresh). */
void pf_grid_stencil_forget(pf_grid_stencil *s);
size_t pf_grid_stencil_bytes(const pf_grid_stencil *s);
void pf_grid_stencil_free(pf_grid_stencil *s);

#endif
