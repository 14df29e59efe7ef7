/* SOFA's hexahedral FEM with its own mass (HexahedronFEMForceFieldAndMass, HexahedralFEMForceFieldAndMass): the
 * node's object gets the mass of `density` (kg/m^3, SOFA's default 1) over its hexahedra in the STATE walk, and the
 * hexahedral FEM of HexahedronFEMForceField / HexahedralFEMForceField in the FORCES walk (both walks call it:
 * sc_both_stages).
 *
 * The mass is lumped: density x volume / 8 at each corner of each element, the masses SOFA's components pull
 * gravity on. SOFA's `lumpedMass` chooses between its element mass matrices and their row sums; those matrices
 * are not the trilinear element's (integrateMass/integrateVolume evaluate every entry with the first corner's
 * signs, giving 8/27 density x volume on every pair of corners), so neither is the inertia of the mass above: the
 * mass PhysFlow's diagonal masses can hold is the one that makes gravity and inertia agree. */
#include "components.h"

#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

/* STATE walk: the mass */
static int hexa_mass(pf_scene_component *c)
{
    double rho = 1;
    int lumped = 0, rc;
    if ((rc = pf_scene_component_real(c, "density", -1e300, 1e300, &rho)) < 0) return rc;
    if (!(rho > 0)) return pf_scene_component_error(c, PF_EINVAL, "%s: density must be > 0, got %g", TYPE(c), rho);
    if ((rc = sc_parse_bool(c, "lumpedMass", &lumped)) < 0) return rc;
    if (rc == 1 && !lumped)
        pf_scene_component_warning(c, "%s: lumpedMass=\"false\": the mass is lumped (density x volume / 8 at each "
                                   "corner); PhysFlow's masses are diagonal", TYPE(c));
    if ((rc = sc_density_masses(c, SC_MASS_HEXAHEDRA, rho))) return rc;
    /* the FEM's attributes are read in the FORCES walk, which warns about unknown ones */
    for (const xmlAttr *a = c->el->properties; a; a = a->next)
        (void)pf_scene_component_string(c, (const char *)a->name);
    return PF_OK;
}

static int fem_and_mass(pf_scene_component *c, int hexahedral)
{
    if (c->stage == PF_SCENE_STAGE_STATE) return hexa_mass(c);
    static const char *const mass_attrs[] = {"density", "lumpedMass", "topology", "geometryState"};
    for (size_t k = 0; k < sizeof mass_attrs / sizeof *mass_attrs; k++) /* read in the STATE walk */
        (void)pf_scene_component_string(c, mass_attrs[k]);
    return hexahedral ? sc_hexahedral_fem(c, NULL) : sc_hexa_fem(c, NULL);
}

int sc_hexa_fem_and_mass(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return fem_and_mass(c, 0);
}

int sc_hexahedral_fem_and_mass(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    return fem_and_mass(c, 1);
}
