/* PhysFlow queries against a built structure (Pouchol et al. 2009, §3.3): boxes and moving segments against a
 * hierarchical, multilevel or uniform spatial hash of boxes, and radius neighbour search among particles. */
#ifndef PHYSFLOW_QUERY_H
#define PHYSFLOW_QUERY_H

#include "physflow/base.h"
#include "physflow/collision.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A caller-owned, reusable buffer of query results (ids into the indexed array). Use one per thread: a
/// built index may be queried from several threads at once, each with its own buffer.
typedef struct pf_id_buffer pf_id_buffer;

/// Creates an empty buffer; PF_EINVAL when `out` is NULL.
PF_API int pf_id_buffer_create(pf_id_buffer **out);
/// Destroys `b`; NULL is ignored.
PF_API void pf_id_buffer_destroy(pf_id_buffer *b);
/// The ids of the last query into `b` (`*n` of them), valid until the next query into `b`. Their order
/// depends on the indexed data and the query only; sort them if you need them sorted. A NULL `b` gives NULL and
/// *n = 0; `n` may be NULL.
PF_API const uint32_t *pf_id_buffer_ids(const pf_id_buffer *b, size_t *n);
/// Ids the last query retrieved from the structure before the exact test, duplicates included (0 for NULL).
PF_API uint64_t pf_id_buffer_candidates(const pf_id_buffer *b);

/// Structures a pf_query_index can build over boxes.
typedef enum pf_query_method {
    PF_QUERY_HHASH = 0, ///< hierarchical hash (Pouchol et al. 2009, §3): additive top-down keys, hasChildren pruning
    PF_QUERY_MLHASH,    ///< multilevel hash of Eitz & Lixu (Pouchol et al. 2009, §2.2): every class searched
    PF_QUERY_UHASH,     ///< uniform hash (Pouchol et al. 2009, §2.1): one cell size
    PF_QUERY_KD,        ///< median kd tree of the boxes' centres (rangequery.h), searched with the query grown by
                        ///< the largest half-extent of the boxes
    PF_QUERY_METHOD_COUNT
} pf_query_method;

/// Settings of a query index. Get defaults from pf_query_default_def().
typedef struct pf_query_def {
    pf_query_method method; ///< default PF_QUERY_HHASH
    double cell_size;       ///< uhash: cell edge (same unit as the boxes); <= 0 (default): the largest box edge
} pf_query_def;

/// A spatial structure built over boxes, queried by boxes and moving segments.
typedef struct pf_query_index pf_query_index;

PF_API pf_query_def pf_query_default_def(void);
/// PF_EINVAL for a NULL argument, a def.method outside the enumeration or a def.cell_size that is not finite.
PF_API int pf_query_index_create(const pf_query_def *def, pf_query_index **out);
/// Destroys `ix`; NULL is ignored.
PF_API void pf_query_index_destroy(pf_query_index *ix);
/// (Re)builds the index over `n` boxes (copied). Boxes with NaN or infinite coordinates, a coordinate beyond
/// +-PF_AABB_COORD_MAX (collision.h), or min > max are refused with PF_EINVAL naming the box (`box 3: boxes[3].min[1]`); so is a uhash cell size that would put more
/// than 2^24 cells in one box or more than 2^40 along an axis, and NULL arguments (`boxes` may be NULL when n is
/// 0). A refused build leaves the index unbuilt.
PF_API int pf_query_index_build(pf_query_index *ix, const pf_aabb *boxes, size_t n);
/// Bytes held by the index (stored boxes included); 0 for NULL.
PF_API size_t pf_query_index_bytes(const pf_query_index *ix);
/// Ids of the indexed boxes that overlap `box` (closed boxes: touching counts), into `out`. PF_EINVAL for NULL
/// arguments or a box with NaN or infinite coordinates or min > max; PF_ESTATE before a successful build.
PF_API int pf_query_aabb(const pf_query_index *ix, const pf_aabb *box, pf_id_buffer *out);
/// Ids of the indexed boxes touched by a cube of half-edge `half_width` >= 0 whose centre moves along the
/// segment from `a` to `b` (Pouchol et al. 2009, §3.2: the structure is searched with the AABB of the motion, then each
/// candidate gets the exact swept-box test). half_width = 0 is a moving point. PF_EINVAL for NULL arguments,
/// NaN or infinite coordinates in `a` or `b`, a half_width that is not finite and >= 0, or a motion whose box
/// overflows (ends near the largest double grown by half_width); PF_ESTATE before a successful build.
PF_API int pf_query_segment(const pf_query_index *ix, const double a[3], const double b[3], double half_width,
                            pf_id_buffer *out);
/// "hhash", "mlhash", "uhash", "kd"; "unknown" for a value outside the enumeration.
PF_API const char *pf_query_method_name(pf_query_method m);
/// Parses a structure name; PF_EINVAL for NULL arguments or an unknown name.
PF_API int pf_query_method_parse(const char *name, pf_query_method *out);

/// Radius neighbour search methods (Pouchol et al. 2009, §3.3.2, §4.1).
typedef enum pf_neighbor_method {
    PF_NEIGHBORS_UHASH = 0, ///< uniform hash with cells of edge `radius` (Pouchol et al. 2009, §2.1: 27 cells)
    PF_NEIGHBORS_KD,        ///< median kd tree of rangequery.h, searched with the box [p - r, p + r]
    PF_NEIGHBORS_BRUTE,     ///< all pairs: the oracle
    PF_NEIGHBORS_HHASH,     ///< hierarchical hash, neighbours found as each particle is inserted (Pouchol et al. 2009,
                            ///< §3.3.2, Listing 3): the cells of its 27 points p + {-r, 0, r}^3 searched top-down
                            ///< with hasChildren pruning, each pair found once, by its later particle
    PF_NEIGHBORS_METHOD_COUNT
} pf_neighbor_method;

/// Settings of a neighbour search.
typedef struct pf_neighbor_def {
    pf_neighbor_method method; ///< default PF_NEIGHBORS_UHASH
    double radius;             ///< interaction radius r > 0 (unit of the positions); default 1
} pf_neighbor_def;

/// The neighbour lists of a set of particles: j is a neighbour of i when j != i and the distance, computed as
/// sqrt-free dx*dx + dy*dy + dz*dz <= r*r, is within the radius.
typedef struct pf_neighbors pf_neighbors;

PF_API pf_neighbor_def pf_neighbor_default_def(void);
/// Computes the neighbour lists of `n` particles at `xyz` (3 doubles each). Each list is sorted ascending.
/// Non-finite positions (named as `xyz[k]`), a radius that is not finite and > 0, a def.method outside the
/// enumeration, n >= 2^32 - 1 and NULL arguments (`xyz` may be NULL when n is 0) are refused with PF_EINVAL.
PF_API int pf_neighbors_create(const pf_neighbor_def *def, const double *xyz, size_t n, pf_neighbors **out);
/// Destroys `nb`; NULL is ignored.
PF_API void pf_neighbors_destroy(pf_neighbors *nb);
/// The neighbours of particle i: `*count` ids, ascending. PF_EINVAL when i is out of range or an argument is
/// NULL.
PF_API int pf_neighbors_of(const pf_neighbors *nb, size_t i, const uint32_t **ids, size_t *count);
/// Neighbour relations in all lists (each pair counted twice) and bytes held; 0 for NULL.
PF_API size_t pf_neighbors_total(const pf_neighbors *nb);
PF_API size_t pf_neighbors_bytes(const pf_neighbors *nb);
/// Bytes the search structure held while the lists were computed (it is freed since): the hash's cells and
/// links, or the kd tree; 0 for brute and for NULL.
PF_API size_t pf_neighbors_index_bytes(const pf_neighbors *nb);
/// "uhash", "kd", "brute", "hhash"; "unknown" for a value outside the enumeration.
PF_API const char *pf_neighbor_method_name(pf_neighbor_method m);

#ifdef __cplusplus
}
#endif
#endif
