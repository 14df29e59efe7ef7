/* SOFA's files of timed topological changes (TopologicalChangeProcessor's `filename`), parsed: the blocks that
 * start at each `T= time` line and the REMOVE= commands in them (scenes/component_topology_changes.c). */
#ifndef PF_SCENES_TOPOLOGY_CHANGES_H
#define PF_SCENES_TOPOLOGY_CHANGES_H

#include <stddef.h>
#include <stdint.h>

/* One `REMOVE= n` line and the indices on the line after it (element numbers at the time it runs). */
typedef struct sc_remove_cmd {
    int line;        /* of REMOVE= */
    uint32_t *idx;   /* owned, n distinct indices */
    uint32_t n;
} sc_remove_cmd;

/* The commands from one `T=` line to the next (those before the first T= form a block of time 0, as in SOFA). */
typedef struct sc_change_block {
    double time; /* s */
    int line;    /* of T= (0: the block before any) */
    uint32_t first, ncmds; /* its commands: cmds[first .. first + ncmds) */
} sc_change_block;

typedef struct sc_topology_changes {
    sc_change_block *blocks;
    uint32_t nblocks;
    sc_remove_cmd *cmds;
    uint32_t ncmds;
} sc_topology_changes;

/* Parses a whole file in memory (`name` in messages as name:line): T= and REMOVE= (with its index line); ADD=,
 * INCISE= and any other command are errors naming the command and line (PF_ENOTSUP, PF_EPARSE). `note` (may be
 * NULL) receives the first thing read differently from the text (an index line shorter or longer than its count,
 * read as SOFA does). */
int sc_parse_topology_changes(const char *name, const char *data, size_t length, sc_topology_changes *out,
                              char *note, size_t note_size);
void sc_topology_changes_free(sc_topology_changes *t);

#endif
