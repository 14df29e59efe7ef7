/* Edge–edge proximity of two surfaces with lines (SOFA LineCollisionModel against LineCollisionModel): the
 * closest points of two edges, named by the features that hold them — an edge's inner point, or a vertex when
 * the point is an end — so that a contact is one pair of features however many edge pairs find it.
 *
 * An end point is a vertex contact: against the inner point of a triangle's edge, or against a vertex of a
 * triangle, the vertex–triangle test finds it already, and it is left to that test; against a free line (no
 * triangle of its surface holds it) only this test sees it, as when a rope bends over a rod at one of its
 * vertices. A contact with a vertex is computed again from its features alone (the vertex as a point), so the
 * edge pairs that meet at that vertex give one contact, bit for bit, and its order stays the data's. Within one
 * surface (self-collision), neighbours never touch: edges with a common vertex are not tested, and two vertices
 * joined by an edge are no contact. */
#include "collide.h"

#include "base/error.h"

#include <string.h>

/* a parameter within this of an end is that end: the neighbour edge, which has the vertex too, then agrees */
static const double END_TOL = 1e-9;

/* 0 or 1 for an end, -1 inside */
static int end_of(double t)
{
    return t <= END_TOL ? 0 : (t >= 1.0 - END_TOL ? 1 : -1);
}

/* A line feature (pf_surface_line_point's numbering) as a segment: an edge, or its vertex as a point. */
static pf_segment feature_segment(const pf_surface *s, uint32_t feature)
{
    pf_segment g = {.radius = s->radius, .object = s->object, .element = feature};
    uint32_t a = feature < s->ne ? s->edge[2 * (size_t)feature] : feature - s->ne;
    uint32_t b = feature < s->ne ? s->edge[2 * (size_t)feature + 1] : a;
    memcpy(g.v[0], s->pos + 3 * (size_t)a, sizeof g.v[0]);
    memcpy(g.v[1], s->pos + 3 * (size_t)b, sizeof g.v[1]);
    return g;
}

/* Whether a vertex–triangle contact covers the pair of features (fa of S, fb of Q): one of them a vertex, the
 * other a vertex or an edge that a triangle of its surface holds. */
static int covered(const pf_surface *S, uint32_t fa, const pf_surface *Q, uint32_t fb)
{
    int va = fa >= S->ne, vb = fb >= Q->ne;
    if (va && vb) return S->vert_on_tri[fa - S->ne] || Q->vert_on_tri[fb - Q->ne];
    if (va) return Q->edge_on_tri[fb];
    if (vb) return S->edge_on_tri[fa];
    return 0;
}

/* Whether vertices u and v of s are the ends of one of its edges (s->edge is sorted). */
static int joined(const pf_surface *s, uint32_t u, uint32_t v)
{
    uint32_t lo = u < v ? u : v, hi = u < v ? v : u;
    size_t a = 0, b = s->ne;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        const uint32_t *e = s->edge + 2 * m;
        if (e[0] < lo || (e[0] == lo && e[1] < hi))
            a = m + 1;
        else
            b = m;
    }
    return a < s->ne && s->edge[2 * a] == lo && s->edge[2 * a + 1] == hi;
}

int pf_collide_edge_pair(const pf_surface *S, uint32_t ps, uint32_t e, const pf_surface *Q, uint32_t qs, uint32_t f,
                         const pf_proximity_def *pd, candidate *out)
{
    uint32_t fa = e, fb = f;
    pf_contact ct;
    double st[2];
    /* at most three rounds: the edges, then with a vertex for each end found (each round from features alone) */
    for (int round = 0;; round++) {
        pf_segment a = feature_segment(S, fa), b = feature_segment(Q, fb);
        int hit = pf_narrow_segment_segment(pd, &a, &b, &ct, st);
        if (hit <= 0) return hit;
        int ea = fa < S->ne ? end_of(st[0]) : -1, eb = fb < Q->ne ? end_of(st[1]) : -1;
        if (ea < 0 && eb < 0) break;
        PF_ASSERT(round < 2);
        if (ea >= 0) fa = S->ne + S->edge[2 * (size_t)fa + (size_t)ea];
        if (eb >= 0) fb = Q->ne + Q->edge[2 * (size_t)fb + (size_t)eb];
    }
    if (covered(S, fa, Q, fb)) return 0;
    /* within one surface, the two ends of an edge are neighbours, as edges with a common vertex are: never a
     * contact (on a polyline finer than the alarm distance, edges i and i + 2 meet at the ends of edge i + 1) */
    if (ps == qs && fa >= S->ne && fb >= S->ne && joined(S, fa - S->ne, fb - S->ne)) return 0;
    double sg = 1.0;
    if (ps == qs && fb < fa) { /* within one surface: the pair of features in one order, whichever edge found it */
        uint32_t x = fa;
        fa = fb, fb = x;
        double y = st[0];
        st[0] = st[1], st[1] = y;
        sg = -1.0;
    }
    *out = (candidate){.pobj = S->object, .tobj = Q->object, .psurf = ps, .pvert = fa, .kind = CAND_EDGE,
                       .tsurf = qs, .telem = fb, .bary = {st[0], st[1], 0},
                       .n = {sg * ct.normal[0], sg * ct.normal[1], sg * ct.normal[2]},
                       .offset = S->radius + Q->radius, .dist = ct.distance, .rank = {1, ct.distance, 0}};
    return 1;
}
