/* physflow bench scaling: ms per step of a physics scene (built in, or a scene file) per executor,
 * partitioner, repartitioning policy and worker count, split into collision, graph update and integration,
 * with the speedup of the whole step and of integration alone (the paper's measure: step - collision, graph
 * updates and repartitions included) against seq at 1 worker, and the runtime's counters (imbalance, waits,
 * repartitions) (Hermann et al. 2009, §4, figures 5-7). Setup and the untimed warm-up steps (the recording step among
 * them) are excluded; repeats interleave the configurations so that a noisy machine slows them alike.
 * Under mpirun (docs/runtime.md, "Across MPI ranks") every static configuration also runs over all R ranks
 * ("static/Rranks", R x K workers), beside the same configurations on rank 0 alone, which prints and writes the
 * outputs; the other ranks sleep while rank 0 times alone. Every repeat of several workers also measures how
 * much of the machine they got (host_check.h), and --host-min runs a repeat again when the host fell short. */
#include "bench_csv.h"
#include "bench_util.h"
#include "cli_args.h"
#include "commands.h"
#include "host_check.h"
#include "run_mpi.h"
#include "scaling_ceiling.h"
#include "scaling_plot.h"
#include "scaling_reference.h"
#include "scene_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 32
#define CMD "physflow bench scaling"

/* What every configuration shares. */
typedef struct scaling_opts {
    const char *scene; /* a built-in name or a scene file, as given */
    char name[64];     /* the CSV's case and the plot's title: the built-in name or the file's base name */
    long steps, repeat;
    long warmup; /* untimed steps before the timed ones, >= 1: the first records and compiles */
    int bind, force; /* force: --force, outputs may replace files */
    int bind_caller; /* --bind-caller: worker 0, the thread that steps, pinned too (pf_runtime_def.bind_caller) */
    long spin_ns;    /* how long a waiting worker spins before it sleeps (pf_runtime_def.spin_ns) */
    int rank, ranks; /* under mpirun: this process's rank and the rank count; else 0 and 1 */
    double host_min; /* a repeat whose host efficiency is below runs again (0: never) */
    int ceiling;     /* --ceiling: the machine's ceiling at each worker count above 1 (scaling_ceiling.h) */
    long host_tries; /* runs of a repeat at most */
} scaling_opts;

/* The host is checked every HOST_EVERY timed steps (outside the timed steps), with a kernel of about HOST_MS. */
#define HOST_EVERY 10
#define HOST_MS 1.0

/* The per-step series of one configuration, repeats one after another (steps x repeat values each). */
enum { S_STEP, S_COL, S_INTEG, S_IMBAL, S_WAITS, S_BLOCKED, S_COUNT };

/* One measured configuration and its samples over all repeats. */
typedef struct config {
    pf_executor ex;
    pf_partitioner part;
    pf_repartition repart;
    int workers;     /* per rank */
    int ranks;       /* 1, or all the ranks of an mpirun job */
    int copies;      /* 1, or K for the ceiling: K independent seq copies at once (method "ceiling") */
    char method[40]; /* "seq", "static", "static/metis", "static/metis/auto", "static/2ranks", ... as in the CSV */
    /* per timed step: ms of the step, of its collision stage (0 without one), step - collision (the paper's
     * integration time: graph updates and repartitions included), and pf_world_get_stats' imbalance, waits
     * and blocked waits of that step */
    double *s[S_COUNT];
    double *upd;          /* per repeat: ms of graph updates during the timed steps / steps */
    long updates;         /* graph updates during the timed steps, all repeats */
    long repartitions;    /* repartitions during the timed steps, all repeats */
    long objects_moved;   /* objects moved by those repartitions */
    long reverts;         /* of those repartitions, the ones undone after their measured trial */
    uint32_t metis_small; /* the largest count of placements where METIS fell back to owner-compute */
    double *host;         /* per repeat: the median host efficiency of its checks (1 for one worker) */
    long host_iterations; /* the check's kernel length on this configuration's workers (0: not calibrated) */
    long reruns, below;   /* repeats run again for --host-min, and repeats kept below it after every try */
    int failed;
} config;

/* The workers of a configuration, all ranks together: what its speedup is shared by. */
static int cores(const config *c)
{
    return c->workers * c->ranks * c->copies;
}

/* The speedup of time t against the baseline time base: for the ceiling, its K copies' throughput. */
static double speedup(const config *c, double base, double t)
{
    return t > 0 ? c->copies * base / t : 0;
}

/* A fresh scene with the configuration's runtime settings; 0 or an exit code (message on stderr). */
static int load_scene(const scaling_opts *o, const config *c, pf_scene **out)
{
    pf_scene_load_def ld = pf_scene_default_load_def();
    ld.world.runtime.workers = c->workers;
    ld.world.runtime.bind = o->bind;
    ld.world.runtime.bind_caller = o->bind && o->bind_caller;
    ld.world.runtime.mpi = c->ranks > 1;
    ld.world.runtime.spin_ns = (int)o->spin_ns;
    ld.world.runtime.executor = c->ex;
    ld.world.runtime.partitioner = c->part;
    ld.world.runtime.repartition = c->repart;
    ld.world.runtime.quiet = 1; /* binding refusals and METIS fallbacks would repeat per repeat: counted */
    return scene_cli_load_def(CMD, o->scene, &ld, out);
}

static void record_step(config *c, size_t i, double ms, double col, const pf_world_stats *ws)
{
    c->s[S_STEP][i] = ms;
    c->s[S_COL][i] = col;
    c->s[S_INTEG][i] = ms - col;
    c->s[S_IMBAL][i] = ws->imbalance;
    c->s[S_WAITS][i] = (double)ws->waits;
    c->s[S_BLOCKED][i] = (double)ws->waits_blocked;
}

/* The host checks of one repeat. */
#define HOST_SAMPLES_MAX 64
typedef struct host_samples {
    double v[HOST_SAMPLES_MAX];
    int n;
} host_samples;

/* One host check on the configuration's workers (calibrated at its first); not for one worker or several ranks,
 * whose checks would say nothing (one) or only of rank 0's machine. */
static void host_sample(host_samples *hs, pf_runtime *rt, config *c)
{
    if (c->workers < 2 || c->ranks > 1 || hs->n == HOST_SAMPLES_MAX) return;
    if (!c->host_iterations) c->host_iterations = host_check_calibrate(rt, HOST_MS);
    hs->v[hs->n++] = host_check(rt, c->host_iterations);
}

/* Runs repeat `r` of configuration c: a fresh world, o->warmup untimed steps (the first records and
 * compiles), then o->steps timed ones. Returns 0 or -1 (message on stderr). */
static int time_ceiling(const scaling_opts *o, config *c, long r);

static int time_repeat(const scaling_opts *o, config *c, long r)
{
    if (c->copies > 1) return time_ceiling(o, c, r);
    pf_scene *scene = NULL;
    if (load_scene(o, c, &scene)) return -1;
    pf_world *w = pf_scene_world(scene);
    int rc = pf_world_step(w, (uint32_t)o->warmup);
    pf_collision_stats cs;
    int has_collision = rc == PF_OK && pf_world_get_collision_stats(w, &cs) == PF_OK;
    pf_world_stats before, ws;
    memset(&before, 0, sizeof before);
    memset(&ws, 0, sizeof ws);
    if (rc == PF_OK) rc = pf_world_get_stats(w, &before);
    uint32_t count = 0;
    long updates = 0;
    double upd_total = 0;
    if (rc == PF_OK) bench_world_update_ms(w, &count, &updates); /* the count so far: the warm-up is not timed */
    updates = 0;
    host_samples hs = {0};
    host_sample(&hs, pf_world_runtime(w), c);
    for (long k = 0; k < o->steps && rc == PF_OK; k++) {
        if (k > 0 && k % HOST_EVERY == 0) host_sample(&hs, pf_world_runtime(w), c);
        double t0 = bench_now_s();
        rc = pf_world_step(w, 1);
        double ms = (bench_now_s() - t0) * 1e3;
        double col = has_collision && pf_world_get_collision_stats(w, &cs) == PF_OK ? cs.ms : 0;
        upd_total += bench_world_update_ms(w, &count, &updates);
        if (rc == PF_OK) rc = pf_world_get_stats(w, &ws);
        record_step(c, (size_t)(r * o->steps + k), ms, col, &ws);
    }
    if (rc != PF_OK) fprintf(stderr, CMD ": %s, %d workers: %s\n", c->method, c->workers, pf_last_error());
    host_sample(&hs, pf_world_runtime(w), c);
    c->host[r] = c->workers > 1 && c->ranks == 1 ? bench_median(hs.v, (size_t)hs.n) : 1;
    c->upd[r] = upd_total / (double)o->steps;
    c->updates += updates;
    c->repartitions += (long)ws.repartitions - (long)before.repartitions;
    c->objects_moved += (long)ws.objects_moved - (long)before.objects_moved;
    c->reverts += (long)ws.repartitions_reverted - (long)before.repartitions_reverted;
    if (ws.metis_small > c->metis_small) c->metis_small = ws.metis_small;
    pf_scene_destroy(scene);
    return rc == PF_OK ? 0 : -1;
}

/* Repeat r of c, run again (up to o->host_tries runs) while the host's efficiency during it stays below
 * o->host_min; the counters of a run that is discarded are taken back. 0 or -1. */
static int time_host_repeat(const scaling_opts *o, config *c, long r)
{
    for (long run = 1;; run++) {
        long u = c->updates, rp = c->repartitions, mv = c->objects_moved, rv = c->reverts;
        if (time_repeat(o, c, r)) return -1;
        if (c->workers < 2 || c->ranks > 1 || c->host[r] >= o->host_min) return 0; /* unchecked, or good */
        if (run >= o->host_tries) {
            c->below++;
            return 0;
        }
        c->updates = u, c->repartitions = rp, c->objects_moved = mv, c->reverts = rv;
        c->reruns++;
    }
}

/* Repeat r of the ceiling: c->copies seq copies stepping at once; a step's sample is the copies' mean. */
static int time_ceiling(const scaling_opts *o, config *c, long r)
{
    pf_scene_load_def ld = pf_scene_default_load_def();
    ld.world.runtime.spin_ns = (int)o->spin_ns;
    ld.world.runtime.quiet = 1;
    size_t at = (size_t)(r * o->steps);
    double *ms = c->s[S_STEP] + at, *col = c->s[S_COL] + at;
    if (scaling_ceiling_repeat(CMD, o->scene, &ld, c->copies, o->warmup, o->steps, ms, col, &c->upd[r])) return -1;
    for (long k = 0; k < o->steps; k++) {
        c->s[S_INTEG][at + (size_t)k] = ms[k] - col[k];
        c->s[S_IMBAL][at + (size_t)k] = 1;
        c->s[S_WAITS][at + (size_t)k] = c->s[S_BLOCKED][at + (size_t)k] = 0;
    }
    c->host[r] = 1; /* the ceiling is itself the measure of the machine */
    return 0;
}

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: physflow bench scaling SCENE --threads LIST [--executors LIST] [--partitioners LIST]\n"
        "                              [--repartition LIST] [--steps N] [--warmup N] [--repeat R] "
        "[--no-bind]\n"
        "                              [--bind-caller] [--spin-ns NS] [--host-min E] [--host-tries N]\n"
        "                              [--csv FILE] [--plot FILE] [--ceiling] [--force]\n"
        "  SCENE: a built-in scene (%s) or a scene file.\n"
        "  Per executor and worker count: the median ms per step over R repeats of N timed steps (defaults "
        "10\n"
        "  and 1; each repeat loads the scene afresh, setup and the warm-up steps excluded), the range of "
        "the\n"
        "  per-repeat medians, the split into collision, graph update and integration (step - collision:\n"
        "  graph updates and repartitions included, the paper's measure), the speedup and efficiency of the\n"
        "  whole step and of integration against seq at 1 worker (always measured), and the runtime's\n"
        "  counters: median imbalance and waits per step, repartitions and objects moved. seq runs at 1\n"
        "  worker only; repeats interleave the configurations.\n"
        "  --executors    default seq,static,barrier,omptasks\n"
        "  --partitioners for static: owner,metis (default owner; when given, static's method reads\n"
        "                 static/PARTITIONER)\n"
        "  --repartition  for static: auto,never,always (default: the world's, auto); with more than one,\n"
        "                 static's method ends in /POLICY\n"
        "  --warmup N     untimed steps before the timed ones (default 2, at least 1: the first step "
        "records\n"
        "                 and compiles the graph); e.g. 200 lets a pile form first\n"
        "  --no-bind      leaves worker threads unpinned (on a machine shared with other pinned jobs)\n"
        "  --bind-caller  pins worker 0, the thread that steps the world, to the first core as well (by\n"
        "                 default the system places it beside the K-1 pinned workers)\n"
        "  --spin-ns NS   how long a waiting worker spins before it sleeps (default 20000; 0 sleeps at once):\n"
        "                 on virtual machines, whose sleeping vCPUs wake slowly, longer spins may help\n"
        "  --ceiling      also the machine's ceiling at each worker count K above 1: K independent copies of\n"
        "                 the scene on one worker each (seq), stepping at once; its speedup is their\n"
        "                 throughput, K x T1 / their ms per step, and each static configuration's share of it\n"
        "                 is printed: what the runtime keeps of what the machine gives (not under mpirun)\n"
        "  --host-min E   runs a repeat of several workers again (up to --host-tries runs, default 5) when\n"
        "                 the host's efficiency during it (the 'host' column) is below E, e.g. 0.9 on a\n"
        "                 shared virtual machine; default 0: never\n"
        "  --plot FILE    integration speedup against workers per method with gnuplot, as FILE.svg and\n"
        "                 FILE.png (a FILE ending in .svg or .png names one of the two), error bars from "
        "the\n"
        "                 repeats' range; without gnuplot a warning, exit 0\n"
        "  --csv, --plot: checked before any timing; an existing file is not overwritten unless --force.\n",
        pf_scene_builtin_names());
}

static int parse_partitioners(const char *text, pf_partitioner *out, size_t cap, size_t *n)
{
    char buf[256], *names[8];
    if (cli_str_list("--partitioners", text, buf, sizeof buf, names, 8, n)) return -1;
    if (*n > cap) {
        fprintf(stderr, CMD ": --partitioners: at most %zu\n", cap);
        return -1;
    }
    for (size_t k = 0; k < *n; k++)
        if (pf_partitioner_parse(names[k], &out[k]) != PF_OK) {
            fprintf(stderr, CMD ": --partitioners: unknown partitioner '%s' (owner, metis)\n", names[k]);
            return -1;
        }
    return 0;
}

static int parse_repartition(const char *text, pf_repartition *out, size_t cap, size_t *n)
{
    char buf[256], *names[8];
    if (cli_str_list("--repartition", text, buf, sizeof buf, names, 8, n)) return -1;
    if (*n > cap) {
        fprintf(stderr, CMD ": --repartition: at most %zu\n", cap);
        return -1;
    }
    for (size_t k = 0; k < *n; k++)
        if (pf_repartition_parse(names[k], &out[k]) != PF_OK) {
            fprintf(stderr, CMD ": --repartition: unknown policy '%s' (auto, never, always)\n", names[k]);
            return -1;
        }
    return 0;
}

/* The configurations asked for: executors, and for static its partitioners and repartitioning policies. */
typedef struct config_axes {
    pf_executor ex[8];
    size_t nex;
    pf_partitioner parts[8];
    size_t nparts;
    int label_part; /* --partitioners given: static's method names its partitioner */
    pf_repartition reps[PF_REPART_COUNT];
    size_t nreps;
    int label_rep; /* more than one policy: static's method names its policy */
    long threads[MAX_LIST];
    size_t nthreads;
    int ceiling; /* --ceiling (not under mpirun) */
} config_axes;

static void add_config(config *cfg, size_t *n, const config_axes *a, pf_executor e, pf_partitioner p,
                       pf_repartition rp, int workers, int ranks)
{
    config *c = &cfg[(*n)++];
    memset(c, 0, sizeof *c);
    c->ex = e;
    c->part = p;
    c->repart = rp;
    c->workers = workers;
    c->ranks = ranks;
    c->copies = 1;
    /* only static partitions, so only static's label names a partitioner and a policy */
    int is_static = e == PF_EXEC_STATIC;
    size_t len = (size_t)snprintf(c->method, sizeof c->method, "%s", pf_executor_name(e));
    if (is_static && a->label_part && len < sizeof c->method)
        len += (size_t)snprintf(c->method + len, sizeof c->method - len, "/%s", pf_partitioner_name(p));
    if (is_static && a->label_rep && len < sizeof c->method)
        len += (size_t)snprintf(c->method + len, sizeof c->method - len, "/%s", pf_repartition_name(rp));
    if (ranks > 1 && len < sizeof c->method) snprintf(c->method + len, sizeof c->method - len, "/%dranks", ranks);
}

/* How many configurations build_configs makes. */
static size_t count_configs(const config_axes *a, int ranks)
{
    size_t n = 1;
    for (size_t t = 0; a->ceiling && t < a->nthreads; t++) n += a->threads[t] > 1;
    for (size_t e = 0; e < a->nex; e++)
        if (a->ex[e] == PF_EXEC_STATIC)
            n += a->nparts * a->nreps * a->nthreads * (ranks > 1 ? 2 : 1);
        else if (a->ex[e] != PF_EXEC_SEQ)
            n += a->nthreads;
    return n;
}

/* seq at 1 worker first (the baseline), then every executor x partitioner x policy x worker count
 * (partitioners and policies for static only: the others neither partition nor repartition); under mpirun,
 * static's again over all the ranks. */
static size_t build_configs(config *cfg, const config_axes *a, int ranks)
{
    size_t n = 0;
    pf_repartition dflt = pf_world_default_def().runtime.repartition;
    add_config(cfg, &n, a, PF_EXEC_SEQ, PF_PART_OWNER, dflt, 1, 1);
    for (size_t t = 0; a->ceiling && t < a->nthreads; t++)
        if (a->threads[t] > 1) {
            add_config(cfg, &n, a, PF_EXEC_SEQ, PF_PART_OWNER, dflt, 1, 1);
            cfg[n - 1].copies = (int)a->threads[t];
            snprintf(cfg[n - 1].method, sizeof cfg[n - 1].method, "ceiling");
        }
    for (size_t e = 0; e < a->nex; e++) {
        pf_executor ex = a->ex[e];
        if (ex == PF_EXEC_SEQ) continue;
        int is_static = ex == PF_EXEC_STATIC;
        for (int r = 1; r <= (is_static ? ranks : 1); r += ranks > 1 ? ranks - 1 : 1)
            for (size_t p = 0; p < (is_static ? a->nparts : 1); p++)
                for (size_t q = 0; q < (is_static ? a->nreps : 1); q++)
                    for (size_t t = 0; t < a->nthreads; t++)
                        add_config(cfg, &n, a, ex, is_static ? a->parts[p] : PF_PART_OWNER,
                                   is_static ? a->reps[q] : dflt, (int)a->threads[t], r);
    }
    return n;
}

static int alloc_samples(config *c, long steps, long repeat)
{
    size_t n = (size_t)(steps * repeat);
    double *block = malloc(S_COUNT * n * sizeof *block);
    c->upd = malloc((size_t)repeat * sizeof *c->upd);
    c->host = malloc((size_t)repeat * sizeof *c->host);
    for (int k = 0; k < S_COUNT; k++)
        c->s[k] = block ? block + k * n : NULL;
    return block && c->upd && c->host ? 0 : -1;
}

static void free_samples(config *c)
{
    free(c->s[0]); /* the block holding every series */
    free(c->upd);
    free(c->host);
}

/* The medians of one configuration (they sort its samples), and the range of its per-repeat medians of the
 * step and of integration: how much the machine's background load moved them between repeats. */
typedef struct summary {
    double step, step_lo, step_hi;
    double integ, integ_lo, integ_hi;
    double col, upd;
    double imbal, waits, blocked;
    double host; /* median host efficiency over the repeats */
} summary;

/* The smallest and largest per-repeat median of series v (sorts each repeat's part). */
static void repeat_range(double *v, long steps, long repeat, double *lo, double *hi)
{
    for (long r = 0; r < repeat; r++) {
        double m = bench_median(v + r * steps, (size_t)steps);
        if (r == 0 || m < *lo) *lo = m;
        if (r == 0 || m > *hi) *hi = m;
    }
}

static summary summarise(config *c, long steps, long repeat)
{
    summary s = {0};
    repeat_range(c->s[S_STEP], steps, repeat, &s.step_lo, &s.step_hi);
    repeat_range(c->s[S_INTEG], steps, repeat, &s.integ_lo, &s.integ_hi);
    size_t n = (size_t)(steps * repeat);
    s.step = bench_median(c->s[S_STEP], n);
    s.integ = bench_median(c->s[S_INTEG], n);
    s.col = bench_median(c->s[S_COL], n);
    s.upd = bench_median(c->upd, (size_t)repeat);
    s.imbal = bench_median(c->s[S_IMBAL], n);
    s.waits = bench_median(c->s[S_WAITS], n);
    s.blocked = bench_median(c->s[S_BLOCKED], n);
    s.host = bench_median(c->host, (size_t)repeat);
    return s;
}

static void csv_rows(bench_csv *csv, const char *name, const config *c, const summary *s, const summary *base)
{
    const char *m = c->method;
    int k = cores(c);
    double sp = speedup(c, base->step, s->step), spi = speedup(c, base->integ, s->integ);
    bench_csv_row(csv, "scaling", name, m, k, "ms_per_step", s->step);
    bench_csv_row(csv, "scaling", name, m, k, "ms_per_step_lo", s->step_lo);
    bench_csv_row(csv, "scaling", name, m, k, "ms_per_step_hi", s->step_hi);
    bench_csv_row(csv, "scaling", name, m, k, "ms_collision", s->col);
    bench_csv_row(csv, "scaling", name, m, k, "ms_update", s->upd);
    bench_csv_row(csv, "scaling", name, m, k, "ms_integration", s->integ);
    bench_csv_row(csv, "scaling", name, m, k, "ms_integration_lo", s->integ_lo);
    bench_csv_row(csv, "scaling", name, m, k, "ms_integration_hi", s->integ_hi);
    bench_csv_row(csv, "scaling", name, m, k, "speedup", sp);
    bench_csv_row(csv, "scaling", name, m, k, "efficiency", sp / k);
    bench_csv_row(csv, "scaling", name, m, k, "speedup_integration", spi);
    bench_csv_row(csv, "scaling", name, m, k, "efficiency_integration", spi / k);
    bench_csv_row(csv, "scaling", name, m, k, "updates", (double)c->updates);
    bench_csv_row(csv, "scaling", name, m, k, "imbalance", s->imbal);
    bench_csv_row(csv, "scaling", name, m, k, "waits", s->waits);
    bench_csv_row(csv, "scaling", name, m, k, "waits_blocked", s->blocked);
    bench_csv_row(csv, "scaling", name, m, k, "repartitions", (double)c->repartitions);
    bench_csv_row(csv, "scaling", name, m, k, "objects_moved", (double)c->objects_moved);
    bench_csv_row(csv, "scaling", name, m, k, "reverts", (double)c->reverts);
    bench_csv_row(csv, "scaling", name, m, k, "metis_small", (double)c->metis_small);
    if (c->ranks == 1) { /* the check sees rank 0's machine only: none over several ranks */
        bench_csv_row(csv, "scaling", name, m, k, "host_efficiency", s->host);
        bench_csv_row(csv, "scaling", name, m, k, "host_reruns", (double)c->reruns);
    }
}

static void print_times(const config *cfg, const summary *sum, size_t ncfg)
{
    printf("  %-19s %7s %10s %17s %10s %9s %10s %8s %7s %10s %10s\n", "method", "workers", "ms/step",
           "repeats' range", "collision", "update", "integr.", "speedup", "effic.", "sp.integr",
           "eff.integr");
    for (size_t i = 0; i < ncfg; i++) {
        const config *c = &cfg[i];
        const summary *s = &sum[i];
        if (c->failed) continue;
        double sp = speedup(c, sum[0].step, s->step), spi = speedup(c, sum[0].integ, s->integ);
        printf("  %-19s %7d %10.3f %8.3f-%-8.3f %10.3f %9.3f %10.3f %8.2f %7.2f %10.2f %10.2f\n", c->method,
               cores(c), s->step, s->step_lo, s->step_hi, s->col, s->upd, s->integ, sp, sp / cores(c), spi,
               spi / cores(c));
    }
}

static void print_counters(const config *cfg, const summary *sum, size_t ncfg)
{
    printf("  runtime counters over the timed steps: median imbalance (max / mean busy time of the workers) "
           "and\n"
           "  waits per step; graph updates, repartitions, objects moved and repartitions undone after timing,\n"
           "  all repeats together; host: how fast a compute kernel ran on every worker at once against one\n"
           "  worker alone, checked every %d timed steps (median; 1 = each worker had its core, 0.5 = half the\n"
           "  machine: a speedup then measures the host)\n", HOST_EVERY);
    printf("  %-19s %7s %9s %9s %9s %8s %8s %8s %8s %6s\n", "method", "workers", "imbalance", "waits", "blocked",
           "updates", "repart.", "moved", "undone", "host");
    for (size_t i = 0; i < ncfg; i++) {
        const config *c = &cfg[i];
        if (c->failed || c->copies > 1) continue; /* the ceiling's copies keep no runtime counters of note */
        char host[16] = "     -"; /* over several ranks: not checked */
        if (c->ranks == 1) snprintf(host, sizeof host, "%6.2f", sum[i].host);
        printf("  %-19s %7d %9.3f %9.0f %9.0f %8ld %8ld %8ld %8ld %s\n", c->method, cores(c), sum[i].imbal,
               sum[i].waits, sum[i].blocked, c->updates, c->repartitions, c->objects_moved, c->reverts, host);
    }
    for (size_t i = 0; i < ncfg; i++)
        if (!cfg[i].failed && (cfg[i].reruns || cfg[i].below))
            printf("  note: %s at %d workers: %ld repeats run again for --host-min, %ld kept below it\n",
                   cfg[i].method, cores(&cfg[i]), cfg[i].reruns, cfg[i].below);
    for (size_t i = 0; i < ncfg; i++)
        if (!cfg[i].failed && cfg[i].metis_small && cfg[i].part == PF_PART_METIS)
            printf("  note: %s at %d workers: the graph was too small for METIS, placed by owner-compute\n",
                   cfg[i].method, cores(&cfg[i]));
}

/* Each parallel configuration's speedups as a share of the ceiling's at the same worker count (--ceiling). */
static void print_ceiling_share(const config *cfg, const summary *sum, size_t ncfg)
{
    for (size_t i = 0; i < ncfg; i++) {
        const config *c = &cfg[i];
        if (c->failed || c->copies < 2) continue;
        double top = speedup(c, sum[0].step, sum[i].step), topi = speedup(c, sum[0].integ, sum[i].integ);
        printf("  ceiling at %d workers (%d independent seq copies at once): speedup %.2f, integration %.2f; "
               "share of it:\n", c->copies, c->copies, top, topi);
        for (size_t j = 0; j < ncfg; j++) {
            const config *d = &cfg[j];
            if (d->failed || d->copies > 1 || cores(d) != c->copies || top <= 0 || topi <= 0) continue;
            printf("    %-19s %5.2f, integration %5.2f\n", d->method, speedup(d, sum[0].step, sum[j].step) / top,
                   speedup(d, sum[0].integ, sum[j].integ) / topi);
        }
    }
}

/* The paper's figures for the same scene, when it is one of the paper's built-in scenes. */
static void print_reference(const char *scene)
{
    const scaling_reference *r = scaling_reference_find(scene);
    if (!r) return;
    printf("  paper (Hermann et al. 2009, section 4, %s): ", r->machine);
    if (r->seq_ms > 0) printf("sequential %.0f ms/step; ", r->seq_ms);
    printf("%s\n", r->reported);
}

static int report(const scaling_opts *o, config *cfg, size_t ncfg, bench_csv *csv, const char *plot_path,
                  const double trip[2])
{
    summary *sum = calloc(ncfg, sizeof *sum);
    scaling_point *pts = calloc(ncfg, sizeof *pts);
    if (!sum || !pts) {
        free(sum);
        free(pts);
        fprintf(stderr, CMD ": out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < ncfg; i++)
        if (!cfg[i].failed) sum[i] = summarise(&cfg[i], o->steps, o->repeat);
    const summary *base = &sum[0];
    printf("bench scaling %s: median of %ld repeats x %ld steps after %ld untimed; baseline seq 1 worker: "
           "%.3f ms/step, integration (step - collision) %.3f ms\n",
           o->name, o->repeat, o->steps, o->warmup, base->step, base->integ);
    if (trip[0] > 0 && trip[1] > 0)
        printf("  host: a cache line from worker 0 to worker 1 and back in %.0f ns before the runs, %.0f ns after\n",
               trip[0], trip[1]);
    print_times(cfg, sum, ncfg);
    print_counters(cfg, sum, ncfg);
    print_ceiling_share(cfg, sum, ncfg);
    print_reference(o->name);
    size_t npts = 0;
    for (size_t i = 0; i < ncfg; i++) {
        if (cfg[i].failed) continue;
        const summary *s = &sum[i];
        csv_rows(csv, o->name, &cfg[i], s, base);
        /* the plot draws the paper's measure: integration speedup, error bars from the repeats' range */
        pts[npts++] = (scaling_point){cfg[i].method, cores(&cfg[i]), speedup(&cfg[i], base->integ, s->integ),
                                      speedup(&cfg[i], base->integ, s->integ_hi),
                                      speedup(&cfg[i], base->integ, s->integ_lo)};
    }
    fflush(stdout);
    int status = 0;
    if (plot_path &&
        scaling_plot_write(plot_path, o->name, "integration (step - collision)", base->integ, pts, npts) < 0)
        status = 1;
    free(pts);
    free(sum);
    return status;
}

/* The case name of the CSV: a built-in name as is, a file by its base name without ".xml"; commas (the CSV's
 * separator) become '_'. */
static void case_name(const char *scene, char *out, size_t size)
{
    const char *base = pf_scene_builtin(scene, NULL) ? scene : strrchr(scene, '/');
    base = base && base != scene ? base + 1 : scene;
    size_t n = strlen(base);
    if (base != scene && n > 4 && !strcmp(base + n - 4, ".xml")) n -= 4;
    snprintf(out, size, "%.*s", (int)n, base);
    for (char *p = out; *p; p++)
        if (*p == ',' || *p == '\n' || *p == '\r') *p = '_';
}

/* Parses the command line into o and a; 0, -1 after --help, or the exit code 2 after a message. */
static int parse_args(int argc, char **argv, scaling_opts *o, config_axes *a, const char **csv_path,
                      const char **plot_path)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        int bad = 0;
        if (!strcmp(arg, "--no-bind")) {
            o->bind = 0;
            continue;
        } else if (!strcmp(arg, "--bind-caller")) {
            o->bind_caller = 1;
            continue;
        } else if (!strcmp(arg, "--force")) {
            o->force = 1;
            continue;
        } else if (!strcmp(arg, "--ceiling")) {
            a->ceiling = 1;
            continue;
        } else if (arg[0] != '-') {
            if (o->scene) {
                fprintf(stderr, CMD ": one scene at a time ('%s', then '%s')\n", o->scene, arg);
                return 2;
            }
            o->scene = arg;
            continue;
        }
        int got = cli_option_value(argc, argv, &i, "bench scaling", "--threads --executors --partitioners "
                                   "--repartition --steps --warmup --repeat --spin-ns --host-min --host-tries --csv --plot", usage, &val);
        if (got != CLI_VALUE) return got == CLI_HELP ? -1 : 2;
        if (!strcmp(arg, "--threads")) {
            bad = cli_int_list("--threads", val, 1, 4096, a->threads, MAX_LIST, &a->nthreads) != 0;
        } else if (!strcmp(arg, "--executors")) {
            bad = bench_parse_executors("--executors", val, a->ex, 8, &a->nex) != 0;
        } else if (!strcmp(arg, "--partitioners")) {
            bad = parse_partitioners(val, a->parts, 2, &a->nparts) != 0;
            a->label_part = 1;
        } else if (!strcmp(arg, "--repartition")) {
            bad = parse_repartition(val, a->reps, PF_REPART_COUNT, &a->nreps) != 0;
            a->label_rep = a->nreps > 1;
        } else if (!strcmp(arg, "--steps")) {
            bad = cli_long("--steps", val, 1, 100000, &o->steps) != 0;
        } else if (!strcmp(arg, "--warmup")) {
            bad = cli_long("--warmup", val, 0, 1000000, &o->warmup) != 0;
        } else if (!strcmp(arg, "--repeat")) {
            bad = cli_long("--repeat", val, 1, 1000, &o->repeat) != 0;
        } else if (!strcmp(arg, "--spin-ns")) {
            bad = cli_long("--spin-ns", val, 0, 1000000000, &o->spin_ns) != 0;
        } else if (!strcmp(arg, "--host-min")) {
            bad = cli_double("--host-min", val, 0, 10, &o->host_min) != 0;
        } else if (!strcmp(arg, "--host-tries")) {
            bad = cli_long("--host-tries", val, 1, 100, &o->host_tries) != 0;
        } else if (!strcmp(arg, "--csv")) {
            *csv_path = val;
        } else if (!strcmp(arg, "--plot")) {
            *plot_path = val;
        } else {
            return cli_unknown_option("bench scaling", arg, usage);
        }
        if (bad) return 2; /* the parser said why */
    }
    if (!o->scene || a->nthreads == 0) {
        usage(stderr);
        return 2;
    }
    if (o->warmup < 1) o->warmup = 1; /* the recording step is never timed */
    return 0;
}

/* The outputs, checked before the scene loads and any timing: 0, or 2 after a message. */
static int check_outputs(const scaling_opts *o, const char *csv_path, const char *plot_path)
{
    if (csv_path && cli_output_file("bench scaling", "--csv", csv_path, o->force)) return 2;
    if (!plot_path) return 0;
    char svg[4096], png[4096];
    if (scaling_plot_paths(plot_path, svg, png, sizeof svg) || strpbrk(plot_path, "\n\r")) {
        fprintf(stderr, CMD ": --plot: unusable plot file name '%s'\n", plot_path);
        return 2;
    }
    if (cli_output_file("bench scaling", "--plot", svg, o->force) ||
        cli_output_file("bench scaling", "--plot", png, o->force))
        return 2;
    return 0;
}

/* Loads the scene once with the baseline's settings, so that a bad file or name stops before any timing. */
static int check_scene(const scaling_opts *o, config *baseline)
{
    pf_scene *s = NULL;
    int rc = load_scene(o, baseline, &s);
    if (!rc) pf_scene_destroy(s);
    return rc;
}

static int run_scaling(scaling_opts *o, const config_axes *a, const char *csv_path, const char *plot_path,
                       int argc, char **argv);

int bench_scaling(int argc, char **argv)
{
    scaling_opts o = {.steps = 10, .repeat = 1, .warmup = 2, .bind = 1, .spin_ns = 20000, .ranks = 1,
                      .host_tries = 5}; /* warm-up: record, settle caches */
    config_axes a = {.ex = {PF_EXEC_SEQ, PF_EXEC_STATIC, PF_EXEC_BARRIER, PF_EXEC_OMPTASKS},
                     .nex = 4,
                     .parts = {PF_PART_OWNER},
                     .nparts = 1,
                     .reps = {pf_world_default_def().runtime.repartition},
                     .nreps = 1};
    const char *csv_path = NULL, *plot_path = NULL;
    int rc = parse_args(argc, argv, &o, &a, &csv_path, &plot_path);
    if (rc) return rc < 0 ? 0 : rc;
    if (run_mpi_launched()) {
        a.ceiling = 0; /* copies on rank 0 alone would say nothing of the ranks' machines */
        if (run_mpi_start(&o.rank)) return 1;
        o.ranks = run_mpi_ranks();
        o.bind = 0; /* the ranks of one machine would pin their workers to the same cores */
        return run_mpi_end(run_scaling(&o, &a, csv_path, plot_path, argc, argv));
    }
    return run_scaling(&o, &a, csv_path, plot_path, argc, argv);
}

/* The benchmark once the options are known: rank 0 (or the only process) checks the outputs and reports. */
static int run_scaling(scaling_opts *o, const config_axes *a, const char *csv_path, const char *plot_path,
                       int argc, char **argv)
{
    int rc, lead = o->rank == 0;
    if (lead && (rc = check_outputs(o, csv_path, plot_path))) return rc;
    case_name(o->scene, o->name, sizeof o->name);
    size_t ncfg = count_configs(a, o->ranks);
    config *cfg = calloc(ncfg, sizeof *cfg);
    if (!cfg) return 1;
    build_configs(cfg, a, o->ranks);
    if ((rc = check_scene(o, &cfg[0]))) {
        free(cfg);
        return rc;
    }
    int status = 0;
    for (size_t i = 0; i < ncfg; i++)
        if (alloc_samples(&cfg[i], o->steps, o->repeat)) status = 1;
    bench_csv *csv = NULL;
    if (!status && lead && (rc = bench_csv_open(csv_path, o->force, argc, argv, &csv))) status = rc;
    double trip[2] = {0, 0};
    if (!status && o->ranks == 1) trip[0] = host_round_trip_ns(o->bind); /* the host's state, beside the table */
    /* repeats outermost: every configuration meets the same background load, in turn. A configuration of one
     * rank runs on rank 0 alone while the others sleep */
    for (long r = 0; r < o->repeat && !status; r++)
        for (size_t i = 0; i < ncfg; i++) {
            if (!cfg[i].failed && (lead || cfg[i].ranks > 1) && time_host_repeat(o, &cfg[i], r)) cfg[i].failed = 1;
            if (o->ranks > 1) run_mpi_wait_all();
        }
    if (!status && o->ranks == 1) trip[1] = host_round_trip_ns(o->bind);
    if (!status && cfg[0].failed) {
        fprintf(stderr, CMD ": the seq baseline failed; no speedups\n");
        status = 1;
    }
    if (!status) {
        for (size_t i = 0; i < ncfg; i++)
            if (cfg[i].failed) status = 1;
        if (lead && report(o, cfg, ncfg, csv, plot_path, trip)) status = 1;
    }
    if (csv && bench_csv_close(csv, !status)) status = 1;
    for (size_t i = 0; i < ncfg; i++)
        free_samples(&cfg[i]);
    free(cfg);
    return status;
}
