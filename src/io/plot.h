/*
** Plotting a CSV or MAT result file (`hydae plot`); the plot of a run is the sink
** hydae_sim_add_plot (plot.c).
*/
#ifndef HY_PLOT_H
#define HY_PLOT_H

#include "hydae.h"

#include <stddef.h>
#include <stdio.h>

/* Read hydae's CSV results from `in` (called `name` in messages) and
** write the plot described by opt to `out`; the title defaults to name.
** 0; HYDAE_ERR_ARG with the reason in err (a malformed file, an unknown
** name); HYDAE_ERR_IO if writing failed; HYDAE_ERR_NOMEM. */
int hy_plot_csv(FILE *in, const char *name, FILE *out, const hydae_plot_options *opt, char *err,
                size_t err_size);
/* The same for hydae's MAT result files (matread.h), opened "rb". */
int hy_plot_mat(FILE *in, const char *name, FILE *out, const hydae_plot_options *opt, char *err,
                size_t err_size);

/* A sweep's table (`hydae sweep -o T.csv`: first column "run") is drawn
** as each measure (opt->vars, default all) over column x (default: the
** first after "run"), one curve per value of column by (NULL: one curve;
** at most 8), a dot per run; runs whose status is not "ok" are left out.
** Two runs with the same x (and by) value are an error naming them. */
typedef struct hy_plot_axes {
    const char *x, *by;
} hy_plot_axes;
int hy_plot_csv_axes(FILE *in, const char *name, FILE *out, const hydae_plot_options *opt,
                     const hy_plot_axes *axes, char *err, size_t err_size);
int hy_plot_mat_axes(FILE *in, const char *name, FILE *out, const hydae_plot_options *opt,
                     const hy_plot_axes *axes, char *err, size_t err_size);

#endif
