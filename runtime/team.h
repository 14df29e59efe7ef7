/* The worker team: K-1 threads pinned one per core with hwloc, plus the calling thread as worker 0. */
#ifndef PF_RUNTIME_TEAM_H
#define PF_RUNTIME_TEAM_H

#include "physflow/runtime.h"

#include <hwloc.h>

#include <stdatomic.h>
#include <stdint.h>

typedef void (*pf_team_job)(void *ctx, int worker);

typedef struct pf_team pf_team;

/* Starts workers-1 threads (binding them when `bind`); they sleep until pf_team_run. Returns NULL on failure
 * (message set). `spin` is the number of relax iterations a wait spins before sleeping. */
pf_team *pf_team_create(int workers, int bind, int bind_caller, uint32_t spin, int quiet);
/* A team whose workers 1..K-1 run on the host's task system (no threads of its own). */
pf_team *pf_team_create_host(int workers, const pf_task_system *tasks, int quiet);
void pf_team_destroy(pf_team *t);
int pf_team_workers(const pf_team *t);

/* Runs job(ctx, w) on every worker w (the caller is worker 0) and returns when all have finished. */
void pf_team_run(pf_team *t, pf_team_job job, void *ctx);

/* Gives the calling thread (worker 0) its own binding back; the next run binds it again. */
void pf_team_release_caller(pf_team *t);

/* The machine's topology the team binds its workers with; NULL when it binds none (bind off, a host task
 * system, or hwloc could not load it). */
hwloc_topology_t pf_team_topology(const pf_team *t);

/* Relax iterations that take about `ns` nanoseconds on this machine (measured once). */
uint32_t pf_spin_iterations(int ns);

#endif
