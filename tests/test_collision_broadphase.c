/* Check suite of the broad phases: every method against the brute-force oracle on varied box sets, kd-raw's
 * candidates against the true pairs, thread-count independence, input validation. */
#include "check_main.h"
#include "box_sets.h"
#include "rng.h"

#include "physflow/collision.h"
#include "physflow/runtime.h"
#include "collision/broadphase_backend.h"
#include "collision/kdtree.h"
#include "collision/radix_sort.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic box sets ---- */

typedef enum { SET_UNIFORM, SET_CLUSTERED, SET_POLY, SET_FLAT, SET_DEGENERATE, SET_FAR, SET_COUNT } set_kind;
static const char *set_names[SET_COUNT] = {"uniform", "clustered", "polydisperse", "flat", "degenerate", "far"};

/* n boxes in the unit cube, cubes of half extent 0.5 * cbrt(0.2 / n) unless said otherwise (about 1.5
 * overlaps per box). */
static pf_aabb *make_set(set_kind kind, size_t n, uint64_t seed)
{
    double half = 0.5 * cbrt(0.2 / (double)n);
    box_set_def d = {.n = n,
                     .seed = seed * 2654435761u + 12345,
                     .lo = {0, 0, 0},
                     .hi = {1, 1, 1},
                     .half_min = half,
                     .half_max = half,
                     .law = BOX_SIZE_CUBE};
    switch (kind) {
    case SET_FAR:
        for (int a = 0; a < 3; a++)
            d.lo[a] = a == 1 ? -1e6 : 1e6, d.hi[a] = d.lo[a] + 1;
        break;
    case SET_CLUSTERED: /* eight tight clusters */
        d.clusters = 8, d.cluster_edge = 0.05, d.half_min = d.half_max = half * 0.3;
        break;
    case SET_POLY: /* sizes log-uniform over three orders of magnitude; anisotropic */
        d.law = BOX_SIZE_LOG, d.half_min = half * 0.05, d.half_max = half * 50;
        break;
    case SET_FLAT: /* all in the plane z = 0.25 */
        d.lo[2] = d.hi[2] = 0.25, d.flat = 1, d.half_min = d.half_max = 4 * half;
        break;
    case SET_DEGENERATE: /* identical boxes, points (some repeated), touching lattice cubes, zero-thickness
                            slabs */
        d.identical = d.points = d.touching = d.slabs = 0.2, d.special_half = 0.01, d.lattice = 8;
        break;
    default:
        break;
    }
    return box_set_create(&d);
}

/* ---- helpers ---- */

static int pair_cmp(const void *pa, const void *pb)
{
    const pf_pair *a = pa, *b = pb;
    if (a->i != b->i) return a->i < b->i ? -1 : 1;
    if (a->j != b->j) return a->j < b->j ? -1 : 1;
    return 0;
}

/* Runs a method; returns a sorted malloc'd copy (or NULL with *rc = PF_ENOTSUP when not built). */
static pf_pair *run_method(pf_broadphase_method m, int threads, int split, const pf_aabb *boxes, size_t n,
                           size_t *np, int sort, int *rc_out)
{
    pf_broadphase_def def = pf_broadphase_default_def();
    def.method = m;
    def.threads = threads;
    def.kd_split = split;
    pf_broadphase *bp = NULL;
    int rc = pf_broadphase_create(&def, &bp);
    *rc_out = rc;
    if (rc == PF_ENOTSUP) return NULL;
    ck_assert_msg(rc == PF_OK, "create %s: %s", pf_broadphase_method_name(m), pf_last_error());
    const pf_pair *p = NULL;
    pf_broadphase_stats st;
    rc = pf_broadphase_pairs(bp, boxes, n, &p, np, &st);
    ck_assert_msg(rc == PF_OK, "%s: %s", pf_broadphase_method_name(m), pf_last_error());
    ck_assert_uint_eq(st.pairs, *np);
    pf_pair *copy = malloc((*np + 1) * sizeof *copy);
    if (*np) memcpy(copy, p, *np * sizeof *copy);
    if (sort) qsort(copy, *np, sizeof *copy, pair_cmp);
    pf_broadphase_destroy(bp);
    return copy;
}

/* 1 when the pairs p[0 .. np) (any order; sorted here, in place) are not exactly brute force's on the boxes. */
static int mismatch_brute(pf_pair *p, size_t np, const pf_aabb *boxes, size_t n)
{
    size_t nref;
    int rc;
    pf_pair *ref = run_method(PF_BP_BRUTE, 1, 1, boxes, n, &nref, 1, &rc);
    qsort(p, np, sizeof *p, pair_cmp);
    int bad = np != nref || (np && memcmp(p, ref, np * sizeof *ref) != 0);
    free(ref);
    return bad;
}

/* How many of the three kept broad phases (1, 2 and 3 threads) give pairs of the boxes other than fresh's, order
 * included; *records (may be NULL) receives the last one's stats.records. */
static size_t mismatch_kept(pf_broadphase *const kept[3], const pf_aabb *b, size_t n, const pf_pair *fresh,
                            size_t nf, size_t *records)
{
    size_t bad = 0;
    for (int t = 0; t < 3; t++) {
        const pf_pair *p;
        size_t np;
        pf_broadphase_stats st;
        ck_assert_int_eq(pf_broadphase_pairs(kept[t], b, n, &p, &np, &st), PF_OK);
        bad += np != nf || (np && memcmp(p, fresh, np * sizeof *p) != 0);
        if (records) *records = st.records;
    }
    return bad;
}

/* The records of kd broad phases kept across calls (kept[3], just called on b) against those of a fresh one on the
 * same boxes, by box (the ranks depend on the history): each kept one's count of records that differ or are
 * missing. */
static size_t records_mismatch(pf_broadphase *const kept[3], const pf_aabb *b, size_t n)
{
    pf_broadphase_def def = pf_broadphase_default_def();
    def.method = PF_BP_KD;
    pf_broadphase *one;
    const pf_pair *p;
    size_t np, bad = 0;
    ck_assert_int_eq(pf_broadphase_create(&def, &one), PF_OK);
    ck_assert_int_eq(pf_broadphase_pairs(one, b, n, &p, &np, NULL), PF_OK);
    size_t nr = pf_kd_records_by_box(pf_broadphase_state(one), NULL, 0);
    uint64_t *want = malloc(nr * sizeof *want), *got = malloc(nr * sizeof *got);
    ck_assert(want && got);
    pf_kd_records_by_box(pf_broadphase_state(one), want, nr);
    for (int t = 0; t < 3; t++) {
        size_t m = pf_kd_records_by_box(pf_broadphase_state(kept[t]), got, nr);
        for (size_t i = 0; i < nr; i++) bad += i >= m || got[i] != want[i];
        bad += m > nr ? m - nr : 0;
    }
    free(want);
    free(got);
    pf_broadphase_destroy(one);
    return bad;
}

static const pf_broadphase_method exact_methods[] = {PF_BP_KD, PF_BP_GRID, PF_BP_SAP, PF_BP_HHASH, PF_BP_MLHASH};

static void check_against_brute(set_kind kind, size_t n, uint64_t seed)
{
    pf_aabb *boxes = make_set(kind, n, seed);
    size_t nref = 0;
    int rc;
    pf_pair *ref = run_method(PF_BP_BRUTE, 1, 1, boxes, n, &nref, 1, &rc);
    /* Check writes a record per assertion: loops count failures and assert once */
    size_t bad = 0;
    for (size_t k = 0; k < nref; k++) bad += ref[k].i >= ref[k].j;
    ck_assert_uint_eq(bad, 0);
    ck_assert_msg(nref > 0 || n < 2, "%s: oracle found no pairs; the set is not a useful test", set_names[kind]);
    for (size_t mi = 0; mi < sizeof exact_methods / sizeof exact_methods[0]; mi++) {
        for (int split = 0; split <= 1; split++) {
            pf_broadphase_method m = exact_methods[mi];
            if (!split && m != PF_BP_KD) continue;
            size_t np = 0;
            pf_pair *got = run_method(m, 1, split, boxes, n, &np, 1, &rc);
            if (!got) continue; /* not built */
            ck_assert_msg(np == nref, "%s on %s (n=%zu, split %d): %zu pairs, brute %zu", pf_broadphase_method_name(m),
                          set_names[kind], n, split, np, nref);
            size_t k = 0;
            while (k < np && got[k].i == ref[k].i && got[k].j == ref[k].j) k++;
            ck_assert_msg(k == np, "%s on %s: pair %zu is (%u, %u), brute (%u, %u)", pf_broadphase_method_name(m),
                          set_names[kind], k, got[k].i, got[k].j, ref[k].i, ref[k].j);
            free(got);
        }
    }
    /* kd-raw: every true pair among the candidates (duplicates allowed) */
    size_t nraw = 0;
    pf_pair *raw = run_method(PF_BP_KD_RAW, 1, 1, boxes, n, &nraw, 1, &rc);
    size_t r = 0;
    size_t missing = 0, first_missing = 0;
    for (size_t k = 0; k < nref; k++) {
        while (r < nraw && pair_cmp(&raw[r], &ref[k]) < 0) r++;
        if (!(r < nraw && pair_cmp(&raw[r], &ref[k]) == 0) && !missing++) first_missing = k;
    }
    ck_assert_msg(missing == 0, "kd-raw on %s misses %zu pairs, first (%u, %u)", set_names[kind], missing,
                  ref[first_missing].i, ref[first_missing].j);
    for (size_t k = 0; k < nraw; k++) bad += raw[k].i >= raw[k].j;
    ck_assert_uint_eq(bad, 0);
    free(raw);
    free(ref);
    free(boxes);
}

START_TEST(test_against_brute)
{
    set_kind kind = (set_kind)(_i % SET_COUNT);
    size_t sizes[] = {1, 2, 17, 300, 2500};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        if (sizes[k] < 17 && kind != SET_DEGENERATE && kind != SET_UNIFORM) continue;
        if (sizes[k] < 17) {
            /* tiny sets: the oracle may find nothing; compare anyway */
            pf_aabb *boxes = make_set(kind, sizes[k], 7);
            size_t nref = 0, np = 0;
            int rc;
            pf_pair *ref = run_method(PF_BP_BRUTE, 1, 1, boxes, sizes[k], &nref, 1, &rc);
            for (size_t mi = 0; mi < sizeof exact_methods / sizeof exact_methods[0]; mi++) {
                pf_pair *got = run_method(exact_methods[mi], 1, 1, boxes, sizes[k], &np, 1, &rc);
                if (!got) continue;
                ck_assert_uint_eq(np, nref);
                ck_assert(np == 0 || memcmp(got, ref, np * sizeof *got) == 0);
                free(got);
            }
            free(ref);
            free(boxes);
            continue;
        }
        check_against_brute(kind, sizes[k], 1 + k);
    }
}
END_TEST

/* Same output, same order, for 1 and 2 threads (sets big enough for the parallel paths to run). */
START_TEST(test_thread_independence)
{
    const pf_broadphase_method methods[] = {PF_BP_BRUTE, PF_BP_KD, PF_BP_KD_RAW, PF_BP_GRID, PF_BP_SAP,
                                            PF_BP_HHASH, PF_BP_MLHASH};
    set_kind kinds[] = {SET_UNIFORM, SET_CLUSTERED};
    for (size_t s = 0; s < 2; s++) {
        size_t n = 20000;
        pf_aabb *boxes = make_set(kinds[s], n, 99);
        for (size_t mi = 0; mi < sizeof methods / sizeof methods[0]; mi++) {
            if (methods[mi] == PF_BP_BRUTE && s == 1) continue;
            size_t n1 = 0, n2 = 0;
            int rc;
            pf_pair *p1 = run_method(methods[mi], 1, 1, boxes, n, &n1, 0, &rc);
            if (!p1) continue;
            pf_pair *p2 = run_method(methods[mi], 2, 1, boxes, n, &n2, 0, &rc);
            ck_assert_msg(n1 == n2, "%s: %zu pairs with 1 thread, %zu with 2", pf_broadphase_method_name(methods[mi]),
                          n1, n2);
            ck_assert_msg(n1 == 0 || memcmp(p1, p2, n1 * sizeof *p1) == 0, "%s: order differs with 2 threads",
                          pf_broadphase_method_name(methods[mi]));
            free(p1);
            free(p2);
        }
        free(boxes);
    }
}
END_TEST

/* ---- a runtime's team as the runner ---- */

/* pf_runtime_parallel, counting the runs it was given and how many it refused (refuse: every one, PF_ESTATE, as
 * pf_runtime_parallel does while a graph runs). */
typedef struct counting_runner {
    pf_runtime *rt;
    int refuse;
    atomic_int runs, refused;
} counting_runner;

static int count_run(void *ctx, void (*fn)(void *ctx, int worker, int workers), void *fn_ctx)
{
    counting_runner *r = ctx;
    atomic_fetch_add(&r->runs, 1);
    if (r->refuse) {
        atomic_fetch_add(&r->refused, 1);
        return PF_ESTATE;
    }
    return pf_runtime_parallel(r->rt, fn, fn_ctx);
}

static pf_runtime *team_of(int workers)
{
    pf_runtime_def rd = pf_runtime_default_def();
    rd.workers = workers;
    rd.bind = 0;
    rd.quiet = 1;
    pf_runtime *rt = NULL;
    ck_assert_int_eq(pf_runtime_create(&rd, &rt), PF_OK);
    return rt;
}

/* Boxes moved a little, a tenth of them by a cell or more: the grid's merge of changed keys and kd's update of
 * changed boxes run, not only their first build. */
static void nudge(pf_aabb *b, size_t n, rng *s)
{
    for (size_t i = 0; i < n; i++) {
        double d[3];
        for (int a = 0; a < 3; a++) d[a] = 1e-4 * (urand(s) - 0.5) + (i % 10 == 0 ? 0.02 * urand(s) : 0.0);
        for (int a = 0; a < 3; a++) {
            b[i].min[a] += d[a];
            b[i].max[a] += d[a];
        }
    }
}

enum { RUN_STEPS = 3 };

/* Under a sanitizer (ThreadSanitizer, or AddressSanitizer in a debug build: five to ten times slower) the runner
 * test keeps the teams of 2 and 3 workers on the first set: the runs on a team are what it is there to check. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

/* The pairs of RUN_STEPS calls of one broad phase on the set moved by nudge after each, concatenated (malloc'd),
 * *np their total; the team's worker count goes from 2 to 3 before the last call when `grow` is given. */
static pf_pair *run_steps(const pf_broadphase_def *def, set_kind kind, size_t n, pf_runtime *grow, size_t *np)
{
    pf_aabb *b = make_set(kind, n, 77);
    pf_broadphase *bp;
    ck_assert_int_eq(pf_broadphase_create(def, &bp), PF_OK);
    rng s = {4321};
    pf_pair *all = NULL;
    *np = 0;
    for (int step = 0; step < RUN_STEPS; step++) {
        if (grow && step == RUN_STEPS - 1) ck_assert_int_eq(pf_runtime_set_workers(grow, 3), PF_OK);
        const pf_pair *p;
        size_t k;
        ck_assert_msg(pf_broadphase_pairs(bp, b, n, &p, &k, NULL) == PF_OK, "%s", pf_last_error());
        all = realloc(all, (*np + k + 1) * sizeof *all);
        if (k) memcpy(all + *np, p, k * sizeof *p);
        *np += k;
        nudge(b, n, &s);
    }
    pf_broadphase_destroy(bp);
    free(b);
    return all;
}

/* Same pairs, same order, with a runtime's team of 1, 2 and 3 workers as the runner as with OpenMP threads 1, 2
 * and 3, over steps of moving boxes, for every method with parallel parts; with a runner that refuses every run
 * (the calling thread does the work), and after the team's worker count changed between calls. The 1-thread
 * OpenMP output is the reference; on the first set and step it is compared with brute's pairs too. One runtime
 * at a time: idle teams spinning beside the one at work would only slow the test. */
START_TEST(test_runner_independence)
{
    const pf_broadphase_method methods[] = {PF_BP_BRUTE, PF_BP_KD, PF_BP_KD_RAW, PF_BP_GRID, PF_BP_HHASH,
                                            PF_BP_MLHASH};
    const set_kind kinds[] = {SET_UNIFORM, SET_CLUSTERED, SET_POLY};
    set_kind kind = kinds[_i];
    if (UNDER_SANITIZER && _i > 0) return;
    size_t mismatched = 0;
    for (size_t mi = 0; mi < sizeof methods / sizeof methods[0]; mi++) {
        /* kd and grid on the uniform set: large enough for every parallel path (> 65536 boxes); brute's
         * triangle and kd on the polydisperse set (whose large boxes it splits into many records) smaller; the
         * others in between (their parallel paths start lower). The polydisperse set's pairs grow with the square
         * of n (kd-raw's candidates: 640 million at 20,000 boxes, 10 GB with the reference): small, and kd-raw
         * just above its parallel threshold (4096) */
        pf_broadphase_method m = methods[mi];
        size_t n = m == PF_BP_KD_RAW && kind == SET_POLY                   ? 4500
                   : m == PF_BP_BRUTE || (m == PF_BP_KD && kind == SET_POLY) ? 6000
                   : kind == SET_POLY                                        ? 10000
                   : (m == PF_BP_KD || m == PF_BP_GRID) && kind == SET_UNIFORM ? 70000
                                                                               : 20000;
        pf_broadphase_def def = pf_broadphase_default_def();
        def.method = methods[mi];
        size_t nref;
        pf_pair *ref = run_steps(&def, kind, n, NULL, &nref);
        if (methods[mi] == PF_BP_BRUTE && kind == SET_UNIFORM) { /* the reference's first step is brute's */
            pf_aabb *b = make_set(kind, n, 77);
            size_t nb, k = 0;
            int rc;
            pf_pair *oracle = run_method(PF_BP_BRUTE, 1, 1, b, n, &nb, 0, &rc);
            while (k < nb && k < nref && ref[k].i == oracle[k].i && ref[k].j == oracle[k].j) k++;
            ck_assert(nb > 0 && k == nb);
            free(oracle);
            free(b);
        }
        for (int c = 1; c < 7; c++) { /* OpenMP 2, 3; teams of 1, 2, 3 (2 -> 3 before the last call); refusing */
            if (UNDER_SANITIZER && c != 4 && c != 5) continue;
            counting_runner r = {.refuse = c == 6};
            def.threads = c < 3 ? c + 1 : 1;
            def.parallel = c < 3 ? NULL : count_run;
            def.parallel_ctx = c < 3 ? NULL : &r;
            if (c >= 3) r.rt = team_of(c == 6 ? 2 : c - 2);
            size_t np;
            pf_pair *got = run_steps(&def, kind, n, c == 4 ? r.rt : NULL, &np);
            if (np != nref || (np && memcmp(got, ref, np * sizeof *got) != 0)) {
                mismatched++;
                fprintf(stderr, "%s on %s, config %d: %zu pairs over the steps, reference %zu\n",
                        pf_broadphase_method_name(methods[mi]), set_names[kind], c, np, nref);
            }
            /* the runner was used (not a vacuous pass): asked for its worker count (a team of 1 then runs
             * nothing more), at least once a call by the others, every run refused by the refusing one */
            if (c >= 3) ck_assert_int_ge(atomic_load(&r.runs), c == 3 ? 1 : RUN_STEPS);
            if (c == 6) ck_assert_int_eq(atomic_load(&r.refused), atomic_load(&r.runs));
            if (c == 5 && methods[mi] != PF_BP_BRUTE) ck_assert_int_gt(atomic_load(&r.runs), RUN_STEPS);
            if (r.rt) pf_runtime_destroy(r.rt);
            free(got);
        }
        free(ref);
    }
    ck_assert_msg(mismatched == 0, "%zu outputs differ from the 1-thread OpenMP one", mismatched);
}
END_TEST

/* A def with a runner: def.parallel_ctx without def.parallel is refused; def.threads is still checked. */
START_TEST(test_runner_def)
{
    pf_broadphase_def def = pf_broadphase_default_def();
    ck_assert(def.parallel == NULL);
    ck_assert_ptr_null(def.parallel_ctx);
    int token;
    def.parallel_ctx = &token;
    pf_broadphase *bp = NULL;
    ck_assert_int_eq(pf_broadphase_create(&def, &bp), PF_EINVAL);
    ck_assert_ptr_null(bp);
    ck_assert_msg(strstr(pf_last_error(), "def.parallel_ctx") != NULL, "message '%s'", pf_last_error());
    def.parallel = count_run;
    def.threads = 0;
    ck_assert_int_eq(pf_broadphase_create(&def, &bp), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "def.threads") != NULL, "message '%s'", pf_last_error());
}
END_TEST

/* A broad phase reused across calls (sap's insertion sort, buffers kept) stays exact as boxes move. */
START_TEST(test_reuse_across_steps)
{
    size_t n = 3000;
    pf_aabb *boxes = make_set(SET_UNIFORM, n, 5);
    const pf_broadphase_method methods[] = {PF_BP_KD, PF_BP_GRID, PF_BP_SAP};
    pf_broadphase *bp[3];
    for (int m = 0; m < 3; m++) {
        pf_broadphase_def def = pf_broadphase_default_def();
        def.method = methods[m];
        ck_assert_int_eq(pf_broadphase_create(&def, &bp[m]), PF_OK);
    }
    rng s = {77};
    for (int step = 0; step < 6; step++) {
        size_t cur = step == 3 ? n - 100 : n; /* one step with fewer boxes */
        size_t nref;
        int rc;
        pf_pair *ref = run_method(PF_BP_BRUTE, 1, 1, boxes, cur, &nref, 1, &rc);
        for (int m = 0; m < 3; m++) {
            const pf_pair *p;
            size_t np;
            ck_assert_int_eq(pf_broadphase_pairs(bp[m], boxes, cur, &p, &np, NULL), PF_OK);
            pf_pair *c = malloc((np + 1) * sizeof *c);
            memcpy(c, p, np * sizeof *c);
            qsort(c, np, sizeof *c, pair_cmp);
            ck_assert_uint_eq(np, nref);
            ck_assert(np == 0 || memcmp(c, ref, np * sizeof *c) == 0);
            free(c);
        }
        free(ref);
        for (size_t i = 0; i < n; i++) { /* small random motion */
            double d[3] = {0.01 * (urand(&s) - 0.5), 0.01 * (urand(&s) - 0.5), 0.01 * (urand(&s) - 0.5)};
            for (int a = 0; a < 3; a++) {
                boxes[i].min[a] += d[a];
                boxes[i].max[a] += d[a];
            }
        }
    }
    for (int m = 0; m < 3; m++) pf_broadphase_destroy(bp[m]);
    free(boxes);
}
END_TEST

/* A grid with a fixed small cell size sends large boxes to its all-pairs list: still exact. */
START_TEST(test_grid_cell_size)
{
    size_t n = 1500;
    pf_aabb *boxes = make_set(SET_POLY, n, 3);
    size_t nref;
    int rc;
    pf_pair *ref = run_method(PF_BP_BRUTE, 1, 1, boxes, n, &nref, 1, &rc);
    double cells[] = {1e-3, 0.05, 2.0};
    for (int k = 0; k < 3; k++) {
        pf_broadphase_def def = pf_broadphase_default_def();
        def.method = PF_BP_GRID;
        def.cell_size = cells[k];
        pf_broadphase *bp;
        ck_assert_int_eq(pf_broadphase_create(&def, &bp), PF_OK);
        const pf_pair *p;
        size_t np;
        ck_assert_int_eq(pf_broadphase_pairs(bp, boxes, n, &p, &np, NULL), PF_OK);
        pf_pair *c = malloc((np + 1) * sizeof *c);
        memcpy(c, p, np * sizeof *c);
        qsort(c, np, sizeof *c, pair_cmp);
        ck_assert_uint_eq(np, nref);
        ck_assert(np == 0 || memcmp(c, ref, np * sizeof *c) == 0);
        free(c);
        pf_broadphase_destroy(bp);
    }
    free(ref);
    free(boxes);
}
END_TEST

/* The grid's stencil layout (boxes of similar sizes, one record each, neighbours within one cell): exact and
 * thread-independent on sets that sit on its cell boundaries: a lattice of touching equal cubes, the same far
 * from the origin (where (x - origin) / cell rounds), random boxes whose sizes differ by up to 1.9x (half of
 *them of the largest size, whose lower corners may lie a cell apart), and points with repeats. records == n tells
 * the stencil layout ran. */
START_TEST(test_grid_stencil_layout)
{
    enum { N = 20000 };
    pf_aabb *boxes = calloc(N, sizeof *boxes);
    rng s = {4242};
    for (int kind = 0; kind < 4; kind++) {
        for (size_t i = 0; i < N; i++) {
            uint64_t c = rng_u64(&s) % 4096; /* lattice cells, many boxes repeated */
            double e = kind == 1 ? 1e-3 : 1.0 / 16.0, off = kind == 1 ? 3e6 : 0.0;
            double x = urand(&s), y = urand(&s), z = urand(&s);
            double h = 0.02 * (urand(&s) < 0.5 ? 1.9 : 1.0 + 0.9 * urand(&s)); /* half the largest */
            switch (kind) {
            case 0:
            case 1:
                boxes[i].min[0] = off + (double)(c % 16) * e;
                boxes[i].min[1] = -off + (double)(c / 16 % 16) * e;
                boxes[i].min[2] = off + (double)(c / 256) * e;
                for (int a = 0; a < 3; a++) boxes[i].max[a] = boxes[i].min[a] + e;
                break;
            case 2: cube_box(&boxes[i], x, y, z, h); break;
            default: cube_box(&boxes[i], (double)(c % 64) / 64.0, (double)(c / 64) / 64.0, z < 0.5 ? 0.25 : 0.75, 0.0);
            }
        }
        size_t nref, n1, n2;
        int rc;
        pf_pair *ref = run_method(PF_BP_BRUTE, 1, 1, boxes, N, &nref, 1, &rc);
        ck_assert_msg(nref > 0, "set %d: brute found no pairs", kind);
        pf_pair *p1 = run_method(PF_BP_GRID, 1, 1, boxes, N, &n1, 0, &rc);
        pf_pair *p2 = run_method(PF_BP_GRID, 2, 1, boxes, N, &n2, 0, &rc);
        ck_assert_msg(n1 == n2 && memcmp(p1, p2, n1 * sizeof *p1) == 0, "set %d: 1 and 2 threads differ", kind);
        qsort(p1, n1, sizeof *p1, pair_cmp);
        ck_assert_msg(n1 == nref, "set %d: grid %zu pairs, brute %zu", kind, n1, nref);
        ck_assert(memcmp(p1, ref, n1 * sizeof *p1) == 0);
        pf_broadphase_def def = pf_broadphase_default_def();
        def.method = PF_BP_GRID;
        pf_broadphase *bp;
        const pf_pair *p;
        size_t np;
        pf_broadphase_stats st;
        ck_assert_int_eq(pf_broadphase_create(&def, &bp), PF_OK);
        ck_assert_int_eq(pf_broadphase_pairs(bp, boxes, N, &p, &np, &st), PF_OK);
        ck_assert_uint_eq(st.records, N);
        pf_broadphase_destroy(bp);
        free(ref);
        free(p1);
        free(p2);
    }
    free(boxes);
}
END_TEST

START_TEST(test_bad_input)
{
    const pf_broadphase_method methods[] = {PF_BP_BRUTE, PF_BP_KD, PF_BP_KD_RAW, PF_BP_GRID, PF_BP_SAP};
    for (size_t mi = 0; mi < sizeof methods / sizeof methods[0]; mi++) {
        pf_broadphase_def def = pf_broadphase_default_def();
        def.method = methods[mi];
        pf_broadphase *bp;
        ck_assert_int_eq(pf_broadphase_create(&def, &bp), PF_OK);
        pf_aabb boxes[5];
        for (int i = 0; i < 5; i++) cube_box(&boxes[i], i * 0.5, 0, 0, 0.3);
        const pf_pair *p;
        size_t np = 99;
        for (int bad = 0; bad < 4; bad++) {
            pf_aabb saved = boxes[3];
            if (bad == 0) boxes[3].min[1] = NAN;
            if (bad == 1) boxes[3].max[2] = INFINITY;
            if (bad == 2) boxes[3].min[0] = -INFINITY;
            if (bad == 3) boxes[3].min[2] = boxes[3].max[2] + 1.0;
            ck_assert_int_eq(pf_broadphase_pairs(bp, boxes, 5, &p, &np, NULL), PF_EINVAL);
            ck_assert_msg(strstr(pf_last_error(), "box 3") != NULL, "message '%s' does not name box 3",
                          pf_last_error());
            ck_assert_uint_eq(np, 0);
            boxes[3] = saved;
        }
        /* still usable afterwards; the empty set gives no pairs */
        ck_assert_int_eq(pf_broadphase_pairs(bp, boxes, 5, &p, &np, NULL), PF_OK);
        if (methods[mi] != PF_BP_KD_RAW) ck_assert_uint_eq(np, 4); /* kd-raw: candidates, no exact test */
        pf_broadphase_stats st;
        ck_assert_int_eq(pf_broadphase_pairs(bp, NULL, 0, &p, &np, &st), PF_OK);
        ck_assert_uint_eq(np, 0);
        ck_assert_uint_eq(st.pairs, 0);
        pf_broadphase_destroy(bp);
    }
    pf_broadphase_def def = pf_broadphase_default_def();
    def.threads = 0;
    pf_broadphase *bp = NULL;
    ck_assert_int_eq(pf_broadphase_create(&def, &bp), PF_EINVAL);
    ck_assert_ptr_null(bp);
}
END_TEST

START_TEST(test_names)
{
    for (int m = 0; m < PF_BP_METHOD_COUNT; m++) {
        pf_broadphase_method back;
        ck_assert_int_eq(pf_broadphase_method_parse(pf_broadphase_method_name((pf_broadphase_method)m), &back),
                         PF_OK);
        ck_assert_int_eq((int)back, m);
    }
    pf_broadphase_method x;
    ck_assert_int_eq(pf_broadphase_method_parse("octree", &x), PF_EINVAL);
    ck_assert_int_eq(pf_broadphase_method_available(PF_BP_KD), 1);
    ck_assert_int_eq(pf_broadphase_method_available(PF_BP_BRUTE), 1);
    ck_assert_int_eq(pf_broadphase_method_available(PF_BP_METHOD_COUNT), 0);
}
END_TEST

/* kd's counters: records between n and 8n (Poirrier 2009, §4.1), n without splitting; candidates >= pairs. */
START_TEST(test_kd_counters)
{
    size_t n = 5000;
    pf_aabb *boxes = make_set(SET_UNIFORM, n, 11);
    for (int split = 0; split <= 1; split++) {
        pf_broadphase_def def = pf_broadphase_default_def();
        def.kd_split = split;
        pf_broadphase *bp;
        ck_assert_int_eq(pf_broadphase_create(&def, &bp), PF_OK);
        const pf_pair *p;
        size_t np;
        pf_broadphase_stats st;
        ck_assert_int_eq(pf_broadphase_pairs(bp, boxes, n, &p, &np, &st), PF_OK);
        if (split) {
            ck_assert_uint_ge(st.records, n);
            ck_assert_uint_le(st.records, 8 * n);
        } else {
            ck_assert_uint_eq(st.records, n);
        }
        ck_assert_uint_ge(st.candidates, st.pairs);
        ck_assert(st.bytes > 0);
        ck_assert(st.cell_volume > 0.0);
        pf_broadphase_destroy(bp);
    }
    free(boxes);
}
END_TEST

/* kd keeps its sorted records from one call to the next and updates only the boxes whose keys changed: over steps
 * of small motion, jumps of 5 % and a third of the boxes (one batch), of two thirds (several batches of new
 * records) and a change of the root cell (a rebuild),
 * a reused kd (1 and 2 threads) gives exactly the output, order included, of a fresh kd on the same boxes, and
 * the pairs of brute. Same for kd-raw's candidates. */
START_TEST(test_kd_incremental)
{
    size_t n = 6000;
    set_kind kind = (set_kind)(_i == 0 ? SET_UNIFORM : _i == 1 ? SET_DEGENERATE : SET_POLY);
    pf_aabb *boxes = make_set(kind, n, 21);
    const pf_broadphase_method methods[] = {PF_BP_KD, PF_BP_KD_RAW};
    /* kd-raw on the degenerate set lists millions of candidates: its order is checked on the uniform set */
    for (int mi = 0; mi < (kind == SET_UNIFORM ? 2 : 1); mi++) {
        pf_broadphase *kept[2];
        for (int t = 0; t < 2; t++) {
            pf_broadphase_def def = pf_broadphase_default_def();
            def.method = methods[mi];
            def.threads = t + 1;
            ck_assert_int_eq(pf_broadphase_create(&def, &kept[t]), PF_OK);
        }
        pf_aabb *b = malloc(n * sizeof *b);
        memcpy(b, boxes, n * sizeof *b);
        rng s = {1234};
        size_t mismatched = 0;
        for (int step = 0; step < 10; step++) {
            size_t nf;
            int rc;
            pf_pair *fresh = run_method(methods[mi], 1, 1, b, n, &nf, 0, &rc);
            for (int t = 0; t < 2; t++) {
                const pf_pair *p;
                size_t np;
                ck_assert_int_eq(pf_broadphase_pairs(kept[t], b, n, &p, &np, NULL), PF_OK);
                mismatched += np != nf || (np && memcmp(p, fresh, np * sizeof *p) != 0);
            }
            if (mi == 0) mismatched += mismatch_brute(fresh, nf, b, n);
            free(fresh);
            for (size_t i = 0; i < n; i++) {
                double d[3];
                for (int a = 0; a < 3; a++) d[a] = 4e-5 * (urand(&s) - 0.5); /* a few boxes change cells */
                if (step == 3 && i % 20 == 0) d[0] += 0.3 * urand(&s); /* 5 % jump: still an update */
                if (step == 4 && i % 3 == 0) d[1] += 0.3 * urand(&s);  /* a third jump: an update */
                if (step == 5 && i % 3 != 0) d[2] += 0.3 * urand(&s);  /* two thirds: in batches */
                for (int a = 0; a < 3; a++) {
                    b[i].min[a] += d[a];
                    b[i].max[a] += d[a];
                }
            }
            if (step == 6) { /* one box far away: a new root cell */
                for (int a = 0; a < 3; a++) {
                    b[7].min[a] += 3.0;
                    b[7].max[a] += 3.0;
                }
            }
        }
        ck_assert_msg(mismatched == 0, "%s on %s: %zu mismatches between reused and fresh",
                      pf_broadphase_method_name(methods[mi]), set_names[kind], mismatched);
        for (int t = 0; t < 2; t++) pf_broadphase_destroy(kept[t]);
        free(b);
    }
    free(boxes);
}
END_TEST

/* kd's update by difference (only the records a box gains and loses, when they fit the room the steps before
 * measured) and its fallback (a jump past that room): boxes drifting at steady speeds, so that about the same
 * share changes keys each step, one step where a quarter jump, then drift again. At every step the reused kd at
 * 1, 2 and 3 threads gives exactly the output, order included, and the record array (by box: the ranks depend
 * on the history) of a fresh kd on the same boxes (the rebuild, which the update path never runs), and at the
 * last step the pairs of brute. A record wrong in a cell that meets no other box changes no pair: the arrays
 * are compared too. Enough records (> 65536) that the drop of the lost records runs in parallel chunks. */
START_TEST(test_kd_incremental_diff)
{
    size_t n = 40000;
    pf_aabb *b = make_set(SET_UNIFORM, n, 33);
    double (*vel)[3] = malloc(n * sizeof *vel);
    rng s = {777};
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) vel[i][a] = 4e-4 * (urand(&s) - 0.5);
    pf_broadphase *kept[3];
    for (int t = 0; t < 3; t++) {
        pf_broadphase_def def = pf_broadphase_default_def();
        def.method = PF_BP_KD;
        def.threads = t + 1;
        ck_assert_int_eq(pf_broadphase_create(&def, &kept[t]), PF_OK);
    }
    size_t mismatched = 0, records = 0;
    int rc;
    for (int step = 0; step < 12; step++) {
        size_t nf;
        pf_pair *fresh = run_method(PF_BP_KD, 1, 1, b, n, &nf, 0, &rc);
        mismatched += mismatch_kept(kept, b, n, fresh, nf, &records);
        mismatched += records_mismatch(kept, b, n); /* the array itself, beside its pairs */
        if (step == 11) mismatched += mismatch_brute(fresh, nf, b, n);
        free(fresh);
        for (size_t i = 0; i < n; i++) {
            double d[3];
            for (int a = 0; a < 3; a++) d[a] = vel[i][a];
            if (step == 6 && i % 4 == 0) d[i % 3] += 0.05 * urand(&s); /* a quarter jump: past the room */
            for (int a = 0; a < 3; a++) {
                /* kept inside the unit cube, so that the root cell stays and no step rebuilds */
                if (b[i].min[a] + d[a] < 0.01 || b[i].max[a] + d[a] > 0.99) d[a] = -d[a], vel[i][a] = -vel[i][a];
                b[i].min[a] += d[a];
                b[i].max[a] += d[a];
            }
        }
    }
    ck_assert_msg(records > 65536, "only %zu records: the parallel drop is not reached", records);
    ck_assert_msg(mismatched == 0, "kd update by difference: %zu mismatches between reused and fresh or brute",
                  mismatched);
    for (int t = 0; t < 3; t++) pf_broadphase_destroy(kept[t]);
    free(vel);
    free(b);
}
END_TEST

/* kd's refresh quantises the caller's boxes in index order and scatters their corners by rank (box -> rank kept
 * from the last rebuild). Here the caller's array changes under that mapping: small drift, a call with nothing
 * moved, neighbours swapped (every index gets another box: all flagged), a block reversed, drift again; n odd
 * (chunks by index and by rank cut differently, a last word of ranks partly used), split on and off, 1, 2 and 3
 * threads against a fresh kd, order included, and against brute force at two of the steps. The boxes stay in the
 * unit cube, so the root cell stays and no step rebuilds. */
START_TEST(test_kd_refresh_reordered)
{
    size_t n = 12037;
    pf_aabb *b = make_set(SET_UNIFORM, n, 41);
    rng s = {4242};
    size_t mismatched = 0, brute_checks = 0;
    for (int split = 0; split <= 1; split++) {
        pf_broadphase *kept[3];
        for (int t = 0; t < 3; t++) {
            pf_broadphase_def def = pf_broadphase_default_def();
            def.method = PF_BP_KD;
            def.threads = t + 1;
            def.kd_split = split;
            ck_assert_int_eq(pf_broadphase_create(&def, &kept[t]), PF_OK);
        }
        for (int step = 0; step < 9; step++) {
            int rc;
            size_t nf;
            pf_pair *fresh = run_method(PF_BP_KD, 1, split, b, n, &nf, 0, &rc);
            mismatched += mismatch_kept(kept, b, n, fresh, nf, NULL);
            if (step == 4 || step == 8) {
                mismatched += mismatch_brute(fresh, nf, b, n);
                brute_checks++;
            }
            free(fresh);
            if (step == 3) continue; /* the next call sees the same boxes */
            if (step == 4) {
                for (size_t i = 0; i + 1 < n; i += 2) {
                    pf_aabb t = b[i];
                    b[i] = b[i + 1];
                    b[i + 1] = t;
                }
                continue;
            }
            if (step == 5) {
                for (size_t i = n / 3, j = n / 2; i < j; i++, j--) {
                    pf_aabb t = b[i];
                    b[i] = b[j];
                    b[j] = t;
                }
                continue;
            }
            for (size_t i = 0; i < n; i++)
                for (int a = 0; a < 3; a++) {
                    double d = 2e-3 * (urand(&s) - 0.5);
                    if (b[i].min[a] + d < 0.005 || b[i].max[a] + d > 0.995) d = 0.0;
                    b[i].min[a] += d;
                    b[i].max[a] += d;
                }
        }
        for (int t = 0; t < 3; t++) pf_broadphase_destroy(kept[t]);
    }
    ck_assert_uint_eq(brute_checks, 4);
    ck_assert_msg(mismatched == 0, "kd refresh under a reordered array: %zu mismatches against fresh or brute",
                  mismatched);
    free(b);
}
END_TEST

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The kd-tree's sort against qsort: sizes around their switch-over points, random words, few distinct values,
 * clustered high bits (as cell keys are), all equal; 1 and 2 threads. */
START_TEST(test_radix_sort_equals_qsort)
{
    const size_t sizes[] = {0, 1, 2, 24, 25, 300, 4095, 4096, 5000, 65535, 70000, 300000};
    rng s = {99};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int kind = 0; kind < 4; kind++)
            for (int threads = 1; threads <= 2; threads++) {
                size_t n = sizes[si];
                uint64_t *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
                uint64_t *tmp = malloc((n + 1) * sizeof *tmp);
                for (size_t i = 0; i < n; i++) {
                    uint64_t r = rng_u64(&s);
                    a[i] = kind == 0 ? r : kind == 1 ? r % 7 : kind == 2 ? (r % 5) << 58 | (r >> 40) : 42;
                }
                memcpy(b, a, n * sizeof *a);
                qsort(a, n, sizeof *a, u64_cmp);
                pf_par par = {NULL, NULL, threads, NULL};
                pf_radix_sort_u64_scratch(b, n, tmp, &par);
                ck_assert_msg(!n || !memcmp(a, b, n * sizeof *a), "scratch sort: n %zu kind %d threads %d", n, kind,
                              threads);
                free(a);
                free(b);
                free(tmp);
            }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("collision_broadphase");
    TCase *tc = tcase_create("oracle");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_against_brute, 0, SET_COUNT);
    tcase_add_test(tc, test_reuse_across_steps);
    tcase_add_loop_test(tc, test_kd_incremental, 0, 3);
    tcase_add_test(tc, test_kd_incremental_diff);
    tcase_add_test(tc, test_kd_refresh_reordered);
    tcase_add_test(tc, test_grid_cell_size);
    tcase_add_test(tc, test_grid_stencil_layout);
    tcase_add_test(tc, test_radix_sort_equals_qsort);
    suite_add_tcase(s, tc);
    TCase *th = tcase_create("threads");
    tcase_set_timeout(th, 300);
    tcase_add_test(th, test_thread_independence);
    tcase_add_loop_test(th, test_runner_independence, 0, 3);
    suite_add_tcase(s, th);
    TCase *api = tcase_create("api");
    tcase_add_test(api, test_bad_input);
    tcase_add_test(api, test_names);
    tcase_add_test(api, test_runner_def);
    tcase_add_test(api, test_kd_counters);
    suite_add_tcase(s, api);
    return s;
}
