/*
** Reading a Modelica result file written by hydae (hydae_sim_add_mat: MAT
** v4, "binTrans", the matrices Aclass, name, description, dataInfo, data_1,
** data_2 and hydae_status) back into a result table, for `hydae plot`.
*/
#ifndef HY_MATREAD_H
#define HY_MATREAD_H

#include "results.h"

#include <stdio.h>

/* Read the whole stream into r (initialised, empty): one column per
** variable after time, the unit from a description ending in "[unit]",
** mode columns ("mode(CHART)") with the mode names their description lists;
** a parameter of data_1 holds its value in every row; hydae_status marks a
** failed run. Both byte orders. 0, or HYDAE_ERR_ARG with "name: what is
** wrong" in err (not a MAT v4 file, a matrix missing, out of order or of
** the wrong shape, dataInfo pointing outside its block, time going back),
** or HYDAE_ERR_NOMEM. Allocation follows the bytes actually read, so a
** header announcing a huge matrix in a short file costs nothing. */
int hy_mat_read(hy_results *r, FILE *in, const char *name, char *err, size_t err_size);

#endif
