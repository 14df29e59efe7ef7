/* Small SOFA components: Gravity (the scene's gravity as a component rather than the root's attribute) and
 * BoxConstraint (FixedConstraint of the points inside boxes, without a BoxROI), both acting on the created
 * world; MechanicalStateController, which acts on user input only. */
#include "components.h"

#include "base/alloc.h"

#define TYPE(c) pf_scene_component_type(c)

/* Gravity: `gravity` (m/s², x y z) replaces the root's gravity for the whole world. */
int sc_gravity(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double g[3];
    int rc = pf_scene_component_reals(c, "gravity", 3, g);
    if (rc < 0) return rc;
    if (rc == 0) return pf_scene_component_error(c, PF_EPARSE, "%s: 'gravity' (x y z) is required", TYPE(c));
    if ((rc = pf_world_set_gravity(c->L->scene->world, g))) return rc;
    for (int a = 0; a < 3; a++) c->L->scene->summary.gravity[a] = g[a];
    return PF_OK;
}

/* BoxConstraint: `box`, 6 numbers per box (xmin ymin zmin xmax ymax zmax, bounds included); every point of the
 * node's object inside one is fixed. */
int sc_box_constraint(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    double *b = NULL;
    size_t m = 0;
    int rc = sc_parse_reals(c, "box", &b, &m);
    if (rc < 0) return rc;
    if (rc == 0 || m == 0 || m % 6) {
        pf_free(b);
        return pf_scene_component_error(c, PF_EPARSE, "%s: 'box' needs 6 numbers per box (xmin ymin zmin xmax ymax "
                                        "zmax), got %zu", TYPE(c), m);
    }
    pf_scene_component_ignore(c, "template");
    pf_scene_component_ignore(c, "drawSize");
    pf_object_id o;
    rc = pf_scene_component_object(c, &o);
    if (!rc && c->node->rigid)
        rc = pf_scene_component_error(c, PF_ENOTSUP, "%s on a rigid body is not supported (FixedConstraint fixes "
                                      "its frame)", TYPE(c));
    uint32_t fixed = 0;
    for (size_t k = 0; k < m / 6 && !rc; k++) {
        uint32_t n = 0;
        rc = pf_world_fix_box(c->L->scene->world, o, b + 6 * k, &n);
        fixed += n;
    }
    pf_free(b);
    if (rc) return rc;
    if (fixed == 0) pf_scene_component_warning(c, "%s fixes no point", TYPE(c));
    c->L->scene->summary.constraints++;
    c->L->scene->summary.fixed_points += fixed;
    return PF_OK;
}

/* MechanicalStateController (SOFA's Component/Controller): at each step's start it moves frame `index` of its
 * node's state by the mouse (its onMouseEvent, empty in SOFA's source, leaves that off) or by a haptic
 * device's events, then projects and propagates the positions (MechanicalStateController::applyController). A
 * PhysFlow run has no such input, so it moves nothing: read, with a warning saying so. */
int sc_input_controller(pf_scene_component *c, void *ctx)
{
    static const char *const attrs[] = {
        "template",      "index",     "onlyTranslation",          "buttonDeviceState",
        "mainDirection", "listening", "handleEventTriggersUpdate"};
    (void)ctx;
    SC_IGNORE_ATTRS(c, attrs);
    pf_scene_component_warning(
        c,
        "%s: moves its state by mouse or haptic-device input only, which a PhysFlow run "
        "has none of: nothing to do",
        TYPE(c));
    return PF_OK;
}
