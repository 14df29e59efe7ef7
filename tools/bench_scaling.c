/* physflow bench scaling: ms per step of a physics scene per executor (and partitioner) and worker count,
 * split into collision, graph update and integration, with the speedup and efficiency against seq at 1 worker
 * (paper 004 §4, figures 5-7). Setup and the recording step are excluded; repeats interleave the
 * configurations so that a noisy machine slows them alike. */
#include "bench_csv.h"
#include "bench_util.h"
#include "cli_args.h"
#include "commands.h"
#include "physics_scenes.h"
#include "scaling_plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 32
#define MAX_CONFIGS (1 + 3 * 8 * MAX_LIST)

/* One measured configuration and its samples over all repeats. */
typedef struct config {
    pf_executor ex;
    pf_partitioner part;
    int workers;
    char method[32]; /* "seq", "static", "static/metis", ... as written in the CSV */
    double *step;    /* ms of each timed step, repeats one after another */
    double *col;     /* ms of the collision stage of each timed step (0 without one) */
    double *integ;   /* step - collision - graph update of each timed step */
    double *upd;     /* per repeat: ms of graph updates during the timed steps / steps */
    long updates;    /* graph updates during the timed steps, all repeats */
    int failed;
} config;

/* The ms that graph updates took during the latest step: nonzero when pf_world_last_update's count moved. */
static double update_ms_since(const pf_world *w, uint32_t *count, long *updates)
{
    pf_world_update u;
    uint32_t now = 0;
    if (pf_world_last_update(w, &u, &now) != PF_OK || now == *count) return 0;
    *updates += now - *count;
    *count = now;
    return u.ms_record + u.ms_runtime;
}

/* Runs repeat `r` of configuration c: a fresh world, `warmup` untimed steps (the first records and compiles),
 * then `steps` timed ones. Returns 0 or -1 (message on stderr). */
static int time_repeat(const char *scene, config *c, long r, long steps, long warmup, int bind)
{
    pf_world_def def = pf_world_default_def();
    def.workers = c->workers;
    def.bind = bind;
    def.executor = c->ex;
    def.partitioner = c->part;
    def.quiet = 1;
    pf_world *w = NULL;
    int rc = scene_create(scene, &def, &w);
    if (rc == PF_OK) rc = pf_world_step(w, (uint32_t)warmup);
    pf_collision_stats cs;
    int has_collision = rc == PF_OK && pf_world_collision_stats(w, &cs) == PF_OK;
    uint32_t count = 0;
    long updates = 0;
    double upd_total = 0;
    if (rc == PF_OK) update_ms_since(w, &count, &updates); /* the count so far: recording is not timed */
    updates = 0;
    for (long k = 0; k < steps && rc == PF_OK; k++) {
        double t0 = bench_now_s();
        rc = pf_world_step(w, 1);
        double ms = (bench_now_s() - t0) * 1e3;
        double col = has_collision && pf_world_collision_stats(w, &cs) == PF_OK ? cs.ms : 0;
        double upd = update_ms_since(w, &count, &updates);
        size_t i = (size_t)(r * steps + k);
        c->step[i] = ms;
        c->col[i] = col;
        c->integ[i] = ms - col - upd;
        upd_total += upd;
    }
    if (rc != PF_OK)
        fprintf(stderr, "physflow bench scaling: %s, %d workers: %s\n", c->method, c->workers,
                pf_last_error());
    c->upd[r] = upd_total / (double)steps;
    c->updates += updates;
    pf_world_destroy(w);
    return rc == PF_OK ? 0 : -1;
}

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: physflow bench scaling SCENE --threads LIST [--executors LIST] [--partitioners LIST]\n"
        "                              [--steps N] [--repeat R] [--no-bind] [--csv FILE] [--plot FILE]\n"
        "  SCENE: %s. Per executor and worker count: the median ms per step over R repeats of N steps\n"
        "  (defaults 10 and 1; each repeat builds the scene afresh, setup and the recording step excluded),\n"
        "  the range of the per-repeat medians, the split into collision, graph update and integration,\n"
        "  and the speedup and efficiency against seq at 1 worker (always measured). seq runs at 1 worker\n"
        "  only; repeats interleave the configurations.\n"
        "  --executors    default seq,static,barrier,omptasks\n"
        "  --partitioners for static: owner,metis (default owner; when given, static's method reads\n"
        "                 static/PARTITIONER)\n"
        "  --no-bind      leaves worker threads unpinned (on a machine shared with other pinned jobs)\n"
        "  --plot FILE    speedup against workers per method with gnuplot, as FILE.svg and FILE.png (a FILE\n"
        "                 ending in .svg or .png names one of the two), error bars from the repeats' range;\n"
        "                 without gnuplot a warning, exit 0\n",
        scene_names());
}

static int parse_partitioners(const char *text, pf_partitioner *out, size_t cap, size_t *n)
{
    char buf[256], *names[8];
    if (cli_str_list("--partitioners", text, buf, sizeof buf, names, 8, n)) return -1;
    if (*n > cap) return -1;
    for (size_t k = 0; k < *n; k++)
        if (pf_partitioner_parse(names[k], &out[k]) != PF_OK) {
            fprintf(stderr,
                    "physflow bench scaling: --partitioners: unknown partitioner '%s' (owner, metis)\n",
                    names[k]);
            return -1;
        }
    return 0;
}

static config *add_config(config *cfg, size_t *n, pf_executor e, pf_partitioner p, int workers,
                          int label_part)
{
    config *c = &cfg[(*n)++];
    memset(c, 0, sizeof *c);
    c->ex = e;
    c->part = p;
    c->workers = workers;
    if (label_part)
        snprintf(c->method, sizeof c->method, "%s/%s", pf_executor_name(e), pf_partitioner_name(p));
    else
        snprintf(c->method, sizeof c->method, "%s", pf_executor_name(e));
    return c;
}

/* seq at 1 worker first (the baseline), then every executor x partitioner x worker count. */
static size_t build_configs(config *cfg, const pf_executor *ex, size_t nex, const pf_partitioner *parts,
                            size_t nparts, int label_part, const long *threads, size_t nthreads)
{
    size_t n = 0;
    add_config(cfg, &n, PF_EXEC_SEQ, PF_PART_OWNER, 1, 0);
    for (size_t e = 0; e < nex; e++) {
        if (ex[e] == PF_EXEC_SEQ) continue;
        size_t np = ex[e] == PF_EXEC_STATIC ? nparts : 1;
        for (size_t p = 0; p < np; p++)
            for (size_t t = 0; t < nthreads; t++)
                add_config(cfg, &n, ex[e], ex[e] == PF_EXEC_STATIC ? parts[p] : PF_PART_OWNER,
                           (int)threads[t], label_part && ex[e] == PF_EXEC_STATIC);
    }
    return n;
}

static int alloc_samples(config *c, long steps, long repeat)
{
    size_t n = (size_t)(steps * repeat);
    c->step = malloc(n * sizeof *c->step);
    c->col = malloc(n * sizeof *c->col);
    c->integ = malloc(n * sizeof *c->integ);
    c->upd = malloc((size_t)repeat * sizeof *c->upd);
    return c->step && c->col && c->integ && c->upd ? 0 : -1;
}

static void free_samples(config *c)
{
    free(c->step);
    free(c->col);
    free(c->integ);
    free(c->upd);
}

/* The medians of one configuration (they sort its samples), and the range of its per-repeat medians: how much
 * the machine's background load moved it between repeats. */
typedef struct summary {
    double step, col, upd, integ;
    double step_lo, step_hi;
} summary;

static summary summarise(config *c, long steps, long repeat)
{
    summary s = {0};
    for (long r = 0; r < repeat; r++) {
        double m = bench_median(c->step + r * steps, (size_t)steps);
        if (r == 0 || m < s.step_lo) s.step_lo = m;
        if (r == 0 || m > s.step_hi) s.step_hi = m;
    }
    size_t n = (size_t)(steps * repeat);
    s.step = bench_median(c->step, n);
    s.col = bench_median(c->col, n);
    s.upd = bench_median(c->upd, (size_t)repeat);
    s.integ = bench_median(c->integ, n);
    return s;
}

static int report(const char *scene, config *cfg, size_t ncfg, long steps, long repeat, bench_csv *csv,
                  const char *plot_path)
{
    summary base = summarise(&cfg[0], steps, repeat);
    printf("bench scaling %s: median of %ld repeats x %ld steps; baseline seq 1 worker %.3f ms/step\n", scene,
           repeat, steps, base.step);
    printf("  %-13s %7s %10s %17s %10s %10s %10s %8s %8s %7s\n", "method", "workers", "ms/step",
           "repeats' range", "collision", "update", "integr.", "speedup", "effic.", "updates");
    scaling_point *pts = calloc(ncfg, sizeof *pts);
    size_t npts = 0;
    for (size_t i = 0; i < ncfg; i++) {
        config *c = &cfg[i];
        if (c->failed) continue;
        summary s = i == 0 ? base : summarise(c, steps, repeat);
        double speedup = base.step / s.step, eff = speedup / c->workers;
        printf("  %-13s %7d %10.3f %8.3f-%-8.3f %10.3f %10.3f %10.3f %8.2f %8.2f %7ld\n", c->method,
               c->workers, s.step, s.step_lo, s.step_hi, s.col, s.upd, s.integ, speedup, eff, c->updates);
        const char *m = c->method;
        bench_csv_row(csv, "scaling", scene, m, c->workers, "ms_per_step", s.step);
        bench_csv_row(csv, "scaling", scene, m, c->workers, "ms_per_step_lo", s.step_lo);
        bench_csv_row(csv, "scaling", scene, m, c->workers, "ms_per_step_hi", s.step_hi);
        bench_csv_row(csv, "scaling", scene, m, c->workers, "ms_collision", s.col);
        bench_csv_row(csv, "scaling", scene, m, c->workers, "ms_update", s.upd);
        bench_csv_row(csv, "scaling", scene, m, c->workers, "ms_integration", s.integ);
        bench_csv_row(csv, "scaling", scene, m, c->workers, "speedup", speedup);
        bench_csv_row(csv, "scaling", scene, m, c->workers, "efficiency", eff);
        bench_csv_row(csv, "scaling", scene, m, c->workers, "updates", (double)c->updates);
        if (pts)
            pts[npts++] =
                (scaling_point){m, c->workers, speedup, base.step / s.step_hi, base.step / s.step_lo};
    }
    fflush(stdout);
    int status = 0;
    if (plot_path && (!pts || scaling_plot_write(plot_path, scene, base.step, pts, npts) < 0)) status = 1;
    free(pts);
    return status;
}

int bench_scaling(int argc, char **argv)
{
    const char *scene = NULL, *csv_path = NULL, *plot_path = NULL;
    long threads[MAX_LIST] = {1}, steps = 10, repeat = 1;
    size_t nthreads = 0, nex = 4, nparts = 1;
    int bind = 1, label_part = 0;
    pf_executor ex[8] = {PF_EXEC_SEQ, PF_EXEC_STATIC, PF_EXEC_BARRIER, PF_EXEC_OMPTASKS};
    pf_partitioner parts[8] = {PF_PART_OWNER};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (cli_int_list("--threads", argv[++i], 1, 4096, threads, MAX_LIST, &nthreads)) return 2;
        } else if (!strcmp(argv[i], "--executors") && i + 1 < argc) {
            if (bench_parse_executors("--executors", argv[++i], ex, 8, &nex)) return 2;
        } else if (!strcmp(argv[i], "--partitioners") && i + 1 < argc) {
            if (parse_partitioners(argv[++i], parts, 2, &nparts)) return 2;
            label_part = 1;
        } else if (!strcmp(argv[i], "--steps") && i + 1 < argc) {
            if (cli_long("--steps", argv[++i], 1, 100000, &steps)) return 2;
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            if (cli_long("--repeat", argv[++i], 1, 1000, &repeat)) return 2;
        } else if (!strcmp(argv[i], "--no-bind")) {
            bind = 0;
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            csv_path = argv[++i];
        } else if (!strcmp(argv[i], "--plot") && i + 1 < argc) {
            plot_path = argv[++i];
        } else if (argv[i][0] != '-' && !scene) {
            scene = argv[i];
        } else {
            fprintf(stderr, "physflow bench scaling: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!scene || nthreads == 0) {
        usage(stderr);
        return 2;
    }
    if (!scene_known(scene)) {
        fprintf(stderr, "physflow bench scaling: unknown scene '%s' (known: %s)\n", scene, scene_names());
        return 2;
    }
    config *cfg = calloc(MAX_CONFIGS, sizeof *cfg);
    if (!cfg) return 1;
    size_t ncfg = build_configs(cfg, ex, nex, parts, nparts, label_part, threads, nthreads);
    int status = 0;
    for (size_t i = 0; i < ncfg; i++)
        if (alloc_samples(&cfg[i], steps, repeat)) status = 1;
    bench_csv *csv = status ? NULL : bench_csv_open(csv_path, argc, argv);
    if (!csv) status = 1;
    const long warmup = 2; /* the first step records and compiles, the second settles caches */
    /* repeats outermost: every configuration meets the same background load, in turn */
    for (long r = 0; r < repeat && !status; r++)
        for (size_t i = 0; i < ncfg; i++)
            if (!cfg[i].failed && time_repeat(scene, &cfg[i], r, steps, warmup, bind)) cfg[i].failed = 1;
    if (!status && cfg[0].failed) {
        fprintf(stderr, "physflow bench scaling: the seq baseline failed; no speedups\n");
        status = 1;
    }
    if (!status) {
        for (size_t i = 0; i < ncfg; i++)
            if (cfg[i].failed) status = 1;
        if (report(scene, cfg, ncfg, steps, repeat, csv, plot_path)) status = 1;
    }
    if (csv && bench_csv_close(csv)) status = 1;
    for (size_t i = 0; i < ncfg; i++)
        free_samples(&cfg[i]);
    free(cfg);
    return status;
}
