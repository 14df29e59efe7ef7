/* Interaction force fields between two objects (Hermann et al. 2009, §3.1, figure 2's "interaction force") as kinds
 * behind one set of operations: the solvers record and run them through the table below, never by model. A kind
 * is one file (its model and its pf_interaction_ops) plus one entry in pf_interaction_kinds (interaction.c). */
#ifndef PF_PHYSICS_INTERACTION_H
#define PF_PHYSICS_INTERACTION_H

#include "world.h"

struct pf_blocks;

/* What an interaction does. `out` is always the memory of the field's output datum of the phase (dout[phase]):
 * per-link results that its two objects' tasks gather (pf_gather_links), 3 values per link for the a ends then
 * 3 per link for the b ends. For a field within one object, xb, vb and inb are xa, va and ina. */
typedef struct pf_interaction_ops {
    const char *name;
    /* the forces at (x, v) into `out` (phase PF_PHASE_FORCE), and the stiffness the df phases use when want_jac */
    void (*force)(const pf_springset *s, const double *xa, const double *xb, const double *va, const double *vb,
                  void *out, int want_jac);
    /* fact K (in_b - in_a) into `out` (phase PF_PHASE_RHS or PF_PHASE_DF), K from the latest force evaluation */
    void (*dforce)(const pf_springset *s, const double *ina, const double *inb, void *out, int phase, double fact);
    /* vec += the results in `out` of o's side (0: a ends, 1: b ends, 2: both, for a field within one object), at
     * the points `keep` keeps (world.h; NULL: all), in the same order as for all */
    void (*gather)(const pf_springset *s, int side, const pf_object *o, const void *out, double *vec,
                   const pf_point_filter *keep);
    /* Optional, with gather_df: the fused df phase of the CG loop (solver_implicit.c). map: u = J dq of o's side
     * (0: a, 1: b) at the field's points, 3 values per point, into the field's datum dmapped[side]; o's own CG
     * matvec writes it once it has p, so what another worker reads of o is these values, packed, instead of p
     * at scattered points. gather_df: vec += o's side of the df phase's results (as dforce then gather would
     * add them, bitwise), from both sides' inputs in[sd]: map's output when packed[sd], else the object's dq. */
    void (*map)(const pf_springset *s, int side, const pf_object *o, const double *dq, double *u);
    void (*gather_df)(const pf_springset *s, int side, const pf_object *o, const double *const in[2],
                      const int packed[2], double fact, double *vec);
    /* registers the field's data in the graph, owned by object `owner`: its stiffness cache (djac) and per-phase
     * outputs (dout) */
    int (*register_data)(pf_graph *g, pf_springset *s, uint32_t owner);
    /* estimated ns of one force evaluation, until the runtime has measured it */
    double (*cost)(const pf_springset *s);
    /* the operator of the df phase (kfact K with kfact = k->kfact, plus what else that phase adds, e.g. contact
     * damping) into k as 3x3 blocks, the a object's point p numbered base_a + p, the b object's base_b + p
     * (assembly.h); NULL: not assembled, the group is solved by CG */
    void (*assemble)(const pf_springset *s, uint32_t base_a, uint32_t base_b, struct pf_blocks *k);
    /* 1 when df is linearised at the current positions: the df tasks read both objects' x */
    int df_reads_x;
    /* frees what the kind holds beyond the springset's own arrays; NULL when nothing */
    void (*destroy)(pf_springset *s);
} pf_interaction_ops;

/* The kinds (pf_springset.kind indexes this table). */
enum { PF_INTERACTION_SPRINGS = 0, PF_INTERACTION_CONTACTS, PF_INTERACTION_JOINTS, PF_INTERACTION_KINDS };
extern const pf_interaction_ops *const pf_interaction_kinds[PF_INTERACTION_KINDS];

static inline const pf_interaction_ops *pf_interaction_of(const pf_springset *s)
{
    return pf_interaction_kinds[s->kind];
}

/* The kinds' operations, defined in their own files (springs.c, contacts.c, joint_springs.c). */
extern const pf_interaction_ops pf_springs_interaction, pf_contacts_interaction, pf_joints_interaction;

/* vec += the per-link outputs of o's interactions at the points `keep` keeps (NULL: all); outs[j] is link j's
 * output of one phase */
void pf_gather_links(const pf_object *o, void *const *outs, double *vec, const pf_point_filter *keep);
/* appends the reads of o's interaction outputs of `phase` to acc (PF_EINVAL when they do not fit) */
int pf_link_reads(const pf_object *o, int phase, pf_access *acc, uint32_t *na);
/* frees what an interaction holds (not the springset itself) */
void pf_interaction_free(pf_springset *s);

#endif
