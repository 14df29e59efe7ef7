/* Implicit Euler (Baraff & Witkin 1998, SOFA EulerImplicitSolver) with Rayleigh damping, and the quasi-static
 * Newton step (SOFA StaticSolver: -K dx = f(x), x += dx), both solved by a matrix-free conjugate gradient (SOFA CGLinearSolver) whose iterations are a runtime dynamic loop with conditional breaks on
 * the residual and on the denominator (Hermann et al. 2009, §3.3). One loop per solver group.
 *
 * With h = dt, K = df/dx (each force field's df = K dx) and M the lumped (diagonal) mass, uniform or per point:
 *   (M (1 + h rM) - h (h + rK) K) dv = h (f(x, v) - rM M v + (h + rK) K v),   v += dv,   x += h v.
 * Fixed points are projected out of b and of every product A p. BDF2 (solver_bdf2.c) is the same system with h
 * replaced by 2/3 h and two terms of the previous step added to b.
 *
 * Both stopping tests are dimensionless, so that a 1 g particle and a 100 kg body converge alike: the residual
 * test r.r <= tol^2 b.b (SOFA's relative tolerance), and the denominator test |p.Ap| < threshold p.M'p with
 * M' = M (1 + h rM) the mass part of A (SOFA's threshold is absolute, which stops CG at its first iteration
 * for light objects: p.Ap of a 1 g point falling at dt 0.01 is 1e-11). */
#include "solver_implicit.h"

#include "decompose.h"
#include "faults.h"
#include "force_field.h"
#include "forces.h"
#include "interaction.h"
#include "objects.h"
#include "cg_scalars.h"
#include "solver_bdf2.h"
#include "solver_blocks.h"
#include "solver_direct.h"

#include "rigid.h"

#include "base/error.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum { RR = PF_CG_RR, PQ = PF_CG_PQ, RN = PF_CG_RN }; /* cg_scalars.h */

typedef struct obj_args {
    const pf_object *o;
    double h, mfact, kfact, bfact; /* bfact = h (h + rK): K v's factor in b */
    double rm;
    double max_speed;
    int linked;
    int statik; /* SOFA StaticSolver: A = -K, b = f, x += dv, v = 0 */
    int bdf2;   /* BDF2 (solver_bdf2.h): h above is dt, the step's factors follow from the object's history */
    double rk;
    const pf_world *w;
    int fused;       /* the group's df phase runs fused (fused_df): matvec maps, projection computes */
    uint32_t map_at; /* matvec: the index in its data of its fused links' maps, in link order */
} obj_args;

/* The factors of the step about to run: as recorded, or BDF2's with h -> beta (pf_bdf2_beta: 2/3 h once the
 * object has a history, h at its first step). Read when the tasks run, so the first step and the later ones
 * replay one recording. */
static obj_args factors(const obj_args *a)
{
    obj_args c = *a;
    if (!a->bdf2) return c;
    double beta = pf_bdf2_beta(a->o, a->h);
    c.h = beta;
    c.mfact = 1.0 + beta * a->rm;
    c.kfact = -beta * (beta + a->rk);
    c.bfact = beta * (beta + a->rk);
    return c;
}

static void project(const pf_object *o, double *vec)
{
    for (uint32_t k = 0; k < o->fixed_list.n; k++) {
        size_t i = 3 * (size_t)o->fixed_list.v[k];
        vec[i] = vec[i + 1] = vec[i + 2] = 0;
    }
    pf_project_directions(o, vec);
}

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/* p.M'p, M' = M (1 + h rM) the mass part of A (mfact = 1 + h rM): the scale of the denominator test. A rigid
 * body's M' holds its world inertia. */
static double mass_dot(const pf_object *o, double mfact, const double *p)
{
    if (o->kind == PF_OBJECT_RIGID) {
        double q[6];
        pf_rigid_matvec(o, mfact, p, q);
        return dot(p, q, 6);
    }
    if (o->pmass) {
        double s = 0;
        for (uint32_t i = 0; i < o->n; i++) s += mfact * o->pmass[i] * dot(p + 3 * (size_t)i, p + 3 * (size_t)i, 3);
        return s;
    }
    return mfact * o->mass * dot(p, p, 3 * (size_t)o->n);
}

/* CG start on one object's block: project b, dv = 0, r = b, p = 0, rr += b.b */
static void cg_start(const pf_object *o, double *b, double *dv, double *r, double *p, double *rr)
{
    size_t n3 = 3 * (size_t)o->n;
    project(o, b);
    memset(dv, 0, n3 * sizeof *dv);
    memcpy(r, b, n3 * sizeof *r);
    memset(p, 0, n3 * sizeof *p);
    rr[0] += dot(b, b, n3);
}

/* data: f, v, b, then when not linked dv, r, p, rr; when linked the interactions' force outputs */
static void t_rhs(const pf_task_ctx *c)
{
    const obj_args fa = factors(c->args), *a = &fa;
    const pf_object *o = a->o;
    const double *f = c->data[0], *v = c->data[1];
    double *b = c->data[2];
    if (a->linked) pf_gather_links(o, c->data + 3, c->data[0], NULL); /* f += the interactions' forces */
    double hm = a->h * a->rm * o->mass;
    if (o->kind == PF_OBJECT_RIGID)
        pf_rigid_rhs(o, a->h, a->rm, f, v, b); /* M holds I_w; no internal stiffness */
    else {
        if (o->pmass)
            for (size_t i = 0; i < 3 * (size_t)o->n; i++) b[i] = a->h * f[i] - a->h * a->rm * o->pmass[i / 3] * v[i];
        else
            for (size_t i = 0; i < 3 * (size_t)o->n; i++) b[i] = a->h * f[i] - hm * v[i];
        pf_force_fields_dforce(o, v, b, a->bfact);
        if (a->bdf2) pf_bdf2_rhs_history(o, a->h, o->x, v, c->data[4], b); /* r: scratch until cg_start */
    }
    if (!a->linked) cg_start(o, b, c->data[3], c->data[4], c->data[5], c->data[6]);
}

typedef struct inter_args {
    const pf_springset *s;
    const double *ina, *inb; /* the objects' v (the rhs phase) or p (the df phase) */
    uint32_t out;            /* the index of the phase's output among the task's data */
    double fact;
    int phase;
} inter_args;

/* data: in_a, in_b (or their objects' blocks' views), out (per-link results of the phase), jac, then x when df
 * reads it; within one object in_b is in_a and appears once */
static void t_inter_df(const pf_task_ctx *c)
{
    const inter_args *a = c->args;
    pf_interaction_of(a->s)->dforce(a->s, a->ina, a->inb, c->data[a->out], a->phase, a->fact);
}

/* b += the interactions' rhs terms, then the CG start. data: b, dv, r, p, rr, then the rhs outputs */
static void t_cg_init(const pf_task_ctx *c)
{
    const obj_args *a = c->args;
    pf_gather_links(a->o, c->data + 5, c->data[0], NULL);
    cg_start(a->o, c->data[0], c->data[1], c->data[2], c->data[3], c->data[4]);
}

static void t_cg_reset(const pf_task_ctx *c)
{
    memset(c->data[0], 0, 3 * sizeof(double));
    memset(c->data[1], 0, 2 * sizeof(double));
    *(double *)c->data[2] = 0;
}


/* The fused df phase of a group's CG loop (Hermann et al. 2009, §3.2: data cross workers only where they flow).
 * Unfused, a field's df task reads both objects' p at its points and writes per-point results that both
 * objects' projections read: with the objects on two workers, the other worker's p lines (up to 24 scattered
 * terms a point) and the results cross every iteration, in two hops. Fused, each object's matvec maps its own
 * p at the field's points (its map, 3 values a point, packed), and each object's projection computes its side
 * of the field's df from the two maps: one hop, the fewest lines, and no df task. Same arithmetic, same bits.
 * A group fuses when none of its objects runs as blocks and its tasks' accesses fit (group_fuses); a field
 * when its kind maps and it joins two objects. A static side has no matvec: its p (never rewritten) is read. */
static int fused_df(const pf_springset *s, int group_fuses)
{
    const pf_interaction_ops *ops = pf_interaction_of(s);
    return group_fuses && ops->map && ops->gather_df && s->oa != s->ob;
}

/* the maps of o's fused links from its p, into maps[0], maps[1], ... in link order */
static void map_links(const pf_object *o, int group_fuses, const double *p, void *const *maps)
{
    uint32_t m = 0;
    for (uint32_t j = 0; j < o->links.n; j++) {
        const pf_springset *s = o->links.v[j].s;
        if (fused_df(s, group_fuses)) pf_interaction_of(s)->map(s, o->links.v[j].side, o, p, maps[m++]);
    }
}

/* p = r + beta p (beta = r.r / previous r.r, 0 at the first iteration), q = A p; when not linked, q projected
 * and pq += {p.q, p.M'p}. data: r, rr, p, q, then pq when not linked */
static void t_cg_matvec(const pf_task_ctx *c)
{
    const obj_args fa = factors(c->args), *a = &fa;
    const pf_object *o = a->o;
    const double *r = c->data[0], *rr = c->data[1];
    double *p = c->data[2], *q = c->data[3];
    size_t n3 = 3 * (size_t)o->n;
    double beta = rr[2] > 0 ? rr[0] / rr[2] : 0.0, mm = a->mfact * o->mass;
    if (o->pmass) { /* M p, M lumped per point */
        for (size_t i = 0; i < n3; i++) {
            p[i] = r[i] + beta * p[i];
            q[i] = a->mfact * o->pmass[i / 3] * p[i];
        }
    } else {
        for (size_t i = 0; i < n3; i++) {
            p[i] = r[i] + beta * p[i];
            q[i] = mm * p[i];
        }
    }
    if (o->kind == PF_OBJECT_RIGID)
        pf_rigid_matvec(o, a->mfact, p, q);
    else
        pf_force_fields_dforce(o, p, q, a->kfact);
    map_links(o, a->fused, p, c->data + a->map_at);
    if (!a->linked) {
        project(o, q);
        double *pq = c->data[4];
        pq[0] += dot(p, q, n3);
        pq[1] += mass_dot(o, a->mfact, p);
    }
}

/* The objects of field s: a side is packed (its map) unless its object is static (its p). */
static int side_packed(const pf_world *w, const pf_springset *s, int sd)
{
    return !pf_object_is_static(w->obj.v[sd ? s->ob : s->oa]);
}

/* q += the df of o's links, in link order: a fused link's from its two inputs (link_df_accesses' layout: per
 * side its map, or its object's p then x when df reads x; then its jac), another's from its df output */
static void gather_link_df(const pf_world *w, const pf_object *o, int group_fuses, double kfact, void *const *data,
                           double *q)
{
    uint32_t at = 0;
    for (uint32_t j = 0; j < o->links.n; j++) {
        const pf_springset *s = o->links.v[j].s;
        const pf_interaction_ops *ops = pf_interaction_of(s);
        if (!fused_df(s, group_fuses)) {
            ops->gather(s, o->links.v[j].side, o, data[at++], q, NULL);
            continue;
        }
        const double *in[2];
        int packed[2];
        for (int sd = 0; sd < 2; sd++) {
            packed[sd] = side_packed(w, s, sd);
            in[sd] = data[at++];
            at += !packed[sd] && ops->df_reads_x;
        }
        at++; /* jac */
        ops->gather_df(s, o->links.v[j].side, o, in, packed, kfact, q);
    }
}

/* the estimated ns of the df o's projection computes for its fused links: half their df tasks' */
static double fused_cost(const pf_object *o, int group_fuses)
{
    double ns = 0;
    for (uint32_t j = 0; j < o->links.n; j++)
        if (fused_df(o->links.v[j].s, group_fuses))
            ns += 0.25 * pf_interaction_of(o->links.v[j].s)->cost(o->links.v[j].s);
    return ns;
}

/* the reads of o's links in the df phase (gather_link_df's layout) */
static int link_df_accesses(const pf_world *w, const pf_object *o, int group_fuses, pf_access *acc, uint32_t *na)
{
    for (uint32_t j = 0; j < o->links.n; j++) {
        const pf_springset *s = o->links.v[j].s;
        if (*na + (fused_df(s, group_fuses) ? 5 : 1) > PF_MAX_ACCESSES)
            return pf_error(PF_EINVAL, "object %u has too many interactions (%zu) for one task", o->id, o->links.n);
        if (!fused_df(s, group_fuses)) {
            acc[(*na)++] = (pf_access){s->dout[PF_PHASE_DF], PF_READ};
            continue;
        }
        for (int sd = 0; sd < 2; sd++) {
            const pf_object *os = w->obj.v[sd ? s->ob : s->oa];
            if (side_packed(w, s, sd)) {
                acc[(*na)++] = (pf_access){s->dmapped[sd], PF_READ};
                continue;
            }
            acc[(*na)++] = (pf_access){os->dp, PF_READ};
            if (pf_interaction_of(s)->df_reads_x) acc[(*na)++] = (pf_access){os->dx, PF_READ};
        }
        acc[(*na)++] = (pf_access){s->djac, PF_READ};
    }
    return PF_OK;
}

/* q += the interactions' df, projected, pq += {p.q, p.M'p}. data: q, p, pq, then the links' (link_df_accesses) */
static void t_cg_project(const pf_task_ctx *c)
{
    const obj_args *a = c->args;
    double *q = c->data[0], *pq = c->data[2];
    const double *p = c->data[1];
    gather_link_df(a->w, a->o, a->fused, a->kfact, c->data + 3, q);
    project(a->o, q);
    pq[0] += dot(p, q, 3 * (size_t)a->o->n);
    pq[1] += mass_dot(a->o, a->mfact, p);
}

/* alpha = rr / pq, dv += alpha p, r -= alpha q, rn += r.r. data: p, q, rr, pq, dv, r, rn */
static void t_cg_update(const pf_task_ctx *c)
{
    const obj_args *a = c->args;
    const double *p = c->data[0], *q = c->data[1];
    double alpha = ((const double *)c->data[2])[0] / *(const double *)c->data[3];
    double *dv = c->data[4], *r = c->data[5], s = 0;
    for (size_t i = 0; i < 3 * (size_t)a->o->n; i++) {
        dv[i] += alpha * p[i];
        r[i] -= alpha * q[i];
        s += r[i] * r[i];
    }
    *(double *)c->data[6] += s;
}


/* static: x += dx (dx the solution, in dv), v = 0 */
static void integrate_static(const pf_object *o, const double *dx, double *v, double *x)
{
    for (uint32_t p = 0; p < o->n; p++)
        for (size_t i = 3 * (size_t)p; i < 3 * (size_t)p + 3; i++) {
            if (!o->fixed[p]) x[i] += dx[i]; /* dx is 0 there unless the solve failed (NaN: the fault check) */
            v[i] = 0;
        }
}

/* v += dv, x += h v. data: dv, v, x */
static void integrate(const pf_object *o, double h, const double *dv, double *v, double *x)
{
    if (o->kind == PF_OBJECT_RIGID) {
        pf_rigid_integrate_implicit(o, h, dv, v, x);
        return;
    }
    for (size_t i = 0; i < 3 * (size_t)o->n; i++) v[i] += dv[i];
    project(o, v);
    for (size_t i = 0; i < 3 * (size_t)o->n; i++) x[i] += h * v[i];
}

/* BDF2: v_n kept in vb, v += dv, then the positions (pf_bdf2_positions) */
static void integrate_bdf2(pf_object *o, double h, const double *dv, double *v, double *x)
{
    memcpy(o->vb, v, 3 * (size_t)o->n * sizeof *v);
    for (size_t i = 0; i < 3 * (size_t)o->n; i++) v[i] += dv[i];
    project(o, v);
    pf_bdf2_positions(o, h, v, x);
}

/* data: dv, v, x */
static void t_integrate(const pf_task_ctx *c)
{
    const obj_args *a = c->args;
    pf_object *o = (pf_object *)a->o; /* its fault record: the integrate task is the object's last writer */
    double *v = c->data[1], *x = c->data[2];
    pf_state_save(o, x, v);
    if (a->statik)
        integrate_static(o, c->data[0], v, x);
    else if (a->bdf2)
        integrate_bdf2(o, a->h, c->data[0], v, x);
    else
        integrate(o, a->h, c->data[0], v, x);
    pf_state_check(o, x, v, a->max_speed);
}



/* the accesses of an object's force-field caches, read by df; a rigid body's mass matrix reads its orientation */
static uint32_t cache_reads(const pf_object *o, pf_access *acc, uint32_t na)
{
    if ((o->kind == PF_OBJECT_RIGID || pf_force_fields_df_reads_x(o)) && na < PF_MAX_ACCESSES)
        acc[na++] = (pf_access){o->dx, PF_READ};
    return pf_force_fields_cache_accesses(o, PF_READ, acc, na);
}

static double df_cost(const pf_object *o)
{
    return pf_force_fields_df_cost(o, 3.0 * o->n);
}

#define TRY(call)                                                                                            \
    do {                                                                                                     \
        int rc_ = (call);                                                                                    \
        if (rc_ != PF_OK) return rc_;                                                                        \
    } while (0)

#define task(g_, fn, name, args, size, acc, na, cost)                                                       \
    rec->record(rec->ctx, &(pf_task_def){fn, name, args, size, acc, na, cost})

/* phase `phase` of the blocks of each object of the group that runs in blocks, in object order */
static int record_block_phase(pf_world *w, pf_group *gr, const pf_task_recorder *rec, const pf_block_solve *bs,
                              pf_block_phase phase)
{
    for (uint32_t k = 0; k < gr->nobjs; k++)
        if (w->obj.v[gr->objs[k]]->in_blocks)
            TRY(pf_record_block_phase(w, w->obj.v[gr->objs[k]], rec, bs, phase));
    return PF_OK;
}

/* the data an object's vector takes in a task's accesses: its blocks' views, or one datum */
static size_t views(const pf_object *o)
{
    return o->in_blocks ? o->decomp->nblocks : 1;
}

/* Interaction df of the whole group: per spring fact K (in_b - in_a), gathered by the objects. `which` picks
 * the vectors: 0: v (the rhs phase), 1: p (the df phase). */
static int record_inter_df(pf_world *w, pf_group *gr, const pf_task_recorder *rec, double fact, int which,
                           int group_fuses)
{
    for (uint32_t k = 0; k < gr->ninter; k++) {
        const pf_springset *s = gr->inter[k];
        if (which && fused_df(s, group_fuses)) continue; /* its objects' tasks do its df */
        const pf_object *a = w->obj.v[s->oa], *b = w->obj.v[s->ob];
        pf_access acc[PF_MAX_ACCESSES];
        uint32_t na = 0;
        size_t member = which ? offsetof(pf_block, dp) : offsetof(pf_block, dv_);
        TRY(pf_decomp_accesses(a, member, which ? a->dp : a->dv_, PF_READ, acc, &na));
        if (b != a) TRY(pf_decomp_accesses(b, member, which ? b->dp : b->dv_, PF_READ, acc, &na));
        inter_args args = {s, which ? a->p : a->v, which ? b->p : b->v, na, fact, which ? PF_PHASE_DF : PF_PHASE_RHS};
        acc[na++] = (pf_access){s->dout[which ? PF_PHASE_DF : PF_PHASE_RHS], PF_WRITE};
        acc[na++] = (pf_access){s->djac, PF_READ};
        /* a contact's mapping is linearised at the current positions: it reads x too. An object in blocks is
         * not listed: its x was read by the interaction's force task, whose jac this task reads, and its
         * blocks write x again only after their CG updates, which follow this task's output */
        if (pf_interaction_of(s)->df_reads_x) {
            if (!a->in_blocks) acc[na++] = (pf_access){a->dx, PF_READ};
            if (b != a && !b->in_blocks) acc[na++] = (pf_access){b->dx, PF_READ};
        }
        TRY(task(w->g, t_inter_df, which ? "interaction df" : "interaction rhs", &args, sizeof args, acc, na,
                 0.5 * pf_interaction_of(s)->cost(s)));
    }
    return PF_OK;
}

/* 1 when the group's df phase can run fused (fused_df): none of its objects runs as blocks, and each object's
 * matvec (its caches and one map a link added) and projection (up to 5 reads a link) fit PF_MAX_ACCESSES */
static int group_fuses(const pf_world *w, const pf_group *gr)
{
    for (uint32_t k = 0; k < gr->nobjs; k++) {
        const pf_object *o = w->obj.v[gr->objs[k]];
        if (o->in_blocks || 6 + o->ff.n + o->links.n > PF_MAX_ACCESSES || 3 + 5 * o->links.n > PF_MAX_ACCESSES)
            return 0;
    }
    return 1;
}

/* The CG iterations (Hermann et al. 2009 figure 4): a loop bounded by its counter, left early by breaks on shared
 * scalars. */
static int record_cg_loop(pf_world *w, pf_group *gr, const pf_task_recorder *rec, const obj_args *basep,
                          const pf_block_solve *bs)
{
    pf_graph *g = w->g;
    obj_args base = *basep;
    const pf_solver_def *sv = bs->sv;
    pf_data_id drr = bs->drr, dpq = bs->dpq, drn = bs->drn;
    TRY(pf_graph_loop_begin(g,
                            &(pf_loop_def){.kind = PF_LOOP_COUNT, .count = sv->cg_iterations,
                                           .max_iterations = sv->cg_iterations},
                            &gr->loop));
    gr->has_loop = 1;
    TRY(pf_graph_loop_break(g, drr, pf_cg_residual_small, NULL, 0));
    int fuses = group_fuses(w, gr);
    for (uint32_t k = 0; k < gr->nobjs; k++) {
        const pf_object *o = w->obj.v[gr->objs[k]];
        if (o->in_blocks) continue;
        pf_access acc[PF_MAX_ACCESSES] = {{o->dr, PF_READ}, {drr, PF_READ}, {o->dp, PF_READWRITE}, {o->dq, PF_WRITE}};
        uint32_t na = 4;
        if (!o->linked) acc[na++] = (pf_access){dpq, PF_CUMUL};
        na = cache_reads(o, acc, na);
        obj_args args = base;
        args.o = o;
        args.linked = o->linked;
        args.fused = fuses;
        args.map_at = na;
        for (uint32_t j = 0; j < o->links.n; j++) /* its side's maps (map_links) */
            if (fused_df(o->links.v[j].s, fuses))
                acc[na++] = (pf_access){o->links.v[j].s->dmapped[o->links.v[j].side], PF_WRITE};
        TRY(task(g, t_cg_matvec, "cg matvec", &args, sizeof args, acc, na, df_cost(o) + 4.0 * o->n));
    }
    TRY(record_block_phase(w, gr, rec, bs, PF_BLOCKS_DIRECTION));
    TRY(record_inter_df(w, gr, rec, base.kfact, 1, fuses));
    for (uint32_t k = 0; k < gr->nobjs; k++) {
        const pf_object *o = w->obj.v[gr->objs[k]];
        if (!o->linked || o->in_blocks) continue;
        pf_access acc[PF_MAX_ACCESSES] = {{o->dq, PF_READWRITE}, {o->dp, PF_READ}, {dpq, PF_CUMUL}};
        uint32_t na = 3;
        TRY(link_df_accesses(w, o, fuses, acc, &na));
        obj_args args = base;
        args.o = o;
        args.fused = fuses;
        TRY(task(g, t_cg_project, "cg project", &args, sizeof args, acc, na, 3.0 * o->n + fused_cost(o, fuses)));
    }
    TRY(record_block_phase(w, gr, rec, bs, PF_BLOCKS_PRODUCT));
    TRY(pf_graph_loop_break(g, dpq, pf_cg_denominator_small, &sv->cg_threshold, sizeof sv->cg_threshold));
    for (uint32_t k = 0; k < gr->nobjs; k++) {
        const pf_object *o = w->obj.v[gr->objs[k]];
        if (o->in_blocks) continue;
        pf_access acc[] = {{o->dp, PF_READ},  {o->dq, PF_READ},     {drr, PF_READ}, {dpq, PF_READ},
                           {o->ddv, PF_READWRITE}, {o->dr, PF_READWRITE}, {drn, PF_CUMUL}};
        obj_args args = base;
        args.o = o;
        TRY(task(g, t_cg_update, "cg update", &args, sizeof args, acc, 7, 9.0 * o->n));
    }
    TRY(record_block_phase(w, gr, rec, bs, PF_BLOCKS_UPDATE));
    pf_access nx[] = {{drr, PF_READWRITE}, {drn, PF_READWRITE}, {dpq, PF_READWRITE}};
    TRY(task(g, pf_cg_next_task, "cg next", NULL, 0, nx, 3, 20));
    TRY(pf_graph_loop_end(g));
    return PF_OK;
}

/* 1 when the group asks for the direct solver and can have it; when it cannot, CG solves it, said once */
static int direct_solver(pf_world *w, const pf_group *gr, const pf_solver_def *sv)
{
    if (sv->linear_solver != PF_LINEAR_DIRECT) return 0;
    char why[192];
    if (sv->kind == PF_SOLVER_BDF2) /* its factors change after the first step; the factorisation's would not */
        snprintf(why, sizeof why, "it is integrated by BDF2");
    else if (pf_direct_supported(w, gr, why, sizeof why))
        return 1;
    if (!w->def.runtime.quiet && !w->direct_noted)
        fprintf(stderr, "physflow: the group of object %u asks for the direct solver, but %s: CG solves it\n",
                gr->first, why);
    w->direct_noted = 1;
    return 0;
}

/* Which objects of the group run as blocks (pf_object.in_blocks, decompose.h): those decompose.c cuts, unless
 * the group uses the direct solver, or a block or interaction task would then reach more data than
 * PF_MAX_ACCESSES (then the whole group runs whole). Registers the blocks' data. */
static int choose_blocks(pf_world *w, pf_group *gr, const pf_solver_def *sv)
{
    int direct = direct_solver(w, gr, sv), any = 0;
    for (uint32_t k = 0; k < gr->nobjs; k++) {
        pf_object *o = w->obj.v[gr->objs[k]];
        o->in_blocks = 0;
        if (direct || o->kind == PF_OBJECT_RIGID || sv->kind == PF_SOLVER_BDF2) continue;
        pf_decomp *d = NULL;
        TRY(pf_decomp_update(w, o, &d));
        o->in_blocks = d && pf_record_blocks_fit(o);
        any |= o->in_blocks;
    }
    int fit = 1;
    for (uint32_t k = 0; any && k < gr->ninter; k++) { /* x or p of both objects, v or x of whole ones, out, jac */
        const pf_springset *s = gr->inter[k];
        fit &= views(w->obj.v[s->oa]) + views(w->obj.v[s->ob]) + 4 <= PF_MAX_ACCESSES;
    }
    for (uint32_t k = 0; k < gr->nobjs; k++) {
        pf_object *o = w->obj.v[gr->objs[k]];
        o->in_blocks &= fit;
        if (o->in_blocks) TRY(pf_decomp_register(w->g, o, o->decomp));
    }
    return PF_OK;
}

int pf_record_implicit(pf_world *w, pf_group *gr, const pf_task_recorder *rec)
{
    pf_graph *g = w->g;
    const pf_solver_def *sv = &w->obj.v[gr->first]->solver;
    double h = w->def.dt;
    obj_args base = {.h = h, .mfact = 1.0 + h * sv->rayleigh_mass, .kfact = -h * (h + sv->rayleigh_stiffness),
                     .bfact = h * (h + sv->rayleigh_stiffness), .rm = sv->rayleigh_mass, .max_speed = w->def.max_speed,
                     .w = w};
    if (sv->kind == PF_SOLVER_STATIC) { /* -K dx = f: no inertia, no damping, b = 1 x f */
        base = (obj_args){.h = 1.0, .kfact = -1.0, .max_speed = w->def.max_speed, .statik = 1, .w = w};
        TRY(pf_group_refuse_rigid(w, gr, "the static solver"));
    }
    if (sv->kind == PF_SOLVER_BDF2) {
        TRY(pf_group_refuse_rigid(w, gr, "BDF2"));
        if (gr->ninter) /* the interactions' terms would need the history too (solver_bdf2.c) */
            return pf_error(PF_ENOTSUP, "object %u is integrated by BDF2 (PF_SOLVER_BDF2) but its solver group has "
                            "%u interaction force fields or contacts: BDF2 steps objects alone", gr->first,
                            gr->ninter);
        for (uint32_t k = 0; k < gr->nobjs; k++) TRY(pf_bdf2_prepare(w->obj.v[gr->objs[k]]));
        base.bdf2 = 1;
        base.rk = sv->rayleigh_stiffness;
    }
    pf_reducer sum = pf_reducer_sum_f64();
    pf_data_id drr, dpq, drn;
    TRY(pf_graph_data(g, gr->scal + RR, 3 * sizeof(double), gr->first, &sum, &drr));
    TRY(pf_graph_data(g, gr->scal + PQ, 2 * sizeof(double), gr->first, &sum, &dpq));
    TRY(pf_graph_data(g, gr->scal + RN, sizeof(double), gr->first, &sum, &drn));

    pf_access reset[] = {{drr, PF_WRITE}, {dpq, PF_WRITE}, {drn, PF_WRITE}};
    TRY(task(g, t_cg_reset, "cg reset", NULL, 0, reset, 3, 20));
    pf_block_solve bs = {base.h, base.mfact, base.kfact, base.bfact, base.rm, base.max_speed, base.statik, sv,
                         drr, dpq, drn};
    TRY(choose_blocks(w, gr, sv));
    if (gr->nobjs == 1 && gr->ninter == 0 && w->obj.v[gr->first]->in_blocks)
        return pf_record_blocks(w, gr, w->obj.v[gr->first], rec, &bs);
    TRY(pf_record_forces(w, gr, 1, rec));
    TRY(record_block_phase(w, gr, rec, &bs, PF_BLOCKS_FORCE));

    /* right-hand side, and the CG start of unlinked objects in the same task */
    for (uint32_t k = 0; k < gr->nobjs; k++) {
        const pf_object *o = w->obj.v[gr->objs[k]];
        if (o->in_blocks) continue;
        pf_access acc[PF_MAX_ACCESSES] = {{o->df, o->linked ? PF_READWRITE : PF_READ}, {o->dv_, PF_READ},
                                          {o->db, PF_WRITE}};
        uint32_t na = 3;
        if (!o->linked) {
            pf_access more[] = {{o->ddv, PF_WRITE}, {o->dr, PF_WRITE}, {o->dp, PF_WRITE}, {drr, PF_CUMUL}};
            memcpy(acc + na, more, sizeof more);
            na += 4;
        } else {
            TRY(pf_link_reads(o, PF_PHASE_FORCE, acc, &na));
        }
        if (base.bdf2 && !pf_force_fields_df_reads_x(o)) acc[na++] = (pf_access){o->dx, PF_READ}; /* d = x - xb */
        na = cache_reads(o, acc, na);
        obj_args args = base;
        args.o = o;
        args.linked = o->linked;
        TRY(task(g, t_rhs, "rhs", &args, sizeof args, acc, na, df_cost(o) + 6.0 * o->n));
    }
    TRY(record_inter_df(w, gr, rec, base.bfact, 0, 0));
    for (uint32_t k = 0; k < gr->nobjs; k++) {
        const pf_object *o = w->obj.v[gr->objs[k]];
        if (!o->linked || o->in_blocks) continue;
        pf_access acc[PF_MAX_ACCESSES] = {{o->db, PF_READWRITE}, {o->ddv, PF_WRITE}, {o->dr, PF_WRITE},
                                          {o->dp, PF_WRITE},    {drr, PF_CUMUL}};
        uint32_t na = 5;
        TRY(pf_link_reads(o, PF_PHASE_RHS, acc, &na));
        obj_args args = base;
        args.o = o;
        TRY(task(g, t_cg_init, "cg init", &args, sizeof args, acc, na, 6.0 * o->n));
    }
    TRY(record_block_phase(w, gr, rec, &bs, PF_BLOCKS_RHS));
    pf_access lim[] = {{drr, PF_READWRITE}};
    TRY(task(g, pf_cg_limits_task, "cg limits", &sv->cg_tolerance, sizeof sv->cg_tolerance, lim, 1, 20));
    if (direct_solver(w, gr, sv))
        TRY(pf_record_direct_solve(w, gr, rec, base.mfact, base.kfact, drr));
    else
        TRY(record_cg_loop(w, gr, rec, &base, &bs));

    for (uint32_t k = 0; k < gr->nobjs; k++) {
        const pf_object *o = w->obj.v[gr->objs[k]];
        if (o->in_blocks) continue;
        pf_access acc[] = {{o->ddv, PF_READ}, {o->dv_, PF_READWRITE}, {o->dx, PF_READWRITE}};
        obj_args args = base;
        args.o = o;
        TRY(task(g, t_integrate, "integrate", &args, sizeof args, acc, 3, 3.0 * o->n));
    }
    return record_block_phase(w, gr, rec, &bs, PF_BLOCKS_INTEGRATE);
}

pf_cg_outcome pf_implicit_outcome(const pf_group *gr)
{
    const double *rr = gr->scal + RR;
    if (rr[0] <= rr[1]) return PF_CG_CONVERGED;
    /* previous r.r is set by the first update's scalar task, to an r.r above the tolerance, so > 0 */
    return rr[2] == 0 ? PF_CG_STALLED : PF_CG_UNCONVERGED;
}
