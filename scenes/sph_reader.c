/* SOFA's sphere files (.sph, read by SphereLoader): a first line "sph 1.0", then keywords one per line:
 * "nums N" (the count, a hint), "sphe INDEX X Y Z R" (a sphere: centre and radius), "#" a comment to the end of
 * the line. An unknown keyword's line is skipped with a note, as SOFA's loader warns and goes on. The centres are
 * the mesh's points, the radii `radii` (one per point). */
#include "mesh_build.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdio.h>
#include <string.h>

int sc_parse_sph(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size)
{
    memset(out, 0, sizeof *out);
    if (note && note_size) note[0] = 0;
    sc_text t;
    sc_text_init(&t, name, data, length);
    char tok[64];
    int n = sc_text_token_on_line(&t, tok, sizeof tok);
    char ver[64] = "";
    if (n > 0) n = sc_text_token_on_line(&t, ver, sizeof ver);
    if (n < 0) return PF_EPARSE;
    if (strcmp(tok, "sph") || strcmp(ver, "1.0"))
        return sc_text_error(&t, PF_EPARSE, "not a sphere file: the first line must be 'sph 1.0'");
    sc_text_next_line(&t);
    sc_mesh_builder b = {0};
    PF_VEC(double) radii = {0};
    uint64_t unknown = 0;
    char first_unknown[96] = "";
    int rc = PF_OK;
    while (!rc) {
        n = sc_text_token(&t, tok, sizeof tok);
        if (n < 0) {
            rc = PF_EPARSE;
            break;
        }
        if (n == 0) break;
        if (tok[0] == '#') {
            sc_text_next_line(&t);
        } else if (!strcmp(tok, "nums")) {
            long count;
            rc = sc_text_long(&t, "sphere count", 0, SC_MESH_MAX_ITEMS, &count);
        } else if (!strcmp(tok, "sphe")) {
            long index;
            double p[3], r;
            if ((rc = sc_text_long(&t, "sphere index", -2147483647L, 2147483647L, &index)) ||
                (rc = sc_text_real(&t, "x", &p[0])) || (rc = sc_text_real(&t, "y", &p[1])) ||
                (rc = sc_text_real(&t, "z", &p[2])) || (rc = sc_text_real(&t, "radius", &r)))
                break;
            if (!(r > 0)) {
                rc = sc_text_error(&t, PF_EINVAL, "sphere radius must be > 0, got %g", r);
                break;
            }
            if (radii.n >= SC_MESH_MAX_ITEMS) {
                rc = sc_text_error(&t, PF_EINVAL, "more than %u spheres", SC_MESH_MAX_ITEMS);
                break;
            }
            if ((rc = sc_mb_point(&b, p))) break;
            if (pf_vec_push(&radii, r)) rc = pf_error(PF_ENOMEM, "%s: out of memory", name);
        } else {
            if (!unknown++) snprintf(first_unknown, sizeof first_unknown, "%s (line %ld)", tok, t.line);
            sc_text_next_line(&t);
        }
    }
    if (!rc && radii.n == 0) rc = sc_text_error(&t, PF_EPARSE, "no sphere ('sphe INDEX X Y Z R' lines)");
    if (rc) {
        sc_mb_free(&b);
        pf_vec_free(&radii);
        return rc;
    }
    if ((rc = sc_mb_finish(&b, name, out, NULL, 0))) {
        pf_vec_free(&radii);
        return rc;
    }
    out->radii = radii.v;
    if (unknown && note && note_size)
        snprintf(note, note_size, "%s: %llu line(s) with an unknown keyword skipped, the first %s", name,
                 (unsigned long long)unknown, first_unknown);
    return PF_OK;
}
