/*
** Checks shared by the unit tests of the explicit integrators
** (tests/test_abam.c, test_rk45.c, test_rk4.c): the closed-form problems,
** a driver that integrates one of them with a given descriptor, and the
** behaviour every explicit method must show whatever its formulas:
** accuracy against the closed forms, landing exactly on t_stop, y' = 1
** without drift, h_max / h_min / h0, the refusals of init(), restarts by
** repeated init(), failures of f (NaN, fatal, recoverable), the counters
** on a mildly stiff problem and per-component tolerances. The problems
** and the step driver underneath are tests/validation/nonstiff_problems.h.
**
** The variable-step checks (oc_check_*(ops) with no options) are those of
** ABAM and RK45; the fixed-step RK4 uses the pieces that take options or
** return a run (oc_integrate_closed_form, oc_step_through_stops,
** oc_run_with_restart, oc_run_failing_f). Each method keeps its own
** checks (order, coefficients, counts per step) in its file.
**
** Everything is static inline so that a test using only part of it
** compiles without unused-function warnings.
*/
#ifndef HY_ODE_CHECKS_H
#define HY_ODE_CHECKS_H

#include "check.h"
#include "validation/nonstiff_problems.h"

#include <float.h>
#include <stdio.h>

/* ---- Closed-form problems and the driver ------------------------------- */

typedef struct oc_problem {
    const char *name;
    int n;
    hy_rhs_fn rhs;
    void (*exact)(double t, double *y);
    double t_end;
} oc_problem;

/* The accuracy set of the variable-step methods. */
static const oc_problem oc_closed_forms[] = {
    { "dahlquist y'=-y on [0,10]", 1, ns_dahlquist, ns_dahlquist_exact, 10.0 },
    { "oscillator over one period", 2, ns_oscillator, ns_oscillator_exact,
      2.0 * NS_PI },
    { "y'=-y^2 on [0,10]", 1, ns_riccati, ns_riccati_exact, 10.0 },
};
#define OC_N_CLOSED_FORMS \
    (int)(sizeof oc_closed_forms / sizeof oc_closed_forms[0])

/* y' = -y + sin t, y(0) = 1 on [0, 5]: the order measurements. */
static const oc_problem oc_forced = { "y'=-y+sin t on [0,5]", 1, ns_forced,
                                      ns_forced_exact, 5.0 };

/* Integrates pr from its closed form at t = 0 to pr->t_end with one fresh
** integrator (at most 100000 steps). With dense != NULL, checks the dense
** output against the closed form after every step at 9 interior points
** (ns_check_dense). *err_end: largest |y - y_exact(t_end)| at t_reached
** over the components (NaN if any is NaN). */
static inline ns_run oc_integrate_closed_form(const hy_integrator_ops *ops,
                                              const oc_problem *pr,
                                              const hy_options *opt,
                                              ns_dense_check *dense,
                                              double *err_end)
{
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    double y0[NS_MAX_N], y_exact[NS_MAX_N];
    pr->exact(0.0, y0);
    if (dense != NULL)
        *dense = (ns_dense_check){ pr->n, pr->exact, pr->rhs, 9, 0, 0, 0, 0 };
    ns_run run = ns_integrate(ops, pr->n, pr->rhs, &ctx, 0.0, y0, pr->t_end,
                              opt, 100000, dense != NULL ? ns_check_dense : NULL,
                              dense);
    pr->exact(pr->t_end, y_exact);
    *err_end = 0.0;
    for (int i = 0; i < pr->n; i++) {
        double err = fabs(run.y[i] - y_exact[i]);
        if (err > *err_end || isnan(err))
            *err_end = err;
    }
    return run;
}

/* ---- Accuracy ------------------------------------------------------------ */

/* Every closed form at rtol = atol = tol = 1e-4 .. 1e-10: the global
** error at t_end, at the step points and of the dense output within
** global_factor x tol, one table line per run printed as "<method> ...". */
static inline void oc_check_accuracy_against_closed_forms(
    const hy_integrator_ops *ops, const char *method, double global_factor)
{
    for (int p = 0; p < OC_N_CLOSED_FORMS; p++) {
        const oc_problem *pr = &oc_closed_forms[p];
        double err_max_by_tol[7];
        for (int e = 4; e <= 10; e++) {
            double tol = pow(10.0, -e);
            hy_options opt = ns_options(tol, tol);
            ns_dense_check dense;
            double err_end;
            ns_run run = oc_integrate_closed_form(ops, pr, &opt, &dense,
                                                  &err_end);
            CHECK(run.status == HY_TSTOP && run.t_reached == pr->t_end,
                  "%s tol %g: status %d, t %.17g", pr->name, tol, run.status,
                  run.t_reached);
            CHECK(err_end <= global_factor * tol,
                  "%s tol %g: error at t_end %.3g > %g tol", pr->name, tol,
                  err_end, global_factor);
            CHECK(dense.max_err_ends <= global_factor * tol,
                  "%s tol %g: error at step points %.3g > %g tol", pr->name,
                  tol, dense.max_err_ends, global_factor);
            CHECK(dense.max_err_y <= global_factor * tol,
                  "%s tol %g: dense output error %.3g > %g tol", pr->name,
                  tol, dense.max_err_y, global_factor);
            CHECK(dense.n_dense_fail == 0, "%s: dense() refused a point",
                  pr->name);
            err_max_by_tol[e - 4] = dense.max_err_ends;
            printf("%s %-28s tol %.0e steps %4ld rejected %3ld f %5ld "
                   "err(t_end) %.2e max err %.2e dense err %.2e\n",
                   method, pr->name, tol, run.stats.n_steps,
                   run.stats.n_err_fails, run.stats.n_res_evals, err_end,
                   dense.max_err_ends, dense.max_err_y);
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

/* ---- Landing on t_stop --------------------------------------------------- */

/* Repeated step() of mem (started on the oscillator from (1, 0) at t = 0)
** towards each of the increasing stops in turn: every stop is reached
** with HY_TSTOP and t_new == t_stop exactly, no step passes it, and
** dense() at the stop is within y1_tol of cos t_stop. Returns t reached. */
static inline double oc_step_through_stops(const hy_integrator_ops *ops,
                                           void *mem, const double *stops,
                                           size_t n_stops, double y1_tol)
{
    double t = 0.0;
    for (size_t s = 0; s < n_stops; s++) {
        double t_stop = fmax(stops[s], t);
        int code = HYDAE_OK, n_calls = 0;
        while (code == HYDAE_OK && n_calls < 10000) {
            double t_new = t;
            code = ops->step(mem, t_stop, &t_new);
            CHECK(t_new <= t_stop, "step went past t_stop %.17g to %.17g",
                  t_stop, t_new);
            t = t_new;
            n_calls++;
        }
        CHECK(code == HY_TSTOP && t == t_stop,
              "stop %.17g: code %d, t %.17g", t_stop, code, t);
        double y[2], y_exact[2];
        ops->dense(mem, t_stop, y, NULL);
        ns_oscillator_exact(t_stop, y_exact);
        CHECK_NEAR(y[0], y_exact[0], y1_tol, "y1 at the stop");
    }
    return t;
}

/* Variable step at tol 1e-8, stops at odd times and one twice; then
** dense() after the last step and a t_stop behind t are refused. */
static inline void oc_check_lands_on_t_stop(const hy_integrator_ops *ops)
{
    void *mem = ops->create(2);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    double y0[2] = { 1.0, 0.0 }, yp0[2] = { 0.0, -1.0 };
    hy_options opt = ns_options(1e-8, 1e-8);
    CHECK(ops->init(mem, &dae, 0.0, y0, yp0, &opt) == HYDAE_OK, "init");
    const double stops[] = { 1e-3, 1.0 / 3.0, 0.7, 0.7 + 1e-15, 2.0 / 3.0 * NS_PI,
                             2.0 * NS_PI, 2.0 * NS_PI };
    double t = oc_step_through_stops(ops, mem, stops,
                                     sizeof stops / sizeof stops[0], 1e-7);
    double y[2];
    CHECK(ops->dense(mem, t + 1.0, y, NULL) == HYDAE_ERR_ARG,
          "dense() outside the last step must be refused");
    double t_new;
    CHECK(ops->step(mem, t - 1.0, &t_new) == HYDAE_ERR_ARG,
          "a t_stop behind t must be refused");
    ops->destroy(mem);
}

/* ---- Constant rate ------------------------------------------------------- */

/* y' = 1, y(0) = 0 with 100-odd steps: y must stay equal to t up to an
** ulp or two at every stop (the increments are formed relative to k_1,
** so no rounding drift accumulates); the simulator relies on y reaching
** a guard's level at the very time event where t does. */
static inline int oc_unit_rate(double t, const double *y, double *ydot,
                               void *ctx)
{
    (void)y;
    ydot[0] = 1.0;
    return ns_inject(ctx, t, ydot);
}

static inline void oc_check_constant_rate_has_no_drift(
    const hy_integrator_ops *ops)
{
    void *mem = ops->create(1);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    hy_dae dae = { .n = 1, .rhs = oc_unit_rate, .ctx = &ctx };
    double y = 0.0, yp = 1.0, t = 0.0;
    hy_options opt = ns_options(1e-8, 1e-8);
    opt.h_max = 0.01;
    CHECK(ops->init(mem, &dae, 0.0, &y, &yp, &opt) == HYDAE_OK, "init");
    const double stops[] = { 1.0 / 3.0, 1.0, 2.5 };
    for (size_t s = 0; s < sizeof stops / sizeof stops[0]; s++) {
        int code = HYDAE_OK;
        while (code == HYDAE_OK)
            code = ops->step(mem, stops[s], &t);
        ops->dense(mem, t, &y, NULL);
        CHECK(code == HY_TSTOP && fabs(y - stops[s]) <= 4.0 * DBL_EPSILON * stops[s],
              "y' = 1: y = %.17g at t = %.17g (code %d)", y, stops[s], code);
    }
    ops->destroy(mem);
}

/* ---- Step limits --------------------------------------------------------- */

static inline void oc_largest_step(void *user, const hy_integrator_ops *ops,
                                   void *mem, double t_old, double t_new)
{
    double *h_largest = user;
    hy_stats st;
    ops->get_stats(mem, &st);
    *h_largest = fmax(*h_largest, fmax(t_new - t_old, st.h_last));
}

/* h_max bounds every step, an h_min too large for the tolerance fails,
** a given h0 is the first step. */
static inline void oc_check_step_limits(const hy_integrator_ops *ops)
{
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    double y0[2] = { 1.0, 0.0 };
    hy_options opt = ns_options(1e-3, 1e-3);
    opt.h_max = 0.05;
    double h_largest = 0.0;
    ns_run run = ns_integrate(ops, 2, ns_oscillator, &ctx, 0.0, y0, 2.0 * NS_PI,
                              &opt, 100000, oc_largest_step, &h_largest);
    CHECK(run.status == HY_TSTOP, "h_max run: status %d", run.status);
    CHECK(h_largest <= 0.05, "h_max 0.05 exceeded: %.17g", h_largest);
    CHECK(run.stats.n_steps >= (long)ceil(2.0 * NS_PI / 0.05),
          "%ld steps cannot cover 2 pi with h <= 0.05", run.stats.n_steps);

    /* h_min = 0.5 with a tolerance that needs smaller steps: fails. */
    ns_ctx_init(&ctx);
    opt = ns_options(1e-12, 1e-12);
    opt.h_min = 0.5;
    run = ns_integrate(ops, 2, ns_oscillator, &ctx, 0.0, y0, 2.0 * NS_PI, &opt,
                       100000, NULL, NULL);
    CHECK(run.status == HYDAE_ERR_HMIN, "h_min 0.5 at tol 1e-12: status %d",
          run.status);

    /* A given h0 is used for the first step. */
    ns_ctx_init(&ctx);
    opt = ns_options(1e-6, 1e-6);
    opt.h0 = 1e-3;
    void *mem = ops->create(2);
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    double yp0[2] = { 0.0, -1.0 }, t_new;
    ops->init(mem, &dae, 0.0, y0, yp0, &opt);
    CHECK(ops->step(mem, 1.0, &t_new) == HYDAE_OK && t_new == 1e-3,
          "first step with h0 = 1e-3 ended at %.17g", t_new);
    ops->destroy(mem);
}

/* ---- Refusals of init() -------------------------------------------------- */

/* A DAE without rhs or of another size, a negative rtol, zero_tol (the
** method's own case of tolerances giving a zero weight, described by
** zero_tol_what) and h_min > h_max are refused; step() after a refused
** init() fails; create(0) fails; destroy(NULL) is harmless. */
static inline void oc_check_init_refusals(const hy_integrator_ops *ops,
                                          const hy_options *zero_tol,
                                          const char *zero_tol_what)
{
    void *mem = ops->create(2);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    double y0[2] = { 1.0, 0.0 }, yp0[2] = { 0.0, -1.0 };
    hy_options opt = ns_options(1e-6, 1e-6);
    hy_dae no_rhs = { .n = 2, .ctx = &ctx };
    CHECK(ops->init(mem, &no_rhs, 0.0, y0, yp0, &opt) == HYDAE_ERR_ARG,
          "a DAE without rhs must be refused");
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    hy_dae wrong_n = dae;
    wrong_n.n = 3;
    CHECK(ops->init(mem, &wrong_n, 0.0, y0, yp0, &opt) == HYDAE_ERR_ARG,
          "a DAE of another size must be refused");
    hy_options bad = ns_options(-1e-6, 1e-6);
    CHECK(ops->init(mem, &dae, 0.0, y0, yp0, &bad) == HYDAE_ERR_ARG,
          "a negative rtol must be refused");
    CHECK(ops->init(mem, &dae, 0.0, y0, yp0, zero_tol) == HYDAE_ERR_ARG, "%s",
          zero_tol_what);
    bad = ns_options(1e-6, 1e-6);
    bad.h_min = 1.0;
    bad.h_max = 0.5;
    CHECK(ops->init(mem, &dae, 0.0, y0, yp0, &bad) == HYDAE_ERR_ARG,
          "h_min > h_max must be refused");
    double t_new;
    CHECK(ops->step(mem, 1.0, &t_new) == HYDAE_ERR_ARG,
          "step() after a refused init must fail");
    CHECK(ops->create(0) == NULL, "create(0) must fail");
    ops->destroy(mem);
    ops->destroy(NULL);
}

/* ---- Restart ------------------------------------------------------------- */

/* The simulator restarts the integrator with init() at every event. */
typedef struct oc_restart_run {
    int code_first;         /* last code of step() towards t_mid */
    double t_first;
    hy_stats first;         /* statistics before the restart */
    int code_reinit;        /* init() at t_first */
    hy_stats after_init;
    int code_second;        /* last code of step() towards t_end */
    double t_second;
    double y[2];            /* dense() at t_second */
    hy_stats total;
    long n_calls;           /* f evaluations counted by the rhs */
} oc_restart_run;

/* Integrates the oscillator from (1, 0) at t = 0 towards t_mid, restarts
** with init() there from the dense output (y and y'), goes on to t_end. */
static inline oc_restart_run oc_run_with_restart(const hy_integrator_ops *ops,
                                                 const hy_options *opt,
                                                 double t_mid, double t_end)
{
    oc_restart_run r;
    void *mem = ops->create(2);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    double y[2] = { 1.0, 0.0 }, yp[2] = { 0.0, -1.0 };
    double t = 0.0;
    int code = ops->init(mem, &dae, 0.0, y, yp, opt);
    while (code == HYDAE_OK)
        code = ops->step(mem, t_mid, &t);
    r.code_first = code;
    r.t_first = t;
    ops->get_stats(mem, &r.first);
    ops->dense(mem, t, y, yp);
    r.code_reinit = ops->init(mem, &dae, t, y, yp, opt);
    ops->get_stats(mem, &r.after_init);
    code = HYDAE_OK;
    while (code == HYDAE_OK)
        code = ops->step(mem, t_end, &t);
    r.code_second = code;
    r.t_second = t;
    ops->dense(mem, t, r.y, NULL);
    ops->get_stats(mem, &r.total);
    r.n_calls = ctx.n_calls;
    ops->destroy(mem);
    return r;
}

/* Variable step at tol 1e-9: to pi, restart, to 2 pi, where the solution
** is within global_factor x 1e-9 of (1, 0). Counters accumulate, the step
** history does not. */
static inline void oc_check_restart(const hy_integrator_ops *ops,
                                    double global_factor)
{
    hy_options opt = ns_options(1e-9, 1e-9);
    oc_restart_run r = oc_run_with_restart(ops, &opt, NS_PI, 2.0 * NS_PI);
    CHECK(r.code_first == HY_TSTOP && r.t_first == NS_PI,
          "first half: code %d", r.code_first);
    CHECK(r.code_reinit == HYDAE_OK, "re-init");
    CHECK(r.after_init.n_steps == r.first.n_steps
              && r.after_init.n_res_evals == r.first.n_res_evals,
          "init() must not reset the counters");
    CHECK(r.after_init.h_last == 0.0 && r.after_init.order_last == 0,
          "init() resets the step history");
    CHECK(r.code_second == HY_TSTOP && r.t_second == 2.0 * NS_PI,
          "second half: code %d", r.code_second);
    CHECK_NEAR(r.y[0], 1.0, global_factor * 1e-9, "y1(2 pi) after restart");
    CHECK_NEAR(r.y[1], 0.0, global_factor * 1e-9, "y2(2 pi) after restart");
    CHECK(r.total.n_steps > r.first.n_steps, "steps accumulate");
    CHECK(r.total.n_res_evals == r.n_calls,
          "n_res_evals %ld != %ld calls of f", r.total.n_res_evals, r.n_calls);
}

/* ---- Failures of f ------------------------------------------------------- */

/* The oscillator from (1, 0) to t = 1 with f returning fail_code for
** t > fail_after; at most max_steps steps. */
static inline ns_run oc_run_failing_f(const hy_integrator_ops *ops,
                                      const hy_options *opt, double fail_after,
                                      int fail_code, long max_steps)
{
    double y0[2] = { 1.0, 0.0 };
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    ctx.fail_after = fail_after;
    ctx.fail_code = fail_code;
    return ns_integrate(ops, 2, ns_oscillator, &ctx, 0.0, y0, 1.0, opt,
                        max_steps, NULL, NULL);
}

/* f gives NaN for t > 0.5 (component 1), fails fatally, or keeps failing
** recoverably: step() must end with an error code, never with success
** past the point where f fails. */
static inline void oc_check_failures_of_f(const hy_integrator_ops *ops)
{
    double y0[2] = { 1.0, 0.0 };
    hy_options opt = ns_options(1e-8, 1e-8);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    ctx.nan_after = 0.5;
    ctx.nan_component = 1;
    void *mem = ops->create(2);
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    double yp0[2] = { 0.0, -1.0 };
    ops->init(mem, &dae, 0.0, y0, yp0, &opt);
    int code = HYDAE_OK;
    double t = 0.0;
    for (int s = 0; s < 100000 && code == HYDAE_OK; s++) {
        code = ops->step(mem, 2.0, &t);
        if (code >= 0)
            CHECK(t <= 0.5, "success at t = %.17g, where f is NaN", t);
    }
    CHECK(code == HYDAE_ERR_RESIDUAL, "NaN from f: code %d, expected HYDAE_ERR_RESIDUAL", code);
    CHECK(ops->worst_component(mem) == 1, "worst component %d, expected 1",
          ops->worst_component(mem));
    ops->destroy(mem);

    /* NaN already at t0. */
    ns_ctx_init(&ctx);
    ctx.nan_after = -1.0;
    mem = ops->create(2);
    ops->init(mem, &dae, 0.0, y0, yp0, &opt);
    code = ops->step(mem, 1.0, &t);
    CHECK(code == HYDAE_ERR_RESIDUAL && t == 0.0, "NaN at t0: code %d at t %g", code, t);
    ops->destroy(mem);

    /* A fatal failure (< 0) from t = 0.5 on. */
    ns_run run = oc_run_failing_f(ops, &opt, 0.5, -1, 100000);
    CHECK(run.status == HYDAE_ERR_RESIDUAL && run.t_reached <= 0.5,
          "fatal f: status %d at t %.17g", run.status, run.t_reached);

    /* A recoverable failure (> 0) that does not go away. */
    run = oc_run_failing_f(ops, &opt, 0.5, 1, 100000);
    CHECK(run.status == HYDAE_ERR_RESIDUAL && run.t_reached <= 0.5,
          "persistent recoverable f failure: status %d at t %.17g", run.status,
          run.t_reached);
}

/* ---- Statistics and worst_component() ----------------------------------- */

/* y1' = -50 (y1 - cos t), y1(0) = 1 (a mildly stiff component: explicit
** steps are limited by stability, and the controller's attempts to grow
** them get rejected) next to y0' = 0 (no error at all): every rejected
** step is due to component 1. Closed form y1 = (2500 cos t + 50 sin t +
** e^(-50 t)) / 2501. */
static inline int oc_relaxation_rhs(double t, const double *y, double *ydot,
                                    void *ctx)
{
    ydot[0] = 0.0;
    ydot[1] = -50.0 * (y[1] - cos(t));
    return ns_inject(ctx, t, ydot);
}

/* Variable step at tol 1e-8 over [0, 2]: the solution, rejected steps
** blamed on component 1, n_res_evals equal to the calls of f. Returns the
** statistics for the method's own count of evaluations per step. */
static inline hy_stats oc_check_relaxation(const hy_integrator_ops *ops)
{
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    double y0[2] = { 1.0, 1.0 };
    hy_options opt = ns_options(1e-8, 1e-8);
    void *mem = ops->create(2);
    hy_dae dae = { .n = 2, .rhs = oc_relaxation_rhs, .ctx = &ctx };
    double yp0[2] = { 0.0, 0.0 };
    ops->init(mem, &dae, 0.0, y0, yp0, &opt);
    CHECK(ops->worst_component(mem) == -1, "no rejected step yet");
    int code = HYDAE_OK;
    double t = 0.0;
    while (code == HYDAE_OK)
        code = ops->step(mem, 2.0, &t);
    CHECK(code == HY_TSTOP, "relaxation: code %d", code);
    hy_stats st;
    ops->get_stats(mem, &st);
    double y[2];
    ops->dense(mem, 2.0, y, NULL);
    CHECK_NEAR(y[1], (2500.0 * cos(2.0) + 50.0 * sin(2.0) + exp(-100.0)) / 2501.0,
               1e-7, "y1(2)");
    CHECK(st.n_err_fails > 0, "the stability limit should cause rejected steps");
    CHECK(ops->worst_component(mem) == 1, "worst component %d, expected 1",
          ops->worst_component(mem));
    CHECK(st.n_res_evals == ctx.n_calls, "n_res_evals %ld, f called %ld times",
          st.n_res_evals, ctx.n_calls);
    ops->destroy(mem);
    return st;
}

static inline void oc_check_no_jacobian(const hy_stats *st)
{
    CHECK(st->n_jac_evals == 0 && st->n_lu == 0 && st->n_conv_fails == 0
              && st->n_newton_iters == 0,
          "an explicit method has no Jacobian, LU or corrector");
}

/* ---- Tolerance vectors --------------------------------------------------- */

/* Per-component tolerances: vectors equal to the scalars give the same
** steps; a loose tolerance on one component gives fewer steps. */
static inline void oc_check_tolerance_vectors(const hy_integrator_ops *ops)
{
    double y0[2] = { 1.0, 0.0 };
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    hy_options scalar = ns_options(1e-9, 1e-9);
    ns_run run_scalar = ns_integrate(ops, 2, ns_oscillator, &ctx, 0.0, y0,
                                     10.0, &scalar, 100000, NULL, NULL);
    const double rtol_same[2] = { 1e-9, 1e-9 }, atol_same[2] = { 1e-9, 1e-9 };
    hy_options vector = scalar;
    vector.rtol_vec = rtol_same;
    vector.atol_vec = atol_same;
    ns_ctx_init(&ctx);
    ns_run run_vector = ns_integrate(ops, 2, ns_oscillator, &ctx, 0.0, y0,
                                     10.0, &vector, 100000, NULL, NULL);
    CHECK(run_vector.stats.n_steps == run_scalar.stats.n_steps
              && run_vector.y[0] == run_scalar.y[0],
          "equal vector and scalar tolerances differ: %ld vs %ld steps",
          run_vector.stats.n_steps, run_scalar.stats.n_steps);
    const double rtol_loose[2] = { 1e-9, 1e-2 }, atol_loose[2] = { 1e-9, 1e-2 };
    vector.rtol_vec = rtol_loose;
    vector.atol_vec = atol_loose;
    ns_ctx_init(&ctx);
    ns_run run_loose = ns_integrate(ops, 2, ns_oscillator, &ctx, 0.0, y0,
                                    10.0, &vector, 100000, NULL, NULL);
    CHECK(run_loose.stats.n_steps < run_scalar.stats.n_steps,
          "a loose tolerance on y2 should save steps: %ld vs %ld",
          run_loose.stats.n_steps, run_scalar.stats.n_steps);
}

/* ---- Stiffness detection (RK45, RK853) ---------------------------------- */

/* y' = -1e4 (y - cos t): after the transient the solution is smooth, but
** an explicit method's step stays at its stability boundary,
** h |lambda| ~ 3 (Hairer & Wanner II, IV.2). */
static inline int oc_stiff_relaxation(double t, const double *y, double *ydot,
                                      void *ctx)
{
    (void)ctx;
    ydot[0] = -1e4 * (y[0] - cos(t));
    return 0;
}

/* The stiff problem above on [0, 2] is detected (n_stiff_detections >= 1;
** with at least 1000 steps, the first test falls inside the run), the
** oscillator over 300 periods, as many steps, is not. */
static inline void oc_check_stiffness_detection(const hy_integrator_ops *ops,
                                                const char *method)
{
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    hy_options opt = ns_options(1e-6, 1e-6);
    double y0 = 1.0;
    ns_run stiff = ns_integrate(ops, 1, oc_stiff_relaxation, &ctx, 0.0, &y0,
                                2.0, &opt, 1000000, NULL, NULL);
    CHECK(stiff.status == HY_TSTOP, "%s stiff: status %d", method,
          stiff.status);
    CHECK(stiff.stats.n_steps >= 1000 && stiff.stats.n_stiff_detections >= 1,
          "%s: y'=-1e4(y-cos t) not found stiff (%ld steps, %ld detections)",
          method, stiff.stats.n_steps, stiff.stats.n_stiff_detections);
    /* The first test falls at step 1000, the detection 14 steps later. */
    CHECK(stiff.stats.t_first_stiff > 0.0 && stiff.stats.t_first_stiff < 2.0,
          "%s: first detection at t = %g, want in (0, 2)", method,
          stiff.stats.t_first_stiff);
    double y_osc[2] = { 1.0, 0.0 };
    ns_ctx_init(&ctx);
    hy_options tight = ns_options(1e-10, 1e-10);
    ns_run smooth = ns_integrate(ops, 2, ns_oscillator, &ctx, 0.0, y_osc,
                                 600.0 * NS_PI, &tight, 1000000, NULL, NULL);
    CHECK(smooth.status == HY_TSTOP && smooth.stats.n_stiff_detections == 0,
          "%s: the oscillator found stiff (%ld detections in %ld steps)",
          method, smooth.stats.n_stiff_detections, smooth.stats.n_steps);
    printf("%s stiffness detection: stiff problem %ld steps, %ld detections; "
           "oscillator %ld steps, %ld\n", method, stiff.stats.n_steps,
           stiff.stats.n_stiff_detections, smooth.stats.n_steps,
           smooth.stats.n_stiff_detections);
}

#endif
