/* The built-in component constructors (scenes/components_state.c, scenes/components_forces.c). */
#ifndef PF_SCENES_COMPONENTS_H
#define PF_SCENES_COMPONENTS_H

#include "scene_internal.h"

/* scenes/components_beam.c: a Rigid3d MechanicalObject of several frames (takes `frames`, 7 numbers each),
 * BeamFEMForceField (STATE), and the Rigid3d UniformMass, FixedProjectiveConstraint and ConstantForceField on its
 * frames */
int sc_beam_frames(pf_scene_component *c, sc_node *n, double *frames, size_t nframes);
int sc_beam_fem(pf_scene_component *c, void *ctx);
int sc_beam_uniform_mass(pf_scene_component *c);
int sc_beam_fixed_frames(pf_scene_component *c, pf_object_id o, int all);
int sc_beam_constant_force(pf_scene_component *c);
/* STATE stage */
int sc_mechanical_object(pf_scene_component *c, void *ctx);
/* scenes/state_transform.c: a MechanicalObject's transform attributes, in SOFA's precedence */
int sc_mo_transform_read(pf_scene_component *c, sc_mo_transform *t);
/* a Rigid3d frame (x y z, quaternion w x y z) under t: centre scaled, turned and moved, orientation turned */
void sc_mo_transform_frame(const sc_mo_transform *t, double pose[7]);
/* a RegularGridTopology's grid (n->def.grid over grid_min..grid_max) made the node's mesh, its points numbered as
 * the grid's (scenes/components_state.c) */
int sc_grid_topology_to_mesh(sc_node *n);
int sc_regular_grid_topology(pf_scene_component *c, void *ctx);
int sc_cylinder_grid_topology(pf_scene_component *c, void *ctx);
int sc_mesh_topology(pf_scene_component *c, void *ctx);
int sc_point_set_topology(pf_scene_component *c, void *ctx);
/* The node's topology becomes `kind` from component c (a loader's mesh taken for want of a container is dropped);
 * a node that already has one: error naming its line. */
int sc_claim_topology(pf_scene_component *c, sc_topology kind);
/* scenes/component_mesh_engines.c: MergeMeshes (STATE) and MeshBoundaryROI (FORCES, "@roi.indices") */
int sc_merge_meshes(pf_scene_component *c, void *ctx);
int sc_mesh_boundary_roi(pf_scene_component *c, void *ctx);
/* scenes/component_topology_cube.c: SOFA's CubeTopology, a box's surface of quads */
int sc_cube_topology(pf_scene_component *c, void *ctx);
/* scenes/component_topology_file.c: a topology container's own mesh file (`filename`, `fileTopology`), read into
 * *m by its extension's reader. Returns 1 when read, 0 when none is named (absent or empty), or an error. */
int sc_topology_file(pf_scene_component *c, sc_mesh *m);
int sc_mesh_obj_loader(pf_scene_component *c, void *ctx);
/* scenes/components_mesh_loaders.c */
int sc_mesh_gmsh_loader(pf_scene_component *c, void *ctx);
int sc_mesh_vtk_loader(pf_scene_component *c, void *ctx);
int sc_mesh_stl_loader(pf_scene_component *c, void *ctx);
int sc_sphere_loader(pf_scene_component *c, void *ctx);
int sc_generic_mesh_loader(pf_scene_component *c, void *ctx);
/* scenes/component_grid_mesh_creator.c */
int sc_grid_mesh_creator(pf_scene_component *c, void *ctx);
/* scenes/component_string_mesh_creator.c */
int sc_string_mesh_creator(pf_scene_component *c, void *ctx);
/* scenes/component_transform_engine.c */
int sc_transform_engine(pf_scene_component *c, void *ctx);
int sc_transform_position(pf_scene_component *c, void *ctx);
/* scenes/component_select_engines.c */
int sc_points_from_indices(pf_scene_component *c, void *ctx);
int sc_subset_topology(pf_scene_component *c, void *ctx);
int sc_uniform_mass(pf_scene_component *c, void *ctx);
/* scenes/component_mass.c: masses measured on the node's mesh */
int sc_diagonal_mass(pf_scene_component *c, void *ctx);
int sc_mesh_matrix_mass(pf_scene_component *c, void *ctx);
int sc_fem_mass(pf_scene_component *c, void *ctx);
int sc_nodal_mass_density(pf_scene_component *c, void *ctx);
/* The kinds of element a lumped mass is measured on (SOFA prefers the highest a topology has). */
typedef enum sc_mass_element {
    SC_MASS_EDGES = 1,      /* 2 points: length */
    SC_MASS_TRIANGLES = 2,  /* 3 points: area */
    SC_MASS_QUADS = 3,      /* 4 points, in order around the quad: area (as two triangles 0 1 2, 0 2 3) */
    SC_MASS_TETRAHEDRA = 4, /* 4 points: volume */
    SC_MASS_HEXAHEDRA = 5   /* 8 points, bottom face 0-3 then the top face 4-7 above it: volume (six tetrahedra) */
} sc_mass_element;
/* Lumped masses: adds density x measure / (points per element) to mass[v] for each point v of each of the nelem
 * elements (indices < the points' count, 3 coordinates each in `points`); `density` holds one value, or one per
 * element when ndensity > 1. Returns the mass added (the sum, element by element). */
double sc_lump_masses(const double *points, sc_mass_element kind, const uint32_t *elem, uint32_t nelem,
                      const double *density, uint32_t ndensity, double *mass);
/* Node c's masses from a density (kg/m^3) over its topology's elements of `kind` (or a regular grid's cells), lumped
 * as DiagonalMass lumps them: as sc_lump_masses, given to the node's object. */
int sc_density_masses(pf_scene_component *c, sc_mass_element kind, double density);
int sc_euler_implicit(pf_scene_component *c, void *ctx);
int sc_euler_explicit(pf_scene_component *c, void *ctx);
/* node c's time integrator becomes `kind`; an error when the node already has its own */
int sc_claim_integrator(pf_scene_component *c, pf_solver_kind kind);
/* scenes/component_solvers.c */
int sc_runge_kutta4(pf_scene_component *c, void *ctx);
int sc_static_solver(pf_scene_component *c, void *ctx);
int sc_static_method(pf_scene_component *c, void *ctx);
int sc_newton_raphson(pf_scene_component *c, void *ctx);
int sc_direct_linear_solver(pf_scene_component *c, void *ctx);
/* scenes/component_cg_implicit.c: SOFA's CGImplicit (implicit Euler and its CG in one component) */
int sc_cg_implicit(pf_scene_component *c, void *ctx);
/* scenes/component_integration_schemes.c: BDFIntegrationScheme of order 1 (as BDF1) */
int sc_bdf_scheme(pf_scene_component *c, void *ctx);
int sc_bdf_ode_solver(pf_scene_component *c, void *ctx);
/* scenes/component_damp_velocity.c: DampVelocitySolver (FORCES stage: a step hook on the node's objects) */
int sc_damp_velocity(pf_scene_component *c, void *ctx);
/* scenes/component_rest_shape.c (FORCES stage) */
int sc_rest_shape_springs(pf_scene_component *c, void *ctx);
/* The node's MechanicalObject's rest_position for the listed points idx[0 .. m) (m 0: every point) of object o, for
 * the springs that rest there (*out owned by the caller; NULL: none written out, rest at the initial positions). */
int sc_rest_positions(pf_scene_component *c, pf_object_id o, const uint32_t *idx, size_t m, double **out);
/* FixedWeakConstraint: rest-shape springs on `indices` at the starting positions (scenes/component_rest_shape.c) */
int sc_fixed_weak_constraint(pf_scene_component *c, void *ctx);
int sc_polynomial_springs(pf_scene_component *c, void *ctx);
int sc_cg_linear_solver(pf_scene_component *c, void *ctx);
int sc_collision_pipeline(pf_scene_component *c, void *ctx);
int sc_brute_force_broad_phase(pf_scene_component *c, void *ctx);
int sc_broad_phase(pf_scene_component *c, void *ctx);
int sc_narrow_phase(pf_scene_component *c, void *ctx);
int sc_min_proximity(pf_scene_component *c, void *ctx);
int sc_discrete_intersection(pf_scene_component *c, void *ctx);
int sc_plane_force_field(pf_scene_component *c, void *ctx);
int sc_sphere_force_field(pf_scene_component *c, void *ctx);
int sc_accept_companion(pf_scene_component *c, void *ctx);
int sc_pcg_linear_solver(pf_scene_component *c, void *ctx);
int sc_minres_linear_solver(pf_scene_component *c, void *ctx);
int sc_preconditioner(pf_scene_component *c, void *ctx);
int sc_gravity(pf_scene_component *c, void *ctx);
/* SOFA's rotation from Euler angles in degrees about x, y, z (R = Rz Ry Rx, x applied first), row-major */
void sc_euler_rotation(const double deg[3], double R[9]);
/* a mesh loader's scale3d, scale, rotation (degrees) and translation applied to m as SOFA's MeshLoader does */
int sc_mesh_loader_transform(pf_scene_component *c, sc_mesh *m);
int sc_box_constraint(pf_scene_component *c, void *ctx);
/* MechanicalStateController: moves its state on user input only (none in a run): accepted with a warning */
int sc_input_controller(pf_scene_component *c, void *ctx);
int sc_collision_response(pf_scene_component *c, void *ctx);
int sc_accept(pf_scene_component *c, void *ctx);
int sc_rigid_shape(pf_scene_component *c, void *ctx);
int sc_sparse_grid_topology(pf_scene_component *c, void *ctx);
int sc_rigid_mapping(pf_scene_component *c, void *ctx);
int sc_barycentric_mapping(pf_scene_component *c, void *ctx);
/* scenes/component_linear_mappings.c */
int sc_identity_mapping(pf_scene_component *c, void *ctx);
int sc_subset_mapping(pf_scene_component *c, void *ctx);
/* scenes/components_topology_mappings.c */
int sc_hexa2tetra_mapping(pf_scene_component *c, void *ctx);
int sc_tetra2triangle_mapping(pf_scene_component *c, void *ctx);
int sc_hexa2quad_mapping(pf_scene_component *c, void *ctx);
int sc_quad2triangle_mapping(pf_scene_component *c, void *ctx);
int sc_triangle2edge_mapping(pf_scene_component *c, void *ctx);

/* FORCES stage */
/* scenes/component_tait_pressure.c: TaitSurfacePressureForceField (a custom force field and a step hook) */
int sc_tait_surface_pressure(pf_scene_component *c, void *ctx);
int sc_hexa_fem(pf_scene_component *c, void *ctx);
/* HexahedronFEMForceField with the method given (not read from the element) */
int sc_hexa_fem_method(pf_scene_component *c, pf_fem_method method);
/* scenes/component_tetra_fem.c: TetrahedronFEMForceField, TetrahedralCorotationalFEMForceField */
int sc_tetra_fem(pf_scene_component *c, void *ctx);
/* the same with the method given (not read from the element) */
int sc_tetra_fem_method(pf_scene_component *c, pf_fem_method method);
/* TetrahedralTensorMassForceField: the linear (method="small") tetrahedral FEM, with SOFA's defaults */
int sc_tetra_tensor_mass(pf_scene_component *c, void *ctx);
/* the node's tetrahedra for a tetrahedral force field: *t, *nt the topology's, or its hexahedra split as SOFA
 * splits them into *split (empty otherwise; the caller frees it); a file:line error when there are none */
int sc_tetra_fem_elements(pf_scene_component *c, sc_mesh *split, const uint32_t **t, uint32_t *nt);
/* scenes/component_hyperelastic.c: TetrahedronHyperelasticityFEMForceField, StandardTetrahedralFEMForceField */
int sc_tetra_hyperelastic(pf_scene_component *c, void *ctx);
/* SOFA's element hyperelasticity: HyperelasticityFEMForceField with a StVenantKirchhoffMaterial or
 * NeoHookeanMaterial (youngModulus, poissonRatio) in its node or above */
int sc_hyperelasticity_fem(pf_scene_component *c, void *ctx);
int sc_hyperelastic_material(pf_scene_component *c, void *ctx);
/* scenes/component_fast_tetra.c: FastTetrahedralCorotationalForceField through sc_tetra_fem_method */
int sc_fast_tetra_corotational(pf_scene_component *c, void *ctx);
/* scenes/component_element_fem.c: SOFA's element FEM (LinearSmallStrainFEMForceField, CorotationalFEMForceField) */
int sc_linear_small_strain_fem(pf_scene_component *c, void *ctx);
/* topology="@name": the node's own topology (PhysFlow takes the elements of the force field's node); another
 * node's: PF_ENOTSUP */
int sc_own_topology(pf_scene_component *c);
int sc_corotational_fem(pf_scene_component *c, void *ctx);

int sc_hexahedral_fem(pf_scene_component *c, void *ctx);
/* scenes/component_fem_and_mass.c: the two with their mass from a density (both walks: sc_both_stages) */
int sc_hexa_fem_and_mass(pf_scene_component *c, void *ctx);
int sc_hexahedral_fem_and_mass(pf_scene_component *c, void *ctx);
int sc_regular_grid_springs(pf_scene_component *c, void *ctx);
int sc_mesh_springs(pf_scene_component *c, void *ctx);
int sc_stiff_springs(pf_scene_component *c, void *ctx);
int sc_joint_springs(pf_scene_component *c, void *ctx);
int sc_constant_force_field(pf_scene_component *c, void *ctx);
int sc_box_roi(pf_scene_component *c, void *ctx);
int sc_fixed_constraint(pf_scene_component *c, void *ctx);
/* scenes/component_movements.c (sc_moved_points: the points a moving constraint names, copied for it;
 * sc_follow_linear_path: held points moved in a straight line from x0 to xf over (begin, end], SOFA's
 * projectPosition of its affine and patch-test movements) */
int sc_moved_points(pf_scene_component *c, uint32_t np, uint32_t **idx, uint32_t *n);
typedef struct sc_linear_path {
    const uint32_t *idx; /* the n held points */
    uint32_t n;
    const double *x0, *xf; /* 3 per held point: where it starts and ends */
    double begin, end;
} sc_linear_path;
int sc_follow_linear_path(pf_world *w, pf_object_id o, const double *x, uint32_t np, double *scratch,
                          const sc_linear_path *path, double t);
int sc_linear_movement_constraint(pf_scene_component *c, void *ctx);
int sc_affine_movement_constraint(pf_scene_component *c, void *ctx);
/* scenes/component_trajectories.c */
int sc_oscillator_constraint(pf_scene_component *c, void *ctx);
int sc_parabolic_constraint(pf_scene_component *c, void *ctx);
int sc_patch_test_constraint(pf_scene_component *c, void *ctx);
/* The point indices a constraint names (< npts): all of them, `indices` written out, or an ROI's
 * ("@box.indices"); *owned (freed by the caller) holds them unless they are an ROI's cache. */
int sc_point_indices(pf_scene_component *c, uint32_t npts, int all, const uint32_t **idx, uint32_t *n,
                     uint32_t **owned);
/* scenes/components_roi.c */
int sc_pair_box_roi(pf_scene_component *c, void *ctx);
int sc_sphere_roi(pf_scene_component *c, void *ctx);
int sc_plane_roi(pf_scene_component *c, void *ctx);
/* scenes/components_projective.c */
int sc_partial_fixed_constraint(pf_scene_component *c, void *ctx);
int sc_fixed_plane_constraint(pf_scene_component *c, void *ctx);
int sc_line_constraint(pf_scene_component *c, void *ctx);
int sc_direction_constraint(pf_scene_component *c, void *ctx);
int sc_plane_constraint(pf_scene_component *c, void *ctx);
int sc_point_constraint(pf_scene_component *c, void *ctx);
int sc_fixed_rotation_constraint(pf_scene_component *c, void *ctx);
int sc_attach_constraint(pf_scene_component *c, void *ctx);
/* scenes/component_refused.c: components whose model PhysFlow lacks, refused saying which */
int sc_refused_model(pf_scene_component *c, void *ctx);
int sc_tetrahedron_model(pf_scene_component *c, void *ctx);
int sc_sphere_model(pf_scene_component *c, void *ctx);
int sc_triangle_model(pf_scene_component *c, void *ctx);
int sc_point_model(pf_scene_component *c, void *ctx);
int sc_line_model(pf_scene_component *c, void *ctx);
/* scenes/component_membrane.c */
int sc_triangle_fem(pf_scene_component *c, void *ctx);
int sc_triangle_fem_optim(pf_scene_component *c, void *ctx);
int sc_biquadratic_springs(pf_scene_component *c, void *ctx);
int sc_tensor_mass(pf_scene_component *c, void *ctx);
int sc_fast_bending_springs(pf_scene_component *c, void *ctx);
int sc_triangular_bending_springs(pf_scene_component *c, void *ctx);
int sc_triangle_bending_springs(pf_scene_component *c, void *ctx);
/* scenes/component_pressure.c */
int sc_triangle_pressure(pf_scene_component *c, void *ctx);
/* Adds the constant forces f (3 per point, N) on the np points of object o marked 1 in `done` (marked 2 once
 * added): one constant force field per distinct force, on its points in increasing order. PF_ENOMEM. */
int sc_add_point_forces(pf_scene_component *c, pf_object_id o, const double *f, unsigned char *done, uint32_t np);
/* scenes/component_edge_pressure.c: EdgePressureForceField's constant form */
int sc_edge_pressure(pf_scene_component *c, void *ctx);
int sc_quad_bending_springs(pf_scene_component *c, void *ctx);
int sc_quadular_bending_springs(pf_scene_component *c, void *ctx);
/* scenes/component_topology_changes.c: SOFA's TopologicalChangeProcessor (removals at their times) */
int sc_topological_change_processor(pf_scene_component *c, void *ctx);
/* Notes a force field c made from its node's elements (`count` of `kind`; same_numbering: the topology's own list,
 * in order), which a TopologicalChangeProcessor removes from. PF_ENOMEM. */
int sc_note_element_field(pf_scene_component *c, pf_force_field_id id, sc_element_kind kind, uint32_t count,
                          int same_numbering);

#endif
