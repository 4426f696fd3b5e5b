/*
** Registering result sinks with their whole contract (begin, row, finish,
** release, writes_file; see hy_sink in sim/sim.h) from outside sim/, for
** the writers of io/ (MAT files, plots, the progress bar).
*/
#ifndef HY_SINKS_H
#define HY_SINKS_H

#include "sim/sim.h"

/* Append a sink to the sim's list. 0, or HYDAE_ERR_NOMEM (the caller
** keeps ownership of sink->user and releases it). */
int hy_sim_add_sink(hydae_sim *s, const hy_sink *sink);

#endif
