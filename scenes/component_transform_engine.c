/* TransformEngine and TransformPosition (SOFA's engines, evaluated once: PhysFlow's scenes are static at load):
 * input_position transformed, as output_position for a MechanicalObject's position="@engine.output_position". */
#include "components.h"

#include "base/alloc.h"
#include "base/error.h"
#include "topological_mappings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* The points a link attribute names: a loader's or engine's, a MechanicalObject's positions, a node's mesh or
 * grid. (An attribute the loader followed as a link, "position", is read raw: its link names the input.) */
int sc_engine_input(pf_scene_component *c, const char *attr, sc_mesh *out)
{
    memset(out, 0, sizeof *out);
    const char *in = pf_scene_component_string(c, attr);
    if (!in) in = sc_raw_attr(c, attr);
    if (!in)
        return pf_scene_component_error(c, PF_EPARSE, "%s: attribute '%s' is missing (a link: "
                                        "\"@loader.position\")", TYPE(c), attr);
    if (in[0] != '@')
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: %s must be a link (\"@loader.position\"), "
                                        "not numbers", TYPE(c), attr);
    sc_node *from;
    xmlNode *comp;
    const char *field;
    int rc = sc_resolve_link(c, attr, in, &from, &comp, &field);
    if (rc) return rc;
    const sc_mesh *m = sc_loaded_mesh(from, comp);
    const double *p = m ? m->points : NULL;
    uint32_t n = m ? m->npoints : 0;
    if (!p && from->positions && comp && !xmlStrcmp(comp->name, (const xmlChar *)"MechanicalObject")) {
        p = from->positions;
        n = from->npositions;
    } else if (!p && from->topology == SC_TOPO_MESH) {
        p = from->mesh.points;
        n = from->mesh.npoints;
    } else if (!p && from->topology == SC_TOPO_GRID && !from->sparse) {
        return sc_grid_mesh(from->def.grid, from->def.grid_min, from->def.grid_max, out);
    } else if (!p && from->sparse) {
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: %s '%s' names a SparseGridTopology's positions (in SOFA "
                                        "the corners of its filled cells), which PhysFlow does not list", TYPE(c),
                                        attr, in);
    }
    if (!p)
        return pf_scene_component_error(c, PF_EINVAL, "%s: %s '%s' names no positions (yet: links are "
                                        "followed in document order)", TYPE(c), attr, in);
    if (!(out->points = pf_malloc(((size_t)n * 3 + 1) * sizeof *out->points)))
        return pf_error(PF_ENOMEM, "out of memory");
    memcpy(out->points, p, (size_t)n * 3 * sizeof *p);
    out->npoints = n;
    return PF_OK;
}

int sc_transform_engine(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    int inverse = 0, rc;
    if ((rc = sc_parse_bool(c, "inverse", &inverse)) < 0) return rc;
    if (inverse)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: inverse=\"true\" is not supported", TYPE(c));
    if (pf_scene_component_string(c, "quaternion"))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: 'quaternion' is not supported: give 'rotation' "
                                        "(degrees about x, y, z)", TYPE(c));
    pf_scene_component_ignore(c, "template");
    (void)pf_scene_component_string(c, "output_position"); /* what it gives, named for its users */
    sc_mesh m;
    if ((rc = sc_engine_input(c, "input_position", &m))) return rc;
    /* SOFA's order: scale, rotation (Euler degrees, as the mesh loaders'), translation */
    if ((rc = sc_mesh_loader_transform(c, &m))) {
        sc_mesh_free(&m);
        return rc;
    }
    return sc_engine_provide(c, &m);
}

/* ---- TransformPosition ---- */

/* SOFA's matrix files (TransformPosition::getTransfoFrom*), into the 4 x 4 affine matrix M (row-major):
 * .tfm (ITK): the first line holding "Parameters", 12 numbers: the 3 x 3 matrix by rows, then the translation,
 * which SOFA reads last number first (M[i][3] = value[11 - i]); .trm: a line of the translation, then 3 lines of
 * the matrix; .txt, .xfm: 4 lines of 4 numbers. Blank lines are skipped. */
static int read_matrix_file(pf_scene_component *c, const char *file, double M[16])
{
    size_t len = strlen(file);
    const char *ext = len >= 4 ? file + len - 4 : "";
    int tfm = !strcmp(ext, ".tfm"), trm = !strcmp(ext, ".trm");
    if (!tfm && !trm && strcmp(ext, ".txt") && strcmp(ext, ".xfm"))
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: filename '%s': a matrix file is .tfm, .trm, .txt or "
                                        ".xfm", TYPE(c), file);
    char path[2048];
    int rc = sc_resolve_scene_file(c->L, NULL, file, "matrix file", path, sizeof path);
    if (rc) {
        char why[1024];
        snprintf(why, sizeof why, "%s", pf_last_error());
        return pf_scene_component_error(c, rc, "%s: %s", TYPE(c), why);
    }
    FILE *f = fopen(path, "r");
    if (!f) return pf_scene_component_error(c, PF_EIO, "%s: cannot open matrix file '%s'", TYPE(c), path);
    for (int k = 0; k < 16; k++) M[k] = k % 5 == 0;
    char line[4096];
    int rows = 0, found = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        double v[16];
        int n = 0;
        char *save, *tok;
        if (tfm && !strstr(line, "Parameters")) continue;
        if (!tfm && line[strspn(line, " \t\r\n")] == 0) continue;
        for (tok = strtok_r(line, " \t\r\n", &save); tok && n < 16; tok = strtok_r(NULL, " \t\r\n", &save)) {
            if (tfm && !strpbrk(tok, "1234567890.-")) continue; /* the "Parameters:" label */
            char *end;
            v[n] = strtod(tok, &end);
            if (*end || !isfinite(v[n])) {
                rc = pf_scene_component_error(c, PF_EPARSE, "%s: %s: '%s' is not a number", TYPE(c), path, tok);
                break;
            }
            n++;
        }
        if (rc) break;
        int want = tfm ? 12 : trm ? 3 : 4;
        if (n != want || tok) {
            rc = pf_scene_component_error(c, PF_EPARSE, "%s: %s: a line of %d numbers is expected, got %d%s", TYPE(c),
                                          path, want, n, tok ? " or more" : "");
            break;
        }
        if (tfm) {
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < 3; j++) M[4 * i + j] = v[3 * i + j];
                M[4 * i + 3] = v[11 - i];
            }
            found = 1;
            break;
        }
        if (++rows > 4) {
            rc = pf_scene_component_error(c, PF_EPARSE, "%s: %s: more than 4 lines", TYPE(c), path);
            break;
        }
        if (trm && rows == 1)
            for (int i = 0; i < 3; i++) M[4 * i + 3] = v[i];
        else if (trm)
            for (int i = 0; i < 3; i++) M[4 * (rows - 2) + i] = v[i];
        else
            for (int i = 0; i < 4; i++) M[4 * (rows - 1) + i] = v[i];
    }
    fclose(f);
    if (!rc && tfm && !found)
        rc = pf_scene_component_error(c, PF_EPARSE, "%s: %s: no line with the transform's \"Parameters\"", TYPE(c),
                                      path);
    return rc;
}

/* TransformPosition: SOFA's methods on input_position, each as SOFA computes it (fixedIndices keep their input). */
int sc_transform_position(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    static const char *const ignored[] = {"template", "drawInput", "drawOutput", "pointSize"};
    SC_IGNORE_ATTRS(c, ignored);
    (void)pf_scene_component_string(c, "output_position"); /* what it gives, named for its users */
    static const char *const methods[] = {"projectOnPlane", "translation", "rotation", "scale", "scaleTranslation",
                                          "scaleRotationTranslation", "affine", "fromFile", "random"};
    const char *method = pf_scene_component_string(c, "method");
    int k = 0;
    if (method) /* SOFA's default is its first method, projectOnPlane */
        for (k = 0; k < 9 && strcmp(method, methods[k]); k++) continue;
    if (k == 9)
        return pf_scene_component_error(c, PF_EPARSE, "%s: unknown method '%s' (projectOnPlane, translation, "
                                        "rotation, scale, scaleTranslation, scaleRotationTranslation, affine, "
                                        "fromFile)", TYPE(c), method);
    if (k == 8)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: method 'random' is not supported (SOFA's random "
                                        "generator's displacements cannot be reproduced)", TYPE(c));
    double origin[3] = {0, 0, 0}, normal[3] = {0, 0, 0}, t[3] = {0, 0, 0}, r[3] = {0, 0, 0}, s3[3] = {1, 1, 1};
    double M[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    int rc;
    if ((rc = pf_scene_component_reals(c, "origin", 3, origin)) < 0 ||
        (rc = pf_scene_component_reals(c, "normal", 3, normal)) < 0 ||
        (rc = pf_scene_component_reals(c, "translation", 3, t)) < 0 ||
        (rc = pf_scene_component_reals(c, "rotation", 3, r)) < 0 ||
        (rc = pf_scene_component_reals(c, "scale", 3, s3)) < 0 || (rc = pf_scene_component_reals(c, "matrix", 16, M)) < 0)
        return rc;
    pf_scene_component_ignore(c, "seedValue");
    pf_scene_component_ignore(c, "maxRandomDisplacement");
    const char *file = pf_scene_component_string(c, "filename");
    if (k == 7 && !file)
        return pf_scene_component_error(c, PF_EPARSE, "%s: method 'fromFile' needs 'filename'", TYPE(c));
    if (k == 7 && (rc = read_matrix_file(c, file, M))) return rc;
    double nn = normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2];
    if (k == 0 && !(nn > 0))
        return pf_scene_component_error(c, PF_EINVAL, "%s: method 'projectOnPlane' needs a nonzero 'normal'", TYPE(c));
    if (k == 0 && fabs(nn - 1) > 1e-10) /* SOFA's init: a normal not of norm 1 is normalized */
        for (int a = 0; a < 3; a++) normal[a] /= sqrt(nn);
    uint32_t *fixed = NULL;
    size_t nfixed = 0;
    if ((rc = sc_parse_uints(c, "fixedIndices", &fixed, &nfixed)) < 0) return rc;
    sc_mesh m;
    if ((rc = sc_engine_input(c, "input_position", &m))) {
        pf_free(fixed);
        return rc;
    }
    double R[9];
    sc_euler_rotation(r, R);
    for (uint32_t i = 0; i < m.npoints && !rc; i++) {
        double *p = m.points + 3 * (size_t)i, q[3] = {p[0], p[1], p[2]}, d = 0, w;
        switch (k) {
        case 0: /* in + n ((origin - in) . n) */
            for (int a = 0; a < 3; a++) d += (origin[a] - q[a]) * normal[a];
            for (int a = 0; a < 3; a++) p[a] = q[a] + normal[a] * d;
            break;
        case 1:
            for (int a = 0; a < 3; a++) p[a] = q[a] + t[a];
            break;
        case 3:
            for (int a = 0; a < 3; a++) p[a] = origin[a] + (q[a] - origin[a]) * s3[a];
            break;
        case 4:
            for (int a = 0; a < 3; a++) p[a] = q[a] * s3[a] + t[a];
            break;
        case 2: case 5:
            if (k == 5)
                for (int a = 0; a < 3; a++) q[a] *= s3[a];
            for (int a = 0; a < 3; a++)
                p[a] = R[3 * a] * q[0] + R[3 * a + 1] * q[1] + R[3 * a + 2] * q[2] + (k == 5 ? t[a] : 0);
            break;
        default: /* affine, fromFile: M (x 1), divided by w */
            w = M[12] * q[0] + M[13] * q[1] + M[14] * q[2] + M[15];
            if (!(fabs(w) > 1e-10)) {
                rc = pf_scene_component_error(c, PF_EINVAL, "%s: the affine matrix sends point %u to infinity (w = "
                                              "%g)", TYPE(c), i, w);
                break;
            }
            for (int a = 0; a < 3; a++)
                p[a] = (M[4 * a] * q[0] + M[4 * a + 1] * q[1] + M[4 * a + 2] * q[2] + M[4 * a + 3]) / w;
        }
    }
    for (size_t j = 0; j < nfixed && !rc; j++)
        if (fixed[j] >= m.npoints)
            rc = pf_scene_component_error(c, PF_EINVAL, "%s: fixedIndices[%zu] = %u is out of range (%u points)",
                                          TYPE(c), j, fixed[j], m.npoints);
    sc_mesh in = {0}; /* the input again, for the points kept */
    if (!rc && nfixed) rc = sc_engine_input(c, "input_position", &in);
    for (size_t j = 0; j < nfixed && !rc; j++)
        memcpy(m.points + 3 * (size_t)fixed[j], in.points + 3 * (size_t)fixed[j], 3 * sizeof(double));
    sc_mesh_free(&in);
    pf_free(fixed);
    if (rc) {
        sc_mesh_free(&m);
        return rc;
    }
    return sc_engine_provide(c, &m);
}
