/* Placement of work nodes on workers: fresh partitions, and stable updates where existing tasks keep their
 * worker and only new ones are placed (paper 004 §3.2: "avoiding moving previously existing tasks"). */
#include "graph.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

static int is_work(const pf_node *n)
{
    return n->kind == PF_NODE_TASK || n->kind == PF_NODE_REDUCER;
}

void pf_worker_loads(const pf_graph *g, int workers, double *out)
{
    for (int w = 0; w < workers; w++) out[w] = 0;
    for (size_t i = 0; i < g->nnodes; i++) {
        const pf_node *n = &g->nodes[i];
        if (is_work(n) && n->worker >= 0 && n->worker < workers) out[n->worker] += pf_node_cost(g, n);
    }
}

/* object -> worker, open addressing (objects are arbitrary 32-bit ids) */
typedef struct object_map {
    uint32_t *key;
    int32_t *val;
    size_t cap;
} object_map;

static int map_init(object_map *m, size_t n)
{
    m->cap = 16;
    while (m->cap < 2 * n + 2) m->cap *= 2;
    m->key = pf_malloc(m->cap * sizeof *m->key);
    m->val = pf_malloc(m->cap * sizeof *m->val);
    if (!m->key || !m->val) return PF_ENOMEM;
    memset(m->key, 0xff, m->cap * sizeof *m->key);
    return PF_OK;
}

static int32_t *map_slot(object_map *m, uint32_t key, int insert)
{
    size_t h = (key * 2654435761u) & (m->cap - 1);
    while (m->key[h] != PF_NONE && m->key[h] != key) h = (h + 1) & (m->cap - 1);
    if (m->key[h] == PF_NONE) {
        if (!insert) return NULL;
        m->key[h] = key;
        m->val[h] = -1;
    }
    return &m->val[h];
}

static void map_free(object_map *m)
{
    pf_free(m->key);
    pf_free(m->val);
}

static int least_loaded(const double *load, int workers)
{
    int best = 0;
    for (int w = 1; w < workers; w++)
        if (load[w] < load[best]) best = w;
    return best;
}

/* A new node under METIS: the worker holding most of its already placed predecessors, unless that would
 * push it well past an even share; then the least loaded worker. */
static int greedy_worker(const pf_graph *g, const pf_node *n, const double *load, int workers, double share,
                         uint32_t *votes)
{
    for (int w = 0; w < workers; w++) votes[w] = 0;
    for (uint32_t k = 0; k < n->npred; k++) {
        const pf_node *p = &g->nodes[PF_PRED_NODE(g->preds[n->pred_off + k])];
        if (p->worker >= 0) votes[p->worker]++;
    }
    int best = least_loaded(load, workers);
    for (int w = 0; w < workers; w++)
        if (votes[w] > votes[best] && load[w] + pf_node_cost(g, n) <= 1.1 * share) best = w;
    return best;
}

/* Places the nodes that have no worker yet, keeping every other one. */
static int place_new(pf_graph *g, int workers, pf_partitioner p, uint32_t *added)
{
    double *load = pf_calloc((size_t)workers, sizeof *load);
    uint32_t *votes = pf_calloc((size_t)workers, sizeof *votes);
    object_map map = {0};
    int rc = PF_ENOMEM;
    if (!load || !votes || map_init(&map, g->nnodes)) goto done;
    pf_worker_loads(g, workers, load);
    double total = 0;
    for (size_t i = 0; i < g->nnodes; i++)
        if (is_work(&g->nodes[i])) total += pf_node_cost(g, &g->nodes[i]);
    /* an object lives where its first placed node is */
    for (size_t i = 0; i < g->nnodes; i++) {
        const pf_node *n = &g->nodes[i];
        if (!is_work(n) || n->worker < 0 || n->object == PF_NONE) continue;
        int32_t *slot = map_slot(&map, n->object, 1);
        if (*slot < 0) *slot = n->worker;
    }
    for (size_t i = 0; i < g->nnodes; i++) {
        pf_node *n = &g->nodes[i];
        if (!is_work(n) || n->worker >= 0) continue;
        if (p == PF_PART_METIS) {
            n->worker = greedy_worker(g, n, load, workers, total / workers, votes);
        } else {
            int32_t *slot = n->object != PF_NONE ? map_slot(&map, n->object, 1) : NULL;
            if (slot && *slot >= 0) {
                n->worker = *slot;
            } else { /* a new object: the least loaded worker */
                n->worker = least_loaded(load, workers);
                if (slot) *slot = n->worker;
            }
        }
        load[n->worker] += pf_node_cost(g, n);
        if (n->kind == PF_NODE_TASK) (*added)++;
    }
    rc = PF_OK;
done:
    pf_free(load);
    pf_free(votes);
    map_free(&map);
    return rc;
}

int pf_partition(pf_graph *g, int workers, pf_partitioner p)
{
    pf_graph_update up = {.removed = g->removed_since};
    int stable = g->placed_workers == workers && g->placed_partitioner == p;
    if (stable) {
        for (size_t i = 0; i < g->nnodes; i++) {
            pf_node *n = &g->nodes[i];
            if (n->kind == PF_NODE_TASK)
                n->worker = g->tasks[n->task].worker;
            else if (n->kind == PF_NODE_REDUCER)
                n->worker = g->data[n->datum].reducer_worker;
            else
                n->worker = -1;
            if (n->worker >= workers) n->worker = -1;
        }
        int rc = place_new(g, workers, p, &up.added);
        if (rc) return pf_error(rc, "out of memory placing new tasks");
    } else {
        up.full = 1;
        int rc = p == PF_PART_METIS ? pf_partition_metis(g, workers) : pf_partition_owner(g, workers);
        if (rc) return rc;
    }
    /* keep the placement for the next update; count what changed */
    for (size_t i = 0; i < g->nnodes; i++) {
        const pf_node *n = &g->nodes[i];
        if (n->kind == PF_NODE_TASK) {
            pf_task *t = &g->tasks[n->task];
            if (up.full) {
                if (t->worker < 0)
                    up.added++;
                else if (t->worker != n->worker)
                    up.moved++;
            }
            t->worker = n->worker;
        } else if (n->kind == PF_NODE_REDUCER) {
            g->data[n->datum].reducer_worker = n->worker;
        }
    }
    g->placed_workers = workers;
    g->placed_partitioner = p;
    g->removed_since = 0;
    g->last_update = up;
    return PF_OK;
}
