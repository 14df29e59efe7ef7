/* Closest points of two segments (Ericson, RTCD §5.1.9) and segment–segment (capsule–capsule) proximity: the
 * edge–edge contacts of LineCollisionModel surfaces. */
#include "arg_checks.h"
#include "narrow_proximity.h"

#include "base/check.h"
#include "base/error.h"

/* below this sin² of the angle between two segments, Ericson's denominator a e - b² has lost most of its digits
 * to cancellation: the segments are treated as parallel */
static const double PARALLEL_SIN2 = 1e-12;

static double clamp01(double x)
{
    return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

/* parameter in [0, 1] of the point of segment [a, a + d] closest to p; dd = d·d > 0 */
static double project(const double p[3], const double a[3], const double d[3], double dd)
{
    double ap[3];
    pf_v3_sub(ap, p, a);
    return clamp01(pf_v3_dot(ap, d) / dd);
}

/* |P(s) - Q(t)|² */
static double gap2(const double p0[3], const double d1[3], double s, const double q0[3], const double d2[3], double t)
{
    double cp[3], cq[3], d[3];
    pf_v3_madd(cp, p0, s, d1);
    pf_v3_madd(cq, q0, t, d2);
    pf_v3_sub(d, cp, cq);
    return pf_v3_dot(d, d);
}

/* pairs closer than this fraction of |P - Q|² are rounding's: the first found is kept */
static const double TIE = 1e-12;

/* Parallel segments (a, e > 0): every pair over the overlap of Q's projection on P is as close as any other; the
 * middle of the overlap is chosen (a contact there acts at the middle of the shared length), unless the segments
 * are only nearly parallel and an end of the overlap is closer by more than rounding. Without an overlap: the
 * nearest end points. */
static void parallel_pair(const double p0[3], const double d1[3], double a, const double q0[3], const double d2[3],
                          double e, double *s, double *t)
{
    double q1[3], r0[3], r1[3], pm[3], qm[3];
    pf_v3_madd(q1, q0, 1.0, d2);
    pf_v3_sub(r0, q0, p0);
    pf_v3_sub(r1, q1, p0);
    double s0 = pf_v3_dot(r0, d1) / a, s1 = pf_v3_dot(r1, d1) / a; /* Q's ends on P's line */
    double lo = fmax(0.0, fmin(s0, s1)), hi = fmin(1.0, fmax(s0, s1));
    if (lo > hi) {
        *s = fmax(s0, s1) < 0.0 ? 0.0 : 1.0;
        pf_v3_madd(pm, p0, *s, d1);
        *t = project(pm, q0, d2, e);
        pf_v3_madd(qm, q0, *t, d2);
        *s = project(qm, p0, d1, a);
        return;
    }
    const double cand[3] = {0.5 * (lo + hi), lo, hi};
    double best = INFINITY;
    for (int k = 0; k < 3; k++) {
        pf_v3_madd(pm, p0, cand[k], d1);
        double tk = project(pm, q0, d2, e), g = gap2(p0, d1, cand[k], q0, d2, tk);
        if (k == 0 || g < best * (1.0 - TIE)) {
            best = g;
            *s = cand[k];
            *t = tk;
        }
    }
}

/* Ericson's ClosestPtSegmentSegment with a relative parallel test, then the four end point–segment pairs: a pair
 * closer by more than rounding replaces the first answer (a guard against a region misjudged in rounding). */
static void closest_params(const double p0[3], const double p1[3], const double q0[3], const double q1[3],
                           double *ps, double *pt)
{
    double d1[3], d2[3], r[3];
    pf_v3_sub(d1, p1, p0);
    pf_v3_sub(d2, q1, q0);
    pf_v3_sub(r, p0, q0);
    double a = pf_v3_dot(d1, d1), e = pf_v3_dot(d2, d2), f = pf_v3_dot(d2, r);
    double s = 0.0, t = 0.0;
    if (!(a > 0.0) && !(e > 0.0)) {
        *ps = *pt = 0.0; /* two points */
        return;
    }
    if (!(a > 0.0)) { /* P is a point */
        *ps = 0.0;
        *pt = clamp01(f / e);
        return;
    }
    double c = pf_v3_dot(d1, r);
    if (!(e > 0.0)) { /* Q is a point */
        *ps = clamp01(-c / a);
        *pt = 0.0;
        return;
    }
    double b = pf_v3_dot(d1, d2), den = a * e - b * b;
    if (!(den > PARALLEL_SIN2 * a * e)) {
        parallel_pair(p0, d1, a, q0, d2, e, &s, &t);
    } else {
        s = clamp01((b * f - c * e) / den);
        t = (b * s + f) / e;
        if (t < 0.0) {
            t = 0.0;
            s = clamp01(-c / a);
        } else if (t > 1.0) {
            t = 1.0;
            s = clamp01((b - c) / a);
        }
    }
    double best = gap2(p0, d1, s, q0, d2, t);
    const double cand[4][2] = {{0.0, project(p0, q0, d2, e)},
                               {1.0, project(p1, q0, d2, e)},
                               {project(q0, p0, d1, a), 0.0},
                               {project(q1, p0, d1, a), 1.0}};
    for (int k = 0; k < 4; k++) {
        double g = gap2(p0, d1, cand[k][0], q0, d2, cand[k][1]);
        if (g < best * (1.0 - TIE)) {
            best = g;
            s = cand[k][0];
            t = cand[k][1];
        }
    }
    *ps = s;
    *pt = t;
}

int pf_segment_closest_points(const double p0[3], const double p1[3], const double q0[3], const double q1[3],
                              double st[2], double cp[3], double cq[3])
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(p0, fn, "p0"));
    PF_TRY(pf_check_given(p1, fn, "p1"));
    PF_TRY(pf_check_given(q0, fn, "q0"));
    PF_TRY(pf_check_given(q1, fn, "q1"));
    PF_TRY(pf_check_given(st, fn, "st"));
    PF_TRY(pf_check_finite_n(p0, 3, fn, "p0"));
    PF_TRY(pf_check_finite_n(p1, 3, fn, "p1"));
    PF_TRY(pf_check_finite_n(q0, 3, fn, "q0"));
    PF_TRY(pf_check_finite_n(q1, 3, fn, "q1"));
    closest_params(p0, p1, q0, q1, &st[0], &st[1]);
    for (int k = 0; k < 3; k++) {
        if (cp) cp[k] = p0[k] + st[0] * (p1[k] - p0[k]);
        if (cq) cq[k] = q0[k] + st[1] * (q1[k] - q0[k]);
    }
    return PF_OK;
}

/* n = v / |v| when that is a unit vector to a loose tolerance (not for a tiny or subnormal v) */
static int normalise(const double v[3], double n[3])
{
    double len = sqrt(pf_v3_dot(v, v));
    if (!(len > 0.0) || !isfinite(len)) return 0;
    for (int k = 0; k < 3; k++) n[k] = v[k] / len;
    return fabs(pf_v3_dot(n, n) - 1.0) < 1e-6;
}

/* The normal of segments that meet: across both when they are not parallel, else perpendicular to the longer
 * (crossed with the axis along which it is shortest: never parallel to it), else +z. */
static void meeting_normal(const double d1[3], const double d2[3], double n[3])
{
    double c[3];
    pf_v3_cross(c, d1, d2);
    if (normalise(c, n)) return;
    const double *e = pf_v3_dot(d1, d1) >= pf_v3_dot(d2, d2) ? d1 : d2;
    int k = 0;
    if (fabs(e[1]) < fabs(e[k])) k = 1;
    if (fabs(e[2]) < fabs(e[k])) k = 2;
    double axis[3] = {0.0, 0.0, 0.0};
    axis[k] = 1.0;
    pf_v3_cross(c, e, axis);
    if (normalise(c, n)) return;
    n[0] = n[1] = 0.0;
    n[2] = 1.0;
}

int pf_narrow_segment_segment(const pf_proximity_def *def, const pf_segment *a, const pf_segment *b,
                              pf_contact *out, double st[2])
{
    const char *fn = __func__;
    PF_TRY(pf_check_proximity_def(def, fn));
    PF_TRY(pf_check_segment(a, fn, "a", -1));
    PF_TRY(pf_check_segment(b, fn, "b", -1));
    PF_TRY(pf_check_given(out, fn, "out"));
    double s, t, cp[3], cq[3], d[3], d1[3], d2[3], n[3];
    closest_params(a->v[0], a->v[1], b->v[0], b->v[1], &s, &t);
    pf_v3_sub(d1, a->v[1], a->v[0]);
    pf_v3_sub(d2, b->v[1], b->v[0]);
    pf_v3_madd(cp, a->v[0], s, d1);
    pf_v3_madd(cq, b->v[0], t, d2);
    pf_v3_sub(d, cp, cq);
    double len = sqrt(pf_v3_dot(d, d)), gap = len - a->radius - b->radius;
    /* SOFA's MinProximityIntersection: a proximity exists while the gap is strictly below alarmDistance */
    if (!(gap < def->alarm_distance)) return 0;
    if (!normalise(d, n)) meeting_normal(d1, d2, n);
    pf_contact_fill(out, def, cp, a->radius, cq, b->radius, n, gap, a->object, a->element, b->object, b->element);
    if (st) {
        st[0] = s;
        st[1] = t;
    }
    return 1;
}
