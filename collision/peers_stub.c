/* Stand-in backends for the peer broad phases (Bullet, CGAL) that this build lacks: creating one reports
 * PF_ENOTSUP. The build defines PF_HAVE_BULLET / PF_HAVE_CGAL for the peers it compiles (peer_*.cpp). */
#include "broadphase_backend.h"
#include "base/error.h"

#if !defined(PF_HAVE_BULLET) || !defined(PF_HAVE_CGAL)
static int stub_create(const pf_broadphase_def *def, void **state)
{
    (void)state;
    return pf_error(PF_ENOTSUP, "broad phase %s is not built (meson option peers, tools/setup-deps --peers)",
                    pf_broadphase_method_name(def->method));
}
#endif

#ifndef PF_HAVE_BULLET
const pf_bp_backend pf_bp_bullet_dbvt_backend = {stub_create, NULL, NULL};
const pf_bp_backend pf_bp_bullet_sap_backend = {stub_create, NULL, NULL};
#endif
#ifndef PF_HAVE_CGAL
const pf_bp_backend pf_bp_cgal_backend = {stub_create, NULL, NULL};
#endif
