/* Loop contexts (contexts.h): shared by the compiler, which places waits by them, and by the partitioners, which
 * weigh a synchronisation by how often it happens. */
#include "contexts.h"

#include "graph.h"

uint32_t pf_ctx_parent(const pf_graph *g, uint32_t loop)
{
    uint32_t p = g->loops.v[loop].parent;
    return p == PF_NONE ? 0 : p + 1;
}

static uint32_t depth(const pf_graph *g, uint32_t ctx)
{
    uint32_t d = 0;
    while (ctx) {
        ctx = pf_ctx_parent(g, ctx - 1);
        d++;
    }
    return d;
}

uint32_t pf_ctx_common(const pf_graph *g, uint32_t a, uint32_t b)
{
    if (a == b) return a;
    uint32_t da = depth(g, a), db = depth(g, b);
    for (; da > db; da--) a = pf_ctx_parent(g, a - 1);
    for (; db > da; db--) b = pf_ctx_parent(g, b - 1);
    while (a != b) {
        a = pf_ctx_parent(g, a - 1);
        b = pf_ctx_parent(g, b - 1);
    }
    return a;
}

double pf_ctx_runs(const pf_graph *g, uint32_t ctx)
{
    double runs = 1;
    for (; ctx; ctx = pf_ctx_parent(g, ctx - 1)) {
        uint32_t it = atomic_load_explicit(&g->loops.v[ctx - 1].last_iterations, memory_order_relaxed);
        if (it > 1) runs *= it;
    }
    return runs;
}

double pf_edge_runs(const pf_graph *g, const pf_node *p, const pf_node *n)
{
    return pf_ctx_runs(g, pf_ctx_common(g, p->ctx, n->ctx));
}
