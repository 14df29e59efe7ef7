/* physflow run --demo: the built-in runtime demonstration — a 1-D heat equation cut into objects, recorded once as
 * a task graph (flux exchange across object borders, an update per object, a total-energy sum as cumulative
 * writes) and replayed step after step with every executor. */
#include "run.h"

#include "physflow/runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct demo {
    int objects;
    int cells; /* per object */
    double **u;      /* per object: temperature */
    double **du;     /* per object: increment */
    double (*halo)[2]; /* per object: left and right neighbour values */
    double energy;
} demo;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Copies the border values of the neighbouring objects into this object's halo. */
static void task_halo(const pf_task_ctx *ctx)
{
    const int *has = ctx->args; /* has[0]: left neighbour exists; has[1]: right */
    double *halo = ctx->data[0];
    int k = 1;
    halo[0] = has[0] ? ((const double *)ctx->data[k++])[has[2] - 1] : 0.0;
    halo[1] = has[1] ? ((const double *)ctx->data[k])[0] : 0.0;
}

/* du = alpha * laplacian(u), with the halo at the ends. */
static void task_flux(const pf_task_ctx *ctx)
{
    const int n = *(const int *)ctx->args;
    const double *u = ctx->data[0], *halo = ctx->data[1];
    double *du = ctx->data[2];
    const double alpha = 0.2;
    for (int i = 0; i < n; i++) {
        double l = i > 0 ? u[i - 1] : halo[0], r = i < n - 1 ? u[i + 1] : halo[1];
        du[i] = alpha * (l - 2 * u[i] + r);
    }
}

/* u += du, and this object's share of the total energy into the cumulative sum. */
static void task_update(const pf_task_ctx *ctx)
{
    const int n = *(const int *)ctx->args;
    double *u = ctx->data[0];
    const double *du = ctx->data[1];
    double *energy = ctx->data[2];
    for (int i = 0; i < n; i++) {
        u[i] += du[i];
        *energy += u[i] * u[i];
    }
}

static void task_reset(const pf_task_ctx *ctx)
{
    *(double *)ctx->data[0] = 0.0;
}

static void demo_init(demo *d)
{
    for (int o = 0; o < d->objects; o++)
        for (int i = 0; i < d->cells; i++) {
            int x = o * d->cells + i;
            d->u[o][i] = (x % 97) / 97.0 + (x == d->objects * d->cells / 2 ? 100.0 : 0.0);
            d->du[o][i] = 0;
        }
    memset(d->halo, 0, (size_t)d->objects * sizeof *d->halo);
    d->energy = 0;
}

static int demo_alloc(demo *d, int objects, int cells)
{
    d->objects = objects;
    d->cells = cells;
    d->u = calloc((size_t)objects, sizeof *d->u);
    d->du = calloc((size_t)objects, sizeof *d->du);
    d->halo = calloc((size_t)objects, sizeof *d->halo);
    if (!d->u || !d->du || !d->halo) return -1;
    for (int o = 0; o < objects; o++) {
        d->u[o] = calloc((size_t)cells, sizeof(double));
        d->du[o] = calloc((size_t)cells, sizeof(double));
        if (!d->u[o] || !d->du[o]) return -1;
    }
    return 0;
}

static void demo_free(demo *d)
{
    for (int o = 0; d->u && o < d->objects; o++) {
        free(d->u[o]);
        free(d->du[o]);
    }
    free(d->u);
    free(d->du);
    free(d->halo);
}

/* Records one time step: what a sequential solver would do, written as tasks with declared accesses. */
static int demo_record(demo *d, pf_graph *g)
{
    int O = d->objects;
    pf_data_id *u = malloc((size_t)O * sizeof *u), *du = malloc((size_t)O * sizeof *du),
               *halo = malloc((size_t)O * sizeof *halo), energy;
    pf_reducer sum = pf_reducer_sum_f64();
    size_t bytes = (size_t)d->cells * sizeof(double);
    int rc = 0;
    for (int o = 0; o < O && !rc; o++) {
        rc |= pf_graph_data(g, d->u[o], bytes, (uint32_t)o, NULL, &u[o]);
        rc |= pf_graph_data(g, d->du[o], bytes, (uint32_t)o, NULL, &du[o]);
        rc |= pf_graph_data(g, d->halo[o], sizeof d->halo[o], (uint32_t)o, NULL, &halo[o]);
    }
    rc |= pf_graph_data(g, &d->energy, sizeof d->energy, 0, &sum, &energy);
    pf_access ra = {energy, PF_WRITE};
    rc |= pf_graph_task(g, &(pf_task_def){.fn = task_reset, .name = "reset energy", .accesses = &ra, .naccesses = 1},
                        NULL);
    for (int o = 0; o < O && !rc; o++) {
        int has[3] = {o > 0, o < O - 1, d->cells};
        pf_access acc[3] = {{halo[o], PF_WRITE}};
        uint32_t n = 1;
        if (has[0]) acc[n++] = (pf_access){u[o - 1], PF_READ};
        if (has[1]) acc[n++] = (pf_access){u[o + 1], PF_READ};
        rc |= pf_graph_task(g, &(pf_task_def){task_halo, "halo", has, sizeof has, acc, n, 50}, NULL);
    }
    for (int o = 0; o < O && !rc; o++) {
        pf_access acc[3] = {{u[o], PF_READ}, {halo[o], PF_READ}, {du[o], PF_WRITE}};
        rc |= pf_graph_task(g, &(pf_task_def){task_flux, "flux", &d->cells, sizeof d->cells, acc, 3, d->cells * 2.0},
                            NULL);
    }
    for (int o = 0; o < O && !rc; o++) {
        pf_access acc[3] = {{u[o], PF_READWRITE}, {du[o], PF_READ}, {energy, PF_CUMUL}};
        rc |= pf_graph_task(g, &(pf_task_def){task_update, "update", &d->cells, sizeof d->cells, acc, 3,
                                              d->cells * 2.0},
                            NULL);
    }
    free(u);
    free(du);
    free(halo);
    return rc;
}

/* FNV-1a over the state's bytes: equal hashes mean bitwise-equal states. */
static uint64_t demo_hash(const demo *d)
{
    uint64_t h = 1469598103934665603ull;
    for (int o = 0; o < d->objects; o++) {
        const unsigned char *p = (const unsigned char *)d->u[o];
        for (size_t i = 0; i < (size_t)d->cells * sizeof(double); i++) h = (h ^ p[i]) * 1099511628211ull;
    }
    const unsigned char *e = (const unsigned char *)&d->energy;
    for (size_t i = 0; i < sizeof d->energy; i++) h = (h ^ e[i]) * 1099511628211ull;
    return h;
}

int run_demo(long steps, long threads, pf_executor only, pf_partitioner part, const char *trace, int hash_only,
             int bind)
{
    demo d = {0};
    if (demo_alloc(&d, 16, 20000)) {
        fprintf(stderr, "physflow run: out of memory\n");
        return 1;
    }
    pf_graph *g = NULL;
    if (pf_graph_create(&g) || demo_record(&d, g)) {
        fprintf(stderr, "physflow run: %s\n", pf_last_error());
        return 1;
    }
    if (!hash_only)
        printf("physflow run: built-in demonstration — heat equation, %d objects x %d cells, %ld steps, %ld workers\n",
               d.objects, d.cells, steps, threads);
    int status = 0;
    uint64_t first_hash = 0;
    for (int e = 0; e < PF_EXEC_COUNT; e++) {
        if (only != PF_EXEC_COUNT && e != (int)only) continue;
        pf_runtime_def def = pf_runtime_default_def();
        def.workers = e == PF_EXEC_SEQ ? 1 : (int)threads;
        def.executor = (pf_executor)e;
        def.partitioner = part;
        def.bind = bind;
        pf_runtime *rt;
        if (pf_runtime_create(&def, &rt)) {
            fprintf(stderr, "physflow run: %s\n", pf_last_error());
            return 1;
        }
        int tracing = trace && (e == PF_EXEC_STATIC || only == (pf_executor)e);
        if (tracing) pf_runtime_trace_start(rt);
        pf_graph_invalidate(g); /* each executor starts from a fresh compilation, as a new process would */
        demo_init(&d);
        double t0 = now_s();
        for (long s = 0; s < steps; s++)
            if (pf_graph_run(g, rt)) {
                fprintf(stderr, "physflow run: %s\n", pf_last_error());
                return 1;
            }
        double ms = (now_s() - t0) * 1e3 / (double)steps;
        uint64_t h = demo_hash(&d);
        if (first_hash == 0) first_hash = h;
        if (h != first_hash) status = 1;
        pf_graph_stats st;
        pf_graph_get_stats(g, &st);
        if (hash_only)
            printf("state-hash: %016llx  (%s, %d workers)\n", (unsigned long long)h, pf_executor_name((pf_executor)e),
                   def.workers);
        else
            printf("  %-9s %2d workers  %8.3f ms/step  energy %.6e  state-hash %016llx  tasks %u reducers %u edges %u"
                   " cross-worker %u waits %u\n",
                   pf_executor_name((pf_executor)e), def.workers, ms, d.energy, (unsigned long long)h, st.tasks,
                   st.reducers, st.edges, e == PF_EXEC_STATIC ? st.cross_edges : 0, e == PF_EXEC_STATIC ? st.waits : 0);
        if (tracing) {
            if (run_trace_write(rt, trace)) {
                status = 1;
            } else if (!hash_only) {
                printf("  trace of %s written to %s (open in Perfetto or chrome://tracing)\n",
                       pf_executor_name((pf_executor)e), trace);
            }
        }
        pf_runtime_destroy(rt);
    }
    if (!hash_only)
        printf("%s\n", status ? "executors DISAGREE: this is a bug" : "all executors left bitwise the same state");
    pf_graph_destroy(g);
    demo_free(&d);
    return status;
}
