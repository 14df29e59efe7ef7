/* Check suite of the peer broad phases (bullet-dbvt, bullet-sap, cgal): each must report exactly the closed-box
 * overlaps of an all-pairs enumeration written here, sorted, on random, clustered, touching and moving inputs. */
#include "check_main.h"
#include "box_sets.h"
#include "rng.h"

#include "physflow/collision.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const pf_broadphase_method peers[] = {PF_BP_BULLET_DBVT, PF_BP_BULLET_SAP, PF_BP_CGAL};
enum { NPEERS = sizeof peers / sizeof peers[0] };

static int peer_built(pf_broadphase_method m)
{
#ifdef PF_HAVE_BULLET
    if (m == PF_BP_BULLET_DBVT || m == PF_BP_BULLET_SAP) return 1;
#endif
#ifdef PF_HAVE_CGAL
    if (m == PF_BP_CGAL) return 1;
#endif
    (void)m;
    return 0;
}

/* The oracle: every i < j whose closed boxes overlap, in (i, j) order. */
static pf_pair *oracle_pairs(const pf_aabb *b, size_t n, size_t *count)
{
    size_t cap = 1024, m = 0;
    pf_pair *p = malloc(cap * sizeof *p);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            int hit = 1;
            for (int k = 0; k < 3 && hit; k++) hit = b[i].min[k] <= b[j].max[k] && b[j].min[k] <= b[i].max[k];
            if (!hit) continue;
            if (m == cap) {
                cap *= 2;
                p = realloc(p, cap * sizeof *p);
                ck_assert_ptr_nonnull(p);
            }
            p[m].i = (uint32_t)i;
            p[m].j = (uint32_t)j;
            m++;
        }
    *count = m;
    return p;
}

static void check_against_oracle(pf_broadphase *bp, const pf_aabb *boxes, size_t n, const char *what)
{
    size_t nwant;
    pf_pair *want = oracle_pairs(boxes, n, &nwant);
    const pf_pair *got;
    size_t ngot;
    pf_broadphase_stats st;
    int rc = pf_broadphase_pairs(bp, boxes, n, &got, &ngot, &st);
    ck_assert_msg(rc == PF_OK, "%s: %s", what, pf_last_error());
    ck_assert_msg(ngot == nwant, "%s: %zu pairs, oracle %zu", what, ngot, nwant);
    for (size_t k = 0; k < ngot; k++)
        ck_assert_msg(got[k].i == want[k].i && got[k].j == want[k].j, "%s: pair %zu is (%u, %u), oracle (%u, %u)",
                      what, k, got[k].i, got[k].j, want[k].i, want[k].j);
    ck_assert_uint_eq(st.pairs, nwant);
    ck_assert_msg(st.candidates >= st.pairs, "%s: %llu candidates < %llu pairs", what,
                  (unsigned long long)st.candidates, (unsigned long long)st.pairs);
    ck_assert_uint_gt(st.bytes, 0);
    free(want);
}

static pf_broadphase *make(pf_broadphase_method m)
{
    pf_broadphase_def def = pf_broadphase_default_def();
    def.method = m;
    pf_broadphase *bp = NULL;
    ck_assert_msg(pf_broadphase_create(&def, &bp) == PF_OK, "%s: %s", pf_broadphase_method_name(m),
                  pf_last_error());
    return bp;
}

/* Boxes with corners uniform in [0, world) and extents uniform in [0, size) on each axis. */
static void fill_random(pf_aabb *b, size_t n, uint64_t seed, double world, double size)
{
    box_set_def d = {
        .n = n, .seed = seed, .lo = {0, 0, 0}, .hi = {world, world, world}, .half_max = size / 2};
    box_set_fill(b, &d);
}

START_TEST(not_built_reports_enotsup)
{
    pf_broadphase_method m = peers[_i];
    ck_assert_int_eq(pf_broadphase_method_available(m), peer_built(m));
    if (peer_built(m)) return;
    pf_broadphase_def def = pf_broadphase_default_def();
    def.method = m;
    pf_broadphase *bp = (pf_broadphase *)&def; /* must be reset to NULL */
    ck_assert_int_eq(pf_broadphase_create(&def, &bp), PF_ENOTSUP);
    ck_assert_ptr_null(bp);
}
END_TEST

START_TEST(random_boxes)
{
    pf_broadphase_method m = peers[_i];
    if (!peer_built(m)) return;
    rng s = {11 + (uint64_t)_i};
    enum { N = 2000 };
    static pf_aabb b[N];
    pf_broadphase *bp = make(m);
    fill_random(b, N, rng_u64(&s), 100, 6);
    check_against_oracle(bp, b, N, "random");
    /* a single box, and few boxes */
    check_against_oracle(bp, b, 1, "one box");
    check_against_oracle(bp, b, 7, "seven boxes");
    /* far from the origin and tiny, where float rounding would decide */
    for (size_t i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) {
            b[i].min[k] = 1e6 + b[i].min[k] * 1e-9;
            b[i].max[k] = 1e6 + b[i].max[k] * 1e-9;
        }
    check_against_oracle(bp, b, N, "offset, tiny");
    pf_broadphase_destroy(bp);
}
END_TEST

START_TEST(clustered_boxes)
{
    pf_broadphase_method m = peers[_i];
    if (!peer_built(m)) return;
    rng s = {23 + (uint64_t)_i};
    enum { N = 1500, CLUSTERS = 6 };
    static pf_aabb b[N];
    double centre[CLUSTERS][3];
    for (int c = 0; c < CLUSTERS; c++)
        for (int k = 0; k < 3; k++) centre[c][k] = rng_range(&s, -1000, 1000);
    for (size_t i = 0; i < N; i++) {
        int c = (int)(rng_u64(&s) % CLUSTERS);
        double half = rng_range(&s, 0.001, 0.5);
        for (int k = 0; k < 3; k++) {
            double x = centre[c][k] + rng_range(&s, -3, 3) * (c + 1);
            b[i].min[k] = x - half;
            b[i].max[k] = x + half * (i % 5 == 0 ? 20 : 1);
        }
    }
    pf_broadphase *bp = make(m);
    check_against_oracle(bp, b, N, "clustered");
    pf_broadphase_destroy(bp);
}
END_TEST

START_TEST(touching_boxes)
{
    pf_broadphase_method m = peers[_i];
    if (!peer_built(m)) return;
    enum { G = 8, N = G * G * G + 64, NI = 600 };
    static pf_aabb b[N > NI ? N : NI];
    size_t n = 0;
    /* a lattice of cubes that share faces, edges and corners: every neighbour touches */
    for (int x = 0; x < G; x++)
        for (int y = 0; y < G; y++)
            for (int z = 0; z < G; z++) {
                double o[3] = {x * 0.1, y * 0.1, z * 0.1}; /* 0.1 is not a float: touching must survive rounding */
                for (int k = 0; k < 3; k++) {
                    b[n].min[k] = o[k];
                    b[n].max[k] = o[k] + 0.1;
                }
                /* make neighbours share the exact same double */
                b[n].max[0] = (x + 1) * 0.1;
                b[n].max[1] = (y + 1) * 0.1;
                b[n].max[2] = (z + 1) * 0.1;
                n++;
            }
    /* flat and point boxes on lattice planes, and near misses by one ulp */
    rng s = {5};
    for (int i = 0; i < 64; i++) {
        double p[3] = {(double)(rng_u64(&s) % (G + 1)) * 0.1, (double)(rng_u64(&s) % (G + 1)) * 0.1,
                       (double)(rng_u64(&s) % (G + 1)) * 0.1};
        for (int k = 0; k < 3; k++) b[n].min[k] = b[n].max[k] = p[k];
        if (i % 3 == 1) b[n].max[0] = p[0] + 0.05;
        if (i % 3 == 2) {
            b[n].min[1] = nextafter(G * 0.1, 1e9); /* one ulp above the lattice: touches nothing there */
            b[n].max[1] = b[n].min[1] + 0.2;
        }
        n++;
    }
    pf_broadphase *bp = make(m);
    check_against_oracle(bp, b, n, "touching");
    /* integer boxes: many exact touches */
    for (size_t i = 0; i < NI; i++)
        for (int k = 0; k < 3; k++) {
            b[i].min[k] = (double)(rng_u64(&s) % 20);
            b[i].max[k] = b[i].min[k] + (double)(rng_u64(&s) % 3);
        }
    check_against_oracle(bp, b, NI, "integer");
    pf_broadphase_destroy(bp);
}
END_TEST

START_TEST(moving_boxes_across_calls)
{
    /* the same broad phase over a sequence: Bullet updates its proxies, rebuilds on a count change */
    pf_broadphase_method m = peers[_i];
    if (!peer_built(m)) return;
    rng s = {31 + (uint64_t)_i};
    enum { N = 800 };
    static pf_aabb b[N];
    static double vel[N][3];
    fill_random(b, N, rng_u64(&s), 40, 3);
    for (size_t i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) vel[i][k] = rng_range(&s, -0.3, 0.3);
    pf_broadphase *bp = make(m);
    char what[64];
    for (int step = 0; step < 40; step++) {
        size_t n = step >= 25 && step < 30 ? N - 100 + (size_t)step : N; /* the count changes, then returns */
        snprintf(what, sizeof what, "step %d", step);
        check_against_oracle(bp, b, n, what);
        for (size_t i = 0; i < N; i++)
            for (int k = 0; k < 3; k++) {
                double d = vel[i][k] * (step == 15 ? 100.0 : 1.0); /* step 15: a teleport, leaves the world */
                b[i].min[k] += d;
                b[i].max[k] += d;
            }
        if (step == 20) /* everything shrinks to touching points at the same place */
            for (size_t i = 0; i < N; i += 2)
                for (int k = 0; k < 3; k++) b[i].min[k] = b[i].max[k] = 7.0;
    }
    pf_broadphase_destroy(bp);
}
END_TEST

START_TEST(invalid_boxes_refused)
{
    pf_broadphase_method m = peers[_i];
    if (!peer_built(m)) return;
    pf_broadphase *bp = make(m);
    pf_aabb b[2] = {{{0, 0, 0}, {1, 1, 1}}, {{0, NAN, 0}, {1, 1, 1}}};
    const pf_pair *p;
    size_t np;
    ck_assert_int_eq(pf_broadphase_pairs(bp, b, 2, &p, &np, NULL), PF_EINVAL);
    b[1].min[1] = 2; /* min > max */
    ck_assert_int_eq(pf_broadphase_pairs(bp, b, 2, &p, &np, NULL), PF_EINVAL);
    b[1].min[1] = 1; /* fine again, and touching */
    ck_assert_int_eq(pf_broadphase_pairs(bp, b, 2, &p, &np, NULL), PF_OK);
    ck_assert_uint_eq(np, 1);
    ck_assert_int_eq(pf_broadphase_pairs(bp, b, 0, &p, &np, NULL), PF_OK);
    ck_assert_uint_eq(np, 0);
    /* huge coordinates beyond float range, within PF_AABB_COORD_MAX: exact pairs */
    pf_aabb h[3] = {{{-1e120, 0, 0}, {-1e119, 1, 1}}, {{-1e119, 0, 0}, {1e120, 1, 1}}, {{1e121, 0, 0}, {1e122, 1, 1}}};
    check_against_oracle(bp, h, 3, "huge");
    h[2].max[0] = 10 * PF_AABB_COORD_MAX; /* beyond it: refused, as by every method */
    ck_assert_int_eq(pf_broadphase_pairs(bp, h, 3, &p, &np, NULL), PF_EINVAL);
    pf_broadphase_destroy(bp);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("collision_peers");
    TCase *tc = tcase_create("peers");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, not_built_reports_enotsup, 0, NPEERS);
    tcase_add_loop_test(tc, random_boxes, 0, NPEERS);
    tcase_add_loop_test(tc, clustered_boxes, 0, NPEERS);
    tcase_add_loop_test(tc, touching_boxes, 0, NPEERS);
    tcase_add_loop_test(tc, moving_boxes_across_calls, 0, NPEERS);
    tcase_add_loop_test(tc, invalid_boxes_refused, 0, NPEERS);
    suite_add_tcase(s, tc);
    return s;
}
