/*
** CSV result sink with chosen columns (hydae_sim_add_csv_vars; with every
** column it is hydae_sim_add_csv): a header, numbers with 17 significant
** digits, empty cells where a variable has no value, a last line
** "# hydae: stopped early at t = ...: <reason>" on failure - over the
** columns of a selection (columns.h), where a mode column holds the
** mode's name.
*/
#include "columns.h"
#include "sinks.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct csv_cols {
    hy_columns cols;
    FILE *out;
    double *row;
    int with_units; /* a units line after the header */
} csv_cols;

void hy_csv_write_text(FILE *out, const char *text)
{
    if (!strpbrk(text, ",\"\n\r")) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            fputc('"', out);
        fputc(*c, out);
    }
    fputc('"', out);
}

static int csv_begin(void *user, const hydae_model *m)
{
    (void)m;
    csv_cols *csv = user;
    hy_columns_begin(&csv->cols);
    fputs("time", csv->out);
    for (int i = 0; i < csv->cols.n; i++) {
        fputc(',', csv->out);
        hy_csv_write_text(csv->out, csv->cols.items[i].name);
    }
    fputc('\n', csv->out);
    if (csv->with_units) {
        fputs("#unit", csv->out);
        for (int i = 0; i < csv->cols.n; i++) {
            fputc(',', csv->out);
            hy_csv_write_text(csv->out, hy_columns_unit(&csv->cols, i));
        }
        fputc('\n', csv->out);
    }
    return ferror(csv->out) ? -1 : 0;
}

static int csv_row(void *user, hydae_row_kind kind, double t, const double *values)
{
    csv_cols *csv = user;
    hy_columns_extract(&csv->cols, kind, values, csv->row);
    fprintf(csv->out, "%.17g", t);
    for (int i = 0; i < csv->cols.n; i++) {
        double value = csv->row[i];
        fputc(',', csv->out);
        if (isnan(value))
            continue;
        if (csv->cols.items[i].kind == HY_COLUMN_MODE) {
            const char *mode = hy_columns_mode_name(&csv->cols, i, (int)value);
            hy_csv_write_text(csv->out, mode ? mode : "?");
        } else {
            fprintf(csv->out, "%.17g", value);
        }
    }
    fputc('\n', csv->out);
    return ferror(csv->out) ? -1 : 0;
}

static int csv_finish(void *user, int status, double t, const char *message)
{
    csv_cols *csv = user;
    if (status != 0) {
        fprintf(csv->out, "# hydae: stopped early at t = %.17g: ", t);
        for (const char *c = message; *c; c++)
            fputc(*c == '\n' ? ' ' : *c, csv->out);
        fputc('\n', csv->out);
    }
    return fflush(csv->out) != 0 || ferror(csv->out);
}

static void csv_release(void *user)
{
    csv_cols *csv = user;
    hy_columns_free(&csv->cols);
    hy_free(csv->row);
    hy_free(csv);
}

static int add_csv(hydae_sim *s, FILE *out, const char *vars, int with_modes, int with_units)
{
    if (!s || !out)
        return HYDAE_ERR_ARG;
    csv_cols *csv = hy_calloc(1, sizeof *csv);
    if (!csv)
        return hy_sink_status(s, HYDAE_ERR_NOMEM, "the CSV output");
    csv->out = out;
    csv->with_units = with_units;
    hy_columns_init(&csv->cols, s);
    int status = vars ? hy_columns_add_list(&csv->cols, s, vars)
                      : hy_columns_add_results(&csv->cols);
    if (!status && with_modes)
        status = hy_columns_add_modes(&csv->cols);
    if (!status) {
        csv->row = hy_malloc(sizeof(double) * (size_t)(csv->cols.n > 0 ? csv->cols.n : 1));
        if (!csv->row)
            status = HYDAE_ERR_NOMEM;
    }
    hy_sink sink = { csv_begin, csv_row, csv_finish, csv_release, csv, 1 };
    if (!status)
        status = hy_sim_add_sink(s, &sink);
    if (status)
        csv_release(csv);
    return hy_sink_status(s, status, "the CSV output");
}

int hydae_sim_add_csv_vars(hydae_sim *s, FILE *out, const char *vars, int with_modes)
{
    return add_csv(s, out, vars, with_modes, 0);
}

int hydae_sim_add_csv_units(hydae_sim *s, FILE *out, const char *vars, int with_modes)
{
    return add_csv(s, out, vars, with_modes, 1);
}
