/* The fuzz targets' allocation hook: every PhysFlow allocation counted against a cap, so an input whose counts ask
 * for gigabytes gets PF_ENOMEM instead of exhausting the fuzzer. Install with
 * pf_set_allocator(capped_alloc, capped_free, NULL). */
#ifndef PF_FUZZ_CAPPED_ALLOC_H
#define PF_FUZZ_CAPPED_ALLOC_H

#include <stdlib.h>

enum { CAP_BYTES = 256 << 20 };
static size_t in_use;

typedef struct header {
    size_t size;
    size_t pad[7]; /* keeps the block 64-byte aligned */
} header;

static void *capped_alloc(size_t size, size_t alignment, void *ctx)
{
    (void)ctx;
    (void)alignment; /* 64 at most: the header keeps that */
    if (size > CAP_BYTES || in_use + size > CAP_BYTES) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, 64, sizeof(header) + size)) return NULL;
    ((header *)p)->size = size;
    in_use += size;
    return (header *)p + 1;
}

static void capped_free(void *p, void *ctx)
{
    (void)ctx;
    if (!p) return;
    header *h = (header *)p - 1;
    in_use -= h->size;
    free(h);
}

#endif
