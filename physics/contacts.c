/* The collision stage and the penalty contact force field (Hermann et al. 2009, §4.2; SOFA's DefaultPipeline,
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
#include "contacts.h"
#include "interaction.h"
#include "objects.h"

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


static inline double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

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
    pf_collide_free(c);
    pf_broadphase_destroy(c->bp);
    pf_free(c->cand);
    pf_free(c->report);
    pf_free(c);
}

int pf_world_set_contact_callback(pf_world *w, pf_contact_fn fn, void *ctx)
{
    PF_CHECK_ARG(w);
    if (!w->col) return pf_error(PF_ESTATE, "the world has no collision stage (pf_world_set_collision)");
    w->col->callback = fn;
    w->col->callback_ctx = ctx;
    return PF_OK;
}

/* The callback's view: each contact's points at the step's start, from the fields' contact lists. */
static int report_contacts(pf_world *w, pf_collision_stage *c)
{
    if (PF_ARRAY_RESERVE(c->report, c->cap_report, c->ncand + 1)) return pf_error(PF_ENOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->ninter; k++) {
        const pf_springset *s = w->inter[k];
        if (s->kind != PF_INTERACTION_CONTACTS) continue;
        const pf_contactset *cs = s->contacts;
        for (uint32_t i = 0; i < cs->n && n < c->ncand; i++, n++) {
            const contact_pt *p = &cs->c[i];
            pf_world_contact *r = &c->report[n];
            r->object_a = s->oa;
            r->object_b = s->ob;
            pf_surface_point_position(p->sa, cs->a, cs->a->x, &p->pa, r->point_a);
            pf_surface_point_position(p->sb, cs->b, cs->b->x, &p->pb, r->point_b);
            memcpy(r->normal, p->n, sizeof r->normal);
            double d[3] = {r->point_a[0] - r->point_b[0], r->point_a[1] - r->point_b[1], r->point_a[2] - r->point_b[2]};
            r->distance = dot3(d, p->n) - p->offset;
        }
    }
    c->callback(c->report, n, c->callback_ctx);
    return PF_OK;
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
    /* The narrow phase runs on the world's worker team (pf_runtime_parallel): on OpenMP threads beside the team
     * it finished sooner but their spinning slowed the solver tasks more than it gained. */
    w->col->threads = w->def.workers;
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

/* ---- the force field ---- */

static void contactset_free(pf_contactset *cs)
{
    if (!cs) return;
    pf_free(cs->c);
    for (int ph = 0; ph < PF_PHASES; ph++) pf_free(cs->buf[ph]);
    pf_free(cs);
}

/* The contact field as an interaction kind (interaction.h): per-contact results into the field's buffer of the
 * phase (its output datum holds the buffer's address); df at the current positions (o->x). */
static void contacts_force(const pf_springset *s, const double *xa, const double *xb, const double *va,
                           const double *vb, void *out, int want_jac)
{
    (void)out; /* the datum of cs->buf[PF_PHASE_FORCE] */
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

static void contacts_dforce(const pf_springset *s, const double *dqa, const double *dqb, void *out, int phase,
                            double kfact)
{
    (void)out; /* the datum of cs->buf[phase] */
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

/* vec += J^T of the side's per-contact results (J at o->x) */
static void contacts_gather(const pf_springset *s, int side, const pf_object *o, const void *out_datum, double *vec)
{
    const pf_contactset *cs = s->contacts;
    const double *out = *(double *const *)out_datum; /* the datum is the buffer's address */
    for (int sd = side == 2 ? 0 : side; sd <= (side == 2 ? 1 : side); sd++) { /* 2: both (contacts within o) */
        const double *part = out + (sd ? 3 * (size_t)cs->n : 0);
        for (uint32_t k = 0; k < cs->n; k++) {
            const contact_pt *c = &cs->c[k];
            pf_surface_add_force(sd ? c->sb : c->sa, o, o->x, sd ? &c->pb : &c->pa, part + 3 * (size_t)k, vec);
        }
    }
}

/* ---- the collision stage ---- */

static pf_springset *find_contact_field(pf_world *w, uint32_t oa, uint32_t ob)
{
    for (uint32_t k = 0; k < w->ninter; k++)
        if (w->inter[k]->kind == PF_INTERACTION_CONTACTS && w->inter[k]->oa == oa && w->inter[k]->ob == ob) return w->inter[k];
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
    *s = (pf_springset){.kind = PF_INTERACTION_CONTACTS, .contacts = cs, .oa = oa, .ob = ob, .uid = w->next_uid++};
    *cs = (pf_contactset){.a = w->obj[oa], .b = w->obj[ob]};
    uint32_t k = w->ninter++;
    for (; k > 0 && w->inter[k - 1]->kind == PF_INTERACTION_CONTACTS &&
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
    uint64_t examined = 0;
    int rc = pf_collide(w, c, &examined);
    if (rc) return rc;
    /* the contact fields of this step, one per object pair (candidates are sorted by pair) */
    uint32_t started = 0, stopped = 0, fields = 0;
    double mind = INFINITY; /* pf_collide began a new pass: the fields it fills get its stamp */
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
        if (w->inter[j]->kind == PF_INTERACTION_CONTACTS && w->inter[j]->contacts->stamp != c->passes) {
            rc = remove_contact_field(w, j);
            stopped++;
            w->dirty = 1;
        }
    c->stats = (pf_collision_stats){.contacts = (uint32_t)c->ncand,
                                    .pairs = fields,
                                    .started = started,
                                    .stopped = stopped,
                                    .candidates = examined,
                                    .ms = (double)(pf_now_ns() - t0) * 1e-6,
                                    .min_distance = mind};
    if (!rc && c->callback) rc = report_contacts(w, c);
    return rc;
}

/* its contact list (as djac) and its per-phase buffers (as dout) */
static int contacts_register(pf_graph *g, pf_springset *s, uint32_t owner)
{
    pf_contactset *cs = s->contacts;
    int rc = pf_graph_data(g, cs, sizeof *cs, owner, NULL, &s->djac);
    for (int ph = 0; ph < PF_PHASES && !rc; ph++)
        rc = pf_graph_data(g, &cs->buf[ph], sizeof cs->buf[ph], owner, NULL, &s->dout[ph]);
    return rc;
}

static void contacts_destroy(pf_springset *s)
{
    contactset_free(s->contacts);
    s->contacts = NULL;
}

/* a contact's force costs about what 8 springs' do */
static double contacts_cost(const pf_springset *s)
{
    (void)s;
    return 160.0;
}

const pf_interaction_ops pf_contacts_interaction = {
    .name = "penalty contacts",
    .force = contacts_force,
    .dforce = contacts_dforce,
    .gather = contacts_gather,
    .register_data = contacts_register,
    .cost = contacts_cost,
    .df_reads_x = 1,
    .destroy = contacts_destroy,
};
