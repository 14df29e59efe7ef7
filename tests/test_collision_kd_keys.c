/* Check suite of kd_box_keys (collision/kd_keys.c), the cell keys of one quantised box for the linear
 * kd-tree: its branch-free split must give exactly what the recursion of Poirrier 2009, §4.1 gives (the oracle
 * below, written plainly): the same count, the same keys in the same order and the same lowest level read, on
 * random boxes of every size and key-grid resolution and on boxes whose ends or planes sit on bit boundaries,
 * split on and off. */
#include "check_main.h"
#include "rng.h"

#include "collision/kd_keys.h"

#include <stdint.h>
#include <string.h>

/* ---- the oracle: the recursive split ---- */

typedef struct ref_ctx {
    uint64_t sl[3][3]; /* [axis][variant]: Morton bits of the low end; 0 whole, 1 low part, 2 high part */
    int p[3][3];       /* interleaved position of the highest bit where the ends differ, -1 when equal */
    int pbits;
    unsigned g;
} ref_ctx;

static int ref_diff_pos(uint32_t lo, uint32_t hi, int a)
{
    if (lo == hi) return -1;
    int b = 31;
    while (!((lo ^ hi) >> b & 1))
        b--;
    return 3 * b + 2 - a;
}

/* The node whose axes are in variants v[]: writes its keys, their summed volume, returns their count. */
static int ref_node(ref_ctx *c, const int v[3], unsigned done, uint64_t *out, uint64_t *vol)
{
    int top = -1, a = 0;
    for (int k = 0; k < 3; k++)
        if (c->p[k][v[k]] > top) top = c->p[k][v[k]], a = k;
    uint64_t mlo = c->sl[0][v[0]] | c->sl[1][v[1]] | c->sl[2][v[2]];
    if (top < 0) { /* a leaf cell */
        c->g = 0;
        out[0] = mlo << KD_DEPTH_BITS | (uint64_t)c->pbits;
        *vol = 1;
        return 1;
    }
    uint64_t h = 2ull << top;
    uint64_t key = (mlo & ~(h - 1)) << KD_DEPTH_BITS | (uint64_t)(c->pbits - 1 - top);
    if ((unsigned)top / 3 < c->g) c->g = (unsigned)top / 3;
    if (done >> a & 1) { /* already cut along this axis */
        out[0] = key;
        *vol = h;
        return 1;
    }
    int w[3] = {v[0], v[1], v[2]};
    uint64_t v1, v2;
    w[a] = 1;
    int n1 = ref_node(c, w, done | 1u << a, out, &v1);
    w[a] = 2;
    int n2 = ref_node(c, w, done | 1u << a, out + n1, &v2);
    if (v1 + v2 >= h) { /* the split does not shrink the volume: suppressed */
        out[0] = key;
        *vol = h;
        return 1;
    }
    *vol = v1 + v2;
    return n1 + n2;
}

/* Spread of 20 bits to every third bit, one bit at a time (independent of the tables of kd_keys.h). */
static uint64_t ref_spread20(uint32_t v)
{
    uint64_t r = 0;
    for (int b = 0; b < 20; b++)
        r |= (uint64_t)(v >> b & 1u) << (3 * b);
    return r;
}

static int ref_box_keys(const kd_frame *f, uint64_t ql, uint64_t qh, int split, uint64_t *out, unsigned *g)
{
    int drop = KD_QBITS - f->kbits;
    ref_ctx c;
    memset(&c, 0, sizeof c);
    c.pbits = f->pbits;
    c.g = 31;
    for (int a = 0; a < 3; a++) {
        uint32_t lo = kd_field(ql, a) >> drop, hi = kd_field(qh, a) >> drop;
        int sh = 2 - a;
        c.sl[a][0] = c.sl[a][1] = ref_spread20(lo) << sh;
        c.p[a][0] = ref_diff_pos(lo, hi, a);
        c.p[a][1] = c.p[a][2] = -1;
        if (lo != hi) {
            int b = 31;
            while (!((lo ^ hi) >> b & 1))
                b--;
            uint32_t s = hi >> b << b; /* the plane: hi with the bits below b cleared */
            c.sl[a][2] = ref_spread20(s) << sh;
            c.p[a][1] = ref_diff_pos(lo, s - 1, a);
            c.p[a][2] = ref_diff_pos(s, hi, a);
        }
    }
    int v[3] = {0, 0, 0}, k;
    if (split) {
        uint64_t vol;
        k = ref_node(&c, v, 0, out, &vol);
    } else {
        int top = -1;
        for (int a = 0; a < 3; a++)
            if (c.p[a][0] > top) top = c.p[a][0];
        uint64_t mlo = c.sl[0][0] | c.sl[1][0] | c.sl[2][0];
        out[0] = top < 0 ? mlo << KD_DEPTH_BITS | (uint64_t)c.pbits
                         : (mlo & ~((2ull << top) - 1)) << KD_DEPTH_BITS | (uint64_t)(c.pbits - 1 - top);
        c.g = top < 0 ? 0 : (unsigned)top / 3;
        k = 1;
    }
    *g = c.g;
    for (int r = 0; r < k; r++)
        out[r] <<= f->kshift;
    return k;
}

/* ---- inputs ---- */


/* The frame fields kd_box_keys reads, for a key grid of kbits per axis (kd_frame_fit gives 1 .. 19). */
static kd_frame frame_of(int kbits)
{
    kd_frame f;
    memset(&f, 0, sizeof f);
    f.kbits = kbits;
    f.pbits = 3 * kbits;
    f.kshift = 64 - KD_DEPTH_BITS - f.pbits;
    return f;
}

/* A random interval: width log-uniform in [0, 2^20) (an exponent, then a mantissa), start uniform. */
static void random_interval(rng *r, uint32_t *lo, uint32_t *hi)
{
    uint64_t x = rng_u64(r);
    int e = (int)(x % 21); /* width in [2^(e-1), 2^e) - 1; e = 0: 0 */
    uint32_t w = e == 0 ? 0 : (1u << (e - 1)) + (uint32_t)(x >> 8) % (1u << (e - 1)) - 1;
    *lo = (uint32_t)(rng_u64(r) % (KD_QMAX - w + 1));
    *hi = *lo + w;
}

/* Intervals with ends and planes on bit boundaries: points, the full range, widths 1 and 2 and 2^k about
 * 2^k, aligned and straddling powers of two. */
enum { NSPECIAL_MAX = 400 };
static uint32_t special_lo[NSPECIAL_MAX], special_hi[NSPECIAL_MAX];
static int nspecial;

static void add_special(int64_t lo, int64_t hi)
{
    if (lo < 0 || hi > KD_QMAX || lo > hi || nspecial == NSPECIAL_MAX) return;
    special_lo[nspecial] = (uint32_t)lo;
    special_hi[nspecial] = (uint32_t)hi;
    nspecial++;
}

static void make_specials(void)
{
    nspecial = 0;
    add_special(0, 0);
    add_special(KD_QMAX, KD_QMAX);
    add_special(0, KD_QMAX);
    add_special(1, KD_QMAX - 1);
    for (int k = 0; k <= 20; k++) {
        int64_t t = (int64_t)1 << k;
        add_special(t, t);                     /* a point on a power of two */
        add_special(t - 1, t - 1);             /* just below it */
        add_special(t - 1, t);                 /* width 1 across it */
        add_special(t - 1, t + 1);             /* width 2 across it */
        add_special(t, t + 1);                 /* width 1 from it */
        add_special(t, 2 * t - 1);             /* exactly one aligned cell of edge 2^k */
        add_special(0, t - 1);                 /* the low corner's cell */
        add_special(t - 1, 2 * t);             /* just over it on both sides */
        add_special(t / 2, t + t / 2 - 1);     /* width 2^k, straddling the plane 2^k at its middle */
        add_special(3 * t, 4 * t - 1);         /* an aligned cell away from 0 */
        add_special(KD_QMAX - t + 1, KD_QMAX); /* the high corner's cell */
    }
}

/* ---- comparisons ---- */

static long compared;

/* Compares kd_box_keys with the oracle on one box; the new function must not write past out[7]. */
static void check_box(const kd_frame *f, const uint32_t lo[3], const uint32_t hi[3], int split)
{
    uint64_t ql = (uint64_t)lo[0] << 42 | (uint64_t)lo[1] << 21 | lo[2];
    uint64_t qh = (uint64_t)hi[0] << 42 | (uint64_t)hi[1] << 21 | hi[2];
    uint64_t want[8], got[16];
    unsigned gw = 99, gg = 77;
    for (int r = 0; r < 16; r++)
        got[r] = 0xDEADBEEFull + (uint64_t)r;
    int nw = ref_box_keys(f, ql, qh, split, want, &gw);
    int ng = kd_box_keys(f, ql, qh, split, got, &gg);
    int same = nw == ng && gw == gg && memcmp(want, got, (size_t)nw * sizeof *want) == 0;
    for (int r = 8; r < 16; r++)
        same &= got[r] == 0xDEADBEEFull + (uint64_t)r;
    if (!same) {
        ck_abort_msg(
            "kbits %d split %d box [%u %u] [%u %u] [%u %u]: %d keys g %u, oracle %d keys g %u (first "
            "%016llx vs %016llx)",
            f->kbits, split, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], ng, gg, nw, gw,
            (unsigned long long)got[0], (unsigned long long)want[0]);
    }
    /* the oracle's own promise: keys in increasing order, at most 8, 1 without split */
    ck_assert(nw >= 1 && nw <= (split ? 8 : 1));
    for (int r = 1; r < nw; r++)
        ck_assert(want[r - 1] < want[r]);
    compared++;
}

/* 2^20 random boxes split on, 2^18 split off, each at a random kbits in 1 .. 19. */
START_TEST(random_boxes_equal_oracle)
{
    rng r = {UINT64_C(0x6b64206b657973) + (uint64_t)_i};
    int split = _i == 0;
    long n = split ? 1l << 20 : 1l << 18;
    compared = 0;
    for (long t = 0; t < n; t++) {
        kd_frame f = frame_of(1 + (int)(rng_u64(&r) % 19));
        uint32_t lo[3], hi[3];
        for (int a = 0; a < 3; a++)
            random_interval(&r, &lo[a], &hi[a]);
        check_box(&f, lo, hi, split);
    }
    ck_assert_int_eq(compared, n);
}
END_TEST

/* Bit-boundary intervals on every axis, every kbits, split on and off: random triples of them, and each of
 * them beside random intervals on the other axes. */
START_TEST(boundary_boxes_equal_oracle)
{
    make_specials();
    ck_assert_int_gt(nspecial, 150);
    rng r = {UINT64_C(0x626f756e64) + (uint64_t)_i};
    int split = _i == 0;
    for (int kbits = 1; kbits <= 19; kbits++) {
        kd_frame f = frame_of(kbits);
        uint32_t lo[3], hi[3];
        for (int t = 0; t < 20000; t++) {
            for (int a = 0; a < 3; a++) {
                int j = (int)(rng_u64(&r) % (uint64_t)nspecial);
                lo[a] = special_lo[j], hi[a] = special_hi[j];
            }
            check_box(&f, lo, hi, split);
        }
        for (int j = 0; j < nspecial; j++)
            for (int a = 0; a < 3; a++)
                for (int t = 0; t < 8; t++) {
                    for (int b = 0; b < 3; b++)
                        random_interval(&r, &lo[b], &hi[b]);
                    lo[a] = special_lo[j], hi[a] = special_hi[j];
                    check_box(&f, lo, hi, split);
                }
    }
}
END_TEST

/* Every triple of a small set of intervals (points, widths 1 and 2 across a plane, the full range) at a few
 * resolutions: all their combinations of equal and differing axes. */
START_TEST(small_boxes_all_combinations)
{
    static const uint32_t ends[][2] = {{0, 0},       {5, 5},       {7, 8},       {6, 9},
                                       {8, 9},       {8, 15},      {0, 15},      {4, 11},
                                       {1023, 1024}, {1000, 3000}, {0, KD_QMAX}, {KD_QMAX, KD_QMAX}};
    enum { NE = sizeof ends / sizeof ends[0] };
    static const int kbits[] = {1, 2, 3, 10, 12, 17, 19};
    for (size_t kb = 0; kb < sizeof kbits / sizeof kbits[0]; kb++) {
        kd_frame f = frame_of(kbits[kb]);
        for (int i = 0; i < NE * NE * NE; i++) {
            uint32_t lo[3] = {ends[i % NE][0], ends[i / NE % NE][0], ends[i / NE / NE][0]};
            uint32_t hi[3] = {ends[i % NE][1], ends[i / NE % NE][1], ends[i / NE / NE][1]};
            for (int a = 0; a < 3; a++) /* the same intervals scaled to the key grid's cells */
                if (hi[a] <= 4096 && kbits[kb] >= 12) {
                    lo[a] <<= 20 - kbits[kb];
                    hi[a] = (hi[a] << (20 - kbits[kb])) | ((1u << (20 - kbits[kb])) - 1);
                    if (hi[a] > KD_QMAX) hi[a] = KD_QMAX;
                }
            check_box(&f, lo, hi, 1);
            check_box(&f, lo, hi, 0);
        }
    }
}
END_TEST

/* A frame from kd_frame_fit (the kd-tree's own), on the benchmark's kind of boxes: unit spheres over a cube.
 */
START_TEST(fitted_frame_equal_oracle)
{
    enum { N = 4096 };
    static pf_aabb boxes[N];
    rng r = {UINT64_C(0x666974)};
    for (int i = 0; i < N; i++)
        for (int a = 0; a < 3; a++) {
            double c = urand(&r) * 200.0;
            boxes[i].min[a] = c - 1.0, boxes[i].max[a] = c + 1.0;
        }
    kd_frame f;
    kd_frame_fit(&f, boxes, N, NULL);
    ck_assert_int_eq(f.pbits, 3 * f.kbits);
    ck_assert_int_eq(f.kshift, 64 - KD_DEPTH_BITS - f.pbits);
    for (int i = 0; i < N; i++) {
        uint64_t ql, qh;
        kd_quantise_box(&f, &boxes[i], &ql, &qh);
        uint32_t lo[3], hi[3];
        for (int a = 0; a < 3; a++)
            lo[a] = kd_field(ql, a), hi[a] = kd_field(qh, a);
        check_box(&f, lo, hi, 1);
        check_box(&f, lo, hi, 0);
    }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("kd_keys");
    TCase *tc = tcase_create("equals_oracle");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, random_boxes_equal_oracle, 0, 2);
    tcase_add_loop_test(tc, boundary_boxes_equal_oracle, 0, 2);
    tcase_add_test(tc, small_boxes_all_combinations);
    tcase_add_test(tc, fitted_frame_equal_oracle);
    suite_add_tcase(s, tc);
    return s;
}
