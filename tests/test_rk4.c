/*
** Unit tests of RK4 (classical Runge-Kutta with fixed step h_max,
** src/integrators/rk4.c) through its descriptor: 4th-order convergence of
** the solution and of the Hermite dense output against closed forms, steps
** of exactly h_max with the last one shortened onto t_stop, the refusals
** of init(), restarts, failures of f, and the statistics. The checks
** every explicit method shares are in tests/ode_checks.h.
*/
#include "ode_checks.h"

extern const hy_integrator_ops hy_rk4;

static hy_options fixed_step(double h)
{
    hy_options opt = ns_options(1e-6, 1e-6);
    opt.h_max = h;
    return opt;
}

/* y' = -y + sin t, y(0) = 1 on [0, 5] with h = 0.1, 0.05, 0.025: the
** global error of a 4th-order method drops by about 2^4 = 16 when h
** halves; so does the error of the dense output (cubic Hermite: the
** interpolation error is O(h^4) too). */
static void test_convergence_order(void)
{
    const double steps[] = { 0.1, 0.05, 0.025 };
    double err_end[3], err_dense[3], err_dense_yp[3];
    for (int k = 0; k < 3; k++) {
        hy_options opt = fixed_step(steps[k]);
        ns_dense_check dense;
        ns_run run = oc_integrate_closed_form(&hy_rk4, &oc_forced, &opt, &dense,
                                              &err_end[k]);
        CHECK(run.status == HY_TSTOP && run.t_reached == 5.0,
              "h %g: status %d at t %.17g", steps[k], run.status, run.t_reached);
        err_dense[k] = dense.max_err_y;
        err_dense_yp[k] = dense.max_err_yp;
        printf("RK4 y'=-y+sin t, h %-6g steps %4ld f %5ld error(5) %.3e "
               "dense error %.3e dense y' error %.3e\n",
               steps[k], run.stats.n_steps, run.stats.n_res_evals, err_end[k],
               err_dense[k], err_dense_yp[k]);
    }
    for (int k = 0; k < 2; k++) {
        double ratio = err_end[k] / err_end[k + 1];
        CHECK(ratio > 14.0 && ratio < 18.0,
              "error ratio %.2f for h %g -> %g, expected about 16", ratio,
              steps[k], steps[k + 1]);
        double ratio_dense = err_dense[k] / err_dense[k + 1];
        CHECK(ratio_dense > 12.0 && ratio_dense < 20.0,
              "dense error ratio %.2f for h %g -> %g, expected about 16",
              ratio_dense, steps[k], steps[k + 1]);
        /* The derivative of a cubic Hermite interpolant is O(h^3). */
        double ratio_yp = err_dense_yp[k] / err_dense_yp[k + 1];
        CHECK(ratio_yp > 6.0 && ratio_yp < 10.0,
              "dense y' error ratio %.2f, expected about 8", ratio_yp);
    }
}

typedef struct step_log {
    double h_fixed;
    long n_steps;
    double h_first_off;     /* largest |(t_new - t_old) - h| but the last */
    double h_last_step;
} step_log;

static void log_steps(void *user, const hy_integrator_ops *ops, void *mem,
                      double t_old, double t_new)
{
    (void)ops;
    (void)mem;
    step_log *log = user;
    if (log->n_steps > 0)
        log->h_first_off = fmax(log->h_first_off,
                                fabs(log->h_last_step - log->h_fixed));
    log->h_last_step = t_new - t_old;
    log->n_steps++;
}

/* Steps of exactly h_max (up to the rounding of t), the last one
** shortened to land on t_end; no step is longer than h_max (up to the
** same rounding). */
static void test_fixed_steps(void)
{
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    double y0[2] = { 1.0, 0.0 };
    hy_options opt = fixed_step(0.3);
    step_log log = { 0.3, 0, 0.0, 0.0 };
    ns_run run = ns_integrate(&hy_rk4, 2, ns_oscillator, &ctx, 0.0, y0, 1.0,
                              &opt, 1000, log_steps, &log);
    CHECK(run.status == HY_TSTOP && run.t_reached == 1.0,
          "status %d at %.17g", run.status, run.t_reached);
    CHECK(run.stats.n_steps == 4 && log.n_steps == 4,
          "0.3, 0.6, 0.9, 1.0 are 4 steps, took %ld", run.stats.n_steps);
    CHECK(log.h_first_off <= 4.0 * DBL_EPSILON,
          "steps differ from h_max by %.3g", log.h_first_off);
    CHECK_NEAR(log.h_last_step, 0.1, 1e-15, "last step shortened to 0.1");
    CHECK_NEAR(run.stats.h_last, 0.1, 1e-15, "h_last");
    CHECK(run.h_max_seen <= 0.3, "a step longer than h_max: %.17g",
          run.h_max_seen);
    CHECK(run.stats.order_last == 4, "order_last %d", run.stats.order_last);

    /* 1000 steps of 0.01: t does not drift (the grid is t0 + m h). */
    ns_ctx_init(&ctx);
    opt = fixed_step(0.01);
    step_log log_long = { 0.01, 0, 0.0, 0.0 };
    run = ns_integrate(&hy_rk4, 2, ns_oscillator, &ctx, 0.0, y0, 10.0, &opt,
                       10000, log_steps, &log_long);
    CHECK(run.status == HY_TSTOP && run.stats.n_steps == 1000,
          "10 / 0.01 should be 1000 steps, took %ld (status %d)",
          run.stats.n_steps, run.status);
    /* The grid points t0 + m h are rounded, so a step (their difference)
    ** may exceed h by an ulp of t. */
    CHECK(run.h_max_seen <= 0.01 + 4.0 * DBL_EPSILON * 10.0,
          "a step longer than h_max: %.17g", run.h_max_seen);
    CHECK(log_long.h_first_off <= 1e-14, "steps differ from h_max by %.3g",
          log_long.h_first_off);
}

/* Successive stops at odd times with h = 0.01: each reached exactly with
** HY_TSTOP (oc_step_through_stops). */
static void test_lands_on_t_stop(void)
{
    void *mem = hy_rk4.create(2);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    double y0[2] = { 1.0, 0.0 }, yp0[2] = { 0.0, -1.0 };
    hy_options opt = fixed_step(0.01);
    CHECK(hy_rk4.init(mem, &dae, 0.0, y0, yp0, &opt) == HYDAE_OK, "init");
    const double stops[] = { 1e-3, 1.0 / 3.0, 0.7, 0.7 + 1e-15, 2.0 };
    oc_step_through_stops(&hy_rk4, mem, stops, sizeof stops / sizeof stops[0],
                          1e-8);
    hy_rk4.destroy(mem);
}

static void test_init_refusals(void)
{
    void *mem = hy_rk4.create(2);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    double y0[2] = { 1.0, 0.0 }, yp0[2] = { 0.0, -1.0 };
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    hy_options opt = fixed_step(0.0);
    CHECK(hy_rk4.init(mem, &dae, 0.0, y0, yp0, &opt) == HYDAE_ERR_ARG,
          "h_max = 0 must be refused");
    opt = fixed_step(INFINITY);
    CHECK(hy_rk4.init(mem, &dae, 0.0, y0, yp0, &opt) == HYDAE_ERR_ARG,
          "h_max = inf must be refused");
    opt = fixed_step(-0.1);
    CHECK(hy_rk4.init(mem, &dae, 0.0, y0, yp0, &opt) == HYDAE_ERR_ARG,
          "h_max < 0 must be refused");
    opt = fixed_step(0.1);
    hy_dae no_rhs = { .n = 2, .ctx = &ctx };
    CHECK(hy_rk4.init(mem, &no_rhs, 0.0, y0, yp0, &opt) == HYDAE_ERR_ARG,
          "a DAE without rhs must be refused");
    double t_new;
    CHECK(hy_rk4.step(mem, 1.0, &t_new) == HYDAE_ERR_ARG,
          "step() after a refused init must fail");
    CHECK(hy_rk4.init(mem, &dae, 0.0, y0, yp0, &opt) == HYDAE_OK, "valid init");
    CHECK(hy_rk4.fixed_step == 1 && hy_rk4.needs_rhs == 1,
          "RK4 is fixed-step and needs rhs");
    hy_rk4.destroy(mem);
}

/* Restart with init() halfway; counters accumulate. */
static void test_restart(void)
{
    hy_options opt = fixed_step(0.01);
    oc_restart_run r = oc_run_with_restart(&hy_rk4, &opt, 1.0, 2.0);
    CHECK(r.code_reinit == HYDAE_OK, "re-init");
    CHECK(r.code_second == HY_TSTOP && r.t_second == 2.0,
          "second part: code %d", r.code_second);
    /* Global error of RK4 with h = 0.01 over [0, 2]: about 1e-10. */
    CHECK_NEAR(r.y[0], cos(2.0), 1e-9, "y1(2) after restart");
    CHECK(r.total.n_steps == 200 && r.first.n_steps == 100,
          "steps %ld then %ld, expected 100 then 200", r.first.n_steps,
          r.total.n_steps);
    /* f(t0) once per init, 4 evaluations per step (the 4th stage's
    ** successor f(t_new, y_new) is the next step's first stage). */
    CHECK(r.total.n_res_evals == r.n_calls && r.total.n_res_evals == 2 + 4 * 200,
          "n_res_evals %ld, f called %ld times, expected %d",
          r.total.n_res_evals, r.n_calls, 2 + 4 * 200);
    CHECK(r.total.n_err_fails == 0 && r.total.n_jac_evals == 0
              && r.total.n_lu == 0,
          "no error control, Jacobian or LU");
}

/* A fixed step cannot be retried smaller: f giving NaN ends the step with
** HYDAE_ERR_RESIDUAL, leaving t and the dense output at the last accepted step. */
static void test_failures_of_f(void)
{
    void *mem = hy_rk4.create(2);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    ctx.nan_after = 0.55;
    ctx.nan_component = 0;
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    double y0[2] = { 1.0, 0.0 }, yp0[2] = { 0.0, -1.0 };
    hy_options opt = fixed_step(0.1);
    hy_rk4.init(mem, &dae, 0.0, y0, yp0, &opt);
    int code = HYDAE_OK;
    double t = 0.0, t_accepted = 0.0;
    while (code == HYDAE_OK) {
        code = hy_rk4.step(mem, 1.0, &t);
        if (code >= 0)
            t_accepted = t;
    }
    CHECK(code == HYDAE_ERR_RESIDUAL, "NaN from f: code %d", code);
    CHECK(t_accepted <= 0.55 && fabs(t_accepted - 0.5) < 1e-12,
          "last accepted step ends at %.17g, expected 0.5", t_accepted);
    CHECK(t == t_accepted, "the failed step reports t %.17g", t);
    CHECK(hy_rk4.worst_component(mem) == 0, "worst component %d",
          hy_rk4.worst_component(mem));
    double y[2];
    CHECK(hy_rk4.dense(mem, t_accepted, y, NULL) == HYDAE_OK
              && fabs(y[0] - cos(0.5)) < 1e-6,
          "dense output of the last accepted step survives the failure");
    hy_rk4.destroy(mem);

    ns_run run = oc_run_failing_f(&hy_rk4, &opt, 0.25, 1, 1000);
    CHECK(run.status == HYDAE_ERR_RESIDUAL && run.t_reached <= 0.25,
          "f failing recoverably: status %d at %.17g", run.status,
          run.t_reached);
}

int main(void)
{
    test_convergence_order();
    test_fixed_steps();
    test_lands_on_t_stop();
    oc_check_constant_rate_has_no_drift(&hy_rk4);
    test_init_refusals();
    test_restart();
    test_failures_of_f();
    return CHECK_DONE();
}
