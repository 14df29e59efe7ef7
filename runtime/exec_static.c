/* The static executor (Hermann et al. 2009, §3.2-3.3): each worker replays its compiled program. A wait blocks
 * until the awaited flag reaches the waiter's own count of the context's executions (minus one when loop-carried); an
 * awaited node publishes its count after it runs; loop control is evaluated by every participating worker.
 * No global barrier inside a run. */
#include "exec.h"

#include "mpi.h"
#include "sync.h"

#include "base/alloc.h"
#include "base/error.h"

static inline void publish(pf_flag *f, uint32_t value)
{
    if (f) pf_signal_stamp(&f->done, &f->waiters, value);
}

/* Leaves loop l: the exit flag carries the count of the loop's enclosing context (and goes to the ranks that
 * import it, across MPI ranks). */
static inline void exit_loop(pf_graph *g, const pf_op *op, uint32_t *cnt, uint32_t l, uint32_t it, pf_mpi *mpi, int w)
{
    pf_loop *L = &g->loops.v[l];
    atomic_store_explicit(&L->last_iterations, it, memory_order_relaxed);
    uint32_t stamp = cnt[L->parent == PF_NONE ? 0 : L->parent + 1];
    publish(op->exit_flag, stamp);
    if (mpi) pf_mpi_published(mpi, g, w, op->exit_flag, stamp);
}

/* Worker w replays program prog_base + w. Across MPI ranks (mpi not NULL) each op kind checks it once: a RUN
 * sends its results to the ranks that import them, a wait on another rank's flag receives. */
static void run_program(const pf_exec_ctx *c, int w, int instrumented, pf_mpi *mpi)
{
    pf_graph *g = c->g;
    pf_worker_tally *tl = &c->tally[w];
    uint64_t waits = 0, blocked = 0, tasks = 0, wait_ns = 0;
    tl->start_ns = pf_now_ns();
    pf_program *prog = &g->prog.programs[c->prog_base + w];
    const pf_op *ops = prog->ops;
    uint32_t *cnt = prog->cnt, *it = prog->it;
    cnt[0]++;
    for (uint32_t pc = 0; pc < prog->nops;) {
        const pf_op *op = &ops[pc];
        switch (op->kind) {
        case PF_OP_RUN: {
            pf_node *n = &g->an.nodes.v[op->node];
            if (instrumented) {
                uint64_t t0 = pf_now_ns();
                pf_node_exec(g, n, w);
                uint64_t t1 = pf_now_ns();
                if (c->measure) prog->op_ns.v[pc] += (double)(t1 - t0); /* folded into node costs after the run */
                if (c->trace)
                    pf_trace_add(c->trace, w, n->kind == PF_NODE_TASK ? PF_TRACE_TASK : PF_TRACE_REDUCER,
                                 n->kind == PF_NODE_TASK ? g->tasks.v[n->task].name : "reduce", t0, t1);
            } else {
                pf_node_exec(g, n, w);
            }
            publish(op->flag, cnt[op->ctx]);
            if (mpi) pf_mpi_ran(mpi, g, w, op, cnt[op->ctx]);
            tasks++;
            pc++;
            break;
        }
        case PF_OP_WAIT: {
            if (op->jump && it[op->jump - 1] > 1) { /* awaited in this entry's first iteration already */
                pc++;
                break;
            }
            uint32_t want = cnt[op->ctx] - op->delta;
            waits++;
            /* only a wait that finds the result not ready is timed (two clock reads) */
            if (!pf_stamp_reached(atomic_load_explicit(&op->flag->done, memory_order_acquire), want)) {
                uint64_t t0 = pf_now_ns();
                if (mpi && pf_mpi_imported(mpi, op->flag))
                    pf_mpi_wait(mpi, g, op->flag, want);
                else
                    pf_wait_stamp(&op->flag->done, &op->flag->waiters, want, c->spin);
                uint64_t t1 = pf_now_ns();
                if (c->trace) pf_trace_add(c->trace, w, PF_TRACE_WAIT, "wait", t0, t1);
                wait_ns += t1 - t0;
                blocked++;
            }
            pc++;
            break;
        }
        case PF_OP_BEGIN: {
            const pf_node *n = &g->an.nodes.v[op->node];
            uint32_t l = n->loop;
            int go = pf_loop_continues(g, n, 0);
            publish(op->flag, cnt[op->ctx]);
            if (mpi) pf_mpi_published(mpi, g, w, op->flag, cnt[op->ctx]);
            if (go) {
                it[l] = 1;
                cnt[l + 1]++;
                pc++;
            } else {
                exit_loop(g, op, cnt, l, 0, mpi, w);
                pc = op->jump;
            }
            break;
        }
        case PF_OP_END: {
            const pf_node *n = &g->an.nodes.v[op->node];
            uint32_t l = n->loop;
            int go = pf_loop_continues(g, n, it[l]);
            publish(op->flag, cnt[op->ctx]);
            if (mpi) pf_mpi_published(mpi, g, w, op->flag, cnt[op->ctx]);
            if (go) {
                it[l]++;
                cnt[l + 1]++;
                pc = op->jump;
            } else {
                exit_loop(g, op, cnt, l, it[l], mpi, w);
                pc++;
            }
            break;
        }
        default: { /* PF_OP_BREAK */
            const pf_node *n = &g->an.nodes.v[op->node];
            uint32_t l = n->loop;
            int take = pf_break_taken(g, n);
            publish(op->flag, cnt[op->ctx]);
            if (mpi) pf_mpi_published(mpi, g, w, op->flag, cnt[op->ctx]);
            if (take) {
                for (uint32_t s = 0; s < op->nskip; s++) {
                    publish(g->prog.skips.v[op->skip_off + s], cnt[op->ctx]);
                    if (mpi) pf_mpi_published(mpi, g, w, g->prog.skips.v[op->skip_off + s], cnt[op->ctx]);
                }
                exit_loop(g, op, cnt, l, it[l], mpi, w);
                pc = op->jump;
            } else {
                pc++;
            }
            break;
        }
        }
    }
    tl->waits = waits, tl->blocked = blocked, tl->tasks = tasks, tl->wait_ns = wait_ns;
    tl->end_ns = pf_now_ns();
}

static void static_job(void *ctx, int w)
{
    const pf_exec_ctx *c = ctx;
    if (c->mpi)
        run_program(c, w, c->trace || c->measure, c->mpi);
    else if (c->trace || c->measure)
        run_program(c, w, 1, NULL);
    else
        run_program(c, w, 0, NULL);
}

int pf_exec_static(pf_team *team, const pf_exec_ctx *c)
{
    pf_graph *g = c->g;
    if (c->measure && !c->mpi) /* each worker times its own ops into its own array (not across ranks) */
        for (int w = 0; w < g->prog.workers; w++) {
            pf_program *p = &g->prog.programs[w];
            if (pf_vec_reserve(&p->op_ns, p->nops ? p->nops : 1)) return PF_ENOMEM;
            for (uint32_t k = 0; k < p->nops; k++) p->op_ns.v[k] = 0;
        }
    pf_team_run(team, static_job, (void *)c);
    if (c->measure && !c->mpi)
        for (int w = 0; w < g->prog.workers; w++) {
            const pf_program *p = &g->prog.programs[w];
            for (uint32_t k = 0; k < p->nops; k++)
                if (p->ops[k].kind == PF_OP_RUN) g->pl.cost_run.v[p->ops[k].node] += p->op_ns.v[k];
        }
    return PF_OK;
}
