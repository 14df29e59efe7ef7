/* The built-in component constructors (scenes/components_state.c, scenes/components_forces.c). */
#ifndef PF_SCENES_COMPONENTS_H
#define PF_SCENES_COMPONENTS_H

#include "scene_internal.h"

/* STATE stage */
int sc_mechanical_object(pf_scene_component *c, void *ctx);
int sc_regular_grid_topology(pf_scene_component *c, void *ctx);
int sc_mesh_topology(pf_scene_component *c, void *ctx);
int sc_mesh_obj_loader(pf_scene_component *c, void *ctx);
/* scenes/components_mesh_loaders.c */
int sc_mesh_gmsh_loader(pf_scene_component *c, void *ctx);
int sc_mesh_vtk_loader(pf_scene_component *c, void *ctx);
int sc_mesh_stl_loader(pf_scene_component *c, void *ctx);
int sc_sphere_loader(pf_scene_component *c, void *ctx);
/* scenes/component_grid_mesh_creator.c */
int sc_grid_mesh_creator(pf_scene_component *c, void *ctx);
/* scenes/component_transform_engine.c */
int sc_transform_engine(pf_scene_component *c, void *ctx);
int sc_uniform_mass(pf_scene_component *c, void *ctx);
int sc_euler_implicit(pf_scene_component *c, void *ctx);
int sc_euler_explicit(pf_scene_component *c, void *ctx);
int sc_cg_linear_solver(pf_scene_component *c, void *ctx);
int sc_collision_pipeline(pf_scene_component *c, void *ctx);
int sc_brute_force_broad_phase(pf_scene_component *c, void *ctx);
int sc_broad_phase(pf_scene_component *c, void *ctx);
int sc_narrow_phase(pf_scene_component *c, void *ctx);
int sc_min_proximity(pf_scene_component *c, void *ctx);
int sc_discrete_intersection(pf_scene_component *c, void *ctx);
int sc_plane_force_field(pf_scene_component *c, void *ctx);
int sc_accept_companion(pf_scene_component *c, void *ctx);
int sc_pcg_linear_solver(pf_scene_component *c, void *ctx);
int sc_preconditioner(pf_scene_component *c, void *ctx);
int sc_gravity(pf_scene_component *c, void *ctx);
/* a mesh loader's scale3d, scale, rotation (degrees) and translation applied to m as SOFA's MeshLoader does */
int sc_mesh_loader_transform(pf_scene_component *c, sc_mesh *m);
int sc_box_constraint(pf_scene_component *c, void *ctx);
int sc_collision_response(pf_scene_component *c, void *ctx);
int sc_accept(pf_scene_component *c, void *ctx);
int sc_rigid_shape(pf_scene_component *c, void *ctx);
int sc_sparse_grid_topology(pf_scene_component *c, void *ctx);
int sc_rigid_mapping(pf_scene_component *c, void *ctx);
int sc_barycentric_mapping(pf_scene_component *c, void *ctx);
/* scenes/components_topology_mappings.c */
int sc_hexa2tetra_mapping(pf_scene_component *c, void *ctx);
int sc_tetra2triangle_mapping(pf_scene_component *c, void *ctx);
int sc_hexa2quad_mapping(pf_scene_component *c, void *ctx);
int sc_quad2triangle_mapping(pf_scene_component *c, void *ctx);
int sc_triangle2edge_mapping(pf_scene_component *c, void *ctx);

/* FORCES stage */
int sc_hexa_fem(pf_scene_component *c, void *ctx);
int sc_regular_grid_springs(pf_scene_component *c, void *ctx);
int sc_mesh_springs(pf_scene_component *c, void *ctx);
int sc_stiff_springs(pf_scene_component *c, void *ctx);
int sc_constant_force_field(pf_scene_component *c, void *ctx);
int sc_box_roi(pf_scene_component *c, void *ctx);
int sc_fixed_constraint(pf_scene_component *c, void *ctx);
/* The point indices a constraint names (< npts): all of them, `indices` written out, or an ROI's
 * ("@box.indices"); *owned (freed by the caller) holds them unless they are an ROI's cache. */
int sc_point_indices(pf_scene_component *c, uint32_t npts, int all, const uint32_t **idx, uint32_t *n,
                     uint32_t **owned);
/* scenes/components_roi.c */
int sc_sphere_roi(pf_scene_component *c, void *ctx);
int sc_plane_roi(pf_scene_component *c, void *ctx);
/* scenes/components_projective.c */
int sc_partial_fixed_constraint(pf_scene_component *c, void *ctx);
int sc_fixed_plane_constraint(pf_scene_component *c, void *ctx);
int sc_point_constraint(pf_scene_component *c, void *ctx);
int sc_sphere_model(pf_scene_component *c, void *ctx);
int sc_triangle_model(pf_scene_component *c, void *ctx);
int sc_point_model(pf_scene_component *c, void *ctx);
int sc_line_model(pf_scene_component *c, void *ctx);

#endif
