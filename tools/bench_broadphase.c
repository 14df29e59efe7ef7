/* physflow bench broadphase: Poirrier's (2009) falling-spheres benchmark (§6) run through every broad phase, printed
 * beside the paper's Tables 2 and 3 and written as CSV rows. */
#include "bench_csv.h"
#include "cli_args.h"
#include "rng.h"
#include "commands.h"
#include "host_check.h"

#include "physflow/collision.h"
#include "physflow/runtime.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Poirrier 2009 Table 2 (and reference/poirrier_table2_methods.csv): CPU ms per step, steps 50-60, density 0.1, one
 * core of an Intel E2180 at 2 GHz; 0 = not run by the paper. Candidate pairs: kd-tree-1 raw candidates. */
/* Poirrier 2009 Table 3 (reference/poirrier_table3_memory.csv): kd-tree-1 vs kd-tree-2 (unique pairs + bounding-sphere
 * filter), same machine; resident memory in MB. */
static const struct paper_row {
    long n;
    double quadratic_ms, sap_ms, delaunay_ms, kd1_ms, kd2_ms;
    double kd1_pairs, kd2_pairs, delaunay_pairs, sap_pairs;
    double delaunay_mb, kd1_mb, kd2_mb;
} paper_rows[] = {
    {50000, 23818, 64662, 11350, 211, 297, 3.30e6, 277806, 365396, 471044, 32, 9, 18},
    {100000, 94813, 266840, 23616, 434, 620, 5.84e6, 565180, 732000, 972680, 76, 17, 35},
    {500000, 0, 0, 118408, 2261, 3288, 35.8e6, 3.01e6, 3.67e6, 0, 312, 82, 193},
    {1000000, 0, 0, 240563, 4194, 6153, 78.9e6, 6.01e6, 7.34e6, 0, 623, 144, 353},
    {5000000, 0, 0, 0, 18885, 24205, 518e6, 30.4e6, 0, 0, 0, 558, 1500},
};

#define MAX_LIST 32

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* CPU time of the whole process: with one worker, the call's own time, less disturbed by other processes on a
 * shared machine than the wall clock. */
static double cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of ts[1 .. k] (sorted in place): the timed steps after the first. */
static double median_after_first(double *ts, size_t k)
{
    qsort(ts + 1, k, sizeof *ts, dbl_cmp);
    return k % 2 ? ts[1 + k / 2] : 0.5 * (ts[k / 2] + ts[k / 2 + 1]);
}

/* The spheres of Poirrier 2009, §6: unit radius, uniform in a cube sized for volume fraction d, falling under gravity
 * onto a floor; after each step every reported pair that interpenetrates is pushed apart along its normal, pair
 * by pair ("non-interpenetration enforced pairwise, not globally"), so the set packs over time. */
typedef struct spheres {
    size_t n;
    double *x, *v; /* 3n each */
    double radius, edge;
} spheres;

static int spheres_init(spheres *s, size_t n, double density, uint64_t seed)
{
    s->n = n;
    s->radius = 1.0;
    s->edge = cbrt((double)n * (4.0 / 3.0) * M_PI / density);
    s->x = malloc(3 * n * sizeof *s->x);
    s->v = calloc(3 * n, sizeof *s->v);
    if (!s->x || !s->v) return -1;
    rng r = {seed};
    for (size_t i = 0; i < 3 * n; i++) s->x[i] = s->radius + (s->edge - 2 * s->radius) * urand(&r);
    return 0;
}

static void spheres_boxes(const spheres *s, pf_aabb *b)
{
    for (size_t i = 0; i < s->n; i++)
        for (int a = 0; a < 3; a++) {
            b[i].min[a] = s->x[3 * i + a] - s->radius;
            b[i].max[a] = s->x[3 * i + a] + s->radius;
        }
}

static void spheres_step(spheres *s, const pf_pair *pairs, size_t np, double dt)
{
    const double g = 9.81, r2 = 2 * s->radius;
    for (size_t k = 0; k < np; k++) {
        double *a = &s->x[3 * pairs[k].i], *b = &s->x[3 * pairs[k].j];
        double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (dist >= r2) continue;
        if (dist < 1e-12) {
            d[0] = 0, d[1] = 0, d[2] = 1, dist = 1;
        }
        double push = 0.5 * (r2 - (dist < 1e-12 ? 0 : dist)) / dist;
        for (int c = 0; c < 3; c++) {
            a[c] -= push * d[c];
            b[c] += push * d[c];
        }
    }
    for (size_t i = 0; i < s->n; i++) {
        double *x = &s->x[3 * i], *v = &s->v[3 * i];
        v[2] -= g * dt;
        for (int c = 0; c < 3; c++) x[c] += v[c] * dt;
        if (x[2] < s->radius) { /* the floor */
            x[2] = s->radius;
            v[2] = 0.0;
        }
    }
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: physflow bench broadphase [--methods LIST] [--n LIST] [--density D] [--steps S]\n"
            "                                 [--threads LIST] [--runner omp|team] [--warmup W]\n"
            "                                 [--csv FILE [--force]]\n"
            "\n"
            "Poirrier 2009's benchmark: N unit spheres at volume fraction D (default 0.1) falling onto a floor, pairs\n"
            "pushed apart after each step (the pairs of the first exact method listed drive the motion; every\n"
            "method sees the same boxes). Only the broad-phase call is timed. Defaults: --methods\n"
            "kd,kd-raw,grid,sap,hhash,mlhash and the peers that are built, --n 10000,100000, --steps 10,\n"
            "--threads 1, --runner omp, --warmup 50. --runner team runs the parallel parts on a runtime's worker\n"
            "team (pf_runtime_parallel, one runtime per worker count, workers pinned as a world's are) instead of\n"
            "OpenMP threads: what the collision stage of a world does. --warmup W first runs W untimed steps (pairs from the first exact\n"
            "method), so that by default the timed steps are the paper's steps 50-60: the spheres fall fast and\n"
            "a quarter of them change cells each step (--warmup 0 times the first steps, when nearly nothing moves).\n"
            "Per method: ms_build (first timed step, from a fresh broad phase), ms_per_step (median of the later\n"
            "steps), cpu_ms (median CPU time of the process over the same calls, every worker summed: with one\n"
            "worker the call's own time, less disturbed by other processes than the wall clock), candidates and\n"
            "pairs (last step), rss_mb (stats.bytes / 1e6: the broad phase's working memory beyond the input\n"
            "boxes, the output pairs buffer included; not the process RSS) and bytes_per_object.\n"
            "Then, per worker count, kd's speedup against every other method on the same boxes (CSV metric\n"
            "kd_speedup). Paper figures (Tables 2, 3: one core of a 2 GHz E2180, steps 50-60, kd-tree-1 = our\n"
            "kd-raw, kd-tree-2 ~ our kd) are printed beside ours.\n");
}

/* kd against every other method run on the same boxes in the same process, worker count by worker count:
 * "kd_speedup" = the other's ms_per_step / kd's. */
static void print_kd_ratios(bench_csv *csv, const char *case_name, const pf_broadphase_method *methods, size_t nm,
                            const long *ths, size_t nt, pf_broadphase *const *bp, const double *meds)
{
    size_t kd = nm;
    for (size_t m = 0; m < nm; m++)
        if (methods[m] == PF_BP_KD) kd = m;
    if (kd == nm) return;
    for (size_t t = 0; t < nt; t++) {
        size_t k = kd * nt + t;
        if (!bp[k] || !(meds[k] > 0)) continue;
        int any = 0;
        for (size_t m = 0; m < nm; m++) {
            size_t id = m * nt + t;
            if (m == kd || !bp[id]) continue;
            double r = meds[id] / meds[k];
            printf("%s %s %.1fx", any ? "," : "kd per step against the others (same boxes, same process),",
                   pf_broadphase_method_name(methods[m]), r);
            bench_csv_row(csv, "broadphase", case_name, pf_broadphase_method_name(methods[m]), (int)ths[t],
                          "kd_speedup", r);
            any = 1;
        }
        if (any) printf(" (%ld worker%s)\n", ths[t], ths[t] == 1 ? "" : "s");
    }
}

/* pf_runtime_parallel as a broad phase's runner. */
static int team_runner(void *rt, void (*fn)(void *ctx, int worker, int workers), void *ctx)
{
    return pf_runtime_parallel(rt, fn, ctx);
}

int bench_broadphase(int argc, char **argv)
{
    char mbuf[1024];
    char *mnames[MAX_LIST];
    size_t nm = 0;
    long ns[MAX_LIST] = {10000, 100000}, ths[MAX_LIST] = {1};
    size_t nn = 2, nt = 1;
    double density = 0.1;
    long steps = 10, warmup = 50;
    const char *csv_path = NULL;
    const char *methods_arg = NULL;
    int force = 0, team = 0;
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k], *v;
        if (!strcmp(a, "--force")) {
            force = 1;
            continue;
        }
        int got = cli_option_value(argc, argv, &k, "bench broadphase",
                                   "--methods --n --threads --runner --density --steps --warmup --csv", usage, &v);
        if (got != CLI_VALUE) return got == CLI_HELP ? 0 : 2;
        if (!strcmp(a, "--methods")) methods_arg = v;
        else if (!strcmp(a, "--n")) {
            if (cli_int_list("--n", v, 2, 100000000, ns, MAX_LIST, &nn)) return 2;
        } else if (!strcmp(a, "--threads")) {
            if (cli_int_list("--threads", v, 1, 1024, ths, MAX_LIST, &nt)) return 2;
        } else if (!strcmp(a, "--runner")) {
            if (strcmp(v, "omp") && strcmp(v, "team")) {
                fprintf(stderr, "physflow bench broadphase: --runner %s: expected omp or team\n", v);
                return 2;
            }
            team = !strcmp(v, "team");
        } else if (!strcmp(a, "--density")) {
            if (cli_double("--density", v, 1e-6, 1.0, &density)) return 2;
        } else if (!strcmp(a, "--steps")) {
            if (cli_long("--steps", v, 2, 100000, &steps)) return 2;
        } else if (!strcmp(a, "--warmup")) {
            if (cli_long("--warmup", v, 0, 100000, &warmup)) return 2;
        } else if (!strcmp(a, "--csv")) csv_path = v;
        else return cli_unknown_option("bench broadphase", a, usage);
    }
    pf_broadphase_method methods[PF_BP_METHOD_COUNT];
    if (methods_arg) {
        if (cli_str_list("--methods", methods_arg, mbuf, sizeof mbuf, mnames, MAX_LIST, &nm)) return 2;
        if (nm > PF_BP_METHOD_COUNT) nm = PF_BP_METHOD_COUNT;
        for (size_t k = 0; k < nm; k++) {
            if (pf_broadphase_method_parse(mnames[k], &methods[k])) {
                fprintf(stderr, "physflow bench broadphase: %s\n", pf_last_error());
                return 2;
            }
            if (!pf_broadphase_method_available(methods[k])) {
                fprintf(stderr, "physflow bench broadphase: method %s is not built\n", mnames[k]);
                return 2;
            }
        }
    } else {
        const pf_broadphase_method defaults[] = {PF_BP_KD,     PF_BP_KD_RAW,      PF_BP_GRID,       PF_BP_SAP,
                                                 PF_BP_HHASH,  PF_BP_MLHASH,      PF_BP_BULLET_DBVT,
                                                 PF_BP_BULLET_SAP, PF_BP_CGAL};
        for (size_t k = 0; k < sizeof defaults / sizeof defaults[0]; k++)
            if (pf_broadphase_method_available(defaults[k])) methods[nm++] = defaults[k];
    }
    int bullet_sap_asked = methods_arg != NULL;
    /* the motion follows the first exact method (kd-raw's candidates are not pairs) */
    size_t driver = nm;
    for (size_t k = 0; k < nm && driver == nm; k++)
        if (methods[k] != PF_BP_KD_RAW) driver = k;

    bench_csv *csv = NULL;
    int csv_rc = bench_csv_open(csv_path, force, argc, argv, &csv);
    if (csv_rc) return csv_rc;
    char machine[512];
    bench_machine_summary(machine, sizeof machine);
    printf("# falling spheres (Poirrier 2009, §6), density %g, %ld untimed warm-up steps then %ld timed steps; %s\n",
           density, warmup, steps, machine);
    printf("# ms_per_step = median of timed steps 1..%ld (the pf_broadphase_pairs call only); MB, B/object = "
           "stats.bytes: working memory beyond the input boxes, output pairs buffer included\n",
           steps - 1);
    int status = 0;
    /* --runner team: one runtime per worker count, its team running the broad phases' parallel parts */
    pf_runtime *rts[MAX_LIST] = {NULL};
    for (size_t t = 0; t < nt && team && !status; t++) {
        pf_runtime_def rd = pf_runtime_default_def();
        rd.workers = (int)ths[t];
        if (pf_runtime_create(&rd, &rts[t])) {
            fprintf(stderr, "physflow bench broadphase: %s\n", pf_last_error());
            status = 1;
        }
    }
    printf("# workers: %s\n", team ? "a runtime's worker team (pf_runtime_parallel)" : "OpenMP threads");
    double trip = host_round_trip_ns(1); /* the host's state: the 2-worker figures follow it (host_check.h) */
    if (trip > 0) printf("# host: a cache line from core 0 to core 1 and back in %.0f ns\n", trip);
    for (size_t in = 0; in < nn && !status; in++) {
        size_t n = (size_t)ns[in];
        spheres sp;
        pf_aabb *boxes = malloc(n * sizeof *boxes);
        size_t nbp = nm * nt;
        pf_broadphase **bp = calloc(nbp ? nbp : 1, sizeof *bp);
        double *times = calloc(nbp * (size_t)steps + 1, sizeof *times);
        double *cpu = calloc(nbp * (size_t)steps + 1, sizeof *cpu);
        pf_broadphase_stats *last = calloc(nbp + 1, sizeof *last);
        if (!boxes || !bp || !times || !cpu || !last || spheres_init(&sp, n, density, 0x9e3779b97f4a7c15ull ^ n)) {
            fprintf(stderr, "physflow bench broadphase: out of memory for %zu spheres\n", n);
            bench_csv_close(csv, 0);
            return 1;
        }
        for (size_t m = 0; m < nm; m++)
            for (size_t t = 0; t < nt; t++) {
                if (methods[m] == PF_BP_BULLET_SAP && !bullet_sap_asked && n > 20000) {
                    /* its proxy insertion takes minutes past ~1e5 boxes: only when asked for by name */
                    if (t == 0) printf("# bullet-sap skipped at N = %zu (ask with --methods)\n", n);
                    continue;
                }
                pf_broadphase_def def = pf_broadphase_default_def();
                def.method = methods[m];
                def.threads = (int)ths[t];
                if (rts[t]) {
                    def.parallel = team_runner;
                    def.parallel_ctx = rts[t];
                }
                if (pf_broadphase_create(&def, &bp[m * nt + t])) {
                    fprintf(stderr, "physflow bench broadphase: %s\n", pf_last_error());
                    status = 1;
                }
            }
        /* untimed warm-up: the first exact method moves the spheres; its broad phase is then thrown away so that
         * every method's first timed step is a fresh build */
        if (warmup > 0 && driver < nm && !status) {
            pf_broadphase_def def = pf_broadphase_default_def();
            def.method = methods[driver];
            def.threads = (int)ths[nt - 1];
            if (rts[nt - 1]) {
                def.parallel = team_runner;
                def.parallel_ctx = rts[nt - 1];
            }
            pf_broadphase *wb = NULL;
            if (pf_broadphase_create(&def, &wb)) {
                fprintf(stderr, "physflow bench broadphase: %s\n", pf_last_error());
                status = 1;
            }
            for (long step = 0; step < warmup && !status; step++) {
                const pf_pair *p;
                size_t np;
                spheres_boxes(&sp, boxes);
                if (pf_broadphase_pairs(wb, boxes, n, &p, &np, NULL)) {
                    fprintf(stderr, "physflow bench broadphase: warm-up: %s\n", pf_last_error());
                    status = 1;
                } else {
                    spheres_step(&sp, p, np, 0.02);
                }
            }
            pf_broadphase_destroy(wb);
        }
        for (long step = 0; step < steps && !status; step++) {
            spheres_boxes(&sp, boxes);
            const pf_pair *drive = NULL;
            size_t ndrive = 0;
            for (size_t m = 0; m < nm && !status; m++)
                for (size_t t = 0; t < nt && !status; t++) {
                    const pf_pair *p;
                    size_t np;
                    size_t id = m * nt + t;
                    if (!bp[id]) continue;
                    double t0 = now_ms(), c0 = cpu_ms();
                    int rc = pf_broadphase_pairs(bp[id], boxes, n, &p, &np, &last[id]);
                    times[id * (size_t)steps + (size_t)step] = now_ms() - t0;
                    cpu[id * (size_t)steps + (size_t)step] = cpu_ms() - c0;
                    if (rc) {
                        fprintf(stderr, "physflow bench broadphase: %s: %s\n", pf_broadphase_method_name(methods[m]),
                                pf_last_error());
                        status = 1;
                    }
                    if (m == driver && t == 0) {
                        drive = p;
                        ndrive = np;
                    }
                }
            if (!status) spheres_step(&sp, drive, ndrive, 0.02);
        }
        if (!status) {
            const struct paper_row *row = NULL;
            for (size_t r = 0; r < sizeof paper_rows / sizeof paper_rows[0]; r++)
                if (paper_rows[r].n == (long)n) row = &paper_rows[r];
            printf("\nN = %zu\n%-12s %7s %10s %11s %11s %12s %12s %9s %9s\n", n, "method", "workers", "ms_build",
                   "ms_per_step", "cpu_ms", "candidates", "pairs", "MB", "B/object");
            char case_name[64];
            snprintf(case_name, sizeof case_name, team ? "spheres:%zu:team" : "spheres:%zu", n);
            double *meds = calloc(nbp + 1, sizeof *meds);
            for (size_t m = 0; m < nm; m++)
                for (size_t t = 0; t < nt; t++) {
                    size_t id = m * nt + t;
                    if (!bp[id]) continue;
                    double *ts = times + id * (size_t)steps;
                    double build = ts[0];
                    double med = median_after_first(ts, (size_t)steps - 1);
                    double cpu_med = median_after_first(cpu + id * (size_t)steps, (size_t)steps - 1);
                    if (meds) meds[id] = med;
                    const char *name = pf_broadphase_method_name(methods[m]);
                    double mb = (double)last[id].bytes / 1e6;
                    printf("%-12s %7ld %10.2f %11.2f %11.2f %12llu %12llu %9.1f %9.1f\n", name, ths[t], build, med, cpu_med,
                           (unsigned long long)last[id].candidates, (unsigned long long)last[id].pairs, mb,
                           (double)last[id].bytes / (double)n);
                    int w = (int)ths[t];
                    bench_csv_row(csv, "broadphase", case_name, name, w, "ms_build", build);
                    bench_csv_row(csv, "broadphase", case_name, name, w, "ms_per_step", med);
                    bench_csv_row(csv, "broadphase", case_name, name, w, "ms_cpu_per_step", cpu_med);
                    bench_csv_row(csv, "broadphase", case_name, name, w, "candidates", (double)last[id].candidates);
                    bench_csv_row(csv, "broadphase", case_name, name, w, "pairs", (double)last[id].pairs);
                    bench_csv_row(csv, "broadphase", case_name, name, w, "rss_mb", mb);
                    bench_csv_row(csv, "broadphase", case_name, name, w, "bytes_per_object",
                                  (double)last[id].bytes / (double)n);
                }
            if (meds) print_kd_ratios(csv, case_name, methods, nm, ths, nt, bp, meds);
            free(meds);
            if (row) {
                printf("Poirrier 2009 (E2180 2 GHz, 1 core, steps 50-60): kd-tree-1 %.0f ms, %.3g candidates, %.0f MB;"
                       " kd-tree-2 %.0f ms, %.3g pairs, %.0f MB",
                       row->kd1_ms, row->kd1_pairs, row->kd1_mb, row->kd2_ms, row->kd2_pairs, row->kd2_mb);
                if (row->delaunay_ms > 0)
                    printf("; Delaunay %.0f ms, %.3g pairs", row->delaunay_ms, row->delaunay_pairs);
                if (row->sap_ms > 0) printf("; S&P %.0f ms, %.3g pairs", row->sap_ms, row->sap_pairs);
                if (row->quadratic_ms > 0) printf("; quadratic %.0f ms", row->quadratic_ms);
                printf("\n");
            } else {
                printf("Poirrier 2009 Tables 2-3 have N = 50000, 100000, 500000, 1000000, 5000000 (none at %zu)\n", n);
            }
            fflush(stdout);
        }
        for (size_t k = 0; k < nbp; k++) pf_broadphase_destroy(bp[k]);
        free(bp);
        free(times);
        free(cpu);
        free(last);
        free(boxes);
        free(sp.x);
        free(sp.v);
    }
    for (size_t t = 0; t < nt; t++) pf_runtime_destroy(rts[t]);
    if (bench_csv_close(csv, !status)) status = 1;
    return status;
}
