/* The executors: each runs the analysed (and, for static, compiled) graph once. */
#ifndef PF_RUNTIME_EXEC_H
#define PF_RUNTIME_EXEC_H

#include "counters.h"
#include "graph.h"
#include "team.h"
#include "trace.h"

typedef struct pf_exec_ctx {
    pf_graph *g;
    pf_trace *trace; /* NULL when off */
    int measure;     /* record each node's time as its measured cost */
    int workers;
    uint32_t spin;
    pf_worker_tally *tally; /* per worker: what it counts during the run (static, seq) */
    struct pf_mpi *mpi;     /* static across MPI ranks: this rank's state (mpi.h); NULL otherwise */
    int prog_base;          /* static: the global index of this rank's worker 0 (rank * workers; 0 without MPI) */
} pf_exec_ctx;

void pf_exec_seq(const pf_exec_ctx *c);
/* PF_OK, or PF_ENOMEM when a measuring run cannot get its per-worker timing arrays (nothing ran) */
int pf_exec_static(pf_team *team, const pf_exec_ctx *c);
void pf_exec_barrier(const pf_exec_ctx *c);
void pf_exec_omptasks(const pf_exec_ctx *c);

/* Runs a node with timing: records its cost when measuring and its span when tracing. */
void pf_exec_node_instrumented(const pf_exec_ctx *c, pf_node *n, int worker);

#endif
