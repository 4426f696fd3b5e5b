/*
** RK4: the classical 4th-order Runge-Kutta method with a fixed step
** h = h_max for explicit ODEs y' = f(t, y); no error control.
**
**   [HNW] E. Hairer, S.P. Norsett, G. Wanner, "Solving Ordinary
**         Differential Equations I: Nonstiff Problems", 2nd ed., Springer
**         1993: II.1, the classical Runge-Kutta method of Kutta (1901)
**         (c = 0, 1/2, 1/2, 1; a21 = a32 = 1/2, a43 = 1; b = 1/6, 2/6,
**         2/6, 1/6); II.6, cubic Hermite interpolation of the step's end
**         values and derivatives as a dense output (order 3).
**
** Steps are placed on the grid t_anchor + m h_max, t_anchor being t0 or
** the last t_stop the integration landed on, so that t does not drift by
** accumulated rounding; the last step before t_stop is shortened to land
** on it exactly. f(t_new, y_new) is evaluated at the end of each step: it
** is the Hermite end slope and the first stage of the next step, so a
** step costs 4 evaluations. A fixed step cannot be retried smaller: a
** failure of f (a return != 0 or a value that is not finite) ends step()
** with HYDAE_ERR_RESIDUAL and leaves the solution at the last accepted point.
*/
#include "integrators/common.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RK4_ORDER 4

/* Kutta's classical tableau ([HNW] II.1). */
static const double rk4_c[4] = { 0.0, 0.5, 0.5, 1.0 };
static const double rk4_a[4] = { 0.0, 0.5, 0.5, 1.0 };     /* a_{s,s-1} */
static const double rk4_b[4] = { 1.0 / 6.0, 2.0 / 6.0, 2.0 / 6.0, 1.0 / 6.0 };

typedef struct rk4_mem {
    hy_mem_head head;           /* first: statistics, worst component */
    int n;
    int initialized;

    hy_dae dae;
    double h_fixed;             /* h_max */

    double t;                   /* time of the current solution */
    double t_prev;              /* start of the last step */
    double t_anchor;            /* steps end at t_anchor + m h_fixed */
    long n_since_anchor;        /* m of the current point */
    int have_f;                 /* f(t, y) is in f */
    long n_steps_since_init;
    int last_step_trivial;      /* last "step" only moved t by roundoff */

    double *y, *f;              /* solution and f at t */
    double *y_prev, *f_prev;    /* at t_prev */
    double *y_new, *f_new;      /* the step being taken */
    double *k[3];               /* stages 2..4 */
    double *y_stage;
    double *yp_init;            /* y'(t0) given to init() */
} rk4_mem;

static void rk4_destroy(void *mem);

static void *rk4_create(int n)
{
    if (n <= 0)
        return NULL;
    rk4_mem *d = hy_calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    size_t len = (size_t)n;
    d->n = n;
    double **vectors[] = { &d->y, &d->f, &d->y_prev, &d->f_prev, &d->y_new,
                           &d->f_new, &d->k[0], &d->k[1], &d->k[2],
                           &d->y_stage, &d->yp_init };
    for (size_t v = 0; v < sizeof vectors / sizeof vectors[0]; v++) {
        *vectors[v] = hy_calloc(len, sizeof(double));
        if (*vectors[v] == NULL) {
            rk4_destroy(d);
            return NULL;
        }
    }
    d->head.worst = -1;
    return d;
}

static void rk4_destroy(void *mem)
{
    rk4_mem *d = mem;
    if (d == NULL)
        return;
    hy_free(d->y);
    hy_free(d->f);
    hy_free(d->y_prev);
    hy_free(d->f_prev);
    hy_free(d->y_new);
    hy_free(d->f_new);
    for (int s = 0; s < 3; s++)
        hy_free(d->k[s]);
    hy_free(d->y_stage);
    hy_free(d->yp_init);
    hy_free(d);
}

/* Tolerances, h0, h_min and max_order do not apply to a fixed-step method
** without error control; h_max must be positive and finite. */
static int rk4_init(void *mem, const hy_dae *dae, double t0, const double *y0,
                    const double *yp0, const hy_options *opt)
{
    rk4_mem *d = mem;
    if (d == NULL || dae == NULL || opt == NULL || y0 == NULL)
        return HYDAE_ERR_ARG;
    d->initialized = 0;
    int n = d->n;
    if (dae->n != n || dae->rhs == NULL || !isfinite(t0))
        return HYDAE_ERR_ARG;
    if (!(opt->h_max > 0.0) || !isfinite(opt->h_max) || !(opt->h_min >= 0.0)
        || opt->h_min > opt->h_max)
        return HYDAE_ERR_ARG;
    if (!hy_all_finite(n, y0) || !hy_all_finite(n, yp0))
        return HYDAE_ERR_ARG;
    d->dae = *dae;
    d->h_fixed = opt->h_max;
    d->t = t0;
    d->t_prev = t0;
    d->t_anchor = t0;
    d->n_since_anchor = 0;
    d->have_f = 0;
    d->n_steps_since_init = 0;
    d->last_step_trivial = 0;
    d->head.worst = -1;
    memcpy(d->y, y0, (size_t)n * sizeof(double));
    memcpy(d->y_prev, y0, (size_t)n * sizeof(double));
    if (yp0 != NULL)
        memcpy(d->yp_init, yp0, (size_t)n * sizeof(double));
    else
        memset(d->yp_init, 0, (size_t)n * sizeof(double));
    d->head.stats.h_last = 0.0;
    d->head.stats.order_last = 0;
    d->initialized = 1;
    return HYDAE_OK;
}

static void swap_vectors(double **a, double **b)
{
    double *keep = *a;
    *a = *b;
    *b = keep;
}

static int rk4_step(void *mem, double t_stop, double *t_new)
{
    rk4_mem *d = mem;
    if (d == NULL || t_new == NULL || !d->initialized)
        return HYDAE_ERR_ARG;
    *t_new = d->t;
    if (!(t_stop >= d->t) || !isfinite(t_stop))
        return HYDAE_ERR_ARG;
    int n = d->n;
    if (!d->have_f) {
        if (hy_eval_rhs(&d->dae, &d->head, d->t, d->y, d->f) != HY_EVAL_OK)
            return HYDAE_ERR_RESIDUAL;
        d->have_f = 1;
    }
    if (t_stop - d->t <= hy_roundoff_floor(t_stop)) {
        /* t_stop equals t up to roundoff: arrive without a step; y moves
        ** by (t_stop - t) f, below roundoff. */
        double dt = t_stop - d->t;
        memcpy(d->y_prev, d->y, (size_t)n * sizeof(double));
        memcpy(d->f_prev, d->f, (size_t)n * sizeof(double));
        for (int i = 0; i < n; i++)
            d->y[i] += dt * d->f[i];
        d->t_prev = d->t;
        d->t = t_stop;
        d->t_anchor = t_stop;
        d->n_since_anchor = 0;
        d->last_step_trivial = 1;
        *t_new = t_stop;
        return HY_TSTOP;
    }
    /* The next grid point; land on t_stop if it is not beyond it by more
    ** than roundoff (the step is then at most h_max up to a few ulps). */
    double t_grid = d->t_anchor + (double)(d->n_since_anchor + 1) * d->h_fixed;
    int lands = t_grid >= t_stop - hy_roundoff_floor(t_stop);
    double t_try = lands ? t_stop : t_grid;
    if (!lands && t_try - d->t > d->h_fixed)
        t_try = nextafter(t_try, d->t);
    double h = t_try - d->t;
    if (!(h > 0.0))
        return HYDAE_ERR_HMIN;

    /* k1 = f; k_s = f(t + c_s h, y + h a_{s,s-1} k_{s-1}), s = 2..4. */
    const double *k_prev = d->f;
    for (int s = 1; s < 4; s++) {
        for (int i = 0; i < n; i++)
            d->y_stage[i] = d->y[i] + h * rk4_a[s] * k_prev[i];
        double t_stage = rk4_c[s] == 1.0 ? t_try : d->t + rk4_c[s] * h;
        if (hy_eval_rhs(&d->dae, &d->head, t_stage, d->y_stage, d->k[s - 1])
            != HY_EVAL_OK)
            return HYDAE_ERR_RESIDUAL;
        k_prev = d->k[s - 1];
    }
    /* sum_s b_s k_s as k_1 + sum_{s>1} b_s (k_s - k_1) (sum_s b_s = 1):
    ** a constant f then gives y + h f without rounding drift. */
    for (int i = 0; i < n; i++) {
        double k_1 = d->f[i];
        d->y_new[i] = d->y[i]
                      + h * (k_1 + rk4_b[1] * (d->k[0][i] - k_1)
                             + rk4_b[2] * (d->k[1][i] - k_1)
                             + rk4_b[3] * (d->k[2][i] - k_1));
    }
    for (int i = 0; i < n; i++)
        if (!isfinite(d->y_new[i])) {
            d->head.worst = i;
            return HYDAE_ERR_RESIDUAL;
        }
    if (hy_eval_rhs(&d->dae, &d->head, t_try, d->y_new, d->f_new) != HY_EVAL_OK)
        return HYDAE_ERR_RESIDUAL;

    /* Accept: (y, f) become the previous point, (y_new, f_new) the
    ** current one. */
    swap_vectors(&d->y_prev, &d->y);
    swap_vectors(&d->y, &d->y_new);
    swap_vectors(&d->f_prev, &d->f);
    swap_vectors(&d->f, &d->f_new);
    d->t_prev = d->t;
    d->t = t_try;
    if (lands) {
        d->t_anchor = t_try;
        d->n_since_anchor = 0;
    } else {
        d->n_since_anchor++;
    }
    d->last_step_trivial = 0;
    d->n_steps_since_init++;
    d->head.stats.n_steps++;
    d->head.stats.h_last = h;
    d->head.stats.order_last = RK4_ORDER;
    *t_new = t_try;
    return lands ? HY_TSTOP : HYDAE_OK;
}

/* Cubic Hermite interpolation on [t_prev, t] ([HNW] II.6): with
** theta = (t - t_prev)/h,
**   y = h00 y0 + h h10 f0 + h01 y1 + h h11 f1,
** h00 = 2 theta^3 - 3 theta^2 + 1, h10 = theta^3 - 2 theta^2 + theta,
** h01 = -2 theta^3 + 3 theta^2,    h11 = theta^3 - theta^2,
** and y' its derivative in t. */
static int rk4_dense(void *mem, double t, double *y, double *yp)
{
    rk4_mem *d = mem;
    if (d == NULL || !d->initialized || !hy_dense_covers(t, d->t_prev, d->t))
        return HYDAE_ERR_ARG;
    int n = d->n;
    if (d->n_steps_since_init == 0 || d->last_step_trivial || t == d->t) {
        if (y)
            memcpy(y, d->y, (size_t)n * sizeof(double));
        if (yp)
            memcpy(yp, d->have_f ? d->f : d->yp_init, (size_t)n * sizeof(double));
        return HYDAE_OK;
    }
    double h = d->t - d->t_prev;
    double theta = (t - d->t_prev) / h;
    double theta2 = theta * theta, theta3 = theta2 * theta;
    double h00 = 2.0 * theta3 - 3.0 * theta2 + 1.0;
    double h10 = theta3 - 2.0 * theta2 + theta;
    double h01 = -2.0 * theta3 + 3.0 * theta2;
    double h11 = theta3 - theta2;
    /* d/dtheta; h00' = -h01'. */
    double h01_d = 6.0 * theta * (1.0 - theta);
    double h10_d = 3.0 * theta2 - 4.0 * theta + 1.0;
    double h11_d = 3.0 * theta2 - 2.0 * theta;
    for (int i = 0; i < n; i++) {
        if (y)
            y[i] = h00 * d->y_prev[i] + h01 * d->y[i]
                   + h * (h10 * d->f_prev[i] + h11 * d->f[i]);
        if (yp)
            yp[i] = h01_d * (d->y[i] - d->y_prev[i]) / h
                    + h10_d * d->f_prev[i] + h11_d * d->f[i];
    }
    return HYDAE_OK;
}

const hy_integrator_ops hy_rk4 = {
    .name = "RK4",
    .create = rk4_create,
    .init = rk4_init,
    .step = rk4_step,
    .dense = rk4_dense,
    .get_stats = hy_get_stats,
    .worst_component = hy_worst_component,
    .destroy = rk4_destroy,
    .needs_rhs = 1,
    .fixed_step = 1,
    .max_order = 0,
};
