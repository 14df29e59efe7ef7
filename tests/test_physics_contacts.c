/* Contacts: bodies falling on a static floor and on each other. Oracles: the penalty equilibrium m g = N k pen
 * for a rigid box at rest; no vertex below the floor by more than the contact distance; groups merge exactly
 * when two dynamic objects touch (a static floor links nothing); the state hash of seq for every executor and
 * worker count. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const double FLOOR_HALF = 1.0;

static pf_world *make_world(int workers, pf_executor e, double dt)
{
    pf_world_def d = test_world_def(e, workers);
    d.dt = dt;
    return create_world(&d);
}

/* A static floor: a flat 5x5 grid at z = 0, every point fixed, its sheet as surface. */
static pf_object_id add_floor(pf_world *w)
{
    pf_object_def o = pf_object_default_def();
    o.grid[0] = 5, o.grid[1] = 5, o.grid[2] = 1;
    o.grid_min[0] = -FLOOR_HALF, o.grid_min[1] = -FLOOR_HALF, o.grid_min[2] = 0;
    o.grid_max[0] = FLOOR_HALF, o.grid_max[1] = FLOOR_HALF, o.grid_max[2] = 0;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    double all[6] = {-2, -2, -1, 2, 2, 1};
    ck_assert_int_eq(pf_world_fix_box(w, id, all, NULL), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, id, NULL), PF_OK);
    return id;
}

/* A rigid box of half extent h at height z with its 8 corners and 12 triangles as surface. */
static pf_object_id add_rigid_box(pf_world *w, double x, double y, double z, double h, double mass)
{
    pf_rigid_def r = pf_rigid_default_def();
    r.position[0] = x, r.position[1] = y, r.position[2] = z;
    r.half_extents[0] = r.half_extents[1] = r.half_extents[2] = h;
    r.mass = mass;
    r.solver.rayleigh_mass = 1.0;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_rigid(w, &r, &id), PF_OK);
    double p[24];
    for (int k = 0; k < 8; k++) {
        p[3 * k] = x + (k & 1 ? h : -h);
        p[3 * k + 1] = y + (k & 2 ? h : -h);
        p[3 * k + 2] = z + (k & 4 ? h : -h);
    }
    static const uint32_t tri[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                     2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    pf_surface_def s = pf_surface_default_def();
    s.mapping = PF_SURFACE_RIGID;
    s.vertices = 8;
    s.positions = p;
    s.indices = tri;
    s.triangles = 12;
    ck_assert_int_eq(pf_world_add_surface(w, id, &s, NULL), PF_OK);
    return id;
}

/* A soft cube (spring grid, n^3 points, side a) with its boundary surface. */
static pf_object_id add_soft_cube(pf_world *w, double x, double y, double z, double a, int n)
{
    pf_object_def o = pf_object_default_def();
    o.grid[0] = o.grid[1] = o.grid[2] = n;
    o.grid_min[0] = x - a / 2, o.grid_min[1] = y - a / 2, o.grid_min[2] = z - a / 2;
    o.grid_max[0] = x + a / 2, o.grid_max[1] = y + a / 2, o.grid_max[2] = z + a / 2;
    o.total_mass = 0.5;
    o.solver.rayleigh_mass = 1.0;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_springs(w, id, 500, 0.5, NULL, NULL), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, id, NULL), PF_OK);
    return id;
}

static void enable_collision(pf_world *w, double k)
{
    pf_collision_def c = pf_collision_default_def();
    c.stiffness = k;
    c.damping = 5;
    ck_assert_int_eq(pf_world_set_collision(w, &c), PF_OK);
}

/* A rigid box dropped on the floor settles where its 4 bottom corners carry its weight: k (d - sep) = m g / 4. */
START_TEST(test_rigid_box_rests_at_penalty_equilibrium)
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, 0.005);
    add_floor(w);
    const double h = 0.1, m = 1.0, k = 20000;
    pf_object_id box = add_rigid_box(w, 0.25, 0.22, h + 0.05, h, m); /* no floor vertex under it */
    enable_collision(w, k);
    ck_assert_int_eq(pf_world_step(w, 600), PF_OK);
    double pos[3], vel[3], q[4];
    ck_assert_int_eq(pf_world_get_rigid_state(w, box, pos, q, vel, NULL), PF_OK);
    pf_collision_def c = pf_collision_default_def();
    double expect = h + c.contact_distance - m * 9.81 / (4 * k);
    ck_assert_msg(fabs(pos[2] - expect) < 2e-5, "box at rest at z = %.6f, penalty equilibrium %.6f", pos[2], expect);
    ck_assert(fabs(vel[2]) < 1e-3);
    pf_collision_stats st;
    ck_assert_int_eq(pf_world_get_collision_stats(w, &st), PF_OK);
    ck_assert_uint_eq(st.contacts, 4);
    ck_assert_uint_eq(st.pairs, 1);
    pf_world_stats ws;
    pf_world_get_stats(w, &ws);
    ck_assert_uint_eq(ws.groups, 2); /* the static floor links nothing */
    pf_world_destroy(w);
}
END_TEST

typedef struct seen {
    uint32_t calls, contacts;
    double lowest; /* the smallest z of a contact point on the box (object 1) */
} seen;

static void on_contacts(const pf_world_contact *c, uint32_t n, void *ctx)
{
    seen *s = ctx;
    s->calls++;
    s->contacts = n;
    for (uint32_t k = 0; k < n; k++) {
        ck_assert_uint_le(c[k].object_a.index, c[k].object_b.index);
        const double *p = c[k].object_a.index == 1 ? c[k].point_a : c[k].point_b;
        if (p[2] < s->lowest) s->lowest = p[2];
    }
}

/* The contact callback sees every step's contacts: as many as the stats count, with the box's corners on them. */
START_TEST(test_contact_callback)
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, 0.005);
    add_floor(w);
    add_rigid_box(w, 0.25, 0.22, 0.12, 0.1, 1.0);
    seen s = {0, 0, INFINITY};
    ck_assert_int_eq(pf_world_set_contact_callback(w, on_contacts, &s), PF_ESTATE); /* no collision stage yet */
    enable_collision(w, 20000);
    ck_assert_int_eq(pf_world_set_contact_callback(w, on_contacts, &s), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 100), PF_OK);
    pf_collision_stats st;
    pf_world_get_collision_stats(w, &st);
    ck_assert_uint_eq(s.calls, 100);
    ck_assert_uint_eq(s.contacts, st.contacts);
    ck_assert_uint_eq(s.contacts, 4);
    ck_assert(s.lowest > -0.01 && s.lowest < 0.02); /* the bottom corners, near the floor */
    pf_world_destroy(w);
}
END_TEST

/* A soft cube lands and stays above the floor: no vertex deeper than the contact distance. */
START_TEST(test_soft_cube_does_not_sink)
{
    pf_world *w = make_world(2, PF_EXEC_STATIC, 0.005);
    add_floor(w);
    pf_object_id cube = add_soft_cube(w, 0, 0, 0.2, 0.2, 4);
    enable_collision(w, 2000);
    double lowest = INFINITY;
    for (int s = 0; s < 300; s++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        uint32_t n;
        const double *x = pf_world_positions(w, cube, &n);
        for (uint32_t i = 0; i < n; i++)
            if (x[3 * i + 2] < lowest) lowest = x[3 * i + 2];
    }
    pf_collision_def c = pf_collision_default_def();
    ck_assert_msg(lowest > -c.contact_distance, "a vertex reached z = %g", lowest);
    pf_collision_stats st;
    pf_world_get_collision_stats(w, &st);
    ck_assert_uint_ge(st.contacts, 16); /* the bottom face rests */
    uint32_t n;
    const double *v = pf_world_velocities(w, cube, &n);
    for (uint32_t i = 0; i < 3 * n; i++) ck_assert(fabs(v[i]) < 0.05);
    pf_world_destroy(w);
}
END_TEST

/* Two cubes stacked: they merge into one solver group when the upper one lands, and the update is counted. */
static pf_world *make_stack(int workers, pf_executor e)
{
    pf_world *w = make_world(workers, e, 0.005);
    add_floor(w);
    add_soft_cube(w, 0, 0, 0.101, 0.2, 3);
    add_rigid_box(w, 0.02, 0.01, 0.35, 0.08, 0.3);
    enable_collision(w, 3000);
    return w;
}

static uint64_t stack_hash(int workers, pf_executor e, uint32_t *groups_end, uint32_t *updates)
{
    pf_world *w = make_stack(workers, e);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    pf_world_stats st;
    pf_world_get_stats(w, &st);
    ck_assert_uint_eq(st.groups, 3); /* floor, cube, box: the box has not landed */
    ck_assert_int_eq(pf_world_step(w, 200), PF_OK);
    pf_world_get_stats(w, &st);
    *groups_end = st.groups;
    pf_world_update up;
    pf_world_get_last_update(w, &up, updates);
    ck_assert_uint_eq(up.tasks_moved, 0);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(test_stack_merges_groups_same_hash_everywhere)
{
    uint32_t groups, updates;
    uint64_t ref = stack_hash(1, PF_EXEC_SEQ, &groups, &updates);
    ck_assert_uint_eq(groups, 2); /* floor alone; cube and box together */
    ck_assert_uint_ge(updates, 2);
    for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
        for (int k = 1; k <= 3; k++) {
            uint32_t g2, u2;
            uint64_t h = stack_hash(k, (pf_executor)e, &g2, &u2);
            ck_assert_msg(h == ref, "%s with %d workers: %016llx, seq %016llx", pf_executor_name((pf_executor)e), k,
                          (unsigned long long)h, (unsigned long long)ref);
            ck_assert_uint_eq(u2, updates);
        }
}
END_TEST

/* Particles: spheres of one object collide with each other (a contact field within the object). Head-on, with
 * no gravity and no damping, the internal forces are equal and opposite: momentum is conserved exactly in each
 * step up to rounding, and the spheres part with their speeds nearly exchanged (penalty contacts are elastic). */
START_TEST(test_particles_collide_head_on)
{
    pf_world *w = new_world_dg(PF_EXEC_STATIC, 1, 0.0005, (const double[3]){0, 0, 0});
    double x[6] = {-0.1, 0, 0, 0.1, 0.001, 0}, v[6] = {1, 0, 0, -1, 0, 0};
    pf_object_def o = pf_object_default_def();
    o.points = 2;
    o.positions = x;
    o.velocities = v;
    o.vertex_mass = 0.01;
    o.solver.kind = PF_SOLVER_EXPLICIT_EULER;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    uint32_t pts[2] = {0, 1};
    pf_surface_def s = pf_surface_default_def();
    s.vertices = 2;
    s.points = pts;
    s.radius = 0.02;
    ck_assert_int_eq(pf_world_add_surface(w, id, &s, NULL), PF_OK);
    pf_collision_def c = pf_collision_default_def();
    c.stiffness = 5000;
    c.contact_distance = 0;
    c.alarm_distance = 0.005;
    ck_assert_int_eq(pf_world_set_collision(w, &c), PF_OK);
    uint32_t touching = 0;
    for (int k = 0; k < 400; k++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        const double *u = pf_world_velocities(w, id, NULL);
        for (int a = 0; a < 3; a++) ck_assert(fabs(u[a] + u[3 + a]) < 1e-12);
        pf_collision_stats st;
        pf_world_get_collision_stats(w, &st);
        touching += st.contacts;
    }
    const double *u = pf_world_velocities(w, id, NULL);
    ck_assert_uint_gt(touching, 0);
    ck_assert_msg(u[0] < -0.9 && u[3] > 0.9, "after the collision: %g %g", u[0], u[3]);
    pf_world_stats ws;
    pf_world_get_stats(w, &ws);
    ck_assert_uint_eq(ws.groups, 1);
    pf_world_destroy(w);
}
END_TEST

/* A checkpoint taken mid-run, restored into a world built the same way, continues bit for bit (contacts and
 * groups follow from the state); bad files leave the world untouched; a failed save keeps the old file. */
START_TEST(test_checkpoint_resume_equals_uninterrupted)
{
    char path[] = "/tmp/physflow-ckpt-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    pf_world *w = make_stack(2, PF_EXEC_STATIC);
    ck_assert_int_eq(pf_world_step(w, 90), PF_OK); /* the box is about to land */
    ck_assert_int_eq(pf_world_save_state(w, path, "stack"), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 110), PF_OK);
    uint64_t ref = pf_world_state_hash(w);
    pf_world_stats st;
    pf_world_get_stats(w, &st);
    pf_world_destroy(w);

    pf_world *r = make_stack(1, PF_EXEC_SEQ);
    uint64_t fresh = pf_world_state_hash(r);
    char note[16];
    FILE *f = fopen(path, "r+b"); /* damage one byte: refused, world unchanged */
    ck_assert_ptr_nonnull(f);
    fseek(f, 100, SEEK_SET);
    int c = fgetc(f);
    fseek(f, 100, SEEK_SET);
    fputc(c ^ 1, f);
    fclose(f);
    ck_assert_int_eq(pf_world_load_state(r, path, note, sizeof note), PF_EPARSE);
    ck_assert(pf_world_state_hash(r) == fresh);
    f = fopen(path, "r+b");
    fseek(f, 100, SEEK_SET);
    fputc(c, f);
    fclose(f);
    ck_assert_int_eq(pf_world_load_state(r, path, note, sizeof note), PF_OK);
    ck_assert_str_eq(note, "stack");
    ck_assert_int_eq(pf_world_step(r, 110), PF_OK);
    ck_assert(pf_world_state_hash(r) == ref);
    pf_world_stats rs;
    pf_world_get_stats(r, &rs);
    ck_assert_uint_eq(rs.steps, st.steps);
    ck_assert_uint_eq(rs.groups, st.groups);
    /* a save that cannot complete leaves the existing checkpoint whole */
    ck_assert_int_eq(pf_world_save_state(r, "/nonexistent-dir/x.ckpt", NULL), PF_EIO);
    pf_world *other = make_world(1, PF_EXEC_SEQ, 0.005);
    add_floor(other);
    ck_assert_int_eq(pf_world_load_state(other, path, NULL, 0), PF_EPARSE); /* another scene */
    pf_world_destroy(other);
    pf_world_destroy(r);
    unlink(path);
}
END_TEST

START_TEST(test_collision_def_checks)
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, 0.01);
    pf_collision_stats st;
    ck_assert_int_eq(pf_world_get_collision_stats(w, &st), PF_ESTATE);
    pf_collision_def c = pf_collision_default_def();
    c.contact_distance = 0.5; /* above the alarm distance */
    ck_assert_int_eq(pf_world_set_collision(w, &c), PF_EINVAL);
    c = pf_collision_default_def();
    c.stiffness = -1;
    ck_assert_int_eq(pf_world_set_collision(w, &c), PF_EINVAL);
    c = pf_collision_default_def();
    c.broadphase = (pf_broadphase_method)999;
    ck_assert_int_eq(pf_world_set_collision(w, &c), PF_EINVAL);
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_contacts");
    TCase *tc = tcase_create("contacts");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_rigid_box_rests_at_penalty_equilibrium);
    tcase_add_test(tc, test_soft_cube_does_not_sink);
    tcase_add_test(tc, test_stack_merges_groups_same_hash_everywhere);
    tcase_add_test(tc, test_particles_collide_head_on);
    tcase_add_test(tc, test_checkpoint_resume_equals_uninterrupted);
    tcase_add_test(tc, test_contact_callback);
    tcase_add_test(tc, test_collision_def_checks);
    suite_add_tcase(s, tc);
    return s;
}
