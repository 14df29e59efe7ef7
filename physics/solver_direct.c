/* Direct solve of an implicit (or static) group's system (SOFA SparseLDLSolver and its siblings): each step
 * one task assembles A = mfact M + kfact K from the force fields' and interactions' 3x3 stiffness blocks
 * (assembly.h, as of the step's force evaluation), with fixed points' rows and columns replaced by the
 * identity (b is 0 there), factorises it (CHOLMOD: AMD ordering; LDL^T simplicial, or supernodal LL^T through
 * BLAS where the fill makes it pay, CHOLMOD's choice) and solves for dv. The task runs on one worker, so the
 * result is the same on every executor and run. The group stays a task graph: forces, right-hand sides, the
 * solve, then the integrations; independent groups solve concurrently. The symbolic factorisation is kept while
 * A's pattern stays the same (a fixed mesh) and made again when it changes (contacts, a re-recording). */
#include "solver_direct.h"

#include "assembly.h"
#include "force_field.h"
#include "interaction.h"
#include "objects.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <suitesparse/cholmod.h>

typedef struct pf_direct {
    cholmod_common cc;
    pf_blocks k;
    uint32_t *base;  /* per group object: its first point's number over the group */
    uint32_t *ibase; /* per group interaction: its a and b objects' bases */
    uint32_t points; /* over the group */
    double *proj;    /* 9 per group point: P = I - sum d d^T over its held directions (pf_world_fix_directions) */
    uint8_t *held;   /* per group point: 1 when it has held directions (proj set) */
    uint32_t nheld;
    int failed;      /* the latest solve failed: dv is NaN (faults.c names the group) */
    /* the symbolic factorisation, kept while A's pattern (column starts p, row indices i) stays the same */
    cholmod_factor *L;
    int *p, *i;
    size_t np, ni;
} pf_direct;

/* 1 when A has the pattern that d->L was analysed for */
static int same_pattern(const pf_direct *d, const cholmod_sparse *A)
{
    const int *ap = A->p;
    size_t np = A->ncol + 1, ni = (size_t)ap[A->ncol];
    return d->L && d->np == np && d->ni == ni && !memcmp(d->p, ap, np * sizeof *ap) &&
           !memcmp(d->i, A->i, ni * sizeof *d->i);
}

static void forget_pattern(pf_direct *d)
{
    cholmod_free_factor(&d->L, &d->cc);
    pf_free(d->p), pf_free(d->i);
    d->p = d->i = NULL, d->np = d->ni = 0;
}

/* copies A's pattern as the one d->L is for; 0 when out of memory */
static int keep_pattern(pf_direct *d, const cholmod_sparse *A)
{
    const int *ap = A->p;
    size_t np = A->ncol + 1, ni = (size_t)ap[A->ncol];
    pf_free(d->p), pf_free(d->i);
    d->p = pf_malloc(np * sizeof *d->p), d->i = pf_malloc((ni + 1) * sizeof *d->i);
    if (!d->p || !d->i) {
        pf_free(d->p), pf_free(d->i);
        d->p = d->i = NULL, d->np = d->ni = 0;
        return 0;
    }
    memcpy(d->p, ap, np * sizeof *ap), memcpy(d->i, A->i, ni * sizeof *d->i);
    d->np = np, d->ni = ni;
    return 1;
}

typedef struct direct_args {
    pf_direct *d;
    const pf_world *w;
    const uint32_t *objs; /* the group's arrays, which stay while its tasks do (the group record may move) */
    pf_springset *const *inter;
    uint32_t nobjs, ninter;
    uint32_t rr_at; /* the residual scalars' place in the task's data */
    double mfact, kfact;
} direct_args;

static int field_assembled(const pf_force_field *ff)
{
    const pf_force_field_ops *ops = pf_force_field_kinds[ff->kind];
    return ops->assemble || !ops->dforce;
}

int pf_direct_supported(const pf_world *w, const pf_group *gr, char *why, size_t cap)
{
    uint32_t na = 1; /* the residual scalars */
    for (uint32_t k = 0; k < gr->nobjs; k++) {
        const pf_object *o = w->obj.v[gr->objs[k]];
        if (o->kind == PF_OBJECT_RIGID) {
            snprintf(why, cap, "object %u is a rigid body", o->id);
            return 0;
        }
        for (uint32_t f = 0; f < o->ff.n; f++)
            if (!field_assembled(&o->ff.v[f])) {
                snprintf(why, cap, "object %u's %s force field has no assembled stiffness", o->id,
                         pf_force_field_kinds[o->ff.v[f].kind]->name);
                return 0;
            }
        na += 2 + pf_force_fields_caches(o) + (uint32_t)pf_force_fields_df_reads_x(o);
    }
    for (uint32_t k = 0; k < gr->ninter; k++) {
        const pf_interaction_ops *ops = pf_interaction_of(gr->inter[k]);
        if (!ops->assemble) {
            snprintf(why, cap, "its %s between objects %u and %u are not assembled", ops->name,
                     gr->inter[k]->oa, gr->inter[k]->ob);
            return 0;
        }
        na += 1 + (ops->df_reads_x ? 2u : 0u);
    }
    if (na > PF_MAX_ACCESSES) {
        snprintf(why, cap, "its %u objects and %u interactions are more than one task may read", gr->nobjs,
                 gr->ninter);
        return 0;
    }
    return 1;
}

/* K's blocks of the whole group, points numbered over the group */
static void assemble(const direct_args *a)
{
    pf_direct *d = a->d;
    pf_blocks_clear(&d->k);
    d->k.kfact = a->kfact;
    d->k.points = d->points;
    for (uint32_t k = 0; k < a->nobjs; k++) {
        const pf_object *o = a->w->obj.v[a->objs[k]];
        for (uint32_t f = 0; f < o->ff.n; f++) {
            const pf_force_field_ops *ops = pf_force_field_kinds[o->ff.v[f].kind];
            if (ops->assemble) ops->assemble(&o->ff.v[f], o, d->base[k], &d->k);
        }
    }
    for (uint32_t k = 0; k < a->ninter; k++)
        pf_interaction_of(a->inter[k])->assemble(a->inter[k], d->ibase[2 * k], d->ibase[2 * k + 1], &d->k);
}

/* 1 when the group's point p (numbered over the group) is fixed */
static int fixed_point(const direct_args *a, const uint8_t *const *fixed, uint32_t p, uint32_t *k)
{
    while (*k + 1 < a->nobjs && a->d->base[*k + 1] <= p)
        (*k)++;
    while (*k > 0 && a->d->base[*k] > p)
        (*k)--;
    return fixed[*k][p - a->d->base[*k]];
}

/* out = Pi K Pj, a NULL projector the identity */
static void project_block(const double *Pi, const double *K, const double *Pj, double out[9])
{
    double t[9];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += (Pi ? Pi[3 * r + k] : (r == k)) * K[3 * k + c];
            t[3 * r + c] = s;
        }
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += t[3 * r + k] * (Pj ? Pj[3 * k + c] : (k == c));
            out[3 * r + c] = s;
        }
}

/* A's lower triangle as triplets: the mass diagonal (1 at fixed points), then kfact K's entries off fixed
 * rows and columns, in assembly order (CHOLMOD sums duplicates in that order: the same A on every run) */
static cholmod_sparse *system_matrix(const direct_args *a, const uint8_t *const *fixed)
{
    pf_direct *d = a->d;
    size_t n = 3 * (size_t)d->points, nb = d->k.ij.n / 2;
    cholmod_triplet *T = cholmod_allocate_triplet(n, n, n + 3 * (size_t)d->nheld + 6 * nb, -1, CHOLMOD_REAL, &d->cc);
    if (!T) return NULL;
    int *ti = T->i, *tj = T->j;
    double *tx = T->x;
    size_t nz = 0;
    for (uint32_t k = 0; k < a->nobjs; k++) {
        const pf_object *o = a->w->obj.v[a->objs[k]];
        for (uint32_t p = 0; p < o->n; p++)
            for (int c = 0; c < 3; c++) {
                int r = (int)(3 * (d->base[k] + p) + (uint32_t)c);
                ti[nz] = tj[nz] = r;
                tx[nz++] = o->fixed[p] ? 1.0 : a->mfact * pf_point_mass(o, p);
            }
    }
    for (uint32_t p = 0; p < d->points; p++) { /* held points: their mass block is P m P + (I - P) */
        if (!d->held[p]) continue;
        const double *P = d->proj + 9 * (size_t)p;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                size_t row = 3 * (size_t)p + (size_t)r, col = 3 * (size_t)p + (size_t)c;
                if (row < col) continue;
                /* the diagonal entry already holds m: add (m' - m), m' = mfact m P + I - P */
                double m = tx[row], mp = m * P[3 * r + c] + (r == c) - P[3 * r + c];
                if (r == c) {
                    tx[row] = mp; /* the mass diagonal's entries come first, in row order */
                    continue;
                }
                ti[nz] = (int)row, tj[nz] = (int)col;
                tx[nz++] = mp;
            }
    }
    uint32_t ki = 0, kj = 0;
    for (size_t b = 0; b < nb; b++) {
        uint32_t i = d->k.ij.v[2 * b], j = d->k.ij.v[2 * b + 1];
        if (i < j || fixed_point(a, fixed, i, &ki) || fixed_point(a, fixed, j, &kj)) continue;
        const double *kb = d->k.k.v + 9 * b;
        double projected[9];
        if (d->held[i] || d->held[j]) { /* P_i K P_j */
            project_block(d->held[i] ? d->proj + 9 * (size_t)i : NULL, kb, d->held[j] ? d->proj + 9 * (size_t)j : NULL,
                          projected);
            kb = projected;
        }
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                size_t row = 3 * (size_t)i + (size_t)r, col = 3 * (size_t)j + (size_t)c;
                if (row < col) continue; /* the lower triangle; the upper is its mirror */
                ti[nz] = (int)row, tj[nz] = (int)col;
                tx[nz++] = kb[3 * r + c]; /* kfact is in the blocks */
            }
    }
    T->nnz = nz;
    cholmod_sparse *A = cholmod_triplet_to_sparse(T, nz, &d->cc);
    cholmod_free_triplet(&T, &d->cc);
    return A;
}

/* dv of every object, NaN when the factorisation failed (the fault check then restores the step and names the
 * object) */
static void solve(const direct_args *a, cholmod_sparse *A, void *const *data)
{
    pf_direct *d = a->d;
    size_t n = 3 * (size_t)d->points;
    cholmod_dense *B = cholmod_allocate_dense(n, 1, n, CHOLMOD_REAL, &d->cc), *X = NULL;
    if (B && A) {
        for (uint32_t k = 0; k < a->nobjs; k++)
            memcpy((double *)B->x + 3 * (size_t)d->base[k], data[2 * k],
                   3 * (size_t)a->w->obj.v[a->objs[k]]->n * sizeof(double));
        if (!same_pattern(d, A)) { /* a new pattern (first step, contacts, a re-recording): order it afresh */
            cholmod_free_factor(&d->L, &d->cc);
            d->L = cholmod_analyze(A, &d->cc);
            if (!d->L || !keep_pattern(d, A)) cholmod_free_factor(&d->L, &d->cc);
        }
        if (d->L && cholmod_factorize(A, d->L, &d->cc) && d->cc.status == CHOLMOD_OK)
            X = cholmod_solve(CHOLMOD_A, d->L, B, &d->cc);
        else
            forget_pattern(d); /* a failed factorisation leaves L unusable */
    }
    d->failed = !X || d->k.failed;
    for (uint32_t k = 0; k < a->nobjs; k++) {
        size_t n3 = 3 * (size_t)a->w->obj.v[a->objs[k]]->n;
        double *dv = data[2 * k + 1];
        if (X && !d->k.failed)
            memcpy(dv, (const double *)X->x + 3 * (size_t)d->base[k], n3 * sizeof(double));
        else
            for (size_t i = 0; i < n3; i++)
                dv[i] = NAN;
    }
    cholmod_free_dense(&X, &d->cc);
    cholmod_free_dense(&B, &d->cc);
}

/* data: per object b, dv (then the caches and interactions' stiffness, read through the objects), and last
 * the residual scalars rr */
static void t_direct_solve(const pf_task_ctx *c)
{
    const direct_args *a = c->args;
    const uint8_t *fixed_small[16], **fixed = fixed_small;
    if (a->nobjs > 16 && !(fixed = pf_malloc(a->nobjs * sizeof *fixed))) {
        a->d->k.failed = 1;
        fixed = fixed_small;
    }
    assemble(a);
    cholmod_sparse *A = NULL;
    if (!a->d->k.failed) {
        for (uint32_t k = 0; k < a->nobjs; k++)
            fixed[k] = a->w->obj.v[a->objs[k]]->fixed;
        A = system_matrix(a, fixed);
    }
    solve(a, A, c->data);
    cholmod_free_sparse(&A, &a->d->cc);
    if (fixed != fixed_small) pf_free((void *)fixed);
    double *rr = c->data[a->rr_at];
    rr[0] = 0; /* solved: the stopping test and the outcome read converged */
}

int pf_direct_failed(pf_direct *d)
{
    if (!d || !d->failed) return 0;
    d->failed = 0;
    return 1;
}

void pf_direct_free(pf_direct *d)
{
    if (!d) return;
    forget_pattern(d);
    cholmod_finish(&d->cc);
    pf_blocks_free(&d->k);
    pf_free(d->base);
    pf_free(d->ibase);
    pf_free(d->proj);
    pf_free(d->held);
    pf_free(d);
}

/* the base of an interaction's object: its first point's number over the group, or past the group's points for
 * an object outside it (a static one, which contacts push against without joining its group) */
static uint32_t base_of(const pf_direct *d, const pf_group *gr, uint32_t object)
{
    for (uint32_t k = 0; k < gr->nobjs; k++)
        if (gr->objs[k] == object) return d->base[k];
    return d->points;
}

static pf_direct *direct_new(const pf_world *w, const pf_group *gr)
{
    pf_direct *d = pf_calloc(1, sizeof *d);
    if (!d) return NULL;
    d->base = pf_malloc((gr->nobjs + 1) * sizeof *d->base);
    d->ibase = pf_malloc((2 * (size_t)gr->ninter + 1) * sizeof *d->ibase);
    if (!d->base || !d->ibase || !cholmod_start(&d->cc)) {
        pf_free(d->base);
        pf_free(d->ibase);
        pf_free(d);
        return NULL;
    }
    d->cc.print = 0;
    /* supernodal where it pays (CHOLMOD's choice by the fill): dense blocks through BLAS. The result is the same
     * on every run and executor as long as the BLAS is (one task calls it, from one thread) */
    d->cc.supernodal = CHOLMOD_AUTO;
    d->cc.final_ll = 0; /* LDL^T where simplicial */
    d->cc.nmethods = 1;
    d->cc.method[0].ordering = CHOLMOD_AMD;
    for (uint32_t k = 0; k < gr->nobjs; k++) {
        d->base[k] = d->points;
        d->points += w->obj.v[gr->objs[k]]->n;
    }
    d->proj = pf_calloc(9 * (size_t)d->points + 1, sizeof *d->proj);
    d->held = pf_calloc((size_t)d->points + 1, 1);
    if (!d->proj || !d->held) {
        pf_direct_free(d);
        return NULL;
    }
    for (uint32_t k = 0; k < gr->nobjs; k++) { /* P = I - sum d d^T per held point */
        const pf_object *o = w->obj.v[gr->objs[k]];
        for (size_t h = 0; h < o->held.n; h++) {
            uint32_t p = d->base[k] + o->held.v[h].point;
            double *P = d->proj + 9 * (size_t)p;
            const double *e = o->held.v[h].d;
            if (!d->held[p]) {
                d->held[p] = 1, d->nheld++;
                P[0] = P[4] = P[8] = 1;
            }
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) P[3 * r + c] -= e[r] * e[c];
        }
    }
    for (uint32_t k = 0; k < gr->ninter; k++) {
        d->ibase[2 * k] = base_of(d, gr, gr->inter[k]->oa);
        d->ibase[2 * k + 1] = base_of(d, gr, gr->inter[k]->ob);
    }
    return d;
}

/* appends a read of datum id unless acc already names it */
static void read_once(pf_access *acc, uint32_t *na, pf_data_id id)
{
    for (uint32_t k = 0; k < *na; k++)
        if (acc[k].data.index == id.index) return;
    acc[(*na)++] = (pf_access){id, PF_READ};
}

int pf_record_direct_solve(pf_world *w, pf_group *gr, const pf_task_recorder *rec, double mfact, double kfact,
                           pf_data_id drr)
{
    pf_direct_free(gr->direct);
    gr->direct = direct_new(w, gr);
    if (!gr->direct) return pf_error(PF_ENOMEM, "out of memory");
    pf_access acc[PF_MAX_ACCESSES];
    uint32_t na = 0;
    for (uint32_t k = 0; k < gr->nobjs; k++) {
        const pf_object *o = w->obj.v[gr->objs[k]];
        acc[na++] = (pf_access){o->db, PF_READ};
        acc[na++] = (pf_access){o->ddv, PF_READWRITE};
    }
    for (uint32_t k = 0; k < gr->nobjs; k++) {
        const pf_object *o = w->obj.v[gr->objs[k]];
        if (pf_force_fields_df_reads_x(o)) read_once(acc, &na, o->dx);
        na = pf_force_fields_cache_accesses(o, PF_READ, acc, na);
    }
    for (uint32_t k = 0; k < gr->ninter; k++) {
        const pf_springset *s = gr->inter[k];
        acc[na++] = (pf_access){s->djac, PF_READ};
        if (pf_interaction_of(s)->df_reads_x) { /* the same object may be named by several */
            read_once(acc, &na, w->obj.v[s->oa]->dx);
            read_once(acc, &na, w->obj.v[s->ob]->dx);
        }
    }
    direct_args args = {gr->direct, w, gr->objs, gr->inter, gr->nobjs, gr->ninter, na, mfact, kfact};
    acc[na++] = (pf_access){drr, PF_READWRITE};
    double cost = 0;
    for (uint32_t k = 0; k < gr->nobjs; k++)
        cost += 400.0 * w->obj.v[gr->objs[k]]->n;
    return rec->record(rec->ctx,
                       &(pf_task_def){t_direct_solve, "direct solve", &args, sizeof args, acc, na, cost});
}
