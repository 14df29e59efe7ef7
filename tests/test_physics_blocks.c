/* Large objects cut into blocks (physics/decompose.h, Hermann et al. 2009 §4.3): for every model with elements
 * (hexahedral FEM linear and corotational, springs, tetrahedral and triangular FEM, biquadratic springs, the
 * tensor-mass membrane and bending vectors on triangles, a deformable grid, two fields on one object with fixed
 * points and held directions), a decomposed object leaves the state hash of the seq executor (the canonical order,
 * run as one sequence) on every executor, both partitioners and 1, 2, 3 and 8 workers; it agrees with the
 * undecomposed object to rounding; its blocks cover its elements and points once each, whatever the workers; and the
 * edge cases (one element, every point fixed, a disconnected mesh) run. */
#include "check_main.h"
#include "world_fixture.h"
#include "tetra_grid.h"

#include "physflow/physics.h"
#include "physics/decompose.h"
#include "physics/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    HEXA_LINEAR,
    HEXA_LARGE,
    SPRINGS,
    TETRA,
    TRIANGLES,
    DEFORMABLE_GRID,
    TWO_FIELDS,
    DISCONNECTED,
    LOADS,
    BIQUADRATIC,
    TENSOR_MASS,
    BENDING_VECTORS,
    MODELS
};

static const char *const model_name[MODELS] = {"hexa linear", "hexa corotational", "springs",     "tetra",
                                               "triangles",   "deformable grid",   "two fields", "disconnected",
                                               "point loads", "biquadratic springs", "tensor mass",
                                               "bending vectors"};

static int converge; /* the solver's CG to 1e-13 instead of at most 30 iterations */

static pf_solver_def solver_def(void)
{
    pf_solver_def sv = pf_solver_default_def();
    sv.rayleigh_mass = 0.1;
    sv.rayleigh_stiffness = 0.01;
    sv.cg_iterations = converge ? 2000 : 30;
    sv.cg_tolerance = converge ? 1e-13 : 1e-10;
    return sv;
}

static pf_object_def object_def(pf_decompose mode, uint32_t block_elements, int nx, int ny, int nz)
{
    pf_object_def od = pf_object_default_def();
    od.grid[0] = nx, od.grid[1] = ny, od.grid[2] = nz;
    od.grid_max[0] = nx - 1.0, od.grid_max[1] = 0.5 * (ny - 1), od.grid_max[2] = 0.5 * (nz - 1);
    od.total_mass = 10;
    od.decompose = mode;
    od.block_elements = block_elements;
    od.solver = solver_def();
    return od;
}

/* the points of face x = 0 of an nx x ny x nz grid */
static void fix_face(pf_world *w, pf_object_id o, int nx, int ny, int nz)
{
    uint32_t pts[256], n = 0;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++) pts[n++] = (uint32_t)(nx * (j + ny * k));
    ck_assert_int_eq(pf_world_fix_points(w, o, pts, n), PF_OK);
}

static void add_hexa(pf_world *w, pf_object_id o, pf_fem_method m)
{
    pf_hexa_fem_def fd = pf_hexa_fem_default_def();
    fd.young_modulus = 2e4;
    fd.poisson_ratio = 0.3;
    fd.method = m;
    ck_assert_int_eq(pf_world_add_hexa_fem(w, o, &fd, NULL), PF_OK);
}

/* a closed box of 12 triangles around [0.1, 2.9] x [0.1, 0.9] x [0.1, 0.9], for the deformable grid */
static void box_mesh(double *p, uint32_t *t)
{
    for (int c = 0; c < 8; c++) {
        p[3 * c] = c & 1 ? 2.9 : 0.1;
        p[3 * c + 1] = c & 2 ? 0.9 : 0.1;
        p[3 * c + 2] = c & 4 ? 0.9 : 0.1;
    }
    static const uint32_t tri[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                     2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    memcpy(t, tri, sizeof tri);
}

/* model m as one object of w, decomposed as asked; returns its id */
static pf_object_id build(pf_world *w, int m, pf_decompose mode, uint32_t be)
{
    pf_object_id o;
    if (m == DEFORMABLE_GRID) {
        double p[24];
        uint32_t t[36];
        box_mesh(p, t);
        pf_deformable_grid_def dd = pf_deformable_grid_default_def();
        dd.mesh_positions = p, dd.mesh_vertices = 8, dd.mesh_indices = t, dd.mesh_triangles = 12;
        dd.n[0] = 9, dd.n[1] = 4, dd.n[2] = 4;
        dd.fem.young_modulus = 2e4;
        dd.decompose = mode;
        dd.solver = solver_def();
        dd.block_elements = be;
        ck_assert_int_eq(pf_world_add_deformable_grid(w, &dd, &o, NULL), PF_OK);
        fix_face(w, o, 9, 4, 4);
        return o;
    }
    int sheet = m == SPRINGS || m == TRIANGLES || m == BIQUADRATIC || m == TENSOR_MASS || m == BENDING_VECTORS;
    int nx = 10, ny = sheet ? 8 : 4, nz = sheet ? 1 : 4;
    pf_object_def od = object_def(mode, be, nx, ny, nz);
    if (m == DISCONNECTED) { /* two 5 x 4 x 4 bars side by side, no element between them */
        od = object_def(mode, be, 1, 1, 1);
        memset(od.grid, 0, sizeof od.grid);
        od.points = 160;
        double *x = malloc(3 * 160 * sizeof *x);
        for (uint32_t i = 0; i < 160; i++) {
            uint32_t b = i / 80, l = i % 80;
            x[3 * i] = l % 5 + 6.0 * b, x[3 * i + 1] = 0.5 * (l / 5 % 4), x[3 * i + 2] = 0.5 * (l / 20);
        }
        od.positions = x;
        ck_assert_int_eq(pf_world_add_object(w, &od, &o), PF_OK);
        free(x);
        uint32_t hexa[2 * 36 * 8], nh = 0;
        static const int sofa[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                       {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
        for (uint32_t b = 0; b < 2; b++)
            for (int k = 0; k < 3; k++)
                for (int j = 0; j < 3; j++)
                    for (int i = 0; i < 4; i++, nh++)
                        for (int c = 0; c < 8; c++)
                            hexa[8 * nh + c] = 80 * b + (uint32_t)((i + sofa[c][0]) + 5 * ((j + sofa[c][1]) +
                                                                                            4 * (k + sofa[c][2])));
        pf_hexa_fem_def fd = pf_hexa_fem_default_def();
        fd.young_modulus = 2e4;
        fd.hexahedra = hexa;
        fd.nhexahedra = nh;
        ck_assert_int_eq(pf_world_add_hexa_fem(w, o, &fd, NULL), PF_OK);
        uint32_t pts[32], n = 0;
        for (uint32_t b = 0; b < 2; b++)
            for (uint32_t l = 0; l < 80; l += 5) pts[n++] = 80 * b + l;
        ck_assert_int_eq(pf_world_fix_points(w, o, pts, n), PF_OK);
        return o;
    }
    ck_assert_int_eq(pf_world_add_object(w, &od, &o), PF_OK);
    switch (m) {
    case HEXA_LINEAR: add_hexa(w, o, PF_FEM_LINEAR); break;
    case HEXA_LARGE: add_hexa(w, o, PF_FEM_LARGE); break;
    case SPRINGS: ck_assert_int_eq(pf_world_add_grid_springs(w, o, 500, 0.5, NULL, NULL), PF_OK); break;
    case TETRA: {
        uint32_t *t = malloc(24 * 9 * 3 * 3 * sizeof *t);
        pf_tetra_fem_def td = pf_tetra_fem_default_def();
        td.young_modulus = 2e4;
        td.poisson_ratio = 0.3;
        td.tetrahedra = t;
        td.ntetrahedra = kuhn_tetrahedra(nx, ny, nz, t);
        ck_assert_int_eq(pf_world_add_tetra_fem(w, o, &td, NULL), PF_OK);
        free(t);
        break;
    }
    case TRIANGLES:
    case BIQUADRATIC:
    case TENSOR_MASS:
    case BENDING_VECTORS: {
        uint32_t t[2 * 9 * 7 * 3], nt = 0;
        for (int j = 0; j + 1 < ny; j++)
            for (int i = 0; i + 1 < nx; i++) {
                uint32_t a = (uint32_t)(i + nx * j), b = a + 1, c = a + (uint32_t)nx, d = c + 1;
                uint32_t q[6] = {a, b, d, a, d, c};
                memcpy(t + 3 * nt, q, sizeof q);
                nt += 2;
            }
        if (m == BIQUADRATIC) {
            pf_biquadratic_springs_def bd = pf_biquadratic_springs_default_def();
            bd.young_modulus = 1e3;
            bd.triangles = t;
            bd.ntriangles = nt;
            ck_assert_int_eq(pf_world_add_biquadratic_springs(w, o, &bd, NULL), PF_OK);
            break;
        }
        if (m == BENDING_VECTORS) { /* on a membrane, which carries the sheet's stretching */
            pf_bending_vectors_def vd = pf_bending_vectors_default_def();
            vd.bending_stiffness = 5;
            vd.triangles = t;
            vd.ntriangles = nt;
            ck_assert_int_eq(pf_world_add_bending_vectors(w, o, &vd, NULL, NULL), PF_OK);
        }
        if (m == TENSOR_MASS || m == BENDING_VECTORS) {
            pf_tensor_mass_def md = pf_tensor_mass_default_def();
            md.young_modulus = 2e3;
            md.triangles = t;
            md.ntriangles = nt;
            ck_assert_int_eq(pf_world_add_tensor_mass(w, o, &md, NULL), PF_OK);
            break;
        }
        pf_triangle_fem_def td = pf_triangle_fem_default_def();
        td.young_modulus = 2e4;
        td.thickness = 0.05;
        td.triangles = t;
        td.ntriangles = nt;
        ck_assert_int_eq(pf_world_add_triangle_fem(w, o, &td, NULL), PF_OK);
        break;
    }
    case LOADS: { /* a tip load and rest-shape springs: one-point elements in the blocks */
        add_hexa(w, o, PF_FEM_LARGE);
        uint32_t tip[4] = {9, 19, 29, 39}, soft[3] = {75, 85, 155};
        pf_constant_force_def cd = pf_constant_force_default_def();
        cd.points = tip, cd.npoints = 4, cd.force[2] = -3;
        ck_assert_int_eq(pf_world_add_constant_force(w, o, &cd, NULL), PF_OK);
        pf_rest_shape_springs_def rd = pf_rest_shape_springs_default_def();
        rd.points = soft, rd.npoints = 3, rd.stiffness = 50;
        ck_assert_int_eq(pf_world_add_rest_shape_springs(w, o, &rd, NULL), PF_OK);
        break;
    }
    case TWO_FIELDS: {
        add_hexa(w, o, PF_FEM_POLAR);
        ck_assert_int_eq(pf_world_add_grid_springs(w, o, 200, 0.2, NULL, NULL), PF_OK);
        uint32_t held[4] = {9, 19, 29, 39}; /* the far end's bottom edge slides in the plane z = const */
        ck_assert_int_eq(pf_world_fix_directions(w, o, held, 4, (double[3]){0, 0, 1}), PF_OK);
        break;
    }
    default: break;
    }
    fix_face(w, o, nx, ny, nz);
    return o;
}

static pf_world *world(pf_executor e, pf_partitioner p, int workers)
{
    pf_world_def d = test_world_def(e, workers);
    d.dt = 0.01;
    d.runtime.partitioner = p;
    return create_world(&d);
}

enum { STEPS = 8 };

static uint64_t run_hash(int m, pf_decompose mode, uint32_t be, pf_executor e, pf_partitioner p, int workers,
                         uint32_t *blocks)
{
    pf_world *w = world(e, p, workers);
    pf_object_id o = build(w, m, mode, be);
    ck_assert_int_eq(pf_world_step(w, STEPS), PF_OK);
    const pf_decomp *d = w->obj.v[o.index]->decomp;
    if (blocks) *blocks = d ? d->nblocks : 0;
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

/* every executor, both partitioners, 1 2 3 8 workers: the seq executor's hash */
START_TEST(test_blocks_hash_every_executor)
{
    int m = _i;
    uint32_t nb = 0;
    uint64_t ref = run_hash(m, PF_DECOMPOSE_ON, 12, PF_EXEC_SEQ, PF_PART_OWNER, 1, &nb);
    ck_assert_msg(nb >= 4, "%s: %u blocks", model_name[m], nb);
    static const int workers[] = {1, 2, 3, 8};
    for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
        for (int k = 0; k < 4; k++)
            for (int p = 0; p < (e == PF_EXEC_STATIC ? PF_PART_COUNT : 1); p++) {
                uint32_t nb2 = 0;
                uint64_t h = run_hash(m, PF_DECOMPOSE_ON, 12, (pf_executor)e, (pf_partitioner)p, workers[k], &nb2);
                ck_assert_uint_eq(nb2, nb); /* the blocks do not depend on the workers */
                ck_assert_msg(h == ref, "%s: %s/%s with %d workers: hash %016llx, seq %016llx", model_name[m],
                              pf_executor_name((pf_executor)e), pf_partitioner_name((pf_partitioner)p), workers[k],
                              (unsigned long long)h, (unsigned long long)ref);
            }
}
END_TEST

/* the canonical order changes only roundings: the decomposed object moves as the whole one does */
START_TEST(test_blocks_agree_with_whole_object)
{
    int m = _i;
    pf_world *a = world(PF_EXEC_SEQ, PF_PART_OWNER, 1), *b = world(PF_EXEC_STATIC, PF_PART_OWNER, 2);
    converge = 1; /* CG run to convergence in both: what is left differs by roundings only */
    pf_object_id oa = build(a, m, PF_DECOMPOSE_OFF, 0), ob = build(b, m, PF_DECOMPOSE_ON, 12);

    converge = 0;
    uint32_t n = 0, n2 = 0;
    const double *x0 = pf_world_positions(a, oa, &n);
    double *start = malloc(3 * n * sizeof *start);
    memcpy(start, x0, 3 * n * sizeof *start);
    ck_assert_int_eq(pf_world_step(a, STEPS), PF_OK);
    ck_assert_int_eq(pf_world_step(b, STEPS), PF_OK);
    ck_assert_ptr_null(a->obj.v[oa.index]->decomp);
    ck_assert_ptr_nonnull(b->obj.v[ob.index]->decomp);
    const double *xa = pf_world_positions(a, oa, &n), *xb = pf_world_positions(b, ob, &n2);
    ck_assert_uint_eq(n, n2);
    double moved = 0, diff = 0;
    for (uint32_t i = 0; i < 3 * n; i++) {
        moved = fmax(moved, fabs(xa[i] - start[i]));
        diff = fmax(diff, fabs(xa[i] - xb[i]));
    }
    ck_assert_msg(moved > 1e-4, "%s: nothing moved (%g m)", model_name[m], moved);
    ck_assert_msg(diff <= 1e-9 * moved, "%s: the blocks' state differs by %g m of %g m moved", model_name[m], diff,
                  moved);
    free(start);
    pf_world_destroy(a);
    pf_world_destroy(b);
}
END_TEST

/* Brute force: each element in one block, each point owned by the lowest block touching it, each point's
 * gathered rows exactly one per block touching it, in block order, each row the right point's */
START_TEST(test_blocks_cover_elements_and_points_once)
{
    int m = _i;
    pf_world *w = world(PF_EXEC_SEQ, PF_PART_OWNER, 1);
    pf_object_id id = build(w, m, PF_DECOMPOSE_ON, 12);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    const pf_object *o = w->obj.v[id.index];
    const pf_decomp *d = o->decomp;
    ck_assert_ptr_nonnull(d);
    ck_assert_uint_eq(d->nblocks, (d->elements + 11) / 12);
    uint32_t *row_point = malloc(d->nrows * sizeof *row_point), *row_block = malloc(d->nrows * sizeof *row_block);
    uint8_t *touch = calloc((size_t)o->n * d->nblocks, 1);
    for (uint32_t r = 0; r < d->nrows; r++) row_point[r] = row_block[r] = UINT32_MAX;
    for (uint32_t f = 0; f < o->ff.n; f++) {
        const pf_force_field_ops *ops = pf_force_field_kinds[o->ff.v[f].kind];
        uint32_t corners, ne = ops->elements(&o->ff.v[f], &corners), seen = 0, nodes[8];
        uint8_t *taken = calloc(ne, 1);
        for (uint32_t b = 0; b < d->nblocks; b++) {
            const pf_elem_range *r = &d->b[b].range[f];
            for (uint32_t k = 0; k < r->n; k++) {
                uint32_t e = pf_range_elem(r, k);
                ck_assert(k == 0 || e > pf_range_elem(r, k - 1));
                ck_assert(!taken[e]);
                taken[e] = 1, seen++;
                ops->element(&o->ff.v[f], e, nodes);
                uint32_t rb[8];
                const uint32_t *rows = pf_range_rows(r, k, nodes, corners, rb);
                for (uint32_t c = 0; c < corners; c++) {
                    uint32_t row = rows[c];
                    ck_assert(row >= d->b[b].row0 && row < d->b[b].row0 + d->b[b].nrows);
                    ck_assert(row_point[row] == UINT32_MAX || row_point[row] == nodes[c]);
                    row_point[row] = nodes[c], row_block[row] = b;
                    touch[(size_t)nodes[c] * d->nblocks + b] = 1;
                }
            }
        }
        ck_assert_uint_eq(seen, ne);
        free(taken);
    }
    uint32_t *owner = malloc(o->n * sizeof *owner);
    for (uint32_t i = 0; i < o->n; i++) owner[i] = UINT32_MAX;
    for (uint32_t b = 0; b < d->nblocks; b++)
        for (uint32_t k = 0; k < d->b[b].nowned; k++) {
            uint32_t i = d->b[b].owned[k];
            ck_assert(k == 0 || i > d->b[b].owned[k - 1]);
            ck_assert_uint_eq(owner[i], UINT32_MAX);
            owner[i] = b;
        }
    for (uint32_t i = 0; i < o->n; i++) {
        ck_assert_uint_ne(owner[i], UINT32_MAX);
        uint32_t lowest = UINT32_MAX, j = d->gptr[i];
        for (uint32_t b = 0; b < d->nblocks; b++) {
            if (!touch[(size_t)i * d->nblocks + b]) continue;
            if (lowest == UINT32_MAX) lowest = b;
            ck_assert(j < d->gptr[i + 1]);
            ck_assert_uint_eq(row_block[d->grow[j]], b);
            ck_assert_uint_eq(row_point[d->grow[j]], i);
            j++;
        }
        ck_assert_uint_eq(j, d->gptr[i + 1]);
        if (lowest != UINT32_MAX) ck_assert_uint_eq(owner[i], lowest);
    }
    free(owner);
    free(touch);
    free(row_point);
    free(row_block);
    pf_world_destroy(w);
}
END_TEST

/* the 2 workers both run blocks of the one object (the runtime places blocks as objects) */
START_TEST(test_blocks_spread_over_workers)
{
    pf_world *w = world(PF_EXEC_STATIC, PF_PART_OWNER, 2);
    build(w, HEXA_LARGE, PF_DECOMPOSE_ON, 12);
    ck_assert_int_eq(pf_world_step(w, 3), PF_OK);
    pf_worker_stats ws[2];
    int nw = 0;
    ck_assert_int_eq(pf_world_get_worker_stats(w, ws, 2, &nw), PF_OK);
    ck_assert_int_eq(nw, 2);
    for (int k = 0; k < 2; k++) ck_assert_msg(ws[k].tasks > 20, "worker %d ran %llu tasks", k,
                                              (unsigned long long)ws[k].tasks);
    pf_world_destroy(w);
}
END_TEST

/* one element: too small to cut even when asked, it runs whole (the hash of PF_DECOMPOSE_OFF); every point
 * fixed: the blocks keep them where they are */
START_TEST(test_blocks_edge_cases)
{
    uint64_t h[2];
    for (int k = 0; k < 2; k++) {
        pf_world *w = world(PF_EXEC_STATIC, PF_PART_OWNER, 2);
        pf_object_def od = object_def(k ? PF_DECOMPOSE_ON : PF_DECOMPOSE_OFF, 1, 2, 2, 2);
        pf_object_id o;
        ck_assert_int_eq(pf_world_add_object(w, &od, &o), PF_OK);
        add_hexa(w, o, PF_FEM_LARGE);
        ck_assert_int_eq(pf_world_fix_points(w, o, (uint32_t[]){0, 2, 4, 6}, 4), PF_OK);
        ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
        ck_assert_ptr_null(w->obj.v[o.index]->decomp);
        h[k] = pf_world_state_hash(w);
        pf_world_destroy(w);
    }
    ck_assert(h[0] == h[1]);

    pf_world *w = world(PF_EXEC_STATIC, PF_PART_OWNER, 2);
    pf_object_def od = object_def(PF_DECOMPOSE_ON, 4, 6, 3, 3);
    pf_object_id o;
    ck_assert_int_eq(pf_world_add_object(w, &od, &o), PF_OK);
    add_hexa(w, o, PF_FEM_LARGE);
    uint32_t all[54];
    for (uint32_t i = 0; i < 54; i++) all[i] = i;
    ck_assert_int_eq(pf_world_fix_points(w, o, all, 54), PF_OK);
    uint32_t n;
    double x0[162];
    memcpy(x0, pf_world_positions(w, o, &n), sizeof x0);
    ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
    ck_assert_mem_eq(pf_world_positions(w, o, &n), x0, sizeof x0);
    pf_world_destroy(w);
}
END_TEST

/* PF_DECOMPOSE_AUTO cuts only an object of at least 8 blocks' worth of elements */
START_TEST(test_blocks_auto_threshold)
{

    for (int k = 0; k < 2; k++) {
        pf_world *w = world(PF_EXEC_SEQ, PF_PART_OWNER, 1);
        /* 9 x 3 x 3 cells = 81 elements: blocks of 27 make 3 (below PF_BLOCKS_AUTO: whole), of 21 make 4 */
        pf_object_def od = object_def(PF_DECOMPOSE_AUTO, k ? 21 : 27, 10, 4, 4);
        pf_object_id o;
        ck_assert_int_eq(pf_world_add_object(w, &od, &o), PF_OK);
        add_hexa(w, o, PF_FEM_LARGE);
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        const pf_object *ob = w->obj.v[o.index];
        if (k) ck_assert(ob->in_blocks && ob->decomp->nblocks == PF_BLOCKS_AUTO);
        else ck_assert(!ob->in_blocks && !ob->decomp);
        pf_world_destroy(w);
    }
}
END_TEST

/* The split: ranges of the element numbers on a grid (coherent numbering), bisection when the same hexahedra
 * come in a scrambled order; both give one state for seq and static on 3 workers */
START_TEST(test_blocks_split_choice)
{
    static const int sofa[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                   {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    uint32_t hexa[81 * 8];
    for (uint32_t e = 0; e < 81; e++) {
        uint32_t s = (e * 37) % 81; /* 37 is prime to 81: a permutation of the cells, scattered */
        int i = (int)(s % 9), j = (int)(s / 9 % 3), k = (int)(s / 27);
        for (int c = 0; c < 8; c++)
            hexa[8 * e + c] = (uint32_t)((i + sofa[c][0]) + 10 * ((j + sofa[c][1]) + 4 * (k + sofa[c][2])));
    }
    for (int scrambled = 0; scrambled < 2; scrambled++) {
        uint64_t h[2];
        for (int run = 0; run < 2; run++) {
            pf_world *w = world(run ? PF_EXEC_STATIC : PF_EXEC_SEQ, PF_PART_OWNER, run ? 3 : 1);
            pf_object_def od = object_def(PF_DECOMPOSE_ON, 12, 10, 4, 4);
            pf_object_id o;
            ck_assert_int_eq(pf_world_add_object(w, &od, &o), PF_OK);
            pf_hexa_fem_def fd = pf_hexa_fem_default_def();
            fd.young_modulus = 2e4;
            if (scrambled) fd.hexahedra = hexa, fd.nhexahedra = 81;
            ck_assert_int_eq(pf_world_add_hexa_fem(w, o, &fd, NULL), PF_OK);
            fix_face(w, o, 10, 4, 4);
            ck_assert_int_eq(pf_world_step(w, STEPS), PF_OK);
            const pf_decomp *d = w->obj.v[o.index]->decomp;
            ck_assert_ptr_nonnull(d);
            ck_assert_int_eq(d->split, scrambled ? PF_SPLIT_BISECT : PF_SPLIT_RANGES);
            h[run] = pf_world_state_hash(w);
            pf_world_destroy(w);
        }
        ck_assert(h[0] == h[1]);
    }
}
END_TEST

/* rows of d that no point gathers: the holes of blocks whose rows are a span of the points (decompose.c) */
static uint32_t hole_rows(const pf_decomp *d, uint32_t n)
{
    return d->nrows - d->gptr[n];
}

/* Blocks whose rows are a span of the numbering, with and without holes, over several block sizes: each block
 * size gives one state on seq and on 3 static workers, and agrees with the whole object to rounding. */
START_TEST(test_blocks_span_rows)
{
    static const int models[] = {SPRINGS, TRIANGLES};
    static const uint32_t sizes[] = {10, 20, 30, 40};
    uint32_t spans = 0, holes = 0;
    for (int mi = 0; mi < 2; mi++)
        for (int si = 0; si < 4; si++) {
            int m = models[mi];
            uint32_t be = sizes[si];
            pf_world *a = world(PF_EXEC_SEQ, PF_PART_OWNER, 1), *b = world(PF_EXEC_SEQ, PF_PART_OWNER, 1);
            converge = 1;
            pf_object_id oa = build(a, m, PF_DECOMPOSE_OFF, 0), ob = build(b, m, PF_DECOMPOSE_ON, be);
            converge = 0;
            ck_assert_int_eq(pf_world_step(a, STEPS), PF_OK);
            ck_assert_int_eq(pf_world_step(b, STEPS), PF_OK);
            const pf_decomp *d = b->obj.v[ob.index]->decomp;
            ck_assert_ptr_nonnull(d);
            for (uint32_t k = 0; k < d->nblocks; k++) spans += d->b[k].range[0].rows == NULL;
            holes += hole_rows(d, b->obj.v[ob.index]->n);
            uint32_t n = 0;
            const double *xa = pf_world_positions(a, oa, &n), *xb = pf_world_positions(b, ob, &n);
            double diff = 0, size = 0;
            for (uint32_t i = 0; i < 3 * n; i++) diff = fmax(diff, fabs(xa[i] - xb[i])), size = fmax(size, fabs(xa[i]));
            ck_assert_msg(diff <= 1e-9 * size, "%s, blocks of %u: %g m from the whole object", model_name[m], be,
                          diff);
            ck_assert_uint_eq(run_hash(m, PF_DECOMPOSE_ON, be, PF_EXEC_SEQ, PF_PART_OWNER, 1, NULL),
                              run_hash(m, PF_DECOMPOSE_ON, be, PF_EXEC_STATIC, PF_PART_METIS, 3, NULL));
            pf_world_destroy(a);
            pf_world_destroy(b);
        }
    ck_assert_uint_gt(spans, 0);
    ck_assert_uint_gt(holes, 0);
}
END_TEST

/* Linked objects in blocks. LINK_SPRINGS: the corotational hexahedral beam of HEXA_LARGE (10 x 4 x 4 points, fixed
 * at x = 0) carries a 3 x 3 x 3 spring cube hung from its free end by interaction springs; LINK_CONTACT: the
 * beam, with its grid surface, sags onto a fixed floor under its free half (contacts start within the run). */
enum { LINK_SPRINGS, LINK_CONTACT, LINKS };
static const char *const link_name[LINKS] = {"interaction springs", "contacts"};

static pf_world *linked_world(int kind, pf_decompose mode, pf_executor e, pf_partitioner p, int workers,
                              pf_object_id *beam)
{
    pf_world *w = world(e, p, workers);
    *beam = build(w, HEXA_LARGE, mode, 12);
    if (kind == LINK_SPRINGS) {
        pf_object_def od = object_def(PF_DECOMPOSE_OFF, 0, 3, 3, 3);
        od.grid_min[0] = 9.5, od.grid_min[1] = 0.25, od.grid_min[2] = -1.5;
        od.grid_max[0] = 10.5, od.grid_max[1] = 1.25, od.grid_max[2] = -0.5;
        od.total_mass = 2;
        pf_object_id cube;
        ck_assert_int_eq(pf_world_add_object(w, &od, &cube), PF_OK);
        ck_assert_int_eq(pf_world_add_grid_springs(w, cube, 400, 0.1, NULL, NULL), PF_OK);
        pf_spring hang[4];
        for (uint32_t k = 0; k < 4; k++) /* the beam's 4 bottom corners of x = 9 to the cube's top corners */
            hang[k] = (pf_spring){9 + 10 * (k & 1 ? 3 : 0), 18 + (k & 1 ? 2 : 0) + (k & 2 ? 6 : 0), 300, 0.1, -1};
        ck_assert_int_eq(pf_world_add_interaction_springs(w, *beam, cube, hang, 4, NULL), PF_OK);
    } else {
        ck_assert_int_eq(pf_world_add_grid_surface(w, *beam, NULL), PF_OK);
        pf_object_def fd = pf_object_default_def();
        fd.grid[0] = 6, fd.grid[1] = 3, fd.grid[2] = 1;
        fd.grid_min[0] = 4, fd.grid_min[1] = -0.5, fd.grid_min[2] = -0.05;
        fd.grid_max[0] = 11, fd.grid_max[1] = 2, fd.grid_max[2] = -0.05;
        pf_object_id floor;
        ck_assert_int_eq(pf_world_add_object(w, &fd, &floor), PF_OK);
        double all[6] = {3, -1, -1, 12, 3, 1};
        ck_assert_int_eq(pf_world_fix_box(w, floor, all, NULL), PF_OK);
        ck_assert_int_eq(pf_world_add_grid_surface(w, floor, NULL), PF_OK);
        pf_collision_def c = pf_collision_default_def();
        c.stiffness = 2e4;
        ck_assert_int_eq(pf_world_set_collision(w, &c), PF_OK);
    }
    return w;
}

enum { LINK_STEPS = 30 };

/* The beam runs as blocks in its linked group (each block gathers the links' forces at its own points), gives
 * the seq state on every executor, partitioner and worker count, and agrees with the whole beam to rounding
 * (springs) or to the contact model's resolution (contacts). */
START_TEST(test_blocks_linked)
{
    int kind = _i;
    pf_object_id beam;
    pf_world *ref = linked_world(kind, PF_DECOMPOSE_ON, PF_EXEC_SEQ, PF_PART_OWNER, 1, &beam);
    ck_assert_int_eq(pf_world_step(ref, LINK_STEPS), PF_OK);
    const pf_object *o = ref->obj.v[beam.index];
    ck_assert_msg(o->linked && o->in_blocks, "%s: the beam should run as blocks in its group (linked %d)",
                  link_name[kind], o->linked);
    uint64_t h = pf_world_state_hash(ref);
    static const int workers[] = {3, 2, 8}; /* the static executor all three, the others 3 */
    for (int e = PF_EXEC_STATIC; e < PF_EXEC_COUNT; e++)
        for (int k = 0; k < (e == PF_EXEC_STATIC ? 3 : 1); k++)
            for (int p = 0; p < (e == PF_EXEC_STATIC ? PF_PART_COUNT : 1); p++) {
                pf_world *w = linked_world(kind, PF_DECOMPOSE_ON, (pf_executor)e, (pf_partitioner)p, workers[k], &beam);
                ck_assert_int_eq(pf_world_step(w, LINK_STEPS), PF_OK);
                ck_assert_msg(pf_world_state_hash(w) == h, "%s: %s/%s with %d workers: not the seq state",
                              link_name[kind], pf_executor_name((pf_executor)e),
                              pf_partitioner_name((pf_partitioner)p), workers[k]);
                pf_world_destroy(w);
            }
    converge = 1;
    pf_object_id wb, bb;
    pf_world *whole = linked_world(kind, PF_DECOMPOSE_OFF, PF_EXEC_SEQ, PF_PART_OWNER, 1, &wb),
             *blocks = linked_world(kind, PF_DECOMPOSE_ON, PF_EXEC_STATIC, PF_PART_METIS, 3, &bb);
    converge = 0;
    ck_assert_int_eq(pf_world_step(whole, LINK_STEPS), PF_OK);
    ck_assert_int_eq(pf_world_step(blocks, LINK_STEPS), PF_OK);
    ck_assert(!whole->obj.v[wb.index]->in_blocks && blocks->obj.v[bb.index]->in_blocks);
    double diff = 0, size = 0;
    for (uint32_t i = 0; i < whole->obj.n; i++) {
        const double *xa = whole->obj.v[i]->x, *xb = blocks->obj.v[i]->x;
        for (uint32_t j = 0; j < 3 * whole->obj.v[i]->n; j++)
            diff = fmax(diff, fabs(xa[j] - xb[j])), size = fmax(size, fabs(xa[j]));
    }
    ck_assert_msg(diff <= 1e-12 * size, "%s: the blocks' state is %g m from the whole beam's", link_name[kind], diff);
    if (kind == LINK_CONTACT) {
        pf_collision_stats cs;
        ck_assert_int_eq(pf_world_get_collision_stats(blocks, &cs), PF_OK);
        ck_assert_msg(cs.contacts > 0, "the beam should lie on the floor");
    }
    pf_world_destroy(whole);
    pf_world_destroy(blocks);
    pf_world_destroy(ref);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_blocks");
    TCase *tc = tcase_create("blocks");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_blocks_hash_every_executor, 0, MODELS);
    tcase_add_loop_test(tc, test_blocks_agree_with_whole_object, 0, MODELS);
    tcase_add_loop_test(tc, test_blocks_cover_elements_and_points_once, 0, MODELS);
    tcase_add_test(tc, test_blocks_spread_over_workers);
    tcase_add_test(tc, test_blocks_edge_cases);
    tcase_add_test(tc, test_blocks_auto_threshold);
    tcase_add_test(tc, test_blocks_split_choice);
    tcase_add_test(tc, test_blocks_span_rows);
    tcase_add_loop_test(tc, test_blocks_linked, 0, LINKS);
    suite_add_tcase(s, tc);
    return s;
}
