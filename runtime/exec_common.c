/* The instrumented node run shared by every executor (timing for the partitioner, spans for the trace). */
#include "exec.h"

void pf_exec_node_instrumented(const pf_exec_ctx *c, pf_node *n, int worker)
{
    pf_graph *g = c->g;
    uint64_t t0 = pf_now_ns();
    pf_node_exec(g, n, worker);
    uint64_t t1 = pf_now_ns();
    if (c->measure) /* a node's cost is all its executions in the measured run (loop bodies repeat) */
        g->pl.cost_run.v[n - g->an.nodes.v] += (double)(t1 - t0);
    if (c->trace)
        pf_trace_add(c->trace, worker, n->kind == PF_NODE_TASK ? PF_TRACE_TASK : PF_TRACE_REDUCER,
                     n->kind == PF_NODE_TASK ? g->tasks.v[n->task].name : "reduce", t0, t1);
}
