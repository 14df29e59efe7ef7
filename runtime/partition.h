/* Placement of the analysed nodes on workers (partition.c, partition_owner.c, partition_metis.c, rebalance.c):
 * owner-compute or METIS over the graph contracted by object (Hermann et al. 2009, §3.2), with the node costs
 * the runtime measures. */
#ifndef PF_RUNTIME_PARTITION_H
#define PF_RUNTIME_PARTITION_H

#include "graph_types.h"

/* The graph's placement part: which worker count and partitioner the nodes' workers (pf_node.worker,
 * pf_task.worker) were placed for, what an update must know of them, and the measuring of node costs. Written by
 * the placing files above, repartition.c, and pf_placement_* (partition.c). */
typedef struct pf_graph_placement {
    int workers;                   /* worker count of the kept placement (0: none) */
    int groups;                    /* METIS: workers come in this many groups of consecutive ids (MPI ranks), which
                                    * it splits first; 1 without MPI */
    pf_partitioner partitioner;
    struct pf_placement *state;    /* objects' workers and workers' loads, kept for appended updates */
    size_t nodes;                  /* nodes the placement covers (0 after a re-analysis renumbered them) */
    uint32_t removed_since;        /* tasks removed since the last placement */
    pf_graph_update last_update;   /* counters of the latest (re)placement */
    uint32_t pending_moved;        /* tasks moved by pf_graph_rebalance, reported with the next update */
    int measure_next;              /* runs left that time every node (MEASURE_RUNS after a change) */
    int measure_first;             /* the next measuring run starts a series: its times replace the costs */
    PF_VEC(double) cost_run;       /* per node: its time in the measuring run under way */
    uint32_t metis_small;          /* placements where METIS fell back to owner-compute */
    uint8_t metis_small_said;      /* the note that METIS got a graph too small for it was printed */
} pf_graph_placement;

/* The cost the partitioner uses for a node: measured when known, else estimated. */
double pf_node_cost(const pf_graph *g, const pf_node *n);

/* partition.c: places every work node (node.worker) for `workers` workers. When the graph was compiled before
 * for the same workers and partitioner, placed tasks keep their worker and only new nodes are placed
 * (Hermann et al. 2009, §3.2, "limit partitioning changes"); otherwise everything is partitioned afresh. */
int pf_partition(pf_graph *g, int workers, pf_partitioner p);
/* partition_owner.c, partition_metis.c: fresh partitions. */
int pf_partition_owner(pf_graph *g, int workers);
int pf_partition_metis(pf_graph *g, int workers);
void pf_placement_free(struct pf_placement *pl);
/* Per-worker sums of node costs (out[workers]). */
void pf_worker_loads(const pf_graph *g, int workers, double *out);
/* The cost of each object on each worker: sums over the placed work nodes that name an object, sorted by object
 * then worker, into out (room for g->an.nodes.n entries); returns how many. */
typedef struct pf_object_load {
    uint32_t object;
    int32_t worker;
    double cost;
} pf_object_load;
size_t pf_object_loads(const pf_graph *g, pf_object_load *out);


/* Node costs: after a change of the graph, the next MEASURE_RUNS runs time every node (pf_placement_measure_start).
 * Before each, pf_placement_measure_run clears the per-node times the executors add to (PF_OK or PF_ENOMEM);
 * after it, pf_placement_keep_costs keeps each node's least time and returns 1 when the series is complete. */
void pf_placement_measure_start(pf_graph *g);
int pf_placement_measure_run(pf_graph *g);
int pf_placement_keep_costs(pf_graph *g);

#endif
