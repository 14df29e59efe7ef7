/* A typed growable array: `PF_VEC(T) name;` declares items name.v[0 .. name.n) with room for name.cap, in place
 * of a hand-written (pointer, count, capacity) triple. Memory comes from pf_malloc's hook; capacity doubles.
 * The macros evaluate `a` (a pointer to the array) more than once: pass a plain expression such as &g->nodes. */
#ifndef PF_BASE_VEC_H
#define PF_BASE_VEC_H

#include "base/alloc.h"
#include "physflow/base.h"

#define PF_VEC(T)      \
    struct {           \
        T *v;          \
        size_t n, cap; \
    }

/* Room for at least `need` items (n unchanged): PF_OK or PF_ENOMEM. */
#define pf_vec_reserve(a, need) pf_array_reserve((void **)&(a)->v, &(a)->cap, (need), sizeof *(a)->v)

/* Appends `item`: PF_OK, or PF_ENOMEM with the array unchanged. */
#define pf_vec_push(a, item) \
    (pf_vec_reserve((a), (a)->n + 1) == PF_OK ? ((a)->v[(a)->n++] = (item), PF_OK) : PF_ENOMEM)

/* Frees the items and leaves an empty array. */
#define pf_vec_free(a) (pf_free((a)->v), (a)->v = NULL, (a)->n = 0, (a)->cap = 0)

#endif
