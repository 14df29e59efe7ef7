/* Monotonic time for measurements (runtime costs, update timings, traces). */
#ifndef PF_BASE_CLOCK_H
#define PF_BASE_CLOCK_H

#include <stdint.h>

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t pf_now_ns(void);

#endif
