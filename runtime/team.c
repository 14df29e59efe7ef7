/* The pinned worker team: threads bound one per core with hwloc; a run is a generation bump that wakes them
 * and a countdown the caller waits on. No global lock: each wait is a spin then a futex sleep. */
#include "team.h"

#include "sync.h"

#include "base/alloc.h"
#include "base/error.h"

#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

struct pf_team {
    int workers;
    uint32_t spin;
    uint32_t idle_spin; /* between jobs: longer than a wait's spin (see pf_team_create) */
    int bind_caller;
    int caller_bound;
    pthread_t caller;
    hwloc_cpuset_t caller_saved; /* the caller's own binding, restored by pf_team_release_caller */
    pthread_t *threads;
    hwloc_topology_t topo;
    int topo_ok;
    int quiet;
    _Atomic int bind_warned;

    _Alignas(64) _Atomic uint32_t generation; /* bumped to start a job; workers futex-wait on it */
    _Atomic uint32_t gen_waiters;
    pf_team_job job;
    void *ctx;
    int stop;
    _Alignas(64) _Atomic uint32_t remaining; /* workers (other than the caller) still running the job */
    _Atomic uint32_t done_stamp;             /* bumped by the last worker to finish */
    _Atomic uint32_t done_waiters;
    pf_task_system host; /* enqueue set: the host's task system runs workers 1..K-1 */
    void **handles;
};

typedef struct worker_arg {
    pf_team *team;
    int index;
} worker_arg;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t pf_spin_iterations(int ns)
{
    if (ns <= 0) return 0;
    const int probe = 2000;
    uint64_t t0 = now_ns();
    for (int k = 0; k < probe; k++) pf_cpu_relax();
    double per = (double)(now_ns() - t0) / probe;
    if (per < 0.5) per = 0.5;
    double it = ns / per;
    return it > 1e8 ? 100000000u : (uint32_t)it + 1;
}

/* Binds the calling thread to core (worker mod cores); one line on stderr, once, when that is refused. */
static void bind_self(pf_team *t, int worker)
{
    if (!t->topo_ok) return;
    int cores = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_CORE);
    hwloc_obj_t core = cores > 0 ? hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_CORE, (unsigned)(worker % cores)) : NULL;
    int rc = -1;
    if (core && core->cpuset) {
        hwloc_cpuset_t set = hwloc_bitmap_dup(core->cpuset);
        hwloc_bitmap_singlify(set);
        rc = hwloc_set_cpubind(t->topo, set, HWLOC_CPUBIND_THREAD);
        hwloc_bitmap_free(set);
    }
    if (rc != 0 && !t->quiet && !atomic_exchange(&t->bind_warned, 1))
        fprintf(stderr, "physflow: cannot bind worker %d to a core (binding refused); running unbound\n", worker);
}

static void *worker_main(void *p)
{
    worker_arg arg = *(worker_arg *)p;
    pf_free(p);
    pf_team *t = arg.team;
    if (t->topo_ok) bind_self(t, arg.index);
    uint32_t seen = 0;
    for (;;) {
        /* Wait for the next generation. */
        uint32_t gen;
        for (uint32_t k = 0;; k++) {
            gen = atomic_load_explicit(&t->generation, memory_order_acquire);
            if (gen != seen) break;
            if (k < t->idle_spin) {
                pf_cpu_relax();
                continue;
            }
            atomic_store_explicit(&t->gen_waiters, 1, memory_order_seq_cst);
            gen = atomic_load_explicit(&t->generation, memory_order_seq_cst);
            if (gen != seen) break;
            pf_futex_wait(&t->generation, seen);
        }
        seen = gen;
        if (t->stop) return NULL;
        t->job(t->ctx, arg.index);
        if (atomic_fetch_sub_explicit(&t->remaining, 1, memory_order_acq_rel) == 1) {
            uint32_t s = atomic_load_explicit(&t->done_stamp, memory_order_relaxed) + 1;
            pf_signal_stamp(&t->done_stamp, &t->done_waiters, s);
        }
    }
}

static void start_generation(pf_team *t)
{
    atomic_fetch_add_explicit(&t->generation, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&t->gen_waiters, memory_order_seq_cst)) {
        atomic_store_explicit(&t->gen_waiters, 0, memory_order_relaxed);
        pf_futex_wake_all(&t->generation);
    }
}

pf_team *pf_team_create(int workers, int bind, int bind_caller, uint32_t spin, int quiet)
{
    pf_team *t = pf_calloc(1, sizeof *t);
    if (!t) {
        pf_error(PF_ENOMEM, "out of memory creating the worker team");
        return NULL;
    }
    t->workers = workers;
    t->spin = spin;
    /* Between jobs a worker spins 25 times a wait's spin (0.5 ms by default) before it sleeps: a step's serial
     * work between graph runs (the collision stage's bookkeeping) is shorter than that, and a futex wake-up at
     * the next run costs tens of microseconds. With more workers than cores the spin is already minimal. */
    t->idle_spin = spin > 64 ? (spin > UINT32_MAX / 25 ? UINT32_MAX : spin * 25) : spin;
    t->quiet = quiet;
    t->bind_caller = bind && bind_caller;
    if (bind && hwloc_topology_init(&t->topo) == 0) {
        if (hwloc_topology_load(t->topo) == 0)
            t->topo_ok = 1;
        else
            hwloc_topology_destroy(t->topo);
    }
    t->threads = pf_calloc((size_t)workers, sizeof *t->threads);
    if (!t->threads) goto fail;
    for (int w = 1; w < workers; w++) {
        worker_arg *arg = pf_malloc(sizeof *arg);
        if (!arg) goto fail_threads;
        *arg = (worker_arg){t, w};
        if (pthread_create(&t->threads[w], NULL, worker_main, arg) != 0) {
            pf_free(arg);
            pf_error(PF_ENOMEM, "cannot start worker thread %d", w);
            t->workers = w; /* join only the started ones */
            pf_team_destroy(t);
            return NULL;
        }
    }
    return t;
fail_threads:
    t->workers = 1;
fail:
    pf_team_destroy(t);
    pf_error(PF_ENOMEM, "out of memory creating the worker team");
    return NULL;
}

pf_team *pf_team_create_host(int workers, const pf_task_system *tasks, int quiet)
{
    pf_team *t = pf_calloc(1, sizeof *t);
    void **h = pf_calloc((size_t)workers, sizeof *h);
    if (!t || !h) {
        pf_free(t);
        pf_free(h);
        pf_error(PF_ENOMEM, "out of memory creating the worker team");
        return NULL;
    }
    t->workers = workers;
    t->quiet = quiet;
    t->host = *tasks;
    t->handles = h;
    return t;
}

static void host_job(int worker, void *job_ctx)
{
    pf_team *t = job_ctx;
    t->job(t->ctx, worker);
}

/* A run on the host's task system: workers 1..K-1 enqueued, worker 0 here, then every job finished. */
static void run_hosted(pf_team *t, pf_team_job job, void *ctx)
{
    t->job = job;
    t->ctx = ctx;
    for (int w = 1; w < t->workers; w++) t->handles[w] = t->host.enqueue(host_job, w, t, t->host.user_ctx);
    job(ctx, 0);
    for (int w = 1; w < t->workers; w++) t->host.finish(t->handles[w], t->host.user_ctx);
}

void pf_team_destroy(pf_team *t)
{
    if (!t) return;
    pf_free(t->handles);
    if (t->threads && t->workers > 1) {
        t->stop = 1;
        start_generation(t);
        for (int w = 1; w < t->workers; w++) pthread_join(t->threads[w], NULL);
    }
    pf_free(t->threads);
    pf_team_release_caller(t);
    if (t->caller_saved) hwloc_bitmap_free(t->caller_saved);
    if (t->topo_ok) hwloc_topology_destroy(t->topo);
    pf_free(t);
}

hwloc_topology_t pf_team_topology(const pf_team *t)
{
    return t->topo_ok ? t->topo : NULL;
}

int pf_team_workers(const pf_team *t)
{
    return t->workers;
}

/* The caller is worker 0: bound at its first run and kept there (rebinding per run would let it wander off
 * its caches between runs); its own binding comes back with pf_team_release_caller — before an OpenMP region,
 * whose pool threads would otherwise inherit a single core — and when the team is destroyed. */
static void bind_caller(pf_team *t)
{
    if (!t->bind_caller || !t->topo_ok) return;
    pthread_t self = pthread_self();
    if (t->caller_bound && pthread_equal(t->caller, self)) return;
    pf_team_release_caller(t); /* another thread runs graphs now */
    if (!t->caller_saved) t->caller_saved = hwloc_bitmap_alloc();
    if (!t->caller_saved || hwloc_get_cpubind(t->topo, t->caller_saved, HWLOC_CPUBIND_THREAD) != 0) return;
    bind_self(t, 0);
    t->caller = self;
    t->caller_bound = 1;
}

void pf_team_release_caller(pf_team *t)
{
    if (!t->caller_bound) return;
    hwloc_set_thread_cpubind(t->topo, t->caller, t->caller_saved, 0);
    t->caller_bound = 0;
}

void pf_team_run(pf_team *t, pf_team_job job, void *ctx)
{
    if (t->host.enqueue) {
        run_hosted(t, job, ctx);
        return;
    }
    bind_caller(t);
    if (t->workers == 1) {
        job(ctx, 0);
        return;
    }
    t->job = job;
    t->ctx = ctx;
    uint32_t want = atomic_load_explicit(&t->done_stamp, memory_order_relaxed) + 1;
    atomic_store_explicit(&t->remaining, (uint32_t)(t->workers - 1), memory_order_relaxed);
    start_generation(t);
    job(ctx, 0);
    pf_wait_stamp(&t->done_stamp, &t->done_waiters, want, t->spin);
}
