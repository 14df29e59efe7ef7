/* The barrier executor: each segment of the graph level by level with an OpenMP barrier between levels — the
 * synchronisation-heavy baseline of Hermann et al. 2009 figure 2 (left); loops run as host-side loops, one thread
 * deciding each condition between barriers. */
#include "exec.h"

#include "base/alloc.h"
#include "base/error.h"

#include <omp.h>

static int is_work(const pf_node *n)
{
    return n->kind == PF_NODE_TASK || n->kind == PF_NODE_REDUCER;
}

/* Segments (runs of work nodes between control nodes) and their levels, for the nodes from `from` on. */
static int build_levels(pf_graph *g, size_t from)
{
    size_t n = g->an.nodes.n;
    if (n + 2 > g->lv.cap) {
        size_t cap = (n + 2) * 2;
        uint32_t *ln = pf_realloc(g->lv.level_nodes, g->lv.cap * sizeof *ln, cap * sizeof *ln);
        if (ln) g->lv.level_nodes = ln;
        uint32_t *lo = ln ? pf_realloc(g->lv.level_off, g->lv.cap * sizeof *lo, cap * sizeof *lo) : NULL;
        if (lo) g->lv.level_off = lo;
        pf_segment *sg = lo ? pf_realloc(g->lv.segments, g->lv.cap * sizeof *sg, cap * sizeof *sg) : NULL;
        if (sg) g->lv.segments = sg;
        uint32_t *ns = sg ? pf_realloc(g->lv.node_segment, g->lv.cap * sizeof *ns, cap * sizeof *ns) : NULL;
        if (!ns) return PF_ENOMEM;
        g->lv.node_segment = ns;
        g->lv.cap = cap;
    }
    /* Appended nodes start a segment of their own: the kept levels stay valid, and the executor merely puts one
     * more barrier between the old nodes and the new. */
    uint32_t nseg = 0, nlev = 0, fill = 0;
    size_t i = 0;
    if (from > 0) {
        nseg = g->lv.nsegments;
        nlev = g->lv.nlevels;
        fill = nlev ? g->lv.level_off[nlev] : 0;
        i = from;
    }
    uint32_t *level = pf_malloc((n - i + 1) * sizeof *level);
    uint32_t *cursor = pf_malloc((n - i + 1) * sizeof *cursor);
    if (!level || !cursor) {
        pf_free(level);
        pf_free(cursor);
        return PF_ENOMEM;
    }
    const size_t first = i;
    while (i < n) {
        if (!is_work(&g->an.nodes.v[i])) {
            g->lv.node_segment[i++] = PF_NONE;
            continue;
        }
        size_t end = i;
        while (end < n && is_work(&g->an.nodes.v[end])) end++;
        uint32_t depth = 0;
        for (size_t j = i; j < end; j++) {
            const pf_node *nd = &g->an.nodes.v[j];
            uint32_t lv = 0;
            for (uint32_t k = 0; k < nd->npred; k++) {
                uint32_t p = g->an.preds.v[nd->pred_off + k];
                if ((p & PF_PRED_CARRIED) || p < i) continue; /* earlier segments are complete */
                PF_ASSERT(p < j);
                if (level[p - first] + 1 > lv) lv = level[p - first] + 1;
            }
            level[j - first] = lv;
            if (lv + 1 > depth) depth = lv + 1;
            g->lv.node_segment[j] = nseg;
        }
        /* counting sort of the segment's nodes by level, stable in node order */
        for (uint32_t l = 0; l < depth; l++) cursor[l] = 0;
        for (size_t j = i; j < end; j++) cursor[level[j - first]]++;
        for (uint32_t l = 0, pos = fill; l < depth; l++) {
            uint32_t c = cursor[l];
            g->lv.level_off[nlev + l] = pos;
            cursor[l] = pos;
            pos += c;
        }
        for (size_t j = i; j < end; j++) g->lv.level_nodes[cursor[level[j - first]]++] = (uint32_t)j;
        g->lv.segments[nseg++] = (pf_segment){(uint32_t)i, (uint32_t)end, nlev, nlev + depth};
        fill += (uint32_t)(end - i);
        nlev += depth;
        i = end;
    }
    g->lv.level_off[nlev] = fill;
    g->lv.nlevels = nlev;
    g->lv.nsegments = nseg;
    pf_free(level);
    pf_free(cursor);
    return PF_OK;
}

int pf_barrier_levels_stale(const pf_graph *g)
{
    return g->lv.generation != g->an.generation || g->lv.built != g->an.nodes.n;
}

int pf_barrier_levels_update(pf_graph *g)
{
    pf_barrier_levels *lv = &g->lv;
    if (!pf_barrier_levels_stale(g)) return PF_OK;
    size_t from = lv->generation == g->an.generation && lv->built <= g->an.nodes.n ? lv->built : 0;
    if (build_levels(g, from)) return PF_ENOMEM;
    lv->generation = g->an.generation;
    lv->built = g->an.nodes.n;
    return PF_OK;
}

void pf_barrier_levels_free(pf_barrier_levels *lv)
{
    pf_free(lv->level_nodes);
    pf_free(lv->level_off);
    pf_free(lv->segments);
    pf_free(lv->node_segment);
    *lv = (pf_barrier_levels){0};
}

void pf_exec_barrier(const pf_exec_ctx *c)
{
    pf_graph *g = c->g;
    const int instrumented = c->trace || c->measure;
    size_t next[2]; /* control decisions, double-buffered: a thread may read one while the next is written */
#pragma omp parallel num_threads(c->workers)
    {
        const int w = omp_get_thread_num();
        unsigned step = 0;
        for (size_t i = 0; i < g->an.nodes.n;) {
            const pf_node *n = &g->an.nodes.v[i];
            if (n->kind == PF_NODE_TASK || n->kind == PF_NODE_REDUCER) {
                const pf_segment *s = &g->lv.segments[g->lv.node_segment[i]];
                for (uint32_t l = s->level_begin; l < s->level_end; l++) {
                    const int lo = (int)g->lv.level_off[l], hi = (int)g->lv.level_off[l + 1];
#pragma omp for schedule(static)
                    for (int k = lo; k < hi; k++) {
                        pf_node *nd = &g->an.nodes.v[g->lv.level_nodes[k]];
                        if (instrumented)
                            pf_exec_node_instrumented(c, nd, w);
                        else
                            pf_node_exec(g, nd, w);
                    }
                }
                i = s->node_end;
            } else {
#pragma omp single
                next[step & 1] = pf_control_next(g, i);
                i = next[step++ & 1];
            }
        }
    }
}
