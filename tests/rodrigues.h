/* A rotation matrix for the tests of rotating models (FEM, membranes). */
#ifndef PF_TESTS_RODRIGUES_H
#define PF_TESTS_RODRIGUES_H

#include <math.h>

/* R (row-major) = the rotation by `angle` radians about the unit axis a (Rodrigues' formula) */
static inline void rodrigues(const double a[3], double angle, double R[9])
{
    double c = cos(angle), s = sin(angle), t = 1 - c;
    const double M[9] = {t * a[0] * a[0] + c,        t * a[0] * a[1] - s * a[2], t * a[0] * a[2] + s * a[1],
                         t * a[0] * a[1] + s * a[2], t * a[1] * a[1] + c,        t * a[1] * a[2] - s * a[0],
                         t * a[0] * a[2] - s * a[1], t * a[1] * a[2] + s * a[0], t * a[2] * a[2] + c};
    for (int k = 0; k < 9; k++) R[k] = M[k];
}

#endif
