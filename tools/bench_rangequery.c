/* physflow bench rangequery: Aïvázis's (2010) cost model measured — b(N) build, r(N) rebuild after a small motion,
 * s(N) bytes, q(N, n) query time with about n points in the box — for scan, bsearch, tree, kdtree, cells. */
#include "commands.h"

#include "bench_csv.h"
#include "bench_util.h"
#include "rng.h"
#include "cli_args.h"

#include "physflow/query.h"
#include "physflow/rangequery.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Aïvázis 2010's asymptotic costs, printed beside the measurements. */
static const char *const PAPER_COSTS[PF_RQ_METHOD_COUNT] = {
    "b=O(N) r=0 q=O(N)",
    "b=O(N log N) r=O(N) q=O(log N + n)",
    "b=r=O((D+1)N) q~O(D + n)",
    "b=O(N log N) r=O(N) q=O(n + log N)",
    "b=r=O(N+M) q=O(J + n)",
};

/* `count` query boxes in the unit cube, each expected to hold about `target` of the n uniform points. */
static double *make_queries(size_t count, size_t n, double target, uint64_t seed)
{
    rng r = {seed};
    double *q = malloc(6 * count * sizeof *q), h = 0.5 * cbrt(target / (double)n);
    if (!q) return NULL;
    for (size_t k = 0; k < count; k++)
        for (int a = 0; a < 3; a++) {
            double c = h + (1 - 2 * h) * urand(&r);
            q[6 * k + (size_t)a] = c - h;
            q[6 * k + 3 + (size_t)a] = c + h;
        }
    return q;
}

static int time_queries(const pf_rangequery *rq, const double *q, size_t count, pf_id_buffer *buf, double *ms,
                        uint64_t *found)
{
    *found = 0;
    double t0 = (bench_now_s() * 1e3);
    for (size_t k = 0; k < count; k++) {
        if (pf_rangequery_find(rq, q + 6 * k, q + 6 * k + 3, buf)) return -1;
        size_t m;
        pf_id_buffer_ids(buf, &m);
        *found += m;
    }
    *ms = (bench_now_s() * 1e3) - t0;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: physflow bench rangequery [--n LIST] [--queries Q] [--methods LIST] [--csv FILE [--force]]\n"
               "  --n LIST        point counts (default 10000,100000,1000000), uniform in the unit cube\n"
               "  --queries Q     queries per batch, boxes holding about 16 points (default 1000)\n"
               "  --methods LIST  among scan,bsearch,tree,kdtree,cells (default all)\n");
}

int bench_rangequery(int argc, char **argv)
{
    long ns[32] = {10000, 100000, 1000000}, nq = 1000;
    size_t nn = 3;
    int use[PF_RQ_METHOD_COUNT] = {1, 1, 1, 1, 1};
    const char *csv_path = NULL;
    int force = 0;
    for (int a = 1; a < argc; a++) {
        const char *opt = argv[a], *val;
        if (!strcmp(opt, "--force")) {
            force = 1;
            continue;
        }
        int got = cli_option_value(argc, argv, &a, "bench rangequery", "--n --queries --methods --csv", usage, &val);
        if (got != CLI_VALUE) return got == CLI_HELP ? 0 : 2;
        int bad = 0;
        if (!strcmp(opt, "--n"))
            bad = cli_int_list(opt, val, 16, 100000000, ns, 32, &nn);
        else if (!strcmp(opt, "--queries"))
            bad = cli_long(opt, val, 1, 100000000, &nq);
        else if (!strcmp(opt, "--methods")) {
            char buf[256], *items[PF_RQ_METHOD_COUNT];
            size_t k = 0;
            bad = cli_str_list(opt, val, buf, sizeof buf, items, PF_RQ_METHOD_COUNT, &k);
            memset(use, 0, sizeof use);
            for (size_t t = 0; t < k && !bad; t++) {
                pf_rangequery_method m;
                if (pf_rangequery_method_parse(items[t], &m)) {
                    fprintf(stderr, "physflow: bench rangequery: %s\n", pf_last_error());
                    bad = 1;
                } else {
                    use[m] = 1;
                }
            }
        } else if (!strcmp(opt, "--csv"))
            csv_path = val;
        else
            return cli_unknown_option("bench rangequery", opt, usage);
        if (bad) return 2;
    }
    bench_csv *csv = NULL;
    int csv_rc = bench_csv_open(csv_path, force, argc, argv, &csv);
    if (csv_rc) return csv_rc;
    pf_id_buffer *buf = NULL;
    if (pf_id_buffer_create(&buf)) {
        bench_csv_close(csv, 0);
        return 1;
    }
    int rc = 0;
    printf("Aïvázis 2010 — orthogonal range queries, points uniform in the unit cube; rebuild after every point moved\n"
           "by up to 1%% of the cube; q: mean time of one query holding ~16 points (%ld queries) and ~1024 points\n\n",
           nq);
    printf("%9s %-8s | %10s %10s %9s | %10s %12s %10s | %s\n", "N", "method", "build ms", "rebuild ms", "MB",
           "q16 us", "batch ms", "q1024 us", "Aïvázis 2010");
    for (size_t t = 0; t < nn && !rc; t++) {
        size_t n = (size_t)ns[t];
        double *p = malloc(3 * n * sizeof *p), *moved = malloc(3 * n * sizeof *p);
        size_t nbig = nq / 10 > 10 ? (size_t)nq / 10 : 10;
        double *q16 = make_queries((size_t)nq, n, 16, 7 + t), *q1k = make_queries(nbig, n, 1024, 8 + t);
        if (!p || !moved || !q16 || !q1k) {
            fprintf(stderr, "physflow: bench rangequery: out of memory\n");
            rc = -1;
        }
        rng r = {100 + t};
        for (size_t i = 0; !rc && i < 3 * n; i++) {
            p[i] = urand(&r);
            moved[i] = p[i] + 0.02 * (urand(&r) - 0.5);
        }
        char cname[64];
        snprintf(cname, sizeof cname, "uniform:%zu", n);
        uint64_t reference = UINT64_MAX;
        for (int m = 0; m < PF_RQ_METHOD_COUNT && !rc; m++) {
            if (!use[m]) continue;
            pf_rangequery_def def = pf_rangequery_default_def();
            def.method = (pf_rangequery_method)m;
            pf_rangequery *rq = NULL;
            double t0 = (bench_now_s() * 1e3);
            if (pf_rangequery_create(&def, &rq) || pf_rangequery_build(rq, p, n)) rc = -1;
            double b_ms = (bench_now_s() * 1e3) - t0;
            size_t bytes = pf_rangequery_bytes(rq);
            t0 = (bench_now_s() * 1e3);
            if (!rc && pf_rangequery_rebuild(rq, moved)) rc = -1;
            double r_ms = (bench_now_s() * 1e3) - t0;
            double q_ms = 0, q1k_ms = 0;
            uint64_t f16 = 0, f1k = 0;
            if (!rc) rc = time_queries(rq, q16, (size_t)nq, buf, &q_ms, &f16);
            if (!rc) rc = time_queries(rq, q1k, nbig, buf, &q1k_ms, &f1k);
            if (rc) {
                fprintf(stderr, "physflow: bench rangequery: %s: %s\n", pf_rangequery_method_name(def.method),
                        pf_last_error());
                pf_rangequery_destroy(rq);
                break;
            }
            /* every method must find the same points */
            if (reference == UINT64_MAX) reference = f16 + f1k;
            if (f16 + f1k != reference) {
                fprintf(stderr, "physflow: bench rangequery: %s found %llu points, others %llu\n",
                        pf_rangequery_method_name(def.method), (unsigned long long)(f16 + f1k),
                        (unsigned long long)reference);
                rc = -1;
            }
            double qus = 1e3 * q_ms / (double)nq, q1kus = 1e3 * q1k_ms / (double)nbig;
            printf("%9zu %-8s | %10.2f %10.2f %9.2f | %10.2f %12.2f %10.2f | %s\n", n,
                   pf_rangequery_method_name(def.method), b_ms, r_ms, (double)bytes / 1048576.0, qus, q_ms, q1kus,
                   PAPER_COSTS[m]);
            const char *mn = pf_rangequery_method_name(def.method);
            bench_csv_row(csv, "rangequery", cname, mn, 1, "build_ms", b_ms);
            bench_csv_row(csv, "rangequery", cname, mn, 1, "rebuild_ms", r_ms);
            bench_csv_row(csv, "rangequery", cname, mn, 1, "bytes", (double)bytes);
            bench_csv_row(csv, "rangequery", cname, mn, 1, "query_us", qus);
            bench_csv_row(csv, "rangequery", cname, mn, 1, "queries_ms", q_ms);
            bench_csv_row(csv, "rangequery", cname, mn, 1, "query_us_n1024", q1kus);
            pf_rangequery_destroy(rq);
        }
        if (!rc)
            printf("%9s %-8s   (all methods found the same %llu points)\n", "", "",
                   (unsigned long long)reference);
        free(p), free(moved), free(q16), free(q1k);
    }
    pf_id_buffer_destroy(buf);
    if (bench_csv_close(csv, !rc)) rc = -1;
    return rc ? 1 : 0;
}
