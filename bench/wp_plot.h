/*
** Work-precision plot as a standalone SVG file: one panel per problem,
** x = scd (accuracy, linear), y = CPU time (log scale), one line per
** solver: hydae solid with filled circles, SUNDIALS dashed with open
** squares, one colour per pairing.
*/
#ifndef HY_BENCH_WP_PLOT_H
#define HY_BENCH_WP_PLOT_H

#define WP_MAX_POINTS 8

typedef struct wp_series {
    const char *panel;          /* the problem (panel title) it belongs to */
    const char *label;          /* solver name, shown as the line's tooltip */
    const char *colour;         /* "#1f77b4" */
    /* Dashed lines only: non-NULL draws the dashes alternately in colour
    ** and colour_alt, for a SUNDIALS curve shared by two pairings. */
    const char *colour_alt;
    int dashed;                 /* 0: hydae (solid), 1: SUNDIALS (dashed) */
    int n;                      /* points, in tolerance order */
    double scd[WP_MAX_POINTS];
    double cpu_ms[WP_MAX_POINTS];
} wp_series;

typedef struct wp_legend_entry {
    const char *colour;
    const char *label;          /* "DSTIFF vs IDA" */
} wp_legend_entry;

/* Writes the plot to path; points whose scd or CPU time is not finite
** and positive are left out. Returns 0, or -1 if the file cannot be
** written. */
int wp_plot_write_svg(const char *path, const char *title,
                      const char *const *panels, int n_panels,
                      const wp_series *series, int n_series,
                      const wp_legend_entry *legend, int n_legend);

#endif
