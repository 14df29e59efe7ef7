/* A runtime across MPI ranks (docs/runtime.md, "Across MPI ranks"). Worker gw of G = R*K lives on rank gw / K.
 * A flag published on rank A and imported by rank B travels as a message from A to B with tag gw (the publishing
 * worker): messages of one worker to one rank are received in the order it sent them, so a receiver applies its
 * results in that worker's program order — a wait the compiler pruned because an earlier one covers it stays
 * covered, as it is in shared memory. A message carries the stamp published and, after a RUN, the data the node
 * wrote, each datum with its version in this run (a later version is never overwritten by an earlier one).
 * At the end of a run the unclaimed messages are drained, and every datum some rank lacks the last version of is
 * sent to all by the rank that has it (MPI_Allgatherv), so every rank's copy is equal again. */
#include "mpi.h"

#include "sync.h"

#include "base/alloc.h"
#include "base/check.h"
#include "base/clock.h"
#include "base/error.h"

#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One message's bytes, kept until the end of the run (its sends complete there). */
typedef struct stage {
    unsigned char *buf;
    size_t cap;
} stage;

/* What one local worker sends in a run; only that worker writes it during the run. */
typedef struct lworker {
    _Alignas(64) PF_VEC(stage) slots;
    size_t used;               /* slots holding this run's messages */
    PF_VEC(MPI_Request) reqs;
    uint32_t *sent;            /* [ranks]: messages sent to each rank this run */
    uint64_t msgs, bytes;
} lworker;

struct pf_mpi {
    MPI_Comm comm;
    int rank, ranks, workers;
    uint64_t poll_ns;          /* how long a wait polls before it sleeps between polls (0: at once) */
    lworker *lw;               /* [workers] */
    pthread_mutex_t recv_lock; /* one receiver at a time: applying data and versions is not concurrent */
    unsigned char *rbuf;
    size_t rcap;
    uint32_t *received;        /* [ranks * workers]: messages received from each global worker this run */
    int *scratch;              /* [ranks * workers * 2] */
    PF_VEC(unsigned char) pack, gather;
    PF_VEC(int) ints;
    pf_mpi_totals totals;
};

enum { HEADER = 16 };

static void die(pf_mpi *m, const char *what)
{
    fprintf(stderr, "physflow: MPI rank %d: %s\n", m->rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int pf_mpi_check(const char *fn)
{
    int init = 0, fin = 0, level = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin)
        return pf_error(PF_EINVAL, "%s: def.mpi = 1 needs MPI initialised (MPI_Init_thread with "
                                   "MPI_THREAD_MULTIPLE) and not finalised",
                        fn);
    MPI_Query_thread(&level);
    if (level < MPI_THREAD_MULTIPLE)
        return pf_error(PF_EINVAL, "%s: def.mpi = 1 needs MPI_THREAD_MULTIPLE; MPI was initialised with thread level %d",
                        fn, level);
    return PF_OK;
}

void pf_mpi_version(char *buf, size_t size)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = 0;
    char *cut = strchr(lib, ','); /* "Open MPI v4.1.4, package: ..." */
    if (cut) *cut = 0;
    char *v = strstr(lib, " v");
    if (v && v[2] >= '0' && v[2] <= '9') memmove(v + 1, v + 2, strlen(v + 2) + 1);
    snprintf(buf, size, "%s", lib);
}

void pf_mpi_destroy(pf_mpi *m)
{
    if (!m) return;
    for (int k = 0; k < m->workers && m->lw; k++) {
        for (size_t s = 0; s < m->lw[k].slots.n; s++) pf_free(m->lw[k].slots.v[s].buf);
        pf_vec_free(&m->lw[k].slots);
        pf_vec_free(&m->lw[k].reqs);
        pf_free(m->lw[k].sent);
    }
    pf_free(m->lw);
    pf_free(m->rbuf);
    pf_free(m->received);
    pf_free(m->scratch);
    pf_vec_free(&m->pack);
    pf_vec_free(&m->gather);
    pf_vec_free(&m->ints);
    pthread_mutex_destroy(&m->recv_lock);
    if (m->comm != MPI_COMM_NULL) MPI_Comm_free(&m->comm);
    pf_free(m);
}

/* A wait polls for a result of another rank for up to 1 ms before it sleeps between polls: a sleeping rank wakes
 * tens of microseconds late (more on a virtual machine), at every one of a CG iteration's exchanges. With more
 * workers on this machine than CPUs, polling would hold a CPU another rank needs: sleep early, as before. */
static uint64_t poll_budget(MPI_Comm comm, int workers)
{
    MPI_Comm node;
    int local = 1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 && (long)local * workers <= cpus ? 1000000u : 0;
}

pf_mpi *pf_mpi_create(int workers)
{
    pf_mpi *m = pf_calloc(1, sizeof *m);
    if (!m) return NULL;
    m->comm = MPI_COMM_NULL;
    pthread_mutex_init(&m->recv_lock, NULL);
    MPI_Comm_dup(MPI_COMM_WORLD, &m->comm); /* our tags never meet the host's messages */
    MPI_Comm_rank(m->comm, &m->rank);
    MPI_Comm_size(m->comm, &m->ranks);
    m->workers = workers;
    m->poll_ns = poll_budget(m->comm, workers);
    size_t g = (size_t)m->ranks * (size_t)workers;
    m->lw = pf_calloc((size_t)workers, sizeof *m->lw);
    m->received = pf_calloc(g, sizeof *m->received);
    m->scratch = pf_calloc(2 * g, sizeof *m->scratch);
    int ok = m->lw && m->received && m->scratch;
    for (int k = 0; ok && k < workers; k++) ok = (m->lw[k].sent = pf_calloc((size_t)m->ranks, sizeof(uint32_t))) != NULL;
    if (!ok) {
        pf_mpi_destroy(m);
        return NULL;
    }
    return m;
}

int pf_mpi_rank(const pf_mpi *m)
{
    return m->rank;
}

int pf_mpi_ranks(const pf_mpi *m)
{
    return m->ranks;
}

int pf_mpi_bcast_placement(pf_mpi *m, pf_graph *g)
{
    size_t n = g->an.nodes.n;
    if (pf_vec_reserve(&m->ints, n + 1)) return pf_error(PF_ENOMEM, "out of memory sharing a placement");
    for (size_t i = 0; i < n; i++) m->ints.v[i] = g->an.nodes.v[i].worker;
    MPI_Bcast(m->ints.v, (int)n, MPI_INT, 0, m->comm);
    for (size_t i = 0; i < n; i++) {
        pf_node *nd = &g->an.nodes.v[i];
        nd->worker = m->ints.v[i];
        if (nd->kind == PF_NODE_TASK) g->tasks.v[nd->task].worker = nd->worker;
        if (nd->kind == PF_NODE_REDUCER) g->data.v[nd->datum].reducer_worker = nd->worker;
    }
    return PF_OK;
}

int pf_mpi_run_begin(pf_mpi *m, pf_graph *g)
{
    const pf_mpi_graph *t = g->mpi;
    if (!t || t->compiles != g->compiles || t->programs != (void *)g->prog.programs || t->ndata != g->data.n ||
        t->nnodes != g->an.nodes.n)
        PF_TRY(pf_mpi_tables_build(g, m->ranks, m->workers, m->rank));
    memset(g->mpi->ver, 0, g->data.n * sizeof *g->mpi->ver);
    memset(m->received, 0, (size_t)m->ranks * (size_t)m->workers * sizeof *m->received);
    for (int k = 0; k < m->workers; k++) {
        memset(m->lw[k].sent, 0, (size_t)m->ranks * sizeof(uint32_t));
        m->lw[k].msgs = m->lw[k].bytes = 0;
    }
    return PF_OK;
}

static size_t round8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static void *item_ptr(const pf_graph *g, const pf_mpi_item *it)
{
    return it->ptr == PF_NONE ? g->data.v[it->datum].ptr : g->an.ptrs.v[it->ptr];
}

/* Stages one message of flag `id`: the header, then each of node's items whose ranks include one of `to`'s (the
 * same set for every rank in `to`), and sends it to every rank in `to`. */
static void send_to(pf_mpi *m, pf_graph *g, int w, uint32_t id, uint32_t stamp, uint32_t node, uint64_t to)
{
    const pf_mpi_graph *t = g->mpi;
    uint32_t i0 = node == PF_NONE ? 0 : t->item_off[node], i1 = node == PF_NONE ? 0 : t->item_off[node + 1];
    size_t size = HEADER;
    uint32_t carried = 0;
    for (uint32_t i = i0; i < i1; i++)
        if (t->item_ranks[i] & to) {
            size += 8 + round8(g->data.v[t->items.v[i].datum].size);
            carried++;
        }
    lworker *L = &m->lw[w];
    if (L->used == L->slots.n && pf_vec_push(&L->slots, ((stage){NULL, 0}))) die(m, "out of memory for a message");
    stage *s = &L->slots.v[L->used++];
    if (s->cap < size) {
        pf_free(s->buf);
        s->cap = size * 2;
        if (!(s->buf = pf_malloc(s->cap))) die(m, "out of memory for a message");
    }
    uint32_t head[4] = {id, stamp, node, carried};
    memcpy(s->buf, head, sizeof head);
    unsigned char *p = s->buf + HEADER;
    for (uint32_t i = i0; i < i1; i++) {
        if (!(t->item_ranks[i] & to)) continue;
        const pf_mpi_item *it = &t->items.v[i];
        size_t bytes = g->data.v[it->datum].size;
        uint32_t ver[2] = {it->ptr == PF_NONE ? t->ver[it->datum] : 0, 0};
        memcpy(p, ver, 8);
        if (bytes) memcpy(p + 8, item_ptr(g, it), bytes);
        p += 8 + round8(bytes);
    }
    int gw = m->rank * m->workers + w;
    for (int r = 0; r < m->ranks; r++) {
        if (!(to >> r & 1)) continue;
        if (pf_vec_reserve(&L->reqs, L->reqs.n + 1)) die(m, "out of memory for a message");
        MPI_Isend(s->buf, (int)size, MPI_BYTE, r, gw, m->comm, &L->reqs.v[L->reqs.n++]);
        L->sent[r]++;
        L->msgs++;
        L->bytes += size;
    }
}

/* Sends flag `id`'s publication (and, for a node, the data it wrote that each importer touches) to every rank
 * importing it: one message for all when they take the same items, else one per rank. */
static void send_flag(pf_mpi *m, pf_graph *g, int w, uint32_t id, uint32_t stamp, uint32_t node)
{
    const pf_mpi_graph *t = g->mpi;
    uint64_t to = t->importers[id];
    if (!to) return;
    int alike = 1;
    if (node != PF_NONE)
        for (uint32_t i = t->item_off[node]; i < t->item_off[node + 1] && alike; i++)
            alike = !(t->item_ranks[i] & to) || (t->item_ranks[i] & to) == to;
    if (alike) {
        send_to(m, g, w, id, stamp, node, to);
        return;
    }
    for (int r = 0; r < m->ranks; r++)
        if (to >> r & 1) send_to(m, g, w, id, stamp, node, 1ull << r);
}

void pf_mpi_ran(pf_mpi *m, pf_graph *g, int w, const pf_op *op, uint32_t stamp)
{
    pf_mpi_graph *t = g->mpi;
    for (uint32_t i = t->item_off[op->node]; i < t->item_off[op->node + 1]; i++)
        if (t->items.v[i].ptr == PF_NONE) t->ver[t->items.v[i].datum]++; /* its writers are ordered: no race */
    if (op->flag) send_flag(m, g, w, pf_mpi_flag_id(t, op->flag), stamp, op->node);
}

void pf_mpi_published(pf_mpi *m, pf_graph *g, int w, const pf_flag *f, uint32_t stamp)
{
    if (f) send_flag(m, g, w, pf_mpi_flag_id(g->mpi, f), stamp, PF_NONE);
}

int pf_mpi_imported(const pf_mpi *m, const pf_flag *f)
{
    return f->worker / m->workers != m->rank;
}

/* Receives the matched message and applies it: the data of a later version than this rank's, the buffers, then
 * the flag's local stamp (which wakes local waiters). The caller holds recv_lock or is alone. */
static void receive(pf_mpi *m, pf_graph *g, MPI_Message *msg, const MPI_Status *st)
{
    pf_mpi_graph *t = g->mpi;
    int n = 0;
    MPI_Get_count(st, MPI_BYTE, &n);
    if ((size_t)n > m->rcap) {
        pf_free(m->rbuf);
        m->rcap = (size_t)n * 2;
        if (!(m->rbuf = pf_malloc(m->rcap))) die(m, "out of memory receiving a message");
    }
    MPI_Mrecv(m->rbuf, n, MPI_BYTE, msg, MPI_STATUS_IGNORE);
    m->received[st->MPI_TAG]++;
    m->totals.received++;
    m->totals.received_bytes += (uint64_t)n;
    uint32_t head[4];
    memcpy(head, m->rbuf, sizeof head);
    if (head[0] >= t->nflags) die(m, "a message names an unknown flag (the ranks compiled different graphs)");
    const unsigned char *p = m->rbuf + HEADER;
    if (head[2] != PF_NONE)
        for (uint32_t i = t->item_off[head[2]]; i < t->item_off[head[2] + 1]; i++) {
            if (!(t->item_ranks[i] >> m->rank & 1)) continue; /* not carried to this rank */
            const pf_mpi_item *it = &t->items.v[i];
            size_t bytes = g->data.v[it->datum].size;
            uint32_t ver;
            memcpy(&ver, p, 4);
            int take = it->ptr != PF_NONE || ver > t->ver[it->datum];
            if (take && bytes) memcpy(item_ptr(g, it), p + 8, bytes);
            if (take && it->ptr == PF_NONE) t->ver[it->datum] = ver;
            p += 8 + round8(bytes);
        }
    pf_flag *f = t->flags[head[0]];
    pf_signal_stamp(&f->done, &f->waiters, head[1]);
}

void pf_mpi_wait(pf_mpi *m, pf_graph *g, pf_flag *f, uint32_t want)
{
    int src = f->worker / m->workers, tag = f->worker;
    uint32_t polls = 0;
    uint64_t t0 = 0;
    /* Polls: a receiver blocked inside MPI while holding the lock could keep another local worker from the message
     * that lets the sender go on. After m->poll_ns it sleeps between polls, leaving the core to the ranks and
     * workers that share it. */
    while (!pf_stamp_reached(atomic_load_explicit(&f->done, memory_order_acquire), want)) {
        if (pthread_mutex_trylock(&m->recv_lock) == 0) {
            for (;;) {
                int found = 0;
                MPI_Message msg;
                MPI_Status st;
                MPI_Improbe(src, tag, m->comm, &found, &msg, &st);
                if (!found) break;
                receive(m, g, &msg, &st);
                if (pf_stamp_reached(atomic_load_explicit(&f->done, memory_order_acquire), want)) break;
            }
            pthread_mutex_unlock(&m->recv_lock);
        }
        if (pf_stamp_reached(atomic_load_explicit(&f->done, memory_order_acquire), want)) break;
        if (++polls == 64) t0 = pf_now_ns();
        if (polls < 64 || pf_now_ns() - t0 < m->poll_ns)
            sched_yield();
        else
            nanosleep(&(struct timespec){0, 20000}, NULL);
    }
}

/* Loop iteration counts: the ranks taking part in a loop agree on them; the others take theirs. */
static void share_loop_counts(pf_mpi *m, pf_graph *g)
{
    size_t nl = g->loops.n;
    if (!nl || pf_vec_reserve(&m->ints, 2 * nl)) {
        if (nl) die(m, "out of memory sharing loop counts");
        return;
    }
    int *mine = m->ints.v, *all = m->ints.v + nl;
    for (size_t l = 0; l < nl; l++)
        mine[l] = g->mpi->part[l] ? (int)atomic_load_explicit(&g->loops.v[l].last_iterations, memory_order_relaxed) : -1;
    MPI_Allreduce(mine, all, (int)nl, MPI_INT, MPI_MAX, m->comm);
    for (size_t l = 0; l < nl; l++)
        if (all[l] >= 0) atomic_store_explicit(&g->loops.v[l].last_iterations, (uint32_t)all[l], memory_order_relaxed);
}

/* Whether datum d goes to all ranks at the end of the run: some rank lacks its last version, and the graph's
 * share setting wants it (PF_MPI_SHARE_NEXT: the next run reads it before overwriting it). */
static int share_datum(const pf_graph *g, size_t d, const int *maxloc, const int *vmin)
{
    int wanted = g->mpi_share == PF_MPI_SHARE_ALL || !g->mpi->dead_at_end[d];
    return maxloc[2 * d] > vmin[d] && g->data.v[d].ptr && wanted;
}

/* The rank that shares datum d: of the ranks holding its last version, its home (the writer's) first, then the
 * next ones in turn. MAXLOC keeps the lowest of equal indices, so each rank enters its distance from the home. */
static int index_of(const pf_mpi *m, const pf_mpi_graph *t, size_t d)
{
    return (m->rank - t->home[d] + m->ranks) % m->ranks;
}

static int sharer(const pf_mpi *m, const pf_mpi_graph *t, size_t d, const int *maxloc)
{
    return (maxloc[2 * d + 1] + t->home[d]) % m->ranks;
}

/* Every datum some rank lacks the last version of and the share setting wants, from a rank that has it to all. */
static void share_data(pf_mpi *m, pf_graph *g, uint64_t *messages, uint64_t *bytes)
{
    pf_mpi_graph *t = g->mpi;
    size_t nd = g->data.n;
    if (!nd) return;
    int R = m->ranks;
    if (pf_vec_reserve(&m->ints, 6 * nd + 2 * (size_t)R)) die(m, "out of memory sharing data");
    int *pair = m->ints.v, *maxloc = pair + 2 * nd, *vmin = maxloc + 2 * nd, *vmine = vmin + nd;
    int *counts = vmine + nd, *displs = counts + R;
    for (size_t d = 0; d < nd; d++) {
        pair[2 * d] = vmine[d] = (int)t->ver[d];
        pair[2 * d + 1] = index_of(m, t, d);
    }
    MPI_Allreduce(pair, maxloc, (int)nd, MPI_2INT, MPI_MAXLOC, m->comm);
    MPI_Allreduce(vmine, vmin, (int)nd, MPI_INT, MPI_MIN, m->comm);
    for (int r = 0; r < R; r++) counts[r] = 0;
    for (size_t d = 0; d < nd; d++)
        if (share_datum(g, d, maxloc, vmin)) counts[sharer(m, t, d, maxloc)] += (int)g->data.v[d].size;
    size_t total = 0;
    for (int r = 0; r < R; r++) {
        displs[r] = (int)total;
        total += (size_t)counts[r];
    }
    if (!total) return;
    if (pf_vec_reserve(&m->pack, (size_t)counts[m->rank] + 1) || pf_vec_reserve(&m->gather, total))
        die(m, "out of memory sharing data");
    unsigned char *p = m->pack.v;
    for (size_t d = 0; d < nd; d++)
        if (share_datum(g, d, maxloc, vmin) && sharer(m, t, d, maxloc) == m->rank) {
            memcpy(p, g->data.v[d].ptr, g->data.v[d].size);
            p += g->data.v[d].size;
        }
    MPI_Allgatherv(m->pack.v, counts[m->rank], MPI_BYTE, m->gather.v, counts, displs, MPI_BYTE, m->comm);
    if (counts[m->rank]) {
        *messages += (uint64_t)(R - 1);
        *bytes += (uint64_t)counts[m->rank] * (uint64_t)(R - 1);
        m->totals.shares += (uint64_t)(R - 1);
        m->totals.share_bytes += (uint64_t)counts[m->rank] * (uint64_t)(R - 1);
    }
    for (int r = 0; r < R; r++) counts[r] = 0; /* reused as each rank's read position */
    for (size_t d = 0; d < nd; d++) {
        if (!share_datum(g, d, maxloc, vmin)) continue;
        int r = sharer(m, t, d, maxloc);
        if (r != m->rank) memcpy(g->data.v[d].ptr, m->gather.v + displs[r] + counts[r], g->data.v[d].size);
        counts[r] += (int)g->data.v[d].size;
    }
}

void pf_mpi_get_totals(const pf_mpi *m, pf_mpi_totals *out)
{
    *out = m->totals;
}

int pf_mpi_run_end(pf_mpi *m, pf_graph *g, uint64_t *messages, uint64_t *bytes)
{
    uint64_t t0 = pf_now_ns();
    int R = m->ranks, K = m->workers;
    int *sent = m->scratch, *expect = m->scratch + (size_t)R * K;
    for (int r = 0; r < R; r++)
        for (int k = 0; k < K; k++) sent[r * K + k] = (int)m->lw[k].sent[r];
    MPI_Alltoall(sent, K, MPI_INT, expect, K, MPI_INT, m->comm);
    for (int gw = 0; gw < R * K; gw++) /* versions nobody waited for: their stamps, and data if newer */
        while (m->received[gw] < (uint32_t)expect[gw]) {
            MPI_Message msg;
            MPI_Status st;
            MPI_Mprobe(gw / K, gw, m->comm, &msg, &st);
            receive(m, g, &msg, &st);
        }
    for (int k = 0; k < K; k++) {
        lworker *L = &m->lw[k];
        MPI_Waitall((int)L->reqs.n, L->reqs.v, MPI_STATUSES_IGNORE);
        L->reqs.n = 0;
        L->used = 0;
        *messages += L->msgs;
        *bytes += L->bytes;
        m->totals.messages += L->msgs;
        m->totals.bytes += L->bytes;
    }
    share_loop_counts(m, g);
    share_data(m, g, messages, bytes);
    m->totals.runs++;
    m->totals.end_ns += pf_now_ns() - t0;
    return PF_OK;
}
