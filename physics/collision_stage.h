/* The collision stage of a step (collision_stage.c) and the data it shares with collide.c (finding the step's
 * proximities) and contacts.c (the contact force field they become). */
#ifndef PF_PHYSICS_COLLISION_STAGE_H
#define PF_PHYSICS_COLLISION_STAGE_H

#include "surface.h"

#include "base/vec.h"
#include "physflow/collision.h"
#include "physflow/query.h"

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
    double dist;
} candidate;

/* Per surface, rebuilt each step: its bounds and, when some other surface comes near, an index of its
 * triangles (and of its spheres, and of its edges) that the other's vertices (edges) query. */
typedef struct surface_cache {
    pf_aabb bounds;           /* of its vertices, grown by its radius */
    pf_query_index *tri, *sph, *edge; /* built lazily, once per pass */
    uint64_t tri_pass, sph_pass, edge_pass;
    PF_VEC(pf_aabb) boxes;      /* scratch for building an index */
} surface_cache;

/* One thread's share of the narrow phase: its query buffer and the proximities it found. */
typedef struct collide_lane {
    pf_id_buffer *ids;
    PF_VEC(candidate) cand;
    uint64_t examined;
    int rc;
} collide_lane;

enum { JOB_TRIANGLES = 0, JOB_SPHERES = 1, JOB_EDGES = 2 };

/* A unit of narrow-phase work: the vertices of surface a against the triangles (or the spheres) of surface b, or
 * the edges of a against those of b; a == b: a surface against itself (self-collision), in slices of its
 * vertices (edges) so that one large surface still spreads over the workers. */
typedef struct collide_job {
    uint32_t a, b;
    int kind;        /* JOB_* */
    uint32_t lo, hi; /* a's vertices (JOB_EDGES: edges) lo .. hi - 1; hi is clamped to their count */
} collide_job;

typedef struct pf_collision_stage {
    pf_collision_def def;
    int threads;          /* of the narrow phase and the broad phases: the world's workers */
    pf_broadphase *bp;    /* spheres of one surface among themselves (particles) */
    pf_broadphase *outer; /* surfaces against surfaces */
    surface_cache *sc;
    uint32_t nsc;
    PF_VEC(pf_aabb) sboxes; /* per surface: bounds grown by the alarm distance */
    collide_lane *lanes;
    int nlanes;
    PF_VEC(collide_job) jobs;
    PF_VEC(candidate) cand;
    pf_collision_stats stats;
    uint64_t passes;
    pf_contact_fn callback;
    void *callback_ctx;
    PF_VEC(pf_world_contact) report; /* the callback's view of the contacts */
} pf_collision_stage;

/* The collision stage of a step: proximities found (collide.c), then per object pair in contact one contact
 * force field, created when the objects start touching, updated in place, removed when they stop. */
int pf_collision_stage_run(pf_world *w);
void pf_collision_stage_free(pf_collision_stage *c);

#endif
