/* The static executor (paper 004 §3.2): each worker replays its compiled program; a wait op blocks until the
 * awaited node of another worker has published this run's stamp; a node that is awaited signals after it runs.
 * No global barrier inside a run. */
#include "exec.h"

#include "sync.h"

static void run_program(const pf_exec_ctx *c, int w)
{
    pf_graph *g = c->g;
    const pf_program *prog = &g->programs[w];
    const uint32_t stamp = g->stamp;
    pf_node *nodes = g->nodes;
    for (uint32_t i = 0; i < prog->nops; i++) {
        uint32_t op = prog->ops[i];
        if (op & PF_OP_WAIT) {
            pf_flag *f = nodes[op & ~PF_OP_WAIT].flag;
            pf_wait_stamp(&f->done, &f->waiters, stamp, c->spin);
            continue;
        }
        pf_node *n = &nodes[op];
        pf_node_exec(g, n, w);
        if (n->signals) pf_signal_stamp(&n->flag->done, &n->flag->waiters, stamp);
    }
}

static void run_program_instrumented(const pf_exec_ctx *c, int w)
{
    pf_graph *g = c->g;
    const pf_program *prog = &g->programs[w];
    const uint32_t stamp = g->stamp;
    for (uint32_t i = 0; i < prog->nops; i++) {
        uint32_t op = prog->ops[i];
        if (op & PF_OP_WAIT) {
            pf_flag *f = g->nodes[op & ~PF_OP_WAIT].flag;
            uint64_t t0 = pf_now_ns();
            pf_wait_stamp(&f->done, &f->waiters, stamp, c->spin);
            if (c->trace) pf_trace_add(c->trace, w, PF_TRACE_WAIT, "wait", t0, pf_now_ns());
            continue;
        }
        pf_node *n = &g->nodes[op];
        pf_exec_node_instrumented(c, n, w);
        if (n->signals) pf_signal_stamp(&n->flag->done, &n->flag->waiters, stamp);
    }
}

static void static_job(void *ctx, int w)
{
    const pf_exec_ctx *c = ctx;
    if (c->trace || c->measure)
        run_program_instrumented(c, w);
    else
        run_program(c, w);
}

void pf_exec_static(pf_team *team, const pf_exec_ctx *c)
{
    pf_team_run(team, static_job, (void *)c);
}
