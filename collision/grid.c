/* The uniform grid broad phase (Pouchol et al. 2009, §2.1): equal cubic cells, found by a sorted cell key. Two layouts:
 *  - stencil (automatic cell size, boxes of similar sizes; grid_stencil.c): the cell edge is the largest box
 *    extent, each box is one record in the cell of its lower corner, and a box overlaps only boxes of the 27
 *    cells around it. Cell keys are row-major, so the three cells of a row are consecutive in the sorted
 *    records: a box scans the rest of its own row and four whole rows ahead of it (half the 3 x 3 rows), each
 *    pair from one side (grid_scan.c). A few boxes much larger than the mean are kept apart and tested
 *    against the records of the rows they meet;
 *  - spread (a given cell size, or sizes that differ much): a box is a record in every cell it meets, pairs
 *    are tested inside each cell and each reported by the one cell that holds their intersection's lower
 *    corner. */
#include "arg_checks.h"
#include "broadphase_backend.h"
#include "grid_stencil.h"
#include "morton.h"
#include "pair_chunks.h"
#include "radix_sort.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/vec.h"

#include <float.h>
#include <math.h>

#define GRID_MAX_CELLS_PER_BOX 64 /* boxes spanning more cells are tested against every box instead */
/* Sizes differ by at most this factor (largest extent over mean extent) for the stencil layout: its cells, as
 * large as the largest box, then hold at most 8 times the boxes they would at the mean size. */
#define GRID_STENCIL_RATIO 2.0
/* Boxes above that size are kept apart, each tested against the records of the rows it meets, when at most
 * GRID_MAX_APART + n / GRID_APART_SHARE of them (more go to the spread layout). */
#define GRID_MAX_APART 32
#define GRID_APART_SHARE 4096

typedef struct grid_state {
    uint64_t *keys, *keys2;
    uint32_t *vals, *vals2;
    size_t cap;           /* room of keys, keys2, vals and vals2: four arrays grown in step, so no PF_VEC */
    PF_VEC(uint32_t) big; /* spread: the boxes meeting too many cells, increasing */
    pf_radix_scratch radix;
    pf_grid_stencil stencil;
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
    pf_grid_stencil_free(&s->stencil);
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
    return sizeof *s + s->cap * 24 + s->big.cap * sizeof *s->big.v + pf_grid_stencil_bytes(&s->stencil) +
           pf_radix_scratch_bytes(&s->radix);
}

typedef struct above_run {
    const pf_aabb *boxes;
    size_t n;
    double above;
    size_t count[64];
    double rest[64];
} above_run;

static void above_part(void *ctx, int k, int parts)
{
    above_run *r = ctx;
    size_t i0, i1, cnt = 0;
    double big = 0.0;
    pf_par_range(r->n, k, parts, &i0, &i1);
    for (size_t i = i0; i < i1; i++) {
        const pf_aabb *b = &r->boxes[i];
        double e = b->max[0] - b->min[0], e1 = b->max[1] - b->min[1], e2 = b->max[2] - b->min[2];
        e = e1 > e ? e1 : e;
        e = e2 > e ? e2 : e;
        cnt += e > r->above;
        big = e <= r->above && e > big ? e : big;
    }
    r->count[k] = cnt;
    r->rest[k] = big;
}

/* How many of the boxes have an extent above `above`, and the largest extent of the others (exact reductions:
 * the same whatever the parts). */
static void boxes_above(const pf_aabb *boxes, size_t n, const pf_par *par, double above, size_t *count,
                        double *rest)
{
    above_run r;
    r.boxes = boxes;
    r.n = n;
    r.above = above;
    int parts = n > 65536 ? par->workers : 1;
    if (parts > 64) parts = 64;
    pf_par_for(par, parts, above_part, &r);
    *count = 0;
    *rest = 0.0;
    for (int k = 0; k < parts; k++) {
        *count += r.count[k];
        *rest = r.rest[k] > *rest ? r.rest[k] : *rest;
    }
}

static int grid_pairs(void *state, const pf_broadphase_def *def, const pf_aabb *boxes, size_t n, pf_pair_vec *out,
                      pf_broadphase_stats *stats)
{
    grid_state *s = state;
    pf_par par = pf_par_of(def);
    /* one pass over the boxes: bounds, extents and (automatic cell size) the stencil layout's keys if its frame
     * stays */
    pf_grid_survey sv;
    int rc0 = pf_grid_survey_boxes(&s->stencil, boxes, n, &par, !(def->cell_size > 0.0), &sv);
    if (rc0) return rc0;
    if (sv.bad) { /* the survey is the boxes' validation (broadphase.c leaves it to the grid): name the first */
        rc0 = pf_check_aabbs(boxes, n, "pf_broadphase_pairs", "boxes");
        if (rc0) return rc0;
    }
    double *lo = sv.lo, *hi = sv.hi, largest = sv.largest, mean = sv.mean;
    pf_quantiser q;
    pf_quantiser_from_bounds(&q, lo, hi);
    double root = q.scale > 0.0 ? (double)(1u << PF_MORTON_BITS) / q.scale : 0.0;
    double cell = def->cell_size;
    if (!(cell > 0.0)) {
        double floor_cell = root / (cbrt((double)n) + 1.0), big_above = INFINITY;
        int stencil = largest <= GRID_STENCIL_RATIO * mean || largest < floor_cell * 1e-3;
        if (!stencil) {
            /* a few large boxes are kept apart rather than sending every box to the spread layout */
            size_t apart;
            double small;
            big_above = GRID_STENCIL_RATIO * mean;
            boxes_above(boxes, n, &par, big_above, &apart, &small);
            stencil = apart <= GRID_MAX_APART + n / GRID_APART_SHARE;
            largest = small;
        }
        if (stencil) {
            int rc = pf_grid_stencil_pairs(&s->stencil, boxes, n, &par, &sv, largest, floor_cell,
                                           big_above, out, stats);
            stats->bytes = grid_bytes(s);
            return rc;
        }
        /* the mean of the boxes' largest extents, so a typical box meets up to 8 cells */
        cell = mean;
        if (cell < floor_cell * 1e-3) cell = floor_cell; /* points: about one box per cell */
    }
    pf_grid_stencil_forget(&s->stencil);
    if (!(cell > 0.0)) cell = 1.0;
    grid_frame g = {{q.origin[0], q.origin[1], q.origin[2]}, 1.0 / cell};
    if (!isfinite(g.inv_cell)) g.inv_cell = 0.0;

    /* Bin: one entry per (box, cell) met, keyed by the cell's Morton code. */
    size_t m = 0;
    s->big.n = 0;
    for (size_t i = 0; i < n; i++) {
        const pf_aabb *b = &boxes[i];
        uint32_t c0[3], c1[3];
        uint64_t cells = 1;
        for (int a = 0; a < 3; a++) {
            c0[a] = grid_coord(&g, a, b->min[a]);
            c1[a] = grid_coord(&g, a, b->max[a]);
            cells *= (uint64_t)(c1[a] - c0[a] + 1);
        }
        if (cells > GRID_MAX_CELLS_PER_BOX) {
            if (pf_vec_push(&s->big, (uint32_t)i))
                return pf_error(PF_ENOMEM, "out of memory for large boxes");
            continue;
        }
        int rc = grow(s, m + cells);
        if (rc) return rc;
        for (uint32_t x = c0[0]; x <= c1[0]; x++)
            for (uint32_t y = c0[1]; y <= c1[1]; y++)
                for (uint32_t z = c0[2]; z <= c1[2]; z++) {
                    s->keys[m] = pf_morton3(x, y, z);
                    s->vals[m] = (uint32_t)i;
                    m++;
                }
    }
    int where = pf_radix_sort64(s->keys, s->vals, s->keys2, s->vals2, m, &par, &s->radix);
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

const pf_grid_stencil *pf_grid_stencil_of(const void *grid)
{
    return &((const grid_state *)grid)->stencil;
}

const pf_bp_backend pf_bp_grid_backend = {grid_create, grid_destroy, grid_pairs};
