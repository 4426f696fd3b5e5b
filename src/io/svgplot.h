/*
** SVG plots of a result table (results.h), written by hydae itself: time
** panels (one per variable) with the active modes as coloured bands and
** the events as dashed lines, or an x-y phase plot coloured by mode with
** the events numbered (as Enge-Rosenblatt et al., Fig. 11).
*/
#ifndef HY_SVGPLOT_H
#define HY_SVGPLOT_H

#include "results.h"

#include <stdio.h>

typedef struct hy_plot_spec {
    int n_panels;
    const int *panel_vars; /* time panels: columns of the table */
    int phase_x, phase_y;  /* both >= 0: a phase plot instead of panels */
    const char *title;     /* NULL: the table's title */
    int no_clock_ticks;    /* leave out the events of a sample clock */
    /* Curves over a parameter instead of time (a sweep's table, plot_table.c): */
    const char *x_label;   /* the x axis' label; NULL: "time" */
    int n_series;          /* > 1: panel p draws columns panel_vars[p * n_series + s],
                           ** s < n_series, each in its colour, in one value range */
    const char *const *series_labels; /* n_series legend texts (n_series > 1) */
    const char *const *panel_labels;  /* n_panels y labels; NULL: the columns' names */
    int markers;           /* a dot at each point (values over a sweep's runs) */
} hy_plot_spec;

/* Write the plot. Mode columns of the table give the bands (the first one
** also shades the panels and colours the phase plot); left-limit rows give
** the events. 0 or HYDAE_ERR_IO (the stream's error). */
int hy_svg_plot(FILE *out, const hy_results *r, const hy_plot_spec *spec);

/* Axis ticks: a step of 1, 2 or 5 times a power of ten giving about
** `target` intervals over span > 0. */
double hy_plot_nice_step(double span, int target);
/* A tick label for value on a grid of the given step: as many decimals as
** the step needs, "0" for zero, exponent form for very large or small. */
void hy_plot_tick_label(double value, double step, char *buf, size_t size);

#endif
