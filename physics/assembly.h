/* The stiffness of a solver group assembled as 3x3 blocks (assembly.c), for the direct solver
 * (solver_direct.c): each force field and interaction kind that can adds its K = df/dx, as of its latest
 * force evaluation, through its `assemble` operation. Points are numbered over the group: object by object in
 * the group's order, an object's point p at base + p. */
#ifndef PF_PHYSICS_ASSEMBLY_H
#define PF_PHYSICS_ASSEMBLY_H

#include "base/vec.h"

#include <stdint.h>

typedef struct pf_blocks {
    PF_VEC(uint32_t) ij; /* 2 per block: row point, column point */
    PF_VEC(double) k;    /* 9 per block, row-major: the operator's df_row / dx_col */
    double kfact;        /* the solver's factor of K: blocks are kfact K (dforce's df += kfact K dx), and an
                            interaction adds its whole df operator (kfact K plus what else its df phase has) */
    uint32_t points;     /* the group's points: a block touching a point numbered beyond (an object outside the
                            group, a static one a contact pushes against: its motion is 0) is left out */
    int failed;          /* out of memory on some add: the assembly is incomplete */
} pf_blocks;

/* appends the block scale k (9 values) at (i, j); nothing when i or j is not a point of the group */
void pf_blocks_add(pf_blocks *b, uint32_t i, uint32_t j, const double k[9], double scale);
/* the four blocks of a pair term: df_a = kfact J (dx_b - dx_a), df_b = -df_a, J symmetric given as 6 values
 * (xx yy zz xy yz zx) */
void pf_blocks_add_pair(pf_blocks *b, uint32_t a, uint32_t bpt, const double J[6]);
/* the blocks of one element whose df = -kfact P^T ke P dx on its corners' displacements: `corners` points v
 * (numbered base + v[c]), `dofs` local values per corner (3 for solids, 2 for membranes), ke the symmetric
 * (corners * dofs)^2 element stiffness, P (dofs x 3, row-major) the map from world to local displacements,
 * NULL: the identity (dofs 3) */
void pf_blocks_add_element(pf_blocks *b, uint32_t base, const uint32_t *v, int corners, int dofs,
                           const double *ke, const double *P);
/* empties b, keeping its memory */
void pf_blocks_clear(pf_blocks *b);
void pf_blocks_free(pf_blocks *b);

#endif
