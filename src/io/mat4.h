/*
** Modelica result files in MATLAB level 4 format, laid out as Dymola and
** OpenModelica write them ("Atrajectory" 1.1, binTrans). See mat4.c for
** the layout and its sources.
*/
#ifndef HY_MAT4_H
#define HY_MAT4_H

#include "results.h"

#include <stdio.h>

/* Write the table as a result file. Parameter columns that hold one value
** in every row go to data_1, the other columns to data_2. When the table
** has no rows (a run that failed at its start), data_1 gets t_empty as
** time and the parameters' values from empty_values (one per column; NULL:
** NaN). row_buffer has room for one row. 0, or HYDAE_ERR_IO (the stream's
** error), or HYDAE_ERR_ARG for a table too large for the format. Nothing
** is allocated. (The sink of hydae_sim_add_mat spools its rows to a
** temporary file instead of keeping them in a table, and writes the same
** file from it.) */
int hy_mat4_write(FILE *out, const hy_results *r, double t_empty, const double *empty_values,
                  double *row_buffer);

/* One matrix's header (then its elements, column after column, follow):
** type HY_MAT4_DOUBLE or HY_MAT4_TEXT (uint8 text) in the host's byte
** order, mrows x ncols, its name. For other tables than a run's results
** (hydae_sweep_write_mat). */
enum { HY_MAT4_DOUBLE = 0, HY_MAT4_TEXT = 51 };
void hy_mat4_write_header(FILE *out, int type, long mrows, long ncols, const char *name);

#endif
