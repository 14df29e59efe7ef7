/* Rigid bodies (6 DOF, Hermann et al. 2009, §4.2): creation from a shape (box, sphere, closed mesh) with its mass
 * properties, and the per-object pieces the explicit and implicit solvers call for them (rigid.h). */
#include "rigid.h"

#include "objects.h"
#include "world_guard.h"

#include "rotation.h"
#include "surface.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

pf_rigid_def pf_rigid_default_def(void)
{
    return (pf_rigid_def){.orientation = {0, 0, 0, 1},
                          .density = 1000,
                          .shape = PF_RIGID_BOX,
                          .half_extents = {0.5, 0.5, 0.5},
                          .radius = 0.5,
                          .solver = pf_solver_default_def()};
}

/* The API's quaternions are (x, y, z, w), SOFA's order; the state keeps (w, x, y, z) (rigid.h), so its bytes and
 * the state hash do not depend on the API's order. */
static void quat_from_api(const double a[4], double q[4])
{
    q[0] = a[3], q[1] = a[0], q[2] = a[1], q[3] = a[2];
}

static void quat_to_api(const double q[4], double a[4])
{
    a[0] = q[1], a[1] = q[2], a[2] = q[3], a[3] = q[0];
}

/* the shape fields of a rigid definition given to `fn` */
static int check_shape(const pf_rigid_def *d, const char *fn)
{
    PF_TRY(pf_check_enum((int)d->shape, 3, fn, "def.shape"));
    if (d->shape == PF_RIGID_BOX) {
        PF_TRY(pf_check_positive(d->half_extents[0], fn, "def.half_extents[0]"));
        PF_TRY(pf_check_positive(d->half_extents[1], fn, "def.half_extents[1]"));
        return pf_check_positive(d->half_extents[2], fn, "def.half_extents[2]");
    }
    if (d->shape == PF_RIGID_SPHERE) return pf_check_positive(d->radius, fn, "def.radius");
    PF_TRY(pf_check_given(d->mesh_positions, fn, "def.mesh_positions"));
    PF_TRY(pf_check_given(d->mesh_indices, fn, "def.mesh_indices"));
    if (d->mesh_vertices < 4 || d->mesh_triangles < 4)
        return pf_error(PF_EINVAL, "%s: a closed mesh needs def.mesh_vertices >= 4 and def.mesh_triangles >= 4, got %u "
                        "and %u", fn, d->mesh_vertices, d->mesh_triangles);
    for (size_t k = 0; k < 3 * (size_t)d->mesh_triangles; k++)
        if (d->mesh_indices[k] >= d->mesh_vertices)
            return pf_error(PF_EINVAL, "%s: def.mesh_indices[%zu] = %u (triangle %zu): the mesh has %u vertices", fn, k,
                            d->mesh_indices[k], k / 3, d->mesh_vertices);
    return pf_check_finite_n(d->mesh_positions, 3 * (size_t)d->mesh_vertices, fn, "def.mesh_positions");
}

/* def.inertia of `fn`, given: finite, symmetric, positive definite, with a mass > 0 */
static int check_given_inertia(const pf_rigid_def *d, const char *fn)
{
    PF_TRY(pf_check_finite_n(d->inertia, 9, fn, "def.inertia"));
    if (!(d->mass > 0))
        return pf_error(PF_EINVAL, "%s: def.inertia is given without def.mass: give the mass it goes with", fn);
    const double *I = d->inertia;
    if (I[1] != I[3] || I[2] != I[6] || I[5] != I[7])
        return pf_error(PF_EINVAL, "%s: def.inertia is not symmetric", fn);
    double inv[9]; /* Sylvester: positive leading minors */
    if (!(I[0] > 0 && I[0] * I[4] - I[1] * I[3] > 0 && pf_mat3_inverse(I, inv) > 0))
        return pf_error(PF_EINVAL, "%s: def.inertia is not positive definite", fn);
    return PF_OK;
}

/* mass, com (body model frame) and inertia about the com of the shape at density rho (check_shape passed) */
static int shape_properties(const pf_rigid_def *d, double rho, pf_mass_properties *mp)
{
    memset(mp, 0, sizeof *mp);
    if (d->shape == PF_RIGID_BOX) {
        const double *e = d->half_extents;
        mp->mass = rho * 8 * e[0] * e[1] * e[2];
        mp->inertia[0] = mp->mass / 3 * (e[1] * e[1] + e[2] * e[2]);
        mp->inertia[4] = mp->mass / 3 * (e[2] * e[2] + e[0] * e[0]);
        mp->inertia[8] = mp->mass / 3 * (e[0] * e[0] + e[1] * e[1]);
        return PF_OK;
    }
    if (d->shape == PF_RIGID_SPHERE) {
        double r = d->radius;
        mp->mass = rho * 4.0 / 3.0 * M_PI * r * r * r;
        mp->inertia[0] = mp->inertia[4] = mp->inertia[8] = 0.4 * mp->mass * r * r;
        return PF_OK;
    }
    return pf_mesh_mass_properties(d->mesh_positions, d->mesh_vertices, d->mesh_indices, d->mesh_triangles, rho, mp);
}

/* Attaches the shape's surface to rigid object o: vertices given in the body frame (centred on the com). */
static int attach_shape_surface(pf_world *w, const pf_object *o, const pf_rigid_def *def, const double com[3],
                                pf_surface_id *out)
{
    pf_mesh m = {0};
    const double *body = NULL;
    uint32_t nv, nt;
    const uint32_t *tri;
    int rc = PF_OK;
    if (def->shape == PF_RIGID_MESH) {
        body = def->mesh_positions;
        nv = def->mesh_vertices, nt = def->mesh_triangles, tri = def->mesh_indices;
    } else {
        rc = def->shape == PF_RIGID_BOX ? pf_mesh_box(def->half_extents, &m) : pf_mesh_icosphere(def->radius, 2, &m);
        if (rc) return rc;
        body = m.positions;
        nv = m.vertices, nt = m.triangles, tri = m.indices;
    }
    double *world = pf_malloc(3 * (size_t)nv * sizeof *world), R[9];
    if (!world) {
        pf_mesh_free(&m);
        return pf_error(PF_ENOMEM, "out of memory for a rigid surface");
    }
    pf_rigid_rotation(o->x, R);
    for (size_t i = 0; i < nv; i++) {
        double l[3] = {body[3 * i] - com[0], body[3 * i + 1] - com[1], body[3 * i + 2] - com[2]};
        pf_mat3_vec(R, l, world + 3 * i);
        for (int a = 0; a < 3; a++) world[3 * i + a] += o->x[a];
    }
    pf_surface_def sd = pf_surface_default_def();
    sd.mapping = PF_SURFACE_RIGID;
    sd.vertices = nv;
    sd.positions = world;
    sd.indices = tri;
    sd.triangles = nt;
    rc = pf_world_add_surface(w, (pf_object_id){o->id}, &sd, out);
    pf_free(world);
    pf_mesh_free(&m);
    return rc;
}

int pf_world_add_rigid(pf_world *w, const pf_rigid_def *def, pf_object_id *out)
{
    static const char fn[] = "pf_world_add_rigid";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_finite_n(def->position, 3, fn, "def.position"));
    PF_TRY(pf_check_finite_n(def->velocity, 3, fn, "def.velocity"));
    PF_TRY(pf_check_finite_n(def->angular_velocity, 3, fn, "def.angular_velocity"));
    PF_TRY(pf_check_finite_n(def->orientation, 4, fn, "def.orientation"));
    double q[4];
    quat_from_api(def->orientation, q);
    if (!pf_quat_normalize(q)) return pf_error(PF_EINVAL, "%s: def.orientation is the zero quaternion", fn);
    PF_TRY(pf_check_nonnegative(def->mass, fn, "def.mass"));
    if (def->mass == 0) PF_TRY(pf_check_positive(def->density, fn, "def.density"));
    PF_TRY(check_shape(def, fn));
    PF_TRY(pf_check_solver_def(&def->solver, fn, "def.solver"));
    if (def->solver.kind != PF_SOLVER_IMPLICIT_EULER && def->solver.kind != PF_SOLVER_EXPLICIT_EULER)
        return pf_error(PF_EINVAL, "%s: def.solver.kind %d: a rigid body takes PF_SOLVER_IMPLICIT_EULER or "
                        "PF_SOLVER_EXPLICIT_EULER", fn, (int)def->solver.kind);
    pf_mass_properties mp;
    int given = 0; /* an inertia given with the mass (SOFA's Rigid3 mass) stands for the shape's */
    for (int i = 0; i < 9; i++) given |= def->inertia[i] != 0;
    if (given) PF_TRY(check_given_inertia(def, fn));
    int rc = shape_properties(def, def->mass > 0 ? 1.0 : def->density, &mp);
    if (rc) return rc;
    if (given) {
        mp.mass = def->mass;
        memcpy(mp.inertia, def->inertia, sizeof mp.inertia);
    } else if (def->mass > 0) { /* the shape's distribution scaled to the given mass */
        for (int i = 0; i < 9; i++) mp.inertia[i] *= def->mass / mp.mass;
        mp.mass = def->mass;
    }
    double inv[9];
    if (!(mp.inertia[0] > 0 && mp.inertia[4] > 0 && mp.inertia[8] > 0) || !(pf_mat3_inverse(mp.inertia, inv) > 0))
        return pf_error(PF_EINVAL, "%s: the inertia tensor (%s) is not positive definite", fn,
                        given ? "def.inertia" : "the shape's");

    pf_object_def od = pf_object_default_def();
    double x[6] = {def->position[0], def->position[1], def->position[2], 0, 0, 0};
    double v[6] = {def->velocity[0], def->velocity[1], def->velocity[2],
                   def->angular_velocity[0], def->angular_velocity[1], def->angular_velocity[2]};
    od.points = 2;
    od.positions = x;
    od.velocities = v;
    od.vertex_mass = mp.mass;
    od.solver = def->solver;
    double *xq = pf_calloc(PF_RIGID_XLEN, sizeof *xq);
    if (!xq) return pf_error(PF_ENOMEM, "out of memory for a rigid body");
    pf_object_id id;
    if ((rc = pf_world_add_object(w, &od, &id))) {
        pf_free(xq);
        return rc;
    }
    pf_object *o = w->obj.v[id.index];
    memcpy(xq, o->x, 6 * sizeof *xq);
    memcpy(xq + PF_RIGID_QUAT, q, sizeof q);
    pf_free(o->x);
    o->x = xq;
    o->xextra = PF_RIGID_XLEN - 6;
    o->kind = PF_OBJECT_RIGID;
    memcpy(o->inertia, mp.inertia, sizeof o->inertia);
    memcpy(o->inertia_inv, inv, sizeof o->inertia_inv);
    if (out) *out = id;
    return PF_OK;
}

/* rigid body id of w, or NULL with the message of `fn` */
static const pf_object *rigid_object(const pf_world *w, pf_object_id id, const char *fn)
{
    if (pf_world_check_given(w, fn) || pf_world_check_object(w, id.index, fn)) return NULL;
    if (w->obj.v[id.index]->kind != PF_OBJECT_RIGID) {
        pf_error(PF_EINVAL, "%s: object %u is %s, not a rigid body", fn, id.index,
                 pf_object_kind_noun(w->obj.v[id.index]->kind));
        return NULL;
    }
    return w->obj.v[id.index];
}

int pf_world_add_rigid_shape_surface(pf_world *w, pf_object_id id, const pf_rigid_def *def, pf_surface_id *out)
{
    static const char fn[] = "pf_world_add_rigid_shape_surface";
    PF_TRY(pf_world_check_mutable(w, fn));
    const pf_object *o = rigid_object(w, id, fn);
    if (!o) return PF_EINVAL;
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(check_shape(def, fn));
    pf_mass_properties mp; /* the com the body frame is centred on (0 for a box or a sphere) */
    int rc = shape_properties(def, 1.0, &mp);
    return rc ? rc : attach_shape_surface(w, o, def, mp.com, out);
}

int pf_world_get_rigid_state(const pf_world *w, pf_object_id id, double position[3], double orientation[4],
                             double velocity[3], double angular_velocity[3])
{
    const pf_object *o = rigid_object(w, id, "pf_world_get_rigid_state");
    if (!o) return PF_EINVAL;
    if (position) memcpy(position, o->x, 3 * sizeof(double));
    if (orientation) quat_to_api(o->x + PF_RIGID_QUAT, orientation);
    if (velocity) memcpy(velocity, o->v, 3 * sizeof(double));
    if (angular_velocity) memcpy(angular_velocity, o->v + 3, 3 * sizeof(double));
    return PF_OK;
}

int pf_world_set_rigid_state(pf_world *w, pf_object_id id, const double position[3], const double orientation[4],
                             const double velocity[3], const double angular_velocity[3])
{
    static const char fn[] = "pf_world_set_rigid_state";
    PF_TRY(pf_world_check_mutable(w, fn));
    pf_object *o = (pf_object *)rigid_object(w, id, fn);
    if (!o) return PF_EINVAL;
    double q[4] = {1, 0, 0, 0};
    if (position) PF_TRY(pf_check_finite_n(position, 3, fn, "position"));
    if (velocity) PF_TRY(pf_check_finite_n(velocity, 3, fn, "velocity"));
    if (angular_velocity) PF_TRY(pf_check_finite_n(angular_velocity, 3, fn, "angular_velocity"));
    if (orientation) {
        PF_TRY(pf_check_finite_n(orientation, 4, fn, "orientation"));
        quat_from_api(orientation, q);
        if (!pf_quat_normalize(q)) return pf_error(PF_EINVAL, "%s: orientation is the zero quaternion", fn);
        memcpy(o->x + PF_RIGID_QUAT, q, sizeof q);
    }
    if (position) memcpy(o->x, position, 3 * sizeof(double));
    if (velocity && !o->fixed[0]) memcpy(o->v, velocity, 3 * sizeof(double));
    if (angular_velocity && !o->fixed[1]) memcpy(o->v + 3, angular_velocity, 3 * sizeof(double));
    pf_project_directions(o, o->v); /* held directions stay at rest */
    return PF_OK;
}

int pf_world_get_rigid_inertia(const pf_world *w, pf_object_id id, double *mass, double body[9],
                               double world[9])
{
    const pf_object *o = rigid_object(w, id, "pf_world_get_rigid_inertia");
    if (!o) return PF_EINVAL;
    if (mass) *mass = o->mass;
    if (body) memcpy(body, o->inertia, sizeof o->inertia);
    if (world) {
        double inv[9];
        pf_rigid_world_inertia(o, o->x, world, inv);
    }
    return PF_OK;
}

void pf_rigid_world_inertia(const pf_object *o, const double *x, double Iw[9], double Iw_inv[9])
{
    double R[9];
    pf_rigid_rotation(x, R);
    pf_mat3_rotate_tensor(R, o->inertia, Iw);
    pf_mat3_rotate_tensor(R, o->inertia_inv, Iw_inv);
}

void pf_rigid_force(const pf_object *o, const double g[3], double *f)
{
    for (int a = 0; a < 3; a++) {
        f[a] = o->mass * g[a];
        f[3 + a] = 0;
    }
}

void pf_rigid_rhs(const pf_object *o, double h, double rm, const double *f, const double *v, double *b)
{
    double Iw[9], Iw_inv[9], L[3];
    pf_rigid_world_inertia(o, o->x, Iw, Iw_inv);
    pf_mat3_vec(Iw, v + 3, L);
    for (int a = 0; a < 3; a++) {
        b[a] = h * f[a] - h * rm * o->mass * v[a];
        b[3 + a] = h * f[3 + a] - h * rm * L[a];
    }
}

void pf_rigid_matvec(const pf_object *o, double mfact, const double *p, double *q)
{
    double Iw[9], Iw_inv[9], ip[3];
    pf_rigid_world_inertia(o, o->x, Iw, Iw_inv);
    pf_mat3_vec(Iw, p + 3, ip);
    for (int a = 0; a < 3; a++) {
        q[a] = mfact * o->mass * p[a];
        q[3 + a] = mfact * ip[a];
    }
}

/* Turns the body over one step. Without torque the angular momentum L = I_w omega is what the motion conserves,
 * not omega: as an asymmetric body turns, I_w = R I_body R^T changes and omega precesses. So L is taken at the
 * start orientation (plus the torque impulse h tau for the explicit solver) and held through the step; the
 * orientation advances by the exponential map of omega_m h, and omega is set back from the same L at the new
 * orientation: L is carried exactly up to rounding, and the gyroscopic term omega x I_w omega never has to appear
 * as a force. omega_m is the angular velocity at the half-turned orientation, omega_m = I_w(exp(omega_m h/2) q)^-1 L
 * (the implicit midpoint rule on the rotation group, found by fixed-point iteration, which contracts by ~h |omega|
 * per pass): unlike the explicit choice omega_m = I_w(q)^-1 L, which gains energy steadily (+50% over 1000 steps
 * of h |omega| = 0.04 for a box of moments 1 : 2.6 : 4.2), the symmetric step keeps the kinetic energy bounded. */
static void rotate(const pf_object *o, double h, const double *torque, double *omega, double *x)
{
    double Iw[9], Iw_inv[9], L[3], wm[3], q[4];
    pf_rigid_world_inertia(o, x, Iw, Iw_inv);
    pf_mat3_vec(Iw, omega, L);
    if (torque)
        for (int a = 0; a < 3; a++) L[a] += h * torque[a];
    pf_mat3_vec(Iw_inv, L, wm);
    double ww = wm[0] * wm[0] + wm[1] * wm[1] + wm[2] * wm[2];
    for (int it = 0; it < 50; it++) {
        memcpy(q, x + PF_RIGID_QUAT, sizeof q);
        pf_quat_integrate(q, wm, 0.5 * h);
        double R[9], Ih_inv[9], next[3];
        pf_quat_to_mat(q, R);
        pf_mat3_rotate_tensor(R, o->inertia_inv, Ih_inv);
        pf_mat3_vec(Ih_inv, L, next);
        double d = 0;
        for (int a = 0; a < 3; a++) d += (next[a] - wm[a]) * (next[a] - wm[a]);
        memcpy(wm, next, sizeof wm);
        if (d <= 1e-30 * ww) break;
    }
    pf_quat_integrate(x + PF_RIGID_QUAT, wm, h);
    pf_rigid_world_inertia(o, x, Iw, Iw_inv);
    pf_mat3_vec(Iw_inv, L, omega);
}

/* c = a b, the Hamilton product (w, x, y, z): the rotation b, then a */
static void quat_mul(const double a[4], const double b[4], double c[4])
{
    c[0] = a[0] * b[0] - (a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
    c[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    c[2] = a[0] * b[2] + a[2] * b[0] + a[3] * b[1] - a[1] * b[3];
    c[3] = a[0] * b[3] + a[3] * b[0] + a[1] * b[2] - a[2] * b[1];
}

/* q = swing twist, the twist a rotation about unit axis d (SOFA's decompose_ts in
 * FixedRotationProjectiveConstraint.inl): twist = (w, (v.d) d) normalised, the identity when that is 0 (a half
 * turn about an axis normal to d); swing = q twist^-1, normalised */
static void swing_twist(const double q[4], const double d[3], double swing[4], double twist[4])
{
    double s = q[1] * d[0] + q[2] * d[1] + q[3] * d[2];
    twist[0] = q[0], twist[1] = s * d[0], twist[2] = s * d[1], twist[3] = s * d[2];
    if (!pf_quat_normalize(twist)) twist[0] = 1, twist[1] = twist[2] = twist[3] = 0;
    const double inv[4] = {twist[0], -twist[1], -twist[2], -twist[3]};
    quat_mul(q, inv, swing);
    pf_quat_normalize(swing);
}

/* SOFA FixedRotationProjectiveConstraint::projectPosition: for each held axis of point 1 in the order held, the
 * twist about it is taken out of the orientation q and out of the reference rot_ref; q becomes what is left of q
 * times those twists of the reference (the last held outermost): its rotation about a held axis is the
 * reference's. */
static void hold_orientation(const pf_object *o, double q[4])
{
    double rest[4], ref[4], keep[4] = {1, 0, 0, 0}, swing[4], twist[4], t[4];
    memcpy(rest, q, sizeof rest);
    memcpy(ref, o->rot_ref, sizeof ref);
    for (size_t k = 0; k < o->held.n; k++) {
        if (o->held.v[k].point != 1) continue;
        swing_twist(rest, o->held.v[k].d, swing, twist);
        memcpy(rest, swing, sizeof rest);
        swing_twist(ref, o->held.v[k].d, swing, twist);
        memcpy(ref, swing, sizeof ref);
        quat_mul(twist, keep, t);
        memcpy(keep, t, sizeof keep);
    }
    quat_mul(rest, keep, q);
    pf_quat_normalize(q);
}

/* rotate() of a body with held directions (pf_world_fix_directions): the held parts of its velocities and of the
 * torque's impulse are projected out (SOFA's projectVelocity and projectResponse), the body turns, omega's held
 * part that a turned inertia gives back is projected out, and the orientation keeps its rotation about the held
 * axes (hold_orientation) */
static void rotate_held(const pf_object *o, double h, const double *torque, double *v, double *x)
{
    double tq[6] = {0};
    if (torque) memcpy(tq + 3, torque, 3 * sizeof *tq);
    pf_project_directions(o, v);
    pf_project_point_directions(o, 1, tq);
    rotate(o, h, torque ? tq + 3 : NULL, v + 3, x);
    pf_project_point_directions(o, 1, v);
    for (size_t k = 0; k < o->held.n; k++)
        if (o->held.v[k].point == 1) {
            hold_orientation(o, x + PF_RIGID_QUAT);
            break;
        }
}

/* the com's move; a fixed point 0 holds the translation, a fixed point 1 the rotation, held directions hold
 * their parts (rotate_held; a body without them keeps the arithmetic it always had) */
static void advance(const pf_object *o, double h, const double *torque, double *v, double *x)
{
    if (o->fixed[0]) v[0] = v[1] = v[2] = 0;
    if (o->fixed[1]) {
        v[3] = v[4] = v[5] = 0;
        if (o->held.n) pf_project_directions(o, v);
    } else if (o->held.n)
        rotate_held(o, h, torque, v, x);
    else
        rotate(o, h, torque, v + 3, x);
    for (int a = 0; a < 3; a++) x[a] += h * v[a];
}

void pf_rigid_integrate_explicit(const pf_object *o, double h, const double *f, double *v, double *x)
{
    for (int a = 0; a < 3; a++) v[a] += h * f[a] / o->mass;
    advance(o, h, f + 3, v, x);
}

void pf_rigid_integrate_implicit(const pf_object *o, double h, const double *dv, double *v, double *x)
{
    for (int a = 0; a < 3; a++) v[a] += dv[a];
    if (!o->fixed[1])
        for (int a = 3; a < 6; a++) v[a] += dv[a];
    advance(o, h, NULL, v, x);
}
