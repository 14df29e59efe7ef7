/* The box file of `physflow pairs`: one AABB per line, `xmin ymin zmin xmax ymax zmax`, '#' comments. */
#ifndef PF_SUPPORT_BOX_READER_H
#define PF_SUPPORT_BOX_READER_H

#include "physflow/collision.h"

#include <stdio.h>

/* Reads every box of `f` (`name` labels messages). 0 with *out (malloc'd; free it) and *count, or 2 after a
 * "name:line: message" on stderr (1 when out of memory). */
int box_read(FILE *f, const char *name, pf_aabb **out, size_t *count);

#endif
