/* The implicit and static solvers' step on a decomposed object (solver_blocks.c, decompose.h). */
#ifndef PF_PHYSICS_SOLVER_BLOCKS_H
#define PF_PHYSICS_SOLVER_BLOCKS_H

#include "decompose.h"
#include "world.h"

/* what solver_implicit.c hands over: the factors of its system and its group's CG scalars */
typedef struct pf_block_solve {
    double h, mfact, kfact, bfact, rm, max_speed;
    int statik;
    const pf_solver_def *sv;
    pf_data_id drr, dpq, drn;
} pf_block_solve;

/* records the step of group gr, whose one object o, without interactions, runs as its blocks (o->decomp):
 * forces, right-hand side, the CG loop and the integration, each per block, in the canonical order of
 * decompose.h */
int pf_record_blocks(pf_world *w, pf_group *gr, pf_object *o, const pf_task_recorder *rec, const pf_block_solve *s);

/* The phases of an object's blocks in a group of several objects or with interactions (solver_implicit.c
 * records the rest of the group around them, and the interactions read the blocks' vectors):
 *   FORCE      the blocks' element forces and K v rows
 *   RHS        per block f and b, the links' forces and rhs terms at its points included, and the CG start
 *   DIRECTION  p = r + beta p per block, then each block's K p rows
 *   PRODUCT    per block q = M' p + the rows + the links' df terms, projected, and its dot products
 *   UPDATE     dv, r and r.r per block
 *   INTEGRATE  per block, with its fault check */
typedef enum pf_block_phase {
    PF_BLOCKS_FORCE,
    PF_BLOCKS_RHS,
    PF_BLOCKS_DIRECTION,
    PF_BLOCKS_PRODUCT,
    PF_BLOCKS_UPDATE,
    PF_BLOCKS_INTEGRATE
} pf_block_phase;
int pf_record_block_phase(pf_world *w, pf_object *o, const pf_task_recorder *rec, const pf_block_solve *s,
                          pf_block_phase phase);
/* 1 when every block task of o, its links' outputs included, fits in PF_MAX_ACCESSES */
int pf_record_blocks_fit(const pf_object *o);

#endif
