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
