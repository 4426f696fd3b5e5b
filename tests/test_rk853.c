/*
** Unit tests of RK853 (Dormand-Prince 8(5,3), src/integrators/rk853.c)
** through its descriptor: the order 8 of the method and the order 7 of
** its dense output measured on the Kepler orbit against its closed form,
** accuracy on the Pleiades against the Test Set reference, the counts of
** f per step, the stiffness detection, and the checks every explicit
** method shares (tests/ode_checks.h).
*/
#include "ode_checks.h"

extern const hy_integrator_ops hy_rk853;

#define KEPLER_E 0.5

/* Global error bound in units of the tolerance (rtol = atol = tol) on the
** closed forms. Measured largest ratio: 1.6 (dense output, y'=-y^2 at
** 1e-4). Asserted: 5, as for RK45. */
#define RK853_GLOBAL_FACTOR 5.0

/* Kepler from pericentre over [0, t_end] with n_steps fixed steps (h0 =
** h_max = t_end / n_steps, a tolerance that accepts every step): the
** largest error at t_end, and with dense_err the largest error of the
** dense output at 7 interior points of every step. */
static double kepler_fixed_steps(double t_end, int n_steps, double *dense_err)
{
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    void *mem = hy_rk853.create(4);
    hy_dae dae = { .n = 4, .rhs = ns_kepler, .ctx = &ctx };
    double y0[4], y[4], y_exact[4];
    ns_kepler_exact(KEPLER_E, 0.0, y0);
    hy_options opt = ns_options(1e3, 1e3);
    opt.h0 = t_end / n_steps;
    opt.h_max = opt.h0 * (1.0 + 1e-9);    /* rounding: no 1-ulp last step */
    double t = 0.0, t_prev = 0.0, worst_dense = 0.0;
    int code = hy_rk853.init(mem, &dae, 0.0, y0, NULL, &opt);
    while (code == HYDAE_OK) {
        code = hy_rk853.step(mem, t_end, &t);
        for (int j = 1; dense_err && j < 8 && code >= 0; j++) {
            double t_in = t_prev + (t - t_prev) * j / 8.0;
            hy_rk853.dense(mem, t_in, y, NULL);
            ns_kepler_exact(KEPLER_E, t_in, y_exact);
            for (int i = 0; i < 4; i++)
                worst_dense = fmax(worst_dense, fabs(y[i] - y_exact[i]));
        }
        t_prev = t;
    }
    hy_stats st;
    hy_rk853.get_stats(mem, &st);
    hy_rk853.dense(mem, t_end, y, NULL);
    hy_rk853.destroy(mem);
    CHECK(code == HY_TSTOP && st.n_err_fails == 0 && st.n_steps == n_steps,
          "Kepler %d fixed steps: code %d, %ld steps, %ld rejected", n_steps,
          code, st.n_steps, st.n_err_fails);
    ns_kepler_exact(KEPLER_E, t_end, y_exact);
    double worst = 0.0;
    for (int i = 0; i < 4; i++)
        worst = fmax(worst, fabs(y[i] - y_exact[i]));
    if (dense_err)
        *dense_err = worst_dense;
    return worst;
}

/* Halving h divides the global error by 2^8 (order 8): the observed
** order log2(err(h) / err(h/2)) over one period with 120 and 240 steps
** (measured 7.74; with 60 and 120 steps 6.69, not yet asymptotic; with
** 480 steps the error, 8e-14, is at roundoff). */
static void test_order_of_convergence(void)
{
    double t_end = 2.0 * NS_PI;
    double err[2];
    for (int k = 0; k < 2; k++)
        err[k] = kepler_fixed_steps(t_end, 120 << k, NULL);
    for (int k = 0; k < 1; k++) {
        double order = log2(err[k] / err[k + 1]);
        printf("RK853 Kepler e=%.1f: %d steps error %.3e, %d steps %.3e, "
               "observed order %.2f\n", KEPLER_E, 120 << k, err[k],
               120 << (k + 1), err[k + 1], order);
        CHECK(order > 7.4 && order < 8.6, "observed order %.2f, want 8", order);
    }
}

/* The dense output's error over one step of size h is O(h^8) (order 7):
** from pericentre, halving h divides it by about 2^8. */
static void test_dense_output_order(void)
{
    double dense_err[3];
    for (int k = 0; k < 3; k++) {
        double h = 0.1 / (1 << k);
        kepler_fixed_steps(h, 1, &dense_err[k]);
    }
    for (int k = 0; k < 2; k++) {
        double order = log2(dense_err[k] / dense_err[k + 1]) - 1.0;
        printf("RK853 one step of Kepler: dense error %.3e (h=%.2f), %.3e "
               "(h=%.2f): dense order %.2f\n", dense_err[k], 0.1 / (1 << k),
               dense_err[k + 1], 0.1 / (2 << k), order);
        CHECK(order > 6.5 && order < 7.7, "dense output order %.2f, want 7",
              order);
    }
}

/* The Pleiades (HNW I, II.10) against the Test Set's reference
** (reference.json, "pleiades"): scd grows by about 2 digits per 2 decades
** of tolerance. Measured scd: 3.12 (1e-6), 5.08 (1e-8), 7.16 (1e-10),
** 9.46 (1e-12), with 1375 .. 5184 evaluations of f (RK45 needs 5330 for
** scd 7.49 at 1e-10, test_nonstiff.c); asserted 0.5 below. */
static void test_pleiades(void)
{
    double y_ref[28], y0[28];
    ns_pleiades_reference(y_ref);
    ns_pleiades_initial(y0);
    static const double tols[4] = { 1e-6, 1e-8, 1e-10, 1e-12 };
    static const double scd_floor[4] = { 2.6, 4.5, 6.6, 8.9 };
    for (int k = 0; k < 4; k++) {
        ns_ctx ctx;
        ns_ctx_init(&ctx);
        hy_options opt = ns_options(tols[k], tols[k]);
        ns_run run = ns_integrate(&hy_rk853, 28, ns_pleiades, &ctx, 0.0, y0,
                                  3.0, &opt, 10000000, NULL, NULL);
        double rel_err = 0.0;
        for (int i = 0; i < 28; i++)
            rel_err = fmax(rel_err, fabs(run.y[i] - y_ref[i]) / fabs(y_ref[i]));
        double scd = -log10(rel_err);
        printf("RK853 Pleiades tol %.0e: scd %.2f, %ld steps, %ld rejected, "
               "%ld f\n", tols[k], scd, run.stats.n_steps,
               run.stats.n_err_fails, run.stats.n_res_evals);
        CHECK(run.status == HY_TSTOP && scd >= scd_floor[k],
              "Pleiades tol %g: status %d, scd %.2f < %.1f", tols[k],
              run.status, scd, scd_floor[k]);
    }
}

/* The counters on the relaxation problem of oc_check_relaxation(): 11
** evaluations per attempt, 1 more per accepted step (FSAL) and 3 for its
** dense stages, f(t0) and the starting step's trial. */
static void test_statistics(void)
{
    hy_stats st = oc_check_relaxation(&hy_rk853);
    CHECK(st.n_res_evals
              == 2 + 11 * (st.n_steps + st.n_err_fails) + 4 * st.n_steps,
          "n_res_evals %ld != 2 + 11 (%ld steps + %ld rejected) + 4 steps",
          st.n_res_evals, st.n_steps, st.n_err_fails);
    oc_check_no_jacobian(&st);
    CHECK(st.order_last == 8 && st.h_last > 0.0, "order_last %d, h_last %g",
          st.order_last, st.h_last);
}

/* The oscillator to t = 1 at tol 1e-8, with opt->no_interpolation or
** without; *mem_out: the memory after the run (the caller destroys it). */
static ns_run oscillator_run(int no_interpolation, void **mem_out)
{
    ns_ctx ctx;
    ns_ctx_init(&ctx);
    hy_options opt = ns_options(1e-8, 1e-8);
    opt.no_interpolation = no_interpolation;
    double y0[2] = { 1.0, 0.0 }, yp0[2] = { 0.0, 0.0 };
    hy_dae dae = { .n = 2, .rhs = ns_oscillator, .ctx = &ctx };
    void *mem = hy_rk853.create(2);
    ns_run run;
    memset(&run, 0, sizeof run);
    run.status = hy_rk853.init(mem, &dae, 0.0, y0, yp0, &opt);
    double t = 0.0;
    while (run.status == HYDAE_OK)
        run.status = hy_rk853.step(mem, 1.0, &t);
    hy_rk853.dense(mem, 1.0, run.y, NULL);
    hy_rk853.get_stats(mem, &run.stats);
    *mem_out = mem;
    return run;
}

/* Without interpolation the dense stages are skipped (3 evaluations fewer
** per step) and nothing else changes: the same steps and the same y to
** the bit; dense() inside the last step then refuses (HYDAE_ERR_ARG), it
** does not guess. */
static void test_no_interpolation(void)
{
    void *mem_dense, *mem_plain;
    ns_run dense = oscillator_run(0, &mem_dense);
    ns_run plain = oscillator_run(1, &mem_plain);
    CHECK(dense.status == HY_TSTOP && plain.status == HY_TSTOP,
          "status %d, %d", dense.status, plain.status);
    CHECK(plain.stats.n_steps == dense.stats.n_steps
              && plain.stats.n_err_fails == dense.stats.n_err_fails,
          "steps %ld/%ld, rejected %ld/%ld", plain.stats.n_steps,
          dense.stats.n_steps, plain.stats.n_err_fails,
          dense.stats.n_err_fails);
    CHECK(plain.stats.n_res_evals
              == dense.stats.n_res_evals - 3 * dense.stats.n_steps,
          "evaluations %ld without, %ld with interpolation (%ld steps)",
          plain.stats.n_res_evals, dense.stats.n_res_evals,
          dense.stats.n_steps);
    CHECK(memcmp(plain.y, dense.y, 2 * sizeof(double)) == 0,
          "y(1) differs: %.17g %.17g", plain.y[0], dense.y[0]);
    double t_inside = 1.0 - 0.5 * dense.stats.h_last, y[2];
    CHECK(hy_rk853.dense(mem_dense, t_inside, y, NULL) == HYDAE_OK,
          "dense inside the last step");
    CHECK_NEAR(y[0], cos(t_inside), 1e-7, "dense y0 inside the last step");
    CHECK(hy_rk853.dense(mem_plain, t_inside, y, NULL) == HYDAE_ERR_ARG,
          "no_interpolation: dense inside the last step must refuse");
    hy_rk853.destroy(mem_dense);
    hy_rk853.destroy(mem_plain);
}

static void test_init_refusals(void)
{
    hy_options zero_tol = ns_options(0.0, 0.0);
    oc_check_init_refusals(&hy_rk853, &zero_tol,
                           "rtol = atol = 0 must be refused");
}

int main(void)
{
    test_order_of_convergence();
    test_dense_output_order();
    test_pleiades();
    oc_check_accuracy_against_closed_forms(&hy_rk853, "RK853",
                                           RK853_GLOBAL_FACTOR);
    oc_check_lands_on_t_stop(&hy_rk853);
    oc_check_constant_rate_has_no_drift(&hy_rk853);
    oc_check_step_limits(&hy_rk853);
    test_init_refusals();
    oc_check_restart(&hy_rk853, RK853_GLOBAL_FACTOR);
    oc_check_failures_of_f(&hy_rk853);
    test_statistics();
    test_no_interpolation();
    oc_check_tolerance_vectors(&hy_rk853);
    oc_check_stiffness_detection(&hy_rk853, "RK853");
    return CHECK_DONE();
}
