/* Writes benchmark rows in the tidy CSV contract, with the machine, date and command as '#' comments. */
#include "bench_csv.h"

#include <hwloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct bench_csv {
    FILE *f;
    char *path;
    char *tmp;
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

bench_csv *bench_csv_open(const char *path, int argc, char **argv)
{
    bench_csv *csv = calloc(1, sizeof *csv);
    if (!csv) return NULL;
    if (!path) return csv;
    size_t len = strlen(path) + 16;
    csv->path = strdup(path);
    csv->tmp = malloc(len);
    if (!csv->path || !csv->tmp) goto fail;
    snprintf(csv->tmp, len, "%s.tmp", path);
    csv->f = fopen(csv->tmp, "w");
    if (!csv->f) {
        fprintf(stderr, "physflow: cannot write '%s'\n", csv->tmp);
        goto fail;
    }
    char machine[512];
    bench_machine_summary(machine, sizeof machine);
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(csv->f, "# machine: %s\n# date: %s\n# command: physflow bench", machine, date);
    for (int k = 0; k < argc; k++) fprintf(csv->f, " %s", argv[k]);
    fprintf(csv->f, "\nbench,case,method,workers,metric,value\n");
    return csv;
fail:
    free(csv->path);
    free(csv->tmp);
    free(csv);
    return NULL;
}

void bench_csv_row(bench_csv *csv, const char *bench, const char *case_name, const char *method, int workers,
                   const char *metric, double value)
{
    if (!csv || !csv->f) return;
    fprintf(csv->f, "%s,%s,%s,%d,%s,%.6g\n", bench, case_name, method, workers, metric, value);
}

int bench_csv_close(bench_csv *csv)
{
    if (!csv) return 0;
    int rc = 0;
    if (csv->f) {
        if (fclose(csv->f) != 0 || rename(csv->tmp, csv->path) != 0) {
            fprintf(stderr, "physflow: cannot write '%s'\n", csv->path);
            rc = -1;
        } else {
            fprintf(stderr, "physflow: wrote %s\n", csv->path);
        }
    }
    free(csv->path);
    free(csv->tmp);
    free(csv);
    return rc;
}
