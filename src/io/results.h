/*
** An in-memory result table: time, the kind of each row (grid, left or
** right limit at an event, step) and chosen columns, with the active mode
** of charts as columns whose values index a list of mode names. Filled
** from a run (hy_recorder, used by the MAT writer and the plot) or from a
** CSV file (csvread.h, for `hydae plot`).
*/
#ifndef HY_RESULTS_H
#define HY_RESULTS_H

#include "columns.h"
#include "core/strmap.h"

typedef struct hy_result_var {
    char *name;
    char *description; /* "" if none */
    char *unit;        /* "" if none */
    int is_param;      /* a parameter: changes only at events, if at all */
    int is_mode;       /* values are indices into labels (NaN: unknown) */
    int varies;        /* not the same value in every row */
    int n_labels, cap_labels;
    char **labels;     /* mode names */
    hy_strmap label_index; /* mode name -> its index in labels */
} hy_result_var;

typedef struct hy_results {
    char *title;       /* model or file name; "" if none */
    int n_vars, cap_vars;
    hy_result_var *vars;
    long n_rows, cap_rows;
    double *t;
    unsigned char *kind; /* hydae_row_kind of each row */
    double *values;      /* n_rows x n_vars, row after row */
    int is_sweep_table;  /* a sweep's table (hydae sweep): t is the run's number */
    int stopped_early;   /* the run failed at t_stopped */
    double t_stopped;
    char stop_message[1024]; /* why (a copy of the sim's message): kept
                             ** without allocating, so that a run that ran out
                             ** of memory is still marked as stopped early */
} hy_results;

void hy_results_init(hy_results *r);
void hy_results_free(hy_results *r);
/* Drop the rows and the stop note, keep the columns. */
void hy_results_clear_rows(hy_results *r);
/* 0 or HYDAE_ERR_NOMEM. */
int hy_results_set_title(hy_results *r, const char *title);
/* A column (before any row); its index, or a negative status. */
int hy_results_add_var(hy_results *r, const char *name, const char *description, int is_param,
                       int is_mode);
/* Set a column's unit. 0 or HYDAE_ERR_NOMEM. */
int hy_results_set_unit(hy_results *r, int var, const char *unit);
/* The index of a mode name of a mode column, added if new; < 0 if out of
** memory. */
int hy_results_label(hy_results *r, int var, const char *label);
/* One row (values: n_vars of them). 0 or HYDAE_ERR_NOMEM. */
int hy_results_append(hy_results *r, hydae_row_kind kind, double t, const double *values);
/* Record that the run stopped early (the message truncated to fit). */
void hy_results_set_stop(hy_results *r, double t, const char *message);
/* Row kinds of a table read from a file: at a time given by several rows
** in a row, the first is an event's left limit, the second its right limit;
** every other row a grid row. */
void hy_results_infer_kinds(hy_results *r);
/* The column called name, or -1. */
int hy_results_find(const hy_results *r, const char *name);

static inline double hy_results_value(const hy_results *r, long row, int var)
{
    return r->values[row * r->n_vars + var];
}

/* A table filled by a run: the columns chosen (hy_columns_add_*), then
** hy_recorder_prepare, then begin / row / finish from a sink. */
typedef struct hy_recorder {
    hy_columns cols;
    hy_results res;
    double *row; /* one row of the chosen columns */
} hy_recorder;

void hy_recorder_init(hy_recorder *rec, const hydae_sim *s);
void hy_recorder_free(hy_recorder *rec);
/* The table's columns from the chosen ones (names, descriptions, mode
** names). 0 or HYDAE_ERR_NOMEM. */
int hy_recorder_prepare(hy_recorder *rec);
/* Sink steps: begin clears the rows; row appends one (HYDAE_ERR_NOMEM if out of
** memory); finish notes a failure. */
int hy_recorder_begin(hy_recorder *rec);
int hy_recorder_row(hy_recorder *rec, hydae_row_kind kind, double t, const double *values);
void hy_recorder_finish(hy_recorder *rec, int status, double t, const char *message);

#endif
