/* METIS k-way partitioning of the task graph (paper 004 §3.2): a vertex per task or reducer weighted by its
 * cost (measured during the previous run, estimated before), an edge per dependency weighted by the bytes of
 * the datum it carries. Loop control is replicated, so it is no vertex; loop bodies are partitioned like any
 * other tasks. The seed is fixed, so a graph always gets the same partition. */
#include "graph.h"

#include "base/alloc.h"
#include "base/error.h"

#include <metis.h>
#include <stdlib.h>

typedef struct wedge {
    idx_t u, v, w;
} wedge;

static int cmp_edge(const void *a, const void *b)
{
    const wedge *x = a, *y = b;
    if (x->u != y->u) return x->u < y->u ? -1 : 1;
    if (x->v != y->v) return x->v < y->v ? -1 : 1;
    return (x->w > y->w) - (x->w < y->w);
}

static int is_work(const pf_node *n)
{
    return n->kind == PF_NODE_TASK || n->kind == PF_NODE_REDUCER;
}

/* Bytes flowing along p -> n: the largest datum both touch (a reducer touches the datum it writes). */
static size_t edge_bytes(const pf_graph *g, const pf_node *p, const pf_node *n)
{
    size_t best = 0;
    const pf_task *tp = p->kind == PF_NODE_TASK ? &g->tasks[p->task] : NULL;
    const pf_task *tn = n->kind == PF_NODE_TASK ? &g->tasks[n->task] : NULL;
    uint32_t np = tp ? tp->nacc : 1, nn = tn ? tn->nacc : 1;
    for (uint32_t i = 0; i < np; i++) {
        uint32_t dp = tp ? g->accesses[tp->acc_off + i].data : p->datum;
        for (uint32_t j = 0; j < nn; j++) {
            uint32_t dn = tn ? g->accesses[tn->acc_off + j].data : n->datum;
            if (dp == dn && g->data[dp].size > best) best = g->data[dp].size;
        }
    }
    return best;
}

int pf_partition_metis(pf_graph *g, int workers)
{
    size_t n = g->nnodes;
    idx_t *vid = pf_malloc((n + 1) * sizeof *vid); /* node -> vertex, -1 for control nodes */
    if (!vid) return pf_error(PF_ENOMEM, "out of memory partitioning with METIS");
    idx_t nv = 0;
    size_t ne = 0;
    for (size_t i = 0; i < n; i++) {
        const pf_node *nd = &g->nodes[i];
        vid[i] = is_work(nd) ? nv++ : -1;
        g->nodes[i].worker = -1;
        if (is_work(nd)) ne += nd->npred;
    }
    if (workers == 1 || nv < 16 * workers) {
        /* too small for METIS to coarsen (it complains on stdout): owner-compute places such graphs well */
        pf_free(vid);
        return pf_partition_owner(g, workers);
    }
    wedge *edges = pf_malloc((2 * ne + 1) * sizeof *edges);
    idx_t *xadj = pf_calloc((size_t)nv + 1, sizeof *xadj);
    idx_t *adjncy = pf_malloc((2 * ne + 1) * sizeof *adjncy);
    idx_t *adjwgt = pf_malloc((2 * ne + 1) * sizeof *adjwgt);
    idx_t *vwgt = pf_malloc((size_t)nv * sizeof *vwgt);
    idx_t *part = pf_malloc((size_t)nv * sizeof *part);
    int rc = PF_ENOMEM;
    if (!vid || !edges || !xadj || !adjncy || !adjwgt || !vwgt || !part) goto done;

    double total = 0;
    for (size_t i = 0; i < n; i++)
        if (vid[i] >= 0) total += pf_node_cost(g, &g->nodes[i]);
    double scale = total > 1e8 ? total / 1e8 : 1.0; /* keep the weight sum far from idx_t's limit */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const pf_node *nd = &g->nodes[i];
        if (vid[i] < 0) continue;
        double c = pf_node_cost(g, nd) / scale;
        vwgt[vid[i]] = c < 1 ? 1 : (idx_t)c;
        for (uint32_t k = 0; k < nd->npred; k++) {
            uint32_t p = PF_PRED_NODE(g->preds[nd->pred_off + k]);
            if (vid[p] < 0 || vid[p] == vid[i]) continue;
            size_t bytes = edge_bytes(g, &g->nodes[p], nd) / 8;
            idx_t w = bytes < 1 ? 1 : bytes > (1u << 20) ? (1 << 20) : (idx_t)bytes;
            edges[m++] = (wedge){vid[i], vid[p], w};
            edges[m++] = (wedge){vid[p], vid[i], w};
        }
    }
    /* METIS wants a symmetric graph without duplicate edges: sort and keep one (the heaviest) per pair */
    qsort(edges, m, sizeof *edges, cmp_edge);
    size_t out = 0;
    for (size_t e = 0; e < m; e++) {
        if (out > 0 && edges[out - 1].u == edges[e].u && edges[out - 1].v == edges[e].v) {
            edges[out - 1].w = edges[e].w; /* sorted by weight last: the heaviest wins */
            continue;
        }
        edges[out++] = edges[e];
    }
    for (size_t e = 0; e < out; e++) {
        xadj[edges[e].u + 1]++;
        adjncy[e] = edges[e].v;
        adjwgt[e] = edges[e].w;
    }
    for (idx_t v = 0; v < nv; v++) xadj[v + 1] += xadj[v];

    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 7; /* reproducible partitions */
    options[METIS_OPTION_NUMBERING] = 0;
    idx_t ncon = 1, nparts = workers, objval = 0;
    int mrc = METIS_PartGraphKway(&nv, &ncon, xadj, adjncy, vwgt, NULL, adjwgt, &nparts, NULL, NULL, options, &objval,
                                  part);
    if (mrc != METIS_OK) {
        rc = pf_error(PF_EINVAL, "METIS_PartGraphKway failed (code %d) on %ld vertices, %d parts", mrc, (long)nv,
                      workers);
        goto done;
    }
    for (idx_t v = 0; v < nv; v++)
        if (part[v] < 0 || part[v] >= workers) {
            rc = pf_error(PF_EINVAL, "METIS_PartGraphKway returned part %ld for %d parts", (long)part[v], workers);
            goto done;
        }
    for (size_t i = 0; i < n; i++)
        if (vid[i] >= 0) g->nodes[i].worker = (int32_t)part[vid[i]];
    rc = PF_OK;
done:
    pf_free(vid);
    pf_free(edges);
    pf_free(xadj);
    pf_free(adjncy);
    pf_free(adjwgt);
    pf_free(vwgt);
    pf_free(part);
    if (rc == PF_ENOMEM) return pf_error(rc, "out of memory partitioning with METIS");
    return rc;
}
