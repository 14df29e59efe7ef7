/* A sheet of 6 points and 4 triangles (0 1 2, 0 2 3, 1 4 5, 1 5 2), points 0 and 3 fixed, implicit Euler with
 * a tight CG: the scene the triangle force fields' tests load with a component of their own after `base`
 * (another field, or ""), to compare it with the same field added through the API. */
#ifndef PF_TESTS_TRIANGLE_SHEET_H
#define PF_TESTS_TRIANGLE_SHEET_H

#include "scene_files.h"

#include <string.h>

static const char TRIANGLE_SHEET[] =
    "<Node dt='0.01' gravity='0 0 -9.81'><Node name='s'><EulerImplicitSolver/>"
    "<CGLinearSolver iterations='100' tolerance='1e-12' threshold='1e-14'/>"
    "<MechanicalObject position='0 0 0  1 0 0  1 1 0  0 1 0  2 0 0  2 1 0'/>"
    "<MeshTopology triangles='0 1 2  0 2 3  1 4 5  1 5 2'/><UniformMass "
    "vertexMass='1'/><FixedConstraint indices='0 3'/>%s\n%s</Node></Node>";

/* the sheet's triangles, as the API takes them */
static const uint32_t TRIANGLE_SHEET_TRIS[12] = {0, 1, 2, 0, 2, 3, 1, 4, 5, 1, 5, 2};

/* loads the sheet with `base` and `component` (the component on line 2, for error messages), one seq worker
 */
static inline int load_triangle_sheet(const char *base, const char *component, pf_scene **s)
{
    char xml[2048];
    snprintf(xml, sizeof xml, TRIANGLE_SHEET, base, component);
    pf_scene_load_def d = quiet_load_def();
    *s = NULL;
    return pf_scene_load_memory(&d, "t.xml", xml, strlen(xml), NULL, s);
}

/* the state hash after 10 steps; destroys the scene */
static inline uint64_t stepped_hash(pf_scene *s)
{
    ck_assert_int_eq(pf_world_step(pf_scene_world(s), 10), PF_OK);
    uint64_t h = pf_world_state_hash(pf_scene_world(s));
    pf_scene_destroy(s);
    return h;
}

#endif
