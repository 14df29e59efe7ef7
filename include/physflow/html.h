/* PhysFlow's run viewer: one self-contained HTML page (no network, no server) that replays a world in 3D, coloured
 * by object, owning worker or solver group, beside the per-worker task timeline of the step shown. */
#ifndef PHYSFLOW_HTML_H
#define PHYSFLOW_HTML_H

#include "physflow/base.h"
#include "physflow/physics.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error rule: PF_OK or a negative PF_E* code with pf_last_error(). PF_EIO: the page exists and def.force is 0
 * (nothing is written), its folder takes no file, three.js cannot be read, or the write failed (the page is
 * written whole, through a temporary file renamed into place, or not at all). */

/// The writer of one page: begin, a frame after each step, end.
typedef struct pf_html_writer pf_html_writer;

/// How the page is made. Get defaults from pf_html_default_def().
typedef struct pf_html_def {
    uint32_t every;        ///< a frame every N steps (>= 1); 0 (default): every step until the frames pass
                           ///< max_bytes, then every 2nd, 4th, ... step, the frames kept so far thinned alike
    size_t max_bytes;      ///< with every = 0: the frames' budget in the page, bytes (>= 1 MiB); default 16 MiB
                           ///< (the page adds about 1 MB: three.js, the surfaces' triangles, the per-step series)
    uint32_t max_contacts; ///< contacts drawn per frame at most (the first the collision stage lists); default
                           ///< 4000; 0 records none and leaves the world's contact callback alone
    int force;             ///< 1: replace an existing page; default 0
    const char *title;     ///< the page's title; default "PhysFlow run"
    const char *three_dir; ///< Debian's libjs-three folder, whose three.min.js and
                           ///< examples/js/controls/OrbitControls.js are inlined into the page; default
                           ///< "/usr/share/javascript/three"
} pf_html_def;

/// The defaults above.
PF_API pf_html_def pf_html_default_def(void);

/// Starts a page of world w at `path` and records its first frame (the current state). While the writer is
/// open it traces w's runtime (pf_runtime_trace_start; the spans of each step are drained at its frame, so a host
/// trace cannot run beside it) and, when def.max_contacts > 0, holds w's contact callback. Checks the path
/// before anything runs. What is drawn is fixed here: the surfaces, and the points of each object without one
/// (objects and surfaces added later are not drawn; removed ones disappear). *out receives the writer.
PF_API int pf_html_begin(const char *path, pf_world *w, const pf_html_def *def, pf_html_writer **out);
/// Records what the step just run did (call after each pf_world_step of one step): its stage times,
/// contacts and solver groups, and on frame steps the positions, each object's worker and group, the contacts
/// and the per-worker spans of the step. w is the world the writer began with.
PF_API int pf_html_add_frame(pf_html_writer *h, pf_world *w);
/// Writes the page, gives w's tracing and contact callback back, and frees the writer (also on failure).
PF_API int pf_html_end(pf_html_writer *h);
/// Frees the writer without writing anything (a run that failed); tracing and the callback are given back.
PF_API void pf_html_discard(pf_html_writer *h);

#ifdef __cplusplus
}
#endif
#endif
