/* Blocks of a large object (decompose.h): the split of its elements, the points each block owns, the rows its
 * elements add into and the order in which the points gather them. */
#include "decompose.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- recursive coordinate bisection of the element centroids ---- */

typedef struct keyed {
    double key;
    uint32_t elem;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->elem > y->elem) - (x->elem < y->elem); /* ties by element: the same split on every machine */
}

/* elements idx[0..n) into blocks first .. first+parts-1, about n / parts each: cut across the longest side of
 * their centroids' box at the count that gives each half its share of blocks */
static void bisect(const double *cent, uint32_t *idx, keyed *scratch, uint32_t n, uint32_t parts, uint32_t first,
                   uint32_t *block)
{
    if (parts == 1) {
        for (uint32_t k = 0; k < n; k++) block[idx[k]] = first;
        return;
    }
    double lo[3], hi[3];
    for (int d = 0; d < 3; d++) lo[d] = hi[d] = cent[3 * (size_t)idx[0] + d];
    for (uint32_t k = 1; k < n; k++)
        for (int d = 0; d < 3; d++) {
            double c = cent[3 * (size_t)idx[k] + d];
            if (c < lo[d]) lo[d] = c;
            if (c > hi[d]) hi[d] = c;
        }
    int axis = 0;
    for (int d = 1; d < 3; d++)
        if (hi[d] - lo[d] > hi[axis] - lo[axis]) axis = d;
    for (uint32_t k = 0; k < n; k++) scratch[k] = (keyed){cent[3 * (size_t)idx[k] + axis], idx[k]};
    qsort(scratch, n, sizeof *scratch, by_key);
    for (uint32_t k = 0; k < n; k++) idx[k] = scratch[k].elem;
    uint32_t left = parts / 2, nleft = (uint32_t)(((uint64_t)n * left + parts / 2) / parts);
    bisect(cent, idx, scratch, nleft, left, first, block);
    bisect(cent, idx + nleft, scratch, n - nleft, parts - left, first + left, block);
}

/* ---- the element view of the object's fields ---- */

static const pf_force_field_ops *ops(const pf_force_field *ff)
{
    return pf_force_field_kinds[ff->kind];
}

/* elements over all fields (field order, then each field's own), 0 when some field has no element view */
static uint32_t count_elements(const pf_object *o, int *cuttable)
{
    uint64_t total = 0;
    *cuttable = o->kind == PF_OBJECT_POINTS && o->ff.n > 0;
    for (uint32_t f = 0; f < o->ff.n; f++) {
        uint32_t corners;
        if (!ops(&o->ff.v[f])->elements) *cuttable = 0;
        else total += ops(&o->ff.v[f])->elements(&o->ff.v[f], &corners);
    }
    if (total > UINT32_MAX) *cuttable = 0;
    return *cuttable ? (uint32_t)total : 0;
}

static void element_nodes(const pf_force_field *ff, uint32_t e, uint32_t *nodes, uint32_t *corners)
{
    ops(ff)->elements(ff, corners);
    ops(ff)->element(ff, e, nodes);
}

static void centroids(const pf_object *o, double *cent)
{
    size_t g = 0;
    for (uint32_t f = 0; f < o->ff.n; f++) {
        const pf_force_field *ff = &o->ff.v[f];
        uint32_t corners, ne = ops(ff)->elements(ff, &corners), nodes[8];
        for (uint32_t e = 0; e < ne; e++, g++) {
            element_nodes(ff, e, nodes, &corners);
            double c[3] = {0, 0, 0};
            for (uint32_t k = 0; k < corners; k++)
                for (int d = 0; d < 3; d++) c[d] += o->x[3 * (size_t)nodes[k] + d];
            for (int d = 0; d < 3; d++) cent[3 * g + d] = c[d] / corners;
        }
    }
}

/* ---- building ---- */

static int by_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void pf_decomp_free(pf_decomp *d)
{
    if (!d) return;
    for (uint32_t b = 0; d->b && b < d->nblocks; b++) {
        pf_block *k = &d->b[b];
        for (uint32_t f = 0; k->range && f < d->nfields; f++) {
            pf_free((void *)k->range[f].elems);
            pf_free((void *)k->range[f].rows);
        }
        pf_free(k->range);
        pf_free(k->owned);
        pf_free(k->runs);
        pf_free(k->nbr);
        pf_free(k->src);
        pf_free(k->dcache);
    }
    pf_free(d->b);
    pf_free(d->field_uid);
    pf_free(d->pf);
    pf_free(d->pk);
    pf_free(d->gptr);
    pf_free(d->grow);
    pf_free(d->owner);
    pf_free(d);
}

/* each block's elements per field, in increasing order */
static int fill_ranges(const pf_object *o, pf_decomp *d, const uint32_t *block)
{
    size_t g0 = 0;
    for (uint32_t f = 0; f < o->ff.n; f++) {
        const pf_force_field *ff = &o->ff.v[f];
        uint32_t corners, ne = ops(ff)->elements(ff, &corners);
        for (uint32_t e = 0; e < ne; e++) d->b[block[g0 + e]].range[f].n++;
        for (uint32_t b = 0; b < d->nblocks; b++) {
            pf_elem_range *r = &d->b[b].range[f];
            if (!r->n) continue;
            r->elems = pf_malloc(r->n * sizeof *r->elems);
            r->rows = pf_malloc((size_t)r->n * corners * sizeof *r->rows);
            if (!r->elems || !r->rows) return PF_ENOMEM;
            r->n = 0;
        }
        for (uint32_t e = 0; e < ne; e++) {
            pf_elem_range *r = &d->b[block[g0 + e]].range[f];
            ((uint32_t *)r->elems)[r->n++] = e;
        }
        g0 += ne;
    }
    return PF_OK;
}

/* A block whose touched points fill their span of the numbering but for a few holes (SPAN_HOLES of them per
 * point touched) gets one row per point of the span, holes included (rows no point gathers): its elements then
 * need no row list, each row being its point less a shift. */
#define SPAN_HOLES 0.05

/* the points a block's elements touch and, through mark (n entries, UINT32_MAX outside), each element corner's
 * row; touched then holds the point of each of the block's rows, increasing (UINT32_MAX: a hole of a span) */
typedef PF_VEC(uint32_t) u32_vec;

static int fill_rows(const pf_object *o, pf_decomp *d, uint32_t b, uint32_t *mark, u32_vec *touched)
{
    pf_block *k = &d->b[b];
    touched->n = 0;
    uint32_t nodes[8], corners;
    for (uint32_t f = 0; f < o->ff.n; f++)
        for (uint32_t j = 0; j < k->range[f].n; j++) {
            element_nodes(&o->ff.v[f], pf_range_elem(&k->range[f], j), nodes, &corners);
            for (uint32_t c = 0; c < corners; c++)
                if (mark[nodes[c]] == UINT32_MAX) {
                    mark[nodes[c]] = 0;
                    if (pf_vec_push(touched, nodes[c])) return PF_ENOMEM;
                }
        }
    /* rows in point order: a block's gathers and its neighbours' reads walk memory forwards */
    qsort(touched->v, touched->n, sizeof *touched->v, by_u32);
    size_t span = touched->n ? (size_t)touched->v[touched->n - 1] - touched->v[0] + 1 : 0;
    if (touched->n && span > touched->n && span <= touched->n * (1 + SPAN_HOLES)) { /* fill the holes */
        uint32_t first = touched->v[0], n = (uint32_t)touched->n;
        if (pf_vec_reserve(touched, span)) return PF_ENOMEM;
        for (uint32_t t = n; t-- > 0;) { /* spread the points to their places, from the end */
            uint32_t p = touched->v[t];
            touched->v[p - first] = p;
            if (t) /* the holes between this point and the previous one */
                for (uint32_t h = touched->v[t - 1] - first + 1; h < p - first; h++) touched->v[h] = UINT32_MAX;
        }
        touched->n = span;
    }
    k->row0 = d->nrows;
    k->nrows = (uint32_t)touched->n;
    for (uint32_t t = 0; t < touched->n; t++)
        if (touched->v[t] != UINT32_MAX) mark[touched->v[t]] = d->nrows + t;
    d->nrows += k->nrows;
    for (uint32_t f = 0; f < o->ff.n; f++)
        for (uint32_t j = 0; j < k->range[f].n; j++) {
            element_nodes(&o->ff.v[f], pf_range_elem(&k->range[f], j), nodes, &corners);
            for (uint32_t c = 0; c < corners; c++) ((uint32_t *)k->range[f].rows)[j * corners + c] = mark[nodes[c]];
        }
    for (uint32_t t = 0; t < touched->n; t++)
        if (touched->v[t] != UINT32_MAX) mark[touched->v[t]] = UINT32_MAX;
    if (touched->n && touched->v[touched->n - 1] - touched->v[0] + 1 == touched->n) /* a span: rows = points */
        for (uint32_t f = 0; f < o->ff.n; f++) {
            pf_elem_range *r = &k->range[f];
            pf_free((void *)r->rows);
            r->rows = NULL;
            r->row_shift = touched->v[0] - k->row0; /* modulo 2^32, as pf_range_rows subtracts it */
        }
    return PF_OK;
}

/* elements that are consecutive numbers need no list (the springs of a sheet: 4 bytes fewer per spring read) */
static void compact_elems(pf_decomp *d)
{
    for (uint32_t b = 0; b < d->nblocks; b++)
        for (uint32_t f = 0; f < d->nfields; f++) {
            pf_elem_range *r = &d->b[b].range[f];
            if (!r->n || r->elems[r->n - 1] - r->elems[0] + 1 != r->n) continue;
            r->first = r->elems[0];
            pf_free((void *)r->elems);
            r->elems = NULL;
        }
}

/* sorted, without repeats: v[0..n) -> v[0..return) */
static uint32_t unique(uint32_t *v, uint32_t n)
{
    qsort(v, n, sizeof *v, by_u32);
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++)
        if (m == 0 || v[m - 1] != v[k]) v[m++] = v[k];
    return m;
}

/* owner[i]: the lowest block touching point i (row_node: the point of each row, rows in block order); a point
 * no element touches goes to the block its index falls in */
static void owners(const pf_object *o, const pf_decomp *d, const uint32_t *row_node, uint32_t *owner)
{
    for (uint32_t i = 0; i < o->n; i++) owner[i] = UINT32_MAX;
    for (uint32_t b = d->nblocks; b-- > 0;)
        for (uint32_t r = d->b[b].row0; r < d->b[b].row0 + d->b[b].nrows; r++)
            if (row_node[r] != UINT32_MAX) owner[row_node[r]] = b;
    for (uint32_t i = 0; i < o->n; i++)
        if (owner[i] == UINT32_MAX) owner[i] = (uint32_t)((uint64_t)i * d->nblocks / o->n);
}

/* a block's points as runs of consecutive indices, for the loops that only walk vectors */
static int fill_runs(pf_block *k)
{
    k->runs = pf_malloc((2 * (size_t)k->nowned + 2) * sizeof *k->runs);
    if (!k->runs) return PF_ENOMEM;
    k->nruns = 0;
    for (uint32_t j = 0; j < k->nowned; j++) {
        if (k->nruns && k->runs[2 * k->nruns - 1] == k->owned[j]) {
            k->runs[2 * k->nruns - 1]++;
            continue;
        }
        k->runs[2 * k->nruns] = k->owned[j];
        k->runs[2 * k->nruns + 1] = k->owned[j] + 1;
        k->nruns++;
    }
    return PF_OK;
}

/* the points of each block, and the rows each point gathers (block order, since rows are) */
static int fill_owned_and_gather(const pf_object *o, pf_decomp *d, const uint32_t *row_node, const uint32_t *owner)
{
    for (uint32_t i = 0; i < o->n; i++) d->b[owner[i]].nowned++;
    for (uint32_t b = 0; b < d->nblocks; b++) {
        d->b[b].owned = pf_malloc(((size_t)d->b[b].nowned + 1) * sizeof *d->b[b].owned);
        if (!d->b[b].owned) return PF_ENOMEM;
        d->b[b].nowned = 0;
    }
    for (uint32_t i = 0; i < o->n; i++) d->b[owner[i]].owned[d->b[owner[i]].nowned++] = i;
    for (uint32_t b = 0; b < d->nblocks; b++) PF_TRY(fill_runs(&d->b[b]));
    d->gptr = pf_calloc((size_t)o->n + 1, sizeof *d->gptr);
    d->grow = pf_malloc(((size_t)d->nrows + 1) * sizeof *d->grow);
    if (!d->gptr || !d->grow) return PF_ENOMEM;
    for (uint32_t r = 0; r < d->nrows; r++)
        if (row_node[r] != UINT32_MAX) d->gptr[row_node[r] + 1]++;
    for (uint32_t i = 0; i < o->n; i++) d->gptr[i + 1] += d->gptr[i];
    uint32_t *at = pf_malloc(((size_t)o->n + 1) * sizeof *at);
    if (!at) return PF_ENOMEM;
    memcpy(at, d->gptr, (size_t)o->n * sizeof *at);
    for (uint32_t r = 0; r < d->nrows; r++)
        if (row_node[r] != UINT32_MAX) d->grow[at[row_node[r]]++] = r;
    pf_free(at);
    return PF_OK;
}

/* nbr: the owners of a block's rows; src: the blocks whose rows reach its points (nbr reversed). 0 when some
 * block has more than PF_BLOCK_NEIGHBOURS_MAX of either. */
static int fill_neighbours(pf_decomp *d, const uint32_t *row_node, const uint32_t *owner, int *fits)
{
    *fits = 1;
    for (uint32_t b = 0; b < d->nblocks; b++) {
        pf_block *k = &d->b[b];
        k->nbr = pf_malloc(((size_t)k->nrows + 1) * sizeof *k->nbr);
        if (!k->nbr) return PF_ENOMEM;
        uint32_t m = 0;
        for (uint32_t r = 0; r < k->nrows; r++)
            if (row_node[k->row0 + r] != UINT32_MAX) k->nbr[m++] = owner[row_node[k->row0 + r]];
        k->nnbr = unique(k->nbr, m);
        if (k->nnbr > PF_BLOCK_NEIGHBOURS_MAX) *fits = 0;
    }
    for (uint32_t b = 0; b < d->nblocks; b++)
        for (uint32_t j = 0; j < d->b[b].nnbr; j++) d->b[d->b[b].nbr[j]].nsrc++;
    for (uint32_t b = 0; b < d->nblocks; b++) {
        if (d->b[b].nsrc > PF_BLOCK_NEIGHBOURS_MAX) *fits = 0;
        d->b[b].src = pf_malloc(((size_t)d->b[b].nsrc + 1) * sizeof *d->b[b].src);
        if (!d->b[b].src) return PF_ENOMEM;
        d->b[b].nsrc = 0;
    }
    for (uint32_t b = 0; b < d->nblocks; b++) /* b increasing: each src list comes out in block order */
        for (uint32_t j = 0; j < d->b[b].nnbr; j++) {
            pf_block *t = &d->b[d->b[b].nbr[j]];
            t->src[t->nsrc++] = b;
        }
    return PF_OK;
}

/* the ranges split: block of element g (over all fields, in order) */
static inline uint32_t range_block(uint32_t g, uint32_t nelem, uint32_t nblocks)
{
    return (uint32_t)((uint64_t)g * nblocks / nelem);
}

/* the rows the ranges split would give (points touched, counted once per block): each point's blocks come in
 * increasing order, so remembering the last one counts them. last: o->n entries of scratch. */
static uint64_t range_rows(const pf_object *o, uint32_t nelem, uint32_t nblocks, uint32_t *last)
{
    for (uint32_t i = 0; i < o->n; i++) last[i] = UINT32_MAX;
    uint64_t rows = 0;
    uint32_t g = 0, nodes[8], corners;
    for (uint32_t f = 0; f < o->ff.n; f++) {
        uint32_t ne = ops(&o->ff.v[f])->elements(&o->ff.v[f], &corners);
        for (uint32_t e = 0; e < ne; e++, g++) {
            uint32_t b = range_block(g, nelem, nblocks);
            element_nodes(&o->ff.v[f], e, nodes, &corners);
            for (uint32_t c = 0; c < corners; c++)
                if (last[nodes[c]] != b) last[nodes[c]] = b, rows++;
        }
    }
    return rows;
}

static int build(const pf_object *o, uint32_t nelem, uint32_t nblocks, uint32_t block_elements, pf_decomp *d)
{
    d->nblocks = nblocks;
    d->nfields = (uint32_t)o->ff.n;
    d->block_elements = block_elements;
    d->elements = nelem;
    d->b = pf_calloc(nblocks, sizeof *d->b);
    d->field_uid = pf_malloc(d->nfields * sizeof *d->field_uid);
    double *cent = pf_malloc(3 * (size_t)nelem * sizeof *cent);
    uint32_t *idx = pf_malloc((size_t)nelem * sizeof *idx), *block = pf_malloc((size_t)nelem * sizeof *block);
    keyed *scratch = pf_malloc((size_t)nelem * sizeof *scratch);
    uint32_t *mark = pf_malloc((size_t)o->n * sizeof *mark), *owner = pf_malloc((size_t)o->n * sizeof *owner);
    u32_vec touched = {0}, row_node = {0};
    int rc = PF_ENOMEM, fits = 0;
    if (!d->b || !d->field_uid || !cent || !idx || !block || !scratch || !mark || !owner) goto done;
    for (uint32_t f = 0; f < d->nfields; f++) d->field_uid[f] = o->ff.v[f].uid;
    for (uint32_t b = 0; b < nblocks; b++) {
        d->b[b].range = pf_calloc(d->nfields, sizeof *d->b[b].range);
        d->b[b].dcache = pf_calloc(d->nfields, sizeof *d->b[b].dcache);
        if (!d->b[b].range || !d->b[b].dcache) goto done;
    }
    if (d->split == PF_SPLIT_BISECT) centroids(o, cent);
    for (uint32_t g = 0; g < nelem; g++) idx[g] = g;
    if (d->split == PF_SPLIT_RANGES)
        for (uint32_t g = 0; g < nelem; g++) block[g] = range_block(g, nelem, nblocks);
    else
        bisect(cent, idx, scratch, nelem, nblocks, 0, block);
    if (fill_ranges(o, d, block)) goto done;
    for (uint32_t i = 0; i < o->n; i++) mark[i] = UINT32_MAX;
    for (uint32_t b = 0; b < nblocks; b++) {
        if (fill_rows(o, d, b, mark, &touched)) goto done;
        if (pf_vec_reserve(&row_node, row_node.n + touched.n)) goto done;
        memcpy(row_node.v + row_node.n, touched.v, touched.n * sizeof *touched.v);
        row_node.n += touched.n;
    }
    owners(o, d, row_node.v, owner);
    if (fill_owned_and_gather(o, d, row_node.v, owner) || fill_neighbours(d, row_node.v, owner, &fits)) goto done;
    d->pf = pf_malloc(3 * (size_t)d->nrows * sizeof *d->pf);
    d->pk = pf_malloc(3 * (size_t)d->nrows * sizeof *d->pk);
    if (!d->pf || !d->pk) goto done;
    for (uint32_t f = 0; f < d->nfields; f++) d->reads_v |= o->ff.v[f].kind == PF_FORCE_SPRINGS;
    compact_elems(d);
    d->owner = owner;
    owner = NULL;
    rc = fits ? PF_OK : PF_EINVAL; /* EINVAL: too many neighbours, the object runs whole */
done:
    pf_free(cent);
    pf_free(idx);
    pf_free(block);
    pf_free(scratch);
    pf_free(mark);
    pf_free(owner);
    pf_vec_free(&touched);
    pf_vec_free(&row_node);
    return rc;
}

/* the blocks o asks for: 0 (run whole) or how many */
/* the default block size: elements worth PF_BLOCK_COST of stiffness products by the kinds' estimates (fixed
 * numbers, so the blocks stay the same on every machine) */
static uint32_t default_block_elements(const pf_object *o, uint32_t nelem)
{
    double cost = pf_force_fields_df_cost(o, 0.0);
    if (!(cost > 0)) return PF_BLOCK_ELEMENTS_DEFAULT;
    double be = ceil(PF_BLOCK_COST * nelem / cost);
    return be < 1 ? 1 : be > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)be;
}

static uint32_t wanted_blocks(const pf_object *o, uint32_t nelem, uint32_t *block_elements)
{
    uint32_t be = o->block_elements ? o->block_elements : default_block_elements(o, nelem);
    if (nelem / be >= PF_BLOCKS_MAX) be = nelem / (PF_BLOCKS_MAX - 1) + 1;
    *block_elements = be;
    uint32_t nb = (uint32_t)(((uint64_t)nelem + be - 1) / be);
    if (o->decompose == PF_DECOMPOSE_OFF || o->id >= (1u << 19)) return 0;
    if (o->decompose == PF_DECOMPOSE_AUTO && nb < PF_BLOCKS_AUTO) return 0; /* small: cheap as one task */
    return nb >= 2 ? nb : 0;
}

static int same_fields(const pf_object *o, const pf_decomp *d)
{
    if (d->nfields != o->ff.n) return 0;
    for (uint32_t f = 0; f < d->nfields; f++)
        if (d->field_uid[f] != o->ff.v[f].uid) return 0;
    return 1;
}

/* The split (decompose.h): ranges of elements when the mesh numbers its elements coherently (the ranges' rows
 * at most RANGE_ROWS_MAX per point) and no block then reads too many neighbours, else bisection. *out: the
 * blocks, or NULL with PF_EINVAL (too many neighbours either way) or PF_ENOMEM. */
#define RANGE_ROWS_MAX 2.5

static int build_split(const pf_object *o, uint32_t nelem, uint32_t nb, uint32_t be, pf_decomp **out)
{
    *out = NULL;
    uint32_t *last = pf_malloc(((size_t)o->n + 1) * sizeof *last);
    if (!last) return PF_ENOMEM;
    int ranges = range_rows(o, nelem, nb, last) <= RANGE_ROWS_MAX * o->n;
    pf_free(last);
    int rc = PF_EINVAL;
    for (int k = ranges ? 0 : 1; k < 2 && rc == PF_EINVAL; k++) {
        pf_decomp *d = pf_calloc(1, sizeof *d);
        if (!d) return PF_ENOMEM;
        d->split = k == 0 ? PF_SPLIT_RANGES : PF_SPLIT_BISECT;
        rc = build(o, nelem, nb, be, d);
        if (rc == PF_OK) *out = d;
        else pf_decomp_free(d);
    }
    return rc;
}

int pf_decomp_update(pf_world *w, pf_object *o, pf_decomp **out)
{
    *out = NULL;
    int cuttable;
    uint32_t nelem = count_elements(o, &cuttable), be;
    uint32_t nb = cuttable ? wanted_blocks(o, nelem, &be) : 0;
    if (o->decomp && (!nb || !same_fields(o, o->decomp) || o->decomp->block_elements != be)) {
        /* the graph may still name the old blocks' data until it is recorded again: freed with the world */
        PF_TRY(pf_vec_push(&w->old_decomps, o->decomp));
        o->decomp = NULL;
    }
    if (!nb) return PF_OK;
    if (!o->decomp && !o->decomp_refused) {
        pf_decomp *d = NULL;
        int rc = build_split(o, nelem, nb, be, &d);
        if (rc == PF_ENOMEM) return pf_error(PF_ENOMEM, "out of memory cutting object %u into blocks", o->id);
        if (rc != PF_OK) { /* blocks with too many neighbours: said once, the object runs whole */
            pf_decomp_free(d);
            o->decomp_refused = 1;
            if (!w->def.runtime.quiet)
                fprintf(stderr, "physflow: object %u: its blocks of %u elements would read more than %d "
                        "neighbours each; it runs whole\n", o->id, be, PF_BLOCK_NEIGHBOURS_MAX);
            return PF_OK;
        }
        for (uint32_t b = 0; b < d->nblocks; b++) d->b[b].owner = 0x80000000u | o->id << 12 | b;
        o->decomp = d;
    }
    *out = o->decomp;
    return PF_OK;
}

/* ---- the blocks' data in the graph ---- */

/* a block's share of a vector: the span from its first point to its last (a view: the points between belong to
 * other blocks, which the dependencies keep apart) */
static int view(pf_graph *g, double *vec, const pf_block *k, pf_data_id *out)
{
    size_t first = k->nowned ? k->owned[0] : 0, last = k->nowned ? k->owned[k->nowned - 1] : 0;
    return pf_graph_data(g, vec + 3 * first, 3 * (last - first + 1) * sizeof *vec, k->owner, NULL, out);
}

int pf_decomp_register(pf_graph *g, const pf_object *o, pf_decomp *d)
{
    if (d->registered) return PF_OK;
    for (uint32_t b = 0; b < d->nblocks; b++) {
        pf_block *k = &d->b[b];
        double *vecs[] = {o->x, o->v, o->f, o->dv, o->b, o->r, o->p, o->q};
        pf_data_id *ids[] = {&k->dx, &k->dv_, &k->df, &k->ddv, &k->db, &k->dr, &k->dp, &k->dq};
        for (size_t j = 0; j < sizeof vecs / sizeof vecs[0]; j++) PF_TRY(view(g, vecs[j], k, ids[j]));
        size_t bytes = 3 * (size_t)k->nrows * sizeof(double);
        PF_TRY(pf_graph_data(g, d->pf + 3 * (size_t)k->row0, bytes, k->owner, NULL, &k->dpf));
        PF_TRY(pf_graph_data(g, d->pk + 3 * (size_t)k->row0, bytes, k->owner, NULL, &k->dpk));
        for (uint32_t f = 0; f < d->nfields; f++) {
            const pf_force_field *ff = &o->ff.v[f];
            if (k->range[f].n && ops(ff)->register_range)
                PF_TRY(ops(ff)->register_range(g, ff, &k->range[f], k->owner, &k->dcache[f]));
        }
    }
    d->registered = 1;
    return PF_OK;
}

void pf_decomp_forget(pf_decomp *d)
{
    if (d) d->registered = 0;
}

uint32_t pf_decomp_take_fault(pf_decomp *d)
{
    uint32_t first = 0;
    for (uint32_t b = 0; d && b < d->nblocks; b++) {
        uint32_t f = d->b[b].fault;
        if (f && (!first || f < first)) first = f;
        d->b[b].fault = 0;
    }
    return first;
}

int pf_decomp_accesses(const pf_object *o, size_t member, pf_data_id whole, pf_access_mode mode, pf_access *acc,
                       uint32_t *na)
{
    uint32_t n = o->in_blocks ? o->decomp->nblocks : 1;
    if (*na + n > PF_MAX_ACCESSES)
        return pf_error(PF_EINVAL, "object %u: a task would reach its %u blocks' data and more than %d in all",
                        o->id, n, PF_MAX_ACCESSES);
    if (!o->in_blocks) {
        acc[(*na)++] = (pf_access){whole, mode};
        return PF_OK;
    }
    for (uint32_t b = 0; b < n; b++)
        acc[(*na)++] = (pf_access){*(const pf_data_id *)((const char *)&o->decomp->b[b] + member), mode};
    return PF_OK;
}
