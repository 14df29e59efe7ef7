/* Hierarchical, multilevel and uniform spatial hashes over boxes (Pouchol et al. 2009, §2.1, §2.2, §3). */
#include "spatial_hash.h"

#include "base/alloc.h"
#include "base/error.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Cell coordinate of a relative coordinate (>= 0) for cells of edge 1 / inv. Monotone in `rel`, so two closed
 * boxes that overlap always share a cell, whatever the rounding; exact for the classes' powers of two, so a
 * cell's children are exactly the cells whose coordinates shift down onto it. */
static inline uint64_t cell_coord(double rel, double inv)
{
    return (uint64_t)(int64_t)(rel * inv); /* < 2^41 (PF_SHASH_MAX_DEPTH, the uniform cell check): the signed
                                            * conversion is exact and cheaper */
}

/* Outward rounding to float of a relative coordinate (>= 0), for the entries' box copies and the query's:
 * the float box contains the double one. The next float of a non-negative one is one bit step away; the step
 * is taken without a branch (its direction is a coin toss). */
static inline float round_down(double v)
{
    if (v > FLT_MAX) return FLT_MAX;
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u -= (uint32_t)((double)f > v); /* then f > v >= 0, so f > 0 */
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline float round_up(double v)
{
    if (v > FLT_MAX) return INFINITY;
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u += (uint32_t)((double)f < v); /* then 0 <= f < v <= FLT_MAX: one step up is above v */
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline double max3(double a, double b, double c)
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

/* Finest class allowed: 2^40 cells along the widest axis at most, so cell coordinates fit comfortably in 64
 * bits and extreme size ratios cannot create absurd numbers of classes. Coarser cells only add candidates. */
#define PF_SHASH_MAX_DEPTH 40
/* Finest class at all: its 1 / size, 2^-PF_SHASH_MIN_CLASS, stays a finite double. */
#define PF_SHASH_MIN_CLASS (-960)

static int grow_per_object(pf_shash *s, size_t n)
{
    if (n <= s->cap_n) return PF_OK;
    pf_free(s->level);
    pf_free(s->by_level);
    pf_free(s->fbox);
    s->level = pf_malloc(n * sizeof *s->level);
    s->by_level = pf_malloc(n * sizeof *s->by_level);
    s->fbox = pf_malloc(n * sizeof *s->fbox);
    if (!s->level || !s->by_level || !s->fbox) {
        s->cap_n = 0;
        return pf_error(PF_ENOMEM, "out of memory for %zu boxes", n);
    }
    s->cap_n = n;
    return PF_OK;
}

static int grow_entries(pf_shash *s, size_t n)
{
    if (n <= s->ent_cap) return PF_OK;
    size_t cap = n + n / 4;
    pf_free(s->ent_slot);
    pf_free(s->ent_id);
    s->ent_slot = pf_malloc(cap * sizeof *s->ent_slot);
    s->ent_id = pf_malloc(cap * sizeof *s->ent_id);
    if (!s->ent_slot || !s->ent_id) {
        s->ent_cap = 0;
        return pf_error(PF_ENOMEM, "out of memory for %zu hash entries", cap);
    }
    s->ent_cap = cap;
    return PF_OK;
}

/* Range of cells of `level` that the relative box [lo, hi] covers. */
static inline void level_range(const pf_shash *s, int level, const double lo[3], const double hi[3],
                               uint64_t rlo[3], uint64_t rhi[3])
{
    for (int k = 0; k < 3; k++) {
        rlo[k] = cell_coord(lo[k], s->inv[level]);
        rhi[k] = cell_coord(hi[k], s->inv[level]);
    }
}

static inline void rel_box(const pf_shash *s, const pf_aabb *b, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = b->min[k] - s->origin[k];
        hi[k] = b->max[k] - s->origin[k];
    }
}

static inline double range_cells(const uint64_t lo[3], const uint64_t hi[3])
{
    return (double)(hi[0] - lo[0] + 1) * (double)(hi[1] - lo[1] + 1) * (double)(hi[2] - lo[2] + 1);
}

static int choose_levels(pf_shash *s, int kind, const pf_aabb *boxes, size_t n, double uniform_cell)
{
    if (kind == PF_SHASH_UNIFORM) {
        s->nlevels = 1;
        s->cexp[0] = 0;
        s->size[0] = uniform_cell;
        s->inv[0] = 1 / uniform_cell;
        for (int k = 0; k < 3; k++)
            if (s->extent[k] / uniform_cell > 0x1p40)
                return pf_error(PF_EINVAL, "uniform hash: cell size %g gives more than 2^40 cells on axis %d",
                                uniform_cell, k);
        for (size_t i = 0; i < n; i++) {
            double lo[3], hi[3], cells = 1;
            rel_box(s, &boxes[i], lo, hi);
            for (int k = 0; k < 3; k++)
                cells *= (double)(cell_coord(hi[k], s->inv[0]) - cell_coord(lo[k], s->inv[0]) + 1);
            if (cells > 0x1p24)
                return pf_error(PF_EINVAL, "uniform hash: box %zu covers %.3g cells of size %g (limit 2^24)", i,
                                cells, uniform_cell);
            s->level[i] = 0;
        }
        return PF_OK;
    }
    double span = max3(s->extent[0], s->extent[1], s->extent[2]);
    int ctop = span > 0 ? pf_ceil_log2(span) : 0;
    if (ctop < PF_SHASH_MIN_CLASS + PF_SHASH_MAX_DEPTH) ctop = PF_SHASH_MIN_CLASS + PF_SHASH_MAX_DEPTH;
    int cmin = ctop - PF_SHASH_MAX_DEPTH;
    size_t hist[PF_SHASH_MAX_DEPTH + 1] = {0};
    for (size_t i = 0; i < n; i++) {
        double lo[3], hi[3];
        rel_box(s, &boxes[i], lo, hi);
        double l = max3(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
        int c = l > 0 ? pf_class_above(l) : cmin; /* eq. 2, but never cells of the box's own edge */
        if (c < cmin) c = cmin;
        if (c > ctop) c = ctop;
        s->level[i] = (uint8_t)(ctop - c); /* temporarily: depth below the top */
        hist[ctop - c]++;
    }
    /* Pouchol et al. 2009 §3.1: the smallest class is the particles' size, and nothing is smaller. Here the finest
     * classes are merged up to the class of the 10th-percentile box (a tail of tiny or zero-size boxes would
     * otherwise add levels that every top-down key and descent walks through); coarser cells stay correct. */
    int floor_depth = PF_SHASH_MAX_DEPTH;
    for (size_t below = 0; floor_depth > 0; floor_depth--) {
        below += hist[floor_depth];
        if (below * 10 >= n) break;
    }
    unsigned char present[PF_SHASH_MAX_DEPTH + 1] = {0};
    for (size_t i = 0; i < n; i++) {
        if (s->level[i] > floor_depth) s->level[i] = (uint8_t)floor_depth;
        present[s->level[i]] = 1;
    }
    int map[PF_SHASH_MAX_DEPTH + 1];
    s->nlevels = 0;
    for (int d = 0; d <= PF_SHASH_MAX_DEPTH; d++) {
        if (!present[d]) continue;
        map[d] = s->nlevels;
        s->cexp[s->nlevels] = ctop - d;
        s->size[s->nlevels] = ldexp(1.0, ctop - d);
        s->inv[s->nlevels] = ldexp(1.0, d - ctop);
        s->nlevels++;
    }
    for (size_t i = 0; i < n; i++) s->level[i] = (uint8_t)map[s->level[i]];
    return PF_OK;
}

/* Internal: the table filled past half during insert_cells. */
#define PF_EAGAIN_FULL 1

/* Hashes every box into the cells of its level that it covers (no box covers more than 2 cells per axis of
 * its class, the 8 endpoints of Pouchol et al. 2009, §2.2), recording one scratch entry per (cell, box) in box order.
 * hier: Pouchol et al. 2009 Listing 1, the additive top-down key (eq. 4), every ancestor cell on the way marked
 * hasChildren; multi and uniform: the key of the cell alone (eq. 3). PF_OK or PF_EAGAIN_FULL. */
static int insert_cells(pf_shash *s)
{
    pf_hash_table *t = &s->table;
    size_t nent = 0;
    /* hier: the chain of ancestor cells the last entry marked, levels < depth (Pouchol et al. 2009 Listing 1 walks
     * every class from the top for every point; an object's cells share most of their ancestors) */
    struct {
        int depth;
        uint64_t xyz[PF_SHASH_MAX_LEVELS][3];
        uint64_t key[PF_SHASH_MAX_LEVELS]; /* additive key down to the level */
    } chain;
    chain.depth = 0;
    for (size_t i = 0; i < s->n; i++) {
        int L = s->level[i];
        double lo[3], hi[3];
        uint64_t rlo[3], rhi[3];
        rel_box(s, &s->boxes[i], lo, hi);
        level_range(s, L, lo, hi, rlo, rhi);
        for (uint64_t z = rlo[2]; z <= rhi[2]; z++)
            for (uint64_t y = rlo[1]; y <= rhi[1]; y++)
                for (uint64_t x = rlo[0]; x <= rhi[0]; x++) {
                    pf_hash_slot *c;
                    if (s->kind == PF_SHASH_HIER) {
                        /* the ancestors the previous entry marked (the same cells: same coordinates) are
                         * skipped; a match at a level means a match at every coarser one */
                        int k = 0;
                        for (; k < L && k < chain.depth; k++) {
                            int d = s->cexp[k] - s->cexp[L];
                            if (chain.xyz[k][0] != x >> d || chain.xyz[k][1] != y >> d || chain.xyz[k][2] != z >> d)
                                break;
                        }
                        uint64_t key = k ? chain.key[k - 1] : 0;
                        if (k < L) chain.depth = L;
                        for (; k < L; k++) {
                            int d = s->cexp[k] - s->cexp[L];
                            uint64_t a[3] = {x >> d, y >> d, z >> d};
                            key += pf_cell_hash(s->cexp[k], a[0], a[1], a[2]);
                            c = pf_hash_table_insert(t, pf_hash_key(key));
                            c->info |= 1;
                            if (pf_hash_table_full(t)) return PF_EAGAIN_FULL;
                            memcpy(chain.xyz[k], a, sizeof a);
                            chain.key[k] = key;
                        }
                        key += pf_cell_hash(s->cexp[L], x, y, z);
                        c = pf_hash_table_insert(t, pf_hash_key(key));
                    } else {
                        c = pf_hash_table_insert(t, pf_hash_key(pf_cell_hash(s->cexp[L], x, y, z)));
                    }
                    if (pf_hash_table_full(t)) return PF_EAGAIN_FULL;
                    c->info += 2;
                    s->ent_slot[nent] = (uint32_t)(c - t->slots);
                    s->ent_id[nent] = (uint32_t)i;
                    nent++;
                }
    }
    return PF_OK;
}

int pf_shash_build(pf_shash *s, int kind, const pf_aabb *boxes, size_t n, double uniform_cell)
{
    s->kind = kind;
    s->n = n;
    s->boxes = boxes;
    s->nlevels = 0;
    memset(s->level_start, 0, sizeof s->level_start);
    if (n == 0) return pf_hash_table_clear(&s->table, 0);
    if (n >= UINT32_MAX / 2) return pf_error(PF_EINVAL, "too many boxes: %zu", n);
    int rc = grow_per_object(s, n);
    if (rc) return rc;

    for (int k = 0; k < 3; k++) {
        double lo = boxes[0].min[k], hi = boxes[0].max[k];
        for (size_t i = 1; i < n; i++) {
            lo = boxes[i].min[k] < lo ? boxes[i].min[k] : lo; /* finite inputs: no NaN rules needed */
            hi = boxes[i].max[k] > hi ? boxes[i].max[k] : hi;
        }
        s->origin[k] = lo;
        s->extent[k] = hi - lo;
    }
    rc = choose_levels(s, kind, boxes, n, uniform_cell);
    if (rc) return rc;

    /* boxes grouped by level (counting sort, ascending ids within a level) */
    size_t count[PF_SHASH_MAX_LEVELS + 1] = {0};
    for (size_t i = 0; i < n; i++) count[s->level[i] + 1]++;
    for (int l = 0; l < s->nlevels; l++) count[l + 1] += count[l];
    memcpy(s->level_start, count, sizeof count);
    for (size_t i = 0; i < n; i++) s->by_level[count[s->level[i]]++] = (uint32_t)i;

    /* the boxes as the entries hold them, and how many entries there will be */
    size_t nent = 0;
    for (size_t i = 0; i < n; i++) {
        double lo[3], hi[3];
        uint64_t rlo[3], rhi[3];
        rel_box(s, &boxes[i], lo, hi);
        for (int k = 0; k < 3; k++) s->fbox[i][k] = round_down(lo[k]), s->fbox[i][3 + k] = round_up(hi[k]);
        level_range(s, s->level[i], lo, hi, rlo, rhi);
        nent += (size_t)range_cells(rlo, rhi);
    }
    if (nent >= UINT32_MAX) return pf_error(PF_EINVAL, "too many hash entries: %zu", nent);
    rc = grow_entries(s, nent);
    if (rc) return rc;
    /* sized for the previous build's cells, the first time for one cell per entry (the hierarchical hash adds
     * ancestor cells, several boxes share cells: a too small guess only costs a restart, a too large one is
     * kept until the next build) */
    size_t expect = s->cells_hint ? s->cells_hint : nent;
    for (;;) {
        rc = pf_hash_table_clear(&s->table, expect);
        if (rc) return rc;
        rc = insert_cells(s);
        if (rc != PF_EAGAIN_FULL) break;
        expect = 2 * s->table.ncells;
    }
    if (rc) return rc;
    s->cells_hint = s->table.ncells;
    return pf_hash_table_fill(&s->table, s->ent_slot, s->ent_id, (const float(*)[6])s->fbox, nent);
}

void pf_shash_free(pf_shash *s)
{
    pf_hash_table_free(&s->table);
    pf_free(s->level);
    pf_free(s->by_level);
    pf_free(s->fbox);
    pf_free(s->ent_slot);
    pf_free(s->ent_id);
    memset(s, 0, sizeof *s);
}

size_t pf_shash_bytes(const pf_shash *s)
{
    return pf_hash_table_bytes(&s->table) +
           s->cap_n * (sizeof *s->level + sizeof *s->by_level + sizeof *s->fbox) +
           s->ent_cap * 2 * sizeof(uint32_t);
}

/* ---- queries ---- */

typedef struct query_ctx {
    const pf_shash *s;
    pf_id_buffer *b;
    float lo[3], hi[3]; /* the query box relative to origin, rounded outwards: the entries' filter */
    int scanned_from;   /* levels >= this were pushed whole by the guard below */
    int last;           /* deepest level the descent may reach */
    int ranged;         /* hier queries: levels < this have their ranges (computed as the descent reaches them) */
    double dlo[3], dhi[3];                      /* the query box relative to origin */
    unsigned char several[PF_SHASH_MAX_LEVELS]; /* the query spans more than one cell of the level */
    uint64_t rlo[PF_SHASH_MAX_LEVELS][3], rhi[PF_SHASH_MAX_LEVELS][3];
} query_ctx;

/* Branch-free: the outcome is unpredictable, and a cell's entries are tested in a tight loop. */
static inline int float_overlap(const float lo[3], const float hi[3], const float blo[3], const float bhi[3])
{
    return (blo[0] <= hi[0]) & (lo[0] <= bhi[0]) & (blo[1] <= hi[1]) & (lo[1] <= bhi[1]) & (blo[2] <= hi[2]) &
           (lo[2] <= bhi[2]);
}

static int reserve_ids(pf_id_buffer *b, size_t m)
{
    while (b->cap - b->n < m) {
        int rc = pf_idbuf_grow(b);
        if (rc) return rc;
    }
    return PF_OK;
}

/* Takes the ids of a cell whose float box overlaps the query (the cheap filter on memory read in order; the
 * exact test is the caller's). A box lives in one level only, and every cell is visited once, so duplicates
 * can only come from a level where the query spans several cells: only there are the stamps needed. */
static int push_cell(query_ctx *q, const pf_hash_slot *c, int L)
{
    const pf_hash_entry *e = q->s->table.entries.v + c->start;
    uint32_t m = c->info >> 1;
    pf_id_buffer *b = q->b;
    b->candidates += m;
    if (q->several[L]) {
        for (uint32_t k = 0; k < m; k++) {
            if (!float_overlap(q->lo, q->hi, e[k].lo, e[k].hi)) continue;
            int rc = pf_idbuf_push_unique(b, e[k].id);
            if (rc) return rc;
        }
        return PF_OK;
    }
    int rc = reserve_ids(b, m);
    if (rc) return rc;
    uint32_t *out = b->ids + b->n;
    size_t kept = 0;
    for (uint32_t k = 0; k < m; k++) {
        out[kept] = e[k].id;
        kept += (size_t)float_overlap(q->lo, q->hi, e[k].lo, e[k].hi);
    }
    b->n += kept;
    return PF_OK;
}

/* Pushes the boxes of by_level[from, to) that overlap the query: the guard for queries that would enumerate
 * more cells than there are boxes to find (huge query boxes, extreme class ratios). Boxes taken without
 * stamps earlier are stamped first. */
static int push_listed(query_ctx *q, size_t from, size_t to)
{
    const pf_shash *s = q->s;
    pf_id_buffer *b = q->b;
    for (size_t k = 0; k < b->n; k++) b->mark[b->ids[k]] = b->stamp;
    b->candidates += to - from;
    for (size_t k = from; k < to; k++) {
        uint32_t id = s->by_level[k];
        if (!float_overlap(q->lo, q->hi, s->fbox[id], s->fbox[id] + 3)) continue;
        int rc = pf_idbuf_push_unique(b, id);
        if (rc) return rc;
    }
    return PF_OK;
}

/* The guard, for every box of levels >= `from`. */
static int push_levels_from(query_ctx *q, int from)
{
    if (from >= q->scanned_from) return PF_OK;
    int rc = push_listed(q, q->s->level_start[from], q->s->level_start[q->scanned_from]);
    q->scanned_from = from;
    return rc;
}

static inline void ctx_ranges(query_ctx *q, const double lo[3], const double hi[3], int from, int to)
{
    for (int L = from; L < to; L++) {
        level_range(q->s, L, lo, hi, q->rlo[L], q->rhi[L]);
        q->several[L] = range_cells(q->rlo[L], q->rhi[L]) > 1;
    }
}

/* Pouchol et al. 2009 Listing 2, as a descent: retrieve the ids of the cell, and go down into the child cells that the
 * query overlaps only when the cell's hasChildren is set. `key` is the cell's additive key (eq. 4), so a
 * child's key is one h^c away. */
static int visit(query_ctx *q, int L, uint64_t key, uint64_t x, uint64_t y, uint64_t z)
{
    const pf_shash *s = q->s;
    const pf_hash_slot *c = pf_hash_table_find(&s->table, pf_hash_key(key));
    if (!c) return PF_OK;
    int C = L + 1;
    if (!(c->info & 1) || C > q->last || C >= q->scanned_from) return push_cell(q, c, L);
    if (C >= q->ranged) { /* the descent goes one level at a time: C == q->ranged */
        ctx_ranges(q, q->dlo, q->dhi, C, C + 1);
        q->ranged = C + 1;
    }
    int d = s->cexp[L] - s->cexp[C];
    uint64_t lo[3], hi[3], p[3] = {x, y, z};
    for (int k = 0; k < 3; k++) {
        uint64_t a = p[k] << d, b = ((p[k] + 1) << d) - 1;
        lo[k] = a > q->rlo[C][k] ? a : q->rlo[C][k];
        hi[k] = b < q->rhi[C][k] ? b : q->rhi[C][k];
        if (lo[k] > hi[k]) return push_cell(q, c, L);
    }
    double nchild = range_cells(lo, hi);
    int rc = push_cell(q, c, L);
    if (rc) return rc;
    if (nchild > (double)(s->n - s->level_start[C])) return push_levels_from(q, C);
    for (uint64_t cz = lo[2]; cz <= hi[2]; cz++)
        for (uint64_t cy = lo[1]; cy <= hi[1]; cy++)
            for (uint64_t cx = lo[0]; cx <= hi[0]; cx++) {
                rc = visit(q, C, key + pf_cell_hash(s->cexp[C], cx, cy, cz), cx, cy, cz);
                if (rc) return rc;
            }
    return PF_OK;
}

/* Searches the cells of one level in the given range (multilevel and uniform hashes, Pouchol et al. 2009, §2.2: every
 * cell of the level that the query overlaps, no pruning). */
static int scan_level(query_ctx *q, int L)
{
    const pf_shash *s = q->s;
    if (range_cells(q->rlo[L], q->rhi[L]) > (double)(s->level_start[L + 1] - s->level_start[L]))
        return push_listed(q, s->level_start[L], s->level_start[L + 1]);
    for (uint64_t z = q->rlo[L][2]; z <= q->rhi[L][2]; z++)
        for (uint64_t y = q->rlo[L][1]; y <= q->rhi[L][1]; y++)
            for (uint64_t x = q->rlo[L][0]; x <= q->rhi[L][0]; x++) {
                const pf_hash_slot *c = pf_hash_table_find(&s->table, pf_hash_key(pf_cell_hash(s->cexp[L], x, y, z)));
                if (!c) continue;
                int rc = push_cell(q, c, L);
                if (rc) return rc;
            }
    return PF_OK;
}

/* Starts a query for the relative box [lo, hi] with the level ranges [from, to) computed. */
static void ctx_init(query_ctx *q, const pf_shash *s, pf_id_buffer *b, const double lo[3], const double hi[3],
                     int from, int to)
{
    q->s = s, q->b = b, q->scanned_from = s->nlevels, q->last = s->nlevels - 1, q->ranged = s->nlevels;
    for (int k = 0; k < 3; k++) {
        q->lo[k] = round_down(lo[k]), q->hi[k] = round_up(hi[k]);
        q->dlo[k] = lo[k], q->dhi[k] = hi[k];
    }
    ctx_ranges(q, lo, hi, from, to);
}


/* Pouchol et al. 2009 Listing 2 from the largest class down to level `last`. */
static int top_down(query_ctx *q, int last)
{
    const pf_shash *s = q->s;
    q->last = last;
    if (range_cells(q->rlo[0], q->rhi[0]) > (double)s->n) return push_levels_from(q, 0);
    for (uint64_t z = q->rlo[0][2]; z <= q->rhi[0][2]; z++)
        for (uint64_t y = q->rlo[0][1]; y <= q->rhi[0][1]; y++)
            for (uint64_t x = q->rlo[0][0]; x <= q->rhi[0][0]; x++) {
                int rc = visit(q, 0, pf_cell_hash(s->cexp[0], x, y, z), x, y, z);
                if (rc) return rc;
            }
    return PF_OK;
}

int pf_shash_query(const pf_shash *s, const pf_aabb *box, pf_id_buffer *b)
{
    if (s->n == 0) return PF_OK;
    double lo[3], hi[3];
    rel_box(s, box, lo, hi);
    for (int k = 0; k < 3; k++) {
        if (hi[k] < 0 || lo[k] > s->extent[k] || isnan(lo[k]) || isnan(hi[k])) return PF_OK;
        /* clamping is monotone: it keeps every overlap with the stored boxes */
        if (lo[k] < 0) lo[k] = 0;
        if (hi[k] > s->extent[k]) hi[k] = s->extent[k];
    }
    query_ctx q; /* not zero-initialised: only the ranges of the levels searched are read */
    if (s->kind == PF_SHASH_HIER) {
        /* the ranges of the finer levels are computed when the descent gets there */
        ctx_init(&q, s, b, lo, hi, 0, 1);
        q.ranged = 1;
        return top_down(&q, s->nlevels - 1);
    }
    ctx_init(&q, s, b, lo, hi, 0, s->nlevels);
    for (int L = 0; L < s->nlevels; L++) {
        int rc = scan_level(&q, L);
        if (rc) return rc;
    }
    return PF_OK;
}

/* In the all-pairs search, a pair of classes at most 2^PF_SHASH_NEAR apart is found by the larger box's
 * descent (hasChildren pruning, a bounded number of child cells per level); a pair further apart by the
 * smaller box's top-down search of the larger classes (Pouchol et al. 2009 Listing 2 stopped early), since a large box
 * over a dense crowd of much smaller ones would visit every populated cell beneath it. */
#define PF_SHASH_NEAR 2

/* Candidates of box i for the all-pairs search. hier: the far larger classes top-down, then a descent from
 * the box's own cells into the near smaller classes; multi and uniform: its own class and the larger ones,
 * every cell. */
static int object_candidates(const pf_shash *s, uint32_t i, pf_id_buffer *b)
{
    int L = s->level[i];
    double lo[3], hi[3];
    rel_box(s, &s->boxes[i], lo, hi);
    query_ctx q;
    if (s->kind != PF_SHASH_HIER) {
        ctx_init(&q, s, b, lo, hi, 0, L + 1);
        for (int l = 0; l <= L; l++) {
            int rc = scan_level(&q, l);
            if (rc) return rc;
        }
        return PF_OK;
    }
    int kcut = 0, mlast = L;
    while (s->cexp[kcut] - s->cexp[L] > PF_SHASH_NEAR) kcut++;
    while (mlast + 1 < s->nlevels && s->cexp[L] - s->cexp[mlast + 1] <= PF_SHASH_NEAR) mlast++;
    ctx_init(&q, s, b, lo, hi, 0, kcut);
    if (kcut > 0) {
        int rc = top_down(&q, kcut - 1);
        if (rc) return rc;
    }
    ctx_ranges(&q, lo, hi, L, mlast + 1);
    q.last = mlast;
    for (uint64_t z = q.rlo[L][2]; z <= q.rhi[L][2]; z++)
        for (uint64_t y = q.rlo[L][1]; y <= q.rhi[L][1]; y++)
            for (uint64_t x = q.rlo[L][0]; x <= q.rhi[L][0]; x++) {
                uint64_t key = 0;
                for (int k = 0; k <= L; k++) {
                    int d = s->cexp[k] - s->cexp[L];
                    key += pf_cell_hash(s->cexp[k], x >> d, y >> d, z >> d);
                }
                int rc = visit(&q, L, key, x, y, z);
                if (rc) return rc;
            }
    return PF_OK;
}

/* Which side of a pair reports it (each pair exactly once): equal classes, the lower id; hier, the larger box
 * for near classes and the smaller box for far ones (see PF_SHASH_NEAR); multi, the smaller box, whose search
 * upwards finds the larger one. */
static inline int reports(const pf_shash *s, uint32_t i, uint32_t j)
{
    int li = s->level[i], lj = s->level[j];
    if (li == lj) return j > i;
    if (s->kind != PF_SHASH_HIER) return lj < li;
    int near = abs(s->cexp[li] - s->cexp[lj]) <= PF_SHASH_NEAR;
    return li < lj ? near : !near;
}

static int pairs_chunk(const pf_shash *s, size_t begin, size_t end, pf_id_buffer *b, pf_pair_vec *out,
                       uint64_t *candidates)
{
    for (size_t i = begin; i < end; i++) {
        pf_idbuf_begin(b);
        int rc = object_candidates(s, (uint32_t)i, b);
        if (rc) return rc;
        *candidates += b->candidates;
        const pf_aabb *bi = &s->boxes[i];
        for (size_t k = 0; k < b->n; k++) {
            uint32_t j = b->ids[k];
            if (j == i || !reports(s, (uint32_t)i, j) || !pf_shash_box_overlap(bi, &s->boxes[j])) continue;
            rc = j > i ? pf_pair_vec_push(out, (uint32_t)i, j) : pf_pair_vec_push(out, j, (uint32_t)i);
            if (rc) return rc;
        }
    }
    return PF_OK;
}

typedef struct pairs_run {
    pf_shash_pairs_ws *ws;
    const pf_shash *s;
    size_t nchunks;
    int threads;          /* workers at or above it have no query buffer and take no chunk */
    atomic_size_t next;   /* the next chunk to take */
    uint64_t *cand;       /* per chunk */
    atomic_int rc;
} pairs_run;

/* Chunks of uneven cost: the workers take them one at a time as they finish, each into its own vector. */
static void pairs_worker(void *ctx, int worker, int workers)
{
    (void)workers;
    pairs_run *r = ctx;
    if (worker >= r->threads) return;
    size_t n = r->s->n;
    for (size_t c; (c = atomic_fetch_add(&r->next, 1)) < r->nchunks;) {
        pf_pair_vec *v = &r->ws->chunks[c];
        v->n = 0;
        r->cand[c] = 0;
        int rc = pairs_chunk(r->s, c * n / r->nchunks, (c + 1) * n / r->nchunks, &r->ws->bufs[worker], v, &r->cand[c]);
        if (rc) atomic_store(&r->rc, rc); /* any failure code will do: they are all out-of-memory */
    }
}

int pf_shash_pairs(pf_shash_pairs_ws *ws, const pf_shash *s, const pf_par *par, pf_pair_vec *out,
                   uint64_t *candidates)
{
    size_t n = s->n;
    *candidates = 0;
    if (n == 0) return PF_OK;
    int threads = par ? par->workers : 1;
    if (threads < 1) threads = 1;
    /* a fixed number of chunks per thread count keeps each chunk's output a pure function of the boxes */
    size_t nchunks = threads == 1 ? 1 : (size_t)threads * 16;
    if (nchunks > n) nchunks = n;
    if (ws->nbufs < threads) {
        pf_id_buffer *p = pf_realloc(ws->bufs, (size_t)ws->nbufs * sizeof *p, (size_t)threads * sizeof *p);
        if (!p) return pf_error(PF_ENOMEM, "out of memory for %d query buffers", threads);
        memset(p + ws->nbufs, 0, (size_t)(threads - ws->nbufs) * sizeof *p);
        ws->bufs = p;
        ws->nbufs = threads;
    }
    if (ws->nchunks < nchunks) {
        pf_pair_vec *p = pf_realloc(ws->chunks, ws->nchunks * sizeof *p, nchunks * sizeof *p);
        if (!p) return pf_error(PF_ENOMEM, "out of memory for %zu pair chunks", nchunks);
        memset(p + ws->nchunks, 0, (nchunks - ws->nchunks) * sizeof *p);
        ws->chunks = p;
        ws->nchunks = nchunks;
    }
    for (int t = 0; t < threads; t++) {
        int rc = pf_idbuf_marks(&ws->bufs[t], n);
        if (rc) return rc;
    }
    if (nchunks == 1) {
        ws->chunks[0].n = 0;
        int rc = pairs_chunk(s, 0, n, &ws->bufs[0], out, candidates);
        return rc;
    }
    if (ws->ncand < nchunks) {
        uint64_t *p = pf_realloc(ws->cand, ws->ncand * sizeof *p, nchunks * sizeof *p);
        if (!p) return pf_error(PF_ENOMEM, "out of memory for %zu chunk counters", nchunks);
        ws->cand = p;
        ws->ncand = nchunks;
    }
    pairs_run r = {.ws = ws, .s = s, .nchunks = nchunks, .threads = threads, .cand = ws->cand};
    atomic_init(&r.next, 0);
    atomic_init(&r.rc, PF_OK);
    pf_par_run(par, threads, pairs_worker, &r);
    int rc = atomic_load(&r.rc);
    if (rc) return rc;
    uint64_t cand = 0;
    for (size_t c = 0; c < nchunks; c++) cand += ws->cand[c];
    *candidates = cand;
    size_t total = out->n;
    for (size_t c = 0; c < nchunks; c++) total += ws->chunks[c].n;
    rc = pf_pair_vec_reserve(out, total);
    if (rc) return rc;
    for (size_t c = 0; c < nchunks; c++) {
        if (ws->chunks[c].n) memcpy(out->data + out->n, ws->chunks[c].data, ws->chunks[c].n * sizeof *out->data);
        out->n += ws->chunks[c].n;
    }
    return PF_OK;
}

size_t pf_shash_pairs_ws_bytes(const pf_shash_pairs_ws *ws)
{
    size_t bytes = 0;
    for (int t = 0; t < ws->nbufs; t++) bytes += ws->bufs[t].cap * 4 + ws->bufs[t].mark_n * 4;
    for (size_t c = 0; c < ws->nchunks; c++) bytes += ws->chunks[c].cap * sizeof(pf_pair);
    return bytes + ws->ncand * sizeof *ws->cand;
}

void pf_shash_pairs_ws_free(pf_shash_pairs_ws *ws)
{
    for (int t = 0; t < ws->nbufs; t++) pf_idbuf_release(&ws->bufs[t]);
    for (size_t c = 0; c < ws->nchunks; c++) pf_pair_vec_free(&ws->chunks[c]);
    pf_free(ws->bufs);
    pf_free(ws->chunks);
    pf_free(ws->cand);
    memset(ws, 0, sizeof *ws);
}
