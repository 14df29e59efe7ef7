/* One Rigid3d frame with no shape (SOFA's RigidMapping-basic.scn): its UniformMass gives SOFA's Rigid3Mass, the
 * inertia the identity matrix per unit mass times the mass, the frame its com. Against closed forms: a torque T
 * about any axis turns it at T t / m and gravity drops it as a point mass; a collision model on it is refused at
 * its line (no shape). RigidRigidMapping, SOFA's older name of its Rigid->Rigid RigidMapping, gives bit for bit
 * RigidMapping's run and its errors. */
#include "check_main.h"
#include "scene_text.h"

#include "physflow/physics.h"
#include "physflow/scene.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* a frame of mass `mass` ("" for UniformMass's default) turned by q, torque t along the unit axis n, g along -y */
static pf_scene *frame_scene(const char *mass, double t, const double n[3])
{
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<Node name=\"root\" gravity=\"0 -9.81 0\" dt=\"0.01\">\n <Node name=\"f\">\n"
             "  <EulerImplicitSolver/>\n"
             "  <CGLinearSolver iterations=\"100\" tolerance=\"1e-14\" threshold=\"1e-30\"/>\n"
             "  <MechanicalObject template=\"Rigid3\" position=\"1 2 3 0.3 -0.1 0.5 0.8\"/>\n"
             "  <UniformMass template=\"Rigid3\" %s/>\n"
             "  <ConstantForceField forces=\"0 0 0 %.17g %.17g %.17g\" indices=\"0\"/>\n"
             " </Node>\n</Node>\n",
             mass, t * n[0], t * n[1], t * n[2]);
    return load_ok(xml);
}

static pf_object_id body(pf_scene *s)
{
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "f", &o), PF_OK);
    return o;
}

/* the inertia is m I (SOFA's Rigid3Mass: inertiaMatrix identity, inertiaMassMatrix = inertiaMatrix x mass) */
START_TEST(test_default_inertia)
{
    static const double axis[3] = {1, 0, 0};
    const char *mass[2] = {"totalMass=\"2.5\"", ""};
    const double m[2] = {2.5, 1}; /* no mass given: SOFA's Rigid3 default, 1 kg */
    for (int k = 0; k < 2; k++) {
        pf_scene *s = frame_scene(mass[k], 0, axis);
        double mm, I[9], Iw[9];
        ck_assert_int_eq(pf_world_get_rigid_inertia(pf_scene_world(s), body(s), &mm, I, Iw), PF_OK);
        ck_assert(mm == m[k]);
        for (int i = 0; i < 9; i++) {
            ck_assert_double_eq_tol(I[i], i % 4 == 0 ? m[k] : 0, 1e-15);
            ck_assert_double_eq_tol(Iw[i], i % 4 == 0 ? m[k] : 0, 1e-13); /* isotropic: the same turned */
        }
        pf_scene_destroy(s);
    }
}
END_TEST

/* a torque T about any axis: I = m 1 is isotropic (no gyroscopic term), so omega = T t / m along it; gravity drops
 * the frame (its com) as a point mass, the backward Euler velocity v_n = -g n h, position -g h^2 n (n + 1) / 2 */
START_TEST(test_torque_and_gravity)
{
    const double m = 2.5, T = 0.7, h = 0.01, g = 9.81;
    const int steps = 40;
    const double r = sqrt(1.0 + 4 + 4);
    const double n[3] = {1 / r, -2 / r, 2 / r};
    pf_scene *s = frame_scene("totalMass=\"2.5\"", T, n);
    pf_world *w = pf_scene_world(s);
    ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
    double p[3], v[3], om[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, body(s), p, NULL, v, om), PF_OK);
    for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(om[i], T * steps * h / m * n[i], 1e-12);
    ck_assert_double_eq_tol(v[1], -g * steps * h, 1e-12);
    ck_assert_double_eq_tol(p[1], 2 - g * h * h * steps * (steps + 1) / 2, 1e-12);
    ck_assert(v[0] == 0 && v[2] == 0 && p[0] == 1 && p[2] == 3);
    pf_scene_destroy(s);
}
END_TEST

/* a collision model needs a surface: a shapeless frame has none (triangle and line models already ask for
 * triangles or edges in the node; a point model on the body is refused when its surface is made) */
START_TEST(test_shapeless_collision_refused)
{
    expect_error("<Node name=\"root\">\n <Node name=\"f\">\n  <EulerImplicitSolver/> <CGLinearSolver/>\n"
                 "  <MechanicalObject template=\"Rigid3\"/>\n  <UniformMass totalMass=\"1\"/>\n"
                 "  <PointCollisionModel/>\n </Node>\n</Node>\n",
                 PF_EPARSE, "t.xml:6", "the Rigid3d body of node 'f' has no shape to collide with");
    /* a mapped child's points without triangles give no shape either */
    expect_error("<Node name=\"root\">\n <Node name=\"f\">\n  <EulerImplicitSolver/> <CGLinearSolver/>\n"
                 "  <MechanicalObject template=\"Rigid3\"/>\n  <UniformMass totalMass=\"1\"/>\n"
                 "  <Node name=\"c\">\n   <MechanicalObject position=\"1 0 0\"/>\n   <RigidMapping/>\n  </Node>\n"
                 "  <PointCollisionModel/>\n </Node>\n</Node>\n",
                 PF_EPARSE, "t.xml:10", "has no shape to collide with");
    expect_error("<Node name=\"root\">\n <Node name=\"f\">\n  <EulerImplicitSolver/> <CGLinearSolver/>\n"
                 "  <MechanicalObject template=\"Rigid3\"/>\n  <UniformMass totalMass=\"1\"/>\n"
                 "  <TriangleCollisionModel/>\n </Node>\n</Node>\n",
                 PF_EPARSE, "t.xml:6", "TriangleCollisionModel needs triangles");
}
END_TEST

/* two frames joined through a Rigid3d child mapped by `mapping` (tests/test_scenes_sofa_joint.c's chain) */
static uint64_t chain_hash(const char *mapping)
{
    char xml[4096];
    snprintf(xml, sizeof xml,
             "<Node name=\"root\" gravity=\"0 -9.81 0\" dt=\"0.01\">\n <Node name=\"chain\">\n"
             "  <EulerImplicitSolver/>\n"
             "  <CGLinearSolver iterations=\"200\" tolerance=\"1e-14\" threshold=\"1e-30\"/>\n"
             "  <MechanicalObject template=\"Rigid3\" position=\"0 0 0 0 0 0 1  2 0 0 0 0 0 1\"/>\n"
             "  <UniformMass vertexMass=\"1.5 1 [1 0 0,0 1 0,0 0 1]\"/>\n"
             "  <FixedProjectiveConstraint indices=\"0\"/>\n"
             "  <Node name=\"attaches\">\n"
             "   <MechanicalObject template=\"Rigid3\" position=\"1 0 0 0 0 0 1  -1 0 0 0 0 0 1\"/>\n"
             "   <%s template=\"Rigid3,Rigid3\" rigidIndexPerPoint=\"0 1\"/>\n"
             "   <JointSpringForceField spring=\"BEGIN_SPRING 0 1 FREE_AXIS 0 0 0 0 0 0 KS_T 0 5000 KS_R 0 400 "
             "KD 5 END_SPRING\"/>\n"
             "  </Node>\n"
             " </Node>\n</Node>\n",
             mapping);
    pf_scene *s = load_ok(xml);
    pf_world *w = pf_scene_world(s);
    ck_assert_int_eq(pf_world_step(w, 60), PF_OK);
    double p[3];
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "chain", &o), PF_OK);
    ck_assert_int_eq(pf_world_get_rigid_state(w, (pf_object_id){o.index + 1}, p, NULL, NULL, NULL), PF_OK);
    ck_assert(p[1] < -1e-3); /* the joint is there: frame 1 hangs, it does not fall free (-1.8 m by now) */
    ck_assert(p[1] > -0.5);
    uint64_t hash = pf_world_state_hash(w);
    pf_scene_destroy(s);
    return hash;
}

START_TEST(test_rigid_rigid_mapping_alias)
{
    ck_assert(chain_hash("RigidRigidMapping") == chain_hash("RigidMapping"));
    /* its errors name it, at its line */
    expect_error("<Node name=\"root\">\n <Node name=\"f\">\n  <MechanicalObject template=\"Rigid3\"/>\n"
                 "  <UniformMass totalMass=\"1\"/>\n  <Node name=\"c\">\n   <MechanicalObject template=\"Rigid3\"/>\n"
                 "   <RigidMapping/>\n   <RigidRigidMapping/>\n  </Node>\n </Node>\n</Node>\n",
                 PF_EPARSE, "t.xml:8", "RigidRigidMapping: node 'c' already has a mapping (line 7)");
    expect_error("<Node name=\"root\">\n <RigidRigidMapping/>\n</Node>\n", PF_EPARSE, "t.xml:2",
                 "RigidRigidMapping: the root node has no parent");
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_sofa_rigid_frame");
    TCase *t = tcase_create("rigid_frame");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_default_inertia);
    tcase_add_test(t, test_torque_and_gravity);
    tcase_add_test(t, test_shapeless_collision_refused);
    tcase_add_test(t, test_rigid_rigid_mapping_alias);
    suite_add_tcase(s, t);
    return s;
}
