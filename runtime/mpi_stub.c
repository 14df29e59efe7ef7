/* PhysFlow built without MPI: a runtime across ranks is refused (def.mpi = 1), and nothing else changes. */
#include "mpi.h"

#include "base/error.h"

#include <stdio.h>

int pf_mpi_check(const char *fn)
{
    return pf_error(PF_EINVAL, "%s: def.mpi = 1, but PhysFlow was built without MPI (meson option mpi)", fn);
}

void pf_mpi_version(char *buf, size_t size)
{
    snprintf(buf, size, "not built");
}

/* Never reached: pf_mpi_check refuses first. */
pf_mpi *pf_mpi_create(int workers)
{
    (void)workers;
    return NULL;
}

void pf_mpi_destroy(pf_mpi *m)
{
    (void)m;
}

int pf_mpi_rank(const pf_mpi *m)
{
    (void)m;
    return 0;
}

int pf_mpi_ranks(const pf_mpi *m)
{
    (void)m;
    return 1;
}

int pf_mpi_bcast_placement(pf_mpi *m, pf_graph *g)
{
    (void)m, (void)g;
    return PF_OK;
}

int pf_mpi_run_begin(pf_mpi *m, pf_graph *g)
{
    (void)m, (void)g;
    return PF_OK;
}

int pf_mpi_run_end(pf_mpi *m, pf_graph *g, uint64_t *messages, uint64_t *bytes)
{
    (void)m, (void)g, (void)messages, (void)bytes;
    return PF_OK;
}

void pf_mpi_ran(pf_mpi *m, pf_graph *g, int w, const pf_op *op, uint32_t stamp)
{
    (void)m, (void)g, (void)w, (void)op, (void)stamp;
}

void pf_mpi_published(pf_mpi *m, pf_graph *g, int w, const pf_flag *f, uint32_t stamp)
{
    (void)m, (void)g, (void)w, (void)f, (void)stamp;
}

int pf_mpi_imported(const pf_mpi *m, const pf_flag *f)
{
    (void)m, (void)f;
    return 0;
}

void pf_mpi_wait(pf_mpi *m, pf_graph *g, pf_flag *f, uint32_t want)
{
    (void)m, (void)g, (void)f, (void)want;
}

void pf_mpi_tables_free(pf_graph *g)
{
    (void)g;
}

void pf_mpi_get_totals(const pf_mpi *m, pf_mpi_totals *out)
{
    (void)m;
    *out = (pf_mpi_totals){0};
}
