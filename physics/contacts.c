/* The penalty contact force field (Hermann et al. 2009, §4.2; SOFA's PenaltyContactForceField): the contacts
 * between two objects as one interaction (interaction.h), which the collision stage (collision_stage.c) creates,
 * refills each step and removes.
 *
 * A contact joins a point of each surface (a vertex; a barycentric point of a triangle) along the normal n from
 * b's point towards a's. With sep = (p_a - p_b)·n and d the contact distance, the force on a is
 * f_a = (k (d - sep) - c (v_a - v_b)·n) n while positive (unilateral), f_b = -f_a, mapped onto each object
 * through its surface's mapping (J^T f). Its stiffness df_a = k n n^T (dp_b - dp_a) enters the implicit solve
 * like a spring's. */
#include "contacts.h"
#include "interaction.h"

#include "physflow/collision.h"
#include "physflow/narrowphase.h"

#include "base/alloc.h"
#include "base/clock.h"
#include "base/error.h"
#include "base/vec.h"

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
    PF_VEC(contact_pt) pts;
    /* per phase: 3n for the a points, then 3n for the b points. Not PF_VECs: the phases' buffers grow together
     * and share one capacity, in doubles. */
    double *buf[PF_PHASES];
    size_t cap_buf;
    double stiffness, damping, distance;
    uint64_t stamp; /* the collision pass that last found contacts for it */
} pf_contactset;


static inline double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* ---- the force field ---- */

/* the magnitude of the force on a along n at separation sep (m) and normal relative velocity vn = (v_a - v_b)·n:
 * k (d - sep) - c vn while positive and sep < d (unilateral), else 0 */
static double penalty(const pf_contactset *cs, double sep, double vn)
{
    double mag = cs->stiffness * (cs->distance - sep) - cs->damping * vn;
    if (mag < 0 || sep >= cs->distance) mag = 0;
    return mag;
}

static void contactset_free(pf_contactset *cs)
{
    if (!cs) return;
    pf_vec_free(&cs->pts);
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
    double *oa = cs->buf[PF_PHASE_FORCE], *ob = oa + 3 * cs->pts.n;
    for (uint32_t k = 0; k < cs->pts.n; k++) {
        contact_pt *c = &cs->pts.v[k];
        double pa[3], pb[3], wa[3], wb[3];
        pf_surface_point_position(c->sa, cs->a, xa, &c->pa, pa);
        pf_surface_point_position(c->sb, cs->b, xb, &c->pb, pb);
        pf_surface_point_apply(c->sa, cs->a, xa, &c->pa, va, wa);
        pf_surface_point_apply(c->sb, cs->b, xb, &c->pb, vb, wb);
        double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]}, dv[3] = {wa[0] - wb[0], wa[1] - wb[1], wa[2] - wb[2]};
        double sep = dot3(d, c->n) - c->offset, mag = penalty(cs, sep, dot3(dv, c->n));
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
    double *oa = cs->buf[phase], *ob = oa + 3 * cs->pts.n;
    for (uint32_t k = 0; k < cs->pts.n; k++) {
        const contact_pt *c = &cs->pts.v[k];
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
        const double *part = out + (sd ? 3 * cs->pts.n : 0);
        for (uint32_t k = 0; k < cs->pts.n; k++) {
            const contact_pt *c = &cs->pts.v[k];
            pf_surface_add_force(sd ? c->sb : c->sa, o, o->x, sd ? &c->pb : &c->pa, part + 3 * (size_t)k, vec);
        }
    }
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

/* ---- the field's life, driven by the collision stage ---- */

pf_springset *pf_contact_field_create(const pf_object *a, const pf_object *b)
{
    pf_springset *s = pf_calloc(1, sizeof *s);
    pf_contactset *cs = pf_calloc(1, sizeof *cs);
    if (!s || !cs) {
        pf_free(s);
        pf_free(cs);
        return NULL;
    }
    *s = (pf_springset){.kind = PF_INTERACTION_CONTACTS, .contacts = cs, .oa = a->id, .ob = b->id};
    *cs = (pf_contactset){.a = a, .b = b};
    return s;
}

/* The candidate's two points: its vertex (or line feature) and the other feature's point. */
static void candidate_points(const candidate *d, const pf_surface *ps, const pf_surface *ts, pf_surface_point *pp,
                             pf_surface_point *tp)
{
    if (d->kind == CAND_EDGE) {
        *pp = pf_surface_line_point(ps, d->pvert, d->bary[0]);
        *tp = pf_surface_line_point(ts, d->telem, d->bary[1]);
        return;
    }
    *pp = pf_surface_vertex(d->pvert);
    *tp = d->kind == CAND_SPHERE ? pf_surface_vertex(d->telem) : pf_surface_triangle_point(ts, d->telem, d->bary);
}

int pf_contact_field_fill(pf_springset *s, const pf_collision_def *def, const candidate *cand, size_t n,
                          pf_surface *const *surf, uint64_t stamp)
{
    pf_contactset *cs = s->contacts;
    if (pf_vec_reserve(&cs->pts, n)) return pf_error(PF_ENOMEM, "out of memory");
    if (n * 6 > cs->cap_buf) {
        size_t cap = n * 6 * 2;
        for (int ph = 0; ph < PF_PHASES; ph++) {
            double *b = pf_realloc(cs->buf[ph], cs->cap_buf * sizeof *b, cap * sizeof *b);
            if (!b) return pf_error(PF_ENOMEM, "out of memory");
            cs->buf[ph] = b;
        }
        cs->cap_buf = cap;
    }
    cs->stiffness = def->stiffness;
    cs->damping = def->damping;
    cs->distance = def->contact_distance;
    cs->stamp = stamp;
    for (size_t k = 0; k < n; k++) {
        const candidate *d = &cand[k];
        const pf_surface *ps = surf[d->psurf], *ts = surf[d->tsurf];
        pf_surface_point pp, tp;
        candidate_points(d, ps, ts, &pp, &tp);
        int point_is_a = d->pobj == s->oa; /* n points from the other feature to the vertex: b to a when so */
        double sg = point_is_a ? 1.0 : -1.0;
        cs->pts.v[k] = (contact_pt){point_is_a ? ps : ts,
                                point_is_a ? ts : ps,
                                point_is_a ? pp : tp,
                                point_is_a ? tp : pp,
                                {sg * d->n[0], sg * d->n[1], sg * d->n[2]},
                                d->offset,
                                0};
    }
    cs->pts.n = n;
    return PF_OK;
}

uint64_t pf_contact_field_stamp(const pf_springset *s)
{
    return s->contacts->stamp;
}

uint32_t pf_contact_field_report(const pf_springset *s, pf_world_contact *out, uint32_t cap)
{
    const pf_contactset *cs = s->contacts;
    uint32_t n = 0;
    for (uint32_t i = 0; i < cs->pts.n && n < cap; i++, n++) {
        const contact_pt *p = &cs->pts.v[i];
        pf_world_contact *r = &out[n];
        r->object_a = s->oa;
        r->object_b = s->ob;
        pf_surface_point_position(p->sa, cs->a, cs->a->x, &p->pa, r->point_a);
        pf_surface_point_position(p->sb, cs->b, cs->b->x, &p->pb, r->point_b);
        memcpy(r->normal, p->n, sizeof r->normal);
        double d[3] = {r->point_a[0] - r->point_b[0], r->point_a[1] - r->point_b[1], r->point_a[2] - r->point_b[2]};
        r->distance = dot3(d, p->n) - p->offset;
        r->depth = cs->distance - r->distance;
        double wa[3], wb[3]; /* the points' velocities */
        pf_surface_point_apply(p->sa, cs->a, cs->a->x, &p->pa, cs->a->v, wa);
        pf_surface_point_apply(p->sb, cs->b, cs->b->x, &p->pb, cs->b->v, wb);
        double dv[3] = {wa[0] - wb[0], wa[1] - wb[1], wa[2] - wb[2]};
        double mag = penalty(cs, r->distance, dot3(dv, p->n));
        for (int e = 0; e < 3; e++) r->force[e] = mag * p->n[e];
    }
    return n;
}
