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
/* Appends one pair, growing geometrically; PF_OK or PF_ENOMEM. */
int pf_pair_vec_push(pf_pair_vec *v, uint32_t i, uint32_t j);
void pf_pair_vec_free(pf_pair_vec *v);

#endif
