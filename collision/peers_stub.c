/* Placeholder backends until the method is implemented: creating one reports PF_ENOTSUP. */
#include "broadphase_backend.h"
#include "base/error.h"

static int stub_create(const pf_broadphase_def *def, void **state)
{
    (void)state;
    return pf_error(PF_ENOTSUP, "broad phase %s is not built", pf_broadphase_method_name(def->method));
}

const pf_bp_backend pf_bp_bullet_dbvt_backend = {stub_create, NULL, NULL};
const pf_bp_backend pf_bp_bullet_sap_backend = {stub_create, NULL, NULL};
const pf_bp_backend pf_bp_cgal_backend = {stub_create, NULL, NULL};
