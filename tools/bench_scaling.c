/* physflow bench scaling: median ms per step of a physics scene per executor and worker count, and the speedup
 * against seq at 1 worker (paper 004 §4, figures 5 and 7). Setup and the recording step are excluded. */
#include "bench_csv.h"
#include "bench_util.h"
#include "cli_args.h"
#include "commands.h"
#include "physics_scenes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 32

/* Median ms of `steps` single steps after `warmup` steps (the first records and compiles); < 0 on failure. */
static double time_scene(const char *scene, pf_executor e, int workers, long steps, long warmup, int bind)
{
    pf_world_def def = pf_world_default_def();
    def.workers = workers;
    def.bind = bind;
    def.executor = e;
    def.quiet = 1;
    pf_world *w = NULL;
    if (scene_create(scene, &def, &w) != PF_OK || pf_world_step(w, (uint32_t)warmup) != PF_OK) {
        fprintf(stderr, "physflow bench scaling: %s\n", pf_last_error());
        pf_world_destroy(w);
        return -1;
    }
    double *t = malloc((size_t)steps * sizeof *t);
    double med = -1;
    if (t) {
        long k = 0;
        for (; k < steps; k++) {
            double t0 = bench_now_s();
            if (pf_world_step(w, 1) != PF_OK) break;
            t[k] = (bench_now_s() - t0) * 1e3;
        }
        if (k == steps) {
            med = bench_median(t, (size_t)steps);
        } else {
            fprintf(stderr, "physflow bench scaling: %s\n", pf_last_error());
        }
    }
    free(t);
    pf_world_destroy(w);
    return med;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: physflow bench scaling SCENE --threads LIST [--executors LIST] [--steps N] [--no-bind]\n"
                 "                              [--csv FILE]\n"
                 "  SCENE: %s. Median ms per step (setup and the recording step excluded) of N steps\n"
                 "  (default 30) per executor (default seq,static,barrier,omptasks) and worker count, and the\n"
                 "  speedup against seq at 1 worker (always measured). seq runs at 1 worker only.\n"
                 "  --no-bind leaves worker threads unpinned (on a machine shared with other pinned jobs).\n",
            scene_names());
}

int bench_scaling(int argc, char **argv)
{
    const char *scene = NULL, *csv_path = NULL;
    long threads[MAX_LIST] = {1}, steps = 30;
    size_t nthreads = 0, nex = 4;
    int bind = 1;
    pf_executor ex[8] = {PF_EXEC_SEQ, PF_EXEC_STATIC, PF_EXEC_BARRIER, PF_EXEC_OMPTASKS};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (cli_int_list("--threads", argv[++i], 1, 4096, threads, MAX_LIST, &nthreads)) return 2;
        } else if (!strcmp(argv[i], "--executors") && i + 1 < argc) {
            if (bench_parse_executors("--executors", argv[++i], ex, 8, &nex)) return 2;
        } else if (!strcmp(argv[i], "--steps") && i + 1 < argc) {
            if (cli_long("--steps", argv[++i], 1, 100000, &steps)) return 2;
        } else if (!strcmp(argv[i], "--no-bind")) {
            bind = 0;
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            csv_path = argv[++i];
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
    bench_csv *csv = bench_csv_open(csv_path, argc, argv);
    if (!csv) return 1;
    const long warmup = 3;
    double base = time_scene(scene, PF_EXEC_SEQ, 1, steps, warmup, bind);
    if (base < 0) {
        bench_csv_close(csv);
        return 1;
    }
    printf("bench scaling %s: median of %ld steps; baseline seq 1 worker %.3f ms/step\n", scene, steps, base);
    printf("  %-9s %7s %12s %8s\n", "executor", "workers", "ms/step", "speedup");
    int status = 0;
    for (size_t e = 0; e < nex; e++)
        for (size_t t = 0; t < nthreads; t++) {
            int workers = (int)threads[t];
            if (ex[e] == PF_EXEC_SEQ && workers != 1) continue;
            double ms = ex[e] == PF_EXEC_SEQ ? base : time_scene(scene, ex[e], workers, steps, warmup, bind);
            if (ms < 0) {
                status = 1;
                continue;
            }
            printf("  %-9s %7d %12.3f %8.2f\n", pf_executor_name(ex[e]), workers, ms, base / ms);
            fflush(stdout);
            bench_csv_row(csv, "scaling", scene, pf_executor_name(ex[e]), workers, "ms_per_step", ms);
            bench_csv_row(csv, "scaling", scene, pf_executor_name(ex[e]), workers, "speedup", base / ms);
        }
    if (bench_csv_close(csv)) status = 1;
    return status;
}
