/* physflow run: a scene run step by step with per-step measurements, optional CSV and VTK output (run_scene.c,
 * run_output.c), and the runtime demonstration (run_demo.c). */
#ifndef PF_TOOLS_RUN_H
#define PF_TOOLS_RUN_H

#include "cli_args.h"

#include "physflow/html.h"
#include "physflow/physics.h"
#include "physflow/runtime.h"

#include <stdint.h>
#include <stdio.h>

typedef struct run_opts {
    const char *scene;        /* built-in name or file */
    long steps, threads;
    pf_executor executor;
    pf_partitioner partitioner;
    pf_repartition repartition;
    double dt;                /* > 0: overrides the scene's */
    int broadphase;           /* >= 0: overrides the scene's */
    const char *trace;        /* Chrome trace file, or NULL */
    const char *vtk;          /* VTK folder, or NULL */
    long vtk_every;           /* a frame every N steps */
    const char *csv;          /* per-step CSV, or NULL */
    const char *html;         /* the run viewer's page, or NULL */
    long html_every;          /* its frame stride; 0: automatic (physflow/html.h) */
    const char *checkpoint;   /* state written here after the steps, or NULL */
    const char *resume;       /* checkpoint whose scene and state the run continues, or NULL */
    const char *data_path;    /* folders where the scene's relative files are looked up, or NULL */
    int hash_only, bind, force, strict;
    int mpi, rank;            /* launched by mpirun: the runtime spans the ranks; this process's rank */
    long exit_step;           /* > 0: exit after that step without a word to MPI (PHYSFLOW_FAULT_RANK_EXIT) */
    int argc;                 /* the command line, for the CSV header */
    char **argv;
} run_opts;

/* Loads and runs a scene; 0, 1 (numerical fault, output failure) or 2 (bad input). */
int run_scene(const run_opts *o);
/* The heat-equation demonstration. */
int run_demo(long steps, long threads, pf_executor only, pf_partitioner part, const char *trace, int hash_only,
             int bind);

/* ---- checkpoints (run_checkpoint.c) ---- */
/* The scene and settings a checkpoint was made with, read from its note into o (scene, dt, broadphase); 0 or 2
 * after a message. `scene` receives the scene text's storage (free it). */
int run_checkpoint_scene(const char *path, run_opts *o, char **scene);
/* Writes w's state to path with o's scene and settings as the note; 0, or 1 after a message. */
int run_checkpoint_write(pf_world *w, const run_opts *o, const char *path);

/* ---- outputs (run_output.c; their checks: cli_output_file, cli_output_dir) ---- */
/* The Chrome trace of rt written whole to path (a temporary file renamed into place); 0, or 1 after a message. */
int run_trace_write(pf_runtime *rt, const char *path);

/* The run viewer (physflow/html.h) of w at path, begun before the first step: 0, or 1 after a message. */
int run_html_begin(pf_world *w, const run_opts *o, pf_html_writer **out);
/* After each step: 0, or 1 after a message (the writer is then discarded and *h set to NULL). */
int run_html_step(pf_html_writer **h, pf_world *w);
/* Writes the page (status 0; *ms: the time it took) or discards it; returns the new status. */
int run_html_end(pf_html_writer *h, int status, double *ms);

/* One row of the per-step table. */
typedef struct run_step {
    uint64_t step;
    double ms_step, ms_collision, ms_update, ms_integration;
    uint32_t contacts, pairs, started, stopped, groups, tasks, tasks_added, tasks_removed, tasks_moved;
    uint64_t candidates;
    int updated;
    /* the runtime's counters of the step's graph run (pf_world_get_stats) */
    double imbalance, busy_ms, wait_ms, idle_ms, ms_repartition;
    uint64_t waits, waits_blocked;
    uint32_t repartitions, objects_moved; /* during this step */
    /* the implicit solvers' CG in this step (pf_world_get_stats): iterations summed over groups and the most of
       one group, solves that stalled or ended unconverged */
    uint32_t cg_iterations, cg_iterations_max;
    uint64_t cg_stalled, cg_unconverged;
    /* the collision stage (pf_collision_stats): the smallest gap among contacts (m, +inf without), and the
       surface pairs that broke the rule of pf_collision_def (approached by more than alarm - contact distance) */
    double min_distance;
    uint32_t fast_pairs;
} run_step;
/* The per-step CSV into *out (cli_out: renamed into place by cli_out_commit): '#' lines (machine, date,
 * command), a header, then one row per step (run_csv_row on out->f). 0, or -1 after a message. */
int run_csv_open(cli_out *out, const char *path, int argc, char **argv);
void run_csv_row(FILE *f, const run_step *r);

/* The VTK XML PolyData frame `frame` of world w into dir/frame_NNNNNN.vtp: one piece per surface (its current
 * vertices and triangles) and one per object (its points). Returns 0 or -1 (message on stderr). */
int run_vtk_frame(pf_world *w, const char *dir, uint32_t frame);
/* The ParaView collection dir/scene.pvd of frames 0..frames-1 at times t0 + k * dt_frame. */
int run_vtk_collection(const char *dir, uint32_t frames, double dt_frame);

#endif
