/* Sweep and prune on the x axis: boxes kept sorted by their lower x across calls by insertion sort (temporal
 * coherence), then swept; a full sort when the box count changes or the order has moved too much. */
#include "broadphase_backend.h"
#include "pair_chunks.h"

#include "base/alloc.h"
#include "base/error.h"
#include "base/vec.h"

#include <stdlib.h>

typedef struct sap_entry {
    double x;    /* lower x of the box */
    uint32_t id; /* box index: breaks ties, so the order is unique */
} sap_entry;

typedef struct sap_state {
    PF_VEC(sap_entry) order; /* the last call's boxes in sweep order (n = 0: none yet) */
} sap_state;

static int sap_create(const pf_broadphase_def *def, void **state)
{
    (void)def;
    sap_state *s = pf_calloc(1, sizeof *s);
    if (!s) return pf_error(PF_ENOMEM, "out of memory for a broad phase");
    *state = s;
    return PF_OK;
}

static void sap_destroy(void *state)
{
    sap_state *s = state;
    if (!s) return;
    pf_vec_free(&s->order);
    pf_free(s);
}

static inline int entry_less(const sap_entry *a, const sap_entry *b)
{
    return a->x < b->x || (a->x == b->x && a->id < b->id);
}

static int entry_cmp(const void *pa, const void *pb)
{
    const sap_entry *a = pa, *b = pb;
    return entry_less(a, b) ? -1 : entry_less(b, a) ? 1 : 0;
}

static int sap_pairs(void *state, const pf_broadphase_def *def, const pf_aabb *boxes, size_t n, pf_pair_vec *out,
                     pf_broadphase_stats *stats)
{
    (void)def;
    sap_state *s = state;
    int full = 1;
    if (s->order.n == n) {
        /* Insertion sort from the last call's order; give up for a full sort past a budget of moves. */
        size_t budget = 8 * n + 1024, moves = 0;
        for (size_t k = 0; k < n; k++)
            s->order.v[k].x = boxes[s->order.v[k].id].min[0];
        full = 0;
        for (size_t k = 1; k < n && !full; k++) {
            sap_entry e = s->order.v[k];
            size_t l = k;
            while (l > 0 && entry_less(&e, &s->order.v[l - 1])) {
                s->order.v[l] = s->order.v[l - 1];
                l--;
                if (++moves > budget) {
                    full = 1;
                    break;
                }
            }
            s->order.v[l] = e;
        }
    }
    if (full) {
        if (pf_vec_reserve(&s->order, n))
            return pf_error(PF_ENOMEM, "out of memory for %zu sweep entries", n);
        for (size_t k = 0; k < n; k++) {
            s->order.v[k].x = boxes[k].min[0];
            s->order.v[k].id = (uint32_t)k;
        }
        qsort(s->order.v, n, sizeof *s->order.v, entry_cmp);
        s->order.n = n;
    }
    uint64_t cand = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t a = s->order.v[k].id;
        const pf_aabb *A = &boxes[a];
        double xmax = A->max[0];
        for (size_t l = k + 1; l < n && s->order.v[l].x <= xmax; l++) {
            uint32_t b = s->order.v[l].id;
            const pf_aabb *B = &boxes[b];
            cand++;
            if (A->min[1] <= B->max[1] && B->min[1] <= A->max[1] && A->min[2] <= B->max[2] &&
                B->min[2] <= A->max[2]) {
                if (pf_pair_vec_push(out, a < b ? a : b, a < b ? b : a))
                    return pf_error(PF_ENOMEM, "out of memory for pairs");
            }
        }
    }
    stats->candidates = cand;
    stats->records = n;
    stats->bytes = sizeof *s + s->order.cap * sizeof *s->order.v;
    return PF_OK;
}

const pf_bp_backend pf_bp_sap_backend = {sap_create, sap_destroy, sap_pairs};
