/* Deformable grid (Hermann et al. 2009, §4.2, SOFA SparseGridTopology): a coarse lattice object sized to a surface
 * mesh's bounding box, with a mass-spring or hexahedral FEM force field, carrying the mesh through the TRILINEAR
 * mapping, so that forces on the mesh act on the lattice and the mesh follows it. */
#include "world_guard.h"
#include "objects.h"
#include "surface.h"

#include "base/check.h"
#include "base/error.h"

#include <math.h>

pf_deformable_grid_def pf_deformable_grid_default_def(void)
{
    return (pf_deformable_grid_def){.n = {4, 4, 4},
                                    .margin = 1e-3,
                                    .total_mass = 1,
                                    .model = PF_GRID_FEM,
                                    .fem = pf_hexa_fem_default_def(),
                                    .stiffness = 100,
                                    .damping = 0,
                                    .solver = pf_solver_default_def()};
}

static int check_def(const pf_deformable_grid_def *d, const char *fn)
{
    PF_TRY(pf_check_given(d->mesh_positions, fn, "def.mesh_positions"));
    if (d->mesh_vertices < 1) return pf_error(PF_EINVAL, "%s: def.mesh_vertices must be >= 1, got 0", fn);
    static const char *const nname[3] = {"def.n[0]", "def.n[1]", "def.n[2]"};
    for (int a = 0; a < 3; a++) PF_TRY(pf_check_int_range(d->n[a], 2, 1 << 20, fn, nname[a]));
    PF_TRY(pf_check_nonnegative(d->margin, fn, "def.margin"));
    PF_TRY(pf_check_positive(d->total_mass, fn, "def.total_mass"));
    PF_TRY(pf_check_enum((int)d->model, 2, fn, "def.model"));
    if (d->model == PF_GRID_FEM) {
        PF_TRY(pf_check_positive(d->fem.young_modulus, fn, "def.fem.young_modulus"));
        if (!(d->fem.poisson_ratio >= 0 && d->fem.poisson_ratio < 0.5))
            return pf_error(PF_EINVAL, "%s: def.fem.poisson_ratio must be in [0, 0.5), got %g", fn, d->fem.poisson_ratio);
        PF_TRY(pf_check_enum((int)d->fem.method, 2, fn, "def.fem.method"));
    } else {
        PF_TRY(pf_check_nonnegative(d->stiffness, fn, "def.stiffness"));
        PF_TRY(pf_check_nonnegative(d->damping, fn, "def.damping"));
    }
    PF_TRY(pf_check_solver_def(&d->solver, fn, "def.solver"));
    if (d->mesh_triangles > 0) PF_TRY(pf_check_given(d->mesh_indices, fn, "def.mesh_indices"));
    for (size_t k = 0; k < 3 * (size_t)d->mesh_triangles; k++)
        if (d->mesh_indices[k] >= d->mesh_vertices)
            return pf_error(PF_EINVAL, "%s: def.mesh_indices[%zu] = %u (triangle %zu): the mesh has %u vertices", fn, k,
                            d->mesh_indices[k], k / 3, d->mesh_vertices);
    return pf_check_finite_n(d->mesh_positions, 3 * (size_t)d->mesh_vertices, fn, "def.mesh_positions");
}

int pf_world_add_deformable_grid(pf_world *w, const pf_deformable_grid_def *def, pf_object_id *object,
                                 pf_surface_id *surface)
{
    static const char fn[] = "pf_world_add_deformable_grid";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_check_given(def, fn, "def"));
    int rc;
    PF_TRY(check_def(def, fn));
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++) lo[a] = hi[a] = def->mesh_positions[a];
    for (size_t i = 1; i < def->mesh_vertices; i++)
        for (int a = 0; a < 3; a++) {
            double p = def->mesh_positions[3 * i + a];
            lo[a] = p < lo[a] ? p : lo[a];
            hi[a] = p > hi[a] ? p : hi[a];
        }
    double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                       (hi[2] - lo[2]) * (hi[2] - lo[2]));
    pf_object_def od = pf_object_default_def();
    for (int a = 0; a < 3; a++) {
        od.grid[a] = def->n[a];
        od.grid_min[a] = lo[a] - def->margin * diag;
        od.grid_max[a] = hi[a] + def->margin * diag;
        if (!(od.grid_max[a] > od.grid_min[a]))
            return pf_error(PF_EINVAL, "%s: the mesh is flat along axis %d (give def.margin > 0)", fn, a);
    }
    od.total_mass = def->total_mass;
    od.solver = def->solver;
    od.decompose = def->decompose;
    od.block_elements = def->block_elements;
    pf_object_id id;
    if ((rc = pf_world_add_object(w, &od, &id))) return rc;
    rc = def->model == PF_GRID_FEM ? pf_world_add_hexa_fem(w, id, &def->fem, NULL)
                                   : pf_world_add_grid_springs(w, id, def->stiffness, def->damping, NULL, NULL);
    if (rc) return rc;
    pf_surface_def sd = pf_surface_default_def();
    sd.mapping = PF_SURFACE_TRILINEAR;
    sd.vertices = def->mesh_vertices;
    sd.positions = def->mesh_positions;
    sd.indices = def->mesh_indices;
    sd.triangles = def->mesh_triangles;
    if ((rc = pf_world_add_surface(w, id, &sd, surface))) return rc;
    if (object) *object = id;
    return PF_OK;
}
