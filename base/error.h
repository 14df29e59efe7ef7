/* Private helpers to record the thread's last error message (see pf_last_error). */
#ifndef PF_BASE_ERROR_H
#define PF_BASE_ERROR_H

#include "physflow/base.h"

#include <stdio.h>
#include <stdlib.h>

/* Records a formatted message for pf_last_error() and returns `code`, so callers write
 * `return pf_error(PF_EINVAL, "threads must be >= 1, got %d", n);`. */
int pf_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Internal invariants (bugs, never caller data). On in every build: the cost is negligible. */
#define PF_ASSERT(cond)                                                                                      \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: PhysFlow internal error: assertion '%s' failed\n", __FILE__, __LINE__,  \
                    #cond);                                                                                  \
            abort();                                                                                         \
        }                                                                                                    \
    } while (0)

/* Public-entry validation: returns PF_EINVAL with a message naming the failed condition. */
#define PF_CHECK_ARG(cond)                                                                                   \
    do {                                                                                                     \
        if (!(cond)) return pf_error(PF_EINVAL, "%s: invalid argument: %s", __func__, #cond);                \
    } while (0)

#endif
