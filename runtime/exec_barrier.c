/* The barrier executor: each segment of the graph level by level with an OpenMP barrier between levels — the
 * synchronisation-heavy baseline of Hermann et al. 2009 figure 2 (left); loops run as host-side loops, one thread
 * deciding each condition between barriers. */
#include "exec.h"

#include <omp.h>

void pf_exec_barrier(const pf_exec_ctx *c)
{
    pf_graph *g = c->g;
    const int instrumented = c->trace || c->measure;
    size_t next[2]; /* control decisions, double-buffered: a thread may read one while the next is written */
#pragma omp parallel num_threads(c->workers)
    {
        const int w = omp_get_thread_num();
        unsigned step = 0;
        for (size_t i = 0; i < g->an.nodes.n;) {
            const pf_node *n = &g->an.nodes.v[i];
            if (n->kind == PF_NODE_TASK || n->kind == PF_NODE_REDUCER) {
                const pf_segment *s = &g->lv.segments[g->lv.node_segment[i]];
                for (uint32_t l = s->level_begin; l < s->level_end; l++) {
                    const int lo = (int)g->lv.level_off[l], hi = (int)g->lv.level_off[l + 1];
#pragma omp for schedule(static)
                    for (int k = lo; k < hi; k++) {
                        pf_node *nd = &g->an.nodes.v[g->lv.level_nodes[k]];
                        if (instrumented)
                            pf_exec_node_instrumented(c, nd, w);
                        else
                            pf_node_exec(g, nd, w);
                    }
                }
                i = s->node_end;
            } else {
#pragma omp single
                next[step & 1] = pf_control_next(g, i);
                i = next[step++ & 1];
            }
        }
    }
}
