/*
** A problem of tests/validation/testset.c as a bench_case, shared by the
** programs that compile testset.c in (bench_suite, bench_radau): residual,
** Jacobian and right-hand side, y'(t0) = f(t0, y0), the report's
** tolerances, scored as the test set does (testset_scd: scd, or mescd for
** E5).
*/
#ifndef HY_BENCH_TESTSET_CASE_H
#define HY_BENCH_TESTSET_CASE_H

#include "bench.h"

#include "validation/testset.h"

#include <string.h>

static inline double bench_testset_score(const bench_case *bc, const double *y, double rtol,
                                         double atol)
{
    return testset_scd(bc->score_ctx, y, rtol, atol);
}

/* bc from p; yp0 (p->n values) receives y'(t0) and must outlive bc. */
static inline void bench_testset_case(bench_case *bc, const testset_problem *p, double *yp0)
{
    memset(bc, 0, sizeof *bc);
    bc->name = p->name;
    bc->title = p->section;
    bc->dae = testset_dae(p);
    bc->t0 = p->t0;
    bc->t_end = p->t_end;
    bc->y0 = p->y0;
    p->rhs(p->t0, p->y0, yp0, NULL);
    bc->yp0 = yp0;
    bc->y_ref = p->y_ref;
    bc->atol_per_rtol = p->atol_per_rtol;
    bc->atol_fixed = p->atol_fixed;
    bc->score = bench_testset_score;
    bc->score_ctx = p;
}

#endif
