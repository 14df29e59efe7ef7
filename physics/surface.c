/* Surfaces carried by objects through the IDENTITY, TRILINEAR (a grid's cells here, hexahedra in surface_hexa.c),
 * BARYCENTRIC and RIGID mappings (surface.h), and the public functions that attach and read them. */
#include "world_guard.h"
#include "surface.h"

#include "rigid.h"
#include "rotation.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

pf_surface_def pf_surface_default_def(void)
{
    return (pf_surface_def){.mapping = PF_SURFACE_IDENTITY, .friction = -1};
}

void pf_surface_free(pf_surface *s)
{
    if (!s) return;
    pf_free(s->tri);
    pf_free(s->idx);
    pf_free(s->wt);
    pf_free(s->local);
    pf_free(s->pos);
    pf_free(s->vel);
    pf_surface_free_edges(s);
    pf_free(s);
}

/* a Coulomb coefficient: >= 0, or -1 for the collision stage's */
static int check_friction(double mu, const char *fn, const char *what)
{
    PF_TRY(pf_check_finite(mu, fn, what));
    if (!(mu >= 0 || mu == -1))
        return pf_error(PF_EINVAL, "%s: %s must be >= 0 (a Coulomb coefficient) or -1 (the collision stage's), got %g",
                        fn, what, mu);
    return PF_OK;
}

static int check_def(const pf_object *o, const pf_surface_def *d)
{
    static const char fn[] = "pf_world_add_surface";
    PF_TRY(pf_check_int_range(d->vertices, 1, 1 << 28, fn, "def.vertices"));
    PF_TRY(pf_check_int_range(d->triangles, 0, 1 << 28, fn, "def.triangles"));
    PF_TRY(pf_check_nonnegative(d->radius, fn, "def.radius"));
    PF_TRY(pf_check_enum((int)d->mapping, 4, fn, "def.mapping"));
    PF_TRY(check_friction(d->friction, fn, "def.friction"));
    if (d->triangles > 0) PF_TRY(pf_check_given(d->indices, fn, "def.indices"));
    for (size_t k = 0; k < 3 * (size_t)d->triangles; k++)
        if (d->indices[k] >= d->vertices)
            return pf_error(PF_EINVAL, "%s: def.indices[%zu] = %u (triangle %zu): vertex out of range (%u vertices)",
                            fn, k, d->indices[k], k / 3, d->vertices);
    switch (d->mapping) {
    case PF_SURFACE_IDENTITY:
        PF_TRY(pf_object_check_points(o, fn, "an identity surface needs an object of points"));
        PF_TRY(pf_check_given(d->points, fn, "def.points"));
        for (uint32_t i = 0; i < d->vertices; i++)
            if (d->points[i] >= o->n)
                return pf_error(PF_EINVAL, "%s: def.points[%u] = %u: object point out of range (%u points)", fn, i,
                                d->points[i], o->n);
        return PF_OK;
    case PF_SURFACE_TRILINEAR:
        if (d->hexahedra || d->nhexahedra) {
            PF_TRY(pf_surface_check_hexa(o, d, fn));
            break;
        }
        if (o->kind != PF_OBJECT_POINTS || o->grid[0] < 2 || o->grid[1] < 2 || o->grid[2] < 2)
            return pf_error(PF_EINVAL, "%s: a trilinear surface needs def.hexahedra or a grid object with >= 2 points "
                            "per axis", fn);
        break;
    case PF_SURFACE_BARYCENTRIC:
        PF_TRY(pf_object_check_points(o, fn, "a barycentric surface needs an object of points"));
        PF_TRY(pf_check_int_range(d->ntetrahedra, 1, 1 << 28, fn, "def.ntetrahedra"));
        PF_TRY(pf_check_given(d->tetrahedra, fn, "def.tetrahedra"));
        for (size_t k = 0; k < 4 * (size_t)d->ntetrahedra; k++)
            if (d->tetrahedra[k] >= o->n)
                return pf_error(PF_EINVAL, "%s: def.tetrahedra[%zu] = %u (tetrahedron %zu): object point out of range "
                                "(%u points)", fn, k, d->tetrahedra[k], k / 4, o->n);
        break;
    default: /* PF_SURFACE_RIGID */
        if (o->kind != PF_OBJECT_RIGID)
            return pf_error(PF_EINVAL, "%s: object %u is %s; a rigid surface needs a rigid body", fn, o->id,
                            pf_object_kind_noun(o->kind));
        break;
    }
    PF_TRY(pf_check_given(d->positions, fn, "def.positions"));
    return pf_check_finite_n(d->positions, 3 * (size_t)d->vertices, fn, "def.positions");
}

/* Trilinear weights of vertex p in the grid's rest box: the cell holding it (the nearest cell for a point
 * outside the box, whose weights then extrapolate), node k at offset (k&1, k>>1&1, k>>2&1) as in the FEM. */
static void locate(const pf_object *o, const double p[3], uint32_t idx[8], double wt[8])
{
    int c[3];
    double u[3];
    for (int d = 0; d < 3; d++) {
        double t = (p[d] - o->grid_min[d]) / (o->grid_max[d] - o->grid_min[d]) * (o->grid[d] - 1);
        double cf = floor(t);
        if (cf < 0) cf = 0;
        if (cf > o->grid[d] - 2) cf = o->grid[d] - 2;
        c[d] = (int)cf;
        u[d] = t - cf;
    }
    for (int k = 0; k < 8; k++) {
        int b[3] = {k & 1, k >> 1 & 1, k >> 2 & 1};
        double w = 1;
        for (int d = 0; d < 3; d++) w *= b[d] ? u[d] : 1 - u[d];
        wt[k] = w;
        idx[k] = (uint32_t)(c[0] + b[0]) +
                 (uint32_t)o->grid[0] * ((uint32_t)(c[1] + b[1]) + (uint32_t)o->grid[1] * (uint32_t)(c[2] + b[2]));
    }
}

/* Barycentric weights of p in tetrahedron t (corners at x): 0 for a flat one (*ok = 0) */
static void tetra_weights(const double *x, const uint32_t t[4], const double p[3], double l[4], int *ok)
{
    const double *a = x + 3 * (size_t)t[0];
    double e[3][3], r[3], inv[9];
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 3; d++) e[d][k] = x[3 * (size_t)t[k + 1] + (size_t)d] - a[d]; /* edges as columns */
    for (int d = 0; d < 3; d++) r[d] = p[d] - a[d];
    const double E[9] = {e[0][0], e[0][1], e[0][2], e[1][0], e[1][1], e[1][2], e[2][0], e[2][1], e[2][2]};
    *ok = pf_mat3_inverse(E, inv) != 0;
    double s = 0;
    for (int k = 0; k < 3; k++) {
        l[k + 1] = *ok ? inv[3 * k] * r[0] + inv[3 * k + 1] * r[1] + inv[3 * k + 2] * r[2] : 0;
        s += l[k + 1];
    }
    l[0] = 1 - s;
}

/* Barycentric weights of vertex p in the tetrahedron holding it: the one whose smallest weight is largest (>= 0
 * inside; for a point outside the mesh, the tetrahedron it is least outside of, whose weights extrapolate). The
 * 4 terms go into idx/wt[0..3]; [4..7] get weight 0 (the 8-term layout of the trilinear mapping). O(tetrahedra)
 * per vertex. */
static void locate_tetra(const pf_object *o, const pf_surface_def *d, const double p[3], uint32_t idx[8],
                         double wt[8])
{
    double best = -INFINITY, l[4];
    uint32_t bt = 0;
    for (uint32_t t = 0; t < d->ntetrahedra; t++) {
        int ok;
        tetra_weights(o->x, d->tetrahedra + 4 * (size_t)t, p, l, &ok);
        double m = fmin(fmin(l[0], l[1]), fmin(l[2], l[3]));
        if (ok && m > best) best = m, bt = t;
    }
    int ok;
    tetra_weights(o->x, d->tetrahedra + 4 * (size_t)bt, p, l, &ok);
    for (int k = 0; k < 8; k++) {
        idx[k] = d->tetrahedra[4 * (size_t)bt + (size_t)(k & 3)];
        wt[k] = k < 4 ? l[k] : 0;
    }
}

int pf_surface_create(const pf_object *o, const pf_surface_def *d, pf_surface **out)
{
    PF_ASSERT(o && d && out);
    *out = NULL;
    int rc = check_def(o, d);
    if (rc) return rc;
    size_t nv = d->vertices, nt = d->triangles;
    pf_surface *s = pf_calloc(1, sizeof *s);
    if (!s) return pf_error(PF_ENOMEM, "out of memory for a surface");
    s->object = o->id;
    s->mapping = d->mapping;
    s->nv = d->vertices;
    s->nt = d->triangles;
    s->radius = d->radius;
    size_t per = d->mapping == PF_SURFACE_TRILINEAR || d->mapping == PF_SURFACE_BARYCENTRIC ? 8 : 1;
    int fail = !(s->tri = pf_malloc((nt ? 3 * nt : 1) * sizeof *s->tri)) || !(s->pos = pf_calloc(3 * nv, sizeof(double))) ||
               !(s->vel = pf_calloc(3 * nv, sizeof(double)));
    if (d->mapping == PF_SURFACE_RIGID)
        fail = fail || !(s->local = pf_malloc(3 * nv * sizeof(double)));
    else
        fail = fail || !(s->idx = pf_malloc(per * nv * sizeof *s->idx)) ||
               (per == 8 && !(s->wt = pf_malloc(8 * nv * sizeof(double))));
    if (fail) {
        pf_surface_free(s);
        return pf_error(PF_ENOMEM, "out of memory for a surface of %zu vertices", nv);
    }
    if (nt) memcpy(s->tri, d->indices, 3 * nt * sizeof *s->tri);
    s->friction = d->friction;
    s->contact_stiffness = -1;
    if (pf_surface_orientation_closed(s->tri, s->nt, &s->closed)) {
        pf_surface_free(s);
        return pf_error(PF_ENOMEM, "out of memory for a surface of %zu triangles", nt);
    }
    if (d->mapping == PF_SURFACE_IDENTITY) memcpy(s->idx, d->points, nv * sizeof *s->idx);
    int hexa = d->mapping == PF_SURFACE_TRILINEAR && d->hexahedra;
    if (hexa && (rc = pf_surface_hexa_weights(o, d, s->idx, s->wt))) {
        pf_surface_free(s);
        return rc;
    }
    for (size_t i = 0; i < nv && d->mapping == PF_SURFACE_TRILINEAR && !hexa; i++)
        locate(o, d->positions + 3 * i, s->idx + 8 * i, s->wt + 8 * i);
    for (size_t i = 0; i < nv && d->mapping == PF_SURFACE_BARYCENTRIC; i++)
        locate_tetra(o, d, d->positions + 3 * i, s->idx + 8 * i, s->wt + 8 * i);
    if (d->mapping == PF_SURFACE_RIGID) {
        double R[9];
        pf_rigid_rotation(o->x, R);
        for (size_t i = 0; i < nv; i++) { /* local = R^T (p - com) */
            const double *p = d->positions + 3 * i;
            for (int a = 0; a < 3; a++)
                s->local[3 * i + a] = R[a] * (p[0] - o->x[0]) + R[3 + a] * (p[1] - o->x[1]) + R[6 + a] * (p[2] - o->x[2]);
        }
    }
    if ((rc = pf_surface_set_collision(s, d, "pf_world_add_surface"))) {
        pf_surface_free(s);
        return rc;
    }
    *out = s;
    return PF_OK;
}

pf_surface_point pf_surface_vertex(uint32_t v)
{
    return (pf_surface_point){{v, v, v}, {1, 0, 0}};
}

pf_surface_point pf_surface_triangle_point(const pf_surface *s, uint32_t t, const double bary[3])
{
    const uint32_t *v = s->tri + 3 * (size_t)t;
    return (pf_surface_point){{v[0], v[1], v[2]}, {bary[0], bary[1], bary[2]}};
}

/* IDENTITY / TRILINEAR / BARYCENTRIC: the point as a weighted sum of object points (up to 3 x 8 terms) */
static uint32_t linear_terms(const pf_surface *s, const pf_surface_point *pt, uint32_t idx[24], double w[24])
{
    uint32_t m = 0;
    for (int k = 0; k < 3; k++) {
        if (pt->w[k] == 0) continue;
        size_t v = pt->v[k];
        if (s->mapping == PF_SURFACE_IDENTITY) {
            idx[m] = s->idx[v];
            w[m++] = pt->w[k];
            continue;
        }
        for (int c = 0; c < 8; c++) {
            idx[m] = s->idx[8 * v + c];
            w[m++] = pt->w[k] * s->wt[8 * v + c];
        }
    }
    return m;
}

uint32_t pf_surface_point_terms(const pf_surface *s, const pf_surface_point *pt, uint32_t idx[24], double w[24])
{
    return s->mapping == PF_SURFACE_RIGID ? 0 : linear_terms(s, pt, idx, w);
}

/* RIGID: the arm r = R sum_k w[k] local[v[k]] from the com to the point, at the orientation in x */
static void rigid_arm(const pf_surface *s, const double *x, const pf_surface_point *pt, double r[3])
{
    double l[3] = {0, 0, 0}, R[9];
    for (int k = 0; k < 3; k++)
        for (int a = 0; a < 3; a++) l[a] += pt->w[k] * s->local[3 * (size_t)pt->v[k] + a];
    pf_rigid_rotation(x, R);
    pf_mat3_vec(R, l, r);
}

/* RIGID: J q = q_lin + q_ang x r at the point of arm r */
static void rigid_apply(const double r[3], const double *q, double out[3])
{
    double wr[3];
    pf_cross(q + 3, r, wr);
    for (int a = 0; a < 3; a++) out[a] = q[a] + wr[a];
}

/* RIGID: fobj += J^T f, the force on the com and the torque r x f */
static void rigid_add_force(const double r[3], const double f[3], double *fobj)
{
    double t[3];
    pf_cross(r, f, t);
    for (int a = 0; a < 3; a++) {
        fobj[a] += f[a];
        fobj[3 + a] += t[a];
    }
}

/* IDENTITY / TRILINEAR / BARYCENTRIC: J q, the weighted sum of q's points */
static void linear_apply(const pf_surface *s, const pf_surface_point *pt, const double *q, double out[3])
{
    uint32_t idx[24];
    double w[24];
    uint32_t m = linear_terms(s, pt, idx, w);
    out[0] = out[1] = out[2] = 0;
    for (uint32_t k = 0; k < m; k++)
        for (int a = 0; a < 3; a++) out[a] += w[k] * q[3 * (size_t)idx[k] + a];
}

/* out = J q for a state-like vector q (x for positions: its point 0 is the com) */
static void map_vector(const pf_surface *s, const double *x, const pf_surface_point *pt, const double *q, int affine,
                       double out[3])
{
    if (s->mapping != PF_SURFACE_RIGID) {
        linear_apply(s, pt, q, out);
        return;
    }
    double r[3];
    rigid_arm(s, x, pt, r);
    if (affine) { /* position: com + r */
        for (int a = 0; a < 3; a++) out[a] = q[a] + r[a];
        return;
    }
    rigid_apply(r, q, out);
}

void pf_surface_point_position(const pf_surface *s, const pf_object *o, const double *x, const pf_surface_point *pt,
                               double out[3])
{
    (void)o;
    map_vector(s, x, pt, x, 1, out);
}

void pf_surface_point_apply(const pf_surface *s, const pf_object *o, const double *x, const pf_surface_point *pt,
                            const double *dq, double out[3])
{
    (void)o;
    map_vector(s, x, pt, dq, 0, out);
}

int pf_surface_point_arm(const pf_surface *s, const double *x, const pf_surface_point *pt, double r[3])
{
    if (s->mapping != PF_SURFACE_RIGID) return 0;
    rigid_arm(s, x, pt, r);
    return 1;
}

void pf_surface_point_apply_arm(const pf_surface *s, const pf_surface_point *pt, const double r[3], const double *dq,
                                double out[3])
{
    if (s->mapping == PF_SURFACE_RIGID)
        rigid_apply(r, dq, out);
    else
        linear_apply(s, pt, dq, out);
}

/* IDENTITY / TRILINEAR / BARYCENTRIC: fobj += J^T f at the points `keep` keeps (NULL: all) */
static void linear_add_force(const pf_surface *s, const pf_surface_point *pt, const double f[3], double *fobj,
                             const pf_point_filter *keep)
{
    uint32_t idx[24];
    double w[24];
    uint32_t m = linear_terms(s, pt, idx, w);
    for (uint32_t k = 0; k < m; k++)
        if (pf_point_kept(keep, idx[k]))
            for (int a = 0; a < 3; a++) fobj[3 * (size_t)idx[k] + a] += w[k] * f[a];
}

void pf_surface_add_force_arm(const pf_surface *s, const pf_surface_point *pt, const double r[3], const double f[3],
                              double *fobj)
{
    if (s->mapping == PF_SURFACE_RIGID)
        rigid_add_force(r, f, fobj);
    else
        linear_add_force(s, pt, f, fobj, NULL);
}

void pf_surface_add_force(const pf_surface *s, const pf_object *o, const double *x, const pf_surface_point *pt,
                          const double f[3], double *fobj, const pf_point_filter *keep)
{
    (void)o;
    if (s->mapping == PF_SURFACE_RIGID) { /* never cut into blocks: keep is NULL */
        double r[3];
        rigid_arm(s, x, pt, r);
        rigid_add_force(r, f, fobj);
        return;
    }
    linear_add_force(s, pt, f, fobj, keep);
}

void pf_surface_add_dforce(const pf_surface *s, const pf_object *o, const double *x, const pf_surface_point *pt,
                           const double K[9], double kfact, const double *dq, double *dfobj)
{
    double dx[3], df[3];
    pf_surface_point_apply(s, o, x, pt, dq, dx);
    pf_mat3_vec(K, dx, df);
    for (int a = 0; a < 3; a++) df[a] *= kfact;
    pf_surface_add_force(s, o, x, pt, df, dfobj, NULL);
}

/* RIGID, all vertices: r = R local with R computed once; velocity = v + omega x r when v is given */
static void rigid_vertices(const pf_surface *s, const double *x, const double *v, uint32_t lo, uint32_t hi,
                           double *out)
{
    double R[9];
    pf_rigid_rotation(x, R);
    for (size_t i = lo; i < hi; i++) {
        double r[3], wr[3];
        pf_mat3_vec(R, s->local + 3 * i, r);
        if (v) pf_cross(v + 3, r, wr);
        for (int a = 0; a < 3; a++) out[3 * i + a] = v ? v[a] + wr[a] : x[a] + r[a];
    }
}

void pf_surface_positions_range(pf_surface *s, const pf_object *o, const double *x, uint32_t lo, uint32_t hi)
{
    if (s->mapping == PF_SURFACE_RIGID) {
        rigid_vertices(s, x, NULL, lo, hi, s->pos);
        return;
    }
    for (uint32_t i = lo; i < hi; i++) {
        pf_surface_point pt = pf_surface_vertex(i);
        pf_surface_point_position(s, o, x, &pt, s->pos + 3 * (size_t)i);
    }
}

void pf_surface_velocities_range(pf_surface *s, const pf_object *o, const double *x, const double *v, uint32_t lo,
                                 uint32_t hi)
{
    if (s->mapping == PF_SURFACE_RIGID) {
        rigid_vertices(s, x, v, lo, hi, s->vel);
        return;
    }
    for (uint32_t i = lo; i < hi; i++) {
        pf_surface_point pt = pf_surface_vertex(i);
        pf_surface_point_apply(s, o, x, &pt, v, s->vel + 3 * (size_t)i);
    }
}

const double *pf_surface_positions(pf_surface *s, const pf_object *o, const double *x)
{
    pf_surface_positions_range(s, o, x, 0, s->nv);
    return s->pos;
}

const double *pf_surface_velocities(pf_surface *s, const pf_object *o, const double *x, const double *v)
{
    pf_surface_velocities_range(s, o, x, v, 0, s->nv);
    return s->vel;
}

/* ---- public API ---- */

pf_surface *pf_world_surface(const pf_world *w, pf_surface_id s)
{
    return w && s.index < w->surf.n ? w->surf.v[s.index] : NULL;
}

/* surface s of w for the public call `fn`, or NULL with its message; a removed object's surfaces are left
 * empty (removal.c) */
static pf_surface *checked_surface(const pf_world *w, pf_surface_id s, const char *fn)
{
    if (pf_world_check_given(w, fn) || pf_check_index(s.index, w->surf.n, fn, "surface")) return NULL;
    if (w->surf.v[s.index]->nv == 0) {
        pf_error(PF_EINVAL, "%s: surface %u was removed with object %u", fn, s.index,
                 w->surf.v[s.index]->object);
        return NULL;
    }
    return w->surf.v[s.index];
}

int pf_world_take_surface(pf_world *w, pf_surface *s, pf_surface_id *out)
{
    if (pf_vec_reserve(&w->surf, w->surf.n + 1)) {
        pf_surface_free(s);
        return pf_error(PF_ENOMEM, "out of memory for a surface");
    }
    if (out) *out = (pf_surface_id){(uint32_t)w->surf.n};
    w->surf.v[w->surf.n++] = s;
    return PF_OK;
}

int pf_world_add_surface(pf_world *w, pf_object_id o, const pf_surface_def *def, pf_surface_id *out)
{
    PF_TRY(pf_world_check_mutable(w, "pf_world_add_surface"));
    PF_TRY(pf_world_check_object(w, o.index, "pf_world_add_surface"));
    PF_TRY(pf_check_given(def, "pf_world_add_surface", "def"));
    pf_surface *s;
    int rc = pf_surface_create(w->obj.v[o.index], def, &s);
    return rc ? rc : pf_world_take_surface(w, s, out);
}

uint32_t pf_world_surfaces(const pf_world *w)
{
    return w ? w->surf.n : 0;
}

int pf_world_get_surface_info(const pf_world *w, pf_surface_id id, pf_object_id *object, uint32_t *vertices,
                              uint32_t *triangles)
{
    const pf_surface *s = checked_surface(w, id, "pf_world_get_surface_info");
    if (!s) return PF_EINVAL;
    if (object) *object = (pf_object_id){s->object};
    if (vertices) *vertices = s->nv;
    if (triangles) *triangles = s->nt;
    return PF_OK;
}

const double *pf_world_surface_positions(pf_world *w, pf_surface_id id, uint32_t *vertices)
{
    pf_surface *s = checked_surface(w, id, "pf_world_surface_positions");
    if (!s) return NULL;
    if (vertices) *vertices = s->nv;
    const pf_object *o = w->obj.v[s->object];
    return pf_surface_positions(s, o, o->x);
}

const double *pf_world_surface_velocities(pf_world *w, pf_surface_id id, uint32_t *vertices)
{
    pf_surface *s = checked_surface(w, id, "pf_world_surface_velocities");
    if (!s) return NULL;
    if (vertices) *vertices = s->nv;
    const pf_object *o = w->obj.v[s->object];
    return pf_surface_velocities(s, o, o->x, o->v);
}

const uint32_t *pf_world_surface_triangles(const pf_world *w, pf_surface_id id, uint32_t *triangles)
{
    const pf_surface *s = checked_surface(w, id, "pf_world_surface_triangles");
    if (!s) return NULL;
    if (triangles) *triangles = s->nt;
    return s->tri;
}

int pf_world_set_surface_friction(pf_world *w, pf_surface_id id, double friction)
{
    static const char fn[] = "pf_world_set_surface_friction";
    PF_TRY(pf_world_check_mutable(w, fn));
    pf_surface *s = checked_surface(w, id, fn);
    if (!s) return PF_EINVAL;
    PF_TRY(check_friction(friction, fn, "friction"));
    s->friction = friction;
    return PF_OK;
}

int pf_world_get_surface_friction(const pf_world *w, pf_surface_id id, double *friction, int *closed)
{
    static const char fn[] = "pf_world_get_surface_friction";
    const pf_surface *s = checked_surface(w, id, fn);
    if (!s) return PF_EINVAL;
    if (friction) *friction = s->friction;
    if (closed) *closed = s->closed;
    return PF_OK;
}

int pf_world_set_surface_contact_stiffness(pf_world *w, pf_surface_id id, double stiffness)
{
    static const char fn[] = "pf_world_set_surface_contact_stiffness";
    PF_TRY(pf_world_check_mutable(w, fn));
    pf_surface *s = checked_surface(w, id, fn);
    if (!s) return PF_EINVAL;
    if (!(stiffness == -1 || (stiffness > 0 && isfinite(stiffness))))
        return pf_error(PF_EINVAL, "%s: stiffness must be > 0 and finite, or -1, got %g", fn, stiffness);
    s->contact_stiffness = stiffness;
    return PF_OK;
}

int pf_world_get_surface_contact_stiffness(const pf_world *w, pf_surface_id id, double *stiffness)
{
    static const char fn[] = "pf_world_get_surface_contact_stiffness";
    const pf_surface *s = checked_surface(w, id, fn);
    if (!s) return PF_EINVAL;
    if (stiffness) *stiffness = s->contact_stiffness;
    return PF_OK;
}
