/*
** Unit tests of RK45 (Dormand-Prince 5(4), src/integrators/rk45.c) through
** its descriptor: accuracy against closed forms at tolerances 1e-4 ..
** 1e-10, the order of the dense output, landing exactly on t_stop, h_max
** and h_min, the refusal of a DAE without rhs, restarts, failures of f,
** the statistics and worst_component(). The checks every explicit method
** shares are in tests/ode_checks.h.
*/
#include "ode_checks.h"

extern const hy_integrator_ops hy_rk45;

/* Global error against the closed form, in units of the tolerance
** (rtol = atol = tol): RK45 controls the error per step and propagates
** the 5th-order solution (local extrapolation), so on these problems the
** global error stays within a small factor of tol. Measured largest
** ratios: 2.9 (oscillator, end point), 3.2 (oscillator, dense output at
** 1e-4), 2.1 (y'=-y^2, dense output at 1e-4); over tolerances 0.7..1.4
** times each decade: 3.4. Asserted: 5. */
#define RK45_GLOBAL_FACTOR 5.0

/* One step of fixed size h on y' = -y from y(0) = 1 (h0 = h_max = h and a
** loose tolerance so that it is accepted): the end point has local error
** O(h^6), the continuous extension O(h^5) (order 4). Halving h divides
** the dense error by about 2^5 = 32. */
static double one_step_dense_error(double h, double *err_end)
{
    void *mem = hy_rk45.create(1);
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    hy_dae dae = { .n = 1, .rhs = ns_dahlquist, .ctx = &ctx };
    double y0 = 1.0, yp0 = -1.0;
    hy_options opt = ns_options(1.0, 1.0);
    opt.h0 = h;
    opt.h_max = h;
    double t_new = 0.0, worst = 0.0;
    if (hy_rk45.init(mem, &dae, 0.0, &y0, &yp0, &opt) != HYDAE_OK
        || hy_rk45.step(mem, 10.0, &t_new) != HYDAE_OK) {
        hy_rk45.destroy(mem);
        return NAN;
    }
    for (int j = 1; j < 20; j++) {
        double t = t_new * j / 20.0, y, yp;
        hy_rk45.dense(mem, t, &y, &yp);
        worst = fmax(worst, fabs(y - exp(-t)));
    }
    double y_end;
    hy_rk45.dense(mem, t_new, &y_end, NULL);
    *err_end = fabs(y_end - exp(-t_new));
    hy_rk45.destroy(mem);
    return worst;
}

static void test_dense_output_order(void)
{
    double err_end_big, err_end_small;
    double err_big = one_step_dense_error(0.2, &err_end_big);
    double err_small = one_step_dense_error(0.1, &err_end_small);
    double ratio = err_big / err_small;
    printf("RK45 one step of y'=-y: dense error %.3g (h=0.2), %.3g (h=0.1), "
           "ratio %.1f; end point error %.3g, %.3g\n",
           err_big, err_small, ratio, err_end_big, err_end_small);
    CHECK(ratio > 24.0 && ratio < 40.0,
          "dense error ratio %.2f for h halved, expected about 32 (order 4)",
          ratio);
    CHECK(err_end_small < 0.1 * err_small,
          "end point error %.3g should be well below the dense error %.3g",
          err_end_small, err_small);
}

/* The same on a nonlinear system, where order 4 asks more of the
** continuous extension than on y' = -y (its 8 order conditions, not the
** linear ones alone): one step of size h on the Kepler orbit (e = 0.5)
** from pericentre, the largest dense error at 7 interior points against
** the closed form; halving h divides it by about 2^5. */
static double kepler_one_step_dense_error(double h)
{
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    void *mem = hy_rk45.create(4);
    hy_dae dae = { .n = 4, .rhs = ns_kepler, .ctx = &ctx };
    double y0[4], y[4], y_exact[4], t_new = 0.0, worst = 0.0;
    ns_kepler_exact(0.5, 0.0, y0);
    hy_options opt = ns_options(1e3, 1e3);
    opt.h0 = h;
    opt.h_max = h;
    if (hy_rk45.init(mem, &dae, 0.0, y0, NULL, &opt) != HYDAE_OK
        || hy_rk45.step(mem, 10.0, &t_new) != HYDAE_OK) {
        hy_rk45.destroy(mem);
        return NAN;
    }
    for (int j = 1; j < 8; j++) {
        double t = t_new * j / 8.0;
        hy_rk45.dense(mem, t, y, NULL);
        ns_kepler_exact(0.5, t, y_exact);
        for (int i = 0; i < 4; i++)
            worst = fmax(worst, fabs(y[i] - y_exact[i]));
    }
    hy_rk45.destroy(mem);
    return worst;
}

static void test_dense_output_order_nonlinear(void)
{
    double err[3];
    for (int k = 0; k < 3; k++)
        err[k] = kepler_one_step_dense_error(0.1 / (1 << k));
    for (int k = 0; k < 2; k++) {
        double order = log2(err[k] / err[k + 1]) - 1.0;
        printf("RK45 one step of Kepler: dense error %.3g (h=%.3f), %.3g "
               "(h=%.3f): dense order %.2f\n", err[k], 0.1 / (1 << k),
               err[k + 1], 0.1 / (2 << k), order);
        CHECK(order > 3.6 && order < 4.5, "dense output order %.2f, want 4",
              order);
    }
}

/* The refusals of oc_check_init_refusals(), with rtol = atol = 0. */
static void test_init_refusals(void)
{
    hy_options zero_tol = ns_options(0.0, 0.0);
    oc_check_init_refusals(&hy_rk45, &zero_tol,
                           "rtol = atol = 0 must be refused");
}

/* The counters on the relaxation problem of oc_check_relaxation(). */
static void test_statistics_and_worst_component(void)
{
    hy_stats st = oc_check_relaxation(&hy_rk45);
    /* 6 evaluations per attempt (FSAL), f(t0) and the trial Euler step of
    ** the starting step algorithm. */
    CHECK(st.n_res_evals == 2 + 6 * (st.n_steps + st.n_err_fails),
          "n_res_evals %ld != 2 + 6 (%ld steps + %ld rejected)",
          st.n_res_evals, st.n_steps, st.n_err_fails);
    oc_check_no_jacobian(&st);
    CHECK(st.order_last == 5 && st.h_last > 0.0, "order_last %d, h_last %g",
          st.order_last, st.h_last);
}

/* y' = -y, n = 2, whose f returns +inf in component 1 at one call: each
** stage's failure (the check of f's values is folded into the loops that
** read them, k_7's into the error norm) must reject the attempt as a
** failure of f, h / 4, and name component 1. */
typedef struct inf_at_call {
    long calls, inf_call;
} inf_at_call;

static int decay_inf_at_call(double t, const double *y, double *ydot, void *ctx)
{
    (void)t;
    inf_at_call *c = ctx;
    ydot[0] = -y[0];
    ydot[1] = ++c->calls == c->inf_call ? INFINITY : -y[1];
    return 0;
}

static void test_each_stage_not_finite(void)
{
    /* h0 given: call 1 is f(t0), calls 2..7 the stages 2..7 of the first
    ** attempt, which stops at the failing one (f is not called on an
    ** argument made of it); the retry takes 6 more. */
    for (long stage = 2; stage <= 7; stage++) {
        inf_at_call ctx = { 0, stage };
        hy_dae dae = { .n = 2, .rhs = decay_inf_at_call, .ctx = &ctx };
        double y0[2] = { 1.0, 1.0 }, y[2], t = 0.0;
        hy_options opt = ns_options(1e-6, 1e-6);
        opt.h0 = 0.1;
        void *mem = hy_rk45.create(2);
        hy_rk45.init(mem, &dae, 0.0, y0, NULL, &opt);
        int code = hy_rk45.step(mem, 1.0, &t);
        hy_stats st;
        hy_rk45.get_stats(mem, &st);
        CHECK(code == HYDAE_OK && st.n_err_fails == 1 && st.n_steps == 1
                  && st.n_res_evals == stage + 6 && fabs(st.h_last - 0.025) < 1e-15,
              "inf in stage %ld: code %d, %ld rejected, %ld steps, %ld f, h %g",
              stage, code, st.n_err_fails, st.n_steps, st.n_res_evals,
              st.h_last);
        CHECK(hy_rk45.worst_component(mem) == 1,
              "inf in stage %ld: worst component %d, expected 1", stage,
              hy_rk45.worst_component(mem));
        while (code == HYDAE_OK)
            code = hy_rk45.step(mem, 1.0, &t);
        hy_rk45.dense(mem, 1.0, y, NULL);
        CHECK(code == HY_TSTOP && fabs(y[1] - exp(-1.0)) < 1e-5,
              "inf in stage %ld: code %d, y(1) %.10g", stage, code, y[1]);
        hy_rk45.destroy(mem);
    }
}

int main(void)
{
    oc_check_accuracy_against_closed_forms(&hy_rk45, "RK45", RK45_GLOBAL_FACTOR);
    test_dense_output_order();
    test_dense_output_order_nonlinear();
    oc_check_lands_on_t_stop(&hy_rk45);
    oc_check_constant_rate_has_no_drift(&hy_rk45);
    oc_check_step_limits(&hy_rk45);
    test_init_refusals();
    oc_check_restart(&hy_rk45, RK45_GLOBAL_FACTOR);
    oc_check_failures_of_f(&hy_rk45);
    test_each_stage_not_finite();
    test_statistics_and_worst_component();
    oc_check_tolerance_vectors(&hy_rk45);
    oc_check_stiffness_detection(&hy_rk45, "RK45");
    return CHECK_DONE();
}
