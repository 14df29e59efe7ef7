/* The kd-tree's root cell and the cell keys of split boxes (see kd_keys.h). */
#include "kd_keys.h"

#include <math.h>
#include <string.h>

void kd_frame_fit(kd_frame *f, const pf_aabb *boxes, size_t n, const pf_par *par)
{
    double lo[3], hi[3];
    pf_boxes_bounds(boxes, n, par, lo, hi);
    memset(f, 0, sizeof *f);
    double e = hi[0] - lo[0];
    if (hi[1] - lo[1] > e) e = hi[1] - lo[1];
    if (hi[2] - lo[2] > e) e = hi[2] - lo[2];
    for (int a = 0; a < 3; a++) f->origin[a] = lo[a];
    if (e > 0.0 && isfinite(e)) {
        /* root edge 2E with E the power of two >= e, corner on a multiple of E: the boxes fit */
        int ex;
        frexp(e, &ex);
        double E = ldexp(1.0, ex), s = ldexp(1.0, KD_QBITS - ex - 1), o[3];
        int ok = s > 0.0 && isfinite(s);
        for (int a = 0; a < 3; a++) {
            o[a] = floor(lo[a] / E) * E;
            ok &= isfinite(o[a]) && o[a] <= lo[a];
        }
        if (ok) {
            memcpy(f->origin, o, sizeof o);
            f->scale = s;
        }
    }
    /* box indices take rbits of a record; the key (3 kbits + 1 bits) the rest */
    int rbits = n > 1 ? 64 - __builtin_clzll((unsigned long long)(n - 1)) : 1;
    int kb = (64 - KD_DEPTH_BITS - rbits) / 3;
    f->kbits = kb < KD_QBITS ? kb : KD_QBITS;
    f->pbits = 3 * f->kbits;
    f->kshift = 64 - KD_DEPTH_BITS - f->pbits;
    int drop = KD_QBITS - f->kbits;
    for (int g = 0; g <= 20; g++) {
        int sh = g + drop;
        uint64_t field = sh >= KD_QBITS ? 0 : (uint64_t)(KD_QMAX >> sh) << sh;
        f->gmask[g] = field << 42 | field << 21 | field;
    }
}

int kd_frame_equal(const kd_frame *a, const kd_frame *b)
{
    return a->origin[0] == b->origin[0] && a->origin[1] == b->origin[1] && a->origin[2] == b->origin[2] &&
           a->scale == b->scale && a->kbits == b->kbits;
}

/* The split of Poirrier 2009, §4.1 on one box, computed as a whole tree.
 *
 * A box is cut at most once per axis, at the highest plane its interval straddles, and a node is cut along
 * the axis of its highest differing bit unless that axis is already cut (the node then lies on its cell's
 * boundary, Property 1). In the Morton codes of the box's corners the highest differing bit of each axis is a
 * distinct position; rank the axes by it. The parts of a cut axis differ only below that position, so in a
 * node at depth d (cut along the axes ranked 0 .. d-1) an uncut axis differs at most at the position of the
 * axis ranked d: the node is cut along that axis when its position is above those of its cut axes' parts, and
 * is final otherwise. Every box thus has the same tree, a root, 2 children, 4 grandchildren and 8
 * great-grandchildren (the leaves), each visited or not. Following the recursion costs 2-3 unpredictable
 * branches per node (about 15 nodes per box on the benchmark's boxes: 110 ns per box); here the whole tree is
 * computed without a branch (35 ns), the leaves' cells in eight byte lanes of a word.
 *
 * Positions are bit lengths u (the highest differing bit's position + 1; 0: the ends are equal, a cell has
 * 2^u leaf cells). Per rank d: U[d] of the box (U[0] > U[1] > U[2], or 0), and of the axis's low and high
 * part a[v], b[w], c[x] for d = 0, 1, 2, each at most U[d] - 3 (or 0). The node (v) has m = a[v], (v, w) has
 * m = max(a[v], b[w]), the leaf (v, w, x) m = max(a[v], b[w], c[x]); a node at depth d is cut when U[d] > m
 * and then has u = U[d], else u = m.
 *
 * Figure 7 suppresses a split when the children's summed cell volume is not below the parent's. A cut node's
 * children have u <= U[d] - 1, so the sum reaches 2^U[d] only when both are "full": u = U[d] - 1 and their
 * own split not kept. Their u is max(m, U[d + 1], the bit length of their part), which is below U[d] - 2, so:
 *  - a grandchild's split is kept when max(a[v], b[w]) + 1 < U[2] (its leaves then have u <= U[2] - 2);
 *  - a child's, when a[v] + 1 < U[1] and not both grandchildren full; they are when U[2] = U[1] - 1 (or
 *    a[v] = U[1] - 1), and then a grandchild's split is kept when a[v] < U[1] - 2: a[v] + 1 + e < U[1] with
 *    e = (U[2] + 1 == U[1]);
 *  - the root's, when U[0] > 0 and not both children full: unless U[1] = U[0] - 1, kept; otherwise kept when
 *    one child's is, min(a) + 1 + e < U[1].
 * The lowest level read (*g) is the least u of the final nodes visited: the m of a node that is not cut is at
 * least the U and parts' bit lengths of the ranks below, so that least u is max(min a, min b, min c).
 *
 * The kept cells cover the leaves, each a run of them, and a cell's low corner is its first leaf's: per leaf,
 * the u of the kept cell over it and whether it is that cell's first leaf; their keys compacted in leaf order
 * are the keys in pre-order (key order). */
typedef struct split_plan {
    int u[3];         /* by rank d: U[d], the bit length of the box's differing bits along the axis */
    int part[3][2];   /* by rank: the bit lengths of the low part's (plane side all ones) and high part's */
    uint64_t flip[3]; /* by rank: XOR that takes a low corner to its high part's (the plane) */
} split_plan;

static inline int imax(int a, int b)
{
    return a > b ? a : b;
}

static inline int imin(int a, int b)
{
    return a < b ? a : b;
}

/* Eight small numbers (below 128), one per byte: lane j of a word belongs to leaf j = 4v + 2w + x. */
#define LANES 0x0101010101010101ull
#define LANE_HIGHS 0x8080808080808080ull

/* Per lane, 0xff where x >= y, else 0. */
static inline uint64_t lanes_ge(uint64_t x, uint64_t y)
{
    uint64_t h = ((x | LANE_HIGHS) - y) & LANE_HIGHS; /* no borrow crosses a lane */
    return (h - (h >> 7)) | h;
}

/* Per lane, mask ? x : y. */
static inline uint64_t lanes_pick(uint64_t mask, uint64_t x, uint64_t y)
{
    return y ^ ((x ^ y) & mask);
}

static inline uint64_t lanes_max(uint64_t x, uint64_t y)
{
    return lanes_pick(lanes_ge(x, y), x, y);
}

/* high_bits[n] = ~0 << n, for n = 0 .. 64. */
#define HIGH_BITS4(n) ~0ull << (n), ~0ull << ((n) + 1), ~0ull << ((n) + 2), ~0ull << ((n) + 3)
#define HIGH_BITS16(n) HIGH_BITS4(n), HIGH_BITS4((n) + 4), HIGH_BITS4((n) + 8), HIGH_BITS4((n) + 12)
static const uint64_t high_bits[65] = {HIGH_BITS16(0), HIGH_BITS16(16), HIGH_BITS16(32), HIGH_BITS16(48), 0};

/* Lanes holding p[0] where the leaf's bit `bit` (4: v, 2: w, 1: x) is 0 and p[1] where it is 1. */
static inline uint64_t lanes_of(const int p[2], int bit)
{
    uint64_t ones = bit == 4   ? 0x0101010100000000ull
                    : bit == 2 ? 0x0101000001010000ull
                               : 0x0100010001000100ull;
    return (uint64_t)p[0] * (LANES ^ ones) + (uint64_t)p[1] * ones;
}

/* Bit length of x < 2^63: the position of its highest set bit + 1, 0 for x = 0 (63 ^ clz is one bit scan). */
static inline int bitlen(uint64_t x)
{
    return 63 ^ __builtin_clzll(2 * x + 1);
}

/* The bits at and below position u - 1 of that position's axis (every third bit), 0 for u = 0; u <= 60. */
static inline uint64_t axis_bits(int u)
{
    return 0x4924924924924924ull >> (63 - u); /* bits 62, 59, ..., 2 */
}

/* The plan of the box whose corners have Morton codes lo and hi on the key grid. */
static inline void split_plan_init(split_plan *s, uint64_t lo, uint64_t hi)
{
    uint64_t diff = lo ^ hi; /* the differing bits of the axes not ranked yet */
    for (int d = 0; d < 3; d++) {
        s->u[d] = bitlen(diff);
        uint64_t axis = axis_bits(s->u[d]), below = axis >> 3;
        diff &= ~axis;
        s->part[d][0] = bitlen(~lo & below);
        s->part[d][1] = bitlen(hi & below);
        s->flip[d] = (lo & below) | (axis & ~below);
    }
}

/* The key of the cell of bit length u over the point `path`. */
static inline uint64_t split_key(int pbits, uint64_t path, int u)
{
    return (path & ~0ull << u) << KD_DEPTH_BITS | (uint64_t)(pbits - u);
}

int kd_box_keys(const kd_frame *f, uint64_t ql, uint64_t qh, int split, uint64_t *out, unsigned *g)
{
    int drop = KD_QBITS - f->kbits;
    uint64_t lo = kd_corner_morton(ql, drop), hi = kd_corner_morton(qh, drop);
    if (!split) {
        int u = bitlen(lo ^ hi);
        out[0] = split_key(f->pbits, lo, u) << f->kshift;
        *g = (unsigned)imax(u - 1, 0) / 3;
        return 1;
    }
    split_plan s;
    split_plan_init(&s, lo, hi);
    const int *U = s.u, *a = s.part[0], *b = s.part[1], *c = s.part[2];
    int e = U[2] + 1 == U[1];
    int keep0 = (U[0] > 0) & ((U[1] + 1 != U[0]) | (imin(a[0], a[1]) + 1 + e < U[1]));
    /* per leaf (one lane each): its nodes' parts, whether they keep their splits, the u of its kept cell */
    uint64_t la = lanes_of(a, 4), lb = lanes_of(b, 2), lc = lanes_of(c, 1);
    uint64_t keep_0 = 0 - (uint64_t)keep0;
    uint64_t keep_1 = keep_0 & ~lanes_ge(la + (uint64_t)(1 + e) * LANES, (uint64_t)U[1] * LANES);
    uint64_t keep_2 = keep_1 & ~lanes_ge(lanes_max(la, lb) + LANES, (uint64_t)U[2] * LANES);
    uint64_t cell_u = lanes_max(lanes_max(lanes_pick(keep_0, la, (uint64_t)U[0] * LANES),
                                          lanes_pick(keep_1, lb, (uint64_t)U[1] * LANES)),
                                lanes_pick(keep_2, lc, (uint64_t)U[2] * LANES));
    /* a leaf is its cell's first when it is the high part of a kept split (leaf 0: the root's first) */
    uint64_t first = (0x01ull | (keep_0 & 0x0100000000ull) | (keep_1 & 0x0001000000010000ull) |
                      (keep_2 & 0x0100010001000100ull));
    /* the keys in leaf order, each at the count of first leaves before it (a prefix sum per lane), so that a
     * leaf that is not first is overwritten by the next first one; a record key holds path << sh */
    int sh = KD_DEPTH_BITS + f->kshift, top = f->pbits + sh; /* a cell's depth: top - (u + sh) */
    uint64_t at = cell_u + (uint64_t)sh * LANES, slot = first * LANES << 8; /* u + sh <= pbits + sh = 64 */
    uint64_t flip[3] = {s.flip[0] << sh, s.flip[1] << sh, s.flip[2] << sh};
    for (int j = 0; j < 8; j++, at >>= 8, slot >>= 8) {
        uint64_t path = lo << sh ^ (j & 4 ? flip[0] : 0) ^ (j & 2 ? flip[1] : 0) ^ (j & 1 ? flip[2] : 0);
        int n = (int)(at & 0xff);
        out[slot & 0xff] = (path & high_bits[n]) | (uint64_t)(top - n) << f->kshift;
    }
    int low = imax(imax(imin(a[0], a[1]), imin(b[0], b[1])), imin(c[0], c[1]));
    *g = (unsigned)imax(low - 1, 0) / 3;
    return (int)(first * LANES >> 56);
}
