/* The run viewer's page: the template (html_page.html, compiled in by embed_text.py) with its @@NAME@@ markers
 * replaced by the title, Debian's three.js and OrbitControls read from def.three_dir, and the run's data as JSON
 * (frames as base64 blobs, html_frame.c). */
#include "html_writer.h"

#include "base/alloc.h"
#include "base/error.h"

#include <errno.h>
#include <string.h>

extern const unsigned char pf_html_page_template[]; /* NUL-terminated */
extern const size_t pf_html_page_template_size;

static const char *const script_files[2] = {"three.min.js", "examples/js/controls/OrbitControls.js"};

static char *script_path(const pf_html_writer *h, int k)
{
    size_t n = strlen(h->three_dir) + strlen(script_files[k]) + 2;
    char *p = pf_malloc(n);
    if (p) snprintf(p, n, "%s/%s", h->three_dir, script_files[k]);
    return p;
}

int html_page_check_scripts(const pf_html_writer *h)
{
    for (int k = 0; k < 2; k++) {
        char *p = script_path(h, k);
        if (!p) return pf_error(PF_ENOMEM, "pf_html_begin: out of memory");
        FILE *f = fopen(p, "rb");
        int e = errno;
        if (f) fclose(f);
        if (!f) {
            pf_error(PF_EIO, "pf_html_begin: cannot read three.js's '%s': %s (Debian's libjs-three: tools/setup-deps; "
                             "or set def.three_dir)", p, strerror(e));
            pf_free(p);
            return PF_EIO;
        }
        pf_free(p);
    }
    return PF_OK;
}

/* A script file copied in whole; one holding "</script" (it would end the element early) is refused. */
static int copy_script(pf_html_writer *h, int k)
{
    char *p = script_path(h, k);
    if (!p) return pf_error(PF_ENOMEM, "pf_html_end: out of memory");
    FILE *f = fopen(p, "rb");
    int rc = f ? PF_OK : pf_error(PF_EIO, "pf_html_end: cannot read '%s': %s", p, strerror(errno));
    long n = -1;
    if (!rc && (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0))
        rc = pf_error(PF_EIO, "pf_html_end: cannot read '%s'", p);
    char *buf = rc ? NULL : pf_malloc((size_t)n + 1);
    if (!rc && !buf) rc = pf_error(PF_ENOMEM, "pf_html_end: out of memory reading '%s'", p);
    if (!rc && fread(buf, 1, (size_t)n, f) != (size_t)n) rc = pf_error(PF_EIO, "pf_html_end: cannot read '%s'", p);
    if (!rc && memmem(buf, (size_t)n, "</script", 8))
        rc = pf_error(PF_EIO, "pf_html_end: '%s' holds '</script': it cannot be inlined", p);
    if (!rc && fwrite(buf, 1, (size_t)n, h->tmp) != (size_t)n)
        rc = pf_error(PF_EIO, "pf_html_end: write error on '%s'", h->path);
    pf_free(buf);
    if (f) fclose(f);
    pf_free(p);
    return rc;
}

/* A JSON string (also safe inside a <script> element: '<' escaped). */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == '>' || c == '&')
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* The title as HTML text. */
static void html_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else fputc(*s, f);
    }
}

static void json_floats(FILE *f, const char *key, const float *v, size_t n)
{
    fprintf(f, "\"%s\":[", key);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%.4g", i ? "," : "", (double)v[i]);
    fputs("]", f);
}

static void json_u32s(FILE *f, const char *key, const uint32_t *v, size_t n)
{
    fprintf(f, "\"%s\":[", key);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%u", i ? "," : "", v[i]);
    fputs("]", f);
}

static void write_pieces(pf_html_writer *h, FILE *f)
{
    fputs("\"pieces\":[", f);
    for (size_t k = 0; k < h->pieces.n; k++) {
        const html_piece *pc = &h->pieces.v[k];
        fprintf(f, "%s\n{\"object\":%u,\"surface\":%d,\"vertices\":%u,\"triangles\":\"", k ? "," : "", pc->object,
                pc->surface, pc->vertices);
        size_t n = 3 * (size_t)pc->triangles;
        unsigned char *b = pf_malloc(4 * n + 1);
        for (size_t i = 0; b && i < n; i++)
            for (int j = 0; j < 4; j++) b[4 * i + (size_t)j] = (unsigned char)(pc->tri[i] >> (8 * j));
        if (b) html_base64(f, b, 4 * n);
        pf_free(b);
        fputs("\"}", f);
    }
    fputs("]", f);
}

static void write_series(pf_html_writer *h, FILE *f)
{
    const html_series *s = &h->series;
    fputs("\"series\":{", f);
    json_floats(f, "collision", s->collision.v, s->collision.n);
    fputc(',', f);
    json_floats(f, "update", s->update.v, s->update.n);
    fputc(',', f);
    json_floats(f, "integration", s->integration.v, s->integration.n);
    fputc(',', f);
    json_u32s(f, "contacts", s->contacts.v, s->contacts.n);
    fputc(',', f);
    json_u32s(f, "groups", s->groups.v, s->groups.n);
    fputs(",\"changed\":[", f);
    for (size_t i = 0; i < s->changed.n; i++) fprintf(f, "%s%u", i ? "," : "", s->changed.v[i]);
    fputs("]}", f);
}

static void write_data(pf_html_writer *h, FILE *f)
{
    fputs("{\"title\":", f);
    json_string(f, h->title);
    double g[3] = {0, 0, 0};
    pf_world_get_gravity(h->w, g); /* the view's up: against gravity */
    fprintf(f, ",\"workers\":%d,\"objects\":%u,\"dt\":%.9g,\"steps\":%llu,\"every\":%u,\"gravity\":[%.9g,%.9g,%.9g],"
               "\"names\":[",
            h->workers, h->objects, h->dt, (unsigned long long)h->steps, h->every, g[0], g[1], g[2]);
    for (size_t k = 0; k < h->names.n; k++) {
        if (k) fputc(',', f);
        json_string(f, h->names.v[k]);
    }
    fputs("],\n", f);
    write_pieces(h, f);
    fputs(",\n", f);
    write_series(h, f);
    fputs(",\n\"frames\":[", f);
    for (size_t k = 0; k < h->frames.n; k++) {
        const html_frame *fr = &h->frames.v[k];
        fprintf(f, "%s\n{\"step\":%llu,\"box\":[%.9g,%.9g,%.9g,%.9g,%.9g,%.9g],\"contacts\":%u,\"spans\":%u,"
                   "\"changed\":%d,\"blob\":\"",
                k ? "," : "", (unsigned long long)fr->step, fr->box[0], fr->box[1], fr->box[2], fr->box[3],
                fr->box[4], fr->box[5], fr->contacts, fr->spans, fr->repartitioned);
        html_base64(f, fr->blob, fr->bytes);
        fputs("\"}", f);
    }
    fputs("]}", f);
}

int html_page_write(pf_html_writer *h)
{
    FILE *f = h->tmp;
    const char *t = (const char *)pf_html_page_template, *end = t + pf_html_page_template_size;
    int rc = PF_OK;
    while (!rc && t < end) {
        const char *m = strstr(t, "@@");
        if (!m) m = end;
        fwrite(t, 1, (size_t)(m - t), f);
        if (m == end) break;
        const char *close = strstr(m + 2, "@@");
        PF_ASSERT(close); /* the template's markers come in pairs */
        size_t len = (size_t)(close - m - 2);
        if (len == 5 && !strncmp(m + 2, "TITLE", 5)) html_text(f, h->title);
        else if (len == 5 && !strncmp(m + 2, "THREE", 5)) rc = copy_script(h, 0);
        else if (len == 5 && !strncmp(m + 2, "ORBIT", 5)) rc = copy_script(h, 1);
        else if (len == 4 && !strncmp(m + 2, "DATA", 4)) write_data(h, f);
        else PF_ASSERT(0 && "unknown marker in html_page.html");
        t = close + 2;
    }
    if (!rc && ferror(f)) rc = pf_error(PF_EIO, "pf_html_end: write error on '%s'", h->path);
    return rc;
}
