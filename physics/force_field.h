/* Force fields of one object (Hermann et al. 2009, §3.1, figure 2's "internal force") as kinds behind one set of
 * operations: the solvers record and run them through the functions below, never by model. A kind is one file
 * (its model, its pf_force_field_ops and the public call that adds it) plus one entry in pf_force_field_kinds
 * (force_field.c). */
#ifndef PF_PHYSICS_FORCE_FIELD_H
#define PF_PHYSICS_FORCE_FIELD_H

#include "world.h"

struct pf_blocks;

/* Some of a field's elements, for the blocks of a decomposed object (decompose.h, Hermann et al. 2009 §4.3):
 * `elems` lists them in increasing order (NULL: elements first .. first+n-1) and `rows` gives, per element and
 * corner, the row of the output its contribution adds into (NULL: the corner's point less row_shift, modulo
 * 2^32: a block whose points are a span of the numbering has its rows in the same order and needs no list).
 * Inputs are read at the points. The whole object is {NULL, n, NULL} (first and row_shift 0). */
typedef struct pf_elem_range {
    const uint32_t *elems;
    uint32_t n;
    const uint32_t *rows;
    uint32_t first, row_shift;
} pf_elem_range;

/* element k of r */
static inline uint32_t pf_range_elem(const pf_elem_range *r, uint32_t k)
{
    return r->elems ? r->elems[k] : r->first + k;
}

/* the output rows of element k of r, whose `corners` points are `nodes`: from r's list, or computed into buf */
static inline const uint32_t *pf_range_rows(const pf_elem_range *r, uint32_t k, const uint32_t *nodes,
                                            uint32_t corners, uint32_t *buf)
{
    if (r->rows) return r->rows + (size_t)k * corners;
    if (!r->row_shift) return nodes;
    for (uint32_t c = 0; c < corners; c++) buf[c] = nodes[c] - r->row_shift;
    return buf;
}

/* What a force field does. `o` is the object it acts on; x, v, f, dx, df hold its 3n values. */
typedef struct pf_force_field_ops {
    const char *name; /* in messages: "object 3: its <name> force is not finite" */
    /* f += the field's force at (x, v); when want_jac it also refreshes the cache that dforce reads */
    void (*force)(const pf_force_field *ff, const pf_object *o, const double *x, const double *v, double *f,
                  int want_jac);
    /* df += kfact K dx, K = df/dx from the latest force evaluation with want_jac; NULL: no stiffness */
    void (*dforce)(const pf_force_field *ff, const pf_object *o, const double *dx, double *df, double kfact);
    /* registers the field's cache in the graph as ff->dcache, owned by object `owner`; NULL: no cache */
    int (*register_data)(pf_graph *g, pf_force_field *ff, uint32_t owner);
    /* estimated ns of one force / one dforce evaluation, until the runtime has measured them; df_cost NULL: 0 */
    double (*cost)(const pf_force_field *ff);
    double (*df_cost)(const pf_force_field *ff);
    /* kfact K (k->kfact; K as of the latest force evaluation with want_jac) into k as 3x3 blocks, o's point p
     * numbered base + p (assembly.h); NULL: not assembled, the group is solved by CG */
    void (*assemble)(const pf_force_field *ff, const pf_object *o, uint32_t base, struct pf_blocks *k);
    /* The field as elements, which blocks cut (all NULL: it acts on points or the whole object, and an object
     * carrying it is not decomposed). elements: how many, and their corners (the same for all); element: the
     * points of element e; force_range / dforce_range: force and dforce of r's elements only, into out's rows
     * (r->rows), the same arithmetic per element as force / dforce; register_range: the part of the cache that
     * r's elements write (NULL: no cache) as a datum of `owner`. */
    uint32_t (*elements)(const pf_force_field *ff, uint32_t *corners);
    void (*element)(const pf_force_field *ff, uint32_t e, uint32_t *nodes);
    void (*force_range)(const pf_force_field *ff, const pf_object *o, const double *x, const double *v, double *out,
                        int want_jac, const pf_elem_range *r);
    void (*dforce_range)(const pf_force_field *ff, const pf_object *o, const double *dx, double *out, double kfact,
                         const pf_elem_range *r);
    int (*register_range)(pf_graph *g, const pf_force_field *ff, const pf_elem_range *r, uint32_t owner,
                          pf_data_id *out);
    /* removes the elements desc[0 .. n) (distinct, decreasing, fewer than all): each removed slot takes the
     * field's last element, as SOFA's topology modifiers renumber (pf_world_remove_elements); NULL: its elements
     * cannot be removed */
    void (*remove_elements)(pf_force_field *ff, const uint32_t *desc, uint32_t n);
    /* 1 when dforce reads the object's positions (a host callback gets them): df tasks then read x */
    int df_reads_x;
    /* frees the kind's state */
    void (*destroy)(void *state);
} pf_force_field_ops;

/* The kinds (pf_force_field.kind indexes this table). Their order is the order in which an object's force task
 * adds them into f (gravity first): results are bitwise reproducible only as long as it stays. */
enum {
    PF_FORCE_SPRINGS = 0,
    PF_FORCE_HEXA_FEM,
    PF_FORCE_TETRA_FEM,
    PF_FORCE_TRIANGLE_FEM,
    PF_FORCE_BIQUADRATIC_SPRINGS,
    PF_FORCE_TENSOR_MASS,
    PF_FORCE_BENDING_VECTORS,
    PF_FORCE_REST_SHAPE,
    PF_FORCE_POLYNOMIAL_SPRINGS,
    PF_FORCE_CONSTANT,
    PF_FORCE_CUSTOM,
    PF_FORCE_HYPERELASTIC,
    PF_FORCE_KINDS
};
extern const pf_force_field_ops *const pf_force_field_kinds[PF_FORCE_KINDS];

/* The kinds' operations, defined in their own files. */
extern const pf_force_field_ops pf_springs_force_field, pf_hexa_fem_force_field, pf_tetra_fem_force_field,
    pf_triangle_fem_force_field, pf_biquadratic_springs_force_field, pf_tensor_mass_force_field,
    pf_bending_vector_force_field, pf_rest_shape_force_field, pf_polynomial_springs_force_field,
    pf_constant_force_field, pf_custom_force_field, pf_hyperelastic_force_field;

/* f += every force field of o at (x, v), in kind order */
void pf_force_fields_force(const pf_object *o, const double *x, const double *v, double *f, int want_jac);
/* df += kfact K dx over o's force fields */
void pf_force_fields_dforce(const pf_object *o, const double *dx, double *df, double kfact);
/* estimated ns of o's force fields' force evaluations, of their dforce evaluations */
double pf_force_fields_cost(const pf_object *o, double base);
double pf_force_fields_df_cost(const pf_object *o, double base);
/* 1 when some field's dforce reads o's positions */
int pf_force_fields_df_reads_x(const pf_object *o);
/* how many of o's fields have a cache; appends their caches' accesses (mode) to acc while they fit */
uint32_t pf_force_fields_caches(const pf_object *o);
uint32_t pf_force_fields_cache_accesses(const pf_object *o, pf_access_mode mode, pf_access *acc, uint32_t na);
/* registers the caches of o's fields not yet registered; forget: marks them all unregistered (graph dropped) */
int pf_force_fields_register(pf_graph *g, pf_object *o);
void pf_force_fields_forget(pf_object *o);
/* the name of o's first field whose force at o's state is not finite, or NULL; scratch: 3n doubles */
const char *pf_force_fields_not_finite(const pf_object *o, double *scratch);
/* registers the span of a per-element cache (`stride` doubles an element) from r's first element to its last */
int pf_register_element_span(pf_graph *g, double *cache, size_t stride, const pf_elem_range *r, uint32_t owner,
                             pf_data_id *out);
/* An array of `count` items of `size` bytes without the items desc[0 .. n) (distinct, decreasing): each removed
 * slot takes the array's last item (force_field_span.c); the kinds' remove_elements call it on each per-element array. */
void pf_remove_slots(void *base, size_t size, uint32_t count, const uint32_t *desc, uint32_t n);
/* frees one field's state (a field removed from its object); destroy: every field of o, and its list */
void pf_force_field_free(pf_force_field *ff);
void pf_force_fields_destroy(pf_object *o);

#endif
