/* The implicit and static solvers (solver_implicit.c) on an object cut into blocks (decompose.h, Hermann et al.
 * 2009 §4.3). The system, the CG and its stopping tests are those of solver_implicit.c; what changes is who does
 * the work: every phase that was one task of the object is one task per block.
 *
 *   force_b:      the block's elements' forces at (x, v) into its rows of the force part buffer (and their caches)
 *   stiff_b:      the block's elements' bfact K v into its rows of the stiffness part buffer
 *   rhs_b:        for its points, f = m g + the rows that touch them, b = h f - h rM m v + the K v rows,
 *                 projected; the CG start (dv = 0, r = b, p = 0) and r.r into the group's reducer
 *   the CG loop:  dir_b (p = r + beta p on its points), kp_b (kfact K p of its elements into its stiffness
 *                 rows, reading its neighbours' p), q_b (q = mfact m p + the rows, projected; p.q and p.M'p into
 *                 the reducer), update_b (dv, r, r.r), then the group's one "cg next"
 *   integrate_b:  v += dv, projected, x += h v on its points (static: x += dx, v = 0), with the fault check
 *
 * Sums over the rows that touch a point run in block order, and each block's dot products over its points in
 * point order, folded by the reducers in block order: the canonical order of decompose.h, whatever the workers. */
#include "solver_blocks.h"

#include "force_field.h"
#include "interaction.h"
#include "objects.h"
#include "cg_scalars.h"

#include "base/error.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

typedef struct blk_args {
    pf_object *o;
    const pf_decomp *d;
    pf_block *b;
    double h, mfact, kfact, bfact, rm, max_speed, g[3];
    int statik;
    uint32_t links_at; /* an object with interactions: where its links' outputs start in the task's data */
} blk_args;

static const pf_force_field_ops *ops(const pf_force_field *ff)
{
    return pf_force_field_kinds[ff->kind];
}

static void zero_rows(double *part, const pf_block *b)
{
    memset(part + 3 * (size_t)b->row0, 0, 3 * (size_t)b->nrows * sizeof *part);
}

/* out (3 values, holding the point's own term) += the rows that touch point i, in block order */
static inline void gather(const pf_decomp *d, const double *part, uint32_t i, double *out)
{
    for (uint32_t j = d->gptr[i]; j < d->gptr[i + 1]; j++) {
        const double *row = part + 3 * (size_t)d->grow[j];
        out[0] += row[0];
        out[1] += row[1];
        out[2] += row[2];
    }
}

/* fixed points to 0, then the held directions projected out: per point, in the order of the whole object's */
static inline void project_point(const pf_object *o, uint32_t i, double *vec)
{
    if (o->fixed[i]) vec[3 * (size_t)i] = vec[3 * (size_t)i + 1] = vec[3 * (size_t)i + 2] = 0;
    if (o->held.n) pf_project_point_directions(o, i, vec);
}

static inline double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* ---- the tasks (data as recorded below; they reach the vectors through the object, their data are views) ---- */

static void t_force(const pf_task_ctx *c)
{
    const blk_args *a = c->args;
    const pf_object *o = a->o;
    zero_rows(a->d->pf, a->b);
    for (uint32_t f = 0; f < a->d->nfields; f++)
        if (a->b->range[f].n)
            ops(&o->ff.v[f])->force_range(&o->ff.v[f], o, o->x, o->v, a->d->pf, 1, &a->b->range[f]);
}

/* the block's fact K vec into its stiffness rows */
static void stiffness(const blk_args *a, const double *vec, double fact)
{
    const pf_object *o = a->o;
    zero_rows(a->d->pk, a->b);
    for (uint32_t f = 0; f < a->d->nfields; f++)
        if (a->b->range[f].n && ops(&o->ff.v[f])->dforce_range)
            ops(&o->ff.v[f])->dforce_range(&o->ff.v[f], o, vec, a->d->pk, fact, &a->b->range[f]);
}

/* beta = r.r / previous r.r (0 at the first iteration) */
static inline double cg_beta(const double *rr)
{
    return rr[2] > 0 ? rr[0] / rr[2] : 0.0;
}

static void t_stiff_v(const pf_task_ctx *c)
{
    const blk_args *a = c->args;
    stiffness(a, a->o->v, a->bfact);
}

static void t_kp(const pf_task_ctx *c)
{
    const blk_args *a = c->args;
    stiffness(a, a->o->p, a->kfact);
}

/* p = r + beta p on the block's points. data: rr */
static void t_dir(const pf_task_ctx *c)
{
    const blk_args *a = c->args;
    pf_object *o = a->o;
    double beta = cg_beta(c->data[0]);
    for (uint32_t j = 0; j < a->b->nruns; j++)
        for (size_t i = 3 * (size_t)a->b->runs[2 * j]; i < 3 * (size_t)a->b->runs[2 * j + 1]; i++)
            o->p[i] = o->r[i] + beta * o->p[i];
}

/* the CG start at point i: b projected, dv = 0, r = b, p = 0; returns its b.b */
static inline double cg_start_point(pf_object *o, uint32_t i)
{
    size_t i3 = 3 * (size_t)i;
    project_point(o, i, o->b);
    for (int dim = 0; dim < 3; dim++) {
        o->dv[i3 + dim] = 0;
        o->r[i3 + dim] = o->b[i3 + dim];
        o->p[i3 + dim] = 0;
    }
    return dot3(o->b + i3, o->b + i3);
}

/* the points of a's block, for the gathers of the object's links */
static pf_point_filter kept(const blk_args *a)
{
    return (pf_point_filter){a->d->owner, (uint32_t)(a->b - a->d->b)};
}

/* t_rhs of an object with interactions: f = m g + the rows + the links' forces, b = h f - h rM m v + the K v rows
 * + the links' rhs terms, then the CG start; the links' outputs are gathered over whole lists, so each sum runs
 * as its own pass. data: as t_rhs, then the links' force outputs, then their rhs outputs */
static void rhs_linked(const pf_task_ctx *c)
{
    const blk_args *a = c->args;
    pf_object *o = a->o;
    const pf_decomp *d = a->d;
    pf_point_filter keep = kept(a);
    double *rr = c->data[1], s = 0;
    for (uint32_t k = 0; k < a->b->nowned; k++) {
        uint32_t i = a->b->owned[k];
        double m = pf_point_mass(o, i);
        for (int dim = 0; dim < 3; dim++) o->f[3 * (size_t)i + dim] = m * a->g[dim];
        gather(d, d->pf, i, o->f + 3 * (size_t)i);
    }
    pf_gather_links(o, c->data + a->links_at, o->f, &keep);
    for (uint32_t k = 0; k < a->b->nowned; k++) {
        uint32_t i = a->b->owned[k];
        size_t i3 = 3 * (size_t)i;
        double hm = a->h * a->rm * pf_point_mass(o, i);
        for (int dim = 0; dim < 3; dim++) o->b[i3 + dim] = a->h * o->f[i3 + dim] - hm * o->v[i3 + dim];
        gather(d, d->pk, i, o->b + i3);
    }
    pf_gather_links(o, c->data + a->links_at + o->links.n, o->b, &keep);
    for (uint32_t k = 0; k < a->b->nowned; k++) s += cg_start_point(o, a->b->owned[k]);
    rr[0] += s;
}

/* data: f, rr (cumulative), ... */
static void t_rhs(const pf_task_ctx *c)
{
    const blk_args *a = c->args;
    if (a->links_at) {
        rhs_linked(c);
        return;
    }
    pf_object *o = a->o;
    const pf_decomp *d = a->d;
    double *rr = c->data[1], s = 0;
    for (uint32_t k = 0; k < a->b->nowned; k++) {
        uint32_t i = a->b->owned[k];
        size_t i3 = 3 * (size_t)i;
        double m = pf_point_mass(o, i), hm = a->h * a->rm * m;
        for (int dim = 0; dim < 3; dim++) o->f[i3 + dim] = m * a->g[dim];
        gather(d, d->pf, i, o->f + i3);
        for (int dim = 0; dim < 3; dim++) o->b[i3 + dim] = a->h * o->f[i3 + dim] - hm * o->v[i3 + dim];
        gather(d, d->pk, i, o->b + i3);
        s += cg_start_point(o, i);
    }
    rr[0] += s;
}

/* q = M' p + the stiffness rows (+ the links' df terms), projected; pq += {p.q, p.M'p}. data: q, pq
 * (cumulative), ..., then the links' df outputs */
static void t_q(const pf_task_ctx *c)
{
    const blk_args *a = c->args;
    pf_object *o = a->o;
    const pf_decomp *d = a->d;
    double *pq = c->data[1], pqs = 0, pms = 0;
    if (a->links_at) { /* the links' terms over whole lists: the sums first, as a pass of their own */
        pf_point_filter keep = kept(a);
        for (uint32_t k = 0; k < a->b->nowned; k++) {
            uint32_t i = a->b->owned[k];
            double mm = a->mfact * pf_point_mass(o, i);
            for (int dim = 0; dim < 3; dim++) o->q[3 * (size_t)i + dim] = mm * o->p[3 * (size_t)i + dim];
            gather(d, d->pk, i, o->q + 3 * (size_t)i);
        }
        pf_gather_links(o, c->data + a->links_at, o->q, &keep);
    }
    for (uint32_t k = 0; k < a->b->nowned; k++) {
        uint32_t i = a->b->owned[k];
        size_t i3 = 3 * (size_t)i;
        double mm = a->mfact * pf_point_mass(o, i);
        if (!a->links_at) {
            for (int dim = 0; dim < 3; dim++) o->q[i3 + dim] = mm * o->p[i3 + dim];
            gather(d, d->pk, i, o->q + i3);
        }
        project_point(o, i, o->q);
        pqs += dot3(o->p + i3, o->q + i3);
        if (o->pmass) pms += mm * dot3(o->p + i3, o->p + i3);
        else pms += dot3(o->p + i3, o->p + i3);
    }
    pq[0] += pqs;
    pq[1] += o->pmass ? pms : a->mfact * o->mass * pms;
}

/* alpha = rr / pq, dv += alpha p, r -= alpha q, rn += r.r. data: dv, r, rr, pq, rn (cumulative), p, q */
static void t_update(const pf_task_ctx *c)
{
    const blk_args *a = c->args;
    pf_object *o = a->o;
    double alpha = ((const double *)c->data[2])[0] / *(const double *)c->data[3], s = 0;
    for (uint32_t j = 0; j < a->b->nruns; j++) /* the points in increasing order, as owned */
        for (size_t i = 3 * (size_t)a->b->runs[2 * j]; i < 3 * (size_t)a->b->runs[2 * j + 1]; i++) {
            o->dv[i] += alpha * o->p[i];
            o->r[i] -= alpha * o->q[i];
            s += o->r[i] * o->r[i];
        }
    *(double *)c->data[4] += s;
}

/* 1 + the block's first point whose new state is not finite or too fast, else 0 (as pf_state_check) */
static uint32_t first_bad(const pf_object *o, const pf_block *b, double max_speed)
{
    double m2 = max_speed * max_speed;
    for (uint32_t k = 0; k < b->nowned; k++) {
        const double *p = o->x + 3 * (size_t)b->owned[k], *u = o->v + 3 * (size_t)b->owned[k];
        if (!(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]) && dot3(u, u) <= m2)) return b->owned[k] + 1;
    }
    return 0;
}

static void t_integrate(const pf_task_ctx *c)
{
    const blk_args *a = c->args;
    pf_object *o = a->o;
    for (uint32_t j = 0; j < a->b->nruns; j++) { /* the state the fault check restores */
        size_t i3 = 3 * (size_t)a->b->runs[2 * j], n3 = 3 * (size_t)a->b->runs[2 * j + 1] - i3;
        memcpy(o->x_prev + i3, o->x + i3, n3 * sizeof *o->x);
        memcpy(o->v_prev + i3, o->v + i3, n3 * sizeof *o->v);
    }
    for (uint32_t k = 0; k < a->b->nowned; k++) {
        uint32_t i = a->b->owned[k];
        size_t i3 = 3 * (size_t)i;
        if (a->statik) { /* x += dx (the solution, in dv), v = 0 */
            for (int dim = 0; dim < 3; dim++) {
                if (!o->fixed[i]) o->x[i3 + dim] += o->dv[i3 + dim];
                o->v[i3 + dim] = 0;
            }
            continue;
        }
        for (int dim = 0; dim < 3; dim++) o->v[i3 + dim] += o->dv[i3 + dim];
        project_point(o, i, o->v);
        for (int dim = 0; dim < 3; dim++) o->x[i3 + dim] += a->h * o->v[i3 + dim];
    }
    a->b->fault = first_bad(o, a->b, a->max_speed);
}

/* ---- recording ---- */

#define TRY(call)                                                                                            \
    do {                                                                                                     \
        int rc_ = (call);                                                                                    \
        if (rc_ != PF_OK) return rc_;                                                                        \
    } while (0)

/* an access to the datum `member` (an offsetof in pf_block) of each listed block */
static void add_blocks(pf_access *acc, uint32_t *na, const pf_decomp *d, const uint32_t *list, uint32_t n,
                       size_t member, pf_access_mode mode)
{
    for (uint32_t j = 0; j < n; j++)
        acc[(*na)++] = (pf_access){*(const pf_data_id *)((const char *)&d->b[list[j]] + member), mode};
}

/* the block's parts of its fields' caches (written by its force task, read by its stiffness tasks) */
static void add_caches(pf_access *acc, uint32_t *na, const pf_object *o, const pf_block *b, pf_access_mode mode)
{
    for (uint32_t f = 0; f < o->ff.n; f++)
        if (b->range[f].n && ops(&o->ff.v[f])->register_range) acc[(*na)++] = (pf_access){b->dcache[f], mode};
}

typedef struct recording {
    pf_world *w;
    const pf_task_recorder *rec;
    const pf_decomp *d;
    blk_args base;
    double force_ns, df_ns; /* the whole object's estimated costs, shared out by elements */
} recording;

/* the share of the object's elements in block b */
static double share(const recording *r, const pf_block *b)
{
    uint32_t n = 0;
    for (uint32_t f = 0; f < r->d->nfields; f++) n += b->range[f].n;
    return (double)n / r->d->elements;
}

static int record_at(const recording *r, pf_task_fn fn, const char *name, pf_block *b, const pf_access *acc,
                     uint32_t na, double cost, uint32_t links_at)
{
    blk_args args = r->base;
    args.b = b;
    args.links_at = links_at;
    return r->rec->record(r->rec->ctx, &(pf_task_def){fn, name, &args, sizeof args, acc, na, cost});
}

static int record(const recording *r, pf_task_fn fn, const char *name, pf_block *b, const pf_access *acc,
                  uint32_t na, double cost)
{
    return record_at(r, fn, name, b, acc, na, cost, 0);
}

#define PF_BLK_ACC(m) offsetof(pf_block, m)

/* per block, the tasks of each phase */

static int record_force(const recording *r, const pf_block_solve *s, pf_block *k)
{
    (void)s;
    const pf_decomp *d = r->d;
    pf_access acc[PF_MAX_ACCESSES];
    uint32_t na = 0;
    acc[na++] = (pf_access){k->dpf, PF_WRITE};
    add_blocks(acc, &na, d, k->nbr, k->nnbr, PF_BLK_ACC(dx), PF_READ);
    if (d->reads_v) add_blocks(acc, &na, d, k->nbr, k->nnbr, PF_BLK_ACC(dv_), PF_READ);
    add_caches(acc, &na, r->base.o, k, PF_WRITE);
    TRY(record(r, t_force, "block force", k, acc, na, r->force_ns * share(r, k)));
    na = 0;
    acc[na++] = (pf_access){k->dpk, PF_WRITE};
    add_blocks(acc, &na, d, k->nbr, k->nnbr, PF_BLK_ACC(dv_), PF_READ);
    add_caches(acc, &na, r->base.o, k, PF_READ);
    return record(r, t_stiff_v, "block rhs stiffness", k, acc, na, r->df_ns * share(r, k));
}

static int record_rhs(const recording *r, const pf_block_solve *s, pf_block *k)
{
    /* the block's own datum written first: the runtime takes a task's object from its first written datum, and
     * the group's reducers belong to its first object */
    pf_access acc[PF_MAX_ACCESSES] = {{k->df, PF_WRITE}, {s->drr, PF_CUMUL}, {k->db, PF_WRITE}, {k->ddv, PF_WRITE},
                                      {k->dr, PF_WRITE}, {k->dp, PF_WRITE},  {k->dv_, PF_READ}};
    uint32_t na = 7;
    add_blocks(acc, &na, r->d, k->src, k->nsrc, PF_BLK_ACC(dpf), PF_READ);
    add_blocks(acc, &na, r->d, k->src, k->nsrc, PF_BLK_ACC(dpk), PF_READ);
    uint32_t links_at = 0;
    if (r->base.o->linked) { /* the links' force and rhs outputs (pf_record_blocks_fit checked the room) */
        links_at = na;
        TRY(pf_link_reads(r->base.o, PF_PHASE_FORCE, acc, &na));
        TRY(pf_link_reads(r->base.o, PF_PHASE_RHS, acc, &na));
    }
    return record_at(r, t_rhs, "block rhs", k, acc, na, 12.0 * k->nowned, links_at);
}

static int record_dir(const recording *r, const pf_block_solve *s, pf_block *k)
{
    pf_access acc[] = {{s->drr, PF_READ}, {k->dr, PF_READ}, {k->dp, PF_READWRITE}};
    return record(r, t_dir, "block cg direction", k, acc, 3, 2.0 * k->nowned);
}

static int record_kp(const recording *r, const pf_block_solve *s, pf_block *k)
{
    (void)s;
    pf_access acc[PF_MAX_ACCESSES];
    uint32_t na = 0;
    acc[na++] = (pf_access){k->dpk, PF_WRITE};
    add_blocks(acc, &na, r->d, k->nbr, k->nnbr, PF_BLK_ACC(dp), PF_READ);
    add_caches(acc, &na, r->base.o, k, PF_READ);
    return record(r, t_kp, "block cg stiffness", k, acc, na, r->df_ns * share(r, k) + 3.0 * k->nrows);
}

static int record_q(const recording *r, const pf_block_solve *s, pf_block *k)
{
    pf_access acc[PF_MAX_ACCESSES] = {{k->dq, PF_WRITE}, {s->dpq, PF_CUMUL}, {k->dp, PF_READ}};
    uint32_t na = 3;
    add_blocks(acc, &na, r->d, k->src, k->nsrc, PF_BLK_ACC(dpk), PF_READ);
    uint32_t links_at = 0;
    if (r->base.o->linked) {
        links_at = na;
        TRY(pf_link_reads(r->base.o, PF_PHASE_DF, acc, &na));
    }
    return record_at(r, t_q, "block cg product", k, acc, na, 8.0 * k->nowned, links_at);
}

static int record_update(const recording *r, const pf_block_solve *s, pf_block *k)
{
    pf_access acc[] = {{k->ddv, PF_READWRITE}, {k->dr, PF_READWRITE}, {s->drr, PF_READ}, {s->dpq, PF_READ},
                       {s->drn, PF_CUMUL},     {k->dp, PF_READ},       {k->dq, PF_READ}};
    return record(r, t_update, "block cg update", k, acc, 7, 9.0 * k->nowned);
}

static int record_integrate(const recording *r, const pf_block_solve *s, pf_block *k)
{
    (void)s;
    pf_access acc[] = {{k->ddv, PF_READ}, {k->dv_, PF_READWRITE}, {k->dx, PF_READWRITE}};
    return record(r, t_integrate, "block integrate", k, acc, 3, 4.0 * k->nowned);
}

/* the highest block whose rows reach block k's points (0 for a block that owns none) */
static uint32_t last_source(const pf_block *k)
{
    return k->nsrc ? k->src[k->nsrc - 1] : 0;
}

typedef int (*block_recorder)(const recording *r, const pf_block_solve *s, pf_block *k);

/* phase `first` of every block and phase `then` of every block, which reads the rows of `first` of the blocks
 * in its src list: each `then` is recorded as soon as the last of its sources is, so that a worker reads those
 * rows while they are still in its cache. The order is fixed by the blocks alone (the reducers fold in it). */
static int record_pair(const recording *r, const pf_block_solve *s, block_recorder first, block_recorder then)
{
    const pf_decomp *d = r->d;
    uint32_t next = 0; /* `then` is recorded for blocks 0 .. next-1 */
    for (uint32_t b = 0; b < d->nblocks; b++) {
        TRY(first(r, s, &d->b[b]));
        while (next < d->nblocks && last_source(&d->b[next]) <= b) TRY(then(r, s, &d->b[next++]));
    }
    while (next < d->nblocks) TRY(then(r, s, &d->b[next++]));
    return PF_OK;
}

static int record_each(const recording *r, const pf_block_solve *s, block_recorder one)
{
    for (uint32_t b = 0; b < r->d->nblocks; b++) TRY(one(r, s, &r->d->b[b]));
    return PF_OK;
}

static int record_cg_loop(const recording *r, const pf_block_solve *s, pf_group *gr)
{
    pf_graph *g = r->w->g;
    TRY(pf_graph_loop_begin(g,
                            &(pf_loop_def){.kind = PF_LOOP_COUNT, .count = s->sv->cg_iterations,
                                           .max_iterations = s->sv->cg_iterations},
                            &gr->loop));
    gr->has_loop = 1;
    TRY(pf_graph_loop_break(g, s->drr, pf_cg_residual_small, NULL, 0));
    TRY(record_each(r, s, record_dir));
    TRY(record_pair(r, s, record_kp, record_q));
    TRY(pf_graph_loop_break(g, s->dpq, pf_cg_denominator_small, &s->sv->cg_threshold, sizeof s->sv->cg_threshold));
    TRY(record_each(r, s, record_update));
    pf_access nx[] = {{s->drr, PF_READWRITE}, {s->drn, PF_READWRITE}, {s->dpq, PF_READWRITE}};
    TRY(r->rec->record(r->rec->ctx, &(pf_task_def){pf_cg_next_task, "cg next", NULL, 0, nx, 3, 20}));
    return pf_graph_loop_end(g);
}

static recording recording_of(pf_world *w, pf_object *o, const pf_task_recorder *rec, const pf_block_solve *s)
{
    return (recording){w, rec, o->decomp,
                       {o, o->decomp, NULL, s->h, s->mfact, s->kfact, s->bfact, s->rm, s->max_speed,
                        {w->def.gravity[0], w->def.gravity[1], w->def.gravity[2]}, s->statik, 0},
                       pf_force_fields_cost(o, 0.0), pf_force_fields_df_cost(o, 0.0)};
}

int pf_record_blocks(pf_world *w, pf_group *gr, pf_object *o, const pf_task_recorder *rec, const pf_block_solve *s)
{
    recording r = recording_of(w, o, rec, s);
    TRY(record_pair(&r, s, record_force, record_rhs));
    pf_access lim[] = {{s->drr, PF_READWRITE}};
    TRY(rec->record(rec->ctx, &(pf_task_def){pf_cg_limits_task, "cg limits", &s->sv->cg_tolerance,
                                             sizeof s->sv->cg_tolerance, lim, 1, 20}));
    TRY(record_cg_loop(&r, s, gr));
    return record_each(&r, s, record_integrate);
}

int pf_record_block_phase(pf_world *w, pf_object *o, const pf_task_recorder *rec, const pf_block_solve *s,
                          pf_block_phase phase)
{
    recording r = recording_of(w, o, rec, s);
    switch (phase) {
    case PF_BLOCKS_FORCE: return record_each(&r, s, record_force);
    case PF_BLOCKS_RHS: return record_each(&r, s, record_rhs);
    case PF_BLOCKS_DIRECTION:
        TRY(record_each(&r, s, record_dir));
        return record_each(&r, s, record_kp);
    case PF_BLOCKS_PRODUCT: return record_each(&r, s, record_q);
    case PF_BLOCKS_UPDATE: return record_each(&r, s, record_update);
    case PF_BLOCKS_INTEGRATE: return record_each(&r, s, record_integrate);
    }
    return PF_OK;
}

int pf_record_blocks_fit(const pf_object *o)
{
    const pf_decomp *d = o->decomp;
    for (uint32_t b = 0; b < d->nblocks; b++) /* the block rhs task: 7 accesses, 2 per source, 2 per link */
        if (7 + 2 * (size_t)d->b[b].nsrc + 2 * (size_t)o->links.n > PF_MAX_ACCESSES) return 0;
    return 1;
}
