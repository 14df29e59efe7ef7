/* Recording: graph lifecycle, data registration and task insertion. Nothing runs while recording. */
#include "graph.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

int pf_graph_create(pf_graph **out)
{
    PF_CHECK_ARG(out);
    pf_graph *g = pf_calloc(1, sizeof *g);
    if (!g) return pf_error(PF_ENOMEM, "out of memory creating a graph");
    *out = g;
    return PF_OK;
}

void pf_graph_destroy(pf_graph *g)
{
    if (!g) return;
    pf_graph_free_programs(g);
    pf_graph_free_analysis(g);
    pf_free(g->data);
    pf_free(g->tasks);
    pf_free(g->accesses);
    pf_free(g->args);
    pf_free(g);
}

int pf_graph_data(pf_graph *g, void *ptr, size_t size, uint32_t owner, const pf_reducer *reducer,
                  pf_data_id *out)
{
    PF_CHECK_ARG(g && ptr && size > 0 && out);
    if (reducer && (!reducer->init || !reducer->combine))
        return pf_error(PF_EINVAL, "pf_graph_data: a reducer needs both init and combine");
    if (g->ndata >= PF_NONE - 1) return pf_error(PF_ENOMEM, "pf_graph_data: too many data");
    if (PF_ARRAY_RESERVE(g->data, g->cap_data, g->ndata + 1))
        return pf_error(PF_ENOMEM, "out of memory registering a datum");
    pf_datum *d = &g->data[g->ndata];
    *d = (pf_datum){.ptr = ptr, .size = size, .owner = owner, .has_reducer = reducer != NULL};
    if (reducer) d->reducer = *reducer;
    *out = (pf_data_id)g->ndata++;
    return PF_OK;
}

static int check_accesses(const pf_graph *g, const pf_task_def *def)
{
    for (uint32_t k = 0; k < def->naccesses; k++) {
        const pf_access *a = &def->accesses[k];
        if (a->data >= g->ndata)
            return pf_error(PF_EINVAL, "task '%s': access %u names unknown datum %u", def->name, k, a->data);
        if (a->mode != PF_READ && a->mode != PF_WRITE && a->mode != PF_READWRITE && a->mode != PF_CUMUL)
            return pf_error(PF_EINVAL, "task '%s': access %u has invalid mode %d", def->name, k, (int)a->mode);
        if (a->mode == PF_CUMUL && !g->data[a->data].has_reducer)
            return pf_error(PF_EINVAL, "task '%s': cumulative write to datum %u, which has no reducer",
                            def->name, a->data);
        for (uint32_t j = 0; j < k; j++)
            if (def->accesses[j].data == a->data)
                return pf_error(PF_EINVAL, "task '%s': datum %u named twice (use PF_READWRITE)", def->name,
                                a->data);
    }
    return PF_OK;
}

int pf_graph_task(pf_graph *g, const pf_task_def *def, pf_task_id *out)
{
    PF_CHECK_ARG(g && def && def->fn);
    PF_CHECK_ARG(def->naccesses <= PF_MAX_ACCESSES && (def->naccesses == 0 || def->accesses));
    PF_CHECK_ARG(def->args_size == 0 || def->args);
    if (g->analysed)
        return pf_error(PF_ESTATE, "pf_graph_task: the graph is compiled; call pf_graph_invalidate first");
    pf_task_def d = *def;
    if (!d.name) d.name = "task";
    int rc = check_accesses(g, &d);
    if (rc) return rc;
    if (g->ntasks >= (PF_OP_WAIT >> 1))
        return pf_error(PF_ENOMEM, "pf_graph_task: too many tasks");
    size_t args_off = (g->nargs + 15) & ~(size_t)15; /* keep arguments 16-byte aligned */
    if (PF_ARRAY_RESERVE(g->tasks, g->cap_tasks, g->ntasks + 1) ||
        PF_ARRAY_RESERVE(g->accesses, g->cap_accesses, g->naccesses + d.naccesses) ||
        PF_ARRAY_RESERVE(g->args, g->cap_args, args_off + d.args_size))
        return pf_error(PF_ENOMEM, "out of memory recording task '%s'", d.name);
    if (d.args_size) {
        memcpy(g->args + args_off, d.args, d.args_size);
        g->nargs = args_off + d.args_size;
    }
    memcpy(g->accesses + g->naccesses, d.accesses, d.naccesses * sizeof *d.accesses);
    g->tasks[g->ntasks] = (pf_task){
        .fn = d.fn,
        .name = d.name,
        .args_off = args_off,
        .args_size = d.args_size,
        .acc_off = (uint32_t)g->naccesses,
        .nacc = d.naccesses,
        .cost_est = (d.cost > 0 && isfinite(d.cost)) ? d.cost : 1000.0,
        .cost_meas = -1.0,
    };
    g->naccesses += d.naccesses;
    if (out) *out = (pf_task_id)g->ntasks;
    g->ntasks++;
    return PF_OK;
}

int pf_graph_invalidate(pf_graph *g)
{
    PF_CHECK_ARG(g);
    pf_graph_free_programs(g);
    pf_graph_free_analysis(g);
    return PF_OK;
}

int pf_graph_get_stats(const pf_graph *g, pf_graph_stats *out)
{
    PF_CHECK_ARG(g && out);
    *out = (pf_graph_stats){
        .tasks = (uint32_t)g->ntasks,
        .reducers = g->analysed ? g->nreducers : 0,
        .edges = g->analysed ? (uint32_t)g->npreds : 0,
        .data = (uint32_t)g->ndata,
        .cross_edges = g->cross_edges,
        .waits = g->waits,
        .levels = g->analysed ? g->nlevels : 0,
        .compiles = g->compiles,
        .runs = g->runs,
    };
    return PF_OK;
}

int pf_graph_task_worker(const pf_graph *g, pf_task_id t)
{
    if (!g || t >= g->ntasks || !g->analysed || g->compiled_workers == 0) return -1;
    return g->nodes[g->task_node[t]].worker;
}
