/*
** Parameter studies (the public hydae_sweep_* of hydae.h, docs/sweep.md):
** the plan (plan.c: grids, samples, measures), the runs on threads
** (run.c: each thread one sim of the shared model, reused from run to run)
** and the table (table.c: CSV and MAT v4). `hydae sweep` (src/cli/sweep.c)
** is a user of this, adding MPI between processes (src/cli/sweep_mpi.c)
** through the hooks below.
*/
#ifndef HY_SWEEP_H
#define HY_SWEEP_H

#include "hydae.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

enum { SWEEP_MAX_PARAMS = 32, SWEEP_NAME_CAP = 128, SWEEP_MAX_THREADS = 256,
       SWEEP_STATUS_CAP = 512, SWEEP_ERR_CAP = 1024, SWEEP_MAX_OPTIONS = 64 };

typedef enum sweep_dist_kind { SWEEP_UNIFORM, SWEEP_NORMAL } sweep_dist_kind;

/* A parameter of the study: a grid axis (values) or a distribution. */
typedef struct sweep_param {
    char name[SWEEP_NAME_CAP];
    int n_values;            /* grid: its values */
    double *values;
    sweep_dist_kind dist;    /* sampled: uniform(a, b) or normal(a = mean, b = sd) */
    double a, b;
    long *lhs_stratum;       /* Latin hypercube: run i's stratum, a permutation of 0..n-1 */
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

/* Plan functions returning -1 leave their message in errmsg (no prefix). */
typedef struct sweep_plan {
    int n_params;
    sweep_param params[SWEEP_MAX_PARAMS];
    int sampled;             /* samples: params are distributions */
    long n_runs;
    uint64_t seed;
    int lhs;
    int n_measures;
    sweep_measure *measures;
    char errmsg[SWEEP_ERR_CAP];
} sweep_plan;

/* What a run gives the table. */
typedef struct sweep_row {
    int done;                /* finished (or failed); interrupted runs are not */
    int failed;
    double *measures;
    char status[SWEEP_STATUS_CAP];
    long steps;
    double wall;
} sweep_row;

/* Between processes (src/cli/sweep_mpi.c); all NULL in one process. */
typedef struct sweep_hooks {
    void *user;
    /* A rank > 0: its next run, or -1 when there are none left. */
    long (*take)(hydae_sweep *sw);
    /* A rank > 0: run i is done (its row goes to rank 0). */
    void (*row_done)(hydae_sweep *sw, long i);
    /* Rank 0, under sw->lock: answer the other ranks (their rows marked
    ** done); the number of ranks told there are no runs left. */
    int (*serve)(hydae_sweep *sw);
} sweep_hooks;

struct hydae_sweep {
    hydae_model *model;
    sweep_plan plan;
    int prepared;            /* plan finished and checked */
    int n_threads;           /* 0: every core */
    int n_options;
    char *option_names[SWEEP_MAX_OPTIONS], *option_values[SWEEP_MAX_OPTIONS];
    char *runs_dir;          /* a result file per run there, or NULL */
    int runs_mat;            /* ... as MAT (1) or CSV (0) */
    int rank, n_ranks;       /* MPI: 0 and 1 without it */
    sweep_hooks hooks;
    sweep_row *rows;
    double *measure_values;  /* n_runs x n_measures */
    atomic_long next_run;
    atomic_int stopping;
    atomic_int interrupt_requested; /* hydae_sweep_interrupt (lock-free: signal-safe) */
    int ran;                 /* hydae_sweep_run was called */
    int stopped;             /* ... and stopped before every run was done */
    int n_started_threads;
    pthread_mutex_t lock;
    pthread_cond_t finished;
    hydae_sim *running[SWEEP_MAX_THREADS]; /* under lock: to interrupt them */
    long n_done, n_failed, n_delivered;
    double row_params[SWEEP_MAX_PARAMS]; /* hydae_sweep_get_row's */
    char errmsg[SWEEP_ERR_CAP];
};

/* plan.c */
/* NAME=START:STEP:STOP or NAME=V1,V2,...: 0, or -1 with plan->errmsg. */
int hy_sweep_add_grid(sweep_plan *plan, const char *spec);
/* A grid axis of n values. */
int hy_sweep_add_grid_values(sweep_plan *plan, const char *name, const double *values, int n);
/* NAME=normal(MEAN,SD) or NAME=uniform(LOW,HIGH). */
int hy_sweep_add_dist(sweep_plan *plan, const char *spec);
/* M[,M...], checked against the model's columns and transitions. */
int hy_sweep_add_measures(sweep_plan *plan, const hydae_model *model, const char *spec);
/* Final values of every result column (no measure given). */
int hy_sweep_default_measures(sweep_plan *plan, const hydae_model *model);
/* The number of runs and the Latin hypercube strata: 0, or -1. */
int hy_sweep_plan_finish(sweep_plan *plan);
void hy_sweep_plan_free(sweep_plan *plan);
/* The parameter values of run i (n_params of them). */
void hy_sweep_run_values(const sweep_plan *plan, long i, double *values);

/* run.c */
/* The plan finished, the parameters checked against a sim, the rows
** allocated (once): 0 or a negative status with sw->errmsg. */
int hy_sweep_prepare(hydae_sweep *sw);
/* The runs on sw->n_threads threads; rank 0 calls fn (may be NULL) for
** each row in run order from this thread. hydae_sweep_run's status. */
int hy_sweep_execute(hydae_sweep *sw, hydae_sweep_row_fn fn, void *user);
/* Row i as the public struct (params: room for n_params). */
void hy_sweep_row_view(const hydae_sweep *sw, long i, double *params, hydae_sweep_row *out);
int hy_sweep_fail(hydae_sweep *sw, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* table.c */
void hy_sweep_csv_header(const hydae_sweep *sw, FILE *out);
void hy_sweep_csv_row(const hydae_sweep *sw, const hydae_sweep_row *row, FILE *out);

#endif
