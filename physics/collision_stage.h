/* The collision stage of a step (collision_stage.c) and the data it shares with collide.c (finding the step's
 * proximities) and contacts.c (the contact force field they become). */
#ifndef PF_PHYSICS_COLLISION_STAGE_H
#define PF_PHYSICS_COLLISION_STAGE_H

#include "surface.h"

#include "base/vec.h"
#include "physflow/collision.h"
#include "physflow/query.h"

#include <stdatomic.h>

enum { CAND_TRIANGLE = 0, CAND_SPHERE = 1, CAND_EDGE = 2 };

/* A proximity found this step: a vertex (a point or a sphere) against a triangle or another sphere, or (CAND_EDGE)
 * a line feature against another: an edge's inner point or a vertex, numbered as pf_surface_line_point reads them
 * (edge e < ne, vertex v as ne + v), which makes the pair of features the contact's identity. */
typedef struct candidate {
    uint32_t pobj, tobj;   /* objects of the vertex and of the other feature */
    uint32_t psurf, pvert; /* the vertex: surface index, vertex (CAND_EDGE: line feature) */
    uint32_t kind;         /* CAND_TRIANGLE, CAND_SPHERE or CAND_EDGE */
    uint32_t tsurf, telem; /* the other feature: surface index, triangle or vertex (CAND_EDGE: line feature) */
    double bary[3];        /* triangle: barycentric coordinates of its closest point; CAND_EDGE: the parameters
                            * of the closest points on the two edges, bary[0] on pvert's, bary[1] on telem's */
    double n[3];           /* from the other feature towards the vertex (CAND_EDGE: towards pvert's point) */
    double offset;         /* radii between the two points */
    double dist;           /* the gap between the surfaces, unsigned */
    /* triangle: its unit normal (counter-clockwise), the vertex's signed distance to its plane, and whether its
     * surface is closed (then the contact is one-sided, along that normal) */
    double nf[3];
    double plane;
    uint32_t closed;
    double lateral; /* triangle: how far the vertex's projection on its plane falls outside it (0: over it) */
    int32_t side; /* triangle: the side the vertex keeps, +1 in front, -1 behind (collide.c, recall) */
    int32_t remembered; /* the previous pass had this contact: delta is its tangential spring */
    double delta[3];    /* the tangential spring (contacts.c), as the vertex's displacement from the other feature */
    /* which of a vertex's triangles of one object becomes its contact: the lowest rank. First the triangle of its
     * contact at the previous pass while the vertex is still over it (rank[0] = 0; collide.c, keep_share), then,
     * open surface: {1, gap, 0}, the nearest; closed: {1, lateral, -plane}, where lateral is how far the vertex's
     * projection on the plane falls outside the triangle: a triangle the vertex is over first, and of those the
     * one it is farthest in front of (least deep behind) - for a convex solid, the face of its signed distance. */
    double rank[3];
} candidate;

/* A vertex–triangle contact measured along the face's normal (side · nf) rather than between the closest points:
 * against a closed surface always, against an open one once the vertex is past the side it keeps. */
static inline int pf_candidate_on_face(const candidate *d)
{
    return d->kind == CAND_TRIANGLE && d->side && (d->closed || d->side * d->plane < 0);
}

/* What a pass remembers of a contact for the next (collide.c: keep_share, recall; pf_collide_remember): the
 * vertex, the other feature (a triangle: its surface and, for keep_share, the triangle, since the vertex may
 * slide onto its neighbours; a sphere: its surface and vertex), the side of a triangle the vertex keeps, and the
 * tangential spring of its friction. Part of a checkpoint. */
typedef struct contact_memory {
    uint32_t kind, psurf, pvert, tsurf, telem;
    int32_t side;
    double delta[3];
} contact_memory;

/* Per surface, rebuilt each step: its bounds and, when some other surface comes near, an index of its
 * triangles (and of its spheres, and of its edges) that the other's vertices (edges) query. */
typedef struct surface_cache {
    pf_aabb bounds;           /* of its vertices, grown by its radius */
    double vmean[3], spread;  /* its vertices' mean velocity and how far one is from it at most (m/s) */
    pf_query_index *tri, *sph, *edge; /* built lazily, once per pass */
    uint64_t tri_pass, sph_pass, edge_pass;
    int tri_body;             /* tri holds a rigid surface's triangles in its body frame: built once, kept */
    PF_VEC(double) built[3];  /* per JOB_* index: the vertex positions it was built at, its boxes grown by */
    double slack[3];          /* slack[kind]; kept while no vertex has moved farther (collide.c, surface_index) */
    PF_VEC(pf_aabb) boxes;      /* scratch for building an index */
    uint8_t need;               /* bit per JOB_* index some job of this pass queries (collide.c, plan_jobs) */
    uint32_t first_slice;       /* its vertices' slices in pf_collision_stage.slices, this pass (surface_bounds) */
    _Atomic uint32_t slices_left; /* of them not bounded yet: the worker that bounds the last merges them */
    _Atomic uint32_t index_done, index_waiters; /* the pass its indexes were made ready at (collide.c, narrow_worker) */
} surface_cache;

/* One thread's share of the narrow phase: its query buffer and the proximities it found. */
typedef struct collide_lane {
    pf_id_buffer *ids;
    PF_VEC(candidate) cand;
    PF_VEC(candidate) kept; /* its share of the previous pass's contacts kept (collide.c, keep_share) */
    uint64_t examined;
    uint64_t culled; /* of the examined vertex-triangle pairs: those beyond reach by their boxes (collide.c) */
    int rc, keep_rc; /* of its jobs, of its share kept */
    int sorted;      /* its finds are in cand_order (collide.c, sort_lane) */
} collide_lane;

enum { JOB_TRIANGLES = 0, JOB_SPHERES = 1, JOB_EDGES = 2 };

/* A unit of narrow-phase work: the vertices of surface a against the triangles (or the spheres) of surface b, or
 * the edges of a against those of b; a == b: a surface against itself (self-collision), in slices of its
 * vertices (edges) so that one large surface still spreads over the workers. */
typedef struct collide_job {
    uint32_t a, b;
    int kind;        /* JOB_* */
    uint32_t lo, hi; /* a's vertices (JOB_EDGES: edges) lo .. hi - 1; hi is clamped to their count */
    double reach; /* how far apart features may be to become contacts: the alarm distance, or farther for a pair
                     that approaches faster than the rule allows (collide.c, plan_jobs) */
    uint64_t cost; /* ns it took at this pass (the next pass takes the costliest jobs first: collide.c, order_jobs) */
} collide_job;

/* A job's place in the order the workers take the jobs in: its cost at the previous pass (collide.c). */
typedef struct collide_rank {
    uint64_t cost;
    uint32_t job;
} collide_rank;

/* A sorted run's head in the merge of the lanes' finds (collide.c, merge_runs). */
typedef struct run_head {
    const candidate *at, *end;
    int run;
} run_head;

/* Vertices lo .. hi - 1 of a surface: their positions and velocities mapped, and their bounds, by one worker. */
typedef struct surface_slice {
    uint32_t surf, lo, hi;
    pf_aabb bounds;
} surface_slice;

/* Contacts lo .. hi - 1 of c->cand, of the field whose contacts begin at c->cand.v[first]: set by one worker
 * (collision_stage.c). */
typedef struct contact_fill {
    pf_springset *field;
    size_t first, lo, hi;
} contact_fill;

typedef struct pf_collision_stage {
    pf_collision_def def;
    int threads;          /* of the narrow phase and the broad phases: the world's workers */
    pf_broadphase *bp;    /* spheres of one surface among themselves (particles) */
    pf_broadphase *outer; /* surfaces against surfaces */
    surface_cache *sc;
    uint32_t nsc;
    PF_VEC(pf_aabb) sboxes; /* per surface in `live`: bounds grown by the alarm distance */
    PF_VEC(uint32_t) live;  /* the surfaces the broad phase sees: all but those of removed objects */
    collide_lane *lanes;
    int nlanes;
    uint32_t index_spin; /* pause iterations a job waits for its index before it sleeps (collide.c) */
    PF_VEC(collide_job) jobs;
    PF_VEC(collide_job) last_jobs; /* the previous pass's jobs with their costs (collide.c, order_jobs) */
    PF_VEC(collide_rank) order;    /* the order the workers take this pass's jobs in, costliest first */
    PF_VEC(uint32_t) indexed; /* the surfaces whose indexes this pass's jobs query, each once (collide.c) */
    uint32_t job_slice;       /* vertices (edges) of a surface pair's job (collide.c, plan_jobs; tests lower it) */
    uint32_t part; /* finds of a part of the merge, contacts of a range of the fill (PF_MERGE_PART; tests lower it) */
    PF_VEC(surface_slice) slices; /* collide.c, surface_bounds: the surfaces' vertices in slices, this pass */
    PF_VEC(candidate) cand;
    PF_VEC(candidate) merged; /* the lanes' runs merged, before the repeats are dropped (collide.c, merge_runs) */
    PF_VEC(contact_memory) memory; /* the latest pass's vertex–triangle contacts, by surface, vertex, surface */
    PF_VEC(contact_memory) recent; /* the lanes' shares of the next memory, each sorted (pf_collide_remember) */
    PF_VEC(size_t) merge_at;       /* scratch of the merges (merge_runs, pf_collide_remember): kept, not per step */
    PF_VEC(run_head) merge_heads;
    pf_collision_stats stats;
    uint32_t fast_pairs; /* of the latest pass: pairs that broke the rule (collide.c) */
    uint64_t passes;
    double index_slack;   /* the surfaces' indexes: boxes grown by this many alarm distances (collide.c) */
    int exact_all; /* tests: every triangle a query gives goes to the exact test, in id order (collide.c) */
    _Atomic uint64_t index_builds; /* indexes built so far (tests: how often one was kept) */
    pf_contact_fn callback;
    void *callback_ctx;
    PF_VEC(pf_world_contact) report; /* the callback's view of the contacts */
    PF_VEC(contact_fill) fills;      /* this pass's contacts in ranges, field by field (collision_stage.c) */
} pf_collision_stage;

/* The collision stage of a step: proximities found (collide.c), then per object pair in contact one contact
 * force field, created when the objects start touching, updated in place, removed when they stop. */
int pf_collision_stage_run(pf_world *w);
void pf_collision_stage_free(pf_collision_stage *c);
/* object `id` is being removed (removal.c): its contact fields go (w->dropped must have room for them: nothing
 * here fails), and so do its surfaces' indexes and every contact memory naming one of its surfaces */
void pf_collision_stage_remove_object(pf_world *w, uint32_t id);

#endif
