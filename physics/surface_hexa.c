/* The TRILINEAR mapping onto a list of hexahedra (SOFA BarycentricMapperHexahedronSetTopology and
 * BarycentricMapperMeshTopology's hexahedra): for each vertex, the hexahedron holding it at rest and its local
 * coordinates (u, v, w) in [0,1]^3, found by Newton's method on the trilinear map, so that any non-flat cell
 * reproduces the vertex exactly at rest; a vertex outside the mesh takes the nearest cell, extrapolated. SOFA's init
 * takes the coordinates in the affine frame of corners 1, 3, 4 about corner 0 (computeBase), which is the same for
 * a parallelepiped and misplaces the vertex in a distorted cell; the interpolation afterwards (applyOnePoint) is the
 * same trilinear one. The search tries every cell whose box holds the vertex (all cells, nearest box first, for one
 * outside them); done once, when the surface is added. */
#include "surface.h"

#include "rotation.h"
#include "world_guard.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>

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

/* The cell of point p and its weights wt: among the cells holding p (projected Newton reaches it), the one it lies
 * deepest in; for a point outside them all, the nearest cell (by its point at the clamped coordinates, which the
 * projected Newton finds). Ties go to the lowest index. */
static uint32_t locate(const double *x, const uint32_t *hexa, uint32_t nh, const double *box, const double p[3],
                       double wt[8])
{
    uint32_t best = UINT32_MAX;
    double best_m = INFINITY, u[3] = {0.5, 0.5, 0.5}, c[24];
    for (uint32_t h = 0; h < nh; h++) {
        const double *b = box + 6 * (size_t)h;
        if (box_distance(b, p) > 1e-9 * box_size(b)) continue; /* a cell lies inside its corners' box */
        double v[3] = {0.5, 0.5, 0.5};
        corners(x, hexa + 8 * (size_t)h, c);
        double res = newton(c, p, 1, v), m = outside(v);
        if (res <= 1e-9 * box_size(b) && m < best_m) {
            best = h, best_m = m;
            for (int a = 0; a < 3; a++) u[a] = v[a];
        }
    }
    double best_d = 0;
    if (best == UINT32_MAX) {
        /* the cell of the nearest box first, so that the others' boxes are mostly skipped */
        uint32_t first = 0;
        double near = INFINITY;
        for (uint32_t h = 0; h < nh; h++) {
            double e = box_distance(box + 6 * (size_t)h, p);
            if (e < near) near = e, first = h;
        }
        best_d = INFINITY;
        for (uint32_t q = 0; q <= nh; q++) {
            uint32_t h = q == 0 ? first : q - 1;
            if ((q > 0 && h == first) || box_distance(box + 6 * (size_t)h, p) > best_d) continue;
            double v[3] = {0.5, 0.5, 0.5};
            corners(x, hexa + 8 * (size_t)h, c);
            double dd = newton(c, p, 1, v);
            if (dd < best_d || (dd == best_d && h < best)) {
                best = h, best_d = dd;
                for (int a = 0; a < 3; a++) u[a] = v[a];
            }
        }
    }
    corners(x, hexa + 8 * (size_t)best, c);
    cell_weights(c, p, u, best_d, box_size(box + 6 * (size_t)best), wt);
    return best;
}

int pf_surface_hexa_weights(const pf_object *o, const pf_surface_def *d, uint32_t *idx, double *wt)
{
    double *box = pf_malloc(6 * (size_t)d->nhexahedra * sizeof *box);
    if (!box) return pf_error(PF_ENOMEM, "out of memory for %u hexahedra", d->nhexahedra);
    for (uint32_t h = 0; h < d->nhexahedra; h++) {
        double *b = box + 6 * (size_t)h;
        b[0] = b[1] = b[2] = INFINITY;
        b[3] = b[4] = b[5] = -INFINITY;
        for (int k = 0; k < 8; k++)
            for (int a = 0; a < 3; a++) {
                double v = o->x[3 * (size_t)d->hexahedra[8 * (size_t)h + k] + a];
                b[a] = fmin(b[a], v);
                b[3 + a] = fmax(b[3 + a], v);
            }
    }
    for (size_t i = 0; i < d->vertices; i++) {
        uint32_t h = locate(o->x, d->hexahedra, d->nhexahedra, box, d->positions + 3 * i, wt + 8 * i);
        PF_ASSERT(h < d->nhexahedra);
        for (int k = 0; k < 8; k++) idx[8 * i + k] = d->hexahedra[8 * (size_t)h + k];
    }
    pf_free(box);
    return PF_OK;
}
