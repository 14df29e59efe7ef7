/* Quantisation of coordinates to 21-bit integers and their interleaving into 63-bit Morton (locational) codes. */
#ifndef PF_COLLISION_MORTON_H
#define PF_COLLISION_MORTON_H

#include "physflow/collision.h"
#include "parallel.h"

#include <stdint.h>

#define PF_MORTON_BITS 21
#define PF_MORTON_MAXQ ((1u << PF_MORTON_BITS) - 1u)

/* Poirrier 2009, §5.2: a' = floor((a - a0) 2^B / (a1 - a0)); one cubic root cell for the three axes (so that the
 * cells stay cubes whatever the boxes' spread, and a flat set of boxes keeps a usable scale). */
typedef struct pf_quantiser {
    double origin[3];
    double scale; /* 2^B / root edge; 0 when every box is one point */
} pf_quantiser;

/* Monotone in x: x <= y gives q(x) <= q(y), so a point common to two boxes quantises into both quantised
 * boxes; the exactness of every quantised filter rests on this. Requires x >= origin. */
static inline uint32_t pf_quantise(const pf_quantiser *q, int axis, double x)
{
    double t = (x - q->origin[axis]) * q->scale; /* x - origin may overflow to +inf: clamped below */
    if (t >= (double)PF_MORTON_MAXQ) return PF_MORTON_MAXQ;
    if (!(t > 0)) return 0; /* also inf * 0 when every box is one point */
    return (uint32_t)t;
}

/* Spreads the 21 low bits of x to every third bit. */
static inline uint64_t pf_morton_spread(uint64_t x)
{
    x &= 0x1fffffu;
    x = (x | x << 32) & 0x1f00000000ffffull;
    x = (x | x << 16) & 0x1f0000ff0000ffull;
    x = (x | x << 8) & 0x100f00f00f00f00full;
    x = (x | x << 4) & 0x10c30c30c30c30c3ull;
    x = (x | x << 2) & 0x1249249249249249ull;
    return x;
}

/* Interleaves (x, y, z) with x in the most significant position of each triple: bit 3b + 2 - a holds bit b of
 * axis a, so cutting planes go x, y, z from the root down (Poirrier 2009, §5.2, Figure 8). */
static inline uint64_t pf_morton3(uint32_t x, uint32_t y, uint32_t z)
{
    return pf_morton_spread(x) << 2 | pf_morton_spread(y) << 1 | pf_morton_spread(z);
}

/* The bounds of n >= 1 boxes: lo = the least min per axis, hi = the greatest max. */
void pf_boxes_bounds(const pf_aabb *boxes, size_t n, const pf_par *par, double lo[3], double hi[3]);

/* Computes the quantiser of a set of boxes (n >= 1): origin at the lower corner of their bounds, a cubic root cell
 * of edge the bounds' largest extent. */
void pf_quantiser_fit(pf_quantiser *q, const pf_aabb *boxes, size_t n, const pf_par *par);
/* The same from the bounds of the boxes. */
void pf_quantiser_from_bounds(pf_quantiser *q, const double lo[3], const double hi[3]);

#endif
