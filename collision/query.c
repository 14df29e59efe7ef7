/* Queries against a built structure (Pouchol et al. 2009, §3.3): boxes and moving segments against a spatial hash of
 * boxes, and radius neighbour search among particles with a uniform hash or a kd tree. */
#include "physflow/query.h"
#include "physflow/rangequery.h"

#include "arg_checks.h"
#include "id_buffer.h"
#include "insert_search.h"
#include "spatial_hash.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"
#include "base/vec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct pf_query_index {
    pf_query_def def;
    pf_shash hash;
    /* kd: the tree of the boxes' centres, and how far the query is grown so that it holds the centre of every
     * box it overlaps */
    pf_rangequery *kd;
    PF_VEC(double) centres;
    double reach[3];
    PF_VEC(pf_aabb) boxes; /* the index's copy */
    int built;
};

static const char *const query_names[PF_QUERY_METHOD_COUNT] = {"hhash", "mlhash", "uhash", "kd"};
static const char *const neighbor_names[PF_NEIGHBORS_METHOD_COUNT] = {"uhash", "kd", "brute", "hhash"};

const char *pf_query_method_name(pf_query_method m)
{
    return (unsigned)m < PF_QUERY_METHOD_COUNT ? query_names[m] : "unknown";
}

int pf_query_method_parse(const char *name, pf_query_method *out)
{
    PF_TRY(pf_check_given(out, __func__, "out"));
    int k;
    PF_TRY(pf_check_name(name, query_names, PF_QUERY_METHOD_COUNT, __func__, "query structure", &k));
    *out = (pf_query_method)k;
    return PF_OK;
}

const char *pf_neighbor_method_name(pf_neighbor_method m)
{
    return (unsigned)m < PF_NEIGHBORS_METHOD_COUNT ? neighbor_names[m] : "unknown";
}

pf_query_def pf_query_default_def(void)
{
    return (pf_query_def){.method = PF_QUERY_HHASH, .cell_size = 0};
}

int pf_query_index_create(const pf_query_def *def, pf_query_index **out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(out, fn, "out"));
    *out = NULL;
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_enum((int)def->method, PF_QUERY_METHOD_COUNT, fn, "def.method"));
    PF_TRY(pf_check_finite(def->cell_size, fn, "def.cell_size"));
    pf_query_index *ix = pf_calloc(1, sizeof *ix);
    if (!ix) return pf_error(PF_ENOMEM, "out of memory for a query index");
    ix->def = *def;
    *out = ix;
    return PF_OK;
}

void pf_query_index_destroy(pf_query_index *ix)
{
    if (!ix) return;
    pf_shash_free(&ix->hash);
    pf_rangequery_destroy(ix->kd);
    pf_vec_free(&ix->centres);
    pf_vec_free(&ix->boxes);
    pf_free(ix);
}

/* The kd tree over the centres of ix->boxes. A box overlaps a query q exactly when its centre lies in q grown by
 * its half-extents; q is grown by the largest, rounded up (kd_find), so the tree's finds hold every overlap. */
static int kd_build(pf_query_index *ix, size_t n)
{
    if (!ix->kd) {
        pf_rangequery_def d = pf_rangequery_default_def();
        d.method = PF_RQ_KDTREE;
        PF_TRY(pf_rangequery_create(&d, &ix->kd));
    }
    if (pf_vec_reserve(&ix->centres, 3 * n + 1)) return pf_error(PF_ENOMEM, "out of memory for %zu centres", n);
    for (int k = 0; k < 3; k++) ix->reach[k] = 0;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            const pf_aabb *b = &ix->boxes.v[i];
            double c = 0.5 * b->min[k] + 0.5 * b->max[k]; /* halves first: no overflow near the largest double */
            ix->centres.v[3 * i + (size_t)k] = c;
            ix->reach[k] = fmax(ix->reach[k], fmax(c - b->min[k], b->max[k] - c));
        }
    return pf_rangequery_build(ix->kd, ix->centres.v, n);
}

/* The candidates of the kd tree for `q`: the centres within q grown by the reach, each bound moved one more step
 * outwards past the rounding of the sum and of the half-extents. */
static int kd_find(const pf_query_index *ix, const pf_aabb *q, pf_id_buffer *out)
{
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        double reach = ix->reach[k] * (1 + 0x1p-50);
        lo[k] = nextafter(nextafter(q->min[k] - reach, -INFINITY), -INFINITY);
        hi[k] = nextafter(nextafter(q->max[k] + reach, INFINITY), INFINITY);
        if (!isfinite(lo[k])) lo[k] = -DBL_MAX; /* the tree takes finite bounds; the centres are finite */
        if (!isfinite(hi[k])) hi[k] = DBL_MAX;
    }
    return pf_rangequery_find(ix->kd, lo, hi, out);
}

int pf_query_index_build(pf_query_index *ix, const pf_aabb *boxes, size_t n)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(ix, fn, "ix"));
    ix->built = 0;
    PF_TRY(pf_check_size(n, sizeof *boxes, fn, "n"));
    if (n) PF_TRY(pf_check_given(boxes, fn, "boxes (n > 0)"));
    PF_TRY(pf_check_aabbs(boxes, n, fn, "boxes"));
    if (n > ix->boxes.cap) pf_vec_free(&ix->boxes); /* refilled whole: growing need not copy the old boxes */
    if (pf_vec_reserve(&ix->boxes, n)) return pf_error(PF_ENOMEM, "%s: out of memory for %zu boxes", fn, n);
    if (n) memcpy(ix->boxes.v, boxes, n * sizeof *boxes);
    ix->boxes.n = n;
    if (ix->def.method == PF_QUERY_KD) {
        int rc = kd_build(ix, n);
        ix->built = rc == PF_OK;
        return pf_error_in(rc, fn);
    }
    int kind = ix->def.method == PF_QUERY_HHASH ? PF_SHASH_HIER
               : ix->def.method == PF_QUERY_MLHASH ? PF_SHASH_MULTI
                                                   : PF_SHASH_UNIFORM;
    double cell = ix->def.cell_size;
    if (kind == PF_SHASH_UNIFORM && !(cell > 0)) {
        /* default: the largest box edge, so that no box covers more than 2 cells per axis */
        cell = 0;
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) cell = fmax(cell, boxes[i].max[k] - boxes[i].min[k]);
        if (!(cell > 0)) cell = 1;
    }
    int rc = pf_shash_build(&ix->hash, kind, ix->boxes.v, n, cell);
    ix->built = rc == PF_OK;
    return pf_error_in(rc, fn);
}

size_t pf_query_index_bytes(const pf_query_index *ix)
{
    return ix ? sizeof *ix + ix->boxes.cap * sizeof *ix->boxes.v + pf_shash_bytes(&ix->hash) +
                    ix->centres.cap * sizeof *ix->centres.v + pf_rangequery_bytes(ix->kd)
              : 0;
}

/* Candidates of the structure for `q`, then the exact test `keep`, compacting in place. */
static int search(const pf_query_index *ix, const pf_aabb *q, pf_id_buffer *out,
                  int (*keep)(const pf_aabb *box, const void *ctx), const void *ctx, const char *fn)
{
    if (!ix->built) return pf_error(PF_ESTATE, "%s: the index has no successful build yet (pf_query_index_build)", fn);
    int rc;
    if (ix->def.method == PF_QUERY_KD) {
        rc = kd_find(ix, q, out);
    } else {
        rc = pf_idbuf_marks(out, ix->boxes.n);
        if (rc) return pf_error_in(rc, fn);
        pf_idbuf_begin(out);
        rc = pf_shash_query(&ix->hash, q, out);
    }
    if (rc) return pf_error_in(rc, fn);
    size_t m = 0;
    for (size_t k = 0; k < out->n; k++)
        if (keep(&ix->boxes.v[out->ids[k]], ctx)) out->ids[m++] = out->ids[k];
    out->n = m;
    return PF_OK;
}

static int keep_overlap(const pf_aabb *box, const void *ctx)
{
    return pf_shash_box_overlap(box, ctx);
}

int pf_query_aabb(const pf_query_index *ix, const pf_aabb *box, pf_id_buffer *out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(ix, fn, "ix"));
    PF_TRY(pf_check_given(out, fn, "out"));
    PF_TRY(pf_check_aabb(box, fn, "box", -1));
    return search(ix, box, out, keep_overlap, box, fn);
}

typedef struct sweep {
    pf_aabb bounds; /* AABB of the motion */
    double a[3], d[3], hw;
} sweep;

/* Exact test of a cube of half-edge hw moving from a to a + d against `box`: the segment against the box grown
 * by hw (slab method), on top of the overlap with the motion's AABB. */
static int keep_sweep(const pf_aabb *box, const void *ctx)
{
    const sweep *s = ctx;
    if (!pf_shash_box_overlap(box, &s->bounds)) return 0;
    double t0 = 0, t1 = 1;
    for (int k = 0; k < 3; k++) {
        double lo = box->min[k] - s->hw, hi = box->max[k] + s->hw;
        if (s->d[k] == 0) {
            if (s->a[k] < lo || s->a[k] > hi) return 0;
            continue;
        }
        double ta = (lo - s->a[k]) / s->d[k], tb = (hi - s->a[k]) / s->d[k];
        if (ta > tb) {
            double t = ta;
            ta = tb;
            tb = t;
        }
        if (ta > t0) t0 = ta;
        if (tb < t1) t1 = tb;
        if (t0 > t1) return 0;
    }
    return 1;
}

int pf_query_segment(const pf_query_index *ix, const double a[3], const double b[3], double half_width,
                     pf_id_buffer *out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(ix, fn, "ix"));
    PF_TRY(pf_check_given(a, fn, "a"));
    PF_TRY(pf_check_given(b, fn, "b"));
    PF_TRY(pf_check_given(out, fn, "out"));
    PF_TRY(pf_check_finite_n(a, 3, fn, "a"));
    PF_TRY(pf_check_finite_n(b, 3, fn, "b"));
    PF_TRY(pf_check_nonnegative(half_width, fn, "half_width"));
    sweep s;
    s.hw = half_width;
    for (int k = 0; k < 3; k++) {
        s.a[k] = a[k];
        s.d[k] = b[k] - a[k];
        /* finite ends: plain comparisons, not the library's NaN-aware fmin/fmax calls (once per query) */
        s.bounds.min[k] = (a[k] < b[k] ? a[k] : b[k]) - half_width;
        s.bounds.max[k] = (a[k] < b[k] ? b[k] : a[k]) + half_width;
    }
    /* finite ends and width can still overflow: the motion's AABB must stay finite for the hash */
    for (int k = 0; k < 3; k++)
        if (!isfinite(s.bounds.min[k]) || !isfinite(s.bounds.max[k]))
            return pf_error(PF_EINVAL, "%s: the segment from a to b grown by half_width = %g overflows on axis %c "
                                       "(a[%d] = %g, b[%d] = %g)", fn, half_width, "xyz"[k], k, a[k], k, b[k]);
    return search(ix, &s.bounds, out, keep_sweep, &s, fn);
}

/* ---- radius neighbour search (Pouchol et al. 2009, §2.1 uniform hash, §4.1 kd tree comparison) ---- */

struct pf_neighbors {
    size_t n;
    size_t index_bytes; /* of the search structure, freed after the search */
    size_t *start; /* n + 1 offsets */
    PF_VEC(uint32_t) ids; /* the lists one after the other */
};

pf_neighbor_def pf_neighbor_default_def(void)
{
    return (pf_neighbor_def){.method = PF_NEIGHBORS_UHASH, .radius = 1};
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void sort_ids(uint32_t *v, size_t m)
{
    if (m > 24) {
        qsort(v, m, sizeof *v, cmp_u32);
        return;
    }
    for (size_t k = 1; k < m; k++) {
        uint32_t x = v[k];
        size_t t = k;
        for (; t > 0 && v[t - 1] > x; t--) v[t] = v[t - 1];
        v[t] = x;
    }
}

static inline int within(const double *p, const double *q, double r2)
{
    double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    return dx * dx + dy * dy + dz * dz <= r2;
}

/* Appends the candidates of `b` that are within the radius of particle i to the lists. */
static int append_list(pf_neighbors *nb, size_t i, const double *xyz, const uint32_t *cand, size_t m,
                       double r2)
{
    size_t first = nb->ids.n;
    for (size_t k = 0; k < m; k++) {
        uint32_t j = cand[k];
        if (j == i || !within(xyz + 3 * i, xyz + 3 * (size_t)j, r2)) continue;
        if (nb->ids.n == nb->ids.cap && pf_vec_reserve(&nb->ids, nb->ids.n + 1))
            return pf_error(PF_ENOMEM, "out of memory for %zu neighbours", nb->ids.n + 1);
        nb->ids.v[nb->ids.n++] = j;
    }
    sort_ids(nb->ids.v + first, nb->ids.n - first);
    nb->start[i + 1] = nb->ids.n;
    return PF_OK;
}

/* Classes above the finest in the hierarchy of the search at insertion: one every 2 (a cell has 64 children), so
 * that a particle far from the others stops after a few lookups of large cells (hasChildren unset). */
enum { NNS_CLASS_STEP = 2 };

/* Pouchol et al. 2009 §3.3.2, Listing 3: particle i, before its insertion, searches the cells of its 27 points for the
 * particles inserted before it; each pair within the radius goes into both lists. */
static int neighbors_at_insertion(pf_neighbors *nb, const double *xyz, size_t n, double r)
{
    double r2 = r * r;
    pf_isearch s = {0};
    pf_id_buffer buf = {0};
    PF_VEC(pf_pair) pairs = {0};
    size_t *count = pf_calloc(n + 1, sizeof *count);
    int rc = count ? pf_isearch_begin(&s, xyz, n, r, NNS_CLASS_STEP) : pf_error(PF_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && !rc; i++) {
        pf_idbuf_begin(&buf);
        rc = pf_isearch_candidates(&s, i, &buf);
        for (size_t k = 0; k < buf.n && !rc; k++) {
            uint32_t j = buf.ids[k];
            if (!within(xyz + 3 * i, xyz + 3 * (size_t)j, r2)) continue;
            count[i]++, count[j]++;
            rc = pf_vec_push(&pairs, ((pf_pair){j, (uint32_t)i}));
            if (rc) rc = pf_error(PF_ENOMEM, "out of memory for %zu neighbour pairs", pairs.n + 1);
        }
        if (!rc) rc = pf_isearch_insert(&s, i);
    }
    nb->index_bytes = pf_isearch_bytes(&s);
    pf_isearch_free(&s);
    pf_idbuf_release(&buf);
    /* the lists from the pairs: each pair in both */
    if (!rc && pf_vec_reserve(&nb->ids, 2 * pairs.n + 1))
        rc = pf_error(PF_ENOMEM, "out of memory for %zu neighbours", 2 * pairs.n);
    if (!rc) {
        for (size_t i = 0; i < n; i++) nb->start[i + 1] = nb->start[i] + count[i];
        memcpy(count, nb->start, n * sizeof *count); /* now each list's fill position */
        for (size_t k = 0; k < pairs.n; k++) {
            pf_pair p = pairs.v[k];
            nb->ids.v[count[p.i]++] = p.j;
            nb->ids.v[count[p.j]++] = p.i;
        }
        nb->ids.n = 2 * pairs.n;
        for (size_t i = 0; i < n; i++) sort_ids(nb->ids.v + nb->start[i], nb->start[i + 1] - nb->start[i]);
    }
    pf_vec_free(&pairs);
    pf_free(count);
    return rc;
}

static int neighbors_fill(pf_neighbors *nb, const pf_neighbor_def *def, const double *xyz, size_t n)
{
    double r = def->radius, r2 = r * r;
    int rc = PF_OK;
    pf_id_buffer buf = {0};
    nb->start[0] = 0;
    if (def->method == PF_NEIGHBORS_BRUTE) {
        uint32_t *all = pf_malloc((n ? n : 1) * sizeof *all);
        if (!all) return pf_error(PF_ENOMEM, "out of memory for %zu ids", n);
        for (size_t i = 0; i < n; i++) all[i] = (uint32_t)i;
        for (size_t i = 0; i < n && !rc; i++)
            rc = append_list(nb, i, xyz, all, n, r2);
        pf_free(all);
        return rc;
    }
    if (def->method == PF_NEIGHBORS_HHASH) return neighbors_at_insertion(nb, xyz, n, r);
    if (def->method == PF_NEIGHBORS_UHASH) {
        /* Pouchol et al. 2009, §2.1: points hashed into cells of edge r; the search box [p - r, p + r] covers the cell
         * of p and its 26 neighbours */
        pf_aabb *pts = pf_malloc((n ? n : 1) * sizeof *pts);
        pf_shash hash = {0};
        if (!pts) return pf_error(PF_ENOMEM, "out of memory for %zu points", n);
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) pts[i].min[k] = pts[i].max[k] = xyz[3 * i + (size_t)k];
        rc = pf_shash_build(&hash, PF_SHASH_UNIFORM, pts, n, r);
        nb->index_bytes = pf_shash_bytes(&hash) + n * sizeof *pts;
        if (!rc) rc = pf_idbuf_marks(&buf, n);
        for (size_t i = 0; i < n && !rc; i++) {
            pf_aabb q;
            for (int k = 0; k < 3; k++) q.min[k] = xyz[3 * i + (size_t)k] - r, q.max[k] = xyz[3 * i + (size_t)k] + r;
            pf_idbuf_begin(&buf);
            rc = pf_shash_query(&hash, &q, &buf);
            if (!rc) rc = append_list(nb, i, xyz, buf.ids, buf.n, r2);
        }
        pf_shash_free(&hash);
        pf_free(pts);
        pf_idbuf_release(&buf);
        return rc;
    }
    pf_rangequery_def rd = pf_rangequery_default_def();
    rd.method = PF_RQ_KDTREE;
    pf_rangequery *rq = NULL;
    rc = pf_rangequery_create(&rd, &rq);
    if (!rc) rc = pf_rangequery_build(rq, xyz, n);
    nb->index_bytes = pf_rangequery_bytes(rq);
    for (size_t i = 0; i < n && !rc; i++) {
        double lo[3], hi[3];
        for (int k = 0; k < 3; k++) lo[k] = xyz[3 * i + (size_t)k] - r, hi[k] = xyz[3 * i + (size_t)k] + r;
        rc = pf_rangequery_find(rq, lo, hi, &buf);
        if (!rc) rc = append_list(nb, i, xyz, buf.ids, buf.n, r2);
    }
    pf_rangequery_destroy(rq);
    pf_idbuf_release(&buf);
    return rc;
}

int pf_neighbors_create(const pf_neighbor_def *def, const double *xyz, size_t n, pf_neighbors **out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(out, fn, "out"));
    *out = NULL;
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_enum((int)def->method, PF_NEIGHBORS_METHOD_COUNT, fn, "def.method"));
    PF_TRY(pf_check_positive(def->radius, fn, "def.radius"));
    PF_TRY(pf_check_size(n, 3 * sizeof *xyz, fn, "n"));
    PF_TRY(pf_check_int_range((long long)n, 0, (long long)UINT32_MAX - 1, fn, "n"));
    if (n) PF_TRY(pf_check_given(xyz, fn, "xyz (n > 0)"));
    PF_TRY(pf_check_finite_n(xyz, 3 * n, fn, "xyz"));
    pf_neighbors *nb = pf_calloc(1, sizeof *nb);
    if (!nb) return pf_error(PF_ENOMEM, "%s: out of memory for neighbour lists", fn);
    nb->n = n;
    nb->start = pf_calloc(n + 1, sizeof *nb->start);
    int rc = nb->start ? neighbors_fill(nb, def, xyz, n) : pf_error(PF_ENOMEM, "out of memory for %zu lists", n);
    if (rc) {
        pf_neighbors_destroy(nb);
        return pf_error_in(rc, fn);
    }
    *out = nb;
    return PF_OK;
}

void pf_neighbors_destroy(pf_neighbors *nb)
{
    if (!nb) return;
    pf_free(nb->start);
    pf_vec_free(&nb->ids);
    pf_free(nb);
}

int pf_neighbors_of(const pf_neighbors *nb, size_t i, const uint32_t **ids, size_t *count)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(nb, fn, "nb"));
    PF_TRY(pf_check_given(ids, fn, "ids"));
    PF_TRY(pf_check_given(count, fn, "count"));
    PF_TRY(pf_check_index(i, nb->n, fn, "particle"));
    *ids = nb->ids.v + nb->start[i];
    *count = nb->start[i + 1] - nb->start[i];
    return PF_OK;
}

size_t pf_neighbors_total(const pf_neighbors *nb)
{
    return nb ? nb->ids.n : 0;
}

size_t pf_neighbors_index_bytes(const pf_neighbors *nb)
{
    return nb ? nb->index_bytes : 0;
}

size_t pf_neighbors_bytes(const pf_neighbors *nb)
{
    return nb ? sizeof *nb + (nb->n + 1) * sizeof *nb->start + nb->ids.cap * sizeof *nb->ids.v : 0;
}
