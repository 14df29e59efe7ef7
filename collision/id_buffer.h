/* The id buffer behind the public pf_id_buffer of query.h: query results plus the per-query "seen" stamps
 * that remove duplicate candidates (an object stored in several cells is retrieved once). */
#ifndef PF_COLLISION_ID_BUFFER_H
#define PF_COLLISION_ID_BUFFER_H

#include "physflow/query.h"

#include <stddef.h>
#include <stdint.h>

struct pf_id_buffer {
    uint32_t *ids; /* results */
    size_t n, cap;
    uint32_t *mark; /* mark[id] == stamp: id already taken by the current query */
    size_t mark_n;
    uint32_t stamp;
    uint64_t candidates; /* ids retrieved from the structure, duplicates included */
};

/* Makes room for ids < n in the stamps. PF_OK or PF_ENOMEM. */
int pf_idbuf_marks(pf_id_buffer *b, size_t n);
/* Grows the result array by at least one. PF_OK or PF_ENOMEM. */
int pf_idbuf_grow(pf_id_buffer *b);
void pf_idbuf_release(pf_id_buffer *b);

/* Starts a query: empties the results and opens a fresh stamp. */
void pf_idbuf_begin(pf_id_buffer *b);

static inline int pf_idbuf_push(pf_id_buffer *b, uint32_t id)
{
    if (b->n == b->cap) {
        int rc = pf_idbuf_grow(b);
        if (rc) return rc;
    }
    b->ids[b->n++] = id;
    return 0;
}

/* Appends `id` unless this query took it already (needs pf_idbuf_marks for id). */
static inline int pf_idbuf_push_unique(pf_id_buffer *b, uint32_t id)
{
    if (b->mark[id] == b->stamp) return 0;
    b->mark[id] = b->stamp;
    return pf_idbuf_push(b, id);
}

#endif
