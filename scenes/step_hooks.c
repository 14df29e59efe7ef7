/* The world has one step hook (pf_world_set_step_hook); a scene may hold several components acting at the start
 * of steps (TopologicalChangeProcessor, LinearMovementProjectiveConstraint). The first of them installs this
 * list as the hook; each step runs the list in load order and stops at the first error. */
#include "step_hooks.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/vec.h"

typedef struct step_hook {
    pf_step_hook fn;
    void *ctx;
} step_hook;

typedef struct step_hooks {
    PF_VEC(step_hook) v;
} step_hooks;

static int run_hooks(pf_world *w, double time, void *ctx)
{
    const step_hooks *h = ctx;
    for (size_t k = 0; k < h->v.n; k++) {
        int rc = h->v.v[k].fn(w, time, h->v.v[k].ctx);
        if (rc) return rc;
    }
    return PF_OK;
}

static void hooks_free(void *state)
{
    step_hooks *h = state;
    pf_vec_free(&h->v);
    pf_free(h);
}

int sc_add_step_hook(pf_scene_component *c, pf_step_hook fn, void *ctx)
{
    pf_scene *s = c->L->scene;
    step_hooks *h = s->step_hooks;
    if (!h) {
        h = pf_calloc(1, sizeof *h);
        int rc = h ? pf_scene_component_on_destroy(c, hooks_free, h) : pf_error(PF_ENOMEM, "out of memory");
        if (rc) {
            pf_free(h);
            return rc;
        }
        s->step_hooks = h;
        if ((rc = pf_world_set_step_hook(s->world, run_hooks, h))) return rc;
    }
    if (pf_vec_push(&h->v, ((step_hook){fn, ctx}))) return pf_error(PF_ENOMEM, "out of memory");
    return PF_OK;
}
