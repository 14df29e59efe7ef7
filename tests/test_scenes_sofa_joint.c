/* SOFA's JointSpringForceField scenes (scenes/components_joints.c): a Rigid3d MechanicalObject of several frames
 * without a beam is one rigid body per frame, and JointSpringForceField joins frames of it or of a Rigid3d node
 * mapped onto it by RigidMapping. Against closed forms: a frame hanging from a fixed one at the stretch m g / KS_T;
 * a frame hanging by an off-centre joint with a rotational spring at the equilibrium angle of m g cos(theta) =
 * -KS_R theta (solved here); the frames' masses and inertias of UniformMass vertexMass; rigidIndexPerPoint per
 * frame and as counts per parent frame giving the same run; constant forces and held rotations frame by frame;
 * one state hash for every executor and 1-3 workers;
 * bad springs refused at their line. */
#include "check_main.h"
#include "scene_text.h"

#include "physflow/physics.h"
#include "physflow/scene.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define HEAD                                                                                                        \
    "<Node name=\"root\" gravity=\"0 -9.81 0\" dt=\"0.01\">\n"                                                      \
    " <Node name=\"chain\">\n"                                                                                       \
    "  <EulerImplicitSolver/>\n"                                                                                     \
    "  <CGLinearSolver iterations=\"200\" tolerance=\"1e-14\" threshold=\"1e-30\"/>\n"

static pf_object_id frame_body(pf_scene *s, const char *path, uint32_t k)
{
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, path, &o), PF_OK);
    return (pf_object_id){o.index + k}; /* a node's frames are made in order, one body each */
}

/* Frame 1 (2 kg) hangs from fixed frame 0 by a joint at its centre: it settles m g / KS_T below; UniformMass
 * vertexMass gives each body 2 kg and 2 x the inertia per unit mass. */
START_TEST(test_static_stretch)
{
    const char *xml = HEAD
        "  <MechanicalObject template=\"Rigid3d\" position=\"0 0 0 0 0 0 1  0 0 0 0 0 0 1\"\n"
        "   velocity=\"0 0 0 0 0 0\"/>\n"
        "  <UniformMass vertexMass=\"2 1 [1 0 0,0 2 0,0 0 3]\"/>\n"
        "  <FixedProjectiveConstraint indices=\"0\"/>\n"
        "  <JointSpringForceField spring=\"BEGIN_SPRING 0 1 KS_T 0 3000 KD 20 END_SPRING\"/>\n"
        " </Node>\n</Node>\n";
    pf_scene *s = load_ok(xml);
    pf_world *w = pf_scene_world(s);
    pf_object_id b = frame_body(s, "chain", 1);
    double m, I[9];
    ck_assert_int_eq(pf_world_get_rigid_inertia(w, b, &m, I, NULL), PF_OK);
    ck_assert(m == 2 && I[0] == 2 && I[4] == 4 && I[8] == 6 && I[1] == 0);
    ck_assert_int_eq(pf_world_step(w, 1500), PF_OK);
    double p[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, b, p, NULL, NULL, NULL), PF_OK);
    ck_assert_double_eq_tol(p[1], -2 * 9.81 / 3000, 1e-9);
    ck_assert_double_eq_tol(p[0], 0, 1e-12);
    pf_scene_destroy(s);
}
END_TEST

/* Two frames 2 m apart, joined through a RigidMapping child at (1, 0, 0) of each (anchors +1 and -1 along x),
 * every axis held (KS_T kt, KS_R kr), frame 0 fixed: frame 1 (m) hangs from the joint off its centre. At rest
 * the joint's force is m g up at the anchor r = (-cos t, -sin t, 0) of a body turned by t about z: the stretch is
 * m g / kt and the torques balance, -m g cos t - kr t = 0 (t found here by fixed-point iteration). */
static const char *mapped_xml(const char *index)
{
    static char xml[4096];
    snprintf(xml, sizeof xml, HEAD
             "  <MechanicalObject template=\"Rigid3d\" position=\"0 0 0 0 0 0 1  2 0 0 0 0 0 1\"/>\n"
             "  <UniformMass vertexMass=\"1.5 1 [1 0 0,0 1 0,0 0 1]\"/>\n"
             "  <FixedProjectiveConstraint indices=\"0\"/>\n"
             "  <Node name=\"attaches\">\n"
             "   <MechanicalObject template=\"Rigid3d\" position=\"1 0 0 0 0 0 1  -1 0 0 0 0 0 1\"/>\n"
             "   <RigidMapping %s/>\n"
             "   <JointSpringForceField spring=\"BEGIN_SPRING 0 1 FREE_AXIS 0 0 0 0 0 0 KS_T 0 5000 KS_R 0 400 "
             "KD 5 END_SPRING\"/>\n"
             "  </Node>\n"
             " </Node>\n</Node>\n", index);
    return xml;
}

START_TEST(test_mapped_joint_equilibrium)
{
    const double m = 1.5, g = 9.81, kt = 5000, kr = 400;
    pf_scene *s = load_ok(mapped_xml("rigidIndexPerPoint=\"0 1\""));
    pf_world *w = pf_scene_world(s);
    pf_object_id b = frame_body(s, "chain", 1);
    ck_assert_int_eq(pf_world_step(w, 2500), PF_OK);
    double t = 0;
    for (int k = 0; k < 200; k++) t = -m * g * cos(t) / kr;
    double p[3], q[4];
    ck_assert_int_eq(pf_world_get_rigid_state(w, b, p, q, NULL, NULL), PF_OK);
    ck_assert_double_eq_tol(2 * atan2(q[2], q[3]), t, 1e-7);
    ck_assert_double_eq_tol(p[0], 1 + cos(t), 1e-7);
    ck_assert_double_eq_tol(p[1], -m * g / kt + sin(t), 1e-7);
    ck_assert_double_eq_tol(p[2], 0, 1e-10);
    pf_scene_destroy(s);
}
END_TEST

/* rigidIndexPerPoint as counts per parent frame (SOFA's older `repartition`, the form of its examples) maps as the
 * same index per frame: bit for bit the same run */
static uint64_t chain_hash(const char *index, pf_executor e, int workers)
{
    char xml[4096];
    snprintf(xml, sizeof xml, HEAD
             "  <MechanicalObject template=\"Rigid3\" position=\"0 0 0 0 0 0 1 1 0 0 0 0 0 1 3 0 0 0 0 0 1\"/>\n"
             "  <UniformMass vertexMass=\"1 1 [1 0 0,0 1 0,0 0 1]\"/>\n"
             "  <FixedProjectiveConstraint indices=\"0\"/>\n"
             "  <Node name=\"attaches\">\n"
             "   <MechanicalObject template=\"Rigid3\" position=\"0 0 0 0.707 0 0 0.707 -1 0 0 0.707 0 0 0.707 "
             "1 0 0 0.707 0 0 0.707 -1 0 0 0.707 0 0 0.707\"/>\n"
             "   <RigidMapping template=\"Rigid3,Rigid3\" %s/>\n"
             "   <JointSpringForceField spring=\"BEGIN_SPRING 0 1 FREE_AXIS 0 0 0 0 1 0 KS_T 0 30000 KS_R 0 200000 "
             "KD 1 "
             "R_LIM_X -0.8 0.8 R_LIM_Y -1.57 1.57 R_LIM_Z 0 0 END_SPRING&#x0A; BEGIN_SPRING 2 3 KS_T 0 30000 "
             "KS_R 0 200000 KS_B 50 KD 1 R_LIM_X -0.3 0.3 END_SPRING\"/>\n"
             "  </Node>\n"
             " </Node>\n</Node>\n", index);
    pf_scene_load_def d = silent_load_def();
    d.world.runtime.executor = e;
    d.world.runtime.workers = workers;
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, &s) == PF_OK, "%s", pf_last_error());
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 40), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

START_TEST(test_index_per_frame_or_counts)
{
    uint64_t a = chain_hash("rigidIndexPerPoint=\"0 1 1 2\"", PF_EXEC_SEQ, 1);
    uint64_t b = chain_hash("rigidIndexPerPoint=\"1 2 1\"", PF_EXEC_SEQ, 1);
    ck_assert(a == b);
    ck_assert(a != chain_hash("rigidIndexPerPoint=\"0 1 2 1\"", PF_EXEC_SEQ, 1)); /* another mapping, another run */
}
END_TEST

START_TEST(test_every_executor)
{
    uint64_t ref = chain_hash("rigidIndexPerPoint=\"1 2 1\"", PF_EXEC_SEQ, 1);
    for (int e = 0; e < PF_EXEC_COUNT; e++)
        for (int workers = 1; workers <= 3; workers++) {
            uint64_t h = chain_hash("rigidIndexPerPoint=\"1 2 1\"", (pf_executor)e, workers);
            ck_assert_msg(h == ref, "%s with %d workers: %016llx, seq %016llx", pf_executor_name((pf_executor)e),
                          workers, (unsigned long long)h, (unsigned long long)ref);
        }
}
END_TEST

/* ConstantForceField and FixedRotationProjectiveConstraint frame by frame: with z rotations held, frame 1 (2 kg,
 * inertia 2 diag(1 2 3)) pushed by F along x and a torque about z moves at F t / m and does not turn; frame 0 under
 * a torque T about x turns at T t / I_xx */
START_TEST(test_frames_loads)
{
    const char *xml = "<Node name=\"root\" gravity=\"0 0 0\" dt=\"0.01\">\n <Node name=\"f\">\n"
        "  <EulerImplicitSolver/>\n"
        "  <CGLinearSolver iterations=\"100\" tolerance=\"1e-14\" threshold=\"1e-30\"/>\n"
        "  <MechanicalObject template=\"Rigid3d\" position=\"0 0 0 0 0 0 1  3 0 0 0 0 0 1\"/>\n"
        "  <UniformMass vertexMass=\"2 1 [1 0 0,0 2 0,0 0 3]\"/>\n"
        "  <FixedRotationProjectiveConstraint FixedZRotation=\"1\"/>\n"
        "  <ConstantForceField indices=\"0 1\" forces=\"0 0 0 0.5 0 0  3 0 0 0 0 7\"/>\n"
        " </Node>\n</Node>\n";
    pf_scene *s = load_ok(xml);
    pf_world *w = pf_scene_world(s);
    ck_assert_int_eq(pf_world_step(w, 50), PF_OK);
    double v[3], om[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, frame_body(s, "f", 1), NULL, NULL, v, om), PF_OK);
    ck_assert_double_eq_tol(v[0], 3 * 0.5 / 2, 1e-12);
    ck_assert(om[0] == 0 && om[1] == 0 && om[2] == 0);
    ck_assert_int_eq(pf_world_get_rigid_state(w, frame_body(s, "f", 0), NULL, NULL, v, om), PF_OK);
    ck_assert_double_eq_tol(om[0], 0.5 * 0.5 / 2, 1e-12);
    ck_assert(v[0] == 0 && om[2] == 0);
    pf_scene_destroy(s);
}
END_TEST

/* bad springs and frames: an error at the component's line */
START_TEST(test_refused)
{
    const char *base = HEAD
        "  <MechanicalObject template=\"Rigid3d\" position=\"0 0 0 0 0 0 1  1 0 0 0 0 0 1\"/>\n"
        "  <UniformMass vertexMass=\"1\"/>\n"
        "  <JointSpringForceField spring=\"%s\"/>\n"
        " </Node>\n</Node>\n";
    static const struct {
        const char *spring, *what;
        int code;
    } bad[] = {
        {"BEGIN_SPRING 0 1 KS_X 1 2 END_SPRING", "unknown keyword 'KS_X'", PF_EPARSE},
        {"BEGIN_SPRING 0 2 END_SPRING", "frame 2 is not one of the 2 frames", PF_EINVAL},
        {"BEGIN_SPRING 0 1 R_LIM_Y 1 -1 END_SPRING", "min > max", PF_EINVAL},
        {"BEGIN_SPRING 0 1 KS_T 0 -5 END_SPRING", "must be >= 0", PF_EINVAL},
        {"BEGIN_SPRING 0 1 KD", "KD needs 1 numbers", PF_EPARSE},
        {"BEGIN_SPRING 0 1 KS_T 0 1e3", "no END_SPRING", PF_EPARSE},
        {"BEGIN_SPRING 1 1 END_SPRING", "a joint joins two bodies", PF_ENOTSUP},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char xml[2048];
        snprintf(xml, sizeof xml, base, bad[k].spring);
        expect_error(xml, bad[k].code, "t.xml:7", bad[k].what);
    }
    /* frames with no mass; a joint on points */
    expect_error(HEAD "  <MechanicalObject template=\"Rigid3d\" position=\"0 0 0 0 0 0 1  1 0 0 0 0 0 1\"/>\n"
                 " </Node>\n</Node>\n", PF_EPARSE, "t.xml:5", "needs a UniformMass");
    expect_error(HEAD "  <MechanicalObject position=\"0 0 0 1 0 0\"/>\n  <UniformMass totalMass=\"1\"/>\n"
                 "  <JointSpringForceField spring=\"BEGIN_SPRING 0 1 END_SPRING\"/>\n </Node>\n</Node>\n",
                 PF_ENOTSUP, "t.xml:7", "needs a Rigid3d MechanicalObject of several frames");
    /* a component the frames do not take */
    expect_error(HEAD "  <MechanicalObject template=\"Rigid3d\" position=\"0 0 0 0 0 0 1  1 0 0 0 0 0 1\"/>\n"
                 "  <UniformMass vertexMass=\"1\"/>\n  <PlaneForceField normal=\"0 1 0\"/>\n"
                 " </Node>\n</Node>\n", PF_ENOTSUP, "t.xml:7", "independent bodies (no BeamFEMForceField)");
    /* mechanics mapped onto the frames other than joints: a mass in the frames' Rigid3d child, a force on a Vec3
     * child (its points would follow one frame only) */
    const char *frames = HEAD "  <MechanicalObject template=\"Rigid3d\" position=\"0 0 0 0 0 0 1  1 0 0 0 0 0 1\"/>\n"
                              "  <UniformMass vertexMass=\"1\"/>\n  <Node name=\"c\">\n%s  </Node>\n </Node>\n"
                              "</Node>\n";
    char xml[2048];
    snprintf(xml, sizeof xml, frames,
             "   <MechanicalObject template=\"Rigid3d\" position=\"0 0 0 0 0 0 1  0 0 0 0 0 0 1\"/>\n"
             "   <UniformMass totalMass=\"1\"/>\n   <RigidMapping rigidIndexPerPoint=\"0 1\"/>\n");
    expect_error(xml, PF_ENOTSUP, "t.xml:9", "PhysFlow reads JointSpringForceField there, no other mechanics");
    snprintf(xml, sizeof xml, frames,
             "   <MechanicalObject position=\"1 0 0\"/>\n   <RigidMapping index=\"1\"/>\n"
             "   <ConstantForceField forces=\"1 0 0\" indices=\"0\"/>\n");
    expect_error(xml, PF_ENOTSUP, "t.xml:10", "independent frames carry no mapped mechanics");
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_sofa_joint");
    TCase *t = tcase_create("joint");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_static_stretch);
    tcase_add_test(t, test_mapped_joint_equilibrium);
    tcase_add_test(t, test_index_per_frame_or_counts);
    tcase_add_test(t, test_every_executor);
    tcase_add_test(t, test_frames_loads);
    tcase_add_test(t, test_refused);
    suite_add_tcase(s, t);
    return s;
}
