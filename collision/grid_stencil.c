/* The grid's stencil layout (see grid.c and grid_stencil.h).
 *
 * Frame: the cell edge is the largest extent, rounded up to 8 significant bits, and the origin a whole number of
 * cells below the boxes' lower bound, rows padded to 16 cells: a frame that moves in steps, so that from one call
 * to the next most boxes keep their key. The frame is a function of the boxes, and so is the record order
 * (keys, then box index), whichever way it is reached.
 *
 * Order: each call computes every box's key in index order and compares it with the box's key of the last call.
 * When few changed, those are sorted alone (in index order, stably: ties by index) and merged with the
 * records of the boxes that kept their key, which are still in order; when none changed the order stays. */
#include "grid_stencil.h"
#include "grid_scan.h"

#include "base/alloc.h"
#include "base/error.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define STENCIL_COORD ((1u << 21) - 3u) /* cells per axis, padded by one on each side, within 21 bits */
#define MAX_CHUNKS PF_GRID_MAX_PARTS
#define PREFETCH 32 /* records ahead whose boxes the copy prefetches */
#define MERGE_SHARE 4 /* merged when at most 1 / MERGE_SHARE of the boxes changed key */
/* Parts per worker of the parallel passes (taken by whichever worker is free, pf_par_for): on a machine with more
 * runnable threads than cores a worker often starts a pass late, and with one part per worker the other then
 * ran its part and waited, or ran both; with four, the late worker still takes a share of what is left. */
#define PARTS_PER_WORKER 4

typedef pf_grid_frame frame;

/* The padded cell coordinate (1 .. STENCIL_COORD + 1): monotone in x, so that two boxes whose lower corners are
 * less than a cell apart stay at most one cell apart after clamping too. */
static inline uint64_t coord(const frame *g, int a, double x)
{
    double t = (x - g->origin[a]) * g->inv_cell;
    if (!(t > 0.0)) return 1;
    if (t >= (double)STENCIL_COORD) return STENCIL_COORD + 1;
    return (uint64_t)t + 1;
}

static inline uint64_t box_key(const frame *g, const pf_aabb *b)
{
    return coord(g, 0, b->min[0]) + coord(g, 1, b->min[1]) * g->nx + coord(g, 2, b->min[2]) * g->nxy;
}

static inline double box_extent(const pf_aabb *b)
{
    double e = b->max[0] - b->min[0], e1 = b->max[1] - b->min[1], e2 = b->max[2] - b->min[2];
    e = e1 > e ? e1 : e;
    return e2 > e ? e2 : e;
}

/* x rounded up to 8 significant bits (x > 0). */
static double round_up_8bits(double x)
{
    int e;
    double m = frexp(x, &e); /* [0.5, 1) */
    return ldexp(ceil(m * 256.0) / 256.0, e);
}

/* A cell edge no box (but those kept apart) exceeds, with room for the rounding of (x - origin) / cell, so that
 * the lower corners of two overlapping boxes are at most one cell apart on every axis; at least
 * 1 / STENCIL_COORD of the scene's extent. */
static void fit(frame *g, const double lo[3], const double hi[3], double largest, double floor_cell)
{
    double extent = 0.0, far = 0.0;
    for (int a = 0; a < 3; a++) {
        extent = fmax(extent, hi[a] - lo[a]);
        far = fmax(far, fmax(fabs(lo[a]), fabs(hi[a])));
    }
    double cell = largest > floor_cell * 1e-3 ? largest : floor_cell;
    if (cell < extent / STENCIL_COORD) cell = extent / STENCIL_COORD;
    /* far bounds |x| and |origin| (the origin is within a cell below lo), as a power of two so that it moves in
     * steps too */
    int e;
    frexp(far + 2.0 * cell, &e);
    far = ldexp(1.0, e);
    cell = round_up_8bits((cell + 8.0 * DBL_EPSILON * far) * (1.0 + 0x1p-20));
    if (!(cell > 0.0) || !isfinite(1.0 / cell) || !isfinite(cell)) cell = 1.0;
    g->inv_cell = 1.0 / cell;
    for (int a = 0; a < 3; a++) {
        double o = floor(lo[a] * g->inv_cell) * cell;
        g->origin[a] = isfinite(o) && o <= lo[a] ? o : lo[a];
    }
    uint64_t cells[2];
    for (int a = 0; a < 2; a++)
        cells[a] = (coord(g, a, hi[a]) + 2 + 15) & ~(uint64_t)15; /* pads 0 and last + 1; at most 2^21 */
    g->nx = cells[0];
    g->nxy = cells[0] * cells[1];
}

void pf_grid_stencil_forget(pf_grid_stencil *s)
{
    s->prev_n = 0;
}

static void release(pf_grid_stencil *s)
{
    for (int b = 0; b < 2; b++) {
        pf_free(s->K[b]);
        pf_free(s->V[b]);
        pf_free(s->mk[b]);
        pf_free(s->mv[b]);
        s->K[b] = s->mk[b] = NULL;
        s->V[b] = s->mv[b] = NULL;
    }
    pf_free(s->key_of);
    pf_free(s->guess);
    pf_free(s->moved);
    pf_free(s->rec);
    s->key_of = s->guess = NULL;
    s->moved = NULL;
    s->rec = NULL;
    s->cap = s->mcap = 0;
    s->prev_n = 0;
}

void pf_grid_stencil_free(pf_grid_stencil *s)
{
    release(s);
    pf_free(s->block_sums);
    s->block_sums = NULL;
    s->blocks_cap = 0;
    pf_radix_scratch_free(&s->radix);
    pf_pair_chunks_free(&s->chunks);
}

size_t pf_grid_stencil_bytes(const pf_grid_stencil *s)
{
    return s->cap * (2 * 8 + 2 * 4 + 2 * 8 + 1 + sizeof(pf_grid_rec)) + s->mcap * 2 * (8 + 4) +
           s->blocks_cap * sizeof *s->block_sums + pf_radix_scratch_bytes(&s->radix) + pf_pair_chunks_bytes(&s->chunks);
}

/* Room for n boxes; a new block forgets the last order. */
static int reserve(pf_grid_stencil *s, size_t n)
{
    size_t need = n + GRID_PAD;
    if (need <= s->cap) return PF_OK;
    release(s);
    size_t c = need + need / 8;
    int ok = 1;
    for (int b = 0; b < 2; b++) {
        ok &= (s->K[b] = pf_malloc(c * sizeof *s->K[b])) != NULL;
        ok &= (s->V[b] = pf_malloc(c * sizeof *s->V[b])) != NULL;
    }
    ok &= (s->key_of = pf_malloc(c * sizeof *s->key_of)) != NULL;
    ok &= (s->guess = pf_malloc(c * sizeof *s->guess)) != NULL;
    ok &= (s->moved = pf_malloc(c)) != NULL;
    ok &= (s->rec = pf_malloc(c * sizeof *s->rec)) != NULL;
    if (!ok) {
        release(s);
        return pf_error(PF_ENOMEM, "out of memory for %zu grid boxes", n);
    }
    s->cap = c;
    return PF_OK;
}

static int reserve_movers(pf_grid_stencil *s, size_t m)
{
    if (m <= s->mcap) return PF_OK;
    size_t c = m + m / 4 + 1024;
    for (int b = 0; b < 2; b++) {
        uint64_t *k = pf_realloc(s->mk[b], s->mcap * sizeof *k, c * sizeof *k);
        if (k) s->mk[b] = k;
        uint32_t *v = k ? pf_realloc(s->mv[b], s->mcap * sizeof *v, c * sizeof *v) : NULL;
        if (v) s->mv[b] = v;
        if (!v) return pf_error(PF_ENOMEM, "out of memory for %zu grid boxes", m);
    }
    s->mcap = c;
    return PF_OK;
}

/* Records [r0, r1) from the keys K and box indices V in record order: the boxes gathered by index (random
 * reads), prefetched PREFETCH records ahead, within the range (another part may be writing K and V beyond it). */
static void copy_range(pf_grid_rec *R, const pf_aabb *boxes, const uint64_t *K, const uint32_t *V, size_t r0,
                       size_t r1)
{
    for (size_t r = r0; r < r1; r++) {
        if (r + PREFETCH < r1) { /* both lines a box may span */
            const char *ahead = (const char *)&boxes[V[r + PREFETCH]];
            __builtin_prefetch(ahead);
            __builtin_prefetch(ahead + sizeof *boxes - 1);
        }
        const pf_aabb *b = &boxes[V[r]];
        pf_grid_rec *o = &R[r];
        o->lo[0] = b->min[0];
        o->lo[1] = b->min[1];
        o->lo[2] = b->min[2];
        o->hi[0] = b->max[0];
        o->hi[1] = b->max[1];
        o->hi[2] = b->max[2];
        o->key = K[r];
        o->box = V[r];
        o->pad = 0;
    }
}

/* (k, v) < (key, box): the records' order. */
static inline int rec_less(uint64_t k, uint32_t v, uint64_t key, uint32_t box)
{
    return k < key || (k == key && v < box);
}

/* The first of the cnt sorted changed records not below (key, box). */
static size_t movers_from(const uint64_t *MK, const uint32_t *MV, size_t cnt, uint64_t key, uint32_t box)
{
    size_t lo = 0, hi = cnt;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rec_less(MK[mid], MV[mid], key, box))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The records of the boxes that kept their key (still in order in K[cur]) merged with the sorted records of
 * those that changed (MK, MV: cnt of them) into K[!cur]. Chunk c takes the old records [p0, p1) and the changed
 * records that fall between old records p0 and p1. It first packs its old records that kept their key to the
 * front of its range, in place (K[cur] is not read again once merged), and counts them, so that each chunk
 * knows where its output starts; then it merges the two runs without a branch on the data: a tenth of the boxes
 * change cell at the benchmark's steps 50-60, in no pattern, and a merge that branched on each comparison, or
 * on each old record's flag, mispredicted about twice per changed box. */
typedef struct merge_run {
    pf_grid_stencil *s;
    const pf_aabb *boxes;
    size_t n, cnt;
    const uint64_t *MK;
    const uint32_t *MV;
    size_t kept[MAX_CHUNKS]; /* per chunk: its old records that kept their key, packed at p0 */
    size_t from[MAX_CHUNKS]; /* per chunk: its first changed record */
} merge_run;

static void kept_chunk(void *ctx, int c, int chunks)
{
    merge_run *m = ctx;
    uint64_t *PK = m->s->K[m->s->cur];
    uint32_t *PV = m->s->V[m->s->cur];
    const uint8_t *moved = m->s->moved;
    size_t p0, p1, w;
    pf_chunk_range(m->n, chunks, c, &p0, &p1);
    m->from[c] = c == 0 ? 0 : movers_from(m->MK, m->MV, m->cnt, PK[p0], PV[p0]); /* before the packing */
    w = p0;
    for (size_t r = p0; r < p1; r++) {
        uint32_t v = PV[r];
        PK[w] = PK[r];
        PV[w] = v;
        w += !moved[v];
    }
    m->kept[c] = w - p0;
}

static void merge_chunk(void *ctx, int c, int chunks)
{
    merge_run *m = ctx;
    const pf_grid_stencil *s = m->s;
    const uint64_t *PK = s->K[s->cur], *MK = m->MK;
    const uint32_t *PV = s->V[s->cur], *MV = m->MV;
    uint64_t *NK = s->K[!s->cur];
    uint32_t *NV = s->V[!s->cur];
    size_t p0, p1, o = 0;
    pf_chunk_range(m->n, chunks, c, &p0, &p1);
    for (int d = 0; d < c; d++)
        o += m->kept[d];
    size_t j = m->from[c], j1 = c == chunks - 1 ? m->cnt : m->from[c + 1];
    size_t r = p0, r1 = p0 + m->kept[c];
    o += j;
    size_t o0 = o;
    while (r < r1 && j < j1) {
        uint64_t k = PK[r], mk = MK[j];
        uint32_t v = PV[r], mv = MV[j];
        size_t take = (mk < k) | ((mk == k) & (mv < v)); /* the changed record first */
        NK[o] = take ? mk : k;
        NV[o] = take ? mv : v;
        o++;
        j += take;
        r += 1 - take;
    }
    memcpy(NK + o, PK + r, (r1 - r) * sizeof *NK);
    memcpy(NV + o, PV + r, (r1 - r) * sizeof *NV);
    o += r1 - r;
    memcpy(NK + o, MK + j, (j1 - j) * sizeof *NK);
    memcpy(NV + o, MV + j, (j1 - j) * sizeof *NV);
    o += j1 - j;
    /* this chunk's records at once, by the same worker: no pass of their own (one run of the workers less), and
     * its keys and indices still in cache */
    copy_range(s->rec, m->boxes, NK, NV, o0, o);
}

static void merge(pf_grid_stencil *s, const pf_aabb *boxes, size_t n, const uint64_t *MK, const uint32_t *MV,
                  size_t cnt, const pf_par *par, int chunks)
{
    merge_run m = {.s = s, .boxes = boxes, .n = n, .cnt = cnt, .MK = MK, .MV = MV};
    pf_par_for(par, chunks, kept_chunk, &m);
    pf_par_for(par, chunks, merge_chunk, &m);
    s->cur = !s->cur;
}

/* Sorts the records of every box afresh: K[!cur] holds the keys in index order. */
static int sort_all(pf_grid_stencil *s, size_t n, const pf_par *par)
{
    int nb = !s->cur;
    int where = pf_radix_sort64(s->K[nb], s->V[nb], s->K[s->cur], s->V[s->cur], n, par, &s->radix);
    if (where < 0) return where;
    s->cur = where ? s->cur : nb;
    return PF_OK;
}

/* Orders the records of this call's keys (key_of), from the last call's order when few boxes changed key. */
typedef struct movers_run {
    pf_grid_stencil *s;
    size_t n;
    const size_t *off;
} movers_run;

/* All keys in index order, for a fresh sort. */
static void key_copy_part(void *ctx, int k, int parts)
{
    const movers_run *m = ctx;
    uint64_t *NK = m->s->K[!m->s->cur];
    uint32_t *NV = m->s->V[!m->s->cur];
    size_t lo, hi;
    pf_par_range(m->n, k, parts, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        NK[i] = m->s->key_of[i];
        NV[i] = (uint32_t)i;
    }
}

/* Chunk c's changed boxes, in index order, at their chunk's offset. Every box is written at the cursor, which
 * only the changed ones move on: about one box in ten changes cell at the benchmark's steps 50-60, so a
 * branch on the flag would mispredict on most changed boxes. The loop ends at the chunk's last changed box,
 * so no write reaches the next chunk's slots. */
static void movers_chunk(void *ctx, int c, int chunks)
{
    const movers_run *m = ctx;
    const pf_grid_stencil *s = m->s;
    const uint8_t *moved = s->moved;
    const uint64_t *key_of = s->key_of;
    uint64_t *mk = s->mk[0];
    uint32_t *mv = s->mv[0];
    size_t lo, hi, o = m->off[c], end = m->off[c + 1];
    pf_grid_part_range(m->n, c, chunks, &lo, &hi);
    for (size_t i = lo; i < hi && o < end; i++) {
        mk[o] = key_of[i];
        mv[o] = (uint32_t)i;
        o += moved[i];
    }
}

/* changed[p]: the changed boxes of part p of `parts` (pf_grid_part_range); the merge runs in `chunks` and writes
 * the records too (PF_GRID_MERGED); the other orders leave them to copy_boxes. */
static int order_records(pf_grid_stencil *s, const pf_aabb *boxes, size_t n, const pf_par *par, int coherent,
                         int chunks, int parts, const size_t *changed)
{
    if (!coherent) {
        s->order = PF_GRID_SORTED;
        s->changed = n;
        return sort_all(s, n, par);
    }
    size_t off[MAX_CHUNKS + 1], total = 0;
    for (int c = 0; c < parts; c++) {
        off[c] = total;
        total += changed[c];
    }
    off[parts] = total;
    s->changed = total;
    if (total == 0) {
        s->order = PF_GRID_UNCHANGED;
        return PF_OK;
    }
    movers_run mr = {s, n, off};
    if (total > n / MERGE_SHARE) {
        pf_par_for(par, chunks, key_copy_part, &mr);
        s->order = PF_GRID_SORTED;
        return sort_all(s, n, par);
    }
    int rc = reserve_movers(s, total);
    if (rc) return rc;
    pf_par_for(par, parts, movers_chunk, &mr);
    int where = pf_radix_sort64(s->mk[0], s->mv[0], s->mk[1], s->mv[1], total, par, &s->radix);
    if (where < 0) return where;
    merge(s, boxes, n, s->mk[where], s->mv[where], total, par, chunks);
    s->order = PF_GRID_MERGED;
    return PF_OK;
}

/* The records: the boxes in record order with their keys (the tests then read memory in sequence), and
 * GRID_PAD records of key GRID_KEY_END past the last. */
typedef struct copy_run {
    pf_grid_stencil *s;
    const pf_aabb *boxes;
    size_t n;
} copy_run;

static void copy_part(void *ctx, int k, int parts)
{
    const copy_run *c = ctx;
    size_t r0, r1;
    pf_par_range(c->n, k, parts, &r0, &r1);
    copy_range(c->s->rec, c->boxes, c->s->K[c->s->cur], c->s->V[c->s->cur], r0, r1);
}

/* The records in `parts` parts, unless the merge wrote them; the padding records past the last either way. */
static void copy_boxes(pf_grid_stencil *s, const pf_aabb *boxes, size_t n, const pf_par *par, int parts)
{
    copy_run c = {s, boxes, n};
    pf_grid_rec *R = s->rec;
    if (s->order != PF_GRID_MERGED) pf_par_for(par, parts, copy_part, &c);
    for (size_t r = n; r < n + GRID_PAD; r++) {
        memset(&R[r], 0, sizeof R[r]);
        R[r].key = GRID_KEY_END;
    }
}

/* A box kept apart (index a, not among the records [0, m)) against the records of the rows its range of
 * cells, widened by one cell below, meets; against every record when that is fewer. */
static int big_pairs(const pf_grid_records *R, const frame *g, pf_grid_range_fn range, const pf_grid_rec *B,
                     pf_pair_vec *out, uint64_t *cand)
{
    uint64_t lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        lo[d] = coord(g, d, B->lo[d]) - 1;
        hi[d] = coord(g, d, B->hi[d]);
    }
    double rows = (double)(hi[1] - lo[1] + 1) * (double)(hi[2] - lo[2] + 1);
    if (rows * 32.0 >= (double)R->m) return range(R, B, 0, R->m, out, cand);
    const pf_grid_rec *rec = R->rec;
    size_t r = 0;
    for (uint64_t z = lo[2]; z <= hi[2]; z++)
        for (uint64_t y = lo[1]; y <= hi[1]; y++) {
            uint64_t k0 = lo[0] + y * g->nx + z * g->nxy;
            /* ascending rows: each search starts where the last row's range ended */
            size_t lo_r = r, hi_r = R->m;
            while (lo_r < hi_r) {
                size_t mid = lo_r + (hi_r - lo_r) / 2;
                if (rec[mid].key < k0)
                    lo_r = mid + 1;
                else
                    hi_r = mid;
            }
            size_t r1 = lo_r;
            uint64_t k1 = k0 + (hi[0] - lo[0]);
            while (rec[r1].key <= k1)
                r1++;
            if (range(R, B, lo_r, r1, out, cand)) return PF_ENOMEM;
            r = r1;
        }
    return PF_OK;
}

typedef struct keys_run {
    pf_grid_stencil *s;
    const pf_aabb *boxes;
    size_t n;
    const frame *g;
    double big_above;
    int coherent;
    size_t changed[MAX_CHUNKS];
} keys_run;

/* Chunk c's keys in index order, and its count of changes against the last call's. */
static void keys_chunk(void *ctx, int c, int chunks)
{
    keys_run *k = ctx;
    pf_grid_stencil *s = k->s;
    uint64_t *NK = s->K[!s->cur];
    uint32_t *NV = s->V[!s->cur];
    size_t i0, i1, cnt = 0;
    pf_grid_part_range(k->n, c, chunks, &i0, &i1);
    for (size_t i = i0; i < i1; i++) {
        const pf_aabb *b = &k->boxes[i];
        uint64_t key = box_extent(b) > k->big_above ? GRID_KEY_END : box_key(k->g, b);
        if (k->coherent) {
            uint8_t mv = key != s->key_of[i];
            s->moved[i] = mv;
            cnt += mv;
        } else {
            NK[i] = key;
            NV[i] = (uint32_t)i;
        }
        s->key_of[i] = key;
    }
    k->changed[c] = cnt;
}

typedef struct sweep_run {
    pf_grid_stencil *s;
    const pf_grid_records *R;
    pf_grid_sweep_fn sweep;
    pf_pair_vec *out;
} sweep_run;

static void sweep_chunk(void *ctx, int c, int chunks)
{
    const sweep_run *w = ctx;
    pf_pair_chunks *pc = &w->s->chunks;
    size_t r0, r1;
    pf_chunk_range(w->R->m, chunks, c, &r0, &r1);
    pf_pair_vec *out = c == 0 ? w->out : &pc->vec[c]; /* chunk 0's pairs in place: only the others are copied */
    if (r0 < r1 && w->sweep(w->R, r0, r1, out, &pc->candidates[c])) pc->status[c] = PF_ENOMEM;
}

void pf_grid_part_range(size_t n, int k, int parts, size_t *i0, size_t *i1)
{
    size_t blocks = (n + PF_GRID_BLOCK - 1) / PF_GRID_BLOCK, b0, b1;
    pf_chunk_range(blocks, parts, k, &b0, &b1);
    *i0 = b0 * PF_GRID_BLOCK < n ? b0 * PF_GRID_BLOCK : n;
    *i1 = b1 * PF_GRID_BLOCK < n ? b1 * PF_GRID_BLOCK : n;
}

typedef struct survey_run {
    pf_grid_stencil *s;
    const pf_aabb *boxes;
    size_t n;
    pf_grid_survey *sv;
    double lo[MAX_CHUNKS][3], hi[MAX_CHUNKS][3], big[MAX_CHUNKS]; /* per part */
    int ok[MAX_CHUNKS];                                             /* per part: no extent negative or NaN */
} survey_run;

/* Part k's blocks: bounds, largest extent and per-block sums of the largest extents, whether every extent is
 * >= 0 (false for NaN) and, when `guess`, the keys in the last frame (into s->guess) against the last keys
 * (s->moved, and the part's count of changes). One function for both, `guess` a constant at each call, so that
 * the loop without the keys carries none of them. */
static inline void survey_blocks(survey_run *r, int k, int parts, int guess)
{
    const pf_aabb *boxes = r->boxes;
    pf_grid_stencil *s = r->s;
    const frame *g = &s->frame;
    const uint64_t *key_of = s->key_of;
    uint64_t *keys = s->guess;
    uint8_t *moved = s->moved;
    size_t i0, i1, cnt = 0;
    pf_grid_part_range(r->n, k, parts, &i0, &i1);
    int ok = 1;
    double big = 0.0;
    double lo0 = boxes[0].min[0], lo1 = boxes[0].min[1], lo2 = boxes[0].min[2];
    double hi0 = boxes[0].max[0], hi1 = boxes[0].max[1], hi2 = boxes[0].max[2];
    for (size_t b0 = i0; b0 < i1; b0 += PF_GRID_BLOCK) {
        double part = 0.0;
        size_t b1 = b0 + PF_GRID_BLOCK < i1 ? b0 + PF_GRID_BLOCK : i1;
        for (size_t i = b0; i < b1; i++) {
            const pf_aabb *b = &boxes[i];
            lo0 = b->min[0] < lo0 ? b->min[0] : lo0;
            lo1 = b->min[1] < lo1 ? b->min[1] : lo1;
            lo2 = b->min[2] < lo2 ? b->min[2] : lo2;
            hi0 = b->max[0] > hi0 ? b->max[0] : hi0;
            hi1 = b->max[1] > hi1 ? b->max[1] : hi1;
            hi2 = b->max[2] > hi2 ? b->max[2] : hi2;
            double e0 = b->max[0] - b->min[0], e1 = b->max[1] - b->min[1], e2 = b->max[2] - b->min[2];
            ok &= (e0 >= 0.0) & (e1 >= 0.0) & (e2 >= 0.0);
            double e = e1 > e0 ? e1 : e0;
            e = e2 > e ? e2 : e;
            part += e;
            big = e > big ? e : big;
            if (guess) {
                uint64_t key = box_key(g, b);
                uint8_t mv = key != key_of[i];
                keys[i] = key;
                moved[i] = mv;
                cnt += mv;
            }
        }
        s->block_sums[b0 / PF_GRID_BLOCK] = part;
    }
    r->sv->changed[k] = cnt;
    r->ok[k] = ok;
    r->lo[k][0] = lo0, r->lo[k][1] = lo1, r->lo[k][2] = lo2;
    r->hi[k][0] = hi0, r->hi[k][1] = hi1, r->hi[k][2] = hi2;
    r->big[k] = big;
}

static void survey_part(void *ctx, int k, int parts)
{
    survey_blocks(ctx, k, parts, 0);
}

static void survey_guess_part(void *ctx, int k, int parts)
{
    survey_blocks(ctx, k, parts, 1);
}

/* The survey: one pass (parallel over whole blocks) instead of one for the bounds and one for the keys. The mean
 * is summed in fixed blocks added in block order and min and max are exact, so the figures are the same
 * whatever the parts; the guessed keys are each box's own. */
int pf_grid_survey_boxes(pf_grid_stencil *s, const pf_aabb *boxes, size_t n, const pf_par *par, int guess,
                         pf_grid_survey *sv)
{
    size_t blocks = (n + PF_GRID_BLOCK - 1) / PF_GRID_BLOCK;
    if (blocks > s->blocks_cap) {
        double *b = pf_realloc(s->block_sums, s->blocks_cap * sizeof *b, blocks * sizeof *b);
        if (!b) return pf_error(PF_ENOMEM, "out of memory for grid sums");
        s->block_sums = b;
        s->blocks_cap = blocks;
    }
    int parts = n < 16384 || par->workers <= 1 ? 1 : par->workers * PARTS_PER_WORKER;
    if (parts > MAX_CHUNKS) parts = MAX_CHUNKS;
    if ((size_t)parts > blocks) parts = (int)blocks;
    survey_run r;
    r.s = s;
    r.boxes = boxes;
    r.n = n;
    r.sv = sv;
    sv->parts = parts;
    sv->guessed = guess && s->prev_n == n; /* the last call's frame, keys and room */
    pf_par_for(par, parts, sv->guessed ? survey_guess_part : survey_part, &r);
    double big = 0.0, sum = 0.0;
    int ok = 1;
    for (int a = 0; a < 3; a++) {
        sv->lo[a] = r.lo[0][a];
        sv->hi[a] = r.hi[0][a];
    }
    for (int k = 0; k < parts; k++) {
        ok &= r.ok[k];
        for (int a = 0; a < 3; a++) {
            sv->lo[a] = r.lo[k][a] < sv->lo[a] ? r.lo[k][a] : sv->lo[a];
            sv->hi[a] = r.hi[k][a] > sv->hi[a] ? r.hi[k][a] : sv->hi[a];
        }
        big = r.big[k] > big ? r.big[k] : big;
    }
    for (size_t blk = 0; blk < blocks; blk++)
        sum += s->block_sums[blk];
    sv->largest = big;
    sv->mean = sum / (double)n;
    /* A box with a NaN has a NaN extent, one with min > max a negative one; with every extent >= 0, an infinite
     * coordinate shows in the bounds (a box infinite on one side only has that side's bound infinite, and one
     * infinite on both sides has a NaN extent); NaN bounds fail the comparison. */
    for (int a = 0; a < 3; a++) /* and none beyond PF_AABB_COORD_MAX (pf_check_aabbs) */
        ok &= (fabs(sv->lo[a]) <= PF_AABB_COORD_MAX) & (fabs(sv->hi[a]) <= PF_AABB_COORD_MAX);
    sv->bad = !ok;
    return PF_OK;
}

static int same_frame(const frame *a, const frame *b)
{
    return a->origin[0] == b->origin[0] && a->origin[1] == b->origin[1] && a->origin[2] == b->origin[2] &&
           a->inv_cell == b->inv_cell && a->nx == b->nx && a->nxy == b->nxy;
}

int pf_grid_stencil_pairs(pf_grid_stencil *s, const pf_aabb *boxes, size_t n, const pf_par *par_in,
                          const pf_grid_survey *sv, double largest, double floor_cell, double big_above,
                          pf_pair_vec *out, pf_broadphase_stats *stats)
{
    int threads = par_in->workers;
    if (n < 16384) threads = 1;
    if (threads > MAX_CHUNKS) threads = MAX_CHUNKS;
    pf_par par_local = *par_in, *par = &par_local;
    par->workers = threads;
    int rc = reserve(s, n);
    if (rc) return rc;
    frame g;
    fit(&g, sv->lo, sv->hi, largest, floor_cell);
    int coherent = s->prev_n == n;
    s->prev_n = 0; /* until this call's records are complete */

    /* Keys in index order, changes against the last call's counted per part: the survey's when it guessed the
     * frame right (and no box is kept apart: its keys ignore extents), else a pass of their own. */
    int chunks = threads == 1 ? 1 : threads * PARTS_PER_WORKER;
    if (chunks > MAX_CHUNKS) chunks = MAX_CHUNKS;
    keys_run kr = {s, boxes, n, &g, big_above, coherent, {0}};
    const size_t *changed = kr.changed;
    int parts = chunks;
    if (coherent && sv->guessed && big_above == INFINITY && same_frame(&g, &s->frame)) {
        uint64_t *t = s->key_of;
        s->key_of = s->guess;
        s->guess = t;
        changed = sv->changed;
        parts = sv->parts;
        s->keys_guessed = 1;
    } else {
        s->keys_guessed = 0;
        pf_par_for(par, chunks, keys_chunk, &kr);
    }
    s->frame = g;
    rc = order_records(s, boxes, n, par, coherent, chunks, parts, changed);
    if (rc) return rc;
    const uint64_t *K = s->K[s->cur];
    const uint32_t *V = s->V[s->cur];
    s->prev_n = n;
    copy_boxes(s, boxes, n, par, chunks);

    pf_grid_records R = {s->rec, 0, {g.nx, g.nxy - g.nx, g.nxy, g.nxy + g.nx}};
    /* the boxes kept apart end the order (key GRID_KEY_END, by index) */
    size_t lo_r = 0, hi_r = n;
    while (lo_r < hi_r) {
        size_t mid = lo_r + (hi_r - lo_r) / 2;
        if (K[mid] < GRID_KEY_END)
            lo_r = mid + 1;
        else
            hi_r = mid;
    }
    size_t m = R.m = lo_r;
    pf_grid_sweep_fn sweep = pf_grid_sweep_select();
    uint64_t cand = 0;
    if (m > 0) {
        if (threads == 1 || m < 16384) {
            if (sweep(&R, 0, m, out, &cand)) return pf_error(PF_ENOMEM, "out of memory for pairs");
        } else {
            rc = pf_pair_chunks_reset(&s->chunks, chunks);
            if (rc) return rc;
            sweep_run sr = {s, &R, sweep, out};
            pf_par_for(par, chunks, sweep_chunk, &sr);
            rc = pf_pair_chunks_gather_par(&s->chunks, out, &cand, par);
            if (rc) return rc;
        }
    }
    /* Boxes kept apart: against the records of their rows, then against each other (from the lower index). */
    pf_grid_range_fn range = pf_grid_range_select();
    for (size_t r = m; r < n; r++) {
        if (big_pairs(&R, &g, range, &s->rec[r], out, &cand))
            return pf_error(PF_ENOMEM, "out of memory for pairs");
        for (size_t t = r + 1; t < n; t++) {
            cand++;
            if (!pf_aabb_overlap(&boxes[V[r]], &boxes[V[t]])) continue;
            if (pf_pair_vec_push(out, V[r], V[t])) return pf_error(PF_ENOMEM, "out of memory for pairs");
        }
    }
    stats->candidates = cand;
    stats->records = n;
    return PF_OK;
}
