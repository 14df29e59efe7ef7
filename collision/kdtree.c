/* The linear kd-tree broad phase of Poirrier 2009: locational codes of split boxes, sorted, swept by prefix.
 * Backends `kd` (unique pairs after the exact AABB test, the paper's kd-tree-2) and `kd-raw` (every candidate
 * with its duplicates, the paper's kd-tree-1). docs/collision.md describes the design and the memory layout.
 *
 * One step, when the previous one left its state:
 *   1 frame      the root cell (dyadic, so that it stays put while the boxes move a little) and key grid;
 *   2 refresh    every box re-quantised; a box whose keys did not change keeps its records (its key-relevant
 *                bits did not move, or its keys recomputed from the old and the new corners are equal);
 *   3 update     the records the changed boxes lost are dropped and those they gained sorted and merged in
 *                (update_diff), or, when those lists outgrow the room the last steps measured, all the records
 *                of the changed boxes removed and their new ones merged in (in batches when many changed);
 *   4 sweep      the sorted records swept for pairs, in parallel over chunks.
 * Otherwise (first call, new box count, new frame) everything is rebuilt. Both paths leave the same sorted
 * array, so the output depends on the boxes only, never on the history or the thread count. */
#include "broadphase_backend.h"
#include "kd_keys.h"
#include "kdtree.h"
#include "pair_chunks.h"
#include "radix_sort.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/vec.h"

#include <string.h>

#ifdef _OPENMP
#endif

/* The changed boxes' new records are written, sorted and merged in batches of at most KD_BATCH records per box
 * of the set: the room they need stays bounded (16 bytes per box) however many boxes change. An update, even in
 * several batches, costs less than a rebuild (at 1M falling spheres with 68 % of the boxes changing keys per
 * step: 3 batches, about 300 ms a step, against 570 for a rebuild), so changes never cause one. */
#define KD_BATCH 2

typedef struct kd_state {
    int raw;
    size_t n; /* boxes of the state below; 0: no state (rebuild) */
    kd_frame fr;
    int split;
    /* Records sorted by (cell key, box index), each `key << fr.kshift | rank` (kd_keys.h). */
    PF_VEC(uint64_t) rec;
    /* By rank (boxes renumbered in their order of first appearance in the records, so that the sweep finds
     * the boxes of a neighbourhood near each other in memory): quantised corners, key level, box index. */
    uint64_t *q; /* q[2r], q[2r + 1]: lower, upper corner (one cache line for both) */
    uint64_t *qn; /* the same, quantised from this call's boxes (scatter_chunk); then swapped with q */
    uint8_t *glev;
    uint32_t *perm;    /* rank -> box */
    uint32_t *rank;    /* box -> rank */
    uint64_t *changed; /* bit per rank */
    uint32_t *wrecs;   /* per 64 ranks (a word of `changed`): the new records of its changed boxes */
    size_t box_cap;    /* room of q, qn, glev, perm, rank, changed and wrecs: grown in step, so no PF_VEC */
    PF_VEC(uint64_t) fresh; /* the new records of the boxes that changed, (key | rank) */
    /* The diff path (update_diff): per list, the room of `fresh` given to the records a step adds and to those
     * it removes, sized from the last step's counts; 0 until a step has measured them. */
    size_t dcap;
    struct sweep_buf *sbuf; /* per thread */
    int sbuf_count;
    pf_pair_chunks chunks;
    size_t last_pairs;
    PF_VEC(uint32_t) work; /* per block of the last sweep (KD_BLOCK records): the candidates it gave */
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

static void free_boxes(kd_state *s)
{
    pf_free(s->q);
    pf_free(s->qn);
    pf_free(s->glev);
    pf_free(s->perm);
    pf_free(s->rank);
    pf_free(s->changed);
    pf_free(s->wrecs);
    s->wrecs = NULL;
    s->q = s->qn = s->changed = NULL;
    s->glev = NULL;
    s->perm = s->rank = NULL;
    s->box_cap = 0;
}

static void kd_destroy(void *state)
{
    kd_state *s = state;
    if (!s) return;
    pf_vec_free(&s->rec);
    free_boxes(s);
    pf_vec_free(&s->fresh);
    pf_vec_free(&s->work);
    pf_free(s->sbuf);
    pf_pair_chunks_free(&s->chunks);
    pf_free(s);
}

static int grow_boxes(kd_state *s, size_t n)
{
    if (n <= s->box_cap) return PF_OK;
    free_boxes(s);
    size_t words = (n + 63) / 64;
    s->q = pf_malloc(2 * n * sizeof *s->q);
    s->qn = pf_malloc(2 * n * sizeof *s->qn);
    s->glev = pf_malloc(n);
    s->perm = pf_malloc(n * sizeof *s->perm);
    s->rank = pf_malloc(n * sizeof *s->rank);
    s->changed = pf_malloc(words * sizeof *s->changed);
    s->wrecs = pf_malloc(words * sizeof *s->wrecs);
    if (!s->q || !s->qn || !s->glev || !s->perm || !s->rank || !s->changed || !s->wrecs) {
        free_boxes(s);
        return pf_error(PF_ENOMEM, "out of memory for %zu kd-tree boxes", n);
    }
    s->box_cap = n;
    return PF_OK;
}

/* Makes room for `need` records, keeping the first `keep`. Not pf_vec_reserve, which would double the room
 * (8 bytes a record, millions of records) and copy all of it, the sort scratch past `keep` included. */
static int grow_records(kd_state *s, size_t need, size_t keep)
{
    if (need <= s->rec.cap) return PF_OK;
    size_t c = need + need / 64 + 1024; /* the count moves little from step to step */
    uint64_t *r = pf_realloc(s->rec.v, keep * sizeof *r, c * sizeof *r);
    if (!r) return pf_error(PF_ENOMEM, "out of memory for %zu kd-tree records", c);
    s->rec.v = r;
    s->rec.cap = c;
    return PF_OK;
}

/* Not pf_vec_reserve: the array is refilled whole each time, so the old block is dropped, not copied. */
static int fresh_reserve(kd_state *s, size_t need)
{
    if (need <= s->fresh.cap) return PF_OK;
    size_t c = need + need / 16 + 256; /* the count grows while the boxes speed up */
    pf_vec_free(&s->fresh);
    s->fresh.v = pf_malloc(c * sizeof *s->fresh.v);
    s->fresh.cap = s->fresh.v ? c : 0;
    return s->fresh.v ? PF_OK : pf_error(PF_ENOMEM, "out of memory for %zu kd-tree records", c);
}

/* Chunk c of `threads` over [0, n), bounds rounded to multiples of 64 (whole words of the changed bits). */
static void word_chunk(size_t n, int threads, int c, size_t *lo, size_t *hi)
{
    size_t words = (n + 63) / 64, wl, wh;
    pf_chunk_range(words, threads, c, &wl, &wh);
    *lo = wl * 64 < n ? wl * 64 : n;
    *hi = wh * 64 < n ? wh * 64 : n;
}

/* ---- update: only the boxes whose keys may have changed ---- */

typedef struct find_run {
    kd_state *s;
    const pf_aabb *boxes;
    size_t n;
    uint64_t *to;     /* where scatter_chunk writes the corners by rank */
    size_t total[64]; /* per chunk */
    /* the diff path: per chunk, the records its boxes gain (added) and lose (gone), written into its region of
     * fresh when they fit; dcap = 0: not written */
    size_t dcap;
    size_t added[64], gone[64];
    int overflow[64];
} find_run;

/* The region of chunk c of `threads` in each of the diff path's two lists of room cap. */
static void diff_region(size_t cap, int threads, int c, size_t *lo, size_t *hi)
{
    pf_par_range(cap, c, threads, lo, hi);
}

/* Sets apart the keys a box gains and loses, as records of rank r: the ones it gains at add[*na] (then *na +
 * 1), the ones it loses at gone[*ng], written when the box's keys all fit below room (else only counted, and
 * *over set). Each
 * key is looked up among the other list's eight entries (the ones past the counts hold 1 and UINT64_MAX, never keys,
 * whose bit 0 is a record bit, 0), without a branch: a merge of the two sorted lists took a mispredicted branch a key. */
static void key_diff(uint64_t now[8], int k, uint64_t was[8], int k0, uint64_t r, uint64_t *add, uint64_t *gone,
                     size_t room, size_t *na, size_t *ng, int *over)
{
    uint64_t in_was = 0, in_now = 0; /* bit i: now[i] is among was; bit j: was[j] among now */
    for (int i = k; i < 8; i++) now[i] = 1;
    for (int j = k0; j < 8; j++) was[j] = UINT64_MAX;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            uint64_t eq = now[i] == was[j];
            in_was |= eq << i;
            in_now |= eq << j;
        }
    uint64_t gains = ~in_was & ((1ull << k) - 1), losses = ~in_now & ((1ull << k0) - 1);
    if (*na + (size_t)k <= room && *ng + (size_t)k0 <= room) {
        for (int i = 0; i < k; i++) {
            add[*na] = now[i] | r;
            *na += gains >> i & 1;
        }
        for (int j = 0; j < k0; j++) {
            gone[*ng] = was[j] | r;
            *ng += losses >> j & 1;
        }
    } else {
        *over = 1; /* even when the counts alone would fit: this box's records are not written */
        *na += (size_t)__builtin_popcountll(gains);
        *ng += (size_t)__builtin_popcountll(losses);
    }
}

/* Ranks [b0, b1) whose corners moved at or above their key level, as offsets from b0 into flagged; returns how
 * many. Without a branch: about half the boxes are flagged at the benchmark's steps 50-60, in no order, and the
 * branch that skipped the others was mispredicted for about half of them (the pass 6-8 % slower). */
static uint32_t flag_moved(const kd_state *s, size_t b0, size_t b1, uint32_t *flagged)
{
    uint32_t nf = 0;
    for (size_t r = b0; r < b1; r++) {
        uint64_t moved =
            ((s->qn[2 * r] ^ s->q[2 * r]) | (s->qn[2 * r + 1] ^ s->q[2 * r + 1])) & s->fr.gmask[s->glev[r]];
        flagged[nf] = (uint32_t)(r - b0);
        nf += moved != 0;
    }
    return nf;
}

enum { FIND_BLOCK = 256 }; /* ranks flagged at a time (flagged[] on the stack) */

static void find_chunk(void *ctx, int c, int threads)
{
    find_run *fx = ctx;
    kd_state *s = fx->s;
    const kd_frame *fr = &s->fr;
    int split = s->split;
    size_t lo, hi, total = 0, na = 0, ng = 0, a0 = 0, a1 = 0;
    int over = 0;
    word_chunk(fx->n, threads, c, &lo, &hi);
    uint64_t *add = NULL, *gone = NULL;
    if (fx->dcap) {
        diff_region(fx->dcap, threads, c, &a0, &a1);
        add = s->fresh.v + a0;
        gone = s->fresh.v + fx->dcap + a0;
    }
    for (size_t w = lo / 64; w * 64 < hi; w++)
        s->changed[w] = s->wrecs[w] = 0;
    uint32_t flagged[FIND_BLOCK];
    for (size_t b0 = lo; b0 < hi; b0 += FIND_BLOCK) {
        uint32_t nf = flag_moved(s, b0, hi - b0 > FIND_BLOCK ? b0 + FIND_BLOCK : hi, flagged);
        for (uint32_t t = 0; t < nf; t++) {
            size_t r = b0 + flagged[t];
            uint64_t ql = s->qn[2 * r], qh = s->qn[2 * r + 1], ol = s->q[2 * r], oh = s->q[2 * r + 1];
            /* the bits that moved may still leave every key where it was: the old keys, recomputed from the
             * old corners (the records were made from corners equal to them at and above the key level),
             * decide */
            unsigned g, g0;
            uint64_t now[8], was[8];
            int k = kd_box_keys(fr, ql, qh, split, now, &g);
            int k0 = kd_box_keys(fr, ol, oh, split, was, &g0);
            s->glev[r] = (uint8_t)g;
            if (k == k0 && !memcmp(now, was, (size_t)k * sizeof *now)) continue;
            s->changed[r / 64] |= 1ull << (r % 64);
            s->wrecs[r / 64] += (uint32_t)k;
            total++;
            key_diff(now, k, was, k0, r, add, gone, a1 - a0, &na, &ng, &over);
        }
    }
    fx->total[c] = total;
    fx->added[c] = na;
    fx->gone[c] = ng;
    fx->overflow[c] = over;
}

/* The boxes re-quantised in index order, their corners written by rank into fx->to (qn, or q in a rebuild). The
 * find pass used to read the caller's boxes in rank order: 48 bytes a box at random over the whole array, so that
 * it waited on the memory system (68-73 % of its samples, docs/collision.md); here they are read in order, and
 * each box costs one write of 16 bytes at random into qn, a third of the boxes' size, which need not hold up the
 * loop. */
static void scatter_chunk(void *ctx, int c, int threads)
{
    const find_run *fx = ctx;
    kd_state *s = fx->s;
    const pf_aabb *boxes = fx->boxes;
    const uint32_t *rank = s->rank;
    uint64_t *qn = fx->to;
    size_t lo, hi;
    pf_par_range(fx->n, c, threads, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        if (i + 16 < hi) __builtin_prefetch(&qn[2 * (size_t)rank[i + 16]], 1);
        size_t r = rank[i];
        kd_quantise_box(&s->fr, &boxes[i], &qn[2 * r], &qn[2 * r + 1]);
    }
}

/* Re-quantises every box (scatter_chunk), then finds by rank the boxes whose keys changed: their bit in
 * `changed`, their new key levels in glev, the count of their new records per word of `changed` in wrecs. The new
 * corners become q. Returns the count of such boxes. */
static size_t refresh_find(kd_state *s, const pf_aabb *boxes, size_t n, const pf_par *par, find_run *fx)
{
    *fx = (find_run){.s = s, .boxes = boxes, .n = n, .to = s->qn, .dcap = s->dcap};
    size_t total = 0;
    pf_par_for(par, par->workers, scatter_chunk, fx);
    pf_par_for(par, par->workers, find_chunk, fx);
    for (int c = 0; c < par->workers; c++) total += fx->total[c];
    uint64_t *q = s->q;
    s->q = s->qn;
    s->qn = q;
    return total;
}

/* The new records (key | rank) of the changed boxes of words [w0, w1) of `changed`, chunk c's at the sum of the
 * counts before it: the fresh array is the same whatever the thread count. */
typedef struct write_run {
    kd_state *s;
    size_t w0, w1;
    const size_t *at;
} write_run;

static void write_chunk(void *ctx, int c, int threads)
{
    const write_run *wr = ctx;
    kd_state *s = wr->s;
    const kd_frame *fr = &s->fr;
    int split = s->split;
    size_t a, b, w0 = wr->w0;
    uint64_t *out = s->fresh.v + wr->at[c];
    pf_chunk_range(wr->w1 - w0, threads, c, &a, &b);
    for (size_t w = w0 + a; w < w0 + b; w++)
        for (uint64_t bits = s->changed[w]; bits; bits &= bits - 1) {
            size_t r = w * 64 + (size_t)__builtin_ctzll(bits);
            /* kd_box_keys may write past its count: into keys, not into the next chunk's records */
            unsigned g;
            uint64_t keys[8];
            int k = kd_box_keys(fr, s->q[2 * r], s->q[2 * r + 1], split, keys, &g);
            for (int j = 0; j < k; j++)
                out[j] = keys[j] | r;
            out += k;
        }
}

static int refresh_write(kd_state *s, size_t w0, size_t w1, const pf_par *par)
{
    int threads = par->workers;
    size_t at[65] = {0};
    for (int c = 0; c < threads; c++) {
        size_t a, b;
        pf_chunk_range(w1 - w0, threads, c, &a, &b);
        at[c + 1] = at[c];
        for (size_t w = w0 + a; w < w0 + b; w++)
            at[c + 1] += s->wrecs[w];
    }
    int rc = fresh_reserve(s, at[threads]);
    if (rc) return rc;
    write_run wr = {s, w0, w1, at};
    pf_par_for(par, threads, write_chunk, &wr);
    s->fresh.n = at[threads];
    return PF_OK;
}

/* Sorted order of records: by cell key, then by box index (perm of the rank), whatever the ranks. */
static inline int rec_before(uint64_t x, uint64_t y, uint64_t low, const uint32_t *perm)
{
    if ((x | low) != (y | low)) return x < y;
    return perm[x & low] < perm[y & low];
}

/* Equal keys came out of the radix sort by rank: puts them by box index (short runs, insertion). */
static void order_ties(uint64_t *F, size_t n, uint64_t low, const uint32_t *perm)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t v = F[i];
        if ((F[i - 1] | low) != (v | low)) continue;
        size_t j = i;
        while (j > 0 && (F[j - 1] | low) == (v | low) && rec_before(v, F[j - 1], low, perm)) {
            F[j] = F[j - 1];
            j--;
        }
        F[j] = v;
    }
}

/* Drops the records of the changed boxes of words [w0, w1) of `changed`, in place: each chunk closes up its
 * own, then the chunks close up. */
typedef struct drop_run {
    kd_state *s;
    size_t w0, w1;
    size_t kept[64];
} drop_run;

static void drop_chunk(void *ctx, int c, int threads)
{
    drop_run *d = ctx;
    uint64_t low = kd_low_mask(&d->s->fr);
    uint64_t *R = d->s->rec.v;
    const uint64_t *bits = d->s->changed;
    size_t lo, hi, keep, w0 = d->w0, w1 = d->w1;
    pf_chunk_range(d->s->rec.n, threads, c, &lo, &hi);
    keep = lo;
    for (size_t i = lo; i < hi; i++) {
        uint64_t v = R[i], r = v & low;
        R[keep] = v; /* writes never pass reads */
        keep += !((bits[r / 64] >> (r % 64) & 1) & (r / 64 - w0 < w1 - w0));
    }
    d->kept[c] = keep - lo;
}

static size_t drop_changed(kd_state *s, size_t w0, size_t w1, const pf_par *par)
{
    uint64_t *R = s->rec.v;
    size_t m = s->rec.n;
    int threads = par->workers;
    if (threads > 64) threads = 64;
    if (m < 65536) threads = 1;
    drop_run d = {.s = s, .w0 = w0, .w1 = w1};
    pf_par_for(par, threads, drop_chunk, &d);
    const size_t *kept = d.kept;
    size_t at = kept[0];
    for (int c = 1; c < threads; c++) {
        size_t lo, hi;
        pf_chunk_range(m, threads, c, &lo, &hi);
        memmove(R + at, R + lo, kept[c] * sizeof *R);
        at += kept[c];
    }
    return at;
}

/* Number of the n records of F that come before x. */
static size_t count_before(const uint64_t *F, size_t n, uint64_t x, uint64_t low, const uint32_t *perm)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rec_before(F[mid], x, low, perm))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Merges sorted F[0, nf) into sorted R[0, nk), in place in R[0, nk + nf): from the end, where writes never
 * pass reads (the write position is the reads left in R plus those left in F). Few new records (long runs of
 * old ones between them): each run moved in one block. Many: branch-free, a record a turn, since the
 * interleaving is then data, not a pattern the branch predictor could learn. */
static void merge_back(uint64_t *R, size_t nk, const uint64_t *F, size_t nf, uint64_t low,
                       const uint32_t *perm)
{
    size_t i = nk, f = nf, t = nk + nf;
    if (nf * 8 < nk) {
        for (; f > 0; f--) {
            uint64_t y = F[f - 1], ymax = y | low;
            size_t i0 = i;
            while (i > 0 && R[i - 1] > ymax)
                i--;
            while (i > 0 && (R[i - 1] | low) == ymax && rec_before(y, R[i - 1], low, perm))
                i--;
            t -= i0 - i;
            memmove(R + t, R + i, (i0 - i) * sizeof *R);
            R[--t] = y;
        }
        return;
    }
    while (f > 0 && i > 0) {
        uint64_t x = R[i - 1], y = F[f - 1];
        int take = rec_before(x, y, low, perm); /* y, the fresh one, goes last */
        R[--t] = take ? y : x;
        f -= (size_t)take;
        i -= (size_t)!take;
    }
    memcpy(R, F, f * sizeof *R);
}

/* Removes the records of the changed boxes of words [w0, w1) and merges in their new ones: the new records sorted
 * (the room the dropped ones left at the end of the array is the sort's scratch), then merged by segments of the kept
 * records, one a thread, each first moved up to where its output starts. */
typedef struct merge_run {
    uint64_t *R;
    const uint64_t *F;
    const size_t *kp, *fo;
    uint64_t low;
    const uint32_t *perm;
} merge_run;

static void merge_seg(void *ctx, int g, int segs)
{
    (void)segs;
    const merge_run *m = ctx;
    const size_t *kp = m->kp, *fo = m->fo;
    merge_back(m->R + kp[g] + fo[g], kp[g + 1] - kp[g], m->F + fo[g], fo[g + 1] - fo[g], m->low, m->perm);
}

/* Sorts the nf records of F (the room past the kept records of the array as scratch) and merges them into the
 * keep records of the array. */
static int merge_fresh(kd_state *s, size_t keep, uint64_t *F, size_t nf, const pf_par *par)
{
    int threads = par->workers;
    uint64_t low = kd_low_mask(&s->fr);
    const uint32_t *perm = s->perm;
    int rc = grow_records(s, keep + nf, keep);
    if (rc) return rc;
    uint64_t *R = s->rec.v;
    pf_radix_sort_u64_scratch(F, nf, R + keep, par);
    order_ties(F, nf, low, perm);
    int segs = keep >= 65536 && nf >= 1024 ? threads : 1;
    size_t kp[65], fo[65];
    for (int g = 0; g <= segs; g++) {
        kp[g] = keep * (size_t)g / (size_t)segs;
        fo[g] = g == 0 ? 0 : g == segs ? nf : count_before(F, nf, R[kp[g]], low, perm);
    }
    for (int g = segs - 1; g > 0; g--) /* from the top: each move lands on records already moved */
        memmove(R + kp[g] + fo[g], R + kp[g], (kp[g + 1] - kp[g]) * sizeof *R);
    merge_run mr = {R, F, kp, fo, low, perm};
    pf_par_for(par, segs, merge_seg, &mr);
    s->rec.n = keep + nf;
    return PF_OK;
}

static int update(kd_state *s, size_t w0, size_t w1, const pf_par *par, int drop)
{
    size_t keep = drop ? drop_changed(s, w0, w1, par) : s->rec.n;
    return merge_fresh(s, keep, s->fresh.v, s->fresh.n, par);
}

/* ---- the diff path: only the records that come and go ----
 *
 * A box whose keys change keeps most of them (falling spheres, steps 50-60: 2.8 of 6.7 change), so the find
 * pass sets apart, per box, the records it gains and those it loses. The lost ones, sorted in the array's order,
 * are a subsequence of the array: one pass drops them by equality with the next one due; the gained ones are
 * merged in as in `update`. Same array as the full path, which remains for the steps whose lists do not fit the
 * room measured on the steps before (the first after a rebuild, or a sudden jump). */

typedef struct gone_run {
    uint64_t *R;
    size_t m;
    const uint64_t *G; /* the records to drop, in the array's order, then UINT64_MAX (never a record: depth 63) */
    size_t ng;
    uint64_t low;
    const uint32_t *perm;
    size_t kept[64];
} gone_run;

static void gone_chunk(void *ctx, int c, int threads)
{
    gone_run *d = ctx;
    uint64_t *R = d->R;
    const uint64_t *G = d->G;
    size_t lo, hi, keep;
    pf_chunk_range(d->m, threads, c, &lo, &hi);
    size_t g = lo < hi ? count_before(G, d->ng, R[lo], d->low, d->perm) : 0;
    keep = lo;
    /* a branch, not a sum: g would make each record wait for the last one's load (a chain of about 7 cycles a
     * record, 20 ms at 10^6 boxes); one record in eight goes, so the branch is mispredicted about as often */
    uint64_t next = G[g];
    for (size_t i = lo; i < hi; i++) {
        uint64_t v = R[i];
        R[keep] = v; /* writes never pass reads */
        if (__builtin_expect(v == next, 0)) {
            next = G[++g];
            continue;
        }
        keep++;
    }
    d->kept[c] = keep - lo;
}

/* Drops the ng records of G (sorted in the array's order, G[ng] = UINT64_MAX) from the array; returns the
 * count kept. */
static size_t drop_gone(kd_state *s, const uint64_t *G, size_t ng, const pf_par *par)
{
    uint64_t *R = s->rec.v;
    size_t m = s->rec.n;
    int threads = par->workers;
    if (threads > 64) threads = 64;
    if (m < 65536) threads = 1;
    gone_run d = {R, m, G, ng, kd_low_mask(&s->fr), s->perm, {0}};
    pf_par_for(par, threads, gone_chunk, &d);
    size_t at = d.kept[0];
    for (int c = 1; c < threads; c++) {
        size_t lo, hi;
        pf_chunk_range(m, threads, c, &lo, &hi);
        memmove(R + at, R + lo, d.kept[c] * sizeof *R);
        at += d.kept[c];
    }
    return at;
}

/* The lists find wrote into the chunks' regions of fresh, closed up (gained records from fresh[0], lost ones
 * from fresh[dcap]), the lost ones sorted and dropped, the gained ones merged in. */
static int update_diff(kd_state *s, const find_run *fx, const pf_par *par)
{
    int threads = par->workers;
    size_t cap = fx->dcap, na = 0, ng = 0;
    uint64_t *A = s->fresh.v, *G = A + cap;
    for (int c = 0; c < threads; c++) {
        size_t lo, hi;
        diff_region(cap, threads, c, &lo, &hi);
        memmove(A + na, A + lo, fx->added[c] * sizeof *A);
        memmove(G + ng, G + lo, fx->gone[c] * sizeof *G);
        na += fx->added[c];
        ng += fx->gone[c];
    }
    size_t m = s->rec.n;
    int rc = grow_records(s, m + ng, m); /* the room past the records: the sort's scratch */
    if (rc) return rc;
    pf_radix_sort_u64_scratch(G, ng, s->rec.v + m, par);
    order_ties(G, ng, kd_low_mask(&s->fr), s->perm);
    G[ng] = UINT64_MAX;
    size_t keep = drop_gone(s, G, ng, par);
    if (keep != m - ng) /* every lost record was in the array: a broken invariant, never bad input */
        return pf_error(PF_ESTATE, "kd-tree: %zu of %zu records to drop not found", ng - (m - keep), ng);
    return merge_fresh(s, keep, A, na, par);
}

/* Writes, sorts and merges in the new records of the changed boxes (their old ones dropped first when `drop`),
 * in batches of words of `changed` holding at most KD_BATCH * n new records (or one word). */
static int insert_changed(kd_state *s, size_t n, const pf_par *par, int drop)
{
    size_t words = (n + 63) / 64, budget = (size_t)KD_BATCH * n;
    for (size_t w0 = 0, w1; w0 < words; w0 = w1) {
        size_t recs = 0;
        for (w1 = w0; w1 < words && (w1 == w0 || recs + s->wrecs[w1] <= budget); w1++)
            recs += s->wrecs[w1];
        if (!recs) continue;
        int rc = refresh_write(s, w0, w1, par);
        if (!rc) rc = update(s, w0, w1, par, drop);
        if (rc) return rc;
    }
    return PF_OK;
}

/* ---- rebuild: the boxes ranked afresh, then every one inserted as changed ---- */

/* Ranks the boxes by their least key, then by box index: their order of first appearance in the sorted records
 * (kd_box_keys gives a box's keys in key order). Leaves their corners and key levels by rank, every box marked
 * changed, the records per word of ranks in wrecs, and their total in *total. */
typedef struct rank_run {
    kd_state *s;
    const pf_aabb *boxes;
    size_t n;
    size_t sum[64]; /* per part */
} rank_run;

/* Each box's least key | box, key level and record count. */
static void least_key_part(void *ctx, int p, int parts)
{
    rank_run *rr = ctx;
    kd_state *s = rr->s;
    const kd_frame *fr = &s->fr;
    uint8_t *gtmp = (uint8_t *)s->q, *ktmp = gtmp + rr->n;
    size_t i0, i1, sum = 0;
    pf_par_range(rr->n, p, parts, &i0, &i1);
    for (size_t i = i0; i < i1; i++) {
        uint64_t ql, qh, keys[8];
        unsigned g;
        kd_quantise_box(fr, &rr->boxes[i], &ql, &qh);
        int k = kd_box_keys(fr, ql, qh, s->split, keys, &g);
        s->fresh.v[i] = keys[0] | i;
        gtmp[i] = (uint8_t)g;
        ktmp[i] = (uint8_t)k;
        sum += (size_t)k;
    }
    rr->sum[p] = sum;
}

static int rank_boxes(kd_state *s, const pf_aabb *boxes, size_t n, const pf_par *par, size_t *total)
{
    /* least key | box in the fresh array (the record array is the sort's scratch); key levels and record
     * counts by box in the room of the corners until the corners are stored by rank */
    int rc = fresh_reserve(s, n);
    if (!rc) rc = grow_records(s, n, 0);
    if (rc) return rc;
    const kd_frame *fr = &s->fr;
    uint8_t *gtmp = (uint8_t *)s->q, *ktmp = gtmp + n;
    rank_run rr = {.s = s, .boxes = boxes, .n = n};
    int parts = par->workers;
    size_t sum = 0;
    pf_par_for(par, parts, least_key_part, &rr);
    for (int p = 0; p < parts; p++) sum += rr.sum[p];
    pf_radix_sort_u64_scratch(s->fresh.v, n, s->rec.v, par);
    uint64_t low = kd_low_mask(fr);
    size_t words = (n + 63) / 64;
    for (size_t w = 0; w < words; w++) {
        s->changed[w] = ~0ull;
        s->wrecs[w] = 0;
    }
    if (n % 64) s->changed[words - 1] = (1ull << (n % 64)) - 1;
    for (size_t r = 0; r < n; r++) {
        uint32_t b = (uint32_t)(s->fresh.v[r] & low);
        s->perm[r] = b;
        s->rank[b] = (uint32_t)r;
        s->glev[r] = gtmp[b];
        s->wrecs[r / 64] += ktmp[b];
    }
    find_run fx = {.s = s, .boxes = boxes, .n = n, .to = s->q}; /* the corners by rank, boxes read in order */
    pf_par_for(par, parts, scatter_chunk, &fx);
    *total = sum;
    return PF_OK;
}

static int rebuild(kd_state *s, const pf_aabb *boxes, size_t n, const pf_par *par)
{
    size_t total;
    int rc = grow_boxes(s, n);
    if (!rc) rc = rank_boxes(s, boxes, n, par, &total);
    if (!rc) rc = grow_records(s, total, 0);
    if (rc) return rc;
    s->rec.n = 0;
    rc = insert_changed(s, n, par, 0);
    if (rc) return rc;
    /* the batches' room is given back: steps that change little need far less */
    pf_vec_free(&s->fresh);
    s->n = n;
    return PF_OK;
}

/* ---- sweep (Poirrier 2009, §5.5) ---- */

typedef struct sweep_ctx {
    const kd_state *s;
    const pf_aabb *boxes;
    const uint64_t *R;
    size_t m;
    uint64_t low;
    int kshift, drop; /* drop: quantised bits below the key grid */
} sweep_ctx;

/* The exact test of `kd` on ranked boxes a, b whose quantised boxes overlap, where cell kb is the deeper of
 * their two cells (or the same): the boxes overlap and the lower corner of their intersection lies in cell
 * kb. That corner lies in exactly one sub-box of each box, so each pair passes once. An axis whose quantised
 * bounds touch goes back to the caller's doubles. */
static int exact_overlap(const sweep_ctx *x, uint32_t a, uint32_t b)
{
    const uint32_t *perm = x->s->perm;
    return pf_aabb_overlap(&x->boxes[perm[a]], &x->boxes[perm[b]]);
}

#define KD_FIELDS (KD_GUARDS - (KD_GUARDS >> KD_QBITS)) /* the 20 value bits of each field */
#define KD_ONES (KD_GUARDS >> KD_QBITS)                 /* bit 0 of each field */

static inline int kd_accept(const sweep_ctx *x, uint64_t al, uint64_t ah, uint64_t bl, uint64_t bh,
                            uint32_t a, uint32_t b, uint64_t kb)
{
    /* a field of ah - bl or bh - al that is 0: bounds that touch, decided by the doubles */
    uint64_t d1 = ((ah | KD_GUARDS) - bl) & KD_FIELDS, d2 = ((bh | KD_GUARDS) - al) & KD_FIELDS;
    uint64_t tie = ((((d1 | KD_GUARDS) - KD_ONES) & ((d2 | KD_GUARDS) - KD_ONES)) & KD_GUARDS) ^ KD_GUARDS;
    /* q(max(x, y)) = max(q(x), q(y)): the quantised corner of the intersection, field-wise max of al and bl
     */
    uint64_t ge = ((al | KD_GUARDS) - bl) & KD_GUARDS, sel = ge - (ge >> KD_QBITS);
    uint64_t c = (al & sel) | (bl & ~sel & KD_FIELDS);
    int drop = x->drop;
    uint64_t pk = kd_corner_morton(c, drop);
    int acc = kd_cell_contains(&x->s->fr, kb, pk);
    if (tie && acc) acc = exact_overlap(x, a, b); /* rare: no branch on the common path */
    return acc;
}

/* The sweep works on blocks of KD_BLOCK records (absolute positions, so that the output order is the same
 * whatever the thread chunks), in branch-free passes over small buffers: a data-dependent branch per record
 * or per candidate costs more than the work it guards. */
#define KD_BLOCK 1024
#define KD_CAND (4 * KD_BLOCK)

typedef struct sweep_buf {
    uint64_t end[KD_BLOCK]; /* per record of the block: the first record value past its window */
    uint32_t list[2][KD_BLOCK];
    uint32_t rank[KD_BLOCK]; /* per record of the block: its box's rank */
    uint32_t ci[KD_CAND];    /* candidates: rank a (of record i) */
    uint64_t cj[KD_CAND];    /* and record j itself; after the overlap test, the deeper cell's key */
    uint32_t cb[KD_CAND]; /* after the overlap test, rank b */
    size_t nc;
    /* where the pairs go: a growable vector, or a fixed region of the shared output (`spill` set) that, once
     * full, hands its pairs over to the vector `spill` and goes on there */
    pf_pair_vec *out, *spill;
} sweep_buf;

/* The candidates buffered: quantised overlap, then kd's exact test (kd-raw: all of them), appended to out. */
static int flush_candidates(const sweep_ctx *x, sweep_buf *sb)
{
    const uint64_t *q = x->s->q;
    const uint32_t *perm = x->s->perm;
    uint64_t low = x->low;
    size_t nc = sb->nc, no = 0;
    sb->nc = 0;
    pf_pair_vec *out = sb->out;
    if (out->n + nc > out->cap && sb->spill) {
        pf_pair_vec *v = sb->spill;
        if (pf_pair_vec_reserve(v, 2 * (out->n + nc))) return PF_ENOMEM;
        if (out->n) memcpy(v->data, out->data, out->n * sizeof *out->data);
        v->n = out->n;
        out = sb->out = v;
        sb->spill = NULL;
    }
    if (pf_pair_vec_reserve(out, out->n + nc)) return PF_ENOMEM;
    pf_pair *dst = out->data + out->n;
    if (x->s->raw) {
        for (size_t k = 0; k < nc; k++) {
            uint32_t a = perm[sb->ci[k]], b = perm[sb->cj[k] & low];
            dst[k].i = a < b ? a : b;
            dst[k].j = a < b ? b : a;
        }
        out->n += nc;
        return PF_OK;
    }
    /* every field ah >= bl and bh >= al: the guard bits survive both subtractions; the survivors keep their
     * ranks and the deeper cell */
    uint32_t *ca = sb->ci, *cb = sb->cb;
    uint64_t *ck = sb->cj;
    for (size_t k = 0; k < nc; k++) {
        uint64_t rj = sb->cj[k];
        uint32_t a = sb->ci[k], b = (uint32_t)(rj & low);
        uint64_t t =
            ((q[2 * a + 1] | KD_GUARDS) - q[2 * b]) & ((q[2 * b + 1] | KD_GUARDS) - q[2 * a]) & KD_GUARDS;
        ca[no] = a;
        cb[no] = b;
        ck[no] = rj >> x->kshift;
        no += t == KD_GUARDS;
    }
    /* the exact test; the pairs that pass are compacted before their box indices are looked up */
    size_t na = 0;
    for (size_t k = 0; k < no; k++) {
        uint32_t a = ca[k], b = cb[k];
        int acc = kd_accept(x, q[2 * a], q[2 * a + 1], q[2 * b], q[2 * b + 1], a, b, ck[k]);
        ca[na] = a;
        cb[na] = b;
        na += (size_t)acc;
    }
    size_t np = na;
    for (size_t k = 0; k < na; k++) {
        uint32_t pa = perm[ca[k]], pb = perm[cb[k]];
        dst[k].i = pa < pb ? pa : pb;
        dst[k].j = pa < pb ? pb : pa;
    }
    out->n += np;
    return PF_OK;
}

/* Records [lo, hi) (block-aligned): record i pairs with every later record of its cell or of its subtree,
 * that is every later record below the end of its cell's span (pre-order keys). Window by window length: the
 * records whose window holds at least d records give the candidates (i, i + d). */
static int sweep_range(const sweep_ctx *x, size_t lo, size_t hi, sweep_buf *sb, uint64_t *candidates,
                       uint64_t vol[2])
{
    const uint64_t *R = x->R;
    const kd_frame *fr = &x->s->fr;
    size_t m = x->m;
    uint64_t cand = 0, vlo = 0, vhi = 0;
    int ks = x->kshift, pshift = ks + KD_DEPTH_BITS;
    uint64_t full = 1ull << fr->pbits;
    uint32_t *work = x->s->work.v; /* room for every block (sweep): each block is one chunk's */
    sb->nc = 0;
    for (size_t b0 = lo; b0 < hi; b0 += KD_BLOCK) {
        size_t b1 = b0 + KD_BLOCK < hi ? b0 + KD_BLOCK : hi;
        uint64_t cand0 = cand;
        uint32_t n1 = 0, *cur = sb->list[0], *nxt = sb->list[1];
        for (size_t i = b0; i < b1; i++) {
            uint64_t k = R[i] >> ks, span = kd_key_span(fr, k), end = kd_key_path(k) + span;
            uint64_t endr = end >= full ? UINT64_MAX : end << pshift;
            uint64_t next = i + 1 < m ? R[i + 1] : UINT64_MAX;
            vlo += span;
            vhi += vlo < span;
            sb->end[i - b0] = endr;
            sb->rank[i - b0] = (uint32_t)(R[i] & x->low);
            cur[n1] = (uint32_t)(i - b0);
            n1 += next < endr;
        }
        for (size_t d = 1; n1; d++) {
            if (sb->nc + n1 > KD_CAND && flush_candidates(x, sb)) return PF_ENOMEM;
            uint32_t n2 = 0;
            for (uint32_t t = 0; t < n1; t++) {
                uint32_t r = cur[t];
                size_t j = b0 + r + d;
                sb->ci[sb->nc + t] = sb->rank[r];
                sb->cj[sb->nc + t] = R[j];
                uint64_t next = j + 1 < m ? R[j + 1] : UINT64_MAX;
                nxt[n2] = r;
                n2 += next < sb->end[r];
            }
            sb->nc += n1;
            cand += n1;
            uint32_t *tmp = cur;
            cur = nxt;
            nxt = tmp;
            n1 = n2;
        }
        if (sb->nc && flush_candidates(x, sb)) return PF_ENOMEM;
        work[b0 / KD_BLOCK] = cand - cand0 > UINT32_MAX ? UINT32_MAX : (uint32_t)(cand - cand0);
    }
    *candidates += cand;
    vol[0] = vlo;
    vol[1] = vhi;
    return PF_OK;
}

/* The chunks' pairs, in chunk order, into out: each chunk's share of out moved down into place; when a chunk
 * went past its share (its pairs then in its own vector), everything is copied into a new buffer. */
static int close_up(kd_state *s, pf_pair_vec *out, const pf_pair_vec *view, int threads, uint64_t *candidates)
{
    size_t total = 0;
    int spilled = 0;
    for (int c = 0; c < threads; c++) {
        if (s->chunks.status[c]) return pf_error(PF_ENOMEM, "out of memory for candidate pairs");
        *candidates += s->chunks.candidates[c];
        spilled |= s->sbuf[c].spill == NULL;
        total += s->sbuf[c].out->n;
    }
    if (!spilled) {
        size_t at = 0;
        for (int c = 0; c < threads; c++) {
            if (view[c].n) memmove(out->data + at, view[c].data, view[c].n * sizeof *out->data);
            at += view[c].n;
        }
        out->n = at;
        return PF_OK;
    }
    pf_pair *p = pf_malloc((total + total / 16 + 64) * sizeof *p);
    if (!p) return pf_error(PF_ENOMEM, "out of memory for %zu pairs", total);
    size_t at = 0;
    for (int c = 0; c < threads; c++) {
        const pf_pair_vec *v = s->sbuf[c].out;
        if (v->n) memcpy(p + at, v->data, v->n * sizeof *p);
        at += v->n;
    }
    pf_free(out->data);
    out->data = p;
    out->cap = total + total / 16 + 64;
    out->n = total;
    return PF_OK;
}

typedef struct sweep_run {
    kd_state *s;
    const sweep_ctx *x;
    pf_pair_vec *out, *view;
    uint64_t *vols;
    const size_t *cut; /* [threads + 1]: chunk c sweeps blocks cut[c] .. cut[c + 1] - 1 */
} sweep_run;

/* The chunks' first blocks: equal shares of the work the last sweep measured (its candidates per block, plus a
 * block's own records). A record's window grows with its cell, and pre-order puts the coarse cells' records
 * first: cut by records, the first chunk took most of the candidates (falling spheres: 26% of the stage's time
 * on one worker against nothing on the other). Blocks the last sweep did not have weigh the mean. */
static void cut_chunks(const kd_state *s, size_t blocks, int threads, size_t *cut)
{
    size_t known = s->work.n < blocks ? s->work.n : blocks;
    double total = 0, w = 0;
    for (size_t b = 0; b < known; b++) total += (double)s->work.v[b] + KD_BLOCK;
    double mean = known ? total / (double)known : 1.0;
    total += (double)(blocks - known) * mean;
    cut[0] = 0;
    int c = 1;
    for (size_t b = 0; b < blocks && c < threads; b++) {
        w += b < known ? (double)s->work.v[b] + KD_BLOCK : mean;
        while (c < threads && w * threads >= total * c) cut[c++] = b + 1;
    }
    while (c <= threads) cut[c++] = blocks;
}

static void sweep_chunk(void *ctx, int c, int threads)
{
    const sweep_run *w = ctx;
    kd_state *s = w->s;
    size_t lo = w->cut[c] * KD_BLOCK, hi = w->cut[c + 1] * KD_BLOCK, r0, r1;
    hi = hi < s->rec.n ? hi : s->rec.n;
    pf_chunk_range(w->out->cap, threads, c, &r0, &r1);
    w->view[c] = (pf_pair_vec){w->out->data + r0, 0, r1 - r0};
    s->sbuf[c].out = &w->view[c];
    s->sbuf[c].spill = &s->chunks.vec[c];
    if (sweep_range(w->x, lo, hi, &s->sbuf[c], &s->chunks.candidates[c], w->vols + 2 * c))
        s->chunks.status[c] = PF_ENOMEM;
}

static int sweep(kd_state *s, const pf_aabb *boxes, const pf_par *par, pf_pair_vec *out, pf_broadphase_stats *stats)
{
    int threads = par->workers;
    sweep_ctx x = {s, boxes, s->rec.v, s->rec.n, kd_low_mask(&s->fr), s->fr.kshift, KD_QBITS - s->fr.kbits};
    uint64_t vol[2] = {0, 0};
    int rc = pf_pair_vec_reserve(out, s->last_pairs + s->last_pairs / 16);
    if (rc) return rc;
    size_t blocks = (s->rec.n + KD_BLOCK - 1) / KD_BLOCK, cut[64 + 1];
    if (threads > 64) threads = 64;
    if (threads > 1) cut_chunks(s, blocks, threads, cut);
    if (pf_vec_reserve(&s->work, blocks + 1)) return pf_error(PF_ENOMEM, "out of memory for sweep statistics");
    s->work.n = blocks;
    if (!s->sbuf || s->sbuf_count < threads) {
        sweep_buf *b = pf_realloc(s->sbuf, (size_t)s->sbuf_count * sizeof *b, (size_t)threads * sizeof *b);
        if (!b) return pf_error(PF_ENOMEM, "out of memory for sweep buffers");
        s->sbuf = b;
        s->sbuf_count = threads;
    }
    if (threads == 1) {
        s->sbuf[0].out = out;
        s->sbuf[0].spill = NULL;
        if (sweep_range(&x, 0, s->rec.n, &s->sbuf[0], &stats->candidates, vol))
            return pf_error(PF_ENOMEM, "out of memory for candidate pairs");
    } else {
        /* chunk c writes into its share of out (sized from the last step's pairs), or, past it, into its own
         * vector; the chunks then close up in order */
        rc = pf_pair_chunks_reset(&s->chunks, threads);
        if (rc) return rc;
        uint64_t vols[2 * 64];
        pf_pair_vec view[64];
        sweep_run w = {s, &x, out, view, vols, cut};
        pf_par_for(par, threads, sweep_chunk, &w);
        for (int c = 0; c < threads; c++) {
            uint64_t lo0 = vol[0];
            vol[0] += vols[2 * c];
            vol[1] += vols[2 * c + 1] + (vol[0] < lo0);
        }
        rc = close_up(s, out, view, threads, &stats->candidates);
        if (rc) return rc;
    }
    double leaf = s->fr.scale > 0.0 ? (double)(1u << (KD_QBITS - s->fr.kbits)) / s->fr.scale : 0.0;
    stats->cell_volume = ((double)vol[1] * 18446744073709551616.0 + (double)vol[0]) * leaf * leaf * leaf;
    return PF_OK;
}

static size_t kd_bytes(const kd_state *s)
{
    /* per box: the corners q and qn, glev, perm, rank; per 64 boxes: a word of changed bits and its record count */
    return sizeof *s + s->rec.cap * sizeof *s->rec.v + s->fresh.cap * sizeof *s->fresh.v +
           s->box_cap * (4 * sizeof *s->q + sizeof *s->glev + sizeof *s->perm + sizeof *s->rank) +
           (s->box_cap + 63) / 64 * (sizeof *s->changed + sizeof *s->wrecs) +
           pf_pair_chunks_bytes(&s->chunks) + (size_t)s->sbuf_count * sizeof(struct sweep_buf);
}

/* Did the diff lists fit the chunks' regions? Sets the room of the next steps from the counts: each chunk's
 * share with a quarter to spare, as long as both lists stay within the full path's batch (KD_BATCH records a
 * box). */
static int diff_fits(kd_state *s, const find_run *fx, int threads)
{
    int fits = fx->dcap > 0;
    size_t need = 0;
    for (int c = 0; c < threads; c++) {
        size_t lo, hi, most = fx->added[c] > fx->gone[c] ? fx->added[c] : fx->gone[c];
        fits &= !fx->overflow[c];
        pf_chunk_range(fx->n, threads, c, &lo, &hi);
        /* the region of a chunk is its share of the room: scaled up to the whole */
        size_t whole = hi > lo ? (size_t)((double)most * (double)fx->n / (double)(hi - lo)) + 1 : 0;
        need = whole > need ? whole : need;
    }
    need += need / 4 + 1024;
    if (need > s->dcap && 2 * need <= (size_t)KD_BATCH * fx->n) s->dcap = need;
    return fits;
}

static int kd_pairs(void *state, const pf_broadphase_def *def, const pf_aabb *boxes, size_t n,
                    pf_pair_vec *out, pf_broadphase_stats *stats)
{
    kd_state *s = state;
    int threads = def->threads < 64 ? def->threads : 64; /* per-chunk counters are kept on the stack */
    if (n < 4096) threads = 1;
    pf_par par = pf_par_of(def);
    par.workers = threads;
    int split = def->kd_split != 0;
    kd_frame fr;
    kd_frame_fit(&fr, boxes, n, &par);
    int fresh_start = s->n != n || s->split != split || !kd_frame_equal(&fr, &s->fr);
    s->fr = fr;
    s->split = split;
    if (!fresh_start) {
        if (s->dcap && fresh_reserve(s, 2 * s->dcap + 1)) s->dcap = 0;
        find_run fx;
        if (refresh_find(s, boxes, n, &par, &fx)) {
            int fits = diff_fits(s, &fx, threads);
            int rc = fits ? update_diff(s, &fx, &par) : insert_changed(s, n, &par, 1);
            if (rc) {
                s->n = 0;
                return rc;
            }
        }
    }
    if (fresh_start) {
        s->n = 0;
        int rc = rebuild(s, boxes, n, &par);
        if (rc) return rc;
    }
    stats->records = s->rec.n;
    int rc = sweep(s, boxes, &par, out, stats);
    if (rc) return rc;
    s->last_pairs = out->n;
    pf_pair_vec_trim(out, out->n / 16);
    for (int c = 0; c < s->chunks.count; c++)
        pf_pair_vec_trim(&s->chunks.vec[c], s->chunks.vec[c].n / 16);
    stats->bytes = kd_bytes(s);
    return PF_OK;
}

size_t pf_kd_records_by_box(const void *state, uint64_t *out, size_t cap)
{
    const kd_state *s = state;
    uint64_t low = kd_low_mask(&s->fr);
    for (size_t i = 0; i < s->rec.n && i < cap; i++) out[i] = (s->rec.v[i] & ~low) | s->perm[s->rec.v[i] & low];
    return s->rec.n;
}

const pf_bp_backend pf_bp_kd_backend = {kd_create, kd_destroy, kd_pairs};
const pf_bp_backend pf_bp_kd_raw_backend = {kd_raw_create, kd_destroy, kd_pairs};
