/* The physflow command: dispatches to run, check, bench, pairs and info. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out, "usage: physflow <command> [options]\n"
                 "\n"
                 "commands:\n"
                 "  run [SCENE]        run a scene (default: heterogeneous; --demo: the runtime demonstration)\n"
                 "  check SCENE        validate a scene file without running it\n"
                 "  bench NAME ...     benchmarks: tasks, loops, scaling, broadphase, splitting, hashing, rangequery\n"
                 "  pairs --method M FILE [--count]   overlapping pairs of the boxes in FILE\n"
                 "  info               topology, build options, executors and broad phases\n"
                 "\n"
                 "'physflow <command> --help' describes each command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } commands[] = {
        {"run", cmd_run},
        {"check", cmd_check},
        {"bench", cmd_bench},
        {"pairs", cmd_pairs},
        {"info", cmd_info},
    };
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (!strcmp(cmd, commands[k].name)) return commands[k].fn(argc - 1, argv + 1);
    fprintf(stderr, "physflow: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
