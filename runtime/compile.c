/* Compilation into per-worker programs (paper 004 §3.2-3.3, figures 3a and 4): each worker runs its nodes in
 * graph order; a wait precedes the first node that needs a result of another worker; loop control is
 * replicated on every worker that runs part of the body; an awaited node publishes its execution count. */
#include "graph.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

void pf_graph_free_programs(pf_graph *g)
{
    if (g->programs) {
        for (int w = 0; w < g->compiled_workers; w++) {
            pf_free(g->programs[w].ops);
            pf_free(g->programs[w].cnt);
            pf_free(g->programs[w].it);
        }
        pf_free(g->programs);
    }
    pf_free(g->flags);
    pf_free(g->skips);
    g->programs = NULL;
    g->flags = NULL;
    g->skips = NULL;
    g->flags_size = g->nskips = 0;
    g->compiled_workers = 0;
    g->cross_edges = g->waits = 0;
}

/* One replica of a node on one worker: its place in that worker's run order and its flag. */
typedef struct replica {
    uint32_t worker;
    uint32_t pos;
    pf_flag *flag;
} replica;

typedef struct compiler {
    pf_graph *g;
    size_t k;
    uint8_t *part;      /* part[L * k + w]: worker w runs part of loop L's body */
    uint32_t *rep_off;  /* per node: first replica; rep_off[n + 1] - rep_off[n] replicas */
    replica *reps;
    pf_flag **exit_flag; /* exit_flag[L * k + w] */
    uint8_t *awaited;    /* per flag index: some wait targets it */
    int64_t *seen;       /* seen[w * k + b]: highest pos of b already awaited in w's current segment */
    pf_op **ops;         /* per worker, growing */
    size_t *nops, *cap_ops;
    uint32_t *begin_op, *end_op; /* [L * k + w]: op index of the loop's begin / end on w */
} compiler;

static uint32_t loop_parent_ctx(const pf_graph *g, uint32_t loop)
{
    uint32_t p = g->loops[loop].parent;
    return p == PF_NONE ? 0 : p + 1;
}

static uint32_t ctx_depth(const pf_graph *g, uint32_t ctx)
{
    uint32_t d = 0;
    while (ctx) {
        ctx = loop_parent_ctx(g, ctx - 1);
        d++;
    }
    return d;
}

/* The innermost context containing both. */
static uint32_t common_ctx(const pf_graph *g, uint32_t a, uint32_t b)
{
    uint32_t da = ctx_depth(g, a), db = ctx_depth(g, b);
    for (; da > db; da--) a = loop_parent_ctx(g, a - 1);
    for (; db > da; db--) b = loop_parent_ctx(g, b - 1);
    while (a != b) {
        a = loop_parent_ctx(g, a - 1);
        b = loop_parent_ctx(g, b - 1);
    }
    return a;
}

/* The loop directly inside context `c` that contains context `inner` (which is strictly inside c). */
static uint32_t child_loop_of(const pf_graph *g, uint32_t c, uint32_t inner)
{
    while (loop_parent_ctx(g, inner - 1) != c) inner = loop_parent_ctx(g, inner - 1);
    return inner - 1;
}

static int emit(compiler *cc, size_t w, pf_op op)
{
    if (PF_ARRAY_RESERVE(cc->ops[w], cc->cap_ops[w], cc->nops[w] + 1)) return PF_ENOMEM;
    cc->ops[w][cc->nops[w]++] = op;
    return PF_OK;
}

static size_t flag_index(const compiler *cc, const pf_flag *f)
{
    return (size_t)(f - cc->g->flags);
}

/* Participation: a worker runs part of a loop when it runs a work node anywhere inside it. */
static void mark_participants(compiler *cc)
{
    pf_graph *g = cc->g;
    size_t k = cc->k;
    for (size_t i = 0; i < g->nnodes; i++) {
        const pf_node *n = &g->nodes[i];
        if (n->kind != PF_NODE_TASK && n->kind != PF_NODE_REDUCER) continue;
        for (uint32_t c = n->ctx; c; c = loop_parent_ctx(g, c - 1)) cc->part[(c - 1) * k + (size_t)n->worker] = 1;
    }
    /* A loop with no work still runs its control somewhere: on worker 0, and so in its ancestors too. */
    for (size_t l = 0; l < g->nloops; l++) {
        int any = 0;
        for (size_t w = 0; w < k; w++) any |= cc->part[l * k + w];
        if (!any)
            for (uint32_t c = (uint32_t)l + 1; c; c = loop_parent_ctx(g, c - 1)) cc->part[(c - 1) * k] = 1;
    }
}

/* Replicas and flag slots: one block of flags per worker, padded to cache lines, so one worker's signals never
 * share a line with another's. */
static int place_replicas(compiler *cc)
{
    pf_graph *g = cc->g;
    size_t k = cc->k, n = g->nnodes;
    size_t nrep = 0;
    for (size_t i = 0; i < n; i++) {
        const pf_node *nd = &g->nodes[i];
        cc->rep_off[i] = (uint32_t)nrep;
        if (nd->kind == PF_NODE_TASK || nd->kind == PF_NODE_REDUCER) {
            nrep++;
        } else {
            for (size_t w = 0; w < k; w++) nrep += cc->part[nd->loop * k + w];
        }
    }
    cc->rep_off[n] = (uint32_t)nrep;
    cc->reps = pf_malloc((nrep + 1) * sizeof *cc->reps);
    uint32_t *count = pf_calloc(k, sizeof *count);
    if (!cc->reps || !count) {
        pf_free(count);
        return PF_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const pf_node *nd = &g->nodes[i];
        replica *r = &cc->reps[cc->rep_off[i]];
        if (nd->kind == PF_NODE_TASK || nd->kind == PF_NODE_REDUCER) {
            *r = (replica){(uint32_t)nd->worker, count[nd->worker]++, NULL};
        } else {
            for (size_t w = 0; w < k; w++)
                if (cc->part[nd->loop * k + w]) *r++ = (replica){(uint32_t)w, count[w]++, NULL};
        }
    }
    size_t per_line = 64 / sizeof(pf_flag), total = 0;
    size_t *base = pf_malloc(k * sizeof *base);
    if (!base) {
        pf_free(count);
        return PF_ENOMEM;
    }
    for (size_t w = 0; w < k; w++) {
        size_t slots = count[w];
        for (size_t l = 0; l < g->nloops; l++) slots += cc->part[l * k + w]; /* exit flags */
        base[w] = total;
        total += (slots + per_line - 1) / per_line * per_line + per_line;
    }
    g->flags = pf_calloc(total, sizeof *g->flags);
    g->flags_size = total;
    cc->awaited = pf_calloc(total, 1);
    if (!g->flags || !cc->awaited) {
        pf_free(count);
        pf_free(base);
        return PF_ENOMEM;
    }
    for (size_t r = 0; r < nrep; r++) cc->reps[r].flag = &g->flags[base[cc->reps[r].worker] + cc->reps[r].pos];
    for (size_t w = 0; w < k; w++) {
        size_t next = base[w] + count[w];
        for (size_t l = 0; l < g->nloops; l++)
            if (cc->part[l * k + w]) cc->exit_flag[l * k + w] = &g->flags[next++];
    }
    pf_free(count);
    pf_free(base);
    return PF_OK;
}

/* Waits that node i's replica on worker w needs before it runs. */
static int emit_waits(compiler *cc, size_t i, size_t w, uint32_t my_pos)
{
    pf_graph *g = cc->g;
    size_t k = cc->k;
    const pf_node *n = &g->nodes[i];
    (void)my_pos;
    size_t first = cc->nops[w];
    for (uint32_t e = 0; e < n->npred; e++) {
        uint32_t pe = g->preds[n->pred_off + e];
        uint32_t p = PF_PRED_NODE(pe);
        uint8_t carried = (pe & PF_PRED_CARRIED) != 0;
        const pf_node *pn = &g->nodes[p];
        uint32_t c = common_ctx(g, pn->ctx, n->ctx);
        for (uint32_t r = cc->rep_off[p]; r < cc->rep_off[p + 1]; r++) {
            const replica *rp = &cc->reps[r];
            if (rp->worker == w) continue; /* program order */
            g->cross_edges++;
            pf_flag *target;
            int plain = !carried && pn->ctx == c && n->ctx == c;
            if (pn->ctx == c) {
                target = rp->flag;
            } else { /* the pred is inside a loop nested in c: its worker's exit of that loop covers it */
                uint32_t l = child_loop_of(g, c, pn->ctx);
                target = cc->exit_flag[l * k + rp->worker];
                PF_ASSERT(target);
            }
            int64_t *seen = &cc->seen[w * k + rp->worker];
            if (plain && (int64_t)rp->pos <= *seen) continue; /* an earlier wait on that worker covers it */
            int dup = 0;
            for (size_t o = first; o < cc->nops[w] && !dup; o++) {
                const pf_op *op = &cc->ops[w][o];
                dup = op->flag == target && op->ctx == c && op->delta == carried;
            }
            if (dup) continue;
            if (plain) *seen = rp->pos;
            cc->awaited[flag_index(cc, target)] = 1;
            g->waits++;
            if (emit(cc, w, (pf_op){.kind = PF_OP_WAIT, .delta = carried, .ctx = (uint16_t)c, .flag = target}))
                return PF_ENOMEM;
        }
    }
    return PF_OK;
}

static int build_programs(compiler *cc)
{
    pf_graph *g = cc->g;
    size_t k = cc->k;
    for (size_t i = 0; i < g->nnodes; i++) {
        const pf_node *n = &g->nodes[i];
        for (uint32_t r = cc->rep_off[i]; r < cc->rep_off[i + 1]; r++) {
            const replica *rp = &cc->reps[r];
            size_t w = rp->worker;
            if (emit_waits(cc, i, w, rp->pos)) return PF_ENOMEM;
            pf_op op = {.ctx = (uint16_t)n->ctx, .node = (uint32_t)i, .flag = rp->flag};
            switch (n->kind) {
            case PF_NODE_BEGIN:
                op.kind = PF_OP_BEGIN;
                cc->begin_op[n->loop * k + w] = (uint32_t)cc->nops[w];
                break;
            case PF_NODE_END:
                op.kind = PF_OP_END;
                cc->end_op[n->loop * k + w] = (uint32_t)cc->nops[w];
                break;
            case PF_NODE_BREAK: op.kind = PF_OP_BREAK; break;
            default: op.kind = PF_OP_RUN; break;
            }
            if (op.kind != PF_OP_RUN) /* a new iteration or entry: earlier waits no longer cover */
                for (size_t b = 0; b < k; b++) cc->seen[w * k + b] = -1;
            if (emit(cc, w, op)) return PF_ENOMEM;
        }
    }
    return PF_OK;
}

/* Jumps, published flags (only awaited ones) and the skip lists of breaks. */
static int link_programs(compiler *cc)
{
    pf_graph *g = cc->g;
    size_t k = cc->k;
    size_t nskips = 0, cap_skips = 0;
    for (size_t w = 0; w < k; w++) {
        for (size_t o = 0; o < cc->nops[w]; o++) {
            pf_op *op = &cc->ops[w][o];
            if (op->kind == PF_OP_WAIT) continue;
            if (op->flag && !cc->awaited[flag_index(cc, op->flag)]) op->flag = NULL;
            if (op->kind == PF_OP_RUN) continue;
            uint32_t l = g->nodes[op->node].loop;
            pf_flag *ef = cc->exit_flag[l * k + w];
            op->exit_flag = ef && cc->awaited[flag_index(cc, ef)] ? ef : NULL;
            uint32_t end = cc->end_op[l * k + w];
            op->jump = op->kind == PF_OP_END ? cc->begin_op[l * k + w] + 1 : end + 1;
            if (op->kind != PF_OP_BREAK) continue;
            /* A taken break skips the rest of the iteration: publish what awaited flags of this loop's level
             * the skipped ops would have published, so waiters see a completed iteration. */
            op->skip_off = (uint32_t)nskips;
            for (size_t q = o + 1; q <= end; q++) {
                const pf_op *s = &cc->ops[w][q];
                if (s->kind == PF_OP_WAIT) continue;
                const pf_node *sn = &g->nodes[s->node];
                pf_flag *f[2] = {NULL, NULL};
                if (sn->ctx == l + 1 && s->flag && cc->awaited[flag_index(cc, s->flag)]) f[0] = s->flag;
                if (s->kind == PF_OP_BEGIN && loop_parent_ctx(g, sn->loop) == l + 1) { /* a skipped child loop */
                    pf_flag *cf = cc->exit_flag[sn->loop * k + w];
                    if (cf && cc->awaited[flag_index(cc, cf)]) f[1] = cf;
                }
                for (int j = 0; j < 2; j++) {
                    if (!f[j]) continue;
                    if (PF_ARRAY_RESERVE(g->skips, cap_skips, nskips + 1)) return PF_ENOMEM;
                    g->skips[nskips++] = f[j];
                }
            }
            op->nskip = (uint32_t)nskips - op->skip_off;
        }
        g->programs[w].ops = cc->ops[w];
        g->programs[w].nops = (uint32_t)cc->nops[w];
        cc->ops[w] = NULL;
    }
    g->nskips = nskips;
    return PF_OK;
}

int pf_graph_compile_programs(pf_graph *g, int workers)
{
    pf_graph_free_programs(g);
    size_t n = g->nnodes, k = (size_t)workers, nl = g->nloops;
    compiler cc = {.g = g, .k = k};
    cc.part = pf_calloc(nl * k + 1, 1);
    cc.rep_off = pf_malloc((n + 1) * sizeof *cc.rep_off);
    cc.exit_flag = pf_calloc(nl * k + 1, sizeof *cc.exit_flag);
    cc.seen = pf_malloc(k * k * sizeof *cc.seen);
    cc.ops = pf_calloc(k, sizeof *cc.ops);
    cc.nops = pf_calloc(k, sizeof *cc.nops);
    cc.cap_ops = pf_calloc(k, sizeof *cc.cap_ops);
    cc.begin_op = pf_calloc(nl * k + 1, sizeof *cc.begin_op);
    cc.end_op = pf_calloc(nl * k + 1, sizeof *cc.end_op);
    g->programs = pf_calloc(k, sizeof *g->programs);
    int rc = PF_ENOMEM;
    if (!cc.part || !cc.rep_off || !cc.exit_flag || !cc.seen || !cc.ops || !cc.nops || !cc.cap_ops ||
        !cc.begin_op || !cc.end_op || !g->programs)
        goto done;
    g->compiled_workers = workers;
    for (size_t w = 0; w < k; w++) {
        g->programs[w].cnt = pf_calloc(nl + 1, sizeof(uint32_t));
        g->programs[w].it = pf_calloc(nl + 1, sizeof(uint32_t));
        if (!g->programs[w].cnt || !g->programs[w].it) goto done;
    }
    for (size_t e = 0; e < k * k; e++) cc.seen[e] = -1;
    mark_participants(&cc);
    if (place_replicas(&cc) || build_programs(&cc) || link_programs(&cc)) goto done;
    rc = PF_OK;
done:
    if (cc.ops)
        for (size_t w = 0; w < k; w++) pf_free(cc.ops[w]);
    void *bufs[] = {cc.part, cc.rep_off, cc.reps, cc.exit_flag, cc.awaited, cc.seen,
                    cc.ops, cc.nops, cc.cap_ops, cc.begin_op, cc.end_op};
    for (size_t b = 0; b < sizeof bufs / sizeof *bufs; b++) pf_free(bufs[b]);
    if (rc) {
        pf_graph_free_programs(g);
        return pf_error(rc, "out of memory compiling a graph for %d workers", workers);
    }
    return PF_OK;
}
