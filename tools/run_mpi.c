/* physflow run under mpirun (docs/runtime.md, "Across MPI ranks"): MPI started with MPI_THREAD_MULTIPLE when
 * the process was launched by mpirun, rank 0 alone printing and writing outputs, and an error on any rank ending
 * the whole job (MPI_Abort) so that no rank waits for it forever. Without MPI in the build it runs alone. */
#include "run_mpi.h"

#include "runtime/mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PF_HAVE_MPI
#include <mpi.h>

int run_mpi_launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

int run_mpi_start(int *rank)
{
    int level = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &level) != MPI_SUCCESS) {
        fprintf(stderr, "physflow run: MPI_Init_thread failed\n");
        return 1;
    }
    if (level < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "physflow run: this MPI gives thread level %d, not MPI_THREAD_MULTIPLE\n", level);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    return 0;
}

int run_mpi_end(int status)
{
    if (status) MPI_Abort(MPI_COMM_WORLD, status); /* the other ranks would wait for this one forever */
    MPI_Finalize();
    return status;
}
#else
int run_mpi_launched(void)
{
    return 0;
}

int run_mpi_start(int *rank)
{
    *rank = 0;
    return 0;
}

int run_mpi_end(int status)
{
    return status;
}
#endif

void run_mpi_summary(pf_runtime *rt, uint64_t steps)
{
    int rank = 0, ranks = 1;
    if (pf_runtime_get_rank(rt, &rank, &ranks) || ranks < 2 || !steps) return;
    pf_mpi_totals t;
    pf_runtime_mpi_totals(rt, &t);
    double n = (double)steps;
    printf("  MPI: %d ranks x %d workers; rank 0 sent per step %.1f messages, %.1f KiB during runs and %.1f KiB at "
           "their ends (%.3f ms per step there; %llu graph runs)\n",
           ranks, pf_runtime_workers(rt), (double)t.messages / n, (double)t.bytes / 1024.0 / n,
           (double)t.share_bytes / 1024.0 / n, (double)t.end_ns * 1e-6 / n, (unsigned long long)t.runs);
}

long run_mpi_fault_step(int rank)
{
    const char *e = getenv("PHYSFLOW_FAULT_RANK_EXIT"); /* RANK:STEP: that rank exits after that step */
    long r = -1, s = 0;
    if (!e || sscanf(e, "%ld:%ld", &r, &s) != 2 || r != rank || s < 1) return 0;
    return s;
}
