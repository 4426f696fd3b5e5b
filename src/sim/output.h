/*
** The simulator's output part (output.c): its sinks, the row buffers and
** the output grid of a run.
*/
#ifndef HY_OUTPUT_H
#define HY_OUTPUT_H

#include "io/sinks.h"

typedef struct hy_output {
    hy_sink_set sinks;
    double *row;                /* one value per result column */
    double *row_left;           /* the left limit at an event */
    long k_out, n_out;          /* next grid index, index of t_end */
    double dt_grid;             /* output interval in effect for a run */
} hy_output;

/* Row buffers for the model's result columns: 0 or HYDAE_ERR_NOMEM. */
int hy_output_reserve(hy_output *out, const hydae_model *m);
/* Releases the sinks too. */
void hy_output_free(hy_output *out);

#endif
