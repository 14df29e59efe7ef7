/* The uniform hash grid broad phase (paper 001 §2.1): boxes binned into equal cubic cells by a sorted cell key,
 * pairs tested inside each cell, each pair reported by the one cell that holds its intersection's lower corner. */
#include "broadphase_backend.h"
#include "morton.h"
#include "pair_chunks.h"
#include "radix_sort.h"

#include "base/alloc.h"
#include "base/error.h"

#include <math.h>

#define GRID_MAX_CELLS_PER_BOX 64 /* boxes spanning more cells are tested against every box instead */

typedef struct grid_state {
    uint64_t *keys, *keys2;
    uint32_t *vals, *vals2;
    size_t cap;
    uint32_t *big;
    size_t big_cap;
    pf_radix_scratch radix;
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
    pf_free(s->big);
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

static int grid_pairs(void *state, const pf_broadphase_def *def, const pf_aabb *boxes, size_t n, pf_pair_vec *out,
                      pf_broadphase_stats *stats)
{
    grid_state *s = state;
    pf_quantiser q;
    pf_quantiser_fit(&q, boxes, n, def->threads);
    double root = q.scale > 0.0 ? (double)(1u << PF_MORTON_BITS) / q.scale : 0.0;
    double cell = def->cell_size;
    if (!(cell > 0.0)) {
        /* automatic: the mean of the boxes' largest extents, so a typical box meets up to 8 cells */
        double sum = 0.0;
        for (size_t i = 0; i < n; i++) {
            const pf_aabb *b = &boxes[i];
            double e = b->max[0] - b->min[0];
            if (b->max[1] - b->min[1] > e) e = b->max[1] - b->min[1];
            if (b->max[2] - b->min[2] > e) e = b->max[2] - b->min[2];
            sum += e;
        }
        cell = sum / (double)n;
        double floor_cell = root / (cbrt((double)n) + 1.0);
        if (cell < floor_cell * 1e-3) cell = floor_cell; /* points: about one box per cell */
    }
    if (!(cell > 0.0)) cell = 1.0;
    grid_frame g = {{q.origin[0], q.origin[1], q.origin[2]}, 1.0 / cell};
    if (!isfinite(g.inv_cell)) g.inv_cell = 0.0;

    /* Bin: one entry per (box, cell) met, keyed by the cell's Morton code. */
    size_t m = 0, nbig = 0;
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
            if (nbig == s->big_cap) {
                size_t c = s->big_cap ? s->big_cap * 2 : 64;
                uint32_t *p = pf_realloc(s->big, s->big_cap * 4, c * 4);
                if (!p) return pf_error(PF_ENOMEM, "out of memory for large boxes");
                s->big = p;
                s->big_cap = c;
            }
            s->big[nbig++] = (uint32_t)i;
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
    for (size_t k = 0; k < nbig; k++) {
        uint32_t b = s->big[k];
        size_t prev = 0; /* big[prev..k) are the large boxes below b still ahead of j */
        for (size_t j = 0; j < n; j++) {
            if (prev < k && s->big[prev] == j) {
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
    stats->bytes = sizeof *s + s->cap * 24 + s->big_cap * 4 + pf_radix_scratch_bytes(&s->radix);
    return PF_OK;
}

const pf_bp_backend pf_bp_grid_backend = {grid_create, grid_destroy, grid_pairs};
