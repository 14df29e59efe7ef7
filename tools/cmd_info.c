/* physflow info: the machine as hwloc sees it, the build, and what is available (executors, partitioners,
 * broad phases and peers). */
#include "bench_csv.h"
#include "commands.h"
#include "host_check.h"

#include "physflow/collision.h"
#include "physflow/runtime.h"
#include "physflow/scene.h"
#include "runtime/mpi.h"

#include <hwloc.h>
#include <metis.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#ifndef PF_BUILDTYPE
#define PF_BUILDTYPE "unknown"
#endif

/* "64 KiB", "32 MiB" */
static void format_bytes(char *buf, size_t size, unsigned long long bytes)
{
    if (bytes >= (1ULL << 30) && bytes % (1ULL << 30) == 0)
        snprintf(buf, size, "%llu GiB", bytes >> 30);
    else if (bytes >= (1ULL << 20))
        snprintf(buf, size, "%.4g MiB", bytes / 1048576.0);
    else
        snprintf(buf, size, "%.4g KiB", bytes / 1024.0);
}

/* One line per level: how many objects and, for caches, the size and sharing of the first one. */
static void print_levels(hwloc_topology_t topo)
{
    static const struct {
        hwloc_obj_type_t type;
        const char *name;
    } levels[] = {{HWLOC_OBJ_PACKAGE, "packages"},   {HWLOC_OBJ_NUMANODE, "NUMA nodes"},
                  {HWLOC_OBJ_L3CACHE, "L3 caches"},  {HWLOC_OBJ_L2CACHE, "L2 caches"},
                  {HWLOC_OBJ_L1CACHE, "L1d caches"}, {HWLOC_OBJ_CORE, "cores"},
                  {HWLOC_OBJ_PU, "hardware threads"}};
    int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    for (size_t k = 0; k < sizeof levels / sizeof *levels; k++) {
        int n = hwloc_get_nbobjs_by_type(topo, levels[k].type);
        printf("  %-17s %d", levels[k].name, n);
        hwloc_obj_t first = hwloc_get_obj_by_type(topo, levels[k].type, 0);
        if (first && hwloc_obj_type_is_cache(levels[k].type)) {
            char sz[32];
            format_bytes(sz, sizeof sz, (unsigned long long)first->attr->cache.size);
            printf(" x %s, %d-way, %u-byte lines, shared by %d hardware thread(s)", sz,
                   first->attr->cache.associativity, first->attr->cache.linesize,
                   hwloc_bitmap_weight(first->cpuset));
        }
        if (levels[k].type == HWLOC_OBJ_CORE && n > 0) printf(" (%d hardware thread(s) each)", pus / n);
        printf("\n");
    }
}

static void print_topology(void)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
        printf("topology: hwloc could not load the topology\n");
        return;
    }
    printf("topology (hwloc %s):\n", HWLOC_VERSION);
    print_levels(topo);
    hwloc_obj_t pkg = NULL;
    while ((pkg = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pkg)) != NULL) {
        char set[256];
        hwloc_bitmap_list_snprintf(set, sizeof set, pkg->cpuset);
        const char *model = hwloc_obj_get_info_by_name(pkg, "CPUModel");
        int model_len = model ? (int)strlen(model) : 0;
        while (model_len > 0 && model[model_len - 1] == ' ')
            model_len--; /* some CPUs pad their name */
        printf("  package %u: %d core(s), PUs %s%s%.*s\n", pkg->os_index,
               hwloc_get_nbobjs_inside_cpuset_by_type(topo, pkg->cpuset, HWLOC_OBJ_CORE), set,
               model ? ", " : "", model_len, model ? model : "");
    }
    hwloc_obj_t numa = NULL;
    while ((numa = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, numa)) != NULL) {
        char set[256];
        hwloc_bitmap_list_snprintf(set, sizeof set, numa->cpuset);
        printf("  NUMA node %u: PUs %s, %.1f GiB\n", numa->os_index, set,
               numa->attr ? numa->attr->numanode.local_memory / 1073741824.0 : 0.0);
    }
    /* Workers are pinned to cores of this set: a cgroup or taskset may allow fewer than the machine has. */
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
    if (allowed && hwloc_get_cpubind(topo, allowed, HWLOC_CPUBIND_PROCESS) == 0) {
        char set[256];
        hwloc_bitmap_list_snprintf(set, sizeof set, allowed);
        printf("  this process may run on PUs %s\n", set);
    }
    hwloc_bitmap_free(allowed);
    hwloc_topology_destroy(topo);
}

/* _OPENMP is the date of the specification: 201511 = OpenMP 4.5. */
static const char *openmp_version(long date)
{
    static const struct {
        long date;
        const char *version;
    } known[] = {{202111, "5.2"}, {202011, "5.1"}, {201811, "5.0"}, {201511, "4.5"},
                 {201307, "4.0"}, {201107, "3.1"}, {200805, "3.0"}};
    for (size_t k = 0; k < sizeof known / sizeof *known; k++)
        if (date >= known[k].date) return known[k].version;
    return "before 3.0";
}

static void print_build(void)
{
    printf("build:\n  version           %s\n  buildtype         %s (%s, assertions %s)\n", PF_VERSION,
           PF_BUILDTYPE,
#ifdef __OPTIMIZE__
           "optimised",
#else
           "not optimised",
#endif
#ifdef NDEBUG
           "off"
#else
           "on"
#endif
    );
#if defined(__clang__)
    printf("  compiler          clang %s, C %ld, -ffp-contract=off\n", __clang_version__,
           (long)__STDC_VERSION__);
#elif defined(__GNUC__)
    printf("  compiler          gcc %s, C %ld, -ffp-contract=off\n", __VERSION__, (long)__STDC_VERSION__);
#else
    printf("  compiler          C %ld, -ffp-contract=off\n", (long)__STDC_VERSION__);
#endif
    printf("  OpenMP            %s (_OPENMP %d), %d thread(s) by default\n", openmp_version(_OPENMP), _OPENMP,
           omp_get_max_threads());
    printf("  METIS             %d.%d.%d, idx_t %d bits, real_t %d bits\n", METIS_VER_MAJOR, METIS_VER_MINOR,
           METIS_VER_SUBMINOR, (int)(8 * sizeof(idx_t)), (int)(8 * sizeof(real_t)));
    char mpi[160];
    pf_mpi_version(mpi, sizeof mpi);
#ifdef PF_HAVE_MPI
    printf("  MPI: built (%s); mpirun -np R physflow run SCENE --threads K spans R ranks\n", mpi);
#else
    printf("  MPI: not built (meson option mpi; Open MPI from tools/setup-deps)\n");
#endif
    printf("  peers built      ");
    int any = 0;
    for (int m = PF_BP_BULLET_DBVT; m < PF_BP_METHOD_COUNT; m++)
        if (pf_broadphase_method_available((pf_broadphase_method)m)) {
            printf(" %s", pf_broadphase_method_name((pf_broadphase_method)m));
            any = 1;
        }
    printf("%s\n", any ? "" : " none (meson option peers; tools/setup-deps --peers)");
}

static void print_available(void)
{
    printf("executors:");
    for (int e = 0; e < PF_EXEC_COUNT; e++)
        printf(" %s", pf_executor_name((pf_executor)e));
    printf("\npartitioners:");
    for (int p = 0; p < PF_PART_COUNT; p++)
        printf(" %s", pf_partitioner_name((pf_partitioner)p));
    printf("\nbroad phases:");
    for (int m = 0; m < PF_BP_BULLET_DBVT; m++)
        printf(" %s%s", pf_broadphase_method_name((pf_broadphase_method)m),
               pf_broadphase_method_available((pf_broadphase_method)m) ? "" : " (not built)");
    printf("\npeers:");
    for (int m = PF_BP_BULLET_DBVT; m < PF_BP_METHOD_COUNT; m++)
        printf(" %s (%s)", pf_broadphase_method_name((pf_broadphase_method)m),
               pf_broadphase_method_available((pf_broadphase_method)m) ? "available" : "not built");
    printf("\nbuilt-in scenes: %s\n", pf_scene_builtin_names());
}

int cmd_info(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: physflow info\n  prints the topology, the build options and what is available\n");
        return 0;
    }
    if (argc > 1) {
        if (argv[1][0] == '-') fprintf(stderr, "physflow info: unknown option '%s'\n", argv[1]);
        else fprintf(stderr, "physflow info: unexpected argument '%s' (info takes none)\n", argv[1]);
        return 2;
    }
    char machine[512];
    bench_machine_summary(machine, sizeof machine);
    printf("PhysFlow %s\nmachine: %s\n", PF_VERSION, machine);
    print_topology();
    double trip = host_round_trip_ns(1);
    if (trip > 0) printf("  core to core      a cache line from core 0 to core 1 and back in %.0f ns\n", trip);
    print_build();
    print_available();
    return 0;
}
