/* The scene loader: XML (libxml2, no network, no DTD, no entity expansion) -> node tree with Replicate expanded ->
 * STATE walk (node drafts) -> world and objects -> FORCES walk (force fields, constraints, collision models). */
#include "scene_internal.h"
#include "xml_lenient.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <libxml/parser.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Attributes SOFA puts on every component; accepted and ignored with a warning. */
static const char *const common_ignored[] = {"printLog", "listening", "tags", "bbox", "showObject", "drawMode",
                                             "showColor", "componentState", "src"}; /* src: when not a link */

/* Replicated copies share their elements: notes and warnings are given the first time an element is seen in
 * each pass (bits of the element's _private field, which libxml2 leaves to applications). The bits above
 * FILE_SHIFT say which file the element was written in: 0 the scene, k the (k-1)th included file. */
enum { SEEN_STATE = 1, SEEN_FORCES = 2, SEEN_CREATE = 4, FILE_SHIFT = 3 };

const char *sc_file_of(const sc_loader *L, const xmlNode *el)
{
    uintptr_t k = el ? (uintptr_t)el->_private >> FILE_SHIFT : 0;
    return k && k <= L->files.n ? L->files.v[k - 1] : L->scene_file;
}

/* Messages about element el name its file. */
static void at(sc_loader *L, const xmlNode *el)
{
    L->file = sc_file_of(L, el);
    L->el_at = el;
}
static int first_time(xmlNode *el, uintptr_t bit)
{
    uintptr_t v = (uintptr_t)el->_private;
    el->_private = (void *)(v | bit);
    return !(v & bit);
}

static int is_elem(const xmlNode *e, const char *name)
{
    return e->type == XML_ELEMENT_NODE && !xmlStrcmp(e->name, (const xmlChar *)name);
}

static void node_free(sc_node *n)
{
    if (!n) return;
    for (uint32_t k = 0; k < n->children.n; k++) node_free(n->children.v[k]);
    pf_vec_free(&n->children);
    pf_free(n->name);
    pf_free(n->positions);
    pf_free(n->rest_positions);
    pf_free(n->velocities);
    pf_free(n->beam_pose);
    pf_free(n->beam_twist);
    pf_free(n->frame_objects);
    pf_free(n->rigid_index);
    pf_free(n->point_masses);
    pf_free(n->subset);
    sc_mesh_free(&n->mesh);
    for (uint32_t k = 0; k < n->loaded.n; k++) sc_mesh_free(&n->loaded.v[k].mesh);
    pf_vec_free(&n->loaded);
    pf_vec_free(&n->element_fields);
    pf_free(n);
}

static char *dup_str(const char *s)
{
    size_t len = strlen(s) + 1;
    char *d = pf_malloc(len);
    if (d) memcpy(d, s, len);
    return d;
}

/* After a constructor: every attribute must have been read, be `name`, or be accepted-but-ignored (warned once per
 * element, not once per replicated copy). One nobody knows is a warning, as in SOFA, which warns and goes on
 * (scenes written for SOFA carry many of its GUI and display settings); an error under def.strict. */
static int check_attributes(pf_scene_component *c, int warn)
{
    for (xmlAttr *a = c->el->properties; a; a = a->next) {
        const char *nm = (const char *)a->name;
        int ok = !strcmp(nm, "name");
        for (uint32_t k = 0; k < c->nused && !ok; k++) ok = c->used[k] == a;
        for (uint32_t k = 0; k < c->nlinked && !ok; k++) ok = c->linked[k] == a;
        if (ok) continue;
        int ignored = 0;
        for (uint32_t k = 0; k < c->nignored && !ignored; k++) ignored = !strcmp(c->ignored[k], nm);
        for (size_t k = 0; k < sizeof common_ignored / sizeof *common_ignored && !ignored; k++)
            ignored = !strcmp(common_ignored[k], nm);
        if (!ignored && c->L->def->strict)
            return pf_scene_component_error(c, PF_EPARSE, "%s: unknown attribute '%s'", pf_scene_component_type(c),
                                            nm);
        if (!ignored) {
            if (warn)
                pf_scene_component_warning(c, "%s: unknown attribute '%s': ignored (an error in strict mode)",
                                           pf_scene_component_type(c), nm);
            continue;
        }
        if (warn) pf_scene_component_warning(c, "%s: attribute '%s' is accepted but ignored", pf_scene_component_type(c), nm);
    }
    return PF_OK;
}

/* Gives a constructor's bare failure message its file:line. */
static int locate_error(sc_loader *L, const xmlNode *el, int rc)
{
    size_t flen = strlen(L->file);
    const char *msg = pf_last_error();
    if (!strncmp(msg, L->file, flen) && msg[flen] == ':') return rc;
    char copy[400];
    snprintf(copy, sizeof copy, "%s", msg);
    return sc_error(L, sc_line(el), rc, "%s: %s", (const char *)el->name, copy);
}

/* ---- tree ---- */

static int add_child(sc_loader *L, sc_node *parent, sc_node *child, const xmlNode *el)
{
    if (pf_vec_push(&parent->children, child)) return sc_error(L, sc_line(el), PF_ENOMEM, "out of memory");
    return PF_OK;
}

static int build_node(sc_loader *L, xmlNode *el, sc_node *parent, const char *name, const double offset[3],
                      sc_node **out);

/* <Replicate count="nx ny nz" step="sx sy sz"> Node... </Replicate>: copy (i,j,k) of each inner Node is that Node
 * translated by (i sx, j sy, k sz) and named name_i_j_k; copies are made with i fastest. */
static int expand_replicate(sc_loader *L, xmlNode *el, sc_node *parent)
{
    at(L, el);
    pf_scene_component c = {.L = L, .node = parent, .el = el, .stage = PF_SCENE_STAGE_STATE};
    double count[3] = {1, 1, 1}, step[3] = {0, 0, 0};
    int rc = pf_scene_component_reals(&c, "count", 3, count);
    if (rc < 0) return rc;
    if (rc == 0) return pf_scene_component_error(&c, PF_EPARSE, "Replicate: attribute 'count' is missing");
    if ((rc = pf_scene_component_reals(&c, "step", 3, step)) < 0) return rc;
    for (int d = 0; d < 3; d++)
        if (count[d] < 1 || count[d] > 1e6 || count[d] != (double)(long)count[d])
            return pf_scene_component_error(&c, PF_EINVAL, "Replicate: count %g is not an integer >= 1", count[d]);
    if (count[0] * count[1] * count[2] > 1e6)
        return pf_scene_component_error(&c, PF_EINVAL, "Replicate: %g copies is too many (at most 1e6)",
                                        count[0] * count[1] * count[2]);
    if ((rc = check_attributes(&c, first_time(el, SEEN_STATE)))) return rc;
    int has_node = 0;
    for (xmlNode *e = el->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE) continue;
        if (!is_elem(e, "Node"))
            return sc_error(L, sc_line(e), PF_EPARSE, "Replicate holds Nodes only, not '%s'", (const char *)e->name);
        has_node = 1;
    }
    if (!has_node) return pf_scene_component_error(&c, PF_EPARSE, "Replicate: no Node inside");
    for (long k = 0; k < (long)count[2]; k++)
        for (long j = 0; j < (long)count[1]; j++)
            for (long i = 0; i < (long)count[0]; i++)
                for (xmlNode *e = el->children; e; e = e->next) {
                    if (e->type != XML_ELEMENT_NODE) continue;
                    xmlChar *base = xmlGetProp(e, (const xmlChar *)"name");
                    char name[256];
                    snprintf(name, sizeof name, "%s_%ld_%ld_%ld", base ? (const char *)base : "Node", i, j, k);
                    xmlFree(base);
                    double off[3] = {parent->offset[0] + (double)i * step[0], parent->offset[1] + (double)j * step[1],
                                     parent->offset[2] + (double)k * step[2]};
                    sc_node *child;
                    if ((rc = build_node(L, e, parent, name, off, &child))) return rc;
                    if ((rc = add_child(L, parent, child, e))) {
                        node_free(child);
                        return rc;
                    }
                }
    return PF_OK;
}

static int build_node(sc_loader *L, xmlNode *el, sc_node *parent, const char *name, const double offset[3],
                      sc_node **out)
{
    *out = NULL;
    at(L, el);
    if (++L->nodes > 1000000)
        return sc_error(L, sc_line(el), PF_EINVAL, "more than 1000000 nodes (nested Replicates multiply their counts)");
    sc_node *n = pf_calloc(1, sizeof *n);
    if (!n || !(n->name = dup_str(name))) {
        pf_free(n);
        return sc_error(L, sc_line(el), PF_ENOMEM, "out of memory");
    }
    n->el = el;
    n->parent = parent;
    memcpy(n->offset, offset, sizeof n->offset);
    n->def = pf_object_default_def();
    n->solver = pf_solver_default_def();
    int rc = PF_OK;
    for (xmlNode *e = el->children; e && !rc; e = e->next) {
        if (is_elem(e, "Node")) {
            xmlChar *nm = xmlGetProp(e, (const xmlChar *)"name");
            sc_node *child;
            rc = build_node(L, e, n, nm ? (const char *)nm : "", offset, &child);
            xmlFree(nm);
            if (!rc && (rc = add_child(L, n, child, e))) node_free(child);
        } else if (is_elem(e, "Replicate")) {
            rc = expand_replicate(L, e, n);
        }
    }
    if (rc) {
        node_free(n);
        return rc;
    }
    *out = n;
    return PF_OK;
}

/* The Node element's own attributes: dt and gravity on the root, name anywhere. */
static int node_attributes(sc_loader *L, sc_node *n, pf_world_def *wd, int warn)
{
    pf_scene_component c = {.L = L, .node = n, .el = n->el, .stage = PF_SCENE_STAGE_STATE};
    if (!n->parent) {
        double dt;
        int rc = pf_scene_component_reals(&c, "dt", 1, &dt);
        if (rc < 0) return rc;
        if (rc == 1 && !(dt > 0)) return pf_scene_component_error(&c, PF_EINVAL, "Node: dt must be > 0, got %g", dt);
        if (rc == 1) wd->dt = dt;
        if ((rc = pf_scene_component_reals(&c, "gravity", 3, wd->gravity)) < 0) return rc;
    } else {
        pf_scene_component_ignore(&c, "dt");
        pf_scene_component_ignore(&c, "gravity");
    }
    pf_scene_component_ignore(&c, "animate");
    pf_scene_component_ignore(&c, "time");
    pf_scene_component_ignore(&c, "activated");
    return check_attributes(&c, warn);
}

/* ---- walks ---- */

static int is_structural(const xmlNode *e)
{
    return is_elem(e, "Node") || is_elem(e, "Replicate");
}

static int walk(sc_loader *L, sc_node *n, pf_scene_stage stage, pf_world_def *wd)
{
    int rc;
    int first = first_time(n->el, stage == PF_SCENE_STAGE_STATE ? SEEN_STATE : SEEN_FORCES);
    at(L, n->el);
    if (stage == PF_SCENE_STAGE_STATE) {
        if (n->parent) {
            n->solver = n->parent->solver;
            n->solver_line = n->parent->solver_line;
        }
        if (first && (rc = sc_kind_count(L, "Node", 0))) return rc;
        L->kind = sc_kind_find(L, "Node");
        sc_kind_effect(L, SC_EFFECT_NODE);
        if ((rc = node_attributes(L, n, wd, first))) return rc;
        L->kind = -1;
        L->scene->summary.nodes++;
    }
    for (xmlNode *e = n->el->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE || is_structural(e)) continue;
        at(L, e);
        const char *type = (const char *)e->name;
        const pf_scene_component_def *entry = pf_scene_registry_find(L->reg, type);
        if (!entry && sc_sofa_alias(type)) entry = pf_scene_registry_find(L->reg, sc_sofa_alias(type));
        if (!entry && sc_sofa_draw_or_log(type)) {
            if (stage == PF_SCENE_STAGE_STATE && first) {
                if ((rc = sc_kind_count(L, type, 1))) return rc;
                sc_report(L, PF_SCENE_NOTE, sc_line(e), "%s only draws or logs: skipped", type);
            }
            continue;
        }
        if (!entry && sc_sofa_constraint_pipeline(type))
            return sc_error(L, sc_line(e), PF_ENOTSUP, "%s is part of SOFA's constraint-based pipeline "
                            "(FreeMotionAnimationLoop, GenericConstraintSolver or LCPConstraintSolver, "
                            "*ConstraintCorrection), which PhysFlow does not support: its contacts are penalty "
                            "forces (DefaultAnimationLoop, CollisionResponse)", type);
        if (!entry) {
            const char *near = sc_nearest_component(L->reg, type);
            return sc_error(L, sc_line(e), PF_EPARSE, "unknown component '%s'%s%s%s", type,
                            near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        }
        if (!entry->fn) {
            if (stage == PF_SCENE_STAGE_STATE && first) {
                if ((rc = sc_kind_count(L, type, 1))) return rc;
                sc_report(L, PF_SCENE_NOTE, sc_line(e), "%s is visual only: skipped", type);
            }
            continue;
        }
        if (stage == PF_SCENE_STAGE_STATE && first && (rc = sc_kind_count(L, type, 0))) return rc;
        L->kind = -1;
        if (entry->stage != stage && entry->ctx != &sc_both_stages) continue;
        L->kind = sc_kind_find(L, type);
        pf_scene_component c = {.L = L, .node = n, .el = e, .entry = entry, .stage = stage};
        sc_effect_snapshot before;
        sc_effect_snapshot_take(L, n, &before);
        int skip = 0;
        if (stage == PF_SCENE_STAGE_STATE && (rc = sc_follow_links(&c, &skip))) return locate_error(L, e, rc);
        if (skip) {
            sc_kind_effect(L, sc_effect_since(L, n, &before) | SC_EFFECT_TOPOLOGY); /* the linked loader's mesh */
            if ((rc = check_attributes(&c, first))) return rc;
            continue;
        }
        pf_error(PF_OK, "%s", ""); /* a failure that gives no message must not show an older one */
        rc = entry->fn(&c, entry->ctx);
        if (rc > 0)
            return sc_error(L, sc_line(e), PF_EINVAL, "%s: the component returned %d, which is not a PhysFlow status "
                            "(PF_OK, or a negative PF_E* code after pf_scene_component_error)",
                            (const char *)e->name, rc);
        if (rc && !pf_last_error()[0])
            return sc_error(L, sc_line(e), rc, "%s: the component failed (%s) without saying why "
                            "(pf_scene_component_error gives the reason)", (const char *)e->name, pf_status_name(rc));
        if (rc) return locate_error(L, e, rc);
        sc_kind_effect(L, sc_effect_since(L, n, &before) | sc_effect_declared(entry->fn));
        if ((rc = check_attributes(&c, first))) return rc;
        L->kind = -1;
    }
    L->kind = -1;
    /* after the node's topology and loaders, before its children: SOFA inits a node's MechanicalObject (which
     * transforms its positions) before the nodes below read them */
    if (stage == PF_SCENE_STAGE_STATE && (rc = sc_mo_transform_apply(L, n))) return rc;
    if (stage == PF_SCENE_STAGE_STATE && (rc = sc_identity_inherit_mesh(n)))
        return sc_error(L, n->mapping_line, rc, "IdentityMapping in node '%s': out of memory", n->name);
    if (stage == PF_SCENE_STAGE_STATE && n->mesh_points_line)
        return sc_error(L, n->mesh_points_line, PF_EPARSE,
                        "%s: its elements index the points of the MechanicalObject "
                        "after it in node '%s', which gave none ('position' as numbers)",
                        n->mesh_points_type, n->name);
    if (stage == PF_SCENE_STAGE_STATE && n->pending_container &&
        (n->topology == SC_TOPO_NONE || n->topology == SC_TOPO_GRID)) {
        const xmlNode *e = n->pending_container;
        at(L, e);
        return sc_error(L, sc_line(e), PF_EPARSE, "%s: 'position' needs 3 numbers per point (at least one point), "
                        "got 0 numbers (none, no MechanicalObject before it gave positions, and no topological mapping "
                        "in node '%s' filled it)", (const char *)e->name, n->name);
    }
    for (uint32_t k = 0; stage == PF_SCENE_STAGE_STATE && n->beam_frames && k < n->children.n; k++) {
        if ((rc = sc_beam_child_skipped(L, n, n->children.v[k])) < 0) return rc;
        if (rc == 0) continue;
        node_free(n->children.v[k]); /* nodes mapped onto a beam's frames (scenes/components_beam.c) */
        memmove(n->children.v + k, n->children.v + k + 1, (n->children.n - k - 1) * sizeof *n->children.v);
        n->children.n--, k--;
    }
    for (uint32_t k = 0; k < n->children.n; k++)
        if ((rc = walk(L, n->children.v[k], stage, wd))) return rc;
    return PF_OK;
}

static int path_of(const sc_node *n, char *buf, size_t cap)
{
    if (!n->parent) {
        buf[0] = 0;
        return 0;
    }
    int len = path_of(n->parent, buf, cap);
    int w = snprintf(buf + len, cap - (size_t)len, "%s%s", len ? "/" : "", n->name);
    return w < 0 || (size_t)(len + w) >= cap ? (int)cap - 1 : len + w;
}

/* Counts a created object and keeps its node path (for pf_scene_find_object). */
static int record_object(sc_loader *L, sc_node *n, uint32_t npts)
{
    n->has_object = 1;
    pf_scene *s = L->scene;
    s->summary.objects++;
    s->summary.points += npts;
    char path[1024];
    path_of(n, path, sizeof path);
    char *p = dup_str(path);
    if (!p || pf_vec_push(&s->paths, p)) {
        pf_free(p);
        return sc_error(L, n->mo_line, PF_ENOMEM, "out of memory");
    }
    return PF_OK;
}

/* 0, 1, ..., npts - 1 (the caller frees it), or NULL after the load error saying memory ran out. */
static uint32_t *every_point(sc_loader *L, sc_node *n, uint32_t npts)
{
    uint32_t *all = pf_malloc(((size_t)npts + 1) * sizeof *all);
    if (!all) {
        sc_error(L, n->mo_line, PF_ENOMEM, "out of memory");
        return NULL;
    }
    for (uint32_t p = 0; p < npts; p++) all[p] = p;
    return all;
}

/* A Vec1 or Vec2 object (SOFA's templates of 1 or 2 coordinates per point) is a Vec3 object held along the axes it
 * lacks (z; y too for Vec1), its points on them at 0: the same dynamics on the coordinates it has, since nothing
 * couples them to the held ones. */
static int hold_reduced_coords(sc_loader *L, sc_node *n, uint32_t npts)
{
    if (!n->coords) return PF_OK;
    pf_world *w = L->scene->world;
    uint32_t np = 0;
    const double *x = pf_world_positions(w, n->object, &np);
    for (uint32_t p = 0; p < np; p++)
        for (int a = n->coords; a < 3; a++)
            if (x[3 * (size_t)p + (size_t)a] != 0)
                return sc_error(L, n->mo_line, PF_EINVAL, "MechanicalObject template Vec%dd in node '%s': point %u "
                                "has coordinate %c = %g, which the template does not have", n->coords, n->name, p,
                                "xyz"[a], x[3 * (size_t)p + (size_t)a]);
    uint32_t *all = every_point(L, n, npts);
    if (!all) return PF_ENOMEM;
    int rc = PF_OK;
    for (int a = n->coords; a < 3 && !rc; a++) {
        double dir[3] = {0, 0, 0};
        dir[a] = 1;
        rc = pf_world_fix_directions(w, n->object, all, npts, dir);
    }
    pf_free(all);
    if (rc) {
        char copy[400];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return sc_error(L, n->mo_line, rc, "MechanicalObject: %s", copy);
    }
    return PF_OK;
}

/* An object no solver reaches stays where it is, as SOFA leaves a state no ODE solver integrates (an obstacle, a
 * floor, the other end of interaction springs): every point held, so that it also links no solver groups. */
static int hold_unsolved(sc_loader *L, sc_node *n, uint32_t npts)
{
    uint32_t *all = every_point(L, n, npts);
    if (!all) return PF_ENOMEM;
    int rc = pf_world_fix_points(L->scene->world, n->object, all, npts);
    pf_free(all);
    if (rc) {
        char copy[400];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return sc_error(L, n->mo_line, rc, "MechanicalObject: %s", copy);
    }
    return PF_OK; /* not counted in the summary's fixed points: no constraint holds them */
}

/* Creates the object of every node with a MechanicalObject, in document order. */
static int create_objects(sc_loader *L, sc_node *n)
{
    int rc;
    at(L, n->el);
    if (!n->mo_line && n->mass_line)
        return sc_error(L, n->mass_line, PF_EPARSE, "UniformMass in node '%s' without a MechanicalObject", n->name);
    if ((n->mapping == SC_MAP_IDENTITY || n->mapping == SC_MAP_SUBSET) && (rc = sc_linear_mapping_finish(L, n)))
        return rc;
    if (n->mo_line && n->mapping != SC_MAP_NONE) {
        /* a mapped node's points follow its parent's object: no object of its own */
    } else if (n->mo_line && n->beam_frames && !n->beam_line) { /* independent frames: a body each */
        if ((rc = sc_create_frames(L, n))) return rc;
        for (uint32_t k = 0; k < n->beam_frames; k++)
            if ((rc = record_object(L, n, 2))) return rc;
    } else if (n->mo_line && n->beam_frames) {
        if ((rc = sc_create_beam(L, n))) return rc;
        if ((rc = record_object(L, n, 2 * n->beam_frames))) return rc;
    } else if (n->mo_line && n->rigid) {
        if ((rc = sc_create_rigid(L, n))) return rc;
        if ((rc = record_object(L, n, 2))) return rc;
    } else if (n->mo_line) {
        pf_object_def d = n->def;
        d.solver = n->solver;
        double *pos = NULL;
        if (!n->solver_line && first_time(n->el, SEEN_CREATE)) {
            L->kind = sc_kind_find(L, "MechanicalObject");
            sc_report(L, PF_SCENE_WARNING, n->mo_line, "no solver in node '%s' or above: its points stay where they "
                      "are, as in SOFA (a solver in the node or above it simulates it)", n->name);
            L->kind = -1;
        }
        int from_topology = sc_mo_positions_from_topology(n);
        if (n->positions && !from_topology) {
            if (n->topology == SC_TOPO_GRID)
                return sc_error(L, n->mo_line, PF_EPARSE, "MechanicalObject: 'position' and a RegularGridTopology "
                                "both give the points of node '%s'", n->name);
            if (n->topology == SC_TOPO_MESH && n->mesh.npoints != n->npositions)
                return sc_error(L, n->mo_line, PF_EINVAL, "MechanicalObject: %u positions but the topology has %u "
                                "points", n->npositions, n->mesh.npoints);
            pos = n->positions;
            d.points = n->npositions;
        } else if (n->topology == SC_TOPO_MESH) {
            pos = n->mesh.points;
            d.points = n->mesh.npoints;
        } else if (n->topology == SC_TOPO_GRID) {
            for (int k = 0; k < 3; k++) {
                d.grid_min[k] += n->offset[k];
                d.grid_max[k] += n->offset[k];
            }
        } else {
            return sc_error(L, n->mo_line, PF_EPARSE, "MechanicalObject in node '%s' has no points: give 'position' "
                            "or a topology (RegularGridTopology, MeshTopology, MeshObjLoader)", n->name);
        }
        if (d.grid[0] == 0 && d.points == 0)
            return sc_error(L, n->mo_line, PF_EINVAL, "MechanicalObject in node '%s' has no points", n->name);
        double *moved = NULL;
        if (pos) {
            moved = pf_malloc((size_t)d.points * 3 * sizeof *moved);
            if (!moved) return sc_error(L, n->mo_line, PF_ENOMEM, "out of memory");
            for (size_t k = 0; k < (size_t)d.points * 3; k++) moved[k] = pos[k] + n->offset[k % 3];
            d.positions = moved;
        }
        uint32_t npts = d.grid[0] ? (uint32_t)d.grid[0] * (uint32_t)d.grid[1] * (uint32_t)d.grid[2] : d.points;
        double *spread = NULL;
        /* fewer velocities than points: SOFA's MechanicalObject::init copies the last one given to the rest */
        if (n->velocities && n->nvelocities >= 1 && n->nvelocities < npts) {
            if (!(spread = pf_malloc((size_t)npts * 3 * sizeof *spread))) {
                pf_free(moved);
                return sc_error(L, n->mo_line, PF_ENOMEM, "out of memory");
            }
            size_t given = (size_t)n->nvelocities * 3, last = given - 3;
            for (size_t k = 0; k < (size_t)npts * 3; k++) spread[k] = n->velocities[k < given ? k : last + k % 3];
            d.velocities = spread;
        } else if (n->velocities) {
            if (n->nvelocities != npts) {
                pf_free(moved);
                return sc_error(L, n->mo_line, PF_EINVAL, "MechanicalObject: %u velocities for %u points",
                                n->nvelocities, npts);
            }
            d.velocities = n->velocities;
        }
        rc = pf_world_add_object(L->scene->world, &d, &n->object);
        pf_free(moved);
        pf_free(spread);
        if (rc) {
            char copy[400];
            snprintf(copy, sizeof copy, "%s", pf_last_error());
            return sc_error(L, n->mo_line, rc, "MechanicalObject: %s", copy);
        }
        if ((rc = hold_reduced_coords(L, n, npts))) return rc;
        if (!n->solver_line && (rc = hold_unsolved(L, n, npts))) return rc;
        if ((rc = record_object(L, n, npts))) return rc;
    }
    for (uint32_t k = 0; k < n->children.n; k++)
        if ((rc = create_objects(L, n->children.v[k]))) return rc;
    return PF_OK;
}

void pf_scene_destroy(pf_scene *s)
{
    if (!s) return;
    pf_world_destroy(s->world);
    /* after the world: a component's state (a force field's ctx) may be what the world used */
    for (uint32_t k = s->destructors.n; k-- > 0;) s->destructors.v[k].fn(s->destructors.v[k].state);
    pf_vec_free(&s->destructors);
    for (uint32_t k = 0; k < s->models.n; k++) pf_free(s->model_tris.v[k]);
    pf_vec_free(&s->model_tris);
    pf_vec_free(&s->models);
    pf_vec_free(&s->model_node);
    for (uint32_t k = 0; k < s->paths.n; k++) pf_free(s->paths.v[k]);
    pf_vec_free(&s->paths);
    sc_kinds_free(s);
    pf_free(s);
}

/* The first error libxml2 meets (its last one is often a consequence, "Extra content at the end"). */
typedef struct first_error {
    int set, line;
    char msg[300];
} first_error;

static void keep_first_error(void *data, xmlErrorPtr err)
{
    first_error *fe = ((xmlParserCtxtPtr)data)->_private;
    if (fe->set || !err || err->level < XML_ERR_ERROR) return;
    fe->set = 1;
    fe->line = err->line;
    snprintf(fe->msg, sizeof fe->msg, "%s", err->message ? err->message : "not well-formed");
    size_t len = strlen(fe->msg);
    while (len && (fe->msg[len - 1] == '\n' || fe->msg[len - 1] == ' ')) fe->msg[--len] = 0;
}

/* Line of the first "<!DOCTYPE" in the text (libxml2 records none for the DTD node). */
static int doctype_line(const char *text, size_t length)
{
    const char *p = memmem(text, length, "<!DOCTYPE", 9);
    int line = 1;
    for (const char *q = text; p && q < p; q++) line += *q == '\n';
    return line;
}

/* Parses text into *doc; messages name L->file (the scene or the included file being read). */
static int parse_document(sc_loader *L, const char *text, size_t length, xmlDoc **doc)
{
    if (length > (size_t)1 << 30) return sc_error(L, 0, PF_EINVAL, "scene file larger than 1 GiB");
    xmlInitParser();
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt) return sc_error(L, 0, PF_ENOMEM, "out of memory for the XML parser");
    /* libxml2's messages go to keep_first_error (never to stderr) and are reported in our file:line format.
     * NONET: never fetch; no NOENT / DTDLOAD: entities are not expanded, external subsets not loaded. */
    first_error fe = {0};
    ctxt->_private = &fe;
    ctxt->sax->serror = keep_first_error;
    char *escaped = NULL; /* SOFA's raw '<' and '&' in attribute values, escaped (xml_lenient.c) */
    size_t escaped_n = 0;
    int first = 0, count = sc_xml_escape_attributes(text, length, &escaped, &escaped_n, &first);
    if (count < 0) {
        xmlFreeParserCtxt(ctxt);
        return sc_error(L, 0, PF_ENOMEM, "out of memory");
    }
    if (count)
        sc_report(L, PF_SCENE_WARNING, first, "attribute values hold %d raw '<' or '&' (XML forbids them): read as "
                  "the characters, as SOFA's reader does", count);
    *doc = xmlCtxtReadMemory(ctxt, escaped ? escaped : text, (int)(escaped ? escaped_n : length), L->file, NULL,
                             XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES);
    pf_free(escaped);
    int rc = PF_OK;
    if (!*doc || !ctxt->wellFormed || fe.set) {
        const xmlError *err = xmlCtxtGetLastError(ctxt);
        if (fe.set)
            rc = sc_error(L, fe.line, PF_EPARSE, "malformed XML: %s", fe.msg);
        else
            rc = sc_error(L, err ? err->line : 0, PF_EPARSE, "malformed XML: %s",
                          err && err->message ? err->message : "not well-formed");
    } else if ((*doc)->intSubset || (*doc)->extSubset) {
        rc = sc_error(L, doctype_line(text, length), PF_EPARSE, "DOCTYPE declarations are not allowed in scene files");
    }
    xmlFreeParserCtxt(ctxt);
    return rc;
}

/* ---- <include href="file"/> (SOFA's): the file's elements inserted in place ---- */

enum { MAX_INCLUDE_DEPTH = 16 };

static int expand_includes(sc_loader *L, xmlNode *parent, const char *dir);

/* Reads a whole file into *text (pf_malloc'ed); 0, or -1 with errno. */
static int read_whole(const char *path, char **text, size_t *length)
{
    *text = NULL;
    *length = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    PF_VEC(char) v = {0};
    for (;;) {
        if (pf_vec_reserve(&v, v.n + 65536)) {
            fclose(f);
            pf_vec_free(&v);
            errno = ENOMEM;
            return -1;
        }
        size_t got = fread(v.v + v.n, 1, v.cap - v.n, f);
        v.n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad || v.n > (size_t)1 << 30) {
        pf_vec_free(&v);
        errno = bad ? EIO : EFBIG;
        return -1;
    }
    *text = v.v;
    *length = v.n;
    return 0;
}

/* Gives a copy the file marks of its original, element by element (copies keep the tree's shape). */
static void copy_marks(const xmlNode *from, xmlNode *to)
{
    for (; from && to; from = from->next, to = to->next) {
        if (from->type != XML_ELEMENT_NODE) continue;
        to->_private = from->_private;
        copy_marks(from->children, to->children);
    }
}

static void mark_file(xmlNode *el, uintptr_t file)
{
    for (; el; el = el->next) {
        if (el->type != XML_ELEMENT_NODE) continue;
        el->_private = (void *)(file << FILE_SHIFT);
        mark_file(el->children, file);
    }
}

/* Sets attribute name = value on e and the elements below it that have it (those named `only`, when given, whether
 * they have it or not); returns how many were set. */
static int replace_attribute(xmlNode *e, const char *only, const char *name, const char *value)
{
    int n = 0;
    for (; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE) continue;
        xmlChar *nm = only ? xmlGetProp(e, (const xmlChar *)"name") : NULL;
        int named = only && nm && !xmlStrcmp(nm, (const xmlChar *)only);
        xmlFree(nm);
        if (named || (!only && xmlHasProp(e, (const xmlChar *)name))) {
            xmlSetProp(e, (const xmlChar *)name, (const xmlChar *)value);
            n++;
        }
        n += replace_attribute(e->children, only, name, value);
    }
    return n;
}

/* SOFA's include attributes: each (but href and name) replaces that attribute in the inserted elements that have
 * it, or "elem.attr" sets it on the inserted elements named elem (SOFA's XML.cpp, recReplaceAttribute). One that
 * reaches no element is a warning (an error under strict). The inserted elements run from `first` to inc. */
static int include_attributes(sc_loader *L, xmlNode *inc, xmlNode *first)
{
    int line = sc_line(inc);
    for (xmlAttr *a = inc->properties; a; a = a->next) {
        const char *name = (const char *)a->name;
        if (!strcmp(name, "href") || !strcmp(name, "name")) continue;
        const char *value = a->children && a->children->type == XML_TEXT_NODE ? (const char *)a->children->content
                                                                               : "";
        char only[256] = "";
        const char *dot = strchr(name, '.');
        if (dot && (size_t)(dot - name) < sizeof only) {
            memcpy(only, name, (size_t)(dot - name));
            only[dot - name] = 0;
        }
        int set = 0;
        for (xmlNode *e = first; e && e != inc; e = e->next) {
            xmlNode *next = e->next; /* one element at a time: replace_attribute walks siblings */
            e->next = NULL;
            set += replace_attribute(e, only[0] ? only : NULL, only[0] ? dot + 1 : name, value);
            e->next = next;
        }
        if (set) continue;
        if (L->def->strict) return sc_error(L, line, PF_EPARSE, "include: unknown attribute '%s'", name);
        sc_report(L, PF_SCENE_WARNING, line, "include: attribute '%s' is not applied (no inserted element has it)",
                  name);
    }
    return PF_OK;
}

/* Replaces the <include> element inc (in a file whose folder is dir) by the elements of the file it names:
 * the children of the file's root when that root is SOFA's "Group" node, else the root itself. */
static int include_file(sc_loader *L, xmlNode *inc, const char *dir)
{
    int line = sc_line(inc);
    if (L->including.n >= MAX_INCLUDE_DEPTH)
        return sc_error(L, line, PF_EPARSE, "include: more than %d nested includes", MAX_INCLUDE_DEPTH);
    xmlChar *href = xmlGetProp(inc, (const xmlChar *)"href");
    if (!href || !href[0]) {
        xmlFree(href);
        return sc_error(L, line, PF_EPARSE, "include: attribute 'href' (the file to include) is missing");
    }
    char path[2048];
    int rc = sc_resolve_scene_file(L, dir, (const char *)href, "included file", path, sizeof path);
    xmlFree(href);
    if (rc) {
        char copy[400];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return sc_error(L, line, rc, "include: %s", copy);
    }
    struct stat st;
    if (stat(path, &st) || !S_ISREG(st.st_mode)) /* a device or a pipe could never end */
        return sc_error(L, line, PF_EIO, "include: '%s' is not a readable file", path);
    char *real = realpath(path, NULL);
    if (!real) return sc_error(L, line, PF_EIO, "include: cannot open '%s': %s", path, strerror(errno));
    for (uint32_t k = 0; k < L->including.n; k++)
        if (!strcmp(L->including.v[k], real)) {
            free(real);
            return sc_error(L, line, PF_EPARSE, "include: '%s' includes itself (an include cycle)", path);
        }
    char *name = dup_str(path), *real_copy = dup_str(real);
    free(real);
    if (!name || !real_copy || pf_vec_push(&L->files, name)) {
        pf_free(name);
        pf_free(real_copy);
        return sc_error(L, line, PF_ENOMEM, "out of memory");
    }
    if (pf_vec_push(&L->including, real_copy)) {
        pf_free(real_copy);
        return sc_error(L, line, PF_ENOMEM, "out of memory");
    }
    uintptr_t file = L->files.n;
    char *text;
    size_t length;
    if (read_whole(path, &text, &length))
        return sc_error(L, line, PF_EIO, "include: cannot read '%s': %s", path, strerror(errno));
    const char *outer = L->file;
    L->file = name;
    xmlDoc *doc = NULL;
    rc = parse_document(L, text, length, &doc);
    pf_free(text);
    xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
    if (!rc && (!root || !is_elem(root, "Node")))
        rc = sc_error(L, root ? sc_line(root) : 1, PF_EPARSE, "the root element of an included file must be "
                      "<Node>, not <%s>", root ? (const char *)root->name : "");
    /* nested includes resolve beside the included file first */
    char inner[1024] = "";
    const char *slash = strrchr(path, '/');
    if (slash) snprintf(inner, sizeof inner, "%.*s/", (int)(slash - path), path);
    if (!rc) {
        mark_file(root, file);
        rc = expand_includes(L, root, inner);
    }
    xmlChar *rname = root ? xmlGetProp(root, (const xmlChar *)"name") : NULL;
    int group = rname && !xmlStrcmp(rname, (const xmlChar *)"Group");
    xmlFree(rname);
    xmlNode *first = NULL;
    for (xmlNode *e = group ? root->children : root; !rc && e; e = group ? e->next : NULL) {
        if (e->type != XML_ELEMENT_NODE) continue;
        xmlNode *copy = xmlDocCopyNode(e, inc->doc, 1);
        if (!first) first = copy;
        if (!copy || !xmlAddPrevSibling(inc, copy)) {
            xmlFreeNode(copy);
            rc = sc_error(L, line, PF_ENOMEM, "out of memory");
            break;
        }
        copy->_private = e->_private;
        copy_marks(e->children, copy->children);
    }
    if (doc) xmlFreeDoc(doc);
    L->file = outer;
    pf_free(L->including.v[--L->including.n]);
    if (rc) return rc;
    if ((rc = include_attributes(L, inc, first))) return rc;
    xmlUnlinkNode(inc);
    xmlFreeNode(inc);
    return PF_OK;
}

/* Replaces every <include> under parent (written in a file whose folder is dir). */
static int expand_includes(sc_loader *L, xmlNode *parent, const char *dir)
{
    for (xmlNode *e = parent->children, *next; e; e = next) {
        next = e->next;
        if (e->type != XML_ELEMENT_NODE) continue;
        int rc = is_elem(e, "include") ? include_file(L, e, dir) : expand_includes(L, e, dir);
        if (rc) return rc;
    }
    return PF_OK;
}

/* SOFA's older element syntax, <Object type="EulerImplicitSolver" .../>: SOFA's XML reader (createNode) makes the
 * component `type` names, `type` itself no Data; renamed here to the element it stands for. An <Object> without
 * `type` stays, and is refused as an unknown component as SOFA fails to create it. */
static void object_elements(xmlNode *parent)
{
    for (xmlNode *e = parent->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE) continue;
        if (is_elem(e, "Object")) {
            xmlChar *type = xmlGetProp(e, (const xmlChar *)"type");
            if (type && type[0]) {
                xmlNodeSetName(e, type);
                xmlUnsetProp(e, (const xmlChar *)"type");
            }
            xmlFree(type);
        }
        object_elements(e);
    }
}

static int load(sc_loader *L, const char *text, size_t length, pf_scene **out)
{
    int rc = parse_document(L, text, length, &L->doc);
    if (rc) return rc;
    xmlNode *root = xmlDocGetRootElement(L->doc);
    if (!root || !is_elem(root, "Node"))
        return sc_error(L, root ? sc_line(root) : 1, PF_EPARSE, "the root element must be <Node>, not <%s>",
                        root ? (const char *)root->name : "");
    /* the scene itself heads the chain of includes: a file including the scene is a cycle */
    char *real = realpath(L->scene_file, NULL);
    char *top = real ? dup_str(real) : NULL;
    free(real);
    if (top && pf_vec_push(&L->including, top)) pf_free(top);
    if ((rc = expand_includes(L, root, L->dir))) return rc;
    object_elements(root);
    L->file = L->scene_file;
    xmlChar *nm = xmlGetProp(root, (const xmlChar *)"name");
    const double zero[3] = {0, 0, 0};
    rc = build_node(L, root, NULL, nm ? (const char *)nm : "root", zero, &L->root);
    xmlFree(nm);
    if (rc) return rc;
    pf_scene *s = pf_calloc(1, sizeof *s);
    if (!s) return pf_error(PF_ENOMEM, "out of memory for a scene");
    L->scene = s;
    s->collision = (pf_scene_collision){0, PF_BP_KD, 1.0, 0.5, PF_RESPONSE_PENALTY, 100.0, 0.0, 0.0};
    /* the runtime settings are the host's; dt and gravity are the scene's, with the documented defaults
     * (docs/scenes.md) when its root omits them */
    pf_world_def wd = L->def->world;
    const pf_world_def defaults = pf_world_default_def();
    wd.dt = defaults.dt;
    memcpy(wd.gravity, defaults.gravity, sizeof wd.gravity);
    if ((rc = walk(L, L->root, PF_SCENE_STAGE_STATE, &wd))) return rc;
    if (s->collision.contact_distance > s->collision.alarm_distance)
        return sc_error(L, L->collision_lines[2], PF_EINVAL,
                        "MinProximityIntersection: contactDistance %g exceeds alarmDistance %g",
                        s->collision.contact_distance, s->collision.alarm_distance);
    if (L->def->dt > 0) wd.dt = L->def->dt;
    if ((rc = pf_world_create(&wd, &s->world))) return rc;
    s->summary.dt = wd.dt;
    memcpy(s->summary.gravity, wd.gravity, sizeof wd.gravity);
    if ((rc = create_objects(L, L->root))) return rc;
    if ((rc = walk(L, L->root, PF_SCENE_STAGE_FORCES, &wd))) return rc;
    if ((rc = sc_attach_surfaces(L))) return rc;
    if ((rc = sc_kinds_finish(s))) return rc;
    *out = s;
    L->scene = NULL;
    return PF_OK;
}

int pf_scene_load_memory(const pf_scene_load_def *def, const char *name, const char *text, size_t length,
                         const char *dir, pf_scene **out)
{
    return sc_load_memory(def, name, text, length, dir, 0, "pf_scene_load_memory", out);
}

/* The load definition of `fn`: the overrides and the world's runtime settings (dt and gravity are the scene's). */
static int check_load_def(const pf_scene_load_def *d, const char *fn)
{
    if (!(d->dt == 0 || (d->dt > 0 && d->dt < 1e300)))
        return pf_error(PF_EINVAL, "%s: def.dt must be 0 (keep the scene's time step) or in (0, 1e300) s, got %g", fn,
                        d->dt);
    PF_TRY(pf_check_int_range(d->override_broadphase, 0, 1, fn, "def.override_broadphase"));
    PF_TRY(pf_check_int_range(d->strict, 0, 1, fn, "def.strict"));
    if (d->override_broadphase) {
        PF_TRY(pf_check_enum((int)d->broadphase, PF_BP_METHOD_COUNT, fn, "def.broadphase"));
        if (d->broadphase == PF_BP_KD_RAW)
            return pf_error(PF_EINVAL, "%s: def.broadphase must be a pf_broadphase_method other than "
                            "PF_BP_KD_RAW, got %d", fn, (int)d->broadphase);
    }
    PF_TRY(pf_check_int_range(d->world.runtime.workers, 1, INT_MAX, fn, "def.world.runtime.workers"));
    PF_TRY(pf_check_enum((int)d->world.runtime.executor, PF_EXEC_COUNT, fn, "def.world.runtime.executor"));
    PF_TRY(pf_check_enum((int)d->world.runtime.partitioner, PF_PART_COUNT, fn,
                         "def.world.runtime.partitioner"));
    PF_TRY(pf_check_enum((int)d->world.runtime.repartition, PF_REPART_COUNT, fn,
                         "def.world.runtime.repartition"));
    if (!(d->world.max_speed > 0))
        return pf_error(PF_EINVAL, "%s: def.world.max_speed must be a number > 0 (infinity: no limit), got %g", fn,
                        d->world.max_speed);
    return PF_OK;
}

int sc_load_memory(const pf_scene_load_def *def, const char *name, const char *text, size_t length, const char *dir,
                   int builtin, const char *fn, pf_scene **out)
{
    PF_TRY(pf_check_given(out, fn, "out"));
    *out = NULL;
    if (length > 0) PF_TRY(pf_check_given(text, fn, "text"));
    pf_scene_load_def d = def ? *def : pf_scene_default_load_def();
    PF_TRY(check_load_def(&d, fn));
    pf_scene_registry *own = NULL;
    if (!d.registry) {
        int rc = pf_scene_registry_create(&own);
        if (rc) return rc;
        d.registry = own;
    }
    sc_loader L = {.file = name ? name : "<scene>", .dir = dir ? dir : "", .def = &d, .reg = d.registry,
                   .builtin = builtin, .kind = -1};
    L.scene_file = L.file;
    int rc = load(&L, text ? text : "", length, out);
    if (L.scene) pf_scene_destroy(L.scene);
    node_free(L.root);
    for (uint32_t k = 0; k < L.boxes.n; k++) pf_free(L.boxes.v[k].idx);
    pf_vec_free(&L.boxes);
    pf_vec_free(&L.collide_nodes);
    for (uint32_t k = 0; k < L.files.n; k++) pf_free(L.files.v[k]);
    pf_vec_free(&L.files);
    for (uint32_t k = 0; k < L.including.n; k++) pf_free(L.including.v[k]);
    pf_vec_free(&L.including);
    for (uint32_t k = 0; k < L.repositories.n; k++)
        pf_free(L.repositories.v[k].folder);
    pf_vec_free(&L.repositories);
    if (L.doc) xmlFreeDoc(L.doc);
    pf_scene_registry_destroy(own);
    return rc;
}

int pf_scene_load_file(const pf_scene_load_def *def, const char *path, pf_scene **out)
{
    static const char fn[] = "pf_scene_load_file";
    PF_TRY(pf_check_given(out, fn, "out"));
    *out = NULL;
    PF_TRY(pf_check_given(path, fn, "path"));
    FILE *f = fopen(path, "rb");
    if (!f) return pf_error(PF_EIO, "%s: cannot open the scene file '%s': %s", fn, path, strerror(errno));
    PF_VEC(char) text = {0};
    for (;;) {
        if (pf_vec_reserve(&text, text.n + 65536)) {
            fclose(f);
            pf_vec_free(&text);
            return pf_error(PF_ENOMEM, "%s: out of memory reading the scene file '%s'", fn, path);
        }
        size_t got = fread(text.v + text.n, 1, text.cap - text.n, f);
        text.n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        pf_vec_free(&text);
        return pf_error(PF_EIO, "%s: cannot read the scene file '%s': %s", fn, path, strerror(errno));
    }
    /* mesh files resolve against the scene file's folder */
    char dir[1024] = "";
    const char *slash = strrchr(path, '/');
    if (slash) snprintf(dir, sizeof dir, "%.*s/", (int)(slash - path), path);
    int rc = sc_load_memory(def, path, text.v, text.n, dir, 0, fn, out);
    pf_vec_free(&text);
    return rc;
}

pf_world *pf_scene_world(pf_scene *s)
{
    return s ? s->world : NULL;
}

pf_world *pf_scene_release_world(pf_scene *s)
{
    if (!s) return NULL;
    if (s->destructors.n) {
        pf_error(PF_ESTATE, "pf_scene_release_world: %zu scene components registered a destructor "
                 "(pf_scene_component_on_destroy) for state the world may use; the world cannot outlive the "
                 "scene: destroy them together with pf_scene_destroy", s->destructors.n);
        return NULL;
    }
    pf_world *w = s->world;
    s->world = NULL;
    pf_scene_destroy(s);
    return w;
}

const pf_scene_collision *pf_scene_collision_settings(const pf_scene *s)
{
    return s ? &s->collision : NULL;
}

uint32_t pf_scene_collision_models(const pf_scene *s, const pf_scene_collision_model **out)
{
    if (out) *out = s ? s->models.v : NULL;
    return s ? s->models.n : 0;
}

int pf_scene_find_object(const pf_scene *s, const char *path, pf_object_id *out)
{
    static const char fn[] = "pf_scene_find_object";
    PF_TRY(pf_check_given(s, fn, "scene"));
    PF_TRY(pf_check_given(path, fn, "path"));
    PF_TRY(pf_check_given(out, fn, "out"));
    for (uint32_t k = 0; k < s->paths.n; k++)
        if (!strcmp(s->paths.v[k], path)) {
            *out = (pf_object_id){k}; /* paths are kept in object creation order */
            return PF_OK;
        }
    return pf_error(PF_EINVAL, "%s: no object at node path '%s'", fn, path);
}

int pf_scene_get_summary(const pf_scene *s, pf_scene_summary *out)
{
    PF_TRY(pf_check_given(s, "pf_scene_get_summary", "scene"));
    PF_TRY(pf_check_given(out, "pf_scene_get_summary", "out"));
    *out = s->summary;
    return PF_OK;
}
