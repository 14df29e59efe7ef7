/* The seq executor: every node in graph order on the calling thread, loops interpreted in place — the
 * reference for all other executors. */
#include "exec.h"

void pf_exec_seq(const pf_exec_ctx *c)
{
    pf_graph *g = c->g;
    const int instrumented = c->trace || c->measure;
    uint64_t tasks = 0;
    c->tally[0].start_ns = pf_now_ns();
    for (size_t i = 0; i < g->an.nodes.n;) {
        pf_node *n = &g->an.nodes.v[i];
        if (n->kind == PF_NODE_TASK || n->kind == PF_NODE_REDUCER) {
            if (instrumented)
                pf_exec_node_instrumented(c, n, 0);
            else
                pf_node_exec(g, n, 0);
            tasks++;
            i++;
        } else {
            i = pf_control_next(g, i);
        }
    }
    c->tally[0].tasks = tasks;
    c->tally[0].end_ns = pf_now_ns();
}
