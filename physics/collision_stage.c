/* The collision stage of a step (Hermann et al. 2009, §4.2; SOFA's DefaultPipeline, MinProximityIntersection and
 * DefaultContactManager), run before the solvers.
 *
 * Every surface's vertices (points) and triangles go through one broad phase; each point closer than the alarm
 * distance to a triangle of another object is a contact (the nearest triangle per point and object; collide.c).
 * The contacts between two objects form one contact force field (contacts.c), created when the objects start
 * touching and removed when they stop: that is what merges and splits solver groups, so the graph changes only on
 * those steps; on the others the contact lists change in place under the same tasks. */
#include "collision_stage.h"

#include "collide.h"
#include "contacts.h"
#include "interaction.h"
#include "world_guard.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/clock.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

pf_collision_def pf_collision_default_def(void)
{
    return (pf_collision_def){.broadphase = PF_BP_KD,
                              .alarm_distance = 0.05,
                              .contact_distance = 0.01,
                              .stiffness = 10000,
                              .damping = 0,
                              .friction = 0};
}

void pf_collision_stage_free(pf_collision_stage *c)
{
    if (!c) return;
    pf_collide_free(c);
    pf_broadphase_destroy(c->bp);
    pf_vec_free(&c->cand);
    pf_vec_free(&c->memory);
    pf_vec_free(&c->report);
    pf_vec_free(&c->fills);
    pf_free(c);
}

int pf_world_set_contact_callback(pf_world *w, pf_contact_fn fn, void *ctx)
{
    PF_TRY(pf_world_check_mutable(w, "pf_world_set_contact_callback"));
    if (!w->col)
        return pf_error(PF_ESTATE, "pf_world_set_contact_callback: the world has no collision stage (call "
                        "pf_world_set_collision first)");
    w->col->callback = fn;
    w->col->callback_ctx = ctx;
    return PF_OK;
}

/* The callback's view: each contact's points at the step's start, from the fields' contact lists. */
static int report_contacts(pf_world *w, pf_collision_stage *c)
{
    if (pf_vec_reserve(&c->report, c->cand.n + 1)) return pf_error(PF_ENOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->inter.n; k++)
        if (w->inter.v[k]->kind == PF_INTERACTION_CONTACTS)
            n += pf_contact_field_report(w->inter.v[k], c->report.v + n, (uint32_t)c->cand.n - n);
    c->report.n = n;
    c->callback(c->report.v, n, c->callback_ctx);
    return PF_OK;
}

/* frees surface s's query indexes (rebuilt at the next pass, with the current method) */
static void drop_indexes(pf_collision_stage *c, uint32_t s)
{
    pf_query_index_destroy(c->sc[s].tri);
    pf_query_index_destroy(c->sc[s].sph);
    pf_query_index_destroy(c->sc[s].edge);
    c->sc[s].tri = c->sc[s].sph = c->sc[s].edge = NULL;
    c->sc[s].tri_body = 0;
    for (int k = 0; k < 3; k++) c->sc[s].built[k].n = 0;
}

int pf_world_set_collision(pf_world *w, const pf_collision_def *def)
{
    static const char fn[] = "pf_world_set_collision";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_enum(def->broadphase, PF_BP_METHOD_COUNT, fn, "def.broadphase"));
    if (def->broadphase == PF_BP_KD_RAW)
        return pf_error(PF_EINVAL, "%s: def.broadphase PF_BP_KD_RAW (%d) gives raw candidates without an exact test: "
                        "the collision stage needs another method", fn, def->broadphase);
    PF_TRY(pf_check_nonnegative(def->contact_distance, fn, "def.contact_distance"));
    PF_TRY(pf_check_finite(def->alarm_distance, fn, "def.alarm_distance"));
    if (!(def->alarm_distance >= def->contact_distance))
        return pf_error(PF_EINVAL, "%s: def.alarm_distance (%g) must be >= def.contact_distance (%g)", fn,
                        def->alarm_distance, def->contact_distance);
    PF_TRY(pf_check_positive(def->stiffness, fn, "def.stiffness"));
    PF_TRY(pf_check_nonnegative(def->damping, fn, "def.damping"));
    PF_TRY(pf_check_nonnegative(def->friction, fn, "def.friction"));
    pf_broadphase_def bd = pf_collide_broadphase_def(w, def->broadphase);
    pf_broadphase *bp;
    int rc = pf_broadphase_create(&bd, &bp);
    if (rc) return rc;
    if (!w->col) {
        /* its contact memory never NULL: the first pass looks in it (bsearch) before anything is remembered */
        pf_collision_stage *c = pf_calloc(1, sizeof *c);
        if (!c || pf_vec_reserve(&c->memory, 1)) {
            pf_free(c);
            pf_broadphase_destroy(bp);
            return pf_error(PF_ENOMEM, "out of memory");
        }
        c->index_slack = PF_INDEX_SLACK;
        c->job_slice = PF_JOB_SLICE;
        c->part = PF_MERGE_PART;
        w->col = c;
    }
    pf_broadphase_destroy(w->col->bp);
    w->col->bp = bp;
    if (w->col->def.broadphase != def->broadphase) { /* the surfaces' broad phase and indexes follow the method */
        pf_broadphase_destroy(w->col->outer);
        w->col->outer = NULL;
        for (uint32_t s = 0; s < w->col->nsc; s++) drop_indexes(w->col, s);
    }
    w->col->def = *def;
    /* The narrow phase runs on the world's worker team (pf_runtime_parallel): on OpenMP threads beside the team
     * it finished sooner but their spinning slowed the solver tasks more than it gained. */
    w->col->threads = w->def.runtime.workers;
    w->col->stats.min_distance = INFINITY;
    return PF_OK;
}

int pf_world_get_collision(const pf_world *w, pf_collision_def *out)
{
    PF_TRY(pf_world_check_given(w, "pf_world_get_collision"));
    PF_TRY(pf_check_given(out, "pf_world_get_collision", "out"));
    if (!w->col)
        return pf_error(PF_ESTATE, "pf_world_get_collision: the world has no collision stage (call "
                                   "pf_world_set_collision first)");
    *out = w->col->def;
    return PF_OK;
}

int pf_world_get_collision_stats(const pf_world *w, pf_collision_stats *out)
{
    PF_TRY(pf_world_check_given(w, "pf_world_get_collision_stats"));
    PF_TRY(pf_check_given(out, "pf_world_get_collision_stats", "out"));
    if (!w->col)
        return pf_error(PF_ESTATE, "pf_world_get_collision_stats: the world has no collision stage (call "
                                   "pf_world_set_collision first)");
    *out = w->col->stats;
    return PF_OK;
}

static pf_springset *find_contact_field(pf_world *w, uint32_t oa, uint32_t ob)
{
    for (uint32_t k = 0; k < w->inter.n; k++)
        if (w->inter.v[k]->kind == PF_INTERACTION_CONTACTS && w->inter.v[k]->oa == oa && w->inter.v[k]->ob == ob)
            return w->inter.v[k];
    return NULL;
}

/* A new contact field, placed among the contact fields by object pair: the order of a world's fields (which is
 * the order its objects gather their forces in) then depends on which pairs touch, not on when they started —
 * a restarted run adds them up as the uninterrupted one. */
static int new_contact_field(pf_world *w, uint32_t oa, uint32_t ob, pf_springset **out)
{
    PF_TRY(pf_world_reserve_interaction(w, "the collision stage"));
    pf_springset *s = pf_contact_field_create(w->obj.v[oa], w->obj.v[ob]);
    if (!s) return pf_error(PF_ENOMEM, "out of memory");
    s->uid = w->next_uid++;
    uint32_t k = w->inter.n++;
    for (; k > 0 && w->inter.v[k - 1]->kind == PF_INTERACTION_CONTACTS &&
           (w->inter.v[k - 1]->oa > oa || (w->inter.v[k - 1]->oa == oa && w->inter.v[k - 1]->ob > ob));
         k--)
        w->inter.v[k] = w->inter.v[k - 1];
    w->inter.v[k] = s;
    *out = s;
    return PF_OK;
}

static int remove_contact_field(pf_world *w, uint32_t k)
{
    if (pf_vec_push(&w->dropped, w->inter.v[k])) return pf_error(PF_ENOMEM, "out of memory");
    memmove(w->inter.v + k, w->inter.v + k + 1, (w->inter.n - k - 1) * sizeof *w->inter.v);
    w->inter.n--;
    return PF_OK;
}

/* The gap of a proximity, negative when the surfaces interpenetrate: behind a closed surface's face, or past the
 * side of an open one that the vertex keeps, its depth along the face's normal (the search's distance is
 * unsigned there). */
static double signed_gap(const candidate *d)
{
    if (pf_candidate_on_face(d)) return d->side * d->plane - d->offset;
    return d->dist;
}

void pf_collision_stage_remove_object(pf_world *w, uint32_t id)
{
    pf_collision_stage *c = w->col;
    if (!c) return;
    for (uint32_t j = w->inter.n; j-- > 0;) {
        const pf_springset *s = w->inter.v[j];
        if (s->kind == PF_INTERACTION_CONTACTS && (s->oa == id || s->ob == id))
            remove_contact_field(w, j); /* room reserved by the caller */
    }
    for (uint32_t s = 0; s < w->surf.n && s < c->nsc; s++) {
        if (w->surf.v[s]->object != id) continue;
        drop_indexes(c, s);
        pf_vec_free(&c->sc[s].boxes);
        for (int k = 0; k < 3; k++) pf_vec_free(&c->sc[s].built[k]);
        memset(&c->sc[s], 0, sizeof c->sc[s]);
    }
    /* the memory stays sorted: the entries kept keep their order */
    size_t m = 0;
    for (size_t k = 0; k < c->memory.n; k++) {
        const contact_memory *e = &c->memory.v[k];
        int gone = (e->psurf < w->surf.n && w->surf.v[e->psurf]->object == id) ||
                   (e->tsurf < w->surf.n && w->surf.v[e->tsurf]->object == id);
        if (!gone) c->memory.v[m++] = *e;
    }
    c->memory.n = m;
}

typedef struct fill_run {
    pf_world *w;
    pf_collision_stage *c;
} fill_run;

static void fill_worker(void *ctx, size_t lo, size_t hi, int lane)
{
    (void)lane;
    const fill_run *r = ctx;
    for (size_t k = lo; k < hi; k++) {
        const contact_fill *f = &r->c->fills.v[k];
        pf_contact_field_set(f->field, &r->c->def, r->c->cand.v + f->lo, f->lo - f->first, f->hi - f->first,
                             r->w->surf.v);
    }
}

int pf_collision_stage_run(pf_world *w)
{
    pf_collision_stage *c = w->col;
    uint64_t t0 = pf_now_ns();
    uint64_t examined = 0;
    int rc = pf_collide(w, c, &examined);
    if (rc) return rc;
    /* the contact fields of this step, one per object pair (candidates are sorted by pair); their contacts set in
     * ranges on the workers */
    uint32_t started = 0, stopped = 0, fields = 0;
    double mind = INFINITY; /* pf_collide began a new pass: the fields it fills get its stamp */
    c->fills.n = 0;
    size_t part = c->part ? c->part : PF_MERGE_PART;
    for (size_t k = 0; k < c->cand.n && !rc;) {
        const candidate *d = &c->cand.v[k];
        uint32_t oa = d->pobj < d->tobj ? d->pobj : d->tobj, ob = d->pobj < d->tobj ? d->tobj : d->pobj;
        size_t end = k;
        while (end < c->cand.n &&
               (c->cand.v[end].pobj < c->cand.v[end].tobj ? c->cand.v[end].pobj : c->cand.v[end].tobj) == oa &&
               (c->cand.v[end].pobj < c->cand.v[end].tobj ? c->cand.v[end].tobj : c->cand.v[end].pobj) == ob) {
            double gap = signed_gap(&c->cand.v[end]);
            if (gap < mind) mind = gap;
            end++;
        }
        pf_springset *s = find_contact_field(w, oa, ob);
        if (!s) {
            rc = new_contact_field(w, oa, ob, &s);
            started++;
            w->dirty = 1;
        }
        if (!rc) rc = pf_contact_field_begin(s, &c->def, w->def.dt, end - k, c->passes);
        for (size_t lo = k; lo < end && !rc; lo += part)
            if (pf_vec_push(&c->fills, ((contact_fill){s, k, lo, end - lo > part ? lo + part : end})))
                rc = pf_error(PF_ENOMEM, "out of memory");
        fields++;
        k = end;
    }
    if (!rc) {
        fill_run run = {w, c};
        if (c->cand.n < PF_PARALLEL_PARTS * part)
            fill_worker(&run, 0, c->fills.n, 0);
        else
            pf_collide_chunks(w, c, c->fills.n, 1, fill_worker, &run);
    }
    /* each field's count and its data in the graph, on the caller (the graph is not the workers') */
    for (size_t k = 0; k < c->fills.n && !rc; k++) {
        const contact_fill *f = &c->fills.v[k];
        if (k + 1 == c->fills.n || c->fills.v[k + 1].field != f->field)
            rc = pf_contact_field_end(f->field, w->g, f->hi - f->first);
    }
    if (!rc) rc = pf_collide_remember(w, c);
    /* fields whose objects no longer touch */
    for (uint32_t j = w->inter.n; j-- > 0 && !rc;)
        if (w->inter.v[j]->kind == PF_INTERACTION_CONTACTS && pf_contact_field_stamp(w->inter.v[j]) != c->passes) {
            rc = remove_contact_field(w, j);
            stopped++;
            w->dirty = 1;
        }
    uint64_t fast_total = c->stats.fast_pairs_total + c->fast_pairs;
    c->stats = (pf_collision_stats){.contacts = (uint32_t)c->cand.n,
                                    .pairs = fields,
                                    .started = started,
                                    .stopped = stopped,
                                    .candidates = examined,
                                    .ms = (double)(pf_now_ns() - t0) * 1e-6,
                                    .min_distance = mind,
                                    .fast_pairs = c->fast_pairs,
                                    .fast_pairs_total = fast_total};
    if (!rc && c->callback) rc = report_contacts(w, c);
    return rc;
}

