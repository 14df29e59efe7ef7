/* Fuzz target: the mesh readers (Gmsh MSH, legacy VTK, VTU, STL, OBJ). The same bytes go through each reader;
 * each returns a mesh whose indices are in range, or an error with a message, never crashes. Memory is capped
 * through PhysFlow's allocation hook, so a count asking for gigabytes gets PF_ENOMEM. */
#include "physflow/base.h"
#include "scenes/mesh_build.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { CAP_BYTES = 256 << 20 };
static size_t in_use;

typedef struct header {
    size_t size;
    size_t pad[7]; /* keeps the block 64-byte aligned */
} header;

static void *capped_alloc(size_t size, size_t alignment, void *ctx)
{
    (void)ctx;
    (void)alignment; /* 64 at most: the header keeps that */
    if (size > CAP_BYTES || in_use + size > CAP_BYTES) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, 64, sizeof(header) + size)) return NULL;
    ((header *)p)->size = size;
    in_use += size;
    return (header *)p + 1;
}

static void capped_free(void *p, void *ctx)
{
    (void)ctx;
    if (!p) return;
    header *h = (header *)p - 1;
    in_use -= h->size;
    free(h);
}

static void check(const sc_mesh *m)
{
    if (m->npoints == 0) abort();
    const uint32_t *lists[4] = {m->edges, m->tris, m->tetra, m->hexa};
    const size_t counts[4] = {2 * (size_t)m->nedges, 3 * (size_t)m->ntris, 4 * (size_t)m->ntetra, 8 * (size_t)m->nhexa};
    for (int l = 0; l < 4; l++)
        for (size_t k = 0; k < counts[l]; k++)
            if (lists[l][k] >= m->npoints) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const sc_mesh_parse_fn parsers[] = {sc_parse_msh, sc_parse_vtk, sc_parse_vtu, sc_parse_stl, sc_parse_obj};
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
