/* PhysFlow scenes: XML scene files in SOFA's vocabulary (nested <Node>s of components) loaded into a pf_world,
 * through a registry of element constructors that a host can extend. */
#ifndef PHYSFLOW_SCENE_H
#define PHYSFLOW_SCENE_H

#include "physflow/base.h"
#include "physflow/collision.h"
#include "physflow/physics.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error rule: functions returning int return PF_OK or a negative PF_E* code; a failure's message, from
 * pf_last_error(), starts with "file:line: " when it concerns a place in a scene file. PF_EPARSE: malformed XML,
 * unknown component, unknown attribute (under pf_scene_load_def.strict), malformed value or link, include cycle; PF_EINVAL: a value out of range; PF_EIO: a file
 * (scene, mesh) cannot be read; PF_ENOTSUP: a known component or option that the physics cannot simulate yet. */

/* ---- collision: the pipeline's settings (pf_world_set_collision) and the models (surfaces) ---- */

/// Contact response (SOFA CollisionResponse / DefaultContactManager `response`).
typedef enum pf_scene_response {
    PF_RESPONSE_PENALTY = 0 ///< "PenaltyContactForceField" (SOFA's default "default" maps here too)
} pf_scene_response;

/// Scene-level collision settings, from the collision pipeline components of the root node.
typedef struct pf_scene_collision {
    int enabled;                       ///< 1 when the scene declares a CollisionPipeline / DefaultPipeline
    pf_broadphase_method broadphase;   ///< broad phase; default PF_BP_KD (BruteForceBroadPhase: PF_BP_BRUTE)
    double alarm_distance;             ///< m, MinProximityIntersection alarmDistance (>= 0); default 1
    double contact_distance;           ///< m, contactDistance (>= 0, <= alarm_distance); default 0.5
    pf_scene_response response;        ///< contact response; default PF_RESPONSE_PENALTY
    double stiffness;                  ///< N/m, penalty stiffness per contact (> 0 to simulate); default 100.
                                       ///< When the response gives none, the contacts between collision models
                                       ///< take SOFA's k1 k2 / r from the models' contactStiffness instead
                                       ///< (pf_world_set_surface_contact_stiffness; docs/scenes.md)
    double damping;                    ///< N·s/m, damping along the normal per contact (>= 0; PhysFlow's
                                       ///< CollisionResponse `damping`); default 0
    double friction;                   ///< Coulomb coefficient (>= 0), `mu` of the response's responseParams
                                       ///< ("mu=0.3"); a collision model's `contactFriction` overrides it for
                                       ///< its surface; default 0
} pf_scene_collision;

/// Collision model kind (SOFA SphereCollisionModel, TriangleCollisionModel, PointCollisionModel,
/// LineCollisionModel).
typedef enum pf_scene_collision_kind {
    PF_COLLIDE_SPHERE = 0,   ///< a sphere of `radius` around every point
    PF_COLLIDE_TRIANGLE = 1, ///< the triangles of the node's mesh topology
    PF_COLLIDE_POINT = 2,    ///< the points themselves
    PF_COLLIDE_LINE = 3      ///< the edges of the node's topology (its edges and its triangles' edges): the
                             ///< surface's lines (pf_surface_def.lines)
} pf_scene_collision_kind;

/// One collision model attached to an object. The models of one node share one surface of the world: the node's
/// mesh, grid boundary or rigid shape, carried by its object or, through a RigidMapping / BarycentricMapping, by
/// its parent's.
typedef struct pf_scene_collision_model {
    pf_object_id object;          ///< the object carrying the model's surface
    pf_scene_collision_kind kind; ///< sphere, triangle, point or line
    double radius;                ///< m, spheres only (> 0); 0 for the other kinds
    const uint32_t *triangles;    ///< triangles of a mesh: 3*ntriangles indices into the mesh's points (owned by
                                  ///< the scene); NULL for a grid boundary or a rigid shape (see the surface)
    uint32_t ntriangles;          ///< how many
    int line;                     ///< line of the element in the scene file
    pf_surface_id surface;        ///< the world surface made for it (pf_world_surface_positions, ...)
} pf_scene_collision_model;

/* ---- the registry: element name -> constructor ---- */

/// One component element being constructed; valid only during its constructor call.
typedef struct pf_scene_component pf_scene_component;

/// When a constructor runs. The loader walks the node tree twice, in document order each time.
typedef enum pf_scene_stage {
    /// Before any object exists: the constructor sets up its node (pf_scene_component_object_def) — the
    /// MechanicalObject, topologies, masses, solvers (which children inherit) and scene-level settings.
    PF_SCENE_STAGE_STATE = 0,
    /// After every node's object was created: force fields, constraints, collision models; links to any
    /// node's object resolve (pf_scene_component_link_object).
    PF_SCENE_STAGE_FORCES = 1
} pf_scene_stage;

/// A constructor: reads its element's attributes through pf_scene_component_* and acts on the node or world.
/// Returns PF_OK, or an error code after pf_scene_component_error(). `ctx` is the pointer given at registration.
typedef int (*pf_scene_component_fn)(pf_scene_component *c, void *ctx);

/// One registry entry.
typedef struct pf_scene_component_def {
    const char *name;         ///< element name, e.g. "MyForceField" (copied); registering a name again replaces
                              ///< the earlier entry (a host may override a built-in component)
    pf_scene_stage stage;     ///< which walk calls `fn`
    pf_scene_component_fn fn; ///< the constructor; NULL: the element is visual-only and skipped with a note
    void *ctx;                ///< passed to `fn` unchanged (not owned)
} pf_scene_component_def;

typedef struct pf_scene_registry pf_scene_registry;

/// Creates a registry holding every built-in component. The caller owns *out and frees it with
/// pf_scene_registry_destroy; a registry is read only while a scene loads, so it may be destroyed after the
/// load.
PF_API int pf_scene_registry_create(pf_scene_registry **out);
/// Creates an independent copy of `src` (extend the copy, the original is unchanged). The caller owns *out
/// and frees it with pf_scene_registry_destroy.
PF_API int pf_scene_registry_copy(const pf_scene_registry *src, pf_scene_registry **out);
PF_API void pf_scene_registry_destroy(pf_scene_registry *r);
/// Adds or replaces an entry.
PF_API int pf_scene_register(pf_scene_registry *r, const pf_scene_component_def *def);
/// The entry for an element name, or NULL.
PF_API const pf_scene_component_def *pf_scene_registry_find(const pf_scene_registry *r, const char *name);

/* ---- what a constructor may call ---- */

/// The element's name ("UniformMass") and line in the scene file.
PF_API const char *pf_scene_component_type(const pf_scene_component *c);
PF_API int pf_scene_component_line(const pf_scene_component *c);
/// The raw text of attribute `attr`, or NULL when absent; valid until the constructor returns. Reading an
/// attribute marks it used: after the constructor, an attribute nobody read is "unknown": a warning, or an error
/// under pf_scene_load_def.strict.
PF_API const char *pf_scene_component_string(pf_scene_component *c, const char *attr);
/// Parses attribute `attr` as one finite number in [lo, hi] into *value; leaves *value alone when absent.
/// Returns 1 when present, 0 when absent, or an error code (malformed or out of range, message given).
PF_API int pf_scene_component_real(pf_scene_component *c, const char *attr, double lo, double hi, double *value);
/// Parses exactly n finite numbers (space separated) into out[0..n-1]; same returns as pf_scene_component_real.
PF_API int pf_scene_component_reals(pf_scene_component *c, const char *attr, size_t n, double *out);
/// Marks `attr` accepted but ignored: when present, a warning "file:line: warning: ..." is reported.
PF_API void pf_scene_component_ignore(pf_scene_component *c, const char *attr);
/// Records "file:line: <message>" as the failure's message and returns `code`.
PF_API int pf_scene_component_error(pf_scene_component *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/// Reports "file:line: warning: <message>".
PF_API void pf_scene_component_warning(pf_scene_component *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/// STATE stage: the definition of the object the node will create (NULL in the FORCES stage). Setting
/// fields here is how a host component shapes the node's object.
PF_API pf_object_def *pf_scene_component_object_def(pf_scene_component *c);
/// The world being built (FORCES stage; NULL in the STATE stage).
PF_API pf_world *pf_scene_component_world(pf_scene_component *c);
/// FORCES stage: the node's object, or the object whose points the node shares one for one (a node mapped by
/// IdentityMapping, or without a MechanicalObject, by a topological mapping); PF_EPARSE with a message when there
/// is none, PF_ENOTSUP in a node mapped by SubsetMapping (its indices are not the object's).
PF_API int pf_scene_component_object(pf_scene_component *c, pf_object_id *out);
/// FORCES stage: the object of the node that attribute `attr` links to ("@path" where path is a node path
/// relative to the component's node — "../a/b", or absolute "/a/b" from the root — optionally ending with a
/// component's name). Returns 1 and *out when present, 0 when absent, or an error (dangling link, no object).
PF_API int pf_scene_component_link_object(pf_scene_component *c, const char *attr, pf_object_id *out);

/// A component's destructor: frees the state its constructor allocated.
typedef void (*pf_scene_destroy_fn)(void *state);
/// Registers `fn(state)` to run once when the scene is destroyed: by pf_scene_destroy after the world (so
/// `state` may be what the world used, e.g. a force field's ctx), or when the load fails; destructors run last
/// registered first. Either stage. A scene with destructors keeps its world: pf_scene_release_world refuses it
/// (PF_ESTATE). Returns PF_EINVAL for a NULL component or fn; on PF_ENOMEM fn(state) has already run.
PF_API int pf_scene_component_on_destroy(pf_scene_component *c, pf_scene_destroy_fn fn, void *state);

/* ---- loading ---- */

/// Severity of a report.
typedef enum pf_scene_severity {
    PF_SCENE_NOTE = 0,   ///< e.g. a visual-only component skipped
    PF_SCENE_WARNING = 1 ///< e.g. an attribute accepted but ignored
} pf_scene_severity;

/// Receives notes and warnings; `message` is already formatted as "file:line: warning: ..." (or "note").
typedef void (*pf_scene_report_fn)(pf_scene_severity severity, const char *message, void *ctx);

/// How to load. Get defaults from pf_scene_default_load_def().
typedef struct pf_scene_load_def {
    const pf_scene_registry *registry; ///< components; NULL (default): the built-in ones
    pf_world_def world;                ///< the world's settings: its runtime (world.runtime.workers, ...) and
                                       ///< max_speed; the scene's root Node sets dt and gravity; default
                                       ///< pf_world_default_def()
    double dt;                         ///< s; > 0 overrides the scene's dt; default 0 (keep the scene's)
    int override_broadphase;           ///< 1: `broadphase` replaces the scene's broad phase; 0 (default):
                                       ///< keep the scene's and ignore `broadphase`
    pf_broadphase_method broadphase;   ///< with override_broadphase: the broad phase (not PF_BP_KD_RAW);
                                       ///< default PF_BP_KD
    pf_scene_report_fn report;         ///< notes and warnings; NULL (default): written to stderr, one per line
    void *report_ctx;                  ///< passed to `report`
    int strict;                        ///< 1: an attribute no component knows is an error (PF_EPARSE); 0
                                       ///< (default): a warning with file:line, and the load goes on (as SOFA)
    const char *data_path;             ///< folders, ':' separated, where a relative file name (mesh, include)
                                       ///< not found beside the scene is looked up in turn, then those of the
                                       ///< environment variable PHYSFLOW_DATA_PATH (SOFA's data path); NULL
                                       ///< (default): only the environment's; read only during the call
} pf_scene_load_def;

PF_API pf_scene_load_def pf_scene_default_load_def(void);

typedef struct pf_scene pf_scene;

/// Loads a scene file: parses and validates everything, then creates the world. On failure nothing is left
/// (no world) and pf_last_error() says "file:line: message". A relative file name (a mesh, an <include>) is
/// looked up beside the scene file, then in each folder of def->data_path and of PHYSFLOW_DATA_PATH. The caller owns *out and frees it with pf_scene_destroy (which destroys the world too,
/// unless pf_scene_release_world took it); *def, its registry and report_ctx are used only during the call,
/// but def->world.runtime.tasks.user_ctx must outlive the world.
PF_API int pf_scene_load_file(const pf_scene_load_def *def, const char *path, pf_scene **out);
/// Same from memory: `name` labels messages; relative mesh files resolve against `dir` (NULL: the current
/// directory). `text` is read only during the call; ownership as pf_scene_load_file.
PF_API int pf_scene_load_memory(const pf_scene_load_def *def, const char *name, const char *text, size_t length,
                                const char *dir, pf_scene **out);
/// Loads a scene built into the library (see pf_scene_builtin_names); PF_EINVAL for an unknown name.
/// Ownership as pf_scene_load_file.
PF_API int pf_scene_load_builtin(const pf_scene_load_def *def, const char *name, pf_scene **out);
/// The built-in scene `name`'s XML text (NULL when unknown) and its length in *length (may be NULL).
PF_API const char *pf_scene_builtin(const char *name, size_t *length);
/// Names of the built-in scenes, comma separated ("bars64, springgrid128, ...").
PF_API const char *pf_scene_builtin_names(void);
PF_API void pf_scene_destroy(pf_scene *s);

/// The loaded world (owned by the scene: destroyed with it).
PF_API pf_world *pf_scene_world(pf_scene *s);
/// Destroys the scene but keeps its world, which the caller then owns (pf_world_destroy); for hosts that need
/// only the world. NULL when s is NULL, and NULL with PF_ESTATE in pf_last_error() when its components registered
/// destructors (pf_scene_component_on_destroy): the scene is then left as it was, still the caller's.
PF_API pf_world *pf_scene_release_world(pf_scene *s);
/// Scene-level collision settings (given to pf_world_set_collision when `enabled`).
PF_API const pf_scene_collision *pf_scene_collision_settings(const pf_scene *s);
/// The collision models: *out receives an array of the returned count, owned by the scene.
PF_API uint32_t pf_scene_collision_models(const pf_scene *s, const pf_scene_collision_model **out);
/// Id of the object of the node with path `path` ("/" separated node names from the root's children, e.g.
/// "bar_0_1_2" or "group/tile"); PF_EINVAL when no such node or it has no object.
PF_API int pf_scene_find_object(const pf_scene *s, const char *path, pf_object_id *out);

/// What a scene holds.
typedef struct pf_scene_summary {
    uint32_t nodes;            ///< Node elements, replicated copies counted
    uint32_t objects;          ///< objects (MechanicalObjects) created
    uint64_t points;           ///< points over all objects
    uint32_t force_fields;     ///< force-field components (FEM, spring fields), interaction ones included
    uint64_t springs;          ///< springs added by the spring force fields
    uint32_t constraints;      ///< constraint components
    uint64_t fixed_points;     ///< points fixed by them (a point fixed twice counts twice)
    uint32_t collision_models; ///< collision models
    uint32_t surfaces;         ///< surfaces made for them (one per node with collision models)
    double dt;                 ///< s, the time step in use
    double gravity[3];         ///< m/s²
} pf_scene_summary;
PF_API int pf_scene_get_summary(const pf_scene *s, pf_scene_summary *out);

/// What the loader did with one kind of component (one element name) of a scene: `physflow check`'s table.
typedef struct pf_scene_kind {
    const char *type;      ///< the element name as written ("MeshOBJLoader", "Node")
    uint32_t count;        ///< elements of that name in the scene files (a replicated element counts once)
    uint32_t skipped;      ///< of them, skipped: visual only, drawing or logging
    uint32_t warnings;     ///< warnings reported about them (ignored or unknown attributes, approximations)
    const char *mapped_to; ///< what PhysFlow made of them, comma separated ("object", "topology", "force field",
                           ///< "constraint", "collision model", ...; "no effect" when accepted for nothing; ""
                           ///< when all were skipped)
} pf_scene_kind;
/// The kinds of component of a loaded scene, in the order first met: *out receives an array of the returned
/// count, owned by the scene. 0 (and *out NULL) for a NULL scene.
PF_API uint32_t pf_scene_kinds(const pf_scene *s, const pf_scene_kind **out);

#ifdef __cplusplus
}
#endif
#endif
