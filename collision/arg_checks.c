/* Argument checks shared by the collision modules' public entry points (arg_checks.h). */
#include "arg_checks.h"

#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void label(char *buf, size_t size, const char *arg, long long index)
{
    if (index < 0)
        snprintf(buf, size, "%s", arg);
    else
        snprintf(buf, size, "%s[%lld]", arg, index);
}

static int finite3(const double v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

int pf_check_aabb(const pf_aabb *b, const char *fn, const char *arg, long long index)
{
    PF_TRY(pf_check_given(b, fn, arg));
    if (finite3(b->min) && finite3(b->max) && b->min[0] <= b->max[0] && b->min[1] <= b->max[1] &&
        b->min[2] <= b->max[2])
        return PF_OK;
    char name[96], what[128];
    if (index < 0)
        label(name, sizeof name, arg, index);
    else /* "box 3: boxes[3]": the position, then the element as the caller writes it */
        snprintf(name, sizeof name, "box %lld: %s[%lld]", index, arg, index);
    snprintf(what, sizeof what, "%s.min", name);
    PF_TRY(pf_check_finite_n(b->min, 3, fn, what));
    snprintf(what, sizeof what, "%s.max", name);
    PF_TRY(pf_check_finite_n(b->max, 3, fn, what));
    for (int k = 0; k < 3; k++)
        if (b->min[k] > b->max[k])
            return pf_error(PF_EINVAL, "%s: %s.min[%d] = %g is greater than %s.max[%d] = %g (min <= max on every axis)",
                            fn, name, k, b->min[k], name, k, b->max[k]);
    return PF_OK;
}

static int within_limit(const double v[3])
{
    return fabs(v[0]) <= PF_AABB_COORD_MAX && fabs(v[1]) <= PF_AABB_COORD_MAX && fabs(v[2]) <= PF_AABB_COORD_MAX;
}

int pf_check_aabbs(const pf_aabb *boxes, size_t n, const char *fn, const char *arg)
{
    for (size_t i = 0; i < n; i++) {
        const pf_aabb *b = &boxes[i];
        PF_TRY(pf_check_aabb(b, fn, arg, (long long)i));
        if (within_limit(b->min) && within_limit(b->max)) continue;
        for (int k = 0; k < 6; k++) {
            double c = k < 3 ? b->min[k] : b->max[k - 3];
            if (!(fabs(c) <= PF_AABB_COORD_MAX))
                return pf_error(PF_EINVAL, "%s: box %zu: %s[%zu].%s[%d] = %g is beyond +-%g (PF_AABB_COORD_MAX: the "
                                "extents and their sums must stay finite)", fn, i, arg, i, k < 3 ? "min" : "max",
                                k % 3, c, PF_AABB_COORD_MAX);
        }
    }
    return PF_OK;
}

int pf_check_sphere(const pf_sphere *s, const char *fn, const char *arg, long long index)
{
    char name[96], what[128];
    if (!s) {
        label(name, sizeof name, arg, index);
        return pf_check_given(s, fn, name);
    }
    if (finite3(s->center) && isfinite(s->radius) && s->radius >= 0.0) return PF_OK;
    label(name, sizeof name, arg, index);
    snprintf(what, sizeof what, "%s.center", name);
    PF_TRY(pf_check_finite_n(s->center, 3, fn, what));
    snprintf(what, sizeof what, "%s.radius", name);
    return pf_check_nonnegative(s->radius, fn, what);
}

int pf_check_point(const pf_point *p, const char *fn, const char *arg, long long index)
{
    char name[96], what[128];
    if (!p) {
        label(name, sizeof name, arg, index);
        return pf_check_given(p, fn, name);
    }
    if (finite3(p->p)) return PF_OK;
    label(name, sizeof name, arg, index);
    snprintf(what, sizeof what, "%s.p", name);
    return pf_check_finite_n(p->p, 3, fn, what);
}

int pf_check_triangle(const pf_triangle *t, const char *fn, const char *arg, long long index)
{
    char name[96], what[128];
    if (!t) {
        label(name, sizeof name, arg, index);
        return pf_check_given(t, fn, name);
    }
    if (finite3(t->v[0]) && finite3(t->v[1]) && finite3(t->v[2])) return PF_OK;
    label(name, sizeof name, arg, index);
    for (int k = 0; k < 3; k++) {
        snprintf(what, sizeof what, "%s.v[%d]", name, k);
        PF_TRY(pf_check_finite_n(t->v[k], 3, fn, what));
    }
    return PF_OK;
}

int pf_check_segment(const pf_segment *s, const char *fn, const char *arg, long long index)
{
    char name[96], what[128];
    if (!s) {
        label(name, sizeof name, arg, index);
        return pf_check_given(s, fn, name);
    }
    if (finite3(s->v[0]) && finite3(s->v[1]) && isfinite(s->radius) && s->radius >= 0.0) return PF_OK;
    label(name, sizeof name, arg, index);
    for (int k = 0; k < 2; k++) {
        snprintf(what, sizeof what, "%s.v[%d]", name, k);
        PF_TRY(pf_check_finite_n(s->v[k], 3, fn, what));
    }
    snprintf(what, sizeof what, "%s.radius", name);
    return pf_check_nonnegative(s->radius, fn, what);
}

int pf_check_pair_index(uint32_t index, size_t n, const char *fn, const char *kind, size_t k, const char *member)
{
    if (index < n) return PF_OK;
    char what[96];
    snprintf(what, sizeof what, "%s (pairs[%zu].%s)", kind, k, member);
    return pf_check_index(index, n, fn, what);
}

int pf_check_proximity_def(const pf_proximity_def *def, const char *fn)
{
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_finite(def->alarm_distance, fn, "def.alarm_distance"));
    PF_TRY(pf_check_nonnegative(def->contact_distance, fn, "def.contact_distance"));
    if (def->alarm_distance < def->contact_distance)
        return pf_error(PF_EINVAL, "%s: def.alarm_distance = %g is smaller than def.contact_distance = %g (the "
                                   "alarm distance must be >= the contact distance)",
                        fn, def->alarm_distance, def->contact_distance);
    return PF_OK;
}

int pf_error_in(int rc, const char *fn)
{
    if (rc == PF_OK) return rc;
    const char *m = pf_last_error();
    size_t len = strlen(fn);
    if (!strncmp(m, fn, len) && m[len] == ':') return rc; /* already named */
    char copy[512];
    snprintf(copy, sizeof copy, "%s", m);
    return pf_error(rc, "%s: %s", fn, copy);
}
