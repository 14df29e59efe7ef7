/* The kd-tree's geometry (Poirrier 2009, §4-5): the root cell and quantisation, packed quantised boxes, cell keys of
 * split boxes and the records that carry them. Private to collision/kdtree.c. */
#ifndef PF_COLLISION_KD_KEYS_H
#define PF_COLLISION_KD_KEYS_H

#include "morton.h"

#include <stdint.h>

/* Quantised coordinates have 20 bits; a box corner packs its three in one word, x high, each field followed by
 * a zero guard bit (bits 20, 41, 62), so that field-wise comparisons are two subtractions (kdtree.c). */
#define KD_QBITS 20
#define KD_QMAX ((1u << KD_QBITS) - 1u)
#define KD_GUARDS (1ull << 20 | 1ull << 41 | 1ull << 62)

/* The frame of one call: a cubic root cell whose edge is a power of two and whose corner lies on a multiple of
 * half that edge (so it changes only when the boxes' bounds cross such a multiple, or their extent a power of
 * two), and the key grid: the top `kbits` of the 20 quantised bits per axis, as many as fit beside a box index
 * in one 64-bit record. A cell key (3 kbits + 6 bits) is the cell's path from the root (Poirrier 2009, §5.1) padded
 * with zeros to 3 kbits, then its depth in 6 bits: sorted keys list the cells in pre-order (Poirrier 2009, §5.4,
 * Properties 2-4), and the subtree of a cell with padded path P and depth d is every key whose padded path lies
 * in [P, P + 2^(3 kbits - d)). A record is `key << kshift | box`. */
typedef struct kd_frame {
    double origin[3];
    double scale;       /* 2^20 / root edge; 0 when every box is one point */
    int kbits;          /* bits per axis of the key grid, at most 20 */
    int pbits;          /* 3 kbits: bits of a full path */
    int kshift;         /* 64 - (pbits + 6) */
    uint64_t gmask[21]; /* gmask[g]: the packed bits at or above key-grid level g */
} kd_frame;

#define KD_DEPTH_BITS 6

/* Fits the frame to n >= 1 boxes. */
void kd_frame_fit(kd_frame *f, const pf_aabb *boxes, size_t n, const pf_par *par);
int kd_frame_equal(const kd_frame *a, const kd_frame *b);

/* Writes the records (key << kshift, box bits left 0) of the box with packed quantised corners (ql, qh): up to 8
 * when `split` (Poirrier 2009, §4.1: cut once per axis, Figure 7's suppression), else 1, in key order. *g receives the
 * lowest key-grid level the computation read: a box whose corners keep their bits at and above it keeps its
 * keys. Writes up to 8 entries of out even when it returns fewer. Returns the count. */
int kd_box_keys(const kd_frame *f, uint64_t ql, uint64_t qh, int split, uint64_t *out, unsigned *g);

static inline uint64_t kd_low_mask(const kd_frame *f)
{
    return (1ull << f->kshift) - 1;
}

/* The cell of key k as leaf cells: the padded path and the span 2^(pbits - depth). */
static inline uint64_t kd_key_path(uint64_t k)
{
    return k >> KD_DEPTH_BITS;
}

static inline uint64_t kd_key_span(const kd_frame *f, uint64_t k)
{
    return 1ull << (f->pbits - (int)(k & ((1u << KD_DEPTH_BITS) - 1)));
}

/* Is the point of full path (Morton code) pk inside the cell of key k? */
static inline int kd_cell_contains(const kd_frame *f, uint64_t k, uint64_t pk)
{
    return pk - kd_key_path(k) < kd_key_span(f, k);
}

/* Spread of 8 bits to every third bit (the table below is built from it). */
#define KD_SPREAD8(v)                                                                                             \
    (((v) & 1u) | ((v) & 2u) << 2 | ((v) & 4u) << 4 | ((v) & 8u) << 6 | ((v) & 16u) << 8 | ((v) & 32u) << 10 |     \
     ((v) & 64u) << 12 | ((v) & 128u) << 14)

/* Spread of 10 bits to every third bit, by table: a corner's Morton code takes 6 lookups. */
#define KD_SPREAD10(v) (KD_SPREAD8((v) & 255u) | ((v) & 256u) << 16 | ((v) & 512u) << 18)
#define KD_SPREAD10_4(v) KD_SPREAD10(v), KD_SPREAD10((v) + 1u), KD_SPREAD10((v) + 2u), KD_SPREAD10((v) + 3u)
#define KD_SPREAD10_16(v) KD_SPREAD10_4(v), KD_SPREAD10_4((v) + 4u), KD_SPREAD10_4((v) + 8u), KD_SPREAD10_4((v) + 12u)
#define KD_SPREAD10_64(v) KD_SPREAD10_16(v), KD_SPREAD10_16((v) + 16u), KD_SPREAD10_16((v) + 32u), KD_SPREAD10_16((v) + 48u)
#define KD_SPREAD10_256(v)                                                                                      \
    KD_SPREAD10_64(v), KD_SPREAD10_64((v) + 64u), KD_SPREAD10_64((v) + 128u), KD_SPREAD10_64((v) + 192u)
static const uint32_t kd_spread10[1024] = {KD_SPREAD10_256(0u), KD_SPREAD10_256(256u), KD_SPREAD10_256(512u),
                                        KD_SPREAD10_256(768u)};

/* The Morton code (x most significant, as pf_morton3) of a packed quantised corner, with its low `drop` bits
 * per axis dropped. */
static inline uint64_t kd_corner_morton(uint64_t q, int drop)
{
    uint64_t low = (uint64_t)kd_spread10[q >> 42 & 1023] << 2 | (uint64_t)kd_spread10[q >> 21 & 1023] << 1 |
                   kd_spread10[q & 1023];
    uint64_t high = (uint64_t)kd_spread10[q >> 52 & 1023] << 2 | (uint64_t)kd_spread10[q >> 31 & 1023] << 1 |
                    kd_spread10[q >> 10 & 1023];
    return (high << 30 | low) >> 3 * drop;
}

static inline uint32_t kd_field(uint64_t p, int axis)
{
    return (uint32_t)(p >> (42 - 21 * axis)) & KD_QMAX;
}

/* Monotone in x (x <= y gives q(x) <= q(y)): a point common to two boxes quantises into both. */
static inline uint32_t kd_quantise(const kd_frame *f, int axis, double x)
{
    double t = (x - f->origin[axis]) * f->scale; /* inf * 0 for boxes spread past DBL_MAX: NaN, caught below */
    if (t >= (double)KD_QMAX) return KD_QMAX;
    if (!(t > 0)) return 0;
    return (uint32_t)t;
}

static inline void kd_quantise_box(const kd_frame *f, const pf_aabb *b, uint64_t *ql, uint64_t *qh)
{
    *ql = (uint64_t)kd_quantise(f, 0, b->min[0]) << 42 | (uint64_t)kd_quantise(f, 1, b->min[1]) << 21 |
          kd_quantise(f, 2, b->min[2]);
    *qh = (uint64_t)kd_quantise(f, 0, b->max[0]) << 42 | (uint64_t)kd_quantise(f, 1, b->max[1]) << 21 |
          kd_quantise(f, 2, b->max[2]);
}

#endif
