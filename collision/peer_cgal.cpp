/* Peer broad phase from CGAL: box_self_intersection_d ("cgal"), the segment-tree streaming algorithm of
 * Zomorodian & Edelsbrunner, behind the C backend interface. Boxes are closed (Topology CLOSED; CGAL's half-open
 * alternative would miss touching boxes) and compared in double, exactly as given. Each box carries its index as
 * its CGAL id (ids must be unique; CGAL breaks ties between equal coordinates with them). CGAL keeps no state
 * between calls, so each call is a full rebuild; it reports each intersecting pair once, in an order of its own,
 * which we sort. The exact test is still applied to every reported pair, so a CGAL bug cannot leak through. */
#include "peer_output.hpp"

#include <CGAL/box_intersection_d.h>

namespace {

/* A box with its PhysFlow index as id: the interface Box_traits_d expects. */
struct index_box {
    using NT = double;
    using ID = std::size_t;
    double lo[3];
    double hi[3];
    std::size_t index;
    static int dimension() { return 3; }
    double min_coord(int d) const { return lo[d]; }
    double max_coord(int d) const { return hi[d]; }
    std::size_t id() const { return index; }
};

struct cgal_state {
    pf_peer::vector<index_box> boxes;
    pf_peer::vector<pf_pair> cand;
};

int cgal_create(const pf_broadphase_def *, void **state)
{
    try {
        *state = pf_peer::create_object<cgal_state>();
        return PF_OK;
    } catch (const std::bad_alloc &) {
        return pf_error(PF_ENOMEM, "out of memory for the CGAL broad phase");
    }
}

void cgal_destroy(void *state)
{
    pf_peer::destroy_object(static_cast<cgal_state *>(state));
}

int cgal_pairs(void *state, const pf_broadphase_def *, const pf_aabb *boxes, size_t n, pf_pair_vec *out,
               pf_broadphase_stats *stats)
{
    cgal_state *st = static_cast<cgal_state *>(state);
    try {
        st->boxes.resize(n);
        for (size_t i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++) {
                st->boxes[i].lo[k] = boxes[i].min[k];
                st->boxes[i].hi[k] = boxes[i].max[k];
            }
            st->boxes[i].index = i;
        }
        st->cand.clear();
        pf_peer::vector<pf_pair> &cand = st->cand;
        auto report = [&cand](const index_box &a, const index_box &b) {
            cand.push_back(pf_peer::ordered_pair(a.index, b.index));
        };
        /* 10 is CGAL's default cutoff (below it the streaming step scans); the self version copies the boxes */
        CGAL::box_self_intersection_d<CGAL::Sequential_tag>(st->boxes.begin(), st->boxes.end(), report,
                                                            CGAL::Box_intersection_d::Box_traits_d<index_box>(),
                                                            std::ptrdiff_t(10),
                                                            CGAL::Box_intersection_d::CLOSED);
        stats->candidates = cand.size();
        int rc = pf_peer::emit_pairs(cand, boxes, out);
        stats->bytes = (st->boxes.capacity() * 2 /* CGAL's copy */) * sizeof(index_box) +
                       st->cand.capacity() * sizeof(pf_pair) + sizeof *st;
        return rc;
    } catch (const std::bad_alloc &) {
        return pf_error(PF_ENOMEM, "out of memory in the CGAL broad phase (%zu boxes)", n);
    }
}

} // namespace

extern "C" const pf_bp_backend pf_bp_cgal_backend = {cgal_create, cgal_destroy, cgal_pairs};
