/*
** MSTIFF's error control at loose and tight tolerances (issue 17): the six
** Test Set ODEs (testset.c: HIRES, POLLU, VDPOL, OREGO, ROBER, E5; Mazzia &
** Magherini 2008) at rtol 1e-4, 1e-5, ..., 1e-10 with the atol of the
** report's work-precision diagrams, each result scored against the
** published reference solution (scd; mescd for E5). Asserted:
**  - scd >= 0 at every tolerance: no result further from the reference
**    than its own size (before Cash's error control, HIRES gave -0.35 at
**    1e-4);
**  - the accuracy follows the tolerance: scd at 1e-10 at least 3 digits
**    above scd at 1e-4;
**  - at rtol <= 1e-8 fewer than 2.8 evaluations of f per step (the first
**    stage started from the last step's second stage).
** E5 (mescd) included: at rtol 1e-4 its mescd measures the drift of the
** linear invariant y2 - y3 - y4 (0 in the exact solution) against
** atol/rtol = 1.7e-20. MSTIFF let it drift by 2.7e-19 (mescd -1.20; DSTIFF
** 0.01, VSTIFF 0.54, IDA -0.24, bench/results/suite.txt), most of it at
** the steps where h grew 4-10x and the history of degree k+1 was rescaled
** (on E5I too, E5 with y3' = y2' - y4': -1.31 where VSTIFF has 3.05). With
** the largest increase 5 instead of STIFF's 10 (mstiff.c, MSTIFF_ETA_MAX)
** it gives 1.55 (E5I 4.02), and this test no longer exempts it.
*/
#include "integrators/integrator.h"

#include "check.h"
#include "validation/testset.c"

#include <math.h>
#include <stdio.h>

extern const hy_integrator_ops hy_mstiff;

#define STEP_LIMIT 1000000L

int main(void)
{
    printf("%-6s %6s %6s %7s %8s %6s\n", "problem", "rtol", "scd", "steps", "f evals", "LU");
    for (int k = 0; k < testset_n_problems; k++) {
        const testset_problem *p = &testset_problems[k];
        double scd_loosest = 0.0;
        for (int e = 4; e <= 10; e++) {
            double rtol = pow(10.0, -e);
            testset_result r = testset_run(&hy_mstiff, p, rtol, STEP_LIMIT);
            double scd = r.scd;
            printf("%-7s %6.0e %6.2f %7ld %8ld %6ld\n", p->name, rtol, scd, r.stats.n_steps,
                   r.stats.n_res_evals, r.stats.n_lu);
            CHECK(r.status == HY_TSTOP, "%s rtol %g: status %d", p->name, rtol, r.status);
            CHECK(scd >= 0.0, "%s rtol %g: scd %.2f < 0", p->name, rtol, scd);
            /* Stage 1 starts from the last step's stage 2 while h and k
            ** stay (Cash's STIFF): from rtol 1e-8 on, 2.1-2.7 evaluations
            ** of f per step were measured (2.9-3.8 from the predictor). */
            double f_per_step = (double)r.stats.n_res_evals / (double)r.stats.n_steps;
            CHECK(e < 8 || f_per_step < 2.8, "%s rtol %g: %.2f evaluations of f per step",
                  p->name, rtol, f_per_step);
            if (e == 4)
                scd_loosest = scd;
            else if (e == 10)
                CHECK(scd >= scd_loosest + 3.0, "%s: scd %.2f at rtol 1e-10, %.2f at 1e-4",
                      p->name, scd, scd_loosest);
        }
    }
    return CHECK_DONE();
}
