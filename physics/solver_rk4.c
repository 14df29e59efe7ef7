/* Classical 4th-order Runge-Kutta on the state (x, v) (SOFA RungeKutta4Solver): four force evaluations per
 * step, each a set of force tasks followed by one stage task per object, so the group stays a task graph.
 * With a(x, v) = f(x, v) / m (zero at fixed points) and the step's start (x0, v0): k1 = (v0, a(x0, v0)),  k2
 * = F(x0 + h/2 k1),  k3 = F(x0 + h/2 k2),  k4 = F(x0 + h k3), (x, v) = (x0, v0) + h/6 (k1 + 2 k2 + 2 k3 +
 * k4). The start is what the fault check keeps anyway (pf_state_save: x_prev, v_prev), so the stages read it
 * there; the weighted sums of the k's go into the object's CG work vectors p (positions) and q (velocities),
 * unused by this solver otherwise. */
#include "solver_rk4.h"

#include "faults.h"
#include "forces.h"
#include "interaction.h"
#include "objects.h"

typedef struct stage_args {
    pf_object *o;
    double h, max_speed;
    int stage; /* 1 to 4 */
} stage_args;

/* stage s: k_s = (v, a) at the state the forces were just evaluated at; the sums take w_s k_s, and the state
 * moves to where stage s + 1 evaluates (or, after stage 4, to the step's end). data: f, v, x, sum_x, sum_v,
 * then the interactions' force outputs. */
static void t_stage(const pf_task_ctx *c)
{
    static const double weight[5] = {0, 1, 2, 2, 1}, next[5] = {0, 0.5, 0.5, 1, 0};
    const stage_args *a = c->args;
    pf_object *o = a->o;
    double *f = c->data[0], *v = c->data[1], *x = c->data[2], *sx = c->data[3], *sv = c->data[4];
    pf_gather_links(o, c->data + 5, f, NULL); /* f += the interactions' forces */
    if (a->stage == 1) pf_state_save(o, x, v);
    const double *x0 = o->x_prev, *v0 = o->v_prev;
    double w = weight[a->stage], hn = next[a->stage] * a->h, h6 = a->h / 6.0;
    size_t held = 0; /* o->held is sorted by point */
    for (uint32_t p = 0; p < o->n; p++) {
        double im = 1.0 / pf_point_mass(o, p), acc[3];
        for (int d = 0; d < 3; d++) acc[d] = o->fixed[p] ? 0.0 : im * f[3 * (size_t)p + (size_t)d];
        for (; held < o->held.n && o->held.v[held].point == p; held++) { /* no acceleration along held ones */
            const double *e = o->held.v[held].d, s = acc[0] * e[0] + acc[1] * e[1] + acc[2] * e[2];
            for (int d = 0; d < 3; d++) acc[d] -= s * e[d];
        }
        for (size_t i = 3 * (size_t)p; i < 3 * (size_t)p + 3; i++) {
            double kx = v[i], kv = acc[i - 3 * (size_t)p];
            if (a->stage == 1)
                sx[i] = kx, sv[i] = kv;
            else
                sx[i] += w * kx, sv[i] += w * kv;
            if (a->stage < 4) {
                x[i] = x0[i] + hn * kx;
                v[i] = v0[i] + hn * kv;
            } else {
                x[i] = x0[i] + h6 * sx[i];
                v[i] = v0[i] + h6 * sv[i];
            }
        }
    }
    if (a->stage == 4) pf_state_check(o, x, v, a->max_speed);
}

int pf_record_rk4(pf_world *w, pf_group *gr, const pf_task_recorder *rec)
{
    int rc = pf_group_refuse_rigid(w, gr, "Runge-Kutta 4");
    for (int stage = 1; stage <= 4 && !rc; stage++) {
        rc = pf_record_forces(w, gr, 0, rec);
        for (uint32_t k = 0; k < gr->nobjs && !rc; k++) {
            pf_object *o = w->obj.v[gr->objs[k]];
            pf_access acc[PF_MAX_ACCESSES] = {{o->df, o->linked ? PF_READWRITE : PF_READ},
                                              {o->dv_, PF_READWRITE},
                                              {o->dx, PF_READWRITE},
                                              {o->dp, stage == 1 ? PF_WRITE : PF_READWRITE},
                                              {o->dq, stage == 1 ? PF_WRITE : PF_READWRITE}};
            uint32_t na = 5;
            rc = pf_link_reads(o, PF_PHASE_FORCE, acc, &na);
            stage_args args = {o, w->def.dt, w->def.max_speed, stage};
            if (!rc)
                rc = rec->record(
                    rec->ctx, &(pf_task_def){t_stage, "rk4 stage", &args, sizeof args, acc, na, 8.0 * o->n});
        }
    }
    return rc;
}
