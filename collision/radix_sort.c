/* LSD radix sort of (64-bit key, 32-bit value) records: 11-bit digits, digits constant over the input
 * skipped, parallel counting and scatter over fixed chunks; MSD sort of 64-bit words (see radix_sort.h). */
#include "radix_sort.h"
#include "parallel.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define DIGIT_BITS 11
#define BUCKETS (1u << DIGIT_BITS)
#define DIGITS 6 /* 6 x 11 >= 64 */

static size_t chunk_lo(size_t n, int t, int threads)
{
    return n * (size_t)t / (size_t)threads;
}

static void recount_all(const uint64_t *keys, size_t n, uint32_t *hist, int *constant);
static int lsd_passes(uint64_t *keys, uint32_t *vals, uint64_t *keys2, uint32_t *vals2, size_t n,
                      const pf_par *par, int threads, uint32_t *hist, const int *constant, int first_digit,
                      int *result_in_second);

typedef struct count_run {
    const uint64_t *keys;
    size_t n;
    uint32_t *hist;
    uint32_t *lowest;
} count_run;

/* One read pass of chunk c counts every digit; with one chunk these counts serve every pass. */
static void count_chunk(void *ctx, int c, int threads)
{
    const count_run *r = ctx;
    const uint64_t *keys = r->keys;
    uint32_t *h = r->hist + (size_t)c * DIGITS * BUCKETS;
    memset(h, 0, DIGITS * BUCKETS * sizeof *h);
    size_t lo = chunk_lo(r->n, c, threads), hi = chunk_lo(r->n, c + 1, threads);
    uint32_t low[DIGITS + 1] = {0};
    for (size_t i = lo; i < hi; i++) {
        uint64_t k = keys[i];
        low[k ? __builtin_ctzll(k) / DIGIT_BITS : DIGITS]++;
        h[0 * BUCKETS + (k & (BUCKETS - 1))]++;
        h[1 * BUCKETS + ((k >> 11) & (BUCKETS - 1))]++;
        h[2 * BUCKETS + ((k >> 22) & (BUCKETS - 1))]++;
        h[3 * BUCKETS + ((k >> 33) & (BUCKETS - 1))]++;
        h[4 * BUCKETS + ((k >> 44) & (BUCKETS - 1))]++;
        h[5 * BUCKETS + (k >> 55)]++;
    }
    memcpy(r->lowest + (size_t)c * (DIGITS + 1), low, sizeof low);
}

int pf_radix_sort64(uint64_t *keys, uint32_t *vals, uint64_t *keys2, uint32_t *vals2, size_t n, const pf_par *par,
                    pf_radix_scratch *scratch)
{
    int threads = par ? par->workers : 1;
    if (threads < 1) threads = 1;
    if ((size_t)threads * 4096 > n) threads = 1; /* small inputs: parallel overhead dominates */
    if (threads > scratch->threads) {
        size_t old = (size_t)scratch->threads * DIGITS * BUCKETS * sizeof(uint32_t);
        uint32_t *h = pf_realloc(scratch->hist, old, (size_t)threads * DIGITS * BUCKETS * sizeof(uint32_t));
        if (!h) return pf_error(PF_ENOMEM, "out of memory for radix histograms");
        scratch->hist = h;
        scratch->threads = threads;
    }
    if (n < 2) return 0;
    uint32_t *hist = scratch->hist;
    uint32_t lowest[64 * (DIGITS + 1)]; /* per chunk: keys whose lowest non-zero digit is d (DIGITS: key 0) */
    if (threads > 64) threads = 64;

    count_run cr = {keys, n, hist, lowest};
    pf_par_for(par, threads, count_chunk, &cr);
    /* A digit with every key in one bucket moves nothing: skip it. */
    int constant[DIGITS];
    for (int d = 0; d < DIGITS; d++) {
        constant[d] = 0;
        for (unsigned b = 0; b < BUCKETS; b++) {
            size_t total = 0;
            for (int c = 0; c < threads; c++)
                total += hist[((size_t)c * DIGITS + (size_t)d) * BUCKETS + b];
            if (total == n) constant[d] = 1;
            if (total) break;
        }
    }

    /* Cell keys of similar boxes end in long runs of zero bits: when few keys have a non-zero digit below
     * digit `first`, sort on the digits from `first` up and let an insertion pass put those few in place (it
     * moves only them; a move budget falls back to every digit). */
    int first = 0;
    {
        size_t below = 0;
        for (int d = 0; d < DIGITS; d++) {
            for (int c = 0; c < threads; c++)
                below += lowest[(size_t)c * (DIGITS + 1) + (size_t)d];
            if (below > n / 4) break;
            first = d + 1;
        }
        if (first >= DIGITS) first = 0;
    }
    int in_second = 0;
    lsd_passes(keys, vals, keys2, vals2, n, par, threads, hist, constant, first, &in_second);
    if (first) {
        uint64_t *k = in_second ? keys2 : keys;
        uint32_t *v = in_second ? vals2 : vals;
        size_t budget = 4 * n + 4096, moves = 0;
        int done = 1;
        for (size_t i = 1; i < n; i++) {
            uint64_t key = k[i];
            if (k[i - 1] <= key) continue;
            uint32_t val = v[i];
            size_t j = i;
            while (j > 0 && k[j - 1] > key) {
                k[j] = k[j - 1];
                v[j] = v[j - 1];
                j--;
                moves++;
            }
            k[j] = key;
            v[j] = val;
            if (moves > budget) {
                done = 0;
                break;
            }
        }
        if (done) return in_second;
        /* ties are still in input order: sorting on every digit from here gives the full sort's result */
        if (in_second) {
            uint64_t *tk = keys;
            keys = keys2;
            keys2 = tk;
            uint32_t *tv = vals;
            vals = vals2;
            vals2 = tv;
        }
        recount_all(keys, n, hist, constant);
        int again_second = 0;
        lsd_passes(keys, vals, keys2, vals2, n, NULL, 1, hist, constant, 0, &again_second);
        /* result location relative to the caller's first buffer */
        return in_second ? !again_second : again_second;
    }
    return in_second;
}

/* Single-chunk counts of every digit (the fallback's sort runs on one thread). */
static void recount_all(const uint64_t *keys, size_t n, uint32_t *hist, int *constant)
{
    memset(hist, 0, DIGITS * BUCKETS * sizeof *hist);
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < DIGITS; d++)
            hist[(size_t)d * BUCKETS + ((keys[i] >> (d * DIGIT_BITS)) & (BUCKETS - 1))]++;
    for (int d = 0; d < DIGITS; d++) {
        constant[d] = 0;
        for (unsigned b = 0; b < BUCKETS; b++)
            if (hist[(size_t)d * BUCKETS + b]) {
                constant[d] = hist[(size_t)d * BUCKETS + b] == n;
                break;
            }
    }
}

typedef struct pass_run {
    const uint64_t *sk;
    const uint32_t *sv;
    uint64_t *dk;
    uint32_t *dv;
    size_t n;
    uint32_t *hist;
    int d, shift;
} pass_run;

/* After the first pass the chunks hold other keys: chunk c recounts this digit. */
static void recount_chunk(void *ctx, int c, int threads)
{
    const pass_run *r = ctx;
    uint32_t *h = r->hist + ((size_t)c * DIGITS + (size_t)r->d) * BUCKETS;
    memset(h, 0, BUCKETS * sizeof *h);
    size_t lo = chunk_lo(r->n, c, threads), hi = chunk_lo(r->n, c + 1, threads);
    for (size_t i = lo; i < hi; i++)
        h[(r->sk[i] >> r->shift) & (BUCKETS - 1)]++;
}

static void scatter_chunk(void *ctx, int c, int threads)
{
    const pass_run *r = ctx;
    uint32_t *off = r->hist + ((size_t)c * DIGITS + (size_t)r->d) * BUCKETS;
    size_t lo = chunk_lo(r->n, c, threads), hi = chunk_lo(r->n, c + 1, threads);
    for (size_t i = lo; i < hi; i++) {
        uint64_t k = r->sk[i];
        uint32_t pos = off[(k >> r->shift) & (BUCKETS - 1)]++;
        r->dk[pos] = k;
        r->dv[pos] = r->sv[i];
    }
}

static int lsd_passes(uint64_t *keys, uint32_t *vals, uint64_t *keys2, uint32_t *vals2, size_t n,
                      const pf_par *par, int threads, uint32_t *hist, const int *constant, int first_digit,
                      int *result_in_second)
{
    uint64_t *sk = keys, *dk = keys2;
    uint32_t *sv = vals, *dv = vals2;
    int in_second = 0, first_pass = 1;
    for (int d = first_digit; d < DIGITS; d++) {
        if (constant[d]) continue;
        pass_run r = {sk, sv, dk, dv, n, hist, d, d * DIGIT_BITS};
        if (!first_pass && threads > 1) pf_par_for(par, threads, recount_chunk, &r);
        /* Exclusive offsets, bucket-major then chunk order: stable whatever the chunking. */
        size_t sum = 0;
        for (unsigned b = 0; b < BUCKETS; b++)
            for (int c = 0; c < threads; c++) {
                uint32_t *h = hist + ((size_t)c * DIGITS + (size_t)d) * BUCKETS + b;
                uint32_t cnt = *h;
                *h = (uint32_t)sum;
                sum += cnt;
            }
        pf_par_for(par, threads, scatter_chunk, &r);
        first_pass = 0; /* with one chunk the first counts stay valid for every digit */
        uint64_t *tk = sk;
        sk = dk;
        dk = tk;
        uint32_t *tv = sv;
        sv = dv;
        dv = tv;
        in_second = !in_second;
    }
    *result_in_second = in_second;
    return 0;
}

void pf_radix_scratch_free(pf_radix_scratch *scratch)
{
    pf_free(scratch->hist);
    scratch->hist = NULL;
    scratch->threads = 0;
}

size_t pf_radix_scratch_bytes(const pf_radix_scratch *scratch)
{
    return (size_t)scratch->threads * DIGITS * BUCKETS * sizeof(uint32_t);
}

/* ---- MSD radix sort of 64-bit words: in place (American flag sort) on small ranges, through a buffer on
 * large ones ---- */

static void insertion_sort_u64(uint64_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t v = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

/* One in-place pass on the digit (v >> shift) & (2^bits - 1): buckets permuted by cycle leaders; their ends
 * in end[]. */
static void flag_pass(uint64_t *a, size_t n, int shift, int bits, size_t *end)
{
    size_t cnt[256], next[256];
    unsigned nb = 1u << bits, mask = nb - 1;
    memset(cnt, 0, nb * sizeof *cnt);
    for (size_t i = 0; i < n; i++)
        cnt[(a[i] >> shift) & mask]++;
    size_t sum = 0;
    for (unsigned b = 0; b < nb; b++) {
        next[b] = sum;
        sum += cnt[b];
        end[b] = sum;
    }
    for (unsigned b = 0; b < nb; b++) {
        while (next[b] < end[b]) {
            uint64_t v = a[next[b]];
            unsigned d = (unsigned)(v >> shift) & mask;
            while (d != b) {
                uint64_t t = a[next[d]];
                a[next[d]++] = v;
                v = t;
                d = (unsigned)(v >> shift) & mask;
            }
            a[next[b]++] = v;
        }
    }
}

/* The digit of a range of n words whose highest differing bit is hb: 8 bits, fewer for small ranges (a bucket
 * pass costs its bucket count; a range of n words needs about n / 8 buckets), never below bit 0. */
static int flag_digit(size_t n, int hb, int *shift)
{
    int bits = 8;
    while (bits > 2 && ((size_t)8 << bits) > n)
        bits--;
    *shift = hb >= bits - 1 ? hb - (bits - 1) : 0;
    return hb + 1 < bits ? hb + 1 : bits;
}

/* One pass on a range: skips the high bits on which the whole range agrees and buckets on the next digit
 * (bucket ends in end[]). Returns the digit's bits, or 0 when nothing is left to sort (all equal, or the digit
 * reached bit 0). */
static int flag_top(uint64_t *a, size_t n, size_t *end)
{
    uint64_t lo = a[0], diff = 0;
    for (size_t i = 1; i < n; i++)
        diff |= a[i] ^ lo;
    if (!diff) return 0;
    int shift, bits = flag_digit(n, 63 - __builtin_clzll(diff), &shift);
    flag_pass(a, n, shift, bits, end);
    return shift == 0 ? 0 : bits;
}

/* Sorts a[0..n): one pass, then each bucket the same way. */
static void flag_sort(uint64_t *a, size_t n)
{
    if (n <= 24) {
        insertion_sort_u64(a, n);
        return;
    }
    size_t end[256];
    int bits = flag_top(a, n, end);
    size_t start = 0;
    for (unsigned b = 0; bits && b < 1u << bits; b++) {
        if (end[b] - start > 1) flag_sort(a + start, end[b] - start);
        start = end[b];
    }
}

/* Sorts the n words of src (one bucket of the first pass, in cache) into dst: one counting pass on the
 * highest digit where they differ, sized for about 2 words a sub-bucket, then one insertion pass (a sub-bucket
 * that a cluster made large is flag-sorted first). */
static void bucket_sort_into(const uint64_t *src, uint64_t *dst, size_t n)
{
    if (n <= 24) {
        memcpy(dst, src, n * sizeof *dst);
        insertion_sort_u64(dst, n);
        return;
    }
    uint64_t lo = src[0], diff = 0;
    for (size_t i = 1; i < n; i++)
        diff |= src[i] ^ lo;
    if (!diff) {
        memcpy(dst, src, n * sizeof *dst);
        return;
    }
    int hb = 63 - __builtin_clzll(diff), bits = 2;
    while (bits < 11 && ((size_t)2 << bits) < n)
        bits++; /* about 2 words a bucket */
    if (bits > hb + 1) bits = hb + 1;
    int shift = hb + 1 - bits;
    size_t at[2049], mask = ((size_t)1 << bits) - 1;
    memset(at, 0, (mask + 2) * sizeof *at); /* not all 2049: a bucket of a few hundred words */
    for (size_t i = 0; i < n; i++)
        at[((src[i] >> shift) & mask) + 1]++;
    for (size_t b = 1; b <= mask + 1; b++)
        at[b] += at[b - 1];
    for (size_t i = 0; i < n; i++)
        dst[at[(src[i] >> shift) & mask]++] = src[i];
    if (shift == 0) return;
    /* buckets of a few words: one insertion pass over all of them moves only within a bucket; a bucket that a
     * cluster made large is sorted first */
    size_t start = 0;
    for (size_t b = 0; b <= mask; b++) {
        if (at[b] - start > 32) flag_sort(dst + start, at[b] - start);
        start = at[b];
    }
    insertion_sort_u64(dst, n);
}

/* Two out-of-place MSD passes: a into tmp on a digit of up to 12 bits (buckets of about 1024 words, in
 * cache), then each bucket back into a on the next digit; the in-place pass alone would move every word
 * through a cache miss and a mispredicted branch. Threads take chunks of a for the first pass, buckets for
 * the second. */
typedef struct msd_run {
    uint64_t *a, *tmp;
    size_t n, nb, mask;
    size_t *at, *end;
    int shift;
    uint64_t diff[64]; /* per part: the bits where words differ from a[0] */
    atomic_size_t next; /* the next group of buckets to take */
} msd_run;

static void diff_part(void *ctx, int k, int parts)
{
    msd_run *r = ctx;
    size_t i0, i1;
    uint64_t lo = r->a[0], diff = 0;
    pf_par_range(r->n, k, parts, &i0, &i1);
    for (size_t i = i0; i < i1; i++)
        diff |= r->a[i] ^ lo;
    r->diff[k] = diff;
}

static void msd_count_chunk(void *ctx, int c, int threads)
{
    const msd_run *r = ctx;
    size_t i0 = r->n * (size_t)c / (size_t)threads, i1 = r->n * (size_t)(c + 1) / (size_t)threads;
    size_t *h = r->at + (size_t)c * r->nb;
    for (size_t i = i0; i < i1; i++)
        h[(r->a[i] >> r->shift) & r->mask]++;
}

static void msd_scatter_chunk(void *ctx, int c, int threads)
{
    const msd_run *r = ctx;
    size_t i0 = r->n * (size_t)c / (size_t)threads, i1 = r->n * (size_t)(c + 1) / (size_t)threads;
    size_t *h = r->at + (size_t)c * r->nb;
    for (size_t i = i0; i < i1; i++)
        r->tmp[h[(r->a[i] >> r->shift) & r->mask]++] = r->a[i];
}

/* Buckets of uneven sizes: the workers take groups of 64 as they finish (any worker may sort any bucket). */
static void msd_buckets(void *ctx, int worker, int workers)
{
    (void)worker, (void)workers;
    msd_run *r = ctx;
    for (;;) {
        size_t b0 = atomic_fetch_add(&r->next, 64);
        if (b0 >= r->nb) break;
        size_t b1 = b0 + 64 < r->nb ? b0 + 64 : r->nb;
        for (size_t b = b0; b < b1; b++) {
            size_t start = b ? r->end[b - 1] : 0;
            if (r->shift > 0)
                bucket_sort_into(r->tmp + start, r->a + start, r->end[b] - start);
            else
                memcpy(r->a + start, r->tmp + start, (r->end[b] - start) * sizeof *r->a);
        }
    }
}

void pf_radix_sort_u64_scratch(uint64_t *a, size_t n, uint64_t *tmp, const pf_par *par)
{
    if (n < 4096) {
        flag_sort(a, n);
        return;
    }
    int threads = par ? par->workers : 1;
    if (threads > 64) threads = 64;
    if (threads < 1 || n < 65536) threads = 1;
    msd_run r;
    r.a = a;
    r.tmp = tmp;
    r.n = n;
    pf_par_for(par, threads, diff_part, &r);
    uint64_t diff = 0;
    for (int k = 0; k < threads; k++) diff |= r.diff[k];
    if (!diff) return;
    int hb = 63 - __builtin_clzll(diff), bits = 4;
    while (bits < 12 && ((size_t)1024 << bits) < n)
        bits++;
    if (bits > hb + 1) bits = hb + 1;
    int shift = hb + 1 - bits;
    size_t nb = (size_t)1 << bits, mask = nb - 1;
    size_t *at =
        calloc((size_t)threads * nb + nb + 1, sizeof *at); /* per chunk per bucket, then bucket ends */
    if (!at) {
        flag_sort(a, n);
        return;
    }
    size_t *end = at + (size_t)threads * nb;
    r.nb = nb, r.mask = mask, r.at = at, r.end = end, r.shift = shift;
    pf_par_for(par, threads, msd_count_chunk, &r);
    size_t sum = 0; /* bucket by bucket, chunk by chunk: each chunk's start in each bucket */
    for (size_t b = 0; b < nb; b++) {
        for (int c = 0; c < threads; c++) {
            size_t k = at[(size_t)c * nb + b];
            at[(size_t)c * nb + b] = sum;
            sum += k;
        }
        end[b] = sum;
    }
    pf_par_for(par, threads, msd_scatter_chunk, &r);
    /* a is free: each bucket goes back into its place there */
    atomic_init(&r.next, 0);
    pf_par_run(par, threads, msd_buckets, &r);
    free(at);
}
