/* Run counters (counters.h): tallies written by each worker during a run, folded by the caller after it. */
#include "counters.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

void pf_counters_free(pf_counters *c)
{
    if (!c) return;
    pf_free(c->tally);
    pf_free(c->last);
    pf_free(c->total);
    pf_free(c);
}

int pf_counters_prepare(pf_counters **cp, int workers)
{
    pf_counters *c = *cp;
    if (c && c->workers == workers) return PF_OK;
    pf_run_stats keep = c ? c->total_run : (pf_run_stats){0};
    pf_counters_free(c);
    *cp = NULL;
    c = pf_calloc(1, sizeof *c);
    if (!c) return PF_ENOMEM;
    c->workers = workers;
    c->tally = pf_malloc((size_t)workers * sizeof *c->tally); /* cache-line aligned */
    c->last = pf_calloc((size_t)workers, sizeof *c->last);
    c->total = pf_calloc((size_t)workers, sizeof *c->total);
    if (!c->tally || !c->last || !c->total) {
        pf_counters_free(c);
        return PF_ENOMEM;
    }
    memset(c->tally, 0, (size_t)workers * sizeof *c->tally);
    /* the graph-wide totals (runs, repartitions) go on across worker counts; per-worker totals restart */
    c->total_run = keep;
    *cp = c;
    return PF_OK;
}

void pf_counters_begin(pf_counters *c)
{
    for (int w = 0; w < c->workers; w++) {
        pf_worker_tally *t = &c->tally[w];
        t->start_ns = t->end_ns = t->wait_ns = 0;
        t->waits = t->blocked = t->tasks = 0;
    }
}

static double ms(uint64_t ns)
{
    return (double)ns * 1e-6;
}

void pf_counters_end(pf_counters *c, uint64_t t0, uint64_t t1, int tallied)
{
    pf_run_stats *r = &c->last_run;
    uint32_t reps = r->repartitions, objs = r->objects_moved, tasks = r->tasks_moved, small = r->metis_small,
             reverts = r->reverts;
    double rep_ms = r->ms_repartition;
    *r = (pf_run_stats){.runs = 1, .ms = ms(t1 - t0)};
    /* repartition counters of the latest run are kept until the next decision replaces them */
    r->repartitions = reps, r->objects_moved = objs, r->tasks_moved = tasks, r->metis_small = small;
    r->ms_repartition = rep_ms, r->reverts = reverts;
    c->total_run.runs++, c->total_run.ms += r->ms;
    if (!tallied) {
        for (int w = 0; w < c->workers; w++) c->last[w] = (pf_worker_stats){0};
        r->imbalance = 0;
        return;
    }
    double busy_max = 0, busy_sum = 0;
    for (int w = 0; w < c->workers; w++) {
        const pf_worker_tally *t = &c->tally[w];
        uint64_t s = t->start_ns ? t->start_ns : t0, e = t->end_ns ? t->end_ns : s;
        if (s < t0) s = t0;
        if (e > t1) e = t1;
        if (e < s) e = s;
        uint64_t span = e - s, wait = t->wait_ns < span ? t->wait_ns : span;
        pf_worker_stats *l = &c->last[w];
        *l = (pf_worker_stats){.busy_ms = ms(span - wait),
                               .wait_ms = ms(wait),
                               .idle_ms = ms((t1 - t0) - span),
                               .waits = t->waits,
                               .blocked = t->blocked,
                               .tasks = t->tasks};
        pf_worker_stats *tot = &c->total[w];
        tot->busy_ms += l->busy_ms, tot->wait_ms += l->wait_ms, tot->idle_ms += l->idle_ms;
        tot->waits += l->waits, tot->blocked += l->blocked, tot->tasks += l->tasks;
        r->waits += l->waits, r->blocked += l->blocked;
        r->busy_ms += l->busy_ms, r->wait_ms += l->wait_ms, r->idle_ms += l->idle_ms;
        busy_sum += l->busy_ms;
        if (l->busy_ms > busy_max) busy_max = l->busy_ms;
    }
    r->imbalance = busy_sum > 0 ? busy_max * c->workers / busy_sum : 1;
    pf_run_stats *T = &c->total_run;
    T->waits += r->waits, T->blocked += r->blocked;
    T->busy_ms += r->busy_ms, T->wait_ms += r->wait_ms, T->idle_ms += r->idle_ms;
    /* the total's imbalance: of the per-worker busy totals */
    double tmax = 0, tsum = 0;
    for (int w = 0; w < c->workers; w++) {
        tsum += c->total[w].busy_ms;
        if (c->total[w].busy_ms > tmax) tmax = c->total[w].busy_ms;
    }
    T->imbalance = tsum > 0 ? tmax * c->workers / tsum : 1;
    c->imbalance_sum += r->imbalance;
    c->imbalance_runs++;
}
