/* Memory follows ownership on NUMA machines: each datum's pages are bound to the NUMA node of the worker that
 * owns its object, and move (are migrated) when a repartition moves the object. */
#ifndef PF_RUNTIME_NUMA_H
#define PF_RUNTIME_NUMA_H

#include "graph.h"

#include <hwloc.h>

typedef struct pf_numa pf_numa;

/* The NUMA layout of `workers` workers on topology `topo` (not owned; it must outlive the result): worker k runs
 * on core k mod cores, as the team binds it (team.c), and its node is the NUMA node whose cpuset holds that
 * core. NULL when out of memory or when the topology has no cores. */
pf_numa *pf_numa_create(hwloc_topology_t topo, int workers);
void pf_numa_destroy(pf_numa *n);
int pf_numa_nodes(const pf_numa *n);
/* The logical index of worker w's NUMA node. */
int pf_numa_worker_node(const pf_numa *n, int worker);
/* The node each datum belongs on (node_of[ndata]): the node of the worker that runs its object's tasks (the
 * worker of the object's first placed node), -1 when none of its object's tasks is placed. Needs a placement;
 * PF_ENOMEM or PF_OK. */
int pf_numa_plan(const pf_numa *n, const pf_graph *g, int32_t *node_of);
/* Binds, with migration of the pages already touched, every datum of at least a page whose planned node differs
 * from the one it was bound to (g->numa.datum_node); on a machine of one node, nothing. Returns the data bound; a
 * refused binding (a synthetic topology, an old kernel) leaves the datum where it is. */
uint32_t pf_numa_apply(const pf_numa *n, pf_graph *g);

#endif
