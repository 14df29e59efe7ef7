/* The linear kd-tree broad phase of paper 000: locational codes of split boxes, radix sort, prefix sweep.
 * Backends `kd` (unique pairs after the exact AABB test, the paper's kd-tree-2) and `kd-raw` (every candidate
 * with its duplicates, the paper's kd-tree-1). */
#include "broadphase_backend.h"
#include "morton.h"
#include "pair_chunks.h"
#include "radix_sort.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* A cell key orders the cells of the kd-tree in order (left subtree, cell, right subtree): the cell's path from
 * the root (its locational code, paper 000 §5.1) followed by a 1 bit and zeros, in 64 bits (63 code bits and the
 * marker). A key's lowest set bit h is then the cell's volume in leaf cells, and the keys of the cell's subtree
 * are exactly the open interval (key - h, key + h): sorting by key keeps a subtree contiguous (paper 000 §5.4,
 * Properties 2-4, with the cell in the middle of its subtree instead of in front). */

/* paper 000 §5.3: the cell of a box is the longest common prefix of its corners' codes (one bit scan). */
static inline uint64_t cell_key(uint64_t mlo, uint64_t mhi)
{
    uint64_t x = mlo ^ mhi;
    if (!x) return mlo << 1 | 1; /* a leaf cell: the full 63-bit path */
    int p = 63 - __builtin_clzll(x);
    return ((mlo >> p) | 1) << (p + 1);
}

static inline uint64_t low_bit(uint64_t k)
{
    return k & (~k + 1);
}

/* Quantised corners packed 21 bits per axis (x high, z low), so a box's integer image is two words. */
#define QMASK 0x1fffffull
static inline uint64_t qpack(const uint32_t c[3])
{
    return (uint64_t)c[0] << 42 | (uint64_t)c[1] << 21 | c[2];
}
static inline uint32_t qget(uint64_t p, int a)
{
    return (uint32_t)(p >> (42 - 21 * a) & QMASK);
}

/* paper 000 §4.1: split a box along the cutting plane its corners straddle, at most once per axis (`done` holds
 * the axes already cut); Figure 7: a split that does not shrink the summed volume of the enclosing cells is
 * suppressed. Writes up to 8 cell keys to out (in key order) and returns how many. Corners are quantised
 * (lo, hi) with their Morton codes (mlo, mhi). */
static int split_box(const uint32_t lo[3], const uint32_t hi[3], uint64_t mlo, uint64_t mhi, unsigned done,
                     uint64_t *out)
{
    uint64_t x = mlo ^ mhi;
    uint64_t key = cell_key(mlo, mhi);
    if (!x) {
        out[0] = key;
        return 1;
    }
    int p = 63 - __builtin_clzll(x);
    int a = 2 - p % 3, b = p / 3;
    if (done >> a & 1) {
        out[0] = key; /* already cut along this axis: the box lies on its cell's boundary (Property 1) */
        return 1;
    }
    uint32_t s = (hi[a] >> b) << b; /* the cutting plane: hi has bit b set, lo has it clear, above are equal */
    int shift = 2 - a;
    uint64_t amask = 0x1249249249249249ull << shift;
    uint32_t lhi[3] = {hi[0], hi[1], hi[2]};
    uint32_t ulo[3] = {lo[0], lo[1], lo[2]};
    lhi[a] = s - 1;
    ulo[a] = s;
    uint64_t mlhi = (mhi & ~amask) | pf_morton_spread(s - 1) << shift;
    uint64_t mulo = (mlo & ~amask) | pf_morton_spread(s) << shift;
    /* children write straight into out; the parent's key replaces them when the split does not pay */
    int n1 = split_box(lo, lhi, mlo, mlhi, done | 1u << a, out);
    int n2 = split_box(ulo, hi, mulo, mhi, done | 1u << a, out + n1);
    uint64_t vol = 0, h = low_bit(key);
    for (int k = 0; k < n1 + n2; k++) vol += low_bit(out[k]);
    if (vol >= h) {
        out[0] = key;
        return 1;
    }
    return n1 + n2;
}

static inline void quantise_box(const pf_quantiser *q, const pf_aabb *b, uint32_t lo[3], uint32_t hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = pf_quantise(q, a, b->min[a]);
        hi[a] = pf_quantise(q, a, b->max[a]);
    }
}

/* The records of one box: up to 8 keys. */
static inline int box_keys(const pf_quantiser *q, const pf_aabb *b, int split, uint64_t *out)
{
    uint32_t lo[3], hi[3];
    quantise_box(q, b, lo, hi);
    uint64_t mlo = pf_morton3(lo[0], lo[1], lo[2]), mhi = pf_morton3(hi[0], hi[1], hi[2]);
    if (!split) {
        out[0] = cell_key(mlo, mhi);
        return 1;
    }
    return split_box(lo, hi, mlo, mhi, 0, out);
}

typedef struct kd_state {
    int raw;
    uint64_t *keys, *keys2; /* records (cell key, box) and the sort's second buffer */
    uint32_t *vals, *vals2;
    size_t cap;  /* entries of keys / vals */
    size_t cap2; /* entries of keys2 / vals2 */
    size_t last_records, last_pairs;
    size_t *chunk_records; /* per thread */
    int chunk_cap;
    pf_radix_scratch radix;
    pf_pair_chunks chunks;
    /* Boxes renumbered in sweep order (rank = order of first appearance in the sorted records), kept as their
     * quantised corners only (16 bytes instead of 48): the sweep reads boxes that lie near each other in
     * memory, and goes back to the caller's doubles only for the rare quantised ties. */
    uint64_t *qlo, *qhi; /* by rank */
    uint32_t *box_of;    /* rank -> box index */
    size_t rank_cap;
} kd_state;

static int kd_create_common(int raw, void **state)
{
    kd_state *s = pf_calloc(1, sizeof *s);
    if (!s) return pf_error(PF_ENOMEM, "out of memory for a broad phase");
    s->raw = raw;
    *state = s;
    return PF_OK;
}

static int kd_create(const pf_broadphase_def *def, void **state)
{
    (void)def;
    return kd_create_common(0, state);
}

static int kd_raw_create(const pf_broadphase_def *def, void **state)
{
    (void)def;
    return kd_create_common(1, state);
}

static void kd_destroy(void *state)
{
    kd_state *s = state;
    if (!s) return;
    pf_free(s->keys);
    pf_free(s->keys2);
    pf_free(s->vals);
    pf_free(s->vals2);
    pf_free(s->chunk_records);
    pf_radix_scratch_free(&s->radix);
    pf_pair_chunks_free(&s->chunks);
    pf_free(s->qlo);
    pf_free(s->qhi);
    pf_free(s->box_of);
    pf_free(s);
}

/* Grows a (keys, vals) pair of buffers to at least `need` entries, keeping the first `keep`. */
static int grow_records(uint64_t **keys, uint32_t **vals, size_t *cap, size_t need, size_t keep)
{
    if (need <= *cap) return PF_OK;
    size_t c = need + need / 16 + 1024;
    uint64_t *k = pf_realloc(*keys, keep * sizeof *k, c * sizeof *k);
    if (!k) return pf_error(PF_ENOMEM, "out of memory for %zu kd-tree records", c);
    *keys = k;
    uint32_t *v = pf_realloc(*vals, keep * sizeof *v, c * sizeof *v);
    if (!v) return pf_error(PF_ENOMEM, "out of memory for %zu kd-tree records", c);
    *vals = v;
    *cap = c;
    return PF_OK;
}

/* Writes the records of boxes [lo, hi) from K + at, V + at, stopping (returns 0) when they would pass `end`;
 * else returns 1 with *written set. */
static int write_chunk(const pf_quantiser *q, const pf_aabb *boxes, size_t lo, size_t hi, int split, uint64_t *K,
                       uint32_t *V, size_t at, size_t end, size_t *written)
{
    size_t m = at;
    for (size_t i = lo; i < hi; i++) {
        if (m + 8 > end) {
            uint64_t tmp[8];
            int k = box_keys(q, &boxes[i], split, tmp);
            if (m + (size_t)k > end) return 0;
            memcpy(K + m, tmp, (size_t)k * sizeof *K);
            for (int r = 0; r < k; r++) V[m + r] = (uint32_t)i;
            m += (size_t)k;
            continue;
        }
        int k = box_keys(q, &boxes[i], split, K + m);
        for (int r = 0; r < k; r++) V[m + r] = (uint32_t)i;
        m += (size_t)k;
    }
    *written = m - at;
    return 1;
}

/* The records (cell key, box index) of every box, in box order. Each thread writes its chunk of boxes at an
 * offset proportional to the chunk's start, sized from the previous call; the chunks are then closed up. When a
 * chunk overflows its room, every chunk is counted first and written at its exact offset. The array is the same
 * whatever the number of threads. */
static int build_records(kd_state *s, const pf_quantiser *q, const pf_aabb *boxes, size_t n, int split, int threads,
                         size_t *count)
{
    if (threads > s->chunk_cap) {
        size_t *c = pf_realloc(s->chunk_records, (size_t)s->chunk_cap * sizeof *c, (size_t)threads * sizeof *c);
        if (!c) return pf_error(PF_ENOMEM, "out of memory for chunk counts");
        s->chunk_records = c;
        s->chunk_cap = threads;
    }
    size_t guess = s->last_records ? s->last_records + s->last_records / 16 : n * (split ? 7 : 1);
    if (guess < n) guess = n;
    int rc = grow_records(&s->keys, &s->vals, &s->cap, guess + 8 * (size_t)threads, 0);
    if (rc) return rc;
    size_t cap = s->cap;
    int ok = 1;
#pragma omp parallel for num_threads(threads) schedule(static, 1) reduction(& : ok)
    for (int c = 0; c < threads; c++) {
        size_t lo, hi, at, end, w = 0;
        pf_chunk_range(n, threads, c, &lo, &hi);
        at = (size_t)((double)cap * (double)lo / (double)n);
        end = c + 1 == threads ? cap : (size_t)((double)cap * (double)hi / (double)n);
        ok &= write_chunk(q, boxes, lo, hi, split, s->keys, s->vals, at, end, &w);
        s->chunk_records[c] = w;
    }
    if (ok) {
        size_t m = 0;
        for (int c = 0; c < threads; c++) {
            size_t lo, hi;
            pf_chunk_range(n, threads, c, &lo, &hi);
            size_t at = (size_t)((double)cap * (double)lo / (double)n), w = s->chunk_records[c];
            if (at != m) {
                memmove(s->keys + m, s->keys + at, w * sizeof *s->keys);
                memmove(s->vals + m, s->vals + at, w * sizeof *s->vals);
            }
            m += w;
        }
        *count = m;
        return PF_OK;
    }
    /* Slow path (first call, or boxes that split much more than last time): count, then write. */
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int c = 0; c < threads; c++) {
        size_t lo, hi, m = 0;
        uint64_t tmp[8];
        pf_chunk_range(n, threads, c, &lo, &hi);
        for (size_t i = lo; i < hi; i++) m += (size_t)box_keys(q, &boxes[i], split, tmp);
        s->chunk_records[c] = m;
    }
    size_t total = 0;
    for (int c = 0; c < threads; c++) {
        size_t m = s->chunk_records[c];
        s->chunk_records[c] = total;
        total += m;
    }
    rc = grow_records(&s->keys, &s->vals, &s->cap, total, 0);
    if (rc) return rc;
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int c = 0; c < threads; c++) {
        size_t lo, hi, w;
        pf_chunk_range(n, threads, c, &lo, &hi);
        write_chunk(q, boxes, lo, hi, split, s->keys, s->vals, s->chunk_records[c], (size_t)-1 / 2, &w);
    }
    *count = total;
    return PF_OK;
}

/* Renumbers the boxes in the order they first appear in the sorted records (V then holds ranks), keeps their
 * quantised corners by rank, and sums the records' cell volumes (in leaf cells, two words: exact). `rank_of`
 * is n words of scratch. */
static int rank_boxes(kd_state *s, const pf_quantiser *q, const pf_aabb *boxes, size_t n, const uint64_t *K,
                      uint32_t *V, size_t m, uint32_t *rank_of, uint64_t vol[2])
{
    if (n > s->rank_cap) {
        pf_free(s->qlo);
        pf_free(s->qhi);
        pf_free(s->box_of);
        s->qlo = pf_malloc(n * sizeof *s->qlo);
        s->qhi = pf_malloc(n * sizeof *s->qhi);
        s->box_of = pf_malloc(n * sizeof *s->box_of);
        s->rank_cap = s->qlo && s->qhi && s->box_of ? n : 0;
        if (!s->rank_cap) return pf_error(PF_ENOMEM, "out of memory for %zu ranked boxes", n);
    }
    uint32_t *box_of = s->box_of;
    uint64_t *qlo = s->qlo, *qhi = s->qhi;
    memset(rank_of, 0xff, n * sizeof *rank_of);
    uint32_t next = 0;
    uint64_t vlo = 0, vhi = 0;
    for (size_t r = 0; r < m; r++) {
        if (r + 24 < m) { /* the boxes are read in sorted-record order: all over the caller's array */
            __builtin_prefetch(&rank_of[V[r + 24]]);
            __builtin_prefetch(&boxes[V[r + 24]]);
        }
        uint64_t v = low_bit(K[r]);
        vlo += v;
        vhi += vlo < v;
        uint32_t a = V[r], k = rank_of[a];
        if (k == UINT32_MAX) {
            k = rank_of[a] = next++;
            box_of[k] = a;
            uint32_t lo[3], hi[3];
            quantise_box(q, &boxes[a], lo, hi);
            qlo[k] = qpack(lo);
            qhi[k] = qpack(hi);
        }
        V[r] = k;
    }
    PF_ASSERT(next == n);
    vol[0] = vlo;
    vol[1] = vhi;
    return PF_OK;
}

/* Is the point code pk (a leaf key) inside the cell of key k? Keys of the cell's subtree are (k - h, k + h). */
static inline int cell_contains(uint64_t k, uint64_t pk)
{
    uint64_t h = low_bit(k);
    return pk - k + h - 1 < (h << 1) - 1;
}

/* A box's quantised corners, unpacked once per record of the sweep's outer loop. */
typedef struct qbox {
    uint32_t lo[3], hi[3];
} qbox;

static inline void qbox_load(const kd_state *s, uint32_t r, qbox *b)
{
    uint64_t l = s->qlo[r], h = s->qhi[r];
    for (int ax = 0; ax < 3; ax++) {
        b->lo[ax] = qget(l, ax);
        b->hi[ax] = qget(h, ax);
    }
}

/* The exact test of `kd` on ranked boxes a and b, where key kb is the deeper of their two cells (or the same):
 * the boxes overlap and the lower corner of their intersection lies in cell kb. That corner is in exactly one
 * sub-box of each box, so each pair passes once. On the quantised corners (monotone, morton.h) a strict
 * inequality decides an axis; only an equality goes back to the caller's doubles. */
static inline int kd_accept(const kd_state *s, const pf_aabb *boxes, const qbox *A, uint32_t a, uint32_t b,
                            uint64_t kb)
{
    uint64_t lb = s->qlo[b], hb = s->qhi[b];
    uint32_t c[3];
    int tie = 0;
    for (int ax = 0; ax < 3; ax++) {
        uint32_t l2 = qget(lb, ax), h2 = qget(hb, ax);
        if (A->hi[ax] < l2 || h2 < A->lo[ax]) return 0;
        tie |= (A->hi[ax] == l2) | (h2 == A->lo[ax]);
        c[ax] = A->lo[ax] > l2 ? A->lo[ax] : l2;
    }
    /* q(max(x, y)) = max(q(x), q(y)): the quantised corner of the intersection */
    if (!cell_contains(kb, pf_morton3(c[0], c[1], c[2]) << 1 | 1)) return 0;
    return !tie || pf_aabb_overlap(&boxes[s->box_of[a]], &boxes[s->box_of[b]]);
}

/* paper 000 §5.5: the sweep, over the runs of equal keys (cells) that start in [lo, hi). Record i pairs with the
 * records of its cell that follow it and with every record of its subtree; with in-order keys those lie in
 * (key - h, key + h) around the run. */
static void sweep_range(const kd_state *s, const pf_aabb *boxes, const uint64_t *K, const uint32_t *V, size_t m,
                        size_t lo, size_t hi, pf_pair_vec *out, uint64_t *candidates, int *status)
{
    uint64_t cand = 0;
    int raw = s->raw;
    const uint32_t *box_of = s->box_of;
    size_t rs = lo;
    while (rs > 0 && rs < m && K[rs - 1] == K[rs]) rs++; /* a run that starts before lo belongs to the chunk before */
    while (rs < hi) {
        uint64_t k = K[rs], h = low_bit(k);
        size_t re = rs + 1;
        while (re < m && K[re] == k) re++;
        size_t jb = rs;
        while (jb > 0 && k - K[jb - 1] < h) jb--;
        size_t je = re;
        while (je < m && K[je] - k < h) je++;
        cand += (uint64_t)(re - rs) * (uint64_t)(re - rs - 1) / 2 + (uint64_t)(re - rs) * (uint64_t)(je - jb - (re - rs));
        for (size_t i = rs; i < re; i++) {
            uint32_t a = V[i];
            qbox A;
            qbox_load(s, a, &A);
            for (size_t j = jb; j < je; j++) {
                if (j == rs) {
                    j = i; /* same cell: only the records after i */
                    continue;
                }
                uint32_t b = V[j];
                if (!raw && !kd_accept(s, boxes, &A, a, b, K[j])) continue;
                uint32_t oa = box_of[a], ob = box_of[b];
                if (pf_pair_vec_push(out, oa < ob ? oa : ob, oa < ob ? ob : oa)) {
                    *status = PF_ENOMEM;
                    *candidates += cand;
                    return;
                }
            }
        }
        rs = re;
    }
    *candidates += cand;
}

static int kd_pairs(void *state, const pf_broadphase_def *def, const pf_aabb *boxes, size_t n, pf_pair_vec *out,
                    pf_broadphase_stats *stats)
{
    kd_state *s = state;
    int threads = def->threads;
    if (n < 4096) threads = 1;
    pf_quantiser q;
    pf_quantiser_fit(&q, boxes, n, threads);
    size_t m = 0;
    int rc = build_records(s, &q, boxes, n, def->kd_split, threads, &m);
    if (rc) return rc;
    s->last_records = m;
    rc = grow_records(&s->keys2, &s->vals2, &s->cap2, m, 0);
    if (rc) return rc;
    int where = pf_radix_sort64(s->keys, s->vals, s->keys2, s->vals2, m, threads, &s->radix);
    if (where < 0) return where;
    const uint64_t *K = where ? s->keys2 : s->keys;
    uint32_t *V = where ? s->vals2 : s->vals;
    /* the other buffer is free now: n words of it serve as the box -> rank map */
    uint32_t *rank_of = (uint32_t *)(where ? s->keys : s->keys2);
    uint64_t vol[2] = {0, 0};
    rc = rank_boxes(s, &q, boxes, n, K, V, m, rank_of, vol);
    if (rc) return rc;

    double leaf = q.scale > 0.0 ? 1.0 / q.scale : 0.0;
    stats->cell_volume = ((double)vol[1] * 18446744073709551616.0 + (double)vol[0]) * leaf * leaf * leaf;
    stats->records = m;

    /* the output's room from the previous call, so that it does not grow by doubling */
    rc = pf_pair_vec_reserve(out, s->last_pairs + s->last_pairs / 16);
    if (rc) return rc;
    if (threads == 1) {
        int status = PF_OK;
        sweep_range(s, boxes, K, V, m, 0, m, out, &stats->candidates, &status);
        if (status) return pf_error(PF_ENOMEM, "out of memory for candidate pairs");
    } else {
        rc = pf_pair_chunks_reset(&s->chunks, threads);
        if (rc) return rc;
#pragma omp parallel for num_threads(threads) schedule(static, 1)
        for (int c = 0; c < threads; c++) {
            size_t lo, hi;
            pf_chunk_range(m, threads, c, &lo, &hi);
            sweep_range(s, boxes, K, V, m, lo, hi, &s->chunks.vec[c], &s->chunks.candidates[c],
                        &s->chunks.status[c]);
        }
        rc = pf_pair_chunks_gather(&s->chunks, out, &stats->candidates);
        if (rc) return rc;
    }
    s->last_pairs = out->n;
    stats->bytes = sizeof *s + (s->cap + s->cap2) * (sizeof(uint64_t) + sizeof(uint32_t)) +
                   (size_t)s->chunk_cap * sizeof(size_t) + pf_radix_scratch_bytes(&s->radix) +
                   s->rank_cap * (2 * sizeof(uint64_t) + sizeof(uint32_t)) + pf_pair_chunks_bytes(&s->chunks);
    return PF_OK;
}

const pf_bp_backend pf_bp_kd_backend = {kd_create, kd_destroy, kd_pairs};
const pf_bp_backend pf_bp_kd_raw_backend = {kd_raw_create, kd_destroy, kd_pairs};
