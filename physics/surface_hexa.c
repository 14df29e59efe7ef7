/* The TRILINEAR mapping onto a list of hexahedra (SOFA BarycentricMapperHexahedronSetTopology and
 * BarycentricMapperMeshTopology's hexahedra): for each vertex, the hexahedron holding it at rest and its local
 * coordinates (u, v, w) in [0,1]^3, found by Newton's method on the trilinear map, so that any non-flat cell
 * reproduces the vertex exactly at rest; a vertex outside the mesh takes the nearest cell, extrapolated. SOFA's init
 * takes the coordinates in the affine frame of corners 1, 3, 4 about corner 0 (computeBase), which is the same for
 * a parallelepiped and misplaces the vertex in a distorted cell; the interpolation afterwards (applyOnePoint) is the
 * same trilinear one. The search tries the cells whose boxes hold the vertex, or for one outside them all the cells
 * whose boxes lie nearer than the nearest cell found, both found in a uniform hash of the cells' boxes; done once,
 * when the surface is added. */
#include "surface.h"

#include "rotation.h"
#include "world_guard.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include "physflow/query.h"

#include <math.h>
#include <stdlib.h>

/* corner k at local (u, v, w) = kCorner[k]: SOFA's hexahedron order (pf_hexa_fem_def) */
static const int kCorner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                  {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

/* the 8 trilinear weights at u (sum 1, in [0,1] inside the cell), as SOFA's getBarycentricCoefficients, and when
 * dN is given their derivatives dN[3k + d] = dN_k/du_d */
static void shape(const double u[3], double N[8], double dN[24])
{
    for (int k = 0; k < 8; k++) {
        double f[3];
        for (int d = 0; d < 3; d++) f[d] = kCorner[k][d] ? u[d] : 1 - u[d];
        N[k] = f[0] * f[1] * f[2];
        if (!dN) continue;
        for (int d = 0; d < 3; d++) /* the other two factors, signed */
            dN[3 * k + d] = (kCorner[k][d] ? 1 : -1) * f[(d + 1) % 3] * f[(d + 2) % 3];
    }
}

/* X(u) = sum_k N_k(u) c_k and, when J is given, J = dX/du (row-major, J[3a + d] = dX_a/du_d); c: 8 corners */
static void trilinear(const double c[24], const double u[3], double X[3], double J[9])
{
    double N[8], dN[24];
    shape(u, N, J ? dN : NULL);
    for (int a = 0; a < 3; a++) {
        X[a] = 0;
        for (int k = 0; k < 8; k++) X[a] += N[k] * c[3 * k + a];
    }
    if (!J) return;
    for (int a = 0; a < 3; a++)
        for (int d = 0; d < 3; d++) {
            J[3 * a + d] = 0;
            for (int k = 0; k < 8; k++) J[3 * a + d] += dN[3 * k + d] * c[3 * k + a];
        }
}

static double dist3(const double a[3], const double b[3])
{
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Newton's method on X(u) = p from u, each step halved until the residual drops, and with `clamp` each iterate
 * kept in [0,1]^3 (projected Newton: for a point outside the cell it ends near the cell's point nearest to p). It
 * stops when no step lowers the residual any more (machine precision for a point the map reaches), after 60
 * steps, or at a singular Jacobian. u: the best iterate; returns its residual |X(u) - p|. */
static double newton(const double c[24], const double p[3], int clamp, double u[3])
{
    double X[3], J[9], inv[9];
    trilinear(c, u, X, J);
    double res = dist3(X, p);
    for (int it = 0; it < 60 && res > 0; it++) {
        if (pf_mat3_inverse(J, inv) == 0) break;
        double r[3] = {p[0] - X[0], p[1] - X[1], p[2] - X[2]}, du[3];
        pf_mat3_vec(inv, r, du);
        int better = 0;
        for (double t = 1; t > 1e-6 && !better; t *= 0.5) {
            double un[3], Xn[3], Jn[9];
            for (int a = 0; a < 3; a++) un[a] = clamp ? fmin(fmax(u[a] + t * du[a], 0), 1) : u[a] + t * du[a];
            trilinear(c, un, Xn, Jn);
            double rn = dist3(Xn, p);
            if (rn < res) {
                for (int a = 0; a < 3; a++) u[a] = un[a], X[a] = Xn[a];
                for (int i = 0; i < 9; i++) J[i] = Jn[i];
                res = rn, better = 1;
            }
        }
        if (!better) break;
    }
    return res;
}

/* how far u lies outside [0,1]^3 in local units (<= 0 inside), SOFA's computeDistance */
static double outside(const double u[3])
{
    double m = -INFINITY;
    for (int d = 0; d < 3; d++) m = fmax(m, fmax(-u[d], u[d] - 1));
    return m;
}

/* the 8 corners of hexahedron h of the list at the object's positions x */
static void corners(const double *x, const uint32_t *h, double c[24])
{
    for (int k = 0; k < 8; k++)
        for (int a = 0; a < 3; a++) c[3 * k + a] = x[3 * (size_t)h[k] + a];
}

/* distance from p to the box [lo, hi] (0 inside) */
static double box_distance(const double *box, const double p[3])
{
    double s = 0;
    for (int a = 0; a < 3; a++) {
        double e = fmax(fmax(box[a] - p[a], p[a] - box[3 + a]), 0);
        s += e * e;
    }
    return sqrt(s);
}

int pf_surface_check_hexa(const pf_object *o, const pf_surface_def *d, const char *fn)
{
    PF_TRY(pf_object_check_points(o, fn, "a trilinear surface on hexahedra needs an object of points"));
    PF_TRY(pf_check_int_range(d->nhexahedra, 1, 1 << 28, fn, "def.nhexahedra"));
    PF_TRY(pf_check_given(d->hexahedra, fn, "def.hexahedra"));
    for (size_t k = 0; k < 8 * (size_t)d->nhexahedra; k++)
        if (d->hexahedra[k] >= o->n)
            return pf_error(PF_EINVAL, "%s: def.hexahedra[%zu] = %u (hexahedron %zu): object point out of range "
                            "(%u points)", fn, k, d->hexahedra[k], k / 8, o->n);
    /* flat: the Jacobian at the centre (the mean edge vectors along u, v, w) is singular next to its edges */
    for (uint32_t h = 0; h < d->nhexahedra; h++) {
        double c[24], X[3], J[9];
        const double mid[3] = {0.5, 0.5, 0.5};
        corners(o->x, d->hexahedra + 8 * (size_t)h, c);
        trilinear(c, mid, X, J);
        double det = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
                     J[2] * (J[3] * J[7] - J[4] * J[6]);
        double len = 1;
        for (int dd = 0; dd < 3; dd++) len *= sqrt(J[dd] * J[dd] + J[3 + dd] * J[3 + dd] + J[6 + dd] * J[6 + dd]);
        if (!(fabs(det) > 1e-12 * len))
            return pf_error(PF_EINVAL, "%s: hexahedron %u of def.hexahedra is flat (its corners span no volume at "
                            "the object's current positions)", fn, h);
    }
    return PF_OK;
}

/* largest extent of a cell's box */
static double box_size(const double *b)
{
    return fmax(fmax(b[3] - b[0], b[4] - b[1]), b[5] - b[2]);
}

/* The weights wt of point p in cell h, whose point at coordinates u (in [0,1]^3) is d from p: the trilinear ones
 * at the coordinates that reach p from u (outside the cell they extrapolate, as SOFA's do outside the mesh). Where
 * the cell's trilinear map reaches no such point (far outside a distorted cell, the map folds), its first-order
 * expansion at u: N_k(u) + grad N_k(u) . J(u)^-1 (p - X(u)), still summing to 1 and placing p exactly at rest. */
static void cell_weights(const double c[24], const double p[3], const double u[3], double d, double size, double wt[8])
{
    double v[3] = {u[0], u[1], u[2]};
    double res = newton(c, p, 0, v);
    if (res <= 1e-9 * (size + d)) {
        shape(v, wt, NULL);
        return;
    }
    double X[3], J[9], inv[9], dN[24], du[3];
    trilinear(c, u, X, J);
    shape(u, wt, dN);
    if (pf_mat3_inverse(J, inv) == 0) return; /* a corner where the cell pinches: p onto the cell */
    const double r[3] = {p[0] - X[0], p[1] - X[1], p[2] - X[2]};
    pf_mat3_vec(inv, r, du);
    for (int k = 0; k < 8; k++) wt[k] += dN[3 * k] * du[0] + dN[3 * k + 1] * du[1] + dN[3 * k + 2] * du[2];
}

/* (key, h) before (best_key, best) in lexicographic order: the smaller key, ties to the lower index (the order in
 * which a scan over every cell by ascending index with a strict < keeps them) */
static int before(double key, uint32_t h, double best_key, uint32_t best)
{
    return key < best_key || (key == best_key && h < best);
}

/* a cell h whose box lies at distance d from a point */
typedef struct near_cell {
    double d;
    uint32_t h;
} near_cell;

static int by_distance(const void *pa, const void *pb)
{
    const near_cell *a = pa, *b = pb;
    return a->d < b->d ? -1 : a->d > b->d ? 1 : (a->h > b->h) - (a->h < b->h);
}

/* The hexahedra of a list with their boxes in a uniform hash (pf_query_index, PF_QUERY_UHASH), so that a point
 * meets the few cells whose boxes are near it instead of all of them. Each stored box is grown by twice the
 * tolerance of the test "p in the box" of locate(), so the hash's candidates hold every cell that test keeps. */
typedef struct hexa_index {
    const double *x;
    const uint32_t *hexa;
    uint32_t nh;
    double *box;        /* each cell's corners' box: lo[3], hi[3] */
    double bounds[6];   /* the box of all cells */
    double mean_size;   /* mean of box_size over the cells: the first reach of a nearest-cell search */
    pf_query_index *ix; /* over the grown boxes */
    pf_id_buffer *ids;
    near_cell *near;    /* room for every cell: the candidates of a nearest-cell search, nearest box first */
} hexa_index;

static void index_free(hexa_index *q)
{
    pf_query_index_destroy(q->ix);
    pf_id_buffer_destroy(q->ids);
    pf_free(q->near);
    pf_free(q->box);
}

static int index_build(hexa_index *q, const double *x, const uint32_t *hexa, uint32_t nh)
{
    *q = (hexa_index){.x = x, .hexa = hexa, .nh = nh};
    q->box = pf_malloc(6 * (size_t)nh * sizeof *q->box);
    q->near = pf_malloc((size_t)nh * sizeof *q->near);
    pf_aabb *grown = pf_malloc((size_t)nh * sizeof *grown);
    if (!q->box || !q->near || !grown) {
        pf_free(grown);
        pf_free(q->near);
        pf_free(q->box);
        return pf_error(PF_ENOMEM, "out of memory for the boxes of %u hexahedra", nh);
    }
    for (int a = 0; a < 3; a++) q->bounds[a] = INFINITY, q->bounds[3 + a] = -INFINITY;
    for (uint32_t h = 0; h < nh; h++) {
        double *b = q->box + 6 * (size_t)h;
        b[0] = b[1] = b[2] = INFINITY;
        b[3] = b[4] = b[5] = -INFINITY;
        for (int k = 0; k < 8; k++)
            for (int a = 0; a < 3; a++) {
                double v = x[3 * (size_t)hexa[8 * (size_t)h + k] + a];
                b[a] = fmin(b[a], v);
                b[3 + a] = fmax(b[3 + a], v);
            }
        double size = box_size(b), grow = 2e-9 * size;
        q->mean_size += size / nh;
        for (int a = 0; a < 3; a++) {
            grown[h].min[a] = b[a] - grow, grown[h].max[a] = b[3 + a] + grow;
            q->bounds[a] = fmin(q->bounds[a], b[a]);
            q->bounds[3 + a] = fmax(q->bounds[3 + a], b[3 + a]);
        }
    }
    pf_query_def qd = pf_query_default_def();
    qd.method = PF_QUERY_UHASH; /* cells of the largest box's edge: a mesh's cells are of like sizes */
    int rc = pf_query_index_create(&qd, &q->ix);
    if (!rc) rc = pf_id_buffer_create(&q->ids);
    if (!rc) rc = pf_query_index_build(q->ix, grown, nh);
    pf_free(grown);
    if (rc) index_free(q);
    return rc; /* PF_ENOMEM, with the query index's message */
}

/* The cells whose grown boxes meet the cube of half-edge r about p (r = 0: those holding p), into q->ids. */
static int index_near(const hexa_index *q, const double p[3], double r, const uint32_t **ids, size_t *n)
{
    pf_aabb cube;
    for (int a = 0; a < 3; a++) cube.min[a] = p[a] - r, cube.max[a] = p[a] + r;
    int rc = pf_query_aabb(q->ix, &cube, q->ids);
    *ids = pf_id_buffer_ids(q->ids, n);
    return rc;
}

/* The cell of point p, its coordinates u there and its distance d (0 inside): among the cells holding p
 * (projected Newton reaches it), the one it lies deepest in; for a point outside them all, the nearest cell (by
 * its point at the clamped coordinates, which the projected Newton finds). Ties go to the lowest index. The
 * choice is that of a scan over every cell: the cells a point can hold lie in the box of p's hash cell, and a
 * cell farther from p than the nearest one found so far (its box farther than that point) can't be nearer. */
static int locate(const hexa_index *q, const double p[3], uint32_t *cell, double u[3], double *d)
{
    uint32_t best = UINT32_MAX;
    double best_m = INFINITY, c[24];
    const uint32_t *ids;
    size_t n;
    PF_TRY(index_near(q, p, 0, &ids, &n));
    for (size_t i = 0; i < n; i++) {
        uint32_t h = ids[i];
        const double *b = q->box + 6 * (size_t)h;
        if (box_distance(b, p) > 1e-9 * box_size(b)) continue; /* a cell lies inside its corners' box */
        double v[3] = {0.5, 0.5, 0.5};
        corners(q->x, q->hexa + 8 * (size_t)h, c);
        double res = newton(c, p, 1, v), m = outside(v);
        if (res <= 1e-9 * box_size(b) && before(m, h, best_m, best)) {
            best = h, best_m = m;
            for (int a = 0; a < 3; a++) u[a] = v[a];
        }
    }
    double best_d = best == UINT32_MAX ? INFINITY : 0;
    /* outside every cell: the cells within reach r of p, r doubled until some cell is found, then set to the
     * distance of the nearest found, until that lies within the reach searched (every cell nearer than it seen) */
    for (double r = box_distance(q->bounds, p) + q->mean_size; best == UINT32_MAX || best_d > r;) {
        PF_TRY(index_near(q, p, r * (1 + 1e-9), &ids, &n));
        /* the cells by their boxes' distance, nearest first: the nearest cell found soon stops the rest */
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            double e = box_distance(q->box + 6 * (size_t)ids[i], p);
            if (e <= best_d) q->near[m++] = (near_cell){e, ids[i]};
        }
        qsort(q->near, m, sizeof *q->near, by_distance);
        for (size_t i = 0; i < m && q->near[i].d <= best_d; i++) {
            uint32_t h = q->near[i].h;
            double v[3] = {0.5, 0.5, 0.5};
            corners(q->x, q->hexa + 8 * (size_t)h, c);
            double dd = newton(c, p, 1, v);
            if (before(dd, h, best_d, best)) {
                best = h, best_d = dd;
                for (int a = 0; a < 3; a++) u[a] = v[a];
            }
        }
        if (best_d > r) r = best == UINT32_MAX ? 2 * r : best_d;
    }
    *cell = best, *d = best_d;
    return PF_OK;
}

int pf_surface_hexa_weights(const pf_object *o, const pf_surface_def *d, uint32_t *idx, double *wt)
{
    hexa_index q;
    PF_TRY(index_build(&q, o->x, d->hexahedra, d->nhexahedra));
    int rc = PF_OK;
    for (size_t i = 0; i < d->vertices && !rc; i++) {
        const double *p = d->positions + 3 * i;
        uint32_t h;
        double u[3], dist, c[24];
        rc = locate(&q, p, &h, u, &dist);
        if (rc) break;
        corners(o->x, d->hexahedra + 8 * (size_t)h, c);
        cell_weights(c, p, u, dist, box_size(q.box + 6 * (size_t)h), wt + 8 * i);
        for (int k = 0; k < 8; k++) idx[8 * i + k] = d->hexahedra[8 * (size_t)h + k];
    }
    index_free(&q);
    return rc;
}

int pf_hexa_locate(const double *x, const uint32_t *hexa, uint32_t nh, const double *p, size_t n, uint32_t *cell)
{
    hexa_index q;
    PF_TRY(index_build(&q, x, hexa, nh));
    int rc = PF_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        double u[3], dist;
        rc = locate(&q, p + 3 * i, cell + i, u, &dist);
    }
    index_free(&q);
    return rc;
}

double pf_hexa_project(const double *x, const uint32_t *h, const double p[3], double u[3])
{
    double c[24];
    corners(x, h, c);
    u[0] = u[1] = u[2] = 0.5;
    return newton(c, p, 1, u);
}
