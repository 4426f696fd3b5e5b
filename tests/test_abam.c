/*
** Unit tests of ABAM (Adams-Bashforth-Moulton PECE of Shampine & Gordon,
** src/integrators/abam.c) through its descriptor: accuracy against closed
** forms at tolerances 1e-4 .. 1e-10 (also of the interpolated output), the
** order of the formulas at constant step for orders 1, 2 and 4, max_order,
** landing exactly on t_stop, h_max and h_min, the refusal of a DAE without
** rhs, restarts, failures of f, the statistics and worst_component().
*/
#include "check.h"
#include "validation/nonstiff_problems.h"

#include <float.h>
#include <stdio.h>

extern const hy_integrator_ops hy_abam;

typedef struct closed_form {
    const char *name;
    int n;
    hy_rhs_fn rhs;
    void (*exact)(double t, double *y);
    double t_end;
} closed_form;

static const closed_form problems[] = {
    { "dahlquist y'=-y on [0,10]", 1, ns_dahlquist, ns_dahlquist_exact, 10.0 },
    { "oscillator over one period", 2, ns_oscillator, ns_oscillator_exact,
      2.0 * NS_PI },
    { "y'=-y^2 on [0,10]", 1, ns_riccati, ns_riccati_exact, 10.0 },
};
#define N_PROBLEMS (int)(sizeof problems / sizeof problems[0])

/* Global error against the closed form, in units of the tolerance
** (rtol = atol = tol). Like [SG]'s code, ABAM controls the local error
** per step, not per unit step, and the global error is the sum of the
** local errors of all steps, propagated: with few long steps at order
** 7-10 it reaches several times tol, and it varies irregularly with tol
** (the order selection). Measured largest ratios at the tolerances
** tested: 7.6 (oscillator at 1e-5, interpolated output), 6.3 (same, end
** point), 2.2 (y'=-y at 1e-4); over tolerances 0.7..1.4 times each
** decade: 11 (oscillator at 1.4e-5). Asserted: 15. */
#define ABAM_GLOBAL_FACTOR 15.0

static void test_accuracy_against_closed_forms(void)
{
    for (int p = 0; p < N_PROBLEMS; p++) {
        const closed_form *pr = &problems[p];
        double err_max_by_tol[7];
        for (int e = 4; e <= 10; e++) {
            double tol = pow(10.0, -e);
            ns_ctx ctx;
            ns_ctx_init(&ctx);
            double y0[NS_MAX_N], y_end[NS_MAX_N];
            pr->exact(0.0, y0);
            pr->exact(pr->t_end, y_end);
            hy_options opt = ns_options(tol, tol);
            ns_dense_check dense = { pr->n, pr->exact, pr->rhs, 9, 0, 0, 0, 0 };
            ns_run run = ns_integrate(&hy_abam, pr->n, pr->rhs, &ctx, 0.0, y0,
                                      pr->t_end, &opt, 100000, ns_check_dense,
                                      &dense);
            CHECK(run.status == HY_TSTOP && run.t_reached == pr->t_end,
                  "%s tol %g: status %d, t %.17g", pr->name, tol, run.status,
                  run.t_reached);
            double err_end = 0.0;
            for (int i = 0; i < pr->n; i++)
                err_end = fmax(err_end, fabs(run.y[i] - y_end[i]));
            CHECK(err_end <= ABAM_GLOBAL_FACTOR * tol,
                  "%s tol %g: error at t_end %.3g > %g tol", pr->name, tol,
                  err_end, ABAM_GLOBAL_FACTOR);
            CHECK(dense.max_err_ends <= ABAM_GLOBAL_FACTOR * tol,
                  "%s tol %g: error at step points %.3g > %g tol", pr->name,
                  tol, dense.max_err_ends, ABAM_GLOBAL_FACTOR);
            CHECK(dense.max_err_y <= ABAM_GLOBAL_FACTOR * tol,
                  "%s tol %g: dense output error %.3g > %g tol", pr->name,
                  tol, dense.max_err_y, ABAM_GLOBAL_FACTOR);
            CHECK(dense.n_dense_fail == 0, "%s: dense() refused a point",
                  pr->name);
            err_max_by_tol[e - 4] = dense.max_err_ends;
            printf("ABAM %-28s tol %.0e steps %4ld rejected %3ld f %5ld "
                   "err(t_end) %.2e max err %.2e dense err %.2e\n",
                   pr->name, tol, run.stats.n_steps, run.stats.n_err_fails,
                   run.stats.n_res_evals, err_end, dense.max_err_ends,
                   dense.max_err_y);
        }
        /* The error shrinks with the tolerance: at least 10x over two
        ** decades (a 5th-order method gives about 100x). */
        for (int e = 0; e + 2 < 7; e++)
            CHECK(err_max_by_tol[e + 2] < 0.1 * err_max_by_tol[e],
                  "%s: error %.3g at tol 1e-%d not 10x below %.3g at 1e-%d",
                  pr->name, err_max_by_tol[e + 2], e + 6, err_max_by_tol[e],
                  e + 4);
    }
}

/* Steps of h = h_max at a fixed order K = max_order, with a loose
** tolerance so that no step is rejected and h never drops: the PECE pair
** has predictor order K and corrector order K + 1 (local extrapolation),
** so the global error is O(h^(K+1)). The start (orders 1..K) is made
** with h0 = h/1024, doubled every step up to h_max (the initial phase,
** which also exercises the variable-step coefficients), so that the
** low-order starting steps do not dominate the error. Error at t = 5 on
** y' = -y + sin t for h and h/2: ratio about 2^(K+1). */
static double constant_step_error(int max_order, double h)
{
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    double y0 = 1.0;
    hy_options opt = ns_options(1.0, 1.0);
    opt.h0 = ldexp(h, -10);
    opt.h_max = h;
    opt.max_order = max_order;
    ns_run run = ns_integrate(&hy_abam, 1, ns_forced, &ctx, 0.0, &y0, 5.0, &opt,
                              100000, NULL, NULL);
    double y_exact;
    ns_forced_exact(5.0, &y_exact);
    if (run.status != HY_TSTOP || run.stats.n_err_fails != 0
        || run.stats.order_last != max_order)
        return NAN;
    return fabs(run.y[0] - y_exact);
}

static void test_order_of_the_formulas(void)
{
    const int orders[] = { 1, 2, 4 };
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
        int order = orders[o];
        double err_h = constant_step_error(order, 0.05);
        double err_h2 = constant_step_error(order, 0.025);
        double ratio = err_h / err_h2, expected = pow(2.0, order + 1);
        printf("ABAM order %d, constant steps: error %.3g (h=0.05), %.3g "
               "(h=0.025), ratio %.2f (expected about %.0f)\n",
               order, err_h, err_h2, ratio, expected);
        CHECK(ratio > 0.75 * expected && ratio < 1.3 * expected,
              "order %d: error ratio %.3f for h halved, expected about %.0f",
              order, ratio, expected);
    }
}

static void max_order_seen(void *user, const hy_integrator_ops *ops, void *mem,
                           double t_old, double t_new)
{
    (void)t_old;
    (void)t_new;
    int *order_max = user;
    hy_stats st;
    ops->get_stats(mem, &st);
    if (st.order_last > *order_max)
        *order_max = st.order_last;
}

/* max_order caps the order (0 and anything above 12 mean 12); on a smooth
** problem at a tight tolerance the order selection goes high. */
static void test_max_order(void)
{
    const int asked[] = { 1, 4, 0, 20 };
    const int cap[] = { 1, 4, 12, 12 };
    for (size_t a = 0; a < sizeof asked / sizeof asked[0]; a++) {
        ns_ctx ctx;
        ns_ctx_init(&ctx);
        double y0[2] = { 1.0, 0.0 };
        hy_options opt = ns_options(1e-8, 1e-8);
        opt.max_order = asked[a];
        int order_max = 0;
        ns_run run = ns_integrate(&hy_abam, 2, ns_oscillator, &ctx, 0.0, y0,
                                  4.0 * NS_PI, &opt, 1000000, max_order_seen,
                                  &order_max);
        CHECK(run.status == HY_TSTOP, "max_order %d: status %d", asked[a],
              run.status);
        CHECK(order_max <= cap[a], "max_order %d: order %d used", asked[a],
              order_max);
        if (cap[a] == 12)
            CHECK(order_max >= 8, "tol 1e-8 on the oscillator should use "
                  "order 8 or more, used at most %d", order_max);
        else
            CHECK(order_max == cap[a], "max_order %d: highest order used %d",
                  asked[a], order_max);
    }
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    void *mem = hy_abam.create(1);
    hy_dae dae = { .n = 1, .rhs = ns_dahlquist, .ctx = &ctx };
    double y0 = 1.0, yp0 = -1.0;
    hy_options opt = ns_options(1e-6, 1e-6);
    opt.max_order = -1;
    CHECK(hy_abam.init(mem, &dae, 0.0, &y0, &yp0, &opt) == HY_ERR_ARG,
          "a negative max_order must be refused");
    hy_abam.destroy(mem);
}

/* Repeated step() towards successive stops: every stop is reached with
** HY_TSTOP and t_new == t_stop exactly, no step passes it, and dense()
** at the stop gives the step's end value. */
static void test_lands_on_t_stop(void)
{
    void *mem = hy_abam.create(2);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    double y0[2] = { 1.0, 0.0 }, yp0[2] = { 0.0, -1.0 };
    hy_options opt = ns_options(1e-8, 1e-8);
    CHECK(hy_abam.init(mem, &dae, 0.0, y0, yp0, &opt) == HY_OK, "init");
    const double stops[] = { 1e-3, 1.0 / 3.0, 0.7, 0.7 + 1e-15, 2.0 / 3.0 * NS_PI,
                             2.0 * NS_PI, 2.0 * NS_PI };
    double t = 0.0;
    for (size_t s = 0; s < sizeof stops / sizeof stops[0]; s++) {
        double t_stop = fmax(stops[s], t);
        int code = HY_OK, n_calls = 0;
        while (code == HY_OK && n_calls < 10000) {
            double t_new = t;
            code = hy_abam.step(mem, t_stop, &t_new);
            CHECK(t_new <= t_stop, "step went past t_stop %.17g to %.17g",
                  t_stop, t_new);
            t = t_new;
            n_calls++;
        }
        CHECK(code == HY_TSTOP && t == t_stop,
              "stop %.17g: code %d, t %.17g", t_stop, code, t);
        double y[2], y_exact[2];
        hy_abam.dense(mem, t_stop, y, NULL);
        ns_oscillator_exact(t_stop, y_exact);
        CHECK_NEAR(y[0], y_exact[0], 1e-7, "y1 at the stop");
    }
    double y[2];
    CHECK(hy_abam.dense(mem, t + 1.0, y, NULL) == HY_ERR_ARG,
          "dense() outside the last step must be refused");
    double t_new;
    CHECK(hy_abam.step(mem, t - 1.0, &t_new) == HY_ERR_ARG,
          "a t_stop behind t must be refused");
    hy_abam.destroy(mem);
}

/* y' = 1, y(0) = 0 with 100-odd steps: y must stay equal to t up to an
** ulp or two at every stop (the increments are formed relative to k_1,
** so no rounding drift accumulates); the simulator relies on y reaching
** a guard's level at the very time event where t does. */
static int unit_rate(double t, const double *y, double *ydot, void *ctx)
{
    (void)y;
    ydot[0] = 1.0;
    return ns_inject(ctx, t, ydot);
}

static void test_constant_rate_has_no_drift(void)
{
    void *mem = hy_abam.create(1);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    hy_dae dae = { .n = 1, .rhs = unit_rate, .ctx = &ctx };
    double y = 0.0, yp = 1.0, t = 0.0;
    hy_options opt = ns_options(1e-8, 1e-8);
    opt.h_max = 0.01;
    CHECK(hy_abam.init(mem, &dae, 0.0, &y, &yp, &opt) == HY_OK, "init");
    const double stops[] = { 1.0 / 3.0, 1.0, 2.5 };
    for (size_t s = 0; s < sizeof stops / sizeof stops[0]; s++) {
        int code = HY_OK;
        while (code == HY_OK)
            code = hy_abam.step(mem, stops[s], &t);
        hy_abam.dense(mem, t, &y, NULL);
        CHECK(code == HY_TSTOP && fabs(y - stops[s]) <= 4.0 * DBL_EPSILON * stops[s],
              "y' = 1: y = %.17g at t = %.17g (code %d)", y, stops[s], code);
    }
    hy_abam.destroy(mem);
}

static void largest_step(void *user, const hy_integrator_ops *ops, void *mem,
                         double t_old, double t_new)
{
    double *h_largest = user;
    hy_stats st;
    ops->get_stats(mem, &st);
    *h_largest = fmax(*h_largest, fmax(t_new - t_old, st.h_last));
}

static void test_step_limits(void)
{
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    double y0[2] = { 1.0, 0.0 };
    hy_options opt = ns_options(1e-3, 1e-3);
    opt.h_max = 0.05;
    double h_largest = 0.0;
    ns_run run = ns_integrate(&hy_abam, 2, ns_oscillator, &ctx, 0.0, y0, 2.0 * NS_PI,
                              &opt, 100000, largest_step, &h_largest);
    CHECK(run.status == HY_TSTOP, "h_max run: status %d", run.status);
    CHECK(h_largest <= 0.05, "h_max 0.05 exceeded: %.17g", h_largest);
    CHECK(run.stats.n_steps >= (long)ceil(2.0 * NS_PI / 0.05),
          "%ld steps cannot cover 2 pi with h <= 0.05", run.stats.n_steps);

    /* h_min = 0.5 with a tolerance that needs smaller steps: fails. */
    ns_ctx_init(&ctx);
    opt = ns_options(1e-12, 1e-12);
    opt.h_min = 0.5;
    run = ns_integrate(&hy_abam, 2, ns_oscillator, &ctx, 0.0, y0, 2.0 * NS_PI, &opt,
                       100000, NULL, NULL);
    CHECK(run.status == HY_ERR_HMIN, "h_min 0.5 at tol 1e-12: status %d",
          run.status);

    /* A given h0 is used for the first step. */
    ns_ctx_init(&ctx);
    opt = ns_options(1e-6, 1e-6);
    opt.h0 = 1e-3;
    void *mem = hy_abam.create(2);
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    double yp0[2] = { 0.0, -1.0 }, t_new;
    hy_abam.init(mem, &dae, 0.0, y0, yp0, &opt);
    CHECK(hy_abam.step(mem, 1.0, &t_new) == HY_OK && t_new == 1e-3,
          "first step with h0 = 1e-3 ended at %.17g", t_new);
    hy_abam.destroy(mem);
}

static void test_init_refusals(void)
{
    void *mem = hy_abam.create(2);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    double y0[2] = { 1.0, 0.0 }, yp0[2] = { 0.0, -1.0 };
    hy_options opt = ns_options(1e-6, 1e-6);
    hy_dae no_rhs = { .n = 2, .ctx = &ctx };
    CHECK(hy_abam.init(mem, &no_rhs, 0.0, y0, yp0, &opt) == HY_ERR_ARG,
          "a DAE without rhs must be refused");
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    hy_dae wrong_n = dae;
    wrong_n.n = 3;
    CHECK(hy_abam.init(mem, &wrong_n, 0.0, y0, yp0, &opt) == HY_ERR_ARG,
          "a DAE of another size must be refused");
    hy_options bad = ns_options(-1e-6, 1e-6);
    CHECK(hy_abam.init(mem, &dae, 0.0, y0, yp0, &bad) == HY_ERR_ARG,
          "a negative rtol must be refused");
    bad = ns_options(1e-6, 0.0);
    CHECK(hy_abam.init(mem, &dae, 0.0, y0, yp0, &bad) == HY_ERR_ARG,
          "atol = 0 with a component at 0 must be refused (zero weight)");
    bad = ns_options(1e-6, 1e-6);
    bad.h_min = 1.0;
    bad.h_max = 0.5;
    CHECK(hy_abam.init(mem, &dae, 0.0, y0, yp0, &bad) == HY_ERR_ARG,
          "h_min > h_max must be refused");
    double t_new;
    CHECK(hy_abam.step(mem, 1.0, &t_new) == HY_ERR_ARG,
          "step() after a refused init must fail");
    CHECK(hy_abam.create(0) == NULL, "create(0) must fail");
    hy_abam.destroy(mem);
    hy_abam.destroy(NULL);
}

/* The simulator restarts the integrator with init() at every event:
** integrate the oscillator to pi, restart there from the solution, go on
** to 2 pi. Counters accumulate, the step history does not. */
static void test_restart(void)
{
    void *mem = hy_abam.create(2);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    double y[2] = { 1.0, 0.0 }, yp[2] = { 0.0, -1.0 };
    hy_options opt = ns_options(1e-9, 1e-9);
    double t = 0.0;
    int code = hy_abam.init(mem, &dae, 0.0, y, yp, &opt);
    while (code == HY_OK)
        code = hy_abam.step(mem, NS_PI, &t);
    CHECK(code == HY_TSTOP && t == NS_PI, "first half: code %d", code);
    hy_stats first;
    hy_abam.get_stats(mem, &first);
    hy_abam.dense(mem, t, y, yp);
    CHECK(hy_abam.init(mem, &dae, t, y, yp, &opt) == HY_OK, "re-init");
    hy_stats after_init;
    hy_abam.get_stats(mem, &after_init);
    CHECK(after_init.n_steps == first.n_steps
              && after_init.n_res_evals == first.n_res_evals,
          "init() must not reset the counters");
    CHECK(after_init.h_last == 0.0 && after_init.order_last == 0,
          "init() resets the step history");
    code = HY_OK;
    while (code == HY_OK)
        code = hy_abam.step(mem, 2.0 * NS_PI, &t);
    CHECK(code == HY_TSTOP && t == 2.0 * NS_PI, "second half: code %d", code);
    hy_abam.dense(mem, t, y, NULL);
    CHECK_NEAR(y[0], 1.0, ABAM_GLOBAL_FACTOR * 1e-9, "y1(2 pi) after restart");
    CHECK_NEAR(y[1], 0.0, ABAM_GLOBAL_FACTOR * 1e-9, "y2(2 pi) after restart");
    hy_stats total;
    hy_abam.get_stats(mem, &total);
    CHECK(total.n_steps > first.n_steps, "steps accumulate");
    CHECK(total.n_res_evals == ctx.n_calls,
          "n_res_evals %ld != %ld calls of f", total.n_res_evals, ctx.n_calls);
    hy_abam.destroy(mem);
}

/* f gives NaN for t > 0.5 (component 1), fails fatally, or keeps failing
** recoverably: step() must end with an error code, never with success
** past the point where f fails. */
static void test_failures_of_f(void)
{
    double y0[2] = { 1.0, 0.0 };
    hy_options opt = ns_options(1e-8, 1e-8);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    ctx.nan_after = 0.5;
    ctx.nan_component = 1;
    void *mem = hy_abam.create(2);
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    double yp0[2] = { 0.0, -1.0 };
    hy_abam.init(mem, &dae, 0.0, y0, yp0, &opt);
    int code = HY_OK;
    double t = 0.0;
    for (int s = 0; s < 100000 && code == HY_OK; s++) {
        code = hy_abam.step(mem, 2.0, &t);
        if (code >= 0)
            CHECK(t <= 0.5, "success at t = %.17g, where f is NaN", t);
    }
    CHECK(code == HY_ERR_RES, "NaN from f: code %d, expected HY_ERR_RES", code);
    CHECK(hy_abam.worst_component(mem) == 1, "worst component %d, expected 1",
          hy_abam.worst_component(mem));
    hy_abam.destroy(mem);

    /* NaN already at t0. */
    ns_ctx_init(&ctx);
    ctx.nan_after = -1.0;
    mem = hy_abam.create(2);
    hy_abam.init(mem, &dae, 0.0, y0, yp0, &opt);
    code = hy_abam.step(mem, 1.0, &t);
    CHECK(code == HY_ERR_RES && t == 0.0, "NaN at t0: code %d at t %g", code, t);
    hy_abam.destroy(mem);
    ns_run run;

    /* A fatal failure (< 0) from t = 0.5 on. */
    ns_ctx_init(&ctx);
    ctx.fail_after = 0.5;
    ctx.fail_code = -1;
    run = ns_integrate(&hy_abam, 2, ns_oscillator, &ctx, 0.0, y0, 1.0, &opt, 100000,
                       NULL, NULL);
    CHECK(run.status == HY_ERR_RES && run.t_reached <= 0.5,
          "fatal f: status %d at t %.17g", run.status, run.t_reached);

    /* A recoverable failure (> 0) that does not go away. */
    ns_ctx_init(&ctx);
    ctx.fail_after = 0.5;
    ctx.fail_code = 1;
    run = ns_integrate(&hy_abam, 2, ns_oscillator, &ctx, 0.0, y0, 1.0, &opt, 100000,
                       NULL, NULL);
    CHECK(run.status == HY_ERR_RES && run.t_reached <= 0.5,
          "persistent recoverable f failure: status %d at t %.17g", run.status,
          run.t_reached);
}

/* y1' = -50 (y1 - cos t), y1(0) = 1 (a mildly stiff component: explicit
** steps are limited by stability, and the controller's attempts to grow
** them get rejected) next to y0' = 0 (no error at all): every rejected
** step is due to component 1. Closed form y1 = (2500 cos t + 50 sin t +
** e^(-50 t)) / 2501. */
static int relaxation_rhs(double t, const double *y, double *ydot, void *ctx)
{
    ydot[0] = 0.0;
    ydot[1] = -50.0 * (y[1] - cos(t));
    return ns_inject(ctx, t, ydot);
}

static void test_statistics_and_worst_component(void)
{
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    double y0[2] = { 1.0, 1.0 };
    hy_options opt = ns_options(1e-8, 1e-8);
    void *mem = hy_abam.create(2);
    hy_dae dae = { .n = 2, .rhs = relaxation_rhs, .ctx = &ctx };
    double yp0[2] = { 0.0, 0.0 };
    hy_abam.init(mem, &dae, 0.0, y0, yp0, &opt);
    CHECK(hy_abam.worst_component(mem) == -1, "no rejected step yet");
    int code = HY_OK;
    double t = 0.0;
    while (code == HY_OK)
        code = hy_abam.step(mem, 2.0, &t);
    CHECK(code == HY_TSTOP, "relaxation: code %d", code);
    hy_stats st;
    hy_abam.get_stats(mem, &st);
    double y[2];
    hy_abam.dense(mem, 2.0, y, NULL);
    CHECK_NEAR(y[1], (2500.0 * cos(2.0) + 50.0 * sin(2.0) + exp(-100.0)) / 2501.0,
               1e-7, "y1(2)");
    CHECK(st.n_err_fails > 0, "the stability limit should cause rejected steps");
    CHECK(hy_abam.worst_component(mem) == 1, "worst component %d, expected 1",
          hy_abam.worst_component(mem));
    /* PECE: 2 evaluations per accepted step, 1 per rejected one (the
    ** error test comes before the second), f(t0) and the trial Euler
    ** step of the starting step algorithm. */
    CHECK(st.n_res_evals == ctx.n_calls, "n_res_evals %ld, f called %ld times",
          st.n_res_evals, ctx.n_calls);
    CHECK(st.n_res_evals == 2 + 2 * st.n_steps + st.n_err_fails,
          "n_res_evals %ld != 2 + 2 x %ld steps + %ld rejected",
          st.n_res_evals, st.n_steps, st.n_err_fails);
    CHECK(st.n_jac_evals == 0 && st.n_lu == 0 && st.n_conv_fails == 0
              && st.n_newton_iters == 0,
          "an explicit method has no Jacobian, LU or corrector");
    CHECK(st.order_last >= 1 && st.order_last <= 12 && st.h_last > 0.0,
          "order_last %d, h_last %g", st.order_last, st.h_last);
    hy_abam.destroy(mem);
}

/* Per-component tolerances: vectors equal to the scalars give the same
** steps; a loose tolerance on one component gives fewer steps. */
static void test_tolerance_vectors(void)
{
    double y0[2] = { 1.0, 0.0 };
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    hy_options scalar = ns_options(1e-9, 1e-9);
    ns_run run_scalar = ns_integrate(&hy_abam, 2, ns_oscillator, &ctx, 0.0, y0,
                                     10.0, &scalar, 100000, NULL, NULL);
    const double rtol_same[2] = { 1e-9, 1e-9 }, atol_same[2] = { 1e-9, 1e-9 };
    hy_options vector = scalar;
    vector.rtol_vec = rtol_same;
    vector.atol_vec = atol_same;
    ns_ctx_init(&ctx);
    ns_run run_vector = ns_integrate(&hy_abam, 2, ns_oscillator, &ctx, 0.0, y0,
                                     10.0, &vector, 100000, NULL, NULL);
    CHECK(run_vector.stats.n_steps == run_scalar.stats.n_steps
              && run_vector.y[0] == run_scalar.y[0],
          "equal vector and scalar tolerances differ: %ld vs %ld steps",
          run_vector.stats.n_steps, run_scalar.stats.n_steps);
    const double rtol_loose[2] = { 1e-9, 1e-2 }, atol_loose[2] = { 1e-9, 1e-2 };
    vector.rtol_vec = rtol_loose;
    vector.atol_vec = atol_loose;
    ns_ctx_init(&ctx);
    ns_run run_loose = ns_integrate(&hy_abam, 2, ns_oscillator, &ctx, 0.0, y0,
                                    10.0, &vector, 100000, NULL, NULL);
    CHECK(run_loose.stats.n_steps < run_scalar.stats.n_steps,
          "a loose tolerance on y2 should save steps: %ld vs %ld",
          run_loose.stats.n_steps, run_scalar.stats.n_steps);
}

int main(void)
{
    test_accuracy_against_closed_forms();
    test_order_of_the_formulas();
    test_max_order();
    test_lands_on_t_stop();
    test_constant_rate_has_no_drift();
    test_step_limits();
    test_init_refusals();
    test_restart();
    test_failures_of_f();
    test_statistics_and_worst_component();
    test_tolerance_vectors();
    return CHECK_DONE();
}
