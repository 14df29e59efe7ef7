/* The table of interaction kinds (interaction.h) and the one place that runs interactions through it: a new model
 * of interaction is a file defining its pf_interaction_ops and one entry here. */
#include "interaction.h"

#include "base/error.h"

const pf_interaction_ops *const pf_interaction_kinds[PF_INTERACTION_KINDS] = {
    [PF_INTERACTION_SPRINGS] = &pf_springs_interaction,
    [PF_INTERACTION_CONTACTS] = &pf_contacts_interaction,
    [PF_INTERACTION_JOINTS] = &pf_joints_interaction,
};

void pf_gather_links(const pf_object *o, void *const *outs, double *vec, const pf_point_filter *keep)
{
    for (uint32_t j = 0; j < o->links.n; j++) {
        const pf_springset *s = o->links.v[j].s;
        pf_interaction_of(s)->gather(s, o->links.v[j].side, o, outs[j], vec, keep);
    }
}

int pf_link_reads(const pf_object *o, int phase, pf_access *acc, uint32_t *na)
{
    if (*na + o->links.n > PF_MAX_ACCESSES)
        return pf_error(PF_EINVAL, "object %u has too many interactions (%zu) for one task", o->id, o->links.n);
    for (uint32_t j = 0; j < o->links.n; j++) acc[(*na)++] = (pf_access){o->links.v[j].s->dout[phase], PF_READ};
    return PF_OK;
}

void pf_interaction_free(pf_springset *s)
{
    const pf_interaction_ops *ops = pf_interaction_of(s);
    if (ops->destroy) ops->destroy(s);
}
