/*
** The step-control layer: the accept / reject / shrink loop and history
** of the Nordsieck methods (VSTIFF, MSTIFF) and the explicit methods'
** shared set-up (RK4, RK45, ABAM). References and contracts in stepctl.h.
*/
#include "integrators/stepctl.h"
#include "core/core.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* The failure strategy and matrix reuse rules of [BBH89], the same in
** VSTIFF and MSTIFF. */
#define NSK_GAMMA_CHANGE_MAX 0.3
#define NSK_STEPS_PER_MATRIX 20
#define NSK_STEPS_PER_JAC 50
#define NSK_BIAS_SAME 6.0
#define NSK_ETA_ADDON 1e-6
#define NSK_ETA_MIN 0.1
#define NSK_ETA_MAX_ERRFAIL 0.2
#define NSK_ETA_CONVFAIL 0.25
#define NSK_ERRFAILS_TO_ORDER1 3
#define NSK_MAX_ERR_FAILS 7
#define NSK_MAX_CONV_FAILS 10

/* ------------------------------------------------------------------------
** Nordsieck methods: memory and initialisation
*/

int hy_nsk_alloc(hy_nsk *c, int n, int n_cols, int deg_offset)
{
    if (n <= 0 || n_cols > HY_NSK_MAX_COLS)
        return -1;
    size_t len = (size_t)n;
    c->n = n;
    c->n_cols = n_cols;
    c->deg_offset = deg_offset;
    c->err_power_offset = deg_offset;
    c->head.worst = -1;
    double **const slots[] = { &c->rtol, &c->atol, &c->y, &c->f, &c->corr,
                               &c->delta, &c->ewt, &c->f_pert };
    if (hy_alloc_vectors(n, slots, sizeof slots / sizeof slots[0]) != 0)
        return -1;
    c->z = hy_calloc((size_t)n_cols * len, sizeof(double));
    c->z_other = hy_calloc((size_t)n_cols * len, sizeof(double));
    return c->z && c->z_other ? 0 : -1;
}

void hy_nsk_free(hy_nsk *c)
{
    double **const slots[] = { &c->rtol, &c->atol, &c->y, &c->f, &c->corr,
                               &c->delta, &c->ewt, &c->f_pert, &c->z,
                               &c->z_other };
    hy_free_vectors(slots, sizeof slots / sizeof slots[0]);
    hy_itmat_free(&c->iter);
}

int hy_nsk_init(hy_nsk *c, const hy_dae *dae, double t0, const double *y0,
                const hy_options *opt, int max_order_method)
{
    if (dae == NULL || opt == NULL || y0 == NULL)
        return HYDAE_ERR_ARG;
    c->initialized = 0;
    int n = c->n;
    if (dae->n != n || dae->rhs == NULL || !isfinite(t0) || opt->max_order < 0
        || hy_step_bounds(opt, &c->h_min, &c->h_max) != 0
        || hy_copy_tolerances(n, opt, 1, c->rtol, c->atol) != 0
        || !hy_all_finite(n, y0)
        || hy_set_weights(n, c->rtol, c->atol, y0, 0, c->ewt) != 0)
        return HYDAE_ERR_ARG;
    c->dae = *dae;
    c->h_user = opt->h0;
    int ls_status = hy_itmat_setup(&c->iter, dae, opt->linear_solver, 1);
    if (ls_status != 0)
        return ls_status;
    c->h0_max = opt->h0_max > 0.0 ? opt->h0_max : INFINITY;
    c->max_order = opt->max_order > 0 && opt->max_order < max_order_method
                       ? opt->max_order
                       : max_order_method;
    c->t = t0;
    c->t_prev = t0;
    c->h = 0.0;
    c->order = 1;
    c->order_next = 1;
    c->started = 0;
    c->n_steps_since_init = 0;
    /* The problem may have changed at a restart: no Jacobian is reused. */
    c->have_jac = 0;
    c->have_matrix = 0;
    c->jac_fresh = 0;
    c->gamma_matrix = 1.0;
    c->steps_since_matrix = 0;
    c->steps_since_jac = 0;
    c->conv_rate = 0.7;
    c->head.worst = -1;
    memset(c->z, 0, (size_t)c->n_cols * (size_t)n * sizeof(double));
    memcpy(c->z, y0, (size_t)n * sizeof(double));
    c->head.stats.h_last = 0.0;
    c->head.stats.order_last = 0;
    c->initialized = 1;
    return HYDAE_OK;
}

/* ------------------------------------------------------------------------
** History
*/

/* The same polynomial in the scaling of h_new: z_j *= (h_new/h)^j. */
static void rescale(hy_nsk *c, double h_new)
{
    int n = c->n, deg = c->order + c->deg_offset;
    double ratio = h_new / c->h;
    double factor = 1.0;
    for (int j = 1; j <= deg; j++) {
        factor *= ratio;
        double *col = hy_nsk_col(c, j);
        for (int i = 0; i < n; i++)
            col[i] *= factor;
    }
    c->h = h_new;
}

/* Components handled together in the loops below (independent lanes the
** compiler can map to vector registers). */
#define NSK_LANES 2

/* The kernels below are written for a constant degree: inlined into each
** case of HY_BY_SMALL_CONSTANT, degree 9 (HY_NSK_MAX_COLS - 1) the last;
** GCC and Clang would otherwise keep one copy for a variable degree. */
#if defined(__GNUC__)
#define NSK_KERNEL static inline __attribute__((always_inline))
#else
#define NSK_KERNEL static inline
#endif

/* The Pascal triangle ([BH75]) on one bank: zp_j = sum_{m >= j} C(m, j)
** z_m, as the passes k = 1 .. deg of z_{j-1} += z_j (j = deg .. k), per
** component in registers: the same sums, in the same order, as column by
** column, so the result is the same to the bit. deg is a constant in each
** call below, so that the compiler unrolls the passes and vectorises the
** lanes. */
NSK_KERNEL void pascal_fixed(size_t n, const double *restrict z,
                                double *restrict zp, int deg)
{
    size_t i = 0;
    for (; i + NSK_LANES <= n; i += NSK_LANES) {
        double v[HY_NSK_MAX_COLS][NSK_LANES];
        for (int j = 0; j <= deg; j++)
            for (int u = 0; u < NSK_LANES; u++)
                v[j][u] = z[(size_t)j * n + i + u];
        for (int k = 1; k <= deg; k++)
            for (int j = deg; j >= k; j--)
                for (int u = 0; u < NSK_LANES; u++)
                    v[j - 1][u] += v[j][u];
        for (int j = 0; j <= deg; j++)
            for (int u = 0; u < NSK_LANES; u++)
                zp[(size_t)j * n + i + u] = v[j][u];
    }
    for (; i < n; i++) {
        double v[HY_NSK_MAX_COLS];
        for (int j = 0; j <= deg; j++)
            v[j] = z[(size_t)j * n + i];
        for (int k = 1; k <= deg; k++)
            for (int j = deg; j >= k; j--)
                v[j - 1] += v[j];
        for (int j = 0; j <= deg; j++)
            zp[(size_t)j * n + i] = v[j];
    }
}

/* z <- z + corr l over the columns 0 .. deg, deg constant as above. */
NSK_KERNEL void correct_fixed(size_t n, double *restrict z,
                                 const double *restrict corr, const double *l,
                                 int deg)
{
    double l_copy[HY_NSK_MAX_COLS];
    for (int j = 0; j <= deg; j++)
        l_copy[j] = l[j];
    size_t i = 0;
    for (; i + NSK_LANES <= n; i += NSK_LANES)
        for (int j = 0; j <= deg; j++)
            for (int u = 0; u < NSK_LANES; u++)
                z[(size_t)j * n + i + u] += l_copy[j] * corr[i + u];
    for (; i < n; i++)
        for (int j = 0; j <= deg; j++)
            z[(size_t)j * n + i] += l_copy[j] * corr[i];
}

/* z <- A z: the history polynomial's Taylor coefficients at t_n + h,
** written into the other bank, which then becomes z (the old history
** stays in z_other for a rejection: nothing is copied). */
static void predict(hy_nsk *c)
{
    int deg = c->order + c->deg_offset;
    size_t n = (size_t)c->n;
    const double *z = c->z;
    double *zp = c->z_other;
#define NSK_PASCAL(d) pascal_fixed(n, z, zp, (d))
    HY_BY_SMALL_CONSTANT(deg, NSK_PASCAL, 9)
#undef NSK_PASCAL
    c->z_other = c->z;
    c->z = zp;
}

/* Back to the history before predict(). */
static void restore(hy_nsk *c)
{
    double *saved = c->z_other;
    c->z_other = c->z;
    c->z = saved;
}

/* z <- z + corr l over the columns 0 .. deg (one pass over corr; the
** same sums as column by column). */
static void apply_correction(hy_nsk *c)
{
    int deg = c->order + c->deg_offset;
    size_t n = (size_t)c->n;
#define NSK_CORRECT(d) correct_fixed(n, c->z, c->corr, c->l, (d))
    HY_BY_SMALL_CONSTANT(deg, NSK_CORRECT, 9)
#undef NSK_CORRECT
}

/* Order 1 from y_n and f(t_n, y_n): z_1 = h f, z_2 .. z_deg = 0. */
static int restart_order1(hy_nsk *c, double h)
{
    int n = c->n, deg = c->order + c->deg_offset;
    int status = hy_eval_rhs(&c->dae, &c->head, c->t, hy_nsk_col(c, 0), c->f);
    if (status != HY_EVAL_OK)
        return status;
    for (int j = 2; j <= deg; j++)
        memset(hy_nsk_col(c, j), 0, (size_t)n * sizeof(double));
    double *col1 = hy_nsk_col(c, 1);
    for (int i = 0; i < n; i++)
        col1[i] = h * c->f[i];
    c->order = 1;
    return HY_EVAL_OK;
}

/* The first step(): f(t0, y0), h0, z_1 = h0 f. */
static int start(hy_nsk *c, double t_stop)
{
    int n = c->n;
    int status = hy_eval_rhs(&c->dae, &c->head, c->t, hy_nsk_col(c, 0), c->f);
    if (status != HY_EVAL_OK)
        return HYDAE_ERR_RESIDUAL;
    double h0 = c->h_user;
    if (h0 == 0.0) {
        status = hy_ode_initial_step(&c->dae, &c->head, c->t, t_stop, c->h_max,
                                     hy_nsk_col(c, 0), c->f, c->atol, c->ewt,
                                     c->y, c->f_pert, c->delta, &h0);
        if (status != HY_EVAL_OK)
            return HYDAE_ERR_RESIDUAL;
        h0 = fmin(h0, c->h0_max);
    }
    if (h0 > c->h_max)
        h0 = c->h_max;
    if (h0 < c->h_min)
        h0 = c->h_min;
    c->h = h0;
    c->h_next = h0;
    double *col1 = hy_nsk_col(c, 1);
    for (int i = 0; i < n; i++)
        col1[i] = h0 * c->f[i];
    c->order = 1;
    c->order_next = 1;
    c->started = 1;
    return HYDAE_OK;
}

double hy_nsk_eta(double bias, double err, int p)
{
    return 1.0 / (pow(bias * err, 1.0 / p) + NSK_ETA_ADDON);
}

int hy_nsk_newton_matrix(hy_nsk *c, double t, double h, double gamma,
                         int force_jac)
{
    int need_matrix = !c->have_matrix || force_jac
        || fabs(gamma / c->gamma_matrix - 1.0) > NSK_GAMMA_CHANGE_MAX
        || c->steps_since_matrix >= NSK_STEPS_PER_MATRIX;
    if (!need_matrix)
        return HY_EVAL_OK;
    int need_jac = !c->have_jac || force_jac
        || c->steps_since_jac >= NSK_STEPS_PER_JAC;
    if (need_jac) {
        int status = hy_itmat_dfdy(&c->iter, &c->dae, &c->head, t, h, c->y,
                                   c->f, c->ewt, c->f_pert);
        if (status != HY_EVAL_OK) {
            c->have_jac = 0;
            c->have_matrix = 0;
            return status;
        }
        c->have_jac = 1;
        c->jac_fresh = 1;
        c->steps_since_jac = 0;
    }
    /* P = I - gamma J, factored. */
    c->gamma_matrix = gamma;
    c->steps_since_matrix = 0;
    c->conv_rate = 0.7;
    int status = hy_itmat_form(&c->iter, &c->head, gamma);
    c->have_matrix = status == HY_EVAL_OK;
    return status;
}

/* ------------------------------------------------------------------------
** Step
*/

/* After an accepted attempt of size h ending at t_try. */
static void accept(hy_nsk *c, void *mem, const hy_nsk_method *method,
                   double h, double t_try, double err)
{
    int n = c->n;
    apply_correction(c);
    method->accept(mem, h);
    c->t_prev = c->t;
    c->t = t_try;
    c->head.stats.n_steps++;
    c->n_steps_since_init++;
    c->steps_since_matrix++;
    c->steps_since_jac++;
    c->head.stats.h_last = h;
    c->head.stats.order_last = c->order;
    hy_set_weights(n, c->rtol, c->atol, hy_nsk_col(c, 0), 1, c->ewt);
    method->choose_next(mem, err);
    if (c->h_next < c->h_min)
        c->h_next = c->h_min;
}

/* After an error test failure with err at step h and the n_fails-th
** failure of this step: restores z, sets *h_try. HYDAE_OK to retry, or
** what step() returns. */
static int error_test_failed(hy_nsk *c, void *mem, const hy_nsk_method *method,
                             double h, double err, int n_fails, double *h_try)
{
    int n = c->n;
    restore(c);
    c->head.worst = hy_argmax_weighted(n, c->corr, c->ewt);
    c->head.stats.n_err_fails++;
    if (n_fails >= NSK_MAX_ERR_FAILS)
        return HYDAE_ERR_ERRTEST;
    double eta = hy_nsk_eta(NSK_BIAS_SAME, err, c->order + c->err_power_offset + 1);
    eta = fmax(NSK_ETA_MIN, fmin(eta, 0.9));
    if (n_fails >= 2)
        eta = fmin(eta, NSK_ETA_MAX_ERRFAIL);
    int restarted = 0;
    if (n_fails >= NSK_ERRFAILS_TO_ORDER1) {
        eta = NSK_ETA_MIN;
        if (c->order > 1) {
            if (restart_order1(c, h) != HY_EVAL_OK)
                return HYDAE_ERR_RESIDUAL;
            restarted = 1;
        }
    }
    method->on_reject(mem, restarted);
    *h_try = h * eta;
    if (*h_try < c->h_min && c->h_min > 0.0) {
        if (h <= c->h_min * (1.0 + 1e-12))
            return HYDAE_ERR_HMIN;
        *h_try = c->h_min;
    }
    if (c->t + *h_try == c->t || *h_try < hy_roundoff_floor(c->t))
        return HYDAE_ERR_HMIN;
    return HYDAE_OK;
}

/* After a corrector failure with status at step h, the n_fails-th of this
** step: restores z, sets *h_try. HYDAE_OK to retry, or what step()
** returns. */
static int corrector_failed(hy_nsk *c, void *mem, const hy_nsk_method *method,
                            double h, int status, int n_fails, double *h_try)
{
    restore(c);
    if (status == HY_EVAL_RES_FATAL || status == HY_EVAL_JAC_FATAL
        || status == HY_EVAL_NOMEM)
        return hy_eval_error(status, 0);
    c->head.stats.n_conv_fails++;
    if (status == HY_EVAL_SINGULAR) {
        c->have_matrix = 0;
        c->head.worst = -1; /* no column known: name none (sim.c) */
    }
    method->on_reject(mem, 0);
    *h_try = h * NSK_ETA_CONVFAIL;
    int too_small = (c->h_min > 0.0 && *h_try < c->h_min
                     && h <= c->h_min * (1.0 + 1e-12))
                  || c->t + *h_try == c->t
                  || *h_try < hy_roundoff_floor(c->t);
    if (*h_try < c->h_min)
        *h_try = c->h_min;
    if (n_fails >= NSK_MAX_CONV_FAILS || too_small)
        return hy_eval_error(status, too_small);
    return HYDAE_OK;
}

int hy_nsk_step(void *mem, const hy_nsk_method *method, double t_stop,
                double *t_new)
{
    hy_nsk *c = mem;
    if (c == NULL || t_new == NULL || !c->initialized)
        return HYDAE_ERR_ARG;
    *t_new = c->t;
    if (!(t_stop >= c->t) || !isfinite(t_stop))
        return HYDAE_ERR_ARG;
    if (t_stop - c->t <= hy_roundoff_floor(t_stop)) {
        c->t = t_stop;
        *t_new = t_stop;
        return HY_TSTOP;
    }
    if (!c->started) {
        int status = start(c, t_stop);
        if (status != HYDAE_OK)
            return status;
    }
    /* Decisions of the last step: order first (at the old scaling). */
    if (c->order_next != c->order)
        method->change_order(mem, c->order_next);

    int n_err_fails = 0, n_conv_fails = 0;
    double h_try = c->h_next;
    for (;;) {
        if (h_try > c->h_max)
            h_try = c->h_max;
        double dist = t_stop - c->t;
        double margin = fmax(100.0 * DBL_EPSILON * fabs(t_stop),
                             1e-3 * h_try);
        int lands = h_try >= dist - margin;
        if (lands)
            h_try = dist;
        if (h_try != c->h) {
            rescale(c, h_try);
            if (method->on_new_h)
                method->on_new_h(mem);
        }
        double h = c->h;
        double t_try = lands ? t_stop : c->t + h;
        predict(c);
        c->jac_fresh = 0;
        double err = 0.0;
        int status = method->attempt(mem, t_try, h, &err);
        if (status == HY_EVAL_OK && err <= 1.0) {
            accept(c, mem, method, h, t_try, err);
            *t_new = c->t;
            return lands ? HY_TSTOP : HYDAE_OK;
        }
        if (status == HY_EVAL_OK)
            status = error_test_failed(c, mem, method, h, err, ++n_err_fails,
                                       &h_try);
        else
            status = corrector_failed(c, mem, method, h, status,
                                      ++n_conv_fails, &h_try);
        if (status != HYDAE_OK)
            return status;
    }
}

int hy_nsk_dense(hy_nsk *c, double t, double *y, double *yp)
{
    if (c == NULL || !c->initialized || !hy_dense_covers(t, c->t_prev, c->t))
        return HYDAE_ERR_ARG;
    int n = c->n;
    if (!c->started) {
        if (y)
            memcpy(y, hy_nsk_col(c, 0), (size_t)n * sizeof(double));
        if (yp && hy_eval_rhs(&c->dae, &c->head, c->t, hy_nsk_col(c, 0), yp)
                      != HY_EVAL_OK)
            return HYDAE_ERR_RESIDUAL;
        return HYDAE_OK;
    }
    const double *z0 = hy_nsk_col(c, 0), *z1 = hy_nsk_col(c, 1);
    if (t == c->t) {
        /* x = 0: the sums below reduce to z_0 and z_1/h. The simulator
        ** asks for this after every step. */
        if (y)
            memcpy(y, z0, (size_t)n * sizeof(double));
        if (yp)
            for (int i = 0; i < n; i++)
                yp[i] = z1[i] / c->h;
        return HYDAE_OK;
    }
    int deg = c->order + c->deg_offset;
    double x = (t - c->t) / c->h;
    /* Horner in x. */
    for (int i = 0; i < n; i++) {
        double value = 0.0, slope = 0.0;
        for (int j = deg; j >= 0; j--) {
            double zj = hy_nsk_col(c, j)[i];
            if (j >= 1)
                slope = slope * x + j * zj;
            value = value * x + zj;
        }
        if (y)
            y[i] = value;
        if (yp)
            yp[i] = slope / c->h;
    }
    return HYDAE_OK;
}

/* ------------------------------------------------------------------------
** Explicit methods
*/

int hy_alloc_vectors(int n, double **const *slots, size_t count)
{
    int ok = n > 0;
    for (size_t v = 0; v < count; v++) {
        *slots[v] = ok ? hy_calloc((size_t)n, sizeof(double)) : NULL;
        ok = ok && *slots[v] != NULL;
    }
    return ok ? 0 : -1;
}

void hy_free_vectors(double **const *slots, size_t count)
{
    for (size_t v = 0; v < count; v++) {
        hy_free(*slots[v]);
        *slots[v] = NULL;
    }
}

int hy_explicit_alloc(hy_explicit *e, int n)
{
    e->n = n;
    e->head.worst = -1;
    double **const slots[] = { &e->y, &e->yp_init };
    return hy_alloc_vectors(n, slots, 2);
}

void hy_explicit_free(hy_explicit *e)
{
    double **const slots[] = { &e->y, &e->yp_init };
    hy_free_vectors(slots, 2);
}

int hy_explicit_init(hy_explicit *e, const hy_dae *dae, double t0,
                     const double *y0, const double *yp0)
{
    int n = e->n;
    if (dae->n != n || dae->rhs == NULL || !isfinite(t0)
        || !hy_all_finite(n, y0) || !hy_all_finite(n, yp0))
        return HYDAE_ERR_ARG;
    e->dae = *dae;
    e->t = t0;
    e->t_prev = t0;
    e->have_f = 0;
    e->n_steps_since_init = 0;
    e->last_step_trivial = 0;
    e->head.worst = -1;
    memcpy(e->y, y0, (size_t)n * sizeof(double));
    if (yp0 != NULL)
        memcpy(e->yp_init, yp0, (size_t)n * sizeof(double));
    else
        memset(e->yp_init, 0, (size_t)n * sizeof(double));
    e->head.stats.h_last = 0.0;
    e->head.stats.order_last = 0;
    e->initialized = 1;
    return HYDAE_OK;
}

int hy_explicit_begin(hy_explicit *e, double t_stop, double *t_new,
                      double *f_cur)
{
    if (e == NULL || t_new == NULL || !e->initialized)
        return HYDAE_ERR_ARG;
    *t_new = e->t;
    if (!(t_stop >= e->t) || !isfinite(t_stop))
        return HYDAE_ERR_ARG;
    if (!e->have_f) {
        if (hy_eval_rhs(&e->dae, &e->head, e->t, e->y, f_cur) != HY_EVAL_OK)
            return HYDAE_ERR_RESIDUAL;
        e->have_f = 1;
    }
    return HYDAE_OK;
}

int hy_explicit_at_stop(const hy_explicit *e, double t_stop)
{
    return t_stop - e->t <= hy_roundoff_floor(t_stop);
}

int hy_explicit_plan(const hy_explicit *e, double h, double h_min,
                     double h_max, double t_stop, hy_explicit_try *out)
{
    double t = e->t;
    out->h = fmin(h, h_max);
    double dist = t_stop - t;
    out->lands = dist <= out->h || (dist <= 1.01 * out->h && dist <= h_max);
    out->h_nominal = out->lands ? dist : out->h;
    out->t_try = out->lands ? t_stop : t + out->h;
    if (!out->lands && out->t_try - t > h_max)
        out->t_try = nextafter(out->t_try, t);
    out->h_step = out->t_try - t;
    out->h_floor = fmax(h_min, hy_roundoff_floor(t));
    if (!out->lands && (out->h_step < out->h_floor || out->t_try == t))
        return HYDAE_ERR_HMIN;
    return HYDAE_OK;
}

void hy_explicit_arrive(hy_explicit *e, double t_stop, const double *f_cur)
{
    double dt = t_stop - e->t;
    for (int i = 0; i < e->n; i++)
        e->y[i] += dt * f_cur[i];
    hy_explicit_advance(e, t_stop, dt, 0, 1);
}

void hy_explicit_advance(hy_explicit *e, double t_new, double h, int order,
                         int trivial)
{
    e->t_prev = e->t;
    e->t = t_new;
    e->last_step_trivial = trivial;
    if (trivial)
        return;
    e->n_steps_since_init++;
    e->head.stats.n_steps++;
    e->head.stats.h_last = h;
    e->head.stats.order_last = order;
}

int hy_explicit_dense_point(const hy_explicit *e, double t,
                            const double *f_cur, double *y, double *yp)
{
    if (e == NULL || !e->initialized || !hy_dense_covers(t, e->t_prev, e->t))
        return HYDAE_ERR_ARG;
    if (!(e->n_steps_since_init == 0 || e->last_step_trivial || t == e->t))
        return 0;
    size_t bytes = (size_t)e->n * sizeof(double);
    if (y)
        memcpy(y, e->y, bytes);
    if (yp)
        memcpy(yp, e->have_f ? f_cur : e->yp_init, bytes);
    return 1;
}

/* Weighted RMS norm with sc_i = atol_i + rtol_i |y_i| ([HNW] (4.11) with
** (4.10) for a single point). Not hy_wrms_norm with hy_set_weights: it
** divides by sc_i where those multiply by 1/sc_i (a different last bit),
** and a zero v_i counts 0 even where sc_i = 0. */
static double explicit_norm(int n, const double *rtol, const double *atol,
                            const double *v, const double *y)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        double scale = atol[i] + rtol[i] * fabs(y[i]);
        double ratio = v[i] == 0.0 ? 0.0 : v[i] / scale;
        sum += ratio * ratio;
    }
    return sqrt(sum / n);
}

int hy_explicit_initial_step(hy_explicit *e, const double *rtol,
                             const double *atol, const double *f0,
                             double err_exponent, double t_stop, double h_max,
                             double *y_work, double *f_work, double *h_out)
{
    int n = e->n;
    double d0 = explicit_norm(n, rtol, atol, e->y, e->y);
    double d1 = explicit_norm(n, rtol, atol, f0, e->y);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    h0 = fmin(h0, t_stop - e->t);
    h0 = fmin(h0, h_max);
    for (int i = 0; i < n; i++)
        y_work[i] = e->y[i] + h0 * f0[i];
    int status = hy_eval_rhs(&e->dae, &e->head, e->t + h0, y_work, f_work);
    if (status == HY_EVAL_RES_FATAL)
        return HY_EVAL_RES_FATAL;
    if (status == HY_EVAL_RES_FAIL) {
        *h_out = h0;
        return HY_EVAL_OK;
    }
    for (int i = 0; i < n; i++)
        f_work[i] -= f0[i];
    double d2 = explicit_norm(n, rtol, atol, f_work, e->y) / h0;
    double d_max = fmax(d1, d2);
    double h1 = d_max <= 1e-15 ? fmax(1e-6, 1e-3 * h0)
                               : pow(0.01 / d_max, err_exponent);
    *h_out = fmin(100.0 * h0, h1);
    return HY_EVAL_OK;
}

void hy_explicit_stiffness_test(hy_explicit *e, hy_stiffness_test *st,
                                double h, double bound, const double *f_a,
                                const double *f_b, const double *y_a,
                                const double *y_b)
{
    if ((e->n_steps_since_init + 1) % HY_STIFF_TEST_PERIOD != 0
        && st->n_positive == 0)
        return;
    double num = 0.0, den = 0.0;
    for (int i = 0; i < e->n; i++) {
        double df = f_a[i] - f_b[i], dy = y_a[i] - y_b[i];
        num += df * df;
        den += dy * dy;
    }
    if (!(den > 0.0))
        return;
    if (h * sqrt(num / den) > bound) {
        st->n_negative = 0;
        if (++st->n_positive == HY_STIFF_POSITIVE) {
            if (e->head.stats.n_stiff_detections++ == 0)
                e->head.stats.t_first_stiff = e->t + h;
            st->n_positive = 0;
        }
    } else if (st->n_positive > 0 && ++st->n_negative == HY_STIFF_NEGATIVE) {
        st->n_positive = 0;
        st->n_negative = 0;
    }
}

/* ------------------------------------------------------------------------
** Embedded Runge-Kutta pairs
*/

#define ERK_ERR_OLD_MIN 1e-4        /* DOPRI5, DOP853: floor of err_old */
#define ERK_RHS_FAIL_FACTOR 0.25    /* h after a failure of f */
#define ERK_MAX_RHS_FAILS 10        /* consecutive, per step */
#define ERK_MAX_ERR_FAILS 100       /* consecutive, per step */

#define ERK_VECTORS(r)                                                       \
    { &(r)->rtol, &(r)->atol, &(r)->y_prev, &(r)->y_new, &(r)->y_stage }
#define ERK_N_VECTORS 5

static void erk_bank_slots(hy_erk_bank *bank, int n_stages,
                           double **slots[HY_ERK_MAX_STAGES])
{
    for (int s = 0; s < n_stages; s++)
        slots[s] = &bank->k[s];
}

/* The working bank's k[0] is the current bank's FSAL stage (the same
** vector, never written by an attempt): 2 n_stages - 1 stage vectors. */
int hy_erk_alloc(hy_erk *r, int n, int n_stages, int fsal)
{
    double **const slots[ERK_N_VECTORS] = ERK_VECTORS(r);
    r->n_stages = n_stages;
    r->fsal = fsal;
    r->cur = 0;
    int ok = hy_explicit_alloc(&r->e, n) == 0
             && hy_alloc_vectors(n, slots, ERK_N_VECTORS) == 0;
    for (int b = 0; ok && b < 2; b++) {
        double **bank[HY_ERK_MAX_STAGES];
        erk_bank_slots(&r->banks[b], n_stages, bank);
        ok = hy_alloc_vectors(n, (double **const *)bank + b, (size_t)(n_stages - b)) == 0;
    }
    if (ok)
        r->banks[1].k[0] = r->banks[0].k[fsal];
    return ok ? 0 : -1;
}

void hy_erk_free(hy_erk *r)
{
    double **const slots[ERK_N_VECTORS] = ERK_VECTORS(r);
    hy_free_vectors(slots, ERK_N_VECTORS);
    for (int b = 0; b < 2; b++) {
        /* The working bank's k[0] is not its own. */
        int own = b == r->cur ? 0 : 1;
        double **bank[HY_ERK_MAX_STAGES];
        erk_bank_slots(&r->banks[b], r->n_stages, bank);
        hy_free_vectors((double **const *)bank + own, (size_t)(r->n_stages - own));
    }
    hy_explicit_free(&r->e);
}

/* f(t, y) of the current solution (valid once e.have_f). */
static double *erk_f_current(hy_erk *r)
{
    return r->banks[r->cur].k[r->fsal];
}

int hy_erk_init(hy_erk *r, const hy_dae *dae, double t0, const double *y0,
                const double *yp0, const hy_options *opt)
{
    if (dae == NULL || opt == NULL || y0 == NULL)
        return HYDAE_ERR_ARG;
    r->e.initialized = 0;
    if (dae->n != r->e.n
        || hy_step_bounds(opt, &r->h_min, &r->h_max) != 0
        || hy_copy_tolerances(r->e.n, opt, 0, r->rtol, r->atol) != 0)
        return HYDAE_ERR_ARG;
    int status = hy_explicit_init(&r->e, dae, t0, y0, yp0);
    if (status != HYDAE_OK)
        return status;
    r->h_user = opt->h0;
    r->h0_max = opt->h0_max > 0.0 ? opt->h0_max : INFINITY;
    r->h = 0.0;
    r->log_err_old = log(ERK_ERR_OLD_MIN);
    r->stiff = (hy_stiffness_test){ 0, 0 };
    memcpy(r->y_prev, y0, (size_t)r->e.n * sizeof(double));
    return HYDAE_OK;
}

/* The first step size: opt->h0, or [HNW]'s starting step. */
static int erk_first_step(hy_erk *r, const hy_erk_method *m, double t_stop)
{
    double h = r->h_user;
    if (h == 0.0) {
        int status = hy_explicit_initial_step(
            &r->e, r->rtol, r->atol, erk_f_current(r), m->err_exponent,
            t_stop, r->h_max, r->y_stage, r->banks[1 - r->cur].k[1], &h);
        if (status == HY_EVAL_RES_FATAL)
            return HYDAE_ERR_RESIDUAL;
        h = fmin(h, r->h0_max);
    }
    r->h = fmax(fmax(h, r->h_min), hy_roundoff_floor(r->e.t));
    return HYDAE_OK;
}

/* The working bank becomes the current one. The old current bank becomes
** the working bank: its k[0] the new FSAL stage, its other stages the
** vectors the new current bank does not use (all of the old bank's but
** its FSAL stage, which is the new current bank's k[0]: stages 0 ..
** fsal - 1 move up by one), so that f(t, y) is never copied. */
static void erk_swap_banks(hy_erk *r)
{
    hy_erk_bank *old = &r->banks[r->cur];
    memmove(&old->k[1], &old->k[0], (size_t)r->fsal * sizeof old->k[0]);
    old->k[0] = r->banks[1 - r->cur].k[r->fsal];
    r->cur = 1 - r->cur;
}

/* The accepted attempt of plan with error err becomes the solution. */
static void erk_accept(hy_erk *r, void *mem, const hy_erk_method *m,
                       const hy_explicit_try *plan, double err, int rejected)
{
    /* err^-alpha err_old^beta as one exp of logs (log(err) kept for the
    ** next step): two of the three calls of two pow(). */
    double log_err = log(err);
    double fac = m->safety * exp(m->pi_beta * r->log_err_old - m->pi_alpha * log_err);
    fac = fmin(rejected ? 1.0 : m->fac_max, fmax(m->fac_min, fac));
    double h_next = plan->h_step * fac;
    /* A step shortened to land on t_stop says little about the step size
    ** the solution allows: keep the one planned. */
    if (plan->lands && plan->h_step < plan->h && fac >= 1.0)
        h_next = fmax(h_next, plan->h);
    r->h = fmax(h_next, r->h_min);
    r->log_err_old = err > ERK_ERR_OLD_MIN ? log_err : log(ERK_ERR_OLD_MIN);
    m->accept(mem, plan->h_step);
    erk_swap_banks(r);
    double *old_prev = r->y_prev;
    r->y_prev = r->e.y;
    r->e.y = r->y_new;
    r->y_new = old_prev;
    hy_explicit_advance(&r->e, plan->t_try, plan->h_step, m->order, 0);
}

int hy_erk_step(void *mem, const hy_erk_method *m, double t_stop,
                double *t_new)
{
    hy_erk *r = mem;
    int status = hy_explicit_begin(r ? &r->e : NULL, t_stop, t_new,
                                   r ? erk_f_current(r) : NULL);
    if (status != HYDAE_OK)
        return status;
    if (hy_explicit_at_stop(&r->e, t_stop)) {
        /* t_stop equals t up to roundoff: arrive without a step (a step
        ** of a few ulps carries no information). The solution moves by
        ** (t_stop - t) f, which is below roundoff. */
        memcpy(r->y_prev, r->e.y, (size_t)r->e.n * sizeof(double));
        hy_explicit_arrive(&r->e, t_stop, erk_f_current(r));
        *t_new = t_stop;
        return HY_TSTOP;
    }
    if (r->h == 0.0 && (status = erk_first_step(r, m, t_stop)) != HYDAE_OK)
        return status;
    int n_err_fails = 0, n_rhs_fails = 0, rejected = 0;
    for (;;) {
        hy_explicit_try plan;
        if (hy_explicit_plan(&r->e, r->h, r->h_min, r->h_max, t_stop, &plan)
            != HYDAE_OK)
            return HYDAE_ERR_HMIN;
        double err = 0.0;
        status = m->attempt(mem, plan.h_step, plan.t_try, &err);
        if (status == HY_EVAL_RES_FATAL)
            return HYDAE_ERR_RESIDUAL;
        if (status != HY_EVAL_OK || !(err <= 1.0))
            r->e.head.stats.n_err_fails++;
        if (status == HY_EVAL_RES_FAIL) {
            rejected = 1;
            r->h = ERK_RHS_FAIL_FACTOR * plan.h_step;
            if (++n_rhs_fails >= ERK_MAX_RHS_FAILS || r->h < plan.h_floor
                || r->e.t + r->h == r->e.t)
                return HYDAE_ERR_RESIDUAL;
            continue;
        }
        if (err <= 1.0) {
            erk_accept(r, mem, m, &plan, err, rejected);
            *t_new = plan.t_try;
            return plan.lands ? HY_TSTOP : HYDAE_OK;
        }
        /* Error test failure (err > 1 or NaN). */
        rejected = 1;
        double fac = fmin(1.0, fmax(m->fac_min, m->safety * pow(err, -m->pi_alpha)));
        r->h = plan.h_step * (isnan(err) ? ERK_RHS_FAIL_FACTOR : fac);
        if (r->h < plan.h_floor || r->e.t + r->h == r->e.t)
            return HYDAE_ERR_HMIN;
        if (++n_err_fails >= ERK_MAX_ERR_FAILS)
            return HYDAE_ERR_ERRTEST;
    }
}
