/* Joint springs between frames of two rigid bodies (SOFA JointSpringForceField, JointSpringForceField.inl
 * addSpringForce / addSpringDForce, each frame a Rigid->Rigid RigidMapping child of its body) as an interaction
 * kind (interaction.h): per joint a force and a torque on each body's com (points 0 and 1 of a rigid object). */
#include "interaction.h"
#include "rigid.h"
#include "rotation.h"
#include "world_guard.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

/* A joint as the force reads it: the definition with its quaternions in the state's order (w, x, y, z). */
typedef struct joint {
    double la[3], lb[3]; /* anchors in the body frames */
    double fa[4], fb[4]; /* the frames' orientations in the body frames */
    double rest_t[3], rest_r[4];
    int free[6];
    double kt[2], kr[2], kb, kd, lim[6];
} joint;

typedef struct pf_jointset {
    joint *j;
} pf_jointset;

/* The linearisation the force leaves for df (the springset's jac), per joint: ref = R_a (the rotation of frame a),
 * KT, KR and the two lever arms (world frame). */
enum { LIN_R = 0, LIN_KT = 9, LIN_KR = 12, LIN_RA = 15, LIN_RB = 18, LIN_PER = 21 };

static void quat_mul(const double a[4], const double b[4], double o[4])
{
    o[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    o[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    o[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    o[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

/* The rotation vector of unit quaternion q, angle in [-pi, pi] (SOFA's quatToAxis, then its modulo 2 pi). */
static void rotation_vector(const double q[4], double t[3])
{
    double sg = q[0] < 0 ? -1.0 : 1.0, w = sg * q[0];
    double s = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double f = s > 1e-300 ? 2 * atan2(s, w) / s : 2.0; /* 2 atan2(s, w) / s -> 2 as s -> 0 */
    for (int i = 0; i < 3; i++) t[i] = sg * f * q[1 + i];
}

/* v = R (k . R^T u) */
static void rotated_diag(const double R[9], const double k[3], const double u[3], double v[3])
{
    double l[3];
    for (int i = 0; i < 3; i++) l[i] = k[i] * (R[i] * u[0] + R[3 + i] * u[1] + R[6 + i] * u[2]);
    pf_mat3_vec(R, l, v);
}

/* SOFA's projectTorsion: the part of the torsion within the free axes' limits */
static void lawful_torsion(const joint *j, const double t[3], double law[3])
{
    for (int i = 0; i < 3; i++) {
        double lo = j->lim[2 * i], hi = j->lim[2 * i + 1];
        if (!j->free[3 + i]) law[i] = 0;
        else if (t[i] > lo && t[i] < hi) law[i] = t[i];
        else if (t[i] > 0) law[i] = t[i] - hi < lo + 2 * M_PI - t[i] ? hi : lo;
        else law[i] = t[i] - hi + 2 * M_PI < lo - t[i] ? hi : lo;
    }
}

/* The torque in frame a's axes, fR0 of SOFA's addSpringForce, for torsion t of the relative orientation qr; kr
 * receives the stiffness of each axis (df's). */
static void joint_torque(const joint *j, const double qr[4], const double t[3], double kr[3], double f[3])
{
    const int *fr = j->free + 3;
    for (int i = 0; i < 3; i++) kr[i] = fr[i] ? j->kr[0] : j->kr[1];
    int nfree = fr[0] + fr[1] + fr[2];
    if (nfree == 0) {
        for (int i = 0; i < 3; i++) f[i] = t[i] * kr[i];
        return;
    }
    if (nfree == 1) { /* a pivot about free axis p within its limits: the others pull back by its tilt */
        int p = fr[0] ? 0 : fr[1] ? 1 : 2;
        if (t[p] > j->lim[2 * p] && t[p] < j->lim[2 * p + 1]) {
            double M[9];
            pf_quat_to_mat(qr, M);
            int a = (p + 1) % 3, b = (p + 2) % 3;
            /* e_p x (M e_p) = M[a][p] e_b - M[b][p] e_a, times the tilt angle */
            double thet = atan2(sqrt(M[3 * a + p] * M[3 * a + p] + M[3 * b + p] * M[3 * b + p]), M[4 * p]);
            f[p] = t[p] * kr[p];
            f[a] = -M[3 * b + p] * thet * kr[a];
            f[b] = M[3 * a + p] * thet * kr[b];
            return;
        }
    }
    double law[3], ex[3];
    lawful_torsion(j, t, law);
    for (int i = 0; i < 3; i++) ex[i] = t[i] - law[i];
    double psi = sqrt(ex[0] * ex[0] + ex[1] * ex[1] + ex[2] * ex[2]);
    if (psi > 0) { /* the excess's angle taken modulo 2 pi, as SOFA does */
        double wrapped = psi;
        while (wrapped > M_PI) wrapped -= 2 * M_PI;
        for (int i = 0; i < 3; i++) ex[i] *= wrapped / psi;
    }
    for (int i = 0; i < 3; i++) {
        if (fr[i] && t[i] != law[i]) {
            kr[i] = j->kb;
            f[i] = ex[i] * kr[i];
        } else {
            f[i] = t[i] * kr[i];
        }
    }
}

/* Joint j between bodies at (xa, va) and (xb, vb): the force and torque on a's com (ga) and b's (gb), and its
 * linearisation when lin is given. */
static void joint_force(const joint *j, const double *xa, const double *xb, const double *va, const double *vb,
                        double ga[6], double gb[6], double *lin)
{
    double Ra[9], Rb[9], ra[3], rb[3], qa[4], qb[4], R[9];
    pf_rigid_rotation(xa, Ra);
    pf_rigid_rotation(xb, Rb);
    pf_mat3_vec(Ra, j->la, ra);
    pf_mat3_vec(Rb, j->lb, rb);
    quat_mul(xa + PF_RIGID_QUAT, j->fa, qa);
    quat_mul(xb + PF_RIGID_QUAT, j->fb, qb);
    pf_quat_to_mat(qa, R);
    double wra[3], wrb[3], dc[3], dv[3], dw[3];
    pf_cross(va + 3, ra, wra);
    pf_cross(vb + 3, rb, wrb);
    for (int i = 0; i < 3; i++) {
        dc[i] = (xb[i] + rb[i]) - (xa[i] + ra[i]) - j->rest_t[i];
        dv[i] = (vb[i] + wrb[i]) - (va[i] + wra[i]);
        dw[i] = vb[3 + i] - va[3 + i];
    }
    /* SOFA's Rigid3 difference: q_a^-1 q_b, then the rest rotation */
    double qai[4] = {qa[0], -qa[1], -qa[2], -qa[3]}, t4[4], qr[4], tors[3];
    quat_mul(qai, qb, t4);
    quat_mul(t4, j->rest_r, qr);
    pf_quat_normalize(qr);
    rotation_vector(qr, tors);
    double kt[3], kr[3], fT[3], f0[3], fR[3];
    for (int i = 0; i < 3; i++) kt[i] = j->free[i] ? j->kt[0] : j->kt[1];
    rotated_diag(R, kt, dc, fT);
    joint_torque(j, qr, tors, kr, f0);
    pf_mat3_vec(R, f0, fR);
    for (int i = 0; i < 3; i++) {
        fT[i] += j->kd * dv[i];
        fR[i] += j->kd * dw[i];
    }
    double ta[3], tb[3];
    pf_cross(ra, fT, ta);
    pf_cross(rb, fT, tb);
    for (int i = 0; i < 3; i++) {
        ga[i] = fT[i], ga[3 + i] = fR[i] + ta[i];
        gb[i] = -fT[i], gb[3 + i] = -fR[i] - tb[i];
    }
    if (!lin) return;
    memcpy(lin + LIN_R, R, sizeof R);
    memcpy(lin + LIN_KT, kt, sizeof kt);
    memcpy(lin + LIN_KR, kr, sizeof kr);
    memcpy(lin + LIN_RA, ra, sizeof ra);
    memcpy(lin + LIN_RB, rb, sizeof rb);
}

/* ---- the interaction kind: per joint 6 values (force, torque) for body a, then 6 per joint for body b ---- */

static void joints_force(const pf_springset *s, const double *xa, const double *xb, const double *va,
                         const double *vb, void *out, int want_jac)
{
    double *oa = out, *ob = oa + 6 * (size_t)s->n;
    for (uint32_t k = 0; k < s->n; k++)
        joint_force(&s->joints->j[k], xa, xb, va, vb, oa + 6 * (size_t)k, ob + 6 * (size_t)k,
                    want_jac ? s->jac + LIN_PER * (size_t)k : NULL);
}

/* SOFA's addSpringDForce through both RigidMappings: the frames move by d = dv + dw x r, turn by dw; df = fact
 * R diag(KT) R^T (d_b - d_a), dR = fact R diag(KR) R^T (dw_b - dw_a), on a; the opposite on b. */
static void joints_dforce(const pf_springset *s, const double *ina, const double *inb, void *out, int phase,
                          double fact)
{
    (void)phase; /* no damping term: the same operator for every phase (SOFA's) */
    double *oa = out, *ob = oa + 6 * (size_t)s->n;
    for (uint32_t k = 0; k < s->n; k++) {
        const double *lin = s->jac + LIN_PER * (size_t)k;
        double wa[3], wb[3], d[3], dth[3], df[3], dR[3], ta[3], tb[3];
        pf_cross(ina + 3, lin + LIN_RA, wa);
        pf_cross(inb + 3, lin + LIN_RB, wb);
        for (int i = 0; i < 3; i++) {
            d[i] = (inb[i] + wb[i]) - (ina[i] + wa[i]);
            dth[i] = inb[3 + i] - ina[3 + i];
        }
        rotated_diag(lin + LIN_R, lin + LIN_KT, d, df);
        rotated_diag(lin + LIN_R, lin + LIN_KR, dth, dR);
        for (int i = 0; i < 3; i++) df[i] *= fact, dR[i] *= fact;
        pf_cross(lin + LIN_RA, df, ta);
        pf_cross(lin + LIN_RB, df, tb);
        double *ga = oa + 6 * (size_t)k, *gb = ob + 6 * (size_t)k;
        for (int i = 0; i < 3; i++) {
            ga[i] = df[i], ga[3 + i] = dR[i] + ta[i];
            gb[i] = -df[i], gb[3 + i] = -dR[i] - tb[i];
        }
    }
}

/* vec += the side's forces (point 0) and torques (point 1) */
static void joints_gather(const pf_springset *s, int side, const pf_object *o, const void *out_datum, double *vec,
                          const pf_point_filter *keep)
{
    (void)o;
    const double *out = (const double *)out_datum + (side ? 6 * (size_t)s->n : 0);
    for (uint32_t k = 0; k < s->n; k++)
        for (int p = 0; p < 2; p++)
            if (pf_point_kept(keep, (uint32_t)p))
                for (int i = 0; i < 3; i++) vec[3 * p + i] += out[6 * (size_t)k + 3 * p + i];
}

static size_t out_per_phase(const pf_springset *s)
{
    return 12 * (size_t)s->n + 1;
}

static int joints_register(pf_graph *g, pf_springset *s, uint32_t owner)
{
    size_t per = out_per_phase(s);
    int rc = pf_graph_data(g, s->jac, (LIN_PER * (size_t)s->n + 1) * sizeof(double), owner, NULL, &s->djac);
    for (int ph = 0; ph < PF_PHASES && !rc; ph++)
        rc = pf_graph_data(g, s->out + ph * per, per * sizeof(double), owner, NULL, &s->dout[ph]);
    return rc;
}

/* a joint costs about what 10 springs do */
static double joints_cost(const pf_springset *s)
{
    return 200.0 * s->n;
}

static void joints_destroy(pf_springset *s)
{
    if (s->joints) pf_free(s->joints->j);
    pf_free(s->joints);
    pf_free(s->jac);
    pf_free(s->out);
    s->joints = NULL;
    s->jac = s->out = NULL;
}

const pf_interaction_ops pf_joints_interaction = {
    .name = "joint springs",
    .force = joints_force,
    .dforce = joints_dforce,
    .gather = joints_gather,
    .register_data = joints_register,
    .cost = joints_cost,
    .assemble = NULL, /* rigid bodies: the group is solved by CG */
    .df_reads_x = 0,  /* df reads the linearisation only */
    .destroy = joints_destroy,
};

/* ---- the public calls ---- */

pf_joint_spring pf_joint_spring_default(void)
{
    return (pf_joint_spring){.frame_a = {0, 0, 0, 1},
                             .frame_b = {0, 0, 0, 1},
                             .free_axis = {0, 0, 0, 1, 1, 1},
                             .ks_t = {0, 10000},
                             .ks_r = {0, 10000},
                             .limits = {-1e5, 1e5, -1e5, 1e5, -1e5, 1e5},
                             .rest_rotation = {0, 0, 0, 1}};
}

/* (x, y, z, w) of the API, normalised, into (w, x, y, z); 0 for the zero quaternion */
static int api_quat(const double a[4], double q[4])
{
    q[0] = a[3], q[1] = a[0], q[2] = a[1], q[3] = a[2];
    return pf_quat_normalize(q);
}

/* joints[k] of `fn` checked and turned into the force's form */
static int joint_from_def(const pf_joint_spring *d, uint32_t k, joint *j, const char *fn)
{
    char f[64];
#define CHECK_N(field, len, check)                                                                                \
    for (int i_ = 0; i_ < (len); i_++) {                                                                           \
        snprintf(f, sizeof f, "joints[%u]." #field "[%d]", k, i_);                                                \
        PF_TRY(check(d->field[i_], fn, f));                                                                        \
    }
    CHECK_N(anchor_a, 3, pf_check_finite)
    CHECK_N(anchor_b, 3, pf_check_finite)
    CHECK_N(frame_a, 4, pf_check_finite)
    CHECK_N(frame_b, 4, pf_check_finite)
    CHECK_N(rest_translation, 3, pf_check_finite)
    CHECK_N(rest_rotation, 4, pf_check_finite)
    CHECK_N(ks_t, 2, pf_check_nonnegative)
    CHECK_N(ks_r, 2, pf_check_nonnegative)
    CHECK_N(limits, 6, pf_check_finite)
#undef CHECK_N
    snprintf(f, sizeof f, "joints[%u].ks_b", k);
    PF_TRY(pf_check_nonnegative(d->ks_b, fn, f));
    snprintf(f, sizeof f, "joints[%u].kd", k);
    PF_TRY(pf_check_nonnegative(d->kd, fn, f));
    memset(j, 0, sizeof *j);
    if (!api_quat(d->frame_a, j->fa) || !api_quat(d->frame_b, j->fb) || !api_quat(d->rest_rotation, j->rest_r))
        return pf_error(PF_EINVAL, "%s: joints[%u]: a zero quaternion (frame_a, frame_b or rest_rotation)", fn, k);
    for (int i = 0; i < 3; i++)
        if (d->limits[2 * i] > d->limits[2 * i + 1])
            return pf_error(PF_EINVAL, "%s: joints[%u].limits[%d] = %g > limits[%d] = %g: min > max", fn, k, 2 * i,
                            d->limits[2 * i], 2 * i + 1, d->limits[2 * i + 1]);
    memcpy(j->la, d->anchor_a, sizeof j->la);
    memcpy(j->lb, d->anchor_b, sizeof j->lb);
    memcpy(j->rest_t, d->rest_translation, sizeof j->rest_t);
    memcpy(j->lim, d->limits, sizeof j->lim);
    for (int i = 0; i < 6; i++) j->free[i] = d->free_axis[i] != 0;
    for (int i = 0; i < 3; i++) /* SOFA's JointSpring parse: equal limits hold the axis */
        if (d->limits[2 * i] == d->limits[2 * i + 1]) j->free[3 + i] = 0;
    j->kt[0] = d->ks_t[0], j->kt[1] = d->ks_t[1];
    j->kr[0] = d->ks_r[0], j->kr[1] = d->ks_r[1];
    j->kb = d->ks_b > 0 ? d->ks_b : d->ks_r[1] / 100; /* SOFA's default blocking stiffness */
    j->kd = d->kd;
    return PF_OK;
}

int pf_world_add_joint_springs(pf_world *w, pf_object_id oa, pf_object_id ob, const pf_joint_spring *joints,
                               uint32_t n, pf_interaction_id *out)
{
    static const char fn[] = "pf_world_add_joint_springs";
    uint32_t a = oa.index, b = ob.index;
    PF_TRY(pf_world_check_pair(w, a, b, fn, "a joint joins two rigid bodies"));
    for (int e = 0; e < 2; e++) {
        const pf_object *o = w->obj.v[e ? b : a];
        if (o->kind != PF_OBJECT_RIGID)
            return pf_error(PF_EINVAL, "%s: object %u is %s, not a rigid body", fn, o->id,
                            pf_object_kind_noun(o->kind));
    }
    if (n > 0) PF_TRY(pf_check_given(joints, fn, "joints"));
    PF_TRY(pf_check_size(n, LIN_PER * sizeof(double), fn, "joints"));
    PF_TRY(pf_world_reserve_interaction(w, fn));
    pf_springset *s = pf_calloc(1, sizeof *s);
    if (!s) return pf_error(PF_ENOMEM, "out of memory");
    *s = (pf_springset){.kind = PF_INTERACTION_JOINTS, .oa = a, .ob = b, .n = n};
    s->joints = pf_calloc(1, sizeof *s->joints);
    if (s->joints) s->joints->j = pf_calloc((size_t)(n ? n : 1), sizeof *s->joints->j);
    s->jac = pf_calloc(LIN_PER * (size_t)n + 1, sizeof *s->jac);
    s->out = pf_calloc(PF_PHASES * out_per_phase(s), sizeof *s->out);
    int rc = !s->joints || !s->joints->j || !s->jac || !s->out ? pf_error(PF_ENOMEM, "out of memory for %u joints", n)
                                                               : PF_OK;
    for (uint32_t k = 0; k < n && !rc; k++) rc = joint_from_def(&joints[k], k, &s->joints->j[k], fn);
    if (rc) {
        joints_destroy(s);
        pf_free(s);
        return rc;
    }
    pf_world_push_interaction(w, s, out);
    return PF_OK;
}
