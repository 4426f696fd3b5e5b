/*
** ABAM: variable-order (1-12), variable-step Adams-Bashforth-Moulton
** PECE integrator for explicit ODEs y' = f(t, y), in the modified divided
** difference formulation of Shampine and Gordon, written for this project
** from the published algorithm:
**
**   [SG]  L.F. Shampine, M.K. Gordon, "Computer Solution of Ordinary
**         Differential Equations: the Initial Value Problem", Freeman
**         1975: the modified divided differences phi_i and phi*_i =
**         beta_i phi_i, the coefficients psi, alpha, beta, sigma and
**         g_i = c_{i,1} with c_{1,q} = 1/q, c_{i,q} = c_{i-1,q} -
**         alpha_{i-1} c_{i-1,q+1}; the PECE step with local extrapolation
**         (predictor of order k, corrector y = p + h g_{k+1} phi_{k+1});
**         the local error estimate h (g_k - g_{k+1}) ||phi_{k+1}|| and the
**         constant-step estimates ERKM2, ERKM1, ERK, ERKP1 at orders k-2 ..
**         k+1; the order and step size selection of their STEP routine
**         (initial phase of order raising and step doubling; step ratios
**         in {2, 1, [0.5, 0.9]}; halving after failures, order 1 after the
**         third, the "optimal" step after the fourth); the roundoff
**         control by compensated summation of y; the interpolation of
**         their INTRP routine.
**   [HNW] E. Hairer, S.P. Norsett, G. Wanner, "Solving Ordinary
**         Differential Equations I", 2nd ed., Springer 1993: III.1,
**         the Adams-Moulton coefficients gamma*_j (the constant-step
**         error constants |gamma*_j| of [SG]'s GSTR table); III.5, the
**         same variable-step Adams formulas; II.4, the starting step size
**         algorithm (used here with p = 1, the order of the first step).
**
** Deviations from [SG], all deliberate: error weights 1/(rtol_i |y_i| +
** atol_i) taken at the start of each step, as their DE driver does, with
** the weighted RMS norm of this interface (SG use the Euclidean norm and
** eps; here eps = 1); the starting step is HNW's (SG's own is 0.25
** sqrt(eps/||y'||)); the compensated summation is always on (SG switch
** it on only near the roundoff limit); the tolerance is never raised
** (SG's "crash" return): a step below roundoff fails with HYDAE_ERR_HMIN;
** steps are bounded by h_max and h_min, and end exactly on t_stop (the
** step is shortened, as SG's DE does when it may not pass TOUT); a
** failure of f (a return > 0 or a value that is not finite) rejects the
** step with h / 4 and counts as a rejected step; the coefficients are
** recomputed in full every step instead of SG's incremental updates of
** V and W (the same values, k <= 12, O(k^2) work).
*/
#include "integrators/stepctl.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ABAM_MAX_ORDER 12
/* phi_1 .. phi_{k+2}. */
#define ABAM_N_PHI (ABAM_MAX_ORDER + 2)
#define ABAM_HALF_TOL 0.5               /* SG's p5eps with eps = 1 */
#define ABAM_RHS_FAIL_FACTOR 0.25       /* h after a failure of f */
#define ABAM_MAX_RHS_FAILS 10           /* consecutive, per step */
#define ABAM_MAX_ERR_FAILS 100          /* consecutive, per step */

/* |gamma*_j|, j = 1..13: the Adams-Moulton coefficients in backward
** difference form, gamma*_0 = 1, sum_{i=0..j} gamma*_i / (j + 1 - i) = 0
** ([HNW] III.1), exact fractions: 1/2, 1/12, 1/24, 19/720, 3/160,
** 863/60480, 275/24192, 33953/3628800, 8183/1036800, 3250433/479001600,
** 4671/788480, 13695779093/2615348736000, 2224234463/475517952000.
** They are [SG]'s GSTR constants. Index 0 unused. */
static const double abam_gamma_star[ABAM_MAX_ORDER + 2] = {
    0.0,
    1.0 / 2.0,
    1.0 / 12.0,
    1.0 / 24.0,
    19.0 / 720.0,
    3.0 / 160.0,
    863.0 / 60480.0,
    275.0 / 24192.0,
    33953.0 / 3628800.0,
    8183.0 / 1036800.0,
    3250433.0 / 479001600.0,
    4671.0 / 788480.0,
    13695779093.0 / 2615348736000.0,
    2224234463.0 / 475517952000.0,
};

typedef struct abam_mem {
    hy_explicit e;              /* first: the shared state (y = y_n at x_n;
                                ** f(x_n, y_n) is phi_1 once e.have_f) */
    double *rtol;
    double *atol;
    double h_user;              /* opt->h0, 0 = automatic */
    double h0_max;              /* cap on the automatic first step, 0 = none */
    double h_min;               /* 0 = none */
    double h_max;               /* +inf = none */
    int max_order;

    /* Integration state ([SG] notation; arrays indexed from 1; e.t = x_n,
    ** e.t_prev = x_{n-1}). */
    double h;                   /* step to try next; 0 = not chosen yet */
    double h_old;               /* last accepted step */
    int order;                  /* k to try next */
    int order_old;              /* k of the last accepted step */
    int n_const;                /* ns: steps taken with the same h */
    int phase1;                 /* initial phase: raise order, double h */
    double psi[ABAM_N_PHI];     /* psi_i(n) = x_n - x_{n-i} */

    /* Coefficients of the step being attempted. */
    double psi_new[ABAM_N_PHI];
    double alpha[ABAM_N_PHI];
    double beta[ABAM_N_PHI];
    double sigma[ABAM_N_PHI];
    double g[ABAM_N_PHI];

    double *phi;                /* phi_1..phi_{k+2}, n each */
    double *y_comp;             /* rounding lost when y_n was formed */
    double *p;                  /* predicted solution */
    double *p_comp;             /* rounding lost when p was formed */
    double *fp;                 /* f(x_{n+1}, p) */
    double *f_ext;              /* sum phi*_i: f extrapolated to x_{n+1} */
    double *y_new;
    double *y_new_comp;
    double *f_new;
    double *weight;             /* 1 / (rtol |y_n| + atol) */
} abam_mem;

#define PHI(d, i) ((d)->phi + (size_t)((i) - 1) * (size_t)(d)->e.n)

/* ------------------------------------------------------------------------
** Helpers
*/

/* Starting step ([HNW] II.4, steps a-f, for a method of order p = 1, the
** order of the first step): d0 = ||y0||, d1 = ||f0||, h0 = 0.01 d0/d1
** (1e-6 if either < 1e-5), d2 = ||f(t0+h0, y0+h0 f0) - f0|| / h0,
** h1 = (0.01 / max(d1, d2))^(1/2) (max(1e-6, 1e-3 h0) if max(d1, d2) <=
** 1e-15), h = min(100 h0, h1); h0 is also bounded by h_max and t_stop -
** t0. Scratch: p, fp. The same algorithm as rk45.c's initial_step, kept
** apart: this one measures with the step's weights (hy_wrms_norm) and
** takes the root for p = 1 by sqrt, RK45 its own norm (norm_at) and
** pow(., 1/5); one function would need a norm callback and a pow in
** place of sqrt, which may change the last bit of h. */
static int initial_step(abam_mem *d, double t_stop, double *h_out)
{
    int n = d->e.n;
    const double *f0 = PHI(d, 1);
    double d0 = hy_wrms_norm(n, d->e.y, d->weight);
    double d1 = hy_wrms_norm(n, f0, d->weight);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    h0 = fmin(fmin(h0, t_stop - d->e.t), d->h_max);
    for (int i = 0; i < n; i++)
        d->p[i] = d->e.y[i] + h0 * f0[i];
    int status = hy_eval_rhs(&d->e.dae, &d->e.head, d->e.t + h0, d->p, d->fp);
    if (status == HY_EVAL_RES_FATAL)
        return HY_EVAL_RES_FATAL;
    if (status == HY_EVAL_RES_FAIL) {
        *h_out = h0;
        return HY_EVAL_OK;
    }
    for (int i = 0; i < n; i++)
        d->fp[i] -= f0[i];
    double d2 = hy_wrms_norm(n, d->fp, d->weight) / h0;
    double d_max = fmax(d1, d2);
    double h1 = d_max <= 1e-15 ? fmax(1e-6, 1e-3 * h0) : sqrt(0.01 / d_max);
    *h_out = fmin(100.0 * h0, h1);
    return HY_EVAL_OK;
}

/* Coefficients of the step of size h at order k from x_n ([SG]):
** psi_i(n+1) = psi_{i-1}(n) + h (psi_0 = 0), alpha_i = h / psi_i(n+1),
** beta_1 = 1, beta_i = beta_{i-1} psi_{i-1}(n+1) / psi_{i-1}(n),
** sigma_1 = 1, sigma_{i+1} = i alpha_i sigma_i, and g_i = c_{i,1}
** (i = 1..k+1) by the recurrence in q given at the top. */
static void set_coefficients(abam_mem *d, int k, double h)
{
    d->psi_new[1] = h;
    for (int i = 2; i <= k; i++)
        d->psi_new[i] = d->psi[i - 1] + h;
    d->beta[1] = 1.0;
    for (int i = 2; i <= k; i++)
        d->beta[i] = d->beta[i - 1] * d->psi_new[i - 1] / d->psi[i - 1];
    d->sigma[1] = 1.0;
    for (int i = 1; i <= k; i++) {
        d->alpha[i] = h / d->psi_new[i];
        d->sigma[i + 1] = i * d->alpha[i] * d->sigma[i];
    }
    double c[ABAM_N_PHI + 1] = { 0.0 };
    for (int q = 1; q <= k + 1; q++)
        c[q] = 1.0 / q;
    d->g[1] = c[1];
    for (int i = 2; i <= k + 1; i++) {
        for (int q = 1; q <= k + 2 - i; q++)
            c[q] -= d->alpha[i - 1] * c[q + 1];
        d->g[i] = c[1];
    }
}

/* ------------------------------------------------------------------------
** The descriptor's functions
*/

#define ABAM_VECTORS(d)                                                      \
    { &(d)->rtol, &(d)->atol, &(d)->y_comp, &(d)->p, &(d)->p_comp, &(d)->fp, \
      &(d)->f_ext, &(d)->y_new, &(d)->y_new_comp, &(d)->f_new, &(d)->weight }
#define ABAM_N_VECTORS 11

static void abam_destroy(void *mem)
{
    abam_mem *d = mem;
    if (d == NULL)
        return;
    double **const slots[ABAM_N_VECTORS] = ABAM_VECTORS(d);
    hy_free_vectors(slots, ABAM_N_VECTORS);
    hy_free(d->phi);
    hy_explicit_free(&d->e);
    hy_free(d);
}

static void *abam_create(int n)
{
    if (n <= 0)
        return NULL;
    abam_mem *d = hy_calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    double **const slots[ABAM_N_VECTORS] = ABAM_VECTORS(d);
    d->phi = hy_calloc(ABAM_N_PHI * (size_t)n, sizeof(double));
    if (d->phi == NULL || hy_explicit_alloc(&d->e, n) != 0
        || hy_alloc_vectors(n, slots, ABAM_N_VECTORS) != 0) {
        abam_destroy(d);
        return NULL;
    }
    return d;
}

static int abam_init(void *mem, const hy_dae *dae, double t0, const double *y0,
                     const double *yp0, const hy_options *opt)
{
    abam_mem *d = mem;
    if (d == NULL || dae == NULL || opt == NULL || y0 == NULL)
        return HYDAE_ERR_ARG;
    d->e.initialized = 0;
    int n = d->e.n;
    if (dae->n != n || opt->max_order < 0
        || hy_step_bounds(opt, &d->h_min, &d->h_max) != 0
        || hy_copy_tolerances(n, opt, 1, d->rtol, d->atol) != 0
        || !hy_all_finite(n, y0)
        || hy_set_weights(n, d->rtol, d->atol, y0, 0, d->weight) != 0)
        return HYDAE_ERR_ARG;
    int status = hy_explicit_init(&d->e, dae, t0, y0, yp0);
    if (status != HYDAE_OK)
        return status;
    d->h_user = opt->h0;
    d->h0_max = opt->h0_max > 0.0 ? opt->h0_max : INFINITY;
    d->max_order = opt->max_order > 0 && opt->max_order < ABAM_MAX_ORDER
                       ? opt->max_order
                       : ABAM_MAX_ORDER;

    /* Order 1, nothing accepted yet, phi_2 = 0 ([SG], start of STEP). */
    d->h = 0.0;
    d->h_old = 0.0;
    d->order = 1;
    d->order_old = 0;
    d->n_const = 0;
    d->phase1 = 1;
    memset(d->psi, 0, sizeof d->psi);
    memset(PHI(d, 2), 0, (size_t)n * sizeof(double));
    memset(d->y_comp, 0, (size_t)n * sizeof(double));
    return HYDAE_OK;
}

/* Error estimates of one attempt ([SG], STEP block 2). */
typedef struct err_estimates {
    double err;             /* |h| (g_k - g_{k+1}) ||phi_{k+1}||: the test */
    double erk;             /* constant-step estimate at order k */
    double erkm1, erkm2;    /* at orders k-1, k-2 (0 if not defined) */
    int order_new;          /* k, or k-1 if that looks better */
} err_estimates;

/* Predict p = y_n + h sum g_i phi*_i (compensated), evaluate f^p, and
** estimate the errors from phi^p_{k+1} = f^p - sum phi*_i and the
** predicted phi^p_k, phi^p_{k-1}. */
static int predict_evaluate(abam_mem *d, int k, double h, double t_try,
                            err_estimates *e)
{
    int n = d->e.n;
    for (int l = 0; l < n; l++) {
        double f_sum = 0.0, incr = 0.0;
        for (int i = k; i >= 1; i--) {
            double phi_star = d->beta[i] * PHI(d, i)[l];
            f_sum += phi_star;
            incr += d->g[i] * phi_star;
        }
        d->f_ext[l] = f_sum;
        /* Compensated y_n + h incr ([SG] roundoff control). */
        double tau = h * incr - d->y_comp[l];
        d->p[l] = d->e.y[l] + tau;
        d->p_comp[l] = (d->p[l] - d->e.y[l]) - tau;
    }
    int status = hy_eval_rhs(&d->e.dae, &d->e.head, t_try, d->p, d->fp);
    if (status != HY_EVAL_OK)
        return status;
    double sum_k = 0.0, sum_km1 = 0.0, sum_km2 = 0.0;
    double worst_val = -1.0;
    int worst = -1;
    for (int l = 0; l < n; l++) {
        double w = d->weight[l];
        double diff_kp1 = d->fp[l] - d->f_ext[l];
        double scaled = diff_kp1 * w;
        sum_k += scaled * scaled;
        if (!(fabs(scaled) <= worst_val)) {
            worst_val = fabs(scaled);
            worst = l;
        }
        if (k >= 2) {
            double diff_k = d->beta[k] * PHI(d, k)[l] + diff_kp1;
            sum_km1 += (diff_k * w) * (diff_k * w);
            if (k >= 3) {
                double diff_km1 = d->beta[k - 1] * PHI(d, k - 1)[l] + diff_k;
                sum_km2 += (diff_km1 * w) * (diff_km1 * w);
            }
        }
    }
    double abs_h = fabs(h);
    e->erkm2 = k >= 3 ? abs_h * d->sigma[k - 1] * abam_gamma_star[k - 2]
                            * sqrt(sum_km2 / n)
                      : 0.0;
    e->erkm1 = k >= 2 ? abs_h * d->sigma[k] * abam_gamma_star[k - 1]
                            * sqrt(sum_km1 / n)
                      : 0.0;
    double base = abs_h * sqrt(sum_k / n);
    e->err = base * (d->g[k] - d->g[k + 1]);
    e->erk = base * d->sigma[k + 1] * abam_gamma_star[k];
    /* Lower the order if the lower-order estimates are no larger. */
    e->order_new = k;
    if (k >= 3 && fmax(e->erkm1, e->erkm2) <= e->erk)
        e->order_new = k - 1;
    else if (k == 2 && e->erkm1 <= 0.5 * e->erk)
        e->order_new = 1;
    if (!(e->err <= 1.0))
        d->e.head.worst = worst;
    return HY_EVAL_OK;
}

/* After an accepted step of order k, nominal size h (the controller's,
** which ns compares) and actual size h_step = t_new - t: the new differences
** phi_{k+1}(n+1) = f_{n+1} - sum phi*_i, phi_{k+2}(n+1) = phi_{k+1}(n+1)
** - phi_{k+1}(n), phi_i(n+1) = phi*_i(n) + phi_{i+1}(n+1); then order and
** step for the next step ([SG], STEP block 4). */
static void accept_step(abam_mem *d, int k, double h, double h_step,
                        double t_new, const err_estimates *e)
{
    int n = d->e.n;
    for (int l = 0; l < n; l++) {
        double diff_kp1 = d->f_new[l] - d->f_ext[l];
        PHI(d, k + 2)[l] = diff_kp1 - PHI(d, k + 1)[l];
        PHI(d, k + 1)[l] = diff_kp1;
        for (int i = k; i >= 1; i--)
            PHI(d, i)[l] = d->beta[i] * PHI(d, i)[l] + PHI(d, i + 1)[l];
    }
    double *swap = d->e.y;
    d->e.y = d->y_new;
    d->y_new = swap;
    swap = d->y_comp;
    d->y_comp = d->y_new_comp;
    d->y_new_comp = swap;
    for (int i = 1; i <= k; i++)
        d->psi[i] = d->psi_new[i];
    hy_explicit_advance(&d->e, t_new, h_step, k, 0);
    d->h_old = h;
    d->order_old = k;

    /* Order: the estimate at k+1 needs k+1 steps of constant h. */
    int k_max = d->max_order;
    int k_next = k;
    double erk = e->erk;
    if (e->order_new == k - 1 || k == k_max)
        d->phase1 = 0;
    if (d->phase1) {
        k_next = k + 1;
        erk = 0.0;
    } else if (e->order_new == k - 1) {
        k_next = k - 1;
        erk = e->erkm1;
    } else if (k + 1 <= d->n_const) {
        double erkp1 = fabs(h_step) * abam_gamma_star[k + 1]
                       * hy_wrms_norm(n, PHI(d, k + 2), d->weight);
        if (k == 1) {
            if (erkp1 < 0.5 * erk && k < k_max) {
                k_next = 2;
                erk = erkp1;
            }
        } else if (e->erkm1 <= fmin(erk, erkp1)) {
            k_next = k - 1;
            erk = e->erkm1;
        } else if (erkp1 < erk && k < k_max) {
            k_next = k + 1;
            erk = erkp1;
        }
    }
    /* Step: double, keep, or r = (0.5/erk)^(1/(k+1)) clamped to
    ** [0.5, 0.9]. */
    double h_next;
    if (d->phase1 || ABAM_HALF_TOL >= erk * ldexp(1.0, k_next + 1)) {
        h_next = 2.0 * h;
    } else if (ABAM_HALF_TOL >= erk) {
        h_next = h;
    } else {
        double ratio = pow(ABAM_HALF_TOL / erk, 1.0 / (k_next + 1));
        h_next = h * fmax(0.5, fmin(0.9, ratio));
        h_next = fmax(h_next, hy_roundoff_floor(t_new));
    }
    d->order = k_next;
    d->h = fmax(fmin(h_next, d->h_max), d->h_min);
}

static int abam_step(void *mem, double t_stop, double *t_new)
{
    abam_mem *d = mem;
    int status = hy_explicit_begin(d ? &d->e : NULL, t_stop, t_new,
                                   d ? PHI(d, 1) : NULL);
    if (status != HYDAE_OK)
        return status;
    int n = d->e.n;
    if (hy_explicit_at_stop(&d->e, t_stop)) {
        /* t_stop equals t up to roundoff: arrive without a step, moving y
        ** by (t_stop - t) f ([SG]'s DE extrapolates likewise). */
        hy_explicit_arrive(&d->e, t_stop, PHI(d, 1));
        memset(d->y_comp, 0, (size_t)n * sizeof(double));
        *t_new = t_stop;
        return HY_TSTOP;
    }
    if (d->h == 0.0) {
        double h = d->h_user;
        if (h == 0.0) {
            if (initial_step(d, t_stop, &h) == HY_EVAL_RES_FATAL)
                return HYDAE_ERR_RESIDUAL;
            h = fmin(h, d->h0_max);
        }
        d->h = fmax(fmax(h, d->h_min), hy_roundoff_floor(d->e.t));
    }
    hy_set_weights(n, d->rtol, d->atol, d->e.y, 1, d->weight);

    int n_fails = 0, n_rhs_fails = 0;
    for (;;) {
        int k = d->order;
        /* The controller's (nominal) step decides ns and the next step;
        ** the formulas use the step actually taken, t_try - t, which may
        ** differ from it by an ulp of t (so that y' = 1 gives y = t
        ** without drift), and which is kept within h_max. */
        hy_explicit_try plan;
        if (hy_explicit_plan(&d->e, d->h, d->h_min, d->h_max, t_stop, &plan)
            != HYDAE_OK)
            return HYDAE_ERR_HMIN;
        double h_nominal = plan.h_nominal, t_try = plan.t_try;
        double h_step = plan.h_step, h_floor = plan.h_floor;
        int lands = plan.lands;
        /* ns: steps taken with this h, counting this one, at most
        ** k_old + 1 ([SG] block 1). */
        if (h_nominal != d->h_old)
            d->n_const = 0;
        if (d->n_const <= d->order_old)
            d->n_const++;
        set_coefficients(d, k, h_step);

        err_estimates est = { 0.0, 0.0, 0.0, 0.0, k };
        status = predict_evaluate(d, k, h_step, t_try, &est);
        if (status == HY_EVAL_OK && est.err <= 1.0) {
            /* Correct (compensated) and evaluate. */
            double h_g = h_step * d->g[k + 1];
            for (int l = 0; l < n; l++) {
                double rho = h_g * (d->fp[l] - d->f_ext[l]) - d->p_comp[l];
                d->y_new[l] = d->p[l] + rho;
                d->y_new_comp[l] = (d->y_new[l] - d->p[l]) - rho;
            }
            status = hy_eval_rhs(&d->e.dae, &d->e.head, t_try, d->y_new, d->f_new);
            if (status == HY_EVAL_OK) {
                accept_step(d, k, h_nominal, h_step, t_try, &est);
                *t_new = t_try;
                return lands ? HY_TSTOP : HYDAE_OK;
            }
        }
        if (status == HY_EVAL_RES_FATAL)
            return HYDAE_ERR_RESIDUAL;
        d->e.head.stats.n_err_fails++;
        d->phase1 = 0;
        d->n_const = 0;
        if (status == HY_EVAL_RES_FAIL) {
            n_rhs_fails++;
            d->h = ABAM_RHS_FAIL_FACTOR * h_nominal;
            if (n_rhs_fails >= ABAM_MAX_RHS_FAILS || d->h < h_floor
                || d->e.t + d->h == d->e.t)
                return HYDAE_ERR_RESIDUAL;
            continue;
        }
        /* Error test failure ([SG] block 3): halve h; from the third
        ** failure on use order 1; from the fourth on, the step that
        ** order-1 estimate suggests if it is smaller than h/2. */
        n_fails++;
        double factor = 0.5;
        int k_retry = est.order_new;
        if (n_fails >= 3)
            k_retry = 1;
        if (n_fails > 3 && ABAM_HALF_TOL < 0.25 * est.erk)
            factor = sqrt(ABAM_HALF_TOL / est.erk);
        d->h = factor * h_nominal;
        d->order = k_retry;
        if (d->h < h_floor || d->e.t + d->h == d->e.t)
            return HYDAE_ERR_HMIN;
        if (n_fails >= ABAM_MAX_ERR_FAILS)
            return HYDAE_ERR_ERRTEST;
    }
}

/* y and y' at t in [x_n - h, x_n] by [SG]'s interpolation (INTRP) with
** the k_old + 1 differences of the last step: with s = t - x_n,
** rho_1 = 1, rho_{i+1}(s) = rho_i(s) (s + psi_{i-1}) / psi_i (psi_0 = 0),
**   y'(t) = sum_i rho_i(s) phi_i(n),
**   y(t)  = y_n + sum_i phi_i(n) int_0^s rho_i,
** the integrals evaluated exactly from the polynomials rho_i in u = s/h. */
static int abam_dense(void *mem, double t, double *y, double *yp)
{
    abam_mem *d = mem;
    int point = hy_explicit_dense_point(d ? &d->e : NULL, t,
                                        d ? PHI(d, 1) : NULL, y, yp);
    if (point != 0)
        return point < 0 ? point : HYDAE_OK;
    int n = d->e.n;
    int n_terms = d->order_old + 1;
    double h = d->psi[1];
    double u = (t - d->e.t) / h;
    /* poly[m]: coefficient of u^m in rho_i. */
    double poly[ABAM_N_PHI + 1];
    double rho[ABAM_N_PHI + 1], integral[ABAM_N_PHI + 1];
    poly[0] = 1.0;
    int degree = 0;
    for (int i = 1; i <= n_terms; i++) {
        if (i > 1) {
            /* Multiply by (s + psi_{i-2})/psi_{i-1} = a u + b. */
            double a = h / d->psi[i - 1];
            double b = i > 2 ? d->psi[i - 2] / d->psi[i - 1] : 0.0;
            poly[degree + 1] = a * poly[degree];
            for (int m = degree; m >= 1; m--)
                poly[m] = b * poly[m] + a * poly[m - 1];
            poly[0] = b * poly[0];
            degree++;
        }
        double value = 0.0, area = 0.0;
        for (int m = degree; m >= 0; m--) {
            value = value * u + poly[m];
            area = area * u + poly[m] / (m + 1);
        }
        rho[i] = value;
        integral[i] = h * u * area;
    }
    for (int l = 0; l < n; l++) {
        double y_incr = 0.0, deriv = 0.0;
        for (int i = n_terms; i >= 1; i--) {
            double phi_i = PHI(d, i)[l];
            y_incr += integral[i] * phi_i;
            deriv += rho[i] * phi_i;
        }
        if (y)
            y[l] = d->e.y[l] + y_incr;
        if (yp)
            yp[l] = deriv;
    }
    return HYDAE_OK;
}

const hy_integrator_ops hy_abam = {
    .name = "ABAM",
    .create = abam_create,
    .init = abam_init,
    .step = abam_step,
    .dense = abam_dense,
    .get_stats = hy_get_stats,
    .worst_component = hy_worst_component,
    .destroy = abam_destroy,
    .needs_rhs = 1,
    .fixed_step = 0,
    .max_order = ABAM_MAX_ORDER,
};
