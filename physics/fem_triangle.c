/* Triangular membrane FEM (SOFA TriangularFEMForceField, TriangleFEMForceField): linear triangles in plane
 * stress, isotropic, each element in its own plane (x along the first edge, z its normal). "large": the frame
 * follows the current triangle (corotational); "linear": the rest frame, fixed. Element stiffness precomputed
 * at rest. */
#include "world_guard.h"
#include "assembly.h"
#include "force_field.h"
#include "objects.h"
#include "rotation.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

typedef struct pf_triangle_fem {
    pf_fem_method method;
    uint32_t nelem;
    uint32_t *tri; /* 3 point indices per element */
    double *ke;    /* 36 per element: in-plane stiffness t A B^T D B (positive), rows/cols: node*2 + axis */
    double *rest;  /* 3 per element: rest in-plane coordinates of b (x) and c (x, y); a at the origin */
    double *rot;   /* 9 per element: the element frame (rows = x, y, z axes), current for "large" */
} pf_triangle_fem;

/* SOFA's frame of a triangle (TriangleFEMUtils::computeRotationLarge): x along ab, z normal to ab and ac,
 * y = z x x. Returns |ab x ac| (twice the area); 0 (R untouched) for a triangle with no plane. */
static double triangle_frame(const double *a, const double *b, const double *c, double R[9])
{
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double lab = sqrt(ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2]);
    double n[3];
    pf_cross(ab, ac, n);
    double ln = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(lab > 0 && ln > 0)) return 0;
    for (int d = 0; d < 3; d++) {
        R[d] = ab[d] / lab;
        R[6 + d] = n[d] / ln;
    }
    pf_cross(R + 6, R, R + 3);
    return ln;
}

/* In-plane stiffness of a triangle with local corners (0,0), (bx,0), (cx,cy): t A B^T D B, D plane stress. */
static void triangle_stiffness(double bx, double cx, double cy, double E, double nu, double t, double ke[36])
{
    double area = 0.5 * bx * cy, inv = 1.0 / (2 * area);
    /* shape-function gradients: dN/dx = (y_j - y_k) / 2A, dN/dy = (x_k - x_j) / 2A over (i, j, k) cyclic */
    double gx[3] = {(0 - cy) * inv, (cy - 0) * inv, (0 - 0) * inv};
    double gy[3] = {(cx - bx) * inv, (0 - cx) * inv, (bx - 0) * inv};
    double B[3][6] = {{0}};
    for (int i = 0; i < 3; i++) {
        B[0][2 * i] = gx[i];
        B[1][2 * i + 1] = gy[i];
        B[2][2 * i] = gy[i];
        B[2][2 * i + 1] = gx[i];
    }
    double s = E / (1 - nu * nu);
    double D[3][3] = {{s, s * nu, 0}, {s * nu, s, 0}, {0, 0, s * (1 - nu) / 2}};
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double sum = 0;
            for (int m = 0; m < 3; m++)
                for (int k = 0; k < 3; k++)
                    sum += B[m][i] * D[m][k] * B[k][j];
            ke[6 * i + j] = sum * area * t;
        }
}

static void triangle_fem_free(pf_triangle_fem *fem)
{
    pf_free(fem->tri);
    pf_free(fem->ke);
    pf_free(fem->rest);
    pf_free(fem->rot);
    fem->tri = NULL;
    fem->ke = fem->rest = fem->rot = NULL;
}

static int triangle_fem_init(pf_triangle_fem *fem, const pf_object *o, const pf_triangle_fem_def *def,
                             const char *fn)
{
    memset(fem, 0, sizeof *fem);
    fem->method = def->method;
    fem->nelem = def->ntriangles;
    fem->tri = pf_malloc((size_t)fem->nelem * 3 * sizeof *fem->tri);
    fem->ke = pf_malloc((size_t)fem->nelem * 36 * sizeof *fem->ke);
    fem->rest = pf_malloc((size_t)fem->nelem * 3 * sizeof *fem->rest);
    fem->rot = pf_calloc((size_t)fem->nelem * 9, sizeof *fem->rot);
    if (!fem->tri || !fem->ke || !fem->rest || !fem->rot) {
        triangle_fem_free(fem);
        return pf_error(PF_ENOMEM, "out of memory for %u triangles", fem->nelem);
    }
    memcpy(fem->tri, def->triangles, (size_t)fem->nelem * 3 * sizeof *fem->tri);
    for (uint32_t e = 0; e < fem->nelem; e++) {
        const uint32_t *t = fem->tri + 3 * e;
        const double *a = o->x + 3 * (size_t)t[0], *b = o->x + 3 * (size_t)t[1], *c = o->x + 3 * (size_t)t[2];
        double *R = fem->rot + 9 * e, ab[3], ac[3];
        double l2 = 0;
        for (int d = 0; d < 3; d++) {
            ab[d] = b[d] - a[d];
            ac[d] = c[d] - a[d];
            l2 += ab[d] * ab[d] + ac[d] * ac[d];
        }
        /* zero area (relative to the edges, so that the scale of the mesh does not matter): no plane, no B */
        double twice_area = triangle_frame(a, b, c, R);
        if (!(twice_area > 1e-12 * l2)) {
            int rc = pf_error(PF_EINVAL,
                              "%s: triangle %u (points %u %u %u) has zero area: degenerate triangles have "
                              "no plane stress",
                              fn, e, t[0], t[1], t[2]);
            triangle_fem_free(fem);
            return rc;
        }
        double *r = fem->rest + 3 * e;
        r[0] = R[0] * ab[0] + R[1] * ab[1] + R[2] * ab[2];
        r[1] = R[0] * ac[0] + R[1] * ac[1] + R[2] * ac[2];
        r[2] = R[3] * ac[0] + R[4] * ac[1] + R[5] * ac[2];
        for (int k = 0; k < 3; k++) r[k] *= def->rest_scale; /* SOFA's restScale: the rest edges, scaled */
        triangle_stiffness(r[0], r[1], r[2], def->young_modulus, def->poisson_ratio, def->thickness,
                           fem->ke + 36 * e);
    }
    return PF_OK;
}

/* f -= R^T (ke u) for one element, u its 6 in-plane displacements; scale: 1 for forces, kfact for df */
static void element_apply(const double *ke, const double *R, const uint32_t *row, const double u[6],
                          double scale, double *f)
{
    double fl[6];
    for (int i = 0; i < 6; i++) {
        double s = 0;
        for (int j = 0; j < 6; j++)
            s += ke[6 * i + j] * u[j];
        fl[i] = s;
    }
    for (int c = 0; c < 3; c++) {
        double *fo = f + 3 * (size_t)row[c];
        for (int d = 0; d < 3; d++)
            fo[d] -= scale * (R[d] * fl[2 * c] + R[3 + d] * fl[2 * c + 1]);
    }
}

/* f -= the elements' forces at x; r picks the elements and the rows of f they add into (force_field.h) */
static void triangle_fem_force(pf_triangle_fem *fem, const double *x, double *f, const pf_elem_range *rg)
{
    for (uint32_t k = 0; k < rg->n; k++) {
        uint32_t e = pf_range_elem(rg, k), rb[3];
        const uint32_t *t = fem->tri + 3 * e, *row = pf_range_rows(rg, k, t, 3, rb);
        const double *a = x + 3 * (size_t)t[0], *b = x + 3 * (size_t)t[1], *c = x + 3 * (size_t)t[2];
        double *R = fem->rot + 9 * e;
        /* a triangle crushed to a line or a point keeps its last frame */
        if (fem->method == PF_FEM_LARGE) triangle_frame(a, b, c, R);
        double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]},
               ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        const double *r = fem->rest + 3 * e;
        double u[6] = {0,
                       0,
                       R[0] * ab[0] + R[1] * ab[1] + R[2] * ab[2] - r[0],
                       R[3] * ab[0] + R[4] * ab[1] + R[5] * ab[2],
                       R[0] * ac[0] + R[1] * ac[1] + R[2] * ac[2] - r[1],
                       R[3] * ac[0] + R[4] * ac[1] + R[5] * ac[2] - r[2]};
        element_apply(fem->ke + 36 * e, R, row, u, 1.0, f);
    }
}

static void triangle_fem_dforce(const pf_triangle_fem *fem, const double *dx, double *df, double kfact,
                                const pf_elem_range *r)
{
    /* SOFA's approximation for "large": K_e = -R^T Ke R, the rotation's own variation neglected */
    for (uint32_t k = 0; k < r->n; k++) {
        uint32_t e = pf_range_elem(r, k), rb[3];
        const uint32_t *t = fem->tri + 3 * e, *row = pf_range_rows(r, k, t, 3, rb);
        const double *R = fem->rot + 9 * e;
        double u[6];
        for (int c = 0; c < 3; c++) {
            const double *p = dx + 3 * (size_t)t[c];
            u[2 * c] = R[0] * p[0] + R[1] * p[1] + R[2] * p[2];
            u[2 * c + 1] = R[3] * p[0] + R[4] * p[1] + R[5] * p[2];
        }
        element_apply(fem->ke + 36 * e, R, row, u, kfact, df);
    }
}

/* K's blocks, element by element: -P^T Ke P, P the frame's first two rows (world to in-plane), as dforce */
static void triangle_fem_ff_assemble(const pf_force_field *ff, const pf_object *o, uint32_t base, pf_blocks *k)
{
    (void)o;
    const pf_triangle_fem *fem = ff->state;
    for (uint32_t e = 0; e < fem->nelem; e++)
        pf_blocks_add_element(k, base, fem->tri + 3 * (size_t)e, 3, 2, fem->ke + 36 * (size_t)e,
                              fem->rot + 9 * (size_t)e);
}

/* ---- as a force field (force_field.h) ---- */

static void triangle_fem_ff_force(const pf_force_field *ff, const pf_object *o, const double *x,
                                  const double *v, double *f, int want_jac)
{
    (void)o, (void)v, (void)want_jac; /* the rotations are refreshed on every evaluation */
    pf_triangle_fem *fem = ff->state;
    triangle_fem_force(fem, x, f, &(pf_elem_range){.n = fem->nelem});
}

static void triangle_fem_ff_dforce(const pf_force_field *ff, const pf_object *o, const double *dx, double *df,
                                   double kfact)
{
    (void)o;
    const pf_triangle_fem *fem = ff->state;
    triangle_fem_dforce(fem, dx, df, kfact, &(pf_elem_range){.n = fem->nelem});
}

/* ---- its elements, for blocks (decompose.c) ---- */

static uint32_t triangle_fem_ff_elements(const pf_force_field *ff, uint32_t *corners)
{
    *corners = 3;
    return ((const pf_triangle_fem *)ff->state)->nelem;
}

static void triangle_fem_ff_element(const pf_force_field *ff, uint32_t e, uint32_t *nodes)
{
    memcpy(nodes, ((const pf_triangle_fem *)ff->state)->tri + 3 * (size_t)e, 3 * sizeof *nodes);
}

static void triangle_fem_ff_force_range(const pf_force_field *ff, const pf_object *o, const double *x,
                                        const double *v, double *out, int want_jac, const pf_elem_range *r)
{
    (void)o, (void)v, (void)want_jac;
    triangle_fem_force(ff->state, x, out, r);
}

static void triangle_fem_ff_dforce_range(const pf_force_field *ff, const pf_object *o, const double *dx,
                                         double *out, double kfact, const pf_elem_range *r)
{
    (void)o;
    triangle_fem_dforce(ff->state, dx, out, kfact, r);
}

static int triangle_fem_ff_register_range(pf_graph *g, const pf_force_field *ff, const pf_elem_range *r,
                                          uint32_t owner, pf_data_id *out)
{
    return pf_register_element_span(g, ((const pf_triangle_fem *)ff->state)->rot, 9, r, owner, out);
}

/* the element frames, which the force task writes and df reads */
static int triangle_fem_ff_register(pf_graph *g, pf_force_field *ff, uint32_t owner)
{
    pf_triangle_fem *fem = ff->state;
    return pf_graph_data(g, fem->rot, 9 * (size_t)fem->nelem * sizeof(double), owner, NULL, &ff->dcache);
}

static double triangle_fem_ff_cost(const pf_force_field *ff)
{
    return 120.0 * ((const pf_triangle_fem *)ff->state)->nelem;
}

static double triangle_fem_ff_df_cost(const pf_force_field *ff)
{
    return 80.0 * ((const pf_triangle_fem *)ff->state)->nelem;
}

/* the elements desc[0 .. n) removed, SOFA's way (force_field.h) */
static void triangle_fem_ff_remove_elements(pf_force_field *ff, const uint32_t *desc, uint32_t n)
{
    pf_triangle_fem *fem = ff->state;
    pf_remove_slots(fem->tri, 3 * sizeof *fem->tri, fem->nelem, desc, n);
    pf_remove_slots(fem->ke, 36 * sizeof *fem->ke, fem->nelem, desc, n);
    pf_remove_slots(fem->rest, 3 * sizeof *fem->rest, fem->nelem, desc, n);
    pf_remove_slots(fem->rot, 9 * sizeof *fem->rot, fem->nelem, desc, n);
    fem->nelem -= n;
}

static void triangle_fem_ff_destroy(void *state)
{
    triangle_fem_free(state);
    pf_free(state);
}

const pf_force_field_ops pf_triangle_fem_force_field = {
    .name = "triangular FEM",
    .force = triangle_fem_ff_force,
    .elements = triangle_fem_ff_elements,
    .element = triangle_fem_ff_element,
    .force_range = triangle_fem_ff_force_range,
    .dforce_range = triangle_fem_ff_dforce_range,
    .register_range = triangle_fem_ff_register_range,
    .dforce = triangle_fem_ff_dforce,
    .assemble = triangle_fem_ff_assemble,
    .register_data = triangle_fem_ff_register,
    .cost = triangle_fem_ff_cost,
    .df_cost = triangle_fem_ff_df_cost,
    .df_reads_x = 0,
    .destroy = triangle_fem_ff_destroy,
    .remove_elements = triangle_fem_ff_remove_elements,
};

/* ---- the public calls ---- */

pf_triangle_fem_def pf_triangle_fem_default_def(void)
{
    return (pf_triangle_fem_def){
        .young_modulus = 1000, .poisson_ratio = 0.3, .thickness = 1, .method = PF_FEM_LARGE, .rest_scale = 1};
}

int pf_world_add_triangle_fem(pf_world *w, pf_object_id id, const pf_triangle_fem_def *def,
                              pf_force_field_id *out)
{
    static const char fn[] = "pf_world_add_triangle_fem";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, id.index, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_positive(def->young_modulus, fn, "def.young_modulus"));
    if (!(def->poisson_ratio >= 0 && def->poisson_ratio < 0.5))
        return pf_error(PF_EINVAL, "%s: def.poisson_ratio must be in [0, 0.5), got %g", fn,
                        def->poisson_ratio);
    PF_TRY(pf_check_positive(def->thickness, fn, "def.thickness"));
    PF_TRY(pf_check_positive(def->rest_scale, fn, "def.rest_scale"));
    PF_TRY(pf_check_enum((int)def->method, 4, fn, "def.method"));
    if (def->method > PF_FEM_LARGE)
        return pf_error(PF_EINVAL, "%s: def.method %d: triangles take PF_FEM_LINEAR or PF_FEM_LARGE", fn,
                        (int)def->method);
    if (def->ntriangles == 0) return pf_error(PF_EINVAL, "%s: def.ntriangles is 0: no triangles", fn);
    PF_TRY(pf_check_given(def->triangles, fn, "def.triangles"));
    PF_TRY(pf_check_size(def->ntriangles, 3 * 36 * sizeof(double), fn, "def.ntriangles"));
    pf_object *o = w->obj.v[id.index];
    PF_TRY(pf_object_check_points(o, fn, "triangular FEM acts on points"));
    for (uint32_t k = 0; k < 3 * def->ntriangles; k++)
        if (def->triangles[k] >= o->n)
            return pf_error(PF_EINVAL,
                            "%s: def.triangles[%u] = %u: point out of range (object %u has %u points)", fn, k,
                            def->triangles[k], id.index, o->n);
    pf_triangle_fem *fem = pf_calloc(1, sizeof *fem);
    if (!fem) return pf_error(PF_ENOMEM, "out of memory");
    int rc = triangle_fem_init(fem, o, def, fn);
    if (rc || (rc = pf_object_add_force_field(w, o, PF_FORCE_TRIANGLE_FEM, fem, out)))
        triangle_fem_ff_destroy(fem);
    return rc;
}
