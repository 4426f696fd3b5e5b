/*
** Consistent initial values: with the differential components of y fixed,
** solve F(t, y, y') = 0 for the algebraic components of y and for all of y'
** (Brown, Hindmarsh & Petzold, "Consistent initial condition calculation
** for differential-algebraic systems", SIAM J. Sci. Comput. 19, 1998: the
** YA_YDP_INIT case). Newton's method with a finite-difference Jacobian of
** the mixed unknowns and a backtracking line search on ||F||_2 (Dennis &
** Schnabel, Numerical Methods for Unconstrained Optimization, Alg. A6.3.1,
** Armijo constant 1e-4).
*/
#include "sim.h"

#include "linalg/dense.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* The unknown of component i: y'_i if differential, y_i if algebraic. */
static double *unknown(hydae_sim *s, int i)
{
    return s->is_algebraic[i] ? &s->y[i] : &s->yp[i];
}

static double norm2(const double *v, int n)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += v[i] * v[i];
    return sqrt(sum);
}

/* Weighted RMS norm of a change of the unknowns. */
static double weighted_norm(hydae_sim *s, const double *change)
{
    double sum = 0.0;
    for (int i = 0; i < s->n; i++) {
        double ratio = change[i] / (s->rtol_vec[i] * fabs(*unknown(s, i)) + s->atol_vec[i]);
        sum += ratio * ratio;
    }
    return sqrt(sum / s->n);
}

static int residual(hydae_sim *s, double t, double *res)
{
    return hy_config_residual(t, s->y, s->yp, res, s);
}

static int init_failure(hydae_sim *s, double t, const char *why, int component)
{
    const hydae_mode *mode = NULL;
    const char *name = component >= 0 ? hy_component_name(s, component, &mode) : NULL;
    if (name)
        hy_sim_fail(s, "no consistent initial values at t = %.17g in mode '%s': %s "
                    "(equation %d, variable '%s')", t, mode ? mode->name : "?", why,
                    component - (mode ? s->var_offset[mode->chart->index] : 0), name);
    else
        hy_sim_fail(s, "no consistent initial values at t = %.17g: %s", t, why);
    return HYDAE_ERR_INIT;
}

static int residual_failure(hydae_sim *s, double t)
{
    if (s->bad_chart >= 0 && s->bad_is_nan) {
        const hydae_mode *mode = s->active[s->bad_chart];
        hy_sim_fail(s, "residual equation %d of mode '%s' (paired with variable '%s') is not "
                    "finite at t = %.17g", s->bad_equation, mode->name,
                    mode->vars[s->bad_equation].name, t);
        return HYDAE_ERR_RESIDUAL;
    }
    if (s->bad_chart >= 0) {
        hy_sim_fail(s, "the residual of mode '%s' returned an error at t = %.17g",
                    s->active[s->bad_chart]->name, t);
        return HYDAE_ERR_RESIDUAL;
    }
    return init_failure(s, t, "the residual failed", -1);
}

int hy_consistent_init(hydae_sim *s, double t)
{
    int n = s->n;
    if (n == 0)
        return 0;
    double *res = s->init_work, *step = s->init_work + n, *res_trial = s->init_work + 2 * n;
    double *jac = s->init_matrix;
    int *pivot = s->init_pivot;
    const int max_iter = 50;
    s->bad_chart = -1;
    if (residual(s, t, res))
        return residual_failure(s, t);
    double res_norm = norm2(res, n);
    for (int iter = 0; iter < max_iter && res_norm > 0.0; iter++) {
        /* Jacobian of F with respect to the mixed unknowns, by columns. */
        double sqrt_eps = sqrt(DBL_EPSILON);
        for (int j = 0; j < n; j++) {
            double *z = unknown(s, j);
            double saved = *z;
            double del = sqrt_eps * fmax(fabs(saved), fmax(fabs(s->y[j]), 1.0));
            *z = saved + del;
            del = *z - saved;
            int status = residual(s, t, res_trial);
            *z = saved;
            if (status)
                return residual_failure(s, t);
            for (int i = 0; i < n; i++)
                jac[i + (long)j * n] = (res_trial[i] - res[i]) / del;
        }
        s->stats.n_res_evals += n;
        int singular = hy_lu_factor(n, jac, pivot);
        if (singular)
            return init_failure(s, t, "the Jacobian with respect to the algebraic variables "
                                "and the derivatives is singular (is the system of index "
                                "higher than 1, or an unknown missing from every equation?)",
                                singular - 1);
        for (int i = 0; i < n; i++)
            step[i] = -res[i];
        hy_lu_solve(n, jac, pivot, step);
        /* Converged when the full Newton step is small in the error weights
        ** (then the error after taking it is of the order of its square). */
        if (weighted_norm(s, step) <= 1e-3) {
            for (int i = 0; i < n; i++)
                *unknown(s, i) += step[i];
            return 0;
        }
        /* Backtracking: accept the first lambda with sufficient decrease. */
        double lambda = 1.0, new_norm = res_norm;
        int accepted = 0;
        for (int k = 0; k < 30; k++) {
            for (int i = 0; i < n; i++)
                *unknown(s, i) += lambda * step[i];
            int status = residual(s, t, res_trial);
            if (status == 0) {
                new_norm = norm2(res_trial, n);
                if (new_norm <= (1.0 - 1e-4 * lambda) * res_norm) {
                    accepted = 1;
                    break;
                }
            } else if (status < 0) {
                return residual_failure(s, t);
            }
            for (int i = 0; i < n; i++)
                *unknown(s, i) -= lambda * step[i];
            lambda *= 0.5;
        }
        if (!accepted)
            break;
        memcpy(res, res_trial, sizeof(double) * (size_t)n);
        res_norm = new_norm;
    }
    /* Report the equation with the largest residual. */
    int worst = 0;
    for (int i = 1; i < n; i++)
        if (fabs(res[i]) > fabs(res[worst]))
            worst = i;
    char why[160];
    hy_format(why, sizeof why, "Newton's method did not converge; largest residual %.3g",
              res[worst]);
    if (res_norm == 0.0)
        return 0;
    return init_failure(s, t, why, worst);
}
