/* Objects of a world: creation (points, or a regular grid), state access, fixed points and box regions, and the
 * list of force fields each carries (Hermann et al. 2009, §3.1: the objects own the data of the task graph). */
#include "objects.h"

#include "attach.h"
#include "beam.h"
#include "force_field.h"
#include "world_guard.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int pf_object_is_static(const pf_object *o)
{
    return o->fixed_list.n == o->n;
}

int pf_object_add_force_field(pf_world *w, pf_object *o, uint8_t kind, void *state, pf_force_field_id *out)
{
    if (o->kind == PF_OBJECT_BEAM && kind != PF_FORCE_CONSTANT) /* its elements are its force field (beam.h) */
        return pf_error(PF_EINVAL, "object %u is a beam: it takes constant forces only", o->id);
    if (w->next_ff_uid == UINT32_MAX) return pf_error(PF_ENOMEM, "too many force fields in one world");
    if (pf_vec_reserve(&o->ff, o->ff.n + 1)) return pf_error(PF_ENOMEM, "out of memory");
    uint32_t k = o->ff.n++;
    for (; k > 0 && o->ff.v[k - 1].kind > kind; k--) o->ff.v[k] = o->ff.v[k - 1];
    o->ff.v[k] = (pf_force_field){.kind = kind, .uid = w->next_ff_uid++, .state = state};
    o->changed = 1;
    w->dirty = 1;
    if (out) *out = (pf_force_field_id){o->ff.v[k].uid};
    return PF_OK;
}

pf_solver_def pf_solver_default_def(void)
{
    return (pf_solver_def){.kind = PF_SOLVER_IMPLICIT_EULER,
                           .rayleigh_mass = 0,
                           .rayleigh_stiffness = 0,
                           .cg_iterations = 25,
                           .cg_tolerance = 1e-9,
                           .cg_threshold = 1e-9};
}

pf_object_def pf_object_default_def(void)
{
    return (pf_object_def){.vertex_mass = 1.0, .solver = pf_solver_default_def()};
}

int pf_check_solver_def(const pf_solver_def *s, const char *fn, const char *what)
{
    char f[64];
    snprintf(f, sizeof f, "%s.kind", what);
    PF_TRY(pf_check_enum((int)s->kind, 6, fn, f));
    snprintf(f, sizeof f, "%s.rayleigh_mass", what);
    PF_TRY(pf_check_nonnegative(s->rayleigh_mass, fn, f));
    snprintf(f, sizeof f, "%s.rayleigh_stiffness", what);
    PF_TRY(pf_check_nonnegative(s->rayleigh_stiffness, fn, f));
    snprintf(f, sizeof f, "%s.cg_iterations", what);
    PF_TRY(pf_check_int_range(s->cg_iterations, 1, UINT32_MAX, fn, f));
    snprintf(f, sizeof f, "%s.cg_tolerance", what);
    PF_TRY(pf_check_nonnegative(s->cg_tolerance, fn, f));
    snprintf(f, sizeof f, "%s.cg_threshold", what);
    PF_TRY(pf_check_nonnegative(s->cg_threshold, fn, f));
    snprintf(f, sizeof f, "%s.linear_solver", what);
    PF_TRY(pf_check_enum((int)s->linear_solver, 2, fn, f));
    return PF_OK;
}

int pf_group_refuse_rigid(const pf_world *w, const pf_group *gr, const char *solver)
{
    for (uint32_t k = 0; k < gr->nobjs; k++)
        if (w->obj.v[gr->objs[k]]->kind == PF_OBJECT_RIGID)
            return pf_error(PF_EINVAL, "object %u is a rigid body in a group solved by %s (object %u's solver): "
                            "rigid bodies take implicit or symplectic explicit Euler", gr->objs[k], solver,
                            gr->first);
    return PF_OK;
}

/* the sum of an object's point masses, in point order */
static double point_mass_sum(const pf_object *o)
{
    double s = 0;
    for (uint32_t i = 0; i < o->n; i++) s += o->pmass[i];
    return s;
}

int pf_world_add_object(pf_world *w, const pf_object_def *def, pf_object_id *out)
{
    static const char fn[] = "pf_world_add_object";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_solver_def(&def->solver, fn, "def.solver"));
    PF_TRY(pf_check_enum((int)def->decompose, 3, fn, "def.decompose"));
    int has_grid = def->grid[0] || def->grid[1] || def->grid[2];
    uint64_t n = def->points;
    if (has_grid) {
        static const char *const gname[3] = {"def.grid[0]", "def.grid[1]", "def.grid[2]"};
        PF_TRY(pf_check_finite_n(def->grid_min, 3, fn, "def.grid_min"));
        PF_TRY(pf_check_finite_n(def->grid_max, 3, fn, "def.grid_max"));
        for (int d = 0; d < 3; d++) {
            PF_TRY(pf_check_int_range(def->grid[d], 1, 1 << 20, fn, gname[d]));
            if (def->grid[d] > 1 && !(def->grid_max[d] > def->grid_min[d]))
                return pf_error(PF_EINVAL, "%s: def.grid_max[%d] (%g) must be above def.grid_min[%d] (%g) when "
                                "def.grid[%d] is %d", fn, d, def->grid_max[d], d, def->grid_min[d], d, def->grid[d]);
        }
        n = (uint64_t)def->grid[0] * (uint64_t)def->grid[1] * (uint64_t)def->grid[2];
    }
    if (n < 1) return pf_error(PF_EINVAL, "%s: def.points must be >= 1 when def.grid is not set, got 0", fn);
    int rc;
    /* ten vectors of 3 doubles per point (state, solver, last good state) and a flag: refuse before allocating */
    char what[64];
    snprintf(what, sizeof what, "an object of %llu points", (unsigned long long)n);
    if ((rc = pf_memory_check((def->point_masses ? 249.0 : 241.0) * (double)n, what))) {
        char copy[400];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return pf_error(rc, "%s: %s", fn, copy);
    }
    if (n > (1u << 28)) return pf_error(PF_EINVAL, "%s: %s: at most 2^28 points per object", fn, what);
    int uniform = 1; /* every point weighs the same: the uniform arithmetic, bit for bit */
    if (def->point_masses) {
        for (uint32_t i = 0; i < n; i++) {
            double m = def->point_masses[i];
            if (!(m > 0) || !isfinite(m))
                return pf_error(PF_EINVAL, "%s: def.point_masses[%u] must be a finite mass > 0 kg, got %g", fn, i, m);
            uniform &= m == def->point_masses[0];
        }
    } else {
        PF_TRY(pf_check_nonnegative(def->total_mass, fn, "def.total_mass"));
        if (def->total_mass == 0) PF_TRY(pf_check_positive(def->vertex_mass, fn, "def.vertex_mass"));
    }
    if (!has_grid && def->positions) PF_TRY(pf_check_finite_n(def->positions, 3 * (size_t)n, fn, "def.positions"));
    if (def->velocities) PF_TRY(pf_check_finite_n(def->velocities, 3 * (size_t)n, fn, "def.velocities"));
    if (pf_vec_reserve(&w->obj, w->obj.n + 1)) return pf_error(PF_ENOMEM, "out of memory for an object");
    pf_object *o = pf_calloc(1, sizeof *o);
    if (!o) return pf_error(PF_ENOMEM, "out of memory for an object");
    o->id = w->obj.n;
    o->n = (uint32_t)n;
    if (!def->point_masses)
        o->mass = def->total_mass > 0 ? def->total_mass / (double)n : def->vertex_mass;
    else if (uniform)
        o->mass = def->point_masses[0];
    o->solver = def->solver;
    o->decompose = def->decompose;
    o->block_elements = def->block_elements;
    double **vecs[] = {&o->x, &o->v, &o->f, &o->dv, &o->b, &o->r, &o->p, &o->q};
    int fail = 0;
    for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) fail |= !(*vecs[k] = pf_calloc(3 * n, sizeof(double)));
    fail |= !(o->fixed = pf_calloc(n, 1));
    if (!uniform) {
        fail |= !(o->pmass = pf_malloc(n * sizeof *o->pmass));
        if (o->pmass) {
            memcpy(o->pmass, def->point_masses, n * sizeof *o->pmass);
            o->mass = point_mass_sum(o) / (double)n;
        }
    }
    if (fail) {
        for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) pf_free(*vecs[k]);
        pf_free(o->fixed);
        pf_free(o->pmass);
        pf_free(o);
        return pf_error(PF_ENOMEM, "out of memory for an object of %llu points", (unsigned long long)n);
    }
    if (has_grid) {
        memcpy(o->grid, def->grid, sizeof o->grid);
        memcpy(o->grid_min, def->grid_min, sizeof o->grid_min);
        memcpy(o->grid_max, def->grid_max, sizeof o->grid_max);
        for (int k = 0; k < def->grid[2]; k++)
            for (int j = 0; j < def->grid[1]; j++)
                for (int i = 0; i < def->grid[0]; i++) {
                    int ijk[3] = {i, j, k};
                    double *p = o->x + 3 * ((size_t)i + (size_t)def->grid[0] * ((size_t)j + (size_t)def->grid[1] * k));
                    for (int d = 0; d < 3; d++)
                        p[d] = def->grid[d] == 1 ? def->grid_min[d]
                                                 : def->grid_min[d] + (def->grid_max[d] - def->grid_min[d]) * ijk[d] /
                                                                          (double)(def->grid[d] - 1);
                }
    } else if (def->positions) {
        memcpy(o->x, def->positions, 3 * n * sizeof(double));
    }
    if (def->velocities) memcpy(o->v, def->velocities, 3 * n * sizeof(double));
    w->obj.v[w->obj.n++] = o;
    w->dirty = 1;
    if (out) *out = (pf_object_id){o->id};
    return PF_OK;
}

/* the checks of pf_world_fix_points and pf_world_unfix_points: a world not stepping, an object, its points */
int pf_check_point_list(const pf_world *w, uint32_t id, const uint32_t *points, uint32_t n, const char *fn)
{
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, id, fn));
    if (n > 0) PF_TRY(pf_check_given(points, fn, "points"));
    const pf_object *o = w->obj.v[id];
    for (uint32_t k = 0; k < n; k++)
        if (points[k] >= o->n)
            return pf_error(PF_EINVAL, "%s: points[%u] = %u: object %u has %u points (0 to %u)", fn, k, points[k], id,
                            o->n, o->n - 1);
    return PF_OK;
}

int pf_world_fix_points(pf_world *w, pf_object_id id, const uint32_t *points, uint32_t n)
{
    static const char fn[] = "pf_world_fix_points";
    PF_TRY(pf_check_point_list(w, id.index, points, n, fn));
    pf_object *o = w->obj.v[id.index];
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = points[k];
        if (o->fixed[i]) continue;
        if (pf_vec_push(&o->fixed_list, i)) return pf_error(PF_ENOMEM, "out of memory");
        o->fixed[i] = 1;
        o->v[3 * i] = o->v[3 * i + 1] = o->v[3 * i + 2] = 0;
    }
    o->changed = 1;
    w->dirty = 1;
    return PF_OK;
}

int pf_free_directions(pf_object *o, const uint32_t *points, uint32_t n)
{
    size_t m = 0, before = o->held.n;
    for (size_t k = 0; k < o->held.n; k++) {
        int listed = 0;
        for (uint32_t j = 0; j < n && !listed; j++) listed = points[j] == o->held.v[k].point;
        if (!listed) o->held.v[m++] = o->held.v[k];
    }
    o->held.n = m;
    return (int)(before - m);
}

int pf_world_unfix_points(pf_world *w, pf_object_id id, const uint32_t *points, uint32_t n)
{
    static const char fn[] = "pf_world_unfix_points";
    PF_TRY(pf_check_point_list(w, id.index, points, n, fn));
    for (uint32_t k = 0; k < n; k++) /* its solve must hold it: the attachment moves it */
        if (pf_world_point_attached(w, id.index, points[k]))
            return pf_error(PF_EINVAL, "%s: points[%u] = %u of object %u follows an attachment "
                            "(pf_world_add_attachment); it stays fixed for its object's solve", fn, k, points[k],
                            id.index);
    pf_object *o = w->obj.v[id.index];
    for (uint32_t k = 0; k < n; k++) o->fixed[points[k]] = 0;
    int freed = pf_free_directions(o, points, n);
    if (freed) o->changed = 1, w->dirty = 1;
    /* the others stay in the order they were fixed in */
    uint32_t m = 0;
    for (uint32_t k = 0; k < o->fixed_list.n; k++)
        if (o->fixed[o->fixed_list.v[k]]) o->fixed_list.v[m++] = o->fixed_list.v[k];
    if (m == o->fixed_list.n) return PF_OK; /* none of them was fixed */
    o->fixed_list.n = m;
    o->changed = 1;
    w->dirty = 1;
    return PF_OK;
}

int pf_world_box_select(const pf_world *w, pf_object_id id, const double box[6], uint32_t *out, uint32_t cap,
                        uint32_t *count)
{
    static const char fn[] = "pf_world_box_select";
    PF_TRY(pf_world_check_given(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    PF_TRY(pf_check_given(box, fn, "box"));
    PF_TRY(pf_check_finite_n(box, 6, fn, "box"));
    PF_TRY(pf_check_given(count, fn, "count"));
    if (cap > 0) PF_TRY(pf_check_given(out, fn, "out"));
    const pf_object *o = w->obj.v[id.index];
    uint32_t m = 0;
    /* a rigid body's point 1 is its angular part, which has no position */
    uint32_t npos = o->kind == PF_OBJECT_RIGID ? 1 : o->n;
    for (uint32_t i = 0; i < npos; i++) {
        if (o->kind == PF_OBJECT_BEAM && (i & 1)) continue; /* a beam's odd points are its frames' angular parts */
        const double *p = o->x + 3 * (size_t)i;
        if (p[0] < box[0] || p[1] < box[1] || p[2] < box[2] || p[0] > box[3] || p[1] > box[4] || p[2] > box[5])
            continue;
        if (m < cap) out[m] = i;
        m++;
    }
    *count = m;
    return PF_OK;
}

int pf_world_fix_box(pf_world *w, pf_object_id id, const double box[6], uint32_t *count)
{
    static const char fn[] = "pf_world_fix_box";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    PF_TRY(pf_check_given(box, fn, "box"));
    PF_TRY(pf_check_finite_n(box, 6, fn, "box"));
    uint32_t m;
    int rc = pf_world_box_select(w, id, box, NULL, 0, &m);
    if (rc) return rc;
    uint32_t *idx = pf_malloc((size_t)(m ? m : 1) * sizeof *idx);
    if (!idx) return pf_error(PF_ENOMEM, "out of memory");
    pf_world_box_select(w, id, box, idx, m, &m);
    rc = pf_world_fix_points(w, id, idx, m);
    pf_free(idx);
    if (rc == PF_OK && count) *count = m;
    return rc;
}

uint32_t pf_world_objects(const pf_world *w)
{
    return w ? w->obj.n : 0;
}

int pf_world_object_exists(const pf_world *w, pf_object_id o)
{
    return w && o.index < w->obj.n && w->obj.v[o.index] != NULL;
}

const double *pf_world_positions(const pf_world *w, pf_object_id o, uint32_t *points)
{
    if (pf_world_check_given(w, "pf_world_positions") ||
        pf_world_check_object(w, o.index, "pf_world_positions"))
        return NULL;
    if (points) *points = w->obj.v[o.index]->n;
    return w->obj.v[o.index]->x;
}

const double *pf_world_velocities(const pf_world *w, pf_object_id o, uint32_t *points)
{
    if (pf_world_check_given(w, "pf_world_velocities") ||
        pf_world_check_object(w, o.index, "pf_world_velocities"))
        return NULL;
    if (points) *points = w->obj.v[o.index]->n;
    return w->obj.v[o.index]->v;
}

/* the sum of a beam's frame masses, in frame order */
static double beam_mass_sum(const pf_beam *b)
{
    double m = 0;
    for (uint32_t k = 0; k < b->frames; k++) m += b->mass[k];
    return m;
}

int pf_world_get_object_mass(const pf_world *w, pf_object_id id, double *point_mass, double *total_mass)
{
    static const char fn[] = "pf_world_get_object_mass";
    PF_TRY(pf_world_check_given(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    const pf_object *o = w->obj.v[id.index];
    /* a rigid body's mass is its com's; its second point carries the inertia, no mass; a beam's frames carry
     * theirs (beam.h), its points of rotation none */
    if (point_mass) *point_mass = o->mass;
    if (!total_mass) return PF_OK;
    if (o->kind == PF_OBJECT_RIGID)
        *total_mass = o->mass;
    else if (o->kind == PF_OBJECT_BEAM)
        *total_mass = beam_mass_sum(o->beam);
    else
        *total_mass = o->pmass ? point_mass_sum(o) : o->mass * (double)o->n;
    return PF_OK;
}

int pf_world_get_point_masses(const pf_world *w, pf_object_id id, double *out, uint32_t cap, uint32_t *points)
{
    static const char fn[] = "pf_world_get_point_masses";
    PF_TRY(pf_world_check_given(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    PF_TRY(pf_check_given(points, fn, "points"));
    if (cap > 0) PF_TRY(pf_check_given(out, fn, "out"));
    const pf_object *o = w->obj.v[id.index];
    if (o->kind == PF_OBJECT_RIGID)
        return pf_error(PF_EINVAL, "%s: object %u is a rigid body, whose points carry no lumped masses "
                        "(pf_world_get_rigid_inertia gives its mass and inertia)", fn, id.index);
    uint32_t m = cap < o->n ? cap : o->n;
    for (uint32_t i = 0; i < m; i++) out[i] = o->pmass ? o->pmass[i] : o->mass;
    *points = o->n;
    return PF_OK;
}

int pf_world_get_solver(const pf_world *w, pf_object_id id, pf_solver_def *out)
{
    static const char fn[] = "pf_world_get_solver";
    PF_TRY(pf_world_check_given(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    PF_TRY(pf_check_given(out, fn, "out"));
    *out = w->obj.v[id.index]->solver;
    return PF_OK;
}

int pf_world_set_state(pf_world *w, pf_object_id id, const double *x, const double *v)
{
    static const char fn[] = "pf_world_set_state";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    pf_object *o = w->obj.v[id.index];
    size_t n3 = 3 * (size_t)o->n;
    if (x) PF_TRY(pf_check_finite_n(x, n3, fn, "x"));
    if (v) PF_TRY(pf_check_finite_n(v, n3, fn, "v"));
    if (x) memcpy(o->x, x, n3 * sizeof *x);
    if (v) memcpy(o->v, v, n3 * sizeof *v);
    for (uint32_t k = 0; k < o->fixed_list.n; k++) memset(o->v + 3 * (size_t)o->fixed_list.v[k], 0, 3 * sizeof *o->v);
    return PF_OK;
}
