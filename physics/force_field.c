/* The table of force-field kinds (force_field.h) and the one place that runs an object's force fields through
 * it: a new model of force field is a file defining its pf_force_field_ops and one entry here. */
#include "force_field.h"

#include "base/alloc.h"

#include <math.h>
#include <string.h>

const pf_force_field_ops *const pf_force_field_kinds[PF_FORCE_KINDS] = {
    [PF_FORCE_SPRINGS] = &pf_springs_force_field,
    [PF_FORCE_HEXA_FEM] = &pf_hexa_fem_force_field,
    [PF_FORCE_TETRA_FEM] = &pf_tetra_fem_force_field,
    [PF_FORCE_TRIANGLE_FEM] = &pf_triangle_fem_force_field,
    [PF_FORCE_BIQUADRATIC_SPRINGS] = &pf_biquadratic_springs_force_field,
    [PF_FORCE_TENSOR_MASS] = &pf_tensor_mass_force_field,
    [PF_FORCE_BENDING_VECTORS] = &pf_bending_vector_force_field,
    [PF_FORCE_REST_SHAPE] = &pf_rest_shape_force_field,
    [PF_FORCE_POLYNOMIAL_SPRINGS] = &pf_polynomial_springs_force_field,
    [PF_FORCE_CONSTANT] = &pf_constant_force_field,
    [PF_FORCE_CUSTOM] = &pf_custom_force_field,
    [PF_FORCE_HYPERELASTIC] = &pf_hyperelastic_force_field,
};

static const pf_force_field_ops *ops_of(const pf_force_field *ff)
{
    return pf_force_field_kinds[ff->kind];
}

void pf_force_fields_force(const pf_object *o, const double *x, const double *v, double *f, int want_jac)
{
    for (uint32_t k = 0; k < o->ff.n; k++) ops_of(&o->ff.v[k])->force(&o->ff.v[k], o, x, v, f, want_jac);
}

void pf_force_fields_dforce(const pf_object *o, const double *dx, double *df, double kfact)
{
    for (uint32_t k = 0; k < o->ff.n; k++)
        if (ops_of(&o->ff.v[k])->dforce) ops_of(&o->ff.v[k])->dforce(&o->ff.v[k], o, dx, df, kfact);
}

double pf_force_fields_cost(const pf_object *o, double base)
{
    for (uint32_t k = 0; k < o->ff.n; k++) base += ops_of(&o->ff.v[k])->cost(&o->ff.v[k]);
    return base;
}

double pf_force_fields_df_cost(const pf_object *o, double base)
{
    for (uint32_t k = 0; k < o->ff.n; k++)
        if (ops_of(&o->ff.v[k])->df_cost) base += ops_of(&o->ff.v[k])->df_cost(&o->ff.v[k]);
    return base;
}

int pf_force_fields_df_reads_x(const pf_object *o)
{
    for (uint32_t k = 0; k < o->ff.n; k++)
        if (ops_of(&o->ff.v[k])->df_reads_x) return 1;
    return 0;
}

uint32_t pf_force_fields_caches(const pf_object *o)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < o->ff.n; k++) n += ops_of(&o->ff.v[k])->register_data != NULL;
    return n;
}

uint32_t pf_force_fields_cache_accesses(const pf_object *o, pf_access_mode mode, pf_access *acc, uint32_t na)
{
    for (uint32_t k = 0; k < o->ff.n && na < PF_MAX_ACCESSES; k++)
        if (ops_of(&o->ff.v[k])->register_data) acc[na++] = (pf_access){o->ff.v[k].dcache, mode};
    return na;
}

int pf_force_fields_register(pf_graph *g, pf_object *o)
{
    int rc = 0;
    for (uint32_t k = 0; k < o->ff.n && !rc; k++) {
        pf_force_field *ff = &o->ff.v[k];
        if (ff->registered || !ops_of(ff)->register_data) continue;
        rc = ops_of(ff)->register_data(g, ff, o->id);
        ff->registered = !rc;
    }
    return rc;
}

void pf_force_fields_forget(pf_object *o)
{
    for (uint32_t k = 0; k < o->ff.n; k++) o->ff.v[k].registered = 0;
}

static int finite_all(const double *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(f[i])) return 0;
    return 1;
}

const char *pf_force_fields_not_finite(const pf_object *o, double *scratch)
{
    size_t n3 = 3 * (size_t)o->n;
    for (uint32_t k = 0; k < o->ff.n; k++) {
        memset(scratch, 0, n3 * sizeof *scratch);
        ops_of(&o->ff.v[k])->force(&o->ff.v[k], o, o->x, o->v, scratch, 0);
        if (!finite_all(scratch, n3)) return ops_of(&o->ff.v[k])->name;
    }
    return NULL;
}

void pf_force_field_free(pf_force_field *ff)
{
    ops_of(ff)->destroy(ff->state);
    ff->state = NULL;
}

void pf_force_fields_destroy(pf_object *o)
{
    for (uint32_t k = 0; k < o->ff.n; k++) pf_force_field_free(&o->ff.v[k]);
    pf_vec_free(&o->ff);
}
