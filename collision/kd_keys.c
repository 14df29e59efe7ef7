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

/* paper 000 §5.3: the cell of a box is the longest common prefix of its corners' codes (one bit scan), as a key
 * (see kd_frame). */
static inline uint64_t cell_key(int pbits, uint64_t mlo, uint64_t mhi)
{
    uint64_t x = mlo ^ mhi;
    if (!x) return mlo << KD_DEPTH_BITS | (uint64_t)pbits; /* a leaf cell: the full path */
    int p = 63 - __builtin_clzll(x);
    return (mlo & ~((2ull << p) - 1)) << KD_DEPTH_BITS | (uint64_t)(pbits - 1 - p);
}

/* The key-grid level a node's key depends down to: that of its first differing bit (a leaf reads every bit). */
static inline unsigned node_level(uint64_t mlo, uint64_t mhi)
{
    uint64_t x = mlo ^ mhi;
    return x ? (unsigned)(63 - __builtin_clzll(x)) / 3 : 0;
}

/* paper 000 §4.1: split a box along the cutting plane its corners straddle, at most once per axis (`done` holds
 * the axes already cut); Figure 7: a split that does not shrink the summed volume of the enclosing cells is
 * suppressed. Writes up to 8 keys to out (in key order) and returns how many. Corners are key-grid coordinates
 * (lo, hi) with their Morton codes (mlo, mhi); *g takes the minimum level read. */
static int split_box(const kd_frame *f, const uint32_t lo[3], const uint32_t hi[3], uint64_t mlo, uint64_t mhi,
                     unsigned done, uint64_t *out, unsigned *g)
{
    uint64_t x = mlo ^ mhi;
    uint64_t key = cell_key(f->pbits, mlo, mhi);
    unsigned lev = node_level(mlo, mhi);
    if (lev < *g) *g = lev;
    if (!x) {
        out[0] = key;
        return 1;
    }
    int p = 63 - __builtin_clzll(x);
    int a = 2 - p % 3, b = p / 3;
    if (done >> a & 1) {
        out[0] = key; /* already cut along this axis: the box lies on its cell's boundary (Property 1) */
        return 1;
    }
    uint32_t s = (hi[a] >> b) << b; /* the cutting plane: hi has bit b set, lo has it clear, above are equal */
    int shift = 2 - a;
    uint64_t amask = 0x1249249249249249ull << shift;
    uint32_t lhi[3] = {hi[0], hi[1], hi[2]};
    uint32_t ulo[3] = {lo[0], lo[1], lo[2]};
    lhi[a] = s - 1;
    ulo[a] = s;
    uint64_t mlhi = (mhi & ~amask) | pf_morton_spread(s - 1) << shift;
    uint64_t mulo = (mlo & ~amask) | pf_morton_spread(s) << shift;
    /* children write straight into out; the parent's key replaces them when the split does not pay */
    int n1 = split_box(f, lo, lhi, mlo, mlhi, done | 1u << a, out, g);
    int n2 = split_box(f, ulo, hi, mulo, mhi, done | 1u << a, out + n1, g);
    uint64_t vol = 0, h = kd_key_span(f, key);
    for (int k = 0; k < n1 + n2; k++) vol += kd_key_span(f, out[k]);
    if (vol >= h) {
        out[0] = key;
        return 1;
    }
    return n1 + n2;
}

int kd_box_keys(const kd_frame *f, uint64_t ql, uint64_t qh, int split, uint64_t *out, unsigned *g)
{
    int drop = KD_QBITS - f->kbits;
    uint32_t lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = kd_field(ql, a) >> drop;
        hi[a] = kd_field(qh, a) >> drop;
    }
    uint64_t mlo = pf_morton3(lo[0], lo[1], lo[2]), mhi = pf_morton3(hi[0], hi[1], hi[2]);
    int k;
    if (!split) {
        out[0] = cell_key(f->pbits, mlo, mhi);
        *g = node_level(mlo, mhi);
        k = 1;
    } else {
        *g = 31;
        k = split_box(f, lo, hi, mlo, mhi, 0, out, g);
    }
    for (int r = 0; r < k; r++) out[r] <<= f->kshift;
    return k;
}
