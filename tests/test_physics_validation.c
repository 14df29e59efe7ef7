/* Cantilever validation (after SOFA's examples/Validation/cantilever_beam, rewritten for PhysFlow): a beam of
 * square section h x h and length L = 10 h, clamped at x = 0, loaded by its own weight, solved by the static
 * solver. Oracles: Euler-Bernoulli's tip deflection q L^4 / (8 E I) with Timoshenko's shear term q L^2 / (2 k
 * G A); for trilinear hexahedra with one element through the thickness, the known shear-locking factor of
 * full 2x2x2 integration in bending, 1 / (1 + (a/b)^2 / 2) for cubes (a = b) at nu = 0; linear tetrahedra
 * converge as h^2, so their Richardson extrapolation from 4 and 8 elements through the thickness. Then:
 * corotational equals linear at small loads, and the direct solver equals CG to 1e-8 relative. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"
#include "tetra_grid.h"

#include <math.h>
#include <stdlib.h>

enum { HEXA = 0, TETRA = 1 };

static const double L = 0.2, H = 0.02, E = 2e6, RHO = 1100, G = 9.81;

typedef struct beam {
    pf_world *w;
    int nx, ny; /* points along the beam and across (ny x ny per section) */
} beam;

/* m elements through the thickness (cubes of side H / m), lumped masses: rho x cell volume / 8 per cell
 * corner */
static beam make_beam(int m, int kind, double nu, pf_fem_method method, pf_linear_solver ls, double load)
{
    beam b = {NULL, (int)lround(L / H * m) + 1, m + 1};
    pf_world_def d = test_world_def(PF_EXEC_SEQ, 1);
    d.gravity[0] = 0, d.gravity[1] = -G * load, d.gravity[2] = 0;
    b.w = create_world(&d);
    int nx = b.nx, ny = b.ny, n = nx * ny * ny;
    double *pm = malloc((size_t)n * sizeof *pm), cell = (L / (nx - 1)) * (H / m) * (H / m) * RHO / 8;
    for (int k = 0; k < ny; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++)
                pm[i + nx * (j + ny * k)] =
                    cell * ((i > 0) + (i < nx - 1)) * ((j > 0) + (j < ny - 1)) * ((k > 0) + (k < ny - 1));
    pf_object_def o = pf_object_default_def();
    o.grid[0] = nx, o.grid[1] = o.grid[2] = ny;
    o.grid_max[0] = L, o.grid_max[1] = o.grid_max[2] = H;
    o.point_masses = pm;
    o.solver.kind = PF_SOLVER_STATIC;
    o.solver.linear_solver = ls;
    o.solver.cg_iterations = 5000;
    o.solver.cg_tolerance = 1e-13;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(b.w, &o, &id), PF_OK);
    free(pm);
    if (kind == HEXA) {
        pf_hexa_fem_def f = pf_hexa_fem_default_def();
        f.young_modulus = E, f.poisson_ratio = nu, f.method = method;
        ck_assert_int_eq(pf_world_add_hexa_fem(b.w, id, &f, NULL), PF_OK);
    } else {
        uint32_t *t = malloc((size_t)(nx - 1) * (ny - 1) * (ny - 1) * 24 * sizeof *t),
                 nt = kuhn_tetrahedra(nx, ny, ny, t);
        pf_tetra_fem_def f = pf_tetra_fem_default_def();
        f.young_modulus = E, f.poisson_ratio = nu, f.method = method, f.tetrahedra = t, f.ntetrahedra = nt;
        ck_assert_int_eq(pf_world_add_tetra_fem(b.w, id, &f, NULL), PF_OK);
        free(t);
    }
    double clamp[6] = {-1e-9, -1, -1, 1e-9, 1, 1};
    ck_assert_int_eq(pf_world_fix_box(b.w, id, clamp, NULL), PF_OK);
    return b;
}

/* the mean downward displacement of the tip section after `steps` static (Newton) steps */
static double tip_deflection(beam *b, uint32_t steps)
{
    ck_assert_msg(pf_world_step(b->w, steps) == PF_OK, "%s", pf_last_error());
    uint32_t n;
    const double *x = pf_world_positions(b->w, (pf_object_id){0}, &n);
    double s = 0;
    for (int k = 0; k < b->ny; k++)
        for (int j = 0; j < b->ny; j++)
            s += H * j / (b->ny - 1) - x[3 * ((b->nx - 1) + b->nx * (j + b->ny * k)) + 1];
    return s / (b->ny * b->ny);
}

static double deflection(int m, int kind, double nu, pf_fem_method method, pf_linear_solver ls, double load,
                         uint32_t steps)
{
    beam b = make_beam(m, kind, nu, method, ls, load);
    double t = tip_deflection(&b, steps);
    pf_world_destroy(b.w);
    return t;
}

static double euler_bernoulli(double load)
{
    double q = RHO * G * load * H * H, I = H * H * H * H / 12;
    return q * L * L * L * L / (8 * E * I);
}

static double timoshenko(double nu, double load)
{
    double q = RHO * G * load * H * H, shear = E / (2 * (1 + nu));
    return euler_bernoulli(load) + q * L * L / (2 * (5.0 / 6.0) * shear * H * H);
}

/* linear hexahedra: one element through the thickness shows the shear-locking factor 2/3 of cubes at nu = 0;
 * eight come within 1% of Timoshenko at nu = 0, within 3% at nu = 0.3 (the clamp's held section stiffens it)
 */
START_TEST(hexa_linear_against_beam_theory)
{
    double locked = deflection(1, HEXA, 0, PF_FEM_LINEAR, PF_LINEAR_DIRECT, 1, 1);
    double expect = euler_bernoulli(1) / (1 + 0.5);
    ck_assert_msg(fabs(locked / expect - 1) < 0.03, "1 element: %g, locked Euler-Bernoulli %g", locked,
                  expect);
    static const double nus[2] = {0, 0.3}, within[2] = {0.01, 0.03};
    for (int k = 0; k < 2; k++) {
        double fine = deflection(8, HEXA, nus[k], PF_FEM_LINEAR, PF_LINEAR_DIRECT, 1, 1);
        ck_assert_msg(fabs(fine / timoshenko(nus[k], 1) - 1) < within[k], "nu %g: %g, Timoshenko %g", nus[k],
                      fine, timoshenko(nus[k], 1));
    }
}
END_TEST

/* linear tetrahedra: Richardson's extrapolation from 4 and 8 elements through the thickness (error ~ h^2)
 * comes within 3% of Timoshenko, and the finer mesh is the closer */
START_TEST(tetra_linear_against_beam_theory)
{
    double d4 = deflection(4, TETRA, 0, PF_FEM_LINEAR, PF_LINEAR_DIRECT, 1, 1);
    double d8 = deflection(8, TETRA, 0, PF_FEM_LINEAR, PF_LINEAR_DIRECT, 1, 1);
    double ts = timoshenko(0, 1), extrapolated = d8 + (d8 - d4) / 3;
    ck_assert_msg(d4 < d8 && d8 < ts, "stiff elements converge from below: %g, %g, Timoshenko %g", d4, d8,
                  ts);
    ck_assert_msg(fabs(extrapolated / ts - 1) < 0.03, "extrapolated %g (4: %g, 8: %g), Timoshenko %g",
                  extrapolated, d4, d8, ts);
}
END_TEST

/* at a thousandth of the load, corotational elements (large, polar, svd) deflect as linear ones */
START_TEST(corotational_equals_linear_at_small_loads)
{
    for (int kind = HEXA; kind <= TETRA; kind++) {
        double lin = deflection(2, kind, 0.3, PF_FEM_LINEAR, PF_LINEAR_DIRECT, 1e-3, 1);
        for (int m = PF_FEM_LARGE; m <= PF_FEM_SVD; m++) {
            double rot = deflection(2, kind, 0.3, (pf_fem_method)m, PF_LINEAR_DIRECT, 1e-3, 3);
            ck_assert_msg(fabs(rot / lin - 1) < 2e-3, "kind %d method %d: %g, linear %g", kind, m, rot, lin);
        }
    }
}
END_TEST

/* the direct solver and CG give the same static deflection */
START_TEST(direct_equals_cg)
{
    for (int kind = HEXA; kind <= TETRA; kind++) {
        double direct = deflection(2, kind, 0.3, PF_FEM_LINEAR, PF_LINEAR_DIRECT, 1, 1);
        double cg = deflection(2, kind, 0.3, PF_FEM_LINEAR, PF_LINEAR_CG, 1, 1);
        ck_assert_msg(fabs(direct / cg - 1) < 1e-8, "kind %d: direct %.15g, CG %.15g", kind, direct, cg);
    }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_validation");
    TCase *tc = tcase_create("cantilever");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, hexa_linear_against_beam_theory);
    tcase_add_test(tc, tetra_linear_against_beam_theory);
    tcase_add_test(tc, corotational_equals_linear_at_small_loads);
    tcase_add_test(tc, direct_equals_cg);
    suite_add_tcase(s, tc);
    return s;
}
