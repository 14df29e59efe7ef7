/* Sphere–sphere proximity (single pair and batch over broad-phase candidates). */
#include "arg_checks.h"
#include "narrow_proximity.h"

#include "base/check.h"
#include "base/error.h"

int pf_narrow_sphere_sphere_kernel(const pf_proximity_def *def, const pf_sphere *a, const pf_sphere *b,
                                   pf_contact *out)
{
    double d[3];
    pf_v3_sub(d, a->center, b->center);
    double len = sqrt(pf_v3_dot(d, d));
    double gap = len - a->radius - b->radius;
    /* SOFA's MinProximityIntersection: a proximity exists while the gap is strictly below alarmDistance. */
    if (!(gap < def->alarm_distance)) return 0;
    double n[3] = {0.0, 0.0, 1.0}; /* coincident centres: any unit vector will do; +z is documented */
    if (len > 0.0) {
        n[0] = d[0] / len;
        n[1] = d[1] / len;
        n[2] = d[2] / len;
    }
    pf_contact_fill(out, def, a->center, a->radius, b->center, b->radius, n, gap, a->object, a->element,
                    b->object, b->element);
    return 1;
}

int pf_narrow_sphere_sphere(const pf_proximity_def *def, const pf_sphere *a, const pf_sphere *b, pf_contact *out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_proximity_def(def, fn));
    PF_TRY(pf_check_sphere(a, fn, "a", -1));
    PF_TRY(pf_check_sphere(b, fn, "b", -1));
    PF_TRY(pf_check_given(out, fn, "out"));
    return pf_narrow_sphere_sphere_kernel(def, a, b, out);
}

int pf_narrow_spheres(const pf_proximity_def *def, const pf_sphere *spheres, size_t nspheres, const pf_pair *pairs,
                      size_t npairs, pf_contact *out, size_t *ncontacts)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(ncontacts, fn, "ncontacts"));
    *ncontacts = 0;
    PF_TRY(pf_check_proximity_def(def, fn));
    PF_TRY(pf_check_size(nspheres, sizeof *spheres, fn, "nspheres"));
    PF_TRY(pf_check_size(npairs, sizeof *out, fn, "npairs"));
    if (npairs) {
        PF_TRY(pf_check_given(pairs, fn, "pairs (npairs > 0)"));
        PF_TRY(pf_check_given(out, fn, "out (npairs > 0)"));
        PF_TRY(pf_check_given(spheres, fn, "spheres (npairs > 0)"));
    }
    size_t m = 0;
    for (size_t k = 0; k < npairs; k++) {
        uint32_t i = pairs[k].i, j = pairs[k].j;
        PF_TRY(pf_check_pair_index(i, nspheres, fn, "sphere", k, "i"));
        PF_TRY(pf_check_pair_index(j, nspheres, fn, "sphere", k, "j"));
        PF_TRY(pf_check_sphere(&spheres[i], fn, "spheres", i));
        PF_TRY(pf_check_sphere(&spheres[j], fn, "spheres", j));
        m += (size_t)pf_narrow_sphere_sphere_kernel(def, &spheres[i], &spheres[j], &out[m]);
    }
    *ncontacts = m;
    return PF_OK;
}
