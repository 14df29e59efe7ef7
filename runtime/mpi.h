/* A runtime across MPI ranks (docs/runtime.md, "Across MPI ranks"): R ranks x K workers are G = R*K global
 * workers; every rank records the same graph, compiles the same G programs and runs its own K; a result another
 * rank awaits travels as a message; at the end of each run the ranks make their copies of the data equal again.
 * mpi_exec.c (built with MPI) holds the runtime side, mpi_tables.c the per-graph tables; mpi_stub.c refuses. */
#ifndef PF_RUNTIME_MPI_H
#define PF_RUNTIME_MPI_H

#include "graph.h"

#include <stddef.h>

typedef struct pf_mpi pf_mpi;

/* PF_OK when MPI is built and initialised with MPI_THREAD_MULTIPLE; else PF_EINVAL naming `fn`. */
int pf_mpi_check(const char *fn);
/* "Open MPI x.y.z" (the library's own version string, shortened), or "not built". */
void pf_mpi_version(char *buf, size_t size);

/* The rank's state for a runtime of `workers` workers per rank; NULL when out of memory. */
pf_mpi *pf_mpi_create(int workers);
void pf_mpi_destroy(pf_mpi *m);
int pf_mpi_rank(const pf_mpi *m);
int pf_mpi_ranks(const pf_mpi *m);

/* Rank 0's node.worker for every analysed node, taken by every rank (right before compiling). */
int pf_mpi_bcast_placement(pf_mpi *m, pf_graph *g);
/* Before a run: the graph's message tables (rebuilt after each compilation) and cleared run counters. */
int pf_mpi_run_begin(pf_mpi *m, pf_graph *g);
/* After the rank's workers finished: unclaimed messages drained, sends completed, loop iteration counts and
 * the data made equal on every rank. Adds this run's messages and bytes to *messages and *bytes. */
int pf_mpi_run_end(pf_mpi *m, pf_graph *g, uint64_t *messages, uint64_t *bytes);

/* What this rank did across ranks since the runtime was created. */
typedef struct pf_mpi_totals {
    uint64_t runs;
    uint64_t messages, bytes;  /* results sent to the ranks importing them during runs */
    uint64_t received, received_bytes; /* results this rank received from the others during runs */
    uint64_t shares, share_bytes; /* data sent at the end of runs (MPI_Allgatherv: counted once per other rank) */
    uint64_t end_ns;           /* spent at the end of runs: draining, completing sends, sharing data */
} pf_mpi_totals;
void pf_mpi_get_totals(const pf_mpi *m, pf_mpi_totals *out);
/* For tools: the totals of a runtime across ranks; all 0 without MPI. */
void pf_runtime_mpi_totals(const pf_runtime *rt, pf_mpi_totals *out);

/* Hooks of the static executor's replay (worker gw of this rank, local worker w). */
/* A RUN op ran: its written data get a new version; its flag, when another rank imports it, is sent. */
void pf_mpi_ran(pf_mpi *m, pf_graph *g, int w, const pf_op *op, uint32_t stamp);
/* A control op or a skip published flag f (NULL: nothing) with `stamp`. */
void pf_mpi_published(pf_mpi *m, pf_graph *g, int w, const pf_flag *f, uint32_t stamp);
/* Whether f is published on another rank (a wait on it receives). */
int pf_mpi_imported(const pf_mpi *m, const pf_flag *f);
/* Receives f's messages until its stamp reaches `want`. */
void pf_mpi_wait(pf_mpi *m, pf_graph *g, pf_flag *f, uint32_t want);

/* The per-graph tables (mpi_tables.c), rebuilt after each compilation. */
typedef struct pf_mpi_item {
    uint32_t datum;
    uint32_t ptr; /* index into graph.an.ptrs of a cumulative access' private buffer; PF_NONE: the datum itself */
} pf_mpi_item;

typedef struct pf_mpi_graph {
    uint64_t compiles;       /* g->compiles the tables were built for */
    void *programs;          /* g->prog.programs they were built for */
    size_t ndata, nnodes;    /* g->data.n and g->an.nodes.n they were built for */
    int ranks, workers;      /* R, K */
    uint32_t nflags;
    struct pf_mpi_slot *map; /* open addressing: flag pointer -> id */
    uint32_t map_cap;
    pf_flag **flags;         /* [nflags] */
    uint64_t *importers;     /* [nflags]: bit r when rank r imports the flag */
    uint32_t *flag_node;     /* [nflags]: the work node the flag belongs to, PF_NONE for control and exits */
    uint32_t *item_off;      /* [nodes + 1]: the data each work node writes */
    PF_VEC(pf_mpi_item) items;
    uint64_t *item_ranks;    /* [items]: bit r when a message to rank r carries the item (rank r touches it) */
    uint32_t *ver;           /* [data]: versions written this run as this rank knows them */
    uint8_t *part;           /* [loops]: a worker of this rank runs part of the loop */
    uint8_t *dead_at_end;    /* [data]: the next run overwrites it before any task reads it: not shared at the end */
    int32_t *home;           /* [data]: the rank of its last writer in node order (0: none): it shares the datum
                              * at a run's end when other ranks hold the same version (a message's copy) */
} pf_mpi_graph;

int pf_mpi_tables_build(pf_graph *g, int ranks, int workers, int rank);
void pf_mpi_tables_free(pf_graph *g);
/* The id of flag f, or PF_NONE. */
uint32_t pf_mpi_flag_id(const pf_mpi_graph *t, const pf_flag *f);

#endif
