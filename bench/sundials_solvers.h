/*
** The SUNDIALS side of the benchmarks (SUNDIALS 6.x): IDA, CVODE (BDF with
** a dense direct linear solver, Adams with fixed-point iteration) and
** ARKODE's ERKStep with the Dormand-Prince 5(4) table, each behind a
** bench_solver, calling the bench_case's own functions through thin
** adapters that only unwrap the N_Vectors.
*/
#ifndef HY_BENCH_SUNDIALS_SOLVERS_H
#define HY_BENCH_SUNDIALS_SOLVERS_H

#include "bench.h"

#include <sundials/sundials_context.h>

/* The SUNContext shared by all runs: open once before the first run,
** close after the last. bench_sundials_open returns 0 on success. */
int bench_sundials_open(void);
void bench_sundials_close(void);
/* That context, for programs that drive SUNDIALS themselves (bench_mech). */
SUNContext bench_sundials_context(void);
/* "6.4.1" */
const char *bench_sundials_version(void);

/* IDA on dae.res (analytic dae.jac unless run->analytic_jac is 0, then
** IDA's difference quotients), dense LU, IDASetId from dae.is_algebraic
** (suppressalg off), max order run->max_order (0: IDA's 5). */
extern const bench_solver bench_ida;
/* CVODE BDF on dae.rhs, df/dy = -(dae.jac with cj = 0), dense LU, max
** order run->max_order (0: CVODE's 5). */
extern const bench_solver bench_cvode_bdf;
/* CVODE Adams-Moulton on dae.rhs with the fixed-point nonlinear solver
** (no Jacobian), max order run->max_order (0: CVODE's 12). */
extern const bench_solver bench_cvode_adams;
/* ARKODE ERKStep, table ARKODE_DORMAND_PRINCE_7_4_5, default adaptivity. */
extern const bench_solver bench_arkode_dp5;

#endif
