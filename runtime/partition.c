/* Placement of work nodes on workers: fresh partitions, and stable updates where existing tasks keep their
 * worker and only new ones are placed (Hermann et al. 2009, §3.2: "avoiding moving previously existing tasks"). */
#include "graph.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

static int is_work(const pf_node *n)
{
    return n->kind == PF_NODE_TASK || n->kind == PF_NODE_REDUCER;
}

void pf_worker_loads(const pf_graph *g, int workers, double *out)
{
    for (int w = 0; w < workers; w++) out[w] = 0;
    for (size_t i = 0; i < g->an.nodes.n; i++) {
        const pf_node *n = &g->an.nodes.v[i];
        if (is_work(n) && n->worker >= 0 && n->worker < workers) out[n->worker] += pf_node_cost(g, n);
    }
}

static int by_object_worker(const void *a, const void *b)
{
    const pf_object_load *x = a, *y = b;
    if (x->object != y->object) return x->object < y->object ? -1 : 1;
    return (x->worker > y->worker) - (x->worker < y->worker);
}

size_t pf_object_loads(const pf_graph *g, pf_object_load *out)
{
    size_t m = 0;
    for (size_t i = 0; i < g->an.nodes.n; i++) {
        const pf_node *n = &g->an.nodes.v[i];
        if (is_work(n) && n->worker >= 0 && n->object != PF_NONE)
            out[m++] = (pf_object_load){n->object, n->worker, pf_node_cost(g, n)};
    }
    qsort(out, m, sizeof *out, by_object_worker);
    size_t u = 0;
    for (size_t i = 0; i < m; i++) {
        if (u > 0 && out[u - 1].object == out[i].object && out[u - 1].worker == out[i].worker)
            out[u - 1].cost += out[i].cost;
        else
            out[u++] = out[i];
    }
    return u;
}

int pf_graph_object_workers(const pf_graph *g, int32_t *out, uint32_t owners)
{
    PF_TRY(pf_check_given(g, __func__, "g"));
    if (owners) PF_TRY(pf_check_given(out, __func__, "out"));
    for (uint32_t o = 0; o < owners; o++) out[o] = -1;
    /* the nodes' workers, not g->an.analysed nor the programs: a change recorded or a repartition decided after the
       latest run clears those until the next run, while the placement stands */
    if (g->an.nodes.n == 0) return PF_OK; /* nothing placed */
    pf_object_load *ol = pf_malloc(g->an.nodes.n * sizeof *ol);
    if (!ol) return pf_error(PF_ENOMEM, "pf_graph_object_workers: out of memory");
    size_t m = pf_object_loads(g, ol); /* sorted by object, then worker: the first of equals wins a tie */
    double best = 0;
    for (size_t i = 0; i < m; i++) {
        uint32_t o = ol[i].object;
        if (o >= owners) continue;
        if (out[o] < 0 || ol[i].cost > best) out[o] = ol[i].worker, best = ol[i].cost;
        if (i + 1 < m && ol[i + 1].object != o) best = 0;
    }
    pf_free(ol);
    return PF_OK;
}

/* object -> worker, open addressing (objects are arbitrary 32-bit ids), growing as objects arrive */
typedef struct object_map {
    uint32_t *key;
    int32_t *val;
    size_t cap, n;
} object_map;

static int map_alloc(object_map *m, size_t cap)
{
    m->cap = cap;
    m->n = 0;
    m->key = pf_malloc(cap * sizeof *m->key);
    m->val = pf_malloc(cap * sizeof *m->val);
    if (!m->key || !m->val) return PF_ENOMEM;
    memset(m->key, 0xff, cap * sizeof *m->key);
    return PF_OK;
}

static void map_free(object_map *m)
{
    pf_free(m->key);
    pf_free(m->val);
    m->key = NULL;
    m->val = NULL;
    m->cap = m->n = 0;
}

static int32_t *map_find(object_map *m, uint32_t key)
{
    size_t h = (key * 2654435761u) & (m->cap - 1);
    while (m->key[h] != PF_NONE && m->key[h] != key) h = (h + 1) & (m->cap - 1);
    return m->key[h] == key ? &m->val[h] : NULL;
}

/* The slot of `key`, inserted (value -1) when absent; NULL when out of memory. */
static int32_t *map_slot(object_map *m, uint32_t key)
{
    int32_t *v = map_find(m, key);
    if (v) return v;
    if (2 * (m->n + 1) > m->cap) {
        object_map bigger;
        if (map_alloc(&bigger, m->cap * 2)) {
            map_free(&bigger);
            return NULL;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->key[i] != PF_NONE) *map_slot(&bigger, m->key[i]) = m->val[i];
        map_free(m);
        *m = bigger;
    }
    size_t h = (key * 2654435761u) & (m->cap - 1);
    while (m->key[h] != PF_NONE) h = (h + 1) & (m->cap - 1);
    m->key[h] = key;
    m->val[h] = -1;
    m->n++;
    return &m->val[h];
}

/* What placing a new node needs of the placed ones, kept between updates so that an update touches only the
 * new nodes: where each object lives, each worker's load, the total cost. */
typedef struct pf_placement {
    object_map objects;
    double *load;
    double total;
    int workers;
} pf_placement;

void pf_placement_free(pf_placement *pl)
{
    if (!pl) return;
    map_free(&pl->objects);
    pf_free(pl->load);
    pf_free(pl);
}

/* Adds the placed work nodes from `from` on: an object lives where its first placed node is. */
static int placement_add(pf_graph *g, pf_placement *pl, size_t from)
{
    for (size_t i = from; i < g->an.nodes.n; i++) {
        const pf_node *n = &g->an.nodes.v[i];
        if (!is_work(n) || n->worker < 0) continue;
        double c = pf_node_cost(g, n);
        pl->load[n->worker] += c;
        pl->total += c;
        if (n->object == PF_NONE) continue;
        int32_t *slot = map_slot(&pl->objects, n->object);
        if (!slot) return PF_ENOMEM;
        if (*slot < 0) *slot = n->worker;
    }
    return PF_OK;
}

static pf_placement *placement_build(pf_graph *g, int workers)
{
    pf_placement *pl = pf_calloc(1, sizeof *pl);
    if (!pl) return NULL;
    pl->workers = workers;
    pl->load = pf_calloc((size_t)workers, sizeof *pl->load);
    if (!pl->load || map_alloc(&pl->objects, 64) || placement_add(g, pl, 0)) {
        pf_placement_free(pl);
        return NULL;
    }
    return pl;
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
        const pf_node *p = &g->an.nodes.v[PF_PRED_NODE(g->an.preds.v[n->pred_off + k])];
        if (p->worker >= 0) votes[p->worker]++;
    }
    int best = least_loaded(load, workers);
    for (int w = 0; w < workers; w++)
        if (votes[w] > votes[best] && load[w] + pf_node_cost(g, n) <= 1.1 * share) best = w;
    return best;
}

/* Places the nodes from `from` on that have no worker yet, keeping every other one. */
static int place_new(pf_graph *g, pf_placement *pl, size_t from, pf_partitioner p, uint32_t *added)
{
    int workers = pl->workers;
    uint32_t *votes = pf_calloc((size_t)workers, sizeof *votes);
    if (!votes) return PF_ENOMEM;
    double total = pl->total;
    for (size_t i = from; i < g->an.nodes.n; i++)
        if (is_work(&g->an.nodes.v[i]) && g->an.nodes.v[i].worker < 0) total += pf_node_cost(g, &g->an.nodes.v[i]);
    int rc = PF_OK;
    for (size_t i = from; i < g->an.nodes.n && !rc; i++) {
        pf_node *n = &g->an.nodes.v[i];
        if (!is_work(n) || n->worker >= 0) continue;
        /* objects stay whole under both partitioners: a new task of a placed object joins it; a new object goes
         * (METIS) with most of its placed predecessors, or (owner) to the least loaded worker */
        int32_t *home = n->object != PF_NONE ? map_find(&pl->objects, n->object) : NULL;
        if (home && *home >= 0)
            n->worker = *home;
        else if (p == PF_PART_METIS)
            n->worker = greedy_worker(g, n, pl->load, workers, total / workers, votes);
        else
            n->worker = least_loaded(pl->load, workers);
        if (n->kind == PF_NODE_TASK) (*added)++;
        /* account for it at once, so the rest of its object follows it */
        double c = pf_node_cost(g, n);
        pl->load[n->worker] += c;
        pl->total += c;
        if (n->object != PF_NONE) {
            int32_t *slot = map_slot(&pl->objects, n->object);
            if (!slot) rc = PF_ENOMEM;
            else if (*slot < 0) *slot = n->worker;
        }
    }
    pf_free(votes);
    return rc;
}

int pf_partition(pf_graph *g, int workers, pf_partitioner p)
{
    pf_graph_update up = {.removed = g->pl.removed_since};
    int stable = g->pl.workers == workers && g->pl.partitioner == p;
    /* after appends, the kept nodes kept their workers too: only the nodes since the last placement matter */
    size_t from = stable && g->pl.state && g->pl.state->workers == workers && g->pl.nodes <= g->an.nodes.n
                      ? g->pl.nodes
                      : 0;
    if (from == 0) {
        pf_placement_free(g->pl.state);
        g->pl.state = NULL;
    }
    if (stable) {
        for (size_t i = from; i < g->an.nodes.n; i++) {
            pf_node *n = &g->an.nodes.v[i];
            if (n->kind == PF_NODE_TASK)
                n->worker = g->tasks.v[n->task].worker;
            else if (n->kind == PF_NODE_REDUCER)
                n->worker = g->data.v[n->datum].reducer_worker;
            else
                n->worker = -1;
            if (n->worker >= workers) n->worker = -1;
        }
        if (!g->pl.state && !(g->pl.state = placement_build(g, workers)))
            return pf_error(PF_ENOMEM, "out of memory placing tasks");
        int rc = place_new(g, g->pl.state, from, p, &up.added);
        if (rc) return pf_error(rc, "out of memory placing new tasks");
    } else {
        up.full = 1;
        int rc = p == PF_PART_METIS ? pf_partition_metis(g, workers) : pf_partition_owner(g, workers);
        if (rc) return rc;
        if (!(g->pl.state = placement_build(g, workers))) return pf_error(PF_ENOMEM, "out of memory placing tasks");
    }
    /* keep the placement for the next update; count what changed */
    for (size_t i = from; i < g->an.nodes.n; i++) {
        const pf_node *n = &g->an.nodes.v[i];
        if (n->kind == PF_NODE_TASK) {
            pf_task *t = &g->tasks.v[n->task];
            if (up.full) {
                if (t->worker < 0)
                    up.added++;
                else if (t->worker != n->worker)
                    up.moved++;
            }
            t->worker = n->worker;
        } else if (n->kind == PF_NODE_REDUCER) {
            g->data.v[n->datum].reducer_worker = n->worker;
        }
    }
    g->pl.workers = workers;
    g->pl.partitioner = p;
    g->pl.nodes = g->an.nodes.n;
    g->pl.removed_since = 0;
    g->pl.last_update = up;
    return PF_OK;
}

void pf_placement_measure_start(pf_graph *g)
{
    g->pl.measure_next = MEASURE_RUNS;
    g->pl.measure_first = 1;
}

int pf_placement_measure_run(pf_graph *g)
{
    if (pf_vec_reserve(&g->pl.cost_run, g->an.nodes.n)) return PF_ENOMEM;
    if (g->an.nodes.n) memset(g->pl.cost_run.v, 0, g->an.nodes.n * sizeof *g->pl.cost_run.v);
    return PF_OK;
}

/* Each node's cost becomes the least of the series' runs: a time inflated by preemption or a cold cache never
 * wins. */
int pf_placement_keep_costs(pf_graph *g)
{
    for (size_t i = 0; i < g->an.nodes.n; i++) {
        pf_node *n = &g->an.nodes.v[i];
        double *cost = n->kind == PF_NODE_TASK      ? &g->tasks.v[n->task].cost_meas
                       : n->kind == PF_NODE_REDUCER ? &n->cost_meas
                                                    : NULL;
        if (cost && (g->pl.measure_first || g->pl.cost_run.v[i] < *cost)) *cost = g->pl.cost_run.v[i];
    }
    g->pl.measure_first = 0;
    return --g->pl.measure_next == 0;
}

