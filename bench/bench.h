/*
** Shared pieces of the benchmark programs (bench_suite, bench_dstiff_ida):
** a problem as both solvers of a pairing see it (bench_case), one run's
** settings (bench_run) and outcome (bench_result), a solver behind one
** function pointer (bench_solver: a hydae descriptor or a SUNDIALS
** package, see sundials_solvers.h), CPU timing, scd scoring and the
** statistics used for the ratios (median, interpolation of a
** work-precision curve).
*/
#ifndef HY_BENCH_H
#define HY_BENCH_H

#include "integrators/integrator.h"

#define BENCH_CASE_MAX_N 28     /* Pleiades */
#define BENCH_STEP_LIMIT 50000000L

struct bench_case;

/* Accuracy of y(t_end) in significant correct digits (see the score
** functions below); +inf for an exact match, -inf for NaN. */
typedef double (*bench_score_fn)(const struct bench_case *bc, const double *y,
                                 double rtol, double atol);

/* A problem. Every solver calls the functions in dae: the residual
** dae.res (DSTIFF, IDA), the explicit right-hand side dae.rhs (ODE
** methods, CVODE, ARKODE; NULL for a DAE), and the analytic Jacobian
** dae.jac = dF/dy + cj dF/dy' (DAE methods as is; ODE methods take
** df/dy = -(dae.jac with cj = 0); NULL if the problem has none), always
** with dae.ctx. */
typedef struct bench_case {
    const char *name;           /* "HIRES" */
    const char *title;          /* "High Irradiance RESponse, ODE n = 8" */
    hy_dae dae;
    double t0, t_end;
    const double *y0;
    const double *yp0;          /* consistent y'(t0) */
    const double *y_ref;        /* reference y(t_end) */
    /* atol = atol_per_rtol * rtol, or atol_fixed when that is > 0. */
    double atol_per_rtol;
    double atol_fixed;
    bench_score_fn score;
    const void *score_ctx;      /* for score functions that need one */
} bench_case;

double bench_case_atol(const bench_case *bc, double rtol);

/* scd = -log10(max_i |y_i - yref_i| / |yref_i|) (the test set's
** "significant correct digits", report sec. II.4). */
double bench_scd_relative(const bench_case *bc, const double *y, double rtol,
                          double atol);
/* Mixed: -log10(max_i |y_i - yref_i| / (atol/rtol + |yref_i|)), the
** test set's mescd, for references with zero components. */
double bench_scd_mixed(const bench_case *bc, const double *y, double rtol,
                       double atol);

/* One run's settings. */
typedef struct bench_run {
    const bench_case *bc;
    double rtol, atol;          /* scalar tolerances */
    int analytic_jac;           /* 0: finite-difference Jacobian */
    int max_order;              /* 0: the method's own largest */
} bench_run;

/* One run's outcome: solution and counters of the first run, mean CPU
** time over the repetitions. */
typedef struct bench_result {
    int ok;                     /* reached t_end */
    char status[64];
    double y[BENCH_CASE_MAX_N];
    double scd;
    double cpu_ms;
    long reps;
    long n_steps;               /* accepted steps */
    long n_f_evals;             /* f or F evaluations, FD Jacobians included */
    long n_jac_evals;
    long n_lu;                  /* LU factorisations */
    long n_err_fails;           /* error test failures */
    long n_conv_fails;          /* nonlinear solver convergence failures */
    long n_nl_iters;            /* nonlinear (Newton/fixed point) iterations */
} bench_result;

struct bench_solver;
/* One complete run (create, integrate to t_end, free). With out != NULL
** the solution, status and counters are stored; out == NULL is a timing
** repetition. Returns 1 if t_end was reached. */
typedef int (*bench_solve_fn)(const struct bench_solver *solver,
                              const bench_run *run, bench_result *out);

typedef struct bench_solver {
    const char *name;           /* "DSTIFF", "CVODE-BDF" */
    bench_solve_fn solve;
    const hy_integrator_ops *ops;   /* hydae solvers; NULL for SUNDIALS */
} bench_solver;

/* The hydae side: ops driven with step(mem, t_end, &t) until t == t_end,
** then dense(mem, t_end, y). */
int bench_hydae_solve(const bench_solver *solver, const bench_run *run,
                      bench_result *out);
bench_solver bench_hydae_solver(const hy_integrator_ops *ops);
/* The name of a hydae return code ("HYDAE_ERR_CONV"). */
const char *bench_hydae_code_name(int rc);

/* Process CPU time (CLOCK_PROCESS_CPUTIME_ID), seconds. */
double bench_cpu_seconds(void);

/* A first run gives the solution, scd and counters; then the run is
** repeated until the repetitions' CPU time exceeds min_time, and cpu_ms
** is their mean (a first run longer than min_time counts alone). */
void bench_measure(const bench_solver *solver, const bench_run *run,
                   double min_time, bench_result *out);

/* a / b, NaN unless b > 0. */
double bench_ratio(double a, double b);
/* Median of v[0..n-1] (sorts v); NaN for n = 0. */
double bench_median(double *v, int n);

/* A work-precision curve: log(work) at points of increasing scd. */
#define BENCH_CURVE_MAX 16
typedef struct bench_curve {
    int n;
    double scd[BENCH_CURVE_MAX];
    double log_work[BENCH_CURVE_MAX];
} bench_curve;

/* Adds a point (ignored if scd or work is not finite and positive),
** keeping the points sorted by scd. */
void bench_curve_add(bench_curve *c, double scd, double work);

/* How bench_curve_work_at continues a curve outside its scd range. */
typedef enum bench_extrapolation {
    /* The line through the two end points on that side. */
    BENCH_EXTRAP_END_SEGMENT,
    /* From the end point, with the least-squares slope of log(work) vs
    ** scd over all points (0 if that slope is negative): robust against a
    ** last segment made steep or flat by an scd that stalls. */
    BENCH_EXTRAP_FITTED_SLOPE
} bench_extrapolation;

/* Work at scd x: piecewise linear in log(work) through the points;
** outside their range extrapolated as `how` says, with *extrapolated set.
** NaN for an empty curve. */
double bench_curve_work_at(const bench_curve *c, double x,
                           bench_extrapolation how, int *extrapolated);

#endif
