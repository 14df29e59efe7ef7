/* Finding a step's proximities, in two levels (Pouchol et al. 2009, §3.3: queries against a built structure): the
 * surfaces' bounds go through a broad phase; for each pair of surfaces of different objects that come within the alarm
 * distance, the vertices of each query an index of the other's triangles (and spheres), and when both have lines
 * the edges of one query an index of the other's edges, built at most once per step and only for surfaces
 * something comes near; the spheres of one surface (particles) meet each other through the broad phase, and a
 * surface with self-collision meets itself through its own indexes. A vertex is a point, or a sphere when its
 * surface has a radius. */
#include "collide.h"
#include "objects.h"
#include "rigid.h"
#include "rotation.h"

#include "physflow/narrowphase.h"

#include "base/alloc.h"
#include "base/clock.h"
#include "base/error.h"
#include "runtime/sync.h"
#include "runtime/team.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>


static inline double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Barycentric coordinates of q (on the triangle's plane) in triangle (a, b, c). */
static void barycentric(const double *a, const double *b, const double *c, const double *q, double out[3])
{
    double v0[3], v1[3], v2[3];
    for (int i = 0; i < 3; i++) v0[i] = b[i] - a[i], v1[i] = c[i] - a[i], v2[i] = q[i] - a[i];
    double d00 = dot3(v0, v0), d01 = dot3(v0, v1), d11 = dot3(v1, v1), d20 = dot3(v2, v0), d21 = dot3(v2, v1);
    double den = d00 * d11 - d01 * d01;
    if (!(fabs(den) > 1e-300)) { /* degenerate: the nearest vertex */
        out[0] = 1, out[1] = out[2] = 0;
        return;
    }
    out[1] = (d11 * d20 - d01 * d21) / den;
    out[2] = (d00 * d21 - d01 * d20) / den;
    out[0] = 1.0 - out[1] - out[2];
}

/* By object pair, vertex, kind, other object, distance: a vertex's nearest triangle of an object comes first.
 * Each key compared as soon as it is read, rather than both keys' arrays built first: the lanes' sorts and the
 * merge call it about 20 times a find (with glibc's merge sort, 4% of heterogeneous's stage). */
static inline int key_order(uint32_t a, uint32_t b)
{
    return a < b ? -1 : 1;
}

static int cand_order(const void *x, const void *y)
{
    const candidate *a = x, *b = y;
    uint32_t alo = a->pobj < a->tobj ? a->pobj : a->tobj, blo = b->pobj < b->tobj ? b->pobj : b->tobj;
    if (alo != blo) return key_order(alo, blo);
    uint32_t ahi = a->pobj < a->tobj ? a->tobj : a->pobj, bhi = b->pobj < b->tobj ? b->tobj : b->pobj;
    if (ahi != bhi) return key_order(ahi, bhi);
    if (a->psurf != b->psurf) return key_order(a->psurf, b->psurf);
    if (a->pvert != b->pvert) return key_order(a->pvert, b->pvert);
    if (a->kind != b->kind) return key_order(a->kind, b->kind);
    if (a->tobj != b->tobj) return key_order(a->tobj, b->tobj);
    for (int i = 0; i < 3; i++)
        if (a->rank[i] != b->rank[i]) return a->rank[i] < b->rank[i] ? -1 : 1;
    if (a->tsurf != b->tsurf) return a->tsurf < b->tsurf ? -1 : 1;
    return a->telem < b->telem ? -1 : a->telem > b->telem;
}

static int add_candidate(collide_lane *L, const candidate *cd)
{
    return pf_vec_push(&L->cand, *cd);
}

void pf_collide_free(pf_collision_stage *c)
{
    for (uint32_t s = 0; s < c->nsc; s++) {
        pf_query_index_destroy(c->sc[s].tri);
        pf_query_index_destroy(c->sc[s].sph);
        pf_query_index_destroy(c->sc[s].edge);
        pf_vec_free(&c->sc[s].boxes);
        for (int k = 0; k < 3; k++) pf_vec_free(&c->sc[s].built[k]);
    }
    pf_free(c->sc);
    pf_vec_free(&c->sboxes);
    pf_vec_free(&c->live);
    for (int k = 0; k < c->nlanes; k++) {
        pf_id_buffer_destroy(c->lanes[k].ids);
        pf_vec_free(&c->lanes[k].cand);
        pf_vec_free(&c->lanes[k].kept);
    }
    pf_free(c->lanes);
    pf_vec_free(&c->jobs);
    pf_vec_free(&c->last_jobs);
    pf_vec_free(&c->order);
    pf_vec_free(&c->merge_at);
    pf_vec_free(&c->merge_heads);
    pf_vec_free(&c->indexed);
    pf_vec_free(&c->slices);
    pf_vec_free(&c->merged);
    pf_vec_free(&c->recent);
    pf_broadphase_destroy(c->outer);
}

/* pf_runtime_parallel as a broad phase's runner. */
static int team_runner(void *rt, void (*fn)(void *ctx, int worker, int workers), void *ctx)
{
    return pf_runtime_parallel(rt, fn, ctx);
}

pf_broadphase_def pf_collide_broadphase_def(pf_world *w, pf_broadphase_method method)
{
    /* on OpenMP threads beside the pinned, spinning team the broad phase competed with it for the cores */
    pf_broadphase_def d = pf_broadphase_default_def();
    d.method = method;
    d.parallel = team_runner;
    d.parallel_ctx = w->rt;
    return d;
}

/* A job whose index another worker is building spins this long before it sleeps (a surface's build: tens of
 * microseconds) */
enum { INDEX_WAIT_SPIN_NS = 50000 };

static int reserve_surfaces(pf_world *w, pf_collision_stage *c, uint32_t n)
{
    if (!c->lanes) {
        int lanes = c->threads > 0 ? c->threads : 1;
        if (!(c->lanes = pf_calloc((size_t)lanes, sizeof *c->lanes))) return pf_error(PF_ENOMEM, "out of memory");
        c->nlanes = lanes;
        c->index_spin = pf_spin_iterations(INDEX_WAIT_SPIN_NS);
        for (int k = 0; k < lanes; k++)
            if (pf_id_buffer_create(&c->lanes[k].ids)) return pf_error(PF_ENOMEM, "out of memory");
    }
    if (!c->outer) {
        pf_broadphase_def d = pf_collide_broadphase_def(w, c->def.broadphase);
        int rc = pf_broadphase_create(&d, &c->outer);
        if (rc) return rc;
    }
    if (pf_vec_reserve(&c->sboxes, n) || pf_vec_reserve(&c->live, n))
        return pf_error(PF_ENOMEM, "out of memory");
    c->sboxes.n = n;
    if (n <= c->nsc) return PF_OK;
    surface_cache *sc = pf_realloc(c->sc, c->nsc * sizeof *sc, n * sizeof *sc);
    if (!sc) return pf_error(PF_ENOMEM, "out of memory");
    memset(sc + c->nsc, 0, (n - c->nsc) * sizeof *sc);
    c->sc = sc;
    c->nsc = n;
    return PF_OK;
}

static inline void grow(pf_aabb *b, const double *p, double r)
{
    for (int d = 0; d < 3; d++) {
        if (p[d] - r < b->min[d]) b->min[d] = p[d] - r;
        if (p[d] + r > b->max[d]) b->max[d] = p[d] + r;
    }
}

static inline pf_aabb box_at(const double *p, double r)
{
    return (pf_aabb){{p[0] - r, p[1] - r, p[2] - r}, {p[0] + r, p[1] + r, p[2] + r}};
}

static inline int overlap(const pf_aabb *a, const pf_aabb *b)
{
    for (int d = 0; d < 3; d++)
        if (a->max[d] < b->min[d] || b->max[d] < a->min[d]) return 0;
    return 1;
}

/* The mean velocity of a surface's vertices (sf->vel, mapped), and the largest distance of one from it. */
static void surface_motion(const pf_surface *sf, surface_cache *sc)
{
    const double *v = sf->vel;
    double m[3] = {0, 0, 0}, spread = 0;
    for (uint32_t i = 0; i < sf->nv; i++)
        for (int d = 0; d < 3; d++) m[d] += v[3 * (size_t)i + d];
    for (int d = 0; d < 3; d++) m[d] /= sf->nv;
    for (uint32_t i = 0; i < sf->nv; i++) {
        const double *vi = v + 3 * (size_t)i;
        double e[3] = {vi[0] - m[0], vi[1] - m[1], vi[2] - m[2]}, ee = dot3(e, e);
        if (ee > spread) spread = ee;
    }
    memcpy(sc->vmean, m, sizeof m);
    sc->spread = sqrt(spread);
}

/* How far two surfaces may approach each other within a step of dt: at most (|mean_a - mean_b| + spreads) dt. */
static double approach(const surface_cache *a, const surface_cache *b, double dt)
{
    double d[3] = {a->vmean[0] - b->vmean[0], a->vmean[1] - b->vmean[1], a->vmean[2] - b->vmean[2]};
    return (sqrt(dot3(d, d)) + a->spread + b->spread) * dt;
}

/* How far apart two surfaces' features may be to become contacts, for surfaces that may approach each other by
 * `close` within the step: the alarm distance, or, when that breaks the rule of pf_collision_def (close >
 * alarm - contact distance), as far as they may come, counted. */
static double pair_reach(pf_collision_stage *c, double close)
{
    if (!(close > c->def.alarm_distance - c->def.contact_distance)) return c->def.alarm_distance;
    c->fast_pairs++;
    return c->def.contact_distance + close;
}

/* fn on the world's workers, or on the caller alone when the runtime refuses (another thread runs a graph on it
 * meanwhile): the stage's work is done either way. Every fn here covers all its work for (0, 1). */
static void on_workers(pf_world *w, const pf_collision_stage *c, void (*fn)(void *ctx, int worker, int workers),
                       void *ctx)
{
    if (c->nlanes < 2 || pf_runtime_parallel(w->rt, fn, ctx) != PF_OK) fn(ctx, 0, 1);
}

typedef struct chunks_run {
    const pf_collision_stage *c;
    size_t n, chunk;
    void (*fn)(void *ctx, size_t lo, size_t hi, int lane);
    void *ctx;
    _Atomic size_t next;
} chunks_run;

static void chunks_worker(void *ctx, int worker, int workers)
{
    (void)workers;
    chunks_run *r = ctx;
    if (worker >= r->c->nlanes) return; /* more workers than lanes: the others rest */
    for (size_t lo; (lo = atomic_fetch_add_explicit(&r->next, r->chunk, memory_order_relaxed)) < r->n;)
        r->fn(r->ctx, lo, r->n - lo > r->chunk ? lo + r->chunk : r->n, worker);
}

void pf_collide_chunks(pf_world *w, const pf_collision_stage *c, size_t n, size_t chunk,
                       void (*fn)(void *ctx, size_t lo, size_t hi, int lane), void *ctx)
{
    chunks_run r = {c, n, chunk ? chunk : 1, fn, ctx, 0};
    if (n > r.chunk)
        on_workers(w, c, chunks_worker, &r);
    else if (n)
        fn(ctx, 0, n, 0);
}

/* A slice's vertices: positions and velocities mapped, and their bounds grown by the surface's radius. */
static void slice_bounds(pf_world *w, surface_slice *sl)
{
    pf_surface *sf = w->surf.v[sl->surf];
    const pf_object *o = w->obj.v[sf->object];
    pf_surface_positions_range(sf, o, o->x, sl->lo, sl->hi);
    pf_surface_velocities_range(sf, o, o->x, o->v, sl->lo, sl->hi);
    const double *p = sf->pos;
    pf_aabb b = box_at(p + 3 * (size_t)sl->lo, sf->radius);
    for (uint32_t v = sl->lo + 1; v < sl->hi; v++) grow(&b, p + 3 * (size_t)v, sf->radius);
    sl->bounds = b;
}

typedef struct bounds_run {
    pf_world *w;
    pf_collision_stage *c;
    _Atomic size_t next;
} bounds_run;

/* Surface s's slices' bounds merged (a min and a max: any order gives the same box) and its motion. */
static void surface_done(bounds_run *r, uint32_t s)
{
    const pf_collision_stage *c = r->c;
    size_t k0 = c->sc[s].first_slice;
    pf_aabb b = c->slices.v[k0].bounds;
    for (size_t j = k0 + 1; j < c->slices.n && c->slices.v[j].surf == s; j++)
        for (int d = 0; d < 3; d++) {
            if (c->slices.v[j].bounds.min[d] < b.min[d]) b.min[d] = c->slices.v[j].bounds.min[d];
            if (c->slices.v[j].bounds.max[d] > b.max[d]) b.max[d] = c->slices.v[j].bounds.max[d];
        }
    r->c->sc[s].bounds = b;
    surface_motion(r->w->surf.v[s], &r->c->sc[s]);
}

/* The slices, taken one at a time; the worker that bounds a surface's last slice (its count of slices left,
 * acquire-release: it sees the others' bounds) finishes the surface. One run of the workers where a second run
 * merged the surfaces after all slices (heterogeneous: 20 surfaces of one slice each). */
static void slices_worker(void *ctx, int worker, int workers)
{
    (void)worker, (void)workers;
    bounds_run *r = ctx;
    for (size_t k; (k = atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed)) < r->c->slices.n;) {
        surface_slice *sl = &r->c->slices.v[k];
        slice_bounds(r->w, sl);
        if (atomic_fetch_sub_explicit(&r->c->sc[sl->surf].slices_left, 1, memory_order_acq_rel) == 1)
            surface_done(r, sl->surf);
    }
}

/* vertices of a slice: a large surface (100,000 particles) spreads over the workers; mapping a vertex costs tens
 * of nanoseconds, so a slice costs far more than taking it */
enum { BOUNDS_SLICE = 8192 };

/* Every surface's positions, motion and bounds, on the world's workers; c->sboxes: the bounds grown by the alarm
 * distance and by how far the surface moves in the step, so that two surfaces that could meet within the step
 * are a broad-phase pair. A removed object's surfaces are empty: they get no bounds and meet nothing. */
static int surface_bounds(pf_world *w, pf_collision_stage *c)
{
    c->slices.n = 0;
    for (uint32_t s = 0; s < w->surf.n; s++) {
        c->sc[s].first_slice = (uint32_t)c->slices.n;
        uint32_t n = 0;
        for (uint32_t lo = 0; lo < w->surf.v[s]->nv; lo += BOUNDS_SLICE, n++) {
            uint32_t hi = w->surf.v[s]->nv - lo > BOUNDS_SLICE ? lo + BOUNDS_SLICE : w->surf.v[s]->nv;
            if (pf_vec_push(&c->slices, ((surface_slice){s, lo, hi, {{0}, {0}}}))) return pf_error(PF_ENOMEM, "out of memory");
        }
        atomic_store_explicit(&c->sc[s].slices_left, n, memory_order_relaxed);
    }
    bounds_run run = {w, c, 0};
    if (c->slices.n > 1)
        on_workers(w, c, slices_worker, &run);
    else
        slices_worker(&run, 0, 1);
    c->live.n = 0;
    for (uint32_t s = 0; s < w->surf.n; s++) {
        if (!w->surf.v[s]->nv) continue;
        const pf_aabb b = c->sc[s].bounds;
        /* Grown by the alarm distance, two surfaces' boxes meet while their gap is below 2 alarm; a pair that may
         * close to the contact distance within the step has a gap below contact + its two motions. So each box
         * grows further by its motion beyond half of (2 alarm - contact), only for surfaces that fast. */
        double motion = (sqrt(dot3(c->sc[s].vmean, c->sc[s].vmean)) + c->sc[s].spread) * w->def.dt;
        double spare = c->def.alarm_distance - 0.5 * c->def.contact_distance;
        double a = c->def.alarm_distance + (motion > spare ? motion - spare : 0);
        c->sboxes.v[c->live.n] =
            (pf_aabb){{b.min[0] - a, b.min[1] - a, b.min[2] - a}, {b.max[0] + a, b.max[1] + a, b.max[2] + a}};
        c->live.v[c->live.n++] = s;
    }
    return PF_OK;
}

/* The structure of the surfaces' indexes, after the world's broad-phase method: hhash and mlhash by the same
 * name; grid, a uniform hash grid, the uniform hash. kd too keeps the uniform hash: the kd tree of the boxes'
 * centres (PF_QUERY_KD), searched with each query grown by the largest half-extent, made heterogeneous's
 * collision stage 40% slower (8.6-10.1 ms against 12.0-14.2, steps 200-299). sap, brute and the peers have no
 * query structure: the uniform hash. The contacts never depend on it: a query gives exactly the boxes it
 * overlaps, sorted by id. */
static pf_query_method index_method(pf_broadphase_method m)
{
    switch (m) {
    case PF_BP_HHASH: return PF_QUERY_HHASH;
    case PF_BP_MLHASH: return PF_QUERY_MLHASH;
    default: return PF_QUERY_UHASH;
    }
}

/* Whether no vertex of sf has moved farther than `slack` along any axis since `built` was taken (less 1%, far
 * above the rounding of the boxes' bounds). */
static int within_slack(const pf_surface *sf, const double *built, double slack)
{
    for (size_t i = 0; i < 3 * (size_t)sf->nv; i++)
        if (!(fabs(sf->pos[i] - built[i]) <= 0.99 * slack)) return 0;
    return 1;
}

/* The index of a surface's triangles (spheres: of its vertices grown by its radius; edges: of its edges grown by
 * its radius), at most once per pass. Its boxes are grown by c->index_slack alarm distances (PF_INDEX_SLACK), and
 * it is kept while no vertex has moved that far since it was built (temporal coherence: a piled object moves
 * micrometres per step):
 * each feature's box then still holds the feature, and the exact test rejects the few more candidates the
 * grown boxes give. A rigid surface's triangles are indexed in its body frame, where they never move: built once,
 * and queried with the query box taken into that frame (body_box). */
static int surface_index(pf_collision_stage *c, const pf_surface *sf, uint32_t s, int kind, pf_query_index **out)
{
    surface_cache *sc = &c->sc[s];
    int spheres = kind == JOB_SPHERES;
    pf_query_index **ix = kind == JOB_EDGES ? &sc->edge : spheres ? &sc->sph : &sc->tri;
    uint64_t *pass = kind == JOB_EDGES ? &sc->edge_pass : spheres ? &sc->sph_pass : &sc->tri_pass;
    int body = kind == JOB_TRIANGLES && sf->mapping == PF_SURFACE_RIGID;
    const double *pos = body ? sf->local : sf->pos;
    double slack = body ? 0 : c->index_slack * c->def.alarm_distance;
    *out = *ix;
    if (*ix && (*pass == c->passes || (body && sc->tri_body))) return PF_OK;
    if (*ix && !body && slack > 0 && sc->slack[kind] == slack && sc->built[kind].n == 3 * (size_t)sf->nv &&
        within_slack(sf, sc->built[kind].v, slack)) {
        *pass = c->passes;
        return PF_OK;
    }
    size_t n = kind == JOB_EDGES ? sf->ne : spheres ? sf->nv : sf->nt;
    if (pf_vec_reserve(&sc->boxes, n)) return pf_error(PF_ENOMEM, "out of memory");
    sc->boxes.n = n;
    for (size_t k = 0; k < n; k++) {
        if (spheres) {
            sc->boxes.v[k] = box_at(sf->pos + 3 * k, sf->radius + slack);
            continue;
        }
        if (kind == JOB_EDGES) {
            const uint32_t *e = sf->edge + 2 * k;
            sc->boxes.v[k] = box_at(sf->pos + 3 * (size_t)e[0], sf->radius + slack);
            grow(&sc->boxes.v[k], sf->pos + 3 * (size_t)e[1], sf->radius + slack);
            continue;
        }
        const uint32_t *t = sf->tri + 3 * k;
        sc->boxes.v[k] = box_at(pos + 3 * (size_t)t[0], slack);
        grow(&sc->boxes.v[k], pos + 3 * (size_t)t[1], slack);
        grow(&sc->boxes.v[k], pos + 3 * (size_t)t[2], slack);
    }
    if (!*ix) {
        pf_query_def d = pf_query_default_def();
        d.method = index_method(c->def.broadphase);
        int rc = pf_query_index_create(&d, ix);
        if (rc) return rc;
    }
    int rc = pf_query_index_build(*ix, sc->boxes.v, n);
    if (rc) return rc;
    atomic_fetch_add_explicit(&c->index_builds, 1, memory_order_relaxed);
    *pass = c->passes;
    if (body) sc->tri_body = 1;
    if (!body) {
        if (pf_vec_reserve(&sc->built[kind], 3 * (size_t)sf->nv)) return pf_error(PF_ENOMEM, "out of memory");
        memcpy(sc->built[kind].v, sf->pos, 3 * (size_t)sf->nv * sizeof(double));
        sc->built[kind].n = 3 * (size_t)sf->nv;
        sc->slack[kind] = slack;
    }
    *out = *ix;
    return PF_OK;
}

static int by_id(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* The ids a query found, in increasing order (so the narrow phase's order depends on the data only). */
static const uint32_t *query(collide_lane *L, const pf_query_index *ix, const pf_aabb *box, size_t *n)
{
    if (pf_query_aabb(ix, box, L->ids)) {
        *n = 0;
        return NULL;
    }
    uint32_t *ids = (uint32_t *)pf_id_buffer_ids(L->ids, n);
    if (*n > 1) qsort(ids, *n, sizeof *ids, by_id);
    return ids;
}

/* The ids a query found, in the index's order (a function of the index and the box only), for a vertex's
 * triangles: their finds differ in their triangle, and cand_order tells every two apart, so the lane's sort puts
 * them in one order whatever order they were tested in. */
static const uint32_t *query_unsorted(collide_lane *L, const pf_query_index *ix, const pf_aabb *box, size_t *n)
{
    if (pf_query_aabb(ix, box, L->ids)) {
        *n = 0;
        return NULL;
    }
    return pf_id_buffer_ids(L->ids, n);
}

/* A rigid surface's frame at the current state: what takes a world box into its body frame (body_box). */
typedef struct body_frame {
    double R[9], com[3], scale;
} body_frame;

static body_frame frame_of_state(const double *x)
{
    body_frame f;
    pf_rigid_rotation(x, f.R);
    memcpy(f.com, x, sizeof f.com);
    f.scale = fabs(f.com[0]) + fabs(f.com[1]) + fabs(f.com[2]);
    return f;
}

/* The body-frame box holding world box b rotated into the frame (local = R^T (p - com)), grown by a margin far
 * above the rounding of both transforms: it holds every triangle whose world box meets b, and the narrow phase,
 * which tests each candidate exactly in the world frame, rejects the few more it may hold. */
static pf_aabb body_box(const body_frame *f, const pf_aabb *b)
{
    double c[3], h[3], lc[3], lh[3];
    for (int i = 0; i < 3; i++) c[i] = 0.5 * (b->min[i] + b->max[i]) - f->com[i], h[i] = 0.5 * (b->max[i] - b->min[i]);
    double margin = 1e-9 * (f->scale + fabs(c[0]) + fabs(c[1]) + fabs(c[2]) + h[0] + h[1] + h[2]);
    pf_aabb out;
    for (int a = 0; a < 3; a++) {
        lc[a] = f->R[a] * c[0] + f->R[3 + a] * c[1] + f->R[6 + a] * c[2];
        lh[a] = fabs(f->R[a]) * h[0] + fabs(f->R[3 + a]) * h[1] + fabs(f->R[6 + a]) * h[2] + margin;
        out.min[a] = lc[a] - lh[a], out.max[a] = lc[a] + lh[a];
    }
    return out;
}

pf_aabb pf_body_query_box(const double *x, const pf_aabb *b)
{
    body_frame f = frame_of_state(x);
    return body_box(&f, b);
}

/* The unit normal of triangle tr (counter-clockwise), and the signed distance of p to its plane along it; a
 * degenerate triangle gives a zero normal and distance. */
static double triangle_plane(const pf_triangle *tr, const double p[3], double nf[3])
{
    double e1[3], e2[3], rel[3];
    for (int i = 0; i < 3; i++) e1[i] = tr->v[1][i] - tr->v[0][i], e2[i] = tr->v[2][i] - tr->v[0][i];
    for (int i = 0; i < 3; i++) rel[i] = p[i] - tr->v[0][i];
    pf_cross(e1, e2, nf);
    double len = sqrt(dot3(nf, nf));
    if (!(len > 0)) {
        nf[0] = nf[1] = nf[2] = 0;
        return 0;
    }
    for (int i = 0; i < 3; i++) nf[i] /= len;
    return dot3(rel, nf);
}

/* Vertex v of surface ps against triangle t of surface ts, features at most reach_gap apart: 1 and *out when
 * they are, 0 when not, < 0 on an invalid triangle. */
static int vertex_triangle(const pf_world *w, uint32_t ps, uint32_t v, uint32_t ts, uint32_t t, double reach_gap,
                           double contact_distance, candidate *out)
{
    const pf_surface *S = w->surf.v[ps], *T = w->surf.v[ts];
    pf_proximity_def pd = {reach_gap, contact_distance};
    pf_sphere pt = {{0}, S->radius, S->object, v};
    memcpy(pt.center, S->pos + 3 * (size_t)v, sizeof pt.center);
    const uint32_t *tv = T->tri + 3 * (size_t)t;
    pf_triangle tr = {.object = T->object, .element = t};
    for (int i = 0; i < 3; i++) memcpy(tr.v[i], T->pos + 3 * (size_t)tv[i], sizeof tr.v[i]);
    pf_contact ct;
    int hit = pf_narrow_sphere_triangle(&pd, &pt, &tr, &ct);
    if (hit <= 0) return hit;
    candidate cd = {.pobj = S->object, .tobj = T->object, .psurf = ps, .pvert = v, .kind = CAND_TRIANGLE,
                    .tsurf = ts, .telem = t, .n = {ct.normal[0], ct.normal[1], ct.normal[2]},
                    .offset = S->radius, .dist = ct.distance, .rank = {1, 0, 0}};
    barycentric(tr.v[0], tr.v[1], tr.v[2], ct.point_b, cd.bary);
    cd.plane = triangle_plane(&tr, pt.center, cd.nf);
    cd.closed = (uint32_t)T->closed;
    double lat[3], scale = 0; /* (centre - closest point) less its part along the face normal */
    for (int i = 0; i < 3; i++) {
        lat[i] = pt.center[i] - ct.point_b[i] - cd.plane * cd.nf[i];
        scale = fmax(scale, fabs(pt.center[i]));
    }
    double l = sqrt(dot3(lat, lat));
    /* rounding leaves ~1e-16 of the coordinates in a face region's offset: that is no offset */
    cd.lateral = l > 1e-12 * scale + 1e-9 * fabs(cd.plane) ? l : 0;
    if (T->closed) {
        cd.rank[1] = cd.lateral;
        cd.rank[2] = -cd.plane;
    } else {
        cd.rank[1] = ct.distance;
    }
    *out = cd;
    return 1;
}

/* Whether the triangle tv of positions x is surely farther than `reach` from point p: all three of its vertices
 * lie beyond p's box of half-side reach on one side along some axis, by more than a margin far above the rounding
 * of the exact test's closest point and distance. The index's boxes are grown by the slack (PF_INDEX_SLACK alarm
 * distances) and a rigid surface's are queried in its body frame with a grown box, so much of what a query gives
 * is that far (heterogeneous: 42% over its first 100 steps); the exact test (pf_narrow_sphere_triangle: its
 * checks, the closest point, the normal, the barycentric coordinates) costs several times these compares. A
 * triangle culled could never be a contact: the exact test finds one when the distance is below reach_gap, and
 * reach = reach_gap + radius. A NaN or an infinite coordinate makes every compare false: such a triangle goes on
 * to the exact test, which reports it. */
static inline int beyond_reach(const double *p, const double *x, const uint32_t *tv, double reach)
{
    const double *a = x + 3 * (size_t)tv[0], *b = x + 3 * (size_t)tv[1], *t = x + 3 * (size_t)tv[2];
    for (int d = 0; d < 3; d++) {
        double r = reach + 1e-9 * (reach + fabs(p[d]) + fabs(a[d]) + fabs(b[d]) + fabs(t[d]));
        if ((p[d] - a[d] > r && p[d] - b[d] > r && p[d] - t[d] > r) ||
            (a[d] - p[d] > r && b[d] - p[d] > r && t[d] - p[d] > r))
            return 1;
    }
    return 0;
}

/* The vertices lo .. hi - 1 of surface ps (points or spheres) against the triangles of surface ts (ps == ts: those
 * that do not contain the vertex), features at most reach_gap apart: each triangle a vertex's query gives is culled
 * by its own box (beyond_reach) before the exact test. c->exact_all (tests): every triangle tested exactly, in id
 * order. */
static int vertices_triangles(const pf_world *w, const pf_collision_stage *c, collide_lane *L, uint32_t ps,
                              uint32_t ts, uint32_t lo, uint32_t hi, double reach_gap)
{
    const pf_surface *S = w->surf.v[ps], *T = w->surf.v[ts];
    const pf_query_index *ix = c->sc[ts].tri; /* built before the narrow phase */
    int body = c->sc[ts].tri_body, rc;
    body_frame f = body ? frame_of_state(w->obj.v[w->surf.v[ts]->object]->x) : (body_frame){{0}, {0}, 0};
    double reach = reach_gap + S->radius;
    for (uint32_t v = lo; v < S->nv && v < hi; v++) {
        pf_aabb box = box_at(S->pos + 3 * (size_t)v, reach);
        if (!overlap(&box, &c->sc[ts].bounds)) continue;
        if (body) box = body_box(&f, &box);
        size_t n;
        const uint32_t *ids = c->exact_all ? query(L, ix, &box, &n) : query_unsorted(L, ix, &box, &n);
        const double *p = S->pos + 3 * (size_t)v;
        for (size_t k = 0; k < n; k++) {
            const uint32_t *tv = T->tri + 3 * (size_t)ids[k];
            if (ps == ts && (tv[0] == v || tv[1] == v || tv[2] == v)) continue; /* its own triangles */
            L->examined++;
            if (!c->exact_all && beyond_reach(p, T->pos, tv, reach)) {
                L->culled++;
                continue;
            }
            candidate cd;
            int hit = vertex_triangle(w, ps, v, ts, ids[k], reach_gap, c->def.contact_distance, &cd);
            if (hit < 0) return hit;
            if (hit && (rc = add_candidate(L, &cd))) return rc;
        }
    }
    return PF_OK;
}

/* Sphere v of surface ps against sphere u of surface qs. */
static int sphere_pair(const pf_world *w, const pf_collision_stage *c, collide_lane *L, uint32_t ps, uint32_t v,
                       uint32_t qs, uint32_t u, double reach_gap)
{
    const pf_surface *S = w->surf.v[ps], *Q = w->surf.v[qs];
    pf_proximity_def pd = {reach_gap, c->def.contact_distance};
    pf_sphere a = {{0}, S->radius, S->object, v}, b = {{0}, Q->radius, Q->object, u};
    memcpy(a.center, S->pos + 3 * (size_t)v, sizeof a.center);
    memcpy(b.center, Q->pos + 3 * (size_t)u, sizeof b.center);
    pf_contact ct;
    int hit = pf_narrow_sphere_sphere(&pd, &a, &b, &ct);
    if (hit <= 0) return hit;
    candidate cd = {.pobj = S->object, .tobj = Q->object, .psurf = ps, .pvert = v, .kind = CAND_SPHERE,
                    .tsurf = qs, .telem = u, .n = {ct.normal[0], ct.normal[1], ct.normal[2]},
                    .offset = S->radius + Q->radius, .dist = ct.distance, .rank = {1, ct.distance, 0}};
    return add_candidate(L, &cd);
}

/* The spheres lo .. hi - 1 of surface ps against those of surface qs (another object's). */
static int spheres_spheres(const pf_world *w, const pf_collision_stage *c, collide_lane *L, uint32_t ps,
                           uint32_t qs, uint32_t lo, uint32_t hi, double reach_gap)
{
    const pf_surface *S = w->surf.v[ps];
    const pf_query_index *ix = c->sc[qs].sph; /* built before the narrow phase */
    int rc;
    for (uint32_t v = lo; v < S->nv && v < hi; v++) {
        pf_aabb box = box_at(S->pos + 3 * (size_t)v, S->radius + reach_gap);
        if (!overlap(&box, &c->sc[qs].bounds)) continue;
        size_t n;
        const uint32_t *ids = query(L, ix, &box, &n);
        for (size_t k = 0; k < n; k++, L->examined++)
            if ((rc = sphere_pair(w, c, L, ps, v, qs, ids[k], reach_gap))) return rc;
    }
    return PF_OK;
}

/* The spheres of surface ps against those lo .. hi - 1 of qs, searched from qs's side: each sphere of qs queries
 * the index of ps's spheres. plan_jobs picks it when ps's spheres are the larger: a large query box covers many
 * cells of an index of small ones (fluid-over-spheres: an obstacle of radius 2^-3 m over the particles' cells of 2^-6 m,
 * 4,096 of them), while a small box covers at most 8 cells of an index of large ones. The contacts are those of
 * spheres_spheres(ps, qs): the same pairs of boxes overlap either way, and each candidate is made with ps's
 * sphere first. */
static int spheres_spheres_from(const pf_world *w, const pf_collision_stage *c, collide_lane *L, uint32_t ps,
                                uint32_t qs, uint32_t lo, uint32_t hi, double reach_gap)
{
    const pf_surface *Q = w->surf.v[qs];
    const pf_query_index *ix = c->sc[ps].sph; /* built before the narrow phase */
    int rc;
    for (uint32_t u = lo; u < Q->nv && u < hi; u++) {
        pf_aabb box = box_at(Q->pos + 3 * (size_t)u, Q->radius + reach_gap);
        if (!overlap(&box, &c->sc[ps].bounds)) continue;
        size_t n;
        const uint32_t *ids = query(L, ix, &box, &n);
        for (size_t k = 0; k < n; k++, L->examined++)
            if ((rc = sphere_pair(w, c, L, ps, ids[k], qs, u, reach_gap))) return rc;
    }
    return PF_OK;
}

/* The spheres of one surface among themselves, on the world's workers: their boxes, then the broad phase's pairs
 * tested, each in chunks taken one at a time (a late worker's share goes to the others); the finds go into the
 * worker's lane (the lanes' finds are sorted and merged afterwards: their order is the data's, whatever worker
 * found them). */
typedef struct within_run {
    const pf_world *w;
    pf_collision_stage *c;
    uint32_t s;
    double r, reach_gap;
    const pf_pair *pairs;
    size_t np;
    _Atomic size_t next;
} within_run;

/* boxes or pairs of a chunk: thousands of boxes or sphere tests (nanoseconds to tens of nanoseconds each) against
 * one atomic increment */
enum { WITHIN_CHUNK = 4096 };

static void within_boxes_worker(void *ctx, int worker, int workers)
{
    (void)worker, (void)workers;
    within_run *r = ctx;
    const pf_surface *S = r->w->surf.v[r->s];
    pf_aabb *boxes = r->c->sc[r->s].boxes.v;
    for (size_t v0; (v0 = atomic_fetch_add_explicit(&r->next, WITHIN_CHUNK, memory_order_relaxed)) < S->nv;)
        for (size_t v = v0; v < S->nv && v < v0 + WITHIN_CHUNK; v++) boxes[v] = box_at(S->pos + 3 * v, r->r);
}

static void within_pairs_worker(void *ctx, int worker, int workers)
{
    (void)workers;
    within_run *r = ctx;
    pf_collision_stage *c = r->c;
    if (worker >= c->nlanes) return; /* more workers than lanes: the others rest */
    collide_lane *L = &c->lanes[worker];
    for (size_t k0; (k0 = atomic_fetch_add_explicit(&r->next, WITHIN_CHUNK, memory_order_relaxed)) < r->np;)
        for (size_t k = k0; k < r->np && k < k0 + WITHIN_CHUNK; k++, L->examined++) {
            int rc = sphere_pair(r->w, c, L, r->s, r->pairs[k].i, r->s, r->pairs[k].j, r->reach_gap);
            if (rc) {
                L->rc = rc;
                return;
            }
        }
}

/* Whether the spheres of surface s meet each other (particles of one moving object). */
static int spheres_meet(const pf_world *w, uint32_t s)
{
    const pf_surface *S = w->surf.v[s];
    return S->radius > 0 && S->nv > 1 && !pf_object_is_static(w->obj.v[S->object]);
}

/* The spheres of one surface among themselves (particles of one object), through the broad phase. */
static int spheres_within(pf_world *w, pf_collision_stage *c, uint32_t s)
{
    const pf_surface *S = w->surf.v[s];
    surface_cache *sc = &c->sc[s];
    if (pf_vec_reserve(&sc->boxes, S->nv)) return pf_error(PF_ENOMEM, "out of memory");
    sc->boxes.n = S->nv;
    /* two boxes meet when the gap is within the reach: the alarm distance, or how far two of its spheres may
     * approach each other within the step when that is more (the rule broken, counted) */
    double reach_gap = pair_reach(c, 2 * sc->spread * w->def.dt);
    within_run run = {w, c, s, S->radius + reach_gap / 2, reach_gap, NULL, 0, 0};
    if (S->nv > WITHIN_CHUNK)
        on_workers(w, c, within_boxes_worker, &run);
    else
        within_boxes_worker(&run, 0, 1);
    sc->sph_pass = 0; /* the scratch boxes are not the sphere index's any more */
    int rc = pf_broadphase_pairs(c->bp, sc->boxes.v, S->nv, &run.pairs, &run.np, NULL);
    if (rc) return rc;
    run.next = 0;
    if (run.np > WITHIN_CHUNK)
        on_workers(w, c, within_pairs_worker, &run);
    else
        within_pairs_worker(&run, 0, 1);
    return PF_OK;
}

/* The edges lo .. hi - 1 of surface ps against those of surface qs, or (ps == qs) against the edges of their own
 * surface that share no vertex with them, each pair once. */
static int edges_edges(const pf_world *w, const pf_collision_stage *c, collide_lane *L, uint32_t ps, uint32_t qs,
                       uint32_t lo, uint32_t hi, double reach_gap)
{
    const pf_surface *S = w->surf.v[ps], *Q = w->surf.v[qs];
    const pf_query_index *ix = c->sc[qs].edge; /* built before the narrow phase */
    pf_proximity_def pd = {reach_gap, c->def.contact_distance};
    double reach = reach_gap + S->radius + Q->radius;
    int rc;
    for (uint32_t e = lo; e < S->ne && e < hi; e++) {
        const uint32_t *ev = S->edge + 2 * (size_t)e;
        pf_aabb box = box_at(S->pos + 3 * (size_t)ev[0], reach);
        grow(&box, S->pos + 3 * (size_t)ev[1], reach);
        if (!overlap(&box, &c->sc[qs].bounds)) continue;
        size_t n;
        const uint32_t *ids = query(L, ix, &box, &n);
        for (size_t k = 0; k < n; k++) {
            const uint32_t *fv = Q->edge + 2 * (size_t)ids[k];
            if (ps == qs && (ids[k] <= e || fv[0] == ev[0] || fv[0] == ev[1] || fv[1] == ev[0] || fv[1] == ev[1]))
                continue; /* each pair once, neighbours never */
            candidate cd;
            int hit = pf_collide_edge_pair(S, ps, e, Q, qs, ids[k], &pd, &cd);
            L->examined++;
            if (hit < 0) return hit;
            if (hit && (rc = add_candidate(L, &cd))) return rc;
        }
    }
    return PF_OK;
}

/* A sphere job searched from b's side (spheres_spheres_from): it queries a's sphere index. */
enum { JOB_SPHERES_FROM_B = JOB_EDGES + 1 };

/* The surface whose index a job queries, and the kind of that index. */
static uint32_t job_indexed(const collide_job *jb)
{
    return jb->kind == JOB_SPHERES_FROM_B ? jb->a : jb->b;
}

static int job_index_kind(const collide_job *jb)
{
    return jb->kind == JOB_SPHERES_FROM_B ? JOB_SPHERES : jb->kind;
}

/* The narrow-phase jobs, taken one at a time by the world's workers (pf_runtime_parallel), each into its lane,
 * after the indexes they query. */
typedef struct narrow_run {
    pf_world *w;
    pf_collision_stage *c;
    _Atomic size_t next;
    _Atomic size_t next_index; /* the next surface of c->indexed to build the indexes of */
    _Atomic int failed;
    _Atomic size_t keep_next; /* the next lane's share of the previous contacts to keep (keep_share) */
    int sort;                 /* each worker sorts its lane once its jobs run out: no other finds follow */
} narrow_run;

static void keep_share(pf_world *w, pf_collision_stage *c, size_t l);
static void sort_lane(collide_lane *L);

/* The indexes the jobs query: each surface of c->indexed (named by some job), every index of it that some job
 * needs, by one worker (its kinds share the surface's scratch boxes), the largest surfaces first (order_indexed);
 * each surface's stamp then says its indexes are ready (a failed build too: the jobs then stop). */
static void build_indexes(narrow_run *r)
{
    pf_collision_stage *c = r->c;
    for (size_t k; (k = atomic_fetch_add_explicit(&r->next_index, 1, memory_order_relaxed)) < c->indexed.n;) {
        uint32_t b = c->indexed.v[k];
        pf_query_index *ix;
        for (int kind = JOB_TRIANGLES; kind <= JOB_EDGES; kind++)
            if ((c->sc[b].need >> kind & 1) && surface_index(c, r->w->surf.v[b], b, kind, &ix) != PF_OK)
                atomic_store_explicit(&r->failed, 1, memory_order_relaxed);
        pf_signal_stamp(&c->sc[b].index_done, &c->sc[b].index_waiters, (uint32_t)c->passes);
    }
}

/* The indexes first, then the lanes' shares of the previous contacts to keep (they depend on no index: a worker
 * takes them while another builds the largest index), then the jobs, each once the indexes it queries are ready
 * (a wait of one build at most: every build is under way), then the worker's lane sorted when no finds follow. One
 * run of the workers where four followed each other (the indexes before the jobs were a run of their own, which
 * the largest surface's build held); the contacts kept, which come in as many shares as lanes, before the jobs:
 * the jobs are taken costliest first (order_jobs), so that the last taken are short. */
static void narrow_worker(void *ctx, int worker, int workers)
{
    (void)workers;
    narrow_run *r = ctx;
    pf_collision_stage *c = r->c;
    collide_lane *L = &c->lanes[worker < c->nlanes ? worker : 0];
    if (worker >= c->nlanes) return; /* more workers than lanes: the others rest */
    build_indexes(r);
    for (size_t l; (l = atomic_fetch_add_explicit(&r->keep_next, 1, memory_order_relaxed)) < (size_t)c->nlanes;)
        keep_share(r->w, c, l);
    for (size_t k; (k = atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed)) < c->jobs.n;) {
        collide_job *jb = &c->jobs.v[c->order.v[k].job];
        surface_cache *ix = &c->sc[job_indexed(jb)];
        pf_wait_stamp(&ix->index_done, &ix->index_waiters, (uint32_t)c->passes, c->index_spin);
        if (atomic_load_explicit(&r->failed, memory_order_relaxed)) break; /* reported after the run */
        uint64_t t0 = pf_now_ns();
        int rc = jb->kind == JOB_SPHERES ? spheres_spheres(r->w, c, L, jb->a, jb->b, jb->lo, jb->hi, jb->reach)
                 : jb->kind == JOB_SPHERES_FROM_B
                     ? spheres_spheres_from(r->w, c, L, jb->a, jb->b, jb->lo, jb->hi, jb->reach)
                 : jb->kind == JOB_EDGES ? edges_edges(r->w, c, L, jb->a, jb->b, jb->lo, jb->hi, jb->reach)
                                         : vertices_triangles(r->w, c, L, jb->a, jb->b, jb->lo, jb->hi, jb->reach);
        jb->cost = pf_now_ns() - t0;
        if (rc) L->rc = rc;
    }
    if (r->sort) sort_lane(L);
}

/* The surfaces' needs of this pass's indexes forgotten (plan_jobs sets them, the narrow phase's builds read them). */
static void clear_needs(pf_collision_stage *c)
{
    for (size_t k = 0; k < c->jobs.n; k++) c->sc[job_indexed(&c->jobs.v[k])].need = 0;
}

static int add_job_range(pf_collision_stage *c, uint32_t a, uint32_t b, int kind, uint32_t lo, uint32_t hi,
                         double reach)
{
    if (pf_vec_push(&c->jobs, ((collide_job){a, b, kind, lo, hi, reach, 0})))
        return pf_error(PF_ENOMEM, "out of memory");
    return PF_OK;
}

/* The jobs of a surface pair, in slices of c->job_slice of the features the job runs over: a's vertices (edges),
 * or b's vertices for a sphere job searched from b's side. */
static int add_job(const pf_world *w, pf_collision_stage *c, uint32_t a, uint32_t b, int kind, double reach)
{
    const pf_surface *S = w->surf.v[kind == JOB_SPHERES_FROM_B ? b : a];
    uint64_t n = kind == JOB_EDGES ? S->ne : S->nv, slice = c->job_slice ? c->job_slice : PF_JOB_SLICE, lo = 0;
    int rc;
    do /* one job at least, as before the slices: it names the index it queries */
        rc = add_job_range(c, a, b, kind, (uint32_t)lo, lo + slice < n ? (uint32_t)(lo + slice) : UINT32_MAX, reach);
    while (!rc && (lo += slice) < n);
    return rc;
}


/* vertices (edges) of a self job: small enough to spread one cloth over the workers, large enough that its
 * queries (tens of microseconds) cost far more than taking the job (one atomic increment) */
enum { SELF_SLICE = 256 };

/* The jobs of the surfaces that collide with themselves (the broad phase pairs different surfaces only): every
 * step, for each such surface of a moving object, in slices. */
static int plan_self_jobs(const pf_world *w, pf_collision_stage *c)
{
    int rc = PF_OK;
    for (uint32_t s = 0; s < w->surf.n && !rc; s++) {
        const pf_surface *S = w->surf.v[s];
        if (!S->self_collision || !S->nv || pf_object_is_static(w->obj.v[S->object])) continue; /* nv 0: removed */
        double reach = pair_reach(c, 2 * c->sc[s].spread * w->def.dt); /* two of its vertices, each off its mean */
        for (uint32_t lo = 0; S->nt && lo < S->nv && !rc; lo += SELF_SLICE)
            rc = add_job_range(c, s, s, JOB_TRIANGLES, lo, lo + SELF_SLICE, reach);
        for (uint32_t lo = 0; S->lines && S->ne > 1 && lo < S->ne && !rc; lo += SELF_SLICE)
            rc = add_job_range(c, s, s, JOB_EDGES, lo, lo + SELF_SLICE, reach);
    }
    return rc;
}

/* The features a job runs over: a's vertices (edges) lo .. hi - 1, or b's vertices searched from b's side. */
static uint64_t job_features(const pf_world *w, const collide_job *jb)
{
    const pf_surface *S = w->surf.v[jb->kind == JOB_SPHERES_FROM_B ? jb->b : jb->a];
    uint32_t n = jb->kind == JOB_EDGES ? S->ne : S->nv, hi = jb->hi < n ? jb->hi : n;
    return hi > jb->lo ? hi - jb->lo : 0;
}

static int same_job(const collide_job *x, const collide_job *y)
{
    return x->a == y->a && x->b == y->b && x->kind == y->kind && x->lo == y->lo;
}

/* costliest first, then by job: a fixed order for equal costs */
static int costlier_first(const void *x, const void *y)
{
    const collide_rank *a = x, *b = y;
    if (a->cost != b->cost) return a->cost > b->cost ? -1 : 1;
    return (a->job > b->job) - (a->job < b->job);
}

/* previous jobs looked at for each job, from where the one before it was found: a pass's jobs come in the order of
 * the previous pass's, with a few added or gone where pairs of surfaces start or stop meeting */
enum { JOB_LOOKUP = 64 };

/* The order the workers take the jobs in (c->order): the costliest first, so that the jobs taken last are short
 * and the workers finish together (the longest processing time first rule; in plan order a job of 0.3 ms could
 * come last and keep one worker running alone). A job's cost is its time at the previous pass, found among that
 * pass's jobs by its surfaces, kind and first feature; a job new this pass comes before all of those (its cost
 * unknown), the larger first. Which worker runs a job never shows in the contacts: the lanes' finds are sorted and
 * merged (merge_runs). */
static int order_jobs(const pf_world *w, pf_collision_stage *c)
{
    if (pf_vec_reserve(&c->order, c->jobs.n + 1)) return pf_error(PF_ENOMEM, "out of memory");
    size_t m = c->last_jobs.n, hint = 0;
    for (size_t k = 0; k < c->jobs.n; k++) {
        const collide_job *jb = &c->jobs.v[k];
        uint64_t cost = UINT64_MAX / 2 + job_features(w, jb);
        for (size_t i = 0; i < m && i < JOB_LOOKUP; i++) {
            const collide_job *p = &c->last_jobs.v[(hint + i) % m];
            if (same_job(p, jb)) {
                cost = p->cost;
                hint = (hint + i + 1) % m;
                break;
            }
        }
        c->order.v[k] = (collide_rank){cost, (uint32_t)k};
    }
    c->order.n = c->jobs.n;
    if (c->order.n > 1) qsort(c->order.v, c->order.n, sizeof *c->order.v, costlier_first);
    return PF_OK;
}

/* The surfaces to index (c->indexed), the largest first: one surface's indexes are built by one worker, so a large
 * one taken last would hold the run. Its size: the features of the indexes it needs. */
static int order_indexed(const pf_world *w, pf_collision_stage *c)
{
    if (c->indexed.n < 2) return PF_OK;
    if (pf_vec_reserve(&c->order, c->indexed.n)) return pf_error(PF_ENOMEM, "out of memory");
    for (size_t k = 0; k < c->indexed.n; k++) {
        uint32_t b = c->indexed.v[k];
        const pf_surface *S = w->surf.v[b];
        uint8_t need = c->sc[b].need;
        uint64_t f = (need >> JOB_TRIANGLES & 1 ? S->nt : 0) + (need >> JOB_SPHERES & 1 ? S->nv : 0) +
                     (need >> JOB_EDGES & 1 ? S->ne : 0);
        c->order.v[k] = (collide_rank){f, b};
    }
    qsort(c->order.v, c->indexed.n, sizeof *c->order.v, costlier_first);
    for (size_t k = 0; k < c->indexed.n; k++) c->indexed.v[k] = c->order.v[k].job;
    return PF_OK;
}

/* The narrow-phase jobs of the surface pairs the broad phase found, in the order the workers take them, and the
 * surfaces whose indexes they query (built in the narrow phase's run, each surface by one worker). */
static int plan_jobs(pf_world *w, pf_collision_stage *c, const pf_pair *pairs, size_t np)
{
    /* the previous pass's jobs keep their costs (order_jobs) */
    collide_job *v = c->last_jobs.v;
    size_t cap = c->last_jobs.cap;
    c->last_jobs.v = c->jobs.v, c->last_jobs.n = c->jobs.n, c->last_jobs.cap = c->jobs.cap;
    c->jobs.v = v, c->jobs.cap = cap, c->jobs.n = 0;
    int rc = PF_OK;
    for (size_t k = 0; k < np && !rc; k++) {
        uint32_t i = c->live.v[pairs[k].i], j = c->live.v[pairs[k].j];
        const pf_surface *A = w->surf.v[i], *B = w->surf.v[j];
        if (A->object == B->object) continue; /* one object's surfaces: each meets itself alone (plan_self_jobs) */
        if (pf_object_is_static(w->obj.v[A->object]) && pf_object_is_static(w->obj.v[B->object])) continue;
        /* the rule (pf_collision_def): within a step a pair approaches by less than alarm - contact distance; a
         * pair that may approach by more is searched as far as it may come, so that its contacts still exist
         * before it crosses (contacts.c activates them ahead), and counted */
        double reach = pair_reach(c, approach(&c->sc[i], &c->sc[j], w->def.dt));
        if (B->nt) rc = add_job(w, c, i, j, JOB_TRIANGLES, reach);
        if (!rc && A->nt) rc = add_job(w, c, j, i, JOB_TRIANGLES, reach);
        if (!rc && A->radius > 0 && B->radius > 0)
            rc = add_job(w, c, i, j, A->radius > B->radius ? JOB_SPHERES_FROM_B : JOB_SPHERES, reach);
        if (!rc && A->lines && B->lines && A->ne && B->ne)
            rc = add_job(w, c, i < j ? i : j, i < j ? j : i, JOB_EDGES, reach);
    }
    if (!rc) rc = plan_self_jobs(w, c);
    /* the surfaces the jobs query, each once with the kinds of index they need */
    c->indexed.n = 0;
    for (size_t k = 0; k < c->jobs.n && !rc; k++) {
        uint32_t b = job_indexed(&c->jobs.v[k]);
        if (!c->sc[b].need && pf_vec_push(&c->indexed, b)) rc = pf_error(PF_ENOMEM, "out of memory");
        c->sc[b].need |= (uint8_t)(1u << job_index_kind(&c->jobs.v[k]));
    }
    if (!rc) rc = order_indexed(w, c);
    if (!rc) rc = order_jobs(w, c);
    if (rc) {
        clear_needs(c);
        return rc;
    }
    /* not ready at this pass (a stamp left from 2^31 passes ago would read as this pass's) */
    for (size_t k = 0; k < c->indexed.n; k++)
        atomic_store_explicit(&c->sc[c->indexed.v[k]].index_done, (uint32_t)c->passes - 1, memory_order_relaxed);
    return PF_OK;
}

/* Contact history: a vertex's triangle at the previous pass is tested again however deep behind its plane the
 * vertex has gone, while its projection on the plane stays within the contact distance of the triangle and it is
 * less than the alarm distance in front on the side it keeps. So a heavy load that compresses a soft contact past
 * the alarm distance is still pushed back. While the vertex is over the triangle (no lateral offset) that
 * triangle ranks first: a vertex that came down on a face keeps it when it sinks to the level of a neighbouring
 * face's plane (a box on an aligned box: its corners lie on the lower box's side planes). Once off it, the
 * triangle competes on geometry: keeping it would tilt the normal over its edge and push the vertex further off.
 * The sort drops the search's own find of the same vertex. */
/* Memories lo .. hi - 1 into lane l's kept finds. */
static int keep_range(pf_world *w, pf_collision_stage *c, collide_lane *L, size_t lo, size_t hi)
{
    double alarm = c->def.alarm_distance, over = c->def.contact_distance;
    for (size_t k = lo; k < hi; k++) {
        const contact_memory *m = &c->memory.v[k];
        if (m->kind != CAND_TRIANGLE) continue;
        if (m->psurf >= w->surf.n || m->tsurf >= w->surf.n || m->pvert >= w->surf.v[m->psurf]->nv ||
            m->telem >= w->surf.v[m->tsurf]->nt)
            continue; /* a memory from another world (a checkpoint is checked against the structure only) */
        candidate cd;
        int hit = vertex_triangle(w, m->psurf, m->pvert, m->tsurf, m->telem, 1e300, c->def.contact_distance, &cd);
        if (hit < 0) return hit;
        if (!hit || cd.lateral > over || !(m->side * cd.plane < alarm)) continue;
        cd.rank[0] = cd.lateral == 0 ? 0 : 1; /* preferred while over it, else on geometric merit */
        if (pf_vec_push(&L->kept, cd)) return PF_ENOMEM;
    }
    return PF_OK;
}

/* Lane l's finds kept: the l-th of the lanes' contiguous shares of the memory, sorted (cand_order, stable): the
 * lanes' runs one after the other are the memory's order (merge_runs). */
static void keep_share(pf_world *w, pf_collision_stage *c, size_t l)
{
    size_t n = c->memory.n, lanes = (size_t)c->nlanes;
    collide_lane *L = &c->lanes[l];
    L->kept.n = 0;
    L->keep_rc = keep_range(w, c, L, n * l / lanes, n * (l + 1) / lanes);
    if (!L->keep_rc && L->kept.n > 1) qsort(L->kept.v, L->kept.n, sizeof *L->kept.v, cand_order);
}

/* A memory's key: kind, vertex (an edge contact: its edge), other surface, and the other sphere or edge (a
 * triangle contact follows its vertex across the triangles of a surface). */
static int memory_cmp(const void *x, const void *y)
{
    const contact_memory *a = x, *b = y;
    if (a->kind != b->kind) return key_order(a->kind, b->kind); /* each key compared as read, as cand_order */
    if (a->psurf != b->psurf) return key_order(a->psurf, b->psurf);
    if (a->pvert != b->pvert) return key_order(a->pvert, b->pvert);
    if (a->tsurf != b->tsurf) return key_order(a->tsurf, b->tsurf);
    uint32_t ta = a->kind != CAND_TRIANGLE ? a->telem : 0, tb = b->kind != CAND_TRIANGLE ? b->telem : 0;
    return ta == tb ? 0 : key_order(ta, tb);
}

/* What the previous pass remembers of each contact: the tangential spring of its friction, and for a triangle
 * the side the vertex keeps - a closed surface's front always (a vertex behind one of its faces is inside the
 * solid); on an open surface (a cloth, a sheet) the side the vertex was on when its contact with that surface
 * began, so that a vertex pushed past the sheet is pushed back, not on through. */
static void recall(const pf_collision_stage *c, candidate *d)
{
    contact_memory key = {d->kind, d->psurf, d->pvert, d->tsurf, d->telem, 0, {0}};
    const contact_memory *m = c->memory.n ? bsearch(&key, c->memory.v, c->memory.n, sizeof key, memory_cmp) : NULL;
    d->remembered = m != NULL;
    if (m) memcpy(d->delta, m->delta, sizeof d->delta);
    if (d->kind == CAND_TRIANGLE) d->side = d->closed ? 1 : m ? m->side : d->plane >= 0 ? 1 : -1;
}

/* Contacts lo .. hi - 1 into memories at `to` (the same places), sorted by memory_cmp (stable: glibc's qsort). */
static void remember_range(const pf_collision_stage *c, contact_memory *to, size_t lo, size_t hi)
{
    for (size_t k = lo; k < hi; k++) {
        const candidate *d = &c->cand.v[k];
        contact_memory *m = &to[k];
        *m = (contact_memory){d->kind, d->psurf, d->pvert, d->tsurf, d->telem, d->side, {0}};
        memcpy(m->delta, d->delta, sizeof m->delta);
    }
    if (hi - lo > 1) qsort(to + lo, hi - lo, sizeof *to, memory_cmp);
}

/* Lane l's contiguous share of the contacts remembered and sorted into c->recent. */
static void remember_share(void *ctx, size_t lo, size_t hi, int lane)
{
    (void)lane;
    const pf_collision_stage *c = ctx;
    size_t n = c->cand.n, lanes = (size_t)c->nlanes;
    for (size_t l = lo; l < hi; l++) remember_range(c, c->recent.v, n * l / lanes, n * (l + 1) / lanes);
}

int pf_collide_remember(pf_world *w, pf_collision_stage *c)
{
    size_t n = c->cand.n, lanes = (size_t)c->nlanes;
    c->memory.n = 0;
    if (pf_vec_reserve(&c->memory, n + 1)) return pf_error(PF_ENOMEM, "out of memory");
    if (lanes < 2 || n < PF_PARALLEL_PARTS * (size_t)(c->part ? c->part : PF_MERGE_PART)) { /* sorted in place */
        remember_range(c, c->memory.v, 0, n);
        c->memory.n = n;
        return PF_OK;
    }
    /* the lanes' shares sorted on the workers, then merged: of equal memories the earlier share's first, as the
     * stable sort of the whole would put them */
    if (pf_vec_reserve(&c->recent, n)) return pf_error(PF_ENOMEM, "out of memory");
    pf_collide_chunks(w, c, lanes, 1, remember_share, c);
    if (pf_vec_reserve(&c->merge_at, 2 * lanes)) return pf_error(PF_ENOMEM, "out of memory");
    size_t *at = c->merge_at.v;
    for (size_t l = 0; l < lanes; l++) at[2 * l] = n * l / lanes, at[2 * l + 1] = n * (l + 1) / lanes;
    for (size_t k = 0; k < n; k++) {
        size_t best = lanes;
        for (size_t l = 0; l < lanes; l++)
            if (at[2 * l] < at[2 * l + 1] &&
                (best == lanes || memory_cmp(&c->recent.v[at[2 * l]], &c->recent.v[at[2 * best]]) < 0))
                best = l;
        c->memory.v[k] = c->recent.v[at[2 * best]++];
    }
    c->memory.n = n;
    return PF_OK;
}

/* A lane's finds in cand_order (glibc's qsort is a stable merge sort: finds that compare equal keep the order of
 * their lane), once. */
static void sort_lane(collide_lane *L)
{
    if (!L->sorted && L->cand.n > 1) qsort(L->cand.v, L->cand.n, sizeof(candidate), cand_order);
    L->sorted = 1;
}

/* The lanes not sorted yet: worker, worker + workers, ... */
static void sort_worker(void *ctx, int worker, int workers)
{
    pf_collision_stage *c = ctx;
    for (int l = worker; l < c->nlanes; l += workers) sort_lane(&c->lanes[l]);
}

/* The sorted runs (the lanes' finds, then the lanes' kept contacts) merged into c->cand through a heap of run
 * heads; of finds that compare equal the earlier run's comes first. The result is the stable sort of the runs one
 * after the other, as if they had been sorted as one array. */
static int head_before(const run_head *a, const run_head *b)
{
    int o = cand_order(a->at, b->at);
    return o < 0 || (o == 0 && a->run < b->run);
}

static void sift_down(run_head *h, int n, int i)
{
    for (;;) {
        int l = 2 * i + 1, best = i;
        if (l < n && head_before(&h[l], &h[best])) best = l;
        if (l + 1 < n && head_before(&h[l + 1], &h[best])) best = l + 1;
        if (best == i) return;
        run_head t = h[i];
        h[i] = h[best], h[best] = t;
        i = best;
    }
}

/* One contact per vertex and object: the nearest triangle (sphere pairs are unique already); one per pair of line
 * features (edge pairs meeting at a vertex find its contact each, equal bit for bit: next to each other). In the
 * merged order a find that repeats its predecessor's vertex and object (line features) repeats the first of its
 * kind too: keeping the finds unlike their predecessor keeps the first of each. */
static int repeats(const candidate *p, const candidate *a)
{
    if (a->kind == CAND_TRIANGLE)
        return p->kind == CAND_TRIANGLE && p->psurf == a->psurf && p->pvert == a->pvert && p->tobj == a->tobj;
    return a->kind == CAND_EDGE && p->kind == CAND_EDGE && p->psurf == a->psurf && p->pvert == a->pvert &&
           p->tsurf == a->tsurf && p->telem == a->telem;
}

/* The runs of the merge: lane l's finds are run l, its kept contacts run nlanes + l. */
static const candidate *run_of(const pf_collision_stage *c, int r, size_t *n)
{
    const collide_lane *L = &c->lanes[r % c->nlanes];
    *n = r < c->nlanes ? L->cand.n : L->kept.n;
    return r < c->nlanes ? L->cand.v : L->kept.v;
}

/* The merge in parts taken by the workers. Part j's start in each run is where the j-th splitter (an element of
 * the longest run, at evenly spaced places) falls there: in an earlier run after the finds that compare equal to
 * it, in a later one before them, so that every part holds what the one merge would put between two splitters,
 * and starts at the sum of its starts. Each part merges its pieces into c->merged, then copies the finds that do
 * not repeat their predecessor into c->cand at its place (recall: their memories). */
typedef struct merge_run {
    pf_collision_stage *c;
    size_t parts, runs;
    size_t *at;   /* (parts + 1) x runs: where part j starts in run r, at[j * runs + r] */
    size_t *kept; /* per part: its finds kept, then where they go in c->cand */
    run_head *heads; /* runs per part */
} merge_run;

static void merge_part(void *ctx, size_t lo, size_t hi, int lane)
{
    (void)lane;
    merge_run *m = ctx;
    const pf_collision_stage *c = m->c;
    for (size_t j = lo; j < hi; j++) {
        run_head *h = m->heads + j * m->runs;
        const size_t *a = m->at + j * m->runs, *b = a + m->runs;
        size_t out = 0;
        int n = 0;
        const candidate *prev = NULL; /* the merged find before the part's first: the greatest before the starts */
        int prev_run = -1;
        for (int r = 0; r < (int)m->runs; r++) {
            size_t len;
            const candidate *v = run_of(c, r, &len);
            out += a[r];
            if (a[r]) {
                run_head last = {v + a[r] - 1, NULL, r};
                if (!prev || head_before(&(run_head){prev, NULL, prev_run}, &last)) prev = last.at, prev_run = r;
            }
            if (b[r] > a[r]) h[n++] = (run_head){v + a[r], v + b[r], r};
        }
        candidate *dst = c->merged.v + out;
        for (int i = n / 2 - 1; i >= 0; i--) sift_down(h, n, i);
        size_t kept = 0;
        while (n > 0) {
            const candidate *e = h[0].at++;
            kept += !prev || !repeats(prev, e);
            *dst++ = *e;
            prev = e;
            if (h[0].at == h[0].end) h[0] = h[--n];
            sift_down(h, n, 0);
        }
        m->kept[j] = kept;
    }
}

static void copy_part(void *ctx, size_t lo, size_t hi, int lane)
{
    (void)lane;
    merge_run *m = ctx;
    pf_collision_stage *c = m->c;
    for (size_t j = lo; j < hi; j++) {
        size_t from = 0, end = 0;
        for (size_t r = 0; r < m->runs; r++) from += m->at[j * m->runs + r], end += m->at[(j + 1) * m->runs + r];
        candidate *dst = c->cand.v + m->kept[j];
        for (size_t k = from; k < end; k++) {
            if (k && repeats(&c->merged.v[k - 1], &c->merged.v[k])) continue;
            *dst = c->merged.v[k];
            recall(c, dst++);
        }
    }
}

/* less than (upper: at most) key in cand_order: the count of v's first elements */
static size_t bound(const candidate *v, size_t n, const candidate *key, int upper)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int o = cand_order(&v[mid], key);
        if (upper ? o <= 0 : o < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The sorted runs merged into c->cand, the repeats dropped and the memories recalled, on the world's workers. */
static int merge_runs(pf_world *w, pf_collision_stage *c, size_t total)
{
    c->cand.n = 0;
    if (pf_vec_reserve(&c->cand, total + 1) || pf_vec_reserve(&c->merged, total + 1))
        return pf_error(PF_ENOMEM, "out of memory");
    size_t runs = 2 * (size_t)c->nlanes, longest = 0, most = 0;
    for (size_t r = 0; r < runs; r++) {
        size_t len;
        run_of(c, (int)r, &len);
        if (len > most) most = len, longest = r;
    }
    size_t part = c->part ? c->part : PF_MERGE_PART;
    size_t parts = total < PF_PARALLEL_PARTS * part ? 1 : total / part + 1;
    if (parts > most) parts = most ? most : 1;
    if (pf_vec_reserve(&c->merge_at, (parts + 1) * runs + parts) || pf_vec_reserve(&c->merge_heads, parts * runs))
        return pf_error(PF_ENOMEM, "out of memory");
    size_t *at = c->merge_at.v;
    run_head *heads = c->merge_heads.v;
    merge_run m = {c, parts, runs, at, at + (parts + 1) * runs, heads};
    const candidate *lv = run_of(c, (int)longest, &most);
    for (size_t j = 0; j <= parts; j++)
        for (size_t r = 0; r < runs; r++) {
            size_t len, p = most * j / parts;
            const candidate *v = run_of(c, (int)r, &len);
            at[j * runs + r] = j == 0         ? 0
                               : j == parts   ? len
                               : r == longest ? p
                                              : bound(v, len, &lv[p], r < longest);
        }
    pf_collide_chunks(w, c, parts, 1, merge_part, &m);
    size_t n = 0;
    for (size_t j = 0; j < parts; j++) {
        size_t k = m.kept[j];
        m.kept[j] = n;
        n += k;
    }
    pf_collide_chunks(w, c, parts, 1, copy_part, &m);
    c->merged.n = total;
    c->cand.n = n;
    return PF_OK;
}

int pf_collide(pf_world *w, pf_collision_stage *c, uint64_t *examined)
{
    c->cand.n = 0;
    c->fast_pairs = 0;
    c->passes++;
    int rc = reserve_surfaces(w, c, w->surf.n);
    if (rc || w->surf.n == 0) return rc;
    if ((rc = surface_bounds(w, c))) return rc;
    const pf_pair *pairs;
    size_t np;
    if ((rc = pf_broadphase_pairs(c->outer, c->sboxes.v, c->live.n, &pairs, &np, NULL))) return rc;
    if ((rc = plan_jobs(w, c, pairs, np))) return rc;
    for (int l = 0; l < c->nlanes; l++) {
        collide_lane *L = &c->lanes[l];
        L->cand.n = L->kept.n = L->examined = L->culled = 0, L->rc = L->keep_rc = L->sorted = 0;
    }
    int within = 0; /* a surface whose spheres meet each other: its finds follow the jobs' */
    for (uint32_t s = 0; s < w->surf.n; s++) within |= spheres_meet(w, s);
    narrow_run run = {w, c, 0, 0, 0, 0, !within};
    if (c->jobs.n > 1 || c->indexed.n > 1 || c->memory.n > 64)
        on_workers(w, c, narrow_worker, &run);
    else
        narrow_worker(&run, 0, 1);
    clear_needs(c);
    if (run.failed) return pf_error(PF_ENOMEM, "out of memory building the collision indexes");
    for (uint32_t s = 0; s < w->surf.n && !rc; s++) /* its boxes, broad phase and tests on the workers */
        if (spheres_meet(w, s)) rc = spheres_within(w, c, s);
    /* the lanes' finds in one array; the sort below makes their order the data's, not the threads' */
    size_t total = 0, kept = 0;
    int unsorted = 0;
    for (int l = 0; l < c->nlanes; l++) {
        const collide_lane *L = &c->lanes[l];
        if (L->rc && !rc) rc = pf_error(L->rc, "collision stage: out of memory");
        if (L->keep_rc && !rc)
            rc = L->keep_rc == PF_ENOMEM ? pf_error(PF_ENOMEM, "out of memory") : L->keep_rc;
        total += L->cand.n;
        kept += L->kept.n;
        unsorted += !L->sorted && L->cand.n > 1;
        *examined += L->examined;
    }
    if (rc) return rc;
    if (unsorted > 1)
        on_workers(w, c, sort_worker, c);
    else if (unsorted)
        sort_worker(c, 0, 1);
    if ((rc = merge_runs(w, c, total + kept))) return rc;
    return PF_OK;
}
