/* Writes benchmark rows in the tidy CSV contract, with the machine, date and command as '#' comments. */
#include "bench_csv.h"

#include "cli_args.h"

#include <hwloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct bench_csv {
    cli_out out; /* out.f NULL: a sink */
};

static void cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon += 2;
                colon[strcspn(colon, "\n")] = '\0';
                snprintf(buf, size, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

void bench_machine_summary(char *buf, size_t size)
{
    char model[256];
    cpu_model(model, sizeof model);
    hwloc_topology_t topo;
    int packages = -1, numa = -1, cores = -1, pus = -1;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0) {
            packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
            numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
            cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
            pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        }
        hwloc_topology_destroy(topo);
    }
    snprintf(buf, size, "%s; %ld online CPUs; hwloc: %d package(s), %d NUMA node(s), %d core(s), %d PU(s)", model,
             sysconf(_SC_NPROCESSORS_ONLN), packages, numa, cores, pus);
}

int bench_csv_open(const char *path, int force, int argc, char **argv, bench_csv **out)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "bench %s", argc > 0 ? argv[0] : "");
    *out = NULL;
    if (path && cli_output_file(cmd, "--csv", path, force)) return 2;
    bench_csv *csv = calloc(1, sizeof *csv);
    if (!csv) {
        fprintf(stderr, "physflow %s: out of memory\n", cmd);
        return 1;
    }
    if (path && cli_out_open(&csv->out, cmd, path)) {
        free(csv);
        return 2;
    }
    *out = csv;
    if (!path) return 0;
    char machine[512];
    bench_machine_summary(machine, sizeof machine);
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(csv->out.f, "# machine: %s\n# date: %s\n# command: physflow bench", machine, date);
    for (int k = 0; k < argc; k++) fprintf(csv->out.f, " %s", argv[k]);
    fprintf(csv->out.f, "\nbench,case,method,workers,metric,value\n");
    return 0;
}

void bench_csv_row(bench_csv *csv, const char *bench, const char *case_name, const char *method, int workers,
                   const char *metric, double value)
{
    if (!csv || !csv->out.f) return;
    fprintf(csv->out.f, "%s,%s,%s,%d,%s,%.6g\n", bench, case_name, method, workers, metric, value);
}

int bench_csv_close(bench_csv *csv, int ok)
{
    if (!csv) return 0;
    int rc = 0;
    if (csv->out.f) {
        char path[4096];
        snprintf(path, sizeof path, "%s", csv->out.path);
        if (!ok) {
            fprintf(stderr, "physflow: the benchmark failed: '%s' not written\n", path);
            cli_out_discard(&csv->out);
            rc = -1;
        } else if (cli_out_commit(&csv->out, "bench")) {
            rc = -1;
        } else {
            fprintf(stderr, "physflow: wrote %s\n", path);
        }
    }
    free(csv);
    return rc;
}
