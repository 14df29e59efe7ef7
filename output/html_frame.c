/* One frame of the run viewer: the world's positions quantised to 16-bit offsets in the frame's bounding box, each
 * object's worker and solver group, the step's contacts and its per-worker spans, packed little-endian in a blob:
 *   int32 worker[objects], int32 group[objects] (-1: none), uint8 visible[pieces],
 *   uint16 position[3 * vertices of every piece], uint16 contact[3 * contacts], int8 normal[3 * contacts] (x127),
 *   spans: float32 start_us, float32 duration_us, uint16 name, uint8 worker, uint8 kind (12 bytes each).
 * 16 bits over the box: a 1 m scene is drawn to 15 µm, far below a pixel. */
#include "html_writer.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

enum { SPAN_BYTES = 12 };

typedef struct span_sink {
    pf_html_writer *h;
    PF_VEC(pf_trace_span) spans;
    double run_ms;
    int keep, failed;
} span_sink;

static void collect_span(const pf_trace_span *s, void *ctx)
{
    span_sink *k = ctx;
    if (s->kind == PF_TRACE_RUN) k->run_ms += (double)(s->t1_ns - s->t0_ns) * 1e-6;
    if (k->keep && pf_vec_push(&k->spans, *s)) k->failed = 1;
}

/* The index of a span name in h->names, copied on first sight; -1 when out of memory. */
static int name_index(pf_html_writer *h, const char *name)
{
    for (size_t i = 0; i < h->names.n; i++)
        if (!strcmp(h->names.v[i], name)) return (int)i;
    if (h->names.n >= UINT16_MAX) return (int)h->names.n - 1; /* never with PhysFlow's task names */
    size_t len = strlen(name) + 1;
    char *c = pf_malloc(len);
    if (!c || pf_vec_push(&h->names, c)) {
        pf_free(c);
        return -1;
    }
    memcpy(c, name, len);
    return (int)h->names.n - 1;
}

static unsigned char *put_u16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v & 0xff), p[1] = (unsigned char)(v >> 8);
    return p + 2;
}

static unsigned char *put_u32(unsigned char *p, uint32_t v)
{
    for (int b = 0; b < 4; b++) p[b] = (unsigned char)(v >> (8 * b));
    return p + 4;
}

static unsigned char *put_f32(unsigned char *p, float f)
{
    uint32_t v;
    memcpy(&v, &f, sizeof v);
    return put_u32(p, v);
}

/* The positions of a piece now, or NULL when its object was removed. */
static const double *piece_positions(pf_world *w, const html_piece *pc, uint32_t *n)
{
    if (pc->surface >= 0) {
        pf_surface_id s = {(uint32_t)pc->surface};
        if (pf_world_get_surface_info(w, s, NULL, NULL, NULL) != PF_OK) return NULL;
        return pf_world_surface_positions(w, s, n);
    }
    pf_object_id o = {pc->object};
    if (!pf_world_object_exists(w, o)) return NULL;
    return pf_world_positions(w, o, n);
}

static void grow_box(double box[6], const double *x)
{
    for (int a = 0; a < 3; a++) {
        if (x[a] < box[a]) box[a] = x[a];
        if (x[a] > box[3 + a]) box[3 + a] = x[a];
    }
}

static uint32_t quantise(double x, double lo, double hi)
{
    double q = hi > lo ? (x - lo) / (hi - lo) * 65535.0 : 0;
    return !(q > 0) ? 0 : q >= 65535 ? 65535 : (uint32_t)lround(q); /* NaN (a blown-up point): 0 */
}

static unsigned char *put_point(unsigned char *p, const double *x, const double box[6])
{
    for (int a = 0; a < 3; a++) p = put_u16(p, quantise(x[a], box[a], box[3 + a]));
    return p;
}

/* The frame's box: every drawn position and contact point (finite ones: a blown-up run is still drawn). */
static void frame_box(pf_html_writer *h, double box[6])
{
    for (int a = 0; a < 3; a++) box[a] = INFINITY, box[3 + a] = -INFINITY;
    for (size_t k = 0; k < h->pieces.n; k++) {
        uint32_t n = 0;
        const double *x = piece_positions(h->w, &h->pieces.v[k], &n);
        if (x) n = n < h->pieces.v[k].vertices ? n : h->pieces.v[k].vertices;
        for (uint32_t i = 0; x && i < n; i++)
            if (isfinite(x[3 * i]) && isfinite(x[3 * i + 1]) && isfinite(x[3 * i + 2])) grow_box(box, x + 3 * i);
    }
    for (size_t c = 0; c < h->contacts.n; c++) grow_box(box, h->contacts.v[c].p);
    for (int a = 0; a < 3; a++)
        if (!(box[a] <= box[3 + a])) box[a] = 0, box[3 + a] = 0; /* nothing drawn */
}

static unsigned char *put_placement(pf_html_writer *h, unsigned char *p, int32_t *worker, uint32_t *group)
{
    if (pf_world_get_placement(h->w, worker, group, h->objects) != PF_OK)
        for (uint32_t o = 0; o < h->objects; o++) worker[o] = -1, group[o] = UINT32_MAX;
    for (uint32_t o = 0; o < h->objects; o++) p = put_u32(p, (uint32_t)worker[o]);
    for (uint32_t o = 0; o < h->objects; o++) p = put_u32(p, group[o]); /* UINT32_MAX: -1 as int32 */
    return p;
}

static unsigned char *put_pieces(pf_html_writer *h, unsigned char *p, const double box[6])
{
    unsigned char *vis = p;
    p += h->pieces.n;
    for (size_t k = 0; k < h->pieces.n; k++) {
        const html_piece *pc = &h->pieces.v[k];
        uint32_t n = 0;
        const double *x = piece_positions(h->w, pc, &n);
        vis[k] = x && n >= pc->vertices;
        for (uint32_t i = 0; i < pc->vertices; i++) {
            static const double origin[3] = {0, 0, 0};
            p = put_point(p, vis[k] ? x + 3 * i : origin, box);
        }
    }
    return p;
}

static unsigned char *put_contacts(pf_html_writer *h, unsigned char *p, const double box[6])
{
    for (size_t c = 0; c < h->contacts.n; c++) p = put_point(p, h->contacts.v[c].p, box);
    for (size_t c = 0; c < h->contacts.n; c++)
        for (int a = 0; a < 3; a++) *p++ = (unsigned char)(int8_t)lround(h->contacts.v[c].n[a] * 127.0);
    return p;
}

/* The spans, in µs from the step's first one. */
static int put_spans(pf_html_writer *h, unsigned char *p, const span_sink *k)
{
    uint64_t origin = UINT64_MAX;
    for (size_t i = 0; i < k->spans.n; i++)
        if (k->spans.v[i].t0_ns < origin) origin = k->spans.v[i].t0_ns;
    for (size_t i = 0; i < k->spans.n; i++) {
        const pf_trace_span *s = &k->spans.v[i];
        int name = name_index(h, s->name);
        if (name < 0) return PF_ENOMEM;
        p = put_f32(p, (float)((double)(s->t0_ns - origin) * 1e-3));
        p = put_f32(p, (float)((double)(s->t1_ns > s->t0_ns ? s->t1_ns - s->t0_ns : 0) * 1e-3));
        p = put_u16(p, (uint32_t)name);
        *p++ = (unsigned char)(s->worker < 255 ? s->worker : 255);
        *p++ = (unsigned char)s->kind;
    }
    return PF_OK;
}

/* Drains the step's spans into k (kept when k->keep); tracing off (a runtime that could not trace) drains nothing. */
static int drain(pf_html_writer *h, span_sink *k)
{
    int rc = pf_runtime_trace_drain(pf_world_runtime(h->w), collect_span, k);
    if (rc == PF_ESTATE) rc = PF_OK;
    if (!rc && k->failed) rc = pf_error(PF_ENOMEM, "pf_html_add_frame: out of memory keeping the step's spans");
    return rc;
}

int html_spans_skip(pf_html_writer *h, double *run_ms)
{
    span_sink k = {.h = h};
    int rc = drain(h, &k);
    *run_ms = k.run_ms;
    return rc;
}

int html_frame_capture(pf_html_writer *h, int spans, html_frame *out, double *run_ms)
{
    span_sink k = {.h = h, .keep = spans};
    int rc = spans ? drain(h, &k) : PF_OK;
    *run_ms = k.run_ms;
    if (rc) {
        pf_vec_free(&k.spans);
        return rc;
    }
    size_t verts = 0;
    for (size_t i = 0; i < h->pieces.n; i++) verts += h->pieces.v[i].vertices;
    size_t bytes = 8 * (size_t)h->objects + h->pieces.n + 6 * verts + 9 * h->contacts.n + SPAN_BYTES * k.spans.n;
    int32_t *worker = pf_malloc((h->objects + 1) * sizeof *worker);
    uint32_t *group = pf_malloc((h->objects + 1) * sizeof *group);
    unsigned char *blob = pf_malloc(bytes ? bytes : 1);
    if (!worker || !group || !blob) rc = pf_error(PF_ENOMEM, "pf_html_add_frame: out of memory for a frame");
    if (!rc) {
        memset(out, 0, sizeof *out);
        frame_box(h, out->box);
        unsigned char *p = put_placement(h, blob, worker, group);
        p = put_pieces(h, p, out->box);
        p = put_contacts(h, p, out->box);
        rc = put_spans(h, p, &k);
        if (rc) rc = pf_error(PF_ENOMEM, "pf_html_add_frame: out of memory naming the spans");
        out->spans = (uint32_t)k.spans.n;
    }
    pf_free(worker);
    pf_free(group);
    pf_vec_free(&k.spans);
    if (rc) {
        pf_free(blob);
        return rc;
    }
    out->step = h->steps;
    out->contacts = (uint32_t)h->contacts.n;
    out->blob = blob;
    out->bytes = bytes;
    return PF_OK;
}
