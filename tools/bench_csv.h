/* The benchmark CSV contract (ARCHITECTURE.md): '#' lines naming machine, date and command, then tidy rows
 * `bench,case,method,workers,metric,value`. Every `physflow bench` writes through this. */
#ifndef PF_TOOLS_BENCH_CSV_H
#define PF_TOOLS_BENCH_CSV_H

#include <stdio.h>

typedef struct bench_csv bench_csv;

/* argc/argv are the benchmark's own (argv[0] = its name): the command line is recorded as "physflow bench ...".
 * Opens `path` for writing into *out (NULL path: a sink that drops rows, so callers need no branches), under the
 * rule of every output (cli_output_file): an existing file is refused without `force`. Call it before the first
 * timing. Writes to a temporary file renamed over `path` on close, so a failed or interrupted run never leaves
 * half a file. Returns 0, or the exit code after a message on stderr: 2 (refused, unwritable), 1 (no memory). */
int bench_csv_open(const char *path, int force, int argc, char **argv, bench_csv **out);
void bench_csv_row(bench_csv *csv, const char *bench, const char *case_name, const char *method, int workers,
                   const char *metric, double value);
/* `ok`: flushes, renames into place and frees; else (the benchmark failed) removes the rows and frees. Returns 0,
 * or -1 after a message on stderr (also when !ok and a file was to be written). */
int bench_csv_close(bench_csv *csv, int ok);

/* One line describing this machine: CPU model, cores, hwloc summary (packages, NUMA nodes, cores, PUs). */
void bench_machine_summary(char *buf, size_t size);

#endif
