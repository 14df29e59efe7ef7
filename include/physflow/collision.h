/* PhysFlow collision: broad phases (AABBs in, unique overlapping pairs out), their counters and method names.
 * Usable alone: depends on no other PhysFlow module. Queries, range queries and the narrow phase have headers
 * of their own beside this one. */
#ifndef PHYSFLOW_COLLISION_H
#define PHYSFLOW_COLLISION_H

#include "physflow/base.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An axis-aligned bounding box, closed: two boxes that touch (max == min on an axis) overlap.
typedef struct pf_aabb {
    double min[3]; ///< lower corner (any unit; all boxes of one call share it)
    double max[3]; ///< upper corner; min[k] <= max[k] is required
} pf_aabb;

/// The largest coordinate magnitude of a box that a broad phase or a query index takes: the methods work with
/// the boxes' extents, their sums and their powers of two, which must stay finite (a box from -DBL_MAX to
/// DBL_MAX has an infinite extent). A query box itself may reach DBL_MAX.
#define PF_AABB_COORD_MAX 1e150

/// A pair of overlapping boxes by index into the input array, with i < j.
typedef struct pf_pair {
    uint32_t i; ///< index of the first box (always the smaller one)
    uint32_t j; ///< index of the second box, j > i
} pf_pair;

/// Broad-phase methods. Every method reports exactly the pairs `brute` reports (kd-tree-1 aside).
typedef enum pf_broadphase_method {
    PF_BP_BRUTE = 0,   ///< all-pairs test: the oracle
    PF_BP_KD,          ///< linear kd-tree (Poirrier 2009), unique exact-AABB pairs (the paper's kd-tree-2)
    PF_BP_KD_RAW,      ///< linear kd-tree, raw candidates with duplicates, no exact test (the paper's kd-tree-1)
    PF_BP_GRID,        ///< uniform hash grid (Pouchol et al. 2009, §2.1)
    PF_BP_SAP,         ///< sweep and prune on one axis, kept sorted across calls by insertion sort
    PF_BP_HHASH,       ///< hierarchical hash (Pouchol et al. 2009, §3)
    PF_BP_MLHASH,      ///< multilevel hash of Eitz & Lixu (Pouchol et al. 2009, §2.2)
    PF_BP_BULLET_DBVT, ///< peer: Bullet btDbvtBroadphase (meson option peers)
    PF_BP_BULLET_SAP,  ///< peer: Bullet bt32BitAxisSweep3
    PF_BP_CGAL,        ///< peer: CGAL box_self_intersection_d
    PF_BP_METHOD_COUNT
} pf_broadphase_method;

/// Counters of one pf_broadphase_pairs call.
typedef struct pf_broadphase_stats {
    uint64_t candidates; ///< candidate pairs examined before the exact AABB test (duplicates included)
    uint64_t pairs;      ///< pairs reported
    size_t bytes;        ///< bytes of working memory held by the broad phase beyond the input boxes (the output
                         ///< pairs included)
    uint64_t records;    ///< entries the method sorted or binned: kd = sub-boxes after splitting (Poirrier 2009, §4,
                         ///< between n and 8n), grid = (box, cell) entries, sap = n; 0 for brute
    double cell_volume;  ///< kd: summed volume of the records' enclosing cells, in the boxes' unit cubed (paper
                         ///< 000 Table 1's V_n); 0 for the other methods
} pf_broadphase_stats;

/// Runs fn(ctx, worker, workers) once on each of the runner's workers and returns when all have returned; a
/// non-zero return means it ran nothing (e.g. pf_runtime_parallel's PF_ESTATE while a graph runs).
typedef int (*pf_parallel_runner)(void *runner_ctx, void (*fn)(void *ctx, int worker, int workers), void *ctx);

/// Settings of a broad phase. Get defaults from pf_broadphase_default_def() and change what you need.
typedef struct pf_broadphase_def {
    pf_broadphase_method method; ///< default PF_BP_KD
    int threads;                 ///< OpenMP threads for the parallel parts; default 1; output does not depend on it
    pf_parallel_runner parallel; ///< when set, the parallel parts run through it (e.g. a runtime's team:
                                 ///< pf_runtime_parallel) on its workers and def.threads is ignored; a call it
                                 ///< refuses runs on the calling thread instead. NULL (default): OpenMP threads.
                                 ///< Output does not depend on the runner or its worker count either
    void *parallel_ctx;          ///< the runner's first argument (e.g. the pf_runtime); default NULL
    int kd_split;                ///< kd: 1 splits each box at most once per axis (Poirrier 2009, §4), 0 does not;
                                 ///< default 1
    double cell_size;            ///< grid: cell edge; <= 0 (default) picks one from the boxes
} pf_broadphase_def;

typedef struct pf_broadphase pf_broadphase;

PF_API pf_broadphase_def pf_broadphase_default_def(void);

/// Creates a broad phase; it keeps its buffers (and, for sap, its order) from one call to the next. The def is
/// copied; the caller owns *out and frees it with pf_broadphase_destroy.
/// Returns PF_ENOTSUP for a peer method that was not built, PF_EINVAL for a NULL argument, a def.method outside
/// the enumeration, def.threads outside [1, 1024], def.kd_split other than 0 or 1, a def.cell_size that is
/// not finite, or a def.parallel_ctx without def.parallel; the message (pf_last_error) names the function and the
/// def field.
PF_API int pf_broadphase_create(const pf_broadphase_def *def, pf_broadphase **out);
/// Destroys `bp`; NULL is ignored.
PF_API void pf_broadphase_destroy(pf_broadphase *bp);

/// Finds the overlapping pairs among `n` boxes. On success `*pairs` points to `*npairs` pairs, each i < j, in
/// an order that depends on the boxes only (never on thread count), owned by `bp` and valid until its next
/// call. Boxes with NaN or infinite coordinates, a coordinate beyond +-PF_AABB_COORD_MAX, or min > max are
/// refused with PF_EINVAL and a message naming the box index and coordinate (`box 3: boxes[3].min[1]`); so are NULL arguments (`boxes` may be NULL when n is
/// 0) and n > 2^32 - 1. `stats` may be NULL.
PF_API int pf_broadphase_pairs(pf_broadphase *bp, const pf_aabb *boxes, size_t n, const pf_pair **pairs,
                               size_t *npairs, pf_broadphase_stats *stats);

/// "brute", "kd", "kd-raw", "grid", "sap", "hhash", "mlhash", "bullet-dbvt", "bullet-sap", "cgal"; "?" for a
/// value outside the enumeration.
PF_API const char *pf_broadphase_method_name(pf_broadphase_method m);
/// Parses a method name; PF_EINVAL for an unknown one.
PF_API int pf_broadphase_method_parse(const char *name, pf_broadphase_method *out);
/// 1 when the method is built into this library (peers depend on the build), else 0 (also for a value outside
/// the enumeration).
PF_API int pf_broadphase_method_available(pf_broadphase_method m);

#ifdef __cplusplus
}
#endif
#endif
