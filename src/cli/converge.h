/*
** Internals of `hydae converge` shared by the tolerance study (converge.c)
** and the comparison of integrators (converge_compare.c).
*/
#ifndef HY_CLI_CONVERGE_H
#define HY_CLI_CONVERGE_H

#include "cli.h"
#include "core/core.h"
#include "lang/lang.h"

enum { MAX_CHANNELS = 64, MAX_RUNS = 16 };

typedef struct channel_recorder {
    int n_channels;
    int column[MAX_CHANNELS];
    long n_rows, cap_rows;
    double *values;             /* n_rows x n_channels, grid rows only */
} channel_recorder;

typedef struct study {
    const char *example;
    const char *model_file;
    const char *channels;
    double from, to, digits, h_max_start, fixed_tol, t_end, dt;
    int have_t_end, have_dt, have_from, have_to;
    int compare_solvers;        /* --compare-solvers */
    const char *solver;
    int n_sets;
    const char *sets[64];
} study;

/* A row sink keeping the grid rows' values of the recorder's columns. */
int hy_converge_record_row(void *user, hydae_row_kind kind, double t, const double *values);
/* Columns of the comma-separated channel names (NULL: every column, up to
** MAX_CHANNELS); 2 on an unknown name, with a message. */
int hy_converge_resolve_channels(const hydae_model *m, const char *list, channel_recorder *r);
/* The run's time span and output grid: the example's, or the model file's
** experiment; --tend and --dt override either. Non-zero on failure. */
int hy_converge_set_span(hydae_sim *sim, const study *st, const hydae_example *ex,
                         const hy_lang_experiment *experiment);
/* Significant digits of channel c of run against ref: -log10 of the largest
** difference relative to the channel's largest magnitude; NaN if the grids
** differ, 0 if a value is defined in one run and not in the other. */
double hy_converge_digits(const channel_recorder *run, const channel_recorder *ref, int c);
int hy_converge_parse_number(const char *option, const char *text, double *out);
/* The work-precision table of every applicable integrator (--compare-solvers). */
int hy_converge_compare_solvers(hydae_model *m, const study *st, const hydae_example *ex,
                                const hy_lang_experiment *experiment);

#endif
