/* Check suite of the grid broad phase's stencil layout: its records kept in order from one call to the next
 * (nothing moved, a few boxes moved, everything moved), the large boxes it keeps apart, and its AVX2 sweep
 * against the scalar reference. Oracles: brute force, a fresh grid on the same boxes (the order of the pairs
 * is a function of the boxes, whatever the history), the same grid with one thread, the scalar sweep. */
#include "check_main.h"
#include "box_sets.h"
#include "rng.h"

#include "physflow/collision.h"
#include "collision/broadphase_backend.h"
#include "collision/grid_scan.h"
#include "collision/grid_stencil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 20000 }; /* above 16384: the grid runs its threads */

static int pair_cmp(const void *x, const void *y)
{
    const pf_pair *a = x, *b = y;
    if (a->i != b->i) return a->i < b->i ? -1 : 1;
    return a->j < b->j ? -1 : a->j > b->j;
}

/* n cubes of half extent 0.5 * cbrt(0.2 / n) .. 0.9 of that in the unit cube (about 1.5 overlaps a box). */
static void random_boxes(pf_aabb *boxes, size_t n, rng *s)
{
    double half = 0.5 * cbrt(0.2 / (double)n);
    for (size_t i = 0; i < n; i++)
        cube_box(&boxes[i], urand(s), urand(s), urand(s), half * (0.9 + 0.1 * urand(s)));
}

static pf_broadphase *grid_new(int threads)
{
    pf_broadphase_def def = pf_broadphase_default_def();
    def.method = PF_BP_GRID;
    def.threads = threads;
    pf_broadphase *bp;
    ck_assert_int_eq(pf_broadphase_create(&def, &bp), PF_OK);
    return bp;
}

/* The pairs of bp on the boxes, copied in the grid's order; their stats in *st. */
static pf_pair *pairs_of(pf_broadphase *bp, const pf_aabb *boxes, size_t n, size_t *np, pf_broadphase_stats *st)
{
    const pf_pair *p;
    ck_assert_msg(pf_broadphase_pairs(bp, boxes, n, &p, np, st) == PF_OK, "%s", pf_last_error());
    pf_pair *copy = malloc((*np + 1) * sizeof *copy);
    if (*np) memcpy(copy, p, *np * sizeof *copy);
    return copy;
}

/* Brute force's pairs, sorted. */
static pf_pair *brute_pairs(const pf_aabb *boxes, size_t n, size_t *np)
{
    pf_broadphase_def def = pf_broadphase_default_def();
    def.method = PF_BP_BRUTE;
    pf_broadphase *bp;
    ck_assert_int_eq(pf_broadphase_create(&def, &bp), PF_OK);
    pf_pair *p = pairs_of(bp, boxes, n, np, NULL);
    pf_broadphase_destroy(bp);
    qsort(p, *np, sizeof *p, pair_cmp);
    return p;
}

/* The pairs of the grid kept across calls (kept) on the boxes equal, in order, those of a fresh grid and of a
 * fresh one-thread grid, and as a set brute force's. Returns how the kept grid ordered its records. */
static pf_grid_order check_step(pf_broadphase *kept, const pf_aabb *boxes, size_t n, const char *what)
{
    size_t nk, nf, n1, nb;
    pf_broadphase_stats sk, sf;
    pf_pair *pk = pairs_of(kept, boxes, n, &nk, &sk);
    pf_grid_order order = pf_grid_stencil_of(pf_broadphase_state(kept))->order;
    pf_broadphase *fresh = grid_new(2), *one = grid_new(1);
    pf_pair *pf = pairs_of(fresh, boxes, n, &nf, &sf);
    pf_pair *p1 = pairs_of(one, boxes, n, &n1, NULL);
    ck_assert_msg(nk == nf && !memcmp(pk, pf, nk * sizeof *pk), "%s: kept and fresh grids differ", what);
    ck_assert_msg(nk == n1 && !memcmp(pk, p1, nk * sizeof *pk), "%s: 1 and 2 threads differ", what);
    ck_assert_uint_eq(sk.candidates, sf.candidates);
    ck_assert_msg(sk.records == n, "%s: not the stencil layout (%zu records)", what, (size_t)sk.records);
    pf_pair *ref = brute_pairs(boxes, n, &nb);
    ck_assert_msg(nb > 0, "%s: no pairs", what);
    qsort(pk, nk, sizeof *pk, pair_cmp);
    ck_assert_msg(nk == nb && !memcmp(pk, ref, nb * sizeof *pk), "%s: %zu pairs, brute %zu", what, nk, nb);
    pf_broadphase_destroy(fresh);
    pf_broadphase_destroy(one);
    free(pk);
    free(pf);
    free(p1);
    free(ref);
    return order;
}

/* Whether the last call of bp took its keys from its survey (the last frame kept). */
static int keys_guessed(pf_broadphase *bp)
{
    return pf_grid_stencil_of(pf_broadphase_state(bp))->keys_guessed;
}

/* One grid kept across calls: a first sort, a call where nothing moved (order kept), a few boxes moved far and
 * the rest nudged (the changed ones merged in), one box moved out of the bounds (the frame changes, so the keys
 * that the survey computed in the last frame are not used), every box moved (sorted afresh), and one box grown
 * huge (kept apart, merged; the survey's keys ignore extents, so not used either). */
START_TEST(test_grid_coherent_steps)
{
    int threads = _i + 1;
    pf_aabb *boxes = malloc(N * sizeof *boxes);
    rng s = {777};
    random_boxes(boxes, N, &s);
    pf_broadphase *kept = grid_new(threads);
    ck_assert_int_eq(check_step(kept, boxes, N, "first call"), PF_GRID_SORTED);
    ck_assert_int_eq(check_step(kept, boxes, N, "nothing moved"), PF_GRID_UNCHANGED);
    ck_assert_uint_eq(pf_grid_stencil_of(pf_broadphase_state(kept))->changed, 0);
    ck_assert(keys_guessed(kept));

    double half = 0.5 * cbrt(0.2 / (double)N);
    for (size_t i = 0; i < N; i++) {
        double d = i % 29 == 0 ? urand(&s) - 0.5 : 1e-3 * half * (urand(&s) - 0.5); /* far, or a nudge */
        int a = (int)(i % 3);
        d = fmax(-boxes[i].min[a], fmin(d, 1.0 - boxes[i].max[a])); /* the bounds stay: the frame stays */
        boxes[i].min[a] += d;
        boxes[i].max[a] += d;
    }
    ck_assert_int_eq(check_step(kept, boxes, N, "a few moved"), PF_GRID_MERGED);
    size_t changed = pf_grid_stencil_of(pf_broadphase_state(kept))->changed;
    ck_assert_msg(changed > N / 40 && changed < N / 4, "%zu boxes changed cell", changed);
    ck_assert(keys_guessed(kept));

    pf_aabb saved = boxes[17];
    boxes[17].min[0] += 1.5; /* past the bounds in x: rows of more cells */
    boxes[17].max[0] += 1.5;
    ck_assert_int_eq(check_step(kept, boxes, N, "one box out of the bounds"), PF_GRID_SORTED);
    ck_assert(!keys_guessed(kept));
    boxes[17] = saved;
    ck_assert_int_eq(check_step(kept, boxes, N, "back in the bounds"), PF_GRID_SORTED);

    for (size_t i = 0; i < N; i++)
        for (int a = 0; a < 3; a++) {
            double d = 4 * half * (urand(&s) - 0.5);
            boxes[i].min[a] += d;
            boxes[i].max[a] += d;
        }
    ck_assert_int_eq(check_step(kept, boxes, N, "everything moved"), PF_GRID_SORTED);

    cube_box(&boxes[N / 2], 0.5, 0.5, 0.5, 0.2); /* one huge box: kept apart */
    ck_assert_int_eq(check_step(kept, boxes, N, "one box grown huge"), PF_GRID_MERGED);
    ck_assert(!keys_guessed(kept));
    pf_broadphase_destroy(kept);
    free(boxes);
}
END_TEST

/* The merge of the changed boxes into the last order, with its work uneven over the chunks: changed boxes only
 * among the first indices (the other chunks collect none), then a slab of boxes, contiguous in the record
 * order and wider than a chunk, moved by more than a cell along x (a chunk whose old records all changed
 * keeps none, and chunk bounds fall on changed records). Each call is checked as in test_grid_coherent_steps
 * (a fresh grid, one thread, brute force) for 3 and 8 threads. */
START_TEST(test_grid_merge_uneven_chunks)
{
    int threads = _i == 0 ? 3 : 8;
    pf_aabb *boxes = malloc(N * sizeof *boxes);
    rng s = {4242};
    random_boxes(boxes, N, &s);
    pf_broadphase *kept = grid_new(threads);
    ck_assert_int_eq(check_step(kept, boxes, N, "first call"), PF_GRID_SORTED);
    double half = 0.5 * cbrt(0.2 / (double)N);
    for (size_t i = 0; i < N / 50; i++) { /* the first indices only, far within the bounds */
        double d = urand(&s) - 0.5;
        d = fmax(-boxes[i].min[1], fmin(d, 1.0 - boxes[i].max[1]));
        boxes[i].min[1] += d;
        boxes[i].max[1] += d;
    }
    ck_assert_int_eq(check_step(kept, boxes, N, "the first indices moved"), PF_GRID_MERGED);
    size_t changed = pf_grid_stencil_of(pf_broadphase_state(kept))->changed;
    ck_assert_msg(changed > N / 100 && changed <= N / 50, "%zu boxes changed cell", changed);

    /* z in [0.5, 0.7): a fifth of the boxes, contiguous in the records (z is the slowest axis of the keys), more
     * than one chunk of 8; moved by 3 half extents (more than a cell) towards x = 0.5, the outermost boxes in
     * x left where they are so that the bounds, and the frame, stay */
    double lo = 1.0, hi = 0.0;
    for (size_t i = 0; i < N; i++) {
        lo = fmin(lo, boxes[i].min[0]);
        hi = fmax(hi, boxes[i].max[0]);
    }
    for (size_t i = 0; i < N; i++) {
        pf_aabb *b = &boxes[i];
        if (b->min[2] < 0.5 || b->min[2] >= 0.7 || b->min[0] == lo || b->max[0] == hi) continue;
        double d = b->min[0] < 0.5 ? 3.0 * half : -3.0 * half;
        b->min[0] += d;
        b->max[0] += d;
    }
    ck_assert_int_eq(check_step(kept, boxes, N, "a slab moved"), PF_GRID_MERGED);
    changed = pf_grid_stencil_of(pf_broadphase_state(kept))->changed;
    ck_assert_msg(changed > N / 6 && changed < N / 4, "%zu boxes changed cell", changed);
    pf_broadphase_destroy(kept);
    free(boxes);
}
END_TEST

/* The records a kept grid's merge writes (each chunk gathers its own boxes, in as many chunks as PARTS_PER_WORKER
 * times the workers) equal, byte for byte with their padding, those of a fresh one-thread grid, which sorts
 * afresh and copies in a pass of its own; for 2, 3 and 8 threads, a few boxes moved (merged) and then none
 * (order kept, copied in parts). */
START_TEST(test_grid_merged_records_match_fresh)
{
    static const int counts[] = {2, 3, 8};
    int threads = counts[_i];
    pf_aabb *boxes = malloc(N * sizeof *boxes);
    rng s = {9001};
    random_boxes(boxes, N, &s);
    pf_broadphase *kept = grid_new(threads);
    check_step(kept, boxes, N, "first call");
    double half = 0.5 * cbrt(0.2 / (double)N);
    for (int step = 0; step < 3; step++) {
        for (size_t i = 0; i < N; i++) {
            double d = step == 2 ? 0.0 : (i % 11 == 0 ? 3.0 : 1e-3) * half * (urand(&s) - 0.5);
            int a = (int)((i + (size_t)step) % 3);
            if (boxes[i].min[a] < 0.1 || boxes[i].max[a] > 0.9) continue; /* the bounds stay: the frame stays */
            boxes[i].min[a] += d;
            boxes[i].max[a] += d;
        }
        pf_grid_order want = step == 2 ? PF_GRID_UNCHANGED : PF_GRID_MERGED;
        ck_assert_int_eq(check_step(kept, boxes, N, "moved"), want);
        pf_broadphase *one = grid_new(1);
        size_t np;
        free(pairs_of(one, boxes, N, &np, NULL));
        const pf_grid_rec *rk = pf_grid_stencil_of(pf_broadphase_state(kept))->rec;
        const pf_grid_rec *r1 = pf_grid_stencil_of(pf_broadphase_state(one))->rec;
        ck_assert_int_eq(pf_grid_stencil_of(pf_broadphase_state(one))->order, PF_GRID_SORTED);
        for (size_t r = 0; r < N + GRID_PAD; r++)
            ck_assert_msg(!memcmp(&rk[r], &r1[r], sizeof rk[r]), "%d threads, step %d: record %zu differs", threads,
                          step, r);
        pf_broadphase_destroy(one);
    }
    pf_broadphase_destroy(kept);
    free(boxes);
}
END_TEST

/* Large boxes among small ones are kept apart (the stencil layout still runs, stats.records == n): a box over
 * the whole set (tested against every record), boxes over a few rows, a flat plate, a long thin rod; their
 * pairs with the small boxes and with each other equal brute force's, for 1 and 2 threads. */
START_TEST(test_grid_large_boxes_apart)
{
    pf_aabb *boxes = malloc(N * sizeof *boxes);
    rng s = {31337};
    random_boxes(boxes, N, &s);
    cube_box(&boxes[7], 0.5, 0.5, 0.5, 0.6);        /* over everything */
    cube_box(&boxes[1000], 0.3, 0.6, 0.2, 0.05);    /* a few rows */
    cube_box(&boxes[1001], 0.32, 0.61, 0.22, 0.04); /* overlapping the last */
    boxes[N - 1] = (pf_aabb){{0.0, 0.0, 0.4}, {1.0, 1.0, 0.4}};               /* a flat plate */
    boxes[N - 2] = (pf_aabb){{0.1, 0.5, 0.5}, {0.9, 0.5 + 1e-3, 0.5 + 1e-3}}; /* a rod along x */
    for (int threads = 1; threads <= 2; threads++) {
        pf_broadphase *bp = grid_new(threads);
        check_step(bp, boxes, N, "large boxes");
        boxes[1000].max[0] += 0.1; /* grown: still apart, merged in */
        check_step(bp, boxes, N, "large boxes, one grown");
        boxes[1000].max[0] -= 0.1;
        pf_broadphase_destroy(bp);
    }
    free(boxes);
}
END_TEST

/* The AVX2 sweep (where the processor has it) gives the scalar reference's pairs in the same order, and the
 * same candidates, on equal cubes, on a lattice of touching cubes (every test decided by equal coordinates),
 * on points with repeats, and with large boxes kept apart; the scalar sweep's pairs equal brute force's. */
START_TEST(test_grid_simd_matches_scalar)
{
    pf_aabb *boxes = malloc(N * sizeof *boxes);
    rng s = {2024};
    for (int kind = 0; kind < 4; kind++) {
        random_boxes(boxes, N, &s);
        for (size_t i = 0; i < N && kind == 1; i++) {
            uint64_t c = rng_u64(&s) % 32768;
            double e = 1.0 / 32.0;
            boxes[i] = (pf_aabb){{(double)(c % 32) * e, (double)(c / 32 % 32) * e, (double)(c / 1024) * e},
                                 {(double)(c % 32 + 1) * e, (double)(c / 32 % 32 + 1) * e, (double)(c / 1024 + 1) * e}};
        }
        for (size_t i = 0; i < N && kind == 2; i++) {
            uint64_t c = rng_u64(&s) % 20000;
            cube_box(&boxes[i], (double)(c % 100) / 100.0, (double)(c / 100 % 100) / 100.0, (double)(c / 10000), 0.0);
        }
        if (kind == 3) {
            cube_box(&boxes[3], 0.5, 0.5, 0.5, 0.7);
            cube_box(&boxes[4], 0.2, 0.2, 0.8, 0.03);
        }
        size_t nv[2], nb;
        pf_broadphase_stats st[2];
        pf_pair *p[2];
        for (int simd = 0; simd < 2; simd++) {
            pf_grid_simd = simd;
            pf_broadphase *bp = grid_new(1 + simd);
            p[simd] = pairs_of(bp, boxes, N, &nv[simd], &st[simd]);
            pf_broadphase_destroy(bp);
        }
        pf_grid_simd = 1;
        ck_assert_msg(pf_grid_sweep_select() == pf_grid_sweep_scalar || pf_grid_sweep_select() == pf_grid_sweep_avx2,
                      "an unknown sweep");
        ck_assert_msg(nv[0] == nv[1] && !memcmp(p[0], p[1], nv[0] * sizeof *p[0]), "set %d: AVX2 and scalar differ",
                      kind);
        ck_assert_uint_eq(st[0].candidates, st[1].candidates);
        ck_assert_uint_eq(st[0].records, N);
        pf_pair *ref = brute_pairs(boxes, N, &nb);
        qsort(p[0], nv[0], sizeof *p[0], pair_cmp);
        ck_assert_msg(nb > 0 && nv[0] == nb && !memcmp(p[0], ref, nb * sizeof *ref), "set %d: scalar %zu, brute %zu",
                      kind, nv[0], nb);
        free(ref);
        free(p[0]);
        free(p[1]);
    }
    free(boxes);
}
END_TEST

/* The grid refuses bad boxes in its survey (broadphase.c leaves the check to it): NaN, infinite on either side
 * or both, and min above max by one ulp, at the first, a middle (not in the first part) and the last index,
 * each naming that box as pf_check_aabb does (PF_EINVAL, no pairs); a kept grid, with its last order, then
 * gives a fresh grid's pairs (check_step) with its survey's keys, and the spread layout (a cell size given)
 * refuses them the same way. A box out to the largest coordinates taken (+-PF_AABB_COORD_MAX) is accepted, with
 * brute force's pairs (beyond it every method refuses the box: test_api_collision.c). */
START_TEST(test_grid_checks_boxes)
{
    pf_aabb *boxes = malloc(N * sizeof *boxes);
    rng s = {99};
    random_boxes(boxes, N, &s);
    pf_broadphase *kept = grid_new(2);
    pf_broadphase_def def = pf_broadphase_default_def();
    def.method = PF_BP_GRID;
    def.cell_size = 0.05;
    pf_broadphase *spread;
    ck_assert_int_eq(pf_broadphase_create(&def, &spread), PF_OK);
    check_step(kept, boxes, N, "first call");
    const size_t at[] = {0, N / 2 + 1, N - 1};
    for (size_t w = 0; w < sizeof at / sizeof at[0]; w++)
        for (int bad = 0; bad < 7; bad++) {
            size_t i = at[w];
            pf_aabb saved = boxes[i];
            int a = bad % 3;
            if (bad == 0) boxes[i].min[a] = NAN;
            if (bad == 1) boxes[i].max[a] = NAN;
            if (bad == 2) boxes[i].max[a] = INFINITY;
            if (bad == 3) boxes[i].min[a] = -INFINITY;
            if (bad == 4) boxes[i].min[a] = boxes[i].max[a] = INFINITY;
            if (bad == 5) boxes[i].min[a] = -INFINITY, boxes[i].max[a] = INFINITY;
            if (bad == 6) boxes[i].min[a] = nextafter(boxes[i].max[a], INFINITY);
            char name[32];
            snprintf(name, sizeof name, "box %zu:", i);
            pf_broadphase *bps[2] = {kept, spread};
            for (int b = 0; b < 2; b++) {
                const pf_pair *p;
                size_t np = 99;
                ck_assert_int_eq(pf_broadphase_pairs(bps[b], boxes, N, &p, &np, NULL), PF_EINVAL);
                ck_assert_msg(strstr(pf_last_error(), name) != NULL, "bad %d at %zu: '%s'", bad, i, pf_last_error());
                ck_assert_uint_eq(np, 0);
            }
            boxes[i] = saved;
        }
    check_step(kept, boxes, N, "after the bad calls");
    ck_assert(keys_guessed(kept));
    pf_broadphase_destroy(kept);
    pf_broadphase_destroy(spread);

    enum { SMALL = 50 };
    random_boxes(boxes, SMALL, &s);
    const double L = PF_AABB_COORD_MAX;
    boxes[SMALL / 2] = (pf_aabb){{-L, -L, -L}, {L, L, L}};
    pf_broadphase *bp = grid_new(1);
    size_t np, nb;
    pf_pair *p = pairs_of(bp, boxes, SMALL, &np, NULL);
    pf_pair *ref = brute_pairs(boxes, SMALL, &nb);
    qsort(p, np, sizeof *p, pair_cmp);
    ck_assert_msg(nb >= SMALL - 1 && np == nb && !memcmp(p, ref, nb * sizeof *p), "%zu pairs, brute %zu", np, nb);
    pf_broadphase_destroy(bp);
    free(p);
    free(ref);
    free(boxes);
}
END_TEST

/* ---- the sweeps alone, on records made here ---- */

enum { LATTICE = 6, MAX_RECS = 700 };

/* Records of boxes with lower corners in [0, LATTICE)^3 and extents at most 1, in cells of edge 1 (cell of a
 * corner x: floor(x) + 1, so that the lower corners of two overlapping boxes are at most one cell apart, as the
 * stencil needs), sorted by key then box, GRID_PAD records of key GRID_KEY_END after them. */
typedef struct sweep_set {
    pf_grid_rec rec[MAX_RECS + GRID_PAD];
    pf_grid_records g;
} sweep_set;

static int rec_cmp(const void *x, const void *y)
{
    const pf_grid_rec *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->box < b->box ? -1 : a->box > b->box;
}

static void sweep_set_of(sweep_set *s, const pf_aabb *boxes, size_t n)
{
    const uint64_t nx = 16, nxy = nx * nx; /* LATTICE + 2 cells padded to 16, as the stencil frame pads them */
    ck_assert(n <= MAX_RECS);
    for (size_t i = 0; i < n; i++) {
        pf_grid_rec *r = &s->rec[i];
        memcpy(r->lo, boxes[i].min, sizeof r->lo);
        memcpy(r->hi, boxes[i].max, sizeof r->hi);
        r->key = (uint64_t)floor(boxes[i].min[0]) + 1 + ((uint64_t)floor(boxes[i].min[1]) + 1) * nx +
                 ((uint64_t)floor(boxes[i].min[2]) + 1) * nxy;
        r->box = (uint32_t)i;
        r->pad = 0;
    }
    qsort(s->rec, n, sizeof *s->rec, rec_cmp);
    for (size_t i = n; i < n + GRID_PAD; i++) {
        memset(&s->rec[i], 0, sizeof s->rec[i]);
        s->rec[i].key = GRID_KEY_END;
    }
    s->g = (pf_grid_records){s->rec, n, {nx, nxy - nx, nxy, nxy + nx}};
}

/* The six comparisons written out: the oracle of the sweeps' tests. */
static int boxes_meet(const pf_aabb *a, const pf_aabb *b)
{
    for (int d = 0; d < 3; d++)
        if (!(a->min[d] <= b->max[d] && b->min[d] <= a->max[d])) return 0;
    return 1;
}

/* n boxes of one of four kinds: on a lattice of quarter units (equal coordinates everywhere: touching faces,
 * edges and corners), with a third of them degenerate (zero extent on some axes); all in one cell; extents
 * exactly 1 (the cell edge); random reals. */
static void sweep_boxes(pf_aabb *b, size_t n, int kind, rng *s)
{
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) {
            double lo, ext;
            if (kind == 0) {
                lo = 0.25 * (double)rng_below(s, 4 * LATTICE);
                ext = i % 3 == 0 && rng_below(s, 2) ? 0.0 : 0.25 * (double)rng_below(s, 5);
            } else if (kind == 1) {
                lo = 2.0 + 0.125 * (double)rng_below(s, 8);
                ext = 0.125 * (double)rng_below(s, 9);
            } else if (kind == 2) {
                lo = 0.5 * (double)rng_below(s, 2 * LATTICE);
                ext = 1.0;
            } else {
                lo = rng_range(s, 0.0, (double)LATTICE);
                ext = rng_range(s, 0.0, 1.0);
            }
            b[i].min[d] = lo;
            b[i].max[d] = lo + ext;
        }
}

/* n equal pairs at a and b (either NULL when n is 0). */
static int same_pairs(const pf_pair *a, const pf_pair *b, size_t n)
{
    return n == 0 || !memcmp(a, b, n * sizeof *a);
}

/* The pairs of one sweep of the records [r0, r1), its candidates added to *cand. */
static pf_pair *sweep_run(pf_grid_sweep_fn sweep, const sweep_set *s, size_t r0, size_t r1, size_t *np,
                          uint64_t *cand)
{
    pf_pair_vec out = {0};
    ck_assert_int_eq(sweep(&s->g, r0, r1, &out, cand), PF_OK);
    *np = out.n;
    return out.data;
}

/* The scalar sweep gives brute force's pairs (as a set); the AVX2 one, where the processor has it, gives the
 * scalar one's pairs in the same order with the same candidates; sweeping the records in two parts (as threads
 * do) gives the whole sweep's pairs in order. Counts 1 to 40, then larger, so that ranges end at every lane of
 * a window and of a pointer's step. */
START_TEST(test_grid_sweeps_against_brute_force)
{
    static sweep_set set;
    static pf_aabb boxes[MAX_RECS];
    rng s = {77 + (uint64_t)_i};
    int kind = _i;
    int avx2 = pf_grid_sweep_avx2 != NULL && pf_grid_sweep_select() == pf_grid_sweep_avx2;
    for (size_t n = 1; n <= MAX_RECS; n += n < 40 ? 1 : 97) {
        sweep_boxes(boxes, n, kind, &s);
        sweep_set_of(&set, boxes, n);
        size_t nb = 0, ns, nv, na, nc;
        pf_pair *ref = malloc((n * (n - 1) / 2 + 1) * sizeof *ref);
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                if (boxes_meet(&boxes[i], &boxes[j])) ref[nb++] = (pf_pair){(uint32_t)i, (uint32_t)j};
        uint64_t cs = 0, cv = 0, ca = 0;
        pf_pair *ps = sweep_run(pf_grid_sweep_scalar, &set, 0, n, &ns, &cs);
        ck_assert_uint_ge(cs, ns);
        size_t mid = n / 3;
        pf_pair *pa = sweep_run(pf_grid_sweep_scalar, &set, 0, mid, &na, &ca);
        pf_pair *pc = sweep_run(pf_grid_sweep_scalar, &set, mid, n, &nc, &ca);
        ck_assert_msg(na + nc == ns && same_pairs(pa, ps, na) && same_pairs(pc, ps + na, nc),
                      "kind %d, %zu boxes: the sweep in two parts differs", kind, n);
        ck_assert_uint_eq(ca, cs);
        if (avx2) {
            pf_pair *pv = sweep_run(pf_grid_sweep_avx2, &set, 0, n, &nv, &cv);
            ck_assert_msg(nv == ns && same_pairs(pv, ps, ns), "kind %d, %zu boxes: AVX2 and scalar differ",
                          kind, n);
            ck_assert_uint_eq(cv, cs);
            free(pv);
        }
        qsort(ps, ns, sizeof *ps, pair_cmp);
        ck_assert_msg(ns == nb && same_pairs(ps, ref, nb), "kind %d, %zu boxes: %zu pairs, brute %zu",
                      kind, n, ns, nb);
        free(ps);
        free(pa);
        free(pc);
        free(ref);
    }
}
END_TEST

/* A box against a range of records (the test of the boxes kept apart): brute force's pairs among the range, in
 * record order, and the AVX2 version's the same, for ranges of every length and start. */
START_TEST(test_grid_ranges_against_brute_force)
{
    static sweep_set set;
    static pf_aabb boxes[60];
    rng s = {91};
    int avx2 = pf_grid_range_avx2 != NULL && pf_grid_range_select() == pf_grid_range_avx2;
    for (int kind = 0; kind < 4; kind++) {
        sweep_boxes(boxes, 60, kind, &s);
        sweep_set_of(&set, boxes, 59); /* box 59 is the one against the ranges */
        pf_grid_rec a;
        memset(&a, 0, sizeof a);
        memcpy(a.lo, boxes[59].min, sizeof a.lo);
        memcpy(a.hi, boxes[59].max, sizeof a.hi);
        a.box = 59;
        for (size_t r0 = 0; r0 < 59; r0 += 3)
            for (size_t r1 = r0; r1 <= 59; r1++) {
                pf_pair want[60];
                size_t nw = 0;
                for (size_t r = r0; r < r1; r++) {
                    uint32_t b = set.rec[r].box;
                    if (boxes_meet(&boxes[b], &boxes[59])) want[nw++] = (pf_pair){b, 59};
                }
                for (int v = 0; v < 1 + avx2; v++) {
                    pf_pair_vec out = {0};
                    uint64_t cand = 0;
                    pf_grid_range_fn f = v ? pf_grid_range_avx2 : pf_grid_range_scalar;
                    ck_assert_int_eq(f(&set.g, &a, r0, r1, &out, &cand), PF_OK);
                    ck_assert_uint_eq(cand, r1 - r0);
                    ck_assert_msg(out.n == nw && same_pairs(out.data, want, nw),
                                  "kind %d, [%zu, %zu), %s: %zu pairs, brute %zu", kind, r0, r1, v ? "AVX2" : "scalar",
                                  out.n, nw);
                    pf_pair_vec_free(&out);
                }
            }
    }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("collision_grid");
    TCase *tc = tcase_create("stencil");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_grid_coherent_steps, 0, 2);
    tcase_add_loop_test(tc, test_grid_merge_uneven_chunks, 0, 2);
    tcase_add_loop_test(tc, test_grid_merged_records_match_fresh, 0, 3);
    tcase_add_test(tc, test_grid_large_boxes_apart);
    tcase_add_test(tc, test_grid_checks_boxes);
    tcase_add_test(tc, test_grid_simd_matches_scalar);
    tcase_add_loop_test(tc, test_grid_sweeps_against_brute_force, 0, 4);
    tcase_add_test(tc, test_grid_ranges_against_brute_force);
    suite_add_tcase(s, tc);
    return s;
}
