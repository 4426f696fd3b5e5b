/*
** CSV result sink: a header of column names (time first), one line per
** row, empty cells where a variable has no value, and on failure a last
** line "# hydae: stopped early at t = ...: <reason>".
*/
#ifndef HY_CSV_H
#define HY_CSV_H

#include "hydae.h"

#include <stdio.h>

typedef struct hy_csv hy_csv;

hy_csv *hy_csv_create(FILE *out);
int hy_csv_begin(void *csv, const hydae_model *m);
int hy_csv_row(void *csv, hydae_row_kind kind, double t, const double *values);
void hy_csv_finish(void *csv, int status, double t, const char *message);
void hy_csv_release(void *csv);

#endif
