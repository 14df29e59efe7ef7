/* The barrier executor: the graph level by level, an OpenMP barrier between levels — the synchronisation-heavy
 * baseline of paper 004 figure 2 (left). */
#include "exec.h"

#include <omp.h>

void pf_exec_barrier(const pf_exec_ctx *c)
{
    pf_graph *g = c->g;
    const int instrumented = c->trace || c->measure;
#pragma omp parallel num_threads(c->workers)
    {
        int w = omp_get_thread_num();
        for (uint32_t l = 0; l < g->nlevels; l++) {
            const int lo = (int)g->level_off[l], hi = (int)g->level_off[l + 1];
#pragma omp for schedule(static)
            for (int i = lo; i < hi; i++) {
                pf_node *n = &g->nodes[g->level_nodes[i]];
                if (instrumented)
                    pf_exec_node_instrumented(c, n, w);
                else
                    pf_node_exec(g, n, w);
            }
        }
    }
}
