/* Bodies of a scene: rigid bodies (MechanicalObject template="Rigid3d") and the surfaces collision models ask
 * for — one per node, carried by the node's object or, through RigidMapping / BarycentricMapping, by its parent's
 * (Hermann et al. 2009, §4.2: every object seen by collision through a surface mesh) — and the collision stage. */
#include "scene_internal.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

/* Rotation matrix (row-major) of the unit quaternion q = (w, x, y, z). */
static void quat_matrix(const double q[4], double r[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    r[0] = 1 - 2 * (y * y + z * z), r[1] = 2 * (x * y - w * z), r[2] = 2 * (x * z + w * y);
    r[3] = 2 * (x * y + w * z), r[4] = 1 - 2 * (x * x + z * z), r[5] = 2 * (y * z - w * x);
    r[6] = 2 * (x * z - w * y), r[7] = 2 * (y * z + w * x), r[8] = 1 - 2 * (x * x + y * y);
}

/* The mesh giving a rigid node's shape: its own, else the first RigidMapping child's with triangles. */
static const sc_mesh *rigid_mesh(const sc_node *n)
{
    if (n->topology == SC_TOPO_MESH && n->mesh.ntris) return &n->mesh;
    for (uint32_t k = 0; k < n->children.n; k++)
        if (n->children.v[k]->mapping == SC_MAP_RIGID && n->children.v[k]->mesh.ntris) return &n->children.v[k]->mesh;
    return NULL;
}

int sc_create_rigid(sc_loader *L, sc_node *n)
{
    if (!n->mass_line)
        return sc_error(L, n->mo_line, PF_EPARSE, "Rigid3d MechanicalObject in node '%s' needs a UniformMass "
                        "(totalMass: the body's mass)", n->name);
    pf_rigid_def d = pf_rigid_default_def();
    d.mass = n->def.total_mass > 0 ? n->def.total_mass : n->def.vertex_mass;
    d.solver = n->solver;
    double com[3] = {0, 0, 0}; /* in the frame of the MechanicalObject */
    const sc_mesh *m = NULL;
    if (n->shape_line) {
        d.shape = n->shape;
        memcpy(d.half_extents, n->half_extents, sizeof d.half_extents);
        d.radius = n->radius;
    } else if ((m = rigid_mesh(n))) {
        pf_mass_properties mp;
        int rc = pf_mesh_mass_properties(m->points, m->npoints, m->tris, m->ntris, 1.0, &mp);
        if (rc) {
            char copy[300];
            snprintf(copy, sizeof copy, "%s", pf_last_error());
            return sc_error(L, n->mo_line, rc, "Rigid3d node '%s': its mesh bounds no solid: %s", n->name, copy);
        }
        memcpy(com, mp.com, sizeof com);
        d.shape = PF_RIGID_MESH;
        d.mesh_positions = m->points;
        d.mesh_vertices = m->npoints;
        d.mesh_indices = m->tris;
        d.mesh_triangles = m->ntris;
    } else {
        /* no shape: SOFA's Rigid3Mass defaults (defaulttype/RigidMass.h: mass 1, volume 1, inertiaMatrix the
         * identity; inertiaMassMatrix = inertiaMatrix x mass), the frame its com; the default box then stands for
         * no surface: make_surface refuses a collision model on it */
        for (int i = 0; i < 3; i++) d.inertia[4 * i] = d.mass;
    }
    /* SOFA's frame is the MechanicalObject's; PhysFlow's body sits at the com: com = p + R c, v_com = v + w x Rc */
    double r[9], rc_[3];
    quat_matrix(n->pose + 3, r);
    for (int i = 0; i < 3; i++) rc_[i] = r[3 * i] * com[0] + r[3 * i + 1] * com[1] + r[3 * i + 2] * com[2];
    const double *v = n->twist, *w = n->twist + 3;
    for (int i = 0; i < 3; i++) d.position[i] = n->pose[i] + n->offset[i] + rc_[i];
    d.velocity[0] = v[0] + w[1] * rc_[2] - w[2] * rc_[1];
    d.velocity[1] = v[1] + w[2] * rc_[0] - w[0] * rc_[2];
    d.velocity[2] = v[2] + w[0] * rc_[1] - w[1] * rc_[0];
    memcpy(d.angular_velocity, w, sizeof d.angular_velocity);
    const double *q = n->pose + 3; /* (w, x, y, z) here; the API's order is SOFA's (x, y, z, w) */
    d.orientation[0] = q[1], d.orientation[1] = q[2], d.orientation[2] = q[3], d.orientation[3] = q[0];
    int rc = pf_world_add_rigid(L->scene->world, &d, &n->object);
    if (rc) {
        char copy[300];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return sc_error(L, n->mo_line, rc, "Rigid3d MechanicalObject: %s", copy);
    }
    n->rigid_def = d;
    return PF_OK;
}

/* World positions of a mesh given in rigid node r's frame, at its initial pose. */
static double *rigid_world(const sc_node *r, const sc_mesh *m)
{
    double *x = pf_malloc((size_t)m->npoints * 3 * sizeof *x), rot[9];
    if (!x) return NULL;
    quat_matrix(r->pose + 3, rot);
    for (size_t i = 0; i < m->npoints; i++) {
        const double *p = m->points + 3 * i;
        for (int a = 0; a < 3; a++)
            x[3 * i + a] = r->pose[a] + r->offset[a] + rot[3 * a] * p[0] + rot[3 * a + 1] * p[1] + rot[3 * a + 2] * p[2];
    }
    return x;
}

/* A mesh moved by a replicated copy's offset. */
static double *offset_mesh(const sc_node *n, const sc_mesh *m)
{
    double *x = pf_malloc((size_t)m->npoints * 3 * sizeof *x);
    if (x)
        for (size_t k = 0; k < (size_t)m->npoints * 3; k++) x[k] = m->points[k] + n->offset[k % 3];
    return x;
}

static int mapping_checks(sc_loader *L, const sc_node *n, const sc_node *on)
{
    if (n->mapping == SC_MAP_RIGID && !on->rigid)
        return sc_error(L, n->mapping_line, PF_EPARSE, "RigidMapping in node '%s': the parent node '%s' is not a "
                        "Rigid3d MechanicalObject", n->name, on->name);
    if (n->mapping == SC_MAP_BARYCENTRIC &&
        (on->rigid || (on->topology != SC_TOPO_GRID && !on->mesh.ntetra && !on->mesh.nhexa)))
        return sc_error(L, n->mapping_line, PF_EPARSE, "BarycentricMapping in node '%s': the parent node '%s' has no "
                        "grid (SparseGridTopology or RegularGridTopology), no tetrahedra and no hexahedra", n->name,
                        on->name);
    if ((n->mapping == SC_MAP_RIGID || n->mapping == SC_MAP_BARYCENTRIC) && !n->mesh.npoints)
        return sc_error(L, n->collide_line, PF_EPARSE, "collision model in mapped node '%s': the node has no mesh "
                        "(MeshObjLoader or MeshTopology)", n->name);
    return PF_OK;
}

/* The lines of node n's mesh (LineCollisionModel): its edges, and its triangles' edges when the surface does not
 * carry the triangles themselves (the surface keeps each edge once). *out: pf_malloc'ed, or NULL when the edges
 * are the mesh's own. */
static int mesh_lines(const sc_mesh *m, int tri, uint32_t **out, const uint32_t **edges, uint32_t *nedges)
{
    *out = NULL;
    *edges = m->edges;
    *nedges = m->nedges;
    if (tri || !m->ntris) return PF_OK;
    size_t n = (size_t)m->nedges + 3 * (size_t)m->ntris;
    uint32_t *e = pf_malloc(2 * n * sizeof *e);
    if (!e) return PF_ENOMEM;
    if (m->nedges) memcpy(e, m->edges, 2 * (size_t)m->nedges * sizeof *e);
    uint32_t *d = e + 2 * (size_t)m->nedges;
    for (size_t t = 0; t < m->ntris; t++)
        for (int k = 0; k < 3; k++, d += 2) d[0] = m->tris[3 * t + k], d[1] = m->tris[3 * t + (k + 1) % 3];
    *out = e;
    *edges = e;
    *nedges = (uint32_t)n;
    return PF_OK;
}

/* One surface of node n: its triangles when `tri`, its vertices as spheres of `radius` when > 0, its lines and
 * self-collision as its models ask (not for spheres). The vertices are the node's mesh carried by a rigid body, a
 * grid or a hexahedral mesh, or a tetrahedral one (RIGID, TRILINEAR, BARYCENTRIC), a rigid shape's surface, a rigid
 * body's centre (spheres without a mesh), a grid's boundary, or the object's own points (IDENTITY). */
static int make_surface(sc_loader *L, sc_node *n, int tri, double radius, pf_surface_id *out)
{
    pf_world *w = L->scene->world;
    sc_node *on = sc_carrier(n);
    pf_object_id o = on->object;
    pf_surface_def sd = pf_surface_default_def();
    sd.radius = radius;
    double *pos = NULL;
    uint32_t *idx = NULL, *lines = NULL;
    int rc = PF_OK;
    const sc_mesh *m = &n->mesh;
    int own_mesh = m->npoints && (n->topology == SC_TOPO_MESH || n->sparse || n->mapping != SC_MAP_NONE);
    if (on->rigid && !own_mesh && radius == 0 && !on->shape_line && !rigid_mesh(on))
        return sc_error(L, n->collide_line, PF_EPARSE, "collision model in node '%s': the Rigid3d body of node '%s' "
                        "has no shape to collide with (a mesh or a RigidShape)", n->name, on->name);
    if (radius == 0) {
        sd.lines = (n->collide & SC_COLLIDE_LINES) != 0;
        sd.self_collision = n->self_collide;
        if (sd.lines && mesh_lines(m, tri, &lines, &sd.edges, &sd.nedges))
            return sc_error(L, n->collide_line, PF_ENOMEM, "out of memory");
    }
    uint32_t npts = 0;
    pf_world_positions(w, o, &npts);
    if (on->rigid && !own_mesh && radius == 0) {
        rc = pf_world_add_rigid_shape_surface(w, o, &on->rigid_def, out);
    } else if (on->rigid && !own_mesh) { /* one sphere at the body's frame origin */
        static const double origin[3] = {0, 0, 0};
        sc_mesh one = {.points = (double *)origin, .npoints = 1};
        if (!(pos = rigid_world(on, &one))) return sc_error(L, n->collide_line, PF_ENOMEM, "out of memory");
        sd.mapping = PF_SURFACE_RIGID;
        sd.vertices = 1;
        sd.positions = pos;
        rc = pf_world_add_surface(w, o, &sd, out);
    } else if (on->rigid || n->mapping == SC_MAP_BARYCENTRIC || n->sparse) {
        pos = on->rigid ? rigid_world(on, m) : offset_mesh(n, m);
        if (!pos) return sc_error(L, n->collide_line, PF_ENOMEM, "out of memory");
        sd.mapping = on->rigid ? PF_SURFACE_RIGID : PF_SURFACE_TRILINEAR;
        if (!on->rigid && on->topology != SC_TOPO_GRID && on->mesh.ntetra) { /* onto the parent's tetrahedra */
            sd.mapping = PF_SURFACE_BARYCENTRIC;
            sd.tetrahedra = on->mesh.tetra;
            sd.ntetrahedra = on->mesh.ntetra;
        } else if (!on->rigid && on->topology != SC_TOPO_GRID) {
            /* onto its hexahedra (a mesh file's, or a grid its MechanicalObject turned), trilinear within each as
             * SOFA's BarycentricMapperHexahedronSetTopology */
            sd.hexahedra = on->mesh.hexa;
            sd.nhexahedra = on->mesh.nhexa;
        }
        sd.vertices = m->npoints;
        sd.positions = pos;
        sd.indices = tri ? m->tris : NULL;
        sd.triangles = tri ? m->ntris : 0;
        rc = pf_world_add_surface(w, o, &sd, out);
    } else if (n->topology == SC_TOPO_GRID && tri) {
        rc = pf_world_add_grid_surface(w, o, out);
    } else if (n->mapping == SC_MAP_SUBSET) { /* the input's points the subset names, the node's triangles on them */
        sd.vertices = n->nsubset;
        sd.points = n->subset;
        sd.indices = tri ? m->tris : NULL;
        sd.triangles = tri ? m->ntris : 0;
        rc = pf_world_add_surface(w, o, &sd, out);
    } else { /* the object's own points (an IdentityMapping's input's): a mesh's (with its triangles), a grid's or a
              * point set's */
        if (!(idx = pf_malloc((size_t)npts * sizeof *idx)))
            return sc_error(L, n->collide_line, PF_ENOMEM, "out of memory");
        for (uint32_t k = 0; k < npts; k++) idx[k] = k;
        sd.vertices = npts;
        sd.points = idx;
        sd.indices = tri ? m->tris : NULL;
        sd.triangles = tri ? m->ntris : 0;
        rc = pf_world_add_surface(w, o, &sd, out);
    }
    /* a grid's boundary and a rigid shape's surface are made without a definition: their lines come after */
    if (!rc && (sd.lines || sd.self_collision) && ((on->rigid && !own_mesh) || (n->topology == SC_TOPO_GRID && tri)))
        rc = pf_world_set_surface_collision(w, *out, &sd);
    pf_free(pos);
    pf_free(idx);
    pf_free(lines);
    if (rc) {
        char copy[300];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return sc_error(L, n->collide_line, rc, "collision model of node '%s': %s", n->name, copy);
    }
    L->scene->summary.surfaces++;
    return PF_OK;
}

/* The surfaces of node n's collision models: spheres (SphereCollisionModel) on their own surface; triangles
 * (with their vertices) or points on another, unless the spheres already are those points. */
static int attach_one(sc_loader *L, sc_node *n)
{
    sc_node *on = sc_carrier(n);
    int rc = mapping_checks(L, n, on);
    if (rc) return rc;
    if ((n->collide & SC_COLLIDE_SPHERES) &&
        (rc = make_surface(L, n, 0, n->sphere_radius, &n->sphere_surface)))
        return rc;
    int tri = (n->collide & SC_COLLIDE_TRIANGLES) != 0;
    int own_mesh = n->mesh.npoints && (n->topology == SC_TOPO_MESH || n->sparse || n->mapping != SC_MAP_NONE);
    if ((n->collide & SC_COLLIDE_LINES) && !tri && !own_mesh)
        return sc_error(L, n->collide_line, PF_EPARSE, "LineCollisionModel in node '%s': the edges of a grid's "
                        "boundary or of a rigid shape come with its triangles: add a TriangleCollisionModel", n->name);
    if (tri || !(n->collide & SC_COLLIDE_SPHERES)) {
        if ((rc = make_surface(L, n, tri, 0, &n->surface))) return rc;
    } else {
        n->surface = n->sphere_surface;
    }
    pf_world *w = L->scene->world;
    /* SOFA's penalty stiffness from the models' contactStiffness (default 10), unless the response gives one */
    double k = n->has_contact_stiffness ? n->contact_stiffness : 10;
    if (!L->response_stiffness && (n->collide & SC_COLLIDE_SPHERES) &&
        (rc = pf_world_set_surface_contact_stiffness(w, n->sphere_surface, k)))
        return rc;
    if (!L->response_stiffness && (rc = pf_world_set_surface_contact_stiffness(w, n->surface, k))) return rc;
    if (!n->has_friction) return PF_OK;
    if ((n->collide & SC_COLLIDE_SPHERES) && (rc = pf_world_set_surface_friction(w, n->sphere_surface, n->friction)))
        return rc;
    return pf_world_set_surface_friction(w, n->surface, n->friction);
}

int sc_attach_surfaces(sc_loader *L)
{
    pf_scene *s = L->scene;
    for (uint32_t k = 0; k < L->collide_nodes.n; k++) {
        const sc_node *n = L->collide_nodes.v[k];
        if (sc_carrier((sc_node *)n)->beam_frames && !sc_carrier((sc_node *)n)->beam_line)
            return sc_error(L, n->collide_line, PF_ENOTSUP, "collision model in node '%s': independent Rigid3d frames "
                            "(a body each, scenes/components_joints.c) do not collide in PhysFlow", n->name);
        if (sc_carrier((sc_node *)n)->beam_frames) /* scenes/components_beam.c: nodes mapped onto one are skipped */
            return sc_error(L, n->collide_line, PF_ENOTSUP, "collision model in node '%s': a beam (Rigid3d frames with "
                            "BeamFEMForceField) does not collide in PhysFlow", n->name);
        int rc = attach_one(L, L->collide_nodes.v[k]);
        if (rc) return rc;
    }
    for (uint32_t k = 0; k < s->models.n; k++) {
        const sc_node *n = L->collide_nodes.v[s->model_node.v[k]];
        s->models.v[k].surface = s->models.v[k].kind == PF_COLLIDE_SPHERE ? n->sphere_surface : n->surface;
    }
    if (!s->collision.enabled) return PF_OK;
    pf_collision_def cd = pf_collision_default_def();
    cd.broadphase = L->def->override_broadphase ? L->def->broadphase : s->collision.broadphase;
    cd.alarm_distance = s->collision.alarm_distance;
    cd.contact_distance = s->collision.contact_distance;
    cd.stiffness = s->collision.stiffness;
    cd.damping = s->collision.damping;
    cd.friction = s->collision.friction;
    int rc = pf_world_set_collision(s->world, &cd);
    if (rc) {
        char copy[300];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return sc_error(L, L->collision_lines[0], rc, "collision pipeline: %s", copy);
    }
    return PF_OK;
}
