/* Compilation into per-worker programs (paper 004 §3.2, figure 3a): each worker runs its nodes in graph order;
 * a wait precedes the first node that needs a result from another worker, and the awaited node signals. */
#include "graph.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

void pf_graph_free_programs(pf_graph *g)
{
    if (g->programs) {
        for (int w = 0; w < g->compiled_workers; w++) pf_free(g->programs[w].ops);
        pf_free(g->programs);
    }
    pf_free(g->flags);
    g->programs = NULL;
    g->flags = NULL;
    g->flags_size = 0;
    g->compiled_workers = 0;
    g->cross_edges = g->waits = 0;
}

int pf_graph_compile_programs(pf_graph *g, int workers)
{
    pf_graph_free_programs(g);
    size_t n = g->nnodes;
    size_t k = (size_t)workers;
    uint32_t *count = pf_calloc(k, sizeof *count);
    uint32_t *max_ops = pf_calloc(k, sizeof *max_ops);
    uint32_t **runlist = pf_calloc(k, sizeof *runlist);
    int64_t *seen = pf_malloc(k * k * sizeof *seen);  /* seen[w*k + r]: last pos of r that w has waited for */
    int64_t *want = pf_malloc(k * sizeof *want);      /* per remote worker: highest pos this node needs */
    g->programs = pf_calloc(k, sizeof *g->programs);
    int rc = PF_ENOMEM;
    if (!count || !max_ops || !runlist || !seen || !want || !g->programs) goto done;
    g->compiled_workers = workers;

    for (size_t i = 0; i < n; i++) {
        pf_node *nd = &g->nodes[i];
        nd->pos = count[nd->worker]++;
        nd->signals = 0;
        max_ops[nd->worker] += 1 + nd->npred;
    }
    /* Flags: one block per worker, each padded to a cache line, so signals of one worker never share a line
     * with another's. */
    size_t per_line = 64 / sizeof(pf_flag), blocks = 0;
    for (size_t w = 0; w < k; w++) blocks += (count[w] + per_line - 1) / per_line + 1;
    g->flags_size = blocks * per_line;
    g->flags = pf_calloc(g->flags_size, sizeof *g->flags);
    if (!g->flags) goto done;
    size_t base = 0;
    for (size_t w = 0; w < k; w++) {
        runlist[w] = pf_malloc((count[w] + 1) * sizeof *runlist[w]);
        g->programs[w].ops = pf_malloc((max_ops[w] + 1) * sizeof *g->programs[w].ops);
        if (!runlist[w] || !g->programs[w].ops) goto done;
        for (size_t f = base; f < base + count[w]; f++) atomic_init(&g->flags[f].done, g->stamp);
        max_ops[w] = (uint32_t)base; /* reuse as the block start */
        base += ((count[w] + per_line - 1) / per_line + 1) * per_line;
    }
    for (size_t i = 0; i < n; i++) {
        pf_node *nd = &g->nodes[i];
        runlist[nd->worker][nd->pos] = (uint32_t)i;
        nd->flag = &g->flags[max_ops[nd->worker] + nd->pos];
    }

    for (size_t e = 0; e < k * k; e++) seen[e] = -1;
    g->cross_edges = g->waits = 0;
    for (size_t i = 0; i < n; i++) {
        pf_node *nd = &g->nodes[i];
        size_t w = (size_t)nd->worker;
        for (size_t r = 0; r < k; r++) want[r] = -1;
        for (uint32_t e = 0; e < nd->npred; e++) {
            const pf_node *p = &g->nodes[g->preds[nd->pred_off + e]];
            if ((size_t)p->worker == w) continue;
            g->cross_edges++;
            if ((int64_t)p->pos > want[p->worker]) want[p->worker] = p->pos;
        }
        pf_program *prog = &g->programs[w];
        for (size_t r = 0; r < k; r++) {
            /* Program order on r: waiting for its node at pos m covers every earlier node of r. */
            if (want[r] <= seen[w * k + r]) continue;
            seen[w * k + r] = want[r];
            uint32_t target = runlist[r][want[r]];
            g->nodes[target].signals = 1;
            prog->ops[prog->nops++] = target | PF_OP_WAIT;
            g->waits++;
        }
        prog->ops[prog->nops++] = (uint32_t)i;
    }
    rc = PF_OK;
done:
    if (runlist)
        for (size_t w = 0; w < k; w++) pf_free(runlist[w]);
    pf_free(runlist);
    pf_free(count);
    pf_free(max_ops);
    pf_free(seen);
    pf_free(want);
    if (rc) {
        pf_graph_free_programs(g);
        return pf_error(rc, "out of memory compiling a graph for %d workers", workers);
    }
    return PF_OK;
}
