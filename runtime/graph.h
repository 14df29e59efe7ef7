/* Private layout of a recorded graph: data, tasks, the analysed node list and the compiled programs. */
#ifndef PF_RUNTIME_GRAPH_H
#define PF_RUNTIME_GRAPH_H

#include "physflow/runtime.h"

#include <stdatomic.h>
#include <stdint.h>

#define PF_NONE UINT32_MAX

typedef struct pf_datum {
    void *ptr;
    size_t size;
    uint32_t owner;
    int has_reducer;
    pf_reducer reducer;
    int32_t reducer_worker; /* placement of this datum's reducers, kept across updates; -1 when none */
} pf_datum;

/* What a recorded entry is: a task, or a loop marker (Hermann et al. 2009, §3.3). */
enum { PF_ITEM_TASK = 0, PF_ITEM_BEGIN, PF_ITEM_END, PF_ITEM_BREAK };

/* A recorded task or loop marker, as the user gave it. Markers keep their condition here: cond_fn reads
 * cond_data with the copied args (args_off/args_size). */
typedef struct pf_task {
    uint8_t item;
    uint32_t loop;      /* markers: their loop */
    pf_cond_fn cond_fn; /* WHILE begin/end and breaks; NULL for counted loops */
    uint32_t cond_data;
    pf_task_fn fn;
    const char *name;
    size_t args_off; /* into graph.args (16-byte aligned); meaningless when args_size is 0 (no arguments) */
    size_t args_size;
    uint32_t acc_off; /* into graph.accesses */
    uint32_t nacc;
    double cost_est;
    double cost_meas; /* measured ns (kept across invalidations), < 0 when never measured */
    int32_t worker;   /* placement, kept across updates so existing tasks never move; -1 when new */
    uint8_t removed;  /* removed by pf_graph_task_remove: skipped by the analysis */
} pf_task;

/* A dynamic loop: begin / end / conditional-break markers delimit a body that is redeployed while the
 * condition holds, never more than max_iter times per entry (Hermann et al. 2009, §3.3). */
typedef struct pf_loop {
    pf_loop_kind kind;
    uint32_t count;     /* PF_LOOP_COUNT: iterations per entry */
    uint32_t max_iter;  /* bound on iterations per entry, for every kind */
    uint32_t parent;    /* enclosing loop, or PF_NONE */
    uint32_t begin_task, end_task; /* recording: marker task ids (end PF_NONE while open) */
    uint32_t begin_node, end_node; /* analysis: marker node ids */
    _Atomic uint32_t last_iterations; /* iterations of the latest entry (all executors) */
} pf_loop;

/* Completion flag of a node replica (or of a worker's exit from a loop), written only by its worker. */
typedef struct pf_flag {
    _Atomic uint32_t done;    /* the context count of the last completed execution (see pf_program) */
    _Atomic uint32_t waiters; /* 1 while a remote worker sleeps on `done` */
    uint32_t op;              /* compile time: the op that publishes it, in `worker`'s program (PF_NONE: exit) */
    uint16_t worker;
    uint8_t awaited;          /* compile time: some wait targets it */
    uint8_t pad;
} pf_flag;

enum { PF_NODE_TASK = 0, PF_NODE_REDUCER = 1, PF_NODE_BEGIN, PF_NODE_END, PF_NODE_BREAK };

/* A pred entry with this bit is loop-carried: it names the pred's execution in the previous iteration. */
#define PF_PRED_CARRIED 0x80000000u
#define PF_PRED_NODE(p) ((p) & ~PF_PRED_CARRIED)

/* A node of the analysed graph: a recorded task or a reducer task, listed in an order that is topological
 * (the recording order with each reducer placed where its cumulative group closes). */
typedef struct pf_node {
    /* hot: read on every replay */
    pf_task_fn fn;        /* tasks */
    const void *args;     /* tasks: copied arguments */
    uint32_t ptr_off;     /* into graph.ptrs: tasks, per access, datum memory or private buffer; reducers,
                           * the group's buffers */
    uint32_t nptrs;       /* tasks: accesses; reducers: buffers in the group */
    uint8_t kind;
    uint8_t has_cumul;    /* tasks: at least one PF_CUMUL access (buffers to reset first) */
    uint8_t dead;         /* tasks: removed since the analysis; runs as a no-op that keeps its place */
    /* cold: analysis and compilation */
    uint32_t task;        /* task id (also for loop markers), or PF_NONE for a reducer */
    uint32_t ctx;         /* innermost loop whose iterations repeat this node, +1; 0 = top level */
    uint32_t loop;        /* control nodes: their loop */
    uint32_t datum;       /* reducers: the datum they write */
    uint32_t object;      /* owner-compute object */
    uint32_t pred_off;    /* into graph.preds */
    uint32_t npred;
    uint32_t level;       /* longest path from a source (barrier executor) */
    int32_t worker;       /* static: worker in the last compilation (tasks and reducers) */
    double cost_meas;     /* reducers: measured ns, < 0 when never measured (tasks keep theirs in pf_task) */
} pf_node;

typedef struct pf_segment {
    uint32_t node_begin, node_end;   /* node ids [begin, end) */
    uint32_t level_begin, level_end; /* level ids [begin, end) */
} pf_segment;

/* A compiled per-worker program (Hermann et al. 2009 figure 3a, figure 4): RUN ops for the worker's nodes, WAIT ops
 * before the first node needing a result of another worker, and the replicated loop-control ops. */
enum { PF_OP_RUN, PF_OP_WAIT, PF_OP_BEGIN, PF_OP_END, PF_OP_BREAK };

typedef struct pf_op {
    uint8_t kind;
    uint8_t delta;   /* WAIT: 1 when loop-carried (the previous iteration's execution) */
    uint16_t ctx;    /* RUN/control: the node's context; WAIT: the context whose counter gives the target */
    uint32_t node;
    uint32_t jump;   /* BEGIN, BREAK: the op after the loop; END: the first op of the body; WAIT: 1 + the loop whose
                      * later iterations skip it (a result from outside the loop: it cannot change while the
                      * loop runs), 0 when it runs every time */
    uint32_t skip_off, nskip; /* BREAK: flags to publish when the break skips the rest of the body */
    pf_flag *flag;      /* WAIT: the awaited flag; others: this op's flag when someone awaits it, else NULL */
    pf_flag *exit_flag; /* control ops: the loop's exit flag on this worker when awaited, else NULL */
} pf_op;

/* Execution counters (per worker, since compilation): cnt[0] counts runs, cnt[L+1] the iterations of loop L;
 * a flag holds the counter value of its node's context at its last execution, so a waiter's target is its
 * own copy of that counter — every worker that runs part of a loop takes the same decisions. */
typedef struct pf_program {
    pf_op *ops;
    uint32_t nops;
    uint32_t *cnt; /* nloops + 1 */
    uint32_t *it;  /* per loop: iteration within the current entry */
    double *op_ns; /* measuring runs: ns spent in each op, written by this worker alone (no shared lines) */
    size_t cap_op_ns;
} pf_program;

#define PF_MAX_TASKS 0x7fffffffu

/* Runs that measure every node's cost after a change of the graph; each node keeps its least time. */
#define MEASURE_RUNS 2

struct pf_graph {
    /* recording */
    pf_datum *data;
    size_t ndata, cap_data;
    pf_task *tasks;
    size_t ntasks, cap_tasks;
    pf_access *accesses;
    size_t naccesses, cap_accesses;
    unsigned char *args;
    size_t nargs, cap_args;
    pf_loop *loops;
    size_t nloops, cap_loops;
    uint32_t open_loop;  /* innermost loop being recorded, or PF_NONE */
    uint32_t real_tasks; /* recorded tasks, markers excluded */

    /* analysis (valid when analysed; kept while the graph is edited, so appended tasks are analysed alone) */
    int analysed;
    struct pf_analysis *an; /* per-datum state at the end of the analysed tasks */
    size_t analysed_tasks;  /* task records the analysis has seen */
    pf_node *nodes;
    size_t nnodes, cap_nodes;
    uint32_t *preds;
    size_t npreds, cap_preds;
    uint32_t *task_node; /* task id -> node index */
    size_t cap_task_node;
    void **ptrs;         /* backing of the nodes' pointer lists */
    size_t nptrs, cap_ptrs;
    unsigned char **buf_chunks; /* private buffers of cumulative accesses, one chunk per analysis increment */
    size_t nbuf_chunks, cap_buf_chunks;
    size_t bufmem_size;  /* bytes of the increment being analysed */
    /* barrier executor: maximal runs of task/reducer nodes between control nodes ("segments"), each cut
     * into levels by its internal edges; level_nodes lists node ids by (segment, level) */
    uint32_t nlevels;
    uint32_t *level_nodes;
    uint32_t *level_off; /* nlevels + 1 offsets into level_nodes */
    pf_segment *segments;
    uint32_t nsegments;
    uint32_t *node_segment; /* per node: its segment (task/reducer nodes) */
    size_t cap_levels;      /* capacity of the four arrays above, in nodes */
    uint32_t *iter_scratch; /* per loop: iteration within the entry (seq, barrier, omptasks) */
    uint32_t nreducers;
    size_t first_new_node;  /* the first node of the latest analysis increment */

    /* compilation for the static executor (valid when compiled_workers > 0) */
    int compiled_workers;
    pf_partitioner compiled_partitioner;
    struct pf_compiler *cc; /* replicas, participation and loop ops, kept for appending */
    pf_program *programs;
    pf_flag **flag_chunks;  /* one chunk per compilation increment; flags never move */
    size_t nflag_chunks, cap_flag_chunks;
    pf_flag **skips; /* backing of BREAK ops' skip lists */
    size_t nskips, cap_skips;
    uint32_t cross_edges, waits;
    int measure_next;   /* runs left that time every node, for the partitioners (runtime.c: keep_costs) */
    int measure_first;  /* the next measuring run starts a series: its times replace the costs */
    double *cost_run;   /* per node: its time in the measuring run under way */
    size_t cap_cost_run;

    uint64_t compiles, runs;
    int placed_workers;             /* worker count of the kept placement (0: none) */
    pf_partitioner placed_partitioner;
    uint32_t removed_since;         /* tasks removed since the last placement */
    uint32_t *removed_list;         /* the tasks removed since the last analysis */
    size_t nremoved_list, cap_removed_list;
    size_t ndead;                   /* nodes of removed tasks kept as no-ops */
    int markers_removed;            /* a loop was removed since the last full analysis */
    pf_graph_update last_update;    /* counters of the latest (re)placement */
    uint32_t pending_moved;         /* tasks moved by pf_graph_rebalance, reported with the next update */
    struct pf_placement *placement; /* objects' workers and workers' loads, kept for appended updates */
    size_t placed_nodes;            /* nodes the placement covers (0 after a re-analysis renumbered them) */

    /* repartitioning (repartition.c) and run counters (counters.h) */
    struct pf_counters *counters;
    int quiet;                /* the running runtime's: no notes on stderr */
    uint8_t repart_forced;    /* pf_graph_repartition: partition afresh at the next static run */
    uint8_t repart_pending;   /* decide after the next measured run (a structural update or an imbalance) */
    uint8_t repart_recompile; /* the next compilation follows a repartition (its time counts as the repartition's) */
    uint8_t metis_small_said; /* the note that METIS got a graph too small for it was printed */
    uint64_t repart_decided_run; /* g->runs at the latest decision (hysteresis for the imbalance trigger) */
    uint32_t metis_small;     /* placements where METIS fell back to owner-compute */
    int32_t *datum_node;      /* numa.c: the NUMA node each datum is bound to, -1 when none */
    size_t nbound, cap_datum_node;
};

/* The cost the partitioner uses for a node: measured when known, else estimated. */
double pf_node_cost(const pf_graph *g, const pf_node *n);

/* analysis.c: builds nodes, edges, private buffers and levels from the recorded tasks; pf_graph_analyse_append
 * continues a kept analysis with the tasks recorded since (only possible when none was removed). */
int pf_graph_analyse(pf_graph *g);
int pf_graph_analyse_append(pf_graph *g);
int pf_graph_can_append(const pf_graph *g);
void pf_graph_free_analysis(pf_graph *g);

/* partition.c: places every work node (node.worker) for `workers` workers. When the graph was compiled before
 * for the same workers and partitioner, placed tasks keep their worker and only new nodes are placed
 * (Hermann et al. 2009, §3.2, "limit partitioning changes"); otherwise everything is partitioned afresh. */
int pf_partition(pf_graph *g, int workers, pf_partitioner p);
/* partition_owner.c, partition_metis.c: fresh partitions. */
int pf_partition_owner(pf_graph *g, int workers);
int pf_partition_metis(pf_graph *g, int workers);
/* repartition.c: after a run of the static executor (workers > 1): repartitions when the policy says it pays;
 * `measured` says the run measured every node's cost. pf_repartition_forced applies pf_graph_repartition. */
void pf_repartition_after_run(pf_graph *g, int workers, pf_partitioner p, pf_repartition policy, int measured);
int pf_repartition_forced(pf_graph *g, int workers, pf_partitioner p);
/* Right after a structural update is placed (old tasks measured, new ones estimated): the same decision, so the
 * runs until the new tasks are measured do not run on a placement the update made poor. Returns 1 when it moved
 * objects (the programs must then be compiled whole). */
int pf_repartition_at_update(pf_graph *g, int workers, pf_partitioner p, pf_repartition policy);
/* Renames the parts in node.worker to overlap old[node] (the previous placement) most; PF_ENOMEM or PF_OK. */
int pf_repartition_relabel(pf_graph *g, const int32_t *old, int workers);
void pf_placement_free(struct pf_placement *pl);
/* Per-worker sums of node costs (out[workers]). */
void pf_worker_loads(const pf_graph *g, int workers, double *out);
/* The cost of each object on each worker: sums over the placed work nodes that name an object, sorted by object
 * then worker, into out (room for g->nnodes entries); returns how many. */
typedef struct pf_object_load {
    uint32_t object;
    int32_t worker;
    double cost;
} pf_object_load;
size_t pf_object_loads(const pf_graph *g, pf_object_load *out);

/* compile.c: builds the per-worker programs (needs node.worker); pf_graph_compile_append extends them with
 * the nodes from g->first_new_node on. */
int pf_graph_compile_programs(pf_graph *g, int workers);
int pf_graph_compile_append(pf_graph *g);
void pf_graph_free_programs(pf_graph *g);

/* node_exec.c: runs a reducer, or a task after resetting its private cumulative buffers. */
void pf_node_exec_slow(const pf_graph *g, const pf_node *n, int worker);

/* Runs one node on `worker`; the common case (a task with no cumulative access) is a direct call. */
static inline void pf_node_exec(const pf_graph *g, const pf_node *n, int worker)
{
    if (n->kind == PF_NODE_TASK && !n->has_cumul && !n->dead) {
        pf_task_ctx ctx = {g->ptrs + n->ptr_off, n->args, worker};
        n->fn(&ctx);
    } else {
        pf_node_exec_slow(g, n, worker);
    }
}

/* Whether a loop runs another iteration after `done` iterations of its current entry (begin: done = 0). */
static inline int pf_loop_continues(const pf_graph *g, const pf_node *ctl, uint32_t done)
{
    const pf_loop *L = &g->loops[ctl->loop];
    if (done >= L->max_iter) return 0;
    if (L->kind == PF_LOOP_COUNT) return done < L->count;
    const pf_task *t = &g->tasks[ctl->task];
    return t->cond_fn(g->data[t->cond_data].ptr, ctl->args) != 0;
}

/* Whether a conditional break fires. */
static inline int pf_break_taken(const pf_graph *g, const pf_node *ctl)
{
    const pf_task *t = &g->tasks[ctl->task];
    return t->cond_fn(g->data[t->cond_data].ptr, ctl->args) != 0;
}

/* Where the sequential interpretation goes after control node `i`: the shared rule of the seq, barrier and
 * omptasks executors (iteration counts in g->iter_scratch). */
static inline size_t pf_control_next(pf_graph *g, size_t i)
{
    const pf_node *n = &g->nodes[i];
    pf_loop *L = &g->loops[n->loop];
    uint32_t *it = &g->iter_scratch[n->loop];
    switch (n->kind) {
    case PF_NODE_BEGIN:
        *it = 0;
        if (pf_loop_continues(g, n, 0)) {
            *it = 1;
            return i + 1;
        }
        atomic_store_explicit(&L->last_iterations, 0, memory_order_relaxed);
        return L->end_node + 1;
    case PF_NODE_END:
        if (pf_loop_continues(g, n, *it)) {
            ++*it;
            return L->begin_node + 1;
        }
        atomic_store_explicit(&L->last_iterations, *it, memory_order_relaxed);
        return i + 1;
    default: /* PF_NODE_BREAK */
        if (!pf_break_taken(g, n)) return i + 1;
        atomic_store_explicit(&L->last_iterations, *it, memory_order_relaxed);
        return L->end_node + 1;
    }
}

#endif
