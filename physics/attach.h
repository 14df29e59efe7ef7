/* Attachments (attach.c): points of one object that follow points of another (SOFA AttachProjectiveConstraint,
 * one way). */
#ifndef PF_PHYSICS_ATTACH_H
#define PF_PHYSICS_ATTACH_H

#include "world.h"

/* One pf_world_add_attachment call: target point i2[k] of o2 takes the state of source point i1[k] of o1, blended
 * by cx[k] (positions) and cv[k] (velocities). The target points are fixed points of o2 for its own solve. */
typedef struct pf_attachment {
    uint32_t o1, o2, n;
    uint32_t *i1, *i2;
    double *cx, *cv;
} pf_attachment;

/* Records the attachments' tasks after every group's (removing those recorded before): they read the sources'
 * state as the step leaves it and so come after every solve in the graph's order. Called by pf_world_sync_graph
 * when a group was recorded or the attachments changed. */
int pf_world_record_attachments(pf_world *w);
/* The graph was dropped: the recorded tasks went with it. */
void pf_world_forget_attachments(pf_world *w);
/* Drops the attachments naming object id (its removal); their target points stay fixed where they are. */
void pf_world_drop_attachments(pf_world *w, uint32_t id);
/* 1 when point p of object id follows an attachment's source */
int pf_world_point_attached(const pf_world *w, uint32_t id, uint32_t p);
void pf_world_free_attachments(pf_world *w);

#endif
