/* Private allocation entry points: every PhysFlow allocation goes through the host-replaceable hook. */
#ifndef PF_BASE_ALLOC_H
#define PF_BASE_ALLOC_H

#include <stddef.h>

/* 64-byte aligned (a cache line) so per-worker data never shares a line. NULL on failure or size 0. */
void *pf_malloc(size_t size);
/* As pf_malloc, zero-filled; n * size is checked for overflow. */
void *pf_calloc(size_t n, size_t size);
/* Grows or shrinks a block from pf_malloc, keeping min(old_size, new_size) bytes. The result is only
 * guaranteed 16-byte alignment. */
void *pf_realloc(void *ptr, size_t old_size, size_t new_size);
void pf_free(void *ptr);


/* PF_OK when `bytes` fit in the machine's physical memory, else PF_ENOMEM with a message naming `what`, the
 * need and the machine's memory: a request refused before anything is allocated. */
int pf_memory_check(double bytes, const char *what);

/* Grows an array of `elem`-byte items so it holds at least `need` (capacity doubles). PF_OK or PF_ENOMEM. */
int pf_array_reserve(void **arr, size_t *cap, size_t need, size_t elem);
#define PF_ARRAY_RESERVE(arr, cap, need) pf_array_reserve((void **)&(arr), &(cap), (need), sizeof *(arr))

#endif
