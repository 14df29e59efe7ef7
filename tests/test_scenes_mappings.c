/* SOFA's linear mappings and element FEM in scenes: an IdentityMapping child's collision surface and force fields
 * act as the parent's own (same state); SubsetMapping by indices, first/last and positions against hand-written
 * subsets; LinearSmallStrainFEMForceField and CorotationalFEMForceField against pf_world_add_tetra_fem and
 * pf_world_add_hexa_fem (same state hash); a topological mapping fills a container that linked a mesh; "@name"
 * found in the nodes above as SOFA finds it; PointSetTopologyContainer; and the refusals' messages. */
#include "check_main.h"
#include "scene_text.h"

#include "physflow/scene.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* State hash after `steps` steps of the scene. */
static uint64_t hash_after(const char *xml, uint32_t steps)
{
    pf_scene *s = load_ok(xml);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), steps), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

/* A tetrahedron above a fixed floor; %s goes into the tetrahedron's node. */
static const char drop[] =
    "<Node dt='0.005'><CollisionPipeline/><BruteForceBroadPhase/><MinProximityIntersection alarmDistance='0.02' "
    "contactDistance='0.01'/><CollisionResponse stiffness='20000'/>\n"
    "<Node name='floor'><EulerImplicitSolver/><MeshTopology position='-5 -5 0 5 -5 0 5 5 0 -5 5 0' "
    "triangles='0 1 2 0 2 3'/><MechanicalObject/><UniformMass totalMass='1'/>"
    "<FixedConstraint indices='0 1 2 3'/><TriangleCollisionModel/></Node>\n"
    "<Node name='tet'><EulerImplicitSolver/><CGLinearSolver iterations='50' tolerance='1e-12'/>"
    "<MeshTopology name='topo' position='0 0 0.05  0.2 0 0.05  0 0.2 0.05  0 0 0.25' tetrahedra='0 1 2 3' "
    "triangles='0 2 1  0 1 3  0 3 2  1 2 3'/><MechanicalObject/><UniformMass totalMass='1'/>"
    "<TetrahedronFEMForceField youngModulus='20000' poissonRatio='0.3'/>\n%s</Node></Node>";

static double lowest_z(pf_scene *s, const char *path)
{
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, path, &o), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(pf_scene_world(s), o, &n);
    double low = x[2];
    for (uint32_t k = 1; k < n; k++) low = fmin(low, x[3 * k + 2]);
    return low;
}

START_TEST(test_identity_mapping_collides_as_parent)
{
    static const char *const variants[] = {
        "<TriangleCollisionModel/>",
        /* the child's state is the parent's points, its topology the parent's (found above) */
        "<Node name='surf'><MechanicalObject/><IdentityMapping/><TriangleCollisionModel/></Node>",
        /* the child's own container on the same point indices */
        "<Node name='surf'><TriangleSetTopologyContainer position='0 0 0.05  0.2 0 0.05  0 0.2 0.05  0 0 0.25' "
        "triangles='0 2 1  0 1 3  0 3 2  1 2 3'/><MechanicalObject/><IdentityMapping input='@..' output='@.'/>"
        "<TriangleCollisionModel/></Node>",
        /* no state of its own, a visual beside */
        "<Node name='surf'><OglModel name='v'/><IdentityMapping input='@../topo' output='@v'/>"
        "<TriangleCollisionModel/></Node>"};
    uint64_t h[4];
    char xml[4096];
    for (int k = 0; k < 4; k++) {
        snprintf(xml, sizeof xml, drop, variants[k]);
        pf_scene *s = load_ok(xml);
        pf_scene_summary sum;
        ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
        ck_assert_uint_eq(sum.objects, 2); /* the mapped node has no object of its own */
        const pf_scene_collision_model *m;
        ck_assert_uint_eq(pf_scene_collision_models(s, &m), 2);
        pf_object_id tet;
        ck_assert_int_eq(pf_scene_find_object(s, "tet", &tet), PF_OK);
        ck_assert_uint_eq(m[1].object.index, tet.index);
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 200), PF_OK); /* 1 s */
        double low = lowest_z(s, "tet");
        ck_assert_msg(low > -0.02 && low < 0.05, "variant %d: lowest point %g, not on the floor", k, low);
        h[k] = pf_world_state_hash(pf_scene_world(s));
        pf_scene_destroy(s);
    }
    for (int k = 1; k < 4; k++) ck_assert_msg(h[k] == h[0], "variant %d differs from the parent's own model", k);
    /* without a model the tetrahedron falls through */
    snprintf(xml, sizeof xml, drop, "<Node name='surf'><MechanicalObject/><IdentityMapping/></Node>");
    pf_scene *s = load_ok(xml);
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 200), PF_OK);
    ck_assert_double_lt(lowest_z(s, "tet"), -1);
    pf_scene_destroy(s);
}
END_TEST

/* A force field in an IdentityMapping child acts on the parent's points: the same state as in the parent. */
START_TEST(test_identity_mapping_force_field)
{
    static const char fmt[] =
        "<Node dt='0.01' gravity='0 0 0'><Node name='p'><EulerImplicitSolver/><CGLinearSolver iterations='50' "
        "tolerance='1e-12'/><MeshTopology position='0 0 0  1 0 0  0 1 0' edges='0 1 1 2 2 0'/><MechanicalObject/>"
        "<UniformMass totalMass='3'/><MeshSpringForceField stiffness='100'/>%s<Node name='c'><MechanicalObject/>"
        "<IdentityMapping/>%s</Node></Node></Node>";
    const char *force = "<ConstantForceField indices='1 2' force='0 0 1'/>";
    char a[2048], b[2048];
    snprintf(a, sizeof a, fmt, force, "");
    snprintf(b, sizeof b, fmt, "", force);
    ck_assert(hash_after(a, 20) == hash_after(b, 20));
    /* and not the state without it */
    snprintf(b, sizeof b, fmt, "", "");
    ck_assert(hash_after(a, 20) != hash_after(b, 20));
}
END_TEST

/* The positions of surface s's vertices equal those of object o's points idx (bitwise). */
static void surface_is_subset(pf_scene *s, pf_surface_id surf, const char *path, const uint32_t *idx, uint32_t n)
{
    pf_world *w = pf_scene_world(s);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, path, &o), PF_OK);
    uint32_t nv, np;
    const double *v = pf_world_surface_positions(w, surf, &nv);
    const double *x = pf_world_positions(w, o, &np);
    ck_assert_uint_eq(nv, n);
    for (uint32_t k = 0; k < n; k++)
        for (int a = 0; a < 3; a++) ck_assert(v[3 * k + a] == x[3 * idx[k] + a]);
}

START_TEST(test_subset_mapping)
{
    static const char fmt[] =
        "<Node dt='0.01'><Node name='p'><EulerImplicitSolver/><MechanicalObject position='0 0 0  1 0 0  2 0 0  "
        "3 0 0  4 0 0'/><UniformMass totalMass='5'/>\n<Node name='c'>%s<SphereCollisionModel radius='0.1'/></Node>"
        "</Node></Node>";
    static const struct {
        const char *child;
        uint32_t idx[4], n;
    } cases[] = {
        {"<MechanicalObject/><SubsetMapping indices='3 1 4'/>", {3, 1, 4}, 3},
        {"<MechanicalObject/><SubsetMapping first='1' last='3'/>", {1, 2, 3}, 3},
        {"<MechanicalObject/><SubsetMapping first='2'/>", {2, 3, 4}, 3}, /* last: the input's last point */
        /* by positions: each point to the nearest within the radius (the default 1e-5 m) */
        {"<MechanicalObject position='4 0 0.000001  0 0 0  2.000003 0 0'/><SubsetMapping/>", {4, 0, 2}, 3},
        {"<MechanicalObject position='1.3 0 0  2.6 0 0'/><SubsetMapping radius='0.5'/>", {1, 3}, 2},
        /* a grid's points, as SOFA's scenes write them */
        {"<RegularGridTopology n='2 1 1' min='3 0 0' max='4.2 0 0'/><MechanicalObject/>"
         "<SubsetMapping radius='0.3'/>", {3, 4}, 2}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char xml[2048];
        snprintf(xml, sizeof xml, fmt, cases[k].child);
        pf_scene *s = load_ok(xml);
        const pf_scene_collision_model *m;
        ck_assert_uint_eq(pf_scene_collision_models(s, &m), 1);
        surface_is_subset(s, m[0].surface, "p", cases[k].idx, cases[k].n);
        ck_assert_int_eq(pf_world_step(pf_scene_world(s), 5), PF_OK); /* the surface follows the points */
        surface_is_subset(s, m[0].surface, "p", cases[k].idx, cases[k].n);
        pf_scene_destroy(s);
    }
    /* triangles of the subset node are on its own points: vertex k is the input's point idx[k] */
    const char *tri = "<Node><Node name='p'><EulerImplicitSolver/><MechanicalObject position='0 0 0  1 0 0  2 0 0  "
                      "2 1 0'/><UniformMass totalMass='1'/><Node name='c'><MechanicalObject position='0 0 0 0 0 0 0 0 0'/>"
                      "<MeshTopology triangles='0 1 2'/><SubsetMapping indices='1 2 3'/><TriangleCollisionModel/></Node></Node></Node>";
    pf_scene *s = load_ok(tri);
    const pf_scene_collision_model *m;
    ck_assert_uint_eq(pf_scene_collision_models(s, &m), 1);
    static const uint32_t idx[3] = {1, 2, 3};
    surface_is_subset(s, m[0].surface, "p", idx, 3);
    uint32_t nt;
    const uint32_t *t = pf_world_surface_triangles(pf_scene_world(s), m[0].surface, &nt);
    ck_assert_uint_eq(nt, 1);
    ck_assert(t[0] == 0 && t[1] == 1 && t[2] == 2);
    pf_scene_destroy(s);
}
END_TEST

START_TEST(test_mapping_refusals)
{
    static const char head[] = "<Node><Node name='p'><EulerImplicitSolver/><MechanicalObject position='0 0 0  1 0 0'/>"
                               "<UniformMass totalMass='1'/>\n";
    char xml[2048];
    snprintf(xml, sizeof xml, "%s<Node name='c'><MechanicalObject/><SubsetMapping indices='0 2'/></Node></Node></Node>",
             head);
    expect_error(xml, PF_EINVAL, "t.xml:2:", "index 2 is out of range (node 'p' has 2 points)");
    snprintf(xml, sizeof xml, "%s<Node name='c'><MechanicalObject position='0.5 0 0'/><SubsetMapping/></Node></Node>"
             "</Node>", head);
    expect_error(xml, PF_EINVAL, "t.xml:2:", "point 0 (0.5 0 0) has no point of node 'p' within radius 1e-05");
    snprintf(xml, sizeof xml, "%s<Node name='c'><MechanicalObject/><SubsetMapping indices='1'/>\n"
             "<ConstantForceField force='1 0 0'/></Node></Node></Node>", head);
    expect_error(xml, PF_ENOTSUP, "t.xml:3:", "SubsetMapping of node 'p''s");
    snprintf(xml, sizeof xml, "%s<Node name='c'><MechanicalObject/><SubsetMapping ignoreNotFound='1'/></Node></Node>"
             "</Node>", head);
    expect_error(xml, PF_ENOTSUP, "t.xml:2:", "ignoreNotFound");
    snprintf(xml, sizeof xml, "%s<Node name='c'><MechanicalObject/><IdentityMapping/><UniformMass totalMass='1'/>"
             "</Node></Node></Node>", head);
    expect_error(xml, PF_ENOTSUP, "t.xml:2:", "a mass in node 'c', whose points are mapped by IdentityMapping");
    snprintf(xml, sizeof xml, "%s</Node><Node name='q'><MechanicalObject/><IdentityMapping input='@../p'/></Node>"
             "</Node>", head);
    expect_error(xml, PF_ENOTSUP, "t.xml:2:", "its input must be a node above node 'q'");
    snprintf(xml, sizeof xml, "%s<Node name='c'><MechanicalObject position='0 0 0'/>"
             "<MeshTopology position='0 0 0' /><IdentityMapping/></Node></Node></Node>", head);
    expect_error(xml, PF_EINVAL, "t.xml:2:", "the node's topology has 1 points, the mapping gives 2");
    expect_error("<Node><Node name='r'><EulerImplicitSolver/><MechanicalObject template='Rigid3d'/>"
                 "<UniformMass totalMass='1'/><RigidShape type='sphere' radius='1'/>\n<Node name='c'>"
                 "<MechanicalObject/><IdentityMapping/></Node></Node></Node>",
                 PF_ENOTSUP, "t.xml:2:", "is a Rigid3d body");
    /* SOFA's processor of topology changes reads its file as every file of a scene is read (its removals:
     * tests/test_scenes_topology_changes.c) */
    expect_error("<Node>\n<TopologicalChangeProcessor filename='cuts.txt'/></Node>", PF_EIO, "t.xml:2:",
                 "cuts.txt");
}
END_TEST

/* A beam over a 3x2x2 grid (i fastest: x 0 0.1 0.2, y 0 0.1, z 0 0.1), fixed at x = 0: its points as a grid
 * (hexahedra: the grid's two cells) or as a MeshTopology of the grid's points with `tets` (tetrahedra). */
static const char beam[] =
    "<Node dt='0.01' gravity='0 0 -9.81'><EulerImplicitSolver/><CGLinearSolver iterations='100' "
    "tolerance='1e-12'/>\n%s<MechanicalObject name='state'/><UniformMass totalMass='1'/>"
    "<FixedConstraint indices='0 3 6 9'/>\n%s</Node>";
static const char grid[] = "<RegularGridTopology name='grid' n='3 2 2' min='0 0 0' max='0.2 0.1 0.1'/>";
static uint32_t tets[2 * 24];
static char mesh[2048];

/* Six tetrahedra around each cell's diagonal c0-c6 (corners bottom c0 c1 c2 c3 counterclockwise, top above). */
static void make_tets(void)
{
    static const int split[6][4] = {{0, 5, 1, 6}, {0, 1, 3, 6}, {1, 3, 6, 2}, {6, 3, 0, 7}, {6, 7, 0, 5}, {7, 5, 4, 0}};
    int len = snprintf(mesh, sizeof mesh, "<MeshTopology name='topo' position='");
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 3; i++) len += snprintf(mesh + len, sizeof mesh - (size_t)len, "%g %g %g  ", 0.1 * i,
                                                        0.1 * j, 0.1 * k);
    len += snprintf(mesh + len, sizeof mesh - (size_t)len, "' tetrahedra='");
    for (uint32_t cell = 0; cell < 2; cell++) {
        const uint32_t p = cell, c[8] = {p, p + 1, p + 4, p + 3, p + 6, p + 7, p + 10, p + 9};
        for (int t = 0; t < 6; t++)
            for (int v = 0; v < 4; v++) {
                uint32_t x = c[split[t][v]];
                tets[24 * cell + 4 * (uint32_t)t + (uint32_t)v] = x;
                len += snprintf(mesh + len, sizeof mesh - (size_t)len, "%u ", x);
            }
    }
    snprintf(mesh + len, sizeof mesh - (size_t)len, "'/>");
}

static uint64_t beam_hash(const char *topology, const char *fem)
{
    char xml[4096];
    snprintf(xml, sizeof xml, beam, topology, fem);
    return hash_after(xml, 20);
}

/* The same beam, its FEM added by the API (tetra: on `tets`; else on the grid's cells). */
static uint64_t beam_api_hash(int tetra, pf_fem_method method)
{
    char xml[4096];
    snprintf(xml, sizeof xml, beam, tetra ? mesh : grid, "");
    pf_scene *s = load_ok(xml);
    pf_world *w = pf_scene_world(s);
    pf_object_id o;
    ck_assert_int_eq(pf_scene_find_object(s, "", &o), PF_OK);
    if (tetra) {
        pf_tetra_fem_def d = pf_tetra_fem_default_def();
        d.young_modulus = 5e4;
        d.poisson_ratio = 0.3;
        d.method = method;
        d.tetrahedra = tets;
        d.ntetrahedra = 12;
        ck_assert_int_eq(pf_world_add_tetra_fem(w, o, &d, NULL), PF_OK);
    } else {
        pf_hexa_fem_def d = pf_hexa_fem_default_def();
        d.young_modulus = 5e4;
        d.poisson_ratio = 0.3;
        d.method = method;
        ck_assert_int_eq(pf_world_add_hexa_fem(w, o, &d, NULL), PF_OK);
    }
    ck_assert_int_eq(pf_world_step(w, 20), PF_OK);
    uint64_t h = pf_world_state_hash(w);
    pf_scene_destroy(s);
    return h;
}

START_TEST(test_element_fem_aliases)
{
    make_tets();
    static const struct {
        const char *fem;
        int tetra;
        pf_fem_method method;
    } cases[] = {
        {"<LinearSmallStrainFEMForceField template='Vec3,Tetrahedron' youngModulus='5e4' poissonRatio='0.3' "
         "topology='@topo' computeForceStrategy='parallel'/>", 1, PF_FEM_LINEAR},
        {"<CorotationalFEMForceField template='Vec3d,Tetrahedron' youngModulus='5e4' poissonRatio='0.3'/>", 1,
         PF_FEM_LARGE},
        {"<CorotationalFEMForceField template='Vec3,Tetrahedron' youngModulus='5e4' poissonRatio='0.3' "
         "rotationMethod='polar'/>", 1, PF_FEM_POLAR},
        {"<CorotationalFEMForceField template='Vec3,Tetrahedron' youngModulus='5e4' poissonRatio='0.3' "
         "rotationMethod='identity'/>", 1, PF_FEM_LINEAR},
        {"<LinearSmallStrainFEMForceField template='Vec3,Hexahedron' youngModulus='5e4' poissonRatio='0.3' "
         "topology='@grid'/>", 0, PF_FEM_LINEAR},
        {"<CorotationalFEMForceField template='Vec3,Hexahedron' youngModulus='5e4' poissonRatio='0.3' "
         "topology='@grid' computeForceStrategy='sequenced' computeForceDerivStrategy='sequenced'/>", 0,
         PF_FEM_LARGE},
        {"<CorotationalFEMForceField template='Vec3,Hexahedron' youngModulus='5e4' poissonRatio='0.3' "
         "rotationMethod='polar'/>", 0, PF_FEM_POLAR}};
    uint64_t seen[sizeof cases / sizeof *cases];
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        seen[k] = beam_hash(cases[k].tetra ? mesh : grid, cases[k].fem);
        ck_assert_msg(seen[k] == beam_api_hash(cases[k].tetra, cases[k].method), "case %zu: the scene differs from "
                      "the API call", k);
    }
    ck_assert(seen[0] != seen[1] && seen[1] != seen[2] && seen[4] != seen[5]); /* the methods do differ */
    /* refusals */
    static const char tri[] = "<LinearSmallStrainFEMForceField template='Vec3,Triangle' youngModulus='1'/>";
    static const char none[] = "<CorotationalFEMForceField youngModulus='1'/>";
    static const char vec2[] = "<CorotationalFEMForceField template='Vec2,Hexahedron' youngModulus='1'/>";
    static const char rot[] = "<CorotationalFEMForceField template='Vec3,Hexahedron' rotationMethod='qr'/>";
    static const char far[] = "<Node name='f'><RegularGridTopology name='g2' n='2 2 2'/><MechanicalObject/>"
                              "<CorotationalFEMForceField template='Vec3,Hexahedron' topology='@grid'/></Node>";
    static const struct {
        const char *fem;
        int code;
        const char *msg;
    } bad[] = {{tri, PF_ENOTSUP, "the element 'Triangle' is not supported"},
               {none, PF_EPARSE, "attribute 'template' is missing"},
               {vec2, PF_ENOTSUP, "PhysFlow's points are Vec3"},
               {rot, PF_ENOTSUP, "rotationMethod 'qr' is not supported"},
               {far, PF_ENOTSUP, "topology '@grid' is not the topology of its node 'f'"}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char xml[2048];
        snprintf(xml, sizeof xml, beam, grid, bad[k].fem);
        expect_error(xml, bad[k].code, "t.xml:3:", bad[k].msg);
    }
}
END_TEST

/* "@grid" from a child node names the grid of the node above (SOFA looks for a path's first name up the tree);
 * after "./" or "../" it is looked for there only. */
START_TEST(test_link_found_above)
{
    static const char fmt[] = "<Node name='fem'><TetrahedronSetTopologyContainer name='tetra'/>"
                              "<Hexa2TetraTopologicalMapping input='%s' output='@tetra'/>"
                              "<TetrahedronFEMForceField youngModulus='5e4' poissonRatio='0.3'/></Node>";
    char fem[1024];
    snprintf(fem, sizeof fem, fmt, "@grid");
    uint64_t above = beam_hash(grid, fem);
    snprintf(fem, sizeof fem, fmt, "@../grid");
    ck_assert(above == beam_hash(grid, fem));
    /* the mapped node's FEM acts on the grid's object: not the state without it */
    ck_assert(above != beam_hash(grid, ""));
    char xml[2048];
    snprintf(fem, sizeof fem, fmt, "@./grid");
    snprintf(xml, sizeof xml, beam, grid, fem);
    expect_error(xml, PF_EINVAL, "t.xml:3:", "dangling link '@./grid'");
    snprintf(fem, sizeof fem, fmt, "@nowhere");
    snprintf(xml, sizeof xml, beam, grid, fem);
    expect_error(xml, PF_EINVAL, "t.xml:3:", "dangling link '@nowhere'");
}
END_TEST

/* A grid, an empty TetrahedronSetTopologyContainer and Hexa2TetraTopologicalMapping input="@grid" in one node (as
 * SOFA's FEM examples write them): the node's object on the grid's points, its FEM on the mapping's tetrahedra,
 * the state the same, bit for bit, as with the container and mapping in a child node; an empty container beside a
 * grid that no mapping fills is an error. */
START_TEST(test_mapping_of_own_grid)
{
    static const char fmt[] = "%s<TetrahedronSetTopologyContainer name='tetra'/><Hexa2TetraTopologicalMapping "
                              "input='@grid' output='@tetra'%s/><TetrahedronFEMForceField youngModulus='5e4' "
                              "poissonRatio='0.3'/>%s";
    for (int swapping = 0; swapping < 2; swapping++) {
        const char *sw = swapping ? " swapping='true'" : "";
        char own[1024], child[1024];
        snprintf(own, sizeof own, fmt, "", sw, "");
        snprintf(child, sizeof child, fmt, "<Node name='fem'>", sw, "</Node>");
        uint64_t h = beam_hash(grid, own);
        ck_assert(h == beam_hash(grid, child));
        ck_assert(h != beam_hash(grid, ""));
    }
    char xml[2048];
    snprintf(xml, sizeof xml, beam, grid, "<TetrahedronSetTopologyContainer name='tetra'/>");
    expect_error(xml, PF_EPARSE, "t.xml:3:", "no topological mapping in node");
}
END_TEST

/* A topological mapping clears the container it fills (SOFA's init): a container that linked the parent's mesh
 * (one triangle) gets the mapping's four boundary triangles. */
START_TEST(test_mapping_fills_linked_container)
{
    static const char fmt[] =
        "<Node><Node name='p'><EulerImplicitSolver/><MeshTopology name='topo' position='0 0 0  1 0 0  0 1 0  0 0 1' "
        "tetrahedra='0 1 2 3' triangles='0 2 1'/><MechanicalObject/><UniformMass totalMass='1'/>\n"
        "<Node name='T'><TriangleSetTopologyContainer name='Container' src='@../topo'/>%s<TriangleCollisionModel/>"
        "</Node></Node></Node>";
    static const struct {
        const char *mapping;
        uint32_t triangles;
    } cases[] = {{"<Tetra2TriangleTopologicalMapping input='@../topo' output='@Container'/>", 4}};
    for (int k = 0; k < 1; k++) {
        char xml[2048];
        snprintf(xml, sizeof xml, fmt, cases[k].mapping);
        pf_scene *s = load_ok(xml);
        const pf_scene_collision_model *m;
        ck_assert_uint_eq(pf_scene_collision_models(s, &m), 1);
        uint32_t nt;
        ck_assert_ptr_nonnull(pf_world_surface_triangles(pf_scene_world(s), m[0].surface, &nt));
        ck_assert_uint_eq(nt, cases[k].triangles);
        pf_scene_destroy(s);
    }
    /* a second mapping into the same node giving other elements, or into a grid, is still an error (one giving
     * the same elements refills the node, as SOFA's: tests/test_scenes_sofa_more.c) */
    expect_error("<Node><Node name='p'><RegularGridTopology name='g' n='2 2 2'/><MechanicalObject/>\n"
                 "<Node name='t'><TetrahedronSetTopologyContainer name='c'/><Hexa2TetraTopologicalMapping "
                 "input='@../g' output='@c'/>\n<Hexa2QuadTopologicalMapping input='@../g' output='@c'/></Node>"
                 "</Node></Node>",
                 PF_EPARSE, "t.xml:3:", "filled by another topological mapping");
}
END_TEST

/* PointSetTopologyContainer: points only; with a loader's mesh taken for want of a container, the node keeps the
 * points and drops the elements. */
START_TEST(test_point_set_container)
{
    const char *given = "<Node><Node name='p'><EulerImplicitSolver/><PointSetTopologyContainer position='0 0 0  1 0 0  "
                        "2 0 0'/><PointSetTopologyModifier/><MechanicalObject/><UniformMass totalMass='1'/>"
                        "<PointCollisionModel/></Node></Node>";
    pf_scene *s = load_ok(given);
    pf_scene_summary sum;
    ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
    ck_assert_uint_eq(sum.points, 3);
    pf_scene_destroy(s);
    const char *after = "<Node><Node name='p'><EulerImplicitSolver/><MeshTopology position='0 0 0  1 0 0  0 1 0' "
                        "triangles='0 1 2'/>\n<PointSetTopologyContainer/><MechanicalObject/>"
                        "<UniformMass totalMass='1'/><TriangleCollisionModel/></Node></Node>";
    s = load_ok(after); /* a MeshTopology is a container: the point set adds nothing to it */
    pf_scene_destroy(s);
    /* a loader's mesh taken for want of a container: the point set keeps its points, drops its triangles */
    char obj[64], xml[1024];
    snprintf(obj, sizeof obj, "/tmp/pf_point_set_%d.obj", (int)getpid());
    FILE *f = fopen(obj, "w");
    ck_assert_ptr_nonnull(f);
    fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", f);
    fclose(f);
    static const char fmt[] = "<Node><Node name='p'><EulerImplicitSolver/><MeshObjLoader name='l' filename='%s'/>%s"
                              "<MechanicalObject/><UniformMass totalMass='1'/>\n%s</Node></Node>";
    snprintf(xml, sizeof xml, fmt, obj, "", "<TriangleCollisionModel/>");
    pf_scene_destroy(load_ok(xml)); /* the loader's triangles */
    snprintf(xml, sizeof xml, fmt, obj, "<PointSetTopologyContainer/>", "<PointCollisionModel/>");
    s = load_ok(xml);
    ck_assert_int_eq(pf_scene_get_summary(s, &sum), PF_OK);
    ck_assert_uint_eq(sum.points, 3);
    pf_scene_destroy(s);
    snprintf(xml, sizeof xml, fmt, obj, "<PointSetTopologyContainer/>", "<TriangleCollisionModel/>");
    expect_error(xml, PF_EPARSE, "t.xml:2:", "needs triangles");
    remove(obj);
    expect_error("<Node><Node name='p'><PointSetTopologyContainer position='0 0 0 1 0 0' edges='0 1'/>\n</Node>"
                 "</Node>",
                 PF_EPARSE, "t.xml:1:", "a point set has no edges");
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("scenes_mappings");
    TCase *tc = tcase_create("mappings");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_identity_mapping_collides_as_parent);
    tcase_add_test(tc, test_identity_mapping_force_field);
    tcase_add_test(tc, test_subset_mapping);
    tcase_add_test(tc, test_mapping_refusals);
    tcase_add_test(tc, test_element_fem_aliases);
    tcase_add_test(tc, test_link_found_above);
    tcase_add_test(tc, test_mapping_of_own_grid);
    tcase_add_test(tc, test_mapping_fills_linked_container);
    tcase_add_test(tc, test_point_set_container);
    suite_add_tcase(s, tc);
    return s;
}
