/* The collision modules' public API called wrongly (collision.h, query.h, rangequery.h, narrowphase.h): NULL,
 * out-of-range, NaN, infinite, overflowing and wrong-kind arguments. Every such call returns a negative code with
 * a message that names the function and contains no C operator; nothing crashes; afterwards one valid call on the
 * same object still gives the answer of a brute-force oracle written here (double loops, analytic distances). */
#include "check_main.h"

#include "physflow/collision.h"
#include "physflow/narrowphase.h"
#include "physflow/query.h"
#include "physflow/rangequery.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define HUGE_COUNT ((size_t)-8) /* what n * sizeof(double) gives for n = -1 */

/* `rc` must be the refusal `want`, and pf_last_error() must name `fn` in the caller's terms. */
static void refused(int rc, int want, const char *fn)
{
    const char *msg = pf_last_error();
    ck_assert_msg(rc == want, "%s gave %d, not %d (%s)", fn, rc, want, msg);
    ck_assert_msg(strstr(msg, fn) != NULL, "'%s' does not name %s", msg, fn);
    const char *const c_syntax[] = {"&&", "||", "->", "!=", "==", "!(", "invalid argument:"};
    for (size_t k = 0; k < sizeof c_syntax / sizeof c_syntax[0]; k++)
        ck_assert_msg(strstr(msg, c_syntax[k]) == NULL, "'%s' shows C syntax '%s'", msg, c_syntax[k]);
}

#define REFUSED(call, fn) refused((call), PF_EINVAL, (fn))

/* 12 boxes on a loose 3D lattice with varied sizes: some touch, some overlap, some stand apart. */
static void make_boxes(pf_aabb *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double c[3] = {(double)(i % 4), (double)((i / 4) % 3) * 0.9, (double)(i % 3) * 0.7};
        double h = 0.3 + 0.1 * (double)(i % 5);
        for (int k = 0; k < 3; k++) {
            b[i].min[k] = c[k] - h;
            b[i].max[k] = c[k] + h;
        }
    }
}

static int boxes_overlap(const pf_aabb *a, const pf_aabb *b)
{
    for (int k = 0; k < 3; k++)
        if (a->max[k] < b->min[k] || b->max[k] < a->min[k]) return 0;
    return 1;
}

/* ---- broad phases ---- */

START_TEST(broadphase_refusals_then_brute_pairs)
{
    static const pf_broadphase_method methods[] = {PF_BP_BRUTE, PF_BP_KD, PF_BP_GRID, PF_BP_SAP, PF_BP_HHASH,
                                                   PF_BP_MLHASH};
    const char *create = "pf_broadphase_create", *pairs_fn = "pf_broadphase_pairs";
    pf_broadphase *bp = NULL;
    pf_broadphase_def def = pf_broadphase_default_def();
    REFUSED(pf_broadphase_create(NULL, &bp), create);
    REFUSED(pf_broadphase_create(&def, NULL), create);
    pf_broadphase_def bad = def;
    bad.method = PF_BP_METHOD_COUNT;
    REFUSED(pf_broadphase_create(&bad, &bp), create);
    ck_assert_ptr_null(bp);
    bad.method = (pf_broadphase_method)-1;
    REFUSED(pf_broadphase_create(&bad, &bp), create);
    bad = def;
    bad.threads = 0;
    REFUSED(pf_broadphase_create(&bad, &bp), create);
    bad.threads = -4;
    REFUSED(pf_broadphase_create(&bad, &bp), create);
    bad = def;
    bad.kd_split = 7;
    REFUSED(pf_broadphase_create(&bad, &bp), create);
    bad = def;
    bad.cell_size = NAN;
    REFUSED(pf_broadphase_create(&bad, &bp), create);
    bad.cell_size = INFINITY;
    REFUSED(pf_broadphase_create(&bad, &bp), create);
    bad = def; /* a runner's context without the runner */
    bad.parallel_ctx = &bad;
    REFUSED(pf_broadphase_create(&bad, &bp), create);
    ck_assert_str_eq(pf_broadphase_method_name(PF_BP_METHOD_COUNT), "?");
    ck_assert_str_eq(pf_broadphase_method_name((pf_broadphase_method)-3), "?");
    ck_assert_int_eq(pf_broadphase_method_available(PF_BP_METHOD_COUNT), 0);
    pf_broadphase_method m;
    REFUSED(pf_broadphase_method_parse(NULL, &m), "pf_broadphase_method_parse");
    REFUSED(pf_broadphase_method_parse("kd", NULL), "pf_broadphase_method_parse");
    REFUSED(pf_broadphase_method_parse("octree", &m), "pf_broadphase_method_parse");

    enum { N = 12 };
    pf_aabb boxes[N];
    make_boxes(boxes, N);
    int want[N][N] = {{0}};
    size_t nwant = 0;
    for (size_t i = 0; i < N; i++)
        for (size_t j = i + 1; j < N; j++) nwant += (size_t)(want[i][j] = boxes_overlap(&boxes[i], &boxes[j]));
    ck_assert_uint_gt(nwant, 0);

    for (size_t mi = 0; mi < sizeof methods / sizeof methods[0]; mi++) {
        def.method = methods[mi];
        ck_assert_int_eq(pf_broadphase_create(&def, &bp), PF_OK);
        const pf_pair *p = NULL;
        size_t np = 77;
        REFUSED(pf_broadphase_pairs(NULL, boxes, N, &p, &np, NULL), pairs_fn);
        REFUSED(pf_broadphase_pairs(bp, boxes, N, NULL, &np, NULL), pairs_fn);
        REFUSED(pf_broadphase_pairs(bp, boxes, N, &p, NULL, NULL), pairs_fn);
        REFUSED(pf_broadphase_pairs(bp, NULL, N, &p, &np, NULL), pairs_fn);
        REFUSED(pf_broadphase_pairs(bp, boxes, HUGE_COUNT, &p, &np, NULL), pairs_fn);
        const double poison[] = {NAN, INFINITY, -INFINITY};
        for (int k = 0; k < 3; k++) {
            pf_aabb keep = boxes[5];
            boxes[5].max[k] = poison[k];
            REFUSED(pf_broadphase_pairs(bp, boxes, N, &p, &np, NULL), pairs_fn);
            ck_assert_msg(strstr(pf_last_error(), "boxes[5].max"), "%s", pf_last_error());
            ck_assert_uint_eq(np, 0);
            boxes[5] = keep;
        }
        pf_aabb keep = boxes[2];
        boxes[2].min[1] = boxes[2].max[1] + 1;
        REFUSED(pf_broadphase_pairs(bp, boxes, N, &p, &np, NULL), pairs_fn);
        ck_assert_msg(strstr(pf_last_error(), "boxes[2].min[1]"), "%s", pf_last_error());
        boxes[2] = keep;

        ck_assert_int_eq(pf_broadphase_pairs(bp, boxes, N, &p, &np, NULL), PF_OK);
        ck_assert_uint_eq(np, nwant);
        for (size_t k = 0; k < np; k++) {
            ck_assert_uint_lt(p[k].i, p[k].j);
            ck_assert_uint_lt(p[k].j, N);
            ck_assert_msg(want[p[k].i][p[k].j] == 1, "%s: pair (%u, %u) reported twice or wrongly",
                          pf_broadphase_method_name(methods[mi]), p[k].i, p[k].j);
            want[p[k].i][p[k].j] = 2; /* seen */
        }
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < N; j++)
                if (want[i][j] == 2) want[i][j] = 1;
        pf_broadphase_destroy(bp);
        bp = NULL;
    }
    pf_broadphase_destroy(NULL);
}
END_TEST

/* Coordinates at PF_AABB_COORD_MAX: a box spanning -DBL_MAX .. DBL_MAX (its extent overflows) is refused by every
 * broad phase and query index, naming the box; boxes out to the limit itself give brute force's pairs; a query box
 * may still reach DBL_MAX. */
START_TEST(broadphase_coordinates_at_the_limit)
{
    enum { N = 15 };
    pf_aabb boxes[N];
    make_boxes(boxes, 12);
    const double L = PF_AABB_COORD_MAX;
    boxes[12] = (pf_aabb){{-L, -L, -L}, {L, L, L}};                  /* meets every box */
    boxes[13] = (pf_aabb){{0.5 * L, 1, 1}, {L, 2, 2}};                /* far out on x, meets 12 and 14 */
    boxes[14] = (pf_aabb){{0.75 * L, 1.5, 1.5}, {0.75 * L + 1, 3, 3}}; /* inside 13's x range */
    int want[N][N] = {{0}};
    size_t nwant = 0;
    for (size_t i = 0; i < N; i++)
        for (size_t j = i + 1; j < N; j++) nwant += (size_t)(want[i][j] = boxes_overlap(&boxes[i], &boxes[j]));
    ck_assert_msg(want[12][13] && want[13][14] && want[0][12], "%d %d %d", want[12][13], want[13][14], want[0][12]);
    for (int m = 0; m < PF_BP_METHOD_COUNT; m++) {
        if (!pf_broadphase_method_available((pf_broadphase_method)m) || m == PF_BP_KD_RAW) continue; /* raw: no test */
        pf_broadphase_def def = pf_broadphase_default_def();
        def.method = (pf_broadphase_method)m;
        pf_broadphase *bp = NULL;
        ck_assert_int_eq(pf_broadphase_create(&def, &bp), PF_OK);
        const pf_pair *p = NULL;
        size_t np = 0;
        pf_aabb keep = boxes[12];
        boxes[12] = (pf_aabb){{-DBL_MAX, -DBL_MAX, -DBL_MAX}, {DBL_MAX, DBL_MAX, DBL_MAX}};
        ck_assert_msg(pf_broadphase_pairs(bp, boxes, N, &p, &np, NULL) == PF_EINVAL, "%s took a box of DBL_MAX",
                      pf_broadphase_method_name(def.method));
        REFUSED(pf_broadphase_pairs(bp, boxes, N, &p, &np, NULL), "pf_broadphase_pairs");
        ck_assert_msg(strstr(pf_last_error(), "boxes[12].min[0]") && strstr(pf_last_error(), "PF_AABB_COORD_MAX"),
                      "%s: %s", pf_broadphase_method_name(def.method), pf_last_error());
        boxes[12] = keep;
        boxes[3].max[2] = -2 * L; /* min > max is still named as such */
        REFUSED(pf_broadphase_pairs(bp, boxes, N, &p, &np, NULL), "pf_broadphase_pairs");
        make_boxes(boxes, 12);
        ck_assert_int_eq(pf_broadphase_pairs(bp, boxes, N, &p, &np, NULL), PF_OK);
        ck_assert_msg(np == nwant, "%s: %zu pairs, brute force %zu", pf_broadphase_method_name(def.method), np, nwant);
        for (size_t k = 0; k < np; k++)
            ck_assert_msg(p[k].i < p[k].j && p[k].j < N && want[p[k].i][p[k].j] == 1, "%s: pair (%u, %u)",
                          pf_broadphase_method_name(def.method), p[k].i, p[k].j);
        pf_broadphase_destroy(bp);
    }
    pf_id_buffer *ids = NULL;
    ck_assert_int_eq(pf_id_buffer_create(&ids), PF_OK);
    for (int m = 0; m < PF_QUERY_METHOD_COUNT; m++) {
        pf_query_def qd = pf_query_default_def();
        qd.method = (pf_query_method)m;
        pf_query_index *ix = NULL;
        ck_assert_int_eq(pf_query_index_create(&qd, &ix), PF_OK);
        pf_aabb keep = boxes[13];
        boxes[13].max[0] = DBL_MAX;
        REFUSED(pf_query_index_build(ix, boxes, N), "pf_query_index_build");
        ck_assert_msg(strstr(pf_last_error(), "boxes[13].max[0]"), "%s", pf_last_error());
        boxes[13] = keep;
        ck_assert_int_eq(pf_query_index_build(ix, boxes, N), PF_OK);
        pf_aabb all = {{-DBL_MAX, -DBL_MAX, -DBL_MAX}, {DBL_MAX, DBL_MAX, DBL_MAX}};
        ck_assert_int_eq(pf_query_aabb(ix, &all, ids), PF_OK);
        size_t n = 0;
        pf_id_buffer_ids(ids, &n);
        ck_assert_msg(n == N, "query method %d: %zu of %d boxes in the whole space", m, n, N);
        ck_assert_int_eq(pf_query_aabb(ix, &boxes[14], ids), PF_OK);
        const uint32_t *got = pf_id_buffer_ids(ids, &n);
        size_t expect = 0, seen = 0;
        for (size_t i = 0; i < N; i++) expect += (size_t)boxes_overlap(&boxes[i], &boxes[14]);
        for (size_t k = 0; k < n; k++) seen += got[k] < N && boxes_overlap(&boxes[got[k]], &boxes[14]);
        ck_assert_msg(n == expect && seen == expect, "query method %d: %zu ids, %zu overlap, want %zu", m, n, seen,
                      expect);
        pf_query_index_destroy(ix);
    }
    pf_id_buffer_destroy(ids);
}
END_TEST

/* ---- query index ---- */

START_TEST(query_index_refusals_then_brute_answers)
{
    const char *create = "pf_query_index_create", *build = "pf_query_index_build", *qa = "pf_query_aabb",
               *seg = "pf_query_segment";
    REFUSED(pf_id_buffer_create(NULL), "pf_id_buffer_create");
    size_t n = 5;
    ck_assert_ptr_null(pf_id_buffer_ids(NULL, &n));
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(pf_id_buffer_candidates(NULL), 0);
    ck_assert_uint_eq(pf_query_index_bytes(NULL), 0);
    ck_assert_str_eq(pf_query_method_name(PF_QUERY_METHOD_COUNT), "unknown");
    pf_query_method qm;
    REFUSED(pf_query_method_parse(NULL, &qm), "pf_query_method_parse");
    REFUSED(pf_query_method_parse("uhash", NULL), "pf_query_method_parse");
    REFUSED(pf_query_method_parse("octree", &qm), "pf_query_method_parse");

    pf_query_def def = pf_query_default_def();
    pf_query_index *ix = NULL;
    REFUSED(pf_query_index_create(NULL, &ix), create);
    REFUSED(pf_query_index_create(&def, NULL), create);
    pf_query_def bad = def;
    bad.method = PF_QUERY_METHOD_COUNT;
    REFUSED(pf_query_index_create(&bad, &ix), create);
    bad.method = (pf_query_method)-2;
    REFUSED(pf_query_index_create(&bad, &ix), create);
    bad = def;
    bad.cell_size = NAN;
    REFUSED(pf_query_index_create(&bad, &ix), create);
    bad.cell_size = -INFINITY;
    REFUSED(pf_query_index_create(&bad, &ix), create);
    ck_assert_ptr_null(ix);

    enum { N = 12 };
    pf_aabb boxes[N];
    make_boxes(boxes, N);
    pf_id_buffer *buf;
    ck_assert_int_eq(pf_id_buffer_create(&buf), PF_OK);
    for (int method = 0; method < PF_QUERY_METHOD_COUNT; method++) {
        def.method = (pf_query_method)method;
        ck_assert_int_eq(pf_query_index_create(&def, &ix), PF_OK);
        pf_aabb q = {{0.5, 0.2, -0.1}, {1.7, 1.0, 0.4}};
        refused(pf_query_aabb(ix, &q, buf), PF_ESTATE, qa); /* no build yet */
        REFUSED(pf_query_index_build(NULL, boxes, N), build);
        REFUSED(pf_query_index_build(ix, NULL, N), build);
        REFUSED(pf_query_index_build(ix, boxes, HUGE_COUNT), build);
        const double poison[] = {NAN, INFINITY, -INFINITY};
        for (int k = 0; k < 3; k++) {
            pf_aabb keep = boxes[7];
            boxes[7].min[k] = poison[k];
            REFUSED(pf_query_index_build(ix, boxes, N), build);
            ck_assert_msg(strstr(pf_last_error(), "boxes[7].min"), "%s", pf_last_error());
            boxes[7] = keep;
        }
        boxes[4].max[0] = boxes[4].min[0] - 0.5;
        REFUSED(pf_query_index_build(ix, boxes, N), build);
        make_boxes(boxes, N);
        ck_assert_int_eq(pf_query_index_build(ix, boxes, N), PF_OK);

        REFUSED(pf_query_aabb(NULL, &q, buf), qa);
        REFUSED(pf_query_aabb(ix, NULL, buf), qa);
        REFUSED(pf_query_aabb(ix, &q, NULL), qa);
        for (int k = 0; k < 3; k++) {
            pf_aabb b = q;
            b.max[k] = poison[k];
            REFUSED(pf_query_aabb(ix, &b, buf), qa);
        }
        pf_aabb inverted = {{1, 1, 1}, {0, 2, 2}};
        REFUSED(pf_query_aabb(ix, &inverted, buf), qa);

        double a[3] = {-1, 0.9, 0.7}, b[3] = {5, 0.9, 0.7};
        REFUSED(pf_query_segment(NULL, a, b, 0, buf), seg);
        REFUSED(pf_query_segment(ix, NULL, b, 0, buf), seg);
        REFUSED(pf_query_segment(ix, a, NULL, 0, buf), seg);
        REFUSED(pf_query_segment(ix, a, b, 0, NULL), seg);
        REFUSED(pf_query_segment(ix, a, b, -0.1, buf), seg);
        REFUSED(pf_query_segment(ix, a, b, NAN, buf), seg);
        REFUSED(pf_query_segment(ix, a, b, INFINITY, buf), seg);
        for (int k = 0; k < 3; k++) {
            double p[3] = {a[0], a[1], a[2]};
            p[k] = poison[k];
            REFUSED(pf_query_segment(ix, p, b, 0, buf), seg);
            REFUSED(pf_query_segment(ix, a, p, 0, buf), seg);
        }
        double far_lo[3] = {-DBL_MAX, 0, 0}, far_hi[3] = {DBL_MAX, 0, 0}; /* finite ends, overflowing motion */
        REFUSED(pf_query_segment(ix, far_lo, far_hi, 1e308, buf), seg);

        /* the answers after all that: brute overlap for the box, slab-free oracle for an x-axis segment */
        ck_assert_int_eq(pf_query_aabb(ix, &q, buf), PF_OK);
        const uint32_t *ids = pf_id_buffer_ids(buf, &n);
        int hit[N] = {0};
        for (size_t k = 0; k < n; k++) hit[ids[k]]++;
        for (size_t i = 0; i < N; i++) ck_assert_int_eq(hit[i], boxes_overlap(&boxes[i], &q));
        ck_assert_int_eq(pf_query_segment(ix, a, b, 0, buf), PF_OK);
        ids = pf_id_buffer_ids(buf, &n);
        memset(hit, 0, sizeof hit);
        for (size_t k = 0; k < n; k++) hit[ids[k]]++;
        for (size_t i = 0; i < N; i++) {
            const pf_aabb *x = &boxes[i];
            int crossed = x->min[1] <= a[1] && a[1] <= x->max[1] && x->min[2] <= a[2] && a[2] <= x->max[2] &&
                          x->max[0] >= a[0] && x->min[0] <= b[0];
            ck_assert_msg(hit[i] == crossed, "%s: box %zu", pf_query_method_name(def.method), i);
        }
        pf_query_index_destroy(ix);
        ix = NULL;
    }
    pf_id_buffer_destroy(buf);
    pf_id_buffer_destroy(NULL);
    pf_query_index_destroy(NULL);
}
END_TEST

/* ---- radius neighbours ---- */

START_TEST(neighbors_refusals_then_brute_lists)
{
    const char *create = "pf_neighbors_create", *of = "pf_neighbors_of";
    enum { N = 20 };
    double xyz[3 * N];
    for (size_t i = 0; i < N; i++) {
        xyz[3 * i] = 0.37 * (double)(i % 5);
        xyz[3 * i + 1] = 0.41 * (double)((i * 7) % 4);
        xyz[3 * i + 2] = 0.29 * (double)((i * 3) % 6);
    }
    pf_neighbor_def def = pf_neighbor_default_def();
    def.radius = 0.5;
    pf_neighbors *nb = NULL;
    REFUSED(pf_neighbors_create(NULL, xyz, N, &nb), create);
    REFUSED(pf_neighbors_create(&def, xyz, N, NULL), create);
    REFUSED(pf_neighbors_create(&def, NULL, N, &nb), create);
    REFUSED(pf_neighbors_create(&def, xyz, HUGE_COUNT, &nb), create);
    pf_neighbor_def bad = def;
    bad.method = PF_NEIGHBORS_METHOD_COUNT;
    REFUSED(pf_neighbors_create(&bad, xyz, N, &nb), create);
    const double radii[] = {0, -1, NAN, INFINITY};
    for (size_t k = 0; k < 4; k++) {
        bad = def;
        bad.radius = radii[k];
        REFUSED(pf_neighbors_create(&bad, xyz, N, &nb), create);
        ck_assert_msg(strstr(pf_last_error(), "def.radius"), "%s", pf_last_error());
    }
    const double poison[] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        double keep = xyz[3 * 6 + (size_t)k];
        xyz[3 * 6 + (size_t)k] = poison[k];
        REFUSED(pf_neighbors_create(&def, xyz, N, &nb), create);
        xyz[3 * 6 + (size_t)k] = keep;
    }
    ck_assert_ptr_null(nb);
    ck_assert_str_eq(pf_neighbor_method_name(PF_NEIGHBORS_METHOD_COUNT), "unknown");
    ck_assert_uint_eq(pf_neighbors_total(NULL), 0);
    ck_assert_uint_eq(pf_neighbors_bytes(NULL), 0);
    ck_assert_uint_eq(pf_neighbors_index_bytes(NULL), 0);

    for (int method = 0; method < PF_NEIGHBORS_METHOD_COUNT; method++) {
        def.method = (pf_neighbor_method)method;
        ck_assert_int_eq(pf_neighbors_create(&def, xyz, N, &nb), PF_OK);
        const uint32_t *ids;
        size_t count;
        REFUSED(pf_neighbors_of(NULL, 0, &ids, &count), of);
        REFUSED(pf_neighbors_of(nb, N, &ids, &count), of);
        REFUSED(pf_neighbors_of(nb, (size_t)-1, &ids, &count), of);
        REFUSED(pf_neighbors_of(nb, 0, NULL, &count), of);
        REFUSED(pf_neighbors_of(nb, 0, &ids, NULL), of);
        size_t total = 0;
        for (size_t i = 0; i < N; i++) {
            ck_assert_int_eq(pf_neighbors_of(nb, i, &ids, &count), PF_OK);
            size_t k = 0;
            for (size_t j = 0; j < N; j++) {
                double d2 = 0;
                for (int c = 0; c < 3; c++) d2 += (xyz[3 * i + c] - xyz[3 * j + c]) * (xyz[3 * i + c] - xyz[3 * j + c]);
                if (j == i || d2 > def.radius * def.radius) continue;
                ck_assert_uint_lt(k, count);
                ck_assert_uint_eq(ids[k], j); /* ascending, as the brute loop visits them */
                k++;
            }
            ck_assert_uint_eq(k, count);
            total += count;
        }
        ck_assert_uint_eq(pf_neighbors_total(nb), total);
        /* brute needs no structure; the others held one */
        if (method == PF_NEIGHBORS_BRUTE)
            ck_assert_uint_eq(pf_neighbors_index_bytes(nb), 0);
        else
            ck_assert_uint_gt(pf_neighbors_index_bytes(nb), 0);
        pf_neighbors_destroy(nb);
        nb = NULL;
    }
    pf_neighbors_destroy(NULL);
}
END_TEST

/* ---- range queries ---- */

START_TEST(rangequery_refusals_then_scan_answers)
{
    const char *create = "pf_rangequery_create", *build = "pf_rangequery_build", *rebuild = "pf_rangequery_rebuild",
               *find = "pf_rangequery_find";
    pf_rangequery_def def = pf_rangequery_default_def();
    pf_rangequery *rq = NULL;
    REFUSED(pf_rangequery_create(NULL, &rq), create);
    REFUSED(pf_rangequery_create(&def, NULL), create);
    pf_rangequery_def bad = def;
    bad.method = PF_RQ_METHOD_COUNT;
    REFUSED(pf_rangequery_create(&bad, &rq), create);
    bad = def;
    bad.leaf_size = 0;
    REFUSED(pf_rangequery_create(&bad, &rq), create);
    bad.leaf_size = -8;
    REFUSED(pf_rangequery_create(&bad, &rq), create);
    bad = def;
    bad.cell_size = NAN;
    REFUSED(pf_rangequery_create(&bad, &rq), create);
    bad.cell_size = INFINITY;
    REFUSED(pf_rangequery_create(&bad, &rq), create);
    ck_assert_ptr_null(rq);
    ck_assert_str_eq(pf_rangequery_method_name(PF_RQ_METHOD_COUNT), "unknown");
    ck_assert_uint_eq(pf_rangequery_bytes(NULL), 0);
    pf_rangequery_method rm;
    REFUSED(pf_rangequery_method_parse(NULL, &rm), "pf_rangequery_method_parse");
    REFUSED(pf_rangequery_method_parse("kdtree", NULL), "pf_rangequery_method_parse");
    REFUSED(pf_rangequery_method_parse("octree", &rm), "pf_rangequery_method_parse");

    enum { N = 30 };
    double xyz[3 * N];
    for (size_t i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) xyz[3 * i + (size_t)k] = fmod(0.618 * (double)(i * (size_t)(k + 2)), 1.0);
    pf_id_buffer *buf;
    ck_assert_int_eq(pf_id_buffer_create(&buf), PF_OK);
    const double lo[3] = {0.2, 0.1, 0.0}, hi[3] = {0.8, 0.9, 0.7};
    const double poison[] = {NAN, INFINITY, -INFINITY};
    for (int method = 0; method < PF_RQ_METHOD_COUNT; method++) {
        def.method = (pf_rangequery_method)method;
        def.leaf_size = 2;
        ck_assert_int_eq(pf_rangequery_create(&def, &rq), PF_OK);
        refused(pf_rangequery_rebuild(rq, xyz), PF_ESTATE, rebuild);
        refused(pf_rangequery_find(rq, lo, hi, buf), PF_ESTATE, find);
        REFUSED(pf_rangequery_build(NULL, xyz, N), build);
        REFUSED(pf_rangequery_build(rq, NULL, N), build);
        REFUSED(pf_rangequery_build(rq, xyz, HUGE_COUNT), build);
        for (int k = 0; k < 3; k++) {
            double keep = xyz[3 * 9 + (size_t)k];
            xyz[3 * 9 + (size_t)k] = poison[k];
            REFUSED(pf_rangequery_build(rq, xyz, N), build);
            ck_assert_msg(strstr(pf_last_error(), "xyz["), "%s", pf_last_error());
            xyz[3 * 9 + (size_t)k] = keep;
        }
        ck_assert_int_eq(pf_rangequery_build(rq, xyz, N), PF_OK);
        REFUSED(pf_rangequery_rebuild(NULL, xyz), rebuild);
        REFUSED(pf_rangequery_rebuild(rq, NULL), rebuild);
        for (int k = 0; k < 3; k++) {
            double keep = xyz[3 * 4 + (size_t)k];
            xyz[3 * 4 + (size_t)k] = poison[k];
            REFUSED(pf_rangequery_rebuild(rq, xyz), rebuild);
            xyz[3 * 4 + (size_t)k] = keep;
        }
        REFUSED(pf_rangequery_find(NULL, lo, hi, buf), find);
        REFUSED(pf_rangequery_find(rq, NULL, hi, buf), find);
        REFUSED(pf_rangequery_find(rq, lo, NULL, buf), find);
        REFUSED(pf_rangequery_find(rq, lo, hi, NULL), find);
        for (int k = 0; k < 3; k++) {
            double l[3] = {lo[0], lo[1], lo[2]}, h[3] = {hi[0], hi[1], hi[2]};
            l[k] = poison[k];
            REFUSED(pf_rangequery_find(rq, l, hi, buf), find);
            h[k] = poison[k];
            REFUSED(pf_rangequery_find(rq, lo, h, buf), find);
        }

        /* after the refusals: the points inside the closed box, by a scan written here */
        ck_assert_int_eq(pf_rangequery_find(rq, lo, hi, buf), PF_OK);
        size_t n;
        const uint32_t *ids = pf_id_buffer_ids(buf, &n);
        int hit[N] = {0};
        for (size_t k = 0; k < n; k++) hit[ids[k]]++;
        size_t inside = 0;
        for (size_t i = 0; i < N; i++) {
            int in = 1;
            for (int k = 0; k < 3; k++) in &= lo[k] <= xyz[3 * i + (size_t)k] && xyz[3 * i + (size_t)k] <= hi[k];
            ck_assert_msg(hit[i] == in, "%s: point %zu", pf_rangequery_method_name(def.method), i);
            inside += (size_t)in;
        }
        ck_assert_uint_gt(inside, 0);
        /* an empty box (lo > hi on an axis) finds nothing, as documented */
        const double elo[3] = {0.5, 0, 0}, ehi[3] = {0.4, 1, 1};
        ck_assert_int_eq(pf_rangequery_find(rq, elo, ehi, buf), PF_OK);
        pf_id_buffer_ids(buf, &n);
        ck_assert_uint_eq(n, 0);
        pf_rangequery_destroy(rq);
        rq = NULL;
    }
    pf_id_buffer_destroy(buf);
    pf_rangequery_destroy(NULL);
}
END_TEST

/* ---- narrow phase ---- */

static pf_sphere ball(double x, double y, double z, double r, uint32_t object)
{
    return (pf_sphere){{x, y, z}, r, object, 0};
}

/* (0,0,0) (1,0,0) (0,1,0) */
static pf_triangle floor_triangle(uint32_t object)
{
    return (pf_triangle){{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, object, 0};
}

START_TEST(narrow_refusals_then_analytic_contacts)
{
    const char *ss = "pf_narrow_sphere_sphere", *st = "pf_narrow_sphere_triangle", *pt = "pf_narrow_point_triangle",
               *cp = "pf_triangle_closest_point";
    pf_proximity_def def = {0.1, 0.02};
    pf_sphere a = ball(0, 0, 0, 0.5, 1), b = ball(1.05, 0, 0, 0.5, 2);
    pf_triangle t = floor_triangle(3);
    pf_point p = {{0.2, 0.2, 0.04}, 4, 0};
    pf_contact c;
    double q[3];
    const double poison[] = {NAN, INFINITY, -INFINITY};

    REFUSED(pf_triangle_closest_point(NULL, t.v[0], t.v[1], t.v[2], q), cp);
    REFUSED(pf_triangle_closest_point(p.p, NULL, t.v[1], t.v[2], q), cp);
    REFUSED(pf_triangle_closest_point(p.p, t.v[0], NULL, t.v[2], q), cp);
    REFUSED(pf_triangle_closest_point(p.p, t.v[0], t.v[1], NULL, q), cp);
    REFUSED(pf_triangle_closest_point(p.p, t.v[0], t.v[1], t.v[2], NULL), cp);
    for (int k = 0; k < 3; k++) {
        double x[3] = {0.2, 0.2, 0.2};
        x[k] = poison[k];
        REFUSED(pf_triangle_closest_point(x, t.v[0], t.v[1], t.v[2], q), cp);
        REFUSED(pf_triangle_closest_point(p.p, t.v[0], x, t.v[2], q), cp);
    }

    pf_proximity_def bad_defs[] = {{NAN, 0}, {INFINITY, 0}, {0.1, -0.01}, {0.1, NAN}, {0.01, 0.02}};
    for (size_t k = 0; k < sizeof bad_defs / sizeof bad_defs[0]; k++) {
        REFUSED(pf_narrow_sphere_sphere(&bad_defs[k], &a, &b, &c), ss);
        ck_assert_msg(strstr(pf_last_error(), "def."), "%s", pf_last_error());
        REFUSED(pf_narrow_sphere_triangle(&bad_defs[k], &a, &t, &c), st);
        REFUSED(pf_narrow_point_triangle(&bad_defs[k], &p, &t, &c), pt);
    }
    REFUSED(pf_narrow_sphere_sphere(NULL, &a, &b, &c), ss);
    REFUSED(pf_narrow_sphere_sphere(&def, NULL, &b, &c), ss);
    REFUSED(pf_narrow_sphere_sphere(&def, &a, NULL, &c), ss);
    REFUSED(pf_narrow_sphere_sphere(&def, &a, &b, NULL), ss);
    REFUSED(pf_narrow_sphere_triangle(&def, &a, NULL, &c), st);
    REFUSED(pf_narrow_sphere_triangle(&def, &a, &t, NULL), st);
    REFUSED(pf_narrow_point_triangle(&def, NULL, &t, &c), pt);
    REFUSED(pf_narrow_point_triangle(&def, &p, NULL, &c), pt);
    for (int k = 0; k < 3; k++) {
        pf_sphere s = a;
        s.center[k] = poison[k];
        REFUSED(pf_narrow_sphere_sphere(&def, &s, &b, &c), ss);
        ck_assert_msg(strstr(pf_last_error(), "a.center"), "%s", pf_last_error());
        REFUSED(pf_narrow_sphere_triangle(&def, &s, &t, &c), st);
        s = b;
        s.radius = k == 0 ? -0.5 : poison[k];
        REFUSED(pf_narrow_sphere_sphere(&def, &a, &s, &c), ss);
        ck_assert_msg(strstr(pf_last_error(), "b.radius"), "%s", pf_last_error());
        pf_triangle u = t;
        u.v[2][k] = poison[k];
        REFUSED(pf_narrow_sphere_triangle(&def, &a, &u, &c), st);
        ck_assert_msg(strstr(pf_last_error(), "b.v[2]"), "%s", pf_last_error());
        REFUSED(pf_narrow_point_triangle(&def, &p, &u, &c), pt);
        pf_point r = p;
        r.p[k] = poison[k];
        REFUSED(pf_narrow_point_triangle(&def, &r, &t, &c), pt);
    }

    /* segments: every pointer argument, poisoned end points and radii, bad defs */
    const char *sc = "pf_segment_closest_points", *sg = "pf_narrow_segment_segment";
    pf_segment la = {{{0, 0, 0.05}, {1, 0, 0.05}}, 0, 6, 0}, lb = {{{0.5, -1, 0}, {0.5, 1, 0}}, 0, 7, 0};
    double stp[2];
    REFUSED(pf_segment_closest_points(NULL, la.v[1], lb.v[0], lb.v[1], stp, NULL, NULL), sc);
    REFUSED(pf_segment_closest_points(la.v[0], NULL, lb.v[0], lb.v[1], stp, NULL, NULL), sc);
    REFUSED(pf_segment_closest_points(la.v[0], la.v[1], NULL, lb.v[1], stp, NULL, NULL), sc);
    REFUSED(pf_segment_closest_points(la.v[0], la.v[1], lb.v[0], NULL, stp, NULL, NULL), sc);
    REFUSED(pf_segment_closest_points(la.v[0], la.v[1], lb.v[0], lb.v[1], NULL, NULL, NULL), sc);
    REFUSED(pf_narrow_segment_segment(NULL, &la, &lb, &c, NULL), sg);
    REFUSED(pf_narrow_segment_segment(&def, NULL, &lb, &c, NULL), sg);
    REFUSED(pf_narrow_segment_segment(&def, &la, NULL, &c, NULL), sg);
    REFUSED(pf_narrow_segment_segment(&def, &la, &lb, NULL, NULL), sg);
    for (size_t k = 0; k < sizeof bad_defs / sizeof bad_defs[0]; k++)
        REFUSED(pf_narrow_segment_segment(&bad_defs[k], &la, &lb, &c, NULL), sg);
    for (int k = 0; k < 3; k++) {
        pf_segment u = la;
        u.v[1][k] = poison[k];
        REFUSED(pf_segment_closest_points(la.v[0], u.v[1], lb.v[0], lb.v[1], stp, NULL, NULL), sc);
        ck_assert_msg(strstr(pf_last_error(), "p1"), "%s", pf_last_error());
        REFUSED(pf_narrow_segment_segment(&def, &u, &lb, &c, NULL), sg);
        ck_assert_msg(strstr(pf_last_error(), "a.v[1]"), "%s", pf_last_error());
        u = lb;
        u.radius = k == 0 ? -0.1 : poison[k];
        REFUSED(pf_narrow_segment_segment(&def, &la, &u, &c, NULL), sg);
        ck_assert_msg(strstr(pf_last_error(), "b.radius"), "%s", pf_last_error());
    }

    /* analytic answers: centres 1.05 apart, radii 0.5: gap 0.05 < alarm 0.1; depth 0.02 - 0.05 */
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, &a, &b, &c), 1);
    ck_assert(fabs(c.distance - 0.05) < 1e-12);
    ck_assert(fabs(c.depth + 0.03) < 1e-12);
    ck_assert(fabs(c.normal[0] + 1) < 1e-12); /* from B towards A */
    ck_assert_int_eq(pf_triangle_closest_point(p.p, t.v[0], t.v[1], t.v[2], q), PF_TRI_FACE);
    ck_assert(fabs(q[0] - 0.2) < 1e-12 && fabs(q[1] - 0.2) < 1e-12 && fabs(q[2]) < 1e-12);
    ck_assert_int_eq(pf_narrow_point_triangle(&def, &p, &t, &c), 1);
    ck_assert(fabs(c.distance - 0.04) < 1e-12);
    pf_sphere above = ball(0.2, 0.2, 0.55, 0.5, 5);
    ck_assert_int_eq(pf_narrow_sphere_triangle(&def, &above, &t, &c), 1);
    ck_assert(fabs(c.distance - 0.05) < 1e-12 && fabs(c.normal[2] - 1) < 1e-12);
    /* two crossing segments 0.05 apart: the middle of both, the normal from b up to a */
    ck_assert_int_eq(pf_narrow_segment_segment(&def, &la, &lb, &c, stp), 1);
    ck_assert(fabs(c.distance - 0.05) < 1e-12 && fabs(c.normal[2] - 1) < 1e-12);
    ck_assert(stp[0] == 0.5 && stp[1] == 0.5);
}
END_TEST

START_TEST(narrow_batches_refusals_then_pairwise_oracle)
{
    const char *ns = "pf_narrow_spheres", *nst = "pf_narrow_spheres_triangles", *npt = "pf_narrow_points_triangles";
    pf_proximity_def def = {0.1, 0.0};
    enum { NS = 6 };
    pf_sphere s[NS];
    for (uint32_t i = 0; i < NS; i++) s[i] = ball(1.0 * i, 0.1 * (i % 2), 0.3, 0.45 + 0.02 * i, i);
    pf_triangle t[2] = {floor_triangle(10), floor_triangle(11)};
    for (int k = 0; k < 3; k++) t[1].v[k][0] += 3;
    pf_point pts[2] = {{{0.1, 0.1, 0.05}, 20, 0}, {{3.1, 0.1, 0.5}, 21, 1}};
    pf_pair pairs[NS * (NS - 1) / 2];
    size_t np = 0;
    for (uint32_t i = 0; i < NS; i++)
        for (uint32_t j = i + 1; j < NS; j++) pairs[np++] = (pf_pair){i, j};
    pf_contact out[NS * (NS - 1) / 2];
    size_t nc = 99;
    const double poison[] = {NAN, INFINITY, -INFINITY};

    REFUSED(pf_narrow_spheres(NULL, s, NS, pairs, np, out, &nc), ns);
    REFUSED(pf_narrow_spheres(&def, s, NS, pairs, np, out, NULL), ns);
    REFUSED(pf_narrow_spheres(&def, NULL, NS, pairs, np, out, &nc), ns);
    REFUSED(pf_narrow_spheres(&def, s, NS, NULL, np, out, &nc), ns);
    REFUSED(pf_narrow_spheres(&def, s, NS, pairs, np, NULL, &nc), ns);
    REFUSED(pf_narrow_spheres(&def, s, HUGE_COUNT, pairs, np, out, &nc), ns);
    REFUSED(pf_narrow_spheres(&def, s, NS, pairs, HUGE_COUNT, out, &nc), ns);
    REFUSED(pf_narrow_spheres(&def, s, NS - 1, pairs, np, out, &nc), ns); /* pair (.., 5) out of range */
    ck_assert_msg(strstr(pf_last_error(), "pairs[4].j"), "%s", pf_last_error());
    for (int k = 0; k < 3; k++) {
        pf_sphere keep = s[3];
        s[3].center[k] = poison[k];
        REFUSED(pf_narrow_spheres(&def, s, NS, pairs, np, out, &nc), ns);
        ck_assert_msg(strstr(pf_last_error(), "spheres[3].center"), "%s", pf_last_error());
        s[3] = keep;
    }
    s[2].radius = -1;
    REFUSED(pf_narrow_spheres(&def, s, NS, pairs, np, out, &nc), ns);
    s[2].radius = 0.49;

    pf_pair st[3] = {{0, 0}, {3, 1}, {1, 0}};
    REFUSED(pf_narrow_spheres_triangles(&def, s, NS, t, 2, st, 3, out, NULL), nst);
    REFUSED(pf_narrow_spheres_triangles(&def, s, NS, NULL, 2, st, 3, out, &nc), nst);
    REFUSED(pf_narrow_spheres_triangles(&def, s, NS, t, HUGE_COUNT, st, 3, out, &nc), nst);
    REFUSED(pf_narrow_spheres_triangles(&def, s, NS, t, 1, st, 3, out, &nc), nst);
    ck_assert_msg(strstr(pf_last_error(), "pairs[1].j"), "%s", pf_last_error());
    t[1].v[1][2] = NAN;
    REFUSED(pf_narrow_spheres_triangles(&def, s, NS, t, 2, st, 3, out, &nc), nst);
    ck_assert_msg(strstr(pf_last_error(), "triangles[1].v[1]"), "%s", pf_last_error());
    REFUSED(pf_narrow_points_triangles(&def, pts, 2, t, 2, (pf_pair[]){{1, 1}}, 1, out, &nc), npt);
    t[1].v[1][2] = 0;
    REFUSED(pf_narrow_points_triangles(&def, pts, 2, t, 2, st, 3, out, &nc), npt); /* point 3 of 2 */
    ck_assert_msg(strstr(pf_last_error(), "pairs[1].i"), "%s", pf_last_error());
    REFUSED(pf_narrow_points_triangles(&def, NULL, 2, t, 2, st, 1, out, &nc), npt);
    REFUSED(pf_narrow_points_triangles(&def, pts, HUGE_COUNT, t, 2, st, 1, out, &nc), npt);
    pts[0].p[1] = INFINITY;
    REFUSED(pf_narrow_points_triangles(&def, pts, 2, t, 2, st, 1, out, &nc), npt);
    ck_assert_msg(strstr(pf_last_error(), "points[0].p"), "%s", pf_last_error());
    pts[0].p[1] = 0.1;

    /* the batch after the refusals equals the single calls, in the order of the pairs; and the gaps are the
     * analytic ones */
    ck_assert_int_eq(pf_narrow_spheres(&def, s, NS, pairs, np, out, &nc), PF_OK);
    size_t m = 0;
    for (size_t k = 0; k < np; k++) {
        const pf_sphere *x = &s[pairs[k].i], *y = &s[pairs[k].j];
        double d = 0;
        for (int c = 0; c < 3; c++) d += (x->center[c] - y->center[c]) * (x->center[c] - y->center[c]);
        double gap = sqrt(d) - x->radius - y->radius;
        if (!(gap < def.alarm_distance)) continue;
        ck_assert_uint_lt(m, nc);
        ck_assert_uint_eq(out[m].object_a, x->object);
        ck_assert_uint_eq(out[m].object_b, y->object);
        ck_assert(fabs(out[m].distance - gap) < 1e-12);
        m++;
    }
    ck_assert_uint_eq(m, nc);
    ck_assert_uint_gt(nc, 0);
    ck_assert_int_eq(pf_narrow_points_triangles(&def, pts, 2, t, 2, (pf_pair[]){{0, 0}, {1, 1}}, 2, out, &nc), PF_OK);
    ck_assert_uint_eq(nc, 1); /* point 0 is 0.05 above triangle 0; point 1 is 0.5 above triangle 1 */
    ck_assert(fabs(out[0].distance - 0.05) < 1e-12);
    ck_assert_int_eq(pf_narrow_spheres_triangles(&def, s, NS, t, 2, (pf_pair[]){{0, 0}}, 1, out, &nc), PF_OK);
    ck_assert_uint_eq(nc, 1);
    ck_assert(fabs(out[0].distance - (0.3 - s[0].radius)) < 1e-12);
}
END_TEST

START_TEST(contact_sets_refusals_then_set_oracle)
{
    const char *op = "pf_contact_object_pairs", *ch = "pf_contact_changes";
    pf_contact prev[3] = {{.object_a = 1, .object_b = 2}, {.object_a = 4, .object_b = 3}, {.object_a = 2, .object_b = 1}};
    pf_contact cur[2] = {{.object_a = 3, .object_b = 4}, {.object_a = 5, .object_b = 5}};
    pf_object_pair set[3], started[2], stopped[3];
    size_t n = 9, ns = 9, nt = 9;
    REFUSED(pf_contact_object_pairs(prev, 3, set, NULL), op);
    REFUSED(pf_contact_object_pairs(NULL, 3, set, &n), op);
    REFUSED(pf_contact_object_pairs(prev, 3, NULL, &n), op);
    REFUSED(pf_contact_object_pairs(prev, HUGE_COUNT, set, &n), op);
    REFUSED(pf_contact_changes(prev, 3, cur, 2, started, 2, NULL, stopped, 3, &nt), ch);
    REFUSED(pf_contact_changes(prev, 3, cur, 2, started, 2, &ns, stopped, 3, NULL), ch);
    REFUSED(pf_contact_changes(NULL, 3, cur, 2, started, 2, &ns, stopped, 3, &nt), ch);
    REFUSED(pf_contact_changes(prev, 3, NULL, 2, started, 2, &ns, stopped, 3, &nt), ch);
    REFUSED(pf_contact_changes(prev, 3, cur, 2, NULL, 2, &ns, stopped, 3, &nt), ch);
    REFUSED(pf_contact_changes(prev, 3, cur, 2, started, 2, &ns, NULL, 3, &nt), ch);
    REFUSED(pf_contact_changes(prev, 3, cur, 2, started, 1, &ns, stopped, 3, &nt), ch);
    REFUSED(pf_contact_changes(prev, 3, cur, 2, started, 2, &ns, stopped, 2, &nt), ch);
    REFUSED(pf_contact_changes(prev, HUGE_COUNT, cur, 2, started, 2, &ns, stopped, 3, &nt), ch);
    REFUSED(pf_contact_changes(prev, 3, cur, HUGE_COUNT, started, 2, &ns, stopped, 3, &nt), ch);

    ck_assert_int_eq(pf_contact_object_pairs(prev, 3, set, &n), PF_OK);
    ck_assert_uint_eq(n, 2); /* {1,2} twice, {3,4} */
    ck_assert(set[0].a == 1 && set[0].b == 2 && set[1].a == 3 && set[1].b == 4);
    ck_assert_int_eq(pf_contact_changes(prev, 3, cur, 2, started, 2, &ns, stopped, 3, &nt), PF_OK);
    ck_assert_uint_eq(ns, 1); /* {5,5} starts */
    ck_assert(started[0].a == 5 && started[0].b == 5);
    ck_assert_uint_eq(nt, 1); /* {1,2} stops; {3,4} goes on */
    ck_assert(stopped[0].a == 1 && stopped[0].b == 2);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("api_collision");
    TCase *tc = tcase_create("api");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, broadphase_refusals_then_brute_pairs);
    tcase_add_test(tc, broadphase_coordinates_at_the_limit);
    tcase_add_test(tc, query_index_refusals_then_brute_answers);
    tcase_add_test(tc, neighbors_refusals_then_brute_lists);
    tcase_add_test(tc, rangequery_refusals_then_scan_answers);
    tcase_add_test(tc, narrow_refusals_then_analytic_contacts);
    tcase_add_test(tc, narrow_batches_refusals_then_pairwise_oracle);
    tcase_add_test(tc, contact_sets_refusals_then_set_oracle);
    suite_add_tcase(s, tc);
    return s;
}
