/* The uniform grid broad phase (Pouchol et al. 2009, §2.1): equal cubic cells, found by a sorted cell key. Two layouts:
 *  - stencil (automatic cell size, boxes of similar sizes): the cell edge is the largest box extent, each box
 *    is one record in the cell of its lower corner, and a box overlaps only boxes of the 27 cells around it.
 *    Cell keys are row-major, so the three cells of a row are consecutive in the sorted records: a box scans
 *    the rest of its own row and four whole rows ahead of it (half the 3 x 3 rows), each pair from one side,
 *    with one moving pointer per row (the rows' keys grow with the box's);
 *  - spread (a given cell size, or sizes that differ much): a box is a record in every cell it meets, pairs
 *    are tested inside each cell and each reported by the one cell that holds their intersection's lower
 *    corner. */
#include "broadphase_backend.h"
#include "morton.h"
#include "pair_chunks.h"
#include "radix_sort.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/vec.h"

#include <float.h>
#include <math.h>

#define GRID_MAX_CELLS_PER_BOX 64 /* boxes spanning more cells are tested against every box instead */

typedef struct grid_state {
    uint64_t *keys, *keys2;
    uint32_t *vals, *vals2;
    size_t cap;           /* room of keys, keys2, vals and vals2: four arrays grown in step, so no PF_VEC */
    PF_VEC(uint32_t) big; /* spread: the boxes meeting too many cells, increasing */
    pf_radix_scratch radix;
    pf_aabb *sorted;   /* stencil: the boxes in record order */
    size_t sorted_cap; /* refilled whole from a fresh 64-byte aligned block, nothing copied: no PF_VEC */
    pf_pair_chunks chunks;
} grid_state;

typedef struct grid_frame {
    double origin[3];
    double inv_cell;
} grid_frame;

/* Monotone in x (see pf_quantise), clamped to 21 bits. */
static inline uint32_t grid_coord(const grid_frame *g, int a, double x)
{
    double t = (x - g->origin[a]) * g->inv_cell;
    if (t >= (double)PF_MORTON_MAXQ) return PF_MORTON_MAXQ;
    return (uint32_t)t;
}

static int grid_create(const pf_broadphase_def *def, void **state)
{
    (void)def;
    grid_state *s = pf_calloc(1, sizeof *s);
    if (!s) return pf_error(PF_ENOMEM, "out of memory for a broad phase");
    *state = s;
    return PF_OK;
}

static void grid_destroy(void *state)
{
    grid_state *s = state;
    if (!s) return;
    pf_free(s->keys);
    pf_free(s->keys2);
    pf_free(s->vals);
    pf_free(s->vals2);
    pf_vec_free(&s->big);
    pf_free(s->sorted);
    pf_pair_chunks_free(&s->chunks);
    pf_radix_scratch_free(&s->radix);
    pf_free(s);
}

static int grow(grid_state *s, size_t need)
{
    if (need <= s->cap) return PF_OK;
    size_t c = need + need / 4 + 1024, old = s->cap;
    uint64_t *k1 = pf_realloc(s->keys, old * 8, c * 8), *k2 = k1 ? pf_realloc(s->keys2, old * 8, c * 8) : NULL;
    if (k1) s->keys = k1;
    if (k2) s->keys2 = k2;
    uint32_t *v1 = k2 ? pf_realloc(s->vals, old * 4, c * 4) : NULL, *v2 = v1 ? pf_realloc(s->vals2, old * 4, c * 4) : NULL;
    if (v1) s->vals = v1;
    if (v2) s->vals2 = v2;
    if (!v2) return pf_error(PF_ENOMEM, "out of memory for %zu grid entries", c);
    s->cap = c;
    return PF_OK;
}

static size_t grid_bytes(const grid_state *s)
{
    return sizeof *s + s->cap * 24 + s->big.cap * sizeof *s->big.v + s->sorted_cap * sizeof *s->sorted +
           pf_pair_chunks_bytes(&s->chunks) + pf_radix_scratch_bytes(&s->radix);
}

/* ---- stencil layout ---- */

/* Sizes differ by at most this factor (largest extent over mean extent) for the stencil layout: its cells, as
 * large as the largest box, then hold at most 8 times the boxes they would at the mean size. */
#define GRID_STENCIL_RATIO 2.0
#define GRID_STENCIL_COORD ((1u << 21) - 3u) /* cells per axis, padded by one on each side, within 21 bits */

typedef struct stencil_frame {
    double origin[3], inv_cell;
    uint64_t nx, nxy; /* padded cells per row, per layer */
    uint64_t row[4];  /* key offsets of the rows scanned whole: (y + 1), (y - 1, z + 1), (z + 1), (y + 1, z + 1) */
} stencil_frame;

/* The padded cell coordinate (1 .. GRID_STENCIL_COORD + 1): monotone in x. */
static inline uint64_t stencil_coord(const stencil_frame *g, int a, double x)
{
    double t = (x - g->origin[a]) * g->inv_cell;
    if (!(t > 0.0)) return 1;
    if (t >= (double)GRID_STENCIL_COORD) return GRID_STENCIL_COORD + 1;
    return (uint64_t)t + 1;
}

/* A cell edge no box exceeds, with room for the rounding of (x - origin) / cell, so that the lower corners of
 * two overlapping boxes are at most one cell apart on every axis; at least 1 / GRID_STENCIL_COORD of the
 * scene's extent. */
static void stencil_fit(stencil_frame *g, const double lo[3], const double hi[3], double largest, double floor_cell)
{
    double extent = 0.0, far = 0.0;
    for (int a = 0; a < 3; a++) {
        extent = fmax(extent, hi[a] - lo[a]);
        far = fmax(far, fmax(fabs(lo[a]), fabs(hi[a])));
    }
    double cell = largest > floor_cell * 1e-3 ? largest : floor_cell;
    cell = (cell + 8.0 * DBL_EPSILON * far) * (1.0 + 0x1p-20);
    if (cell < extent / GRID_STENCIL_COORD) cell = extent / GRID_STENCIL_COORD * (1.0 + 0x1p-20);
    if (!(cell > 0.0) || !isfinite(1.0 / cell)) cell = 1.0;
    for (int a = 0; a < 3; a++)
        g->origin[a] = lo[a];
    g->inv_cell = 1.0 / cell;
    uint64_t cells[3];
    for (int a = 0; a < 3; a++)
        cells[a] = stencil_coord(g, a, hi[a]) + 2; /* pads 0 and last + 1 */
    g->nx = cells[0];
    g->nxy = cells[0] * cells[1];
    g->row[0] = g->nx;
    g->row[1] = g->nxy - g->nx;
    g->row[2] = g->nxy;
    g->row[3] = g->nxy + g->nx;
}

static int stencil_reserve(grid_state *s, size_t n)
{
    int rc = grow(s, n);
    if (rc || n <= s->sorted_cap) return rc;
    pf_free(s->sorted);
    s->sorted = pf_malloc(n * sizeof *s->sorted);
    s->sorted_cap = s->sorted ? n : 0;
    return s->sorted ? PF_OK : pf_error(PF_ENOMEM, "out of memory for %zu grid boxes", n);
}

/* Tests box r against the boxes from b on while their keys are at most `last` (K ends with a key above every
 * cell): each pair written at the end of out, kept when the boxes overlap. Returns the position past them, or
 * 0 when out can't grow. */
static inline size_t stencil_scan(const uint64_t *K, const uint32_t *V, const pf_aabb *S, size_t r, size_t b,
                                  uint64_t last, pf_pair_vec *out)
{
    const pf_aabb *A = &S[r];
    uint32_t a = V[r];
    for (; K[b] <= last; b++) {
        if (out->n == out->cap && pf_pair_vec_reserve(out, out->n + 1)) return 0;
        uint32_t c = V[b];
        out->data[out->n] = (pf_pair){a < c ? a : c, a < c ? c : a};
        out->n += (size_t)pf_aabb_overlap(A, &S[b]);
    }
    return b;
}

/* The pairs of the boxes at sorted positions [r0, r1) with the boxes after them in their row and with the
 * boxes of the four rows ahead. */
static int stencil_sweep(const stencil_frame *g, const uint64_t *K, const uint32_t *V, const pf_aabb *S, size_t m,
                         size_t r0, size_t r1, pf_pair_vec *out, uint64_t *candidates)
{
    size_t at[4];
    for (int w = 0; w < 4; w++) { /* the first record of each row's range for box r0 */
        uint64_t first = K[r0] + g->row[w] - 1;
        size_t lo = r0, hi = m;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (K[mid] < first)
                lo = mid + 1;
            else
                hi = mid;
        }
        at[w] = lo;
    }
    uint64_t cand = 0;
    for (size_t r = r0; r < r1; r++) {
        uint64_t k = K[r];
        size_t end = stencil_scan(K, V, S, r, r + 1, k + 1, out);
        if (!end) return PF_ENOMEM;
        cand += end - (r + 1);
        for (int w = 0; w < 4; w++) {
            uint64_t first = k + g->row[w] - 1;
            size_t b = at[w];
            while (K[b] < first)
                b++;
            at[w] = b;
            end = stencil_scan(K, V, S, r, b, first + 2, out);
            if (!end) return PF_ENOMEM;
            cand += end - b;
        }
    }
    *candidates += cand;
    return PF_OK;
}

static int stencil_pairs(grid_state *s, const pf_broadphase_def *def, const pf_aabb *boxes, size_t n,
                         const stencil_frame *g, pf_pair_vec *out, pf_broadphase_stats *stats)
{
    int threads = n < 16384 ? 1 : def->threads;
    int rc = stencil_reserve(s, n + 1);
    if (rc) return rc;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; i++) {
        const pf_aabb *b = &boxes[i];
        s->keys[i] = stencil_coord(g, 0, b->min[0]) + stencil_coord(g, 1, b->min[1]) * g->nx +
                     stencil_coord(g, 2, b->min[2]) * g->nxy;
        s->vals[i] = (uint32_t)i;
    }
    int where = pf_radix_sort64(s->keys, s->vals, s->keys2, s->vals2, n, threads, &s->radix);
    if (where < 0) return where;
    uint64_t *K = where ? s->keys2 : s->keys;
    const uint32_t *V = where ? s->vals2 : s->vals;
    K[n] = UINT64_MAX; /* above every cell's key (at most 2^63): ends every scan */
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t r = 0; r < n; r++)
        s->sorted[r] = boxes[V[r]];
    uint64_t cand = 0;
    if (threads == 1) {
        rc = stencil_sweep(g, K, V, s->sorted, n, 0, n, out, &cand);
        if (rc) return pf_error(PF_ENOMEM, "out of memory for pairs");
    } else {
        rc = pf_pair_chunks_reset(&s->chunks, threads);
        if (rc) return rc;
#pragma omp parallel for num_threads(threads) schedule(static, 1)
        for (int c = 0; c < threads; c++) {
            size_t r0, r1;
            pf_chunk_range(n, threads, c, &r0, &r1);
            if (r0 < r1 &&
                stencil_sweep(g, K, V, s->sorted, n, r0, r1, &s->chunks.vec[c], &s->chunks.candidates[c]))
                s->chunks.status[c] = PF_ENOMEM;
        }
        rc = pf_pair_chunks_gather(&s->chunks, out, &cand);
        if (rc) return rc;
    }
    stats->candidates = cand;
    stats->records = n;
    return PF_OK;
}

/* The boxes' largest extent and the mean of each box's largest extent (summed in fixed blocks, so the same
 * whatever the thread count). */
static void box_extents(const pf_aabb *boxes, size_t n, int threads, double *largest, double *mean)
{
    enum { BLOCK = 8192 };
    size_t nblocks = (n + BLOCK - 1) / BLOCK;
    double big = 0.0, sum = 0.0;
    if (n < 4 * BLOCK) threads = 1;
#pragma omp parallel for num_threads(threads) schedule(static, 1) reduction(max : big) ordered
    for (size_t k = 0; k < nblocks; k++) {
        double part = 0.0;
        size_t i1 = (k + 1) * BLOCK < n ? (k + 1) * BLOCK : n;
        for (size_t i = k * BLOCK; i < i1; i++) {
            const pf_aabb *b = &boxes[i];
            double e = b->max[0] - b->min[0], e1 = b->max[1] - b->min[1], e2 = b->max[2] - b->min[2];
            e = e1 > e ? e1 : e;
            e = e2 > e ? e2 : e;
            part += e;
            big = e > big ? e : big;
        }
#pragma omp ordered
        sum += part;
    }
    *largest = big;
    *mean = sum / (double)n;
}

static int grid_pairs(void *state, const pf_broadphase_def *def, const pf_aabb *boxes, size_t n, pf_pair_vec *out,
                      pf_broadphase_stats *stats)
{
    grid_state *s = state;
    pf_quantiser q;
    pf_quantiser_fit(&q, boxes, n, def->threads);
    double root = q.scale > 0.0 ? (double)(1u << PF_MORTON_BITS) / q.scale : 0.0;
    double cell = def->cell_size;
    if (!(cell > 0.0)) {
        double largest, mean, floor_cell = root / (cbrt((double)n) + 1.0);
        box_extents(boxes, n, def->threads, &largest, &mean);
        if (largest <= GRID_STENCIL_RATIO * mean || largest < floor_cell * 1e-3) {
            double lo[3], hi[3];
            stencil_frame g;
            pf_boxes_bounds(boxes, n, def->threads, lo, hi);
            stencil_fit(&g, lo, hi, largest, floor_cell);
            int rc = stencil_pairs(s, def, boxes, n, &g, out, stats);
            stats->bytes = grid_bytes(s);
            return rc;
        }
        /* the mean of the boxes' largest extents, so a typical box meets up to 8 cells */
        cell = mean;
        if (cell < floor_cell * 1e-3) cell = floor_cell; /* points: about one box per cell */
    }
    if (!(cell > 0.0)) cell = 1.0;
    grid_frame g = {{q.origin[0], q.origin[1], q.origin[2]}, 1.0 / cell};
    if (!isfinite(g.inv_cell)) g.inv_cell = 0.0;

    /* Bin: one entry per (box, cell) met, keyed by the cell's Morton code. */
    size_t m = 0;
    s->big.n = 0;
    for (size_t i = 0; i < n; i++) {
        const pf_aabb *b = &boxes[i];
        uint32_t lo[3], hi[3];
        uint64_t cells = 1;
        for (int a = 0; a < 3; a++) {
            lo[a] = grid_coord(&g, a, b->min[a]);
            hi[a] = grid_coord(&g, a, b->max[a]);
            cells *= (uint64_t)(hi[a] - lo[a] + 1);
        }
        if (cells > GRID_MAX_CELLS_PER_BOX) {
            if (pf_vec_push(&s->big, (uint32_t)i))
                return pf_error(PF_ENOMEM, "out of memory for large boxes");
            continue;
        }
        int rc = grow(s, m + cells);
        if (rc) return rc;
        for (uint32_t x = lo[0]; x <= hi[0]; x++)
            for (uint32_t y = lo[1]; y <= hi[1]; y++)
                for (uint32_t z = lo[2]; z <= hi[2]; z++) {
                    s->keys[m] = pf_morton3(x, y, z);
                    s->vals[m] = (uint32_t)i;
                    m++;
                }
    }
    int where = pf_radix_sort64(s->keys, s->vals, s->keys2, s->vals2, m, def->threads, &s->radix);
    if (where < 0) return where;
    const uint64_t *K = where ? s->keys2 : s->keys;
    const uint32_t *V = where ? s->vals2 : s->vals;
    uint64_t cand = 0;
    for (size_t r0 = 0; r0 < m;) {
        size_t r1 = r0 + 1;
        while (r1 < m && K[r1] == K[r0]) r1++;
        for (size_t r = r0; r < r1; r++) {
            const pf_aabb *A = &boxes[V[r]];
            for (size_t t = r + 1; t < r1; t++) {
                const pf_aabb *B = &boxes[V[t]];
                cand++;
                if (!pf_aabb_overlap(A, B)) continue;
                uint32_t c0 = grid_coord(&g, 0, A->min[0] > B->min[0] ? A->min[0] : B->min[0]);
                uint32_t c1 = grid_coord(&g, 1, A->min[1] > B->min[1] ? A->min[1] : B->min[1]);
                uint32_t c2 = grid_coord(&g, 2, A->min[2] > B->min[2] ? A->min[2] : B->min[2]);
                if (pf_morton3(c0, c1, c2) != K[r0]) continue; /* another cell reports it */
                uint32_t i = V[r] < V[t] ? V[r] : V[t], j = V[r] < V[t] ? V[t] : V[r];
                if (pf_pair_vec_push(out, i, j)) return pf_error(PF_ENOMEM, "out of memory for pairs");
            }
        }
        r0 = r1;
    }
    /* Large boxes against every box; two large boxes pair once, from the lower index (big[] is increasing). */
    for (size_t k = 0; k < s->big.n; k++) {
        uint32_t b = s->big.v[k];
        size_t prev = 0; /* big[prev..k) are the large boxes below b still ahead of j */
        for (size_t j = 0; j < n; j++) {
            if (prev < k && s->big.v[prev] == j) {
                prev++;
                continue; /* large, below b: paired from its own row */
            }
            if (j == b) continue;
            cand++;
            if (!pf_aabb_overlap(&boxes[b], &boxes[j])) continue;
            uint32_t i0 = b < j ? b : (uint32_t)j, j0 = b < j ? (uint32_t)j : b;
            if (pf_pair_vec_push(out, i0, j0)) return pf_error(PF_ENOMEM, "out of memory for pairs");
        }
    }
    stats->candidates = cand;
    stats->records = m;
    stats->bytes = grid_bytes(s);
    return PF_OK;
}

const pf_bp_backend pf_bp_grid_backend = {grid_create, grid_destroy, grid_pairs};
