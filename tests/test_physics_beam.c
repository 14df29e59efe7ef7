/* Beams of rigid frames (physics/beam*.c, SOFA BeamFEMForceField): a cantilever's tip under a point load and
 * under its own weight against Euler-Bernoulli's P L^3 / (3 E I) and w L^4 / (8 E I) (static solve, and implicit
 * Euler settled by damping), the twist of a tip torque against T L / (G J), a free beam translating or rigidly
 * rotated without strain, the state bitwise the same for every executor and worker count and across a
 * checkpoint, and the refusals of bad definitions. */
#include "check_main.h"
#include "world_fixture.h"

#include "scene_files.h"

#include "physflow/physics.h"
#include "physflow/scene.h"
#include "physics/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAXF = 64 };

static pf_world *make_world(pf_executor ex, int workers, double gz)
{
    pf_world_def d = test_world_def(ex, workers);
    d.gravity[0] = d.gravity[1] = 0;
    d.gravity[2] = gz;
    return create_world(&d);
}

/* a straight beam of n frames from the origin along x over length L, frame 0 fixed, identity orientations */
typedef struct cantilever {
    double pos[3 * MAXF], masses[MAXF];
    uint32_t edges[2 * MAXF], fixed;
    pf_beam_def def;
} cantilever;

static void cantilever_def(cantilever *c, uint32_t n, double L, double r, double E, double nu)
{
    c->def = pf_beam_default_def();
    for (uint32_t k = 0; k < n; k++) {
        c->pos[3 * k] = L * k / (n - 1);
        c->pos[3 * k + 1] = c->pos[3 * k + 2] = 0;
        c->masses[k] = 0.01;
    }
    for (uint32_t e = 0; e + 1 < n; e++) c->edges[2 * e] = e, c->edges[2 * e + 1] = e + 1;
    c->fixed = 0;
    c->def.frames = n;
    c->def.positions = c->pos;
    c->def.edges = c->edges;
    c->def.nedges = n - 1;
    c->def.radius = r;
    c->def.young_modulus = E;
    c->def.poisson_ratio = nu;
    c->def.frame_masses = c->masses;
    c->def.inertia[0] = c->def.inertia[4] = c->def.inertia[8] = 1e-6;
    c->def.fixed = &c->fixed;
    c->def.nfixed = 1;
}

static void tip_state(pf_world *w, pf_object_id id, uint32_t n, double p[3], double q[4])
{
    double pos[3 * MAXF], ori[4 * MAXF];
    uint32_t frames = 0;
    ck_assert_int_eq(pf_world_get_beam_state(w, id, pos, ori, NULL, NULL, &frames), PF_OK);
    ck_assert_uint_eq(frames, n);
    memcpy(p, pos + 3 * (n - 1), 3 * sizeof *p);
    memcpy(q, ori + 4 * (n - 1), 4 * sizeof *q);
}

static void add_tip_load(pf_world *w, pf_object_id id, uint32_t point, double fx, double fy, double fz)
{
    pf_constant_force_def cf = pf_constant_force_default_def();
    cf.points = &point;
    cf.npoints = 1;
    cf.force[0] = fx, cf.force[1] = fy, cf.force[2] = fz;
    ck_assert_msg(pf_world_add_constant_force(w, id, &cf, NULL) == PF_OK, "%s", pf_last_error());
}

/* A cantilever (L = 1 m, r = 1 cm, E = 2 GPa: E I = 15.7 N m^2) with a tip load P = 0.05 N down, solved by static
 * Newton steps: the tip sinks P L^3 / (3 E I) and turns by P L^2 / (2 E I) about y (cubic beam elements are exact
 * for point loads at nodes; the load keeps the rotation small, 0.16 %, so the corotational answer is the linear
 * one within 1e-4) */
START_TEST(test_cantilever_tip_load)
{
    const double L = 1, r = 0.01, E = 2e9, P = 0.05, I = M_PI * r * r * r * r / 4;
    for (uint32_t n = 2; n <= 21; n += 19) {
        cantilever c;
        cantilever_def(&c, n, L, r, E, 0.3);
        c.def.solver.kind = PF_SOLVER_STATIC;
        pf_world *w = make_world(PF_EXEC_SEQ, 1, 0);
        pf_object_id id;
        ck_assert_msg(pf_world_add_beam(w, &c.def, &id) == PF_OK, "%s", pf_last_error());
        add_tip_load(w, id, 2 * (n - 1), 0, 0, -P);
        ck_assert_msg(pf_world_step(w, 10) == PF_OK, "%s", pf_last_error());
        double p[3], q[4];
        tip_state(w, id, n, p, q);
        double want = P * L * L * L / (3 * E * I), got = -p[2];
        ck_assert_msg(fabs(got - want) <= 1e-3 * want, "n %u: tip deflection %.9g, Euler-Bernoulli %.9g", n, got,
                      want);
        /* rotation about +y by theta: q = (0, sin(theta/2), 0, cos(theta/2)); a load down turns the tip nose down */
        double theta = 2 * atan2(q[1], q[3]), want_t = P * L * L / (2 * E * I);
        ck_assert_msg(fabs(theta - want_t) <= 1e-3 * want_t, "n %u: tip rotation %.9g, closed form %.9g", n, theta,
                      want_t);
        ck_assert_msg(fabs(p[0] - L) < 1e-5 && fabs(p[1]) < 1e-12, "tip at (%g %g %g)", p[0], p[1], p[2]);
        pf_world_destroy(w);
    }
    /* frames turned about an axis off the beam's (their x axes no longer along it): the same deflection, the
     * elements' frames are kept in the nodes' */
    cantilever c;
    cantilever_def(&c, 11, L, r, E, 0.3);
    double ori[4 * 11], u[3] = {0.48, 0.6, 0.64}, s = sin(0.45);
    for (int k = 0; k < 11; k++)
        ori[4 * k] = s * u[0], ori[4 * k + 1] = s * u[1], ori[4 * k + 2] = s * u[2], ori[4 * k + 3] = cos(0.45);
    c.def.orientations = ori;
    c.def.solver.kind = PF_SOLVER_STATIC;
    pf_world *w = make_world(PF_EXEC_SEQ, 1, 0);
    pf_object_id id;
    ck_assert_msg(pf_world_add_beam(w, &c.def, &id) == PF_OK, "%s", pf_last_error());
    add_tip_load(w, id, 20, 0, 0, -P);
    ck_assert_msg(pf_world_step(w, 10) == PF_OK, "%s", pf_last_error());
    double p[3], q[4], want = P * L * L * L / (3 * E * I);
    tip_state(w, id, 11, p, q);
    ck_assert_msg(fabs(-p[2] - want) <= 1e-3 * want && fabs(p[1]) < 1e-9, "turned frames: tip (%g %g %g), want z %g",
                  p[0], p[1], p[2], -want);
    /* box selection sees the frames' centres only; removing the beam leaves an empty world that steps */
    uint32_t sel[4], nsel = 0;
    double box[6] = {-0.05, -1, -1, 0.15, 1, 1};
    ck_assert_int_eq(pf_world_box_select(w, id, box, sel, 4, &nsel), PF_OK);
    ck_assert_msg(nsel == 2 && sel[0] == 0 && sel[1] == 2, "box selected %u points", nsel);
    ck_assert_int_eq(pf_world_remove_object(w, id), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 2), PF_OK);
    pf_world_destroy(w);
}
END_TEST

/* The same cantilever under its own weight: frames of 0.01 kg (half at the ends) over 20 elements, a load
 * w = 0.0981 N/m; the tip sinks w L^4 / (8 E I) (within 2 %: lumped loads miss the end's nodal moment, a
 * 0.1 % effect). First by static steps, then by implicit Euler with mass damping settled over 6 s. */
START_TEST(test_cantilever_gravity)
{
    const double L = 1, r = 0.01, E = 2e9, g = 9.81, I = M_PI * r * r * r * r / 4;
    const uint32_t n = 21;
    for (int statik = 1; statik >= 0; statik--) {
        cantilever c;
        cantilever_def(&c, n, L, r, E, 0.3);
        c.masses[0] = c.masses[n - 1] = 0.005;
        c.def.solver.kind = statik ? PF_SOLVER_STATIC : PF_SOLVER_IMPLICIT_EULER;
        c.def.solver.rayleigh_mass = 5;
        pf_world *w = make_world(PF_EXEC_SEQ, 1, -g);
        pf_object_id id;
        ck_assert_msg(pf_world_add_beam(w, &c.def, &id) == PF_OK, "%s", pf_last_error());
        double total = 0; /* the frames' masses: 19 x 0.01 + 2 x 0.005 kg */
        ck_assert_int_eq(pf_world_get_object_mass(w, id, NULL, &total), PF_OK);
        ck_assert_double_eq_tol(total, (n - 2) * 0.01 + 2 * 0.005, 1e-15);
        ck_assert_msg(pf_world_step(w, statik ? 10 : 600) == PF_OK, "%s", pf_last_error());
        double p[3], q[4], wl = 0.01 * g / (L / (n - 1));
        tip_state(w, id, n, p, q);
        double want = wl * L * L * L * L / (8 * E * I), got = -p[2];
        ck_assert_msg(fabs(got - want) <= 0.02 * want, "%s: tip deflection %.9g, w L^4 / (8 E I) %.9g",
                      statik ? "static" : "implicit", got, want);
        if (!statik) { /* settled: the velocities died out */
            double v[3 * MAXF];
            ck_assert_int_eq(pf_world_get_beam_state(w, id, NULL, NULL, v, NULL, NULL), PF_OK);
            ck_assert_msg(fabs(v[3 * (n - 1) + 2]) < 1e-3 * want, "tip still moving at %g m/s", v[3 * (n - 1) + 2]);
        }
        pf_world_destroy(w);
    }
}
END_TEST

/* A tip torque T about the beam's axis twists the tip by T L / (G J), G = E / (2 (1 + nu)), J = pi r^4 / 2 (a
 * tube: J = pi (r^4 - ri^4) / 2), without bending */
START_TEST(test_torsion)
{
    const double L = 2, r = 0.02, ri = 0.01, E = 1e9, nu = 0.25, T = 0.3;
    const uint32_t n = 6;
    cantilever c;
    cantilever_def(&c, n, L, r, E, nu);
    c.def.radius_inner = ri;
    c.def.solver.kind = PF_SOLVER_STATIC;
    pf_world *w = make_world(PF_EXEC_SEQ, 1, 0);
    pf_object_id id;
    ck_assert_msg(pf_world_add_beam(w, &c.def, &id) == PF_OK, "%s", pf_last_error());
    add_tip_load(w, id, 2 * (n - 1) + 1, T, 0, 0);
    ck_assert_msg(pf_world_step(w, 5) == PF_OK, "%s", pf_last_error());
    double p[3], q[4];
    tip_state(w, id, n, p, q);
    double G = E / (2 * (1 + nu)), J = M_PI * (r * r * r * r - ri * ri * ri * ri) / 2, want = T * L / (G * J);
    double got = 2 * atan2(q[0], q[3]);
    ck_assert_msg(fabs(got - want) <= 1e-6 * want, "twist %.12g, T L / (G J) %.12g", got, want);
    ck_assert_msg(fabs(q[1]) < 1e-12 && fabs(q[2]) < 1e-12, "the tip bent: q = (%g %g %g %g)", q[0], q[1], q[2], q[3]);
    ck_assert_msg(fabs(p[0] - L) < 1e-12 && fabs(p[1]) < 1e-12 && fabs(p[2]) < 1e-12, "tip moved");
    pf_world_destroy(w);
}
END_TEST

/* unit quaternion (x, y, z, w) of angle a about the unit axis u, and its rotation matrix */
static void axis_quat(const double u[3], double a, double q[4])
{
    double s = sin(a / 2);
    q[0] = s * u[0], q[1] = s * u[1], q[2] = s * u[2], q[3] = cos(a / 2);
}

static void quat_mul(const double a[4], const double b[4], double out[4]) /* (x, y, z, w) */
{
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
}

static void quat_rotate(const double q[4], const double v[3], double out[3])
{
    double p[4] = {v[0], v[1], v[2], 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4], r[4];
    quat_mul(q, p, t);
    quat_mul(t, c, r);
    memcpy(out, r, 3 * sizeof *out);
}

/* A free curved beam (frames along a helix, each turned its own way) with no gravity: moved as a whole by a
 * uniform velocity it stays unstrained (its distances and relative orientations as at rest, its velocity
 * unchanged); put down rigidly rotated (positions and orientations) it feels no force at all (the corotational
 * frames carried by the nodes) */
START_TEST(test_rigid_motion)
{
    enum { N = 8 };
    double pos[3 * N], ori[4 * N], vel[3 * N];
    uint32_t edges[2 * (N - 1)];
    for (uint32_t k = 0; k < N; k++) {
        pos[3 * k] = cos(0.4 * k), pos[3 * k + 1] = sin(0.4 * k), pos[3 * k + 2] = 0.15 * k;
        double u[3] = {0.36, 0.48, 0.8};
        axis_quat(u, 0.3 * k - 0.7, ori + 4 * k);
        vel[3 * k] = 0.7, vel[3 * k + 1] = -0.2, vel[3 * k + 2] = 0.4;
    }
    for (uint32_t e = 0; e + 1 < N; e++) edges[2 * e] = e, edges[2 * e + 1] = e + 1;
    pf_beam_def d = pf_beam_default_def();
    d.frames = N;
    d.positions = pos;
    d.orientations = ori;
    d.velocities = vel;
    d.edges = edges;
    d.nedges = N - 1;
    d.radius = 0.05;
    d.young_modulus = 1e7;
    pf_world *w = make_world(PF_EXEC_SEQ, 1, 0);
    pf_object_id id;
    ck_assert_msg(pf_world_add_beam(w, &d, &id) == PF_OK, "%s", pf_last_error());
    ck_assert_msg(pf_world_step(w, 100) == PF_OK, "%s", pf_last_error());
    double p[3 * N], q[4 * N], v[3 * N], av[3 * N], t = 100 * 0.01;
    ck_assert_int_eq(pf_world_get_beam_state(w, id, p, q, v, av, NULL), PF_OK);
    for (uint32_t i = 0; i < 3 * N; i++) {
        ck_assert_msg(fabs(p[i] - (pos[i] + t * vel[i])) < 1e-12, "position %u: %.15g, want %.15g", i, p[i],
                      pos[i] + t * vel[i]);
        ck_assert_msg(fabs(v[i] - vel[i]) < 1e-12 && fabs(av[i]) < 1e-12, "velocity %u changed", i);
    }
    for (uint32_t i = 0; i < 4 * N; i++) ck_assert_msg(fabs(q[i] - ori[i]) < 1e-12, "orientation %u changed", i);
    pf_world_destroy(w);

    /* rigidly rotated rest shape: rotate positions and orientations by Q, at rest: one step leaves it at rest */
    double Q[4], ax[3] = {0.6, 0, 0.8};
    axis_quat(ax, 2.1, Q);
    w = make_world(PF_EXEC_SEQ, 1, 0);
    d.velocities = NULL;
    ck_assert_msg(pf_world_add_beam(w, &d, &id) == PF_OK, "%s", pf_last_error());
    pf_object *o = w->obj.v[id.index];
    for (uint32_t k = 0; k < N; k++) {
        double rq[4], *qi = o->x + 6 * N + 4 * k; /* (w, x, y, z) inside */
        quat_rotate(Q, pos + 3 * k, o->x + 6 * k);
        quat_mul(Q, ori + 4 * k, rq);
        qi[0] = rq[3], qi[1] = rq[0], qi[2] = rq[1], qi[3] = rq[2];
    }
    ck_assert_msg(pf_world_step(w, 1) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(pf_world_get_beam_state(w, id, NULL, NULL, v, av, NULL), PF_OK);
    for (uint32_t i = 0; i < 3 * N; i++)
        ck_assert_msg(fabs(v[i]) < 1e-9 && fabs(av[i]) < 1e-9, "rotated rest shape: velocity %u = %g / %g", i, v[i],
                      av[i]);
    pf_world_destroy(w);
}
END_TEST

/* a world with a damped cantilever under gravity and a tip load, beside a mass-spring pair, stepped 30 times */
static uint64_t run_hash(pf_executor ex, int workers, const char *save, const char *load)
{
    pf_world *w = make_world(ex, workers, -9.81);
    double pts[6] = {0, 2, 0, 0.5, 2, 0};
    pf_object_def od = pf_object_default_def();
    od.points = 2;
    od.positions = pts;
    pf_object_id sp;
    ck_assert_int_eq(pf_world_add_object(w, &od, &sp), PF_OK);
    pf_spring s = {0, 1, 100, 0.1, 0.4};
    ck_assert_int_eq(pf_world_add_springs(w, sp, &s, 1, NULL), PF_OK);
    cantilever c;
    cantilever_def(&c, 12, 1.5, 0.02, 1e8, 0.45);
    c.def.solver.rayleigh_stiffness = 0.01;
    pf_object_id id;
    ck_assert_msg(pf_world_add_beam(w, &c.def, &id) == PF_OK, "%s", pf_last_error());
    add_tip_load(w, id, 2 * 11, 0.1, 0.2, -0.3);
    add_tip_load(w, id, 2 * 11 + 1, 0.02, 0, 0);
    ck_assert_msg(pf_world_step(w, load ? 20 : 15) == PF_OK, "%s", pf_last_error());
    if (save) ck_assert_msg(pf_world_save_state(w, save, "beam") == PF_OK, "%s", pf_last_error());
    if (load) ck_assert_msg(pf_world_load_state(w, load, NULL, 0) == PF_OK, "%s", pf_last_error());
    ck_assert_msg(pf_world_step(w, 15) == PF_OK, "%s", pf_last_error());
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

/* the same state, bit for bit, on every executor and worker count, and after restoring a checkpoint into a world
 * that had moved on */
START_TEST(test_determinism)
{
    uint64_t ref = run_hash(PF_EXEC_SEQ, 1, NULL, NULL);
    pf_executor ex[] = {PF_EXEC_STATIC, PF_EXEC_BARRIER, PF_EXEC_OMPTASKS};
    for (size_t e = 0; e < 3; e++)
        for (int k = 1; k <= 3; k++) ck_assert_uint_eq(run_hash(ex[e], k, NULL, NULL), ref);
    char path[64];
    snprintf(path, sizeof path, "/tmp/pf_beam_ckpt_%d.bin", (int)getpid());
    ck_assert_uint_eq(run_hash(PF_EXEC_SEQ, 1, path, NULL), ref);
    /* a world stepped 5 times more, then given the saved state: the same 15 last steps */
    ck_assert_uint_eq(run_hash(PF_EXEC_STATIC, 2, NULL, path), ref);
    remove(path);
}
END_TEST

/* bad definitions: PF_EINVAL naming the fault; a beam takes no springs and no surface */
START_TEST(test_refusals)
{
    pf_world *w = make_world(PF_EXEC_SEQ, 1, 0);
    cantilever c;
    pf_object_id id;
#define REFUSED(stmt, text)                                                                                          \
    do {                                                                                                             \
        cantilever_def(&c, 4, 1, 0.1, 1e6, 0.3);                                                                     \
        stmt;                                                                                                        \
        ck_assert_int_eq(pf_world_add_beam(w, &c.def, &id), PF_EINVAL);                                              \
        ck_assert_msg(strstr(pf_last_error(), text), "%s", pf_last_error());                                       \
    } while (0)
    double badq[16] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0, 0, 1};
    REFUSED(c.def.orientations = badq, "frame 2");
    REFUSED(c.edges[3] = 4, "out of range");
    REFUSED(c.edges[1] = 0, "to itself");
    REFUSED(c.def.young_modulus = 0, "young_modulus");
    REFUSED(c.def.young_modulus = -1, "young_modulus");
    REFUSED(c.def.radius = 0, "radius");
    REFUSED(c.def.radius_inner = 0.1, "radius_inner");
    REFUSED(c.def.poisson_ratio = 0.5, "poisson_ratio");
    REFUSED(c.masses[1] = 0, "frame_masses[1]");
    REFUSED(c.def.inertia[1] = 1, "inertia");
    REFUSED(c.fixed = 9, "def.fixed");
    REFUSED(c.def.frames = 1, "frames");
    REFUSED(c.def.nedges = 0, "nedges");
    REFUSED(c.pos[3] = 0, "length 0");
    REFUSED(c.def.solver.kind = PF_SOLVER_EXPLICIT_EULER, "solver.kind");
    ck_assert_uint_eq(pf_world_objects(w), 0);
    cantilever_def(&c, 4, 1, 0.1, 1e6, 0.3);
    ck_assert_int_eq(pf_world_add_beam(w, &c.def, &id), PF_OK);
    pf_spring s = {0, 2, 1, 0, -1};
    ck_assert_int_eq(pf_world_add_springs(w, id, &s, 1, NULL), PF_EINVAL);
    /* each refusal of an object of points' call says the object is a beam, and why the call needs another kind */
#define SAYS_BEAM(why)                                                                                                 \
    ck_assert_msg(strstr(pf_last_error(), "is a beam") && strstr(pf_last_error(), why), "%s", pf_last_error())
    SAYS_BEAM("springs need points");
    uint32_t vtx = 0;
    double vp[3] = {0, 0, 0};
    pf_surface_def sd = pf_surface_default_def();
    sd.vertices = 1;
    sd.points = &vtx;
    sd.positions = vp;
    ck_assert_int_eq(pf_world_add_surface(w, id, &sd, NULL), PF_EINVAL);
    SAYS_BEAM("surface needs an object of points");
    pf_constant_force_def cf = pf_constant_force_default_def();
    ck_assert_int_eq(pf_world_add_constant_force(w, id, &cf, NULL), PF_EINVAL); /* no point list on a beam */
    SAYS_BEAM("def.points must name the points");
    double qr[4];
    ck_assert_int_eq(pf_world_get_rigid_state(w, id, vp, qr, NULL, NULL), PF_EINVAL);
    SAYS_BEAM("not a rigid body");
    double pos[3 * 4];
    ck_assert_int_eq(pf_world_get_beam_state(w, id, pos, NULL, NULL, NULL, NULL), PF_OK);
    pf_object_def od = pf_object_default_def();
    od.points = 1;
    pf_object_id pts;
    ck_assert_int_eq(pf_world_add_object(w, &od, &pts), PF_OK);
    ck_assert_int_eq(pf_world_get_beam_state(w, pts, pos, NULL, NULL, NULL, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "is an object of points, not a beam"), "%s", pf_last_error());
    ck_assert_int_eq(pf_world_add_interaction_springs(w, pts, id, &s, 1, NULL), PF_EINVAL);
    SAYS_BEAM("interaction springs join points of objects of points");
#undef SAYS_BEAM
    ck_assert_int_eq(pf_world_step(w, 2), PF_OK);
    pf_world_destroy(w);
#undef REFUSED
}
END_TEST


/* tests/scenes/beam_cantilever.scn (11 Rigid3d frames, BeamFEMForceField, UniformMass vertexMass with inertia,
 * FixedProjectiveConstraint, a Rigid3 ConstantForceField on the tip, StaticSolver, a visual RigidMapping child) is
 * the cantilever built by pf_world_add_beam, bit for bit, and its tip sinks P L^3 / (3 E I) */
START_TEST(test_scene_cantilever)
{
    pf_scene *s = load_test_scene("beam_cantilever.scn", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    pf_world *sw = pf_scene_world(s);
    pf_object_id id;
    ck_assert_int_eq(pf_scene_find_object(s, "beam", &id), PF_OK);
    ck_assert_msg(pf_world_step(sw, 10) == PF_OK, "%s", pf_last_error());
    double p[3], q[4];
    tip_state(sw, id, 11, p, q);
    const double P = 0.05, E = 2e9, r = 0.01, I = M_PI * r * r * r * r / 4, want = P / (3 * E * I);
    ck_assert_msg(fabs(-p[2] - want) <= 1e-3 * want, "tip %.9g, P L^3 / (3 E I) %.9g", -p[2], want);

    cantilever c;
    cantilever_def(&c, 11, 1, r, E, 0.3);
    for (int i = 0; i < 11; i++) c.masses[i] = 0.01;
    c.def.inertia[0] = c.def.inertia[4] = c.def.inertia[8] = 0.01 * 1e-4;
    c.def.solver.kind = PF_SOLVER_STATIC;
    pf_world *w = make_world(PF_EXEC_SEQ, 1, 0);
    ck_assert_msg(pf_world_add_beam(w, &c.def, &id) == PF_OK, "%s", pf_last_error());
    add_tip_load(w, id, 20, 0, 0, -P);
    ck_assert_msg(pf_world_step(w, 10) == PF_OK, "%s", pf_last_error());
    ck_assert_uint_eq(pf_world_state_hash(w), pf_world_state_hash(sw));
    pf_world_destroy(w);
    pf_scene_destroy(s);
}
END_TEST

/* a three-frame beam node with `extra` written in it; the load's status and message */
static int load_beam(const char *mass, const char *fem, const char *extra, pf_scene **out)
{
    char text[2048];
    snprintf(text, sizeof text,
             "<Node name='root' dt='0.01'>\n"
             "<Node name='beam'>\n"
             "<EulerImplicitSolver/>\n"
             "<MechanicalObject template='Rigid3d' position='0 0 0 0 0 0 1  1 0 0 0 0 0 1  2 0 0 0 0 0 1'/>\n"
             "<EdgeSetTopologyContainer edges='0 1 1 2'/>\n"
             "<FixedProjectiveConstraint indices='0'/>\n"
             "%s\n%s\n%s\n"
             "</Node>\n</Node>\n",
             mass, fem, extra);
    pf_scene_load_def d = quiet_load_def();
    *out = NULL;
    return pf_scene_load_memory(&d, "b.xml", text, strlen(text), NULL, out);
}

#define MASS "<UniformMass totalMass='3'/>"
#define FEM "<BeamFEMForceField radius='0.1' youngModulus='1e6'/>"

/* what the loader refuses, at the line of the fault: BeamFEMForceField without a Rigid3d object of several frames,
 * bad section or material, a collision model on the beam, mechanics mapped onto its frames, forces out of range;
 * what it takes: several frames without BeamFEMForceField (independent frames, a body each), a visual child, a
 * collision child (skipped), Rigid3 forces and torques */
START_TEST(test_scene_refusals)
{
    pf_scene *s;
    /* no BeamFEMForceField: independent frames, a rigid body each (scenes/components_joints.c) */
    ck_assert_int_eq(load_beam(MASS, "", "", &s), PF_OK);
    ck_assert_uint_eq(pf_world_objects(pf_scene_world(s)), 3);
    pf_scene_destroy(s);
    ck_assert_int_eq(load_beam("", FEM, "", &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "needs a UniformMass"), "%s", pf_last_error());
    ck_assert_int_eq(load_beam(MASS, "<BeamFEMForceField radius='0' youngModulus='1e6'/>", "", &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "b.xml:8:") && strstr(pf_last_error(), "radius > 0"), "%s", pf_last_error());
    ck_assert_int_eq(load_beam(MASS, FEM, "<PointCollisionModel/>", &s), PF_ENOTSUP);
    ck_assert_msg(strstr(pf_last_error(), "b.xml:9:") && strstr(pf_last_error(), "does not collide"), "%s",
                  pf_last_error());
    ck_assert_int_eq(load_beam(MASS, FEM,
                               "<Node name='m'><MechanicalObject/><IdentityMapping/>"
                               "<ConstantForceField force='1 0 0'/></Node>", &s), PF_ENOTSUP);
    ck_assert_msg(strstr(pf_last_error(), "ConstantForceField in node 'm'"), "%s", pf_last_error());
    ck_assert_int_eq(load_beam(MASS, FEM, "<ConstantForceField indices='3' forces='0 0 1 0 0 0'/>", &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "index 3 is out of range"), "%s", pf_last_error());
    ck_assert_int_eq(load_beam(MASS, FEM, "<ConstantForceField indices='2' forces='0 0 1'/>", &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "6 numbers"), "%s", pf_last_error());
    ck_assert_int_eq(load_beam(MASS, FEM, "<FixedRotationProjectiveConstraint FixedXRotation='1'/>", &s), PF_ENOTSUP);
    ck_assert_msg(strstr(pf_last_error(), "b.xml:9:") && strstr(pf_last_error(), "is a beam of 3 frames"), "%s",
                  pf_last_error());
    ck_assert_int_eq(load_beam("<UniformMass vertexMass='1 2 3'/>", FEM, "", &s), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "vertexMass takes 1 number"), "%s", pf_last_error());
    {
        const char *text = "<Node name='root'><Node name='n'><MechanicalObject position='0 0 0'/>"
                           "<BeamFEMForceField/></Node></Node>";
        pf_scene_load_def d = quiet_load_def();
        ck_assert_int_eq(pf_scene_load_memory(&d, "v.xml", text, strlen(text), NULL, &s), PF_ENOTSUP);
        ck_assert_msg(strstr(pf_last_error(), "template=\"Rigid3d\" of several frames"), "%s", pf_last_error());
    }
    /* taken: a tip wrench (force, then torque), a collision child skipped; the force and the torque act */
    ck_assert_msg(load_beam(MASS, FEM,
                            "<ConstantForceField indices='2' forces='0 0 -5 1 0 0'/>"
                            "<Node name='c'><MechanicalObject/><IdentityMapping/><PointCollisionModel/></Node>",
                            &s) == PF_OK,
                  "%s", pf_last_error());
    pf_world *w = pf_scene_world(s);
    pf_object_id id;
    ck_assert_int_eq(pf_scene_find_object(s, "beam", &id), PF_OK);
    ck_assert_uint_eq(pf_world_objects(w), 1);
    ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
    double v[9], av[9];
    ck_assert_int_eq(pf_world_get_beam_state(w, id, NULL, NULL, v, av, NULL), PF_OK);
    ck_assert_msg(v[8] < 0 && av[6] > 0 && v[0] == 0 && av[0] == 0, "tip velocity %g, spin %g", v[8], av[6]);
    pf_scene_destroy(s);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_beam");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cantilever_tip_load);
    tcase_add_test(tc, test_cantilever_gravity);
    tcase_add_test(tc, test_torsion);
    tcase_add_test(tc, test_rigid_motion);
    tcase_add_test(tc, test_determinism);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_scene_cantilever);
    tcase_add_test(tc, test_scene_refusals);
    suite_add_tcase(s, tc);
    return s;
}
