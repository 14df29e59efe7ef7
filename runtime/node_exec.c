/* Running one node: reducers fold their group's buffers in recording order (Hermann et al. 2009 figure 3b); tasks with
 * cumulative accesses get their private buffers reset to the reducer's identity first. */
#include "graph.h"

void pf_node_exec_slow(const pf_graph *g, const pf_node *n, int worker)
{
    void *const *ptrs = g->an.ptrs.v + n->ptr_off;
    if (n->kind == PF_NODE_REDUCER) {
        const pf_datum *d = &g->data.v[n->datum];
        for (uint32_t k = 0; k < n->nptrs; k++) d->reducer.combine(d->ptr, ptrs[k], d->size, d->reducer.ctx);
        return;
    }
    if (n->dead) return; /* a removed task: its data keep their values, its place keeps the order */
    const pf_task *t = &g->tasks.v[n->task];
    const pf_task_access *acc = &g->accesses.v[t->acc_off];
    for (uint32_t k = 0; k < t->nacc; k++) {
        if (acc[k].mode != PF_CUMUL) continue;
        const pf_datum *d = &g->data.v[acc[k].data];
        d->reducer.init(ptrs[k], d->size, d->reducer.ctx);
    }
    pf_task_ctx ctx = {ptrs, n->args, worker};
    n->fn(&ctx);
}
