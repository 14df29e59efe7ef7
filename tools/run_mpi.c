/* physflow run under mpirun (docs/runtime.md, "Across MPI ranks"): MPI started with MPI_THREAD_MULTIPLE when
 * the process was launched by mpirun, rank 0 alone printing and writing outputs, and an error on any rank ending
 * the whole job (MPI_Abort) so that no rank waits for it forever. Without MPI in the build it runs alone. */
#include "run_mpi.h"

#include "runtime/mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef PF_HAVE_MPI
#include <mpi.h>

/* The ranks agree on how the run ended on a communicator of their own, apart from the runtime's messages. */
static MPI_Comm end_comm = MPI_COMM_NULL;
enum { END_WAIT_MS = 10000 }; /* how long a failed rank waits for the others to reach the end as well */

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
    MPI_Comm_dup(MPI_COMM_WORLD, &end_comm);
    return 0;
}

int run_mpi_ranks(void)
{
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    return ranks;
}

void run_mpi_wait_all(void)
{
    MPI_Request req;
    MPI_Ibarrier(end_comm, &req);
    for (int done = 0; !done;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done) nanosleep(&(struct timespec){0, 200000}, NULL);
    }
}

/* Whether req completed within ms milliseconds. */
static int wait_for(MPI_Request *req, int ms)
{
    struct timespec nap = {0, 1000000};
    for (int waited = 0;; waited++) {
        int done = 0;
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done) return 1;
        if (waited >= ms) return 0;
        nanosleep(&nap, NULL);
    }
}

/* The worst status of all ranks. When every rank ends, even with an error they all met (a contact, say), the job
 * finalizes and exits with it; a rank that failed alone cannot wait for the others, which would wait for it in the
 * run forever, so after END_WAIT_MS it aborts the job. MPI_Abort is kept for that case only: Open MPI 4.1's mpirun
 * was seen to crash when every rank aborted at once. */
int run_mpi_end(int status)
{
    int worst = status;
    MPI_Request req;
    MPI_Iallreduce(&status, &worst, 1, MPI_INT, MPI_MAX, end_comm, &req);
    if (status && !wait_for(&req, END_WAIT_MS)) MPI_Abort(MPI_COMM_WORLD, status);
    if (!status) MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_free(&end_comm);
    MPI_Finalize();
    return worst;
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

int run_mpi_ranks(void)
{
    return 1;
}

void run_mpi_wait_all(void)
{
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
    printf("  MPI: %d ranks x %d workers; rank 0 per step: sent %.1f messages, %.1f KiB during runs and %.1f KiB at "
           "their ends (%.3f ms per step there; %llu graph runs); received %.1f messages, %.1f KiB during runs\n",
           ranks, pf_runtime_workers(rt), (double)t.messages / n, (double)t.bytes / 1024.0 / n,
           (double)t.share_bytes / 1024.0 / n, (double)t.end_ns * 1e-6 / n, (unsigned long long)t.runs,
           (double)t.received / n, (double)t.received_bytes / 1024.0 / n);
}

long run_mpi_fault_step(int rank)
{
    const char *e = getenv("PHYSFLOW_FAULT_RANK_EXIT"); /* RANK:STEP: that rank exits after that step */
    long r = -1, s = 0;
    if (!e || sscanf(e, "%ld:%ld", &r, &s) != 2 || r != rank || s < 1) return 0;
    return s;
}
