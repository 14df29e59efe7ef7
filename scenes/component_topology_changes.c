/* SOFA's TopologicalChangeProcessor: a file of timed commands (`T= 0.1`, `REMOVE= 3`, the indices on the next line)
 * that removes elements from a topology during the run. Parsed at load (file:line errors), checked against the
 * topology's element count, then applied by a step hook of the scene (step_hooks.c) at the start of the
 * steps whose time has come, on every force field made from the topology's elements (pf_world_remove_elements:
 * SOFA's renumbering). Adding and cutting (ADD=, INCISE=) are load errors. */
#include "components.h"
#include "step_hooks.h"
#include "topology_changes.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* ---- the file ---- */

void sc_topology_changes_free(sc_topology_changes *t)
{
    for (uint32_t k = 0; k < t->ncmds; k++) pf_free(t->cmds[k].idx);
    pf_free(t->cmds);
    pf_free(t->blocks);
    memset(t, 0, sizeof *t);
}

/* A line of text: [s, e). */
typedef struct text_line {
    const char *s, *e;
} text_line;

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* the next word of *l (advanced past it) into buf (NUL-terminated, cut at cap - 1: *len the whole length);
 * 0 when none is left */
static int next_word(text_line *l, char *buf, size_t cap, size_t *len)
{
    while (l->s < l->e && is_space(*l->s)) l->s++;
    if (l->s == l->e) return 0;
    const char *w = l->s;
    while (l->s < l->e && !is_space(*l->s)) l->s++;
    *len = (size_t)(l->s - w);
    size_t k = *len < cap - 1 ? *len : cap - 1;
    memcpy(buf, w, k);
    buf[k] = 0;
    return 1;
}

static int parse_real(const char *w, size_t len, double *out)
{
    if (len == 0 || len > 60) return 0;
    char *end;
    *out = strtod(w, &end);
    return *end == 0 && isfinite(*out);
}

static int parse_index(const char *w, size_t len, uint32_t *out)
{
    if (len == 0 || len > 10) return 0;
    for (size_t k = 0; k < len; k++)
        if (w[k] < '0' || w[k] > '9') return 0;
    unsigned long long v = strtoull(w, NULL, 10);
    if (v > UINT32_MAX) return 0;
    *out = (uint32_t)v;
    return 1;
}

static void note_once(char *note, size_t size, const char *fmt, const char *name, int line, uint32_t a, uint32_t b)
{
    if (note && size && !note[0]) snprintf(note, size, fmt, name, line, a, b);
}

static int by_value(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The index line of `REMOVE= n` (line `line` + 1): n indices, read as SOFA reads them (the first n words; one
 * missing is 0, as a failed read gives). Distinct, else an error. */
static int read_indices(const char *name, int line, text_line l, int at_end, uint32_t n, sc_remove_cmd *cmd,
                        char *note, size_t note_size)
{
    if (at_end)
        return pf_error(PF_EPARSE, "%s:%d: REMOVE= %u announces indices on the next line, but the file ends", name,
                        line, n);
    char w[64];
    size_t len;
    uint32_t words = 0;
    for (text_line count = l; words < n && next_word(&count, w, sizeof w, &len);) words++;
    if (n - words > 1)
        return pf_error(PF_EPARSE, "%s:%d: REMOVE= %u, but line %d gives %u indices (SOFA would read the %u "
                        "missing ones as element 0, removing it %u times)",
                        name, line, n, line + 1, words, n - words, n - words);
    uint32_t *idx = pf_malloc(((size_t)words + 1) * sizeof *idx);
    if (!idx) return pf_error(PF_ENOMEM, "%s:%d: out of memory for %u indices", name, line, n);
    uint32_t got = 0;
    while (got < n && next_word(&l, w, sizeof w, &len)) {
        if (!parse_index(w, len, &idx[got])) {
            pf_free(idx);
            return pf_error(PF_EPARSE, "%s:%d: '%s' is not an element index (REMOVE= on line %d)", name, line + 1,
                            w, line);
        }
        got++;
    }
    if (got < n) { /* SOFA's stream gives 0 for the one it cannot read */
        note_once(note, note_size, "%s:%d: REMOVE= %u with %u indices on the next line: the missing one is read "
                  "as 0, as SOFA reads it", name, line, n, got);
        idx[got++] = 0;
    } else if (next_word(&l, w, sizeof w, &len)) {
        note_once(note, note_size, "%s:%d: REMOVE= %u with more indices on the next line: the first %u are "
                  "removed, as in SOFA", name, line, n, n);
    }
    uint32_t *sorted = pf_malloc(((size_t)n + 1) * sizeof *sorted); /* n <= words + 1 */
    if (!sorted) {
        pf_free(idx);
        return pf_error(PF_ENOMEM, "%s:%d: out of memory for %u indices", name, line, n);
    }
    memcpy(sorted, idx, (size_t)n * sizeof *idx);
    qsort(sorted, n, sizeof *sorted, by_value);
    for (uint32_t k = 1; k < n; k++)
        if (sorted[k] == sorted[k - 1]) {
            uint32_t twice = sorted[k];
            pf_free(sorted);
            pf_free(idx);
            return pf_error(PF_EPARSE, "%s:%d: element %u is removed twice by one REMOVE=", name, line + 1, twice);
        }
    pf_free(sorted);
    *cmd = (sc_remove_cmd){.line = line, .idx = idx, .n = n};
    return PF_OK;
}

static int push_block(sc_topology_changes *t, double time, int line)
{
    if (t->nblocks % 16 == 0) {
        sc_change_block *b = pf_realloc(t->blocks, t->nblocks * sizeof *b, (t->nblocks + 16) * sizeof *b);
        if (!b) return pf_error(PF_ENOMEM, "out of memory for topological changes");
        t->blocks = b;
    }
    t->blocks[t->nblocks++] = (sc_change_block){.time = time, .line = line, .first = t->ncmds};
    return PF_OK;
}

static int parse_lines(const char *name, const char *data, size_t length, sc_topology_changes *t, char *note,
                       size_t note_size)
{
    const char *p = data, *end = data + length;
    int line = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        text_line l = {p, nl ? nl : end};
        p = nl ? nl + 1 : end;
        line++;
        char w[64];
        size_t len;
        if (!next_word(&l, w, sizeof w, &len)) continue; /* a blank line */
        if (!strcmp(w, "T=")) {
            double time;
            int given = next_word(&l, w, sizeof w, &len);
            if (!given || !parse_real(w, len, &time))
                return pf_error(PF_EPARSE, "%s:%d: T= needs a time in s, got '%s'", name, line, given ? w : "");
            PF_TRY(push_block(t, time, line));
        } else if (!strcmp(w, "REMOVE=")) {
            uint32_t n;
            if (!next_word(&l, w, sizeof w, &len) || !parse_index(w, len, &n))
                return pf_error(PF_EPARSE, "%s:%d: REMOVE= needs a count of elements", name, line);
            if (!t->nblocks) PF_TRY(push_block(t, 0.0, 0)); /* SOFA's clock starts at 0: due at once */
            const char *nl2 = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
            text_line next = {p, nl2 ? nl2 : end};
            if (t->ncmds % 16 == 0) {
                sc_remove_cmd *c = pf_realloc(t->cmds, t->ncmds * sizeof *c, (t->ncmds + 16) * sizeof *c);
                if (!c) return pf_error(PF_ENOMEM, "out of memory for topological changes");
                t->cmds = c;
            }
            PF_TRY(read_indices(name, line, next, p >= end, n, &t->cmds[t->ncmds], note, note_size));
            t->ncmds++;
            t->blocks[t->nblocks - 1].ncmds++;
            p = nl2 ? nl2 + 1 : end; /* the index line is read */
            line++;
        } else if (!strcmp(w, "ADD=") || !strcmp(w, "INCISE=")) {
            return pf_error(PF_ENOTSUP, "%s:%d: %s is not supported: PhysFlow %s; it removes elements only "
                            "(REMOVE=)", name, line, w,
                            w[0] == 'A' ? "does not add elements or points during a run"
                                        : "does not cut meshes (an incision adds points along a path)");
        } else {
            return pf_error(PF_EPARSE, "%s:%d: unknown command '%s' (T=, REMOVE=)", name, line, w);
        }
    }
    return PF_OK;
}

int sc_parse_topology_changes(const char *name, const char *data, size_t length, sc_topology_changes *out,
                              char *note, size_t note_size)
{
    memset(out, 0, sizeof *out);
    if (note && note_size) note[0] = 0;
    int rc = parse_lines(name, data, length, out, note, note_size);
    if (rc) sc_topology_changes_free(out);
    return rc;
}

/* ---- the force fields made from a node's elements ---- */

int sc_note_element_field(pf_scene_component *c, pf_force_field_id id, sc_element_kind kind, uint32_t count,
                          int same_numbering)
{
    sc_element_field f = {.id = id, .kind = kind, .count = count, .same_numbering = same_numbering,
                          .type = TYPE(c), .line = sc_line(c->el)};
    if (pf_vec_push(&c->node->element_fields, f)) return pf_error(PF_ENOMEM, "out of memory");
    return PF_OK;
}

/* ---- the processor, applied by the step hook ---- */

typedef struct processor {
    char *file;        /* for messages */
    sc_topology_changes t;
    double shift;      /* s: SOFA's shift, added to the time */
    uint32_t next;     /* the first block not read yet */
    pf_force_field_id *fields;
    uint32_t nfields;
} processor;

/* Every processor of a scene: the world has one step hook. */
typedef struct processors {
    PF_VEC(processor *) v;
} processors;

static void processor_free(processor *p)
{
    if (!p) return;
    sc_topology_changes_free(&p->t);
    pf_free(p->fields);
    pf_free(p->file);
    pf_free(p);
}

static void processors_free(void *state)
{
    processors *s = state;
    for (uint32_t k = 0; k < s->v.n; k++) processor_free(s->v.v[k]);
    pf_vec_free(&s->v);
    pf_free(s);
}

/* SOFA's readNext: at a step's start (its time + shift), the blocks whose T= has come are read in file order up to
 * the first one still to come; of those, only the last one's commands run (reading a T= that has come drops the
 * lines gathered before it). Times equal within DBL_EPSILON have come. */
static uint32_t due_block(const processor *p, uint32_t *next, double t)
{
    uint32_t last = UINT32_MAX;
    while (*next < p->t.nblocks) {
        double bt = p->t.blocks[*next].time;
        if (!(bt < t || fabs(bt - t) < DBL_EPSILON)) break;
        last = (*next)++;
    }
    return last;
}

static int run_processor(pf_world *w, processor *p, double time)
{
    double t = time + p->shift;
    uint32_t last = due_block(p, &p->next, t);
    if (last == UINT32_MAX) return PF_OK;
    const sc_change_block *b = &p->t.blocks[last];
    for (uint32_t k = 0; k < b->ncmds; k++) {
        const sc_remove_cmd *cmd = &p->t.cmds[b->first + k];
        if (cmd->n == 0) continue; /* its indices were all out of range (check_block) */
        for (uint32_t f = 0; f < p->nfields; f++) {
            int rc = pf_world_remove_elements(w, p->fields[f], cmd->idx, cmd->n);
            if (rc) {
                char why[400];
                snprintf(why, sizeof why, "%s", pf_last_error());
                return pf_error(rc, "%s:%d: TopologicalChangeProcessor at t = %g s: %s", p->file, cmd->line, t, why);
            }
        }
    }
    return PF_OK;
}

static int step_hook(pf_world *w, double time, void *ctx)
{
    processors *s = ctx;
    for (uint32_t k = 0; k < s->v.n; k++) PF_TRY(run_processor(w, s->v.v[k], time));
    return PF_OK;
}

/* The kind of element SOFA's modifier of node n removes: the highest its topology has. */
static sc_element_kind topology_kind(const sc_node *n, uint32_t *count)
{
    const sc_mesh *m = &n->mesh;
    *count = 0;
    if (n->topology == SC_TOPO_GRID) {
        const int *g = n->def.grid;
        int cells = 1, dims = 0;
        for (int a = 0; a < 3; a++)
            if (g[a] > 1) cells *= g[a] - 1, dims++;
        *count = dims == 3 ? (uint32_t)cells : 0;
        return dims == 3 ? SC_ELEMENT_HEXAHEDRA : SC_ELEMENT_NONE;
    }
    if (n->topology != SC_TOPO_MESH) return SC_ELEMENT_NONE;
    if (m->nhexa) return *count = m->nhexa, SC_ELEMENT_HEXAHEDRA;
    if (m->ntetra) return *count = m->ntetra, SC_ELEMENT_TETRAHEDRA;
    if (m->nquads) return *count = m->nquads, SC_ELEMENT_QUADS;
    if (m->ntris) return *count = m->ntris, SC_ELEMENT_TRIANGLES;
    if (m->nedges) return *count = m->nedges, SC_ELEMENT_EDGES;
    return SC_ELEMENT_NONE;
}

static const char *kind_name(sc_element_kind k)
{
    static const char *const names[] = {"no elements", "edges", "triangles", "quads", "tetrahedra", "hexahedra"};
    return names[k];
}

/* block b's commands against *count elements (lowered by each). An index out of range then is dropped from its
 * command with a warning: SOFA's modifiers (removeTetrahedra, removeTriangles, ...) filter such indices out, warn
 * and remove the others. */
static int check_block(pf_scene_component *c, processor *p, const sc_change_block *b, uint32_t *count,
                       sc_element_kind kind)
{
    for (uint32_t k = b->first; k < b->first + b->ncmds; k++) {
        sc_remove_cmd *cmd = &p->t.cmds[k];
        uint32_t kept = 0;
        for (uint32_t i = 0; i < cmd->n; i++) {
            if (cmd->idx[i] >= *count) {
                pf_scene_component_warning(c, "%s: %s:%d: element %u is out of range: the topology has %u %s then; "
                                           "not removed (SOFA's modifier skips it)", TYPE(c), p->file,
                                           cmd->line + 1, cmd->idx[i], *count, kind_name(kind));
                continue;
            }
            cmd->idx[kept++] = cmd->idx[i];
        }
        cmd->n = kept;
        *count -= cmd->n;
    }
    return PF_OK;
}

/* The blocks that run (runs[b] = 1) when the world steps by dt from time 0, as the hook will run them; blocks
 * past the first 10^7 steps are taken to run. */
static void schedule(const processor *p, double dt, uint8_t *runs)
{
    double t = 0;
    uint32_t next = 0;
    for (uint32_t step = 0; next < p->t.nblocks && step < 10000000; step++, t += dt) {
        uint32_t b = due_block(p, &next, t + p->shift);
        if (b != UINT32_MAX) runs[b] = 1;
    }
    for (; next < p->t.nblocks; next++) runs[next] = 1;
}

/* Every command that runs (at the world's dt) keeps the indices below the count left then, the others dropped
 * with a warning naming the line (check_block). */
static int check_counts(pf_scene_component *c, processor *p, uint32_t count, sc_element_kind kind)
{
    double dt = 0;
    PF_TRY(pf_world_get_dt(c->L->scene->world, &dt));
    uint8_t *runs = pf_calloc(p->t.nblocks + 1, 1);
    if (!runs) return pf_error(PF_ENOMEM, "out of memory");
    schedule(p, dt, runs);
    for (uint32_t b = 0; b < p->t.nblocks; b++) {
        if (!runs[b]) continue;
        int rc = check_block(c, p, &p->t.blocks[b], &count, kind);
        if (rc) {
            pf_free(runs);
            return rc;
        }
    }
    pf_free(runs);
    return PF_OK;
}

/* Nodes below n whose topology a topological mapping derived from n's (Tetra2TriangleTopologicalMapping): the
 * first one's name, or NULL. */
static const sc_node *derived_below(const sc_node *n, const sc_node *from)
{
    for (uint32_t k = 0; k < n->children.n; k++) {
        const sc_node *ch = n->children.v[k];
        if (ch->topology_source == from) return ch;
        const sc_node *d = derived_below(ch, from);
        if (d) return d;
    }
    return NULL;
}

static int read_file(pf_scene_component *c, const char *path, char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return pf_scene_component_error(c, PF_EIO, "%s: cannot open '%s'", TYPE(c), path);
    *data = NULL;
    *len = 0;
    size_t cap = 0;
    int rc = PF_OK;
    for (;;) {
        if (*len == cap) {
            size_t ncap = cap ? 2 * cap : 4096;
            char *d = ncap > ((size_t)1 << 31) ? NULL : pf_realloc(*data, cap, ncap);
            if (!d) {
                rc = pf_scene_component_error(c, PF_ENOMEM, "%s: '%s' is too large to read", TYPE(c), path);
                break;
            }
            *data = d, cap = ncap;
        }
        size_t got = fread(*data + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0) break;
    }
    if (!rc && ferror(f)) rc = pf_scene_component_error(c, PF_EIO, "%s: read error on '%s'", TYPE(c), path);
    fclose(f);
    if (rc) pf_free(*data), *data = NULL;
    return rc;
}

/* the processor's file, parsed */
static int load_file(pf_scene_component *c, processor *p)
{
    const char *file = pf_scene_component_string(c, "filename");
    if (!file || !file[0])
        return pf_scene_component_error(c, PF_EPARSE, "%s: filename is required (PhysFlow reads the changes "
                                        "from a file; useDataInputs is not supported)", TYPE(c));
    char path[4096];
    int rc = sc_resolve_scene_file(c->L, NULL, file, "topological changes file", path, sizeof path);
    if (rc) return pf_scene_component_error(c, rc, "%s: %s", TYPE(c), pf_last_error());
    size_t plen = strlen(path) + 1;
    if (!(p->file = pf_malloc(plen))) return pf_error(PF_ENOMEM, "out of memory");
    memcpy(p->file, path, plen);
    char *data = NULL;
    size_t len = 0;
    PF_TRY(read_file(c, path, &data, &len));
    char note[300];
    rc = sc_parse_topology_changes(path, data, len, &p->t, note, sizeof note);
    pf_free(data);
    if (rc) {
        char why[600];
        snprintf(why, sizeof why, "%s", pf_last_error());
        return pf_scene_component_error(c, rc, "%s: %s", TYPE(c), why);
    }
    if (note[0]) pf_scene_component_warning(c, "%s: %s", TYPE(c), note);
    return PF_OK;
}

/* SOFA's attributes PhysFlow refuses: other sources of changes, and repeating the file */
static int refuse_modes(pf_scene_component *c)
{
    int on = 0, rc;
    if ((rc = sc_parse_bool(c, "useDataInputs", &on)) < 0) return rc;
    if (rc && on)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: useDataInputs=\"true\" (lists of elements in the "
                                        "scene) is not supported: give the changes in a file (filename)", TYPE(c));
    on = 0;
    if ((rc = sc_parse_bool(c, "loop", &on)) < 0) return rc;
    if (rc && on)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: loop=\"true\" (reading the file again from its start) "
                                        "is not supported", TYPE(c));
    return PF_OK;
}

/* the fields made from node n's elements of `kind` in the topology's numbering; warns about the others */
static int collect_fields(pf_scene_component *c, const sc_node *n, sc_element_kind kind, uint32_t count,
                          processor *p)
{
    p->fields = pf_malloc(((size_t)n->element_fields.n + 1) * sizeof *p->fields);
    if (!p->fields) return pf_error(PF_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < n->element_fields.n; k++) {
        const sc_element_field *f = &n->element_fields.v[k];
        if (f->kind == kind && f->same_numbering && f->count == count)
            p->fields[p->nfields++] = f->id;
        else
            pf_scene_component_warning(c, "%s: %s (line %d) keeps all its elements: they are not the topology's "
                                       "%s one for one, which PhysFlow cannot renumber as SOFA does",
                                       TYPE(c), f->type, f->line, kind_name(kind));
    }
    return PF_OK;
}

int sc_topological_change_processor(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    (void)pf_scene_component_string(c, "listening"); /* SOFA's processor always listens: read, nothing to say */
    static const char *const ignored[] = {"saveIndicesAtInit", "epsilonSnapPath", "epsilonSnapBorder",
                                          "draw", "printLog", "interval", "timeToRemove", "listChanges",
                                          "pointsToRemove", "edgesToRemove", "trianglesToRemove", "quadsToRemove",
                                          "tetrahedraToRemove", "hexahedraToRemove"};
    SC_IGNORE_ATTRS(c, ignored);
    int rc = refuse_modes(c);
    if (rc) return rc;
    sc_node *n = c->node;
    const char *link = pf_scene_component_string(c, "topology");
    if (link) {
        xmlNode *comp;
        const char *field;
        if ((rc = sc_resolve_link(c, "topology", link, &n, &comp, &field))) return rc;
    }
    processor *p = pf_calloc(1, sizeof *p);
    if (!p) return pf_error(PF_ENOMEM, "out of memory");
    if ((rc = pf_scene_component_real(c, "shift", -1e300, 1e300, &p->shift)) < 0 || (rc = load_file(c, p))) {
        processor_free(p);
        return rc < 0 ? rc : PF_EPARSE;
    }
    uint32_t count;
    sc_element_kind kind = topology_kind(n, &count);
    if (kind == SC_ELEMENT_NONE && p->t.ncmds) rc = pf_scene_component_error(
        c, PF_EPARSE, "%s: node '%s' has no topology with elements to remove", TYPE(c), n->name);
    else if (kind == SC_ELEMENT_QUADS && p->t.ncmds)
        rc = pf_scene_component_error(c, PF_ENOTSUP, "%s: removing quads is not supported (PhysFlow's fields "
                                      "hold a quad as two triangles)", TYPE(c));
    if (!rc) rc = check_counts(c, p, count, kind);
    if (!rc) rc = collect_fields(c, n, kind, count, p);
    if (rc) {
        processor_free(p);
        return rc;
    }
    if (!p->nfields)
        pf_scene_component_warning(c, "%s: no force field of node '%s' is made from its %s: the removals change "
                                   "nothing in PhysFlow", TYPE(c), n->name, kind_name(kind));
    if (n->point_masses) /* measured on the mesh (scenes/component_mass.c) */
        pf_scene_component_warning(c, "%s: the masses of node '%s' stay as loaded: SOFA's masses measured on the "
                                   "mesh (DiagonalMass, MeshMatrixMass) lose the removed elements' share",
                                   TYPE(c), n->name);
    if ((kind == SC_ELEMENT_TETRAHEDRA || kind == SC_ELEMENT_HEXAHEDRA) && p->t.ncmds &&
        (n->collide & (SC_COLLIDE_TRIANGLES | SC_COLLIDE_LINES)))
        pf_scene_component_warning(c, "%s: the collision triangles and lines of node '%s' keep the faces and edges "
                                   "of the removed %s (in SOFA the container drops those no element has left)",
                                   TYPE(c), n->name, kind_name(kind));
    const sc_node *d = derived_below(n, n);
    if (d)
        pf_scene_component_warning(c, "%s: the topology of node '%s', derived from node '%s' by a topological "
                                   "mapping, does not change in PhysFlow (in SOFA it follows the removals)",
                                   TYPE(c), d->name, n->name);
    /* one hook for the scene's processors */
    processors *s = c->L->scene->topology_changes;
    if (!s) {
        s = pf_calloc(1, sizeof *s);
        if (!s || (rc = pf_scene_component_on_destroy(c, processors_free, s))) {
            pf_free(s);
            processor_free(p);
            return rc ? rc : pf_error(PF_ENOMEM, "out of memory");
        }
        c->L->scene->topology_changes = s;
        if ((rc = sc_add_step_hook(c, step_hook, s))) {
            processor_free(p);
            return rc;
        }
    }
    if (pf_vec_push(&s->v, p)) {
        processor_free(p);
        return pf_error(PF_ENOMEM, "out of memory");
    }
    return PF_OK;
}
