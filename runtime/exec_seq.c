/* The seq executor: every node in graph order on the calling thread — the reference for all others. */
#include "exec.h"

void pf_exec_seq(const pf_exec_ctx *c)
{
    pf_graph *g = c->g;
    if (c->trace || c->measure) {
        for (size_t i = 0; i < g->nnodes; i++) pf_exec_node_instrumented(c, &g->nodes[i], 0);
        return;
    }
    for (size_t i = 0; i < g->nnodes; i++) pf_node_exec(g, &g->nodes[i], 0);
}
