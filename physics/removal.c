/* Removing what a host added: a force field from its object, an object with everything attached to it. Like
 * an interaction's removal (world.c), each takes effect at the next step, which re-records the solver groups
 * that changed; what the recorded graph still names is kept on the world's dropped lists until that step has
 * run. */
#include "attach.h"
#include "collision_stage.h"
#include "decompose.h"
#include "force_field.h"
#include "surface.h"
#include "world_guard.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

/* The object and slot of force field `uid`, or PF_EINVAL naming fn: removed, or never added. */
static int find_field(pf_world *w, uint32_t uid, const char *fn, pf_object **obj, uint32_t *slot)
{
    for (uint32_t i = 0; i < w->obj.n; i++) {
        pf_object *o = w->obj.v[i];
        for (uint32_t k = 0; o && k < o->ff.n; k++)
            if (o->ff.v[k].uid == uid) {
                *obj = o;
                *slot = k;
                return PF_OK;
            }
    }
    if (uid < w->next_ff_uid)
        return pf_error(PF_EINVAL, "%s: force field %u was removed (by this call, or with its object)", fn, uid);
    return pf_error(PF_EINVAL, "%s: no force field %u in this world (%u added so far)", fn, uid, w->next_ff_uid);
}

int pf_world_remove_force_field(pf_world *w, pf_force_field_id id)
{
    static const char fn[] = "pf_world_remove_force_field";
    PF_TRY(pf_world_check_mutable(w, fn));
    pf_object *o = NULL;
    uint32_t k = 0;
    PF_TRY(find_field(w, id.index, fn, &o, &k));
    if (pf_vec_push(&w->dropped_ff, o->ff.v[k])) return pf_error(PF_ENOMEM, "out of memory");
    /* the others keep their order: the order of the sums in f */
    memmove(o->ff.v + k, o->ff.v + k + 1, (o->ff.n - k - 1) * sizeof *o->ff.v);
    o->ff.n--;
    o->changed = 1;
    w->dirty = 1;
    return PF_OK;
}

static int decreasing(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x < y) - (x > y);
}

int pf_world_remove_elements(pf_world *w, pf_force_field_id id, const uint32_t *elements, uint32_t n)
{
    static const char fn[] = "pf_world_remove_elements";
    PF_TRY(pf_world_check_mutable(w, fn));
    pf_object *o = NULL;
    uint32_t k = 0, corners;
    PF_TRY(find_field(w, id.index, fn, &o, &k));
    pf_force_field *ff = &o->ff.v[k];
    const pf_force_field_ops *ops = pf_force_field_kinds[ff->kind];
    if (!ops->elements || !ops->remove_elements) /* points (constant forces), hinges (bending vectors), ... */
        return pf_error(PF_EINVAL,
                        "%s: force field %u (%s) has no elements to remove (FEM, springs and triangle "
                        "fields have)",
                        fn, id.index, ops->name);
    if (n == 0) return PF_OK;
    if (!elements)
        return pf_error(PF_EINVAL, "%s: elements is NULL: n = %u announced but no list", fn, n);
    uint32_t count = ops->elements(ff, &corners);
    for (uint32_t i = 0; i < n; i++)
        if (elements[i] >= count)
            return pf_error(PF_EINVAL, "%s: elements[%u] = %u: out of range (force field %u has %u elements)", fn,
                            i, elements[i], id.index, count);
    uint32_t *desc = pf_malloc((size_t)n * sizeof *desc);
    if (!desc) return pf_error(PF_ENOMEM, "%s: out of memory for %u indices", fn, n);
    memcpy(desc, elements, (size_t)n * sizeof *desc);
    qsort(desc, n, sizeof *desc, decreasing);
    for (uint32_t i = 1; i < n; i++)
        if (desc[i] == desc[i - 1]) {
            uint32_t twice = desc[i];
            pf_free(desc);
            return pf_error(PF_EINVAL, "%s: element %u is given twice", fn, twice);
        }
    int rc = PF_OK;
    if (n == count) { /* nothing left: the field goes (an empty one would register no cache) */
        rc = pf_world_remove_force_field(w, id);
    } else if (o->decomp && pf_vec_push(&w->old_decomps, o->decomp)) {
        rc = pf_error(PF_ENOMEM, "%s: out of memory", fn);
    } else {
        /* blocks name elements by number: the next recording cuts the object anew (the graph may still name
         * the old blocks' data until then; old_decomps frees them with the world) */
        o->decomp = NULL;
        ops->remove_elements(ff, desc, n);
        o->changed = 1;
        w->dirty = 1;
    }
    pf_free(desc);
    return rc;
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
    pf_world_drop_attachments(w, id);
    /* the object itself, with its force fields and fixed points: its group's tasks name its vectors */
    w->dropped_obj.v[w->dropped_obj.n++] = w->obj.v[id];
    w->obj.v[id] = NULL;
    w->dirty = 1;
    return PF_OK;
}
