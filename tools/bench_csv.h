/* The benchmark CSV contract (ARCHITECTURE.md): '#' lines naming machine, date and command, then tidy rows
 * `bench,case,method,workers,metric,value`. Every `physflow bench` writes through this. */
#ifndef PF_TOOLS_BENCH_CSV_H
#define PF_TOOLS_BENCH_CSV_H

#include <stdio.h>

typedef struct bench_csv bench_csv;

/* argc/argv are the benchmark's own (argv[0] = its name): the command line is recorded as "physflow bench ...".
 * Opens `path` for writing (NULL path: returns a sink that drops rows, so callers need no branches).
 * Writes to a temporary file renamed over `path` on close, so an interrupted run never leaves half a file.
 * Returns NULL with a message on stderr when the file cannot be created. */
bench_csv *bench_csv_open(const char *path, int argc, char **argv);
void bench_csv_row(bench_csv *csv, const char *bench, const char *case_name, const char *method, int workers,
                   const char *metric, double value);
/* Flushes, renames into place and frees. Returns 0 or -1 (message on stderr). */
int bench_csv_close(bench_csv *csv);

/* One line describing this machine: CPU model, cores, hwloc summary (packages, NUMA nodes, cores, PUs). */
void bench_machine_summary(char *buf, size_t size);

#endif
