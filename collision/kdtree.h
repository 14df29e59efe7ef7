/* The kd-tree broad phase's internals that the tests read (kdtree.c). */
#ifndef PF_COLLISION_KDTREE_H
#define PF_COLLISION_KDTREE_H

#include <stddef.h>
#include <stdint.h>

/* The records of a kd broad phase's state (pf_broadphase_state), in their order, each with its rank replaced by
 * its box's index: a function of the boxes alone, whatever the history (the ranks are not). Writes the first
 * min(count, cap) into out; returns the count. */
size_t pf_kd_records_by_box(const void *state, uint64_t *out, size_t cap);

#endif
