/* Independent Rigid3d frames and the joints between them (SOFA's JointSpringForceField examples): a MechanicalObject
 * template="Rigid3d" of several frames with no BeamFEMForceField is one rigid body per frame, of SOFA's Rigid3 mass
 * (UniformMass: each frame's mass and its inertia, scenes/components_beam.c); a JointSpringForceField joins two
 * frames, of that node or of a Rigid3d node mapped onto its frames by RigidMapping (SOFA's Rigid->Rigid
 * RigidMapping: each child frame fixed in the frame of its parent, the child's position and orientation given in
 * the parent frame), as pf_world_add_joint_springs with the child frames as the joint's frames. */
#include "components.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE(c) pf_scene_component_type(c)

int sc_create_frames(sc_loader *L, sc_node *n)
{
    if (!n->mass_line)
        return sc_error(L, n->mo_line, PF_EPARSE, "Rigid3d MechanicalObject in node '%s' has %u frames and no "
                        "BeamFEMForceField: PhysFlow makes each frame a rigid body, which needs a UniformMass (the "
                        "frames' mass and inertia)", n->name, n->beam_frames);
    uint32_t N = n->beam_frames;
    n->frame_objects = pf_calloc(N, sizeof *n->frame_objects);
    if (!n->frame_objects) return sc_error(L, n->mo_line, PF_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < N; k++) {
        const double *f = n->beam_pose + 7 * (size_t)k; /* x y z, quaternion w x y z */
        pf_rigid_def d = pf_rigid_default_def();
        for (int i = 0; i < 3; i++) d.position[i] = f[i] + n->offset[i];
        d.orientation[0] = f[4], d.orientation[1] = f[5], d.orientation[2] = f[6], d.orientation[3] = f[3];
        if (n->beam_twist) {
            memcpy(d.velocity, n->beam_twist + 6 * (size_t)k, sizeof d.velocity);
            memcpy(d.angular_velocity, n->beam_twist + 6 * (size_t)k + 3, sizeof d.angular_velocity);
        }
        /* SOFA's Rigid3 mass: the frame is the body's com, its inertia the mass times the matrix per unit mass */
        d.mass = n->beam.frame_mass;
        memcpy(d.inertia, n->beam.inertia, sizeof d.inertia);
        d.solver = n->solver;
        if (!n->solver_line) d.solver.kind = PF_SOLVER_IMPLICIT_EULER; /* held below */
        int rc = pf_world_add_rigid(L->scene->world, &d, &n->frame_objects[k]);
        if (rc) {
            char copy[400];
            snprintf(copy, sizeof copy, "%s", pf_last_error());
            return sc_error(L, n->mo_line, rc, "Rigid3d MechanicalObject, frame %u: %s", k, copy);
        }
        if (!n->solver_line) { /* no solver reaches it: it stays, as SOFA leaves it */
            const uint32_t pts[2] = {0, 1};
            if ((rc = pf_world_fix_points(L->scene->world, n->frame_objects[k], pts, 2))) return rc;
        }
    }
    if (!n->solver_line)
        sc_report(L, PF_SCENE_WARNING, n->mo_line, "no solver in node '%s' or above: its frames stay where they are",
                  n->name);
    n->object = n->frame_objects[0];
    return PF_OK;
}

/* ---- the frames a JointSpringForceField's indices name ---- */

/* Frame k of the component's node: its body and its pose in that body's frame (anchor, quaternion x y z w). */
typedef struct joint_frames {
    const sc_node *bodies; /* the node of independent frames */
    const sc_node *own;    /* the component's node (bodies itself, or a RigidMapping child of it) */
    uint32_t n;            /* frames of `own` */
    uint32_t *body;        /* owned: the body of each frame (NULL: frame k is body k) */
} joint_frames;

/* pose of own's frame k (x y z, quaternion w x y z) */
static const double *own_pose(const joint_frames *jf, uint32_t k)
{
    return jf->own->beam_frames ? jf->own->beam_pose + 7 * (size_t)k : jf->own->pose;
}

/* The body of each child frame from its RigidMapping: rigidIndexPerPoint of one entry per frame (SOFA's), or as
 * the counts of frames per parent frame when they add up to the frames (the older SOFA's `repartition`, the form of
 * SOFA's JointSpringForceField examples), else `index` for all. */
static int mapped_bodies(pf_scene_component *c, joint_frames *jf)
{
    const sc_node *m = jf->own;
    uint32_t N = jf->n, P = jf->bodies->beam_frames;
    jf->body = pf_malloc((size_t)N * sizeof *jf->body);
    if (!jf->body) return pf_scene_component_error(c, PF_ENOMEM, "out of memory");
    uint64_t sum = 0;
    for (uint32_t k = 0; k < m->nrigid_index; k++) sum += m->rigid_index[k];
    if (m->nrigid_index == N) {
        memcpy(jf->body, m->rigid_index, (size_t)N * sizeof *jf->body);
    } else if (m->nrigid_index && sum == N) {
        uint32_t f = 0;
        for (uint32_t p = 0; p < m->nrigid_index; p++)
            for (uint32_t j = 0; j < m->rigid_index[p]; j++) jf->body[f++] = p;
    } else if (m->nrigid_index) {
        return pf_scene_component_error(c, PF_EINVAL, "%s: the RigidMapping of node '%s' (line %d) gives %u "
                                        "rigidIndexPerPoint entries for its %u frames: one per frame, or the number of "
                                        "frames of each parent frame (summing to %u)", TYPE(c), m->name,
                                        m->mapping_line, m->nrigid_index, N, N);
    } else {
        for (uint32_t k = 0; k < N; k++) jf->body[k] = m->rigid_index0;
    }
    for (uint32_t k = 0; k < N; k++)
        if (jf->body[k] >= P)
            return pf_scene_component_error(c, PF_EINVAL, "%s: the RigidMapping of node '%s' (line %d) maps frame %u "
                                            "onto frame %u of node '%s', which has %u", TYPE(c), m->name,
                                            m->mapping_line, k, jf->body[k], jf->bodies->name, P);
    return PF_OK;
}

static int find_frames(pf_scene_component *c, joint_frames *jf)
{
    const sc_node *n = c->node;
    memset(jf, 0, sizeof *jf);
    if (n->frame_objects && n->mapping == SC_MAP_NONE) {
        jf->bodies = jf->own = n;
        jf->n = n->beam_frames;
        return PF_OK;
    }
    if (n->rigid && n->mapping == SC_MAP_RIGID && n->parent && n->parent->frame_objects) {
        jf->bodies = n->parent;
        jf->own = n;
        jf->n = n->beam_frames ? n->beam_frames : 1;
        return mapped_bodies(c, jf);
    }
    if (n->beam_line)
        return pf_scene_component_error(c, PF_ENOTSUP, "%s in node '%s': its frames are a beam's "
                                        "(BeamFEMForceField): joints join independent frames only", TYPE(c), n->name);
    return pf_scene_component_error(c, PF_ENOTSUP, "%s in node '%s': needs a Rigid3d MechanicalObject of several "
                                    "frames (no BeamFEMForceField) in the node, or one mapped by RigidMapping onto "
                                    "such frames", TYPE(c), n->name);
}

/* ---- SOFA's `spring` data: BEGIN_SPRING i j [KEYWORD values ...] END_SPRING, repeated ---- */

/* the next white-space separated token of *s into tok (cap bytes); 0 at the end */
static int next_token(const char **s, char *tok, size_t cap)
{
    const char *p = *s;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    size_t len = 0;
    while (p[len] && !(p[len] == ' ' || p[len] == '\t' || p[len] == '\n' || p[len] == '\r')) len++;
    if (!len) return 0;
    snprintf(tok, cap, "%.*s", (int)(len < cap ? len : cap - 1), p);
    *s = p + len;
    return 1;
}

/* k numbers after keyword `key` of spring `which` */
static int read_numbers(pf_scene_component *c, const char **s, const char *key, int which, int k, double *out)
{
    char tok[64], *end;
    for (int i = 0; i < k; i++) {
        if (!next_token(s, tok, sizeof tok))
            return pf_scene_component_error(c, PF_EPARSE, "%s: spring %d: %s needs %d numbers", TYPE(c), which, key, k);
        out[i] = strtod(tok, &end);
        if (*end || !isfinite(out[i]))
            return pf_scene_component_error(c, PF_EPARSE, "%s: spring %d: %s: '%s' is not a number", TYPE(c), which,
                                            key, tok);
    }
    return PF_OK;
}

typedef struct parsed_spring {
    uint32_t i, j;
    pf_joint_spring d;
    int rest_given; /* REST_T: SOFA then takes the rest offsets from the frames' initial poses (bwdInit) */
} parsed_spring;

/* One spring from BEGIN_SPRING on (SOFA's JointSpring operator>>, its defaults: pf_joint_spring_default). */
static int parse_spring(pf_scene_component *c, const char **s, int which, uint32_t nframes, parsed_spring *out)
{
    char tok[64];
    double v[6];
    pf_joint_spring *d = &out->d;
    *d = pf_joint_spring_default();
    out->rest_given = 0;
    if (!next_token(s, tok, sizeof tok) || strcmp(tok, "BEGIN_SPRING"))
        return pf_scene_component_error(c, PF_EPARSE, "%s: spring %d: expected BEGIN_SPRING, got '%s'", TYPE(c), which,
                                        tok);
    PF_TRY(read_numbers(c, s, "BEGIN_SPRING", which, 2, v));
    for (int e = 0; e < 2; e++)
        if (!(v[e] >= 0 && v[e] < nframes && v[e] == floor(v[e])))
            return pf_scene_component_error(c, PF_EINVAL, "%s: spring %d: frame %g is not one of the %u frames",
                                            TYPE(c), which, v[e], nframes);
    out->i = (uint32_t)v[0], out->j = (uint32_t)v[1];
    for (;;) {
        if (!next_token(s, tok, sizeof tok))
            return pf_scene_component_error(c, PF_EPARSE, "%s: spring %d: no END_SPRING", TYPE(c), which);
        if (!strcmp(tok, "END_SPRING")) break;
        if (!strcmp(tok, "FREE_AXIS")) {
            PF_TRY(read_numbers(c, s, tok, which, 6, v));
            for (int i = 0; i < 6; i++) d->free_axis[i] = v[i] != 0;
        } else if (!strcmp(tok, "KS_T") || !strcmp(tok, "KS_R")) {
            PF_TRY(read_numbers(c, s, tok, which, 2, v));
            double *k = tok[3] == 'T' ? d->ks_t : d->ks_r;
            k[0] = v[0], k[1] = v[1];
        } else if (!strcmp(tok, "KS_B") || !strcmp(tok, "KD")) {
            PF_TRY(read_numbers(c, s, tok, which, 1, v));
            *(tok[1] == 'S' ? &d->ks_b : &d->kd) = v[0];
        } else if (!strcmp(tok, "R_LIM_X") || !strcmp(tok, "R_LIM_Y") || !strcmp(tok, "R_LIM_Z")) {
            PF_TRY(read_numbers(c, s, tok, which, 2, v));
            int a = tok[6] - 'X';
            d->limits[2 * a] = v[0], d->limits[2 * a + 1] = v[1];
        } else if (!strcmp(tok, "REST_T")) {
            PF_TRY(read_numbers(c, s, tok, which, 3, v));
            out->rest_given = 1;
        } else if (!strcmp(tok, "REST_R")) {
            PF_TRY(read_numbers(c, s, tok, which, 4, d->rest_rotation));
        } else {
            return pf_scene_component_error(c, PF_EPARSE, "%s: spring %d: unknown keyword '%s' (FREE_AXIS, KS_T, KS_R, "
                                            "KS_B, KD, R_LIM_X, R_LIM_Y, R_LIM_Z, REST_T, REST_R)", TYPE(c), which,
                                            tok);
        }
    }
    if (d->ks_t[0] < 0 || d->ks_t[1] < 0 || d->ks_r[0] < 0 || d->ks_r[1] < 0 || d->ks_b < 0 || d->kd < 0)
        return pf_scene_component_error(c, PF_EINVAL, "%s: spring %d: KS_T, KS_R, KS_B and KD must be >= 0", TYPE(c),
                                        which);
    for (int a = 0; a < 3; a++)
        if (d->limits[2 * a] > d->limits[2 * a + 1])
            return pf_scene_component_error(c, PF_EINVAL, "%s: spring %d: R_LIM_%c %g %g: min > max", TYPE(c), which,
                                            'X' + a, d->limits[2 * a], d->limits[2 * a + 1]);
    return PF_OK;
}

static void quat_mul(const double a[4], const double b[4], double o[4]) /* (w, x, y, z) */
{
    o[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    o[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    o[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    o[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

/* The world pose of frame k at the start: its body's pose composed with its pose in the body (centre, quaternion
 * w x y z). */
static void initial_pose(const joint_frames *jf, uint32_t k, double c[3], double q[4])
{
    const double *f = own_pose(jf, k);
    if (!jf->body) {
        for (int i = 0; i < 3; i++) c[i] = f[i];
        memcpy(q, f + 3, 4 * sizeof *q);
        return;
    }
    const double *b = jf->bodies->beam_pose + 7 * (size_t)jf->body[k];
    double p[4] = {0, f[0], f[1], f[2]}, bi[4] = {b[3], -b[4], -b[5], -b[6]}, t[4], r[4];
    quat_mul(b + 3, p, t);
    quat_mul(t, bi, r);
    for (int i = 0; i < 3; i++) c[i] = b[i] + r[1 + i];
    quat_mul(b + 3, f + 3, q);
}

/* Spring sp's frames as the joint's: their bodies, anchors and orientations; REST_T's rest offsets. */
static int add_joint(pf_scene_component *c, const joint_frames *jf, parsed_spring *sp, int which)
{
    uint32_t e[2] = {sp->i, sp->j}, body[2];
    for (int s = 0; s < 2; s++) {
        body[s] = jf->body ? jf->body[e[s]] : e[s];
        if (!jf->body) continue;
        const double *f = own_pose(jf, e[s]);
        double *anchor = s ? sp->d.anchor_b : sp->d.anchor_a, *frame = s ? sp->d.frame_b : sp->d.frame_a;
        memcpy(anchor, f, 3 * sizeof *anchor);
        frame[0] = f[4], frame[1] = f[5], frame[2] = f[6], frame[3] = f[3];
    }
    if (body[0] == body[1])
        return pf_scene_component_error(c, PF_ENOTSUP, "%s: spring %d joins frames %u and %u, both on frame %u of "
                                        "node '%s': a joint joins two bodies", TYPE(c), which, sp->i, sp->j, body[0],
                                        jf->bodies->name);
    if (sp->rest_given) { /* SOFA's bwdInit: c_j - c_i and q_j q_i^-1 at the start */
        double ci[3], qi[4], cj[3], qj[4], qii[4], r[4];
        initial_pose(jf, sp->i, ci, qi);
        initial_pose(jf, sp->j, cj, qj);
        for (int i = 0; i < 3; i++) sp->d.rest_translation[i] = cj[i] - ci[i];
        qii[0] = qi[0], qii[1] = -qi[1], qii[2] = -qi[2], qii[3] = -qi[3];
        quat_mul(qj, qii, r);
        sp->d.rest_rotation[0] = r[1], sp->d.rest_rotation[1] = r[2], sp->d.rest_rotation[2] = r[3];
        sp->d.rest_rotation[3] = r[0];
    }
    const pf_object_id *o = jf->bodies->frame_objects;
    int rc = pf_world_add_joint_springs(c->L->scene->world, o[body[0]], o[body[1]], &sp->d, 1, NULL);
    if (rc) {
        char copy[400];
        snprintf(copy, sizeof copy, "%s", pf_last_error());
        return pf_scene_component_error(c, rc, "%s: spring %d: %s", TYPE(c), which, copy);
    }
    return PF_OK;
}

int sc_joint_springs(pf_scene_component *c, void *ctx)
{
    (void)ctx;
    static const char *const ignored[] = {"template", "showLawfulTorsion", "showExtraTorsion", "showFactorSize",
                                          "period", "reinit"};
    SC_IGNORE_ATTRS(c, ignored);
    static const char *const refused[] = {"object1", "object2", "infile", "outfile"};
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
        if (pf_scene_component_string(c, refused[k]))
            return pf_scene_component_error(c, PF_ENOTSUP, "%s: '%s' is not supported (the springs join frames of "
                                            "the node's own MechanicalObject)", TYPE(c), refused[k]);
    joint_frames jf;
    int rc = find_frames(c, &jf);
    const char *s = pf_scene_component_string(c, "spring");
    if (!rc && !s) pf_scene_component_warning(c, "%s: no 'spring': it joins nothing", TYPE(c));
    int which = 0;
    char tok[64];
    while (!rc && s) {
        const char *peek = s;
        if (!next_token(&peek, tok, sizeof tok)) break;
        parsed_spring sp;
        if (!(rc = parse_spring(c, &s, which, jf.n, &sp))) rc = add_joint(c, &jf, &sp, which);
        which++;
    }
    pf_free(jf.body);
    if (rc) return rc;
    c->L->scene->summary.force_fields++;
    return PF_OK;
}
