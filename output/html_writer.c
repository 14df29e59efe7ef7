/* The run viewer's writer: begin (the path checked, the drawn pieces fixed, tracing and the contact callback
 * taken), a frame after each step (the per-step series always; a frame every `every` steps, thinned by half when
 * the frames pass their budget), end (the page written whole through a temporary file). */
#include "html_writer.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

pf_html_def pf_html_default_def(void)
{
    return (pf_html_def){.every = 0,
                         .max_bytes = (size_t)16 << 20,
                         .max_contacts = 4000,
                         .force = 0,
                         .title = "PhysFlow run",
                         .three_dir = "/usr/share/javascript/three"};
}

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = pf_malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

static void free_writer(pf_html_writer *h)
{
    for (size_t k = 0; k < h->pieces.n; k++) pf_free(h->pieces.v[k].tri);
    pf_vec_free(&h->pieces);
    for (size_t k = 0; k < h->frames.n; k++) pf_free(h->frames.v[k].blob);
    pf_vec_free(&h->frames);
    pf_vec_free(&h->contacts);
    for (size_t k = 0; k < h->names.n; k++) pf_free(h->names.v[k]);
    pf_vec_free(&h->names);
    html_series *s = &h->series;
    pf_vec_free(&s->collision), pf_vec_free(&s->update), pf_vec_free(&s->integration);
    pf_vec_free(&s->contacts), pf_vec_free(&s->groups), pf_vec_free(&s->changed);
    if (h->tmp) fclose(h->tmp);
    if (h->tmp_path) unlink(h->tmp_path);
    pf_free(h->tmp_path);
    pf_free(h->path), pf_free(h->title), pf_free(h->three_dir);
    pf_free(h);
}

/* Whether the step under way (h->steps + 1) gets a frame. */
static int frame_step(const pf_html_writer *h, uint64_t step)
{
    return step % h->every == 0;
}

static void keep_contacts(const pf_world_contact *c, uint32_t n, void *ctx)
{
    pf_html_writer *h = ctx;
    h->contacts.n = 0;
    if (!frame_step(h, h->steps + 1)) return;
    for (uint32_t i = 0; i < n && i < h->def.max_contacts; i++) {
        html_contact k;
        memcpy(k.p, c[i].point_a, sizeof k.p);
        memcpy(k.n, c[i].normal, sizeof k.n);
        if (pf_vec_push(&h->contacts, k)) break; /* out of memory: fewer contacts drawn */
    }
}

/* The page's path: refused when it exists (unless def.force) or is a folder; its temporary file opened beside it
 * so that the folder is known to take files before the first step. */
static int open_page(pf_html_writer *h, const char *path)
{
    static const char fn[] = "pf_html_begin";
    struct stat st;
    if (!*path) return pf_error(PF_EINVAL, "%s: path is empty", fn);
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return pf_error(PF_EIO, "%s: cannot write '%s': it is a folder", fn, path);
        if (!h->def.force)
            return pf_error(PF_EIO, "%s: '%s' exists: not overwritten (def.force replaces it)", fn, path);
    }
    size_t n = strlen(path);
    h->path = copy_string(path);
    h->tmp_path = pf_malloc(n + 16);
    if (!h->path || !h->tmp_path) return pf_error(PF_ENOMEM, "%s: out of memory", fn);
    snprintf(h->tmp_path, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(h->tmp_path);
    if (fd < 0) {
        int e = errno;
        pf_free(h->tmp_path);
        h->tmp_path = NULL;
        return pf_error(PF_EIO, "%s: cannot write beside '%s': %s", fn, path, strerror(e));
    }
    fchmod(fd, 0644); /* mkstemp's 0600 would hide the page from a browser run by another user */
    h->tmp = fdopen(fd, "w");
    if (!h->tmp) {
        close(fd);
        return pf_error(PF_EIO, "%s: cannot write '%s'", fn, h->tmp_path);
    }
    return PF_OK;
}

/* Surfaces are drawn as they are; an object without a surface as its points (a rigid body by its centre). */
static int add_pieces(pf_html_writer *h)
{
    pf_world *w = h->w;
    uint8_t *has_surface = pf_calloc(h->objects + 1, 1);
    if (!has_surface) return PF_ENOMEM;
    int rc = PF_OK;
    for (uint32_t k = 0; k < pf_world_surfaces(w) && !rc; k++) {
        pf_surface_id s = {k};
        pf_object_id o = {0};
        if (pf_world_get_surface_info(w, s, &o, NULL, NULL) != PF_OK) continue; /* removed */
        html_piece pc = {.object = o.index, .surface = (int32_t)k};
        pf_world_surface_positions(w, s, &pc.vertices);
        const uint32_t *t = pf_world_surface_triangles(w, s, &pc.triangles);
        if (pc.triangles) {
            pc.tri = pf_malloc(3 * (size_t)pc.triangles * sizeof *pc.tri);
            if (!pc.tri) rc = PF_ENOMEM;
            else memcpy(pc.tri, t, 3 * (size_t)pc.triangles * sizeof *pc.tri);
        }
        if (!rc && pf_vec_push(&h->pieces, pc)) pf_free(pc.tri), rc = PF_ENOMEM;
        if (o.index < h->objects) has_surface[o.index] = 1;
    }
    for (uint32_t k = 0; k < h->objects && !rc; k++) {
        pf_object_id o = {k};
        if (has_surface[k] || !pf_world_object_exists(w, o)) continue;
        html_piece pc = {.object = k, .surface = -1};
        pf_world_positions(w, o, &pc.vertices);
        if (pf_world_get_rigid_state(w, o, NULL, NULL, NULL, NULL) == PF_OK) pc.vertices = 1; /* point 1: not a place */
        if (pf_vec_push(&h->pieces, pc)) rc = PF_ENOMEM;
    }
    pf_free(has_surface);
    return rc ? pf_error(rc, "pf_html_begin: out of memory") : PF_OK;
}

static int check_def(const pf_html_def *def)
{
    static const char fn[] = "pf_html_begin";
    if (def->every == 0 && def->max_bytes < ((size_t)1 << 20))
        return pf_error(PF_EINVAL, "%s: def.max_bytes must be at least 1 MiB (1048576) with def.every = 0, got %zu",
                        fn, def->max_bytes);
    PF_TRY(pf_check_given(def->title, fn, "def.title"));
    PF_TRY(pf_check_given(def->three_dir, fn, "def.three_dir"));
    return PF_OK;
}

/* What a blob of n bytes takes in the page (base64). */
static size_t page_bytes(size_t n)
{
    return (n + 2) / 3 * 4;
}

/* Records the frame of the step just run (or of the start), thinning the frames by half over the budget. */
static int add_frame_now(pf_html_writer *h, int spans, double *run_ms)
{
    html_frame f;
    PF_TRY(html_frame_capture(h, spans, &f, run_ms));
    f.repartitioned = h->changed_since_frame;
    h->changed_since_frame = 0;
    if (pf_vec_push(&h->frames, f)) {
        pf_free(f.blob);
        return pf_error(PF_ENOMEM, "pf_html_add_frame: out of memory");
    }
    h->frame_bytes += page_bytes(f.bytes);
    while (h->def.every == 0 && h->frame_bytes > h->def.max_bytes && h->frames.n > 2) {
        size_t kept = 0; /* keep the frames whose step is a multiple of twice the stride (the first is step 0) */
        h->frame_bytes = 0;
        for (size_t k = 0; k < h->frames.n; k++) {
            html_frame *g = &h->frames.v[k];
            if (g->step % (2 * (uint64_t)h->every) == 0) {
                h->frames.v[kept++] = *g;
                h->frame_bytes += page_bytes(g->bytes);
            } else {
                if (k + 1 < h->frames.n) h->frames.v[k + 1].repartitioned |= g->repartitioned;
                pf_free(g->blob);
            }
        }
        h->frames.n = kept;
        h->every *= 2;
    }
    return PF_OK;
}

int pf_html_begin(const char *path, pf_world *w, const pf_html_def *def, pf_html_writer **out)
{
    static const char fn[] = "pf_html_begin";
    PF_TRY(pf_check_given(out, fn, "out"));
    *out = NULL;
    PF_TRY(pf_check_given(path, fn, "path"));
    PF_TRY(pf_check_given(w, fn, "w"));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(check_def(def));
    pf_html_writer *h = pf_calloc(1, sizeof *h);
    if (!h) return pf_error(PF_ENOMEM, "%s: out of memory", fn);
    h->def = *def;
    h->w = w;
    h->every = def->every ? def->every : 1;
    h->objects = pf_world_objects(w);
    h->workers = pf_runtime_workers(pf_world_runtime(w));
    h->title = copy_string(def->title);
    h->three_dir = copy_string(def->three_dir);
    h->def.title = h->title, h->def.three_dir = h->three_dir; /* the caller's strings need not outlive begin */
    int rc = !h->title || !h->three_dir ? pf_error(PF_ENOMEM, "%s: out of memory", fn) : PF_OK;
    if (!rc) rc = pf_world_get_dt(w, &h->dt);
    if (!rc) rc = open_page(h, path);
    if (!rc) rc = html_page_check_scripts(h); /* three.js missing: said now, not after the run */
    if (!rc) rc = add_pieces(h);
    pf_world_stats ws;
    if (!rc) rc = pf_world_get_stats(w, &ws);
    pf_world_update up;
    if (!rc) rc = pf_world_get_last_update(w, &up, &h->updates);
    h->repartitions = rc ? 0 : ws.repartitions;
    if (!rc) rc = pf_runtime_trace_start(pf_world_runtime(w));
    h->traced = !rc;
    pf_collision_def cd;
    if (!rc && def->max_contacts && pf_world_get_collision(w, &cd) == PF_OK) { /* else: no contacts to draw */
        rc = pf_world_set_contact_callback(w, keep_contacts, h);
        h->callback = !rc;
    }
    double run_ms;
    if (!rc) rc = add_frame_now(h, 0, &run_ms);
    if (rc) {
        pf_html_discard(h);
        return rc;
    }
    *out = h;
    return PF_OK;
}

/* The step's series: stage times, contacts, groups, and whether the graph changed (regrouped or repartitioned). */
static int add_series(pf_html_writer *h, double run_ms)
{
    pf_collision_stats cs;
    pf_world_stats ws;
    pf_world_update up;
    uint32_t updates = 0;
    memset(&cs, 0, sizeof cs);
    pf_world_get_collision_stats(h->w, &cs); /* PF_ESTATE without a collision stage: zeros */
    PF_TRY(pf_world_get_stats(h->w, &ws));
    PF_TRY(pf_world_get_last_update(h->w, &up, &updates));
    int updated = updates != h->updates, changed = updated || ws.repartitions != h->repartitions;
    h->updates = updates, h->repartitions = ws.repartitions;
    h->changed_since_frame |= changed;
    html_series *s = &h->series;
    int bad = pf_vec_push(&s->collision, (float)cs.ms);
    bad |= pf_vec_push(&s->update, (float)(updated ? up.ms_record + up.ms_runtime : 0));
    bad |= pf_vec_push(&s->integration, (float)run_ms);
    bad |= pf_vec_push(&s->contacts, cs.contacts);
    bad |= pf_vec_push(&s->groups, ws.groups);
    bad |= pf_vec_push(&s->changed, (uint8_t)changed);
    return bad ? pf_error(PF_ENOMEM, "pf_html_add_frame: out of memory") : PF_OK;
}

int pf_html_add_frame(pf_html_writer *h, pf_world *w)
{
    static const char fn[] = "pf_html_add_frame";
    PF_TRY(pf_check_given(h, fn, "h"));
    PF_TRY(pf_check_given(w, fn, "w"));
    if (w != h->w) return pf_error(PF_EINVAL, "%s: w is not the world the writer began with", fn);
    h->steps++;
    double run_ms = 0;
    int rc = frame_step(h, h->steps) ? add_frame_now(h, 1, &run_ms) : html_spans_skip(h, &run_ms);
    h->contacts.n = 0;
    return rc ? rc : add_series(h, run_ms);
}

/* Gives the world back what begin took. */
static void release_world(pf_html_writer *h)
{
    if (h->callback) pf_world_set_contact_callback(h->w, NULL, NULL);
    if (h->traced) pf_runtime_trace_stop(pf_world_runtime(h->w));
    h->callback = h->traced = 0;
}

void pf_html_discard(pf_html_writer *h)
{
    if (!h) return;
    release_world(h);
    free_writer(h);
}

int pf_html_end(pf_html_writer *h)
{
    static const char fn[] = "pf_html_end";
    PF_TRY(pf_check_given(h, fn, "h"));
    release_world(h);
    int rc = html_page_write(h);
    FILE *f = h->tmp;
    h->tmp = NULL;
    if (fclose(f) != 0 && !rc) rc = pf_error(PF_EIO, "%s: write error on '%s'", fn, h->path);
    struct stat st;
    if (!rc && !h->def.force && stat(h->path, &st) == 0) /* made meanwhile by someone else: theirs stays */
        rc = pf_error(PF_EIO, "%s: '%s' exists: not overwritten (def.force replaces it)", fn, h->path);
    if (!rc && rename(h->tmp_path, h->path) != 0)
        rc = pf_error(PF_EIO, "%s: cannot write '%s': %s", fn, h->path, strerror(errno));
    if (!rc) {
        pf_free(h->tmp_path); /* renamed: nothing to remove */
        h->tmp_path = NULL;
    }
    free_writer(h);
    return rc;
}
