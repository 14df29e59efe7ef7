/* The stencil sweep of the grid (see grid_scan.h). Each row range is read in windows of GRID_WINDOW records
 * whose tests and pair stores run without a branch per record: the ranges hold 0 to 3 records in the usual
 * sparse case, and a loop whose trip count is data would mispredict once or twice per range; the row pointers
 * move GRID_ADVANCE records at a time the same way. The AVX2 version tests a record with two vector
 * comparisons instead of six; the scalar one is the reference, and both store the same pairs in the same
 * order. */
#include "grid_scan.h"

#include "base/error.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GRID_HAVE_AVX2 1
#include <immintrin.h>
#else
#define GRID_HAVE_AVX2 0
#endif

int pf_grid_simd = 1;

/* Where the pairs go: the next free slot and the end of the room, held in registers for the whole sweep (kept in
 * out->n, each window's pair count would pass through memory, a store and a load on every window's path). */
typedef struct sink {
    pf_pair *o, *end;
} sink;

static inline sink sink_of(const pf_pair_vec *out)
{
    sink k = {out->data + out->n, out->data + out->cap};
    return k;
}

/* Room for one window's stores at k->o (the stores of lanes without a pair are overwritten later). */
static inline int window_room(pf_pair_vec *out, sink *k)
{
    if (k->end - k->o >= GRID_WINDOW) return PF_OK;
    out->n = (size_t)(k->o - out->data);
    if (pf_pair_vec_reserve(out, out->n + GRID_WINDOW)) return PF_ENOMEM;
    *k = sink_of(out);
    return PF_OK;
}

/* Stores the pairs (a, box of record b + j) of the lanes j set in `mask`, smaller index first, in lane order. */
static inline void window_emit(sink *k, const pf_grid_rec *R, size_t b, uint32_t a, unsigned mask)
{
    pf_pair *o = k->o;
    for (int j = 0; j < GRID_WINDOW; j++) {
        uint32_t c = R[b + (size_t)j].box;
        o->i = a < c ? a : c;
        o->j = a < c ? c : a;
        o += (mask >> j) & 1u;
    }
    k->o = o;
}

/* The lanes of the window at b whose keys are at most `last` (a prefix: keys ascend). */
static inline unsigned keys_le(const pf_grid_rec *R, size_t b, uint64_t last)
{
    unsigned mask = 0;
    for (int j = 0; j < GRID_WINDOW; j++)
        mask |= (unsigned)(R[b + (size_t)j].key <= last) << j;
    return mask;
}

/* The lanes set in a window's mask (__builtin_popcount is a library call without -mpopcnt). */
static inline unsigned lanes_set(unsigned mask)
{
    unsigned c = 0;
    for (int j = 0; j < GRID_WINDOW; j++)
        c += (mask >> j) & 1u;
    return c;
}

/* The first record from b on whose key is at least `first`. */
static inline size_t advance(const pf_grid_rec *R, size_t b, uint64_t first)
{
    for (;;) {
        unsigned n = 0;
        for (int j = 0; j < GRID_ADVANCE; j++)
            n += R[b + (size_t)j].key < first;
        b += n;
        if (n < GRID_ADVANCE) return b;
    }
}

/* The first record at or after `from` whose key is at least `key` (rec[m] ends the search). */
static size_t first_at_least(const pf_grid_rec *R, size_t from, size_t m, uint64_t key)
{
    size_t lo = from, hi = m;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (R[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#define FULL ((1u << GRID_WINDOW) - 1u)

/* ---- scalar reference ---- */

static inline unsigned scalar_overlap(const pf_grid_rec *R, const pf_grid_rec *A, size_t b)
{
    unsigned mask = 0;
    for (int j = 0; j < GRID_WINDOW; j++) {
        const pf_grid_rec *B = &R[b + (size_t)j];
        unsigned ov = (A->lo[0] <= B->hi[0]) & (B->lo[0] <= A->hi[0]) & (A->lo[1] <= B->hi[1]) &
                      (B->lo[1] <= A->hi[1]) & (A->lo[2] <= B->hi[2]) & (B->lo[2] <= A->hi[2]);
        mask |= ov << j;
    }
    return mask;
}

/* Record A against the records from b on while their keys are at most `last`. */
static inline int scalar_scan(const pf_grid_rec *R, const pf_grid_rec *A, size_t b, uint64_t last,
                              pf_pair_vec *out, sink *k, uint64_t *cand)
{
    for (;;) {
        if (window_room(out, k)) return PF_ENOMEM;
        unsigned in = keys_le(R, b, last);
        window_emit(k, R, b, A->box, scalar_overlap(R, A, b) & in);
        *cand += lanes_set(in);
        if (in != FULL) return PF_OK;
        b += GRID_WINDOW;
    }
}

/* Record r's five ranges: the rest of its own row (from r + 1, keys up to k + 1), then the four rows ahead
 * (from at[w], moved forward to the row's first key k + row[w] - 1, keys up to that + 2). */
static inline void ranges_of(const pf_grid_records *g, size_t r, size_t at[4], size_t b[5], uint64_t last[5])
{
    uint64_t k = g->rec[r].key;
    b[0] = r + 1;
    last[0] = k + 1;
    for (int w = 0; w < 4; w++) {
        uint64_t first = k + g->row[w] - 1;
        b[w + 1] = at[w] = advance(g->rec, at[w], first);
        last[w + 1] = first + 2;
    }
}

/* Room for a record's five first windows. */
static inline int first_room(pf_pair_vec *out, sink *k)
{
    if (k->end - k->o >= 5 * GRID_WINDOW) return PF_OK;
    out->n = (size_t)(k->o - out->data);
    if (pf_pair_vec_reserve(out, out->n + 5 * GRID_WINDOW)) return PF_ENOMEM;
    *k = sink_of(out);
    return PF_OK;
}

int pf_grid_sweep_scalar(const pf_grid_records *g, size_t r0, size_t r1, pf_pair_vec *out, uint64_t *candidates)
{
    const pf_grid_rec *R = g->rec;
    size_t at[4];
    for (int w = 0; w < 4; w++) /* the first record of each row's range for record r0 */
        at[w] = first_at_least(R, r0, g->m, R[r0].key + g->row[w] - 1);
    uint64_t cand = 0;
    sink sk = sink_of(out);
    for (size_t r = r0; r < r1; r++) {
        const pf_grid_rec *A = &R[r];
        size_t b[5];
        uint64_t last[5];
        ranges_of(g, r, at, b, last);
        if (first_room(out, &sk)) goto nomem;
        unsigned more = 0;
        for (int w = 0; w < 5; w++) {
            unsigned in = keys_le(R, b[w], last[w]);
            window_emit(&sk, R, b[w], A->box, scalar_overlap(R, A, b[w]) & in);
            cand += lanes_set(in);
            more |= (unsigned)(in == FULL) << w;
        }
        for (int w = 0; w < 5; w++)
            if (((more >> w) & 1u) && scalar_scan(R, A, b[w] + GRID_WINDOW, last[w], out, &sk, &cand)) goto nomem;
    }
    out->n = (size_t)(sk.o - out->data);
    *candidates += cand;
    return PF_OK;
nomem:
    out->n = (size_t)(sk.o - out->data);
    return PF_ENOMEM;
}

/* The lanes of the window at b below r1. */
static inline unsigned lanes_below(size_t b, size_t r1)
{
    return r1 - b >= GRID_WINDOW ? FULL : (1u << (r1 - b)) - 1u;
}

int pf_grid_range_scalar(const pf_grid_records *g, const pf_grid_rec *a, size_t r0, size_t r1, pf_pair_vec *out,
                         uint64_t *candidates)
{
    sink k = sink_of(out);
    for (size_t b = r0; b < r1; b += GRID_WINDOW) {
        if (window_room(out, &k)) return PF_ENOMEM;
        window_emit(&k, g->rec, b, a->box, scalar_overlap(g->rec, a, b) & lanes_below(b, r1));
    }
    out->n = (size_t)(k.o - out->data);
    *candidates += r1 > r0 ? r1 - r0 : 0;
    return PF_OK;
}

/* ---- AVX2: one record's six comparisons in two vector comparisons ---- */

#if GRID_HAVE_AVX2

#define AVX2 __attribute__((target("avx2")))

/* Record A's bounds as (lo x, y, z, -) and (hi x, y, z, -). */
typedef struct avx2_box {
    __m256d lo, hi;
    uint32_t box;
} avx2_box;

AVX2 static inline avx2_box avx2_box_of(const pf_grid_rec *A)
{
    avx2_box v = {_mm256_loadu_pd(A->lo), _mm256_loadu_pd(A->hi), A->box};
    return v;
}

/* Lanes 0-2 of the loads are the record's x, y, z; lane 3 (hi x, or the key's bits) is masked off. */
AVX2 static inline unsigned avx2_overlap(const pf_grid_rec *R, const avx2_box *A, size_t b)
{
    unsigned mask = 0;
    for (int j = 0; j < GRID_WINDOW; j++) {
        const pf_grid_rec *B = &R[b + (size_t)j];
        __m256d m = _mm256_and_pd(_mm256_cmp_pd(A->lo, _mm256_loadu_pd(B->hi), _CMP_LE_OQ),
                                  _mm256_cmp_pd(_mm256_loadu_pd(B->lo), A->hi, _CMP_LE_OQ));
        mask |= (unsigned)((_mm256_movemask_pd(m) & 7) == 7) << j;
    }
    return mask;
}

AVX2 static inline int avx2_scan(const pf_grid_rec *R, const avx2_box *A, size_t b, uint64_t last,
                                 pf_pair_vec *out, sink *k, uint64_t *cand)
{
    for (;;) {
        if (window_room(out, k)) return PF_ENOMEM;
        unsigned in = keys_le(R, b, last);
        window_emit(k, R, b, A->box, avx2_overlap(R, A, b) & in);
        *cand += lanes_set(in);
        if (in != FULL) return PF_OK;
        b += GRID_WINDOW;
    }
}

/* The order and reading of the ranges are the scalar sweep's (see grid_scan.h); the continuations run in a loop
 * over the set bits of `more`, a branch taken for two records in five for the falling spheres. */
AVX2 static int sweep_avx2(const pf_grid_records *g, size_t r0, size_t r1, pf_pair_vec *out, uint64_t *candidates)
{
    const pf_grid_rec *R = g->rec;
    size_t at[4];
    for (int w = 0; w < 4; w++)
        at[w] = first_at_least(R, r0, g->m, R[r0].key + g->row[w] - 1);
    uint64_t cand = 0;
    sink sk = sink_of(out);
    for (size_t r = r0; r < r1; r++) {
        avx2_box A = avx2_box_of(&R[r]);
        size_t b[5];
        uint64_t last[5];
        ranges_of(g, r, at, b, last);
        if (first_room(out, &sk)) goto nomem;
        unsigned more = 0;
        for (int w = 0; w < 5; w++) {
            unsigned in = keys_le(R, b[w], last[w]);
            window_emit(&sk, R, b[w], A.box, avx2_overlap(R, &A, b[w]) & in);
            cand += lanes_set(in);
            more |= (unsigned)(in == FULL) << w;
        }
        while (more) {
            int w = __builtin_ctz(more); /* an instruction, unlike __builtin_popcount without -mpopcnt */
            more &= more - 1;
            if (avx2_scan(R, &A, b[w] + GRID_WINDOW, last[w], out, &sk, &cand)) goto nomem;
        }
    }
    out->n = (size_t)(sk.o - out->data);
    *candidates += cand;
    return PF_OK;
nomem:
    out->n = (size_t)(sk.o - out->data);
    return PF_ENOMEM;
}

AVX2 static int range_avx2(const pf_grid_records *g, const pf_grid_rec *a, size_t r0, size_t r1, pf_pair_vec *out,
                           uint64_t *candidates)
{
    avx2_box A = avx2_box_of(a);
    sink k = sink_of(out);
    for (size_t b = r0; b < r1; b += GRID_WINDOW) {
        if (window_room(out, &k)) return PF_ENOMEM;
        window_emit(&k, g->rec, b, A.box, avx2_overlap(g->rec, &A, b) & lanes_below(b, r1));
    }
    out->n = (size_t)(k.o - out->data);
    *candidates += r1 > r0 ? r1 - r0 : 0;
    return PF_OK;
}

const pf_grid_sweep_fn pf_grid_sweep_avx2 = sweep_avx2;
const pf_grid_range_fn pf_grid_range_avx2 = range_avx2;

static int have_avx2(void)
{
    return __builtin_cpu_supports("avx2");
}
#else
const pf_grid_sweep_fn pf_grid_sweep_avx2 = NULL;
const pf_grid_range_fn pf_grid_range_avx2 = NULL;

static int have_avx2(void)
{
    return 0;
}
#endif

pf_grid_sweep_fn pf_grid_sweep_select(void)
{
    return pf_grid_simd && pf_grid_sweep_avx2 && have_avx2() ? pf_grid_sweep_avx2 : pf_grid_sweep_scalar;
}

pf_grid_range_fn pf_grid_range_select(void)
{
    return pf_grid_simd && pf_grid_range_avx2 && have_avx2() ? pf_grid_range_avx2 : pf_grid_range_scalar;
}
