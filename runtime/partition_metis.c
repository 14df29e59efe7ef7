/* METIS k-way partitioning (Hermann et al. 2009, §3.2) of the task graph contracted by object: a vertex per object (the
 * tasks and reducers it owns; a task with no owner is a vertex of its own) weighted by their cost (measured
 * during a run, estimated before), an edge per pair of vertices that a dependency joins, weighted by the bytes of
 * the data flowing along those dependencies. Objects stay whole, so a repartition moves objects with their data
 * (the owner-compute rule) while METIS minimises the data crossing workers. Loop control is replicated, so it is
 * no vertex. The seed is fixed: a graph and its costs always get the same partition. */
#include "contexts.h"
#include "graph.h"

#include "base/alloc.h"
#include "base/error.h"

#include <metis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct wedge {
    idx_t u, v;
    uint64_t w;
} wedge;

static int cmp_edge(const void *a, const void *b)
{
    const wedge *x = a, *y = b;
    if (x->u != y->u) return x->u < y->u ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

typedef struct node_key {
    uint32_t object; /* PF_NONE: a task of no object */
    uint32_t node;
} node_key;

static int by_object(const void *a, const void *b)
{
    const node_key *x = a, *y = b;
    if (x->object != y->object) return x->object < y->object ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

static int is_work(const pf_node *n)
{
    return n->kind == PF_NODE_TASK || n->kind == PF_NODE_REDUCER;
}

/* Bytes flowing along p -> n: the largest datum both touch (a reducer touches the datum it writes). */
static size_t edge_bytes(const pf_graph *g, const pf_node *p, const pf_node *n)
{
    size_t best = 0;
    const pf_task *tp = p->kind == PF_NODE_TASK ? &g->tasks.v[p->task] : NULL;
    const pf_task *tn = n->kind == PF_NODE_TASK ? &g->tasks.v[n->task] : NULL;
    uint32_t np = tp ? tp->nacc : 1, nn = tn ? tn->nacc : 1;
    for (uint32_t i = 0; i < np; i++) {
        uint32_t dp = tp ? g->accesses.v[tp->acc_off + i].data : p->datum;
        for (uint32_t j = 0; j < nn; j++) {
            uint32_t dn = tn ? g->accesses.v[tn->acc_off + j].data : n->datum;
            if (dp == dn && g->data.v[dp].size > best) best = g->data.v[dp].size;
        }
    }
    return best;
}

/* Vertices: vid[node] for work nodes (-1 for control), one per object in object order, then one per task of no
 * object. Returns the vertex count. */
static idx_t contract(const pf_graph *g, node_key *keys, idx_t *vid)
{
    size_t m = 0;
    for (size_t i = 0; i < g->an.nodes.n; i++) {
        vid[i] = -1;
        if (is_work(&g->an.nodes.v[i])) keys[m++] = (node_key){g->an.nodes.v[i].object, (uint32_t)i};
    }
    qsort(keys, m, sizeof *keys, by_object);
    idx_t nv = 0;
    for (size_t k = 0; k < m; k++) {
        int same = k > 0 && keys[k].object != PF_NONE && keys[k].object == keys[k - 1].object;
        vid[keys[k].node] = same ? nv - 1 : nv++;
    }
    return nv;
}

/* Says once per graph, unless quiet, that METIS got too small a graph; counts every time. */
static void note_small(pf_graph *g, idx_t nv, int workers)
{
    g->pl.metis_small++;
    if (g->quiet || g->pl.metis_small_said) return;
    g->pl.metis_small_said = 1;
    fprintf(stderr,
            "physflow: METIS partitioner: %ld objects for %d workers is too small a graph for METIS; "
            "owner-compute places it instead\n",
            (long)nv, workers);
}

/* An object heavier than an even share of what is left gets a worker of its own, heaviest first: METIS's recursive
 * bisection puts such a vertex alone on one side and then leaves most of that side's parts empty (it prints
 * "Cannot bisect a graph with 0 vertices"), which at 16 workers emptied 7 of them. Of the vertices to place
 * (part[v] == -1), marks part[v] = 0, 1, ... for the peeled ones; returns how many were peeled (at most
 * workers - 1). */
static idx_t peel_heavy(const idx_t *vwgt, idx_t nv, int workers, idx_t *part)
{
    double rest = 0;
    for (idx_t v = 0; v < nv; v++)
        if (part[v] == -1) rest += (double)vwgt[v]; /* the vertices to place; others are -2 */
    idx_t peeled = 0;
    while (peeled < workers - 1) {
        idx_t best = -1;
        for (idx_t v = 0; v < nv; v++)
            if (part[v] == -1 && (best < 0 || vwgt[v] > vwgt[best])) best = v;
        if (best < 0 || (double)vwgt[best] <= rest / (double)(workers - peeled)) break;
        part[best] = peeled++;
        rest -= (double)vwgt[best];
    }
    return peeled;
}

/* Parts heavy .. heavy + nparts - 1 for the ns vertices orig[], cut in their order into runs of about equal
 * weight (the order of the objects, as owner-compute cuts them). */
static void split_in_order(const idx_t *orig, idx_t ns, const idx_t *w, idx_t nparts, idx_t heavy, idx_t *part)
{
    double total = 0, acc = 0;
    for (idx_t s = 0; s < ns; s++) total += (double)w[s];
    for (idx_t s = 0; s < ns; s++) {
        idx_t k = total > 0 ? (idx_t)((acc + 0.5 * (double)w[s]) * (double)nparts / total) : s * nparts / ns;
        part[orig[s]] = heavy + (k < nparts ? k : nparts - 1);
        acc += (double)w[s];
    }
}

/* METIS k-way over the vertices not peeled (part[v] == -1), into parts heavy .. workers - 1, on the subgraph of
 * the deduplicated symmetric edge list `edges` (sorted by u, then v). xadj/adjncy/adjwgt are scratch of nv + 1
 * and nedges entries. */
static int partition_rest(idx_t nv, const wedge *edges, size_t nedges, const idx_t *vwgt, int workers,
                          idx_t heavy, idx_t *part, idx_t *xadj, idx_t *adjncy, idx_t *adjwgt)
{
    idx_t nparts = workers - heavy;
    idx_t *sub = pf_malloc(((size_t)nv + 1) * sizeof *sub);    /* vertex -> subgraph vertex, or -1 */
    idx_t *orig = pf_malloc(((size_t)nv + 1) * sizeof *orig);  /* subgraph vertex -> vertex */
    idx_t *swgt = pf_malloc(((size_t)nv + 1) * sizeof *swgt);
    idx_t *spart = pf_malloc(((size_t)nv + 1) * sizeof *spart);
    int rc = PF_ENOMEM;
    if (!sub || !orig || !swgt || !spart) goto done;
    idx_t ns = 0;
    for (idx_t v = 0; v < nv; v++) {
        sub[v] = part[v] == -1 ? ns : -1;
        if (part[v] == -1) {
            orig[ns] = v;
            swgt[ns++] = vwgt[v];
        }
    }
    rc = PF_OK;
    if (nparts == 1 || ns < 2 * nparts) { /* METIS cannot coarsen so few: cost-even runs in vertex order */
        split_in_order(orig, ns, swgt, nparts, heavy, part);
        goto done;
    }
    memset(xadj, 0, ((size_t)ns + 1) * sizeof *xadj);
    size_t m = 0;
    for (size_t e = 0; e < nedges; e++) {
        if (sub[edges[e].u] < 0 || sub[edges[e].v] < 0) continue;
        xadj[sub[edges[e].u] + 1]++;
        adjncy[m] = sub[edges[e].v];
        adjwgt[m++] = edges[e].w > (1u << 24) ? (1 << 24) : (idx_t)edges[e].w;
    }
    for (idx_t s = 0; s < ns; s++) xadj[s + 1] += xadj[s];

    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 7; /* reproducible partitions */
    options[METIS_OPTION_NUMBERING] = 0;
    idx_t ncon = 1, objval = 0;
    int mrc = METIS_PartGraphKway(&ns, &ncon, xadj, adjncy, swgt, NULL, adjwgt, &nparts, NULL, NULL, options,
                                  &objval, spart);
    if (mrc != METIS_OK) {
        rc = pf_error(PF_EINVAL, "METIS_PartGraphKway failed (code %d) on %ld vertices, %ld parts", mrc, (long)ns,
                      (long)nparts);
        goto done;
    }
    for (idx_t s = 0; s < ns && !rc; s++) {
        if (spart[s] < 0 || spart[s] >= nparts)
            rc = pf_error(PF_EINVAL, "METIS_PartGraphKway returned part %ld for %ld parts", (long)spart[s],
                          (long)nparts);
        else
            part[orig[s]] = heavy + spart[s];
    }
done:
    pf_free(sub);
    pf_free(orig);
    pf_free(swgt);
    pf_free(spart);
    return rc;
}

/* Vertices with part[v] == -1 into `parts` parts: the heaviest alone, METIS for the rest. */
static int split(idx_t nv, const wedge *edges, size_t nedges, const idx_t *vwgt, int parts, idx_t *part,
                 idx_t *xadj, idx_t *adjncy, idx_t *adjwgt)
{
    idx_t heavy = peel_heavy(vwgt, nv, parts, part);
    return partition_rest(nv, edges, nedges, vwgt, parts, heavy, part, xadj, adjncy, adjwgt);
}

/* Every vertex to one of `workers` parts. Workers in groups (MPI ranks: G consecutive ids each) are split by group
 * first, then each group's vertices among its workers, so that most of the data crossing workers stays inside a
 * group: a k-way partition's part numbers say nothing of which parts are neighbours. */
static int split_groups(const pf_graph *g, idx_t nv, const wedge *edges, size_t nedges, const idx_t *vwgt,
                        int workers, idx_t *part, idx_t *xadj, idx_t *adjncy, idx_t *adjwgt)
{
    int groups = g->pl.groups > 1 && workers % g->pl.groups == 0 ? g->pl.groups : 1, k = workers / groups;
    for (idx_t v = 0; v < nv; v++) part[v] = -1;
    if (groups == 1 || k == 1) return split(nv, edges, nedges, vwgt, workers, part, xadj, adjncy, adjwgt);
    idx_t *group = pf_malloc(((size_t)nv + 1) * sizeof *group);
    if (!group) return PF_ENOMEM;
    int rc = split(nv, edges, nedges, vwgt, groups, part, xadj, adjncy, adjwgt);
    if (!rc) memcpy(group, part, (size_t)nv * sizeof *group);
    for (int r = 0; r < groups && !rc; r++) {
        for (idx_t v = 0; v < nv; v++) part[v] = group[v] == r ? -1 : -2;
        if (!(rc = split(nv, edges, nedges, vwgt, k, part, xadj, adjncy, adjwgt)))
            for (idx_t v = 0; v < nv; v++)
                if (group[v] == r) group[v] = groups + r * k + part[v]; /* above every group number: done */
    }
    for (idx_t v = 0; v < nv && !rc; v++) part[v] = group[v] - groups;
    pf_free(group);
    return rc;
}

int pf_partition_metis(pf_graph *g, int workers)
{
    size_t n = g->an.nodes.n;
    node_key *keys = pf_malloc((n + 1) * sizeof *keys);
    idx_t *vid = pf_malloc((n + 1) * sizeof *vid);
    if (!keys || !vid) {
        pf_free(keys);
        pf_free(vid);
        return pf_error(PF_ENOMEM, "out of memory partitioning with METIS");
    }
    idx_t nv = contract(g, keys, vid);
    pf_free(keys);
    /* fewer than two objects per worker leaves METIS nothing to balance (and it cannot coarsen): owner-compute,
     * which splits the same objects by cost, places such graphs as well */
    if (workers > 1 && nv < 2 * workers) note_small(g, nv, workers);
    if (workers == 1 || nv < 2 * workers) {
        pf_free(vid);
        return pf_partition_owner(g, workers);
    }
    size_t ne = 0;
    for (size_t i = 0; i < n; i++)
        if (vid[i] >= 0) ne += g->an.nodes.v[i].npred;
    wedge *edges = pf_malloc((2 * ne + 1) * sizeof *edges);
    idx_t *xadj = pf_calloc((size_t)nv + 1, sizeof *xadj);
    idx_t *adjncy = pf_malloc((2 * ne + 1) * sizeof *adjncy);
    idx_t *adjwgt = pf_malloc((2 * ne + 1) * sizeof *adjwgt);
    idx_t *vwgt = pf_calloc((size_t)nv, sizeof *vwgt);
    double *vcost = pf_calloc((size_t)nv, sizeof *vcost);
    idx_t *part = pf_malloc((size_t)nv * sizeof *part);
    int rc = PF_ENOMEM;
    if (!edges || !xadj || !adjncy || !adjwgt || !vwgt || !vcost || !part) goto done;

    double total = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const pf_node *nd = &g->an.nodes.v[i];
        if (vid[i] < 0) continue;
        double c = pf_node_cost(g, nd);
        vcost[vid[i]] += c;
        total += c;
        for (uint32_t k = 0; k < nd->npred; k++) {
            uint32_t p = PF_PRED_NODE(g->an.preds.v[nd->pred_off + k]);
            if (vid[p] < 0 || vid[p] == vid[i]) continue;
            /* a result crossing parts inside a loop crosses every iteration */
            uint64_t w = (uint64_t)((double)(edge_bytes(g, &g->an.nodes.v[p], nd) / 8 + 1) *
                                    pf_edge_runs(g, &g->an.nodes.v[p], nd));
            edges[m++] = (wedge){vid[i], vid[p], w};
            edges[m++] = (wedge){vid[p], vid[i], w};
        }
    }
    double scale = total > 1e8 ? total / 1e8 : 1.0; /* keep the weight sum far from idx_t's limit */
    for (idx_t v = 0; v < nv; v++) {
        double c = vcost[v] / scale;
        vwgt[v] = c < 1 ? 1 : (idx_t)c;
    }
    /* METIS wants a symmetric graph without duplicate edges: the dependencies between two objects add up */
    qsort(edges, m, sizeof *edges, cmp_edge);
    size_t out = 0;
    for (size_t e = 0; e < m; e++) {
        if (out > 0 && edges[out - 1].u == edges[e].u && edges[out - 1].v == edges[e].v)
            edges[out - 1].w += edges[e].w;
        else
            edges[out++] = edges[e];
    }
    rc = split_groups(g, nv, edges, out, vwgt, workers, part, xadj, adjncy, adjwgt);
    if (rc) goto done;
    for (size_t i = 0; i < n; i++) g->an.nodes.v[i].worker = vid[i] >= 0 ? (int32_t)part[vid[i]] : -1;
    rc = PF_OK;
done:
    pf_free(vid);
    pf_free(edges);
    pf_free(xadj);
    pf_free(adjncy);
    pf_free(adjwgt);
    pf_free(vwgt);
    pf_free(vcost);
    pf_free(part);
    if (rc == PF_ENOMEM) return pf_error(rc, "out of memory partitioning with METIS");
    return rc;
}
