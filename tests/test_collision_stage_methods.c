/* The collision stage's queries follow the world's broad-phase method (collide.c: the surfaces' indexes are kd,
 * hhash, mlhash or uhash): on a randomized scene of particles falling among static spheres of three sizes
 * (2^-5 .. 2^-3 m radii, as fluid-over-spheres) and onto a floor of triangles, every method must give, step by
 * step, the same contacts bit for bit and the same final state hash. Oracles: the sphere contacts of each step
 * against a brute-force list of the sphere pairs within the alarm distance at the step's start, and the
 * methods against each other. */
#include "check_main.h"
#include "world_fixture.h"

#include "physflow/physics.h"
#include "physflow/scene.h"
#include "physics/collide.h"
#include "physics/collision_stage.h"
#include "physics/world.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NFLUID = 400, NOBST = 40, STEPS = 120 };
static const double RADIUS[3] = {0.03125, 0.0625, 0.125}, FLUID_R = 0.0078125;
static const double ALARM = 0.004, CONTACT = 0.001;

typedef struct scene {
    pf_world *w;
    pf_object_id floor, obst[3], fluid;
} scene;

static pf_object_id add_points(pf_world *w, const double *p, uint32_t n, double radius, int fixed)
{
    pf_object_def o = pf_object_default_def();
    o.points = n;
    o.positions = p;
    o.vertex_mass = 1;
    pf_object_id id;
    ck_assert_int_eq(pf_world_add_object(w, &o, &id), PF_OK);
    if (fixed) {
        double all[6] = {-10, -10, -10, 10, 10, 10};
        ck_assert_int_eq(pf_world_fix_box(w, id, all, NULL), PF_OK);
    }
    uint32_t *idx = malloc(n * sizeof *idx);
    for (uint32_t i = 0; i < n; i++) idx[i] = i;
    pf_surface_def s = pf_surface_default_def();
    s.vertices = n;
    s.points = idx;
    s.radius = radius;
    ck_assert_int_eq(pf_world_add_surface(w, id, &s, NULL), PF_OK);
    free(idx);
    return id;
}

static scene make_scene(pf_broadphase_method m, uint64_t seed)
{
    scene sc;
    pf_world_def d = test_world_def(PF_EXEC_STATIC, 2);
    d.dt = 1e-3;
    sc.w = create_world(&d);
    /* the floor: a static sheet of triangles at z = 0 */
    pf_object_def o = pf_object_default_def();
    o.grid[0] = o.grid[1] = 6, o.grid[2] = 1;
    o.grid_min[0] = o.grid_min[1] = -0.1, o.grid_max[0] = o.grid_max[1] = 1.1;
    ck_assert_int_eq(pf_world_add_object(sc.w, &o, &sc.floor), PF_OK);
    double all[6] = {-2, -2, -1, 2, 2, 1};
    ck_assert_int_eq(pf_world_fix_box(sc.w, sc.floor, all, NULL), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(sc.w, sc.floor, NULL), PF_OK);
    rng r = {seed};
    double p[3 * NFLUID];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < NOBST; i++) {
            p[3 * i] = urand(&r), p[3 * i + 1] = urand(&r);
            p[3 * i + 2] = RADIUS[k] + 0.2 * urand(&r);
        }
        sc.obst[k] = add_points(sc.w, p, NOBST, RADIUS[k], 1);
    }
    /* the particles start in a slab just above the spheres, close enough to meet them and each other */
    for (int i = 0; i < NFLUID; i++) {
        p[3 * i] = urand(&r), p[3 * i + 1] = urand(&r);
        p[3 * i + 2] = 0.05 + 0.35 * urand(&r);
    }
    sc.fluid = add_points(sc.w, p, NFLUID, FLUID_R, 0);
    pf_collision_def c = pf_collision_default_def();
    c.broadphase = m;
    c.alarm_distance = ALARM;
    c.contact_distance = CONTACT;
    c.stiffness = 20;
    c.damping = 0.01;
    ck_assert_int_eq(pf_world_set_collision(sc.w, &c), PF_OK);
    return sc;
}

typedef struct contact_log {
    uint64_t digest[STEPS]; /* each step's contacts, every field, in the order given */
    uint32_t sphere_contacts[STEPS], total;
    int step;
    pf_object_id floor;
} contact_log;

static void on_contacts(const pf_world_contact *c, uint32_t n, void *ctx)
{
    contact_log *L = ctx;
    uint64_t h = 1469598103934665603ull;
    for (uint32_t k = 0; k < n; k++) { /* field by field: the struct may have padding */
        double f[19] = {c[k].object_a.index, c[k].object_b.index, c[k].distance, c[k].depth};
        memcpy(f + 4, c[k].point_a, sizeof c[k].point_a);
        memcpy(f + 7, c[k].point_b, sizeof c[k].point_b);
        memcpy(f + 10, c[k].normal, sizeof c[k].normal);
        memcpy(f + 13, c[k].force, sizeof c[k].force);
        f[16] = f[17] = f[18] = 0;
        const unsigned char *b = (const unsigned char *)f;
        for (size_t j = 0; j < sizeof f; j++) h = (h ^ b[j]) * 1099511628211ull;
    }
    uint32_t spheres = 0;
    for (uint32_t k = 0; k < n; k++) spheres += c[k].object_a.index != L->floor.index;
    L->digest[L->step] = h;
    L->sphere_contacts[L->step] = spheres;
    L->total += n;
}

/* The sphere pairs within the alarm distance, by brute force over every sphere of the scene (static pairs
 * excepted: two static objects never meet). */
static uint32_t brute_sphere_pairs(const scene *sc)
{
    const double *x[4];
    uint32_t n[4];
    double rad[4] = {RADIUS[0], RADIUS[1], RADIUS[2], FLUID_R};
    pf_object_id ids[4] = {sc->obst[0], sc->obst[1], sc->obst[2], sc->fluid};
    for (int k = 0; k < 4; k++) x[k] = pf_world_positions(sc->w, ids[k], &n[k]);
    uint32_t pairs = 0;
    for (int a = 0; a < 4; a++)
        for (int b = a; b < 4; b++) {
            if (b != 3) continue; /* static against static */
            for (uint32_t i = 0; i < n[a]; i++)
                for (uint32_t j = a == b ? i + 1 : 0; j < n[b]; j++) {
                    const double *p = x[a] + 3 * i, *q = x[b] + 3 * j;
                    double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
                    pairs += sqrt(dx * dx + dy * dy + dz * dz) - rad[a] - rad[b] <= ALARM;
                }
        }
    return pairs;
}

static uint64_t run_method(pf_broadphase_method m, contact_log *L, int check_brute)
{
    scene sc = make_scene(m, 2009);
    memset(L, 0, sizeof *L);
    L->floor = sc.floor;
    ck_assert_int_eq(pf_world_set_contact_callback(sc.w, on_contacts, L), PF_OK);
    for (L->step = 0; L->step < STEPS; L->step++) {
        uint32_t want = check_brute ? brute_sphere_pairs(&sc) : 0;
        ck_assert_int_eq(pf_world_step(sc.w, 1), PF_OK);
        if (check_brute)
            ck_assert_msg(L->sphere_contacts[L->step] == want, "%s, step %d: %u sphere contacts, brute force %u",
                          pf_broadphase_method_name(m), L->step, L->sphere_contacts[L->step], want);
    }
    pf_collision_stats st;
    ck_assert_int_eq(pf_world_get_collision_stats(sc.w, &st), PF_OK);
    ck_assert_uint_eq(st.fast_pairs_total, 0); /* the alarm distance held: the brute list is the stage's rule */
    uint64_t h = pf_world_state_hash(sc.w);
    pf_world_destroy(sc.w);
    return h;
}

START_TEST(every_method_same_contacts_as_brute)
{
    static contact_log ref, got;
    uint64_t href = run_method(PF_BP_BRUTE, &ref, 1);
    ck_assert_uint_gt(ref.total, 1000); /* the scene does collide: spheres and floor alike */
    uint32_t sphere_total = 0;
    for (int s = 0; s < STEPS; s++) sphere_total += ref.sphere_contacts[s];
    ck_assert_uint_gt(sphere_total, 0);
    ck_assert_uint_lt(sphere_total, ref.total);
    pf_broadphase_method ms[] = {PF_BP_KD, PF_BP_GRID, PF_BP_HHASH, PF_BP_MLHASH, PF_BP_SAP};
    for (size_t k = 0; k < sizeof ms / sizeof *ms; k++) {
        uint64_t h = run_method(ms[k], &got, k < 4);
        for (int s = 0; s < STEPS; s++)
            ck_assert_msg(got.digest[s] == ref.digest[s], "%s, step %d: contacts differ from brute's",
                          pf_broadphase_method_name(ms[k]), s);
        ck_assert_msg(h == href, "%s: state hash %016llx, brute %016llx", pf_broadphase_method_name(ms[k]),
                      (unsigned long long)h, (unsigned long long)href);
    }
}
END_TEST

/* 1 when the world's surface broad phase and every built surface index are gone (to be rebuilt) */
static int indexes_dropped(const pf_world *w)
{
    int none = w->col->outer == NULL;
    for (uint32_t k = 0; k < w->col->nsc; k++)
        none &= !w->col->sc[k].tri && !w->col->sc[k].sph && !w->col->sc[k].edge;
    return none;
}

/* A method changed between steps takes effect at once: the surfaces' broad phase and query indexes built with
 * the old one are dropped and rebuilt with the new one, and the run goes on as one with the new method from the
 * start would (the methods are exact: the same contacts, the same state) */
START_TEST(method_change_between_steps_rebuilds)
{
    static contact_log L;
    uint64_t want = run_method(PF_BP_KD, &L, 0);
    scene sc = make_scene(PF_BP_HHASH, 2009);
    ck_assert_int_eq(pf_world_step(sc.w, STEPS / 2), PF_OK);
    ck_assert(!indexes_dropped(sc.w));
    pf_collision_def c;
    ck_assert_int_eq(pf_world_get_collision(sc.w, &c), PF_OK);
    c.broadphase = PF_BP_KD;
    ck_assert_int_eq(pf_world_set_collision(sc.w, &c), PF_OK);
    ck_assert(indexes_dropped(sc.w));
    ck_assert_int_eq(pf_world_step(sc.w, STEPS - STEPS / 2), PF_OK);
    ck_assert(!indexes_dropped(sc.w));
    ck_assert_uint_eq(pf_world_state_hash(sc.w), want);
    pf_world_destroy(sc.w);
}
END_TEST

/* The surfaces' indexes are kept across steps while no vertex has moved farther than their boxes' slack
 * (collide.c, surface_index). The oracle is the stage that rebuilds every index every pass (slack 0): on the
 * heterogeneous scene (FEM, mass-spring, deformable-grid and rigid objects falling into a pile, contacts from
 * about step 60 on) and on this file's falling particles, both give the same state bit for bit, and the kept
 * indexes save builds. */
static void run_slack(pf_world *w, double slack, int steps, uint64_t *hash, uint64_t *builds)
{
    w->col->index_slack = slack;
    ck_assert_int_eq(pf_world_step(w, steps), PF_OK);
    *hash = pf_world_state_hash(w);
    *builds = atomic_load(&w->col->index_builds);
}

START_TEST(kept_indexes_give_the_rebuilt_contacts)
{
    uint64_t h[2], b[2];
    for (int k = 0; k < 2; k++) {
        pf_scene *s;
        pf_scene_load_def d = pf_scene_default_load_def();
        d.world.runtime.quiet = 1;
        d.world.runtime.bind = 0;
        ck_assert_int_eq(pf_scene_load_builtin(&d, "heterogeneous", &s), PF_OK);
        run_slack(pf_scene_world(s), k ? PF_INDEX_SLACK : 0, 150, &h[k], &b[k]);
        pf_scene_destroy(s);
    }
    ck_assert_msg(h[0] == h[1], "heterogeneous: kept indexes %016llx, rebuilt %016llx", (unsigned long long)h[1],
                  (unsigned long long)h[0]);
    ck_assert_msg(b[1] < b[0] / 2, "heterogeneous: %llu builds kept against %llu rebuilt", (unsigned long long)b[1],
                  (unsigned long long)b[0]);
    for (int k = 0; k < 2; k++) {
        scene sc = make_scene(PF_BP_KD, 77);
        run_slack(sc.w, k ? PF_INDEX_SLACK : 0, STEPS, &h[k], &b[k]);
        pf_world_destroy(sc.w);
    }
    ck_assert_uint_eq(h[0], h[1]);
    ck_assert_uint_lt(b[1], b[0]);
}
END_TEST

/* The narrow phase's jobs in slices of a surface's vertices, and the spheres of one surface among themselves
 * (boxes, then the broad phase's pairs in chunks), on the world's workers (collide.c): a dense block of 6,000
 * particles settling on the floor, more than 4,096 sphere pairs a step (so the pairs come in several chunks) and
 * jobs of 7 vertices against the floor's triangles. The oracle is the same world on 1 worker with the default
 * slices: every step's contacts bit for bit and the final state, on 2 and 3 workers. */
enum { BLOCK = 20, BLOCK_Z = 15, BLOCK_STEPS = 30 };

static uint64_t run_block(int workers, uint32_t slice, contact_log *L, size_t *jobs, uint32_t *contacts)
{
    pf_world_def d = test_world_def(PF_EXEC_STATIC, workers);
    d.dt = 1e-3;
    pf_world *w = create_world(&d);
    pf_object_def o = pf_object_default_def();
    o.grid[0] = o.grid[1] = 6, o.grid[2] = 1;
    o.grid_min[0] = o.grid_min[1] = -0.1, o.grid_max[0] = o.grid_max[1] = 0.4;
    pf_object_id floor;
    ck_assert_int_eq(pf_world_add_object(w, &o, &floor), PF_OK);
    double all[6] = {-2, -2, -1, 2, 2, 1};
    ck_assert_int_eq(pf_world_fix_box(w, floor, all, NULL), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, floor, NULL), PF_OK);
    /* a jittered lattice of pitch 2 r + alarm / 2: each particle within the alarm distance of its neighbours,
     * the lowest layer within it of the floor */
    static double p[3 * BLOCK * BLOCK * BLOCK_Z];
    rng r = {4242};
    double pitch = 2 * FLUID_R + ALARM / 2;
    uint32_t n = 0;
    for (int k = 0; k < BLOCK_Z; k++)
        for (int j = 0; j < BLOCK; j++)
            for (int i = 0; i < BLOCK; i++, n++) {
                p[3 * n] = i * pitch + 1e-4 * urand(&r);
                p[3 * n + 1] = j * pitch + 1e-4 * urand(&r);
                p[3 * n + 2] = FLUID_R + ALARM / 2 + k * pitch + 1e-4 * urand(&r);
            }
    pf_object_id fluid = add_points(w, p, n, FLUID_R, 0);
    (void)fluid;
    pf_collision_def c = pf_collision_default_def();
    c.alarm_distance = ALARM;
    c.contact_distance = CONTACT;
    c.stiffness = 20;
    c.damping = 0.01;
    ck_assert_int_eq(pf_world_set_collision(w, &c), PF_OK);
    w->col->job_slice = slice;
    memset(L, 0, sizeof *L);
    L->floor = floor;
    ck_assert_int_eq(pf_world_set_contact_callback(w, on_contacts, L), PF_OK);
    for (L->step = 0; L->step < BLOCK_STEPS; L->step++) ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
    *jobs = w->col->jobs.n;
    pf_collision_stats st;
    ck_assert_int_eq(pf_world_get_collision_stats(w, &st), PF_OK);
    *contacts = st.contacts;
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(sliced_jobs_and_chunked_pairs_every_worker_count)
{
    static contact_log ref, got;
    size_t jobs_ref, jobs;
    uint32_t contacts_ref, contacts;
    uint64_t href = run_block(1, PF_JOB_SLICE, &ref, &jobs_ref, &contacts_ref);
    ck_assert_uint_gt(contacts_ref, 4096 * 2); /* the pairs of particles came in more than two chunks */
    uint32_t sphere_total = 0;
    for (int s = 0; s < BLOCK_STEPS; s++) sphere_total += ref.sphere_contacts[s];
    ck_assert_uint_lt(sphere_total, ref.total); /* and the floor had contacts too */
    for (int workers = 2; workers <= 3; workers++) {
        uint64_t h = run_block(workers, 7, &got, &jobs, &contacts);
        ck_assert_uint_gt(jobs, jobs_ref + 800); /* 6,000 vertices in slices of 7 */
        ck_assert_uint_eq(contacts, contacts_ref);
        for (int s = 0; s < BLOCK_STEPS; s++)
            ck_assert_msg(got.digest[s] == ref.digest[s], "%d workers, step %d: contacts differ from 1 worker's",
                          workers, s);
        ck_assert_msg(h == href, "%d workers: state hash %016llx, 1 worker %016llx", workers,
                      (unsigned long long)h, (unsigned long long)href);
    }
}
END_TEST

/* The merge of the lanes' finds, the repeats dropped and the memories recalled, the contact fields' fill and the
 * memory's sort, in parts on the world's workers (collide.c: merge_runs, pf_collide_remember; collision_stage.c):
 * three blocks of particles sliding side by side over the floor with friction (tangential springs carried from
 * pass to pass through the memory), parts of 7 finds, so that part boundaries fall inside a vertex's finds and
 * between contacts of one field. The oracle is the same world on 1 worker in one part (one merge of the runs, one
 * range per field, one sort of the memory): every step's contacts bit for bit and the final state, on 1, 2 and 3
 * workers, with parts of 7 and with the default parts. */
enum { PILE = 8, PILE_Z = 4, PILE_STEPS = 40 };

typedef struct pile_run {
    contact_log log;
    size_t most_dropped; /* repeats dropped by the merge, most in a step */
    uint32_t fields;     /* contact fields at the end */
} pile_run;

static uint64_t run_piles(int workers, uint32_t part, double friction, pile_run *out)
{
    pf_world_def d = test_world_def(PF_EXEC_STATIC, workers);
    d.dt = 1e-3;
    pf_world *w = create_world(&d);
    pf_object_def o = pf_object_default_def();
    o.grid[0] = o.grid[1] = 6, o.grid[2] = 1;
    o.grid_min[0] = o.grid_min[1] = -0.1, o.grid_max[0] = 0.5, o.grid_max[1] = 0.2;
    pf_object_id floor;
    ck_assert_int_eq(pf_world_add_object(w, &o, &floor), PF_OK);
    double all[6] = {-2, -2, -1, 2, 2, 1};
    ck_assert_int_eq(pf_world_fix_box(w, floor, all, NULL), PF_OK);
    ck_assert_int_eq(pf_world_add_grid_surface(w, floor, NULL), PF_OK);
    /* three jittered lattices side by side, within the alarm distance of each other and of the floor, each
     * sliding along x at its own speed */
    static double p[3 * PILE * PILE * PILE_Z], v[3 * PILE * PILE * PILE_Z];
    rng r = {9001};
    double pitch = 2 * FLUID_R + ALARM / 2;
    for (int b = 0; b < 3; b++) {
        uint32_t n = 0;
        for (int k = 0; k < PILE_Z; k++)
            for (int j = 0; j < PILE; j++)
                for (int i = 0; i < PILE; i++, n++) {
                    p[3 * n] = (b * PILE + i) * pitch + 1e-4 * urand(&r);
                    p[3 * n + 1] = j * pitch + 1e-4 * urand(&r);
                    p[3 * n + 2] = FLUID_R + ALARM / 2 + k * pitch + 1e-4 * urand(&r);
                    v[3 * n] = 0.05 * (b + 1), v[3 * n + 1] = v[3 * n + 2] = 0;
                }
        pf_object_def po = pf_object_default_def();
        po.points = n;
        po.positions = p;
        po.velocities = v;
        po.vertex_mass = 1;
        pf_object_id id;
        ck_assert_int_eq(pf_world_add_object(w, &po, &id), PF_OK);
        uint32_t idx[PILE * PILE * PILE_Z];
        for (uint32_t i = 0; i < n; i++) idx[i] = i;
        pf_surface_def sd = pf_surface_default_def();
        sd.vertices = n;
        sd.points = idx;
        sd.radius = FLUID_R;
        ck_assert_int_eq(pf_world_add_surface(w, id, &sd, NULL), PF_OK);
    }
    pf_collision_def c = pf_collision_default_def();
    c.alarm_distance = ALARM;
    c.contact_distance = CONTACT;
    c.stiffness = 20;
    c.damping = 0.01;
    c.friction = friction;
    ck_assert_int_eq(pf_world_set_collision(w, &c), PF_OK);
    w->col->part = part;
    memset(out, 0, sizeof *out);
    out->log.floor = floor;
    ck_assert_int_eq(pf_world_set_contact_callback(w, on_contacts, &out->log), PF_OK);
    for (out->log.step = 0; out->log.step < PILE_STEPS; out->log.step++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        size_t dropped = w->col->merged.n - w->col->cand.n;
        if (dropped > out->most_dropped) out->most_dropped = dropped;
    }
    pf_collision_stats st;
    ck_assert_int_eq(pf_world_get_collision_stats(w, &st), PF_OK);
    out->fields = st.pairs;
    uint64_t h = pf_world_state_hash(w);
    pf_world_destroy(w);
    return h;
}

START_TEST(merge_fill_and_memory_in_parts_every_worker_count)
{
    static pile_run ref, got;
    uint64_t href = run_piles(1, UINT32_MAX, 0.4, &ref);
    ck_assert_uint_gt(ref.log.total / PILE_STEPS, 2 * PF_MERGE_PART); /* several default parts a step */
    ck_assert_uint_ge(ref.fields, 4);      /* the floor under each block, blocks beside each other */
    ck_assert_uint_gt(ref.most_dropped, 0); /* a vertex over two of the floor's triangles: one kept */
    ck_assert_uint_ne(run_piles(1, UINT32_MAX, 0, &got), href); /* the remembered springs do matter */
    for (int run = 0; run < 6; run++) {
        int workers = 1 + run / 2;
        uint32_t part = run % 2 ? PF_MERGE_PART : 7;
        uint64_t h = run_piles(workers, part, 0.4, &got);
        ck_assert_uint_eq(got.log.total, ref.log.total);
        for (int s = 0; s < PILE_STEPS; s++)
            ck_assert_msg(got.log.digest[s] == ref.log.digest[s],
                          "%d workers, parts of %u, step %d: contacts differ from 1 worker's", workers, part, s);
        ck_assert_msg(h == href, "%d workers, parts of %u: state hash %016llx, 1 worker %016llx", workers, part,
                      (unsigned long long)h, (unsigned long long)href);
    }
}
END_TEST

/* The surfaces' indexes built inside the narrow phase's run (each job waits for the index it queries), and the
 * jobs taken costliest first, by their time at the previous pass (collide.c, narrow_worker and order_jobs): on the
 * heterogeneous scene (20 surfaces, contacts from about step 60 on) with every index rebuilt every pass (slack 0)
 * and jobs of 64 vertices, so that the workers build the indexes while others already run jobs, and the order
 * differs from the plan's. The oracle is the same world on 1 worker: every step's contacts bit for bit and the
 * final state, on 2 and 3 workers. */
enum { HET_STEPS = 100 };

static uint64_t run_heterogeneous(int workers, contact_log *L, int *reordered, int *matched)
{
    pf_scene *s;
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.quiet = 1;
    d.world.runtime.bind = 0;
    d.world.runtime.workers = workers;
    ck_assert_int_eq(pf_scene_load_builtin(&d, "heterogeneous", &s), PF_OK);
    pf_world *w = pf_scene_world(s);
    w->col->index_slack = 0;
    w->col->job_slice = 64;
    memset(L, 0, sizeof *L);
    L->floor = (pf_object_id){UINT32_MAX};
    ck_assert_int_eq(pf_world_set_contact_callback(w, on_contacts, L), PF_OK);
    *reordered = *matched = 0;
    for (L->step = 0; L->step < HET_STEPS; L->step++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        const pf_collision_stage *c = w->col;
        ck_assert_uint_eq(c->order.n, c->jobs.n);
        for (size_t k = 0; k < c->order.n; k++) {
            *reordered += c->order.v[k].job != k;
            *matched += c->order.v[k].cost < UINT64_MAX / 2; /* its cost from the previous pass */
        }
    }
    uint64_t h = pf_world_state_hash(w);
    pf_scene_destroy(s);
    return h;
}

/* every step's contacts and the final state hash of a run on `workers` workers equal the reference run's */
static void assert_same_run(const contact_log *got, uint64_t h, const contact_log *ref, uint64_t href, int workers,
                            const char *what)
{
    ck_assert_uint_eq(got->total, ref->total);
    for (int s = 0; s < HET_STEPS; s++)
        ck_assert_msg(got->digest[s] == ref->digest[s], "%d workers, step %d: contacts differ from %s", workers, s,
                      what);
    ck_assert_msg(h == href, "%d workers: state hash %016llx, %s %016llx", workers, (unsigned long long)h, what,
                  (unsigned long long)href);
}

START_TEST(indexes_in_the_narrow_run_and_jobs_costliest_first_every_worker_count)
{
    static contact_log ref, got;
    int reordered, matched;
    uint64_t href = run_heterogeneous(1, &ref, &reordered, &matched);
    ck_assert_uint_gt(ref.total, 1000); /* the pile has formed */
    ck_assert_int_gt(reordered, 0);
    ck_assert_int_gt(matched, 0);
    for (int workers = 2; workers <= 3; workers++) {
        uint64_t h = run_heterogeneous(workers, &got, &reordered, &matched);
        assert_same_run(&got, h, &ref, href, workers, "1 worker's");
    }
}
END_TEST

/* The narrow phase's triangles culled by their own boxes before the exact test, and a vertex's triangles tested
 * in the index's order rather than by id (collide.c, beyond_reach and query_unsorted): on the heterogeneous scene
 * (FEM, mass-spring, grid and rigid surfaces piling up; the index boxes grown by the slack, rigid surfaces queried
 * in their body frame), the oracle is the same world on 1 worker with every triangle a query gives tested
 * exactly, in id order (exact_all): every step's contacts bit for bit and the final state, on 2 and 3 workers.
 * The cull must reject a good share of what the queries give (42% over these steps), and the oracle nothing. */
static uint64_t run_culled(int workers, int exact_all, contact_log *L, uint64_t *examined, uint64_t *culled)
{
    pf_scene *s;
    pf_scene_load_def d = pf_scene_default_load_def();
    d.world.runtime.quiet = 1;
    d.world.runtime.bind = 0;
    d.world.runtime.workers = workers;
    ck_assert_int_eq(pf_scene_load_builtin(&d, "heterogeneous", &s), PF_OK);
    pf_world *w = pf_scene_world(s);
    w->col->exact_all = exact_all;
    memset(L, 0, sizeof *L);
    L->floor = (pf_object_id){UINT32_MAX};
    ck_assert_int_eq(pf_world_set_contact_callback(w, on_contacts, L), PF_OK);
    *examined = *culled = 0;
    for (L->step = 0; L->step < HET_STEPS; L->step++) {
        ck_assert_int_eq(pf_world_step(w, 1), PF_OK);
        for (int l = 0; l < w->col->nlanes; l++) /* this pass's counts */
            *examined += w->col->lanes[l].examined, *culled += w->col->lanes[l].culled;
    }
    uint64_t h = pf_world_state_hash(w);
    pf_scene_destroy(s);
    return h;
}

START_TEST(culled_triangles_give_the_exact_contacts_every_worker_count)
{
    static contact_log ref, got;
    uint64_t examined_ref, culled_ref, examined, culled;
    uint64_t href = run_culled(1, 1, &ref, &examined_ref, &culled_ref);
    ck_assert_uint_gt(ref.total, 1000); /* the pile has formed */
    ck_assert_uint_eq(culled_ref, 0);
    for (int workers = 2; workers <= 3; workers++) {
        uint64_t h = run_culled(workers, 0, &got, &examined, &culled);
        ck_assert_uint_eq(examined, examined_ref); /* the same queries, the same pairs looked at */
        ck_assert_msg(culled > examined / 3, "%d workers: %llu of %llu culled", workers, (unsigned long long)culled,
                      (unsigned long long)examined);
        assert_same_run(&got, h, &ref, href, workers, "the exact test's");
    }
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("collision_stage_methods");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_method_same_contacts_as_brute);
    tcase_add_test(tc, method_change_between_steps_rebuilds);
    tcase_add_test(tc, kept_indexes_give_the_rebuilt_contacts);
    tcase_add_test(tc, sliced_jobs_and_chunked_pairs_every_worker_count);
    tcase_add_test(tc, merge_fill_and_memory_in_parts_every_worker_count);
    tcase_add_test(tc, indexes_in_the_narrow_run_and_jobs_costliest_first_every_worker_count);
    tcase_add_test(tc, culled_triangles_give_the_exact_contacts_every_worker_count);
    suite_add_tcase(s, tc);
    return s;
}
