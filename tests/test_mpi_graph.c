/* A graph run across MPI ranks against the seq executor (the oracle), run by test_mpi.py under mpirun: a while
 * loop with a conditional break (taken), a nested counted loop, neighbour edges between objects placed on every
 * worker of every rank, cumulative writes folded by a reducer, and a task after the loop reading every object.
 * Three runs; every rank's data and loop counts must equal the seq runtime's, bitwise. The same graph with
 * PF_MPI_SHARE_NEXT: the data the next run reads first (cells, the reduced sum, the loop's condition) equal seq's
 * on every rank, the scratch results (counter, total: written first) on some rank, and the run ends share fewer
 * bytes. A graph whose tasks each write a large datum only they touch and add to a reduced sum: the messages carry
 * the partial sums, not the large data. With --serialized, MPI
 * initialised without MPI_THREAD_MULTIPLE: def.mpi = 1 is refused with a message saying why. Exit 0 or 1. */
#include "physflow/runtime.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELLS 12
#define LEN 32
#define BIG 8192 /* doubles: 64 KiB */

typedef struct state {
    double cell[CELLS][LEN];
    double sum[LEN];
    double res, counter, total;
} state;

typedef struct handles {
    pf_data_id cell[CELLS], sum, res, counter, total;
    pf_loop_id outer, inner;
} handles;

static void smooth(const pf_task_ctx *c)
{
    double *x = c->data[0];
    const double *left = c->data[1];
    double shift = *(const double *)c->args;
    for (int k = LEN - 1; k >= 0; k--) x[k] = 0.5 * x[k] + 0.25 * left[k] + 0.125 * (k ? x[k - 1] : shift);
}

static void accumulate(const pf_task_ctx *c)
{
    double *acc = c->data[0];
    const double *x = c->data[1];
    for (int k = 0; k < LEN; k++) acc[k] += x[k] * x[k];
}

static void residual(const pf_task_ctx *c)
{
    const double *s = c->data[0];
    double r = 0;
    for (int k = 0; k < LEN; k++) r += s[k];
    *(double *)c->data[1] = sqrt(r);
}

static void count(const pf_task_ctx *c)
{
    *(double *)c->data[0] += 1;
}

static void reset(const pf_task_ctx *c)
{
    *(double *)c->data[0] = 0;
}

static void total(const pf_task_ctx *c)
{
    double t = 0;
    for (int i = 0; i < CELLS; i++)
        for (int k = 0; k < LEN; k++) t += ((const double *)c->data[i])[k];
    *(double *)c->data[CELLS] = t;
}

/* Writes a large datum only its own task touches, and adds its sum to a reducer's partial buffer. */
static void spread(const pf_task_ctx *c)
{
    double *big = c->data[0], *acc = c->data[1], seed = *(const double *)c->args, s = 0;
    for (int k = 0; k < BIG; k++) {
        big[k] = sin(seed + k);
        s += big[k];
    }
    acc[0] += s;
}

static void halve(const pf_task_ctx *c)
{
    *(double *)c->data[1] = 0.5 * *(const double *)c->data[0];
}

static int above(const void *d, const void *args)
{
    return *(const double *)d > *(const double *)args;
}

#define TRY(x)                                                                                                    \
    do {                                                                                                          \
        if ((x) != PF_OK) {                                                                                       \
            fprintf(stderr, "test_mpi_graph: %s: %s\n", #x, pf_last_error());                                     \
            return 1;                                                                                             \
        }                                                                                                         \
    } while (0)

static int task(pf_graph *g, pf_task_fn fn, const pf_access *acc, uint32_t n, const void *args, size_t size)
{
    pf_task_def t = pf_task_default_def();
    t.fn = fn;
    t.accesses = acc;
    t.naccesses = n;
    t.args = args;
    t.args_size = size;
    return pf_graph_task(g, &t, NULL);
}

static int record(pf_graph *g, state *s, handles *h)
{
    pf_reducer sum = pf_reducer_sum_f64();
    for (int i = 0; i < CELLS; i++) {
        for (int k = 0; k < LEN; k++) s->cell[i][k] = sin(1.0 + i * LEN + k);
        TRY(pf_graph_data(g, s->cell[i], sizeof s->cell[i], (uint32_t)i, NULL, &h->cell[i]));
    }
    TRY(pf_graph_data(g, s->sum, sizeof s->sum, 0, &sum, &h->sum));
    TRY(pf_graph_data(g, &s->res, sizeof s->res, 1, NULL, &h->res));
    TRY(pf_graph_data(g, &s->counter, sizeof s->counter, 2, NULL, &h->counter));
    TRY(pf_graph_data(g, &s->total, sizeof s->total, 3, NULL, &h->total));
    s->res = 1e9;
    TRY(task(g, reset, &(pf_access){h->counter, PF_WRITE}, 1, NULL, 0));
    double tol = 1e-12, limit = 7;
    pf_loop_def outer = pf_loop_default_def();
    outer.kind = PF_LOOP_WHILE;
    outer.cond_data = h->res;
    outer.cond = above;
    outer.cond_args = &tol;
    outer.cond_args_size = sizeof tol;
    outer.max_iterations = 50;
    TRY(pf_graph_loop_begin(g, &outer, &h->outer));
    TRY(task(g, count, &(pf_access){h->counter, PF_READWRITE}, 1, NULL, 0));
    double late = limit - 1; /* taken in the 7th iteration: the rest of it is skipped */
    TRY(pf_graph_loop_break(g, h->counter, above, &late, sizeof late));
    pf_loop_def inner = pf_loop_default_def();
    inner.count = 2;
    TRY(pf_graph_loop_begin(g, &inner, &h->inner));
    for (int i = 0; i < CELLS; i++) {
        pf_access acc[2] = {{h->cell[i], PF_READWRITE}, {h->cell[(i + CELLS - 1) % CELLS], PF_READ}};
        double shift = 0.01 * i;
        TRY(task(g, smooth, acc, 2, &shift, sizeof shift));
    }
    TRY(pf_graph_loop_end(g));
    for (int i = 0; i < CELLS; i++) {
        pf_access acc[2] = {{h->sum, PF_CUMUL}, {h->cell[i], PF_READ}};
        TRY(task(g, accumulate, acc, 2, NULL, 0));
    }
    pf_access racc[2] = {{h->sum, PF_READ}, {h->res, PF_WRITE}};
    TRY(task(g, residual, racc, 2, NULL, 0));
    TRY(pf_graph_loop_end(g));
    pf_access tacc[CELLS + 1];
    for (int i = 0; i < CELLS; i++) tacc[i] = (pf_access){h->cell[i], PF_READ};
    tacc[CELLS] = (pf_access){h->total, PF_WRITE};
    TRY(task(g, total, tacc, CELLS + 1, NULL, 0));
    return 0;
}

typedef struct spread_state {
    double big[CELLS][BIG];
    double sum, half;
} spread_state;

/* Tasks on every worker each write a 64 KiB datum no other task reads and add to one reduced sum. */
static int record_spread(pf_graph *g, spread_state *s)
{
    pf_reducer sum = pf_reducer_sum_f64();
    pf_data_id big[CELLS], dsum, dhalf;
    for (int i = 0; i < CELLS; i++) TRY(pf_graph_data(g, s->big[i], sizeof s->big[i], (uint32_t)i, NULL, &big[i]));
    TRY(pf_graph_data(g, &s->sum, sizeof s->sum, 0, &sum, &dsum));
    TRY(pf_graph_data(g, &s->half, sizeof s->half, 0, NULL, &dhalf));
    for (int i = 0; i < CELLS; i++) {
        pf_access acc[2] = {{big[i], PF_WRITE}, {dsum, PF_CUMUL}};
        double seed = 0.5 * i;
        TRY(task(g, spread, acc, 2, &seed, sizeof seed));
    }
    pf_access hacc[2] = {{dsum, PF_READ}, {dhalf, PF_WRITE}};
    return task(g, halve, hacc, 2, NULL, 0);
}

/* A message carries only the data its receiving rank touches: the partial sums travel, the 64 KiB data stay where
 * they were written, and the reduced sum equals seq's. */
static int only_touched_data_travel(pf_runtime *rt, pf_runtime *seq, int rank, int ranks)
{
    static spread_state mine, ref;
    pf_graph *g, *gs;
    TRY(pf_graph_create(&g));
    TRY(pf_graph_create(&gs));
    if (record_spread(g, &mine) || record_spread(gs, &ref)) return 1;
    TRY(pf_graph_set_mpi_share(g, PF_MPI_SHARE_NEXT));
    TRY(pf_graph_run(g, rt));
    TRY(pf_graph_run(gs, seq));
    int bad = 0;
    if (mine.sum != ref.sum) bad = fprintf(stderr, "rank %d: reduced sum %.17g, seq %.17g\n", rank, mine.sum, ref.sum);
    int half_ok = mine.half == ref.half, some_ok = 0; /* written first: it stays on its writer's rank */
    MPI_Allreduce(&half_ok, &some_ok, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!some_ok) bad = fprintf(stderr, "rank %d: no rank holds seq's half sum\n", rank);
    pf_run_stats st;
    TRY(pf_graph_get_run_stats(g, PF_STATS_TOTAL, &st, NULL, 0, NULL));
    unsigned long long bytes = st.mpi_bytes, msgs = st.mpi_messages, sums[2], mine2[2] = {bytes, msgs};
    MPI_Allreduce(mine2, sums, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (ranks > 1 && (sums[1] == 0 || sums[0] >= sizeof mine.big[0]))
        bad = fprintf(stderr, "rank %d: %llu messages carried %llu bytes (a private datum is %zu)\n", rank, sums[1],
                      sums[0], sizeof mine.big[0]);
    pf_graph_destroy(g);
    pf_graph_destroy(gs);
    return bad;
}

static int refused_without_threads(void)
{
    int level;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &level);
    pf_runtime_def def = pf_runtime_default_def();
    def.mpi = 1;
    def.bind = 0;
    pf_runtime *rt;
    int rc = pf_runtime_create(&def, &rt);
    int ok = level >= MPI_THREAD_MULTIPLE || (rc == PF_EINVAL && strstr(pf_last_error(), "MPI_THREAD_MULTIPLE"));
    if (!ok) fprintf(stderr, "test_mpi_graph: thread level %d: got %d (%s)\n", level, rc, pf_last_error());
    MPI_Finalize();
    return !ok;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--serialized")) return refused_without_threads();
    int workers = argc > 1 ? atoi(argv[1]) : 1, level, rank, ranks;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    static state mine, ref;
    handles hm, hr;
    pf_runtime_def def = pf_runtime_default_def(), sdef = def;
    def.workers = workers;
    def.bind = 0;
    def.mpi = 1;
    sdef.executor = PF_EXEC_SEQ;
    sdef.bind = 0;
    pf_runtime *rt, *seq;
    pf_graph *g, *gs;
    TRY(pf_runtime_create(&def, &rt));
    TRY(pf_runtime_create(&sdef, &seq));
    int r = -1, n = -1, bad = 0;
    TRY(pf_runtime_get_rank(rt, &r, &n));
    if (r != rank || n != ranks) bad = fprintf(stderr, "rank %d of %d, runtime says %d of %d\n", rank, ranks, r, n);
    TRY(pf_graph_create(&g));
    TRY(pf_graph_create(&gs));
    if (record(g, &mine, &hm) || record(gs, &ref, &hr)) return 1;
    for (int run = 0; run < 3; run++) {
        TRY(pf_graph_run(g, rt));
        TRY(pf_graph_run(gs, seq));
        if (memcmp(&mine, &ref, sizeof mine))
            bad = fprintf(stderr, "rank %d: run %d: the data differ from seq's\n", rank, run);
        uint32_t it[2] = {pf_graph_loop_iterations(g, hm.outer), pf_graph_loop_iterations(g, hm.inner)};
        uint32_t want[2] = {pf_graph_loop_iterations(gs, hr.outer), pf_graph_loop_iterations(gs, hr.inner)};
        if (it[0] != want[0] || it[1] != want[1] || want[0] != 7)
            bad = fprintf(stderr, "rank %d: run %d: iterations %u %u, seq %u %u (7 expected: the break)\n", rank, run, it[0],
                          it[1], want[0], want[1]);
    }
    static state next;
    handles hn;
    pf_graph *gn;
    TRY(pf_graph_create(&gn));
    if (record(gn, &next, &hn)) return 1;
    TRY(pf_graph_set_mpi_share(gn, PF_MPI_SHARE_NEXT));
    memcpy(&ref, &next, sizeof ref); /* the seq graph starts again from the initial state */
    for (int run = 0; run < 3; run++) {
        TRY(pf_graph_run(gn, rt));
        TRY(pf_graph_run(gs, seq));
        if (memcmp(next.cell, ref.cell, sizeof ref.cell) || memcmp(next.sum, ref.sum, sizeof ref.sum) ||
            next.res != ref.res)
            bad = fprintf(stderr, "rank %d: run %d with PF_MPI_SHARE_NEXT: the shared data differ from seq's\n", rank,
                          run);
        int mine_ok = next.counter == ref.counter && next.total == ref.total, some_ok = 0;
        MPI_Allreduce(&mine_ok, &some_ok, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (!some_ok) bad = fprintf(stderr, "rank %d: run %d: no rank holds seq's scratch results\n", rank, run);
    }
    pf_run_stats st, stn;
    TRY(pf_graph_get_run_stats(gn, PF_STATS_TOTAL, &stn, NULL, 0, NULL));
    TRY(pf_graph_get_run_stats(g, PF_STATS_TOTAL, &st, NULL, 0, NULL));
    unsigned long long bytes[2] = {st.mpi_bytes, stn.mpi_bytes}, sums[2];
    MPI_Allreduce(bytes, sums, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (ranks > 1 && !(sums[1] < sums[0]))
        bad = fprintf(stderr, "rank %d: PF_MPI_SHARE_NEXT sent %llu bytes, ALL %llu\n", rank, sums[1], sums[0]);
    pf_graph_destroy(gn);
    if (only_touched_data_travel(rt, seq, rank, ranks)) bad = 1;
    unsigned long long sent = st.mpi_messages, all = 0; /* a rank may hold no node, but not every rank */
    MPI_Allreduce(&sent, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (ranks > 1 && all == 0) bad = fprintf(stderr, "rank %d: no message counted on any rank\n", rank);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any) printf("ok: %d ranks x %d workers, %llu messages\n", ranks, workers, all);
    pf_graph_destroy(g);
    pf_graph_destroy(gs);
    pf_runtime_destroy(rt);
    pf_runtime_destroy(seq);
    MPI_Finalize();
    return any != 0;
}
