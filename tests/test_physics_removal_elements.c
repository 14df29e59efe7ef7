/* A host removing elements from force fields between steps (pf_world_remove_elements), and the step hook it may
 * do it from (pf_world_set_step_hook). Oracles: SOFA's renumbering worked out by hand on six tetrahedra; the force
 * and stiffness product of a second world built directly from the elements left, in SOFA's order (bitwise: the
 * same elements in the same order sum the same way), for every kind with removable elements; a world cut into
 * blocks stepping across a removal as a world built without the elements steps from the same state; the
 * sequential executor's hash against the static one with 2 workers. */
#define _POSIX_C_SOURCE 200809L
#include "check_main.h"
#include "world_fixture.h"
#include "point_object.h"
#include "tetra_grid.h"

#include "physics/decompose.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void expect_message(const char *a, const char *b)
{
    const char *m = pf_last_error();
    ck_assert_msg(strstr(m, a), "message '%s' should say '%s'", m, a);
    if (b) ck_assert_msg(strstr(m, b), "message '%s' should say '%s'", m, b);
}

/* the points of a regular nx x ny x nz grid of spacing h, point (i, j, k) = i + nx (j + ny k) */
static double *grid_points(int nx, int ny, int nz, double h)
{
    double *x = malloc(3 * (size_t)(nx * ny * nz) * sizeof *x);
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                double *p = x + 3 * (size_t)(i + nx * (j + ny * k));
                p[0] = i * h, p[1] = j * h, p[2] = k * h;
            }
    return x;
}

/* a deterministic perturbation of x, amplitude a */
static double *shaken(const double *x, uint32_t n, double a)
{
    double *y = malloc(3 * (size_t)n * sizeof *y);
    uint64_t s = 88172645463325252ull;
    for (uint32_t i = 0; i < 3 * n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        y[i] = x[i] + a * ((double)(s >> 11) / 9007199254740992.0 - 0.5);
    }
    return y;
}

/* The rule as SOFA's topology modifiers state it, written plainly: the indices in decreasing order, each slot
 * taking the list's last element, the list one shorter. elems: m elements of `corners` indices, changed in place;
 * returns the count left. */
static uint32_t sofa_remove(uint32_t *elems, uint32_t m, uint32_t corners, const uint32_t *rm, uint32_t nrm)
{
    uint32_t *d = malloc(nrm * sizeof *d);
    memcpy(d, rm, nrm * sizeof *d);
    for (uint32_t i = 0; i < nrm; i++) /* selection sort, decreasing */
        for (uint32_t j = i + 1; j < nrm; j++)
            if (d[j] > d[i]) {
                uint32_t t = d[i];
                d[i] = d[j], d[j] = t;
            }
    for (uint32_t i = 0; i < nrm; i++, m--)
        memmove(elems + (size_t)d[i] * corners, elems + (size_t)(m - 1) * corners, corners * sizeof *elems);
    free(d);
    return m;
}

/* the field's elements as the field holds them now (its kind's element list) */
static uint32_t field_elements(pf_world *w, pf_object_id o, uint32_t *out, uint32_t *corners)
{
    const pf_force_field *ff = &w->obj.v[o.index]->ff.v[0];
    const pf_force_field_ops *ops = pf_force_field_kinds[ff->kind];
    uint32_t n = ops->elements(ff, corners);
    for (uint32_t e = 0; e < n; e++) ops->element(ff, e, out + (size_t)e * *corners);
    return n;
}

/* ---- SOFA's numbering, by hand ---- */

START_TEST(renumbering_by_hand)
{
    double *x = grid_points(2, 2, 2, 1.0);
    uint32_t t[24], got[24], corners;
    ck_assert_uint_eq(kuhn_tetrahedra(2, 2, 2, t), 6);
    pf_world *w = new_world(PF_EXEC_SEQ, 1);
    pf_object_id o = add_point_object(w, x, 8, 1.0);
    pf_tetra_fem_def d = pf_tetra_fem_default_def();
    d.tetrahedra = t, d.ntetrahedra = 6;
    pf_force_field_id f;
    ck_assert_int_eq(pf_world_add_tetra_fem(w, o, &d, &f), PF_OK);
    /* {T0 .. T5} less {1, 4}: 4 takes T5 (the last), then 1 takes the last of the five, T5 again: T0 T5 T2 T3 */
    ck_assert_int_eq(pf_world_remove_elements(w, f, (const uint32_t[]){1, 4}, 2), PF_OK);
    ck_assert_uint_eq(field_elements(w, o, got, &corners), 4);
    ck_assert_uint_eq(corners, 4);
    const int want1[4] = {0, 5, 2, 3};
    for (int e = 0; e < 4; e++) ck_assert(memcmp(got + 4 * e, t + 4 * want1[e], 4 * sizeof *t) == 0);
    /* then {0}: T3 comes first: T3 T5 T2 */
    ck_assert_int_eq(pf_world_remove_elements(w, f, (const uint32_t[]){0}, 1), PF_OK);
    ck_assert_uint_eq(field_elements(w, o, got, &corners), 3);
    const int want2[3] = {3, 5, 2};
    for (int e = 0; e < 3; e++) ck_assert(memcmp(got + 4 * e, t + 4 * want2[e], 4 * sizeof *t) == 0);
    /* the indices' order does not matter, the last one removed stays put: {2, 0} of T3 T5 T2 leaves T5 */
    ck_assert_int_eq(pf_world_remove_elements(w, f, (const uint32_t[]){0, 2}, 2), PF_OK);
    ck_assert_uint_eq(field_elements(w, o, got, &corners), 1);
    ck_assert(memcmp(got, t + 4 * 5, 4 * sizeof *t) == 0);
    /* removing the last one removes the field */
    ck_assert_int_eq(pf_world_remove_elements(w, f, (const uint32_t[]){0}, 1), PF_OK);
    ck_assert_uint_eq(w->obj.v[o.index]->ff.n, 0);
    ck_assert_int_eq(pf_world_remove_elements(w, f, (const uint32_t[]){0}, 1), PF_EINVAL);
    expect_message("pf_world_remove_elements", "was removed");
    ck_assert_int_eq(pf_world_step(w, 2), PF_OK);
    pf_world_destroy(w);
    free(x);
}
END_TEST

/* ---- forces after a removal = forces of the elements left ---- */

typedef int (*add_fn)(pf_world *w, pf_object_id o, const uint32_t *elems, uint32_t m, int variant,
                      pf_force_field_id *out);

static int add_tetra(pf_world *w, pf_object_id o, const uint32_t *elems, uint32_t m, int method,
                     pf_force_field_id *out)
{
    pf_tetra_fem_def d = pf_tetra_fem_default_def();
    d.method = (pf_fem_method)method;
    d.young_modulus = 3000, d.poisson_ratio = 0.3;
    d.tetrahedra = elems, d.ntetrahedra = m;
    return pf_world_add_tetra_fem(w, o, &d, out);
}

static int add_hexa(pf_world *w, pf_object_id o, const uint32_t *elems, uint32_t m, int method,
                    pf_force_field_id *out)
{
    pf_hexa_fem_def d = pf_hexa_fem_default_def();
    d.method = (pf_fem_method)method;
    d.hexahedra = elems, d.nhexahedra = m;
    return pf_world_add_hexa_fem(w, o, &d, out);
}

static int add_triangle_fem(pf_world *w, pf_object_id o, const uint32_t *elems, uint32_t m, int method,
                            pf_force_field_id *out)
{
    pf_triangle_fem_def d = pf_triangle_fem_default_def();
    d.method = (pf_fem_method)method;
    d.triangles = elems, d.ntriangles = m;
    return pf_world_add_triangle_fem(w, o, &d, out);
}

static int add_biquadratic(pf_world *w, pf_object_id o, const uint32_t *elems, uint32_t m, int quadratic,
                           pf_force_field_id *out)
{
    pf_biquadratic_springs_def d = pf_biquadratic_springs_default_def();
    d.quadratic = quadratic;
    d.triangles = elems, d.ntriangles = m;
    return pf_world_add_biquadratic_springs(w, o, &d, out);
}

static int add_tensor_mass(pf_world *w, pf_object_id o, const uint32_t *elems, uint32_t m, int variant,
                           pf_force_field_id *out)
{
    (void)variant;
    pf_tensor_mass_def d = pf_tensor_mass_default_def();
    d.triangles = elems, d.ntriangles = m;
    return pf_world_add_tensor_mass(w, o, &d, out);
}

/* springs along the elements' pairs (a, b): stiffness and rest length from the pair, so that each differs */
static int add_springs(pf_world *w, pf_object_id o, const uint32_t *elems, uint32_t m, int variant,
                       pf_force_field_id *out)
{
    (void)variant;
    pf_spring *s = malloc(m * sizeof *s);
    for (uint32_t k = 0; k < m; k++)
        s[k] = (pf_spring){elems[2 * k], elems[2 * k + 1], 100.0 + elems[2 * k] + 0.5 * elems[2 * k + 1], 0.5, -1};
    int rc = pf_world_add_springs(w, o, s, m, out);
    free(s);
    return rc;
}

/* One field of m elements on points x, elements rm removed; a second world holds the elements left in SOFA's
 * order. Their forces and stiffness products at shaken positions are bitwise equal. */
static void check_same_forces(const double *x, uint32_t np, const uint32_t *elems, uint32_t m, uint32_t corners,
                              add_fn add, int variant, const uint32_t *rm, uint32_t nrm)
{
    pf_world *a = new_world(PF_EXEC_SEQ, 1), *b = new_world(PF_EXEC_SEQ, 1);
    pf_object_id oa = add_point_object(a, x, np, 1.0), ob = add_point_object(b, x, np, 1.0);
    pf_force_field_id fa;
    ck_assert_int_eq(add(a, oa, elems, m, variant, &fa), PF_OK);
    ck_assert_int_eq(pf_world_remove_elements(a, fa, rm, nrm), PF_OK);
    uint32_t *left = malloc((size_t)m * corners * sizeof *left);
    memcpy(left, elems, (size_t)m * corners * sizeof *left);
    uint32_t ml = sofa_remove(left, m, corners, rm, nrm);
    ck_assert_int_eq(add(b, ob, left, ml, variant, NULL), PF_OK);
    double *y = shaken(x, np, 0.08), *dx = shaken(x, np, 1.0);
    double *fa_ = malloc(3 * (size_t)np * sizeof *fa_), *fb = malloc(3 * (size_t)np * sizeof *fb);
    force_at(a, oa, y, fa_);
    force_at(b, ob, y, fb);
    double norm = 0;
    for (uint32_t i = 0; i < 3 * np; i++) norm += fabs(fa_[i]);
    ck_assert_msg(norm > 0, "the field left gives no force: the check would prove nothing");
    ck_assert_msg(memcmp(fa_, fb, 3 * (size_t)np * sizeof *fb) == 0, "forces differ (variant %d)", variant);
    dforce_of(a, oa, dx, fa_);
    dforce_of(b, ob, dx, fb);
    ck_assert_msg(memcmp(fa_, fb, 3 * (size_t)np * sizeof *fb) == 0, "df differ (variant %d)", variant);
    /* and once more, after a step: removing again from the renumbered field */
    ck_assert_int_eq(pf_world_step(a, 1), PF_OK);
    const uint32_t again[2] = {0, ml - 1};
    ck_assert_int_eq(pf_world_remove_elements(a, fa, again, 2), PF_OK);
    ml = sofa_remove(left, ml, corners, again, 2);
    pf_world *c = new_world(PF_EXEC_SEQ, 1);
    pf_object_id oc = add_point_object(c, x, np, 1.0);
    ck_assert_int_eq(add(c, oc, left, ml, variant, NULL), PF_OK);
    force_at(a, oa, y, fa_);
    force_at(c, oc, y, fb);
    ck_assert_msg(memcmp(fa_, fb, 3 * (size_t)np * sizeof *fb) == 0, "forces differ after 2 removals");
    free(y), free(dx), free(fa_), free(fb), free(left);
    pf_world_destroy(a), pf_world_destroy(b), pf_world_destroy(c);
}

static const uint32_t RM[5] = {7, 0, 12, 3, 13}; /* unsorted, the last element among them */

START_TEST(tetra_forces_as_without_the_elements)
{
    double *x = grid_points(3, 2, 3, 0.5);
    uint32_t t[24 * 4];
    uint32_t m = kuhn_tetrahedra(3, 2, 3, t);
    ck_assert_uint_eq(m, 24);
    for (int method = 0; method < 4; method++)
        check_same_forces(x, 18, t, m, 4, add_tetra, method, (const uint32_t[]){7, 0, 12, 3, 23}, 5);
    free(x);
}
END_TEST

START_TEST(hexa_forces_as_without_the_elements)
{
    double *x = grid_points(4, 3, 3, 0.5);
    uint32_t h[12 * 8], m = 0;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 3; i++, m++) {
                static const int c[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                            {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
                for (int q = 0; q < 8; q++)
                    h[8 * m + (uint32_t)q] = (uint32_t)((i + c[q][0]) + 4 * ((j + c[q][1]) + 3 * (k + c[q][2])));
            }
    for (int method = 0; method < 4; method++)
        check_same_forces(x, 36, h, m, 8, add_hexa, method, (const uint32_t[]){7, 0, 11, 3}, 4);
    free(x);
}
END_TEST

/* a sheet of 5 x 4 points in z = 0, two triangles a cell: 24 triangles */
static uint32_t sheet(double **x, uint32_t *t)
{
    *x = grid_points(5, 4, 1, 0.3);
    uint32_t m = 0;
    for (uint32_t j = 0; j < 3; j++)
        for (uint32_t i = 0; i < 4; i++) {
            uint32_t p = i + 5 * j;
            uint32_t tri[6] = {p, p + 1, p + 6, p, p + 6, p + 5};
            memcpy(t + 3 * m, tri, sizeof tri);
            m += 2;
        }
    return m;
}

START_TEST(triangle_kinds_as_without_the_elements)
{
    double *x;
    uint32_t t[24 * 3];
    uint32_t m = sheet(&x, t);
    ck_assert_uint_eq(m, 24);
    check_same_forces(x, 20, t, m, 3, add_triangle_fem, PF_FEM_LARGE, RM, 5);
    check_same_forces(x, 20, t, m, 3, add_triangle_fem, PF_FEM_LINEAR, RM, 5);
    check_same_forces(x, 20, t, m, 3, add_biquadratic, 0, RM, 5);
    check_same_forces(x, 20, t, m, 3, add_biquadratic, 1, RM, 5);
    check_same_forces(x, 20, t, m, 3, add_tensor_mass, 0, RM, 5);
    free(x);
}
END_TEST

START_TEST(springs_as_without_the_edges)
{
    double *x;
    uint32_t t[24 * 3], e[31 * 2], m = 0;
    sheet(&x, t);
    for (uint32_t j = 0; j < 4; j++) /* the grid's edges along x, then along y */
        for (uint32_t i = 0; i + 1 < 5; i++, m++) e[2 * m] = i + 5 * j, e[2 * m + 1] = i + 1 + 5 * j;
    for (uint32_t j = 0; j + 1 < 4; j++)
        for (uint32_t i = 0; i < 5; i++, m++) e[2 * m] = i + 5 * j, e[2 * m + 1] = i + 5 * (j + 1);
    ck_assert_uint_eq(m, 31);
    check_same_forces(x, 20, e, m, 2, add_springs, 0, (const uint32_t[]){30, 4, 17, 0}, 4);
    free(x);
}
END_TEST

/* ---- across a step: blocks cut anew, every executor the same ---- */

typedef struct removal_at {
    pf_force_field_id ff;
    uint32_t calls, at; /* removes at the call numbered `at` (0: the first step's) */
    const uint32_t *rm;
    uint32_t nrm;
    double times[16];
} removal_at;

static int remove_hook(pf_world *w, double time, void *ctx)
{
    removal_at *r = ctx;
    if (r->calls < 16) r->times[r->calls] = time;
    int rc = r->calls == r->at ? pf_world_remove_elements(w, r->ff, r->rm, r->nrm) : PF_OK;
    r->calls++;
    return rc;
}

/* a bar of tetrahedra, its x = 0 end fixed, sagging under gravity, cut into blocks of 12 elements */
static pf_object_id bar(pf_world *w, const double *x, const uint32_t *t, uint32_t m, pf_force_field_id *ff)
{
    pf_object_def od = pf_object_default_def();
    od.points = 6 * 3 * 3;
    od.positions = x;
    od.decompose = getenv("DBG_OFF") ? PF_DECOMPOSE_OFF : PF_DECOMPOSE_ON;
    od.block_elements = 12;
    pf_object_id o;
    ck_assert_int_eq(pf_world_add_object(w, &od, &o), PF_OK);
    ck_assert_int_eq(add_tetra(w, o, t, m, PF_FEM_LARGE, ff), PF_OK);
    for (uint32_t p = 0; p < od.points; p += 6) ck_assert_int_eq(pf_world_fix_points(w, o, &p, 1), PF_OK);
    return o;
}

static uint64_t run_with_removal(pf_executor e, int workers, const double *x, const uint32_t *t, uint32_t m,
                                 const uint32_t *rm, uint32_t nrm, double *state, removal_at *r)
{
    pf_world *w = new_world(e, workers);
    *r = (removal_at){.at = 3, .rm = rm, .nrm = nrm};
    pf_object_id o = bar(w, x, t, m, &r->ff);
    ck_assert_int_eq(pf_world_set_step_hook(w, remove_hook, r), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 3), PF_OK);
    ck_assert_int_eq(w->obj.v[o.index]->in_blocks, 1);
    ck_assert_uint_eq(w->obj.v[o.index]->decomp->elements, m);
    uint32_t np = 0;
    const double *px = pf_world_positions(w, o, &np);
    ck_assert_uint_eq(np, 54);
    memcpy(state, px, 3 * (size_t)np * sizeof *state);
    memcpy(state + 3 * np, pf_world_velocities(w, o, NULL), 3 * (size_t)np * sizeof *state);
    ck_assert_int_eq(pf_world_step(w, 5), PF_OK);
    /* the blocks are those of the elements left */
    ck_assert_int_eq(w->obj.v[o.index]->in_blocks, 1);
    ck_assert_uint_eq(w->obj.v[o.index]->decomp->elements, m - nrm);
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(step_across_a_removal)
{
    double *x = grid_points(6, 3, 3, 0.25);
    uint32_t t[120 * 4];
    uint32_t m = kuhn_tetrahedra(6, 3, 3, t);
    ck_assert_uint_eq(m, 120);
    const uint32_t rm[6] = {119, 2, 40, 77, 33, 8};
    double *state = malloc(2 * 3 * 54 * sizeof *state);
    removal_at r;
    uint64_t seq = run_with_removal(PF_EXEC_SEQ, 1, x, t, m, rm, 6, state, &r);
    /* the hook saw each step's start time: the sum of the dt */
    ck_assert_uint_eq(r.calls, 8);
    double sum = 0;
    for (int k = 0; k < 8; k++, sum += 0.01) ck_assert(r.times[k] == sum);
    /* the oracle: a world built from the elements left, in SOFA's order, from the state before the removal */
    uint32_t *left = malloc(sizeof t);
    memcpy(left, t, sizeof t);
    uint32_t ml = sofa_remove(left, m, 4, rm, 6);
    pf_world *b = new_world(PF_EXEC_SEQ, 1);
    pf_force_field_id fb;
    pf_object_id ob = bar(b, x, left, ml, &fb);
    ck_assert_int_eq(pf_world_set_state(b, ob, state, state + 3 * 54), PF_OK);
    ck_assert_int_eq(pf_world_step(b, 5), PF_OK);
    ck_assert_int_eq(b->obj.v[ob.index]->in_blocks, 1);
    ck_assert_uint_eq(seq, pf_world_state_hash(b));
    /* the removal changed the motion: the hash is not the one of a run without it */
    pf_world *c = new_world(PF_EXEC_SEQ, 1);
    pf_force_field_id fc;
    bar(c, x, t, m, &fc);
    ck_assert_int_eq(pf_world_step(c, 8), PF_OK);
    ck_assert_uint_ne(seq, pf_world_state_hash(c));
    /* every executor the same */
    ck_assert_uint_eq(run_with_removal(PF_EXEC_STATIC, 2, x, t, m, rm, 6, state, &r), seq);
    pf_world_destroy(b), pf_world_destroy(c);
    free(left), free(state), free(x);
}
END_TEST

/* ---- the hook ---- */

static int fail_hook(pf_world *w, double time, void *ctx)
{
    (void)time;
    int *calls = ctx;
    ++*calls;
    /* inside the hook the world may change, not step */
    if (pf_world_step(w, 1) != PF_ESTATE) return -99;
    return *calls == 2 ? PF_EINVAL : PF_OK;
}

START_TEST(hook_aborts_and_clears)
{
    double *x = grid_points(2, 2, 2, 1.0);
    pf_world *w = new_world(PF_EXEC_SEQ, 1);
    pf_object_id o = add_point_object(w, x, 8, 1.0);
    int calls = 0;
    ck_assert_int_eq(pf_world_set_step_hook(w, fail_hook, &calls), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    const double z1 = pf_world_positions(w, o, NULL)[2];
    /* the second call fails: the step is not run, its state unchanged */
    ck_assert_int_eq(pf_world_step(w, 3), PF_EINVAL);
    ck_assert_int_eq(calls, 2);
    ck_assert(pf_world_positions(w, o, NULL)[2] == z1);
    ck_assert_int_eq(pf_world_step(w, 1), PF_OK); /* the third call passes */
    ck_assert_int_eq(calls, 3);
    ck_assert(pf_world_positions(w, o, NULL)[2] < z1);
    /* cleared: no more calls */
    ck_assert_int_eq(pf_world_set_step_hook(w, NULL, &calls), PF_OK);
    ck_assert_int_eq(pf_world_step(w, 2), PF_OK);
    ck_assert_int_eq(calls, 3);
    pf_world_destroy(w);
    free(x);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("physics_removal_elements");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, renumbering_by_hand);
    tcase_add_test(tc, tetra_forces_as_without_the_elements);
    tcase_add_test(tc, hexa_forces_as_without_the_elements);
    tcase_add_test(tc, triangle_kinds_as_without_the_elements);
    tcase_add_test(tc, springs_as_without_the_edges);
    tcase_add_test(tc, step_across_a_removal);
    tcase_add_test(tc, hook_aborts_and_clears);
    suite_add_tcase(s, tc);
    return s;
}
