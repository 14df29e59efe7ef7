/* What a host changes over a world's lifetime: dt and gravity between steps, points unfixed, the settings
 * read back. Oracles: a world built from scratch with the final settings and given the same state (bitwise
 * state hash), and the implicit / explicit Euler recurrences of a free-falling point. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"
#include "physflow/scene.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static pf_world *make_world(double dt, const double g[3], int workers)
{
    return new_world_dg(PF_EXEC_STATIC, workers, dt, g);
}

/* a 2x2x2 spring cube of 0.5 m at (2, 2, 2), integrated by explicit Euler */
static pf_object_id add_explicit_cube(pf_world *w)
{
    pf_object_def e = pf_object_default_def();
    for (int a = 0; a < 3; a++)
        e.grid[a] = 2, e.grid_min[a] = 2, e.grid_max[a] = 2.5;
    e.solver.kind = PF_SOLVER_EXPLICIT_EULER;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &e, &id), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_springs(w, id, 50, 0.1, NULL, NULL), PF_OK);
    return id;
}

/* object 0: a 3x3x3 spring cube (implicit Euler, damped) with its bottom corner point fixed; object 1: a
 * 2x2x2 spring cube integrated by explicit Euler; object 2: a free point (implicit) */
static void build_scene(pf_world *w)
{
    pf_object_def o = pf_object_default_def();
    for (int a = 0; a < 3; a++)
        o.grid[a] = 3, o.grid_min[a] = 0, o.grid_max[a] = 1;
    o.solver.rayleigh_mass = 0.5;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_springs(w, id, 200, 1, NULL, NULL), PF_OK);
    uint32_t p0 = 0;
    ck_assert_int_eq(pf_world_fix_points(w, id, &p0, 1), PF_OK);
    id = add_explicit_cube(w);
    pf_object_def p = pf_object_default_def();
    p.points = 1;
    p.vertex_mass = 2;
    ck_assert_int_eq(pf_world_add_object(w, &p, &id), PF_OK);
}

/* copies every object's state of `from` into `to` (built the same way) */
static void copy_state(pf_world *to, const pf_world *from)
{
    for (uint32_t k = 0; k < pf_world_objects(from); k++) {
        pf_object_id o = {k}; /* objects are numbered in creation order */
        ck_assert_int_eq(
            pf_world_set_state(to, o, pf_world_positions(from, o, NULL), pf_world_velocities(from, o, NULL)),
            PF_OK);
    }
}

START_TEST(dt_and_gravity_changed_between_steps)
{
    const double g1[3] = {0, 0, -9.81}, g2[3] = {1.5, -2, -3};
    const double dt1 = 0.01, dt2 = 0.004;
    const uint32_t N = 30, M = 40;
    for (int workers = 1; workers <= 2; workers++) {
        pf_world *a = make_world(dt1, g1, workers), *b = make_world(dt1, g1, workers),
                 *c = make_world(dt2, g2, workers);
        build_scene(a);
        build_scene(b);
        build_scene(c);
        ck_assert_int_eq(pf_world_step(a, N), PF_OK);
        ck_assert_int_eq(pf_world_step(b, N), PF_OK);
        ck_assert_uint_eq(pf_world_state_hash(a), pf_world_state_hash(b));
        ck_assert_int_eq(pf_world_set_dt(a, dt2), PF_OK);
        ck_assert_int_eq(pf_world_set_gravity(a, g2), PF_OK);
        double dt, g[3];
        ck_assert_int_eq(pf_world_get_dt(a, &dt), PF_OK);
        ck_assert_int_eq(pf_world_get_gravity(a, g), PF_OK);
        ck_assert(dt == dt2 && memcmp(g, g2, sizeof g) == 0);
        ck_assert_int_eq(pf_world_step(a, M), PF_OK);
        /* the oracle: a world built with dt2, g2 from the start, given b's state after N steps */
        copy_state(c, b);
        ck_assert_int_eq(pf_world_step(c, M), PF_OK);
        ck_assert_uint_eq(pf_world_state_hash(a), pf_world_state_hash(c));
        /* and the world that was not changed went on differently */
        ck_assert_int_eq(pf_world_step(b, M), PF_OK);
        ck_assert_uint_ne(pf_world_state_hash(a), pf_world_state_hash(b));
        pf_world_destroy(a);
        pf_world_destroy(b);
        pf_world_destroy(c);
    }
}
END_TEST

/* A free point: implicit Euler v += h g, x += h v; symplectic Euler the same for a gravity-only point. */
START_TEST(free_fall_follows_the_recurrence)
{
    const double g1[3] = {0, 0, -9.81}, g2[3] = {2, 0, 4};
    for (int kind = 0; kind < 2; kind++) {
        pf_world *w = make_world(0.01, g1, 1);
        pf_object_def p = pf_object_default_def();
        p.points = 1;
        p.vertex_mass = 3;
        p.solver.kind = kind ? PF_SOLVER_EXPLICIT_EULER : PF_SOLVER_IMPLICIT_EULER;
        ck_assert_int_eq(pf_world_add_object(w, &p, NULL), PF_OK);
        double x[3] = {0}, v[3] = {0};
        struct {
            double dt;
            const double *g;
            uint32_t n;
        } phases[] = {{0.01, g1, 20}, {0.03, g2, 15}, {0.002, g1, 25}};
        for (int ph = 0; ph < 3; ph++) {
            ck_assert_int_eq(pf_world_set_dt(w, phases[ph].dt), PF_OK);
            ck_assert_int_eq(pf_world_set_gravity(w, phases[ph].g), PF_OK);
            ck_assert_int_eq(pf_world_step(w, phases[ph].n), PF_OK);
            for (uint32_t s = 0; s < phases[ph].n; s++)
                for (int d = 0; d < 3; d++) {
                    v[d] += phases[ph].dt * phases[ph].g[d];
                    x[d] += phases[ph].dt * v[d];
                }
            const double *wx = pf_world_positions(w, (pf_object_id){0}, NULL),
                         *wv = pf_world_velocities(w, (pf_object_id){0}, NULL);
            for (int d = 0; d < 3; d++) {
                ck_assert_double_eq_tol(wv[d], v[d], 1e-12 * (1 + fabs(v[d])));
                ck_assert_double_eq_tol(wx[d], x[d], 1e-12 * (1 + fabs(x[d])));
            }
        }
        pf_world_destroy(w);
    }
}
END_TEST

START_TEST(dt_and_gravity_checked)
{
    const double g[3] = {0, 0, -1};
    pf_world *w = make_world(0.01, g, 1);
    build_scene(w);
    uint64_t h = pf_world_state_hash(w);
    ck_assert_int_eq(pf_world_set_dt(w, 0), PF_EINVAL);
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "pf_world_set_dt"));
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "dt"));
    ck_assert_int_eq(pf_world_set_dt(w, -1), PF_EINVAL);
    ck_assert_int_eq(pf_world_set_dt(w, NAN), PF_EINVAL);
    ck_assert_int_eq(pf_world_set_dt(w, INFINITY), PF_EINVAL);
    ck_assert_int_eq(pf_world_set_dt(NULL, 0.01), PF_EINVAL);
    const double bad[3] = {0, NAN, 0};
    ck_assert_int_eq(pf_world_set_gravity(w, bad), PF_EINVAL);
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "pf_world_set_gravity"));
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "gravity[1]"));
    ck_assert_int_eq(pf_world_set_gravity(w, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_set_gravity(NULL, g), PF_EINVAL);
    double dt, gg[3];
    ck_assert_int_eq(pf_world_get_dt(w, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_get_dt(NULL, &dt), PF_EINVAL);
    ck_assert_int_eq(pf_world_get_gravity(w, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_get_gravity(NULL, gg), PF_EINVAL);
    ck_assert_int_eq(pf_world_get_dt(w, &dt), PF_OK);
    ck_assert(dt == 0.01);
    ck_assert_int_eq(pf_world_get_gravity(w, gg), PF_OK);
    ck_assert(memcmp(gg, g, sizeof g) == 0);
    ck_assert_uint_eq(pf_world_state_hash(w), h);
    /* the same values again re-record nothing */
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    uint32_t updates, after;
    pf_world_update up;
    ck_assert_int_eq(pf_world_get_last_update(w, &up, &updates), PF_OK);
    ck_assert_int_eq(pf_world_set_dt(w, 0.01), PF_OK);
    ck_assert_int_eq(pf_world_set_gravity(w, g), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    ck_assert_int_eq(pf_world_get_last_update(w, &up, &after), PF_OK);
    ck_assert_uint_eq(after, updates);
    pf_world_destroy(w);
}
END_TEST

/* ---- unfixing points ---- */

/* a 3x3x3 spring cube (implicit) with the listed points fixed, and a 2x2x2 one (explicit) entirely fixed */
static void build_fixed(pf_world *w, const uint32_t *fixed, uint32_t nfixed, int second_fixed)
{
    pf_object_def o = pf_object_default_def();
    for (int a = 0; a < 3; a++)
        o.grid[a] = 3, o.grid_min[a] = 0, o.grid_max[a] = 1;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_springs(w, id, 300, 0.5, NULL, NULL), PF_OK);
    ck_assert_int_eq(pf_world_fix_points(w, id, fixed, nfixed), PF_OK);
    id = add_explicit_cube(w);
    if (second_fixed) {
        double box[6] = {-9, -9, -9, 9, 9, 9};
        ck_assert_int_eq(pf_world_fix_box(w, id, box, NULL), PF_OK);
    }
}

START_TEST(unfixed_points_move_as_never_fixed_ones)
{
    const double g[3] = {0, 0, -9.81};
    const uint32_t fixed[] = {0, 2, 6, 8}, all[] = {0, 1, 2, 3, 4, 5, 6, 7},
                   freed[] = {2, 8, 13 /* never fixed */};
    const uint32_t kept[] = {0, 6};
    for (int workers = 1; workers <= 2; workers++) {
        pf_world *a = make_world(0.01, g, workers), *b = make_world(0.01, g, workers);
        build_fixed(a, fixed, 4, 1);
        /* the oracle: built with only the points that stay fixed, given a's state when they are freed */
        build_fixed(b, kept, 2, 0);
        uint32_t n;
        const double *x0 = pf_world_positions(a, (pf_object_id){0}, &n);
        double start0[81], start1[24];
        memcpy(start0, x0, sizeof start0);
        memcpy(start1, pf_world_positions(a, (pf_object_id){1}, NULL), sizeof start1);
        ck_assert_int_eq(pf_world_step(a, 25), PF_OK);
        /* fixed points stay put, bit for bit */
        const double *x = pf_world_positions(a, (pf_object_id){0}, NULL);
        for (int k = 0; k < 4; k++)
            ck_assert(memcmp(x + 3 * fixed[k], start0 + 3 * fixed[k], 3 * sizeof *x) == 0);
        ck_assert(memcmp(pf_world_positions(a, (pf_object_id){1}, NULL), start1, sizeof start1) == 0);
        ck_assert(memcmp(x + 3 * 4, start0 + 3 * 4, 3 * sizeof *x) != 0); /* a free point moved */
        ck_assert_int_eq(pf_world_unfix_points(a, (pf_object_id){0}, freed, 3), PF_OK);
        ck_assert_int_eq(pf_world_unfix_points(a, (pf_object_id){1}, all, 8), PF_OK);
        copy_state(b, a);
        ck_assert_int_eq(pf_world_step(a, 30), PF_OK);
        ck_assert_int_eq(pf_world_step(b, 30), PF_OK);
        ck_assert_uint_eq(pf_world_state_hash(a), pf_world_state_hash(b));
        x = pf_world_positions(a, (pf_object_id){0}, NULL);
        for (int k = 0; k < 2; k++)
            ck_assert(memcmp(x + 3 * kept[k], start0 + 3 * kept[k], 3 * sizeof *x) == 0);
        ck_assert(memcmp(x + 3 * 8, start0 + 3 * 8, 3 * sizeof *x) != 0);
        ck_assert(pf_world_positions(a, (pf_object_id){1}, NULL)[2] < start1[2]); /* the freed object falls */
        pf_world_destroy(a);
        pf_world_destroy(b);
    }
}
END_TEST

START_TEST(unfix_checked)
{
    const double g[3] = {0, 0, -9.81};
    const uint32_t fixed[] = {0, 2};
    pf_world *w = make_world(0.01, g, 1);
    build_fixed(w, fixed, 2, 0);
    uint64_t h = pf_world_state_hash(w);
    const uint32_t bad[] = {2, 27};
    ck_assert_int_eq(pf_world_unfix_points(w, (pf_object_id){0}, bad, 2), PF_EINVAL);
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "pf_world_unfix_points"));
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "points[1] = 27"));
    ck_assert_int_eq(pf_world_unfix_points(w, (pf_object_id){5}, fixed, 1), PF_EINVAL);
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "pf_world_unfix_points"));
    ck_assert_int_eq(pf_world_unfix_points(w, (pf_object_id){0}, NULL, 1), PF_EINVAL);
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "points"));
    ck_assert_int_eq(pf_world_unfix_points(NULL, (pf_object_id){0}, fixed, 1), PF_EINVAL);
    ck_assert_int_eq(pf_world_unfix_points(w, (pf_object_id){0}, NULL, 0), PF_OK);
    ck_assert_uint_eq(pf_world_state_hash(w), h);
    /* point 2 was not unfixed by the refused call: it stays put */
    double x2[3];
    memcpy(x2, pf_world_positions(w, (pf_object_id){0}, NULL) + 6, sizeof x2);
    ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
    ck_assert(memcmp(pf_world_positions(w, (pf_object_id){0}, NULL) + 6, x2, sizeof x2) == 0);
    pf_world_destroy(w);
}
END_TEST

/* ---- reading back what a host set ---- */

START_TEST(mass_and_solver_read_back)
{
    const double g[3] = {0, 0, -9.81};
    pf_world *w = make_world(0.01, g, 1);
    pf_object_def a = pf_object_default_def();
    for (int k = 0; k < 3; k++)
        a.grid[k] = 3, a.grid_min[k] = 0, a.grid_max[k] = 1;
    a.vertex_mass = 2;
    a.solver.kind = PF_SOLVER_EXPLICIT_EULER;
    a.solver.rayleigh_mass = 0.25;
    pf_object_def b = pf_object_default_def();
    b.points = 7;
    b.total_mass = 3;
    b.solver.rayleigh_stiffness = 0.01;
    b.solver.cg_iterations = 40;
    b.solver.cg_tolerance = 1e-7;
    b.solver.cg_threshold = 1e-12;
    pf_rigid_def r = pf_rigid_default_def(); /* a 1 m cube of 1000 kg/m³ */
    pf_object_id ia, ib, ir;
    ck_assert_int_eq(pf_world_add_object(w, &a, &ia), PF_OK);
    ck_assert_int_eq(pf_world_add_object(w, &b, &ib), PF_OK);
    ck_assert_int_eq(pf_world_add_rigid(w, &r, &ir), PF_OK);
    double pm, tm;
    ck_assert_int_eq(pf_world_get_object_mass(w, ia, &pm, &tm), PF_OK);
    ck_assert(pm == 2 && tm == 54);
    ck_assert_int_eq(pf_world_get_object_mass(w, ib, &pm, NULL), PF_OK);
    ck_assert_double_eq(pm, 3.0 / 7.0);
    ck_assert_int_eq(pf_world_get_object_mass(w, ib, NULL, &tm), PF_OK);
    ck_assert_double_eq_tol(tm, 3, 1e-14);
    ck_assert_int_eq(pf_world_get_object_mass(w, ir, &pm, &tm), PF_OK);
    ck_assert_double_eq_tol(pm, 1000, 1e-9);
    ck_assert_double_eq_tol(tm, 1000, 1e-9);
    pf_solver_def s;
    ck_assert_int_eq(pf_world_get_solver(w, ia, &s), PF_OK);
    ck_assert(s.kind == a.solver.kind && s.rayleigh_mass == 0.25 && s.rayleigh_stiffness == 0 &&
              s.cg_iterations == 25 && s.cg_tolerance == 1e-9 && s.cg_threshold == 1e-9);
    ck_assert_int_eq(pf_world_get_solver(w, ib, &s), PF_OK);
    ck_assert(s.kind == PF_SOLVER_IMPLICIT_EULER && s.rayleigh_mass == 0 && s.rayleigh_stiffness == 0.01 &&
              s.cg_iterations == 40 && s.cg_tolerance == 1e-7 && s.cg_threshold == 1e-12);
    ck_assert_int_eq(pf_world_get_solver(w, ir, &s), PF_OK);
    pf_solver_def d = pf_solver_default_def();
    ck_assert(s.kind == d.kind && s.rayleigh_mass == d.rayleigh_mass &&
              s.rayleigh_stiffness == d.rayleigh_stiffness && s.cg_iterations == d.cg_iterations &&
              s.cg_tolerance == d.cg_tolerance && s.cg_threshold == d.cg_threshold);
    /* refusals name the function and the argument */
    ck_assert_int_eq(pf_world_get_object_mass(w, (pf_object_id){3}, &pm, &tm), PF_EINVAL);
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "pf_world_get_object_mass"));
    ck_assert_int_eq(pf_world_get_object_mass(NULL, (pf_object_id){0}, &pm, &tm), PF_EINVAL);
    ck_assert_int_eq(pf_world_get_solver(w, (pf_object_id){3}, &s), PF_EINVAL);
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "pf_world_get_solver"));
    ck_assert_int_eq(pf_world_get_solver(w, (pf_object_id){0}, NULL), PF_EINVAL);
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "out"));
    ck_assert_int_eq(pf_world_get_solver(NULL, (pf_object_id){0}, &s), PF_EINVAL);
    pf_world_destroy(w);
}
END_TEST

/* ---- contact depth and force ---- */

typedef struct seen {
    uint32_t calls, n;
    pf_world_contact c;
} seen;

static void record_contact(const pf_world_contact *c, uint32_t n, void *ctx)
{
    seen *s = ctx;
    if (s->calls++ == 0) {
        s->n = n;
        if (n) s->c = c[0];
    }
}

/* One point (object 0) at height z with vertical velocity vz over a static floor sheet at z = 0 (object 1):
 * at the first step the callback sees one contact, normal +z (from the floor towards the point), distance z,
 * depth d - z and the penalty force k (d - z) - c vz along +z while positive. */
static seen one_contact(double z, double vz, double k, double c)
{
    const double g[3] = {0, 0, -9.81};
    pf_world *w = make_world(0.001, g, 1);
    pf_object_def p = pf_object_default_def();
    p.points = 1;
    double x[3] = {0.1, 0.2, z}, v[3] = {0, 0, vz};
    p.positions = x;
    p.velocities = v;
    pf_object_id pt, floor;
    ck_assert_int_eq(pf_world_add_object(w, &p, &pt), PF_OK);
    pf_surface_def sd = pf_surface_default_def();
    uint32_t p0 = 0;
    sd.vertices = 1;
    sd.points = &p0;
    ck_assert_int_eq(pf_world_add_surface(w, pt, &sd, NULL), PF_OK);
    pf_object_def f = pf_object_default_def();
    f.grid[0] = f.grid[1] = 2;
    f.grid[2] = 1;
    f.grid_min[0] = f.grid_min[1] = -1;
    f.grid_max[0] = f.grid_max[1] = 1;
    ck_assert_int_eq(pf_world_add_object(w, &f, &floor), PF_OK);
    double box[6] = {-9, -9, -9, 9, 9, 9};
    ck_assert_int_eq(pf_world_fix_box(w, floor, box, NULL), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, floor, NULL), PF_OK);
    pf_collision_def cd = pf_collision_default_def();
    cd.stiffness = k;
    cd.damping = c;
    ck_assert_int_eq(pf_world_set_collision(w, &cd), PF_OK);
    seen s = {0};
    ck_assert_int_eq(pf_world_set_contact_callback(w, record_contact, &s), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    pf_world_destroy(w);
    return s;
}

START_TEST(contact_reports_depth_and_force)
{
    const double d = pf_collision_default_def().contact_distance, k = 1000, c = 5;
    /* at rest, compressed by 4 mm: f = k (d - z) along +z */
    seen s = one_contact(0.006, 0, k, c);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_uint_eq(s.c.object_a.index, 0);
    ck_assert_uint_eq(s.c.object_b.index, 1);
    ck_assert_double_eq_tol(s.c.normal[2], 1, 1e-12);
    ck_assert_double_eq_tol(s.c.distance, 0.006, 1e-12);
    ck_assert_double_eq_tol(s.c.depth, d - 0.006, 1e-12);
    ck_assert_double_eq_tol(s.c.force[0], 0, 1e-9);
    ck_assert_double_eq_tol(s.c.force[1], 0, 1e-9);
    ck_assert_double_eq_tol(s.c.force[2], k * (d - 0.006), 1e-9);
    /* approaching at 0.2 m/s: the damping adds c * 0.2 */
    s = one_contact(0.006, -0.2, k, c);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_double_eq_tol(s.c.force[2], k * (d - 0.006) + c * 0.2, 1e-9);
    /* leaving fast enough that the damping cancels the spring: unilateral, no pull */
    s = one_contact(0.006, 2, k, c);
    ck_assert_uint_eq(s.n, 1);
    ck_assert(s.c.force[0] == 0 && s.c.force[1] == 0 && s.c.force[2] == 0);
    /* within the alarm distance but beyond the contact distance: depth < 0, no force */
    s = one_contact(0.015, 0, k, c);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_double_eq_tol(s.c.depth, d - 0.015, 1e-12);
    ck_assert(s.c.depth < 0 && s.c.force[2] == 0);
}
END_TEST

/* ---- scene components' destructors ---- */

/* A host component that gives its node a custom force field whose ctx it allocates: a constant upward force
 * that the destructor frees, counting its calls. */
typedef struct lift {
    double fz;
    int *destroyed;
} lift;

static void lift_force(const double *x, const double *v, double *f, uint32_t points, void *ctx)
{
    (void)x, (void)v;
    for (uint32_t i = 0; i < points; i++)
        f[3 * i + 2] += ((const lift *)ctx)->fz;
}

static void lift_free(void *state)
{
    lift *l = state;
    (*l->destroyed)++;
    free(l);
}

static int lift_component(pf_scene_component *c, void *ctx)
{
    double fz = 0;
    int rc = pf_scene_component_real(c, "fz", -1e6, 1e6, &fz);
    if (rc < 0) return rc;
    lift *l = malloc(sizeof *l);
    if (!l) return pf_scene_component_error(c, PF_ENOMEM, "out of memory");
    *l = (lift){fz, ctx};
    if ((rc = pf_scene_component_on_destroy(c, lift_free, l))) return rc;
    pf_object_id o;
    if ((rc = pf_scene_component_object(c, &o))) return rc;
    pf_force_field_def ff = pf_force_field_default_def();
    ff.add_force = lift_force;
    ff.ctx = l;
    return pf_world_add_force_field(pf_scene_component_world(c), o, &ff, NULL);
}

START_TEST(component_destructors_run_once)
{
    int destroyed = 0;
    pf_scene_registry *r;
    ck_assert_int_eq(pf_scene_registry_create(&r), PF_OK);
    pf_scene_component_def def = {"Lift", PF_SCENE_STAGE_FORCES, lift_component, &destroyed};
    ck_assert_int_eq(pf_scene_register(r, &def), PF_OK);
    pf_scene_load_def ld = pf_scene_default_load_def();
    ld.registry = r;
    ld.world.runtime.quiet = 1;
    ld.world.runtime.bind = 0;
    /* gravity -9.81 on 1 kg, lifted by 9.81 N: the point stays put */
    const char *xml = "<Node gravity='0 0 -9.81'><EulerImplicitSolver/>"
                      "<Node name='a'><MechanicalObject position='0 0 0'/><UniformMass vertexMass='1'/>"
                      "<Lift fz='9.81'/></Node>"
                      "<Node name='b'><MechanicalObject position='1 0 0'/><UniformMass vertexMass='1'/>"
                      "<Lift fz='0'/><Lift fz='9.81'/></Node></Node>";
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&ld, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s",
                  pf_last_error());
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 10), PF_OK);
    ck_assert_int_eq(destroyed, 0);
    for (uint32_t o = 0; o < 2; o++)
        ck_assert_double_eq_tol(pf_world_positions(pf_scene_world(s), (pf_object_id){o}, NULL)[2], 0, 1e-12);
    /* the world may use the components' state: it cannot leave the scene */
    ck_assert_ptr_null(pf_scene_release_world(s));
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "pf_scene_release_world"));
    ck_assert_int_eq(destroyed, 0);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 1), PF_OK); /* the scene is still whole */
    pf_scene_destroy(s);
    ck_assert_int_eq(destroyed, 3);
    /* a failed load runs the destructors of the components built so far */
    destroyed = 0;
    const char *bad =
        "<Node><EulerImplicitSolver/><Node><MechanicalObject position='0 0 0'/><Lift fz='1'/></Node>"
        "<Node><MechanicalObject position='0 0 0'/><Lift fz='1'/><Lift fz='nope'/></Node></Node>";
    ck_assert_int_eq(pf_scene_load_memory(&ld, "t.xml", bad, strlen(bad), NULL, &s), PF_EPARSE);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(destroyed, 2);
    /* a scene without destructors still gives its world away */
    const char *plain =
        "<Node><EulerImplicitSolver/><Node><MechanicalObject position='0 0 0'/></Node></Node>";
    ck_assert_int_eq(pf_scene_load_memory(&ld, "t.xml", plain, strlen(plain), NULL, &s), PF_OK);
    pf_world *w = pf_scene_release_world(s);
    ck_assert_ptr_nonnull(w);
    pf_world_destroy(w);
    pf_scene_registry_destroy(r);
}
END_TEST

START_TEST(component_destructor_checked)
{
    ck_assert_int_eq(pf_scene_component_on_destroy(NULL, lift_free, NULL), PF_EINVAL);
    ck_assert_ptr_nonnull(strstr(pf_last_error(), "pf_scene_component_on_destroy"));
}
END_TEST

/* ---- calls from inside a step are refused ---- */

typedef struct inside {
    pf_world *w;
    int calls, refused_all;
} inside;

static void try_all(inside *in)
{
    const double g[3] = {0, 0, 1};
    int ok = pf_world_set_dt(in->w, 0.02) == PF_ESTATE;
    ok &= pf_world_set_gravity(in->w, g) == PF_ESTATE;
    const uint32_t p0 = 0;
    ok &= pf_world_unfix_points(in->w, (pf_object_id){0}, &p0, 1) == PF_ESTATE;
    in->calls++;
    in->refused_all = ok && (in->calls == 1 || in->refused_all);
}

static void host_force(const double *x, const double *v, double *f, uint32_t points, void *ctx)
{
    (void)x, (void)v, (void)f, (void)points;
    inside *in = ctx;
    if (in->calls == 0) try_all(in);
}

START_TEST(refused_inside_a_step)
{
    const double g[3] = {0, 0, -9.81};
    pf_world *w = make_world(0.01, g, 1), *clean = make_world(0.01, g, 1);
    build_scene(w);
    build_scene(clean);
    inside in = {w, 0, 0};
    pf_force_field_def ff = pf_force_field_default_def();
    ff.add_force = host_force;
    ff.ctx = &in;
    ck_assert_int_eq(pf_world_add_force_field(w, (pf_object_id){0}, &ff, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 3), PF_OK);
    ck_assert_int_eq(pf_world_step(clean, 3), PF_OK);
    ck_assert_int_ge(in.calls, 1);
    ck_assert_msg(in.refused_all, "a call from inside the step was not refused");
    ck_assert_uint_eq(pf_world_state_hash(w), pf_world_state_hash(clean));
    pf_world_destroy(w);
    pf_world_destroy(clean);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_lifecycle");
    TCase *tc = tcase_create("lifecycle");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, dt_and_gravity_changed_between_steps);
    tcase_add_test(tc, free_fall_follows_the_recurrence);
    tcase_add_test(tc, dt_and_gravity_checked);
    tcase_add_test(tc, unfixed_points_move_as_never_fixed_ones);
    tcase_add_test(tc, unfix_checked);
    tcase_add_test(tc, mass_and_solver_read_back);
    tcase_add_test(tc, contact_reports_depth_and_force);
    tcase_add_test(tc, refused_inside_a_step);
    tcase_add_test(tc, component_destructors_run_once);
    tcase_add_test(tc, component_destructor_checked);
    suite_add_tcase(s, tc);
    return s;
}
