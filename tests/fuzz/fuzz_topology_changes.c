/* Fuzz target: SOFA's files of timed topological changes (TopologicalChangeProcessor's `filename`,
 * scenes/topology_changes.h). Each input parses into blocks whose commands lie inside the command list, each
 * command's indices distinct, or fails with a message; never a crash. Memory is capped through PhysFlow's
 * allocation hook, so a count asking for gigabytes gets PF_ENOMEM. */
#include "physflow/base.h"
#include "scenes/topology_changes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#include "capped_alloc.h"

static void check(const sc_topology_changes *t)
{
    uint32_t cmds = 0;
    for (uint32_t b = 0; b < t->nblocks; b++) {
        if (t->blocks[b].first != cmds) abort(); /* in order, back to back */
        cmds += t->blocks[b].ncmds;
    }
    if (cmds != t->ncmds) abort();
    for (uint32_t k = 0; k < t->ncmds; k++)
        for (uint32_t i = 0; i < t->cmds[k].n; i++)
            for (uint32_t j = i + 1; j < t->cmds[k].n && j < i + 64; j++)
                if (t->cmds[k].idx[i] == t->cmds[k].idx[j]) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pf_set_allocator(capped_alloc, capped_free, NULL);
    sc_topology_changes t;
    char note[256];
    if (sc_parse_topology_changes("fuzz", (const char *)data, size, &t, note, sizeof note) == PF_OK) {
        check(&t);
        sc_topology_changes_free(&t);
    } else if (!pf_last_error()[0]) {
        abort(); /* every failure explains itself */
    }
    pf_set_allocator(NULL, NULL, NULL);
    return 0;
}
