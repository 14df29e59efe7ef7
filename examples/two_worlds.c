/* two_worlds: two independent worlds stepped at the same time from two host threads, each with its own worker
 * team - the threading rule of PhysFlow (a world is used by one thread at a time; different worlds share
 * nothing). Each world is a cloth-like spring grid hanging from one edge; the states reached concurrently are
 * checked bitwise against the same worlds stepped one after the other on the main thread with the seq
 * executor.
 *
 * Build:  cc two_worlds.c $(pkg-config --cflags --libs physflow) -pthread -o two_worlds
 * Run:    ./two_worlds [WORKERS]   (workers per world, default 2) */
#include <physflow/physics.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { STEPS = 100 };

typedef struct job {
    int side; /* points per grid side: the two worlds differ */
    int workers;
    pf_executor executor;
    uint64_t hash;   /* out */
    int status;      /* out: PF_OK or a code */
    char error[256]; /* out: pf_last_error() of the thread that failed (it is per thread) */
} job;

/* A side x side spring sheet in the x-z plane, 1 m wide, its top row fixed. */
static int build(pf_world *w, int side)
{
    pf_object_def od = pf_object_default_def();
    od.grid[0] = side, od.grid[1] = 1, od.grid[2] = side;
    od.grid_min[0] = 0, od.grid_min[1] = 0, od.grid_min[2] = 0;
    od.grid_max[0] = 1, od.grid_max[1] = 0, od.grid_max[2] = 1;
    od.total_mass = 0.5;
    od.solver.rayleigh_mass = 0.5;
    pf_object_id sheet;
    int rc = pf_world_add_object(w, &od, &sheet);
    if (!rc) rc = pf_world_add_grid_springs(w, sheet, 200.0, 0.1, NULL, NULL);
    const double top_row[6] = {-1, -1, 0.999, 2, 1, 2};
    if (!rc) rc = pf_world_fix_box(w, sheet, top_row, NULL);
    return rc;
}

static void *simulate(void *arg)
{
    job *j = arg;
    pf_world_def wd = pf_world_default_def();
    wd.runtime.workers = j->workers;
    wd.runtime.executor = j->executor;
    wd.runtime.bind = 0; /* two teams on one machine: pinning both to cores 0..K-1 would stack them */
    wd.runtime.quiet = 1;
    pf_world *w = NULL;
    j->status = pf_world_create(&wd, &w);
    if (!j->status) j->status = build(w, j->side);
    if (!j->status) j->status = pf_world_step(w, STEPS);
    if (!j->status)
        j->hash = pf_world_state_hash(w);
    else
        snprintf(j->error, sizeof j->error, "%s", pf_last_error()); /* read on the failing thread */
    pf_world_destroy(w);
    return NULL;
}

int main(int argc, char **argv)
{
    int workers = argc > 1 ? atoi(argv[1]) : 2;
    job par[2] = {{.side = 24, .workers = workers, .executor = PF_EXEC_STATIC},
                  {.side = 32, .workers = workers, .executor = PF_EXEC_STATIC}};
    pthread_t th[2];
    for (int k = 0; k < 2; k++)
        if (pthread_create(&th[k], NULL, simulate, &par[k]) != 0) return 1;
    for (int k = 0; k < 2; k++)
        pthread_join(th[k], NULL);

    int same = 1;
    uint64_t combined = 0xcbf29ce484222325ULL;
    for (int k = 0; k < 2; k++) {
        job ref = {.side = par[k].side, .workers = 1, .executor = PF_EXEC_SEQ};
        simulate(&ref);
        if (par[k].status || ref.status) {
            fprintf(stderr, "two_worlds: world %d failed: %s%s\n", k, par[k].error, ref.error);
            return 1;
        }
        printf("world %d (%dx%d sheet): concurrent %016" PRIx64 ", alone with seq %016" PRIx64 "\n", k,
               par[k].side, par[k].side, par[k].hash, ref.hash);
        same = same && par[k].hash == ref.hash;
        combined = (combined ^ par[k].hash) * 0x100000001b3ULL;
    }
    printf("state-hash: %016" PRIx64 "\n", combined);
    printf("%s\n", same ? "concurrent worlds match their sequential runs bitwise"
                        : "DIFFERENT from the sequential runs");
    return same ? 0 : 1;
}
