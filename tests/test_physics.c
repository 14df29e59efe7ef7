/* Physics validation against independent oracles: Euler-Bernoulli cantilever deflection (linear and corotational
 * FEM), corotational stability under large rotation, the analytic period of a mass-spring oscillator, bounded
 * energy drift of symplectic Euler, the task-graph CG against a dense direct solve of the Baraff-Witkin system,
 * fixed points, recording only after structural changes, and argument checks. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static pf_world *make_world(double dt, const double g[3])
{
    return new_world_dg(PF_EXEC_SEQ, 1, dt, g);
}

/* ---------- cantilever under its own weight ---------- */

/* A clamped bar of length L and square section H x H (41 x 3 x 3 points: elements half as long as thick, which
 * keeps trilinear shear locking small), density rho, loaded by gravity. Implicit Euler with dt = 1 s and mass
 * damping rM = 1/dt converges to the static solution in a few steps. Returns the tip's mean z displacement. */
static double cantilever_tip(pf_fem_method method, double E, double L, double H, double rho, int steps)
{
    const double g[3] = {0, 0, -9.81};
    pf_world *w = make_world(1.0, g);
    pf_object_def od = pf_object_default_def();
    int nx = 41, ny = 3;
    od.grid[0] = nx;
    od.grid[1] = od.grid[2] = ny;
    od.grid_max[0] = L;
    od.grid_max[1] = od.grid_max[2] = H;
    od.total_mass = rho * L * H * H;
    od.solver.cg_iterations = 3000;
    od.solver.cg_tolerance = 1e-10;
    od.solver.cg_threshold = 0;
    od.solver.rayleigh_mass = 1.0;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    pf_hexa_fem_def fd = pf_hexa_fem_default_def();
    fd.young_modulus = E;
    fd.poisson_ratio = 0.0; /* Euler-Bernoulli has no Poisson effect */
    fd.method = method;
    ck_assert_int_eq(pf_world_add_hexa_fem(w, id, &fd, NULL), PF_OK);
    double box[6] = {-1e-9, -1, -1, 1e-9, 1, 1};
    uint32_t nfixed;
    ck_assert_int_eq(pf_world_fix_box(w, id, box, &nfixed), PF_OK);
    ck_assert_uint_eq(nfixed, (uint32_t)(ny * ny));
    ck_assert_int_eq(pf_world_step(w, (uint32_t)steps), PF_OK);
    uint32_t n;
    const double *x = pf_world_positions(w, id, &n);
    double dz = 0;
    for (int k = 0; k < ny; k++)
        for (int j = 0; j < ny; j++) dz += x[3 * ((nx - 1) + nx * (j + ny * k)) + 2] - k * H / (ny - 1);
    pf_world_destroy(w);
    return -dz / (ny * ny);
}

static double euler_bernoulli_tip(double E, double L, double H, double rho)
{
    double q = rho * H * H * 9.81, I = H * H * H * H / 12.0; /* load per length, second moment of area */
    return q * L * L * L * L / (8.0 * E * I);
}

START_TEST(test_cantilever_linear)
{
    double E = 1e7, L = 1.0, H = 0.1, rho = 100; /* L/H = 10, tip deflection ~1.5% of L */
    double tip = cantilever_tip(PF_FEM_LINEAR, E, L, H, rho, 10), eb = euler_bernoulli_tip(E, L, H, rho);
    ck_assert_msg(fabs(tip - eb) <= 0.1 * eb, "linear FEM tip %g m, Euler-Bernoulli %g m", tip, eb);
}
END_TEST

START_TEST(test_cantilever_large_small_load)
{
    double E = 1e7, L = 1.0, H = 0.1, rho = 100;
    double tip = cantilever_tip(PF_FEM_LARGE, E, L, H, rho, 10), eb = euler_bernoulli_tip(E, L, H, rho);
    ck_assert_msg(fabs(tip - eb) <= 0.1 * eb, "corotational FEM tip %g m, Euler-Bernoulli %g m", tip, eb);
}
END_TEST

/* A soft bar whose linear static deflection would be ten times its length: the corotational model must stay
 * finite, keep its length and swing down, with SOFA's usual settings (25 CG iterations, dt = 0.01 s). */
START_TEST(test_corotational_large_rotation)
{
    const double g[3] = {0, 0, -9.81}, L = 1.0, H = 0.1, rho = 100, E = 2e4;
    ck_assert(euler_bernoulli_tip(E, L, H, rho) > 5 * L);
    pf_world *w = make_world(0.01, g);
    pf_object_def od = pf_object_default_def();
    int nx = 11, ny = 3;
    od.grid[0] = nx;
    od.grid[1] = od.grid[2] = ny;
    od.grid_max[0] = L;
    od.grid_max[1] = od.grid_max[2] = H;
    od.total_mass = rho * L * H * H;
    od.solver.rayleigh_mass = 0.5;
    od.solver.rayleigh_stiffness = 0.01;
    od.solver.cg_threshold = 0;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    pf_hexa_fem_def fd = pf_hexa_fem_default_def();
    fd.young_modulus = E;
    fd.poisson_ratio = 0.3;
    fd.method = PF_FEM_LARGE;
    ck_assert_int_eq(pf_world_add_hexa_fem(w, id, &fd, NULL), PF_OK);
    double box[6] = {-1e-9, -1, -1, 1e-9, 1, 1};
    ck_assert_int_eq(pf_world_fix_box(w, id, box, NULL), PF_OK);
    double lowest = 0;
    for (int s = 0; s < 30; s++) {
        ck_assert_int_eq(pf_world_step(w, 10), PF_OK);
        uint32_t n;
        const double *x = pf_world_positions(w, id, &n);
        /* centre line: the points (i, 1, 1) */
        double len = 0;
        for (int i = 0; i + 1 < nx; i++) {
            const double *a = x + 3 * (i + nx * (1 + ny * 1)), *b = x + 3 * (i + 1 + nx * (1 + ny * 1));
            len += sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
        }
        ck_assert_msg(len > 0.9 * L && len < 1.15 * L, "centre line length %g m after %d steps", len, 10 * (s + 1));
        const double *tip = x + 3 * ((nx - 1) + nx * (1 + ny * 1));
        if (tip[2] - H / 2 < lowest) lowest = tip[2] - H / 2;
    }
    ck_assert_msg(lowest < -0.5 * L, "the tip only went down to %g m: no large rotation", lowest);
    pf_world_destroy(w);
}
END_TEST

/* ---------- mass-spring oscillator: T = 2 pi sqrt(m / k) ---------- */

static double oscillator_period(pf_solver_kind kind, double dt, int steps)
{
    const double g[3] = {0, 0, 0}, m = 0.5, k = 200.0, l0 = 1.0, stretch = 0.1;
    pf_world *w = make_world(dt, g);
    double pos[6] = {0, 0, 0, l0 + stretch, 0, 0};
    pf_object_def od = pf_object_default_def();
    od.points = 2;
    od.positions = pos;
    od.vertex_mass = m;
    od.solver.kind = kind;
    od.solver.cg_iterations = 50;
    od.solver.cg_tolerance = 1e-14;
    od.solver.cg_threshold = 0;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    pf_spring s = {0, 1, k, 0, l0};
    ck_assert_int_eq(pf_world_add_springs(w, id, &s, 1, NULL), PF_OK);
    uint32_t fixed = 0;
    ck_assert_int_eq(pf_world_fix_points(w, id, &fixed, 1), PF_OK);
    /* times of downward crossings of the rest length, linearly interpolated */
    double prev = stretch, first = -1, last = -1;
    int crossings = 0;
    for (int i = 1; i <= steps; i++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        double u = pf_world_positions(w, id, NULL)[3] - l0;
        if (prev > 0 && u <= 0) {
            double t = (i - 1 + prev / (prev - u)) * dt;
            if (first < 0) first = t;
            last = t;
            crossings++;
        }
        prev = u;
    }
    pf_world_destroy(w);
    ck_assert_int_ge(crossings, 3);
    return (last - first) / (crossings - 1);
}

START_TEST(test_oscillator_period)
{
    double T = 2 * M_PI * sqrt(0.5 / 200.0);
    double te = oscillator_period(PF_SOLVER_EXPLICIT_EULER, T / 1000, 10000);
    ck_assert_msg(fabs(te - T) <= 1e-3 * T, "symplectic Euler period %g s, analytic %g s", te, T);
    /* implicit Euler lengthens the period by O((omega h)^2): with 200 steps per period, well under 1% */
    double ti = oscillator_period(PF_SOLVER_IMPLICIT_EULER, T / 200, 2000);
    ck_assert_msg(fabs(ti - T) <= 1e-2 * T, "implicit Euler period %g s, analytic %g s", ti, T);
}
END_TEST

/* ---------- symplectic Euler energy on a spring grid ---------- */

typedef struct grid_springs {
    pf_spring *s;
    uint32_t n;
} grid_springs;

/* The test's own spring list: grid lines and face diagonals of an nx x ny sheet, rest = spacing. */
static grid_springs sheet_springs(int nx, int ny, double h, double k)
{
    grid_springs gs = {malloc((size_t)nx * ny * 4 * sizeof(pf_spring)), 0};
    static const int off[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            for (int t = 0; t < 4; t++) {
                int a = i + off[t][0], b = j + off[t][1];
                if (a >= nx || b < 0 || b >= ny) continue;
                gs.s[gs.n++] = (pf_spring){(uint32_t)(i + nx * j), (uint32_t)(a + nx * b), k, 0,
                                           h * sqrt((double)(off[t][0] * off[t][0] + off[t][1] * off[t][1]))};
            }
    return gs;
}

static double energy(const pf_world *w, const grid_springs *gs, double m, const double g[3])
{
    uint32_t n;
    const double *x = pf_world_positions(w, (pf_object_id){0}, &n),
                 *v = pf_world_velocities(w, (pf_object_id){0}, NULL);
    double e = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double *p = x + 3 * i, *u = v + 3 * i;
        e += 0.5 * m * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) - m * (g[0] * p[0] + g[1] * p[1] + g[2] * p[2]);
    }
    for (uint32_t k = 0; k < gs->n; k++) {
        const double *a = x + 3 * gs->s[k].a, *b = x + 3 * gs->s[k].b;
        double l = sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
        e += 0.5 * gs->s[k].stiffness * (l - gs->s[k].rest_length) * (l - gs->s[k].rest_length);
    }
    return e;
}

START_TEST(test_symplectic_energy_drift)
{
    const double g[3] = {0, 0, -9.81}, h = 0.1, m = 0.01, k = 100;
    const int nx = 12, ny = 12;
    pf_world *w = make_world(1e-3, g);
    pf_object_def od = pf_object_default_def();
    od.grid[0] = nx;
    od.grid[1] = ny;
    od.grid[2] = 1;
    od.grid_max[0] = (nx - 1) * h;
    od.grid_max[1] = (ny - 1) * h;
    od.vertex_mass = m;
    od.solver.kind = PF_SOLVER_EXPLICIT_EULER;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    grid_springs gs = sheet_springs(nx, ny, h, k);
    ck_assert_int_eq(pf_world_add_springs(w, id, gs.s, gs.n, NULL), PF_OK);
    uint32_t corners[2] = {0, (uint32_t)(nx - 1)};
    ck_assert_int_eq(pf_world_fix_points(w, id, corners, 2), PF_OK);
    double e0 = energy(w, &gs, m, g), scale = 0;
    /* the energy that moves around: the sheet falls and swings, trading potential for kinetic energy */
    double emin = e0, emax = e0;
    for (int s = 0; s < 100; s++) {
        ck_assert_int_eq(pf_world_step(w, 100), PF_OK);
        double e = energy(w, &gs, m, g);
        if (e < emin) emin = e;
        if (e > emax) emax = e;
        uint32_t n;
        const double *v = pf_world_velocities(w, id, &n);
        double ke = 0;
        for (uint32_t i = 0; i < 3 * n; i++) ke += 0.5 * m * v[i] * v[i];
        if (ke > scale) scale = ke;
    }
    ck_assert_msg(scale > 0.1, "the sheet barely moved (kinetic energy %g J)", scale);
    ck_assert_msg(emax - emin <= 0.02 * scale, "energy wandered over %g J (peak kinetic %g J) in 10000 steps",
                  emax - emin, scale);
    free(gs.s);
    pf_world_destroy(w);
}
END_TEST

/* ---------- the task-graph CG against a dense direct solve ---------- */

/* Gaussian elimination with partial pivoting, in place; solution in b. */
static void dense_solve(double *A, double *b, int n)
{
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(A[r * n + c]) > fabs(A[piv * n + c])) piv = r;
        for (int k = 0; k < n; k++) {
            double t = A[c * n + k];
            A[c * n + k] = A[piv * n + k];
            A[piv * n + k] = t;
        }
        double t = b[c];
        b[c] = b[piv];
        b[piv] = t;
        for (int r = c + 1; r < n; r++) {
            double f = A[r * n + c] / A[c * n + c];
            for (int k = c; k < n; k++) A[r * n + k] -= f * A[c * n + k];
            b[r] -= f * b[c];
        }
    }
    for (int r = n - 1; r >= 0; r--) {
        for (int k = r + 1; k < n; k++) b[r] -= A[r * n + k] * b[k];
        b[r] /= A[r * n + r];
    }
}

START_TEST(test_cg_equals_dense_solve)
{
    const double g[3] = {0.5, -1.0, -9.81}, dt = 0.02, m = 0.3, rm = 0.2, rk = 0.05, k = 500;
    const int np = 9;
    double pos[27], vel[27];
    /* a 3x3 patch, irregularly stretched so every spring has its own direction and tension */
    for (int i = 0; i < np; i++) {
        pos[3 * i] = (i % 3) * 1.1 + 0.03 * (i * 7 % 5);
        pos[3 * i + 1] = (i / 3) * 1.2 - 0.02 * (i * 3 % 4);
        pos[3 * i + 2] = 0.05 * (i % 2);
        for (int d = 0; d < 3; d++) vel[3 * i + d] = 0.1 * sin(3.0 * i + d);
    }
    pf_spring sp[16];
    uint32_t ns = 0;
    for (int i = 0; i < np; i++) {
        if (i % 3 < 2) sp[ns++] = (pf_spring){(uint32_t)i, (uint32_t)(i + 1), k, 0, 1.0};
        if (i / 3 < 2) sp[ns++] = (pf_spring){(uint32_t)i, (uint32_t)(i + 3), k * 1.3, 0, 1.0};
    }
    pf_world *w = make_world(dt, g);
    pf_object_def od = pf_object_default_def();
    od.points = np;
    od.positions = pos;
    od.velocities = vel;
    od.vertex_mass = m;
    od.solver.rayleigh_mass = rm;
    od.solver.rayleigh_stiffness = rk;
    od.solver.cg_iterations = 500;
    od.solver.cg_tolerance = 1e-15;
    od.solver.cg_threshold = 0;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    ck_assert_int_eq(pf_world_add_springs(w, id, sp, ns, NULL), PF_OK);
    uint32_t fixed = 4;
    ck_assert_int_eq(pf_world_fix_points(w, id, &fixed, 1), PF_OK);
    vel[12] = vel[13] = vel[14] = 0; /* fixing a point stops it */
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);

    /* the oracle: assemble A = M (1 + h rM) - h (h + rK) K and b = h (f - rM M v + (h + rK) K v) densely, with
     * the spring Jacobian K_ab = k ((1 - l0/l)(I - u u^T) + u u^T) written from the textbook formula */
    const int n = 3 * np;
    double *A = calloc((size_t)n * n, sizeof *A), *K = calloc((size_t)n * n, sizeof *K), b[27] = {0}, f[27];
    for (int i = 0; i < n; i++) f[i] = m * g[i % 3];
    for (uint32_t s = 0; s < ns; s++) {
        int a = (int)sp[s].a, c = (int)sp[s].b;
        double d[3], l = 0;
        for (int q = 0; q < 3; q++) {
            d[q] = pos[3 * c + q] - pos[3 * a + q];
            l += d[q] * d[q];
        }
        l = sqrt(l);
        ck_assert(l > sp[s].rest_length); /* all stretched: the compression clamp plays no part */
        for (int q = 0; q < 3; q++) {
            f[3 * a + q] += sp[s].stiffness * (l - sp[s].rest_length) * d[q] / l;
            f[3 * c + q] -= sp[s].stiffness * (l - sp[s].rest_length) * d[q] / l;
        }
        for (int r = 0; r < 3; r++)
            for (int q = 0; q < 3; q++) {
                double uu = d[r] * d[q] / (l * l);
                double J = sp[s].stiffness * ((1 - sp[s].rest_length / l) * ((r == q) - uu) + uu);
                K[(3 * a + r) * n + 3 * c + q] += J;
                K[(3 * c + r) * n + 3 * a + q] += J;
                K[(3 * a + r) * n + 3 * a + q] -= J;
                K[(3 * c + r) * n + 3 * c + q] -= J;
            }
    }
    for (int r = 0; r < n; r++) {
        double kv = 0;
        for (int q = 0; q < n; q++) {
            A[r * n + q] = -dt * (dt + rk) * K[r * n + q] + (r == q ? m * (1 + dt * rm) : 0);
            kv += K[r * n + q] * vel[q];
        }
        b[r] = dt * (f[r] - rm * m * vel[r] + (dt + rk) * kv);
    }
    for (int q = 0; q < 3; q++) { /* the fixed point: dv = 0 */
        int r = 3 * (int)fixed + q;
        for (int c = 0; c < n; c++) A[r * n + c] = A[c * n + r] = 0;
        A[r * n + r] = 1;
        b[r] = 0;
    }
    dense_solve(A, b, n);
    const double *v1 = pf_world_velocities(w, id, NULL);
    double err = 0, norm = 0;
    for (int i = 0; i < n; i++) {
        err = fmax(err, fabs(v1[i] - (vel[i] + b[i])));
        norm = fmax(norm, fabs(b[i]));
    }
    ck_assert_msg(err <= 1e-9 * norm, "CG dv differs from the dense solve by %g (|dv| %g)", err, norm);
    pf_world_stats st;
    ck_assert_int_eq(pf_world_get_stats(w, &st), PF_OK);
    ck_assert_uint_lt(st.cg_iterations, 500); /* it converged, it did not run out of iterations */
    free(A);
    free(K);
    pf_world_destroy(w);
}
END_TEST

/* ---------- fixed points, recording, arguments ---------- */

START_TEST(test_fixed_points_stay)
{
    const double g[3] = {0, -3, -9.81};
    pf_world *w = make_world(0.01, g);
    pf_object_def od = pf_object_default_def();
    od.grid[0] = 6;
    od.grid[1] = od.grid[2] = 3;
    od.grid_max[0] = 0.5;
    od.grid_max[1] = od.grid_max[2] = 0.2;
    od.total_mass = 2;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    pf_hexa_fem_def fd = pf_hexa_fem_default_def();
    fd.young_modulus = 1e4;
    ck_assert_int_eq(pf_world_add_hexa_fem(w, id, &fd, NULL), PF_OK);
    double box[6] = {0.39, -1, -1, 1, 1, 1};
    uint32_t sel[64], count;
    ck_assert_int_eq(pf_world_box_select(w, id, box, sel, 64, &count), PF_OK);
    ck_assert_uint_eq(count, 18); /* the last two layers of 3 x 3 points (x = 0.4, 0.5) */
    for (uint32_t k = 0; k < count; k++) ck_assert_uint_ge(sel[k] % 6, 4);
    ck_assert_int_eq(pf_world_fix_points(w, id, sel, count), PF_OK);
    double before[54];
    uint32_t n;
    const double *x = pf_world_positions(w, id, &n);
    for (uint32_t k = 0; k < count; k++) memcpy(before + 3 * k, x + 3 * sel[k], 3 * sizeof(double));
    ck_assert_int_eq(pf_world_step(w, 50), PF_OK);
    x = pf_world_positions(w, id, &n);
    const double *v = pf_world_velocities(w, id, NULL);
    for (uint32_t k = 0; k < count; k++) {
        ck_assert_mem_eq(before + 3 * k, x + 3 * sel[k], 3 * sizeof(double));
        ck_assert(v[3 * sel[k]] == 0 && v[3 * sel[k] + 1] == 0 && v[3 * sel[k] + 2] == 0);
    }
    ck_assert(x[2] < -1e-3); /* a free point fell */
    pf_world_stats st;
    pf_world_get_stats(w, &st);
    ck_assert_uint_eq(st.records, 1); /* 50 steps, one recording */
    uint32_t one = 0;
    ck_assert_int_eq(pf_world_fix_points(w, id, &one, 1), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 2), PF_OK);
    pf_world_get_stats(w, &st);
    ck_assert_uint_eq(st.records, 2); /* a structural change re-records once */
    ck_assert_uint_eq(st.steps, 52);
    pf_world_destroy(w);
}
END_TEST

START_TEST(test_invalid_arguments)
{
    const double g[3] = {0, 0, -9.81};
    pf_world_def d = pf_world_default_def();
    pf_world *w = NULL;
    d.dt = 0;
    ck_assert_int_eq(pf_world_create(&d, &w), PF_EINVAL);
    ck_assert_ptr_null(w);
    w = make_world(0.01, g);
    pf_object_def od = pf_object_default_def();
    ck_assert_int_eq(pf_world_add_object(w, &od, NULL), PF_EINVAL); /* no points */
    od.points = 4;
    od.vertex_mass = -1;
    ck_assert_int_eq(pf_world_add_object(w, &od, NULL), PF_EINVAL);
    od.vertex_mass = 1;
    od.solver.cg_iterations = 0;
    ck_assert_int_eq(pf_world_add_object(w, &od, NULL), PF_EINVAL);
    od.solver.cg_iterations = 25;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    pf_spring bad = {0, 4, 1, 0, -1};
    ck_assert_int_eq(pf_world_add_springs(w, id, &bad, 1, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_add_springs(w, (pf_object_id){id.index + 1}, &bad, 1, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_add_interaction_springs(w, id, id, &bad, 1, NULL), PF_EINVAL);
    pf_hexa_fem_def fd = pf_hexa_fem_default_def();
    ck_assert_int_eq(pf_world_add_hexa_fem(w, id, &fd, NULL), PF_EINVAL); /* not a grid */
    ck_assert_int_eq(pf_world_add_grid_springs(w, id, 1, 0, NULL, NULL), PF_EINVAL);
    fd.poisson_ratio = 0.5;
    ck_assert_int_eq(pf_world_add_hexa_fem(w, id, &fd, NULL), PF_EINVAL);
    uint32_t far = 7;
    ck_assert_int_eq(pf_world_fix_points(w, id, &far, 1), PF_EINVAL);
    ck_assert_int_eq(pf_world_step(NULL, 1), PF_EINVAL);
    ck_assert_ptr_null(pf_world_positions(w, (pf_object_id){9}, NULL));
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics");
    TCase *tc = tcase_create("models");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_cantilever_linear);
    tcase_add_test(tc, test_cantilever_large_small_load);
    tcase_add_test(tc, test_corotational_large_rotation);
    tcase_add_test(tc, test_oscillator_period);
    tcase_add_test(tc, test_symplectic_energy_drift);
    tcase_add_test(tc, test_cg_equals_dense_solve);
    tcase_add_test(tc, test_fixed_points_stay);
    tcase_add_test(tc, test_invalid_arguments);
    suite_add_tcase(s, tc);
    return s;
}
