/* 3x3 stiffness blocks of a solver group (assembly.h). */
#include "assembly.h"

void pf_blocks_add(pf_blocks *b, uint32_t i, uint32_t j, const double k[9], double scale)
{
    if (i >= b->points || j >= b->points) return;
    if (b->failed || pf_vec_reserve(&b->ij, b->ij.n + 2) || pf_vec_reserve(&b->k, b->k.n + 9)) {
        b->failed = 1;
        return;
    }
    b->ij.v[b->ij.n++] = i;
    b->ij.v[b->ij.n++] = j;
    for (int c = 0; c < 9; c++)
        b->k.v[b->k.n++] = scale * k[c];
}

void pf_blocks_add_pair(pf_blocks *b, uint32_t a, uint32_t bpt, const double J[6])
{
    const double k[9] = {J[0], J[3], J[5], J[3], J[1], J[4], J[5], J[4], J[2]};
    pf_blocks_add(b, a, a, k, -b->kfact);
    pf_blocks_add(b, a, bpt, k, b->kfact);
    pf_blocks_add(b, bpt, a, k, b->kfact);
    pf_blocks_add(b, bpt, bpt, k, -b->kfact);
}

void pf_blocks_add_element(pf_blocks *b, uint32_t base, const uint32_t *v, int corners, int dofs,
                           const double *ke, const double *P)
{
    static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (!P) P = identity;
    int n = corners * dofs;
    for (int c = 0; c < corners; c++)
        for (int d = 0; d < corners; d++) {
            double kp[9], blk[9]; /* kp = ke_cd P (dofs x 3), blk = -P^T kp */
            for (int i = 0; i < dofs; i++)
                for (int k = 0; k < 3; k++) {
                    double s = 0;
                    for (int j = 0; j < dofs; j++)
                        s += ke[(c * dofs + i) * n + d * dofs + j] * P[3 * j + k];
                    kp[3 * i + k] = s;
                }
            for (int r = 0; r < 3; r++)
                for (int k = 0; k < 3; k++) {
                    double s = 0;
                    for (int i = 0; i < dofs; i++)
                        s += P[3 * i + r] * kp[3 * i + k];
                    blk[3 * r + k] = -s;
                }
            pf_blocks_add(b, base + v[c], base + v[d], blk, b->kfact);
        }
}

void pf_blocks_clear(pf_blocks *b)
{
    b->ij.n = b->k.n = 0;
    b->failed = 0;
}

void pf_blocks_free(pf_blocks *b)
{
    pf_vec_free(&b->ij);
    pf_vec_free(&b->k);
    b->failed = 0;
}
