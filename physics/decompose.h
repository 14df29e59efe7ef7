/* One large object cut into blocks of elements (Hermann et al. 2009 §4.3, domain decomposition), so that its
 * force, matrix-vector and vector work spreads over workers like that of many small objects.
 *
 * The elements of its force fields are split into blocks of about `block_elements`: contiguous ranges of their
 * numbers when the mesh numbers them coherently (a regular grid, most mesh files: each block's elements then sit
 * together in memory, which matters more than its shared points, measured on the beam: 38.7 ms a step on one
 * worker against 41.0 with bisection, 37.3 for the whole object), else a recursive coordinate bisection of their
 * centroids (compact blocks, few shared points). The split depends on the mesh and the block size only, never on
 * the worker count. Each point is owned by the lowest block whose elements touch it (a
 * point no element touches by a block chosen from its index). A block's elements add their contributions into
 * the block's rows of a part buffer (rows: the points they touch); each point then sums, in block order, the
 * rows of every block that touches it, on top of its own term (its weight, its mass times p). That order, and the
 * dot products summed per block in block order, are the decomposed object's canonical order: the same for every
 * worker count, executor and partitioner, and the same when all blocks run in one task. Shared points are never
 * duplicated: there is one state, and the blocks only read their neighbours' points.
 *
 * The runtime sees each block as an object (its data have an owner of their own), so it places and repartitions
 * blocks as it does objects. */
#ifndef PF_PHYSICS_DECOMPOSE_H
#define PF_PHYSICS_DECOMPOSE_H

#include "force_field.h"
#include "world.h"

/* Blocks are at most this many per object, and read at most this many neighbours (a task's accesses are bounded:
 * a mesh whose blocks have more neighbours is not decomposed). */
#define PF_BLOCKS_MAX 4096
#define PF_BLOCK_NEIGHBOURS_MAX 28
/* The default block holds elements whose stiffness products cost, by the kinds' estimates, what 512 hexahedra's
 * do (about 1,400 tetrahedra, 2,600 triangles, 34,000 springs): few enough blocks that their tasks cost far more
 * than their scheduling, enough for 16 workers on SOFA's 16,875-hexahedron beam benchmark. A field without
 * stiffness: blocks of PF_BLOCK_ELEMENTS_DEFAULT. */
#define PF_BLOCK_COST (512 * 400.0)
#define PF_BLOCK_ELEMENTS_DEFAULT 512
/* PF_DECOMPOSE_AUTO cuts an object into blocks from this many blocks' worth of elements on (2,048 hexahedra,
 * about 5,600 tetrahedra: some 5 ms a step on one core, so a 64 x 8 x 8 beam or a liver of a few thousand
 * tetrahedra spreads over 4 workers); below, one task per phase costs little, and scenes of many such objects
 * spread by object already. */
#define PF_BLOCKS_AUTO 4

typedef struct pf_block {
    uint32_t owner;            /* its owner id in the graph: the runtime places and moves it as an object */
    pf_elem_range *range;      /* per force field of the object, its elements in this block and their rows */
    uint32_t *owned, nowned;   /* the points it owns, increasing: its share of every vector */
    uint32_t *runs, nruns;     /* the same as runs of consecutive points: [runs[2j], runs[2j+1]) */
    uint32_t row0, nrows;      /* its rows in the part buffers: the points its elements touch */
    uint32_t *nbr, nnbr;       /* the blocks owning the points its elements touch (whose x, v, p it reads) */
    uint32_t *src, nsrc;       /* the blocks whose rows add into its points (the same relation, reversed) */
    uint32_t fault;            /* 0, or 1 + its first point whose new state is bad (its integrate task sets it) */
    pf_data_id dx, dv_, df, ddv, db, dr, dp, dq; /* its share of the object's vectors */
    pf_data_id dpf, dpk;                          /* its rows of the force and stiffness part buffers */
    pf_data_id *dcache;                           /* per force field with a cache: its elements' part */
} pf_block;

/* How the elements were split: contiguous ranges of the elements' numbers (fields in order), or recursive
 * coordinate bisection of their centroids */
typedef enum pf_split { PF_SPLIT_RANGES = 0, PF_SPLIT_BISECT } pf_split;

typedef struct pf_decomp {
    pf_split split;
    uint32_t nblocks, nfields, block_elements, elements;
    uint32_t *field_uid;  /* the fields it was built for, in order: rebuilt when they change */
    pf_block *b;
    double *pf, *pk;      /* part buffers, 3 values a row: force contributions, stiffness products */
    uint32_t nrows;
    uint32_t *gptr, *grow; /* point i sums the rows grow[gptr[i] .. gptr[i+1]), in block order */
    uint32_t *owner;      /* per point, the block owning it (pf_point_filter: the links a block gathers) */
    int reads_v;          /* some field's force reads v (springs' damping) */
    int registered;       /* its data are registered in the world's graph */
} pf_decomp;

/* o's blocks as its definition asks (pf_object_def.decompose): built or rebuilt when its force fields changed,
 * kept otherwise. *out NULL: the object runs whole (too small, off, a field without elements, blocks with too
 * many neighbours). */
int pf_decomp_update(pf_world *w, pf_object *o, pf_decomp **out);
/* registers the blocks' data in w's graph (once; pf_decomp_forget after the graph was dropped) */
int pf_decomp_register(pf_graph *g, const pf_object *o, pf_decomp *d);
void pf_decomp_forget(pf_decomp *d);
void pf_decomp_free(pf_decomp *d);
/* the first bad point over the blocks' integrations (as pf_object.fault), the blocks' flags cleared */
uint32_t pf_decomp_take_fault(pf_decomp *d);
/* Appends to acc what a task that reads or writes o's vector does: the datum `whole` (o->dx, o->dp, ...) when o
 * runs whole, else the same vector's datum of every block (`member`: its offsetof in pf_block; the blocks'
 * views cover the vector). PF_EINVAL when they do not fit in PF_MAX_ACCESSES. */
int pf_decomp_accesses(const pf_object *o, size_t member, pf_data_id whole, pf_access_mode mode, pf_access *acc,
                       uint32_t *na);

#endif
