/* Scenes built in code: 64 FEM bars (Hermann et al. 2009, §4.1, figure 5) and a tiled mass-spring sheet (§4.3,
 * figure 7). */
#include "physics_scenes.h"

#include "physflow/scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int scene_bars(pf_world *w, int bars, int nx, int ny, int nz, uint32_t iterations, pf_fem_method method)
{
    /* 0.1 m cells, steel-soft material: a 1.5 m bar of 16x4x4 points sags ~8 cm (well inside "large") */
    const double h = 0.1, rho = 1000.0;
    int side = 1;
    while (side * side < bars) side++;
    /* bars on a lattice: bar (j, k) is bar (0, 0) moved by (j pitch_y, k pitch_z), as scenes/bars64.xml's
     * Replicate computes it (same doubles, same state hash) */
    const double pitch_y = (ny - 1) * h * 2.0, pitch_z = (nz - 1) * h * 2.0;
    for (int b = 0; b < bars; b++) {
        double y0 = (b % side) * pitch_y, z0 = (b / side) * pitch_z;
        pf_object_def od = pf_object_default_def();
        od.grid[0] = nx;
        od.grid[1] = ny;
        od.grid[2] = nz;
        od.grid_min[0] = 0;
        od.grid_min[1] = y0;
        od.grid_min[2] = z0;
        od.grid_max[0] = (nx - 1) * h;
        od.grid_max[1] = y0 + (ny - 1) * h;
        od.grid_max[2] = z0 + (nz - 1) * h;
        od.total_mass = rho * (nx - 1) * (ny - 1) * (nz - 1) * h * h * h;
        od.solver.rayleigh_mass = 0.1;
        od.solver.rayleigh_stiffness = 0.01;
        od.solver.cg_iterations = iterations;
        od.solver.cg_tolerance = 1e-9;
        od.solver.cg_threshold = 1e-9;
        pf_object_id id;
        int rc = pf_world_add_object(w, &od, &id);
        if (rc) return rc;
        pf_hexa_fem_def fd = pf_hexa_fem_default_def();
        fd.young_modulus = 1e7;
        fd.poisson_ratio = 0.3;
        fd.method = method;
        if ((rc = pf_world_add_hexa_fem(w, id, &fd, NULL))) return rc;
        double box[6] = {-1e-3, y0 - 1e-3, z0 - 1e-3, 1e-3, od.grid_max[1] + 1e-3, od.grid_max[2] + 1e-3};
        if ((rc = pf_world_fix_box(w, id, box, NULL))) return rc;
    }
    return PF_OK;
}

int scene_springgrid(pf_world *w, int n, int tiles, uint32_t iterations)
{
    const double h = 0.01, stiffness = 100.0, damping = 0.0, total_mass = 1.0;
    if (n < 2 || tiles < 1 || tiles > n) return PF_EINVAL;
    int T = tiles * tiles, rc = PF_OK;
    /* tile t = (tx, ty) holds the points of global columns [c0(tx), c0(tx+1)) and rows [c0(ty), c0(ty+1)) */
    int *c0 = malloc((size_t)(tiles + 1) * sizeof *c0);
    int *tile_of = malloc((size_t)n * sizeof *tile_of);
    pf_spring **pair = calloc((size_t)T * T, sizeof *pair);
    uint32_t *npair = calloc((size_t)T * T, sizeof *npair), *cap = calloc((size_t)T * T, sizeof *cap);
    if (!c0 || !tile_of || !pair || !npair || !cap) {
        rc = PF_ENOMEM;
        goto done;
    }
    for (int t = 0; t <= tiles; t++) c0[t] = (int)((long)t * n / tiles);
    for (int t = 0; t < tiles; t++)
        for (int i = c0[t]; i < c0[t + 1]; i++) tile_of[i] = t;
    double point_mass = total_mass / ((double)n * n);
    for (int ty = 0; ty < tiles && !rc; ty++)
        for (int tx = 0; tx < tiles && !rc; tx++) {
            pf_object_def od = pf_object_default_def();
            od.grid[0] = c0[tx + 1] - c0[tx];
            od.grid[1] = c0[ty + 1] - c0[ty];
            od.grid[2] = 1;
            od.grid_min[0] = c0[tx] * h;
            od.grid_min[1] = c0[ty] * h;
            od.grid_max[0] = (c0[tx + 1] - 1) * h + (od.grid[0] == 1 ? 1e-9 : 0);
            od.grid_max[1] = (c0[ty + 1] - 1) * h + (od.grid[1] == 1 ? 1e-9 : 0);
            od.vertex_mass = point_mass;
            od.solver.rayleigh_mass = 0.1;
            od.solver.rayleigh_stiffness = 0.01;
            od.solver.cg_iterations = iterations;
            /* CGLinearSolver `threshold` is absolute: with 61 mg points p.Ap is ~1e-10, so 1e-9 would stop at once */
            od.solver.cg_threshold = 1e-20;
            pf_object_id id;
            if ((rc = pf_world_add_object(w, &od, &id))) break;
            if ((rc = pf_world_add_grid_springs(w, id, stiffness, damping, NULL, NULL))) break;
            if (ty == 0) { /* the sheet hangs from its y = 0 edge */
                double box[6] = {-1, -1e-3, -1, n * h + 1, 1e-3, 1};
                rc = pf_world_fix_box(w, id, box, NULL);
            }
        }
    /* springs of the global grid that cross a tile border become interaction springs of the tile pair */
    static const int off[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    for (int j = 0; j < n && !rc; j++)
        for (int i = 0; i < n && !rc; i++)
            for (int k = 0; k < 4; k++) {
                int i2 = i + off[k][0], j2 = j + off[k][1];
                if (i2 < 0 || i2 >= n || j2 < 0 || j2 >= n) continue;
                int ta = tile_of[i] + tiles * tile_of[j], tb = tile_of[i2] + tiles * tile_of[j2];
                if (ta == tb) continue;
                int lo = ta < tb ? ta : tb, hi = ta < tb ? tb : ta;
                int pi = lo == ta ? i : i2, pj = lo == ta ? j : j2, qi = lo == ta ? i2 : i, qj = lo == ta ? j2 : j;
                int lw = c0[lo % tiles + 1] - c0[lo % tiles], hw = c0[hi % tiles + 1] - c0[hi % tiles];
                uint32_t a = (uint32_t)((pi - c0[lo % tiles]) + lw * (pj - c0[lo / tiles]));
                uint32_t b = (uint32_t)((qi - c0[hi % tiles]) + hw * (qj - c0[hi / tiles]));
                size_t slot = (size_t)lo * T + hi;
                if (npair[slot] == cap[slot]) {
                    cap[slot] = cap[slot] ? 2 * cap[slot] : 64;
                    pf_spring *np = realloc(pair[slot], cap[slot] * sizeof *np);
                    if (!np) {
                        rc = PF_ENOMEM;
                        break;
                    }
                    pair[slot] = np;
                }
                pair[slot][npair[slot]++] = (pf_spring){a, b, stiffness, damping, -1.0};
            }
    for (int a = 0; a < T && !rc; a++)
        for (int b = a + 1; b < T && !rc; b++)
            if (npair[(size_t)a * T + b])
                rc = pf_world_add_interaction_springs(w, (pf_object_id){(uint32_t)a},
                                                      (pf_object_id){(uint32_t)b}, pair[(size_t)a * T + b],
                                                      npair[(size_t)a * T + b], NULL);
done:
    for (int k = 0; pair && k < T * T; k++) free(pair[k]);
    free(pair);
    free(npair);
    free(cap);
    free(c0);
    free(tile_of);
    return rc;
}

int scene_known(const char *name)
{
    return pf_scene_builtin(name, NULL) != NULL;
}

const char *scene_names(void)
{
    return pf_scene_builtin_names();
}

/* The built-in XML scenes through the loader (bars64.xml and springgrid128.xml reproduce scene_bars and
 * scene_springgrid bit for bit: the scenes suite compares their state hashes). */
int scene_create(const char *name, const pf_world_def *def, pf_world **out)
{
    *out = NULL;
    if (!scene_known(name)) return PF_EINVAL; /* the caller names the scene in its message */
    pf_scene_load_def ld = pf_scene_default_load_def();
    ld.world = *def;
    pf_scene *s = NULL;
    int rc = pf_scene_load_builtin(&ld, name, &s);
    if (rc) return rc;
    *out = pf_scene_release_world(s);
    return PF_OK;
}
