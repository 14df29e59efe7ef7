/* Deformable grid (Hermann et al. 2009, §4.2, SOFA SparseGridTopology): a coarse lattice object sized to a surface
 * mesh's bounding box, with a mass-spring or hexahedral FEM force field, carrying the mesh through the TRILINEAR
 * mapping, so that forces on the mesh act on the lattice and the mesh follows it. */
#include "surface.h"

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

static int check_def(const pf_deformable_grid_def *d)
{
    PF_CHECK_ARG(d->mesh_positions && d->mesh_vertices >= 1);
    PF_CHECK_ARG(d->n[0] >= 2 && d->n[1] >= 2 && d->n[2] >= 2);
    PF_CHECK_ARG(d->margin >= 0 && isfinite(d->margin));
    PF_CHECK_ARG(d->total_mass > 0 && isfinite(d->total_mass));
    if (d->model == PF_GRID_FEM) {
        PF_CHECK_ARG(d->fem.young_modulus > 0 && isfinite(d->fem.young_modulus));
        PF_CHECK_ARG(d->fem.poisson_ratio >= 0 && d->fem.poisson_ratio < 0.5);
        PF_CHECK_ARG(d->fem.method == PF_FEM_LINEAR || d->fem.method == PF_FEM_LARGE);
    } else {
        PF_CHECK_ARG(d->model == PF_GRID_SPRINGS);
        PF_CHECK_ARG(d->stiffness >= 0 && isfinite(d->stiffness) && d->damping >= 0 && isfinite(d->damping));
    }
    PF_CHECK_ARG(d->mesh_indices || d->mesh_triangles == 0);
    for (size_t k = 0; k < 3 * (size_t)d->mesh_triangles; k++)
        if (d->mesh_indices[k] >= d->mesh_vertices)
            return pf_error(PF_EINVAL, "mesh triangle %zu: vertex %u out of range", k / 3, d->mesh_indices[k]);
    for (size_t k = 0; k < 3 * (size_t)d->mesh_vertices; k++)
        if (!isfinite(d->mesh_positions[k])) return pf_error(PF_EINVAL, "mesh vertex %zu is not finite", k / 3);
    return PF_OK;
}

int pf_world_add_deformable_grid(pf_world *w, const pf_deformable_grid_def *def, pf_object_id *object,
                                 pf_surface_id *surface)
{
    PF_CHECK_ARG(w && def);
    int rc = check_def(def);
    if (rc) return rc;
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
            return pf_error(PF_EINVAL, "deformable grid: the mesh is flat along axis %d (give a margin > 0)", a);
    }
    od.total_mass = def->total_mass;
    od.solver = def->solver;
    pf_object_id id;
    if ((rc = pf_world_add_object(w, &od, &id))) return rc;
    rc = def->model == PF_GRID_FEM ? pf_world_add_hexa_fem(w, id, &def->fem)
                                   : pf_world_add_grid_springs(w, id, def->stiffness, def->damping, NULL);
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
