/*
** Unit tests of ABAM (Adams-Bashforth-Moulton PECE of Shampine & Gordon,
** src/integrators/abam.c) through its descriptor: accuracy against closed
** forms at tolerances 1e-4 .. 1e-10 (also of the interpolated output), the
** order of the formulas at constant step for orders 1, 2 and 4, max_order,
** landing exactly on t_stop, h_max and h_min, the refusal of a DAE without
** rhs, restarts, failures of f, the statistics and worst_component().
** The checks every explicit method shares are in tests/ode_checks.h.
*/
#include "ode_checks.h"

extern const hy_integrator_ops hy_abam;

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
    hy_options opt = ns_options(1.0, 1.0);
    opt.h0 = ldexp(h, -10);
    opt.h_max = h;
    opt.max_order = max_order;
    double err_end;
    ns_run run = oc_integrate_closed_form(&hy_abam, &oc_forced, &opt, NULL,
                                          &err_end);
    if (run.status != HY_TSTOP || run.stats.n_err_fails != 0
        || run.stats.order_last != max_order)
        return NAN;
    return err_end;
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
    CHECK(hy_abam.init(mem, &dae, 0.0, &y0, &yp0, &opt) == HYDAE_ERR_ARG,
          "a negative max_order must be refused");
    hy_abam.destroy(mem);
}

/* The refusals of oc_check_init_refusals(), with atol = 0: the
** oscillator's y2(0) = 0 then has a zero weight. */
static void test_init_refusals(void)
{
    hy_options zero_weight = ns_options(1e-6, 0.0);
    oc_check_init_refusals(&hy_abam, &zero_weight,
                           "atol = 0 with a component at 0 must be refused "
                           "(zero weight)");
}

/* The counters on the relaxation problem of oc_check_relaxation(). */
static void test_statistics_and_worst_component(void)
{
    hy_stats st = oc_check_relaxation(&hy_abam);
    /* PECE: 2 evaluations per accepted step, 1 per rejected one (the
    ** error test comes before the second), f(t0) and the trial Euler
    ** step of the starting step algorithm. */
    CHECK(st.n_res_evals == 2 + 2 * st.n_steps + st.n_err_fails,
          "n_res_evals %ld != 2 + 2 x %ld steps + %ld rejected",
          st.n_res_evals, st.n_steps, st.n_err_fails);
    oc_check_no_jacobian(&st);
    CHECK(st.order_last >= 1 && st.order_last <= 12 && st.h_last > 0.0,
          "order_last %d, h_last %g", st.order_last, st.h_last);
}

int main(void)
{
    oc_check_accuracy_against_closed_forms(&hy_abam, "ABAM", ABAM_GLOBAL_FACTOR);
    test_order_of_the_formulas();
    test_max_order();
    oc_check_lands_on_t_stop(&hy_abam);
    oc_check_constant_rate_has_no_drift(&hy_abam);
    oc_check_step_limits(&hy_abam);
    test_init_refusals();
    oc_check_restart(&hy_abam, ABAM_GLOBAL_FACTOR);
    oc_check_failures_of_f(&hy_abam);
    test_statistics_and_worst_component();
    oc_check_tolerance_vectors(&hy_abam);
    return CHECK_DONE();
}
