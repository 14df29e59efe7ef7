/* The collision stage and the penalty contact force field (paper 004 §4.2; SOFA's DefaultPipeline,
 * MinProximityIntersection, DefaultContactManager and PenaltyContactForceField).
 *
 * Each step, before the solvers run: every surface's vertices (points) and triangles go through one broad phase;
 * each point closer than the alarm distance to a triangle of another object is a contact (the nearest triangle
 * per point and object). The contacts between two objects form one interaction force field, created when the
 * objects start touching and removed when they stop: that is what merges and splits solver groups, so the
 * graph changes only on those steps; on the others the contact lists change in place under the same tasks.
 *
 * A contact joins a point of each surface (a vertex; a barycentric point of a triangle) along the normal n from
 * b's point towards a's. With sep = (p_a - p_b)·n and d the contact distance, the force on a is
 * f_a = (k (d - sep) - c (v_a - v_b)·n) n while positive (unilateral), f_b = -f_a, mapped onto each object
 * through its surface's mapping (J^T f). Its stiffness df_a = k n n^T (dp_b - dp_a) enters the implicit solve
 * like a spring's. */
#include "surface.h"

#include "physflow/collision.h"
#include "physflow/narrowphase.h"

#include "base/alloc.h"
#include "base/clock.h"
#include "base/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct contact_pt {
    const pf_surface *sa, *sb;
    pf_surface_point pa, pb;
    double n[3];
    double offset; /* the spheres' radii between the two points: sep counts from their surfaces */
    double k;      /* stiffness while compressed at the latest force evaluation, else 0 */
} contact_pt;

typedef struct pf_contactset {
    const pf_object *a, *b;
    contact_pt *c;
    uint32_t n;
    size_t cap;
    double *buf[PF_PHASES]; /* per phase: 3n for the a points, then 3n for the b points */
    size_t cap_buf;
    double stiffness, damping, distance;
    uint64_t stamp; /* the collision pass that last found contacts for it */
} pf_contactset;

enum { CAND_TRIANGLE = 0, CAND_SPHERE = 1 };

/* A proximity found this step: a vertex (a point or a sphere) against a triangle or another sphere. */
typedef struct candidate {
    uint32_t pobj, tobj;   /* objects of the vertex and of the other feature */
    uint32_t psurf, pvert; /* the vertex: surface index, vertex */
    uint32_t kind;         /* CAND_TRIANGLE or CAND_SPHERE */
    uint32_t tsurf, telem; /* the other feature: surface index, triangle or vertex */
    double bary[3];        /* triangle: barycentric coordinates of its closest point */
    double n[3];           /* from the other feature towards the vertex */
    double offset;         /* radii between the two points */
    double dist;
} candidate;

typedef struct pf_collision_stage {
    pf_collision_def def;
    pf_broadphase *bp;
    pf_aabb *boxes;
    uint32_t *esurf, *eidx; /* per element: surface, and vertex or triangle index */
    size_t cap_elems;
    candidate *cand;
    size_t ncand, cap_cand;
    pf_collision_stats stats;
    uint64_t passes;
} pf_collision_stage;

pf_collision_def pf_collision_default_def(void)
{
    return (pf_collision_def){.broadphase = PF_BP_KD,
                              .alarm_distance = 0.02,
                              .contact_distance = 0.01,
                              .stiffness = 1000,
                              .damping = 0};
}

void pf_collision_stage_free(pf_collision_stage *c)
{
    if (!c) return;
    pf_broadphase_destroy(c->bp);
    pf_free(c->boxes);
    pf_free(c->esurf);
    pf_free(c->eidx);
    pf_free(c->cand);
    pf_free(c);
}

int pf_world_set_collision(pf_world *w, const pf_collision_def *def)
{
    PF_CHECK_ARG(w && def);
    PF_CHECK_ARG(def->broadphase >= 0 && def->broadphase < PF_BP_METHOD_COUNT && def->broadphase != PF_BP_KD_RAW);
    PF_CHECK_ARG(isfinite(def->alarm_distance) && isfinite(def->contact_distance) && def->contact_distance >= 0 &&
                 def->alarm_distance >= def->contact_distance);
    PF_CHECK_ARG(isfinite(def->stiffness) && def->stiffness > 0 && isfinite(def->damping) && def->damping >= 0);
    pf_broadphase_def bd = pf_broadphase_default_def();
    bd.method = (pf_broadphase_method)def->broadphase;
    bd.threads = w->def.workers;
    pf_broadphase *bp;
    int rc = pf_broadphase_create(&bd, &bp);
    if (rc) return rc;
    if (!w->col && !(w->col = pf_calloc(1, sizeof *w->col))) {
        pf_broadphase_destroy(bp);
        return pf_error(PF_ENOMEM, "out of memory");
    }
    pf_broadphase_destroy(w->col->bp);
    w->col->bp = bp;
    w->col->def = *def;
    w->col->stats.min_distance = INFINITY;
    return PF_OK;
}

int pf_world_collision_stats(const pf_world *w, pf_collision_stats *out)
{
    PF_CHECK_ARG(w && out);
    if (!w->col) return pf_error(PF_ESTATE, "the world has no collision stage (pf_world_set_collision)");
    *out = w->col->stats;
    return PF_OK;
}

int pf_object_is_static(const pf_object *o)
{
    return o->nfixed == o->n;
}

/* ---- the force field ---- */

static void contactset_free(pf_contactset *cs)
{
    if (!cs) return;
    pf_free(cs->c);
    for (int ph = 0; ph < PF_PHASES; ph++) pf_free(cs->buf[ph]);
    pf_free(cs);
}

static inline double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void pf_contacts_force_out(const pf_springset *s, const double *xa, const double *xb, const double *va,
                           const double *vb, int want_jac)
{
    pf_contactset *cs = s->contacts;
    double *oa = cs->buf[PF_PHASE_FORCE], *ob = oa + 3 * (size_t)cs->n;
    for (uint32_t k = 0; k < cs->n; k++) {
        contact_pt *c = &cs->c[k];
        double pa[3], pb[3], wa[3], wb[3];
        pf_surface_point_position(c->sa, cs->a, xa, &c->pa, pa);
        pf_surface_point_position(c->sb, cs->b, xb, &c->pb, pb);
        pf_surface_point_apply(c->sa, cs->a, xa, &c->pa, va, wa);
        pf_surface_point_apply(c->sb, cs->b, xb, &c->pb, vb, wb);
        double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]}, dv[3] = {wa[0] - wb[0], wa[1] - wb[1], wa[2] - wb[2]};
        double sep = dot3(d, c->n) - c->offset, mag = cs->stiffness * (cs->distance - sep) - cs->damping * dot3(dv, c->n);
        if (mag < 0 || sep >= cs->distance) mag = 0;
        if (want_jac) c->k = sep < cs->distance ? cs->stiffness : 0;
        for (int i = 0; i < 3; i++) {
            oa[3 * k + i] = mag * c->n[i];
            ob[3 * k + i] = -mag * c->n[i];
        }
    }
}

void pf_contacts_dforce_out(const pf_springset *s, const double *dqa, const double *dqb, int phase, double kfact)
{
    pf_contactset *cs = s->contacts;
    double *oa = cs->buf[phase], *ob = oa + 3 * (size_t)cs->n;
    for (uint32_t k = 0; k < cs->n; k++) {
        const contact_pt *c = &cs->c[k];
        double da[3], db[3];
        pf_surface_point_apply(c->sa, cs->a, cs->a->x, &c->pa, dqa, da);
        pf_surface_point_apply(c->sb, cs->b, cs->b->x, &c->pb, dqb, db);
        double d[3] = {db[0] - da[0], db[1] - da[1], db[2] - da[2]};
        double g = kfact * c->k * dot3(c->n, d); /* df_a = k n n^T (dp_b - dp_a) */
        for (int i = 0; i < 3; i++) {
            oa[3 * k + i] = g * c->n[i];
            ob[3 * k + i] = -g * c->n[i];
        }
    }
}

void pf_contacts_gather(const pf_springset *s, int side, const pf_object *o, const double *out, double *vec)
{
    const pf_contactset *cs = s->contacts;
    for (int sd = side == 2 ? 0 : side; sd <= (side == 2 ? 1 : side); sd++) { /* 2: both (contacts within o) */
        const double *part = out + (sd ? 3 * (size_t)cs->n : 0);
        for (uint32_t k = 0; k < cs->n; k++) {
            const contact_pt *c = &cs->c[k];
            pf_surface_add_force(sd ? c->sb : c->sa, o, o->x, sd ? &c->pb : &c->pa, part + 3 * (size_t)k, vec);
        }
    }
}

/* ---- the collision stage ---- */

static int reserve_elems(pf_collision_stage *c, size_t n)
{
    if (n <= c->cap_elems) return PF_OK;
    size_t cap = n + n / 2 + 16;
    pf_aabb *b = pf_realloc(c->boxes, c->cap_elems * sizeof *b, cap * sizeof *b);
    if (b) c->boxes = b;
    uint32_t *s = b ? pf_realloc(c->esurf, c->cap_elems * sizeof *s, cap * sizeof *s) : NULL;
    if (s) c->esurf = s;
    uint32_t *i = s ? pf_realloc(c->eidx, c->cap_elems * sizeof *i, cap * sizeof *i) : NULL;
    if (!i) return pf_error(PF_ENOMEM, "out of memory for %zu collision elements", n);
    c->eidx = i;
    c->cap_elems = cap;
    return PF_OK;
}

/* Boxes of every surface vertex (grown by the alarm distance) then of every triangle; returns the vertex count. */
static int gather_elements(pf_world *w, pf_collision_stage *c, size_t *nverts, size_t *nelems)
{
    size_t nv = 0, nt = 0;
    for (uint32_t s = 0; s < w->nsurf; s++) {
        nv += w->surf[s]->nv;
        nt += w->surf[s]->nt;
    }
    if (reserve_elems(c, nv + nt)) return PF_ENOMEM;
    size_t e = 0;
    for (uint32_t s = 0; s < w->nsurf; s++) {
        pf_surface *sf = w->surf[s];
        const double *p = pf_surface_positions(sf, w->obj[sf->object], w->obj[sf->object]->x);
        double a = c->def.alarm_distance + sf->radius;
        for (uint32_t v = 0; v < sf->nv; v++, e++) {
            const double *q = p + 3 * (size_t)v;
            c->boxes[e] = (pf_aabb){{q[0] - a, q[1] - a, q[2] - a}, {q[0] + a, q[1] + a, q[2] + a}};
            c->esurf[e] = s;
            c->eidx[e] = v;
        }
    }
    for (uint32_t s = 0; s < w->nsurf; s++) {
        const pf_surface *sf = w->surf[s];
        for (uint32_t t = 0; t < sf->nt; t++, e++) {
            pf_aabb *b = &c->boxes[e];
            for (int i = 0; i < 3; i++) {
                const double *q = sf->pos + 3 * (size_t)sf->tri[3 * (size_t)t + i];
                for (int d = 0; d < 3; d++) {
                    if (i == 0 || q[d] < b->min[d]) b->min[d] = q[d];
                    if (i == 0 || q[d] > b->max[d]) b->max[d] = q[d];
                }
            }
            c->esurf[e] = s;
            c->eidx[e] = t;
        }
    }
    *nverts = nv;
    *nelems = nv + nt;
    return PF_OK;
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

/* By object pair, vertex, kind, other object, distance: a vertex's nearest triangle of an object comes first. */
static int cand_order(const void *x, const void *y)
{
    const candidate *a = x, *b = y;
    uint32_t ka[6] = {a->pobj < a->tobj ? a->pobj : a->tobj, a->pobj < a->tobj ? a->tobj : a->pobj, a->psurf,
                      a->pvert, a->kind, a->tobj};
    uint32_t kb[6] = {b->pobj < b->tobj ? b->pobj : b->tobj, b->pobj < b->tobj ? b->tobj : b->pobj, b->psurf,
                      b->pvert, b->kind, b->tobj};
    for (int i = 0; i < 6; i++)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    if (a->dist != b->dist) return a->dist < b->dist ? -1 : 1;
    if (a->tsurf != b->tsurf) return a->tsurf < b->tsurf ? -1 : 1;
    return a->telem < b->telem ? -1 : a->telem > b->telem;
}

static int add_candidate(pf_collision_stage *c, const candidate *cd)
{
    if (PF_ARRAY_RESERVE(c->cand, c->cap_cand, c->ncand + 1)) return pf_error(PF_ENOMEM, "out of memory");
    c->cand[c->ncand++] = *cd;
    return PF_OK;
}

/* Vertex pe (a sphere) against vertex qe (a sphere), of any objects (also the same one). */
static int sphere_sphere(pf_world *w, pf_collision_stage *c, const pf_proximity_def *pd, size_t pe, size_t qe)
{
    const pf_surface *ps = w->surf[c->esurf[pe]], *qs = w->surf[c->esurf[qe]];
    if (!(ps->radius > 0 && qs->radius > 0)) return PF_OK; /* points meet triangles only */
    if (pf_object_is_static(w->obj[ps->object]) && pf_object_is_static(w->obj[qs->object])) return PF_OK;
    pf_sphere a = {{0}, ps->radius, ps->object, c->eidx[pe]}, b = {{0}, qs->radius, qs->object, c->eidx[qe]};
    memcpy(a.center, ps->pos + 3 * (size_t)c->eidx[pe], sizeof a.center);
    memcpy(b.center, qs->pos + 3 * (size_t)c->eidx[qe], sizeof b.center);
    pf_contact ct;
    int hit = pf_narrow_sphere_sphere(pd, &a, &b, &ct);
    if (hit <= 0) return hit;
    candidate cd = {ps->object, qs->object, c->esurf[pe], c->eidx[pe], CAND_SPHERE, c->esurf[qe], c->eidx[qe],
                    {0}, {ct.normal[0], ct.normal[1], ct.normal[2]}, ps->radius + qs->radius, ct.distance};
    return add_candidate(c, &cd);
}

/* Narrow phase over the broad phase's pairs: point (vertex) against triangle of another, non-static-pair object. */
static int narrow(pf_world *w, pf_collision_stage *c, size_t nverts, const pf_pair *pairs, size_t npairs)
{
    pf_proximity_def pd = {c->def.alarm_distance, c->def.contact_distance};
    c->ncand = 0;
    for (size_t k = 0; k < npairs; k++) {
        size_t i = pairs[k].i, j = pairs[k].j;
        if (i >= nverts && j >= nverts) continue; /* triangle-triangle */
        if (i < nverts && j < nverts) {
            int rc = sphere_sphere(w, c, &pd, i, j);
            if (rc) return rc;
            continue;
        }
        size_t pe = i < nverts ? i : j, te = i < nverts ? j : i;
        const pf_surface *ps = w->surf[c->esurf[pe]], *ts = w->surf[c->esurf[te]];
        if (ps->object == ts->object) continue;
        if (pf_object_is_static(w->obj[ps->object]) && pf_object_is_static(w->obj[ts->object])) continue;
        pf_sphere pt = {{0}, ps->radius, ps->object, c->eidx[pe]};
        memcpy(pt.center, ps->pos + 3 * (size_t)c->eidx[pe], sizeof pt.center);
        const uint32_t *tv = ts->tri + 3 * (size_t)c->eidx[te];
        pf_triangle tr = {.object = ts->object, .element = c->eidx[te]};
        for (int v = 0; v < 3; v++) memcpy(tr.v[v], ts->pos + 3 * (size_t)tv[v], sizeof tr.v[v]);
        pf_contact ct;
        int hit = pf_narrow_sphere_triangle(&pd, &pt, &tr, &ct);
        if (hit < 0) return hit;
        if (!hit) continue;
        candidate cd = {ps->object, ts->object, c->esurf[pe], c->eidx[pe], CAND_TRIANGLE, c->esurf[te], c->eidx[te],
                        {0}, {ct.normal[0], ct.normal[1], ct.normal[2]}, ps->radius, ct.distance};
        barycentric(tr.v[0], tr.v[1], tr.v[2], ct.point_b, cd.bary);
        int rc = add_candidate(c, &cd);
        if (rc) return rc;
    }
    if (c->ncand) qsort(c->cand, c->ncand, sizeof *c->cand, cand_order);
    /* one contact per vertex and object: the nearest triangle (sphere pairs are unique already) */
    size_t out = 0;
    for (size_t k = 0; k < c->ncand; k++) {
        const candidate *a = &c->cand[k], *p = out ? &c->cand[out - 1] : NULL;
        if (p && a->kind == CAND_TRIANGLE && p->kind == CAND_TRIANGLE && p->psurf == a->psurf &&
            p->pvert == a->pvert && p->tobj == a->tobj)
            continue;
        c->cand[out++] = *a;
    }
    c->ncand = out;
    return PF_OK;
}

static pf_springset *find_contact_field(pf_world *w, uint32_t oa, uint32_t ob)
{
    for (uint32_t k = 0; k < w->ninter; k++)
        if (w->inter[k]->contacts && w->inter[k]->oa == oa && w->inter[k]->ob == ob) return w->inter[k];
    return NULL;
}

/* A new contact field, placed among the contact fields by object pair: the order of a world's fields (which is
 * the order its objects gather their forces in) then depends on which pairs touch, not on when they started —
 * a restarted run adds them up as the uninterrupted one. */
static int new_contact_field(pf_world *w, uint32_t oa, uint32_t ob, pf_springset **out)
{
    if (PF_ARRAY_RESERVE(w->inter, w->cap_inter, w->ninter + 1)) return pf_error(PF_ENOMEM, "out of memory");
    pf_springset *s = pf_calloc(1, sizeof *s);
    pf_contactset *cs = pf_calloc(1, sizeof *cs);
    if (!s || !cs) {
        pf_free(s);
        pf_free(cs);
        return pf_error(PF_ENOMEM, "out of memory");
    }
    *s = (pf_springset){.contacts = cs, .oa = oa, .ob = ob, .uid = w->next_uid++};
    *cs = (pf_contactset){.a = w->obj[oa], .b = w->obj[ob]};
    uint32_t k = w->ninter++;
    for (; k > 0 && w->inter[k - 1]->contacts &&
           (w->inter[k - 1]->oa > oa || (w->inter[k - 1]->oa == oa && w->inter[k - 1]->ob > ob));
         k--)
        w->inter[k] = w->inter[k - 1];
    w->inter[k] = s;
    *out = s;
    return PF_OK;
}

/* Replaces the contacts of field s with candidates [from, to) (all of one object pair). */
static int fill_contacts(pf_world *w, const pf_collision_stage *c, pf_springset *s, size_t from, size_t to)
{
    pf_contactset *cs = s->contacts;
    size_t n = to - from;
    if (PF_ARRAY_RESERVE(cs->c, cs->cap, n)) return pf_error(PF_ENOMEM, "out of memory");
    if (n * 6 > cs->cap_buf) {
        size_t cap = n * 6 * 2;
        for (int ph = 0; ph < PF_PHASES; ph++) {
            double *b = pf_realloc(cs->buf[ph], cs->cap_buf * sizeof *b, cap * sizeof *b);
            if (!b) return pf_error(PF_ENOMEM, "out of memory");
            cs->buf[ph] = b;
        }
        cs->cap_buf = cap;
    }
    cs->stiffness = c->def.stiffness;
    cs->damping = c->def.damping;
    cs->distance = c->def.contact_distance;
    for (size_t k = 0; k < n; k++) {
        const candidate *d = &c->cand[from + k];
        const pf_surface *ps = w->surf[d->psurf], *ts = w->surf[d->tsurf];
        pf_surface_point pp = pf_surface_vertex(d->pvert);
        pf_surface_point tp = d->kind == CAND_SPHERE ? pf_surface_vertex(d->telem)
                                                     : pf_surface_triangle_point(ts, d->telem, d->bary);
        int point_is_a = d->pobj == s->oa; /* n points from the other feature to the vertex: b to a when so */
        double sg = point_is_a ? 1.0 : -1.0;
        cs->c[k] = (contact_pt){point_is_a ? ps : ts,
                                point_is_a ? ts : ps,
                                point_is_a ? pp : tp,
                                point_is_a ? tp : pp,
                                {sg * d->n[0], sg * d->n[1], sg * d->n[2]},
                                d->offset,
                                0};
    }
    cs->n = (uint32_t)n;
    return PF_OK;
}

static int remove_contact_field(pf_world *w, uint32_t k)
{
    if (PF_ARRAY_RESERVE(w->dropped, w->cap_dropped, w->ndropped + 1)) return pf_error(PF_ENOMEM, "out of memory");
    w->dropped[w->ndropped++] = w->inter[k];
    memmove(w->inter + k, w->inter + k + 1, (w->ninter - k - 1) * sizeof *w->inter);
    w->ninter--;
    return PF_OK;
}

int pf_contacts_update(pf_world *w)
{
    pf_collision_stage *c = w->col;
    uint64_t t0 = pf_now_ns();
    size_t nverts, nelems, npairs;
    const pf_pair *pairs;
    pf_broadphase_stats bs;
    int rc = gather_elements(w, c, &nverts, &nelems);
    if (!rc) rc = pf_broadphase_pairs(c->bp, c->boxes, nelems, &pairs, &npairs, &bs);
    if (!rc) rc = narrow(w, c, nverts, pairs, npairs);
    if (rc) return rc;
    /* the contact fields of this step, one per object pair (candidates are sorted by pair) */
    uint32_t started = 0, stopped = 0, fields = 0;
    double mind = INFINITY;
    c->passes++;
    for (size_t k = 0; k < c->ncand && !rc;) {
        const candidate *d = &c->cand[k];
        uint32_t oa = d->pobj < d->tobj ? d->pobj : d->tobj, ob = d->pobj < d->tobj ? d->tobj : d->pobj;
        size_t end = k;
        while (end < c->ncand &&
               (c->cand[end].pobj < c->cand[end].tobj ? c->cand[end].pobj : c->cand[end].tobj) == oa &&
               (c->cand[end].pobj < c->cand[end].tobj ? c->cand[end].tobj : c->cand[end].pobj) == ob) {
            if (c->cand[end].dist < mind) mind = c->cand[end].dist;
            end++;
        }
        pf_springset *s = find_contact_field(w, oa, ob);
        if (!s) {
            rc = new_contact_field(w, oa, ob, &s);
            started++;
            w->dirty = 1;
        }
        if (!rc) {
            rc = fill_contacts(w, c, s, k, end);
            s->contacts->stamp = c->passes;
        }
        fields++;
        k = end;
    }
    /* fields whose objects no longer touch */
    for (uint32_t j = w->ninter; j-- > 0 && !rc;)
        if (w->inter[j]->contacts && w->inter[j]->contacts->stamp != c->passes) {
            rc = remove_contact_field(w, j);
            stopped++;
            w->dirty = 1;
        }
    c->stats = (pf_collision_stats){.contacts = (uint32_t)c->ncand,
                                    .pairs = fields,
                                    .started = started,
                                    .stopped = stopped,
                                    .candidates = npairs,
                                    .ms = (double)(pf_now_ns() - t0) * 1e-6,
                                    .min_distance = mind};
    return rc;
}

int pf_contacts_register(pf_graph *g, pf_springset *s)
{
    pf_contactset *cs = s->contacts;
    int rc = pf_graph_data(g, cs, sizeof *cs, s->oa, NULL, &s->djac);
    for (int ph = 0; ph < PF_PHASES && !rc; ph++)
        rc = pf_graph_data(g, &cs->buf[ph], sizeof cs->buf[ph], s->oa, NULL, &s->dout[ph]);
    return rc;
}

void pf_contactset_destroy(pf_springset *s)
{
    contactset_free(s->contacts);
    s->contacts = NULL;
}
