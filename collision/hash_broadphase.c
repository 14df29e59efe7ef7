/* The hierarchical (Pouchol et al. 2009, §3) and multilevel (§2.2) hash broad phases: build the spatial hash over
 * the boxes, then each box searches it for the partners it is responsible for (see pf_shash_pairs). */
#include "broadphase_backend.h"
#include "spatial_hash.h"

#include "base/alloc.h"
#include "base/error.h"

typedef struct hash_bp {
    pf_shash hash;
    pf_shash_pairs_ws ws;
} hash_bp;

static int hash_bp_create(const pf_broadphase_def *def, void **state)
{
    (void)def;
    *state = pf_calloc(1, sizeof(hash_bp));
    return *state ? PF_OK : pf_error(PF_ENOMEM, "out of memory for a hash broad phase");
}

static void hash_bp_destroy(void *state)
{
    hash_bp *h = state;
    if (!h) return;
    pf_shash_free(&h->hash);
    pf_shash_pairs_ws_free(&h->ws);
    pf_free(h);
}

/* Shared by hhash and mlhash: only the structure's kind differs. */
static int hash_bp_pairs(hash_bp *h, int kind, const pf_broadphase_def *def, const pf_aabb *boxes, size_t n,
                         pf_pair_vec *out, pf_broadphase_stats *stats)
{
    int rc = pf_shash_build(&h->hash, kind, boxes, n, 0.0);
    pf_par par = pf_par_of(def);
    if (!rc) rc = pf_shash_pairs(&h->ws, &h->hash, &par, out, &stats->candidates);
    stats->bytes = pf_shash_bytes(&h->hash) + pf_shash_pairs_ws_bytes(&h->ws);
    h->hash.boxes = NULL; /* borrowed for this call only */
    return rc;
}

static int hhash_pairs(void *state, const pf_broadphase_def *def, const pf_aabb *boxes, size_t n,
                       pf_pair_vec *out, pf_broadphase_stats *stats)
{
    return hash_bp_pairs(state, PF_SHASH_HIER, def, boxes, n, out, stats);
}

static int mlhash_pairs(void *state, const pf_broadphase_def *def, const pf_aabb *boxes, size_t n,
                        pf_pair_vec *out, pf_broadphase_stats *stats)
{
    return hash_bp_pairs(state, PF_SHASH_MULTI, def, boxes, n, out, stats);
}

const pf_bp_backend pf_bp_hhash_backend = {hash_bp_create, hash_bp_destroy, hhash_pairs};
const pf_bp_backend pf_bp_mlhash_backend = {hash_bp_create, hash_bp_destroy, mlhash_pairs};
