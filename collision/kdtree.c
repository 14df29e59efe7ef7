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

/* paper 000 §4.1: split a box along the cutting plane its corners straddle, at most once per axis (`done` holds
 * the axes already cut); Figure 7: a split that does not shrink the summed volume of the enclosing cells is
 * suppressed. Writes up to 8 cell keys to out and returns how many. Corners are quantised (lo, hi) with their
 * Morton codes (mlo, mhi). */
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
    uint64_t tmp[8];
    int n1 = split_box(lo, lhi, mlo, mlhi, done | 1u << a, tmp);
    int n2 = split_box(ulo, hi, mulo, mhi, done | 1u << a, tmp + n1);
    uint64_t vol = 0;
    for (int k = 0; k < n1 + n2; k++) vol += low_bit(tmp[k]);
    if (vol >= low_bit(key)) {
        out[0] = key;
        return 1;
    }
    memcpy(out, tmp, (size_t)(n1 + n2) * sizeof *out);
    return n1 + n2;
}

/* The records of one box: up to 8 keys. */
static inline int box_keys(const pf_quantiser *q, const pf_aabb *b, int split, uint64_t *out)
{
    uint32_t lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = pf_quantise(q, a, b->min[a]);
        hi[a] = pf_quantise(q, a, b->max[a]);
    }
    uint64_t mlo = pf_morton3(lo[0], lo[1], lo[2]), mhi = pf_morton3(hi[0], hi[1], hi[2]);
    if (!split) {
        out[0] = cell_key(mlo, mhi);
        return 1;
    }
    return split_box(lo, hi, mlo, mhi, 0, out);
}

typedef struct kd_state {
    int raw;
    uint64_t *keys, *keys2;
    uint32_t *vals, *vals2;
    size_t cap;  /* entries of keys / vals */
    size_t cap2; /* entries of keys2 / vals2 */
    size_t *chunk_records;
    int chunk_cap;
    pf_radix_scratch radix;
    pf_pair_chunks chunks;
    /* Boxes renumbered in sweep order (rank = order of first appearance in the sorted records), so that the
     * sweep reads boxes that lie near each other in memory instead of all over the caller's array. */
    uint32_t *rank_of; /* box index -> rank */
    uint32_t *box_of;  /* rank -> box index */
    pf_aabb *ranked;   /* boxes by rank */
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
    pf_free(s->rank_of);
    pf_free(s->box_of);
    pf_free(s->ranked);
    pf_free(s);
}

/* Renumbers the boxes in the order they first appear in the sorted records: V then holds ranks. */
static int rank_boxes(kd_state *s, const pf_aabb *boxes, size_t n, uint32_t *V, size_t m)
{
    if (n > s->rank_cap) {
        pf_free(s->rank_of);
        pf_free(s->box_of);
        pf_free(s->ranked);
        s->rank_of = pf_malloc(n * sizeof *s->rank_of);
        s->box_of = pf_malloc(n * sizeof *s->box_of);
        s->ranked = pf_malloc(n * sizeof *s->ranked);
        s->rank_cap = s->rank_of && s->box_of && s->ranked ? n : 0;
        if (!s->rank_cap) return pf_error(PF_ENOMEM, "out of memory for %zu ranked boxes", n);
    }
    uint32_t *rank_of = s->rank_of, *box_of = s->box_of;
    pf_aabb *ranked = s->ranked;
    memset(rank_of, 0xff, n * sizeof *rank_of);
    uint32_t next = 0;
    for (size_t r = 0; r < m; r++) {
        uint32_t a = V[r], k = rank_of[a];
        if (k == UINT32_MAX) {
            k = rank_of[a] = next++;
            box_of[k] = a;
            ranked[k] = boxes[a];
        }
        V[r] = k;
    }
    PF_ASSERT(next == n);
    return PF_OK;
}

/* Grows a (keys, vals) pair of buffers to at least `need` entries, keeping the first `keep`. */
static int grow_records(uint64_t **keys, uint32_t **vals, size_t *cap, size_t need, size_t keep)
{
    if (need <= *cap) return PF_OK;
    size_t c = need + need / 8 + 1024;
    uint64_t *k = pf_realloc(*keys, keep * sizeof *k, c * sizeof *k);
    if (!k) return pf_error(PF_ENOMEM, "out of memory for %zu kd-tree records", c);
    *keys = k;
    uint32_t *v = pf_realloc(*vals, keep * sizeof *v, c * sizeof *v);
    if (!v) return pf_error(PF_ENOMEM, "out of memory for %zu kd-tree records", c);
    *vals = v;
    *cap = c;
    return PF_OK;
}

/* The records (cell key, box index) of every box, in box order. Returns their number through *count. */
static int build_records(kd_state *s, const pf_quantiser *q, const pf_aabb *boxes, size_t n, int split, int threads,
                         size_t *count)
{
    if (threads == 1) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (m + 8 > s->cap) {
                int rc = grow_records(&s->keys, &s->vals, &s->cap, m + 8 + (n - i) * 2, m);
                if (rc) return rc;
            }
            int k = box_keys(q, &boxes[i], split, s->keys + m);
            for (int r = 0; r < k; r++) s->vals[m + r] = (uint32_t)i;
            m += (size_t)k;
        }
        *count = m;
        return PF_OK;
    }
    /* Several threads: count each chunk's records, then write them at the chunk's offset, so the array is the
     * same whatever the number of chunks. */
    if (threads > s->chunk_cap) {
        size_t *c = pf_realloc(s->chunk_records, (size_t)s->chunk_cap * sizeof *c, (size_t)threads * sizeof *c);
        if (!c) return pf_error(PF_ENOMEM, "out of memory for chunk counts");
        s->chunk_records = c;
        s->chunk_cap = threads;
    }
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
    int rc = grow_records(&s->keys, &s->vals, &s->cap, total, 0);
    if (rc) return rc;
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int c = 0; c < threads; c++) {
        size_t lo, hi, m = s->chunk_records[c];
        pf_chunk_range(n, threads, c, &lo, &hi);
        for (size_t i = lo; i < hi; i++) {
            int k = box_keys(q, &boxes[i], split, s->keys + m);
            for (int r = 0; r < k; r++) s->vals[m + r] = (uint32_t)i;
            m += (size_t)k;
        }
    }
    *count = total;
    return PF_OK;
}

/* Is the point code pk (a leaf key) inside the cell of key k? Keys of the cell's subtree are (k - h, k + h). */
static inline int cell_contains(uint64_t k, uint64_t pk)
{
    uint64_t h = low_bit(k);
    return pk - k + h - 1 < (h << 1) - 1;
}

/* paper 000 §5.5: the sweep. Record i pairs with the records of its cell that follow it and with every record
 * of its subtree below; with in-order keys those lie in (key - h, key + h) around i. For `kd` a candidate is
 * kept when the boxes overlap and the lower corner of their intersection lies in the deeper of the two cells:
 * that corner is in exactly one sub-box of each box, so each pair is reported once, without a global
 * sort-unique pass. */
static void sweep_range(const kd_state *s, const pf_quantiser *q, const uint64_t *K, const uint32_t *V, size_t m,
                        const pf_aabb *boxes, size_t lo, size_t hi, pf_pair_vec *out, uint64_t *candidates,
                        int *status)
{
    uint64_t cand = 0;
    int raw = s->raw;
    for (size_t i = lo; i < hi; i++) {
        uint64_t ki = K[i], h = low_bit(ki);
        uint32_t a = V[i];
        const pf_aabb *A = &boxes[a];
        size_t first = i;
        while (first > 0 && K[first - 1] == ki) first--; /* same cell, before i: they pair with i themselves */
        size_t jb = first;
        while (jb > 0 && ki - K[jb - 1] < h) jb--;
        size_t je = i + 1;
        while (je < m && K[je] - ki < h) je++;
        for (size_t j = jb; j < je; j++) {
            if (j >= first && j <= i) {
                j = i;
                continue;
            }
            uint32_t b = V[j];
            cand++;
            if (!raw) {
                const pf_aabb *B = &boxes[b];
                if (!pf_aabb_overlap(A, B)) continue;
                uint32_t c0 = pf_quantise(q, 0, A->min[0] > B->min[0] ? A->min[0] : B->min[0]);
                uint32_t c1 = pf_quantise(q, 1, A->min[1] > B->min[1] ? A->min[1] : B->min[1]);
                uint32_t c2 = pf_quantise(q, 2, A->min[2] > B->min[2] ? A->min[2] : B->min[2]);
                uint64_t pk = pf_morton3(c0, c1, c2) << 1 | 1;
                if (!cell_contains(K[j], pk)) continue; /* K[j] is the deeper cell (or the same) */
            }
            uint32_t oa = s->box_of[a], ob = s->box_of[b];
            if (pf_pair_vec_push(out, oa < ob ? oa : ob, oa < ob ? ob : oa)) {
                *status = PF_ENOMEM;
                *candidates += cand;
                return;
            }
        }
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
    rc = grow_records(&s->keys2, &s->vals2, &s->cap2, m, 0);
    if (rc) return rc;
    int where = pf_radix_sort64(s->keys, s->vals, s->keys2, s->vals2, m, threads, &s->radix);
    if (where < 0) return where;
    const uint64_t *K = where ? s->keys2 : s->keys;
    uint32_t *V = where ? s->vals2 : s->vals;
    rc = rank_boxes(s, boxes, n, V, m);
    if (rc) return rc;
    boxes = s->ranked;

    /* Summed cell volume, in leaf cells, exactly (two-word sum) so it does not depend on the thread count. */
    uint64_t vlo = 0, vhi = 0;
    for (size_t r = 0; r < m; r++) {
        uint64_t v = low_bit(K[r]);
        vlo += v;
        vhi += vlo < v;
    }
    double leaf = q.scale > 0.0 ? 1.0 / q.scale : 0.0;
    stats->cell_volume = ((double)vhi * 18446744073709551616.0 + (double)vlo) * leaf * leaf * leaf;
    stats->records = m;

    if (threads == 1) {
        int status = PF_OK;
        sweep_range(s, &q, K, V, m, boxes, 0, m, out, &stats->candidates, &status);
        if (status) return pf_error(PF_ENOMEM, "out of memory for candidate pairs");
    } else {
        rc = pf_pair_chunks_reset(&s->chunks, threads);
        if (rc) return rc;
#pragma omp parallel for num_threads(threads) schedule(static, 1)
        for (int c = 0; c < threads; c++) {
            size_t lo, hi;
            pf_chunk_range(m, threads, c, &lo, &hi);
            sweep_range(s, &q, K, V, m, boxes, lo, hi, &s->chunks.vec[c], &s->chunks.candidates[c],
                        &s->chunks.status[c]);
        }
        rc = pf_pair_chunks_gather(&s->chunks, out, &stats->candidates);
        if (rc) return rc;
    }
    stats->bytes = sizeof *s + (s->cap + s->cap2) * (sizeof(uint64_t) + sizeof(uint32_t)) +
                   (size_t)s->chunk_cap * sizeof(size_t) + pf_radix_scratch_bytes(&s->radix) +
                   s->rank_cap * (2 * sizeof(uint32_t) + sizeof(pf_aabb)) +
                   pf_pair_chunks_bytes(&s->chunks);
    return PF_OK;
}

const pf_bp_backend pf_bp_kd_backend = {kd_create, kd_destroy, kd_pairs};
const pf_bp_backend pf_bp_kd_raw_backend = {kd_raw_create, kd_destroy, kd_pairs};
