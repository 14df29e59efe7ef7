/* The built-in registry table: element names (SOFA's, with their known aliases) -> constructors; visual-only
 * components have no constructor and are skipped with a note. */
#include "components.h"

#define STATE PF_SCENE_STAGE_STATE
#define FORCES PF_SCENE_STAGE_FORCES

const pf_scene_component_def sc_builtin_components[] = {
    {"MechanicalObject", STATE, sc_mechanical_object, NULL},
    {"RegularGridTopology", STATE, sc_regular_grid_topology, NULL},
    {"MeshTopology", STATE, sc_mesh_topology, NULL},
    {"MeshObjLoader", STATE, sc_mesh_obj_loader, NULL},
    {"UniformMass", STATE, sc_uniform_mass, NULL},
    {"EulerImplicitSolver", STATE, sc_euler_implicit, NULL},
    {"EulerImplicitIntegrationScheme", STATE, sc_euler_implicit, NULL},
    {"EulerExplicitSolver", STATE, sc_euler_explicit, NULL},
    {"CGLinearSolver", STATE, sc_cg_linear_solver, NULL},
    {"CollisionPipeline", STATE, sc_collision_pipeline, NULL},
    {"DefaultPipeline", STATE, sc_collision_pipeline, NULL},
    {"BruteForceBroadPhase", STATE, sc_brute_force_broad_phase, NULL},
    {"BruteForceDetection", STATE, sc_brute_force_broad_phase, NULL},
    {"BroadPhase", STATE, sc_broad_phase, NULL},
    {"BVHNarrowPhase", STATE, sc_narrow_phase, NULL},
    {"MinProximityIntersection", STATE, sc_min_proximity, NULL},
    {"CollisionResponse", STATE, sc_collision_response, NULL},
    {"DefaultContactManager", STATE, sc_collision_response, NULL},
    {"DefaultAnimationLoop", STATE, sc_accept, NULL},
    {"HexahedronFEMForceField", FORCES, sc_hexa_fem, NULL},
    {"RegularGridSpringForceField", FORCES, sc_regular_grid_springs, NULL},
    {"MeshSpringForceField", FORCES, sc_mesh_springs, NULL},
    {"StiffSpringForceField", FORCES, sc_stiff_springs, NULL},
    {"SpringForceField", FORCES, sc_stiff_springs, NULL},
    {"BoxROI", FORCES, sc_box_roi, NULL},
    {"FixedConstraint", FORCES, sc_fixed_constraint, NULL},
    {"FixedProjectiveConstraint", FORCES, sc_fixed_constraint, NULL},
    {"SphereCollisionModel", FORCES, sc_sphere_model, NULL},
    {"SphereModel", FORCES, sc_sphere_model, NULL},
    {"TriangleCollisionModel", FORCES, sc_triangle_model, NULL},
    {"TriangleModel", FORCES, sc_triangle_model, NULL},
    {"PointCollisionModel", FORCES, sc_point_model, NULL},
    {"PointModel", FORCES, sc_point_model, NULL},
    /* visual only: skipped with a note */
    {"OglModel", STATE, NULL, NULL},
    {"VisualModel", STATE, NULL, NULL},
    {"VisualStyle", STATE, NULL, NULL},
    {"RequiredPlugin", STATE, NULL, NULL},
    {"InteractiveCamera", STATE, NULL, NULL},
    {"LightManager", STATE, NULL, NULL},
    {"DirectionalLight", STATE, NULL, NULL},
    {"PositionalLight", STATE, NULL, NULL},
    {"SpotLight", STATE, NULL, NULL},
    {"DefaultVisualManagerLoop", STATE, NULL, NULL},
    {"OglSceneFrame", STATE, NULL, NULL},
    {"VisualGrid", STATE, NULL, NULL},
    {"LineAxis", STATE, NULL, NULL},
    {"BackgroundSetting", STATE, NULL, NULL},
};
const size_t sc_builtin_component_count = sizeof sc_builtin_components / sizeof sc_builtin_components[0];
