/*
** Result columns chosen by name, shared by the writers of io/ (CSV with a
** selection, MAT files, plots). A column is one of
**   - a result column of the model (discrete variable, variable, output),
**   - a parameter (its value at each row: actions may change it),
**   - "mode(CHART)": the active mode of a chart, as its index in the chart
**     (0-based here; the MAT file shows it 1-based).
** Rows are converted with hy_columns_extract, which gives parameters and
** modes their left-limit value on a left-limit row (the engine emits that
** row after the discrete phase, when they already hold the new values).
*/
#ifndef HY_COLUMNS_H
#define HY_COLUMNS_H

#include "sinks.h"
#include "model/model.h"

#include <stddef.h>

typedef enum hy_column_kind {
    HY_COLUMN_RESULT, /* index: result column of the model */
    HY_COLUMN_PARAM,  /* index: global (parameter) of the model */
    HY_COLUMN_MODE    /* index: chart */
} hy_column_kind;

typedef struct hy_column {
    hy_column_kind kind;
    int index;
    const char *name; /* the model's, or the columns' mode_name */
} hy_column;

typedef struct hy_columns {
    const hydae_sim *sim;
    int n, cap;
    hy_column *items;
    double *last; /* values of the previous row, n of them (cap allocated) */
    /* Position of each (kind, index) chosen, -1 if not: find in O(1). */
    int *position[3];
    int n_index[3];
    char **mode_name; /* per chart, "mode(CHART)" once chosen (owned) */
} hy_columns;

void hy_columns_init(hy_columns *cols, const hydae_sim *s);
void hy_columns_free(hy_columns *cols);

/* Add a column by name: a result column, a parameter or "mode(CHART)".
** Returns its position (the existing one if it is already chosen), or
** HYDAE_ERR_ARG with a message on the sim naming it and listing the names
** there are, or HYDAE_ERR_NOMEM. "time" is not a column (it is always
** written first): it gives HYDAE_ERR_ARG too; see hy_columns_add_list. */
int hy_columns_add_name(hy_columns *cols, hydae_sim *s, const char *name);
/* A comma-separated list of names (spaces around names ignored, "time"
** skipped). 0 or a negative status as above; an empty name is an error. */
int hy_columns_add_list(hy_columns *cols, hydae_sim *s, const char *list);
/* Every result column / every parameter / every chart's mode, those not
** chosen yet, in model order. 0 or HYDAE_ERR_NOMEM. */
int hy_columns_add_results(hy_columns *cols);
int hy_columns_add_params(hy_columns *cols);
int hy_columns_add_modes(hy_columns *cols);

/* A writer's hydae_sim_add_* returning status: out of memory puts "out of
** memory adding <what>" on the sim (the message the API promises). */
int hy_sink_status(hydae_sim *s, int status, const char *what);

/* At the start of a run (from a sink's begin): parameters' and modes'
** starting values become the left limit of a first event at t0. */
void hy_columns_begin(hy_columns *cols);
/* The chosen columns of one row (values: the row as the engine gives it). */
void hy_columns_extract(hy_columns *cols, hydae_row_kind kind, const double *values,
                        double *out);

/* What a column is, for the MAT file's description matrix, as OpenModelica
** writes it: "comment [unit]" ("angle from the downward vertical [rad]").
** The comment is the description given to the column's name, else its
** role: "parameter", "discrete variable", "variable in free; output in
** bound", "active mode of chart 'thread': 1 bound, 2 free"; " [unit]"
** when it has a unit. Truncated to size. */
void hy_columns_describe(const hy_columns *cols, int i, char *buf, size_t size);
/* A column's unit ("" if none). */
const char *hy_columns_unit(const hy_columns *cols, int i);
/* Number of modes of a mode column's chart and the name of mode k. */
int hy_columns_n_modes(const hy_columns *cols, int i);
const char *hy_columns_mode_name(const hy_columns *cols, int i, int k);

/* csvcols.c: a CSV cell, quoted (its quotes doubled) when it holds a
** comma, a quote or a line break (also hydae sweep's table). */
void hy_csv_write_text(FILE *out, const char *text);

#endif
