/* Speedup curves of `physflow bench scaling --plot`: a gnuplot script with the points inline (datablocks),
 * piped to gnuplot, which writes the SVG and then the PNG (Hermann et al. 2009 figures 5-7). */
#include "scaling_plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_METHODS 32

/* Colour-blind-safe (Okabe-Ito), black first: seq comes first and is a single point. */
static const char *const COLOURS[] = {"#000000", "#0072B2", "#D55E00", "#009E73",
                                      "#CC79A7", "#E69F00", "#56B4E9", "#F0E442"};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

int scaling_plot_paths(const char *file, char *svg, char *png, size_t size)
{
    size_t n = strlen(file);
    int is_svg = ends_with(file, ".svg"), is_png = ends_with(file, ".png");
    size_t stem = is_svg || is_png ? n - 4 : n;
    if (n == 0 || stem + 5 > size) return -1;
    snprintf(svg, size, "%.*s.svg", (int)stem, file);
    snprintf(png, size, "%.*s.png", (int)stem, file);
    return 0;
}

/* 1 when an executable named gnuplot is on PATH (what popen's shell will run). */
static int gnuplot_installed(void)
{
    const char *path = getenv("PATH");
    if (!path) return 0;
    char dir[4096];
    while (*path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && len + 9 < sizeof dir) {
            snprintf(dir, sizeof dir, "%.*s/gnuplot", (int)len, path);
            if (access(dir, X_OK) == 0) return 1;
        }
        path += len;
        if (*path == ':') path++;
    }
    return 0;
}

/* A gnuplot single-quoted string: a quote is written twice; newlines cannot appear in one. */
static int put_quoted(FILE *g, const char *s)
{
    if (strpbrk(s, "\n\r")) return -1;
    fputc('\'', g);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', g);
        fputc(*s, g);
    }
    fputc('\'', g);
    return 0;
}

/* The distinct methods of pts in first-seen order. */
static size_t list_methods(const scaling_point *pts, size_t n, const char **methods)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < m && strcmp(methods[k], pts[i].method) != 0)
            k++;
        if (k == m && m < MAX_METHODS) methods[m++] = pts[i].method;
    }
    return m;
}

static void put_script(FILE *g, const char *svg, const char *png, const char *scene, const char *measure,
                       double t1_ms, const scaling_point *pts, size_t n)
{
    const char *methods[MAX_METHODS];
    size_t m = list_methods(pts, n, methods);
    int max_workers = 1;
    double top = 1;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].workers > max_workers) max_workers = pts[i].workers;
        if (pts[i].hi > top) top = pts[i].hi;
    }
    if (top < max_workers + 0.5) top = max_workers + 0.5;
    for (size_t k = 0; k < m; k++) {
        /* methods side by side around each worker count, so that their error bars do not hide each other */
        double dodge = 0.015 * max_workers * ((double)k - (double)(m - 1) / 2);
        fprintf(g, "$m%zu << EOD\n", k);
        for (size_t i = 0; i < n; i++)
            if (strcmp(pts[i].method, methods[k]) == 0)
                fprintf(g, "%.6g %.6g %.6g %.6g\n", pts[i].workers + dodge, pts[i].speedup, pts[i].lo,
                        pts[i].hi);
        fprintf(g, "EOD\n");
    }
    /* the title names the scene and the measure, a label the baseline: one line of 720 pixels held only the
     * first 70 characters of both */
    char title[512], base[128];
    if (measure)
        snprintf(title, sizeof title, "%s: %s speedup", scene, measure);
    else
        snprintf(title, sizeof title, "%s: speedup", scene);
    snprintf(base, sizeof base, "T1 = %.3g ms per step (seq, 1 worker)", t1_ms);
    fprintf(g, "set title ");
    put_quoted(g, title);
    fprintf(g, " noenhanced\nset label 1 ");
    put_quoted(g, base);
    fprintf(g, " at graph 0.98, graph 0.05 right noenhanced\n");
    fprintf(g,
            "set xlabel 'workers'\nset ylabel 'speedup against seq at 1 worker'\n"
            "set key top left Left reverse box opaque width 1 "
            "noenhanced\n"
            "set grid\nset xrange [0.5:%g]\nset yrange [0:%g]\n",
            max_workers + 0.5, top);
    fprintf(g, "set xtics %d\nset mxtics 1\n", max_workers <= 16 ? 1 : max_workers / 8);
    /* The SVG first, then the same plot replayed on the PNG terminal. */
    fprintf(g, "set terminal svg size 720,540 dynamic font 'sans,13' background rgb 'white'\nset output ");
    put_quoted(g, svg);
    fprintf(g, "\nplot x title 'ideal' with lines dashtype 2 linecolor rgb 'gray40'");
    for (size_t k = 0; k < m; k++) {
        fprintf(g, ", $m%zu using 1:2:3:4 title ", k);
        put_quoted(g, methods[k]);
        fprintf(g, " with yerrorlines linewidth 2 linecolor rgb '%s' pointtype %zu pointsize 1.3",
                COLOURS[k % (sizeof COLOURS / sizeof *COLOURS)], 5 + 2 * (k % 5));
    }
    fprintf(g, "\nset output\n");
    fprintf(
        g,
        "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 720,540 font 'sans,11' }"
        " else { set terminal png size 720,540 }\nset output ");
    put_quoted(g, png);
    fprintf(g, "\nreplot\nset output\n");
}

static int nonempty_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}

int scaling_plot_write(const char *file, const char *scene, const char *measure, double t1_ms,
                       const scaling_point *pts, size_t n)
{
    char svg[4096], png[4096];
    if (scaling_plot_paths(file, svg, png, sizeof svg) || strpbrk(file, "\n\r")) {
        fprintf(stderr, "physflow bench scaling: unusable plot file name '%s'\n", file);
        return -1;
    }
    if (!gnuplot_installed()) {
        fprintf(stderr, "physflow bench scaling: warning: gnuplot is not installed (Debian: gnuplot-nox, see "
                        "tools/setup-deps); no plot written, the CSV and the table are complete\n");
        return 1;
    }
    /* Start from no images, so a gnuplot failure cannot leave an older plot looking current. */
    remove(svg);
    remove(png);
    FILE *g = popen("gnuplot", "w");
    if (!g) {
        fprintf(stderr, "physflow bench scaling: cannot start gnuplot\n");
        return -1;
    }
    put_script(g, svg, png, scene, measure, t1_ms, pts, n);
    int rc = pclose(g);
    if (rc != 0 || !nonempty_file(svg) || !nonempty_file(png)) {
        fprintf(stderr, "physflow bench scaling: gnuplot could not write %s and %s\n", svg, png);
        return -1;
    }
    fprintf(stderr, "physflow: wrote %s and %s\n", svg, png);
    return 0;
}
