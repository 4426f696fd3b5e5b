/*
** `hydae sweep` across MPI ranks (sweep_mpi.c), over the library's sweep
** engine (src/sweep/): rank 0 hands out runs (its own threads take them
** from its counter directly) and writes the table; the other ranks'
** threads ask it for chunks of runs and send it their rows with the
** next request. Without MPI
** (or not launched by mpirun), one rank.
*/
#ifndef HY_CLI_SWEEP_H
#define HY_CLI_SWEEP_H

#include "sweep/sweep.h"

/* MPI started when run by mpirun: sw->rank, sw->n_ranks and sw->hooks
** set. Call after hydae_sweep_prepare. 0, or -1 with a message. */
int sweep_mpi_start(hydae_sweep *sw);
void sweep_mpi_end(hydae_sweep *sw, int abort_all);

#endif
