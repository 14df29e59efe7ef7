/* Runtime core tests: every executor and worker count leaves bitwise the data of the seq executor on random
 * graphs; replays equal fresh compilations; cross-worker reads see the writer's data; reducers fold in
 * recording order. */
#include "check_main.h"
#include "random_body.h"

#include "physflow/runtime.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* ---------- a random graph generator ---------- */

typedef struct random_graph {
    pf_graph *g;
    double *data; /* ndata * VEC */
    double *init;
    size_t ndata;
} random_graph;

static void random_graph_build(random_graph *rg, uint64_t seed, size_t ntasks, size_t ndata, size_t nobjects)
{
    rng r = {seed};
    rg->ndata = ndata;
    rg->data = calloc(ndata * VEC, sizeof(double));
    rg->init = calloc(ndata * VEC, sizeof(double));
    for (size_t i = 0; i < ndata * VEC; i++) rg->init[i] = (rng_u32(&r) % 1000) / 7.0;
    ck_assert_int_eq(pf_graph_create(&rg->g), PF_OK);
    pf_reducer sum = pf_reducer_sum_f64();
    for (size_t d = 0; d < ndata; d++) {
        pf_data_id id;
        ck_assert_int_eq(pf_graph_data(rg->g, &rg->data[d * VEC], VEC * sizeof(double),
                                       (uint32_t)(rng_u32(&r) % nobjects), &sum, &id),
                         PF_OK);
        ck_assert_uint_eq(id.index, d); /* registration order */
    }
    static const pf_access_mode modes[] = {PF_READ, PF_READ, PF_WRITE, PF_READWRITE, PF_CUMUL, PF_CUMUL};
    for (size_t t = 0; t < ntasks; t++) {
        body_args a = {.id = (uint32_t)t, .nacc = 1 + rng_u32(&r) % 4};
        pf_access acc[8];
        for (uint32_t k = 0; k < a.nacc; k++) {
            uint32_t d;
            int dup;
            do { /* distinct data within a task */
                d = rng_u32(&r) % (uint32_t)ndata;
                dup = 0;
                for (uint32_t j = 0; j < k; j++) dup |= acc[j].data.index == d;
            } while (dup);
            acc[k] = (pf_access){{d}, modes[rng_u32(&r) % 6]};
            a.modes[k] = (uint8_t)acc[k].mode;
        }
        pf_task_def def = {.fn = random_body, .name = "random", .args = &a, .args_size = sizeof a,
                           .accesses = acc, .naccesses = a.nacc, .cost_ns = 100 + rng_u32(&r) % 1000};
        ck_assert_int_eq(pf_graph_task(rg->g, &def, NULL), PF_OK);
    }
}

static void random_graph_free(random_graph *rg)
{
    pf_graph_destroy(rg->g);
    free(rg->data);
    free(rg->init);
}

/* Runs the graph `runs` times from its initial data with the given executor and workers; returns the data. */
static double *run_config(random_graph *rg, pf_executor e, pf_partitioner part, int workers, int runs)
{
    pf_runtime_def def = pf_runtime_default_def();
    def.workers = workers;
    def.executor = e;
    def.partitioner = part;
    def.quiet = 1;
    pf_runtime *rt;
    ck_assert_int_eq(pf_runtime_create(&def, &rt), PF_OK);
    memcpy(rg->data, rg->init, rg->ndata * VEC * sizeof(double));
    for (int k = 0; k < runs; k++) ck_assert_int_eq(pf_graph_run(rg->g, rt), PF_OK);
    pf_runtime_destroy(rt);
    double *out = malloc(rg->ndata * VEC * sizeof(double));
    memcpy(out, rg->data, rg->ndata * VEC * sizeof(double));
    return out;
}

START_TEST(random_dags_match_seq)
{
    static const int worker_counts[] = {1, 2, 3, 8};
    for (uint64_t seed = 1; seed <= 6; seed++) {
        random_graph rg;
        random_graph_build(&rg, seed * 7919, 300 + seed * 50, 20 + seed * 4, 3 + seed * 2);
        double *ref = run_config(&rg, PF_EXEC_SEQ, PF_PART_OWNER, 1, 3);
        /* the static executor once per partitioner; the others ignore the partitioner */
        for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT + 1; e++)
            for (size_t w = 0; w < sizeof worker_counts / sizeof *worker_counts; w++) {
                pf_executor ex = e == PF_EXEC_COUNT ? PF_EXEC_STATIC : (pf_executor)e;
                pf_partitioner part = e == PF_EXEC_COUNT ? PF_PART_METIS : PF_PART_OWNER;
                double *got = run_config(&rg, ex, part, worker_counts[w], 3);
                ck_assert_msg(memcmp(ref, got, rg.ndata * VEC * sizeof(double)) == 0,
                              "seed %llu: executor %s (%s) with %d workers differs from seq",
                              (unsigned long long)seed, pf_executor_name(ex), pf_partitioner_name(part),
                              worker_counts[w]);
                free(got);
            }
        pf_graph_stats st;
        pf_graph_get_stats(rg.g, &st);
        ck_assert_uint_gt(st.reducers, 0); /* the generator exercised cumulative groups */
        free(ref);
        random_graph_free(&rg);
    }
}
END_TEST

START_TEST(replays_equal_fresh_compilations)
{
    random_graph rg;
    random_graph_build(&rg, 4242, 400, 30, 8);
    pf_runtime_def def = pf_runtime_default_def();
    def.workers = 2;
    def.quiet = 1;
    def.repartition = PF_REPART_NEVER; /* one compilation, replayed */
    pf_runtime *rt;
    ck_assert_int_eq(pf_runtime_create(&def, &rt), PF_OK);

    memcpy(rg.data, rg.init, rg.ndata * VEC * sizeof(double));
    for (int k = 0; k < 100; k++) ck_assert_int_eq(pf_graph_run(rg.g, rt), PF_OK);
    pf_graph_stats st;
    pf_graph_get_stats(rg.g, &st);
    ck_assert_uint_eq(st.compiles, 1); /* replays did no analysis */
    double *replayed = malloc(rg.ndata * VEC * sizeof(double));
    memcpy(replayed, rg.data, rg.ndata * VEC * sizeof(double));

    /* the same steps, each with a graph recorded, analysed and compiled from scratch */
    double *state = malloc(rg.ndata * VEC * sizeof(double));
    memcpy(state, rg.init, rg.ndata * VEC * sizeof(double));
    for (int k = 0; k < 100; k++) {
        random_graph fresh;
        random_graph_build(&fresh, 4242, 400, 30, 8);
        memcpy(fresh.data, state, rg.ndata * VEC * sizeof(double));
        ck_assert_int_eq(pf_graph_run(fresh.g, rt), PF_OK);
        memcpy(state, fresh.data, rg.ndata * VEC * sizeof(double));
        random_graph_free(&fresh);
    }
    ck_assert(memcmp(replayed, state, rg.ndata * VEC * sizeof(double)) == 0);
    free(state);
    free(replayed);
    pf_runtime_destroy(rt);
    random_graph_free(&rg);
}
END_TEST

/* ---------- a cross-worker edge ---------- */

#define BIG 4096

static void produce(const pf_task_ctx *ctx)
{
    double *counter = ctx->data[0];
    double *x = ctx->data[1];
    *counter += 1;
    for (int i = 0; i < BIG; i++) x[i] = *counter * 1000 + i; /* slow enough that an early reader sees old bits */
}

static void consume(const pf_task_ctx *ctx)
{
    const double *x = ctx->data[0];
    double *y = ctx->data[1];
    for (int i = 0; i < BIG; i++) y[i] = x[i];
}

START_TEST(cross_worker_reader_sees_writer)
{
    static double counter, x[BIG], y[BIG];
    counter = 0;
    pf_graph *g;
    ck_assert_int_eq(pf_graph_create(&g), PF_OK);
    pf_data_id dc, dx, dy;
    ck_assert_int_eq(pf_graph_data(g, &counter, sizeof counter, 0, NULL, &dc), PF_OK);
    ck_assert_int_eq(pf_graph_data(g, x, sizeof x, 0, NULL, &dx), PF_OK);
    ck_assert_int_eq(pf_graph_data(g, y, sizeof y, 1, NULL, &dy), PF_OK);
    pf_access pa[] = {{dc, PF_READWRITE}, {dx, PF_WRITE}};
    pf_access ca[] = {{dx, PF_READ}, {dy, PF_WRITE}};
    pf_task_id tp, tc;
    ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = produce, .name = "produce", .accesses = pa, .naccesses = 2},
                                   &tp), PF_OK);
    ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = consume, .name = "consume", .accesses = ca, .naccesses = 2},
                                   &tc), PF_OK);
    pf_runtime_def def = pf_runtime_default_def();
    def.workers = 2;
    def.quiet = 1;
    def.repartition = PF_REPART_NEVER; /* a repartition would rightly put the chain on one worker */
    pf_runtime *rt;
    ck_assert_int_eq(pf_runtime_create(&def, &rt), PF_OK);
    for (int run = 1; run <= 2000; run++) {
        ck_assert_int_eq(pf_graph_run(g, rt), PF_OK);
        if (run == 1) ck_assert_int_ne(pf_graph_task_worker(g, tp), pf_graph_task_worker(g, tc));
        for (int i = 0; i < BIG; i++)
            if (y[i] != run * 1000.0 + i) ck_abort_msg("run %d: y[%d] = %g, writer wrote %g", run, i, y[i], run * 1000.0 + i);
    }
    pf_graph_stats st;
    pf_graph_get_stats(g, &st);
    ck_assert_uint_ge(st.cross_edges, 1);
    ck_assert_uint_ge(st.waits, 1);
    pf_runtime_destroy(rt);
    pf_graph_destroy(g);
}
END_TEST

/* ---------- reducers fold in recording order ---------- */

/* combine(dst, src) = 3*dst + src: not associative, not commutative, exact on small integers. */
static void poly_init(void *buf, size_t size, void *ctx)
{
    (void)ctx;
    memset(buf, 0, size);
}

static void poly_combine(void *dst, const void *src, size_t size, void *ctx)
{
    (void)size;
    (void)ctx;
    *(double *)dst = 3 * *(double *)dst + *(const double *)src;
}

static void put_value(const pf_task_ctx *ctx)
{
    *(double *)ctx->data[1] += *(const double *)ctx->args; /* data[1]: the cumulative buffer */
}

START_TEST(reducer_combines_in_recording_order)
{
    enum { WRITERS = 12 };
    static double value;
    static double owners_pad[WRITERS];
    pf_graph *g;
    ck_assert_int_eq(pf_graph_create(&g), PF_OK);
    pf_reducer poly = {poly_init, poly_combine, NULL};
    pf_data_id dv;
    ck_assert_int_eq(pf_graph_data(g, &value, sizeof value, 0, &poly, &dv), PF_OK);
    for (int k = 0; k < WRITERS; k++) {
        /* each writer also writes a datum of its own object, so writers spread over workers */
        pf_data_id own;
        ck_assert_int_eq(pf_graph_data(g, &owners_pad[k], sizeof(double), (uint32_t)k, NULL, &own), PF_OK);
        pf_access acc[] = {{own, PF_WRITE}, {dv, PF_CUMUL}};
        double v = k + 1;
        ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = put_value, .args = &v, .args_size = sizeof v,
                                                          .accesses = acc, .naccesses = 2},
                                       NULL),
                         PF_OK);
    }
    double expected = 5; /* the oracle: the fold written out by hand, in recording order */
    for (int k = 0; k < WRITERS; k++) expected = 3 * expected + (k + 1);

    static const int worker_counts[] = {1, 2, 3, 8};
    for (int e = 0; e < PF_EXEC_COUNT; e++)
        for (size_t w = 0; w < 4; w++) {
            pf_runtime_def def = pf_runtime_default_def();
            def.workers = worker_counts[w];
            def.executor = (pf_executor)e;
            def.quiet = 1;
            pf_runtime *rt;
            ck_assert_int_eq(pf_runtime_create(&def, &rt), PF_OK);
            for (int run = 0; run < 3; run++) {
                value = 5;
                ck_assert_int_eq(pf_graph_run(g, rt), PF_OK);
                ck_assert_msg(value == expected, "%s/%d: got %.17g, recording-order fold gives %.17g",
                              pf_executor_name((pf_executor)e), worker_counts[w], value, expected);
            }
            pf_runtime_destroy(rt);
        }
    pf_graph_stats st;
    pf_graph_get_stats(g, &st);
    ck_assert_uint_eq(st.reducers, 1);
    pf_graph_destroy(g);
}
END_TEST

/* ---------- API errors ---------- */

static void nop(const pf_task_ctx *ctx)
{
    (void)ctx;
}

START_TEST(invalid_arguments_return_errors)
{
    pf_graph *g;
    ck_assert_int_eq(pf_graph_create(&g), PF_OK);
    double a[2];
    pf_data_id d, dr;
    ck_assert_int_eq(pf_graph_data(g, NULL, 8, 0, NULL, &d), PF_EINVAL);
    ck_assert_int_eq(pf_graph_data(g, a, 0, 0, NULL, &d), PF_EINVAL);
    ck_assert_int_eq(pf_graph_data(g, a, sizeof a, 0, NULL, &d), PF_OK);
    pf_reducer sum = pf_reducer_sum_f64();
    ck_assert_int_eq(pf_graph_data(g, a, sizeof a, 0, &sum, &dr), PF_OK);
    pf_access bad_id = {{99}, PF_READ}, cumul_no_reducer = {d, PF_CUMUL}, bad_mode = {d, (pf_access_mode)9};
    pf_access twice[] = {{d, PF_READ}, {d, PF_WRITE}};
    ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = nop, .accesses = &bad_id, .naccesses = 1}, NULL), PF_EINVAL);
    ck_assert(strstr(pf_last_error(), "unknown datum") != NULL);
    ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = nop, .accesses = &cumul_no_reducer, .naccesses = 1}, NULL),
                     PF_EINVAL);
    ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = nop, .accesses = &bad_mode, .naccesses = 1}, NULL),
                     PF_EINVAL);
    ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = nop, .accesses = twice, .naccesses = 2}, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = NULL}, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = nop, .accesses = twice, .naccesses = 1}, NULL), PF_OK);

    pf_runtime_def def = pf_runtime_default_def();
    pf_runtime *rt;
    def.workers = 0;
    ck_assert_int_eq(pf_runtime_create(&def, &rt), PF_EINVAL);
    def.workers = 1;
    ck_assert_int_eq(pf_runtime_create(&def, &rt), PF_OK);
    ck_assert_int_eq(pf_graph_run(g, rt), PF_OK);
    /* recording into a compiled graph needs an explicit invalidation */
    ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = nop}, NULL), PF_ESTATE);
    ck_assert_int_eq(pf_graph_invalidate(g), PF_OK);
    ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = nop}, NULL), PF_OK);
    ck_assert_int_eq(pf_runtime_set_executor(rt, (pf_executor)77), PF_EINVAL);
    pf_executor e;
    ck_assert_int_eq(pf_executor_parse("omptasks", &e), PF_OK);
    ck_assert_int_eq(e, PF_EXEC_OMPTASKS);
    ck_assert_int_eq(pf_executor_parse("cilk", &e), PF_EINVAL);
    ck_assert_int_eq(pf_runtime_trace_write(rt, "/tmp/never.json"), PF_ESTATE);
    pf_runtime_destroy(rt);
    pf_graph_destroy(g);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("runtime");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, random_dags_match_seq);
    tcase_add_test(tc, replays_equal_fresh_compilations);
    tcase_add_test(tc, cross_worker_reader_sees_writer);
    tcase_add_test(tc, reducer_combines_in_recording_order);
    tcase_add_test(tc, invalid_arguments_return_errors);
    suite_add_tcase(s, tc);
    return s;
}
