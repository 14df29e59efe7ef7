#define _POSIX_C_SOURCE 200809L
#include "box_reader.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int box_read(FILE *f, const char *path, pf_aabb **out, size_t *count)
{
    size_t n = 0, cap = 0, lineno = 0;
    pf_aabb *boxes = NULL;
    char *line = NULL;
    size_t linecap = 0;
    int rc = 0;
    while (getline(&line, &linecap, f) >= 0) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (!*p) continue;
        double v[6];
        int k = 0;
        for (; k < 6; k++) {
            char *end;
            errno = 0;
            v[k] = strtod(p, &end);
            if (end == p) break;
            p = end;
            if (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
                k = -1;
                break;
            }
            while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        }
        if (k != 6 || *p) {
            fprintf(stderr, "%s:%zu: expected six numbers 'xmin ymin zmin xmax ymax zmax'\n", path, lineno);
            rc = 2;
            break;
        }
        for (k = 0; k < 6 && !rc; k++)
            if (!isfinite(v[k])) {
                fprintf(stderr, "%s:%zu: value %d is not a finite number\n", path, lineno, k + 1);
                rc = 2;
            } else if (fabs(v[k]) > PF_AABB_COORD_MAX) {
                fprintf(stderr, "%s:%zu: value %d = %g is beyond +-%g, the largest coordinate the broad phases take\n",
                        path, lineno, k + 1, v[k], PF_AABB_COORD_MAX);
                rc = 2;
            }
        for (k = 0; k < 3 && !rc; k++)
            if (v[k] > v[k + 3]) {
                fprintf(stderr, "%s:%zu: min %c = %g is greater than max %c = %g\n", path, lineno, "xyz"[k], v[k],
                        "xyz"[k], v[k + 3]);
                rc = 2;
            }
        if (rc) break;
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            pf_aabb *b = realloc(boxes, cap * sizeof *b);
            if (!b) {
                fprintf(stderr, "%s: out of memory\n", path);
                rc = 1;
                break;
            }
            boxes = b;
        }
        for (k = 0; k < 3; k++) {
            boxes[n].min[k] = v[k];
            boxes[n].max[k] = v[k + 3];
        }
        n++;
    }
    if (!rc && ferror(f)) {
        fprintf(stderr, "%s: read error\n", path);
        rc = 2;
    }
    free(line);
    if (rc) {
        free(boxes);
        return rc;
    }
    *out = boxes;
    *count = n;
    return 0;
}

