/* Graph updates and partitioners (Hermann et al. 2009, §3.2): across a random sequence of additions and removals no
 * existing task changes worker, and results stay those of the seq executor; METIS and rebalancing by object
 * beat plain owner-compute on an unbalanced graph; repartitioning never changes results, lowers a measured
 * imbalance, and relabels a partition equal to the old one up to renaming back onto it. */
#include "check_main.h"

#include "physflow/runtime.h"
#include "base/clock.h"
#include "runtime/graph.h"
#include "runtime/numa.h"
#include "rng.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VEC 4

typedef struct body_args {
    uint32_t id;
    uint32_t nacc;
    uint8_t modes[4];
} body_args;

static void body(const pf_task_ctx *ctx)
{
    const body_args *a = ctx->args;
    double acc = 1.0 + a->id * 0.37;
    for (uint32_t k = 0; k < a->nacc; k++)
        if (a->modes[k] == PF_READ || a->modes[k] == PF_READWRITE)
            for (int j = 0; j < VEC; j++) acc = acc * 0.999 + ((const double *)ctx->data[k])[j];
    for (uint32_t k = 0; k < a->nacc; k++) {
        double *d = ctx->data[k];
        for (int j = 0; j < VEC; j++) {
            if (a->modes[k] == PF_WRITE) d[j] = acc + j;
            if (a->modes[k] == PF_READWRITE) d[j] = d[j] * 0.5 + acc * 1e-3;
            if (a->modes[k] == PF_CUMUL) d[j] += acc * 1e-3;
        }
    }
}

enum { OBJECTS = 60, PER_OBJECT = 2, NDATA = OBJECTS * PER_OBJECT };

typedef struct world {
    pf_graph *g;
    double data[NDATA * VEC], init[NDATA * VEC];
    uint32_t next_id;
    rng seed;
} world;

/* A task over 1-3 data of up to two objects below `objects`. */
static pf_task_id add_task(world *w, uint32_t objects)
{
    static const pf_access_mode modes[] = {PF_READ, PF_WRITE, PF_READWRITE, PF_CUMUL};
    body_args a = {.id = w->next_id++, .nacc = 1 + rng_u32(&w->seed) % 3};
    pf_access acc[4];
    uint32_t obj[2] = {rng_u32(&w->seed) % objects, rng_u32(&w->seed) % objects};
    for (uint32_t k = 0; k < a.nacc; k++) {
        uint32_t d;
        int dup;
        do {
            d = obj[rng_u32(&w->seed) % 2] * PER_OBJECT + rng_u32(&w->seed) % PER_OBJECT;
            dup = 0;
            for (uint32_t j = 0; j < k; j++) dup |= acc[j].data.index == d;
        } while (dup && k < 2);
        if (dup) break;
        acc[k] = (pf_access){{d}, modes[rng_u32(&w->seed) % 4]};
        a.modes[k] = (uint8_t)acc[k].mode;
        a.nacc = k + 1;
    }
    pf_task_id id;
    ck_assert_int_eq(pf_graph_task(w->g, &(pf_task_def){.fn = body, .name = "t", .args = &a, .args_size = sizeof a,
                                                         .accesses = acc, .naccesses = a.nacc},
                                   &id),
                     PF_OK);
    return id;
}

static void world_init(world *w, uint64_t seed)
{
    memset(w, 0, sizeof *w);
    w->seed = (rng){seed};
    for (int i = 0; i < NDATA * VEC; i++) w->init[i] = rng_u32(&w->seed) % 100 / 3.0;
    ck_assert_int_eq(pf_graph_create(&w->g), PF_OK);
    pf_reducer sum = pf_reducer_sum_f64();
    for (uint32_t d = 0; d < NDATA; d++) {
        pf_data_id id;
        ck_assert_int_eq(pf_graph_data(w->g, &w->data[d * VEC], VEC * sizeof(double), d / PER_OBJECT, &sum, &id),
                         PF_OK);
    }
}

static void run_from_init(world *w, pf_runtime *rt, double *out)
{
    memcpy(w->data, w->init, sizeof w->data);
    ck_assert_int_eq(pf_graph_run(w->g, rt), PF_OK);
    memcpy(out, w->data, sizeof w->data);
}

/* A runtime that never repartitions: the update path alone (the repartitioning tests set their policy). */
static pf_runtime *make_rt_policy(pf_executor e, pf_partitioner p, int workers, pf_repartition policy)
{
    pf_runtime_def def = pf_runtime_default_def();
    def.workers = workers;
    def.executor = e;
    def.partitioner = p;
    def.quiet = 1;
    def.repartition = policy;
    pf_runtime *rt;
    ck_assert_int_eq(pf_runtime_create(&def, &rt), PF_OK);
    return rt;
}

static pf_runtime *make_rt(pf_executor e, pf_partitioner p, int workers)
{
    return make_rt_policy(e, p, workers, PF_REPART_NEVER);
}

START_TEST(updates_never_move_existing_tasks)
{
    enum { MAXT = 2000 };
    static const int wc[] = {2, 3};
    for (int part = 0; part < PF_PART_COUNT; part++)
        for (int wi = 0; wi < 2; wi++) {
            world *w = malloc(sizeof *w);
            world_init(w, 99 + (uint64_t)part * 7 + (uint64_t)wi);
            pf_runtime *rt = make_rt(PF_EXEC_STATIC, (pf_partitioner)part, wc[wi]);
            pf_runtime *seq = make_rt(PF_EXEC_SEQ, PF_PART_OWNER, 1);
            static int live[MAXT], before[MAXT];
            uint32_t ntasks = 0;
            for (int k = 0; k < 150; k++) live[add_task(w, 40).index] = 1, ntasks++;
            double got[NDATA * VEC], ref[NDATA * VEC];
            run_from_init(w, rt, got);
            for (int step = 0; step < 25; step++) {
                for (uint32_t t = 0; t < ntasks; t++)
                    before[t] = live[t] ? pf_graph_task_worker(w->g, (pf_task_id){t}) : -1;
                ck_assert_int_eq(pf_graph_invalidate(w->g), PF_OK);
                /* odd steps only append, which takes the incremental path (analysis and compilation of the
                 * new tasks alone); even steps also remove, which re-analyses the whole graph */
                uint32_t removed = step % 2 ? 0 : 1 + rng_u32(&w->seed) % 8, added = rng_u32(&w->seed) % 20;
                for (uint32_t r = 0, done = 0; r < 50 && done < removed; r++) {
                    uint32_t t = rng_u32(&w->seed) % ntasks;
                    if (!live[t]) continue;
                    ck_assert_int_eq(pf_graph_task_remove(w->g, (pf_task_id){t}), PF_OK);
                    live[t] = 0;
                    done++;
                    if (done == removed) break;
                }
                uint32_t really_removed = 0;
                for (uint32_t t = 0; t < ntasks; t++) really_removed += before[t] >= 0 && !live[t];
                /* new tasks reach objects 40..59 too, which had no task yet */
                for (uint32_t a = 0; a < added; a++) live[add_task(w, OBJECTS).index] = 1;
                ntasks += added;
                run_from_init(w, rt, got);
                pf_graph_update up;
                ck_assert_int_eq(pf_graph_get_last_update(w->g, &up), PF_OK);
                ck_assert_int_eq(up.full, 0);
                ck_assert_uint_eq(up.moved, 0);
                ck_assert_uint_eq(up.added, added);
                ck_assert_uint_eq(up.removed, really_removed);
                for (uint32_t t = 0; t < ntasks; t++) {
                    if (!live[t]) {
                        ck_assert_int_eq(pf_graph_task_worker(w->g, (pf_task_id){t}), -1);
                        continue;
                    }
                    if (t < ntasks - added && before[t] >= 0)
                        ck_assert_msg(pf_graph_task_worker(w->g, (pf_task_id){t}) == before[t],
                                      "%s/%d step %d: task %u moved from worker %d to %d",
                                      pf_partitioner_name((pf_partitioner)part), wc[wi], step, t, before[t],
                                      pf_graph_task_worker(w->g, (pf_task_id){t}));
                }
                run_from_init(w, seq, ref);
                ck_assert_msg(memcmp(got, ref, sizeof got) == 0, "step %d: static differs from seq", step);
            }
            pf_runtime_destroy(rt);
            pf_runtime_destroy(seq);
            pf_graph_destroy(w->g);
            free(w);
        }
}
END_TEST

static void heavy(const pf_task_ctx *ctx)
{
    *(double *)ctx->data[0] += 1;
}

START_TEST(metis_and_rebalancing_beat_owner_compute_when_unbalanced)
{
    /* objects 0 and 1 carry 24 tasks each, objects 2..7 three each, all of equal cost: owner-compute cuts the
     * object sequence into [0] and [1..7] = 24 vs 42 (METIS needs 16 tasks per worker to coarsen) */
    static double cells[80];
    pf_graph *g;
    ck_assert_int_eq(pf_graph_create(&g), PF_OK);
    int c = 0;
    for (uint32_t obj = 0; obj < 8; obj++) {
        int tasks = obj < 2 ? 24 : 3;
        for (int k = 0; k < tasks; k++, c++) {
            pf_data_id d;
            ck_assert_int_eq(pf_graph_data(g, &cells[c], sizeof(double), obj, NULL, &d), PF_OK);
            pf_access a = {d, PF_READWRITE};
            ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = heavy, .accesses = &a, .naccesses = 1, .cost_ns = 1000},
                                           NULL),
                             PF_OK);
        }
    }
    double owner, metis, rebalanced;
    /* both estimates from the recorded costs, before any run measures them */
    pf_runtime *rt = make_rt(PF_EXEC_STATIC, PF_PART_METIS, 2);
    ck_assert_int_eq(pf_graph_get_estimated_makespan(g, rt, &metis), PF_OK);
    pf_runtime_destroy(rt);
    rt = make_rt(PF_EXEC_STATIC, PF_PART_OWNER, 2);
    ck_assert_int_eq(pf_graph_get_estimated_makespan(g, rt, &owner), PF_OK);
    ck_assert(owner == 42000.0);
    ck_assert_msg(metis < owner, "metis %g, owner-compute %g", metis, owner);
    uint32_t objects = 0, tasks = 0;
    ck_assert_int_eq(pf_graph_rebalance(g, rt, &objects, &tasks), PF_OK);
    ck_assert_uint_gt(objects, 0);
    ck_assert_int_eq(pf_graph_get_estimated_makespan(g, rt, &rebalanced), PF_OK);
    ck_assert_msg(rebalanced < owner, "rebalanced %g, owner-compute %g", rebalanced, owner);
    ck_assert(rebalanced == 33000.0); /* an even split is reachable: 24 + 3 x 3 on each side */
    ck_assert_int_eq(pf_graph_run(g, rt), PF_OK);
    pf_graph_update up;
    pf_graph_get_last_update(g, &up);
    ck_assert_uint_eq(up.moved, tasks);
    pf_runtime_destroy(rt);

    pf_graph_destroy(g);
}
END_TEST

/* One object outweighing an even share (METIS alone empties parts around such a vertex): at 16 workers with 40
 * objects, the heavy object gets a worker of its own, every worker gets work, and the estimated makespan is the
 * heavy object's cost, the lower bound. */
START_TEST(metis_gives_a_heavy_object_its_own_worker)
{
    enum { NOBJ = 40, WORKERS = 16 };
    static double cells[NOBJ];
    pf_graph *g;
    ck_assert_int_eq(pf_graph_create(&g), PF_OK);
    for (uint32_t obj = 0; obj < NOBJ; obj++) {
        pf_data_id d;
        ck_assert_int_eq(pf_graph_data(g, &cells[obj], sizeof(double), obj, NULL, &d), PF_OK);
        pf_access a = {d, PF_READWRITE};
        double cost = obj == 5 ? 200000 : 1000 + 10 * obj;
        ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = heavy, .accesses = &a, .naccesses = 1, .cost_ns = cost},
                                       NULL),
                         PF_OK);
    }
    pf_runtime *rt = make_rt(PF_EXEC_STATIC, PF_PART_METIS, WORKERS);
    double makespan;
    ck_assert_int_eq(pf_graph_get_estimated_makespan(g, rt, &makespan), PF_OK);
    ck_assert_int_eq(pf_graph_run(g, rt), PF_OK);
    int tasks_on[WORKERS] = {0};
    for (uint32_t t = 0; t < NOBJ; t++) {
        int wk = pf_graph_task_worker(g, (pf_task_id){t}); /* tasks are numbered in recording order */
        ck_assert(wk >= 0 && wk < WORKERS);
        tasks_on[wk]++;
    }
    for (int wk = 0; wk < WORKERS; wk++) ck_assert_msg(tasks_on[wk] > 0, "worker %d got no task", wk);
    ck_assert_int_eq(tasks_on[pf_graph_task_worker(g, (pf_task_id){5})], 1);
    ck_assert_msg(makespan == 200000.0, "makespan %g", makespan);
    pf_runtime_destroy(rt);
    pf_graph_destroy(g);
}
END_TEST

/* Repartitions (forced every third step, and the policies' own) between random updates: the data equal seq's
 * after every run, for owner-compute and METIS at 1, 2, 3 and 8 workers. */
START_TEST(repartitions_keep_results)
{
    static const int wc[] = {1, 2, 3, 8};
    uint32_t repartitions = 0;
    for (int part = 0; part < PF_PART_COUNT; part++)
        for (int pol = 0; pol < PF_REPART_COUNT; pol++)
            for (int wi = 0; wi < 4; wi++) {
                world *w = malloc(sizeof *w);
                world_init(w, 7 + (uint64_t)part * 31 + (uint64_t)wi * 5 + (uint64_t)pol);
                pf_runtime *rt = make_rt_policy(PF_EXEC_STATIC, (pf_partitioner)part, wc[wi], (pf_repartition)pol);
                pf_runtime *seq = make_rt(PF_EXEC_SEQ, PF_PART_OWNER, 1);
                for (int k = 0; k < 120; k++) add_task(w, OBJECTS);
                double got[NDATA * VEC], ref[NDATA * VEC];
                for (int step = 0; step < 12; step++) {
                    if (step % 3 == 2) ck_assert_int_eq(pf_graph_repartition(w->g), PF_OK);
                    if (step % 4 == 3) { /* a structural update */
                        ck_assert_int_eq(pf_graph_invalidate(w->g), PF_OK);
                        for (int a = 0; a < 6; a++) add_task(w, OBJECTS);
                    }
                    run_from_init(w, rt, got);
                    run_from_init(w, seq, ref);
                    ck_assert_msg(memcmp(got, ref, sizeof got) == 0, "%s/%s/%d step %d: static differs from seq",
                                  pf_partitioner_name((pf_partitioner)part), pf_repartition_name((pf_repartition)pol),
                                  wc[wi], step);
                }
                pf_run_stats st;
                ck_assert_int_eq(pf_graph_get_run_stats(w->g, PF_STATS_TOTAL, &st, NULL, 0, NULL), PF_OK);
                ck_assert_uint_eq(st.runs, 24); /* the graph's runs on both runtimes */
                if (wc[wi] == 1) ck_assert_uint_eq(st.repartitions, 0);
                repartitions += st.repartitions;
                pf_runtime_destroy(rt);
                pf_runtime_destroy(seq);
                pf_graph_destroy(w->g);
                free(w);
            }
    ck_assert_uint_gt(repartitions, 0); /* the forced ones at least moved something somewhere */
}
END_TEST

typedef struct spin_args {
    uint64_t ns;
} spin_args;

/* Busy for args->ns, then a write to its datum (so the task has an effect). */
static void spin(const pf_task_ctx *ctx)
{
    const spin_args *a = ctx->args;
    uint64_t t0 = pf_now_ns();
    while (pf_now_ns() - t0 < a->ns) {
    }
    *(double *)ctx->data[0] += 1;
}

/* Eight independent objects whose estimates are equal but whose tasks take 400 µs (objects 0-3) and 20 µs
 * (4-7): owner-compute on the estimates puts the heavy four on one worker. */
static pf_graph *unbalanced_graph(double *cells)
{
    pf_graph *g;
    ck_assert_int_eq(pf_graph_create(&g), PF_OK);
    for (uint32_t obj = 0; obj < 8; obj++) {
        pf_data_id d;
        ck_assert_int_eq(pf_graph_data(g, &cells[obj], sizeof(double), obj, NULL, &d), PF_OK);
        pf_access a = {d, PF_READWRITE};
        spin_args s = {obj < 4 ? 400000 : 20000};
        ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = spin, .args = &s, .args_size = sizeof s, .accesses = &a,
                                                         .naccesses = 1, .cost_ns = 1000},
                                       NULL),
                         PF_OK);
    }
    return g;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median imbalance (max / mean busy time) of `runs` runs (at most 16): a run slowed by preemption on a busy
 * machine does not decide the test. */
static double median_imbalance(pf_graph *g, pf_runtime *rt, int runs)
{
    double v[16];
    ck_assert_int_le(runs, 16);
    for (int k = 0; k < runs; k++) {
        ck_assert_int_eq(pf_graph_run(g, rt), PF_OK);
        pf_run_stats st;
        ck_assert_int_eq(pf_graph_get_run_stats(g, PF_STATS_LAST, &st, NULL, 0, NULL), PF_OK);
        v[k] = st.imbalance;
    }
    qsort(v, (size_t)runs, sizeof *v, by_value);
    return v[runs / 2];
}

START_TEST(repartition_lowers_measured_imbalance)
{
    static double cells[8];
    for (int part = 0; part < PF_PART_COUNT; part++) {
        /* forced, under the never policy */
        pf_graph *g = unbalanced_graph(cells);
        pf_runtime *rt = make_rt_policy(PF_EXEC_STATIC, (pf_partitioner)part, 2, PF_REPART_NEVER);
        double before = median_imbalance(g, rt, 10);
        ck_assert_msg(before > 1.3, "%s: the estimates should have unbalanced the graph (imbalance %.3f)",
                      pf_partitioner_name((pf_partitioner)part), before);
        ck_assert_int_eq(pf_graph_repartition(g), PF_OK);
        double after = median_imbalance(g, rt, 10);
        pf_run_stats st;
        pf_graph_get_run_stats(g, PF_STATS_TOTAL, &st, NULL, 0, NULL);
        ck_assert_uint_eq(st.repartitions, 1);
        ck_assert_uint_gt(st.objects_moved, 0);
        ck_assert_msg(after < before && after < 1.25, "%s: imbalance %.3f before, %.3f after the repartition",
                      pf_partitioner_name((pf_partitioner)part), before, after);
        pf_runtime_destroy(rt);
        pf_graph_destroy(g);
        /* auto: the first measured run shows it, and the policy repartitions by itself; its trial against the
         * old placement can lose on a machine too loaded to run two workers at once: three tries */
        after = 2;
        for (int attempt = 0; attempt < 3 && after >= 1.25; attempt++) {
            g = unbalanced_graph(cells);
            rt = make_rt_policy(PF_EXEC_STATIC, (pf_partitioner)part, 2, PF_REPART_AUTO);
            median_imbalance(g, rt, 4);  /* three measuring runs, then the decision */
            median_imbalance(g, rt, 12); /* the decision's trial: the new placement, the old, then the faster */
            after = median_imbalance(g, rt, 10);
            pf_graph_get_run_stats(g, PF_STATS_TOTAL, &st, NULL, 0, NULL);
            ck_assert_uint_ge(st.repartitions, 1);
            pf_runtime_destroy(rt);
            pf_graph_destroy(g);
        }
        ck_assert_msg(after < 1.25, "%s/auto: imbalance %.3f", pf_partitioner_name((pf_partitioner)part), after);
    }
}
END_TEST

/* Four objects whose task times the test sets between runs (trial_ns[object]), so the costs the policy decides
 * on need not be those that follow. */
static uint64_t trial_ns[4];

static void spin_object(const pf_task_ctx *ctx)
{
    uint32_t obj = *(const uint32_t *)ctx->args;
    uint64_t t0 = pf_now_ns();
    while (pf_now_ns() - t0 < trial_ns[obj]) {
    }
    *(double *)ctx->data[0] += 1;
}

/* Runs `runs` times; *st receives the counters so far. */
static void run_counting(pf_graph *g, pf_runtime *rt, int runs, pf_run_stats *st)
{
    for (int k = 0; k < runs; k++) ck_assert_int_eq(pf_graph_run(g, rt), PF_OK);
    ck_assert_int_eq(pf_graph_get_run_stats(g, PF_STATS_TOTAL, st, NULL, 0, NULL), PF_OK);
}

/* One trial on four objects, two workers: the objects placed together at first get 2 ms each, the others 50 us,
 * so the measured costs call for a repartition. With `change`, right after it the objects it paired take the
 * 2 ms, which makes the new pairing run twice as long as the old one (4 ms against 2). Returns whether the
 * trial's verdict was the expected one: with `change` one revert and the old placement back, else the new kept. */
static int trial_case(pf_partitioner part, int change)
{
    static double cells[4];
    pf_graph *g;
    ck_assert_int_eq(pf_graph_create(&g), PF_OK);
    pf_task_id t[4];
    for (uint32_t obj = 0; obj < 4; obj++) {
        pf_data_id d;
        ck_assert_int_eq(pf_graph_data(g, &cells[obj], sizeof(double), obj, NULL, &d), PF_OK);
        pf_access a = {d, PF_READWRITE};
        ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = spin_object, .args = &obj, .args_size = sizeof obj,
                                                         .accesses = &a, .naccesses = 1, .cost_ns = 1000},
                                       &t[obj]),
                         PF_OK);
    }
    pf_runtime *rt = make_rt_policy(PF_EXEC_STATIC, part, 2, PF_REPART_AUTO);
    for (int o = 0; o < 4; o++) trial_ns[o] = 100000;
    ck_assert_int_eq(pf_graph_run(g, rt), PF_OK); /* placed on the estimates: two objects a worker */
    int before[4], after[4];
    for (int o = 0; o < 4; o++) before[o] = pf_graph_task_worker(g, t[o]);
    for (int o = 0; o < 4; o++) trial_ns[o] = before[o] == before[0] ? 2000000 : 50000;
    pf_run_stats st;
    /* the first measuring series took the least of its runs (the cheap first one): the imbalance trigger
     * measures again after COOLDOWN runs, and that series shows a worker's load twice the other's */
    for (int k = 0; k < 2 * COOLDOWN + 10; k++) {
        run_counting(g, rt, 1, &st);
        if (st.repartitions) break;
    }
    ck_assert_uint_eq(st.repartitions, 1);
    ck_assert_int_eq(pf_graph_run(g, rt), PF_OK); /* compiles the new placement */
    for (int o = 0; o < 4; o++) after[o] = pf_graph_task_worker(g, t[o]);
    int regrouped = 0;
    for (int o = 1; o < 4; o++) regrouped |= (after[o] == after[0]) != (before[o] == before[0]);
    ck_assert_msg(regrouped, "%s: the repartition should pair the objects anew", pf_partitioner_name(part));
    if (change)
        for (int o = 0; o < 4; o++) trial_ns[o] = after[o] == after[0] ? 2000000 : 50000;
    ck_assert_ptr_nonnull(g->rp.trial.other);
    for (int k = 0; k < 6 * (TRIAL_RUNS + 1) && g->rp.trial.other; k++) run_counting(g, rt, 1, &st);
    ck_assert_ptr_null(g->rp.trial.other);
    run_counting(g, rt, 1, &st);
    ck_assert_uint_eq(st.repartitions, 1);
    const int *expect = change ? before : after;
    int ok = st.reverts == (uint32_t)change;
    for (int o = 0; o < 4; o++) ok &= pf_graph_task_worker(g, t[o]) == expect[o];
    if (!ok)
        fprintf(stderr, "%s, costs %s: %u reverts, placement %d%d%d%d, expected %d%d%d%d\n", pf_partitioner_name(part),
                change ? "changed" : "kept", st.reverts, pf_graph_task_worker(g, t[0]), pf_graph_task_worker(g, t[1]),
                pf_graph_task_worker(g, t[2]), pf_graph_task_worker(g, t[3]), expect[0], expect[1], expect[2],
                expect[3]);
    pf_runtime_destroy(rt);
    pf_graph_destroy(g);
    return ok;
}

/* The auto policy's trial: the placement it chose on measured costs runs against the one it replaced, and the
 * faster stays (the oracle: the placement whose spins are known to be shorter). Spins wait for a deadline, so a
 * preempted worker changes a run's length little; a machine so loaded that two workers do not run at once can
 * still make the two-worker placement the slower, so each case has three tries. */
START_TEST(trial_keeps_the_faster_placement)
{
    for (int change = 0; change < 2; change++)
        for (int part = 0; part < PF_PART_COUNT; part++) {
            int ok = 0;
            for (int attempt = 0; attempt < 3 && !ok; attempt++) ok = trial_case((pf_partitioner)part, change);
            ck_assert_msg(ok, "%s: the trial kept the slower placement three times (costs %s)",
                          pf_partitioner_name((pf_partitioner)part), change ? "changed" : "kept");
        }
}
END_TEST

/* Adds to its datum the datum it reads (0 when it reads none), a task cheap next to a synchronisation. */
static void chain_link(const pf_task_ctx *ctx)
{
    const uint32_t *reads = ctx->args;
    double *out = ctx->data[0];
    *out = *out * 0.5 + (*reads ? *(const double *)ctx->data[1] : 1.0);
}

/* The distinct workers the tasks t[0..n) run on. */
static int workers_used(const pf_graph *g, const pf_task_id *t, int n)
{
    int used[64] = {0}, count = 0;
    for (int k = 0; k < n; k++) {
        int w = pf_graph_task_worker(g, t[k]);
        ck_assert(w >= 0 && w < 64);
        if (!used[w]++) count++;
    }
    return count;
}

/* Builds the sixteen objects of repartition_spreads_only_as_far_as_it_pays, runs them on W workers, repartitions
 * on measured costs and returns the workers they then use; the state must stay seq's. */
static int spread_case(pf_partitioner part, int chained)
{
    enum { N = 16, W = 8 };
    static double cells[N], ref[N];
    pf_graph *g;
    ck_assert_int_eq(pf_graph_create(&g), PF_OK);
    pf_data_id d[N];
    for (uint32_t o = 0; o < N; o++) ck_assert_int_eq(pf_graph_data(g, &cells[o], sizeof(double), o, NULL, &d[o]), PF_OK);
    pf_task_id t[N];
    if (chained)
        ck_assert_int_eq(pf_graph_loop_begin(g, &(pf_loop_def){.kind = PF_LOOP_COUNT, .count = 20, .max_iterations = 20},
                                             NULL),
                         PF_OK);
    for (uint32_t o = 0; o < N; o++) {
        pf_access a[2] = {{d[o], PF_READWRITE}, {d[o ? o - 1 : 0], PF_READ}};
        uint32_t reads = chained && o > 0;
        spin_args s = {300000};
        pf_task_def def = chained ? (pf_task_def){.fn = chain_link, .args = &reads, .args_size = sizeof reads,
                                                  .accesses = a, .naccesses = 1 + reads, .cost_ns = 100}
                                  : (pf_task_def){.fn = spin, .args = &s, .args_size = sizeof s, .accesses = a,
                                                  .naccesses = 1, .cost_ns = 300000};
        ck_assert_int_eq(pf_graph_task(g, &def, &t[o]), PF_OK);
    }
    if (chained) ck_assert_int_eq(pf_graph_loop_end(g), PF_OK);
    pf_runtime *rt = make_rt_policy(PF_EXEC_STATIC, part, W, PF_REPART_NEVER);
    pf_runtime *seq = make_rt(PF_EXEC_SEQ, PF_PART_OWNER, 1);
    memset(cells, 0, sizeof cells);
    for (int k = 0; k < 4; k++) ck_assert_int_eq(pf_graph_run(g, rt), PF_OK); /* costs measured */
    ck_assert_int_eq(pf_graph_repartition(g), PF_OK);
    for (int k = 0; k < 2; k++) ck_assert_int_eq(pf_graph_run(g, rt), PF_OK);
    memcpy(ref, cells, sizeof ref);
    memset(cells, 0, sizeof cells);
    for (int k = 0; k < 6; k++) ck_assert_int_eq(pf_graph_run(g, seq), PF_OK);
    ck_assert_msg(memcmp(ref, cells, sizeof ref) == 0, "%s: static differs from seq", pf_partitioner_name(part));
    int used = workers_used(g, t, N);
    pf_runtime_destroy(rt);
    pf_runtime_destroy(seq);
    pf_graph_destroy(g);
    return used;
}

/* A repartition spreads only as far as it pays. Sixteen objects in a chain, each iteration of a 20-iteration
 * loop running them one after another: no placement runs two at once, so every worker beyond one only adds a
 * synchronisation per crossing per iteration, and the repartition gathers the chain on two workers (the fewest it
 * considers). Sixteen independent objects of 300 us each keep all eight workers. Both partitioners; the state
 * stays seq's. The costs are measured, and on a machine loaded enough to preempt every measuring run of a task
 * they can mislead: three tries each. */
START_TEST(repartition_spreads_only_as_far_as_it_pays)
{
    for (int part = 0; part < PF_PART_COUNT; part++)
        for (int chained = 0; chained < 2; chained++) {
            int want = chained ? 2 : 8, used = 0;
            for (int attempt = 0; attempt < 3 && used != want; attempt++) used = spread_case((pf_partitioner)part, chained);
            ck_assert_msg(used == want, "%s: the %s objects run on %d workers, not %d",
                          pf_partitioner_name((pf_partitioner)part), chained ? "chained" : "independent", used, want);
        }
}
END_TEST

/* Workers in groups (MPI ranks) are split by group first: a ring of 30 equal objects on 3 groups of 2 workers
 * crosses between groups on 3 of its links, the fewest possible (each group holds an arc), and every worker gets
 * objects. Without groups METIS's 6 parts, taken in pairs of consecutive numbers, need not be neighbours. */
static void ring_link(const pf_task_ctx *ctx)
{
    *(double *)ctx->data[0] += 0.5 * *(const double *)ctx->data[1];
}

START_TEST(metis_splits_groups_of_workers_first)
{
    enum { N = 30, GROUPS = 3, K = 2 };
    static double cells[N];
    pf_graph *g;
    ck_assert_int_eq(pf_graph_create(&g), PF_OK);
    pf_data_id d[N];
    for (uint32_t o = 0; o < N; o++) ck_assert_int_eq(pf_graph_data(g, &cells[o], sizeof(double), o, NULL, &d[o]), PF_OK);
    for (uint32_t o = 0; o < N; o++) {
        pf_access a[2] = {{d[o], PF_READWRITE}, {d[(o + 1) % N], PF_READ}};
        ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = ring_link, .accesses = a, .naccesses = 2, .cost_ns = 1000},
                                       NULL),
                         PF_OK);
    }
    pf_runtime *rt = make_rt(PF_EXEC_STATIC, PF_PART_METIS, GROUPS * K);
    double makespan; /* analysed, with the estimated costs: measured ones would vary from run to run */
    ck_assert_int_eq(pf_graph_get_estimated_makespan(g, rt, &makespan), PF_OK);
    g->pl.groups = GROUPS;
    ck_assert_int_eq(pf_partition_metis(g, GROUPS * K), PF_OK);
    int used[GROUPS * K] = {0}, crossing = 0;
    for (uint32_t o = 0; o < N; o++) {
        int w = g->an.nodes.v[o].worker, next = g->an.nodes.v[(o + 1) % N].worker;
        ck_assert(w >= 0 && w < GROUPS * K);
        used[w]++;
        crossing += w / K != next / K;
    }
    for (int w = 0; w < GROUPS * K; w++) ck_assert_msg(used[w] > 0, "worker %d got no object", w);
    ck_assert_msg(crossing == GROUPS, "the ring crosses between groups %d times, not %d", crossing, GROUPS);
    pf_runtime_destroy(rt);
    pf_graph_destroy(g);
}
END_TEST

/* Adds one to its datum: a task whose cost the tests set, not time. */
static void tick(const pf_task_ctx *ctx)
{
    *(double *)ctx->data[0] += 1;
}

static const pf_node *node_of(const pf_graph *g, pf_task_id t)
{
    for (size_t i = 0; i < g->an.nodes.n; i++)
        if (g->an.nodes.v[i].kind == PF_NODE_TASK && g->an.nodes.v[i].task == t.index) return &g->an.nodes.v[i];
    ck_abort_msg("task %u has no node", t.index);
    return NULL;
}

/* The least makespan of independent objects of costs c[0..n) on 2 workers, by trying every assignment. */
static double best_two_way(const double *c, int n)
{
    double best = 1e300;
    for (unsigned mask = 0; mask < 1u << n; mask++) {
        double w[2] = {0, 0};
        for (int o = 0; o < n; o++) w[mask >> o & 1] += c[o];
        double m = w[0] > w[1] ? w[0] : w[1];
        if (m < best) best = m;
    }
    return best;
}

/* Four independent objects of 5, 4, 3.6 and 3.3 ms in that order: owner-compute's cost-even runs give {5, 4}
 * against {3.6, 3.3} (9 ms), and no single object's move shortens that; swapping the 4 for the 3.3 does (8.3 ms,
 * the optimum found by trying every assignment). A forced repartition reaches the optimum with either partitioner. */
START_TEST(repartition_swaps_objects_where_moves_cannot_help)
{
    enum { OBJ = 4 };
    static double cells[OBJ];
    static const double cost[OBJ] = {5e6, 4e6, 3.6e6, 3.3e6};
    double optimum = best_two_way(cost, OBJ);
    for (int part = 0; part < PF_PART_COUNT; part++) {
        pf_graph *g;
        ck_assert_int_eq(pf_graph_create(&g), PF_OK);
        pf_task_id t[OBJ];
        for (uint32_t o = 0; o < OBJ; o++) {
            pf_data_id d;
            ck_assert_int_eq(pf_graph_data(g, &cells[o], sizeof(double), o, NULL, &d), PF_OK);
            pf_access a = {d, PF_READWRITE};
            ck_assert_int_eq(pf_graph_task(g, &(pf_task_def){.fn = tick, .accesses = &a, .naccesses = 1,
                                                             .cost_ns = cost[o]},
                                           &t[o]),
                             PF_OK);
        }
        pf_runtime *rt = make_rt(PF_EXEC_STATIC, (pf_partitioner)part, 2);
        double makespan;
        ck_assert_int_eq(pf_graph_get_estimated_makespan(g, rt, &makespan), PF_OK);
        ck_assert_int_eq(pf_repartition_forced(g, 2, (pf_partitioner)part), PF_OK);
        double load[2] = {0, 0};
        for (int o = 0; o < OBJ; o++) {
            int w = node_of(g, t[o])->worker;
            ck_assert(w == 0 || w == 1);
            load[w] += cost[o];
        }
        double got = load[0] > load[1] ? load[0] : load[1];
        ck_assert_msg(got == optimum, "%s: makespan %.0f after the repartition, optimum %.0f",
                      pf_partitioner_name((pf_partitioner)part), got, optimum);
        pf_runtime_destroy(rt);
        pf_graph_destroy(g);
    }
}
END_TEST

/* A partition equal to the old one up to renaming is renamed back: nothing moves. */
START_TEST(relabel_undoes_a_renaming)
{
    static const int wc[] = {2, 3, 5};
    for (int wi = 0; wi < 3; wi++) {
        world *w = malloc(sizeof *w);
        world_init(w, 1234 + (uint64_t)wi);
        for (int k = 0; k < 200; k++) add_task(w, OBJECTS);
        pf_runtime *rt = make_rt(PF_EXEC_STATIC, PF_PART_OWNER, wc[wi]);
        double got[NDATA * VEC];
        run_from_init(w, rt, got);
        pf_graph *g = w->g;
        int32_t *old = malloc(g->an.nodes.n * sizeof *old);
        for (size_t i = 0; i < g->an.nodes.n; i++) {
            old[i] = g->an.nodes.v[i].worker;
            if (g->an.nodes.v[i].worker >= 0) g->an.nodes.v[i].worker = (g->an.nodes.v[i].worker + 1 + wi) % wc[wi];
        }
        ck_assert_int_eq(pf_repartition_relabel(g, old, wc[wi]), PF_OK);
        for (size_t i = 0; i < g->an.nodes.n; i++)
            ck_assert_msg(g->an.nodes.v[i].worker == old[i], "%d workers: node %zu on %d, was %d", wc[wi], i,
                          g->an.nodes.v[i].worker, old[i]);
        free(old);
        pf_runtime_destroy(rt);
        pf_graph_destroy(g);
        free(w);
    }
}
END_TEST

/* Every datum's planned node is the node of the worker running its object's tasks (an independent walk over the
 * tasks' placements), on a synthetic machine of 2 packages x 2 NUMA nodes x 2 cores. */
static void check_plan(const pf_numa *numa, const pf_graph *g, const int32_t *plan)
{
    for (size_t i = 0; i < g->an.nodes.n; i++) {
        const pf_node *nd = &g->an.nodes.v[i];
        if (nd->kind != PF_NODE_TASK || nd->object == PF_NONE) continue;
        for (size_t d = 0; d < g->data.n; d++)
            if (g->data.v[d].owner == nd->object)
                ck_assert_msg(plan[d] ==
                                  pf_numa_worker_node(numa, pf_graph_task_worker(g, (pf_task_id){nd->task})),
                              "datum %zu of object %u planned on node %d, its task runs on worker %d", d,
                              nd->object, plan[d], pf_graph_task_worker(g, (pf_task_id){nd->task}));
    }
}

START_TEST(numa_placement_follows_owners)
{
    hwloc_topology_t topo;
    ck_assert_int_eq(hwloc_topology_init(&topo), 0);
    ck_assert_int_eq(hwloc_topology_set_synthetic(topo, "pack:2 numa:2 core:2 pu:1"), 0);
    ck_assert_int_eq(hwloc_topology_load(topo), 0);
    /* workers on cores k mod 8; cores 2j and 2j+1 share node j */
    static const int counts[] = {3, 8, 10};
    for (int c = 0; c < 3; c++) {
        pf_numa *numa = pf_numa_create(topo, counts[c]);
        ck_assert_ptr_nonnull(numa);
        ck_assert_int_eq(pf_numa_nodes(numa), 4);
        for (int w = 0; w < counts[c]; w++) ck_assert_int_eq(pf_numa_worker_node(numa, w), (w % 8) / 2);
        pf_numa_destroy(numa);
    }
    world *w = malloc(sizeof *w);
    world_init(w, 4711);
    for (int k = 0; k < 300; k++) add_task(w, OBJECTS);
    pf_runtime_def def = pf_runtime_default_def();
    def.workers = 8;
    def.bind = 0; /* this machine's own binding plays no part */
    def.quiet = 1;
    def.repartition = PF_REPART_NEVER;
    pf_runtime *rt;
    ck_assert_int_eq(pf_runtime_create(&def, &rt), PF_OK);
    double got[NDATA * VEC];
    run_from_init(w, rt, got);
    pf_numa *numa = pf_numa_create(topo, 8);
    int32_t *plan = malloc(NDATA * sizeof *plan);
    ck_assert_int_eq(pf_numa_plan(numa, w->g, plan), PF_OK);
    check_plan(numa, w->g, plan);
    int nodes_used[4] = {0};
    for (int d = 0; d < NDATA; d++)
        if (plan[d] >= 0) nodes_used[plan[d]] = 1;
    ck_assert_int_eq(nodes_used[0] + nodes_used[1] + nodes_used[2] + nodes_used[3], 4);
    /* a synthetic machine refuses real binding: the plan is recorded, nothing is bound */
    ck_assert_uint_eq(pf_numa_apply(numa, w->g), 0);
    /* a repartition on measured costs moves objects: their data follow */
    ck_assert_int_eq(pf_graph_repartition(w->g), PF_OK);
    run_from_init(w, rt, got);
    ck_assert_int_eq(pf_numa_plan(numa, w->g, plan), PF_OK);
    check_plan(numa, w->g, plan);
    pf_run_stats st;
    pf_graph_get_run_stats(w->g, PF_STATS_TOTAL, &st, NULL, 0, NULL);
    /* the repartition moved objects (measured costs differ from the estimates), and check_plan above found every
     * datum on its object's new node */
    ck_assert_uint_gt(st.objects_moved, 0);
    free(plan);
    pf_numa_destroy(numa);
    pf_runtime_destroy(rt);
    pf_graph_destroy(w->g);
    free(w);
    hwloc_topology_destroy(topo);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("runtime_update");
    TCase *tc = tcase_create("update");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, updates_never_move_existing_tasks);
    tcase_add_test(tc, metis_and_rebalancing_beat_owner_compute_when_unbalanced);
    tcase_add_test(tc, metis_gives_a_heavy_object_its_own_worker);
    tcase_add_test(tc, repartitions_keep_results);
    tcase_add_test(tc, repartition_lowers_measured_imbalance);
    tcase_add_test(tc, trial_keeps_the_faster_placement);
    tcase_add_test(tc, relabel_undoes_a_renaming);
    tcase_add_test(tc, repartition_swaps_objects_where_moves_cannot_help);
    tcase_add_test(tc, metis_splits_groups_of_workers_first);
    tcase_add_test(tc, repartition_spreads_only_as_far_as_it_pays);
    tcase_add_test(tc, numa_placement_follows_owners);
    suite_add_tcase(s, tc);
    return s;
}
