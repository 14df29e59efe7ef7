/* The brute-force broad phase: every pair tested, the oracle every other method is checked against. */
#include "broadphase_backend.h"
#include "pair_chunks.h"
#include "parallel.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdatomic.h>

typedef struct brute_state {
    pf_pair_chunks chunks;
} brute_state;

static int brute_create(const pf_broadphase_def *def, void **state)
{
    (void)def;
    brute_state *s = pf_calloc(1, sizeof *s);
    if (!s) return pf_error(PF_ENOMEM, "out of memory for a broad phase");
    *state = s;
    return PF_OK;
}

static void brute_destroy(void *state)
{
    brute_state *s = state;
    if (!s) return;
    pf_pair_chunks_free(&s->chunks);
    pf_free(s);
}

typedef struct brute_run {
    brute_state *s;
    const pf_aabb *boxes;
    size_t n;
    int count;
    atomic_int next; /* the next chunk to take */
} brute_run;

/* The chunks' rows are uneven (the triangle): the workers take them one at a time as they finish. */
static void brute_worker(void *ctx, int worker, int workers)
{
    (void)worker, (void)workers;
    brute_run *r = ctx;
    brute_state *s = r->s;
    const pf_aabb *boxes = r->boxes;
    size_t n = r->n;
    for (int c; (c = atomic_fetch_add(&r->next, 1)) < r->count;) {
        size_t lo, hi;
        pf_chunk_range(n, r->count, c, &lo, &hi);
        pf_pair_vec *v = &s->chunks.vec[c];
        uint64_t cand = 0;
        for (size_t i = lo; i < hi && !s->chunks.status[c]; i++) {
            const pf_aabb *a = &boxes[i];
            cand += n - 1 - i;
            for (size_t j = i + 1; j < n; j++)
                if (pf_aabb_overlap(a, &boxes[j]) && pf_pair_vec_push(v, (uint32_t)i, (uint32_t)j)) {
                    s->chunks.status[c] = PF_ENOMEM;
                    break;
                }
        }
        s->chunks.candidates[c] = cand;
    }
}

static int brute_pairs(void *state, const pf_broadphase_def *def, const pf_aabb *boxes, size_t n, pf_pair_vec *out,
                       pf_broadphase_stats *stats)
{
    brute_state *s = state;
    /* Rows i of the triangle in chunks of rows; several chunks per thread balance the triangle's uneven rows.
     * Each chunk writes its own buffer and the buffers are joined in row order: i-major, then j. */
    int threads = n < 2048 ? 1 : def->threads;
    int count = threads == 1 ? 1 : threads * 16;
    int rc = pf_pair_chunks_reset(&s->chunks, count);
    if (rc) return rc;
    pf_par par = pf_par_of(def);
    brute_run r = {.s = s, .boxes = boxes, .n = n, .count = count};
    atomic_init(&r.next, 0);
    pf_par_run(&par, threads, brute_worker, &r);
    rc = pf_pair_chunks_gather(&s->chunks, out, &stats->candidates);
    stats->bytes = sizeof *s + pf_pair_chunks_bytes(&s->chunks);
    return rc;
}

const pf_bp_backend pf_bp_brute_backend = {brute_create, brute_destroy, brute_pairs};
