/* Dependency analysis per datum (paper 004 §3.1-3.2): read-after-write, write-after-read and write-after-write
 * edges; groups of cumulative writers closed by a reducer node that becomes the datum's writer. */
#include "graph.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

/* A singly linked list cell in a pool: the readers of a datum since its last write, or its open cumulative
 * group (node + access index). */
typedef struct link {
    uint32_t node;
    uint32_t access; /* global access index (cumulative groups) */
    uint32_t next;
} link;

typedef struct analysis {
    pf_graph *g;
    uint32_t *last_writer; /* per datum */
    uint32_t *readers;     /* per datum: head of the reader list */
    uint32_t *group_head;  /* per datum: head of the open cumulative group (newest first) */
    uint32_t *group_len;
    link *pool;
    size_t npool, cap_pool;
    uint32_t *mark;       /* per node: the node currently collecting preds that already lists it */
    size_t *buf_off;      /* per access: offset of its private buffer in bufmem */
    uint32_t *ptr_off;    /* per node: offset of its ptrs in g->ptrs */
} analysis;

static int push_link(analysis *a, uint32_t *head, uint32_t node, uint32_t access)
{
    if (PF_ARRAY_RESERVE(a->pool, a->cap_pool, a->npool + 1)) return PF_ENOMEM;
    a->pool[a->npool] = (link){node, access, *head};
    *head = (uint32_t)a->npool++;
    return PF_OK;
}

/* Adds edge pred -> node (the newest node) unless already present. */
static int add_pred(analysis *a, uint32_t node, uint32_t pred)
{
    if (pred == PF_NONE || a->mark[pred] == node) return PF_OK;
    a->mark[pred] = node;
    pf_graph *g = a->g;
    if (PF_ARRAY_RESERVE(g->preds, g->cap_preds, g->npreds + 1)) return PF_ENOMEM;
    g->preds[g->npreds++] = pred;
    g->nodes[node].npred++;
    return PF_OK;
}

static int new_node(analysis *a, pf_node init, uint32_t *id)
{
    pf_graph *g = a->g;
    if (PF_ARRAY_RESERVE(g->nodes, g->cap_nodes, g->nnodes + 1)) return PF_ENOMEM;
    init.pred_off = (uint32_t)g->npreds;
    init.npred = 0;
    init.worker = -1;
    *id = (uint32_t)g->nnodes;
    g->nodes[g->nnodes++] = init;
    a->mark[*id] = PF_NONE;
    return PF_OK;
}

static int reserve_ptrs(analysis *a, uint32_t node, uint32_t count)
{
    pf_graph *g = a->g;
    if (PF_ARRAY_RESERVE(g->ptrs, g->cap_ptrs, g->nptrs + count)) return PF_ENOMEM;
    a->ptr_off[node] = (uint32_t)g->nptrs;
    g->nodes[node].nptrs = count;
    g->nptrs += count;
    return PF_OK;
}

/* Closes the open cumulative group of datum d with a reducer node: it waits for the group's writers, for the
 * datum's previous writer and for the readers of its old value, and becomes the datum's writer. */
static int close_group(analysis *a, uint32_t d)
{
    pf_graph *g = a->g;
    uint32_t r;
    if (new_node(a, (pf_node){.kind = PF_NODE_REDUCER, .task = PF_NONE, .datum = d, .object = g->data[d].owner,
                              .cost_meas = -1.0},
                 &r))
        return PF_ENOMEM;
    g->nreducers++;
    uint32_t n = a->group_len[d];
    if (reserve_ptrs(a, r, n)) return PF_ENOMEM;
    /* The list is newest first: fill the buffers from the back so they end up in recording order. */
    uint32_t k = n;
    for (uint32_t l = a->group_head[d]; l != PF_NONE; l = a->pool[l].next) {
        g->ptrs[a->ptr_off[r] + --k] = (void *)(uintptr_t)a->pool[l].access; /* fixed up in finish() */
        if (add_pred(a, r, a->pool[l].node)) return PF_ENOMEM;
    }
    if (add_pred(a, r, a->last_writer[d])) return PF_ENOMEM;
    for (uint32_t l = a->readers[d]; l != PF_NONE; l = a->pool[l].next)
        if (add_pred(a, r, a->pool[l].node)) return PF_ENOMEM;
    a->last_writer[d] = r;
    a->readers[d] = PF_NONE;
    a->group_head[d] = PF_NONE;
    a->group_len[d] = 0;
    return PF_OK;
}

static int add_task(analysis *a, uint32_t t)
{
    pf_graph *g = a->g;
    const pf_task *task = &g->tasks[t];
    const pf_access *acc = &g->accesses[task->acc_off];

    /* Reducers of groups this task closes come first in the node list. */
    for (uint32_t k = 0; k < task->nacc; k++)
        if (acc[k].mode != PF_CUMUL && a->group_head[acc[k].data] != PF_NONE)
            if (close_group(a, acc[k].data)) return PF_ENOMEM;

    /* Owner-compute object: the owner of the first datum written, else of the first datum read. */
    uint32_t object = PF_NONE;
    for (uint32_t k = 0; k < task->nacc && object == PF_NONE; k++)
        if (acc[k].mode != PF_READ) object = g->data[acc[k].data].owner;
    if (object == PF_NONE && task->nacc > 0) object = g->data[acc[0].data].owner;

    uint32_t id;
    if (new_node(a, (pf_node){.kind = PF_NODE_TASK, .fn = task->fn, .task = t, .datum = PF_NONE, .object = object},
                 &id))
        return PF_ENOMEM;
    g->task_node[t] = id;
    if (reserve_ptrs(a, id, task->nacc)) return PF_ENOMEM;

    for (uint32_t k = 0; k < task->nacc; k++) {
        uint32_t d = acc[k].data;
        uint32_t global = task->acc_off + k;
        switch (acc[k].mode) {
        case PF_READ:
            if (add_pred(a, id, a->last_writer[d]) || push_link(a, &a->readers[d], id, global)) return PF_ENOMEM;
            break;
        case PF_WRITE:
        case PF_READWRITE:
            if (add_pred(a, id, a->last_writer[d])) return PF_ENOMEM;
            for (uint32_t l = a->readers[d]; l != PF_NONE; l = a->pool[l].next)
                if (add_pred(a, id, a->pool[l].node)) return PF_ENOMEM;
            a->last_writer[d] = id;
            a->readers[d] = PF_NONE;
            break;
        case PF_CUMUL:
            /* Writes a private buffer: no edge now; the reducer orders it. */
            g->nodes[id].has_cumul = 1;
            a->buf_off[global] = g->bufmem_size;
            g->bufmem_size += (g->data[d].size + 63) & ~(size_t)63;
            if (push_link(a, &a->group_head[d], id, global)) return PF_ENOMEM;
            a->group_len[d]++;
            break;
        }
    }
    return PF_OK;
}

/* Resolves pointers (datum memory, private buffers, arguments) and computes levels. */
static int finish(analysis *a)
{
    pf_graph *g = a->g;
    if (g->bufmem_size) {
        g->bufmem = pf_calloc(1, g->bufmem_size);
        if (!g->bufmem) return PF_ENOMEM;
    }
    for (size_t i = 0; i < g->nnodes; i++) {
        pf_node *n = &g->nodes[i];
        n->ptrs = g->ptrs + a->ptr_off[i];
        if (n->kind == PF_NODE_REDUCER) {
            for (uint32_t k = 0; k < n->nptrs; k++) n->ptrs[k] = g->bufmem + a->buf_off[(uintptr_t)n->ptrs[k]];
            continue;
        }
        const pf_task *t = &g->tasks[n->task];
        n->args = t->args_size ? g->args + t->args_off : NULL;
        for (uint32_t k = 0; k < t->nacc; k++) {
            const pf_access *acc = &g->accesses[t->acc_off + k];
            n->ptrs[k] = acc->mode == PF_CUMUL ? (void *)(g->bufmem + a->buf_off[t->acc_off + k])
                                               : g->data[acc->data].ptr;
        }
    }
    /* Levels: longest path from a source; nodes are in topological order. */
    uint32_t nlevels = 0;
    for (size_t i = 0; i < g->nnodes; i++) {
        pf_node *n = &g->nodes[i];
        uint32_t lv = 0;
        for (uint32_t k = 0; k < n->npred; k++) {
            uint32_t p = g->preds[n->pred_off + k];
            PF_ASSERT(p < i);
            if (g->nodes[p].level + 1 > lv) lv = g->nodes[p].level + 1;
        }
        n->level = lv;
        if (lv + 1 > nlevels) nlevels = lv + 1;
    }
    g->nlevels = g->nnodes ? nlevels : 0;
    g->level_off = pf_calloc(g->nlevels + 2, sizeof *g->level_off);
    g->level_nodes = pf_malloc((g->nnodes + 1) * sizeof *g->level_nodes);
    if (!g->level_off || !g->level_nodes) return PF_ENOMEM;
    for (size_t i = 0; i < g->nnodes; i++) g->level_off[g->nodes[i].level + 1]++;
    for (uint32_t l = 0; l < g->nlevels; l++) g->level_off[l + 1] += g->level_off[l];
    uint32_t *fill = pf_malloc((g->nlevels + 1) * sizeof *fill);
    if (!fill) return PF_ENOMEM;
    memcpy(fill, g->level_off, g->nlevels * sizeof *fill);
    for (size_t i = 0; i < g->nnodes; i++) g->level_nodes[fill[g->nodes[i].level]++] = (uint32_t)i;
    pf_free(fill);
    return PF_OK;
}

static void free_scratch(analysis *a)
{
    pf_free(a->last_writer);
    pf_free(a->readers);
    pf_free(a->group_head);
    pf_free(a->group_len);
    pf_free(a->pool);
    pf_free(a->mark);
    pf_free(a->buf_off);
    pf_free(a->ptr_off);
}

int pf_graph_analyse(pf_graph *g)
{
    pf_graph_free_analysis(g);
    size_t nd = g->ndata ? g->ndata : 1;
    size_t max_nodes = g->ntasks + g->naccesses + 1; /* each reducer closes a group of >= 1 access */
    analysis a = {.g = g};
    a.last_writer = pf_malloc(nd * sizeof *a.last_writer);
    a.readers = pf_malloc(nd * sizeof *a.readers);
    a.group_head = pf_malloc(nd * sizeof *a.group_head);
    a.group_len = pf_calloc(nd, sizeof *a.group_len);
    a.mark = pf_malloc(max_nodes * sizeof *a.mark);
    a.buf_off = pf_malloc((g->naccesses + 1) * sizeof *a.buf_off);
    a.ptr_off = pf_malloc(max_nodes * sizeof *a.ptr_off);
    g->task_node = pf_malloc((g->ntasks + 1) * sizeof *g->task_node);
    int rc = PF_ENOMEM;
    if (!a.last_writer || !a.readers || !a.group_head || !a.group_len || !a.mark || !a.buf_off || !a.ptr_off ||
        !g->task_node)
        goto done;
    for (size_t d = 0; d < nd; d++) a.last_writer[d] = a.readers[d] = a.group_head[d] = PF_NONE;
    for (size_t t = 0; t < g->ntasks; t++)
        if (add_task(&a, (uint32_t)t)) goto done;
    for (size_t d = 0; d < g->ndata; d++)
        if (a.group_head[d] != PF_NONE && close_group(&a, (uint32_t)d)) goto done;
    if (finish(&a)) goto done;
    g->analysed = 1;
    rc = PF_OK;
done:
    free_scratch(&a);
    if (rc) {
        pf_graph_free_analysis(g);
        return pf_error(rc, "out of memory analysing a graph of %zu tasks", g->ntasks);
    }
    return PF_OK;
}

void pf_graph_free_analysis(pf_graph *g)
{
    pf_free(g->nodes);
    pf_free(g->preds);
    pf_free(g->task_node);
    pf_free(g->ptrs);
    pf_free(g->bufmem);
    pf_free(g->level_nodes);
    pf_free(g->level_off);
    g->nodes = NULL;
    g->preds = NULL;
    g->task_node = NULL;
    g->ptrs = NULL;
    g->bufmem = NULL;
    g->level_nodes = NULL;
    g->level_off = NULL;
    g->nnodes = g->cap_nodes = g->npreds = g->cap_preds = g->nptrs = g->cap_ptrs = 0;
    g->bufmem_size = 0;
    g->nlevels = g->nreducers = 0;
    g->analysed = 0;
}

double pf_node_cost(const pf_graph *g, const pf_node *n)
{
    if (n->kind == PF_NODE_REDUCER)
        return n->cost_meas >= 0 ? n->cost_meas : 10.0 + (double)g->data[n->datum].size * n->nptrs / 8.0;
    const pf_task *t = &g->tasks[n->task];
    return t->cost_meas >= 0 ? t->cost_meas : t->cost_est;
}
