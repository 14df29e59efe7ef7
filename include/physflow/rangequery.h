/* PhysFlow orthogonal range queries over points (Aïvázis 2010, Aïvázis' contact-search notes): which points lie in
 * a box. Five structures behind one interface, each with the build, rebuild and query costs the notes give:
 * b(N), r(N), s(N), q(N, n). */
#ifndef PHYSFLOW_RANGEQUERY_H
#define PHYSFLOW_RANGEQUERY_H

#include "physflow/base.h"
#include "physflow/query.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Range-query structures (Aïvázis 2010).
typedef enum pf_rangequery_method {
    PF_RQ_SCAN = 0, ///< sequential scan: b = O(N), r = 0, q = O(N)
    PF_RQ_BSEARCH,  ///< points sorted on x, binary search then a walk: b = O(N log N), r = O(N) (insertion sort
                    ///< of an almost sorted array), q = O(log N + points in the x slab)
    PF_RQ_TREE,     ///< midpoint tree (orthotree): cells halved at their midpoint along the longest axis;
                    ///< depth D depends on the distribution, b = r = O((D+1) N)
    PF_RQ_KDTREE,   ///< median kd tree: b = O(N log N); rebuild refits the subtree bounds in O(N), keeping the
                    ///< partition (queries slow down as points drift; build again after large motions)
    PF_RQ_CELLS,    ///< cell binning on a uniform grid (cell sort): b = r = O(N + M), q = O(J + n)
    PF_RQ_METHOD_COUNT
} pf_rangequery_method;

/// Settings of a range-query structure. Get defaults from pf_rangequery_default_def().
typedef struct pf_rangequery_def {
    pf_rangequery_method method; ///< default PF_RQ_KDTREE
    int leaf_size;               ///< trees: at most this many points in a leaf (>= 1); default 8
    double cell_size;            ///< cells: cell edge; <= 0 (default) picks about 2 points per cell
} pf_rangequery_def;

typedef struct pf_rangequery pf_rangequery;

PF_API pf_rangequery_def pf_rangequery_default_def(void);
/// PF_EINVAL for a NULL argument, a def.method outside the enumeration, def.leaf_size < 1 or a def.cell_size
/// that is not finite.
PF_API int pf_rangequery_create(const pf_rangequery_def *def, pf_rangequery **out);
/// Destroys `rq`; NULL is ignored.
PF_API void pf_rangequery_destroy(pf_rangequery *rq);
/// Builds the structure over `n` points (`xyz`: 3 doubles each, copied). Non-finite coordinates are refused
/// with PF_EINVAL naming the coordinate (`xyz[k]`: point k / 3); so is a cell size that would need more than
/// max(16 N, 2^20) cells, n >= 2^32 - 1, and NULL arguments (`xyz` may be NULL when n is 0). A refused build
/// leaves the structure unbuilt.
PF_API int pf_rangequery_build(pf_rangequery *rq, const double *xyz, size_t n);
/// Updates the structure after the same `n` points moved (point i is still point i). PF_ESTATE before a
/// build; PF_EINVAL for NULL arguments or non-finite coordinates (the structure then keeps the previous points).
PF_API int pf_rangequery_rebuild(pf_rangequery *rq, const double *xyz);
/// Ids of the points p with lo[k] <= p[k] <= hi[k] on every axis (a closed box), into `out`, in an order that
/// depends on the points and the box only. The structure may be queried from several threads at once, each
/// with its own buffer. A box with lo[k] > hi[k] on an axis is empty: it finds nothing. PF_EINVAL for NULL
/// arguments or NaN or infinite bounds (to query a half-space, give a finite bound beyond the points);
/// PF_ESTATE before a successful build.
PF_API int pf_rangequery_find(const pf_rangequery *rq, const double lo[3], const double hi[3], pf_id_buffer *out);
/// s(N): bytes held, the copy of the points included; 0 for NULL.
PF_API size_t pf_rangequery_bytes(const pf_rangequery *rq);
/// "scan", "bsearch", "tree", "kdtree", "cells"; "unknown" for a value outside the enumeration.
PF_API const char *pf_rangequery_method_name(pf_rangequery_method m);
/// Parses a method name; PF_EINVAL for NULL arguments or an unknown name.
PF_API int pf_rangequery_method_parse(const char *name, pf_rangequery_method *out);

#ifdef __cplusplus
}
#endif
#endif
