/*
** RK45: the Dormand-Prince 5(4) explicit Runge-Kutta pair for explicit
** ODEs y' = f(t, y), with local error control, local extrapolation (the
** 5th-order solution is propagated), FSAL and a dense output of order 4.
**
**   [DP80] J.R. Dormand, P.J. Prince, "A family of embedded Runge-Kutta
**          formulae", J. Comput. Appl. Math. 6 (1980) 19-26.
**   [HNW]  E. Hairer, S.P. Norsett, G. Wanner, "Solving Ordinary
**          Differential Equations I: Nonstiff Problems", 2nd ed., Springer
**          1993: II.5, Table 5.2 (the coefficients of [DP80]); II.4, the
**          error norm (4.10)-(4.11), the standard step size controller
**          (4.12)-(4.13) and the starting step size algorithm; II.6, the
**          continuous extension of the method (dense output of Shampine,
**          [S86]).
**   [S86]  L.F. Shampine, "Some practical Runge-Kutta formulas", Math.
**          Comp. 46 (1986) 135-150.
**
** The step loop is stepctl.c's hy_erk_step (shared with RK853); its step
** size control is the PI (stabilised) controller of DOPRI5 ([HNW2]
** IV.2, "Stabilized Step Size Control"; the parameters of Hairer's DOPRI5
** code description: beta = 0.04, facmin, facmax, safety as in [HNW] II.4):
**   fac = err_n^alpha / err_{n-1}^beta,  alpha = 1/5 - 0.75 beta,
**   h_new = h min(facmax, max(facmin, 0.9 / fac)), facmin 0.2, facmax 10,
** err_{n-1} = max(err of the last accepted step, 1e-4) (1e-4 at init);
** after a rejection the step is h max(facmin, 0.9 err^(-alpha)) and the
** next accepted step does not grow h. With beta = 0 this is HNW I's
** standard controller (4.13), which RK45 used before.
**
** Stiffness detection ([HNW2] IV.2, "Automatic Stiffness Detection", as
** DOPRI5 does it): the last two stages are evaluated at the same point
** t + h (c_6 = c_7 = 1), so
**   h lambda ~ h ||k_7 - k_6|| / ||y_new - g_6||
** (g_6 the argument of stage 6) estimates h times the dominant eigenvalue
** of df/dy (hy_explicit_stiffness_test: every 1000 accepted steps, and at
** every step once a test was positive); h lambda > 3.25 (the stability
** boundary of the method on the negative real axis) is a positive test,
** 15 in a row count one detection in stats.n_stiff_detections ("the
** problem seems to become stiff": a stiff integrator such as VSTIFF fits
** it better).
**
** A failure of f (a return > 0, or a value that is not finite) rejects
** the step and retries with h / 4; it counts as a rejected step
** (n_err_fails). There is no corrector, so n_conv_fails, n_jac_evals,
** n_lu, n_newton_iters stay 0.
**
**   [HNW2] E. Hairer, G. Wanner, "Solving Ordinary Differential Equations
**          II: Stiff and Differential-Algebraic Problems", 2nd ed.,
**          Springer 1996.
*/
#include "integrators/stepctl.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RK45_N_STAGES 7
#define RK45_ORDER 5            /* order of the propagated solution */
#define RK45_ERR_EXPONENT 0.2   /* 1/(q+1), q = 4 the embedded order */
#define RK45_SAFETY 0.9         /* HNW II.4: fac */
#define RK45_FAC_MIN 0.2        /* HNW II.4: facmin */
#define RK45_FAC_MAX 10.0       /* HNW II.4: facmax */
#define RK45_PI_BETA 0.04       /* DOPRI5: beta of the PI controller */
#define RK45_PI_ALPHA (RK45_ERR_EXPONENT - 0.75 * RK45_PI_BETA)
#define RK45_STIFF_H_LAMBDA 3.25        /* DOPRI5: |h lambda| bound */

/* Butcher tableau of [DP80], as printed in [HNW] II.5, Table 5.2. */
static const double rk45_c[RK45_N_STAGES] = {
    0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0
};
static const double rk45_a[RK45_N_STAGES][RK45_N_STAGES - 1] = {
    { 0 },
    { 1.0 / 5.0 },
    { 3.0 / 40.0, 9.0 / 40.0 },
    { 44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0 },
    { 19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0 },
    { 9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0,
      -5103.0 / 18656.0 },
    /* The 7th stage is evaluated at the new solution (FSAL): row 7 = b. */
    { 35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0,
      11.0 / 84.0 },
};
/* Weights of the 5th-order solution b (= row 7 of a, b_7 = 0). */
static const double rk45_b[RK45_N_STAGES] = {
    35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0,
    11.0 / 84.0, 0.0
};
/* b - b_hat, b_hat the 4th-order weights of Table 5.2
** (5179/57600, 0, 7571/16695, 393/640, -92097/339200, 187/2100, 1/40). */
static const double rk45_e[RK45_N_STAGES] = {
    71.0 / 57600.0, 0.0, -71.0 / 16695.0, 71.0 / 1920.0, -17253.0 / 339200.0,
    22.0 / 525.0, -1.0 / 40.0
};

/* Continuous extension ([HNW] II.6, after [S86]): y(t0 + theta h) =
** y0 + h sum b_i(theta) k_i with
**   b_i(theta) = theta^2 (3 - 2 theta) b_i
**              + theta^2 (theta - 1)^2 (u_i + v_i theta)
**              (+ theta (theta - 1)^2 for i = 1, + theta^2 (theta - 1) for
**              i = 7),
** where u_i + v_i theta are the linear factors printed there:
**   i=1: -5 (2558722523 - 31403016 theta) / 11282082432
**   i=3: 100 (882725551 - 15701508 theta) / 32700410799
**   i=4: -25 (443332067 - 31403016 theta) / 1880347072
**   i=5: 32805 (23143187 - 3489224 theta) / 199316789632
**   i=6: -55 (29972135 - 7076736 theta) / 822651844
**   i=7: 10 (7414447 - 829305 theta) / 29380423
** (checked symbolically: the b_i(theta) satisfy the eight order-4
** conditions for every theta, and b_i(1) = b_i). */
static const double rk45_dense_u[RK45_N_STAGES] = {
    -5.0 * 2558722523.0 / 11282082432.0, 0.0,
    100.0 * 882725551.0 / 32700410799.0,
    -25.0 * 443332067.0 / 1880347072.0,
    32805.0 * 23143187.0 / 199316789632.0,
    -55.0 * 29972135.0 / 822651844.0,
    10.0 * 7414447.0 / 29380423.0
};
static const double rk45_dense_v[RK45_N_STAGES] = {
    5.0 * 31403016.0 / 11282082432.0, 0.0,
    -100.0 * 15701508.0 / 32700410799.0,
    25.0 * 31403016.0 / 1880347072.0,
    -32805.0 * 3489224.0 / 199316789632.0,
    55.0 * 7076736.0 / 822651844.0,
    -10.0 * 829305.0 / 29380423.0
};

typedef struct rk45_mem {
    hy_erk r;                   /* first: state and step control (y at t) */
    double *ratio;              /* |err_i| / sc_i of the attempt */
} rk45_mem;

/* ------------------------------------------------------------------------
** The descriptor's functions
*/

static void rk45_destroy(void *mem)
{
    rk45_mem *d = mem;
    if (d == NULL)
        return;
    double **const slots[1] = { &d->ratio };
    hy_free_vectors(slots, 1);
    hy_erk_free(&d->r);
    hy_free(d);
}

static void *rk45_create(int n)
{
    if (n <= 0)
        return NULL;
    rk45_mem *d = hy_calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    double **const slots[1] = { &d->ratio };
    int ok = hy_erk_alloc(&d->r, n, RK45_N_STAGES, RK45_N_STAGES - 1) == 0
             && hy_alloc_vectors(n, slots, 1) == 0;
    if (!ok) {
        rk45_destroy(d);
        return NULL;
    }
    return d;
}

static int rk45_init(void *mem, const hy_dae *dae, double t0, const double *y0,
                     const double *yp0, const hy_options *opt)
{
    rk45_mem *d = mem;
    if (d == NULL)
        return HYDAE_ERR_ARG;
    return hy_erk_init(&d->r, dae, t0, y0, yp0, opt);
}

#if defined(__GNUC__)
#define RK45_KERNEL static inline __attribute__((always_inline))
#else
#define RK45_KERNEL static inline
#endif

/* arg = y + h (c_s k_1 + sum_{j<s} a_sj (k_j - k_1)) for a constant
** stage s, 1 <= s <= 6 (a case of attempt()'s switch): the sum unrolled,
** the loop over the components vectorised. Returns the finiteness carry
** (common.h) of k_s, the stage evaluated last: f's values are tested
** here, where they are read anyway. */
RK45_KERNEL uint64_t stage_argument(int n, int s, const hy_erk_bank *bank,
                                    const double *y, double h,
                                    double *restrict arg)
{
    const double *k[RK45_N_STAGES];
    for (int j = 0; j < s; j++)
        k[j] = bank->k[j];
    uint64_t carry = 0;
    for (int i = 0; i < n; i++) {
        double k_1 = k[0][i];
        double incr = rk45_c[s] * k_1;
        for (int j = 1; j < s; j++)
            incr += rk45_a[s][j] * (k[j][i] - k_1);
        arg[i] = y[i] + h * incr;
        carry |= hy_finite_carry(k[s - 1][i]);
    }
    return carry;
}

/* ratio_i = |err_i| / sc_i with err = h sum_s e_s (k_s - k_1) (sum_s e_s
** = 0; e_2 = 0 skipped) and sc_i = atol_i + rtol_i max(|y_i|, |y_new_i|)
** ([HNW] (4.10)), 0 where err_i = 0, into d->ratio, in one loop that
** vectorises; (err_i - err_i) + (y_new_i - y_new_i) added (0, or NaN
** where either is not finite), so that an estimate or a solution that
** left the floating-point range fails the test. Returns the norm sqrt(sum ratio_i^2 / n) ([HNW] (4.11)), summed
** in component order. */
RK45_KERNEL double error_norm(const rk45_mem *d, const hy_erk_bank *work,
                              double h, double *restrict ratio)
{
    int n = d->r.e.n;
    const double *k_1 = work->k[0], *k_3 = work->k[2], *k_4 = work->k[3];
    const double *k_5 = work->k[4], *k_6 = work->k[5], *k_7 = work->k[6];
    const double *y = d->r.e.y, *y_new = d->r.y_new;
    const double *atol = d->r.atol, *rtol = d->r.rtol;
    for (int i = 0; i < n; i++) {
        double k1 = k_1[i];
        double err = rk45_e[2] * (k_3[i] - k1);
        err += rk45_e[3] * (k_4[i] - k1);
        err += rk45_e[4] * (k_5[i] - k1);
        err += rk45_e[5] * (k_6[i] - k1);
        err += rk45_e[6] * (k_7[i] - k1);
        err *= h;
        double y_abs = fabs(y[i]), y_new_abs = fabs(y_new[i]);
        double scale = atol[i] + rtol[i] * (y_abs > y_new_abs ? y_abs : y_new_abs);
        double r = fabs(err) / scale;
        /* 0/0 (err_i = 0 where sc_i = 0) counts 0; the select in this
        ** form (max(r, 0)) keeps the loop vectorised. */
        r = r > 0.0 ? r : 0.0;
        ratio[i] = r + ((err - err) + (y_new[i] - y_new[i]));
    }
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += ratio[i] * ratio[i];
    return sqrt(sum / n);
}

/* A value of f that is not finite in stage k: a failure of f as
** hy_eval_rhs reports it. */
static int nonfinite_stage(rk45_mem *d, const double *k)
{
    d->r.e.head.worst = hy_first_nonfinite(d->r.e.n, k);
    return HY_EVAL_RES_FAIL;
}

/* After a failed error test: a k_7 or a y_new that is not finite is a
** failure of the step (HY_EVAL_RES_FAIL, its first such component the
** worst); otherwise the worst component is the one of the largest ratio
** (the last NaN). */
static int locate_failure(rk45_mem *d, const hy_erk_bank *work)
{
    int n = d->r.e.n;
    const double *k_7 = work->k[RK45_N_STAGES - 1];
    if (!hy_all_finite(n, k_7))
        return nonfinite_stage(d, k_7);
    if (!hy_all_finite(n, d->r.y_new))
        return nonfinite_stage(d, d->r.y_new);
    double worst_ratio = -1.0;
    for (int i = 0; i < n; i++)
        if (!(d->ratio[i] <= worst_ratio)) {
            worst_ratio = d->ratio[i];
            d->r.e.head.worst = i;
        }
    return HY_EVAL_OK;
}

/* One attempt from (t, y) with step h to t_try: stages 2..7 into the
** working bank, y_new, and the error norm ([HNW] (4.10)-(4.11)).
** Returns HY_EVAL_OK with *err_norm set, or the failure of f. */
HY_VECTOR_CLONES
static int attempt(void *mem, double h, double t_try, double *err_norm)
{
    rk45_mem *d = mem;
    int n = d->r.e.n;
    hy_erk_bank *work = &d->r.banks[1 - d->r.cur];
    for (int s = 1; s < RK45_N_STAGES; s++) {
        double *arg = s == RK45_N_STAGES - 1 ? d->r.y_new : d->r.y_stage;
        /* sum_j a_sj k_j written as c_s k_1 + sum_j a_sj (k_j - k_1)
        ** (sum_j a_sj = c_s): a constant f then gives y + c_s h f
        ** without rounding drift (a guard y - level meets its level
        ** exactly when t does). */
        uint64_t carry;
        switch (s) {    /* a constant stage for the kernel */
        case 1: carry = stage_argument(n, 1, work, d->r.e.y, h, arg); break;
        case 2: carry = stage_argument(n, 2, work, d->r.e.y, h, arg); break;
        case 3: carry = stage_argument(n, 3, work, d->r.e.y, h, arg); break;
        case 4: carry = stage_argument(n, 4, work, d->r.e.y, h, arg); break;
        case 5: carry = stage_argument(n, 5, work, d->r.e.y, h, arg); break;
        default: carry = stage_argument(n, 6, work, d->r.e.y, h, arg); break;
        }
        if (!hy_carry_finite(carry))
            return nonfinite_stage(d, work->k[s - 1]);
        /* Stages with c = 1 are evaluated at t_try itself, so that a step
        ** landing on t_stop evaluates f exactly there. */
        double t_stage = rk45_c[s] == 1.0 ? t_try : d->r.e.t + rk45_c[s] * h;
        int status = hy_eval_rhs_unchecked(&d->r.e.dae, &d->r.e.head, t_stage,
                                           arg, work->k[s]);
        if (status != HY_EVAL_OK)
            return status;
    }
    /* k_7 is tested in the error norm (e_7 != 0). */
    *err_norm = error_norm(d, work, h, d->ratio);
    if (!(*err_norm <= 1.0))
        return locate_failure(d, work);
    return HY_EVAL_OK;
}

/* The stiffness test on stages 6 and 7, both at t + h (y_stage still holds
** the argument of stage 6). */
static void accept(void *mem, double h)
{
    rk45_mem *d = mem;
    const hy_erk_bank *work = &d->r.banks[1 - d->r.cur];
    hy_explicit_stiffness_test(&d->r.e, &d->r.stiff, h, RK45_STIFF_H_LAMBDA,
                               work->k[6], work->k[5], d->r.y_new,
                               d->r.y_stage);
}

static const hy_erk_method rk45_method = {
    .order = RK45_ORDER,
    .err_exponent = RK45_ERR_EXPONENT,
    .pi_alpha = RK45_PI_ALPHA,
    .pi_beta = RK45_PI_BETA,
    .safety = RK45_SAFETY,
    .fac_min = RK45_FAC_MIN,
    .fac_max = RK45_FAC_MAX,
    .attempt = attempt,
    .accept = accept,
};

static int rk45_step(void *mem, double t_stop, double *t_new)
{
    return hy_erk_step(mem, &rk45_method, t_stop, t_new);
}

/* y and y' at t in [t_prev, t] from the continuous extension. */
static int rk45_dense(void *mem, double t, double *y, double *yp)
{
    rk45_mem *d = mem;
    int point = hy_explicit_dense_point(
        d ? &d->r.e : NULL, t,
        d ? d->r.banks[d->r.cur].k[RK45_N_STAGES - 1] : NULL, y, yp);
    if (point != 0)
        return point < 0 ? point : HYDAE_OK;
    int n = d->r.e.n;
    const hy_erk_bank *acc = &d->r.banks[d->r.cur];
    double h = d->r.e.t - d->r.e.t_prev;
    double theta = (t - d->r.e.t_prev) / h;
    double theta_1 = theta - 1.0;
    /* P = theta^2 (3 - 2 theta), Q = theta^2 (theta - 1)^2 and their
    ** derivatives in theta. */
    double poly_p = theta * theta * (3.0 - 2.0 * theta);
    double poly_p_d = 6.0 * theta * (1.0 - theta);
    double poly_q = theta * theta * theta_1 * theta_1;
    double poly_q_d = 2.0 * theta * theta_1 * (2.0 * theta - 1.0);
    double w[RK45_N_STAGES], w_d[RK45_N_STAGES];
    for (int s = 0; s < RK45_N_STAGES; s++) {
        double lin = rk45_dense_u[s] + rk45_dense_v[s] * theta;
        w[s] = poly_p * rk45_b[s] + poly_q * lin;
        w_d[s] = poly_p_d * rk45_b[s] + poly_q_d * lin + poly_q * rk45_dense_v[s];
    }
    /* theta (theta - 1)^2 for k_1, theta^2 (theta - 1) for k_7. */
    w[0] += theta * theta_1 * theta_1;
    w_d[0] += theta_1 * (3.0 * theta - 1.0);
    w[6] += theta * theta * theta_1;
    w_d[6] += theta * (3.0 * theta - 2.0);
    for (int i = 0; i < n; i++) {
        /* sum_s b_s(theta) = theta, sum_s b_s'(theta) = 1: relative to
        ** k_1 as in the step. */
        double k_1 = acc->k[0][i];
        double incr = theta * k_1, deriv = k_1;
        for (int s = 1; s < RK45_N_STAGES; s++) {
            incr += w[s] * (acc->k[s][i] - k_1);
            deriv += w_d[s] * (acc->k[s][i] - k_1);
        }
        if (y)
            y[i] = d->r.y_prev[i] + h * incr;
        if (yp)
            yp[i] = deriv;
    }
    return HYDAE_OK;
}

const hy_integrator_ops hy_rk45 = {
    .name = "RK45",
    .create = rk45_create,
    .init = rk45_init,
    .step = rk45_step,
    .dense = rk45_dense,
    .get_stats = hy_get_stats,
    .worst_component = hy_worst_component,
    .destroy = rk45_destroy,
    .needs_rhs = 1,
    .fixed_step = 0,
    .max_order = 0,
};
