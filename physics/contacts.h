/* The penalty contact force field (contacts.c): an interaction kind whose contacts the collision stage sets. */
#ifndef PF_PHYSICS_CONTACTS_H
#define PF_PHYSICS_CONTACTS_H

#include "collision_stage.h"

/* a new, empty contact field between objects a and b (a->id < b->id); the caller gives it its uid */
pf_springset *pf_contact_field_create(const pf_object *a, const pf_object *b);
/* Replaces the contacts of field s with the n proximities cand (all of its object pair) of collision pass
 * `stamp`, with the stage's stiffness, damping, friction and contact distance, for a step of dt; surf: the
 * world's surfaces. Each candidate's tangential spring (delta, kept from the previous pass when `remembered`)
 * is advanced over the last step and capped, and written back for the next pass's memory. When s is registered
 * in g, its data there follow the new contacts (pf_graph_data_move). In three parts, so that a field's contacts
 * can be set in ranges on several workers: begin (room for n contacts, the stage's parameters: on one thread),
 * set (contacts lo .. hi - 1 from cand[0 .. hi - lo]: ranges that do not overlap, on any threads at once, each
 * contact its own slot) and end (the count, the data in g: on one thread, after every range is set). */
int pf_contact_field_begin(pf_springset *s, const pf_collision_def *def, double dt, size_t n, uint64_t stamp);
void pf_contact_field_set(pf_springset *s, const pf_collision_def *def, candidate *cand, size_t lo, size_t hi,
                          pf_surface *const *surf);
int pf_contact_field_end(pf_springset *s, pf_graph *g, size_t n);
/* the collision pass that last filled s */
uint64_t pf_contact_field_stamp(const pf_springset *s);
/* the callback's view of s's contacts (at most cap) into out, at the objects' positions; returns how many */
uint32_t pf_contact_field_report(const pf_springset *s, pf_world_contact *out, uint32_t cap);

#endif
