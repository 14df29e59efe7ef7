/* Hexahedral FEM (SOFA HexahedronFEMForceField) on the cells of a regular grid or on a list of hexahedra:
 * trilinear elements, linear ("small") and corotational ("large", "polar", "svd") formulations, forces f(x) and
 * the matrix-free product df = K dx for implicit Euler. */
#include "world_guard.h"
#include "assembly.h"
#include "force_field.h"
#include "objects.h"
#include "fem_hexa.h"
#include "rotation.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

/* Element stiffness of an a x b x c box: sum over the 2x2x2 Gauss points of B^T D B det(J). */
static void box_stiffness(double a, double b, double c, double E, double nu, double ke[576])
{
    double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    double D[6][6] = {{0}};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) D[i][j] = lambda;
        D[i][i] = lambda + 2 * mu;
        D[i + 3][i + 3] = mu;
    }
    memset(ke, 0, 576 * sizeof *ke);
    double g = 1.0 / sqrt(3.0), detj = a * b * c / 8.0;
    for (int gp = 0; gp < 8; gp++) {
        double xi[3] = {(gp & 1) ? g : -g, (gp & 2) ? g : -g, (gp & 4) ? g : -g};
        double B[6][24] = {{0}};
        for (int k = 0; k < 8; k++) {
            double s[3] = {(k & 1) ? 1.0 : -1.0, (k & 2) ? 1.0 : -1.0, (k & 4) ? 1.0 : -1.0};
            double dx = s[0] * (1 + s[1] * xi[1]) * (1 + s[2] * xi[2]) / 8.0 * 2.0 / a;
            double dy = s[1] * (1 + s[0] * xi[0]) * (1 + s[2] * xi[2]) / 8.0 * 2.0 / b;
            double dz = s[2] * (1 + s[0] * xi[0]) * (1 + s[1] * xi[1]) / 8.0 * 2.0 / c;
            int col = 3 * k;
            B[0][col] = dx;
            B[1][col + 1] = dy;
            B[2][col + 2] = dz;
            B[3][col] = dy;
            B[3][col + 1] = dx;
            B[4][col + 1] = dz;
            B[4][col + 2] = dy;
            B[5][col] = dz;
            B[5][col + 2] = dx;
        }
        double DB[6][24];
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 24; j++) {
                double s = 0;
                for (int m = 0; m < 6; m++) s += D[i][m] * B[m][j];
                DB[i][j] = s;
            }
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++) {
                double s = 0;
                for (int m = 0; m < 6; m++) s += B[m][i] * DB[m][j];
                ke[i * 24 + j] += s * detj;
            }
    }
}

static void hexa_fem_free(pf_hexa_fem *fem);

static int hexa_fem_init_grid(pf_hexa_fem *fem, const pf_object *o, const pf_hexa_fem_def *def)
{
    int n0 = o->grid[0], n1 = o->grid[1], n2 = o->grid[2];
    if (n0 < 2 || n1 < 2 || n2 < 2)
        return pf_error(PF_EINVAL, "hexahedral FEM needs a grid of at least 2 points per axis (or def.hexahedra), "
                        "got %dx%dx%d", n0, n1, n2);
    fem->nelem = (uint32_t)((n0 - 1) * (n1 - 1) * (n2 - 1));
    fem->elem = pf_malloc((size_t)fem->nelem * 8 * sizeof *fem->elem);
    fem->rest = pf_malloc((size_t)fem->nelem * 24 * sizeof *fem->rest);
    fem->rot = pf_calloc((size_t)fem->nelem * 9, sizeof *fem->rot);
    if (!fem->elem || !fem->rest || !fem->rot) {
        hexa_fem_free(fem);
        return pf_error(PF_ENOMEM, "out of memory for %u hexahedra", fem->nelem);
    }
    uint32_t e = 0;
    for (int k = 0; k + 1 < n2; k++)
        for (int j = 0; j + 1 < n1; j++)
            for (int i = 0; i + 1 < n0; i++, e++)
                for (int c = 0; c < 8; c++)
                    fem->elem[8 * e + c] =
                        (uint32_t)((i + (c & 1)) + n0 * ((j + (c >> 1 & 1)) + n1 * (k + (c >> 2 & 1))));
    for (e = 0; e < fem->nelem; e++) {
        const uint32_t *el = fem->elem + 8 * e;
        for (int c = 0; c < 8; c++)
            for (int d = 0; d < 3; d++) fem->rest[24 * e + 3 * c + d] = o->x[3 * el[c] + d] - o->x[3 * el[0] + d];
        double *R = fem->rot + 9 * e;
        R[0] = R[4] = R[8] = 1.0;
    }
    /* all cells of a regular grid are the same axis-aligned box: one stiffness for all */
    const double *r = fem->rest;
    box_stiffness(r[3 * 1 + 0], r[3 * 2 + 1], r[3 * 4 + 2], def->young_modulus, def->poisson_ratio, fem->ke);
    return PF_OK;
}

static void hexa_fem_free(pf_hexa_fem *fem)
{
    pf_free(fem->elem);
    pf_free(fem->rest);
    pf_free(fem->rot);
    pf_free(fem->kes);
    fem->elem = NULL;
    fem->rest = fem->rot = fem->kes = NULL;
}

/* out = ke u (ke symmetric: column sweeps, which vectorise without reassociating sums) */
static inline void ke_mul(const double *restrict ke, const double *restrict u, double *restrict out)
{
    for (int i = 0; i < 24; i++) out[i] = 0;
    for (int j = 0; j < 24; j++) {
        const double uj = u[j], *col = ke + 24 * j;
        for (int i = 0; i < 24; i++) out[i] += col[i] * uj;
    }
}

static void normalize(double v[3])
{
    double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0) {
        v[0] /= l;
        v[1] /= l;
        v[2] /= l;
    }
}

/* SOFA's "large" frame: first axis along the averaged xi edges, third normal to the xi and eta edges. */
static void element_frame(const double *xe, double R[9])
{
    double ex[3] = {0, 0, 0}, ey[3] = {0, 0, 0};
    static const int xs[4] = {0, 2, 4, 6}, ys[4] = {0, 1, 4, 5};
    for (int m = 0; m < 4; m++)
        for (int d = 0; d < 3; d++) {
            ex[d] += xe[3 * (xs[m] | 1) + d] - xe[3 * xs[m] + d];
            ey[d] += xe[3 * (ys[m] | 2) + d] - xe[3 * ys[m] + d];
        }
    normalize(ex);
    double ez[3] = {ex[1] * ey[2] - ex[2] * ey[1], ex[2] * ey[0] - ex[0] * ey[2], ex[0] * ey[1] - ex[1] * ey[0]};
    normalize(ez);
    double eyo[3] = {ez[1] * ex[2] - ez[2] * ex[1], ez[2] * ex[0] - ez[0] * ex[2], ez[0] * ex[1] - ez[1] * ex[0]};
    memcpy(R, ex, sizeof ex);
    memcpy(R + 3, eyo, sizeof eyo);
    memcpy(R + 6, ez, sizeof ez);
}

/* the rest shape X (relative to corner 0, in its frame) is an axis-aligned box: its lengths in L */
static int is_box(const double X[24], double L[3])
{
    for (int d = 0; d < 3; d++) L[d] = X[3 * (1 << d) + d];
    if (!(L[0] > 0 && L[1] > 0 && L[2] > 0)) return 0;
    for (int k = 0; k < 8; k++)
        for (int d = 0; d < 3; d++)
            if (X[3 * k + d] != ((k >> d & 1) ? L[d] : 0.0)) return 0;
    return 1;
}

/* One element of a list: its corners in bit order, its rest frame (SOFA's init: the method's rotation of the rest
 * shape), its rest shape in that frame and its own stiffness there. Indices are checked already. */
static int hexa_element_init(pf_hexa_fem *fem, uint32_t e, const pf_object *o, const pf_hexa_fem_def *def,
                             const char *fn)
{
    uint32_t *el = fem->elem + 8 * e;
    const uint32_t *given = def->hexahedra + 8 * (size_t)e;
    double X[24];
    for (int k = 0; k < 8; k++) el[k] = given[pf_hexa_sofa_corner[k]];
    for (int k = 0; k < 8; k++)
        for (int d = 0; d < 3; d++) X[3 * k + d] = o->x[3 * el[k] + d] - o->x[3 * el[0] + d];
    int corner;
    double q = pf_hexa_corner_quality(X, &corner);
    if (!(q > 1e-9))
        return pf_error(PF_EINVAL, "%s: hexahedron %u (points %u %u %u %u %u %u %u %u) is %s at its corner %d (point "
                        "%u): corners in SOFA's order, bottom face 0-3 counter-clockwise, top face 4-7 above",
                        fn, e, given[0], given[1], given[2], given[3], given[4], given[5], given[6], given[7],
                        q < 0 ? "inverted" : "flat", pf_hexa_sofa_corner[corner], el[corner]);
    double *R = fem->rot + 9 * (size_t)e, *rest = fem->rest + 24 * (size_t)e;
    if (def->method == PF_FEM_LARGE)
        element_frame(X, R);
    else if (def->method != PF_FEM_LINEAR)
        pf_hexa_frame_polar(X, def->method == PF_FEM_SVD, R);
    else
        R[0] = R[4] = R[8] = 1.0;
    for (int k = 0; k < 8; k++) {
        if (def->method == PF_FEM_LINEAR)
            memcpy(rest + 3 * k, X + 3 * k, 3 * sizeof *X);
        else
            pf_mat3_vec(R, X + 3 * k, rest + 3 * k);
    }
    double L[3], *ke = fem->kes + 576 * (size_t)e;
    if (is_box(rest, L)) { /* a grid's cell given as a list: the grid's very arithmetic */
        box_stiffness(L[0], L[1], L[2], def->young_modulus, def->poisson_ratio, ke);
        return PF_OK;
    }
    int gp = pf_hexa_stiffness(rest, def->young_modulus, def->poisson_ratio, ke);
    if (gp >= 0)
        return pf_error(PF_EINVAL, "%s: hexahedron %u is inverted inside (Gauss point %d): its corners are valid but "
                        "the element folds", fn, e, gp);
    return PF_OK;
}

static int hexa_fem_init_list(pf_hexa_fem *fem, const pf_object *o, const pf_hexa_fem_def *def, const char *fn)
{
    fem->nelem = def->nhexahedra;
    PF_TRY(pf_check_size(fem->nelem, 576 * sizeof(double), fn, "def.nhexahedra"));
    fem->elem = pf_malloc((size_t)fem->nelem * 8 * sizeof *fem->elem);
    fem->rest = pf_malloc((size_t)fem->nelem * 24 * sizeof *fem->rest);
    fem->rot = pf_calloc((size_t)fem->nelem * 9, sizeof *fem->rot);
    fem->kes = pf_malloc((size_t)fem->nelem * 576 * sizeof *fem->kes);
    if (!fem->elem || !fem->rest || !fem->rot || !fem->kes)
        return pf_error(PF_ENOMEM, "out of memory for %u hexahedra", fem->nelem);
    for (uint32_t e = 0; e < fem->nelem; e++) PF_TRY(hexa_element_init(fem, e, o, def, fn));
    return PF_OK;
}

static int hexa_fem_init(pf_hexa_fem *fem, const pf_object *o, const pf_hexa_fem_def *def, const char *fn)
{
    memset(fem, 0, sizeof *fem);
    fem->method = def->method;
    return def->hexahedra ? hexa_fem_init_list(fem, o, def, fn) : hexa_fem_init_grid(fem, o, def);
}

/* f -= the elements' forces at x; r picks the elements and the rows of f their corners add into
 * (force_field.h: all of them, into the points' own rows, when r is the whole range) */
static void hexa_fem_force(pf_hexa_fem *fem, const double *x, double *f, const pf_elem_range *r)
{
    double xe[24], u[24], fl[24];
    for (uint32_t k = 0; k < r->n; k++) {
        uint32_t e = pf_range_elem(r, k), rb[8];
        const uint32_t *el = fem->elem + 8 * e, *row = pf_range_rows(r, k, el, 8, rb);
        const double *rest = fem->rest + 24 * e, *ke = fem->kes ? fem->kes + 576 * (size_t)e : fem->ke;
        for (int c = 0; c < 8; c++)
            for (int d = 0; d < 3; d++) xe[3 * c + d] = x[3 * el[c] + d] - x[3 * el[0] + d];
        if (fem->method != PF_FEM_LINEAR) {
            double *R = fem->rot + 9 * e;
            if (fem->method == PF_FEM_LARGE)
                element_frame(xe, R);
            else
                pf_hexa_frame_polar(xe, fem->method == PF_FEM_SVD, R);
            for (int c = 0; c < 8; c++) {
                const double *p = xe + 3 * c;
                for (int d = 0; d < 3; d++)
                    u[3 * c + d] = R[3 * d] * p[0] + R[3 * d + 1] * p[1] + R[3 * d + 2] * p[2] - rest[3 * c + d];
            }
            ke_mul(ke, u, fl);
            for (int c = 0; c < 8; c++) {
                const double *q = fl + 3 * c;
                double *fo = f + 3 * (size_t)row[c];
                for (int d = 0; d < 3; d++) fo[d] -= R[d] * q[0] + R[3 + d] * q[1] + R[6 + d] * q[2];
            }
        } else {
            for (int i = 0; i < 24; i++) u[i] = xe[i] - rest[i];
            ke_mul(ke, u, fl);
            for (int c = 0; c < 8; c++)
                for (int d = 0; d < 3; d++) f[3 * (size_t)row[c] + d] -= fl[3 * c + d];
        }
    }
}

static void hexa_fem_dforce(const pf_hexa_fem *fem, const double *dx, double *df, double kfact,
                            const pf_elem_range *r)
{
    double u[24], fl[24];
    for (uint32_t k = 0; k < r->n; k++) {
        uint32_t e = pf_range_elem(r, k), rb[8];
        const uint32_t *el = fem->elem + 8 * e, *row = pf_range_rows(r, k, el, 8, rb);
        const double *ke = fem->kes ? fem->kes + 576 * (size_t)e : fem->ke;
        if (fem->method != PF_FEM_LINEAR) {
            /* SOFA's approximation: K_e = -R^T Ke R, the rotation's own variation neglected */
            const double *R = fem->rot + 9 * e;
            for (int c = 0; c < 8; c++) {
                const double *p = dx + 3 * el[c];
                for (int d = 0; d < 3; d++) u[3 * c + d] = R[3 * d] * p[0] + R[3 * d + 1] * p[1] + R[3 * d + 2] * p[2];
            }
            ke_mul(ke, u, fl);
            for (int c = 0; c < 8; c++) {
                const double *q = fl + 3 * c;
                double *fo = df + 3 * (size_t)row[c];
                for (int d = 0; d < 3; d++) fo[d] -= kfact * (R[d] * q[0] + R[3 + d] * q[1] + R[6 + d] * q[2]);
            }
        } else {
            for (int c = 0; c < 8; c++)
                for (int d = 0; d < 3; d++) u[3 * c + d] = dx[3 * el[c] + d];
            ke_mul(ke, u, fl);
            for (int c = 0; c < 8; c++)
                for (int d = 0; d < 3; d++) df[3 * (size_t)row[c] + d] -= kfact * fl[3 * c + d];
        }
    }
}

/* K's blocks, element by element: -R^T Ke R with the rotations of the latest force evaluation (as dforce) */
static void hexa_fem_ff_assemble(const pf_force_field *ff, const pf_object *o, uint32_t base, pf_blocks *k)
{
    (void)o;
    const pf_hexa_fem *fem = ff->state;
    for (uint32_t e = 0; e < fem->nelem; e++)
        pf_blocks_add_element(k, base, fem->elem + 8 * (size_t)e, 8, 3,
                              fem->kes ? fem->kes + 576 * (size_t)e : fem->ke,
                              fem->method == PF_FEM_LINEAR ? NULL : fem->rot + 9 * (size_t)e);
}

/* ---- as a force field (force_field.h) ---- */

static void hexa_fem_ff_force(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                              double *f, int want_jac)
{
    (void)o, (void)v, (void)want_jac; /* the rotations are refreshed on every evaluation */
    pf_hexa_fem *fem = ff->state;
    hexa_fem_force(fem, x, f, &(pf_elem_range){.n = fem->nelem});
}

static void hexa_fem_ff_dforce(const pf_force_field *ff, const pf_object *o, const double *dx, double *df,
                               double kfact)
{
    (void)o;
    const pf_hexa_fem *fem = ff->state;
    hexa_fem_dforce(fem, dx, df, kfact, &(pf_elem_range){.n = fem->nelem});
}

/* ---- its elements, for blocks (decompose.c) ---- */

static uint32_t hexa_fem_ff_elements(const pf_force_field *ff, uint32_t *corners)
{
    *corners = 8;
    return ((const pf_hexa_fem *)ff->state)->nelem;
}

static void hexa_fem_ff_element(const pf_force_field *ff, uint32_t e, uint32_t *nodes)
{
    memcpy(nodes, ((const pf_hexa_fem *)ff->state)->elem + 8 * (size_t)e, 8 * sizeof *nodes);
}

static void hexa_fem_ff_force_range(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                                    double *out, int want_jac, const pf_elem_range *r)
{
    (void)o, (void)v, (void)want_jac;
    hexa_fem_force(ff->state, x, out, r);
}

static void hexa_fem_ff_dforce_range(const pf_force_field *ff, const pf_object *o, const double *dx, double *out,
                                     double kfact, const pf_elem_range *r)
{
    (void)o;
    hexa_fem_dforce(ff->state, dx, out, kfact, r);
}

/* the element rotations, which the force task writes and df reads */
static int hexa_fem_ff_register(pf_graph *g, pf_force_field *ff, uint32_t owner)
{
    pf_hexa_fem *fem = ff->state;
    return pf_graph_data(g, fem->rot, 9 * (size_t)fem->nelem * sizeof(double), owner, NULL, &ff->dcache);
}

/* the rotations of r's elements (ascending): the span from the first to the last */
static int hexa_fem_ff_register_range(pf_graph *g, const pf_force_field *ff, const pf_elem_range *r, uint32_t owner,
                                      pf_data_id *out)
{
    const pf_hexa_fem *fem = ff->state;
    return pf_register_element_span(g, fem->rot, 9, r, owner, out);
}

static double hexa_fem_ff_cost(const pf_force_field *ff)
{
    return 600.0 * ((const pf_hexa_fem *)ff->state)->nelem;
}

static double hexa_fem_ff_df_cost(const pf_force_field *ff)
{
    return 400.0 * ((const pf_hexa_fem *)ff->state)->nelem;
}

/* the elements desc[0 .. n) removed, SOFA's way (force_field.h); a grid's cells keep sharing its one stiffness */
static void hexa_fem_ff_remove_elements(pf_force_field *ff, const uint32_t *desc, uint32_t n)
{
    pf_hexa_fem *fem = ff->state;
    pf_remove_slots(fem->elem, 8 * sizeof *fem->elem, fem->nelem, desc, n);
    pf_remove_slots(fem->rest, 24 * sizeof *fem->rest, fem->nelem, desc, n);
    pf_remove_slots(fem->rot, 9 * sizeof *fem->rot, fem->nelem, desc, n);
    if (fem->kes) pf_remove_slots(fem->kes, 576 * sizeof *fem->kes, fem->nelem, desc, n);
    fem->nelem -= n;
}

static void hexa_fem_ff_destroy(void *state)
{
    hexa_fem_free(state);
    pf_free(state);
}

const pf_force_field_ops pf_hexa_fem_force_field = {
    .name = "hexahedral FEM",
    .force = hexa_fem_ff_force,
    .elements = hexa_fem_ff_elements,
    .element = hexa_fem_ff_element,
    .force_range = hexa_fem_ff_force_range,
    .dforce_range = hexa_fem_ff_dforce_range,
    .register_range = hexa_fem_ff_register_range,
    .dforce = hexa_fem_ff_dforce,
    .assemble = hexa_fem_ff_assemble,
    .register_data = hexa_fem_ff_register,
    .cost = hexa_fem_ff_cost,
    .df_cost = hexa_fem_ff_df_cost,
    .df_reads_x = 0,
    .destroy = hexa_fem_ff_destroy,
    .remove_elements = hexa_fem_ff_remove_elements,
};

/* ---- the public calls ---- */

pf_hexa_fem_def pf_hexa_fem_default_def(void)
{
    return (pf_hexa_fem_def){.young_modulus = 5000, .poisson_ratio = 0.45, .method = PF_FEM_LARGE};
}

/* a list of hexahedra: given together with its count, indices within the object's n points, 8 distinct ones each */
static int check_hexahedra(const pf_hexa_fem_def *def, uint32_t n, const char *fn)
{
    if (!def->hexahedra) {
        if (def->nhexahedra)
            return pf_error(PF_EINVAL, "%s: def.nhexahedra is %u but def.hexahedra is NULL", fn, def->nhexahedra);
        return PF_OK;
    }
    if (!def->nhexahedra) return pf_error(PF_EINVAL, "%s: def.hexahedra given with def.nhexahedra 0", fn);
    for (uint32_t e = 0; e < def->nhexahedra; e++) {
        const uint32_t *h = def->hexahedra + 8 * (size_t)e;
        for (int k = 0; k < 8; k++) {
            if (h[k] >= n)
                return pf_error(PF_EINVAL, "%s: def.hexahedra: hexahedron %u's point %u is out of range (the object "
                                "has %u points)", fn, e, h[k], n);
            for (int j = 0; j < k; j++)
                if (h[j] == h[k])
                    return pf_error(PF_EINVAL, "%s: def.hexahedra: hexahedron %u is degenerate: point %u is its "
                                    "corners %d and %d", fn, e, h[k], j, k);
        }
    }
    return PF_OK;
}

int pf_world_add_hexa_fem(pf_world *w, pf_object_id id, const pf_hexa_fem_def *def, pf_force_field_id *out)
{
    static const char fn[] = "pf_world_add_hexa_fem";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_positive(def->young_modulus, fn, "def.young_modulus"));
    if (!(def->poisson_ratio >= 0 && def->poisson_ratio < 0.5))
        return pf_error(PF_EINVAL, "%s: def.poisson_ratio must be in [0, 0.5), got %g", fn, def->poisson_ratio);
    PF_TRY(pf_check_enum((int)def->method, 4, fn, "def.method"));
    pf_object *o = w->obj.v[id.index];
    PF_TRY(pf_object_check_points(o, fn, "hexahedral FEM acts on points"));
    PF_TRY(check_hexahedra(def, o->n, fn));
    pf_hexa_fem *fem = pf_calloc(1, sizeof *fem);
    if (!fem) return pf_error(PF_ENOMEM, "out of memory");
    int rc = hexa_fem_init(fem, o, def, fn);
    if (rc || (rc = pf_object_add_force_field(w, o, PF_FORCE_HEXA_FEM, fem, out))) hexa_fem_ff_destroy(fem);
    return rc;
}
