/* Dependency analysis per datum (Hermann et al. 2009, §3.1-3.3): read-after-write, write-after-read and
 *write-after-write edges; groups of cumulative writers closed by a reducer node that becomes the datum's writer;
 * loop markers as control nodes, loop-carried edges found by a second pass over each body, and the state after a loop
 * merged from its entry, its breaks and its end (a loop may run zero times or stop at a break). */
#include "graph.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

/* A cell of an immutable singly linked list in a pool. Lists are only ever prepended to, so an old head still
 * names the old list: saving a datum's state is saving two heads. */
typedef struct link {
    uint32_t node;
    uint32_t next;
} link;

typedef struct touch {
    uint32_t datum;
    uint32_t writers, readers; /* the datum's lists when the loop first touched it (or at a break) */
} touch;

typedef struct loop_frame {
    uint32_t loop;
    PF_VEC(touch) entry;  /* data touched in the body, with their state at loop entry */
    PF_VEC(touch) breaks; /* states saved at conditional breaks */
} loop_frame;

/* The analysis state, kept with the graph after an analysis so that tasks appended later are analysed alone:
 * per-datum lists describe the state at the end of the analysed tasks. */
typedef struct pf_analysis {
    pf_graph *g;
    uint32_t *writers;    /* per datum: possible last writers (one, except after a loop) */
    uint32_t *readers;    /* per datum: readers since the last write */
    uint32_t *group_head; /* per datum: open cumulative group (nodes, newest first) */
    uint32_t *group_acc;  /* per datum: the group's global access indices (parallel list) */
    uint32_t *group_len;
    uint32_t *touch_depth; /* per datum: deepest open loop frame that recorded its entry state, +1 */
    uint32_t *ov_stamp, *ov_writers, *ov_readers; /* second pass overlay (per datum) */
    size_t cap_data;
    uint32_t *open_groups; /* data whose group may be open, in opening order (per access capacity) */
    size_t nopen;
    size_t *buf_off;      /* per access: offset of its private buffer in the increment's chunk */
    uint32_t *reducer_of; /* per access: the reducer that combines its buffer (cumulative accesses) */
    size_t cap_acc;
    uint32_t *mark;       /* per node: the node currently collecting preds that already lists it */
    uint32_t *seen;       /* per node: the merge that already has it in its target list */
    uint32_t merge;       /* the current merge's stamp */
    size_t cap_mark;
    PF_VEC(link) pool;
    PF_VEC(loop_frame) stack; /* the open loops, innermost last */
    PF_VEC(uint64_t) carried; /* (node << 32 | pred) pairs found by the second passes of this increment */
    uint32_t pass;
    const unsigned char *args_base; /* g->args.v when node argument pointers were resolved */
} analysis;

#define TAGGED 0x80000000u /* a node of the simulated next iteration, in the second pass */

static int push(analysis *a, uint32_t *head, uint32_t node)
{
    if (pf_vec_push(&a->pool, ((link){node, *head}))) return PF_ENOMEM;
    *head = (uint32_t)(a->pool.n - 1);
    return PF_OK;
}

/* Adds edge pred -> node (the newest node) unless already present. */
static int add_pred(analysis *a, uint32_t node, uint32_t pred)
{
    if (a->mark[pred] == node) return PF_OK;
    a->mark[pred] = node;
    pf_graph *g = a->g;
    if (pf_vec_reserve(&g->an.preds, g->an.preds.n + 1)) return PF_ENOMEM;
    g->an.preds.v[g->an.preds.n++] = pred;
    g->an.nodes.v[node].npred++;
    return PF_OK;
}

static int add_list_preds(analysis *a, uint32_t node, uint32_t head)
{
    for (uint32_t l = head; l != PF_NONE; l = a->pool.v[l].next)
        if (add_pred(a, node, a->pool.v[l].node)) return PF_ENOMEM;
    return PF_OK;
}

static int new_node(analysis *a, pf_node init, uint32_t *id)
{
    pf_graph *g = a->g;
    if (pf_vec_reserve(&g->an.nodes, g->an.nodes.n + 1)) return PF_ENOMEM;
    init.pred_off = (uint32_t)g->an.preds.n;
    init.npred = 0;
    init.worker = -1;
    init.ctx = a->stack.n ? a->stack.v[a->stack.n - 1].loop + 1 : 0;
    *id = (uint32_t)g->an.nodes.n;
    g->an.nodes.v[g->an.nodes.n++] = init;
    a->mark[*id] = PF_NONE;
    return PF_OK;
}

static int reserve_ptrs(analysis *a, uint32_t node, uint32_t count)
{
    pf_graph *g = a->g;
    if (pf_vec_reserve(&g->an.ptrs, g->an.ptrs.n + count)) return PF_ENOMEM;
    g->an.nodes.v[node].ptr_off = (uint32_t)g->an.ptrs.n;
    g->an.nodes.v[node].nptrs = count;
    g->an.ptrs.n += count;
    return PF_OK;
}

/* Records, for every open loop that has not seen datum d yet, d's state at that loop's entry. */
static int touch_datum(analysis *a, uint32_t d)
{
    for (size_t k = a->touch_depth[d]; k < a->stack.n; k++) {
        loop_frame *f = &a->stack.v[k];
        if (pf_vec_push(&f->entry, ((touch){d, a->writers[d], a->readers[d]}))) return PF_ENOMEM;
    }
    if (a->touch_depth[d] < a->stack.n) a->touch_depth[d] = (uint32_t)a->stack.n;
    return PF_OK;
}

/* A write by `node`: it waits for the possible last writers and the readers, then is the only writer. */
static int write_datum(analysis *a, uint32_t node, uint32_t d)
{
    if (touch_datum(a, d) || add_list_preds(a, node, a->writers[d]) || add_list_preds(a, node, a->readers[d]))
        return PF_ENOMEM;
    a->writers[d] = PF_NONE;
    a->readers[d] = PF_NONE;
    return push(a, &a->writers[d], node);
}

static int read_datum(analysis *a, uint32_t node, uint32_t d)
{
    if (touch_datum(a, d) || add_list_preds(a, node, a->writers[d])) return PF_ENOMEM;
    return push(a, &a->readers[d], node);
}

/* Closes the open cumulative group of datum d with a reducer node: it waits for the group's writers, for the
 * datum's previous writers and for the readers of its old value, and becomes the datum's writer. */
static int close_group(analysis *a, uint32_t d)
{
    pf_graph *g = a->g;
    uint32_t r;
    if (new_node(a, (pf_node){.kind = PF_NODE_REDUCER, .task = PF_NONE, .datum = d, .object = g->data.v[d].owner,
                              .loop = PF_NONE, .cost_meas = -1.0},
                 &r))
        return PF_ENOMEM;
    g->an.nreducers++;
    uint32_t n = a->group_len[d];
    if (reserve_ptrs(a, r, n)) return PF_ENOMEM;
    /* The lists are newest first: fill the buffers from the back so they end up in recording order. */
    uint32_t k = n;
    for (uint32_t l = a->group_head[d], m = a->group_acc[d]; l != PF_NONE; l = a->pool.v[l].next, m = a->pool.v[m].next) {
        uint32_t access = a->pool.v[m].node;
        g->an.ptrs.v[g->an.nodes.v[r].ptr_off + --k] = (void *)(uintptr_t)access; /* resolved in finish() */
        a->reducer_of[access] = r;
        if (add_pred(a, r, a->pool.v[l].node)) return PF_ENOMEM;
    }
    a->group_head[d] = a->group_acc[d] = PF_NONE;
    a->group_len[d] = 0;
    return write_datum(a, r, d);
}

/* Loop markers and breaks close every open group: a reducer never straddles a loop boundary. */
static int close_all_groups(analysis *a)
{
    for (size_t k = 0; k < a->nopen; k++) {
        uint32_t d = a->open_groups[k];
        if (a->group_head[d] != PF_NONE && close_group(a, d)) return PF_ENOMEM;
    }
    a->nopen = 0;
    return PF_OK;
}

static int add_task(analysis *a, uint32_t t)
{
    pf_graph *g = a->g;
    const pf_task *task = &g->tasks.v[t];
    const pf_task_access *acc = &g->accesses.v[task->acc_off];

    /* Reducers of groups this task closes come first in the node list. */
    for (uint32_t k = 0; k < task->nacc; k++)
        if (acc[k].mode != PF_CUMUL && a->group_head[acc[k].data] != PF_NONE)
            if (close_group(a, acc[k].data)) return PF_ENOMEM;

    /* Owner-compute object: the owner of the first datum written, else of the first datum read. */
    uint32_t object = PF_NONE;
    for (uint32_t k = 0; k < task->nacc && object == PF_NONE; k++)
        if (acc[k].mode != PF_READ) object = g->data.v[acc[k].data].owner;
    if (object == PF_NONE && task->nacc > 0) object = g->data.v[acc[0].data].owner;

    uint32_t id;
    if (new_node(a, (pf_node){.kind = PF_NODE_TASK, .fn = task->fn, .task = t, .datum = PF_NONE, .object = object,
                              .loop = PF_NONE, .args = task->args_size ? g->args.v + task->args_off : NULL},
                 &id))
        return PF_ENOMEM;
    g->an.task_node.v[t] = id;
    if (reserve_ptrs(a, id, task->nacc)) return PF_ENOMEM;

    for (uint32_t k = 0; k < task->nacc; k++) {
        uint32_t d = acc[k].data;
        uint32_t global = task->acc_off + k;
        switch (acc[k].mode) {
        case PF_READ:
            if (read_datum(a, id, d)) return PF_ENOMEM;
            break;
        case PF_WRITE:
        case PF_READWRITE:
            if (write_datum(a, id, d)) return PF_ENOMEM;
            break;
        case PF_CUMUL:
            /* Writes a private buffer: no edge now; the reducer orders it. */
            g->an.nodes.v[id].has_cumul = 1;
            a->buf_off[global] = g->an.bufmem_size;
            g->an.bufmem_size += (g->data.v[d].size + 63) & ~(size_t)63;
            if (a->group_len[d] == 0) a->open_groups[a->nopen++] = d;
            if (push(a, &a->group_head[d], id) || push(a, &a->group_acc[d], global)) return PF_ENOMEM;
            a->group_len[d]++;
            break;
        }
    }
    return PF_OK;
}

/* ---- second pass: the edges from one iteration into the next ---- */

static void overlay(analysis *a, uint32_t d)
{
    if (a->ov_stamp[d] == a->pass) return;
    a->ov_stamp[d] = a->pass;
    a->ov_writers[d] = a->writers[d];
    a->ov_readers[d] = a->readers[d];
}

static int add_carried(analysis *a, uint32_t node, uint32_t pred)
{
    return pf_vec_push(&a->carried, (uint64_t)node << 32 | pred);
    return PF_OK;
}

/* Carried edges into `node` from the untagged (previous-iteration) body nodes of a list. */
static int carried_from_list(analysis *a, uint32_t node, uint32_t head, uint32_t lo, uint32_t hi)
{
    for (uint32_t l = head; l != PF_NONE; l = a->pool.v[l].next) {
        uint32_t p = a->pool.v[l].node;
        if (!(p & TAGGED) && p > lo && p <= hi && add_carried(a, node, p)) return PF_ENOMEM;
    }
    return PF_OK;
}

static int pass2_access(analysis *a, uint32_t node, uint32_t d, int writes, uint32_t lo, uint32_t hi)
{
    overlay(a, d);
    if (carried_from_list(a, node, a->ov_writers[d], lo, hi)) return PF_ENOMEM;
    if (!writes) return push(a, &a->ov_readers[d], node | TAGGED);
    if (carried_from_list(a, node, a->ov_readers[d], lo, hi)) return PF_ENOMEM;
    a->ov_readers[d] = PF_NONE;
    a->ov_writers[d] = PF_NONE;
    return push(a, &a->ov_writers[d], node | TAGGED);
}

/* Replays the body (begin, end] once more from the state at its end: an edge to a node of the first replay
 * is loop-carried. A cumulative writer also waits for the previous iteration's reducer of its buffer. */
static int carried_pass(analysis *a, uint32_t begin, uint32_t end)
{
    pf_graph *g = a->g;
    a->pass++;
    for (uint32_t i = begin + 1; i <= end; i++) {
        const pf_node *n = &g->an.nodes.v[i];
        if (n->kind == PF_NODE_REDUCER) {
            if (pass2_access(a, i, n->datum, 1, begin, end)) return PF_ENOMEM;
            continue;
        }
        const pf_task *t = &g->tasks.v[n->task];
        for (uint32_t k = 0; k < t->nacc; k++) {
            const pf_task_access *acc = &g->accesses.v[t->acc_off + k];
            if (acc->mode == PF_CUMUL) {
                if (add_carried(a, i, a->reducer_of[t->acc_off + k])) return PF_ENOMEM;
            } else if (pass2_access(a, i, acc->data, acc->mode != PF_READ, begin, end)) {
                return PF_ENOMEM;
            }
        }
    }
    return PF_OK;
}

/* ---- loop markers ---- */

/* into = into ∪ from, as sets: a datum only read in a loop body keeps the same list at entry, at every break
 * and at the end, and merging copies would multiply it by the number of breaks at every loop that reads it. */
static int merge_list(analysis *a, uint32_t *into, uint32_t from)
{
    if (from == PF_NONE || from == *into) return PF_OK;
    if (++a->merge == 0) { /* the stamp wrapped: start afresh */
        memset(a->seen, 0, a->cap_mark * sizeof *a->seen);
        a->merge = 1;
    }
    for (uint32_t l = *into; l != PF_NONE; l = a->pool.v[l].next) a->seen[a->pool.v[l].node] = a->merge;
    for (uint32_t l = from; l != PF_NONE; l = a->pool.v[l].next) {
        uint32_t n = a->pool.v[l].node;
        if (a->seen[n] == a->merge) continue;
        a->seen[n] = a->merge;
        if (push(a, into, n)) return PF_ENOMEM;
    }
    return PF_OK;
}

static int control_node(analysis *a, uint32_t t, int kind, uint32_t *id)
{
    pf_graph *g = a->g;
    const pf_task *task = &g->tasks.v[t];
    if (close_all_groups(a)) return PF_ENOMEM;
    if (new_node(a, (pf_node){.kind = (uint8_t)kind, .task = t, .datum = PF_NONE, .object = PF_NONE,
                              .loop = task->loop, .args = task->args_size ? g->args.v + task->args_off : NULL},
                 id))
        return PF_ENOMEM;
    g->an.task_node.v[t] = *id;
    if (task->cond_fn && read_datum(a, *id, task->cond_data)) return PF_ENOMEM;
    return PF_OK;
}

static int add_marker(analysis *a, uint32_t t)
{
    pf_graph *g = a->g;
    const pf_task *task = &g->tasks.v[t];
    pf_loop *L = &g->loops.v[task->loop];
    uint32_t id;
    if (task->item == PF_ITEM_BEGIN) {
        if (control_node(a, t, PF_NODE_BEGIN, &id)) return PF_ENOMEM;
        L->begin_node = id;
        if (pf_vec_push(&a->stack, ((loop_frame){.loop = task->loop}))) return PF_ENOMEM;
        return PF_OK;
    }
    loop_frame *f = &a->stack.v[a->stack.n - 1];
    if (task->item == PF_ITEM_BREAK) {
        if (control_node(a, t, PF_NODE_BREAK, &id)) return PF_ENOMEM;
        /* The loop may stop here: save the state of everything the body touched so far. */
        for (size_t k = 0; k < f->entry.n; k++) {
            uint32_t d = f->entry.v[k].datum;
            if (pf_vec_push(&f->breaks, ((touch){d, a->writers[d], a->readers[d]}))) return PF_ENOMEM;
        }
        return PF_OK;
    }
    /* END */
    if (control_node(a, t, PF_NODE_END, &id)) return PF_ENOMEM;
    L->end_node = id;
    if (carried_pass(a, L->begin_node, L->end_node)) return PF_ENOMEM;
    /* After the loop a datum's last writer may be the body's, the one before the loop (zero iterations) or
     * the one at a break: later accesses wait for all of them. */
    for (size_t k = 0; k < f->breaks.n; k++) {
        const touch *b = &f->breaks.v[k];
        if (merge_list(a, &a->writers[b->datum], b->writers) || merge_list(a, &a->readers[b->datum], b->readers))
            return PF_ENOMEM;
    }
    for (size_t k = 0; k < f->entry.n; k++) {
        const touch *e = &f->entry.v[k];
        if (merge_list(a, &a->writers[e->datum], e->writers) || merge_list(a, &a->readers[e->datum], e->readers))
            return PF_ENOMEM;
        a->touch_depth[e->datum] = (uint32_t)a->stack.n - 1;
    }
    pf_vec_free(&f->entry);
    pf_vec_free(&f->breaks);
    a->stack.n--;
    return PF_OK;
}

/* ---- finishing: pointers, carried edges into the pred lists, segments and levels ---- */

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Rebuilds the pred lists of nodes from `from` on with this increment's carried edges (flagged) appended to
 * each node's forward ones. Carried edges link nodes of one loop body, and loops are never appended to, so
 * only the increment's nodes get any. */
static int merge_carried(analysis *a, size_t from)
{
    pf_graph *g = a->g;
    if (a->carried.n == 0) return PF_OK;
    qsort(a->carried.v, a->carried.n, sizeof *a->carried.v, cmp_u64);
    size_t base = from < g->an.nodes.n ? g->an.nodes.v[from].pred_off : g->an.preds.n;
    size_t tail = g->an.preds.n - base + a->carried.n;
    uint32_t *old = pf_malloc((g->an.preds.n - base + 1) * sizeof *old);
    if (!old || pf_vec_reserve(&g->an.preds, base + tail)) {
        pf_free(old);
        return PF_ENOMEM;
    }
    memcpy(old, g->an.preds.v + base, (g->an.preds.n - base) * sizeof *old);
    size_t out = base, c = 0;
    for (size_t i = from; i < g->an.nodes.n; i++) {
        pf_node *n = &g->an.nodes.v[i];
        uint32_t off = (uint32_t)out;
        for (uint32_t k = 0; k < n->npred; k++) g->an.preds.v[out++] = old[n->pred_off - base + k];
        for (; c < a->carried.n && (a->carried.v[c] >> 32) == i; c++) {
            uint32_t p = (uint32_t)a->carried.v[c] | PF_PRED_CARRIED;
            if (out > off && g->an.preds.v[out - 1] == p) continue; /* sorted: duplicates are adjacent */
            g->an.preds.v[out++] = p;
        }
        n->pred_off = off;
        n->npred = (uint32_t)out - off;
    }
    PF_ASSERT(c == a->carried.n);
    g->an.preds.n = out;
    a->carried.n = 0;
    pf_free(old);
    return PF_OK;
}

/* Resolves the increment's pointers (datum memory, private buffers, arguments) and its carried edges. */
static int finish(analysis *a, size_t from)
{
    pf_graph *g = a->g;
    unsigned char *chunk = NULL;
    if (g->an.bufmem_size) {
        chunk = pf_calloc(1, g->an.bufmem_size);
        if (!chunk || pf_vec_reserve(&g->an.buf_chunks, g->an.buf_chunks.n + 1)) {
            pf_free(chunk);
            return PF_ENOMEM;
        }
        g->an.buf_chunks.v[g->an.buf_chunks.n++] = chunk;
        g->an.bufmem_size = 0;
    }
    if (a->args_base && a->args_base != g->args.v) { /* the argument arena moved: re-aim the kept nodes */
        for (size_t i = 0; i < from; i++) {
            pf_node *n = &g->an.nodes.v[i];
            if (n->args) n->args = g->args.v + ((const unsigned char *)n->args - a->args_base);
        }
    }
    a->args_base = g->args.v;
    for (size_t i = from; i < g->an.nodes.n; i++) {
        pf_node *n = &g->an.nodes.v[i];
        void **ptrs = g->an.ptrs.v + n->ptr_off;
        if (n->kind == PF_NODE_REDUCER) {
            for (uint32_t k = 0; k < n->nptrs; k++) ptrs[k] = chunk + a->buf_off[(uintptr_t)ptrs[k]];
            continue;
        }
        if (n->kind != PF_NODE_TASK) continue;
        const pf_task *t = &g->tasks.v[n->task];
        for (uint32_t k = 0; k < t->nacc; k++) {
            const pf_task_access *acc = &g->accesses.v[t->acc_off + k];
            ptrs[k] = acc->mode == PF_CUMUL ? (void *)(chunk + a->buf_off[t->acc_off + k]) : g->data.v[acc->data].ptr;
        }
    }
    if (merge_carried(a, from)) return PF_ENOMEM;
    uint32_t *it = pf_realloc(g->an.iter_scratch, 0, (g->loops.n + 1) * sizeof *it);
    if (!it) return PF_ENOMEM;
    g->an.iter_scratch = it;
    return PF_OK;
}

/* Grows the per-datum, per-access and per-node scratch to the graph's current sizes. */
static int ensure_capacity(analysis *a)
{
    pf_graph *g = a->g;
    size_t nd = g->data.n + 1;
    if (nd > a->cap_data) {
        size_t cap = nd * 2, old = a->cap_data;
        uint32_t **lists[] = {&a->writers, &a->readers, &a->group_head, &a->group_acc, &a->group_len,
                              &a->touch_depth, &a->ov_stamp, &a->ov_writers, &a->ov_readers};
        for (size_t k = 0; k < sizeof lists / sizeof *lists; k++) {
            uint32_t *p = pf_realloc(*lists[k], old * sizeof *p, cap * sizeof *p);
            if (!p) return PF_ENOMEM;
            *lists[k] = p;
            for (size_t d = old; d < cap; d++) p[d] = k < 4 || k >= 7 ? PF_NONE : 0;
        }
        for (size_t d = old; d < cap; d++) a->ov_stamp[d] = 0;
        a->cap_data = cap;
    }
    size_t nacc = g->accesses.n + 1;
    if (nacc > a->cap_acc) {
        size_t cap = nacc * 2, old = a->cap_acc;
        size_t *bo = pf_realloc(a->buf_off, old * sizeof *bo, cap * sizeof *bo);
        if (bo) a->buf_off = bo;
        uint32_t *ro = bo ? pf_realloc(a->reducer_of, old * sizeof *ro, cap * sizeof *ro) : NULL;
        if (ro) a->reducer_of = ro;
        uint32_t *og = ro ? pf_realloc(a->open_groups, old * sizeof *og, cap * sizeof *og) : NULL;
        if (!og) return PF_ENOMEM;
        a->open_groups = og;
        a->cap_acc = cap;
    }
    /* each new task adds itself and at most one reducer per access */
    size_t nodes = g->an.nodes.n + (g->tasks.n - g->an.analysed_tasks) + (g->accesses.n + 1);
    if (nodes > a->cap_mark) {
        size_t cap = nodes * 2;
        uint32_t *m = pf_realloc(a->mark, a->cap_mark * sizeof *m, cap * sizeof *m);
        if (m) a->mark = m;
        uint32_t *sn = m ? pf_realloc(a->seen, a->cap_mark * sizeof *sn, cap * sizeof *sn) : NULL;
        if (!sn) return PF_ENOMEM;
        memset(sn + a->cap_mark, 0, (cap - a->cap_mark) * sizeof *sn);
        a->seen = sn;
        a->cap_mark = cap;
    }
    if (g->tasks.n + 1 > g->an.task_node.cap) {
        size_t cap = (g->tasks.n + 1) * 2;
        uint32_t *tn = pf_realloc(g->an.task_node.v, g->an.task_node.cap * sizeof *tn, cap * sizeof *tn);
        if (!tn) return PF_ENOMEM;
        g->an.task_node.v = tn;
        g->an.task_node.cap = cap;
    }
    return PF_OK;
}

static void free_state(analysis *a)
{
    if (!a) return;
    for (size_t k = 0; k < a->stack.n; k++) {
        pf_vec_free(&a->stack.v[k].entry);
        pf_vec_free(&a->stack.v[k].breaks);
    }
    void *bufs[] = {a->writers, a->readers, a->group_head, a->group_acc, a->group_len, a->touch_depth,
                    a->ov_stamp, a->ov_writers, a->ov_readers, a->open_groups, a->buf_off, a->reducer_of,
                    a->mark, a->seen};
    for (size_t k = 0; k < sizeof bufs / sizeof *bufs; k++) pf_free(bufs[k]);
    pf_vec_free(&a->pool);
    pf_vec_free(&a->stack);
    pf_vec_free(&a->carried);
    pf_free(a);
}

/* Analyses the task records from g->an.analysed_tasks on, continuing the kept state. */
static int analyse_from(pf_graph *g)
{
    analysis *a = g->an.state;
    size_t from = g->an.nodes.n;
    if (ensure_capacity(a)) return PF_ENOMEM;
    for (size_t t = g->an.analysed_tasks; t < g->tasks.n; t++) {
        if (g->tasks.v[t].removed) {
            g->an.task_node.v[t] = PF_NONE;
            continue;
        }
        int r = g->tasks.v[t].item == PF_ITEM_TASK ? add_task(a, (uint32_t)t) : add_marker(a, (uint32_t)t);
        if (r) return PF_ENOMEM;
    }
    if (close_all_groups(a) || finish(a, from)) return PF_ENOMEM;
    g->an.analysed_tasks = g->tasks.n;
    g->an.first_new_node = from;
    g->an.analysed = 1;
    return PF_OK;
}

/* Drops the accesses and arguments of removed tasks and markers once they are most of the graph's, moving the
 * others down (task ids never change: only their offsets do). Called before a full analysis, which rebuilds
 * every node, so nothing holds an offset across it; keeps a graph that is updated for hours from growing with
 * its history. */
static void compact_removed(pf_graph *g)
{
    size_t dead = 0;
    for (size_t t = 0; t < g->tasks.n; t++)
        if (g->tasks.v[t].removed) dead += g->tasks.v[t].nacc;
    if (2 * dead <= g->accesses.n) return;
    size_t acc = 0, args = 0;
    for (size_t t = 0; t < g->tasks.n; t++) {
        pf_task *task = &g->tasks.v[t];
        if (task->removed) {
            task->nacc = 0;
            task->acc_off = (uint32_t)acc;
            task->args_size = 0;
            continue;
        }
        memmove(g->accesses.v + acc, g->accesses.v + task->acc_off, task->nacc * sizeof *g->accesses.v);
        task->acc_off = (uint32_t)acc;
        acc += task->nacc;
        if (task->args_size) {
            size_t off = (args + 15) & ~(size_t)15; /* arguments stay 16-byte aligned */
            memmove(g->args.v + off, g->args.v + task->args_off, task->args_size);
            task->args_off = off;
            args = off + task->args_size;
        }
    }
    g->accesses.n = acc;
    g->args.n = args;
}

int pf_graph_analyse(pf_graph *g)
{
    pf_graph_free_analysis(g);
    g->an.generation++; /* node ids change: whatever was derived from the old ones is rebuilt */
    compact_removed(g);
    if (g->open_loop != PF_NONE)
        return pf_error(PF_ESTATE, "the graph has an open loop: call pf_graph_loop_end before running it");
    g->an.state = pf_calloc(1, sizeof *g->an.state);
    if (!g->an.state) return pf_error(PF_ENOMEM, "out of memory analysing a graph");
    g->an.state->g = g;
    g->markers_removed = 0;
    if (analyse_from(g)) {
        pf_graph_free_analysis(g);
        return pf_error(PF_ENOMEM, "out of memory analysing a graph of %zu tasks", g->tasks.n);
    }
    return PF_OK;
}

/* Appending continues the kept analysis; removals become no-op nodes, until they are half the graph (then a
 * full analysis compacts it). */
int pf_graph_can_append(const pf_graph *g)
{
    return g->an.state && g->an.nodes.n > 0 && g->open_loop == PF_NONE && !g->markers_removed &&
           2 * (g->an.ndead + g->removed.n) < g->an.nodes.n;
}

/* A removed task's node stays where it is as a no-op: every edge through it stays valid (its data keep their
 * values) and nothing is re-analysed. Its private buffers leave their reducers' lists, so the fold is the one
 * a graph recorded without the task would do. */
static void kill_removed(pf_graph *g)
{
    analysis *a = g->an.state;
    for (size_t r = 0; r < g->removed.n; r++) {
        uint32_t t = g->removed.v[r];
        if (t >= g->an.analysed_tasks || g->an.task_node.v[t] == PF_NONE) continue; /* never analysed */
        pf_node *n = &g->an.nodes.v[g->an.task_node.v[t]];
        const pf_task *task = &g->tasks.v[t];
        for (uint32_t k = 0; k < task->nacc; k++) {
            if (g->accesses.v[task->acc_off + k].mode != PF_CUMUL) continue;
            pf_node *red = &g->an.nodes.v[a->reducer_of[task->acc_off + k]];
            void *buf = g->an.ptrs.v[n->ptr_off + k];
            void **list = g->an.ptrs.v + red->ptr_off;
            uint32_t out = 0;
            for (uint32_t j = 0; j < red->nptrs; j++)
                if (list[j] != buf) list[out++] = list[j];
            red->nptrs = out;
        }
        n->dead = 1;
        g->an.ndead++;
        g->an.task_node.v[t] = PF_NONE;
    }
    g->removed.n = 0;
}

int pf_graph_analyse_append(pf_graph *g)
{
    PF_ASSERT(pf_graph_can_append(g));
    kill_removed(g);
    if (analyse_from(g)) {
        pf_graph_free_analysis(g);
        return pf_error(PF_ENOMEM, "out of memory analysing appended tasks");
    }
    return PF_OK;
}

void pf_graph_free_analysis(pf_graph *g)
{
    free_state(g->an.state);
    g->an.state = NULL;
    for (size_t k = 0; k < g->an.buf_chunks.n; k++) pf_free(g->an.buf_chunks.v[k]);
    pf_vec_free(&g->an.nodes);
    pf_vec_free(&g->an.preds);
    pf_vec_free(&g->an.task_node);
    pf_vec_free(&g->an.ptrs);
    pf_vec_free(&g->an.buf_chunks);
    pf_free(g->an.iter_scratch);
    g->an.iter_scratch = NULL;
    g->an.bufmem_size = 0;
    g->an.nreducers = 0;
    g->an.analysed_tasks = 0;
    g->an.first_new_node = 0;
    g->pl.nodes = 0;
    g->removed.n = 0;
    g->an.ndead = 0;
    g->an.analysed = 0;
}

double pf_node_cost(const pf_graph *g, const pf_node *n)
{
    if (n->kind == PF_NODE_REDUCER)
        return n->cost_meas >= 0 ? n->cost_meas : 10.0 + (double)g->data.v[n->datum].size * n->nptrs / 8.0;
    const pf_task *t = &g->tasks.v[n->task];
    return t->cost_meas >= 0 ? t->cost_meas : t->cost_est;
}

void pf_graph_refresh_ptrs(pf_graph *g)
{
    for (size_t i = 0; i < g->an.nodes.n; i++) {
        const pf_node *n = &g->an.nodes.v[i];
        if (n->kind != PF_NODE_TASK) continue;
        const pf_task *t = &g->tasks.v[n->task];
        void **ptrs = g->an.ptrs.v + n->ptr_off;
        for (uint32_t k = 0; k < t->nacc; k++) {
            const pf_task_access *acc = &g->accesses.v[t->acc_off + k];
            if (acc->mode != PF_CUMUL) ptrs[k] = g->data.v[acc->data].ptr; /* private buffers never move */
        }
    }
    g->an.ptrs_stale = 0;
}
