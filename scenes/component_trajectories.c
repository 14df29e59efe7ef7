/* SOFA's projective constraints that drive points along a closed-form path of time, on a step hook of the scene
 * (step_hooks.c) each. As LinearMovementProjectiveConstraint (component_movements.c): at each step's start t the
 * hook puts the points where SOFA's projectPosition puts them at time t and holds them fixed through the step, so
 * they end the step where SOFA's projection (called with the step's start time) leaves them; their velocity is a
 * fixed point's, zero, where SOFA's projectVelocity gives them the path's rate (only velocity-dependent forces,
 * damping, see the difference).
 *
 * OscillatorProjectiveConstraint oscillators="index  mean(3)  amplitude(3)  pulsation  phase ...": point index at
 * mean + amplitude sin(pulsation t + phase), for every t (SOFA's projectPosition). On a Rigid3d body the mean is a
 * frame (7 numbers) and the amplitude a (linear, angular) pair (6): the centre oscillates and the orientation stays
 * the mean's; a nonzero angular amplitude (SOFA turns the frame by it) is refused.
 *
 * ParabolicProjectiveConstraint indices P1 P2 P3 BeginTime EndTime: while BeginTime <= t <= EndTime the points sit
 * on the parabola through P1, P2, P3, at the abscissa |P1P3| (t - BeginTime) / (EndTime - BeginTime) along P1P3 in
 * the parabola's plane (SOFA's init and projectPosition: axes x = P1P3, z = P1P3 x P1P2, y = z x x; P2 at
 * (x2, y2), P3 at (x3, 0); y = -y2 / (x3 x2 - x2^2) x^2 + x3 y2 / (x3 x2 - x2^2) x); outside that interval they
 * are free. On a Rigid3d body (index 0) the centre follows it, the orientation held. */
#include "components.h"
#include "step_hooks.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* A Rigid3d body's two points (pf_world_add_rigid): 0 the centre, 1 the orientation; fixing both holds it. */
static const uint32_t rigid_points[2] = {0, 1};

/* template="Vec3" or "Rigid3": SOFA's instances of these constraints; it must be the node's object's kind. */
static int check_template(pf_scene_component *c)
{
    const char *t = pf_scene_component_string(c, "template");
    if (!t) return PF_OK;
    int rigid = !strncmp(t, "Rigid3", 6), vec = !strncmp(t, "Vec3", 4);
    if ((!rigid && !vec) || rigid != c->node->rigid)
        return pf_scene_component_error(c, PF_EINVAL, "%s: template '%s' on a %s object (Vec3 or Rigid3, the "
                                        "node's)", TYPE(c), t, c->node->rigid ? "Rigid3d" : "Vec3d");
    return PF_OK;
}

/* ---- OscillatorProjectiveConstraint ---- */

typedef struct oscillator {
    uint32_t index;
    double mean[3], amplitude[3], pulsation, phase, orientation[4];
} oscillator;

typedef struct oscillators {
    pf_object_id o;
    int rigid;
    oscillator *v;
    uint32_t n;
    double *x; /* the object's positions to set (3 * points) */
} oscillators;

static void oscillators_free(void *state)
{
    oscillators *m = state;
    pf_free(m->v);
    pf_free(m->x);
    pf_free(m);
}

static int apply_oscillators(pf_world *w, double t, void *ctx)
{
    oscillators *m = ctx;
    uint32_t np = 0;
    const double *x = pf_world_positions(w, m->o, &np);
    if (!x) return PF_OK; /* the object was removed */
    if (!m->rigid && !m->x && !(m->x = pf_malloc(3 * (size_t)np * sizeof *m->x)))
        return pf_error(PF_ENOMEM, "out of memory");
    if (m->x) memcpy(m->x, x, 3 * (size_t)np * sizeof *x);
    for (uint32_t k = 0; k < m->n; k++) {
        const oscillator *q = m->v + k;
        double s = sin(q->pulsation * t + q->phase), y[3];
        for (int a = 0; a < 3; a++) y[a] = q->mean[a] + q->amplitude[a] * s;
        if (m->rigid) {
            PF_TRY(pf_world_set_rigid_state(w, m->o, y, q->orientation, NULL, NULL));
        } else
            memcpy(m->x + 3 * (size_t)q->index, y, sizeof y);
    }
    return m->rigid ? PF_OK : pf_world_set_state(w, m->o, m->x, NULL);
}

int sc_oscillator_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    int rc = check_template(c);
    if (rc) return rc;
    oscillators *m = pf_calloc(1, sizeof *m);
    if (!m) return pf_error(PF_ENOMEM, "out of memory");
    rc = pf_scene_component_on_destroy(c, oscillators_free, m);
    if (rc) {
        oscillators_free(m);
        return rc;
    }
    if ((rc = pf_scene_component_object(c, &m->o))) return rc;
    m->rigid = c->node->rigid;
    double *v = NULL;
    size_t nv = 0;
    if ((rc = sc_parse_reals(c, "oscillators", &v, &nv)) < 0) return rc;
    const size_t per = m->rigid ? 16 : 9; /* index, mean, amplitude, pulsation, phase */
    if (nv % per) {
        pf_free(v);
        return pf_scene_component_error(c, PF_EPARSE, "%s: 'oscillators' needs %zu numbers per point (index, mean "
                                        "%s, amplitude %s, pulsation, phase), got %zu", TYPE(c), per,
                                        m->rigid ? "x y z qx qy qz qw" : "x y z",
                                        m->rigid ? "vx vy vz wx wy wz" : "x y z", nv);
    }
    uint32_t np = 0;
    pf_world_positions(c->L->scene->world, m->o, &np);
    if (m->rigid) np = 1; /* the body's one frame */
    m->n = (uint32_t)(nv / per);
    if (!(m->v = pf_calloc((size_t)m->n + 1, sizeof *m->v))) {
        pf_free(v);
        return pf_error(PF_ENOMEM, "out of memory");
    }
    rc = PF_OK;
    for (uint32_t k = 0; k < m->n && !rc; k++) {
        const double *e = v + per * k;
        oscillator *q = m->v + k;
        if (e[0] < 0 || e[0] != floor(e[0]) || e[0] >= np) {
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: oscillator %u: index %g is not a point of the object "
                                          "(%u points)", TYPE(c), k, e[0], np);
            break;
        }
        q->index = (uint32_t)e[0];
        memcpy(q->mean, e + 1, sizeof q->mean);
        if (m->rigid) {
            memcpy(q->orientation, e + 4, sizeof q->orientation);
            memcpy(q->amplitude, e + 8, sizeof q->amplitude);
            if (e[11] != 0 || e[12] != 0 || e[13] != 0)
                rc = pf_scene_component_error(c, PF_ENOTSUP, "%s: oscillator %u turns the Rigid3d frame (angular "
                                              "amplitude %g %g %g): not supported, only the centre oscillates",
                                              TYPE(c), k, e[11], e[12], e[13]);
            double qn = sqrt(e[4] * e[4] + e[5] * e[5] + e[6] * e[6] + e[7] * e[7]);
            if (!rc && !(qn > 0))
                rc = pf_scene_component_error(c, PF_EINVAL, "%s: oscillator %u: the mean's quaternion is zero",
                                              TYPE(c), k);
        } else
            memcpy(q->amplitude, e + 4, sizeof q->amplitude);
        q->pulsation = e[per - 2];
        q->phase = e[per - 1];
    }
    pf_free(v);
    if (rc) return rc;
    pf_world *w = c->L->scene->world;
    for (uint32_t k = 0; k < m->n && !rc; k++) /* SOFA's projectResponse: the points never move by themselves */
        rc = m->rigid ? pf_world_fix_points(w, m->o, rigid_points, 2) : pf_world_fix_points(w, m->o, &m->v[k].index, 1);
    if (rc) return rc;
    c->L->scene->summary.constraints++;
    return sc_add_step_hook(c, apply_oscillators, m);
}

/* ---- ParabolicProjectiveConstraint ---- */

typedef struct parabola {
    pf_object_id o;
    int rigid, fixed;
    uint32_t *idx, n;
    double p1[3], ax[3], ay[3]; /* P1 and the parabola's plane axes */
    double x2, y2, x3, begin, end;
    double *x; /* the object's positions to set (3 * points) */
} parabola;

static void parabola_free(void *state)
{
    parabola *m = state;
    pf_free(m->idx);
    pf_free(m->x);
    pf_free(m);
}

/* the point of the parabola at relative time r in [0, 1] (SOFA's projectPosition) */
static void parabola_point(const parabola *m, double r, double y[3])
{
    double d = m->x3 * m->x2 - m->x2 * m->x2, px = m->x3 * r;
    double py = (-m->y2 / d) * (px * px) + (m->x3 * m->y2 / d) * px;
    for (int a = 0; a < 3; a++) y[a] = m->p1[a] + px * m->ax[a] + py * m->ay[a];
}

static int apply_parabola(pf_world *w, double t, void *ctx)
{
    parabola *m = ctx;
    uint32_t np = 0;
    const double *x = pf_world_positions(w, m->o, &np);
    if (!x) return PF_OK;
    const uint32_t *held = m->rigid ? rigid_points : m->idx;
    uint32_t nheld = m->rigid ? 2 : m->n;
    if (!(t >= m->begin && t <= m->end)) {
        if (m->fixed) PF_TRY(pf_world_unfix_points(w, m->o, held, nheld));
        m->fixed = 0;
        return PF_OK;
    }
    if (!m->fixed) PF_TRY(pf_world_fix_points(w, m->o, held, nheld));
    m->fixed = 1;
    if (!m->rigid && !m->x && !(m->x = pf_malloc(3 * (size_t)np * sizeof *m->x)))
        return pf_error(PF_ENOMEM, "out of memory");
    double y[3];
    parabola_point(m, (t - m->begin) / (m->end - m->begin), y);
    if (m->rigid) return pf_world_set_rigid_state(w, m->o, y, NULL, NULL, NULL);
    memcpy(m->x, x, 3 * (size_t)np * sizeof *x);
    for (uint32_t i = 0; i < m->n; i++) memcpy(m->x + 3 * (size_t)m->idx[i], y, sizeof y);
    return pf_world_set_state(w, m->o, m->x, NULL);
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* SOFA's init: the plane axes from P1, P2, P3 and P2's, P3's coordinates in them; the three points must span a
 * parabola (SOFA divides by x3 x2 - x2^2 and normalises P1P3 x P1P2). */
static int parabola_frame(pf_scene_component *c, parabola *m, const double p2[3], const double p3[3])
{
    double d12[3], d13[3], az[3];
    for (int a = 0; a < 3; a++) d12[a] = p2[a] - m->p1[a], d13[a] = p3[a] - m->p1[a];
    cross3(d13, d12, az);
    cross3(az, d13, m->ay);
    double lx = sqrt(dot3(d13, d13)), ly = sqrt(dot3(m->ay, m->ay));
    if (!(lx > 0) || !(ly > 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: P1, P2 and P3 must be three points not on one line",
                                        TYPE(c));
    for (int a = 0; a < 3; a++) m->ax[a] = d13[a] / lx, m->ay[a] /= ly;
    m->x2 = dot3(m->ax, d12);
    m->y2 = dot3(m->ay, d12);
    m->x3 = lx;
    if (!(fabs(m->x3 * m->x2 - m->x2 * m->x2) > 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: P2 must project strictly between P1 and P3 or beside "
                                        "them on P1P3 (not onto P1 nor P3): no parabola y(x) passes through them",
                                        TYPE(c));
    return PF_OK;
}

int sc_parabolic_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    pf_scene_component_ignore(c, "topology"); /* SOFA's link to the topology its index lists follow */
    int rc = check_template(c);
    if (rc) return rc;
    parabola *m = pf_calloc(1, sizeof *m);
    if (!m) return pf_error(PF_ENOMEM, "out of memory");
    rc = pf_scene_component_on_destroy(c, parabola_free, m);
    if (rc) {
        parabola_free(m);
        return rc;
    }
    if ((rc = pf_scene_component_object(c, &m->o))) return rc;
    m->rigid = c->node->rigid;
    double p2[3] = {0, 0, 0}, p3[3] = {0, 0, 0};
    if ((rc = pf_scene_component_reals(c, "P1", 3, m->p1)) < 0 || (rc = pf_scene_component_reals(c, "P2", 3, p2)) < 0 ||
        (rc = pf_scene_component_reals(c, "P3", 3, p3)) < 0 ||
        (rc = pf_scene_component_real(c, "BeginTime", -1e300, 1e300, &m->begin)) < 0 ||
        (rc = pf_scene_component_real(c, "EndTime", -1e300, 1e300, &m->end)) < 0)
        return rc;
    if ((rc = parabola_frame(c, m, p2, p3))) return rc;
    if (!(m->end > m->begin))
        return pf_scene_component_error(c, PF_EINVAL, "%s: EndTime (%g) must be after BeginTime (%g)", TYPE(c),
                                        m->end, m->begin);
    uint32_t np = 0;
    pf_world_positions(c->L->scene->world, m->o, &np);
    if (m->rigid) np = 1; /* the body's one frame */
    if ((rc = sc_moved_points(c, np, &m->idx, &m->n))) return rc;
    if (m->n == 0) {
        pf_scene_component_warning(c, "%s: no point listed: it moves nothing (as in SOFA)", TYPE(c));
        return PF_OK;
    }
    c->L->scene->summary.constraints++;
    return sc_add_step_hook(c, apply_parabola, m);
}

/* ---- PatchTestMovementProjectiveConstraint ----
 *
 * SOFA's patch test: the listed points are held (their velocity zero) and move, as AffineMovementProjectiveConstraint
 * moves them, linearly in time from x0 (their first positions) over (beginConstraintTime, endConstraintTime] to
 * xf = x0 + d, then stay at xf. d is the bilinear interpolation of the four `cornerMovements` (trilinear of eight
 * when the constrained points do not lie in one plane z = const) at the point's place between the corners
 * SOFA's findCornerPoints picks among `constrainedPoints` (its comparisons reproduced as written): alpha =
 * |x - c0.x| / |c1.x - c0.x|, beta = |y - c0.y| / |c3.y - c0.y|, gamma = |z - c0.z| / |c4.z - c0.z|.
 * constrainedPoints is a list of positions, or an ROI's pointsInROI ("@box.pointsInROI": the positions of its
 * indices' points). meshIndices only feeds SOFA's getFinalPositions, not the projection. */

typedef struct patch_test {
    pf_object_id o;
    uint32_t *idx, n;
    double corners[8][3], moves[8][3], begin, end;
    int ncorners;
    double *x0, *xf, *x; /* 3 n each for x0, xf; the object's positions to set */
} patch_test;

static void patch_test_free(void *state)
{
    patch_test *m = state;
    pf_free(m->idx);
    pf_free(m->x0);
    pf_free(m->xf);
    pf_free(m->x);
    pf_free(m);
}

/* SOFA's findCornerPoints over the np constrained points p (3 each): four corners, eight in 3D. */
static int find_corners(const double *p, size_t np, double c[8][3])
{
    int in3d = 0;
    for (size_t i = 0; i < np; i++)
        if (p[3 * i + 2] != p[2]) in3d = 1;
    for (int k = 0; k < 8; k++) memcpy(c[k], p, 3 * sizeof *p);
    for (size_t i = 0; i < np; i++) {
        const double *q = p + 3 * i;
        if (q[0] < c[0][0] || q[1] < c[0][1] || q[2] < c[0][2]) memcpy(c[0], q, 3 * sizeof *q);
        if (q[0] > c[2][0] || q[1] > c[2][1] || q[2] < c[2][2]) memcpy(c[2], q, 3 * sizeof *q);
        if (q[1] < c[1][1] || q[0] > c[1][0] || q[2] < c[1][2]) memcpy(c[1], q, 3 * sizeof *q);
        if (q[0] < c[3][0] || q[1] > c[3][1] || q[2] < c[3][2]) memcpy(c[3], q, 3 * sizeof *q);
        if (in3d && (q[0] < c[4][0] || q[1] < c[4][1] || q[2] > c[0][2])) memcpy(c[4], q, 3 * sizeof *q);
        if (in3d && (q[0] > c[6][0] || q[1] > c[6][1] || q[2] > c[2][2])) memcpy(c[6], q, 3 * sizeof *q);
        if (in3d && (q[1] < c[5][1] || q[0] > c[5][0] || q[2] > c[5][2]))
            memcpy(c[5], q, 3 * sizeof *q);
        else if (in3d && (q[0] < c[7][0] || q[1] > c[7][1] || q[2] > c[7][2]))
            memcpy(c[7], q, 3 * sizeof *q);
    }
    return in3d ? 8 : 4;
}

/* SOFA's computeInterpolatedDisplacement at point p */
static void patch_displacement(const patch_test *m, const double p[3], double d[3])
{
    const double(*c)[3] = m->corners;
    const double(*u)[3] = m->moves;
    double al = fabs(p[0] - c[0][0]) / fabs(c[1][0] - c[0][0]), be = fabs(p[1] - c[0][1]) / fabs(c[3][1] - c[0][1]);
    double ga = m->ncorners == 8 ? fabs(p[2] - c[0][2]) / fabs(c[4][2] - c[0][2]) : 0;
    for (int a = 0; a < 3; a++) {
        double lo = u[0][a] * (1 - al) * (1 - be) + u[1][a] * al * (1 - be) + u[2][a] * al * be + u[3][a] * (1 - al) * be;
        double hi = m->ncorners == 8 ? u[4][a] * (1 - al) * (1 - be) + u[5][a] * al * (1 - be) + u[6][a] * al * be +
                                           u[7][a] * (1 - al) * be
                                     : 0;
        d[a] = m->ncorners == 8 ? lo * (1 - ga) + hi * ga : lo;
    }
}

static int apply_patch_test(pf_world *w, double t, void *ctx)
{
    patch_test *m = ctx;
    uint32_t np = 0;
    const double *x = pf_world_positions(w, m->o, &np);
    if (!x) return PF_OK;
    if (!m->x0) {
        size_t n3 = 3 * (size_t)m->n;
        if (!(m->x0 = pf_malloc(n3 * sizeof *m->x0 + 1)) || !(m->xf = pf_malloc(n3 * sizeof *m->xf + 1)) ||
            !(m->x = pf_malloc(3 * (size_t)np * sizeof *m->x)))
            return pf_error(PF_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < m->n; i++) {
            const double *p = x + 3 * (size_t)m->idx[i];
            double d[3];
            patch_displacement(m, p, d);
            for (int a = 0; a < 3; a++) m->x0[3 * (size_t)i + a] = p[a], m->xf[3 * (size_t)i + a] = p[a] + d[a];
        }
    }
    return sc_follow_linear_path(w, m->o, x, np, m->x,
                                 &(sc_linear_path){m->idx, m->n, m->x0, m->xf, m->begin, m->end}, t);
}

/* constrainedPoints: written out, or an ROI's pointsInROI in the node (its points' positions now) */
static int constrained_points(pf_scene_component *c, patch_test *m, double **out, size_t *count)
{
    const char *s = pf_scene_component_string(c, "constrainedPoints");
    *out = NULL;
    *count = 0;
    if (!s)
        return pf_scene_component_error(c, PF_EPARSE, "%s: 'constrainedPoints' is missing (the points whose corners "
                                        "the corner movements move)", TYPE(c));
    if (s[0] != '@') {
        size_t n = 0;
        int rc = sc_parse_reals(c, "constrainedPoints", out, &n);
        if (rc < 0) return rc;
        if (n == 0 || n % 3) {
            pf_free(*out);
            *out = NULL;
            return pf_scene_component_error(c, PF_EPARSE, "%s: 'constrainedPoints' needs 3 numbers per point, got "
                                            "%zu", TYPE(c), n);
        }
        *count = n / 3;
        return PF_OK;
    }
    sc_node *node;
    xmlNode *comp;
    const char *field;
    int rc = sc_resolve_link(c, "constrainedPoints", s, &node, &comp, &field);
    if (rc) return rc;
    int roi = comp && (!xmlStrcmp(comp->name, (const xmlChar *)"BoxROI") ||
                       !xmlStrcmp(comp->name, (const xmlChar *)"PairBoxROI"));
    if (!roi || !field || strcmp(field, "pointsInROI") || node != c->node)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: 'constrainedPoints' link '%s': a BoxROI's or PairBoxROI's "
                                        "pointsInROI in the node ('@box.pointsInROI') or a list of positions is "
                                        "supported", TYPE(c), s);
    const uint32_t *idx;
    uint32_t n;
    if ((rc = sc_box_indices(c, node, comp, &idx, &n))) return rc;
    const double *x = pf_world_positions(c->L->scene->world, m->o, NULL);
    if (n == 0 || !(*out = pf_malloc(3 * (size_t)n * sizeof **out)))
        return n ? pf_error(PF_ENOMEM, "out of memory")
                 : pf_scene_component_error(c, PF_EINVAL, "%s: the ROI '%s' holds no point", TYPE(c), s);
    for (uint32_t i = 0; i < n; i++) memcpy(*out + 3 * (size_t)i, x + 3 * (size_t)idx[i], 3 * sizeof *x);
    *count = n;
    return PF_OK;
}

int sc_patch_test_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    static const char *const ignored[] = {"drawConstrainedPoints", "topology", "meshIndices", "cornerPoints"};
    SC_IGNORE_ATTRS(c, ignored);
    int rc = check_template(c);
    if (rc) return rc;
    if (c->node->rigid)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: on a Rigid3d body: not supported", TYPE(c));
    patch_test *m = pf_calloc(1, sizeof *m);
    if (!m) return pf_error(PF_ENOMEM, "out of memory");
    if ((rc = pf_scene_component_on_destroy(c, patch_test_free, m))) {
        patch_test_free(m);
        return rc;
    }
    m->end = 20; /* SOFA's defaults: (0, 20] */
    if ((rc = pf_scene_component_object(c, &m->o)) ||
        (rc = pf_scene_component_real(c, "beginConstraintTime", -1e300, 1e300, &m->begin)) < 0 ||
        (rc = pf_scene_component_real(c, "endConstraintTime", -1e300, 1e300, &m->end)) < 0)
        return rc;
    double *pts = NULL, *mv = NULL;
    size_t npts = 0, nmv = 0;
    if ((rc = constrained_points(c, m, &pts, &npts))) return rc;
    m->ncorners = find_corners(pts, npts, m->corners);
    pf_free(pts);
    if ((rc = sc_parse_reals(c, "cornerMovements", &mv, &nmv)) < 0) return rc;
    if (nmv != 3 * (size_t)m->ncorners) {
        pf_free(mv);
        return pf_scene_component_error(c, PF_EPARSE, "%s: 'cornerMovements' needs %d displacements (x y z) for the "
                                        "%d corners of the %s constrained points, got %zu numbers", TYPE(c),
                                        m->ncorners, m->ncorners, m->ncorners == 8 ? "3D" : "planar", nmv);
    }
    memcpy(m->moves, mv, nmv * sizeof *mv);
    pf_free(mv);
    double(*k)[3] = m->corners;
    if (!(fabs(k[1][0] - k[0][0]) > 0) || !(fabs(k[3][1] - k[0][1]) > 0) ||
        (m->ncorners == 8 && !(fabs(k[4][2] - k[0][2]) > 0)))
        return pf_scene_component_error(c, PF_EINVAL, "%s: the constrained points' corners span no area along x and "
                                        "y%s: no interpolation between them", TYPE(c), m->ncorners == 8 ? " and z" : "");
    uint32_t np = 0;
    pf_world_positions(c->L->scene->world, m->o, &np);
    if ((rc = sc_moved_points(c, np, &m->idx, &m->n))) return rc;
    if (m->n && (rc = pf_world_fix_points(c->L->scene->world, m->o, m->idx, m->n))) return rc;
    c->L->scene->summary.constraints++;
    return sc_add_step_hook(c, apply_patch_test, m);
}
