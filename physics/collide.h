/* Finding a step's proximities (collide.c). */
#ifndef PF_PHYSICS_COLLIDE_H
#define PF_PHYSICS_COLLIDE_H

#include "collision_stage.h"

#include "physflow/narrowphase.h"

/* The surfaces' indexes grow their boxes by this many alarm distances and are kept while no vertex has moved that
 * far (collide.c, surface_index); pf_collision_stage.index_slack, 0 rebuilds them every pass. */
#define PF_INDEX_SLACK 0.5

/* The vertices (edges) of one narrow-phase job of a surface pair (pf_collision_stage.job_slice): a large surface
 * (10^5 particles beside a wall) spreads over the workers. A vertex far from the other surface costs one box test,
 * so a slice of them still costs far more than taking the job (one atomic increment). */
#define PF_JOB_SLICE 1024

/* The finds of a part of the merge of the lanes' runs (collide.c, merge_runs), the contacts of a range of a
 * field's fill (collision_stage.c) and of a share of the memory's sort (pf_collide_remember);
 * pf_collision_stage.part, which tests lower. A part costs a heap step and a copy per find (a contact: a mapped
 * point or two), far more than taking it. */
#define PF_MERGE_PART 512
/* The merge, the fill and the memory's sort go to the workers from this many parts on, and run on the caller below
 * it: a run of the workers costs microseconds on free cores but milliseconds on a loaded machine, where a worker
 * waits for a core (heterogeneous, 2,000 finds a step: 0.2-0.3 ms of this work, and 2 workers 3-5 ms slower per
 * step with these three runs added, at load average 9-12 on 2 cores). */
#define PF_PARALLEL_PARTS 16

/* This step's proximities into c->cand: sorted by object pair, vertex, kind, other object and distance, one
 * per vertex and object for triangles. *examined: the feature pairs the narrow phase tested. */
int pf_collide(pf_world *w, pf_collision_stage *c, uint64_t *examined);
void pf_collide_free(pf_collision_stage *c);
/* The memory of this pass's contacts (their sides and tangential springs, after the contact fields were filled),
 * for the next pass. */
int pf_collide_remember(pf_world *w, pf_collision_stage *c);
/* Items 0 .. n - 1 in chunks of `chunk`, taken one at a time by the world's workers (on the caller alone with one
 * lane, or when the runtime refuses): fn(ctx, lo, hi, lane) once per chunk, lane < c->nlanes the worker's. Each
 * chunk writes its own results (per item, or into its lane), so that which worker ran it never shows. */
void pf_collide_chunks(pf_world *w, const pf_collision_stage *c, size_t n, size_t chunk,
                       void (*fn)(void *ctx, size_t lo, size_t hi, int lane), void *ctx);
/* The world's broad-phase settings for `method`: their parallel parts on the world's worker team (the stage calls
 * the broad phases between graph runs only; a refused run falls back to the calling thread). */
pf_broadphase_def pf_collide_broadphase_def(pf_world *w, pf_broadphase_method method);
/* The box, in the body frame of a rigid body at state x (com, orientation), holding world box b rotated into that
 * frame, grown by a margin far above rounding: a rigid surface's triangles are indexed in that frame once, and
 * queried with it. */
pf_aabb pf_body_query_box(const double *x, const pf_aabb *b);
/* Edge e of surface S (index ps) against edge f of surface Q (qs; ps == qs: f shares no vertex with e), at the
 * surfaces' current positions (S->pos): 1 with *out, the contact of their closest features (collide_edges.c), 0
 * when they are not within the alarm distance or when a vertex–triangle contact covers them, < 0 on error. */
int pf_collide_edge_pair(const pf_surface *S, uint32_t ps, uint32_t e, const pf_surface *Q, uint32_t qs, uint32_t f,
                         const pf_proximity_def *pd, candidate *out);

#endif
