/* physflow run SCENE: loads a scene and steps it one step at a time, measuring each step and its stages (the
 * collision stage, the structural graph update, the rest: the solvers' tasks), with a progress line on a terminal,
 * optional per-step CSV, VTK frames and a Chrome trace, and a summary at the end (medians, updates, contacts). */
#include "bench_util.h"
#include "run.h"
#include "run_mpi.h"
#include "scene_cli.h"

#include "physflow/scene.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static double median_of(const double *v, size_t n)
{
    if (n == 0) return 0;
    double *c = malloc(n * sizeof *c);
    if (!c) return 0;
    memcpy(c, v, n * sizeof *c);
    double m = bench_median(c, n);
    free(c);
    return m;
}

/* The runtime's and the CG's counters of the step just run; `prev` holds the world's counters before it
 * (updated). */
static void measure_runtime(const pf_world_stats *ws, pf_world_stats *prev, run_step *r)
{
    r->cg_iterations = ws->cg_iterations;
    r->cg_iterations_max = ws->cg_iterations_max;
    r->cg_stalled = ws->cg_stalled - prev->cg_stalled;
    r->cg_unconverged = ws->cg_unconverged - prev->cg_unconverged;
    r->imbalance = ws->imbalance;
    r->busy_ms = ws->busy_ms;
    r->wait_ms = ws->wait_ms;
    r->idle_ms = ws->idle_ms;
    r->waits = ws->waits;
    r->waits_blocked = ws->waits_blocked;
    r->repartitions = ws->repartitions - prev->repartitions;
    r->objects_moved = ws->objects_moved - prev->objects_moved;
    r->ms_repartition = ws->ms_repartition - prev->ms_repartition;
    *prev = *ws;
}

/* The step just run, measured. `prev_updates` is the update count before it. */
static void measure(pf_world *w, uint64_t step, double ms, uint32_t prev_updates, uint32_t *updates,
                    pf_world_stats *prev, run_step *r)
{
    pf_collision_stats cs;
    pf_world_stats ws;
    pf_world_update up;
    memset(&cs, 0, sizeof cs);
    cs.min_distance = INFINITY;
    pf_world_get_collision_stats(w, &cs);
    pf_world_get_stats(w, &ws);
    pf_world_get_last_update(w, &up, updates);
    memset(r, 0, sizeof *r);
    r->step = step;
    r->ms_step = ms;
    r->ms_collision = cs.ms;
    r->contacts = cs.contacts;
    r->pairs = cs.pairs;
    r->started = cs.started;
    r->stopped = cs.stopped;
    r->candidates = cs.candidates;
    r->min_distance = cs.min_distance;
    r->fast_pairs = cs.fast_pairs;
    r->groups = ws.groups;
    r->tasks = ws.tasks;
    r->updated = *updates != prev_updates;
    if (r->updated) {
        r->ms_update = up.ms_record + up.ms_runtime;
        r->tasks_added = up.tasks_added;
        r->tasks_removed = up.tasks_removed;
        r->tasks_moved = up.tasks_moved;
    }
    measure_runtime(&ws, prev, r);
    /* the solvers' time: neither the structural update nor repartitioning (its own column) */
    r->ms_integration = ms - r->ms_collision - r->ms_update - r->ms_repartition;
    if (r->ms_integration < 0) r->ms_integration = 0;
}

typedef struct run_totals {
    double *ms, *col, *upd, *integ, *upd_only; /* per step; upd_only: the updates' ms */
    double *imb, *waits, *blocked, *wait_ms, *idle_ms; /* per step: the runtime's counters */
    double *cg_it; /* per step: CG iterations summed over groups */
    size_t n, nupd;
    uint64_t moved;
    uint32_t cg_it_max; /* the most CG iterations of one group in one step */
    double min_gap;     /* the smallest gap among contacts over the run (m; +inf without contacts) */
    uint64_t fast;      /* surface pairs that broke the contact rule, summed over steps */
} run_totals;

static int totals_alloc(run_totals *t, size_t n)
{
    double **v[] = {&t->ms, &t->col, &t->upd, &t->integ, &t->upd_only, &t->imb, &t->waits, &t->blocked,
                    &t->wait_ms, &t->idle_ms, &t->cg_it};
    int bad = 0;
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) bad |= !(*v[k] = malloc((n ? n : 1) * sizeof **v[k]));
    return bad;
}

static void totals_free(run_totals *t)
{
    free(t->ms), free(t->col), free(t->upd), free(t->integ), free(t->upd_only);
    free(t->imb), free(t->waits), free(t->blocked), free(t->wait_ms), free(t->idle_ms), free(t->cg_it);
}

static void totals_add(run_totals *t, const run_step *r)
{
    size_t k = t->n++;
    t->ms[k] = r->ms_step, t->col[k] = r->ms_collision, t->upd[k] = r->ms_update, t->integ[k] = r->ms_integration;
    t->imb[k] = r->imbalance, t->waits[k] = (double)r->waits, t->blocked[k] = (double)r->waits_blocked;
    t->wait_ms[k] = r->wait_ms, t->idle_ms[k] = r->idle_ms;
    t->cg_it[k] = r->cg_iterations;
    if (r->cg_iterations_max > t->cg_it_max) t->cg_it_max = r->cg_iterations_max;
    if (t->n == 1 || r->min_distance < t->min_gap) t->min_gap = r->min_distance;
    t->fast += r->fast_pairs;
    /* graph updates with the repartitioning they cause: a structural update, or a repartition decision */
    if (r->updated || r->ms_repartition > 0) t->upd_only[t->nupd++] = r->ms_update + r->ms_repartition;
    t->moved += r->tasks_moved;
}

/* The runtime's counters in the summary: medians per step, repartitions in total. */
static void summary_runtime(const run_totals *t, const pf_world_stats *ws, int workers, pf_partitioner p)
{
    if (workers > 1 && t->n)
        printf("  runtime: median per step: imbalance %.3f (max/mean busy), %.0f waits (%.0f blocked), wait %.3f ms, "
               "idle %.3f ms (all workers)\n",
               median_of(t->imb, t->n), median_of(t->waits, t->n), median_of(t->blocked, t->n),
               median_of(t->wait_ms, t->n), median_of(t->idle_ms, t->n));
    if (workers > 1)
        printf("  repartitions: %u (%u objects moved, %u undone after timing, %.3f ms in all)\n", ws->repartitions,
               ws->objects_moved, ws->repartitions_reverted, ws->ms_repartition);
    if (p == PF_PART_METIS && ws->metis_small) {
        printf("  note: METIS found the graph too small for %d workers %u time(s); owner-compute placed it\n",
               workers, ws->metis_small);
        /* the world runs quiet (no binding notes): say it on stderr here, once */
        fprintf(stderr, "physflow run: METIS partitioner: the graph is too small for %d workers (fewer than two "
                        "objects per worker); owner-compute placed it\n", workers);
    }
}

/* The implicit solvers' CG: iterations, and the solves that did not reach the tolerance (counted since the
 * scene loaded: the run's steps). */
static void summary_cg(const run_totals *t, const pf_world_stats *ws)
{
    if (!ws->cg_solves) return;
    printf("  CG: median %.0f iterations per step (all groups; the most of one group %u), %llu solves: %llu "
           "stalled, %llu unconverged\n",
           median_of(t->cg_it, t->n), t->cg_it_max, (unsigned long long)ws->cg_solves,
           (unsigned long long)ws->cg_stalled, (unsigned long long)ws->cg_unconverged);
    if (ws->cg_stalled)
        printf("  note: a stalled solve left its objects' velocities unchanged although forces act on them (the "
               "system is near singular along its first direction, or CGLinearSolver threshold is 1 or more)\n");
}

/* Contacts: the deepest interpenetration of the run against the contact distance, and the steps' breaks of the
 * rule of pf_collision_def (never silent: the run stays correct, each such pair searched over its motion). */
static void summary_contacts(pf_scene *scene, const run_totals *t)
{
    const pf_scene_collision *sc = pf_scene_collision_settings(scene);
    if (!sc || !sc->enabled || !isfinite(t->min_gap)) return;
    printf("  contacts: smallest gap %.3g m (contact distance %g m, alarm distance %g m); %llu fast approach%s\n",
           t->min_gap, sc->contact_distance, sc->alarm_distance, (unsigned long long)t->fast,
           t->fast == 1 ? "" : "es");
    if (t->fast)
        printf("  note: %llu time(s) two surfaces approached by more than alarm - contact distance within a step; "
               "they were searched over their whole motion (slower). Raise alarmDistance or lower dt "
               "(docs/physics.md, Contacts)\n",
               (unsigned long long)t->fast);
}

static void summary(const run_opts *o, pf_scene *scene, const run_totals *t, const run_step *last, int workers,
                    double ms_setup, const pf_world_stats *ws)
{
    pf_world *w = pf_scene_world(scene);
    pf_scene_summary sum;
    pf_scene_get_summary(scene, &sum);
    double umax = 0;
    for (size_t k = 0; k < t->nupd; k++) umax = t->upd_only[k] > umax ? t->upd_only[k] : umax;
    printf("physflow run: %s — %u objects, %llu points, %u surfaces, %zu steps of %g s, %s executor, %s "
           "partitioner, %d workers\n",
           o->scene, sum.objects, (unsigned long long)sum.points, sum.surfaces, t->n, sum.dt,
           pf_executor_name(o->executor), pf_partitioner_name(o->partitioner), workers);
    if (o->executor == PF_EXEC_STATIC && workers > 1) printf("  repartitioning: %s\n", pf_repartition_name(o->repartition));
    printf("  median ms per step %.3f: collision %.3f, graph update %.3f, integration %.3f (setup %.0f ms)\n",
           median_of(t->ms, t->n), median_of(t->col, t->n), median_of(t->upd, t->n), median_of(t->integ, t->n),
           ms_setup);
    printf("  graph updates: %zu (the first recording and repartitioning decisions included), median %.3f ms, max "
           "%.3f ms; tasks moved %llu\n",
           t->nupd, median_of(t->upd_only, t->nupd), umax, (unsigned long long)t->moved);
    summary_runtime(t, ws, workers, o->partitioner);
    summary_cg(t, ws);
    summary_contacts(scene, t);
    printf("  final: %u contacts in %u object pairs, %u solver groups, %u tasks per step\n", last->contacts,
           last->pairs, last->groups, last->tasks);
    printf("  state-hash %016llx\n", (unsigned long long)pf_world_state_hash(w));
}

static void progress(const run_step *r, long steps, double *last_print)
{
    double t = bench_now_s();
    if (t - *last_print < 0.5 && (long)r->step != steps) return;
    *last_print = t;
    fprintf(stderr, "\r  step %llu/%ld  %.1f ms  %u contacts  %u groups ", (unsigned long long)r->step, steps,
            r->ms_step, r->contacts, r->groups);
    if ((long)r->step == steps) fprintf(stderr, "\n");
}

/* Every output, before the scene loads: 0, or 2 after a message. */
static int check_outputs(const run_opts *o)
{
    if (o->csv && cli_output_file("run", "--csv", o->csv, o->force)) return 2;
    if (o->trace && cli_output_file("run", "--trace", o->trace, o->force)) return 2;
    if (o->vtk && cli_output_dir("run", "--vtk", o->vtk, o->force)) return 2;
    if (o->checkpoint && cli_output_file("run", "--checkpoint", o->checkpoint, o->force)) return 2;
    if (o->html && cli_output_file("run", "--html", o->html, o->force)) return 2;
    return 0;
}

/* The outputs opened once the scene is loaded: the CSV's temporary file, the VTK folder when missing. */
static int open_outputs(const run_opts *o, cli_out *csv)
{
    if (o->csv && run_csv_open(csv, o->csv, o->argc, o->argv)) return 1;
    if (o->vtk && mkdir(o->vtk, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "physflow run: --vtk: cannot create the folder '%s': %s\n", o->vtk, strerror(errno));
        cli_out_discard(csv);
        return 1;
    }
    return 0;
}

int run_scene(const run_opts *o)
{
    int rc = check_outputs(o);
    if (rc) return rc;
    pf_scene_load_def ld = pf_scene_default_load_def();
    ld.world.runtime.bind = o->bind;
    ld.world.runtime.workers = o->executor == PF_EXEC_SEQ ? 1 : (int)o->threads;
    ld.world.runtime.executor = o->executor;
    ld.world.runtime.partitioner = o->partitioner;
    ld.world.runtime.repartition = o->repartition;
    ld.world.runtime.quiet = 1;
    ld.world.runtime.mpi = o->mpi;
    ld.dt = o->dt;
    ld.strict = o->strict;
    ld.data_path = o->data_path;
    if (o->broadphase >= 0) { /* -1: the option is absent */
        ld.override_broadphase = 1;
        ld.broadphase = (pf_broadphase_method)o->broadphase;
    }
    double t0 = bench_now_s();
    pf_scene *scene = NULL;
    if ((rc = scene_cli_load_def("physflow run", o->scene, &ld, &scene))) return rc;
    double ms_setup = (bench_now_s() - t0) * 1e3;
    pf_world *w = pf_scene_world(scene);
    if (o->resume && pf_world_load_state(w, o->resume, NULL, 0)) {
        fprintf(stderr, "physflow run: --resume: %s\n", pf_last_error());
        pf_scene_destroy(scene);
        return 2;
    }
    cli_out csv_out = {0};
    if (open_outputs(o, &csv_out)) {
        pf_scene_destroy(scene);
        return 1;
    }
    FILE *csv = csv_out.f;
    if (o->trace) pf_runtime_trace_start(pf_world_runtime(w));
    pf_html_writer *html = NULL;
    if (o->html && run_html_begin(w, o, &html)) {
        cli_out_discard(&csv_out);
        pf_scene_destroy(scene);
        return 1;
    }
    size_t n = (size_t)o->steps;
    run_totals t = {0};
    int status = totals_alloc(&t, n);
    pf_world_stats prev_stats;
    pf_world_get_stats(w, &prev_stats);
    if (status) fprintf(stderr, "physflow run: out of memory\n");
    int tty = !o->hash_only && isatty(2);
    double last_print = bench_now_s();
    uint32_t updates = 0, frames = 0;
    run_step r;
    memset(&r, 0, sizeof r);
    pf_scene_summary sum;
    pf_scene_get_summary(scene, &sum);
    if (!status && o->vtk && run_vtk_frame(w, o->vtk, frames++)) status = 1;
    for (size_t k = 0; k < n && !status; k++) {
        uint32_t prev = updates;
        double s0 = bench_now_s();
        rc = pf_world_step(w, 1);
        double ms = (bench_now_s() - s0) * 1e3;
        if (rc) {
            if (tty) fprintf(stderr, "\n");
            fprintf(stderr, "physflow run: %s: %s\n", o->scene, pf_last_error()); /* the message names the step */
            status = 1;
            break;
        }
        if (o->exit_step && (long)k + 1 == o->exit_step) { /* fault injection: a rank lost mid-run */
            fprintf(stderr, "physflow run: rank %d exits after step %ld (PHYSFLOW_FAULT_RANK_EXIT)\n", o->rank,
                    o->exit_step);
            exit(3);
        }
        measure(w, k + 1, ms, prev, &updates, &prev_stats, &r);
        totals_add(&t, &r);
        if (csv) run_csv_row(csv, &r);
        if (o->vtk && (k + 1) % (size_t)o->vtk_every == 0 && run_vtk_frame(w, o->vtk, frames++)) status = 1;
        if (html && run_html_step(&html, w)) status = 1;
        if (tty) progress(&r, o->steps, &last_print);
    }
    /* the files are written whole by a run that succeeds, or not at all */
    if (o->csv && status) cli_out_discard(&csv_out);
    if (o->csv && !status && cli_out_commit(&csv_out, "run")) status = 1;
    if (o->vtk && frames && run_vtk_collection(o->vtk, frames, sum.dt * (double)o->vtk_every)) status = 1;
    if (!status && o->checkpoint && run_checkpoint_write(w, o, o->checkpoint)) status = 1;
    if (!status && o->trace && run_trace_write(pf_world_runtime(w), o->trace)) status = 1;
    double ms_html = 0;
    status = run_html_end(html, status, &ms_html);
    if (!status) {
        if (o->hash_only)
            printf("state-hash: %016llx\n", (unsigned long long)pf_world_state_hash(w));
        else
            summary(o, scene, &t, &r, ld.world.runtime.workers, ms_setup, &prev_stats);
        if (!o->hash_only && o->mpi) run_mpi_summary(pf_world_runtime(w), (uint64_t)o->steps);
        if (!o->hash_only && o->csv) printf("  per-step table written to %s\n", o->csv);
        if (!o->hash_only && o->vtk) printf("  %u VTK frames and scene.pvd written to %s\n", frames, o->vtk);
        if (!o->hash_only && o->checkpoint) printf("  checkpoint written to %s\n", o->checkpoint);
        if (!o->hash_only && o->trace) printf("  trace written to %s (open in Perfetto or chrome://tracing)\n", o->trace);
        struct stat st;
        if (!o->hash_only && o->html && stat(o->html, &st) == 0)
            printf("  viewer written to %s (%.1f MB in %.0f ms; open it in a browser)\n", o->html,
                   (double)st.st_size / 1e6, ms_html);
    }
    totals_free(&t);
    pf_scene_destroy(scene);
    return status;
}
