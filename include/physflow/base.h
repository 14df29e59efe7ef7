/* PhysFlow base: export macro, status codes and the error-message rule shared by every module. */
#ifndef PHYSFLOW_BASE_H
#define PHYSFLOW_BASE_H

#include <stddef.h>

#if defined(PF_BUILDING_LIBRARY) && defined(__GNUC__)
#define PF_API __attribute__((visibility("default")))
#else
#define PF_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes. The rule for the whole API: a function returning `int` returns PF_OK (0) on success or one
/// of the negative codes below; the message that explains a failure is then available from pf_last_error()
/// on the same thread until the next failing call. No function aborts on a caller's data.
enum {
    PF_OK = 0,
    PF_EINVAL = -1, ///< an argument is invalid (NULL where not allowed, out of range, NaN, ...)
    PF_ENOMEM = -2, ///< an allocation failed or a request exceeds the memory limit
    PF_EIO = -3,    ///< a file could not be read or written
    PF_EPARSE = -4, ///< malformed input (scene file, box file)
    PF_ESTATE = -5, ///< the call is not allowed in the object's current state (e.g. recording while running)
    PF_ENOTSUP = -6, ///< the feature is not built in (e.g. a peer library that is absent)
    PF_ENUMERIC = -7 ///< a numerical fault (NaN, infinity, divergence)
};

/// The message of the last failure on the calling thread ("" when none). Valid until the next failing call.
PF_API const char *pf_last_error(void);

/// A readable name for a status code ("PF_EINVAL", ...).
PF_API const char *pf_status_name(int status);

/// Memory hooks: every allocation PhysFlow makes goes through these. Pass NULLs to restore malloc/free.
/// Set them before creating any PhysFlow object; `alloc` must return memory aligned to at least 64 bytes.
typedef void *(*pf_alloc_fn)(size_t size, size_t alignment, void *ctx);
typedef void (*pf_free_fn)(void *ptr, void *ctx);
PF_API void pf_set_allocator(pf_alloc_fn alloc, pf_free_fn free_fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
