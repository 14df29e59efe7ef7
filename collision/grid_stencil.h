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

/* Where a box's key is: cell coordinates padded by one, rows of nx cells, planes of nxy. */
typedef struct pf_grid_frame {
    double origin[3], inv_cell;
    uint64_t nx, nxy;
} pf_grid_frame;

/* Boxes are surveyed in fixed blocks (the mean extent summed block by block, so the same for any parts), and
 * their keys computed in parts of whole blocks. */
#define PF_GRID_BLOCK 8192
#define PF_GRID_MAX_PARTS 64

/* One pass over the boxes (grid.c's survey): their bounds, largest extent and mean largest extent, and, where
 * the stencil layout's last frame is a good guess (the frames move in steps: most calls keep the last one),
 * every box's key in that frame compared with its key of the last call, so that the stencil layout need not
 * read the boxes again when the frame is indeed kept. */
typedef struct pf_grid_survey {
    double lo[3], hi[3], largest, mean;
    int bad;   /* some box has a NaN or infinite coordinate, or min > max (the survey checks the boxes) */
    int parts;                          /* the pass's parts: ranges of whole blocks (pf_grid_part_range) */
    int guessed;                        /* keys computed in the last frame (below) */
    size_t changed[PF_GRID_MAX_PARTS];  /* per part: its boxes whose key changed */
} pf_grid_survey;

typedef struct pf_grid_stencil {
    uint64_t *K[2]; /* cell keys of the records, sorted in K[cur] (GRID_PAD entries of room past n) */
    uint32_t *V[2]; /* their box indices */
    int cur;
    size_t cap;
    uint64_t *key_of; /* per box: its key in the last call (GRID_KEY_END for a box kept apart) */
    uint64_t *guess;  /* per box: its key in the last frame, computed by the survey (then swapped with key_of) */
    pf_grid_frame frame; /* of the last call */
    double *block_sums;  /* the survey's per-block sums of the largest extents */
    size_t blocks_cap;
    uint8_t *moved;   /* per box: its key changed in this call */
    size_t prev_n;    /* boxes of the last call, 0 when K[cur] is not theirs */
    uint64_t *mk[2];  /* the boxes that changed cell: keys and indices, and the sort's buffers */
    uint32_t *mv[2];
    size_t mcap;
    struct pf_grid_rec *rec; /* the boxes in record order with their keys */
    pf_radix_scratch radix;
    pf_pair_chunks chunks;
    pf_grid_order order; /* of the last call */
    int keys_guessed;    /* the last call's keys were the survey's (its frame kept) */
    size_t changed;      /* boxes whose key changed in the last call (n when it sorted afresh) */
} pf_grid_stencil;

/* Box i0 .. i1 of part k of `parts` over n boxes: whole blocks of PF_GRID_BLOCK. */
void pf_grid_part_range(size_t n, int k, int parts, size_t *i0, size_t *i1);
/* The survey of n >= 1 boxes (see pf_grid_survey); `guess` 0 skips the keys (a cell size given). */
int pf_grid_survey_boxes(pf_grid_stencil *s, const pf_aabb *boxes, size_t n, const pf_par *par, int guess,
                         pf_grid_survey *sv);
/* The pairs of n >= 1 boxes surveyed in sv (bounds lo, hi) whose extents are at most `largest` except those
 * above `big_above` (kept apart, tested row range by row range; +inf: none), appended to out. */
int pf_grid_stencil_pairs(pf_grid_stencil *s, const pf_aabb *boxes, size_t n, const pf_par *par,
                          const pf_grid_survey *sv, double largest, double floor_cell, double big_above,
                          pf_pair_vec *out, pf_broadphase_stats *stats);
/* The stencil layout's state of a grid broad phase's state (pf_broadphase_state), for the tests. */
const pf_grid_stencil *pf_grid_stencil_of(const void *grid);
/* Forgets the order of the last call (the next one sorts afresh). */
void pf_grid_stencil_forget(pf_grid_stencil *s);
size_t pf_grid_stencil_bytes(const pf_grid_stencil *s);
void pf_grid_stencil_free(pf_grid_stencil *s);

#endif
