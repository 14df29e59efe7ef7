/* Embedding PhysFlow: custom force fields equal their built-in equivalent bitwise (and a custom stiffness gives the
 * implicit Euler recurrence of a linear spring); the host's task system runs the static executor to the built-in
 * team's state; two worlds stepped from two threads at once equal the same worlds stepped one after the other;
 * the worker count changes between steps without changing the trajectory. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

enum { NX = 6, NY = 3, NZ = 2 };

/* A cloth-like grid hanging from its x = 0 edge, and its springs along grid lines (not added). */
static pf_object_id add_sheet(pf_world *w, pf_solver_kind kind, pf_spring *springs, uint32_t *nsprings)
{
    pf_object_def o = pf_object_default_def();
    o.grid[0] = NX, o.grid[1] = NY, o.grid[2] = NZ;
    o.grid_max[0] = 0.5, o.grid_max[1] = 0.2, o.grid_max[2] = 0.1;
    o.total_mass = 0.2;
    o.solver.kind = kind;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    uint32_t m = 0;
    for (uint32_t k = 0; k < NZ; k++)
        for (uint32_t j = 0; j < NY; j++)
            for (uint32_t i = 0; i < NX; i++) {
                uint32_t p = i + NX * (j + NY * k);
                if (i + 1 < NX) springs[m++] = (pf_spring){p, p + 1, 40, 0.05, 0.1};
                if (j + 1 < NY) springs[m++] = (pf_spring){p, p + NX, 40, 0.05, 0.1};
                if (k + 1 < NZ) springs[m++] = (pf_spring){p, p + NX * NY, 40, 0.05, 0.1};
            }
    *nsprings = m;
    double edge[6] = {-0.01, -1, -1, 0.01, 1, 1};
    ck_assert_int_eq(pf_world_fix_box(w, id, edge, NULL), PF_OK);
    return id;
}

typedef struct spring_list {
    const pf_spring *s;
    uint32_t n;
} spring_list;

/* The host's spring force, written as plain C in the order PhysFlow's built-in springs use. */
static void host_springs(const double *x, const double *v, double *f, uint32_t points, void *ctx)
{
    (void)points;
    const spring_list *l = ctx;
    for (uint32_t k = 0; k < l->n; k++) {
        const pf_spring *sp = &l->s[k];
        const double *pa = x + 3 * (size_t)sp->a, *pb = x + 3 * (size_t)sp->b;
        const double *va = v + 3 * (size_t)sp->a, *vb = v + 3 * (size_t)sp->b;
        double u[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
        double len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        if (len < 1e-12) continue;
        double inv = 1.0 / len;
        u[0] *= inv, u[1] *= inv, u[2] *= inv;
        double dv = (vb[0] - va[0]) * u[0] + (vb[1] - va[1]) * u[1] + (vb[2] - va[2]) * u[2];
        double mag = sp->stiffness * (len - sp->rest_length) + sp->damping * dv;
        for (int c = 0; c < 3; c++) {
            double g = mag * u[c];
            f[3 * sp->a + c] += g;
            f[3 * sp->b + c] -= g;
        }
    }
}

static uint64_t sheet_hash(int custom, int workers, pf_executor e)
{
    pf_world_def d = test_world_def(e, workers);
    pf_world *w;
    ck_assert_int_eq(pf_world_create(&d, &w), PF_OK);
    pf_spring s[3 * NX * NY * NZ];
    uint32_t n;
    pf_object_id id = add_sheet(w, PF_SOLVER_EXPLICIT_EULER, s, &n);
    spring_list l = {s, n};
    if (custom) {
        pf_force_field_def f = pf_force_field_default_def();
        f.add_force = host_springs;
        f.ctx = &l;
        ck_assert_int_eq(pf_world_add_force_field(w, id, &f, NULL), PF_OK);
    } else {
        ck_assert_int_eq(pf_world_add_springs(w, id, s, n, NULL), PF_OK);
    }
    ck_assert_int_eq(pf_world_step(w, 200), PF_OK);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(test_custom_force_field_equals_builtin)
{
    uint64_t ref = sheet_hash(0, 1, PF_EXEC_SEQ);
    ck_assert(sheet_hash(1, 1, PF_EXEC_SEQ) == ref);
    ck_assert(sheet_hash(1, 2, PF_EXEC_STATIC) == ref);
    ck_assert(sheet_hash(1, 2, PF_EXEC_OMPTASKS) == ref);
}
END_TEST

/* f = -k x on one free particle, with its stiffness: implicit Euler gives
 * v' = (m v - h k x) / (m + h^2 k), x' = x + h v' (no gravity, no damping, CG exact in one iteration). */
static void anchor_force(const double *x, const double *v, double *f, uint32_t points, void *ctx)
{
    (void)v;
    double k = *(const double *)ctx;
    for (uint32_t i = 0; i < 3 * points; i++) f[i] -= k * x[i];
}

static void anchor_dforce(const double *x, const double *dx, double *df, double kfact, uint32_t points, void *ctx)
{
    (void)x;
    double k = *(const double *)ctx;
    for (uint32_t i = 0; i < 3 * points; i++) df[i] += kfact * (-k * dx[i]);
}

START_TEST(test_custom_stiffness_in_implicit_solve)
{
    pf_world_def d = test_world_def(PF_EXEC_SEQ, 1);
    d.gravity[2] = 0;
    d.dt = 0.01;
    pf_world *w;
    ck_assert_int_eq(pf_world_create(&d, &w), PF_OK);
    double x0[3] = {0.3, -0.2, 0.1}, k = 50, m = 2;
    pf_object_def o = pf_object_default_def();
    o.points = 1;
    o.positions = x0;
    o.vertex_mass = m;
    o.solver.cg_tolerance = 0;
    o.solver.cg_threshold = 0;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    pf_force_field_def f = pf_force_field_default_def();
    f.add_force = anchor_force;
    f.add_dforce = anchor_dforce;
    f.ctx = &k;
    ck_assert_int_eq(pf_world_add_force_field(w, id, &f, NULL), PF_OK);
    double x[3] = {x0[0], x0[1], x0[2]}, v[3] = {0, 0, 0}, h = d.dt;
    for (int s = 0; s < 100; s++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        for (int c = 0; c < 3; c++) {
            v[c] = (m * v[c] - h * k * x[c]) / (m + h * h * k);
            x[c] += h * v[c];
        }
    }
    const double *px = pf_world_positions(w, id, NULL);
    for (int c = 0; c < 3; c++) ck_assert_msg(fabs(px[c] - x[c]) < 1e-12, "axis %d: %.15g vs %.15g", c, px[c], x[c]);
    ck_assert_int_eq(pf_world_add_force_field(w, (pf_object_id){7}, &f, NULL), PF_EINVAL);
    f.add_force = NULL;
    ck_assert_int_eq(pf_world_add_force_field(w, id, &f, NULL), PF_EINVAL);
    pf_world_destroy(w);
}
END_TEST

/* ---- a host task system: a thread per enqueued job, joined by finish ---- */

typedef struct host_job {
    pthread_t thread;
    pf_host_job job;
    int worker;
    void *ctx;
} host_job;

static int host_jobs_run;

static void *host_thread(void *p)
{
    host_job *j = p;
    j->job(j->worker, j->ctx);
    return NULL;
}

static void *host_enqueue(pf_host_job job, int worker, void *job_ctx, void *user_ctx)
{
    (void)user_ctx;
    host_job *j = malloc(sizeof *j);
    ck_assert_ptr_nonnull(j);
    *j = (host_job){.job = job, .worker = worker, .ctx = job_ctx};
    ck_assert_int_eq(pthread_create(&j->thread, NULL, host_thread, j), 0);
    __atomic_add_fetch(&host_jobs_run, 1, __ATOMIC_RELAXED);
    return j;
}

static void host_finish(void *handle, void *user_ctx)
{
    (void)user_ctx;
    host_job *j = handle;
    pthread_join(j->thread, NULL);
    free(j);
}

/* A small implicit scene with an interaction: two hanging sheets joined by springs. */
static pf_world *make_joined(const pf_world_def *d)
{
    pf_world *w;
    ck_assert_int_eq(pf_world_create(d, &w), PF_OK);
    pf_spring s[3 * NX * NY * NZ];
    uint32_t n;
    pf_object_id a = add_sheet(w, PF_SOLVER_IMPLICIT_EULER, s, &n), b;
    ck_assert_int_eq(pf_world_add_springs(w, a, s, n, NULL), PF_OK);
    pf_object_def o = pf_object_default_def();
    o.grid[0] = NX, o.grid[1] = NY, o.grid[2] = NZ;
    o.grid_min[0] = 0.6, o.grid_max[0] = 1.1, o.grid_max[1] = 0.2, o.grid_max[2] = 0.1;
    o.total_mass = 0.2;
    ck_assert_int_eq(pf_world_add_object(w, &o, &b), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_springs(w, b, 40, 0.05, NULL, NULL), PF_OK);
    pf_spring join[NY * NZ];
    for (uint32_t k = 0; k < NY * NZ; k++) join[k] = (pf_spring){NX - 1 + NX * k, NX * k, 40, 0.05, 0.1};
    ck_assert_int_eq(pf_world_add_interaction_springs(w, a, b, join, NY * NZ, NULL), PF_OK);
    return w;
}

static uint64_t joined_hash(const pf_world_def *d, uint32_t steps)
{
    pf_world *w = make_joined(d);
    ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(test_host_task_system_same_hash)
{
    pf_world_def d = test_world_def(PF_EXEC_SEQ, 1);
    uint64_t ref = joined_hash(&d, 60);
    for (int k = 2; k <= 3; k++) {
        d = test_world_def(PF_EXEC_STATIC, k);
        ck_assert(joined_hash(&d, 60) == ref);
        host_jobs_run = 0;
        d.runtime.tasks = (pf_task_system){host_enqueue, host_finish, NULL};
        ck_assert(joined_hash(&d, 60) == ref);
        ck_assert_int_eq(host_jobs_run, 60 * (k - 1)); /* every run went through the host */
    }
    d.runtime.tasks = (pf_task_system){host_enqueue, NULL, NULL};
    pf_world *w = NULL;
    ck_assert_int_eq(pf_world_create(&d, &w), PF_EINVAL);
}
END_TEST

typedef struct thread_arg {
    pf_world_def def;
    uint64_t hash;
} thread_arg;

static void *world_thread(void *p)
{
    thread_arg *a = p;
    a->hash = joined_hash(&a->def, 80);
    return NULL;
}

START_TEST(test_two_worlds_two_threads)
{
    thread_arg a[2] = {{test_world_def(PF_EXEC_STATIC, 2), 0}, {test_world_def(PF_EXEC_SEQ, 1), 0}};
    a[1].def.gravity[2] = -3.7; /* a different world */
    uint64_t ref0 = joined_hash(&a[0].def, 80), ref1 = joined_hash(&a[1].def, 80);
    ck_assert(ref0 != ref1);
    pthread_t t[2];
    for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, world_thread, &a[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    ck_assert(a[0].hash == ref0);
    ck_assert(a[1].hash == ref1);
}
END_TEST

START_TEST(test_workers_change_between_steps)
{
    pf_world_def d = test_world_def(PF_EXEC_SEQ, 1);
    uint64_t ref = joined_hash(&d, 60);
    d = test_world_def(PF_EXEC_STATIC, 1);
    pf_world *w = make_joined(&d);
    static const int counts[3] = {1, 3, 2};
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(pf_world_set_workers(w, counts[k]), PF_OK);
        ck_assert_int_eq(pf_world_step(w, 20), PF_OK);
        ck_assert_int_eq(pf_runtime_workers(pf_world_runtime(w)), counts[k]);
    }
    ck_assert(pf_world_state_hash(w) == ref);
    ck_assert_int_eq(pf_world_set_workers(w, 0), PF_EINVAL);
    pf_world_destroy(w);
}
END_TEST

static void mark_worker(void *ctx, int worker, int workers)
{
    int *seen = ctx;
    ck_assert_int_eq(workers, 3);
    __atomic_add_fetch(&seen[worker], 1, __ATOMIC_RELAXED);
}

/* pf_runtime_parallel runs the function once on each worker, on the built-in team and on the host's tasks. */
START_TEST(test_runtime_parallel_every_worker_once)
{
    for (int host = 0; host < 2; host++) {
        pf_runtime_def d = pf_runtime_default_def();
        d.workers = 3;
        d.bind = 0;
        d.quiet = 1;
        if (host) d.tasks = (pf_task_system){host_enqueue, host_finish, NULL};
        pf_runtime *rt;
        ck_assert_int_eq(pf_runtime_create(&d, &rt), PF_OK);
        for (int round = 0; round < 10; round++) {
            int seen[3] = {0, 0, 0};
            ck_assert_int_eq(pf_runtime_parallel(rt, mark_worker, seen), PF_OK);
            for (int k = 0; k < 3; k++) ck_assert_int_eq(seen[k], 1);
        }
        ck_assert_int_eq(pf_runtime_parallel(rt, NULL, NULL), PF_EINVAL);
        pf_runtime_destroy(rt);
    }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("embedding");
    TCase *tc = tcase_create("embedding");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_custom_force_field_equals_builtin);
    tcase_add_test(tc, test_custom_stiffness_in_implicit_solve);
    tcase_add_test(tc, test_host_task_system_same_hash);
    tcase_add_test(tc, test_two_worlds_two_threads);
    tcase_add_test(tc, test_workers_change_between_steps);
    tcase_add_test(tc, test_runtime_parallel_every_worker_once);
    suite_add_tcase(s, tc);
    return s;
}
