/* PhysFlow physics: a world of deformable objects (particles, mass-spring, hexahedral FEM, triangular membranes)
 * with fixed points and interaction springs, integrated by explicit or implicit Euler whose every operation is a
 * recorded runtime task (Hermann et al. 2009, §2.1, §3; SOFA vocabulary). */
#ifndef PHYSFLOW_PHYSICS_H
#define PHYSFLOW_PHYSICS_H

#include "physflow/base.h"
#include "physflow/collision.h"
#include "physflow/runtime.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Handle of an object inside one world. A struct, not an integer, so that a surface id or a plain number
/// passed where an object belongs does not compile.
typedef struct pf_object_id {
    uint32_t index; ///< creation-order number: objects are numbered 0, 1, ... as they are added, and a number
                    ///< is never reused, not even after pf_world_remove_object: (pf_object_id){i} for
                    ///< i < pf_world_objects(w) names every object ever added (pf_world_object_exists says
                    ///< which are still there)
} pf_object_id;

/// Handle of a force field inside one world (a struct, so that another handle or a plain number does not pass
/// for it). Every call that adds a force field to an object (pf_world_add_springs, pf_world_add_grid_springs,
/// pf_world_add_hexa_fem, pf_world_add_tetra_fem, pf_world_add_triangle_fem, pf_world_add_biquadratic_springs,
/// pf_world_add_tensor_mass, pf_world_add_bending_vectors, pf_world_add_force_field, pf_world_add_constant_force,
/// pf_world_add_hyperelastic_fem) hands one out.
typedef struct pf_force_field_id {
    uint32_t index; ///< a number given in creation order, over all objects of the world, and never reused
                    ///< within it (not after pf_world_remove_force_field, nor after its object is removed)
} pf_force_field_id;

/// Time integration of a solver group.
typedef enum pf_solver_kind {
    PF_SOLVER_IMPLICIT_EULER = 0, ///< Baraff & Witkin 1998 (SOFA EulerImplicitSolver) solved by matrix-free CG
    PF_SOLVER_EXPLICIT_EULER = 1, ///< symplectic Euler: v += dt f/m, then x += dt v (SOFA EulerExplicitSolver)
    PF_SOLVER_FORWARD_EULER = 2,  ///< forward Euler: x += dt v and v += dt f/m, both from the step's start
                                  ///< (SOFA EulerExplicitSolver symplectic="0"); gains energy: for comparisons
    PF_SOLVER_RUNGE_KUTTA4 = 3,   ///< classical 4th-order Runge-Kutta on (x, v): four force evaluations per step
                                  ///< (SOFA RungeKutta4Solver)
    PF_SOLVER_STATIC = 4,         ///< quasi-static (SOFA StaticSolver): each step one Newton iteration towards
                                  ///< equilibrium, -K dx = f(x) solved by CG (cg_* settings), x += dx, v = 0;
                                  ///< dt and Rayleigh damping unused. The object must be held (fixed points),
                                  ///< else -K is singular and gravity has no equilibrium
    PF_SOLVER_BDF2 = 5            ///< backward differentiation formula of order 2 (SOFA BDFOdeSolver order="2"):
                                  ///< x' = 4/3 x - 1/3 x_prev + 2/3 dt v', v' = 4/3 v - 1/3 v_prev
                                  ///< + 2/3 dt M^-1 f(x', v'), linearised once per step at (x, v) and solved by
                                  ///< CG (cg_* settings; the direct solver is not used); the first step is
                                  ///< backward Euler (PF_SOLVER_IMPLICIT_EULER's). Objects of points only, each
                                  ///< its own group: a group with interaction force fields or contacts is refused
                                  ///< (PF_ENOTSUP at the step), and so is a rigid body. The previous step's state
                                  ///< is kept per object and saved in checkpoints
} pf_solver_kind;

/// Linear solver of an implicit or static group's system A dv = b.
typedef enum pf_linear_solver {
    PF_LINEAR_CG = 0,    ///< matrix-free conjugate gradient, a loop of tasks (SOFA CGLinearSolver); default
    PF_LINEAR_DIRECT = 1 ///< sparse LDL^T factorisation of the assembled A (SuiteSparse CHOLMOD, simplicial,
                         ///< AMD ordering) in one task per group and step (SOFA SparseLDLSolver and the other
                         ///< direct solvers). Assembled: springs, the three FEM, rest-shape springs,
                         ///< interaction springs and contacts. A group with a host force field that has
                         ///< stiffness, or with a rigid body, is solved by CG instead, said once on stderr unless
                         ///< the runtime is quiet
} pf_linear_solver;

/// Solver settings of an object. Objects linked by interaction force fields form one solver group, which uses
/// the settings of its lowest-numbered object. Get defaults from pf_solver_default_def().
typedef struct pf_solver_def {
    pf_solver_kind kind;       ///< default PF_SOLVER_IMPLICIT_EULER
    double rayleigh_mass;      ///< Rayleigh mass damping coefficient rM, in 1/s; default 0
    double rayleigh_stiffness; ///< Rayleigh stiffness damping coefficient rK, in s; default 0
    uint32_t cg_iterations;    ///< CGLinearSolver `iterations`: most CG iterations per step (>= 1); default 25
    double cg_tolerance;       ///< CGLinearSolver `tolerance` (>= 0, dimensionless, relative as in SOFA): CG
                               ///< has converged when |r| <= tolerance |b|, r the residual of the step's system
                               ///< A dv = b; default 1e-9
    double cg_threshold;       ///< CGLinearSolver `threshold` (>= 0, dimensionless; SOFA's is absolute): CG
                               ///< gives up when |p·Ap| < threshold p·M'p, with p the search direction and
                               ///< M' = M (1 + h rM) the mass part of A = M' - h (h + rK) K: the stiffness has
                               ///< cancelled all but that fraction of the inertia along p (A near singular or
                               ///< indefinite). When -K is positive semi-definite (springs, FEM, contacts)
                               ///< p·Ap >= p·M'p, so a threshold below 1 stops nothing, whatever the masses;
                               ///< 0: never; default 1e-9 (pf_world_stats.cg_stalled counts the solves it stops at once)
    pf_linear_solver linear_solver; ///< implicit and static solvers: default PF_LINEAR_CG
} pf_solver_def;

PF_API pf_solver_def pf_solver_default_def(void);

/// Settings of a world. Get defaults from pf_world_default_def().
typedef struct pf_world_def {
    double gravity[3];          ///< m/s²; default (0, 0, -9.81)
    double dt;                  ///< time step in s (> 0); default 0.01
    double max_speed;           ///< m/s: a point faster than this (or NaN / infinite) is a numerical fault: the
                                ///< step fails with PF_ENUMERIC and the world keeps its state before the step;
                                ///< default 1e4
    pf_runtime_def runtime;     ///< the runtime (worker team) the world creates and owns: workers,
                                ///< executor, partitioner, binding, host task system, repartitioning
                                ///< (physflow/runtime.h); default pf_runtime_default_def()
} pf_world_def;

typedef struct pf_world pf_world;

PF_API pf_world_def pf_world_default_def(void);
/// Creates a world and the runtime (worker team) it owns. The caller owns *out and frees it with
/// pf_world_destroy; *def is copied, but def->runtime.tasks.user_ctx (when a task system is given) must
/// outlive the world.
PF_API int pf_world_create(const pf_world_def *def, pf_world **out);
PF_API void pf_world_destroy(pf_world *w);
/// The runtime the world owns (valid until pf_world_destroy).
PF_API pf_runtime *pf_world_runtime(pf_world *w);
/// Executor and partitioner of later steps (the recorded graph is kept; the runtime recompiles if needed).
PF_API int pf_world_set_executor(pf_world *w, pf_executor e);
PF_API int pf_world_set_partitioner(pf_world *w, pf_partitioner p);
/// Repartitioning policy of later steps.
PF_API int pf_world_set_repartition(pf_world *w, pf_repartition r);
/// Worker count of later steps (between steps only); the graph is placed afresh for the new count.
PF_API int pf_world_set_workers(pf_world *w, int workers);

/// Time step (s, > 0) of later steps. Takes effect at the next step, which re-records every solver group (the
/// step's tasks hold dt; pf_world_get_last_update reports it as a structural update); the same value changes
/// nothing. Refused with PF_ESTATE from inside a step.
PF_API int pf_world_set_dt(pf_world *w, double dt);
/// Gravity (m/s², 3 finite values, copied) of later steps; re-records like pf_world_set_dt.
PF_API int pf_world_set_gravity(pf_world *w, const double gravity[3]);
/// The time step (s) of the next step: the one created with, or the latest pf_world_set_dt.
PF_API int pf_world_get_dt(const pf_world *w, double *dt);
/// The gravity (m/s²) of the next step, copied into gravity[3].
PF_API int pf_world_get_gravity(const pf_world *w, double gravity[3]);
/// The world's settings as they are now: its def with every later pf_world_set_* applied (executor,
/// partitioner, repartition, workers, dt, gravity).
PF_API int pf_world_get_def(const pf_world *w, pf_world_def *out);

/// An object: a mechanical state (positions x, velocities v, forces f and the solver's work vectors, all in
/// double precision) of `points` points with a lumped (diagonal) mass: uniform (SOFA MechanicalObject +
/// UniformMass) or one per point (DiagonalMass).
/// Either explicit positions or a regular grid (SOFA RegularGridTopology). Get defaults from
/// pf_object_default_def().
/// Whether an object is cut into blocks of elements that run on different workers (domain decomposition,
/// Hermann et al. 2009 §4.3). The blocks depend on the mesh and pf_object_def.block_elements only, never on the
/// worker count, so the state stays bitwise the same for every worker count, executor and partitioner.
typedef enum pf_decompose {
    PF_DECOMPOSE_AUTO = 0, ///< when its elements fill at least 4 blocks (default)
    PF_DECOMPOSE_ON,       ///< whenever its elements fill at least 2 blocks
    PF_DECOMPOSE_OFF       ///< never: the object's work runs as one task per phase
} pf_decompose;

typedef struct pf_object_def {
    uint32_t points;          ///< number of points; ignored when `grid` is set
    const double *positions;  ///< 3*points initial positions in m (copied); NULL: all at the origin
    const double *velocities; ///< 3*points initial velocities in m/s (copied); NULL: at rest
    int grid[3];              ///< points per axis of a regular grid (all >= 1, point (i,j,k) has index
                              ///< i + n0*(j + n1*k)); all 0 (default): no grid
    double grid_min[3];       ///< m: the grid's corner of smallest coordinates
    double grid_max[3];       ///< m: the opposite corner (grid_max > grid_min on every axis with n > 1)
    double vertex_mass;       ///< kg per point (> 0); default 1; ignored when total_mass > 0 or point_masses is set
    double total_mass;        ///< kg, spread evenly over the points; default 0 (use vertex_mass); ignored when
                              ///< point_masses is set
    const double *point_masses; ///< one lumped mass per point in kg, each finite and > 0 (copied), points numbered
                                ///< as `positions` or the grid gives them (SOFA DiagonalMass `vertexMass`); NULL
                                ///< (default): vertex_mass / total_mass
    pf_solver_def solver;     ///< time integration; see pf_solver_def for how groups choose theirs
    pf_decompose decompose;   ///< default PF_DECOMPOSE_AUTO. Blocks are used by the implicit and static solvers
                              ///< with CG, for an object with no interaction, whose force fields are springs,
                              ///< FEM (hexahedral, tetrahedral, triangular), constant forces or rest-shape springs
                              ///< (not a host force field); otherwise it runs whole
    uint32_t block_elements;  ///< elements per block (their sum over the object's force fields); 0 (default): as
                              ///< many as cost what 512 hexahedra do (about 1,400 tetrahedra, 2,600 triangles,
                              ///< 34,000 springs)
} pf_object_def;

PF_API pf_object_def pf_object_default_def(void);
/// Adds an object; *out receives its id.
PF_API int pf_world_add_object(pf_world *w, const pf_object_def *def, pf_object_id *out);
/// Removes object o with everything attached to it: its force fields, the interactions naming it (interaction
/// springs to other objects, contact fields), the attachments naming it (pf_world_add_attachment; a target's
/// points they held stay fixed), its fixed points and its surfaces. It leaves the simulation at the
/// next step, which re-records the solver groups that changed; its memory is freed once the graph no longer
/// names it (at the latest by pf_world_destroy). Its id is not reused: later calls naming it, or one of its
/// surfaces, fail with PF_EINVAL ("object 3 was removed", "surface 5 was removed with object 3"), and the
/// handles of its force fields and interactions are unknown to the remove calls. PF_EINVAL for an unknown or
/// already removed object; PF_ESTATE from inside a step (a contact callback, a host force field).
PF_API int pf_world_remove_object(pf_world *w, pf_object_id o);
/// 1 when object o was added to w and not removed, else 0 (w NULL included): with pf_world_objects, how a host
/// goes through the objects that are left.
PF_API int pf_world_object_exists(const pf_world *w, pf_object_id o);

/// A spring between point `a` and point `b` (SOFA StiffSpringForceField): f_a = k (l - l0) u + d ((v_b - v_a)·u) u,
/// f_b = -f_a, with u the unit vector from a to b.
typedef struct pf_spring {
    uint32_t a, b;      ///< point indices (for interaction springs: a in the first object, b in the second)
    double stiffness;   ///< k in N/m (>= 0)
    double damping;     ///< d in N·s/m (>= 0)
    double rest_length; ///< l0 in m; < 0: the distance between the points when the spring is added
} pf_spring;

/// Adds springs inside object o (a mass-spring model): one force field, whose handle *out (may be NULL)
/// receives.
PF_API int pf_world_add_springs(pf_world *w, pf_object_id o, const pf_spring *springs, uint32_t n,
                                pf_force_field_id *out);
/// Regular-grid mass-spring generator (SOFA RegularGridSpringForceField): springs along the grid lines and
/// across the diagonals of every grid face, rest length = initial distance. The object must be a grid.
/// `count` (may be NULL) receives the number of springs added, *out (may be NULL) the handle of their force
/// field.
PF_API int pf_world_add_grid_springs(pf_world *w, pf_object_id o, double stiffness, double damping,
                                     uint32_t *count, pf_force_field_id *out);
/// Handle of an interaction force field inside one world (a struct, so that another handle or a plain number
/// does not pass for it).
typedef struct pf_interaction_id {
    uint32_t index; ///< a number given in creation order and never reused after removal; not a position:
                    ///< removals leave gaps, and the collision stage's contact fields take numbers too
} pf_interaction_id;

/// Interaction springs between object `oa` (spring.a) and object `ob` (spring.b), oa != ob. Linked objects are
/// solved together (one solver group, one CG loop: strong coupling, Hermann et al. 2009, §2.1). `out` (may be NULL)
/// receives the interaction's handle.
PF_API int pf_world_add_interaction_springs(pf_world *w, pf_object_id oa, pf_object_id ob, const pf_spring *springs,
                                            uint32_t n, pf_interaction_id *out);
/// Removes an interaction force field. Its objects' solver group splits when nothing else links them; at the
/// next step only the groups that changed are re-recorded, and the runtime keeps every other task where it was.
PF_API int pf_world_remove_interaction(pf_world *w, pf_interaction_id id);

/// FEM formulation (SOFA's `method` of HexahedronFEMForceField and TetrahedronFEMForceField).
typedef enum pf_fem_method {
    PF_FEM_LINEAR = 0, ///< small displacements: f = -K (x - x0)
    PF_FEM_LARGE = 1,  ///< corotational: per element a rotation R from its current edges, f = -R^T K (R x - x0)
    PF_FEM_POLAR = 2,  ///< corotational, R the rotation of the polar decomposition of the deformation gradient
    PF_FEM_SVD = 3     ///< corotational, R from the singular value decomposition (robust to inverted elements)
} pf_fem_method;

/// Hexahedral FEM (trilinear elements, 2x2x2 Gauss quadrature, isotropic linear elasticity) on the cells of an
/// object's regular grid, or on a list of hexahedra of any shape. Get defaults from pf_hexa_fem_default_def().
typedef struct pf_hexa_fem_def {
    double young_modulus; ///< E in Pa (> 0); default 5000
    double poisson_ratio; ///< nu, dimensionless, in [0, 0.5); default 0.45
    pf_fem_method method; ///< default PF_FEM_LARGE
    /// 8 point indices per hexahedron, in SOFA's HexahedronFEMForceField order (VTK's VTK_HEXAHEDRON, Gmsh's):
    /// corners 0 1 2 3 the bottom face, counter-clockwise seen from the top, 4 5 6 7 the top face, corner 4+k above
    /// corner k — in a unit cube 0 (0,0,0), 1 (1,0,0), 2 (1,1,0), 3 (0,1,0), 4 (0,0,1), 5 (1,0,1), 6 (1,1,1),
    /// 7 (0,1,1). Each element gets its own stiffness on its rest shape; an inverted or flat one is refused.
    /// NULL (default): the cells of the object's grid, which share one stiffness.
    const uint32_t *hexahedra;
    uint32_t nhexahedra; ///< hexahedra given (0 with NULL hexahedra)
} pf_hexa_fem_def;

PF_API pf_hexa_fem_def pf_hexa_fem_default_def(void);
/// Adds a hexahedral FEM force field over def->hexahedra, or all cells of object o's grid (rest shape: the
/// initial positions); *out (may be NULL) receives its handle. The list is copied.
PF_API int pf_world_add_hexa_fem(pf_world *w, pf_object_id o, const pf_hexa_fem_def *def,
                                 pf_force_field_id *out);

/// Tetrahedral FEM over a list of an object's tetrahedra (linear elements, isotropic linear elasticity: per
/// element K_e = V B^T D B at rest). Get defaults from pf_tetra_fem_default_def().
typedef struct pf_tetra_fem_def {
    double young_modulus;       ///< E in Pa (> 0); default 5000
    double poisson_ratio;       ///< nu, dimensionless, in [0, 0.5); default 0.45
    pf_fem_method method;       ///< any of the four; default PF_FEM_LARGE
    const uint32_t *tetrahedra; ///< 4 point indices per tetrahedron (either orientation), copied; default NULL
    uint32_t ntetrahedra;       ///< how many tetrahedra (> 0); default 0
} pf_tetra_fem_def;

PF_API pf_tetra_fem_def pf_tetra_fem_default_def(void);
/// Adds a tetrahedral FEM force field over def->tetrahedra of the points of object o (rest shape: the initial
/// positions); *out (may be NULL) receives its handle. Refuses indices out of range and flat (zero-volume)
/// tetrahedra, naming the element.
PF_API int pf_world_add_tetra_fem(pf_world *w, pf_object_id o, const pf_tetra_fem_def *def,
                                  pf_force_field_id *out);

/// Strain energy of hyperelastic tetrahedra (SOFA TetrahedronHyperelasticityFEMForceField's materialName): W per
/// unit rest volume (J/m^3) of I1 = tr C, I2 = (I1^2 - tr C^2) / 2 and J = det F, C = F^T F; parameters in Pa,
/// in the order of SOFA's ParameterSet.
typedef enum pf_hyperelastic_material {
    PF_HYPER_ST_VENANT_KIRCHHOFF = 0, ///< "StVenantKirchhoff": mu, lambda (Lame); W = lambda/2 (tr E)^2 + mu E:E,
                                      ///< E = (C - I)/2
    PF_HYPER_NEO_HOOKEAN = 1,         ///< "NeoHookean": mu, lambda; W = mu/2 (I1 - 3) - mu ln J + lambda/2 ln^2 J
    PF_HYPER_MOONEY_RIVLIN = 2,       ///< "MooneyRivlin": c1, c2, k0; W = c1 (J^-2/3 I1 - 3) + c2 (J^-4/3 I2 - 3)
                                      ///< + k0/2 ln^2 J (small strains: shear modulus 2 (c1 + c2), bulk k0)
    PF_HYPER_ARRUDA_BOYCE = 3,        ///< "ArrudaBoyce" (SOFA's default): mu, k0; W = mu sum_i=1..5 c_i
                                      ///< ((J^-2/3 I1)^i - 3^i) + k0/2 ln^2 J, SOFA's series for a chain of 8 links
                                      ///< (c_i = 1/2, 1/160, 11/67200, 19/3584000, 519/2759680000)
    PF_HYPER_OGDEN = 4,               ///< "Ogden" (one term): mu, alpha, k0; W = mu / alpha^2 (J^(-alpha/3)
                                      ///< tr C^(alpha/2) - 3) + k0/2 ln^2 J (small strains: shear modulus mu/2,
                                      ///< bulk k0)
    PF_HYPER_MATERIALS                ///< how many materials
} pf_hyperelastic_material;

/// Hyperelastic FEM over a list of an object's tetrahedra (linear elements; SOFA
/// TetrahedronHyperelasticityFEMForceField): forces -V F S grad N_a from the second Piola-Kirchhoff stress
/// S = 2 dW/dC, and their exact derivative as stiffness (implicit solvers, CG or direct). An element inverted
/// (J <= 0) has no energy there: its forces are not finite and the step fails, as SOFA's turn to NaN. Get
/// defaults from pf_hyperelastic_default_def().
typedef struct pf_hyperelastic_def {
    pf_hyperelastic_material material; ///< default PF_HYPER_ST_VENANT_KIRCHHOFF
    double parameters[4];       ///< the material's parameters, in its order (Pa): the moduli, mu and k0 > 0, the
                                ///< others >= 0; default mu and lambda of E = 5000 Pa, nu = 0.45
    uint32_t nparameters;       ///< how many: the material's pf_hyperelastic_parameter_count; default 2
    const uint32_t *tetrahedra; ///< 4 point indices per tetrahedron (either orientation), copied; default NULL
    uint32_t ntetrahedra;       ///< how many tetrahedra (> 0); default 0
} pf_hyperelastic_def;

PF_API pf_hyperelastic_def pf_hyperelastic_default_def(void);
/// How many parameters material m takes (2 or 3), or PF_EINVAL for an unknown material.
PF_API int pf_hyperelastic_parameter_count(pf_hyperelastic_material m);
/// Adds a hyperelastic FEM force field over def->tetrahedra of the points of object o (rest shape: the initial
/// positions); *out (may be NULL) receives its handle. PF_EINVAL for an unknown material, a wrong count of
/// parameters or a parameter out of range, indices out of range and flat tetrahedra, naming what is wrong.
PF_API int pf_world_add_hyperelastic_fem(pf_world *w, pf_object_id o, const pf_hyperelastic_def *def,
                                         pf_force_field_id *out);

/// Triangular membrane FEM (SOFA TriangularFEMForceField, TriangleFEMForceField): linear triangles in plane
/// stress, isotropic, each in its own plane (x along its first edge, z its normal); no bending stiffness. Get
/// defaults from pf_triangle_fem_default_def().
typedef struct pf_triangle_fem_def {
    double young_modulus;      ///< E in Pa (> 0); default 1000
    double poisson_ratio;      ///< nu, dimensionless, in [0, 0.5); default 0.3
    double thickness;          ///< t in m (> 0): the membrane's stiffness scales with it; default 1
    pf_fem_method method;      ///< PF_FEM_LARGE (the frame follows each triangle) or PF_FEM_LINEAR (the rest
                               ///< frame, fixed); default PF_FEM_LARGE
    const uint32_t *triangles; ///< 3 point indices per triangle (copied); default NULL
    uint32_t ntriangles;       ///< how many triangles (> 0); default 0
    double rest_scale;         ///< dimensionless (> 0): each triangle's rest shape is its initial shape scaled by
                               ///< it, a pre-stretched membrane below 1 (SOFA TriangularFEMForceFieldOptim
                               ///< `restScale`); default 1
} pf_triangle_fem_def;

PF_API pf_triangle_fem_def pf_triangle_fem_default_def(void);
/// Adds a triangular FEM force field over def->triangles of object o (an object of points; rest shape: the
/// initial positions); *out (may be NULL) receives its handle. PF_EINVAL for a bad parameter, a point out of range
/// or a triangle of zero area.
PF_API int pf_world_add_triangle_fem(pf_world *w, pf_object_id o, const pf_triangle_fem_def *def,
                                     pf_force_field_id *out);

/// Biquadratic springs on triangles (SOFA TriangularBiquadraticSpringsForceField; Delingette 2008): a nonlinear
/// (St Venant-Kirchhoff) membrane written on the squared lengths of each triangle's edges, with SOFA's
/// coefficients from E and nu; with `quadratic`, the same on the edges' lengths (SOFA
/// TriangularQuadraticSpringsForceField). Its stiffness is the exact derivative of its force. Get defaults from
/// pf_biquadratic_springs_default_def().
typedef struct pf_biquadratic_springs_def {
    double young_modulus;      ///< E in Pa (> 0); default 1000
    double poisson_ratio;      ///< nu, dimensionless, in (-1, 1) (SOFA's lambda = E nu / (1 - nu^2), mu = E (1 - nu) /
                               ///< (1 - nu^2)); default 0.3
    int angular_springs;       ///< 1: the cross terms between a triangle's edges (SOFA's useAngularSprings), 0: each
                               ///< edge alone; default 1
    int compressible;          ///< 1: the term that resists a triangle's loss of area (with angular_springs only, as in
                               ///< SOFA; biquadratic only); default 1
    int quadratic;             ///< 0: biquadratic (on squared lengths); 1: Delingette's quadratic springs on the
                               ///< lengths (SOFA TriangularQuadraticSpringsForceField; no area term); default 0
    const uint32_t *triangles; ///< 3 point indices per triangle (copied); default NULL
    uint32_t ntriangles;       ///< how many triangles (> 0); default 0
} pf_biquadratic_springs_def;

PF_API pf_biquadratic_springs_def pf_biquadratic_springs_default_def(void);
/// Adds biquadratic (or quadratic) springs over def->triangles of object o (an object of points; rest shape: the
/// initial positions); *out (may be NULL) receives its handle. PF_EINVAL for a bad parameter, a point out of range
/// or a triangle of zero area.
PF_API int pf_world_add_biquadratic_springs(pf_world *w, pf_object_id o, const pf_biquadratic_springs_def *def,
                                            pf_force_field_id *out);

/// Tensor-mass membrane on triangles (SOFA TriangularTensorMassForceField; Cotin et al. 2000): linear elasticity on
/// the points' displacements from rest, not rotated (large rotations give forces): in each triangle's plane the
/// linear plane-stress triangle of E and nu (unit thickness), across it (lambda + mu)/2 times the cotangent
/// Laplacian (SOFA's lambda = E nu / (1 - nu^2), mu = E (1 - nu) / (1 - nu^2)). Get defaults from
/// pf_tensor_mass_default_def().
typedef struct pf_tensor_mass_def {
    double young_modulus;      ///< E in Pa (> 0); default 1000
    double poisson_ratio;      ///< nu, dimensionless, in (-1, 1); default 0.3
    const uint32_t *triangles; ///< 3 point indices per triangle (copied); default NULL
    uint32_t ntriangles;       ///< how many triangles (> 0); default 0
} pf_tensor_mass_def;

PF_API pf_tensor_mass_def pf_tensor_mass_default_def(void);
/// Adds a tensor-mass membrane over def->triangles of object o (an object of points; rest shape: the initial
/// positions); *out (may be NULL) receives its handle. PF_EINVAL for a bad parameter, a point out of range or a
/// triangle of zero area.
PF_API int pf_world_add_tensor_mass(pf_world *w, pf_object_id o, const pf_tensor_mass_def *def,
                                    pf_force_field_id *out);

/// Volino's bending vectors (SOFA FastTriangularBendingSprings; Volino and Magnenat-Thalmann 2006): for every edge
/// shared by exactly two triangles, the energy lambda/2 |R|^2 of the bending vector R = sum a_P x_P over the hinge's
/// four points (weights fixed at rest, R = 0 while the hinge is flat; lambda = 2/3 (h_A + h_B) / (h_A^2 h_B^2) |CD|
/// k from the rest heights of the two opposite points over the edge). Linear in x; no stretching stiffness (pair it
/// with a membrane). Get defaults from pf_bending_vectors_default_def().
typedef struct pf_bending_vectors_def {
    double bending_stiffness;  ///< k in N m (>= 0); default 1
    double min_distance;       ///< m (>= 0): a hinge whose rest edge or opposite points are not farther apart has no
                               ///< vector (SOFA's minDistValidity); default 1e-6
    const uint32_t *triangles; ///< 3 point indices per triangle; default NULL
    uint32_t ntriangles;       ///< how many triangles (> 0); default 0
} pf_bending_vectors_def;

PF_API pf_bending_vectors_def pf_bending_vectors_default_def(void);
/// Adds the bending vectors of the hinges of def->triangles to object o (an object of points; rest shape: the
/// initial positions). *hinges (may be NULL) receives how many; with none (no edge of exactly two triangles) no
/// field is added and *out is left as it was, else *out (may be NULL) receives its handle. PF_EINVAL for a bad
/// parameter or a point out of range.
PF_API int pf_world_add_bending_vectors(pf_world *w, pf_object_id o, const pf_bending_vectors_def *def,
                                        uint32_t *hinges, pf_force_field_id *out);

/// A force field written by the host as plain sequential callbacks (Hermann et al.'s (2009) "non-invasive"
/// promise). It acts on one object of points: it reads the object's positions and velocities and adds into its
/// force vector, and it runs inside the object's force task, after the built-in fields, in the order the fields
/// were added — so it is part of the recorded graph, scheduled and replayed like them. Get defaults from
/// pf_force_field_default_def().
typedef struct pf_force_field_def {
    /// f += F(x, v): x, v, f hold 3*points values (m, m/s, N). Required.
    void (*add_force)(const double *x, const double *v, double *f, uint32_t points, void *ctx);
    /// df += kfact (dF/dx) dx: the field's stiffness applied to dx, used by the implicit solver's matrix-free
    /// products (at the positions x of the step). NULL: the field has no stiffness term (its force still enters
    /// the implicit step, explicitly).
    void (*add_dforce)(const double *x, const double *dx, double *df, double kfact, uint32_t points, void *ctx);
    void *ctx;       ///< passed to both; must outlive the world
    double cost_ns;  ///< estimated ns of one add_force call, until the runtime measures it; default 0 (unknown)
} pf_force_field_def;

PF_API pf_force_field_def pf_force_field_default_def(void);
/// Adds a custom force field to object o (an object of points, not a rigid body); *out (may be NULL) receives
/// its handle.
PF_API int pf_world_add_force_field(pf_world *w, pf_object_id o, const pf_force_field_def *def,
                                    pf_force_field_id *out);

/// A constant force on points of one object (SOFA ConstantForceField): every listed point receives `force`, e.g.
/// a load hung on a beam's end. It has no stiffness. On a rigid body (pf_world_add_rigid) the points are the
/// body's two: point 0 takes `force` at the centre of mass (N; no torque), point 1 takes it as a torque about the
/// centre of mass (N·m, world frame); SOFA's Rigid3 force (linear force, then torque) is one constant force on
/// each. Get defaults from pf_constant_force_default_def().
typedef struct pf_constant_force_def {
    const uint32_t *points; ///< point indices (a point listed twice gets the force twice); default NULL
    uint32_t npoints;       ///< how many in `points`; 0 (with points NULL): every point of an object of points
                            ///< (not allowed on a rigid body, whose points must be named); default 0
    double force[3];        ///< N per listed point (N·m on a rigid body's point 1), finite; default {0, 0, 0}
} pf_constant_force_def;

PF_API pf_constant_force_def pf_constant_force_default_def(void);
/// Adds a constant force to object `object` (an object of points, or a rigid body: see pf_constant_force_def); the
/// points are copied. On an object of points it is added into f after the springs and FEM of the object and before
/// its custom force fields; on a rigid body after gravity. Every solver that moves rigid bodies (implicit Euler,
/// symplectic Euler) applies it within the step it acts in. Returns PF_EINVAL (message in pf_last_error()) for an
/// unknown object, a non-finite force, a point out of range (a rigid body's points are 0 and 1) or an empty point
/// list on a rigid body. *out (may be NULL) receives its handle.
PF_API int pf_world_add_constant_force(pf_world *w, pf_object_id object, const pf_constant_force_def *def,
                                       pf_force_field_id *out);

/// Springs pulling points back to rest positions (SOFA RestShapeSpringsForceField): f_i += -k_i (x_i - r_i), a
/// stiffness the implicit solvers include; no damping of their own (the solver's Rayleigh damping applies). Get
/// defaults from pf_rest_shape_springs_default_def().
typedef struct pf_rest_shape_springs_def {
    const uint32_t *points;       ///< point indices (copied); NULL with npoints 0 (default): every point
    uint32_t npoints;             ///< how many in `points`
    double stiffness;             ///< k in N/m (>= 0) for every listed point; default 1
    const double *stiffnesses;    ///< one k per listed point (copied), replacing `stiffness`; default NULL
    const double *rest_positions; ///< 3 per listed point, m (copied); NULL (default): the points' positions now
} pf_rest_shape_springs_def;

PF_API pf_rest_shape_springs_def pf_rest_shape_springs_default_def(void);
/// Adds rest-shape springs to object o (an object of points); *out (may be NULL) receives the handle. They are
/// summed into f after the FEM and before constant forces. PF_EINVAL for a point out of range, a negative or
/// non-finite stiffness or rest position.
PF_API int pf_world_add_rest_shape_springs(pf_world *w, pf_object_id o, const pf_rest_shape_springs_def *def,
                                           pf_force_field_id *out);

/// Polynomial rest-shape springs (SOFA PolynomialRestShapeSpringsForceField): each listed point i is pulled back
/// to its rest position r_i by a force of magnitude P(s) = c_1 s + c_2 s^2 + ... + c_d s^d of its strain
/// s = |x_i - r_i| / L_i, along SOFA's smoothed direction (x_i - r_i) / sqrt(|x_i - r_i|^2 + exp(shift - scale
/// |x_i - r_i|^2)). Its stiffness is SOFA's: a diagonal one, per axis d (P'(s) / L - P / l) (1 - scale e) w_d^2 +
/// P / l, with l that smoothed length, e the exponential and w the direction. Get defaults (SOFA's) from
/// pf_polynomial_springs_default_def().
typedef struct pf_polynomial_springs_def {
    const uint32_t *points;        ///< point indices (copied); NULL with npoints 0 (default): every point
    uint32_t npoints;              ///< how many in `points`
    const double *rest_positions;  ///< 3 per listed point, m (copied); NULL (default): the points' positions now
    const uint32_t *degrees;       ///< each polynomial's degree d (1 to 64); default: one polynomial of degree 1
    uint32_t npolynomials;         ///< 1 (every point's) or one per listed point; default 1
    const double *coefficients;    ///< c_1 .. c_d of each polynomial in turn, N (copied); default {100}
    const double *initial_lengths; ///< L per listed point, m (> 0) (copied); NULL (default): initial_length for all
    double initial_length;         ///< L, m (> 0); default 1
    double smooth_shift;           ///< shift in the smoothed direction, dimensionless (finite); default 0
    double smooth_scale;           ///< scale in the smoothed direction, 1/m^2 (finite); default 1
} pf_polynomial_springs_def;

PF_API pf_polynomial_springs_def pf_polynomial_springs_default_def(void);
/// Adds polynomial rest-shape springs to object o (an object of points); *out (may be NULL) receives the handle.
/// PF_EINVAL for a point out of range, a count of polynomials other than 1 or one per point, a degree out of range,
/// a non-finite coefficient, shift, scale or rest position, or a length that is not > 0.
PF_API int pf_world_add_polynomial_springs(pf_world *w, pf_object_id o, const pf_polynomial_springs_def *def,
                                           pf_force_field_id *out);

/// Removes a force field from its object: from the next step it no longer acts (the object's solver group is
/// re-recorded then; the other fields of the object keep their order, so their sums are unchanged). Its memory
/// is freed once the graph no longer names it. PF_EINVAL for a handle of no force field of this world, or of
/// one already removed (by this call or with its object); PF_ESTATE from inside a step.
PF_API int pf_world_remove_force_field(pf_world *w, pf_force_field_id id);
/// Removes elements from force field ff as SOFA's topology modifiers remove them (TetrahedronSetTopologyModifier
/// and its kin, e.g. for SOFA's TopologicalChangeProcessor): `elements` (n indices, any order) are in the field's
/// current numbering; they are taken in decreasing order and each removed slot takes the field's last element, so
/// that after the call the field's numbering is SOFA's (removing {0} of {A, B, C} leaves {C, B}). Takes effect at
/// the next step, which re-records the object's solver group (an object cut into blocks is cut anew). Removing
/// every element removes the field (pf_world_remove_force_field). Fields of elements: tetrahedral, hexahedral and
/// triangle FEM, triangle springs and tensor-mass triangles, springs (their edges); the masses stay as they are.
/// n = 0 changes nothing. PF_EINVAL for an unknown or removed ff, a field without elements to remove (constant
/// forces, bending hinges), elements NULL with n > 0, an index out of range or given twice; PF_ESTATE
/// from inside a step (pf_world_set_step_hook's hook may call it).
PF_API int pf_world_remove_elements(pf_world *w, pf_force_field_id ff, const uint32_t *elements, uint32_t n);

/// Fixed-point constraint (SOFA FixedConstraint, projective): the points never move.
PF_API int pf_world_fix_points(pf_world *w, pf_object_id o, const uint32_t *points, uint32_t n);
/// Holds points of object o along `direction` only (SOFA FixedPlaneProjectiveConstraint: they slide in the plane
/// normal to it; call twice with two directions for PartialFixedProjectiveConstraint or a line,
/// LineProjectiveConstraint): their velocity along it is zero from now on and every solver keeps it so. A point's
/// held directions are made orthonormal; holding one along a direction it is already held along changes
/// nothing, and a third independent one fixes it (pf_world_fix_points). pf_world_unfix_points frees them too.
/// On a rigid body (pf_world_add_rigid), point 0 held along a direction keeps its com from moving along it, and
/// point 1 held along a world axis keeps the body from turning about it (SOFA FixedRotationProjectiveConstraint):
/// the angular velocity and torque about it are projected out, and after each step the orientation's rotation
/// about the held axes (its twist, in the swing-twist split, taken axis by axis in the order held) is set back to
/// that of the orientation the body had when point 1 got its first held direction.
/// PF_EINVAL for a zero or non-finite direction or a point out of range.
PF_API int pf_world_fix_directions(pf_world *w, pf_object_id o, const uint32_t *points, uint32_t n,
                                   const double direction[3]);
/// Frees fixed points of object o (the inverse of pf_world_fix_points): from the next step they move, starting
/// from where they are at rest (a fixed point's velocity is zero). A listed point that is not fixed is left as it
/// is; PF_EINVAL for a point out of range, and nothing changes. An object that was static (every point fixed)
/// links solver groups again; the next step re-records the groups that changed.
PF_API int pf_world_unfix_points(pf_world *w, pf_object_id o, const uint32_t *points, uint32_t n);
/// Points of one object that follow points of another (SOFA AttachProjectiveConstraint, one way): pair k ties
/// target point target_points[k] to source point source_points[k]. Get defaults from pf_attachment_default_def().
typedef struct pf_attachment_def {
    const uint32_t *source_points; ///< points of the source object (SOFA indices1), copied; a point may be listed
                                   ///< several times
    const uint32_t *target_points; ///< points of the target object (SOFA indices2), copied; each at most once, and
                                   ///< in no other attachment
    uint32_t npoints;              ///< pairs in the two lists; default 0 (nothing attached)
    const double *factors;         ///< one per pair in [0, 1] (SOFA constraintFactor), copied: how far the target
                                   ///< moves to its source at each step's end (0: it stays put, still held); NULL
                                   ///< (default): 1 for every pair
    double position_factor;        ///< in [0, 1], multiplies the factors for positions (SOFA positionFactor);
                                   ///< default 1
    double velocity_factor;        ///< in [0, 1], multiplies them for velocities (SOFA velocityFactor); default 1
} pf_attachment_def;

PF_API pf_attachment_def pf_attachment_default_def(void);
/// Attaches points of object `target` to points of object `source`, one way (the source does not feel the
/// target). The target points become fixed points of the target's solve (its response there is zero, as SOFA's
/// projectResponse makes it); at the end of every step, after every solver group's solve, each takes its source
/// point's position and velocity: y += c (y_source - y), with c = factors[k] × position_factor (positions) or ×
/// velocity_factor (velocities), so with c = 1 it is the source's exactly (bitwise). The two objects keep their
/// own solver groups; a task per attachment, recorded after the groups' tasks, reads the source's state and
/// writes the target's, so the data flow orders it and every executor, worker count and partitioner gives the
/// same state. Attachments apply in the order added (a chain A→B→C added in that order moves C with B's new
/// state). An attached point cannot be freed (pf_world_unfix_points refuses it); removing either object removes
/// the attachment and leaves the target points fixed where they are. PF_EINVAL for an unknown or removed object,
/// source == target, a rigid body, lists NULL with npoints > 0, a point out of range, a target point listed twice
/// or already attached, a factor outside [0, 1] or not a number; PF_ESTATE from inside a step.
PF_API int pf_world_add_attachment(pf_world *w, pf_object_id source, pf_object_id target,
                                   const pf_attachment_def *def);
/// Box region (SOFA BoxROI): the points of object o inside box = {xmin, ymin, zmin, xmax, ymax, zmax} (m,
/// bounds included), in increasing order. Writes at most `cap` indices to `out` (may be NULL when cap is 0) and
/// the total count to *count.
PF_API int pf_world_box_select(const pf_world *w, pf_object_id o, const double box[6], uint32_t *out, uint32_t cap,
                               uint32_t *count);
/// Fixes every point of object o inside the box; *count (may be NULL) receives how many.
PF_API int pf_world_fix_box(pf_world *w, pf_object_id o, const double box[6], uint32_t *count);

/// Advances the world by `steps` time steps. The first step (and the first after a structural change: an
/// object, force field or constraint added or removed) records the step's tasks into the runtime graph; later
/// steps replay it.
/// A numerical fault (a state NaN, infinite or faster than max_speed) stops at the step where it appears:
/// PF_ENUMERIC with a message naming the object (and the force field when its force is already not finite),
/// and every object back in its state before that step.
PF_API int pf_world_step(pf_world *w, uint32_t steps);
/// A host's function called at the start of each step (time: the simulated time so far, s, the sum of the dt of
/// the steps run), before the collision stage, with the world mutable: it may remove elements, force fields or
/// objects, or change settings, which take effect in that step. A nonzero return aborts pf_world_step with it.
typedef int (*pf_step_hook)(pf_world *w, double time, void *ctx);
/// Sets w's step hook (one per world: a second call replaces it; fn NULL clears it). ctx is the host's (freed by
/// it, after the world or once replaced). PF_EINVAL for w NULL; PF_ESTATE from inside a step.
PF_API int pf_world_set_step_hook(pf_world *w, pf_step_hook fn, void *ctx);

/// Number of object ids handed out n: the ids are (pf_object_id){0} .. (pf_object_id){n - 1}, removed ones
/// included (pf_world_object_exists tells them apart); removing an object does not lower n.
PF_API uint32_t pf_world_objects(const pf_world *w);
/// Positions (3*points, m) / velocities (m/s) of object o, and its point count; NULL for an invalid or removed
/// id. The memory stays valid until the world is destroyed or the object removed; it changes with each step.
PF_API const double *pf_world_positions(const pf_world *w, pf_object_id o, uint32_t *points);
PF_API const double *pf_world_velocities(const pf_world *w, pf_object_id o, uint32_t *points);

/// Mass of object o, as its definition set it (each may be NULL): `point_mass` (kg) the lumped mass of each
/// point (def.vertex_mass, or def.total_mass / points), `total_mass` (kg) point_mass x points. An object given
/// def.point_masses that differ: point_mass is their mean and total_mass their sum, in point order
/// (pf_world_get_point_masses gives each). A rigid body: its mass in both (pf_world_get_rigid_inertia gives its
/// inertia).
PF_API int pf_world_get_object_mass(const pf_world *w, pf_object_id o, double *point_mass, double *total_mass);
/// The lumped mass of each point of object o (kg): copies min(cap, n) of them into `out` (may be NULL when cap
/// is 0) and the point count n into *points: def.point_masses, or the uniform mass n times. PF_EINVAL for a
/// rigid body (pf_world_get_rigid_inertia gives its mass and inertia).
PF_API int pf_world_get_point_masses(const pf_world *w, pf_object_id o, double *out, uint32_t cap,
                                     uint32_t *points);
/// Solver settings of object o as its definition gave them (*out). The solver group it belongs to uses those of
/// its lowest-numbered object (pf_solver_def).
PF_API int pf_world_get_solver(const pf_world *w, pf_object_id o, pf_solver_def *out);

/// Overwrites the state of object o: `x` positions (m) and `v` velocities (m/s), 3*points values each, copied;
/// either may be NULL to keep it. Fixed points keep zero velocity. The recorded graph is kept.
PF_API int pf_world_set_state(pf_world *w, pf_object_id o, const double *x, const double *v);

/// FNV-1a 64-bit over every object's x bytes (for a rigid body including its orientation quaternion) then v
/// bytes, objects in id order: equal hashes mean bitwise equal states. A removed object adds nothing, so a world
/// with removed objects hashes as one built with only the objects left (given in the same order).
PF_API uint64_t pf_world_state_hash(const pf_world *w);

/// Writes the world's dynamic state — every object's positions (with a rigid body's orientation) and
/// velocities, and the step count — with a free-form `note` (may be NULL; the CLI stores the scene there) to
/// `path`, atomically: a temporary file beside it, synced, then renamed over it, so a failure never leaves a
/// truncated file. The structure (objects, force fields) is not saved: restore into a world built the same way
/// (the same objects added, and the same ones removed: pf_world_remove_object).
PF_API int pf_world_save_state(const pf_world *w, const char *path, const char *note);
/// Restores a state written by pf_world_save_state into a world built the same way (checked: PF_EPARSE
/// otherwise, and for a damaged file); the world is unchanged on failure. `note` (may be NULL when note_cap is
/// 0) receives the note, cut to note_cap - 1 bytes. Stepping on repeats the uninterrupted run bit for bit.
PF_API int pf_world_load_state(pf_world *w, const char *path, char *note, size_t note_cap);
/// The note of a state file (to know which scene to build before loading it), cut to note_cap - 1 bytes.
PF_API int pf_state_file_note(const char *path, char *note, size_t note_cap);

/// What the latest structural update did: the step after a change (object, force field, constraint,
/// interaction added or removed) regroups the objects and re-records only the solver groups that changed.
typedef struct pf_world_update {
    uint64_t step;            ///< steps run before the update
    uint32_t groups_kept;     ///< solver groups whose recorded tasks stayed as they were
    uint32_t groups_recorded; ///< groups recorded: new, merged, split, or with a new force field or constraint
    uint32_t groups_removed;  ///< groups of the previous graph whose tasks were removed
    uint32_t tasks_added;     ///< tasks recorded (the runtime analyses, places and compiles only these)
    uint32_t tasks_removed;   ///< tasks removed from the graph
    uint32_t tasks_moved;     ///< existing tasks whose worker changed (0 unless the worker count changed)
    double ms_record;         ///< regrouping and recording, ms
    double ms_runtime;        ///< the runtime's analysis, placement and compilation, ms
} pf_world_update;
/// The latest structural update (all zero before the first step); `count` (may be NULL) receives how many
/// updates happened so far, the first recording included.
PF_API int pf_world_get_last_update(const pf_world *w, pf_world_update *out, uint32_t *count);

/// The collision stage of a world (SOFA's collision pipeline: DefaultPipeline, a broad phase,
/// MinProximityIntersection, DefaultContactManager with PenaltyContactForceField). Each step, before the
/// solvers, the vertices of every surface are tested against the triangles of the surfaces of other objects;
/// each vertex closer than the alarm distance to a triangle of another object becomes a penalty contact (one per
/// vertex and object, the nearest), pushing the surfaces back to the contact distance, with Coulomb friction
/// along the surface. Surfaces with lines also meet edge to edge (one contact per pair of closest features), and
/// a surface with self_collision meets itself (pf_surface_def). The contacts between two objects form one
/// interaction force field (those within one object, one field of the object with itself): it is created when
/// they start touching and removed when they stop, which merges and splits solver groups (the graph is updated
/// only on those steps). A static object (every point fixed) links no groups.
///
/// The rule a scene must respect (docs/physics.md, "Contacts"): within one step, two surfaces approach each
/// other by less than alarm_distance - contact_distance. A pair that breaks it is counted
/// (pf_collision_stats.fast_pairs) and searched over its whole motion instead, at a higher cost. Contacts against
/// a closed surface are one-sided: a vertex behind one of its faces is pushed back out along that face's
/// normal. With the defaults, a 20 cm box of density 1000 kg/m³ rests on a floor at dt = 1/60 s closer to it
/// than the contact distance and never below it by more than that distance. Get defaults from
/// pf_collision_default_def(); scenes take SOFA's own defaults instead (docs/scenes.md).
typedef struct pf_collision_def {
    pf_broadphase_method broadphase; ///< physflow/collision.h, not PF_BP_KD_RAW; default PF_BP_KD
    double alarm_distance;           ///< m; default 0.05; >= contact_distance
    double contact_distance;         ///< m; default 0.01; >= 0
    double stiffness;                ///< penalty stiffness per contact, N/m (> 0); default 10000
    double damping;                  ///< damping along the normal per contact, N·s/m (>= 0); default 0
    double friction;                 ///< Coulomb coefficient μ of every contact (>= 0; SOFA's `mu` in
                                     ///< responseParams) unless its surfaces set their own; default 0
} pf_collision_def;

PF_API pf_collision_def pf_collision_default_def(void);
/// Enables (or reconfigures) the collision stage; every surface takes part.
PF_API int pf_world_set_collision(pf_world *w, const pf_collision_def *def);
/// The collision stage's settings (as last set); PF_ESTATE when the world has none.
PF_API int pf_world_get_collision(const pf_world *w, pf_collision_def *out);

/// One contact of the latest collision stage, as a host sees it.
typedef struct pf_world_contact {
    pf_object_id object_a, object_b; ///< object_a <= object_b (equal for spheres of one object)
    double point_a[3], point_b[3];   ///< m: the contact points on a's and on b's feature (sphere centres for spheres,
                                     ///< points of the edges for an edge–edge contact)
    double normal[3];                ///< unit, from b towards a
    double distance;                 ///< m: the gap between the surfaces when found (negative: interpenetration)
    double depth;                    ///< m: contact_distance - distance, how far the penalty spring is
                                     ///< compressed (> 0: closer than the contact distance, the force pushes;
                                     ///< <= 0: only within the alarm distance, no force)
    double force[3];                 ///< N: the contact force on a (on b: its opposite) at the state the callback
                                     ///< sees, the step's start: the normal part (k depth - c (v_a - v_b)·normal)
                                     ///< normal when depth > 0 and that is positive, else 0 (k, c:
                                     ///< pf_collision_def stiffness and damping), plus the friction of its
                                     ///< tangential spring (at most μ times the normal part; docs/physics.md,
                                     ///< "Contacts"). It is the force term f(x, v) of the step; the implicit solve
                                     ///< adds its stiffness response, so the impulse over the step differs.
} pf_world_contact;

/// Called after each step's collision stage, before the solvers, with the step's contacts (valid during the
/// call only; n may be 0). It must not change the world.
typedef void (*pf_contact_fn)(const pf_world_contact *contacts, uint32_t n, void *ctx);
/// Sets (or with NULL clears) the contact callback.
PF_API int pf_world_set_contact_callback(pf_world *w, pf_contact_fn fn, void *ctx);

/// Counters of the latest step's collision stage.
typedef struct pf_collision_stats {
    uint32_t contacts;     ///< penalty contacts
    uint32_t pairs;        ///< object pairs in contact (contact force fields)
    uint32_t started;      ///< object pairs that started touching this step
    uint32_t stopped;      ///< object pairs that stopped touching this step
    uint64_t candidates;   ///< broad-phase pairs examined by the narrow phase
    double ms;             ///< time of the collision stage, ms
    double min_distance;   ///< smallest gap among contacts (vertex–triangle, sphere, edge–edge), m (+inf when none;
                           ///< negative: interpenetration, a vertex behind a closed surface's face or past the side of an open one it keeps)
    uint32_t fast_pairs;   ///< surface pairs that approached each other by more than alarm_distance -
                           ///< contact_distance in this step (the rule of pf_collision_def broken; searched over
                           ///< their whole motion)
    uint64_t fast_pairs_total; ///< the same, summed over every step so far
} pf_collision_stats;
PF_API int pf_world_get_collision_stats(const pf_world *w, pf_collision_stats *out);

/// Counters of a world.
typedef struct pf_world_stats {
    uint32_t objects;           ///< objects in the world (removed ones not counted: pf_world_objects counts ids)
    uint32_t groups;            ///< solver groups in the recorded graph
    uint32_t tasks;             ///< tasks recorded for one step (loop bodies counted once)
    uint32_t records;           ///< how many times the step was recorded
    uint64_t steps;             ///< steps run
    uint32_t cg_iterations;     ///< CG iterations of the latest step, summed over implicit groups
    uint32_t cg_iterations_max; ///< the largest of one group in the latest step
    /* CG outcomes summed over implicit groups and the steps run so far (steps that failed with PF_ENUMERIC
       excluded; a state loaded from a checkpoint does not carry them) */
    uint64_t cg_solves;         ///< CG solves: one per implicit group per step
    uint64_t cg_stalled;        ///< of which stopped before their first update with |r| > tolerance |b|: dv = 0
                                ///< although the forces asked for motion (the denominator test fired at once)
    uint64_t cg_unconverged;    ///< of which ended with |r| > tolerance |b| after one update or more: the
                                ///< iteration bound reached (or a later denominator break)
    /* the runtime's counters (pf_graph_get_run_stats) */
    double imbalance;           ///< latest step: max busy / mean busy over workers (1: balanced)
    double busy_ms, wait_ms, idle_ms; ///< latest step, summed over workers
    uint64_t waits;             ///< latest step: wait operations of all workers
    uint64_t waits_blocked;     ///< latest step: of which found the result not ready
    uint32_t repartitions;      ///< repartitions so far
    uint32_t objects_moved;     ///< objects moved by repartitions so far
    uint32_t repartitions_reverted; ///< of the repartitions, those undone because measured runs were slower
    double ms_repartition;      ///< time spent repartitioning so far, ms
    uint32_t metis_small;       ///< placements where METIS fell back to owner-compute (graph too small)
} pf_world_stats;
PF_API int pf_world_get_stats(const pf_world *w, pf_world_stats *out);
/// Per-worker counters of the latest step's graph run: up to `cap` into `out`, the worker count into *workers.
PF_API int pf_world_get_worker_stats(const pf_world *w, pf_worker_stats *out, int cap, int *workers);
/// Where the objects 0..cap-1 ran the latest step (a viewer colours them by it: physflow/html.h). worker[o] (may
/// be NULL): the worker that runs most of object o's task cost in the static executor's placement (-1 when not
/// placed: before the first step, another executor, a removed object). group[o] (may be NULL): the lowest object id
/// of its solver group, which names the group while others join or leave it (UINT32_MAX for a removed object, or
/// while a change waits for the next step to regroup). cap may exceed pf_world_objects(w): the rest is -1 and
/// UINT32_MAX.
PF_API int pf_world_get_placement(const pf_world *w, int32_t *worker, uint32_t *group, uint32_t cap);

/* ==================================== Bodies: rigid bodies, surfaces, deformable grids
 *================================== (Hermann et al. 2009, §4.2: rigid bodies and deformable models of several
 *kinds, each seen by collision through a surface mesh that its object carries through a mapping, SOFA's
 * IdentityMapping / BarycentricMapping / RigidMapping). */

/// Handle of a surface inside one world (a struct, so that an object id or a plain number passed where a
/// surface belongs does not compile).
typedef struct pf_surface_id {
    uint32_t index; ///< creation-order number: surfaces are numbered 0, 1, ... as they are added, and a number is
                    ///< never reused, so (pf_surface_id){i} for i < pf_world_surfaces(w) names every surface
                    ///< ever added; those of a removed object (pf_world_remove_object) take no further part in
                    ///< collision, and calls naming them fail with PF_EINVAL (NULL for pointers)
} pf_surface_id;

/// Mass properties of a solid: mass, centre of mass and inertia tensor about the centre of mass.
typedef struct pf_mass_properties {
    double mass;       ///< kg
    double com[3];     ///< centre of mass, m, in the frame of the input
    double inertia[9]; ///< inertia tensor about the com (row-major, symmetric), kg·m², axes of the input frame
} pf_mass_properties;

/// Mass properties of the solid bounded by a closed triangle mesh of uniform density (kg/m³), by the divergence
/// theorem (Eberly, "Polyhedral Mass Properties (Revisited)"). Triangles must be counter-clockwise seen from
/// outside (outward normals); PF_EINVAL when the enclosed volume is not positive (open or inside-out mesh).
PF_API int pf_mesh_mass_properties(const double *positions, uint32_t vertices, const uint32_t *indices,
                                   uint32_t triangles, double density, pf_mass_properties *out);

/// A triangle mesh made by the library (pf_mesh_box, pf_mesh_icosphere); free it with pf_mesh_free.
typedef struct pf_mesh {
    double *positions;  ///< 3*vertices positions, m
    uint32_t vertices;  ///< vertex count
    uint32_t *indices;  ///< 3*triangles vertex indices, counter-clockwise seen from outside
    uint32_t triangles; ///< triangle count
} pf_mesh;

/// Closed box mesh centred on the origin: 8 vertices (vertex k at (±e0, ±e1, ±e2), + on axis d when bit d of
/// k is set), 12 triangles. The caller owns *out's arrays and frees them with pf_mesh_free.
PF_API int pf_mesh_box(const double half_extents[3], pf_mesh *out);
/// Icosphere of `radius` centred on the origin: an icosahedron whose triangles are split in 4 `level` times
/// (0..7), new vertices pushed onto the sphere: 10·4^level + 2 vertices, 20·4^level triangles. The caller
/// owns *out's arrays and frees them with pf_mesh_free.
PF_API int pf_mesh_icosphere(double radius, int level, pf_mesh *out);
/// Frees a mesh's arrays (NULL allowed) and zeroes it.
PF_API void pf_mesh_free(pf_mesh *m);

/// Shape of a rigid body: it gives the mass (from the density) and the inertia tensor.
typedef enum pf_rigid_shape {
    PF_RIGID_BOX = 0,    ///< box of `half_extents` centred on the com, axes of the body frame
    PF_RIGID_SPHERE = 1, ///< ball of `radius`
    PF_RIGID_MESH = 2    ///< the solid enclosed by a closed triangle mesh (pf_mesh_mass_properties)
} pf_rigid_shape;

/// A rigid body (6 degrees of freedom). Get defaults from pf_rigid_default_def().
/// Every quaternion of this API (pf_rigid_def.orientation, pf_world_get_rigid_state,
/// pf_world_set_rigid_state) is (x, y, z, w), w the scalar part: SOFA's order, the one of Rigid3d scene
/// files. The object it makes has 2 points in pf_world_positions / pf_world_velocities: point 0 = centre of
/// mass (velocity: linear velocity), point 1 = the angular part (position 0, velocity: angular velocity in
/// the world frame); read it with pf_world_get_rigid_state. pf_world_fix_points(.., {0, 1}, 2) makes it a
/// static body (0 alone holds its translation, 1 alone its rotation); box selection tests the com only.
/// Gravity acts on the com; pf_world_add_constant_force on point 0 adds a force at the com, on point 1 a torque.
typedef struct pf_rigid_def {
    double position[3];         ///< centre of mass in the world, m; default 0
    double orientation[4];      ///< unit quaternion (x, y, z, w) from body to world (normalised on input);
                                ///< default (0, 0, 0, 1)
    double velocity[3];         ///< linear velocity of the com, m/s; default 0
    double angular_velocity[3]; ///< world frame, rad/s; default 0
    double mass;                ///< kg; > 0: scales the shape's inertia to this mass; default 0: density x volume
    double inertia[9];          ///< body-frame inertia tensor about the com, kg·m² (row-major, symmetric positive
                                ///< definite), used with mass > 0 in place of the shape's (SOFA UniformMass
                                ///< vertexMass's inertia of a Rigid3 frame); the shape then only gives the surface
                                ///< of pf_world_add_rigid_shape_surface. All 0 (default): the shape's
    double density;             ///< kg/m³ (> 0), used when mass is 0; default 1000
    pf_rigid_shape shape;       ///< default PF_RIGID_BOX
    double half_extents[3];     ///< box, m (> 0); default (0.5, 0.5, 0.5)
    double radius;              ///< sphere, m (> 0); default 0.5
    const double *mesh_positions;  ///< mesh: 3*mesh_vertices positions in the body's model frame, m; the body
                                   ///< frame is the model frame moved to the mesh's com (axes unchanged)
    uint32_t mesh_vertices;        ///< mesh: vertex count
    const uint32_t *mesh_indices;  ///< mesh: 3*mesh_triangles vertex indices, counter-clockwise from outside
    uint32_t mesh_triangles;       ///< mesh: triangle count
    pf_solver_def solver;          ///< time integration (pf_solver_def)
} pf_rigid_def;

PF_API pf_rigid_def pf_rigid_default_def(void);
/// Adds a rigid body; *out (may be NULL) receives its object id.
PF_API int pf_world_add_rigid(pf_world *w, const pf_rigid_def *def, pf_object_id *out);
/// Attaches to rigid body o the surface of the shape `def` describes (RIGID mapping; def is the definition o was
/// made from): a mesh shape's own mesh, a box's 12 triangles, a sphere's icosphere of level 2 (162 vertices, 320
/// triangles). *out (may be NULL) receives its id. Any other surface may be attached with pf_world_add_surface
/// (PF_SURFACE_RIGID, world positions at the current pose).
PF_API int pf_world_add_rigid_shape_surface(pf_world *w, pf_object_id o, const pf_rigid_def *def,
                                            pf_surface_id *out);

/// State of a rigid body (any argument may be NULL); the orientation is (x, y, z, w). PF_EINVAL when o is not a
/// rigid body.
PF_API int pf_world_get_rigid_state(const pf_world *w, pf_object_id o, double position[3],
                                    double orientation[4], double velocity[3], double angular_velocity[3]);
/// Overwrites the state of a rigid body (any argument may be NULL to keep that part; the orientation is
/// normalised; a fixed part keeps zero velocity). The recorded graph is kept. PF_EINVAL when o is not a rigid body
/// or a value is not finite.
PF_API int pf_world_set_rigid_state(pf_world *w, pf_object_id o, const double position[3],
                                    const double orientation[4], const double velocity[3],
                                    const double angular_velocity[3]);
/// Mass (kg), body-frame inertia tensor about the com (kg·m², may be NULL) and the world-frame one at the current
/// orientation (may be NULL) of a rigid body.
PF_API int pf_world_get_rigid_inertia(const pf_world *w, pf_object_id o, double *mass, double body[9],
                                      double world[9]);

/// A joint spring between a frame fixed on rigid body a and one fixed on rigid body b (SOFA
/// JointSpringForceField, with each frame a RigidMapping child of its body). With c, q the frames' centres and
/// orientations (q_a = ref), dc = c_b - c_a - rest_translation and the torsion t = the rotation vector (angle in
/// [-pi, pi]) of q_a^-1 q_b rest_rotation, the force on frame a is R_a (KT . R_a^T dc) + kd (v_b - v_a) and the
/// torque R_a (KR . t') + kd (w_b - w_a), the opposite on frame b, moved to each com (torque += r x f): KT[i] is
/// ks_t[1] (hard) on a translation axis of frame a that is not free, ks_t[0] (soft) on a free one; KR likewise
/// with ks_r, t' = t (a rotation about one free axis alone keeps SOFA's pivot law: the other two axes pull back
/// by the tilt of the free axis), and a free rotation axis past its limits pulls with ks_b on the excess (SOFA's
/// projectTorsion). The implicit solve takes SOFA's tangent, R_a diag(KT) R_a^T and R_a diag(KR) R_a^T through
/// both frames' lever arms; the damping kd acts explicitly (SOFA's addDForce has none). Get defaults from
/// pf_joint_spring_default().
typedef struct pf_joint_spring {
    double anchor_a[3];   ///< frame a's centre in body a's frame (from its com), m; default 0
    double frame_a[4];    ///< frame a's orientation in body a's frame (x, y, z, w), normalised; default identity
    double anchor_b[3];   ///< frame b's centre in body b's frame, m; default 0
    double frame_b[4];    ///< frame b's orientation in body b's frame (x, y, z, w); default identity
    int free_axis[6];     ///< SOFA FREE_AXIS: translations x y z, rotations x y z of frame a, nonzero = free;
                          ///< default 0 0 0 1 1 1 (a ball joint); a rotation whose limits are equal is not free
    double ks_t[2];       ///< SOFA KS_T: soft (free axes) and hard stiffness, N/m (>= 0); default 0, 10000
    double ks_r[2];       ///< SOFA KS_R: soft and hard rotational stiffness, N·m/rad (>= 0); default 0, 10000
    double ks_b;          ///< SOFA KS_B: stiffness past the limits, N·m/rad (>= 0); 0 (default): ks_r[1] / 100
    double kd;            ///< SOFA KD: damping of the relative velocity and angular velocity (>= 0); default 0
    double limits[6];     ///< SOFA R_LIM_X, _Y, _Z: min, max angle of each free rotation, rad (min <= max);
                          ///< default -1e5, 1e5 (none)
    double rest_translation[3]; ///< c_b - c_a at rest, world frame, m; default 0
    double rest_rotation[4];    ///< rest rotation (x, y, z, w), see above; default identity
} pf_joint_spring;

PF_API pf_joint_spring pf_joint_spring_default(void);
/// Joint springs between rigid body oa (frames a) and rigid body ob (frames b), oa != ob: one interaction (the
/// bodies are solved together, as pf_world_add_interaction_springs), whose handle *out (may be NULL) receives.
/// PF_EINVAL for an object that is not a rigid body, a non-finite or negative value, a zero quaternion or limits
/// min > max.
PF_API int pf_world_add_joint_springs(pf_world *w, pf_object_id oa, pf_object_id ob, const pf_joint_spring *joints,
                                      uint32_t n, pf_interaction_id *out);

/// A beam of rigid frames joined by 3D beam elements (SOFA MechanicalObject template="Rigid3d" of several frames
/// with BeamFEMForceField): each element joins two frames and is SOFA's Euler-Bernoulli beam of a circular
/// (or tubular) section, corotational in the frame its first node carries (SOFA BeamFEMForceField, "large"
/// method). Each frame has 6 degrees of freedom and a rigid mass (mass and rotational inertia). The beam
/// object has 2 points per frame: point 2k = frame k's position (velocity: linear velocity), point 2k+1 = its
/// angular part (position 0, velocity: angular velocity in the world frame); read it with
/// pf_world_get_beam_state. pf_world_fix_points on 2k holds frame k's translation, on 2k+1 its rotation;
/// pf_world_add_constant_force on 2k adds a force, on 2k+1 a torque (world frame); gravity acts on each frame's
/// mass. A beam is stepped as one task per step by implicit Euler (SOFA EulerImplicitSolver: (M (1 + h rM) +
/// h (h + rK) K) dv = h (f - rM M v - (h + rK) K v), K the elements' stiffness rotated to their current frames)
/// or, with solver.kind = PF_SOLVER_STATIC, one Newton step K dx = f per step; the 6 x frames linear system is
/// solved directly (banded Cholesky, bandwidth from the edges' frame numbers), never by CG. A beam takes no other
/// force field, no surface (no collision) and no interaction. Get defaults from pf_beam_default_def().
typedef struct pf_beam_def {
    uint32_t frames;              ///< number of frames (>= 2)
    const double *positions;      ///< 3*frames positions, m (the rest shape)
    const double *orientations;   ///< 4*frames unit quaternions (x, y, z, w), body to world; NULL: identity.
                                  ///< |q| must be 1 within 1e-6 (then normalised)
    const double *velocities;     ///< 3*frames linear velocities, m/s; NULL: at rest
    const double *angular_velocities; ///< 3*frames world-frame angular velocities, rad/s; NULL: at rest
    const uint32_t *edges;        ///< 2*nedges frame indices: the elements (SOFA MeshTopology `lines`)
    uint32_t nedges;              ///< element count (>= 1)
    double radius;                ///< section's outer radius, m (> 0); default 0.1 (SOFA `radius`)
    double radius_inner;          ///< inner radius, m (0 <= radius_inner < radius); default 0 (SOFA `radiusInner`)
    double young_modulus;         ///< E, Pa (> 0); default 5000 (SOFA `youngModulus`)
    double poisson_ratio;         ///< nu (-1 < nu < 0.5), G = E / (2 (1 + nu)); default 0.49 (SOFA `poissonRatio`)
    double frame_mass;            ///< kg per frame (> 0); default 1; ignored when frame_masses is set
    const double *frame_masses;   ///< frames masses, kg, each > 0; NULL (default): frame_mass
    double inertia[9];            ///< body-frame rotational inertia of each frame, kg·m² (symmetric positive
                                  ///< definite); all 0 (default): mass x identity (SOFA's Rigid3 mass default,
                                  ///< an inertia matrix of identity per unit mass)
    const uint32_t *fixed;        ///< frames held still (translation and rotation: SOFA FixedProjectiveConstraint)
    uint32_t nfixed;              ///< how many; default 0
    pf_solver_def solver;         ///< kind PF_SOLVER_IMPLICIT_EULER (default) or PF_SOLVER_STATIC; Rayleigh
                                  ///< rM, rK as for other objects; the cg_* settings are unused
} pf_beam_def;

PF_API pf_beam_def pf_beam_default_def(void);
/// Adds a beam; *out (may be NULL) receives its object id. PF_EINVAL (message in pf_last_error()) for fewer than 2
/// frames, a non-finite value, a quaternion not of unit length, an edge out of range or joining a frame to
/// itself, two frames of an edge at the same place, E <= 0, radius <= 0, an inner radius outside [0, radius), nu
/// outside (-1, 0.5), a mass <= 0, an inertia not symmetric positive definite, a fixed frame out of range or a
/// solver other than implicit Euler or static.
PF_API int pf_world_add_beam(pf_world *w, const pf_beam_def *def, pf_object_id *out);
/// State of a beam's frames (any array may be NULL): positions (3 per frame, m), orientations (4 per frame,
/// (x, y, z, w)), velocities (m/s) and world-frame angular velocities (rad/s), for all its frames; *frames (may
/// be NULL) receives the count. PF_EINVAL when o is not a beam.
PF_API int pf_world_get_beam_state(const pf_world *w, pf_object_id o, double *positions, double *orientations,
                                   double *velocities, double *angular_velocities, uint32_t *frames);

/// How a surface's vertices follow their object's state.
typedef enum pf_surface_mapping {
    PF_SURFACE_IDENTITY = 0,  ///< vertex i is object point points[i] (mass-spring and FEM objects)
    PF_SURFACE_TRILINEAR = 1, ///< vertex = trilinear interpolation of the 8 corners of the hexahedron holding it
                              ///< when the surface is added: one of def.hexahedra (any shape; SOFA
                              ///< BarycentricMapping onto a hexahedral mesh), or without them a cell of the grid
                              ///< object (deformable grid, SOFA BarycentricMapping on a sparse grid); a vertex
                              ///< outside takes the nearest one, whose weights extrapolate
    PF_SURFACE_RIGID = 2,     ///< vertex = com + R local (rigid body, SOFA RigidMapping)
    PF_SURFACE_BARYCENTRIC = 3 ///< vertex = barycentric interpolation of the 4 points of the tetrahedron (of
                               ///< def.tetrahedra) holding it when the surface is added, or of the nearest one
                               ///< for a vertex outside the mesh (SOFA BarycentricMapping onto a tetrahedral mesh)
} pf_surface_mapping;

/// A triangle surface carried by an object. Get defaults from pf_surface_default_def().
typedef struct pf_surface_def {
    pf_surface_mapping mapping; ///< default PF_SURFACE_IDENTITY; TRILINEAR needs def.hexahedra or a grid object,
                                ///< RIGID a rigid one, BARYCENTRIC an object of points with def.tetrahedra
    uint32_t vertices;          ///< vertex count (>= 1)
    const uint32_t *points;     ///< IDENTITY: the object point of each vertex; otherwise unused
    const double *positions;    ///< TRILINEAR, RIGID, BARYCENTRIC: 3*vertices world positions in m at the
                                ///< object's current state (a grid object at rest); copied. Unused by IDENTITY
    const uint32_t *tetrahedra; ///< BARYCENTRIC: 4 object point indices per tetrahedron (the object's volume
                                ///< mesh, e.g. its FEM's), read when the surface is added; default NULL
    uint32_t ntetrahedra;       ///< BARYCENTRIC: how many; default 0
    const uint32_t *hexahedra;  ///< TRILINEAR on an object of points: 8 object point indices per hexahedron in
                                ///< pf_hexa_fem_def's corner order (SOFA's), read when the surface is added. A
                                ///< vertex gets the local coordinates (u, v, w) in [0,1]^3 that the trilinear map
                                ///< of its hexahedron takes to its position (Newton's method: exact at rest in any
                                ///< non-flat cell; corner k weighs the product of u or 1-u, v or 1-v, w or 1-w as
                                ///< its corner of the unit cube); a vertex outside every cell takes the one whose
                                ///< point at the clamped coordinates is nearest, extrapolated (where that cell's
                                ///< map folds before reaching it, by the map's first-order expansion at that
                                ///< point): exact at rest and under any affine motion. A flat hexahedron is
                                ///< refused. Default NULL: a grid object's cells
    uint32_t nhexahedra;        ///< TRILINEAR: how many; default 0
    const uint32_t *indices;    ///< 3*triangles vertex indices, counter-clockwise seen from outside
    uint32_t triangles;         ///< triangle count (0: a point set)
    double radius;              ///< m (>= 0): each vertex is a sphere of this radius (SOFA SphereCollisionModel:
                                ///< particles, DEM); spheres collide with other spheres, also of the same surface,
                                ///< and with triangles; default 0: points (collide with other objects' triangles)
    double friction;            ///< Coulomb coefficient of its contacts (SOFA `contactFriction`, >= 0), or -1 for
                                ///< pf_collision_def.friction; a contact between two surfaces that both set one
                                ///< takes their mean; default -1
    const uint32_t *edges;      ///< 2*nedges vertex indices of explicit segments (SOFA EdgeSetTopologyContainer
                                ///< `edges` under a LineCollisionModel), copied; read when `lines` is set;
                                ///< default NULL
    uint32_t nedges;            ///< segment count; default 0
    int lines;                  ///< nonzero: the surface's edges (the unique edges of its triangles and `edges`)
                                ///< meet the edges of every other surface with lines: two edges closer than the
                                ///< alarm distance at points inside both are an edge–edge contact (SOFA
                                ///< LineCollisionModel); an end point inside the other edge, or two end points, is
                                ///< one too unless a vertex–triangle contact covers it. Default 0
    int self_collision;         ///< nonzero: the surface collides with itself (SOFA selfCollision): each vertex
                                ///< with its triangles that do not contain it and, with lines, each edge with its
                                ///< edges that share no vertex with it (two vertices joined by an edge are no
                                ///< contact either); two-sided (the normal joins the closest points), so it suits
                                ///< open surfaces (cloth). Only neighbours are left out: keep the alarm distance
                                ///< below the distance of a vertex to the triangles around it that do not contain
                                ///< it at rest (about 0.7 x the edge length of a grid mesh). Default 0
} pf_surface_def;

PF_API pf_surface_def pf_surface_default_def(void);
/// Attaches a surface to object o; *out (may be NULL) receives its id. A surface adds no force and no task: it
/// is what collision and output read, and where contact forces enter the object (Hermann et al. 2009, §4.2).
PF_API int pf_world_add_surface(pf_world *w, pf_object_id o, const pf_surface_def *def, pf_surface_id *out);
/// Attaches the boundary surface of a grid object (IDENTITY mapping onto its boundary points): two triangles per
/// boundary cell face, outward normals; a flat grid (one axis of 1 point) gives its sheet, normal along that axis.
PF_API int pf_world_add_grid_surface(pf_world *w, pf_object_id o, pf_surface_id *out);
/// Number of surface ids handed out n: their ids are (pf_surface_id){0} .. (pf_surface_id){n - 1}, those
/// removed with their object included.
PF_API uint32_t pf_world_surfaces(const pf_world *w);
/// The object carrying surface s, its vertex and triangle counts (each may be NULL).
PF_API int pf_world_get_surface_info(const pf_world *w, pf_surface_id s, pf_object_id *object,
                                     uint32_t *vertices, uint32_t *triangles);
/// Current vertex positions (3 per vertex, m) / velocities (m/s) of surface s, computed from its object's state
/// on each call; NULL for an invalid id. The memory is the surface's, valid until the next call for s.
PF_API const double *pf_world_surface_positions(pf_world *w, pf_surface_id s, uint32_t *vertices);
PF_API const double *pf_world_surface_velocities(pf_world *w, pf_surface_id s, uint32_t *vertices);
/// Triangles (3 vertex indices each) of surface s; NULL for an invalid id.
PF_API const uint32_t *pf_world_surface_triangles(const pf_world *w, pf_surface_id s, uint32_t *triangles);
/// Sets the Coulomb coefficient of surface s's contacts (>= 0, or -1 for pf_collision_def.friction): how a host
/// gives friction to the surfaces PhysFlow makes itself (pf_world_add_rigid, pf_world_add_deformable_grid).
PF_API int pf_world_set_surface_friction(pf_world *w, pf_surface_id s, double friction);
/// Reads surface s's Coulomb coefficient (-1: the collision stage's) and whether it is closed (*closed = 1: its
/// triangles bound a solid, wound counter-clockwise seen from outside, so its contacts are one-sided:
/// docs/physics.md, "Contacts"). Either pointer may be NULL.
PF_API int pf_world_get_surface_friction(const pf_world *w, pf_surface_id s, double *friction, int *closed);
/// Sets the contact stiffness factor of surface s: SOFA's CollisionModel `contactStiffness` k_s (> 0, finite, in
/// N^1/2; SOFA's default is 10), or -1 (the default) for none. A contact between two surfaces that both have one
/// pushes with SOFA's stiffness (BarycentricPenalityContact::setDetectionOutputs) k = k_a k_b / r N/m, r = the
/// contact's rest distance in m (pf_collision_def contact_distance plus the radii of its spheres; k_a k_b when r
/// is 0), for its normal and tangential springs alike; any other contact takes pf_collision_def stiffness. Takes
/// effect at the next step; PF_ESTATE from inside a step.
PF_API int pf_world_set_surface_contact_stiffness(pf_world *w, pf_surface_id s, double stiffness);
/// Reads surface s's contact stiffness factor (-1: none, the collision stage's stiffness applies).
PF_API int pf_world_get_surface_contact_stiffness(const pf_world *w, pf_surface_id s, double *stiffness);
/// Sets the collision options of surface s from def's `edges`, `nedges`, `lines` and `self_collision`, as
/// pf_world_add_surface would have (its other fields are not read): for the surfaces of pf_world_add_grid_surface
/// and pf_world_add_rigid_shape_surface, whose calls take no definition. Takes effect at the next step;
/// PF_ESTATE from inside a step, PF_EINVAL (and nothing changes) for an edge out of range or joining a vertex to
/// itself.
PF_API int pf_world_set_surface_collision(pf_world *w, pf_surface_id s, const pf_surface_def *def);
/// Edges of surface s's lines (2 vertex indices each, the smaller first, sorted): the unique edges of its
/// triangles and its explicit segments; *edges (may be NULL) receives their count, 0 when its lines are off.
/// NULL for an invalid id.
PF_API const uint32_t *pf_world_surface_edges(const pf_world *w, pf_surface_id s, uint32_t *edges);

/// Force model of a deformable grid's lattice.
typedef enum pf_grid_model {
    PF_GRID_SPRINGS = 0, ///< pf_world_add_grid_springs(stiffness, damping)
    PF_GRID_FEM = 1      ///< pf_world_add_hexa_fem(fem)
} pf_grid_model;

/// A deformable grid (SOFA SparseGridTopology "deformable grid", Hermann et al. 2009, §4.2): a coarse lattice
/// object sized to a surface mesh's bounding box, which carries the mesh through the TRILINEAR mapping. Get
/// defaults from pf_deformable_grid_default_def().
typedef struct pf_deformable_grid_def {
    const double *mesh_positions; ///< 3*mesh_vertices world positions of the embedded mesh, m
    uint32_t mesh_vertices;
    const uint32_t *mesh_indices; ///< 3*mesh_triangles vertex indices
    uint32_t mesh_triangles;
    int n[3];                     ///< lattice points per axis (>= 2); default (4, 4, 4)
    double margin;                ///< the lattice box is the mesh's bounding box grown by margin x its diagonal
                                  ///< on every side (>= 0); default 1e-3
    double total_mass;            ///< kg (> 0), spread over the lattice points; default 1
    pf_grid_model model;          ///< default PF_GRID_FEM
    pf_hexa_fem_def fem;          ///< PF_GRID_FEM; default pf_hexa_fem_default_def()
    double stiffness, damping;    ///< PF_GRID_SPRINGS: N/m, N·s/m (>= 0); default 100, 0
    pf_solver_def solver;         ///< time integration
    pf_decompose decompose;       ///< the lattice object's blocks (pf_object_def.decompose); default AUTO
    uint32_t block_elements;      ///< pf_object_def.block_elements; default 0 (by cost)
} pf_deformable_grid_def;

PF_API pf_deformable_grid_def pf_deformable_grid_default_def(void);
/// Adds the lattice object (*object) and its embedded surface (*surface, may be NULL).
PF_API int pf_world_add_deformable_grid(pf_world *w, const pf_deformable_grid_def *def, pf_object_id *object,
                                        pf_surface_id *surface);

#ifdef __cplusplus
}
#endif
#endif
