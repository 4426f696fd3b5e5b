/*
** DSTIFF: variable-order (1-5), variable-step BDF integrator for fully
** implicit DAEs F(t, y, y') = 0 of index <= 1, and of Hessenberg index 2
** or 3 (constrained mechanics, src/mech) when hy_options.var_index says
** which components have which index (scale_weights_for_step).
**
** The method is DASSL's fixed-leading-coefficient BDF in modified divided
** difference form, written from the published description:
**
**   [BCP] K.E. Brenan, S.L. Campbell, L.R. Petzold, "Numerical Solution of
**         Initial-Value Problems in Differential-Algebraic Equations",
**         SIAM Classics in Applied Mathematics 14, 1996, chapter 5:
**         5.2.1 basic formulas (phi, psi, alpha, beta, gamma, sigma;
**         predictor, fixed-leading-coefficient corrector, cj = -alpha_s/h),
**         5.2.2 nonlinear system solution (modified Newton, iteration
**         matrix dF/dy + cj dF/dy', its reuse, the convergence rate test,
**         finite-difference iteration matrix),
**         5.2.3 step size and order selection (error estimates at orders
**         k-2..k+1, the order raising/lowering rules, step ratios, the
**         initial phase of doubling).
**   [P82] L.R. Petzold, "A description of DASSL: a differential/algebraic
**         system solver", Sandia report SAND82-8637, 1982: the driver
**         level (error weights and norm, initial step, h_min, t_stop) and
**         the interpolation of the difference table for dense output.
**   [HNW] E. Hairer, S.P. Norsett, G. Wanner, "Solving Ordinary
**         Differential Equations I", 2nd ed., Springer 1993, II.4:
**         the starting step size.
**
** The numbers below (0.33 convergence constant, rate limit 0.9, at most 4
** corrector iterations, the cj band [0.6, 1.67] = [(1-r)/(1+r), (1+r)/(1-r)]
** for r = 0.25, factor 0.25 after failures, 10 convergence failures) are the
** published DASSL strategy constants. No source code of DASSL, DASPK or IDA
** was used; the code is written for this project.
**
** Notation: indices below are 0-based. phi[j] (j = 0..k) holds the modified
** divided differences of the solution, phi[j] = psi_0 ... psi_{j-1} times
** the j-th divided difference, with phi[0] = y_n; phi[k+1] holds the last
** correction E for the error estimate at order k+1. psi[j] = t_{n+1} -
** t_{n-j} after the coefficient update of a step (psi[0] = h).
**
** Deviations, all documented where they occur: the roundoff floor for |h|
** is 4 uround |t| (DASSL uses max(|t|, |tout|), which for t_stop = 1e11
** forbids the steps Robertson needs near t = 0); at most 10 error test
** failures per step (as IDA's default) so h cannot creep to zero when
** t = 0 makes the roundoff floor vanish; a NaN or Inf in F counts as a
** recoverable residual failure; with var_index, once a fresh
** finite-difference iteration matrix fails to converge, the increments of
** IDA (floored at the tolerance) replace DASSL's (eval_iter_matrix); the
** automatic first step is Hairer, Norsett & Wanner's (with DASSL's bound
** h ||y'0|| <= 0.5 kept) in place of DASSL's 0.001 |t_stop - t0|
** (automatic_initial_step); a tolerance is floored at |y'| 4 uround |t|
** (set_weights).
*/
#include "integrators/common.h"

#include "integrators/itmat.h"
#include "core/core.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DSTIFF_MAX_ORDER 5
/* phi[0..k+1] with k <= 5. */
#define DSTIFF_N_PHI (DSTIFF_MAX_ORDER + 2)

/* DASSL strategy constants ([BCP] 5.2.2, 5.2.3; [P82]). */
#define DSTIFF_MAX_NEWTON_ITERS 4       /* corrector iterations per attempt */
#define DSTIFF_NEWTON_TOL 0.33          /* S * ||delta|| <= 0.33 converged */
#define DSTIFF_MAX_RATE 0.9             /* rate above this: divergence */
#define DSTIFF_CJ_RATE 0.25             /* cj band (1-r)/(1+r) .. inverse */
#define DSTIFF_MAX_CONV_FAILS 10        /* per step */
#define DSTIFF_MAX_SINGULAR_FAILS 3     /* per step */
#define DSTIFF_MAX_ERR_FAILS 10         /* per step (IDA's MXNEF) */
#define DSTIFF_FAIL_FACTOR 0.25         /* h reduction after failures */

/* Iteration matrix status, DASSL's JCALC. */
enum { JAC_NEEDED = -1, JAC_FRESH = 0, JAC_OLD = 1 };

typedef struct dstiff_mem {
    hy_mem_head head;           /* first: statistics, worst component */
    int n;
    int initialized;

    /* Problem and options, copied at init(). */
    hy_dae dae;
    double *rtol;               /* per component */
    double *atol;               /* per component */
    unsigned char *in_err_test; /* 1: component takes part in the error test */
    int suppress_alg;           /* some component is out of the error test */
    unsigned char *var_index;   /* opt->var_index copied (1..3), if has_index */
    int has_index;              /* some component has index 2 or 3 */
    int fd_tol_increments;      /* FD increments floored at 1/w (eval_iter_matrix) */
    double h_user;              /* opt->h0, 0 = automatic */
    double h0_max;              /* cap on the automatic first step, 0 = none */
    int max_newton_iters;       /* dae_corrector_maxit */
    int min_newton_iters;       /* dae_corrector_minit */
    double constr_tol;          /* dae_constr_tol, 0 = off */
    int jacob_eval, jacob_init; /* refresh pattern, 0 = automatic */
    long eval_expiry;           /* steps the pattern holds, 0 = always */
    void (*newton_debug)(void *debug_ctx, const hy_newton_info *info);
    void *debug_ctx;
    double h_min;               /* 0 = none */
    double h_max;               /* +inf = none */
    int max_order;

    /* Integration state. */
    double t;                   /* t_n, time of the last accepted point */
    double t_prev;              /* start of the last accepted step */
    double h;                   /* step size to try next */
    double h_old;               /* last accepted step size (HOLD) */
    int h_chosen;               /* 0 until the first step() chose h */
    int order;                  /* order to try next (K) */
    int order_old;              /* order of the last accepted step (KOLD) */
    int n_const;                /* steps taken with constant h and order (NS) */
    int initial_phase;          /* 1: raise order, double h each step */
    long n_steps_since_init;

    /* Coefficients of the current step ([BCP] 5.2.1). */
    double psi[DSTIFF_N_PHI];
    double psi_saved[DSTIFF_N_PHI];   /* psi before the current attempt */
    double alpha[DSTIFF_N_PHI];
    double beta[DSTIFF_N_PHI];
    double gamma[DSTIFF_N_PHI];
    double sigma[DSTIFF_N_PHI];
    double cj;                  /* leading coefficient -alpha_s / h */
    double cj_old;              /* cj at the last iteration matrix */
    double ck;                  /* error constant of the current step */
    double conv_rate_factor;    /* S = rate / (1 - rate), kept across steps */
    int jac_state;

    /* Vectors, all of length n except phi (N_PHI n) and the matrix. */
    double *phi;
    double *y;                  /* iterate / corrected solution at t_n */
    double *yp;                 /* its derivative */
    double *yp_init;            /* y'(t0) as given to init() */
    double *delta;              /* residual, then Newton update */
    double *corr;               /* accumulated correction E = y - y_pred */
    double *ewt;                /* inverse error weights, 1/(rtol|y|+atol) */
    double *ewt_err;            /* ewt, or 0 for suppressed components */
    double *ewt_newton;         /* ewt scaled by h^(index-1), if has_index */
    const double *w_newton;     /* weights of the Newton norms: ewt or ewt_newton */
    const double *w_test;       /* weights of the error test: ewt or ewt_err */
    double *res_pert;           /* residual at a perturbed point (FD) */
    double *fd_saved;           /* y_j, y'_j of the columns perturbed together (2n) */
    hy_itmat iter;              /* J = dF/dy + cj dF/dy' and its factors */
    int linear_solver;          /* hy_ls_kind asked for */
} dstiff_mem;

#define PHI(d, j) ((d)->phi + (size_t)(j) * (size_t)(d)->n)

/* ------------------------------------------------------------------------
** Weights
*/

/* The error weights (hy_set_weights; -1 at init if one is not positive and
** finite) and, when some component is out of the error test, their copy
** for the test with those components' weights 0. With yp (after a step),
** a component's tolerance rtol |y| + atol is floored at its change over
** the shortest step DSTIFF takes, |y'_i| 4 uround |t| (hy_roundoff_floor):
** time is not resolved more finely, and the residual's own evaluation
** carries rounding of that order (10 sin(2 pi 50 t) near its zeros at
** t = 0.09: ~3e-14, while --rtol 1e-12 asks atol 1e-14); a tolerance below
** it fails the error test at every step size. A deviation from DASSL. */
static int set_weights(dstiff_mem *d, const double *y, const double *yp, double t,
                       int keep_old)
{
    int n = d->n;
    if (hy_set_weights(n, d->rtol, d->atol, y, keep_old, d->ewt) != 0)
        return -1;
    if (yp != NULL) {
        double time_resolution = hy_roundoff_floor(t);
        for (int i = 0; i < n; i++) {
            double floor_tol = fabs(yp[i]) * time_resolution;
            if (floor_tol * d->ewt[i] > 1.0)
                d->ewt[i] = 1.0 / floor_tol;
        }
    }
    if (d->suppress_alg)
        for (int i = 0; i < n; i++)
            d->ewt_err[i] = d->in_err_test[i] ? d->ewt[i] : 0.0;
    return 0;
}

/* Weights for a step of size h when the DAE declares variable indices: the
** Newton update and the local error of an index-2 component are measured
** times h, of an index-3 component times h^2. A BDF step perturbs an
** index-nu component by O(h^(1-nu)) times a perturbation of its equation
** (Lotstedt & Petzold 1986), so its Newton update and error estimate carry
** that factor; measured unscaled they fail the tests at small h or let
** the step size be driven by components the method cannot resolve. The
** scaling is that of E. Hairer, C. Lubich, M. Roche, "The Numerical
** Solution of Differential-Algebraic Systems by Runge-Kutta Methods",
** Lecture Notes in Math. 1409, Springer 1989 (the index-2 and index-3
** components of their code RADAU5); see also Hairer & Wanner, Solving
** ODEs II, ch. VII, on higher-index DAEs and mechanical systems. Called
** before every attempt, as h changes. */
static void scale_weights_for_step(dstiff_mem *d)
{
    if (!d->has_index)
        return;
    double h = fabs(d->h);
    for (int i = 0; i < d->n; i++) {
        double scale = d->var_index[i] == 3 ? h * h : d->var_index[i] == 2 ? h : 1.0;
        d->ewt_newton[i] = d->ewt[i] * scale;
        d->ewt_err[i] = d->in_err_test[i] ? d->ewt_newton[i] : 0.0;
    }
}

/* ------------------------------------------------------------------------
** Residual and iteration matrix
*/

/* J = dF/dy + cj dF/dy' at (t, y, yp), analytic or by forward differences
** ([BCP] 5.2.2): column j uses del = sqrt(uround) max(|y_j|, |h y'_j|,
** 1/w_j) with the sign of h y'_j, y_j += del, y'_j += cj del, so that one
** residual gives the whole column of the combined matrix. res0 holds
** F(t, y, yp). Returns HY_EVAL_OK or a failure code. Not hy_itmat_dfdy:
** that one is df/dy of an explicit ODE (the sign of J flipped, cj = 0, y'
** not perturbed, an increment without the sign of h y'_j).
**
** With fd_tol_increments (set by solve_corrector, see there) the increment
** is del = max(sqrt(uround) max(|y_j|, |h y'_j|), 1/w_j): the floor is
** the tolerance 1/w_j = rtol_j |y_j| + atol_j itself, not sqrt(uround)
** times it - the increment of the dense difference-quotient Jacobian of
** IDA (A.C. Hindmarsh et al., "SUNDIALS: Suite of nonlinear and
** differential/algebraic equation solvers", ACM TOMS 31 (2005) 363-396;
** IDA user guide, "Difference quotient Jacobian"). DASSL's increment is
** sqrt(uround) |y_j| for a component far below the scale on which F
** varies with it (an angle passing through 0, sqrt(uround) 1e-9 = 1.5e-17
** rad at integr_tol 1e-9): F changes by less than its own rounding error
** and the column is noise (measured on Andrews' mechanism: the constraint
** rows of theta's column wrong by 100%, docs/mechanics.md). The floor
** bounds the rounding error of the column by uround |F| / (1/w_j); its
** truncation error, O(1/w_j) relative, is at the tolerance, which modified
** Newton tolerates. */
static int eval_iter_matrix(dstiff_mem *d, double t, double h,
                            const double *res0)
{
    d->head.stats.n_jac_evals++;
    if (d->dae.jac != NULL || d->dae.jac_matrix != NULL)
        return hy_itmat_eval_jac(&d->iter, &d->dae, t, d->cj, d->y, d->yp);
    double sqrt_uround = sqrt(DBL_EPSILON);
    double *del = d->iter.del;
    hy_itmat_begin_fd(&d->iter);
    for (size_t g = 0; g < hy_itmat_n_groups(&d->iter); g++) {
        size_t count;
        const int64_t *cols = hy_itmat_group(&d->iter, g, &count);
        for (size_t c = 0; c < count; c++) {
            int64_t j = cols[c];
            double y_save = d->y[j];
            double h_yp = h * d->yp[j];
            double y_size = fmax(fabs(y_save), fabs(h_yp));
            double inc = d->fd_tol_increments ? fmax(sqrt_uround * y_size, 1.0 / d->ewt[j])
                                              : sqrt_uround * fmax(y_size, 1.0 / d->ewt[j]);
            if (h_yp < 0.0)
                inc = -inc;
            /* Make inc exactly representable as a difference of y values. */
            inc = (y_save + inc) - y_save;
            if (inc == 0.0)
                inc = sqrt_uround;
            del[c] = inc;
            d->fd_saved[2 * c] = y_save;
            d->fd_saved[2 * c + 1] = d->yp[j];
            d->y[j] += inc;
            d->yp[j] += d->cj * inc;
        }
        int status = hy_eval_res(&d->dae, &d->head, t, d->y, d->yp, d->res_pert);
        for (size_t c = 0; c < count; c++) {
            d->y[cols[c]] = d->fd_saved[2 * c];
            d->yp[cols[c]] = d->fd_saved[2 * c + 1];
        }
        if (status != HY_EVAL_OK)
            return status;
        for (size_t c = 0; c < count; c++)
            hy_itmat_store_column(&d->iter, (size_t)cols[c], d->res_pert, res0, 1.0 / del[c]);
    }
    return HY_EVAL_OK;
}

/* ------------------------------------------------------------------------
** One step attempt: coefficients, predictor, corrector
*/

/* Coefficients of the step from t_n to t_n + h at order k and the
** predicted differences phi* = beta phi ([BCP] 5.2.1). Recomputed only
** when h or k changed within the last k+1 steps (n_const <= k+1). */
static void set_coefficients(dstiff_mem *d)
{
    int k = d->order;
    double h = d->h;
    memcpy(d->psi_saved, d->psi, sizeof d->psi);
    if (h != d->h_old || k != d->order_old)
        d->n_const = 0;
    d->n_const = d->n_const + 1 < d->order_old + 2 ? d->n_const + 1
                                                   : d->order_old + 2;
    if (k + 1 >= d->n_const) {
        /* beta_j = prod psi_i(n+1)/psi_i(n), alpha_j = h / psi_j,
        ** sigma_j = j! h^j / prod psi_i, gamma_j = gamma_{j-1} +
        ** alpha_{j-1}/h, with psi_j(n+1) = psi_{j-1}(n) + h. */
        d->beta[0] = 1.0;
        d->alpha[0] = 1.0;
        d->gamma[0] = 0.0;
        d->sigma[0] = 1.0;
        double psi_new = h;
        for (int j = 1; j <= k; j++) {
            double psi_prev = d->psi[j - 1];
            d->psi[j - 1] = psi_new;
            d->beta[j] = d->beta[j - 1] * d->psi[j - 1] / psi_prev;
            psi_new = psi_prev + h;
            d->alpha[j] = h / psi_new;
            d->sigma[j] = j * d->sigma[j - 1] * d->alpha[j];
            d->gamma[j] = d->gamma[j - 1] + d->alpha[j - 1] / h;
        }
        d->psi[k] = psi_new;
    }
    /* alpha_s = -sum 1/j (fixed leading coefficient), alpha_0 = -sum
    ** alpha_j; cj = -alpha_s / h; error constant
    ** ck = max(|alpha_{k} + alpha_s - alpha_0|, alpha_k) ([BCP] 5.2.1). */
    double alpha_s = 0.0, alpha_0 = 0.0;
    for (int j = 1; j <= k; j++) {
        alpha_s -= 1.0 / j;
        alpha_0 -= d->alpha[j - 1];
    }
    double cj_last = d->cj;
    d->cj = -alpha_s / h;
    d->ck = fmax(fabs(d->alpha[k] + alpha_s - alpha_0), d->alpha[k]);
    /* Reuse the iteration matrix while cj/cj_old stays in
    ** [(1-r)/(1+r), (1+r)/(1-r)] = [0.6, 1.67] ([BCP] 5.2.2). */
    double cj_ratio_min = (1.0 - DSTIFF_CJ_RATE) / (1.0 + DSTIFF_CJ_RATE);
    double cj_ratio = d->cj / d->cj_old;
    if (!(cj_ratio >= cj_ratio_min && cj_ratio <= 1.0 / cj_ratio_min))
        d->jac_state = JAC_NEEDED;
    if (d->cj != cj_last)
        d->conv_rate_factor = 100.0;
    /* phi*_j = beta_j phi_j for the differences whose beta is not 1. */
    int n = d->n;
    for (int j = d->n_const; j <= k; j++) {
        double *phi_j = PHI(d, j);
        double beta_j = d->beta[j];
        for (int i = 0; i < n; i++)
            phi_j[i] *= beta_j;
    }
}

/* Undo set_coefficients after a failed attempt with step h ([BCP] 5.2.3). */
static void restore_history(dstiff_mem *d)
{
    int k = d->order, n = d->n;
    for (int j = d->n_const; j <= k; j++) {
        double *phi_j = PHI(d, j);
        double inv_beta = 1.0 / d->beta[j];
        for (int i = 0; i < n; i++)
            phi_j[i] *= inv_beta;
    }
    /* psi_{j-1}(n) = psi_j(n+1) - h; kept as a copy, which is exact. */
    memcpy(d->psi, d->psi_saved, sizeof d->psi);
}

/* Predictor y = sum_{j<=k} phi*_j, y' = sum_{j=1..k} gamma_j phi*_j
** ([BCP] 5.2.1). */
static void predict(dstiff_mem *d)
{
    int n = d->n, k = d->order;
    memcpy(d->y, PHI(d, 0), (size_t)n * sizeof(double));
    memset(d->yp, 0, (size_t)n * sizeof(double));
    for (int j = 1; j <= k; j++) {
        const double *phi_j = PHI(d, j);
        double gamma_j = d->gamma[j];
        for (int i = 0; i < n; i++) {
            d->y[i] += phi_j[i];
            d->yp[i] += gamma_j * phi_j[i];
        }
    }
}

/* Does the user's pattern ask for a new Jacobian before corrector
** iteration M (seed 002, Param_Transient: MOD(M, dae_jacob_eval) = 0 or
** M < dae_jacob_init; 0 and 0 = automatic; ignored after dae_eval_expiry
** steps since the last init)? */
static int pattern_wants_jacobian(const dstiff_mem *d, int iter)
{
    if (d->jacob_eval == 0 && d->jacob_init == 0)
        return 0;
    if (d->eval_expiry > 0 && d->n_steps_since_init >= d->eval_expiry)
        return 0;
    return (d->jacob_eval > 0 && iter % d->jacob_eval == 0) || iter < d->jacob_init;
}

/* A new iteration matrix at the current iterate (d->delta holds the
** residual there), factored. */
static int refresh_iteration_matrix(dstiff_mem *d, double t_new)
{
    int jac_status = eval_iter_matrix(d, t_new, d->h, d->delta);
    d->cj_old = d->cj;
    d->conv_rate_factor = 100.0;
    d->jac_state = JAC_FRESH;
    if (jac_status != HY_EVAL_OK) {
        d->jac_state = JAC_NEEDED;
        return jac_status;
    }
    int factor_status = hy_itmat_factor(&d->iter, &d->head);
    if (factor_status == HY_EVAL_SINGULAR && d->dae.jac == NULL && d->dae.jac_matrix == NULL
        && !d->fd_tol_increments) {
        /* A column of DASSL's increments may be rounding noise, or zero: a
        ** variable near 0 with a small atol in an equation whose terms are
        ** large (a diode's current beside a source's voltage: 1.5e-8 atol
        ** against |F| uround). Once more, and from now on until init, with
        ** the increments floored at the tolerance (see eval_iter_matrix). */
        d->fd_tol_increments = 1;
        return refresh_iteration_matrix(d, t_new);
    }
    if (factor_status != HY_EVAL_OK) {
        d->jac_state = JAC_NEEDED; /* singular: head.worst names the column */
        return factor_status;
    }
    return HY_EVAL_OK;
}

/* Modified Newton on G(y) = F(t, y, y'_pred + cj (y - y_pred)) = 0 with
** the iteration matrix J = dF/dy + cj dF/dy' ([BCP] 5.2.2). On HY_EVAL_OK,
** y, yp hold the corrected values and corr = y - y_pred. */
static int solve_corrector(dstiff_mem *d, double t_new)
{
    int n = d->n;
    for (;;) {
        predict(d);
        double pred_norm = hy_wrms_norm(n, d->y, d->w_newton);
        int status = hy_eval_res(&d->dae, &d->head, t_new, d->y, d->yp,
                                 d->delta);
        if (status != HY_EVAL_OK)
            return status;
        if (d->jac_state == JAC_NEEDED) {
            int jac_status = refresh_iteration_matrix(d, t_new);
            if (jac_status != HY_EVAL_OK)
                return jac_status;
        }
        memset(d->corr, 0, (size_t)n * sizeof(double));
        /* J was formed with cj_old; scaling the residual by
        ** 2 / (1 + cj/cj_old) compensates the stale cj ([BCP] 5.2.2). */
        double res_scale = 2.0 / (1.0 + d->cj / d->cj_old);
        double first_norm = 0.0;
        int rate_base = 0;          /* iteration the rate is measured from */
        int converged = 0;
        for (int iter = 0;; iter++) {
            int refreshed = iter == 0 && d->jac_state == JAC_FRESH;
            if (pattern_wants_jacobian(d, iter) && !refreshed) {
                int jac_status = refresh_iteration_matrix(d, t_new);
                if (jac_status != HY_EVAL_OK)
                    return jac_status;
                res_scale = 1.0;
                rate_base = iter;
                refreshed = 1;
            }
            if (res_scale != 1.0)
                for (int i = 0; i < n; i++)
                    d->delta[i] *= res_scale;
            hy_itmat_solve(&d->iter, d->delta);
            d->head.stats.n_newton_iters++;
            for (int i = 0; i < n; i++) {
                double update = d->delta[i];
                d->y[i] -= update;
                d->corr[i] -= update;
                d->yp[i] -= d->cj * update;
            }
            double update_norm = hy_wrms_norm(n, d->delta, d->w_newton);
            if (!isfinite(update_norm))
                break;
            double rate = 0.0;
            int diverging = 0;
            if (update_norm <= 100.0 * DBL_EPSILON * pred_norm) {
                converged = 1;
            } else {
                /* rate = (||delta_m|| / ||delta_0||)^(1/m), S = rate/(1-rate),
                ** converged when S ||delta_m|| <= 0.33 ([BCP] 5.2.2); the
                ** divergence test waits for dae_corrector_minit iterations. */
                if (iter == rate_base) {
                    first_norm = update_norm;
                } else {
                    rate = pow(update_norm / first_norm, 1.0 / (iter - rate_base));
                    if (!(rate <= DSTIFF_MAX_RATE))
                        diverging = iter >= d->min_newton_iters;
                    else
                        d->conv_rate_factor = rate / (1.0 - rate);
                }
                converged = !diverging && d->conv_rate_factor * update_norm <= DSTIFF_NEWTON_TOL;
            }
            int have_residual = 0;
            if (converged && d->constr_tol > 0.0 && d->dae.is_algebraic != NULL) {
                /* dae_constr_tol: the algebraic equations must hold to it. */
                status = hy_eval_res(&d->dae, &d->head, t_new, d->y,
                                     d->yp, d->delta);
                if (status != HY_EVAL_OK)
                    return status;
                have_residual = 1;
                for (int i = 0; i < n; i++)
                    if (d->dae.is_algebraic[i] && fabs(d->delta[i]) > d->constr_tol)
                        converged = 0;
            }
            if (d->newton_debug) {
                hy_newton_info info = { t_new, d->h, d->order, iter, update_norm, rate,
                                        refreshed, converged };
                d->newton_debug(d->debug_ctx, &info);
            }
            if (converged || diverging || iter + 1 >= d->max_newton_iters)
                break;
            if (!have_residual) {
                status = hy_eval_res(&d->dae, &d->head, t_new, d->y,
                                     d->yp, d->delta);
                if (status != HY_EVAL_OK)
                    return status;
            }
        }
        if (converged) {
            d->jac_state = JAC_OLD;
            return HY_EVAL_OK;
        }
        d->head.worst = hy_argmax_weighted(n, d->delta, d->w_newton);
        if (d->jac_state == JAC_FRESH && d->dae.jac == NULL && d->dae.jac_matrix == NULL
            && !d->fd_tol_increments) {
            /* A fresh finite-difference matrix did not converge: its
            ** columns may be rounding noise (see eval_iter_matrix: an
            ** index-2/3 component, or a diode's current near 0 beside a
            ** source's volts). From now on (until init) form it with the
            ** tolerance-floored increments, and retry this step with one.
            ** Problems whose corrector never fails with a fresh matrix keep
            ** DASSL's increments. Counted as a convergence failure (h is
            ** kept). */
            d->head.stats.n_conv_fails++;
            d->fd_tol_increments = 1;
            d->jac_state = JAC_NEEDED;
            continue;
        }
        if (d->jac_state == JAC_FRESH) {
            d->jac_state = JAC_OLD;
            return HY_EVAL_NO_CONV;
        }
        /* The matrix was stale: retry the step with a new one. */
        d->jac_state = JAC_NEEDED;
    }
}

/* ------------------------------------------------------------------------
** The descriptor's functions
*/

static void dstiff_destroy(void *mem);

static void *dstiff_create(int n)
{
    if (n <= 0)
        return NULL;
    dstiff_mem *d = hy_calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    size_t len = (size_t)n;
    d->n = n;
    d->rtol = hy_malloc(len * sizeof(double));
    d->atol = hy_malloc(len * sizeof(double));
    d->in_err_test = hy_malloc(len);
    d->phi = hy_calloc(DSTIFF_N_PHI * len, sizeof(double));
    d->y = hy_malloc(len * sizeof(double));
    d->yp = hy_malloc(len * sizeof(double));
    d->yp_init = hy_malloc(len * sizeof(double));
    d->delta = hy_malloc(len * sizeof(double));
    d->corr = hy_malloc(len * sizeof(double));
    d->ewt = hy_malloc(len * sizeof(double));
    d->ewt_err = hy_malloc(len * sizeof(double));
    d->ewt_newton = hy_malloc(len * sizeof(double));
    d->var_index = hy_malloc(len);
    d->res_pert = hy_malloc(len * sizeof(double));
    d->fd_saved = hy_malloc(2 * len * sizeof(double));
    if (!d->rtol || !d->atol || !d->in_err_test || !d->phi || !d->y || !d->yp
        || !d->yp_init || !d->delta || !d->corr || !d->ewt || !d->ewt_err || !d->ewt_newton || !d->var_index
        || !d->res_pert || !d->fd_saved) {
        dstiff_destroy(d);
        return NULL;
    }
    d->head.worst = -1;
    return d;
}

static void dstiff_destroy(void *mem)
{
    dstiff_mem *d = mem;
    if (d == NULL)
        return;
    hy_free(d->rtol);
    hy_free(d->atol);
    hy_free(d->in_err_test);
    hy_free(d->phi);
    hy_free(d->y);
    hy_free(d->yp);
    hy_free(d->yp_init);
    hy_free(d->delta);
    hy_free(d->corr);
    hy_free(d->ewt);
    hy_free(d->ewt_err);
    hy_free(d->ewt_newton);
    hy_free(d->var_index);
    hy_free(d->res_pert);
    hy_free(d->fd_saved);
    hy_itmat_free(&d->iter);
    hy_free(d);
}

static int dstiff_init(void *mem, const hy_dae *dae, double t0,
                       const double *y0, const double *yp0,
                       const hy_options *opt)
{
    dstiff_mem *d = mem;
    if (d == NULL || dae == NULL || opt == NULL || y0 == NULL || yp0 == NULL)
        return HYDAE_ERR_ARG;
    d->initialized = 0;
    int n = d->n;
    if (dae->n != n || dae->res == NULL || !isfinite(t0) || opt->max_order < 0
        || hy_step_bounds(opt, &d->h_min, &d->h_max) != 0
        || hy_copy_tolerances(n, opt, 1, d->rtol, d->atol) != 0
        || !hy_all_finite(n, y0) || !hy_all_finite(n, yp0))
        return HYDAE_ERR_ARG;
    for (int i = 0; i < n; i++) {
        int suppressed = opt->suppress_alg && dae->is_algebraic != NULL
                         && dae->is_algebraic[i];
        int excluded = opt->err_test_exclude != NULL && opt->err_test_exclude[i];
        d->in_err_test[i] = !(suppressed || excluded);
    }
    d->dae = *dae;
    d->suppress_alg = 0;
    for (int i = 0; i < n; i++)
        d->suppress_alg |= !d->in_err_test[i];
    d->has_index = 0;
    for (int i = 0; i < n; i++) {
        int index = opt->var_index != NULL ? opt->var_index[i] : 1;
        if (index > 3)
            return HYDAE_ERR_ARG;
        d->var_index[i] = (unsigned char)(index < 1 ? 1 : index);
        d->has_index |= index > 1;
    }
    d->fd_tol_increments = 0;
    d->w_newton = d->has_index ? d->ewt_newton : d->ewt;
    d->w_test = d->has_index || d->suppress_alg ? d->ewt_err : d->ewt;
    if (opt->corrector_maxit < 0 || opt->corrector_minit < 0 || !(opt->constr_tol >= 0.0)
        || opt->jacob_eval < 0 || opt->jacob_init < 0 || opt->eval_expiry < 0
        || !(opt->h0_max >= 0.0))
        return HYDAE_ERR_ARG;
    d->h0_max = opt->h0_max;
    d->max_newton_iters = opt->corrector_maxit > 0 ? opt->corrector_maxit
                                                   : DSTIFF_MAX_NEWTON_ITERS;
    d->min_newton_iters = opt->corrector_minit > 0 ? opt->corrector_minit : 1;
    d->constr_tol = opt->constr_tol;
    d->jacob_eval = opt->jacob_eval;
    d->jacob_init = opt->jacob_init;
    d->eval_expiry = opt->eval_expiry;
    d->newton_debug = opt->newton_debug;
    d->debug_ctx = opt->debug_ctx;
    d->h_user = opt->h0;
    int ls_status = hy_itmat_setup(&d->iter, dae, opt->linear_solver, 0);
    if (ls_status != 0)
        return ls_status;
    d->max_order = opt->max_order > 0 && opt->max_order < DSTIFF_MAX_ORDER ? opt->max_order
                                                                           : DSTIFF_MAX_ORDER;
    if (set_weights(d, y0, yp0, t0, 0) != 0)
        return HYDAE_ERR_ARG;

    /* Step history: order 1, nothing accepted yet ([BCP] 5.2.3). */
    d->t = t0;
    d->t_prev = t0;
    d->h = 0.0;
    d->h_old = 0.0;
    d->h_chosen = 0;
    d->order = 1;
    d->order_old = 0;
    d->n_const = 0;
    d->initial_phase = 1;
    d->n_steps_since_init = 0;
    d->cj = 0.0;
    d->cj_old = 1.0;
    d->conv_rate_factor = 100.0;
    d->jac_state = JAC_NEEDED;
    d->head.worst = -1;
    memset(d->psi, 0, sizeof d->psi);
    memcpy(PHI(d, 0), y0, (size_t)n * sizeof(double));
    memcpy(d->yp_init, yp0, (size_t)n * sizeof(double));
    memcpy(d->y, y0, (size_t)n * sizeof(double));
    memcpy(d->yp, yp0, (size_t)n * sizeof(double));
    d->head.stats.h_last = 0.0;
    d->head.stats.order_last = 0;
    d->initialized = 1;
    return HYDAE_OK;
}

/* Weighted RMS norm of v over the components that take part in the local
** error test with index 1 (index-2/3 components are left out: their
** derivatives are not resolved by one step), divided by n like
** hy_wrms_norm. */
static double start_norm(const dstiff_mem *d, const double *v)
{
    double sum = 0.0;
    for (int i = 0; i < d->n; i++)
        if (d->in_err_test[i] && d->var_index[i] == 1) {
            double scaled = v[i] * d->ewt[i];
            sum += scaled * scaled;
        }
    return sqrt(sum / d->n);
}

/* 1 if component i is algebraic (y'_i absent from F) and of index 1. */
static int is_algebraic_index1(const dstiff_mem *d, int i)
{
    return d->dae.is_algebraic != NULL && d->dae.is_algebraic[i] && d->var_index[i] == 1;
}

/* The difference estimate of ||y''|| for the starting step: one trial step
** of size h0 from (t, y0, y'0). An explicit ODE (F = y' - f) takes HNW's
** explicit Euler step, ||f(t + h0, y0 + h0 y'0) - y'0|| / h0. A DAE takes
** one backward Euler step (the order-1 corrector, which the first step
** uses anyway): its correction E = y1 - y0 - h0 y'0 is h0^2 y'' + O(h0^3)
** on the differential components, so ||E|| / h0^2 estimates ||y''||; on
** the algebraic components, whose y' consistent initialisation leaves
** undetermined (0), (y1 - y0) / h0 is their derivative at t0 up to
** O(h0 y''), and replaces y'0 there (the first step's predictor needs it:
** with y' = 0 the order-1 error estimate of an algebraic source
** V sin(w t) is V w h, which forces h below the tolerance over V w).
** HY_EVAL_OK with *ydd_norm, HY_EVAL_NO_CONV (retry with a smaller h0),
** or the failure of F. */
static int trial_step(dstiff_mem *d, double h0, double *ydd_norm)
{
    int n = d->n;
    const double *y0 = PHI(d, 0);
    if (d->dae.rhs != NULL) {
        for (int i = 0; i < n; i++)
            d->y[i] = y0[i] + h0 * d->yp_init[i];
        int status = hy_eval_rhs(&d->dae, &d->head, d->t + h0, d->y, d->delta);
        if (status != HY_EVAL_OK)
            return status == HY_EVAL_RES_FAIL ? HY_EVAL_NO_CONV : status;
        for (int i = 0; i < n; i++)
            d->delta[i] -= d->yp_init[i];
        *ydd_norm = start_norm(d, d->delta) / h0;
        return HY_EVAL_OK;
    }
    d->h = h0;
    d->psi[0] = h0;
    d->order = 1;
    double *phi_1 = PHI(d, 1);
    for (int i = 0; i < n; i++)
        phi_1[i] = h0 * d->yp_init[i];
    scale_weights_for_step(d);
    set_coefficients(d);
    int status = solve_corrector(d, d->t + h0);
    restore_history(d);
    if (status != HY_EVAL_OK)
        return status;
    for (int i = 0; i < n; i++)
        if (is_algebraic_index1(d, i)) {
            d->yp_init[i] += d->corr[i] / h0;
            d->corr[i] = 0.0;
        }
    *ydd_norm = start_norm(d, d->corr) / (h0 * h0);
    return HY_EVAL_OK;
}

/* The difference estimate of trial_step at h0, retried with h0 / 10 while
** its corrector fails (three times). HY_EVAL_OK with *ydd_norm and the h0
** used, HY_EVAL_NO_CONV if every attempt failed, or a fatal failure. */
static int trial_with_retries(dstiff_mem *d, double *h0, double *ydd_norm)
{
    int status = HY_EVAL_NO_CONV;
    for (int attempt = 0; attempt < 4 && status == HY_EVAL_NO_CONV; attempt++) {
        if (attempt > 0)
            *h0 = fmax(0.1 * *h0, 4.0 * hy_roundoff_floor(d->t));
        status = trial_step(d, *h0, ydd_norm);
        if (status == HY_EVAL_RES_FAIL || status == HY_EVAL_JAC_FAIL
            || status == HY_EVAL_SINGULAR)
            status = HY_EVAL_NO_CONV;
    }
    return status;
}

/* The automatic first step: Hairer, Norsett & Wanner's starting step size
** ([HNW] I, II.4, "Starting Step Size", steps a-f; the algorithm of
** Gladwell, Shampine & Brankin, "Automatic selection of the initial step
** size for an ODE solver", J. Comput. Appl. Math. 18 (1987) 175-192, in
** HNW's form) for the first step's order p = 1, with y' at t0 from
** consistent initialisation: d0 = ||y0||, d1 = ||y'0||, h0 = 0.01 d0/d1
** (1e-6 if either < 1e-5), d2 = ||y''|| from trial_step at h0,
** h1 = (0.01 / max(d1, d2))^(1/2) (max(1e-6, 1e-3 h0) if max(d1, d2) <=
** 1e-15), h = min(100 h0, h1); h0_max and h_max follow. The step comes
** from the model, not from the span (DASSL's 0.001 |t_stop - t0| took
** h = 1 on a source sin(2 pi t) over [0, 1000], stepped on its zeros and
** never saw it). h0 stays inside [t0, t_stop] and above the roundoff
** floor.
**
** DASSL's other bound stays ([P82]): h ||y'0|| <= 0.5 with y'0 as given
** (the algebraic components' 0), a first step that moves y by at most
** half a tolerance. The fixed-leading-coefficient BDF is not exact on
** polynomials while h changes, and its start-up (order up, h doubled at
** each step) multiplies the first step's local error by about twice the
** number of doublings: HNW's 3.8e-6 alone on the bouncing ball (rtol
** 1e-6) left g h^2 / 2 = 7e-11 m, grown to 2.6e-9 m after 17 doublings
** (1e-15 with the bound).
**
** The algebraic components' derivatives from the trial are off by O(h0
** y''), which costs the first step h h0 |y''| in its predictor: when h
** comes out below h0 / 2 the trial is repeated once at h0 = h. With
** index-2/3 components (constrained mechanics) backward Euler's first
** step estimates nothing (its multipliers are O(1) off at index 3):
** DASSL's rule is kept whole, min(0.001 |t_stop - t0|, the bound).
** 0, or a failure code of F. */
static int automatic_initial_step(dstiff_mem *d, double t_stop, double *h_out)
{
    double yp_norm = hy_wrms_norm(d->n, d->yp_init, d->ewt);
    double h_bound = yp_norm > 0.0 ? 0.5 / yp_norm : INFINITY;
    if (d->has_index) {
        *h_out = fmin(0.001 * (t_stop - d->t), h_bound);
        return HY_EVAL_OK;
    }
    double d0 = start_norm(d, PHI(d, 0));
    double d1 = start_norm(d, d->yp_init);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    double h0_floor = 4.0 * hy_roundoff_floor(d->t);
    h0 = fmax(fmin(fmin(h0, t_stop - d->t), d->h_max), h0_floor);
    int has_algebraic = 0;
    for (int i = 0; i < d->n; i++)
        has_algebraic |= is_algebraic_index1(d, i);
    double h = h0;
    for (int pass = 0; pass < 2; pass++) {
        double d2 = 0.0;
        int status = trial_with_retries(d, &h0, &d2);
        memcpy(d->y, PHI(d, 0), (size_t)d->n * sizeof(double));
        memcpy(d->yp, d->yp_init, (size_t)d->n * sizeof(double));
        if (status == HY_EVAL_RES_FATAL || status == HY_EVAL_JAC_FATAL
            || status == HY_EVAL_NOMEM)
            return status;
        if (status != HY_EVAL_OK) {
            h = fmin(h0, h_bound);
            break;
        }
        set_weights(d, PHI(d, 0), d->yp_init, d->t, 1);
        d1 = start_norm(d, d->yp_init);   /* with the algebraic derivatives */
        double d_max = fmax(d1, d2);
        double h1 = d_max <= 1e-15 ? fmax(1e-6, 1e-3 * h0) : sqrt(0.01 / d_max);
        h = fmin(fmin(100.0 * h0, h1), h_bound);
        if (!has_algebraic || d->dae.rhs != NULL || h >= 0.5 * h0 || h <= h0_floor)
            break;
        h0 = h;
    }
    *h_out = h;
    return HY_EVAL_OK;
}

/* First step size: opt->h0, or automatic_initial_step capped by h0_max;
** then h_max, the roundoff floor and h_min. phi_1 = h y'0 starts the
** difference table. 0, or a failure code of F. */
static int choose_initial_step(dstiff_mem *d, double t_stop)
{
    int n = d->n;
    double h = d->h_user;
    if (h == 0.0) {
        int status = automatic_initial_step(d, t_stop, &h);
        if (status != HY_EVAL_OK)
            return status;
        if (d->h0_max > 0.0 && h > d->h0_max)
            h = d->h0_max;
    }
    if (h > d->h_max)
        h = d->h_max;
    double floor_h = hy_roundoff_floor(d->t);
    if (h < floor_h)
        h = floor_h;
    if (h < d->h_min)
        h = d->h_min;
    d->h = h;
    d->psi[0] = h;
    d->order = 1;
    d->cj = 1.0 / h;
    if (d->jac_state == JAC_NEEDED)
        d->cj_old = d->cj;
    double *phi_1 = PHI(d, 1);
    for (int i = 0; i < n; i++)
        phi_1[i] = h * d->yp_init[i];
    d->h_chosen = 1;
    return HY_EVAL_OK;
}

/* Error estimates after a converged corrector ([BCP] 5.2.3): the local
** error test quantity ck ||E|| and the estimates at orders k, k-1, k-2 as
** if the steps had been constant, which decide whether to keep k or lower
** it (DASSL's "knew"; e->order_new with its estimate e->est). */
typedef struct err_estimates {
    double err_norm;        /* ck ||E||, the local error test quantity */
    double term_k;          /* (k+1) sigma_{k} ||E|| */
    double term_km1;        /* k sigma_{k-1} ||phi_k + E|| */
    double est_k, est_km1;
    int order_new;          /* k or k-1 */
    double est;             /* estimate belonging to order_new */
} err_estimates;

static void estimate_errors(dstiff_mem *d, err_estimates *e)
{
    int n = d->n, k = d->order;
    const double *w = d->w_test;
    double corr_norm = hy_wrms_norm(n, d->corr, w);
    e->est_k = d->sigma[k] * corr_norm;
    e->term_k = (k + 1) * e->est_k;
    e->est = e->est_k;
    e->order_new = k;
    e->est_km1 = 0.0;
    e->term_km1 = 0.0;
    if (k > 1) {
        /* sigma_{k-1} ||phi*_k + E|| estimates the error at order k-1,
        ** sigma_{k-2} ||phi*_{k-1} + phi*_k + E|| the one at order k-2. */
        const double *phi_k = PHI(d, k), *phi_km1 = PHI(d, k - 1);
        double sum_km1 = 0.0, sum_km2 = 0.0;
        for (int i = 0; i < n; i++) {
            double diff_km1 = phi_k[i] + d->corr[i];
            double diff_km2 = diff_km1 + phi_km1[i];
            sum_km1 += (diff_km1 * w[i]) * (diff_km1 * w[i]);
            sum_km2 += (diff_km2 * w[i]) * (diff_km2 * w[i]);
        }
        e->est_km1 = d->sigma[k - 1] * sqrt(sum_km1 / n);
        e->term_km1 = k * e->est_km1;
        int lower;
        if (k > 2) {
            double est_km2 = d->sigma[k - 2] * sqrt(sum_km2 / n);
            double term_km2 = (k - 1) * est_km2;
            lower = fmax(e->term_km1, term_km2) <= e->term_k;
        } else {
            lower = e->term_km1 <= 0.5 * e->term_k;
        }
        if (lower) {
            e->order_new = k - 1;
            e->est = e->est_km1;
        }
    }
    e->err_norm = d->ck * corr_norm;
}

/* After an accepted step: choose order and h for the next step, then
** update the difference table ([BCP] 5.2.3). */
static void accept_step(dstiff_mem *d, const err_estimates *e, double t_new)
{
    int n = d->n;
    int k_step = d->order;
    double h_step = d->h;
    int order_change = k_step - d->order_old;
    d->order_old = k_step;
    d->h_old = h_step;
    d->head.stats.n_steps++;
    d->n_steps_since_init++;
    d->head.stats.h_last = h_step;
    d->head.stats.order_last = k_step;

    int k_next = k_step;
    double est = e->est;
    double h_next;
    if (e->order_new == k_step - 1 || k_step == d->max_order)
        d->initial_phase = 0;
    if (d->initial_phase) {
        /* Initial phase: raise the order by one and double h. */
        k_next = k_step + 1;
        h_next = 2.0 * h_step;
    } else {
        if (e->order_new == k_step - 1) {
            k_next = k_step - 1;
            est = e->est_km1;
        } else if (k_step != d->max_order && k_step + 1 < d->n_const
                   && order_change != 1) {
            /* Estimate at order k+1 from E - phi_{k+1}: only after k+1
            ** steps of constant h and order. */
            const double *phi_kp1 = PHI(d, k_step + 1);
            const double *w = d->w_test;
            double sum = 0.0;
            for (int i = 0; i < n; i++) {
                double diff = (d->corr[i] - phi_kp1[i]) * w[i];
                sum += diff * diff;
            }
            double est_kp1 = sqrt(sum / n) / (k_step + 2);
            double term_kp1 = (k_step + 2) * est_kp1;
            if (k_step == 1) {
                if (term_kp1 < 0.5 * e->term_k) {
                    k_next = 2;
                    est = est_kp1;
                }
            } else if (e->term_km1 <= fmin(e->term_k, term_kp1)) {
                k_next = k_step - 1;
                est = e->est_km1;
            } else if (term_kp1 < e->term_k) {
                k_next = k_step + 1;
                est = est_kp1;
            }
        }
        /* r = (2 est + 1e-4)^(-1/(k+1)): double if r >= 2, keep if
        ** r > 1, else r clamped to [0.5, 0.9]. */
        double ratio = pow(2.0 * est + 1e-4, -1.0 / (k_next + 1));
        if (ratio >= 2.0)
            h_next = 2.0 * h_step;
        else if (ratio > 1.0)
            h_next = h_step;
        else
            h_next = h_step * fmax(0.5, fmin(0.9, ratio));
    }
    if (h_next < d->h_min)
        h_next = d->h_min;
    d->order = k_next;
    d->h = h_next;

    /* New differences: phi_{k+1} = E, phi_k += E, phi_j += phi_{j+1}. */
    if (k_step != d->max_order)
        memcpy(PHI(d, k_step + 1), d->corr, (size_t)n * sizeof(double));
    double *phi_k = PHI(d, k_step);
    for (int i = 0; i < n; i++)
        phi_k[i] += d->corr[i];
    for (int j = k_step - 1; j >= 0; j--) {
        double *phi_j = PHI(d, j);
        const double *phi_jp1 = PHI(d, j + 1);
        for (int i = 0; i < n; i++)
            phi_j[i] += phi_jp1[i];
    }
    d->t_prev = d->t;
    d->t = t_new;
}

static int dstiff_step(void *mem, double t_stop, double *t_new)
{
    dstiff_mem *d = mem;
    if (d == NULL || t_new == NULL || !d->initialized)
        return HYDAE_ERR_ARG;
    *t_new = d->t;
    if (!(t_stop >= d->t) || !isfinite(t_stop))
        return HYDAE_ERR_ARG;
    if (t_stop - d->t <= hy_roundoff_floor(t_stop)) {
        /* t_stop equals t up to roundoff: arrive without a step (a step
        ** of a few ulps would carry no information). */
        d->t = t_stop;
        *t_new = t_stop;
        return HY_TSTOP;
    }
    if (!d->h_chosen) {
        int status = choose_initial_step(d, t_stop);
        if (status != HY_EVAL_OK)
            return hy_eval_error(status, 0);
    }

    int n_conv_fails = 0, n_err_fails = 0, n_singular_fails = 0;
    for (;;) {
        /* Bound h: h_max, then land on t_stop if the step would pass it or
        ** stop just short of it. */
        if (d->h > d->h_max)
            d->h = d->h_max;
        double dist = t_stop - d->t;
        double margin = fmax(100.0 * DBL_EPSILON * fabs(t_stop), 1e-3 * d->h);
        int lands = d->h >= dist - margin;
        if (lands)
            d->h = dist;
        double t_try = lands ? t_stop : d->t + d->h;
        double h_floor = fmax(d->h_min, hy_roundoff_floor(d->t));

        scale_weights_for_step(d);
        set_coefficients(d);
        int status = solve_corrector(d, t_try);
        if (status == HY_EVAL_OK) {
            err_estimates est;
            estimate_errors(d, &est);
            if (est.err_norm <= 1.0) {
                accept_step(d, &est, t_try);
                set_weights(d, d->y, d->yp, d->t, 1);
                *t_new = d->t;
                return lands ? HY_TSTOP : HYDAE_OK;
            }
            /* Error test failure ([BCP] 5.2.3): first r = 0.9 (2 est +
            ** 1e-4)^(-1/(k+1)) in [0.25, 0.9] at order knew; second
            ** r = 0.25 at knew; later order 1 and r = 0.25. */
            const double *w = d->w_test;
            d->head.worst = hy_argmax_weighted(d->n, d->corr, w);
            d->head.stats.n_err_fails++;
            n_err_fails++;
            restore_history(d);
            d->initial_phase = 0;
            if (n_err_fails == 1) {
                d->order = est.order_new;
                double ratio =
                    0.9 * pow(2.0 * est.est + 1e-4, -1.0 / (d->order + 1));
                d->h *= fmax(0.25, fmin(0.9, ratio));
            } else if (n_err_fails == 2) {
                d->order = est.order_new;
                d->h *= DSTIFF_FAIL_FACTOR;
            } else {
                d->order = 1;
                d->h *= DSTIFF_FAIL_FACTOR;
            }
            if (d->h < h_floor || d->t + d->h == d->t)
                return n_err_fails >= 3 ? HYDAE_ERR_ERRTEST : HYDAE_ERR_HMIN;
            if (n_err_fails >= DSTIFF_MAX_ERR_FAILS)
                return HYDAE_ERR_ERRTEST;
            continue;
        }
        /* Corrector failure ([BCP] 5.2.2): restore, then h *= 0.25. */
        restore_history(d);
        if (status == HY_EVAL_RES_FATAL || status == HY_EVAL_JAC_FATAL
            || status == HY_EVAL_NOMEM)
            return hy_eval_error(status, 0);
        d->head.stats.n_conv_fails++;
        d->initial_phase = 0;
        d->h *= DSTIFF_FAIL_FACTOR;
        int too_small = d->h < h_floor || d->t + d->h == d->t;
        if (status == HY_EVAL_SINGULAR) {
            n_singular_fails++;
            if (n_singular_fails >= DSTIFF_MAX_SINGULAR_FAILS || too_small)
                return HYDAE_ERR_SINGULAR;
            continue;
        }
        n_conv_fails++;
        if (n_conv_fails >= DSTIFF_MAX_CONV_FAILS || too_small)
            return hy_eval_error(status, too_small);
    }
}

/* y and y' at t from the difference table of the last step, order
** k_old ([P82], DASSL's interpolation): with s = t - t_n,
** c_1 = 1, c_j = c_{j-1} (s + psi_{j-2}) / psi_{j-1},
** y(t) = sum_j c_j phi_j, y'(t) = sum_j c_j' phi_j. */
static int dstiff_dense(void *mem, double t, double *y, double *yp)
{
    dstiff_mem *d = mem;
    if (d == NULL || !d->initialized || !hy_dense_covers(t, d->t_prev, d->t))
        return HYDAE_ERR_ARG;
    int n = d->n;
    if (d->n_steps_since_init == 0) {
        if (y)
            memcpy(y, PHI(d, 0), (size_t)n * sizeof(double));
        if (yp)
            memcpy(yp, d->yp_init, (size_t)n * sizeof(double));
        return HYDAE_OK;
    }
    double s = t - d->t;
    double coef_y = 1.0, coef_yp = 0.0;
    double factor = s / d->psi[0];
    if (y)
        memcpy(y, PHI(d, 0), (size_t)n * sizeof(double));
    if (yp)
        memset(yp, 0, (size_t)n * sizeof(double));
    for (int j = 1; j <= d->order_old; j++) {
        coef_yp = coef_yp * factor + coef_y / d->psi[j - 1];
        coef_y *= factor;
        factor = (s + d->psi[j - 1]) / d->psi[j];
        const double *phi_j = PHI(d, j);
        if (y)
            for (int i = 0; i < n; i++)
                y[i] += coef_y * phi_j[i];
        if (yp)
            for (int i = 0; i < n; i++)
                yp[i] += coef_yp * phi_j[i];
    }
    return HYDAE_OK;
}

const hy_integrator_ops hy_dstiff = {
    .name = "DSTIFF",
    .create = dstiff_create,
    .init = dstiff_init,
    .step = dstiff_step,
    .dense = dstiff_dense,
    .get_stats = hy_get_stats,
    .worst_component = hy_worst_component,
    .destroy = dstiff_destroy,
    .needs_rhs = 0,
    .fixed_step = 0,
    .uses_matrix = 1,
    .max_order = DSTIFF_MAX_ORDER,
};
