/* The per-thread last-error message behind pf_last_error(). */
#include "error.h"

#include <stdarg.h>

static _Thread_local char last_error[512];

int pf_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return code;
}

const char *pf_last_error(void)
{
    return last_error;
}

const char *pf_status_name(int status)
{
    switch (status) {
    case PF_OK: return "PF_OK";
    case PF_EINVAL: return "PF_EINVAL";
    case PF_ENOMEM: return "PF_ENOMEM";
    case PF_EIO: return "PF_EIO";
    case PF_EPARSE: return "PF_EPARSE";
    case PF_ESTATE: return "PF_ESTATE";
    case PF_ENOTSUP: return "PF_ENOTSUP";
    case PF_ENUMERIC: return "PF_ENUMERIC";
    default: return "PF_E?";
    }
}
