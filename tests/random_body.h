/* Shared by the runtime tests: an order-sensitive task body over VEC-double data (random inputs: support/rng.h). */
#ifndef PF_TESTS_RANDOM_BODY_H
#define PF_TESTS_RANDOM_BODY_H

#include "physflow/runtime.h"
#include "rng.h"

#include <math.h>
#include <stdint.h>

#define VEC 4 /* doubles per datum */

typedef struct body_args {
    uint32_t id;
    uint32_t nacc;
    uint8_t modes[8];
} body_args;

/* An order-sensitive floating-point body: the result depends on the exact values read, so a task that runs
 * before its inputs are ready or while another writes them leaves different bits. It works a little (a few
 * hundred ns) to give races room to show; fmod keeps values bounded over long loops. */
static inline void random_body(const pf_task_ctx *ctx)
{
    const body_args *a = ctx->args;
    double acc = 1.0 + a->id * 0.37;
    for (uint32_t k = 0; k < a->nacc; k++) {
        if (a->modes[k] != PF_READ && a->modes[k] != PF_READWRITE) continue;
        const double *d = ctx->data[k];
        for (int j = 0; j < VEC; j++) acc = acc * 0.999 + d[j] * 1.0001;
    }
    for (int it = 0; it < 40; it++) acc = acc * 0.9999999 + 1e-7 * it;
    for (uint32_t k = 0; k < a->nacc; k++) {
        double *d = ctx->data[k];
        switch (a->modes[k]) {
        case PF_WRITE:
            for (int j = 0; j < VEC; j++) d[j] = fmod(acc + j * 0.25, 1000.0);
            break;
        case PF_READWRITE:
            for (int j = 0; j < VEC; j++) d[j] = fmod(d[j] * 0.5 + acc / (j + 1), 1000.0);
            break;
        case PF_CUMUL:
            for (int j = 0; j < VEC; j++) d[j] += fmod(acc * (j + 1), 10.0) * 1e-3;
            break;
        default:
            break;
        }
    }
}

#endif
