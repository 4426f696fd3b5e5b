/*
** Index-1 DAE problems of the Test Set for IVP Solvers (F. Mazzia,
** C. Magherini, release 2.4, 2008): Chemical Akzo Nobel (sec. II.12) and
** the Transistor Amplifier (sec. II.14), as residuals F(t, y, y') = 0 with
** analytic Jacobians dF/dy + cj dF/dy', consistent initial values, t_end
** and the published reference solutions.
*/
#ifndef HY_DAESET_H
#define HY_DAESET_H

#include "integrators/integrator.h"

typedef struct dae_problem {
    const char *name;
    int n;
    hy_res_fn res;
    hy_jac_fn jac;
    const double *y0, *yp0, *yref;
    const unsigned char *is_algebraic; /* NULL: none declared */
    double t_end;
} dae_problem;

extern const dae_problem dae_chemakzo;
extern const dae_problem dae_transamp;

/* Fills the derived initial values (call once before use). */
void dae_problems_init(void);

#endif
