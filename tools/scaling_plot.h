/* Speedup curves of `physflow bench scaling --plot`, drawn by gnuplot as SVG and PNG (Hermann et al. 2009 figures 5-7:
 * speedup against workers, one curve per method, and the ideal line). */
#ifndef PF_TOOLS_SCALING_PLOT_H
#define PF_TOOLS_SCALING_PLOT_H

#include <stddef.h>

/* One measured point: the speedup of `method` ("static", "static/metis", ...) at `workers`, and the range
 * drawn as an error bar (lo <= speedup <= hi; equal values draw none). */
typedef struct scaling_point {
    const char *method;
    int workers;
    double speedup, lo, hi;
} scaling_point;

/* The two image paths of `file`: "f.svg" gives f.svg and f.png, "f.png" gives f.png and f.svg, any other name
 * gives file.svg and file.png. Returns 0, or -1 when a path would not fit `size`. */
int scaling_plot_paths(const char *file, char *svg, char *png, size_t size);

/* Draws points of the same method as one curve with error bars (in the order given, which must be by
 * increasing workers), the ideal line y = x, a title naming the scene, the `measure` whose speedup the points
 * are ("integration (step - collision)", ...; NULL: the step) and its baseline time `t1_ms`. Returns 0 when
 * both images were written, 1 when gnuplot is not installed (a warning on stderr; nothing written), -1 when
 * gnuplot failed or a path is unusable (a message on stderr). */
int scaling_plot_write(const char *file, const char *scene, const char *measure, double t1_ms,
                       const scaling_point *pts, size_t n);

#endif
