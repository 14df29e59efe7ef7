/* The run viewer's writer state, shared by its files: html_writer.c (lifecycle, per-step series), html_frame.c
 * (one frame captured and quantised), html_page.c (the page written from the template). */
#ifndef PF_OUTPUT_HTML_WRITER_H
#define PF_OUTPUT_HTML_WRITER_H

#include "base/vec.h"
#include "physflow/html.h"

#include <stdint.h>
#include <stdio.h>

/* What is drawn: a surface (its triangles, or its vertices when it has none) or the points of an object that
 * carries no surface; fixed when the writer begins. */
typedef struct html_piece {
    uint32_t object;
    int32_t surface; /* -1: the object's points */
    uint32_t vertices, triangles;
    uint32_t *tri; /* 3 * triangles indices, copied at begin */
} html_piece;

/* One frame: its step and bounding box, and a little-endian blob (see html_frame.c for its layout) that the page
 * decodes. */
typedef struct html_frame {
    uint64_t step;
    double box[6];          /* min xyz, max xyz: the 16-bit positions are offsets in it */
    uint32_t contacts, spans;
    int repartitioned;      /* the partition or the groups changed since the previous frame */
    unsigned char *blob;
    size_t bytes;
} html_frame;

/* A contact kept for the frame under way (the collision stage runs before the solvers). */
typedef struct html_contact {
    double p[3], n[3];
} html_contact;

/* The per-step series the page plots. */
typedef struct html_series {
    PF_VEC(float) collision, update, integration; /* ms */
    PF_VEC(uint32_t) contacts, groups;
    PF_VEC(uint8_t) changed; /* 1: a structural update or a repartition happened in this step */
} html_series;

struct pf_html_writer {
    pf_html_def def;
    char *path, *title, *three_dir;
    pf_world *w;
    int workers;
    uint32_t objects;
    uint32_t every;         /* current stride (doubles in auto mode) */
    uint64_t steps;         /* steps recorded so far */
    PF_VEC(html_piece) pieces;
    PF_VEC(html_frame) frames;
    size_t frame_bytes;     /* the frames' blobs in the page (base64), summed */
    PF_VEC(html_contact) contacts; /* of the step under way, when it is a frame step */
    PF_VEC(char *) names;   /* span names (copies), indexed by the spans' name field */
    html_series series;
    uint32_t updates, repartitions; /* the world's counts at the previous step */
    int changed_since_frame;
    int traced, callback;   /* begin started the runtime's trace, set the contact callback */
    double dt;
    FILE *tmp;              /* the page's temporary file, created at begin */
    char *tmp_path;
};

/* html_frame.c: the frame of h's world now, with the step's spans drained from its runtime when `spans`; *run_ms
 * receives the step's graph runs' ms. PF_OK or PF_ENOMEM. */
int html_frame_capture(pf_html_writer *h, int spans, html_frame *out, double *run_ms);
/* Drains the step's spans and forgets them (a step that is not a frame); *run_ms as above. */
int html_spans_skip(pf_html_writer *h, double *run_ms);

/* html_page.c: PF_OK when three.js and OrbitControls can be read from def.three_dir, else PF_EIO naming them. */
int html_page_check_scripts(const pf_html_writer *h);
/* html_page.c: the page into h->tmp (template, inlined three.js and OrbitControls, the data); PF_OK or PF_EIO. */
int html_page_write(pf_html_writer *h);

/* base64 of n bytes into f. */
void html_base64(FILE *f, const unsigned char *p, size_t n);

#endif
