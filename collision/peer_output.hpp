/* Shared by the peer broad-phase wrappers (peer_bullet.cpp, peer_cgal.cpp): an allocator that goes through the
 * PhysFlow allocation hook, the exact closed-box test, conservative float rounding, and the sorted output. */
#ifndef PF_COLLISION_PEER_OUTPUT_HPP
#define PF_COLLISION_PEER_OUTPUT_HPP

extern "C" {
#include "broadphase_backend.h"
#include "base/alloc.h"
#include "base/error.h"
}

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <vector>

namespace pf_peer {

/* std::allocator replacement over pf_malloc/pf_free, so the wrappers' own buffers honour the host's hook (the
 * peers' internal allocations do not: Bullet and CGAL use their own). */
template <class T> struct allocator {
    using value_type = T;
    allocator() = default;
    template <class U> allocator(const allocator<U> &) noexcept {}
    T *allocate(std::size_t n)
    {
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_alloc();
        void *p = pf_malloc(n * sizeof(T));
        if (!p) throw std::bad_alloc();
        return static_cast<T *>(p);
    }
    void deallocate(T *p, std::size_t) noexcept { pf_free(p); }
};
template <class T, class U> bool operator==(const allocator<T> &, const allocator<U> &) { return true; }
template <class T, class U> bool operator!=(const allocator<T> &, const allocator<U> &) { return false; }

template <class T> using vector = std::vector<T, allocator<T>>;

/* Creates / destroys an object in pf_malloc'd memory. */
template <class T> T *create_object()
{
    void *p = pf_malloc(sizeof(T));
    if (!p) throw std::bad_alloc();
    return new (p) T();
}
template <class T> void destroy_object(T *p)
{
    if (!p) return;
    p->~T();
    pf_free(p);
}

/* The interface's box test: closed boxes, touching counts. */
inline bool closed_overlap(const pf_aabb &a, const pf_aabb &b)
{
    return a.min[0] <= b.max[0] && b.min[0] <= a.max[0] && a.min[1] <= b.max[1] && b.min[1] <= a.max[1] &&
           a.min[2] <= b.max[2] && b.min[2] <= a.max[2];
}

/* Conservative float bounds for single-precision peers (Debian's Bullet): the lower bound rounds down and the
 * upper bound rounds up, so no overlap of the double boxes is lost. Coordinates are first clamped to +-1e30,
 * a monotonic map (it keeps every overlap) that keeps the peers' arithmetic finite. */
constexpr double float_clamp = 1e30;
inline float float_down(double x)
{
    x = std::min(std::max(x, -float_clamp), float_clamp);
    float f = static_cast<float>(x);
    if (static_cast<double>(f) > x) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    return f;
}
inline float float_up(double x)
{
    x = std::min(std::max(x, -float_clamp), float_clamp);
    float f = static_cast<float>(x);
    if (static_cast<double>(f) < x) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
}

/* Sorts the peer's candidates (each already i < j) by (i, j), drops duplicates and pairs that fail the exact
 * closed-box test, and appends the rest to `out`: the output is then the same set in the same order as brute's,
 * whatever order the peer produced. */
inline int emit_pairs(vector<pf_pair> &cand, const pf_aabb *boxes, pf_pair_vec *out)
{
    std::sort(cand.begin(), cand.end(),
              [](const pf_pair &a, const pf_pair &b) { return a.i < b.i || (a.i == b.i && a.j < b.j); });
    int rc = pf_pair_vec_reserve(out, out->n + cand.size());
    if (rc) return rc;
    for (std::size_t k = 0; k < cand.size(); k++) {
        const pf_pair &p = cand[k];
        if (k > 0 && cand[k - 1].i == p.i && cand[k - 1].j == p.j) continue;
        if (closed_overlap(boxes[p.i], boxes[p.j])) out->data[out->n++] = p;
    }
    return PF_OK;
}

inline pf_pair ordered_pair(std::size_t a, std::size_t b)
{
    pf_pair p;
    p.i = static_cast<uint32_t>(std::min(a, b));
    p.j = static_cast<uint32_t>(std::max(a, b));
    return p;
}

} // namespace pf_peer

#endif
