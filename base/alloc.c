/* The allocation hook (pf_set_allocator) and the aligned malloc/free it defaults to. */
#define _POSIX_C_SOURCE 200809L
#include "alloc.h"

#include "physflow/base.h"
#include "error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PF_ALIGN 64

static void *default_alloc(size_t size, size_t alignment, void *ctx)
{
    (void)ctx;
    void *p = NULL;
    return posix_memalign(&p, alignment, size) == 0 ? p : NULL;
}

static void default_free(void *ptr, void *ctx)
{
    (void)ctx;
    free(ptr);
}

static pf_alloc_fn hook_alloc = default_alloc;
static pf_free_fn hook_free = default_free;
static void *hook_ctx;

void pf_set_allocator(pf_alloc_fn alloc, pf_free_fn free_fn, void *ctx)
{
    if (alloc && free_fn) {
        hook_alloc = alloc;
        hook_free = free_fn;
        hook_ctx = ctx;
    } else {
        hook_alloc = default_alloc;
        hook_free = default_free;
        hook_ctx = NULL;
    }
}

void *pf_malloc(size_t size)
{
    if (size == 0) return NULL;
    return hook_alloc((size + PF_ALIGN - 1) / PF_ALIGN * PF_ALIGN, PF_ALIGN, hook_ctx);
}

void *pf_calloc(size_t n, size_t size)
{
    if (n == 0 || size == 0 || n > SIZE_MAX / size) return NULL;
    void *p = pf_malloc(n * size);
    if (p) memset(p, 0, n * size);
    return p;
}

void *pf_realloc(void *ptr, size_t old_size, size_t new_size)
{
    if (new_size == 0) {
        pf_free(ptr);
        return NULL;
    }
    /* With the default hooks, libc's realloc grows large blocks in place (mremap): no copy and no fresh
     * page faults, which dominate when a graph of many tasks is recorded. Such blocks keep malloc's 16-byte
     * alignment rather than 64; cache-line-sensitive data (flags, lanes) is never grown this way. */
    if (hook_alloc == default_alloc) return realloc(ptr, new_size);
    void *p = pf_malloc(new_size);
    if (p && ptr) memcpy(p, ptr, old_size < new_size ? old_size : new_size);
    if (p) pf_free(ptr);
    return p;
}

void pf_free(void *ptr)
{
    if (ptr) hook_free(ptr, hook_ctx);
}

int pf_array_reserve(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return PF_OK;
    size_t grown = *cap ? *cap * 2 : 16;
    if (grown < need) grown = need;
    if (grown > SIZE_MAX / elem) return PF_ENOMEM;
    void *p = pf_realloc(*arr, *cap * elem, grown * elem);
    if (!p) return PF_ENOMEM;
    *arr = p;
    *cap = grown;
    return PF_OK;
}

int pf_memory_check(double bytes, const char *what)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    double total = pages > 0 && size > 0 ? (double)pages * (double)size : 0;
    if (total > 0 && bytes > total)
        return pf_error(PF_ENOMEM, "%s needs %.3g GiB, more than this machine's %.3g GiB of memory", what,
                        bytes / 1073741824.0, total / 1073741824.0);
    return PF_OK;
}
