/* physflow bench splitting: Poirrier 2009 Table 1 (§4.2), the linear kd-tree with and without box splitting,
 * printed beside the paper's figures and written as CSV rows. */
#include "bench_csv.h"
#include "cli_args.h"
#include "rng.h"
#include "commands.h"

#include "physflow/collision.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Poirrier 2009 Table 1 (reference/poirrier_table1_splitting.csv): N = 10000 spheres, uniform centres, no
 * non-interpenetration. sub-elements per N, V_n / V_e, selected (candidate) pairs, true positives (counted with
 * their duplicates). */
static const struct paper_row {
    double d;
    double sub[2], vn_ve[2], selected[2], true_pos[2]; /* [0] without splitting, [1] with */
} paper_rows[] = {
    {0.01, {1, 6.37}, {8.0275e6, 10.9362}, {1261197, 4928}, {389, 429}},
    {0.05, {1, 6.67}, {1.5836e6, 10.8227}, {1834155, 25643}, {1901, 2660}},
    {0.1, {1, 6.24}, {1.3439e6, 13.4065}, {2300212, 62148}, {3715, 6235}},
    {0.5, {1, 6.35}, {2.9324e6, 13.4745}, {4193598, 280736}, {16227, 63454}},
    {1.0, {1, 6.01}, {4.0032e6, 12.5170}, {5552230, 492790}, {28144, 72176}},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: physflow bench splitting [--n N] [--densities LIST] [--threads K] [--csv FILE [--force]]\n"
                 "\n"
                 "Poirrier 2009 Table 1: N (default 10000) unit spheres, centres uniform in a cube sized for volume\n"
                 "fraction d (default 0.01,0.05,0.1,0.5,1), placed in the linear kd-tree without and with box\n"
                 "splitting (kd-raw). Per case: sub-elements per N, V_n/V_e (summed enclosing-cell volume over\n"
                 "sphere volume), selected pairs (raw candidates, duplicates included) and true positives\n"
                 "(candidates whose spheres intersect, duplicates included), beside the paper's figures.\n");
}

int bench_splitting(int argc, char **argv)
{
    long n = 10000, threads = 1;
    double dens[16] = {0.01, 0.05, 0.1, 0.5, 1.0};
    size_t nd = 5;
    const char *csv_path = NULL;
    int force = 0;
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k], *v;
        if (!strcmp(a, "--force")) {
            force = 1;
            continue;
        }
        int got = cli_option_value(argc, argv, &k, "bench splitting", "--n --threads --densities --csv", usage, &v);
        if (got != CLI_VALUE) return got == CLI_HELP ? 0 : 2;
        if (!strcmp(a, "--n")) {
            if (cli_long("--n", v, 2, 10000000, &n)) return 2;
        } else if (!strcmp(a, "--threads")) {
            if (cli_long("--threads", v, 1, 1024, &threads)) return 2;
        } else if (!strcmp(a, "--densities")) {
            char buf[512];
            char *items[16];
            if (cli_str_list("--densities", v, buf, sizeof buf, items, 16, &nd)) return 2;
            for (size_t i = 0; i < nd; i++)
                if (cli_double("--densities", items[i], 1e-6, 10.0, &dens[i])) return 2;
        } else if (!strcmp(a, "--csv")) {
            csv_path = v;
        } else {
            return cli_unknown_option("bench splitting", a, usage);
        }
    }
    bench_csv *csv = NULL;
    int csv_rc = bench_csv_open(csv_path, force, argc, argv, &csv);
    if (csv_rc) return csv_rc;
    size_t count = (size_t)n;
    double *c = malloc(3 * count * sizeof *c);
    pf_aabb *boxes = malloc(count * sizeof *boxes);
    if (!c || !boxes) {
        fprintf(stderr, "physflow bench splitting: out of memory\n");
        bench_csv_close(csv, 0);
        return 1;
    }
    const double r = 1.0, vsphere = 4.0 / 3.0 * M_PI;
    printf("# Poirrier 2009 Table 1: N = %zu unit spheres, kd-raw (kd-tree-1) without / with splitting\n", count);
    printf("%6s %5s | %8s %11s %12s %10s %11s | %8s %11s %12s %10s\n", "d", "split", "sub/N", "Vn/Ve", "selected",
           "true_pos", "unique_true", "paper", "Vn/Ve", "selected", "true_pos");
    int status = 0;
    for (size_t id = 0; id < nd && !status; id++) {
        double d = dens[id];
        double edge = cbrt((double)count * vsphere / d);
        rng seed = {0x2545f4914f6cdd1dull ^ (uint64_t)(d * 1e6)};
        for (size_t i = 0; i < 3 * count; i++) c[i] = edge * urand(&seed);
        for (size_t i = 0; i < count; i++)
            for (int a = 0; a < 3; a++) {
                boxes[i].min[a] = c[3 * i + a] - r;
                boxes[i].max[a] = c[3 * i + a] + r;
            }
        const struct paper_row *row = NULL;
        for (size_t k = 0; k < sizeof paper_rows / sizeof paper_rows[0]; k++)
            if (fabs(paper_rows[k].d - d) < 1e-9) row = &paper_rows[k];
        uint64_t unique_true = 0;
        for (int split = 0; split <= 1 && !status; split++) {
            pf_broadphase_def def = pf_broadphase_default_def();
            def.method = PF_BP_KD_RAW;
            def.kd_split = split;
            def.threads = (int)threads;
            pf_broadphase *bp;
            const pf_pair *p;
            size_t np;
            pf_broadphase_stats st;
            if (pf_broadphase_create(&def, &bp) || pf_broadphase_pairs(bp, boxes, count, &p, &np, &st)) {
                fprintf(stderr, "physflow bench splitting: %s\n", pf_last_error());
                status = 1;
                break;
            }
            uint64_t true_pos = 0;
            for (size_t k = 0; k < np; k++) {
                const double *a = &c[3 * p[k].i], *b = &c[3 * p[k].j];
                double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
                true_pos += dx * dx + dy * dy + dz * dz < 4 * r * r;
            }
            pf_broadphase_destroy(bp);
            if (!split) {
                /* the unique sphere pairs, through kd */
                def.method = PF_BP_KD;
                def.kd_split = 1;
                if (pf_broadphase_create(&def, &bp) || pf_broadphase_pairs(bp, boxes, count, &p, &np, NULL)) {
                    fprintf(stderr, "physflow bench splitting: %s\n", pf_last_error());
                    status = 1;
                    break;
                }
                for (size_t k = 0; k < np; k++) {
                    const double *a = &c[3 * p[k].i], *b = &c[3 * p[k].j];
                    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
                    unique_true += dx * dx + dy * dy + dz * dz < 4 * r * r;
                }
                pf_broadphase_destroy(bp);
            }
            double sub = (double)st.records / (double)count;
            double vn_ve = st.cell_volume / ((double)count * vsphere * r * r * r);
            printf("%6g %5s | %8.2f %11.4g %12llu %10llu %11llu |", d, split ? "yes" : "no", sub, vn_ve,
                   (unsigned long long)st.candidates, (unsigned long long)true_pos,
                   (unsigned long long)unique_true);
            if (row)
                printf(" %8.2f %11.4g %12.0f %10.0f\n", row->sub[split], row->vn_ve[split], row->selected[split],
                       row->true_pos[split]);
            else
                printf(" %8s\n", "-");
            char case_name[64];
            snprintf(case_name, sizeof case_name, "spheres:%zu:d=%g", count, d);
            const char *method = split ? "kd-split" : "kd-nosplit";
            bench_csv_row(csv, "splitting", case_name, method, (int)threads, "sub_elements_per_n", sub);
            bench_csv_row(csv, "splitting", case_name, method, (int)threads, "vn_ve", vn_ve);
            bench_csv_row(csv, "splitting", case_name, method, (int)threads, "selected_pairs", (double)st.candidates);
            bench_csv_row(csv, "splitting", case_name, method, (int)threads, "true_positives", (double)true_pos);
            bench_csv_row(csv, "splitting", case_name, method, (int)threads, "unique_true_pairs",
                          (double)unique_true);
        }
    }
    printf("# paper: Poirrier 2009, Table 1; its root cell is the distribution's cuboid, ours a cube\n");
    free(c);
    free(boxes);
    if (bench_csv_close(csv, !status)) status = 1;
    return status;
}
