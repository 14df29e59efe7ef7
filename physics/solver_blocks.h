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

/* records the step of group gr, whose one object o runs as the blocks of d: forces, right-hand side, the CG
 * loop and the integration, each per block, in the canonical order of decompose.h */
int pf_record_blocks(pf_world *w, pf_group *gr, pf_object *o, pf_decomp *d, const pf_task_recorder *rec,
                     const pf_block_solve *s);

#endif
