/*
** `hydae sweep`: the plan of a parameter study (sweep_plan.c: grids,
** samples, measures) and its driver (sweep.c: runs on threads, the table).
*/
#ifndef HY_CLI_SWEEP_H
#define HY_CLI_SWEEP_H

#include "hydae.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

enum { SWEEP_MAX_PARAMS = 32, SWEEP_NAME_CAP = 128 };

typedef enum sweep_dist_kind { SWEEP_UNIFORM, SWEEP_NORMAL } sweep_dist_kind;

/* A parameter of the study: a grid axis (values) or a distribution. */
typedef struct sweep_param {
    char name[SWEEP_NAME_CAP];
    int n_values;            /* grid: its values */
    double *values;
    sweep_dist_kind dist;    /* sampled: uniform(a, b) or normal(a = mean, b = sd) */
    double a, b;
    long *lhs_stratum;       /* --lhs: run i's stratum, a permutation of 0..n-1 */
} sweep_param;

typedef enum sweep_measure_kind {
    SWEEP_FINAL, SWEEP_MAX, SWEEP_MIN, SWEEP_INTEGRAL, SWEEP_COUNT, SWEEP_FIRST
} sweep_measure_kind;

typedef struct sweep_measure {
    sweep_measure_kind kind;
    char label[SWEEP_NAME_CAP + 16]; /* as given: "max(x)" */
    char name[SWEEP_NAME_CAP];       /* a result column or a transition */
    int column;                      /* of a column's measure */
} sweep_measure;

typedef struct sweep_plan {
    int n_params;
    sweep_param params[SWEEP_MAX_PARAMS];
    int sampled;             /* --sample: params are distributions */
    long n_runs;
    uint64_t seed;
    int lhs;
    int n_measures;
    sweep_measure *measures;
} sweep_plan;

enum { SWEEP_MAX_THREADS = 256, SWEEP_STATUS_CAP = 512 };

/* What a run gives the table. */
typedef struct sweep_row {
    int done;                /* finished (or failed); interrupted runs are not */
    int failed;
    double *measures;
    char status[SWEEP_STATUS_CAP];
    long steps;
    double wall;
} sweep_row;

/* The driver's state (sweep.c). */
typedef struct sweep {
    hydae_model *model;
    sweep_plan plan;
    int n_threads;
    int rank, n_ranks;       /* MPI (sweep_mpi.c): 0 and 1 without it */
    sweep_row *rows;
    double *measure_values;  /* n_runs x n_measures */
    atomic_long next_run;
    atomic_int stopping;
    pthread_mutex_t lock;
    pthread_cond_t finished;
    hydae_sim *running[SWEEP_MAX_THREADS]; /* under lock: to interrupt them */
    long n_done, n_failed;
} sweep;

/* sweep_mpi.c, MPI between ranks (a build with MPI, run under mpirun;
** otherwise one rank). Rank 0 hands out runs (its own threads take them
** from next_run directly) and writes the table; the other ranks' threads
** ask it for their next run and send it their rows. */
/* MPI started when run by mpirun: sw->rank, sw->n_ranks. 0, or -1. */
int sweep_mpi_start(sweep *sw);
void sweep_mpi_end(sweep *sw, int abort_all);
/* A rank > 0's next run, or -1 when there are none left. */
long sweep_mpi_take(sweep *sw);
/* A rank > 0: run i's row to rank 0. */
void sweep_mpi_send_row(sweep *sw, long i);
/* Rank 0, under sw->lock: answer what the other ranks sent (their rows
** marked done). The number of ranks told there are no runs left. */
int sweep_mpi_serve(sweep *sw);

/* --grid NAME=START:STEP:STOP or NAME=V1,V2,...: 0, or -1 with a message
** on stderr. */
int sweep_add_grid(sweep_plan *plan, const char *spec);
/* --dist NAME=normal(MEAN,SD) or NAME=uniform(LOW,HIGH). */
int sweep_add_dist(sweep_plan *plan, const char *spec);
/* --measure M (comma-separated list allowed), checked against the model's
** columns and transitions. */
int sweep_add_measures(sweep_plan *plan, const hydae_model *model, const char *spec);
/* Final values of every result column (no --measure given). */
int sweep_default_measures(sweep_plan *plan, const hydae_model *model);
/* After the options: the number of runs and the Latin hypercube strata.
** 0, or -1 with a message. */
int sweep_plan_finish(sweep_plan *plan);
void sweep_plan_free(sweep_plan *plan);
/* The parameter values of run i (n_params of them). */
void sweep_run_values(const sweep_plan *plan, long i, double *values);

#endif
