/* Repartitioning driven by contacts and measured load (repartition.c; Hermann et al. 2009, §3.2, §4.2). */
#ifndef PF_RUNTIME_REPARTITION_H
#define PF_RUNTIME_REPARTITION_H

#include "graph_types.h"

/* The graph's repartitioning part; repartition.c reads and clears it, pf_graph_repartition (graph.c) sets
 * `forced`, and a change of the graph (runtime.c) sets `pending`. */
typedef struct pf_graph_repartition_state {
    uint8_t forced;       /* partition afresh at the next static run */
    uint8_t pending;      /* decide after the next measured run (a structural update or an imbalance) */
    uint8_t recompile;    /* the next compilation follows a repartition (its time counts as the repartition's) */
    uint64_t decided_run; /* the graph's run count at the latest decision (hysteresis for the imbalance trigger) */
} pf_graph_repartition_state;

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
#endif
