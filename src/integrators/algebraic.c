/*
** ALGEBRAIC: the "integrator" of a configuration with no differential
** unknowns, F(t, y) = 0 (every y_i algebraic). There is nothing to
** integrate: the solution at any t is the root of F(t, .), found by
** Newton's method, and nothing about it depends on the tolerances. So
** there is no local error test and no step that can fail for accuracy; a
** step only samples the solution for the event locator, and the dense
** output solves F = 0 again wherever it is asked (output points, the
** guard samples, every iterate of the root bracketing), so events are
** located on the algebraic solution itself, to the last bit.
**
**  - Newton (solve_at): y <- y - J^-1 F(t, y), J = dF/dy (the problem's
**    Jacobian with cj = 0, or forward differences), modified Newton with
**    J kept across solves and formed again when an iteration contracts by
**    less than 4. Iterated past the tolerance until the update is within
**    the rounding of y or stops shrinking with a fresh J (newton), so the
**    solution is exact to the rounding of F.
**  - y' by the implicit function theorem: F_y y' = -F_t, F_t by a central
**    difference in t with increment uround^(1/3) max(|t|, h) (error
**    O(uround^(2/3)) relative). y' is the slope of the cubic Hermite
**    predictor and of the guards' dG/dt (only its sign matters there).
**  - The sampling step: from t to t + h, the end point is solved, and so
**    is the midpoint; the cubic Hermite interpolant through both ends
**    (values and y', [HNW] II.6) must match the solved midpoint within
**    SAMPLE_RTOL |y| + atol, else the step is redone at h times
**    0.9 (1/est)^(1/4) (the interpolant's error is O(h^4)); the next h is
**    h times that factor, in [0.2, 4]. SAMPLE_RTOL = 1e-3 whatever the
**    run's rtol: the samples exist to resolve the shape of the solution
**    for the guards (a sine gets ~8 steps per period, ~32 guard samples
**    with guard_samples = 3), not to bound an error that does not exist.
**    The first h is HNW's first guess 0.01 ||y|| / ||y'|| ([HNW] I,
**    II.4, step b; 1e-6 if either norm is below 1e-5), capped by h0_max
**    and h_max, never a fraction of the span.
**
**   [HNW] E. Hairer, S.P. Norsett, G. Wanner, "Solving Ordinary
**         Differential Equations I", 2nd ed., Springer 1993.
**
** Failures: Newton not converging even with a fresh J after h is cut to
** the roundoff floor (HYDAE_ERR_CONV), a singular J (HYDAE_ERR_SINGULAR), F or
** J failing (HYDAE_ERR_RESIDUAL, HYDAE_ERR_JACOBIAN).
*/
#include "integrators/common.h"

#include "integrators/itmat.h"
#include "core/core.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_RTOL 1e-3        /* resolution of the sampling (see above) */
#define NEWTON_MAX_ITERS 12
#define NEWTON_TOL 1e-6         /* weighted update norm that counts as converged */
#define NEWTON_SLOW_RATE 0.25   /* contraction above this: form J again */
#define NEWTON_STALE_ITERS 3    /* iterations with a J of an earlier solve */

typedef struct alg_mem {
    hy_mem_head head;           /* first: statistics, worst component */
    int n;
    int initialized;
    hy_dae dae;
    double *rtol, *atol;
    double h_user, h0_max, h_min, h_max;

    double t, t_prev;           /* the last sample and the one before */
    double h_next;              /* 0 until the first step chose it */
    long n_steps_since_init;
    double *y, *yp;             /* solution and y' at t */
    double *y_prev, *yp_prev;   /* at t_prev */
    double *y_new, *yp_new;     /* the sample being taken */
    double *y_mid;              /* the step's solved midpoint */
    double *w;                  /* Newton weights 1 / (rtol |y| + atol) */
    double *res, *res_pert, *work;
    hy_itmat iter;              /* dF/dy and its factors (any storage) */
    int jac_valid;              /* iter holds usable factors */
} alg_mem;

static void alg_destroy(void *mem);

static void *alg_create(int n)
{
    if (n <= 0)
        return NULL;
    alg_mem *d = hy_calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    size_t len = (size_t)n;
    d->n = n;
    double **vectors[] = { &d->rtol, &d->atol, &d->y, &d->yp, &d->y_prev, &d->yp_prev,
                           &d->y_new, &d->yp_new, &d->y_mid, &d->w, &d->res, &d->res_pert,
                           &d->work };
    int ok = 1;
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        *vectors[i] = hy_malloc(len * sizeof(double));
        ok = ok && *vectors[i] != NULL;
    }
    if (!ok) {
        alg_destroy(d);
        return NULL;
    }
    d->head.worst = -1;
    return d;
}

static void alg_destroy(void *mem)
{
    alg_mem *d = mem;
    if (d == NULL)
        return;
    double *vectors[] = { d->rtol, d->atol, d->y, d->yp, d->y_prev, d->yp_prev, d->y_new,
                          d->yp_new, d->y_mid, d->w, d->res, d->res_pert, d->work };
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++)
        hy_free(vectors[i]);
    hy_itmat_free(&d->iter);
    hy_free(d);
}

/* J = dF/dy at (t, y) (yp only passed through: F does not depend on it),
** factored. Forward differences with increment sqrt(uround) max(|y_j|,
** 1/w_j) ([P82]'s, see dstiff.c) when the problem has no Jacobian. */
static int form_jacobian(alg_mem *d, double t, double *y, const double *yp, const double *res0)
{
    d->head.stats.n_jac_evals++;
    d->jac_valid = 0;
    int status = HY_EVAL_OK;
    if (d->dae.jac != NULL || d->dae.jac_matrix != NULL) {
        status = hy_itmat_eval_jac(&d->iter, &d->dae, t, 0.0, y, yp);
    } else {
        /* By column groups (itmat.h): columns without a common row at once. */
        double sqrt_uround = sqrt(DBL_EPSILON);
        hy_itmat_begin_fd(&d->iter);
        for (size_t g = 0; g < hy_itmat_n_groups(&d->iter) && status == HY_EVAL_OK; g++) {
            size_t count;
            const int64_t *cols = hy_itmat_group(&d->iter, g, &count);
            for (size_t c = 0; c < count; c++) {
                int64_t j = cols[c];
                double inc = sqrt_uround * fmax(fabs(y[j]), 1.0 / d->w[j]);
                inc = (y[j] + inc) - y[j];
                if (inc == 0.0)
                    inc = sqrt_uround;
                d->iter.saved[c] = y[j];
                d->iter.del[c] = inc;
                y[j] += inc;
            }
            status = hy_eval_res(&d->dae, &d->head, t, y, yp, d->res_pert);
            for (size_t c = 0; c < count; c++)
                y[cols[c]] = d->iter.saved[c];
            for (size_t c = 0; c < count && status == HY_EVAL_OK; c++)
                hy_itmat_store_column(&d->iter, (size_t)cols[c], d->res_pert, res0,
                                      1.0 / d->iter.del[c]);
        }
    }
    if (status != HY_EVAL_OK)
        return status;
    status = hy_itmat_factor(&d->iter, &d->head);
    if (status != HY_EVAL_OK)
        return status; /* singular: head.worst names the column */
    d->jac_valid = 1;
    return HY_EVAL_OK;
}

/* Weighted norm of the rounding of y itself, 4 uround |y_i|. */
static double rounding_norm(const alg_mem *d, const double *y)
{
    double sum = 0.0;
    for (int i = 0; i < d->n; i++) {
        double scaled = 4.0 * DBL_EPSILON * fabs(y[i]) * d->w[i];
        sum += scaled * scaled;
    }
    return sqrt(sum / d->n);
}

/* Newton on F(t, y) = 0 from the guess in y (see the head comment); yp is
** passed to F unchanged. Converged when the update is within the rounding
** of y, or below NEWTON_TOL and no longer contracting by NEWTON_SLOW_RATE
** with a J formed in this solve (or with no contraction at all): that is
** rounding in F. A stale J that contracts slowly, or still has not
** converged after NEWTON_STALE_ITERS iterations, is formed again, so a
** nonlinear F ends on full Newton's quadratic convergence, not on a
** modified Newton's linear one (rate 0.23 left x^3 + x = sin t 1.5e-13
** off after 12 iterations, and its crossing 3.3e-13 late). HY_EVAL_OK, HY_EVAL_NO_CONV or a failure. */
static int newton(alg_mem *d, double t, double *y, const double *yp)
{
    int n = d->n, fresh = 0;
    double prev_norm = INFINITY;
    hy_set_weights(n, d->rtol, d->atol, y, 1, d->w);
    for (int iter = 0; iter < NEWTON_MAX_ITERS; iter++) {
        int status = hy_eval_res(&d->dae, &d->head, t, y, yp, d->res);
        if (status != HY_EVAL_OK)
            return status;
        if (!d->jac_valid) {
            status = form_jacobian(d, t, y, yp, d->res);
            if (status != HY_EVAL_OK)
                return status;
            fresh = 1;
            prev_norm = INFINITY;
        }
        hy_itmat_solve(&d->iter, d->res);
        d->head.stats.n_newton_iters++;
        for (int i = 0; i < n; i++)
            y[i] -= d->res[i];
        double norm = hy_wrms_norm(n, d->res, d->w);
        if (!isfinite(norm)) {
            prev_norm = INFINITY;
            break;
        }
        double rate = norm / prev_norm;
        if (norm == 0.0 || norm <= rounding_norm(d, y))
            return HY_EVAL_OK;
        if (rate > NEWTON_SLOW_RATE) {
            if (norm <= NEWTON_TOL && (fresh || rate >= 0.9))
                return HY_EVAL_OK;
            if (fresh && rate >= 1.0)
                break;          /* diverging with a J of this solve */
            d->jac_valid = 0;   /* slow: a new J at the next iterate */
        } else if (!fresh && iter >= NEWTON_STALE_ITERS - 1) {
            d->jac_valid = 0;   /* linear contraction would take too long */
        }
        prev_norm = norm;
    }
    if (prev_norm <= NEWTON_TOL)
        return HY_EVAL_OK;
    d->head.worst = hy_argmax_weighted(n, d->res, d->w);
    d->jac_valid = 0;
    return HY_EVAL_NO_CONV;
}

/* y' at a solution (t, y): F_y y' = -F_t, F_t by a central difference
** over t -+ dt, dt = (ulp(t) s^2)^(1/3) for the time scale s of the
** solution (the sampling step h_scale; max(|t|, 1) before the first):
** truncation (dt / s)^2 and rounding ulp(t) / dt balance at ~(ulp(t) /
** s)^(2/3) relative (1e-11 at t = 0.09, s = 1e-4; 1e-6 at t = 1e4,
** s = 1e-3), where dt = uround^(1/3) max(|t|, s) would span periods of a
** fast source late in a long run. */
static int slope_at(alg_mem *d, double t, double *y, double *yp, double h_scale)
{
    int n = d->n;
    if (!d->jac_valid) {
        int status = hy_eval_res(&d->dae, &d->head, t, y, yp, d->res);
        if (status == HY_EVAL_OK)
            status = form_jacobian(d, t, y, yp, d->res);
        if (status != HY_EVAL_OK)
            return status;
    }
    double scale = h_scale > 0.0 ? h_scale : fmax(fabs(t), 1.0);
    double ulp_t = DBL_EPSILON * fmax(fabs(t), scale);
    double dt = cbrt(ulp_t * scale * scale);
    double t_hi = t + dt, t_lo = t - dt;
    int status = hy_eval_res(&d->dae, &d->head, t_hi, y, yp, d->res);
    if (status == HY_EVAL_OK)
        status = hy_eval_res(&d->dae, &d->head, t_lo, y, yp, d->res_pert);
    if (status != HY_EVAL_OK)
        return status;
    for (int i = 0; i < n; i++)
        d->work[i] = -(d->res[i] - d->res_pert[i]) / (t_hi - t_lo);
    hy_itmat_solve(&d->iter, d->work);
    memcpy(yp, d->work, (size_t)n * sizeof(double));
    return HY_EVAL_OK;
}

/* The cubic Hermite interpolant of (t_a, y_a, yp_a), (t_b, y_b, yp_b) at t
** ([HNW] II.6, (6.7)), into out. */
static void hermite(int n, double t_a, const double *y_a, const double *yp_a, double t_b,
                    const double *y_b, const double *yp_b, double t, double *out)
{
    double h = t_b - t_a, s = (t - t_a) / h;
    for (int i = 0; i < n; i++)
        out[i] = (1.0 - s) * y_a[i] + s * y_b[i]
                 + s * (s - 1.0)
                       * ((1.0 - 2.0 * s) * (y_b[i] - y_a[i]) + (s - 1.0) * h * yp_a[i]
                          + s * h * yp_b[i]);
}

/* The solution and y' at t from the guess in y: Newton, and once more
** with a fresh J if a stale one did not converge. */
static int solve_at(alg_mem *d, double t, double *y, double *yp, double h_scale)
{
    int status = newton(d, t, y, yp);
    if (status == HY_EVAL_NO_CONV && !d->jac_valid)
        status = newton(d, t, y, yp);
    if (status == HY_EVAL_OK)
        status = slope_at(d, t, y, yp, h_scale);
    if (status == HY_EVAL_NO_CONV)
        d->head.stats.n_conv_fails++;
    return status;
}

static int alg_init(void *mem, const hy_dae *dae, double t0, const double *y0,
                    const double *yp0, const hy_options *opt)
{
    alg_mem *d = mem;
    if (d == NULL || dae == NULL || opt == NULL || y0 == NULL || yp0 == NULL)
        return HYDAE_ERR_ARG;
    d->initialized = 0;
    int n = d->n;
    if (dae->n != n || dae->res == NULL || !isfinite(t0) || !(opt->h0_max >= 0.0)
        || hy_step_bounds(opt, &d->h_min, &d->h_max) != 0
        || hy_copy_tolerances(n, opt, 0, d->rtol, d->atol) != 0 || !hy_all_finite(n, y0)
        || !hy_all_finite(n, yp0))
        return HYDAE_ERR_ARG;
    d->dae = *dae;
    int ls_status = hy_itmat_setup(&d->iter, dae, opt->linear_solver, 0);
    if (ls_status != 0)
        return ls_status;
    d->h_user = opt->h0;
    d->h0_max = opt->h0_max > 0.0 ? opt->h0_max : INFINITY;
    d->t = d->t_prev = t0;
    d->h_next = 0.0;
    d->n_steps_since_init = 0;
    d->jac_valid = 0;
    d->head.worst = -1;
    d->head.stats.h_last = 0.0;
    d->head.stats.order_last = 0;
    memcpy(d->y, y0, (size_t)n * sizeof(double));
    memcpy(d->yp, yp0, (size_t)n * sizeof(double));
    for (int i = 0; i < n; i++)     /* kept where rtol |y| + atol is 0 */
        d->w[i] = 1.0 / (d->rtol[i] + d->atol[i]);
    /* The start is consistent to the initialisation's tolerance: polish it
    ** to the rounding of F, and get y' (initialisation leaves it 0). */
    int status = solve_at(d, t0, d->y, d->yp, 0.0);
    if (status != HY_EVAL_OK)
        return HYDAE_ERR_ARG;
    memcpy(d->y_prev, d->y, (size_t)n * sizeof(double));
    memcpy(d->yp_prev, d->yp, (size_t)n * sizeof(double));
    d->initialized = 1;
    return HYDAE_OK;
}

/* The first sampling step ([HNW] II.4, step b), capped. */
static double first_step(alg_mem *d)
{
    if (d->h_user > 0.0)
        return d->h_user;
    hy_set_weights(d->n, d->rtol, d->atol, d->y, 1, d->w);
    double d0 = hy_wrms_norm(d->n, d->y, d->w), d1 = hy_wrms_norm(d->n, d->yp, d->w);
    double h = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    return fmin(h, d->h0_max);
}

/* The sampling error of the step to t_new: the Hermite interpolant against
** the solved midpoint, weighted by SAMPLE_RTOL |y| + atol. < 0 if the
** midpoint could not be solved (its status in *status). */
static double sampling_error(alg_mem *d, double t_new, int *status)
{
    int n = d->n;
    double t_mid = d->t + 0.5 * (t_new - d->t);
    hermite(n, d->t, d->y, d->yp, t_new, d->y_new, d->yp_new, t_mid, d->y_mid);
    memcpy(d->work, d->y_mid, (size_t)n * sizeof(double));
    *status = newton(d, t_mid, d->y_mid, d->yp);
    if (*status != HY_EVAL_OK)
        return -1.0;
    double est = 0.0;
    for (int i = 0; i < n; i++) {
        double size = fmax(fmax(fabs(d->y[i]), fabs(d->y_new[i])), fabs(d->y_mid[i]));
        double resolution = SAMPLE_RTOL * size + d->atol[i];
        if (resolution > 0.0)   /* 0: the component is 0 throughout */
            est = fmax(est, fabs(d->y_mid[i] - d->work[i]) / resolution);
    }
    return est;
}

static int alg_step(void *mem, double t_stop, double *t_new)
{
    alg_mem *d = mem;
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
    double h = d->h_next > 0.0 ? d->h_next : first_step(d);
    for (;;) {
        h = fmax(fmin(h, d->h_max), d->h_min);
        double dist = t_stop - d->t;
        int lands = dist <= h || (dist <= 1.01 * h && dist <= d->h_max);
        double t_try = lands ? t_stop : d->t + h;
        /* Positive even at t = 0 (whose roundoff floor may be 0, and h
        ** would shrink to 0 and loop forever: fuzz_model finding). */
        double h_floor = fmax(fmax(d->h_min, hy_roundoff_floor(d->t)),
                              1e-12 * fabs(t_stop - d->t));
        /* Predict along y', solve the end point, then the midpoint. */
        for (int i = 0; i < n; i++) {
            d->y_new[i] = d->y[i] + (t_try - d->t) * d->yp[i];
            d->yp_new[i] = d->yp[i];
        }
        int status = solve_at(d, t_try, d->y_new, d->yp_new, t_try - d->t);
        double est = 0.0;
        if (status == HY_EVAL_OK)
            est = sampling_error(d, t_try, &status);
        if (status == HY_EVAL_RES_FATAL || status == HY_EVAL_JAC_FATAL
            || status == HY_EVAL_SINGULAR || status == HY_EVAL_NOMEM)
            return hy_eval_error(status, 0);
        if (status != HY_EVAL_OK || est > 1.0) {
            /* Not solved (a nonlinear F from a far guess), or not resolved;
            ** a step at the roundoff floor is as resolved as it gets. */
            double factor = status == HY_EVAL_OK ? 0.9 * pow(est, -0.25) : 0.25;
            double h_smaller = (t_try - d->t) * fmax(0.2, fmin(0.9, factor));
            if (status != HY_EVAL_OK && h_smaller < h_floor)
                return hy_eval_error(status, 1);
            if (h_smaller >= h_floor) {
                if (status == HY_EVAL_OK)
                    d->head.stats.n_err_fails++;
                h = h_smaller;
                continue;
            }
        }
        double h_taken = t_try - d->t;
        double growth = est > 0.0 ? 0.9 * pow(est, -0.25) : 4.0;
        d->h_next = h_taken * fmax(0.2, fmin(4.0, growth));
        memcpy(d->y_prev, d->y, (size_t)n * sizeof(double));
        memcpy(d->yp_prev, d->yp, (size_t)n * sizeof(double));
        memcpy(d->y, d->y_new, (size_t)n * sizeof(double));
        memcpy(d->yp, d->yp_new, (size_t)n * sizeof(double));
        d->t_prev = d->t;
        d->t = t_try;
        d->n_steps_since_init++;
        d->head.stats.n_steps++;
        d->head.stats.h_last = h_taken;
        *t_new = d->t;
        return lands ? HY_TSTOP : HYDAE_OK;
    }
}

/* The solution at t in [t_prev, t]: solved from the Hermite guess. */
static int alg_dense(void *mem, double t, double *y, double *yp)
{
    alg_mem *d = mem;
    if (d == NULL || !d->initialized || !hy_dense_covers(t, d->t_prev, d->t))
        return HYDAE_ERR_ARG;
    int n = d->n;
    const double *y_end = NULL, *yp_end = NULL;
    if (t == d->t || d->n_steps_since_init == 0) {
        y_end = d->y;
        yp_end = d->yp;
    } else if (t == d->t_prev) {
        y_end = d->y_prev;
        yp_end = d->yp_prev;
    }
    if (y_end != NULL) {
        if (y)
            memcpy(y, y_end, (size_t)n * sizeof(double));
        if (yp)
            memcpy(yp, yp_end, (size_t)n * sizeof(double));
        return HYDAE_OK;
    }
    double *y_at = d->y_new, *yp_at = d->yp_new;
    hermite(n, d->t_prev, d->y_prev, d->yp_prev, d->t, d->y, d->yp, t, y_at);
    double s = (t - d->t_prev) / (d->t - d->t_prev);
    for (int i = 0; i < n; i++)
        yp_at[i] = (1.0 - s) * d->yp_prev[i] + s * d->yp[i];
    int status = solve_at(d, t, y_at, yp_at, d->t - d->t_prev);
    if (status != HY_EVAL_OK)
        return hy_eval_error(status, 0);
    if (y)
        memcpy(y, y_at, (size_t)n * sizeof(double));
    if (yp)
        memcpy(yp, yp_at, (size_t)n * sizeof(double));
    return HYDAE_OK;
}

const hy_integrator_ops hy_algebraic = {
    .name = "ALGEBRAIC",
    .create = alg_create,
    .init = alg_init,
    .step = alg_step,
    .dense = alg_dense,
    .get_stats = hy_get_stats,
    .worst_component = hy_worst_component,
    .destroy = alg_destroy,
    .needs_rhs = 0,
    .fixed_step = 0,
    .uses_matrix = 1,
    .max_order = 0,
};
