/* Sphere–sphere proximity (single pair and batch over broad-phase candidates). */
#include "narrow_proximity.h"

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
    PF_CHECK_ARG(pf_proximity_def_ok(def));
    PF_CHECK_ARG(pf_sphere_ok(a));
    PF_CHECK_ARG(pf_sphere_ok(b));
    PF_CHECK_ARG(out != NULL);
    return pf_narrow_sphere_sphere_kernel(def, a, b, out);
}

int pf_narrow_spheres(const pf_proximity_def *def, const pf_sphere *spheres, size_t nspheres, const pf_pair *pairs,
                      size_t npairs, pf_contact *out, size_t *ncontacts)
{
    PF_CHECK_ARG(pf_proximity_def_ok(def));
    PF_CHECK_ARG(ncontacts != NULL);
    PF_CHECK_ARG(npairs == 0 || (pairs != NULL && out != NULL && spheres != NULL));
    *ncontacts = 0;
    size_t m = 0;
    for (size_t k = 0; k < npairs; k++) {
        uint32_t i = pairs[k].i, j = pairs[k].j;
        if (i >= nspheres || j >= nspheres)
            return pf_error(PF_EINVAL, "pf_narrow_spheres: pair %zu (%u, %u) is out of range (%zu spheres)", k,
                            (unsigned)i, (unsigned)j, nspheres);
        if (!pf_sphere_ok(&spheres[i]) || !pf_sphere_ok(&spheres[j]))
            return pf_error(PF_EINVAL, "pf_narrow_spheres: pair %zu: sphere %u or %u is not finite or has a "
                                       "negative radius", k, (unsigned)i, (unsigned)j);
        m += (size_t)pf_narrow_sphere_sphere_kernel(def, &spheres[i], &spheres[j], &out[m]);
    }
    *ncontacts = m;
    return PF_OK;
}
