/* Fuzz target: the box file of `physflow pairs`. Whatever the bytes, reading never crashes; when they parse,
 * the kd-tree's pairs equal brute force's (the oracle), with 1 and 2 threads. */
#define _POSIX_C_SOURCE 200809L
#include "box_reader.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int pair_order(const void *x, const void *y)
{
    const pf_pair *a = x, *b = y;
    if (a->i != b->i) return a->i < b->i ? -1 : 1;
    return a->j < b->j ? -1 : a->j > b->j;
}

static size_t pairs_of(pf_broadphase_method m, int threads, const pf_aabb *boxes, size_t n, pf_pair **out)
{
    pf_broadphase_def d = pf_broadphase_default_def();
    d.method = m;
    d.threads = threads;
    pf_broadphase *bp;
    const pf_pair *pairs;
    size_t np = 0;
    if (pf_broadphase_create(&d, &bp) || pf_broadphase_pairs(bp, boxes, n, &pairs, &np, NULL)) abort();
    *out = malloc((np ? np : 1) * sizeof **out);
    if (!*out) abort();
    if (np) memcpy(*out, pairs, np * sizeof **out);
    pf_broadphase_destroy(bp);
    if (np) qsort(*out, np, sizeof **out, pair_order); /* each method has its own (deterministic) order */
    return np;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fmemopen((void *)data, size ? size : 1, "r");
    if (!f) return 0;
    if (!size) fgetc(f); /* an empty file */
    pf_aabb *boxes = NULL;
    size_t n = 0;
    /* messages are the point of bad input, not of fuzzing: stderr goes to /dev/null while reading */
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2);
    int rc = box_read(f, "fuzz", &boxes, &n);
    fflush(stderr);
    if (saved >= 0) dup2(saved, 2);
    if (saved >= 0) close(saved);
    if (null >= 0) close(null);
    fclose(f);
    if (rc == 0 && n <= 4000) {
        pf_pair *ref, *got;
        size_t nref = pairs_of(PF_BP_BRUTE, 1, boxes, n, &ref);
        for (int threads = 1; threads <= 2; threads++) {
            size_t ngot = pairs_of(PF_BP_KD, threads, boxes, n, &got);
            if (ngot != nref || memcmp(got, ref, nref * sizeof *ref)) abort();
            free(got);
        }
        free(ref);
    }
    free(boxes);
    return 0;
}
