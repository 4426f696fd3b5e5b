/*
** MSTIFF: Cash's modified extended backward differentiation formulae
** (MEBDF) for stiff explicit ODEs y' = f(t, y): variable step, variable
** order k = 1..7, three stages per step sharing one iteration matrix.
**
**   [C83]  J.R. Cash, "The integration of stiff initial value problems in
**          ODEs using modified extended backward differentiation
**          formulae", Comp. & Maths. with Appls. 9 (1983) 645-657: the
**          k-step MEBDF of order k+1 (stages below), its stability.
**   [CC92] J.R. Cash, S. Considine, "An MEBDF code for stiff initial value
**          problems", ACM TOMS 18 (1992) 142-158 (Algorithm 703): the code
**          organisation (Nordsieck-type history rescaled on step changes,
**          one iteration matrix I - h b_k J per step for all three stages,
**          the derivative implied by a BDF stage, f_bar = (y_bar - psi) /
**          (h b_k), used in the third stage). The order range k = 1..7
**          is that of Cash's codes: the documentation of MEBDF/MEBDFDAE
**          (version of 6 November 1998) says "MAXDER = the maximum order
**          is MAXDER + 1. The value of MAXDER cannot exceed 7", MAXDER
**          bounding the step number k (NQ), whose formula is of order k+1.
**   [BH75] G.D. Byrne, A.C. Hindmarsh, ACM TOMS 1 (1975) 71-96: the
**          Nordsieck history, Pascal-triangle prediction, rescaling.
**   [BBH89] P.N. Brown, G.D. Byrne, A.C. Hindmarsh, SIAM J. Sci. Stat.
**          Comput. 10 (1989) 1038-1051: the Jacobian reuse rules, the
**          Newton convergence test and the step ratio biases used here as
**          in VSTIFF (vstiff.c).
**
** One step of size h at order k from t_n (x = (t - t_{n+1})/h; P is the
** history polynomial of degree k+1 through y_n, ..., y_{n-k} on the
** equidistant grid, so that y_{n+1-j} = P(-j)):
**   1. BDF_k at t_{n+1}:  y_bar1 + sum_j a_j P(-j) = h b f(y_bar1);
**   2. BDF_k at t_{n+2}:  y_bar2 + a_1 y_bar1 + sum_{j>=2} a_j P(1-j)
**                          = h b f(y_bar2);
**   3. MEBDF at t_{n+1}: y + sum_j c_j P(-j)
**                          = h [b f(y) + (c_0 - b) f_bar1 + c_1 f_bar2],
** where (c_j, c_0, c_1) is the k-step extended BDF of order k+1,
** y_{n+1} + sum c_j y_{n+1-j} = h (c_0 f_{n+1} + c_1 f_{n+2}) ([C83]).
** Each stage is G(y) = y - h b f(y) - psi = 0, solved by modified Newton
** with the same P = I - h b J. The accepted y_{n+1} updates the history:
** z <- A z + e l, e = y_{n+1} - P(0), l the coefficients of
** prod_{i=1}^{k+1} (1 + x/i), so the new polynomial interpolates
** y_{n+1}, ..., y_{n-k}. Step changes rescale z (interpolation of the
** history on the new grid, [CC92], [BH75]).
**
** Local error estimate: e = y_{n+1} - P(0) ~ h^{k+2} y^{(k+2)} (P
** extrapolates k+2 points), and the local error of the three-stage
** scheme is C_k h^{k+2} y^{(k+2)}, so E_k = |C_k| ||e||. C_k is the
** leading coefficient of the local error of steps 1-3 applied to
** y' = lambda y with exact history, as a series in z = h lambda
** (computed exactly with rational arithmetic for this file; it differs
** from the error constant of the extended BDF alone because the stage
** errors enter through f_bar1, f_bar2). Orders k-1 and k+1 use
** h^{k+1} y^{(k+1)} = (k+1)! z_{k+1} and h^{k+3} y^{(k+3)} ~ e_n - e_{n-1}.
** This estimates the error of the order-(k+1) result itself, where the
** code of [CC92] tests the (more conservative) error of the first BDF
** stage. Dense output evaluates P of the last step: the interpolant of
** k+2 solution values, order k+1 like the method.
**
** "Order" in the statistics and max_order is k, the step number, as in
** [CC92] (NQ): the results are of order k+1. The second stage evaluates f
** at t_{n+1} + h, beyond the end of the step (and possibly beyond t_stop).
*/
#include "integrators/common.h"
#include "integrators/itmat.h"
#include "core/core.h"


#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MSTIFF_MAX_ORDER 7
/* History degree up to k+1 = 8, plus one column while raising the order. */
#define MSTIFF_N_COLS (MSTIFF_MAX_ORDER + 3)

/* BDF_k, normalised: y_{n+1} + sum_{j=1}^k a_j y_{n+1-j} = h b f_{n+1}
** (the classical coefficients, e.g. [BH75]; for k = 7 the formula is not
** zero-stable, but it only predicts within a step, as in [CC92]). */
typedef struct bdf_coefs {
    double b;
    double a[MSTIFF_MAX_ORDER];
} bdf_coefs;

static const bdf_coefs bdf_table[MSTIFF_MAX_ORDER] = {
    {1.0, {-1.0}},
    {2.0 / 3.0, {-4.0 / 3.0, 1.0 / 3.0}},
    {6.0 / 11.0, {-18.0 / 11.0, 9.0 / 11.0, -2.0 / 11.0}},
    {12.0 / 25.0, {-48.0 / 25.0, 36.0 / 25.0, -16.0 / 25.0, 3.0 / 25.0}},
    {60.0 / 137.0,
     {-300.0 / 137.0, 300.0 / 137.0, -200.0 / 137.0, 75.0 / 137.0,
      -12.0 / 137.0}},
    {20.0 / 49.0,
     {-120.0 / 49.0, 150.0 / 49.0, -400.0 / 147.0, 75.0 / 49.0, -24.0 / 49.0,
      10.0 / 147.0}},
    {140.0 / 363.0,
     {-980.0 / 363.0, 490.0 / 121.0, -4900.0 / 1089.0, 1225.0 / 363.0,
      -196.0 / 121.0, 490.0 / 1089.0, -20.0 / 363.0}},
};

/* Extended BDF of order k+1 ([C83]): y_{n+1} + sum_{j=1}^k c_j y_{n+1-j}
** = h (c_0 f_{n+1} + c_1 f_{n+2}); solved here from the k+2 order
** conditions with rational arithmetic. c_0 and c_1 agree with the ELST
** values printed in [CC92]'s COSET (e.g. k = 2: 22/23 and -4/23). */
typedef struct ebdf_coefs {
    double c0, c1;
    double c[MSTIFF_MAX_ORDER];
} ebdf_coefs;

static const ebdf_coefs ebdf_table[MSTIFF_MAX_ORDER] = {
    {3.0 / 2.0, -1.0 / 2.0, {-1.0}},
    {22.0 / 23.0, -4.0 / 23.0, {-28.0 / 23.0, 5.0 / 23.0}},
    {150.0 / 197.0, -18.0 / 197.0,
     {-279.0 / 197.0, 99.0 / 197.0, -17.0 / 197.0}},
    {1644.0 / 2501.0, -144.0 / 2501.0,
     {-4008.0 / 2501.0, 2124.0 / 2501.0, -728.0 / 2501.0, 111.0 / 2501.0}},
    {2940.0 / 4973.0, -200.0 / 4973.0,
     {-8850.0 / 4973.0, 18700.0 / 14919.0, -3200.0 / 4973.0, 975.0 / 4973.0,
      -394.0 / 14919.0}},
    {7260.0 / 13327.0, -400.0 / 13327.0,
     {-25980.0 / 13327.0, 68450.0 / 39981.0, -15600.0 / 13327.0,
      7125.0 / 13327.0, -5756.0 / 39981.0, 230.0 / 13327.0}},
    {106540.0 / 208903.0, -4900.0 / 208903.0,
     {-441490.0 / 208903.0, 1393070.0 / 626709.0, -1189475.0 / 626709.0,
      241325.0 / 208903.0, -292334.0 / 626709.0, 70070.0 / 626709.0,
      -2515.0 / 208903.0}},
};

/* |C_k|: local error of the three stages on y' = lambda y is
** C_k (h lambda)^{k+2} y + O(h^{k+3}) (see the header; exact rationals). */
static const double mebdf_error_const[MSTIFF_MAX_ORDER] = {
    2.0 / 3.0,
    185.0 / 1242.0,
    14241.0 / 238370.0,
    239338.0 / 7815625.0,
    11760610.0 / 653367659.0,
    5174515.0 / 447973778.0,
    433803335.0 / 55053878814.0,
};

/* Strategy constants, as in VSTIFF ([BBH89]) except the corrector
** iterations per stage, 4 as in [CC92]. */
#define MSTIFF_MAX_CORR_ITERS 4
#define MSTIFF_CRATE_DOWN 0.3
#define MSTIFF_DIVERGE_RATIO 2.0
#define MSTIFF_GAMMA_CHANGE_MAX 0.3
#define MSTIFF_STEPS_PER_MATRIX 20
#define MSTIFF_STEPS_PER_JAC 50
#define MSTIFF_BIAS_DOWN 6.0
#define MSTIFF_BIAS_SAME 6.0
#define MSTIFF_BIAS_UP 10.0
#define MSTIFF_ETA_ADDON 1e-6
#define MSTIFF_ETA_THRESH 1.5
#define MSTIFF_ETA_MAX_FIRST 1e4
#define MSTIFF_ETA_MAX 10.0
#define MSTIFF_ETA_MIN 0.1
#define MSTIFF_ETA_MAX_ERRFAIL 0.2
#define MSTIFF_ETA_CONVFAIL 0.25
#define MSTIFF_ERRFAILS_TO_ORDER1 3
#define MSTIFF_MAX_ERR_FAILS 7
#define MSTIFF_MAX_CONV_FAILS 10

typedef struct mstiff_mem {
    hy_mem_head head;           /* first: statistics, worst component */
    int n;
    int initialized;

    hy_dae dae;
    double *rtol, *atol;
    double h_user, h_min, h_max;
    double h0_max;              /* cap on the automatic first step, 0 = none */
    int max_order;

    /* History: z_j = h^j P^(j)(t_n)/j!, j = 0..order+1. */
    double t, t_prev, h;
    int order;                  /* k */
    int started;
    long n_steps_since_init;

    /* Decisions for the next step, applied at its start. */
    double h_next;
    int order_next;
    int steps_to_wait;          /* before the next step/order change */
    int first_decision;         /* 1 until the first increase */
    int e_last_valid;           /* e_last from the previous step, same k, h */

    /* Newton iteration matrix and the saved J = df/dy. */
    hy_itmat iter;              /* J = df/dy, P = I - gamma J and its factors */
    int have_jac, have_matrix, jac_fresh;
    double gamma_matrix;
    long steps_since_matrix, steps_since_jac;
    double conv_rate;

    double *z, *z_backup;
    double *y, *f, *delta, *ewt, *f_pert;
    double *psi;                /* right-hand side of a stage */
    double *y_bar1, *f_bar1, *f_bar2;
    double *corr;               /* e = y_{n+1} - P(0) */
    double *e_last;             /* e of the previous step */
} mstiff_mem;

#define ZCOL(d, j) ((d)->z + (size_t)(j) * (size_t)(d)->n)

/* ------------------------------------------------------------------------
** History
*/

/* The same polynomial in the scaling of h_new: z_j *= (h_new/h)^j. */
static void rescale_history(mstiff_mem *d, double h_new)
{
    int n = d->n;
    double ratio = h_new / d->h;
    double factor = 1.0;
    for (int j = 1; j <= d->order + 1; j++) {
        factor *= ratio;
        double *col = ZCOL(d, j);
        for (int i = 0; i < n; i++)
            col[i] *= factor;
    }
    d->h = h_new;
}

/* z <- A z (Pascal triangle, [BH75]) for the degree-(k+1) history. */
static void predict(mstiff_mem *d)
{
    int n = d->n, deg = d->order + 1;
    for (int k = 1; k <= deg; k++)
        for (int j = deg; j >= k; j--) {
            double *lower = ZCOL(d, j - 1);
            const double *upper = ZCOL(d, j);
            for (int i = 0; i < n; i++)
                lower[i] += upper[i];
        }
}

/* out += weight * P(x), P the history polynomial of degree k+1. */
static void add_history_value(const mstiff_mem *d, double x, double weight,
                              double *out)
{
    int n = d->n, deg = d->order + 1;
    double power = weight;
    for (int j = 0; j <= deg; j++) {
        const double *col = ZCOL(d, j);
        for (int i = 0; i < n; i++)
            out[i] += power * col[i];
        power *= x;
    }
}

/* Coefficients of w(x) = x prod_{i=1}^{deg-1} (x + i): monic of degree
** deg, zero at the grid points 0, -1, ..., -(deg-1). */
static void grid_poly(int deg, double *w)
{
    for (int j = 0; j <= deg; j++)
        w[j] = 0.0;
    w[1] = 1.0;
    for (int i = 1; i <= deg - 1; i++) {
        for (int j = i + 1; j >= 1; j--)
            w[j] = w[j - 1] + i * w[j];
        w[0] *= i;
    }
}

/* Order k -> k+1: add c w(x) of degree k+2 with c = e/(k+2)!, the top
** coefficient of the interpolant through one more past point (exact when
** e comes from a step of the same size and order). Order k -> k-1:
** subtract z_{k+1} w(x) of degree k+1, which drops the oldest point. Both
** keep the interpolation of the remaining points. */
static void apply_order_change(mstiff_mem *d, int order_new)
{
    int n = d->n, k = d->order;
    double w[MSTIFF_N_COLS];
    if (order_new == k + 1) {
        int deg = k + 2;
        double top_scale = 1.0;
        for (int j = 2; j <= deg; j++)
            top_scale /= j;
        grid_poly(deg, w);
        double *top = ZCOL(d, deg);
        for (int i = 0; i < n; i++)
            top[i] = top_scale * d->e_last[i];
        for (int j = 1; j < deg; j++) {
            double *col = ZCOL(d, j);
            for (int i = 0; i < n; i++)
                col[i] += w[j] * top[i];
        }
    } else if (order_new == k - 1) {
        int deg = k + 1;
        grid_poly(deg, w);
        double *top = ZCOL(d, deg);
        for (int j = 1; j < deg; j++) {
            double *col = ZCOL(d, j);
            for (int i = 0; i < n; i++)
                col[i] -= w[j] * top[i];
        }
        memset(top, 0, (size_t)n * sizeof(double));
    }
    d->order = order_new;
    d->e_last_valid = 0;
}

/* ------------------------------------------------------------------------
** Stages
*/

/* Modified Newton for G(y) = y - gamma f(t, y) - psi = 0 from the start
** value in d->y (with f there in d->f when f_known, else evaluated):
** P delta = psi + gamma f - y ([CC92]; convergence test as in VSTIFF,
** [BBH89]). On HY_EVAL_OK d->y holds the solution. */
static int solve_stage(mstiff_mem *d, double t_stage, double gamma,
                       int f_known)
{
    int n = d->n;
    double err_const = mebdf_error_const[d->order - 1];
    double conv_const = 0.5 / (d->order + 3);
    double del_prev = 0.0;
    for (int iter = 0;; iter++) {
        if (!(iter == 0 && f_known)) {
            int status = hy_eval_rhs(&d->dae, &d->head, t_stage, d->y, d->f);
            if (status != HY_EVAL_OK)
                return status;
        }
        double gamma_ratio = gamma / d->gamma_matrix;
        double rhs_scale = gamma_ratio == 1.0 ? 1.0 : 2.0 / (1.0 + gamma_ratio);
        for (int i = 0; i < n; i++)
            d->delta[i] = rhs_scale * (d->psi[i] + gamma * d->f[i] - d->y[i]);
        hy_itmat_solve(&d->iter, d->delta);
        d->head.stats.n_newton_iters++;
        for (int i = 0; i < n; i++)
            d->y[i] += d->delta[i];
        double del = hy_wrms_norm(n, d->delta, d->ewt);
        if (!isfinite(del))
            break;
        if (iter > 0)
            d->conv_rate = fmax(MSTIFF_CRATE_DOWN * d->conv_rate,
                                del / del_prev);
        double dcon = del * fmin(1.0, 1.5 * d->conv_rate) * err_const
                    / conv_const;
        if (dcon <= 1.0)
            return HY_EVAL_OK;
        if (iter + 1 >= MSTIFF_MAX_CORR_ITERS
            || (iter >= 1 && del > MSTIFF_DIVERGE_RATIO * del_prev))
            break;
        del_prev = del;
    }
    d->head.worst = hy_argmax_weighted(n, d->delta, d->ewt);
    return HY_EVAL_NO_CONV;
}

/* The three stages of one step from the predicted history (z = A z).
** On HY_EVAL_OK, d->y is y_{n+1} and d->corr = y_{n+1} - P(0). */
static int solve_step(mstiff_mem *d, double t_new, double h)
{
    int n = d->n, k = d->order;
    const bdf_coefs *bdf = &bdf_table[k - 1];
    const ebdf_coefs *ebdf = &ebdf_table[k - 1];
    double gamma = h * bdf->b;
    int force_jac = 0;
    for (;;) {
        int need_matrix = !d->have_matrix || force_jac
            || fabs(gamma / d->gamma_matrix - 1.0) > MSTIFF_GAMMA_CHANGE_MAX
            || d->steps_since_matrix >= MSTIFF_STEPS_PER_MATRIX;
        int need_jac = !d->have_jac || force_jac
            || d->steps_since_jac >= MSTIFF_STEPS_PER_JAC;
        /* Stage 1: BDF_k at t_{n+1}, from P(0). */
        memset(d->psi, 0, (size_t)n * sizeof(double));
        for (int j = 1; j <= k; j++)
            add_history_value(d, -j, -bdf->a[j - 1], d->psi);
        memcpy(d->y, ZCOL(d, 0), (size_t)n * sizeof(double));
        int status = hy_eval_rhs(&d->dae, &d->head, t_new, d->y, d->f);
        if (status != HY_EVAL_OK)
            return status;
        if (need_matrix) {
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
        status = solve_stage(d, t_new, gamma, 1);
        if (status == HY_EVAL_OK) {
            /* y_bar1, the implied f_bar1 = (y_bar1 - psi)/gamma, and
            ** e1 = y_bar1 - P(0) in corr. */
            const double *y_pred = ZCOL(d, 0);
            for (int i = 0; i < n; i++) {
                d->y_bar1[i] = d->y[i];
                d->f_bar1[i] = (d->y[i] - d->psi[i]) / gamma;
                d->corr[i] = d->y[i] - y_pred[i];
            }
            /* Stage 2: BDF_k at t_{n+2}, from the interpolant through
            ** y_bar1 and the history: P(1) + (k+2) e1. */
            memset(d->psi, 0, (size_t)n * sizeof(double));
            for (int i = 0; i < n; i++)
                d->psi[i] = -bdf->a[0] * d->y_bar1[i];
            for (int j = 2; j <= k; j++)
                add_history_value(d, 1 - j, -bdf->a[j - 1], d->psi);
            memset(d->y, 0, (size_t)n * sizeof(double));
            add_history_value(d, 1.0, 1.0, d->y);
            for (int i = 0; i < n; i++)
                d->y[i] += (k + 2) * d->corr[i];
            status = solve_stage(d, t_new + h, gamma, 0);
        }
        if (status == HY_EVAL_OK) {
            for (int i = 0; i < n; i++)
                d->f_bar2[i] = (d->y[i] - d->psi[i]) / gamma;
            /* Stage 3: the MEBDF corrector, from y_bar1 with f_bar1. */
            memset(d->psi, 0, (size_t)n * sizeof(double));
            for (int j = 1; j <= k; j++)
                add_history_value(d, -j, -ebdf->c[j - 1], d->psi);
            for (int i = 0; i < n; i++) {
                d->psi[i] += h * ((ebdf->c0 - bdf->b) * d->f_bar1[i]
                                  + ebdf->c1 * d->f_bar2[i]);
                d->y[i] = d->y_bar1[i];
                d->f[i] = d->f_bar1[i];
            }
            status = solve_stage(d, t_new, gamma, 1);
        }
        if (status == HY_EVAL_OK) {
            const double *y_pred = ZCOL(d, 0);
            for (int i = 0; i < n; i++)
                d->corr[i] = d->y[i] - y_pred[i];
            return HY_EVAL_OK;
        }
        if (status != HY_EVAL_NO_CONV || d->jac_fresh)
            return status;
        /* The Jacobian was old: redo the step with a new one. */
        force_jac = 1;
    }
}

/* ------------------------------------------------------------------------
** Creation, initialisation
*/

static void mstiff_destroy(void *mem)
{
    mstiff_mem *d = mem;
    if (d == NULL)
        return;
    hy_free(d->rtol);
    hy_free(d->atol);
    hy_itmat_free(&d->iter);
    hy_free(d->z);
    hy_free(d->z_backup);
    hy_free(d->y);
    hy_free(d->f);
    hy_free(d->delta);
    hy_free(d->ewt);
    hy_free(d->f_pert);
    hy_free(d->psi);
    hy_free(d->y_bar1);
    hy_free(d->f_bar1);
    hy_free(d->f_bar2);
    hy_free(d->corr);
    hy_free(d->e_last);
    hy_free(d);
}

static void *mstiff_create(int n)
{
    if (n <= 0)
        return NULL;
    mstiff_mem *d = hy_calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    size_t len = (size_t)n;
    d->n = n;
    d->rtol = hy_malloc(len * sizeof(double));
    d->atol = hy_malloc(len * sizeof(double));
    d->z = hy_calloc(MSTIFF_N_COLS * len, sizeof(double));
    d->z_backup = hy_calloc(MSTIFF_N_COLS * len, sizeof(double));
    d->y = hy_malloc(len * sizeof(double));
    d->f = hy_malloc(len * sizeof(double));
    d->delta = hy_malloc(len * sizeof(double));
    d->ewt = hy_malloc(len * sizeof(double));
    d->f_pert = hy_malloc(len * sizeof(double));
    d->psi = hy_malloc(len * sizeof(double));
    d->y_bar1 = hy_malloc(len * sizeof(double));
    d->f_bar1 = hy_malloc(len * sizeof(double));
    d->f_bar2 = hy_malloc(len * sizeof(double));
    d->corr = hy_malloc(len * sizeof(double));
    d->e_last = hy_calloc(len, sizeof(double));
    if (!d->rtol || !d->atol || !d->z || !d->z_backup || !d->y || !d->f || !d->delta || !d->ewt
        || !d->f_pert || !d->psi || !d->y_bar1 || !d->f_bar1 || !d->f_bar2
        || !d->corr || !d->e_last) {
        mstiff_destroy(d);
        return NULL;
    }
    d->head.worst = -1;
    return d;
}

static int mstiff_init(void *mem, const hy_dae *dae, double t0,
                       const double *y0, const double *yp0,
                       const hy_options *opt)
{
    mstiff_mem *d = mem;
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
    d->max_order = opt->max_order > 0 && opt->max_order < MSTIFF_MAX_ORDER
                       ? opt->max_order
                       : MSTIFF_MAX_ORDER;

    d->t = t0;
    d->t_prev = t0;
    d->h = 0.0;
    d->order = 1;
    d->order_next = 1;
    d->started = 0;
    d->n_steps_since_init = 0;
    d->steps_to_wait = 3;
    d->first_decision = 1;
    d->e_last_valid = 0;
    d->have_jac = 0;
    d->have_matrix = 0;
    d->jac_fresh = 0;
    d->gamma_matrix = 1.0;
    d->steps_since_matrix = 0;
    d->steps_since_jac = 0;
    d->conv_rate = 0.7;
    d->head.worst = -1;
    memset(d->z, 0, MSTIFF_N_COLS * (size_t)n * sizeof(double));
    memcpy(ZCOL(d, 0), y0, (size_t)n * sizeof(double));
    d->head.stats.h_last = 0.0;
    d->head.stats.order_last = 0;
    d->initialized = 1;
    return HYDAE_OK;
}

/* ------------------------------------------------------------------------
** Step
*/

/* Every k+2 steps of constant h and k ([CC92]'s waiting, so that the
** history and e_n - e_{n-1} belong to the current grid): ratios for orders
** k-1, k, k+1 with the biases of [BBH89]; h increases by 1.5 at least
** (at most 1e4 at the first decision, 10 later); decreases happen after
** failures only. */
static void choose_next(mstiff_mem *d, double err_k, int prev_same)
{
    int n = d->n, k = d->order;
    d->order_next = k;
    d->h_next = d->h;
    if (--d->steps_to_wait > 0)
        return;
    d->steps_to_wait = 1;   /* look again after the next step */
    double eta = 1.0 / (pow(MSTIFF_BIAS_SAME * err_k, 1.0 / (k + 2))
                        + MSTIFF_ETA_ADDON);
    int order_next = k;
    if (k > 1) {
        double factorial = 1.0;
        for (int j = 2; j <= k + 1; j++)
            factorial *= j;
        double err_down = mebdf_error_const[k - 2] * factorial
                        * hy_wrms_norm(n, ZCOL(d, k + 1), d->ewt);
        double eta_down = 1.0 / (pow(MSTIFF_BIAS_DOWN * err_down,
                                     1.0 / (k + 1)) + MSTIFF_ETA_ADDON);
        if (eta_down > eta) {
            eta = eta_down;
            order_next = k - 1;
        }
    }
    if (k < d->max_order && prev_same) {
        /* f_pert holds e_n - e_{n-1} (set by the caller). */
        double err_up = mebdf_error_const[k]
                      * hy_wrms_norm(n, d->f_pert, d->ewt);
        double eta_up = 1.0 / (pow(MSTIFF_BIAS_UP * err_up, 1.0 / (k + 3))
                               + MSTIFF_ETA_ADDON);
        if (eta_up > eta) {
            eta = eta_up;
            order_next = k + 1;
        }
    }
    if (eta < MSTIFF_ETA_THRESH)
        return;
    eta = fmin(eta, d->first_decision ? MSTIFF_ETA_MAX_FIRST : MSTIFF_ETA_MAX);
    d->first_decision = 0;
    d->order_next = order_next;
    d->h_next = d->h * eta;
    d->steps_to_wait = order_next + 2;
}

static int mstiff_step(void *mem, double t_stop, double *t_new)
{
    mstiff_mem *d = mem;
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
        if (h_try != d->h) {
            rescale_history(d, h_try);
            d->e_last_valid = 0;
            if (d->steps_to_wait < d->order + 2)
                d->steps_to_wait = d->order + 2;
        }
        double h = d->h;
        double t_try = lands ? t_stop : d->t + h;
        int k = d->order;
        size_t hist_len = (size_t)(k + 2) * (size_t)n;
        memcpy(d->z_backup, d->z, hist_len * sizeof(double));
        predict(d);
        d->jac_fresh = 0;
        int status = solve_step(d, t_try, h);
        if (status == HY_EVAL_OK) {
            double err = mebdf_error_const[k - 1]
                       * hy_wrms_norm(n, d->corr, d->ewt);
            if (err <= 1.0) {
                /* z <- z + e l, l from prod_{i=1}^{k+1} (1 + x/i). */
                double l[MSTIFF_N_COLS];
                for (int j = 0; j <= k + 1; j++)
                    l[j] = 0.0;
                l[0] = 1.0;
                for (int i = 1; i <= k + 1; i++)
                    for (int j = i; j >= 1; j--)
                        l[j] += l[j - 1] / i;
                for (int j = 0; j <= k + 1; j++) {
                    double *col = ZCOL(d, j);
                    for (int i = 0; i < n; i++)
                        col[i] += l[j] * d->corr[i];
                }
                int prev_same = d->e_last_valid;
                for (int i = 0; i < n; i++) {
                    d->f_pert[i] = d->corr[i] - d->e_last[i];
                    d->e_last[i] = d->corr[i];
                }
                d->e_last_valid = 1;
                d->t_prev = d->t;
                d->t = t_try;
                d->head.stats.n_steps++;
                d->n_steps_since_init++;
                d->steps_since_matrix++;
                d->steps_since_jac++;
                d->head.stats.h_last = h;
                d->head.stats.order_last = k;
                hy_set_weights(n, d->rtol, d->atol, ZCOL(d, 0), 1, d->ewt);
                choose_next(d, err, prev_same);
                if (d->h_next < d->h_min)
                    d->h_next = d->h_min;
                *t_new = d->t;
                return lands ? HY_TSTOP : HYDAE_OK;
            }
            /* Error test failure. */
            memcpy(d->z, d->z_backup, hist_len * sizeof(double));
            d->head.worst = hy_argmax_weighted(n, d->corr, d->ewt);
            d->head.stats.n_err_fails++;
            n_err_fails++;
            if (n_err_fails >= MSTIFF_MAX_ERR_FAILS)
                return HYDAE_ERR_ERRTEST;
            double eta = 1.0 / (pow(MSTIFF_BIAS_SAME * err, 1.0 / (k + 2))
                                + MSTIFF_ETA_ADDON);
            eta = fmax(MSTIFF_ETA_MIN, fmin(eta, 0.9));
            if (n_err_fails >= 2)
                eta = fmin(eta, MSTIFF_ETA_MAX_ERRFAIL);
            if (n_err_fails >= MSTIFF_ERRFAILS_TO_ORDER1) {
                eta = MSTIFF_ETA_MIN;
                if (k > 1) {
                    status = hy_eval_rhs(&d->dae, &d->head, d->t,
                                         ZCOL(d, 0), d->f);
                    if (status != HY_EVAL_OK)
                        return HYDAE_ERR_RESIDUAL;
                    for (int j = 2; j <= k + 1; j++)
                        memset(ZCOL(d, j), 0, (size_t)n * sizeof(double));
                    double *col1 = ZCOL(d, 1);
                    for (int i = 0; i < n; i++)
                        col1[i] = h * d->f[i];
                    d->order = 1;
                }
            }
            d->steps_to_wait = d->order + 2;
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
        memcpy(d->z, d->z_backup, hist_len * sizeof(double));
        if (status == HY_EVAL_RES_FATAL || status == HY_EVAL_JAC_FATAL
            || status == HY_EVAL_NOMEM)
            return hy_eval_error(status, 0);
        d->head.stats.n_conv_fails++;
        n_conv_fails++;
        if (status == HY_EVAL_SINGULAR) {
            d->have_matrix = 0;
            d->head.worst = -1; /* no column known: name none (sim.c) */
        }
        d->steps_to_wait = d->order + 2;
        h_try = h * MSTIFF_ETA_CONVFAIL;
        int too_small = (d->h_min > 0.0 && h_try < d->h_min
                         && h <= d->h_min * (1.0 + 1e-12))
                      || d->t + h_try == d->t
                      || h_try < hy_roundoff_floor(d->t);
        if (h_try < d->h_min)
            h_try = d->h_min;
        if (n_conv_fails >= MSTIFF_MAX_CONV_FAILS || too_small)
            return hy_eval_error(status, too_small);
    }
}

/* y and y' at t in [t_prev, t_n] from the history polynomial of the last
** step (degree k+1, the interpolant of y_{n+1}, ..., y_{n-k}). */
static int mstiff_dense(void *mem, double t, double *y, double *yp)
{
    mstiff_mem *d = mem;
    if (d == NULL || !d->initialized || !hy_dense_covers(t, d->t_prev, d->t))
        return HYDAE_ERR_ARG;
    int n = d->n;
    if (!d->started) {
        if (y)
            memcpy(y, ZCOL(d, 0), (size_t)n * sizeof(double));
        if (yp && hy_eval_rhs(&d->dae, &d->head, d->t, ZCOL(d, 0), yp)
                      != HY_EVAL_OK)
            return HYDAE_ERR_RESIDUAL;
        return HYDAE_OK;
    }
    int deg = d->order + 1;
    double x = (t - d->t) / d->h;
    for (int i = 0; i < n; i++) {
        double value = 0.0, slope = 0.0;
        for (int j = deg; j >= 0; j--) {
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

const hy_integrator_ops hy_mstiff = {
    .name = "MSTIFF",
    .create = mstiff_create,
    .init = mstiff_init,
    .step = mstiff_step,
    .dense = mstiff_dense,
    .get_stats = hy_get_stats,
    .worst_component = hy_worst_component,
    .destroy = mstiff_destroy,
    .needs_rhs = 1,
    .fixed_step = 0,
    .uses_matrix = 1,
    .max_order = MSTIFF_MAX_ORDER,
};
