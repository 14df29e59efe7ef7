/* Scene bodies: Rigid3d nodes equal rigid bodies built in code and place their com and mapped meshes as SOFA's
 * frame says; SparseGridTopology equals pf_world_add_deformable_grid; a collision pipeline gives the same world as
 * pf_world_set_collision with the surfaces built in code; sphere models touch; and the heterogeneous scene falls
 * into one pile: contacts, fewer groups, graph updates exactly on the steps whose contact pairs change, no task
 * moved, nothing through the floor. */
#include "check_main.h"
#include "scene_files.h"

#include "physflow/scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pf_scene_load_def quiet_def(void)
{
    pf_scene_load_def d = quiet_load_def();
    d.report = NULL;
    return d;
}

static void ignore_report(pf_scene_severity sev, const char *msg, void *ctx)
{
    (void)sev, (void)msg, (void)ctx;
}

static pf_scene *load_in(const char *dir, const char *text)
{
    pf_scene_load_def d = quiet_def();
    d.report = ignore_report;
    pf_scene *s = NULL;
    int rc = pf_scene_load_memory(&d, "t.xml", text, strlen(text), dir, &s);
    ck_assert_msg(rc == PF_OK, "%s", pf_last_error());
    return s;
}

static pf_world *code_world(void)
{
    pf_world_def wd = quiet_def().world;
    pf_world *w = NULL;
    ck_assert_int_eq(pf_world_create(&wd, &w), PF_OK);
    return w;
}

/* Writes a mesh as OBJ into dir/name, every vertex moved by t. */
static void write_obj(const char *dir, const char *name, const pf_mesh *m, const double t[3])
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    for (uint32_t i = 0; i < m->vertices; i++)
        fprintf(f, "v %.17g %.17g %.17g\n", m->positions[3 * i] + t[0], m->positions[3 * i + 1] + t[1],
                m->positions[3 * i + 2] + t[2]);
    for (uint32_t k = 0; k < m->triangles; k++)
        fprintf(f, "f %u %u %u\n", m->indices[3 * k] + 1, m->indices[3 * k + 1] + 1, m->indices[3 * k + 2] + 1);
    fclose(f);
}

/* A Rigid3d box equals pf_world_add_rigid with the same pose, twist, mass and shape; a fixed one never moves. */
START_TEST(test_rigid_box_equals_code)
{
    const double c = cos(0.3), s = sin(0.3); /* 0.6 rad about (0, 0, 1): SOFA order qx qy qz qw */
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<Node dt='0.01'><EulerImplicitSolver/>\n"
             "<Node name='b'><MechanicalObject template='Rigid3d' position='0.1 0.2 0.3 0 0 %.17g %.17g' "
             "velocity='1 0 0 0 0 2'/>\n<UniformMass totalMass='2'/><RigidShape type='box' halfExtents='0.1 0.2 "
             "0.3'/><TriangleCollisionModel/></Node>\n"
             "<Node name='f'><MechanicalObject template='Rigid3d' position='0 0 -1 0 0 0 1'/><UniformMass "
             "totalMass='5'/><RigidShape type='sphere' radius='0.5'/><FixedConstraint indices='0'/></Node></Node>",
             s, c);
    pf_scene *sc = load_in(NULL, xml);
    pf_world *w = code_world();
    pf_rigid_def d = pf_rigid_default_def();
    d.position[0] = 0.1, d.position[1] = 0.2, d.position[2] = 0.3;
    d.orientation[2] = s, d.orientation[3] = c; /* the scene's order */
    d.velocity[0] = 1;
    d.angular_velocity[2] = 2;
    d.mass = 2;
    d.half_extents[0] = 0.1, d.half_extents[1] = 0.2, d.half_extents[2] = 0.3;
    pf_object_id o;
    ck_assert_int_eq(pf_world_add_rigid(w, &d, &o), PF_OK);
    ck_assert_int_eq(pf_world_add_rigid_shape_surface(w, o, &d, NULL), PF_OK);
    pf_rigid_def f = pf_rigid_default_def();
    f.position[2] = -1;
    f.mass = 5;
    f.shape = PF_RIGID_SPHERE;
    ck_assert_int_eq(pf_world_add_rigid(w, &f, &o), PF_OK);
    const uint32_t both[2] = {0, 1};
    ck_assert_int_eq(pf_world_fix_points(w, o, both, 2), PF_OK);
    pf_world *ws = pf_scene_world(sc);
    ck_assert_int_eq(pf_world_step(ws, 5), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
    ck_assert_uint_eq(pf_world_state_hash(ws), pf_world_state_hash(w));
    double p[3];
    ck_assert_int_eq(pf_world_get_rigid_state(ws, (pf_object_id){1}, p, NULL, NULL, NULL), PF_OK);
    ck_assert_double_eq(p[2], -1); /* fixed */
    uint32_t nt;
    ck_assert_ptr_nonnull(pf_world_surface_triangles(ws, (pf_surface_id){0}, &nt));
    ck_assert_uint_eq(nt, 12); /* the box's own surface */
    pf_world_destroy(w);
    pf_scene_destroy(sc);
}
END_TEST

/* A mesh in a RigidMapping child is in the frame of the MechanicalObject: the com lands at p + R c and the surface
 * at p + R x (analytic: a box mesh centred at c = (0.1, 0, 0), turned 90 degrees about z). */
START_TEST(test_rigid_mapping_frame)
{
    char dir[] = "/tmp/pf_bodies_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    pf_mesh m;
    const double half[3] = {0.05, 0.02, 0.03}, t[3] = {0.1, 0, 0};
    ck_assert_int_eq(pf_mesh_box(half, &m), PF_OK);
    write_obj(dir, "box.obj", &m, t);
    const double h = sqrt(0.5);
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<Node><EulerImplicitSolver/><Node name='r'>\n"
             "<MechanicalObject template='Rigid3d' position='1 2 3 0 0 %.17g %.17g'/><UniformMass totalMass='1'/>\n"
             "<Node name='c'><MeshObjLoader filename='box.obj'/><MechanicalObject/><TriangleCollisionModel/>"
             "<RigidMapping input='@..' output='@.'/></Node></Node></Node>",
             h, h);
    char d2[600];
    snprintf(d2, sizeof d2, "%s/", dir);
    pf_scene *s = load_in(d2, xml);
    pf_world *w = pf_scene_world(s);
    ck_assert_uint_eq(pf_world_objects(w), 1); /* the mapped node has no object of its own */
    double com[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, (pf_object_id){0}, com, NULL, NULL, NULL), PF_OK);
    ck_assert_double_eq_tol(com[0], 1, 1e-12); /* R (0.1, 0, 0) = (0, 0.1, 0) */
    ck_assert_double_eq_tol(com[1], 2.1, 1e-12);
    ck_assert_double_eq_tol(com[2], 3, 1e-12);
    uint32_t nv;
    const double *x = pf_world_surface_positions(w, (pf_surface_id){0}, &nv);
    ck_assert_uint_eq(nv, m.vertices);
    for (uint32_t i = 0; i < nv; i++) {
        const double *l = m.positions + 3 * i;
        double e[3] = {1 - l[1], 2 + l[0] + 0.1, 3 + l[2]}; /* p + R (l + t), R: (x, y) -> (-y, x) */
        for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(x[3 * i + a], e[a], 1e-12);
    }
    const pf_scene_collision_model *cm;
    ck_assert_uint_eq(pf_scene_collision_models(s, &cm), 1);
    ck_assert_uint_eq(cm[0].object.index, 0);
    pf_scene_destroy(s);
    pf_mesh_free(&m);
    char path[512];
    snprintf(path, sizeof path, "%s/box.obj", dir);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* SparseGridTopology + FEM + a collision model equals pf_world_add_deformable_grid (state and surface, bitwise);
 * the MechanicalObject's translation moves the lattice and its mesh. */
START_TEST(test_sparse_grid_equals_deformable_grid)
{
    char dir[] = "/tmp/pf_bodies_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    pf_mesh m;
    const double zero[3] = {0, 0, 0};
    ck_assert_int_eq(pf_mesh_icosphere(0.1, 2, &m), PF_OK);
    write_obj(dir, "ball.obj", &m, zero);
    char d2[600];
    snprintf(d2, sizeof d2, "%s/", dir);
    const char *fmt = "<Node dt='0.01'><EulerImplicitSolver rayleighMass='0.1'/><CGLinearSolver iterations='30'/>\n"
                      "<Node name='g'><SparseGridTopology n='4 3 5' fileTopology='ball.obj'/>"
                      "<MechanicalObject%s/><UniformMass totalMass='2'/>\n"
                      "<HexahedronFEMForceField youngModulus='10000' poissonRatio='0.3'/>"
                      "<BoxROI name='b' box='-1 -1 -1 1 1 -0.09'/><FixedConstraint indices='@b.indices'/>"
                      "<TriangleCollisionModel/></Node></Node>";
    char xml[1024];
    snprintf(xml, sizeof xml, fmt, "");
    pf_scene *s = load_in(d2, xml);
    /* the same by code: a written and re-read mesh is the same mesh (%.17g round-trips) */
    pf_world *w = code_world();
    pf_deformable_grid_def g = pf_deformable_grid_default_def();
    g.mesh_positions = m.positions;
    g.mesh_vertices = m.vertices;
    g.mesh_indices = m.indices;
    g.mesh_triangles = m.triangles;
    g.n[0] = 4, g.n[1] = 3, g.n[2] = 5;
    g.total_mass = 2;
    g.fem.young_modulus = 10000;
    g.fem.poisson_ratio = 0.3;
    g.solver.rayleigh_mass = 0.1;
    g.solver.cg_iterations = 30;
    pf_object_id o;
    pf_surface_id sid;
    ck_assert_int_eq(pf_world_add_deformable_grid(w, &g, &o, &sid), PF_OK);
    const double box[6] = {-1, -1, -1, 1, 1, -0.09};
    uint32_t fixed = 0;
    ck_assert_int_eq(pf_world_fix_box(w, o, box, &fixed), PF_OK);
    ck_assert_uint_gt(fixed, 0);
    pf_world *ws = pf_scene_world(s);
    ck_assert_int_eq(pf_world_step(ws, 5), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
    ck_assert_uint_eq(pf_world_state_hash(ws), pf_world_state_hash(w));
    uint32_t na, nb;
    const double *xa = pf_world_surface_positions(ws, (pf_surface_id){0}, &na),
                 *xb = pf_world_surface_positions(w, sid, &nb);
    ck_assert_uint_eq(na, nb);
    ck_assert_int_eq(memcmp(xa, xb, (size_t)na * 3 * sizeof *xa), 0);
    pf_scene_destroy(s);
    /* translated: every lattice point and mesh vertex moves by t (no step) */
    snprintf(xml, sizeof xml, fmt, " translation='0.5 -0.25 1'");
    s = load_in(d2, xml);
    pf_world *wt = pf_scene_world(s);
    pf_world *w0 = code_world();
    ck_assert_int_eq(pf_world_add_deformable_grid(w0, &g, &o, &sid), PF_OK);
    const double t[3] = {0.5, -0.25, 1};
    const double *pa = pf_world_positions(wt, (pf_object_id){0}, &na),
                 *pb = pf_world_positions(w0, (pf_object_id){0}, &nb);
    ck_assert_uint_eq(na, nb);
    for (uint32_t i = 0; i < 3 * na; i++) ck_assert_double_eq_tol(pa[i], pb[i] + t[i % 3], 1e-12);
    xa = pf_world_surface_positions(wt, (pf_surface_id){0}, &na);
    for (uint32_t i = 0; i < 3 * na; i++) ck_assert_double_eq_tol(xa[i], m.positions[i] + t[i % 3], 1e-12);
    pf_world_destroy(w0);
    pf_scene_destroy(s);
    pf_world_destroy(w);
    pf_mesh_free(&m);
    char path[512];
    snprintf(path, sizeof path, "%s/ball.obj", dir);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* Two spring cubes, one falling on the other: the pipeline's settings reach the world (the same state as
 * pf_world_set_collision with grid surfaces built in code), the cubes touch and share one solver group. */
START_TEST(test_pipeline_equals_code)
{
    const char *xml =
        "<Node dt='0.005'><DefaultPipeline/><BroadPhase method='sap'/>\n"
        "<MinProximityIntersection alarmDistance='0.02' contactDistance='0.01'/>\n"
        "<DefaultContactManager stiffness='3000' damping='4'/>\n"
        "<EulerImplicitSolver rayleighMass='0.2'/>\n"
        "<Node name='a'><MechanicalObject/><RegularGridTopology n='3 3 3' min='0 0 0' max='0.2 0.2 0.2'/>"
        "<UniformMass totalMass='1'/><RegularGridSpringForceField stiffness='2000' damping='1'/>"
        "<BoxROI name='b' box='-1 -1 -1 1 1 0.001'/><FixedConstraint indices='@b.indices'/>"
        "<TriangleCollisionModel/></Node>\n"
        "<Node name='b'><MechanicalObject/><RegularGridTopology n='3 3 3' min='0.05 0.05 0.215' max='0.25 0.25 0.415'/>"
        "<UniformMass totalMass='1'/><RegularGridSpringForceField stiffness='2000' damping='1'/>"
        "<TriangleCollisionModel/></Node></Node>";
    pf_scene *s = load_in(NULL, xml);
    pf_world_def wd = quiet_def().world;
    wd.dt = 0.005;
    pf_world *w = NULL;
    ck_assert_int_eq(pf_world_create(&wd, &w), PF_OK);
    const double lo[2][3] = {{0, 0, 0}, {0.05, 0.05, 0.215}}, hi[2][3] = {{0.2, 0.2, 0.2}, {0.25, 0.25, 0.415}};
    for (int k = 0; k < 2; k++) {
        pf_object_def od = pf_object_default_def();
        for (int a = 0; a < 3; a++) od.grid[a] = 3, od.grid_min[a] = lo[k][a], od.grid_max[a] = hi[k][a];
        od.total_mass = 1;
        od.solver.rayleigh_mass = 0.2;
        pf_object_id o;
        ck_assert_int_eq(pf_world_add_object(w, &od, &o), PF_OK);
        ck_assert_int_eq(pf_world_add_grid_springs(w, o, 2000, 1, NULL, NULL), PF_OK);
        if (k == 0) {
            const double box[6] = {-1, -1, -1, 1, 1, 0.001};
            ck_assert_int_eq(pf_world_fix_box(w, o, box, NULL), PF_OK);
        }
        ck_assert_int_eq(pf_world_add_grid_surface(w, o, NULL), PF_OK);
    }
    pf_collision_def cd = pf_collision_default_def();
    cd.broadphase = PF_BP_SAP;
    cd.alarm_distance = 0.02;
    cd.contact_distance = 0.01;
    cd.stiffness = 3000;
    cd.damping = 4;
    ck_assert_int_eq(pf_world_set_collision(w, &cd), PF_OK);
    pf_world *ws = pf_scene_world(s);
    ck_assert_int_eq(pf_world_step(ws, 60), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 60), PF_OK);
    ck_assert_uint_eq(pf_world_state_hash(ws), pf_world_state_hash(w));
    pf_collision_stats cs;
    ck_assert_int_eq(pf_world_get_collision_stats(ws, &cs), PF_OK);
    ck_assert_uint_gt(cs.contacts, 0);
    ck_assert_uint_eq(cs.pairs, 1);
    pf_world_stats st;
    ck_assert_int_eq(pf_world_get_stats(ws, &st), PF_OK);
    ck_assert_uint_eq(st.groups, 1);
    pf_world_destroy(w);
    pf_scene_destroy(s);
}
END_TEST

/* SphereCollisionModel: two particles closer than twice the radius touch at once; without the model they do not. */
START_TEST(test_sphere_model_touches)
{
    const char *fmt = "<Node><DefaultPipeline/><MinProximityIntersection alarmDistance='0.01' contactDistance='0'/>"
                      "<DefaultContactManager stiffness='100'/><EulerExplicitSolver/>\n"
                      "<Node name='a'><MechanicalObject position='0 0 0'/><UniformMass vertexMass='1'/>%s</Node>\n"
                      "<Node name='b'><MechanicalObject position='0.15 0 0'/><UniformMass vertexMass='1'/>%s</Node>"
                      "</Node>";
    for (int with = 0; with < 2; with++) {
        const char *model = with ? "<SphereCollisionModel radius='0.1'/>" : "<PointCollisionModel/>";
        char xml[1024];
        snprintf(xml, sizeof xml, fmt, model, model);
        pf_scene *s = load_in(NULL, xml);
        pf_world *w = pf_scene_world(s);
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        pf_collision_stats cs;
        ck_assert_int_eq(pf_world_get_collision_stats(w, &cs), PF_OK);
        ck_assert_uint_eq(cs.contacts, with ? 1 : 0);
        const pf_scene_collision_model *m;
        ck_assert_uint_eq(pf_scene_collision_models(s, &m), 2);
        ck_assert_uint_eq(m[1].surface.index, 1);
        if (with) {
            const double *v = pf_world_velocities(w, (pf_object_id){0}, NULL);
            ck_assert_double_lt(v[0], 0); /* pushed apart along x */
        }
        pf_scene_destroy(s);
    }
}
END_TEST

/* The heterogeneous scene, 2 workers: objects land and touch (contacts, fewer solver groups), the graph is updated
 * exactly on the steps whose contact pairs change, no task ever moves, and no vertex of a moving object sinks into
 * the floor (top at z = 0) deeper than the contact distance. */
START_TEST(test_heterogeneous_falls_into_one_pile)
{
    pf_scene_load_def d = quiet_def();
    d.world.runtime.workers = 2;
    d.world.runtime.executor = PF_EXEC_STATIC;
    pf_scene *s = NULL;
    ck_assert_msg(pf_scene_load_builtin(&d, "heterogeneous", &s) == PF_OK, "%s", pf_last_error());
    pf_world *w = pf_scene_world(s);
    const double contact = pf_scene_collision_settings(s)->contact_distance;
    uint32_t updates = 0, prev = 0, groups0 = 0, changed = 0;
    pf_world_stats st;
    pf_collision_stats cs;
    pf_world_update up;
    for (uint32_t step = 1; step <= 80; step++) {
        ck_assert_msg(pf_world_step(w, 1) == PF_OK, "step %u: %s", step, pf_last_error());
        ck_assert_int_eq(pf_world_get_collision_stats(w, &cs), PF_OK);
        ck_assert_int_eq(pf_world_get_last_update(w, &up, &updates), PF_OK);
        ck_assert_int_eq(pf_world_get_stats(w, &st), PF_OK);
        if (step == 1) groups0 = st.groups;
        int pairs_changed = cs.started + cs.stopped > 0;
        if (step > 1)
            ck_assert_msg((updates != prev) == pairs_changed, "step %u: update %d, pairs started %u stopped %u", step,
                          updates != prev, cs.started, cs.stopped);
        changed += pairs_changed;
        ck_assert_uint_eq(up.tasks_moved, 0);
        prev = updates;
    }
    ck_assert_uint_gt(cs.contacts, 0);
    ck_assert_uint_gt(changed, 0);
    ck_assert_uint_lt(st.groups, groups0);
    ck_assert_uint_eq(pf_world_objects(w), 20);
    for (uint32_t k = 0; k < pf_world_surfaces(w); k++) {
        pf_surface_id sf = {k};
        pf_object_id o;
        ck_assert_int_eq(pf_world_get_surface_info(w, sf, &o, NULL, NULL), PF_OK);
        if (o.index < 5) continue; /* the floor and the walls */
        uint32_t nv;
        const double *x = pf_world_surface_positions(w, sf, &nv);
        for (uint32_t i = 0; i < nv; i++)
            ck_assert_msg(x[3 * i + 2] > -contact, "surface %u vertex %u at z = %g", k, i, x[3 * i + 2]);
    }
    pf_scene_destroy(s);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_bodies");
    TCase *tc = tcase_create("bodies");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_rigid_box_equals_code);
    tcase_add_test(tc, test_rigid_mapping_frame);
    tcase_add_test(tc, test_sparse_grid_equals_deformable_grid);
    tcase_add_test(tc, test_pipeline_equals_code);
    tcase_add_test(tc, test_sphere_model_touches);
    tcase_add_test(tc, test_heterogeneous_falls_into_one_pile);
    suite_add_tcase(s, tc);
    return s;
}
