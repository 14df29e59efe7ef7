/* NUMA placement of data (numa.h). The host allocates and first touches the data it registers, so PhysFlow
 * cannot rely on first touch by the owning worker: it binds the pages of each datum to its owner's node with
 * hwloc, migrating what is already there, after each placement that changes where an object lives. */
#include "numa.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <unistd.h>

struct pf_numa {
    hwloc_topology_t topo;
    int workers, nodes;
    int *worker_node;          /* [workers] */
    hwloc_nodeset_t *nodesets; /* [nodes] */
};

void pf_numa_destroy(pf_numa *n)
{
    if (!n) return;
    for (int k = 0; k < n->nodes && n->nodesets; k++) hwloc_bitmap_free(n->nodesets[k]);
    pf_free(n->nodesets);
    pf_free(n->worker_node);
    pf_free(n);
}

pf_numa *pf_numa_create(hwloc_topology_t topo, int workers)
{
    int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    int nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    if (cores <= 0 || workers < 1) return NULL;
    pf_numa *n = pf_calloc(1, sizeof *n);
    if (!n) return NULL;
    n->topo = topo;
    n->workers = workers;
    n->nodes = nodes > 0 ? nodes : 1;
    n->worker_node = pf_calloc((size_t)workers, sizeof *n->worker_node);
    n->nodesets = pf_calloc((size_t)n->nodes, sizeof *n->nodesets);
    if (!n->worker_node || !n->nodesets) {
        pf_numa_destroy(n);
        return NULL;
    }
    for (int k = 0; k < nodes; k++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)k);
        if (!(n->nodesets[k] = hwloc_bitmap_dup(node->nodeset))) {
            pf_numa_destroy(n);
            return NULL;
        }
    }
    for (int w = 0; w < workers; w++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)(w % cores));
        for (int k = 0; k < nodes; k++) {
            hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)k);
            if (core->cpuset && node->cpuset && hwloc_bitmap_isincluded(core->cpuset, node->cpuset)) {
                n->worker_node[w] = k;
                break;
            }
        }
    }
    return n;
}

int pf_numa_nodes(const pf_numa *n)
{
    return n->nodes;
}

int pf_numa_worker_node(const pf_numa *n, int worker)
{
    return worker >= 0 && worker < n->workers ? n->worker_node[worker] : -1;
}

static int by_object(const void *a, const void *b)
{
    uint32_t x = ((const pf_object_load *)a)->object, y = ((const pf_object_load *)b)->object;
    return (x > y) - (x < y);
}

/* Each object's worker: the one running most of its cost (objects are whole after a partition; an update under
 * METIS may place a new task of an object elsewhere), the lowest on ties. Returns the number of objects, ow[]
 * sorted by object. */
static size_t object_workers(const pf_graph *g, pf_object_load *ow)
{
    size_t u = pf_object_loads(g, ow), o = 0;
    for (size_t i = 0; i < u; i++) {
        if (o > 0 && ow[o - 1].object == ow[i].object) {
            if (ow[i].cost > ow[o - 1].cost) ow[o - 1] = ow[i];
        } else {
            ow[o++] = ow[i];
        }
    }
    return o;
}

int pf_numa_plan(const pf_numa *n, const pf_graph *g, int32_t *node_of)
{
    pf_object_load *ow = pf_malloc((g->an.nodes.n + 1) * sizeof *ow);
    if (!ow) return PF_ENOMEM;
    size_t m = object_workers(g, ow);
    for (size_t d = 0; d < g->data.n; d++) {
        pf_object_load key = {g->data.v[d].owner, 0, 0};
        const pf_object_load *hit = m ? bsearch(&key, ow, m, sizeof *ow, by_object) : NULL;
        node_of[d] = hit ? pf_numa_worker_node(n, hit->worker) : -1;
    }
    pf_free(ow);
    return PF_OK;
}

uint32_t pf_numa_apply(const pf_numa *n, pf_graph *g)
{
    if (n->nodes < 2 || g->data.n == 0) return 0;
    if (pf_vec_reserve(&g->numa.datum_node, g->data.n)) return 0;
    for (size_t d = g->numa.datum_node.n; d < g->data.n; d++) g->numa.datum_node.v[d] = -1;
    g->numa.datum_node.n = g->data.n;
    int32_t *plan = pf_malloc(g->data.n * sizeof *plan);
    if (!plan || pf_numa_plan(n, g, plan)) {
        pf_free(plan);
        return 0;
    }
    long page = sysconf(_SC_PAGESIZE);
    uint32_t bound = 0;
    for (size_t d = 0; d < g->data.n; d++) {
        size_t min_size = (size_t)(page > 0 ? page : 4096);
        if (plan[d] < 0 || plan[d] == g->numa.datum_node.v[d] || g->data.v[d].size < min_size) continue;
        int rc = hwloc_set_area_membind(n->topo, g->data.v[d].ptr, g->data.v[d].size, n->nodesets[plan[d]],
                                        HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_MIGRATE | HWLOC_MEMBIND_BYNODESET);
        g->numa.datum_node.v[d] = plan[d]; /* a refusal is not retried at every placement */
        if (rc == 0) bound++;
    }
    pf_free(plan);
    return bound;
}
