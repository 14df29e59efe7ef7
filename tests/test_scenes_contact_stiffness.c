/* SOFA's contactStiffness: a collision model's factor in the penalty stiffness of its contacts. SOFA's
 * BarycentricPenalityContact gives a contact between models of contactStiffness k_a and k_b (default 10) the
 * stiffness k = k_a k_b / r, r its rest distance (the intersection's contactDistance plus the spheres' radii).
 * Oracle: a sphere of mass m resting on a fixed floor settles where k times its compression balances its weight,
 * its centre at z = radius + contactDistance - m g / k; the contact the callback reports pushes with k times its
 * depth. A response `stiffness` (PhysFlow's) gives every contact that stiffness instead. */
#include "check_main.h"

#include "physflow/physics.h"
#include "physflow/scene.h"
#include "scene_files.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double G = 10, MASS = 2, DIST = 0.05;

/* A floor (two triangles at z = 0, no solver: it stays) and a ball of `radius` resting on it from z = radius +
 * contactDistance. floor_k, ball_k: the models' contactStiffness attributes ("" for none); response: the
 * CollisionResponse's extra attributes. */
static pf_scene *ball_scene(double radius, const char *floor_k, const char *ball_k, const char *response)
{
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<Node dt='0.01' gravity='0 0 -%g'><CollisionPipeline/><BruteForceBroadPhase/><BVHNarrowPhase/>\n"
             "<MinProximityIntersection alarmDistance='%g' contactDistance='%g'/>\n"
             "<CollisionResponse response='PenalityContactForceField' %s/>\n"
             "<Node name='floor'><MechanicalObject position='-2 -2 0  2 -2 0  2 2 0  -2 2 0'/>"
             "<MeshTopology triangles='0 1 2  0 2 3'/>\n<TriangleCollisionModel %s/></Node>\n"
             "<Node name='ball'><EulerImplicitSolver rayleighMass='3'/><CGLinearSolver iterations='50' tolerance='1e-14' "
             "threshold='1e-20'/>\n<MechanicalObject position='0.3 0.2 %.17g'/><UniformMass vertexMass='%g'/>\n"
             "<SphereCollisionModel radius='%.17g' %s/></Node></Node>",
             G, 2 * DIST, DIST, response, floor_k, radius + DIST, MASS, radius, ball_k);
    pf_scene_load_def d = quiet_load_def();
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s", pf_last_error());
    return s;
}

typedef struct seen {
    uint32_t n;
    double force, depth;
} seen;

static void record(const pf_world_contact *c, uint32_t n, void *ctx)
{
    seen *s = ctx;
    s->n = n;
    if (n) s->force = sqrt(c[0].force[0] * c[0].force[0] + c[0].force[1] * c[0].force[1] +
                           c[0].force[2] * c[0].force[2]),
           s->depth = c[0].depth;
}

/* Settles the ball and checks its height against the stiffness k (N/m) and its contact's force against k depth. */
static void expect_rest(pf_scene *s, double radius, double k)
{
    pf_world *w = pf_scene_world(s);
    pf_object_id ball;
    ck_assert_int_eq(pf_scene_find_object(s, "ball", &ball), PF_OK);
    seen c = {0};
    ck_assert_int_eq(pf_world_set_contact_callback(w, record, &c), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1500), PF_OK);
    const double *x = pf_world_positions(w, ball, NULL);
    double z = radius + DIST - MASS * G / k;
    ck_assert_msg(fabs(x[2] - z) < 1e-9, "k %g: ball at %.12g, SOFA's equilibrium %.12g", k, x[2], z);
    ck_assert_msg(fabs(x[0] - 0.3) < 1e-12 && fabs(x[1] - 0.2) < 1e-12, "ball moved sideways: %g %g", x[0], x[1]);
    ck_assert_uint_eq(c.n, 1);
    ck_assert_msg(c.depth > 0 && fabs(c.force - k * c.depth) < 1e-9 * k * c.depth, "force %.12g, k depth %.12g",
                  c.force, k * c.depth);
}

/* contactStiffness given on both models: k = k_a k_b / (contactDistance + radius) */
START_TEST(test_both_given)
{
    double r = 0.1;
    pf_scene *s = ball_scene(r, "contactStiffness='5'", "contactStiffness='30'", "");
    expect_rest(s, r, 5.0 * 30.0 / (DIST + r));
    pf_scene_destroy(s);
}
END_TEST

/* absent: SOFA's default 10 on each, the same formula; a larger sphere lowers the stiffness through r */
START_TEST(test_default_ten)
{
    static const double radii[] = {0.1, 0.35};
    for (int i = 0; i < 2; i++) {
        pf_scene *s = ball_scene(radii[i], "", "", "");
        expect_rest(s, radii[i], 10.0 * 10.0 / (DIST + radii[i]));
        pf_scene_destroy(s);
    }
}
END_TEST

/* one model given, the other SOFA's default */
START_TEST(test_one_given)
{
    double r = 0.2;
    pf_scene *s = ball_scene(r, "", "contactStiffness='40'", "");
    expect_rest(s, r, 10.0 * 40.0 / (DIST + r));
    pf_scene_destroy(s);
}
END_TEST

/* the response's own stiffness (PhysFlow's attribute) is every contact's, the models' contactStiffness aside */
START_TEST(test_response_stiffness_wins)
{
    double r = 0.1;
    pf_scene *s = ball_scene(r, "contactStiffness='5'", "contactStiffness='30'", "stiffness='2500'");
    expect_rest(s, r, 2500);
    pf_world *w = pf_scene_world(s);
    const pf_scene_collision_model *m;
    ck_assert_uint_eq(pf_scene_collision_models(s, &m), 2);
    double k = 0;
    ck_assert_int_eq(pf_world_get_surface_contact_stiffness(w, m[0].surface, &k), PF_OK);
    ck_assert(k == -1); /* none: the stage's stiffness applies */
    pf_scene_destroy(s);
    s = ball_scene(r, "contactStiffness='5'", "", "");
    w = pf_scene_world(s);
    ck_assert_uint_eq(pf_scene_collision_models(s, &m), 2);
    ck_assert_int_eq(pf_world_get_surface_contact_stiffness(w, m[0].surface, &k), PF_OK);
    ck_assert(k == 5);
    ck_assert_int_eq(pf_world_get_surface_contact_stiffness(w, m[1].surface, &k), PF_OK);
    ck_assert(k == 10);
    pf_scene_destroy(s);
}
END_TEST

/* contactStiffness <= 0, not a number, or two models of one node that disagree: errors naming the line */
START_TEST(test_bad_values)
{
    static const char *const bad[] = {
        "<Node><Node name='a'><MechanicalObject position='0 0 0'/><SphereCollisionModel contactStiffness='0'/>"
        "</Node></Node>",
        "<Node><Node name='a'><MechanicalObject position='0 0 0'/><PointCollisionModel contactStiffness='-3'/>"
        "</Node></Node>",
        "<Node><Node name='a'><MechanicalObject position='0 0 0'/><PointCollisionModel contactStiffness='stiff'/>"
        "</Node></Node>",
        "<Node><Node name='a'><MechanicalObject position='0 0 0  1 0 0  0 1 0'/><MeshTopology triangles='0 1 2'/>"
        "<TriangleCollisionModel contactStiffness='10'/><PointCollisionModel contactStiffness='20'/></Node></Node>"};
    static const int codes[] = {PF_EINVAL, PF_EINVAL, PF_EPARSE, PF_EINVAL};
    for (int i = 0; i < 4; i++) {
        pf_scene_load_def d = quiet_load_def();
        pf_scene *s = NULL;
        int rc = pf_scene_load_memory(&d, "t.xml", bad[i], strlen(bad[i]), NULL, &s);
        ck_assert_msg(rc < 0 && s == NULL, "case %d loaded (%d)", i, rc);
        if (codes[i] != PF_EPARSE) ck_assert_int_eq(rc, codes[i]);
        ck_assert_msg(strstr(pf_last_error(), "t.xml:1:") && strstr(pf_last_error(), "contactStiffness"),
                      "case %d: %s", i, pf_last_error());
    }
}
END_TEST

/* the API: the pair rule on a vertex–triangle contact (no radius: r = the contact distance), a surface without a
 * factor taking the stage's stiffness, and refused arguments */
START_TEST(test_api)
{
    pf_world_def wd = pf_world_default_def();
    wd.gravity[0] = wd.gravity[1] = 0;
    wd.gravity[2] = -G;
    wd.dt = 0.01;
    pf_world *w;
    ck_assert_int_eq(pf_world_create(&wd, &w), PF_OK);
    pf_object_def fd = pf_object_default_def(), bd = pf_object_default_def();
    double floor_x[] = {-2, -2, 0, 2, -2, 0, 2, 2, 0, -2, 2, 0}, ball_x[] = {0.3, 0.2, DIST};
    fd.points = 4;
    fd.positions = floor_x;
    bd.points = 1;
    bd.positions = ball_x;
    bd.vertex_mass = MASS;
    bd.solver.kind = PF_SOLVER_IMPLICIT_EULER;
    bd.solver.rayleigh_mass = 3; /* settles sooner; the rest is the same */
    pf_object_id fo, bo;
    ck_assert_int_eq(pf_world_add_object(w, &fd, &fo), PF_OK);
    ck_assert_int_eq(pf_world_add_object(w, &bd, &bo), PF_OK);
    static const uint32_t all[] = {0, 1, 2, 3}, tri[] = {0, 1, 2, 0, 2, 3}, one[] = {0};
    ck_assert_int_eq(pf_world_fix_points(w, fo, all, 4), PF_OK);
    pf_surface_def sd = pf_surface_default_def();
    sd.vertices = 4;
    sd.points = all;
    sd.indices = tri;
    sd.triangles = 2;
    pf_surface_id fs, bs, bad = {9};
    ck_assert_int_eq(pf_world_add_surface(w, fo, &sd, &fs), PF_OK);
    sd = pf_surface_default_def();
    sd.vertices = 1;
    sd.points = one;
    ck_assert_int_eq(pf_world_add_surface(w, bo, &sd, &bs), PF_OK);
    pf_collision_def cd = pf_collision_default_def();
    cd.alarm_distance = 2 * DIST;
    cd.contact_distance = DIST;
    cd.stiffness = 4000;
    ck_assert_int_eq(pf_world_set_collision(w, &cd), PF_OK);
    double k = 0;
    ck_assert_int_eq(pf_world_get_surface_contact_stiffness(w, fs, &k), PF_OK);
    ck_assert(k == -1);
    static const double refused[] = {0, -2, INFINITY, NAN};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(pf_world_set_surface_contact_stiffness(w, fs, refused[i]), PF_EINVAL);
        ck_assert_msg(strstr(pf_last_error(), "pf_world_set_surface_contact_stiffness"), "%s", pf_last_error());
    }
    ck_assert_int_eq(pf_world_set_surface_contact_stiffness(w, bad, 10), PF_EINVAL);
    ck_assert_int_eq(pf_world_get_surface_contact_stiffness(w, bad, &k), PF_EINVAL);
    /* only the floor has a factor: the stage's 4000 N/m */
    ck_assert_int_eq(pf_world_set_surface_contact_stiffness(w, fs, 6), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1500), PF_OK);
    const double *x = pf_world_positions(w, bo, NULL);
    ck_assert_msg(fabs(x[2] - (DIST - MASS * G / 4000)) < 1e-9, "stage's stiffness: point at %.12g", x[2]);
    /* both: 6 x 25 / 0.05 = 3000 N/m */
    ck_assert_int_eq(pf_world_set_surface_contact_stiffness(w, bs, 25), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1500), PF_OK);
    x = pf_world_positions(w, bo, NULL);
    ck_assert_msg(fabs(x[2] - (DIST - MASS * G / (6.0 * 25 / DIST))) < 1e-9, "SOFA's: point at %.12g", x[2]);
    /* back to none: the stage's again */
    ck_assert_int_eq(pf_world_set_surface_contact_stiffness(w, bs, -1), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1500), PF_OK);
    x = pf_world_positions(w, bo, NULL);
    ck_assert_msg(fabs(x[2] - (DIST - MASS * G / 4000)) < 1e-9, "stage's again: point at %.12g", x[2]);
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_contact_stiffness");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_both_given);
    tcase_add_test(t, test_default_ten);
    tcase_add_test(t, test_one_given);
    tcase_add_test(t, test_response_stiffness_wins);
    tcase_add_test(t, test_bad_values);
    tcase_add_test(t, test_api);
    suite_add_tcase(s, t);
    return s;
}
