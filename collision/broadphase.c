/* The public broad-phase interface: definitions, lifecycle, box validation, dispatch to the method backends, and
 * method names. */
#include "arg_checks.h"
#include "broadphase_backend.h"
#include "parallel.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <float.h>
#include <string.h>

struct pf_broadphase {
    pf_broadphase_def def;
    const pf_bp_backend *backend;
    void *state;
    pf_pair_vec out;
    int workers; /* with a runner: its worker count, learnt by a first run and refreshed by each validation */
};

static const struct {
    const char *name;
    const pf_bp_backend *backend;
    int checks_boxes; /* the backend refuses bad boxes itself, in its own first pass over them (grid.c) */
} methods[PF_BP_METHOD_COUNT] = {
    [PF_BP_BRUTE] = {"brute", &pf_bp_brute_backend, 0},
    [PF_BP_KD] = {"kd", &pf_bp_kd_backend, 0},
    [PF_BP_KD_RAW] = {"kd-raw", &pf_bp_kd_raw_backend, 0},
    [PF_BP_GRID] = {"grid", &pf_bp_grid_backend, 1},
    [PF_BP_SAP] = {"sap", &pf_bp_sap_backend, 0},
    [PF_BP_HHASH] = {"hhash", &pf_bp_hhash_backend, 0},
    [PF_BP_MLHASH] = {"mlhash", &pf_bp_mlhash_backend, 0},
    [PF_BP_BULLET_DBVT] = {"bullet-dbvt", &pf_bp_bullet_dbvt_backend, 0},
    [PF_BP_BULLET_SAP] = {"bullet-sap", &pf_bp_bullet_sap_backend, 0},
    [PF_BP_CGAL] = {"cgal", &pf_bp_cgal_backend, 0},
};

pf_broadphase_def pf_broadphase_default_def(void)
{
    pf_broadphase_def def;
    memset(&def, 0, sizeof def);
    def.method = PF_BP_KD;
    def.threads = 1;
    def.kd_split = 1;
    def.cell_size = 0.0;
    return def;
}

const char *pf_broadphase_method_name(pf_broadphase_method m)
{
    if ((unsigned)m >= PF_BP_METHOD_COUNT) return "?";
    return methods[m].name;
}

int pf_broadphase_method_parse(const char *name, pf_broadphase_method *out)
{
    PF_TRY(pf_check_given(name, __func__, "name"));
    PF_TRY(pf_check_given(out, __func__, "out"));
    for (int m = 0; m < PF_BP_METHOD_COUNT; m++)
        if (!strcmp(name, methods[m].name)) {
            *out = (pf_broadphase_method)m;
            return PF_OK;
        }
    return pf_error(PF_EINVAL,
                    "%s: unknown broad-phase method '%s' (brute, kd, kd-raw, grid, sap, hhash, mlhash, bullet-dbvt, "
                    "bullet-sap, cgal)", __func__, name);
}

int pf_broadphase_method_available(pf_broadphase_method m)
{
    if ((unsigned)m >= PF_BP_METHOD_COUNT) return 0;
    pf_broadphase_def def = pf_broadphase_default_def();
    def.method = m;
    void *state = NULL;
    const pf_bp_backend *b = methods[m].backend;
    if (!b->create || b->create(&def, &state) != PF_OK) return 0;
    if (b->destroy) b->destroy(state);
    return 1;
}

int pf_broadphase_create(const pf_broadphase_def *def, pf_broadphase **out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(out, fn, "out"));
    *out = NULL;
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_enum((int)def->method, PF_BP_METHOD_COUNT, fn, "def.method"));
    PF_TRY(pf_check_int_range(def->threads, 1, 1024, fn, "def.threads"));
    PF_TRY(pf_check_int_range(def->kd_split, 0, 1, fn, "def.kd_split"));
    PF_TRY(pf_check_finite(def->cell_size, fn, "def.cell_size"));
    if (def->parallel_ctx && !def->parallel)
        return pf_error(PF_EINVAL, "%s: def.parallel_ctx is given without def.parallel (the runner it is for)", fn);
    pf_broadphase *bp = pf_calloc(1, sizeof *bp);
    if (!bp) return pf_error(PF_ENOMEM, "%s: out of memory for a broad phase", fn);
    bp->def = *def;
    bp->backend = methods[def->method].backend;
    int rc = bp->backend->create ? bp->backend->create(&bp->def, &bp->state) : PF_ENOTSUP;
    if (rc) {
        if (rc == PF_ENOTSUP && !bp->backend->create)
            pf_error(PF_ENOTSUP, "broad phase %s is not built", pf_broadphase_method_name(def->method));
        pf_free(bp);
        return pf_error_in(rc, fn);
    }
    *out = bp;
    return PF_OK;
}

void *pf_broadphase_state(pf_broadphase *bp)
{
    return bp->state;
}

void pf_broadphase_destroy(pf_broadphase *bp)
{
    if (!bp) return;
    if (bp->backend->destroy) bp->backend->destroy(bp->state);
    pf_pair_vec_free(&bp->out);
    pf_free(bp);
}

typedef struct validate_run {
    const pf_aabb *boxes;
    size_t n;
    int bad[64]; /* per part */
} validate_run;

static void validate_part(void *ctx, int k, int parts)
{
    validate_run *r = ctx;
    size_t lo, hi;
    int bad = 0;
    pf_par_range(r->n, k, parts, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        const pf_aabb *b = &r->boxes[i];
        for (int a = 0; a < 3; a++) /* false for NaN; infinities and coordinates beyond the limit fail the bounds */
            bad |= !((b->min[a] <= b->max[a]) & (b->min[a] >= -PF_AABB_COORD_MAX) & (b->max[a] <= PF_AABB_COORD_MAX));
    }
    r->bad[k] = bad;
}

/* Refuses NaN / infinite coordinates, coordinates beyond PF_AABB_COORD_MAX and inverted boxes, naming the first bad box. A branch-free pass (parallel)
 * finds whether any box is bad; only then does a second pass (arg_checks.c) look for the first. */
static int validate_boxes(const pf_aabb *boxes, size_t n, const pf_par *par)
{
    validate_run r = {boxes, n, {0}};
    int parts = n > 65536 ? par->workers : 1, bad = 0;
    if (parts > 64) parts = 64;
    pf_par_for(par, parts, validate_part, &r);
    for (int k = 0; k < parts; k++) bad |= r.bad[k];
    if (!bad) return PF_OK;
    return pf_check_aabbs(boxes, n, "pf_broadphase_pairs", "boxes");
}

static void learn_workers(void *ctx, int worker, int workers)
{
    (void)ctx, (void)worker, (void)workers;
}

/* The def the backend sees: with a runner, def.threads is the runner's worker count. */
static pf_broadphase_def run_def(pf_broadphase *bp, pf_par *par)
{
    pf_broadphase_def d = bp->def;
    if (d.parallel) {
        pf_par probe = {d.parallel, d.parallel_ctx, 2, &bp->workers};
        if (bp->workers < 1) pf_par_run(&probe, 2, learn_workers, NULL);
        d.threads = bp->workers > 0 ? bp->workers : 1; /* refused: the caller's thread alone this time */
    }
    *par = pf_par_of(&d);
    par->seen = d.parallel ? &bp->workers : NULL;
    return d;
}

int pf_broadphase_pairs(pf_broadphase *bp, const pf_aabb *boxes, size_t n, const pf_pair **pairs, size_t *npairs,
                        pf_broadphase_stats *stats)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(pairs, fn, "pairs"));
    PF_TRY(pf_check_given(npairs, fn, "npairs"));
    *pairs = NULL;
    *npairs = 0;
    pf_broadphase_stats local;
    memset(&local, 0, sizeof local);
    if (stats) *stats = local;
    PF_TRY(pf_check_given(bp, fn, "bp"));
    PF_TRY(pf_check_size(n, sizeof *boxes, fn, "n"));
    PF_TRY(pf_check_int_range((long long)n, 0, UINT32_MAX, fn, "n"));
    if (n) PF_TRY(pf_check_given(boxes, fn, "boxes (n > 0)"));
    pf_par par;
    pf_broadphase_def d = run_def(bp, &par);
    int rc = methods[d.method].checks_boxes ? PF_OK : validate_boxes(boxes, n, &par);
    if (rc) return rc;
    bp->out.n = 0;
    if (n > 0) {
        rc = bp->backend->pairs(bp->state, &d, boxes, n, &bp->out, &local);
        if (rc) return pf_error_in(rc, fn);
    }
    local.pairs = bp->out.n;
    local.bytes += bp->out.cap * sizeof(pf_pair) + sizeof *bp;
    if (stats) *stats = local;
    *pairs = bp->out.data;
    *npairs = bp->out.n;
    return PF_OK;
}
