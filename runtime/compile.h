/* Per-worker programs for the static executor (compile.c; Hermann et al. 2009, figure 3a, figure 4): RUN ops for
 * a worker's nodes, WAIT ops where a result of another worker is needed, replicated loop control. */
#ifndef PF_RUNTIME_COMPILE_H
#define PF_RUNTIME_COMPILE_H

#include "graph_types.h"

/* A rank that needs a flag's messages although no wait of its own may target it (MPI: the data of a pred whose
 * wait an earlier one covers, or that is awaited through a loop's exit). */
typedef struct pf_flag_import {
    pf_flag *flag;
    uint32_t rank;
} pf_flag_import;

/* The graph's programs part; only compile.c writes it. Valid when workers > 0. */
typedef struct pf_graph_programs {
    int workers;                 /* worker count compiled for (0: none) */
    pf_partitioner partitioner;  /* partitioner of the placement compiled */
    struct pf_compiler *cc;      /* replicas, participation and loop ops, kept for appending */
    pf_program *programs;        /* [workers] */
    PF_VEC(pf_flag *) flag_chunks; /* one chunk per compilation increment; flags never move */
    PF_VEC(pf_flag *) skips;     /* backing of BREAK ops' skip lists */
    PF_VEC(pf_flag_import) imports; /* MPI (rank_workers > 0): cross-rank pred edges, one per edge */
    int rank_workers;            /* MPI: workers per rank (compiled with the edges above); 0 without MPI */
    uint32_t cross_edges, waits;
} pf_graph_programs;

/* Builds the per-worker programs (needs node.worker); pf_graph_compile_append extends them with the nodes from
 * the analysis' first_new_node on. */
int pf_graph_compile_programs(pf_graph *g, int workers, pf_partitioner p);
int pf_graph_compile_append(pf_graph *g);
void pf_graph_free_programs(pf_graph *g);

#endif
