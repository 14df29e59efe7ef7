/* physflow info: the machine as hwloc sees it, the build, and what is available (executors, partitioners,
 * broad phases and peers). */
#include "bench_csv.h"
#include "commands.h"

#include "physflow/collision.h"
#include "physflow/runtime.h"

#include <hwloc.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

static void print_topology(void)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
        printf("topology: hwloc could not load the topology\n");
        return;
    }
    printf("topology (hwloc %s):\n", HWLOC_VERSION);
    static const struct {
        hwloc_obj_type_t type;
        const char *name;
    } levels[] = {{HWLOC_OBJ_PACKAGE, "packages"}, {HWLOC_OBJ_NUMANODE, "NUMA nodes"}, {HWLOC_OBJ_L3CACHE, "L3 caches"},
                  {HWLOC_OBJ_CORE, "cores"},       {HWLOC_OBJ_PU, "hardware threads"}};
    for (size_t k = 0; k < sizeof levels / sizeof *levels; k++)
        printf("  %-17s %d\n", levels[k].name, hwloc_get_nbobjs_by_type(topo, levels[k].type));
    hwloc_obj_t numa = NULL;
    while ((numa = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, numa)) != NULL) {
        char set[256];
        hwloc_bitmap_list_snprintf(set, sizeof set, numa->cpuset);
        printf("  NUMA node %u: CPUs %s, %.1f GiB\n", numa->os_index, set,
               numa->attr ? numa->attr->numanode.local_memory / 1073741824.0 : 0.0);
    }
    hwloc_topology_destroy(topo);
}

int cmd_info(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: physflow info\n  prints the topology, the build options and what is available\n");
        return 0;
    }
    char machine[512];
    bench_machine_summary(machine, sizeof machine);
    printf("PhysFlow %s\nmachine: %s\n", PF_VERSION, machine);
    print_topology();
    printf("build: %s, C %ld, OpenMP %d, -ffp-contract=off\n",
#ifdef __OPTIMIZE__
           "optimised",
#else
           "debug",
#endif
           (long)__STDC_VERSION__, _OPENMP);
    printf("executors:");
    for (int e = 0; e < PF_EXEC_COUNT; e++) printf(" %s", pf_executor_name((pf_executor)e));
    printf("\npartitioners:");
    for (int p = 0; p < PF_PART_COUNT; p++) printf(" %s", pf_partitioner_name((pf_partitioner)p));
    printf("\nbroad phases:");
    for (int m = 0; m < PF_BP_METHOD_COUNT; m++)
        printf(" %s%s", pf_broadphase_method_name((pf_broadphase_method)m),
               pf_broadphase_method_available((pf_broadphase_method)m) ? "" : " (not built)");
    printf("\n");
    return 0;
}
