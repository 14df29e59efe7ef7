/* Owner-compute partitioning (Hermann et al. 2009, §3.2): a task goes with the object whose data it writes; objects are
 * spread over workers by cost. */
#include "graph.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdlib.h>

typedef struct object_cost {
    uint32_t object;
    double cost;
} object_cost;

static int by_object(const void *a, const void *b)
{
    uint32_t x = ((const object_cost *)a)->object, y = ((const object_cost *)b)->object;
    return (x > y) - (x < y);
}

/* Objects are cut, in id order, into K contiguous runs of about equal cost: ids usually follow the scene's
 * layout, so neighbours share a worker and few edges cross workers (better than a cost-greedy scatter when
 * costs are alike, as in a domain decomposition); a run's imbalance is at most one object's cost. */
int pf_partition_owner(pf_graph *g, int workers)
{
    size_t n = g->an.nodes.n;
    object_cost *oc = pf_malloc((n + 1) * sizeof *oc);
    if (!oc) return pf_error(PF_ENOMEM, "out of memory partitioning");
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const pf_node *nd = &g->an.nodes.v[i];
        if ((nd->kind == PF_NODE_TASK || nd->kind == PF_NODE_REDUCER) && nd->object != PF_NONE)
            oc[m++] = (object_cost){nd->object, pf_node_cost(g, nd)};
    }
    qsort(oc, m, sizeof *oc, by_object);
    size_t u = 0; /* unique objects, costs summed */
    double total = 0;
    for (size_t i = 0; i < m; i++) {
        total += oc[i].cost;
        if (u > 0 && oc[u - 1].object == oc[i].object)
            oc[u - 1].cost += oc[i].cost;
        else
            oc[u++] = oc[i];
    }
    /* object index -> worker, reusing .cost to hold the worker */
    double acc = 0;
    for (size_t i = 0; i < u; i++) {
        double mid = acc + oc[i].cost / 2;
        acc += oc[i].cost;
        int w = total > 0 ? (int)(mid * workers / total) : (int)(i * (size_t)workers / (u ? u : 1));
        oc[i].cost = w < workers ? w : workers - 1;
    }
    uint32_t free_tasks = 0;
    for (size_t i = 0; i < n; i++) {
        pf_node *node = &g->an.nodes.v[i];
        if (node->kind != PF_NODE_TASK && node->kind != PF_NODE_REDUCER) {
            node->worker = -1; /* loop control is replicated, not placed */
            continue;
        }
        if (node->object == PF_NONE) { /* a task with no data: spread round-robin */
            node->worker = (int32_t)(free_tasks++ % (uint32_t)workers);
            continue;
        }
        object_cost key = {node->object, 0};
        object_cost *hit = bsearch(&key, oc, u, sizeof *oc, by_object);
        PF_ASSERT(hit);
        node->worker = (int32_t)hit->cost;
    }
    pf_free(oc);
    return PF_OK;
}
