/* Closest point on a triangle (Ericson, RTCD §5.1.5) and sphere–triangle / point–triangle proximity. */
#include "arg_checks.h"
#include "narrow_proximity.h"

#include "base/check.h"
#include "base/error.h"

/* Closest point on segment [a, b] to p; *t receives its parameter in [0, 1]. A zero-length segment gives a. */
static void closest_on_segment(const double p[3], const double a[3], const double b[3], double q[3], double *t)
{
    double ab[3], ap[3];
    pf_v3_sub(ab, b, a);
    pf_v3_sub(ap, p, a);
    double den = pf_v3_dot(ab, ab);
    double s = 0.0;
    if (den > 0.0) {
        s = pf_v3_dot(ap, ab) / den;
        s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
    }
    pf_v3_madd(q, a, s, ab);
    *t = s;
}

/* A degenerate triangle is the union of its three edges: the nearest of the three closest points, first edge
 * first on ties, so the answer does not depend on rounding luck. */
static int closest_on_edges(const double p[3], const double *v[3], double q[3])
{
    static const int feature_edge[3] = {PF_TRI_EDGE_01, PF_TRI_EDGE_12, PF_TRI_EDGE_20};
    double best = INFINITY;
    int feature = PF_TRI_VERTEX_0;
    for (int e = 0; e < 3; e++) {
        const double *a = v[e], *b = v[(e + 1) % 3];
        double c[3], d[3], t;
        closest_on_segment(p, a, b, c, &t);
        pf_v3_sub(d, p, c);
        double dd = pf_v3_dot(d, d);
        if (dd < best) {
            best = dd;
            q[0] = c[0];
            q[1] = c[1];
            q[2] = c[2];
            feature = t <= 0.0 ? e : (t >= 1.0 ? (e + 1) % 3 : feature_edge[e]);
        }
    }
    return feature;
}

/* Thin triangles (slivers): the nearest of the edge points and, when the projection of p on the plane falls
 * inside, of that projection. Ericson's region tests decide regions from differences of products of dot
 * products, which cancel catastrophically when the triangle is thin (a misclassified region then gives a point up
 * to the triangle's length away from the true one); here every candidate is a point of the triangle, so a sign
 * misjudged near an edge costs only a rounding-sized error. */
static int closest_point_thin(const double p[3], const double *v[3], const double n[3], double nn, double q[3])
{
    int feature = closest_on_edges(p, v, q);
    if (!(nn > 0.0) || !isfinite(nn)) return feature;
    double ap[3], qf[3], d[3];
    pf_v3_sub(ap, p, v[0]);
    pf_v3_madd(qf, p, -pf_v3_dot(n, ap) / nn, n);
    for (int e = 0; e < 3; e++) {
        double edge[3], rel[3], c[3];
        pf_v3_sub(edge, v[(e + 1) % 3], v[e]);
        pf_v3_sub(rel, qf, v[e]);
        pf_v3_cross(c, edge, rel);
        if (pf_v3_dot(n, c) < 0.0) return feature;
    }
    double de[3];
    pf_v3_sub(d, p, qf);
    pf_v3_sub(de, p, q);
    if (pf_v3_dot(d, d) < pf_v3_dot(de, de)) {
        q[0] = qf[0];
        q[1] = qf[1];
        q[2] = qf[2];
        feature = PF_TRI_FACE;
    }
    return feature;
}

/* Ericson, Real-Time Collision Detection §5.1.5, ClosestPtPointTriangle: tests the Voronoi regions of the
 * vertices, then of the edges, then the face, computing only the dot products each test needs. Every division
 * is guarded: a denominator that is not positive means a (nearly) degenerate triangle, handled by its edges.
 * Triangles whose area is tiny against their longest edge go to closest_point_thin (see there why). */
static int closest_point_triangle(const double p[3], const double a[3], const double b[3], const double c[3],
                                  double q[3])
{
    const double *v[3] = {a, b, c};
    double ab[3], ac[3], bc[3], ap[3], bp[3], cp[3], n[3];
    pf_v3_sub(ab, b, a);
    pf_v3_sub(ac, c, a);
    pf_v3_sub(bc, c, b);
    pf_v3_cross(n, ab, ac);
    double nn = pf_v3_dot(n, n);
    double lmax = fmax(pf_v3_dot(ab, ab), fmax(pf_v3_dot(ac, ac), pf_v3_dot(bc, bc)));
    /* (2 area / longest^2)^2 below 1e-6, i.e. the smallest height under 1e-3 of the longest edge: with Ericson's
     * products the region tests would err by about 1e-16 / that ratio, relative to the triangle's size. */
    if (!(nn > 1e-6 * lmax * lmax)) return closest_point_thin(p, v, n, nn, q);

    pf_v3_sub(ap, p, a);
    double d1 = pf_v3_dot(ab, ap), d2 = pf_v3_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) { /* vertex region a */
        for (int k = 0; k < 3; k++) q[k] = a[k];
        return PF_TRI_VERTEX_0;
    }
    pf_v3_sub(bp, p, b);
    double d3 = pf_v3_dot(ab, bp), d4 = pf_v3_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) { /* vertex region b */
        for (int k = 0; k < 3; k++) q[k] = b[k];
        return PF_TRI_VERTEX_1;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) { /* edge region ab */
        double den = d1 - d3;
        if (!(den > 0.0)) return closest_on_edges(p, v, q);
        pf_v3_madd(q, a, d1 / den, ab);
        return PF_TRI_EDGE_01;
    }
    pf_v3_sub(cp, p, c);
    double d5 = pf_v3_dot(ab, cp), d6 = pf_v3_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) { /* vertex region c */
        for (int k = 0; k < 3; k++) q[k] = c[k];
        return PF_TRI_VERTEX_2;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) { /* edge region ac */
        double den = d2 - d6;
        if (!(den > 0.0)) return closest_on_edges(p, v, q);
        pf_v3_madd(q, a, d2 / den, ac);
        return PF_TRI_EDGE_20;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) { /* edge region bc */
        double den = (d4 - d3) + (d5 - d6);
        if (!(den > 0.0)) return closest_on_edges(p, v, q);
        pf_v3_madd(q, b, (d4 - d3) / den, bc);
        return PF_TRI_EDGE_12;
    }
    /* face region: barycentric (u, v, w) = (va, vb, vc) / (va + vb + vc) */
    double den = va + vb + vc;
    if (!(den > 0.0)) return closest_on_edges(p, v, q);
    double sv = vb / den, sw = vc / den;
    for (int k = 0; k < 3; k++) q[k] = a[k] + ab[k] * sv + ac[k] * sw;
    return PF_TRI_FACE;
}

int pf_triangle_closest_point(const double p[3], const double a[3], const double b[3], const double c[3],
                              double q[3])
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(p, fn, "p"));
    PF_TRY(pf_check_given(a, fn, "a"));
    PF_TRY(pf_check_given(b, fn, "b"));
    PF_TRY(pf_check_given(c, fn, "c"));
    PF_TRY(pf_check_given(q, fn, "q"));
    PF_TRY(pf_check_finite_n(p, 3, fn, "p"));
    PF_TRY(pf_check_finite_n(a, 3, fn, "a"));
    PF_TRY(pf_check_finite_n(b, 3, fn, "b"));
    PF_TRY(pf_check_finite_n(c, 3, fn, "c"));
    return closest_point_triangle(p, a, b, c, q);
}

/* The normal used when A's centre lies on the triangle: the face normal, or for a degenerate triangle a unit
 * vector perpendicular to its longest edge, or +z when the triangle is a point. */
static void fallback_normal(const pf_triangle *t, double n[3])
{
    double ab[3], ac[3];
    pf_v3_sub(ab, t->v[1], t->v[0]);
    pf_v3_sub(ac, t->v[2], t->v[0]);
    pf_v3_cross(n, ab, ac);
    double nn = pf_v3_dot(n, n);
    if (nn > 0.0 && isfinite(nn)) {
        double len = sqrt(nn);
        for (int k = 0; k < 3; k++) n[k] /= len;
        /* A tiny but non-zero cross product of a sliver may still normalise imprecisely; accept it only when it
         * is unit to a loose tolerance. */
        if (fabs(pf_v3_dot(n, n) - 1.0) < 1e-6) return;
    }
    double e[3] = {0.0, 0.0, 0.0}, best = 0.0;
    for (int i = 0; i < 3; i++) {
        double d[3];
        pf_v3_sub(d, t->v[(i + 1) % 3], t->v[i]);
        double dd = pf_v3_dot(d, d);
        if (dd > best) {
            best = dd;
            e[0] = d[0];
            e[1] = d[1];
            e[2] = d[2];
        }
    }
    n[0] = 0.0;
    n[1] = 0.0;
    n[2] = 1.0;
    if (!(best > 0.0)) return;
    /* cross with the axis along which the edge is shortest: never parallel to it */
    int k = 0;
    if (fabs(e[1]) < fabs(e[k])) k = 1;
    if (fabs(e[2]) < fabs(e[k])) k = 2;
    double axis[3] = {0.0, 0.0, 0.0};
    axis[k] = 1.0;
    pf_v3_cross(n, e, axis);
    double len = sqrt(pf_v3_dot(n, n));
    for (int i = 0; i < 3; i++) n[i] /= len;
}

int pf_narrow_ball_triangle_kernel(const pf_proximity_def *def, const double c[3], double r, uint32_t object,
                                   uint32_t element, const pf_triangle *t, pf_contact *out)
{
    double q[3], d[3];
    closest_point_triangle(c, t->v[0], t->v[1], t->v[2], q);
    pf_v3_sub(d, c, q);
    double len = sqrt(pf_v3_dot(d, d));
    double gap = len - r;
    if (!(gap < def->alarm_distance)) return 0;
    double n[3];
    if (len > 0.0) {
        n[0] = d[0] / len;
        n[1] = d[1] / len;
        n[2] = d[2] / len;
    } else {
        fallback_normal(t, n);
    }
    pf_contact_fill(out, def, c, r, q, 0.0, n, gap, object, element, t->object, t->element);
    return 1;
}

int pf_narrow_sphere_triangle(const pf_proximity_def *def, const pf_sphere *a, const pf_triangle *b,
                              pf_contact *out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_proximity_def(def, fn));
    PF_TRY(pf_check_sphere(a, fn, "a", -1));
    PF_TRY(pf_check_triangle(b, fn, "b", -1));
    PF_TRY(pf_check_given(out, fn, "out"));
    return pf_narrow_ball_triangle_kernel(def, a->center, a->radius, a->object, a->element, b, out);
}

int pf_narrow_point_triangle(const pf_proximity_def *def, const pf_point *a, const pf_triangle *b, pf_contact *out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_proximity_def(def, fn));
    PF_TRY(pf_check_point(a, fn, "a", -1));
    PF_TRY(pf_check_triangle(b, fn, "b", -1));
    PF_TRY(pf_check_given(out, fn, "out"));
    return pf_narrow_ball_triangle_kernel(def, a->p, 0.0, a->object, a->element, b, out);
}

int pf_narrow_spheres_triangles(const pf_proximity_def *def, const pf_sphere *spheres, size_t nspheres,
                                const pf_triangle *triangles, size_t ntriangles, const pf_pair *pairs,
                                size_t npairs, pf_contact *out, size_t *ncontacts)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(ncontacts, fn, "ncontacts"));
    *ncontacts = 0;
    PF_TRY(pf_check_proximity_def(def, fn));
    PF_TRY(pf_check_size(nspheres, sizeof *spheres, fn, "nspheres"));
    PF_TRY(pf_check_size(ntriangles, sizeof *triangles, fn, "ntriangles"));
    PF_TRY(pf_check_size(npairs, sizeof *out, fn, "npairs"));
    if (npairs) {
        PF_TRY(pf_check_given(pairs, fn, "pairs (npairs > 0)"));
        PF_TRY(pf_check_given(out, fn, "out (npairs > 0)"));
        PF_TRY(pf_check_given(spheres, fn, "spheres (npairs > 0)"));
        PF_TRY(pf_check_given(triangles, fn, "triangles (npairs > 0)"));
    }
    size_t m = 0;
    for (size_t k = 0; k < npairs; k++) {
        uint32_t i = pairs[k].i, j = pairs[k].j;
        PF_TRY(pf_check_pair_index(i, nspheres, fn, "sphere", k, "i"));
        PF_TRY(pf_check_pair_index(j, ntriangles, fn, "triangle", k, "j"));
        const pf_sphere *s = &spheres[i];
        PF_TRY(pf_check_sphere(s, fn, "spheres", i));
        PF_TRY(pf_check_triangle(&triangles[j], fn, "triangles", j));
        m += (size_t)pf_narrow_ball_triangle_kernel(def, s->center, s->radius, s->object, s->element,
                                                    &triangles[j], &out[m]);
    }
    *ncontacts = m;
    return PF_OK;
}

int pf_narrow_points_triangles(const pf_proximity_def *def, const pf_point *points, size_t npoints,
                               const pf_triangle *triangles, size_t ntriangles, const pf_pair *pairs,
                               size_t npairs, pf_contact *out, size_t *ncontacts)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(ncontacts, fn, "ncontacts"));
    *ncontacts = 0;
    PF_TRY(pf_check_proximity_def(def, fn));
    PF_TRY(pf_check_size(npoints, sizeof *points, fn, "npoints"));
    PF_TRY(pf_check_size(ntriangles, sizeof *triangles, fn, "ntriangles"));
    PF_TRY(pf_check_size(npairs, sizeof *out, fn, "npairs"));
    if (npairs) {
        PF_TRY(pf_check_given(pairs, fn, "pairs (npairs > 0)"));
        PF_TRY(pf_check_given(out, fn, "out (npairs > 0)"));
        PF_TRY(pf_check_given(points, fn, "points (npairs > 0)"));
        PF_TRY(pf_check_given(triangles, fn, "triangles (npairs > 0)"));
    }
    size_t m = 0;
    for (size_t k = 0; k < npairs; k++) {
        uint32_t i = pairs[k].i, j = pairs[k].j;
        PF_TRY(pf_check_pair_index(i, npoints, fn, "point", k, "i"));
        PF_TRY(pf_check_pair_index(j, ntriangles, fn, "triangle", k, "j"));
        const pf_point *p = &points[i];
        PF_TRY(pf_check_point(p, fn, "points", i));
        PF_TRY(pf_check_triangle(&triangles[j], fn, "triangles", j));
        m += (size_t)pf_narrow_ball_triangle_kernel(def, p->p, 0.0, p->object, p->element, &triangles[j],
                                                    &out[m]);
    }
    *ncontacts = m;
    return PF_OK;
}
