/* Private layout of a recorded graph: the recording (graph.c) and the parts derived from it, each written by the
 * file that owns it — the analysis (analysis.h), the barrier executor's levels (exec_barrier.h), the placement and
 * node costs (partition.h), repartitioning (repartition.h), the per-worker programs (compile.h), run counters
 * (counters.h) and NUMA binding (numa.c). The records themselves are in graph_types.h. */
#ifndef PF_RUNTIME_GRAPH_H
#define PF_RUNTIME_GRAPH_H

#include "analysis.h"
#include "compile.h"
#include "exec_barrier.h"
#include "graph_types.h"
#include "partition.h"
#include "repartition.h"

/* The NUMA node each datum is bound to, -1 when none; only pf_numa_apply (numa.c) writes it. */
typedef struct pf_numa_binding {
    PF_VEC(int32_t) datum_node;
} pf_numa_binding;

struct pf_graph {
    /* the recording, as the user gave it (graph.c) */
    PF_VEC(pf_datum) data;
    PF_VEC(pf_task) tasks;
    PF_VEC(pf_task_access) accesses;
    PF_VEC(unsigned char) args;
    PF_VEC(pf_loop) loops;
    uint32_t open_loop;        /* innermost loop being recorded, or PF_NONE */
    uint32_t real_tasks;       /* recorded tasks, markers excluded */
    PF_VEC(uint32_t) removed;  /* the tasks removed since the last analysis */
    int markers_removed;       /* a loop was removed since the last full analysis */

    pf_graph_analysis an;          /* analysis.c */
    pf_barrier_levels lv;          /* exec_barrier.c */
    pf_graph_placement pl;         /* partition*.c, rebalance.c, repartition.c */
    pf_graph_repartition_state rp; /* repartition.c */
    pf_graph_programs prog;        /* compile.c */
    pf_numa_binding numa;          /* numa.c */

    /* runs (runtime.c) */
    _Atomic int running; /* pf_graph_run is under way: recording and destruction are refused */
    uint64_t compiles, runs;
    struct pf_counters *counters;
    int quiet; /* the running runtime's: no notes on stderr */
    struct pf_mpi_graph *mpi; /* MPI message tables (mpi_tables.c), NULL without */
    pf_mpi_share mpi_share;   /* what a run's end makes equal on every rank (mpi_exec.c) */
};

/* graph.c: PF_OK, or PF_ESTATE naming `fn` when the graph is running (a call from inside one of its tasks). */
int pf_graph_check_idle(const pf_graph *g, const char *fn);

/* node_exec.c: runs a reducer, or a task after resetting its private cumulative buffers. */
void pf_node_exec_slow(const pf_graph *g, const pf_node *n, int worker);

/* Runs one node on `worker`; the common case (a task with no cumulative access) is a direct call. */
static inline void pf_node_exec(const pf_graph *g, const pf_node *n, int worker)
{
    if (n->kind == PF_NODE_TASK && !n->has_cumul && !n->dead) {
        pf_task_ctx ctx = {g->an.ptrs.v + n->ptr_off, n->args, worker};
        n->fn(&ctx);
    } else {
        pf_node_exec_slow(g, n, worker);
    }
}

/* Whether a loop runs another iteration after `done` iterations of its current entry (begin: done = 0). */
static inline int pf_loop_continues(const pf_graph *g, const pf_node *ctl, uint32_t done)
{
    const pf_loop *L = &g->loops.v[ctl->loop];
    if (done >= L->max_iter) return 0;
    if (L->kind == PF_LOOP_COUNT) return done < L->count;
    const pf_task *t = &g->tasks.v[ctl->task];
    return t->cond_fn(g->data.v[t->cond_data].ptr, ctl->args) != 0;
}

/* Whether a conditional break fires. */
static inline int pf_break_taken(const pf_graph *g, const pf_node *ctl)
{
    const pf_task *t = &g->tasks.v[ctl->task];
    return t->cond_fn(g->data.v[t->cond_data].ptr, ctl->args) != 0;
}

/* Where the sequential interpretation goes after control node `i`: the shared rule of the seq, barrier and
 * omptasks executors (iteration counts in g->an.iter_scratch). */
static inline size_t pf_control_next(pf_graph *g, size_t i)
{
    const pf_node *n = &g->an.nodes.v[i];
    pf_loop *L = &g->loops.v[n->loop];
    uint32_t *it = &g->an.iter_scratch[n->loop];
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
