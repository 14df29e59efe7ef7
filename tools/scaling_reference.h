/* What Hermann et al. 2009, §4, report for the scenes of their scaling experiments, printed by `physflow bench
 * scaling` beside PhysFlow's own figures (docs/experiments.md). */
#ifndef PF_TOOLS_SCALING_REFERENCE_H
#define PF_TOOLS_SCALING_REFERENCE_H

typedef struct scaling_reference {
    const char *scene;    /* the built-in scene that reproduces the paper's */
    double seq_ms;        /* the paper's sequential ms per step on its machine; 0 where it gives none */
    const char *machine;  /* the machine of the paper's figure */
    const char *reported; /* what the paper reports, in its words */
} scaling_reference;

/* The paper's figures for a built-in scene name, or NULL. */
const scaling_reference *scaling_reference_find(const char *scene);

#endif
