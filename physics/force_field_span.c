/* The part of a per-element cache that some elements write (force_field.h), for the blocks of a decomposed
 * object: a leaf the force-field kinds call, apart from force_field.c, which calls them. */
#include "force_field.h"

int pf_register_element_span(pf_graph *g, double *cache, size_t stride, const pf_elem_range *r, uint32_t owner,
                             pf_data_id *out)
{
    size_t first = pf_range_elem(r, 0), last = pf_range_elem(r, r->n - 1);
    return pf_graph_data(g, cache + stride * first, stride * (last - first + 1) * sizeof *cache, owner, NULL, out);
}
