/* Compilation into per-worker programs (Hermann et al. 2009, §3.2-3.3, figures 3a and 4): each worker runs its nodes in
 * graph order; a wait precedes the first node that needs a result of another worker; loop control is
 * replicated on every worker that runs part of the body; an awaited node publishes its execution count.
 * Nodes appended to an analysed graph are compiled alone, onto the end of the programs. */
#include "contexts.h"
#include "graph.h"

#include "base/alloc.h"
#include "base/error.h"

#include <string.h>

/* One replica of a node on one worker: its place in that worker's run order and its flag. */
typedef struct replica {
    uint32_t worker;
    uint32_t pos;
    pf_flag *flag;
} replica;

/* What compiling the next appended nodes needs to know of the programs built so far. */
typedef struct pf_compiler {
    pf_graph *g;
    size_t k;
    uint8_t *part;       /* part[L * k + w]: worker w runs part of loop L's body */
    pf_flag **exit_flag; /* exit_flag[L * k + w] */
    uint32_t *begin_op, *end_op; /* [L * k + w]: op index of the loop's begin / end on w */
    size_t cap_loops;    /* loops the four arrays above hold */
    PF_VEC(uint32_t) rep_off; /* per node: first replica; rep_off[n + 1] - rep_off[n] replicas */
    PF_VEC(replica) reps;
    uint32_t *count;     /* per worker: replicas placed (the next position) */
    int64_t *seen;       /* seen[w * k + b]: highest pos of b already awaited in w's current segment */
    int64_t *seen_prev;  /* seen_prev[w * k + b]: highest pos of b's previous iteration already awaited */
    size_t *cap_ops;     /* per worker */
} compiler;

static void free_compiler(compiler *cc)
{
    if (!cc) return;
    pf_vec_free(&cc->rep_off);
    pf_vec_free(&cc->reps);
    void *bufs[] = {cc->part, cc->exit_flag, cc->begin_op, cc->end_op, cc->count, cc->seen, cc->seen_prev,
                    cc->cap_ops};
    for (size_t b = 0; b < sizeof bufs / sizeof *bufs; b++) pf_free(bufs[b]);
    pf_free(cc);
}

void pf_graph_free_programs(pf_graph *g)
{
    if (g->prog.programs) {
        for (int w = 0; w < g->prog.workers; w++) {
            pf_free(g->prog.programs[w].ops);
            pf_free(g->prog.programs[w].cnt);
            pf_free(g->prog.programs[w].it);
            pf_vec_free(&g->prog.programs[w].op_ns);
        }
        pf_free(g->prog.programs);
    }
    for (size_t c = 0; c < g->prog.flag_chunks.n; c++) pf_free(g->prog.flag_chunks.v[c]);
    pf_vec_free(&g->prog.flag_chunks);
    pf_vec_free(&g->prog.skips);
    pf_vec_free(&g->prog.imports);
    free_compiler(g->prog.cc);
    g->prog.cc = NULL;
    g->prog.programs = NULL;
    g->prog.workers = 0;
    g->prog.cross_edges = g->prog.waits = 0;
}

/* The loop directly inside context `c` that contains context `inner` (which is strictly inside c). */
static uint32_t child_loop_of(const pf_graph *g, uint32_t c, uint32_t inner)
{
    while (pf_ctx_parent(g, inner - 1) != c) inner = pf_ctx_parent(g, inner - 1);
    return inner - 1;
}

static int is_work(const pf_node *n)
{
    return n->kind == PF_NODE_TASK || n->kind == PF_NODE_REDUCER;
}

/* Appends an op to worker w's program. The ops' capacity stays in the compiler, not in pf_program: a program is
 * read on every replay and holds only what the executor uses. */
static int emit(pf_graph *g, compiler *cc, size_t w, pf_op op)
{
    pf_program *p = &g->prog.programs[w];
    size_t cap = cc->cap_ops[w];
    if (PF_ARRAY_RESERVE(p->ops, cap, (size_t)p->nops + 1)) return PF_ENOMEM;
    cc->cap_ops[w] = cap;
    p->ops[p->nops++] = op;
    return PF_OK;
}

/* Grows the per-loop arrays and every worker's loop counters (kept: they count executions since the first
 * compilation) to the graph's loop count. */
static int grow_loops(pf_graph *g, compiler *cc)
{
    size_t nl = g->loops.n, k = cc->k;
    if (nl <= cc->cap_loops && cc->part) return PF_OK;
    size_t cap = nl * 2 + 1, old = cc->cap_loops;
    uint8_t *part = pf_realloc(cc->part, old * k, cap * k);
    if (part) cc->part = part;
    pf_flag **ef = part ? pf_realloc(cc->exit_flag, old * k * sizeof *ef, cap * k * sizeof *ef) : NULL;
    if (ef) cc->exit_flag = ef;
    uint32_t *bo = ef ? pf_realloc(cc->begin_op, old * k * sizeof *bo, cap * k * sizeof *bo) : NULL;
    if (bo) cc->begin_op = bo;
    uint32_t *eo = bo ? pf_realloc(cc->end_op, old * k * sizeof *eo, cap * k * sizeof *eo) : NULL;
    if (!eo) return PF_ENOMEM;
    cc->end_op = eo;
    memset(cc->part + old * k, 0, (cap - old) * k);
    memset(cc->exit_flag + old * k, 0, (cap - old) * k * sizeof *ef);
    for (size_t w = 0; w < k; w++) {
        pf_program *p = &g->prog.programs[w];
        uint32_t *cnt = pf_realloc(p->cnt, (old + 1) * sizeof *cnt, (cap + 1) * sizeof *cnt);
        if (cnt) p->cnt = cnt;
        uint32_t *it = cnt ? pf_realloc(p->it, (old + 1) * sizeof *it, (cap + 1) * sizeof *it) : NULL;
        if (!it) return PF_ENOMEM;
        p->it = it;
        if (!p->cnt || old == 0) p->cnt[0] = 0;
        for (size_t l = old + 1; l <= cap; l++) p->cnt[l] = p->it[l] = 0;
        if (old == 0) p->it[0] = 0;
    }
    cc->cap_loops = cap;
    return PF_OK;
}

/* Participation: a worker runs part of a loop when it runs a work node anywhere inside it. Appended nodes
 * are outside every kept loop, so only their own (new) loops gain participants. */
static void mark_participants(pf_graph *g, compiler *cc, size_t from)
{
    size_t k = cc->k;
    uint32_t first_loop = PF_NONE;
    for (size_t i = from; i < g->an.nodes.n; i++) {
        const pf_node *n = &g->an.nodes.v[i];
        if (n->kind == PF_NODE_BEGIN && first_loop == PF_NONE) first_loop = n->loop;
        if (!is_work(n)) continue;
        for (uint32_t c = n->ctx; c; c = pf_ctx_parent(g, c - 1)) cc->part[(c - 1) * k + (size_t)n->worker] = 1;
    }
    if (first_loop == PF_NONE) return;
    /* A loop with no work still runs its control somewhere: on worker 0, and so in its ancestors too. */
    for (size_t l = first_loop; l < g->loops.n; l++) {
        int any = 0;
        for (size_t w = 0; w < k; w++) any |= cc->part[l * k + w];
        if (!any)
            for (uint32_t c = (uint32_t)l + 1; c; c = pf_ctx_parent(g, c - 1)) cc->part[(c - 1) * k] = 1;
    }
}

/* Replicas of the nodes from `from` on, and a new chunk of flags for them and for the new loops' exits: one
 * block per worker, padded to cache lines, so one worker's signals never share a line with another's. */
static int place_replicas(pf_graph *g, compiler *cc, size_t from, uint32_t first_new_loop)
{
    size_t k = cc->k, n = g->an.nodes.n;
    if (pf_vec_reserve(&cc->rep_off, n + 1)) return PF_ENOMEM;
    size_t nrep = cc->reps.n;
    for (size_t i = from; i < n; i++) {
        const pf_node *nd = &g->an.nodes.v[i];
        cc->rep_off.v[i] = (uint32_t)nrep;
        if (is_work(nd)) {
            nrep++;
        } else {
            for (size_t w = 0; w < k; w++) nrep += cc->part[nd->loop * k + w];
        }
    }
    cc->rep_off.v[n] = (uint32_t)nrep;
    if (pf_vec_reserve(&cc->reps, nrep + 1)) return PF_ENOMEM;
    size_t *slots = pf_calloc(k, sizeof *slots), *base = pf_calloc(k, sizeof *base);
    if (!slots || !base) {
        pf_free(slots);
        pf_free(base);
        return PF_ENOMEM;
    }
    for (size_t i = from; i < n; i++) {
        const pf_node *nd = &g->an.nodes.v[i];
        replica *r = &cc->reps.v[cc->rep_off.v[i]];
        if (is_work(nd)) {
            *r = (replica){(uint32_t)nd->worker, cc->count[nd->worker]++, NULL};
            slots[nd->worker]++;
        } else {
            for (size_t w = 0; w < k; w++)
                if (cc->part[nd->loop * k + w]) {
                    *r++ = (replica){(uint32_t)w, cc->count[w]++, NULL};
                    slots[w]++;
                }
        }
    }
    for (size_t l = first_new_loop; l < g->loops.n; l++)
        for (size_t w = 0; w < k; w++) slots[w] += cc->part[l * k + w];
    size_t per_line = 64 / sizeof(pf_flag), total = 0;
    for (size_t w = 0; w < k; w++) {
        base[w] = total;
        total += (slots[w] + per_line - 1) / per_line * per_line + per_line;
    }
    pf_flag *chunk = pf_calloc(total, sizeof *chunk);
    if (!chunk || pf_vec_reserve(&g->prog.flag_chunks, g->prog.flag_chunks.n + 1)) {
        pf_free(chunk);
        pf_free(slots);
        pf_free(base);
        return PF_ENOMEM;
    }
    g->prog.flag_chunks.v[g->prog.flag_chunks.n++] = chunk;
    for (size_t r = cc->reps.n; r < nrep; r++) {
        pf_flag *f = &chunk[base[cc->reps.v[r].worker]++];
        f->op = PF_NONE;
        f->worker = (uint16_t)cc->reps.v[r].worker;
        cc->reps.v[r].flag = f;
    }
    for (size_t l = first_new_loop; l < g->loops.n; l++)
        for (size_t w = 0; w < k; w++)
            if (cc->part[l * k + w]) {
                pf_flag *f = &chunk[base[w]++];
                f->op = PF_NONE;
                f->worker = (uint16_t)w;
                cc->exit_flag[l * k + w] = f;
            }
    cc->reps.n = nrep;
    pf_free(slots);
    pf_free(base);
    return PF_OK;
}

/* Marks a flag awaited; a node flag's publishing op starts publishing it. */
static void await_flag(pf_graph *g, pf_flag *f)
{
    if (f->awaited) return;
    f->awaited = 1;
    if (f->op != PF_NONE) g->prog.programs[f->worker].ops[f->op].flag = f;
}

/* Waits that node i's replica on worker w needs before it runs. */
static int emit_waits(pf_graph *g, compiler *cc, size_t i, size_t w)
{
    size_t k = cc->k;
    const pf_node *n = &g->an.nodes.v[i];
    size_t first = g->prog.programs[w].nops;
    for (uint32_t e = 0; e < n->npred; e++) {
        uint32_t pe = g->an.preds.v[n->pred_off + e];
        uint32_t p = PF_PRED_NODE(pe);
        uint8_t carried = (pe & PF_PRED_CARRIED) != 0;
        const pf_node *pn = &g->an.nodes.v[p];
        uint32_t c = pf_ctx_common(g, pn->ctx, n->ctx);
        for (uint32_t r = cc->rep_off.v[p]; r < cc->rep_off.v[p + 1]; r++) {
            const replica *rp = &cc->reps.v[r];
            if (rp->worker == w) continue; /* program order */
            g->prog.cross_edges++;
            size_t rk = (size_t)g->prog.rank_workers;
            if (rk && rp->worker / rk != w / rk) { /* another rank: its data come with this flag's messages */
                await_flag(g, rp->flag);
                if (pf_vec_push(&g->prog.imports, ((pf_flag_import){rp->flag, (uint32_t)(w / rk)}))) return PF_ENOMEM;
            }
            pf_flag *target;
            int plain = !carried && pn->ctx == c && n->ctx == c;
            if (pn->ctx == c) {
                target = rp->flag;
            } else { /* the pred is inside a loop nested in c: its worker's exit of that loop covers it */
                target = cc->exit_flag[child_loop_of(g, c, pn->ctx) * k + rp->worker];
                PF_ASSERT(target);
            }
            int64_t *seen = &cc->seen[w * k + rp->worker], *seen_prev = &cc->seen_prev[w * k + rp->worker];
            if (plain && (int64_t)rp->pos <= *seen) continue; /* an earlier wait on that worker covers it */
            /* a loop-carried edge (the pred's previous iteration) is covered by any wait on that worker in this
             * iteration — it has finished its previous one — or by a later-placed carried wait on it */
            int prev = carried && pn->ctx == c && n->ctx == c;
            if (prev && (*seen >= 0 || (int64_t)rp->pos <= *seen_prev)) continue;
            int dup = 0;
            for (size_t o = first; o < g->prog.programs[w].nops && !dup; o++) {
                const pf_op *op = &g->prog.programs[w].ops[o];
                dup = op->flag == target && op->ctx == c && op->delta == carried;
            }
            if (dup) continue;
            if (plain) *seen = rp->pos;
            if (prev) *seen_prev = rp->pos;
            await_flag(g, target);
            g->prog.waits++;
            /* a result from outside n's loop is awaited in the loop's first iteration only */
            uint32_t once = !carried && c != n->ctx ? n->ctx : 0;
            if (emit(g, cc, w,
                     (pf_op){.kind = PF_OP_WAIT, .delta = carried, .ctx = (uint16_t)c, .jump = once, .flag = target}))
                return PF_ENOMEM;
        }
    }
    return PF_OK;
}

static int build_programs(pf_graph *g, compiler *cc, size_t from)
{
    size_t k = cc->k;
    for (size_t e = 0; e < k * k; e++) cc->seen[e] = cc->seen_prev[e] = -1;
    for (size_t i = from; i < g->an.nodes.n; i++) {
        const pf_node *n = &g->an.nodes.v[i];
        for (uint32_t r = cc->rep_off.v[i]; r < cc->rep_off.v[i + 1]; r++) {
            const replica *rp = &cc->reps.v[r];
            size_t w = rp->worker;
            if (emit_waits(g, cc, i, w)) return PF_ENOMEM;
            pf_op op = {.ctx = (uint16_t)n->ctx, .node = (uint32_t)i};
            switch (n->kind) {
            case PF_NODE_BEGIN:
                op.kind = PF_OP_BEGIN;
                cc->begin_op[n->loop * k + w] = g->prog.programs[w].nops;
                break;
            case PF_NODE_END:
                op.kind = PF_OP_END;
                cc->end_op[n->loop * k + w] = g->prog.programs[w].nops;
                break;
            case PF_NODE_BREAK: op.kind = PF_OP_BREAK; break;
            default: op.kind = PF_OP_RUN; break;
            }
            if (op.kind != PF_OP_RUN) {
                /* a new iteration or entry: earlier waits no longer cover. A break stays inside its iteration:
                 * when it is not taken, the waits before it have run in this iteration and still cover */
                if (op.kind != PF_OP_BREAK)
                    for (size_t b = 0; b < k; b++) cc->seen[w * k + b] = cc->seen_prev[w * k + b] = -1;
                op.exit_flag = cc->exit_flag[n->loop * k + w]; /* exits are always published */
            }
            rp->flag->op = g->prog.programs[w].nops;
            if (rp->flag->awaited) op.flag = rp->flag;
            if (emit(g, cc, w, op)) return PF_ENOMEM;
        }
    }
    return PF_OK;
}

/* Jumps of the new control ops and the skip lists of new breaks. */
static int link_programs(pf_graph *g, compiler *cc, const uint32_t *first_op)
{
    size_t k = cc->k;
    for (size_t w = 0; w < k; w++) {
        pf_program *prog = &g->prog.programs[w];
        for (size_t o = first_op[w]; o < prog->nops; o++) {
            pf_op *op = &prog->ops[o];
            if (op->kind == PF_OP_WAIT || op->kind == PF_OP_RUN) continue;
            uint32_t l = g->an.nodes.v[op->node].loop;
            uint32_t end = cc->end_op[l * k + w];
            op->jump = op->kind == PF_OP_END ? cc->begin_op[l * k + w] + 1 : end + 1;
            if (op->kind != PF_OP_BREAK) continue;
            /* A taken break skips the rest of the iteration: publish what the skipped ops of this loop's level
             * would have published (awaited flags and child-loop exits), so waiters see a completed iteration. */
            op->skip_off = (uint32_t)g->prog.skips.n;
            for (size_t q = o + 1; q <= end; q++) {
                const pf_op *s = &prog->ops[q];
                if (s->kind == PF_OP_WAIT) continue;
                const pf_node *sn = &g->an.nodes.v[s->node];
                pf_flag *f[2] = {NULL, NULL};
                if (sn->ctx == l + 1 && s->flag) f[0] = s->flag;
                if (s->kind == PF_OP_BEGIN && pf_ctx_parent(g, sn->loop) == l + 1) f[1] = s->exit_flag;
                for (int j = 0; j < 2; j++) {
                    if (!f[j]) continue;
                    if (pf_vec_reserve(&g->prog.skips, g->prog.skips.n + 1)) return PF_ENOMEM;
                    g->prog.skips.v[g->prog.skips.n++] = f[j];
                }
            }
            op->nskip = (uint32_t)g->prog.skips.n - op->skip_off;
        }
    }
    return PF_OK;
}

/* Compiles the nodes from `from` on (all of them for a fresh compilation). */
static int compile_from(pf_graph *g, size_t from, uint32_t first_new_loop)
{
    compiler *cc = g->prog.cc;
    size_t k = cc->k;
    uint32_t *first_op = pf_malloc(k * sizeof *first_op);
    if (!first_op) return PF_ENOMEM;
    for (size_t w = 0; w < k; w++) first_op[w] = g->prog.programs[w].nops;
    int rc = PF_ENOMEM;
    if (grow_loops(g, cc)) goto done;
    mark_participants(g, cc, from);
    if (place_replicas(g, cc, from, first_new_loop) || build_programs(g, cc, from) ||
        link_programs(g, cc, first_op))
        goto done;
    rc = PF_OK;
done:
    pf_free(first_op);
    return rc;
}

int pf_graph_compile_programs(pf_graph *g, int workers, pf_partitioner p)
{
    int rank_workers = g->prog.rank_workers;
    pf_graph_free_programs(g);
    g->prog.rank_workers = rank_workers;
    size_t k = (size_t)workers;
    compiler *cc = pf_calloc(1, sizeof *cc);
    g->prog.cc = cc;
    g->prog.programs = pf_calloc(k, sizeof *g->prog.programs);
    int rc = PF_ENOMEM;
    if (!cc || !g->prog.programs) goto done;
    cc->g = g;
    cc->k = k;
    cc->count = pf_calloc(k, sizeof *cc->count);
    cc->seen = pf_malloc(k * k * sizeof *cc->seen);
    cc->seen_prev = pf_malloc(k * k * sizeof *cc->seen_prev);
    cc->cap_ops = pf_calloc(k, sizeof *cc->cap_ops);
    if (!cc->count || !cc->seen || !cc->seen_prev || !cc->cap_ops) goto done;
    g->prog.workers = workers;
    g->prog.partitioner = p;
    if (compile_from(g, 0, 0)) goto done;
    rc = PF_OK;
done:
    if (rc) {
        pf_graph_free_programs(g);
        return pf_error(rc, "out of memory compiling a graph for %d workers", workers);
    }
    return PF_OK;
}

int pf_graph_compile_append(pf_graph *g)
{
    PF_ASSERT(g->prog.cc && g->prog.workers > 0);
    uint32_t first_new_loop = (uint32_t)g->loops.n;
    for (size_t i = g->an.first_new_node; i < g->an.nodes.n; i++)
        if (g->an.nodes.v[i].kind == PF_NODE_BEGIN) {
            first_new_loop = g->an.nodes.v[i].loop;
            break;
        }
    int workers = g->prog.workers;
    if (compile_from(g, g->an.first_new_node, first_new_loop)) {
        pf_graph_free_programs(g);
        return pf_error(PF_ENOMEM, "out of memory compiling appended tasks for %d workers", workers);
    }
    return PF_OK;
}
