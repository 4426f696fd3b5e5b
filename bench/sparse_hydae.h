/*
** The hydae side of the sparse benchmark (bench_sparse), two ways in:
**
**   - an sp_problem (sparse_problems.h) through an integrator's descriptor
**     directly (as bench_suite drives hydae), with the problem's pattern
**     in hy_dae.pattern (hy_pattern_create) and its analytic Jacobian
**     through hy_dae.jac_matrix, into whatever matrix the linear solver
**     wants (MEDAKZO);
**   - the Brusselator example through the public API
**     (example_brusselator_sized, hydae_sim_*), as a user runs it: its
**     pattern and analytic sparse Jacobian given by
**     hydae_mode_set_jacobian_pattern / hydae_mode_set_sparse_jacobian, the
**     solver chosen by the setting linear_solver.
*/
#ifndef HY_BENCH_SPARSE_HYDAE_H
#define HY_BENCH_SPARSE_HYDAE_H

#include "integrators/integrator.h"
#include "sparse_sundials.h"

/* Integrate p with ops (DSTIFF on F = y' - f, VSTIFF on f) and the linear
** solver linear_solver ("auto", "dense", "band", "klu"); y(t_end) into
** y_out. 0, or a negative hy code with why[] saying where. */
int sp_hydae_ops_solve(const hy_integrator_ops *ops, const sp_problem *p,
                       const char *linear_solver, double rtol, double atol, double *y_out,
                       sp_counters *out, char *why, size_t why_size);

/* Where a public-API run's time and memory go. */
typedef struct sp_phases {
    double cpu_build;           /* example_brusselator_sized, s */
    double cpu_solve;           /* hydae_sim_create .. hydae_sim_free, s */
    long rss_build_kb;          /* peak resident set after building the model */
    long rss_create_kb;         /* ... after hydae_sim_create */
} sp_phases;

/* The Brusselator of size m through the public API with the integrator
** and linear_solver named; y(10) into y_out (2m values). 0, or a hydae
** status with why[] holding hydae_sim_errmsg. */
int sp_hydae_brusselator_solve(long m, const char *integrator, const char *linear_solver,
                               double rtol, double atol, double *y_out, sp_counters *out,
                               sp_phases *phases, char *why, size_t why_size);

/* Process CPU time (CLOCK_PROCESS_CPUTIME_ID), seconds. */
double sp_cpu_seconds(void);

#endif
