/* The runtime's public API called wrongly: NULL, out-of-range, overflowing and wrong-kind arguments, and calls from
 * inside a task of a running graph (its own graph run again, a parallel region of the same runtime, recording,
 * destruction). Every such call returns a negative code with a message that names the function and contains no C
 * operator; nothing crashes or hangs; the graph still runs correctly afterwards (oracle: the values the tasks
 * compute, written out here). */
#include "check_main.h"

#include "physflow/runtime.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void assert_refused(int rc, int want, const char *fn)
{
    ck_assert_msg(rc == want, "%s returned %d, expected %d (%s)", fn, rc, want, pf_last_error());
    const char *m = pf_last_error();
    ck_assert_msg(strstr(m, fn), "message '%s' should name %s", m, fn);
    static const char *const ops[] = {"&&", "||", "->", "!=", "==", "!(", "invalid argument:"};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
        ck_assert_msg(!strstr(m, ops[k]), "message '%s' contains '%s'", m, ops[k]);
}

static void add_one(const pf_task_ctx *c)
{
    *(double *)c->data[0] += 1;
}

static int never(const void *data, const void *args)
{
    (void)data, (void)args;
    return 0;
}

static void on_worker(void *ctx, int worker, int workers)
{
    (void)ctx, (void)worker, (void)workers;
}

START_TEST(bad_arguments_are_refused_in_user_terms)
{
    pf_runtime_def def = pf_runtime_default_def();
    def.bind = 0;
    def.quiet = 1;
    pf_runtime *rt;
    pf_graph *g;
    ck_assert_int_eq(pf_runtime_create(&def, &rt), PF_OK);
    ck_assert_int_eq(pf_graph_create(&g), PF_OK);
    double cell = 0;
    pf_data_id d;
    ck_assert_int_eq(pf_graph_data(g, &cell, sizeof cell, 0, NULL, &d), PF_OK);

    assert_refused(pf_runtime_create(NULL, &rt), PF_EINVAL, "pf_runtime_create");
    pf_runtime_def bad = def;
    bad.workers = 0;
    assert_refused(pf_runtime_create(&bad, &rt), PF_EINVAL, "pf_runtime_create");
    bad = def;
    bad.executor = (pf_executor)17;
    assert_refused(pf_runtime_create(&bad, &rt), PF_EINVAL, "pf_runtime_create");
    bad = def;
    bad.spin_ns = -1;
    assert_refused(pf_runtime_create(&bad, &rt), PF_EINVAL, "pf_runtime_create");
    assert_refused(pf_runtime_set_workers(rt, -3), PF_EINVAL, "pf_runtime_set_workers");
    assert_refused(pf_runtime_set_executor(rt, (pf_executor)-1), PF_EINVAL, "pf_runtime_set_executor");
    assert_refused(pf_runtime_set_partitioner(rt, PF_PART_COUNT), PF_EINVAL, "pf_runtime_set_partitioner");
    assert_refused(pf_runtime_set_repartition(rt, PF_REPART_COUNT), PF_EINVAL, "pf_runtime_set_repartition");
    assert_refused(pf_runtime_parallel(rt, NULL, NULL), PF_EINVAL, "pf_runtime_parallel");
    assert_refused(pf_executor_parse(NULL, &def.executor), PF_EINVAL, "pf_executor_parse");
    assert_refused(pf_runtime_trace_write(rt, NULL), PF_EINVAL, "pf_runtime_trace_write");

    /* a size of (size_t)-8, what n * sizeof(double) gives for n = -1 */
    pf_data_id big;
    assert_refused(pf_graph_data(g, &cell, (size_t)-8, 0, NULL, &big), PF_EINVAL,
                   "pf_graph_data");
    assert_refused(pf_graph_data(g, NULL, 8, 0, NULL, &big), PF_EINVAL, "pf_graph_data");
    assert_refused(pf_graph_data(g, &cell, 0, 0, NULL, &big), PF_EINVAL, "pf_graph_data");
    assert_refused(pf_graph_data_move(NULL, d, &cell, 8), PF_EINVAL, "pf_graph_data_move");
    assert_refused(pf_graph_set_mpi_share(NULL, PF_MPI_SHARE_NEXT), PF_EINVAL, "pf_graph_set_mpi_share");
    assert_refused(pf_graph_set_mpi_share(g, PF_MPI_SHARE_COUNT), PF_EINVAL, "pf_graph_set_mpi_share");
    assert_refused(pf_graph_set_mpi_share(g, (pf_mpi_share)-1), PF_EINVAL, "pf_graph_set_mpi_share");
    ck_assert_int_eq(pf_graph_set_mpi_share(g, PF_MPI_SHARE_NEXT), PF_OK); /* without MPI: changes nothing */
    assert_refused(pf_graph_data_move(g, (pf_data_id){d.index + 9}, &cell, 8), PF_EINVAL, "pf_graph_data_move");
    assert_refused(pf_graph_data_move(g, d, NULL, 8), PF_EINVAL, "pf_graph_data_move");
    assert_refused(pf_graph_data_move(g, d, &cell, 0), PF_EINVAL, "pf_graph_data_move");
    assert_refused(pf_graph_data_move(g, d, &cell, (size_t)-8), PF_EINVAL, "pf_graph_data_move");
    double reduced = 0;
    pf_data_id summed;
    pf_reducer plus = pf_reducer_sum_f64();
    ck_assert_int_eq(pf_graph_data(g, &reduced, sizeof reduced, 0, &plus, &summed), PF_OK);
    double other = 0;
    assert_refused(pf_graph_data_move(g, summed, &other, sizeof other), PF_EINVAL, "pf_graph_data_move");
    pf_access acc = {d, PF_READWRITE};
    assert_refused(pf_graph_task(g, &(pf_task_def){.fn = NULL, .accesses = &acc, .naccesses = 1}, NULL), PF_EINVAL,
                   "pf_graph_task");
    assert_refused(pf_graph_task(g, &(pf_task_def){.fn = add_one, .accesses = NULL, .naccesses = 1}, NULL),
                   PF_EINVAL, "pf_graph_task");
    assert_refused(pf_graph_task(g, &(pf_task_def){.fn = add_one, .accesses = &acc, .naccesses = 1, .cost_ns = NAN},
                                 NULL),
                   PF_EINVAL, "pf_graph_task");
    assert_refused(pf_graph_task(g, &(pf_task_def){.fn = add_one, .args_size = (size_t)-8, .args = &cell}, NULL),
                   PF_EINVAL, "pf_graph_task");
    pf_access unknown = {{d.index + 7}, PF_READ};
    ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = add_one, .accesses = &unknown, .naccesses = 1}, NULL),
                     PF_EINVAL);
    assert_refused(pf_graph_loop_begin(g, &(pf_loop_def){.kind = (pf_loop_kind)9, .max_iterations = 1}, NULL),
                   PF_EINVAL, "pf_graph_loop_begin");
    assert_refused(pf_graph_loop_break(g, (pf_data_id){d.index + 5}, never, NULL, 0), PF_EINVAL,
                   "pf_graph_loop_break");
    assert_refused(pf_graph_loop_break(g, d, NULL, NULL, 0), PF_EINVAL, "pf_graph_loop_break");
    assert_refused(pf_graph_run(NULL, rt), PF_EINVAL, "pf_graph_run");
    assert_refused(pf_graph_run(g, NULL), PF_EINVAL, "pf_graph_run");
    pf_run_stats st;
    assert_refused(pf_graph_get_run_stats(g, PF_STATS_LAST, &st, NULL, 4, NULL), PF_EINVAL,
                   "pf_graph_get_run_stats");
    assert_refused(pf_graph_get_run_stats(g, PF_STATS_LAST, &st, NULL, -1, NULL), PF_EINVAL,
                   "pf_graph_get_run_stats");
    assert_refused(pf_graph_get_stats(g, NULL), PF_EINVAL, "pf_graph_get_stats");
    assert_refused(pf_graph_repartition(NULL), PF_EINVAL, "pf_graph_repartition");
    pf_graph_update up;
    assert_refused(pf_graph_get_last_update(g, NULL), PF_EINVAL, "pf_graph_get_last_update");
    assert_refused(pf_graph_get_last_update(NULL, &up), PF_EINVAL, "pf_graph_get_last_update");
    double span;
    assert_refused(pf_graph_get_estimated_makespan(g, rt, NULL), PF_EINVAL, "pf_graph_get_estimated_makespan");
    assert_refused(pf_graph_get_estimated_makespan(NULL, rt, &span), PF_EINVAL, "pf_graph_get_estimated_makespan");
    assert_refused(pf_graph_get_estimated_makespan(g, NULL, &span), PF_EINVAL, "pf_graph_get_estimated_makespan");
    assert_refused(pf_graph_rebalance(NULL, rt, NULL, NULL), PF_EINVAL, "pf_graph_rebalance");
    assert_refused(pf_graph_rebalance(g, NULL, NULL, NULL), PF_EINVAL, "pf_graph_rebalance");
    assert_refused(pf_graph_task_remove(g, (pf_task_id){999}), PF_EINVAL, "pf_graph_task_remove");
    assert_refused(pf_graph_task_remove(NULL, (pf_task_id){0}), PF_EINVAL, "pf_graph_task_remove");
    assert_refused(pf_graph_loop_remove(g, (pf_loop_id){999}), PF_EINVAL, "pf_graph_loop_remove");
    ck_assert_uint_eq(pf_graph_loop_iterations(g, (pf_loop_id){999}), 0); /* no such loop: it never ran */
    ck_assert_uint_eq(pf_graph_loop_iterations(NULL, (pf_loop_id){0}), 0);
    ck_assert_int_eq(pf_graph_task_worker(g, (pf_task_id){999}), -1); /* no such task: never compiled */
    ck_assert_int_eq(pf_graph_task_worker(NULL, (pf_task_id){0}), -1);
    pf_partitioner part = PF_PART_METIS;
    pf_repartition rep = PF_REPART_ALWAYS;
    assert_refused(pf_partitioner_parse("nonsense", &part), PF_EINVAL, "pf_partitioner_parse");
    assert_refused(pf_partitioner_parse(NULL, &part), PF_EINVAL, "pf_partitioner_parse");
    assert_refused(pf_partitioner_parse("owner", NULL), PF_EINVAL, "pf_partitioner_parse");
    assert_refused(pf_repartition_parse("sometimes", &rep), PF_EINVAL, "pf_repartition_parse");
    assert_refused(pf_repartition_parse(NULL, &rep), PF_EINVAL, "pf_repartition_parse");
    ck_assert(part == PF_PART_METIS && rep == PF_REPART_ALWAYS); /* untouched by the refusals */
    ck_assert_int_eq(pf_partitioner_parse(pf_partitioner_name(PF_PART_OWNER), &part), PF_OK);
    ck_assert_int_eq(pf_repartition_parse(pf_repartition_name(PF_REPART_NEVER), &rep), PF_OK);
    ck_assert(part == PF_PART_OWNER && rep == PF_REPART_NEVER);
    ck_assert_ptr_nonnull(pf_partitioner_name((pf_partitioner)77)); /* out of range: a name, never NULL */
    ck_assert_ptr_nonnull(pf_repartition_name((pf_repartition)-5));
    ck_assert_str_eq(pf_status_name(PF_EINVAL), "PF_EINVAL");
    ck_assert_ptr_nonnull(pf_status_name(-12345));
    ck_assert_ptr_nonnull(pf_status_name(12345));
    pf_reducer sum = pf_reducer_sum_f64();
    ck_assert(sum.combine != NULL && sum.init != NULL);
    pf_set_allocator(NULL, NULL, NULL); /* NULLs: malloc and free, as before */

    /* none of it left a trace: one task (from its default def) in a loop of 3 (from its default def), one run,
     * the value it computes */
    pf_loop_def loop = pf_loop_default_def();
    loop.count = 3;
    ck_assert_int_eq(pf_graph_loop_begin(g, &loop, NULL), PF_OK);
    pf_task_def task = pf_task_default_def();
    ck_assert_str_eq(task.name, "task");
    task.fn = add_one;
    task.accesses = &acc;
    task.naccesses = 1;
    ck_assert_int_eq(pf_graph_task(g, &task, NULL), PF_OK);
    ck_assert_int_eq(pf_graph_loop_end(g), PF_OK);
    ck_assert_int_eq(pf_graph_run(g, rt), PF_OK);
    ck_assert(cell == 3.0);
    pf_graph_destroy(g);
    pf_runtime_destroy(rt);
}
END_TEST

/* What a task body tries, and what it got (one datum per attempt, written by the task alone). */
typedef struct inside {
    pf_graph *g;
    pf_runtime *rt;
    int run, parallel, record, invalidate, set_workers, trace, move, share;
    pf_data_id d;
} inside;

static inside in;

static void misbehave(const pf_task_ctx *c)
{
    *(double *)c->data[0] += 1;
    in.run = pf_graph_run(in.g, in.rt);
    in.parallel = pf_runtime_parallel(in.rt, on_worker, NULL);
    in.record = pf_graph_task(in.g, &(pf_task_def){.fn = add_one}, NULL);
    in.invalidate = pf_graph_invalidate(in.g);
    in.set_workers = pf_runtime_set_workers(in.rt, 3);
    in.trace = pf_runtime_trace_start(in.rt);
    in.move = pf_graph_data_move(in.g, in.d, c->data[0], sizeof(double));
    in.share = pf_graph_set_mpi_share(in.g, PF_MPI_SHARE_ALL);
    pf_graph_destroy(in.g);   /* refused: the graph stays valid */
    pf_runtime_destroy(in.rt); /* refused: the runtime stays valid */
}

/* A runtime def for tests: unbound, quiet, executor e with `workers` workers. */
static pf_runtime_def quiet_def(pf_executor e, int workers)
{
    pf_runtime_def def = pf_runtime_default_def();
    def.bind = 0;
    def.quiet = 1;
    def.workers = workers;
    def.executor = e;
    return def;
}

START_TEST(calls_from_inside_a_task_are_refused)
{
    for (int e = 0; e < PF_EXEC_COUNT; e++)
        for (int workers = 1; workers <= 2; workers++) {
            pf_runtime_def def = quiet_def((pf_executor)e, workers);
            ck_assert_int_eq(pf_runtime_create(&def, &in.rt), PF_OK);
            ck_assert_int_eq(pf_graph_create(&in.g), PF_OK);
            double cell = 0;
            pf_data_id d;
            ck_assert_int_eq(pf_graph_data(in.g, &cell, sizeof cell, 0, NULL, &d), PF_OK);
            in.d = d;
            pf_access acc = {d, PF_READWRITE};
            ck_assert_int_eq(pf_graph_task(in.g, &(pf_task_def){.fn = misbehave, .accesses = &acc, .naccesses = 1},
                                           NULL),
                             PF_OK);
            for (int r = 0; r < 3; r++) ck_assert_int_eq(pf_graph_run(in.g, in.rt), PF_OK);
            const char *ex = pf_executor_name((pf_executor)e);
            ck_assert_msg(cell == 3.0, "%s/%d: the task ran %g times, not 3", ex, workers, cell);
            int got[] = {in.run, in.parallel, in.record, in.invalidate, in.set_workers, in.trace, in.move, in.share};
            for (size_t k = 0; k < sizeof got / sizeof *got; k++)
                ck_assert_msg(got[k] == PF_ESTATE, "%s/%d: call %zu from inside a task returned %d", ex, workers, k,
                              got[k]);
            ck_assert_int_eq(pf_runtime_workers(in.rt), workers);
            ck_assert_int_eq(pf_graph_run(in.g, in.rt), PF_OK); /* still usable */
            ck_assert(cell == 4.0);
            pf_graph_destroy(in.g);
            pf_runtime_destroy(in.rt);
        }
}
END_TEST

/* A datum whose memory grows between runs (pf_graph_data_move): a writer fills n doubles on one worker, a reader
 * on the other sums them; the host variable n is what both read for the size. */
typedef struct moving {
    size_t n;
    double total;
} moving;

static moving mv;

static void fill_values(const pf_task_ctx *c)
{
    double *v = c->data[0];
    for (size_t i = 0; i < mv.n; i++) v[i] = (double)(i + 1);
}

static void sum_values(const pf_task_ctx *c)
{
    const double *v = c->data[0];
    double t = 0;
    for (size_t i = 0; i < mv.n; i++) t += v[i];
    *(double *)c->data[1] = t;
}

/* Oracle: 1 + 2 + ... + n = n (n + 1) / 2 after each move, on every executor with 1 and 2 workers; the old memory
 * is freed at once, so a task still given its address would be caught by the sanitizers. */
START_TEST(a_moved_datum_reaches_its_tasks)
{
    for (int e = 0; e < PF_EXEC_COUNT; e++)
        for (int workers = 1; workers <= 2; workers++) {
            pf_runtime_def def = quiet_def((pf_executor)e, workers);
            pf_runtime *rt;
            pf_graph *g;
            ck_assert_int_eq(pf_runtime_create(&def, &rt), PF_OK);
            ck_assert_int_eq(pf_graph_create(&g), PF_OK);
            mv.n = 4;
            double *buf = malloc(mv.n * sizeof *buf);
            ck_assert_ptr_nonnull(buf);
            pf_data_id values, total;
            ck_assert_int_eq(pf_graph_data(g, buf, mv.n * sizeof *buf, 0, NULL, &values), PF_OK);
            ck_assert_int_eq(pf_graph_data(g, &mv.total, sizeof mv.total, 1, NULL, &total), PF_OK);
            pf_access w = {values, PF_WRITE}, r[2] = {{values, PF_READ}, {total, PF_WRITE}};
            ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = fill_values, .accesses = &w, .naccesses = 1},
                                           NULL),
                             PF_OK);
            ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = sum_values, .accesses = r, .naccesses = 2}, NULL),
                             PF_OK);
            for (size_t n = 4; n <= 4096; n *= 8) {
                if (n != mv.n) {
                    double *grown = malloc(n * sizeof *grown);
                    ck_assert_ptr_nonnull(grown);
                    free(buf);
                    buf = grown;
                    mv.n = n;
                    ck_assert_int_eq(pf_graph_data_move(g, values, buf, n * sizeof *buf), PF_OK);
                }
                ck_assert_int_eq(pf_graph_run(g, rt), PF_OK);
                ck_assert_msg(mv.total == (double)(n * (n + 1) / 2), "%s/%d, n %zu: sum %g",
                              pf_executor_name((pf_executor)e), workers, n, mv.total);
            }
            pf_graph_destroy(g);
            pf_runtime_destroy(rt);
            free(buf);
        }
}
END_TEST

/* What a drain hands over: the spans, counted by kind and worker. */
typedef struct span_count {
    int tasks[2], runs, bad;
} span_count;

static void count_span(const pf_trace_span *sp, void *ctx)
{
    span_count *c = ctx;
    if (sp->t1_ns < sp->t0_ns || sp->worker < 0 || sp->worker > 1) c->bad++;
    if (sp->kind == PF_TRACE_TASK && !strcmp(sp->name, "own") && sp->worker >= 0 && sp->worker < 2)
        c->tasks[sp->worker]++;
    if (sp->kind == PF_TRACE_RUN) c->runs++;
}

/* Eight objects, one task each, on two workers: pf_graph_object_workers agrees with pf_graph_task_worker of each
 * object's task (the oracle); a drain hands over every task span of the runs since the previous one, on the worker
 * that ran it, and then none; stopping ends tracing (a drain is refused). */
START_TEST(trace_drain_and_object_workers)
{
    pf_runtime_def def = pf_runtime_default_def();
    def.workers = 2;
    def.bind = 0;
    def.quiet = 1;
    def.executor = PF_EXEC_STATIC;
    pf_runtime *rt = NULL;
    pf_graph *g = NULL;
    ck_assert_int_eq(pf_runtime_create(&def, &rt), PF_OK);
    ck_assert_int_eq(pf_graph_create(&g), PF_OK);
    enum { N = 8 };
    double cell[N] = {0};
    pf_task_id task[N];
    int32_t wk[N + 2];
    ck_assert_int_eq(pf_graph_object_workers(g, wk, N + 2), PF_OK);
    for (int o = 0; o < N + 2; o++) ck_assert_int_eq(wk[o], -1); /* nothing placed yet */
    for (uint32_t o = 0; o < N; o++) {
        pf_access acc = {.mode = PF_READWRITE};
        ck_assert_int_eq(pf_graph_data(g, &cell[o], sizeof cell[o], o, NULL, &acc.data), PF_OK);
        pf_task_def t = pf_task_default_def();
        t.fn = add_one;
        t.name = "own";
        t.accesses = &acc;
        t.naccesses = 1;
        ck_assert_int_eq(pf_graph_task(g, &t, &task[o]), PF_OK);
    }
    span_count c = {{0, 0}, 0, 0};
    assert_refused(pf_runtime_trace_drain(rt, count_span, &c), PF_ESTATE, "pf_runtime_trace_drain");
    ck_assert_int_eq(pf_runtime_trace_start(rt), PF_OK);
    for (int r = 0; r < 3; r++) ck_assert_int_eq(pf_graph_run(g, rt), PF_OK);
    ck_assert_int_eq(pf_graph_object_workers(g, wk, N + 2), PF_OK);
    int per_worker[2] = {0, 0};
    for (int o = 0; o < N; o++) {
        ck_assert_int_eq(wk[o], pf_graph_task_worker(g, task[o]));
        ck_assert(wk[o] == 0 || wk[o] == 1);
        per_worker[wk[o]]++;
    }
    ck_assert_int_eq(wk[N], -1); /* owners no task names */
    ck_assert_int_eq(wk[N + 1], -1);
    ck_assert_int_eq(pf_runtime_trace_drain(rt, count_span, &c), PF_OK);
    ck_assert_int_eq(c.bad, 0);
    ck_assert_int_eq(c.runs, 3);
    ck_assert_int_eq(c.tasks[0], 3 * per_worker[0]);
    ck_assert_int_eq(c.tasks[1], 3 * per_worker[1]);
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(pf_runtime_trace_drain(rt, count_span, &c), PF_OK); /* drained: nothing left */
    ck_assert_int_eq(c.runs + c.tasks[0] + c.tasks[1], 0);
    ck_assert_int_eq(pf_graph_run(g, rt), PF_OK); /* tracing goes on after a drain */
    ck_assert_int_eq(pf_runtime_trace_drain(rt, count_span, &c), PF_OK);
    ck_assert_int_eq(c.runs, 1);
    ck_assert_int_eq(c.tasks[0] + c.tasks[1], N);

    assert_refused(pf_runtime_trace_drain(NULL, count_span, &c), PF_EINVAL, "pf_runtime_trace_drain");
    assert_refused(pf_runtime_trace_drain(rt, NULL, &c), PF_EINVAL, "pf_runtime_trace_drain");
    assert_refused(pf_graph_object_workers(NULL, wk, N), PF_EINVAL, "pf_graph_object_workers");
    assert_refused(pf_graph_object_workers(g, NULL, N), PF_EINVAL, "pf_graph_object_workers");
    ck_assert_int_eq(pf_graph_object_workers(g, NULL, 0), PF_OK); /* nothing asked */
    assert_refused(pf_runtime_trace_stop(NULL), PF_EINVAL, "pf_runtime_trace_stop");
    ck_assert_int_eq(pf_runtime_trace_stop(rt), PF_OK);
    ck_assert_int_eq(pf_runtime_trace_stop(rt), PF_OK); /* already off */
    assert_refused(pf_runtime_trace_drain(rt, count_span, &c), PF_ESTATE, "pf_runtime_trace_drain");
    for (int o = 0; o < N; o++) ck_assert(cell[o] == 4.0);
    pf_graph_destroy(g);
    pf_runtime_destroy(rt);
}
END_TEST

/* def.mpi: refused without an MPI initialised for threads (or without MPI in the build), with another executor,
 * and out of range; a runtime of one process is rank 0 of 1. */
START_TEST(mpi_settings_are_refused_without_mpi)
{
    pf_runtime_def def = pf_runtime_default_def();
    def.bind = 0;
    def.quiet = 1;
    pf_runtime *rt;
    ck_assert_int_eq(pf_runtime_create(&def, &rt), PF_OK);
    int rank = -1, ranks = -1;
    ck_assert_int_eq(pf_runtime_get_rank(rt, &rank, &ranks), PF_OK);
    ck_assert_int_eq(rank, 0);
    ck_assert_int_eq(ranks, 1);
    assert_refused(pf_runtime_get_rank(NULL, &rank, &ranks), PF_EINVAL, "pf_runtime_get_rank");
    assert_refused(pf_runtime_get_rank(rt, NULL, &ranks), PF_EINVAL, "pf_runtime_get_rank");
    assert_refused(pf_runtime_get_rank(rt, &rank, NULL), PF_EINVAL, "pf_runtime_get_rank");
    pf_runtime_destroy(rt);

    pf_runtime_def bad = def;
    bad.mpi = 2;
    assert_refused(pf_runtime_create(&bad, &rt), PF_EINVAL, "pf_runtime_create");
    bad.mpi = 1; /* MPI_Init was never called here (or MPI is not built) */
    assert_refused(pf_runtime_create(&bad, &rt), PF_EINVAL, "pf_runtime_create");
    ck_assert_msg(strstr(pf_last_error(), "MPI"), "message '%s' should say why", pf_last_error());
    bad.executor = PF_EXEC_SEQ;
    assert_refused(pf_runtime_create(&bad, &rt), PF_EINVAL, "pf_runtime_create");
    ck_assert_msg(strstr(pf_last_error(), "seq"), "message '%s' should name the executor", pf_last_error());
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("api_runtime");
    TCase *tc = tcase_create("api");
    tcase_add_test(tc, bad_arguments_are_refused_in_user_terms);
    tcase_add_test(tc, calls_from_inside_a_task_are_refused);
    tcase_add_test(tc, a_moved_datum_reaches_its_tasks);
    tcase_add_test(tc, trace_drain_and_object_workers);
    tcase_add_test(tc, mpi_settings_are_refused_without_mpi);
    suite_add_tcase(s, tc);
    return s;
}
