/* LSD radix sort of (64-bit key, 32-bit value) records: 11-bit digits, digits constant over the input skipped,
 * parallel counting and scatter over fixed chunks (see radix_sort.h). */
#include "radix_sort.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

#define DIGIT_BITS 11
#define BUCKETS (1u << DIGIT_BITS)
#define DIGITS 6 /* 6 x 11 >= 64 */

static size_t chunk_lo(size_t n, int t, int threads)
{
    return n * (size_t)t / (size_t)threads;
}

static void recount_all(const uint64_t *keys, size_t n, uint32_t *hist, int *constant);
static int lsd_passes(uint64_t *keys, uint32_t *vals, uint64_t *keys2, uint32_t *vals2, size_t n, int threads,
                      uint32_t *hist, const int *constant, int first_digit, int *result_in_second);

int pf_radix_sort64(uint64_t *keys, uint32_t *vals, uint64_t *keys2, uint32_t *vals2, size_t n, int threads,
                    pf_radix_scratch *scratch)
{
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

    /* One read pass counts every digit; with one thread these counts serve every pass. */
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int c = 0; c < threads; c++) {
        {
            uint32_t *h = hist + (size_t)c * DIGITS * BUCKETS;
            memset(h, 0, DIGITS * BUCKETS * sizeof *h);
            size_t lo = chunk_lo(n, c, threads), hi = chunk_lo(n, c + 1, threads);
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
            memcpy(lowest + (size_t)c * (DIGITS + 1), low, sizeof low);
        }
    }
    /* A digit with every key in one bucket moves nothing: skip it. */
    int constant[DIGITS];
    for (int d = 0; d < DIGITS; d++) {
        constant[d] = 0;
        for (unsigned b = 0; b < BUCKETS; b++) {
            size_t total = 0;
            for (int c = 0; c < threads; c++) total += hist[((size_t)c * DIGITS + (size_t)d) * BUCKETS + b];
            if (total == n) constant[d] = 1;
            if (total) break;
        }
    }

    /* Cell keys of similar boxes end in long runs of zero bits: when few keys have a non-zero digit below digit
     * `first`, sort on the digits from `first` up and let an insertion pass put those few in place (it moves
     * only them; a move budget falls back to every digit). */
    int first = 0;
    {
        size_t below = 0;
        for (int d = 0; d < DIGITS; d++) {
            for (int c = 0; c < threads; c++) below += lowest[(size_t)c * (DIGITS + 1) + (size_t)d];
            if (below > n / 4) break;
            first = d + 1;
        }
        if (first >= DIGITS) first = 0;
    }
    int in_second = 0;
    lsd_passes(keys, vals, keys2, vals2, n, threads, hist, constant, first, &in_second);
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
        lsd_passes(keys, vals, keys2, vals2, n, 1, hist, constant, 0, &again_second);
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
        for (int d = 0; d < DIGITS; d++) hist[(size_t)d * BUCKETS + ((keys[i] >> (d * DIGIT_BITS)) & (BUCKETS - 1))]++;
    for (int d = 0; d < DIGITS; d++) {
        constant[d] = 0;
        for (unsigned b = 0; b < BUCKETS; b++)
            if (hist[(size_t)d * BUCKETS + b]) {
                constant[d] = hist[(size_t)d * BUCKETS + b] == n;
                break;
            }
    }
}

static int lsd_passes(uint64_t *keys, uint32_t *vals, uint64_t *keys2, uint32_t *vals2, size_t n, int threads,
                      uint32_t *hist, const int *constant, int first_digit, int *result_in_second)
{
    uint64_t *sk = keys, *dk = keys2;
    uint32_t *sv = vals, *dv = vals2;
    int in_second = 0, first_pass = 1;
    for (int d = first_digit; d < DIGITS; d++) {
        if (constant[d]) continue;
        int shift = d * DIGIT_BITS;
#pragma omp parallel num_threads(threads)
        {
#pragma omp for schedule(static, 1)
            for (int c = 0; c < threads; c++) {
                /* After the first pass the chunks hold other keys: recount this digit per chunk. */
                if (!first_pass && threads > 1) {
                    uint32_t *h = hist + ((size_t)c * DIGITS + (size_t)d) * BUCKETS;
                    memset(h, 0, BUCKETS * sizeof *h);
                    size_t lo = chunk_lo(n, c, threads), hi = chunk_lo(n, c + 1, threads);
                    for (size_t i = lo; i < hi; i++) h[(sk[i] >> shift) & (BUCKETS - 1)]++;
                }
            }
#pragma omp single
            {
                /* Exclusive offsets, bucket-major then chunk order: stable whatever the chunking. */
                size_t sum = 0;
                for (unsigned b = 0; b < BUCKETS; b++)
                    for (int c = 0; c < threads; c++) {
                        uint32_t *h = hist + ((size_t)c * DIGITS + (size_t)d) * BUCKETS + b;
                        uint32_t cnt = *h;
                        *h = (uint32_t)sum;
                        sum += cnt;
                    }
            }
#pragma omp for schedule(static, 1)
            for (int c = 0; c < threads; c++) {
                uint32_t *off = hist + ((size_t)c * DIGITS + (size_t)d) * BUCKETS;
                size_t lo = chunk_lo(n, c, threads), hi = chunk_lo(n, c + 1, threads);
                for (size_t i = lo; i < hi; i++) {
                    uint64_t k = sk[i];
                    uint32_t pos = off[(k >> shift) & (BUCKETS - 1)]++;
                    dk[pos] = k;
                    dv[pos] = sv[i];
                }
            }
        }
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

/* ---- in-place MSD radix sort of 64-bit words (American flag sort) ---- */

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

/* Sorts a[0..n) on bits [0, shift + 8): buckets on digit (v >> shift) & 255 permuted in place by cycle leaders,
 * then each bucket on the next digit down. Returns the bucket ends in end[] when `end` is not NULL (top level). */
static void flag_pass(uint64_t *a, size_t n, int shift, size_t *ends)
{
    size_t cnt[256] = {0};
    for (size_t i = 0; i < n; i++) cnt[(a[i] >> shift) & 255]++;
    size_t next[256], end[256], sum = 0;
    for (int b = 0; b < 256; b++) {
        next[b] = sum;
        sum += cnt[b];
        end[b] = sum;
    }
    for (int b = 0; b < 256; b++) {
        while (next[b] < end[b]) {
            uint64_t v = a[next[b]];
            unsigned d = (unsigned)(v >> shift) & 255;
            while (d != (unsigned)b) {
                uint64_t t = a[next[d]];
                a[next[d]++] = v;
                v = t;
                d = (unsigned)(v >> shift) & 255;
            }
            a[next[b]++] = v;
        }
    }
    if (ends) memcpy(ends, end, sizeof end);
}

static void flag_sort(uint64_t *a, size_t n, int shift)
{
    while (n > 32) {
        /* skip digits on which the whole range agrees */
        uint64_t lo = a[0], diff = 0;
        for (size_t i = 1; i < n; i++) diff |= a[i] ^ lo;
        if (!diff) return;
        int hb = 63 - __builtin_clzll(diff);
        if (hb < shift + 8) shift = hb >= 7 ? hb - 7 : 0;
        size_t end[256];
        flag_pass(a, n, shift, end);
        if (shift == 0) return;
        size_t start = 0;
        for (int b = 0; b < 256; b++) {
            if (end[b] - start > 1) flag_sort(a + start, end[b] - start, shift >= 8 ? shift - 8 : 0);
            start = end[b];
        }
        return;
    }
    insertion_sort_u64(a, n);
}

void pf_radix_sort_u64_inplace(uint64_t *a, size_t n, int threads)
{
    if (n < 2) return;
    if (threads < 2 || n < 65536) {
        flag_sort(a, n, 56);
        return;
    }
    uint64_t lo = a[0], diff = 0;
    for (size_t i = 1; i < n; i++) diff |= a[i] ^ lo;
    if (!diff) return;
    int hb = 63 - __builtin_clzll(diff);
    int shift = hb >= 7 ? hb - 7 : 0;
    size_t end[256];
    flag_pass(a, n, shift, end);
    if (shift == 0) return;
    /* the buckets are independent: sorted in parallel, each the same way whatever the thread */
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int b = 0; b < 256; b++) {
        size_t start = b ? end[b - 1] : 0;
        if (end[b] - start > 1) flag_sort(a + start, end[b] - start, shift >= 8 ? shift - 8 : 0);
    }
}
