/* The scene's step hooks (step_hooks.c): components that act at the start of steps share the world's one hook. */
#ifndef PF_SCENES_STEP_HOOKS_H
#define PF_SCENES_STEP_HOOKS_H

#include "components.h"

/* Runs fn(world, time, ctx) at the start of every step, after the hooks added before it (load order). The
 * caller keeps ctx alive as long as the scene (a destructor of its own). */
int sc_add_step_hook(pf_scene_component *c, pf_step_hook fn, void *ctx);

#endif
