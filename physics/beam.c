/* Beam objects: pf_world_add_beam checks a definition and builds the object (beam.h for its layout), its elements'
 * rest frames and stiffnesses, its frames' masses; pf_world_get_beam_state reads the frames back. */
#include "beam.h"

#include "objects.h"
#include "rotation.h"
#include "world_guard.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

pf_beam_def pf_beam_default_def(void)
{
    return (pf_beam_def){.radius = 0.1,
                         .radius_inner = 0,
                         .young_modulus = 5000,
                         .poisson_ratio = 0.49,
                         .frame_mass = 1,
                         .solver = pf_solver_default_def()};
}

void pf_beam_free(pf_beam *b)
{
    if (!b) return;
    pf_free(b->elem);
    pf_free(b->mass);
    pf_free(b->inertia);
    pf_free(b->band);
    pf_free(b->rhs);
    pf_free(b->erot);
    pf_free(b);
}

static int check_def(const pf_beam_def *def, const char *fn)
{
    PF_TRY(pf_check_given(def, fn, "def"));
    if (def->frames < 2) return pf_error(PF_EINVAL, "%s: def.frames must be >= 2, got %u", fn, def->frames);
    if (def->frames > (1u << 24)) return pf_error(PF_EINVAL, "%s: def.frames %u: at most 2^24", fn, def->frames);
    size_t n3 = 3 * (size_t)def->frames;
    PF_TRY(pf_check_given(def->positions, fn, "def.positions"));
    PF_TRY(pf_check_finite_n(def->positions, n3, fn, "def.positions"));
    if (def->velocities) PF_TRY(pf_check_finite_n(def->velocities, n3, fn, "def.velocities"));
    if (def->angular_velocities) PF_TRY(pf_check_finite_n(def->angular_velocities, n3, fn, "def.angular_velocities"));
    if (def->orientations) {
        PF_TRY(pf_check_finite_n(def->orientations, 4 * (size_t)def->frames, fn, "def.orientations"));
        for (uint32_t k = 0; k < def->frames; k++) {
            const double *q = def->orientations + 4 * (size_t)k;
            double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            if (!(fabs(n - 1.0) <= 1e-6))
                return pf_error(PF_EINVAL, "%s: def.orientations of frame %u (%g %g %g %g) is not a unit quaternion "
                                "(|q| = %g)", fn, k, q[0], q[1], q[2], q[3], n);
        }
    }
    if (def->nedges < 1) return pf_error(PF_EINVAL, "%s: def.nedges must be >= 1 (a beam needs an element)", fn);
    PF_TRY(pf_check_given(def->edges, fn, "def.edges"));
    for (uint32_t e = 0; e < def->nedges; e++) {
        uint32_t a = def->edges[2 * (size_t)e], b = def->edges[2 * (size_t)e + 1];
        if (a >= def->frames || b >= def->frames)
            return pf_error(PF_EINVAL, "%s: def.edges: edge %u (%u %u) names a frame out of range (the beam has %u "
                            "frames)", fn, e, a, b, def->frames);
        if (a == b) return pf_error(PF_EINVAL, "%s: def.edges: edge %u joins frame %u to itself", fn, e, a);
        const double *pa = def->positions + 3 * (size_t)a, *pb = def->positions + 3 * (size_t)b;
        double d[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
        if (!(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > 0))
            return pf_error(PF_EINVAL, "%s: def.edges: edge %u joins frames %u and %u at the same place (a beam "
                            "element of length 0)", fn, e, a, b);
    }
    if (!(def->radius > 0) || !isfinite(def->radius))
        return pf_error(PF_EINVAL, "%s: def.radius must be a finite length > 0 m, got %g", fn, def->radius);
    if (!(def->radius_inner >= 0 && def->radius_inner < def->radius))
        return pf_error(PF_EINVAL, "%s: def.radius_inner must be in [0, radius = %g) m, got %g", fn, def->radius,
                        def->radius_inner);
    if (!(def->young_modulus > 0) || !isfinite(def->young_modulus))
        return pf_error(PF_EINVAL, "%s: def.young_modulus must be finite and > 0 Pa, got %g", fn, def->young_modulus);
    if (!(def->poisson_ratio > -1 && def->poisson_ratio < 0.5))
        return pf_error(PF_EINVAL, "%s: def.poisson_ratio must be in (-1, 0.5), got %g", fn, def->poisson_ratio);
    if (def->frame_masses) {
        for (uint32_t k = 0; k < def->frames; k++)
            if (!(def->frame_masses[k] > 0) || !isfinite(def->frame_masses[k]))
                return pf_error(PF_EINVAL, "%s: def.frame_masses[%u] must be a finite mass > 0 kg, got %g", fn, k,
                                def->frame_masses[k]);
    } else if (!(def->frame_mass > 0) || !isfinite(def->frame_mass)) {
        return pf_error(PF_EINVAL, "%s: def.frame_mass must be a finite mass > 0 kg, got %g", fn, def->frame_mass);
    }
    PF_TRY(pf_check_finite_n(def->inertia, 9, fn, "def.inertia"));
    int given = 0;
    for (int i = 0; i < 9; i++) given |= def->inertia[i] != 0;
    if (given) {
        const double *I = def->inertia;
        double inv[9];
        int sym = I[1] == I[3] && I[2] == I[6] && I[5] == I[7];
        double m2 = I[0] * I[4] - I[1] * I[3]; /* leading minors (Sylvester) */
        if (!sym || !(I[0] > 0) || !(m2 > 0) || !(pf_mat3_inverse(I, inv) > 0))
            return pf_error(PF_EINVAL, "%s: def.inertia is not a symmetric positive definite tensor", fn);
    }
    if (def->nfixed) PF_TRY(pf_check_given(def->fixed, fn, "def.fixed"));
    for (uint32_t k = 0; k < def->nfixed; k++)
        if (def->fixed[k] >= def->frames)
            return pf_error(PF_EINVAL, "%s: def.fixed[%u] = %u: frame out of range (the beam has %u frames)", fn, k,
                            def->fixed[k], def->frames);
    PF_TRY(pf_check_solver_def(&def->solver, fn, "def.solver"));
    if (def->solver.kind != PF_SOLVER_IMPLICIT_EULER && def->solver.kind != PF_SOLVER_STATIC)
        return pf_error(PF_EINVAL, "%s: def.solver.kind %d: a beam takes PF_SOLVER_IMPLICIT_EULER or "
                        "PF_SOLVER_STATIC", fn, (int)def->solver.kind);
    return PF_OK;
}

/* the element's rest frame (columns: unit axis a->b, then y from node a's y axis made normal to it, or its z
 * axis when y runs along the beam) kept in both nodes' body frames */
static void element_frames(const double *pa, const double *pb, const double qa[4], const double qb[4],
                           pf_beam_element *e)
{
    double Ra[9], Rb[9], e1[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
    e->length = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int i = 0; i < 3; i++) e1[i] /= e->length;
    pf_quat_to_mat(qa, Ra);
    pf_quat_to_mat(qb, Rb);
    double e2[3], e3[3];
    for (int col = 1; col <= 2; col++) {
        double y[3] = {Ra[col], Ra[3 + col], Ra[6 + col]};
        double dt = y[0] * e1[0] + y[1] * e1[1] + y[2] * e1[2];
        for (int i = 0; i < 3; i++) e2[i] = y[i] - dt * e1[i];
        double n = sqrt(e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
        if (n > 0.1 || col == 2) { /* of y and z, one is at least 1/sqrt(2) off the axis */
            for (int i = 0; i < 3; i++) e2[i] /= n;
            break;
        }
    }
    pf_cross(e1, e2, e3);
    double E0[9] = {e1[0], e2[0], e3[0], e1[1], e2[1], e3[1], e1[2], e2[2], e3[2]};
    for (int i = 0; i < 3; i++) /* c = R^T E0 */
        for (int j = 0; j < 3; j++) {
            e->ca[3 * i + j] = Ra[i] * E0[j] + Ra[3 + i] * E0[3 + j] + Ra[6 + i] * E0[6 + j];
            e->cb[3 * i + j] = Rb[i] * E0[j] + Rb[3 + i] * E0[3 + j] + Rb[6 + i] * E0[6 + j];
        }
}

/* the beam's own state: elements, masses, the band system's storage */
static int build_beam(const pf_beam_def *def, const double *quats, pf_beam **out)
{
    uint32_t N = def->frames, m = def->nedges, span = 1;
    pf_beam *b = pf_calloc(1, sizeof *b);
    if (!b) return pf_error(PF_ENOMEM, "out of memory for a beam");
    for (uint32_t e = 0; e < m; e++) {
        uint32_t a = def->edges[2 * (size_t)e], c = def->edges[2 * (size_t)e + 1];
        uint32_t d = a > c ? a - c : c - a;
        if (d > span) span = d;
    }
    b->frames = N;
    b->nelem = m;
    b->bw = 6 * span + 5;
    if (b->bw > 6 * N - 1) b->bw = 6 * N - 1;
    b->elem = pf_calloc(m, sizeof *b->elem);
    b->mass = pf_malloc(N * sizeof *b->mass);
    b->inertia = pf_malloc(9 * (size_t)N * sizeof *b->inertia);
    b->band = pf_malloc(6 * (size_t)N * (b->bw + 1) * sizeof *b->band);
    b->rhs = pf_malloc(6 * (size_t)N * sizeof *b->rhs);
    b->erot = pf_calloc(9 * (size_t)m, sizeof *b->erot);
    if (!b->elem || !b->mass || !b->inertia || !b->band || !b->rhs || !b->erot) {
        pf_beam_free(b);
        return pf_error(PF_ENOMEM, "out of memory for a beam of %u frames", N);
    }
    int given = 0;
    for (int i = 0; i < 9; i++) given |= def->inertia[i] != 0;
    for (uint32_t k = 0; k < N; k++) {
        b->mass[k] = def->frame_masses ? def->frame_masses[k] : def->frame_mass;
        for (int i = 0; i < 9; i++)
            b->inertia[9 * (size_t)k + i] = given ? def->inertia[i] : (i % 4 == 0 ? b->mass[k] : 0.0);
    }
    for (uint32_t e = 0; e < m; e++) {
        pf_beam_element *el = &b->elem[e];
        el->a = def->edges[2 * (size_t)e];
        el->b = def->edges[2 * (size_t)e + 1];
        element_frames(def->positions + 3 * (size_t)el->a, def->positions + 3 * (size_t)el->b,
                       quats + 4 * (size_t)el->a, quats + 4 * (size_t)el->b, el);
        pf_beam_local_stiffness(def->young_modulus, def->poisson_ratio, def->radius, def->radius_inner, el->length,
                                el->k);
    }
    *out = b;
    return PF_OK;
}

int pf_world_add_beam(pf_world *w, const pf_beam_def *def, pf_object_id *out)
{
    static const char fn[] = "pf_world_add_beam";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(check_def(def, fn));
    uint32_t N = def->frames;
    double *xq = pf_calloc(6 * (size_t)N + 4 * (size_t)N, sizeof *xq);
    double *v = pf_calloc(6 * (size_t)N, sizeof *v);
    if (!xq || !v) {
        pf_free(xq);
        pf_free(v);
        return pf_error(PF_ENOMEM, "out of memory for a beam of %u frames", N);
    }
    double *q = xq + PF_BEAM_QUAT(N);
    for (uint32_t k = 0; k < N; k++) {
        memcpy(xq + 6 * (size_t)k, def->positions + 3 * (size_t)k, 3 * sizeof *xq);
        double *qk = q + 4 * (size_t)k;
        if (def->orientations) { /* (x, y, z, w) -> (w, x, y, z) */
            const double *a = def->orientations + 4 * (size_t)k;
            qk[0] = a[3], qk[1] = a[0], qk[2] = a[1], qk[3] = a[2];
            pf_quat_normalize(qk);
        } else {
            qk[0] = 1;
        }
        if (def->velocities) memcpy(v + 6 * (size_t)k, def->velocities + 3 * (size_t)k, 3 * sizeof *v);
        if (def->angular_velocities)
            memcpy(v + 6 * (size_t)k + 3, def->angular_velocities + 3 * (size_t)k, 3 * sizeof *v);
    }
    pf_beam *bm = NULL;
    int rc = build_beam(def, q, &bm);
    pf_object_def od = pf_object_default_def();
    od.points = 2 * N;
    od.positions = xq;
    od.velocities = v;
    od.vertex_mass = def->frame_masses ? def->frame_masses[0] : def->frame_mass;
    od.solver = def->solver;
    od.decompose = PF_DECOMPOSE_OFF;
    pf_object_id id;
    if (!rc) rc = pf_world_add_object(w, &od, &id);
    pf_free(v);
    if (rc) {
        pf_free(xq);
        pf_beam_free(bm);
        return rc;
    }
    pf_object *o = w->obj.v[id.index];
    pf_free(o->x);
    o->x = xq;
    o->xextra = 4 * N;
    o->kind = PF_OBJECT_BEAM;
    o->beam = bm;
    o->mass = od.vertex_mass;
    for (uint32_t k = 0; k < def->nfixed && !rc; k++) { /* checked frames: fails only short of memory */
        uint32_t pts[2] = {2 * def->fixed[k], 2 * def->fixed[k] + 1};
        rc = pf_world_fix_points(w, id, pts, 2);
    }
    if (rc) {
        char copy[300];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        pf_world_remove_object(w, id);
        return pf_error(rc, "%s", copy);
    }
    if (out) *out = id;
    return PF_OK;
}

int pf_world_get_beam_state(const pf_world *w, pf_object_id id, double *positions, double *orientations,
                            double *velocities, double *angular_velocities, uint32_t *frames)
{
    static const char fn[] = "pf_world_get_beam_state";
    PF_TRY(pf_world_check_given(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    const pf_object *o = w->obj.v[id.index];
    if (o->kind != PF_OBJECT_BEAM)
        return pf_error(PF_EINVAL, "%s: object %u is %s, not a beam", fn, id.index, pf_object_kind_noun(o->kind));
    uint32_t N = o->beam->frames;
    const double *q = o->x + PF_BEAM_QUAT(N);
    for (uint32_t k = 0; k < N; k++) {
        if (positions) memcpy(positions + 3 * (size_t)k, o->x + 6 * (size_t)k, 3 * sizeof(double));
        if (velocities) memcpy(velocities + 3 * (size_t)k, o->v + 6 * (size_t)k, 3 * sizeof(double));
        if (angular_velocities) memcpy(angular_velocities + 3 * (size_t)k, o->v + 6 * (size_t)k + 3, 3 * sizeof(double));
        if (orientations) {
            const double *a = q + 4 * (size_t)k;
            double *b = orientations + 4 * (size_t)k;
            b[0] = a[1], b[1] = a[2], b[2] = a[3], b[3] = a[0];
        }
    }
    if (frames) *frames = N;
    return PF_OK;
}
