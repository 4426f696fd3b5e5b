/*
** Benchmark problems from the Test Set for IVP Solvers (F. Mazzia and
** C. Magherini, release 2.4, 2008), posed as DAEs F(t, y, y') = 0 in the
** hydae residual convention (src/integrators/integrator.h). The same
** residual and Jacobian functions are called by both solvers of the
** benchmark: hydae directly, SUNDIALS IDA through a thin N_Vector adapter.
*/
#ifndef HY_BENCH_PROBLEMS_H
#define HY_BENCH_PROBLEMS_H

#include "integrators/integrator.h"

#define BENCH_MAX_N 8

typedef struct bench_problem {
    const char *name;        /* short name used in the tables ("rober") */
    const char *title;       /* long name */
    int n;
    double t0, t_end;
    double y0[BENCH_MAX_N];  /* consistent initial values */
    double yp0[BENCH_MAX_N]; /* consistent initial derivatives */
    double yref[BENCH_MAX_N];/* reference solution at t_end */
    unsigned char is_algebraic[BENCH_MAX_N];
    hy_res_fn res;
    hy_jac_fn jac;           /* analytic dF/dy + cj dF/dy', column-major */
} bench_problem;

/* Number of problems and the i-th one (0-based); NULL when out of range. */
int bench_problem_count(void);
const bench_problem *bench_problem_get(int i);

#endif
