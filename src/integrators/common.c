/*
** Machinery shared by the integrators: the checks of options and of
** dense()'s time, the weighted RMS norm and the error weights (DASSL's
** DDWNRM and DDAWTS, [P82]; Hairer-Norsett-Wanner I, II.4 (4.10)-(4.11)),
** checked calls into the problem, the starting step of VSTIFF and MSTIFF, and the descriptor's get_stats
** and worst_component. References and contracts in common.h.
*/
#include "integrators/common.h"

#include <float.h>
#include <math.h>
#include <string.h>

int hy_step_bounds(const hy_options *opt, double *h_min, double *h_max)
{
    if (!(opt->h0 >= 0.0) || !(opt->h_min >= 0.0) || !(opt->h_max >= 0.0)
        || !isfinite(opt->h0) || !isfinite(opt->h_min))
        return -1;
    *h_min = opt->h_min;
    *h_max = opt->h_max > 0.0 ? opt->h_max : INFINITY;
    return *h_min > *h_max ? -1 : 0;
}

int hy_copy_tolerances(int n, const hy_options *opt, int allow_both_zero,
                       double *rtol, double *atol)
{
    for (int i = 0; i < n; i++) {
        double rtol_i = opt->rtol_vec ? opt->rtol_vec[i] : opt->rtol;
        double atol_i = opt->atol_vec ? opt->atol_vec[i] : opt->atol;
        if (!(rtol_i >= 0.0) || !isfinite(rtol_i) || !(atol_i >= 0.0)
            || !isfinite(atol_i)
            || (!allow_both_zero && rtol_i == 0.0 && atol_i == 0.0))
            return -1;
        rtol[i] = rtol_i;
        atol[i] = atol_i;
    }
    return 0;
}

HY_VECTOR_CLONES
static int all_finite(int n, const double *v)
{
    uint64_t carry = 0;
    for (int i = 0; i < n; i++)
        carry |= hy_finite_carry(v[i]);
    return hy_carry_finite(carry);
}

int hy_all_finite(int n, const double *v)
{
    return v == NULL || all_finite(n, v);
}

int hy_first_nonfinite(int n, const double *v)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return i;
    return -1;
}

int hy_dense_covers(double t, double t_prev, double t_now)
{
    double slack = 100.0 * DBL_EPSILON * fmax(fabs(t_prev), fabs(t_now));
    return t >= t_prev - slack && t <= t_now + slack;
}

double hy_wrms_norm(int n, const double *v, const double *w)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        double scaled = v[i] * w[i];
        sum += scaled * scaled;
    }
    return sqrt(sum / n);
}

int hy_set_weights(int n, const double *rtol, const double *atol,
                   const double *y, int keep_old, double *w)
{
    if (keep_old) {
        /* No exit from the loop: 1/tol_i is computed for every component
        ** and kept where tol_i is positive and finite (0 < tol_i < inf,
        ** which NaN fails). GCC still does not vectorise it: under the
        ** default -ftrapping-math the ordered comparisons may trap. */
        for (int i = 0; i < n; i++) {
            double tol_i = rtol[i] * fabs(y[i]) + atol[i];
            double inv_i = 1.0 / tol_i;
            w[i] = tol_i > 0.0 && tol_i < INFINITY ? inv_i : w[i];
        }
        return 0;
    }
    for (int i = 0; i < n; i++) {
        double tol_i = rtol[i] * fabs(y[i]) + atol[i];
        if (tol_i > 0.0 && isfinite(tol_i))
            w[i] = 1.0 / tol_i;
        else if (!keep_old)
            return -1;
    }
    return 0;
}

int hy_argmax_weighted(int n, const double *v, const double *w)
{
    int worst = -1;
    double worst_val = 0.0;
    for (int i = 0; i < n; i++) {
        double val = fabs(v[i] * w[i]);
        if (isnan(val))
            return i;
        if (val > worst_val) {
            worst_val = val;
            worst = i;
        }
    }
    return worst;
}

double hy_roundoff_floor(double t)
{
    return 4.0 * DBL_EPSILON * fabs(t);
}

/* The status of a call of f or F that returned status and wrote out. */
static int checked_result(int n, int status, const double *out, int *worst)
{
    if (status < 0)
        return HY_EVAL_RES_FATAL;
    if (status > 0)
        return HY_EVAL_RES_FAIL;
    if (hy_all_finite(n, out))
        return HY_EVAL_OK;
    *worst = hy_first_nonfinite(n, out);
    return HY_EVAL_RES_FAIL;
}

int hy_eval_rhs(const hy_dae *dae, hy_mem_head *head, double t,
                const double *y, double *ydot)
{
    head->stats.n_res_evals++;
    int status = dae->rhs(t, y, ydot, dae->ctx);
    return checked_result(dae->n, status, ydot, &head->worst);
}

int hy_eval_rhs_unchecked(const hy_dae *dae, hy_mem_head *head, double t,
                          const double *y, double *ydot)
{
    head->stats.n_res_evals++;
    int status = dae->rhs(t, y, ydot, dae->ctx);
    return checked_result(0, status, ydot, &head->worst);
}

int hy_eval_res(const hy_dae *dae, hy_mem_head *head, double t,
                const double *y, const double *yp, double *res)
{
    head->stats.n_res_evals++;
    int status = dae->res(t, y, yp, res, dae->ctx);
    return checked_result(dae->n, status, res, &head->worst);
}

int hy_ode_initial_step(const hy_dae *dae, hy_mem_head *head, double t0,
                        double t_stop, double h_max, const double *y0,
                        const double *f0, const double *atol, const double *w,
                        double *y_work, double *f_work, double *ydd_work,
                        double *h_out)
{
    int n = dae->n;
    double dist = t_stop - t0;
    double h_lo = 100.0 * DBL_EPSILON * fmax(fabs(t0), fabs(t_stop));
    double h_hi = 0.1 * dist;
    for (int i = 0; i < n; i++) {
        double bound = 0.1 * fabs(y0[i]) + atol[i];
        if (fabs(f0[i]) * h_hi > bound)
            h_hi = bound / fabs(f0[i]);
    }
    if (h_hi > h_max)
        h_hi = h_max;
    if (!(h_hi > h_lo)) {
        /* The accuracy bound is below the roundoff-motivated floor (E5:
        ** a transient of 5e-5 s on [0, 1e13]): keep the accuracy bound as
        ** long as t0 + h still differs from t0. */
        double floor_t0 = 4.0 * hy_roundoff_floor(t0);
        *h_out = fmin(fmax(h_hi, floor_t0), dist);
        return HY_EVAL_OK;
    }
    double h_guess = sqrt(h_lo * h_hi), h_new = h_guess;
    for (int iter = 0; iter < 4; iter++) {
        for (int i = 0; i < n; i++)
            y_work[i] = y0[i] + h_guess * f0[i];
        int status = hy_eval_rhs(dae, head, t0 + h_guess, y_work, f_work);
        if (status == HY_EVAL_RES_FATAL)
            return status;
        if (status != HY_EVAL_OK) {
            h_guess *= 0.2;
            h_new = h_guess;
            continue;
        }
        for (int i = 0; i < n; i++)
            ydd_work[i] = (f_work[i] - f0[i]) / h_guess;
        double ydd_norm = hy_wrms_norm(n, ydd_work, w);
        h_new = ydd_norm * h_hi * h_hi > 2.0 ? sqrt(2.0 / ydd_norm)
                                             : sqrt(h_guess * h_hi);
        double ratio = h_new / h_guess;
        if (ratio > 0.5 && ratio < 2.0)
            break;
        h_guess = h_new;
    }
    double h = 0.5 * h_new;
    if (h < h_lo)
        h = h_lo;
    if (h > h_hi)
        h = h_hi;
    *h_out = h;
    return HY_EVAL_OK;
}

int hy_eval_error(int status, int too_small)
{
    switch (status) {
    case HY_EVAL_RES_FAIL:
    case HY_EVAL_RES_FATAL:
        return HYDAE_ERR_RESIDUAL;
    case HY_EVAL_JAC_FAIL:
    case HY_EVAL_JAC_FATAL:
        return HYDAE_ERR_JACOBIAN;
    case HY_EVAL_SINGULAR:
        return HYDAE_ERR_SINGULAR;
    case HY_EVAL_NOMEM:
        return HYDAE_ERR_NOMEM;
    default:
        return too_small ? HYDAE_ERR_HMIN : HYDAE_ERR_CONV;
    }
}

void hy_get_stats(const void *mem, hy_stats *out)
{
    const hy_mem_head *head = mem;
    if (out == NULL)
        return;
    if (head == NULL) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = head->stats;
}

int hy_worst_component(const void *mem)
{
    const hy_mem_head *head = mem;
    return head == NULL ? -1 : head->worst;
}
