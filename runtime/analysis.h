/* The analysis of a recorded graph (analysis.c): the node list in topological order with its dependency edges,
 * the pointers each node's task receives, and the private buffers of cumulative accesses (Hermann et al. 2009,
 * §3.1-3.3). Kept while the graph is edited, so that appended tasks are analysed alone. */
#ifndef PF_RUNTIME_ANALYSIS_H
#define PF_RUNTIME_ANALYSIS_H

#include "graph_types.h"

/* The graph's analysis part; only analysis.c writes it (node.worker excepted: placement, partition.h). */
typedef struct pf_graph_analysis {
    int analysed;                  /* valid for the recorded tasks */
    uint64_t generation;           /* counts full analyses: node ids kept since the latest one stay valid */
    struct pf_analysis *state;     /* per-datum state at the end of the analysed tasks */
    size_t analysed_tasks;         /* task records the analysis has seen */
    PF_VEC(pf_node) nodes;
    PF_VEC(uint32_t) preds;        /* the nodes' pred lists (pf_node.pred_off, npred) */
    PF_VEC(uint32_t) task_node;    /* task id -> node index */
    PF_VEC(void *) ptrs;           /* backing of the nodes' pointer lists */
    PF_VEC(unsigned char *) buf_chunks; /* private buffers of cumulative accesses, one chunk per increment */
    size_t bufmem_size;            /* bytes of the increment being analysed */
    uint32_t *iter_scratch;        /* per loop: iteration within the entry (seq, barrier, omptasks) */
    uint32_t nreducers;
    size_t first_new_node;         /* the first node of the latest analysis increment */
    size_t ndead;                  /* nodes of removed tasks kept as no-ops */
    int ptrs_stale;                /* a datum moved (pf_graph_data_move): tasks' pointers to refresh */
} pf_graph_analysis;

/* Builds nodes, edges and private buffers from the recorded tasks; pf_graph_analyse_append continues a kept
 * analysis with the tasks recorded since (only possible when none was removed). */
int pf_graph_analyse(pf_graph *g);
int pf_graph_analyse_append(pf_graph *g);
int pf_graph_can_append(const pf_graph *g);
/* Points the analysed tasks' accesses at their data's memory again, after pf_graph_data_move. */
void pf_graph_refresh_ptrs(pf_graph *g);
void pf_graph_free_analysis(pf_graph *g);

#endif
