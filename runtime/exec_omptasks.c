/* The omptasks executor: every node an OpenMP task whose depend clauses are the graph's edges — the dynamic
 * work-stealing baseline. Loop control waits for the iteration's tasks (a taskwait) before deciding. */
#include "exec.h"

#include <omp.h>

void pf_exec_omptasks(const pf_exec_ctx *c)
{
    pf_graph *g = c->g;
    char *tok = (char *)g->an.nodes.v; /* any distinct addresses serve as dependence tokens: one byte per node */
    const int instrumented = c->trace || c->measure;
    (void)tok;
#pragma omp parallel num_threads(c->workers)
#pragma omp single
    for (size_t i = 0; i < g->an.nodes.n;) {
        pf_node *n = &g->an.nodes.v[i];
        if (n->kind != PF_NODE_TASK && n->kind != PF_NODE_REDUCER) {
#pragma omp taskwait
            i = pf_control_next(g, i);
            continue;
        }
        /* Forward edges only: loop-carried ones point to tasks finished before the last taskwait. */
        const uint32_t *p = &g->an.preds.v[n->pred_off];
        int np = 0;
        while (np < (int)n->npred && !(p[np] & PF_PRED_CARRIED)) np++;
        const size_t self = i;
#pragma omp task depend(iterator(int it = 0 : np), in : tok[p[it]]) depend(out : tok[self]) firstprivate(n)
        {
            if (instrumented)
                pf_exec_node_instrumented(c, n, omp_get_thread_num());
            else
                pf_node_exec(g, n, omp_get_thread_num());
        }
        i++;
    }
}
