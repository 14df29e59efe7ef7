/* The physics API against wrong calls: every public function of physflow/physics.h given NULL, out-of-range,
 * NaN, infinite, overflowing and wrong arguments, and calls made from inside a step (the contact callback, a
 * host force field). Oracles: the call's contract — a negative code, a message naming the function in the
 * caller's terms (no C operator, no internal name), and the world's state hash unchanged. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The message of the last refusal: names fn (and `what` when given), no C condition, no internal name. */
static void assert_message(const char *fn, const char *what)
{
    const char *m = pf_last_error();
    ck_assert_msg(strstr(m, fn), "message '%s' should name %s", m, fn);
    if (what) ck_assert_msg(strstr(m, what), "message '%s' should name %s", m, what);
    static const char *const bad[] = {"&&", "||", "->", "!=", "==", "!(", "w->", "nobj", "obj.n", "invalid argument"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        ck_assert_msg(!strstr(m, bad[k]), "message '%s' contains '%s'", m, bad[k]);
}

#define REFUSED(call, fn, what)                                                                              \
    do {                                                                                                     \
        uint64_t h_ = pf_world_state_hash(w);                                                                \
        int rc_ = (call);                                                                                    \
        ck_assert_msg(rc_ < 0, "%s returned %d", #call, rc_);                                                \
        assert_message(fn, what);                                                                            \
        ck_assert_msg(pf_world_state_hash(w) == h_, "%s changed the world", #call);                          \
    } while (0)

/* a 3x3x3 grid of 1 m, springs on it; object 0 */
static pf_object_id add_cube(pf_world *w, double z)
{
    pf_object_def o = pf_object_default_def();
    for (int a = 0; a < 3; a++) o.grid[a] = 3, o.grid_min[a] = a == 2 ? z : 0, o.grid_max[a] = a == 2 ? z + 1 : 1;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_springs(w, id, 100, 0, NULL, NULL), PF_OK);
    return id;
}

START_TEST(world_lifecycle)
{
    pf_world_def d = pf_world_default_def();
    pf_world *w = NULL;
    ck_assert_int_lt(pf_world_create(NULL, &w), 0);
    assert_message("pf_world_create", "def");
    ck_assert_int_lt(pf_world_create(&d, NULL), 0);
    assert_message("pf_world_create", "out");
    const double bad[] = {NAN, INFINITY, -1, 0};
    for (size_t k = 0; k < 4; k++) {
        d = pf_world_default_def();
        d.dt = bad[k];
        ck_assert_int_lt(pf_world_create(&d, &w), 0);
        assert_message("pf_world_create", "def.dt");
        ck_assert_ptr_null(w);
        d = pf_world_default_def();
        d.gravity[1] = bad[k];
        ck_assert_int_eq(pf_world_create(&d, &w), k < 2 ? PF_EINVAL : PF_OK);
        if (k < 2) assert_message("pf_world_create", "def.gravity[1]");
        pf_world_destroy(w);
        w = NULL;
    }
    d = pf_world_default_def();
    d.runtime.workers = 0;
    ck_assert_int_lt(pf_world_create(&d, &w), 0);
    assert_message("pf_world_create", "def.runtime.workers");
    d = pf_world_default_def();
    d.runtime.executor = (pf_executor)99;
    ck_assert_int_lt(pf_world_create(&d, &w), 0);
    assert_message("pf_world_create", "def.runtime.executor");
    d = pf_world_default_def();
    d.max_speed = NAN;
    ck_assert_int_lt(pf_world_create(&d, &w), 0);
    assert_message("pf_world_create", "def.max_speed");

    w = new_world(PF_EXEC_STATIC, 1);
    add_cube(w, 0);
    REFUSED(pf_world_set_executor(NULL, PF_EXEC_SEQ), "pf_world_set_executor", "world");
    REFUSED(pf_world_set_executor(w, (pf_executor)-1), "pf_world_set_executor", "executor");
    REFUSED(pf_world_set_partitioner(w, (pf_partitioner)7), "pf_world_set_partitioner", "partitioner");
    REFUSED(pf_world_set_repartition(w, (pf_repartition)7), "pf_world_set_repartition", "repartition");
    REFUSED(pf_world_set_workers(w, 0), "pf_world_set_workers", "workers");
    REFUSED(pf_world_set_workers(NULL, 1), "pf_world_set_workers", "world");
    REFUSED(pf_world_step(NULL, 1), "pf_world_step", "world");
    pf_world_update up;
    REFUSED(pf_world_get_last_update(NULL, &up, NULL), "pf_world_get_last_update", "world");
    REFUSED(pf_world_get_last_update(w, NULL, NULL), "pf_world_get_last_update", "out");
    pf_world_stats st;
    REFUSED(pf_world_get_stats(NULL, &st), "pf_world_get_stats", "world");
    REFUSED(pf_world_get_stats(w, NULL), "pf_world_get_stats", "out");
    int nw;
    REFUSED(pf_world_get_worker_stats(w, NULL, 4, &nw), "pf_world_get_worker_stats", "out");
    REFUSED(pf_world_get_worker_stats(w, NULL, 0, NULL), "pf_world_get_worker_stats", "workers");
    REFUSED(pf_world_get_worker_stats(w, NULL, -1, &nw), "pf_world_get_worker_stats", "cap");
    REFUSED(pf_world_remove_interaction(w, (pf_interaction_id){12345}), "pf_world_remove_interaction",
            "12345");
    REFUSED(pf_world_remove_interaction(NULL, (pf_interaction_id){0}), "pf_world_remove_interaction",
            "world");
    ck_assert_ptr_null(pf_world_runtime(NULL));
    ck_assert_uint_eq(pf_world_objects(NULL), 0);
    ck_assert_uint_eq(pf_world_surfaces(NULL), 0);
    pf_world_destroy(NULL);
    pf_world_destroy(w);
}
END_TEST

/* What a host sets, it reads back: the world's settings after each setter, the collision stage's settings
 * (PF_ESTATE before there is one), a surface's friction. */
START_TEST(getters_read_back_the_setters)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    ck_assert_int_eq(pf_world_set_executor(w, PF_EXEC_BARRIER), PF_OK);
    ck_assert_int_eq(pf_world_set_partitioner(w, PF_PART_METIS), PF_OK);
    ck_assert_int_eq(pf_world_set_repartition(w, PF_REPART_NEVER), PF_OK);
    ck_assert_int_eq(pf_world_set_workers(w, 2), PF_OK);
    ck_assert_int_eq(pf_world_set_dt(w, 0.004), PF_OK);
    double g[3] = {1, 2, -3};
    ck_assert_int_eq(pf_world_set_gravity(w, g), PF_OK);
    pf_world_def d;
    ck_assert_int_eq(pf_world_get_def(w, &d), PF_OK);
    ck_assert_int_eq(d.runtime.executor, PF_EXEC_BARRIER);
    ck_assert_int_eq(d.runtime.partitioner, PF_PART_METIS);
    ck_assert_int_eq(d.runtime.repartition, PF_REPART_NEVER);
    ck_assert_int_eq(d.runtime.workers, 2);
    ck_assert(d.dt == 0.004 && d.gravity[0] == 1 && d.gravity[1] == 2 && d.gravity[2] == -3);
    REFUSED(pf_world_get_def(w, NULL), "pf_world_get_def", "out");
    pf_collision_def cd;
    ck_assert_int_eq(pf_world_get_collision(w, &cd), PF_ESTATE);
    assert_message("pf_world_get_collision", "no collision stage");
    pf_collision_def set = pf_collision_default_def();
    set.friction = 0.4;
    set.stiffness = 2500;
    ck_assert_int_eq(pf_world_set_collision(w, &set), PF_OK);
    ck_assert_int_eq(pf_world_get_collision(w, &cd), PF_OK);
    ck_assert(cd.broadphase == set.broadphase && cd.alarm_distance == set.alarm_distance &&
              cd.contact_distance == set.contact_distance && cd.stiffness == set.stiffness &&
              cd.damping == set.damping && cd.friction == set.friction);
    set.friction = -0.1;
    REFUSED(pf_world_set_collision(w, &set), "pf_world_set_collision", "def.friction");
    double dt, grav[3], pm, tm, mu;
    REFUSED(pf_world_get_dt(w, NULL), "pf_world_get_dt", "dt");
    REFUSED(pf_world_get_dt(NULL, &dt), "pf_world_get_dt", "world");
    REFUSED(pf_world_get_gravity(w, NULL), "pf_world_get_gravity", "gravity");
    REFUSED(pf_world_get_gravity(NULL, grav), "pf_world_get_gravity", "world");
    pf_object_id cube = add_cube(w, 0), none = {cube.index + 1};
    REFUSED(pf_world_get_object_mass(w, none, &pm, &tm), "pf_world_get_object_mass", "object");
    ck_assert_int_eq(pf_world_get_object_mass(w, cube, &pm, &tm), PF_OK);
    ck_assert(pm == 1.0 && tm == 27.0); /* 27 points of the default vertex mass */
    pf_solver_def sv;
    REFUSED(pf_world_get_solver(w, none, &sv), "pf_world_get_solver", "object");
    REFUSED(pf_world_get_solver(w, cube, NULL), "pf_world_get_solver", "out");
    pf_surface_id surf, bad_surf = {7};
    ck_assert_int_eq(pf_world_add_grid_surface(w, cube, &surf), PF_OK);
    REFUSED(pf_world_set_surface_friction(w, bad_surf, 0.5), "pf_world_set_surface_friction", "surface");
    REFUSED(pf_world_set_surface_friction(w, surf, -0.5), "pf_world_set_surface_friction", "friction");
    REFUSED(pf_world_set_surface_friction(w, surf, INFINITY), "pf_world_set_surface_friction", "friction");
    REFUSED(pf_world_get_surface_friction(w, bad_surf, &mu, NULL), "pf_world_get_surface_friction", "surface");
    ck_assert_int_eq(pf_world_set_surface_friction(w, surf, 0.7), PF_OK);
    int closed = -1;
    ck_assert_int_eq(pf_world_get_surface_friction(w, surf, &mu, &closed), PF_OK);
    ck_assert(mu == 0.7 && closed == 1); /* a grid's boundary is a closed surface */
    double k;
    REFUSED(pf_world_set_surface_contact_stiffness(w, bad_surf, 10), "pf_world_set_surface_contact_stiffness",
            "surface");
    REFUSED(pf_world_set_surface_contact_stiffness(w, surf, 0), "pf_world_set_surface_contact_stiffness",
            "stiffness");
    REFUSED(pf_world_get_surface_contact_stiffness(w, bad_surf, &k), "pf_world_get_surface_contact_stiffness",
            "surface");
    pf_world_destroy(w);
}
END_TEST

START_TEST(objects)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    pf_object_id id = add_cube(w, 0);
    pf_object_def o = pf_object_default_def();
    REFUSED(pf_world_add_object(NULL, &o, NULL), "pf_world_add_object", "world");
    REFUSED(pf_world_add_object(w, NULL, NULL), "pf_world_add_object", "def");
    o.points = 0;
    REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.points");
    o.points = 2;
    double pos[6] = {0, 0, 0, 1, NAN, 0}, vel[6] = {0, 0, 0, 0, 0, INFINITY};
    o.positions = pos;
    REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.positions[4]");
    o.positions = NULL;
    o.velocities = vel;
    REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.velocities[5]");
    o.velocities = NULL;
    o.points = UINT32_MAX;
    REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", NULL);
    o = pf_object_default_def();
    o.points = 1;
    o.vertex_mass = NAN;
    REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.vertex_mass");
    o.vertex_mass = 1;
    o.solver.kind = (pf_solver_kind)6;
    REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.solver.kind");
    o.solver = pf_solver_default_def();
    o.solver.cg_tolerance = NAN;
    REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.solver.cg_tolerance");
    o.solver = pf_solver_default_def();
    o.solver.cg_iterations = 0;
    REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.solver.cg_iterations");
    o.solver = pf_solver_default_def();
    o.decompose = (pf_decompose)3;
    REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.decompose");
    o = pf_object_default_def();
    o.grid[0] = 2, o.grid[1] = 2, o.grid[2] = -1;
    o.grid_max[0] = o.grid_max[1] = o.grid_max[2] = 1;
    REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.grid[2]");
    o.grid[2] = 2;
    o.grid_min[1] = NAN;
    REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.grid_min[1]");
    o.grid_min[1] = 2;
    REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.grid_max[1]");
    ck_assert_uint_eq(pf_world_objects(w), 1);

    uint32_t pts[2] = {0, 27};
    REFUSED(pf_world_fix_points(w, id, pts, 2), "pf_world_fix_points", "points[1]");
    REFUSED(pf_world_fix_points(w, id, NULL, 2), "pf_world_fix_points", "points");
    REFUSED(pf_world_fix_points(w, (pf_object_id){9}, pts, 1), "pf_world_fix_points", "object 9");
    REFUSED(pf_world_fix_points(NULL, (pf_object_id){0}, pts, 1), "pf_world_fix_points", "world");
    double box[6] = {-1, -1, -1, 2, 2, 2};
    uint32_t out[4], count = 0;
    REFUSED(pf_world_box_select(w, id, NULL, out, 4, &count), "pf_world_box_select", "box");
    REFUSED(pf_world_box_select(w, id, box, out, 4, NULL), "pf_world_box_select", "count");
    REFUSED(pf_world_box_select(w, id, box, NULL, 4, &count), "pf_world_box_select", "out");
    REFUSED(pf_world_box_select(w, (pf_object_id){3}, box, out, 4, &count), "pf_world_box_select",
            "object 3");
    REFUSED(pf_world_fix_box(w, id, NULL, &count), "pf_world_fix_box", "box");
    REFUSED(pf_world_fix_box(w, (pf_object_id){1}, box, &count), "pf_world_fix_box", "object 1");

    uint32_t n;
    ck_assert_ptr_null(pf_world_positions(w, (pf_object_id){5}, &n));
    assert_message("pf_world_positions", "object 5");
    ck_assert_ptr_null(pf_world_velocities(NULL, (pf_object_id){0}, &n));
    assert_message("pf_world_velocities", "world");
    double x[81];
    memcpy(x, pf_world_positions(w, id, &n), sizeof x);
    x[40] = NAN;
    REFUSED(pf_world_set_state(w, id, x, NULL), "pf_world_set_state", "x[40]");
    x[40] = 0;
    double v[81] = {0};
    v[3] = -INFINITY;
    REFUSED(pf_world_set_state(w, id, NULL, v), "pf_world_set_state", "v[3]");
    REFUSED(pf_world_set_state(w, (pf_object_id){2}, x, NULL), "pf_world_set_state", "object 2");
    pf_world_destroy(w);
}
END_TEST

/* Finding: a NaN bound selected every point. */
START_TEST(nan_box_bound)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    pf_object_id id = add_cube(w, 0);
    for (int k = 0; k < 6; k++) {
        double box[6] = {-1, -1, -1, 2, 2, 2};
        box[k] = NAN;
        uint32_t count = 99;
        char what[8];
        snprintf(what, sizeof what, "box[%d]", k);
        REFUSED(pf_world_box_select(w, id, box, NULL, 0, &count), "pf_world_box_select", what);
        ck_assert_uint_eq(count, 99);
        REFUSED(pf_world_fix_box(w, id, box, &count), "pf_world_fix_box", what);
        box[k] = k < 3 ? -INFINITY : INFINITY;
        REFUSED(pf_world_fix_box(w, id, box, &count), "pf_world_fix_box", what);
    }
    /* nothing was fixed: the cube falls */
    uint64_t h = pf_world_state_hash(w);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    ck_assert_uint_ne(pf_world_state_hash(w), h);
    pf_world_destroy(w);
}
END_TEST

/* Finding: total_mass NaN or negative became 1 kg per point. */
START_TEST(bad_total_mass)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    const double bad[] = {NAN, -1, -INFINITY, INFINITY};
    for (size_t k = 0; k < 4; k++) {
        pf_object_def o = pf_object_default_def();
        o.points = 4;
        o.total_mass = bad[k];
        REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.total_mass");
        ck_assert_uint_eq(pf_world_objects(w), 0);
    }
    pf_world_destroy(w);
}
END_TEST

/* Per-point masses: each must be a finite mass > 0; pf_world_get_point_masses names its bad arguments. */
START_TEST(point_masses_calls)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    const double bad[] = {0, -1, NAN, INFINITY};
    double m[4] = {1, 2, 3, 4};
    pf_object_def o = pf_object_default_def();
    o.points = 4;
    o.point_masses = m;
    for (size_t k = 0; k < 4; k++) {
        m[2] = bad[k];
        REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.point_masses[2]");
        ck_assert_uint_eq(pf_world_objects(w), 0);
    }
    m[2] = 3;
    o.total_mass = -1; /* ignored with point masses */
    pf_object_id id, none = {5};
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    double out[4], pm, tm;
    uint32_t n = 0;
    REFUSED(pf_world_get_point_masses(NULL, id, out, 4, &n), "pf_world_get_point_masses", "world");
    REFUSED(pf_world_get_point_masses(w, none, out, 4, &n), "pf_world_get_point_masses", "object");
    REFUSED(pf_world_get_point_masses(w, id, out, 4, NULL), "pf_world_get_point_masses", "points");
    REFUSED(pf_world_get_point_masses(w, id, NULL, 4, &n), "pf_world_get_point_masses", "out");
    ck_assert_int_eq(pf_world_get_point_masses(w, id, NULL, 0, &n), PF_OK);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(pf_world_get_point_masses(w, id, out, 4, &n), PF_OK);
    ck_assert(out[0] == 1 && out[3] == 4);
    ck_assert_int_eq(pf_world_get_object_mass(w, id, &pm, &tm), PF_OK);
    ck_assert(pm == 2.5 && tm == 10);
    pf_object_id body;
    pf_rigid_def rd = pf_rigid_default_def();
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &body), PF_OK);
    REFUSED(pf_world_get_point_masses(w, body, out, 4, &n), "pf_world_get_point_masses", "rigid body");
    pf_world_destroy(w);
}
END_TEST

/* Finding: a NaN position in pf_object_def was accepted and the step blamed "blowing up". */
START_TEST(nan_position_in_def)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    double pos[6] = {0, 0, 0, 0, NAN, 0};
    pf_object_def o = pf_object_default_def();
    o.points = 2;
    o.positions = pos;
    REFUSED(pf_world_add_object(w, &o, NULL), "pf_world_add_object", "def.positions[4]");
    ck_assert_msg(!strstr(pf_last_error(), "blowing up"), "%s", pf_last_error());
    ck_assert_uint_eq(pf_world_objects(w), 0);
    pf_world_destroy(w);
}
END_TEST

START_TEST(force_fields_and_springs)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    pf_object_id id = add_cube(w, 0);
    pf_spring s[2] = {{0, 1, 10, 0, -1}, {0, 2, 10, 0, -1}};
    s[1].rest_length = NAN;
    REFUSED(pf_world_add_springs(w, id, s, 2, NULL), "pf_world_add_springs", "springs[1].rest_length");
    ck_assert_msg(!strstr(pf_last_error(), "stiffness and damping"), "%s", pf_last_error());
    s[1].rest_length = -1;
    s[1].stiffness = -3;
    REFUSED(pf_world_add_springs(w, id, s, 2, NULL), "pf_world_add_springs", "springs[1].stiffness");
    s[1].stiffness = 1;
    s[1].damping = INFINITY;
    REFUSED(pf_world_add_springs(w, id, s, 2, NULL), "pf_world_add_springs", "springs[1].damping");
    s[1].damping = 0;
    s[1].b = 27;
    REFUSED(pf_world_add_springs(w, id, s, 2, NULL), "pf_world_add_springs", "springs[1].b");
    s[1].b = 2;
    REFUSED(pf_world_add_springs(w, id, NULL, 2, NULL), "pf_world_add_springs", "springs");
    REFUSED(pf_world_add_springs(w, (pf_object_id){4}, s, 2, NULL), "pf_world_add_springs", "object 4");
    REFUSED(pf_world_add_grid_springs(w, id, NAN, 0, NULL, NULL), "pf_world_add_grid_springs", "stiffness");
    REFUSED(pf_world_add_grid_springs(w, id, 1, -1, NULL, NULL), "pf_world_add_grid_springs", "damping");
    pf_object_id b = add_cube(w, 3);
    pf_interaction_id iid;
    REFUSED(pf_world_add_interaction_springs(w, id, id, s, 1, &iid), "pf_world_add_interaction_springs", "oa");
    REFUSED(pf_world_add_interaction_springs(w, id, (pf_object_id){7}, s, 1, &iid),
            "pf_world_add_interaction_springs", "object 7");
    REFUSED(pf_world_add_interaction_springs(w, id, b, NULL, 1, &iid), "pf_world_add_interaction_springs",
            "springs");

    pf_hexa_fem_def fem = pf_hexa_fem_default_def();
    REFUSED(pf_world_add_hexa_fem(w, id, NULL, NULL), "pf_world_add_hexa_fem", "def");
    fem.young_modulus = NAN;
    REFUSED(pf_world_add_hexa_fem(w, id, &fem, NULL), "pf_world_add_hexa_fem", "def.young_modulus");
    fem = pf_hexa_fem_default_def();
    fem.poisson_ratio = 0.5;
    REFUSED(pf_world_add_hexa_fem(w, id, &fem, NULL), "pf_world_add_hexa_fem", "def.poisson_ratio");
    fem = pf_hexa_fem_default_def();
    fem.method = (pf_fem_method)4; /* linear, large, polar, svd: 0 to 3 */
    REFUSED(pf_world_add_hexa_fem(w, id, &fem, NULL), "pf_world_add_hexa_fem", "def.method");
    REFUSED(pf_world_add_hexa_fem(w, (pf_object_id){9}, &fem, NULL), "pf_world_add_hexa_fem", "object 9");
    /* hexahedra as a list on the 3x3x3 points of id (point i + 3 j + 9 k), SOFA's corner order */
    fem = pf_hexa_fem_default_def();
    fem.method = PF_FEM_SVD;
    fem.nhexahedra = 1;
    REFUSED(pf_world_add_hexa_fem(w, id, &fem, NULL), "pf_world_add_hexa_fem", "def.hexahedra is NULL");
    uint32_t hexa[16] = {0, 1, 4, 3, 9, 10, 13, 12, 1, 2, 5, 4, 10, 11, 14, 13};
    fem.hexahedra = hexa;
    fem.nhexahedra = 0;
    REFUSED(pf_world_add_hexa_fem(w, id, &fem, NULL), "pf_world_add_hexa_fem", "def.nhexahedra 0");
    fem.nhexahedra = 2;
    hexa[13] = 27;
    REFUSED(pf_world_add_hexa_fem(w, id, &fem, NULL), "pf_world_add_hexa_fem", "hexahedron 1's point 27");
    hexa[13] = 1;
    REFUSED(pf_world_add_hexa_fem(w, id, &fem, NULL), "pf_world_add_hexa_fem", "hexahedron 1 is degenerate");
    hexa[12] = 11, hexa[13] = 10; /* top face twisted: corners 4 and 5 swapped */
    REFUSED(pf_world_add_hexa_fem(w, id, &fem, NULL), "pf_world_add_hexa_fem", "hexahedron 1 (points 1 2 5 4 11 10");
    const uint32_t flat[8] = {0, 1, 4, 3, 2, 5, 8, 7}; /* all in the plane z = 0 */
    fem.hexahedra = flat;
    fem.nhexahedra = 1;
    REFUSED(pf_world_add_hexa_fem(w, id, &fem, NULL), "pf_world_add_hexa_fem", "is flat");
    const uint32_t mirrored[8] = {9, 10, 13, 12, 0, 1, 4, 3}; /* top and bottom swapped */
    fem.hexahedra = mirrored;
    REFUSED(pf_world_add_hexa_fem(w, id, &fem, NULL), "pf_world_add_hexa_fem", "is inverted");

    /* the cube's points 0 1 2 lie on a line; 0 1 3 make a triangle */
    uint32_t tri[3] = {0, 1, 3}, line[3] = {0, 1, 2}, far[3] = {0, 1, 27};
    pf_triangle_fem_def tf = pf_triangle_fem_default_def();
    tf.triangles = tri;
    tf.ntriangles = 1;
    REFUSED(pf_world_add_triangle_fem(w, id, NULL, NULL), "pf_world_add_triangle_fem", "def");
    REFUSED(pf_world_add_triangle_fem(NULL, id, &tf, NULL), "pf_world_add_triangle_fem", "world");
    REFUSED(pf_world_add_triangle_fem(w, (pf_object_id){9}, &tf, NULL), "pf_world_add_triangle_fem", "object 9");
    tf.young_modulus = -1;
    REFUSED(pf_world_add_triangle_fem(w, id, &tf, NULL), "pf_world_add_triangle_fem", "def.young_modulus");
    tf = pf_triangle_fem_default_def();
    tf.triangles = tri;
    tf.ntriangles = 1;
    tf.poisson_ratio = 0.5;
    REFUSED(pf_world_add_triangle_fem(w, id, &tf, NULL), "pf_world_add_triangle_fem", "def.poisson_ratio");
    tf.poisson_ratio = 0.3;
    tf.thickness = 0;
    REFUSED(pf_world_add_triangle_fem(w, id, &tf, NULL), "pf_world_add_triangle_fem", "def.thickness");
    tf.thickness = 1;
    tf.method = PF_FEM_POLAR;
    REFUSED(pf_world_add_triangle_fem(w, id, &tf, NULL), "pf_world_add_triangle_fem", "def.method");
    tf.method = PF_FEM_LARGE;
    tf.ntriangles = 0;
    REFUSED(pf_world_add_triangle_fem(w, id, &tf, NULL), "pf_world_add_triangle_fem", "def.ntriangles");
    tf.ntriangles = 1;
    tf.triangles = NULL;
    REFUSED(pf_world_add_triangle_fem(w, id, &tf, NULL), "pf_world_add_triangle_fem", "def.triangles");
    tf.triangles = far;
    REFUSED(pf_world_add_triangle_fem(w, id, &tf, NULL), "pf_world_add_triangle_fem", "def.triangles[2] = 27");
    tf.triangles = line;
    REFUSED(pf_world_add_triangle_fem(w, id, &tf, NULL), "pf_world_add_triangle_fem", "zero area");
    tf.triangles = tri;
    pf_force_field_id tid;
    ck_assert_int_eq(pf_world_add_triangle_fem(w, id, &tf, &tid), PF_OK);
    ck_assert_int_eq(pf_world_remove_force_field(w, tid), PF_OK);
    /* biquadratic springs on the same triangles */
    pf_biquadratic_springs_def bq = pf_biquadratic_springs_default_def();
    bq.triangles = tri;
    bq.ntriangles = 1;
    REFUSED(pf_world_add_biquadratic_springs(w, id, NULL, NULL), "pf_world_add_biquadratic_springs", "def");
    REFUSED(pf_world_add_biquadratic_springs(NULL, id, &bq, NULL), "pf_world_add_biquadratic_springs", "world");
    REFUSED(pf_world_add_biquadratic_springs(w, (pf_object_id){9}, &bq, NULL), "pf_world_add_biquadratic_springs",
            "object 9");
    bq.young_modulus = 0;
    REFUSED(pf_world_add_biquadratic_springs(w, id, &bq, NULL), "pf_world_add_biquadratic_springs",
            "def.young_modulus");
    bq.young_modulus = 1000;
    bq.poisson_ratio = 1;
    REFUSED(pf_world_add_biquadratic_springs(w, id, &bq, NULL), "pf_world_add_biquadratic_springs",
            "def.poisson_ratio must be in (-1, 1), got 1");
    bq.poisson_ratio = 0.9; /* SOFA's examples use it: accepted */
    bq.ntriangles = 0;
    REFUSED(pf_world_add_biquadratic_springs(w, id, &bq, NULL), "pf_world_add_biquadratic_springs",
            "def.ntriangles");
    bq.ntriangles = 1;
    bq.triangles = NULL;
    REFUSED(pf_world_add_biquadratic_springs(w, id, &bq, NULL), "pf_world_add_biquadratic_springs",
            "def.triangles");
    bq.triangles = far;
    REFUSED(pf_world_add_biquadratic_springs(w, id, &bq, NULL), "pf_world_add_biquadratic_springs",
            "def.triangles[2] = 27");
    bq.triangles = line;
    REFUSED(pf_world_add_biquadratic_springs(w, id, &bq, NULL), "pf_world_add_biquadratic_springs", "zero area");
    bq.triangles = tri;
    ck_assert_int_eq(pf_world_add_biquadratic_springs(w, id, &bq, &tid), PF_OK);
    ck_assert_int_eq(pf_world_remove_force_field(w, tid), PF_OK);
    /* a tensor-mass membrane on them */
    pf_tensor_mass_def tm = pf_tensor_mass_default_def();
    tm.triangles = tri;
    tm.ntriangles = 1;
    REFUSED(pf_world_add_tensor_mass(w, id, NULL, NULL), "pf_world_add_tensor_mass", "def");
    REFUSED(pf_world_add_tensor_mass(NULL, id, &tm, NULL), "pf_world_add_tensor_mass", "world");
    REFUSED(pf_world_add_tensor_mass(w, (pf_object_id){9}, &tm, NULL), "pf_world_add_tensor_mass", "object 9");
    tm.young_modulus = -2;
    REFUSED(pf_world_add_tensor_mass(w, id, &tm, NULL), "pf_world_add_tensor_mass", "def.young_modulus");
    tm.young_modulus = 1000;
    tm.poisson_ratio = -1;
    REFUSED(pf_world_add_tensor_mass(w, id, &tm, NULL), "pf_world_add_tensor_mass", "def.poisson_ratio");
    tm.poisson_ratio = 0.3;
    tm.ntriangles = 0;
    REFUSED(pf_world_add_tensor_mass(w, id, &tm, NULL), "pf_world_add_tensor_mass", "def.ntriangles");
    tm.ntriangles = 1;
    tm.triangles = NULL;
    REFUSED(pf_world_add_tensor_mass(w, id, &tm, NULL), "pf_world_add_tensor_mass", "def.triangles");
    tm.triangles = far;
    REFUSED(pf_world_add_tensor_mass(w, id, &tm, NULL), "pf_world_add_tensor_mass", "def.triangles[2] = 27");
    tm.triangles = line;
    REFUSED(pf_world_add_tensor_mass(w, id, &tm, NULL), "pf_world_add_tensor_mass", "zero area");
    tm.triangles = tri;
    ck_assert_int_eq(pf_world_add_tensor_mass(w, id, &tm, &tid), PF_OK);
    ck_assert_int_eq(pf_world_remove_force_field(w, tid), PF_OK);
    /* bending vectors: one triangle has no hinge (no field); two sharing edge 0-1 have one */
    uint32_t two[6] = {0, 1, 3, 1, 0, 9}, hinges = 7;
    pf_bending_vectors_def bv = pf_bending_vectors_default_def();
    bv.triangles = two;
    bv.ntriangles = 2;
    REFUSED(pf_world_add_bending_vectors(w, id, NULL, NULL, NULL), "pf_world_add_bending_vectors", "def");
    REFUSED(pf_world_add_bending_vectors(NULL, id, &bv, NULL, NULL), "pf_world_add_bending_vectors", "world");
    REFUSED(pf_world_add_bending_vectors(w, (pf_object_id){9}, &bv, NULL, NULL), "pf_world_add_bending_vectors",
            "object 9");
    bv.bending_stiffness = -1;
    REFUSED(pf_world_add_bending_vectors(w, id, &bv, NULL, NULL), "pf_world_add_bending_vectors",
            "def.bending_stiffness");
    bv.bending_stiffness = 1;
    bv.min_distance = NAN;
    REFUSED(pf_world_add_bending_vectors(w, id, &bv, NULL, NULL), "pf_world_add_bending_vectors", "def.min_distance");
    bv.min_distance = 1e-6;
    bv.ntriangles = 0;
    REFUSED(pf_world_add_bending_vectors(w, id, &bv, NULL, NULL), "pf_world_add_bending_vectors", "def.ntriangles");
    bv.ntriangles = 2;
    bv.triangles = NULL;
    REFUSED(pf_world_add_bending_vectors(w, id, &bv, NULL, NULL), "pf_world_add_bending_vectors", "def.triangles");
    two[5] = 27;
    bv.triangles = two;
    REFUSED(pf_world_add_bending_vectors(w, id, &bv, NULL, NULL), "pf_world_add_bending_vectors",
            "def.triangles[5] = 27");
    two[5] = 9;
    bv.ntriangles = 1;
    ck_assert_int_eq(pf_world_add_bending_vectors(w, id, &bv, &hinges, NULL), PF_OK);
    ck_assert_uint_eq(hinges, 0);
    bv.ntriangles = 2;
    ck_assert_int_eq(pf_world_add_bending_vectors(w, id, &bv, &hinges, &tid), PF_OK);
    ck_assert_uint_eq(hinges, 1);
    ck_assert_int_eq(pf_world_remove_force_field(w, tid), PF_OK);
    /* the cube's points 0, 1, 3, 9: a corner and its three neighbours at 0.5 m */
    uint32_t tet[8] = {0, 1, 3, 9, 0, 1, 3, 9};
    pf_tetra_fem_def tt = pf_tetra_fem_default_def();
    tt.tetrahedra = tet;
    tt.ntetrahedra = 2;
    REFUSED(pf_world_add_tetra_fem(w, id, NULL, NULL), "pf_world_add_tetra_fem", "def");
    REFUSED(pf_world_add_tetra_fem(w, (pf_object_id){9}, &tt, NULL), "pf_world_add_tetra_fem", "object 9");
    tet[6] = 27;
    REFUSED(pf_world_add_tetra_fem(w, id, &tt, NULL), "pf_world_add_tetra_fem", "def.tetrahedra[1] corner 2");
    tet[6] = 2; /* points 0, 1, 2 on one line: no volume */
    REFUSED(pf_world_add_tetra_fem(w, id, &tt, NULL), "pf_world_add_tetra_fem", "def.tetrahedra[1] (points 0 1 2 9)");
    ck_assert_msg(strstr(pf_last_error(), "degenerate"), "%s", pf_last_error());
    tet[6] = 3;
    tt.poisson_ratio = 0.5;
    REFUSED(pf_world_add_tetra_fem(w, id, &tt, NULL), "pf_world_add_tetra_fem", "def.poisson_ratio");
    tt.poisson_ratio = 0.3;
    tt.young_modulus = -1;
    REFUSED(pf_world_add_tetra_fem(w, id, &tt, NULL), "pf_world_add_tetra_fem", "def.young_modulus");
    tt.young_modulus = 1e3;
    tt.method = (pf_fem_method)4;
    REFUSED(pf_world_add_tetra_fem(w, id, &tt, NULL), "pf_world_add_tetra_fem", "def.method");
    tt.method = PF_FEM_SVD;
    tt.tetrahedra = NULL;
    REFUSED(pf_world_add_tetra_fem(w, id, &tt, NULL), "pf_world_add_tetra_fem", "def.tetrahedra");
    tt.tetrahedra = tet;
    tt.ntetrahedra = 0;
    REFUSED(pf_world_add_tetra_fem(w, id, &tt, NULL), "pf_world_add_tetra_fem", "def.ntetrahedra");
    REFUSED(pf_world_add_tetra_fem(NULL, id, &tt, NULL), "pf_world_add_tetra_fem", "world");
    tt.ntetrahedra = 2;
    pf_force_field_id ttid = {UINT32_MAX};
    ck_assert_int_eq(pf_world_add_tetra_fem(w, id, &tt, &ttid), PF_OK);
    ck_assert_uint_ne(ttid.index, UINT32_MAX);

    pf_force_field_def ff = pf_force_field_default_def();
    REFUSED(pf_world_add_force_field(w, id, &ff, NULL), "pf_world_add_force_field", "def.add_force");
    REFUSED(pf_world_add_force_field(w, id, NULL, NULL), "pf_world_add_force_field", "def");
    REFUSED(pf_world_add_force_field(w, (pf_object_id){8}, &ff, NULL), "pf_world_add_force_field", "object 8");

    REFUSED(pf_world_fix_directions(w, id, (const uint32_t[1]){0}, 1, (const double[3]){0, 0, 0}),
            "pf_world_fix_directions", "no direction");
    REFUSED(pf_world_fix_directions(w, id, (const uint32_t[1]){99}, 1, (const double[3]){0, 0, 1}),
            "pf_world_fix_directions", "points[0] = 99");
    ck_assert_int_eq(pf_world_fix_directions(w, id, (const uint32_t[1]){0}, 1, (const double[3]){0, 0, 1}), PF_OK);

    pf_rest_shape_springs_def rs = pf_rest_shape_springs_default_def();
    rs.stiffness = NAN;
    REFUSED(pf_world_add_rest_shape_springs(w, id, &rs, NULL), "pf_world_add_rest_shape_springs", "def.stiffness");
    rs.stiffness = 10;
    rs.points = (const uint32_t[1]){99}, rs.npoints = 1;
    REFUSED(pf_world_add_rest_shape_springs(w, id, &rs, NULL), "pf_world_add_rest_shape_springs", "def.points[0]");
    REFUSED(pf_world_add_rest_shape_springs(w, id, NULL, NULL), "pf_world_add_rest_shape_springs", "def");

    pf_polynomial_springs_def ps = pf_polynomial_springs_default_def();
    ps.smooth_shift = NAN;
    REFUSED(pf_world_add_polynomial_springs(w, id, &ps, NULL), "pf_world_add_polynomial_springs", "def.smooth_shift");
    ps.smooth_shift = 0;
    ps.points = (const uint32_t[1]){99}, ps.npoints = 1;
    REFUSED(pf_world_add_polynomial_springs(w, id, &ps, NULL), "pf_world_add_polynomial_springs", "def.points[0]");
    ps.points = NULL, ps.npoints = 0, ps.degrees = (const uint32_t[1]){65};
    REFUSED(pf_world_add_polynomial_springs(w, id, &ps, NULL), "pf_world_add_polynomial_springs", "def.degrees[0]");
    REFUSED(pf_world_add_polynomial_springs(w, id, NULL, NULL), "pf_world_add_polynomial_springs", "def");
    ps = pf_polynomial_springs_default_def();
    pf_force_field_id psid = {UINT32_MAX};
    ck_assert_int_eq(pf_world_add_polynomial_springs(w, id, &ps, &psid), PF_OK);
    ck_assert_uint_ne(psid.index, UINT32_MAX);

    pf_constant_force_def cf = pf_constant_force_default_def();
    cf.force[2] = NAN;
    REFUSED(pf_world_add_constant_force(w, id, &cf, NULL), "pf_world_add_constant_force", "def.force");
    cf.force[2] = 1;
    cf.npoints = 3;
    REFUSED(pf_world_add_constant_force(w, id, &cf, NULL), "pf_world_add_constant_force", "def.points");
    uint32_t p[1] = {99};
    cf.points = p;
    cf.npoints = 1;
    REFUSED(pf_world_add_constant_force(w, id, &cf, NULL), "pf_world_add_constant_force", "def.points[0]");
    REFUSED(pf_world_add_constant_force(w, id, NULL, NULL), "pf_world_add_constant_force", "def");
    REFUSED(pf_world_add_constant_force(NULL, (pf_object_id){0}, &cf, NULL), "pf_world_add_constant_force",
            "world");
    REFUSED(pf_world_remove_force_field(w, (pf_force_field_id){99}), "pf_world_remove_force_field",
            "force field 99");
    REFUSED(pf_world_remove_force_field(NULL, (pf_force_field_id){0}), "pf_world_remove_force_field", "world");
    REFUSED(pf_world_remove_object(w, (pf_object_id){99}), "pf_world_remove_object", "object 99");
    REFUSED(pf_world_remove_object(NULL, id), "pf_world_remove_object", "world");
    /* existence: an answer, never an error, for any id and for no world */
    ck_assert_int_eq(pf_world_object_exists(w, id), 1);
    ck_assert_int_eq(pf_world_object_exists(w, (pf_object_id){99}), 0);
    ck_assert_int_eq(pf_world_object_exists(NULL, id), 0);

    pf_collision_def cd = pf_collision_default_def();
    REFUSED(pf_world_set_collision(w, NULL), "pf_world_set_collision", "def");
    cd.broadphase = (pf_broadphase_method)999;
    REFUSED(pf_world_set_collision(w, &cd), "pf_world_set_collision", "def.broadphase");
    cd = pf_collision_default_def();
    cd.alarm_distance = NAN;
    REFUSED(pf_world_set_collision(w, &cd), "pf_world_set_collision", "def.alarm_distance");
    cd = pf_collision_default_def();
    cd.stiffness = 0;
    REFUSED(pf_world_set_collision(w, &cd), "pf_world_set_collision", "def.stiffness");
    cd = pf_collision_default_def();
    cd.contact_distance = 1;
    REFUSED(pf_world_set_collision(w, &cd), "pf_world_set_collision", "def.alarm_distance");
    pf_collision_stats cs;
    REFUSED(pf_world_get_collision_stats(w, &cs), "pf_world_get_collision_stats", "collision");
    REFUSED(pf_world_get_collision_stats(w, NULL), "pf_world_get_collision_stats", "out");
    REFUSED(pf_world_set_contact_callback(NULL, NULL, NULL), "pf_world_set_contact_callback", "world");
    pf_world_destroy(w);
}
END_TEST

/* hyperelastic tetrahedra through the public API: each material's parameter count, the refusals (the world left
 * as it was, the message naming the call and the argument), and a field that holds a tetrahedron up */
START_TEST(hyperelastic_calls)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    static const double X[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    pf_object_def od = pf_object_default_def();
    od.points = 4;
    od.positions = X;
    od.vertex_mass = 0.1;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    static const int count[PF_HYPER_MATERIALS] = {2, 2, 3, 2, 3};
    for (int m = 0; m < PF_HYPER_MATERIALS; m++)
        ck_assert_int_eq(pf_hyperelastic_parameter_count((pf_hyperelastic_material)m), count[m]);
    ck_assert_int_eq(pf_hyperelastic_parameter_count(PF_HYPER_MATERIALS), PF_EINVAL);
    assert_message("pf_hyperelastic_parameter_count", "material");
    static const uint32_t tet[4] = {0, 1, 2, 3}, bad[4] = {0, 1, 2, 4};
    pf_hyperelastic_def d = pf_hyperelastic_default_def();
    ck_assert_int_eq(d.material, PF_HYPER_ST_VENANT_KIRCHHOFF);
    ck_assert_uint_eq(d.nparameters, 2);
    d.tetrahedra = tet;
    d.ntetrahedra = 1;
    REFUSED(pf_world_add_hyperelastic_fem(w, id, NULL, NULL), "pf_world_add_hyperelastic_fem", "def");
    REFUSED(pf_world_add_hyperelastic_fem(NULL, id, &d, NULL), "pf_world_add_hyperelastic_fem", "world");
    REFUSED(pf_world_add_hyperelastic_fem(w, (pf_object_id){5}, &d, NULL), "pf_world_add_hyperelastic_fem",
            "object 5");
    pf_hyperelastic_def b = d;
    b.material = PF_HYPER_MOONEY_RIVLIN;
    REFUSED(pf_world_add_hyperelastic_fem(w, id, &b, NULL), "pf_world_add_hyperelastic_fem", "def.nparameters");
    b = d;
    b.parameters[0] = -1;
    REFUSED(pf_world_add_hyperelastic_fem(w, id, &b, NULL), "pf_world_add_hyperelastic_fem", "def.parameters[0] (mu)");
    b = d;
    b.tetrahedra = bad;
    REFUSED(pf_world_add_hyperelastic_fem(w, id, &b, NULL), "pf_world_add_hyperelastic_fem",
            "def.tetrahedra[0] corner 3");
    b = d;
    b.ntetrahedra = 0;
    REFUSED(pf_world_add_hyperelastic_fem(w, id, &b, NULL), "pf_world_add_hyperelastic_fem", "def.ntetrahedra");
    pf_force_field_id fid = {UINT32_MAX};
    ck_assert_int_eq(pf_world_add_hyperelastic_fem(w, id, &d, &fid), PF_OK);
    ck_assert_uint_ne(fid.index, UINT32_MAX);
    static const uint32_t fixed[3] = {0, 1, 2};
    ck_assert_int_eq(pf_world_fix_points(w, id, fixed, 3), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 20), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(w, id, &n);
    ck_assert_msg(x[11] < 1 && x[11] > 0.5, "apex at z = %g", x[11]); /* held: not in free fall */
    pf_world_destroy(w);
}
END_TEST

/* the beam calls: NULL and bad arguments refused with messages naming the call and the argument, the world
 * unchanged; a beam read back as given */
START_TEST(beam_calls)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    double pos[6] = {0, 0, 0, 1, 0, 0}, q[8], p[6];
    uint32_t edge[2] = {0, 1}, frames = 0;
    pf_beam_def d = pf_beam_default_def();
    d.frames = 2;
    d.positions = pos;
    d.edges = edge;
    d.nedges = 1;
    pf_object_id id;
    REFUSED(pf_world_add_beam(NULL, &d, &id), "pf_world_add_beam", NULL);
    REFUSED(pf_world_add_beam(w, NULL, &id), "pf_world_add_beam", "def");
    d.positions = NULL;
    REFUSED(pf_world_add_beam(w, &d, &id), "pf_world_add_beam", "def.positions");
    d.positions = pos;
    d.young_modulus = NAN;
    REFUSED(pf_world_add_beam(w, &d, &id), "pf_world_add_beam", "def.young_modulus");
    d.young_modulus = 1e6;
    ck_assert_int_eq(pf_world_add_beam(w, &d, &id), PF_OK);
    REFUSED(pf_world_get_beam_state(NULL, id, p, q, NULL, NULL, NULL), "pf_world_get_beam_state", NULL);
    REFUSED(pf_world_get_beam_state(w, (pf_object_id){7}, p, q, NULL, NULL, NULL), "pf_world_get_beam_state", NULL);
    ck_assert_int_eq(pf_world_get_beam_state(w, id, p, q, NULL, NULL, &frames), PF_OK);
    ck_assert_uint_eq(frames, 2);
    ck_assert(p[3] == 1 && q[3] == 1 && q[7] == 1 && q[0] == 0);
    pf_world_destroy(w);
}
END_TEST

/* pf_world_add_joint_springs: SOFA JointSpringForceField's defaults, the documented refusals (each leaves the
 * world as it was), and a valid joint that holds two bodies as they fall. */
START_TEST(joint_springs_arguments)
{
    static const char fn[] = "pf_world_add_joint_springs";
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    pf_object_id cube = add_cube(w, 0), a, b;
    pf_rigid_def rd = pf_rigid_default_def();
    rd.position[1] = 5;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &a), PF_OK);
    rd.position[0] = 2;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &b), PF_OK);
    const pf_joint_spring d = pf_joint_spring_default();
    ck_assert(d.free_axis[0] == 0 && d.free_axis[1] == 0 && d.free_axis[2] == 0); /* a ball joint */
    ck_assert(d.free_axis[3] && d.free_axis[4] && d.free_axis[5]);
    ck_assert(d.ks_t[0] == 0 && d.ks_t[1] == 10000 && d.ks_r[0] == 0 && d.ks_r[1] == 10000);
    ck_assert(d.ks_b == 0 && d.kd == 0 && d.frame_a[3] == 1 && d.frame_b[3] == 1 && d.rest_rotation[3] == 1);
    pf_joint_spring j = d;
    REFUSED(pf_world_add_joint_springs(w, a, a, &j, 1, NULL), fn, "both object");
    REFUSED(pf_world_add_joint_springs(w, a, cube, &j, 1, NULL), fn, "not a rigid body");
    REFUSED(pf_world_add_joint_springs(w, a, b, NULL, 1, NULL), fn, "joints");
    j.ks_t[1] = -1;
    REFUSED(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), fn, "joints[0].ks_t[1]");
    j = d;
    j.anchor_b[2] = NAN;
    REFUSED(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), fn, "joints[0].anchor_b[2]");
    j = d;
    j.frame_a[3] = 0;
    REFUSED(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), fn, "zero quaternion");
    j = d;
    j.limits[2] = 1, j.limits[3] = 0;
    REFUSED(pf_world_add_joint_springs(w, a, b, &j, 1, NULL), fn, "min > max");
    j = d;
    j.anchor_a[0] = 1, j.anchor_b[0] = -1; /* one frame at x = 1, halfway, on both bodies */
    double v1[3] = {1, 0, 0}; /* b moves off at 1 m/s: the joint pulls it back, and a towards it */
    ck_assert_int_eq(pf_world_set_rigid_state(w, b, NULL, NULL, v1, NULL), PF_OK);
    pf_interaction_id id;
    ck_assert_int_eq(pf_world_add_joint_springs(w, a, b, &j, 1, &id), PF_OK);
    double h;
    ck_assert_int_eq(pf_world_get_dt(w, &h), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 20), PF_OK);
    double pa[3], pb[3], va[3], vb[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, a, pa, NULL, va, NULL), PF_OK);
    ck_assert_int_eq(pf_world_get_rigid_state(w, b, pb, NULL, vb, NULL), PF_OK);
    ck_assert_double_gt(va[0], 1e-3);                  /* pulled along */
    ck_assert_double_lt(pb[0] - pa[0], 2 + 20 * h - 1e-3); /* held back: unjoined, 2 + 20 h */
    ck_assert_double_eq_tol(va[0] + vb[0], 1, 1e-6); /* equal masses, internal forces: momentum kept */
    pf_world_destroy(w);
}
END_TEST

START_TEST(bodies_surfaces_meshes)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    pf_object_id cube = add_cube(w, 0);
    pf_rigid_def rd = pf_rigid_default_def();
    REFUSED(pf_world_add_rigid(w, NULL, NULL), "pf_world_add_rigid", "def");
    rd.solver.kind = PF_SOLVER_RUNGE_KUTTA4; /* rotations are integrated by the two Euler solvers only */
    REFUSED(pf_world_add_rigid(w, &rd, NULL), "pf_world_add_rigid", "def.solver.kind 3");
    rd.solver.kind = PF_SOLVER_IMPLICIT_EULER;
    rd.position[1] = NAN;
    REFUSED(pf_world_add_rigid(w, &rd, NULL), "pf_world_add_rigid", "def.position[1]");
    rd = pf_rigid_default_def();
    rd.orientation[3] = 0; /* the zero quaternion */
    REFUSED(pf_world_add_rigid(w, &rd, NULL), "pf_world_add_rigid", "def.orientation");
    rd = pf_rigid_default_def();
    rd.angular_velocity[2] = INFINITY;
    REFUSED(pf_world_add_rigid(w, &rd, NULL), "pf_world_add_rigid", "def.angular_velocity[2]");
    rd = pf_rigid_default_def();
    rd.density = -1;
    REFUSED(pf_world_add_rigid(w, &rd, NULL), "pf_world_add_rigid", "def.density");
    rd = pf_rigid_default_def();
    rd.mass = NAN;
    REFUSED(pf_world_add_rigid(w, &rd, NULL), "pf_world_add_rigid", "def.mass");
    rd = pf_rigid_default_def();
    rd.half_extents[1] = 0;
    REFUSED(pf_world_add_rigid(w, &rd, NULL), "pf_world_add_rigid", "def.half_extents[1]");
    rd = pf_rigid_default_def();
    rd.shape = (pf_rigid_shape)9;
    REFUSED(pf_world_add_rigid(w, &rd, NULL), "pf_world_add_rigid", "def.shape");
    rd.shape = PF_RIGID_MESH;
    REFUSED(pf_world_add_rigid(w, &rd, NULL), "pf_world_add_rigid", "def.mesh_positions");
    rd = pf_rigid_default_def();
    pf_object_id body;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &body), PF_OK);

    double pos[3] = {0, 0, NAN}, q[4] = {0, 0, 0, 0};
    REFUSED(pf_world_set_rigid_state(w, body, pos, NULL, NULL, NULL), "pf_world_set_rigid_state", "position[2]");
    REFUSED(pf_world_set_rigid_state(w, body, NULL, q, NULL, NULL), "pf_world_set_rigid_state", "orientation");
    REFUSED(pf_world_set_rigid_state(w, cube, NULL, NULL, NULL, NULL), "pf_world_set_rigid_state", "rigid");
    REFUSED(pf_world_set_rigid_state(w, (pf_object_id){50}, NULL, NULL, NULL, NULL),
            "pf_world_set_rigid_state", "object 50");
    REFUSED(pf_world_get_rigid_state(NULL, body, NULL, NULL, NULL, NULL), "pf_world_get_rigid_state",
            "world");
    REFUSED(pf_world_get_rigid_inertia(w, cube, NULL, NULL, NULL), "pf_world_get_rigid_inertia", "rigid");
    REFUSED(pf_world_add_rigid_shape_surface(w, cube, &rd, NULL), "pf_world_add_rigid_shape_surface", "rigid");
    REFUSED(pf_world_add_rigid_shape_surface(w, body, NULL, NULL), "pf_world_add_rigid_shape_surface", "def");

    pf_surface_def sd = pf_surface_default_def();
    REFUSED(pf_world_add_surface(w, cube, NULL, NULL), "pf_world_add_surface", "def");
    REFUSED(pf_world_add_surface(w, cube, &sd, NULL), "pf_world_add_surface", "def.vertices");
    uint32_t pts[3] = {0, 1, 2}, tri[3] = {0, 1, 3};
    sd.vertices = 3;
    REFUSED(pf_world_add_surface(w, cube, &sd, NULL), "pf_world_add_surface", "def.points");
    sd.points = pts;
    sd.triangles = 1;
    REFUSED(pf_world_add_surface(w, cube, &sd, NULL), "pf_world_add_surface", "def.indices");
    sd.indices = tri;
    REFUSED(pf_world_add_surface(w, cube, &sd, NULL), "pf_world_add_surface", "def.indices[2]");
    tri[2] = 2;
    sd.radius = NAN;
    REFUSED(pf_world_add_surface(w, cube, &sd, NULL), "pf_world_add_surface", "def.radius");
    sd.radius = 0;
    sd.mapping = (pf_surface_mapping)7;
    REFUSED(pf_world_add_surface(w, cube, &sd, NULL), "pf_world_add_surface", "def.mapping");
    REFUSED(pf_world_add_grid_surface(w, body, NULL), "pf_world_add_grid_surface", "grid");
    REFUSED(pf_world_add_grid_surface(w, (pf_object_id){77}, NULL), "pf_world_add_grid_surface", "object 77");
    uint32_t nv;
    REFUSED(pf_world_get_surface_info(w, (pf_surface_id){0}, NULL, NULL, NULL), "pf_world_get_surface_info",
            "surface 0");
    ck_assert_ptr_null(pf_world_surface_positions(w, (pf_surface_id){3}, &nv));
    assert_message("pf_world_surface_positions", "surface 3");
    ck_assert_ptr_null(pf_world_surface_velocities(NULL, (pf_surface_id){0}, &nv));
    assert_message("pf_world_surface_velocities", "world");
    ck_assert_ptr_null(pf_world_surface_triangles(w, (pf_surface_id){1}, &nv));
    assert_message("pf_world_surface_triangles", "surface 1");
    /* lines: edges given but not there, out of range, joining a vertex to itself; the setter and getter */
    sd = pf_surface_default_def();
    sd.vertices = 3;
    sd.points = pts;
    sd.lines = 1;
    sd.nedges = 1;
    REFUSED(pf_world_add_surface(w, cube, &sd, NULL), "pf_world_add_surface", "def.edges");
    uint32_t edges[4] = {0, 3, 1, 1};
    sd.edges = edges;
    REFUSED(pf_world_add_surface(w, cube, &sd, NULL), "pf_world_add_surface", "def.edges[1]");
    sd.edges = edges + 2;
    REFUSED(pf_world_add_surface(w, cube, &sd, NULL), "pf_world_add_surface", "vertex 1");
    REFUSED(pf_world_set_surface_collision(w, (pf_surface_id){0}, &sd), "pf_world_set_surface_collision", "surface 0");
    pf_surface_id sid;
    sd.lines = 0; /* edges are read with lines only */
    ck_assert_int_eq(pf_world_add_surface(w, cube, &sd, &sid), PF_OK);
    sd.lines = 1;
    REFUSED(pf_world_set_surface_collision(w, sid, &sd), "pf_world_set_surface_collision", "vertex 1");
    REFUSED(pf_world_set_surface_collision(w, sid, NULL), "pf_world_set_surface_collision", "def");
    REFUSED(pf_world_set_surface_collision(NULL, sid, &sd), "pf_world_set_surface_collision", "world");
    ck_assert_ptr_null(pf_world_surface_edges(w, (pf_surface_id){sid.index + 1}, &nv));
    assert_message("pf_world_surface_edges", "surface 1");
    ck_assert_ptr_null(pf_world_surface_edges(NULL, sid, &nv));
    assert_message("pf_world_surface_edges", "world");
    ck_assert_ptr_nonnull(pf_world_surface_edges(w, sid, &nv));
    ck_assert_uint_eq(nv, 0); /* the refused call changed nothing */

    pf_deformable_grid_def gd = pf_deformable_grid_default_def();
    REFUSED(pf_world_add_deformable_grid(w, NULL, NULL, NULL), "pf_world_add_deformable_grid", "def");
    REFUSED(pf_world_add_deformable_grid(w, &gd, NULL, NULL), "pf_world_add_deformable_grid", "def.mesh_positions");
    double mp[9] = {0, 0, 0, 1, 0, 0, 0, 1, NAN};
    uint32_t mi[3] = {0, 1, 2};
    gd.mesh_positions = mp;
    gd.mesh_vertices = 3;
    gd.mesh_indices = mi;
    gd.mesh_triangles = 1;
    REFUSED(pf_world_add_deformable_grid(w, &gd, NULL, NULL), "pf_world_add_deformable_grid", "def.mesh_positions[8]");
    mp[8] = 1;
    gd.total_mass = -1;
    REFUSED(pf_world_add_deformable_grid(w, &gd, NULL, NULL), "pf_world_add_deformable_grid", "def.total_mass");
    gd.total_mass = 1;
    gd.n[1] = 1;
    REFUSED(pf_world_add_deformable_grid(w, &gd, NULL, NULL), "pf_world_add_deformable_grid", "def.n[1]");
    gd.n[1] = 4;
    gd.model = (pf_grid_model)5;
    REFUSED(pf_world_add_deformable_grid(w, &gd, NULL, NULL), "pf_world_add_deformable_grid", "def.model");
    gd.model = PF_GRID_FEM;
    gd.margin = NAN;
    REFUSED(pf_world_add_deformable_grid(w, &gd, NULL, NULL), "pf_world_add_deformable_grid", "def.margin");

    pf_mesh m = {0};
    double he[3] = {1, NAN, 1};
    ck_assert_int_lt(pf_mesh_box(he, &m), 0);
    assert_message("pf_mesh_box", "half_extents[1]");
    ck_assert_int_lt(pf_mesh_box(NULL, &m), 0);
    assert_message("pf_mesh_box", "half_extents");
    ck_assert_int_lt(pf_mesh_icosphere(1, 8, &m), 0);
    assert_message("pf_mesh_icosphere", "level");
    ck_assert_int_lt(pf_mesh_icosphere(NAN, 1, &m), 0);
    assert_message("pf_mesh_icosphere", "radius");
    ck_assert_int_lt(pf_mesh_icosphere(1, 1, NULL), 0);
    assert_message("pf_mesh_icosphere", "out");
    pf_mass_properties props;
    ck_assert_int_eq(pf_mesh_box((double[3]){1, 1, 1}, &m), PF_OK);
    ck_assert_int_lt(pf_mesh_mass_properties(m.positions, m.vertices, m.indices, m.triangles, NAN, &props), 0);
    assert_message("pf_mesh_mass_properties", "density");
    ck_assert_int_lt(pf_mesh_mass_properties(m.positions, 3, m.indices, m.triangles, 1, &props), 0);
    assert_message("pf_mesh_mass_properties", "vertices");
    ck_assert_int_lt(pf_mesh_mass_properties(NULL, m.vertices, m.indices, m.triangles, 1, &props), 0);
    assert_message("pf_mesh_mass_properties", "positions");
    pf_mesh_free(&m);
    pf_mesh_free(NULL);
    pf_world_destroy(w);
}
END_TEST

START_TEST(checkpoint_calls)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    add_cube(w, 0);
    char note[8];
    REFUSED(pf_world_save_state(NULL, "x", NULL), "pf_world_save_state", "world");
    REFUSED(pf_world_save_state(w, NULL, NULL), "pf_world_save_state", "path");
    REFUSED(pf_world_save_state(w, "", NULL), "pf_world_save_state", "path");
    REFUSED(pf_world_load_state(w, NULL, NULL, 0), "pf_world_load_state", "path");
    REFUSED(pf_world_load_state(w, "x", NULL, 8), "pf_world_load_state", "note");
    ck_assert_int_lt(pf_state_file_note(NULL, note, sizeof note), 0);
    assert_message("pf_state_file_note", "path");
    ck_assert_int_lt(pf_state_file_note("x", note, 0), 0);
    assert_message("pf_state_file_note", "note_cap");
    pf_world_destroy(w);
}
END_TEST

/* ---- calls from inside a step ---- */

typedef struct inside {
    pf_world *w;
    pf_object_id obj;
    int calls, refused_all;
    char msg[512];
} inside;

/* Removing elements: a bad world or handle, a field of points or of hinges, indices out of range or twice, a list
 * announced but not given; each refused with the world unchanged. The step hook: a bad world. */
START_TEST(remove_elements_refused)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 1);
    pf_object_def od = pf_object_default_def();
    const double x[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1};
    od.points = 6;
    od.positions = x;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    static const uint32_t tets[8] = {0, 1, 2, 3, 1, 4, 2, 5};
    pf_tetra_fem_def tf = pf_tetra_fem_default_def();
    tf.tetrahedra = tets, tf.ntetrahedra = 2;
    pf_force_field_id tet, cf, bend;
    ck_assert_int_eq(pf_world_add_tetra_fem(w, id, &tf, &tet), PF_OK);
    pf_constant_force_def cd = pf_constant_force_default_def();
    ck_assert_int_eq(pf_world_add_constant_force(w, id, &cd, &cf), PF_OK);
    static const uint32_t tris[6] = {0, 1, 2, 1, 4, 2};
    pf_bending_vectors_def bd = pf_bending_vectors_default_def();
    bd.triangles = tris, bd.ntriangles = 2;
    uint32_t hinges = 0;
    ck_assert_int_eq(pf_world_add_bending_vectors(w, id, &bd, &hinges, &bend), PF_OK);
    ck_assert_uint_eq(hinges, 1);
    const char *fn = "pf_world_remove_elements";
    REFUSED(pf_world_remove_elements(NULL, tet, (const uint32_t[]){0}, 1), fn, "world");
    REFUSED(pf_world_remove_elements(w, (pf_force_field_id){99}, (const uint32_t[]){0}, 1), fn, "force field 99");
    REFUSED(pf_world_remove_elements(w, cf, (const uint32_t[]){0}, 1), fn, "force field 1 (constant force) has no elements");
    REFUSED(pf_world_remove_elements(w, bend, (const uint32_t[]){0}, 1), fn, "has no elements to remove");
    REFUSED(pf_world_remove_elements(w, tet, (const uint32_t[]){0, 2}, 2), fn, "elements[1] = 2");
    REFUSED(pf_world_remove_elements(w, tet, (const uint32_t[]){1, 0, 1}, 3), fn, "element 1 is given twice");
    REFUSED(pf_world_remove_elements(w, tet, NULL, 1), fn, "elements");
    /* nothing given: nothing done; then one removed, and the step runs the other */
    ck_assert_int_eq(pf_world_remove_elements(w, tet, NULL, 0), PF_OK);
    ck_assert_int_eq(pf_world_remove_elements(w, tet, (const uint32_t[]){0}, 1), PF_OK);
    REFUSED(pf_world_remove_elements(w, tet, (const uint32_t[]){1}, 1), fn, "elements[0] = 1");
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    REFUSED(pf_world_set_step_hook(NULL, NULL, NULL), "pf_world_set_step_hook", "world");
    ck_assert_int_eq(pf_world_set_step_hook(w, NULL, NULL), PF_OK);
    pf_world_destroy(w);
}
END_TEST

/* Every world-changing call, made from inside the step: each must be refused with PF_ESTATE. */
static void try_all(inside *in)
{
    pf_world *w = in->w;
    int ok = 1;
    pf_object_def od = pf_object_default_def();
    od.points = 1;
    pf_spring s = {0, 1, 1, 0, -1};
    pf_force_field_def ff = pf_force_field_default_def();
    pf_collision_def cd = pf_collision_default_def();
    pf_constant_force_def cf = pf_constant_force_default_def();
    static const uint32_t tet[4] = {0, 1, 2, 3};
    pf_tetra_fem_def tf = pf_tetra_fem_default_def();
    tf.tetrahedra = tet;
    tf.ntetrahedra = 1;
    uint32_t p0 = 0;
    double box[6] = {-9, -9, -9, 9, 9, 9};
    pf_rigid_def rd = pf_rigid_default_def();
    pf_surface_def sd = pf_surface_default_def();
    pf_attachment_def ad = pf_attachment_default_def();
    ok &= pf_world_step(w, 1) == PF_ESTATE;
    snprintf(in->msg, sizeof in->msg, "%s", pf_last_error());
    ok &= pf_world_add_object(w, &od, NULL) == PF_ESTATE;
    ok &= pf_world_add_springs(w, in->obj, &s, 1, NULL) == PF_ESTATE;
    ok &= pf_world_add_grid_springs(w, in->obj, 1, 0, NULL, NULL) == PF_ESTATE;
    ok &= pf_world_add_force_field(w, in->obj, &ff, NULL) == PF_ESTATE;
    ok &= pf_world_add_constant_force(w, in->obj, &cf, NULL) == PF_ESTATE;
    ok &= pf_world_add_tetra_fem(w, in->obj, &tf, NULL) == PF_ESTATE;
    ok &= pf_world_set_state(w, in->obj, NULL, NULL) == PF_ESTATE;
    ok &= pf_world_set_collision(w, &cd) == PF_ESTATE;
    ok &= pf_world_fix_points(w, in->obj, &p0, 1) == PF_ESTATE;
    ok &= pf_world_fix_box(w, in->obj, box, NULL) == PF_ESTATE;
    ok &= pf_world_add_attachment(w, in->obj, in->obj, &ad) == PF_ESTATE;
    ok &= pf_world_add_rigid(w, &rd, NULL) == PF_ESTATE;
    ok &= pf_world_add_grid_surface(w, in->obj, NULL) == PF_ESTATE;
    ok &= pf_world_set_surface_collision(w, (pf_surface_id){0}, &sd) == PF_ESTATE;
    ok &= pf_world_set_workers(w, 2) == PF_ESTATE;
    ok &= pf_world_set_executor(w, PF_EXEC_SEQ) == PF_ESTATE;
    ok &= pf_world_set_contact_callback(w, NULL, NULL) == PF_ESTATE;
    ok &= pf_world_remove_interaction(w, (pf_interaction_id){0}) == PF_ESTATE;
    ok &= pf_world_remove_force_field(w, (pf_force_field_id){0}) == PF_ESTATE;
    ok &= pf_world_remove_elements(w, (pf_force_field_id){0}, &p0, 1) == PF_ESTATE;
    ok &= pf_world_set_step_hook(w, NULL, NULL) == PF_ESTATE;
    ok &= pf_world_remove_object(w, in->obj) == PF_ESTATE;
    ok &= pf_world_set_dt(w, 0.02) == PF_ESTATE;
    ok &= pf_world_unfix_points(w, in->obj, &p0, 1) == PF_ESTATE;
    ok &= pf_world_set_gravity(w, box) == PF_ESTATE;
    in->calls++;
    in->refused_all = ok && (in->calls == 1 || in->refused_all);
}

static void on_contacts(const pf_world_contact *c, uint32_t n, void *ctx)
{
    (void)c;
    (void)n;
    try_all(ctx);
}

static void host_force(const double *x, const double *v, double *f, uint32_t points, void *ctx)
{
    (void)x;
    (void)v;
    (void)f;
    (void)points;
    inside *in = ctx;
    if (in->calls == 0) try_all(in); /* once: the field is called again when a fault is looked for */
}

static void check_inside(const inside *in, uint64_t before_call, pf_world *w, pf_world *clean)
{
    ck_assert_int_ge(in->calls, 1);
    ck_assert_msg(in->refused_all, "a call from inside the step was not refused");
    ck_assert_msg(strstr(in->msg, "pf_world_step") && strstr(in->msg, "inside"), "message '%s'", in->msg);
    (void)before_call;
    /* the world stepped as a clean run of the same world does */
    ck_assert_uint_eq(pf_world_state_hash(w), pf_world_state_hash(clean));
}

/* Finding: pf_world_step from inside the contact callback returned PF_OK and left a state of no clean run. */
START_TEST(step_inside_contact_callback)
{
    pf_world *ws[2];
    inside in = {0};
    for (int k = 0; k < 2; k++) {
        pf_world *w = ws[k] = new_world(PF_EXEC_STATIC, 1);
        pf_object_id id = add_cube(w, 0);
        ck_assert_int_eq(pf_world_add_grid_surface(w, id, NULL), PF_OK);
        pf_collision_def cd = pf_collision_default_def();
        ck_assert_int_eq(pf_world_set_collision(w, &cd), PF_OK);
        if (k == 0) {
            in.w = w;
            in.obj = id;
            ck_assert_int_eq(pf_world_set_contact_callback(w, on_contacts, &in), PF_OK);
        }
    }
    uint64_t h = pf_world_state_hash(ws[0]);
    ck_assert_int_eq(pf_world_step(ws[0], 2), PF_OK);
    ck_assert_int_eq(pf_world_step(ws[1], 2), PF_OK);
    ck_assert_int_eq(in.calls, 2);
    check_inside(&in, h, ws[0], ws[1]);
    /* after the step, the same calls are allowed again */
    ck_assert_int_eq(pf_world_set_contact_callback(ws[0], NULL, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(ws[0], 1), PF_OK);
    pf_world_destroy(ws[0]);
    pf_world_destroy(ws[1]);
}
END_TEST

START_TEST(calls_inside_host_force_field)
{
    pf_world *ws[2];
    inside in = {0}, dummy = {.calls = 1}; /* dummy: the clean world's field, which does nothing */
    for (int k = 0; k < 2; k++) {
        pf_world *w = ws[k] = new_world(PF_EXEC_STATIC, 1);
        pf_object_id id = add_cube(w, 0);
        pf_force_field_def ff = pf_force_field_default_def();
        ff.add_force = host_force;
        ff.ctx = &in;
        if (k == 0) {
            in.w = w;
            in.obj = id;
            ck_assert_int_eq(pf_world_add_force_field(w, id, &ff, NULL), PF_OK);
        } else {
            ff.ctx = &dummy;
            ck_assert_int_eq(pf_world_add_force_field(w, id, &ff, NULL), PF_OK);
        }
    }
    uint64_t h = pf_world_state_hash(ws[0]);
    ck_assert_int_eq(pf_world_step(ws[0], 2), PF_OK);
    ck_assert_int_eq(pf_world_step(ws[1], 2), PF_OK);
    check_inside(&in, h, ws[0], ws[1]);
    pf_world_destroy(ws[0]);
    pf_world_destroy(ws[1]);
}
END_TEST

/* Placement: four cubes, 1 and 3 joined by interaction springs, stepped on two workers. Groups are named by their
 * lowest object id (the oracle: which objects the springs join); every object has a worker, and both workers
 * own some (owner-compute balances four equal cubes over two); a removed object has none. */
START_TEST(placement_of_objects)
{
    pf_world *w = new_world(PF_EXEC_STATIC, 2);
    pf_object_id o[4];
    for (int k = 0; k < 4; k++) o[k] = add_cube(w, 2.0 * k);
    pf_spring s = {0, 0, 10, 0, -1};
    ck_assert_int_eq(pf_world_add_interaction_springs(w, o[1], o[3], &s, 1, NULL), PF_OK);
    int32_t wk[6];
    uint32_t gr[6];
    ck_assert_int_eq(pf_world_get_placement(w, wk, gr, 6), PF_OK);
    for (int k = 0; k < 6; k++) ck_assert(wk[k] == -1 && gr[k] == UINT32_MAX); /* nothing grouped or placed yet */
    ck_assert_int_eq(pf_world_step(w, 2), PF_OK);
    ck_assert_int_eq(pf_world_get_placement(w, wk, gr, 6), PF_OK);
    const uint32_t want[4] = {0, 1, 2, 1};
    int used[2] = {0, 0};
    for (int k = 0; k < 4; k++) {
        ck_assert_uint_eq(gr[k], want[k]);
        ck_assert(wk[k] == 0 || wk[k] == 1);
        used[wk[k]] = 1;
    }
    ck_assert(used[0] && used[1]);
    ck_assert(wk[4] == -1 && gr[4] == UINT32_MAX && wk[5] == -1 && gr[5] == UINT32_MAX); /* beyond the objects */
    uint32_t only_groups[4];
    ck_assert_int_eq(pf_world_get_placement(w, NULL, only_groups, 4), PF_OK);
    ck_assert_mem_eq(only_groups, gr, sizeof only_groups);
    ck_assert_int_eq(pf_world_remove_object(w, o[2]), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    ck_assert_int_eq(pf_world_get_placement(w, wk, gr, 4), PF_OK);
    ck_assert(wk[2] == -1 && gr[2] == UINT32_MAX);
    ck_assert(gr[1] == 1 && gr[3] == 1 && gr[0] == 0);
    REFUSED(pf_world_get_placement(NULL, wk, gr, 4), "pf_world_get_placement", "world");
    REFUSED(pf_world_get_placement(w, NULL, NULL, 4), "pf_world_get_placement", "NULL");
    ck_assert_int_eq(pf_world_get_placement(w, NULL, NULL, 0), PF_OK); /* nothing asked */
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("api_physics");
    TCase *tc = tcase_create("api_physics");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, world_lifecycle);
    tcase_add_test(tc, getters_read_back_the_setters);
    tcase_add_test(tc, objects);
    tcase_add_test(tc, nan_box_bound);
    tcase_add_test(tc, bad_total_mass);
    tcase_add_test(tc, point_masses_calls);
    tcase_add_test(tc, nan_position_in_def);
    tcase_add_test(tc, force_fields_and_springs);
    tcase_add_test(tc, hyperelastic_calls);
    tcase_add_test(tc, bodies_surfaces_meshes);
    tcase_add_test(tc, joint_springs_arguments);
    tcase_add_test(tc, beam_calls);
    tcase_add_test(tc, checkpoint_calls);
    tcase_add_test(tc, remove_elements_refused);
    tcase_add_test(tc, step_inside_contact_callback);
    tcase_add_test(tc, calls_inside_host_force_field);
    tcase_add_test(tc, placement_of_objects);
    suite_add_tcase(s, tc);
    return s;
}
