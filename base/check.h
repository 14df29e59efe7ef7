/* The API boundary's validation layer: every public function checks its arguments with these before it acts, and
 * a refused argument returns PF_EINVAL with a message in the caller's terms — the function, the argument or def
 * field as the caller wrote it (`def.total_mass`), the value given and what is allowed — never a C condition.
 * Each check returns PF_OK or that error; PF_TRY returns it from the caller. */
#ifndef PF_BASE_CHECK_H
#define PF_BASE_CHECK_H

#include "physflow/base.h"

#include <stddef.h>
#include <stdint.h>

/* Returns from the calling function when `expr` (a check, or any call returning a status) is not PF_OK. */
#define PF_TRY(expr)                                                                                         \
    do {                                                                                                     \
        int pf_try_rc_ = (expr);                                                                             \
        if (pf_try_rc_ != PF_OK) return pf_try_rc_;                                                          \
    } while (0)

/* "fn: what is required (NULL given)" */
int pf_check_given(const void *p, const char *fn, const char *what);
/* a callback, given as `fnptr != NULL` (ISO C keeps function pointers apart from data pointers) */
int pf_check_callback(int given, const char *fn, const char *what);
/* a finite number (not NaN, not infinite) */
int pf_check_finite(double x, const char *fn, const char *what);
/* n finite numbers; the message names the first bad one as what[i] */
int pf_check_finite_n(const double *x, size_t n, const char *fn, const char *what);
/* finite and > 0 */
int pf_check_positive(double x, const char *fn, const char *what);
/* finite and >= 0 */
int pf_check_nonnegative(double x, const char *fn, const char *what);
/* finite and within [lo, hi] */
int pf_check_range(double x, double lo, double hi, const char *fn, const char *what);
/* a whole number within [lo, hi] */
int pf_check_int_range(long long x, long long lo, long long hi, const char *fn, const char *what);
/* index i < n of a kind of thing (`kind` names it: "object", "point", "surface"); the message says how many
 * there are */
int pf_check_index(uint64_t i, uint64_t n, const char *fn, const char *kind);
/* n items of `elem` bytes fit in memory: n * elem does not overflow and stays below half the address space (a
 * negative count converted to size_t lands there) */
int pf_check_size(size_t n, size_t elem, const char *fn, const char *what);
/* `name` is one of names[0 .. count): *index is its position; else the message lists the names (`what` says what
 * they name: "executor", "query structure") */
int pf_check_name(const char *name, const char *const *names, int count, const char *fn, const char *what,
                  int *index);
/* a value of an enumeration with `count` members [0, count) */
int pf_check_enum(int value, int count, const char *fn, const char *what);

#endif
