/* Objects of a world: creation (points, or a regular grid), state access, fixed points and box regions, and the
 * list of force fields each carries (Hermann et al. 2009, §3.1: the objects own the data of the task graph). */
#include "objects.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int pf_object_is_static(const pf_object *o)
{
    return o->nfixed == o->n;
}

int pf_object_add_force_field(pf_world *w, pf_object *o, uint8_t kind, void *state)
{
    if (PF_ARRAY_RESERVE(o->ff, o->cap_ff, o->nff + 1)) return pf_error(PF_ENOMEM, "out of memory");
    uint32_t k = o->nff++;
    for (; k > 0 && o->ff[k - 1].kind > kind; k--) o->ff[k] = o->ff[k - 1];
    o->ff[k] = (pf_force_field){.kind = kind, .state = state};
    o->changed = 1;
    w->dirty = 1;
    return PF_OK;
}
