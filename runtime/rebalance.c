/* Rebalancing by object (Hermann et al. 2009, §3.2): whole objects move from the most loaded worker to the least loaded
 * one, by measured cost, while a move lowers the larger of the two loads; each move takes the object that
 * brings the two loads closest. */
#include "graph.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>

int pf_graph_rebalance(pf_graph *g, pf_runtime *rt, uint32_t *moved_objects, uint32_t *moved_tasks)
{
    PF_TRY(pf_check_given(g, __func__, "g"));
    PF_TRY(pf_check_given(rt, __func__, "rt"));
    double makespan;
    int rc = pf_graph_get_estimated_makespan(g, rt, &makespan); /* makes sure a placement exists */
    if (rc) return rc;
    int k = pf_runtime_workers(rt);
    size_t n = g->an.nodes.n;
    pf_object_load *ol = pf_malloc((n + 1) * sizeof *ol);
    double *load = pf_calloc((size_t)k, sizeof *load);
    if (!ol || !load) {
        pf_free(ol);
        pf_free(load);
        return pf_error(PF_ENOMEM, "out of memory rebalancing");
    }
    pf_repartition_trial_end(g, 1); /* the rebalance starts from the trial's new placement */
    size_t u = pf_object_loads(g, ol); /* (object, worker) groups with their costs */
    pf_worker_loads(g, k, load);
    uint32_t objects = 0, tasks = 0;
    for (size_t step = 0; step < u; step++) {
        int hi = 0, lo = 0;
        for (int w = 1; w < k; w++) {
            if (load[w] > load[hi]) hi = w;
            if (load[w] < load[lo]) lo = w;
        }
        /* the group on `hi` whose move leaves the two loads closest (|gap - 2 cost| smallest); any group
         * lighter than the gap lowers max(load[hi], load[lo]) */
        double gap = load[hi] - load[lo];
        size_t best = u;
        for (size_t i = 0; i < u; i++) {
            if (ol[i].worker != hi || ol[i].cost <= 0 || ol[i].cost >= gap) continue;
            if (best == u || fabs(gap - 2 * ol[i].cost) < fabs(gap - 2 * ol[best].cost)) best = i;
        }
        if (best == u) break;
        load[hi] -= ol[best].cost;
        load[lo] += ol[best].cost;
        for (size_t i = 0; i < n; i++) {
            pf_node *nd = &g->an.nodes.v[i];
            if (nd->object != ol[best].object || nd->worker != hi) continue;
            if (nd->kind == PF_NODE_TASK) {
                g->tasks.v[nd->task].worker = lo;
                tasks++;
            } else if (nd->kind == PF_NODE_REDUCER) {
                g->data.v[nd->datum].reducer_worker = lo;
            } else {
                continue;
            }
            nd->worker = lo;
        }
        ol[best].worker = lo;
        objects++;
    }
    pf_free(ol);
    pf_free(load);
    if (tasks) { /* recompile with the kept (now moved) placement at the next run */
        pf_graph_free_programs(g);
        pf_placement_free(g->pl.state);
        g->pl.state = NULL;
        g->pl.nodes = 0;
        g->pl.pending_moved += tasks;
    }
    if (moved_objects) *moved_objects = objects;
    if (moved_tasks) *moved_tasks = tasks;
    return PF_OK;
}
