/* Edge–edge contacts (surfaces with lines, SOFA LineCollisionModel) and self-collision of one surface, built in
 * code and loaded from the scene files of tests/scenes. Oracles: the penalty equilibrium k (d - sep) = m g of a
 * rod resting on another; the closest distance between the rods' segments (pf_segment_closest_points, itself
 * tested against sampling) never below 0; a folded cloth whose vertices never cross a triangle of their own
 * surface (brute force over every vertex and triangle, every step); the contacts the stage reports, counted and
 * placed by hand; the state hash of seq for every executor and worker count, and of the world built in code for
 * its scene file. */
#include "check_main.h"
#include "world_fixture.h"
#include "scene_files.h"

#include "physflow/narrowphase.h"
#include "physflow/physics.h"
#include "physflow/scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* handles by their creation-order number (the worlds below are built in a known order) */
#define OBJ(i) ((pf_object_id){i})
#define SURF(i) ((pf_surface_id){i})

/* The collision settings these tests are sized for (and their scene files write): alarm 0.02 m, contact 0.01 m. */
static pf_collision_def distances(void)
{
    pf_collision_def c = pf_collision_default_def();
    c.alarm_distance = 0.02;
    c.contact_distance = 0.01;
    return c;
}

#ifndef TEST_SCENES_DIR
#error "TEST_SCENES_DIR: the folder of tests/scenes (set by tests/meson.build)"
#endif

static pf_world *make_world(int workers, pf_executor e, double dt)
{
    pf_world_def d = test_world_def(e, workers);
    d.dt = dt;
    return create_world(&d);
}

/* Records the latest contacts the stage reports. */
typedef struct seen {
    uint32_t n;
    pf_world_contact c[1024];
} seen;

static void on_contacts(const pf_world_contact *c, uint32_t n, void *ctx)
{
    seen *s = ctx;
    s->n = n;
    memcpy(s->c, c, (n < 1024 ? n : 1024) * sizeof *c);
}

/* The smallest distance between a segment of surface sa and one of surface sb (each segment given by its edges
 * list, 2 vertex indices each), at the current positions. */
static double segments_distance(pf_world *w, pf_surface_id sa, const uint32_t *ea, uint32_t na, pf_surface_id sb,
                                const uint32_t *eb, uint32_t nb)
{
    uint32_t nv;
    const double *pa = pf_world_surface_positions(w, sa, &nv);
    double *a = malloc(3 * nv * sizeof *a);
    memcpy(a, pa, 3 * nv * sizeof *a); /* the next call may reuse the memory when sa == sb */
    const double *b = pf_world_surface_positions(w, sb, NULL);
    double best = INFINITY;
    for (uint32_t i = 0; i < na; i++)
        for (uint32_t j = 0; j < nb; j++) {
            double st[2], cp[3], cq[3];
            if (pf_segment_closest_points(a + 3 * ea[2 * i], a + 3 * ea[2 * i + 1], b + 3 * eb[2 * j],
                                          b + 3 * eb[2 * j + 1], st, cp, cq) != PF_OK)
                ck_abort_msg("%s", pf_last_error());
            double d = sqrt((cp[0] - cq[0]) * (cp[0] - cq[0]) + (cp[1] - cq[1]) * (cp[1] - cq[1]) +
                            (cp[2] - cq[2]) * (cp[2] - cq[2]));
            best = fmin(best, d);
        }
    free(a);
    return best;
}

/* ---- two rods crossing: tests/scenes/rods_crossing.xml built in code ---- */

static const double ROD_MASS = 0.1, ROD_K = 2000, ROD_Z = 0.05, ROD_HALF = 0.25;
static const uint32_t ROD_B_EDGES[6] = {0, 1, 1, 2, 2, 3}, ROD_A_EDGES[2] = {0, 1};

static void rods_collision(pf_world *w, double stiffness)
{
    pf_collision_def c = distances();
    c.stiffness = stiffness;
    c.damping = 5;
    ck_assert_int_eq(pf_world_set_collision(w, &c), PF_OK);
}

/* Object 0, surface 0: a static polyline along x at z = 0, 3 segments (the crossing falls inside the middle one);
 * object 1, surface 1: a rigid rod along y at height ROD_Z, its two ends as one segment. Lines only. */
static void build_rods(pf_world *w)
{
    pf_solver_def sv = pf_solver_default_def();
    sv.rayleigh_mass = 1;
    const double xb[12] = {-0.3, 0, 0, -0.1, 0, 0, 0.1, 0, 0, 0.3, 0, 0};
    pf_object_def o = pf_object_default_def();
    o.points = 4;
    o.positions = xb;
    o.total_mass = 0.4;
    o.solver = sv;
    pf_object_id b, a;
    ck_assert_int_eq(pf_world_add_object(w, &o, &b), PF_OK);
    const uint32_t all[4] = {0, 1, 2, 3};
    ck_assert_int_eq(pf_world_fix_points(w, b, all, 4), PF_OK);
    pf_surface_def s = pf_surface_default_def();
    s.vertices = 4;
    s.points = all;
    s.edges = ROD_B_EDGES;
    s.nedges = 3;
    s.lines = 1;
    ck_assert_int_eq(pf_world_add_surface(w, b, &s, NULL), PF_OK);

    pf_rigid_def r = pf_rigid_default_def();
    r.position[2] = ROD_Z;
    r.half_extents[0] = r.half_extents[2] = 0.005;
    r.half_extents[1] = ROD_HALF;
    r.mass = ROD_MASS;
    r.solver = sv;
    ck_assert_int_eq(pf_world_add_rigid(w, &r, &a), PF_OK);
    const double ends[6] = {0, -ROD_HALF, ROD_Z, 0, ROD_HALF, ROD_Z};
    s = pf_surface_default_def();
    s.mapping = PF_SURFACE_RIGID;
    s.vertices = 2;
    s.positions = ends;
    s.edges = ROD_A_EDGES;
    s.nedges = 1;
    s.lines = 1;
    ck_assert_int_eq(pf_world_add_surface(w, a, &s, NULL), PF_OK);
}

/* Steps the rods, checking every step that the segments never meet; returns the smallest distance seen. */
static double run_rods(pf_world *w, uint32_t steps)
{
    double lowest = INFINITY;
    for (uint32_t k = 0; k < steps; k++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        double d = segments_distance(w, SURF(1), ROD_A_EDGES, 1, SURF(0), ROD_B_EDGES, 3);
        if (!(d > 0)) ck_abort_msg("step %u: the rods meet (distance %g)", k, d);
        lowest = fmin(lowest, d);
    }
    return lowest;
}

/* The rigid rod lands crosswise on the polyline and rests on one edge–edge contact at the middle of both, where
 * k (d - sep) = m g: sep = d - m g / k. */
START_TEST(test_rod_rests_on_rod)
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, 0.005);
    build_rods(w);
    rods_collision(w, ROD_K);
    static seen s;
    ck_assert_int_eq(pf_world_set_contact_callback(w, on_contacts, &s), PF_OK);
    double lowest = run_rods(w, 300);
    pf_collision_def c = distances();
    double expect = c.contact_distance - ROD_MASS * 9.81 / ROD_K, pos[3], q[4], vel[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, OBJ(1), pos, q, vel, NULL), PF_OK);
    double rest = segments_distance(w, SURF(1), ROD_A_EDGES, 1, SURF(0), ROD_B_EDGES, 3);
    fprintf(stderr, "rod on rod: rests at %.7f (penalty equilibrium %.7f), closest ever %.7f\n", rest, expect, lowest);
    ck_assert_msg(fabs(rest - expect) < 2e-5, "rod at rest %.6f above the other, penalty equilibrium %.6f", rest,
                  expect);
    ck_assert_msg(lowest > 0.5 * c.contact_distance, "the rods came within %g", lowest);
    ck_assert(fabs(vel[2]) < 1e-3);
    ck_assert(fabs(q[0]) < 1e-6 && fabs(q[1]) < 1e-6 && fabs(q[2]) < 1e-6); /* level */
    /* one contact, at the middle of both rods, along z from the static rod (object 0) to the rigid one */
    ck_assert_uint_eq(s.n, 1);
    const pf_world_contact *ct = &s.c[0];
    ck_assert_uint_eq(ct->object_a.index, 0);
    ck_assert_uint_eq(ct->object_b.index, 1);
    ck_assert(fabs(ct->point_a[0]) < 1e-9 && fabs(ct->point_a[1]) < 1e-9 && fabs(ct->point_a[2]) < 1e-12);
    ck_assert(fabs(ct->point_b[0]) < 1e-9 && fabs(ct->point_b[1]) < 1e-6 && fabs(ct->point_b[2] - rest) < 1e-5);
    ck_assert(fabs(ct->normal[2] + 1) < 1e-9); /* from b (the rigid rod) to a */
    pf_collision_stats st;
    ck_assert_int_eq(pf_world_get_collision_stats(w, &st), PF_OK);
    ck_assert_uint_eq(st.contacts, 1);
    ck_assert(fabs(st.min_distance - rest) < 1e-4);
    pf_world_destroy(w);
}
END_TEST

/* Without lines the rods do not see each other: the rigid one falls through. */
START_TEST(test_rods_without_lines_pass)
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, 0.005);
    build_rods(w);
    pf_surface_def off = pf_surface_default_def();
    ck_assert_int_eq(pf_world_set_surface_collision(w, SURF(1), &off), PF_OK);
    uint32_t ne = 7;
    ck_assert_ptr_nonnull(pf_world_surface_edges(w, SURF(1), &ne));
    ck_assert_uint_eq(ne, 0);
    rods_collision(w, ROD_K);
    ck_assert_int_eq(pf_world_step(w, 100), PF_OK);
    double pos[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, OBJ(1), pos, NULL, NULL, NULL), PF_OK);
    ck_assert_msg(pos[2] < -0.1, "the rod stopped at %g", pos[2]);
    pf_world_destroy(w);
}
END_TEST

static uint64_t rods_hash(int workers, pf_executor e, pf_partitioner p, uint32_t steps)
{
    pf_world *w = make_world(workers, e, 0.005);
    ck_assert_int_eq(pf_world_set_partitioner(w, p), PF_OK);
    build_rods(w);
    rods_collision(w, ROD_K);
    ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
    pf_collision_stats st;
    ck_assert_int_eq(pf_world_get_collision_stats(w, &st), PF_OK);
    ck_assert_uint_eq(st.contacts, 1); /* landed */
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

/* The scene file is the world built in code: the same state after 150 steps, and the same equilibrium. */
START_TEST(test_rods_scene_equals_code)
{
    pf_scene *sc = load_test_scene("rods_crossing.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    pf_world *w = pf_scene_world(sc);
    const pf_scene_collision_model *m;
    ck_assert_uint_eq(pf_scene_collision_models(sc, &m), 2);
    ck_assert_int_eq(m[0].kind, PF_COLLIDE_LINE);
    ck_assert_int_eq(m[1].kind, PF_COLLIDE_LINE);
    uint32_t ne, nt;
    const uint32_t *e = pf_world_surface_edges(w, SURF(0), &ne);
    ck_assert_uint_eq(ne, 3);
    ck_assert_mem_eq(e, ROD_B_EDGES, sizeof ROD_B_EDGES);
    ck_assert_int_eq(pf_world_get_surface_info(w, SURF(1), NULL, NULL, &nt), PF_OK);
    ck_assert_uint_eq(nt, 0);
    double lowest = run_rods(w, 150);
    ck_assert_uint_eq(pf_world_state_hash(w), rods_hash(1, PF_EXEC_SEQ, PF_PART_OWNER, 150));
    ck_assert(lowest > 0.005);
    pf_scene_destroy(sc);
}
END_TEST

/* Every executor, worker count (1-3) and partitioner gives seq's hash of `hash` after `steps` steps. */
static void assert_same_hash_everywhere(uint64_t (*hash)(int, pf_executor, pf_partitioner, uint32_t), uint32_t steps)
{
    uint64_t ref = hash(1, PF_EXEC_SEQ, PF_PART_OWNER, steps);
    for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
        for (int k = 1; k <= 3; k++)
            for (int p = 0; p < (e == PF_EXEC_STATIC ? PF_PART_COUNT : 1); p++) {
                uint64_t h = hash(k, (pf_executor)e, (pf_partitioner)p, steps);
                ck_assert_msg(h == ref, "%s/%s with %d workers: %016llx, seq %016llx", pf_executor_name((pf_executor)e),
                              pf_partitioner_name((pf_partitioner)p), k, (unsigned long long)h,
                              (unsigned long long)ref);
            }
}

/* Every executor, worker count and partitioner ends the rods' fall where seq does. */
START_TEST(test_rods_same_hash_everywhere)
{
    assert_same_hash_everywhere(rods_hash, 80);
}
END_TEST

/* ---- a rope over a rod: vertex–edge contacts of free lines ---- */

enum { ROPE_N = 9 };
static const double ROPE_H = 0.05;

/* Object 0: the static polyline of build_rods; object 1: a rope of ROPE_N points along y at z = ROD_Z, its middle
 * point above the polyline, springs between neighbours, lines only. */
static void build_rope(pf_world *w)
{
    const double xb[12] = {-0.3, 0, 0, -0.1, 0, 0, 0.1, 0, 0, 0.3, 0, 0};
    pf_object_def o = pf_object_default_def();
    o.points = 4;
    o.positions = xb;
    pf_object_id b, r;
    ck_assert_int_eq(pf_world_add_object(w, &o, &b), PF_OK);
    const uint32_t all[ROPE_N] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    ck_assert_int_eq(pf_world_fix_points(w, b, all, 4), PF_OK);
    pf_surface_def s = pf_surface_default_def();
    s.vertices = 4;
    s.points = all;
    s.edges = ROD_B_EDGES;
    s.nedges = 3;
    s.lines = 1;
    ck_assert_int_eq(pf_world_add_surface(w, b, &s, NULL), PF_OK);
    double x[3 * ROPE_N];
    uint32_t e[2 * (ROPE_N - 1)];
    pf_spring sp[ROPE_N - 1];
    for (int k = 0; k < ROPE_N; k++) x[3 * k] = 0, x[3 * k + 1] = (k - ROPE_N / 2) * ROPE_H, x[3 * k + 2] = ROD_Z;
    for (uint32_t k = 0; k + 1 < ROPE_N; k++) {
        e[2 * k] = k, e[2 * k + 1] = k + 1;
        sp[k] = (pf_spring){k, k + 1, 300, 0.5, -1.0};
    }
    o = pf_object_default_def();
    o.points = ROPE_N;
    o.positions = x;
    o.vertex_mass = 0.01;
    o.solver.rayleigh_mass = 5; /* the hanging ends swing as pendulums: damp them to rest within the test */
    ck_assert_int_eq(pf_world_add_object(w, &o, &r), PF_OK);
    ck_assert_int_eq(pf_world_add_springs(w, r, sp, ROPE_N - 1, NULL), PF_OK);
    s = pf_surface_default_def();
    s.vertices = ROPE_N;
    s.points = all;
    s.edges = e;
    s.nedges = ROPE_N - 1;
    s.lines = 1;
    ck_assert_int_eq(pf_world_add_surface(w, r, &s, NULL), PF_OK);
}

/* The rope lands on the rod and drapes over it, resting on its two flanks: one edge–edge contact each side, which
 * together carry the rope's weight (the contact forces' vertical sum is M g). Its ends hang below, its middle
 * stays above the rod, and it never meets the rod. */
START_TEST(test_rope_drapes_over_rod)
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, 0.005);
    build_rope(w);
    rods_collision(w, ROD_K);
    static seen s;
    ck_assert_int_eq(pf_world_set_contact_callback(w, on_contacts, &s), PF_OK);
    uint32_t rope_edges[2 * (ROPE_N - 1)];
    for (uint32_t k = 0; k + 1 < ROPE_N; k++) rope_edges[2 * k] = k, rope_edges[2 * k + 1] = k + 1;
    double lowest = INFINITY;
    for (int k = 0; k < 800; k++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        lowest = fmin(lowest, segments_distance(w, SURF(1), rope_edges, ROPE_N - 1, SURF(0), ROD_B_EDGES, 3));
    }
    const double *x = pf_world_positions(w, OBJ(1), NULL);
    pf_collision_def c = distances();
    double weight = ROPE_N * 0.01 * 9.81, lift = 0;
    for (uint32_t k = 0; k < s.n; k++) lift -= s.c[k].force[2]; /* force on a, the rod: the rope gets its opposite */
    fprintf(stderr, "rope over rod: %u contacts lift %.6f N (weight %.6f N), middle at %.5f, ends at %.4f, closest "
            "ever %.6f\n", s.n, lift, weight, x[3 * (ROPE_N / 2) + 2], x[2], lowest);
    ck_assert_msg(lowest > 0.5 * c.contact_distance, "the rope came within %g of the rod", lowest);
    ck_assert_uint_eq(s.n, 2);
    ck_assert_msg(fabs(lift - weight) < 0.01 * weight, "contacts lift %g N, the rope weighs %g N", lift, weight);
    ck_assert(s.c[0].point_b[1] * s.c[1].point_b[1] < 0); /* one on each flank */
    ck_assert(x[3 * (ROPE_N / 2) + 2] > c.contact_distance);
    ck_assert(x[2] < -0.1 && x[3 * (ROPE_N - 1) + 2] < -0.1); /* draped, not balanced */
    pf_world_destroy(w);
}
END_TEST

/* ---- which feature pairs become contacts ---- */

/* A world without gravity, and the contacts of its first step. */
static pf_world *still_world(void)
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, 1e-4);
    const double g[3] = {0, 0, 0};
    ck_assert_int_eq(pf_world_set_gravity(w, g), PF_OK);
    return w;
}

/* An object of points with one surface over all of them: edges (lines on when given), triangles. */
static pf_object_id add_lines(pf_world *w, const double *x, uint32_t n, const uint32_t *edges, uint32_t ne,
                              const uint32_t *tri, uint32_t nt, int fixed, int self)
{
    pf_object_def o = pf_object_default_def();
    o.points = n;
    o.positions = x;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    uint32_t idx[16];
    for (uint32_t k = 0; k < n; k++) idx[k] = k;
    if (fixed) ck_assert_int_eq(pf_world_fix_points(w, id, idx, n), PF_OK);
    pf_surface_def s = pf_surface_default_def();
    s.vertices = n;
    s.points = idx;
    s.edges = edges;
    s.nedges = ne;
    s.indices = tri;
    s.triangles = nt;
    s.lines = 1;
    s.self_collision = self;
    ck_assert_int_eq(pf_world_add_surface(w, id, &s, NULL), PF_OK);
    return id;
}

static const seen *first_step(pf_world *w)
{
    static seen s;
    pf_collision_def c = distances();
    ck_assert_int_eq(pf_world_set_collision(w, &c), PF_OK);
    ck_assert_int_eq(pf_world_set_contact_callback(w, on_contacts, &s), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    return &s;
}

/* A line's end 0.015 above the inside of another line: one vertex–edge contact; above a triangle's edge, the
 * vertex–triangle contact alone (the edge test leaves it); a polyline's kink: one contact, though both its
 * segments find it; parallel lines 0.015 apart: one contact at the middle of their overlap. */
START_TEST(test_vertex_edge_contacts)
{
    static const double rod[6] = {-0.5, 0, 0, 0.5, 0, 0}, tip[6] = {0.1, 0, 0.015, 0.1, 0, 0.5};
    static const uint32_t one[2] = {0, 1};
    pf_world *w = still_world();
    add_lines(w, rod, 2, one, 1, NULL, 0, 1, 0);
    add_lines(w, tip, 2, one, 1, NULL, 0, 0, 0);
    const seen *s = first_step(w);
    ck_assert_uint_eq(s->n, 1);
    ck_assert(fabs(s->c[0].distance - 0.015) < 1e-12 && fabs(s->c[0].normal[2] + 1) < 1e-12);
    ck_assert(fabs(s->c[0].point_a[0] - 0.1) < 1e-12 && fabs(s->c[0].point_b[2] - 0.015) < 1e-12);
    pf_world_destroy(w);

    static const double tri[9] = {-0.5, 0, 0, 0.5, 0, 0, 0, 0.5, 0};
    static const uint32_t t1[3] = {0, 1, 2};
    w = still_world();
    add_lines(w, tri, 3, NULL, 0, t1, 1, 1, 0);
    add_lines(w, tip, 2, one, 1, NULL, 0, 0, 0);
    s = first_step(w);
    ck_assert_uint_eq(s->n, 1); /* vertex–triangle, at the triangle's edge */
    ck_assert(fabs(s->c[0].distance - 0.015) < 1e-12);
    pf_world_destroy(w);

    /* a kink of a polyline: both its segments find their common vertex: one contact */
    static const double kink[9] = {0, -0.3, 0.3, 0, 0, 0.015, 0, 0.3, 0.3};
    static const uint32_t two[4] = {0, 1, 1, 2};
    w = still_world();
    add_lines(w, rod, 2, one, 1, NULL, 0, 1, 0);
    add_lines(w, kink, 3, two, 2, NULL, 0, 0, 0);
    s = first_step(w);
    ck_assert_uint_eq(s->n, 1);
    ck_assert(fabs(s->c[0].point_b[2] - 0.015) < 1e-12 && fabs(s->c[0].point_b[1]) < 1e-12);
    pf_world_destroy(w);

    static const double over[6] = {0.3, 0, 0.015, 1.3, 0, 0.015};
    w = still_world();
    add_lines(w, rod, 2, one, 1, NULL, 0, 1, 0);
    add_lines(w, over, 2, one, 1, NULL, 0, 0, 0);
    s = first_step(w);
    ck_assert_uint_eq(s->n, 1);
    ck_assert(fabs(s->c[0].point_a[0] - 0.4) < 1e-12 && fabs(s->c[0].point_b[0] - 0.4) < 1e-12);
    pf_world_destroy(w);
}
END_TEST

/* One polyline with self-collision: its first and last segments cross 0.015 apart: one contact of the object
 * with itself; its neighbours (segments with a common vertex, two vertices joined by a segment) none, although
 * they are closer than the alarm distance. */
START_TEST(test_polyline_self_contact)
{
    static const double x[15] = {-0.5, 0, 0, 0.5, 0, 0, 0.5, -0.5, 0.3, 0, -0.5, 0.015, 0, 0.5, 0.015};
    static const uint32_t e[8] = {0, 1, 1, 2, 2, 3, 3, 4};
    pf_world *w = still_world();
    pf_object_id o = add_lines(w, x, 5, e, 4, NULL, 0, 0, 1);
    const seen *s = first_step(w);
    ck_assert_uint_eq(s->n, 1);
    ck_assert(s->c[0].object_a.index == o.index && s->c[0].object_b.index == o.index);
    ck_assert(fabs(s->c[0].distance - 0.015) < 1e-12 && fabs(fabs(s->c[0].normal[2]) - 1) < 1e-12);
    pf_collision_stats st;
    ck_assert_int_eq(pf_world_get_collision_stats(w, &st), PF_OK);
    ck_assert_uint_eq(st.pairs, 1); /* the field of the object with itself */
    pf_world_destroy(w);

    double fine[30]; /* a straight polyline of 10 points 0.015 apart (alarm 0.02) */
    uint32_t fe[18];
    for (uint32_t k = 0; k < 10; k++) fine[3 * k] = 0.015 * k, fine[3 * k + 1] = fine[3 * k + 2] = 0;
    for (uint32_t k = 0; k < 9; k++) fe[2 * k] = k, fe[2 * k + 1] = k + 1;
    w = still_world();
    add_lines(w, fine, 10, fe, 9, NULL, 0, 0, 1);
    s = first_step(w);
    ck_assert_uint_eq(s->n, 0);
    pf_world_destroy(w);
}
END_TEST

/* ---- a cloth folded over itself: tests/scenes/cloth_fold.xml built in code ---- */

enum { CU = 19, CV = 6, CN = CU * CV, CT = 2 * (CU - 1) * (CV - 1) };
static const double CH = 0.05, CX0 = 0.05, CY0 = 0.05, CZ0 = 0.015;

/* path point i (8 along the bottom, 2 up the fold, 8 back along the top), row j across: as gen_cloth_fold.py */
static void cloth_point(int i, int j, double p[3])
{
    double x, z;
    if (i <= 8)
        x = CX0 + i * CH, z = CZ0;
    else if (i == 9)
        x = CX0 + 8.5 * CH, z = CZ0 + CH; /* the fold bulges outwards */
    else if (i == 10)
        x = CX0 + 8 * CH, z = CZ0 + 2 * CH;
    else
        x = CX0 + (18 - i) * CH, z = CZ0 + 2 * CH;
    p[0] = x, p[1] = CY0 + j * CH, p[2] = z;
}

static void cloth_triangles(uint32_t t[3 * CT])
{
    uint32_t *d = t;
    for (uint32_t j = 0; j + 1 < CV; j++)
        for (uint32_t i = 0; i + 1 < CU; i++) {
            uint32_t a = j * CU + i, b = j * CU + i + 1, c = (j + 1) * CU + i + 1, e = (j + 1) * CU + i;
            d[0] = a, d[1] = b, d[2] = c, d[3] = a, d[4] = c, d[5] = e;
            d += 6;
        }
}

/* Object 0, surface 0: a static floor (a flat 5 x 5 grid at z = 0, its sheet); object 1, surface 1: the cloth,
 * springs on its triangles' edges in MeshSpringForceField's order, triangles and lines colliding with themselves. */
static void build_cloth(pf_world *w, int self)
{
    pf_solver_def sv = pf_solver_default_def();
    sv.rayleigh_mass = 0.5;
    sv.cg_iterations = 50;
    sv.cg_tolerance = 1e-10;
    sv.cg_threshold = 1e-12;
    pf_object_def o = pf_object_default_def();
    o.grid[0] = o.grid[1] = 5, o.grid[2] = 1;
    o.grid_min[0] = o.grid_min[1] = -1, o.grid_max[0] = o.grid_max[1] = 1;
    o.total_mass = 1;
    o.solver = sv;
    pf_object_id floor, cloth;
    ck_assert_int_eq(pf_world_add_object(w, &o, &floor), PF_OK);
    double x[3 * CN];
    for (int j = 0; j < CV; j++)
        for (int i = 0; i < CU; i++) cloth_point(i, j, x + 3 * (j * CU + i));
    o = pf_object_default_def();
    o.points = CN;
    o.positions = x;
    o.total_mass = CN * 0.001;
    o.solver = sv;
    ck_assert_int_eq(pf_world_add_object(w, &o, &cloth), PF_OK);
    uint32_t all[CN];
    for (uint32_t k = 0; k < CN; k++) all[k] = k;
    ck_assert_int_eq(pf_world_fix_points(w, floor, all, 25), PF_OK);
    static uint32_t tri[3 * CT];
    cloth_triangles(tri);
    pf_spring sp[3 * CT];
    uint32_t ns = 0;
    for (uint32_t t = 0; t < CT; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = tri[3 * t + k], b = tri[3 * t + (k + 1) % 3], seen_before = 0;
            for (uint32_t q = 0; q < ns && !seen_before; q++)
                seen_before = (sp[q].a == a && sp[q].b == b) || (sp[q].a == b && sp[q].b == a);
            if (!seen_before) sp[ns++] = (pf_spring){a, b, 100, 0.1, -1.0};
        }
    ck_assert_int_eq(pf_world_add_springs(w, cloth, sp, ns, NULL), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, floor, NULL), PF_OK);
    pf_surface_def s = pf_surface_default_def();
    s.vertices = CN;
    s.points = all;
    s.indices = tri;
    s.triangles = CT;
    s.lines = self;
    s.self_collision = self;
    ck_assert_int_eq(pf_world_add_surface(w, cloth, &s, NULL), PF_OK);
    pf_collision_def c = distances();
    c.stiffness = 500;
    c.damping = 0.2;
    c.friction = 0.3; /* without friction the layers' in-plane modes keep them sliding on each other for seconds */
    ck_assert_int_eq(pf_world_set_collision(w, &c), PF_OK);
}

/* The oracle of "never passes through itself", brute force over every vertex and every triangle of the cloth
 * that does not contain it: the smallest distance, and per pair whose closest point lies inside the triangle
 * (and closer than 0.03 m) the side of the triangle the vertex is on, which must not change from one step to the
 * next while the closest point stays inside (a vertex that passes through a triangle changes it; at 0.002 s a
 * step and about 1.3 m/s, one that stays 0.005 m away cannot go round an edge in one step instead). */
typedef struct cloth_watch {
    double side[CN][CT]; /* signed distance along the face normal, NaN when not tracked */
    double lowest;
    uint32_t steps, self_contacts; /* most contacts within the cloth in one step */
    int crossed;                   /* the first step at which a vertex passed through a triangle, else -1 */
    char what[128];
    seen contacts;
} cloth_watch;

static void cloth_check(pf_world *w, cloth_watch *cw)
{
    uint32_t nv, nt;
    const double *x = pf_world_surface_positions(w, SURF(1), &nv);
    const uint32_t *tri = pf_world_surface_triangles(w, SURF(1), &nt);
    ck_assert(nv == CN && nt == CT);
    if (cw->contacts.n > 1024) ck_abort_msg("more contacts than the test keeps");
    for (uint32_t v = 0; v < CN; v++)
        for (uint32_t t = 0; t < CT; t++) {
            const uint32_t *tv = tri + 3 * t;
            if (tv[0] == v || tv[1] == v || tv[2] == v) continue;
            const double *p = x + 3 * v, *a = x + 3 * tv[0], *b = x + 3 * tv[1], *c = x + 3 * tv[2];
            double q[3];
            int f = pf_triangle_closest_point(p, a, b, c, q);
            double d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
            double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            cw->lowest = fmin(cw->lowest, dist);
            if (!(dist > 0) && cw->crossed < 0) {
                cw->crossed = (int)cw->steps;
                snprintf(cw->what, sizeof cw->what, "vertex %u lies on triangle %u", v, t);
            }
            double side = NAN;
            if (f == PF_TRI_FACE && dist < 0.03) {
                double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
                double n[3] = {u[1] * e[2] - u[2] * e[1], u[2] * e[0] - u[0] * e[2], u[0] * e[1] - u[1] * e[0]};
                side = n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
            }
            double was = cw->side[v][t];
            if (side * was < 0 && cw->crossed < 0) {
                cw->crossed = (int)cw->steps;
                snprintf(cw->what, sizeof cw->what, "vertex %u passed through triangle %u", v, t);
            }
            cw->side[v][t] = side;
        }
    uint32_t self = 0;
    for (uint32_t k = 0; k < cw->contacts.n; k++)
        self += cw->contacts.c[k].object_a.index == 1 && cw->contacts.c[k].object_b.index == 1;
    if (self > cw->self_contacts) cw->self_contacts = self;
    cw->steps++;
}

static cloth_watch *watch_cloth(pf_world *w)
{
    cloth_watch *cw = calloc(1, sizeof *cw);
    for (uint32_t v = 0; v < CN; v++)
        for (uint32_t t = 0; t < CT; t++) cw->side[v][t] = NAN;
    cw->lowest = INFINITY;
    cw->crossed = -1;
    ck_assert_int_eq(pf_world_set_contact_callback(w, on_contacts, &cw->contacts), PF_OK);
    return cw;
}

/* the mean height of the top layer's inner points (path points 12..17, rows 1..4) above the bottom layer's below
 * them (path points 6..1) */
static double layer_gap(pf_world *w)
{
    const double *x = pf_world_positions(w, OBJ(1), NULL);
    double sum = 0;
    for (int j = 1; j < CV - 1; j++)
        for (int i = 12; i <= 17; i++) sum += x[3 * (j * CU + i) + 2] - x[3 * (j * CU + 18 - i) + 2];
    return sum / ((CV - 2) * 6);
}

/* Steps the cloth, the oracle after every step; the layers' gap at the end. */
static double run_cloth(pf_world *w, cloth_watch *cw, uint32_t steps)
{
    cloth_check(w, cw);
    for (uint32_t k = 0; k < steps; k++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        cloth_check(w, cw);
    }
    return layer_gap(w);
}

/* The top layer falls 0.1 m onto the bottom one and comes to rest on it, the contact distance above (less a
 * vertex's weight over the stiffness of its contacts); no vertex ever passes through a triangle of the cloth or
 * comes within half the contact distance of one. */
START_TEST(test_cloth_falls_onto_itself)
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, 0.002);
    build_cloth(w, 1);
    cloth_watch *cw = watch_cloth(w);
    double gap = run_cloth(w, cw, 400);
    fprintf(stderr, "cloth: layers %.6f apart at rest, closest vertex-triangle %.6f, up to %u contacts within the "
            "cloth\n", gap, cw->lowest, cw->self_contacts);
    ck_assert_msg(cw->crossed < 0, "step %d: %s", cw->crossed, cw->what);
    pf_collision_def c = distances();
    ck_assert_msg(cw->lowest > 0.5 * c.contact_distance, "a vertex came within %g of a triangle", cw->lowest);
    ck_assert_msg(gap > 0.009 && gap < c.contact_distance, "the layers rest %g apart", gap);
    ck_assert_uint_gt(cw->self_contacts, 50); /* the top layer rests on contacts within the cloth */
    const double *v = pf_world_velocities(w, OBJ(1), NULL);
    double vmax = 0;
    uint32_t imax = 0;
    for (uint32_t i = 0; i < 3 * CN; i++)
        if (fabs(v[i]) > vmax) vmax = fabs(v[i]), imax = i;
    ck_assert_msg(vmax < 0.01, "point %u still moves at %g m/s along axis %u", imax / 3, v[imax], imax % 3);
    free(cw);
    pf_world_destroy(w);
}
END_TEST

/* The oracle sees a crossing: without self-collision the top layer falls through the bottom one. */
START_TEST(test_cloth_without_self_collision_passes_through)
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, 0.002);
    build_cloth(w, 0);
    cloth_watch *cw = watch_cloth(w);
    run_cloth(w, cw, 150);
    ck_assert_msg(cw->crossed > 0, "no crossing seen (closest %g)", cw->lowest);
    ck_assert_uint_eq(cw->self_contacts, 0);
    free(cw);
    pf_world_destroy(w);
}
END_TEST

static uint64_t cloth_hash(int workers, pf_executor e, pf_partitioner p, uint32_t steps)
{
    pf_world *w = make_world(workers, e, 0.002);
    ck_assert_int_eq(pf_world_set_partitioner(w, p), PF_OK);
    build_cloth(w, 1);
    ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
    pf_collision_stats st;
    ck_assert_int_eq(pf_world_get_collision_stats(w, &st), PF_OK);
    ck_assert_uint_eq(st.pairs, 2); /* the floor and the cloth, the cloth and itself */
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

/* The scene file is the world built in code (the same state after 200 steps, through the landing), and the
 * oracle holds on it. */
START_TEST(test_cloth_scene_equals_code)
{
    pf_scene *sc = load_test_scene("cloth_fold.xml", PF_EXEC_SEQ, PF_PART_OWNER, 1);
    pf_world *w = pf_scene_world(sc);
    const pf_scene_collision_model *m;
    ck_assert_uint_eq(pf_scene_collision_models(sc, &m), 3);
    ck_assert_int_eq(m[1].kind, PF_COLLIDE_TRIANGLE);
    ck_assert_int_eq(m[2].kind, PF_COLLIDE_LINE);
    ck_assert_uint_eq(m[1].surface.index, m[2].surface.index);
    uint32_t ne;
    ck_assert_ptr_nonnull(pf_world_surface_edges(w, SURF(1), &ne));
    ck_assert_uint_eq(ne, (CU - 1) * CV + CU * (CV - 1) + (CU - 1) * (CV - 1)); /* rows, columns, diagonals */
    cloth_watch *cw = watch_cloth(w);
    run_cloth(w, cw, 200);
    ck_assert_msg(cw->crossed < 0, "step %d: %s", cw->crossed, cw->what);
    ck_assert_uint_gt(cw->self_contacts, 50);
    ck_assert_uint_eq(pf_world_state_hash(w), cloth_hash(1, PF_EXEC_SEQ, PF_PART_OWNER, 200));
    free(cw);
    pf_scene_destroy(sc);
}
END_TEST

/* Every executor, worker count and partitioner ends the fold where seq does (the layers meet from step 60 on). */
START_TEST(test_cloth_same_hash_everywhere)
{
    assert_same_hash_everywhere(cloth_hash, 120);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_edges");
    TCase *tc = tcase_create("rods");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_rod_rests_on_rod);
    tcase_add_test(tc, test_rods_without_lines_pass);
    tcase_add_test(tc, test_rods_scene_equals_code);
    tcase_add_test(tc, test_rods_same_hash_everywhere);
    tcase_add_test(tc, test_rope_drapes_over_rod);
    tcase_add_test(tc, test_vertex_edge_contacts);
    tcase_add_test(tc, test_polyline_self_contact);
    suite_add_tcase(s, tc);
    TCase *cl = tcase_create("cloth");
    tcase_set_timeout(cl, 300);
    tcase_add_test(cl, test_cloth_falls_onto_itself);
    tcase_add_test(cl, test_cloth_without_self_collision_passes_through);
    tcase_add_test(cl, test_cloth_scene_equals_code);
    tcase_add_test(cl, test_cloth_same_hash_everywhere);
    suite_add_tcase(s, cl);
    return s;
}
