/*
** libFuzzer target: `hydae plot FILE.mat`, the reader of hydae's MAT
** result files (src/io/matread.c) and the SVG plot of what it read
** (src/io/svgplot.c), through hy_plot_mat as src/cli/plot.c calls it.
**
** The input is a MAT file. Its last byte chooses the options: bit 0
** --no-clock-ticks, bit 1 a phase plot of the first two columns (their
** names from a first read), else every column in time panels. The plot goes
** to memory and must be well-formed XML with finite coordinates
** (plot_fuzz.h), else the target aborts.
*/
#define _POSIX_C_SOURCE 200809L

#include "io/matread.h"
#include "io/plot.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The names of the first two columns, for a phase plot: 0, or -1. */
static int first_two_names(const uint8_t *data, size_t size, char *x, char *y, size_t name_size)
{
    hy_results r;
    hy_results_init(&r);
    char err[1024];
    FILE *in = open_input(data, size);
    int status = hy_mat_read(&r, in, "fuzz.mat", err, sizeof err);
    fclose(in);
    if (!status && r.n_vars >= 2 && strlen(r.vars[0].name) < name_size
        && strlen(r.vars[1].name) < name_size) {
        strcpy(x, r.vars[0].name);
        strcpy(y, r.vars[1].name);
    } else {
        status = -1;
    }
    hy_results_free(&r);
    return status;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hydae_plot_options options;
    memset(&options, 0, sizeof options);
    unsigned choice = size ? data[size - 1] : 0;
    options.no_clock_ticks = (int)(choice & 1u);
    char x[512], y[512];
    if ((choice & 2u) && first_two_names(data, size, x, y, sizeof x) == 0) {
        options.phase_x = x;
        options.phase_y = y;
    }
    plot_and_check(hy_plot_mat, "fuzz.mat", data, size, &options);
    return 0;
}
