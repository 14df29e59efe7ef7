/* Run counters: per worker busy, waiting and idle time, waits and tasks, of the latest run and in total
 * (pf_graph_get_run_stats). Each worker writes only its own cache line during a run; the caller folds them
 * after the run. */
#ifndef PF_RUNTIME_COUNTERS_H
#define PF_RUNTIME_COUNTERS_H

#include "physflow/runtime.h"

#include <stdint.h>

/* What one worker counts during one run (its own cache line). */
typedef struct pf_worker_tally {
    _Alignas(64) uint64_t start_ns, end_ns; /* its program's first and last instant */
    uint64_t wait_ns;
    uint64_t waits, blocked, tasks;
} pf_worker_tally;

typedef struct pf_counters {
    int workers;
    pf_worker_tally *tally;  /* [workers]: the run in progress */
    pf_worker_stats *last;   /* [workers]: the latest run */
    pf_worker_stats *total;  /* [workers]: every run since the counters were sized for this worker count */
    pf_run_stats last_run, total_run;
    double imbalance_sum;    /* sum of the imbalances of the runs since the last repartition decision */
    uint32_t imbalance_runs;
} pf_counters;

/* Sizes the counters for `workers` (totals restart when the count changes); PF_ENOMEM on failure. */
int pf_counters_prepare(pf_counters **c, int workers);
void pf_counters_free(pf_counters *c);
/* Clears the tallies before a run. */
void pf_counters_begin(pf_counters *c);
/* Folds the tallies of a run of wall time [t0, t1] into the latest and total counters; `tallied` is 0 for the
 * executors that keep no tallies (barrier, omptasks: only the run's time counts). */
void pf_counters_end(pf_counters *c, uint64_t t0, uint64_t t1, int tallied);

#endif
