/* The per-graph tables of a runtime across MPI ranks, rebuilt after each compilation: a global id for every flag
 * (the order in which the G programs name them: the same on every rank, since every rank compiles the same
 * programs), the ranks importing each flag, and the data each work node writes (what its messages carry). */
#include "mpi.h"

#include "base/alloc.h"
#include "base/error.h"

#include <stdint.h>
#include <string.h>

typedef struct pf_mpi_slot {
    const pf_flag *flag;
    uint32_t id;
} pf_mpi_slot;

static uint32_t slot_of(const pf_mpi_graph *t, const pf_flag *f)
{
    uint64_t h = (uint64_t)(uintptr_t)f * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & (t->map_cap - 1);
}

uint32_t pf_mpi_flag_id(const pf_mpi_graph *t, const pf_flag *f)
{
    for (uint32_t s = slot_of(t, f);; s = (s + 1) & (t->map_cap - 1)) {
        if (t->map[s].flag == f) return t->map[s].id;
        if (!t->map[s].flag) return PF_NONE;
    }
}

/* Gives f the next id unless it has one. */
static void name_flag(pf_mpi_graph *t, const pf_flag *f)
{
    if (!f) return;
    uint32_t s = slot_of(t, f);
    for (; t->map[s].flag; s = (s + 1) & (t->map_cap - 1))
        if (t->map[s].flag == f) return;
    t->map[s] = (pf_mpi_slot){f, t->nflags};
    t->flags[t->nflags++] = (pf_flag *)f;
}

void pf_mpi_tables_free(pf_graph *g)
{
    pf_mpi_graph *t = g->mpi;
    if (!t) return;
    pf_free(t->map);
    pf_free(t->flags);
    pf_free(t->importers);
    pf_free(t->flag_node);
    pf_free(t->item_off);
    pf_vec_free(&t->items);
    pf_free(t->item_ranks);
    pf_free(t->ver);
    pf_free(t->part);
    pf_free(t->dead_at_end);
    pf_free(t->home);
    pf_free(t);
    g->mpi = NULL;
}

/* Every flag an op names, an id each. */
static int name_flags(pf_graph *g, pf_mpi_graph *t)
{
    size_t bound = g->prog.skips.n + 1;
    for (int w = 0; w < g->prog.workers; w++) bound += 2 * (size_t)g->prog.programs[w].nops;
    t->map_cap = 16;
    while (t->map_cap < 2 * bound) t->map_cap *= 2;
    t->map = pf_calloc(t->map_cap, sizeof *t->map);
    t->flags = pf_malloc(bound * sizeof *t->flags);
    if (!t->map || !t->flags) return PF_ENOMEM;
    for (int w = 0; w < g->prog.workers; w++) {
        const pf_program *p = &g->prog.programs[w];
        for (uint32_t o = 0; o < p->nops; o++) {
            name_flag(t, p->ops[o].flag);
            name_flag(t, p->ops[o].exit_flag);
        }
    }
    for (size_t s = 0; s < g->prog.skips.n; s++) name_flag(t, g->prog.skips.v[s]);
    t->importers = pf_calloc(t->nflags + 1, sizeof *t->importers);
    t->flag_node = pf_malloc((t->nflags + 1) * sizeof *t->flag_node);
    if (!t->importers || !t->flag_node) return PF_ENOMEM;
    for (uint32_t f = 0; f < t->nflags; f++) t->flag_node[f] = PF_NONE;
    return PF_OK;
}

/* Who imports what: every wait on a flag of another rank, and the compiler's cross-rank pred edges. The RUN op
 * publishing a node's flag names the node its messages carry the data of. */
static void find_importers(pf_graph *g, pf_mpi_graph *t)
{
    int k = t->workers;
    for (int w = 0; w < g->prog.workers; w++) {
        const pf_program *p = &g->prog.programs[w];
        for (uint32_t o = 0; o < p->nops; o++) {
            const pf_op *op = &p->ops[o];
            if (op->kind == PF_OP_WAIT && op->flag->worker / k != w / k)
                t->importers[pf_mpi_flag_id(t, op->flag)] |= 1ull << (w / k);
            if (op->kind == PF_OP_RUN && op->flag) t->flag_node[pf_mpi_flag_id(t, op->flag)] = op->node;
        }
    }
    for (size_t e = 0; e < g->prog.imports.n; e++) {
        uint32_t id = pf_mpi_flag_id(t, g->prog.imports.v[e].flag);
        PF_ASSERT(id != PF_NONE);
        t->importers[id] |= 1ull << g->prog.imports.v[e].rank;
    }
}

/* The data each work node writes: written data (reducers: their datum) and cumulative accesses' buffers. */
static int list_items(pf_graph *g, pf_mpi_graph *t)
{
    size_t n = g->an.nodes.n;
    t->item_off = pf_malloc((n + 1) * sizeof *t->item_off);
    if (!t->item_off) return PF_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const pf_node *nd = &g->an.nodes.v[i];
        t->item_off[i] = (uint32_t)t->items.n;
        if (nd->kind == PF_NODE_REDUCER) {
            if (pf_vec_push(&t->items, ((pf_mpi_item){nd->datum, PF_NONE}))) return PF_ENOMEM;
        } else if (nd->kind == PF_NODE_TASK && !nd->dead) {
            const pf_task *task = &g->tasks.v[nd->task];
            const pf_task_access *acc = &g->accesses.v[task->acc_off];
            for (uint32_t a = 0; a < task->nacc; a++) {
                if (acc[a].mode == PF_READ) continue;
                pf_mpi_item it = {acc[a].data, acc[a].mode == PF_CUMUL ? nd->ptr_off + a : PF_NONE};
                if (pf_vec_push(&t->items, it)) return PF_ENOMEM;
            }
        }
    }
    t->item_off[n] = (uint32_t)t->items.n;
    return PF_OK;
}

/* Which ranks each item travels to. A node's written datum goes only to the ranks that run some node accessing it
 * (a tile's CG vectors need not follow the 8 bytes of a dot product's partial sum that another rank reduces): a
 * rank that never touches a datum neither reads nor writes its versions during the run, and the end of the run
 * shares the last version with it if the next run needs it. Cumulative buffers go to every importer, and loop
 * conditions' data to every rank. */
static int find_item_ranks(pf_graph *g, pf_mpi_graph *t)
{
    uint64_t *touch = pf_calloc(g->data.n + 1, sizeof *touch);
    t->item_ranks = pf_malloc((t->items.n + 1) * sizeof *t->item_ranks);
    if (!touch || !t->item_ranks) {
        pf_free(touch);
        return PF_ENOMEM;
    }
    for (size_t i = 0; i < g->an.nodes.n; i++) {
        const pf_node *nd = &g->an.nodes.v[i];
        if (nd->kind == PF_NODE_REDUCER) {
            if (nd->worker >= 0) touch[nd->datum] |= 1ull << (nd->worker / t->workers);
        } else if (nd->kind == PF_NODE_TASK) {
            if (nd->dead || nd->worker < 0) continue;
            const pf_task *task = &g->tasks.v[nd->task];
            const pf_task_access *acc = &g->accesses.v[task->acc_off];
            for (uint32_t a = 0; a < task->nacc; a++) touch[acc[a].data] |= 1ull << (nd->worker / t->workers);
        } else if (g->tasks.v[nd->task].cond_fn) {
            touch[g->tasks.v[nd->task].cond_data] = ~0ull;
        }
    }
    for (size_t k = 0; k < t->items.n; k++)
        t->item_ranks[k] = t->items.v[k].ptr != PF_NONE ? ~0ull : touch[t->items.v[k].datum];
    pf_free(touch);
    return PF_OK;
}

/* The rank of each datum's last writer in node order (0 when none writes it). */
static int find_homes(pf_graph *g, pf_mpi_graph *t)
{
    t->home = pf_calloc(g->data.n + 1, sizeof *t->home);
    if (!t->home) return PF_ENOMEM;
    for (size_t i = 0; i < g->an.nodes.n; i++) {
        int32_t w = g->an.nodes.v[i].worker;
        if (w < 0) continue;
        for (uint32_t k = t->item_off[i]; k < t->item_off[i + 1]; k++)
            if (t->items.v[k].ptr == PF_NONE) t->home[t->items.v[k].datum] = w / t->workers;
    }
    return PF_OK;
}

/* The loops a worker of `rank` takes part in: it runs their begin op. */
static int mark_loops(pf_graph *g, pf_mpi_graph *t, int rank)
{
    t->part = pf_calloc(g->loops.n + 1, 1);
    if (!t->part) return PF_ENOMEM;
    for (int w = rank * t->workers; w < (rank + 1) * t->workers; w++) {
        const pf_program *p = &g->prog.programs[w];
        for (uint32_t o = 0; o < p->nops; o++)
            if (p->ops[o].kind == PF_OP_BEGIN) t->part[g->an.nodes.v[p->ops[o].node].loop] = 1;
    }
    return PF_OK;
}

/* The data whose first access in recording order is PF_WRITE outside every loop (a loop may run no iteration,
 * and a read after it would see the previous run's value): the next run overwrites them before any task reads
 * them, so a run's end need not make them equal (the CG's vectors, the forces of a step). The host never reads
 * them between runs: what it reads (positions, velocities) is read by the tasks too. */
static int mark_dead_at_end(pf_graph *g, pf_mpi_graph *t)
{
    uint8_t *seen = pf_calloc(g->data.n + 1, 1);
    t->dead_at_end = pf_calloc(g->data.n + 1, 1);
    if (!seen || !t->dead_at_end) {
        pf_free(seen);
        return PF_ENOMEM;
    }
    int depth = 0;
    for (size_t i = 0; i < g->tasks.n; i++) {
        const pf_task *task = &g->tasks.v[i];
        if (task->removed) continue;
        if (task->item != PF_ITEM_TASK) { /* markers: a condition reads its datum */
            if (task->cond_fn && !seen[task->cond_data]) seen[task->cond_data] = 1;
            depth += task->item == PF_ITEM_BEGIN ? 1 : task->item == PF_ITEM_END ? -1 : 0;
            continue;
        }
        const pf_task_access *acc = &g->accesses.v[task->acc_off];
        for (uint32_t a = 0; a < task->nacc; a++) {
            if (seen[acc[a].data]) continue;
            seen[acc[a].data] = 1;
            t->dead_at_end[acc[a].data] = acc[a].mode == PF_WRITE && depth == 0;
        }
    }
    pf_free(seen);
    return PF_OK;
}

int pf_mpi_tables_build(pf_graph *g, int ranks, int workers, int rank)
{
    pf_mpi_tables_free(g);
    pf_mpi_graph *t = pf_calloc(1, sizeof *t);
    if (!t) return pf_error(PF_ENOMEM, "out of memory building a graph's MPI tables");
    g->mpi = t;
    t->ranks = ranks;
    t->workers = workers;
    t->compiles = g->compiles;
    t->programs = g->prog.programs;
    t->ndata = g->data.n;
    t->nnodes = g->an.nodes.n;
    t->ver = pf_calloc(g->data.n + 1, sizeof *t->ver);
    if (!t->ver || name_flags(g, t) || list_items(g, t) || find_item_ranks(g, t) || find_homes(g, t) || mark_loops(g, t, rank) ||
        mark_dead_at_end(g, t)) {
        pf_mpi_tables_free(g);
        return pf_error(PF_ENOMEM, "out of memory building a graph's MPI tables");
    }
    find_importers(g, t);
    return PF_OK;
}
