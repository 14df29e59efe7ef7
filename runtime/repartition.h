/* Repartitioning driven by contacts and measured load (repartition.c; Hermann et al. 2009, §3.2, §4.2). */
#ifndef PF_RUNTIME_REPARTITION_H
#define PF_RUNTIME_REPARTITION_H

#include "graph_types.h"

/* A repartition the auto policy kept is on trial: the estimate chose it, measurement decides. The new placement
 * runs TRIAL_RUNS timed runs, then the placement it replaced runs as many, and the faster one stays.
 * A run's time is its longest worker's busy and waiting time per task run: the wake-up of sleeping workers, which
 * a loaded machine makes long, does not count, and a step whose solver loops iterate more weighs no more than a
 * quick one. The first run after a switch (cold caches) and the runs that measure node costs are not timed.
 * A structural change, a forced repartition or a rebalance ends the trial with the placement running then. */
#define TRIAL_RUNS 4
/* Runs between two decisions the imbalance trigger takes (repartition.c), doubled after each lost trial. */
#define COOLDOWN 50
typedef struct pf_repartition_trial {
    int32_t *other;            /* per analysed node: its worker in the placement not running now; NULL: none */
    uint8_t phase;             /* 0: the new placement runs; 1: the old one */
    uint8_t seen;              /* runs seen in this phase */
    double ms[2][TRIAL_RUNS];  /* per phase: ms per task of its timed runs */
} pf_repartition_trial;

/* The graph's repartitioning part; repartition.c reads and clears it, pf_graph_repartition (graph.c) sets
 * `forced`, and a change of the graph (runtime.c) sets `pending`. */
typedef struct pf_graph_repartition_state {
    uint8_t forced;       /* partition afresh at the next static run */
    uint8_t pending;      /* decide after the next measured run (a structural update or an imbalance) */
    uint8_t recompile;    /* the next compilation follows a repartition (its time counts as the repartition's) */
    uint64_t decided_run; /* the graph's run count at the latest decision (hysteresis for the imbalance trigger) */
    uint8_t reverted;     /* trials lost in a row: the imbalance trigger waits COOLDOWN << reverted runs */
    pf_repartition_trial trial;
} pf_graph_repartition_state;

/* repartition.c: after a run of the static executor (workers > 1): repartitions when the policy says it pays,
 * and times a trial under way; `measuring` says the run timed every node, `measured` that it completed a series
 * of such runs. pf_repartition_forced applies pf_graph_repartition. */
void pf_repartition_after_run(pf_graph *g, int workers, pf_partitioner p, pf_repartition policy, int measuring,
                              int measured);
/* Ends a trial (a structural change, a rebalance, the graph's end). With `back_to_new`, a trial cut short while
 * the old placement runs goes back to the new one, the estimate's choice; node.worker must still be the trial's. */
void pf_repartition_trial_end(pf_graph *g, int back_to_new);
int pf_repartition_forced(pf_graph *g, int workers, pf_partitioner p);
/* Right after a structural update is placed (old tasks measured, new ones estimated): the same decision, so the
 * runs until the new tasks are measured do not run on a placement the update made poor. Returns 1 when it moved
 * objects (the programs must then be compiled whole). */
int pf_repartition_at_update(pf_graph *g, int workers, pf_partitioner p, pf_repartition policy);
/* Renames the parts in node.worker to overlap old[node] (the previous placement) most; PF_ENOMEM or PF_OK. */
int pf_repartition_relabel(pf_graph *g, const int32_t *old, int workers);
#endif
