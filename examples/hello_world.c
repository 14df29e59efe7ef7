/* hello_world: the smallest complete PhysFlow host. It builds a scene in code - a soft FEM bar dropped on a
 * static floor with the collision stage on - steps it, and prints a few points and the state hash.
 *
 * Build:  cc hello_world.c $(pkg-config --cflags --libs physflow) -o hello_world
 * Run:    ./hello_world [WORKERS] [EXECUTOR]   (default 1 static)
 * The hash is the same for every worker count and executor: the runtime reduces in a fixed order. */
#include <physflow/physics.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Every PhysFlow call returns PF_OK (0) or a negative code; the message is pf_last_error() on this thread. */
#define TRY(call)                                                                                            \
    do {                                                                                                     \
        int rc_ = (call);                                                                                    \
        if (rc_ != PF_OK) {                                                                                  \
            fprintf(stderr, "hello_world: %s failed: %s (%s)\n", #call, pf_status_name(rc_),                 \
                    pf_last_error());                                                                        \
            goto fail;                                                                                       \
        }                                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    pf_world_def wd = pf_world_default_def(); /* gravity (0, 0, -9.81) m/s², dt 0.01 s */
    wd.dt = 0.005;
    wd.runtime.workers = argc > 1 ? atoi(argv[1]) : 1;
    wd.runtime.bind = 0; /* leave threads unpinned: a host usually shares its machine */
    wd.runtime.quiet = 1;
    pf_world *w = NULL;
    if (argc > 2 && pf_executor_parse(argv[2], &wd.runtime.executor) != PF_OK) {
        fprintf(stderr, "hello_world: %s\n", pf_last_error());
        return 2;
    }
    TRY(pf_world_create(&wd, &w)); /* the world owns its runtime (the worker team) */

    /* The floor: a flat 5x5 grid at z = 0, 2 m wide, every point fixed (a static object), its sheet as
     * surface. */
    pf_object_def floor_def = pf_object_default_def();
    floor_def.grid[0] = 5, floor_def.grid[1] = 5, floor_def.grid[2] = 1;
    floor_def.grid_min[0] = -1, floor_def.grid_min[1] = -1, floor_def.grid_min[2] = 0;
    floor_def.grid_max[0] = 1, floor_def.grid_max[1] = 1, floor_def.grid_max[2] = 0;
    pf_object_id floor_id;
    TRY(pf_world_add_object(w, &floor_def, &floor_id));
    const double everything[6] = {-2, -2, -1, 2, 2, 1};
    TRY(pf_world_fix_box(w, floor_id, everything, NULL));
    TRY(pf_world_add_grid_surface(w, floor_id, NULL));

    /* The bar: 6x3x3 points, 0.5 x 0.2 x 0.2 m, 10 cm above the floor, corotational hexahedral FEM. */
    pf_object_def bar_def = pf_object_default_def();
    bar_def.grid[0] = 6, bar_def.grid[1] = 3, bar_def.grid[2] = 3;
    bar_def.grid_min[0] = -0.25, bar_def.grid_min[1] = -0.1, bar_def.grid_min[2] = 0.1;
    bar_def.grid_max[0] = 0.25, bar_def.grid_max[1] = 0.1, bar_def.grid_max[2] = 0.3;
    bar_def.total_mass = 1.0;           /* kg, spread over the 54 points */
    bar_def.solver.rayleigh_mass = 1.0; /* 1/s: damps the bounce */
    pf_object_id bar;
    TRY(pf_world_add_object(w, &bar_def, &bar));
    pf_hexa_fem_def fem = pf_hexa_fem_default_def();
    fem.young_modulus = 2e5; /* Pa: soft rubber */
    fem.poisson_ratio = 0.3;
    TRY(pf_world_add_hexa_fem(w, bar, &fem, NULL));
    TRY(pf_world_add_grid_surface(w, bar, NULL));

    /* Collision: the bar's surface vertices against the floor's triangles, penalty contacts. */
    pf_collision_def cd = pf_collision_default_def();
    cd.stiffness = 2000; /* N/m per contact */
    cd.damping = 5;      /* N·s/m */
    TRY(pf_world_set_collision(w, &cd));

    /* 1 s of simulated time. The first step records the step's tasks; the following ones replay them. */
    for (int quarter = 0; quarter < 4; quarter++)
        TRY(pf_world_step(w, 50)); /* 4 x 50 x 5 ms */

    uint32_t n;
    const double *x = pf_world_positions(w, bar, &n); /* the world's memory: read it, never free it */
    const uint32_t shown[] = {0, 5, n / 2, n - 1};    /* two bottom corners, the middle, the top far corner */
    for (size_t k = 0; k < sizeof shown / sizeof *shown; k++) {
        uint32_t p = shown[k];
        printf("bar point %2" PRIu32 ": x = %+.6f  y = %+.6f  z = %+.6f m\n", p, x[3 * p], x[3 * p + 1],
               x[3 * p + 2]);
    }
    double lowest = x[2];
    for (uint32_t p = 1; p < n; p++)
        if (x[3 * p + 2] < lowest) lowest = x[3 * p + 2];
    pf_collision_stats cs;
    TRY(pf_world_get_collision_stats(w, &cs));
    printf("lowest bar point: z = %+.6f m; contacts: %" PRIu32 "\n", lowest, cs.contacts);
    printf("state-hash: %016" PRIx64 "\n", pf_world_state_hash(w));
    pf_world_destroy(w);
    return 0;
fail:
    pf_world_destroy(w);
    return 1;
}
