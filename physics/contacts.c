/* The penalty contact force field (Hermann et al. 2009, §4.2; SOFA's PenaltyContactForceField) with Coulomb
 * friction: the contacts between two objects as one interaction (interaction.h), which the collision stage
 * (collision_stage.c) creates, refills each step and removes.
 *
 * A contact joins a point of each surface (a vertex; a barycentric point of a triangle) along the normal n from
 * b's point towards a's. With sep = (p_a - p_b)·n and d the contact distance, the force on a is
 *   f_a = (k (d - sep) - c (v_a - v_b)·n) n - k delta,   f_b = -f_a,
 * mapped onto each object through its surface's mapping (J^T f). The normal part pushes only (unilateral); delta
 * is the tangential spring of Cundall & Strack (1979): the tangential displacement of the two points since the
 * contact began, capped at |k delta| <= mu fn (fn the normal force) - it holds without creeping while it sticks
 * and pulls with exactly mu fn while it slides (Coulomb). k is the stage's stiffness, or SOFA's from the two
 * surfaces' contactStiffness when both have one (pair_stiffness). Its stiffness, k n n^T and k on the tangent
 * plane while sticking, enters the implicit solve like a spring's, and so does the normal damping. */
#include "contacts.h"

#include "assembly.h"
#include "interaction.h"

#include "physflow/collision.h"
#include "physflow/narrowphase.h"

#include "base/alloc.h"
#include "base/check.h"
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
    double offset;   /* the spheres' radii between the two points: sep counts from their surfaces */
    double mu;       /* Coulomb coefficient */
    double k;        /* penalty stiffness (N/m) of its normal and tangential springs */
    double delta[3]; /* the tangential spring's stretch (m), capped: k |delta| <= mu fn */
    int sliding;     /* the cap held it: the tangential force is mu fn whatever the motion within the step */
} contact_pt;

/* The force law's linearisation at the latest force evaluation (implicit solve), per contact in
 * pf_contactset.lin: normal stiffness and damping, tangential stiffness, and the arms of a rigid side's point
 * (pf_surface_point_arm) at the positions of that evaluation, which the df phase's every iteration reuses. */
enum { LIN_KN, LIN_CN, LIN_KT, LIN_ARM_A, LIN_ARM_B = LIN_ARM_A + 3, LIN_PER = LIN_ARM_B + 3 };

typedef struct pf_contactset {
    const pf_object *a, *b;
    PF_VEC(contact_pt) pts;
    /* The field's data in the graph, values rather than addresses so that they can travel between MPI ranks:
     * per phase, 3n for the a points, then 3n for the b points; LIN_PER per contact of linearisation. Not
     * PF_VECs: they grow together, with one capacity in contacts. Moved in the graph when they grow. */
    double *buf[PF_PHASES];
    double *lin;
    double *mapped[2]; /* per side, J p at its points (3n each), for the fused df phase (interaction.h, map) */
    size_t cap;
    double damping, distance; /* the stage's; each contact has its own stiffness (contact_pt.k) */
    double h;       /* the step (s): contacts that will close within it act from its start */
    uint64_t stamp; /* the collision pass that last found contacts for it */
} pf_contactset;


static inline double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* ---- the force law ---- */

/* Contact c at the objects' states (xa, va) and (xb, vb): its two points pa, pb, their separation along n (from
 * the surfaces when they are spheres') and the relative velocity dv = v_a - v_b of the points. */
static double contact_state(const pf_contactset *cs, const contact_pt *c, const double *xa, const double *va,
                            const double *xb, const double *vb, double pa[3], double pb[3], double dv[3])
{
    double wa[3], wb[3];
    pf_surface_point_position(c->sa, cs->a, xa, &c->pa, pa);
    pf_surface_point_position(c->sb, cs->b, xb, &c->pb, pb);
    pf_surface_point_apply(c->sa, cs->a, xa, &c->pa, va, wa);
    pf_surface_point_apply(c->sb, cs->b, xb, &c->pb, vb, wb);
    double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
    for (int i = 0; i < 3; i++) dv[i] = wa[i] - wb[i];
    return dot3(d, c->n) - c->offset;
}

/* The normal force on a (along n) of a contact at separation sep (m) closing at normal speed -vn:
 * k (d - sep) - c vn while sep < d, never pulling (unilateral). With `ahead` (the implicit solve), a contact
 * that will close within the step (sep + h vn < d) acts from the step's start with its linear law unclamped:
 * the solve, which takes the force at the step's end through its stiffness (Baraff & Witkin 1998, §5), then
 * stops the point at the contact distance instead of finding it already through at the next step. There is no
 * force cap: a heavier load compresses the contact further, never through. *active: the law applies. */
static double normal_force(const pf_contactset *cs, const contact_pt *c, double sep, double vn, int ahead,
                           int *active)
{
    double d = cs->distance;
    int touching = sep < d, closing = ahead && sep + cs->h * vn < d;
    *active = touching || closing;
    if (!*active) return 0;
    double mag = c->k * (d - sep) - cs->damping * vn;
    return touching && mag < 0 ? 0 : mag; /* separating faster than the spring pushes: no pull */
}

/* The force on a of contact c at separation sep and relative velocity dv = v_a - v_b of its points into f, and
 * when lin is given its linearisation into lin[LIN_PER]. */
static void contact_law(const pf_contactset *cs, const contact_pt *c, double sep, const double dv[3], int ahead,
                        double f[3], double *lin)
{
    int active;
    double mag = normal_force(cs, c, sep, dot3(dv, c->n), ahead, &active);
    for (int i = 0; i < 3; i++) f[i] = mag * c->n[i] - c->k * c->delta[i];
    if (!lin) return;
    lin[LIN_KN] = active ? c->k : 0;
    lin[LIN_CN] = active ? cs->damping : 0;
    lin[LIN_KT] = c->mu > 0 && !c->sliding ? c->k : 0;
}

static void contactset_free(pf_contactset *cs)
{
    if (!cs) return;
    pf_vec_free(&cs->pts);
    for (int ph = 0; ph < PF_PHASES; ph++) pf_free(cs->buf[ph]);
    pf_free(cs->lin);
    for (int sd = 0; sd < 2; sd++) pf_free(cs->mapped[sd]);
    pf_free(cs);
}

/* The contact field as an interaction kind (interaction.h): per-contact results into the field's buffer of the
 * phase (its output datum); df at the current positions (o->x). */
static void contacts_force(const pf_springset *s, const double *xa, const double *xb, const double *va,
                           const double *vb, void *out, int want_jac)
{
    pf_contactset *cs = s->contacts;
    double *oa = out, *ob = oa + 3 * cs->pts.n; /* out: cs->buf[PF_PHASE_FORCE] */
    for (uint32_t k = 0; k < cs->pts.n; k++) {
        const contact_pt *c = &cs->pts.v[k];
        double pa[3], pb[3], dv[3], f[3];
        double sep = contact_state(cs, c, xa, va, xb, vb, pa, pb, dv), *lin = cs->lin + LIN_PER * (size_t)k;
        contact_law(cs, c, sep, dv, want_jac, f, want_jac ? lin : NULL);
        if (want_jac) {
            pf_surface_point_arm(c->sa, xa, &c->pa, lin + LIN_ARM_A);
            pf_surface_point_arm(c->sb, xb, &c->pb, lin + LIN_ARM_B);
        }
        for (int i = 0; i < 3; i++) {
            oa[3 * k + i] = f[i];
            ob[3 * k + i] = -f[i];
        }
    }
}

/* Contact c's df on a, q = -kfact K (da - db) (+ h cn n n^T (da - db) in the df phase), from the two points'
 * displacements da = J_a dq_a, db = J_b dq_b; lin its linearisation. */
static void contact_df(const pf_contactset *cs, const contact_pt *c, const double *lin, const double da[3],
                       const double db[3], int phase, double kfact, double q[3])
{
    double r[3] = {da[0] - db[0], da[1] - db[1], da[2] - db[2]}, rn = dot3(c->n, r);
    /* df_a = -K (dp_a - dp_b), K = kn n n^T + kt (I - n n^T), times kfact */
    for (int i = 0; i < 3; i++)
        q[i] = -kfact * (lin[LIN_KN] * rn * c->n[i] + lin[LIN_KT] * (r[i] - rn * c->n[i]));
    if (phase == PF_PHASE_DF) /* the damping matrix D enters A = M - h^2 K - h D only (not the rhs) */
        for (int i = 0; i < 3; i++) q[i] += cs->h * lin[LIN_CN] * rn * c->n[i];
}

static void contacts_dforce(const pf_springset *s, const double *dqa, const double *dqb, void *out, int phase,
                            double kfact)
{
    const pf_contactset *cs = s->contacts;
    double *oa = out, *ob = oa + 3 * cs->pts.n; /* out: cs->buf[phase] */
    for (uint32_t k = 0; k < cs->pts.n; k++) {
        const contact_pt *c = &cs->pts.v[k];
        const double *lin = cs->lin + LIN_PER * (size_t)k;
        double da[3], db[3], q[3];
        pf_surface_point_apply_arm(c->sa, &c->pa, lin + LIN_ARM_A, dqa, da);
        pf_surface_point_apply_arm(c->sb, &c->pb, lin + LIN_ARM_B, dqb, db);
        contact_df(cs, c, lin, da, db, phase, kfact, q);
        for (int i = 0; i < 3; i++) {
            oa[3 * k + i] = q[i];
            ob[3 * k + i] = -q[i];
        }
    }
}

/* u = J dq of the side's points (o is that side's object) */
static void contacts_map(const pf_springset *s, int side, const pf_object *o, const double *dq, double *u)
{
    const pf_contactset *cs = s->contacts;
    (void)o;
    for (uint32_t k = 0; k < cs->pts.n; k++) {
        const contact_pt *c = &cs->pts.v[k];
        const double *arm = cs->lin + LIN_PER * (size_t)k + (side ? LIN_ARM_B : LIN_ARM_A);
        pf_surface_point_apply_arm(side ? c->sb : c->sa, side ? &c->pb : &c->pa, arm, dq, u + 3 * (size_t)k);
    }
}

/* vec += J^T of o's side of each contact's df, computed here from both sides' displacements: the same
 * arithmetic as contacts_dforce then contacts_gather, so the same bits (b's part is -q, an exact negation) */
static void contacts_gather_df(const pf_springset *s, int side, const pf_object *o, const double *const in[2],
                               const int packed[2], double kfact, double *vec)
{
    const pf_contactset *cs = s->contacts;
    (void)o;
    for (uint32_t k = 0; k < cs->pts.n; k++) {
        const contact_pt *c = &cs->pts.v[k];
        const double *lin = cs->lin + LIN_PER * (size_t)k;
        double d[2][3], q[3];
        for (int sd = 0; sd < 2; sd++) {
            if (packed[sd])
                memcpy(d[sd], in[sd] + 3 * (size_t)k, sizeof d[sd]);
            else
                pf_surface_point_apply_arm(sd ? c->sb : c->sa, sd ? &c->pb : &c->pa, lin + (sd ? LIN_ARM_B : LIN_ARM_A),
                                           in[sd], d[sd]);
        }
        contact_df(cs, c, lin, d[0], d[1], PF_PHASE_DF, kfact, q);
        if (side)
            for (int i = 0; i < 3; i++) q[i] = -q[i];
        pf_surface_add_force_arm(side ? c->sb : c->sa, side ? &c->pb : &c->pa, lin + (side ? LIN_ARM_B : LIN_ARM_A), q,
                                 vec);
    }
}

/* The df phase's operator as blocks (the direct solver): per contact, C = -kfact (kn n n^T + kt (I - n n^T)) +
 * h cn n n^T acts on r = J_a dq_a - J_b dq_b, and J_a^T C r, -J_b^T C r go back: blocks w_i w_j (+-C) between
 * the points of the two sides' weighted sums. The objects are never rigid here (the direct solver refuses them). */
static void contacts_assemble(const pf_springset *s, uint32_t base_a, uint32_t base_b, pf_blocks *k)
{
    const pf_contactset *cs = s->contacts;
    for (uint32_t q = 0; q < cs->pts.n; q++) {
        const contact_pt *c = &cs->pts.v[q];
        const double *lin = cs->lin + LIN_PER * (size_t)q;
        uint32_t idx[2][24];
        double w[2][24], C[9];
        uint32_t m[2] = {pf_surface_point_terms(c->sa, &c->pa, idx[0], w[0]),
                         pf_surface_point_terms(c->sb, &c->pb, idx[1], w[1])};
        for (int r = 0; r < 3; r++)
            for (int col = 0; col < 3; col++) {
                double nn = c->n[r] * c->n[col];
                C[3 * r + col] =
                    -k->kfact * (lin[LIN_KN] * nn + lin[LIN_KT] * ((r == col) - nn)) + cs->h * lin[LIN_CN] * nn;
            }
        for (int sa = 0; sa < 2; sa++)
            for (int sb = 0; sb < 2; sb++)
                for (uint32_t i = 0; i < m[sa]; i++)
                    for (uint32_t j = 0; j < m[sb]; j++)
                        pf_blocks_add(k, (sa ? base_b : base_a) + idx[sa][i], (sb ? base_b : base_a) + idx[sb][j], C,
                                      (sa == sb ? 1 : -1) * w[sa][i] * w[sb][j]);
    }
}

/* vec += J^T of the side's per-contact results (J at o->x) */
static void contacts_gather(const pf_springset *s, int side, const pf_object *o, const void *out_datum, double *vec,
                            const pf_point_filter *keep)
{
    const pf_contactset *cs = s->contacts;
    const double *out = out_datum;
    for (int sd = side == 2 ? 0 : side; sd <= (side == 2 ? 1 : side); sd++) { /* 2: both (contacts within o) */
        const double *part = out + (sd ? 3 * cs->pts.n : 0);
        for (uint32_t k = 0; k < cs->pts.n; k++) {
            const contact_pt *c = &cs->pts.v[k];
            pf_surface_add_force(sd ? c->sb : c->sa, o, o->x, sd ? &c->pb : &c->pa, part + 3 * (size_t)k, vec, keep);
        }
    }
}

/* its contacts' linearisation (as djac) and its per-phase buffers (as dout), as long as it has contacts */
static int contacts_register(pf_graph *g, pf_springset *s, uint32_t owner)
{
    pf_contactset *cs = s->contacts;
    size_t n = cs->pts.n;
    int rc = pf_graph_data(g, cs->lin, LIN_PER * n * sizeof *cs->lin, owner, NULL, &s->djac);
    for (int ph = 0; ph < PF_PHASES && !rc; ph++)
        rc = pf_graph_data(g, cs->buf[ph], 6 * n * sizeof *cs->buf[ph], owner, NULL, &s->dout[ph]);
    for (int sd = 0; sd < 2 && !rc; sd++) /* each side's map is written by its object's tasks */
        rc = pf_graph_data(g, cs->mapped[sd], 3 * n * sizeof *cs->mapped[sd], sd ? s->ob : s->oa, NULL,
                           &s->dmapped[sd]);
    return rc;
}

/* The field's data in g follow its contacts (their count changes at each fill; the buffers may move). */
static int contacts_move_data(pf_graph *g, pf_springset *s)
{
    pf_contactset *cs = s->contacts;
    size_t n = cs->pts.n;
    int rc = pf_graph_data_move(g, s->djac, cs->lin, LIN_PER * n * sizeof *cs->lin);
    for (int ph = 0; ph < PF_PHASES && !rc; ph++)
        rc = pf_graph_data_move(g, s->dout[ph], cs->buf[ph], 6 * n * sizeof *cs->buf[ph]);
    for (int sd = 0; sd < 2 && !rc; sd++)
        rc = pf_graph_data_move(g, s->dmapped[sd], cs->mapped[sd], 3 * n * sizeof *cs->mapped[sd]);
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
    .map = contacts_map,
    .gather_df = contacts_gather_df,
    .register_data = contacts_register,
    .cost = contacts_cost,
    .assemble = contacts_assemble,
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

/* the Coulomb coefficient of a contact between surfaces sa and sb: theirs (the mean when both set one), else the
 * collision stage's */
static double pair_friction(const pf_surface *sa, const pf_surface *sb, double def)
{
    if (sa->friction >= 0 && sb->friction >= 0) return 0.5 * (sa->friction + sb->friction);
    if (sa->friction >= 0) return sa->friction;
    return sb->friction >= 0 ? sb->friction : def;
}

/* The stiffness of a contact between surfaces sa and sb whose rest distance is r (m): when both carry SOFA's
 * contactStiffness, SOFA's k_a k_b / r (BarycentricPenalityContact::setDetectionOutputs divides the product by the
 * intersection's contact distance plus the proximities and the spheres' radii, or keeps the product when that is
 * 0); otherwise the collision stage's. */
static double pair_stiffness(const pf_surface *sa, const pf_surface *sb, double r, double def)
{
    if (!(sa->contact_stiffness > 0 && sb->contact_stiffness > 0)) return def;
    double k = sa->contact_stiffness * sb->contact_stiffness;
    return r != 0 ? k / r : k;
}

/* The tangential spring of a contact at the state it is found in: the stretch it kept from the previous pass
 * (`kept`, NULL for a new contact) turned onto the new tangent plane, plus the tangential displacement of the last
 * step (h vt, the step's end velocities being the state's), then capped at mu fn / k: sliding when capped. */
static void tangential_spring(const pf_contactset *cs, contact_pt *c, const double *kept)
{
    memset(c->delta, 0, sizeof c->delta);
    c->sliding = 0;
    if (!(c->mu > 0) || !kept) return;
    double pa[3], pb[3], dv[3];
    double sep = contact_state(cs, c, cs->a->x, cs->a->v, cs->b->x, cs->b->v, pa, pb, dv);
    double vn = dot3(dv, c->n), kn = dot3(kept, c->n);
    for (int i = 0; i < 3; i++) c->delta[i] = kept[i] - kn * c->n[i] + cs->h * (dv[i] - vn * c->n[i]);
    int active;
    double fn = normal_force(cs, c, sep, vn, 0, &active), cap = c->mu * fn / c->k;
    double len = sqrt(dot3(c->delta, c->delta));
    if (len > cap) {
        for (int i = 0; i < 3; i++) c->delta[i] = len > 0 ? c->delta[i] * cap / len : 0;
        c->sliding = 1;
    }
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

/* Room for n contacts in the field's buffers. */
static int reserve_buffers(pf_contactset *cs, size_t n)
{
    if (n <= cs->cap) return PF_OK;
    size_t cap = n * 2;
    for (int ph = 0; ph < PF_PHASES; ph++) {
        double *b = pf_realloc(cs->buf[ph], 6 * cs->cap * sizeof *b, 6 * cap * sizeof *b);
        if (!b) return pf_error(PF_ENOMEM, "out of memory");
        cs->buf[ph] = b;
    }
    double *lin = pf_realloc(cs->lin, LIN_PER * cs->cap * sizeof *lin, LIN_PER * cap * sizeof *lin);
    if (!lin) return pf_error(PF_ENOMEM, "out of memory");
    cs->lin = lin;
    for (int sd = 0; sd < 2; sd++) {
        double *m = pf_realloc(cs->mapped[sd], 3 * cs->cap * sizeof *m, 3 * cap * sizeof *m);
        if (!m) return pf_error(PF_ENOMEM, "out of memory");
        cs->mapped[sd] = m;
    }
    cs->cap = cap;
    return PF_OK;
}

int pf_contact_field_begin(pf_springset *s, const pf_collision_def *def, double dt, size_t n, uint64_t stamp)
{
    pf_contactset *cs = s->contacts;
    if (pf_vec_reserve(&cs->pts, n)) return pf_error(PF_ENOMEM, "out of memory");
    PF_TRY(reserve_buffers(cs, n));
    memset(cs->lin, 0, LIN_PER * n * sizeof *cs->lin); /* no linearisation before the first force evaluation */
    cs->damping = def->damping;
    cs->distance = def->contact_distance;
    cs->h = dt;
    cs->stamp = stamp;
    return PF_OK;
}

void pf_contact_field_set(pf_springset *s, const pf_collision_def *def, candidate *cand, size_t lo, size_t hi,
                          pf_surface *const *surf)
{
    pf_contactset *cs = s->contacts;
    for (size_t k = lo; k < hi; k++) {
        candidate *d = &cand[k - lo];
        const pf_surface *ps = surf[d->psurf], *ts = surf[d->tsurf];
        pf_surface_point pp, tp;
        candidate_points(d, ps, ts, &pp, &tp);
        /* n from the other feature to the vertex. A closed surface's triangle: its outward normal (the separation
         * is then the vertex's height over its plane, negative inside). An open surface's: the closest points'
         * direction, or when the vertex is past the side of the triangle it keeps (collide.c), that side's normal
         * (the separation negative). */
        double nv[3] = {d->n[0], d->n[1], d->n[2]};
        if (pf_candidate_on_face(d) && dot3(d->nf, d->nf) > 0)
            for (int i = 0; i < 3; i++) nv[i] = d->side * d->nf[i];
        int point_is_a = d->pobj == s->oa; /* n points from the other feature to the vertex: b to a when so */
        double sg = point_is_a ? 1.0 : -1.0;
        contact_pt *c = &cs->pts.v[k];
        *c = (contact_pt){.sa = point_is_a ? ps : ts,
                          .sb = point_is_a ? ts : ps,
                          .pa = point_is_a ? pp : tp,
                          .pb = point_is_a ? tp : pp,
                          .n = {sg * nv[0], sg * nv[1], sg * nv[2]},
                          .offset = d->offset,
                          .mu = pair_friction(ps, ts, def->friction),
                          .k = pair_stiffness(ps, ts, def->contact_distance + d->offset, def->stiffness)};
        /* the memory keeps the spring as seen from the vertex: on a, it is a's; else the opposite */
        double kept[3] = {sg * d->delta[0], sg * d->delta[1], sg * d->delta[2]};
        tangential_spring(cs, c, d->remembered ? kept : NULL);
        for (int i = 0; i < 3; i++) d->delta[i] = sg * c->delta[i];
    }
}

int pf_contact_field_end(pf_springset *s, pf_graph *g, size_t n)
{
    pf_contactset *cs = s->contacts;
    cs->pts.n = n;
    return s->registered ? contacts_move_data(g, s) : PF_OK;
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
        r->object_a = (pf_object_id){s->oa};
        r->object_b = (pf_object_id){s->ob};
        memcpy(r->normal, p->n, sizeof r->normal);
        double dv[3];
        r->distance = contact_state(cs, p, cs->a->x, cs->a->v, cs->b->x, cs->b->v, r->point_a, r->point_b, dv);
        r->depth = cs->distance - r->distance;
        contact_law(cs, p, r->distance, dv, 0, r->force, NULL);
    }
    return n;
}
