/* physflow bench loops: conjugate-gradient solves as dynamic loops in the task graph (Hermann et al. 2009, §3.3), per
 * executor and worker count, and the cost of a graph update against a full rebuild (Hermann et al. 2009, §3.2). */
#include "bench_csv.h"
#include "bench_util.h"
#include "cg_tasks.h"
#include "cli_args.h"
#include "rng.h"
#include "commands.h"

#include "physflow/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 32

static pf_runtime *make_runtime(int workers, pf_executor e)
{
    pf_runtime_def def = pf_runtime_default_def();
    def.workers = workers;
    def.executor = e;
    pf_runtime *rt = NULL;
    if (pf_runtime_create(&def, &rt) != PF_OK) fprintf(stderr, "physflow: %s\n", pf_last_error());
    return rt;
}

/* Median seconds of up to `reps` runs after one warm-up run; a run slower than a second is measured once, so
 * a baseline that crawls on a busy machine cannot stall the benchmark. */
static double time_set(cg_set *s, pf_runtime *rt, int reps)
{
    double t[32];
    double t0 = bench_now_s();
    if (cg_set_run(s, rt) != PF_OK) return -1;
    t[0] = bench_now_s() - t0;
    if (t[0] > 1.0) return t[0];
    for (int k = 0; k < reps; k++) {
        t0 = bench_now_s();
        cg_set_run(s, rt);
        t[k] = bench_now_s() - t0;
    }
    return bench_median(t, (size_t)reps);
}

/* ---------- update vs rebuild ---------- */

static void nop(const pf_task_ctx *c)
{
    (void)c;
}

enum { UPD_OBJECTS = 100, UPD_DATA_PER_OBJECT = 4 };

typedef struct upd_graph {
    pf_graph *g;
    double cells[UPD_OBJECTS * 2 * UPD_DATA_PER_OBJECT];
    rng seed;
} upd_graph;

/* A task of an object's solver: reads a datum of the object (or a neighbour), writes another of the object. */
static int upd_task(upd_graph *u, uint32_t objects)
{
    uint32_t o = rng_u32(&u->seed) % objects, nb = rng_u32(&u->seed) % 8 == 0 ? (o + 1) % objects : o;
    /* data ids are registration-order numbers: upd_build registers UPD_DATA_PER_OBJECT per object */
    pf_access acc[2] = {{{nb * UPD_DATA_PER_OBJECT + rng_u32(&u->seed) % UPD_DATA_PER_OBJECT}, PF_READ},
                        {{o * UPD_DATA_PER_OBJECT + rng_u32(&u->seed) % UPD_DATA_PER_OBJECT}, PF_READWRITE}};
    uint32_t n = acc[0].data.index == acc[1].data.index ? 1 : 2;
    if (n == 1) acc[0] = acc[1];
    return pf_graph_task(u->g, &(pf_task_def){.fn = nop, .name = "t", .accesses = acc, .naccesses = n, .cost_ns = 500},
                         NULL);
}

static int upd_build(upd_graph *u, int tasks)
{
    if (pf_graph_create(&u->g)) return -1;
    /* data for twice the objects: updates bring new objects too */
    for (uint32_t d = 0; d < UPD_OBJECTS * 2 * UPD_DATA_PER_OBJECT; d++) {
        pf_data_id id;
        if (pf_graph_data(u->g, &u->cells[d], sizeof(double), d / UPD_DATA_PER_OBJECT, NULL, &id)) return -1;
    }
    for (int t = 0; t < tasks; t++)
        if (upd_task(u, UPD_OBJECTS)) return -1;
    return 0;
}

/* rebuild: record + analyse + place + compile from nothing; update: add `share` new tasks to the compiled
 * graph (half of them on new objects) and bring it up to date, existing tasks kept in place. */
static void bench_update(bench_csv *csv, int workers, int tasks, double share, const char *case_name, int reps)
{
    pf_runtime *rt = make_runtime(workers, PF_EXEC_STATIC);
    if (!rt) return;
    double rebuild[16], update[16], removal[16], makespan;
    uint32_t moved = 0, added = 0;
    for (int r = -1; r < reps; r++) { /* r = -1: an untimed warm-up (first-touch of the allocator's pages) */
        int slot = r < 0 ? 0 : r;
        upd_graph *u = calloc(1, sizeof *u);
        u->seed = (rng){12345 + (uint64_t)slot};
        /* each figure: the recording, plus the analysis, placement and compilation that the graph itself
         * timed (pf_graph_update.ms) */
        pf_graph_update up;
        double t0 = bench_now_s();
        upd_build(u, tasks);
        rebuild[slot] = bench_now_s() - t0;
        pf_graph_get_estimated_makespan(u->g, rt, &makespan); /* analyse, place and compile */
        pf_graph_get_last_update(u->g, &up);
        rebuild[slot] += up.ms * 1e-3;
        int extra = (int)(tasks * share + 0.5);
        t0 = bench_now_s();
        pf_graph_invalidate(u->g);
        for (int k = 0; k < extra; k++) upd_task(u, k % 2 ? UPD_OBJECTS : 2 * UPD_OBJECTS);
        update[slot] = bench_now_s() - t0;
        pf_graph_get_estimated_makespan(u->g, rt, &makespan);
        pf_graph_get_last_update(u->g, &up);
        update[slot] += up.ms * 1e-3;
        moved += up.moved;
        added = up.added;
        /* and the same share removed again (every 97th task from the start, say) */
        t0 = bench_now_s();
        pf_graph_invalidate(u->g);
        for (int k = 0, t = 0; k < extra; k++, t = (t + 97) % tasks)
            pf_graph_task_remove(u->g, (pf_task_id){(uint32_t)t});
        removal[slot] = bench_now_s() - t0;
        pf_graph_get_estimated_makespan(u->g, rt, &makespan);
        pf_graph_get_last_update(u->g, &up);
        removal[slot] += up.ms * 1e-3;
        moved += up.moved;
        pf_graph_destroy(u->g);
        free(u);
    }
    double rb = bench_median(rebuild, (size_t)reps) * 1e3, ud = bench_median(update, (size_t)reps) * 1e3;
    double rm = bench_median(removal, (size_t)reps) * 1e3;
    bench_csv_row(csv, "loops", case_name, "static", workers, "update_ms", ud);
    bench_csv_row(csv, "loops", case_name, "static", workers, "remove_ms", rm);
    bench_csv_row(csv, "loops", case_name, "static", workers, "rebuild_ms", rb);
    printf("%-13s %8d %10.3f %10.3f %10.3f %9.1f%% %8u %8u\n", case_name, workers, ud, rm, rb, 100 * ud / rb, added,
           moved);
    pf_runtime_destroy(rt);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: physflow bench loops [--threads LIST] [--executors LIST] [--n N] [--solves S] [--quick]\n"
                 "                            [--cases cg-independent,cg-coupled,update] [--csv FILE [--force]]\n"
                 "  cg-independent: S (default 64) CG solves of N (default 2000) unknowns, conditioning varied;\n"
                 "  cg-coupled: one CG over S blocks of N unknowns; ms per solve per executor and worker count.\n"
                 "  update-1pct, update-10pct: adding that share of tasks to a 10,000-task graph (update_ms), then\n"
                 "  removing as many (remove_ms), against re-recording, analysing and compiling it (rebuild_ms).\n");
}

int bench_loops(int argc, char **argv)
{
    long threads[MAX_LIST] = {1, 2};
    size_t nthreads = 2;
    pf_executor execs[8] = {PF_EXEC_SEQ, PF_EXEC_STATIC, PF_EXEC_BARRIER, PF_EXEC_OMPTASKS};
    size_t nexec = 4;
    const char *csv_path = NULL;
    long n = 2000, solves = 64;
    int quick = 0, force = 0;
    int want[3] = {1, 1, 1}; /* cg-independent, cg-coupled, update */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--quick")) {
            quick = 1;
            continue;
        } else if (!strcmp(a, "--force")) {
            force = 1;
            continue;
        }
        int got = cli_option_value(argc, argv, &i, "bench loops", "--threads --executors --n --solves --csv --cases",
                                   usage, &v);
        if (got != CLI_VALUE) return got == CLI_HELP ? 0 : 2;
        if (!strcmp(a, "--threads")) {
            if (cli_int_list("--threads", v, 1, 4096, threads, MAX_LIST, &nthreads)) return 2;
        } else if (!strcmp(a, "--executors")) {
            if (bench_parse_executors("--executors", v, execs, 8, &nexec)) return 2;
        } else if (!strcmp(a, "--n")) {
            if (cli_long("--n", v, 2, 10000000, &n)) return 2;
        } else if (!strcmp(a, "--solves")) {
            if (cli_long("--solves", v, 1, 100000, &solves)) return 2;
        } else if (!strcmp(a, "--csv")) {
            csv_path = v;
        } else if (!strcmp(a, "--cases")) {
            char buf[256], *names[8];
            size_t nn;
            if (cli_str_list("--cases", v, buf, sizeof buf, names, 8, &nn)) return 2;
            want[0] = want[1] = want[2] = 0;
            for (size_t k = 0; k < nn; k++) {
                int hit = !strcmp(names[k], "cg-independent") ? 0 : !strcmp(names[k], "cg-coupled") ? 1
                        : !strcmp(names[k], "update") ? 2 : -1;
                if (hit < 0) {
                    fprintf(stderr, "physflow bench loops: unknown case '%s' (cg-independent, cg-coupled, update)\n",
                            names[k]);
                    return 2;
                }
                want[hit] = 1;
            }
        } else {
            return cli_unknown_option("bench loops", a, usage);
        }
    }
    bench_csv *csv = NULL;
    int csv_rc = bench_csv_open(csv_path, force, argc, argv, &csv);
    if (csv_rc) return csv_rc;
    char machine[512];
    bench_machine_summary(machine, sizeof machine);
    printf("# machine: %s\n", machine);
    int reps = quick ? 3 : 5;

    static const char *cases[] = {"cg-independent", "cg-coupled"};
    for (int c = 0; c < 2; c++) {
        if (!want[c]) continue;
        int independent = c == 0;
        cg_set *set = independent ? cg_set_create((int)solves, 1, (int)n, 1, 1e-8, 20000, 1)
                                  : cg_set_create(1, (int)solves, (int)n, 1, 1e-8, 20000, 0);
        if (!set) {
            fprintf(stderr, "physflow bench loops: out of memory\n");
            bench_csv_close(csv, 0);
            return 1;
        }
        printf("\n%s: %s\n", cases[c],
               independent ? "independent CG solves, each its own object and loop"
                           : "one CG over blocks owned by different objects, coupled by its dot products");
        printf("%-10s %8s %14s %12s\n", "executor", "workers", "ms per solve", "iterations");
        double base_static1 = 0, best_other[MAX_LIST] = {0}, stat[MAX_LIST] = {0};
        for (size_t e = 0; e < nexec; e++)
            for (size_t t = 0; t < nthreads; t++) {
                int k = execs[e] == PF_EXEC_SEQ ? 1 : (int)threads[t];
                if (execs[e] == PF_EXEC_SEQ && t > 0) break;
                pf_runtime *rt = make_runtime(k, execs[e]);
                if (!rt) {
                    bench_csv_close(csv, 0);
                    return 1;
                }
                uint32_t moved = 0;
                if (execs[e] == PF_EXEC_STATIC && k > 1) {
                    /* Hermann et al. 2009, §3.2: after a measured run, move whole objects to balance the measured
                     * costs */
                    pf_graph_invalidate(cg_set_graph(set)); /* a fresh placement for this worker count */
                    cg_set_run(set, rt);
                    pf_graph_rebalance(cg_set_graph(set), rt, &moved, NULL);
                }
                double s = time_set(set, rt, reps);
                double per = s * 1e3 / (independent ? (double)solves : 1.0);
                uint32_t lo = UINT32_MAX, hi = 0;
                for (int i = 0; i < (independent ? (int)solves : 1); i++) {
                    uint32_t it = cg_set_iterations(set, i);
                    lo = it < lo ? it : lo;
                    hi = it > hi ? it : hi;
                }
                printf("%-10s %8d %14.3f %7u..%-5u", pf_executor_name(execs[e]), k, per, lo, hi);
                if (moved) printf("  (rebalanced: %u objects moved)", moved);
                printf("\n");
                fflush(stdout);
                bench_csv_row(csv, "loops", cases[c], pf_executor_name(execs[e]), k, "ms_per_solve", per);
                if (execs[e] == PF_EXEC_STATIC) {
                    stat[t] = per;
                    if (k == 1) base_static1 = per;
                }
                if (execs[e] == PF_EXEC_BARRIER || execs[e] == PF_EXEC_OMPTASKS)
                    if (best_other[t] == 0 || per < best_other[t]) best_other[t] = per;
                pf_runtime_destroy(rt);
            }
        for (size_t t = 0; t < nthreads; t++) {
            if (stat[t] <= 0) continue;
            printf("  static at %ld workers: %.2fx static at 1 worker", threads[t],
                   base_static1 > 0 ? base_static1 / stat[t] : 0.0);
            if (best_other[t] > 0) printf(", %.2fx the better of barrier and omptasks", best_other[t] / stat[t]);
            printf("\n");
        }
        cg_set_destroy(set);
    }

    if (want[2]) printf("\ngraph update against rebuild, 10,000 tasks, static executor\n");
    if (want[2])
        printf("%-13s %8s %10s %10s %10s %10s %8s %8s\n", "case", "workers", "update ms", "remove ms", "rebuild ms",
               "ratio", "added", "moved");
    for (size_t t = 0; t < nthreads && want[2]; t++) {
        bench_update(csv, (int)threads[t], 10000, 0.01, "update-1pct", quick ? 3 : 7);
        bench_update(csv, (int)threads[t], 10000, 0.10, "update-10pct", quick ? 3 : 7);
    }
    return bench_csv_close(csv, 1) ? 1 : 0;
}
