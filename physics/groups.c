/* Solver groups and the step graph. Objects linked by interaction force fields share one solver (Hermann et al. 2009
 * §2.1). A structural change (an object, force field, constraint or interaction added or removed) regroups the
 * objects; groups whose objects, interactions and force fields are unchanged keep their recorded tasks, the
 * others' tasks are removed and the new groups recorded onto the same graph, so the runtime places only the new
 * tasks and every kept task stays on its worker (§3.2, "limit partitioning changes"). */
#include "groups.h"

#include "attach.h"
#include "beam.h"
#include "decompose.h"
#include "force_field.h"
#include "interaction.h"
#include "objects.h"
#include "solver_explicit.h"
#include "solver_direct.h"
#include "solver_implicit.h"
#include "solver_rk4.h"

#include "base/alloc.h"
#include "base/clock.h"
#include "base/error.h"

#include <string.h>

static void free_group(pf_group *gr)
{
    pf_free(gr->objs);
    pf_free(gr->inter);
    pf_free(gr->scal);
    pf_direct_free(gr->direct);
    pf_vec_free(&gr->tasks);
}

void pf_world_free_groups(pf_world *w)
{
    for (uint32_t k = 0; k < w->ngroups; k++) free_group(&w->groups[k]);
    pf_free(w->groups);
    w->groups = NULL;
    w->ngroups = 0;
}

/* A group being recorded: the solvers record its tasks through group_record, which keeps their ids. */
typedef struct group_recording {
    pf_world *w;
    pf_group *gr;
} group_recording;

static int group_record(void *ctx, const pf_task_def *def)
{
    pf_world *w = ((group_recording *)ctx)->w;
    pf_group *gr = ((group_recording *)ctx)->gr;
    if (pf_vec_reserve(&gr->tasks, gr->tasks.n + 1)) return pf_error(PF_ENOMEM, "out of memory");
    int rc = pf_graph_task(w->g, def, &gr->tasks.v[gr->tasks.n]);
    if (rc == PF_OK) gr->tasks.n++, w->graph_tasks++;
    return rc;
}

/* Each object's vectors (owner = the object) and force-field caches, each interaction's caches and outputs:
 * registered once, when first seen. */
/* The object an interaction's data (and so its tasks) belong to: the one of its two objects with the larger
 * state, which costs most to move between workers (hence the fewest bytes cross workers); a static one never,
 * since it has no work of its own to share a worker with. */
static uint32_t interaction_owner(const pf_world *w, const pf_springset *s)
{
    const pf_object *a = w->obj.v[s->oa], *b = w->obj.v[s->ob];
    if (pf_object_is_static(a) != pf_object_is_static(b)) return pf_object_is_static(a) ? s->ob : s->oa;
    return b->n > a->n ? s->ob : s->oa;
}

static int register_data(pf_world *w)
{
    pf_reducer sum = pf_reducer_sum_f64();
    int rc = PF_OK;
    for (uint32_t i = 0; i < w->obj.n && !rc; i++) {
        pf_object *o = w->obj.v[i];
        if (!o) continue; /* removed */
        if (!o->registered) {
            size_t bytes = 3 * (size_t)o->n * sizeof(double);
            size_t xbytes = bytes + o->xextra * sizeof(double); /* x carries a rigid body's orientation */
            /* f, b and q may take cumulative writes (force fields that add into them) */
            struct {
                double *p;
                pf_data_id *id;
                int cumul;
            } v[] = {{o->x, &o->dx, 0}, {o->v, &o->dv_, 0}, {o->f, &o->df, 1},  {o->dv, &o->ddv, 0},
                     {o->b, &o->db, 1}, {o->r, &o->dr, 0},  {o->p, &o->dp, 0}, {o->q, &o->dq, 1}};
            for (size_t k = 0; k < sizeof v / sizeof v[0] && !rc; k++)
                rc = pf_graph_data(w->g, v[k].p, k == 0 ? xbytes : bytes, i, v[k].cumul ? &sum : NULL, v[k].id);
            if (!rc && !o->x_prev) {
                o->x_prev = pf_malloc(xbytes);
                o->v_prev = pf_malloc(bytes);
                if (!o->x_prev || !o->v_prev) rc = pf_error(PF_ENOMEM, "out of memory");
            }
            o->registered = !rc;
        }
        if (!rc) rc = pf_force_fields_register(w->g, o);
    }
    for (uint32_t k = 0; k < w->inter.n && !rc; k++) {
        pf_springset *s = w->inter.v[k];
        if (s->registered) continue;
        rc = pf_interaction_of(s)->register_data(w->g, s, interaction_owner(w, s));
        s->registered = !rc;
    }
    return rc;
}

static uint32_t find(uint32_t *parent, uint32_t i)
{
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

/* the object whose group solves an interaction: a, unless a is static */
static uint32_t inter_owner(const pf_world *w, const pf_springset *s)
{
    return pf_object_is_static(w->obj.v[s->oa]) ? s->ob : s->oa;
}

/* The groups of the current interactions (objects and interactions in increasing order, no tasks yet), and
 * each object's group, linked flag and links. A removed object is in none (no interaction names it). */
static int build_groups(pf_world *w, pf_group **out, uint32_t *nout)
{
    uint32_t N = w->obj.n, ng = 0;
    uint32_t *parent = pf_malloc((size_t)(N ? N : 1) * sizeof *parent);
    pf_group *gs = NULL;
    int rc = PF_OK;
    if (!parent) return pf_error(PF_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < N; i++) {
        parent[i] = i;
        if (!w->obj.v[i]) continue;
        w->obj.v[i]->linked = 0;
        w->obj.v[i]->links.n = 0;
    }
    for (uint32_t k = 0; k < w->inter.n && !rc; k++) {
        pf_springset *s = w->inter.v[k];
        int sa = pf_object_is_static(w->obj.v[s->oa]), sb = pf_object_is_static(w->obj.v[s->ob]);
        uint32_t a = find(parent, s->oa), b = find(parent, s->ob);
        if (a != b && !sa && !sb) parent[a < b ? b : a] = a < b ? a : b; /* the root is the lowest id */
        /* a static object takes no force; a field within one object is one link of both sides (2) */
        for (int side = 0; side < (s->oa == s->ob ? 1 : 2) && !rc; side++) {
            pf_object *o = w->obj.v[side ? s->ob : s->oa];
            if (side ? sb : sa) continue;
            o->linked = 1;
            if (pf_vec_push(&o->links, ((pf_link){s, s->oa == s->ob ? 2 : side})))
                rc = pf_error(PF_ENOMEM, "out of memory");
        }
    }
    for (uint32_t i = 0; i < N; i++)
        if (w->obj.v[i] && find(parent, i) == i) w->obj.v[i]->group = ng++;
    gs = rc ? NULL : pf_calloc(ng ? ng : 1, sizeof *gs);
    if (!gs && !rc) rc = pf_error(PF_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < N && !rc; i++) {
        if (!w->obj.v[i]) continue;
        w->obj.v[i]->group = w->obj.v[find(parent, i)]->group;
        gs[w->obj.v[i]->group].nobjs++;
    }
    for (uint32_t k = 0; k < w->inter.n && !rc; k++) gs[w->obj.v[inter_owner(w, w->inter.v[k])]->group].ninter++;
    for (uint32_t gi = 0; gi < ng && !rc; gi++) {
        gs[gi].objs = pf_malloc((size_t)gs[gi].nobjs * sizeof *gs[gi].objs);
        gs[gi].inter = pf_malloc((size_t)(gs[gi].ninter ? gs[gi].ninter : 1) * sizeof *gs[gi].inter);
        if (!gs[gi].objs || !gs[gi].inter) rc = pf_error(PF_ENOMEM, "out of memory");
        gs[gi].nobjs = gs[gi].ninter = 0;
    }
    for (uint32_t i = 0; i < N && !rc; i++) {
        if (!w->obj.v[i]) continue;
        pf_group *gr = &gs[w->obj.v[i]->group];
        if (gr->nobjs == 0) gr->first = i;
        gr->objs[gr->nobjs++] = i;
    }
    for (uint32_t k = 0; k < w->inter.n && !rc; k++) {
        pf_group *gr = &gs[w->obj.v[inter_owner(w, w->inter.v[k])]->group];
        gr->inter[gr->ninter++] = w->inter.v[k];
    }
    for (uint32_t gi = 0; gi < ng && !rc; gi++) { /* implicit: solved by a CG loop */
        pf_solver_kind kind = w->obj.v[gs[gi].first]->solver.kind;
        gs[gi].implicit =
            kind == PF_SOLVER_IMPLICIT_EULER || kind == PF_SOLVER_STATIC || kind == PF_SOLVER_BDF2;
    }
    pf_free(parent);
    if (rc) {
        for (uint32_t gi = 0; gs && gi < ng; gi++) free_group(&gs[gi]);
        pf_free(gs);
        return rc;
    }
    *out = gs;
    *nout = ng;
    return PF_OK;
}

/* An old group is kept when a new one has exactly its objects and interactions and none of them changed. */
static int same_group(const pf_world *w, const pf_group *old, const pf_group *nw)
{
    if (old->nobjs != nw->nobjs || old->ninter != nw->ninter) return 0;
    if (memcmp(old->objs, nw->objs, nw->nobjs * sizeof *nw->objs)) return 0;
    for (uint32_t k = 0; k < nw->ninter; k++)
        if (old->inter[k] != nw->inter[k]) return 0;
    for (uint32_t k = 0; k < nw->nobjs; k++)
        if (w->obj.v[nw->objs[k]]->changed) return 0;
    return 1;
}

static int remove_group(pf_world *w, pf_group *gr)
{
    int rc = PF_OK;
    for (uint32_t k = 0; k < gr->tasks.n && !rc; k++) rc = pf_graph_task_remove(w->g, gr->tasks.v[k]);
    if (!rc && gr->has_loop) rc = pf_graph_loop_remove(w->g, gr->loop);
    if (!rc && gr->scal) {
        if (pf_vec_push(&w->retired, gr->scal)) return pf_error(PF_ENOMEM, "out of memory");
        gr->scal = NULL;
    }
    return rc;
}

void pf_world_count_cg(pf_world *w)
{
    for (uint32_t gi = 0; gi < w->ngroups; gi++) {
        if (!w->groups[gi].implicit) continue;
        pf_cg_outcome o = pf_implicit_outcome(&w->groups[gi]);
        w->cg_solves++;
        w->cg_stalled += o == PF_CG_STALLED;
        w->cg_unconverged += o == PF_CG_UNCONVERGED;
    }
}

/* Records a group's step with the solver of its lowest object. */
static int record_solver(pf_world *w, pf_group *gr, const pf_task_recorder *rec)
{
    if (w->obj.v[gr->first]->kind == PF_OBJECT_BEAM) return pf_record_beam(w, gr, rec); /* its own task */
    if (gr->implicit) return pf_record_implicit(w, gr, rec);
    if (w->obj.v[gr->first]->solver.kind == PF_SOLVER_RUNGE_KUTTA4) return pf_record_rk4(w, gr, rec);
    return pf_record_explicit(w, gr, rec);
}

/* Drops the graph and the groups: the next update records the whole world afresh into a new graph. */
static void drop_graph(pf_world *w)
{
    /* the world's counters go on across graphs: keep what the old one counted */
    pf_run_stats t;
    if (w->g && pf_graph_get_run_stats(w->g, PF_STATS_TOTAL, &t, NULL, 0, NULL) == PF_OK) {
        pf_run_stats *d = &w->dropped_runs;
        d->repartitions += t.repartitions, d->objects_moved += t.objects_moved, d->reverts += t.reverts;
        d->ms_repartition += t.ms_repartition, d->metis_small += t.metis_small;
    }
    pf_world_free_groups(w);
    pf_graph_destroy(w->g);
    w->g = NULL;
    w->graph_tasks = 0;
    for (uint32_t i = 0; i < w->obj.n; i++) {
        if (!w->obj.v[i]) continue;
        w->obj.v[i]->registered = 0;
        pf_force_fields_forget(w->obj.v[i]);
        pf_decomp_forget(w->obj.v[i]->decomp);
    }
    for (uint32_t k = 0; k < w->inter.n; k++) w->inter.v[k]->registered = 0;
    pf_world_forget_attachments(w);
}

/* Regroups and re-records what changed; on failure the graph is dropped, to be recorded afresh next time. */
int pf_world_sync_graph(pf_world *w)
{
    uint64_t t0 = pf_now_ns();
    pf_group *gs = NULL;
    uint32_t ng = 0, kept = 0, removed = 0, recorded = 0, tasks_removed = 0, tasks_added = 0;
    /* A graph keeps every task recorded into it (a removed task's id stays reserved) and every datum registered,
     * so a world whose structure keeps changing (objects added and removed, contacts starting and stopping)
     * would grow for as long as it runs. Once the removed tasks outnumber twice the live ones, and a few
     * thousand, the world is recorded afresh into a new graph: the same tasks, placed anew, so the same
     * results; the cost is one full recording, spread over the changes that made the garbage. */
    if (w->g && w->graph_tasks > 3 * (uint64_t)w->tasks + 4096) drop_graph(w);
    int rc = w->g ? pf_graph_invalidate(w->g) : pf_graph_create(&w->g);
    /* under MPI the host reads positions and velocities only (collision stage, outputs, state hash), data every
     * step reads first: the solver's scratch vectors stay on the ranks that computed them */
    if (!rc) rc = pf_graph_set_mpi_share(w->g, PF_MPI_SHARE_NEXT);
    if (!rc) rc = register_data(w);
    if (!rc) rc = build_groups(w, &gs, &ng);
    uint8_t *keep = rc ? NULL : pf_calloc(w->ngroups + 1, 1);
    if (!rc && !keep) rc = pf_error(PF_ENOMEM, "out of memory");
    /* match: a new group takes over the tasks of an identical old one (groups are few; objects sorted) */
    for (uint32_t gi = 0; gi < ng && !rc; gi++)
        for (uint32_t oi = 0; oi < w->ngroups; oi++) {
            pf_group *old = &w->groups[oi];
            if (keep[oi] || old->first != gs[gi].first || !same_group(w, old, &gs[gi])) continue;
            free_group(&gs[gi]);
            gs[gi] = *old;
            *old = (pf_group){0};
            keep[oi] = 1;
            kept++;
            break;
        }
    for (uint32_t oi = 0; oi < w->ngroups && !rc; oi++)
        if (!keep[oi]) {
            tasks_removed += w->groups[oi].tasks.n;
            rc = remove_group(w, &w->groups[oi]);
            removed++;
        }
    for (uint32_t gi = 0; gi < ng && !rc; gi++) {
        pf_group *gr = &gs[gi];
        if (gr->tasks.v) continue; /* kept */
        recorded++;
        gr->scal = pf_calloc(24, sizeof(double));
        if (!gr->scal) rc = pf_error(PF_ENOMEM, "out of memory");
        group_recording gc = {w, gr};
        pf_task_recorder rec = {group_record, &gc};
        if (!rc) rc = record_solver(w, gr, &rec);
        tasks_added += gr->tasks.n;
    }
    /* after every group's tasks: the attachments read the state their sources' solves leave */
    if (!rc && (recorded || w->attach_changed)) {
        uint32_t before = (uint32_t)w->attach_tasks.n;
        rc = pf_world_record_attachments(w);
        tasks_removed += before;
        tasks_added += (uint32_t)w->attach_tasks.n;
    }
    pf_free(keep);
    pf_world_free_groups(w);
    w->groups = gs;
    w->ngroups = ng;
    if (rc) { /* drop everything: the next step records the whole world again */
        drop_graph(w);
        return rc;
    }
    for (uint32_t i = 0; i < w->obj.n; i++)
        if (w->obj.v[i]) w->obj.v[i]->changed = 0;
    pf_graph_stats st;
    pf_graph_get_stats(w->g, &st);
    w->tasks = st.tasks;
    w->records++;
    w->updates++;
    w->dirty = 0;
    w->last_update = (pf_world_update){.step = w->steps,
                                       .groups_kept = kept,
                                       .groups_recorded = recorded,
                                       .groups_removed = removed,
                                       .tasks_added = tasks_added,
                                       .tasks_removed = tasks_removed,
                                       .ms_record = (double)(pf_now_ns() - t0) * 1e-6};
    return PF_OK;
}
