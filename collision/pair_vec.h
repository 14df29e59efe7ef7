/* A growable array of pairs, the output buffer of every broad phase. */
#ifndef PF_COLLISION_PAIR_VEC_H
#define PF_COLLISION_PAIR_VEC_H

#include "physflow/collision.h"

#include <stddef.h>

typedef struct pf_pair_vec {
    pf_pair *data;
    size_t n;
    size_t cap;
} pf_pair_vec;

/* Makes room for at least `cap` pairs; PF_OK or PF_ENOMEM. Keeps the contents. */
int pf_pair_vec_reserve(pf_pair_vec *v, size_t cap);
/* Gives back the room beyond n + slack when it is more than a quarter of that (geometric growth can leave up to
 * twice what a call needs); keeps the contents. Never fails. */
void pf_pair_vec_trim(pf_pair_vec *v, size_t slack);
/* Appends one pair, growing geometrically; PF_OK or PF_ENOMEM. Inline: the broad phases' inner loops call it. */
static inline int pf_pair_vec_push(pf_pair_vec *v, uint32_t i, uint32_t j)
{
    if (v->n == v->cap && pf_pair_vec_reserve(v, v->n + 1)) return PF_ENOMEM;
    v->data[v->n].i = i;
    v->data[v->n].j = j;
    v->n++;
    return PF_OK;
}
void pf_pair_vec_free(pf_pair_vec *v);

#endif
