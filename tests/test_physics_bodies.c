/* Bodies: surfaces and their mappings, rigid bodies, deformable grids, each against an independent oracle:
 * virtual work against finite differences of the mapped positions (J^T f . dq = f . J dq), the rigid
 * linearisation against finite differences, polyhedral mass properties against analytic solids, free fall
 * against the discrete formula of the integrator, torque-free rotation against conservation of angular momentum,
 * embedded vertices against trilinear interpolation of the lattice, and the state hash of the seq executor. */
#include "check_main.h"
#include "world_fixture.h"
#include "rng.h"

#include "physflow/physics.h"
#include "physics/collide.h"
#include "physics/rigid.h"
#include "physics/rotation.h"
#include "physics/surface.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pf_world *make_world(double dt, double gz, pf_executor e, int workers)
{
    pf_world_def d = test_world_def(e, workers);
    d.dt = dt;
    d.gravity[2] = gz;
    return create_world(&d);
}

/* deterministic uniform numbers in [-1, 1] */
static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* ---------- meshes ---------- */

/* closed box mesh of half extents e centred on the origin: 8 vertices, 12 outward triangles */
static void box_mesh(const double e[3], double pos[24], uint32_t tri[36])
{
    pf_mesh m;
    ck_assert_int_eq(pf_mesh_box(e, &m), PF_OK);
    ck_assert_uint_eq(m.vertices, 8);
    ck_assert_uint_eq(m.triangles, 12);
    memcpy(pos, m.positions, 24 * sizeof *pos);
    memcpy(tri, m.indices, 36 * sizeof *tri);
    pf_mesh_free(&m);
}

static pf_mesh icosphere(double r, int level)
{
    pf_mesh m;
    ck_assert_int_eq(pf_mesh_icosphere(r, level, &m), PF_OK);
    ck_assert_uint_eq(m.vertices, 10 * (1u << (2 * level)) + 2);
    ck_assert_uint_eq(m.triangles, 20 * (1u << (2 * level)));
    return m;
}

/* ---------- mappings: virtual work ---------- */

/* A copy of x displaced by eps dq: points move by eps dq; a rigid body's orientation turns by exp(eps dtheta). */
static void displaced(const pf_object *o, const double *dq, double eps, double *xd)
{
    size_t n3 = 3 * (size_t)o->n;
    memcpy(xd, o->x, (n3 + o->xextra) * sizeof *xd);
    if (o->kind == PF_OBJECT_RIGID) {
        for (int a = 0; a < 3; a++) xd[a] += eps * dq[a];
        pf_quat_integrate(xd + PF_RIGID_QUAT, dq + 3, eps);
        return;
    }
    for (size_t i = 0; i < n3; i++) xd[i] += eps * dq[i];
}

/* For random points of surface s (vertices and barycentric points of triangles), forces f and directions dq:
 * J dq (pf_surface_point_apply) equals the central difference of the mapped position, and the mapped force
 * satisfies virtual work: (J^T f) . dq = f . (J dq)_fd. */
static void check_virtual_work(pf_world *w, pf_surface_id sid, double tol)
{
    pf_surface *s = pf_world_surface(w, sid);
    ck_assert_ptr_nonnull(s);
    const pf_object *o = w->obj.v[s->object];
    size_t n3 = 3 * (size_t)o->n, nx = n3 + o->xextra;
    double *dq = malloc(n3 * sizeof *dq), *fo = malloc(n3 * sizeof *fo), *xp = malloc(nx * sizeof *xp),
           *xm = malloc(nx * sizeof *xm);
    rng seed = {12345 + sid.index};
    const double eps = 1e-6;
    for (int trial = 0; trial < 40; trial++) {
        pf_surface_point pt;
        if (trial % 2 == 0 || s->nt == 0) {
            pt = pf_surface_vertex((uint32_t)((rng_range(&seed, -1, 1) + 1) * 0.5 * (s->nv - 1) + 0.5));
        } else {
            double b0 = 0.5 * (rng_range(&seed, -1, 1) + 1), b1 = (1 - b0) * 0.5 * (rng_range(&seed, -1, 1) + 1);
            double bary[3] = {b0, b1, 1 - b0 - b1};
            pt = pf_surface_triangle_point(s, (uint32_t)((rng_range(&seed, -1, 1) + 1) * 0.5 * (s->nt - 1) + 0.5), bary);
        }
        double f[3] = {rng_range(&seed, -1, 1), rng_range(&seed, -1, 1), rng_range(&seed, -1, 1)};
        for (size_t i = 0; i < n3; i++) dq[i] = rng_range(&seed, -1, 1);
        memset(fo, 0, n3 * sizeof *fo);
        pf_surface_add_force(s, o, o->x, &pt, f, fo, NULL);
        double work_q = 0;
        for (size_t i = 0; i < n3; i++) work_q += fo[i] * dq[i];
        displaced(o, dq, eps, xp);
        displaced(o, dq, -eps, xm);
        double pp[3], pm[3], fd[3], jdq[3];
        pf_surface_point_position(s, o, xp, &pt, pp);
        pf_surface_point_position(s, o, xm, &pt, pm);
        for (int a = 0; a < 3; a++) fd[a] = (pp[a] - pm[a]) / (2 * eps);
        pf_surface_point_apply(s, o, o->x, &pt, dq, jdq);
        double scale = sqrt(dot3(fd, fd)) + 1;
        for (int a = 0; a < 3; a++)
            ck_assert_msg(fabs(jdq[a] - fd[a]) <= tol * scale, "mapping %d: J dq %g, finite difference %g",
                          (int)s->mapping, jdq[a], fd[a]);
        double work_x = dot3(f, fd);
        ck_assert_msg(fabs(work_q - work_x) <= tol * (fabs(work_x) + scale), "mapping %d: (J^T f).dq %.15g, f.dx %.15g",
                      (int)s->mapping, work_q, work_x);
    }
    free(dq);
    free(fo);
    free(xp);
    free(xm);
}

/* a grid object with its points moved off the lattice (the mappings are checked away from rest) */
static pf_object_id shaken_grid(pf_world *w, int nx, int ny, int nz)
{
    pf_object_def od = pf_object_default_def();
    od.grid[0] = nx, od.grid[1] = ny, od.grid[2] = nz;
    od.grid_min[0] = -0.3, od.grid_min[1] = -0.2, od.grid_min[2] = 0.1;
    od.grid_max[0] = 0.5, od.grid_max[1] = 0.4, od.grid_max[2] = 0.9;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    return id;
}

static void shake(pf_world *w, pf_object_id id, rng seed)
{
    pf_object *o = w->obj.v[id.index];
    for (size_t i = 0; i < 3 * (size_t)o->n; i++) o->x[i] += 0.05 * rng_range(&seed, -1, 1);
}

START_TEST(test_identity_mapping_virtual_work)
{
    pf_world *w = make_world(0.01, 0, PF_EXEC_SEQ, 1);
    pf_object_id id = shaken_grid(w, 4, 3, 5);
    pf_surface_id sid;
    ck_assert_int_eq(pf_world_add_grid_surface(w, id, &sid), PF_OK);
    shake(w, id, (rng){7});
    check_virtual_work(w, sid, 1e-8);
    pf_world_destroy(w);
}
END_TEST

START_TEST(test_trilinear_mapping_virtual_work)
{
    pf_world *w = make_world(0.01, 0, PF_EXEC_SEQ, 1);
    pf_object_id id = shaken_grid(w, 3, 4, 3);
    rng seed = {99};
    enum { NV = 30, NT = 20 };
    double pos[3 * NV];
    uint32_t tri[3 * NT];
    for (int i = 0; i < NV; i++) { /* inside the box, and a few just outside (extrapolated) */
        pos[3 * i] = 0.1 + 0.45 * rng_range(&seed, -1, 1);
        pos[3 * i + 1] = 0.1 + 0.35 * rng_range(&seed, -1, 1);
        pos[3 * i + 2] = 0.5 + 0.45 * rng_range(&seed, -1, 1);
    }
    for (int k = 0; k < 3 * NT; k++) tri[k] = (uint32_t)((rng_range(&seed, -1, 1) + 1) * 0.5 * (NV - 1) + 0.5);
    pf_surface_def sd = pf_surface_default_def();
    sd.mapping = PF_SURFACE_TRILINEAR;
    sd.vertices = NV;
    sd.positions = pos;
    sd.indices = tri;
    sd.triangles = NT;
    pf_surface_id sid;
    ck_assert_int_eq(pf_world_add_surface(w, id, &sd, &sid), PF_OK);
    /* at rest the mapped vertices are where they were given */
    const double *p = pf_world_surface_positions(w, sid, NULL);
    for (int k = 0; k < 3 * NV; k++) ck_assert_double_eq_tol(p[k], pos[k], 1e-12);
    shake(w, id, (rng){8});
    check_virtual_work(w, sid, 1e-8);
    pf_world_destroy(w);
}
END_TEST

/* a rigid box turned by a random orientation and moving, carrying a random point surface */
static pf_object_id tumbling_box(pf_world *w, pf_solver_kind kind, pf_surface_id *sid)
{
    pf_rigid_def rd = pf_rigid_default_def();
    rng seed = {3};
    rd.position[0] = 0.3, rd.position[1] = -0.2, rd.position[2] = 1.0;
    rd.orientation[3] = rng_range(&seed, -1, 1); /* drawn w first, then x, y, z; stored (x, y, z, w) */
    for (int k = 0; k < 3; k++) rd.orientation[k] = rng_range(&seed, -1, 1);
    rd.half_extents[0] = 0.1, rd.half_extents[1] = 0.2, rd.half_extents[2] = 0.4;
    rd.angular_velocity[0] = 1, rd.angular_velocity[1] = 2, rd.angular_velocity[2] = -3;
    rd.velocity[0] = 0.5;
    rd.solver.kind = kind;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &id), PF_OK);
    if (sid) {
        double pos[24];
        uint32_t tri[36];
        box_mesh(rd.half_extents, pos, tri);
        for (int k = 0; k < 24; k++) pos[k] = pos[k] * 1.3 + rd.position[k % 3] + 0.01 * rng_range(&seed, -1, 1);
        pf_surface_def sd = pf_surface_default_def();
        sd.mapping = PF_SURFACE_RIGID;
        sd.vertices = 8;
        sd.positions = pos;
        sd.indices = tri;
        sd.triangles = 12;
        ck_assert_int_eq(pf_world_add_surface(w, id, &sd, sid), PF_OK);
        const double *p = pf_world_surface_positions(w, *sid, NULL);
        for (int k = 0; k < 24; k++) ck_assert_double_eq_tol(p[k], pos[k], 1e-12);
    }
    return id;
}

START_TEST(test_rigid_mapping_virtual_work)
{
    pf_world *w = make_world(0.01, -9.81, PF_EXEC_SEQ, 1);
    pf_surface_id sid;
    tumbling_box(w, PF_SOLVER_EXPLICIT_EULER, &sid);
    ck_assert_int_eq(pf_world_step(w, 7), PF_OK); /* away from the initial orientation */
    /* central differences of the exponential map: error O(eps^2) ~ 1e-12 */
    check_virtual_work(w, sid, 1e-7);
    pf_world_destroy(w);
}
END_TEST

/* The rigid linearisation: for a stiffness K anchored at the point's current position (f = K (p(q') - p(q)), no
 * force at q), J^T K J dq (pf_surface_add_dforce) equals the central difference of J(q)^T f(q + eps dq). */
START_TEST(test_rigid_linearisation_finite_difference)
{
    pf_world *w = make_world(0.01, 0, PF_EXEC_SEQ, 1);
    pf_surface_id sid;
    pf_object_id id = tumbling_box(w, PF_SOLVER_IMPLICIT_EULER, &sid);
    ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
    pf_surface *s = pf_world_surface(w, sid);
    const pf_object *o = w->obj.v[id.index];
    rng seed = {77};
    const double eps = 1e-6;
    for (int trial = 0; trial < 20; trial++) {
        double K[9], A[9], dq[6], xp[PF_RIGID_XLEN], xm[PF_RIGID_XLEN];
        for (int i = 0; i < 9; i++) A[i] = rng_range(&seed, -1, 1);
        for (int i = 0; i < 3; i++) /* symmetric, like a contact stiffness */
            for (int j = 0; j < 3; j++) K[3 * i + j] = A[3 * i + j] + A[3 * j + i];
        for (int i = 0; i < 6; i++) dq[i] = rng_range(&seed, -1, 1);
        double bary[3] = {0.2, 0.3, 0.5};
        pf_surface_point pt = pf_surface_triangle_point(s, (uint32_t)trial % s->nt, bary);
        double df[6] = {0}, p0[3], pp[3], pm[3], fp[3], fm[3], gp[6] = {0}, gm[6] = {0};
        pf_surface_add_dforce(s, o, o->x, &pt, K, 1.0, dq, df);
        pf_surface_point_position(s, o, o->x, &pt, p0);
        displaced(o, dq, eps, xp);
        displaced(o, dq, -eps, xm);
        pf_surface_point_position(s, o, xp, &pt, pp);
        pf_surface_point_position(s, o, xm, &pt, pm);
        for (int a = 0; a < 3; a++) pp[a] -= p0[a], pm[a] -= p0[a];
        pf_mat3_vec(K, pp, fp);
        pf_mat3_vec(K, pm, fm);
        pf_surface_add_force(s, o, o->x, &pt, fp, gp, NULL);
        pf_surface_add_force(s, o, o->x, &pt, fm, gm, NULL);
        for (int i = 0; i < 6; i++) {
            double fd = (gp[i] - gm[i]) / (2 * eps);
            ck_assert_msg(fabs(df[i] - fd) <= 1e-7 * (1 + fabs(fd)), "dof %d: df %g, finite difference %g", i, df[i], fd);
        }
    }
    pf_world_destroy(w);
}
END_TEST

/* The grid's boundary surface is closed and outward: the solid it encloses (divergence theorem) is the grid's
 * box; every boundary point is a vertex; 2 triangles per boundary cell face. */
START_TEST(test_grid_surface_closed)
{
    pf_world *w = make_world(0.01, 0, PF_EXEC_SEQ, 1);
    pf_object_id id = shaken_grid(w, 4, 3, 5);
    pf_surface_id sid;
    ck_assert_int_eq(pf_world_add_grid_surface(w, id, &sid), PF_OK);
    uint32_t nv, nt;
    const double *p = pf_world_surface_positions(w, sid, &nv);
    const uint32_t *t = pf_world_surface_triangles(w, sid, &nt);
    ck_assert_uint_eq(nv, 4 * 3 * 5 - 2 * 1 * 3);
    ck_assert_uint_eq(nt, 2 * 2 * (3 * 2 + 2 * 4 + 3 * 4));
    pf_mass_properties mp;
    ck_assert_int_eq(pf_mesh_mass_properties(p, nv, t, nt, 1.0, &mp), PF_OK);
    ck_assert_double_eq_tol(mp.mass, 0.8 * 0.6 * 0.8, 1e-12);
    ck_assert_double_eq_tol(mp.com[0], 0.1, 1e-12);
    ck_assert_double_eq_tol(mp.com[1], 0.1, 1e-12);
    ck_assert_double_eq_tol(mp.com[2], 0.5, 1e-12);
    /* a sheet: one side, normals along +z */
    pf_object_def od = pf_object_default_def();
    od.grid[0] = 3, od.grid[1] = 4, od.grid[2] = 1;
    od.grid_max[0] = od.grid_max[1] = 1;
    ck_assert_int_eq(pf_world_add_object(w, &od, &id), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, id, &sid), PF_OK);
    p = pf_world_surface_positions(w, sid, &nv);
    t = pf_world_surface_triangles(w, sid, &nt);
    ck_assert_uint_eq(nv, 12);
    ck_assert_uint_eq(nt, 12);
    for (uint32_t k = 0; k < nt; k++) {
        const double *a = p + 3 * t[3 * k], *b = p + 3 * t[3 * k + 1], *c = p + 3 * t[3 * k + 2];
        double e1[3] = {b[0] - a[0], b[1] - a[1], 0}, e2[3] = {c[0] - a[0], c[1] - a[1], 0};
        ck_assert(e1[0] * e2[1] - e1[1] * e2[0] > 0);
    }
    pf_world_destroy(w);
}
END_TEST

/* ---------- mass properties ---------- */

/* A box mesh turned by R and moved to c has the analytic box mass, com c and inertia R diag(..) R^T; a rigid body
 * made from the mesh has the analytic box's inertia, and so has one made from the box shape. */
START_TEST(test_box_mesh_mass_properties)
{
    const double e[3] = {0.3, 0.5, 0.7}, c[3] = {1.0, -2.0, 0.5}, rho = 800;
    double pos[24], R[9], q[4] = {0.9, 0.2, -0.3, 0.4};
    uint32_t tri[36];
    box_mesh(e, pos, tri);
    pf_quat_normalize(q);
    pf_quat_to_mat(q, R);
    double moved[24];
    for (int i = 0; i < 8; i++) {
        pf_mat3_vec(R, pos + 3 * i, moved + 3 * i);
        for (int a = 0; a < 3; a++) moved[3 * i + a] += c[a];
    }
    double m = rho * 8 * e[0] * e[1] * e[2];
    double D[9] = {m / 3 * (e[1] * e[1] + e[2] * e[2]), 0, 0, 0, m / 3 * (e[0] * e[0] + e[2] * e[2]), 0,
                   0, 0, m / 3 * (e[0] * e[0] + e[1] * e[1])};
    double I[9];
    pf_mat3_rotate_tensor(R, D, I);
    pf_mass_properties mp;
    ck_assert_int_eq(pf_mesh_mass_properties(moved, 8, tri, 12, rho, &mp), PF_OK);
    ck_assert_double_eq_tol(mp.mass, m, 1e-12 * m);
    for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(mp.com[a], c[a], 1e-12);
    for (int i = 0; i < 9; i++) ck_assert_double_eq_tol(mp.inertia[i], I[i], 1e-11 * m);
    /* inside out: rejected */
    for (int k = 0; k < 12; k++) {
        uint32_t t = tri[3 * k + 1];
        tri[3 * k + 1] = tri[3 * k + 2];
        tri[3 * k + 2] = t;
    }
    ck_assert_int_eq(pf_mesh_mass_properties(moved, 8, tri, 12, rho, &mp), PF_EINVAL);
    box_mesh(e, pos, tri);

    pf_world *w = make_world(0.01, 0, PF_EXEC_SEQ, 1);
    pf_rigid_def rd = pf_rigid_default_def();
    rd.shape = PF_RIGID_MESH;
    rd.density = rho;
    rd.mesh_positions = moved;
    rd.mesh_vertices = 8;
    rd.mesh_indices = tri;
    rd.mesh_triangles = 12;
    pf_object_id a, b;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &a), PF_OK);
    rd.shape = PF_RIGID_BOX;
    memcpy(rd.half_extents, e, sizeof e);
    rd.orientation[0] = q[1], rd.orientation[1] = q[2], rd.orientation[2] = q[3], rd.orientation[3] = q[0];
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &b), PF_OK);
    double ma, mb, Ia[9], Ib[9];
    ck_assert_int_eq(pf_world_get_rigid_inertia(w, a, &ma, Ia, NULL), PF_OK);
    ck_assert_int_eq(pf_world_get_rigid_inertia(w, b, &mb, NULL, Ib), PF_OK);
    ck_assert_double_eq_tol(ma, m, 1e-12 * m);
    ck_assert_double_eq_tol(mb, m, 1e-12 * m);
    for (int i = 0; i < 9; i++) {
        ck_assert_double_eq_tol(Ia[i], I[i], 1e-11 * m); /* mesh body frame = model axes */
        ck_assert_double_eq_tol(Ib[i], I[i], 1e-11 * m); /* box turned by q, seen in the world */
    }
    pf_world_destroy(w);
}
END_TEST

/* An icosphere of radius r contains the ball of its inradius r_in (the nearest face plane) and lies inside the
 * ball of radius r, and mass and moments grow with the solid: the mesh's mass lies in [4/3 pi rho r_in^3,
 * 4/3 pi rho r^3] and its moments in [8/15 pi rho r_in^5, 8/15 pi rho r^5]. Its symmetry makes the com 0 and the
 * tensor isotropic. The volume also equals the sum of the signed tetrahedra (0, a, b, c). */
START_TEST(test_icosphere_mass_properties)
{
    const double r = 0.8, rho = 500;
    pf_mesh m = icosphere(r, 3);
    double rin = r, vol = 0;
    for (uint32_t k = 0; k < m.triangles; k++) {
        const double *a = m.positions + 3 * m.indices[3 * k], *b = m.positions + 3 * m.indices[3 * k + 1], *c = m.positions + 3 * m.indices[3 * k + 2];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, n[3],
               bc[3];
        pf_cross(e1, e2, n);
        double d = dot3(n, a) / sqrt(dot3(n, n));
        ck_assert(d > 0); /* outward */
        rin = d < rin ? d : rin;
        pf_cross(b, c, bc);
        vol += dot3(a, bc) / 6;
    }
    pf_mass_properties mp;
    ck_assert_int_eq(pf_mesh_mass_properties(m.positions, m.vertices, m.indices, m.triangles, rho, &mp), PF_OK);
    ck_assert_double_eq_tol(mp.mass, rho * vol, 1e-12 * mp.mass);
    ck_assert(mp.mass >= 4.0 / 3 * M_PI * rho * pow(rin, 3) && mp.mass <= 4.0 / 3 * M_PI * rho * pow(r, 3));
    ck_assert(rin > 0.99 * r); /* the bracket is tight: within 5% on the moments */
    for (int a = 0; a < 3; a++) {
        ck_assert_double_eq_tol(mp.com[a], 0, 1e-12);
        double Ia = mp.inertia[4 * a];
        ck_assert(Ia >= 8.0 / 15 * M_PI * rho * pow(rin, 5) && Ia <= 8.0 / 15 * M_PI * rho * pow(r, 5));
        ck_assert_double_eq_tol(Ia, mp.inertia[0], 1e-10 * Ia);
        for (int b = 0; b < 3; b++)
            if (b != a) ck_assert_double_eq_tol(mp.inertia[3 * a + b], 0, 1e-10 * Ia);
    }
    pf_mesh_free(&m);
}
END_TEST

/* ---------- rigid dynamics ---------- */

/* Free fall. Symplectic Euler gives v_n = v0 + n h g and x_n = x0 + n h v0 + h^2 g n(n+1)/2: the continuous
 * x0 + v0 t + g t^2/2 plus h g t / 2. Implicit Euler with CG solves m dv = h m g in one iteration (dv = h g up
 * to rounding), then x += h v: the same sequence. The orientation does not move without angular velocity. */
static void free_fall(pf_solver_kind kind)
{
    const double h = 0.01, g = -9.81;
    const uint32_t n = 200;
    pf_world *w = make_world(h, g, PF_EXEC_SEQ, 1);
    pf_rigid_def rd = pf_rigid_default_def();
    rd.shape = PF_RIGID_SPHERE;
    rd.radius = 0.2;
    rd.position[0] = 1, rd.position[1] = 2, rd.position[2] = 30;
    rd.velocity[0] = 0.5, rd.velocity[1] = -1, rd.velocity[2] = 3;
    rd.orientation[0] = 0.5, rd.orientation[1] = 0.5, rd.orientation[2] = 0.5, rd.orientation[3] = 0.5;
    rd.solver.kind = kind;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &id), PF_OK);
    ck_assert_int_eq(pf_world_step(w, n), PF_OK);
    double x[3], q[4], v[3], om[3];
    ck_assert_int_eq(pf_world_get_rigid_state(w, id, x, q, v, om), PF_OK);
    double t = n * h, gv[3] = {0, 0, g};
    for (int a = 0; a < 3; a++) {
        double xd = rd.position[a] + n * h * rd.velocity[a] + h * h * gv[a] * n * (n + 1) / 2.0;
        double xc = rd.position[a] + rd.velocity[a] * t + gv[a] * t * t / 2;
        ck_assert_msg(fabs(x[a] - xd) <= 1e-10, "axis %d: x %.15g, discrete formula %.15g", a, x[a], xd);
        ck_assert_double_eq_tol(x[a] - xc, h * gv[a] * t / 2, 1e-10);
        ck_assert_double_eq_tol(v[a], rd.velocity[a] + t * gv[a], 1e-10);
        ck_assert(om[a] == 0);
    }
    for (int k = 0; k < 4; k++) ck_assert(q[k] == 0.5);
    pf_world_destroy(w);
}

START_TEST(test_rigid_free_fall_explicit)
{
    free_fall(PF_SOLVER_EXPLICIT_EULER);
}
END_TEST

START_TEST(test_rigid_free_fall_implicit)
{
    free_fall(PF_SOLVER_IMPLICIT_EULER);
}
END_TEST

static void angular_momentum(pf_world *w, pf_object_id id, double L[3], double *energy)
{
    double I[9], om[3];
    ck_assert_int_eq(pf_world_get_rigid_inertia(w, id, NULL, NULL, I), PF_OK);
    ck_assert_int_eq(pf_world_get_rigid_state(w, id, NULL, NULL, NULL, om), PF_OK);
    pf_mat3_vec(I, om, L);
    *energy = 0.5 * dot3(om, L);
}

/* Torque-free rotation of an asymmetric box (moments in ratio ~1 : 2.6 : 4.2) spun off its axes: the angular
 * momentum L = I_w omega is conserved to 1e-9 relative over 1000 steps (it is carried, rigid.c), omega itself
 * precesses (a frozen omega would conserve nothing), and the kinetic energy stays within 1e-3 of its start: the
 * midpoint rotation step is not energy-exact but symmetric, so its error oscillates without drift (measured
 * range 3e-5 at h |omega| = 0.037, where the explicit choice of omega gained 50%). The linear motion is
 * unaffected. */
static void torque_free(pf_solver_kind kind)
{
    pf_world *w = make_world(0.01, 0, PF_EXEC_SEQ, 1);
    pf_object_id id = tumbling_box(w, kind, NULL);
    double L0[3], E0, L[3], E, om0[3], om[3];
    angular_momentum(w, id, L0, &E0);
    pf_world_get_rigid_state(w, id, NULL, NULL, NULL, om0);
    double emin = E0, emax = E0, ldev = 0, omdev = 0;
    for (int s = 0; s < 1000; s++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        angular_momentum(w, id, L, &E);
        pf_world_get_rigid_state(w, id, NULL, NULL, NULL, om);
        double d[3] = {L[0] - L0[0], L[1] - L0[1], L[2] - L0[2]}, e[3] = {om[0] - om0[0], om[1] - om0[1], om[2] - om0[2]};
        ldev = fmax(ldev, sqrt(dot3(d, d) / dot3(L0, L0)));
        omdev = fmax(omdev, sqrt(dot3(e, e) / dot3(om0, om0)));
        emin = fmin(emin, E);
        emax = fmax(emax, E);
    }
    ck_assert_msg(ldev <= 1e-9, "angular momentum drift %g", ldev);
    ck_assert_msg(omdev > 0.1, "omega never precessed (%g)", omdev);
    ck_assert_msg(emax - emin <= 1e-3 * E0, "kinetic energy in [%g, %g], start %g", emin, emax, E0);
    double x[3], v[3];
    pf_world_get_rigid_state(w, id, x, NULL, v, NULL);
    ck_assert_double_eq_tol(x[0], 0.3 + 0.5 * 10, 1e-9);
    ck_assert(v[0] == 0.5 && v[1] == 0 && v[2] == 0);
    pf_world_destroy(w);
}

START_TEST(test_rigid_torque_free_explicit)
{
    torque_free(PF_SOLVER_EXPLICIT_EULER);
}
END_TEST

START_TEST(test_rigid_torque_free_implicit)
{
    torque_free(PF_SOLVER_IMPLICIT_EULER);
}
END_TEST

/* Rayleigh mass damping through the implicit solver's CG, whose angular block is the full world inertia I_w of a
 * turned asymmetric box: (1 + h rM) M dv = -h rM M v gives v_n = v0 / (1 + h rM)^n and L_n = L0 / (1 + h rM)^n
 * (the same direction: carried through the turns), whatever I_w. */
START_TEST(test_rigid_implicit_mass_damping)
{
    const double h = 0.01, rm = 2.0;
    pf_world *w = make_world(h, 0, PF_EXEC_SEQ, 1);
    pf_rigid_def rd = pf_rigid_default_def();
    rng seed = {5};
    rd.orientation[3] = rng_range(&seed, -1, 1); /* drawn w first, then x, y, z; stored (x, y, z, w) */
    for (int k = 0; k < 3; k++) rd.orientation[k] = rng_range(&seed, -1, 1);
    rd.half_extents[0] = 0.1, rd.half_extents[1] = 0.2, rd.half_extents[2] = 0.4;
    rd.angular_velocity[0] = 1, rd.angular_velocity[1] = 2, rd.angular_velocity[2] = -3;
    rd.velocity[0] = 0.5, rd.velocity[2] = -1;
    rd.solver.rayleigh_mass = rm;
    rd.solver.cg_tolerance = 1e-15;
    rd.solver.cg_threshold = 0;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &id), PF_OK);
    double L0[3], L[3], E, v[3];
    angular_momentum(w, id, L0, &E);
    const int n = 100;
    ck_assert_int_eq(pf_world_step(w, n), PF_OK);
    angular_momentum(w, id, L, &E);
    pf_world_get_rigid_state(w, id, NULL, NULL, v, NULL);
    double decay = pow(1 + h * rm, -n);
    for (int a = 0; a < 3; a++) {
        ck_assert_msg(fabs(L[a] - decay * L0[a]) <= 1e-9 * sqrt(dot3(L0, L0)), "L[%d] %.15g, expected %.15g", a, L[a],
                      decay * L0[a]);
        ck_assert_double_eq_tol(v[a], decay * rd.velocity[a], 1e-12);
    }
    pf_world_destroy(w);
}
END_TEST

/* Spin about a principal axis is steady: after time t the orientation is the start turned by |omega| t about
 * the axis (closed form), omega is unchanged. */
START_TEST(test_rigid_principal_spin)
{
    pf_world *w = make_world(0.01, 0, PF_EXEC_SEQ, 1);
    pf_rigid_def rd = pf_rigid_default_def();
    rd.half_extents[0] = 0.1, rd.half_extents[1] = 0.2, rd.half_extents[2] = 0.4;
    rd.angular_velocity[2] = 2.5;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &id), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 300), PF_OK);
    double q[4], om[3], th = 2.5 * 3.0;
    pf_world_get_rigid_state(w, id, NULL, q, NULL, om);
    double s = q[3] < 0 ? -1 : 1; /* q = (x, y, z, w); q and -q are the same rotation */
    ck_assert_double_eq_tol(s * q[3], fabs(cos(th / 2)), 1e-10);
    ck_assert_double_eq_tol(s * q[2], (cos(th / 2) < 0 ? -1 : 1) * sin(th / 2), 1e-10);
    ck_assert_double_eq_tol(om[2], 2.5, 1e-12);
    ck_assert_double_eq_tol(om[0], 0, 1e-12);
    pf_world_destroy(w);
}
END_TEST

/* A rigid body with both its points fixed is static: it neither falls nor turns. One with only point 0 fixed
 * turns in place; a box around the whole scene selects only that com (point 0). */
START_TEST(test_rigid_static)
{
    pf_world *w = make_world(0.01, -9.81, PF_EXEC_SEQ, 1);
    pf_object_id a = tumbling_box(w, PF_SOLVER_IMPLICIT_EULER, NULL), b = tumbling_box(w, PF_SOLVER_EXPLICIT_EULER, NULL);
    uint32_t both[2] = {0, 1};
    ck_assert_int_eq(pf_world_fix_points(w, a, both, 2), PF_OK);
    double around[6] = {-100, -100, -100, 100, 100, 100}; /* holds b's com, not its angular part */
    uint32_t nsel;
    ck_assert_int_eq(pf_world_fix_box(w, b, around, &nsel), PF_OK);
    ck_assert_uint_eq(nsel, 1);
    double xa0[3], qa0[4], xb0[3], qb0[4];
    pf_world_get_rigid_state(w, a, xa0, qa0, NULL, NULL);
    pf_world_get_rigid_state(w, b, xb0, qb0, NULL, NULL);
    ck_assert_int_eq(pf_world_step(w, 50), PF_OK);
    double xa[3], qa[4], xb[3], qb[4];
    pf_world_get_rigid_state(w, a, xa, qa, NULL, NULL);
    pf_world_get_rigid_state(w, b, xb, qb, NULL, NULL);
    ck_assert_mem_eq(xa, xa0, sizeof xa);
    ck_assert_mem_eq(qa, qa0, sizeof qa);
    ck_assert_mem_eq(xb, xb0, sizeof xb);
    ck_assert(memcmp(qb, qb0, sizeof qb) != 0);
    pf_world_destroy(w);
}
END_TEST

/* The shapes' own surfaces ride with their bodies: after 50 tumbling steps the sphere's vertices are at its
 * radius from the com, the box's and the mesh's keep every pairwise distance of the start (rigid motion), and
 * each vertex's velocity is v + omega x r (the rigid velocity field, with r recomputed here). */
START_TEST(test_rigid_shape_surfaces)
{
    pf_world *w = make_world(0.01, -9.81, PF_EXEC_SEQ, 1);
    pf_mesh m = icosphere(0.4, 1);
    for (uint32_t i = 0; i < m.vertices; i++) m.positions[3 * i] += 0.3; /* com off the model origin */
    pf_object_id id[3];
    pf_surface_id sid[3];
    for (int k = 0; k < 3; k++) {
        pf_rigid_def rd = pf_rigid_default_def();
        rd.shape = (pf_rigid_shape)k;
        rd.radius = 0.25;
        rd.half_extents[2] = 0.2;
        rd.mesh_positions = m.positions, rd.mesh_vertices = m.vertices;
        rd.mesh_indices = m.indices, rd.mesh_triangles = m.triangles;
        rd.position[0] = k;
        rd.orientation[0] = 0.3 * k;
        rd.angular_velocity[0] = 1, rd.angular_velocity[1] = -2, rd.angular_velocity[2] = 0.5;
        ck_assert_int_eq(pf_world_add_rigid(w, &rd, &id[k]), PF_OK);
        ck_assert_int_eq(pf_world_add_rigid_shape_surface(w, id[k], &rd, &sid[k]), PF_OK);
    }
    double *d0[3];
    for (int k = 0; k < 3; k++) {
        uint32_t nv;
        const double *p = pf_world_surface_positions(w, sid[k], &nv);
        double c[3] = {0, 0, 0}; /* every shape here is symmetric: its vertex centroid is its com */
        for (uint32_t i = 0; i < nv; i++)
            for (int a = 0; a < 3; a++) c[a] += p[3 * i + a] / nv;
        ck_assert_double_eq_tol(c[0], k, 1e-12);
        ck_assert_double_eq_tol(c[1], 0, 1e-12);
        ck_assert_double_eq_tol(c[2], 0, 1e-12);
        d0[k] = malloc(sizeof(double) * nv * nv);
        for (uint32_t i = 0; i < nv; i++)
            for (uint32_t j = 0; j < nv; j++) {
                double e[3] = {p[3 * i] - p[3 * j], p[3 * i + 1] - p[3 * j + 1], p[3 * i + 2] - p[3 * j + 2]};
                d0[k][i * nv + j] = sqrt(dot3(e, e));
            }
    }
    ck_assert_int_eq(pf_world_step(w, 50), PF_OK);
    for (int k = 0; k < 3; k++) {
        uint32_t nv;
        double x[3], v[3], om[3];
        pf_world_get_rigid_state(w, id[k], x, NULL, v, om);
        const double *p = pf_world_surface_positions(w, sid[k], &nv);
        const double *pv = pf_world_surface_velocities(w, sid[k], NULL);
        ck_assert_uint_eq(nv, k == 0 ? 8 : k == 1 ? 162 : m.vertices);
        for (uint32_t i = 0; i < nv; i++) {
            double r[3] = {p[3 * i] - x[0], p[3 * i + 1] - x[1], p[3 * i + 2] - x[2]}, wr[3];
            if (k == 1) ck_assert_double_eq_tol(sqrt(dot3(r, r)), 0.25, 1e-12);
            pf_cross(om, r, wr);
            for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(pv[3 * i + a], v[a] + wr[a], 1e-12);
            for (uint32_t j = 0; j < nv; j++) {
                double e[3] = {p[3 * i] - p[3 * j], p[3 * i + 1] - p[3 * j + 1], p[3 * i + 2] - p[3 * j + 2]};
                ck_assert_double_eq_tol(sqrt(dot3(e, e)), d0[k][i * nv + j], 1e-12);
            }
        }
        free(d0[k]);
    }
    pf_mesh_free(&m);
    pf_world_destroy(w);
}
END_TEST

/* Setting a rigid body's state mid-run: a world whose body is set to another world's state after 20 steps then
 * runs on bitwise like the other; invalid states are refused. */
START_TEST(test_rigid_set_state)
{
    pf_world *a = make_world(0.01, -9.81, PF_EXEC_SEQ, 1), *b = make_world(0.01, -9.81, PF_EXEC_SEQ, 1);
    pf_object_id ia = tumbling_box(a, PF_SOLVER_IMPLICIT_EULER, NULL), ib = tumbling_box(b, PF_SOLVER_IMPLICIT_EULER, NULL);
    ck_assert_int_eq(pf_world_step(a, 20), PF_OK);
    ck_assert_int_eq(pf_world_step(b, 3), PF_OK);
    double x[3], q[4], v[3], om[3];
    ck_assert_int_eq(pf_world_get_rigid_state(a, ia, x, q, v, om), PF_OK);
    ck_assert_int_eq(pf_world_set_rigid_state(b, ib, x, q, v, om), PF_OK);
    ck_assert(pf_world_state_hash(a) == pf_world_state_hash(b));
    ck_assert_int_eq(pf_world_step(a, 10), PF_OK);
    ck_assert_int_eq(pf_world_step(b, 10), PF_OK);
    ck_assert(pf_world_state_hash(a) == pf_world_state_hash(b));
    double zero[4] = {0, 0, 0, 0}, nan[3] = {NAN, 0, 0};
    ck_assert_int_eq(pf_world_set_rigid_state(b, ib, NULL, zero, NULL, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_set_rigid_state(b, ib, nan, NULL, NULL, NULL), PF_EINVAL);
    ck_assert(pf_world_state_hash(a) == pf_world_state_hash(b)); /* refused: nothing changed */
    pf_world_destroy(a);
    pf_world_destroy(b);
}
END_TEST

/* ---------- deformable grids ---------- */

/* A deformable grid (FEM lattice) around an icosphere, hanging from its top lattice layer. */
static pf_object_id hanging_grid(pf_world *w, pf_mesh *m, pf_surface_id *sid)
{
    pf_deformable_grid_def gd = pf_deformable_grid_default_def();
    gd.mesh_positions = m->positions;
    gd.mesh_vertices = m->vertices;
    gd.mesh_indices = m->indices;
    gd.mesh_triangles = m->triangles;
    gd.n[0] = 3, gd.n[1] = 3, gd.n[2] = 4;
    gd.total_mass = 2;
    gd.fem.young_modulus = 2e3;
    gd.fem.poisson_ratio = 0.3;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_deformable_grid(w, &gd, &id, sid), PF_OK);
    return id;
}

static pf_mesh ball_at(double z)
{
    pf_mesh m = icosphere(0.3, 2);
    for (uint32_t i = 0; i < m.vertices; i++) m.positions[3 * i + 2] += z;
    return m;
}

/* The embedded vertices follow the lattice: after 40 steps of sagging, each equals the trilinear interpolation
 * (recomputed here from the rest lattice) of the lattice points; the lattice behaves bitwise as the same lattice
 * without a surface (a surface adds no force). */
START_TEST(test_deformable_grid_hanging)
{
    pf_mesh m = ball_at(1.0);
    pf_world *w = make_world(0.01, -9.81, PF_EXEC_SEQ, 1);
    pf_surface_id sid;
    pf_object_id id = hanging_grid(w, &m, &sid);
    uint32_t n;
    const double *x = pf_world_positions(w, id, &n);
    ck_assert_uint_eq(n, 36);
    double lo[3], hi[3];
    memcpy(lo, x, sizeof lo);
    memcpy(hi, x + 3 * (n - 1), sizeof hi);
    for (int a = 0; a < 3; a++) ck_assert(lo[a] < -0.299 + (a == 2) && hi[a] > 0.299 + (a == 2)); /* holds the mesh */
    double top[6] = {-10, -10, hi[2] - 1e-9, 10, 10, 10};
    uint32_t nfix;
    ck_assert_int_eq(pf_world_fix_box(w, id, top, &nfix), PF_OK);
    ck_assert_uint_eq(nfix, 9);

    /* the same lattice, alone */
    pf_world *w2 = make_world(0.01, -9.81, PF_EXEC_SEQ, 1);
    pf_object_def od = pf_object_default_def();
    od.grid[0] = 3, od.grid[1] = 3, od.grid[2] = 4;
    memcpy(od.grid_min, lo, sizeof lo);
    memcpy(od.grid_max, hi, sizeof hi);
    od.total_mass = 2;
    pf_object_id id2;
    ck_assert_int_eq(pf_world_add_object(w2, &od, &id2), PF_OK);
    pf_hexa_fem_def fd = pf_hexa_fem_default_def();
    fd.young_modulus = 2e3;
    fd.poisson_ratio = 0.3;
    ck_assert_int_eq(pf_world_add_hexa_fem(w2, id2, &fd, NULL), PF_OK);
    ck_assert_int_eq(pf_world_fix_box(w2, id2, top, &nfix), PF_OK);
    ck_assert(pf_world_state_hash(w) == pf_world_state_hash(w2));

    ck_assert_int_eq(pf_world_step(w, 40), PF_OK);
    ck_assert_int_eq(pf_world_step(w2, 40), PF_OK);
    ck_assert(pf_world_state_hash(w) == pf_world_state_hash(w2));

    x = pf_world_positions(w, id, &n);
    uint32_t nv;
    const double *p = pf_world_surface_positions(w, sid, &nv);
    ck_assert_uint_eq(nv, m.vertices);
    double moved = 0;
    for (uint32_t i = 0; i < nv; i++) {
        const double *r = m.positions + 3 * i;
        int c[3];
        double u[3];
        for (int a = 0; a < 3; a++) {
            double t = (r[a] - lo[a]) / (hi[a] - lo[a]) * (od.grid[a] - 1);
            c[a] = (int)t;
            if (c[a] > od.grid[a] - 2) c[a] = od.grid[a] - 2;
            u[a] = t - c[a];
        }
        double e[3] = {0, 0, 0};
        for (int k = 0; k < 8; k++) {
            int di = k & 1, dj = k >> 1 & 1, dk = k >> 2 & 1;
            double wk = (di ? u[0] : 1 - u[0]) * (dj ? u[1] : 1 - u[1]) * (dk ? u[2] : 1 - u[2]);
            const double *xp = x + 3 * ((c[0] + di) + 3 * ((c[1] + dj) + 3 * (c[2] + dk)));
            for (int a = 0; a < 3; a++) e[a] += wk * xp[a];
        }
        for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(p[3 * i + a], e[a], 1e-12);
        moved = fmax(moved, fabs(p[3 * i + 2] - r[2]));
    }
    ck_assert_msg(moved > 1e-3, "the embedded ball did not move (%g m)", moved);
    pf_world_destroy(w);
    pf_world_destroy(w2);
    pf_mesh_free(&m);
}
END_TEST

/* ---------- determinism ---------- */

/* A scene of rigid bodies (implicit, explicit, static) and deformable grids (FEM implicit hanging, mass-spring
 * explicit falling) leaves after 30 steps the state hash of the seq executor for every executor and 1-3 workers. */
static uint64_t bodies_hash(pf_executor e, pf_partitioner part, int workers)
{
    pf_world *w = make_world(0.01, -9.81, e, workers);
    ck_assert_int_eq(pf_world_set_partitioner(w, part), PF_OK);
    pf_mesh m = ball_at(1.0);
    pf_surface_id sid;
    pf_object_id g = hanging_grid(w, &m, &sid);
    double top[6] = {-10, -10, 1.3, 10, 10, 10};
    ck_assert_int_eq(pf_world_fix_box(w, g, top, NULL), PF_OK);
    for (uint32_t i = 0; i < m.vertices; i++) m.positions[3 * i] += 2;
    pf_deformable_grid_def gd = pf_deformable_grid_default_def();
    gd.mesh_positions = m.positions;
    gd.mesh_vertices = m.vertices;
    gd.mesh_indices = m.indices;
    gd.mesh_triangles = m.triangles;
    gd.model = PF_GRID_SPRINGS;
    gd.stiffness = 10;
    gd.damping = 0.1;
    gd.solver.kind = PF_SOLVER_EXPLICIT_EULER;
    ck_assert_int_eq(pf_world_add_deformable_grid(w, &gd, NULL, NULL), PF_OK);
    pf_object_id a = tumbling_box(w, PF_SOLVER_IMPLICIT_EULER, &sid);
    tumbling_box(w, PF_SOLVER_EXPLICIT_EULER, NULL);
    pf_object_id s = tumbling_box(w, PF_SOLVER_IMPLICIT_EULER, NULL);
    uint32_t both[2] = {0, 1};
    ck_assert_int_eq(pf_world_fix_points(w, s, both, 2), PF_OK);
    pf_rigid_def rd = pf_rigid_default_def();
    rd.shape = PF_RIGID_MESH;
    rd.mesh_positions = m.positions;
    rd.mesh_vertices = m.vertices;
    rd.mesh_indices = m.indices;
    rd.mesh_triangles = m.triangles;
    rd.angular_velocity[0] = 3;
    rd.angular_velocity[1] = -1;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, NULL), PF_OK);
    (void)a;
    ck_assert_int_eq(pf_world_step(w, 30), PF_OK);
    pf_world_stats st;
    pf_world_get_stats(w, &st);
    ck_assert_uint_eq(st.groups, 6);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    pf_mesh_free(&m);
    return h;
}

START_TEST(test_bodies_hash_every_executor)
{
    uint64_t ref = bodies_hash(PF_EXEC_SEQ, PF_PART_OWNER, 1);
    for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
        for (int workers = 1; workers <= 3; workers++)
            for (int p = 0; p < (e == PF_EXEC_STATIC ? PF_PART_COUNT : 1); p++) {
                uint64_t h = bodies_hash((pf_executor)e, (pf_partitioner)p, workers);
                ck_assert_msg(h == ref, "%s/%s with %d workers: hash %016llx, seq %016llx",
                              pf_executor_name((pf_executor)e), pf_partitioner_name((pf_partitioner)p), workers,
                              (unsigned long long)h, (unsigned long long)ref);
            }
}
END_TEST

/* The orientation is part of the state hash: two bodies that differ only by their orientation hash apart. */
START_TEST(test_hash_covers_orientation)
{
    uint64_t h[2];
    for (int k = 0; k < 2; k++) {
        pf_world *w = make_world(0.01, 0, PF_EXEC_SEQ, 1);
        pf_rigid_def rd = pf_rigid_default_def();
        rd.orientation[3] = k ? 0 : 1; /* (x, y, z, w): identity, or a half turn about z */
        rd.orientation[2] = k ? 1 : 0;
        ck_assert_int_eq(pf_world_add_rigid(w, &rd, NULL), PF_OK);
        h[k] = pf_world_state_hash(w);
        pf_world_destroy(w);
    }
    ck_assert(h[0] != h[1]);
}
END_TEST

/* Invalid definitions return PF_EINVAL. */
START_TEST(test_bodies_invalid_arguments)
{
    pf_world *w = make_world(0.01, 0, PF_EXEC_SEQ, 1);
    pf_rigid_def rd = pf_rigid_default_def();
    pf_object_id r, g;
    rd.orientation[3] = 0; /* the zero quaternion */
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &r), PF_EINVAL);
    rd = pf_rigid_default_def();
    rd.half_extents[1] = 0;
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &r), PF_EINVAL);
    rd = pf_rigid_default_def();
    rd.shape = PF_RIGID_MESH; /* no mesh */
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &r), PF_EINVAL);
    ck_assert_int_eq(pf_world_add_rigid(w, &(pf_rigid_def){.density = -1, .orientation = {0, 0, 0, 1}}, &r), PF_EINVAL);
    rd = pf_rigid_default_def();
    ck_assert_int_eq(pf_world_add_rigid(w, &rd, &r), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, r, NULL), PF_EINVAL);
    pf_spring sp = {0, 1, 1, 0, -1};
    ck_assert_int_eq(pf_world_add_springs(w, r, &sp, 1, NULL), PF_EINVAL);
    pf_object_def od = pf_object_default_def();
    od.grid[0] = od.grid[1] = od.grid[2] = 2;
    od.grid_max[0] = od.grid_max[1] = od.grid_max[2] = 1;
    ck_assert_int_eq(pf_world_add_object(w, &od, &g), PF_OK);
    double p[3] = {0.5, 0.5, 0.5};
    uint32_t pts[1] = {8}, tri[3] = {0, 0, 1};
    pf_surface_def sd = pf_surface_default_def();
    sd.vertices = 1;
    sd.points = pts; /* out of range */
    ck_assert_int_eq(pf_world_add_surface(w, g, &sd, NULL), PF_EINVAL);
    pts[0] = 7;
    sd.indices = tri;
    sd.triangles = 1; /* vertex 1 out of range */
    ck_assert_int_eq(pf_world_add_surface(w, g, &sd, NULL), PF_EINVAL);
    sd = pf_surface_default_def();
    sd.mapping = PF_SURFACE_RIGID; /* on a grid */
    sd.vertices = 1;
    sd.positions = p;
    ck_assert_int_eq(pf_world_add_surface(w, g, &sd, NULL), PF_EINVAL);
    sd.mapping = PF_SURFACE_TRILINEAR; /* on a rigid body */
    ck_assert_int_eq(pf_world_add_surface(w, r, &sd, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_add_surface(w, g, &sd, NULL), PF_OK);
    ck_assert_int_eq(pf_world_get_rigid_state(w, g, p, NULL, NULL, NULL), PF_EINVAL);
    ck_assert_int_eq(pf_world_add_rigid_shape_surface(w, g, &rd, NULL), PF_EINVAL); /* not a rigid body */
    ck_assert_ptr_null(pf_world_surface_positions(w, (pf_surface_id){5}, NULL));
    ck_assert_uint_eq(pf_world_surfaces(w), 1);
    pf_deformable_grid_def gd = pf_deformable_grid_default_def();
    gd.mesh_positions = p;
    gd.mesh_vertices = 1;
    gd.margin = 0; /* a single point: no box */
    ck_assert_int_eq(pf_world_add_deformable_grid(w, &gd, &g, NULL), PF_EINVAL);
    ck_assert_uint_eq(pf_world_objects(w), 2);
    pf_world_destroy(w);
}
END_TEST

/* A rigid surface's triangles are indexed once in the body frame and queried with the query box taken into that
 * frame (collide.c). A vertex–triangle contact needs a point of the triangle within the vertex's query box (the
 * vertex grown by its reach), so whatever the orientation, a triangle with a point in a world box must meet the
 * body-frame query box, or a contact would be missed. The oracle is that point, computed in the world frame as
 * the surface computes its vertices (com + R local), over random states, triangles, points and boxes, a quarter
 * of them with the point on the box's face. */
static int boxes_meet(const pf_aabb *a, const pf_aabb *b)
{
    for (int k = 0; k < 3; k++)
        if (a->max[k] < b->min[k] || b->max[k] < a->min[k]) return 0;
    return 1;
}

START_TEST(test_rigid_body_frame_query_holds_meeting_triangles)
{
    rng seed = {777};
    for (int trial = 0; trial < 20000; trial++) {
        double x[PF_RIGID_XLEN] = {0}, q[4], n = 0;
        for (int k = 0; k < 3; k++) x[k] = 100 * rng_range(&seed, -1, 1);
        for (int k = 0; k < 4; k++) q[k] = rng_range(&seed, -1, 1), n += q[k] * q[k];
        for (int k = 0; k < 4; k++) x[PF_RIGID_QUAT + k] = q[k] / sqrt(n);
        double R[9], local[3][3], world[3][3], bary[3], point[3] = {0};
        pf_rigid_rotation(x, R);
        pf_aabb lt = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
        bary[0] = 0.5 * (rng_range(&seed, -1, 1) + 1);
        bary[1] = (1 - bary[0]) * 0.5 * (rng_range(&seed, -1, 1) + 1);
        bary[2] = 1 - bary[0] - bary[1];
        for (int v = 0; v < 3; v++)
            for (int a = 0; a < 3; a++) {
                local[v][a] = rng_range(&seed, -1, 1);
                lt.min[a] = fmin(lt.min[a], local[v][a]), lt.max[a] = fmax(lt.max[a], local[v][a]);
            }
        for (int v = 0; v < 3; v++)
            for (int a = 0; a < 3; a++) {
                world[v][a] = x[a] + R[3 * a] * local[v][0] + R[3 * a + 1] * local[v][1] + R[3 * a + 2] * local[v][2];
                point[a] += bary[v] * world[v][a];
            }
        pf_aabb b;
        for (int a = 0; a < 3; a++) {
            double lo = 0.3 * (rng_range(&seed, -1, 1) + 1), hi = 0.3 * (rng_range(&seed, -1, 1) + 1);
            b.min[a] = point[a] - lo, b.max[a] = point[a] + hi;
        }
        if (trial % 4 == 0) b.min[trial / 4 % 3] = point[trial / 4 % 3]; /* the point on a face */
        pf_aabb lb = pf_body_query_box(x, &b);
        ck_assert_msg(boxes_meet(&lt, &lb), "trial %d: a triangle with a point in the world box is outside the "
                      "body-frame query", trial);
    }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_bodies");
    TCase *tc = tcase_create("mappings");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_identity_mapping_virtual_work);
    tcase_add_test(tc, test_trilinear_mapping_virtual_work);
    tcase_add_test(tc, test_rigid_mapping_virtual_work);
    tcase_add_test(tc, test_rigid_linearisation_finite_difference);
    tcase_add_test(tc, test_grid_surface_closed);
    tcase_add_test(tc, test_box_mesh_mass_properties);
    tcase_add_test(tc, test_icosphere_mass_properties);
    suite_add_tcase(s, tc);
    TCase *rb = tcase_create("rigid");
    tcase_set_timeout(rb, 60);
    tcase_add_test(rb, test_rigid_free_fall_explicit);
    tcase_add_test(rb, test_rigid_free_fall_implicit);
    tcase_add_test(rb, test_rigid_torque_free_explicit);
    tcase_add_test(rb, test_rigid_torque_free_implicit);
    tcase_add_test(rb, test_rigid_principal_spin);
    tcase_add_test(rb, test_rigid_implicit_mass_damping);
    tcase_add_test(rb, test_rigid_static);
    tcase_add_test(rb, test_rigid_body_frame_query_holds_meeting_triangles);
    tcase_add_test(rb, test_rigid_shape_surfaces);
    tcase_add_test(rb, test_rigid_set_state);
    suite_add_tcase(s, rb);
    TCase *gr = tcase_create("grids");
    tcase_set_timeout(gr, 120);
    tcase_add_test(gr, test_deformable_grid_hanging);
    tcase_add_test(gr, test_bodies_hash_every_executor);
    tcase_add_test(gr, test_hash_covers_orientation);
    tcase_add_test(gr, test_bodies_invalid_arguments);
    suite_add_tcase(s, gr);
    return s;
}
