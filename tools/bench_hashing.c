/* physflow bench hashing: Pouchol et al.'s (2009) benchmarks — the 2D broad phase (hierarchical vs multilevel hash
 * vs kd tree, N objects then moving-particle segments) and the 3D particles falling on 2000 static spheres. */
#include "commands.h"

#include "bench_csv.h"
#include "bench_util.h"
#include "rng.h"
#include "cli_args.h"

#include "physflow/collision.h"
#include "physflow/query.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Pouchol et al. 2009 §4 claims, printed beside our figures. */
static const char *const PAPER_2D_SETUP =
    "N objects random in a 2D square of side 2^13 (10% ~2^10, 25% ~2^6, rest ~2^3), then moving-particle "
    "segments (length <= 2^4) queried against the structure";
static const char *const PAPER_2D_CLAIM =
    "hierarchical hash at least 2x faster than multilevel hash (Eitz & Lixu) in all situations; memory "
    "overhead <= 10%; hashing beats kd-tree for broad phase";
static const double PAPER_2D_MIN_SPEEDUP = 2.0;
static const char *const PAPER_3D_SETUP =
    "particles (size 2^-6) fall on 2000 static spheres (sizes 2^-4..2^-2) in a box";
static const char *const PAPER_3D_CLAIM =
    "hierarchical hash about 25% faster than multilevel hash for the whole collision step; memory overhead <= 20%";
static const double PAPER_3D_SPEEDUP = 1.25;

/* ---- 2D broad phase (Pouchol et al. 2009, §4.1, figure 4) ---- */

typedef struct scene2d {
    size_t n, m;
    pf_aabb *objects;
    double (*seg)[2][3]; /* segment ends */
} scene2d;

static int scene2d_make(scene2d *s, size_t n, size_t m, uint64_t seed)
{
    rng r = {seed};
    s->n = n, s->m = m;
    s->objects = malloc(n * sizeof *s->objects);
    s->seg = malloc(m * sizeof *s->seg);
    if (!s->objects || !s->seg) return -1;
    const double side = 8192; /* 2^13 */
    for (size_t i = 0; i < n; i++) {
        double u = urand(&r), avg = u < 0.10 ? 1024 : u < 0.35 ? 64 : 8;
        for (int k = 0; k < 2; k++) {
            double c = side * urand(&r), h = 0.5 * avg * (0.5 + urand(&r)); /* edge avg x [0.5, 1.5) */
            s->objects[i].min[k] = c - h;
            s->objects[i].max[k] = c + h;
        }
        s->objects[i].min[2] = s->objects[i].max[2] = 0; /* 2D: z = 0 thickness */
    }
    for (size_t q = 0; q < m; q++) {
        double len = 16 * urand(&r), ang = 6.283185307179586 * urand(&r);
        s->seg[q][0][0] = side * urand(&r);
        s->seg[q][0][1] = side * urand(&r);
        s->seg[q][1][0] = s->seg[q][0][0] + len * cos(ang);
        s->seg[q][1][1] = s->seg[q][0][1] + len * sin(ang);
        s->seg[q][0][2] = s->seg[q][1][2] = 0;
    }
    return 0;
}

typedef struct run2d {
    double build_ms, query_ms;
    size_t bytes;
    uint64_t hits, candidates, particles_hit;
} run2d;

/* Milliseconds of CPU time of the calling thread: the timed work is single-threaded, and on a shared machine
 * the time spent waiting for a core is not the method's. */
static double thread_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + 1e-6 * (double)ts.tv_nsec;
}

/* Inserts the objects in the structure, then queries every segment (the paper's timed work); keeps the best
 * time so far in `out`. */
static int run_queries_once(pf_query_index *ix, pf_id_buffer *buf, const scene2d *s, run2d *out)
{
    double t0 = thread_ms();
    if (pf_query_index_build(ix, s->objects, s->n)) return -1;
    double t1 = thread_ms();
    uint64_t hits = 0, cand = 0, hit_particles = 0;
    for (size_t q = 0; q < s->m; q++) {
        if (pf_query_segment(ix, s->seg[q][0], s->seg[q][1], 0.0, buf)) return -1;
        size_t k;
        pf_id_buffer_ids(buf, &k);
        hits += k;
        hit_particles += k > 0;
        cand += pf_id_buffer_candidates(buf);
    }
    double t2 = thread_ms();
    if (t2 - t0 < out->build_ms + out->query_ms) out->build_ms = t1 - t0, out->query_ms = t2 - t1;
    out->hits = hits, out->candidates = cand, out->particles_hit = hit_particles;
    out->bytes = pf_query_index_bytes(ix);
    return 0;
}

/* hhash and mlhash on the same scene, best of `reps`, the two methods taking turns so that a change in the
 * machine's load hits both alike. */
static int run_queries(const scene2d *s, int reps, run2d out[2])
{
    pf_query_method methods[2] = {PF_QUERY_HHASH, PF_QUERY_MLHASH};
    pf_query_index *ix[2] = {NULL, NULL};
    pf_id_buffer *buf = NULL;
    if (pf_id_buffer_create(&buf)) {
        fprintf(stderr, "physflow: bench hashing: %s\n", pf_last_error());
        return -1;
    }
    int rc = 0, k;
    for (k = 0; k < 2 && !rc; k++) {
        pf_query_def def = pf_query_default_def();
        def.method = methods[k];
        rc = pf_query_index_create(&def, &ix[k]);
        out[k] = (run2d){.build_ms = INFINITY, .query_ms = INFINITY};
    }
    for (int rep = 0; rep < reps && !rc; rep++)
        for (k = 0; k < 2 && !rc; k++) rc = run_queries_once(ix[k], buf, s, &out[k]);
    if (rc) fprintf(stderr, "physflow: bench hashing: %s: %s\n", pf_query_method_name(methods[k - 1]), pf_last_error());
    for (k = 0; k < 2; k++) pf_query_index_destroy(ix[k]);
    pf_id_buffer_destroy(buf);
    return rc ? -1 : 0;
}

/* The same scene through the all-pairs broad-phase API: objects and segment boxes together (segment-segment
 * pairs included), so that kd can be compared with the hashes on equal terms. Returns 1 when not built. */
static int run_allpairs(pf_broadphase_method m, const pf_aabb *boxes, size_t n, int reps, double *ms,
                        size_t *pairs, size_t *bytes)
{
    pf_broadphase_def def = pf_broadphase_default_def();
    def.method = m;
    pf_broadphase *bp = NULL;
    int rc = pf_broadphase_create(&def, &bp);
    if (rc) return 1;
    *ms = INFINITY;
    for (int rep = 0; rep < reps; rep++) {
        const pf_pair *p;
        pf_broadphase_stats st;
        double t0 = (bench_now_s() * 1e3);
        rc = pf_broadphase_pairs(bp, boxes, n, &p, pairs, &st);
        double t = (bench_now_s() * 1e3) - t0;
        if (rc) {
            fprintf(stderr, "physflow: bench hashing: %s: %s\n", pf_broadphase_method_name(m), pf_last_error());
            pf_broadphase_destroy(bp);
            return -1;
        }
        *bytes = st.bytes;
        if (t < *ms) *ms = t;
    }
    pf_broadphase_destroy(bp);
    return 0;
}

static int bench_2d(const long *ns, size_t nn, size_t m, int reps, bench_csv *csv, double *worst_ratio)
{
    printf("Pouchol et al. 2009, §4.1 — 2D broad phase: %s\n", PAPER_2D_SETUP);
    printf("paper's claim: %s\n", PAPER_2D_CLAIM);
    printf("here: %zu segments, best of %d runs taking turns, ms_total = thread CPU time to insert the objects\n"
           "and query all segments (exact test included); cand/q = ids the cells hold per query, the same for both: the part pruning cannot save\n\n",
           m, reps);
    printf("%9s %7s %7s | %10s %10s %7s | %10s %10s %8s | %s\n", "N", "hit %", "cand/q", "hhash ms", "mlhash ms",
           "ratio", "hhash MB", "mlhash MB", "mem +%", "paper: ratio >= 2");
    *worst_ratio = INFINITY;
    int rc = 0;
    for (size_t t = 0; t < nn && !rc; t++) {
        scene2d s = {0};
        char cname[64];
        snprintf(cname, sizeof cname, "pouchol2d:%ld", ns[t]);
        if (scene2d_make(&s, (size_t)ns[t], m, 2009 + (uint64_t)t)) {
            fprintf(stderr, "physflow: bench hashing: out of memory\n");
            rc = -1;
        }
        run2d r2[2];
        memset(r2, 0, sizeof r2);
        if (!rc) rc = run_queries(&s, reps, r2);
        const run2d h = r2[0], ml = r2[1];
        if (!rc && h.hits != ml.hits) {
            fprintf(stderr, "physflow: bench hashing: hhash and mlhash disagree (%llu vs %llu hits)\n",
                    (unsigned long long)h.hits, (unsigned long long)ml.hits);
            rc = -1;
        }
        if (!rc) {
            double th = h.build_ms + h.query_ms, tm = ml.build_ms + ml.query_ms, ratio = tm / th;
            if (ratio < *worst_ratio) *worst_ratio = ratio;
            printf("%9ld %6.1f%% %7.1f | %10.2f %10.2f %6.2fx | %10.2f %10.2f %+7.1f%% | %s\n", ns[t],
                   100.0 * (double)h.particles_hit / (double)m, (double)h.candidates / (double)m, th, tm, ratio,
                   (double)h.bytes / 1048576.0,
                   (double)ml.bytes / 1048576.0, 100.0 * ((double)h.bytes / (double)ml.bytes - 1),
                   ratio >= PAPER_2D_MIN_SPEEDUP ? "holds" : "does not hold");
            const run2d *rr[2] = {&h, &ml};
            const char *names[2] = {"hhash", "mlhash"};
            for (int k = 0; k < 2; k++) {
                bench_csv_row(csv, "hashing", cname, names[k], 1, "ms_total", rr[k]->build_ms + rr[k]->query_ms);
                bench_csv_row(csv, "hashing", cname, names[k], 1, "build_ms", rr[k]->build_ms);
                bench_csv_row(csv, "hashing", cname, names[k], 1, "queries_ms", rr[k]->query_ms);
                bench_csv_row(csv, "hashing", cname, names[k], 1, "bytes", (double)rr[k]->bytes);
                bench_csv_row(csv, "hashing", cname, names[k], 1, "candidates", (double)rr[k]->candidates);
                bench_csv_row(csv, "hashing", cname, names[k], 1, "hits", (double)rr[k]->hits);
            }
            bench_csv_row(csv, "hashing", cname, "hhash", 1, "speedup_vs_mlhash", ratio);
        }
        free(s.objects);
        free(s.seg);
    }
    if (rc) return rc;

    /* kd needs the all-pairs API: objects and segments as one set of boxes */
    printf("\nsame scenes through the all-pairs broad phase (pf_broadphase_pairs over objects + segment boxes;\n"
           "segment-segment pairs included), 1 thread, best of %d:\n", reps);
    printf("%9s | %10s %10s %10s | %10s\n", "N", "hhash ms", "mlhash ms", "kd ms", "pairs");
    pf_broadphase_method ms[3] = {PF_BP_HHASH, PF_BP_MLHASH, PF_BP_KD};
    for (size_t t = 0; t < nn && !rc; t++) {
        scene2d s = {0};
        if (scene2d_make(&s, (size_t)ns[t], m, 2009 + (uint64_t)t)) return -1;
        size_t nb = s.n + s.m;
        pf_aabb *boxes = malloc(nb * sizeof *boxes);
        if (!boxes) return -1;
        memcpy(boxes, s.objects, s.n * sizeof *boxes);
        for (size_t q = 0; q < s.m; q++)
            for (int k = 0; k < 3; k++) {
                boxes[s.n + q].min[k] = fmin(s.seg[q][0][k], s.seg[q][1][k]);
                boxes[s.n + q].max[k] = fmax(s.seg[q][0][k], s.seg[q][1][k]);
            }
        char cname[64];
        snprintf(cname, sizeof cname, "pouchol2d-allpairs:%ld", ns[t]);
        double tms[3];
        size_t pairs[3] = {0}, bytes[3] = {0};
        int avail[3];
        for (int k = 0; k < 3 && !rc; k++) {
            int r = run_allpairs(ms[k], boxes, nb, reps, &tms[k], &pairs[k], &bytes[k]);
            if (r < 0) rc = -1;
            avail[k] = r == 0;
            if (avail[k]) {
                bench_csv_row(csv, "hashing", cname, pf_broadphase_method_name(ms[k]), 1, "ms_total", tms[k]);
                bench_csv_row(csv, "hashing", cname, pf_broadphase_method_name(ms[k]), 1, "pairs",
                              (double)pairs[k]);
                bench_csv_row(csv, "hashing", cname, pf_broadphase_method_name(ms[k]), 1, "bytes",
                              (double)bytes[k]);
            }
        }
        if (!rc) {
            printf("%9ld | %10.2f %10.2f ", ns[t], tms[0], tms[1]);
            if (avail[2])
                printf("%10.2f | %10zu%s\n", tms[2], pairs[0], pairs[2] == pairs[0] ? "" : "  (kd disagrees!)");
            else
                printf("%10s | %10zu   (kd not available in this build: %s)\n", "-", pairs[0], pf_last_error());
            if (pairs[0] != pairs[1] || (avail[2] && pairs[2] != pairs[0])) rc = -1;
        }
        free(boxes);
        free(s.objects);
        free(s.seg);
    }
    return rc;
}

/* ---- 2D nearest-neighbour search (Pouchol et al. 2009, §4.1, figure 5) ---- */

static const char *const PAPER_NNS_SETUP =
    "1M points random in a 2D square of side 2^20, each queried for its neighbours within radius r, r growing";
static const char *const PAPER_NNS_CLAIM =
    "hierarchical hash competitive with the uniform hash while the maximal neighbour count is below 5 (memory "
    "+10..25%); kd tree best for denser distributions";

/* One pf_neighbors_create, timed in thread CPU time. */
static int run_nns(pf_neighbor_method m, const double *xyz, size_t n, double r, double *ms, size_t *total,
                   size_t *maxn, size_t *index_bytes)
{
    pf_neighbor_def def = pf_neighbor_default_def();
    def.method = m;
    def.radius = r;
    pf_neighbors *nb = NULL;
    double t0 = thread_ms();
    int rc = pf_neighbors_create(&def, xyz, n, &nb);
    double t = thread_ms() - t0;
    if (rc) {
        fprintf(stderr, "physflow: bench hashing: neighbours (%s): %s\n", pf_neighbor_method_name(m), pf_last_error());
        return -1;
    }
    if (t < *ms) *ms = t;
    *total = pf_neighbors_total(nb);
    *maxn = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t *ids;
        size_t c;
        pf_neighbors_of(nb, i, &ids, &c);
        if (c > *maxn) *maxn = c;
    }
    *index_bytes = pf_neighbors_index_bytes(nb);
    pf_neighbors_destroy(nb);
    return 0;
}

static int bench_nns(size_t n, const long *radii, size_t nr, int reps, bench_csv *csv)
{
    printf("\nPouchol et al. 2009, §4.1, figure 5 — 2D neighbour search: %s\npaper's claim: %s\n", PAPER_NNS_SETUP,
           PAPER_NNS_CLAIM);
    printf("here: %zu points in the square of side 2^20 (z = 0), best of %d runs taking turns, thread CPU time of\n"
           "pf_neighbors_create (structure, search and lists); hhash: the search at insertion (§3.3.2, Listing 3),\n"
           "uhash: cells of edge r, each point's 27 cells searched after all are inserted (§2.1), kd: median kd tree\n\n",
           n, reps);
    printf("%7s %8s %8s | %10s %10s %10s | %8s %8s | %10s %10s %8s | %s\n", "r", "max nbr", "mean", "hhash ms",
           "uhash ms", "kd ms", "u/h", "kd/h", "hhash MB", "uhash MB", "mem +%", "paper");
    double *xyz = malloc(3 * n * sizeof *xyz);
    if (!xyz) return -1;
    rng g = {2009};
    for (size_t i = 0; i < n; i++) {
        xyz[3 * i] = 1048576.0 * urand(&g);
        xyz[3 * i + 1] = 1048576.0 * urand(&g);
        xyz[3 * i + 2] = 0;
    }
    pf_neighbor_method ms[3] = {PF_NEIGHBORS_HHASH, PF_NEIGHBORS_UHASH, PF_NEIGHBORS_KD};
    int rc = 0;
    for (size_t t = 0; t < nr && !rc; t++) {
        double tm[3] = {INFINITY, INFINITY, INFINITY};
        size_t total[3], maxn[3], bytes[3];
        for (int rep = 0; rep < reps && !rc; rep++)
            for (int k = 0; k < 3 && !rc; k++) rc = run_nns(ms[k], xyz, n, (double)radii[t], &tm[k], &total[k], &maxn[k], &bytes[k]);
        if (rc) break;
        if (total[0] != total[1] || total[0] != total[2]) {
            fprintf(stderr, "physflow: bench hashing: neighbour searches disagree (%zu, %zu, %zu)\n", total[0],
                    total[1], total[2]);
            rc = -1;
            break;
        }
        double mem = 100.0 * ((double)bytes[0] / (double)bytes[1] - 1);
        const char *verdict = maxn[0] < 5 ? (tm[0] <= 1.1 * tm[1] ? "competitive: holds" : "competitive: does not hold")
                                          : (tm[2] <= tm[0] && tm[2] <= tm[1] ? "kd best: holds" : "kd best: does not hold");
        printf("%7ld %8zu %8.2f | %10.1f %10.1f %10.1f | %7.2fx %7.2fx | %10.2f %10.2f %+7.1f%% | %s\n", radii[t],
               maxn[0], (double)total[0] / (double)n, tm[0], tm[1], tm[2], tm[1] / tm[0], tm[2] / tm[0],
               (double)bytes[0] / 1048576.0, (double)bytes[1] / 1048576.0, mem, verdict);
        char cname[64];
        snprintf(cname, sizeof cname, "pouchol2d-nns:%ld", radii[t]);
        for (int k = 0; k < 3; k++) {
            const char *name = pf_neighbor_method_name(ms[k]);
            bench_csv_row(csv, "hashing", cname, name, 1, "ms_total", tm[k]);
            bench_csv_row(csv, "hashing", cname, name, 1, "bytes", (double)bytes[k]);
            bench_csv_row(csv, "hashing", cname, name, 1, "max_neighbours", (double)maxn[k]);
            bench_csv_row(csv, "hashing", cname, name, 1, "neighbours", (double)total[k]);
        }
        bench_csv_row(csv, "hashing", cname, "hhash", 1, "speedup_vs_uhash", tm[1] / tm[0]);
    }
    free(xyz);
    return rc;
}

/* ---- 3D particles over static spheres (Pouchol et al. 2009, §4.2, figure 6) ---- */

typedef struct scene3d {
    size_t ns, np;
    double *sc, *sr;     /* sphere centres (3 each) and radii */
    double *x, *v;       /* particle positions and velocities */
    pf_aabb *boxes;      /* spheres then particle paths */
    double *x1;          /* end of step positions */
} scene3d;

static const double P_RADIUS = 0.0078125; /* particles of size 2^-6: radius 2^-7 */

static int scene3d_make(scene3d *s, size_t ns, size_t np, uint64_t seed)
{
    rng r = {seed};
    s->ns = ns, s->np = np;
    s->sc = malloc(3 * ns * sizeof *s->sc);
    s->sr = malloc(ns * sizeof *s->sr);
    s->x = malloc(3 * np * sizeof *s->x);
    s->v = calloc(3 * np, sizeof *s->v);
    s->x1 = malloc(3 * np * sizeof *s->x1);
    s->boxes = malloc((ns + np) * sizeof *s->boxes);
    if (!s->sc || !s->sr || !s->x || !s->v || !s->x1 || !s->boxes) return -1;
    for (size_t i = 0; i < ns; i++) {
        s->sr[i] = 0.5 * pow(2.0, -4 + 2 * urand(&r)); /* diameters 2^-4 .. 2^-2 */
        for (int k = 0; k < 3; k++) {
            s->sc[3 * i + (size_t)k] = urand(&r);
            s->boxes[i].min[k] = s->sc[3 * i + (size_t)k] - s->sr[i];
            s->boxes[i].max[k] = s->sc[3 * i + (size_t)k] + s->sr[i];
        }
    }
    for (size_t i = 0; i < 3 * np; i++) s->x[i] = P_RADIUS + (1 - 2 * P_RADIUS) * urand(&r);
    return 0;
}

static void scene3d_free(scene3d *s)
{
    free(s->sc), free(s->sr), free(s->x), free(s->v), free(s->x1), free(s->boxes);
}

/* One collision step as the paper times it: hash the objects (static spheres included) and the moving
 * particles' paths, query each particle's path, exact sphere tests, a simple response. */
static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int step3d(scene3d *s, pf_query_index *ix, pf_id_buffer *buf, double dt, uint32_t **ids, size_t *cap)
{
    const double g = 9.81, e = 0.3;
    for (size_t i = 0; i < s->np; i++) {
        double *v = s->v + 3 * i, *x = s->x + 3 * i, *x1 = s->x1 + 3 * i;
        v[2] -= g * dt;
        for (int k = 0; k < 3; k++) {
            x1[k] = x[k] + dt * v[k];
            s->boxes[s->ns + i].min[k] = fmin(x[k], x1[k]) - P_RADIUS;
            s->boxes[s->ns + i].max[k] = fmax(x[k], x1[k]) + P_RADIUS;
        }
    }
    if (pf_query_index_build(ix, s->boxes, s->ns + s->np)) return -1;
    for (size_t i = 0; i < s->np; i++) {
        double *v = s->v + 3 * i, *x = s->x + 3 * i, *x1 = s->x1 + 3 * i;
        if (pf_query_segment(ix, x, x1, P_RADIUS, buf)) return -1;
        size_t m;
        const uint32_t *found = pf_id_buffer_ids(buf, &m);
        /* contacts resolved in id order, so that the trajectories do not depend on the structure */
        if (m > *cap) {
            free(*ids);
            *cap = 2 * m;
            *ids = malloc(*cap * sizeof **ids);
            if (!*ids) return -1;
        }
        memcpy(*ids, found, m * sizeof *found);
        qsort(*ids, m, sizeof **ids, cmp_u32);
        for (size_t t = 0; t < m; t++) {
            uint32_t j = (*ids)[t];
            if (j >= s->ns) continue; /* another particle: fluid forces are not part of this benchmark */
            const double *c = s->sc + 3 * (size_t)j;
            double d[3] = {x1[0] - c[0], x1[1] - c[1], x1[2] - c[2]};
            double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), rr = s->sr[j] + P_RADIUS;
            if (dist >= rr || dist == 0) continue;
            double nrm[3] = {d[0] / dist, d[1] / dist, d[2] / dist};
            double vn = v[0] * nrm[0] + v[1] * nrm[1] + v[2] * nrm[2];
            for (int k = 0; k < 3; k++) {
                x1[k] = c[k] + rr * nrm[k];
                if (vn < 0) v[k] -= (1 + e) * vn * nrm[k];
            }
        }
        for (int k = 0; k < 3; k++) {
            if (x1[k] < P_RADIUS) x1[k] = P_RADIUS, v[k] = v[k] < 0 ? -e * v[k] : v[k];
            if (x1[k] > 1 - P_RADIUS) x1[k] = 1 - P_RADIUS, v[k] = v[k] > 0 ? -e * v[k] : v[k];
            x[k] = x1[k];
        }
    }
    return 0;
}

static uint64_t state_hash(const scene3d *s)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < 3 * s->np; i++) {
        uint64_t b;
        memcpy(&b, &s->x[i], sizeof b);
        h = (h ^ b) * 1099511628211ull;
    }
    return h;
}

static int bench_3d(size_t np, int steps, bench_csv *csv, double *ratio)
{
    const size_t ns = 2000;
    const double dt = 2e-3;
    printf("\nPouchol et al. 2009, §4.2 — 3D: %s\npaper's claim: %s\n", PAPER_3D_SETUP, PAPER_3D_CLAIM);
    printf("here: %zu particles, %zu spheres, %d steps of %g s, whole collision step timed (thread CPU time; the\n"
           "two methods step their own copies of the scene in turn)\n\n",
           np, ns, steps, dt);
    printf("%8s | %12s %12s %7s | %10s %10s | %s\n", "method", "ms/step", "total ms", "", "index MB", "", "final state");
    pf_query_method methods[2] = {PF_QUERY_HHASH, PF_QUERY_MLHASH};
    double total[2] = {0, 0};
    scene3d sc[2];
    pf_query_index *ix[2] = {NULL, NULL};
    pf_id_buffer *buf[2] = {NULL, NULL};
    uint32_t *ids = NULL;
    size_t cap = 0;
    memset(sc, 0, sizeof sc);
    int rc = 0, k;
    for (k = 0; k < 2 && !rc; k++) {
        pf_query_def def = pf_query_default_def();
        def.method = methods[k];
        rc = scene3d_make(&sc[k], ns, np, 42) || pf_query_index_create(&def, &ix[k]) ||
             pf_id_buffer_create(&buf[k]);
    }
    for (int st = 0; st < steps && !rc; st++)
        for (k = 0; k < 2 && !rc; k++) {
            double t0 = thread_ms();
            rc = step3d(&sc[k], ix[k], buf[k], dt, &ids, &cap);
            total[k] += thread_ms() - t0;
        }
    free(ids);
    char cname[64];
    snprintf(cname, sizeof cname, "pouchol3d:%zu", np);
    uint64_t hashes[2] = {0, 0};
    if (rc) fprintf(stderr, "physflow: bench hashing: 3D: %s\n", pf_last_error());
    for (k = 0; k < 2 && !rc; k++) {
        double per_step = total[k] / steps;
        hashes[k] = state_hash(&sc[k]);
        size_t bytes = pf_query_index_bytes(ix[k]);
        printf("%8s | %12.3f %12.1f %7s | %10.2f %10s | %016llx\n", pf_query_method_name(methods[k]), per_step,
               total[k], "", (double)bytes / 1048576.0, "", (unsigned long long)hashes[k]);
        bench_csv_row(csv, "hashing", cname, pf_query_method_name(methods[k]), 1, "ms_per_step", per_step);
        bench_csv_row(csv, "hashing", cname, pf_query_method_name(methods[k]), 1, "bytes", (double)bytes);
    }
    for (k = 0; k < 2; k++) {
        scene3d_free(&sc[k]);
        pf_query_index_destroy(ix[k]);
        pf_id_buffer_destroy(buf[k]);
    }
    if (rc) return -1;
    *ratio = total[1] / total[0];
    printf("hhash speed-up over mlhash: %.2fx (paper: about %.2fx); same trajectories: %s\n", *ratio,
           PAPER_3D_SPEEDUP, hashes[0] == hashes[1] ? "yes" : "NO");
    bench_csv_row(csv, "hashing", cname, "hhash", 1, "speedup_vs_mlhash", *ratio);
    return hashes[0] == hashes[1] ? 0 : -1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: physflow bench hashing [--n LIST] [--segments M] [--particles P] [--steps S] [--reps R]\n"
               "                              [--nns-points P] [--radii LIST] [--csv FILE [--force]]\n"
               "  --n LIST        object counts of the 2D benchmark (default 100,300,1000,3000,10000)\n"
               "  --segments M    moving-particle segments queried in 2D (default 200000; the paper used 1M)\n"
               "  --particles P   particles of the 3D benchmark (default 5000; 0 skips it)\n"
               "  --steps S       steps of the 3D benchmark (default 50)\n"
               "  --reps R        2D: best of R runs (default 3)\n"
               "  --nns-points P  points of the neighbour-search benchmark (figure 5; default 1000000 as the\n"
               "                  paper; 0 skips it)\n"
               "  --radii LIST    its radii (default 128,256,512,1024,2048)\n");
}

int bench_hashing(int argc, char **argv)
{
    /* from ~10% to 100% of the particles hitting an object: the span of the paper's figure 4 x axis */
    long ns[32] = {100, 300, 1000, 3000, 10000};
    size_t nn = 5;
    long m = 200000, np = 5000, steps = 50, reps = 3, nns = 1000000;
    long radii[32] = {128, 256, 512, 1024, 2048};
    size_t nr = 5;
    const char *csv_path = NULL;
    int force = 0;
    for (int a = 1; a < argc; a++) {
        const char *opt = argv[a], *val;
        if (!strcmp(opt, "--force")) {
            force = 1;
            continue;
        }
        int got = cli_option_value(argc, argv, &a, "bench hashing",
                                   "--n --segments --particles --steps --reps --nns-points --radii --csv", usage,
                                   &val);
        if (got != CLI_VALUE) return got == CLI_HELP ? 0 : 2;
        int bad = 0;
        if (!strcmp(opt, "--n"))
            bad = cli_int_list(opt, val, 1, 50000000, ns, 32, &nn);
        else if (!strcmp(opt, "--segments"))
            bad = cli_long(opt, val, 1, 100000000, &m);
        else if (!strcmp(opt, "--particles"))
            bad = cli_long(opt, val, 0, 10000000, &np);
        else if (!strcmp(opt, "--steps"))
            bad = cli_long(opt, val, 1, 100000, &steps);
        else if (!strcmp(opt, "--reps"))
            bad = cli_long(opt, val, 1, 100, &reps);
        else if (!strcmp(opt, "--nns-points"))
            bad = cli_long(opt, val, 0, 50000000, &nns);
        else if (!strcmp(opt, "--radii"))
            bad = cli_int_list(opt, val, 1, 1048576, radii, 32, &nr);
        else if (!strcmp(opt, "--csv"))
            csv_path = val;
        else
            return cli_unknown_option("bench hashing", opt, usage);
        if (bad) return 2;
    }
    bench_csv *csv = NULL;
    int csv_rc = bench_csv_open(csv_path, force, argc, argv, &csv);
    if (csv_rc) return csv_rc;
    double worst = 0, r3 = 0;
    int rc = bench_2d(ns, nn, (size_t)m, (int)reps, csv, &worst);
    if (!rc) {
        printf("\nhhash vs mlhash, 2D: worst ratio %.2fx over the N above — paper's >= %.0fx claim %s here\n", worst,
               PAPER_2D_MIN_SPEEDUP, worst >= PAPER_2D_MIN_SPEEDUP ? "holds" : "does not hold");
    }
    if (!rc && nns > 0) rc = bench_nns((size_t)nns, radii, nr, (int)reps, csv);
    if (!rc && np > 0) rc = bench_3d((size_t)np, (int)steps, csv, &r3);
    if (bench_csv_close(csv, !rc)) rc = -1;
    return rc ? 1 : 0;
}
