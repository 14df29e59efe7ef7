/* Hyperelastic tetrahedra (SOFA TetrahedronHyperelasticityFEMForceField): linear tetrahedra, deformation
 * gradient F = sum_a x_a (grad N_a)^T, second Piola-Kirchhoff stress S = 2 dW/dC of a strain energy
 * (hyperelastic_materials.c), nodal forces f_a = -V F S grad N_a as SOFA's addForce; the tangent stiffness is
 * the exact derivative of that force, kept per element (12x12) at each force evaluation that wants it, for
 * the matrix-free df = K dx and the direct solver's blocks. */
#include "world_guard.h"
#include "assembly.h"
#include "force_field.h"
#include "hyperelastic_materials.h"
#include "objects.h"
#include "rotation.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Per element, at rest: corners, shape-function gradients (SOFA's m_shapeVector) and volume. */
typedef struct hyper_elem {
    uint32_t v[4];
    double g[4][3];
    double vol;
} hyper_elem;

typedef struct hyper_fem {
    pf_hyperelastic_material material;
    double param[4];
    uint32_t nelem;
    hyper_elem *elem;
    double *ke; /* 144 per element: the stiffness -df/dx as of the latest force evaluation with want_jac */
} hyper_fem;

/* ---- the continuum: stress and its variation from W(I1, I2, J) ---- */

/* The state of one element that S and dS read. */
typedef struct strain_state {
    double F[9], C[9], Cinv[9]; /* row-major */
    double I1, J;
    pf_hyper_derivs d;
    pf_ogden_state og; /* Ogden only */
} strain_state;

static void strain_state_at(const hyper_fem *fem, const double F[9], strain_state *s)
{
    memcpy(s->F, F, sizeof s->F);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            s->C[3 * i + j] = F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j];
    s->J = F[0] * (F[4] * F[8] - F[5] * F[7]) - F[1] * (F[3] * F[8] - F[5] * F[6]) +
           F[2] * (F[3] * F[7] - F[4] * F[6]);
    pf_mat3_inverse(s->C, s->Cinv);
    s->I1 = s->C[0] + s->C[4] + s->C[8];
    double trC2 = 0;
    for (int k = 0; k < 9; k++)
        trC2 += s->C[k] * s->C[k]; /* C symmetric: tr C^2 = C:C */
    pf_hyper_material_derivs(fem->material, fem->param, s->I1, 0.5 * (s->I1 * s->I1 - trC2), s->J, &s->d);
    if (fem->material == PF_HYPER_OGDEN) pf_ogden_state_at(fem->param, F, s->J, &s->og);
}

/* S = 2 dW/dC = 2 W1 I + 2 W2 (I1 I - C) + J WJ C^-1 (dI1/dC = I, dI2/dC = I1 I - C, dJ/dC = J/2 C^-1) */
static void stress(const hyper_fem *fem, const strain_state *s, double S[9])
{
    const pf_hyper_derivs *d = &s->d;
    for (int k = 0; k < 9; k++) {
        double id = k % 4 == 0;
        S[k] = 2 * d->w1 * id + 2 * d->w2 * (s->I1 * id - s->C[k]) + s->J * d->wj * s->Cinv[k];
    }
    if (fem->material == PF_HYPER_OGDEN) pf_ogden_stress(fem->param, &s->og, s->Cinv, S);
}

/* dS for a variation dC of C: the derivative of stress() (dC^-1 = -C^-1 dC C^-1) */
static void stress_variation(const hyper_fem *fem, const strain_state *s, const double dC[9], double dS[9])
{
    const pf_hyper_derivs *d = &s->d;
    double dI1 = dC[0] + dC[4] + dC[8], CdC = 0, CinvdC = 0;
    for (int k = 0; k < 9; k++) {
        CdC += s->C[k] * dC[k];
        CinvdC += s->Cinv[k] * dC[k];
    }
    double dI2 = s->I1 * dI1 - CdC, dJ = 0.5 * s->J * CinvdC;
    double dw1 = d->w11 * dI1 + d->w12 * dI2 + d->w1j * dJ;
    double dw2 = d->w12 * dI1 + d->w22 * dI2 + d->w2j * dJ;
    double dwj = d->w1j * dI1 + d->w2j * dI2 + d->wjj * dJ;
    double T[9], CdCC[9]; /* C^-1 dC C^-1 */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            T[3 * i + j] =
                dC[3 * i] * s->Cinv[j] + dC[3 * i + 1] * s->Cinv[3 + j] + dC[3 * i + 2] * s->Cinv[6 + j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            CdCC[3 * i + j] =
                s->Cinv[3 * i] * T[j] + s->Cinv[3 * i + 1] * T[3 + j] + s->Cinv[3 * i + 2] * T[6 + j];
    double djwj = dJ * d->wj + s->J * dwj;
    for (int k = 0; k < 9; k++) {
        double id = k % 4 == 0;
        dS[k] = 2 * dw1 * id + 2 * dw2 * (s->I1 * id - s->C[k]) + 2 * d->w2 * (dI1 * id - dC[k]) +
                djwj * s->Cinv[k] - s->J * d->wj * CdCC[k];
    }
    if (fem->material == PF_HYPER_OGDEN) pf_ogden_stress_variation(fem->param, &s->og, s->Cinv, dC, dS);
}

/* out = A B (3x3, row-major) */
static void mul3(const double A[9], const double B[9], double out[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* ---- the element ---- */

/* F = sum_{k=1..3} (x_k - x_0) grad N_k^T: grad N_0 = -(the others' sum) takes x_0 out */
static void deformation_gradient(const hyper_elem *el, const double *x, double F[9])
{
    const double *p0 = x + 3 * (size_t)el->v[0];
    memset(F, 0, 9 * sizeof *F);
    for (int k = 1; k < 4; k++) {
        const double *pk = x + 3 * (size_t)el->v[k];
        for (int i = 0; i < 3; i++) {
            double u = pk[i] - p0[i];
            for (int j = 0; j < 3; j++)
                F[3 * i + j] += u * el->g[k][j];
        }
    }
}

/* ke = V dP/dx, column (3c + a) from dF = e_a grad N_c^T: dC = dF^T F + F^T dF, dP = dF S + F dS, and the
 * force's variation -V dP grad N_b on corner b; made exactly symmetric (it is, up to rounding: the Hessian of
 * the energy) for the direct solver */
static void element_stiffness(const hyper_fem *fem, const hyper_elem *el, const strain_state *s,
                              const double S[9], double ke[144])
{
    const double *F = s->F;
    for (int c = 0; c < 4; c++) {
        const double *gc = el->g[c];
        double gS[3]; /* grad N_c^T S: row a of dF S */
        for (int j = 0; j < 3; j++)
            gS[j] = gc[0] * S[j] + gc[1] * S[3 + j] + gc[2] * S[6 + j];
        for (int a = 0; a < 3; a++) {
            double dC[9], dS[9], FdS[9], dP[9];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    dC[3 * i + j] = gc[i] * F[3 * a + j] + F[3 * a + i] * gc[j];
            stress_variation(fem, s, dC, dS);
            mul3(F, dS, FdS);
            memcpy(dP, FdS, sizeof dP);
            for (int j = 0; j < 3; j++)
                dP[3 * a + j] += gS[j];
            int col = 3 * c + a;
            for (int b = 0; b < 4; b++) {
                const double *gb = el->g[b];
                for (int i = 0; i < 3; i++)
                    ke[12 * (3 * b + i) + col] =
                        el->vol * (dP[3 * i] * gb[0] + dP[3 * i + 1] * gb[1] + dP[3 * i + 2] * gb[2]);
            }
        }
    }
    for (int i = 0; i < 12; i++)
        for (int j = i + 1; j < 12; j++) {
            double m = 0.5 * (ke[12 * i + j] + ke[12 * j + i]);
            ke[12 * i + j] = ke[12 * j + i] = m;
        }
}

/* f -= the elements' forces at x (and, want_jac, their stiffness into fem->ke); r picks the elements and the
 * rows of f they add into (force_field.h) */
static void hyper_force(hyper_fem *fem, const double *x, double *f, int want_jac, const pf_elem_range *r)
{
    for (uint32_t j = 0; j < r->n; j++) {
        uint32_t e = pf_range_elem(r, j), rb[4];
        const hyper_elem *el = fem->elem + e;
        const uint32_t *row = pf_range_rows(r, j, el->v, 4, rb);
        double F[9], S[9], P[9];
        strain_state s;
        deformation_gradient(el, x, F);
        strain_state_at(fem, F, &s);
        stress(fem, &s, S);
        mul3(F, S, P);
        for (int a = 0; a < 4; a++) {
            const double *g = el->g[a];
            double *fo = f + 3 * (size_t)row[a];
            for (int i = 0; i < 3; i++)
                fo[i] -= el->vol * (P[3 * i] * g[0] + P[3 * i + 1] * g[1] + P[3 * i + 2] * g[2]);
        }
        if (want_jac) element_stiffness(fem, el, &s, S, fem->ke + 144 * (size_t)e);
    }
}

/* df -= kfact ke dx over r's elements */
static void hyper_dforce(const hyper_fem *fem, const double *dx, double *df, double kfact,
                         const pf_elem_range *r)
{
    for (uint32_t j = 0; j < r->n; j++) {
        uint32_t e = pf_range_elem(r, j), rb[4];
        const hyper_elem *el = fem->elem + e;
        const uint32_t *row = pf_range_rows(r, j, el->v, 4, rb);
        const double *ke = fem->ke + 144 * (size_t)e;
        double u[12];
        for (int c = 0; c < 4; c++)
            for (int d = 0; d < 3; d++)
                u[3 * c + d] = dx[3 * (size_t)el->v[c] + d];
        for (int i = 0; i < 12; i++) {
            double s = 0;
            for (int k = 0; k < 12; k++)
                s += ke[12 * i + k] * u[k];
            df[3 * (size_t)row[i / 3] + i % 3] -= kfact * s;
        }
    }
}

/* ---- as a force field (force_field.h) ---- */

static void hyper_ff_force(const pf_force_field *ff, const pf_object *o, const double *x, const double *v,
                           double *f, int want_jac)
{
    (void)o, (void)v;
    hyper_fem *fem = ff->state;
    hyper_force(fem, x, f, want_jac, &(pf_elem_range){.n = fem->nelem});
}

static void hyper_ff_dforce(const pf_force_field *ff, const pf_object *o, const double *dx, double *df,
                            double kfact)
{
    (void)o;
    const hyper_fem *fem = ff->state;
    hyper_dforce(fem, dx, df, kfact, &(pf_elem_range){.n = fem->nelem});
}

static void hyper_ff_assemble(const pf_force_field *ff, const pf_object *o, uint32_t base, pf_blocks *k)
{
    (void)o;
    const hyper_fem *fem = ff->state;
    for (uint32_t e = 0; e < fem->nelem; e++)
        pf_blocks_add_element(k, base, fem->elem[e].v, 4, 3, fem->ke + 144 * (size_t)e, NULL);
}

static uint32_t hyper_ff_elements(const pf_force_field *ff, uint32_t *corners)
{
    *corners = 4;
    return ((const hyper_fem *)ff->state)->nelem;
}

static void hyper_ff_element(const pf_force_field *ff, uint32_t e, uint32_t *nodes)
{
    memcpy(nodes, ((const hyper_fem *)ff->state)->elem[e].v, 4 * sizeof *nodes);
}

static void hyper_ff_force_range(const pf_force_field *ff, const pf_object *o, const double *x,
                                 const double *v, double *out, int want_jac, const pf_elem_range *r)
{
    (void)o, (void)v;
    hyper_force(ff->state, x, out, want_jac, r);
}

static void hyper_ff_dforce_range(const pf_force_field *ff, const pf_object *o, const double *dx, double *out,
                                  double kfact, const pf_elem_range *r)
{
    (void)o;
    hyper_dforce(ff->state, dx, out, kfact, r);
}

static int hyper_ff_register_range(pf_graph *g, const pf_force_field *ff, const pf_elem_range *r,
                                   uint32_t owner, pf_data_id *out)
{
    return pf_register_element_span(g, ((const hyper_fem *)ff->state)->ke, 144, r, owner, out);
}

/* the element stiffnesses, which the force task writes and df reads */
static int hyper_ff_register(pf_graph *g, pf_force_field *ff, uint32_t owner)
{
    hyper_fem *fem = ff->state;
    return pf_graph_data(g, fem->ke, 144 * (size_t)fem->nelem * sizeof(double), owner, NULL, &ff->dcache);
}

/* F, C^-1 and the material's powers and logarithms, then twelve stress variations for the stiffness */
static double hyper_ff_cost(const pf_force_field *ff)
{
    return 2500.0 * ((const hyper_fem *)ff->state)->nelem;
}

static double hyper_ff_df_cost(const pf_force_field *ff)
{
    return 150.0 * ((const hyper_fem *)ff->state)->nelem;
}

static void hyper_ff_remove_elements(pf_force_field *ff, const uint32_t *desc, uint32_t n)
{
    hyper_fem *fem = ff->state;
    pf_remove_slots(fem->elem, sizeof *fem->elem, fem->nelem, desc, n);
    pf_remove_slots(fem->ke, 144 * sizeof *fem->ke, fem->nelem, desc, n);
    fem->nelem -= n;
}

static void hyper_ff_destroy(void *state)
{
    hyper_fem *fem = state;
    if (!fem) return;
    pf_free(fem->elem);
    pf_free(fem->ke);
    pf_free(fem);
}

const pf_force_field_ops pf_hyperelastic_force_field = {
    .name = "hyperelastic FEM",
    .elements = hyper_ff_elements,
    .element = hyper_ff_element,
    .force_range = hyper_ff_force_range,
    .dforce_range = hyper_ff_dforce_range,
    .register_range = hyper_ff_register_range,
    .force = hyper_ff_force,
    .dforce = hyper_ff_dforce,
    .assemble = hyper_ff_assemble,
    .register_data = hyper_ff_register,
    .cost = hyper_ff_cost,
    .df_cost = hyper_ff_df_cost,
    .df_reads_x = 0,
    .destroy = hyper_ff_destroy,
    .remove_elements = hyper_ff_remove_elements,
};

/* ---- the public calls ---- */

int pf_hyperelastic_parameter_count(pf_hyperelastic_material m)
{
    static const int count[PF_HYPER_MATERIALS] = {
        [PF_HYPER_ST_VENANT_KIRCHHOFF] = 2, [PF_HYPER_NEO_HOOKEAN] = 2, [PF_HYPER_MOONEY_RIVLIN] = 3,
        [PF_HYPER_ARRUDA_BOYCE] = 2,        [PF_HYPER_OGDEN] = 3,
    };
    if ((int)m < 0 || (int)m >= PF_HYPER_MATERIALS)
        return pf_error(PF_EINVAL, "pf_hyperelastic_parameter_count: unknown material %d", (int)m);
    return count[m];
}

pf_hyperelastic_def pf_hyperelastic_default_def(void)
{
    /* pf_tetra_fem_default_def's E = 5000 Pa, nu = 0.45 as Lame's mu = E / (2 (1 + nu)), lambda = E nu / ((1
     * + nu) (1 - 2 nu)) */
    const double E = 5000, nu = 0.45;
    return (pf_hyperelastic_def){.material = PF_HYPER_ST_VENANT_KIRCHHOFF,
                                 .parameters = {E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))},
                                 .nparameters = 2};
}

/* each material's parameters: names, and which must be > 0 (1) or >= 0 (0) */
static int check_parameters(const pf_hyperelastic_def *def, const char *fn)
{
    static const char *const names[PF_HYPER_MATERIALS][3] = {
        [PF_HYPER_ST_VENANT_KIRCHHOFF] = {"mu", "lambda"}, [PF_HYPER_NEO_HOOKEAN] = {"mu", "lambda"},
        [PF_HYPER_MOONEY_RIVLIN] = {"c1", "c2", "k0"},     [PF_HYPER_ARRUDA_BOYCE] = {"mu", "k0"},
        [PF_HYPER_OGDEN] = {"mu", "alpha", "k0"},
    };
    static const int positive[PF_HYPER_MATERIALS][3] = {
        [PF_HYPER_ST_VENANT_KIRCHHOFF] = {1, 0},
        [PF_HYPER_NEO_HOOKEAN] = {1, 0},
        [PF_HYPER_MOONEY_RIVLIN] = {0, 0, 1},
        [PF_HYPER_ARRUDA_BOYCE] = {1, 1},
        [PF_HYPER_OGDEN] = {1, 1, 1},
    };
    int n = pf_hyperelastic_parameter_count(def->material);
    if ((int)def->nparameters != n)
        return pf_error(PF_EINVAL, "%s: def.nparameters is %u; this material takes %d", fn, def->nparameters,
                        n);
    for (int k = 0; k < n; k++) {
        char what[48];
        snprintf(what, sizeof what, "def.parameters[%d] (%s)", k, names[def->material][k]);
        PF_TRY(positive[def->material][k] ? pf_check_positive(def->parameters[k], fn, what)
                                          : pf_check_nonnegative(def->parameters[k], fn, what));
    }
    if (def->material == PF_HYPER_MOONEY_RIVLIN && !(def->parameters[0] + def->parameters[1] > 0))
        return pf_error(PF_EINVAL,
                        "%s: def.parameters c1 + c2 must be > 0 (the shear modulus is 2 (c1 + c2))", fn);
    return PF_OK;
}

static int check_hyperelastic(const pf_world *w, uint32_t object, const pf_hyperelastic_def *def,
                              const char *fn)
{
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, object, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_enum((int)def->material, PF_HYPER_MATERIALS, fn, "def.material"));
    PF_TRY(check_parameters(def, fn));
    const pf_object *o = w->obj.v[object];
    if (o->kind != PF_OBJECT_POINTS)
        return pf_error(PF_EINVAL,
                        "%s: object %u is not an object of points; hyperelastic FEM acts on points", fn,
                        object);
    if (def->ntetrahedra == 0)
        return pf_error(PF_EINVAL, "%s: def.ntetrahedra is 0: no tetrahedra given", fn);
    if (!def->tetrahedra)
        return pf_error(PF_EINVAL, "%s: def.tetrahedra is NULL: def.ntetrahedra = %u announced but no list",
                        fn, def->ntetrahedra);
    PF_TRY(pf_check_size(def->ntetrahedra, sizeof(hyper_elem) + 144 * sizeof(double), fn, "def.ntetrahedra"));
    for (uint32_t e = 0; e < def->ntetrahedra; e++)
        for (int c = 0; c < 4; c++)
            if (def->tetrahedra[4 * (size_t)e + c] >= o->n)
                return pf_error(PF_EINVAL,
                                "%s: def.tetrahedra[%u] corner %d = %u: point out of range (object %u has %u "
                                "points)",
                                fn, e, c, def->tetrahedra[4 * (size_t)e + c], object, o->n);
    return PF_OK;
}

/* the rest state of element e (SOFA's createTetrahedronRestInformation): grad N_k (k = 1..3) are the rows of
 * Dm^-1 (Dm: the rest edges from corner 0 as columns), grad N_0 = -(their sum), V = |det Dm| / 6; either
 * orientation. PF_EINVAL for a flat element. */
static int element_init(hyper_elem *el, const double *x, uint32_t e, const char *fn)
{
    const double *p0 = x + 3 * (size_t)el->v[0];
    double Dm[9], Dminv[9], lmax = 0;
    for (int k = 0; k < 3; k++) {
        const double *pk = x + 3 * (size_t)el->v[k + 1];
        double l = 0;
        for (int d = 0; d < 3; d++) {
            Dm[3 * d + k] = pk[d] - p0[d];
            l += Dm[3 * d + k] * Dm[3 * d + k];
        }
        lmax = fmax(lmax, sqrt(l));
    }
    double det = pf_mat3_inverse(Dm, Dminv);
    /* flat relative to its size, as fem_tetra.c */
    if (!(fabs(det) > 1e-12 * lmax * lmax * lmax) || !isfinite(det))
        return pf_error(PF_EINVAL, "%s: def.tetrahedra[%u] (points %u %u %u %u) is degenerate: volume %g m^3",
                        fn, e, el->v[0], el->v[1], el->v[2], el->v[3], det / 6);
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 3; d++)
            el->g[k + 1][d] = Dminv[3 * k + d];
    for (int d = 0; d < 3; d++)
        el->g[0][d] = -(el->g[1][d] + el->g[2][d] + el->g[3][d]);
    el->vol = fabs(det) / 6;
    return PF_OK;
}

int pf_world_add_hyperelastic_fem(pf_world *w, pf_object_id id, const pf_hyperelastic_def *def,
                                  pf_force_field_id *out)
{
    static const char fn[] = "pf_world_add_hyperelastic_fem";
    PF_TRY(check_hyperelastic(w, id.index, def, fn));
    pf_object *o = w->obj.v[id.index];
    hyper_fem *fem = pf_calloc(1, sizeof *fem);
    if (fem) {
        fem->elem = pf_malloc((size_t)def->ntetrahedra * sizeof *fem->elem);
        fem->ke = pf_calloc((size_t)def->ntetrahedra * 144, sizeof *fem->ke);
    }
    if (!fem || !fem->elem || !fem->ke) {
        hyper_ff_destroy(fem);
        return pf_error(PF_ENOMEM, "out of memory for %u tetrahedra", def->ntetrahedra);
    }
    fem->material = def->material;
    memcpy(fem->param, def->parameters, sizeof fem->param);
    fem->nelem = def->ntetrahedra;
    int rc = PF_OK;
    for (uint32_t e = 0; e < fem->nelem && !rc; e++) {
        hyper_elem *el = fem->elem + e;
        memcpy(el->v, def->tetrahedra + 4 * (size_t)e, sizeof el->v);
        rc = element_init(el, o->x, e, fn);
    }
    if (!rc) { /* the stiffness at rest, for a df before any force evaluation */
        double *f = pf_calloc(3 * (size_t)o->n, sizeof *f);
        if (!f)
            rc = pf_error(PF_ENOMEM, "out of memory for %u points", o->n);
        else
            hyper_force(fem, o->x, f, 1, &(pf_elem_range){.n = fem->nelem});
        pf_free(f);
    }
    if (rc || (rc = pf_object_add_force_field(w, o, PF_FORCE_HYPERELASTIC, fem, out))) hyper_ff_destroy(fem);
    return rc;
}
