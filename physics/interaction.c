/* The table of interaction kinds (interaction.h): a new model of interaction is a file defining its
 * pf_interaction_ops and one entry here. */
#include "interaction.h"

const pf_interaction_ops *const pf_interaction_kinds[PF_INTERACTION_KINDS] = {
    [PF_INTERACTION_SPRINGS] = &pf_springs_interaction,
    [PF_INTERACTION_CONTACTS] = &pf_contacts_interaction,
};
