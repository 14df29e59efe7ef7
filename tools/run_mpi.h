/* physflow run across MPI ranks (run_mpi.c). */
#ifndef PF_TOOLS_RUN_MPI_H
#define PF_TOOLS_RUN_MPI_H

#include "physflow/runtime.h"

#include <stdint.h>

/* Whether mpirun (Open MPI, or a PMI launcher) started this process; always 0 without MPI in the build. */
int run_mpi_launched(void);
/* MPI_Init_thread with MPI_THREAD_MULTIPLE; *rank receives this process's rank. 0, or 1 after a message. */
int run_mpi_start(int *rank);
/* The rank count of a started job; 1 without MPI. */
int run_mpi_ranks(void);
/* Returns once every rank has called it, sleeping between polls (a blocking barrier spins on the cores the
 * ranks still measuring need). */
void run_mpi_wait_all(void);
/* MPI_Finalize once every rank has ended, returning the worst status of all; MPI_Abort of the whole job when this
 * rank failed and the others do not end with it (they wait in the run for it). */
int run_mpi_end(int status);
/* The summary's MPI line (rank 0's messages and bytes per step), when rt spans several ranks. */
void run_mpi_summary(pf_runtime *rt, uint64_t steps);
/* PHYSFLOW_FAULT_RANK_EXIT=RANK:STEP (fault injection for tests): the step after which this rank exits, 0: none. */
long run_mpi_fault_step(int rank);

#endif
