/* Per-worker trace lanes, written as Chrome trace-event JSON. Only touched when tracing is on. */
#ifndef PF_RUNTIME_TRACE_H
#define PF_RUNTIME_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "physflow/runtime.h" /* pf_trace_kind, pf_trace_span */

typedef struct pf_trace pf_trace;

pf_trace *pf_trace_create(int workers);
void pf_trace_destroy(pf_trace *t);
/* Appends a span to worker w's lane (drops it when out of memory). */
void pf_trace_add(pf_trace *t, int w, int kind, const char *name, uint64_t t0, uint64_t t1);
int pf_trace_write_json(const pf_trace *t, const char *path);
/* Hands every span to fn, lane by lane, and empties the lanes. */
void pf_trace_drain(pf_trace *t, pf_trace_span_fn fn, void *ctx);

#endif
