/* The checks a public world call starts with: the world given, not stepping, an object that exists (added, and
 * not removed). */
#include "world_guard.h"

#include "base/alloc.h"
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

int pf_world_check_pair(const pf_world *w, uint32_t oa, uint32_t ob, const char *fn, const char *same)
{
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, oa, fn));
    PF_TRY(pf_world_check_object(w, ob, fn));
    if (oa == ob) return pf_error(PF_EINVAL, "%s: oa and ob are both object %u: %s", fn, oa, same);
    return PF_OK;
}

int pf_world_reserve_interaction(pf_world *w, const char *fn)
{
    if (w->next_uid == UINT32_MAX) return pf_error(PF_ENOMEM, "%s: too many interactions in one world", fn);
    if (pf_vec_reserve(&w->inter, w->inter.n + 1)) return pf_error(PF_ENOMEM, "out of memory");
    return PF_OK;
}

void pf_world_push_interaction(pf_world *w, pf_springset *s, pf_interaction_id *out)
{
    s->uid = w->next_uid++;
    w->inter.v[w->inter.n++] = s;
    w->dirty = 1;
    if (out) *out = (pf_interaction_id){s->uid};
}

const char *pf_object_kind_noun(pf_object_kind k)
{
    switch (k) {
    case PF_OBJECT_POINTS: return "an object of points";
    case PF_OBJECT_RIGID: return "a rigid body (its points 0 and 1 are its com and its rotation)";
    case PF_OBJECT_BEAM: return "a beam (its points 2k and 2k + 1 are frame k's position and rotation)";
    }
    return "an object of unknown kind";
}

int pf_object_check_points(const pf_object *o, const char *fn, const char *why)
{
    if (o->kind == PF_OBJECT_POINTS) return PF_OK;
    return pf_error(PF_EINVAL, "%s: object %u is %s; %s", fn, o->id, pf_object_kind_noun(o->kind), why);
}

int pf_world_check_point_list(const pf_world *w, uint32_t id, const uint32_t *points, uint32_t npoints,
                              const char *fn, const char *what)
{
    const pf_object *o = w->obj.v[id];
    PF_TRY(pf_object_check_points(o, fn, what));
    if (npoints && !points)
        return pf_error(PF_EINVAL, "%s: def.points is NULL: def.npoints = %u points announced but no point list", fn,
                        npoints);
    for (uint32_t k = 0; k < npoints; k++)
        if (points[k] >= o->n)
            return pf_error(PF_EINVAL, "%s: def.points[%u] = %u: point out of range (object %u has %u points)", fn, k,
                            points[k], id, o->n);
    return PF_OK;
}
