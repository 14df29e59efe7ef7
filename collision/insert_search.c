/* The neighbour search at insertion (Pouchol et al. 2009, §3.3.2, Listing 3; see insert_search.h). */
#include "insert_search.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

/* Finest class at all: the widest axis spans at most 2^40 of its cells (coarser cells only add candidates), as
 * in spatial_hash.c. */
#define PF_ISEARCH_MAX_DEPTH 40

static inline uint64_t coord(double rel, double inv)
{
    return (uint64_t)(int64_t)(rel * inv); /* rel >= 0 and < 2^41 cells: exact, monotone */
}

int pf_isearch_begin(pf_isearch *s, const double *xyz, size_t n, double r, int step)
{
    s->xyz = xyz, s->n = n;
    double lo[3] = {0, 0, 0}, span = 0;
    for (int k = 0; k < 3; k++) {
        double hi = lo[k] = n ? xyz[k] : 0;
        for (size_t i = 1; i < n; i++) {
            double v = xyz[3 * i + (size_t)k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi = v > hi ? v : hi;
        }
        if (hi - lo[k] > span) span = hi - lo[k];
    }
    /* relative coordinates are rounded (within span * 2^-52 each): the radius searched is widened past that, so
     * the cells still hold every point within r */
    r += span * 0x1p-48;
    s->r = r;
    span += 2 * r;
    for (int k = 0; k < 3; k++) s->origin[k] = lo[k] - r;
    int fine = pf_ceil_log2(r), top = pf_ceil_log2(span);
    if (fine < top - PF_ISEARCH_MAX_DEPTH) fine = top - PF_ISEARCH_MAX_DEPTH;
    /* the classes above the finest, one every `step`, while a cell is smaller than the span (a class of one
     * cell prunes nothing), largest first */
    int above = 0;
    if (step > 0)
        while (fine + step * (above + 1) < top && above + 1 < PF_ISEARCH_MAX_LEVELS) above++;
    s->nlevels = above + 1;
    for (int l = 0; l < s->nlevels; l++) {
        s->cexp[l] = fine + step * (above - l);
        s->inv[l] = ldexp(1.0, -s->cexp[l]);
    }
    if (n > s->cap) {
        pf_free(s->next);
        s->next = pf_malloc(n * sizeof *s->next);
        s->cap = s->next ? n : 0;
        if (!s->next) return pf_error(PF_ENOMEM, "out of memory for %zu points", n);
    }
    return pf_hash_table_clear(&s->table, s->cells_hint ? s->cells_hint : n);
}

/* A cell still searched at some level: its coordinates and additive key (eq. 4). */
typedef struct live_cell {
    uint64_t c[3], key;
} live_cell;

/* The distinct cell coordinates, on one axis of one level, of the point's coordinate less r, itself and plus r
 * (a cell is at least r wide: every point within r on the axis lies in one of them). */
static inline int axis_cells(double rel, double r, double inv, uint64_t out[3])
{
    uint64_t a = coord(rel - r, inv), m = coord(rel, inv), b = coord(rel + r, inv);
    int k = 0;
    out[k++] = a;
    if (m != a) out[k++] = m;
    if (b != out[k - 1]) out[k++] = b;
    return k;
}

int pf_isearch_candidates(const pf_isearch *s, size_t i, pf_id_buffer *b)
{
    double rel[3];
    for (int k = 0; k < 3; k++) rel[k] = s->xyz[3 * i + (size_t)k] - s->origin[k];
    live_cell live[2][27];
    int nlive = 0, cur = 0;
    for (int l = 0; l < s->nlevels; l++) {
        uint64_t ax[3][3];
        int na[3];
        for (int k = 0; k < 3; k++) na[k] = axis_cells(rel[k], s->r, s->inv[l], ax[k]);
        int d = l ? s->cexp[l - 1] - s->cexp[l] : 0, last = l == s->nlevels - 1, nnext = 0;
        for (int z = 0; z < na[2]; z++)
            for (int y = 0; y < na[1]; y++)
                for (int x = 0; x < na[0]; x++) {
                    uint64_t c[3] = {ax[0][x], ax[1][y], ax[2][z]}, key = 0;
                    if (l) { /* the parent must still be searched: found, with hasChildren */
                        int p = 0;
                        while (p < nlive && (live[cur][p].c[0] != c[0] >> d || live[cur][p].c[1] != c[1] >> d ||
                                             live[cur][p].c[2] != c[2] >> d))
                            p++;
                        if (p == nlive) continue;
                        key = live[cur][p].key;
                    }
                    key += pf_cell_hash(s->cexp[l], c[0], c[1], c[2]);
                    const pf_hash_slot *cell = pf_hash_table_find(&s->table, pf_hash_key(key));
                    if (!cell) continue;
                    if (!last) {
                        if (cell->info & 1) live[cur ^ 1][nnext++] = (live_cell){{c[0], c[1], c[2]}, key};
                        continue;
                    }
                    b->candidates += cell->info >> 1;
                    for (uint32_t j = cell->start; j; j = s->next[j - 1]) {
                        int rc = pf_idbuf_push(b, j - 1);
                        if (rc) return rc;
                    }
                }
        if (!last && !nnext) return PF_OK; /* every cell pruned: nothing near */
        cur ^= 1;
        nlive = nnext;
    }
    return PF_OK;
}

int pf_isearch_insert(pf_isearch *s, size_t i)
{
    uint64_t key = 0;
    for (int l = 0; l < s->nlevels; l++) {
        uint64_t c[3];
        for (int k = 0; k < 3; k++) c[k] = coord(s->xyz[3 * i + (size_t)k] - s->origin[k], s->inv[l]);
        key += pf_cell_hash(s->cexp[l], c[0], c[1], c[2]);
        pf_hash_slot *cell = pf_hash_table_insert(&s->table, pf_hash_key(key));
        if (l < s->nlevels - 1) {
            cell->info |= 1;
        } else {
            cell->info += 2;
            s->next[i] = cell->start;
            cell->start = (uint32_t)i + 1;
        }
        if (pf_hash_table_full(&s->table)) {
            int rc = pf_hash_table_grow(&s->table);
            if (rc) return rc;
        }
    }
    if (i + 1 == s->n) s->cells_hint = s->table.ncells;
    return PF_OK;
}

size_t pf_isearch_bytes(const pf_isearch *s)
{
    return pf_hash_table_bytes(&s->table) + s->cap * sizeof *s->next;
}

void pf_isearch_free(pf_isearch *s)
{
    pf_hash_table_free(&s->table);
    pf_free(s->next);
    memset(s, 0, sizeof *s);
}
