/* Placeholder until this command is implemented. */
#include "commands.h"

#include <stdio.h>

int bench_tasks(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "physflow: '%s' is not implemented yet\n", argv[0]);
    return 1;
}
