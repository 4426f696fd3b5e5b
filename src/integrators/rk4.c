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
#include "integrators/stepctl.h"
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
    hy_explicit e;              /* first: the shared state (y at t) */
    double h_fixed;             /* h_max */
    double t_anchor;            /* steps end at t_anchor + m h_fixed */
    long n_since_anchor;        /* m of the current point */

    double *f;                  /* f at t */
    double *y_prev, *f_prev;    /* at t_prev */
    double *y_new, *f_new;      /* the step being taken */
    double *k[3];               /* stages 2..4 */
    double *y_stage;
} rk4_mem;

#define RK4_VECTORS(d)                                                       \
    { &(d)->f, &(d)->y_prev, &(d)->f_prev, &(d)->y_new, &(d)->f_new,         \
      &(d)->k[0], &(d)->k[1], &(d)->k[2], &(d)->y_stage }
#define RK4_N_VECTORS 9

static void rk4_destroy(void *mem)
{
    rk4_mem *d = mem;
    if (d == NULL)
        return;
    double **const slots[RK4_N_VECTORS] = RK4_VECTORS(d);
    hy_free_vectors(slots, RK4_N_VECTORS);
    hy_explicit_free(&d->e);
    hy_free(d);
}

static void *rk4_create(int n)
{
    if (n <= 0)
        return NULL;
    rk4_mem *d = hy_calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    double **const slots[RK4_N_VECTORS] = RK4_VECTORS(d);
    if (hy_explicit_alloc(&d->e, n) != 0
        || hy_alloc_vectors(n, slots, RK4_N_VECTORS) != 0) {
        rk4_destroy(d);
        return NULL;
    }
    return d;
}

/* Tolerances, h0, h_min and max_order do not apply to a fixed-step method
** without error control; h_max must be positive and finite. */
static int rk4_init(void *mem, const hy_dae *dae, double t0, const double *y0,
                    const double *yp0, const hy_options *opt)
{
    rk4_mem *d = mem;
    if (d == NULL || dae == NULL || opt == NULL || y0 == NULL)
        return HYDAE_ERR_ARG;
    d->e.initialized = 0;
    if (!(opt->h_max > 0.0) || !isfinite(opt->h_max) || !(opt->h_min >= 0.0)
        || opt->h_min > opt->h_max)
        return HYDAE_ERR_ARG;
    int status = hy_explicit_init(&d->e, dae, t0, y0, yp0);
    if (status != HYDAE_OK)
        return status;
    d->h_fixed = opt->h_max;
    d->t_anchor = t0;
    d->n_since_anchor = 0;
    memcpy(d->y_prev, y0, (size_t)d->e.n * sizeof(double));
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
    int status = hy_explicit_begin(d ? &d->e : NULL, t_stop, t_new,
                                   d ? d->f : NULL);
    if (status != HYDAE_OK)
        return status;
    int n = d->e.n;
    if (hy_explicit_at_stop(&d->e, t_stop)) {
        /* t_stop equals t up to roundoff: arrive without a step; y moves
        ** by (t_stop - t) f, below roundoff. */
        memcpy(d->y_prev, d->e.y, (size_t)n * sizeof(double));
        memcpy(d->f_prev, d->f, (size_t)n * sizeof(double));
        hy_explicit_arrive(&d->e, t_stop, d->f);
        d->t_anchor = t_stop;
        d->n_since_anchor = 0;
        *t_new = t_stop;
        return HY_TSTOP;
    }
    /* The next grid point; land on t_stop if it is not beyond it by more
    ** than roundoff (the step is then at most h_max up to a few ulps). */
    double t_grid = d->t_anchor + (double)(d->n_since_anchor + 1) * d->h_fixed;
    int lands = t_grid >= t_stop - hy_roundoff_floor(t_stop);
    double t_try = lands ? t_stop : t_grid;
    if (!lands && t_try - d->e.t > d->h_fixed)
        t_try = nextafter(t_try, d->e.t);
    double h = t_try - d->e.t;
    if (!(h > 0.0))
        return HYDAE_ERR_HMIN;

    /* k1 = f; k_s = f(t + c_s h, y + h a_{s,s-1} k_{s-1}), s = 2..4. */
    const double *k_prev = d->f;
    for (int s = 1; s < 4; s++) {
        for (int i = 0; i < n; i++)
            d->y_stage[i] = d->e.y[i] + h * rk4_a[s] * k_prev[i];
        double t_stage = rk4_c[s] == 1.0 ? t_try : d->e.t + rk4_c[s] * h;
        if (hy_eval_rhs(&d->e.dae, &d->e.head, t_stage, d->y_stage, d->k[s - 1])
            != HY_EVAL_OK)
            return HYDAE_ERR_RESIDUAL;
        k_prev = d->k[s - 1];
    }
    /* sum_s b_s k_s as k_1 + sum_{s>1} b_s (k_s - k_1) (sum_s b_s = 1):
    ** a constant f then gives y + h f without rounding drift. */
    for (int i = 0; i < n; i++) {
        double k_1 = d->f[i];
        d->y_new[i] = d->e.y[i]
                      + h * (k_1 + rk4_b[1] * (d->k[0][i] - k_1)
                             + rk4_b[2] * (d->k[1][i] - k_1)
                             + rk4_b[3] * (d->k[2][i] - k_1));
    }
    for (int i = 0; i < n; i++)
        if (!isfinite(d->y_new[i])) {
            d->e.head.worst = i;
            return HYDAE_ERR_RESIDUAL;
        }
    if (hy_eval_rhs(&d->e.dae, &d->e.head, t_try, d->y_new, d->f_new) != HY_EVAL_OK)
        return HYDAE_ERR_RESIDUAL;

    /* Accept: (y, f) become the previous point, (y_new, f_new) the
    ** current one. */
    swap_vectors(&d->y_prev, &d->e.y);
    swap_vectors(&d->e.y, &d->y_new);
    swap_vectors(&d->f_prev, &d->f);
    swap_vectors(&d->f, &d->f_new);
    hy_explicit_advance(&d->e, t_try, h, RK4_ORDER, 0);
    if (lands) {
        d->t_anchor = t_try;
        d->n_since_anchor = 0;
    } else {
        d->n_since_anchor++;
    }
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
    int point = hy_explicit_dense_point(d ? &d->e : NULL, t, d ? d->f : NULL,
                                        y, yp);
    if (point != 0)
        return point < 0 ? point : HYDAE_OK;
    int n = d->e.n;
    double h = d->e.t - d->e.t_prev;
    double theta = (t - d->e.t_prev) / h;
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
            y[i] = h00 * d->y_prev[i] + h01 * d->e.y[i]
                   + h * (h10 * d->f_prev[i] + h11 * d->f[i]);
        if (yp)
            yp[i] = h01_d * (d->e.y[i] - d->y_prev[i]) / h
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
