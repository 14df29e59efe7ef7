/* custom_forces: the PhysFlow runtime used directly, without the physics layer. A host registers its own
 * arrays as data, records tasks that declare how they access them (custom wind and damping forces accumulated
 * with PF_CUMUL into per-chunk force vectors, a symplectic Euler update, a kinetic energy summed across
 * chunks), runs the graph with the static executor on 2 workers, and checks the result against a plain
 * sequential loop.
 *
 * Build:  cc custom_forces.c $(pkg-config --cflags --libs physflow) -o custom_forces
 * Run:    ./custom_forces [WORKERS]   (default 2)
 * Cumulative writes are combined in recording order, so the check is bitwise, for any worker count. */
#include <physflow/runtime.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNKS = 4, PER_CHUNK = 2500, STEPS = 100 };

static const double DT = 1e-3;   /* s */
static const double MASS = 0.01; /* kg per particle */
static const double WIND = 0.05; /* N at height 0, growing linearly with height */
static const double DRAG = 0.02; /* N·s/m */
static const double GRAVITY = -9.81;

/* One chunk of particles: the data its tasks access. The runtime never copies these arrays: it reads and
 * writes them in place, so they must outlive the graph. */
typedef struct chunk {
    double x[3 * PER_CHUNK], v[3 * PER_CHUNK], f[3 * PER_CHUNK];
} chunk;

/* ---- the physics, written once and used by both the tasks and the sequential reference ---- */

static void wind_force(double *f, const double *x, int n)
{
    for (int i = 0; i < n; i++)
        f[3 * i] += WIND * (1.0 + x[3 * i + 2]);
}

static void drag_force(double *f, const double *v, int n)
{
    for (int i = 0; i < 3 * n; i++)
        f[i] += -DRAG * v[i];
}

static void integrate(double *x, double *v, const double *f, int n)
{
    for (int i = 0; i < 3 * n; i++) {
        double a = f[i] / MASS + (i % 3 == 2 ? GRAVITY : 0.0);
        v[i] += DT * a;
        x[i] += DT * v[i];
    }
}

static double kinetic_energy(const double *v, int n)
{
    double e = 0;
    for (int i = 0; i < 3 * n; i++)
        e += 0.5 * MASS * v[i] * v[i];
    return e;
}

/* ---- task bodies: ctx->data[k] is the memory of the task's k-th declared access ---- */

static void task_clear(const pf_task_ctx *ctx)
{
    memset(ctx->data[0], 0, 3 * PER_CHUNK * sizeof(double)); /* PF_WRITE: the old value is not read */
}

static void task_wind(const pf_task_ctx *ctx)
{
    /* data[0] is a private buffer holding the reducer's identity (zeros): add into it */
    wind_force(ctx->data[0], ctx->data[1], PER_CHUNK);
}

static void task_drag(const pf_task_ctx *ctx)
{
    drag_force(ctx->data[0], ctx->data[1], PER_CHUNK);
}

static void task_integrate(const pf_task_ctx *ctx)
{
    integrate(ctx->data[0], ctx->data[1], ctx->data[2], PER_CHUNK);
}

static void task_zero_energy(const pf_task_ctx *ctx)
{
    *(double *)ctx->data[0] = 0.0;
}

static void task_energy(const pf_task_ctx *ctx)
{
    *(double *)ctx->data[0] += kinetic_energy(ctx->data[1], PER_CHUNK);
}

static void initial_state(chunk *c)
{
    for (int k = 0; k < CHUNKS; k++)
        for (int i = 0; i < PER_CHUNK; i++) {
            int g = k * PER_CHUNK + i; /* a 100 x 100 sheet at height 1 m, 1 cm apart */
            c[k].x[3 * i] = 0.01 * (g % 100);
            c[k].x[3 * i + 1] = 0.01 * (g / 100);
            c[k].x[3 * i + 2] = 1.0;
            c[k].v[3 * i] = c[k].v[3 * i + 1] = c[k].v[3 * i + 2] = 0.0;
        }
}

/* The reference: the same operations in the order the tasks were recorded, and the cumulative writes combined
 * the way pf_reducer_sum_f64 does (datum = datum + buffer, one buffer after another, in recording order). */
static double run_sequential(chunk *c)
{
    static double wind[3 * PER_CHUNK], drag[3 * PER_CHUNK];
    double energy = 0;
    for (int s = 0; s < STEPS; s++) {
        energy = 0.0;
        for (int k = 0; k < CHUNKS; k++) {
            memset(c[k].f, 0, sizeof c[k].f);
            memset(wind, 0, sizeof wind);
            memset(drag, 0, sizeof drag);
            wind_force(wind, c[k].x, PER_CHUNK);
            drag_force(drag, c[k].v, PER_CHUNK);
            for (int i = 0; i < 3 * PER_CHUNK; i++)
                c[k].f[i] = (c[k].f[i] + wind[i]) + drag[i];
            integrate(c[k].x, c[k].v, c[k].f, PER_CHUNK);
        }
        for (int k = 0; k < CHUNKS; k++)
            energy = energy + (0.0 + kinetic_energy(c[k].v, PER_CHUNK));
    }
    return energy;
}

/* FNV-1a 64 over bytes, like pf_world_state_hash: equal hashes mean bitwise equal states. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

#define TRY(call)                                                                                            \
    do {                                                                                                     \
        int rc_ = (call);                                                                                    \
        if (rc_ != PF_OK) {                                                                                  \
            fprintf(stderr, "custom_forces: %s failed: %s (%s)\n", #call, pf_status_name(rc_),               \
                    pf_last_error());                                                                        \
            goto done;                                                                                       \
        }                                                                                                    \
    } while (0)

/* Records one step: per chunk clear f, wind and drag into f (PF_CUMUL), integrate; then the energy of all
 * chunks summed into one scalar (PF_CUMUL across chunks, so across workers). */
static int record_step(pf_graph *g, chunk *c, double *energy)
{
    pf_reducer sum = pf_reducer_sum_f64();
    pf_data_id x[CHUNKS], v[CHUNKS], f[CHUNKS], e;
    for (uint32_t k = 0; k < CHUNKS; k++) {
        /* owner k: the static owner-compute partitioner keeps a chunk's tasks on one worker */
        int rc = pf_graph_data(g, c[k].x, sizeof c[k].x, k, NULL, &x[k]);
        if (!rc) rc = pf_graph_data(g, c[k].v, sizeof c[k].v, k, NULL, &v[k]);
        if (!rc) rc = pf_graph_data(g, c[k].f, sizeof c[k].f, k, &sum, &f[k]);
        if (rc) return rc;
    }
    int rc = pf_graph_data(g, energy, sizeof *energy, 0, &sum, &e);
    if (rc) return rc;
    pf_access a_zero[] = {{e, PF_WRITE}};
    pf_task_def zero = {.fn = task_zero_energy, .name = "zero energy", .accesses = a_zero, .naccesses = 1};
    if ((rc = pf_graph_task(g, &zero, NULL))) return rc;
    for (int k = 0; k < CHUNKS; k++) {
        pf_access a_clear[] = {{f[k], PF_WRITE}};
        pf_access a_wind[] = {{f[k], PF_CUMUL}, {x[k], PF_READ}};
        pf_access a_drag[] = {{f[k], PF_CUMUL}, {v[k], PF_READ}};
        pf_access a_int[] = {{x[k], PF_READWRITE}, {v[k], PF_READWRITE}, {f[k], PF_READ}};
        pf_access a_energy[] = {{e, PF_CUMUL}, {v[k], PF_READ}};
        const pf_task_def defs[] = {
            {.fn = task_clear, .name = "clear f", .accesses = a_clear, .naccesses = 1},
            {.fn = task_wind, .name = "wind", .accesses = a_wind, .naccesses = 2},
            {.fn = task_drag, .name = "drag", .accesses = a_drag, .naccesses = 2},
            {.fn = task_integrate, .name = "integrate", .accesses = a_int, .naccesses = 3},
            {.fn = task_energy, .name = "energy", .accesses = a_energy, .naccesses = 2},
        };
        for (size_t t = 0; t < sizeof defs / sizeof *defs; t++)
            if ((rc = pf_graph_task(g, &defs[t], NULL))) return rc;
    }
    return PF_OK;
}

int main(int argc, char **argv)
{
    int status = 1;
    chunk *par = malloc(CHUNKS * sizeof *par), *ref = malloc(CHUNKS * sizeof *ref);
    double *energy = malloc(sizeof *energy);
    pf_runtime *rt = NULL;
    pf_graph *g = NULL;
    if (!par || !ref || !energy) goto done;
    initial_state(par);
    initial_state(ref);

    pf_runtime_def rd = pf_runtime_default_def();
    rd.workers = argc > 1 ? atoi(argv[1]) : 2;
    rd.executor = PF_EXEC_STATIC;
    rd.bind = 0;
    rd.quiet = 1;
    TRY(pf_runtime_create(&rd, &rt)); /* starts workers-1 threads; this thread is worker 0 */
    TRY(pf_graph_create(&g));
    TRY(record_step(g, par, energy));
    /* The first run analyses, partitions and compiles the graph; the next ones replay the compiled programs.
     */
    for (int s = 0; s < STEPS; s++)
        TRY(pf_graph_run(g, rt));

    pf_graph_stats st;
    TRY(pf_graph_get_stats(g, &st));
    printf("graph: %" PRIu32 " tasks, %" PRIu32 " reducers, %" PRIu32 " edges, %" PRIu32
           " cross-worker edges; %d workers, executor %s, %" PRIu64 " runs\n",
           st.tasks, st.reducers, st.edges, st.cross_edges, rd.workers, pf_executor_name(rd.executor),
           st.runs);

    double ref_energy = run_sequential(ref);
    int same =
        memcmp(par, ref, CHUNKS * sizeof *par) == 0 && memcmp(energy, &ref_energy, sizeof ref_energy) == 0;
    printf("kinetic energy after %d steps: %.17g J (sequential loop: %.17g J)\n", STEPS, *energy, ref_energy);
    printf("particle 0: z = %.17g m, x = %.17g m\n", par[0].x[2], par[0].x[0]);
    uint64_t h = fnv1a(0xcbf29ce484222325ULL, par, CHUNKS * sizeof *par);
    printf("state-hash: %016" PRIx64 "\n", fnv1a(h, energy, sizeof *energy));
    printf("%s\n", same ? "matches the sequential loop bitwise" : "DIFFERS from the sequential loop");
    status = same ? 0 : 1;
done:
    pf_graph_destroy(g); /* destroy the graph before the runtime and before freeing the data it names */
    pf_runtime_destroy(rt);
    free(par);
    free(ref);
    free(energy);
    return status;
}
