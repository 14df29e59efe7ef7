/* Orthogonal range queries over points (Aïvázis 2010): sequential scan, binary search on sorted x, midpoint
 * tree, median kd tree and cell binning, behind the interface of rangequery.h. */
#include "physflow/rangequery.h"

#include "arg_checks.h"
#include "id_buffer.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"
#include "base/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A point with its id, stored in the structure's own order for locality. */
typedef struct rq_point {
    double p[3];
    uint32_t id;
} rq_point;

/* A tree node. Midpoint tree: points with p[axis] < split go left, the others right. kd tree: lo/hi bound
 * the subtree's points (refitted by rebuild). Leaves have left == -1 and own pts[begin, end). */
typedef struct rq_node {
    double lo[3], hi[3];
    double split;
    uint32_t begin, end;
    int32_t left, right;
    int axis;
} rq_node;

struct pf_rangequery {
    pf_rangequery_def def;
    size_t n;
    int built;
    double *xyz;    /* the points as given (scan) */
    rq_point *pts;  /* bsearch: sorted on x; trees: leaf order; cells: cell order */
    uint32_t *perm; /* build scratch: ids */
    size_t cap_n;   /* room of xyz, pts and perm: three arrays grown in step, so no PF_VEC */
    PF_VEC(rq_node) nodes;
    /* cells */
    double origin[3], cell;
    uint64_t dims[3];
    uint32_t *cell_start; /* M + 1 offsets into pts */
    size_t cells_cap;     /* refilled whole from a fresh block, nothing copied: no PF_VEC */
};

static const char *const method_names[PF_RQ_METHOD_COUNT] = {"scan", "bsearch", "tree", "kdtree", "cells"};

const char *pf_rangequery_method_name(pf_rangequery_method m)
{
    return (unsigned)m < PF_RQ_METHOD_COUNT ? method_names[m] : "unknown";
}

int pf_rangequery_method_parse(const char *name, pf_rangequery_method *out)
{
    PF_TRY(pf_check_given(out, __func__, "out"));
    int k;
    PF_TRY(pf_check_name(name, method_names, PF_RQ_METHOD_COUNT, __func__, "range-query method", &k));
    *out = (pf_rangequery_method)k;
    return PF_OK;
}

pf_rangequery_def pf_rangequery_default_def(void)
{
    return (pf_rangequery_def){.method = PF_RQ_KDTREE, .leaf_size = 8, .cell_size = 0};
}

int pf_rangequery_create(const pf_rangequery_def *def, pf_rangequery **out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(out, fn, "out"));
    *out = NULL;
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_enum((int)def->method, PF_RQ_METHOD_COUNT, fn, "def.method"));
    PF_TRY(pf_check_int_range(def->leaf_size, 1, INT32_MAX, fn, "def.leaf_size"));
    PF_TRY(pf_check_finite(def->cell_size, fn, "def.cell_size"));
    pf_rangequery *rq = pf_calloc(1, sizeof *rq);
    if (!rq) return pf_error(PF_ENOMEM, "%s: out of memory for a range-query structure", fn);
    rq->def = *def;
    *out = rq;
    return PF_OK;
}

void pf_rangequery_destroy(pf_rangequery *rq)
{
    if (!rq) return;
    pf_free(rq->xyz);
    pf_free(rq->pts);
    pf_free(rq->perm);
    pf_vec_free(&rq->nodes);
    pf_free(rq->cell_start);
    pf_free(rq);
}

size_t pf_rangequery_bytes(const pf_rangequery *rq)
{
    if (!rq) return 0;
    size_t b = sizeof *rq + rq->cap_n * 3 * sizeof(double);
    switch (rq->def.method) {
    case PF_RQ_SCAN: break;
    case PF_RQ_BSEARCH: b += rq->cap_n * sizeof(rq_point); break;
    case PF_RQ_TREE:
    case PF_RQ_KDTREE:
        b += rq->cap_n * (sizeof(rq_point) + sizeof(uint32_t)) + rq->nodes.cap * sizeof *rq->nodes.v;
        break;
    default: b += rq->cap_n * sizeof(rq_point) + rq->cells_cap * sizeof(uint32_t); break;
    }
    return b;
}

/* ---- binary search (Aïvázis 2010 Algorithm 2) ---- */

static int cmp_x(const void *a, const void *b)
{
    const rq_point *p = a, *q = b;
    if (p->p[0] != q->p[0]) return p->p[0] < q->p[0] ? -1 : 1;
    return p->id < q->id ? -1 : p->id > q->id;
}

static inline int before_x(const rq_point *a, const rq_point *b)
{
    return a->p[0] < b->p[0] || (a->p[0] == b->p[0] && a->id < b->id);
}

static void bsearch_build(pf_rangequery *rq)
{
    for (size_t i = 0; i < rq->n; i++) {
        memcpy(rq->pts[i].p, rq->xyz + 3 * i, sizeof rq->pts[i].p);
        rq->pts[i].id = (uint32_t)i;
    }
    qsort(rq->pts, rq->n, sizeof *rq->pts, cmp_x);
}

/* r_BS = O(N): the array is almost sorted after small motions, so insertion sort is linear. After large
 * motions it would be quadratic: past 32 N moves it gives up and sorts from scratch. */
static void bsearch_rebuild(pf_rangequery *rq)
{
    for (size_t k = 0; k < rq->n; k++) memcpy(rq->pts[k].p, rq->xyz + 3 * (size_t)rq->pts[k].id, 3 * sizeof(double));
    size_t moves = 0, budget = 32 * rq->n + 64;
    for (size_t k = 1; k < rq->n; k++) {
        rq_point v = rq->pts[k];
        size_t m = k;
        while (m > 0 && before_x(&v, &rq->pts[m - 1])) {
            rq->pts[m] = rq->pts[m - 1];
            m--;
            moves++;
        }
        rq->pts[m] = v;
        if (moves > budget) {
            qsort(rq->pts, rq->n, sizeof *rq->pts, cmp_x);
            return;
        }
    }
}

static inline int inside(const double p[3], const double lo[3], const double hi[3])
{
    return p[0] >= lo[0] && p[0] <= hi[0] && p[1] >= lo[1] && p[1] <= hi[1] && p[2] >= lo[2] && p[2] <= hi[2];
}

static int bsearch_find(const pf_rangequery *rq, const double lo[3], const double hi[3], pf_id_buffer *out)
{
    size_t a = 0, b = rq->n; /* first point with x >= lo[0] */
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (rq->pts[m].p[0] < lo[0])
            a = m + 1;
        else
            b = m;
    }
    for (size_t k = a; k < rq->n && rq->pts[k].p[0] <= hi[0]; k++) {
        out->candidates++;
        if (inside(rq->pts[k].p, lo, hi)) {
            int rc = pf_idbuf_push(out, rq->pts[k].id);
            if (rc) return rc;
        }
    }
    return PF_OK;
}

/* ---- trees (Aïvázis 2010 Algorithms 3 and 4) ---- */

static int new_node(pf_rangequery *rq, int32_t *idx)
{
    if (pf_vec_reserve(&rq->nodes, rq->nodes.n + 1))
        return pf_error(PF_ENOMEM, "out of memory for %zu tree nodes", rq->nodes.n + 1);
    *idx = (int32_t)rq->nodes.n++;
    return PF_OK;
}

static void bounds_of(const pf_rangequery *rq, const uint32_t *ids, size_t m, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
    for (size_t t = 0; t < m; t++) {
        const double *p = rq->xyz + 3 * (size_t)ids[t];
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], p[k]);
            hi[k] = fmax(hi[k], p[k]);
        }
    }
}

static int longest_axis(const double lo[3], const double hi[3])
{
    int a = 0;
    for (int k = 1; k < 3; k++)
        if (hi[k] - lo[k] > hi[a] - lo[a]) a = k;
    return a;
}

static inline double coord(const pf_rangequery *rq, uint32_t id, int axis)
{
    return rq->xyz[3 * (size_t)id + (size_t)axis];
}

/* Midpoint tree: the node's cell [clo, chi] is halved along its longest axis, whatever the points. */
static int mid_make(pf_rangequery *rq, uint32_t begin, uint32_t end, double clo[3], double chi[3], int depth,
                    int32_t *out)
{
    int rc = new_node(rq, out);
    if (rc) return rc;
    rq_node *nd = &rq->nodes.v[*out];
    nd->begin = begin, nd->end = end, nd->left = nd->right = -1;
    int axis = longest_axis(clo, chi);
    double split = clo[axis] + 0.5 * (chi[axis] - clo[axis]);
    /* leaf: few points, too deep (clustered data), or a cell too thin to halve */
    if (end - begin <= (uint32_t)rq->def.leaf_size || depth >= 60 || !(split > clo[axis] && split < chi[axis]))
        return PF_OK;
    uint32_t *ids = rq->perm, m = begin;
    for (uint32_t t = begin; t < end; t++)
        if (coord(rq, ids[t], axis) < split) {
            uint32_t tmp = ids[t];
            ids[t] = ids[m];
            ids[m++] = tmp;
        }
    rq->nodes.v[*out].axis = axis;
    rq->nodes.v[*out].split = split;
    double save = chi[axis];
    chi[axis] = split;
    int32_t l, r;
    rc = mid_make(rq, begin, m, clo, chi, depth + 1, &l);
    chi[axis] = save;
    if (rc) return rc;
    save = clo[axis];
    clo[axis] = split;
    rc = mid_make(rq, m, end, clo, chi, depth + 1, &r);
    clo[axis] = save;
    if (rc) return rc;
    rq->nodes.v[*out].left = l;
    rq->nodes.v[*out].right = r;
    return PF_OK;
}

/* Quickselect: ids[begin, end) reordered so that ids[k] has the k-th coordinate along `axis`, smaller (or
 * equal) before it and larger (or equal) after it. Ties broken by id, so the result is a function of the
 * points only. */
static inline int less_on(const pf_rangequery *rq, uint32_t a, uint32_t b, int axis)
{
    double x = coord(rq, a, axis), y = coord(rq, b, axis);
    return x < y || (x == y && a < b);
}

static void select_kth(const pf_rangequery *rq, uint32_t *ids, size_t begin, size_t end, size_t k, int axis)
{
    while (end - begin > 1) {
        size_t mid = begin + (end - begin) / 2;
        /* median of three as pivot, moved to end - 1 */
        size_t a = begin, b = mid, c = end - 1, p;
        if (less_on(rq, ids[a], ids[b], axis))
            p = less_on(rq, ids[b], ids[c], axis) ? b : (less_on(rq, ids[a], ids[c], axis) ? c : a);
        else
            p = less_on(rq, ids[a], ids[c], axis) ? a : (less_on(rq, ids[b], ids[c], axis) ? c : b);
        uint32_t t = ids[p];
        ids[p] = ids[end - 1];
        ids[end - 1] = t;
        uint32_t pivot = ids[end - 1];
        size_t store = begin;
        for (size_t i = begin; i < end - 1; i++)
            if (less_on(rq, ids[i], pivot, axis)) {
                t = ids[i];
                ids[i] = ids[store];
                ids[store++] = t;
            }
        ids[end - 1] = ids[store];
        ids[store] = pivot;
        if (k == store) return;
        if (k < store)
            end = store;
        else
            begin = store + 1;
    }
}

/* Median kd tree: split at the median of the points along the axis of largest spread. */
static int kd_make(pf_rangequery *rq, uint32_t begin, uint32_t end, int32_t *out)
{
    int rc = new_node(rq, out);
    if (rc) return rc;
    rq_node *nd = &rq->nodes.v[*out];
    nd->begin = begin, nd->end = end, nd->left = nd->right = -1;
    bounds_of(rq, rq->perm + begin, end - begin, nd->lo, nd->hi);
    if (end - begin <= (uint32_t)rq->def.leaf_size) return PF_OK;
    int axis = longest_axis(nd->lo, nd->hi);
    uint32_t m = begin + (end - begin) / 2;
    select_kth(rq, rq->perm, begin, end, m, axis);
    rq->nodes.v[*out].axis = axis;
    rq->nodes.v[*out].split = coord(rq, rq->perm[m], axis);
    int32_t l, r;
    rc = kd_make(rq, begin, m, &l);
    if (!rc) rc = kd_make(rq, m, end, &r);
    if (rc) return rc;
    rq->nodes.v[*out].left = l;
    rq->nodes.v[*out].right = r;
    return PF_OK;
}

static void gather_tree_points(pf_rangequery *rq)
{
    for (size_t t = 0; t < rq->n; t++) {
        memcpy(rq->pts[t].p, rq->xyz + 3 * (size_t)rq->perm[t], 3 * sizeof(double));
        rq->pts[t].id = rq->perm[t];
    }
}

static int tree_build(pf_rangequery *rq)
{
    rq->nodes.n = 0;
    for (size_t i = 0; i < rq->n; i++) rq->perm[i] = (uint32_t)i;
    int32_t root;
    int rc;
    if (rq->def.method == PF_RQ_TREE) {
        double lo[3], hi[3];
        bounds_of(rq, rq->perm, rq->n, lo, hi);
        rc = mid_make(rq, 0, (uint32_t)rq->n, lo, hi, 0, &root);
    } else {
        rc = kd_make(rq, 0, (uint32_t)rq->n, &root);
    }
    if (rc) return rc;
    gather_tree_points(rq);
    return PF_OK;
}

/* r_KD = O(N): same partition, new coordinates, bounds refitted bottom-up (children follow their parent in
 * the node array). */
static void kd_refit(pf_rangequery *rq)
{
    gather_tree_points(rq);
    for (size_t k = rq->nodes.n; k-- > 0;) {
        rq_node *nd = &rq->nodes.v[k];
        if (nd->left < 0) {
            for (int a = 0; a < 3; a++) nd->lo[a] = INFINITY, nd->hi[a] = -INFINITY;
            for (uint32_t t = nd->begin; t < nd->end; t++)
                for (int a = 0; a < 3; a++) {
                    nd->lo[a] = fmin(nd->lo[a], rq->pts[t].p[a]);
                    nd->hi[a] = fmax(nd->hi[a], rq->pts[t].p[a]);
                }
        } else {
            const rq_node *l = &rq->nodes.v[nd->left], *r = &rq->nodes.v[nd->right];
            for (int a = 0; a < 3; a++) {
                nd->lo[a] = fmin(l->lo[a], r->lo[a]);
                nd->hi[a] = fmax(l->hi[a], r->hi[a]);
            }
        }
    }
}

static int push_range(const pf_rangequery *rq, uint32_t begin, uint32_t end, const double lo[3],
                      const double hi[3], int test, pf_id_buffer *out)
{
    for (uint32_t t = begin; t < end; t++) {
        out->candidates++;
        if (test && !inside(rq->pts[t].p, lo, hi)) continue;
        int rc = pf_idbuf_push(out, rq->pts[t].id);
        if (rc) return rc;
    }
    return PF_OK;
}

static int mid_find(const pf_rangequery *rq, int32_t k, const double lo[3], const double hi[3], pf_id_buffer *out)
{
    const rq_node *nd = &rq->nodes.v[k];
    if (nd->left < 0) return push_range(rq, nd->begin, nd->end, lo, hi, 1, out);
    int rc = PF_OK;
    if (lo[nd->axis] < nd->split) rc = mid_find(rq, nd->left, lo, hi, out);
    if (!rc && hi[nd->axis] >= nd->split) rc = mid_find(rq, nd->right, lo, hi, out);
    return rc;
}

static int kd_find(const pf_rangequery *rq, int32_t k, const double lo[3], const double hi[3], pf_id_buffer *out)
{
    const rq_node *nd = &rq->nodes.v[k];
    int contained = 1;
    for (int a = 0; a < 3; a++) {
        if (nd->lo[a] > hi[a] || nd->hi[a] < lo[a]) return PF_OK;
        if (nd->lo[a] < lo[a] || nd->hi[a] > hi[a]) contained = 0;
    }
    if (contained || nd->left < 0) return push_range(rq, nd->begin, nd->end, lo, hi, !contained, out);
    int rc = kd_find(rq, nd->left, lo, hi, out);
    if (!rc) rc = kd_find(rq, nd->right, lo, hi, out);
    return rc;
}

/* ---- cells (Aïvázis 2010 "Binning", Algorithm 5 in 3D) ---- */

/* Cell index along an axis; monotone in x, so a cell strictly between the query's first and last cells holds
 * only points strictly inside the query's slab. */
static inline uint64_t cell_of(const pf_rangequery *rq, double x, int axis)
{
    double c = floor((x - rq->origin[axis]) / rq->cell);
    if (!(c > 0)) return 0;
    if (c >= (double)rq->dims[axis]) return rq->dims[axis] - 1;
    return (uint64_t)c;
}

static int cells_build(pf_rangequery *rq)
{
    size_t n = rq->n;
    double lo[3], hi[3], e[3];
    for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], rq->xyz[3 * i + (size_t)k]);
            hi[k] = fmax(hi[k], rq->xyz[3 * i + (size_t)k]);
        }
    double limit = fmax(16.0 * (double)n, 1048576.0);
    double cell = rq->def.cell_size;
    int user = cell > 0;
    if (!user) {
        /* about 2 points per cell over the axes that have extent (flat inputs bin in 2D) */
        double vol = 1;
        int d = 0;
        for (int k = 0; k < 3; k++) {
            e[k] = hi[k] - lo[k];
            if (e[k] > 0) vol *= e[k], d++;
        }
        cell = d ? pow(2.0 * vol / (double)n, 1.0 / d) : 1.0;
        if (!(cell > 0) || isinf(cell)) cell = 1.0;
    }
    for (;;) {
        double total = 1;
        for (int k = 0; k < 3; k++) total *= floor((hi[k] - lo[k]) / cell) + 1;
        if (total <= (user ? limit : 4.0 * (double)n + 8)) break;
        if (user)
            return pf_error(PF_EINVAL, "def.cell_size = %g needs %.3g cells (limit %.3g)", cell, total, limit);
        cell *= 1.25;
    }
    rq->cell = cell;
    size_t m = 1;
    for (int k = 0; k < 3; k++) {
        rq->origin[k] = lo[k];
        rq->dims[k] = (uint64_t)(floor((hi[k] - lo[k]) / cell) + 1);
        m *= (size_t)rq->dims[k];
    }
    if (m + 1 > rq->cells_cap) {
        pf_free(rq->cell_start);
        rq->cell_start = pf_malloc((m + 1) * sizeof *rq->cell_start);
        if (!rq->cell_start) {
            rq->cells_cap = 0;
            return pf_error(PF_ENOMEM, "out of memory for %zu cells", m);
        }
        rq->cells_cap = m + 1;
    }
    /* cell sort: count, prefix, place (stable: ids ascending within a cell) */
    uint32_t *start = rq->cell_start;
    memset(start, 0, (m + 1) * sizeof *start);
    for (size_t i = 0; i < n; i++) {
        const double *p = rq->xyz + 3 * i;
        size_t c = (size_t)((cell_of(rq, p[2], 2) * rq->dims[1] + cell_of(rq, p[1], 1)) * rq->dims[0] +
                            cell_of(rq, p[0], 0));
        rq->perm[i] = (uint32_t)c;
        start[c + 1]++;
    }
    for (size_t c = 0; c < m; c++) start[c + 1] += start[c];
    for (size_t i = 0; i < n; i++) {
        rq_point *q = &rq->pts[start[rq->perm[i]]++];
        memcpy(q->p, rq->xyz + 3 * i, sizeof q->p);
        q->id = (uint32_t)i;
    }
    for (size_t c = m; c > 0; c--) start[c] = start[c - 1];
    start[0] = 0;
    return PF_OK;
}

static int cells_find(const pf_rangequery *rq, const double lo[3], const double hi[3], pf_id_buffer *out)
{
    for (int k = 0; k < 3; k++)
        if (hi[k] < rq->origin[k]) return PF_OK;
    uint64_t a[3], b[3];
    for (int k = 0; k < 3; k++) a[k] = cell_of(rq, lo[k], k), b[k] = cell_of(rq, hi[k], k);
    for (uint64_t z = a[2]; z <= b[2]; z++)
        for (uint64_t y = a[1]; y <= b[1]; y++) {
            size_t row = (size_t)((z * rq->dims[1] + y) * rq->dims[0]);
            int inner_zy = z > a[2] && z < b[2] && y > a[1] && y < b[1];
            for (uint64_t x = a[0]; x <= b[0]; x++) {
                int test = !(inner_zy && x > a[0] && x < b[0]);
                int rc = push_range(rq, rq->cell_start[row + x], rq->cell_start[row + x + 1], lo, hi, test, out);
                if (rc) return rc;
            }
        }
    return PF_OK;
}

/* ---- interface ---- */

static int grow_points(pf_rangequery *rq, size_t n)
{
    if (n <= rq->cap_n) return PF_OK;
    pf_free(rq->xyz);
    pf_free(rq->pts);
    pf_free(rq->perm);
    rq->xyz = pf_malloc(3 * n * sizeof *rq->xyz);
    rq->pts = pf_malloc(n * sizeof *rq->pts);
    rq->perm = pf_malloc(n * sizeof *rq->perm);
    if (!rq->xyz || !rq->pts || !rq->perm) {
        rq->cap_n = 0;
        return pf_error(PF_ENOMEM, "out of memory for %zu points", n);
    }
    rq->cap_n = n;
    return PF_OK;
}

static int structure_build(pf_rangequery *rq)
{
    if (rq->n == 0) return PF_OK;
    switch (rq->def.method) {
    case PF_RQ_SCAN: return PF_OK;
    case PF_RQ_BSEARCH: bsearch_build(rq); return PF_OK;
    case PF_RQ_TREE:
    case PF_RQ_KDTREE: return tree_build(rq);
    default: return cells_build(rq);
    }
}

int pf_rangequery_build(pf_rangequery *rq, const double *xyz, size_t n)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(rq, fn, "rq"));
    rq->built = 0;
    PF_TRY(pf_check_size(n, 3 * sizeof *xyz, fn, "n"));
    PF_TRY(pf_check_int_range((long long)n, 0, (long long)UINT32_MAX - 1, fn, "n"));
    if (n) PF_TRY(pf_check_given(xyz, fn, "xyz (n > 0)"));
    PF_TRY(pf_check_finite_n(xyz, 3 * n, fn, "xyz"));
    int rc = grow_points(rq, n);
    if (rc) return pf_error_in(rc, fn);
    rq->n = n;
    if (n) memcpy(rq->xyz, xyz, 3 * n * sizeof *xyz);
    rc = structure_build(rq);
    rq->built = rc == PF_OK;
    return pf_error_in(rc, fn);
}

int pf_rangequery_rebuild(pf_rangequery *rq, const double *xyz)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(rq, fn, "rq"));
    if (!rq->built) return pf_error(PF_ESTATE, "%s: no successful build yet (pf_rangequery_build)", fn);
    if (rq->n) PF_TRY(pf_check_given(xyz, fn, "xyz (the structure holds points)"));
    PF_TRY(pf_check_finite_n(xyz, 3 * rq->n, fn, "xyz"));
    if (rq->n == 0) return PF_OK;
    int rc;
    memcpy(rq->xyz, xyz, 3 * rq->n * sizeof *xyz);
    switch (rq->def.method) {
    case PF_RQ_SCAN: return PF_OK;
    case PF_RQ_BSEARCH: bsearch_rebuild(rq); return PF_OK;
    case PF_RQ_KDTREE: kd_refit(rq); return PF_OK;
    default: /* midpoint tree and cells: rebuilt from scratch, O((D+1)N) and O(N+M) */
        rc = structure_build(rq);
        rq->built = rc == PF_OK;
        return pf_error_in(rc, fn);
    }
}

int pf_rangequery_find(const pf_rangequery *rq, const double lo[3], const double hi[3], pf_id_buffer *out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(rq, fn, "rq"));
    PF_TRY(pf_check_given(lo, fn, "lo"));
    PF_TRY(pf_check_given(hi, fn, "hi"));
    PF_TRY(pf_check_given(out, fn, "out"));
    PF_TRY(pf_check_finite_n(lo, 3, fn, "lo"));
    PF_TRY(pf_check_finite_n(hi, 3, fn, "hi"));
    pf_idbuf_begin(out);
    if (!rq->built) return pf_error(PF_ESTATE, "%s: no successful build yet (pf_rangequery_build)", fn);
    if (rq->n == 0 || lo[0] > hi[0] || lo[1] > hi[1] || lo[2] > hi[2]) return PF_OK;
    int rc = PF_OK;
    switch (rq->def.method) {
    case PF_RQ_SCAN: /* Aïvázis 2010 Algorithm 1 */
        for (size_t i = 0; i < rq->n && !rc; i++) {
            out->candidates++;
            if (inside(rq->xyz + 3 * i, lo, hi)) rc = pf_idbuf_push(out, (uint32_t)i);
        }
        break;
    case PF_RQ_BSEARCH: rc = bsearch_find(rq, lo, hi, out); break;
    case PF_RQ_TREE: rc = mid_find(rq, 0, lo, hi, out); break;
    case PF_RQ_KDTREE: rc = kd_find(rq, 0, lo, hi, out); break;
    default: rc = cells_find(rq, lo, hi, out); break;
    }
    return pf_error_in(rc, fn);
}
