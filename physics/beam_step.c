/* The step of a beam (beam.h): one task that computes the forces (gravity on each frame's mass, the elements'
 * elastic forces, constant forces and torques), assembles the banded 6N x 6N system of SOFA's EulerImplicitSolver
 *   (M (1 + h rM) + h (h + rK) K) dv = h (f - rM M v - (h + rK) K v),   v += dv,   x += h v,   q <- exp(h w) q
 * (K = T k T^T the elements' local stiffness rotated by their current frames, as SOFA's addKToMatrix; M: each
 * frame's mass and its world inertia R I R^T), or the static one K dx = f (SOFA StaticSolver, one Newton step),
 * projects the fixed degrees of freedom out (identity rows) and solves it by a banded Cholesky factorisation. All
 * in one task, in a fixed order: the state is bitwise the same for every executor and worker count. */
#include "beam.h"

#include "faults.h"
#include "force_field.h"
#include "rotation.h"

#include "base/error.h"

#include <math.h>
#include <string.h>

typedef struct beam_args {
    pf_object *o;
    double h, g[3], rm, rk, max_speed;
    int statik;
} beam_args;

/* the lower band's entry (i, j), j in [i - bw, i] */
static inline double *band_at(pf_beam *b, size_t i, size_t j)
{
    return b->band + i * (b->bw + 1) + (j + b->bw - i);
}

/* B = E blk E^T for the 3x3 block (I, J) of the 12x12 k */
static void rotate_block(const double E[9], const double *k, int I, int J, double B[9])
{
    double t[9];
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++) {
            const double *row = k + 12 * (3 * I + r) + 3 * J;
            t[3 * r + s] = row[0] * E[3 * s] + row[1] * E[3 * s + 1] + row[2] * E[3 * s + 2]; /* blk E^T */
        }
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++) B[3 * r + s] = E[3 * r] * t[s] + E[3 * r + 1] * t[3 + s] + E[3 * r + 2] * t[6 + s];
}

/* band += kf K_e (lower part) and, with vfact != 0, rhs -= vfact K_e v */
static void add_element(pf_beam *b, const pf_beam_element *e, const double E[9], double kf, double vfact,
                        const double *v)
{
    size_t base[2] = {6 * (size_t)e->a, 6 * (size_t)e->b};
    for (int I = 0; I < 4; I++)
        for (int J = 0; J < 4; J++) {
            double B[9];
            rotate_block(E, e->k, I, J, B);
            size_t r0 = base[I / 2] + 3 * (size_t)(I & 1), c0 = base[J / 2] + 3 * (size_t)(J & 1);
            for (int r = 0; r < 3; r++)
                for (int s = 0; s < 3; s++) {
                    size_t i = r0 + (size_t)r, j = c0 + (size_t)s;
                    if (j <= i) *band_at(b, i, j) += kf * B[3 * r + s];
                    if (vfact != 0) b->rhs[i] -= vfact * B[3 * r + s] * v[j];
                }
        }
}

/* Cholesky of the band in place, then L L^T y = rhs in place; 0 when a pivot is not > 0 (the system is not
 * positive definite: a static beam not held, or a blow-up), the rhs then NaN so that the fault check names it */
static int band_solve(pf_beam *b, size_t n)
{
    size_t p = b->bw;
    for (size_t j = 0; j < n; j++) {
        size_t k0 = j > p ? j - p : 0;
        double d = *band_at(b, j, j);
        for (size_t k = k0; k < j; k++) d -= *band_at(b, j, k) * *band_at(b, j, k);
        if (!(d > 0)) {
            for (size_t i = 0; i < n; i++) b->rhs[i] = NAN;
            return 0;
        }
        double l = sqrt(d);
        *band_at(b, j, j) = l;
        size_t iend = j + p < n - 1 ? j + p : n - 1;
        for (size_t i = j + 1; i <= iend; i++) {
            size_t m0 = i > p ? i - p : 0; /* both rows' bands start there or later */
            double s = *band_at(b, i, j);
            for (size_t k = m0; k < j; k++) s -= *band_at(b, i, k) * *band_at(b, j, k);
            *band_at(b, i, j) = s / l;
        }
    }
    for (size_t i = 0; i < n; i++) { /* L y = rhs */
        size_t k0 = i > p ? i - p : 0;
        double s = b->rhs[i];
        for (size_t k = k0; k < i; k++) s -= *band_at(b, i, k) * b->rhs[k];
        b->rhs[i] = s / *band_at(b, i, i);
    }
    for (size_t i = n; i-- > 0;) { /* L^T x = y */
        size_t kend = i + p < n - 1 ? i + p : n - 1;
        double s = b->rhs[i];
        for (size_t k = i + 1; k <= kend; k++) s -= *band_at(b, k, i) * b->rhs[k];
        b->rhs[i] = s / *band_at(b, i, i);
    }
    return 1;
}

/* each fixed point's 3 degrees of freedom: identity row and column, zero rhs */
static void project_fixed(pf_beam *b, const pf_object *o, size_t n)
{
    for (uint32_t k = 0; k < o->fixed_list.n; k++)
        for (size_t i = 3 * (size_t)o->fixed_list.v[k]; i < 3 * (size_t)o->fixed_list.v[k] + 3; i++) {
            for (size_t j = i > b->bw ? i - b->bw : 0; j <= i; j++) *band_at(b, i, j) = 0;
            for (size_t r = i + 1; r <= i + b->bw && r < n; r++) *band_at(b, r, i) = 0;
            *band_at(b, i, i) = 1;
            b->rhs[i] = 0;
        }
}

/* data: x, v, f */
static void t_beam_step(const pf_task_ctx *c)
{
    const beam_args *a = c->args;
    pf_object *o = a->o;
    pf_beam *b = o->beam;
    double *x = c->data[0], *v = c->data[1], *f = c->data[2];
    uint32_t N = b->frames;
    size_t n = 6 * (size_t)N;
    double *q = x + PF_BEAM_QUAT(N), h = a->h;
    pf_state_save(o, x, v);
    /* forces: gravity on the frames' masses, the elements, then constant forces and torques */
    memset(f, 0, n * sizeof *f);
    for (uint32_t k = 0; k < N; k++)
        for (int d = 0; d < 3; d++) f[6 * (size_t)k + d] = b->mass[k] * a->g[d];
    for (uint32_t e = 0; e < b->nelem; e++) pf_beam_element_force(&b->elem[e], x, q, f, b->erot + 9 * (size_t)e);
    pf_force_fields_force(o, x, v, f, 0);
    /* the system */
    memset(b->band, 0, n * (b->bw + 1) * sizeof *b->band);
    double mf = 1.0 + h * a->rm, kf = a->statik ? 1.0 : h * (h + a->rk), vf = a->statik ? 0.0 : h * (h + a->rk);
    for (size_t i = 0; i < n; i++) b->rhs[i] = a->statik ? f[i] : h * f[i];
    if (!a->statik)
        for (uint32_t k = 0; k < N; k++) {
            size_t i0 = 6 * (size_t)k;
            double R[9], Iw[9], Iv[3];
            pf_quat_to_mat(q + 4 * (size_t)k, R);
            pf_mat3_rotate_tensor(R, b->inertia + 9 * (size_t)k, Iw);
            pf_mat3_vec(Iw, v + i0 + 3, Iv);
            for (int d = 0; d < 3; d++) {
                *band_at(b, i0 + d, i0 + d) += mf * b->mass[k];
                b->rhs[i0 + d] -= h * a->rm * b->mass[k] * v[i0 + d];
                b->rhs[i0 + 3 + d] -= h * a->rm * Iv[d];
                for (int s = 0; s <= d; s++) *band_at(b, i0 + 3 + d, i0 + 3 + s) += mf * Iw[3 * d + s];
            }
        }
    for (uint32_t e = 0; e < b->nelem; e++) add_element(b, &b->elem[e], b->erot + 9 * (size_t)e, kf, vf, v);
    project_fixed(b, o, n);
    band_solve(b, n); /* a failure leaves NaN, which the fault check below reports */
    /* integration */
    if (a->statik) {
        for (uint32_t k = 0; k < N; k++) {
            size_t i0 = 6 * (size_t)k;
            for (int d = 0; d < 3; d++) x[i0 + d] += b->rhs[i0 + d];
            if (isfinite(b->rhs[i0 + 3])) pf_quat_integrate(q + 4 * (size_t)k, b->rhs + i0 + 3, 1.0);
            else q[4 * (size_t)k] = NAN;
        }
        memset(v, 0, n * sizeof *v);
    } else {
        for (size_t i = 0; i < n; i++) v[i] += b->rhs[i];
        for (uint32_t k = 0; k < o->fixed_list.n; k++) memset(v + 3 * (size_t)o->fixed_list.v[k], 0, 3 * sizeof *v);
        for (uint32_t k = 0; k < N; k++) {
            size_t i0 = 6 * (size_t)k;
            for (int d = 0; d < 3; d++) x[i0 + d] += h * v[i0 + d];
            if (isfinite(v[i0 + 3] + v[i0 + 4] + v[i0 + 5])) pf_quat_integrate(q + 4 * (size_t)k, v + i0 + 3, h);
            else q[4 * (size_t)k] = NAN;
        }
    }
    pf_state_check(o, x, v, a->max_speed);
}

int pf_record_beam(pf_world *w, pf_group *gr, const pf_task_recorder *rec)
{
    pf_object *o = w->obj.v[gr->first];
    if (gr->nobjs != 1 || o->linked)
        return pf_error(PF_EINVAL, "beam object %u: a beam takes no interaction (springs, contacts) with other "
                        "objects", o->id);
    if (o->held.n)
        return pf_error(PF_EINVAL, "beam object %u: a beam takes fixed points only, no held directions", o->id);
    gr->implicit = 0; /* solved directly: no CG outcome to count */
    const pf_beam *b = o->beam;
    beam_args args = {o,
                      w->def.dt,
                      {w->def.gravity[0], w->def.gravity[1], w->def.gravity[2]},
                      o->solver.rayleigh_mass,
                      o->solver.rayleigh_stiffness,
                      w->def.max_speed,
                      o->solver.kind == PF_SOLVER_STATIC};
    pf_access acc[3] = {{o->dx, PF_READWRITE}, {o->dv_, PF_READWRITE}, {o->df, PF_WRITE}};
    double cost = 6.0 * b->frames * (double)(b->bw + 1) * (double)(b->bw + 1) + 2000.0 * b->nelem;
    return rec->record(rec->ctx, &(pf_task_def){t_beam_step, "beam step", &args, sizeof args, acc, 3, cost});
}
