/* The records a graph is made of: data, tasks, loops, analysed nodes, per-worker programs and their ops. The graph
 * itself (graph.h) holds them in parts, each owned by one file. */
#ifndef PF_RUNTIME_GRAPH_TYPES_H
#define PF_RUNTIME_GRAPH_TYPES_H

#include "physflow/runtime.h"

#include "base/vec.h"

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

/* A recorded access: the user's pf_access with its datum as the plain index the analysis works with (the
 * public pf_data_id is unwrapped once, at record time). */
typedef struct pf_task_access {
    uint32_t data;
    pf_access_mode mode;
} pf_task_access;

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
    PF_VEC(double) op_ns; /* measuring runs: ns spent in each op, written by this worker alone (no shared lines) */
} pf_program;

#define PF_MAX_TASKS 0x7fffffffu

/* Runs that measure every node's cost after a change of the graph; each node keeps its least time. */
#define MEASURE_RUNS 2

#endif
