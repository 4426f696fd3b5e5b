/*
** Reading a CSV result file written by hydae (hydae_sim_add_csv or
** hydae_sim_add_csv_vars) back into a result table, for `hydae plot`.
*/
#ifndef HY_CSVREAD_H
#define HY_CSVREAD_H

#include "results.h"

#include <stdio.h>

/* Read the whole stream into r (initialised, empty). The header's first
** cell must be "time"; columns named "mode(...)" hold mode names; an
** empty cell is NaN; a line "# hydae: stopped early at t = T: reason"
** marks a failed run; a line "#unit,U1,..." between the header and the
** first row gives the columns' units (hydae_sim_add_csv_units); other
** lines starting with '#' are skipped. Rows are
** told apart by their times: at a time given by several rows in a row,
** the first is the left limit of an event and the second its right limit.
** A last row without a line end (the file was cut while being written) is
** left out, with a note in err and the table marked as stopped early.
** 0 (err "" or that note), or HYDAE_ERR_ARG with "name:line: what is wrong" in err, or
** HYDAE_ERR_NOMEM. */
int hy_csv_read(hy_results *r, FILE *in, const char *name, char *err, size_t err_size);

#endif
