/* Tracing: per-worker span lanes and their Chrome trace-event JSON (Perfetto, chrome://tracing). */
#include "trace.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/vec.h"
#include "physflow/base.h"

#include <stdio.h>
#include <time.h>

typedef struct trace_event {
    uint64_t t0, t1;
    const char *name;
    int kind;
} trace_event;

typedef struct lane {
    PF_VEC(trace_event) ev;
    char pad[40]; /* one lane per cache line: each worker appends to its own */
} lane;

struct pf_trace {
    int workers;
    lane *lanes;
    uint64_t origin;
};

pf_trace *pf_trace_create(int workers)
{
    pf_trace *t = pf_calloc(1, sizeof *t);
    if (!t) return NULL;
    t->lanes = pf_calloc((size_t)workers, sizeof *t->lanes);
    if (!t->lanes) {
        pf_free(t);
        return NULL;
    }
    t->workers = workers;
    t->origin = pf_now_ns();
    return t;
}

void pf_trace_destroy(pf_trace *t)
{
    if (!t) return;
    for (int w = 0; w < t->workers; w++) pf_vec_free(&t->lanes[w].ev);
    pf_free(t->lanes);
    pf_free(t);
}

void pf_trace_add(pf_trace *t, int w, int kind, const char *name, uint64_t t0, uint64_t t1)
{
    if (w < 0 || w >= t->workers) return;
    lane *l = &t->lanes[w];
    (void)pf_vec_push(&l->ev, ((trace_event){t0, t1, name, kind})); /* out of memory: the event is dropped */
}

void pf_trace_drain(pf_trace *t, pf_trace_span_fn fn, void *ctx)
{
    for (int w = 0; w < t->workers; w++) {
        lane *l = &t->lanes[w];
        for (size_t k = 0; k < l->ev.n; k++) {
            const trace_event *e = &l->ev.v[k];
            pf_trace_span s = {e->name ? e->name : "?", e->t0, e->t1, w, (pf_trace_kind)e->kind};
            fn(&s, ctx);
        }
        l->ev.n = 0; /* the storage stays for the next spans */
    }
}

static void write_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

int pf_trace_write_json(const pf_trace *t, const char *path)
{
    static const char *cats[] = {"task", "reducer", "wait", "run", "compile"};
    FILE *f = fopen(path, "w");
    if (!f) return pf_error(PF_EIO, "cannot write trace file '%s'", path);
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"PhysFlow\"}}");
    for (int w = 0; w < t->workers; w++)
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":\"worker %d\"}}",
                w, w);
    for (int w = 0; w < t->workers; w++) {
        const lane *l = &t->lanes[w];
        for (size_t k = 0; k < l->ev.n; k++) {
            const trace_event *e = &l->ev.v[k];
            uint64_t t0 = e->t0 > t->origin ? e->t0 - t->origin : 0;
            uint64_t dur = e->t1 > e->t0 ? e->t1 - e->t0 : 0;
            fprintf(f, ",\n{\"name\":");
            write_json_string(f, e->name ? e->name : "?");
            fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f}", cats[e->kind], w,
                    t0 / 1000.0, dur / 1000.0);
        }
    }
    fprintf(f, "\n]}\n");
    if (fclose(f) != 0) return pf_error(PF_EIO, "cannot write trace file '%s'", path);
    return PF_OK;
}
