/* Private layout of the physics world: objects with their state vectors and force fields, interactions, solver
 * groups. Data only: each physics file declares its functions in its own header. */
#ifndef PF_PHYSICS_WORLD_H
#define PF_PHYSICS_WORLD_H

#include "base/vec.h"
#include "physflow/physics.h"

#include <stdint.h>

/* The phases in which an interaction produces per-spring outputs that its objects gather. */
enum { PF_PHASE_FORCE = 0, PF_PHASE_RHS, PF_PHASE_DF, PF_PHASES };

/* A set of springs, inside one object (oa == ob) or between two. `jac` caches, per spring, the symmetric 3x3
 * block K = df_a/dx_b (6 values: xx yy zz xy yz zx), computed with the forces and read by df (Baraff-Witkin §5).
 * An interaction (oa != ob) also has `out`: per phase, its per-spring results (3n for the a ends, 3n for the b
 * ends), data its two objects' tasks read and add in (pf_gather_links). */
struct pf_contactset;

typedef struct pf_springset {
    uint8_t kind;                   /* an interaction kind: its operations (interaction.h) */
    struct pf_contactset *contacts; /* PF_INTERACTION_CONTACTS: the penalty contact field's own state (contacts.c) */
    struct pf_jointset *joints;     /* PF_INTERACTION_JOINTS: the joint springs' definitions (joint_springs.c) */
    uint32_t oa, ob;
    uint32_t n;
    uint32_t uid; /* interactions: never reused within a world (pf_interaction_id) */
    pf_spring *s;
    double *jac;
    double *out;
    pf_data_id djac, dout[PF_PHASES];
    pf_data_id dmapped[2]; /* a kind that maps (interaction.h, map): per side, J p at its points, 3 per point */
    int registered; /* its data are registered in the world's graph */
} pf_springset;

/* An interaction seen from one of its objects: side 0 = the a ends, 1 = the b ends, 2 = both (a contact field
 * within one object). */
typedef struct pf_link {
    const pf_springset *s;
    int side;
} pf_link;

/* Hexahedral FEM: the cells of a regular grid, which all share one 24x24 stiffness `ke` (same box, same
 * material), or a list of hexahedra, each with its own stiffness in `kes`. */
typedef struct pf_hexa_fem {
    pf_fem_method method;
    uint32_t nelem;
    uint32_t *elem;  /* 8 point indices per element; corner k at (k&1, k>>1&1, k>>2&1) of its cube (fem_hexa.h) */
    double ke[576];  /* the grid's element stiffness (positive), rows/cols: corner*3 + axis */
    double *kes;     /* a list's: 576 per element; NULL on a grid (ke) */
    double *rest;    /* 24 per element: rest positions relative to corner 0, in the element's rest frame */
    double *rot;     /* 9 per element: current rotation (rows = element frame axes); identity when linear */
    pf_data_id drot;
} pf_hexa_fem;

/* A force field of one object: a kind (an index into pf_force_field_kinds, force_field.h) and the kind's own
 * state. A kind with a cache that df reads (a spring set's stiffness blocks, FEM rotations) registers it as
 * `dcache`: the force task writes it, the df tasks read it. */
typedef struct pf_force_field {
    uint8_t kind;
    uint32_t uid; /* never reused within a world (pf_force_field_id) */
    void *state;
    pf_data_id dcache;
    int registered; /* its cache is registered in the world's graph */
} pf_force_field;

/* A direction along which a point is held still (SOFA FixedPlaneProjectiveConstraint and its kin). */
typedef struct pf_held_direction {
    uint32_t point;
    double d[3]; /* unit */
} pf_held_direction;

/* What an object's points mean: deformable points, a rigid body (rigid.h: 2 points, linear and angular), or a
 * beam of rigid frames (beam.h: 2 points per frame, stepped by its own task). */
typedef enum pf_object_kind { PF_OBJECT_POINTS = 0, PF_OBJECT_RIGID = 1, PF_OBJECT_BEAM = 2 } pf_object_kind;

typedef struct pf_object {
    uint32_t id, n;
    pf_object_kind kind;
    uint32_t xextra; /* doubles in x after the 3n point values (a rigid's orientation, rigid.h) */
    int grid[3];
    double grid_min[3], grid_max[3]; /* the grid's rest box (trilinear surfaces locate their vertices in it) */
    double mass; /* per point, kg (a rigid: its total mass); when the points' masses differ, their mean */
    double *pmass; /* n masses, kg, when they differ (pf_object_def.point_masses); NULL: every point weighs `mass`.
                    * The uniform case keeps its own arithmetic (the golden hashes depend on it) */
    double inertia[9], inertia_inv[9]; /* a rigid: body-frame inertia tensor about the com (kg·m²), inverse */
    double rot_ref[4]; /* a rigid: its orientation (w, x, y, z) when point 1 got its first held direction (the
                        * rotation about those axes stays as it was then: rigid.c, hold_orientation) */
    pf_solver_def solver;
    /* state and solver work vectors, 3n each (Hermann et al. 2009, §3.1: the data of the task graph) */
    double *x, *v, *f, *dv, *b, *r, *p, *q;
    uint8_t *fixed;
    PF_VEC(uint32_t) fixed_list;
    PF_VEC(pf_held_direction) held; /* directions points may not move along (pf_world_fix_directions), sorted by
                                       point; a point's are orthonormal, at most 2 (3 make it a fixed point) */
    PF_VEC(pf_force_field) ff; /* its force fields, in kind order (force_field.h), each kind in the order added */
    double *x_prev, *v_prev; /* the state before the step's integration: restored after a numerical fault */
    double *xb, *vb; /* BDF2 (solver_bdf2.h): x and v one step back, 3n each (allocated when first recorded) */
    int bdf_history; /* BDF2: xb and vb hold the previous step's state (0 before the first step: backward Euler) */
    uint32_t fault;          /* 0, or 1 + the first point whose new state is not finite or too fast */
    /* set while recording */
    uint32_t group;
    int linked;        /* has interaction force fields */
    PF_VEC(pf_link) links; /* its interactions, in the world's interaction order */
    int registered;    /* its vectors are registered in the graph */
    int changed;       /* a force field or constraint was added since its group was recorded */
    pf_data_id dx, dv_, df, ddv, db, dr, dp, dq;
    /* domain decomposition (decompose.h) */
    pf_decompose decompose;
    uint32_t block_elements;
    struct pf_decomp *decomp; /* its blocks, built once it ran as blocks; NULL: never cut */
    struct pf_beam *beam;     /* a beam's elements, masses and solver scratch (beam.h); NULL otherwise */
    int decomp_refused;       /* its blocks had too many neighbours: it runs whole, said once */
    int in_blocks;            /* its group, as last recorded, runs it as the blocks of decomp */
} pf_object;

/* The points of an object some output adds into: those with owner[point] == block (the points a block of a
 * decomposed object owns, decompose.h), or every point when the filter pointer is NULL. */
typedef struct pf_point_filter {
    const uint32_t *owner;
    uint32_t block;
} pf_point_filter;

static inline int pf_point_kept(const pf_point_filter *keep, uint32_t point)
{
    return !keep || keep->owner[point] == keep->block;
}

typedef struct pf_group {
    uint32_t first;   /* lowest object id: the group's settings */
    uint32_t *objs, nobjs;
    pf_springset **inter; /* its interactions, in the world's order */
    uint32_t ninter;
    double *scal;     /* rr[3] = {r.r, tol^2 b.b, previous r.r}, pq[2] = {p.Ap, p.M'p}, rn[1]; each on its own
                         cache line */
    pf_loop_id loop;
    int implicit, has_loop;
    struct pf_direct *direct; /* the direct solver's state (solver_direct.c), when it solves the group */
    PF_VEC(pf_task_id) tasks; /* the tasks it recorded (loop bodies excepted: removing the loop removes them) */
} pf_group;

/* Where a solver records its tasks: record(ctx, def) adds one task to the step's graph. groups.c hands one to the
 * solvers so that it keeps the ids of a group's tasks (to remove them when the group changes) without the solvers
 * calling back into it. */
typedef struct pf_task_recorder {
    int (*record)(void *ctx, const pf_task_def *def);
    void *ctx;
} pf_task_recorder;

struct pf_world {
    pf_world_def def;
    pf_runtime *rt;
    pf_graph *g;
    PF_VEC(pf_object *) obj; /* by id; NULL: removed (pf_world_remove_object), its id never reused */
    PF_VEC(pf_springset *) inter; /* interactions in creation order (removal keeps the order of the others) */
    uint32_t next_uid;
    PF_VEC(pf_springset *) dropped; /* removed interactions, freed once the graph no longer names them */
    uint32_t next_ff_uid;           /* force fields' uids handed out (pf_force_field_id) */
    PF_VEC(pf_force_field) dropped_ff; /* removed force fields, freed likewise */
    PF_VEC(pf_object *) dropped_obj;   /* removed objects, freed likewise */
    pf_group *groups;
    uint32_t ngroups;
    PF_VEC(double *) retired; /* CG scalars of groups removed from the graph, freed once it has been re-analysed */
    PF_VEC(struct pf_surface *) surf; /* surfaces carried by objects (surface.h); they add no task to the step */
    struct pf_collision_stage *col; /* collision_stage.h; NULL until pf_world_set_collision */
    int dirty;
    int stepping; /* pf_world_step is running: its callbacks may not change or step the world */
    pf_step_hook step_hook; /* called at each step's start (pf_world_set_step_hook), with step_hook_ctx */
    void *step_hook_ctx;
    int in_hook; /* the step hook is running: it may change the world, not step it */
    double time; /* s: the sum of the dt of the steps run, as SOFA's clock adds them */
    uint32_t tasks, records;
    uint64_t graph_tasks; /* tasks recorded into the current graph, removed ones included (groups.c) */
    uint64_t steps;
    uint64_t cg_solves, cg_stalled, cg_unconverged; /* implicit groups' CG outcomes over the steps run */
    pf_world_update last_update; /* the latest structural update */
    pf_run_stats dropped_runs;   /* repartition totals of the graphs dropped and recorded afresh (groups.c) */
    uint32_t updates;            /* structural updates so far (the first recording included) */
    int direct_noted;            /* said once that a group asking for the direct solver is solved by CG */
    PF_VEC(struct pf_decomp *) old_decomps; /* objects' blocks replaced, freed once the graph no longer names them */
    PF_VEC(struct pf_attachment *) attach; /* points following other objects' points (attach.h), in the order added */
    PF_VEC(pf_task_id) attach_tasks;        /* their tasks in the graph, recorded after every group's */
    int attach_changed;                     /* an attachment was added or dropped since they were recorded */
};

#endif
