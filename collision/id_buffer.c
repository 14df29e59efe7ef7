/* Query result buffers (pf_id_buffer of query.h) and their duplicate-removal stamps. */
#include "id_buffer.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <string.h>

int pf_id_buffer_create(pf_id_buffer **out)
{
    PF_TRY(pf_check_given(out, __func__, "out"));
    *out = pf_calloc(1, sizeof **out);
    return *out ? PF_OK : pf_error(PF_ENOMEM, "%s: out of memory for an id buffer", __func__);
}

void pf_idbuf_release(pf_id_buffer *b)
{
    pf_free(b->ids);
    pf_free(b->mark);
    memset(b, 0, sizeof *b);
}

void pf_id_buffer_destroy(pf_id_buffer *b)
{
    if (!b) return;
    pf_idbuf_release(b);
    pf_free(b);
}

const uint32_t *pf_id_buffer_ids(const pf_id_buffer *b, size_t *n)
{
    if (!b) {
        if (n) *n = 0;
        return NULL;
    }
    if (n) *n = b->n;
    return b->ids;
}

uint64_t pf_id_buffer_candidates(const pf_id_buffer *b)
{
    return b ? b->candidates : 0;
}

int pf_idbuf_marks(pf_id_buffer *b, size_t n)
{
    if (n <= b->mark_n) return PF_OK;
    size_t cap = n + n / 4 + 64;
    uint32_t *m = pf_calloc(cap, sizeof *m);
    if (!m) return pf_error(PF_ENOMEM, "out of memory for %zu stamps", cap);
    pf_free(b->mark);
    b->mark = m;
    b->mark_n = cap;
    b->stamp = 0;
    return PF_OK;
}

int pf_idbuf_grow(pf_id_buffer *b)
{
    size_t cap = b->cap ? 2 * b->cap : 256;
    uint32_t *p = pf_realloc(b->ids, b->n * sizeof *p, cap * sizeof *p);
    if (!p) return pf_error(PF_ENOMEM, "out of memory for %zu ids", cap);
    b->ids = p;
    b->cap = cap;
    return PF_OK;
}

void pf_idbuf_begin(pf_id_buffer *b)
{
    b->n = 0;
    b->candidates = 0;
    if (++b->stamp == 0) {
        if (b->mark) memset(b->mark, 0, b->mark_n * sizeof *b->mark);
        b->stamp = 1;
    }
}
