/* The omptasks executor: every node an OpenMP task whose depend clauses are the graph's edges — the dynamic
 * work-stealing baseline. */
#include "exec.h"

#include <omp.h>

void pf_exec_omptasks(const pf_exec_ctx *c)
{
    pf_graph *g = c->g;
    char *tok = (char *)g->nodes; /* any distinct addresses serve as dependence tokens: one byte per node */
    const int instrumented = c->trace || c->measure;
    (void)tok;
#pragma omp parallel num_threads(c->workers)
#pragma omp single
    for (size_t i = 0; i < g->nnodes; i++) {
        pf_node *n = &g->nodes[i];
        const uint32_t *p = &g->preds[n->pred_off];
        const int np = (int)n->npred;
        (void)np; /* used only inside the depend iterator, which gcc 12 does not count as a use */
#pragma omp task depend(iterator(int it = 0 : np), in : tok[p[it]]) depend(out : tok[i]) firstprivate(n)
        {
            if (instrumented)
                pf_exec_node_instrumented(c, n, omp_get_thread_num());
            else
                pf_node_exec(g, n, omp_get_thread_num());
        }
    }
}
