/* Conjugate-gradient solves written as runtime tasks (Hermann et al. 2009, §3.3): vectors split into blocks owned by
 * objects, dot products as cumulative writes into scalar data, a counted loop bounded by the iteration limit
 * with a conditional break on the residual. Used by `physflow bench loops` and the runtime tests. */
#ifndef PF_SUPPORT_CG_TASKS_H
#define PF_SUPPORT_CG_TASKS_H

#include "physflow/runtime.h"

#include <stdint.h>

typedef struct cg_set cg_set;

/* `solves` independent SPD tridiagonal systems of blocks x block_n unknowns, each solved by its own CG loop
 * to a relative residual `tol` in at most max_iter iterations. With vary_conditioning the diagonal shift, and
 * so the iteration count, differs from system to system. Records the whole graph. NULL when out of memory. */
cg_set *cg_set_create(int solves, int blocks, int block_n, uint64_t seed, double tol, uint32_t max_iter,
                      int vary_conditioning);
void cg_set_destroy(cg_set *s);
/* One run of the graph: every system solved from x = 0. */
int cg_set_run(cg_set *s, pf_runtime *rt);
pf_graph *cg_set_graph(cg_set *s);
uint32_t cg_set_iterations(const cg_set *s, int solve);
/* Copies system `solve`'s solution (blocks * block_n values) into x. */
void cg_set_solution(const cg_set *s, int solve, double *x);
/* The oracle: a dense Cholesky solve of system `solve` (malloc'ed, caller frees). */
double *cg_set_dense_solve(const cg_set *s, int solve);

#endif
