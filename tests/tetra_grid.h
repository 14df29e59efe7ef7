/* The cells of a regular grid of nx x ny x nz points (point (i, j, k) = i + nx (j + ny k)) cut into 6 tetrahedra
 * each (Kuhn's split along the cell's main diagonal: conforming between neighbouring cells), for the tests of
 * tetrahedral models. */
#ifndef PF_TESTS_TETRA_GRID_H
#define PF_TESTS_TETRA_GRID_H

#include <stdint.h>

/* writes 24 (nx-1)(ny-1)(nz-1) indices into t; returns the number of tetrahedra */
static inline uint32_t kuhn_tetrahedra(int nx, int ny, int nz, uint32_t *t)
{
    static const int kuhn[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
    uint32_t nt = 0;
    for (int k = 0; k < nz - 1; k++)
        for (int j = 0; j < ny - 1; j++)
            for (int i = 0; i < nx - 1; i++)
                for (int q = 0; q < 6; q++, nt++)
                    for (int c = 0; c < 4; c++) {
                        int b = kuhn[q][c];
                        t[4 * nt + (uint32_t)c] =
                            (uint32_t)((i + (b & 1)) + nx * ((j + (b >> 1 & 1)) + ny * (k + (b >> 2 & 1))));
                    }
    return nt;
}

#endif
