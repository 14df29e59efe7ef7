/* PhysFlow runtime: record tasks with declared data accesses into a graph, partition it across a pinned
 * worker team, compile per-worker programs that synchronise only where data flows, and replay them
 * (Hermann et al. 2009, §3.1-3.2). */
#ifndef PHYSFLOW_RUNTIME_H
#define PHYSFLOW_RUNTIME_H

#include "physflow/base.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Handle of a registered datum inside one graph, valid for the graph's lifetime. Handles are structs, not
/// integers, so that one kind passed where another belongs (or a plain number) does not compile.
typedef struct pf_data_id {
    uint32_t index; ///< registration-order number: data are numbered 0, 1, ... as pf_graph_data adds them
} pf_data_id;
/// Handle of a recorded task inside one graph; it stays reserved after pf_graph_task_remove.
typedef struct pf_task_id {
    uint32_t index; ///< a number in recording order, shared with the graph's loop markers (so not every
                    ///< number names a task)
} pf_task_id;

/// How a task accesses a datum.
typedef enum pf_access_mode {
    PF_READ = 1,      ///< reads the datum's current value
    PF_WRITE = 2,     ///< overwrites the datum (its old value is not read)
    PF_READWRITE = 3, ///< reads and modifies the datum
    PF_CUMUL = 4      ///< adds into the datum through its reducer: the task sees a private buffer holding the
                      ///< reducer's identity; a reducer task later combines the buffers into the datum in
                      ///< recording order (Hermann et al. 2009 figure 3b), so the result never depends on scheduling
} pf_access_mode;

/// A reducer for cumulative writes: `init` sets a buffer to the identity, `combine` folds `src` into `dst`.
/// Both receive the datum's size in bytes. Combination happens in recording order, one buffer at a time:
/// datum = combine(...combine(combine(datum, buf_first), buf_second)..., buf_last).
typedef struct pf_reducer {
    void (*init)(void *buf, size_t size, void *ctx);
    void (*combine)(void *dst, const void *src, size_t size, void *ctx);
    void *ctx; ///< passed to both; must outlive the graph
} pf_reducer;

/// The reducer that sums arrays of double (identity 0.0, combine dst[i] += src[i]).
PF_API pf_reducer pf_reducer_sum_f64(void);

/// What a task body receives.
typedef struct pf_task_ctx {
    void *const *data; ///< data[k] is the memory of the task's k-th access (a private buffer for PF_CUMUL)
    const void *args;  ///< the task's arguments, copied at record time (NULL when none)
    int worker;        ///< index of the worker running the task, 0..workers-1 (0 for the seq executor)
} pf_task_ctx;

typedef void (*pf_task_fn)(const pf_task_ctx *ctx);

/// One access of a task: a datum and a mode. A task names each datum at most once.
typedef struct pf_access {
    pf_data_id data;
    pf_access_mode mode;
} pf_access;

/// A task to record. The runtime copies `args` (args_size bytes) and `accesses`; `name` must be a string that
/// outlives the graph (a literal, typically): it names the task in traces.
typedef struct pf_task_def {
    pf_task_fn fn;             ///< the body; required
    const char *name;          ///< shown in traces; default "task"
    const void *args;          ///< copied at record time; may be NULL when args_size is 0
    size_t args_size;          ///< bytes of args
    const pf_access *accesses; ///< the data the body touches and how
    uint32_t naccesses;        ///< at most PF_MAX_ACCESSES
    double cost_ns;            ///< estimated cost in ns, used until a measured one exists; 0 (default): unknown,
                               ///< taken as 1000; negative, NaN or infinite is refused
} pf_task_def;

/// A pf_task_def with its defaults: no body (set fn), name "task", no arguments, no accesses, cost unknown.
PF_API pf_task_def pf_task_default_def(void);

#define PF_MAX_ACCESSES 64

/// Executors. All run the same recorded graph and leave bitwise the same data.
typedef enum pf_executor {
    PF_EXEC_SEQ = 0,  ///< reference: recording order on the calling thread
    PF_EXEC_STATIC,   ///< Hermann et al. 2009: partitioned per-worker programs with signal/wait, replayed
    PF_EXEC_BARRIER,  ///< the graph level by level, an OpenMP barrier between levels (baseline)
    PF_EXEC_OMPTASKS, ///< every task an OpenMP task with depend clauses (work-stealing baseline)
    PF_EXEC_COUNT
} pf_executor;

/// Partitioners used by the static executor.
typedef enum pf_partitioner {
    PF_PART_OWNER = 0, ///< owner-compute: a task goes with the object whose data it writes
    PF_PART_METIS,     ///< METIS k-way on the task graph: vertex weight = task cost, edge weight = bytes
    PF_PART_COUNT
} pf_partitioner;

/// When the static executor partitions a graph again (Hermann et al. 2009, §3.2, place new tasks and keep old ones
/// where they were; contacts and measured load can make that placement poor). A repartition never changes results.
typedef enum pf_repartition {
    PF_REPART_AUTO = 0, ///< default: after a structural update, or when the measured imbalance of recent runs
                        ///< passes 15 %, partition again with measured costs if the estimated gain pays for the
                        ///< partitioning and the objects moved within 50 runs (with hysteresis)
    PF_REPART_NEVER,    ///< only the first placement; new tasks are placed next to their predecessors
    PF_REPART_ALWAYS,   ///< after every structural update (measured costs), whenever the partition differs
    PF_REPART_COUNT
} pf_repartition;

/// "auto", "never", "always".
PF_API const char *pf_repartition_name(pf_repartition r);
PF_API int pf_repartition_parse(const char *name, pf_repartition *out);

/// "seq", "static", "barrier", "omptasks".
PF_API const char *pf_executor_name(pf_executor e);
/// Parses an executor name; PF_EINVAL for an unknown one.
PF_API int pf_executor_parse(const char *name, pf_executor *out);
/// "owner", "metis".
PF_API const char *pf_partitioner_name(pf_partitioner p);
PF_API int pf_partitioner_parse(const char *name, pf_partitioner *out);

/// One worker's share of a run, handed to a host task system: call job(worker, job_ctx) once.
typedef void (*pf_host_job)(int worker, void *job_ctx);

/// A host application's own task system (in the manner of Box2D v3's enqueueTask / finishTask), used by the
/// static executor instead of PhysFlow's worker threads. Each run calls `enqueue` for workers 1..K-1, runs
/// worker 0 on the calling thread, then `finish` on every handle. The K programs synchronise with each other
/// (a worker may wait for another's result), so the host must run the enqueued jobs concurrently with each other
/// and with the caller — e.g. one per thread of a pool of at least K-1 threads — never one after the other.
/// The seq, barrier and omptasks executors ignore it.
typedef struct pf_task_system {
    /// Starts job(worker, job_ctx) on a host thread; returns a handle for `finish` (may be NULL if `finish`
    /// does not need one). Required to use a task system.
    void *(*enqueue)(pf_host_job job, int worker, void *job_ctx, void *user_ctx);
    /// Returns once the job of `handle` has completed. Required.
    void (*finish)(void *handle, void *user_ctx);
    void *user_ctx; ///< passed to both
} pf_task_system;

/// Settings of a runtime (the worker team). Get defaults from pf_runtime_default_def().
typedef struct pf_runtime_def {
    int workers;              ///< worker count K >= 1; default 1. Worker 0 is the thread that calls pf_graph_run
    pf_executor executor;     ///< default PF_EXEC_STATIC
    pf_partitioner partitioner; ///< default PF_PART_OWNER
    int bind;                 ///< 1 (default): pin worker k to core k mod cores with hwloc; 0: leave threads free
    int bind_caller;          ///< 1: pin the thread that runs graphs (worker 0) to the first core too, from its
                              ///< first run until the runtime is destroyed (or an OpenMP executor runs), which
                              ///< restore its own binding. Default 0: it is the host's thread, left where the
                              ///< system schedules it (beside K-1 pinned workers it settles on the free core)
    int spin_ns;              ///< how long a wait spins before it sleeps; default 20000; 0 sleeps at once.
                              ///< Between runs idle workers spin 25 times as long (0.5 ms by default) before
                              ///< they sleep, so the next run does not pay for waking them
    int quiet;                ///< 1: no message on stderr (binding refused, METIS on a graph too small for it);
                              ///< default 0
    pf_repartition repartition; ///< default PF_REPART_AUTO
    pf_task_system tasks;     ///< a host task system; default all NULL: PhysFlow's own worker threads
    int mpi;                  ///< 1: the runtime spans MPI_COMM_WORLD, R ranks of `workers` workers each, every
                              ///< rank recording the same graphs (docs/runtime.md, "Across MPI ranks"); the host
                              ///< has called MPI_Init_thread with MPI_THREAD_MULTIPLE. Static executor only,
                              ///< repartitioning never. Default 0
} pf_runtime_def;

typedef struct pf_runtime pf_runtime;
typedef struct pf_graph pf_graph;

PF_API pf_runtime_def pf_runtime_default_def(void);
/// Creates a runtime and starts its K-1 worker threads (they sleep until a graph runs). The caller owns *out
/// and frees it with pf_runtime_destroy; *def is copied, but def->tasks.user_ctx must outlive the runtime.
PF_API int pf_runtime_create(const pf_runtime_def *def, pf_runtime **out);
/// Stops the workers and frees the runtime. From inside one of its tasks or parallel regions it does nothing
/// (the runtime stays valid).
PF_API void pf_runtime_destroy(pf_runtime *rt);
PF_API int pf_runtime_workers(const pf_runtime *rt);
/// This process's rank and the rank count of a runtime created with def.mpi = 1; 0 and 1 otherwise.
PF_API int pf_runtime_get_rank(const pf_runtime *rt, int *rank, int *ranks);
/// Runs fn(ctx, worker, workers) once on every worker of the runtime's team — worker 0 on the calling thread —
/// and returns when all have returned: host-side parallel work between graph runs (the collision stage uses it)
/// on the same pinned threads, so no second thread pool competes with the team. From inside a task, or while a
/// graph of this runtime runs, it returns PF_ESTATE.
PF_API int pf_runtime_parallel(pf_runtime *rt, void (*fn)(void *ctx, int worker, int workers), void *ctx);
/// Changes the worker count for later runs (between runs only: PF_ESTATE during one): the team is restarted,
/// and each graph is placed and compiled afresh for the new count on its next run.
PF_API int pf_runtime_set_workers(pf_runtime *rt, int workers);
/// Changes the executor or partitioner used by later runs (a graph recompiles on its next run if needed).
PF_API int pf_runtime_set_executor(pf_runtime *rt, pf_executor e);
PF_API int pf_runtime_set_partitioner(pf_runtime *rt, pf_partitioner p);
/// Changes the repartitioning policy of later runs.
PF_API int pf_runtime_set_repartition(pf_runtime *rt, pf_repartition r);

/// Creates an empty graph. A graph records data and tasks; nothing runs while recording. The caller owns *out
/// and frees it with pf_graph_destroy; the memory registered with pf_graph_data, reducer contexts and task
/// names must outlive the graph (the runtimes it runs on need not).
PF_API int pf_graph_create(pf_graph **out);
PF_API void pf_graph_destroy(pf_graph *g);

/// Registers `size` bytes at `ptr` as a datum owned by object `owner` (any number naming the object; tasks
/// that write an object's data run where the object lives). `reducer` is required for data that receive
/// PF_CUMUL accesses (it is copied), else may be NULL. The memory must stay valid while the graph runs.
PF_API int pf_graph_data(pf_graph *g, void *ptr, size_t size, uint32_t owner, const pf_reducer *reducer,
                         pf_data_id *out);
/// Moves datum `d` to `size` bytes at `ptr` from the next run on: data whose memory grows or is reallocated
/// between runs (a contact field's per-contact buffers) keep their tasks and edges. Tasks receive the new address
/// in pf_task_ctx; under MPI the new bytes travel. Between runs only (PF_ESTATE during one); PF_EINVAL for an
/// unknown datum, a NULL ptr, a zero size, or a datum with a reducer (its private buffers are laid out for it).
PF_API int pf_graph_data_move(pf_graph *g, pf_data_id d, void *ptr, size_t size);

/// Records a task. Returns PF_ESTATE on a compiled graph: call pf_graph_invalidate first.
PF_API int pf_graph_task(pf_graph *g, const pf_task_def *def, pf_task_id *out);

/// Handle of a dynamic loop inside one graph.
typedef struct pf_loop_id {
    uint32_t index; ///< recording-order number: loops are numbered 0, 1, ... as pf_graph_loop_begin opens
                    ///< them
} pf_loop_id;

/// A loop condition: returns nonzero for "true". `datum` is the condition datum's memory, `args` the copied
/// arguments. It runs on every worker that runs part of the loop body, so it must only read.
typedef int (*pf_cond_fn)(const void *datum, const void *args);

/// How a dynamic loop decides to run another iteration (Hermann et al. 2009, §3.3).
typedef enum pf_loop_kind {
    PF_LOOP_COUNT = 0, ///< a per-partition iteration counter: `count` iterations per entry, no synchronisation
    PF_LOOP_WHILE = 1  ///< a shared condition datum: iterates while cond(datum) is true, tested at the begin
                       ///< marker and at the end of every iteration; the datum is read like any other datum,
                       ///< so every partition running part of the body waits for its writer
} pf_loop_kind;

/// A dynamic loop. Tasks recorded between pf_graph_loop_begin and pf_graph_loop_end form its body, which is
/// redeployed each iteration. Loops nest.
typedef struct pf_loop_def {
    pf_loop_kind kind;      ///< default PF_LOOP_COUNT
    uint32_t count;         ///< PF_LOOP_COUNT: iterations per entry
    pf_data_id cond_data;   ///< PF_LOOP_WHILE: the condition datum
    pf_cond_fn cond;        ///< PF_LOOP_WHILE: continue while cond(datum, args) != 0
    const void *cond_args;  ///< copied at record time
    size_t cond_args_size;
    uint32_t max_iterations; ///< always bounds the loop (>= 1 required): iterations per entry never exceed it
} pf_loop_def;

/// A pf_loop_def with its defaults: a counted loop of 1 iteration, bounded by max_iterations 1000000.
PF_API pf_loop_def pf_loop_default_def(void);

/// Opens a loop; the tasks recorded until the matching pf_graph_loop_end form its body.
PF_API int pf_graph_loop_begin(pf_graph *g, const pf_loop_def *def, pf_loop_id *out);
/// Records a conditional break in the innermost open loop: when cond(datum, args) is true, the rest of the
/// iteration is skipped and the loop exits. `datum` is read like any other datum.
PF_API int pf_graph_loop_break(pf_graph *g, pf_data_id datum, pf_cond_fn cond, const void *args, size_t args_size);
/// Closes the innermost open loop.
PF_API int pf_graph_loop_end(pf_graph *g);
/// Iterations the loop ran in its latest entry (0 before its first run).
PF_API uint32_t pf_graph_loop_iterations(const pf_graph *g, pf_loop_id loop);

/// Makes a compiled graph editable again (record more tasks, remove some). Its next run brings it up to date:
/// when tasks were only appended, they alone are analysed, placed and compiled onto the end of the kept
/// programs (the cost grows with the change, not the graph); after a removal the graph is re-analysed and
/// recompiled whole. Either way existing tasks keep their worker.
PF_API int pf_graph_invalidate(pf_graph *g);

/// Runs the graph once with the runtime's executor: analyses, partitions and compiles it first if it was
/// never compiled, was invalidated (see pf_graph_invalidate), or was compiled for another worker count or
/// partitioner; otherwise replays the compiled programs with no analysis and no allocation. A run is not
/// re-entrant: called from inside a task of a running graph on the same runtime, or on a graph that is running,
/// it returns PF_ESTATE; so do the recording and editing calls on a running graph, and pf_graph_destroy then
/// does nothing.
PF_API int pf_graph_run(pf_graph *g, pf_runtime *rt);

/// Removes a recorded task from an editable graph (after pf_graph_invalidate). Its id stays reserved. The
/// next run re-analyses the graph; tasks that remain keep their worker.
PF_API int pf_graph_task_remove(pf_graph *g, pf_task_id t);

/// Removes a closed loop from an editable graph (after pf_graph_invalidate): its markers and every task of its
/// body. The next run analyses the graph whole; tasks that remain keep their worker.
PF_API int pf_graph_loop_remove(pf_graph *g, pf_loop_id loop);

/// What the latest placement did. After pf_graph_invalidate and more recording (or removals), the next run
/// places only the new tasks: existing ones keep their worker (Hermann et al. 2009, §3.2), so `moved` stays 0
/// unless the worker count or partitioner changed or pf_graph_rebalance moved objects.
typedef struct pf_graph_update {
    uint32_t added;   ///< tasks placed for the first time
    uint32_t removed; ///< tasks removed since the previous placement
    uint32_t moved;   ///< tasks whose worker changed (a repartition's moves are counted in pf_run_stats)
    int full;         ///< 1 when the graph was partitioned afresh (first run, new worker count or partitioner)
    double ms;        ///< time of the whole update: analysis, placement and compilation
} pf_graph_update;
PF_API int pf_graph_get_last_update(const pf_graph *g, pf_graph_update *out);

/// Rebalancing by object (Hermann et al. 2009, §3.2: "reassigning the partition related to this object"): moves whole
/// objects — their tasks and the ownership of their data — from the most loaded workers to the least loaded
/// ones, by measured cost, while that lowers the largest load. Applies to the static executor's placement at
/// the graph's next run. `moved_objects` and `moved_tasks` may be NULL.
PF_API int pf_graph_rebalance(pf_graph *g, pf_runtime *rt, uint32_t *moved_objects, uint32_t *moved_tasks);

/// The largest per-worker sum of task costs (measured when known, else estimated) in the current placement:
/// the makespan estimate partitioners minimise. Compiles the graph first if needed.
PF_API int pf_graph_get_estimated_makespan(pf_graph *g, pf_runtime *rt, double *out);

/// Partitions the graph afresh at its next static run, with the costs measured so far, whatever the policy; the
/// new parts are relabelled to overlap the current placement most, and whole objects move (their tasks, their
/// reducers and the placement of their data). Results do not change.
PF_API int pf_graph_repartition(pf_graph *g);

/// What the end of a run makes equal on every MPI rank (a runtime created with def.mpi = 1; otherwise nothing).
typedef enum pf_mpi_share {
    PF_MPI_SHARE_ALL = 0, ///< every datum written in the run (the default): the host may read any datum on any rank
    PF_MPI_SHARE_NEXT,    ///< only what the next run reads before overwriting it; a datum whose first access in
                          ///< recording order is PF_WRITE outside every loop (scratch: a solver's vectors) stays
                          ///< current only on the rank that wrote it. For hosts that read only the other data.
    PF_MPI_SHARE_COUNT
} pf_mpi_share;
/// Sets what the end of each later run of g makes equal on every rank. PF_EINVAL for a value outside the
/// enumeration; PF_ESTATE from inside a run.
PF_API int pf_graph_set_mpi_share(pf_graph *g, pf_mpi_share share);

/// One worker's share of graph runs (static executor; seq runs count as worker 0's). busy + wait + idle is the
/// wall time of the runs.
typedef struct pf_worker_stats {
    double busy_ms;   ///< running tasks, reducers and loop control
    double wait_ms;   ///< blocked in waits for another worker's result
    double idle_ms;   ///< done with its program before the run ended (or not yet started)
    uint64_t waits;   ///< wait operations executed, whether the result was ready or not
    uint64_t blocked; ///< waits that found the result not ready
    uint64_t tasks;   ///< tasks and reducers run
} pf_worker_stats;

/// Counters of graph runs: of the latest run, or totals since the graph was created.
typedef struct pf_run_stats {
    uint64_t runs;           ///< runs counted
    double ms;               ///< their wall time
    double imbalance;        ///< max busy / mean busy over workers (1: balanced; 1 with one worker); 0 for the
                             ///< barrier and omptasks executors, whose OpenMP threads are not counted
    double busy_ms, wait_ms, idle_ms; ///< summed over workers (pf_worker_stats)
    uint64_t waits;          ///< wait operations, all workers
    uint64_t blocked;        ///< of which not ready
    uint32_t repartitions;   ///< repartitions applied (the first partition excluded)
    uint32_t objects_moved;  ///< objects whose worker a repartition changed
    uint32_t tasks_moved;    ///< tasks whose worker a repartition or pf_graph_rebalance changed
    uint32_t reverts;        ///< repartitions undone by measurement: the auto policy times a kept repartition
                             ///< against the placement it replaced, a few runs each, and keeps the faster
    double ms_repartition;   ///< time spent deciding repartitions: partitioning afresh, relabelling, and the
                             ///< recompilation a kept one causes
    uint32_t metis_small;    ///< placements where METIS was asked for but the graph was too small for it
                             ///< (owner-compute used instead, said once on stderr unless quiet)
    uint64_t mpi_messages;   ///< def.mpi: messages this rank sent (cross-rank results and end-of-run exchanges)
    uint64_t mpi_bytes;      ///< def.mpi: bytes this rank sent in them
} pf_run_stats;

typedef enum pf_stats_span {
    PF_STATS_LAST = 0, ///< the latest run (repartition counters: those applied before or after it)
    PF_STATS_TOTAL = 1 ///< every run since the graph was created
} pf_stats_span;

/// Run counters; `workers` (may be NULL) receives up to `cap` per-worker counters, `nworkers` (may be NULL) the
/// worker count of the runs counted.
PF_API int pf_graph_get_run_stats(const pf_graph *g, pf_stats_span span, pf_run_stats *out, pf_worker_stats *workers,
                                  int cap, int *nworkers);

/// Counters of a graph (for tools and tests).
typedef struct pf_graph_stats {
    uint32_t tasks;     ///< recorded tasks (loop markers excluded)
    uint32_t loops;     ///< recorded loops
    uint32_t reducers;  ///< reducer tasks inserted for cumulative groups
    uint32_t edges;     ///< dependency edges (after removing duplicates)
    uint32_t data;      ///< registered data
    uint32_t cross_edges; ///< edges between tasks of different workers in the last compilation
    uint32_t waits;     ///< wait operations in the compiled programs (after pruning implied waits)
    uint32_t levels;    ///< depth of the graph (levels of the barrier executor)
    uint64_t compiles;  ///< how many times the graph was (re)compiled
    uint64_t runs;      ///< how many times it ran
} pf_graph_stats;
PF_API int pf_graph_get_stats(const pf_graph *g, pf_graph_stats *out);

/// Worker of a task in the last static compilation (-1 when never compiled).
PF_API int pf_graph_task_worker(const pf_graph *g, pf_task_id t);

/// The worker of each object (pf_graph_data's `owner`) in the static executor's latest placement: out[o] for
/// o < owners is the worker that runs most of the cost of the tasks and reducers that name object o, the lowest on
/// ties, or -1 when none is placed (never run by the static executor, or no task names it).
PF_API int pf_graph_object_workers(const pf_graph *g, int32_t *out, uint32_t owners);

/// Tracing: after pf_runtime_trace_start, every run records per-worker spans (tasks, waits, reducers) until
/// pf_runtime_trace_write saves them as Chrome trace-event JSON (Perfetto, chrome://tracing) and stops.
/// Free when off.
PF_API int pf_runtime_trace_start(pf_runtime *rt);
PF_API int pf_runtime_trace_write(pf_runtime *rt, const char *path);

/// What a trace span is.
typedef enum pf_trace_kind {
    PF_TRACE_TASK = 0, ///< a task (its pf_task_def.name)
    PF_TRACE_REDUCER,  ///< a reducer combining cumulative writes ("reduce")
    PF_TRACE_WAIT,     ///< a wait for another worker's result ("wait")
    PF_TRACE_RUN,      ///< a whole graph run, on worker 0 ("graph run")
    PF_TRACE_COMPILE   ///< an analysis, placement and compilation, on worker 0 ("compile")
} pf_trace_kind;

/// One span of a trace.
typedef struct pf_trace_span {
    const char *name;    ///< what ran; a task's name lives as long as its graph
    uint64_t t0_ns;      ///< start, ns on a monotonic clock (only differences mean something)
    uint64_t t1_ns;      ///< end, ns
    int worker;          ///< the worker's lane
    pf_trace_kind kind;
} pf_trace_span;
typedef void (*pf_trace_span_fn)(const pf_trace_span *span, void *ctx);
/// Hands each span recorded since pf_runtime_trace_start (or the previous drain) to fn, worker by worker and in
/// the order recorded, then forgets them; tracing goes on (a host that views its runs step by step: physflow/html.h).
/// PF_ESTATE when tracing was not started or a run is under way.
PF_API int pf_runtime_trace_drain(pf_runtime *rt, pf_trace_span_fn fn, void *ctx);
/// Stops tracing and forgets the spans not drained or written (PF_OK when tracing was off).
PF_API int pf_runtime_trace_stop(pf_runtime *rt);

#ifdef __cplusplus
}
#endif
#endif
