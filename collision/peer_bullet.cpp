/* Peer broad phases from Bullet: btDbvtBroadphase ("bullet-dbvt") and bt32BitAxisSweep3 ("bullet-sap"), behind
 * the C backend interface. The broadphase object lives in the backend state from call to call: a later call with
 * the same number of boxes moves the proxies with setAabb (Bullet's incremental "dynamic step"); a different
 * number of boxes, or for the sweep a box leaving its quantisation world, rebuilds it.
 *
 * Reading Bullet's pair cache: both broadphases keep a btHashedOverlappingPairCache (no deferred removal) that
 * they update as proxies move; after calculateOverlappingPairs(NULL) its getOverlappingPairArray() holds one
 * btBroadphasePair per candidate, whose m_pProxy0/m_pProxy1->m_clientObject carry our box index + 1. The cache is
 * a superset of the true overlaps, never a subset: the dbvt tests closed, possibly enlarged leaf volumes and
 * drops stale pairs lazily (10% of the cache per call), the sweep tests quantised boxes (min rounded down, max up).
 * Both run in single precision here (Debian's build), so the boxes are handed over rounded outwards. Every
 * candidate is then checked with the exact closed-box test in double; the cache's size is stats->candidates.
 * No dispatcher is passed: no collision algorithms are attached to pairs, so none needs freeing. */
#include "peer_output.hpp"

#include <btBulletCollisionCommon.h>
#include <BulletCollision/BroadphaseCollision/btAxisSweep3.h>
#include <BulletCollision/BroadphaseCollision/btDbvt.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>

namespace {

struct bullet_state {
    bool sweep = false;                             // bt32BitAxisSweep3 rather than btDbvtBroadphase
    btBroadphaseInterface *bp = nullptr;            // the peer, created with new (Bullet's aligned operator new)
    pf_peer::vector<btBroadphaseProxy *> proxies;   // proxies[i] belongs to box i
    btVector3 world_min{0, 0, 0}, world_max{0, 0, 0}; // the sweep's quantisation bounds
    pf_peer::vector<pf_pair> cand;                  // candidates read from the pair cache
    pf_peer::vector<btVector3> lo, hi;              // the boxes rounded outwards to float
};

void release(bullet_state *st)
{
    if (!st->bp) return;
    if (st->sweep) {
        delete st->bp; // the sweep owns its handles: no per-proxy removal (each would re-sort the edge lists)
    } else {
        /* destroyProxy would also scan the whole pair cache once per proxy (O(n * pairs)); deleting the
         * broadphase frees its trees and pair cache, and the proxies are then plain btAlignedAlloc blocks. */
        delete st->bp;
        for (btBroadphaseProxy *p : st->proxies) {
            static_cast<btDbvtProxy *>(p)->~btDbvtProxy();
            btAlignedFree(p);
        }
    }
    st->bp = nullptr;
    st->proxies.clear();
}

int bullet_create(bool sweep, void **state)
{
    try {
        bullet_state *st = pf_peer::create_object<bullet_state>();
        st->sweep = sweep;
        *state = st;
        return PF_OK;
    } catch (const std::bad_alloc &) {
        return pf_error(PF_ENOMEM, "out of memory for a Bullet broad phase");
    }
}

int bullet_dbvt_create(const pf_broadphase_def *, void **state)
{
    return bullet_create(false, state);
}

int bullet_sap_create(const pf_broadphase_def *, void **state)
{
    return bullet_create(true, state);
}

void bullet_destroy(void *state)
{
    bullet_state *st = static_cast<bullet_state *>(state);
    if (!st) return;
    release(st);
    pf_peer::destroy_object(st);
}

/* The sweep quantises into 2^31 steps over its world box: pad the boxes' bounds by 1/8 of their extent (so
 * moderate motion needs no rebuild), by a relative 1e-6 and by an absolute 1e-20 (a world of positive size). */
void sweep_world(const bullet_state *st, size_t n, btVector3 &wmin, btVector3 &wmax)
{
    wmin = st->lo[0];
    wmax = st->hi[0];
    for (size_t i = 1; i < n; i++) {
        wmin.setMin(st->lo[i]);
        wmax.setMax(st->hi[i]);
    }
    for (int k = 0; k < 3; k++) {
        double a = wmin[k], b = wmax[k];
        double pad = 0.125 * (b - a) + 1e-6 * std::max(std::fabs(a), std::fabs(b)) + 1e-20;
        wmin[k] = pf_peer::float_down(a - pad);
        wmax[k] = pf_peer::float_up(b + pad);
    }
}

bool inside_world(const bullet_state *st, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            if (st->lo[i][k] < st->world_min[k] || st->hi[i][k] > st->world_max[k]) return false;
    return true;
}

size_t bullet_bytes(const bullet_state *st, size_t n)
{
    /* an estimate: Bullet's private structures are not reported by Bullet itself */
    size_t cache = 0;
    if (st->bp) {
        const btOverlappingPairCache *pc = st->bp->getOverlappingPairCache();
        cache = static_cast<size_t>(pc->getNumOverlappingPairs()) * (sizeof(btBroadphasePair) + 2 * sizeof(int));
    }
    size_t per_box = st->sweep ? sizeof(btBroadphaseProxy) + 12 * sizeof(unsigned) /* handle + 6 edges */
                               : sizeof(btDbvtProxy) + 2 * sizeof(btDbvtNode);
    return cache + n * per_box + st->proxies.capacity() * sizeof(void *) + st->cand.capacity() * sizeof(pf_pair) +
           (st->lo.capacity() + st->hi.capacity()) * sizeof(btVector3) + sizeof *st;
}

int bullet_pairs(void *state, const pf_broadphase_def *, const pf_aabb *boxes, size_t n, pf_pair_vec *out,
                 pf_broadphase_stats *stats)
{
    bullet_state *st = static_cast<bullet_state *>(state);
    if (n >= static_cast<size_t>(std::numeric_limits<int>::max()) / 2)
        return pf_error(PF_EINVAL, "%s: too many boxes for Bullet (%zu)", st->sweep ? "bullet-sap" : "bullet-dbvt",
                        n);
    try {
        st->lo.resize(n);
        st->hi.resize(n);
        for (size_t i = 0; i < n; i++) {
            st->lo[i].setValue(pf_peer::float_down(boxes[i].min[0]), pf_peer::float_down(boxes[i].min[1]),
                               pf_peer::float_down(boxes[i].min[2]));
            st->hi[i].setValue(pf_peer::float_up(boxes[i].max[0]), pf_peer::float_up(boxes[i].max[1]),
                               pf_peer::float_up(boxes[i].max[2]));
        }
        bool rebuild = !st->bp || st->proxies.size() != n || (st->sweep && !inside_world(st, n));
        if (rebuild) {
            release(st);
            if (st->sweep) {
                sweep_world(st, n, st->world_min, st->world_max);
                /* no raycast accelerator: it is a second, dbvt, broadphase we would never query */
                st->bp = new bt32BitAxisSweep3(st->world_min, st->world_max, static_cast<unsigned>(n), nullptr, true);
            } else {
                st->bp = new btDbvtBroadphase();
            }
            st->proxies.reserve(n);
            for (size_t i = 0; i < n; i++) {
                void *user = reinterpret_cast<void *>(static_cast<uintptr_t>(i) + 1);
                st->proxies.push_back(st->bp->createProxy(st->lo[i], st->hi[i], BOX_SHAPE_PROXYTYPE, user,
                                                          btBroadphaseProxy::DefaultFilter,
                                                          btBroadphaseProxy::AllFilter, nullptr));
            }
        } else {
            for (size_t i = 0; i < n; i++) st->bp->setAabb(st->proxies[i], st->lo[i], st->hi[i], nullptr);
        }
        st->bp->calculateOverlappingPairs(nullptr);

        btBroadphasePairArray &arr = st->bp->getOverlappingPairCache()->getOverlappingPairArray();
        st->cand.clear();
        st->cand.reserve(static_cast<size_t>(arr.size()));
        for (int k = 0; k < arr.size(); k++) {
            size_t a = reinterpret_cast<uintptr_t>(arr[k].m_pProxy0->m_clientObject) - 1;
            size_t b = reinterpret_cast<uintptr_t>(arr[k].m_pProxy1->m_clientObject) - 1;
            PF_ASSERT(a < n && b < n && a != b);
            st->cand.push_back(pf_peer::ordered_pair(a, b));
        }
        stats->candidates = static_cast<uint64_t>(arr.size());
        int rc = pf_peer::emit_pairs(st->cand, boxes, out);
        stats->bytes = bullet_bytes(st, n);
        return rc;
    } catch (const std::bad_alloc &) {
        release(st);
        return pf_error(PF_ENOMEM, "out of memory in the Bullet broad phase (%zu boxes)", n);
    }
}

} // namespace

extern "C" const pf_bp_backend pf_bp_bullet_dbvt_backend = {bullet_dbvt_create, bullet_destroy, bullet_pairs};
extern "C" const pf_bp_backend pf_bp_bullet_sap_backend = {bullet_sap_create, bullet_destroy, bullet_pairs};
