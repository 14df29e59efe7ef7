/* How much of the machine a benchmark's workers get: the parallel efficiency of a pure compute kernel cut into
 * rounds that the workers of a runtime's team finish together, as a graph's workers meet at its
 * synchronisations. A worker that loses its core, even for a moment (another job, a vCPU the hypervisor
 * deschedules), holds every other one up at the next round, as it does a parallel run; `physflow bench
 * scaling` reports this efficiency beside its speedups and can run a repeat again when the host fell short
 * during it. On the development VM it read 0.93 alone and 0.10 beside a busy loop of the same priority; jobs of
 * lower priority escape it (a spinning worker keeps them out, a sleeping one lets them in), and so does what
 * slows every worker alike: memory bandwidth, shared caches, clocks (the ceiling, scaling_ceiling.h, sees that). */
#ifndef PF_TOOLS_HOST_CHECK_H
#define PF_TOOLS_HOST_CHECK_H

#include "physflow/runtime.h"

/* The kernel's length per round in iterations, for about `ms` milliseconds a check on one worker of rt. */
long host_check_calibrate(pf_runtime *rt, double ms);
/* The host's parallel efficiency on rt's workers: the time of the rounds (`iterations` each) on worker 0 alone,
 * without barriers (the least of three runs: undisturbed), over the time of the same rounds on every worker at
 * once, each round ending at a barrier (the median of three runs, alternating with those): 1 when every worker
 * ran as fast as one alone, 0.5 as if half of them ran. 1 for one worker; 0 when rt cannot run host work now
 * (PF_ESTATE). */
double host_check(pf_runtime *rt, long iterations);
/* How long a cache line takes from one core to another and back, in nanoseconds: the median of 5 runs of 20,000
 * round trips (one writes, the other waits for it and answers) between the two workers of a runtime made for it
 * (both pinned, to the first two cores, when `bind`). What every datum that one worker writes and another reads
 * costs at the least; on the development VM 110-175 ns in some hours and 450-600 ns in others, which moves the
 * 2-worker figures. 0 on a machine of one core, or when no runtime could be made. */
double host_round_trip_ns(int bind);

#endif
