/* Attachments: points of one object that follow points of another (SOFA AttachProjectiveConstraint, one way). The
 * followed ("target") points are fixed points of their object's solve (SOFA's projectResponse: dx2 = 0); after
 * every solve of the step a task per attachment copies the sources' positions and velocities onto them (SOFA's
 * projectPosition and projectVelocity), blended by a factor per pair when it is below 1. */
#include "attach.h"

#include "decompose.h"
#include "world_guard.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <string.h>

pf_attachment_def pf_attachment_default_def(void)
{
    return (pf_attachment_def){.position_factor = 1, .velocity_factor = 1};
}

static void free_attachment(pf_attachment *a)
{
    if (!a) return;
    pf_free(a->i1);
    pf_free(a->i2);
    pf_free(a->cx);
    pf_free(a->cv);
    pf_free(a);
}

void pf_world_free_attachments(pf_world *w)
{
    for (size_t k = 0; k < w->attach.n; k++) free_attachment(w->attach.v[k]);
    pf_vec_free(&w->attach);
    pf_vec_free(&w->attach_tasks);
}

int pf_world_point_attached(const pf_world *w, uint32_t id, uint32_t p)
{
    for (size_t k = 0; k < w->attach.n; k++) {
        const pf_attachment *a = w->attach.v[k];
        for (uint32_t j = 0; a->o2 == id && j < a->n; j++)
            if (a->i2[j] == p) return 1;
    }
    return 0;
}

/* the checks of pf_world_add_attachment on one of its objects */
static int check_object(const pf_world *w, pf_object_id id, const char *fn, const char *what)
{
    PF_TRY(pf_world_check_object(w, id.index, fn));
    const pf_object *o = w->obj.v[id.index];
    if (o->kind != PF_OBJECT_POINTS)
        return pf_error(PF_EINVAL, "%s: %s %u is %s; attachments join points of objects of points", fn, what,
                        id.index, pf_object_kind_noun(o->kind));
    return PF_OK;
}

static int check_points(const pf_world *w, uint32_t id, const uint32_t *pts, uint32_t n, const char *fn,
                        const char *what)
{
    uint32_t np = w->obj.v[id]->n;
    for (uint32_t k = 0; k < n; k++)
        if (pts[k] >= np)
            return pf_error(PF_EINVAL, "%s: %s[%u] = %u: object %u has %u points (0 to %u)", fn, what, k, pts[k], id,
                            np, np - 1);
    return PF_OK;
}

int pf_world_add_attachment(pf_world *w, pf_object_id source, pf_object_id target, const pf_attachment_def *def)
{
    static const char fn[] = "pf_world_add_attachment";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(check_object(w, source, fn, "source"));
    PF_TRY(check_object(w, target, fn, "target"));
    if (source.index == target.index)
        return pf_error(PF_EINVAL, "%s: source and target are both object %u; an attachment joins two objects", fn,
                        source.index);
    uint32_t n = def->npoints;
    if (n > 0) {
        PF_TRY(pf_check_given(def->source_points, fn, "def.source_points"));
        PF_TRY(pf_check_given(def->target_points, fn, "def.target_points"));
    }
    PF_TRY(check_points(w, source.index, def->source_points, n, fn, "def.source_points"));
    PF_TRY(check_points(w, target.index, def->target_points, n, fn, "def.target_points"));
    PF_TRY(pf_check_range(def->position_factor, 0, 1, fn, "def.position_factor"));
    PF_TRY(pf_check_range(def->velocity_factor, 0, 1, fn, "def.velocity_factor"));
    for (uint32_t k = 0; def->factors && k < n; k++)
        if (!(def->factors[k] >= 0 && def->factors[k] <= 1))
            return pf_error(PF_EINVAL, "%s: def.factors[%u] = %g: a factor is between 0 (released) and 1 (attached)",
                            fn, k, def->factors[k]);
    pf_object *o2 = w->obj.v[target.index];
    /* a point follows one source: twice would leave it where the later task puts it, an order no one asked for */
    uint8_t *seen = pf_calloc(o2->n, 1);
    if (!seen) return pf_error(PF_ENOMEM, "out of memory");
    for (size_t k = 0; k < w->attach.n; k++) {
        const pf_attachment *a = w->attach.v[k];
        for (uint32_t j = 0; a->o2 == target.index && j < a->n; j++) seen[a->i2[j]] = 2;
    }
    int rc = PF_OK;
    for (uint32_t k = 0; k < n && !rc; k++) {
        uint32_t p = def->target_points[k];
        if (seen[p])
            rc = pf_error(PF_EINVAL, "%s: def.target_points[%u] = %u: point %u of object %u is already attached (%s)",
                          fn, k, p, p, target.index, seen[p] == 2 ? "by an earlier attachment" : "earlier in the list");
        seen[p] = 1;
    }
    pf_free(seen);
    if (rc || n == 0) return rc;
    pf_attachment *a = pf_calloc(1, sizeof *a);
    int fail = !a || pf_vec_reserve(&w->attach, w->attach.n + 1) ||
               pf_vec_reserve(&o2->fixed_list, o2->fixed_list.n + n);
    if (!fail) {
        a->i1 = pf_malloc(n * sizeof *a->i1), a->i2 = pf_malloc(n * sizeof *a->i2);
        a->cx = pf_malloc(n * sizeof *a->cx), a->cv = pf_malloc(n * sizeof *a->cv);
        fail = !a->i1 || !a->i2 || !a->cx || !a->cv;
    }
    if (fail) {
        free_attachment(a);
        return pf_error(PF_ENOMEM, "%s: out of memory", fn);
    }
    *a = (pf_attachment){source.index, target.index, n, a->i1, a->i2, a->cx, a->cv};
    memcpy(a->i1, def->source_points, n * sizeof *a->i1);
    memcpy(a->i2, def->target_points, n * sizeof *a->i2);
    for (uint32_t k = 0; k < n; k++) {
        double c = def->factors ? def->factors[k] : 1;
        a->cx[k] = c * def->position_factor;
        a->cv[k] = c * def->velocity_factor;
        uint32_t p = a->i2[k];
        if (o2->fixed[p]) continue; /* fixed already: it stays fixed, and now follows */
        o2->fixed_list.v[o2->fixed_list.n++] = p;
        o2->fixed[p] = 1;
        memset(o2->v + 3 * (size_t)p, 0, 3 * sizeof *o2->v); /* a fixed point's, until its source's is copied */
    }
    w->attach.v[w->attach.n++] = a;
    w->attach_changed = 1;
    o2->changed = 1; /* its solve holds the new fixed points */
    w->dirty = 1;
    return PF_OK;
}

void pf_world_drop_attachments(pf_world *w, uint32_t id)
{
    size_t m = 0;
    for (size_t k = 0; k < w->attach.n; k++) {
        pf_attachment *a = w->attach.v[k];
        if (a->o1 == id || a->o2 == id) {
            free_attachment(a); /* its tasks copied what they read: the pairs are in their arguments */
            w->attach_changed = 1;
        } else {
            w->attach.v[m++] = a;
        }
    }
    w->attach.n = m;
}

void pf_world_forget_attachments(pf_world *w)
{
    w->attach_tasks.n = 0;
    w->attach_changed = 1;
}

/* ---- the step's tasks ---- */

/* One pair of an attachment task: target point i2 takes source point i1's state, blended by cx and cv. */
typedef struct attach_pair {
    uint32_t i1, i2;
    double cx, cv;
} attach_pair;

/* An attachment task's arguments: the first point of each datum it reaches (a block's view starts at its first
 * owned point, decompose.h), then its pairs. Values only, no addresses (the arguments travel between MPI ranks). */
typedef struct attach_args {
    uint32_t base1, base2, n;
    attach_pair pair[];
} attach_args;

/* y += c (s - y); c = 1 copies s exactly (the blend would round) */
static void follow(const double *s, double *y, double c)
{
    for (int d = 0; d < 3; d++) y[d] = c == 1 ? s[d] : y[d] + c * (s[d] - y[d]);
}

/* data: x2, v2 (views from point base2), x1, v1 (from base1) */
static void t_attach(const pf_task_ctx *c)
{
    const attach_args *a = c->args;
    double *x2 = (double *)c->data[0] - 3 * (size_t)a->base2, *v2 = (double *)c->data[1] - 3 * (size_t)a->base2;
    const double *x1 = (const double *)c->data[2] - 3 * (size_t)a->base1;
    const double *v1 = (const double *)c->data[3] - 3 * (size_t)a->base1;
    for (uint32_t k = 0; k < a->n; k++) {
        const attach_pair *p = &a->pair[k];
        follow(x1 + 3 * (size_t)p->i1, x2 + 3 * (size_t)p->i2, p->cx);
        follow(v1 + 3 * (size_t)p->i1, v2 + 3 * (size_t)p->i2, p->cv);
    }
}

/* The datum of o's x and v that holds point p, and the point its memory starts at: o's own vectors, or the view
 * of the block owning p when o runs as blocks (its group's tasks touch those views, not the whole vectors). */
static uint32_t block_of(const pf_object *o, uint32_t p)
{
    return o->in_blocks ? o->decomp->owner[p] : 0;
}

static void data_of(const pf_object *o, uint32_t block, pf_data_id *dx, pf_data_id *dv, uint32_t *base)
{
    if (!o->in_blocks) {
        *dx = o->dx, *dv = o->dv_, *base = 0;
        return;
    }
    const pf_block *k = &o->decomp->b[block];
    *dx = k->dx, *dv = k->dv_, *base = k->nowned ? k->owned[0] : 0;
}

/* One task per pair of blocks an attachment's pairs fall in (one task when neither object runs as blocks), in
 * the order of their first pair: each reaches 4 data whatever the blocks' number. */
static int record_attachment(pf_world *w, const pf_attachment *a, attach_args *args, uint8_t *done)
{
    const pf_object *o1 = w->obj.v[a->o1], *o2 = w->obj.v[a->o2];
    memset(done, 0, a->n);
    for (uint32_t k = 0; k < a->n; k++) {
        if (done[k]) continue;
        uint32_t b1 = block_of(o1, a->i1[k]), b2 = block_of(o2, a->i2[k]);
        args->n = 0;
        for (uint32_t j = k; j < a->n; j++) {
            if (done[j] || block_of(o1, a->i1[j]) != b1 || block_of(o2, a->i2[j]) != b2) continue;
            done[j] = 1;
            args->pair[args->n++] = (attach_pair){a->i1[j], a->i2[j], a->cx[j], a->cv[j]};
        }
        /* the target's x first: the task goes with the object it writes (owner placement) */
        pf_access acc[4] = {{.mode = PF_READWRITE}, {.mode = PF_READWRITE}, {.mode = PF_READ}, {.mode = PF_READ}};
        data_of(o2, b2, &acc[0].data, &acc[1].data, &args->base2);
        data_of(o1, b1, &acc[2].data, &acc[3].data, &args->base1);
        pf_task_def def = pf_task_default_def();
        def.fn = t_attach;
        def.name = "attach";
        def.args = args;
        def.args_size = sizeof *args + args->n * sizeof args->pair[0];
        def.accesses = acc;
        def.naccesses = 4;
        def.cost_ns = 5.0 * args->n;
        if (pf_vec_reserve(&w->attach_tasks, w->attach_tasks.n + 1)) return pf_error(PF_ENOMEM, "out of memory");
        PF_TRY(pf_graph_task(w->g, &def, &w->attach_tasks.v[w->attach_tasks.n]));
        w->attach_tasks.n++;
        w->graph_tasks++;
    }
    return PF_OK;
}

int pf_world_record_attachments(pf_world *w)
{
    for (size_t k = 0; k < w->attach_tasks.n; k++) PF_TRY(pf_graph_task_remove(w->g, w->attach_tasks.v[k]));
    w->attach_tasks.n = 0;
    uint32_t most = 0;
    for (size_t k = 0; k < w->attach.n; k++)
        if (w->attach.v[k]->n > most) most = w->attach.v[k]->n;
    if (most == 0) {
        w->attach_changed = 0;
        return PF_OK;
    }
    attach_args *args = pf_malloc(sizeof *args + most * sizeof args->pair[0]);
    uint8_t *done = pf_malloc(most);
    int rc = args && done ? PF_OK : pf_error(PF_ENOMEM, "out of memory");
    for (size_t k = 0; k < w->attach.n && !rc; k++) rc = record_attachment(w, w->attach.v[k], args, done);
    pf_free(args);
    pf_free(done);
    if (!rc) w->attach_changed = 0;
    return rc;
}
