/* The physics scenes built in code and runnable by name (`physflow run bars64`): the 64 bars of Hermann et al.
 * 2009, §4.1, and §4.3's mass-spring sheet cut into tiles, with size parameters so tests can run small versions. */
#ifndef PF_SUPPORT_PHYSICS_SCENES_H
#define PF_SUPPORT_PHYSICS_SCENES_H

#include "physflow/physics.h"

/* `bars` bars of nx x ny x nz particles (hexahedral FEM, corotational), each fixed at its x = min end and bending
 * under gravity, each its own implicit solver with `iterations` CG iterations per step. */
int scene_bars(pf_world *w, int bars, int nx, int ny, int nz, uint32_t iterations, pf_fem_method method);
/* An n x n mass-spring sheet cut into tiles x tiles objects joined by interaction springs (one CG for all),
 * fixed along one edge. */
int scene_springgrid(pf_world *w, int n, int tiles, uint32_t iterations);

/* The built-in scenes (bars64, heterogeneous, springgrid128, ...: pf_scene_builtin_names), loaded from their XML.
 * Creates the world from `def` (gravity and dt are the scene's); the caller owns *out.
 * Returns PF_OK, PF_EINVAL for an unknown name, or a failure (message from pf_last_error). */
int scene_create(const char *name, const pf_world_def *def, pf_world **out);
/* 1 when `name` is a scene scene_create knows */
int scene_known(const char *name);
/* "bars64, fluid-over-spheres, heterogeneous, ..." */
const char *scene_names(void);

#endif
