/* Loop contexts (contexts.c): a node's context is its innermost loop + 1, 0 the top level of a run. */
#ifndef PF_RUNTIME_CONTEXTS_H
#define PF_RUNTIME_CONTEXTS_H

#include "graph_types.h"

/* The context enclosing loop `loop`. */
uint32_t pf_ctx_parent(const pf_graph *g, uint32_t loop);
/* The innermost context containing both. */
uint32_t pf_ctx_common(const pf_graph *g, uint32_t a, uint32_t b);
/* How many times a node of context `ctx` ran in the latest run: the product of its loops' latest iteration
 * counts (at least 1 each, so a loop not run yet counts once). */
double pf_ctx_runs(const pf_graph *g, uint32_t ctx);
/* How many times a synchronisation along p -> n happens per run: the runs of their common context (a result from
 * outside a loop is awaited in its first iteration only; one inside is awaited every iteration). */
double pf_edge_runs(const pf_graph *g, const pf_node *p, const pf_node *n);

#endif
