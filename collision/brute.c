/* The brute-force broad phase: every pair tested, the oracle every other method is checked against. */
#include "broadphase_backend.h"
#include "pair_chunks.h"

#include "base/alloc.h"
#include "base/error.h"

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
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int c = 0; c < count; c++) {
        size_t lo, hi;
        pf_chunk_range(n, count, c, &lo, &hi);
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
    rc = pf_pair_chunks_gather(&s->chunks, out, &stats->candidates);
    stats->bytes = sizeof *s + pf_pair_chunks_bytes(&s->chunks);
    return rc;
}

const pf_bp_backend pf_bp_brute_backend = {brute_create, brute_destroy, brute_pairs};
