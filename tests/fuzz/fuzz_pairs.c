/* Fuzz target: the box file of `physflow pairs`. Whatever the bytes, reading never crashes; when they parse,
 * the kd-tree's and the grid's pairs equal brute force's (the oracle), with 1 and 2 threads, and so do those of
 * a kd-tree or a grid that saw the boxes before and then sees them moved (their update paths). */
#define _POSIX_C_SOURCE 200809L
#include "box_reader.h"

#include <stdint.h>
#include <stdio.h>
#include <math.h>
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

/* A broad phase (kd-tree, or grid: its records kept in order across calls) kept across calls: the boxes, then
 * each shifted by up to 1/8 of its extent along an axis the input's bytes choose (some change cells, most do
 * not), then again with a few of them moved far: every call's pairs equal brute force's. The boxes are moved
 * in place (a later method sees them moved). */
static void moved_pairs_equal_brute(pf_broadphase_method m, pf_aabb *boxes, size_t n, const uint8_t *data,
                                    size_t size)
{
    pf_broadphase_def d = pf_broadphase_default_def();
    d.method = m;
    pf_broadphase *kd;
    if (pf_broadphase_create(&d, &kd)) abort();
    for (int step = 0; step < 3; step++) {
        if (step > 0)
            for (size_t i = 0; i < n; i++) {
                uint8_t b = size ? data[(i * 7 + (size_t)step) % size] : 0;
                int a = b % 3;
                double e = boxes[i].max[a] - boxes[i].min[a];
                double t = ((double)(b >> 2) - 31.5) / 256.0 * (e > 0 ? e : 1); /* within 1/8 of the extent */
                if (step == 2 && b % 17 == 0) t = 0.5 * (e + 1.0);               /* a far move */
                if (!isfinite(boxes[i].min[a] + t) || !isfinite(boxes[i].max[a] + t)) continue;
                boxes[i].min[a] += t;
                boxes[i].max[a] += t;
            }
        const pf_pair *pairs;
        size_t np;
        if (pf_broadphase_pairs(kd, boxes, n, &pairs, &np, NULL)) continue; /* a shift may overflow: refused */
        pf_pair *got = malloc((np ? np : 1) * sizeof *got), *ref;
        if (!got) abort();
        if (np) memcpy(got, pairs, np * sizeof *got);
        if (np) qsort(got, np, sizeof *got, pair_order);
        size_t nref = pairs_of(PF_BP_BRUTE, 1, boxes, n, &ref);
        if (nref != np || memcmp(got, ref, np * sizeof *ref)) abort();
        free(got);
        free(ref);
    }
    pf_broadphase_destroy(kd);
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
            ngot = pairs_of(PF_BP_GRID, threads, boxes, n, &got);
            if (ngot != nref || memcmp(got, ref, nref * sizeof *ref)) abort();
            free(got);
        }
        free(ref);
        moved_pairs_equal_brute(PF_BP_KD, boxes, n, data, size);
        moved_pairs_equal_brute(PF_BP_GRID, boxes, n, data, size);
    }
    free(boxes);
    return 0;
}
