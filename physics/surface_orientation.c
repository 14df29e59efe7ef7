/* Whether a triangle mesh is closed and consistently wound: then every triangle's counter-clockwise normal points
 * out of the solid it bounds, and a vertex found behind one of its faces is inside (contacts.c pushes it back out
 * along that normal, never on through). */
#include "surface.h"

#include "base/alloc.h"

#include <stdlib.h>

static int by_key(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static int contains(const uint64_t *keys, size_t n, uint64_t key)
{
    return bsearch(&key, keys, n, sizeof *keys, by_key) != NULL;
}

/* Closed and oriented: every directed edge (a, b) of the triangles appears once, and so does (b, a). */
int pf_surface_orientation_closed(const uint32_t *tri, uint32_t nt, int *closed)
{
    *closed = 0;
    if (nt < 4) return PF_OK; /* a tetrahedron is the smallest closed mesh */
    size_t n = 3 * (size_t)nt;
    uint64_t *keys = pf_malloc(n * sizeof *keys);
    if (!keys) return PF_ENOMEM;
    for (size_t t = 0; t < nt; t++)
        for (int e = 0; e < 3; e++) {
            uint64_t a = tri[3 * t + e], b = tri[3 * t + (e + 1) % 3];
            keys[3 * t + e] = a << 32 | b;
        }
    qsort(keys, n, sizeof *keys, by_key);
    int ok = 1;
    for (size_t k = 0; k < n && ok; k++) {
        uint64_t a = keys[k] >> 32, b = keys[k] & 0xffffffffu;
        ok = a != b && (k == 0 || keys[k - 1] != keys[k]) && contains(keys, n, b << 32 | a);
    }
    pf_free(keys);
    *closed = ok;
    return PF_OK;
}
