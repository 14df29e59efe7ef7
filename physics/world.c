/* The physics world: its lifecycle and runtime settings, and the step loop that runs the collision stage, brings
 * the recorded graph up to date, replays it and checks for faults (Hermann et al. 2009, §3.1-3.2; the phases are
 * listed in docs/physics.md). */
#include "attach.h"
#include "beam.h"
#include "collision_stage.h"
#include "decompose.h"
#include "faults.h"
#include "force_field.h"
#include "groups.h"
#include "interaction.h"

#include "surface.h"
#include "world_guard.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

pf_world_def pf_world_default_def(void)
{
    return (pf_world_def){.gravity = {0, 0, -9.81},
                          .dt = 0.01,
                          .max_speed = 1e4,
                          .runtime = pf_runtime_default_def()};
}

int pf_world_create(const pf_world_def *def, pf_world **out)
{
    static const char fn[] = "pf_world_create";
    PF_TRY(pf_check_given(out, fn, "out"));
    *out = NULL;
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_positive(def->dt, fn, "def.dt"));
    PF_TRY(pf_check_finite_n(def->gravity, 3, fn, "def.gravity"));
    PF_TRY(pf_check_int_range(def->runtime.workers, 1, INT_MAX, fn, "def.runtime.workers"));
    PF_TRY(pf_check_enum((int)def->runtime.executor, PF_EXEC_COUNT, fn, "def.runtime.executor"));
    PF_TRY(pf_check_enum((int)def->runtime.partitioner, PF_PART_COUNT, fn, "def.runtime.partitioner"));
    PF_TRY(pf_check_enum((int)def->runtime.repartition, PF_REPART_COUNT, fn, "def.runtime.repartition"));
    if (!(def->max_speed > 0)) /* infinity allowed: no speed limit */
        return pf_error(PF_EINVAL, "%s: def.max_speed must be a number > 0 (infinity: no limit), got %g", fn,
                        def->max_speed);
    pf_world *w = pf_calloc(1, sizeof *w);
    if (!w) return pf_error(PF_ENOMEM, "out of memory for a world");
    w->def = *def;
    int rc = pf_runtime_create(&def->runtime, &w->rt);
    if (rc != PF_OK) {
        pf_free(w);
        return rc;
    }
    w->dirty = 1;
    *out = w;
    return PF_OK;
}

/* an object and everything it holds (its force fields included); NULL (a removed object's slot) allowed */
static void free_object(pf_object *o)
{
    if (!o) return;
    double *vecs[] = {o->x, o->v, o->f, o->dv, o->b, o->r, o->p, o->q, o->x_prev, o->v_prev, o->pmass,
                      o->xb, o->vb};
    for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) pf_free(vecs[k]);
    pf_free(o->fixed);
    pf_vec_free(&o->fixed_list);
    pf_vec_free(&o->held);
    pf_force_fields_destroy(o);
    pf_decomp_free(o->decomp);
    pf_beam_free(o->beam);
    pf_vec_free(&o->links);
    pf_free(o);
}

/* After the first run of a re-recorded graph nothing names the removed groups' scalars, interactions, force
 * fields and objects. */
static void free_retired(pf_world *w)
{
    for (uint32_t k = 0; k < w->retired.n; k++) pf_free(w->retired.v[k]);
    w->retired.n = 0;
    for (uint32_t k = 0; k < w->dropped.n; k++) {
        pf_interaction_free(w->dropped.v[k]);
        pf_free(w->dropped.v[k]);
    }
    w->dropped.n = 0;
    for (uint32_t k = 0; k < w->dropped_ff.n; k++) pf_force_field_free(&w->dropped_ff.v[k]);
    w->dropped_ff.n = 0;
    for (uint32_t k = 0; k < w->dropped_obj.n; k++) free_object(w->dropped_obj.v[k]);
    w->dropped_obj.n = 0;
    for (uint32_t k = 0; k < w->old_decomps.n; k++) pf_decomp_free(w->old_decomps.v[k]);
    w->old_decomps.n = 0;
}

void pf_world_destroy(pf_world *w)
{
    if (!w) return;
    pf_graph_destroy(w->g);
    pf_world_free_groups(w);
    free_retired(w);
    pf_vec_free(&w->retired);
    pf_vec_free(&w->dropped);
    pf_vec_free(&w->dropped_ff);
    pf_vec_free(&w->dropped_obj);
    pf_vec_free(&w->old_decomps);
    pf_world_free_attachments(w);
    pf_collision_stage_free(w->col);
    for (uint32_t i = 0; i < w->obj.n; i++) free_object(w->obj.v[i]);
    pf_vec_free(&w->obj);
    for (uint32_t k = 0; k < w->inter.n; k++) {
        pf_interaction_free(w->inter.v[k]);
        pf_free(w->inter.v[k]);
    }
    pf_vec_free(&w->inter);
    for (uint32_t k = 0; k < w->surf.n; k++) pf_surface_free(w->surf.v[k]);
    pf_vec_free(&w->surf);
    pf_runtime_destroy(w->rt);
    pf_free(w);
}

pf_runtime *pf_world_runtime(pf_world *w)
{
    return w ? w->rt : NULL;
}

int pf_world_set_executor(pf_world *w, pf_executor e)
{
    PF_TRY(pf_world_check_mutable(w, "pf_world_set_executor"));
    PF_TRY(pf_check_enum((int)e, PF_EXEC_COUNT, "pf_world_set_executor", "executor"));
    int rc = pf_runtime_set_executor(w->rt, e);
    if (rc == PF_OK) w->def.runtime.executor = e;
    return rc;
}

int pf_world_set_workers(pf_world *w, int workers)
{
    PF_TRY(pf_world_check_mutable(w, "pf_world_set_workers"));
    PF_TRY(pf_check_int_range(workers, 1, INT_MAX, "pf_world_set_workers", "workers"));
    int rc = pf_runtime_set_workers(w->rt, workers);
    if (rc == PF_OK) w->def.runtime.workers = workers;
    return rc;
}

int pf_world_set_partitioner(pf_world *w, pf_partitioner p)
{
    PF_TRY(pf_world_check_mutable(w, "pf_world_set_partitioner"));
    PF_TRY(pf_check_enum((int)p, PF_PART_COUNT, "pf_world_set_partitioner", "partitioner"));
    int rc = pf_runtime_set_partitioner(w->rt, p);
    if (rc == PF_OK) w->def.runtime.partitioner = p;
    return rc;
}

int pf_world_get_def(const pf_world *w, pf_world_def *out)
{
    PF_TRY(pf_world_check_given(w, "pf_world_get_def"));
    PF_TRY(pf_check_given(out, "pf_world_get_def", "out"));
    *out = w->def;
    return PF_OK;
}

int pf_world_set_repartition(pf_world *w, pf_repartition r)
{
    PF_TRY(pf_world_check_mutable(w, "pf_world_set_repartition"));
    PF_TRY(pf_check_enum((int)r, PF_REPART_COUNT, "pf_world_set_repartition", "repartition"));
    int rc = pf_runtime_set_repartition(w->rt, r);
    if (rc == PF_OK) w->def.runtime.repartition = r;
    return rc;
}

/* dt and gravity are copied into the recorded tasks' arguments (the solvers' h, the force tasks' gravity):
 * a new value re-records every group at the next step, as a structural change does. */
static void rerecord_all(pf_world *w)
{
    for (uint32_t i = 0; i < w->obj.n; i++)
        if (w->obj.v[i]) w->obj.v[i]->changed = 1;
    w->dirty = 1;
}

int pf_world_set_dt(pf_world *w, double dt)
{
    static const char fn[] = "pf_world_set_dt";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_check_positive(dt, fn, "dt"));
    if (dt != w->def.dt) {
        w->def.dt = dt;
        rerecord_all(w);
    }
    return PF_OK;
}

int pf_world_set_gravity(pf_world *w, const double gravity[3])
{
    static const char fn[] = "pf_world_set_gravity";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_check_given(gravity, fn, "gravity"));
    PF_TRY(pf_check_finite_n(gravity, 3, fn, "gravity"));
    if (memcmp(gravity, w->def.gravity, sizeof w->def.gravity)) {
        memcpy(w->def.gravity, gravity, sizeof w->def.gravity);
        rerecord_all(w);
    }
    return PF_OK;
}

int pf_world_get_dt(const pf_world *w, double *dt)
{
    PF_TRY(pf_world_check_given(w, "pf_world_get_dt"));
    PF_TRY(pf_check_given(dt, "pf_world_get_dt", "dt"));
    *dt = w->def.dt;
    return PF_OK;
}

int pf_world_get_gravity(const pf_world *w, double gravity[3])
{
    PF_TRY(pf_world_check_given(w, "pf_world_get_gravity"));
    PF_TRY(pf_check_given(gravity, "pf_world_get_gravity", "gravity"));
    memcpy(gravity, w->def.gravity, sizeof w->def.gravity);
    return PF_OK;
}

int pf_world_remove_interaction(pf_world *w, pf_interaction_id id)
{
    PF_TRY(pf_world_check_mutable(w, "pf_world_remove_interaction"));
    for (uint32_t k = 0; k < w->inter.n; k++) {
        if (w->inter.v[k]->uid != id.index) continue;
        /* its group's tasks (which name it) are removed at the next step; until then it stays allocated */
        if (pf_vec_push(&w->dropped, w->inter.v[k])) return pf_error(PF_ENOMEM, "out of memory");
        memmove(w->inter.v + k, w->inter.v + k + 1, (w->inter.n - k - 1) * sizeof *w->inter.v);
        w->inter.n--;
        w->dirty = 1;
        return PF_OK;
    }
    return pf_error(PF_EINVAL,
                    "pf_world_remove_interaction: no interaction %u in this world (removed, or never added)",
                    id.index);
}

/* One step: the collision stage (which may create or remove contact force fields), the graph brought up to date
 * when the structure changed, then the recorded step replayed. */
static int step_once(pf_world *w)
{
    int rc;
    if (w->step_hook) { /* mutable while it runs: what it removes goes in this step */
        w->stepping = 0, w->in_hook = 1;
        rc = w->step_hook(w, w->time, w->step_hook_ctx);
        w->stepping = 1, w->in_hook = 0;
        if (rc) return rc;
    }
    if (w->col && (rc = pf_collision_stage_run(w))) return rc;
    int synced = w->dirty;
    if (w->dirty && (rc = pf_world_sync_graph(w))) return rc;
    if ((rc = pf_graph_run(w->g, w->rt))) return rc;
    if ((rc = pf_world_check_faults(w))) return rc;
    pf_world_count_cg(w);
    if (synced) {
        pf_graph_update up;
        pf_graph_get_last_update(w->g, &up);
        w->last_update.tasks_moved = up.moved;
        w->last_update.ms_runtime = up.ms;
        free_retired(w);
    }
    w->steps++;
    w->time += w->def.dt;
    return PF_OK;
}

int pf_world_step(pf_world *w, uint32_t steps)
{
    PF_TRY(pf_world_check_mutable(w, "pf_world_step"));
    if (w->in_hook)
        return pf_error(PF_ESTATE, "pf_world_step: called from this world's step hook, which runs inside a step");
    int rc = PF_OK;
    w->stepping = 1; /* until the step returns, its callbacks may not change or step the world */
    for (uint32_t s = 0; s < steps && rc == PF_OK; s++) rc = step_once(w);
    w->stepping = 0;
    return rc;
}

int pf_world_set_step_hook(pf_world *w, pf_step_hook fn, void *ctx)
{
    PF_TRY(pf_world_check_mutable(w, "pf_world_set_step_hook"));
    w->step_hook = fn;
    w->step_hook_ctx = fn ? ctx : NULL;
    return PF_OK;
}

int pf_world_get_last_update(const pf_world *w, pf_world_update *out, uint32_t *count)
{
    PF_TRY(pf_world_check_given(w, "pf_world_get_last_update"));
    PF_TRY(pf_check_given(out, "pf_world_get_last_update", "out"));
    *out = w->last_update;
    if (count) *count = w->updates;
    return PF_OK;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

uint64_t pf_world_state_hash(const pf_world *w)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; w && i < w->obj.n; i++) {
        const pf_object *o = w->obj.v[i];
        if (!o) continue; /* removed: hashes as if never added */
        h = fnv1a(h, o->x, (3 * (size_t)o->n + o->xextra) * sizeof(double));
        h = fnv1a(h, o->v, 3 * (size_t)o->n * sizeof(double));
    }
    return h;
}

int pf_world_get_stats(const pf_world *w, pf_world_stats *out)
{
    PF_TRY(pf_world_check_given(w, "pf_world_get_stats"));
    PF_TRY(pf_check_given(out, "pf_world_get_stats", "out"));
    uint32_t live = 0;
    for (uint32_t i = 0; i < w->obj.n; i++) live += w->obj.v[i] != NULL;
    *out = (pf_world_stats){.objects = live, .groups = w->dirty ? 0 : w->ngroups, .tasks = w->tasks,
                            .records = w->records, .steps = w->steps, .cg_solves = w->cg_solves,
                            .cg_stalled = w->cg_stalled, .cg_unconverged = w->cg_unconverged};
    for (uint32_t gi = 0; gi < w->ngroups && !w->dirty; gi++) {
        if (!w->groups[gi].has_loop) continue; /* explicit, or solved directly */
        uint32_t it = pf_graph_loop_iterations(w->g, w->groups[gi].loop);
        out->cg_iterations += it;
        if (it > out->cg_iterations_max) out->cg_iterations_max = it;
    }
    pf_run_stats last, total;
    if (w->g && pf_graph_get_run_stats(w->g, PF_STATS_LAST, &last, NULL, 0, NULL) == PF_OK &&
        pf_graph_get_run_stats(w->g, PF_STATS_TOTAL, &total, NULL, 0, NULL) == PF_OK) {
        out->imbalance = last.imbalance;
        out->busy_ms = last.busy_ms;
        out->wait_ms = last.wait_ms;
        out->idle_ms = last.idle_ms;
        out->waits = last.waits;
        out->waits_blocked = last.blocked;
        const pf_run_stats *d = &w->dropped_runs; /* graphs dropped and recorded afresh */
        out->repartitions = d->repartitions + total.repartitions;
        out->objects_moved = d->objects_moved + total.objects_moved;
        out->repartitions_reverted = d->reverts + total.reverts;
        out->ms_repartition = d->ms_repartition + total.ms_repartition;
        out->metis_small = d->metis_small + total.metis_small;
    }
    return PF_OK;
}

int pf_world_get_worker_stats(const pf_world *w, pf_worker_stats *out, int cap, int *workers)
{
    static const char fn[] = "pf_world_get_worker_stats";
    PF_TRY(pf_world_check_given(w, fn));
    PF_TRY(pf_check_given(workers, fn, "workers"));
    PF_TRY(pf_check_int_range(cap, 0, INT_MAX, fn, "cap"));
    if (cap > 0) PF_TRY(pf_check_given(out, fn, "out"));
    pf_run_stats last;
    *workers = 0;
    if (!w->g) return PF_OK;
    return pf_graph_get_run_stats(w->g, PF_STATS_LAST, &last, out, cap, workers);
}

int pf_world_get_placement(const pf_world *w, int32_t *worker, uint32_t *group, uint32_t cap)
{
    static const char fn[] = "pf_world_get_placement";
    PF_TRY(pf_world_check_given(w, fn));
    if (cap && !worker && !group) return pf_error(PF_EINVAL, "%s: worker and group are both NULL", fn);
    if (worker) {
        if (w->g)
            PF_TRY(pf_graph_object_workers(w->g, worker, cap)); /* owner = object id (groups.c) */
        else
            for (uint32_t o = 0; o < cap; o++) worker[o] = -1;
        for (uint32_t o = 0; o < cap; o++)
            if (o >= w->obj.n || !w->obj.v[o]) worker[o] = -1; /* removed: its tasks may linger until re-analysis */
    }
    for (uint32_t o = 0; group && o < cap; o++) {
        const pf_object *ob = o < w->obj.n ? w->obj.v[o] : NULL;
        group[o] = ob && !w->dirty && ob->group < w->ngroups ? w->groups[ob->group].first : UINT32_MAX;
    }
    return PF_OK;
}
