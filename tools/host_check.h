/* How much of the machine a benchmark's workers get: the parallel efficiency of a pure compute kernel on a
 * runtime's team. Another job on the machine takes cores from the workers, and a scaling figure taken then
 * measures the host, not PhysFlow (on the development VM, with two builds running at nice 19 beside the
 * benchmark, the check read 0.81; alone, 0.93-1.0); `physflow bench scaling` reports this efficiency beside its
 * speedups and can run a repeat again when the host fell short during it. It sees cores taken away, not every
 * disturbance: shared caches and memory bandwidth, or a vCPU descheduled between two checks, escape it. */
#ifndef PF_TOOLS_HOST_CHECK_H
#define PF_TOOLS_HOST_CHECK_H

#include "physflow/runtime.h"

/* The kernel's length in iterations for about `ms` milliseconds on one worker of rt (at least 1000). */
long host_check_calibrate(pf_runtime *rt, double ms);
/* The host's parallel efficiency on rt's workers: the time of `iterations` of the kernel on worker 0 alone (the
 * least of three runs: undisturbed) over the time of the same on every worker at once (the median of three runs,
 * alternating with those): 1 when every worker ran as fast as one alone, 0.5 as if half of them ran. 1 for one
 * worker; 0 when rt cannot run host work now (PF_ESTATE). */
double host_check(pf_runtime *rt, long iterations);

#endif
