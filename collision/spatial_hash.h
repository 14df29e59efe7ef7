/* The spatial hashes of Pouchol et al. 2009 over boxes: hierarchical (§3), multilevel (§2.2) and uniform (§2.1), with
 * their build, box queries and the per-object searches the hhash and mlhash broad phases are made of. */
#ifndef PF_COLLISION_SPATIAL_HASH_H
#define PF_COLLISION_SPATIAL_HASH_H

#include "hash_table.h"
#include "id_buffer.h"
#include "pair_vec.h"
#include "parallel.h"
#include "physflow/collision.h"

#include <stddef.h>
#include <stdint.h>

enum { PF_SHASH_HIER, PF_SHASH_MULTI, PF_SHASH_UNIFORM };

#define PF_SHASH_MAX_LEVELS 64

typedef struct pf_shash {
    int kind;
    size_t n;
    const pf_aabb *boxes; /* borrowed: must stay valid while the structure is queried */
    double origin[3];     /* lowest corner of all boxes: cells are counted from here, so far-away inputs work */
    double extent[3];     /* highest corner minus origin */
    int nlevels;          /* classes present, largest first (uniform: 1) */
    int cexp[PF_SHASH_MAX_LEVELS];    /* class c holds cells of edge 2^c (Pouchol et al. 2009 eq. 2) */
    double size[PF_SHASH_MAX_LEVELS]; /* cell edge of each level */
    double inv[PF_SHASH_MAX_LEVELS];  /* 1 / size: a power of two for the classes, so cell coordinates are exact */
    uint8_t *level;                   /* level of each box */
    uint32_t *by_level;               /* box ids grouped by level, ascending within a level */
    size_t level_start[PF_SHASH_MAX_LEVELS + 1];
    float (*fbox)[6];                 /* each box relative to origin, rounded outwards: lo[3], hi[3] */
    size_t cap_n; /* room of level, by_level and fbox: three arrays grown in step, so no PF_VEC */
    pf_hash_table table;
    uint32_t *ent_slot, *ent_id; /* build scratch: one entry per (cell, box) */
    size_t ent_cap;              /* room of both ent_slot and ent_id: grown in step, so no PF_VEC */
    size_t cells_hint; /* cells of the previous build: the next table is sized for them */
} pf_shash;

/* Builds over `n` valid boxes. uniform_cell: cell edge of PF_SHASH_UNIFORM (> 0). PF_OK, PF_EINVAL (uniform
 * cells too small for the boxes) or PF_ENOMEM. */
int pf_shash_build(pf_shash *s, int kind, const pf_aabb *boxes, size_t n, double uniform_cell);
void pf_shash_free(pf_shash *s);
size_t pf_shash_bytes(const pf_shash *s);

/* Appends to `b` (already begun, stamps sized for s->n) the id of every box stored in a cell that `q` overlaps
 * whose box, rounded outwards to float, overlaps `q` (a superset of the exact overlaps; b->candidates counts the
 * ids the cells held, before that test): hier, top-down with hasChildren pruning (Pouchol et al. 2009 Listing 2); multi
 * and uniform, the cells of every level (§2.2). */
int pf_shash_query(const pf_shash *s, const pf_aabb *q, pf_id_buffer *b);

/* Reusable workspace of pf_shash_pairs. */
typedef struct pf_shash_pairs_ws {
    int nbufs;
    pf_id_buffer *bufs; /* one per thread */
    size_t nchunks;
    pf_pair_vec *chunks; /* pairs found by each chunk of boxes, merged in chunk order */
    uint64_t *cand;      /* candidates examined by each chunk */
    size_t ncand;
} pf_shash_pairs_ws;

/* All overlapping pairs among the structure's boxes, each found once: hier, a box descends from its own cells
 * into the near smaller classes (hasChildren pruning) and searches the far larger classes top-down; multi, a
 * box searches its own and the larger classes. Appends to `out` in an
 * order that depends on the boxes only. */
int pf_shash_pairs(pf_shash_pairs_ws *ws, const pf_shash *s, const pf_par *par, pf_pair_vec *out,
                   uint64_t *candidates);
size_t pf_shash_pairs_ws_bytes(const pf_shash_pairs_ws *ws);
void pf_shash_pairs_ws_free(pf_shash_pairs_ws *ws);

static inline int pf_shash_box_overlap(const pf_aabb *a, const pf_aabb *b)
{
    return a->min[0] <= b->max[0] && b->min[0] <= a->max[0] && a->min[1] <= b->max[1] &&
           b->min[1] <= a->max[1] && a->min[2] <= b->max[2] && b->min[2] <= a->max[2];
}

#endif
