/* Checkpoints: the dynamic state of a world (every object's positions — with a rigid body's orientation — and
 * velocities, a BDF2 object's previous step (solver_bdf2.h: a flag, then x and v one step back), the step count,
 * and the collision stage's contact memory: which triangle each vertex touched and on which side,
 * collision_stage.h) in a file written atomically: a temporary file in the same folder, synced, then renamed over
 * the target, so a failure never leaves a truncated checkpoint. The structure (objects, force fields, surfaces) is
 * not saved: a checkpoint goes back into a world built the same way, which a fingerprint of the structure checks.
 * Everything else a step reads (contact fields, groups, solver caches) follows from these, so a resumed run
 * repeats the uninterrupted one bit for bit. */
#define _POSIX_C_SOURCE 200809L
#include "collision_stage.h"
#include "solver_bdf2.h"
#include "world.h"
#include "world_guard.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char MAGIC[8] = {'P', 'F', 'C', 'H', 'K', 'P', 'T', '1'};
enum { VERSION = 2 };
enum { MEMORY_BYTES = 6 * sizeof(uint32_t) + 3 * sizeof(double) }; /* one contact_memory in the file */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

/* doubles of an object's state in the file: x (with the extra values), v, and for a BDF2 object its history flag,
 * xb and vb */
static size_t state_doubles(const pf_object *o)
{
    size_t n3 = 3 * (size_t)o->n;
    return 2 * n3 + o->xextra + (o->solver.kind == PF_SOLVER_BDF2 ? 1 + 2 * n3 : 0);
}

/* The structure a checkpoint fits: each object's kind, point count, extra x values and fixed points, or that it
 * was removed (it has no state in the file). */
static uint64_t fingerprint(const pf_world *w)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < w->obj.n; i++) {
        const pf_object *o = w->obj.v[i];
        uint32_t v[4] = {UINT32_MAX, 0, 0, 0};
        if (o) v[0] = (uint32_t)o->kind, v[1] = o->n, v[2] = o->xextra, v[3] = (uint32_t)o->fixed_list.n;
        h = fnv(h, v, sizeof v);
    }
    return h;
}

typedef struct writer {
    FILE *f;
    uint64_t sum;
    int ok;
} writer;

static void put(writer *wr, const void *p, size_t n)
{
    if (wr->ok && fwrite(p, 1, n, wr->f) != n) wr->ok = 0;
    wr->sum = fnv(wr->sum, p, n);
}

int pf_world_save_state(const pf_world *w, const char *path, const char *note)
{
    static const char fn[] = "pf_world_save_state";
    PF_TRY(pf_world_check_given(w, fn));
    PF_TRY(pf_check_given(path, fn, "path"));
    size_t plen = strlen(path), nlen = note ? strlen(note) : 0;
    if (plen == 0) return pf_error(PF_EINVAL, "%s: path is empty", fn);
    if (nlen >= (1u << 20)) return pf_error(PF_EINVAL, "%s: note of %zu bytes is too long (at most 1 MiB)", fn, nlen);
    char *tmp = pf_malloc(plen + 8);
    if (!tmp) return pf_error(PF_ENOMEM, "out of memory");
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".XXXXXX", 8);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        pf_free(tmp);
        return pf_error(PF_EIO, "%s: cannot create a temporary file beside it: %s", path, strerror(e));
    }
    writer wr = {fdopen(fd, "wb"), 1469598103934665603ull, 1};
    if (!wr.f) {
        close(fd);
        unlink(tmp);
        pf_free(tmp);
        return pf_error(PF_EIO, "%s: cannot write: %s", path, strerror(errno));
    }
    uint32_t head[2] = {VERSION, w->obj.n}, nl = (uint32_t)nlen;
    uint64_t steps = w->steps, fp = fingerprint(w);
    put(&wr, MAGIC, sizeof MAGIC);
    put(&wr, head, sizeof head);
    put(&wr, &steps, sizeof steps);
    put(&wr, &fp, sizeof fp);
    put(&wr, &nl, sizeof nl);
    if (nlen) put(&wr, note, nlen);
    for (uint32_t i = 0; i < w->obj.n; i++) {
        const pf_object *o = w->obj.v[i];
        if (!o) continue; /* removed */
        put(&wr, o->x, (3 * (size_t)o->n + o->xextra) * sizeof *o->x);
        put(&wr, o->v, 3 * (size_t)o->n * sizeof *o->v);
        if (o->solver.kind != PF_SOLVER_BDF2) continue;
        double history = o->bdf_history;
        put(&wr, &history, sizeof history);
        for (int k = 0; k < 2; k++) {
            const double *hv = k ? o->vb : o->xb; /* NULL before its first step: zeros */
            for (size_t j = 0; j < 3 * (size_t)o->n; j++) {
                double d = hv ? hv[j] : 0;
                put(&wr, &d, sizeof d);
            }
        }
    }
    uint32_t nmem = w->col ? (uint32_t)w->col->memory.n : 0;
    put(&wr, &nmem, sizeof nmem);
    for (uint32_t k = 0; k < nmem; k++) {
        const contact_memory *m = &w->col->memory.v[k];
        uint32_t rec[6] = {m->kind, m->psurf, m->pvert, m->tsurf, m->telem, (uint32_t)m->side};
        put(&wr, rec, sizeof rec);
        put(&wr, m->delta, sizeof m->delta);
    }
    uint64_t sum = wr.sum;
    put(&wr, &sum, sizeof sum);
    int ok = wr.ok && fflush(wr.f) == 0 && fsync(fileno(wr.f)) == 0;
    ok = (fclose(wr.f) == 0) && ok;
    if (ok && rename(tmp, path) != 0) ok = 0;
    int e = errno;
    if (!ok) unlink(tmp);
    pf_free(tmp);
    return ok ? PF_OK : pf_error(PF_EIO, "%s: writing the checkpoint failed: %s", path, strerror(e));
}

typedef struct reader {
    const unsigned char *p;
    size_t left;
    uint64_t sum;
} reader;

static int get(reader *rd, void *out, size_t n)
{
    if (rd->left < n) return 0;
    memcpy(out, rd->p, n);
    rd->sum = fnv(rd->sum, rd->p, n);
    rd->p += n;
    rd->left -= n;
    return 1;
}

static int read_all(const char *path, unsigned char **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return pf_error(PF_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = pf_malloc(cap);
    while (b) {
        n += fread(b + n, 1, cap - n, f);
        if (n < cap) break;
        unsigned char *nb = pf_realloc(b, cap, cap * 2);
        if (!nb) {
            pf_free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    int err = ferror(f);
    fclose(f);
    if (!b) return pf_error(PF_ENOMEM, "%s: out of memory reading the checkpoint", path);
    if (err) {
        pf_free(b);
        return pf_error(PF_EIO, "%s: read error", path);
    }
    *buf = b;
    *len = n;
    return PF_OK;
}

/* The header of a checkpoint, up to and including its note (which stays in the buffer at *note_text). */
typedef struct header {
    uint32_t objects;
    uint64_t steps, fingerprint;
    uint32_t note_len;
    const unsigned char *note_text;
} header;

static int read_header(reader *rd, const char *path, header *h)
{
    char magic[8];
    uint32_t head[2];
    if (!get(rd, magic, sizeof magic) || memcmp(magic, MAGIC, sizeof magic))
        return pf_error(PF_EPARSE, "%s: not a PhysFlow checkpoint", path);
    if (!get(rd, head, sizeof head) || head[0] != VERSION || !get(rd, &h->steps, sizeof h->steps) ||
        !get(rd, &h->fingerprint, sizeof h->fingerprint) || !get(rd, &h->note_len, sizeof h->note_len) ||
        h->note_len > rd->left)
        return pf_error(PF_EPARSE, "%s: unsupported version or truncated header", path);
    h->objects = head[1];
    h->note_text = rd->p;
    rd->sum = fnv(rd->sum, rd->p, h->note_len);
    rd->p += h->note_len;
    rd->left -= h->note_len;
    return PF_OK;
}

static void copy_note(const header *h, char *note, size_t note_cap)
{
    if (!note_cap) return;
    size_t n = h->note_len < note_cap - 1 ? h->note_len : note_cap - 1;
    memcpy(note, h->note_text, n);
    note[n] = 0;
}

int pf_world_load_state(pf_world *w, const char *path, char *note, size_t note_cap)
{
    static const char fn[] = "pf_world_load_state";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_check_given(path, fn, "path"));
    if (note_cap > 0) PF_TRY(pf_check_given(note, fn, "note"));
    unsigned char *buf = NULL;
    size_t len = 0;
    int rc = read_all(path, &buf, &len);
    if (rc) return rc;
    reader rd = {buf, len, 1469598103934665603ull};
    header h;
    uint64_t sum;
    if ((rc = read_header(&rd, path, &h))) goto done;
    rc = PF_EPARSE;
    if (h.objects != w->obj.n || h.fingerprint != fingerprint(w)) {
        pf_error(rc, "%s: the checkpoint was made from a different scene (%u objects, this world has %zu)", path,
                 h.objects, w->obj.n);
        goto done;
    }
    /* the state goes to scratch first: a bad file leaves the world as it was */
    size_t total = 0;
    for (uint32_t i = 0; i < w->obj.n; i++)
        if (w->obj.v[i]) total += state_doubles(w->obj.v[i]);
    uint32_t nmem = 0;
    size_t head = total * sizeof(double) + sizeof nmem;
    if (rd.left >= head) memcpy(&nmem, rd.p + total * sizeof(double), sizeof nmem);
    if (rd.left < head || rd.left != head + nmem * MEMORY_BYTES + sizeof sum) {
        pf_error(rc, "%s: truncated or wrong size (%zu bytes of state, %zu expected)", path, rd.left,
                 head + nmem * MEMORY_BYTES + sizeof sum);
        goto done;
    }
    if (nmem && !w->col) {
        pf_error(rc, "%s: the checkpoint holds contacts but this world has no collision stage (call "
                     "pf_world_set_collision before loading it)", path);
        goto done;
    }
    const unsigned char *state = rd.p, *mem = rd.p + head;
    rd.sum = fnv(rd.sum, rd.p, head + nmem * MEMORY_BYTES);
    rd.p += head + nmem * MEMORY_BYTES;
    rd.left -= head + nmem * MEMORY_BYTES;
    uint64_t expect = rd.sum;
    if (!get(&rd, &sum, sizeof sum) || sum != expect) {
        pf_error(rc, "%s: checksum mismatch (the file is damaged)", path);
        goto done;
    }
    if (w->col && pf_vec_reserve(&w->col->memory, nmem + 1)) {
        rc = pf_error(PF_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    for (uint32_t i = 0; i < w->obj.n; i++) /* the BDF2 histories' room, before anything changes */
        if (w->obj.v[i] && w->obj.v[i]->solver.kind == PF_SOLVER_BDF2 && (rc = pf_bdf2_prepare(w->obj.v[i])))
            goto done;
    for (uint32_t i = 0; i < w->obj.n; i++) {
        pf_object *o = w->obj.v[i];
        if (!o) continue;
        size_t nx = 3 * (size_t)o->n + o->xextra, nv = 3 * (size_t)o->n;
        memcpy(o->x, state, nx * sizeof *o->x);
        memcpy(o->v, state + nx * sizeof(double), nv * sizeof *o->v);
        state += (nx + nv) * sizeof(double);
        if (o->solver.kind != PF_SOLVER_BDF2) continue;
        double history;
        memcpy(&history, state, sizeof history);
        o->bdf_history = history != 0;
        memcpy(o->xb, state + sizeof history, nv * sizeof *o->xb);
        memcpy(o->vb, state + sizeof history + nv * sizeof(double), nv * sizeof *o->vb);
        state += (1 + 2 * nv) * sizeof(double);
    }
    if (w->col) {
        for (uint32_t k = 0; k < nmem; k++, mem += MEMORY_BYTES) {
            uint32_t rec[6];
            contact_memory *m = &w->col->memory.v[k];
            memcpy(rec, mem, sizeof rec);
            *m = (contact_memory){rec[0], rec[1], rec[2], rec[3], rec[4], (int32_t)rec[5], {0}};
            memcpy(m->delta, mem + sizeof rec, sizeof m->delta);
        }
        w->col->memory.n = nmem;
    }
    w->steps = h.steps;
    copy_note(&h, note, note_cap);
    rc = PF_OK;
done:
    pf_free(buf);
    return rc;
}

int pf_state_file_note(const char *path, char *note, size_t note_cap)
{
    static const char fn[] = "pf_state_file_note";
    PF_TRY(pf_check_given(path, fn, "path"));
    PF_TRY(pf_check_given(note, fn, "note"));
    if (note_cap == 0) return pf_error(PF_EINVAL, "%s: note_cap must be >= 1, got 0", fn);
    unsigned char *buf = NULL;
    size_t len = 0;
    int rc = read_all(path, &buf, &len);
    if (rc) return rc;
    reader rd = {buf, len, 1469598103934665603ull};
    header h;
    if (!(rc = read_header(&rd, path, &h))) copy_note(&h, note, note_cap);
    pf_free(buf);
    return rc;
}
