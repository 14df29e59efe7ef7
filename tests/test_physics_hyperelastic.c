/* Hyperelastic tetrahedra (physics/fem_hyperelastic.c, scenes/component_hyperelastic.c), per material: the
 * force against a central difference of the strain energy written here from its textbook formula, the
 * stiffness against a central difference of the force, the rest stiffness against the linear tetrahedron's
 * with the same small-strain moduli, a uniaxially stretched cube against the closed-form first
 * Piola-Kirchhoff stress, rigid motions force-free; bars under gravity bitwise the same on every executor and
 * 1-3 workers, whole or cut into blocks, CG against the direct solver; scene files
 * (TetrahedronHyperelasticityFEMForceField, StandardTetrahedralFEMForceField, HyperelasticityFEMForceField
 * with its material component) against the API, and their errors. */
#include "check_main.h"
#include "point_object.h"
#include "rodrigues.h"
#include "scene_files.h"
#include "tetra_grid.h"
#include "world_fixture.h"

#include "physflow/physics.h"
#include "physflow/scene.h"
#include "physics/decompose.h"
#include "physics/force_field.h"
#include "physics/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pf_world *make_world(int workers, pf_executor e, double gz)
{
    return new_world_dg(e, workers, pf_world_default_def().dt, (const double[3]){0, 0, gz});
}

/* the materials with parameters of about E = 1e4 Pa, nu = 0.3 (mu 3846, lambda 5769, bulk 8333) */
#define NMAT 5
static const pf_hyperelastic_material MATS[NMAT] = {PF_HYPER_ST_VENANT_KIRCHHOFF, PF_HYPER_NEO_HOOKEAN,
                                                    PF_HYPER_MOONEY_RIVLIN, PF_HYPER_ARRUDA_BOYCE,
                                                    PF_HYPER_OGDEN};
static const double PARAMS[NMAT][3] = {
    {3846, 5769}, {3846, 5769}, {1200, 700, 8333}, {3000, 8333}, {7692, 3, 8333}};
static const char *const NAMES[NMAT] = {"StVenantKirchhoff", "NeoHookean", "MooneyRivlin", "ArrudaBoyce",
                                        "Ogden"};

static void add_hyper(pf_world *w, pf_object_id id, const uint32_t *t, uint32_t nt,
                      pf_hyperelastic_material m, const double *p)
{
    pf_hyperelastic_def d = pf_hyperelastic_default_def();
    d.material = m;
    d.nparameters = (uint32_t)pf_hyperelastic_parameter_count(m);
    memcpy(d.parameters, p, d.nparameters * sizeof *p);
    d.tetrahedra = t;
    d.ntetrahedra = nt;
    ck_assert_msg(pf_world_add_hyperelastic_fem(w, id, &d, NULL) == PF_OK, "%s", pf_last_error());
}

static double max_abs(const double *v, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(v[i]));
    return m;
}

/* ---- the oracle: strain energies from their formulas ---- */

/* ArrudaBoyce's series for a chain of N = 8 links (Arruda & Boyce 1993, as SOFA's BoyceAndArruda.h) */
static double arruda_boyce_coef(int i)
{
    const double N = 8;
    const double c[5] = {0.5, 1 / (20 * N), 11 / (1050 * N * N), 19 / (7000 * N * N * N),
                         519 / (673750 * N * N * N * N)};
    return c[i - 1];
}

/* the eigenvalues of the symmetric C (row-major), by the trigonometric formula (Smith 1961) */
static void sym_eigenvalues(const double C[9], double ev[3])
{
    double p1 = C[1] * C[1] + C[2] * C[2] + C[5] * C[5], q = (C[0] + C[4] + C[8]) / 3;
    double p2 = (C[0] - q) * (C[0] - q) + (C[4] - q) * (C[4] - q) + (C[8] - q) * (C[8] - q) + 2 * p1;
    if (!(p2 > 0)) { /* a multiple of I */
        ev[0] = ev[1] = ev[2] = q;
        return;
    }
    double p = sqrt(p2 / 6), B[9];
    for (int k = 0; k < 9; k++)
        B[k] = (C[k] - (k % 4 == 0) * q) / p;
    double r = (B[0] * (B[4] * B[8] - B[5] * B[7]) - B[1] * (B[3] * B[8] - B[5] * B[6]) +
                B[2] * (B[3] * B[7] - B[4] * B[6])) /
               2;
    double phi = r <= -1 ? M_PI / 3 : r >= 1 ? 0 : acos(r) / 3;
    ev[0] = q + 2 * p * cos(phi);
    ev[2] = q + 2 * p * cos(phi + 2 * M_PI / 3);
    ev[1] = 3 * q - ev[0] - ev[2];
}

/* W(F) of material m, per unit rest volume */
static double energy_density(int m, const double *p, const double F[9])
{
    double C[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[3 * i + j] = F[i] * F[j] + F[3 + i] * F[3 + j] + F[6 + i] * F[6 + j];
    double J = F[0] * (F[4] * F[8] - F[5] * F[7]) - F[1] * (F[3] * F[8] - F[5] * F[6]) +
               F[2] * (F[3] * F[7] - F[4] * F[6]);
    double I1 = C[0] + C[4] + C[8], CC = 0;
    for (int k = 0; k < 9; k++)
        CC += C[k] * C[k];
    double I2 = 0.5 * (I1 * I1 - CC), L = log(J);
    switch (m) {
    case 0: { /* lambda/2 (tr E)^2 + mu E:E, E = (C - I)/2 */
        double trE = 0.5 * (I1 - 3), EE = 0;
        for (int k = 0; k < 9; k++) {
            double e = 0.5 * (C[k] - (k % 4 == 0));
            EE += e * e;
        }
        return 0.5 * p[1] * trE * trE + p[0] * EE;
    }
    case 1:
        return 0.5 * p[0] * (I1 - 3) - p[0] * L + 0.5 * p[1] * L * L;
    case 2:
        return p[0] * (pow(J, -2.0 / 3) * I1 - 3) + p[1] * (pow(J, -4.0 / 3) * I2 - 3) + 0.5 * p[2] * L * L;
    case 4: { /* mu / alpha^2 (J^(-alpha/3) sum lam_i^(alpha/2) - 3), lam the eigenvalues of C */
        double ev[3], tr = 0;
        sym_eigenvalues(C, ev);
        for (int i = 0; i < 3; i++)
            tr += pow(ev[i], p[1] / 2);
        return p[0] / (p[1] * p[1]) * (pow(J, -p[1] / 3) * tr - 3) + 0.5 * p[2] * L * L;
    }
    default: {
        double w = 0, b = pow(J, -2.0 / 3) * I1;
        for (int i = 1; i <= 5; i++)
            w += arruda_boyce_coef(i) * (pow(b, i) - pow(3, i));
        return p[0] * w + 0.5 * p[1] * L * L;
    }
    }
}

/* the energy of tetrahedra t at positions x, rest X: sum V W(F), F = Ds Dm^-1 */
static double total_energy(int m, const double *X, const double *x, const uint32_t *t, uint32_t nt)
{
    double e = 0;
    for (uint32_t k = 0; k < nt; k++) {
        const uint32_t *v = t + 4 * k;
        double Dm[9], Ds[9], Dmi[9], F[9];
        for (int c = 0; c < 3; c++)
            for (int d = 0; d < 3; d++) {
                Dm[3 * d + c] = X[3 * v[c + 1] + d] - X[3 * v[0] + d];
                Ds[3 * d + c] = x[3 * v[c + 1] + d] - x[3 * v[0] + d];
            }
        /* Dm^-1 by cofactors */
        double det = Dm[0] * (Dm[4] * Dm[8] - Dm[5] * Dm[7]) - Dm[1] * (Dm[3] * Dm[8] - Dm[5] * Dm[6]) +
                     Dm[2] * (Dm[3] * Dm[7] - Dm[4] * Dm[6]);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
                Dmi[3 * i + j] =
                    (Dm[3 * r0 + c0] * Dm[3 * r1 + c1] - Dm[3 * r0 + c1] * Dm[3 * r1 + c0]) / det;
            }
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                F[3 * i + j] = Ds[3 * i] * Dmi[j] + Ds[3 * i + 1] * Dmi[3 + j] + Ds[3 * i + 2] * Dmi[6 + j];
        e += fabs(det) / 6 * energy_density(m, PARAMS[m], F);
    }
    return e;
}

/* a skewed tetrahedron given in the negative orientation, and a deformed state of it (stretch, shear, some
 * compression: F far from a rotation) */
static const double TX[12] = {0.1, -0.2, 0.05, 0.3, 1.1, 0.2, 1.2, 0.1, -0.1, 0.4, 0.3, 0.9};
static const double TXD[12] = {0.12, -0.25, 0.0, 0.38, 1.3, 0.31, 1.05, 0.2, -0.12, 0.5, 0.22, 1.15};
static const uint32_t T1[4] = {0, 1, 2, 3};

START_TEST(test_force_is_minus_energy_gradient)
{
    for (int m = 0; m < NMAT; m++) {
        pf_world *w = make_world(1, PF_EXEC_SEQ, 0);
        pf_object_id id = add_point_object(w, TX, 4, 1.0);
        add_hyper(w, id, T1, 1, MATS[m], PARAMS[m]);
        double f[12], x[12];
        force_at(w, id, TXD, f);
        double scale = max_abs(f, 12);
        ck_assert_msg(scale > 100, "%s: force %g", NAMES[m], scale);
        const double h = 1e-6;
        for (int j = 0; j < 12; j++) {
            memcpy(x, TXD, sizeof x);
            x[j] += h;
            double ep = total_energy(m, TX, x, T1, 1);
            x[j] -= 2 * h;
            double em = total_energy(m, TX, x, T1, 1);
            double g = (ep - em) / (2 * h);
            ck_assert_msg(fabs(f[j] + g) <= 1e-6 * scale, "%s: f[%d] = %.12g, -dE/dx = %.12g", NAMES[m], j,
                          f[j], -g);
        }
        /* at rest: no energy, no force */
        force_at(w, id, TX, f);
        ck_assert_msg(max_abs(f, 12) <= 1e-10 * scale, "%s: force at rest %g", NAMES[m], max_abs(f, 12));
        ck_assert(fabs(total_energy(m, TX, TX, T1, 1)) <= 1e-12 * scale);
        pf_world_destroy(w);
    }
}
END_TEST

/* K dx (dforce after a force evaluation at TXD) against -(f(x + h dx) - f(x - h dx)) / 2h, and the direct
 * solver's blocks against dforce */
START_TEST(test_stiffness_is_force_derivative)
{
    static const double dx[12] = {0.3, -0.1, 0.2, -0.4, 0.5, 0.1, 0.2, 0.2, -0.3, -0.1, -0.6, 0.4};
    for (int m = 0; m < NMAT; m++) {
        pf_world *w = make_world(1, PF_EXEC_SEQ, 0);
        pf_object_id id = add_point_object(w, TX, 4, 1.0);
        add_hyper(w, id, T1, 1, MATS[m], PARAMS[m]);
        double fp[12], fm[12], x[12], df[12];
        const double h = 1e-6;
        for (int i = 0; i < 12; i++)
            x[i] = TXD[i] + h * dx[i];
        force_at(w, id, x, fp);
        for (int i = 0; i < 12; i++)
            x[i] = TXD[i] - h * dx[i];
        force_at(w, id, x, fm);
        force_at(w, id, TXD, x); /* the stiffness at TXD */
        dforce_of(w, id, dx, df);
        double scale = max_abs(df, 12);
        ck_assert(scale > 100);
        for (int i = 0; i < 12; i++) {
            double fd = (fp[i] - fm[i]) / (2 * h);
            ck_assert_msg(fabs(df[i] - fd) <= 1e-6 * scale, "%s: (K dx)[%d] = %.12g, difference %.12g",
                          NAMES[m], i, df[i], fd);
        }
        pf_world_destroy(w);
    }
}
END_TEST

/* linear tetrahedra with E, nu: df of dx at rest */
static void linear_df(const double *X, uint32_t n, const uint32_t *t, uint32_t nt, double E, double nu,
                      const double *x, double *f, const double *dx, double *df)
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, 0);
    pf_object_id id = add_point_object(w, X, n, 1.0);
    pf_tetra_fem_def d = pf_tetra_fem_default_def();
    d.young_modulus = E;
    d.poisson_ratio = nu;
    d.method = PF_FEM_LINEAR;
    d.tetrahedra = t;
    d.ntetrahedra = nt;
    ck_assert_int_eq(pf_world_add_tetra_fem(w, id, &d, NULL), PF_OK);
    force_at(w, id, x, f);
    dforce_of(w, id, dx, df);
    pf_world_destroy(w);
}

/* At rest every material is linear elasticity with its small-strain moduli: shear mu and bulk kappa =
 * lambda + 2 mu / 3 (StVK and NeoHookean: mu, lambda; MooneyRivlin: mu = 2 (c1 + c2), kappa = k0;
 * ArrudaBoyce: mu = 2 mu_AB sum_i i c_i 3^(i-1), kappa = k0; Ogden: mu/2, k0): the same stiffness as the
 * linear tetrahedron of E = 9 kappa mu / (3 kappa + mu), nu = (3 kappa - 2 mu) / (2 (3 kappa + mu)); forces
 * the same to first order (the difference shrinks 4 times when the displacement halves). */
START_TEST(test_small_strain_is_linear)
{
    double X[27 * 3];
    uint32_t t[48 * 4];
    for (int k = 0, p = 0; k < 3; k++)
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 3; i++, p++)
                X[3 * p] = 0.5 * i, X[3 * p + 1] = 0.5 * j, X[3 * p + 2] = 0.5 * k;
    uint32_t nt = kuhn_tetrahedra(3, 3, 3, t);
    double dir[81], zero[81] = {0};
    for (int i = 0; i < 81; i++)
        dir[i] = sin(1.7 * i + 0.3); /* a displacement that is no rigid motion */
    for (int m = 0; m < NMAT; m++) {
        const double *p = PARAMS[m];
        double mu, kappa;
        if (m < 2) {
            mu = p[0], kappa = p[1] + 2 * p[0] / 3;
        } else if (m == 2) {
            mu = 2 * (p[0] + p[1]), kappa = p[2];
        } else if (m == 4) { /* W_iso ~ mu/2 sum e_i^2 over the logarithmic strains e_i */
            mu = p[0] / 2, kappa = p[2];
        } else {
            double s = 0;
            for (int i = 1; i <= 5; i++)
                s += i * arruda_boyce_coef(i) * pow(3, i - 1);
            mu = 2 * p[0] * s, kappa = p[1];
        }
        double E = 9 * kappa * mu / (3 * kappa + mu), nu = (3 * kappa - 2 * mu) / (2 * (3 * kappa + mu));
        double fl[81], dfl[81], fh[81], dfh[81];
        linear_df(X, 27, t, nt, E, nu, X, fl, dir, dfl);
        pf_world *w = make_world(1, PF_EXEC_SEQ, 0);
        pf_object_id id = add_point_object(w, X, 27, 1.0);
        add_hyper(w, id, t, nt, MATS[m], p);
        force_at(w, id, X, fh);
        dforce_of(w, id, dir, dfh);
        double scale = max_abs(dfl, 81);
        for (int i = 0; i < 81; i++)
            ck_assert_msg(fabs(dfh[i] - dfl[i]) <= 1e-9 * scale, "%s: rest (K dx)[%d] %.15g, linear %.15g",
                          NAMES[m], i, dfh[i], dfl[i]);
        double diff[2];
        for (int s = 0; s < 2; s++) {
            double eps = s ? 5e-4 : 1e-3, x[81];
            for (int i = 0; i < 81; i++)
                x[i] = X[i] + eps * dir[i];
            double dl[81];
            linear_df(X, 27, t, nt, E, nu, x, fl, zero, dl);
            force_at(w, id, x, fh);
            diff[s] = 0;
            for (int i = 0; i < 81; i++)
                diff[s] = fmax(diff[s], fabs(fh[i] - fl[i]));
            ck_assert_msg(diff[s] <= 0.01 * max_abs(fl, 81), "%s: eps %g: |f - f_linear| %g against |f| %g",
                          NAMES[m], eps, diff[s], max_abs(fl, 81));
        }
        ck_assert_msg(diff[1] > 0.2 * diff[0] && diff[1] < 0.3 * diff[0], "%s: differences %g then %g",
                      NAMES[m], diff[0], diff[1]);
        pf_world_destroy(w);
    }
}
END_TEST

/* P11 of the uniaxial strain F = diag(s, 1, 1), from S = 2 dW/dC worked out by hand per material
 * (C = diag(s^2, 1, 1), J = s, I1 = s^2 + 2, I2 = 2 s^2 + 1, C^-1_11 = 1 / s^2); and P22 = S22 */
static void uniaxial_stress(int m, double s, double *P11, double *P22)
{
    const double *p = PARAMS[m];
    double I1 = s * s + 2, I2 = 2 * s * s + 1, L = log(s), S11, S22;
    switch (m) {
    case 0:
        S11 = (p[1] / 2 + p[0]) * (s * s - 1);
        S22 = p[1] / 2 * (s * s - 1);
        break;
    case 1:
        S11 = p[0] + (p[1] * L - p[0]) / (s * s);
        S22 = p[1] * L;
        break;
    case 2:
        S11 = 2 * p[0] * pow(s, -2.0 / 3) * (1 - I1 / (3 * s * s)) +
              2 * p[1] * pow(s, -4.0 / 3) * (I1 - s * s - 2 * I2 / (3 * s * s)) + p[2] * L / (s * s);
        S22 = 2 * p[0] * pow(s, -2.0 / 3) * (1 - I1 / 3) +
              2 * p[1] * pow(s, -4.0 / 3) * (I1 - 1 - 2 * I2 / 3) + p[2] * L;
        break;
    case 4: { /* C^(alpha/2 - 1) = diag(s^(alpha - 2), 1, 1), tr C^(alpha/2) = s^alpha + 2 */
        double a = p[1], fj = pow(s, -a / 3), tr = pow(s, a) + 2;
        S11 = p[0] / a * fj * (pow(s, a - 2) - tr / (3 * s * s)) + p[2] * L / (s * s);
        S22 = p[0] / a * fj * (1 - tr / 3) + p[2] * L;
        break;
    }
    default: {
        double b = pow(s, -2.0 / 3) * I1, dW = 0;
        for (int i = 1; i <= 5; i++)
            dW += i * arruda_boyce_coef(i) * pow(b, i - 1);
        S11 = 2 * p[0] * dW * pow(s, -2.0 / 3) * (1 - I1 / (3 * s * s)) + p[1] * L / (s * s);
        S22 = 2 * p[0] * dW * pow(s, -2.0 / 3) * (1 - I1 / 3) + p[1] * L;
    }
    }
    *P11 = s * S11;
    *P22 = S22;
}

/* a unit cube of 8 points and 6 tetrahedra stretched (s 1.2) and compressed (s 0.8) along x, lateral sides
 * held: the forces on the face x = 1 sum to -P e_x (the shape functions of its corners sum to X), on y = 1 to
 * -P e_y */
START_TEST(test_uniaxial_closed_form)
{
    double X[24];
    uint32_t t[24];
    for (int p = 0; p < 8; p++)
        X[3 * p] = p & 1, X[3 * p + 1] = p >> 1 & 1, X[3 * p + 2] = p >> 2 & 1;
    uint32_t nt = kuhn_tetrahedra(2, 2, 2, t);
    for (int m = 0; m < NMAT; m++)
        for (int k = 0; k < 2; k++) {
            double s = k ? 0.8 : 1.2, x[24], f[24], P11, P22;
            memcpy(x, X, sizeof x);
            for (int p = 0; p < 8; p++)
                x[3 * p] *= s;
            pf_world *w = make_world(1, PF_EXEC_SEQ, 0);
            pf_object_id id = add_point_object(w, X, 8, 1.0);
            add_hyper(w, id, t, nt, MATS[m], PARAMS[m]);
            force_at(w, id, x, f);
            uniaxial_stress(m, s, &P11, &P22);
            double fx[3] = {0}, fy[3] = {0};
            for (int p = 0; p < 8; p++)
                for (int d = 0; d < 3; d++) {
                    if (p & 1) fx[d] += f[3 * p + d];
                    if (p & 2) fy[d] += f[3 * p + d];
                }
            double tol = 1e-10 * fabs(P11);
            ck_assert_msg(fabs(fx[0] + P11) <= tol, "%s, s %g: face x force %.15g, -P11 %.15g", NAMES[m], s,
                          fx[0], -P11);
            ck_assert_msg(fabs(fy[1] + P22) <= tol, "%s, s %g: face y force %.15g, -P22 %.15g", NAMES[m], s,
                          fy[1], -P22);
            ck_assert(fabs(fx[1]) <= tol && fabs(fx[2]) <= tol && fabs(fy[0]) <= tol && fabs(fy[2]) <= tol);
            ck_assert_msg((P11 > 0) == (s > 1), "%s: P11 %g at s %g", NAMES[m], P11, s);
            pf_world_destroy(w);
        }
}
END_TEST

/* x = Q X + c (a finite rotation and a shift) over a deformed state: the forces turn with the body; over the
 * rest shape they vanish */
START_TEST(test_rigid_motion)
{
    double Q[9];
    static const double axis[3] = {0.2672612419124244, 0.5345224838248488, 0.8017837257372732};
    rodrigues(axis, 1.3, Q);
    for (int m = 0; m < NMAT; m++) {
        pf_world *w = make_world(1, PF_EXEC_SEQ, 0);
        pf_object_id id = add_point_object(w, TX, 4, 1.0);
        add_hyper(w, id, T1, 1, MATS[m], PARAMS[m]);
        double x[12], f[12], fd[12], fr[12];
        force_at(w, id, TXD, fd);
        double scale = max_abs(fd, 12);
        for (int s = 0; s < 2; s++) {
            const double *base = s ? TXD : TX;
            for (int a = 0; a < 4; a++)
                for (int i = 0; i < 3; i++)
                    x[3 * a + i] = Q[3 * i] * base[3 * a] + Q[3 * i + 1] * base[3 * a + 1] +
                                   Q[3 * i + 2] * base[3 * a + 2] + (i + 1) * 0.7;
            force_at(w, id, x, f);
            for (int a = 0; a < 4; a++)
                for (int i = 0; i < 3; i++)
                    fr[3 * a + i] =
                        s ? Q[3 * i] * fd[3 * a] + Q[3 * i + 1] * fd[3 * a + 1] + Q[3 * i + 2] * fd[3 * a + 2]
                          : 0;
            for (int i = 0; i < 12; i++)
                ck_assert_msg(fabs(f[i] - fr[i]) <= 1e-9 * scale, "%s, %s: f[%d] = %g, expected %g", NAMES[m],
                              s ? "deformed" : "rest", i, f[i], fr[i]);
        }
        pf_world_destroy(w);
    }
}
END_TEST

/* Five bars of 7x3x3 points (one per material), fixed at x = 0, 20 implicit steps under gravity: the state
 * hash of seq with 1 worker is that of every executor with 1, 2 and 3 workers; the tips sag; the direct
 * solver ends where CG does. */
static uint64_t bars_hash(pf_executor e, int workers, pf_linear_solver ls, pf_decompose dec, double *tip_z)
{
    pf_world *w = make_world(workers, e, -9.81);
    double X[63 * 3];
    uint32_t t[6 * 2 * 2 * 6 * 4]; /* 6 x 2 x 2 cells of 6 tetrahedra */
    uint32_t nt = kuhn_tetrahedra(7, 3, 3, t);
    for (int m = 0; m < NMAT; m++) {
        for (int p = 0; p < 63; p++) {
            X[3 * p] = 0.1 * (p % 7);
            X[3 * p + 1] = 0.1 * (p / 7 % 3) + 0.5 * m;
            X[3 * p + 2] = 0.1 * (p / 21);
        }
        pf_object_def od = pf_object_default_def();
        od.points = 63;
        od.positions = X;
        od.total_mass = 20;
        od.solver.linear_solver = ls;
        od.solver.cg_iterations = 100;
        od.decompose = dec;
        od.block_elements = 24; /* 6 blocks a bar when cut */
        pf_object_id id;
        ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
        double p[3];
        for (int k = 0; k < 3; k++) /* E about 2e6 Pa (Ogden's alpha kept) */
            p[k] = (MATS[m] == PF_HYPER_OGDEN && k == 1 ? 1 : 200) * PARAMS[m][k];
        add_hyper(w, id, t, nt, MATS[m], p);
        uint32_t fixed[9], nf = 0;
        for (uint32_t q = 0; q < 63; q++)
            if (q % 7 == 0) fixed[nf++] = q;
        ck_assert_int_eq(pf_world_fix_points(w, id, fixed, nf), PF_OK);
    }
    ck_assert_msg(pf_world_step(w, 20) == PF_OK, "%s", pf_last_error());
    for (int m = 0; m < NMAT; m++) {
        const pf_decomp *dc = w->obj.v[m]->decomp; /* cut: 6 blocks of 24 tetrahedra */
        ck_assert_uint_eq(dc ? dc->nblocks : 0, dec == PF_DECOMPOSE_ON ? 6 : 0);
        uint32_t n;
        const double *x = pf_world_positions(w, (pf_object_id){(uint32_t)m}, &n);
        tip_z[m] = x[3 * 6 + 2];
    }
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(test_bars_deterministic)
{
    double ref_tip[NMAT], tip[NMAT];
    uint64_t ref = bars_hash(PF_EXEC_SEQ, 1, PF_LINEAR_CG, PF_DECOMPOSE_OFF, ref_tip);
    for (int m = 0; m < NMAT; m++) /* it sags, less than a free fall of 0.2 s would take it (0.196 m) */
        ck_assert_msg(ref_tip[m] < -1e-3 && ref_tip[m] > -0.19, "%s: tip at z = %g", NAMES[m], ref_tip[m]);
    for (int e = 0; e < PF_EXEC_COUNT; e++)
        for (int workers = 1; workers <= 3; workers++) {
            uint64_t h = bars_hash((pf_executor)e, workers, PF_LINEAR_CG, PF_DECOMPOSE_OFF, tip);
            ck_assert_msg(h == ref, "executor %d with %d workers: hash %016llx, seq %016llx", e, workers,
                          (unsigned long long)h, (unsigned long long)ref);
        }
    bars_hash(PF_EXEC_SEQ, 1, PF_LINEAR_DIRECT, PF_DECOMPOSE_OFF, tip);
    for (int m = 0; m < NMAT; m++)
        ck_assert_msg(fabs(tip[m] - ref_tip[m]) <= 1e-6 * fabs(ref_tip[m]), "%s: direct tip %.12g, CG %.12g",
                      NAMES[m], tip[m], ref_tip[m]);
}
END_TEST

/* the bars cut into blocks (Hermann et al. 2009 §4.3): the seq hash on the parallel executors with 2 and 3
 * workers, and the whole bars' tips to rounding */
START_TEST(test_bars_blocks)
{
    double ref_tip[NMAT], tip[NMAT];
    bars_hash(PF_EXEC_SEQ, 1, PF_LINEAR_CG, PF_DECOMPOSE_OFF, ref_tip);
    uint64_t bref = bars_hash(PF_EXEC_SEQ, 1, PF_LINEAR_CG, PF_DECOMPOSE_ON, tip);
    for (int m = 0; m < NMAT; m++)
        ck_assert_msg(fabs(tip[m] - ref_tip[m]) <= 1e-9 * fabs(ref_tip[m]),
                      "%s: blocks tip %.15g, whole %.15g", NAMES[m], tip[m], ref_tip[m]);
    static const struct {
        pf_executor e;
        int workers;
    } runs[] = {{PF_EXEC_STATIC, 2}, {PF_EXEC_STATIC, 3}, {PF_EXEC_BARRIER, 3}, {PF_EXEC_OMPTASKS, 3}};
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++)
        ck_assert_msg(bars_hash(runs[k].e, runs[k].workers, PF_LINEAR_CG, PF_DECOMPOSE_ON, tip) == bref,
                      "blocks: executor %d with %d workers", runs[k].e, runs[k].workers);
}
END_TEST

/* ---- the scene component ---- */

/* one tetrahedron, base fixed, its apex falling under gravity; `fem` is the component's element */
static int load_tetra_scene(const char *fem, pf_scene **out)
{
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<Node dt='0.01' gravity='0 0 -9.81'>\n<Node name='t'><EulerImplicitSolver/><CGLinearSolver/>"
             "<MeshTopology position='0 0 0 1 0 0 0 1 0 0.2 0.1 1' tetrahedra='0 1 2 3'/><MechanicalObject/>"
             "<UniformMass vertexMass='0.5'/>\n%s\n<FixedConstraint indices='0 1 2'/></Node></Node>\n",
             fem);
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.workers = 1;
    d.world.runtime.executor = PF_EXEC_SEQ;
    d.world.runtime.bind = 0;
    d.world.runtime.quiet = 1;
    d.strict = 1; /* an attribute nobody reads is an error */
    return pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, out);
}

/* the same through the API */
static uint64_t api_hash(pf_hyperelastic_material m, const double *p, uint32_t steps, double *apex_z)
{
    pf_world *w = new_world_dg(PF_EXEC_SEQ, 1, 0.01, (const double[3]){0, 0, -9.81});
    static const double X[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.1, 1};
    static const uint32_t fixed[3] = {0, 1, 2};
    pf_object_id id = add_point_object(w, X, 4, 0.5);
    add_hyper(w, id, T1, 1, m, p);
    ck_assert_int_eq(pf_world_fix_points(w, id, fixed, 3), PF_OK);
    ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
    uint32_t n;
    *apex_z = pf_world_positions(w, id, &n)[11];
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

static uint64_t scene_hash(pf_scene *s, uint32_t steps)
{
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), steps), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

START_TEST(test_scene_is_api)
{
    static const char *const xml[NMAT] = {
        "<TetrahedronHyperelasticityFEMForceField materialName='StVenantKirchhoff' ParameterSet='3846 "
        "5769'/>",
        "<TetrahedronHyperelasticityFEMForceField name='FEM' materialName='NeoHookean' ParameterSet='3846 "
        "5769' AnisotropyDirections='' matrixRegularization='false'/>",
        "<TetrahedronHyperelasticityFEMForceField materialName='MooneyRivlin' ParameterSet='1200 700 8333'/>",
        "<TetrahedronHyperelasticityFEMForceField ParameterSet='3000 8333'/>", /* SOFA's default: ArrudaBoyce
                                                                                */
        "<TetrahedronHyperelasticityFEMForceField materialName='Ogden' ParameterSet='7692 3 8333'/>",
    };
    uint64_t h[NMAT];
    for (int m = 0; m < NMAT; m++) {
        double apex;
        h[m] = api_hash(MATS[m], PARAMS[m], 30, &apex);
        /* the apex falls, held by the element: above a free fall's 0.44 m */
        ck_assert_msg(apex < 1 - 1e-4 && apex > 0.56, "%s: apex at %g", NAMES[m], apex);
        pf_scene *s = NULL;
        ck_assert_msg(load_tetra_scene(xml[m], &s) == PF_OK, "%s: %s", xml[m], pf_last_error());
        ck_assert_msg(scene_hash(s, 30) == h[m], "%s steps otherwise than the API", xml[m]);
    }
    for (int m = 1; m < NMAT; m++) /* the hash tells the materials apart */
        ck_assert(h[m] != h[0]);
    /* StandardTetrahedralFEMForceField: the same component (SOFA's default ArrudaBoyce too) */
    pf_scene *s = NULL;
    ck_assert_msg(load_tetra_scene("<StandardTetrahedralFEMForceField ParameterSet='3000 8333'/>", &s) ==
                      PF_OK,
                  "%s", pf_last_error());
    ck_assert(scene_hash(s, 30) == h[3]);
    /* SOFA's newer form: a material component (E, nu) and HyperelasticityFEMForceField; VonMisesStress
     * skipped */
    const double E = 10000, nu = 0.3, lame[2] = {E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))};
    static const char *const newer[2] = {"StVenantKirchhoffMaterial", "NeoHookeanMaterial"};
    for (int k = 0; k < 2; k++) {
        char xml2[512];
        snprintf(xml2, sizeof xml2,
                 "<%s name='material' youngModulus='10000' poissonRatio='0.3'/><HyperelasticityFEMForceField "
                 "template='Vec3,Tetrahedron' computeForceStrategy='sequenced'/><VonMisesStress "
                 "template='Vec3,Tetrahedron' stressEvaluator='@material'/>",
                 newer[k]);
        ck_assert_msg(load_tetra_scene(xml2, &s) == PF_OK, "%s: %s", xml2, pf_last_error());
        double apex;
        ck_assert(scene_hash(s, 30) == api_hash(MATS[k], lame, 30, &apex));
    }
    ck_assert_int_eq(load_tetra_scene("<StVenantKirchhoffMaterial/><HyperelasticityFEMForceField "
                                      "template='Vec3,Hexahedron'/>",
                                      &s),
                     PF_ENOTSUP);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:3:") && strstr(pf_last_error(), "Hexahedron"), "%s",
                  pf_last_error());
    ck_assert_int_eq(load_tetra_scene("<HyperelasticityFEMForceField template='Vec3,Tetrahedron'/>", &s),
                     PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "no StVenantKirchhoffMaterial"), "%s", pf_last_error());
    ck_assert_int_eq(
        load_tetra_scene("<StVenantKirchhoffMaterial poissonRatio='0.5'/><HyperelasticityFEMForceField "
                         "template='Vec3,Tetrahedron'/>",
                         &s),
        PF_EINVAL);
}
END_TEST

START_TEST(test_scene_errors)
{
    pf_scene *s = NULL;
    ck_assert_int_eq(load_tetra_scene("<TetrahedronHyperelasticityFEMForceField materialName='Rubber' "
                                      "ParameterSet='1 2'/>",
                                      &s),
                     PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:3:") &&
                      strstr(pf_last_error(), "unknown materialName 'Rubber'"),
                  "%s", pf_last_error());
    ck_assert_int_eq(load_tetra_scene("<TetrahedronHyperelasticityFEMForceField materialName='MooneyRivlin' "
                                      "ParameterSet='3846 5769'/>",
                                      &s),
                     PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:3:") &&
                      strstr(pf_last_error(), "ParameterSet lists 2 values") &&
                      strstr(pf_last_error(), "takes 3"),
                  "%s", pf_last_error());
    ck_assert_int_eq(load_tetra_scene("<TetrahedronHyperelasticityFEMForceField materialName='NeoHookean' "
                                      "ParameterSet='1 2 3'/>",
                                      &s),
                     PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:3:"), "%s", pf_last_error());
    ck_assert_int_eq(load_tetra_scene("<TetrahedronHyperelasticityFEMForceField/>", &s), PF_EPARSE);
    ck_assert_msg(strstr(pf_last_error(), "ParameterSet lists 0 values"), "%s", pf_last_error());
    ck_assert_int_eq(load_tetra_scene("<TetrahedronHyperelasticityFEMForceField materialName='Costa' "
                                      "ParameterSet='1 2 3'/>",
                                      &s),
                     PF_ENOTSUP);
    ck_assert_msg(strstr(pf_last_error(), "t.xml:3:") && strstr(pf_last_error(), "Costa"), "%s",
                  pf_last_error());
    ck_assert_int_eq(load_tetra_scene("<TetrahedronHyperelasticityFEMForceField ParameterSet='3000 x'/>", &s),
                     PF_EPARSE);
    ck_assert_int_eq(load_tetra_scene("<TetrahedronHyperelasticityFEMForceField ParameterSet='3000 8000' "
                                      "AnisotropyDirections='1 0 0'/>",
                                      &s),
                     PF_ENOTSUP);
    ck_assert_int_eq(
        load_tetra_scene("<TetrahedronHyperelasticityFEMForceField ParameterSet='-3000 8000'/>", &s),
        PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "mu"), "%s", pf_last_error());
}
END_TEST

/* tests/scenes/hyperelastic_columns.xml: SOFA's example's layout (grid, child node of tetrahedra from
 * Hexa2TetraTopologicalMapping); the columns' tips, pushed by gravity across, move as the corotational linear
 * column's within 2 % at this small strain, and bitwise the same on 3 static workers */
START_TEST(test_scene_columns)
{
    static const char *const nodes[3] = {"Corotational", "StVenantKirchhoff", "NeoHookean"};
    double tip[3];
    uint64_t h[2];
    for (int run = 0; run < 2; run++) {
        pf_scene *s = load_test_scene("hyperelastic_columns.xml", run ? PF_EXEC_STATIC : PF_EXEC_SEQ,
                                      PF_PART_OWNER, run ? 3 : 1);
        pf_world *w = pf_scene_world(s);
        ck_assert_msg(pf_world_step(w, 50) == PF_OK, "%s", pf_last_error());
        for (int k = 0; k < 3; k++) {
            pf_object_id o;
            ck_assert_int_eq(pf_scene_find_object(s, nodes[k], &o), PF_OK);
            uint32_t n;
            const double *x = pf_world_positions(w, o, &n);
            ck_assert_uint_eq(n, 54);
            ck_assert(x[0] == 0 && x[1] == 0 && x[2] == 0); /* fixed */
            tip[k] = x[3 * 53 + 1];                         /* (0.4, 0.4, 1) */
        }
        h[run] = pf_world_state_hash(w);
        pf_scene_destroy(s);
        ck_assert_msg(tip[0] < 0.4 - 1e-3 && tip[0] > 0, "corotational tip at y = %g", tip[0]);
        for (int k = 1; k < 3; k++)
            ck_assert_msg(fabs((tip[k] - 0.4) - (tip[0] - 0.4)) <= 0.02 * fabs(tip[0] - 0.4),
                          "%s: tip moved %g, corotational %g", nodes[k], tip[k] - 0.4, tip[0] - 0.4);
    }
    ck_assert(h[0] == h[1]);
}
END_TEST

/* the API's argument checks */
START_TEST(test_api_errors)
{
    pf_world *w = make_world(1, PF_EXEC_SEQ, 0);
    pf_object_id id = add_point_object(w, TX, 4, 1.0);
    pf_hyperelastic_def d = pf_hyperelastic_default_def();
    d.tetrahedra = T1;
    d.ntetrahedra = 1;
    ck_assert_int_eq(pf_world_add_hyperelastic_fem(w, id, NULL, NULL), PF_EINVAL);
    pf_hyperelastic_def b = d;
    b.material = PF_HYPER_MATERIALS;
    ck_assert_int_eq(pf_world_add_hyperelastic_fem(w, id, &b, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_hyperelastic_parameter_count(PF_HYPER_MATERIALS), PF_EINVAL);
    b = d;
    b.material = PF_HYPER_MOONEY_RIVLIN; /* 2 parameters given, 3 taken */
    ck_assert_int_eq(pf_world_add_hyperelastic_fem(w, id, &b, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "takes 3"), "%s", pf_last_error());
    b = d;
    b.parameters[0] = 0; /* mu */
    ck_assert_int_eq(pf_world_add_hyperelastic_fem(w, id, &b, NULL), PF_EINVAL);
    b = d;
    b.parameters[1] = NAN;
    ck_assert_int_eq(pf_world_add_hyperelastic_fem(w, id, &b, NULL), PF_EINVAL);
    static const uint32_t out_of_range[4] = {0, 1, 2, 4}, flat[4] = {0, 1, 1, 2};
    b = d;
    b.tetrahedra = out_of_range;
    ck_assert_int_eq(pf_world_add_hyperelastic_fem(w, id, &b, NULL), PF_EINVAL);
    b.tetrahedra = flat;
    ck_assert_int_eq(pf_world_add_hyperelastic_fem(w, id, &b, NULL), PF_EINVAL);
    ck_assert_msg(strstr(pf_last_error(), "degenerate"), "%s", pf_last_error());
    b = d;
    b.ntetrahedra = 0;
    ck_assert_int_eq(pf_world_add_hyperelastic_fem(w, id, &b, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_add_hyperelastic_fem(w, (pf_object_id){7}, &d, NULL), PF_EINVAL);
    ck_assert_uint_eq(w->obj.v[id.index]->ff.n, 0); /* nothing added by the refused calls */
    ck_assert_int_eq(pf_world_add_hyperelastic_fem(w, id, &d, NULL), PF_OK);
    pf_world_destroy(w);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_hyperelastic");
    TCase *tc = tcase_create("hyperelastic");
    tcase_set_timeout(tc, 400); /* per test: the bars' 13 runs on a loaded machine */
    tcase_add_test(tc, test_force_is_minus_energy_gradient);
    tcase_add_test(tc, test_stiffness_is_force_derivative);
    tcase_add_test(tc, test_small_strain_is_linear);
    tcase_add_test(tc, test_uniaxial_closed_form);
    tcase_add_test(tc, test_rigid_motion);
    tcase_add_test(tc, test_bars_deterministic);
    tcase_add_test(tc, test_bars_blocks);
    tcase_add_test(tc, test_scene_is_api);
    tcase_add_test(tc, test_scene_errors);
    tcase_add_test(tc, test_scene_columns);
    tcase_add_test(tc, test_api_errors);
    suite_add_tcase(s, tc);
    return s;
}
