/* Mass properties of a closed triangle mesh by the divergence theorem: Eberly, "Polyhedral Mass Properties
 * (Revisited)" (after Mirtich 1996). Each volume integral of 1, x, y, z, x², y², z², xy, yz, zx becomes a sum
 * over the faces of closed-form polynomial integrals over each triangle. */
#include "physflow/physics.h"

#include "base/check.h"
#include "base/error.h"

#include <math.h>

/* the per-axis polynomial subexpressions of one triangle (w0, w1, w2: the axis' coordinates of its corners) */
static void subexpressions(double w0, double w1, double w2, double *f1, double *f2, double *f3, double g[3])
{
    double t0 = w0 + w1, t1 = w0 * w0, t2 = t1 + w1 * t0;
    *f1 = t0 + w2;
    *f2 = t2 + w2 * *f1;
    *f3 = w0 * t1 + w1 * t2 + w2 * *f2;
    g[0] = *f2 + w0 * (*f1 + w0);
    g[1] = *f2 + w1 * (*f1 + w1);
    g[2] = *f2 + w2 * (*f1 + w2);
}

int pf_mesh_mass_properties(const double *positions, uint32_t vertices, const uint32_t *indices, uint32_t triangles,
                            double density, pf_mass_properties *out)
{
    static const char fn[] = "pf_mesh_mass_properties";
    PF_TRY(pf_check_given(positions, fn, "positions"));
    PF_TRY(pf_check_given(indices, fn, "indices"));
    PF_TRY(pf_check_given(out, fn, "out"));
    if (vertices < 4) return pf_error(PF_EINVAL, "%s: vertices must be >= 4 for a closed mesh, got %u", fn, vertices);
    if (triangles < 4) return pf_error(PF_EINVAL, "%s: triangles must be >= 4 for a closed mesh, got %u", fn, triangles);
    PF_TRY(pf_check_positive(density, fn, "density"));
    for (size_t k = 0; k < 3 * (size_t)triangles; k++)
        if (indices[k] >= vertices)
            return pf_error(PF_EINVAL, "%s: indices[%zu] = %u (triangle %zu): the mesh has %u vertices", fn, k,
                            indices[k], k / 3, vertices);
    PF_TRY(pf_check_finite_n(positions, 3 * (size_t)vertices, fn, "positions"));
    double in[10] = {0}; /* 1, x, y, z, x², y², z², xy, yz, zx */
    for (uint32_t t = 0; t < triangles; t++) {
        const double *p0 = positions + 3 * (size_t)indices[3 * t], *p1 = positions + 3 * (size_t)indices[3 * t + 1],
                     *p2 = positions + 3 * (size_t)indices[3 * t + 2];
        double a1 = p1[0] - p0[0], b1 = p1[1] - p0[1], c1 = p1[2] - p0[2];
        double a2 = p2[0] - p0[0], b2 = p2[1] - p0[1], c2 = p2[2] - p0[2];
        double d0 = b1 * c2 - b2 * c1, d1 = a2 * c1 - a1 * c2, d2 = a1 * b2 - a2 * b1; /* 2 area x normal */
        double f1[3], f2[3], f3[3], g[3][3];
        for (int a = 0; a < 3; a++) subexpressions(p0[a], p1[a], p2[a], &f1[a], &f2[a], &f3[a], g[a]);
        in[0] += d0 * f1[0];
        in[1] += d0 * f2[0];
        in[2] += d1 * f2[1];
        in[3] += d2 * f2[2];
        in[4] += d0 * f3[0];
        in[5] += d1 * f3[1];
        in[6] += d2 * f3[2];
        in[7] += d0 * (p0[1] * g[0][0] + p1[1] * g[0][1] + p2[1] * g[0][2]);
        in[8] += d1 * (p0[2] * g[1][0] + p1[2] * g[1][1] + p2[2] * g[1][2]);
        in[9] += d2 * (p0[0] * g[2][0] + p1[0] * g[2][1] + p2[0] * g[2][2]);
    }
    static const double mult[10] = {1.0 / 6,  1.0 / 24, 1.0 / 24, 1.0 / 24,  1.0 / 60,
                                    1.0 / 60, 1.0 / 60, 1.0 / 120, 1.0 / 120, 1.0 / 120};
    for (int i = 0; i < 10; i++) in[i] *= mult[i] * density;
    double m = in[0];
    if (!(m > 0) || !isfinite(m))
        return pf_error(PF_EINVAL, "the mesh encloses no positive volume (%g m³): open, or triangles inside out", m / density);
    double c[3] = {in[1] / m, in[2] / m, in[3] / m};
    double *I = out->inertia;
    I[0] = in[5] + in[6] - m * (c[1] * c[1] + c[2] * c[2]);
    I[4] = in[4] + in[6] - m * (c[2] * c[2] + c[0] * c[0]);
    I[8] = in[4] + in[5] - m * (c[0] * c[0] + c[1] * c[1]);
    I[1] = I[3] = -(in[7] - m * c[0] * c[1]);
    I[5] = I[7] = -(in[8] - m * c[1] * c[2]);
    I[2] = I[6] = -(in[9] - m * c[2] * c[0]);
    out->mass = m;
    for (int a = 0; a < 3; a++) out->com[a] = c[a];
    return PF_OK;
}
