/* Per-thread pair buffers of the parallel broad phases (see pair_chunks.h). */
#include "pair_chunks.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

int pf_pair_chunks_reset(pf_pair_chunks *c, int count)
{
    if (count > c->count) {
        pf_pair_vec *v = pf_realloc(c->vec, (size_t)c->count * sizeof *v, (size_t)count * sizeof *v);
        if (!v) return pf_error(PF_ENOMEM, "out of memory for %d pair buffers", count);
        memset(v + c->count, 0, (size_t)(count - c->count) * sizeof *v);
        c->vec = v;
        uint64_t *cand = pf_realloc(c->candidates, (size_t)c->count * sizeof *cand, (size_t)count * sizeof *cand);
        if (!cand) return pf_error(PF_ENOMEM, "out of memory for %d pair buffers", count);
        c->candidates = cand;
        int *st = pf_realloc(c->status, (size_t)c->count * sizeof *st, (size_t)count * sizeof *st);
        if (!st) return pf_error(PF_ENOMEM, "out of memory for %d pair buffers", count);
        c->status = st;
        c->count = count;
    }
    for (int k = 0; k < c->count; k++) {
        c->vec[k].n = 0;
        c->candidates[k] = 0;
        c->status[k] = PF_OK;
    }
    return PF_OK;
}

int pf_pair_chunks_gather(pf_pair_chunks *c, pf_pair_vec *out, uint64_t *candidates)
{
    size_t total = out->n;
    for (int k = 0; k < c->count; k++) {
        if (c->status[k]) return pf_error(PF_ENOMEM, "out of memory for candidate pairs");
        total += c->vec[k].n;
        *candidates += c->candidates[k];
    }
    int rc = pf_pair_vec_reserve(out, total);
    if (rc) return rc;
    for (int k = 0; k < c->count; k++) {
        if (c->vec[k].n) memcpy(out->data + out->n, c->vec[k].data, c->vec[k].n * sizeof(pf_pair));
        out->n += c->vec[k].n;
    }
    return PF_OK;
}

typedef struct gather_run {
    const pf_pair_chunks *c;
    pf_pair *dst;
    size_t at[65]; /* per chunk: its offset in dst (chunks beyond 64: the caller copies them) */
} gather_run;

static void gather_part(void *ctx, int k, int parts)
{
    (void)parts;
    const gather_run *g = ctx;
    size_t n = g->c->vec[k].n;
    if (n) memcpy(g->dst + g->at[k], g->c->vec[k].data, n * sizeof(pf_pair));
}

int pf_pair_chunks_gather_par(pf_pair_chunks *c, pf_pair_vec *out, uint64_t *candidates, const pf_par *par)
{
    if (c->count > 64 || !par || par->workers <= 1) return pf_pair_chunks_gather(c, out, candidates);
    gather_run g;
    size_t total = out->n;
    for (int k = 0; k < c->count; k++) {
        if (c->status[k]) return pf_error(PF_ENOMEM, "out of memory for candidate pairs");
        g.at[k] = total;
        total += c->vec[k].n;
        *candidates += c->candidates[k];
    }
    int rc = pf_pair_vec_reserve(out, total);
    if (rc) return rc;
    g.c = c;
    g.dst = out->data;
    pf_par_for(par, c->count, gather_part, &g);
    out->n = total;
    return PF_OK;
}

size_t pf_pair_chunks_bytes(const pf_pair_chunks *c)
{
    size_t b = (size_t)c->count * (sizeof(pf_pair_vec) + sizeof(uint64_t) + sizeof(int));
    for (int k = 0; k < c->count; k++) b += c->vec[k].cap * sizeof(pf_pair);
    return b;
}

void pf_pair_chunks_free(pf_pair_chunks *c)
{
    for (int k = 0; k < c->count; k++) pf_pair_vec_free(&c->vec[k]);
    pf_free(c->vec);
    pf_free(c->candidates);
    pf_free(c->status);
    memset(c, 0, sizeof *c);
}
