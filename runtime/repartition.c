/* Repartitioning (Hermann et al. 2009, §3.2, "limit partitioning changes"): new tasks are placed next to the old ones,
 * which keep their worker; once costs have been measured on the changed graph — after a structural update,
 * or when the measured imbalance of recent runs grows — the graph is partitioned afresh, the new parts are
 * relabelled to overlap the current placement most, and the result is kept only when the policy says it pays:
 * the estimated gain per run over a horizon against the partitioning and recompilation it costs. Objects stay
 * whole (both partitioners place objects), so what moves is whole objects with their tasks and reducers. A kept
 * repartition is then put on trial against the placement it replaced (repartition.h), since the estimate can
 * be wrong where costs are not additive: caches, memory traffic, the synchronisations of moved objects. */
#include "contexts.h"
#include "counters.h"
#include "graph.h"

#include "base/alloc.h"
#include "base/clock.h"
#include "base/check.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

/* The policy's constants. A repartition must shorten the estimated makespan by GAIN_MIN of itself (hysteresis:
 * the same costs never make two partitions each better than the other) and repay its cost within HORIZON runs.
 * IMBALANCE_MAX (max / mean busy time, averaged over the runs since the latest decision) and COOLDOWN runs after
 * a decision trigger a new measurement and decision without a structural change. */
#define GAIN_MIN 0.05
#define HORIZON 50.0
#define IMBALANCE_MAX 1.15

typedef struct overlap {
    int32_t from, to; /* new part, old worker */
    double cost;
} overlap;

static int by_pair(const void *a, const void *b)
{
    const overlap *x = a, *y = b;
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    return (x->to > y->to) - (x->to < y->to);
}

static int by_cost_desc(const void *a, const void *b)
{
    const overlap *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return by_pair(a, b);
}

static int is_work(const pf_node *n)
{
    return n->kind == PF_NODE_TASK || n->kind == PF_NODE_REDUCER;
}

/* Renames the new parts (node.worker) so that each keeps as much cost as possible on the worker that ran it
 * (old[node]): the pairs (new part, old worker) by shared cost, heaviest first, matched greedily; parts left
 * unmatched take the workers left, in order. A partition equal to the old one up to renaming moves nothing. */
int pf_repartition_relabel(pf_graph *g, const int32_t *old, int workers)
{
    size_t n = g->an.nodes.n, m = 0;
    overlap *ov = pf_malloc((n + 1) * sizeof *ov);
    int32_t *name = pf_malloc((size_t)workers * sizeof *name);
    uint8_t *taken = pf_calloc((size_t)workers, 1);
    if (!ov || !name || !taken) {
        pf_free(ov), pf_free(name), pf_free(taken);
        return PF_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const pf_node *nd = &g->an.nodes.v[i];
        if (is_work(nd) && nd->worker >= 0 && old[i] >= 0)
            ov[m++] = (overlap){nd->worker, old[i], pf_node_cost(g, nd) + 1e-3}; /* an unmeasured node counts */
    }
    qsort(ov, m, sizeof *ov, by_pair);
    size_t u = 0;
    for (size_t k = 0; k < m; k++) {
        if (u > 0 && ov[u - 1].from == ov[k].from && ov[u - 1].to == ov[k].to)
            ov[u - 1].cost += ov[k].cost;
        else
            ov[u++] = ov[k];
    }
    qsort(ov, u, sizeof *ov, by_cost_desc);
    for (int w = 0; w < workers; w++) name[w] = -1;
    for (size_t k = 0; k < u; k++)
        if (name[ov[k].from] < 0 && !taken[ov[k].to]) {
            name[ov[k].from] = ov[k].to;
            taken[ov[k].to] = 1;
        }
    int next = 0;
    for (int w = 0; w < workers; w++) {
        if (name[w] >= 0) continue;
        while (taken[next]) next++;
        name[w] = next;
        taken[next] = 1;
    }
    for (size_t i = 0; i < n; i++) {
        pf_node *nd = &g->an.nodes.v[i];
        if (is_work(nd) && nd->worker >= 0) nd->worker = name[nd->worker];
    }
    pf_free(ov), pf_free(name), pf_free(taken);
    return PF_OK;
}

/* The estimated time of one run under the current placement (node.worker): a list schedule in graph order —
 * each worker runs its nodes in that order, as its program does; a node starts when its worker is free and its
 * predecessors have finished, plus SYNC_NS for each time a predecessor's result crosses workers in a run (once
 * per iteration inside a loop: a group split over workers joins them twice per CG iteration); control nodes
 * only pass their predecessors' finish on. A loop body counts once with its nodes' costs over all iterations
 * (the measured costs are), so a group's per-iteration reductions appear as the join points they are.
 * Loop-carried edges are left out. This sees what per-worker sums do not: a worker idle while another finishes
 * what it needs. */
#define SYNC_NS 1000.0

/* A decision's scratch: each node's cost (pf_node_cost, taken once: a decision simulates hundreds of placements),
 * finish times (a node count of entries) and worker clocks (a worker count). */
typedef struct sim_buf {
    double *cost, *finish, *clock;
} sim_buf;

static double simulate(const pf_graph *g, int workers, sim_buf *s)
{
    double *finish = s->finish, *clock = s->clock;
    for (int w = 0; w < workers; w++) clock[w] = 0;
    double end = 0;
    for (size_t i = 0; i < g->an.nodes.n; i++) {
        const pf_node *nd = &g->an.nodes.v[i];
        int w = is_work(nd) ? nd->worker : -1;
        double ready = w >= 0 ? clock[w] : 0;
        for (uint32_t k = 0; k < nd->npred; k++) {
            uint32_t pr = g->an.preds.v[nd->pred_off + k];
            if (pr & PF_PRED_CARRIED) continue;
            const pf_node *p = &g->an.nodes.v[pr];
            double t = finish[pr] + (w >= 0 && is_work(p) && p->worker != w ? SYNC_NS * pf_edge_runs(g, p, nd) : 0);
            if (t > ready) ready = t;
        }
        finish[i] = w >= 0 ? ready + s->cost[i] : ready;
        if (w >= 0) clock[w] = finish[i];
        if (finish[i] > end) end = finish[i];
    }
    return end;
}

/* A bound no placement can beat: the larger of an even share of the total cost and the longest dependency
 * chain (the schedule with a worker per node and no synchronisation cost). */
static double lower_bound(const pf_graph *g, int workers, sim_buf *s)
{
    double *finish = s->finish;
    double total = 0, chain = 0;
    for (size_t i = 0; i < g->an.nodes.n; i++) {
        const pf_node *nd = &g->an.nodes.v[i];
        double ready = 0;
        for (uint32_t k = 0; k < nd->npred; k++) {
            uint32_t pr = g->an.preds.v[nd->pred_off + k];
            if (!(pr & PF_PRED_CARRIED) && finish[pr] > ready) ready = finish[pr];
        }
        double c = is_work(nd) ? s->cost[i] : 0;
        finish[i] = ready + c;
        total += c;
        if (finish[i] > chain) chain = finish[i];
    }
    return total / workers > chain ? total / workers : chain;
}

typedef struct candidate {
    double before, after;    /* estimated run times (simulate), ns */
    uint32_t tasks, objects; /* what would move */
    double ms;               /* partitioning and relabelling */
} candidate;

static int by_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Counts what differs between node.worker and old[]: tasks, and objects (distinct owners of moved nodes; each
 * moved node of no object counts as one). `scratch` holds a node count of entries. */
static void count_moves(const pf_graph *g, const int32_t *old, uint32_t *scratch, candidate *c)
{
    size_t no = 0;
    for (size_t i = 0; i < g->an.nodes.n; i++) {
        const pf_node *nd = &g->an.nodes.v[i];
        if (!is_work(nd) || nd->worker == old[i]) continue;
        if (nd->kind == PF_NODE_TASK) c->tasks++;
        if (nd->object == PF_NONE)
            c->objects++;
        else
            scratch[no++] = nd->object;
    }
    qsort(scratch, no, sizeof *scratch, by_u32);
    for (size_t i = 0; i < no; i++)
        if (i == 0 || scratch[i] != scratch[i - 1]) c->objects++;
}

/* Local improvement by whole objects (the paper's "reassigning the partition related to this object", judged by
 * the schedule rather than by sums): the MOVE_OBJECTS costliest objects in turn, each tried on the two workers
 * that finish first; then swaps of one of them on the worker that finishes last with a cheaper one on the worker
 * that finishes first, when no single move helps. Swaps matter when a few objects carry most of the work:
 * {5, 4} against {3.6, 3.3} ms is no better after any single move, and 8.3 against 7.6 after swapping 4 and 3.3.
 * A change is kept when it shortens the estimated run by MOVE_GAIN of it. At most MOVE_PASSES passes, so the work
 * is bounded whatever the graph. */
#define MOVE_OBJECTS 32
#define MOVE_PASSES 2
#define MOVE_GAIN 0.005

typedef struct object_nodes {
    uint32_t object;
    uint32_t first, count; /* into order[] */
    double cost;
} object_nodes;

static int by_object_node(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b; /* pairs (object, node) */
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

static int by_cost_then_object(const void *a, const void *b)
{
    const object_nodes *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return (x->object > y->object) - (x->object < y->object);
}

static void set_object_worker(pf_graph *g, const object_nodes *o, const uint32_t *pairs, int32_t w)
{
    for (uint32_t k = 0; k < o->count; k++) g->an.nodes.v[pairs[2 * (o->first + k) + 1]].worker = w;
}

/* The two workers whose simulated clocks end first (b may equal a with one worker). */
static void earliest_two(const double *clock, int workers, int *a, int *b)
{
    *a = 0;
    for (int w = 1; w < workers; w++)
        if (clock[w] < clock[*a]) *a = w;
    *b = *a == 0 ? 1 : 0;
    for (int w = 0; w < workers; w++)
        if (w != *a && clock[w] < clock[*b]) *b = w;
}

static int32_t object_worker(const pf_graph *g, const object_nodes *o, const uint32_t *pairs)
{
    return g->an.nodes.v[pairs[2 * o->first + 1]].worker;
}

/* Object k onto whichever of the two workers finishing first shortens the run most; 1 when it moved. */
static int try_move(pf_graph *g, int workers, const object_nodes *objs, size_t k, const uint32_t *pairs,
                    sim_buf *s, double *best)
{
    int32_t from = object_worker(g, &objs[k], pairs);
    int a, b;
    simulate(g, workers, s); /* the clocks of the placement as it stands */
    earliest_two(s->clock, workers, &a, &b);
    int32_t target = -1;
    double target_t = *best;
    for (int t = 0; t < 2; t++) {
        int32_t to = t ? b : a;
        if (to == from) continue;
        set_object_worker(g, &objs[k], pairs, to);
        double e = simulate(g, workers, s);
        if (e < target_t - MOVE_GAIN * *best) target = to, target_t = e;
    }
    set_object_worker(g, &objs[k], pairs, target >= 0 ? target : from);
    if (target >= 0) *best = target_t;
    return target >= 0;
}

/* The best swap of an object on the worker finishing last with a cheaper one on the worker finishing first, among
 * the no costliest (objs sorted by cost); 1 when one was kept. */
static int try_swaps(pf_graph *g, int workers, const object_nodes *objs, size_t no, const uint32_t *pairs,
                     sim_buf *s, double *best)
{
    simulate(g, workers, s);
    int first = 0, last = 0;
    for (int w = 1; w < workers; w++) {
        if (s->clock[w] < s->clock[first]) first = w;
        if (s->clock[w] > s->clock[last]) last = w;
    }
    if (first == last) return 0;
    double gap = s->clock[last] - s->clock[first];
    size_t bi = 0, bj = 0;
    double best_t = *best * (1 - MOVE_GAIN); /* a swap must beat this */
    int found = 0;
    for (size_t i = 0; i < no; i++) {
        if (object_worker(g, &objs[i], pairs) != last) continue;
        for (size_t j = i + 1; j < no; j++) { /* cheaper: later in the order */
            /* a swap shifts the difference of their costs from one worker to the other: only one below the gap
             * between them can shorten the run */
            double delta = objs[i].cost - objs[j].cost;
            if (object_worker(g, &objs[j], pairs) != first || delta <= 0 || delta >= gap) continue;
            set_object_worker(g, &objs[i], pairs, first);
            set_object_worker(g, &objs[j], pairs, last);
            double e = simulate(g, workers, s);
            set_object_worker(g, &objs[i], pairs, last);
            set_object_worker(g, &objs[j], pairs, first);
            if (e < best_t) bi = i, bj = j, best_t = e, found = 1;
        }
    }
    if (!found) return 0;
    set_object_worker(g, &objs[bi], pairs, first);
    set_object_worker(g, &objs[bj], pairs, last);
    *best = best_t;
    return 1;
}

static int improve_by_moves(pf_graph *g, int workers, sim_buf *s, double *best)
{
    size_t n = g->an.nodes.n, m = 0;
    uint32_t *pairs = pf_malloc((2 * n + 2) * sizeof *pairs);
    object_nodes *objs = pf_malloc((n + 1) * sizeof *objs);
    if (!pairs || !objs) {
        pf_free(pairs), pf_free(objs);
        return PF_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const pf_node *nd = &g->an.nodes.v[i];
        if (!is_work(nd) || nd->object == PF_NONE || nd->worker < 0) continue;
        pairs[2 * m] = nd->object, pairs[2 * m + 1] = (uint32_t)i;
        m++;
    }
    qsort(pairs, m, 2 * sizeof *pairs, by_object_node);
    size_t no = 0;
    for (size_t k = 0; k < m; k++) {
        double c = s->cost[pairs[2 * k + 1]];
        if (no > 0 && objs[no - 1].object == pairs[2 * k]) {
            objs[no - 1].count++;
            objs[no - 1].cost += c;
        } else {
            objs[no++] = (object_nodes){pairs[2 * k], (uint32_t)k, 1, c};
        }
    }
    qsort(objs, no, sizeof *objs, by_cost_then_object);
    if (no > MOVE_OBJECTS) no = MOVE_OBJECTS;
    *best = simulate(g, workers, s);
    for (int pass = 0; pass < MOVE_PASSES; pass++) {
        int moved = 0;
        for (size_t k = 0; k < no; k++) moved |= try_move(g, workers, objs, k, pairs, s, best);
        if (!moved) moved = try_swaps(g, workers, objs, no, pairs, s, best); /* when no single move helps */
        if (!moved) break;
    }
    pf_free(pairs), pf_free(objs);
    return PF_OK;
}

/* A fresh partition into `parts` of the workers, relabelled against old[]; *est receives its estimated run time. */
static int partition_into(pf_graph *g, int parts, int workers, pf_partitioner p, const int32_t *old, sim_buf *s, double *est)
{
    int rc = p == PF_PART_METIS ? pf_partition_metis(g, parts) : pf_partition_owner(g, parts);
    if (!rc) rc = pf_repartition_relabel(g, old, workers);
    if (!rc) *est = simulate(g, workers, s);
    return rc;
}

/* How many workers the graph pays for: all of them, then half as many while that shortens the estimated run by
 * GAIN_MIN. A small graph split over many workers spends more on synchronisations than the workers add (a group's
 * CG iteration joins all the workers it spans twice); the workers left out idle. Leaves the best partition in
 * node.worker and its estimate in *est. `best` holds a node count of entries. */
static int partition_best(pf_graph *g, int workers, pf_partitioner p, const int32_t *old, int32_t *best,
                          sim_buf *s, double *est)
{
    PF_TRY(partition_into(g, workers, workers, p, old, s, est));
    for (int k = workers / 2; k >= 2; k /= 2) {
        for (size_t i = 0; i < g->an.nodes.n; i++) best[i] = g->an.nodes.v[i].worker;
        double e;
        PF_TRY(partition_into(g, k, workers, p, old, s, &e));
        if (e >= *est * (1 - GAIN_MIN)) {
            for (size_t i = 0; i < g->an.nodes.n; i++) g->an.nodes.v[i].worker = best[i];
            break;
        }
        *est = e;
    }
    return PF_OK;
}

/* Two starts for the moves: the fresh partition, and the current placement itself (what local moves alone reach).
 * The fresh one is kept only when its estimate beats the local one by FRESH_GAIN: where both are about as fast,
 * the one that moves fewer objects wins, since a moved object costs what the estimate does not see (its data
 * in another core's caches, a recompiled program, another trial). METIS, which renumbers and reshapes its parts
 * from one call to the next, otherwise moves many objects for a gain within the estimate's noise. */
#define FRESH_GAIN 0.02

/* Partitions afresh into node.worker (old[] keeps the current placement), relabelled against it, and fills c. */
static int propose(pf_graph *g, int workers, pf_partitioner p, const int32_t *old, uint32_t *scratch,
                   sim_buf *s, candidate *c)
{
    uint64_t t0 = pf_now_ns();
    size_t n = g->an.nodes.n;
    c->before = simulate(g, workers, s);
    int32_t *moved = pf_malloc((n + 1) * sizeof *moved);
    if (!moved) return PF_ENOMEM;
    double local = c->before;
    int rc = improve_by_moves(g, workers, s, &local); /* from the current placement */
    if (!rc) {
        for (size_t i = 0; i < n; i++) moved[i] = g->an.nodes.v[i].worker; /* the local result, kept aside */
        rc = partition_best(g, workers, p, old, (int32_t *)scratch, s, &c->after);
    }
    if (!rc) rc = improve_by_moves(g, workers, s, &c->after);
    if (!rc && !(c->after < local * (1 - FRESH_GAIN))) { /* the local result: as fast, fewer moves */
        for (size_t i = 0; i < n; i++) g->an.nodes.v[i].worker = moved[i];
        c->after = local;
    }
    pf_free(moved);
    if (rc) return rc;
    count_moves(g, old, scratch, c);
    c->ms = (double)(pf_now_ns() - t0) * 1e-6;
    return PF_OK;
}

/* Keeps the proposed placement: tasks and reducers take their new workers; the programs are rebuilt at the
 * next run (existing tasks keep these workers from then on). */
static void apply(pf_graph *g, int recompile_counts)
{
    for (size_t i = 0; i < g->an.nodes.n; i++) {
        const pf_node *nd = &g->an.nodes.v[i];
        if (nd->kind == PF_NODE_TASK)
            g->tasks.v[nd->task].worker = nd->worker;
        else if (nd->kind == PF_NODE_REDUCER)
            g->data.v[nd->datum].reducer_worker = nd->worker;
    }
    pf_graph_free_programs(g);
    g->rp.recompile = (uint8_t)recompile_counts;
    pf_placement_free(g->pl.state);
    g->pl.state = NULL;
    g->pl.nodes = 0; /* the moved tasks are counted in the run stats, not in pf_graph_get_last_update */
}

static void restore(pf_graph *g, const int32_t *old)
{
    for (size_t i = 0; i < g->an.nodes.n; i++) g->an.nodes.v[i].worker = old[i];
}

/* Whether a proposal pays: a gain of at least GAIN_MIN of the makespan that repays, within HORIZON runs, the
 * partitioning and a recompilation (estimated by the latest update's time). */
static int pays(const pf_graph *g, const candidate *c)
{
    double gain = c->before - c->after;
    if (c->tasks == 0 || gain < GAIN_MIN * c->before) return 0;
    double cost_ns = (c->ms + g->pl.last_update.ms) * 1e6;
    return gain * HORIZON > cost_ns;
}

/* Proposes a fresh partition and keeps it when `force` or when it pays; counts the decision, and its time unless
 * `in_update` (a decision inside a structural update: the update's time holds it). *kept (may be NULL) says
 * whether the placement changed. */
static int decide(pf_graph *g, int workers, pf_partitioner p, int force, int in_update, int *kept)
{
    size_t n = g->an.nodes.n;
    int32_t *old = pf_malloc((n + 1) * sizeof *old);
    uint32_t *scratch = pf_malloc((n + 1) * sizeof *scratch);
    double *finish = pf_malloc((n + 1) * sizeof *finish);
    double *clock = pf_calloc((size_t)workers, sizeof *clock);
    double *cost = pf_malloc((n + 1) * sizeof *cost);
    sim_buf sb = {cost, finish, clock}, *s = &sb;
    int rc = PF_ENOMEM;
    if (!old || !scratch || !finish || !clock || !cost) goto done;
    for (size_t i = 0; i < n; i++) cost[i] = is_work(&g->an.nodes.v[i]) ? pf_node_cost(g, &g->an.nodes.v[i]) : 0;
    for (size_t i = 0; i < n; i++) old[i] = g->an.nodes.v[i].worker;
    candidate c = {0};
    uint64_t t0 = pf_now_ns();
    /* unless forced, skip the proposal when even the bound would not gain GAIN_MIN: nothing could pay */
    int hopeless = !force && simulate(g, workers, s) * (1 - GAIN_MIN) <= lower_bound(g, workers, s);
    rc = hopeless ? PF_OK : propose(g, workers, p, old, scratch, s, &c);
    if (hopeless) c.ms = (double)(pf_now_ns() - t0) * 1e-6;
    int keep = !rc && !hopeless && (force ? c.tasks > 0 : pays(g, &c));
    pf_repartition_trial_end(g, 0);
    if (keep)
        apply(g, !in_update);
    else
        restore(g, old);
    if (keep && !force) { /* the auto policy's choice: measure it against the old placement */
        g->rp.trial = (pf_repartition_trial){.other = old};
        old = NULL;
    }
    if (kept) *kept = keep;
    pf_counters *ct = g->counters;
    if (ct) {
        ct->last_run.ms_repartition = in_update ? 0 : c.ms;
        ct->total_run.ms_repartition += in_update ? 0 : c.ms;
        ct->last_run.repartitions = keep;
        ct->last_run.objects_moved = keep ? c.objects : 0;
        ct->last_run.tasks_moved = keep ? c.tasks : 0;
        ct->last_run.reverts = 0;
        if (keep) {
            ct->total_run.repartitions++;
            ct->total_run.objects_moved += c.objects;
            ct->total_run.tasks_moved += c.tasks;
        }
        ct->imbalance_sum = 0;
        ct->imbalance_runs = 0;
    }
    g->rp.decided_run = g->runs;
done:
    pf_free(old);
    pf_free(scratch);
    pf_free(finish);
    pf_free(clock);
    pf_free(cost);
    return rc;
}

static double least(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] < m) m = v[i];
    return m;
}

/* Runs the other placement of the trial: swaps it with the current one; the programs are rebuilt at the next
 * run, their time counted as the repartition's. */
static void trial_switch(pf_graph *g)
{
    int32_t *other = g->rp.trial.other;
    for (size_t i = 0; i < g->an.nodes.n; i++) {
        int32_t w = g->an.nodes.v[i].worker;
        g->an.nodes.v[i].worker = other[i];
        other[i] = w;
    }
    apply(g, 1);
}

void pf_repartition_trial_end(pf_graph *g, int back_to_new)
{
    if (back_to_new && g->rp.trial.other && g->rp.trial.phase == 1) trial_switch(g);
    pf_free(g->rp.trial.other);
    g->rp.trial = (pf_repartition_trial){0};
}

/* The trial's bookkeeping after a run of the static executor: times it, switches to the old placement after
 * TRIAL_RUNS timed runs of the new, and after as many of the old goes back to it only when its least time is
 * GAIN_MIN below the new one's (the least: a run stretched by preemption never decides). */
static void trial_after_run(pf_graph *g, int measuring)
{
    pf_repartition_trial *t = &g->rp.trial;
    pf_counters *ct = g->counters;
    if (measuring || !ct) return;
    uint64_t tasks = 0;
    double span = 0; /* the longest worker's busy and waiting time: the run less its workers' wake-up */
    for (int w = 0; w < ct->workers; w++) {
        tasks += ct->last[w].tasks;
        double s = ct->last[w].busy_ms + ct->last[w].wait_ms;
        if (s > span) span = s;
    }
    if (t->seen++ == 0 || tasks == 0) return; /* the first run after a switch: cold and just compiled */
    t->ms[t->phase][t->seen - 2] = span / (double)tasks;
    if (t->seen < TRIAL_RUNS + 1) return;
    if (t->phase == 0) {
        t->phase = 1;
        t->seen = 0;
        trial_switch(g);
        return;
    }
    int old_wins = least(t->ms[1], TRIAL_RUNS) * (1 + GAIN_MIN) < least(t->ms[0], TRIAL_RUNS);
    if (old_wins) {
        ct->last_run.reverts = 1;
        ct->total_run.reverts++;
        if (g->rp.reverted < 4) g->rp.reverted++;
    } else {
        trial_switch(g); /* back to the new placement */
        g->rp.reverted = 0;
    }
    pf_repartition_trial_end(g, 0);
}

void pf_repartition_after_run(pf_graph *g, int workers, pf_partitioner p, pf_repartition policy, int measuring,
                              int measured)
{
    if (workers < 2 || policy == PF_REPART_NEVER || g->pl.workers != workers || g->prog.workers == 0)
        return;
    if (g->rp.trial.other) {
        trial_after_run(g, measuring);
        return;
    }
    if (measured && g->rp.pending) {
        g->rp.pending = 0;
        /* a failure (out of memory) leaves the placement as it was: repartitioning is an optimisation */
        (void)decide(g, workers, p, policy == PF_REPART_ALWAYS, 0, NULL);
        return;
    }
    /* measured imbalance of the runs since the latest decision: measure costs at the next run, then decide */
    const pf_counters *ct = g->counters;
    uint64_t cooldown = (uint64_t)COOLDOWN << g->rp.reverted;
    if (policy == PF_REPART_AUTO && !g->rp.pending && ct && ct->imbalance_runs >= COOLDOWN &&
        g->runs - g->rp.decided_run >= cooldown &&
        ct->imbalance_sum > IMBALANCE_MAX * ct->imbalance_runs) {
        g->rp.pending = 1;
        g->pl.measure_next = MEASURE_RUNS;
        g->pl.measure_first = 1;
    }
}

int pf_repartition_forced(pf_graph *g, int workers, pf_partitioner p)
{
    g->rp.forced = 0;
    if (workers < 2 || g->pl.workers != workers) return PF_OK;
    int rc = decide(g, workers, p, 1, 0, NULL);
    return rc ? pf_error(rc, "out of memory repartitioning") : PF_OK;
}

int pf_repartition_at_update(pf_graph *g, int workers, pf_partitioner p, pf_repartition policy)
{
    int kept = 0;
    if (workers < 2 || policy == PF_REPART_NEVER) return 0;
    /* an optimisation: out of memory leaves the update's own placement */
    (void)decide(g, workers, p, policy == PF_REPART_ALWAYS, 1, &kept);
    return kept;
}

int pf_graph_repartition(pf_graph *g)
{
    PF_TRY(pf_check_given(g, __func__, "g"));
    PF_TRY(pf_graph_check_idle(g, __func__));
    g->rp.forced = 1;
    return PF_OK;
}
