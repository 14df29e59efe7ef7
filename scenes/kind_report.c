/* What the loader did with each kind of component (pf_scene_kinds, `physflow check`'s table): elements counted
 * per name, their warnings, and what they changed, seen by comparing the node and scene before and after each
 * constructor (so a host's or another file's component is described without saying anything itself). */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdio.h>
#include <string.h>

void sc_effect_snapshot_take(const sc_loader *L, const sc_node *n, sc_effect_snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->mo_line = n->mo_line;
    s->topology = (int)n->topology;
    s->mass_line = n->mass_line;
    s->solver_line = n->solver_line;
    s->mapping_line = n->mapping_line;
    s->shape_line = n->shape_line;
    memcpy(s->collision_lines, L->collision_lines, sizeof s->collision_lines);
    s->mesh_points = n->mesh.npoints;
    s->pending_container = n->pending_container;
    s->npositions = n->npositions;
    const pf_scene *sc = L->scene;
    s->force_fields = sc->summary.force_fields;
    s->constraints = sc->summary.constraints;
    s->collision_models = sc->summary.collision_models;
    s->boxes = L->boxes.n;
    memcpy(&s->def, &n->def, sizeof s->def);
    memcpy(&s->solver, &n->solver, sizeof s->solver);
    memcpy(&s->collision, &sc->collision, sizeof s->collision);
}

unsigned sc_effect_since(const sc_loader *L, const sc_node *n, const sc_effect_snapshot *s)
{
    const pf_scene *sc = L->scene;
    unsigned e = SC_EFFECT_RAN;
    if (n->mo_line != s->mo_line) e |= SC_EFFECT_OBJECT;
    /* a container waiting for a topological mapping counts as the topology it will hold */
    if ((int)n->topology != s->topology || n->mesh.npoints != s->mesh_points ||
        n->pending_container != s->pending_container)
        e |= SC_EFFECT_TOPOLOGY;
    if (n->mass_line != s->mass_line) e |= SC_EFFECT_MASS;
    if (n->solver_line != s->solver_line || memcmp(&n->solver, &s->solver, sizeof s->solver)) e |= SC_EFFECT_SOLVER;
    if (n->mapping_line != s->mapping_line) e |= SC_EFFECT_MAPPING;
    if (n->shape_line != s->shape_line) e |= SC_EFFECT_SHAPE;
    if (memcmp(L->collision_lines, s->collision_lines, sizeof s->collision_lines) ||
        memcmp(&sc->collision, &s->collision, sizeof s->collision))
        e |= SC_EFFECT_COLLISION_SETTINGS;
    if (!(e & (SC_EFFECT_OBJECT | SC_EFFECT_TOPOLOGY | SC_EFFECT_MASS)) && memcmp(&n->def, &s->def, sizeof s->def))
        e |= SC_EFFECT_OBJECT_SETTINGS;
    if (sc->summary.force_fields != s->force_fields) e |= SC_EFFECT_FORCE;
    if (sc->summary.constraints != s->constraints) e |= SC_EFFECT_CONSTRAINT;
    if (sc->summary.collision_models != s->collision_models) e |= SC_EFFECT_MODEL;
    if (L->boxes.n != s->boxes) e |= SC_EFFECT_SELECTION;
    return e;
}

/* Constructors whose effect may not show (settings equal to the defaults they replace) say what they set. */
unsigned sc_effect_declared(pf_scene_component_fn fn)
{
    if (fn == sc_cg_linear_solver || fn == sc_pcg_linear_solver || fn == sc_preconditioner ||
        fn == sc_euler_implicit || fn == sc_euler_explicit)
        return SC_EFFECT_SOLVER;
    if (fn == sc_narrow_phase || fn == sc_collision_pipeline || fn == sc_min_proximity || fn == sc_broad_phase ||
        fn == sc_brute_force_broad_phase || fn == sc_collision_response || fn == sc_discrete_intersection)
        return SC_EFFECT_COLLISION_SETTINGS;
    if (fn == sc_topological_change_processor) return SC_EFFECT_REMOVALS;
    return 0;
}

int sc_kind_find(sc_loader *L, const char *type)
{
    pf_scene *s = L->scene;
    for (uint32_t k = 0; k < s->kinds.n; k++)
        if (!strcmp(s->kinds.v[k].type, type)) return (int)k;
    size_t len = strlen(type) + 1;
    char *name = pf_malloc(len);
    if (!name || pf_vec_reserve(&s->kinds, s->kinds.n + 1) || pf_vec_reserve(&s->kind_effects, s->kinds.n + 1)) {
        pf_free(name);
        return -1;
    }
    memcpy(name, type, len);
    s->kinds.v[s->kinds.n++] = (pf_scene_kind){name, 0, 0, 0, NULL};
    s->kind_effects.v[s->kind_effects.n++] = 0;
    return (int)s->kinds.n - 1;
}

int sc_kind_count(sc_loader *L, const char *type, int skipped)
{
    int k = sc_kind_find(L, type);
    if (k < 0) return pf_error(PF_ENOMEM, "out of memory for the component report");
    L->scene->kinds.v[k].count++;
    if (skipped) L->scene->kinds.v[k].skipped++;
    L->kind = k;
    return PF_OK;
}

void sc_kind_effect(sc_loader *L, unsigned effects)
{
    if (L->kind >= 0) L->scene->kind_effects.v[L->kind] |= effects;
}

void sc_kind_warned(const sc_loader *L)
{
    if (L->scene && L->kind >= 0 && (uint32_t)L->kind < L->scene->kinds.n) L->scene->kinds.v[L->kind].warnings++;
}

static const struct {
    unsigned bit;
    const char *name;
} effect_names[] = {
    {SC_EFFECT_NODE, "node"},
    {SC_EFFECT_OBJECT, "object"},
    {SC_EFFECT_TOPOLOGY, "topology"},
    {SC_EFFECT_MASS, "mass"},
    {SC_EFFECT_SOLVER, "solver"},
    {SC_EFFECT_MAPPING, "mapping"},
    {SC_EFFECT_SHAPE, "rigid shape"},
    {SC_EFFECT_COLLISION_SETTINGS, "collision settings"},
    {SC_EFFECT_OBJECT_SETTINGS, "object settings"},
    {SC_EFFECT_FORCE, "force field"},
    {SC_EFFECT_CONSTRAINT, "constraint"},
    {SC_EFFECT_MODEL, "collision model"},
    {SC_EFFECT_SELECTION, "index selection"},
    {SC_EFFECT_REMOVALS, "element removals"},
};

int sc_kinds_finish(pf_scene *s)
{
    for (uint32_t k = 0; k < s->kinds.n; k++) {
        unsigned e = s->kind_effects.v[k];
        char text[256] = "";
        size_t len = 0;
        for (size_t b = 0; b < sizeof effect_names / sizeof *effect_names; b++)
            if (e & effect_names[b].bit && len < sizeof text)
                len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", len ? ", " : "", effect_names[b].name);
        if (!len && (e & SC_EFFECT_RAN)) snprintf(text, sizeof text, "no effect");
        size_t n = strlen(text) + 1;
        char *copy = pf_malloc(n);
        if (!copy) return pf_error(PF_ENOMEM, "out of memory for the component report");
        memcpy(copy, text, n);
        pf_free((void *)s->kinds.v[k].mapped_to);
        s->kinds.v[k].mapped_to = copy;
    }
    return PF_OK;
}

void sc_kinds_free(pf_scene *s)
{
    for (uint32_t k = 0; k < s->kinds.n; k++) {
        pf_free((void *)s->kinds.v[k].type);
        pf_free((void *)s->kinds.v[k].mapped_to);
    }
    pf_vec_free(&s->kinds);
    pf_vec_free(&s->kind_effects);
}

uint32_t pf_scene_kinds(const pf_scene *s, const pf_scene_kind **out)
{
    if (out) *out = s ? s->kinds.v : NULL;
    return s ? s->kinds.n : 0;
}
