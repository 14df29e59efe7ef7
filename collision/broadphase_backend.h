/* The private interface every broad-phase method implements; collision/broadphase.c dispatches to it after
 * validating the boxes, so a backend may assume finite boxes with min <= max and n >= 1 (but for a backend marked
 * there as checking the boxes itself: it must refuse bad ones as pf_check_aabbs does, before any result). */
#ifndef PF_COLLISION_BROADPHASE_BACKEND_H
#define PF_COLLISION_BROADPHASE_BACKEND_H

#include "physflow/collision.h"
#include "pair_vec.h"

typedef struct pf_bp_backend {
    /* Allocates the method's persistent state (may set *state = NULL when it needs none). */
    int (*create)(const pf_broadphase_def *def, void **state);
    void (*destroy)(void *state);
    /* Appends the method's pairs to `out` (emptied by the caller): i < j, unique (kd-raw aside), in an order
     * that depends on the boxes only. Fills stats->candidates and stats->bytes; the caller sets stats->pairs. */
    int (*pairs)(void *state, const pf_broadphase_def *def, const pf_aabb *boxes, size_t n, pf_pair_vec *out,
                 pf_broadphase_stats *stats);
} pf_bp_backend;

/* The backend's state of a broad phase (for the tests of a method's internals). */
void *pf_broadphase_state(pf_broadphase *bp);

/* One per method; a method that is not built has a backend whose create returns PF_ENOTSUP. */
extern const pf_bp_backend pf_bp_brute_backend;
extern const pf_bp_backend pf_bp_kd_backend;
extern const pf_bp_backend pf_bp_kd_raw_backend;
extern const pf_bp_backend pf_bp_grid_backend;
extern const pf_bp_backend pf_bp_sap_backend;
extern const pf_bp_backend pf_bp_hhash_backend;
extern const pf_bp_backend pf_bp_mlhash_backend;
extern const pf_bp_backend pf_bp_bullet_dbvt_backend;
extern const pf_bp_backend pf_bp_bullet_sap_backend;
extern const pf_bp_backend pf_bp_cgal_backend;

#endif
