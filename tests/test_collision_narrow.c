/* Check suite of the narrow phase (sphere–sphere, sphere/point–triangle, closest point on a triangle, closest
 * points of two segments and segment–segment proximity) and of contact changes, against analytic cases and
 * independent brute-force oracles. */
#include "check_main.h"
#include "rng.h"

#include "physflow/narrowphase.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers --------------------------------------------------------------------------------------------- */

static double dist3(const double a[3], const double b[3])
{
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

static double norm3(const double a[3])
{
    return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

static void set3(double r[3], double x, double y, double z)
{
    r[0] = x;
    r[1] = y;
    r[2] = z;
}

#define ck_assert_near(x, y, tol) ck_assert_msg(fabs((x) - (y)) <= (tol), "%s = %.17g, expected %.17g", #x, (double)(x), (double)(y))

static void ck_vec_near(const double a[3], double x, double y, double z, double tol)
{
    ck_assert_msg(fabs(a[0] - x) <= tol && fabs(a[1] - y) <= tol && fabs(a[2] - z) <= tol,
                  "(%.17g %.17g %.17g) != (%.17g %.17g %.17g)", a[0], a[1], a[2], x, y, z);
}

static void ck_contact_finite(const pf_contact *c)
{
    for (int k = 0; k < 3; k++)
        ck_assert(isfinite(c->normal[k]) && isfinite(c->point_a[k]) && isfinite(c->point_b[k]));
    ck_assert(isfinite(c->distance) && isfinite(c->depth));
    ck_assert_near(norm3(c->normal), 1.0, 1e-12);
}

static pf_sphere sphere(double x, double y, double z, double r, uint32_t obj, uint32_t el)
{
    pf_sphere s = {{x, y, z}, r, obj, el};
    return s;
}

static pf_triangle unit_triangle(uint32_t obj, uint32_t el) /* (0,0,0) (1,0,0) (0,1,0): face normal +z */
{
    pf_triangle t = {{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, obj, el};
    return t;
}

/* ---- sphere–sphere ---------------------------------------------------------------------------------------- */

START_TEST(sphere_sphere_axis)
{
    pf_proximity_def def = {2.0, 0.5};
    pf_sphere a = sphere(0, 0, 0, 1.0, 7, 3), b = sphere(3, 0, 0, 0.5, 2, 9);
    pf_contact c;
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, &a, &b, &c), 1);
    ck_assert_near(c.distance, 1.5, 0);
    ck_assert_near(c.depth, 0.5 - 1.5, 0);
    ck_vec_near(c.normal, -1, 0, 0, 0);   /* from B to A */
    ck_vec_near(c.point_a, 1, 0, 0, 0);   /* A's surface towards B */
    ck_vec_near(c.point_b, 2.5, 0, 0, 0); /* B's surface towards A */
    ck_assert_uint_eq(c.object_a, 7);
    ck_assert_uint_eq(c.element_a, 3);
    ck_assert_uint_eq(c.object_b, 2);
    ck_assert_uint_eq(c.element_b, 9);
    /* farther than the alarm: nothing, and *out untouched */
    b.center[0] = 10.0;
    memset(&c, 0xab, sizeof c);
    pf_contact ref;
    memset(&ref, 0xab, sizeof ref);
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, &a, &b, &c), 0);
    ck_assert_mem_eq(&c, &ref, sizeof c);
}
END_TEST

START_TEST(sphere_sphere_random_directions)
{
    rng s = {42};
    pf_proximity_def def = {0.3, 0.1};
    for (int it = 0; it < 2000; it++) {
        double u[3] = {rng_range(&s, -1, 1), rng_range(&s, -1, 1), rng_range(&s, -1, 1)};
        double len = norm3(u);
        if (len < 1e-3) continue;
        for (int k = 0; k < 3; k++) u[k] /= len;
        double ra = rng_range(&s, 0, 2), rb = rng_range(&s, 0, 2), gap = rng_range(&s, -0.5, 0.5);
        double d = ra + rb + gap;
        if (d <= 1e-6) continue;
        pf_sphere b = sphere(rng_range(&s, -5, 5), rng_range(&s, -5, 5), rng_range(&s, -5, 5), rb, 1, 0);
        pf_sphere a = sphere(b.center[0] + d * u[0], b.center[1] + d * u[1], b.center[2] + d * u[2], ra, 2, 0);
        pf_contact c;
        int rc = pf_narrow_sphere_sphere(&def, &a, &b, &c);
        if (fabs(gap - def.alarm_distance) < 1e-9) continue; /* too close to the boundary to call */
        ck_assert_int_eq(rc, gap < def.alarm_distance);
        if (!rc) continue;
        ck_contact_finite(&c);
        ck_assert_near(c.distance, gap, 1e-12);
        ck_assert_near(c.depth, def.contact_distance - gap, 1e-12);
        for (int k = 0; k < 3; k++) ck_assert_near(c.normal[k], u[k], 1e-12);
        /* point_a - point_b = distance * normal, both on their surfaces */
        for (int k = 0; k < 3; k++) ck_assert_near(c.point_a[k] - c.point_b[k], gap * u[k], 1e-12);
        ck_assert_near(dist3(c.point_a, a.center), ra, 1e-12);
        ck_assert_near(dist3(c.point_b, b.center), rb, 1e-12);
    }
}
END_TEST

START_TEST(sphere_sphere_alarm_and_contact_boundaries)
{
    pf_sphere a = sphere(0, 0, 4, 1, 0, 0), b = sphere(0, 0, 0, 1, 1, 0); /* gap exactly 2 */
    pf_contact c;
    pf_proximity_def def = {2.0, 1.0};
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, &a, &b, &c), 0); /* closer than, strictly */
    def.alarm_distance = nextafter(2.0, 3.0);
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, &a, &b, &c), 1);
    ck_assert_near(c.depth, -1.0, 0); /* within alarm, outside contact distance: negative depth */
    def.contact_distance = 2.0;
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, &a, &b, &c), 1);
    ck_assert_near(c.depth, 0.0, 0); /* exactly at the contact distance */
    def.contact_distance = def.alarm_distance;
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, &a, &b, &c), 1);
    ck_assert(c.depth > 0.0);
    /* zero distances: touching spheres are not reported, interpenetrating ones are with positive depth */
    def.alarm_distance = def.contact_distance = 0.0;
    b.center[2] = 2.0;
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, &a, &b, &c), 0);
    b.center[2] = 2.5;
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, &a, &b, &c), 1);
    ck_assert_near(c.depth, 0.5, 0);
    ck_vec_near(c.normal, 0, 0, 1, 0);
}
END_TEST

START_TEST(sphere_sphere_coincident_centres)
{
    pf_proximity_def def = {0.1, 0.0};
    pf_sphere a = sphere(1, 2, 3, 0.5, 0, 0), b = sphere(1, 2, 3, 0.25, 1, 0);
    pf_contact c;
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, &a, &b, &c), 1);
    ck_contact_finite(&c);
    ck_vec_near(c.normal, 0, 0, 1, 0);
    ck_assert_near(c.distance, -0.75, 0);
    ck_assert_near(c.depth, 0.75, 0);
}
END_TEST

/* ---- closest point on a triangle --------------------------------------------------------------------------- */

/* Independent oracle: the closest point is either the projection on the plane when it falls inside the triangle
 * (barycentric test), or the closest point of one of the three edges. */
static double oracle_edge(const double p[3], const double a[3], const double b[3], double q[3])
{
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double l2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    double t = l2 > 0 ? ((p[0] - a[0]) * ab[0] + (p[1] - a[1]) * ab[1] + (p[2] - a[2]) * ab[2]) / l2 : 0;
    t = fmin(1.0, fmax(0.0, t));
    for (int k = 0; k < 3; k++) q[k] = a[k] + t * ab[k];
    return dist3(p, q);
}

static double oracle_distance(const double p[3], const double a[3], const double b[3], const double c[3])
{
    double q[3];
    double best = oracle_edge(p, a, b, q);
    best = fmin(best, oracle_edge(p, b, c, q));
    best = fmin(best, oracle_edge(p, c, a, q));
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double w[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2], vv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    double uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    double wu = w[0] * u[0] + w[1] * u[1] + w[2] * u[2], wv = w[0] * v[0] + w[1] * v[1] + w[2] * v[2];
    double den = uu * vv - uv * uv;
    if (den > 1e-12 * uu * vv) {
        double s = (wu * vv - wv * uv) / den, t = (wv * uu - wu * uv) / den;
        if (s >= 0 && t >= 0 && s + t <= 1) {
            for (int k = 0; k < 3; k++) q[k] = a[k] + s * u[k] + t * v[k];
            best = fmin(best, dist3(p, q));
        }
    }
    return best;
}

START_TEST(closest_point_regions)
{
    pf_triangle t = unit_triangle(0, 0);
    struct {
        double p[3], q[3];
        int feature;
    } cases[] = {
        {{-1, -1, 0.5}, {0, 0, 0}, PF_TRI_VERTEX_0},      {{2, -0.5, 0.3}, {1, 0, 0}, PF_TRI_VERTEX_1},
        {{-0.5, 2, -1}, {0, 1, 0}, PF_TRI_VERTEX_2},      {{0.25, -1, 0.2}, {0.25, 0, 0}, PF_TRI_EDGE_01},
        {{1, 1, 0.5}, {0.5, 0.5, 0}, PF_TRI_EDGE_12},     {{-1, 0.375, 0.7}, {0, 0.375, 0}, PF_TRI_EDGE_20},
        {{0.25, 0.5, 0.75}, {0.25, 0.5, 0}, PF_TRI_FACE}, {{0.25, 0.5, -0.75}, {0.25, 0.5, 0}, PF_TRI_FACE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double q[3];
        int f = pf_triangle_closest_point(cases[i].p, t.v[0], t.v[1], t.v[2], q);
        ck_assert_msg(f == cases[i].feature, "case %zu: feature %d, expected %d", i, f, cases[i].feature);
        ck_vec_near(q, cases[i].q[0], cases[i].q[1], cases[i].q[2], 1e-15);
    }
}
END_TEST

START_TEST(closest_point_random_vs_oracle)
{
    rng s = {7};
    int seen[7] = {0};
    for (int it = 0; it < 20000; it++) {
        double v[3][3], p[3], q[3];
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) v[i][k] = rng_range(&s, -1, 1);
        for (int k = 0; k < 3; k++) p[k] = rng_range(&s, -2, 2);
        int f = pf_triangle_closest_point(p, v[0], v[1], v[2], q);
        ck_assert(f >= PF_TRI_VERTEX_0 && f <= PF_TRI_FACE);
        seen[f]++;
        double want = oracle_distance(p, v[0], v[1], v[2]);
        ck_assert_msg(fabs(dist3(p, q) - want) <= 1e-10, "it %d: %.17g vs oracle %.17g", it, dist3(p, q), want);
    }
    for (int f = 0; f < 7; f++) ck_assert_msg(seen[f] > 0, "feature %d never exercised", f);
}
END_TEST

/* Extended-precision oracle for thin triangles: the same candidates as oracle_distance (edges, projection when
 * inside), in long double, with the inside test on signs of triple products rather than barycentrics. */
static long double oracle_edge_l(const long double p[3], const long double a[3], const long double b[3])
{
    long double ab[3], l = 0, t = 0, d = 0;
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        l += ab[k] * ab[k];
        t += (p[k] - a[k]) * ab[k];
    }
    t = l > 0 ? t / l : 0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    for (int k = 0; k < 3; k++) {
        long double x = p[k] - (a[k] + t * ab[k]);
        d += x * x;
    }
    return sqrtl(d);
}

static void cross_l(long double r[3], const long double a[3], const long double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static double oracle_distance_l(const double pd[3], const double ad[3], const double bd[3], const double cd[3])
{
    long double p[3], v[3][3];
    for (int k = 0; k < 3; k++) {
        p[k] = pd[k];
        v[0][k] = ad[k];
        v[1][k] = bd[k];
        v[2][k] = cd[k];
    }
    long double best = fminl(oracle_edge_l(p, v[0], v[1]), fminl(oracle_edge_l(p, v[1], v[2]),
                                                                  oracle_edge_l(p, v[2], v[0])));
    long double u[3], w[3], n[3];
    for (int k = 0; k < 3; k++) {
        u[k] = v[1][k] - v[0][k];
        w[k] = v[2][k] - v[0][k];
    }
    cross_l(n, u, w);
    long double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (nn > 0) {
        long double h = (n[0] * (p[0] - v[0][0]) + n[1] * (p[1] - v[0][1]) + n[2] * (p[2] - v[0][2])) / nn, q[3];
        for (int k = 0; k < 3; k++) q[k] = p[k] - h * n[k];
        int inside = 1;
        for (int e = 0; e < 3; e++) {
            long double ed[3], r[3], c[3];
            for (int k = 0; k < 3; k++) {
                ed[k] = v[(e + 1) % 3][k] - v[e][k];
                r[k] = q[k] - v[e][k];
            }
            cross_l(c, ed, r);
            if (n[0] * c[0] + n[1] * c[1] + n[2] * c[2] < 0) inside = 0;
        }
        if (inside) best = fminl(best, fabsl(h) * sqrtl(nn));
    }
    return (double)best;
}

START_TEST(closest_point_slivers_vs_long_double)
{
    /* thin triangles, from well shaped to collinear; queries near and far, above and beside: no region may be
     * misjudged (a misjudged region would give a point up to the triangle's length away) */
    rng s = {17};
    for (int e = 0; e <= 16; e++) {
        double eps = pow(10.0, -0.5 * e), worst = 0;
        for (int it = 0; it < 3000; it++) {
            double a[3] = {0, 0, 0}, b[3] = {1, eps * urand(&s), 0};
            double c[3] = {rng_range(&s, -0.5, 1.5), eps * rng_range(&s, -0.5, 0.5), eps * urand(&s)};
            double p[3] = {rng_range(&s, -1, 2), rng_range(&s, -3, 3) * (it % 2 ? eps : 1.0),
                           rng_range(&s, -3, 3) * (it % 2 ? eps : 1.0)}, q[3];
            pf_triangle_closest_point(p, a, b, c, q);
            ck_assert(isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]));
            worst = fmax(worst, fabs(dist3(p, q) - oracle_distance_l(p, a, b, c)));
        }
        ck_assert_msg(worst <= 1e-12, "thinness %g: error %g", eps, worst);
    }
}
END_TEST

START_TEST(closest_point_degenerate)
{
    double q[3];
    double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {2, 0, 0}, p[3] = {0.5, 1, 0};
    /* collinear */
    int f = pf_triangle_closest_point(p, a, b, c, q);
    ck_assert(f >= PF_TRI_VERTEX_0 && f <= PF_TRI_EDGE_20);
    ck_vec_near(q, 0.5, 0, 0, 1e-15);
    set3(p, 3, 0, 0);
    pf_triangle_closest_point(p, a, b, c, q);
    ck_vec_near(q, 2, 0, 0, 1e-15);
    /* two coincident vertices */
    set3(p, 0.5, 0.5, 0.5);
    pf_triangle_closest_point(p, a, a, b, q);
    ck_vec_near(q, 0.5, 0, 0, 1e-15);
    /* a point triangle */
    pf_triangle_closest_point(p, b, b, b, q);
    ck_vec_near(q, 1, 0, 0, 0);
    /* a sliver, nearly collinear */
    double s1[3] = {0, 0, 0}, s2[3] = {1, 1e-15, 0}, s3[3] = {2, 0, 1e-15};
    rng s = {3};
    for (int it = 0; it < 1000; it++) {
        for (int k = 0; k < 3; k++) p[k] = rng_range(&s, -1, 3);
        pf_triangle_closest_point(p, s1, s2, s3, q);
        ck_assert(isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]));
        ck_assert_near(dist3(p, q), oracle_distance(p, s1, s2, s3), 1e-9);
    }
}
END_TEST

/* ---- sphere–triangle and point–triangle -------------------------------------------------------------------- */

/* A rigid motion applied to both the scene and the expected answers: the results must follow it. */
static void rotate(double r[3], const double p[3])
{
    /* rotation by 0.7 rad about z, then 0.4 rad about x, then a translation */
    double c1 = cos(0.7), s1 = sin(0.7), c2 = cos(0.4), s2 = sin(0.4);
    double x = c1 * p[0] - s1 * p[1], y = s1 * p[0] + c1 * p[1], z = p[2];
    r[0] = x + 3.0;
    r[1] = c2 * y - s2 * z - 1.0;
    r[2] = s2 * y + c2 * z + 0.5;
}

START_TEST(sphere_triangle_each_region)
{
    /* the closest-point cases again, as sphere centres of radius 0.2, in a rotated frame */
    struct {
        double p[3], q[3];
    } cases[] = {
        {{-1, -1, 0.5}, {0, 0, 0}},  {{2, -0.5, 0.3}, {1, 0, 0}},      {{-0.5, 2, -1}, {0, 1, 0}},
        {{0.25, -1, 0.2}, {0.25, 0, 0}}, {{1, 1, 0.5}, {0.5, 0.5, 0}}, {{-1, 0.375, 0.7}, {0, 0.375, 0}},
        {{0.25, 0.5, 0.75}, {0.25, 0.5, 0}}, {{0.25, 0.5, -0.75}, {0.25, 0.5, 0}},
    };
    pf_triangle t = unit_triangle(5, 11), rt = t;
    for (int i = 0; i < 3; i++) rotate(rt.v[i], t.v[i]);
    const double r = 0.2;
    pf_proximity_def def = {2.0, 0.05};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int frame = 0; frame < 2; frame++) {
            const pf_triangle *tri = frame ? &rt : &t;
            double p[3], q[3];
            if (frame) {
                rotate(p, cases[i].p);
                rotate(q, cases[i].q);
            } else {
                memcpy(p, cases[i].p, sizeof p);
                memcpy(q, cases[i].q, sizeof q);
            }
            double d = dist3(p, q), n[3];
            for (int k = 0; k < 3; k++) n[k] = (p[k] - q[k]) / d;
            pf_sphere sp = sphere(p[0], p[1], p[2], r, 1, 4);
            pf_contact c;
            ck_assert_int_eq(pf_narrow_sphere_triangle(&def, &sp, tri, &c), 1);
            ck_contact_finite(&c);
            ck_assert_near(c.distance, d - r, 1e-12);
            ck_assert_near(c.depth, def.contact_distance - (d - r), 1e-12);
            ck_vec_near(c.normal, n[0], n[1], n[2], 1e-12);
            ck_vec_near(c.point_b, q[0], q[1], q[2], 1e-12);
            ck_vec_near(c.point_a, p[0] - r * n[0], p[1] - r * n[1], p[2] - r * n[2], 1e-12);
            ck_assert_uint_eq(c.object_a, 1);
            ck_assert_uint_eq(c.element_a, 4);
            ck_assert_uint_eq(c.object_b, 5);
            ck_assert_uint_eq(c.element_b, 11);
            /* point–triangle: the same with radius 0 */
            pf_point pt = {{p[0], p[1], p[2]}, 2, 6};
            ck_assert_int_eq(pf_narrow_point_triangle(&def, &pt, tri, &c), 1);
            ck_assert_near(c.distance, d, 1e-12);
            ck_vec_near(c.normal, n[0], n[1], n[2], 1e-12);
            ck_vec_near(c.point_a, p[0], p[1], p[2], 0);
            ck_vec_near(c.point_b, q[0], q[1], q[2], 1e-12);
            ck_assert_uint_eq(c.object_a, 2);
            ck_assert_uint_eq(c.element_a, 6);
        }
    }
}
END_TEST

START_TEST(point_triangle_alarm_and_contact_boundaries)
{
    pf_triangle t = unit_triangle(0, 0);
    pf_contact c;
    pf_proximity_def def = {0.5, 0.25};
    pf_point p = {{0.25, 0.25, 0.5}, 1, 0}; /* face region, distance exactly 0.5 */
    ck_assert_int_eq(pf_narrow_point_triangle(&def, &p, &t, &c), 0);
    p.p[2] = 0.375; /* within alarm, outside contact distance */
    ck_assert_int_eq(pf_narrow_point_triangle(&def, &p, &t, &c), 1);
    ck_assert_near(c.depth, 0.25 - 0.375, 0);
    ck_vec_near(c.normal, 0, 0, 1, 0);
    p.p[2] = 0.25; /* exactly at the contact distance */
    ck_assert_int_eq(pf_narrow_point_triangle(&def, &p, &t, &c), 1);
    ck_assert_near(c.depth, 0, 0);
    p.p[2] = -0.125; /* below: two-sided, normal flips */
    ck_assert_int_eq(pf_narrow_point_triangle(&def, &p, &t, &c), 1);
    ck_vec_near(c.normal, 0, 0, -1, 0);
    ck_assert_near(c.depth, 0.125, 0);
    /* edge region boundary: distance exactly 0.5 from edge 01 */
    pf_point e = {{0.5, -0.5, 0}, 1, 0};
    ck_assert_int_eq(pf_narrow_point_triangle(&def, &e, &t, &c), 0);
    e.p[1] = -0.25;
    ck_assert_int_eq(pf_narrow_point_triangle(&def, &e, &t, &c), 1);
    ck_vec_near(c.normal, 0, -1, 0, 0);
    ck_assert_near(c.depth, 0, 0);
    /* sphere: gap = |p - q| - r */
    pf_sphere s = sphere(0.25, 0.25, 1.0, 0.5, 1, 0); /* gap 0.5: not reported */
    ck_assert_int_eq(pf_narrow_sphere_triangle(&def, &s, &t, &c), 0);
    s.radius = 0.75; /* gap 0.25 = contact distance */
    ck_assert_int_eq(pf_narrow_sphere_triangle(&def, &s, &t, &c), 1);
    ck_assert_near(c.depth, 0, 0);
    ck_vec_near(c.point_a, 0.25, 0.25, 0.25, 0);
}
END_TEST

START_TEST(on_triangle_and_degenerate_no_nan)
{
    pf_proximity_def def = {0.1, 0.01};
    pf_contact c;
    /* a point exactly on the face: face normal, distance 0 */
    pf_triangle t = unit_triangle(0, 0);
    pf_point p = {{0.25, 0.25, 0}, 1, 0};
    ck_assert_int_eq(pf_narrow_point_triangle(&def, &p, &t, &c), 1);
    ck_contact_finite(&c);
    ck_vec_near(c.normal, 0, 0, 1, 0);
    ck_assert_near(c.distance, 0, 0);
    ck_assert_near(c.depth, 0.01, 0);
    /* degenerate triangles: collinear, two equal vertices, a point; queries on and off them */
    pf_triangle degs[] = {
        {{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, 0, 0},
        {{{0, 0, 0}, {0, 0, 0}, {0, 1, 0}}, 0, 0},
        {{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}, 0, 0},
        {{{0, 0, 0}, {1, 1e-300, 0}, {2, 0, 1e-300}}, 0, 0},
    };
    double queries[][3] = {{0.5, 0, 0}, {0, 0.5, 0}, {1, 1, 1}, {0.5, 0.05, 0}, {1, 1, 1.05}, {0, 0, 0}};
    for (size_t i = 0; i < sizeof degs / sizeof degs[0]; i++) {
        for (size_t j = 0; j < sizeof queries / sizeof queries[0]; j++) {
            pf_point q = {{queries[j][0], queries[j][1], queries[j][2]}, 1, 0};
            int rc = pf_narrow_point_triangle(&def, &q, &degs[i], &c);
            ck_assert(rc == 0 || rc == 1);
            if (rc) {
                ck_contact_finite(&c);
                ck_assert_near(c.distance, oracle_distance(q.p, degs[i].v[0], degs[i].v[1], degs[i].v[2]),
                               1e-12);
            }
            pf_sphere s = sphere(q.p[0], q.p[1], q.p[2], 0.5, 1, 0);
            rc = pf_narrow_sphere_triangle(&def, &s, &degs[i], &c);
            ck_assert(rc == 0 || rc == 1);
            if (rc) ck_contact_finite(&c);
        }
    }
}
END_TEST

/* ---- batches and invalid arguments ------------------------------------------------------------------------ */

START_TEST(batches_match_single_calls)
{
    rng s = {99};
    enum { NS = 60, NT = 40 };
    pf_sphere sp[NS];
    pf_point pts[NS];
    pf_triangle tr[NT];
    for (uint32_t i = 0; i < NS; i++) {
        sp[i] = sphere(rng_range(&s, 0, 4), rng_range(&s, 0, 4), rng_range(&s, 0, 4), rng_range(&s, 0, 0.5),
                       i % 7, i);
        pts[i] = (pf_point){{sp[i].center[0], sp[i].center[1], sp[i].center[2]}, i % 5, i};
    }
    for (uint32_t i = 0; i < NT; i++) {
        for (int v = 0; v < 3; v++)
            for (int k = 0; k < 3; k++) tr[i].v[v][k] = rng_range(&s, 0, 4);
        tr[i].object = 100 + i % 3;
        tr[i].element = i;
    }
    pf_proximity_def def = {0.3, 0.1};
    static pf_pair pairs[NS * NS];
    static pf_contact out[NS * NS];
    size_t np = 0, nc;
    for (uint32_t i = 0; i < NS; i++)
        for (uint32_t j = i + 1; j < NS; j++) pairs[np++] = (pf_pair){i, j};
    ck_assert_int_eq(pf_narrow_spheres(&def, sp, NS, pairs, np, out, &nc), PF_OK);
    size_t m = 0;
    for (size_t k = 0; k < np; k++) {
        pf_contact c;
        if (pf_narrow_sphere_sphere(&def, &sp[pairs[k].i], &sp[pairs[k].j], &c) == 1) {
            ck_assert_uint_lt(m, nc);
            ck_assert_mem_eq(&c, &out[m], sizeof c);
            m++;
        }
    }
    ck_assert_uint_eq(m, nc);
    ck_assert_uint_gt(nc, 0);

    np = 0;
    for (uint32_t i = 0; i < NS; i++)
        for (uint32_t j = 0; j < NT; j++) pairs[np++] = (pf_pair){i, j};
    for (int kind = 0; kind < 2; kind++) {
        int rc = kind ? pf_narrow_points_triangles(&def, pts, NS, tr, NT, pairs, np, out, &nc)
                      : pf_narrow_spheres_triangles(&def, sp, NS, tr, NT, pairs, np, out, &nc);
        ck_assert_int_eq(rc, PF_OK);
        m = 0;
        for (size_t k = 0; k < np; k++) {
            pf_contact c;
            int hit = kind ? pf_narrow_point_triangle(&def, &pts[pairs[k].i], &tr[pairs[k].j], &c)
                           : pf_narrow_sphere_triangle(&def, &sp[pairs[k].i], &tr[pairs[k].j], &c);
            if (hit == 1) {
                ck_assert_uint_lt(m, nc);
                ck_assert_mem_eq(&c, &out[m], sizeof c);
                m++;
            }
        }
        ck_assert_uint_eq(m, nc);
        ck_assert_uint_gt(nc, 0);
    }
}
END_TEST

START_TEST(invalid_arguments)
{
    pf_proximity_def def = {0.1, 0.05};
    pf_sphere a = sphere(0, 0, 0, 1, 0, 0), b = sphere(1, 0, 0, 1, 1, 0);
    pf_triangle t = unit_triangle(0, 0);
    pf_point p = {{0, 0, 0}, 0, 0};
    pf_contact c;
    ck_assert_int_eq(pf_narrow_sphere_sphere(NULL, &a, &b, &c), PF_EINVAL);
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, NULL, &b, &c), PF_EINVAL);
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, &a, &b, NULL), PF_EINVAL);
    ck_assert_str_ne(pf_last_error(), "");
    pf_proximity_def bad = {0.05, 0.1}; /* alarm < contact */
    ck_assert_int_eq(pf_narrow_sphere_sphere(&bad, &a, &b, &c), PF_EINVAL);
    bad = (pf_proximity_def){NAN, 0.0};
    ck_assert_int_eq(pf_narrow_sphere_sphere(&bad, &a, &b, &c), PF_EINVAL);
    bad = (pf_proximity_def){0.1, -0.01};
    ck_assert_int_eq(pf_narrow_point_triangle(&bad, &p, &t, &c), PF_EINVAL);
    a.radius = -1;
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, &a, &b, &c), PF_EINVAL);
    ck_assert_int_eq(pf_narrow_sphere_triangle(&def, &a, &t, &c), PF_EINVAL);
    a.radius = 1;
    a.center[1] = NAN;
    ck_assert_int_eq(pf_narrow_sphere_sphere(&def, &a, &b, &c), PF_EINVAL);
    t.v[2][0] = INFINITY;
    ck_assert_int_eq(pf_narrow_point_triangle(&def, &p, &t, &c), PF_EINVAL);
    ck_assert_int_eq(pf_narrow_point_triangle(&def, NULL, &t, &c), PF_EINVAL);
    double q[3];
    ck_assert_int_eq(pf_triangle_closest_point(p.p, t.v[0], t.v[1], t.v[2], q), PF_EINVAL);
    ck_assert_int_eq(pf_triangle_closest_point(NULL, t.v[0], t.v[1], t.v[1], q), PF_EINVAL);
    /* batches: index out of range, NULL count */
    pf_sphere two[2] = {sphere(0, 0, 0, 1, 0, 0), sphere(1, 0, 0, 1, 1, 0)};
    pf_pair pr[1] = {{0, 2}};
    size_t nc = 99;
    ck_assert_int_eq(pf_narrow_spheres(&def, two, 2, pr, 1, &c, &nc), PF_EINVAL);
    ck_assert_int_eq(pf_narrow_spheres(&def, two, 2, pr, 1, &c, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_narrow_spheres(&def, two, 2, NULL, 1, &c, &nc), PF_EINVAL);
    ck_assert_int_eq(pf_narrow_spheres(&def, NULL, 0, NULL, 0, NULL, &nc), PF_OK);
    ck_assert_uint_eq(nc, 0);
    pr[0] = (pf_pair){1, 1};
    t = unit_triangle(0, 0);
    ck_assert_int_eq(pf_narrow_spheres_triangles(&def, two, 2, &t, 1, pr, 1, &c, &nc), PF_EINVAL);
    ck_assert_int_eq(pf_narrow_points_triangles(&def, &p, 1, &t, 1, pr, 1, &c, &nc), PF_EINVAL);
}
END_TEST

/* ---- closest points of two segments ------------------------------------------------------------------------- */

/* Brute-force oracle: both segments sampled at N + 1 evenly spaced points, the smallest distance over all pairs.
 * The distance is 1-Lipschitz in each point, so the true minimum lies within (|P| + |Q|) / (2 N) below it. */
static double sampled_distance(const double p0[3], const double p1[3], const double q0[3], const double q1[3], int n)
{
    double best = INFINITY;
    for (int i = 0; i <= n; i++) {
        double u = (double)i / n, a[3];
        for (int k = 0; k < 3; k++) a[k] = p0[k] + u * (p1[k] - p0[k]);
        for (int j = 0; j <= n; j++) {
            double v = (double)j / n, b[3];
            for (int k = 0; k < 3; k++) b[k] = q0[k] + v * (q1[k] - q0[k]);
            best = fmin(best, dist3(a, b));
        }
    }
    return best;
}

/* One pair against the oracle: parameters in [0, 1] giving the returned points; the distance no larger than any
 * sampled pair's (up to rounding) and no smaller than the sampling's bound allows; each point the closest of its
 * segment to the other point (the pair is mutually closest: no move of one end improves it). */
static void check_segment_pair(const double p0[3], const double p1[3], const double q0[3], const double q1[3], int n,
                               const char *what, int it)
{
    double st[2], cp[3], cq[3];
    ck_assert_int_eq(pf_segment_closest_points(p0, p1, q0, q1, st, cp, cq), PF_OK);
    ck_assert_msg(st[0] >= 0 && st[0] <= 1 && st[1] >= 0 && st[1] <= 1, "%s %d: s %g t %g", what, it, st[0], st[1]);
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq_tol(cp[k], p0[k] + st[0] * (p1[k] - p0[k]), 1e-15);
        ck_assert_double_eq_tol(cq[k], q0[k] + st[1] * (q1[k] - q0[k]), 1e-15);
    }
    double d = dist3(cp, cq), lp = dist3(p0, p1), lq = dist3(q0, q1);
    double brute = sampled_distance(p0, p1, q0, q1, n);
    ck_assert_msg(d <= brute + 1e-12, "%s %d: distance %.17g, a sampled pair is at %.17g", what, it, d, brute);
    ck_assert_msg(d >= brute - (lp + lq) / (2.0 * n) - 1e-12, "%s %d: distance %.17g below the oracle's bound "
                  "(sampled %.17g)", what, it, d, brute);
    double q[3];
    ck_assert_msg(oracle_edge(cp, q0, q1, q) >= d - 1e-9 && oracle_edge(cq, p0, p1, q) >= d - 1e-9,
                  "%s %d: the pair is not mutually closest", what, it);
}

START_TEST(segment_closest_random_vs_sampling)
{
    rng s = {31};
    static const char *const kinds[] = {"general", "parallel", "near-parallel", "point-segment", "points",
                                        "collinear"};
    for (int it = 0; it < 240; it++) {
        int kind = it % 6;
        double p0[3], p1[3], q0[3], q1[3], d[3];
        for (int k = 0; k < 3; k++) {
            p0[k] = rng_range(&s, -1, 1);
            p1[k] = rng_range(&s, -1, 1);
            q0[k] = rng_range(&s, -1, 1);
            q1[k] = rng_range(&s, -1, 1);
            d[k] = p1[k] - p0[k];
        }
        double lambda = rng_range(&s, -1.5, 1.5);
        switch (kind) {
        case 1: /* q1 - q0 = lambda (p1 - p0): exactly parallel up to the rounding of the sum */
            for (int k = 0; k < 3; k++) q1[k] = q0[k] + lambda * d[k];
            break;
        case 2: /* turned by about 1e-9 rad */
            for (int k = 0; k < 3; k++) q1[k] = q0[k] + lambda * d[k] + 1e-9 * (k == 0 ? 1 : -0.5);
            break;
        case 3:
            memcpy(it % 12 < 6 ? p1 : q1, it % 12 < 6 ? p0 : q0, sizeof p0);
            break;
        case 4:
            memcpy(p1, p0, sizeof p0);
            memcpy(q1, q0, sizeof q0);
            break;
        case 5: { /* on one line, overlapping or not */
            double a = rng_range(&s, -1, 2), b = rng_range(&s, -1, 2);
            for (int k = 0; k < 3; k++) q0[k] = p0[k] + a * d[k], q1[k] = p0[k] + b * d[k];
            break;
        }
        default:
            break;
        }
        check_segment_pair(p0, p1, q0, q1, 300, kinds[kind], it);
        check_segment_pair(q0, q1, p0, p1, 300, kinds[kind], it); /* symmetric */
    }
}
END_TEST

START_TEST(segment_closest_cases)
{
    double st[2], cp[3], cq[3];
    /* crossing at right angles, 0.3 apart: the middle of both */
    double a0[3] = {-1, 0, 0}, a1[3] = {1, 0, 0}, b0[3] = {0, -2, 0.3}, b1[3] = {0, 2, 0.3};
    ck_assert_int_eq(pf_segment_closest_points(a0, a1, b0, b1, st, cp, cq), PF_OK);
    ck_assert_double_eq(st[0], 0.5);
    ck_assert_double_eq(st[1], 0.5);
    ck_vec_near(cp, 0, 0, 0, 0);
    ck_vec_near(cq, 0, 0, 0.3, 0);
    /* a T: Q's end point over P's interior gives t exactly 0 */
    double t0[3] = {0.25, 0, 0.1}, t1[3] = {0.25, 0, 2};
    ck_assert_int_eq(pf_segment_closest_points(a0, a1, t0, t1, st, cp, cq), PF_OK);
    ck_assert_double_eq(st[1], 0);
    ck_assert_double_eq_tol(st[0], 0.625, 1e-15);
    ck_assert_near(dist3(cp, cq), 0.1, 1e-15);
    /* parallel, overlapping over x in [0, 1]: the middle of the overlap on both */
    double c0[3] = {0, 0.2, 0}, c1[3] = {3, 0.2, 0};
    ck_assert_int_eq(pf_segment_closest_points(a0, a1, c0, c1, st, cp, cq), PF_OK);
    ck_vec_near(cp, 0.5, 0, 0, 1e-15);
    ck_vec_near(cq, 0.5, 0.2, 0, 1e-15);
    ck_assert_int_eq(pf_segment_closest_points(c1, c0, a1, a0, st, cp, cq), PF_OK); /* reversed */
    ck_vec_near(cp, 0.5, 0.2, 0, 1e-15);
    /* collinear and apart: the facing end points, parameters exactly 0 and 1 */
    double e0[3] = {2, 0, 0}, e1[3] = {5, 0, 0};
    ck_assert_int_eq(pf_segment_closest_points(a0, a1, e0, e1, st, cp, cq), PF_OK);
    ck_assert_double_eq(st[0], 1);
    ck_assert_double_eq(st[1], 0);
    /* crossing: distance 0 */
    double x0[3] = {0.5, -1, 0}, x1[3] = {0.5, 1, 0};
    ck_assert_int_eq(pf_segment_closest_points(a0, a1, x0, x1, st, cp, cq), PF_OK);
    ck_assert_near(dist3(cp, cq), 0, 1e-15);
    /* a point against a segment, a point against a point */
    ck_assert_int_eq(pf_segment_closest_points(b0, b0, a0, a1, st, NULL, cq), PF_OK);
    ck_assert_double_eq(st[0], 0);
    ck_vec_near(cq, 0, 0, 0, 1e-15);
    ck_assert_int_eq(pf_segment_closest_points(b0, b0, b1, b1, st, cp, cq), PF_OK);
    ck_assert(st[0] == 0 && st[1] == 0);
    ck_assert_near(dist3(cp, cq), 4, 0);
}
END_TEST

static pf_segment segment(const double a[3], const double b[3], double r, uint32_t obj, uint32_t el)
{
    pf_segment g = {{{a[0], a[1], a[2]}, {b[0], b[1], b[2]}}, r, obj, el};
    return g;
}

START_TEST(segment_segment_proximity)
{
    pf_proximity_def def = {0.1, 0.05};
    double a0[3] = {-1, 0, 0.08}, a1[3] = {1, 0, 0.08}, b0[3] = {0, -1, 0}, b1[3] = {0, 1, 0};
    pf_segment a = segment(a0, a1, 0, 4, 5), b = segment(b0, b1, 0, 6, 7);
    pf_contact c;
    double st[2];
    ck_assert_int_eq(pf_narrow_segment_segment(&def, &a, &b, &c, st), 1);
    ck_contact_finite(&c);
    ck_vec_near(c.normal, 0, 0, 1, 0); /* from B to A */
    ck_vec_near(c.point_a, 0, 0, 0.08, 1e-15);
    ck_vec_near(c.point_b, 0, 0, 0, 1e-15);
    ck_assert_near(c.distance, 0.08, 1e-15);
    ck_assert_near(c.depth, 0.05 - 0.08, 1e-15);
    ck_assert(st[0] == 0.5 && st[1] == 0.5);
    ck_assert(c.object_a == 4 && c.element_a == 5 && c.object_b == 6 && c.element_b == 7);
    /* capsules: the gap counts from their surfaces, the points lie on them */
    a.radius = 0.02, b.radius = 0.01;
    ck_assert_int_eq(pf_narrow_segment_segment(&def, &a, &b, &c, NULL), 1);
    ck_assert_near(c.distance, 0.05, 1e-15);
    ck_vec_near(c.point_a, 0, 0, 0.06, 1e-15);
    ck_vec_near(c.point_b, 0, 0, 0.01, 1e-15);
    /* the alarm distance is strict; beyond it *out and st stay as they were */
    a.radius = b.radius = 0;
    a.v[0][2] = a.v[1][2] = 0.1;
    memset(&c, 0xab, sizeof c);
    pf_contact before = c;
    st[0] = st[1] = -1;
    ck_assert_int_eq(pf_narrow_segment_segment(&def, &a, &b, &c, st), 0);
    ck_assert_mem_eq(&c, &before, sizeof c);
    ck_assert(st[0] == -1 && st[1] == -1);
    /* B over A: the normal flips */
    a.v[0][2] = a.v[1][2] = -0.05;
    ck_assert_int_eq(pf_narrow_segment_segment(&def, &a, &b, &c, NULL), 1);
    ck_vec_near(c.normal, 0, 0, -1, 0);
    /* crossing segments: a x b, unit */
    a.v[0][2] = a.v[1][2] = 0;
    ck_assert_int_eq(pf_narrow_segment_segment(&def, &a, &b, &c, NULL), 1);
    ck_contact_finite(&c);
    ck_vec_near(c.normal, 0, 0, 1, 0);
    ck_assert_near(c.distance, 0, 0);
    /* collinear, overlapping: perpendicular to them */
    pf_segment l = segment(b0, b1, 0, 0, 0), m = segment(b0, b1, 0, 0, 1);
    m.v[1][1] = 3;
    ck_assert_int_eq(pf_narrow_segment_segment(&def, &l, &m, &c, NULL), 1);
    ck_contact_finite(&c);
    ck_assert_near(c.normal[1], 0, 1e-15);
    /* two coincident points: +z */
    pf_segment p = segment(b0, b0, 0, 0, 0);
    ck_assert_int_eq(pf_narrow_segment_segment(&def, &p, &p, &c, NULL), 1);
    ck_vec_near(c.normal, 0, 0, 1, 0);
}
END_TEST

START_TEST(segment_invalid_arguments)
{
    pf_proximity_def def = {0.1, 0.05}, bad = {0.05, 0.1};
    double p[3] = {0, 0, 0}, q[3] = {1, 0, 0}, nan3[3] = {0, NAN, 0}, st[2];
    pf_segment a = segment(p, q, 0, 0, 0), b = segment(q, p, 0, 1, 0);
    pf_contact c;
    ck_assert_int_eq(pf_segment_closest_points(NULL, q, p, q, st, NULL, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "pf_segment_closest_points") && strstr(pf_last_error(), "p0"), "%s",
                  pf_last_error());
    ck_assert_int_eq(pf_segment_closest_points(p, q, p, q, NULL, NULL, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_segment_closest_points(p, q, nan3, q, st, NULL, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "q0"), "%s", pf_last_error());
    ck_assert_int_eq(pf_narrow_segment_segment(&bad, &a, &b, &c, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_narrow_segment_segment(&def, NULL, &b, &c, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_narrow_segment_segment(&def, &a, &b, NULL, NULL), PF_EINVAL);
    b.radius = -1;
    ck_assert_int_eq(pf_narrow_segment_segment(&def, &a, &b, &c, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "b.radius"), "%s", pf_last_error());
    b.radius = 0;
    b.v[1][2] = INFINITY;
    ck_assert_int_eq(pf_narrow_segment_segment(&def, &a, &b, &c, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "b.v[1]"), "%s", pf_last_error());
}
END_TEST

/* ---- contact changes ---------------------------------------------------------------------------------------- */

static pf_contact contact_of(uint32_t a, uint32_t b)
{
    pf_contact c;
    memset(&c, 0, sizeof c);
    c.object_a = a;
    c.object_b = b;
    return c;
}

START_TEST(contact_changes_hand_made)
{
    pf_contact s0[] = {contact_of(1, 2), contact_of(3, 2), contact_of(2, 1), contact_of(5, 5), contact_of(9, 0)};
    pf_contact s1[] = {contact_of(2, 1), contact_of(4, 3), contact_of(5, 5), contact_of(3, 4), contact_of(0, 9),
                       contact_of(7, 8)};
    pf_object_pair st[8], sp[8];
    size_t nst, nsp;
    ck_assert_int_eq(pf_contact_changes(s0, 5, s1, 6, st, 8, &nst, sp, 8, &nsp), PF_OK);
    ck_assert_uint_eq(nst, 2); /* (3,4), (7,8) */
    ck_assert_uint_eq(st[0].a, 3);
    ck_assert_uint_eq(st[0].b, 4);
    ck_assert_uint_eq(st[1].a, 7);
    ck_assert_uint_eq(st[1].b, 8);
    ck_assert_uint_eq(nsp, 1); /* (2,3) */
    ck_assert_uint_eq(sp[0].a, 2);
    ck_assert_uint_eq(sp[0].b, 3);
    /* from nothing: everything starts; to nothing: everything stops */
    ck_assert_int_eq(pf_contact_changes(NULL, 0, s0, 5, st, 8, &nst, NULL, 0, &nsp), PF_OK);
    ck_assert_uint_eq(nst, 4); /* (0,9) (1,2) (2,3) (5,5) */
    ck_assert_uint_eq(nsp, 0);
    ck_assert_uint_eq(st[0].a, 0);
    ck_assert_uint_eq(st[0].b, 9);
    ck_assert_uint_eq(st[3].a, 5);
    ck_assert_uint_eq(st[3].b, 5);
    ck_assert_int_eq(pf_contact_changes(s0, 5, NULL, 0, NULL, 0, &nst, sp, 8, &nsp), PF_OK);
    ck_assert_uint_eq(nst, 0);
    ck_assert_uint_eq(nsp, 4);
    /* unchanged: nothing */
    ck_assert_int_eq(pf_contact_changes(s1, 6, s1, 6, st, 8, &nst, sp, 8, &nsp), PF_OK);
    ck_assert_uint_eq(nst + nsp, 0);
    /* the object pair set */
    pf_object_pair set[8];
    size_t nset;
    ck_assert_int_eq(pf_contact_object_pairs(s1, 6, set, &nset), PF_OK);
    ck_assert_uint_eq(nset, 5); /* (0,9) (1,2) (3,4) (5,5) (7,8) */
    /* capacities are checked */
    ck_assert_int_eq(pf_contact_changes(s0, 5, s1, 6, st, 5, &nst, sp, 8, &nsp), PF_EINVAL);
    ck_assert_int_eq(pf_contact_changes(s0, 5, s1, 6, st, 8, &nst, sp, 4, &nsp), PF_EINVAL);
    ck_assert_int_eq(pf_contact_changes(s0, 5, s1, 6, st, 8, NULL, sp, 8, &nsp), PF_EINVAL);
    ck_assert_int_eq(pf_contact_changes(NULL, 5, s1, 6, st, 8, &nst, sp, 8, &nsp), PF_EINVAL);
    ck_assert_int_eq(pf_contact_object_pairs(NULL, 3, set, &nset), PF_EINVAL);
}
END_TEST

START_TEST(contact_changes_random_vs_set_difference)
{
    enum { NOBJ = 12, MAXC = 80 };
    rng s = {2024};
    pf_contact prev[MAXC], cur[MAXC];
    pf_object_pair st[MAXC], sp[MAXC];
    size_t nprev = 0;
    for (int step = 0; step < 3000; step++) {
        size_t ncur = (size_t)(rng_u64(&s) % MAXC);
        for (size_t k = 0; k < ncur; k++)
            cur[k] = contact_of((uint32_t)(rng_u64(&s) % NOBJ), (uint32_t)(rng_u64(&s) % NOBJ));
        size_t nst, nsp;
        ck_assert_int_eq(pf_contact_changes(prev, nprev, cur, ncur, st, MAXC, &nst, sp, MAXC, &nsp), PF_OK);
        /* oracle: adjacency matrices and the set differences read off in (a, b) order */
        unsigned char in_prev[NOBJ][NOBJ] = {{0}}, in_cur[NOBJ][NOBJ] = {{0}};
        for (size_t k = 0; k < nprev; k++) {
            uint32_t a = prev[k].object_a, b = prev[k].object_b;
            in_prev[a < b ? a : b][a < b ? b : a] = 1;
        }
        for (size_t k = 0; k < ncur; k++) {
            uint32_t a = cur[k].object_a, b = cur[k].object_b;
            in_cur[a < b ? a : b][a < b ? b : a] = 1;
        }
        size_t ist = 0, isp = 0;
        for (uint32_t a = 0; a < NOBJ; a++)
            for (uint32_t b = a; b < NOBJ; b++) {
                if (in_cur[a][b] && !in_prev[a][b]) {
                    ck_assert_uint_lt(ist, nst);
                    ck_assert(st[ist].a == a && st[ist].b == b);
                    ist++;
                }
                if (in_prev[a][b] && !in_cur[a][b]) {
                    ck_assert_uint_lt(isp, nsp);
                    ck_assert(sp[isp].a == a && sp[isp].b == b);
                    isp++;
                }
            }
        ck_assert_uint_eq(ist, nst);
        ck_assert_uint_eq(isp, nsp);
        /* a sequence: keep most of the contacts, as consecutive steps do */
        if (rng_u64(&s) % 4) memcpy(prev, cur, ncur * sizeof *cur), nprev = ncur;
    }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("collision_narrow");
    TCase *tc = tcase_create("narrow");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, sphere_sphere_axis);
    tcase_add_test(tc, sphere_sphere_random_directions);
    tcase_add_test(tc, sphere_sphere_alarm_and_contact_boundaries);
    tcase_add_test(tc, sphere_sphere_coincident_centres);
    tcase_add_test(tc, closest_point_regions);
    tcase_add_test(tc, closest_point_random_vs_oracle);
    tcase_add_test(tc, closest_point_degenerate);
    tcase_add_test(tc, closest_point_slivers_vs_long_double);
    tcase_add_test(tc, sphere_triangle_each_region);
    tcase_add_test(tc, point_triangle_alarm_and_contact_boundaries);
    tcase_add_test(tc, on_triangle_and_degenerate_no_nan);
    tcase_add_test(tc, batches_match_single_calls);
    tcase_add_test(tc, invalid_arguments);
    tcase_add_test(tc, segment_closest_random_vs_sampling);
    tcase_add_test(tc, segment_closest_cases);
    tcase_add_test(tc, segment_segment_proximity);
    tcase_add_test(tc, segment_invalid_arguments);
    suite_add_tcase(s, tc);
    TCase *cc = tcase_create("contact_changes");
    tcase_set_timeout(cc, 30);
    tcase_add_test(cc, contact_changes_hand_made);
    tcase_add_test(cc, contact_changes_random_vs_set_difference);
    suite_add_tcase(s, cc);
    return s;
}
