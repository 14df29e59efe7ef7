/* What a component constructor calls: attribute parsing (marking what was read), file:line messages, links,
 * the node's object. */
#include "scene_internal.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sc_line(const xmlNode *el)
{
    long l = el ? xmlGetLineNo(el) : 0;
    return l > 0 ? (int)l : 0;
}

static int verror(const char *file, int line, int code, const char *fmt, va_list ap)
{
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return pf_error(code, "%s:%d: %s", file, line, msg);
}

int sc_error(const sc_loader *L, int line, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = verror(L->file, line, code, fmt, ap);
    va_end(ap);
    return rc;
}

static void vreport(const sc_loader *L, const char *file, pf_scene_severity sev, int line, const char *fmt,
                    va_list ap)
{
    char msg[400], full[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    snprintf(full, sizeof full, "%s:%d: %s: %s", file, line, sev == PF_SCENE_WARNING ? "warning" : "note", msg);
    if (sev == PF_SCENE_WARNING) sc_kind_warned(L);
    if (L->def->report)
        L->def->report(sev, full, L->def->report_ctx);
    else
        fprintf(stderr, "%s\n", full);
}

void sc_report(const sc_loader *L, pf_scene_severity sev, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(L, L->file, sev, line, fmt, ap);
    va_end(ap);
}

const char *pf_scene_component_type(const pf_scene_component *c)
{
    return c ? (const char *)c->el->name : "";
}

int pf_scene_component_line(const pf_scene_component *c)
{
    return c ? sc_line(c->el) : 0;
}

const char *pf_scene_component_string(pf_scene_component *c, const char *attr)
{
    if (!c || !attr) return NULL;
    xmlAttr *a = xmlHasProp(c->el, (const xmlChar *)attr);
    if (!a) return NULL;
    for (uint32_t k = 0; k < c->nlinked; k++)
        if (c->linked[k] == a) return NULL; /* a link the loader followed (scenes/links_sofa.c) */
    if (c->nused < sizeof c->used / sizeof c->used[0]) c->used[c->nused++] = a;
    /* attribute values are a single text child in a tree from xmlReadMemory (no entity substitution) */
    if (a->children && a->children->type == XML_TEXT_NODE && !a->children->next)
        return (const char *)a->children->content;
    return "";
}

void pf_scene_component_ignore(pf_scene_component *c, const char *attr)
{
    if (c && attr && c->nignored < sizeof c->ignored / sizeof c->ignored[0]) c->ignored[c->nignored++] = attr;
}

int pf_scene_component_error(pf_scene_component *c, int code, const char *fmt, ...)
{
    PF_TRY(pf_check_given(c, "pf_scene_component_error", "component"));
    PF_TRY(pf_check_given(fmt, "pf_scene_component_error", "fmt"));
    va_list ap;
    va_start(ap, fmt);
    int rc = verror(sc_file_of(c->L, c->el), sc_line(c->el), code, fmt, ap);
    va_end(ap);
    return rc;
}

void pf_scene_component_warning(pf_scene_component *c, const char *fmt, ...)
{
    if (pf_check_given(c, "pf_scene_component_warning", "component") ||
        pf_check_given(fmt, "pf_scene_component_warning", "fmt"))
        return;
    va_list ap;
    va_start(ap, fmt);
    vreport(c->L, sc_file_of(c->L, c->el), PF_SCENE_WARNING, sc_line(c->el), fmt, ap);
    va_end(ap);
}

/* Between numbers: white space, commas, and the brackets of SOFA's matrices ("[1 0 0,0 1 0,0 0 1]"). */
static int is_separator(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == ',' || ch == '[' || ch == ']';
}

/* Parses the numbers of `s` into a growing array; `what` names the attribute in messages. */
int sc_parse_reals(pf_scene_component *c, const char *attr, double **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    const char *s = pf_scene_component_string(c, attr);
    if (!s) return 0;
    PF_VEC(double) v = {0};
    for (;;) {
        while (is_separator(*s)) s++;
        if (!*s) break;
        char *end;
        errno = 0;
        double x = strtod(s, &end);
        if (end == s || (*end && !is_separator(*end))) {
            pf_vec_free(&v);
            int len = 0;
            while (s[len] && s[len] != ' ' && len < 40) len++;
            return pf_scene_component_error(c, PF_EPARSE, "%s: attribute '%s': '%.*s' is not a number",
                                            pf_scene_component_type(c), attr, len, s);
        }
        if (!isfinite(x)) {
            pf_vec_free(&v);
            return pf_scene_component_error(c, PF_EINVAL, "%s: attribute '%s': %g is not finite",
                                            pf_scene_component_type(c), attr, x);
        }
        if (pf_vec_push(&v, x)) {
            pf_vec_free(&v);
            return pf_error(PF_ENOMEM, "out of memory parsing '%s'", attr);
        }
        s = end;
    }
    *out = v.v;
    *n = v.n;
    return 1;
}

/* One whole token of an index list as an integer: *v, or -1 when it is not one. */
static int whole_integer(const char *tok, double *v)
{
    char *end;
    *v = strtod(tok, &end);
    return end != tok && !*end && isfinite(*v) && *v == floor(*v) ? 0 : -1;
}

/* SOFA reads index lists with ranges (its vector<unsigned int>::read): "A-B" is A, A+1, ..., B (descending when
 * B < A) and "A-B-S" steps by S towards B (a step away from B is refused). */
int sc_parse_uints(pf_scene_component *c, const char *attr, uint32_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    const char *s = pf_scene_component_string(c, attr);
    if (!s) return 0;
    const char *type = pf_scene_component_type(c);
    PF_VEC(uint32_t) v = {0};
    int rc = PF_OK;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ',') s++;
        if (!*s) break;
        size_t len = strcspn(s, " \t\n\r,");
        char tok[64];
        snprintf(tok, sizeof tok, "%.*s", (int)(len < sizeof tok ? len : sizeof tok - 1), s);
        s += len;
        double a, b, step = 0;
        char *dash = len < sizeof tok && len > 1 ? strchr(tok + 1, '-') : NULL, *dash2 = NULL;
        if (dash) {
            *dash = 0;
            dash2 = dash[1] ? strchr(dash + 2, '-') : NULL;
            if (dash2) *dash2 = 0;
        }
        if (!dash) {
            if (len >= sizeof tok || whole_integer(tok, &a)) {
                double x;
                char *end;
                x = strtod(tok, &end);
                rc = end == tok || *end || len >= sizeof tok
                         ? pf_scene_component_error(c, PF_EPARSE, "%s: attribute '%s': '%.40s' is not a number",
                                                    type, attr, tok)
                         : pf_scene_component_error(c, PF_EINVAL, "%s: attribute '%s': %g is not an index (an "
                                                    "integer >= 0)", type, attr, x);
                break;
            }
            b = a, step = 1;
        } else if (whole_integer(tok, &a) || whole_integer(dash + 1, &b) ||
                   (dash2 && (whole_integer(dash2 + 1, &step) || step == 0))) {
            if (dash2) *dash2 = '-';
            *dash = '-';
            rc = pf_scene_component_error(c, PF_EPARSE, "%s: attribute '%s': '%.40s' is not an index or a range of "
                                          "indices (A-B, A-B-step)", type, attr, tok);
            break;
        }
        if (!dash2) step = a <= b ? 1 : -1;
        else if ((b - a) * step < 0) { /* what SOFA's unsigned reading makes of it is unclear: said, not guessed */
            *dash = '-', *dash2 = '-';
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: attribute '%s': the range '%.40s' steps away from its "
                                          "end", type, attr, tok);
            break;
        }
        if (a < 0 || a > 4294967295.0 || b < 0 || b > 4294967295.0) {
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: attribute '%s': %g is not an index (an integer >= 0)",
                                          type, attr, a < 0 || a > 4294967295.0 ? a : b);
            break;
        }
        double count = floor((b - a) / step) + 1;
        if (count > (double)(1u << 28) - (double)v.n) {
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: attribute '%s': the range '%s' holds too many indices",
                                          type, attr, tok);
            break;
        }
        for (double k = 0; k < count && !rc; k++)
            if (pf_vec_push(&v, (uint32_t)(a + k * step))) rc = pf_error(PF_ENOMEM, "out of memory parsing '%s'", attr);
    }
    if (rc) {
        pf_vec_free(&v);
        return rc;
    }
    if (!v.v && !(v.v = pf_malloc(sizeof *v.v))) return pf_error(PF_ENOMEM, "out of memory parsing '%s'", attr);
    *out = v.v;
    *n = v.n;
    return 1;
}

int pf_scene_component_reals(pf_scene_component *c, const char *attr, size_t n, double *out)
{
    static const char fn[] = "pf_scene_component_reals";
    PF_TRY(pf_check_given(c, fn, "component"));
    PF_TRY(pf_check_given(attr, fn, "attr"));
    if (n > 0) PF_TRY(pf_check_given(out, fn, "out"));
    PF_TRY(pf_check_size(n, sizeof *out, fn, "out"));
    double *v;
    size_t m;
    int rc = sc_parse_reals(c, attr, &v, &m);
    if (rc <= 0) return rc;
    if (m != n) {
        pf_free(v);
        return pf_scene_component_error(c, PF_EPARSE, "%s: attribute '%s' needs %zu number%s, got %zu",
                                        pf_scene_component_type(c), attr, n, n == 1 ? "" : "s", m);
    }
    memcpy(out, v, n * sizeof *out);
    pf_free(v);
    return 1;
}

int pf_scene_component_real(pf_scene_component *c, const char *attr, double lo, double hi, double *value)
{
    static const char fn[] = "pf_scene_component_real";
    PF_TRY(pf_check_given(c, fn, "component"));
    PF_TRY(pf_check_given(attr, fn, "attr"));
    PF_TRY(pf_check_given(value, fn, "value"));
    if (isnan(lo) || isnan(hi) || lo > hi)
        return pf_error(PF_EINVAL, "%s: the range [lo, hi] = [%g, %g] of attribute '%s' is empty", fn, lo, hi, attr);
    double x;
    int rc = pf_scene_component_reals(c, attr, 1, &x);
    if (rc <= 0) return rc;
    if (!(x >= lo && x <= hi))
        return pf_scene_component_error(c, PF_EINVAL, "%s: attribute '%s' = %g is out of range [%g, %g]",
                                        pf_scene_component_type(c), attr, x, lo, hi);
    *value = x;
    return 1;
}

void sc_ignore_attrs(pf_scene_component *c, const char *const *names, size_t n)
{
    for (size_t k = 0; k < n; k++) pf_scene_component_ignore(c, names[k]);
}

int sc_parse_bool(pf_scene_component *c, const char *attr, int *value)
{
    const char *s = pf_scene_component_string(c, attr);
    if (!s) return 0;
    if (!strcmp(s, "true") || !strcmp(s, "1"))
        *value = 1;
    else if (!strcmp(s, "false") || !strcmp(s, "0"))
        *value = 0;
    else
        return pf_scene_component_error(c, PF_EPARSE, "%s: attribute '%s' = '%s' is not a boolean (true/false)",
                                        pf_scene_component_type(c), attr, s);
    return 1;
}

pf_object_def *pf_scene_component_object_def(pf_scene_component *c)
{
    return c && c->stage == PF_SCENE_STAGE_STATE ? &c->node->def : NULL;
}

pf_world *pf_scene_component_world(pf_scene_component *c)
{
    return c && c->stage == PF_SCENE_STAGE_FORCES ? c->L->scene->world : NULL;
}

int pf_scene_component_on_destroy(pf_scene_component *c, pf_scene_destroy_fn fn, void *state)
{
    static const char fn_name[] = "pf_scene_component_on_destroy";
    PF_TRY(pf_check_given(c, fn_name, "component"));
    PF_TRY(pf_check_callback(fn != NULL, fn_name, "fn"));
    pf_scene *s = c->L->scene;
    if (pf_vec_push(&s->destructors, ((sc_destructor){fn, state}))) {
        fn(state); /* nothing else would free it */
        return pf_error(PF_ENOMEM, "%s: out of memory", fn_name);
    }
    return PF_OK;
}

int pf_scene_component_object(pf_scene_component *c, pf_object_id *out)
{
    PF_TRY(pf_check_given(c, "pf_scene_component_object", "component"));
    PF_TRY(pf_check_given(out, "pf_scene_component_object", "out"));
    if (c->stage != PF_SCENE_STAGE_FORCES)
        return pf_scene_component_error(c, PF_ESTATE, "%s: pf_scene_component_object is for the FORCES stage (the "
                                        "objects do not exist yet)", pf_scene_component_type(c));
    /* SOFA's force fields act on the state of their context: through an IdentityMapping or a topological mapping
     * (a node without a MechanicalObject) the points are those of the object above, with the same indices */
    sc_node *on = sc_same_points_carrier(c->node);
    if (!on && c->node->mapping == SC_MAP_SUBSET)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s in node '%s': the node's points are a SubsetMapping of "
                                        "node '%s''s, and PhysFlow applies a force field or constraint to the points "
                                        "of an object only (put it in node '%s' with the indices mapped)",
                                        pf_scene_component_type(c), c->node->name, c->node->map_input->name,
                                        sc_carrier(c->node)->name);
    if (!on || !on->has_object)
        return pf_scene_component_error(c, PF_EPARSE, "%s needs a MechanicalObject in its node '%s'",
                                        pf_scene_component_type(c), c->node->name);
    if (on->frame_objects) { /* independent frames (components_joints.c): a body each; these act frame by frame */
        static const char *const per_frame[] = {"FixedProjectiveConstraint", "FixedConstraint", "ConstantForceField",
                                                "FixedRotationProjectiveConstraint", "FixedRotationConstraint"};
        const char *type = pf_scene_component_type(c);
        int ok = 0;
        for (size_t k = 0; k < sizeof per_frame / sizeof *per_frame; k++) ok |= !strcmp(type, per_frame[k]);
        if (!ok)
            return pf_scene_component_error(c, PF_ENOTSUP, "%s in node '%s': the node's Rigid3d frames are independent "
                                            "bodies (no BeamFEMForceField), on which PhysFlow reads "
                                            "FixedProjectiveConstraint, FixedRotationProjectiveConstraint, "
                                            "ConstantForceField and JointSpringForceField only", type, on->name);
    }
    *out = on->object;
    return PF_OK;
}

static sc_node *child_named(sc_node *n, const char *name, size_t len)
{
    for (uint32_t k = 0; k < n->children.n; k++)
        if (strlen(n->children.v[k]->name) == len && !strncmp(n->children.v[k]->name, name, len))
            return n->children.v[k];
    return NULL;
}

static xmlNode *component_named(sc_node *n, const char *name, size_t len)
{
    for (xmlNode *e = n->el->children; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE || !xmlStrcmp(e->name, (const xmlChar *)"Node")) continue;
        xmlChar *nm = xmlGetProp(e, (const xmlChar *)"name");
        int match = nm && strlen((const char *)nm) == len && !strncmp((const char *)nm, name, len);
        xmlFree(nm);
        if (match) return e;
    }
    return NULL;
}

int sc_resolve_link(pf_scene_component *c, const char *attr, const char *link, sc_node **node, xmlNode **comp,
                    const char **field)
{
    *node = NULL;
    *comp = NULL;
    *field = NULL;
    if (link[0] != '@' || !link[1])
        return pf_scene_component_error(c, PF_EPARSE, "%s: attribute '%s' = '%s' is not a link ('@path')",
                                        pf_scene_component_type(c), attr, link);
    const char *p = link + 1;
    sc_node *n = c->node;
    if (p[0] == '[') { /* SOFA's link by position: @[-k] is the k-th component before this one in its node */
        char *end;
        long k = strtol(p + 1, &end, 10);
        if (k >= 0 || k < -1000000 || *end != ']' || (end[1] && end[1] != '.'))
            return pf_scene_component_error(c, PF_EPARSE, "%s: attribute '%s' = '%s' is not a link by position "
                                            "('@[-1]', '@[-2].field')", pf_scene_component_type(c), attr, link);
        xmlNode *e = c->el;
        for (long back = -k; e && back > 0;) {
            e = e->prev;
            if (e && e->type == XML_ELEMENT_NODE && xmlStrcmp(e->name, (const xmlChar *)"Node")) back--;
        }
        if (!e)
            return pf_scene_component_error(c, PF_EINVAL, "%s: attribute '%s': dangling link '%s' (fewer than %ld "
                                            "components before it in node '%s')", pf_scene_component_type(c), attr,
                                            link, -k, n->name);
        *node = n;
        *comp = e;
        *field = end[1] == '.' && end[2] ? end + 2 : NULL;
        return PF_OK;
    }
    int based = 0; /* the path so far named a node: a name is looked for there only */
    if (*p == '/') {
        while (n->parent) n = n->parent;
        p++;
        based = 1;
    }
    xmlNode *found = NULL;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (!slash) { /* the last segment may be "name.field" */
            const char *dot = memchr(p, '.', len);
            if (dot && dot != p) {
                *field = dot + 1;
                len = (size_t)(dot - p);
            }
        }
        if (len == 2 && !strncmp(p, "..", 2)) {
            if (!n->parent) goto dangling;
            n = n->parent;
            based = 1;
        } else if (len == 1 && *p == '.') {
            based = 1;
        } else if (len > 0) {
            sc_node *ch;
            /* SOFA's Node::findLinkDestClass: a path's first name, not after "." or "..", that is no child nor
             * component of the node is looked for in the nodes above ("@grid" from a child of the grid's node) */
            for (;;) {
                ch = child_named(n, p, len);
                if (ch || (!slash && (found = component_named(n, p, len))) || based || !n->parent) break;
                n = n->parent;
            }
            if (ch) {
                n = ch;
            } else if (found) {
                break;
            } else {
                goto dangling;
            }
            based = 1;
        }
        if (!slash) break;
        p = slash + 1;
    }
    *node = n;
    *comp = found;
    return PF_OK;
dangling:
    return pf_scene_component_error(c, PF_EINVAL, "%s: attribute '%s': dangling link '%s' (no such node or component)",
                                    pf_scene_component_type(c), attr, link);
}

int pf_scene_component_link_object(pf_scene_component *c, const char *attr, pf_object_id *out)
{
    static const char fn[] = "pf_scene_component_link_object";
    PF_TRY(pf_check_given(c, fn, "component"));
    PF_TRY(pf_check_given(attr, fn, "attr"));
    PF_TRY(pf_check_given(out, fn, "out"));
    if (c->stage != PF_SCENE_STAGE_FORCES)
        return pf_scene_component_error(c, PF_ESTATE, "%s: pf_scene_component_link_object is for the FORCES stage "
                                        "(the objects do not exist yet)", pf_scene_component_type(c));
    const char *s = pf_scene_component_string(c, attr);
    if (!s) return 0;
    sc_node *n;
    xmlNode *comp;
    const char *field;
    int rc = sc_resolve_link(c, attr, s, &n, &comp, &field);
    if (rc) return rc;
    if (field)
        return pf_scene_component_error(c, PF_EPARSE, "%s: attribute '%s' = '%s' must link a node or its "
                                        "MechanicalObject, not a field",
                                        pf_scene_component_type(c), attr, s);
    if (!n->has_object)
        return pf_scene_component_error(c, PF_EINVAL, "%s: attribute '%s': node '%s' has no MechanicalObject",
                                        pf_scene_component_type(c), attr, n->name);
    *out = n->object;
    return 1;
}

sc_node *sc_carrier(sc_node *n)
{
    if ((n->mapping == SC_MAP_IDENTITY || n->mapping == SC_MAP_SUBSET) && n->map_input) return sc_carrier(n->map_input);
    if (n->mapping != SC_MAP_NONE) return n->parent;
    if (n->topology_source && !n->mo_line) return sc_carrier(n->topology_source);
    return n;
}

sc_node *sc_same_points_carrier(sc_node *n)
{
    if (n->mapping == SC_MAP_IDENTITY || (n->mapping == SC_MAP_NONE && n->topology_source && !n->mo_line))
        return sc_carrier(n);
    return n->mapping == SC_MAP_NONE ? n : NULL;
}

int sc_add_collision_model(pf_scene_component *c, pf_scene_collision_kind kind, double radius, const uint32_t *tris,
                           uint32_t ntris)
{
    pf_scene *s = c->L->scene;
    sc_loader *L = c->L;
    sc_node *n = c->node, *on = sc_carrier(n);
    if (!on->has_object)
        return pf_scene_component_error(c, PF_EPARSE, "%s needs a MechanicalObject in node '%s'%s",
                                        pf_scene_component_type(c), on->name,
                                        n->mapping != SC_MAP_NONE ? " (the mapping's input)" : "");
    pf_object_id o = on->object;
    if (pf_vec_reserve(&s->models, s->models.n + 1) || pf_vec_reserve(&s->model_tris, s->model_tris.n + 1) ||
        pf_vec_reserve(&s->model_node, s->model_node.n + 1))
        return pf_error(PF_ENOMEM, "out of memory for collision models");
    if (!n->collide) {
        if (pf_vec_push(&L->collide_nodes, n)) return pf_error(PF_ENOMEM, "out of memory for collision models");
        n->collide_line = sc_line(c->el);
    }
    uint32_t *copy = NULL;
    if (ntris) {
        copy = pf_malloc((size_t)ntris * 3 * sizeof *copy);
        if (!copy) return pf_error(PF_ENOMEM, "out of memory for collision triangles");
        memcpy(copy, tris, (size_t)ntris * 3 * sizeof *copy);
    }
    n->collide |= kind == PF_COLLIDE_TRIANGLE ? SC_COLLIDE_TRIANGLES
                  : kind == PF_COLLIDE_POINT  ? SC_COLLIDE_POINTS
                  : kind == PF_COLLIDE_LINE   ? SC_COLLIDE_LINES
                                              : SC_COLLIDE_SPHERES;
    if (kind == PF_COLLIDE_SPHERE) n->sphere_radius = radius;
    uint32_t node = (uint32_t)(L->collide_nodes.n - 1);
    for (uint32_t k = 0; k < L->collide_nodes.n; k++)
        if (L->collide_nodes.v[k] == n) node = k;
    s->model_tris.v[s->model_tris.n++] = copy; /* reserved above: cannot fail */
    s->model_node.v[s->model_node.n++] = node;
    s->models.v[s->models.n++] = (pf_scene_collision_model){o, kind, radius, copy, ntris, sc_line(c->el), {0}};
    s->summary.collision_models++;
    return PF_OK;
}

int sc_box_indices(pf_scene_component *c, sc_node *node, xmlNode *box_el, const uint32_t **idx, uint32_t *n)
{
    sc_loader *L = c->L;
    for (uint32_t k = 0; k < L->boxes.n; k++)
        if (L->boxes.v[k].node == node && L->boxes.v[k].el == box_el) {
            *idx = L->boxes.v[k].idx;
            *n = L->boxes.v[k].n;
            return PF_OK;
        }
    return pf_scene_component_error(c, PF_EINVAL, "%s: the BoxROI at line %d has not been evaluated (it must be in "
                                    "the same node, before its users)",
                                    pf_scene_component_type(c), sc_line(box_el));
}
