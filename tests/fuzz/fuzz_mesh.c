/* Fuzz target: the mesh readers (Gmsh MSH, legacy VTK, VTU, STL, OBJ, SOFA's sphere files). The same bytes go through each reader;
 * each returns a mesh whose indices are in range, or an error with a message, never crashes. Memory is capped
 * through PhysFlow's allocation hook, so a count asking for gigabytes gets PF_ENOMEM. */
#include "physflow/base.h"
#include "scenes/mesh_build.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#include "capped_alloc.h"

static void check(const sc_mesh *m)
{
    if (m->npoints == 0) abort();
    const uint32_t *lists[4] = {m->edges, m->tris, m->tetra, m->hexa};
    const size_t counts[4] = {2 * (size_t)m->nedges, 3 * (size_t)m->ntris, 4 * (size_t)m->ntetra, 8 * (size_t)m->nhexa};
    for (int l = 0; l < 4; l++)
        for (size_t k = 0; k < counts[l]; k++)
            if (lists[l][k] >= m->npoints) abort();
    for (uint32_t k = 0; m->radii && k < m->npoints; k++)
        if (!(m->radii[k] > 0)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const sc_mesh_parse_fn parsers[] = {sc_parse_msh, sc_parse_vtk, sc_parse_vtu, sc_parse_stl, sc_parse_obj,
                                               sc_parse_sph};
    pf_set_allocator(capped_alloc, capped_free, NULL);
    for (size_t p = 0; p < sizeof parsers / sizeof parsers[0]; p++) {
        sc_mesh m;
        char note[256];
        if (parsers[p]("fuzz", (const char *)data, size, &m, note, sizeof note) == PF_OK) {
            check(&m);
            sc_mesh_free(&m);
        } else if (!pf_last_error()[0]) {
            abort(); /* every failure explains itself */
        }
    }
    pf_set_allocator(NULL, NULL, NULL);
    return 0;
}
