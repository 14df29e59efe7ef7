/* Argument checks shared by the collision modules' public entry points: boxes, spheres, triangles, segments and
 * proximity settings, each refused in the caller's terms (`boxes[3].min[1]`, `spheres[2].radius`) through
 * base/check.h. */
#ifndef PF_COLLISION_ARG_CHECKS_H
#define PF_COLLISION_ARG_CHECKS_H

#include "physflow/collision.h"
#include "physflow/narrowphase.h"

#include <stddef.h>
#include <stdint.h>

/* `index` < 0: the argument `arg` itself (`box`); otherwise its element arg[index]. The checks are fast when the
 * value is good; the message is formatted only for a refusal. */
int pf_check_aabb(const pf_aabb *b, const char *fn, const char *arg, long long index);
/* n boxes to index: each as pf_check_aabb, and no coordinate beyond +-PF_AABB_COORD_MAX; the message names the
 * first bad one as "box i: arg[i]..." */
int pf_check_aabbs(const pf_aabb *boxes, size_t n, const char *fn, const char *arg);
/* given, finite centre, radius finite and >= 0 */
int pf_check_sphere(const pf_sphere *s, const char *fn, const char *arg, long long index);
/* given, finite point */
int pf_check_point(const pf_point *p, const char *fn, const char *arg, long long index);
/* given, finite vertices */
int pf_check_triangle(const pf_triangle *t, const char *fn, const char *arg, long long index);
/* given, finite end points, radius finite and >= 0 */
int pf_check_segment(const pf_segment *s, const char *fn, const char *arg, long long index);
/* pairs[k].<member> (the index of a `kind`: "sphere", "triangle") < n */
int pf_check_pair_index(uint32_t index, size_t n, const char *fn, const char *kind, size_t k, const char *member);
/* given, finite, 0 <= def.contact_distance <= def.alarm_distance */
int pf_check_proximity_def(const pf_proximity_def *def, const char *fn);
/* A failure `rc` of an inner step (its message already recorded) with the public function's name put in front,
 * so that the caller reads which call refused; PF_OK passes through. */
int pf_error_in(int rc, const char *fn);

#endif
