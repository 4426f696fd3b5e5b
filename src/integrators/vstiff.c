/*
** VSTIFF: variable-order (1-5), variable-step BDF integrator for explicit
** ODEs y' = f(t, y), in Nordsieck form with the fixed-leading-coefficient
** variable-step formulas of VODE.
**
**   [BBH89] P.N. Brown, G.D. Byrne, A.C. Hindmarsh, "VODE: a variable-
**           coefficient ODE solver", SIAM J. Sci. Stat. Comput. 10 (1989)
**           1038-1051: the method (BDF in Nordsieck form, fixed-leading-
**           coefficient variable-step updates), the modified Newton
**           corrector with the iteration matrix P = I - gamma J and its
**           reuse (the saved Jacobian), and the step/order strategy
**           constants used below.
**   [JSD80] K.R. Jackson, R. Sacks-Davis, "An alternative implementation
**           of variable step-size multistep formulas for stiff ODEs", ACM
**           TOMS 6 (1980) 295-318: the fixed-leading-coefficient form.
**   [BH75]  G.D. Byrne, A.C. Hindmarsh, "A polyalgorithm for the numerical
**           solution of ordinary differential equations", ACM TOMS 1 (1975)
**           71-96: Nordsieck history, prediction by the Pascal triangle,
**           step change by rescaling the history.
**   [HNW]   E. Hairer, S.P. Norsett, G. Wanner, "Solving Ordinary
**           Differential Equations I", 2nd ed., Springer 1993, sec. III.5
**           (variable step size BDF: error constants through the
**           divided-difference form).
**   [CV]    A.C. Hindmarsh, R. Serban et al., CVODE documentation,
**           "Mathematical considerations" (the same strategy as VODE, in
**           words): Newton matrix reuse rules, the initial step algorithm.
**
** The method. The history is the Nordsieck array z_j = h^j pi^(j)(t_n)/j!,
** j = 0..q, of a polynomial pi of degree q. A step predicts z <- A z (A the
** Pascal triangle, i.e. pi evaluated at t_n + h) and corrects
** z <- z + e l, where e = y_{n+1} - y_pred and l holds the coefficients of
**   Lambda(x) = (1 + x/xi*) prod_{i=1}^{q-1} (1 + x/xi_i),
**   xi_i = (t_{n+1} - t_{n+1-i})/h,  1/xi* = l_1 - sum_{i<q} 1/xi_i,
**   l_1 = Lambda'(0) = sum_{j=1}^q 1/j           ([JSD80], [BBH89] sec. 2),
** so that the new polynomial keeps the values at the q-1 previous points,
** l_1 does not depend on the step history (fixed leading coefficient) and
** the corrector is y = y_pred + (h f(y) - h y'_pred)/l_1, solved by
** modified Newton with P = I - gamma J, gamma = h/l_1.
**
** Error estimates (derived here from the variable-step BDF in divided-
** difference form, [HNW] III.5; exact for constant steps, where they are
** the classical 1/((q+1) l_1) of [BH75]): with xi_i as above,
**   E_q     = ||e|| / (xi_{q+1} sum_{i=1}^{q} 1/xi_i),
**   E_{q-1} = ||z_q|| prod_{i<q} xi_i / sum_{i<q} 1/xi_i,
**   E_{q+1} = ||d_n - d_{n-1}|| / (q+2) prod_{i<=q+1} xi_i / sum 1/xi_i,
** where d = e / prod_{i=1}^{q+1} xi_i estimates h^{q+1} y^{(q+1)}/(q+1)!.
** The order changes by adding or removing the top Nordsieck column with the
** polynomial w(x) = x^2 prod (x + xi_i), which keeps y, y' at t_n and the
** values at the previous points (so the history stays a BDF history).
**
** Strategy constants ([BBH89]; the same in [CV]): at most 3 corrector
** iterations, convergence rate factor 0.3, divergence ratio 2, test
** constant 0.5/(q+2); P re-formed when gamma changed by more than 30% or
** every 20 steps, J re-evaluated every 50 steps or after a convergence
** failure with a stale J; step ratios with biases 6, 6, 10 and 1e-6, no
** increase below 1.5, at most 1e4 after the first step and 10 after later
** ones, 0.25 after a convergence failure, at most 0.2 after two error test
** failures, order 1 after three, 7 error test and 10 convergence failures
** at most per step. No source code of VODE, CVODE or LSODE was used.
*/
#include "integrators/common.h"
#include "integrators/itmat.h"
#include "core/core.h"


#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VSTIFF_MAX_ORDER 5
#define VSTIFF_N_COLS (VSTIFF_MAX_ORDER + 2)  /* z_0..z_{q+1} while raising */
#define VSTIFF_N_TAU (VSTIFF_MAX_ORDER + 2)   /* recent step sizes */

/* Strategy constants of [BBH89] (names as in the paper's description). */
#define VSTIFF_MAX_CORR_ITERS 3
#define VSTIFF_CRATE_DOWN 0.3
#define VSTIFF_DIVERGE_RATIO 2.0
#define VSTIFF_GAMMA_CHANGE_MAX 0.3
#define VSTIFF_STEPS_PER_MATRIX 20
#define VSTIFF_STEPS_PER_JAC 50
#define VSTIFF_BIAS_DOWN 6.0
#define VSTIFF_BIAS_SAME 6.0
#define VSTIFF_BIAS_UP 10.0
#define VSTIFF_ETA_ADDON 1e-6
#define VSTIFF_ETA_THRESH 1.5
#define VSTIFF_ETA_MAX_FIRST 1e4
#define VSTIFF_ETA_MAX 10.0
#define VSTIFF_ETA_MIN 0.1
#define VSTIFF_ETA_MAX_ERRFAIL 0.2
#define VSTIFF_ETA_CONVFAIL 0.25
#define VSTIFF_ERRFAILS_TO_ORDER1 3
#define VSTIFF_MAX_ERR_FAILS 7
#define VSTIFF_MAX_CONV_FAILS 10

typedef struct vstiff_mem {
    hy_mem_head head;           /* first: statistics, worst component */
    int n;
    int initialized;

    /* Problem and options, copied at init(). */
    hy_dae dae;
    double *rtol, *atol;        /* per component */
    double h_user, h_min, h_max;
    double h0_max;              /* cap on the automatic first step, 0 = none */
    int max_order;

    /* History. */
    double t;                   /* t_n, the time z refers to */
    double t_prev;              /* start of the last accepted step */
    double h;                   /* scaling of z: z_j = h^j y^(j)/j! */
    int order;                  /* q, degree of the history polynomial */
    int started;                /* 0 until the first step() formed z_1 */
    long n_steps_since_init;
    double tau[VSTIFF_N_TAU];   /* tau[0] = last accepted step, ... */
    int n_tau;                  /* valid entries of tau */

    /* Decisions for the next step, applied at its start. */
    double h_next;
    int order_next;
    int order_wait;             /* steps before an order change is considered */
    double eta_max;             /* bound on h_next / h for the next success */

    /* d = e / prod xi of the last accepted step ([HNW] III.5 estimate of
    ** h^{q+1} y^{(q+1)}/(q+1)!), for E_{q+1} and for raising the order. */
    double *d_last;
    double d_last_h;
    int d_last_order;
    int d_last_valid;

    /* Newton iteration matrix P = I - gamma J and the saved J = df/dy. */
    hy_itmat iter;              /* J = df/dy, P = I - gamma J and its factors */
    int have_jac, have_matrix;
    int jac_fresh;              /* J evaluated during the current step */
    double gamma_matrix;        /* gamma with which P was formed */
    long steps_since_matrix, steps_since_jac;
    double conv_rate;

    /* Work vectors of length n; z and z_backup hold N_COLS vectors. */
    double *z, *z_backup;
    double *y;                  /* corrector iterate */
    double *f;                  /* f at the iterate */
    double *corr;               /* e = y - y_pred */
    double *delta;              /* Newton update */
    double *ewt;                /* 1 / (rtol |y| + atol) */
    double *f_pert;             /* f at a perturbed point (FD Jacobian) */
} vstiff_mem;

#define ZCOL(d, j) ((d)->z + (size_t)(j) * (size_t)(d)->n)
#define ZBACK(d, j) ((d)->z_backup + (size_t)(j) * (size_t)(d)->n)

/* ------------------------------------------------------------------------
** Nordsieck history
*/

/* xi_i = (t_{n+1} - t_{n+1-i}) / h for a step of size h from t_n, i >= 1,
** with tau[0..] the accepted steps before it; missing history counts as
** steps of size h. */
static double xi_of_step(const vstiff_mem *d, double h, int i)
{
    double span = h;
    for (int m = 0; m < i - 1; m++)
        span += m < d->n_tau ? d->tau[m] : h;
    return span / h;
}

/* Same, relative to t_n itself after an accepted step (tau[0] = t_n -
** t_{n-1}): xi_i = (t_n - t_{n-i}) / h. */
static double xi_of_history(const vstiff_mem *d, double h, int i)
{
    double span = 0.0;
    for (int m = 0; m < i; m++)
        span += m < d->n_tau ? d->tau[m] : h;
    return span / h;
}

/* The same polynomial in the scaling of h_new: z_j *= (h_new/h)^j. */
static void rescale_history(vstiff_mem *d, double h_new)
{
    int n = d->n;
    double ratio = h_new / d->h;
    double factor = 1.0;
    for (int j = 1; j <= d->order; j++) {
        factor *= ratio;
        double *col = ZCOL(d, j);
        for (int i = 0; i < n; i++)
            col[i] *= factor;
    }
    d->h = h_new;
}

/* Coefficients w_0..w_deg of w(x) = x^2 prod_{i=1}^{deg-2} (x + xi_i)
** (xi relative to t_n), the polynomial that raises or lowers the order
** while keeping y, y' at t_n and the values at the deg-2 previous points. */
static void order_change_poly(const vstiff_mem *d, int deg, double *w)
{
    for (int j = 0; j <= deg; j++)
        w[j] = 0.0;
    w[2] = 1.0;
    for (int i = 1; i <= deg - 2; i++) {
        double xi = xi_of_history(d, d->h, i);
        /* multiply by (x + xi): degree goes from i+1 to i+2 */
        for (int j = i + 2; j >= 1; j--)
            w[j] = w[j - 1] + xi * w[j];
        w[0] *= xi;
    }
}

static void apply_order_change(vstiff_mem *d, int order_new)
{
    int n = d->n, q = d->order;
    double w[VSTIFF_N_COLS];
    if (order_new == q + 1) {
        /* pi + d w, w monic of degree q+1, d the (q+1)-th column. */
        order_change_poly(d, q + 1, w);
        double *top = ZCOL(d, q + 1);
        for (int i = 0; i < n; i++)
            top[i] = d->d_last[i];
        for (int j = 2; j <= q; j++) {
            double *col = ZCOL(d, j);
            for (int i = 0; i < n; i++)
                col[i] += w[j] * top[i];
        }
    } else if (order_new == q - 1) {
        /* pi - z_q w, w monic of degree q: the top column vanishes. */
        order_change_poly(d, q, w);
        double *top = ZCOL(d, q);
        for (int j = 2; j < q; j++) {
            double *col = ZCOL(d, j);
            for (int i = 0; i < n; i++)
                col[i] -= w[j] * top[i];
        }
        memset(top, 0, (size_t)n * sizeof(double));
    }
    d->order = order_new;
    d->d_last_valid = 0;
}

/* z <- A z, A the Pascal triangle: the history polynomial's Taylor
** coefficients at t_n + h ([BH75]). */
static void predict(vstiff_mem *d)
{
    int n = d->n, q = d->order;
    for (int k = 1; k <= q; k++)
        for (int j = q; j >= k; j--) {
            double *lower = ZCOL(d, j - 1);
            const double *upper = ZCOL(d, j);
            for (int i = 0; i < n; i++)
                lower[i] += upper[i];
        }
}

/* The coefficients l_0..l_q of Lambda for a step of size h at order q and
** its error constant C_q = 1/(xi_{q+1} sum 1/xi_i) (see the header). */
static void step_coefficients(const vstiff_mem *d, double h, double *l,
                              double *l1, double *err_const)
{
    int q = d->order;
    double l1_flc = 0.0;
    for (int j = 1; j <= q; j++)
        l1_flc += 1.0 / j;
    for (int j = 0; j <= q; j++)
        l[j] = 0.0;
    l[0] = 1.0;
    double sum_inv_xi = 0.0;
    /* prod_{i<q} (1 + x/xi_i) */
    for (int i = 1; i < q; i++) {
        double inv_xi = 1.0 / xi_of_step(d, h, i);
        sum_inv_xi += inv_xi;
        for (int j = i; j >= 1; j--)
            l[j] += l[j - 1] * inv_xi;
    }
    /* times (1 + x/xi*), 1/xi* = l_1 - sum_{i<q} 1/xi_i */
    double inv_xi_star = l1_flc - sum_inv_xi;
    for (int j = q; j >= 1; j--)
        l[j] += l[j - 1] * inv_xi_star;
    *l1 = l1_flc;
    double sum_vc = sum_inv_xi + 1.0 / xi_of_step(d, h, q);
    *err_const = 1.0 / (xi_of_step(d, h, q + 1) * sum_vc);
}

/* ------------------------------------------------------------------------
** Corrector
*/

/* Modified Newton for e: (I - gamma J) delta = gamma f(y_pred + e) -
** h y'_pred / l_1 - e ([BBH89]); z holds the prediction. */
static int solve_corrector(vstiff_mem *d, double t_new, double h, double l1,
                           double err_const)
{
    int n = d->n, q = d->order;
    double gamma = h / l1;
    double conv_const = 0.5 / (q + 2);
    int force_jac = 0;
    const double *y_pred = ZCOL(d, 0), *hyp_pred = ZCOL(d, 1);
    for (;;) {
        int need_matrix = !d->have_matrix || force_jac
            || fabs(gamma / d->gamma_matrix - 1.0) > VSTIFF_GAMMA_CHANGE_MAX
            || d->steps_since_matrix >= VSTIFF_STEPS_PER_MATRIX;
        int need_jac = !d->have_jac || force_jac
            || d->steps_since_jac >= VSTIFF_STEPS_PER_JAC;
        memcpy(d->y, y_pred, (size_t)n * sizeof(double));
        memset(d->corr, 0, (size_t)n * sizeof(double));
        double del_prev = 0.0;
        int converged = 0;
        for (int iter = 0;; iter++) {
            int status = hy_eval_rhs(&d->dae, &d->head, t_new, d->y, d->f);
            if (status != HY_EVAL_OK)
                return status;
            if (iter == 0 && need_matrix) {
                if (need_jac) {
                    status = hy_itmat_dfdy(&d->iter, &d->dae, &d->head, t_new, h, d->y, d->f, d->ewt, d->f_pert);
                    if (status != HY_EVAL_OK) {
                        d->have_jac = 0;
                        d->have_matrix = 0;
                        return status;
                    }
                    d->have_jac = 1;
                    d->jac_fresh = 1;
                    d->steps_since_jac = 0;
                }
                /* P = I - gamma J, factored. */
                d->gamma_matrix = gamma;
                d->steps_since_matrix = 0;
                d->conv_rate = 0.7;
                status = hy_itmat_form(&d->iter, &d->head, gamma);
                d->have_matrix = status == HY_EVAL_OK;
                if (status != HY_EVAL_OK)
                    return status;
            }
            double gamma_ratio = gamma / d->gamma_matrix;
            /* P was formed with gamma_matrix: scaling the right-hand side
            ** by 2/(1 + gamma_ratio) compensates ([CV]). */
            double rhs_scale = gamma_ratio == 1.0 ? 1.0
                                                  : 2.0 / (1.0 + gamma_ratio);
            for (int i = 0; i < n; i++)
                d->delta[i] = rhs_scale
                    * (gamma * d->f[i] - hyp_pred[i] / l1 - d->corr[i]);
            hy_itmat_solve(&d->iter, d->delta);
            d->head.stats.n_newton_iters++;
            for (int i = 0; i < n; i++) {
                d->y[i] += d->delta[i];
                d->corr[i] += d->delta[i];
            }
            double del = hy_wrms_norm(n, d->delta, d->ewt);
            if (!isfinite(del))
                break;
            if (iter > 0)
                d->conv_rate = fmax(VSTIFF_CRATE_DOWN * d->conv_rate,
                                    del / del_prev);
            /* Converged when the estimated remaining iteration error,
            ** in units of the local error test, is below 0.5/(q+2). */
            double dcon = del * fmin(1.0, 1.5 * d->conv_rate) * err_const
                        / conv_const;
            if (dcon <= 1.0) {
                converged = 1;
                break;
            }
            if (iter + 1 >= VSTIFF_MAX_CORR_ITERS
                || (iter >= 1 && del > VSTIFF_DIVERGE_RATIO * del_prev))
                break;
            del_prev = del;
        }
        if (converged)
            return HY_EVAL_OK;
        d->head.worst = hy_argmax_weighted(n, d->delta, d->ewt);
        if (d->jac_fresh)
            return HY_EVAL_NO_CONV;
        /* The Jacobian was old: retry the step with a new one. */
        force_jac = 1;
    }
}

/* ------------------------------------------------------------------------
** Creation, initialisation
*/

static void vstiff_destroy(void *mem)
{
    vstiff_mem *d = mem;
    if (d == NULL)
        return;
    hy_free(d->rtol);
    hy_free(d->atol);
    hy_free(d->d_last);
    hy_itmat_free(&d->iter);
    hy_free(d->z);
    hy_free(d->z_backup);
    hy_free(d->y);
    hy_free(d->f);
    hy_free(d->corr);
    hy_free(d->delta);
    hy_free(d->ewt);
    hy_free(d->f_pert);
    hy_free(d);
}

static void *vstiff_create(int n)
{
    if (n <= 0)
        return NULL;
    vstiff_mem *d = hy_calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    size_t len = (size_t)n;
    d->n = n;
    d->rtol = hy_malloc(len * sizeof(double));
    d->atol = hy_malloc(len * sizeof(double));
    d->d_last = hy_calloc(len, sizeof(double));
    d->z = hy_calloc(VSTIFF_N_COLS * len, sizeof(double));
    d->z_backup = hy_calloc(VSTIFF_N_COLS * len, sizeof(double));
    d->y = hy_malloc(len * sizeof(double));
    d->f = hy_malloc(len * sizeof(double));
    d->corr = hy_malloc(len * sizeof(double));
    d->delta = hy_malloc(len * sizeof(double));
    d->ewt = hy_malloc(len * sizeof(double));
    d->f_pert = hy_malloc(len * sizeof(double));
    if (!d->rtol || !d->atol || !d->d_last || !d->z || !d->z_backup || !d->y || !d->f || !d->corr
        || !d->delta || !d->ewt || !d->f_pert) {
        vstiff_destroy(d);
        return NULL;
    }
    d->head.worst = -1;
    return d;
}

static int vstiff_init(void *mem, const hy_dae *dae, double t0,
                       const double *y0, const double *yp0,
                       const hy_options *opt)
{
    vstiff_mem *d = mem;
    (void)yp0;  /* y'(t0) = f(t0, y0) is evaluated by the first step */
    if (d == NULL || dae == NULL || opt == NULL || y0 == NULL)
        return HYDAE_ERR_ARG;
    d->initialized = 0;
    int n = d->n;
    if (dae->n != n || dae->rhs == NULL || !isfinite(t0) || opt->max_order < 0
        || hy_step_bounds(opt, &d->h_min, &d->h_max) != 0
        || hy_copy_tolerances(n, opt, 1, d->rtol, d->atol) != 0
        || !hy_all_finite(n, y0)
        || hy_set_weights(n, d->rtol, d->atol, y0, 0, d->ewt) != 0)
        return HYDAE_ERR_ARG;
    d->dae = *dae;
    d->h_user = opt->h0;
    int ls_status = hy_itmat_setup(&d->iter, dae, opt->linear_solver, 1);
    if (ls_status != 0)
        return ls_status;
    d->h0_max = opt->h0_max > 0.0 ? opt->h0_max : INFINITY;
    d->max_order = opt->max_order > 0 && opt->max_order < VSTIFF_MAX_ORDER
                       ? opt->max_order
                       : VSTIFF_MAX_ORDER;

    d->t = t0;
    d->t_prev = t0;
    d->h = 0.0;
    d->order = 1;
    d->started = 0;
    d->n_steps_since_init = 0;
    d->n_tau = 0;
    d->order_next = 1;
    d->order_wait = 2;
    d->eta_max = VSTIFF_ETA_MAX_FIRST;
    d->d_last_valid = 0;
    /* The problem may have changed at a restart: no Jacobian is reused. */
    d->have_jac = 0;
    d->have_matrix = 0;
    d->jac_fresh = 0;
    d->gamma_matrix = 1.0;
    d->steps_since_matrix = 0;
    d->steps_since_jac = 0;
    d->conv_rate = 0.7;
    d->head.worst = -1;
    memset(d->z, 0, VSTIFF_N_COLS * (size_t)n * sizeof(double));
    memcpy(ZCOL(d, 0), y0, (size_t)n * sizeof(double));
    d->head.stats.h_last = 0.0;
    d->head.stats.order_last = 0;
    d->initialized = 1;
    return HYDAE_OK;
}

/* ------------------------------------------------------------------------
** Step
*/

/* After an accepted step of size h at order q with error estimate
** err_q: choose the order and the step ratio for the next step ([BBH89];
** estimates as in the header). */
static void choose_next(vstiff_mem *d, double err_q, int raise_ok)
{
    int n = d->n, q = d->order;
    double h = d->h;
    d->order_wait--;
    d->order_next = q;
    d->h_next = h;
    if (d->eta_max <= 1.0) {
        /* The step followed a failure: no increase now ([BBH89]). */
        if (d->order_wait < 2)
            d->order_wait = 2;
        d->eta_max = VSTIFF_ETA_MAX;
        return;
    }
    double eta = 1.0 / (pow(VSTIFF_BIAS_SAME * err_q, 1.0 / (q + 1))
                        + VSTIFF_ETA_ADDON);
    int order_next = q;
    if (d->order_wait <= 0) {
        d->order_wait = 2;
        double eta_down = 0.0, eta_up = 0.0;
        if (q > 1) {
            double prod = 1.0, sum_inv = 0.0;
            for (int i = 1; i < q; i++) {
                double xi = xi_of_history(d, h, i);
                prod *= xi;
                sum_inv += 1.0 / xi;
            }
            double err_down = hy_wrms_norm(n, ZCOL(d, q), d->ewt) * prod
                            / sum_inv;
            eta_down = 1.0 / (pow(VSTIFF_BIAS_DOWN * err_down, 1.0 / q)
                              + VSTIFF_ETA_ADDON);
        }
        if (q < d->max_order && raise_ok) {
            /* f_pert holds d_n - d_{n-1} (set by the caller). */
            double prod = 1.0, sum_inv = 0.0;
            for (int i = 1; i <= q + 1; i++) {
                double xi = xi_of_history(d, h, i);
                prod *= xi;
                sum_inv += 1.0 / xi;
            }
            double err_up = hy_wrms_norm(n, d->f_pert, d->ewt) / (q + 2) * prod
                          / sum_inv;
            eta_up = 1.0 / (pow(VSTIFF_BIAS_UP * err_up, 1.0 / (q + 2))
                            + VSTIFF_ETA_ADDON);
        }
        if (eta_down > eta && eta_down >= eta_up) {
            eta = eta_down;
            order_next = q - 1;
        } else if (eta_up > eta) {
            eta = eta_up;
            order_next = q + 1;
        }
    }
    if (eta < VSTIFF_ETA_THRESH)
        return;
    eta = fmin(eta, d->eta_max);
    if (order_next != q)
        d->order_wait = order_next + 1;
    d->order_next = order_next;
    d->h_next = h * eta;
    d->eta_max = VSTIFF_ETA_MAX;
}

static int vstiff_step(void *mem, double t_stop, double *t_new)
{
    vstiff_mem *d = mem;
    if (d == NULL || t_new == NULL || !d->initialized)
        return HYDAE_ERR_ARG;
    *t_new = d->t;
    if (!(t_stop >= d->t) || !isfinite(t_stop))
        return HYDAE_ERR_ARG;
    int n = d->n;
    if (t_stop - d->t <= hy_roundoff_floor(t_stop)) {
        d->t = t_stop;
        *t_new = t_stop;
        return HY_TSTOP;
    }
    if (!d->started) {
        int status = hy_eval_rhs(&d->dae, &d->head, d->t, ZCOL(d, 0), d->f);
        if (status != HY_EVAL_OK)
            return HYDAE_ERR_RESIDUAL;
        double h0 = d->h_user;
        if (h0 == 0.0) {
            status = hy_ode_initial_step(
                &d->dae, &d->head, d->t, t_stop, d->h_max, ZCOL(d, 0), d->f,
                d->atol, d->ewt, d->y, d->f_pert, d->delta, &h0);
            if (status != HY_EVAL_OK)
                return HYDAE_ERR_RESIDUAL;
            h0 = fmin(h0, d->h0_max);
        }
        if (h0 > d->h_max)
            h0 = d->h_max;
        if (h0 < d->h_min)
            h0 = d->h_min;
        d->h = h0;
        d->h_next = h0;
        double *col1 = ZCOL(d, 1);
        for (int i = 0; i < n; i++)
            col1[i] = h0 * d->f[i];
        d->order = 1;
        d->order_next = 1;
        d->started = 1;
    }
    /* Decisions of the last step: order first (at the old scaling). */
    if (d->order_next != d->order)
        apply_order_change(d, d->order_next);

    int n_err_fails = 0, n_conv_fails = 0;
    double h_try = d->h_next;
    for (;;) {
        if (h_try > d->h_max)
            h_try = d->h_max;
        double dist = t_stop - d->t;
        double margin = fmax(100.0 * DBL_EPSILON * fabs(t_stop),
                             1e-3 * h_try);
        int lands = h_try >= dist - margin;
        if (lands)
            h_try = dist;
        if (h_try != d->h)
            rescale_history(d, h_try);
        double h = d->h;
        double t_try = lands ? t_stop : d->t + h;
        double l[VSTIFF_N_COLS], l1, err_const;
        step_coefficients(d, h, l, &l1, &err_const);
        int q = d->order;
        memcpy(d->z_backup, d->z, (size_t)(q + 1) * (size_t)n * sizeof(double));
        predict(d);
        d->jac_fresh = 0;
        int status = solve_corrector(d, t_try, h, l1, err_const);
        if (status == HY_EVAL_OK) {
            double err = err_const * hy_wrms_norm(n, d->corr, d->ewt);
            if (err <= 1.0) {
                /* Accept: z <- z + e l, step history, d = e / prod xi. */
                for (int j = 0; j <= q; j++) {
                    double *col = ZCOL(d, j);
                    for (int i = 0; i < n; i++)
                        col[i] += l[j] * d->corr[i];
                }
                double prod_xi = 1.0;
                for (int i = 1; i <= q + 1; i++)
                    prod_xi *= xi_of_step(d, h, i);
                /* f_pert <- d_n - d_{n-1} (d_{n-1} at scaling h) for the
                ** order-raising estimate in choose_next. */
                int prev_ok = d->d_last_valid && d->d_last_order == q;
                double prev_scale = prev_ok ? pow(h / d->d_last_h, q + 1) : 0;
                for (int i = 0; i < n; i++) {
                    double d_now = d->corr[i] / prod_xi;
                    d->f_pert[i] = d_now - prev_scale * d->d_last[i];
                    d->d_last[i] = d_now;
                }
                d->d_last_valid = 1;
                d->d_last_h = h;
                d->d_last_order = q;
                for (int m = VSTIFF_N_TAU - 1; m > 0; m--)
                    d->tau[m] = d->tau[m - 1];
                d->tau[0] = h;
                if (d->n_tau < VSTIFF_N_TAU)
                    d->n_tau++;
                d->t_prev = d->t;
                d->t = t_try;
                d->head.stats.n_steps++;
                d->n_steps_since_init++;
                d->steps_since_matrix++;
                d->steps_since_jac++;
                d->head.stats.h_last = h;
                d->head.stats.order_last = q;
                hy_set_weights(n, d->rtol, d->atol, ZCOL(d, 0), 1, d->ewt);
                choose_next(d, err, prev_ok);
                if (d->h_next < d->h_min)
                    d->h_next = d->h_min;
                *t_new = d->t;
                return lands ? HY_TSTOP : HYDAE_OK;
            }
            /* Error test failure. */
            memcpy(d->z, d->z_backup,
                   (size_t)(q + 1) * (size_t)n * sizeof(double));
            d->head.worst = hy_argmax_weighted(n, d->corr, d->ewt);
            d->head.stats.n_err_fails++;
            n_err_fails++;
            if (n_err_fails >= VSTIFF_MAX_ERR_FAILS)
                return HYDAE_ERR_ERRTEST;
            double eta = 1.0 / (pow(VSTIFF_BIAS_SAME * err, 1.0 / (q + 1))
                                + VSTIFF_ETA_ADDON);
            eta = fmax(VSTIFF_ETA_MIN, fmin(eta, 0.9));
            if (n_err_fails >= 2)
                eta = fmin(eta, VSTIFF_ETA_MAX_ERRFAIL);
            d->eta_max = 1.0;
            if (n_err_fails >= VSTIFF_ERRFAILS_TO_ORDER1) {
                eta = VSTIFF_ETA_MIN;
                if (q > 1) {
                    /* Restart at order 1 from y_n and f(t_n, y_n). */
                    status = hy_eval_rhs(&d->dae, &d->head, d->t,
                                         ZCOL(d, 0), d->f);
                    if (status != HY_EVAL_OK)
                        return HYDAE_ERR_RESIDUAL;
                    for (int j = 2; j <= q; j++)
                        memset(ZCOL(d, j), 0, (size_t)n * sizeof(double));
                    double *col1 = ZCOL(d, 1);
                    for (int i = 0; i < n; i++)
                        col1[i] = h * d->f[i];
                    d->order = 1;
                    d->order_wait = 2;
                    d->d_last_valid = 0;
                }
            }
            h_try = h * eta;
            if (h_try < d->h_min && d->h_min > 0.0) {
                if (h <= d->h_min * (1.0 + 1e-12))
                    return HYDAE_ERR_HMIN;
                h_try = d->h_min;
            }
            if (d->t + h_try == d->t || h_try < hy_roundoff_floor(d->t))
                return HYDAE_ERR_HMIN;
            continue;
        }
        /* Corrector failure: restore, reduce h by 0.25. */
        memcpy(d->z, d->z_backup, (size_t)(q + 1) * (size_t)n * sizeof(double));
        if (status == HY_EVAL_RES_FATAL || status == HY_EVAL_JAC_FATAL
            || status == HY_EVAL_NOMEM)
            return hy_eval_error(status, 0);
        d->head.stats.n_conv_fails++;
        n_conv_fails++;
        d->eta_max = 1.0;
        if (status == HY_EVAL_SINGULAR) {
            d->have_matrix = 0;
            d->head.worst = -1; /* no column known: name none (sim.c) */
        }
        h_try = h * VSTIFF_ETA_CONVFAIL;
        int too_small = (d->h_min > 0.0 && h_try < d->h_min
                         && h <= d->h_min * (1.0 + 1e-12))
                      || d->t + h_try == d->t
                      || h_try < hy_roundoff_floor(d->t);
        if (h_try < d->h_min)
            h_try = d->h_min;
        if (n_conv_fails >= VSTIFF_MAX_CONV_FAILS || too_small)
            return hy_eval_error(status, too_small);
    }
}

/* y and y' at t in [t_prev, t_n] from the Nordsieck polynomial of the last
** step (order q, [BH75]): x = (t - t_n)/h, y = sum z_j x^j,
** y' = sum j z_j x^(j-1) / h. */
static int vstiff_dense(void *mem, double t, double *y, double *yp)
{
    vstiff_mem *d = mem;
    if (d == NULL || !d->initialized || !hy_dense_covers(t, d->t_prev, d->t))
        return HYDAE_ERR_ARG;
    int n = d->n;
    if (!d->started) {
        if (y)
            memcpy(y, ZCOL(d, 0), (size_t)n * sizeof(double));
        if (yp) {
            int status = hy_eval_rhs(&d->dae, &d->head, d->t, ZCOL(d, 0), yp);
            if (status != HY_EVAL_OK)
                return HYDAE_ERR_RESIDUAL;
        }
        return HYDAE_OK;
    }
    int q = d->order;
    double x = (t - d->t) / d->h;
    /* Horner in x. */
    for (int i = 0; i < n; i++) {
        double value = 0.0, slope = 0.0;
        for (int j = q; j >= 0; j--) {
            double zj = ZCOL(d, j)[i];
            if (j >= 1)
                slope = slope * x + j * zj;
            value = value * x + zj;
        }
        if (y)
            y[i] = value;
        if (yp)
            yp[i] = slope / d->h;
    }
    return HYDAE_OK;
}

const hy_integrator_ops hy_vstiff = {
    .name = "VSTIFF",
    .create = vstiff_create,
    .init = vstiff_init,
    .step = vstiff_step,
    .dense = vstiff_dense,
    .get_stats = hy_get_stats,
    .worst_component = hy_worst_component,
    .destroy = vstiff_destroy,
    .needs_rhs = 1,
    .fixed_step = 0,
    .uses_matrix = 1,
    .max_order = VSTIFF_MAX_ORDER,
};
