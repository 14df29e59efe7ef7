/* Tetrahedral FEM (SOFA TetrahedronFEMForceField, TetrahedralCorotationalFEMForceField): linear tetrahedra,
 * isotropic linear elasticity, small-displacement ("linear") and corotational ("large", "polar", "svd")
 * formulations, forces f(x) and the matrix-free product df = K dx for implicit Euler. */
#include "world_guard.h"
#include "assembly.h"
#include "force_field.h"
#include "objects.h"
#include "rotation.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Per element, at rest: corners, stiffness K_e = V B^T D B (12x12, rows/cols: corner*3 + axis), the rest
 * edges from corner 0 and what each method needs to find the element's rotation. */
typedef struct tetra_elem {
    uint32_t v[4];
    double ke[144];
    double edge[9];  /* X_k - X_0, k = 1..3, one after the other */
    double dminv[9]; /* inverse of the rest edge matrix (edges as columns): F = Ds Dm^-1 (polar, svd) */
    double frame[9]; /* rest frame of "large" (rows: SOFA's edge axes) */
} tetra_elem;

typedef struct tetra_fem {
    pf_fem_method method;
    uint32_t nelem;
    tetra_elem *elem;
    double *rot; /* 9 per element: rotation R from the rest to the current shape, x ~ R X (row-major) */
} tetra_fem;

/* ---- 3x3 helpers (row-major) ---- */

static void mat3_mul(const double A[9], const double B[9], double out[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* out = A^T B */
static void mat3_tmul(const double A[9], const double B[9], double out[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

static double mat3_det(const double A[9])
{
    return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
           A[2] * (A[3] * A[7] - A[4] * A[6]);
}

static double norm3(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* v / |v|; returns 0 (v untouched) when |v| is 0 */
static int normalize3(double v[3])
{
    double l = norm3(v);
    if (!(l > 0)) return 0;
    v[0] /= l;
    v[1] /= l;
    v[2] /= l;
    return 1;
}

/* ---- the element at rest ---- */

/* K_e = V B^T D B of the element whose shape-function gradients are g[0..3] (engineering strains xx yy zz xy
 * yz zx, as fem_hexa.c) */
static void element_stiffness(double g[4][3], double vol, double E, double nu, double ke[144])
{
    double lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    double D[6][6] = {{0}};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            D[i][j] = lambda;
        D[i][i] = lambda + 2 * mu;
        D[i + 3][i + 3] = mu;
    }
    double B[6][12] = {{0}};
    for (int k = 0; k < 4; k++) {
        int c = 3 * k;
        B[0][c] = g[k][0];
        B[1][c + 1] = g[k][1];
        B[2][c + 2] = g[k][2];
        B[3][c] = g[k][1];
        B[3][c + 1] = g[k][0];
        B[4][c + 1] = g[k][2];
        B[4][c + 2] = g[k][1];
        B[5][c] = g[k][2];
        B[5][c + 2] = g[k][0];
    }
    double DB[6][12];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 12; j++) {
            double s = 0;
            for (int m = 0; m < 6; m++)
                s += D[i][m] * B[m][j];
            DB[i][j] = s;
        }
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            double s = 0;
            for (int m = 0; m < 6; m++)
                s += B[m][i] * DB[m][j];
            ke[12 * i + j] = s * vol;
        }
}

/* SOFA's "large" frame of a tetrahedron from its edges e1 = p1 - p0, e2 = p2 - p0: x along e1, z normal to
 * both, y = z x x (Gram-Schmidt). Rows of R are the axes. A degenerate pair of edges leaves the identity. */
static void large_frame(const double e1[3], const double e2[3], double R[9])
{
    double x[3] = {e1[0], e1[1], e1[2]}, z[3];
    pf_cross(e1, e2, z);
    if (!normalize3(x) || !normalize3(z)) {
        static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(R, I, sizeof I);
        return;
    }
    double y[3];
    pf_cross(z, x, y);
    memcpy(R, x, sizeof x);
    memcpy(R + 3, y, sizeof y);
    memcpy(R + 6, z, sizeof z);
}

/* the rest state of element e; PF_EINVAL for a flat one */
static int element_init(tetra_elem *el, const double *x, double E, double nu, uint32_t e, const char *fn)
{
    const double *p0 = x + 3 * (size_t)el->v[0];
    double Dm[9], lmax = 0;
    for (int k = 0; k < 3; k++) {
        const double *pk = x + 3 * (size_t)el->v[k + 1];
        for (int d = 0; d < 3; d++)
            el->edge[3 * k + d] = Dm[3 * d + k] = pk[d] - p0[d];
        double l = norm3(el->edge + 3 * k);
        if (l > lmax) lmax = l;
    }
    double det = mat3_det(Dm);
    /* flat relative to its size: six times the volume against the cube of its longest edge from corner 0 */
    if (!(fabs(det) > 1e-12 * lmax * lmax * lmax) || !isfinite(det))
        return pf_error(PF_EINVAL, "%s: def.tetrahedra[%u] (points %u %u %u %u) is degenerate: volume %g m^3",
                        fn, e, el->v[0], el->v[1], el->v[2], el->v[3], det / 6);
    pf_mat3_inverse(Dm, el->dminv);
    /* grad N_k (k = 1..3) are the rows of Dm^-1; grad N_0 = -(their sum) */
    double g[4][3];
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 3; d++)
            g[k + 1][d] = el->dminv[3 * k + d];
    for (int d = 0; d < 3; d++)
        g[0][d] = -(g[1][d] + g[2][d] + g[3][d]);
    element_stiffness(g, fabs(det) / 6, E, nu, el->ke);
    large_frame(el->edge, el->edge + 3, el->frame);
    return PF_OK;
}

/* ---- rotations of the current shape ---- */

/* The rotation of F for polar: the orthogonal factor of its polar decomposition; an element flat or inverted
 * (det F <= 0) has no rotation there and takes the SVD's proper one (rotation.c) */
static void rotation_polar(const double F[9], double R[9])
{
    if (mat3_det(F) > 0)
        pf_mat3_polar(F, R);
    else
        pf_mat3_svd_rotation(F, R);
}

/* R (rest -> current) of element `el` whose current edges from corner 0 are ds (3 per edge) */
static void element_rotation(const tetra_elem *el, pf_fem_method method, const double ds[9], double R[9])
{
    if (method == PF_FEM_LARGE) {
        double cur[9];
        large_frame(ds, ds + 3, cur);
        mat3_tmul(cur, el->frame, R); /* R = Rc^T R0: rest frame onto the current one */
        return;
    }
    double Dsm[9], F[9];
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 3; d++)
            Dsm[3 * d + k] = ds[3 * k + d];
    mat3_mul(Dsm, el->dminv, F);
    /* SOFA's svd: the polar rotation unless the element is inverted or nearly flat (det F < 1e-6) */
    if (method == PF_FEM_SVD && mat3_det(F) < 1e-6)
        pf_mat3_svd_rotation(F, R);
    else
        rotation_polar(F, R);
}

/* ---- force and df ---- */

/* out = ke u (ke symmetric: column sweeps) */
static inline void ke_mul(const double *restrict ke, const double *restrict u, double *restrict out)
{
    for (int i = 0; i < 12; i++)
        out[i] = 0;
    for (int j = 0; j < 12; j++) {
        const double uj = u[j], *col = ke + 12 * j;
        for (int i = 0; i < 12; i++)
            out[i] += col[i] * uj;
    }
}

/* f -= the elements' forces at x; r picks the elements and the rows of f they add into (force_field.h) */
static void tetra_fem_force(tetra_fem *fem, const double *x, double *f, const pf_elem_range *r)
{
    double ds[9], u[12], fl[12];
    for (uint32_t j = 0; j < r->n; j++) {
        uint32_t e = pf_range_elem(r, j), rb[4];
        const tetra_elem *el = fem->elem + e;
        const uint32_t *row = pf_range_rows(r, j, el->v, 4, rb);
        const double *p0 = x + 3 * (size_t)el->v[0];
        for (int k = 0; k < 3; k++)
            for (int d = 0; d < 3; d++)
                ds[3 * k + d] = x[3 * (size_t)el->v[k + 1] + d] - p0[d];
        u[0] = u[1] = u[2] = 0; /* displacements relative to corner 0: K's translations are null */
        if (fem->method == PF_FEM_LINEAR) {
            for (int i = 0; i < 9; i++)
                u[3 + i] = ds[i] - el->edge[i];
            ke_mul(el->ke, u, fl);
            for (int c = 0; c < 4; c++)
                for (int d = 0; d < 3; d++)
                    f[3 * (size_t)row[c] + d] -= fl[3 * c + d];
            continue;
        }
        double *R = fem->rot + 9 * (size_t)e;
        element_rotation(el, fem->method, ds, R);
        /* f = -R K (R^T x - X) */
        for (int k = 0; k < 3; k++) {
            const double *q = ds + 3 * k;
            for (int d = 0; d < 3; d++)
                u[3 + 3 * k + d] = R[d] * q[0] + R[3 + d] * q[1] + R[6 + d] * q[2] - el->edge[3 * k + d];
        }
        ke_mul(el->ke, u, fl);
        for (int c = 0; c < 4; c++) {
            const double *q = fl + 3 * c;
            double *fo = f + 3 * (size_t)row[c];
            for (int d = 0; d < 3; d++)
                fo[d] -= R[3 * d] * q[0] + R[3 * d + 1] * q[1] + R[3 * d + 2] * q[2];
        }
    }
}

static void tetra_fem_dforce(const tetra_fem *fem, const double *dx, double *df, double kfact, const pf_elem_range *r)
{
    double u[12], fl[12];
    for (uint32_t j = 0; j < r->n; j++) {
        uint32_t e = pf_range_elem(r, j), rb[4];
        const tetra_elem *el = fem->elem + e;
        const uint32_t *row = pf_range_rows(r, j, el->v, 4, rb);
        if (fem->method == PF_FEM_LINEAR) {
            for (int c = 0; c < 4; c++)
                for (int d = 0; d < 3; d++)
                    u[3 * c + d] = dx[3 * (size_t)el->v[c] + d];
            ke_mul(el->ke, u, fl);
            for (int c = 0; c < 4; c++)
                for (int d = 0; d < 3; d++)
                    df[3 * (size_t)row[c] + d] -= kfact * fl[3 * c + d];
            continue;
        }
        /* SOFA's approximation: K_e = -R Ke R^T, the rotation's own variation neglected */
        const double *R = fem->rot + 9 * (size_t)e;
        for (int c = 0; c < 4; c++) {
            const double *p = dx + 3 * (size_t)el->v[c];
            for (int d = 0; d < 3; d++)
                u[3 * c + d] = R[d] * p[0] + R[3 + d] * p[1] + R[6 + d] * p[2];
        }
        ke_mul(el->ke, u, fl);
        for (int c = 0; c < 4; c++) {
            const double *q = fl + 3 * c;
            double *fo = df + 3 * (size_t)row[c];
            for (int d = 0; d < 3; d++)
                fo[d] -= kfact * (R[3 * d] * q[0] + R[3 * d + 1] * q[1] + R[3 * d + 2] * q[2]);
        }
    }
}

/* K's blocks, element by element: -R Ke R^T with the rotations of the latest force evaluation (as dforce) */
static void tetra_fem_ff_assemble(const pf_force_field *ff, const pf_object *o, uint32_t base, pf_blocks *k)
{
    (void)o;
    const tetra_fem *fem = ff->state;
    for (uint32_t e = 0; e < fem->nelem; e++) {
        const tetra_elem *el = fem->elem + e;
        double Rt[9]; /* world to local: R^T */
        if (fem->method != PF_FEM_LINEAR) {
            const double *R = fem->rot + 9 * (size_t)e;
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) Rt[3 * r + c] = R[3 * c + r];
        }
        pf_blocks_add_element(k, base, el->v, 4, 3, el->ke, fem->method == PF_FEM_LINEAR ? NULL : Rt);
    }
}

/* ---- as a force field (force_field.h) ---- */

static void tetra_fem_ff_force(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                               double *f, int want_jac)
{
    (void)o, (void)v, (void)want_jac; /* the rotations are refreshed on every evaluation */
    tetra_fem *fem = ff->state;
    tetra_fem_force(fem, x, f, &(pf_elem_range){.n = fem->nelem});
}

static void tetra_fem_ff_dforce(const pf_force_field *ff, const pf_object *o, const double *dx, double *df,
                                double kfact)
{
    (void)o;
    const tetra_fem *fem = ff->state;
    tetra_fem_dforce(fem, dx, df, kfact, &(pf_elem_range){.n = fem->nelem});
}

/* ---- its elements, for blocks (decompose.c) ---- */

static uint32_t tetra_fem_ff_elements(const pf_force_field *ff, uint32_t *corners)
{
    *corners = 4;
    return ((const tetra_fem *)ff->state)->nelem;
}

static void tetra_fem_ff_element(const pf_force_field *ff, uint32_t e, uint32_t *nodes)
{
    memcpy(nodes, ((const tetra_fem *)ff->state)->elem[e].v, 4 * sizeof *nodes);
}

static void tetra_fem_ff_force_range(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                                     double *out, int want_jac, const pf_elem_range *r)
{
    (void)o, (void)v, (void)want_jac;
    tetra_fem_force(ff->state, x, out, r);
}

static void tetra_fem_ff_dforce_range(const pf_force_field *ff, const pf_object *o, const double *dx, double *out,
                                      double kfact, const pf_elem_range *r)
{
    (void)o;
    tetra_fem_dforce(ff->state, dx, out, kfact, r);
}

static int tetra_fem_ff_register_range(pf_graph *g, const pf_force_field *ff, const pf_elem_range *r,
                                       uint32_t owner, pf_data_id *out)
{
    return pf_register_element_span(g, ((const tetra_fem *)ff->state)->rot, 9, r, owner, out);
}

/* the element rotations, which the force task writes and df reads */
static int tetra_fem_ff_register(pf_graph *g, pf_force_field *ff, uint32_t owner)
{
    tetra_fem *fem = ff->state;
    return pf_graph_data(g, fem->rot, 9 * (size_t)fem->nelem * sizeof(double), owner, NULL, &ff->dcache);
}

/* a 12x12 product per element, plus the rotation: a frame (large) or an iteration on F (polar, svd) */
static double tetra_fem_ff_cost(const pf_force_field *ff)
{
    const tetra_fem *fem = ff->state;
    double per = fem->method == PF_FEM_LINEAR ? 150.0 : fem->method == PF_FEM_LARGE ? 220.0 : 400.0;
    return per * fem->nelem;
}

static double tetra_fem_ff_df_cost(const pf_force_field *ff)
{
    return 150.0 * ((const tetra_fem *)ff->state)->nelem;
}

/* the elements desc[0 .. n) removed, SOFA's way (force_field.h) */
static void tetra_fem_ff_remove_elements(pf_force_field *ff, const uint32_t *desc, uint32_t n)
{
    tetra_fem *fem = ff->state;
    pf_remove_slots(fem->elem, sizeof *fem->elem, fem->nelem, desc, n);
    pf_remove_slots(fem->rot, 9 * sizeof *fem->rot, fem->nelem, desc, n);
    fem->nelem -= n;
}

static void tetra_fem_ff_destroy(void *state)
{
    tetra_fem *fem = state;
    if (!fem) return;
    pf_free(fem->elem);
    pf_free(fem->rot);
    pf_free(fem);
}

const pf_force_field_ops pf_tetra_fem_force_field = {
    .name = "tetrahedral FEM",
    .elements = tetra_fem_ff_elements,
    .element = tetra_fem_ff_element,
    .force_range = tetra_fem_ff_force_range,
    .dforce_range = tetra_fem_ff_dforce_range,
    .register_range = tetra_fem_ff_register_range,
    .force = tetra_fem_ff_force,
    .dforce = tetra_fem_ff_dforce,
    .assemble = tetra_fem_ff_assemble,
    .register_data = tetra_fem_ff_register,
    .cost = tetra_fem_ff_cost,
    .df_cost = tetra_fem_ff_df_cost,
    .df_reads_x = 0,
    .destroy = tetra_fem_ff_destroy,
    .remove_elements = tetra_fem_ff_remove_elements,
};

/* ---- the public calls ---- */

pf_tetra_fem_def pf_tetra_fem_default_def(void)
{
    return (pf_tetra_fem_def){.young_modulus = 5000, .poisson_ratio = 0.45, .method = PF_FEM_LARGE};
}

static int check_tetra_fem(const pf_world *w, uint32_t object, const pf_tetra_fem_def *def, const char *fn)
{
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, object, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_positive(def->young_modulus, fn, "def.young_modulus"));
    if (!(def->poisson_ratio >= 0 && def->poisson_ratio < 0.5))
        return pf_error(PF_EINVAL, "%s: def.poisson_ratio must be in [0, 0.5), got %g", fn,
                        def->poisson_ratio);
    PF_TRY(pf_check_enum((int)def->method, 4, fn, "def.method"));
    const pf_object *o = w->obj.v[object];
    PF_TRY(pf_object_check_points(o, fn, "tetrahedral FEM acts on points"));
    if (def->ntetrahedra == 0)
        return pf_error(PF_EINVAL, "%s: def.ntetrahedra is 0: no tetrahedra given", fn);
    if (!def->tetrahedra)
        return pf_error(PF_EINVAL, "%s: def.tetrahedra is NULL: def.ntetrahedra = %u announced but no list",
                        fn, def->ntetrahedra);
    PF_TRY(pf_check_size(def->ntetrahedra, sizeof(tetra_elem), fn, "def.ntetrahedra"));
    for (uint32_t e = 0; e < def->ntetrahedra; e++)
        for (int c = 0; c < 4; c++)
            if (def->tetrahedra[4 * (size_t)e + c] >= o->n)
                return pf_error(PF_EINVAL,
                                "%s: def.tetrahedra[%u] corner %d = %u: point out of range (object %u has "
                                "%u points)",
                                fn, e, c, def->tetrahedra[4 * (size_t)e + c], object, o->n);
    return PF_OK;
}

int pf_world_add_tetra_fem(pf_world *w, pf_object_id id, const pf_tetra_fem_def *def, pf_force_field_id *out)
{
    static const char fn[] = "pf_world_add_tetra_fem";
    PF_TRY(check_tetra_fem(w, id.index, def, fn));
    pf_object *o = w->obj.v[id.index];
    tetra_fem *fem = pf_calloc(1, sizeof *fem);
    if (fem) {
        fem->elem = pf_malloc((size_t)def->ntetrahedra * sizeof *fem->elem);
        fem->rot = pf_calloc((size_t)def->ntetrahedra * 9, sizeof *fem->rot);
    }
    if (!fem || !fem->elem || !fem->rot) {
        tetra_fem_ff_destroy(fem);
        return pf_error(PF_ENOMEM, "out of memory for %u tetrahedra", def->ntetrahedra);
    }
    fem->method = def->method;
    fem->nelem = def->ntetrahedra;
    int rc = PF_OK;
    for (uint32_t e = 0; e < fem->nelem && !rc; e++) {
        tetra_elem *el = fem->elem + e;
        memcpy(el->v, def->tetrahedra + 4 * (size_t)e, sizeof el->v);
        rc = element_init(el, o->x, def->young_modulus, def->poisson_ratio, e, fn);
        double *R = fem->rot + 9 * (size_t)e;
        R[0] = R[4] = R[8] = 1.0;
    }
    if (rc || (rc = pf_object_add_force_field(w, o, PF_FORCE_TETRA_FEM, fem, out))) tetra_fem_ff_destroy(fem);
    return rc;
}
