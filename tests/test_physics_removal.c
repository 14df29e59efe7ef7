/* A host removing what it added: force fields and objects (with their interactions, contacts, fixed points and
 * surfaces). Oracles: the implicit Euler recurrence of points no longer held by springs; a world built with only
 * the objects left and given the same state (bitwise state hash); the same object settling alone on the floor;
 * the sequential executor's hash for every executor and worker count; a counting allocator for the memory of
 * a world that adds and removes objects for a long time. */
#define _POSIX_C_SOURCE 200809L
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pf_world *make_world(pf_executor e, pf_partitioner p, int workers)
{
    pf_world_def d = test_world_def(e, workers);
    d.runtime.partitioner = p;
    return create_world(&d);
}

static pf_world *plain_world(void)
{
    return make_world(PF_EXEC_SEQ, PF_PART_OWNER, 1);
}

/* a grid object of n^3 points over [lo, lo + size] on each axis, vertex mass 1 */
static pf_object_id add_grid(pf_world *w, int n, const double lo[3], double size, double rayleigh_mass)
{
    pf_object_def o = pf_object_default_def();
    for (int a = 0; a < 3; a++) o.grid[a] = n, o.grid_min[a] = lo[a], o.grid_max[a] = lo[a] + size;
    o.solver.rayleigh_mass = rayleigh_mass;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    return id;
}

/* a static slab (every point fixed) with its surface: a floor of 2 m x 2 m whose top is at z = 0 */
static pf_object_id add_floor(pf_world *w)
{
    pf_object_def o = pf_object_default_def();
    for (int a = 0; a < 3; a++) o.grid[a] = 2, o.grid_min[a] = a == 2 ? -0.5 : -1, o.grid_max[a] = a == 2 ? 0 : 1;
    pf_object_id f;
    ck_assert_int_eq(pf_world_add_object(w, &o, &f), PF_OK);
    double all[6] = {-9, -9, -9, 9, 9, 9};
    ck_assert_int_eq(pf_world_fix_box(w, f, all, NULL), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, f, NULL), PF_OK);
    return f;
}

/* a stiff spring box of 2x2x2 points, 0.2 m wide, bottom at z, with its surface */
static pf_object_id add_box(pf_world *w, double x, double z, pf_force_field_id *springs)
{
    pf_object_id b = add_grid(w, 2, (const double[3]){x, -0.1, z}, 0.2, 0);
    ck_assert_int_eq(pf_world_add_grid_springs(w, b, 5000, 5, NULL, springs), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, b, NULL), PF_OK);
    return b;
}

static void collide(pf_world *w)
{
    pf_collision_def cd = pf_collision_default_def();
    ck_assert_int_eq(pf_world_set_collision(w, &cd), PF_OK);
}

static void expect_message(const char *a, const char *b)
{
    const char *m = pf_last_error();
    ck_assert_msg(strstr(m, a), "message '%s' should say '%s'", m, a);
    if (b) ck_assert_msg(strstr(m, b), "message '%s' should say '%s'", m, b);
}

/* ---- force fields ---- */

/* A cube hanging by its top layer, held by springs and pushed sideways by a constant force: once its springs are
 * removed, its free points follow implicit Euler with gravity and that force alone from the state at removal,
 * v += h (g + F/m), x += h v (the constant force still acts: removing one field leaves the others), and its
 * fixed points stay where they are. */
START_TEST(removed_springs_leave_free_fall)
{
    const double h = 0.01, g[3] = {0, 0, -9.81}, F[3] = {0.5, -0.25, 0};
    pf_world *w = plain_world();
    pf_object_id o = add_grid(w, 3, (const double[3]){0, 0, 0}, 1, 0);
    pf_force_field_id springs, push;
    ck_assert_int_eq(pf_world_add_grid_springs(w, o, 3000, 5, NULL, &springs), PF_OK);
    pf_constant_force_def cf = pf_constant_force_default_def();
    memcpy(cf.force, F, sizeof cf.force);
    ck_assert_int_eq(pf_world_add_constant_force(w, o, &cf, &push), PF_OK);
    ck_assert_uint_ne(springs.index, push.index);
    uint32_t nfixed = 0;
    double top[6] = {-1, -1, 0.99, 2, 2, 2};
    ck_assert_int_eq(pf_world_fix_box(w, o, top, &nfixed), PF_OK);
    ck_assert_uint_eq(nfixed, 9);
    ck_assert_int_eq(pf_world_step(w, 30), PF_OK);
    uint32_t n = 0;
    const double *px = pf_world_positions(w, o, &n);
    double x[81], v[81];
    memcpy(x, px, sizeof x);
    memcpy(v, pf_world_velocities(w, o, NULL), sizeof v);
    /* the springs held it: the bottom layer has sagged less than a free fall of 30 steps would take it */
    ck_assert_double_gt(x[2], -0.5 * 9.81 * 0.3 * 0.3);
    ck_assert_int_eq(pf_world_remove_force_field(w, springs), PF_OK);
    for (int s = 0; s < 20; s++)
        for (uint32_t i = 0; i < n; i++) {
            if (x[3 * i + 2] > 0.99) continue; /* fixed */
            for (int d = 0; d < 3; d++) {
                v[3 * i + d] += h * (g[d] + F[d]);
                x[3 * i + d] += h * v[3 * i + d];
            }
        }
    ck_assert_int_eq(pf_world_step(w, 20), PF_OK);
    const double *wx = pf_world_positions(w, o, NULL), *wv = pf_world_velocities(w, o, NULL);
    for (uint32_t i = 0; i < 3 * n; i++) {
        ck_assert_double_eq_tol(wv[i], v[i], 1e-12 * (1 + fabs(v[i])));
        ck_assert_double_eq_tol(wx[i], x[i], 1e-12 * (1 + fabs(x[i])));
    }
    /* the handle is spent: a second removal, and a number never handed out, are refused by number */
    ck_assert_int_eq(pf_world_remove_force_field(w, springs), PF_EINVAL);
    expect_message("pf_world_remove_force_field", "force field 0 was removed");
    ck_assert_int_eq(pf_world_remove_force_field(w, (pf_force_field_id){7}), PF_EINVAL);
    expect_message("pf_world_remove_force_field", "no force field 7");
    ck_assert_int_eq(pf_world_remove_force_field(NULL, push), PF_EINVAL);
    expect_message("pf_world_remove_force_field", "world");
    /* the last field goes too: the points fall with gravity alone */
    ck_assert_int_eq(pf_world_remove_force_field(w, push), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    for (uint32_t i = 0; i < n; i++)
        if (x[3 * i + 2] <= 0.99)
            ck_assert_double_eq_tol(pf_world_velocities(w, o, NULL)[3 * i + 2], v[3 * i + 2] + h * g[2], 1e-9);
    pf_world_destroy(w);
}
END_TEST

/* ---- objects ---- */

/* Object 0 hangs from object 1 (whose top layer is fixed) by interaction springs; one solver group, with object
 * 0's settings. Once object 0 is removed, object 1 moves exactly as in a world where it was alone from then on
 * (same state, its own solver settings): bitwise equal positions and velocities, and equal state hashes. */
START_TEST(removed_object_leaves_partner_as_if_alone)
{
    pf_world *w = plain_world(), *alone = plain_world();
    pf_object_id a = add_grid(w, 2, (const double[3]){0.25, 0.25, 0.4}, 0.5, 0.4);
    pf_force_field_id a_springs;
    ck_assert_int_eq(pf_world_add_grid_springs(w, a, 200, 0.5, NULL, &a_springs), PF_OK);
    pf_object_id b[2];
    pf_world *ws[2] = {w, alone};
    for (int k = 0; k < 2; k++) {
        b[k] = add_grid(ws[k], 3, (const double[3]){0, 0, 1}, 1, 0.1);
        ck_assert_int_eq(pf_world_add_grid_springs(ws[k], b[k], 400, 1, NULL, NULL), PF_OK);
        double top[6] = {-1, -1, 1.99, 2, 2, 3};
        ck_assert_int_eq(pf_world_fix_box(ws[k], b[k], top, NULL), PF_OK);
    }
    ck_assert_uint_eq(b[0].index, 1);
    /* a's top corners (points 4..7) to the 4 nearest points of b's bottom layer */
    pf_spring s[4];
    const uint32_t bp[4] = {0, 1, 3, 4};
    for (int k = 0; k < 4; k++) s[k] = (pf_spring){4 + (uint32_t)k, bp[k], 300, 1, -1};
    pf_interaction_id link;
    ck_assert_int_eq(pf_world_add_interaction_springs(w, a, b[0], s, 4, &link), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 25), PF_OK);
    pf_world_stats st;
    ck_assert_int_eq(pf_world_get_stats(w, &st), PF_OK);
    ck_assert_uint_eq(st.groups, 1);
    ck_assert_int_eq(pf_world_remove_object(w, a), PF_OK);
    ck_assert_int_eq(pf_world_set_state(alone, b[1], pf_world_positions(w, b[0], NULL),
                                        pf_world_velocities(w, b[0], NULL)),
                     PF_OK);
    ck_assert_int_eq(pf_world_step(w, 30), PF_OK);
    ck_assert_int_eq(pf_world_step(alone, 30), PF_OK);
    uint32_t n = 0;
    const double *x = pf_world_positions(w, b[0], &n);
    ck_assert_uint_eq(n, 27);
    ck_assert(memcmp(x, pf_world_positions(alone, b[1], NULL), 81 * sizeof *x) == 0);
    ck_assert(memcmp(pf_world_velocities(w, b[0], NULL), pf_world_velocities(alone, b[1], NULL), 81 * sizeof *x) ==
              0);
    ck_assert_uint_eq(pf_world_state_hash(w), pf_world_state_hash(alone));
    /* the world counts the object left; the ids stay numbered */
    ck_assert_int_eq(pf_world_get_stats(w, &st), PF_OK);
    ck_assert_uint_eq(st.objects, 1);
    ck_assert_uint_eq(st.groups, 1);
    ck_assert_uint_eq(pf_world_objects(w), 2);
    ck_assert(!pf_world_object_exists(w, a) && pf_world_object_exists(w, b[0]));
    /* what went with it is unknown to the remove calls */
    ck_assert_int_eq(pf_world_remove_interaction(w, link), PF_EINVAL);
    ck_assert_int_eq(pf_world_remove_force_field(w, a_springs), PF_EINVAL);
    expect_message("force field 0 was removed", NULL);
    pf_world_destroy(w);
    pf_world_destroy(alone);
}
END_TEST

/* The top box rests on a static one. Removed the lower one: the contact goes with it (nothing else touches: no
 * contact, no pair), and the upper one falls as if it were alone. Removed the upper one: the lower, dynamic on a
 * static floor, settles where it settles when it was always alone. */
START_TEST(removed_box_takes_its_contacts)
{
    pf_world *w = plain_world(), *alone = plain_world();
    collide(w);
    pf_object_id floor = add_floor(w);
    pf_object_id top = add_box(w, -0.1, 0.005, NULL);
    ck_assert_int_eq(pf_world_step(w, 60), PF_OK);
    pf_collision_stats cs;
    ck_assert_int_eq(pf_world_get_collision_stats(w, &cs), PF_OK);
    ck_assert_uint_ge(cs.contacts, 4);
    ck_assert_uint_eq(cs.pairs, 1);
    ck_assert_double_lt(fabs(pf_world_velocities(w, top, NULL)[2]), 0.05); /* resting */
    ck_assert_int_eq(pf_world_remove_object(w, floor), PF_OK);
    pf_object_id a = add_box(alone, -0.1, 0.005, NULL);
    ck_assert_int_eq(
        pf_world_set_state(alone, a, pf_world_positions(w, top, NULL), pf_world_velocities(w, top, NULL)), PF_OK);
    const double *x0 = pf_world_positions(w, top, NULL);
    double z0 = 0, vz0 = 0;
    for (int i = 0; i < 8; i++) z0 += x0[3 * i + 2] / 8, vz0 += pf_world_velocities(w, top, NULL)[3 * i + 2] / 8;
    for (int s = 0; s < 10; s++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        ck_assert_int_eq(pf_world_step(alone, 1), PF_OK);
        ck_assert_int_eq(pf_world_get_collision_stats(w, &cs), PF_OK);
        ck_assert_uint_eq(cs.contacts, 0);
        ck_assert_uint_eq(cs.pairs, 0);
        ck_assert_uint_eq(pf_world_state_hash(w), pf_world_state_hash(alone));
    }
    /* and the centre of mass falls freely (internal springs sum to zero, up to the CG tolerance) */
    double z = 0;
    for (int i = 0; i < 8; i++) z += pf_world_positions(w, top, NULL)[3 * i + 2] / 8;
    double zf = z0;
    for (int s = 0; s < 10; s++) vz0 += 0.01 * -9.81, zf += 0.01 * vz0;
    ck_assert_double_eq_tol(z, zf, 1e-6);
    pf_world_destroy(w);
    pf_world_destroy(alone);

    /* the upper of two boxes on a floor removed: the lower settles as if alone */
    pf_world *ws[2] = {plain_world(), plain_world()};
    pf_object_id low[2];
    for (int k = 0; k < 2; k++) {
        collide(ws[k]);
        add_floor(ws[k]);
        low[k] = add_box(ws[k], -0.1, 0.005, NULL);
    }
    pf_object_id up = add_box(ws[0], -0.1, 0.21, NULL);
    ck_assert_int_eq(pf_world_step(ws[0], 80), PF_OK);
    ck_assert_int_eq(pf_world_get_collision_stats(ws[0], &cs), PF_OK);
    ck_assert_uint_eq(cs.pairs, 2);
    ck_assert_int_eq(pf_world_remove_object(ws[0], up), PF_OK);
    ck_assert_int_eq(pf_world_step(ws[0], 400), PF_OK);
    ck_assert_int_eq(pf_world_step(ws[1], 480), PF_OK);
    pf_collision_stats c1;
    ck_assert_int_eq(pf_world_get_collision_stats(ws[0], &cs), PF_OK);
    ck_assert_int_eq(pf_world_get_collision_stats(ws[1], &c1), PF_OK);
    ck_assert_uint_eq(cs.pairs, 1);
    ck_assert_uint_eq(cs.contacts, c1.contacts);
    /* at rest at the same height (without friction, sideways drift is free: compared more loosely) */
    const double *p0 = pf_world_positions(ws[0], low[0], NULL), *p1 = pf_world_positions(ws[1], low[1], NULL);
    for (int i = 0; i < 24; i++) ck_assert_double_eq_tol(p0[i], p1[i], i % 3 == 2 ? 1e-6 : 1e-4);
    pf_world_destroy(ws[0]);
    pf_world_destroy(ws[1]);
}
END_TEST

static void no_force(const double *x, const double *v, double *f, uint32_t points, void *ctx)
{
    (void)x, (void)v, (void)f, (void)points, (void)ctx;
}

/* Every call naming a removed object or one of its surfaces is refused with a message naming them; a new object
 * takes a new id. */
START_TEST(removed_ids_refused)
{
    pf_world *w = plain_world();
    pf_object_id keep = add_grid(w, 2, (const double[3]){0, 0, 0}, 1, 0);
    pf_object_id gone = add_grid(w, 2, (const double[3]){2, 0, 0}, 1, 0);
    pf_surface_id s;
    ck_assert_int_eq(pf_world_add_grid_surface(w, gone, &s), PF_OK);
    pf_rigid_def rd = pf_rigid_default_def();
    pf_object_id body;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &body), PF_OK);
    ck_assert_int_eq(pf_world_remove_object(w, gone), PF_OK);
    ck_assert_int_eq(pf_world_remove_object(w, body), PF_OK);
    ck_assert_int_eq(pf_world_remove_object(w, gone), PF_EINVAL);
    expect_message("pf_world_remove_object", "object 1 was removed");
    ck_assert_int_eq(pf_world_remove_object(w, (pf_object_id){9}), PF_EINVAL);
    expect_message("pf_world_remove_object", "no object 9");
    ck_assert_int_eq(pf_world_remove_object(NULL, keep), PF_EINVAL);
    uint32_t n = 99, c = 0, p0 = 0;
    double box[6] = {-9, -9, -9, 9, 9, 9}, m, q[4];
    pf_spring sp = {0, 0, 1, 0, -1};
    pf_solver_def sv;
    pf_hexa_fem_def fem = pf_hexa_fem_default_def();
    pf_constant_force_def cf = pf_constant_force_default_def();
    pf_force_field_def ff = pf_force_field_default_def();
    ff.add_force = no_force;
    pf_surface_def sd = pf_surface_default_def();
    sd.points = &p0;
    sd.vertices = 1;
#define GONE(call, fn)                                                                                       \
    do {                                                                                                     \
        ck_assert_int_eq((call), PF_EINVAL);                                                                 \
        expect_message(fn, "object 1 was removed");                                                          \
    } while (0)
    GONE(pf_world_add_springs(w, gone, &sp, 1, NULL), "pf_world_add_springs");
    GONE(pf_world_add_grid_springs(w, gone, 1, 0, NULL, NULL), "pf_world_add_grid_springs");
    GONE(pf_world_add_hexa_fem(w, gone, &fem, NULL), "pf_world_add_hexa_fem");
    GONE(pf_world_add_force_field(w, gone, &ff, NULL), "pf_world_add_force_field");
    GONE(pf_world_add_constant_force(w, gone, &cf, NULL), "pf_world_add_constant_force");
    GONE(pf_world_add_interaction_springs(w, keep, gone, &sp, 1, NULL), "pf_world_add_interaction_springs");
    GONE(pf_world_add_interaction_springs(w, gone, keep, &sp, 1, NULL), "pf_world_add_interaction_springs");
    GONE(pf_world_fix_points(w, gone, &p0, 1), "pf_world_fix_points");
    GONE(pf_world_unfix_points(w, gone, &p0, 1), "pf_world_unfix_points");
    GONE(pf_world_box_select(w, gone, box, NULL, 0, &c), "pf_world_box_select");
    GONE(pf_world_fix_box(w, gone, box, NULL), "pf_world_fix_box");
    GONE(pf_world_get_object_mass(w, gone, &m, NULL), "pf_world_get_object_mass");
    GONE(pf_world_get_solver(w, gone, &sv), "pf_world_get_solver");
    GONE(pf_world_set_state(w, gone, NULL, NULL), "pf_world_set_state");
    GONE(pf_world_add_surface(w, gone, &sd, NULL), "pf_world_add_surface");
    GONE(pf_world_add_grid_surface(w, gone, NULL), "pf_world_add_grid_surface");
    ck_assert_ptr_null(pf_world_positions(w, gone, &n));
    expect_message("pf_world_positions", "object 1 was removed");
    ck_assert_ptr_null(pf_world_velocities(w, gone, &n));
    expect_message("pf_world_velocities", "object 1 was removed");
    ck_assert_uint_eq(n, 99);
#undef GONE
    ck_assert_int_eq(pf_world_get_rigid_state(w, body, q, q, NULL, NULL), PF_EINVAL);
    expect_message("pf_world_get_rigid_state", "object 2 was removed");
    ck_assert_int_eq(pf_world_set_rigid_state(w, body, NULL, NULL, NULL, NULL), PF_EINVAL);
    expect_message("pf_world_set_rigid_state", "object 2 was removed");
    ck_assert_int_eq(pf_world_get_rigid_inertia(w, body, &m, NULL, NULL), PF_EINVAL);
    expect_message("pf_world_get_rigid_inertia", "object 2 was removed");
    ck_assert_int_eq(pf_world_add_rigid_shape_surface(w, body, &rd, NULL), PF_EINVAL);
    expect_message("pf_world_add_rigid_shape_surface", "object 2 was removed");
    /* its surface keeps its number, and says what became of it */
    ck_assert_uint_eq(pf_world_surfaces(w), 1);
    pf_object_id owner;
    ck_assert_int_eq(pf_world_get_surface_info(w, s, &owner, NULL, NULL), PF_EINVAL);
    expect_message("pf_world_get_surface_info", "surface 0 was removed with object 1");
    ck_assert_ptr_null(pf_world_surface_positions(w, s, NULL));
    expect_message("pf_world_surface_positions", "surface 0 was removed with object 1");
    ck_assert_ptr_null(pf_world_surface_velocities(w, s, NULL));
    ck_assert_ptr_null(pf_world_surface_triangles(w, s, NULL));
    ck_assert_int_eq(pf_world_set_surface_friction(w, s, 0.5), PF_EINVAL);
    expect_message("pf_world_set_surface_friction", "surface 0 was removed with object 1");
    ck_assert_int_eq(pf_world_get_surface_friction(w, s, NULL, NULL), PF_EINVAL);
    /* the ids stay numbered; a new object takes the next */
    ck_assert_uint_eq(pf_world_objects(w), 3);
    ck_assert(pf_world_object_exists(w, keep) && !pf_world_object_exists(w, gone) &&
              !pf_world_object_exists(w, body) && !pf_world_object_exists(w, (pf_object_id){3}) &&
              !pf_world_object_exists(NULL, keep));
    pf_object_id next = add_grid(w, 2, (const double[3]){0, 2, 0}, 1, 0);
    ck_assert_uint_eq(next.index, 3);
    ck_assert_int_eq(pf_world_step(w, 3), PF_OK);
    ck_assert_ptr_nonnull(pf_world_positions(w, next, NULL));
    pf_world_destroy(w);
}
END_TEST

/* ---- calls from inside a step ---- */

typedef struct inside {
    pf_world *w;
    pf_object_id obj;
    pf_force_field_id field;
    int calls, refused;
} inside;

static void try_removals(const pf_world_contact *c, uint32_t n, void *ctx)
{
    (void)c, (void)n;
    inside *in = ctx;
    int ok = pf_world_remove_object(in->w, in->obj) == PF_ESTATE && strstr(pf_last_error(), "pf_world_remove_object");
    ok &= pf_world_remove_force_field(in->w, in->field) == PF_ESTATE;
    in->refused = ok && (in->calls == 0 || in->refused);
    in->calls++;
}

START_TEST(removal_inside_a_contact_callback_refused)
{
    pf_world *w = plain_world(), *clean = plain_world();
    inside in = {w, {0}, {0}, 0, 0};
    pf_world *ws[2] = {w, clean};
    for (int k = 0; k < 2; k++) {
        collide(ws[k]);
        add_floor(ws[k]);
        in.obj = add_box(ws[k], -0.1, 0.005, &in.field);
    }
    ck_assert_int_eq(pf_world_set_contact_callback(w, try_removals, &in), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 3), PF_OK);
    ck_assert_int_eq(pf_world_step(clean, 3), PF_OK);
    ck_assert_int_eq(in.calls, 3);
    ck_assert_msg(in.refused, "a removal from inside the step was not refused");
    ck_assert_uint_eq(pf_world_state_hash(w), pf_world_state_hash(clean));
    ck_assert(pf_world_object_exists(w, in.obj));
    /* between steps they are allowed */
    ck_assert_int_eq(pf_world_set_contact_callback(w, NULL, NULL), PF_OK);
    ck_assert_int_eq(pf_world_remove_force_field(w, in.field), PF_OK);
    ck_assert_int_eq(pf_world_remove_object(w, in.obj), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    pf_world_destroy(w);
    pf_world_destroy(clean);
}
END_TEST

/* ---- determinism ---- */

/* A floor, three boxes (1 and 2 linked by interaction springs) resting on it, and removals between steps: box 0's
 * springs (its points then rest as particles), box 1 (taking the link and its contacts), a box added then box 2.
 * Returns the final state hash. */
static uint64_t removals_hash(pf_executor e, pf_partitioner p, int workers)
{
    pf_world *w = make_world(e, p, workers);
    collide(w);
    add_floor(w);
    pf_force_field_id f0;
    pf_object_id b0 = add_box(w, -0.8, 0.005, &f0), b1 = add_box(w, -0.3, 0.005, NULL),
                 b2 = add_box(w, 0.2, 0.005, NULL);
    (void)b0;
    pf_spring s[2] = {{5, 4, 800, 1, -1}, {7, 6, 800, 1, -1}};
    ck_assert_int_eq(pf_world_add_interaction_springs(w, b1, b2, s, 2, NULL), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 10), PF_OK);
    ck_assert_int_eq(pf_world_remove_force_field(w, f0), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 10), PF_OK);
    ck_assert_int_eq(pf_world_remove_object(w, b1), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 10), PF_OK);
    add_box(w, 0.25, 0.25, NULL); /* falls onto box 2 */
    ck_assert_int_eq(pf_world_step(w, 10), PF_OK);
    ck_assert_int_eq(pf_world_remove_object(w, b2), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 15), PF_OK);
    pf_world_stats st;
    ck_assert_int_eq(pf_world_get_stats(w, &st), PF_OK);
    ck_assert_uint_eq(st.objects, 3); /* floor, box 0, the new box */
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(removals_same_hash_every_executor)
{
    uint64_t ref = removals_hash(PF_EXEC_SEQ, PF_PART_OWNER, 1);
    for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
        for (int workers = 1; workers <= 3; workers++)
            for (int p = 0; p < (e == PF_EXEC_STATIC ? PF_PART_COUNT : 1); p++) {
                uint64_t h = removals_hash((pf_executor)e, (pf_partitioner)p, workers);
                ck_assert_msg(h == ref, "%s/%s with %d workers: hash %016llx, seq %016llx",
                              pf_executor_name((pf_executor)e), pf_partitioner_name((pf_partitioner)p), workers,
                              (unsigned long long)h, (unsigned long long)ref);
            }
}
END_TEST

/* A checkpoint of a world with a removed object goes back into a world built and pruned the same way (and the
 * run goes on as the uninterrupted one), not into one where that object is still there. */
START_TEST(checkpoint_after_removal)
{
    char path[] = "/tmp/pf_removal_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    pf_world *ws[3];
    for (int k = 0; k < 3; k++) {
        ws[k] = plain_world();
        collide(ws[k]);
        add_floor(ws[k]);
        add_box(ws[k], -0.3, 0.005, NULL);
        add_box(ws[k], 0.2, 0.005, NULL);
    }
    ck_assert_int_eq(pf_world_step(ws[0], 10), PF_OK);
    ck_assert_int_eq(pf_world_remove_object(ws[0], (pf_object_id){1}), PF_OK);
    ck_assert_int_eq(pf_world_step(ws[0], 5), PF_OK);
    ck_assert_int_eq(pf_world_save_state(ws[0], path, "removal"), PF_OK);
    ck_assert_int_eq(pf_world_remove_object(ws[1], (pf_object_id){1}), PF_OK);
    ck_assert_int_eq(pf_world_load_state(ws[1], path, NULL, 0), PF_OK);
    ck_assert_int_eq(pf_world_load_state(ws[2], path, NULL, 0), PF_EPARSE);
    ck_assert_int_eq(pf_world_step(ws[0], 10), PF_OK);
    ck_assert_int_eq(pf_world_step(ws[1], 10), PF_OK);
    ck_assert_uint_eq(pf_world_state_hash(ws[0]), pf_world_state_hash(ws[1]));
    for (int k = 0; k < 3; k++) pf_world_destroy(ws[k]);
    close(fd);
    unlink(path);
}
END_TEST

/* ---- memory ---- */

/* Every PhysFlow allocation, counted: a 64-byte header before the block holds its size (PhysFlow asks for 64-byte
 * alignment at most). */
static _Atomic long long live_bytes;

static void *counting_alloc(size_t size, size_t alignment, void *ctx)
{
    (void)ctx;
    void *p = NULL;
    if (alignment > 64 || posix_memalign(&p, 64, size + 64)) return NULL;
    *(size_t *)p = size;
    atomic_fetch_add(&live_bytes, (long long)size);
    return (char *)p + 64;
}

static void counting_free(void *ptr, void *ctx)
{
    (void)ctx;
    if (!ptr) return;
    size_t *h = (size_t *)((char *)ptr - 64);
    atomic_fetch_sub(&live_bytes, (long long)h[0]);
    free(h);
}

/* A game's loop: a 4x4x4 box (springs, a constant force, its surface, springs to an anchor) dropped on the floor,
 * stepped, sometimes stripped of its springs, removed; 1000 times. What stays of a removed object is its id's
 * slot and its surfaces' empty records, some hundred bytes; the box itself holds over 15 kB and the graph
 * records each new box's tasks. Oracle: the memory the library holds, which over the last 400 rounds grows by
 * less than 1 kB a round. */
START_TEST(add_remove_loop_stays_bounded)
{
    pf_set_allocator(counting_alloc, counting_free, NULL);
    pf_world *w = plain_world();
    collide(w);
    add_floor(w);
    pf_object_def ad = pf_object_default_def();
    ad.points = 2;
    ad.positions = (const double[6]){0, 0, 2, 0, 0, 1.8};
    pf_object_id anchor;
    ck_assert_int_eq(pf_world_add_object(w, &ad, &anchor), PF_OK);
    uint32_t p0 = 0;
    ck_assert_int_eq(pf_world_fix_points(w, anchor, &p0, 1), PF_OK);
    ck_assert_int_eq(pf_world_add_springs(w, anchor, &(pf_spring){0, 1, 100, 1, -1}, 1, NULL), PF_OK);
    enum { ROUNDS = 1000, WINDOW = 400 };
    long long peak[2] = {0, 0};
    for (int r = 0; r < ROUNDS; r++) {
        pf_object_id b = add_grid(w, 4, (const double[3]){-0.15, -0.15, 0.005}, 0.3, 0);
        pf_force_field_id springs;
        ck_assert_int_eq(pf_world_add_grid_springs(w, b, 2000, 2, NULL, &springs), PF_OK);
        pf_constant_force_def cf = pf_constant_force_default_def();
        cf.force[0] = 0.1;
        ck_assert_int_eq(pf_world_add_constant_force(w, b, &cf, NULL), PF_OK);
        ck_assert_int_eq(pf_world_add_grid_surface(w, b, NULL), PF_OK);
        ck_assert_int_eq(pf_world_add_interaction_springs(w, b, anchor, &(pf_spring){63, 1, 10, 0, -1}, 1, NULL),
                         PF_OK);
        ck_assert_int_eq(pf_world_step(w, 2), PF_OK);
        if (r % 2) {
            ck_assert_int_eq(pf_world_remove_force_field(w, springs), PF_OK);
            ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        }
        ck_assert_int_eq(pf_world_remove_object(w, b), PF_OK);
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        long long now = atomic_load(&live_bytes);
        if (r >= ROUNDS - 2 * WINDOW) {
            int k = r >= ROUNDS - WINDOW;
            if (now > peak[k]) peak[k] = now;
        }
    }
    ck_assert_uint_eq(pf_world_objects(w), 2 + ROUNDS);
    pf_world_stats st;
    ck_assert_int_eq(pf_world_get_stats(w, &st), PF_OK);
    ck_assert_uint_eq(st.objects, 2);
    ck_assert_msg(peak[1] - peak[0] < WINDOW * 1024LL, "held %lld bytes at most, then %lld: %lld bytes a round",
                  peak[0], peak[1], (peak[1] - peak[0]) / WINDOW);
    pf_world_destroy(w);
    ck_assert_int_eq(atomic_load(&live_bytes), 0); /* nothing left behind */
    pf_set_allocator(NULL, NULL, NULL);
}
END_TEST

/* A world whose garbage tasks pile up is recorded afresh into a new graph (groups.c); its counters go on across
 * that: the repartitions and objects moved that pf_world_get_stats reports never go down. Oracle: the counts
 * seen before, and a fresh recording seen at least once (an update that kept no group and removed none). */
START_TEST(counters_go_on_across_a_fresh_recording)
{
    pf_world_def d = test_world_def(PF_EXEC_STATIC, 2);
    d.runtime.repartition = PF_REPART_ALWAYS;
    pf_world *w = create_world(&d);
    pf_object_id keep[3];
    for (int k = 0; k < 3; k++) {
        keep[k] = add_grid(w, 3, (const double[3]){2.0 * k, 0, 0}, 0.3, 0);
        ck_assert_int_eq(pf_world_add_grid_springs(w, keep[k], 500, 1, NULL, NULL), PF_OK);
    }
    uint32_t reps = 0, moved = 0, fresh = 0, updates = 0;
    for (int r = 0; r < 400 && fresh < 2; r++) {
        pf_object_id b = add_grid(w, 4, (const double[3]){0, 3, 0}, 0.3, 0);
        ck_assert_int_eq(pf_world_add_grid_springs(w, b, 2000, 2, NULL, NULL), PF_OK);
        ck_assert_int_eq(pf_world_add_interaction_springs(w, b, keep[r % 3], &(pf_spring){0, 0, 10, 0, -1}, 1, NULL),
                         PF_OK);
        for (int s = 0; s < 2; s++) {
            ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
            pf_world_update u;
            uint32_t n = 0;
            ck_assert_int_eq(pf_world_get_last_update(w, &u, &n), PF_OK);
            fresh += n > updates && u.step > 0 && u.groups_kept == 0 && u.groups_removed == 0;
            updates = n;
            pf_world_stats st;
            ck_assert_int_eq(pf_world_get_stats(w, &st), PF_OK);
            ck_assert_msg(st.repartitions >= reps && st.objects_moved >= moved,
                          "round %d: %u repartitions, %u objects moved after %u, %u", r, st.repartitions,
                          st.objects_moved, reps, moved);
            reps = st.repartitions, moved = st.objects_moved;
        }
        ck_assert_int_eq(pf_world_remove_object(w, b), PF_OK);
    }
    ck_assert_msg(fresh > 0, "no fresh recording in 400 rounds");
    ck_assert_uint_gt(reps, 0);
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_removal");
    TCase *tc = tcase_create("removal");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, removed_springs_leave_free_fall);
    tcase_add_test(tc, removed_object_leaves_partner_as_if_alone);
    tcase_add_test(tc, removed_box_takes_its_contacts);
    tcase_add_test(tc, removed_ids_refused);
    tcase_add_test(tc, removal_inside_a_contact_callback_refused);
    tcase_add_test(tc, removals_same_hash_every_executor);
    tcase_add_test(tc, checkpoint_after_removal);
    tcase_add_test(tc, add_remove_loop_stays_bounded);
    tcase_add_test(tc, counters_go_on_across_a_fresh_recording);
    suite_add_tcase(s, tc);
    return s;
}
