/* Growable pair arrays (see pair_vec.h). */
#include "pair_vec.h"

#include "base/alloc.h"
#include "base/error.h"

int pf_pair_vec_reserve(pf_pair_vec *v, size_t cap)
{
    if (cap <= v->cap) return PF_OK;
    size_t grown = v->cap ? v->cap * 2 : 1024;
    if (grown < cap) grown = cap;
    pf_pair *p = pf_realloc(v->data, v->n * sizeof *p, grown * sizeof *p);
    if (!p) return pf_error(PF_ENOMEM, "out of memory for %zu pairs", grown);
    v->data = p;
    v->cap = grown;
    return PF_OK;
}

void pf_pair_vec_trim(pf_pair_vec *v, size_t slack)
{
    size_t want = v->n + slack + 64;
    if (v->cap <= want + want / 4) return;
    pf_pair *p = pf_realloc(v->data, v->cap * sizeof *p, want * sizeof *p);
    if (!p) return; /* keeping the larger buffer is fine */
    v->data = p;
    v->cap = want;
}

void pf_pair_vec_free(pf_pair_vec *v)
{
    pf_free(v->data);
    v->data = NULL;
    v->n = v->cap = 0;
}
