/* Recording: graph lifecycle, data registration and task insertion. Nothing runs while recording. */
#include "counters.h"
#include "graph.h"
#include "mpi.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/error.h"

#include <math.h>
#include <string.h>

int pf_graph_check_idle(const pf_graph *g, const char *fn)
{
    if (!atomic_load(&((pf_graph *)g)->running)) return PF_OK;
    return pf_error(PF_ESTATE, "%s: the graph is running (called from inside one of its tasks?)", fn);
}

int pf_graph_create(pf_graph **out)
{
    PF_TRY(pf_check_given(out, __func__, "out"));
    pf_graph *g = pf_calloc(1, sizeof *g);
    if (!g) return pf_error(PF_ENOMEM, "out of memory creating a graph");
    g->open_loop = PF_NONE;
    *out = g;
    return PF_OK;
}

void pf_graph_destroy(pf_graph *g)
{
    if (!g || pf_graph_check_idle(g, __func__)) return; /* from inside a run: refused, the graph stays valid */
    pf_graph_free_programs(g);
    pf_mpi_tables_free(g);
    pf_graph_free_analysis(g);
    pf_barrier_levels_free(&g->lv);
    pf_placement_free(g->pl.state);
    pf_free(g->rp.trial.other);
    pf_counters_free(g->counters);
    pf_vec_free(&g->numa.datum_node);
    pf_vec_free(&g->pl.cost_run);
    pf_vec_free(&g->removed);
    pf_vec_free(&g->data);
    pf_vec_free(&g->tasks);
    pf_vec_free(&g->accesses);
    pf_vec_free(&g->args);
    pf_vec_free(&g->loops);
    pf_free(g);
}

int pf_graph_data(pf_graph *g, void *ptr, size_t size, uint32_t owner, const pf_reducer *reducer,
                  pf_data_id *out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(g, fn, "g"));
    PF_TRY(pf_check_given(ptr, fn, "ptr"));
    PF_TRY(pf_check_given(out, fn, "out"));
    if (size == 0) return pf_error(PF_EINVAL, "%s: size must be > 0 bytes", fn);
    PF_TRY(pf_check_size(size, 1, fn, "size"));
    PF_TRY(pf_graph_check_idle(g, fn));
    if (reducer && (!reducer->init || !reducer->combine))
        return pf_error(PF_EINVAL, "pf_graph_data: a reducer needs both init and combine");
    if (g->data.n >= PF_NONE - 1) return pf_error(PF_ENOMEM, "pf_graph_data: too many data");
    if (pf_vec_reserve(&g->data, g->data.n + 1))
        return pf_error(PF_ENOMEM, "out of memory registering a datum");
    pf_datum *d = &g->data.v[g->data.n];
    *d = (pf_datum){.ptr = ptr, .size = size, .owner = owner, .has_reducer = reducer != NULL, .reducer_worker = -1};
    if (reducer) d->reducer = *reducer;
    *out = (pf_data_id){(uint32_t)g->data.n++};
    return PF_OK;
}

int pf_graph_data_move(pf_graph *g, pf_data_id d, void *ptr, size_t size)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(g, fn, "g"));
    PF_TRY(pf_check_given(ptr, fn, "ptr"));
    if (d.index >= g->data.n) return pf_error(PF_EINVAL, "%s: unknown datum %u (%zu registered)", fn, d.index, g->data.n);
    if (size == 0) return pf_error(PF_EINVAL, "%s: size must be > 0 bytes", fn);
    PF_TRY(pf_check_size(size, 1, fn, "size"));
    PF_TRY(pf_graph_check_idle(g, fn));
    pf_datum *dt = &g->data.v[d.index];
    if (dt->has_reducer) /* its private buffers and merges are laid out for its memory at compilation */
        return pf_error(PF_EINVAL, "%s: datum %u has a reducer: it cannot move", fn, d.index);
    if (dt->ptr != ptr) g->an.ptrs_stale = 1;
    dt->ptr = ptr;
    dt->size = size;
    return PF_OK;
}

int pf_graph_set_mpi_share(pf_graph *g, pf_mpi_share share)
{
    PF_TRY(pf_check_given(g, __func__, "g"));
    if ((unsigned)share >= PF_MPI_SHARE_COUNT)
        return pf_error(PF_EINVAL, "%s: share must be PF_MPI_SHARE_ALL or PF_MPI_SHARE_NEXT, got %d", __func__,
                        (int)share);
    PF_TRY(pf_graph_check_idle(g, __func__));
    g->mpi_share = share;
    return PF_OK;
}

static int check_accesses(const pf_graph *g, const pf_task_def *def)
{
    for (uint32_t k = 0; k < def->naccesses; k++) {
        const pf_access *a = &def->accesses[k];
        uint32_t d = a->data.index;
        if (d >= g->data.n)
            return pf_error(PF_EINVAL, "task '%s': access %u names unknown datum %u", def->name, k, d);
        if (a->mode != PF_READ && a->mode != PF_WRITE && a->mode != PF_READWRITE && a->mode != PF_CUMUL)
            return pf_error(PF_EINVAL, "task '%s': access %u has invalid mode %d", def->name, k, (int)a->mode);
        if (a->mode == PF_CUMUL && !g->data.v[d].has_reducer)
            return pf_error(PF_EINVAL, "task '%s': cumulative write to datum %u, which has no reducer",
                            def->name, d);
        for (uint32_t j = 0; j < k; j++)
            if (def->accesses[j].data.index == d)
                return pf_error(PF_EINVAL, "task '%s': datum %u named twice (use PF_READWRITE)", def->name,
                                d);
    }
    return PF_OK;
}

/* Appends a task or loop marker; its args and accesses are copied. */
static int record_item(pf_graph *g, const pf_task_def *d, uint8_t item, uint32_t loop, pf_cond_fn cond_fn,
                       uint32_t cond_data, uint32_t *out)
{
    if (g->an.analysed)
        return pf_error(PF_ESTATE, "the graph is compiled; call pf_graph_invalidate before recording more");
    int rc = check_accesses(g, d);
    if (rc) return rc;
    if (g->tasks.n >= PF_MAX_TASKS) return pf_error(PF_ENOMEM, "too many tasks in one graph");
    size_t args_off = (g->args.n + 15) & ~(size_t)15; /* keep arguments 16-byte aligned */
    if (pf_vec_reserve(&g->tasks, g->tasks.n + 1) ||
        pf_vec_reserve(&g->accesses, g->accesses.n + d->naccesses) ||
        pf_vec_reserve(&g->args, args_off + d->args_size))
        return pf_error(PF_ENOMEM, "out of memory recording task '%s'", d->name);
    if (d->args_size) {
        memcpy(g->args.v + args_off, d->args, d->args_size);
        g->args.n = args_off + d->args_size;
    }
    for (uint32_t k = 0; k < d->naccesses; k++)
        g->accesses.v[g->accesses.n + k] = (pf_task_access){d->accesses[k].data.index, d->accesses[k].mode};
    g->tasks.v[g->tasks.n] = (pf_task){
        .item = item,
        .loop = loop,
        .cond_fn = cond_fn,
        .cond_data = cond_data,
        .fn = d->fn,
        .name = d->name,
        .args_off = args_off,
        .args_size = d->args_size,
        .acc_off = (uint32_t)g->accesses.n,
        .nacc = d->naccesses,
        .cost_est = d->cost_ns > 0 ? d->cost_ns : 1000.0,
        .cost_meas = -1.0,
        .worker = -1,
    };
    g->accesses.n += d->naccesses;
    *out = (uint32_t)g->tasks.n++;
    return PF_OK;
}

pf_task_def pf_task_default_def(void)
{
    return (pf_task_def){.name = "task"};
}

pf_loop_def pf_loop_default_def(void)
{
    return (pf_loop_def){.kind = PF_LOOP_COUNT, .count = 1, .max_iterations = 1000000};
}

int pf_graph_task(pf_graph *g, const pf_task_def *def, pf_task_id *out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(g, fn, "g"));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_check_callback(def->fn != NULL, fn, "def.fn"));
    PF_TRY(pf_check_int_range(def->naccesses, 0, PF_MAX_ACCESSES, fn, "def.naccesses"));
    if (def->naccesses) PF_TRY(pf_check_given(def->accesses, fn, "def.accesses (def.naccesses > 0)"));
    PF_TRY(pf_check_size(def->args_size, 1, fn, "def.args_size"));
    if (def->args_size) PF_TRY(pf_check_given(def->args, fn, "def.args (def.args_size > 0)"));
    if (!(def->cost_ns >= 0) || isinf(def->cost_ns)) /* NaN fails >= */
        return pf_error(PF_EINVAL, "%s: def.cost_ns must be a finite number >= 0 (0: unknown), got %g", fn,
                        def->cost_ns);
    PF_TRY(pf_graph_check_idle(g, fn));
    pf_task_def d = *def;
    if (!d.name) d.name = "task";
    uint32_t id = PF_NONE;
    int rc = record_item(g, &d, PF_ITEM_TASK, g->open_loop, NULL, PF_NONE, &id);
    if (rc) return rc;
    g->real_tasks++;
    if (out) *out = (pf_task_id){id};
    return PF_OK;
}

/* A marker's task record: a read of the condition datum when there is one, so the ordinary analysis orders it
 * after the datum's writer and before its next writer (Hermann et al. 2009, §3.3: the condition is shared data). */
static int record_marker(pf_graph *g, uint8_t item, uint32_t loop, pf_cond_fn cond, uint32_t datum,
                         const void *args, size_t args_size, const char *name)
{
    pf_access acc = {(pf_data_id){datum}, PF_READ};
    pf_task_def d = {.name = name, .args = args, .args_size = args_size, .accesses = cond ? &acc : NULL,
                     .naccesses = cond ? 1 : 0, .cost_ns = 10};
    uint32_t id = PF_NONE;
    int rc = record_item(g, &d, item, loop, cond, cond ? datum : PF_NONE, &id);
    if (rc) return rc;
    if (item == PF_ITEM_BEGIN) g->loops.v[loop].begin_task = id;
    if (item == PF_ITEM_END) g->loops.v[loop].end_task = id;
    return PF_OK;
}

int pf_graph_loop_begin(pf_graph *g, const pf_loop_def *def, pf_loop_id *out)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(g, fn, "g"));
    PF_TRY(pf_check_given(def, fn, "def"));
    PF_TRY(pf_graph_check_idle(g, fn));
    if (def->max_iterations < 1) return pf_error(PF_EINVAL, "%s: def.max_iterations must be >= 1, got 0", fn);
    if (def->kind == PF_LOOP_WHILE) {
        PF_TRY(pf_check_callback(def->cond != NULL, fn, "def.cond (a while loop)"));
        PF_TRY(pf_check_index(def->cond_data.index, g->data.n, fn, "datum (def.cond_data)"));
    } else if (def->kind != PF_LOOP_COUNT) {
        return pf_error(PF_EINVAL, "%s: def.kind must be PF_LOOP_COUNT or PF_LOOP_WHILE, got %d", fn, (int)def->kind);
    }
    PF_TRY(pf_check_size(def->cond_args_size, 1, fn, "def.cond_args_size"));
    if (def->cond_args_size) PF_TRY(pf_check_given(def->cond_args, fn, "def.cond_args (def.cond_args_size > 0)"));
    if (g->an.analysed)
        return pf_error(PF_ESTATE, "the graph is compiled; call pf_graph_invalidate before recording more");
    if (g->loops.n >= 0xfffe) return pf_error(PF_ENOMEM, "too many loops in one graph");
    if (pf_vec_reserve(&g->loops, g->loops.n + 1))
        return pf_error(PF_ENOMEM, "out of memory recording a loop");
    uint32_t l = (uint32_t)g->loops.n;
    g->loops.v[l] = (pf_loop){.kind = def->kind,
                            .count = def->count,
                            .max_iter = def->max_iterations,
                            .parent = g->open_loop,
                            .begin_task = PF_NONE,
                            .end_task = PF_NONE};
    g->loops.n++;
    int is_while = def->kind == PF_LOOP_WHILE;
    int rc = record_marker(g, PF_ITEM_BEGIN, l, is_while ? def->cond : NULL,
                           is_while ? def->cond_data.index : PF_NONE, is_while ? def->cond_args : NULL,
                           is_while ? def->cond_args_size : 0, "loop begin");
    if (rc) {
        g->loops.n--;
        return rc;
    }
    g->open_loop = l;
    if (out) *out = (pf_loop_id){l};
    return PF_OK;
}

int pf_graph_loop_break(pf_graph *g, pf_data_id datum, pf_cond_fn cond, const void *args, size_t args_size)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(g, fn, "g"));
    PF_TRY(pf_check_callback(cond != NULL, fn, "cond"));
    PF_TRY(pf_check_index(datum.index, g->data.n, fn, "datum"));
    PF_TRY(pf_check_size(args_size, 1, fn, "args_size"));
    if (args_size) PF_TRY(pf_check_given(args, fn, "args (args_size > 0)"));
    PF_TRY(pf_graph_check_idle(g, fn));
    if (g->open_loop == PF_NONE) return pf_error(PF_ESTATE, "pf_graph_loop_break: no loop is open");
    return record_marker(g, PF_ITEM_BREAK, g->open_loop, cond, datum.index, args, args_size, "loop break");
}

int pf_graph_loop_end(pf_graph *g)
{
    PF_TRY(pf_check_given(g, __func__, "g"));
    PF_TRY(pf_graph_check_idle(g, __func__));
    if (g->open_loop == PF_NONE) return pf_error(PF_ESTATE, "pf_graph_loop_end: no loop is open");
    uint32_t l = g->open_loop;
    const pf_task *b = &g->tasks.v[g->loops.v[l].begin_task];
    /* The end marker tests the same condition as the begin marker. Its arguments are copied out first:
     * recording may move the argument arena. */
    unsigned char *args = NULL;
    if (b->args_size) {
        args = pf_malloc(b->args_size);
        if (!args) return pf_error(PF_ENOMEM, "out of memory recording a loop end");
        memcpy(args, g->args.v + b->args_off, b->args_size);
    }
    int rc = record_marker(g, PF_ITEM_END, l, b->cond_fn, b->cond_data, args, b->args_size, "loop end");
    pf_free(args);
    if (rc) return rc;
    g->open_loop = g->loops.v[l].parent;
    return PF_OK;
}

uint32_t pf_graph_loop_iterations(const pf_graph *g, pf_loop_id id)
{
    uint32_t loop = id.index;
    if (!g || loop >= g->loops.n) return 0;
    return atomic_load_explicit(&((pf_graph *)g)->loops.v[loop].last_iterations, memory_order_relaxed);
}

int pf_graph_invalidate(pf_graph *g)
{
    PF_TRY(pf_check_given(g, __func__, "g"));
    PF_TRY(pf_graph_check_idle(g, __func__));
    /* The analysis and programs stay: if only tasks are appended, the next run extends them. */
    g->an.analysed = 0;
    return PF_OK;
}

int pf_graph_get_stats(const pf_graph *g, pf_graph_stats *out)
{
    PF_TRY(pf_check_given(g, __func__, "g"));
    PF_TRY(pf_check_given(out, __func__, "out"));
    *out = (pf_graph_stats){
        .tasks = g->real_tasks,
        .loops = (uint32_t)g->loops.n,
        .reducers = g->an.analysed ? g->an.nreducers : 0,
        .edges = g->an.analysed ? (uint32_t)g->an.preds.n : 0,
        .data = (uint32_t)g->data.n,
        .cross_edges = g->prog.cross_edges,
        .waits = g->prog.waits,
        .levels = g->an.analysed ? g->lv.nlevels : 0,
        .compiles = g->compiles,
        .runs = g->runs,
    };
    return PF_OK;
}

int pf_graph_task_worker(const pf_graph *g, pf_task_id id)
{
    uint32_t t = id.index;
    if (!g || t >= g->tasks.n || g->tasks.v[t].item != PF_ITEM_TASK || g->tasks.v[t].removed || !g->an.analysed ||
        g->prog.workers == 0)
        return -1;
    return g->an.nodes.v[g->an.task_node.v[t]].worker;
}

int pf_graph_task_remove(pf_graph *g, pf_task_id id)
{
    uint32_t t = id.index;
    PF_TRY(pf_check_given(g, __func__, "g"));
    PF_TRY(pf_graph_check_idle(g, __func__));
    if (t >= g->tasks.n || g->tasks.v[t].item != PF_ITEM_TASK || g->tasks.v[t].removed)
        return pf_error(PF_EINVAL, "pf_graph_task_remove: %u is not a recorded task", t);
    if (g->an.analysed)
        return pf_error(PF_ESTATE, "pf_graph_task_remove: the graph is compiled; call pf_graph_invalidate first");
    if (pf_vec_reserve(&g->removed, g->removed.n + 1))
        return pf_error(PF_ENOMEM, "out of memory removing a task");
    g->removed.v[g->removed.n++] = t;
    g->tasks.v[t].removed = 1;
    g->tasks.v[t].cost_meas = 0;
    g->real_tasks--;
    g->pl.removed_since++;
    return PF_OK;
}

int pf_graph_loop_remove(pf_graph *g, pf_loop_id id)
{
    uint32_t loop = id.index;
    PF_TRY(pf_check_given(g, __func__, "g"));
    PF_TRY(pf_graph_check_idle(g, __func__));
    if (loop >= g->loops.n || g->loops.v[loop].end_task == PF_NONE || g->tasks.v[g->loops.v[loop].begin_task].removed)
        return pf_error(PF_EINVAL, "pf_graph_loop_remove: %u is not a recorded, closed loop", loop);
    if (g->an.analysed)
        return pf_error(PF_ESTATE, "pf_graph_loop_remove: the graph is compiled; call pf_graph_invalidate first");
    /* the body is what was recorded between the markers (nested loops included) */
    for (uint32_t t = g->loops.v[loop].begin_task; t <= g->loops.v[loop].end_task; t++) {
        pf_task *task = &g->tasks.v[t];
        if (task->removed) continue;
        if (task->item == PF_ITEM_TASK) {
            int rc = pf_graph_task_remove(g, (pf_task_id){t});
            if (rc) return rc;
        } else {
            task->removed = 1;
        }
    }
    g->markers_removed = 1; /* control flow changed: the next run analyses the graph whole */
    return PF_OK;
}

int pf_graph_get_last_update(const pf_graph *g, pf_graph_update *out)
{
    PF_TRY(pf_check_given(g, __func__, "g"));
    PF_TRY(pf_check_given(out, __func__, "out"));
    *out = g->pl.last_update;
    return PF_OK;
}
