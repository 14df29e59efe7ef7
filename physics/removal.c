/* Removing what a host added: a force field from its object, an object with everything attached to it. Like
 * an interaction's removal (world.c), each takes effect at the next step, which re-records the solver groups
 * that changed; what the recorded graph still names is kept on the world's dropped lists until that step has
 * run. */
#include "collision_stage.h"
#include "surface.h"
#include "world_guard.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <string.h>

int pf_world_remove_force_field(pf_world *w, pf_force_field_id id)
{
    static const char fn[] = "pf_world_remove_force_field";
    PF_TRY(pf_world_check_mutable(w, fn));
    for (uint32_t i = 0; i < w->obj.n; i++) {
        pf_object *o = w->obj.v[i];
        for (uint32_t k = 0; o && k < o->ff.n; k++) {
            if (o->ff.v[k].uid != id.index) continue;
            if (pf_vec_push(&w->dropped_ff, o->ff.v[k])) return pf_error(PF_ENOMEM, "out of memory");
            /* the others keep their order: the order of the sums in f */
            memmove(o->ff.v + k, o->ff.v + k + 1, (o->ff.n - k - 1) * sizeof *o->ff.v);
            o->ff.n--;
            o->changed = 1;
            w->dirty = 1;
            return PF_OK;
        }
    }
    if (id.index < w->next_ff_uid)
        return pf_error(PF_EINVAL, "%s: force field %u was removed (by this call, or with its object)", fn,
                        id.index);
    return pf_error(PF_EINVAL, "%s: no force field %u in this world (%u added so far)", fn, id.index,
                    w->next_ff_uid);
}

static int names(const pf_springset *s, uint32_t id)
{
    return s->oa == id || s->ob == id;
}

int pf_world_remove_object(pf_world *w, pf_object_id oid)
{
    static const char fn[] = "pf_world_remove_object";
    PF_TRY(pf_world_check_mutable(w, fn));
    PF_TRY(pf_world_check_object(w, oid.index, fn));
    uint32_t id = oid.index;
    /* Everything that may fail comes first, so that a refusal leaves the world as it was: room on the dropped
     * lists, and an empty surface for each of its own (the ids stay numbered; the empty one keeps the
     * object's number for the messages and has no vertex, which is what collide.c skips). */
    uint32_t ninter = 0, nsurf = 0;
    for (uint32_t k = 0; k < w->inter.n; k++)
        ninter += names(w->inter.v[k], id);
    for (uint32_t s = 0; s < w->surf.n; s++)
        nsurf += w->surf.v[s]->object == id;
    pf_surface **empty = pf_calloc(nsurf ? nsurf : 1, sizeof *empty);
    int fail = !empty || pf_vec_reserve(&w->dropped, w->dropped.n + ninter) ||
               pf_vec_reserve(&w->dropped_obj, w->dropped_obj.n + 1);
    for (uint32_t k = 0; k < nsurf && !fail; k++)
        fail = !(empty[k] = pf_calloc(1, sizeof **empty));
    if (fail) {
        for (uint32_t k = 0; empty && k < nsurf; k++)
            pf_free(empty[k]);
        pf_free(empty);
        return pf_error(PF_ENOMEM, "%s: out of memory removing object %u", fn, id);
    }
    /* its contact fields (with the collision stage's memory of them), then its interaction springs */
    pf_collision_stage_remove_object(w, id);
    for (uint32_t k = w->inter.n; k-- > 0;) {
        if (!names(w->inter.v[k], id)) continue;
        w->dropped.v[w->dropped.n++] = w->inter.v[k];
        memmove(w->inter.v + k, w->inter.v + k + 1, (w->inter.n - k - 1) * sizeof *w->inter.v);
        w->inter.n--;
    }
    /* its surfaces: no task names them (its contact fields' tasks go with its group's), so they go now */
    for (uint32_t s = 0, k = 0; s < w->surf.n; s++) {
        if (w->surf.v[s]->object != id) continue;
        empty[k]->object = id;
        empty[k]->friction = -1;
        pf_surface_free(w->surf.v[s]);
        w->surf.v[s] = empty[k++];
    }
    pf_free(empty);
    /* the object itself, with its force fields and fixed points: its group's tasks name its vectors */
    w->dropped_obj.v[w->dropped_obj.n++] = w->obj.v[id];
    w->obj.v[id] = NULL;
    w->dirty = 1;
    return PF_OK;
}
