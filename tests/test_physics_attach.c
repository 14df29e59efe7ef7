/* Attachments (pf_world_add_attachment: SOFA AttachProjectiveConstraint, one way) and the scene component. Oracles:
 * the source points' own state (bitwise, factor 1); a run with the target points fixed instead (a static
 * source); the blend's recursion in closed form; the sequential executor's state hash (also when the world
 * changes between steps); the argument checks. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"
#include "physflow/scene.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static pf_world *make_world(pf_executor e, int workers, pf_partitioner part, const double g[3])
{
    pf_world_def d = test_world_def(e, workers);
    d.runtime.partitioner = part;
    d.dt = 0.01;
    memcpy(d.gravity, g, sizeof d.gravity);
    return create_world(&d);
}

/* A 3 x 3 x 6 hexahedral beam from z0 to z0 + 0.5 (points k = 0 at the bottom, 45..53 at the top), implicit. */
static pf_object_id beam(pf_world *w, double z0, int blocks)
{
    pf_object_def o = pf_object_default_def();
    o.grid[0] = o.grid[1] = 3, o.grid[2] = 6;
    o.grid_min[2] = z0;
    o.grid_max[0] = o.grid_max[1] = 0.1, o.grid_max[2] = z0 + 0.5;
    o.total_mass = 1;
    o.solver.cg_iterations = 200, o.solver.cg_tolerance = 1e-10;
    o.decompose = blocks ? PF_DECOMPOSE_ON : PF_DECOMPOSE_OFF;
    o.block_elements = 8; /* 20 hexahedra: 3 blocks */
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    pf_hexa_fem_def f = pf_hexa_fem_default_def();
    f.young_modulus = 2e4;
    ck_assert_int_eq(pf_world_add_hexa_fem(w, id, &f, NULL), PF_OK);
    return id;
}

static const uint32_t bottom[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
static const uint32_t top[9] = {45, 46, 47, 48, 49, 50, 51, 52, 53};

/* Three beams standing on each other, the lowest clamped at z = 0, gravity sideways: b's bottom follows a's top,
 * c's bottom b's top. linked: a and b also joined by a spring (one solver group). */
static pf_world *tower(pf_executor e, int workers, pf_partitioner part, int blocks, int linked, pf_object_id id[3])
{
    static const double g[3] = {-9.81, 0, -2};
    pf_world *w = make_world(e, workers, part, g);
    for (int k = 0; k < 3; k++) id[k] = beam(w, 0.5 * k, blocks);
    double clamp[6] = {-1, -1, -0.01, 1, 1, 0.01};
    ck_assert_int_eq(pf_world_fix_box(w, id[0], clamp, NULL), PF_OK);
    if (linked) {
        pf_spring s = {20, 30, 50, 0.1, -1};
        ck_assert_int_eq(pf_world_add_interaction_springs(w, id[0], id[1], &s, 1, NULL), PF_OK);
    }
    pf_attachment_def a = pf_attachment_default_def();
    a.source_points = top, a.target_points = bottom, a.npoints = 9;
    ck_assert_int_eq(pf_world_add_attachment(w, id[0], id[1], &a), PF_OK);
    ck_assert_int_eq(pf_world_add_attachment(w, id[1], id[2], &a), PF_OK);
    return w;
}

/* after 40 steps each target point holds its source point's position and velocity, bit for bit, and the tower
 * has bent (the test is not of points at rest) */
START_TEST(targets_take_their_sources_state)
{
    for (int variant = 0; variant < 3; variant++) {
        pf_object_id id[3];
        pf_world *w = tower(PF_EXEC_SEQ, 1, PF_PART_OWNER, variant == 1, variant == 2, id);
        ck_assert_msg(pf_world_step(w, 40) == PF_OK, "%s", pf_last_error());
        for (int k = 0; k < 2; k++) {
            uint32_t n;
            const double *x1 = pf_world_positions(w, id[k], &n), *v1 = pf_world_velocities(w, id[k], &n);
            const double *x2 = pf_world_positions(w, id[k + 1], &n), *v2 = pf_world_velocities(w, id[k + 1], &n);
            for (int p = 0; p < 9; p++) {
                ck_assert_msg(!memcmp(x1 + 3 * top[p], x2 + 3 * bottom[p], 3 * sizeof(double)),
                              "variant %d, beam %d, pair %d: x (%.17g %.17g %.17g) vs (%.17g %.17g %.17g)", variant,
                              k, p, x1[3 * top[p]], x1[3 * top[p] + 1], x1[3 * top[p] + 2], x2[3 * bottom[p]],
                              x2[3 * bottom[p] + 1], x2[3 * bottom[p] + 2]);
                ck_assert_msg(!memcmp(v1 + 3 * top[p], v2 + 3 * bottom[p], 3 * sizeof(double)),
                              "variant %d, beam %d, pair %d: v", variant, k, p);
            }
        }
        uint32_t n;
        const double *x = pf_world_positions(w, id[2], &n);
        ck_assert_msg(x[3 * 53] < 0.05 - 1e-3, "the tower's top should bend along -x: %g", x[3 * 53]);
        pf_world_destroy(w);
    }
}
END_TEST

/* every executor, 1 to 3 workers, owner and METIS placement: the sequential executor's state, objects whole, in
 * blocks, and linked into one group */
START_TEST(executors_agree)
{
    for (int variant = 0; variant < 3; variant++) {
        pf_object_id id[3];
        pf_world *w = tower(PF_EXEC_SEQ, 1, PF_PART_OWNER, variant == 1, variant == 2, id);
        ck_assert_int_eq(pf_world_step(w, 15), PF_OK);
        uint64_t ref = pf_world_state_hash(w);
        pf_world_destroy(w);
        for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
            for (int workers = 1; workers <= 3; workers++)
                for (int part = 0; part < 2; part++) {
                    pf_partitioner p = part ? PF_PART_METIS : PF_PART_OWNER;
                    w = tower((pf_executor)e, workers, p, variant == 1, variant == 2, id);
                    ck_assert_int_eq(pf_world_step(w, 15), PF_OK);
                    ck_assert_msg(pf_world_state_hash(w) == ref, "variant %d, executor %d, %d workers, %s",
                                  variant, e, workers, part ? "metis" : "owner");
                    pf_world_destroy(w);
                }
    }
}
END_TEST

/* The world changes between steps: the attachment comes after 5 steps, then the source's group is recorded anew
 * (a force added to it), so its tasks come after the target's and the attachments' in the graph. The attachment's
 * tasks are recorded after them again: the targets still hold the state the sources' solves of each step leave. */
static uint64_t changing(pf_executor e, int workers, pf_partitioner part)
{
    static const double g[3] = {-9.81, 0, 0};
    pf_world *w = make_world(e, workers, part, g);
    pf_object_id a = beam(w, 0, 0), b = beam(w, 0.5, 0);
    double clamp[6] = {-1, -1, -0.01, 1, 1, 0.01};
    ck_assert_int_eq(pf_world_fix_box(w, a, clamp, NULL), PF_OK);
    ck_assert_int_eq(pf_world_fix_points(w, b, bottom, 9), PF_OK); /* held until attached */
    ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
    pf_attachment_def d = pf_attachment_default_def();
    d.source_points = top, d.target_points = bottom, d.npoints = 9;
    ck_assert_int_eq(pf_world_add_attachment(w, a, b, &d), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
    pf_constant_force_def f = pf_constant_force_default_def();
    f.points = top, f.npoints = 9, f.force[1] = 2;
    ck_assert_int_eq(pf_world_add_constant_force(w, a, &f, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 10), PF_OK);
    pf_world_update up;
    ck_assert_int_eq(pf_world_get_last_update(w, &up, NULL), PF_OK);
    ck_assert_msg(up.groups_kept == 1 && up.groups_recorded == 1, "kept %u, recorded %u", up.groups_kept,
                  up.groups_recorded);
    uint32_t n;
    const double *x1 = pf_world_positions(w, a, &n), *x2 = pf_world_positions(w, b, &n);
    const double *v1 = pf_world_velocities(w, a, &n), *v2 = pf_world_velocities(w, b, &n);
    for (int p = 0; p < 9; p++) {
        ck_assert_msg(!memcmp(x1 + 3 * top[p], x2 + 3 * bottom[p], 3 * sizeof(double)), "pair %d: x", p);
        ck_assert_msg(!memcmp(v1 + 3 * top[p], v2 + 3 * bottom[p], 3 * sizeof(double)), "pair %d: v", p);
    }
    ck_assert_msg(x1[3 * top[4] + 1] > 0.05 + 1e-5, "the force should push the top along y: %g",
                  x1[3 * top[4] + 1]);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(changes_between_steps)
{
    uint64_t ref = changing(PF_EXEC_SEQ, 1, PF_PART_OWNER);
    for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
        for (int workers = 2; workers <= 3; workers++)
            ck_assert_msg(changing((pf_executor)e, workers, workers == 3 ? PF_PART_METIS : PF_PART_OWNER) == ref,
                          "executor %d, %d workers", e, workers);
}
END_TEST

/* A chain of 10 points joined by springs, hanging under gravity, its points 0 and 6 held: attached to a static
 * object whose points sit where they are, or fixed. The chain's state is the same bit for bit. */
static void chain(pf_solver_kind kind, int attached, double *x, double *v)
{
    static const double g[3] = {0, 0, -9.81};
    pf_world *w = make_world(PF_EXEC_SEQ, 1, PF_PART_OWNER, g);
    double pos[30];
    for (int i = 0; i < 10; i++) pos[3 * i] = 0.1 * i, pos[3 * i + 1] = 0, pos[3 * i + 2] = 0.01 * i * i;
    const uint32_t held[2] = {0, 6};
    pf_object_id src = {0};
    if (attached) { /* its points listed in another order than the chain's */
        pf_object_def s = pf_object_default_def();
        double sp[9] = {5, 5, 5, pos[18], pos[19], pos[20], pos[0], pos[1], pos[2]};
        s.points = 3, s.positions = sp;
        ck_assert_int_eq(pf_world_add_object(w, &s, &src), PF_OK);
        ck_assert_int_eq(pf_world_fix_points(w, src, (const uint32_t[3]){0, 1, 2}, 3), PF_OK);
    }
    pf_object_def o = pf_object_default_def();
    o.points = 10, o.positions = pos, o.solver.kind = kind;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    pf_spring s[9];
    for (uint32_t i = 0; i < 9; i++) s[i] = (pf_spring){i, i + 1, 200, 0.5, 0.08};
    ck_assert_int_eq(pf_world_add_springs(w, id, s, 9, NULL), PF_OK);
    if (attached) {
        pf_attachment_def a = pf_attachment_default_def();
        a.source_points = (const uint32_t[2]){2, 1}, a.target_points = held, a.npoints = 2;
        ck_assert_int_eq(pf_world_add_attachment(w, src, id, &a), PF_OK);
    } else {
        ck_assert_int_eq(pf_world_fix_points(w, id, held, 2), PF_OK);
    }
    ck_assert_msg(pf_world_step(w, 60) == PF_OK, "%s", pf_last_error());
    uint32_t n;
    memcpy(x, pf_world_positions(w, id, &n), 30 * sizeof *x);
    memcpy(v, pf_world_velocities(w, id, &n), 30 * sizeof *v);
    pf_world_destroy(w);
}

START_TEST(static_source_equals_fixed_points)
{
    static const pf_solver_kind kinds[] = {PF_SOLVER_IMPLICIT_EULER, PF_SOLVER_EXPLICIT_EULER,
                                           PF_SOLVER_RUNGE_KUTTA4};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        double xa[30], va[30], xf[30], vf[30];
        chain(kinds[k], 1, xa, va);
        chain(kinds[k], 0, xf, vf);
        ck_assert_msg(!memcmp(xa, xf, sizeof xa) && !memcmp(va, vf, sizeof va), "solver %d", (int)kinds[k]);
        ck_assert_msg(xa[3 * 9 + 2] < 0.81 - 1e-3, "solver %d: the free end should fall: %g", (int)kinds[k],
                      xa[3 * 9 + 2]);
    }
}
END_TEST

/* factor 0.5, velocity factor 0.25 on a point that follows a falling particle (symplectic Euler): held by its own
 * solve (x unchanged, v = 0), then x2 += 0.5 (x1 - x2), v2 = 0.125 v1 each step, in closed form */
START_TEST(blend_in_closed_form)
{
    static const double g[3] = {0, 0, -9.81};
    pf_world *w = make_world(PF_EXEC_SEQ, 1, PF_PART_OWNER, g);
    pf_object_def o = pf_object_default_def();
    o.points = 1, o.solver.kind = PF_SOLVER_EXPLICIT_EULER;
    o.velocities = (const double[3]){1, 0, 2};
    pf_object_id a, b;
    ck_assert_int_eq(pf_world_add_object(w, &o, &a), PF_OK);
    o.velocities = NULL, o.positions = (const double[3]){0, 1, 0};
    ck_assert_int_eq(pf_world_add_object(w, &o, &b), PF_OK);
    pf_attachment_def d = pf_attachment_default_def();
    d.source_points = d.target_points = (const uint32_t[1]){0}, d.npoints = 1;
    d.factors = (const double[1]){0.5}, d.velocity_factor = 0.25;
    ck_assert_int_eq(pf_world_add_attachment(w, a, b, &d), PF_OK);
    double x1[3] = {0, 0, 0}, v1[3] = {1, 0, 2}, x2[3] = {0, 1, 0}, v2[3] = {0, 0, 0}, h = 0.01;
    for (int s = 0; s < 50; s++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        for (int k = 0; k < 3; k++) {
            v1[k] += h * g[k];
            x1[k] += h * v1[k];
            x2[k] += 0.5 * (x1[k] - x2[k]);
            v2[k] = 0.125 * v1[k];
        }
        uint32_t n;
        const double *x = pf_world_positions(w, b, &n), *v = pf_world_velocities(w, b, &n);
        for (int k = 0; k < 3; k++)
            ck_assert_msg(fabs(x[k] - x2[k]) < 1e-12 && fabs(v[k] - v2[k]) < 1e-12, "step %d axis %d: %.17g %.17g",
                          s, k, x[k], x2[k]);
    }
    pf_world_destroy(w);
}
END_TEST

START_TEST(argument_errors)
{
    static const double g[3] = {0, 0, -9.81};
    pf_world *w = make_world(PF_EXEC_SEQ, 1, PF_PART_OWNER, g);
    pf_object_def o = pf_object_default_def();
    o.points = 4;
    pf_object_id a, b, gone;
    ck_assert_int_eq(pf_world_add_object(w, &o, &a), PF_OK);
    ck_assert_int_eq(pf_world_add_object(w, &o, &b), PF_OK);
    ck_assert_int_eq(pf_world_add_object(w, &o, &gone), PF_OK);
    ck_assert_int_eq(pf_world_remove_object(w, gone), PF_OK);
    pf_rigid_def rd = pf_rigid_default_def();
    pf_object_id r;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &r), PF_OK);
    const uint32_t p01[2] = {0, 1}, p00[2] = {0, 0}, p9[2] = {0, 9};
    pf_attachment_def d = pf_attachment_default_def();
    d.source_points = p01, d.target_points = p01, d.npoints = 2;
    struct {
        pf_world *w;
        pf_object_id s, t;
        const pf_attachment_def *d;
        const char *msg;
    } bad[] = {{NULL, a, b, &d, "world"},
               {w, a, b, NULL, "def"},
               {w, (pf_object_id){99}, b, &d, "99"},
               {w, a, gone, &d, "removed"},
               {w, a, a, &d, "both object"},
               {w, r, b, &d, "rigid body"},
               {w, a, r, &d, "rigid body"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_int_eq(pf_world_add_attachment(bad[k].w, bad[k].s, bad[k].t, bad[k].d), PF_EINVAL);
        ck_assert_msg(strstr(pf_last_error(), bad[k].msg), "case %zu: %s", k, pf_last_error());
    }
    pf_attachment_def e = d;
    e.source_points = NULL;
    ck_assert_int_eq(pf_world_add_attachment(w, a, b, &e), PF_EINVAL);
    e = d, e.source_points = p9;
    ck_assert_int_eq(pf_world_add_attachment(w, a, b, &e), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "source_points[1] = 9"), "%s", pf_last_error());
    e = d, e.target_points = p9;
    ck_assert_int_eq(pf_world_add_attachment(w, a, b, &e), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "target_points[1] = 9"), "%s", pf_last_error());
    e = d, e.target_points = p00;
    ck_assert_int_eq(pf_world_add_attachment(w, a, b, &e), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "earlier in the list"), "%s", pf_last_error());
    e = d, e.factors = (const double[2]){1, 1.5};
    ck_assert_int_eq(pf_world_add_attachment(w, a, b, &e), PF_EINVAL);
    e = d, e.factors = (const double[2]){NAN, 1};
    ck_assert_int_eq(pf_world_add_attachment(w, a, b, &e), PF_EINVAL);
    e = d, e.position_factor = -0.1;
    ck_assert_int_eq(pf_world_add_attachment(w, a, b, &e), PF_EINVAL);
    e = d, e.velocity_factor = NAN;
    ck_assert_int_eq(pf_world_add_attachment(w, a, b, &e), PF_EINVAL);
    /* none of these attached anything: b's points fall freely */
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    uint32_t n;
    ck_assert(pf_world_velocities(w, b, &n)[2] < 0);
    /* a point attached once only, across attachments (a source point may serve twice) */
    d.source_points = p00;
    ck_assert_int_eq(pf_world_add_attachment(w, a, b, &d), PF_OK);
    d.target_points = (const uint32_t[2]){2, 1};
    ck_assert_int_eq(pf_world_add_attachment(w, a, b, &d), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "by an earlier attachment"), "%s", pf_last_error());
    /* an attached point stays held */
    ck_assert_int_eq(pf_world_unfix_points(w, b, p01 + 1, 1), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "follows an attachment"), "%s", pf_last_error());
    ck_assert_int_eq(pf_world_step(w, 3), PF_OK);
    const double *x1 = pf_world_positions(w, a, &n), *x2 = pf_world_positions(w, b, &n);
    ck_assert(!memcmp(x1, x2, 3 * sizeof *x1) && !memcmp(x1, x2 + 3, 3 * sizeof *x1));
    pf_world_destroy(w);
}
END_TEST

/* removing the source drops the attachment: the target points stay where they are, held */
START_TEST(removing_an_object_drops_its_attachments)
{
    static const double g[3] = {0, 0, -9.81};
    for (int which = 0; which < 2; which++) {
        pf_world *w = make_world(PF_EXEC_SEQ, 1, PF_PART_OWNER, g);
        pf_object_def o = pf_object_default_def();
        o.points = 2;
        pf_object_id a, b;
        ck_assert_int_eq(pf_world_add_object(w, &o, &a), PF_OK);
        ck_assert_int_eq(pf_world_add_object(w, &o, &b), PF_OK);
        pf_attachment_def d = pf_attachment_default_def();
        d.source_points = d.target_points = (const uint32_t[1]){1}, d.npoints = 1;
        ck_assert_int_eq(pf_world_add_attachment(w, a, b, &d), PF_OK);
        ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
        uint32_t n;
        double held[3];
        memcpy(held, pf_world_positions(w, b, &n) + 3, sizeof held);
        ck_assert(held[2] < 0);
        ck_assert_int_eq(pf_world_remove_object(w, which ? b : a), PF_OK);
        ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
        if (!which) {
            const double *x = pf_world_positions(w, b, &n);
            ck_assert(!memcmp(x + 3, held, sizeof held)); /* held where it was */
            ck_assert(x[2] < held[2]);                    /* point 0 keeps falling */
        }
        pf_world_destroy(w);
    }
}
END_TEST

/* ---- the scene component ---- */

static void ignore(pf_scene_severity sev, const char *msg, void *ctx)
{
    (void)sev, (void)msg, (void)ctx;
}

/* warnings counted, the last one kept */
typedef struct warnings {
    int n;
    char last[512];
} warnings;

static void count(pf_scene_severity sev, const char *msg, void *ctx)
{
    warnings *w = ctx;
    if (sev != PF_SCENE_WARNING) return;
    w->n++;
    snprintf(w->last, sizeof w->last, "%s", msg);
}

static int load(const char *xml, pf_scene **s, warnings *wn)
{
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.workers = 1;
    d.world.runtime.executor = PF_EXEC_SEQ;
    d.world.runtime.bind = 0;
    d.world.runtime.quiet = 1;
    d.report = wn ? count : ignore;
    d.report_ctx = wn;
    return pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, s);
}

/* two 2 x 2 x 3 grids, B above A; %s: the attachment's line (line 4) */
static const char pair[] =
    "<Node dt='0.01' gravity='-9.81 0 0'>\n"
    "<Node name='A'><EulerImplicitSolver/><CGLinearSolver iterations='100' tolerance='1e-10' threshold='1e-20'/>"
    "<MechanicalObject/><UniformMass vertexMass='0.1'/><RegularGridTopology n='2 2 3' min='0 0 0' max='0.1 0.1 0.2'/>"
    "<BoxConstraint box='-1 -1 -0.01 1 1 0.01'/><HexahedronFEMForceField youngModulus='5000' poissonRatio='0.3'/>"
    "</Node>\n"
    "<Node name='B'><EulerImplicitSolver/><CGLinearSolver iterations='100' tolerance='1e-10' threshold='1e-20'/>"
    "<MechanicalObject/><UniformMass vertexMass='0.1'/><RegularGridTopology n='2 2 3' min='0 0 0.2' "
    "max='0.1 0.1 0.4'/><HexahedronFEMForceField youngModulus='5000' poissonRatio='0.3'/></Node>\n"
    "%s\n"
    "</Node>";

static void expect_error(const char *el, int code, const char *what)
{
    char xml[4096];
    snprintf(xml, sizeof xml, pair, el);
    pf_scene *s = NULL;
    ck_assert_int_eq(load(xml, &s, NULL), code);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:4:") && strstr(pf_last_error(), what), "%s", pf_last_error());
}

/* B's bottom (points 0 to 3) follows A's top (8 to 11), as the API's attachment does: the same state */
START_TEST(scene_component)
{
    char xml[4096];
    snprintf(xml, sizeof xml, pair,
             "<AttachProjectiveConstraint object1='@A' object2='@B/mo' indices1='8 9 10 11' indices2='0 1 2 3' "
             "constraintFactor='1 1 1 1' twoWay='true'/>");
    /* B's object linked by its MechanicalObject's name */
    char *mo = strstr(xml, "<Node name='B'>");
    ck_assert_ptr_nonnull(mo);
    char named[4096];
    const char *first = strstr(mo, "<MechanicalObject/>");
    snprintf(named, sizeof named, "%.*s<MechanicalObject name='mo'/>%s", (int)(first - xml), xml,
             first + strlen("<MechanicalObject/>"));
    pf_scene *s = NULL;
    warnings wn = {0};
    ck_assert_msg(load(named, &s, &wn) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(wn.n, 1); /* twoWay: attached one way */
    ck_assert_msg(strstr(wn.last, "t.xml:4:") && strstr(wn.last, "one way"), "%s", wn.last);
    pf_world *w = pf_scene_world(s);
    ck_assert_int_eq(pf_world_step(w, 30), PF_OK);
    pf_object_id a, b;
    ck_assert_int_eq(pf_scene_find_object(s, "A", &a), PF_OK);
    ck_assert_int_eq(pf_scene_find_object(s, "B", &b), PF_OK);
    uint32_t n;
    const double *xa = pf_world_positions(w, a, &n), *xb = pf_world_positions(w, b, &n);
    ck_assert(!memcmp(xa + 3 * 8, xb, 12 * sizeof(double)));
    ck_assert_msg(xb[3 * 11] < 0.1 - 1e-4, "B's top should lean along -x: %g", xb[3 * 11]);
    pf_scene_destroy(s);
}
END_TEST

START_TEST(scene_errors)
{
    expect_error("<AttachProjectiveConstraint object1='@A' object2='@B' indices1='8 12' indices2='0 1'/>", PF_EINVAL,
                 "pair 1: indices1 12 is out of range (object1 has 12 points)");
    expect_error("<AttachProjectiveConstraint object1='@A' object2='@B' indices1='8' indices2='12'/>", PF_EINVAL,
                 "pair 0: indices2 12 is out of range (object2 has 12 points)");
    expect_error("<AttachProjectiveConstraint object1='@Nowhere' object2='@B' indices1='8' indices2='0'/>",
                 PF_EINVAL, "dangling link '@Nowhere'");
    expect_error("<AttachProjectiveConstraint object2='@B' indices1='8' indices2='0'/>", PF_EPARSE,
                 "give object1 and object2");
    expect_error("<AttachProjectiveConstraint object1='@A' object2='@A' indices1='8' indices2='0'/>", PF_EINVAL,
                 "both object");
    expect_error("<AttachProjectiveConstraint object1='@A' object2='@B' indices1='8 9' indices2='0 0'/>", PF_EINVAL,
                 "already attached");
    expect_error("<AttachProjectiveConstraint object1='@A' object2='@B' indices1='8 9' indices2='0 1' "
                 "constraintFactor='1'/>", PF_EINVAL, "constraintFactor needs one value per point of indices2 (2)");
    expect_error("<AttachProjectiveConstraint object1='@A' object2='@B' indices1='8' indices2='0' "
                 "constraintFactor='2'/>", PF_EINVAL, "factor");
    /* lists of different lengths: the shorter's pairs, with a warning (SOFA's) */
    char xml[4096];
    snprintf(xml, sizeof xml, pair,
             "<AttachProjectiveConstraint object1='@A' object2='@B' indices1='8 9 10' indices2='0 1' "
             "minDistance='-1'/>");
    pf_scene *s = NULL;
    warnings wn = {0};
    ck_assert_msg(load(xml, &s, &wn) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(wn.n, 1);
    ck_assert_msg(strstr(wn.last, "t.xml:4:") && strstr(wn.last, "first 2 pairs"), "%s", wn.last);
    pf_scene_destroy(s);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_attach");
    TCase *tc = tcase_create("attach");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, targets_take_their_sources_state);
    tcase_add_test(tc, executors_agree);
    tcase_add_test(tc, changes_between_steps);
    tcase_add_test(tc, static_source_equals_fixed_points);
    tcase_add_test(tc, blend_in_closed_form);
    tcase_add_test(tc, argument_errors);
    tcase_add_test(tc, removing_an_object_drops_its_attachments);
    tcase_add_test(tc, scene_component);
    tcase_add_test(tc, scene_errors);
    suite_add_tcase(s, tc);
    return s;
}
