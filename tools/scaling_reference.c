/* Hermann, Raffin and Faure 2009, §4 (docs/references.md): the scenes and what the paper reports for each. */
#include "scaling_reference.h"

#include <string.h>

#define OPTERON "16 cores (8 dual-core Opteron 2.2 GHz, NUMA)"

static const scaling_reference refs[] = {
    {"bars64", 150, OPTERON,
     "near-optimal speedup to 16 cores; beats Cilk-style work stealing and recursive divide-and-conquer"},
    {"heterogeneous", 0, OPTERON, "graph update about 30 ms, about one time step; amortised over a few steps"},
    {"springgrid128", 125, OPTERON, "significant speedup, better with smaller objects"},
    {"springgrid256", 500, OPTERON, "significant speedup, better with smaller objects"},
    {"springgrid512", 2200, OPTERON, "significant speedup, better with smaller objects"},
    {"torso", 50, "8 cores (dual quad-core Xeon)", "14 ms per step on 8 cores: speedup about 3.5"},
};

const scaling_reference *scaling_reference_find(const char *scene)
{
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
        if (!strcmp(refs[i].scene, scene)) return &refs[i];
    return NULL;
}
