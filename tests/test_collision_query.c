/* Check suite of the queries: box, moving-segment and radius searches against built structures, and the range
 * queries of Aïvázis 2010, each equal to a brute-force scan on random data; rebuilds equal fresh builds. */
#include "check_main.h"
#include "box_sets.h"
#include "rng.h"

#include "physflow/query.h"
#include "physflow/rangequery.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorted copy of a buffer's ids. */
static uint32_t *sorted_ids(const pf_id_buffer *b, size_t *n)
{
    const uint32_t *ids = pf_id_buffer_ids(b, n);
    uint32_t *v = malloc((*n + 1) * sizeof *v);
    if (*n) memcpy(v, ids, *n * sizeof *v);
    qsort(v, *n, sizeof *v, cmp_u32);
    return v;
}

static void expect_same(const uint32_t *got, size_t ng, const uint32_t *want, size_t nw, const char *what, int q)
{
    ck_assert_msg(ng == nw, "%s, query %d: %zu ids, brute %zu", what, q, ng, nw);
    ck_assert_msg(memcmp(got, want, nw * sizeof *want) == 0, "%s, query %d: ids differ from brute", what, q);
}

/* ---- boxes and segments ---- */

enum { B_POLY, B_FLAT, B_FAR, B_DEGENERATE, B_KINDS };

/* Polydisperse boxes (half extents 0.05 .. 100) in a cube of side 1000: flat, far from the origin, or a third
 * zero-size and a third identical. */
static pf_aabb *make_boxes(int kind, size_t n, uint64_t seed)
{
    box_set_def d = {.n = n,
                     .seed = seed,
                     .lo = {0, 0, 0},
                     .hi = {1000, 1000, 1000},
                     .half_min = 0.05,
                     .half_max = 100,
                     .law = BOX_SIZE_LOG};
    if (kind == B_FLAT) d.flat = 1, d.hi[2] = 0;
    if (kind == B_FAR) d.lo[0] = d.hi[0] = 1e11, d.hi[0] += 1000, d.lo[2] = -5e9, d.hi[2] = -5e9 + 1000;
    if (kind == B_DEGENERATE) d.points = d.identical = 1.0 / 3, d.lattice = 1000, d.special_half = 3;
    return box_set_create(&d);
}

static int overlap(const pf_aabb *a, const pf_aabb *b)
{
    for (int k = 0; k < 3; k++)
        if (a->min[k] > b->max[k] || b->min[k] > a->max[k]) return 0;
    return 1;
}

/* Independent swept-cube test: motion AABB overlap, then the segment against the grown box (slab method). */
static int sweep_hits(const pf_aabb *box, const double a[3], const double b[3], double hw)
{
    pf_aabb m;
    for (int k = 0; k < 3; k++) m.min[k] = fmin(a[k], b[k]) - hw, m.max[k] = fmax(a[k], b[k]) + hw;
    if (!overlap(box, &m)) return 0;
    double t0 = 0, t1 = 1;
    for (int k = 0; k < 3; k++) {
        double lo = box->min[k] - hw, hi = box->max[k] + hw, d = b[k] - a[k];
        if (d == 0) {
            if (a[k] < lo || a[k] > hi) return 0;
            continue;
        }
        double ta = (lo - a[k]) / d, tb = (hi - a[k]) / d;
        t0 = fmax(t0, fmin(ta, tb));
        t1 = fmin(t1, fmax(ta, tb));
        if (t0 > t1) return 0;
    }
    return 1;
}

START_TEST(box_and_segment_queries)
{
    int kind = _i % B_KINDS;
    pf_query_method method = (pf_query_method)(_i / B_KINDS);
    size_t n = 3000;
    pf_aabb *boxes = make_boxes(kind, n, 77 + (uint64_t)_i);
    pf_query_def def = pf_query_default_def();
    def.method = method;
    pf_query_index *ix;
    ck_assert_int_eq(pf_query_index_create(&def, &ix), PF_OK);
    ck_assert_int_eq(pf_query_index_build(ix, boxes, n), PF_OK);
    ck_assert_uint_gt(pf_query_index_bytes(ix), n * sizeof *boxes);
    pf_id_buffer *buf;
    ck_assert_int_eq(pf_id_buffer_create(&buf), PF_OK);
    uint32_t *want = malloc(n * sizeof *want);
    rng r = {5 + (uint64_t)_i};
    double off[3] = {kind == B_FAR ? 1e11 : 0, 0, kind == B_FAR ? -5e9 : 0};
    for (int q = 0; q < 400; q++) {
        /* query sizes from points to the whole scene, some outside it */
        pf_aabb qb;
        double scale = q % 50 == 0 ? 3000 : pow(10.0, 3 * urand(&r) - 1);
        for (int k = 0; k < 3; k++) {
            double c = off[k] + 1400 * urand(&r) - 200;
            double h = q % 7 == 0 ? 0 : scale * urand(&r);
            qb.min[k] = c - h, qb.max[k] = c + h;
        }
        if (kind == B_FLAT && q % 2) qb.min[2] = qb.max[2] = 0;
        ck_assert_int_eq(pf_query_aabb(ix, &qb, buf), PF_OK);
        size_t nw = 0, ng;
        for (size_t i = 0; i < n; i++)
            if (overlap(&boxes[i], &qb)) want[nw++] = (uint32_t)i;
        uint32_t *got = sorted_ids(buf, &ng);
        expect_same(got, ng, want, nw, "aabb", q);
        ck_assert_uint_ge(pf_id_buffer_candidates(buf), ng);
        free(got);

        double a[3], b[3], hw = q % 3 == 0 ? 0 : 5 * urand(&r);
        for (int k = 0; k < 3; k++) {
            a[k] = off[k] + 1000 * urand(&r);
            b[k] = a[k] + (q % 5 == 0 ? 0 : pow(10.0, 3 * urand(&r) - 1) * (urand(&r) - 0.5));
        }
        if (kind == B_FLAT) a[2] = b[2] = 0;
        ck_assert_int_eq(pf_query_segment(ix, a, b, hw, buf), PF_OK);
        nw = 0;
        for (size_t i = 0; i < n; i++)
            if (sweep_hits(&boxes[i], a, b, hw)) want[nw++] = (uint32_t)i;
        got = sorted_ids(buf, &ng);
        expect_same(got, ng, want, nw, "segment", q);
        free(got);
    }
    free(want);
    pf_id_buffer_destroy(buf);
    pf_query_index_destroy(ix);
    free(boxes);
}
END_TEST

START_TEST(query_arguments)
{
    pf_query_def def = pf_query_default_def();
    pf_query_index *ix = NULL;
    pf_id_buffer *buf;
    ck_assert_int_eq(pf_id_buffer_create(&buf), PF_OK);
    def.method = PF_QUERY_METHOD_COUNT;
    ck_assert_int_eq(pf_query_index_create(&def, &ix), PF_EINVAL);
    ck_assert_ptr_null(ix);
    def.method = PF_QUERY_UHASH;
    def.cell_size = 1e-9;
    ck_assert_int_eq(pf_query_index_create(&def, &ix), PF_OK);
    pf_aabb b[2] = {{{0, 0, 0}, {1, 1, 1}}, {{0, 0, 0}, {1, 1, 1}}};
    ck_assert_int_eq(pf_query_aabb(ix, &b[0], buf), PF_ESTATE); /* not built */
    ck_assert_int_eq(pf_query_index_build(ix, b, 2), PF_EINVAL); /* cells far too small */
    b[1].min[0] = NAN;
    def.cell_size = 0;
    pf_query_index_destroy(ix);
    ck_assert_int_eq(pf_query_index_create(&def, &ix), PF_OK);
    ck_assert_int_eq(pf_query_index_build(ix, b, 2), PF_EINVAL);
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "box 1"));
    ck_assert_int_eq(pf_query_index_build(ix, b, 1), PF_OK);
    ck_assert_int_eq(pf_query_aabb(ix, &b[1], buf), PF_EINVAL);
    ck_assert_int_eq(pf_query_aabb(NULL, &b[0], buf), PF_EINVAL);
    double p[3] = {0, 0, 0}, q[3] = {2, 2, 2};
    ck_assert_int_eq(pf_query_segment(ix, p, q, -1, buf), PF_EINVAL);
    ck_assert_int_eq(pf_query_segment(ix, p, q, 0, buf), PF_OK);
    size_t m;
    pf_id_buffer_ids(buf, &m);
    ck_assert_uint_eq(m, 1);
    ck_assert_int_eq(pf_query_index_build(ix, b, 0), PF_OK); /* empty index: empty answers */
    ck_assert_int_eq(pf_query_aabb(ix, &b[0], buf), PF_OK);
    pf_id_buffer_ids(buf, &m);
    ck_assert_uint_eq(m, 0);
    pf_query_method pm;
    ck_assert_int_eq(pf_query_method_parse("mlhash", &pm), PF_OK);
    ck_assert_int_eq(pm, PF_QUERY_MLHASH);
    ck_assert_int_eq(pf_query_method_parse("nope", &pm), PF_EINVAL);
    pf_query_index_destroy(ix);
    pf_id_buffer_destroy(buf);
}
END_TEST

/* ---- radius neighbours ---- */

static double *make_points(int kind, size_t n, uint64_t seed)
{
    rng r = {seed};
    double *p = malloc(3 * n * sizeof *p);
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) p[3 * i + (size_t)k] = 20 * urand(&r);
        if (kind == 1) p[3 * i + 2] = 0; /* flat, 2D */
        if (kind == 2) /* clustered, with exact duplicates */
            for (int k = 0; k < 3; k++) p[3 * i + (size_t)k] = floor(urand(&r) * 4) * 5 + (i % 4 ? 0.3 * urand(&r) : 0);
        if (kind == 3) p[3 * i] += 1e10; /* far from the origin */
    }
    return p;
}

START_TEST(radius_neighbours)
{
    int kind = _i % 4;
    pf_neighbor_method methods[3] = {PF_NEIGHBORS_UHASH, PF_NEIGHBORS_KD, PF_NEIGHBORS_HHASH};
    pf_neighbor_method method = methods[_i / 4];
    size_t n = 2500;
    double *p = make_points(kind, n, 11 + (uint64_t)_i);
    double radii[2] = {0.7, 2.5};
    for (int t = 0; t < 2; t++) {
        pf_neighbor_def def = pf_neighbor_default_def();
        def.method = method;
        def.radius = radii[t];
        pf_neighbors *nb;
        ck_assert_int_eq(pf_neighbors_create(&def, p, n, &nb), PF_OK);
        double r2 = def.radius * def.radius;
        size_t total = 0;
        for (size_t i = 0; i < n; i++) {
            const uint32_t *ids;
            size_t m, e = 0;
            ck_assert_int_eq(pf_neighbors_of(nb, i, &ids, &m), PF_OK);
            for (size_t j = 0; j < n; j++) {
                if (j == i) continue;
                double dx = p[3 * i] - p[3 * j], dy = p[3 * i + 1] - p[3 * j + 1], dz = p[3 * i + 2] - p[3 * j + 2];
                if (dx * dx + dy * dy + dz * dz <= r2) {
                    ck_assert_msg(e < m && ids[e] == j, "%s r=%g: particle %zu misses neighbour %zu",
                                  pf_neighbor_method_name(method), def.radius, i, j);
                    e++;
                }
            }
            ck_assert_uint_eq(e, m);
            total += m;
        }
        ck_assert_uint_eq(total, pf_neighbors_total(nb));
        ck_assert_uint_gt(total, 0);
        ck_assert_uint_gt(pf_neighbors_index_bytes(nb), 0);
        pf_neighbors_destroy(nb);
    }
    pf_neighbor_def bad = pf_neighbor_default_def();
    pf_neighbors *nb = NULL;
    bad.radius = 0;
    ck_assert_int_eq(pf_neighbors_create(&bad, p, n, &nb), PF_EINVAL);
    ck_assert_ptr_null(nb);
    free(p);
}
END_TEST

/* ---- range queries (Aïvázis 2010) ---- */

static size_t brute_range(const double *p, size_t n, const double lo[3], const double hi[3], uint32_t *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const double *x = p + 3 * i;
        if (x[0] >= lo[0] && x[0] <= hi[0] && x[1] >= lo[1] && x[1] <= hi[1] && x[2] >= lo[2] && x[2] <= hi[2])
            out[m++] = (uint32_t)i;
    }
    return m;
}

static void random_box(rng *r, double off, double lo[3], double hi[3], int q)
{
    double scale = q % 40 == 0 ? 100 : pow(10.0, 2.5 * urand(r) - 1);
    for (int k = 0; k < 3; k++) {
        double c = off * (k == 0) + 26 * urand(r) - 3, h = q % 9 == 0 ? 0 : scale * urand(r);
        lo[k] = c - h, hi[k] = c + h;
    }
}

static void check_queries(const pf_rangequery *rq, const double *p, size_t n, uint64_t seed, double off,
                          const char *what)
{
    pf_id_buffer *buf;
    ck_assert_int_eq(pf_id_buffer_create(&buf), PF_OK);
    uint32_t *want = malloc((n + 1) * sizeof *want);
    rng r = {seed};
    for (int q = 0; q < 300; q++) {
        double lo[3], hi[3];
        random_box(&r, off, lo, hi, q);
        if (q % 37 == 0) memcpy(lo, p + 3 * (size_t)q, sizeof lo), memcpy(hi, lo, sizeof hi); /* a point box */
        if (q % 41 == 0) lo[1] = hi[1] + 1; /* inverted: empty */
        ck_assert_int_eq(pf_rangequery_find(rq, lo, hi, buf), PF_OK);
        size_t nw = brute_range(p, n, lo, hi, want), ng;
        if (q % 41 == 0) ck_assert_uint_eq(nw, 0);
        uint32_t *got = sorted_ids(buf, &ng);
        expect_same(got, ng, want, nw, what, q);
        free(got);
    }
    free(want);
    pf_id_buffer_destroy(buf);
}

START_TEST(range_queries)
{
    int kind = _i % 4;
    pf_rangequery_method method = (pf_rangequery_method)(_i / 4);
    size_t n = 4000;
    double *p = make_points(kind, n, 300 + (uint64_t)_i);
    double off = kind == 3 ? 1e10 : 0;
    pf_rangequery_def def = pf_rangequery_default_def();
    def.method = method;
    def.leaf_size = 1 + _i % 9;
    pf_rangequery *rq, *fresh;
    ck_assert_int_eq(pf_rangequery_create(&def, &rq), PF_OK);
    ck_assert_int_eq(pf_rangequery_rebuild(rq, p), PF_ESTATE);
    ck_assert_int_eq(pf_rangequery_build(rq, p, n), PF_OK);
    ck_assert_uint_gt(pf_rangequery_bytes(rq), 0);
    check_queries(rq, p, n, 9, off, pf_rangequery_method_name(method));

    /* small motions, then one large shuffle: rebuild must answer as a fresh build (and as brute) does */
    rng r = {42};
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < 3 * n; i++) p[i] += round == 0 ? 0.2 * (urand(&r) - 0.5) : 15 * (urand(&r) - 0.5);
        ck_assert_int_eq(pf_rangequery_rebuild(rq, p), PF_OK);
        check_queries(rq, p, n, 10 + (uint64_t)round, off, "rebuild");
        ck_assert_int_eq(pf_rangequery_create(&def, &fresh), PF_OK);
        ck_assert_int_eq(pf_rangequery_build(fresh, p, n), PF_OK);
        check_queries(fresh, p, n, 10 + (uint64_t)round, off, "fresh build");
        pf_rangequery_destroy(fresh);
    }
    p[7] = INFINITY;
    ck_assert_int_eq(pf_rangequery_rebuild(rq, p), PF_EINVAL);
    ck_assert_int_eq(pf_rangequery_build(rq, p, n), PF_EINVAL);
    ck_assert_int_eq(pf_rangequery_build(rq, p, 0), PF_OK);
    pf_rangequery_destroy(rq);
    free(p);
}
END_TEST

START_TEST(range_query_arguments)
{
    pf_rangequery_def def = pf_rangequery_default_def();
    pf_rangequery *rq = NULL;
    def.leaf_size = 0;
    ck_assert_int_eq(pf_rangequery_create(&def, &rq), PF_EINVAL);
    def = pf_rangequery_default_def();
    def.method = PF_RQ_CELLS;
    def.cell_size = 1e-12;
    ck_assert_int_eq(pf_rangequery_create(&def, &rq), PF_OK);
    double p[6] = {0, 0, 0, 1, 1, 1};
    ck_assert_int_eq(pf_rangequery_build(rq, p, 2), PF_EINVAL);
    pf_rangequery_destroy(rq);
    for (int m = 0; m < PF_RQ_METHOD_COUNT; m++) {
        pf_rangequery_method back;
        ck_assert_int_eq(pf_rangequery_method_parse(pf_rangequery_method_name((pf_rangequery_method)m), &back),
                         PF_OK);
        ck_assert_int_eq(back, m);
    }
    pf_rangequery_method back;
    ck_assert_int_eq(pf_rangequery_method_parse("octree", &back), PF_EINVAL);
    ck_assert_int_eq(pf_rangequery_create(NULL, &rq), PF_EINVAL);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("collision_query");
    TCase *tc = tcase_create("queries");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, box_and_segment_queries, 0, B_KINDS * PF_QUERY_METHOD_COUNT);
    tcase_add_test(tc, query_arguments);
    tcase_add_loop_test(tc, radius_neighbours, 0, 12);
    tcase_add_loop_test(tc, range_queries, 0, 4 * PF_RQ_METHOD_COUNT);
    tcase_add_test(tc, range_query_arguments);
    suite_add_tcase(s, tc);
    return s;
}
