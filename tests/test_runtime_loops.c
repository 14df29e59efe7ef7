/* Dynamic-loop tests (Hermann et al. 2009, §3.3): random nested loops with both condition kinds and breaks leave the
 * seq executor's bits for every executor and worker count; zero-iteration loops, breaks at the first
 * iteration and at the bound; nesting; a task-graph conjugate gradient against a dense direct solve;
 * independent loops never wait for each other. */
#include "check_main.h"
#include "random_body.h"
#include "cg_tasks.h"

#include "physflow/runtime.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* Executor "index" PF_EXEC_COUNT means static with the METIS partitioner. */
static pf_runtime *make_rt(int e, int workers)
{
    pf_runtime_def def = pf_runtime_default_def();
    def.workers = workers;
    def.executor = e == PF_EXEC_COUNT ? PF_EXEC_STATIC : (pf_executor)e;
    def.partitioner = e == PF_EXEC_COUNT ? PF_PART_METIS : PF_PART_OWNER;
    def.quiet = 1;
    pf_runtime *rt = NULL;
    ck_assert_int_eq(pf_runtime_create(&def, &rt), PF_OK);
    return rt;
}

/* ---------- random programs with loops ---------- */

static void set_zero(const pf_task_ctx *ctx)
{
    memset(ctx->data[0], 0, VEC * sizeof(double));
}

static void tick(const pf_task_ctx *ctx)
{
    ((double *)ctx->data[0])[0] += 1;
}

static int below(const void *datum, const void *args)
{
    return ((const double *)datum)[0] < *(const double *)args;
}

static int above(const void *datum, const void *args)
{
    return ((const double *)datum)[0] > *(const double *)args;
}

typedef struct program {
    pf_graph *g;
    double *data, *init;
    size_t ndata, nwork; /* work data come first; loop counters after */
    size_t next_counter;
    rng r;
    uint32_t next_id;
} program;

static void add_random_task(program *p)
{
    static const pf_access_mode modes[] = {PF_READ, PF_READ, PF_WRITE, PF_READWRITE, PF_CUMUL, PF_CUMUL};
    body_args a = {.id = p->next_id++, .nacc = 1 + rng_u32(&p->r) % 3};
    pf_access acc[8];
    for (uint32_t k = 0; k < a.nacc; k++) {
        uint32_t d;
        int dup;
        do {
            d = rng_u32(&p->r) % (uint32_t)p->nwork;
            dup = 0;
            for (uint32_t j = 0; j < k; j++) dup |= acc[j].data.index == d;
        } while (dup);
        acc[k] = (pf_access){{d}, modes[rng_u32(&p->r) % 6]};
        a.modes[k] = (uint8_t)acc[k].mode;
    }
    pf_task_def def = {.fn = random_body, .name = "random", .args = &a, .args_size = sizeof a, .accesses = acc,
                       .naccesses = a.nacc};
    ck_assert_int_eq(pf_graph_task(p->g, &def, NULL), PF_OK);
}

static void gen_body(program *p, int depth, int items);

static void add_random_loop(program *p, int depth)
{
    pf_loop_def def = {.max_iterations = 1 + rng_u32(&p->r) % 5};
    int kind = rng_u32(&p->r) % 2;
    pf_data_id c = {p->next_counter++};
    double limit = rng_u32(&p->r) % 4; /* 0: the loop runs zero times */
    if (kind == 1) {
        pf_access a = {c, PF_WRITE};
        ck_assert_int_eq(pf_graph_task(p->g, &(pf_task_def){.fn = set_zero, .name = "reset", .accesses = &a,
                                                             .naccesses = 1},
                                       NULL),
                         PF_OK);
        def.kind = PF_LOOP_WHILE;
        def.cond_data = c;
        def.cond = below;
        def.cond_args = &limit;
        def.cond_args_size = sizeof limit;
    } else {
        def.kind = PF_LOOP_COUNT;
        def.count = rng_u32(&p->r) % 4;
    }
    ck_assert_int_eq(pf_graph_loop_begin(p->g, &def, NULL), PF_OK);
    int tick_at = (int)(rng_u32(&p->r) % 4);
    int items = 2 + (int)(rng_u32(&p->r) % 5);
    for (int i = 0; i < items; i++) {
        if (kind == 1 && i == tick_at % items) {
            pf_access a = {c, PF_READWRITE};
            ck_assert_int_eq(
                pf_graph_task(p->g, &(pf_task_def){.fn = tick, .name = "tick", .accesses = &a, .naccesses = 1}, NULL),
                PF_OK);
        }
        if (rng_u32(&p->r) % 6 == 0) { /* a conditional break on a work datum's value */
            double th = 300 + rng_u32(&p->r) % 600;
            ck_assert_int_eq(pf_graph_loop_break(p->g, (pf_data_id){rng_u32(&p->r) % (uint32_t)p->nwork},
                                                 above, &th, sizeof th),
                             PF_OK);
        }
        gen_body(p, depth + 1, 1);
    }
    ck_assert_int_eq(pf_graph_loop_end(p->g), PF_OK);
}

static void gen_body(program *p, int depth, int items)
{
    for (int i = 0; i < items; i++) {
        if (depth < 2 && rng_u32(&p->r) % 5 == 0)
            add_random_loop(p, depth);
        else
            add_random_task(p);
    }
}

static void program_build(program *p, uint64_t seed, size_t nwork, size_t nobjects, int items)
{
    memset(p, 0, sizeof *p);
    p->r.s = seed;
    p->nwork = nwork;
    p->ndata = nwork + 200; /* room for loop counters */
    p->next_counter = nwork;
    p->data = calloc(p->ndata * VEC, sizeof(double));
    p->init = calloc(p->ndata * VEC, sizeof(double));
    for (size_t i = 0; i < nwork * VEC; i++) p->init[i] = (rng_u32(&p->r) % 1000) / 7.0;
    ck_assert_int_eq(pf_graph_create(&p->g), PF_OK);
    pf_reducer sum = pf_reducer_sum_f64();
    for (size_t d = 0; d < p->ndata; d++) {
        pf_data_id id;
        ck_assert_int_eq(pf_graph_data(p->g, &p->data[d * VEC], VEC * sizeof(double),
                                       (uint32_t)(rng_u32(&p->r) % nobjects), &sum, &id),
                         PF_OK);
    }
    gen_body(p, 0, items);
    ck_assert_uint_lt(p->next_counter, p->ndata);
}

static const char *config_name(int e)
{
    return e == PF_EXEC_COUNT ? "static+metis" : pf_executor_name((pf_executor)e);
}

static double *program_run(program *p, int e, int workers, int runs)
{
    pf_runtime *rt = make_rt(e, workers);
    memcpy(p->data, p->init, p->ndata * VEC * sizeof(double));
    for (int k = 0; k < runs; k++) ck_assert_int_eq(pf_graph_run(p->g, rt), PF_OK);
    pf_runtime_destroy(rt);
    double *out = malloc(p->ndata * VEC * sizeof(double));
    memcpy(out, p->data, p->ndata * VEC * sizeof(double));
    return out;
}

START_TEST(random_loop_programs_match_seq)
{
    static const int worker_counts[] = {1, 2, 3, 8};
    int loops_seen = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        program p;
        program_build(&p, seed * 104729, 24, 4 + seed % 5, 40);
        pf_graph_stats st;
        double *ref = program_run(&p, PF_EXEC_SEQ, 1, 3);
        pf_graph_get_stats(p.g, &st);
        loops_seen += (int)st.loops;
        for (int e = PF_EXEC_STATIC; e <= PF_EXEC_COUNT; e++)
            for (size_t w = 0; w < 4; w++) {
                double *got = program_run(&p, e, worker_counts[w], 3);
                ck_assert_msg(memcmp(ref, got, p.ndata * VEC * sizeof(double)) == 0,
                              "seed %llu: %s with %d workers differs from seq", (unsigned long long)seed,
                              config_name(e), worker_counts[w]);
                free(got);
            }
        free(ref);
        pf_graph_destroy(p.g);
        free(p.data);
        free(p.init);
    }
    ck_assert_int_gt(loops_seen, 10);
}
END_TEST

START_TEST(appended_loop_programs_match_seq)
{
    /* a program recorded in four pieces, run after each piece: the later pieces (with their loops) are
     * analysed and compiled onto the kept programs; the result must equal seq on the whole program */
    static const int worker_counts[] = {2, 3};
    for (uint64_t seed = 1; seed <= 6; seed++)
        for (int e = PF_EXEC_STATIC; e <= PF_EXEC_COUNT; e++)
            for (int w = 0; w < 2; w++) {
                program p;
                program_build(&p, seed * 7727, 24, 5, 0);
                pf_runtime *rt = make_rt(e, worker_counts[w]);
                for (int piece = 0; piece < 4; piece++) {
                    if (piece > 0) ck_assert_int_eq(pf_graph_invalidate(p.g), PF_OK);
                    gen_body(&p, 0, 12);
                    memcpy(p.data, p.init, p.ndata * VEC * sizeof(double));
                    ck_assert_int_eq(pf_graph_run(p.g, rt), PF_OK);
                }
                pf_graph_stats st;
                pf_graph_get_stats(p.g, &st);
                ck_assert_uint_eq(st.compiles, 4);
                double *got = malloc(p.ndata * VEC * sizeof(double));
                memcpy(got, p.data, p.ndata * VEC * sizeof(double));
                pf_runtime_destroy(rt);
                double *ref = program_run(&p, PF_EXEC_SEQ, 1, 1);
                ck_assert_msg(memcmp(ref, got, p.ndata * VEC * sizeof(double)) == 0,
                              "seed %llu: %s with %d workers after appends differs from seq", (unsigned long long)seed,
                              config_name(e), worker_counts[w]);
                free(ref);
                free(got);
                pf_graph_destroy(p.g);
                free(p.data);
                free(p.init);
            }
}
END_TEST

/* ---------- edge cases: zero iterations, break at the first iteration, the bound, nesting ---------- */

static void add_one(const pf_task_ctx *ctx)
{
    *(double *)ctx->data[0] += 1;
}

typedef struct small {
    pf_graph *g;
    double counter, flag, inner_count;
    pf_data_id dc, df, di;
} small;

static void small_init(small *s)
{
    memset(s, 0, sizeof *s);
    ck_assert_int_eq(pf_graph_create(&s->g), PF_OK);
    ck_assert_int_eq(pf_graph_data(s->g, &s->counter, sizeof(double), 0, NULL, &s->dc), PF_OK);
    ck_assert_int_eq(pf_graph_data(s->g, &s->flag, sizeof(double), 1, NULL, &s->df), PF_OK);
    ck_assert_int_eq(pf_graph_data(s->g, &s->inner_count, sizeof(double), 2, NULL, &s->di), PF_OK);
}

static void small_add(small *s, pf_data_id d)
{
    pf_access a = {d, PF_READWRITE};
    ck_assert_int_eq(pf_graph_task(s->g, &(pf_task_def){.fn = add_one, .accesses = &a, .naccesses = 1}, NULL),
                     PF_OK);
}

/* Runs the graph once with every executor at 1, 2 and 3 workers, from counter = flag = 0, checking the
 * counters and the loop's iteration count each time. */
static void small_check(small *s, pf_loop_id loop, double counter, double inner, uint32_t iterations)
{
    static const int wc[] = {1, 2, 3};
    for (int e = 0; e <= PF_EXEC_COUNT; e++)
        for (int w = 0; w < 3; w++) {
            pf_runtime *rt = make_rt(e, wc[w]);
            s->counter = s->flag = s->inner_count = 0;
            ck_assert_int_eq(pf_graph_run(s->g, rt), PF_OK);
            ck_assert_msg(s->counter == counter && s->inner_count == inner, "%s/%d: counter %g inner %g",
                          config_name(e), wc[w], s->counter, s->inner_count);
            ck_assert_uint_eq(pf_graph_loop_iterations(s->g, loop), iterations);
            pf_runtime_destroy(rt);
        }
}

START_TEST(while_false_at_begin_runs_zero_times)
{
    small s;
    small_init(&s);
    double limit = 0; /* counter < 0 is false from the start */
    pf_loop_id l;
    ck_assert_int_eq(pf_graph_loop_begin(s.g, &(pf_loop_def){.kind = PF_LOOP_WHILE, .cond_data = s.dc, .cond = below,
                                                             .cond_args = &limit, .cond_args_size = sizeof limit,
                                                             .max_iterations = 10},
                                         &l),
                     PF_OK);
    small_add(&s, s.dc);
    ck_assert_int_eq(pf_graph_loop_end(s.g), PF_OK);
    small_add(&s, s.di); /* after the loop */
    small_check(&s, l, 0, 1, 0);
    pf_graph_destroy(s.g);
}
END_TEST

START_TEST(break_at_first_iteration)
{
    small s;
    small_init(&s);
    double zero = 0;
    pf_loop_id l;
    ck_assert_int_eq(pf_graph_loop_begin(s.g, &(pf_loop_def){.kind = PF_LOOP_COUNT, .count = 50, .max_iterations = 50},
                                         &l),
                     PF_OK);
    small_add(&s, s.dc);
    small_add(&s, s.df);
    ck_assert_int_eq(pf_graph_loop_break(s.g, s.df, above, &zero, sizeof zero), PF_OK); /* flag > 0: at once */
    small_add(&s, s.di);                                                                  /* skipped */
    ck_assert_int_eq(pf_graph_loop_end(s.g), PF_OK);
    small_check(&s, l, 1, 0, 1);
    pf_graph_destroy(s.g);
}
END_TEST

START_TEST(loops_stop_at_their_bound)
{
    small s;
    small_init(&s);
    double big = 1e9;
    pf_loop_id l;
    /* a while loop whose condition never fails: max_iterations stops it */
    ck_assert_int_eq(pf_graph_loop_begin(s.g, &(pf_loop_def){.kind = PF_LOOP_WHILE, .cond_data = s.dc, .cond = below,
                                                             .cond_args = &big, .cond_args_size = sizeof big,
                                                             .max_iterations = 7},
                                         &l),
                     PF_OK);
    small_add(&s, s.dc);
    ck_assert_int_eq(pf_graph_loop_end(s.g), PF_OK);
    pf_loop_id l2;
    /* a counted loop asking for more than its bound */
    ck_assert_int_eq(pf_graph_loop_begin(s.g, &(pf_loop_def){.kind = PF_LOOP_COUNT, .count = 100, .max_iterations = 3},
                                         &l2),
                     PF_OK);
    small_add(&s, s.di);
    ck_assert_int_eq(pf_graph_loop_end(s.g), PF_OK);
    small_check(&s, l, 7, 3, 7);
    ck_assert_uint_eq(pf_graph_loop_iterations(s.g, l2), 3);
    pf_graph_destroy(s.g);
}
END_TEST

START_TEST(nested_loops)
{
    small s;
    small_init(&s);
    pf_loop_id outer, inner;
    double five = 5; /* the outer loop runs while counter < 5 */
    pf_access reset = {s.dc, PF_WRITE};
    ck_assert_int_eq(pf_graph_task(s.g, &(pf_task_def){.fn = add_one, .accesses = &reset, .naccesses = 1}, NULL),
                     PF_OK); /* counter = 0 + 1 via WRITE of a fresh value: keeps the test simple */
    ck_assert_int_eq(pf_graph_loop_begin(s.g, &(pf_loop_def){.kind = PF_LOOP_WHILE, .cond_data = s.dc, .cond = below,
                                                             .cond_args = &five, .cond_args_size = sizeof five,
                                                             .max_iterations = 100},
                                         &outer),
                     PF_OK);
    ck_assert_int_eq(pf_graph_loop_begin(s.g, &(pf_loop_def){.kind = PF_LOOP_COUNT, .count = 3, .max_iterations = 3},
                                         &inner),
                     PF_OK);
    small_add(&s, s.di);
    ck_assert_int_eq(pf_graph_loop_end(s.g), PF_OK);
    small_add(&s, s.dc);
    ck_assert_int_eq(pf_graph_loop_end(s.g), PF_OK);
    /* counter: 1, then +1 per outer iteration until 5: 4 outer iterations, 12 inner ones */
    small_check(&s, outer, 5, 12, 4);
    ck_assert_uint_eq(pf_graph_loop_iterations(s.g, inner), 3);
    pf_graph_destroy(s.g);
}
END_TEST

/* ---------- conjugate gradient as tasks ---------- */

START_TEST(cg_matches_seq_and_direct_solve)
{
    enum { BLOCKS = 6, BN = 16, N = BLOCKS * BN };
    cg_set *ref = cg_set_create(1, BLOCKS, BN, 17, 1e-10, 500, 0);
    ck_assert_ptr_nonnull(ref);
    double *direct = cg_set_dense_solve(ref, 0);
    pf_runtime *rt = make_rt(PF_EXEC_SEQ, 1);
    ck_assert_int_eq(cg_set_run(ref, rt), PF_OK);
    pf_runtime_destroy(rt);
    uint32_t iters = cg_set_iterations(ref, 0);
    ck_assert_uint_gt(iters, 5);
    ck_assert_uint_lt(iters, 500); /* the break on the residual fired before the bound */
    double xref[N], x[N];
    cg_set_solution(ref, 0, xref);
    double err = 0, norm = 0;
    for (int i = 0; i < N; i++) {
        err = fmax(err, fabs(xref[i] - direct[i]));
        norm = fmax(norm, fabs(direct[i]));
    }
    ck_assert_msg(err <= 1e-6 * norm, "CG differs from the direct solve by %g (|x| %g)", err, norm);

    static const int wc[] = {1, 2, 3, 8};
    for (int e = PF_EXEC_STATIC; e <= PF_EXEC_COUNT; e++)
        for (int w = 0; w < 4; w++) {
            cg_set *p = cg_set_create(1, BLOCKS, BN, 17, 1e-10, 500, 0);
            rt = make_rt(e, wc[w]);
            ck_assert_int_eq(cg_set_run(p, rt), PF_OK);
            ck_assert_int_eq(cg_set_run(p, rt), PF_OK); /* a replay solves again from scratch */
            cg_set_solution(p, 0, x);
            ck_assert_msg(memcmp(x, xref, sizeof x) == 0, "%s/%d: CG solution differs from seq", config_name(e),
                          wc[w]);
            ck_assert_uint_eq(cg_set_iterations(p, 0), iters);
            pf_runtime_destroy(rt);
            cg_set_destroy(p);
        }
    free(direct);
    cg_set_destroy(ref);
}
END_TEST

START_TEST(independent_loops_never_wait_for_each_other)
{
    /* four solves of different conditioning, each its own object and loop: no wait crosses between them */
    cg_set *b = cg_set_create(4, 1, 40, 5, 1e-10, 300, 1);
    static const int wc[] = {2, 4};
    uint32_t first[4];
    for (int w = 0; w < 2; w++) {
        pf_runtime *rt = make_rt(PF_EXEC_STATIC, wc[w]);
        ck_assert_int_eq(cg_set_run(b, rt), PF_OK);
        pf_graph_stats st;
        pf_graph_get_stats(cg_set_graph(b), &st);
        ck_assert_uint_eq(st.waits, 0);
        for (int s = 0; s < 4; s++) {
            if (w == 0) first[s] = cg_set_iterations(b, s);
            ck_assert_uint_eq(cg_set_iterations(b, s), first[s]);
            ck_assert_uint_gt(first[s], 3);
        }
        pf_runtime_destroy(rt);
    }
    ck_assert_uint_ne(first[0], first[3]); /* conditioning varies, so do iteration counts */
    cg_set_destroy(b);
}
END_TEST

static void read_shared(const pf_task_ctx *ctx)
{
    ((double *)ctx->data[1])[0] += ((const double *)ctx->data[0])[0];
}

/* Loops that only read a datum leave its writers as they were: 60 loops in a row (each with two breaks) reading
 * one shared datum give the task that writes it afterwards one pred per reader and writer, not a list that
 * multiplies at every loop. Oracle: the edge count, linear in the loops, and the result of seq. */
START_TEST(loops_reading_a_datum_keep_its_lists_small)
{
    enum { LOOPS = 60 };
    static double shared[1] = {1}, acc[LOOPS], cond[LOOPS];
    pf_graph *g;
    ck_assert_int_eq(pf_graph_create(&g), PF_OK);
    pf_data_id ds, da[LOOPS], dc[LOOPS];
    ck_assert_int_eq(pf_graph_data(g, shared, sizeof shared, 0, NULL, &ds), PF_OK);
    pf_access first = {ds, PF_READWRITE}; /* a writer before the loops: its list is what they must not copy */
    ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = tick, .accesses = &first, .naccesses = 1}, NULL), PF_OK);
    for (int l = 0; l < LOOPS; l++) {
        acc[l] = cond[l] = 0;
        ck_assert_int_eq(pf_graph_data(g, &acc[l], sizeof acc[l], (uint32_t)l + 1, NULL, &da[l]), PF_OK);
        ck_assert_int_eq(pf_graph_data(g, &cond[l], sizeof cond[l], (uint32_t)l + 1, NULL, &dc[l]), PF_OK);
        ck_assert_int_eq(pf_graph_loop_begin(g, &(pf_loop_def){.kind = PF_LOOP_COUNT, .count = 3, .max_iterations = 3},
                                             NULL),
                         PF_OK);
        double big = 1e9;
        ck_assert_int_eq(pf_graph_loop_break(g, dc[l], above, &big, sizeof big), PF_OK);
        pf_access a[] = {{ds, PF_READ}, {da[l], PF_READWRITE}};
        ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = read_shared, .accesses = a, .naccesses = 2}, NULL),
                         PF_OK);
        ck_assert_int_eq(pf_graph_loop_break(g, dc[l], above, &big, sizeof big), PF_OK);
        ck_assert_int_eq(pf_graph_loop_end(g), PF_OK);
    }
    pf_access w = {ds, PF_READWRITE};
    ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = tick, .accesses = &w, .naccesses = 1}, NULL), PF_OK);
    pf_runtime *rt = make_rt(PF_EXEC_STATIC, 2);
    ck_assert_int_eq(pf_graph_run(g, rt), PF_OK);
    pf_graph_stats st;
    pf_graph_get_stats(g, &st);
    ck_assert_msg(st.edges < 20 * LOOPS, "%u edges for %d loops", st.edges, LOOPS);
    for (int l = 0; l < LOOPS; l++) ck_assert(acc[l] == 6.0);
    ck_assert(shared[0] == 3.0);
    pf_runtime_destroy(rt);
    pf_graph_destroy(g);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("runtime_loops");
    TCase *tc = tcase_create("loops");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, random_loop_programs_match_seq);
    tcase_add_test(tc, appended_loop_programs_match_seq);
    tcase_add_test(tc, while_false_at_begin_runs_zero_times);
    tcase_add_test(tc, break_at_first_iteration);
    tcase_add_test(tc, loops_stop_at_their_bound);
    tcase_add_test(tc, nested_loops);
    tcase_add_test(tc, cg_matches_seq_and_direct_solve);
    tcase_add_test(tc, independent_loops_never_wait_for_each_other);
    tcase_add_test(tc, loops_reading_a_datum_keep_its_lists_small);
    suite_add_tcase(s, tc);
    return s;
}
