/* The runtime: worker team, settings, and pf_graph_run, which analyses/partitions/compiles a graph when needed
 * and then hands it to the chosen executor. */
#include "exec.h"
#include "mpi.h"
#include "numa.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <stdatomic.h>

#include <string.h>
#include <unistd.h>

struct pf_runtime {
    pf_runtime_def def;
    pf_team *team;
    pf_trace *trace; /* NULL when tracing is off */
    pf_numa *numa;   /* NULL without a bound team; binds data to their owners' nodes when there are several */
    pf_mpi *mpi;     /* def.mpi: this rank's state across MPI ranks; NULL otherwise */
    uint32_t spin;
    _Atomic int busy; /* a graph run or parallel region is under way (claim, release) */
};

/* Claims the runtime for a run, a parallel region or a change of its workers: PF_ESTATE when it is in one already
 * (the call came from inside one of its tasks, or from another thread meanwhile), where going on would recurse
 * without end, wait for itself, or pull the worker team from under a run. */
static int claim(pf_runtime *rt, const char *fn)
{
    int idle = 0;
    if (atomic_compare_exchange_strong(&rt->busy, &idle, 1)) return PF_OK;
    return pf_error(PF_ESTATE,
                    "%s: the runtime is running a graph or a parallel region (called from inside one of its tasks, "
                    "or from another thread meanwhile)",
                    fn);
}

static void release(pf_runtime *rt)
{
    atomic_store(&rt->busy, 0);
}

static const char *const executor_names[PF_EXEC_COUNT] = {"seq", "static", "barrier", "omptasks"};
static const char *const partitioner_names[PF_PART_COUNT] = {"owner", "metis"};
static const char *const repartition_names[PF_REPART_COUNT] = {"auto", "never", "always"};

const char *pf_executor_name(pf_executor e)
{
    return (unsigned)e < PF_EXEC_COUNT ? executor_names[e] : "?";
}

int pf_executor_parse(const char *name, pf_executor *out)
{
    PF_TRY(pf_check_given(out, __func__, "out"));
    int k;
    PF_TRY(pf_check_name(name, executor_names, PF_EXEC_COUNT, __func__, "executor", &k));
    *out = (pf_executor)k;
    return PF_OK;
}

const char *pf_partitioner_name(pf_partitioner p)
{
    return (unsigned)p < PF_PART_COUNT ? partitioner_names[p] : "?";
}

int pf_partitioner_parse(const char *name, pf_partitioner *out)
{
    PF_TRY(pf_check_given(out, __func__, "out"));
    int k;
    PF_TRY(pf_check_name(name, partitioner_names, PF_PART_COUNT, __func__, "partitioner", &k));
    *out = (pf_partitioner)k;
    return PF_OK;
}

const char *pf_repartition_name(pf_repartition r)
{
    return (unsigned)r < PF_REPART_COUNT ? repartition_names[r] : "?";
}

int pf_repartition_parse(const char *name, pf_repartition *out)
{
    PF_TRY(pf_check_given(out, __func__, "out"));
    int k;
    PF_TRY(pf_check_name(name, repartition_names, PF_REPART_COUNT, __func__, "repartitioning policy", &k));
    *out = (pf_repartition)k;
    return PF_OK;
}

pf_runtime_def pf_runtime_default_def(void)
{
    return (pf_runtime_def){
        .workers = 1,
        .executor = PF_EXEC_STATIC,
        .partitioner = PF_PART_OWNER,
        .bind = 1,
        .bind_caller = 0,
        .spin_ns = 20000,
        .quiet = 0,
        .repartition = PF_REPART_AUTO,
    };
}

/* The worker team: K-1 threads of PhysFlow's, or none when the host's task system runs the workers. */
static int start_team(pf_runtime *rt)
{
    const pf_runtime_def *def = &rt->def;
    rt->spin = pf_spin_iterations(def->spin_ns);
    /* More workers than CPUs: a spinning waiter would hold the CPU its signaller needs, so sleep early. */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus > 0 && def->workers > cpus && rt->spin > 64) rt->spin = 64;
    rt->team = def->tasks.enqueue ? pf_team_create_host(def->workers, &def->tasks, def->quiet)
                                  : pf_team_create(def->workers, def->bind, def->bind_caller, rt->spin, def->quiet);
    if (!rt->team) return PF_ENOMEM;
    hwloc_topology_t topo = pf_team_topology(rt->team);
    rt->numa = topo ? pf_numa_create(topo, def->workers) : NULL; /* NULL: data stay where the host put them */
    return PF_OK;
}

int pf_runtime_create(const pf_runtime_def *def, pf_runtime **out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_given(out, fn, "out"));
    PF_TRY(pf_check_int_range(def->workers, 1, 4096, fn, "def.workers"));
    PF_TRY(pf_check_enum((int)def->executor, PF_EXEC_COUNT, fn, "def.executor"));
    PF_TRY(pf_check_enum((int)def->partitioner, PF_PART_COUNT, fn, "def.partitioner"));
    PF_TRY(pf_check_enum((int)def->repartition, PF_REPART_COUNT, fn, "def.repartition"));
    PF_TRY(pf_check_int_range(def->spin_ns, 0, 1000000000, fn, "def.spin_ns"));
    if (!def->tasks.enqueue != !def->tasks.finish)
        return pf_error(PF_EINVAL, "%s: def.tasks needs both enqueue and finish, or neither", fn);
    PF_TRY(pf_check_int_range(def->mpi, 0, 1, fn, "def.mpi"));
    if (def->mpi) {
        if (def->executor != PF_EXEC_STATIC)
            return pf_error(PF_EINVAL, "%s: def.mpi = 1 runs the static executor only, got executor %s", fn,
                            pf_executor_name(def->executor));
        PF_TRY(pf_mpi_check(fn));
    }
    pf_runtime *rt = pf_calloc(1, sizeof *rt);
    if (!rt) return pf_error(PF_ENOMEM, "out of memory creating a runtime");
    rt->def = *def;
    if (def->mpi) {
        rt->def.bind = 0; /* the ranks on one machine would pin their workers to the same cores */
        rt->def.repartition = PF_REPART_NEVER; /* placements come from rank 0; none is measured yet */
        if (!(rt->mpi = pf_mpi_create(def->workers))) {
            pf_free(rt);
            return pf_error(PF_ENOMEM, "out of memory creating a runtime across MPI ranks");
        }
        if (pf_mpi_ranks(rt->mpi) * def->workers > 4096 || pf_mpi_ranks(rt->mpi) > 64) {
            int ranks = pf_mpi_ranks(rt->mpi);
            pf_mpi_destroy(rt->mpi);
            pf_free(rt);
            return pf_error(PF_EINVAL, "%s: def.mpi = 1 takes at most 64 ranks and 4096 workers in all, got %d ranks "
                            "of %d workers",
                            fn, ranks, def->workers);
        }
    }
    int rc = start_team(rt);
    if (rc) {
        pf_mpi_destroy(rt->mpi);
        pf_free(rt);
        return rc;
    }
    *out = rt;
    return PF_OK;
}

typedef struct parallel_call {
    void (*fn)(void *ctx, int worker, int workers);
    void *ctx;
    int workers;
} parallel_call;

static void parallel_job(void *ctx, int worker)
{
    const parallel_call *p = ctx;
    p->fn(p->ctx, worker, p->workers);
}

int pf_runtime_parallel(pf_runtime *rt, void (*fn)(void *ctx, int worker, int workers), void *ctx)
{
    PF_TRY(pf_check_given(rt, __func__, "rt"));
    PF_TRY(pf_check_callback(fn != NULL, __func__, "fn"));
    PF_TRY(claim(rt, __func__));
    parallel_call p = {fn, ctx, rt->def.workers};
    pf_team_run(rt->team, parallel_job, &p);
    release(rt);
    return PF_OK;
}

/* A new team for `workers` (the runtime claimed). */
static int restart_team(pf_runtime *rt, int workers)
{
    int old = rt->def.workers;
    pf_team *team = rt->team;
    pf_numa *numa = rt->numa;
    rt->def.workers = workers;
    if (start_team(rt)) {
        rt->def.workers = old;
        rt->team = team;
        rt->numa = numa;
        return PF_ENOMEM;
    }
    pf_numa_destroy(numa);
    pf_team_destroy(team);
    if (rt->trace) { /* lanes are per worker */
        pf_trace_destroy(rt->trace);
        rt->trace = pf_trace_create(workers);
    }
    return PF_OK;
}

int pf_runtime_set_workers(pf_runtime *rt, int workers)
{
    PF_TRY(pf_check_given(rt, __func__, "rt"));
    PF_TRY(pf_check_int_range(workers, 1, 4096, __func__, "workers"));
    if (workers == rt->def.workers) return PF_OK;
    if (rt->mpi) return pf_error(PF_EINVAL, "%s: a runtime across MPI ranks keeps its worker count", __func__);
    PF_TRY(claim(rt, __func__));
    int rc = restart_team(rt, workers);
    release(rt);
    return rc == PF_OK ? PF_OK : pf_error(rc, "%s: out of memory starting %d workers", __func__, workers);
}

void pf_runtime_destroy(pf_runtime *rt)
{
    /* from inside a run, destroying would pull the team from under it: refused (the runtime stays valid) */
    if (!rt || claim(rt, __func__)) return;
    pf_numa_destroy(rt->numa);
    pf_team_destroy(rt->team);
    pf_trace_destroy(rt->trace);
    pf_mpi_destroy(rt->mpi);
    pf_free(rt);
}

int pf_runtime_workers(const pf_runtime *rt)
{
    return rt ? rt->def.workers : 0;
}

int pf_runtime_get_rank(const pf_runtime *rt, int *rank, int *ranks)
{
    PF_TRY(pf_check_given(rt, __func__, "rt"));
    PF_TRY(pf_check_given(rank, __func__, "rank"));
    PF_TRY(pf_check_given(ranks, __func__, "ranks"));
    *rank = rt->mpi ? pf_mpi_rank(rt->mpi) : 0;
    *ranks = rt->mpi ? pf_mpi_ranks(rt->mpi) : 1;
    return PF_OK;
}

void pf_runtime_mpi_totals(const pf_runtime *rt, pf_mpi_totals *out)
{
    *out = (pf_mpi_totals){0};
    if (rt->mpi) pf_mpi_get_totals(rt->mpi, out);
}

/* The workers placements and programs are for: every rank's (R*K) across MPI ranks. */
static int global_workers(const pf_runtime *rt)
{
    return rt->mpi ? pf_mpi_ranks(rt->mpi) * rt->def.workers : rt->def.workers;
}

int pf_runtime_set_executor(pf_runtime *rt, pf_executor e)
{
    PF_TRY(pf_check_given(rt, __func__, "rt"));
    PF_TRY(pf_check_enum((int)e, PF_EXEC_COUNT, __func__, "executor"));
    if (rt->mpi && e != PF_EXEC_STATIC)
        return pf_error(PF_EINVAL, "%s: a runtime across MPI ranks runs the static executor only, got %s", __func__,
                        pf_executor_name(e));
    rt->def.executor = e;
    return PF_OK;
}

int pf_runtime_set_partitioner(pf_runtime *rt, pf_partitioner p)
{
    PF_TRY(pf_check_given(rt, __func__, "rt"));
    PF_TRY(pf_check_enum((int)p, PF_PART_COUNT, __func__, "partitioner"));
    rt->def.partitioner = p;
    return PF_OK;
}

int pf_runtime_set_repartition(pf_runtime *rt, pf_repartition r)
{
    PF_TRY(pf_check_given(rt, __func__, "rt"));
    PF_TRY(pf_check_enum((int)r, PF_REPART_COUNT, __func__, "policy"));
    if (!rt->mpi) rt->def.repartition = r; /* across MPI ranks: never (rank 0's placement is everyone's) */
    return PF_OK;
}

int pf_runtime_trace_start(pf_runtime *rt)
{
    PF_TRY(pf_check_given(rt, __func__, "rt"));
    PF_TRY(claim(rt, __func__));
    pf_trace_destroy(rt->trace);
    rt->trace = pf_trace_create(rt->def.workers);
    release(rt);
    return rt->trace ? PF_OK : pf_error(PF_ENOMEM, "out of memory starting a trace");
}

int pf_runtime_trace_write(pf_runtime *rt, const char *path)
{
    PF_TRY(pf_check_given(rt, __func__, "rt"));
    PF_TRY(pf_check_given(path, __func__, "path"));
    if (!rt->trace) return pf_error(PF_ESTATE, "pf_runtime_trace_write: tracing was not started");
    PF_TRY(claim(rt, __func__));
    int rc = pf_trace_write_json(rt->trace, path);
    pf_trace_destroy(rt->trace);
    rt->trace = NULL;
    release(rt);
    return rc;
}

int pf_runtime_trace_drain(pf_runtime *rt, pf_trace_span_fn fn, void *ctx)
{
    PF_TRY(pf_check_given(rt, __func__, "rt"));
    PF_TRY(pf_check_callback(fn != NULL, __func__, "fn"));
    if (!rt->trace) return pf_error(PF_ESTATE, "pf_runtime_trace_drain: tracing was not started");
    PF_TRY(claim(rt, __func__));
    pf_trace_drain(rt->trace, fn, ctx);
    release(rt);
    return PF_OK;
}

int pf_runtime_trace_stop(pf_runtime *rt)
{
    PF_TRY(pf_check_given(rt, __func__, "rt"));
    PF_TRY(claim(rt, __func__));
    pf_trace_destroy(rt->trace);
    rt->trace = NULL;
    release(rt);
    return PF_OK;
}

/* What a caller needs prepared: the analysis always; the static executor a placement and its programs, the
 * barrier executor its levels, an estimate a placement alone. */
enum { NEED_PLACEMENT = 1, NEED_PROGRAMS = 2, NEED_LEVELS = 4 };

static unsigned needs_of(pf_executor e)
{
    if (e == PF_EXEC_STATIC) return NEED_PLACEMENT | NEED_PROGRAMS;
    return e == PF_EXEC_BARRIER ? NEED_LEVELS : 0;
}

static int placement_stale(const pf_graph *g, int workers, pf_partitioner p)
{
    return g->pl.workers != workers || g->pl.partitioner != p || g->pl.nodes != g->an.nodes.n;
}

/* Analyses what was recorded since the last analysis: appended tasks alone when nothing was removed. Sets
 * *appended when it could. */
static int analyse(pf_graph *g, int *appended)
{
    int rc;
    if (pf_graph_can_append(g)) {
        rc = pf_graph_analyse_append(g);
        *appended = !rc;
    } else {
        pf_graph_free_programs(g);
        rc = pf_graph_analyse(g);
    }
    if (rc) return rc;
    pf_placement_measure_start(g);
    g->rp.pending = 1; /* the changed graph's measured costs decide whether to partition it again */
    return PF_OK;
}

/* Programs for the placement: the appended nodes alone when the analysis was appended to and the programs match
 * the workers and partitioner, else compiled whole. */
static int compile(pf_graph *g, pf_runtime *rt, int appended)
{
    int workers = global_workers(rt);
    if (rt->mpi && pf_mpi_bcast_placement(rt->mpi, g)) return PF_ENOMEM; /* rank 0's placement, on every rank */
    int stale = g->prog.workers != workers || g->prog.partitioner != rt->def.partitioner;
    int rc = appended && !stale ? pf_graph_compile_append(g)
                                : pf_graph_compile_programs(g, workers, rt->def.partitioner);
    if (rc) return rc;
    g->pl.last_update.moved += g->pl.pending_moved;
    g->pl.pending_moved = 0;
    if (rt->numa) pf_numa_apply(rt->numa, g); /* memory follows the placement (no-op on one node) */
    return PF_OK;
}

/* Analysis, placement, programs and levels as `need` asks, each rebuilt only when what it depends on changed.
 * Tasks appended to an analysed graph (nothing removed) are analysed, placed and compiled alone, so an update
 * costs what it adds. */
static int prepare(pf_graph *g, pf_runtime *rt, unsigned need)
{
    int workers = global_workers(rt);
    g->prog.rank_workers = rt->mpi ? rt->def.workers : 0;
    pf_partitioner part = rt->def.partitioner;
    int need_analysis = !g->an.analysed;
    int place = (need & NEED_PLACEMENT) && (need_analysis || placement_stale(g, workers, part));
    int programs = (need & NEED_PROGRAMS) &&
                   (need_analysis || place || g->prog.workers != workers || g->prog.partitioner != part);
    int levels = (need & NEED_LEVELS) && (need_analysis || pf_barrier_levels_stale(g));
    if (!need_analysis && !place && !programs && !levels) return PF_OK;
    uint64_t t0 = pf_now_ns();
    int appended = 0, rc = PF_OK;
    if (need_analysis || g->pl.workers != workers || g->pl.partitioner != part) /* the trial cannot go on */
        pf_repartition_trial_end(g, g->pl.workers == workers && g->pl.partitioner == part);
    if (need_analysis) {
        if ((rc = analyse(g, &appended))) return rc;
        if (!(need & NEED_PROGRAMS)) pf_graph_free_programs(g); /* stale now; the placement itself is kept */
    }
    if (place) {
        g->pl.groups = rt->mpi ? pf_mpi_ranks(rt->mpi) : 1;
        if ((rc = pf_partition(g, workers, part))) return rc;
        if (need_analysis && !g->pl.last_update.full && pf_repartition_at_update(g, workers, part, rt->def.repartition))
            appended = 0; /* objects moved: compile whole */
    }
    if (programs && (rc = compile(g, rt, appended))) return rc;
    if (levels && pf_barrier_levels_update(g)) return pf_error(PF_ENOMEM, "out of memory levelling a graph");
    uint64_t t1 = pf_now_ns();
    if (g->rp.recompile && g->counters) {
        double ms = (double)(t1 - t0) * 1e-6;
        g->counters->last_run.ms_repartition += ms;
        g->counters->total_run.ms_repartition += ms;
    }
    g->rp.recompile = 0;
    g->pl.last_update.ms = (double)(t1 - t0) * 1e-6;
    g->compiles++;
    if (rt->trace) pf_trace_add(rt->trace, 0, PF_TRACE_COMPILE, "compile", t0, t1);
    return PF_OK;
}

int pf_graph_get_estimated_makespan(pf_graph *g, pf_runtime *rt, double *out)
{
    PF_TRY(pf_check_given(g, __func__, "g"));
    PF_TRY(pf_check_given(rt, __func__, "rt"));
    PF_TRY(pf_check_given(out, __func__, "out"));
    PF_TRY(pf_graph_check_idle(g, __func__));
    PF_TRY(claim(rt, __func__));
    int rc = prepare(g, rt, NEED_PLACEMENT);
    release(rt);
    if (rc) return rc;
    int workers = global_workers(rt);
    double *load = pf_calloc((size_t)workers, sizeof *load);
    if (!load) return pf_error(PF_ENOMEM, "out of memory");
    pf_worker_loads(g, workers, load);
    double m = 0;
    for (int w = 0; w < workers; w++)
        if (load[w] > m) m = load[w];
    pf_free(load);
    *out = m;
    return PF_OK;
}

static int run_graph(pf_graph *g, pf_runtime *rt)
{
    int workers = rt->def.workers, static_exec = rt->def.executor == PF_EXEC_STATIC;
    if (pf_counters_prepare(&g->counters, workers)) return pf_error(PF_ENOMEM, "out of memory for run counters");
    g->quiet = rt->def.quiet;
    unsigned need = needs_of(rt->def.executor);
    int rc = prepare(g, rt, need);
    if (rc) return rc;
    if (g->rp.forced && static_exec) { /* pf_graph_repartition: partition afresh, then compile that */
        if ((rc = pf_repartition_forced(g, global_workers(rt), rt->def.partitioner)) || (rc = prepare(g, rt, need)))
            return rc;
    }
    if (g->an.ptrs_stale) pf_graph_refresh_ptrs(g);
    g->runs++;
    pf_counters_begin(g->counters);
    pf_exec_ctx c = {.g = g,
                     .trace = rt->trace,
                     .measure = g->pl.measure_next > 0 && !rt->mpi, /* costs differ between ranks */
                     .workers = workers,
                     .spin = rt->spin,
                     .tally = g->counters->tally,
                     .mpi = rt->mpi,
                     .prog_base = rt->mpi ? pf_mpi_rank(rt->mpi) * workers : 0};
    if (rt->mpi && (rc = pf_mpi_run_begin(rt->mpi, g))) return rc;
    if (c.measure && pf_placement_measure_run(g)) return pf_error(PF_ENOMEM, "out of memory measuring task costs");
    uint64_t t0 = pf_now_ns();
    switch (rt->def.executor) {
    case PF_EXEC_SEQ: pf_exec_seq(&c); break;
    case PF_EXEC_STATIC:
        if (pf_exec_static(rt->team, &c)) return pf_error(PF_ENOMEM, "out of memory measuring task costs");
        break;
    case PF_EXEC_BARRIER:
        pf_team_release_caller(rt->team); /* the OpenMP pool must not inherit worker 0's core */
        pf_exec_barrier(&c);
        break;
    case PF_EXEC_OMPTASKS:
        pf_team_release_caller(rt->team);
        pf_exec_omptasks(&c);
        break;
    default: return pf_error(PF_EINVAL, "invalid executor");
    }
    uint64_t msgs = 0, bytes = 0;
    if (rt->mpi) pf_mpi_run_end(rt->mpi, g, &msgs, &bytes); /* the ranks' data equal again */
    uint64_t t1 = pf_now_ns();
    if (rt->trace) pf_trace_add(rt->trace, 0, PF_TRACE_RUN, "graph run", t0, t1);
    pf_counters_end(g->counters, t0, t1, static_exec || rt->def.executor == PF_EXEC_SEQ);
    g->counters->last_run.mpi_messages = msgs, g->counters->last_run.mpi_bytes = bytes;
    g->counters->total_run.mpi_messages += msgs, g->counters->total_run.mpi_bytes += bytes;
    int measured = c.measure && pf_placement_keep_costs(g);
    if (static_exec)
        pf_repartition_after_run(g, global_workers(rt), rt->def.partitioner, rt->def.repartition, c.measure, measured);
    return PF_OK;
}

int pf_graph_run(pf_graph *g, pf_runtime *rt)
{
    PF_TRY(pf_check_given(g, __func__, "g"));
    PF_TRY(pf_check_given(rt, __func__, "rt"));
    PF_TRY(pf_graph_check_idle(g, __func__));
    PF_TRY(claim(rt, __func__));
    atomic_store(&g->running, 1);
    int rc = run_graph(g, rt);
    atomic_store(&g->running, 0);
    release(rt);
    return rc;
}

int pf_graph_get_run_stats(const pf_graph *g, pf_stats_span span, pf_run_stats *out, pf_worker_stats *workers,
                           int cap, int *nworkers)
{
    PF_TRY(pf_check_given(g, __func__, "g"));
    PF_TRY(pf_check_given(out, __func__, "out"));
    PF_TRY(pf_check_int_range(cap, 0, 1 << 20, __func__, "cap"));
    if (cap > 0) PF_TRY(pf_check_given(workers, __func__, "workers (cap > 0)"));
    if (span != PF_STATS_LAST && span != PF_STATS_TOTAL)
        return pf_error(PF_EINVAL, "pf_graph_get_run_stats: span must be PF_STATS_LAST or PF_STATS_TOTAL, got %d",
                        (int)span);
    const pf_counters *c = g->counters;
    pf_run_stats r = {0};
    if (c) r = span == PF_STATS_LAST ? c->last_run : c->total_run;
    r.metis_small = g->pl.metis_small; /* a count of placements, the same for both spans */
    *out = r;
    int k = c ? c->workers : 0;
    for (int w = 0; w < cap && w < k; w++) workers[w] = span == PF_STATS_LAST ? c->last[w] : c->total[w];
    if (nworkers) *nworkers = k;
    return PF_OK;
}
