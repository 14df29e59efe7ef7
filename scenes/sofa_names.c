/* SOFA components PhysFlow does not construct: those that only draw, log or configure SOFA's GUI (skipped with a
 * note), SOFA's constraint-based pipeline (one clear error), and the nearest known name for a misspelt one. */
#include "scene_internal.h"

#include <ctype.h>
#include <string.h>

/* Components whose only effect in SOFA is drawing, writing files or the GUI: the simulation is the same
 * without them. (The registry's visual-only entries are skipped the same way; these are the rest.) */
static const char *const draw_or_log[] = {
    "OglLabel", "OglColorMap", "OglShader", "OglTexture", "OglTexture2D", "OglViewport", "OglGrid", "OglLineAxis",
    "OglCylinderModel", "OglShadowShader", "OglFloatVariable", "OglFloat3Variable", "OglFloat4Variable",
    "OglIntVariable", "OglMatrix4Variable", "OglRenderingSRGB", "OglOITShader", "OglShaderDefineMacro",
    "OglShaderVisualModel", "OglTetrahedralModel", "OglAttribute", "OglFloatAttribute", "OglFloat3Attribute",
    "OrderIndependentTransparencyManager", "ClipPlane", "Light", "VisualTransform", "VisualManagerPass",
    "VisualManagerSecondaryPass", "CompositingVisualLoop", "Camera", "RecordedCamera", "DataDisplay",
    "TextureInterpolation", "SlicedVolumetricModel", "PointSplatModel", "VisualMesh", "CylinderVisualModel",
    "TrailRenderer", "Visual3DText", "VisualPointCloud", "MechanicalStateVisualization", "DrawTools",
    "VTKExporter", "MeshExporter", "STLExporter", "OBJExporter", "VisualModelOBJExporter", "WriteState",
    "WriteTopology", "Monitor", "ExtraMonitor", "EnergyMonitor", "ViewerSetting", "StatsSetting",
    "MouseButtonSetting", "AttachBodyButtonSetting", "FixPickedParticleButtonSetting",
    "ConstraintAttachButtonSetting", "SofaDefaultPathSetting", "AddFrameButtonSetting", "AddRecordedCameraButtonSetting",
    "StartNavigationButtonSetting", "PauseAnimation", "PauseAnimationOnEvent", "VisualStyleSetting",
    "VisualVectorField", "BlenderExporter",
};

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

/* SOFA's other names of components the registry holds under one name (SOFA registers both spellings). */
static const char *const aliases[][2] = {
    {"MeshOBJLoader", "MeshObjLoader"},
    /* the short name SOFA's sphere model was registered under before SphereCollisionModel, which older example
     * scenes write (Triangle, Line, Point and their older forms are in the component table) */
    {"Sphere", "SphereCollisionModel"},
    {"RegularGrid", "RegularGridTopology"}, /* SOFA's RegularGridTopology registers this alias too */
    /* the projective constraints' names before SOFA v23.06 added "Projective" (FixedConstraint and
     * ParabolicConstraint are in the component table), which scenes written for older SOFA use */
    {"FixedPlaneConstraint", "FixedPlaneProjectiveConstraint"},
    {"PartialFixedConstraint", "PartialFixedProjectiveConstraint"},
    {"LinearMovementConstraint", "LinearMovementProjectiveConstraint"},
    {"AffineMovementConstraint", "AffineMovementProjectiveConstraint"},
    {"AttachConstraint", "AttachProjectiveConstraint"},
    {"FixedRotationConstraint", "FixedRotationProjectiveConstraint"},
    {"OscillatorConstraint", "OscillatorProjectiveConstraint"},
    {"PatchTestMovementConstraint", "PatchTestMovementProjectiveConstraint"},
    {"ProjectToLineConstraint", "LineProjectiveConstraint"},
    {"ProjectToPlaneConstraint", "PlaneProjectiveConstraint"},
    {"ProjectToPointConstraint", "PointProjectiveConstraint"},
    {"ProjectDirectionConstraint", "DirectionProjectiveConstraint"},
};

const char *sc_sofa_alias(const char *name)
{
    for (size_t k = 0; k < sizeof aliases / sizeof *aliases; k++)
        if (!strcmp(aliases[k][0], name)) return aliases[k][1];
    return NULL;
}

int sc_sofa_draw_or_log(const char *name)
{
    for (size_t k = 0; k < sizeof draw_or_log / sizeof *draw_or_log; k++)
        if (!strcmp(draw_or_log[k], name)) return 1;
    return ends_with(name, "ButtonSetting"); /* the GUI's mouse tools */
}

int sc_sofa_constraint_pipeline(const char *name)
{
    static const char *const names[] = {"FreeMotionAnimationLoop", "ConstraintAnimationLoop",
                                        "MultiStepAnimationLoop", "GenericConstraintSolver", "LCPConstraintSolver",
                                        "BlockGaussSeidelConstraintSolver", "ProjectedGaussSeidelConstraintSolver",
                                        "UnbuiltGaussSeidelConstraintSolver", "NNCGConstraintSolver",
                                        "ImprovedJacobiConstraintSolver", "FrictionContactConstraint",
                                        "BilateralInteractionConstraint", "BilateralLagrangianConstraint",
                                        "SlidingConstraint", "SlidingLagrangianConstraint", "StopperConstraint",
                                        "StopperLagrangianConstraint", "UniformConstraint",
                                        "UniformLagrangianConstraint"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (!strcmp(names[k], name)) return 1;
    return ends_with(name, "ConstraintCorrection");
}

/* Edit distance (insert, delete, substitute: 1 each; a change of letter case alone: 0, so "MeshObjloader" is
 * MeshObjLoader), bounded: names longer than 63 bytes are not compared. */
static unsigned distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63) return 1000;
    unsigned row[64];
    for (size_t j = 0; j <= m; j++) row[j] = (unsigned)j;
    for (size_t i = 1; i <= n; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= m; j++) {
            unsigned up = row[j];
            unsigned same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            unsigned best = diag + !same;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[m];
}

const char *sc_nearest_component(const pf_scene_registry *r, const char *name)
{
    /* a few edits for a long name, one for a short one: farther names are other components, not typos */
    size_t len = strlen(name);
    unsigned limit = len >= 10 ? 2 : 1, best = limit + 1;
    const char *found = NULL;
    for (size_t k = 0; k < r->entries.n; k++) {
        unsigned d = distance(name, r->entries.v[k].name);
        if (d < best) {
            best = d;
            found = r->entries.v[k].name;
        }
    }
    return found;
}
