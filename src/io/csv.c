/*
** CSV result sink. Numbers are written with 17 significant digits so that
** a double read back is the double written.
*/
#include "csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct hy_csv {
    FILE *out;
    int n_columns;
};

hy_csv *hy_csv_create(FILE *out)
{
    hy_csv *csv = calloc(1, sizeof *csv);
    if (csv)
        csv->out = out;
    return csv;
}

/* A name is quoted when it holds a comma, a quote or a line break. */
static void write_name(FILE *out, const char *name)
{
    if (!strpbrk(name, ",\"\n\r")) {
        fputs(name, out);
        return;
    }
    fputc('"', out);
    for (const char *c = name; *c; c++) {
        if (*c == '"')
            fputc('"', out);
        fputc(*c, out);
    }
    fputc('"', out);
}

int hy_csv_begin(void *user, const hydae_model *m)
{
    hy_csv *csv = user;
    csv->n_columns = hydae_model_n_columns(m);
    fputs("time", csv->out);
    for (int c = 0; c < csv->n_columns; c++) {
        fputc(',', csv->out);
        write_name(csv->out, hydae_model_column_name(m, c));
    }
    fputc('\n', csv->out);
    return ferror(csv->out) ? -1 : 0;
}

int hy_csv_row(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)kind;
    hy_csv *csv = user;
    fprintf(csv->out, "%.17g", t);
    for (int c = 0; c < csv->n_columns; c++) {
        if (isnan(values[c]))
            fputc(',', csv->out);
        else
            fprintf(csv->out, ",%.17g", values[c]);
    }
    fputc('\n', csv->out);
    return ferror(csv->out) ? -1 : 0;
}

void hy_csv_finish(void *user, int status, double t, const char *message)
{
    hy_csv *csv = user;
    if (status != 0) {
        fprintf(csv->out, "# hydae: stopped early at t = %.17g: ", t);
        for (const char *c = message; *c; c++)
            fputc(*c == '\n' ? ' ' : *c, csv->out);
        fputc('\n', csv->out);
    }
    fflush(csv->out);
}

void hy_csv_release(void *user)
{
    free(user);
}
