/* Check suite of the hierarchical and multilevel hash broad phases: equal to an all-pairs oracle on varied
 * inputs, and the same output for 1 and 2 threads; the spatial hashes' box queries (hasChildren pruning, the
 * float pre-filter, duplicate removal) equal a brute-force scan on mixed-size scenes. */
#include "check_main.h"
#include "box_sets.h"
#include "rng.h"

#include "collision/broadphase_backend.h"
#include "collision/spatial_hash.h"
#include "physflow/collision.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


static void box_at(pf_aabb *b, const double c[3], const double half[3])
{
    for (int k = 0; k < 3; k++) {
        b->min[k] = c[k] - half[k];
        b->max[k] = c[k] + half[k];
    }
}

enum { UNIFORM, CLUSTERED, POLYDISPERSE, FLAT, IDENTICAL, ZERO_SIZE, TOUCHING, FAR, MIXED_DEGENERATE, NKINDS };
static const char *kind_name[NKINDS] = {"uniform",   "clustered", "polydisperse", "flat",
                                        "identical", "zero-size", "touching",     "far", "mixed-degenerate"};

static pf_aabb *make_boxes(int kind, size_t n, uint64_t seed)
{
    box_set_def d = {
        .n = n, .seed = seed, .lo = {0, 0, 0}, .hi = {100, 100, 100}, .half_min = 0.5, .half_max = 3.5};
    switch (kind) {
    case CLUSTERED: /* five clusters of boxes in a large space */
        for (int k = 0; k < 3; k++)
            d.hi[k] = 1000;
        d.clusters = 5, d.cluster_edge = 10, d.half_min = 0.1, d.half_max = 1.1;
        break;
    case POLYDISPERSE: /* sizes over 3 orders of magnitude */
        for (int k = 0; k < 3; k++)
            d.hi[k] = 1000;
        d.law = BOX_SIZE_LOG, d.half_min = 0.05, d.half_max = 50;
        break;
    case FLAT:
        d.hi[0] = d.hi[1] = 8192, d.hi[2] = 0, d.flat = 1, d.half_min = 4, d.half_max = 64;
        break;
    case IDENTICAL:
        d.identical = 1, d.lo[0] = d.lo[1] = d.lo[2] = 1, d.hi[0] = d.hi[1] = d.hi[2] = 2,
        d.special_half = 0.25;
        break;
    case ZERO_SIZE: /* points on a coarse lattice: many exact coincidences */
        for (int k = 0; k < 3; k++)
            d.hi[k] = 6;
        d.points = 1, d.lattice = 6;
        break;
    case TOUCHING: /* unit cubes on a lattice: neighbours touch exactly */
        for (int k = 0; k < 3; k++)
            d.hi[k] = 12;
        d.touching = 1, d.lattice = 12;
        break;
    case FAR:
        d.lo[0] = d.lo[2] = 1e12, d.lo[1] = -3e9;
        for (int k = 0; k < 3; k++)
            d.hi[k] = d.lo[k] + 50;
        d.half_min = 0.2, d.half_max = 2.2;
        break;
    case MIXED_DEGENERATE: /* zero-size, huge and tiny boxes together */
        for (int k = 0; k < 3; k++)
            d.hi[k] = 64;
        d.points = 0.3, d.lattice = 64, d.huge = 0.05, d.special_half = 20, d.half_min = 1e-6, d.half_max = 1;
        break;
    default:
        break;
    }
    return box_set_create(&d);
}

static int cmp_pair(const void *a, const void *b)
{
    const pf_pair *p = a, *q = b;
    if (p->i != q->i) return p->i < q->i ? -1 : 1;
    return p->j < q->j ? -1 : p->j > q->j;
}

static int overlap(const pf_aabb *a, const pf_aabb *b)
{
    for (int k = 0; k < 3; k++)
        if (a->min[k] > b->max[k] || b->min[k] > a->max[k]) return 0;
    return 1;
}

static pf_pair *oracle(const pf_aabb *b, size_t n, size_t *np)
{
    size_t cap = 1024, m = 0;
    pf_pair *p = malloc(cap * sizeof *p);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (overlap(&b[i], &b[j])) {
                if (m == cap) p = realloc(p, (cap *= 2) * sizeof *p);
                p[m++] = (pf_pair){(uint32_t)i, (uint32_t)j};
            }
    *np = m;
    return p;
}

/* Runs a backend directly (the dispatcher's validation is not under test here). */
static void run_backend(const pf_bp_backend *be, pf_broadphase_method m, int threads, const pf_aabb *b, size_t n,
                        pf_pair_vec *out, pf_broadphase_stats *st)
{
    pf_broadphase_def def = {.method = m, .threads = threads, .kd_split = 1, .cell_size = 0};
    void *state = NULL;
    ck_assert_int_eq(be->create(&def, &state), PF_OK);
    memset(st, 0, sizeof *st);
    out->n = 0;
    ck_assert_int_eq(be->pairs(state, &def, b, n, out, st), PF_OK);
    be->destroy(state);
}

static void check_method(const pf_bp_backend *be, pf_broadphase_method m, int kind, size_t n)
{
    pf_aabb *b = make_boxes(kind, n, 1234 + (uint64_t)kind);
    size_t ne;
    pf_pair *expect = oracle(b, n, &ne);
    pf_pair_vec v1 = {0}, v2 = {0};
    pf_broadphase_stats s1, s2;
    run_backend(be, m, 1, b, n, &v1, &s1);
    run_backend(be, m, 2, b, n, &v2, &s2);
    /* thread count changes nothing, not even the order */
    ck_assert_uint_eq(v1.n, v2.n);
    ck_assert_int_eq(memcmp(v1.data, v2.data, v1.n * sizeof *v1.data), 0);
    ck_assert_uint_eq(s1.candidates, s2.candidates);
    for (size_t k = 0; k < v1.n; k++) ck_assert_uint_lt(v1.data[k].i, v1.data[k].j);
    qsort(v1.data, v1.n, sizeof *v1.data, cmp_pair);
    ck_assert_msg(v1.n == ne, "%s on %s: %zu pairs, brute %zu", pf_broadphase_method_name(m), kind_name[kind],
                  v1.n, ne);
    ck_assert_msg(memcmp(v1.data, expect, ne * sizeof *expect) == 0, "%s on %s: pairs differ from brute",
                  pf_broadphase_method_name(m), kind_name[kind]);
    ck_assert_uint_ge(s1.candidates, ne);
    ck_assert_uint_gt(s1.bytes, 0);
    pf_pair_vec_free(&v1);
    pf_pair_vec_free(&v2);
    free(expect);
    free(b);
}

static const size_t sizes[NKINDS] = {3000, 2500, 2500, 3000, 300, 1500, 1728, 2000, 2000};

START_TEST(hhash_equals_brute)
{
    check_method(&pf_bp_hhash_backend, PF_BP_HHASH, _i, sizes[_i]);
}
END_TEST

START_TEST(mlhash_equals_brute)
{
    check_method(&pf_bp_mlhash_backend, PF_BP_MLHASH, _i, sizes[_i]);
}
END_TEST

START_TEST(single_and_tiny_inputs)
{
    const pf_bp_backend *be[2] = {&pf_bp_hhash_backend, &pf_bp_mlhash_backend};
    pf_broadphase_method m[2] = {PF_BP_HHASH, PF_BP_MLHASH};
    for (int t = 0; t < 2; t++) {
        pf_aabb b[2] = {{{0, 0, 0}, {1, 1, 1}}, {{1, 1, 1}, {2, 2, 2}}};
        pf_pair_vec v = {0};
        pf_broadphase_stats st;
        run_backend(be[t], m[t], 1, b, 1, &v, &st);
        ck_assert_uint_eq(v.n, 0);
        run_backend(be[t], m[t], 2, b, 2, &v, &st); /* corner contact */
        ck_assert_uint_eq(v.n, 1);
        ck_assert_uint_eq(v.data[0].i, 0);
        ck_assert_uint_eq(v.data[0].j, 1);
        b[1].min[0] = nextafter(1.0, 2.0);
        run_backend(be[t], m[t], 1, b, 2, &v, &st);
        ck_assert_uint_eq(v.n, 0);
        pf_pair_vec_free(&v);
    }
}
END_TEST

/* Reusing one backend state across calls with changing inputs gives fresh results each time. */
START_TEST(state_reuse)
{
    const pf_bp_backend *be = _i ? &pf_bp_mlhash_backend : &pf_bp_hhash_backend;
    pf_broadphase_def def = {.method = _i ? PF_BP_MLHASH : PF_BP_HHASH, .threads = 2, .kd_split = 1};
    void *state = NULL;
    ck_assert_int_eq(be->create(&def, &state), PF_OK);
    for (int round = 0; round < 4; round++) {
        int kind = (int[]){UNIFORM, POLYDISPERSE, FLAT, CLUSTERED}[round];
        size_t n = 500 + 300 * (size_t)round;
        pf_aabb *b = make_boxes(kind, n, 99 + (uint64_t)round);
        size_t ne;
        pf_pair *expect = oracle(b, n, &ne);
        pf_pair_vec v = {0};
        pf_broadphase_stats st = {0};
        ck_assert_int_eq(be->pairs(state, &def, b, n, &v, &st), PF_OK);
        qsort(v.data, v.n, sizeof *v.data, cmp_pair);
        ck_assert_uint_eq(v.n, ne);
        ck_assert_int_eq(memcmp(v.data, expect, ne * sizeof *expect), 0);
        pf_pair_vec_free(&v);
        free(expect);
        free(b);
    }
    be->destroy(state);
}
END_TEST

/* Paper 001 §4.1's mix in a square of side 2^13 (10% ~2^10, 25% ~2^6, the rest ~2^3), flat or with depth, plus
 * a dense clump of tiny boxes in a corner: cells without children beside crowded ones, and queries whose child
 * ranges hit the guard. */
static pf_aabb *mixed_scene(size_t n, int flat, uint64_t seed)
{
    pf_aabb *b = malloc(n * sizeof *b);
    size_t clump = n / 9, big = (n - clump) / 10, mid = (n - clump) / 4, at = 0;
    /* the clump, then boxes of about 2^10, 2^6 and 2^3 (half extents 0.25 .. 0.75 of those) */
    const double half[4] = {0.005, 512, 32, 4}, side[4] = {10, 8192, 8192, 8192};
    const size_t count[4] = {clump, big, mid, n - clump - big - mid};
    for (int c = 0; c < 4; c++) {
        box_set_def d = {.n = count[c],
                         .seed = seed + (uint64_t)c,
                         .hi = {side[c], side[c], flat ? 0 : side[c]},
                         .half_min = c ? 0.5 * half[c] : 0,
                         .half_max = c ? 1.5 * half[c] : 2 * half[c],
                         .flat = flat};
        box_set_fill(b + at, &d);
        at += count[c];
    }
    return b;
}

/* pf_shash_query of every kind against brute force: each overlapping box is returned exactly once (the
 * hierarchical descent prunes only cells without children, the float filter only drops boxes that miss),
 * and nothing that misses survives the caller's exact test. */
START_TEST(queries_equal_brute_on_mixed_sizes)
{
    int flat = _i & 1;
    size_t n = 4000;
    pf_aabb *b = mixed_scene(n, flat, 300 + (uint64_t)_i);
    int kinds[3] = {PF_SHASH_HIER, PF_SHASH_MULTI, PF_SHASH_UNIFORM};
    unsigned char *seen = calloc(n, 1);
    for (int t = 0; t < 3; t++) {
        pf_shash s = {0};
        /* build twice: the second build reuses the first one's memory */
        ck_assert_int_eq(pf_shash_build(&s, kinds[t], b, n / 2, 1500.0), PF_OK);
        ck_assert_int_eq(pf_shash_build(&s, kinds[t], b, n, 1500.0), PF_OK);
        pf_id_buffer buf = {0};
        ck_assert_int_eq(pf_idbuf_marks(&buf, n), PF_OK);
        rng r = {17 + (uint64_t)_i};
        for (int q = 0; q < 300; q++) {
            /* points, segments' boxes, medium and huge boxes, some beyond the scene */
            double scale = q % 25 == 0 ? 20000 : q % 3 == 0 ? 0 : pow(2.0, 12 * urand(&r) - 2), c[3], h[3];
            for (int k = 0; k < 3; k++) {
                c[k] = q % 4 == 0 ? 12 * urand(&r) : 9000 * urand(&r) - 400;
                h[k] = scale * urand(&r);
            }
            if (flat && q % 2) c[2] = h[2] = 0;
            pf_aabb qb;
            box_at(&qb, c, h);
            pf_idbuf_begin(&buf);
            ck_assert_int_eq(pf_shash_query(&s, &qb, &buf), PF_OK);
            size_t exact = 0;
            for (size_t k = 0; k < buf.n; k++) {
                ck_assert_msg(!seen[buf.ids[k]], "kind %d query %d: box %u returned twice", t, q, buf.ids[k]);
                seen[buf.ids[k]] = 1;
                exact += (size_t)overlap(&b[buf.ids[k]], &qb);
            }
            size_t want = 0;
            for (size_t i = 0; i < n; i++) {
                if (!overlap(&b[i], &qb)) continue;
                want++;
                ck_assert_msg(seen[i], "kind %d query %d: overlapping box %zu not returned", t, q, i);
            }
            ck_assert_uint_eq(exact, want);
            ck_assert_uint_ge(buf.candidates, want);
            for (size_t k = 0; k < buf.n; k++) seen[buf.ids[k]] = 0;
        }
        pf_idbuf_release(&buf);
        pf_shash_free(&s);
    }
    free(seen);
    free(b);
}
END_TEST

/* The all-pairs searches on the mixed-size scenes: every overlapping pair once, whichever side's search (descent
 * with pruning or top-down) is responsible for it. */
START_TEST(pairs_equal_brute_on_mixed_sizes)
{
    size_t n = 3000, ne;
    pf_aabb *b = mixed_scene(n, _i & 1, 500 + (uint64_t)_i);
    pf_pair *expect = oracle(b, n, &ne);
    const pf_bp_backend *be[2] = {&pf_bp_hhash_backend, &pf_bp_mlhash_backend};
    pf_broadphase_method m[2] = {PF_BP_HHASH, PF_BP_MLHASH};
    for (int t = 0; t < 2; t++) {
        pf_pair_vec v = {0};
        pf_broadphase_stats st;
        run_backend(be[t], m[t], 1 + (_i >> 1), b, n, &v, &st);
        qsort(v.data, v.n, sizeof *v.data, cmp_pair);
        ck_assert_msg(v.n == ne, "%s: %zu pairs, brute %zu", pf_broadphase_method_name(m[t]), v.n, ne);
        ck_assert_int_eq(memcmp(v.data, expect, ne * sizeof *expect), 0);
        pf_pair_vec_free(&v);
    }
    free(expect);
    free(b);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("collision_hash");
    TCase *tc = tcase_create("equals_brute");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, hhash_equals_brute, 0, NKINDS);
    tcase_add_loop_test(tc, mlhash_equals_brute, 0, NKINDS);
    tcase_add_test(tc, single_and_tiny_inputs);
    tcase_add_loop_test(tc, state_reuse, 0, 2);
    tcase_add_loop_test(tc, queries_equal_brute_on_mixed_sizes, 0, 4);
    tcase_add_loop_test(tc, pairs_equal_brute_on_mixed_sizes, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}
