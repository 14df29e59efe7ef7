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
} pf_datum;

/* A recorded task, as the user gave it. */
typedef struct pf_task {
    pf_task_fn fn;
    const char *name;
    size_t args_off; /* into graph.args, PF_NONE-sized offset when no args */
    size_t args_size;
    uint32_t acc_off; /* into graph.accesses */
    uint32_t nacc;
    double cost_est;
    double cost_meas; /* measured ns (kept across invalidations), < 0 when never measured */
} pf_task;

/* Completion flag of a node, written only by the node's worker (see sync.h). */
typedef struct pf_flag {
    _Atomic uint32_t done;    /* the run stamp of the last completed execution */
    _Atomic uint32_t waiters; /* 1 while a remote worker sleeps on `done` */
} pf_flag;

enum { PF_NODE_TASK = 0, PF_NODE_REDUCER = 1 };

/* A node of the analysed graph: a recorded task or a reducer task, listed in an order that is topological
 * (the recording order with each reducer placed where its cumulative group closes). */
typedef struct pf_node {
    /* hot: read on every replay */
    pf_task_fn fn;        /* tasks */
    const void *args;     /* tasks: copied arguments */
    void **ptrs;          /* tasks: per access, datum memory or private buffer; reducers: group buffers */
    uint32_t nptrs;       /* tasks: accesses; reducers: buffers in the group */
    uint8_t kind;
    uint8_t has_cumul;    /* tasks: at least one PF_CUMUL access (buffers to reset first) */
    uint8_t signals;      /* static: some successor runs on another worker */
    pf_flag *flag;        /* static: this node's completion flag */
    /* cold: analysis and compilation */
    uint32_t task;        /* task id, or PF_NONE for a reducer */
    uint32_t datum;       /* reducers: the datum they write */
    uint32_t object;      /* owner-compute object */
    uint32_t pred_off;    /* into graph.preds */
    uint32_t npred;
    uint32_t level;       /* longest path from a source (barrier executor) */
    int32_t worker;       /* static: worker in the last compilation */
    uint32_t pos;         /* static: position among its worker's RUN ops */
    double cost_meas;     /* reducers: measured ns, < 0 when never measured (tasks keep theirs in pf_task) */
} pf_node;

/* A compiled per-worker program: ops are node ids; a wait op has PF_OP_WAIT set. */
#define PF_OP_WAIT 0x80000000u
typedef struct pf_program {
    uint32_t *ops;
    uint32_t nops;
} pf_program;

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

    /* analysis (valid when analysed) */
    int analysed;
    pf_node *nodes;
    size_t nnodes, cap_nodes;
    uint32_t *preds;
    size_t npreds, cap_preds;
    uint32_t *task_node; /* task id -> node index */
    void **ptrs;         /* backing of node.ptrs */
    size_t nptrs, cap_ptrs;
    unsigned char *bufmem; /* private buffers of cumulative accesses */
    size_t bufmem_size;
    uint32_t nlevels;
    uint32_t *level_nodes; /* node ids sorted by level (stable) */
    uint32_t *level_off;   /* nlevels + 1 offsets into level_nodes */
    uint32_t nreducers;

    /* compilation for the static executor (valid when compiled_workers > 0) */
    int compiled_workers;
    pf_partitioner compiled_partitioner;
    pf_program *programs;
    pf_flag *flags;
    size_t flags_size;
    uint32_t cross_edges, waits;
    int measure_next; /* time every node on the next run, for the partitioner */

    uint32_t stamp; /* run stamp: incremented before each run; flags compare against it */
    uint64_t compiles, runs;
};

/* The cost the partitioner uses for a node: measured when known, else estimated. */
double pf_node_cost(const pf_graph *g, const pf_node *n);

/* analysis.c: builds nodes, edges, private buffers and levels from the recorded tasks. */
int pf_graph_analyse(pf_graph *g);
void pf_graph_free_analysis(pf_graph *g);

/* partition_owner.c: fills node.worker for `workers` workers. */
int pf_partition_owner(pf_graph *g, int workers);

/* compile.c: builds the per-worker programs (needs node.worker). */
int pf_graph_compile_programs(pf_graph *g, int workers);
void pf_graph_free_programs(pf_graph *g);

/* node_exec.c: runs a reducer, or a task after resetting its private cumulative buffers. */
void pf_node_exec_slow(const pf_graph *g, const pf_node *n, int worker);

/* Runs one node on `worker`; the common case (a task with no cumulative access) is a direct call. */
static inline void pf_node_exec(const pf_graph *g, const pf_node *n, int worker)
{
    if (n->kind == PF_NODE_TASK && !n->has_cumul) {
        pf_task_ctx ctx = {n->ptrs, n->args, worker};
        n->fn(&ctx);
    } else {
        pf_node_exec_slow(g, n, worker);
    }
}

#endif
