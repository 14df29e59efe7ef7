/* The part of a per-element cache that some elements write (force_field.h), for the blocks of a decomposed
 * object, and the per-element arrays less removed elements (pf_world_remove_elements): leaves the force-field
 * kinds call, apart from force_field.c and removal.c, which call them. */
#include "force_field.h"

#include <string.h>

int pf_register_element_span(pf_graph *g, double *cache, size_t stride, const pf_elem_range *r, uint32_t owner,
                             pf_data_id *out)
{
    size_t first = pf_range_elem(r, 0), last = pf_range_elem(r, r->n - 1);
    return pf_graph_data(g, cache + stride * first, stride * (last - first + 1) * sizeof *cache, owner, NULL, out);
}

void pf_remove_slots(void *base, size_t size, uint32_t count, const uint32_t *desc, uint32_t n)
{
    char *b = base;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t last = count - 1 - i; /* desc decreasing and distinct: desc[i] <= last */
        if (desc[i] != last) memcpy(b + (size_t)desc[i] * size, b + (size_t)last * size, size);
    }
}
