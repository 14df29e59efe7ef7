/* Conjugate gradient as recorded tasks: the sequential algorithm, one task per block and per scalar step. */
#include "cg_tasks.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cg_block {
    double *x, *r, *p, *q, *b; /* block_n values each */
    pf_data_id dx, dr, dp, dq;
} cg_block;

typedef struct cg_system {
    double *diag, *off; /* A_ii and A_i,i+1 (off[n-1] = 0) */
    cg_block *blocks;
    double scalars[5]; /* rr, pq, rr_new, alpha, beta */
    pf_data_id drr, dpq, drn, dalpha, dbeta;
    double bb;
    pf_loop_id loop;
} cg_system;

struct cg_set {
    int solves, nblocks, bn;
    cg_system *sys;
    pf_graph *g;
};

enum { RR, PQ, RN, ALPHA, BETA };

typedef struct block_args {
    const double *diag, *off; /* of this block's rows */
    const double *b;
    int n;
    int has_left, has_right;
} block_args;

/* x = 0, r = p = b, rr += b.b */
static void t_init(const pf_task_ctx *c)
{
    const block_args *a = c->args;
    double *x = c->data[0], *r = c->data[1], *p = c->data[2], *rr = c->data[3];
    double s = 0;
    for (int i = 0; i < a->n; i++) {
        x[i] = 0;
        r[i] = p[i] = a->b[i];
        s += a->b[i] * a->b[i];
    }
    *rr += s;
}

static void t_scalars_reset(const pf_task_ctx *c)
{
    for (int k = 0; k < 3; k++) *(double *)c->data[k] = 0;
}

/* q = A p over the block's rows, pq += p.q; data: p, q, pq, then p_left, p_right when present */
static void t_matvec(const pf_task_ctx *c)
{
    const block_args *a = c->args;
    const double *p = c->data[0];
    double *q = c->data[1], *pq = c->data[2];
    int k = 3;
    double left = a->has_left ? ((const double *)c->data[k++])[a->n - 1] : 0.0;
    double right = a->has_right ? ((const double *)c->data[k])[0] : 0.0;
    double off_left = a->has_left ? a->off[-1] : 0.0;
    double s = 0;
    for (int i = 0; i < a->n; i++) {
        double pl = i > 0 ? p[i - 1] : left, pr = i < a->n - 1 ? p[i + 1] : right;
        double ol = i > 0 ? a->off[i - 1] : off_left;
        q[i] = a->diag[i] * p[i] + ol * pl + a->off[i] * pr;
        s += p[i] * q[i];
    }
    *pq += s;
}

/* alpha = rr / pq; pq = 0 for the next iteration */
static void t_alpha(const pf_task_ctx *c)
{
    const double *rr = c->data[0];
    double *pq = c->data[1], *alpha = c->data[2];
    *alpha = *rr / *pq;
    *pq = 0;
}

/* x += alpha p, r -= alpha q, rn += r.r */
static void t_update(const pf_task_ctx *c)
{
    const block_args *a = c->args;
    double *x = c->data[0], *r = c->data[1], *rn = c->data[5];
    const double *p = c->data[2], *q = c->data[3], alpha = *(const double *)c->data[4];
    double s = 0;
    for (int i = 0; i < a->n; i++) {
        x[i] += alpha * p[i];
        r[i] -= alpha * q[i];
        s += r[i] * r[i];
    }
    *rn += s;
}

/* beta = rn / rr; rr = rn; rn = 0 */
static void t_beta(const pf_task_ctx *c)
{
    double *rn = c->data[0], *rr = c->data[1], *beta = c->data[2];
    *beta = *rn / *rr;
    *rr = *rn;
    *rn = 0;
}

/* p = r + beta p */
static void t_direction(const pf_task_ctx *c)
{
    const block_args *a = c->args;
    const double *r = c->data[0], beta = *(const double *)c->data[1];
    double *p = c->data[2];
    for (int i = 0; i < a->n; i++) p[i] = r[i] + beta * p[i];
}

static int converged(const void *datum, const void *args)
{
    return *(const double *)datum <= *(const double *)args;
}

#define TRY(call)                                                                                            \
    do {                                                                                                     \
        if ((call) != PF_OK) return -1;                                                                      \
    } while (0)

static int record_system(cg_set *set, int si, double tol, uint32_t max_iter)
{
    cg_system *sy = &set->sys[si];
    pf_graph *g = set->g;
    int B = set->nblocks, n = set->bn;
    uint32_t obj0 = (uint32_t)(si * B);
    pf_reducer sum = pf_reducer_sum_f64();
    for (int b = 0; b < B; b++) {
        cg_block *k = &sy->blocks[b];
        size_t bytes = (size_t)n * sizeof(double);
        TRY(pf_graph_data(g, k->x, bytes, obj0 + (uint32_t)b, NULL, &k->dx));
        TRY(pf_graph_data(g, k->r, bytes, obj0 + (uint32_t)b, NULL, &k->dr));
        TRY(pf_graph_data(g, k->p, bytes, obj0 + (uint32_t)b, NULL, &k->dp));
        TRY(pf_graph_data(g, k->q, bytes, obj0 + (uint32_t)b, NULL, &k->dq));
    }
    pf_data_id *ids[] = {&sy->drr, &sy->dpq, &sy->drn, &sy->dalpha, &sy->dbeta};
    for (int k = 0; k < 5; k++) TRY(pf_graph_data(g, &sy->scalars[k], sizeof(double), obj0, &sum, ids[k]));

    block_args *args = calloc((size_t)B, sizeof *args);
    if (!args) return -1;
    for (int b = 0; b < B; b++)
        args[b] = (block_args){sy->diag + b * n, sy->off + b * n, sy->blocks[b].b, n, b > 0, b < B - 1};

    pf_access reset[] = {{sy->drr, PF_WRITE}, {sy->dpq, PF_WRITE}, {sy->drn, PF_WRITE}};
    TRY(pf_graph_task(g, &(pf_task_def){t_scalars_reset, "cg reset", NULL, 0, reset, 3, 20}, NULL));
    for (int b = 0; b < B; b++) {
        cg_block *k = &sy->blocks[b];
        pf_access acc[] = {{k->dx, PF_WRITE}, {k->dr, PF_WRITE}, {k->dp, PF_WRITE}, {sy->drr, PF_CUMUL}};
        TRY(pf_graph_task(g, &(pf_task_def){t_init, "cg init", &args[b], sizeof args[b], acc, 4, 3.0 * n}, NULL));
    }
    /* Hermann et al. 2009 figure 4: a loop bounded by its counter, left early by a break on the shared residual */
    TRY(pf_graph_loop_begin(g, &(pf_loop_def){.kind = PF_LOOP_COUNT, .count = max_iter, .max_iterations = max_iter},
                            &sy->loop));
    for (int b = 0; b < B; b++) {
        cg_block *k = &sy->blocks[b];
        pf_access acc[5] = {{k->dp, PF_READ}, {k->dq, PF_WRITE}, {sy->dpq, PF_CUMUL}};
        uint32_t na = 3;
        if (b > 0) acc[na++] = (pf_access){sy->blocks[b - 1].dp, PF_READ};
        if (b < B - 1) acc[na++] = (pf_access){sy->blocks[b + 1].dp, PF_READ};
        TRY(pf_graph_task(g, &(pf_task_def){t_matvec, "cg matvec", &args[b], sizeof args[b], acc, na, 6.0 * n}, NULL));
    }
    pf_access al[] = {{sy->drr, PF_READ}, {sy->dpq, PF_READWRITE}, {sy->dalpha, PF_WRITE}};
    TRY(pf_graph_task(g, &(pf_task_def){t_alpha, "cg alpha", NULL, 0, al, 3, 20}, NULL));
    for (int b = 0; b < B; b++) {
        cg_block *k = &sy->blocks[b];
        pf_access acc[] = {{k->dx, PF_READWRITE}, {k->dr, PF_READWRITE}, {k->dp, PF_READ},
                           {k->dq, PF_READ},      {sy->dalpha, PF_READ},  {sy->drn, PF_CUMUL}};
        TRY(pf_graph_task(g, &(pf_task_def){t_update, "cg update", &args[b], sizeof args[b], acc, 6, 5.0 * n}, NULL));
    }
    double tol2 = tol * tol * sy->bb;
    TRY(pf_graph_loop_break(g, sy->drn, converged, &tol2, sizeof tol2));
    pf_access be[] = {{sy->drn, PF_READWRITE}, {sy->drr, PF_READWRITE}, {sy->dbeta, PF_WRITE}};
    TRY(pf_graph_task(g, &(pf_task_def){t_beta, "cg beta", NULL, 0, be, 3, 20}, NULL));
    for (int b = 0; b < B; b++) {
        cg_block *k = &sy->blocks[b];
        pf_access acc[] = {{k->dr, PF_READ}, {sy->dbeta, PF_READ}, {k->dp, PF_READWRITE}};
        TRY(pf_graph_task(g, &(pf_task_def){t_direction, "cg direction", &args[b], sizeof args[b], acc, 3, 2.0 * n},
                          NULL));
    }
    TRY(pf_graph_loop_end(g));
    /* the graph copied the arguments, but they point at the matrix, which the set owns */
    free(args);
    return 0;
}

static int alloc_system(cg_system *sy, int B, int n, rng *seed, double shift)
{
    size_t N = (size_t)B * (size_t)n;
    sy->diag = malloc(N * sizeof(double));
    sy->off = calloc(N, sizeof(double));
    sy->blocks = calloc((size_t)B, sizeof *sy->blocks);
    if (!sy->diag || !sy->off || !sy->blocks) return -1;
    for (size_t i = 0; i + 1 < N; i++) sy->off[i] = -(0.5 + 0.5 * urand(seed));
    for (size_t i = 0; i < N; i++) sy->diag[i] = -(sy->off[i] + (i > 0 ? sy->off[i - 1] : 0.0)) + shift;
    sy->bb = 0;
    for (int b = 0; b < B; b++) {
        cg_block *k = &sy->blocks[b];
        double **v[] = {&k->x, &k->r, &k->p, &k->q, &k->b};
        for (int j = 0; j < 5; j++)
            if (!(*v[j] = calloc((size_t)n, sizeof(double)))) return -1;
        for (int i = 0; i < n; i++) {
            k->b[i] = urand(seed) - 0.5;
            sy->bb += k->b[i] * k->b[i];
        }
    }
    return 0;
}

cg_set *cg_set_create(int solves, int blocks, int block_n, uint64_t seed, double tol, uint32_t max_iter,
                      int vary_conditioning)
{
    cg_set *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->solves = solves;
    s->nblocks = blocks;
    s->bn = block_n;
    s->sys = calloc((size_t)solves, sizeof *s->sys);
    if (!s->sys || pf_graph_create(&s->g) != PF_OK) goto fail;
    rng st = {seed};
    for (int i = 0; i < solves; i++) {
        /* diagonal shift from 1e-1 down to 1e-4: condition numbers, and so iteration counts, spread out */
        double shift = vary_conditioning && solves > 1 ? pow(10.0, -1.0 - 3.0 * i / (solves - 1)) : 1e-2;
        if (alloc_system(&s->sys[i], blocks, block_n, &st, shift) || record_system(s, i, tol, max_iter)) goto fail;
    }
    return s;
fail:
    cg_set_destroy(s);
    return NULL;
}

void cg_set_destroy(cg_set *s)
{
    if (!s) return;
    pf_graph_destroy(s->g);
    for (int i = 0; s->sys && i < s->solves; i++) {
        cg_system *sy = &s->sys[i];
        for (int b = 0; sy->blocks && b < s->nblocks; b++) {
            cg_block *k = &sy->blocks[b];
            free(k->x);
            free(k->r);
            free(k->p);
            free(k->q);
            free(k->b);
        }
        free(sy->blocks);
        free(sy->diag);
        free(sy->off);
    }
    free(s->sys);
    free(s);
}

int cg_set_run(cg_set *s, pf_runtime *rt)
{
    return pf_graph_run(s->g, rt);
}

pf_graph *cg_set_graph(cg_set *s)
{
    return s->g;
}

uint32_t cg_set_iterations(const cg_set *s, int solve)
{
    return pf_graph_loop_iterations(s->g, s->sys[solve].loop);
}

void cg_set_solution(const cg_set *s, int solve, double *x)
{
    for (int b = 0; b < s->nblocks; b++)
        memcpy(x + (size_t)b * s->bn, s->sys[solve].blocks[b].x, (size_t)s->bn * sizeof(double));
}

double *cg_set_dense_solve(const cg_set *s, int solve)
{
    const cg_system *sy = &s->sys[solve];
    int n = s->nblocks * s->bn;
    double *A = calloc((size_t)n * n, sizeof(double)), *x = malloc((size_t)n * sizeof(double));
    if (!A || !x) {
        free(A);
        free(x);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        A[(size_t)i * n + i] = sy->diag[i];
        if (i + 1 < n) A[(size_t)i * n + i + 1] = A[(size_t)(i + 1) * n + i] = sy->off[i];
        x[i] = sy->blocks[i / s->bn].b[i % s->bn];
    }
    /* Cholesky A = L L^T in place (lower triangle), then two triangular solves */
    for (int j = 0; j < n; j++) {
        double d = A[(size_t)j * n + j];
        for (int k = 0; k < j; k++) d -= A[(size_t)j * n + k] * A[(size_t)j * n + k];
        d = sqrt(d);
        A[(size_t)j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            double v = A[(size_t)i * n + j];
            for (int k = 0; k < j; k++) v -= A[(size_t)i * n + k] * A[(size_t)j * n + k];
            A[(size_t)i * n + j] = v / d;
        }
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < i; k++) x[i] -= A[(size_t)i * n + k] * x[k];
        x[i] /= A[(size_t)i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int k = i + 1; k < n; k++) x[i] -= A[(size_t)k * n + i] * x[k];
        x[i] /= A[(size_t)i * n + i];
    }
    free(A);
    return x;
}
