/*
** Problems of the Test Set for IVP Solvers (F. Mazzia, C. Magherini,
** "Test Set for Initial Value Problem Solvers", release 2.4, Department of
** Mathematics, University of Bari, 2008; earlier W.M. Lioen, J.J.B. de
** Swart, CWI report MAS-R9832, 1998), for the validation of the stiff
** integrators: HIRES, POLLU, VDPOL, OREGO, ROBER and E5.
**
** Each problem is given as an explicit ODE y' = f(t, y) (for VSTIFF,
** MSTIFF) and as the residual F = y' - f with J = dF/dy + cj dF/dy' =
** -df/dy + cj I (for DSTIFF and for the ODE methods, which take df/dy =
** -(J with cj = 0)). The reference values y(t_end) are copied digit for
** digit from /work/shared/testset/reference.json.
**
** Not a library source and not a test program: test programs include
** testset.c directly (#include "validation/testset.c").
*/
#ifndef HY_TESTSET_H
#define HY_TESTSET_H

#include "integrators/integrator.h"

#define TESTSET_MAX_N 20

typedef struct testset_problem {
    const char *name;           /* as in the report: "HIRES" */
    const char *section;        /* report section, e.g. "II.1" */
    int n;
    double t0, t_end;
    const double *y0;
    const double *y_ref;        /* y(t_end), reference solution */
    hy_rhs_fn rhs;              /* f(t, y) */
    hy_jac_fn jac;              /* -df/dy + cj I */
    hy_res_fn res;              /* y' - f(t, y) */
    /* Tolerances of the report's work-precision diagrams: atol =
    ** atol_per_rtol * rtol, or atol_fixed when that is > 0. */
    double atol_per_rtol;
    double atol_fixed;
    /* 1: score with the mixed error (mescd) instead of scd (E5, whose
    ** solution components are near 0). */
    int use_mescd;
} testset_problem;

/* The problems, in the order HIRES, POLLU, VDPOL, OREGO, ROBER, E5. */
extern const testset_problem testset_problems[];
extern const int testset_n_problems;

/* The absolute tolerance the report pairs with rtol for problem p. */
double testset_atol(const testset_problem *p, double rtol);

/* Significant correct digits at t_end ([report] sec. II.4):
** scd = -log10(max_i |y_i - yref_i| / |yref_i|) over all components;
** mescd = -log10(max_i |y_i - yref_i| / (atol/rtol + |yref_i|)).
** Returns the one the problem uses (use_mescd); +inf for an exact match. */
double testset_scd(const testset_problem *p, const double *y, double rtol,
                   double atol);

/* The hy_dae of problem p (res, jac and rhs all set). */
hy_dae testset_dae(const testset_problem *p);

/* Problem p integrated by ops from t0 to t_end at rtol (atol as
** testset_atol), at most max_steps steps: the last step()'s status, the
** time reached, the statistics and the scd at t_end (-inf if t_end was not
** reached). */
typedef struct testset_result {
    int status;
    double t;
    double scd;
    hy_stats stats;
} testset_result;
testset_result testset_run(const hy_integrator_ops *ops, const testset_problem *p,
                           double rtol, long max_steps);

#endif
