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
#include "integrators/stepctl.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VSTIFF_MAX_ORDER 5
#define VSTIFF_N_COLS (VSTIFF_MAX_ORDER + 2)  /* z_0..z_{q+1} while raising */
#define VSTIFF_N_TAU (VSTIFF_MAX_ORDER + 2)   /* recent step sizes */

/* Strategy constants of [BBH89] (names as in the paper's description); the
** failure strategy and the matrix reuse rules are stepctl.c's. */
#define VSTIFF_MAX_CORR_ITERS 3
#define VSTIFF_CRATE_DOWN 0.3
#define VSTIFF_DIVERGE_RATIO 2.0
#define VSTIFF_BIAS_DOWN 6.0
#define VSTIFF_BIAS_SAME 6.0
#define VSTIFF_BIAS_UP 10.0
#define VSTIFF_ETA_THRESH 1.5
#define VSTIFF_ETA_MAX_FIRST 1e4
#define VSTIFF_ETA_MAX 10.0

typedef struct vstiff_mem {
    hy_nsk c;                   /* first: step control, history, Newton */

    double tau[VSTIFF_N_TAU];   /* tau[0] = last accepted step, ... */
    int n_tau;                  /* valid entries of tau */
    int order_wait;             /* steps before an order change is considered */
    double eta_max;             /* bound on h_next / h for the next success */

    /* Of the current attempt: l_1 and the error constant C_q. */
    double l1, err_const;

    /* d = e / prod xi of the last accepted step ([HNW] III.5 estimate of
    ** h^{q+1} y^{(q+1)}/(q+1)!), for E_{q+1} and for raising the order;
    ** prev_ok: the accepted step had d_{n-1} at the same order (then
    ** c.f_pert holds d_n - d_{n-1}). */
    double *d_last;
    double d_last_h;
    int d_last_order;
    int d_last_valid;
    int prev_ok;
} vstiff_mem;

#define ZCOL(d, j) hy_nsk_col(&(d)->c, (j))

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

/* Coefficients w_0..w_deg of w(x) = x^2 prod_{i=1}^{deg-2} (x + xi_i)
** (xi relative to t_n), the polynomial that raises or lowers the order
** while keeping y, y' at t_n and the values at the deg-2 previous points. */
static void order_change_poly(const vstiff_mem *d, int deg, double *w)
{
    for (int j = 0; j <= deg; j++)
        w[j] = 0.0;
    w[2] = 1.0;
    for (int i = 1; i <= deg - 2; i++) {
        double xi = xi_of_history(d, d->c.h, i);
        /* multiply by (x + xi): degree goes from i+1 to i+2 */
        for (int j = i + 2; j >= 1; j--)
            w[j] = w[j - 1] + xi * w[j];
        w[0] *= xi;
    }
}

static void change_order(void *mem, int order_new)
{
    vstiff_mem *d = mem;
    int n = d->c.n, q = d->c.order;
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
    d->c.order = order_new;
    d->d_last_valid = 0;
}

/* The coefficients l_0..l_q of Lambda for a step of size h at order q
** (into c.l) and its error constant C_q = 1/(xi_{q+1} sum 1/xi_i) (see
** the header). */
static void step_coefficients(vstiff_mem *d, double h)
{
    int q = d->c.order;
    double *l = d->c.l;
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
    d->l1 = l1_flc;
    double sum_vc = sum_inv_xi + 1.0 / xi_of_step(d, h, q);
    d->err_const = 1.0 / (xi_of_step(d, h, q + 1) * sum_vc);
}

/* ------------------------------------------------------------------------
** Corrector
*/

/* Modified Newton for e: (I - gamma J) delta = gamma f(y_pred + e) -
** h y'_pred / l_1 - e ([BBH89]); z holds the prediction. */
static int solve_corrector(vstiff_mem *d, double t_new, double h)
{
    hy_nsk *c = &d->c;
    int n = c->n, q = c->order;
    double l1 = d->l1, err_const = d->err_const;
    double gamma = h / l1;
    double conv_const = 0.5 / (q + 2);
    int force_jac = 0;
    const double *y_pred = ZCOL(d, 0), *hyp_pred = ZCOL(d, 1);
    for (;;) {
        memcpy(c->y, y_pred, (size_t)n * sizeof(double));
        double del_prev = 0.0;
        int converged = 0;
        for (int iter = 0;; iter++) {
            int status = hy_eval_rhs(&c->dae, &c->head, t_new, c->y, c->f);
            if (status != HY_EVAL_OK)
                return status;
            if (iter == 0) {
                status = hy_nsk_newton_matrix(c, t_new, h, gamma, force_jac);
                if (status != HY_EVAL_OK)
                    return status;
            }
            double gamma_ratio = gamma / c->gamma_matrix;
            /* P was formed with gamma_matrix: scaling the right-hand side
            ** by 2/(1 + gamma_ratio) compensates ([CV]). */
            double rhs_scale = gamma_ratio == 1.0 ? 1.0
                                                  : 2.0 / (1.0 + gamma_ratio);
            if (iter == 0) {
                /* e = 0 so far. */
                for (int i = 0; i < n; i++)
                    c->delta[i] = rhs_scale * (gamma * c->f[i] - hyp_pred[i] / l1);
            } else {
                for (int i = 0; i < n; i++)
                    c->delta[i] = rhs_scale
                        * (gamma * c->f[i] - hyp_pred[i] / l1 - c->corr[i]);
            }
            hy_itmat_solve(&c->iter, c->delta);
            c->head.stats.n_newton_iters++;
            if (iter == 0) {
                for (int i = 0; i < n; i++) {
                    c->y[i] += c->delta[i];
                    c->corr[i] = c->delta[i];
                }
            } else {
                for (int i = 0; i < n; i++) {
                    c->y[i] += c->delta[i];
                    c->corr[i] += c->delta[i];
                }
            }
            double del = hy_wrms_norm(n, c->delta, c->ewt);
            if (!isfinite(del))
                break;
            if (iter > 0)
                c->conv_rate = fmax(VSTIFF_CRATE_DOWN * c->conv_rate,
                                    del / del_prev);
            /* Converged when the estimated remaining iteration error,
            ** in units of the local error test, is below 0.5/(q+2). */
            double dcon = del * fmin(1.0, 1.5 * c->conv_rate) * err_const
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
        c->head.worst = hy_argmax_weighted(n, c->delta, c->ewt);
        if (c->jac_fresh)
            return HY_EVAL_NO_CONV;
        /* The Jacobian was old: retry the step with a new one. */
        force_jac = 1;
    }
}

/* ------------------------------------------------------------------------
** The method's part of a step (hooks of stepctl.h)
*/

static int attempt(void *mem, double t_try, double h, double *err)
{
    vstiff_mem *d = mem;
    step_coefficients(d, h);
    int status = solve_corrector(d, t_try, h);
    if (status == HY_EVAL_OK)
        *err = d->err_const * hy_wrms_norm(d->c.n, d->c.corr, d->c.ewt);
    return status;
}

/* Step history and d = e / prod xi; c.f_pert <- d_n - d_{n-1} (d_{n-1} at
** scaling h) for the order-raising estimate in choose_next. */
static void accept(void *mem, double h)
{
    vstiff_mem *d = mem;
    hy_nsk *c = &d->c;
    int n = c->n, q = c->order;
    double prod_xi = 1.0;
    for (int i = 1; i <= q + 1; i++)
        prod_xi *= xi_of_step(d, h, i);
    int prev_ok = d->d_last_valid && d->d_last_order == q;
    double prev_scale = prev_ok ? pow(h / d->d_last_h, q + 1) : 0;
    for (int i = 0; i < n; i++) {
        double d_now = c->corr[i] / prod_xi;
        c->f_pert[i] = d_now - prev_scale * d->d_last[i];
        d->d_last[i] = d_now;
    }
    d->prev_ok = prev_ok;
    d->d_last_valid = 1;
    d->d_last_h = h;
    d->d_last_order = q;
    for (int m = VSTIFF_N_TAU - 1; m > 0; m--)
        d->tau[m] = d->tau[m - 1];
    d->tau[0] = h;
    if (d->n_tau < VSTIFF_N_TAU)
        d->n_tau++;
}

/* After an accepted step of size h at order q with error estimate
** err_q: choose the order and the step ratio for the next step ([BBH89];
** estimates as in the header). */
static void choose_next(void *mem, double err_q)
{
    vstiff_mem *d = mem;
    hy_nsk *c = &d->c;
    int n = c->n, q = c->order;
    double h = c->h;
    d->order_wait--;
    c->order_next = q;
    c->h_next = h;
    if (d->eta_max <= 1.0) {
        /* The step followed a failure: no increase now ([BBH89]). */
        if (d->order_wait < 2)
            d->order_wait = 2;
        d->eta_max = VSTIFF_ETA_MAX;
        return;
    }
    double eta = hy_nsk_eta(VSTIFF_BIAS_SAME, err_q, q + 1);
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
            double err_down = hy_wrms_norm(n, ZCOL(d, q), c->ewt) * prod
                            / sum_inv;
            eta_down = hy_nsk_eta(VSTIFF_BIAS_DOWN, err_down, q);
        }
        if (q < c->max_order && d->prev_ok) {
            /* f_pert holds d_n - d_{n-1} (set by accept). */
            double prod = 1.0, sum_inv = 0.0;
            for (int i = 1; i <= q + 1; i++) {
                double xi = xi_of_history(d, h, i);
                prod *= xi;
                sum_inv += 1.0 / xi;
            }
            double err_up = hy_wrms_norm(n, c->f_pert, c->ewt) / (q + 2) * prod
                          / sum_inv;
            eta_up = hy_nsk_eta(VSTIFF_BIAS_UP, err_up, q + 2);
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
    c->order_next = order_next;
    c->h_next = h * eta;
    d->eta_max = VSTIFF_ETA_MAX;
}

/* After a failure the next success may not increase h ([BBH89]); a
** restart at order 1 starts the order strategy afresh. */
static void on_reject(void *mem, int restarted)
{
    vstiff_mem *d = mem;
    d->eta_max = 1.0;
    if (restarted) {
        d->order_wait = 2;
        d->d_last_valid = 0;
    }
}

static const hy_nsk_method vstiff_method = {
    .attempt = attempt,
    .accept = accept,
    .choose_next = choose_next,
    .on_new_h = NULL,
    .on_reject = on_reject,
    .change_order = change_order,
};

/* ------------------------------------------------------------------------
** The descriptor's functions
*/

static void vstiff_destroy(void *mem)
{
    vstiff_mem *d = mem;
    if (d == NULL)
        return;
    hy_nsk_free(&d->c);
    hy_free(d->d_last);
    hy_free(d);
}

static void *vstiff_create(int n)
{
    if (n <= 0)
        return NULL;
    vstiff_mem *d = hy_calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    d->d_last = hy_calloc((size_t)n, sizeof(double));
    if (hy_nsk_alloc(&d->c, n, VSTIFF_N_COLS, 0) != 0 || d->d_last == NULL) {
        vstiff_destroy(d);
        return NULL;
    }
    return d;
}

static int vstiff_init(void *mem, const hy_dae *dae, double t0,
                       const double *y0, const double *yp0,
                       const hy_options *opt)
{
    vstiff_mem *d = mem;
    (void)yp0;  /* y'(t0) = f(t0, y0) is evaluated by the first step */
    if (d == NULL)
        return HYDAE_ERR_ARG;
    int status = hy_nsk_init(&d->c, dae, t0, y0, opt, VSTIFF_MAX_ORDER);
    if (status != HYDAE_OK)
        return status;
    d->n_tau = 0;
    d->order_wait = 2;
    d->eta_max = VSTIFF_ETA_MAX_FIRST;
    d->d_last_valid = 0;
    d->prev_ok = 0;
    return HYDAE_OK;
}

static int vstiff_step(void *mem, double t_stop, double *t_new)
{
    return hy_nsk_step(mem, &vstiff_method, t_stop, t_new);
}

/* y and y' at t in [t_prev, t_n] from the Nordsieck polynomial of the last
** step (order q, [BH75]). */
static int vstiff_dense(void *mem, double t, double *y, double *yp)
{
    return hy_nsk_dense(mem, t, y, yp);
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
