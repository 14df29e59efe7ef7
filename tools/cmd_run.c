/* physflow run [SCENE | NAME]: runs a scene (default: the built-in heterogeneous scene) step by step, or with
 * --demo the runtime demonstration (a heat equation recorded once as a task graph, replayed by every executor). */
#include "cli_args.h"
#include "commands.h"
#include "run.h"
#include "run_mpi.h"
#include "scene_cli.h"

#include "physflow/collision.h"
#include "physflow/scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: physflow run [SCENE] [--steps N] [--dt S] [--threads K] [--executor E] [--partitioner P]\n"
            "                    [--repartition R] [--broadphase M] [--trace FILE] [--vtk DIR] [--vtk-every N] [--csv FILE]\n"
            "                    [--html FILE] [--html-every N]\n"
            "                    [--checkpoint FILE] [--hash] [--force] [--no-bind] [--data-path DIR:DIR] [--strict]\n"
            "       physflow run --resume FILE [--steps N] [...]\n"
            "       physflow run --demo [--steps N] [--threads K] [--executor E] [--partitioner P] [--trace FILE]\n"
            "                    [--hash] [--no-bind]\n"
            "  SCENE: a built-in scene (%s)\n"
            "  or an XML scene file (SOFA vocabulary, docs/scenes.md); default heterogeneous. Runs N steps\n"
            "  (default 100; 300 for the default scene) one at a time with executor E (default static),\n"
            "  partitioner P (owner or metis) and K workers (default: all cores), then prints the\n"
            "  median ms per step and per stage (collision, graph update, integration), the graph updates (count,\n"
            "  median and max ms), tasks moved, the runtime's counters (load imbalance, waits, repartitions),\n"
            "  the implicit solvers' CG (iterations; solves that stalled or ended above the tolerance),\n"
            "  final contacts and solver groups, and the state hash.\n"
            "  --repartition R: when the static executor partitions the graph again as contacts and measured load\n"
            "  change it: auto (default: when it pays), never, always (after every structural update).\n"
            "  A relative file name in the scene (mesh, <include href>) is looked up beside it, then in each\n"
            "  folder of --data-path and of PHYSFLOW_DATA_PATH (':' separated), as SOFA's data path. An attribute\n"
            "  no component knows is a warning, as in SOFA; --strict makes it an error.\n"
            "  --dt overrides the scene's time step, --broadphase its broad phase (kd, hhash, mlhash, grid, sap,\n"
            "  brute). --csv writes one row per step (docs/scenes.md); --vtk writes VTK XML PolyData frames (every\n"
            "  surface and every object's points) every --vtk-every steps (default 1) and scene.pvd for ParaView;\n"
            "  --trace a Chrome trace. --html writes the run viewer: one self-contained page (three.js inlined) replaying the\n"
            "  scene coloured by object, worker or solver group beside each step's per-worker timeline (docs/outputs.md);\n"
            "  a frame every --html-every steps (default: every step while the page stays under 16 MB of frames, then\n"
            "  every 2nd, 4th ...); it traces the run itself, so it does not go with --trace. Every output is checked before the first step (exit 2): its folder must\n"
            "  exist and take files, and an existing file or a non-empty folder is not overwritten unless --force.\n"
            "  Files are written whole by a run that succeeds, or not at all.\n"
            "  --hash prints only 'state-hash: <16 hex>' (FNV-1a over every object's state), the same for every\n"
            "  executor, worker count and partitioner. Exit 1 on a numerical fault (message on stderr), 2 on bad\n"
            "  input (a scene's errors as 'file:line: message').\n"
            "  Under mpirun (when built with MPI): one simulation over the ranks, K workers each, static executor;\n"
            "  rank 0 prints and writes the outputs; an error on any rank ends the whole job (docs/runtime.md).\n"
            "  --checkpoint FILE writes the state after the N steps (atomically; an existing file, an older\n"
            "  checkpoint too, is replaced only with --force); --resume FILE rebuilds that checkpoint's scene\n"
            "  (with its --dt and --broadphase), restores the state and runs N more steps: the same state as the\n"
            "  uninterrupted run.\n"
            "  --demo: the runtime demonstration (a heat equation cut into 16 objects) replayed N steps (default\n"
            "  200) with each executor (or only E).\n",
            pf_scene_builtin_names());
}

int cmd_run(int argc, char **argv)
{
    run_opts o = {.executor = PF_EXEC_STATIC, .partitioner = PF_PART_OWNER, .repartition = PF_REPART_AUTO,
                  .broadphase = -1, .vtk_every = 1,
                  .bind = 1, .argc = argc, .argv = argv};
    int demo = 0, executor_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int got;
        if (!strcmp(a, "--demo")) {
            demo = 1;
        } else if (!strcmp(a, "--no-bind")) {
            o.bind = 0;
        } else if (!strcmp(a, "--hash")) {
            o.hash_only = 1;
        } else if (!strcmp(a, "--force")) {
            o.force = 1;
        } else if (!strcmp(a, "--strict")) {
            o.strict = 1;
        } else if (a[0] != '-') {
            if (o.scene) {
                fprintf(stderr, "physflow run: one scene at a time ('%s', then '%s')\n", o.scene, a);
                return 2;
            }
            o.scene = a;
        } else if ((got = cli_option_value(argc, argv, &i, "run", "--steps --threads --vtk-every --executor "
                                           "--partitioner --broadphase --repartition --dt --trace --vtk --csv --html --html-every "
                                           "--checkpoint --resume --data-path", usage, &v)) != CLI_VALUE) {
            return got == CLI_HELP ? 0 : 2;
        } else if (!strcmp(a, "--steps")) {
            if (cli_long(a, v, 1, 100000000, &o.steps)) return 2;
        } else if (!strcmp(a, "--threads")) {
            if (cli_long(a, v, 1, 4096, &o.threads)) return 2;
        } else if (!strcmp(a, "--html-every")) {
            if (cli_long(a, v, 1, 100000000, &o.html_every)) return 2;
        } else if (!strcmp(a, "--vtk-every")) {
            if (cli_long(a, v, 1, 100000000, &o.vtk_every)) return 2;
        } else if (!strcmp(a, "--executor") || !strcmp(a, "--partitioner") || !strcmp(a, "--broadphase")) {
            pf_broadphase_method bp = PF_BP_KD;
            int bad = a[2] == 'e' ? pf_executor_parse(v, &o.executor)
                      : a[2] == 'p' ? pf_partitioner_parse(v, &o.partitioner)
                                    : pf_broadphase_method_parse(v, &bp) || bp == PF_BP_KD_RAW;
            if (bad) {
                fprintf(stderr, "physflow run: %s: '%s' is not known (%s)\n", a, v,
                        a[2] == 'b' ? "kd, hhash, mlhash, grid, sap, brute" : pf_last_error());
                return 2;
            }
            if (a[2] == 'b') o.broadphase = (int)bp;
            if (a[2] == 'e') executor_given = 1;
        } else if (!strcmp(a, "--repartition")) {
            if (pf_repartition_parse(v, &o.repartition)) {
                fprintf(stderr, "physflow run: --repartition: '%s' is not known (auto, never, always)\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--dt")) {
            if (scene_cli_dt("physflow run", v, &o.dt)) return 2;
        } else if (!strcmp(a, "--trace")) {
            o.trace = v;
        } else if (!strcmp(a, "--vtk")) {
            o.vtk = v;
        } else if (!strcmp(a, "--html")) {
            o.html = v;
        } else if (!strcmp(a, "--csv")) {
            o.csv = v;
        } else if (!strcmp(a, "--checkpoint")) {
            o.checkpoint = v;
        } else if (!strcmp(a, "--resume")) {
            o.resume = v;
        } else if (!strcmp(a, "--data-path")) {
            o.data_path = v;
        } else {
            return cli_unknown_option("run", a, usage);
        }
    }
    if (o.threads == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        o.threads = cpus > 0 ? cpus : 1;
    }
    if (demo) {
        if (o.scene || o.dt > 0 || o.vtk || o.csv || o.html || o.broadphase >= 0 || o.checkpoint || o.resume) {
            fprintf(stderr, "physflow run: --demo takes no scene, --dt, --broadphase, --vtk, --csv, --html, "
                            "--checkpoint or --resume\n");
            return 2;
        }
        if (o.trace && cli_output_file("run", "--trace", o.trace, o.force)) return 2;
        return run_demo(o.steps ? o.steps : 200, o.threads, executor_given ? o.executor : PF_EXEC_COUNT,
                        o.partitioner, o.trace, o.hash_only, o.bind);
    }
    if (o.html && o.trace) {
        fprintf(stderr, "physflow run: --html traces the run itself: give --html or --trace, not both\n");
        return 2;
    }
    if (o.html_every && !o.html) {
        fprintf(stderr, "physflow run: --html-every goes with --html\n");
        return 2;
    }
    char *resumed = NULL;
    if (o.resume) {
        if (o.scene || o.dt > 0 || o.broadphase >= 0) {
            fprintf(stderr, "physflow run: --resume takes its scene, --dt and --broadphase from the checkpoint\n");
            return 2;
        }
        int rc = run_checkpoint_scene(o.resume, &o, &resumed);
        if (rc) return rc;
    }
    if (!o.steps) o.steps = o.scene ? 100 : 300; /* 300: long enough for the default scene to settle in one pile */
    if (!o.scene) o.scene = "heterogeneous";
    if (run_mpi_launched()) { /* mpirun: one simulation over all ranks, rank 0 speaking for them */
        if (o.executor != PF_EXEC_STATIC) {
            fprintf(stderr, "physflow run: under mpirun the executor is static, got %s\n", pf_executor_name(o.executor));
            free(resumed);
            return 2;
        }
        if (run_mpi_start(&o.rank)) {
            free(resumed);
            return 1;
        }
        o.mpi = 1;
        o.exit_step = run_mpi_fault_step(o.rank);
        if (o.rank != 0) {
            o.csv = o.vtk = o.html = o.trace = o.checkpoint = NULL;
            if (!freopen("/dev/null", "w", stdout)) fprintf(stderr, "physflow run: rank %d prints too\n", o.rank);
        }
    }
    int rc = run_scene(&o);
    free(resumed);
    return o.mpi ? run_mpi_end(rc) : rc;
}
