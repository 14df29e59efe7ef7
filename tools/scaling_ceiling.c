/* The ceiling (scaling_ceiling.h): copies stepped by threads of their own, timed alike. */
#include "scaling_ceiling.h"

#include "bench_util.h"
#include "scene_cli.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* The start line: copies warm up, say so, and wait for the word. */
typedef struct start_line {
    pthread_mutex_t m;
    pthread_cond_t cv;
    int ready, go;
} start_line;

typedef struct copy_run {
    pf_world *w;
    long warmup, steps;
    start_line *start;
    double *ms, *col; /* steps entries each */
    double upd_ms;    /* graph updates during the timed steps, ms */
    int rc;
    char msg[256]; /* the copy's error (pf_last_error is per thread) */
} copy_run;

static void *copy_thread(void *p)
{
    copy_run *c = p;
    c->rc = pf_world_step(c->w, (uint32_t)c->warmup);
    pf_collision_stats cs;
    int has_collision = c->rc == PF_OK && pf_world_get_collision_stats(c->w, &cs) == PF_OK;
    uint32_t count = 0;
    bench_world_update_ms(c->w, &count, NULL);
    pthread_mutex_lock(&c->start->m); /* every copy warmed up, then all go: the timed steps overlap */
    c->start->ready++;
    pthread_cond_broadcast(&c->start->cv);
    while (!c->start->go) pthread_cond_wait(&c->start->cv, &c->start->m);
    pthread_mutex_unlock(&c->start->m);
    for (long k = 0; k < c->steps && c->rc == PF_OK; k++) {
        double t0 = bench_now_s();
        c->rc = pf_world_step(c->w, 1);
        c->ms[k] = (bench_now_s() - t0) * 1e3;
        c->col[k] = has_collision && pf_world_get_collision_stats(c->w, &cs) == PF_OK ? cs.ms : 0;
        c->upd_ms += bench_world_update_ms(c->w, &count, NULL);
    }
    if (c->rc != PF_OK) snprintf(c->msg, sizeof c->msg, "%s", pf_last_error());
    return NULL;
}

int scaling_ceiling_repeat(const char *cmd, const char *scene, const pf_scene_load_def *ld, int copies, long warmup,
                           long steps, double *ms, double *col, double *upd_ms)
{
    pf_scene_load_def one = *ld;
    one.world.runtime.workers = 1;
    one.world.runtime.executor = PF_EXEC_SEQ;
    one.world.runtime.bind = 0; /* K runtimes of one worker would all pin theirs to core 0 */
    pf_scene **sc = calloc((size_t)copies, sizeof *sc);
    copy_run *run = calloc((size_t)copies, sizeof *run);
    double *buf = malloc(2 * (size_t)copies * (size_t)steps * sizeof *buf);
    pthread_t *th = calloc((size_t)copies, sizeof *th);
    start_line start = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    int rc = -1, loaded = 0, started = 0;
    if (!sc || !run || !buf || !th) {
        fprintf(stderr, "%s: out of memory for %d copies\n", cmd, copies);
        goto done;
    }
    for (; loaded < copies; loaded++)
        if (scene_cli_load_def(cmd, scene, &one, &sc[loaded])) goto done;
    for (int k = 0; k < copies; k++) {
        run[k] = (copy_run){pf_scene_world(sc[k]), warmup, steps, &start, buf + 2 * k * steps,
                            buf + (2 * k + 1) * steps, 0, PF_OK, ""};
        if (pthread_create(&th[k], NULL, copy_thread, &run[k])) {
            fprintf(stderr, "%s: cannot start a thread for copy %d\n", cmd, k + 1);
            break;
        }
        started++;
    }
    pthread_mutex_lock(&start.m);
    while (start.ready < started) pthread_cond_wait(&start.cv, &start.m);
    start.go = 1;
    pthread_cond_broadcast(&start.cv);
    pthread_mutex_unlock(&start.m);
    for (int k = 0; k < started; k++) pthread_join(th[k], NULL);
    rc = started == copies ? 0 : -1;
    for (int k = 0; k < started && !rc; k++)
        if (run[k].rc != PF_OK) {
            fprintf(stderr, "%s: ceiling copy %d: %s\n", cmd, k + 1, run[k].msg);
            rc = -1;
        }
    if (!rc) {
        *upd_ms = 0;
        for (long s = 0; s < steps; s++) {
            ms[s] = col[s] = 0;
            for (int k = 0; k < copies; k++) {
                ms[s] += run[k].ms[s] / copies;
                col[s] += run[k].col[s] / copies;
            }
        }
        for (int k = 0; k < copies; k++) *upd_ms += run[k].upd_ms / (double)steps / copies;
    }
done:
    for (int k = 0; k < loaded; k++) pf_scene_destroy(sc[k]);
    free(sc);
    free(run);
    free(buf);
    free(th);
    return rc;
}
