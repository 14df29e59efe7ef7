/* Joint springs between rigid bodies (pf_world_add_joint_springs, SOFA JointSpringForceField) against independent
 * oracles: the force and torque as minus the gradient of the joint's energy (finite differences of an energy
 * computed here), the df tangent as finite differences of the force at rest, a body hanging from a fixed one at
 * the static stretch m g / KS_T, a body under a constant torque settling at torque / KS_R, a free rotation axis
 * turning with no torque (omega = torque t / I and its angle) and past its limits settling at limit + torque / KS_B
 * (SOFA's default KS_B too), explicit against implicit Euler at a small step, a removed body taking its joint with
 * it, the rigid body's given inertia (SOFA's Rigid3 mass), argument errors, and one state hash for every executor
 * and worker count. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"
#include "physics/interaction.h"
#include "physics/world.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- quaternions (x, y, z, w), the API's order, written here for the oracle ---- */

static void qmul(const double a[4], const double b[4], double o[4])
{
    o[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    o[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    o[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
}

static void qrot(const double q[4], const double v[3], double o[3])
{
    double p[4] = {v[0], v[1], v[2], 0}, qi[4] = {-q[0], -q[1], -q[2], q[3]}, t[4], r[4];
    qmul(q, p, t);
    qmul(t, qi, r);
    o[0] = r[0], o[1] = r[1], o[2] = r[2];
}

static void qnorm(double q[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] /= n;
}

/* the rotation by angle |e| about e, applied on the world side: q <- exp(e) q */
static void qturn(double q[4], const double e[3])
{
    double a = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]), s = a > 0 ? sin(a / 2) / a : 0.5;
    double d[4] = {s * e[0], s * e[1], s * e[2], cos(a / 2)}, o[4];
    qmul(d, q, o);
    memcpy(q, o, sizeof o);
}

/* |rotation vector|^2 of q (angle in [-pi, pi]) */
static double qangle2(const double q[4])
{
    double s = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]), a = 2 * atan2(s, fabs(q[3]));
    return a * a;
}

/* ---- worlds ---- */

static pf_object_id add_body(pf_world *w, const double p[3], const double q[4], double mass, pf_solver_kind kind)
{
    pf_rigid_def r = pf_rigid_default_def();
    memcpy(r.position, p, sizeof r.position);
    if (q) memcpy(r.orientation, q, sizeof r.orientation);
    r.mass = mass;
    r.inertia[0] = 0.3 * mass, r.inertia[4] = 0.4 * mass, r.inertia[8] = 0.5 * mass;
    r.solver.kind = kind;
    r.solver.cg_tolerance = 1e-14;
    r.solver.cg_threshold = 1e-30;
    r.solver.cg_iterations = 200;
    pf_object_id o;
    ck_assert_int_eq(pf_world_add_rigid(w, &r, &o), PF_OK);
    return o;
}

static void hold(pf_world *w, pf_object_id o)
{
    const uint32_t p[2] = {0, 1};
    ck_assert_int_eq(pf_world_fix_points(w, o, p, 2), PF_OK);
}

/* a joint of hard stiffness kt, kr on every axis (no free axis), anchors la, lb */
static pf_joint_spring rigid_joint(double kt, double kr, const double la[3], const double lb[3])
{
    pf_joint_spring j = pf_joint_spring_default();
    for (int i = 0; i < 6; i++) j.free_axis[i] = 0;
    j.ks_t[1] = kt, j.ks_r[1] = kr;
    if (la) memcpy(j.anchor_a, la, sizeof j.anchor_a);
    if (lb) memcpy(j.anchor_b, lb, sizeof j.anchor_b);
    return j;
}

/* The energy of joint j (isotropic, no free axis) at poses (pa, qa), (pb, qb): 1/2 kt |dc|^2 + 1/2 kr |t|^2 */
static double joint_energy(const pf_joint_spring *j, const double pa[3], const double qa[4], const double pb[3],
                           const double qb[4])
{
    double ra[3], rb[3], fa[4], fb[4], qai[4], t[4], qr[4];
    qrot(qa, j->anchor_a, ra);
    qrot(qb, j->anchor_b, rb);
    qmul(qa, j->frame_a, fa);
    qmul(qb, j->frame_b, fb);
    qai[0] = -fa[0], qai[1] = -fa[1], qai[2] = -fa[2], qai[3] = fa[3];
    qmul(qai, fb, t);
    qmul(t, j->rest_rotation, qr);
    qnorm(qr);
    double e = 0;
    for (int i = 0; i < 3; i++) {
        double d = pb[i] + rb[i] - pa[i] - ra[i] - j->rest_translation[i];
        e += 0.5 * j->ks_t[1] * d * d;
    }
    return e + 0.5 * j->ks_r[1] * qangle2(qr);
}

/* the joint interaction of w (its last) and its force into out (12 per joint), linearised there */
static const pf_springset *joint_force(pf_world *w, double *out)
{
    const pf_springset *s = w->inter.v[w->inter.n - 1];
    ck_assert_int_eq(s->kind, PF_INTERACTION_JOINTS);
    const pf_object *a = w->obj.v[s->oa], *b = w->obj.v[s->ob];
    pf_interaction_of(s)->force(s, a->x, b->x, a->v, b->v, out, 1);
    return s;
}

static void set_pose(pf_world *w, pf_object_id o, const double p[3], const double q[4])
{
    ck_assert_int_eq(pf_world_set_rigid_state(w, o, p, q, NULL, NULL), PF_OK);
}

/* Force and torque on each body = minus the energy's gradient: translations by central differences, rotations by
 * small turns of the body about each world axis. */
START_TEST(test_force_is_minus_energy_gradient)
{
    const double zero[3] = {0, 0, 0};
    pf_world *w = new_world_dg(PF_EXEC_SEQ, 1, 0.01, zero);
    double pa[3] = {0.1, -0.2, 0.3}, qa[4] = {0.2, -0.1, 0.3, 0.9}, pb[3] = {1.3, 0.4, -0.1},
           qb[4] = {-0.3, 0.5, 0.1, 0.8};
    qnorm(qa), qnorm(qb);
    pf_object_id a = add_body(w, pa, qa, 1, PF_SOLVER_IMPLICIT_EULER), b = add_body(w, pb, qb, 2,
                                                                                    PF_SOLVER_IMPLICIT_EULER);
    pf_joint_spring j = rigid_joint(300, 70, (const double[3]){0.5, 0.1, -0.2}, (const double[3]){-0.4, 0.2, 0.3});
    j.frame_a[0] = 0.3, j.frame_a[3] = 1, j.frame_b[1] = -0.2, j.frame_b[3] = 1;
    qnorm(j.frame_a), qnorm(j.frame_b);
    j.rest_translation[0] = 0.2;
    j.rest_rotation[2] = 0.1, j.rest_rotation[3] = 1;
    qnorm(j.rest_rotation);
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), PF_OK);
    double out[13];
    joint_force(w, out);
    const double eps = 1e-6;
    for (int side = 0; side < 2; side++)
        for (int d = 0; d < 6; d++) {
            double e[2];
            for (int sg = 0; sg < 2; sg++) {
                double p[2][3], q[2][4];
                memcpy(p[0], pa, sizeof pa), memcpy(p[1], pb, sizeof pb);
                memcpy(q[0], qa, sizeof qa), memcpy(q[1], qb, sizeof qb);
                double step[3] = {0, 0, 0};
                step[d % 3] = sg ? -eps : eps;
                if (d < 3) p[side][d] += step[d];
                else qturn(q[side], step);
                e[sg] = joint_energy(&j, p[0], q[0], p[1], q[1]);
            }
            double grad = (e[0] - e[1]) / (2 * eps), f = out[6 * side + d];
            ck_assert_msg(fabs(f + grad) <= 1e-6 * (1 + fabs(grad)), "body %c dof %d: force %.12g, -dE %.12g",
                          'a' + side, d, f, -grad);
        }
    pf_world_destroy(w);
}
END_TEST

/* The df tangent (fact 1) against central differences of the force, at a rest pose (where SOFA's tangent is the
 * force's derivative: the terms it leaves out multiply the force, 0 there) with anchors, frames and a soft free
 * axis; and for translations at a stretched pose, where the force is linear in them. */
static void check_tangent(int stretched)
{
    const double zero[3] = {0, 0, 0};
    pf_world *w = new_world_dg(PF_EXEC_SEQ, 1, 0.01, zero);
    double pa[3] = {0, 0, 0}, qa[4] = {0.2, -0.1, 0.3, 0.9}, qb[4] = {-0.3, 0.5, 0.1, 0.8};
    qnorm(qa), qnorm(qb);
    pf_joint_spring j = rigid_joint(300, 70, (const double[3]){0.5, 0.1, -0.2}, (const double[3]){-0.4, 0.2, 0.3});
    j.free_axis[1] = 1, j.ks_t[0] = 40; /* a soft translation axis of frame a */
    /* frame b's orientation in body b so that the frames coincide at rest: fb = qb^-1 qa */
    double qbi[4] = {-qb[0], -qb[1], -qb[2], qb[3]};
    qmul(qbi, qa, j.frame_b);
    double ra[3], rb[3], pb[3];
    qrot(qa, j.anchor_a, ra);
    qrot(qb, j.anchor_b, rb);
    for (int i = 0; i < 3; i++) pb[i] = pa[i] + ra[i] - rb[i] + (stretched ? 0.1 * (i + 1) : 0);
    pf_object_id a = add_body(w, pa, qa, 1, PF_SOLVER_IMPLICIT_EULER), b = add_body(w, pb, qb, 2,
                                                                                    PF_SOLVER_IMPLICIT_EULER);
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), PF_OK);
    double f0[13];
    const pf_springset *s = joint_force(w, f0);
    const double eps = 1e-6;
    for (int side = 0; side < 2; side++)
        for (int d = 0; d < (stretched ? 3 : 6); d++) {
            double in[2][6] = {{0}}, df[13], fp[13], fm[13];
            in[side][d] = 1;
            pf_interaction_of(s)->dforce(s, in[0], in[1], df, PF_PHASE_DF, 1.0);
            for (int sg = 0; sg < 2; sg++) {
                double p[3], q[4], step[3] = {0, 0, 0};
                memcpy(p, side ? pb : pa, sizeof p);
                memcpy(q, side ? qb : qa, sizeof q);
                step[d % 3] = sg ? -eps : eps;
                if (d < 3) p[d] += step[d];
                else qturn(q, step);
                set_pose(w, side ? b : a, p, q);
                joint_force(w, sg ? fm : fp);
            }
            set_pose(w, side ? b : a, side ? pb : pa, side ? qb : qa);
            joint_force(w, f0); /* the linearisation back at the pose */
            for (int r = 0; r < 12; r++) {
                double fd = (fp[r] - fm[r]) / (2 * eps);
                ck_assert_msg(fabs(df[r] - fd) <= 1e-5 * (1 + fabs(fd)), "%s: body %c dof %d, row %d: df %.10g, "
                              "differences %.10g", stretched ? "stretched" : "rest", 'a' + side, d, r, df[r], fd);
            }
        }
    pf_world_destroy(w);
}

START_TEST(test_tangent_at_rest)
{
    check_tangent(0);
}
END_TEST

START_TEST(test_tangent_translations_stretched)
{
    check_tangent(1);
}
END_TEST

/* Body b (mass m) hangs from fixed body a by a joint at its com with translation stiffness k: it settles m g / k
 * below (damped by KD, implicit Euler). */
START_TEST(test_static_stretch)
{
    const double g[3] = {0, -9.81, 0}, m = 2, k = 3000;
    pf_world *w = new_world_dg(PF_EXEC_SEQ, 1, 0.01, g);
    pf_object_id a = add_body(w, (const double[3]){0, 0, 0}, NULL, 1, PF_SOLVER_IMPLICIT_EULER);
    pf_object_id b = add_body(w, (const double[3]){0, 0, 0}, NULL, m, PF_SOLVER_IMPLICIT_EULER);
    hold(w, a);
    pf_joint_spring j = pf_joint_spring_default(); /* SOFA's default: a ball joint, translations held */
    j.ks_t[1] = k, j.kd = 20;
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1500), PF_OK);
    double p[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, b, p, NULL, NULL, NULL), PF_OK);
    ck_assert_double_eq_tol(p[1], -m * 9.81 / k, 1e-9);
    ck_assert_double_eq_tol(p[0], 0, 1e-12);
    ck_assert_double_eq_tol(p[2], 0, 1e-12);
    pf_world_destroy(w);
}
END_TEST

/* Body b under a constant torque T about z, held by a joint of rotational stiffness kr to fixed body a, settles at
 * the angle T / kr about z (the torsion's law is linear in the rotation vector). */
START_TEST(test_rotational_spring_angle)
{
    const double zero[3] = {0, 0, 0}, T = 30, kr = 100;
    pf_world *w = new_world_dg(PF_EXEC_SEQ, 1, 0.01, zero);
    pf_object_id a = add_body(w, zero, NULL, 1, PF_SOLVER_IMPLICIT_EULER);
    pf_object_id b = add_body(w, zero, NULL, 1, PF_SOLVER_IMPLICIT_EULER);
    hold(w, a);
    pf_joint_spring j = rigid_joint(1e4, kr, NULL, NULL);
    j.kd = 2;
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), PF_OK);
    pf_constant_force_def c = pf_constant_force_default_def();
    uint32_t pt = 1;
    c.points = &pt, c.npoints = 1, c.force[2] = T;
    ck_assert_int_eq(pf_world_add_constant_force(w, b, &c, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 2000), PF_OK);
    double q[4];
    ck_assert_int_eq(pf_world_get_rigid_state(w, b, NULL, q, NULL, NULL), PF_OK);
    double angle = 2 * atan2(q[2], q[3]);
    ck_assert_double_eq_tol(angle, T / kr, 1e-9);
    ck_assert_double_eq_tol(q[0], 0, 1e-12);
    ck_assert_double_eq_tol(q[1], 0, 1e-12);
    pf_world_destroy(w);
}
END_TEST

/* A free rotation axis (FREE_AXIS 0 0 0 0 0 1, soft stiffness 0) lets the body turn about it with no torque:
 * omega_z = T t / I_zz after t, for either integrator, and the other axes stay still. */
static void free_axis_turns(pf_solver_kind kind)
{
    const double zero[3] = {0, 0, 0}, T = 0.5, h = 0.01;
    const int N = 50;
    pf_world *w = new_world_dg(PF_EXEC_SEQ, 1, h, zero);
    pf_object_id a = add_body(w, zero, NULL, 1, kind);
    pf_object_id b = add_body(w, zero, NULL, 2, kind);
    hold(w, a);
    pf_joint_spring j = rigid_joint(1e4, 1e3, NULL, NULL);
    j.free_axis[5] = 1;
    j.limits[4] = -10, j.limits[5] = 10;
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), PF_OK);
    pf_constant_force_def c = pf_constant_force_default_def();
    uint32_t pt = 1;
    c.points = &pt, c.npoints = 1, c.force[2] = T;
    ck_assert_int_eq(pf_world_add_constant_force(w, b, &c, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, N), PF_OK);
    double om[3], q[4];
    ck_assert_int_eq(pf_world_get_rigid_state(w, b, NULL, q, NULL, om), PF_OK);
    ck_assert_double_eq_tol(om[2], T * N * h / (0.5 * 2), 1e-12);
    ck_assert_double_eq_tol(om[0], 0, 1e-12);
    ck_assert_double_eq_tol(om[1], 0, 1e-12);
    /* the angle: h times the step-end speeds h T k / I, k = 1 .. N (both integrators move by the new speed) */
    ck_assert_double_eq_tol(2 * atan2(q[2], q[3]), h * h * T / (0.5 * 2) * N * (N + 1) / 2, 1e-9);
    pf_world_destroy(w);
}

START_TEST(test_free_axis_explicit)
{
    free_axis_turns(PF_SOLVER_EXPLICIT_EULER);
}
END_TEST

START_TEST(test_free_axis_implicit)
{
    free_axis_turns(PF_SOLVER_IMPLICIT_EULER);
}
END_TEST

/* Past its limits a free axis pulls with KS_B on the excess (SOFA's projectTorsion): under a torque T about the free
 * z axis, limits [-0.2, 0.2], body b settles at 0.2 + T / KS_B; KS_B 0 is SOFA's default, hard KS_R / 100. */
static void limit_angle(double ks_b, double want_kb)
{
    const double zero[3] = {0, 0, 0}, T = 3;
    pf_world *w = new_world_dg(PF_EXEC_SEQ, 1, 0.01, zero);
    pf_object_id a = add_body(w, zero, NULL, 1, PF_SOLVER_IMPLICIT_EULER);
    pf_object_id b = add_body(w, zero, NULL, 1, PF_SOLVER_IMPLICIT_EULER);
    hold(w, a);
    pf_joint_spring j = rigid_joint(1e4, 2000, NULL, NULL);
    j.free_axis[5] = 1, j.ks_b = ks_b, j.kd = 2;
    j.limits[4] = -0.2, j.limits[5] = 0.2;
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), PF_OK);
    pf_constant_force_def c = pf_constant_force_default_def();
    uint32_t pt = 1;
    c.points = &pt, c.npoints = 1, c.force[2] = T;
    ck_assert_int_eq(pf_world_add_constant_force(w, b, &c, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 3000), PF_OK);
    double q[4];
    ck_assert_int_eq(pf_world_get_rigid_state(w, b, NULL, q, NULL, NULL), PF_OK);
    ck_assert_double_eq_tol(2 * atan2(q[2], q[3]), 0.2 + T / want_kb, 1e-8);
    pf_world_destroy(w);
}

START_TEST(test_limits_block)
{
    limit_angle(50, 50);
    limit_angle(0, 2000.0 / 100);
}
END_TEST

/* Two free bodies joined off-centre, set moving: explicit and implicit Euler at h = 1e-5 agree to O(h). */
static void run_pair(pf_solver_kind kind, double h, double p[3], double q[4])
{
    const double zero[3] = {0, 0, 0};
    pf_world *w = new_world_dg(PF_EXEC_SEQ, 1, h, zero);
    double qa[4] = {0.1, 0.2, 0, 1};
    qnorm(qa);
    pf_object_id a = add_body(w, zero, qa, 1, kind);
    pf_object_id b = add_body(w, (const double[3]){1, 0.1, 0}, NULL, 1.5, kind);
    pf_joint_spring j = rigid_joint(200, 50, (const double[3]){0.5, 0, 0}, (const double[3]){-0.4, 0, 0.1});
    j.kd = 0.5;
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), PF_OK);
    ck_assert_int_eq(pf_world_set_rigid_state(w, b, NULL, NULL, (const double[3]){0, 0.3, 0.2},
                                              (const double[3]){0.5, -0.4, 1}),
                     PF_OK);
    ck_assert_int_eq(pf_world_step(w, (uint32_t)(0.2 / h + 0.5)), PF_OK);
    ck_assert_int_eq(pf_world_get_rigid_state(w, b, p, q, NULL, NULL), PF_OK);
    pf_world_destroy(w);
}

START_TEST(test_explicit_matches_implicit)
{
    double pe[3], qe[4], pi[3], qi[4], p0[3], q0[4];
    run_pair(PF_SOLVER_EXPLICIT_EULER, 1e-5, pe, qe);
    run_pair(PF_SOLVER_IMPLICIT_EULER, 1e-5, pi, qi);
    run_pair(PF_SOLVER_EXPLICIT_EULER, 1e-3, p0, q0);
    double d = 0, d0 = 0;
    for (int i = 0; i < 3; i++) d += fabs(pe[i] - pi[i]), d0 += fabs(pe[i] - p0[i]);
    for (int i = 0; i < 4; i++) d += fabs(qe[i] - qi[i]);
    ck_assert_msg(d < 1e-3, "explicit and implicit differ by %g", d);
    ck_assert_msg(d0 > 10 * d, "h = 1e-3 differs by %g only", d0); /* the step matters: the agreement is h's */
    ck_assert(fabs(pe[1] - 0.1) > 0.01); /* it moved */
}
END_TEST

/* Removing a jointed body drops the joint: the other body then falls freely (v = g t) */
START_TEST(test_remove_body)
{
    const double g[3] = {0, -9.81, 0};
    pf_world *w = new_world_dg(PF_EXEC_SEQ, 1, 0.01, g);
    pf_object_id a = add_body(w, (const double[3]){0, 0, 0}, NULL, 1, PF_SOLVER_IMPLICIT_EULER);
    pf_object_id b = add_body(w, (const double[3]){0, 0, 0}, NULL, 1, PF_SOLVER_IMPLICIT_EULER);
    hold(w, a);
    pf_joint_spring j = rigid_joint(1e3, 1e3, NULL, NULL);
    pf_interaction_id id;
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, &j, 1, &id), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
    ck_assert_int_eq(pf_world_remove_object(w, a), PF_OK);
    ck_assert_int_eq(pf_world_remove_interaction(w, id), PF_EINVAL); /* gone with its body */
    double v0[3], v1[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, b, NULL, NULL, v0, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 10), PF_OK);
    ck_assert_int_eq(pf_world_get_rigid_state(w, b, NULL, NULL, v1, NULL), PF_OK);
    ck_assert_double_eq_tol(v1[1] - v0[1], -9.81 * 0.1, 1e-12);
    pf_world_destroy(w);
}
END_TEST

/* SOFA's Rigid3 mass: the given inertia is the body's, unchanged by its shape; bad ones are refused */
START_TEST(test_given_inertia)
{
    pf_world *w = new_world(PF_EXEC_SEQ, 1);
    pf_rigid_def r = pf_rigid_default_def();
    r.mass = 3;
    const double I[9] = {1, 0.1, 0, 0.1, 2, 0, 0, 0, 3};
    memcpy(r.inertia, I, sizeof I);
    pf_object_id o;
    ck_assert_int_eq(pf_world_add_rigid(w, &r, &o), PF_OK);
    double m, body[9];
    ck_assert_int_eq(pf_world_get_rigid_inertia(w, o, &m, body, NULL), PF_OK);
    ck_assert(m == 3);
    for (int i = 0; i < 9; i++) ck_assert(body[i] == I[i]);
    r.inertia[1] = 0.2; /* not symmetric */
    ck_assert_int_eq(pf_world_add_rigid(w, &r, NULL), PF_EINVAL);
    r.inertia[1] = 0.1, r.mass = 0; /* no mass */
    ck_assert_int_eq(pf_world_add_rigid(w, &r, NULL), PF_EINVAL);
    r.mass = 1, r.inertia[0] = -1; /* not positive definite */
    ck_assert_int_eq(pf_world_add_rigid(w, &r, NULL), PF_EINVAL);
    /* a positive diagonal and determinant, yet eigenvalues 5, -1, -1 */
    const double indefinite[9] = {1, 2, 2, 2, 1, 2, 2, 2, 1};
    memcpy(r.inertia, indefinite, sizeof indefinite);
    ck_assert_int_eq(pf_world_add_rigid(w, &r, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "not positive definite"), "%s", pf_last_error());
    pf_world_destroy(w);
}
END_TEST

START_TEST(test_bad_arguments)
{
    pf_world *w = new_world(PF_EXEC_SEQ, 1);
    const double zero[3] = {0, 0, 0};
    pf_object_id a = add_body(w, zero, NULL, 1, PF_SOLVER_IMPLICIT_EULER);
    pf_object_id b = add_body(w, zero, NULL, 1, PF_SOLVER_IMPLICIT_EULER);
    pf_object_def od = pf_object_default_def();
    od.points = 2;
    pf_object_id p;
    ck_assert_int_eq(pf_world_add_object(w, &od, &p), PF_OK);
    pf_joint_spring j = pf_joint_spring_default();
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, a, &j, 1, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, p, &j, 1, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, NULL, 1, NULL), PF_EINVAL);
    j.ks_t[1] = -1;
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), PF_EINVAL);
    j = pf_joint_spring_default();
    j.limits[2] = 1, j.limits[3] = -1;
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), PF_EINVAL);
    j = pf_joint_spring_default();
    j.frame_b[3] = 0;
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), PF_EINVAL);
    j = pf_joint_spring_default();
    j.kd = NAN;
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK); /* nothing half-added */
    pf_world_destroy(w);
}
END_TEST

/* a chain of 4 bodies, the first held, joints with free axes, limits and damping, under gravity */
static uint64_t chain_hash(pf_executor e, int workers)
{
    const double g[3] = {0, -9.81, 0};
    pf_world *wd = NULL;
    pf_world_def d = test_world_def(e, workers);
    d.dt = 0.01;
    memcpy(d.gravity, g, sizeof g);
    wd = create_world(&d);
    pf_object_id o[4];
    for (int k = 0; k < 4; k++) {
        double q[4] = {0.1 * k, 0, 0.05, 1};
        qnorm(q);
        o[k] = add_body(wd, (const double[3]){2.0 * k, 0, 0}, q, 1, PF_SOLVER_IMPLICIT_EULER);
    }
    hold(wd, o[0]);
    for (int k = 0; k < 3; k++) {
        pf_joint_spring j = pf_joint_spring_default();
        j.anchor_a[0] = 1, j.anchor_b[0] = -1;
        j.free_axis[3] = 0, j.free_axis[5] = 0; /* a pivot about y */
        j.ks_t[1] = 3e4, j.ks_r[1] = 2e5, j.kd = 1;
        j.limits[2] = -1.57, j.limits[3] = 1.57;
        ck_assert_int_eq(pf_world_add_joint_springs(wd, o[k], o[k + 1], &j, 1, NULL), PF_OK);
    }
    ck_assert_int_eq(pf_world_step(wd, 30), PF_OK);
    uint64_t h = pf_world_state_hash(wd);
    pf_world_destroy(wd);
    return h;
}

START_TEST(test_every_executor)
{
    uint64_t ref = chain_hash(PF_EXEC_SEQ, 1);
    for (int e = 0; e < PF_EXEC_COUNT; e++)
        for (int workers = 1; workers <= 3; workers++) {
            uint64_t h = chain_hash((pf_executor)e, workers);
            ck_assert_msg(h == ref, "%s with %d workers: %016llx, seq %016llx", pf_executor_name((pf_executor)e),
                          workers, (unsigned long long)h, (unsigned long long)ref);
        }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_joints");
    TCase *t = tcase_create("joints");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_force_is_minus_energy_gradient);
    tcase_add_test(t, test_tangent_at_rest);
    tcase_add_test(t, test_tangent_translations_stretched);
    tcase_add_test(t, test_static_stretch);
    tcase_add_test(t, test_rotational_spring_angle);
    tcase_add_test(t, test_free_axis_explicit);
    tcase_add_test(t, test_free_axis_implicit);
    tcase_add_test(t, test_limits_block);
    tcase_add_test(t, test_explicit_matches_implicit);
    tcase_add_test(t, test_remove_body);
    tcase_add_test(t, test_given_inertia);
    tcase_add_test(t, test_bad_arguments);
    tcase_add_test(t, test_every_executor);
    suite_add_tcase(s, t);
    return s;
}
