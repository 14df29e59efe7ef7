/* What the mesh readers (MSH, VTK, STL) share: a growing mesh, a line-counting text cursor over a file held in
 * memory, big- and little-endian binary fields, and whole-file reading. */
#ifndef PF_SCENES_MESH_BUILD_H
#define PF_SCENES_MESH_BUILD_H

#include "scene_internal.h"

#include <stddef.h>
#include <stdint.h>

/* Cap on points and elements of one file: indices stay far from UINT32_MAX and a corrupt count cannot ask for
 * more memory than this many items. */
#define SC_MESH_MAX_ITEMS (1u << 28)

typedef struct sc_mesh_builder {
    PF_VEC(double) points;
    PF_VEC(uint32_t) edges, tris, quads, tetra, hexa;
    uint64_t skipped;     /* elements of types the physics does not use */
    char skipped_what[96]; /* their types, for the note */
} sc_mesh_builder;

int sc_mb_point(sc_mesh_builder *b, const double p[3]);
/* Appends one element of `k` point indices (k = 2 edge, 3 triangle, 4 quad -> kept as a quad and as two triangles
 * (0 1 2) (0 2 3) as MeshTopology splits them, 'T' tetrahedron, 'H' hexahedron). Indices must already be checked. */
int sc_mb_edge(sc_mesh_builder *b, const uint32_t v[2]);
int sc_mb_tri(sc_mesh_builder *b, const uint32_t v[3]);
int sc_mb_quad(sc_mesh_builder *b, const uint32_t v[4]);
int sc_mb_tetra(sc_mesh_builder *b, const uint32_t v[4]);
int sc_mb_hexa(sc_mesh_builder *b, const uint32_t v[8]);
/* One VTK cell (VTK_LINE 3 ... VTK_HEXAHEDRON 12, with the legacy and XML formats' numbering) of k checked point
 * indices: PF_OK, a PF_E* code, or -1 when the type cannot have k points. Unused types are skipped. */
int sc_mb_vtk_cell(sc_mesh_builder *b, long type, const int64_t *p, size_t k);
/* Counts a skipped element of type `what` (a short label, listed once). */
void sc_mb_skip(sc_mesh_builder *b, const char *what);
/* Moves the arrays into *out (which the caller frees with sc_mesh_free); a note about skipped elements goes to
 * `note` when one is given. Fails with PF_EPARSE when there are no points. */
int sc_mb_finish(sc_mesh_builder *b, const char *name, sc_mesh *out, char *note, size_t note_size);
void sc_mb_free(sc_mesh_builder *b);

/* A cursor over a text (or text-then-binary) file in memory. */
typedef struct sc_text {
    const char *name;  /* for messages */
    const char *start, *p, *end;
    long line;         /* line of *p, from 1 */
} sc_text;

void sc_text_init(sc_text *t, const char *name, const char *data, size_t length);
/* The next whitespace-separated token (newlines crossed and counted): its length, 0 at the end of the data.
 * A token longer than `size - 1` bytes is an error (returns -1 with pf_error set). */
int sc_text_token(sc_text *t, char *buf, size_t size);
/* The next token on the current line only (0 when the line ends first; the newline is not consumed). */
int sc_text_token_on_line(sc_text *t, char *buf, size_t size);
/* Skips to the start of the next line. */
void sc_text_next_line(sc_text *t);
/* Next token as a finite double / an integer in [lo, hi]; `what` names it in the error. */
int sc_text_real(sc_text *t, const char *what, double *out);
int sc_text_long(sc_text *t, const char *what, long lo, long hi, long *out);
/* An error at the cursor's line: "name:line: message". */
int sc_text_error(const sc_text *t, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An error at a byte offset of a binary part: "name: byte N: message". */
int sc_byte_error(const sc_text *t, const char *at, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Fixed-size binary fields at p (the caller checks that the bytes are there). */
uint32_t sc_le32(const char *p);
uint32_t sc_be32(const char *p);
uint64_t sc_le64(const char *p);
uint64_t sc_be64(const char *p);
float sc_le_float(const char *p);
double sc_bits_double(uint64_t bits);
float sc_bits_float(uint32_t bits);

/* A mesh parser over a whole file in memory; `note` (may be NULL) receives what was skipped. */
typedef int (*sc_mesh_parse_fn)(const char *name, const char *data, size_t length, sc_mesh *out, char *note,
                                size_t note_size);
/* Reads the file at `path` whole and parses it. */
int sc_read_mesh_path(const char *path, sc_mesh_parse_fn parse, sc_mesh *out, char *note, size_t note_size);

/* The parsers (scenes/msh_reader.c, vtk_reader.c, vtu_reader.c, stl_reader.c; OBJ in obj_reader.c). */
int sc_parse_msh(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size);
int sc_parse_vtk(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size);
int sc_parse_vtu(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size);
int sc_parse_stl(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size);
int sc_parse_obj(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size);
/* .vtu (XML) or legacy .vtk, told apart by content as SOFA's MeshVTKLoader does (scenes/components_mesh_loaders.c) */
int sc_parse_vtk_any(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size);
/* SOFA's sphere files (scenes/sph_reader.c): the centres as points, their radii in out->radii. */
int sc_parse_sph(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size);

/* Reads the mesh file `file` of a scene with `parse`, resolved as sc_read_scene_mesh resolves OBJ files. */
int sc_read_scene_mesh_as(const sc_loader *L, const char *file, sc_mesh_parse_fn parse, sc_mesh *out, char *note,
                          size_t note_size);

#endif
