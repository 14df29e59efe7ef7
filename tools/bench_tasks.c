/* physflow bench tasks: replay overhead per empty task (chain, independent) and a METG sweep on Task Bench's
 * 1-D stencil (Slaughter et al., SC'20), per executor and worker count. */
#include "bench_csv.h"
#include "bench_util.h"
#include "cli_args.h"
#include "commands.h"

#include "physflow/runtime.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 32

/* Median seconds per run over up to `reps` runs after `warmup` runs; fewer runs when one takes long, so a
 * slow baseline (barriers on a busy machine) cannot stall the whole benchmark. */
static double time_runs(pf_graph *g, pf_runtime *rt, int warmup, int reps)
{
    double t[64];
    for (int k = 0; k < warmup; k++) {
        double t0 = bench_now_s();
        pf_graph_run(g, rt);
        t[0] = bench_now_s() - t0;
        if (t[0] > 0.5) break;
    }
    if (reps > 64) reps = 64;
    if (warmup > 0 && t[0] * reps > 2.0) reps = t[0] > 1.0 ? 1 : 3;
    for (int k = 0; k < reps; k++) {
        double t0 = bench_now_s();
        pf_graph_run(g, rt);
        t[k] = bench_now_s() - t0;
    }
    return bench_median(t, (size_t)reps);
}

static pf_runtime *make_runtime(int workers, pf_executor e)
{
    pf_runtime_def def = pf_runtime_default_def();
    def.workers = workers;
    def.executor = e;
    pf_runtime *rt = NULL;
    if (pf_runtime_create(&def, &rt) != PF_OK) {
        fprintf(stderr, "physflow: %s\n", pf_last_error());
        return NULL;
    }
    return rt;
}

/* ---------- replay overhead ---------- */

static void empty_task(const pf_task_ctx *ctx)
{
    (void)ctx;
}

typedef struct padded {
    _Alignas(64) double v;
} padded;

/* chain: every task read-writes one datum; independent: task i writes datum i of object i. */
static pf_graph *overhead_graph(int chain, size_t ntasks, padded *cells)
{
    pf_graph *g;
    if (pf_graph_create(&g)) return NULL;
    size_t ndata = chain ? 1 : ntasks;
    pf_data_id first = {0};
    for (size_t i = 0; i < ndata; i++) {
        pf_data_id id;
        pf_graph_data(g, &cells[i], sizeof cells[i], (uint32_t)i, NULL, &id);
        if (i == 0) first = id;
    }
    for (size_t i = 0; i < ntasks; i++) {
        pf_access a = {chain ? first : (pf_data_id){(uint32_t)i}, chain ? PF_READWRITE : PF_WRITE};
        pf_task_def def = {.fn = empty_task, .name = "empty", .accesses = &a, .naccesses = 1, .cost_ns = 10};
        pf_graph_task(g, &def, NULL);
    }
    return g;
}

/* ---------- METG: Task Bench's stencil_1d ---------- */

static double spin_ns_per_iter; /* calibrated once */

/* A dependent chain of G ns. The fences keep the out-of-order core from overlapping one task's chain with the
 * next task's (independent) one, which would make short tasks look shorter than their grain. */
static double busy(double x, uint64_t iters)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_lfence();
#endif
    for (uint64_t i = 0; i < iters; i++) x = x * 0.999999 + 1e-9;
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("" : "+x"(x));
    __builtin_ia32_lfence();
#endif
    return x;
}

/* ns per busy-loop iteration: the fastest of several ~20 ms probes, so another process sharing the core during
 * one probe cannot shrink every task's grain below its nominal value. */
static void calibrate(void)
{
    uint64_t iters = 1000;
    double dt = 0;
    while (dt < 0.02) {
        iters *= 2;
        double t0 = bench_now_s();
        volatile double sink = busy(1.0, iters);
        (void)sink;
        dt = bench_now_s() - t0;
    }
    spin_ns_per_iter = dt * 1e9 / (double)iters;
    for (int k = 0; k < 6; k++) {
        double t0 = bench_now_s();
        volatile double sink = busy(1.0, iters);
        (void)sink;
        double ns = (bench_now_s() - t0) * 1e9 / (double)iters;
        if (ns < spin_ns_per_iter) spin_ns_per_iter = ns;
    }
}

typedef struct stencil_args {
    uint64_t iters;
    uint32_t nin;
} stencil_args;

/* Reads the (up to) three neighbours of the previous step, works G ns, writes its cell. */
static void stencil_task(const pf_task_ctx *ctx)
{
    const stencil_args *a = ctx->args;
    double acc = 0;
    for (uint32_t k = 0; k < a->nin; k++) acc += *(const double *)ctx->data[k];
    *(double *)ctx->data[a->nin] = busy(acc * 0.3, a->iters);
}

static pf_graph *stencil_graph(int width, int steps, double grain_ns, padded *cells /* 2 * width */)
{
    pf_graph *g;
    if (pf_graph_create(&g)) return NULL;
    pf_data_id *id = malloc(2 * (size_t)width * sizeof *id);
    for (int b = 0; b < 2; b++)
        for (int x = 0; x < width; x++) {
            cells[b * width + x].v = x;
            pf_graph_data(g, &cells[b * width + x], sizeof(padded), (uint32_t)x, NULL, &id[b * width + x]);
        }
    stencil_args a = {.iters = (uint64_t)(grain_ns / spin_ns_per_iter + 0.5)};
    for (int t = 1; t <= steps; t++)
        for (int x = 0; x < width; x++) {
            pf_access acc[4];
            uint32_t n = 0;
            for (int dx = -1; dx <= 1; dx++)
                if (x + dx >= 0 && x + dx < width) acc[n++] = (pf_access){id[((t - 1) % 2) * width + x + dx], PF_READ};
            a.nin = n;
            acc[n++] = (pf_access){id[(t % 2) * width + x], PF_WRITE};
            pf_task_def def = {.fn = stencil_task, .name = "stencil", .args = &a, .args_size = sizeof a,
                               .accesses = acc, .naccesses = n, .cost_ns = grain_ns};
            pf_graph_task(g, &def, NULL);
        }
    free(id);
    return g;
}

/* Smallest grain keeping >= 50% efficiency, interpolated in log(G) at the crossing (Task Bench's METG). */
static double metg50(const double *grain, const double *eff, int n)
{
    int first_ok = -1;
    for (int i = n - 1; i >= 0 && eff[i] >= 0.5; i--) first_ok = i;
    if (first_ok < 0) return NAN;
    if (first_ok == 0) return grain[0];
    double g0 = log(grain[first_ok - 1]), g1 = log(grain[first_ok]);
    double e0 = eff[first_ok - 1], e1 = eff[first_ok];
    double f = (0.5 - e0) / (e1 - e0);
    return exp(g0 + f * (g1 - g0));
}

static void usage(FILE *out)
{
    fprintf(out, "usage: physflow bench tasks [--threads LIST] [--executors LIST] [--ntasks N] [--quick]\n"
                 "                            [--csv FILE [--force]]\n"
                 "  replay overhead per empty task (chain and independent) and METG(50%%) of a 1-D stencil of\n"
                 "  width 4 x workers, 3 dependencies per task, grains from 100 ns to 1 ms, per executor.\n"
                 "  defaults: --threads 1,2 --executors static,barrier,omptasks --ntasks 20000\n");
}

int bench_tasks(int argc, char **argv)
{
    long threads[MAX_LIST] = {1, 2};
    size_t nthreads = 2;
    pf_executor execs[8] = {PF_EXEC_STATIC, PF_EXEC_BARRIER, PF_EXEC_OMPTASKS};
    size_t nexec = 3;
    const char *csv_path = NULL;
    long ntasks = 20000;
    int quick = 0, force = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--quick")) {
            quick = 1;
            continue;
        } else if (!strcmp(a, "--force")) {
            force = 1;
            continue;
        }
        int got = cli_option_value(argc, argv, &i, "bench tasks", "--threads --executors --ntasks --csv", usage, &v);
        if (got != CLI_VALUE) return got == CLI_HELP ? 0 : 2;
        if (!strcmp(a, "--threads")) {
            if (cli_int_list("--threads", v, 1, 4096, threads, MAX_LIST, &nthreads)) return 2;
        } else if (!strcmp(a, "--executors")) {
            if (bench_parse_executors("--executors", v, execs, 8, &nexec)) return 2;
        } else if (!strcmp(a, "--ntasks")) {
            if (cli_long("--ntasks", v, 10, 10000000, &ntasks)) return 2;
        } else if (!strcmp(a, "--csv")) {
            csv_path = v;
        } else {
            return cli_unknown_option("bench tasks", a, usage);
        }
    }
    bench_csv *csv = NULL;
    int csv_rc = bench_csv_open(csv_path, force, argc, argv, &csv);
    if (csv_rc) return csv_rc;
    char machine[512];
    bench_machine_summary(machine, sizeof machine);
    printf("# machine: %s\n", machine);

    /* Replay overhead. */
    printf("\nreplay overhead per empty task (%ld tasks; median run / tasks)\n", ntasks);
    printf("%-10s %8s %14s %14s\n", "executor", "workers", "chain ns", "independent ns");
    padded *cells = calloc((size_t)ntasks, sizeof *cells);
    for (size_t e = 0; e < nexec + 1; e++) {
        pf_executor ex = e < nexec ? execs[e] : PF_EXEC_SEQ;
        for (size_t t = 0; t < nthreads; t++) {
            int k = ex == PF_EXEC_SEQ ? 1 : (int)threads[t];
            if (ex == PF_EXEC_SEQ && t > 0) break;
            pf_runtime *rt = make_runtime(k, ex);
            if (!rt) {
                bench_csv_close(csv, 0);
                return 1;
            }
            double ns[2];
            for (int chain = 1; chain >= 0; chain--) {
                pf_graph *g = overhead_graph(chain, (size_t)ntasks, cells);
                double per_run = time_runs(g, rt, 3, quick ? 5 : 21);
                ns[1 - chain] = per_run * 1e9 / (double)ntasks;
                bench_csv_row(csv, "tasks", chain ? "chain" : "independent", pf_executor_name(ex), k, "overhead_ns",
                              ns[1 - chain]);
                pf_graph_destroy(g);
            }
            printf("%-10s %8d %14.1f %14.1f\n", pf_executor_name(ex), k, ns[0], ns[1]);
            fflush(stdout);
            pf_runtime_destroy(rt);
        }
    }
    free(cells);

    /* METG sweep. */
    calibrate();
    double grains[32];
    int ngrains = 0;
    for (double gr = 100; gr <= 1.0001e6; gr *= quick ? 3.1623 : 1.7783) grains[ngrains++] = gr;
    printf("\nMETG: 1-D stencil, width 4 x workers, 3 deps per task; efficiency = ideal / measured time\n");
    printf("%-10s %8s", "executor", "workers");
    for (int i = 0; i < ngrains; i++) printf(" %7.3g", grains[i] / 1000);
    printf("   (grain, us)   METG50 us\n");
    for (size_t e = 0; e < nexec; e++)
        for (size_t t = 0; t < nthreads; t++) {
            int k = (int)threads[t];
            int width = 4 * k;
            pf_runtime *rt = make_runtime(k, execs[e]);
            if (!rt) {
                bench_csv_close(csv, 0);
                return 1;
            }
            padded *sc = calloc(2 * (size_t)width, sizeof *sc);
            double eff[32];
            printf("%-10s %8d", pf_executor_name(execs[e]), k);
            for (int i = 0; i < ngrains; i++) {
                /* about 4 ms of ideal work per run, at least 8 and at most 2000 steps */
                int steps = (int)fmin(2000, fmax(8, 4e6 * k / (width * grains[i])));
                pf_graph *g = stencil_graph(width, steps, grains[i], sc);
                double ideal = (double)width * steps * grains[i] * 1e-9 / k;
                double t_run = time_runs(g, rt, 2, quick ? 3 : 7);
                eff[i] = ideal / t_run;
                char case_name[64];
                snprintf(case_name, sizeof case_name, "stencil3:%.0f", grains[i]);
                bench_csv_row(csv, "tasks", case_name, pf_executor_name(execs[e]), k, "efficiency", eff[i]);
                printf(" %7.2f", eff[i]);
                fflush(stdout);
                pf_graph_destroy(g);
            }
            double m = metg50(grains, eff, ngrains);
            bench_csv_row(csv, "tasks", "stencil3", pf_executor_name(execs[e]), k, "metg50_us", m / 1000);
            if (isnan(m))
                printf("   never reaches 50%%\n");
            else
                printf("   %s%.3g\n", m == grains[0] ? "<=" : "", m / 1000);
            free(sc);
            pf_runtime_destroy(rt);
        }
    return bench_csv_close(csv, 1) ? 1 : 0;
}
