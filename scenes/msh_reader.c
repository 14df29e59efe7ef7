/* Gmsh meshes for MeshGmshLoader: the MSH format 2.2 (ASCII and binary), 4.1 (ASCII) and 1.0 ($NOD/$ELM), after
 * the Gmsh reference manual's "MSH file format" (4.1) and "version 2 (legacy)" and "version 1 (legacy)". Points keep the file's
 * order; node numbers may be sparse and are mapped to indices. Element types kept (manual's numbering): 1 line,
 * 2 triangle, 3 quadrangle, 4 tetrahedron, 5 hexahedron, 15 point; others are skipped with a note. */
#include "mesh_build.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

/* nodes per element type 1..31 (manual: "elm-type"); 0: not a type of format 2 */
static const int type_nodes[32] = {0, 2, 3, 4, 4, 8, 6, 5, 3, 6, 9, 10, 27, 18, 14, 1,
                                   8, 20, 15, 13, 9, 10, 12, 15, 15, 21, 4, 5, 6, 20, 35, 56};
static const char *const type_names[32] = {
    "", "line", "triangle", "quadrangle", "tetrahedron", "hexahedron", "prism", "pyramid", "3-node line",
    "6-node triangle", "9-node quadrangle", "10-node tetrahedron", "27-node hexahedron", "18-node prism",
    "14-node pyramid", "point", "8-node quadrangle", "20-node hexahedron", "15-node prism", "13-node pyramid",
    "9-node triangle", "10-node triangle", "12-node triangle", "15-node triangle", "15-node triangle",
    "21-node triangle", "4-node edge", "5-node edge", "6-node edge", "20-node tetrahedron", "35-node tetrahedron",
    "56-node tetrahedron"};

static int nodes_of(long type) { return type >= 1 && type < 32 ? type_nodes[type] : 0; }

typedef struct node_key {
    long id;
    uint32_t index;
} node_key;

typedef struct msh {
    sc_text t;
    sc_mesh_builder b;
    node_key *keys; /* sorted by id once the nodes are read */
    uint32_t nkeys;
    int binary, swap; /* binary: byte order differs from little-endian when swap */
    int v4;           /* format 4.1: nodes and elements in entity blocks */
} msh;

static int by_id(const void *a, const void *b)
{
    long x = ((const node_key *)a)->id, y = ((const node_key *)b)->id;
    return (x > y) - (x < y);
}

static int node_index(const msh *m, long id, uint32_t *out)
{
    node_key k = {id, 0};
    const node_key *f = m->nkeys ? bsearch(&k, m->keys, m->nkeys, sizeof k, by_id) : NULL;
    if (!f) return -1;
    *out = f->index;
    return 0;
}

/* The section's closing line "$EndX" (or "$ENDX" in format 1) must come next. */
static int expect_end(msh *m, const char *end)
{
    char buf[64];
    int n = sc_text_token(&m->t, buf, sizeof buf);
    if (n < 0) return PF_EPARSE;
    if (strcmp(buf, end))
        return sc_text_error(&m->t, PF_EPARSE, "'%s' expected, found '%s'", end, n ? buf : "the end of the file");
    return PF_OK;
}

/* Skips an unused section ($PhysicalNames, $NodeData, ...) up to its "$End..." line, binary data included. */
static int skip_section(msh *m, const char *name)
{
    char end[80];
    snprintf(end, sizeof end, "$End%s", name + 1);
    size_t el = strlen(end);
    long startline = m->t.line;
    for (const char *p = m->t.p; p + el <= m->t.end; p++) {
        if (*p == '\n') m->t.line++;
        if ((p == m->t.start || p[-1] == '\n') && !memcmp(p, end, el)) {
            m->t.p = p + el;
            return PF_OK;
        }
    }
    m->t.line = startline;
    return sc_text_error(&m->t, PF_EPARSE, "section %s has no '%s'", name, end);
}

static int finish_nodes(msh *m)
{
    qsort(m->keys, m->nkeys, sizeof *m->keys, by_id);
    for (uint32_t k = 1; k < m->nkeys; k++)
        if (m->keys[k].id == m->keys[k - 1].id)
            return pf_error(PF_EPARSE, "%s: node number %ld is defined twice", m->t.name, m->keys[k].id);
    return PF_OK;
}

static int add_node(msh *m, long id, const double p[3])
{
    int rc = sc_mb_point(&m->b, p);
    if (rc) return rc;
    m->keys[m->nkeys].id = id;
    m->keys[m->nkeys].index = m->nkeys;
    m->nkeys++;
    return PF_OK;
}

static uint32_t rd32(const msh *m, const char *p) { return m->swap ? sc_be32(p) : sc_le32(p); }
static double rd64(const msh *m, const char *p) { return sc_bits_double(m->swap ? sc_be64(p) : sc_le64(p)); }

/* $Nodes (format 2) or $NOD (format 1): a count, then "id x y z" lines (or binary int id, 3 doubles). */
static int read_nodes(msh *m, const char *end)
{
    if (m->keys) return sc_text_error(&m->t, PF_EPARSE, "a second node section");
    long n;
    int rc = sc_text_long(&m->t, "the number of nodes", 0, SC_MESH_MAX_ITEMS, &n);
    if (rc) return rc;
    /* each node takes at least 8 bytes of text ("1 0 0 0\n") or 28 in binary: a count the file cannot hold is
     * refused before it allocates */
    if ((size_t)n > (size_t)(m->t.end - m->t.p) / (m->binary ? 28 : 8))
        return sc_text_error(&m->t, PF_EPARSE, "%ld nodes announced, more than the file holds", n);
    if (!(m->keys = pf_malloc(((size_t)n + 1) * sizeof *m->keys))) return pf_error(PF_ENOMEM, "out of memory");
    if (m->binary) {
        sc_text_next_line(&m->t);
        for (long k = 0; k < n; k++) {
            const char *p = m->t.p;
            if (m->t.end - p < 28) return sc_byte_error(&m->t, p, PF_EPARSE, "file ends inside node %ld of %ld", k + 1, n);
            long id = (long)(int32_t)rd32(m, p);
            double x[3] = {rd64(m, p + 4), rd64(m, p + 12), rd64(m, p + 20)};
            for (int d = 0; d < 3; d++)
                if (!(x[d] - x[d] == 0)) return sc_byte_error(&m->t, p, PF_EPARSE, "node %ld: coordinate is not finite", id);
            if ((rc = add_node(m, id, x))) return rc;
            m->t.p += 28;
        }
    } else {
        for (long k = 0; k < n; k++) {
            long id;
            double x[3];
            if ((rc = sc_text_long(&m->t, "a node number", 0, 0x7fffffffL, &id)) ||
                (rc = sc_text_real(&m->t, "a coordinate", &x[0])) || (rc = sc_text_real(&m->t, "a coordinate", &x[1])) ||
                (rc = sc_text_real(&m->t, "a coordinate", &x[2])) || (rc = add_node(m, id, x)))
                return rc;
        }
    }
    if ((rc = finish_nodes(m))) return rc;
    return expect_end(m, end);
}

/* One element of `type` with its node numbers `ids` (nn of them), number `id` for messages. */
static int add_element(msh *m, long id, long type, const long *ids, int nn, const char *at)
{
    uint32_t v[8];
    int keep = type == 1 || type == 2 || type == 3 || type == 4 || type == 5 || type == 15;
    for (int k = 0; k < nn && keep; k++)
        if (node_index(m, ids[k], &v[k])) {
            if (at) return sc_byte_error(&m->t, at, PF_EPARSE, "element %ld: node %ld is not defined", id, ids[k]);
            return sc_text_error(&m->t, PF_EPARSE, "element %ld: node %ld is not defined", id, ids[k]);
        }
    switch (type) {
    case 1: return sc_mb_edge(&m->b, v);
    case 2: return sc_mb_tri(&m->b, v);
    case 3: return sc_mb_quad(&m->b, v);
    case 4: return sc_mb_tetra(&m->b, v);
    case 5: return sc_mb_hexa(&m->b, v);
    case 15: return PF_OK; /* a point element: the point is already in the mesh */
    default: sc_mb_skip(&m->b, type_names[type]); return PF_OK;
    }
}

/* $Elements (format 2): ASCII "id type ntags tags... nodes..." lines, or binary blocks of one type. */
static int read_elements_v2(msh *m)
{
    long n;
    int rc = sc_text_long(&m->t, "the number of elements", 0, SC_MESH_MAX_ITEMS, &n);
    if (rc) return rc;
    long ids[64];
    if (m->binary) {
        sc_text_next_line(&m->t);
        for (long done = 0; done < n;) {
            const char *p = m->t.p;
            if (m->t.end - p < 12) return sc_byte_error(&m->t, p, PF_EPARSE, "file ends inside an element header");
            long type = (int32_t)rd32(m, p), follow = (int32_t)rd32(m, p + 4), ntags = (int32_t)rd32(m, p + 8);
            int nn = nodes_of(type);
            if (!nn) return sc_byte_error(&m->t, p, PF_EPARSE, "unknown element type %ld", type);
            if (follow < 1 || follow > n - done)
                return sc_byte_error(&m->t, p, PF_EPARSE, "a block of %ld elements where %ld remain", follow, n - done);
            if (ntags < 0 || ntags > 64) return sc_byte_error(&m->t, p, PF_EPARSE, "%ld tags per element", ntags);
            m->t.p += 12;
            size_t each = 4 * (size_t)(1 + ntags + nn);
            for (long k = 0; k < follow; k++) {
                const char *e = m->t.p;
                if ((size_t)(m->t.end - e) < each)
                    return sc_byte_error(&m->t, e, PF_EPARSE, "file ends inside element %ld of %ld", done + k + 1, n);
                for (int j = 0; j < nn; j++) ids[j] = (int32_t)rd32(m, e + 4 * (1 + ntags + j));
                if ((rc = add_element(m, (int32_t)rd32(m, e), type, ids, nn, e))) return rc;
                m->t.p += each;
            }
            done += follow;
        }
    } else {
        for (long k = 0; k < n; k++) {
            long id, type, ntags, tag;
            if ((rc = sc_text_long(&m->t, "an element number", 0, 0x7fffffffL, &id)) ||
                (rc = sc_text_long(&m->t, "an element type", 1, 0x7fffffffL, &type)) ||
                (rc = sc_text_long(&m->t, "a number of tags", 0, 64, &ntags)))
                return rc;
            int nn = nodes_of(type);
            if (!nn) return sc_text_error(&m->t, PF_EPARSE, "element %ld: unknown element type %ld", id, type);
            for (long j = 0; j < ntags; j++)
                if ((rc = sc_text_long(&m->t, "a tag", -0x7fffffffL, 0x7fffffffL, &tag))) return rc;
            for (int j = 0; j < nn; j++)
                if ((rc = sc_text_long(&m->t, "a node number", 0, 0x7fffffffL, &ids[j]))) return rc;
            if ((rc = add_element(m, id, type, ids, nn, NULL))) return rc;
        }
    }
    return expect_end(m, "$EndElements");
}

/* $ELM (format 1): "id type reg-phys reg-elem number-of-nodes nodes..." lines. */
static int read_elements_v1(msh *m)
{
    long n;
    int rc = sc_text_long(&m->t, "the number of elements", 0, SC_MESH_MAX_ITEMS, &n);
    if (rc) return rc;
    long ids[64];
    for (long k = 0; k < n; k++) {
        long id, type, reg, nn;
        if ((rc = sc_text_long(&m->t, "an element number", 0, 0x7fffffffL, &id)) ||
            (rc = sc_text_long(&m->t, "an element type", 1, 0x7fffffffL, &type)) ||
            (rc = sc_text_long(&m->t, "a physical region", -0x7fffffffL, 0x7fffffffL, &reg)) ||
            (rc = sc_text_long(&m->t, "an elementary region", -0x7fffffffL, 0x7fffffffL, &reg)) ||
            (rc = sc_text_long(&m->t, "a number of nodes", 1, 64, &nn)))
            return rc;
        if (!nodes_of(type)) return sc_text_error(&m->t, PF_EPARSE, "element %ld: unknown element type %ld", id, type);
        if (nn != nodes_of(type))
            return sc_text_error(&m->t, PF_EPARSE, "element %ld: a %s has %d nodes, not %ld", id, type_names[type],
                                 nodes_of(type), nn);
        for (long j = 0; j < nn; j++)
            if ((rc = sc_text_long(&m->t, "a node number", 0, 0x7fffffffL, &ids[j]))) return rc;
        if ((rc = add_element(m, id, type, ids, (int)nn, NULL))) return rc;
    }
    return expect_end(m, "$ENDELM");
}

/* $Nodes (4.1): "numEntityBlocks numNodes minTag maxTag", then per block "entityDim entityTag parametric n", the
 * n node tags, then n lines "x y z" followed by entityDim parametric coordinates when parametric is 1. */
static int read_nodes_v4(msh *m)
{
    if (m->keys) return sc_text_error(&m->t, PF_EPARSE, "a second node section");
    long blocks, n, tag;
    int rc;
    if ((rc = sc_text_long(&m->t, "the number of entity blocks", 0, SC_MESH_MAX_ITEMS, &blocks)) ||
        (rc = sc_text_long(&m->t, "the number of nodes", 0, SC_MESH_MAX_ITEMS, &n)) ||
        (rc = sc_text_long(&m->t, "the smallest node tag", 0, 0x7fffffffL, &tag)) ||
        (rc = sc_text_long(&m->t, "the largest node tag", 0, 0x7fffffffL, &tag)))
        return rc;
    /* a node takes at least 8 bytes of text (its tag line and "0 0 0" line) */
    if ((size_t)n > (size_t)(m->t.end - m->t.p) / 8)
        return sc_text_error(&m->t, PF_EPARSE, "%ld nodes announced, more than the file holds", n);
    if (!(m->keys = pf_malloc(((size_t)n + 1) * sizeof *m->keys))) return pf_error(PF_ENOMEM, "out of memory");
    for (long b = 0; b < blocks; b++) {
        long dim, entity, parametric, count;
        if ((rc = sc_text_long(&m->t, "an entity dimension", 0, 3, &dim)) ||
            (rc = sc_text_long(&m->t, "an entity tag", -0x7fffffffL, 0x7fffffffL, &entity)) ||
            (rc = sc_text_long(&m->t, "the parametric flag", 0, 1, &parametric)) ||
            (rc = sc_text_long(&m->t, "the number of nodes in the block", 0, SC_MESH_MAX_ITEMS, &count)))
            return rc;
        if (count > n - (long)m->nkeys)
            return sc_text_error(&m->t, PF_EPARSE, "node blocks hold more than the %ld nodes announced", n);
        for (long k = 0; k < count; k++) {
            if ((rc = sc_text_long(&m->t, "a node tag", 1, 0x7fffffffL, &tag))) return rc;
            m->keys[m->nkeys].id = tag;
            m->keys[m->nkeys].index = m->nkeys;
            m->nkeys++;
        }
        for (long k = 0; k < count; k++) {
            double x[3], u;
            for (int d = 0; d < 3; d++)
                if ((rc = sc_text_real(&m->t, "a coordinate", &x[d]))) return rc;
            for (long d = 0; parametric && d < dim; d++)
                if ((rc = sc_text_real(&m->t, "a parametric coordinate", &u))) return rc;
            if ((rc = sc_mb_point(&m->b, x))) return rc;
        }
    }
    if ((long)m->nkeys != n)
        return sc_text_error(&m->t, PF_EPARSE, "node blocks hold %u nodes, %ld announced", m->nkeys, n);
    if ((rc = finish_nodes(m))) return rc;
    return expect_end(m, "$EndNodes");
}

/* $Elements (4.1): "numEntityBlocks numElements minTag maxTag", then per block "entityDim entityTag type n" and
 * n lines "tag node-tags...". */
static int read_elements_v4(msh *m)
{
    long blocks, n, tag;
    int rc;
    if ((rc = sc_text_long(&m->t, "the number of entity blocks", 0, SC_MESH_MAX_ITEMS, &blocks)) ||
        (rc = sc_text_long(&m->t, "the number of elements", 0, SC_MESH_MAX_ITEMS, &n)) ||
        (rc = sc_text_long(&m->t, "the smallest element tag", 0, 0x7fffffffL, &tag)) ||
        (rc = sc_text_long(&m->t, "the largest element tag", 0, 0x7fffffffL, &tag)))
        return rc;
    long ids[64], done = 0;
    for (long b = 0; b < blocks; b++) {
        long dim, entity, type, count;
        if ((rc = sc_text_long(&m->t, "an entity dimension", 0, 3, &dim)) ||
            (rc = sc_text_long(&m->t, "an entity tag", -0x7fffffffL, 0x7fffffffL, &entity)) ||
            (rc = sc_text_long(&m->t, "an element type", 1, 0x7fffffffL, &type)) ||
            (rc = sc_text_long(&m->t, "the number of elements in the block", 0, SC_MESH_MAX_ITEMS, &count)))
            return rc;
        int nn = nodes_of(type);
        if (!nn) return sc_text_error(&m->t, PF_EPARSE, "unknown element type %ld", type);
        if (count > n - done)
            return sc_text_error(&m->t, PF_EPARSE, "element blocks hold more than the %ld elements announced", n);
        for (long k = 0; k < count; k++) {
            if ((rc = sc_text_long(&m->t, "an element tag", 1, 0x7fffffffL, &tag))) return rc;
            for (int j = 0; j < nn; j++)
                if ((rc = sc_text_long(&m->t, "a node tag", 1, 0x7fffffffL, &ids[j]))) return rc;
            if ((rc = add_element(m, tag, type, ids, nn, NULL))) return rc;
        }
        done += count;
    }
    if (done != n) return sc_text_error(&m->t, PF_EPARSE, "element blocks hold %ld elements, %ld announced", done, n);
    return expect_end(m, "$EndElements");
}

/* $MeshFormat: "version file-type data-size", then in binary files the integer 1 giving the byte order. */
static int read_format(msh *m)
{
    double version;
    long type, size;
    int rc;
    if ((rc = sc_text_real(&m->t, "the format version", &version)) ||
        (rc = sc_text_long(&m->t, "the file type", 0, 1, &type)) ||
        (rc = sc_text_long(&m->t, "the data size", 1, 64, &size)))
        return rc;
    m->v4 = version >= 4.1 && version < 5;
    if (!m->v4 && (version >= 3 || version < 2))
        return sc_text_error(&m->t, PF_EPARSE, "MSH format version %g is not read (4.1, 2.2 and 1 are)", version);
    if (m->v4 && type)
        return sc_text_error(&m->t, PF_EPARSE, "binary MSH %g is not read (4.1 ASCII, 2.2 ASCII and binary are)",
                             version);
    if (size != 8) return sc_text_error(&m->t, PF_EPARSE, "data size %ld (8-byte doubles expected)", size);
    m->binary = (int)type;
    if (m->binary) {
        sc_text_next_line(&m->t);
        if (m->t.end - m->t.p < 4) return sc_byte_error(&m->t, m->t.p, PF_EPARSE, "file ends before the byte-order integer");
        uint32_t one = sc_le32(m->t.p);
        if (one != 1 && one != 0x01000000u)
            return sc_byte_error(&m->t, m->t.p, PF_EPARSE, "byte-order integer is %u, not 1", one);
        m->swap = one != 1;
        m->t.p += 4;
    }
    return expect_end(m, "$EndMeshFormat");
}

static int read_file(msh *m)
{
    char kw[64];
    int rc, format = 0, elements = 0;
    for (;;) {
        int n = sc_text_token(&m->t, kw, sizeof kw);
        if (n < 0) return PF_EPARSE;
        if (n == 0) break;
        if (!strcmp(kw, "$MeshFormat")) {
            if (format || m->keys) return sc_text_error(&m->t, PF_EPARSE, "$MeshFormat must come first, once");
            format = 2;
            rc = read_format(m);
        } else if (!strcmp(kw, "$Nodes") && format == 2) {
            rc = m->v4 ? read_nodes_v4(m) : read_nodes(m, "$EndNodes");
        } else if (!strcmp(kw, "$NOD") && format == 0) {
            format = 1;
            rc = read_nodes(m, "$ENDNOD");
        } else if ((!strcmp(kw, "$Elements") && format == 2) || (!strcmp(kw, "$ELM") && format == 1)) {
            if (!m->keys) return sc_text_error(&m->t, PF_EPARSE, "elements before the nodes");
            if (elements) return sc_text_error(&m->t, PF_EPARSE, "a second element section");
            elements = 1;
            rc = format == 1 ? read_elements_v1(m) : m->v4 ? read_elements_v4(m) : read_elements_v2(m);
        } else if (kw[0] == '$' && format == 2 && strncmp(kw, "$End", 4)) {
            rc = skip_section(m, kw);
        } else {
            return sc_text_error(&m->t, PF_EPARSE, "'%s' is not a section of an MSH file%s", kw,
                                 format ? "" : " ($MeshFormat or $NOD expected first)");
        }
        if (rc) return rc;
    }
    if (!m->keys) return pf_error(PF_EPARSE, "%s: no $Nodes section", m->t.name);
    return PF_OK;
}

int sc_parse_msh(const char *name, const char *data, size_t length, sc_mesh *out, char *note, size_t note_size)
{
    msh m = {0};
    sc_text_init(&m.t, name, data, length);
    int rc = read_file(&m);
    pf_free(m.keys);
    if (rc) {
        sc_mb_free(&m.b);
        memset(out, 0, sizeof *out);
        return rc;
    }
    return sc_mb_finish(&m.b, name, out, note, note_size);
}
