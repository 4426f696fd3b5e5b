/*
** The SUNDIALS side of the sparse benchmark (bench_sparse): CVODE BDF and
** IDA on an sp_problem (sparse_problems.h) with a band (SUNBandMatrix +
** SUNLinSol_Band) or sparse (SUNSparseMatrix CSC + SUNLinSol_KLU) matrix
** and an analytic Jacobian: df/dy for CVODE (which forms I - gamma J
** itself), cj I - df/dy for IDA on the residual F = y' - f(t, y). Scalar
** rtol and atol, SUNDIALS' defaults otherwise (maximum order 5, automatic
** first step, no maximum step), one call in NORMAL mode with the stop time
** t_end.
*/
#ifndef HY_BENCH_SPARSE_SUNDIALS_H
#define HY_BENCH_SPARSE_SUNDIALS_H

#include "sparse_problems.h"

#include <sundials/sundials_context.h>

typedef enum sp_method { SP_CVODE, SP_IDA } sp_method;
typedef enum sp_matrix { SP_BAND, SP_KLU } sp_matrix;

/* One run's counters (SUNDIALS' or hydae's). */
typedef struct sp_counters {
    long n_steps;               /* accepted steps */
    long n_f_evals;             /* f or F evaluations (+ FD ones: none here) */
    long n_jac_evals;
    long n_lu;                  /* factorisations (linear solver setups) */
    long n_nl_iters;            /* Newton iterations; -1: not available */
    long n_err_fails;           /* error test failures; -1: not available */
    long n_conv_fails;          /* convergence failures; -1: not available */
    long n_rejected;            /* err + conv failures */
} sp_counters;

/* Integrate p from t0 to t_end; y(t_end) into y_out (p->n values).
** Returns 0 on success, else the SUNDIALS flag (< 0) with why[] saying
** where. The counters are stored either way. */
int sp_sundials_solve(SUNContext ctx, const sp_problem *p, sp_method method, sp_matrix matrix,
                      double rtol, double atol, double *y_out, sp_counters *out, char *why,
                      size_t why_size);

#endif
