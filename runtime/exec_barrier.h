/* The barrier executor's view of the graph (exec_barrier.c): maximal runs of task/reducer nodes between control
 * nodes ("segments"), each cut into levels by its internal edges (Hermann et al. 2009, figure 2, left). Built
 * when the barrier executor first runs an analysis, extended for appended nodes. */
#ifndef PF_RUNTIME_EXEC_BARRIER_H
#define PF_RUNTIME_EXEC_BARRIER_H

#include "graph_types.h"

typedef struct pf_segment {
    uint32_t node_begin, node_end;   /* node ids [begin, end) */
    uint32_t level_begin, level_end; /* level ids [begin, end) */
} pf_segment;

/* The graph's levels part; only exec_barrier.c writes it. level_nodes lists node ids by (segment, level). */
typedef struct pf_barrier_levels {
    uint64_t generation;  /* the analysis generation the levels describe */
    size_t built;         /* nodes covered */
    uint32_t nlevels;
    uint32_t *level_nodes;
    uint32_t *level_off;  /* nlevels + 1 offsets into level_nodes */
    pf_segment *segments;
    uint32_t nsegments;
    uint32_t *node_segment; /* per node: its segment (task/reducer nodes), PF_NONE for control nodes */
    size_t cap;             /* capacity of the four arrays above, in nodes */
} pf_barrier_levels;

/* Brings the levels up to date with the analysis: the new nodes only when the analysis was appended to, all of
 * them after a full analysis. PF_OK or PF_ENOMEM. */
int pf_barrier_levels_update(pf_graph *g);
/* Whether the levels lag behind the analysis (pf_barrier_levels_update has work to do). */
int pf_barrier_levels_stale(const pf_graph *g);
void pf_barrier_levels_free(pf_barrier_levels *lv);

#endif
