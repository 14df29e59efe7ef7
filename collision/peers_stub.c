/* Stand-in backends for the peer broad phases (Bullet, CGAL) that this build lacks: creating one reports
 * PF_ENOTSUP. The build defines PF_HAVE_BULLET / PF_HAVE_CGAL for the peers it compiles (peer_*.cpp). Each stub
 * names its method itself, so this file calls nothing in broadphase.c (which calls it: no cycle). */
#include "broadphase_backend.h"
#include "base/error.h"

#if !defined(PF_HAVE_BULLET) || !defined(PF_HAVE_CGAL)
static int not_built(const char *method)
{
    return pf_error(PF_ENOTSUP, "broad phase %s is not built (meson option peers, tools/setup-deps --peers)", method);
}
#endif

#ifndef PF_HAVE_BULLET
static int stub_dbvt(const pf_broadphase_def *def, void **state)
{
    (void)def, (void)state;
    return not_built("bullet-dbvt");
}

static int stub_sap(const pf_broadphase_def *def, void **state)
{
    (void)def, (void)state;
    return not_built("bullet-sap");
}

const pf_bp_backend pf_bp_bullet_dbvt_backend = {stub_dbvt, NULL, NULL};
const pf_bp_backend pf_bp_bullet_sap_backend = {stub_sap, NULL, NULL};
#endif
#ifndef PF_HAVE_CGAL
static int stub_cgal(const pf_broadphase_def *def, void **state)
{
    (void)def, (void)state;
    return not_built("cgal");
}

const pf_bp_backend pf_bp_cgal_backend = {stub_cgal, NULL, NULL};
#endif
