/* Private types of the scene loader: the node tree (Replicate expanded), per-node drafts, the component
 * context built-in constructors share with host ones. */
#ifndef PF_SCENES_SCENE_INTERNAL_H
#define PF_SCENES_SCENE_INTERNAL_H

#include "base/vec.h"
#include "physflow/scene.h"

#include <libxml/tree.h>
#include <stdint.h>

/* A mesh: points (3 per point, m), edges (2 indices), triangles (3), tetrahedra (4) and hexahedra (8; VTK's and
 * Gmsh's corner order: bottom face 0-3, then the top face 4-7 above it). The tetrahedra, and the hexahedra of mesh
 * files, are kept for the volume FEM components. Quads (4) are also in `tris`, two triangles each (what collision
 * reads); `quads` keeps them whole for a topological mapping. */
typedef struct sc_mesh {
    double *points;
    uint32_t npoints;
    uint32_t *edges;
    uint32_t nedges;
    uint32_t *tris;
    uint32_t ntris;
    uint32_t *quads; /* 4 per quad, corners in turn; each is also in tris, split (0 1 2) (0 2 3) */
    uint32_t nquads;
    uint32_t *tetra;
    uint32_t ntetra;
    uint32_t *hexa;
    uint32_t nhexa;
    double *radii; /* m, one per point: the spheres of a sphere file (SphereLoader); NULL otherwise */
} sc_mesh;

typedef enum sc_topology { SC_TOPO_NONE = 0, SC_TOPO_GRID, SC_TOPO_MESH } sc_topology;

/* A mesh a loader read (SOFA's loaders only give data: a container or a MechanicalObject links it). */
typedef struct sc_loaded {
    const xmlNode *el; /* the loader's element */
    sc_mesh mesh;
    int engine; /* an engine's outputs (TransformEngine, ...): never the node's topology unless linked */
    /* an engine's output names: `points_field` links mesh.points as positions ("output_position"; NULL: none),
     * and a list name followed by `elements_suffix` ("triangles" "InROI") links that list of mesh, on its points,
     * as a topology (NULL: none) */
    const char *points_field, *elements_suffix;
} sc_loaded;

/* How a node without an object of its own follows its parent's (SOFA mappings). IDENTITY: the node's points are
 * its input's, one for one; SUBSET: they are the input's points `subset` (scenes/component_linear_mappings.c). */
typedef enum sc_mapping { SC_MAP_NONE = 0, SC_MAP_RIGID, SC_MAP_BARYCENTRIC, SC_MAP_IDENTITY, SC_MAP_SUBSET } sc_mapping;

/* Collision models requested on a node (bits), turned into one surface once every force field exists. */
enum { SC_COLLIDE_TRIANGLES = 1, SC_COLLIDE_POINTS = 2, SC_COLLIDE_SPHERES = 4, SC_COLLIDE_LINES = 8 };

/* The kind of element a topology's modifier removes (scenes/component_topology_changes.c). */
typedef enum sc_element_kind {
    SC_ELEMENT_NONE = 0, SC_ELEMENT_EDGES, SC_ELEMENT_TRIANGLES, SC_ELEMENT_QUADS, SC_ELEMENT_TETRAHEDRA,
    SC_ELEMENT_HEXAHEDRA
} sc_element_kind;

/* A force field made from a node's elements: same_numbering when its elements are the topology's list of `kind`,
 * one for one in order (a TopologicalChangeProcessor can then remove from it); type and line name its component. */
typedef struct sc_element_field {
    pf_force_field_id id;
    sc_element_kind kind;
    uint32_t count;
    int same_numbering;
    const char *type;
    int line;
} sc_element_field;

/* A MechanicalObject's transform as SOFA reads it (scale3d/scale/sx.., rotation/rx.. in degrees, translation/dx..;
 * rotation2/translation2 after the rest positions), with which parts differ from the identity
 * (scenes/state_transform.c). */
typedef struct sc_mo_transform {
    double scale[3], rotation[3], translation[3], rotation2[3], translation2[3];
    int scaled, turned, moved, second;
} sc_mo_transform;

typedef struct sc_node sc_node;
struct sc_node {
    xmlNode *el;        /* the <Node> element (shared by replicated copies) */
    sc_node *parent;
    char *name;         /* owned: the name attribute, or name_i_j_k for a replicated copy */
    double offset[3];   /* m: translation of a replicated copy (sum over nested Replicates); a MechanicalObject's
                         * own transform is mo_transform, applied to the node's points, not here */
    PF_VEC(sc_node *) children;
    /* STATE stage draft */
    pf_solver_def solver; /* inherited from the parent, then set by the node's own solver components */
    int solver_line;      /* 0: no solver on the path from the root */
    int mo_line;          /* 0: no MechanicalObject */
    /* a MeshTopology of elements only, before the MechanicalObject that gives its points (SOFA's topology
     * indexes the state): its line until that MechanicalObject's positions become the mesh's points */
    int mesh_points_line;
    const char *mesh_points_type; /* its element's name */
    pf_object_def def;
    /* applied to positions, mesh and grid at the end of the node's STATE components (sc_mo_transform_apply); a
     * Rigid3d frame's is applied to pose at once */
    sc_mo_transform mo_transform;
    int mo_transform_done; /* sc_mo_transform_apply has run on the node */
    double *positions, *velocities; /* owned, 3 per point */
    uint32_t npositions, nvelocities;
    double *rest_positions; /* owned, 3 per point: the MechanicalObject's rest_position as written (not a link) */
    uint32_t nrest_positions;
    sc_topology topology;
    int topology_line;
    sc_mesh mesh;
    /* the meshes of the node's loaders, in order; without a container the first one is the node's topology
     * (topology_loader) until a container or MechanicalObject links another (scenes/links_sofa.c) */
    PF_VEC(sc_loaded) loaded;
    const xmlNode *topology_loader;
    /* a topology container waiting for a topological mapping to fill it (an error if none does) */
    const xmlNode *pending_container;
    /* a topology container that linked the node's own RegularGridTopology (position="@grid.position"): the grid
     * unless a topological mapping of the grid fills it (SOFA's FEM examples' layout) */
    const xmlNode *grid_container;
    /* topology filled by a topological mapping from this node: on its points (the object of the nearest node
     * above with one carries them) */
    sc_node *topology_source;
    int topology_linked; /* a container or MechanicalObject of the node linked topology_loader */
    int mass_line;
    double *point_masses; /* owned: def.point_masses, set by a mass measured on the mesh (scenes/component_mass.c) */
    /* Rigid3d MechanicalObject: pose (x y z, quaternion w x y z) and velocity (linear, angular) of the frame */
    int rigid;
    int coords; /* a Vec1 or Vec2 MechanicalObject's coordinates per point (1, 2): a Vec3 object held along the
                 * others; 0: Vec3 */
    double pose[7], twist[6];
    /* a Rigid3d MechanicalObject of several frames, a beam's nodes (scenes/components_beam.c; rigid is set too):
     * 7 numbers per frame (x y z, quaternion w x y z), 6 per frame of velocity (owned); its BeamFEMForceField's
     * line and the beam's section, material and masses, what pf_world_add_beam takes at creation */
    uint32_t beam_frames;
    double *beam_pose, *beam_twist;
    int beam_line;
    pf_beam_def beam;
    /* several frames and no BeamFEMForceField: one rigid body per frame (scenes/components_joints.c), their ids
     * (owned; `object` is the first's) */
    pf_object_id *frame_objects;
    /* RigidMapping: rigidIndexPerPoint (owned) and index, which a Rigid3d node of frames mapped onto independent
     * frames reads (scenes/components_joints.c) */
    uint32_t *rigid_index, nrigid_index, rigid_index0;
    int shape_line;          /* RigidShape element: box or sphere (0: the shape comes from a mesh) */
    pf_rigid_shape shape;
    double half_extents[3], radius;
    /* SparseGridTopology: the grid above is sized to `mesh`, which it carries (TRILINEAR surface) */
    int sparse;
    /* a mesh made by one of SOFA's other GridTopology kinds (CylinderGridTopology, a mirrored RegularGridTopology):
     * its cells per row and per column, which SOFA's split of hexahedra into tetrahedra follows as a grid's; 0 0 for
     * any other mesh */
    int grid_cells[2];
    /* a RegularGridTopology made a mesh (scenes/components_state.c, mirrored_grid: max below min along an axis): its
     * points per axis, numbered as a grid's; 0 0 0 for any other topology */
    int grid_points[3];
    /* a RegularGridTopology that a topological mapping of its own node made the node's mesh (Hexa2Tetra...):
     * the grid, which a mapping below still reads through a link to it, as SOFA's grid component stays */
    int mapped_grid[3];
    double mapped_grid_min[3], mapped_grid_max[3];
    /* RigidMapping / BarycentricMapping: the node's mesh is carried by its parent's object */
    sc_mapping mapping;
    int mapping_line;
    /* IdentityMapping / SubsetMapping: the node above whose points these are (its carrier's object holds them);
     * SUBSET: input point of each of the node's points (owned; computed from positions at creation when the scene
     * gives no indices, subset_radius the search radius) */
    sc_node *map_input;
    uint32_t *subset;
    uint32_t nsubset;
    double subset_radius;
    int64_t subset_first, subset_last; /* SubsetMapping first/last (-1: not given) */
    /* collision models (SC_COLLIDE_* bits), sphere radius, first model's line; self_collide: a triangle, line or
     * point model asked for selfCollision (the node's surface collides with itself) */
    unsigned collide;
    int self_collide;
    double sphere_radius;
    int collide_line;
    int has_friction; /* a model gave contactFriction: its surfaces' Coulomb coefficient */
    double friction;
    int has_contact_stiffness; /* a model gave contactStiffness (else SOFA's default, 10) */
    double contact_stiffness;
    /* after creation */
    int has_object;
    pf_object_id object;
    pf_rigid_def rigid_def; /* what the rigid body was made from (its shape surface) */
    pf_surface_id surface;        /* the triangles' or points' surface */
    pf_surface_id sphere_surface; /* the spheres' surface */
    PF_VEC(sc_element_field) element_fields; /* force fields made from the node's elements, in order */
};

typedef struct sc_loader sc_loader;

struct pf_scene_component {
    sc_loader *L;
    sc_node *node;
    xmlNode *el;
    const pf_scene_component_def *entry;
    pf_scene_stage stage;
    const xmlAttr *used[32];    /* attributes read by the constructor */
    uint32_t nused;
    const char *ignored[32];    /* attributes it accepts but ignores */
    uint32_t nignored;
    const xmlAttr *linked[8];   /* attributes that were SOFA links, followed by the loader (scenes/links_sofa.c) */
    uint32_t nlinked;
};

struct pf_scene_registry {
    PF_VEC(pf_scene_component_def) entries; /* names owned */
};

/* A component's destructor and its state (pf_scene_component_on_destroy). */
typedef struct sc_destructor {
    pf_scene_destroy_fn fn;
    void *state;
} sc_destructor;

struct pf_scene {
    pf_world *world;
    pf_scene_collision collision;
    PF_VEC(pf_scene_collision_model) models;
    PF_VEC(uint32_t *) model_tris; /* owned triangle arrays of the models, in step with models */
    pf_scene_summary summary;
    PF_VEC(uint32_t) model_node; /* per model: index into the loader's list of nodes with models */
    PF_VEC(char *) paths;        /* node path of each object, by object id */
    PF_VEC(sc_destructor) destructors; /* components' state, freed after the world, last registered first */
    PF_VEC(pf_scene_kind) kinds;       /* per element name: what the loader did (type and mapped_to owned) */
    PF_VEC(unsigned) kind_effects;     /* in step with kinds: SC_EFFECT_* bits seen, named at the end */
    void *topology_changes; /* the TopologicalChangeProcessors, one step hook (freed as a destructor) */
    void *step_hooks;       /* the components acting at steps' starts (step_hooks.c; freed as a destructor) */
};

typedef struct sc_box_cache {
    const sc_node *node;
    const xmlNode *el;
    uint32_t *idx;
    uint32_t n;
} sc_box_cache;

typedef struct sc_repository {
    char *folder;
    const xmlNode *el; /* its AddDataRepository, in the document */
} sc_repository;

struct sc_loader {
    const char *file;  /* name for messages: the file of the element at hand (the scene or an included file) */
    const char *scene_file; /* the scene's own name */
    PF_VEC(char *) files;   /* included files' names (owned); element's file: sc_file_of */
    PF_VEC(char *) including; /* the chain of files being included (owned), to refuse cycles */
    const char *dir;   /* folder for relative mesh files ("" for the current one) */
    /* folders AddDataRepository added (owned), looked in after the data path by the elements after it */
    PF_VEC(sc_repository) repositories;
    const xmlNode *el_at; /* the element being read */
    const pf_scene_load_def *def;
    int builtin;       /* a built-in scene: relative mesh files are the embedded ones */
    const pf_scene_registry *reg;
    xmlDoc *doc;
    sc_node *root;
    pf_scene *scene;
    uint32_t nodes;         /* nodes built, replicated copies included (bounded: nested Replicates multiply) */
    int collision_lines[4]; /* first line of pipeline, broadphase, intersection, response */
    int response_stiffness; /* the response gave `stiffness`: every contact takes it, not SOFA's contactStiffness
                               formula (scenes/bodies.c) */
    PF_VEC(sc_box_cache) boxes;     /* BoxROI indices, per (node, element): replicated copies share elements */
    PF_VEC(sc_node *) collide_nodes; /* nodes with collision models, in document order */
    int kind;                        /* index in scene->kinds of the component being read (its warnings), or -1 */
};

/* ---- loader services for constructors (scenes/component_api.c) ---- */
int sc_error(const sc_loader *L, int line, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* scenes/state_transform.c: a node's MechanicalObject transform applied to its points (positions, mesh, grid) as
 * SOFA's MechanicalObject::init does; a turned or mirrored RegularGridTopology becomes a mesh first */
int sc_mo_transform_apply(sc_loader *L, sc_node *n);
/* whether node n's points are still to be transformed (its MechanicalObject read, the node's STATE components not
 * all run), and the transform on a copy of them (np points) for a component that reads them before */
int sc_mo_transform_pending(const sc_node *n);
/* 1 when node n's MechanicalObject gives at most one position and one velocity and its topology has points:
 * SOFA's MechanicalObject::init then takes the topology's points (a saved scene's `position="0 0 0"`) */
int sc_mo_positions_from_topology(const sc_node *n);
void sc_mo_transform_points(const sc_node *n, double *p, size_t np);
void sc_report(const sc_loader *L, pf_scene_severity sev, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int sc_line(const xmlNode *el);
/* The file an element was written in (an included file or the scene), for messages; see scenes/loader.c. */
const char *sc_file_of(const sc_loader *L, const xmlNode *el);
/* Parses a whitespace-separated list of finite numbers: *out (pf_malloc'ed, caller frees) and *n. */
int sc_parse_reals(pf_scene_component *c, const char *attr, double **out, size_t *n);
/* Same for non-negative integers < 2^32. */
int sc_parse_uints(pf_scene_component *c, const char *attr, uint32_t **out, size_t *n);
/* Points of the node's MechanicalObject written in `attr`: 3 numbers per point, or its template's 1 or 2 (Vec1,
 * Vec2), the others 0. As sc_parse_reals: 1 given (*out owned by the caller, *n numbers, 3 per point), 0 absent. */
int sc_parse_coords(pf_scene_component *c, const char *attr, double **out, size_t *n);
/* Boolean attribute: "true/false/1/0"; returns 1 present, 0 absent, or an error. */
int sc_parse_bool(pf_scene_component *c, const char *attr, int *value);
/* pf_scene_component_ignore for each of the n attribute names */
void sc_ignore_attrs(pf_scene_component *c, const char *const *names, size_t n);
#define SC_IGNORE_ATTRS(c, names) sc_ignore_attrs((c), (names), sizeof(names) / sizeof *(names))
/* Resolves "@path" (node path, optional component name and ".field") from `from`: the node and, when the
 * path ends with a component's name, that component's element. */
int sc_resolve_link(pf_scene_component *c, const char *attr, const char *link, sc_node **node, xmlNode **comp,
                    const char **field);
/* Adds a collision model to the scene; `tris` is copied. */
int sc_add_collision_model(pf_scene_component *c, pf_scene_collision_kind kind, double radius, const uint32_t *tris,
                           uint32_t ntris);
/* The indices a BoxROI element selects in its node's object (computed once, cached on the loader). */
int sc_box_indices(pf_scene_component *c, sc_node *node, xmlNode *box_el, const uint32_t **idx, uint32_t *n);

/* ---- what the loader did with each kind of component (scenes/kind_report.c) ---- */
/* What a component changed, seen from the loader's side (the bits of its kind's mapped_to). */
enum {
    SC_EFFECT_NODE = 1, SC_EFFECT_OBJECT = 2, SC_EFFECT_TOPOLOGY = 4, SC_EFFECT_MASS = 8, SC_EFFECT_SOLVER = 16,
    SC_EFFECT_MAPPING = 32, SC_EFFECT_SHAPE = 64, SC_EFFECT_COLLISION_SETTINGS = 128, SC_EFFECT_OBJECT_SETTINGS = 256,
    SC_EFFECT_FORCE = 512, SC_EFFECT_CONSTRAINT = 1024, SC_EFFECT_MODEL = 2048, SC_EFFECT_SELECTION = 4096,
    SC_EFFECT_RAN = 8192, /* the constructor ran (with no effect above: accepted for nothing) */
    SC_EFFECT_REMOVALS = 16384 /* elements removed during the run (TopologicalChangeProcessor) */
};
/* The node and scene state a component may change, taken before its constructor runs. */
typedef struct sc_effect_snapshot {
    int mo_line, topology, mass_line, solver_line, mapping_line, shape_line, collision_lines[4];
    uint32_t mesh_points, npositions, force_fields, constraints, collision_models, boxes;
    const xmlNode *pending_container;
    pf_object_def def;
    pf_solver_def solver;
    pf_scene_collision collision;
} sc_effect_snapshot;
void sc_effect_snapshot_take(const sc_loader *L, const sc_node *n, sc_effect_snapshot *s);
/* The SC_EFFECT_* bits of what changed since the snapshot. */
unsigned sc_effect_since(const sc_loader *L, const sc_node *n, const sc_effect_snapshot *s);
/* The SC_EFFECT_* bits a built-in constructor has even when what it sets equals what was there. */
unsigned sc_effect_declared(pf_scene_component_fn fn);
/* The index of kind `type` in the scene's list (added when new), or -1 out of memory. */
int sc_kind_find(sc_loader *L, const char *type);
/* One more element of `type` (skipped: not constructed); sets L->kind to it. PF_ENOMEM. */
int sc_kind_count(sc_loader *L, const char *type, int skipped);
/* Records effects on L->kind. */
void sc_kind_effect(sc_loader *L, unsigned effects);
/* A warning about L->kind (the component being read, else none). */
void sc_kind_warned(const sc_loader *L);
/* Names every kind's effects (mapped_to) once the load is done. PF_ENOMEM. */
int sc_kinds_finish(pf_scene *s);
void sc_kinds_free(pf_scene *s);

/* The node whose object carries node n's points: n, its parent through a RigidMapping or BarycentricMapping, the
 * carrier of an IdentityMapping's or SubsetMapping's input, or the node a topological mapping took n's topology
 * from (when n has no MechanicalObject). */
sc_node *sc_carrier(sc_node *n);
/* The node whose object a force field or constraint of node n acts on, with n's point indices unchanged: n, or its
 * carrier through an IdentityMapping or a topological mapping (n without a MechanicalObject); NULL for other
 * mapped nodes. */
sc_node *sc_same_points_carrier(sc_node *n);
/* After node n's STATE components: an IdentityMapping node without a topology of its own takes its input's mesh
 * (SOFA's components find the topology in the nodes above). PF_ENOMEM. */
int sc_identity_inherit_mesh(sc_node *n);
/* Once the objects exist, for an IdentityMapping or SubsetMapping node n: its input's object, its point counts
 * checked, and a SubsetMapping without indices matched by positions as SOFA does. */
int sc_linear_mapping_finish(sc_loader *L, sc_node *n);

/* ---- bodies (scenes/bodies.c) ---- */
/* Creates the beam of a node with a Rigid3d MechanicalObject of several frames (scenes/components_beam.c). */
int sc_create_beam(sc_loader *L, sc_node *n);
/* 1 when child, a node below beam's (a node with a beam), maps its frames (a *Mapping of its own): skipped, said as
 * a note (visual only) or a warning (collision models: beams do not collide); 0 when it maps nothing (read as any
 * node); or the load error for mapped mechanics (force fields, masses, constraints, solvers) */
int sc_beam_child_skipped(sc_loader *L, const sc_node *beam, const sc_node *child);
/* Creates the rigid body of a node with a Rigid3d MechanicalObject. */
int sc_create_rigid(sc_loader *L, sc_node *n);
/* the rigid bodies of a Rigid3d node of several independent frames (no BeamFEMForceField) */
int sc_create_frames(sc_loader *L, sc_node *n);
/* Attaches the surfaces of the collision models and, when the scene has a pipeline, enables collision. */
int sc_attach_surfaces(sc_loader *L);

/* ---- files a scene names (scenes/data_path.c) ---- */
/* The path of `file` (`what` names it in messages: "mesh file"): as is when absolute; else beside the scene (in
 * `dir`, NULL: the scene's folder), then in each folder of def->data_path and of PHYSFLOW_DATA_PATH. PF_EIO with
 * the places looked in when none holds it (path is then the first place). Every reader of a scene's files uses
 * it. */
int sc_resolve_scene_file(const sc_loader *L, const char *dir, const char *file, const char *what, char *path,
                          size_t cap);
/* AddDataRepository (SOFA's SceneUtility): its folder `path` (relative: to the scene's folder) added last to
 * the places a file is looked in, for the elements after it in the document (L->el_at) */
int sc_add_data_repository(pf_scene_component *c, void *ctx);

/* ---- SOFA's links (scenes/links_sofa.c) ---- */
/* Before a STATE constructor: follows its `src`, `position` and `rest_position` links ("@loader",
 * "@../mstate.rest_position"), bringing another node's mesh or positions into a node without its own; the
 * constructor then sees those attributes absent. *skip = 1: a topology container whose mesh the node already has
 * (its constructor is not called). */
int sc_follow_links(pf_scene_component *c, int *skip);
/* A loader's mesh m (taken: the node owns it): kept among the node's loaded meshes, and the node's topology
 * when it has none yet. */
int sc_loader_provide(pf_scene_component *c, sc_mesh *m);
/* The mesh the loader element el of node n read, or NULL when el is no loader of n. */
const sc_mesh *sc_loaded_mesh(const sc_node *n, const xmlNode *el);
/* to: a copy of from (PF_ENOMEM). */
int sc_mesh_copy(sc_mesh *to, const sc_mesh *from);
/* An engine's output positions m (taken): linked as "@engine.output_position" by a MechanicalObject. */
int sc_engine_provide(pf_scene_component *c, sc_mesh *m);
/* An engine's output m (taken) under other names (see sc_loaded): "@engine.<points_field>" gives its points as
 * positions, "@engine.<list><elements_suffix>" (triangles, edges, quads, tetrahedra, hexahedra) that list of its
 * elements with its points as the node's topology. An engine may provide several. */
int sc_engine_provide_as(pf_scene_component *c, sc_mesh *m, const char *points_field, const char *elements_suffix);
/* The raw text of attribute `name` of c's element, a link the loader followed included (NULL: absent). */
const char *sc_raw_attr(const pf_scene_component *c, const char *name);
/* The points a link attribute names (a loader's or engine's output, a MechanicalObject's positions, a node's mesh
 * or regular grid), copied into out->points (scenes/component_transform_engine.c). */
int sc_engine_input(pf_scene_component *c, const char *attr, sc_mesh *out);

/* ---- SOFA components not constructed (scenes/sofa_names.c) ---- */
/* The registry's name for another of SOFA's names of a component ("MeshOBJLoader"), or NULL. */
const char *sc_sofa_alias(const char *name);
/* 1 for a component that only draws, logs or sets up SOFA's GUI (skipped with a note). */
int sc_sofa_draw_or_log(const char *name);
/* 1 for a part of SOFA's constraint-based pipeline (FreeMotionAnimationLoop, constraint solvers, corrections). */
int sc_sofa_constraint_pipeline(const char *name);
/* The registry's name nearest to a misspelt `name` (a few edits away, letter case aside), or NULL. */
const char *sc_nearest_component(const pf_scene_registry *r, const char *name);

/* ---- built-in components (scenes/components_*.c) ---- */
extern const pf_scene_component_def sc_builtin_components[];
/* The ctx of a built-in entry called in both walks, c->stage saying which (a component that gives its node's object
 * a mass in the STATE walk and adds a force field to it in the FORCES walk); its own stage counts for nothing. */
extern char sc_both_stages;
extern const size_t sc_builtin_component_count;

/* ---- mesh files (scenes/obj_reader.c) ---- */
/* Reads a Wavefront OBJ: `v x y z` points and `f` faces (polygons fanned into triangles, first corner to each
 * next pair; a face of 4 corners is also one of `quads`; `i/t/n` forms and negative indices accepted). Errors
 * name path:line. */
int sc_read_obj(const char *path, sc_mesh *out);
/* Same from memory (`name` labels messages). */
int sc_read_obj_memory(const char *name, const char *text, size_t length, sc_mesh *out);
/* Reads the mesh file `file` of a scene: relative to the scene's folder, or an embedded file for a built-in
 * scene. */
int sc_read_scene_mesh(const sc_loader *L, const char *file, sc_mesh *out);
/* Loads a scene from memory for the public call `fn` (which names refused arguments); builtin = 1 resolves
 * relative mesh files among the embedded ones. */
int sc_load_memory(const pf_scene_load_def *def, const char *name, const char *text, size_t length, const char *dir,
                   int builtin, const char *fn, pf_scene **out);
void sc_mesh_free(sc_mesh *m);

/* ---- built-in scene texts (generated from scenes/ XML files) ---- */
typedef struct sc_builtin_scene {
    const char *name;
    const char *text;
    size_t length;
} sc_builtin_scene;
extern const sc_builtin_scene sc_builtin_scenes[];
extern const size_t sc_builtin_scene_count;
extern const char sc_builtin_scene_names[]; /* "a, b, c" */
/* files the built-in scenes read (meshes/NAME.obj), embedded the same way */
extern const sc_builtin_scene sc_builtin_files[];
extern const size_t sc_builtin_file_count;

#endif
