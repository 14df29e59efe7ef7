/* physflow bench NAME: the table of benchmarks. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *what;
} benches[] = {
    {"tasks", bench_tasks, "runtime replay overhead per task and METG (Task Bench stencil) per executor"},
    {"loops", bench_loops, "CG solves as dynamic loops per executor; graph update against rebuild"},
    {"broadphase", bench_broadphase, "falling spheres (Poirrier 2009): broad phases, ms per step, pairs, memory"},
    {"splitting", bench_splitting, "Poirrier 2009 Table 1: kd-tree with and without box splitting"},
    {"hashing", bench_hashing, "Pouchol et al. 2009: hierarchical vs multilevel hash vs kd-tree"},
    {"rangequery", bench_rangequery, "Aïvázis 2010: b(N), r(N), s(N), q(N, n) of range-query methods"},
    {"scaling", bench_scaling, "Hermann et al. 2009, §4: physics scene ms per step per executor and worker count, speedup"},
};

int cmd_bench(int argc, char **argv)
{
    size_t count = sizeof benches / sizeof benches[0];
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        FILE *out = argc < 2 ? stderr : stdout;
        fprintf(out, "usage: physflow bench NAME [options]\n"
                     "  Every bench accepts --csv FILE: checked before the first timing (its folder must exist and\n"
                     "  take files; an existing file is not overwritten unless --force; exit 2), written whole when\n"
                     "  the bench succeeds.\n\n");
        for (size_t k = 0; k < count; k++) fprintf(out, "  %-12s %s\n", benches[k].name, benches[k].what);
        return argc < 2 ? 2 : 0;
    }
    for (size_t k = 0; k < count; k++)
        if (!strcmp(argv[1], benches[k].name)) return benches[k].fn(argc - 1, argv + 1);
    fprintf(stderr, "physflow: unknown benchmark '%s' (see 'physflow bench --help')\n", argv[1]);
    return 2;
}
