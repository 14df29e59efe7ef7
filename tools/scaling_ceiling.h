/* The machine's ceiling for a scaling experiment: K independent copies of the scene, each on one worker of its
 * own with the seq executor, stepping at the same time in K threads. Nothing synchronises them, so their
 * throughput (K x T1 / their step time) is what the machine gives K workers for this work — memory bandwidth,
 * shared caches, clock, other jobs — and a parallel run's speedup over that ceiling is what the runtime itself
 * keeps (its synchronisation, imbalance and overheads). On the development VM (2026-11-27) two copies of
 * heterogeneous at once stepped in 9.3-11.8 ms where one alone took 8.0-10.4: a ceiling of 1.4-1.8 on 2 workers,
 * the day the static executor reached 1.3-1.6. */
#ifndef PF_TOOLS_SCALING_CEILING_H
#define PF_TOOLS_SCALING_CEILING_H

#include "physflow/scene.h"

/* One repeat: `copies` scenes loaded with ld (its runtime set to seq, one worker, unbound), `warmup` untimed
 * steps each, then `steps` timed steps each, all copies starting together. ms[k] and col[k] receive the mean over
 * the copies of their k-th step's time and collision time, *upd_ms the mean ms of graph updates per timed step.
 * 0, or -1 after a message on stderr (cmd names the command). */
int scaling_ceiling_repeat(const char *cmd, const char *scene, const pf_scene_load_def *ld, int copies, long warmup,
                           long steps, double *ms, double *col, double *upd_ms);

#endif
