/* The physics world: objects and their force fields and constraints, solver groups, and the step loop that
 * records the step's tasks once and replays them (Hermann et al. 2009, §3.1-3.2). */
#include "force_field.h"
#include "interaction.h"

#include "surface.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

pf_solver_def pf_solver_default_def(void)
{
    return (pf_solver_def){.kind = PF_SOLVER_IMPLICIT_EULER,
                           .rayleigh_mass = 0,
                           .rayleigh_stiffness = 0,
                           .cg_iterations = 25,
                           .cg_tolerance = 1e-9,
                           .cg_threshold = 1e-9};
}

pf_world_def pf_world_default_def(void)
{
    return (pf_world_def){.gravity = {0, 0, -9.81},
                          .dt = 0.01,
                          .workers = 1,
                          .executor = PF_EXEC_STATIC,
                          .partitioner = PF_PART_OWNER,
                          .bind = 1,
                          .quiet = 0,
                          .max_speed = 1e4,
                          .repartition = PF_REPART_AUTO};
}

pf_object_def pf_object_default_def(void)
{
    return (pf_object_def){.vertex_mass = 1.0, .solver = pf_solver_default_def()};
}

int pf_world_create(const pf_world_def *def, pf_world **out)
{
    PF_CHECK_ARG(def && out);
    *out = NULL;
    PF_CHECK_ARG(def->dt > 0 && isfinite(def->dt));
    PF_CHECK_ARG(isfinite(def->gravity[0]) && isfinite(def->gravity[1]) && isfinite(def->gravity[2]));
    PF_CHECK_ARG(def->workers >= 1);
    PF_CHECK_ARG(def->max_speed > 0); /* NaN fails too */
    pf_world *w = pf_calloc(1, sizeof *w);
    if (!w) return pf_error(PF_ENOMEM, "out of memory for a world");
    w->def = *def;
    pf_runtime_def rd = pf_runtime_default_def();
    rd.workers = def->workers;
    rd.executor = def->executor;
    rd.partitioner = def->partitioner;
    rd.bind = def->bind;
    rd.quiet = def->quiet;
    rd.repartition = def->repartition;
    rd.tasks = def->tasks;
    int rc = pf_runtime_create(&rd, &w->rt);
    if (rc != PF_OK) {
        pf_free(w);
        return rc;
    }
    w->dirty = 1;
    *out = w;
    return PF_OK;
}

/* After the first run of a re-recorded graph nothing names the removed groups' scalars and interactions. */
static void free_retired(pf_world *w)
{
    for (uint32_t k = 0; k < w->nretired; k++) pf_free(w->retired[k]);
    w->nretired = 0;
    for (uint32_t k = 0; k < w->ndropped; k++) {
        pf_interaction_free(w->dropped[k]);
        pf_free(w->dropped[k]);
    }
    w->ndropped = 0;
}

void pf_world_destroy(pf_world *w)
{
    if (!w) return;
    pf_graph_destroy(w->g);
    pf_world_free_groups(w);
    free_retired(w);
    pf_free(w->retired);
    pf_free(w->dropped);
    pf_collision_stage_free(w->col);
    for (uint32_t i = 0; i < w->nobj; i++) {
        pf_object *o = w->obj[i];
        double *vecs[] = {o->x, o->v, o->f, o->dv, o->b, o->r, o->p, o->q};
        for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) pf_free(vecs[k]);
        pf_free(o->fixed);
        pf_free(o->fixed_list);
        pf_force_fields_destroy(o);
        pf_free(o->links);
        pf_free(o->x_prev);
        pf_free(o->v_prev);
        pf_free(o);
    }
    pf_free(w->obj);
    for (uint32_t k = 0; k < w->ninter; k++) {
        pf_interaction_free(w->inter[k]);
        pf_free(w->inter[k]);
    }
    pf_free(w->inter);
    for (uint32_t k = 0; k < w->nsurf; k++) pf_surface_free(w->surf[k]);
    pf_free(w->surf);
    pf_runtime_destroy(w->rt);
    pf_free(w);
}

pf_runtime *pf_world_runtime(pf_world *w)
{
    return w ? w->rt : NULL;
}

int pf_world_set_executor(pf_world *w, pf_executor e)
{
    PF_CHECK_ARG(w);
    return pf_runtime_set_executor(w->rt, e);
}

int pf_world_set_workers(pf_world *w, int workers)
{
    PF_CHECK_ARG(w);
    int rc = pf_runtime_set_workers(w->rt, workers);
    if (rc == PF_OK) w->def.workers = workers;
    return rc;
}

int pf_world_set_partitioner(pf_world *w, pf_partitioner p)
{
    PF_CHECK_ARG(w);
    return pf_runtime_set_partitioner(w->rt, p);
}

int pf_world_set_repartition(pf_world *w, pf_repartition r)
{
    PF_CHECK_ARG(w);
    int rc = pf_runtime_set_repartition(w->rt, r);
    if (rc == PF_OK) w->def.repartition = r;
    return rc;
}

static int check_solver(const pf_solver_def *s)
{
    PF_CHECK_ARG(s->kind == PF_SOLVER_IMPLICIT_EULER || s->kind == PF_SOLVER_EXPLICIT_EULER);
    PF_CHECK_ARG(s->rayleigh_mass >= 0 && isfinite(s->rayleigh_mass));
    PF_CHECK_ARG(s->rayleigh_stiffness >= 0 && isfinite(s->rayleigh_stiffness));
    PF_CHECK_ARG(s->cg_iterations >= 1);
    PF_CHECK_ARG(s->cg_tolerance >= 0 && isfinite(s->cg_tolerance));
    PF_CHECK_ARG(s->cg_threshold >= 0 && isfinite(s->cg_threshold));
    return PF_OK;
}

int pf_world_add_object(pf_world *w, const pf_object_def *def, pf_object_id *out)
{
    PF_CHECK_ARG(w && def);
    int rc = check_solver(&def->solver);
    if (rc) return rc;
    int has_grid = def->grid[0] || def->grid[1] || def->grid[2];
    uint64_t n = def->points;
    if (has_grid) {
        for (int d = 0; d < 3; d++) {
            PF_CHECK_ARG(def->grid[d] >= 1 && def->grid[d] <= (1 << 20));
            PF_CHECK_ARG(isfinite(def->grid_min[d]) && isfinite(def->grid_max[d]));
            PF_CHECK_ARG(def->grid[d] == 1 || def->grid_max[d] > def->grid_min[d]);
        }
        n = (uint64_t)def->grid[0] * (uint64_t)def->grid[1] * (uint64_t)def->grid[2];
    }
    PF_CHECK_ARG(n >= 1);
    /* ten vectors of 3 doubles per point (state, solver, last good state) and a flag: refuse before allocating */
    char what[64];
    snprintf(what, sizeof what, "an object of %llu points", (unsigned long long)n);
    rc = pf_memory_check(241.0 * (double)n, what);
    if (rc) return rc;
    if (n > (1u << 28)) return pf_error(PF_EINVAL, "%s: at most 2^28 points per object", what);
    PF_CHECK_ARG(def->total_mass > 0 ? isfinite(def->total_mass) : (def->vertex_mass > 0 && isfinite(def->vertex_mass)));
    if (PF_ARRAY_RESERVE(w->obj, w->cap_obj, w->nobj + 1)) return pf_error(PF_ENOMEM, "out of memory for an object");
    pf_object *o = pf_calloc(1, sizeof *o);
    if (!o) return pf_error(PF_ENOMEM, "out of memory for an object");
    o->id = w->nobj;
    o->n = (uint32_t)n;
    o->mass = def->total_mass > 0 ? def->total_mass / (double)n : def->vertex_mass;
    o->solver = def->solver;
    double **vecs[] = {&o->x, &o->v, &o->f, &o->dv, &o->b, &o->r, &o->p, &o->q};
    int fail = 0;
    for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) fail |= !(*vecs[k] = pf_calloc(3 * n, sizeof(double)));
    fail |= !(o->fixed = pf_calloc(n, 1));
    if (fail) {
        for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) pf_free(*vecs[k]);
        pf_free(o->fixed);
        pf_free(o);
        return pf_error(PF_ENOMEM, "out of memory for an object of %llu points", (unsigned long long)n);
    }
    if (has_grid) {
        memcpy(o->grid, def->grid, sizeof o->grid);
        memcpy(o->grid_min, def->grid_min, sizeof o->grid_min);
        memcpy(o->grid_max, def->grid_max, sizeof o->grid_max);
        for (int k = 0; k < def->grid[2]; k++)
            for (int j = 0; j < def->grid[1]; j++)
                for (int i = 0; i < def->grid[0]; i++) {
                    int ijk[3] = {i, j, k};
                    double *p = o->x + 3 * ((size_t)i + (size_t)def->grid[0] * ((size_t)j + (size_t)def->grid[1] * k));
                    for (int d = 0; d < 3; d++)
                        p[d] = def->grid[d] == 1 ? def->grid_min[d]
                                                 : def->grid_min[d] + (def->grid_max[d] - def->grid_min[d]) * ijk[d] /
                                                                          (double)(def->grid[d] - 1);
                }
    } else if (def->positions) {
        memcpy(o->x, def->positions, 3 * n * sizeof(double));
    }
    if (def->velocities) memcpy(o->v, def->velocities, 3 * n * sizeof(double));
    w->obj[w->nobj++] = o;
    w->dirty = 1;
    if (out) *out = o->id;
    return PF_OK;
}

int pf_world_remove_interaction(pf_world *w, pf_interaction_id id)
{
    PF_CHECK_ARG(w);
    for (uint32_t k = 0; k < w->ninter; k++) {
        if (w->inter[k]->uid != id) continue;
        /* its group's tasks (which name it) are removed at the next step; until then it stays allocated */
        if (PF_ARRAY_RESERVE(w->dropped, w->cap_dropped, w->ndropped + 1)) return pf_error(PF_ENOMEM, "out of memory");
        w->dropped[w->ndropped++] = w->inter[k];
        memmove(w->inter + k, w->inter + k + 1, (w->ninter - k - 1) * sizeof *w->inter);
        w->ninter--;
        w->dirty = 1;
        return PF_OK;
    }
    return pf_error(PF_EINVAL, "pf_world_remove_interaction: no interaction %u in this world", id);
}

int pf_world_fix_points(pf_world *w, pf_object_id id, const uint32_t *points, uint32_t n)
{
    PF_CHECK_ARG(w && id < w->nobj && (points || n == 0));
    pf_object *o = w->obj[id];
    for (uint32_t k = 0; k < n; k++)
        if (points[k] >= o->n) return pf_error(PF_EINVAL, "fixed point %u out of range (%u points)", points[k], o->n);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = points[k];
        if (o->fixed[i]) continue;
        if (PF_ARRAY_RESERVE(o->fixed_list, o->cap_fixed, o->nfixed + 1)) return pf_error(PF_ENOMEM, "out of memory");
        o->fixed[i] = 1;
        o->fixed_list[o->nfixed++] = i;
        o->v[3 * i] = o->v[3 * i + 1] = o->v[3 * i + 2] = 0;
    }
    o->changed = 1;
    w->dirty = 1;
    return PF_OK;
}

int pf_world_box_select(const pf_world *w, pf_object_id id, const double box[6], uint32_t *out, uint32_t cap,
                        uint32_t *count)
{
    PF_CHECK_ARG(w && box && count && id < w->nobj && (out || cap == 0));
    const pf_object *o = w->obj[id];
    uint32_t m = 0;
    /* a rigid body's point 1 is its angular part, which has no position */
    uint32_t npos = o->kind == PF_OBJECT_RIGID ? 1 : o->n;
    for (uint32_t i = 0; i < npos; i++) {
        const double *p = o->x + 3 * (size_t)i;
        if (p[0] < box[0] || p[1] < box[1] || p[2] < box[2] || p[0] > box[3] || p[1] > box[4] || p[2] > box[5])
            continue;
        if (m < cap) out[m] = i;
        m++;
    }
    *count = m;
    return PF_OK;
}

int pf_world_fix_box(pf_world *w, pf_object_id id, const double box[6], uint32_t *count)
{
    uint32_t m;
    int rc = pf_world_box_select(w, id, box, NULL, 0, &m);
    if (rc) return rc;
    uint32_t *idx = pf_malloc((size_t)(m ? m : 1) * sizeof *idx);
    if (!idx) return pf_error(PF_ENOMEM, "out of memory");
    pf_world_box_select(w, id, box, idx, m, &m);
    rc = pf_world_fix_points(w, id, idx, m);
    pf_free(idx);
    if (rc == PF_OK && count) *count = m;
    return rc;
}

/* One step: the collision stage (which may create or remove contact force fields), the graph brought up to date
 * when the structure changed, then the recorded step replayed. */
static int step_once(pf_world *w)
{
    int rc;
    if (w->col && (rc = pf_contacts_update(w))) return rc;
    int synced = w->dirty;
    if (w->dirty && (rc = pf_world_sync_graph(w))) return rc;
    if ((rc = pf_graph_run(w->g, w->rt))) return rc;
    if ((rc = pf_world_check_faults(w))) return rc;
    if (synced) {
        pf_graph_update up;
        pf_graph_last_update(w->g, &up);
        w->last_update.tasks_moved = up.moved;
        w->last_update.ms_runtime = up.ms;
        free_retired(w);
    }
    w->steps++;
    return PF_OK;
}

int pf_world_step(pf_world *w, uint32_t steps)
{
    PF_CHECK_ARG(w);
    for (uint32_t s = 0; s < steps; s++) {
        int rc = step_once(w);
        if (rc) return rc;
    }
    return PF_OK;
}

int pf_world_last_update(const pf_world *w, pf_world_update *out, uint32_t *count)
{
    PF_CHECK_ARG(w && out);
    *out = w->last_update;
    if (count) *count = w->updates;
    return PF_OK;
}

uint32_t pf_world_objects(const pf_world *w)
{
    return w ? w->nobj : 0;
}

const double *pf_world_positions(const pf_world *w, pf_object_id o, uint32_t *points)
{
    if (!w || o >= w->nobj) return NULL;
    if (points) *points = w->obj[o]->n;
    return w->obj[o]->x;
}

const double *pf_world_velocities(const pf_world *w, pf_object_id o, uint32_t *points)
{
    if (!w || o >= w->nobj) return NULL;
    if (points) *points = w->obj[o]->n;
    return w->obj[o]->v;
}

int pf_world_set_state(pf_world *w, pf_object_id id, const double *x, const double *v)
{
    PF_CHECK_ARG(w && id < w->nobj);
    pf_object *o = w->obj[id];
    size_t n3 = 3 * (size_t)o->n;
    for (size_t k = 0; k < n3; k++)
        if ((x && !isfinite(x[k])) || (v && !isfinite(v[k])))
            return pf_error(PF_EINVAL, "pf_world_set_state: value %zu of object %u is not finite", k, id);
    if (x) memcpy(o->x, x, n3 * sizeof *x);
    if (v) memcpy(o->v, v, n3 * sizeof *v);
    for (uint32_t k = 0; k < o->nfixed; k++) memset(o->v + 3 * (size_t)o->fixed_list[k], 0, 3 * sizeof *o->v);
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
    for (uint32_t i = 0; w && i < w->nobj; i++) {
        h = fnv1a(h, w->obj[i]->x, (3 * (size_t)w->obj[i]->n + w->obj[i]->xextra) * sizeof(double));
        h = fnv1a(h, w->obj[i]->v, 3 * (size_t)w->obj[i]->n * sizeof(double));
    }
    return h;
}

int pf_world_get_stats(const pf_world *w, pf_world_stats *out)
{
    PF_CHECK_ARG(w && out);
    *out = (pf_world_stats){.objects = w->nobj, .groups = w->dirty ? 0 : w->ngroups, .tasks = w->tasks,
                            .records = w->records, .steps = w->steps};
    for (uint32_t gi = 0; gi < w->ngroups && !w->dirty; gi++) {
        if (!w->groups[gi].implicit) continue;
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
        out->repartitions = total.repartitions;
        out->objects_moved = total.objects_moved;
        out->ms_repartition = total.ms_repartition;
        out->metis_small = total.metis_small;
    }
    return PF_OK;
}

int pf_world_worker_stats(const pf_world *w, pf_worker_stats *out, int cap, int *workers)
{
    PF_CHECK_ARG(w && workers && (out || cap == 0) && cap >= 0);
    pf_run_stats last;
    *workers = 0;
    if (!w->g) return PF_OK;
    return pf_graph_get_run_stats(w->g, PF_STATS_LAST, &last, out, cap, workers);
}
