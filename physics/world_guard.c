/* The checks a public world call starts with: the world given, not stepping, an object that exists (added, and
 * not removed). */
#include "world_guard.h"

#include "base/check.h"
#include "base/error.h"

int pf_world_check_given(const pf_world *w, const char *fn)
{
    return pf_check_given(w, fn, "world");
}

int pf_world_check_mutable(const pf_world *w, const char *fn)
{
    PF_TRY(pf_world_check_given(w, fn));
    if (w->stepping)
        return pf_error(PF_ESTATE,
                        "%s: called from inside a step of this world (a contact callback or a host force field); "
                        "calls that change or step the world must wait until pf_world_step returns",
                        fn);
    return PF_OK;
}

int pf_world_check_object(const pf_world *w, uint32_t id, const char *fn)
{
    PF_TRY(pf_check_index(id, w->obj.n, fn, "object"));
    if (!w->obj.v[id]) return pf_error(PF_EINVAL, "%s: object %u was removed", fn, id);
    return PF_OK;
}

int pf_world_check_point_list(const pf_world *w, uint32_t id, const uint32_t *points, uint32_t npoints,
                              const char *fn, const char *what)
{
    const pf_object *o = w->obj.v[id];
    if (o->kind != PF_OBJECT_POINTS)
        return pf_error(PF_EINVAL, "%s: object %u is a rigid body; %s act on points", fn, id, what);
    if (npoints && !points)
        return pf_error(PF_EINVAL, "%s: def.points is NULL: def.npoints = %u points announced but no point list", fn,
                        npoints);
    for (uint32_t k = 0; k < npoints; k++)
        if (points[k] >= o->n)
            return pf_error(PF_EINVAL, "%s: def.points[%u] = %u: point out of range (object %u has %u points)", fn, k,
                            points[k], id, o->n);
    return PF_OK;
}
