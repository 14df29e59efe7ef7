/* Beams in SOFA scenes: a MechanicalObject template="Rigid3d" of several frames (a beam's nodes) with an edge
 * topology (MeshTopology `lines`, EdgeSetTopologyContainer `edges`) and BeamFEMForceField becomes one beam
 * object (pf_world_add_beam); UniformMass gives the frames SOFA's Rigid3 masses, FixedProjectiveConstraint holds
 * frames, ConstantForceField pushes them with SOFA's Rigid3 forces (force, then torque: 6 numbers per index). */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

int sc_beam_frames(pf_scene_component *c, sc_node *n, double *frames, size_t nframes)
{
    int rc;
    double *twist = NULL;
    size_t m = 0;
    if (nframes > (1u << 24)) {
        pf_free(frames);
        return pf_scene_component_error(c, PF_EINVAL, "MechanicalObject: %zu Rigid3d frames: at most 2^24", nframes);
    }
    if ((rc = sc_parse_reals(c, "velocity", &twist, &m)) < 0) {
        pf_free(frames);
        return rc;
    }
    if (rc == 1 && (m % 6 || m == 0 || m > 6 * nframes)) {
        pf_free(frames);
        pf_free(twist);
        return pf_scene_component_error(c, PF_EINVAL, "MechanicalObject: 'velocity' gives %zu numbers for %zu Rigid3d "
                                        "frames: 6 per frame (vx vy vz wx wy wz) are needed", m, nframes);
    }
    if (rc == 1 && m < 6 * nframes) { /* fewer: SOFA's MechanicalObject::init copies the last one to the rest */
        double *all = pf_realloc(twist, m * sizeof *twist, 6 * nframes * sizeof *twist);
        if (!all) {
            pf_free(frames);
            pf_free(twist);
            return pf_scene_component_error(c, PF_ENOMEM, "MechanicalObject: out of memory");
        }
        for (size_t k = m; k < 6 * nframes; k++) all[k] = all[m - 6 + k % 6];
        twist = all;
    }
    sc_mo_transform t;
    if ((rc = sc_mo_transform_read(c, &t)) < 0) {
        pf_free(frames);
        pf_free(twist);
        return rc;
    }
    for (size_t k = 0; k < nframes; k++) { /* (x y z qx qy qz qw) -> (x y z w x y z), normalised, transformed */
        double *f = frames + 7 * k, q[4] = {f[6], f[3], f[4], f[5]};
        double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (!(qn > 1e-10)) {
            pf_free(frames);
            pf_free(twist);
            return pf_scene_component_error(c, PF_EINVAL, "MechanicalObject: the quaternion of Rigid3d frame %zu is "
                                            "zero", k);
        }
        for (int i = 0; i < 4; i++) f[3 + i] = q[i] / qn;
        sc_mo_transform_frame(&t, f);
    }
    /* the frames' centres are the node's points for its topology (SOFA's containers take the state's points) */
    double *centres = pf_malloc(3 * nframes * sizeof *centres);
    if (!centres) {
        pf_free(frames);
        pf_free(twist);
        return pf_scene_component_error(c, PF_ENOMEM, "MechanicalObject: out of memory");
    }
    for (size_t k = 0; k < nframes; k++) memcpy(centres + 3 * k, frames + 7 * k, 3 * sizeof *centres);
    pf_free(n->positions);
    n->positions = centres;
    n->npositions = (uint32_t)nframes;
    pf_scene_component_ignore(c, "rest_position");
    pf_scene_component_ignore(c, "showObjectScale");
    pf_scene_component_ignore(c, "showObject");
    n->rigid = 1;
    n->beam_frames = (uint32_t)nframes;
    n->beam_pose = frames;
    n->beam_twist = twist;
    n->beam = pf_beam_default_def();
    n->mo_transform = t;
    n->mo_line = pf_scene_component_line(c);
    return PF_OK;
}

/* BeamFEMForceField: SOFA's attributes radius (default 0.1 m), radiusInner (0), youngModulus (5000 Pa),
 * poissonRatio (0.49); one beam element per edge of the node's topology. */
int sc_beam_fem(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    sc_node *n = c->node;
    if (!n->beam_frames)
        return pf_scene_component_error(c, PF_ENOTSUP, "BeamFEMForceField in node '%s' needs a MechanicalObject "
                                        "template=\"Rigid3d\" of several frames (the beam's nodes) before it", n->name);
    if (n->beam_line)
        return pf_scene_component_error(c, PF_EPARSE, "a second BeamFEMForceField in node '%s' (line %d)", n->name,
                                        n->beam_line);
    int rc;
    pf_beam_def *d = &n->beam;
    if ((rc = pf_scene_component_real(c, "radius", 0, 1e300, &d->radius)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "radiusInner", 0, 1e300, &d->radius_inner)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "youngModulus", 0, 1e300, &d->young_modulus)) < 0) return rc;
    if ((rc = pf_scene_component_real(c, "poissonRatio", -1, 0.5, &d->poisson_ratio)) < 0) return rc;
    if (!(d->radius > 0) || !(d->young_modulus > 0) || !(d->radius_inner < d->radius) || !(d->poisson_ratio > -1) ||
        !(d->poisson_ratio < 0.5))
        return pf_scene_component_error(c, PF_EINVAL, "BeamFEMForceField: needs radius > 0 (got %g), 0 <= radiusInner "
                                        "< radius (got %g), youngModulus > 0 (got %g) and -1 < poissonRatio < 0.5 "
                                        "(got %g)", d->radius, d->radius_inner, d->young_modulus, d->poisson_ratio);
    if (pf_scene_component_string(c, "listSegment"))
        return pf_scene_component_error(c, PF_ENOTSUP, "BeamFEMForceField: 'listSegment' (elements on some edges "
                                        "only) is not supported: every edge of the topology is an element");
    static const char *const ignored[] = {"template", "useSymmetricAssembly", "computeGlobalMatrix", "printLog"};
    SC_IGNORE_ATTRS(c, ignored);
    n->beam_line = pf_scene_component_line(c);
    return PF_OK;
}

/* UniformMass on a beam's frames, SOFA's Rigid3 mass: vertexMass "m" or "m volume I00 .. I22" (the inertia matrix per
 * unit mass: the frame's inertia is m I), or totalMass over the frames; SOFA's default inertia matrix is the
 * identity */
int sc_beam_uniform_mass(pf_scene_component *c)
{
    sc_node *n = c->node;
    double *vm = NULL, total = 0;
    size_t m = 0;
    int rt, rv;
    if ((rt = pf_scene_component_real(c, "totalMass", 0, 1e300, &total)) < 0) return rt;
    if ((rv = sc_parse_reals(c, "vertexMass", &vm, &m)) < 0) return rv;
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "showAxisSizeFactor");
    pf_scene_component_ignore(c, "printLog");
    double mass = rt ? total / n->beam_frames : 1, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    int rc = PF_OK;
    if (rt && rv)
        rc = pf_scene_component_error(c, PF_EPARSE, "UniformMass: give totalMass or vertexMass, not both");
    else if (rv && m != 1 && m != 11)
        rc = pf_scene_component_error(c, PF_EINVAL, "UniformMass on Rigid3d frames: vertexMass takes 1 number (the "
                                      "mass) or 11 (mass, volume, the 9 of the inertia matrix per unit mass), got %zu",
                                      m);
    else if (rv) {
        mass = vm[0];
        if (m == 11) memcpy(I, vm + 2, sizeof I);
    } else if (!rt)
        pf_scene_component_warning(c, "UniformMass: neither totalMass nor vertexMass: 1 kg per frame (SOFA's Rigid3 "
                                   "default)");
    pf_free(vm);
    if (rc) return rc;
    if (!(mass > 0) || !isfinite(mass))
        return pf_scene_component_error(c, PF_EINVAL, "UniformMass: the mass of a frame must be > 0, got %g", mass);
    n->beam.frame_mass = mass;
    for (int i = 0; i < 9; i++) n->beam.inertia[i] = mass * I[i];
    n->mass_line = pf_scene_component_line(c);
    return PF_OK;
}

int sc_create_beam(sc_loader *L, sc_node *n)
{
    if (!n->beam_line)
        return sc_error(L, n->mo_line, PF_ENOTSUP, "Rigid3d MechanicalObject in node '%s' has %u frames: PhysFlow "
                        "simulates several frames as a beam, which needs a BeamFEMForceField in the node", n->name,
                        n->beam_frames);
    if (!n->mass_line)
        return sc_error(L, n->mo_line, PF_EPARSE, "Rigid3d MechanicalObject in node '%s' needs a UniformMass (the "
                        "frames' mass)", n->name);
    if (n->topology != SC_TOPO_MESH || !n->mesh.nedges)
        return sc_error(L, n->beam_line, PF_EPARSE, "BeamFEMForceField in node '%s': the node has no edges (give "
                        "MeshTopology lines=\"0 1 1 2 ...\" or EdgeSetTopologyContainer edges=\"...\")", n->name);
    uint32_t N = n->beam_frames;
    double *pos = pf_malloc(3 * (size_t)N * sizeof *pos), *ori = pf_malloc(4 * (size_t)N * sizeof *ori);
    double *vel = n->beam_twist ? pf_malloc(3 * (size_t)N * sizeof *vel) : NULL;
    double *ang = n->beam_twist ? pf_malloc(3 * (size_t)N * sizeof *ang) : NULL;
    int rc = PF_OK;
    if (!pos || !ori || (n->beam_twist && (!vel || !ang))) rc = sc_error(L, n->mo_line, PF_ENOMEM, "out of memory");
    for (uint32_t k = 0; !rc && k < N; k++) {
        const double *f = n->beam_pose + 7 * (size_t)k;
        for (int i = 0; i < 3; i++) pos[3 * k + i] = f[i] + n->offset[i];
        ori[4 * k] = f[4], ori[4 * k + 1] = f[5], ori[4 * k + 2] = f[6], ori[4 * k + 3] = f[3]; /* (x, y, z, w) */
        if (vel) memcpy(vel + 3 * k, n->beam_twist + 6 * (size_t)k, 3 * sizeof *vel);
        if (ang) memcpy(ang + 3 * k, n->beam_twist + 6 * (size_t)k + 3, 3 * sizeof *ang);
    }
    pf_beam_def d = n->beam;
    d.frames = N;
    d.positions = pos;
    d.orientations = ori;
    d.velocities = vel;
    d.angular_velocities = ang;
    d.edges = n->mesh.edges;
    d.nedges = n->mesh.nedges;
    d.solver = n->solver;
    if (!rc && n->solver_line && d.solver.kind != PF_SOLVER_IMPLICIT_EULER && d.solver.kind != PF_SOLVER_STATIC)
        rc = sc_error(L, n->solver_line, PF_ENOTSUP, "the solver of node '%s': a beam (BeamFEMForceField) is "
                      "integrated by EulerImplicitSolver or StaticSolver only", n->name);
    if (!rc && !n->solver_line) d.solver.kind = PF_SOLVER_IMPLICIT_EULER;
    if (!rc && (rc = pf_world_add_beam(L->scene->world, &d, &n->object))) {
        char copy[400];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        rc = sc_error(L, n->beam_line, rc, "BeamFEMForceField: %s", copy);
    }
    if (!rc && !n->solver_line) { /* no solver reaches it: it stays, as SOFA leaves it */
        sc_report(L, PF_SCENE_WARNING, n->mo_line, "no solver in node '%s' or above: the beam stays where it is",
                  n->name);
        for (uint32_t p = 0; !rc && p < 2 * N; p++) rc = pf_world_fix_points(L->scene->world, n->object, &p, 1);
    }
    if (!rc) L->scene->summary.force_fields++;
    pf_free(pos);
    pf_free(ori);
    pf_free(vel);
    pf_free(ang);
    return rc;
}

/* FixedProjectiveConstraint on a beam: frame i (its translation and rotation) is the beam's points 2i and 2i + 1 */
int sc_beam_fixed_frames(pf_scene_component *c, pf_object_id o, int all)
{
    const char *s = pf_scene_component_string(c, "indices");
    if (s && s[0] == '@')
        return pf_scene_component_error(c, PF_ENOTSUP, "%s on a beam's Rigid3d frames: 'indices' links '%s'; give the "
                                        "frame indices", TYPE(c), s);
    uint32_t *own, n;
    const uint32_t *idx;
    int rc = sc_point_indices(c, c->node->beam_frames, all, &idx, &n, &own);
    if (rc) return rc;
    if (n == 0) pf_scene_component_warning(c, "%s fixes no frame", TYPE(c));
    for (uint32_t k = 0; !rc && k < n; k++) {
        /* independent frames (scenes/components_joints.c): frame k is body k, its points 0 and 1 */
        const pf_object_id *bodies = c->node->frame_objects;
        uint32_t pts[2] = {bodies ? 0 : 2 * idx[k], bodies ? 1 : 2 * idx[k] + 1};
        rc = pf_world_fix_points(c->L->scene->world, bodies ? bodies[idx[k]] : o, pts, 2);
    }
    pf_free(own);
    if (rc) return rc;
    c->L->scene->summary.constraints++;
    c->L->scene->summary.fixed_points += n;
    return PF_OK;
}

/* ConstantForceField on a beam's frames: SOFA's Rigid3 forces (fx fy fz tx ty tz, the torque in the world frame):
 * `forces` (one per index), else `force` (on every index), else `totalForce` (spread over them); no `indices`:
 * every frame. Each frame's force goes on its point 2i, its torque on 2i + 1 (pf_world_add_constant_force). */
int sc_beam_constant_force(pf_scene_component *c)
{
    uint32_t N = c->node->beam_frames, *idx = NULL;
    double *forces = NULL, *force = NULL, *total = NULL;
    size_t nf = 0, n1 = 0, nt = 0, m = 0;
    int rc, hf, h1 = 0, ht = 0;
    static const char *const ignored[] = {"template", "showArrowSize", "showColor"};
    SC_IGNORE_ATTRS(c, ignored);
    const char *link = pf_scene_component_string(c, "indices");
    if (link && link[0] == '@')
        return pf_scene_component_error(c, PF_ENOTSUP, "%s on a beam's Rigid3d frames: 'indices' links '%s'; give the "
                                        "frame indices", TYPE(c), link);
    if (pf_scene_component_string(c, "indexFromEnd"))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s on a beam's Rigid3d frames: 'indexFromEnd' is not "
                                        "supported", TYPE(c));
    if ((hf = rc = sc_parse_reals(c, "forces", &forces, &nf)) >= 0 && (h1 = rc = sc_parse_reals(c, "force", &force, &n1)) >= 0 &&
        (ht = rc = sc_parse_reals(c, "totalForce", &total, &nt)) >= 0)
        rc = sc_parse_uints(c, "indices", &idx, &m);
    size_t count = idx ? m : N;
    for (size_t k = 0; rc >= 0 && idx && k < m; k++)
        if (idx[k] >= N)
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: index %u is out of range (the beam has %u frames)", TYPE(c),
                                          idx[k], N);
    if (rc >= 0 && ((hf && nf != 6 * count) || (!hf && h1 && n1 != 6) || (!hf && !h1 && ht && nt != 6)))
        rc = pf_scene_component_error(c, PF_EINVAL, "%s on Rigid3d frames: 6 numbers (force, then torque) per %s "
                                      "are needed", TYPE(c), hf ? "index in 'forces'" : "'force' or 'totalForce'");
    if (rc >= 0 && !hf && !h1 && !ht)
        pf_scene_component_warning(c, "%s: none of 'forces', 'force', 'totalForce' is given: no force (as SOFA)",
                                   TYPE(c));
    pf_object_id o;
    if (rc >= 0 && (hf || h1 || ht)) rc = pf_scene_component_object(c, &o);
    for (size_t k = 0; rc >= 0 && (hf || h1 || ht) && k < count; k++)
        for (uint32_t part = 0; rc >= 0 && part < 2; part++) { /* the force on point 2i, the torque on 2i + 1 */
            uint32_t f = idx ? idx[k] : (uint32_t)k, p = 2 * f + part;
            pf_object_id on = o;
            if (c->node->frame_objects) /* independent frames (components_joints.c): frame f is body f */
                on = c->node->frame_objects[f], p = part;
            pf_constant_force_def d = pf_constant_force_default_def();
            for (int a = 0; a < 3; a++)
                d.force[a] = hf ? forces[6 * k + 3 * part + a] : h1 ? force[3 * part + a] : total[3 * part + a] / count;
            if (d.force[0] == 0 && d.force[1] == 0 && d.force[2] == 0) continue;
            d.points = &p;
            d.npoints = 1;
            if (!(rc = pf_world_add_constant_force(c->L->scene->world, on, &d, NULL)))
                c->L->scene->summary.force_fields++;
        }
    pf_free(forces);
    pf_free(force);
    pf_free(total);
    pf_free(idx);
    return rc < 0 ? rc : PF_OK;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && !strcmp(s + a - b, tail);
}

/* the first element under el (any depth) whose name ends with one of tails, or NULL */
static const xmlNode *find_element(const xmlNode *el, const char *const *tails, size_t ntails)
{
    for (const xmlNode *e = el->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE) continue;
        for (size_t k = 0; k < ntails; k++)
            if (ends_with((const char *)e->name, tails[k])) return e;
        const xmlNode *d = find_element(e, tails, ntails);
        if (d) return d;
    }
    return NULL;
}

/* A node mapped onto independent frames (scenes/components_joints.c) with a Rigid3d MechanicalObject of its own:
 * frames fixed in the parent's, read for its JointSpringForceField; any other mechanics in it is refused. */
static int frames_rigid_child(sc_loader *L, const sc_node *frames, const sc_node *child, const xmlNode *map)
{
    const xmlNode *mo = NULL;
    for (const xmlNode *e = child->el->children; e && !mo; e = e->next)
        if (e->type == XML_ELEMENT_NODE && !strcmp((const char *)e->name, "MechanicalObject")) mo = e;
    xmlChar *t = mo ? xmlGetProp(mo, (const xmlChar *)"template") : NULL;
    int rigid = t && !strncmp((const char *)t, "Rigid", 5);
    xmlFree(t);
    if (!rigid) return 0;
    static const char *const mechanical[] = {"ForceField", "Constraint", "Mass", "Solver"};
    for (const xmlNode *e = child->el->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE || !strcmp((const char *)e->name, "JointSpringForceField")) continue;
        const xmlNode *bad = NULL;
        if (!strcmp((const char *)e->name, "Node")) bad = find_element(e, mechanical, 4);
        else
            for (size_t k = 0; k < 4 && !bad; k++)
                if (ends_with((const char *)e->name, mechanical[k])) bad = e;
        if (bad)
            return sc_error(L, sc_line(bad), PF_ENOTSUP, "%s in node '%s', which %s maps onto the independent frames "
                            "of node '%s': PhysFlow reads JointSpringForceField there, no other mechanics",
                            (const char *)bad->name, child->name, (const char *)map->name, frames->name);
    }
    return 1;
}

int sc_beam_child_skipped(sc_loader *L, const sc_node *beam, const sc_node *child)
{
    const xmlNode *map = NULL;
    for (const xmlNode *e = child->el->children; e && !map; e = e->next) /* the child's own mapping */
        if (e->type == XML_ELEMENT_NODE && ends_with((const char *)e->name, "Mapping")) map = e;
    if (!map) return 0; /* a node of its own under the beam's node: read as any other */
    if (!beam->beam_line) { /* independent frames: Rigid3d children are read (their joints); others as a beam's */
        int rc = frames_rigid_child(L, beam, child, map);
        if (rc) return rc < 0 ? rc : 0;
    }
    const char *onto = beam->beam_line ? "the beam's frames" : "the independent frames";
    const char *kind = beam->beam_line ? "beams" : "independent frames";
    static const char *const mechanical[] = {"ForceField", "Constraint", "Mass", "Solver"};
    const xmlNode *bad = find_element(child->el, mechanical, sizeof mechanical / sizeof *mechanical);
    if (bad)
        return sc_error(L, sc_line(bad), PF_ENOTSUP, "%s in node '%s', which %s maps onto %s of node '%s': PhysFlow's "
                        "%s carry no mapped mechanics (only visual nodes, skipped)", (const char *)bad->name,
                        child->name, (const char *)map->name, onto, beam->name, kind);
    static const char *const models[] = {"CollisionModel", "PointModel", "LineModel", "TriangleModel", "SphereModel"};
    const xmlNode *col = find_element(child->el, models, sizeof models / sizeof *models);
    if (col)
        sc_report(L, PF_SCENE_WARNING, sc_line(col), "%s in node '%s' (%s onto %s of node '%s'): %s do not collide in "
                  "PhysFlow; the node and those below it are skipped", (const char *)col->name, child->name,
                  (const char *)map->name, onto, beam->name, kind);
    else
        sc_report(L, PF_SCENE_NOTE, sc_line(map), "node '%s' (%s onto %s of node '%s') is visual only: skipped",
                  child->name, (const char *)map->name, onto, beam->name);
    return 1;
}
