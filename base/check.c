/* The validation layer's checks (check.h): one message shape for every refused argument. */
#include "check.h"

#include "error.h"

#include <math.h>
#include <string.h>

int pf_check_given(const void *p, const char *fn, const char *what)
{
    return p ? PF_OK : pf_error(PF_EINVAL, "%s: %s is required (NULL given)", fn, what);
}

int pf_check_callback(int given, const char *fn, const char *what)
{
    return given ? PF_OK : pf_error(PF_EINVAL, "%s: %s is required (NULL given)", fn, what);
}

int pf_check_finite(double x, const char *fn, const char *what)
{
    return isfinite(x) ? PF_OK : pf_error(PF_EINVAL, "%s: %s must be a finite number, got %g", fn, what, x);
}

int pf_check_finite_n(const double *x, size_t n, const char *fn, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return pf_error(PF_EINVAL, "%s: %s[%zu] must be a finite number, got %g", fn, what, i, x[i]);
    return PF_OK;
}

int pf_check_positive(double x, const char *fn, const char *what)
{
    return isfinite(x) && x > 0 ? PF_OK
                                : pf_error(PF_EINVAL, "%s: %s must be a finite number > 0, got %g", fn, what, x);
}

int pf_check_nonnegative(double x, const char *fn, const char *what)
{
    return isfinite(x) && x >= 0 ? PF_OK
                                 : pf_error(PF_EINVAL, "%s: %s must be a finite number >= 0, got %g", fn, what, x);
}

int pf_check_range(double x, double lo, double hi, const char *fn, const char *what)
{
    if (isfinite(x) && x >= lo && x <= hi) return PF_OK;
    return pf_error(PF_EINVAL, "%s: %s must be a finite number in [%g, %g], got %g", fn, what, lo, hi, x);
}

int pf_check_int_range(long long x, long long lo, long long hi, const char *fn, const char *what)
{
    if (x >= lo && x <= hi) return PF_OK;
    return pf_error(PF_EINVAL, "%s: %s must be in [%lld, %lld], got %lld", fn, what, lo, hi, x);
}

int pf_check_index(uint64_t i, uint64_t n, const char *fn, const char *kind)
{
    if (i < n) return PF_OK;
    if (n == 0) return pf_error(PF_EINVAL, "%s: no %s %llu: there is none yet", fn, kind, (unsigned long long)i);
    return pf_error(PF_EINVAL, "%s: no %s %llu: there are %llu (0 to %llu)", fn, kind, (unsigned long long)i,
                    (unsigned long long)n, (unsigned long long)(n - 1));
}

int pf_check_size(size_t n, size_t elem, const char *fn, const char *what)
{
    const size_t limit = SIZE_MAX / 2;
    if (elem == 0 || n <= limit / elem) return PF_OK;
    return pf_error(PF_EINVAL, "%s: %s of %zu x %zu bytes is larger than memory can hold (a negative count?)", fn,
                    what, n, elem);
}

int pf_check_enum(int value, int count, const char *fn, const char *what)
{
    if (value >= 0 && value < count) return PF_OK;
    return pf_error(PF_EINVAL, "%s: %s must be one of its %d named values, got %d", fn, what, count, value);
}

int pf_check_name(const char *name, const char *const *names, int count, const char *fn, const char *what,
                  int *index)
{
    PF_TRY(pf_check_given(name, fn, "name"));
    for (int k = 0; k < count; k++)
        if (!strcmp(name, names[k])) {
            *index = k;
            return PF_OK;
        }
    char list[256] = "";
    size_t len = 0;
    for (int k = 0; k < count && len < sizeof list; k++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "", names[k]);
    return pf_error(PF_EINVAL, "%s: unknown %s '%s' (%s)", fn, what, name, list);
}
