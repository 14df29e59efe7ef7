/* The kd-tree's root cell and the cell keys of split boxes (see kd_keys.h). */
#include "kd_keys.h"

#include <math.h>
#include <string.h>

void kd_frame_fit(kd_frame *f, const pf_aabb *boxes, size_t n, int threads)
{
    double lo[3], hi[3];
    pf_boxes_bounds(boxes, n, threads, lo, hi);
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

/* The split of paper 000 §4.1 on one box, from per-axis pieces: along axis a the box is whole (variant 0) or,
 * once cut at its plane s (the highest plane its interval straddles), its low [lo, s - 1] (1) or high [s, hi] (2)
 * part. For each variant: the spread (Morton bits) of its ends and the interleaved position of the highest bit
 * where they differ (-1: equal). A node's first differing bit is the highest over its axes' variants, so its
 * cell needs no Morton code recomputed. */
typedef struct split_ctx {
    uint64_t sl[3][3], sh[3][3]; /* [axis][variant] */
    int p[3][3];
    int pbits;
    unsigned g;
} split_ctx;

static inline int diff_pos(uint32_t lo, uint32_t hi, int a)
{
    return lo == hi ? -1 : 3 * (31 - __builtin_clz(lo ^ hi)) + 2 - a;
}

/* The node whose axes are in variants v[]: its key, or (cut along its first differing axis unless `done` has it,
 * Property 1) its children's keys; Figure 7: a split that does not shrink the summed volume of the enclosing
 * cells is suppressed. Writes up to 8 keys (in key order) and returns how many. */
static int split_node(split_ctx *c, int v[3], unsigned done, uint64_t *out)
{
    int top = c->p[0][v[0]], a = 0;
    if (c->p[1][v[1]] > top) top = c->p[1][v[1]], a = 1;
    if (c->p[2][v[2]] > top) top = c->p[2][v[2]], a = 2;
    uint64_t mlo = c->sl[0][v[0]] | c->sl[1][v[1]] | c->sl[2][v[2]];
    if (top < 0) { /* a leaf cell: the full path */
        c->g = 0;
        out[0] = mlo << KD_DEPTH_BITS | (uint64_t)c->pbits;
        return 1;
    }
    uint64_t key = (mlo & ~((2ull << top) - 1)) << KD_DEPTH_BITS | (uint64_t)(c->pbits - 1 - top);
    if ((unsigned)top / 3 < c->g) c->g = (unsigned)top / 3;
    if (done >> a & 1) {
        out[0] = key; /* already cut along this axis: the box lies on its cell's boundary (Property 1) */
        return 1;
    }
    int keep = v[a];
    v[a] = 1;
    int n1 = split_node(c, v, done | 1u << a, out);
    v[a] = 2;
    int n2 = split_node(c, v, done | 1u << a, out + n1);
    v[a] = keep;
    /* children write straight into out; the parent's key replaces them when the split does not pay */
    uint64_t vol = 0, h = 1ull << (top + 1);
    for (int k = 0; k < n1 + n2; k++) vol += 1ull << (c->pbits - (int)(out[k] & ((1u << KD_DEPTH_BITS) - 1)));
    if (vol >= h) {
        out[0] = key;
        return 1;
    }
    return n1 + n2;
}

int kd_box_keys(const kd_frame *f, uint64_t ql, uint64_t qh, int split, uint64_t *out, unsigned *g)
{
    int drop = KD_QBITS - f->kbits;
    split_ctx c;
    c.pbits = f->pbits;
    c.g = 31;
    for (int a = 0; a < 3; a++) {
        uint32_t lo = kd_field(ql, a) >> drop, hi = kd_field(qh, a) >> drop;
        int sh = 2 - a;
        c.sl[a][0] = c.sl[a][1] = kd_spread20(lo) << sh;
        c.sh[a][0] = c.sh[a][2] = kd_spread20(hi) << sh;
        c.p[a][0] = diff_pos(lo, hi, a);
        c.p[a][1] = c.p[a][2] = -1;
        if (lo != hi) {
            int b = 31 - __builtin_clz(lo ^ hi);
            uint32_t s = hi >> b << b; /* hi has bit b set, lo has it clear, above they are equal */
            c.sh[a][1] = kd_spread20(s - 1) << sh;
            c.sl[a][2] = kd_spread20(s) << sh;
            c.p[a][1] = diff_pos(lo, s - 1, a);
            c.p[a][2] = diff_pos(s, hi, a);
        }
    }
    int v[3] = {0, 0, 0}, k;
    if (!split) {
        int top = c.p[0][0] > c.p[1][0] ? c.p[0][0] : c.p[1][0];
        if (c.p[2][0] > top) top = c.p[2][0];
        uint64_t mlo = c.sl[0][0] | c.sl[1][0] | c.sl[2][0];
        out[0] = top < 0 ? mlo << KD_DEPTH_BITS | (uint64_t)c.pbits
                         : (mlo & ~((2ull << top) - 1)) << KD_DEPTH_BITS | (uint64_t)(c.pbits - 1 - top);
        c.g = top < 0 ? 0 : (unsigned)top / 3;
        k = 1;
    } else {
        k = split_node(&c, v, 0, out);
    }
    *g = c.g;
    for (int r = 0; r < k; r++) out[r] <<= f->kshift;
    return k;
}
