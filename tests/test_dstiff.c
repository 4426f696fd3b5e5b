/*
** Tests of DSTIFF (src/integrators/dstiff.c), the DASSL-style BDF
** integrator, driven directly through the hy_dstiff descriptor: problems
** with closed-form solutions over a range of tolerances, the Robertson
** problem against the Test Set's reference values, and the behaviour of
** step()/dense() at t_stop, h_max and failing residuals.
*/
#include "integrators/integrator.h"

#include "check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_N 3
#define STEP_LIMIT 200000L

static const hy_integrator_ops *const ops = &hy_dstiff;

/* ------------------------------------------------------------------------
** Problems
*/

/* 1. Dahlquist y' = lambda y, as F = y' - lambda y; y = y0 e^(lambda t). */
typedef struct dahlquist_ctx {
    double lambda;
} dahlquist_ctx;

static int dahlquist_res(double t, const double *y, const double *yp,
                         double *res, void *ctx)
{
    (void)t;
    const dahlquist_ctx *c = ctx;
    res[0] = yp[0] - c->lambda * y[0];
    return 0;
}

/* 2. Harmonic oscillator x'' = -omega^2 x as y0' = y1, y1' = -omega^2 y0.
** With x(0) = 1, x'(0) = 0: x = cos(omega t), x' = -omega sin(omega t). */
#define OSC_OMEGA 2.0

static int oscillator_res(double t, const double *y, const double *yp,
                          double *res, void *ctx)
{
    (void)t;
    (void)ctx;
    res[0] = yp[0] - y[1];
    res[1] = yp[1] + OSC_OMEGA * OSC_OMEGA * y[0];
    return 0;
}

static void oscillator_exact(double t, double *y)
{
    y[0] = cos(OSC_OMEGA * t);
    y[1] = -OSC_OMEGA * sin(OSC_OMEGA * t);
}

/* 3. Semi-explicit index-1 DAE
**      y1' = y2,            F1 = y1' - y2
**      0   = y2 + y1 - cos t, F2 = y2 + y1 - cos t   (y2' absent: algebraic)
** Eliminating y2 = cos t - y1 gives y1' + y1 = cos t, whose solutions are
** y1 = (cos t + sin t)/2 + C e^(-t). With y1(0) = 3/2, C = 1:
**      y1 = (cos t + sin t)/2 + e^(-t),
**      y2 = y1' = (cos t - sin t)/2 - e^(-t).
** Check: y2 + y1 = cos t for all t, and y1' = (-sin t + cos t)/2 - e^(-t)
** = y2. Consistent initial values: y(0) = (3/2, -1/2), y'(0) =
** (y2(0), y2'(0)) = (-1/2, (-sin 0 - cos 0)/2 + e^0) = (-1/2, 1/2). */
static int dae_res(double t, const double *y, const double *yp, double *res,
                   void *ctx)
{
    (void)ctx;
    res[0] = yp[0] - y[1];
    res[1] = y[1] + y[0] - cos(t);
    return 0;
}

static void dae_exact(double t, double *y)
{
    y[0] = 0.5 * (cos(t) + sin(t)) + exp(-t);
    y[1] = 0.5 * (cos(t) - sin(t)) - exp(-t);
}

static const unsigned char dae_is_algebraic[2] = {0, 1};

/* 4. Robertson (Test Set for IVP Solvers, Mazzia & Magherini 2008, sec.
** II.10) as F = y' - f(y). */
static int rober_res(double t, const double *y, const double *yp,
                     double *res, void *ctx)
{
    (void)t;
    (void)ctx;
    double r1 = 0.04 * y[0], r2 = 1e4 * y[1] * y[2], r3 = 3e7 * y[1] * y[1];
    res[0] = yp[0] - (-r1 + r2);
    res[1] = yp[1] - (r1 - r2 - r3);
    res[2] = yp[2] - r3;
    return 0;
}

/* dF/dy + cj dF/dy' = cj I - df/dy, column-major. */
static int rober_jac(double t, double cj, const double *y, const double *yp,
                     double *jac, void *ctx)
{
    (void)t;
    (void)yp;
    (void)ctx;
#define J_(i, j) jac[(i) + 3 * (j)]
    J_(0, 0) = cj + 0.04;
    J_(1, 0) = -0.04;
    J_(2, 0) = 0.0;
    J_(0, 1) = -1e4 * y[2];
    J_(1, 1) = cj + 1e4 * y[2] + 6e7 * y[1];
    J_(2, 1) = -6e7 * y[1];
    J_(0, 2) = -1e4 * y[1];
    J_(1, 2) = 1e4 * y[1];
    J_(2, 2) = cj;
#undef J_
    return 0;
}

/* Reference solution at t = 1e11: /work/shared/testset/reference.json,
** key "rober", yref; computed with RADAU (uround 1.01e-19, rtol = atol =
** h0 = 1.1e-18), source rforge/bvpsolve:pkg/deTestSet/R/ex_reference.R
** @78c711b7fff5 (report 2008, Table II.10.3). */
static const double rober_yref[3] = {
    2.083340149701255e-08, 8.333360770334713e-14, 0.999999979166505};

/* ------------------------------------------------------------------------
** Driver
*/

static hy_options default_options(double rtol, double atol)
{
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol = rtol;
    opt.atol = atol;
    return opt;
}

typedef struct run_result {
    int rc;             /* last return code of step() (or init) */
    int reached;        /* 1 if t_end was reached with HY_TSTOP */
    double t;
    double y[MAX_N];
    hy_stats stats;
} run_result;

/* Integrate from t0 to t_end one step at a time, y(t_end) by dense(). */
static run_result integrate(const hy_dae *dae, double t0, const double *y0,
                           const double *yp0, double t_end,
                           const hy_options *opt)
{
    run_result r;
    memset(&r, 0, sizeof r);
    void *mem = ops->create(dae->n);
    if (mem == NULL) {
        r.rc = HYDAE_ERR_NOMEM;
        return r;
    }
    r.rc = ops->init(mem, dae, t0, y0, yp0, opt);
    r.t = t0;
    for (long i = 0; r.rc == HYDAE_OK && r.t != t_end && i < STEP_LIMIT; i++) {
        double t_before = r.t;
        r.rc = ops->step(mem, t_end, &r.t);
        if (r.rc >= 0 && !(r.t > t_before && r.t <= t_end)) {
            r.rc = HYDAE_ERR_ARG;  /* no progress or overshoot: a test failure */
            break;
        }
    }
    r.reached = r.rc == HY_TSTOP && r.t == t_end;
    if (r.reached && ops->dense(mem, t_end, r.y, NULL) != HYDAE_OK)
        r.reached = 0;
    ops->get_stats(mem, &r.stats);
    ops->destroy(mem);
    return r;
}

/* max_i |y_i - exact_i| and whether every component meets
** |y_i - exact_i| <= 10 rtol max(1, |exact_i|). */
static double max_abs_error(int n, const double *y, const double *exact,
                            double rtol, int *within)
{
    double worst = 0.0;
    *within = 1;
    for (int i = 0; i < n; i++) {
        double err = fabs(y[i] - exact[i]);
        if (!(err <= 10.0 * rtol * fmax(1.0, fabs(exact[i]))))
            *within = 0;
        if (!(err <= worst))
            worst = err;
    }
    return worst;
}

#define N_TOLS 7
static const double tolerances[N_TOLS] = {1e-3, 1e-4, 1e-5, 1e-6,
                                          1e-7, 1e-8, 1e-9};

typedef void (*exact_fn)(double t, double *y, const void *ctx);

/* Run one closed-form problem at every tolerance with atol = rtol, check
** the error bound and that the error falls as the tolerance falls. The
** bound is |y_i - exact_i| <= 10 rtol max(1, |exact_i|), or, when
** per_step_factor > 0, |y_i - exact_i| <= per_step_factor N rtol with N
** the number of accepted steps (a sum-of-local-errors bound). */
static void tolerance_sweep(const char *name, const hy_dae *dae, double t0,
                            const double *y0, const double *yp0,
                            double t_end, const double *exact,
                            int suppress_alg, double per_step_factor)
{
    double errors[N_TOLS];
    printf("%-28s", name);
    for (int k = 0; k < N_TOLS; k++) {
        hy_options opt = default_options(tolerances[k], tolerances[k]);
        opt.suppress_alg = suppress_alg;
        run_result r = integrate(dae, t0, y0, yp0, t_end, &opt);
        CHECK(r.reached, "%s rtol %g: t_end not reached (rc %d, t %g)", name,
              tolerances[k], r.rc, r.t);
        int within = 0;
        errors[k] = max_abs_error(dae->n, r.y, exact, tolerances[k], &within);
        if (per_step_factor > 0.0) {
            double bound = per_step_factor * (double)r.stats.n_steps
                           * tolerances[k];
            CHECK(errors[k] <= bound, "%s rtol %g: error %.3g above %.3g "
                  "(%ld steps)", name, tolerances[k], errors[k], bound,
                  r.stats.n_steps);
        } else {
            CHECK(within, "%s rtol %g: error %.3g above 10 rtol", name,
                  tolerances[k], errors[k]);
        }
        printf(" %8.1e", errors[k]);
    }
    printf("\n");
    /* 1e-9 < 1e-5 < 1e-3 (indices 6, 2, 0). */
    CHECK(errors[6] < errors[2] && errors[2] < errors[0],
          "%s: error not decreasing with the tolerance: %.3g %.3g %.3g", name,
          errors[0], errors[2], errors[6]);
}

/* ------------------------------------------------------------------------
** Tests 1-3: closed forms
*/

static void test_closed_forms(void)
{
    printf("max |error| at t_end for rtol = atol =");
    for (int k = 0; k < N_TOLS; k++)
        printf(" %8.0e", tolerances[k]);
    printf("\n");

    /* 1. Dahlquist. */
    static dahlquist_ctx nonstiff = {-1.0}, stiff = {-1000.0};
    hy_dae dahl = {1, dahlquist_res, NULL, &nonstiff, NULL, NULL, NULL, NULL};
    double y0 = 1.0, yp0 = -1.0;
    double exact = exp(-1.0);
    tolerance_sweep("dahlquist l=-1 [0,1]", &dahl, 0.0, &y0, &yp0, 1.0,
                    &exact, 0, 0.0);
    exact = exp(-10.0);
    tolerance_sweep("dahlquist l=-1 [0,10]", &dahl, 0.0, &y0, &yp0, 10.0,
                    &exact, 0, 0.0);
    dahl.ctx = &stiff;
    yp0 = -1000.0;
    exact = exp(-1000.0);   /* underflows to 0: fine, the bound is absolute */
    tolerance_sweep("dahlquist l=-1000 [0,1]", &dahl, 0.0, &y0, &yp0, 1.0,
                    &exact, 0, 0.0);
    /* The stiff transient itself: y(0.005) = e^-5. */
    exact = exp(-5.0);
    tolerance_sweep("dahlquist l=-1000 [0,.005]", &dahl, 0.0, &y0, &yp0,
                    0.005, &exact, 0, 0.0);

    /* 2. Harmonic oscillator over 6.4 periods (omega = 2, t = 20).
    ** The global error of any BDF code on an undamped oscillator grows
    ** with the number of steps (IDA 6.4 gives the very same errors here:
    ** 3.1e-2 at rtol 1e-3, 1.5e-6 at 1e-9), so 10 rtol cannot hold over
    ** several periods. The bound used is the sum of the local errors: a
    ** step's local error is held to ||le||_wrms <= 1, i.e. |le_i| <=
    ** sqrt(2) (rtol |y_i| + atol) with |x| <= 1, |x'| <= omega; in the
    ** energy norm sqrt(x^2 + (x'/omega)^2) that is at most sqrt(2) rtol
    ** sqrt(2^2 + ((omega+1)/omega)^2) = 3.54 rtol for omega = 2; the flow is
    ** a rotation in that norm (no amplification), so after N steps
    ** |err_x| <= 3.54 N rtol and |err_x'| <= omega 3.54 N rtol = 7.07 N rtol.
    */
    hy_dae osc = {2, oscillator_res, NULL, NULL, NULL, NULL, NULL, NULL};
    double osc_y0[2], osc_yp0[2] = {0.0, -OSC_OMEGA * OSC_OMEGA};
    oscillator_exact(0.0, osc_y0);
    double osc_exact[2];
    oscillator_exact(20.0, osc_exact);
    tolerance_sweep("oscillator w=2 [0,20]", &osc, 0.0, osc_y0, osc_yp0,
                    20.0, osc_exact, 0, 7.07);
    /* The same oscillator over a short horizon (omega t = 0.5, a twelfth of
    ** a period, a few dozen steps): there the global error stays within
    ** 10 rtol at every tolerance, the criterion of the engine's acceptance
    ** list. Over several periods it cannot (above): the error per step is
    ** controlled, and on an undamped oscillator it adds up. */
    double osc_exact_short[2];
    oscillator_exact(0.25, osc_exact_short);
    tolerance_sweep("oscillator w=2 [0,0.25]", &osc, 0.0, osc_y0, osc_yp0,
                    0.25, osc_exact_short, 0, 0.0);

    /* 3. Index-1 DAE, with and without the algebraic component in the
    ** error test. */
    hy_dae dae = {2, dae_res, NULL, NULL, dae_is_algebraic, NULL, NULL, NULL};
    double dae_y0[2], dae_yp0[2] = {-0.5, 0.5}, dae_exact_end[2];
    dae_exact(0.0, dae_y0);
    dae_exact(10.0, dae_exact_end);
    tolerance_sweep("index-1 DAE [0,10]", &dae, 0.0, dae_y0, dae_yp0, 10.0,
                    dae_exact_end, 0, 0.0);
    tolerance_sweep("index-1 DAE, suppress_alg", &dae, 0.0, dae_y0, dae_yp0,
                    10.0, dae_exact_end, 1, 0.0);
}

/* ------------------------------------------------------------------------
** Test 4: Robertson
*/

static void test_robertson(void)
{
    const double y0[3] = {1.0, 0.0, 0.0};
    const double yp0[3] = {-0.04, 0.04, 0.0};
    hy_options opt = default_options(1e-10, 1e-16);
    for (int analytic = 0; analytic <= 1; analytic++) {
        hy_dae dae = {3, rober_res, analytic ? rober_jac : NULL, NULL, NULL, NULL, NULL, NULL};
        run_result r = integrate(&dae, 0.0, y0, yp0, 1e11, &opt);
        CHECK(r.reached, "Robertson (%s Jacobian): t_end not reached, rc %d "
              "at t %g", analytic ? "analytic" : "FD", r.rc, r.t);
        double max_rel = 0.0;
        for (int i = 0; i < 3; i++) {
            double rel = fabs(r.y[i] - rober_yref[i]) / fabs(rober_yref[i]);
            if (!(rel <= max_rel))
                max_rel = rel;
        }
        double scd = -log10(max_rel);
        printf("Robertson rtol 1e-10 atol 1e-16 %-8s Jacobian: scd %.2f, "
               "steps %ld, res evals %ld, Jacobians %ld, LU %ld, newton %ld, "
               "err fails %ld, conv fails %ld\n",
               analytic ? "analytic" : "FD", scd, r.stats.n_steps,
               r.stats.n_res_evals, r.stats.n_jac_evals, r.stats.n_lu,
               r.stats.n_newton_iters, r.stats.n_err_fails,
               r.stats.n_conv_fails);
        CHECK(scd >= 7.0, "Robertson (%s Jacobian): scd %.2f < 7",
              analytic ? "analytic" : "FD", scd);
        CHECK(r.stats.n_jac_evals > 0 && r.stats.n_lu == r.stats.n_jac_evals,
              "Robertson: %ld Jacobians but %ld LU factorisations",
              r.stats.n_jac_evals, r.stats.n_lu);
        /* FD Jacobians cost n residuals each, so the FD run must count
        ** more residuals than Newton iterations + 3 per Jacobian. */
        if (!analytic)
            CHECK(r.stats.n_res_evals
                      >= r.stats.n_newton_iters + 3 * r.stats.n_jac_evals,
                  "Robertson FD: residual count %ld misses FD evaluations",
                  r.stats.n_res_evals);
        else
            CHECK(r.stats.n_res_evals
                      < r.stats.n_newton_iters + 3 * r.stats.n_jac_evals,
                  "Robertson analytic: %ld residuals, as if FD were used",
                  r.stats.n_res_evals);
    }
}

/* ------------------------------------------------------------------------
** Test 5: behaviour
*/

/* F = y' + y, failing from t_fail on: mode 0 returns -1, mode 1 writes
** NaN, mode 2 returns +1 exactly once (then behaves), mode 3 adds a jump
** of 1e6 to y'. */
typedef struct failing_ctx {
    double t_fail;
    int mode;
    int n_failures;
} failing_ctx;

static int failing_res(double t, const double *y, const double *yp,
                       double *res, void *ctx)
{
    failing_ctx *c = ctx;
    res[0] = yp[0] + y[0];
    if (t >= c->t_fail) {
        if (c->mode == 0) {
            c->n_failures++;
            return -1;
        }
        if (c->mode == 1) {
            c->n_failures++;
            res[0] = NAN;
            return 0;
        }
        if (c->mode == 2 && c->n_failures == 0) {
            c->n_failures++;
            return 1;
        }
        if (c->mode == 3)
            res[0] -= 1e6;  /* y' jumps from -y to -y + 1e6 */
    }
    return 0;
}

static void test_tstop_landing(void)
{
    hy_dae osc = {2, oscillator_res, NULL, NULL, NULL, NULL, NULL, NULL};
    double y0[2], yp0[2] = {0.0, -OSC_OMEGA * OSC_OMEGA};
    oscillator_exact(0.0, y0);
    hy_options opt = default_options(1e-6, 1e-6);
    void *mem = ops->create(2);
    CHECK(mem != NULL, "create failed");
    if (mem == NULL)
        return;
    CHECK(ops->init(mem, &osc, 0.0, y0, yp0, &opt) == HYDAE_OK, "init failed");

    /* A sequence of stops, including ones that change between calls, one
    ** just above the current t and non-representable decimals. */
    const double stops[] = {0.1, 0.3, 0.7, 1.0 / 3.0 + 0.4, 2.9, 2.9 + 1e-12,
                            3.0, 5.5, 7.123456789};
    int n_stops = (int)(sizeof stops / sizeof stops[0]);
    double t = 0.0;
    int all_landed = 1, never_past = 1, ok_below = 1;
    long n_calls = 0;
    for (int s = 0; s < n_stops; s++) {
        int rc = HYDAE_OK;
        while (rc == HYDAE_OK && n_calls < STEP_LIMIT) {
            double t_before = t;
            rc = ops->step(mem, stops[s], &t);
            n_calls++;
            if (t > stops[s] || t < t_before)
                never_past = 0;
            if (rc == HYDAE_OK && !(t < stops[s]))
                ok_below = 0;
            /* Change the target in the middle of the first interval. */
            if (s == 0 && rc == HYDAE_OK && t > 0.05)
                break;
        }
        if (s == 0 && rc == HYDAE_OK) {
            /* Was interrupted: now go to a different t_stop. */
            rc = HYDAE_OK;
            while (rc == HYDAE_OK && n_calls < STEP_LIMIT) {
                rc = ops->step(mem, 0.2, &t);
                n_calls++;
                if (t > 0.2)
                    never_past = 0;
            }
            CHECK(rc == HY_TSTOP && t == 0.2, "changed t_stop 0.2: rc %d t %.17g",
                  rc, t);
            rc = HYDAE_OK;
            while (rc == HYDAE_OK && n_calls < STEP_LIMIT) {
                rc = ops->step(mem, stops[s] + 0.15, &t);
                n_calls++;
            }
            CHECK(rc == HY_TSTOP && t == stops[s] + 0.15,
                  "changed t_stop %.17g: rc %d t %.17g", stops[s] + 0.15, rc,
                  t);
            continue;
        }
        if (!(rc == HY_TSTOP && t == stops[s]))
            all_landed = 0;
        double y[2], exact[2];
        CHECK(ops->dense(mem, t, y, NULL) == HYDAE_OK, "dense at t_stop");
        oscillator_exact(t, exact);
        CHECK_NEAR(y[0], exact[0], 1e-4, "x at t_stop");
    }
    CHECK(all_landed, "some step() did not return HY_TSTOP exactly at t_stop");
    CHECK(never_past, "step() passed t_stop");
    CHECK(ok_below, "HYDAE_OK returned at or past t_stop");
    /* t_stop equal to the current t: nothing to do, HY_TSTOP. */
    double t_same = t;
    CHECK(ops->step(mem, t_same, &t) == HY_TSTOP && t == t_same,
          "t_stop == t should give HY_TSTOP");
    /* t_stop behind t is an argument error. */
    CHECK(ops->step(mem, t_same - 1.0, &t) == HYDAE_ERR_ARG,
          "t_stop < t should give HYDAE_ERR_ARG");
    ops->destroy(mem);
}

/* Many stops at irregular spacing: t + (t_stop - t) differs from t_stop in
** floating point for some of them, so landing must be by assignment. */
static void test_many_stops(void)
{
    hy_dae osc = {2, oscillator_res, NULL, NULL, NULL, NULL, NULL, NULL};
    double y0[2], yp0[2] = {0.0, -OSC_OMEGA * OSC_OMEGA};
    oscillator_exact(0.0, y0);
    hy_options opt = default_options(1e-8, 1e-8);
    void *mem = ops->create(2);
    CHECK(mem != NULL, "create failed");
    if (mem == NULL)
        return;
    CHECK(ops->init(mem, &osc, 0.0, y0, yp0, &opt) == HYDAE_OK, "init failed");
    double t = 0.0;
    int n_exact = 0, n_stops = 300, rc = HYDAE_OK;
    for (int k = 1; k <= n_stops && rc >= 0; k++) {
        double t_stop = 0.031 * k * (1.0 + 1e-3 * sqrt((double)k));
        rc = HYDAE_OK;
        for (long i = 0; rc == HYDAE_OK && i < STEP_LIMIT; i++)
            rc = ops->step(mem, t_stop, &t);
        if (rc == HY_TSTOP && t == t_stop)
            n_exact++;
    }
    CHECK(n_exact == n_stops, "%d of %d stops reached exactly (rc %d)",
          n_exact, n_stops, rc);
    double y[2], exact[2];
    CHECK(ops->dense(mem, t, y, NULL) == HYDAE_OK, "dense at the last stop");
    oscillator_exact(t, exact);
    CHECK_NEAR(y[0], exact[0], 1e-5, "x after 300 stops");
    ops->destroy(mem);
}

/* The automatic first step (HNW II.4 with DASSL's bound h ||y'0|| <= 0.5,
** see dstiff.c), opt->h0, and h_min. */
static void test_step_size_rules(void)
{
    static dahlquist_ctx nonstiff = {-1.0};
    hy_dae dahl = {1, dahlquist_res, NULL, &nonstiff, NULL, NULL, NULL, NULL};
    double y0 = 1.0, yp0 = -1.0, t = 0.0;
    hy_options opt = default_options(1e-6, 1e-6);
    void *mem = ops->create(1);
    CHECK(mem != NULL, "create failed");
    if (mem == NULL)
        return;
    /* w = 1 / (1e-6 * 1 + 1e-6) = 5e5: HNW's h1 = sqrt(0.01 / 5e5) =
    ** 1.4e-4, bounded by 0.5 / ||y'0||_w = 0.5 / 5e5 = 1e-6. */
    CHECK(ops->init(mem, &dahl, 0.0, &y0, &yp0, &opt) == HYDAE_OK, "init");
    CHECK(ops->step(mem, 1.0, &t) == HYDAE_OK, "first step");
    hy_stats st;
    ops->get_stats(mem, &st);
    CHECK_NEAR(st.h_last, 1e-6, 1e-15, "automatic first step");
    CHECK(st.order_last == 1, "first step at order %d", st.order_last);
    /* With a loose tolerance HNW's estimate applies, whatever the span:
    ** w = 1 / (0.1 + 0.1) = 5, d0 = d1 = 5, h0 = 0.01 d0 / d1 = 0.01; the
    ** backward Euler trial y1 = 1 / 1.01 has E = y1 - 1 + 0.01 = 9.9e-5,
    ** d2 = 5 E / h0^2 = 4.95; h1 = sqrt(0.01 / max(d1, d2)) = sqrt(0.002)
    ** = 0.0447 (below 100 h0 = 1 and the bound 0.5 / 5 = 0.1). DASSL took
    ** 0.001 |t_stop - t0| = 0.01 with t_stop = 10, and 1 with 1000. */
    hy_options loose = default_options(0.1, 0.1);
    for (int span = 10; span <= 1000; span *= 100) {
        CHECK(ops->init(mem, &dahl, 0.0, &y0, &yp0, &loose) == HYDAE_OK, "init");
        t = 0.0;
        CHECK(ops->step(mem, span, &t) == HYDAE_OK, "first step, loose");
        ops->get_stats(mem, &st);
        CHECK(fabs(st.h_last - sqrt(0.01 / 5.0)) <= 1e-6, "first step over [0, %d]: %.17g", span,
              st.h_last);
    }
    /* A given h0 is used as is. */
    opt.h0 = 2.5e-4;
    CHECK(ops->init(mem, &dahl, 0.0, &y0, &yp0, &opt) == HYDAE_OK, "init");
    t = 0.0;
    CHECK(ops->step(mem, 1.0, &t) == HYDAE_OK, "first step with h0");
    ops->get_stats(mem, &st);
    CHECK(st.h_last == 2.5e-4 && t == 2.5e-4, "h0 2.5e-4: h %g, t %g",
          st.h_last, t);

    /* y' = 0 (any step is accepted), given h0 beyond t_stop. From 0.2 to
    ** 0.9, 0.2 + (0.9 - 0.2) != 0.9 in binary64: t_new must still be 0.9. */
    static dahlquist_ctx constant = {0.0};
    hy_dae flat = {1, dahlquist_res, NULL, &constant, NULL, NULL, NULL, NULL};
    double yp_flat = 0.0;
    opt.h0 = 1.0;
    CHECK(ops->init(mem, &flat, 0.2, &y0, &yp_flat, &opt) == HYDAE_OK, "init");
    CHECK(ops->step(mem, 0.9, &t) == HY_TSTOP && t == 0.9,
          "landing from 0.2 on 0.9: t %.17g", t);
    /* A step that would stop 5e-4 short of t_stop (< 1e-3 h) is stretched
    ** to land on it instead of leaving a sliver. */
    opt.h0 = 0.9995;
    CHECK(ops->init(mem, &flat, 0.0, &y0, &yp_flat, &opt) == HYDAE_OK, "init");
    int rc_sliver = ops->step(mem, 1.0, &t);
    CHECK(rc_sliver == HY_TSTOP && t == 1.0,
          "step 0.9995 towards 1: rc %d t %.17g", rc_sliver, t);
    ops->destroy(mem);

    /* A jump of y' by 1e6 at t = 0.5 cannot be crossed with steps of at
    ** least h_min = 1e-3: the step size would have to fall below h_min. */
    mem = ops->create(1);
    CHECK(mem != NULL, "create failed");
    if (mem == NULL)
        return;
    failing_ctx jump = {0.5, 3, 0};
    hy_dae jump_dae = {1, failing_res, NULL, &jump, NULL, NULL, NULL, NULL};
    hy_options hmin_opt = default_options(1e-6, 1e-6);
    hmin_opt.h_min = 1e-3;
    CHECK(ops->init(mem, &jump_dae, 0.0, &y0, &yp0, &hmin_opt) == HYDAE_OK,
          "init");
    t = 0.0;
    int rc = HYDAE_OK;
    for (long i = 0; rc == HYDAE_OK && i < STEP_LIMIT; i++)
        rc = ops->step(mem, 1.0, &t);
    CHECK(rc == HYDAE_ERR_HMIN || rc == HYDAE_ERR_ERRTEST,
          "jump with h_min: rc %d, want HYDAE_ERR_HMIN or HYDAE_ERR_ERRTEST", rc);
    CHECK(t < 0.5, "jump with h_min: stopped at %g, after the jump", t);
    ops->get_stats(mem, &st);
    CHECK(st.h_last >= 1e-3 * (1.0 - 1e-12), "a step of %g < h_min",
          st.h_last);
    ops->destroy(mem);
}

static void test_dense_output(void)
{
    hy_dae osc = {2, oscillator_res, NULL, NULL, NULL, NULL, NULL, NULL};
    double y0[2], yp0[2] = {0.0, -OSC_OMEGA * OSC_OMEGA};
    oscillator_exact(0.0, y0);
    const double rtol = 1e-7;
    hy_options opt = default_options(rtol, rtol);
    void *mem = ops->create(2);
    CHECK(mem != NULL, "create failed");
    if (mem == NULL)
        return;
    CHECK(ops->init(mem, &osc, 0.0, y0, yp0, &opt) == HYDAE_OK, "init failed");
    /* Errors against the closed form at the step ends (the solution
    ** itself) and at interior points (the interpolant), for y and y'. */
    double t = 0.0, t_end = 3.0;
    double end_err_y = 0.0, end_err_yp = 0.0, mid_err_y = 0.0,
           mid_err_yp = 0.0, worst_yp_excess = 0.0;
    int rc = HYDAE_OK, dense_ok = 1;
    long n_steps = 0;
    while (rc == HYDAE_OK && n_steps < STEP_LIMIT) {
        double t_before = t;
        rc = ops->step(mem, t_end, &t);
        n_steps++;
        if (rc < 0)
            break;
        double step_mid_err_yp = 0.0;
        for (int q = 1; q <= 4; q++) {
            double t_eval = t_before + 0.25 * q * (t - t_before);
            double y[2], yp[2], exact[2];
            if (ops->dense(mem, t_eval, y, yp) != HYDAE_OK) {
                dense_ok = 0;
                continue;
            }
            oscillator_exact(t_eval, exact);
            /* (x, x')' = (x', -omega^2 x). */
            double exact_yp[2] = {exact[1], -OSC_OMEGA * OSC_OMEGA * exact[0]};
            for (int i = 0; i < 2; i++) {
                double err_y = fabs(y[i] - exact[i]);
                double err_yp = fabs(yp[i] - exact_yp[i]);
                if (q == 4) {
                    end_err_y = fmax(end_err_y, err_y);
                    end_err_yp = fmax(end_err_yp, err_yp);
                } else {
                    mid_err_y = fmax(mid_err_y, err_y);
                    step_mid_err_yp = fmax(step_mid_err_yp, err_yp);
                }
            }
        }
        /* y' of the interpolant is one order lower than y: inside a step of
        ** size h it may add about (local error) / h to the error y' has at
        ** the step ends; measure the excess over 10 rtol (1 + omega) / h. */
        mid_err_yp = fmax(mid_err_yp, step_mid_err_yp);
        double allowed_yp =
            end_err_yp + 10.0 * rtol * (1.0 + OSC_OMEGA) / (t - t_before);
        worst_yp_excess = fmax(worst_yp_excess, step_mid_err_yp / allowed_yp);
    }
    CHECK(rc == HY_TSTOP && t == t_end, "oscillator for dense: rc %d", rc);
    CHECK(dense_ok, "dense() refused a point inside the last step");
    printf("dense output, oscillator w=2 [0,3] rtol %g: max |y err| at step "
           "ends %.2e, inside steps %.2e; |y' err| %.2e, %.2e\n", rtol,
           end_err_y, mid_err_y, end_err_yp, mid_err_yp);
    /* Inside a step the interpolant may add about one local error (a
    ** tolerance) to the error the solution already carries. */
    CHECK(mid_err_y <= end_err_y + 10.0 * rtol * OSC_OMEGA,
          "dense y error %.3g inside steps vs %.3g at step ends", mid_err_y,
          end_err_y);
    CHECK(worst_yp_excess <= 1.0,
          "dense y' error inside a step %.3g times the allowance",
          worst_yp_excess);
    /* And against the closed form directly (one period, ~100 steps). */
    CHECK(mid_err_y <= 1e-5 && mid_err_yp <= 1e-4,
          "dense errors %.3g, %.3g against the closed form", mid_err_y,
          mid_err_yp);
    /* Outside the last step: refused. */
    double y[2];
    CHECK(ops->dense(mem, t_end + 1.0, y, NULL) == HYDAE_ERR_ARG,
          "dense() after t_new should fail");
    /* Both outputs NULL is allowed. */
    CHECK(ops->dense(mem, t_end, NULL, NULL) == HYDAE_OK, "dense with NULLs");
    ops->destroy(mem);
}

static void test_h_max(void)
{
    static dahlquist_ctx nonstiff = {-1.0};
    hy_dae dahl = {1, dahlquist_res, NULL, &nonstiff, NULL, NULL, NULL, NULL};
    double y0 = 1.0, yp0 = -1.0;
    hy_options opt = default_options(1e-4, 1e-4);
    opt.h_max = 0.05;
    void *mem = ops->create(1);
    CHECK(mem != NULL, "create failed");
    if (mem == NULL)
        return;
    CHECK(ops->init(mem, &dahl, 0.0, &y0, &yp0, &opt) == HYDAE_OK, "init");
    double t = 0.0, max_h = 0.0, max_t_gap = 0.0;
    int rc = HYDAE_OK;
    long n_steps = 0;
    while (rc == HYDAE_OK && n_steps < STEP_LIMIT) {
        double t_before = t;
        rc = ops->step(mem, 10.0, &t);
        n_steps++;
        hy_stats st;
        ops->get_stats(mem, &st);
        max_h = fmax(max_h, st.h_last);
        max_t_gap = fmax(max_t_gap, t - t_before);
    }
    CHECK(rc == HY_TSTOP && t == 10.0, "h_max run: rc %d t %g", rc, t);
    CHECK(max_h <= 0.05 && max_h > 0.0, "h_max 0.05 exceeded: h_last %g",
          max_h);
    CHECK(max_t_gap <= 0.05 * (1.0 + 1e-12), "step of %g > h_max", max_t_gap);
    /* Without h_max the same problem takes steps far above 0.05. */
    hy_options free_opt = default_options(1e-4, 1e-4);
    CHECK(ops->init(mem, &dahl, 0.0, &y0, &yp0, &free_opt) == HYDAE_OK, "init");
    t = 0.0;
    rc = HYDAE_OK;
    max_h = 0.0;
    while (rc == HYDAE_OK) {
        rc = ops->step(mem, 10.0, &t);
        hy_stats st;
        ops->get_stats(mem, &st);
        max_h = fmax(max_h, st.h_last);
    }
    CHECK(max_h > 0.2, "without h_max the steps stay small: %g", max_h);
    ops->destroy(mem);
}

static void test_failing_residuals(void)
{
    double y0 = 1.0, yp0 = -1.0;
    hy_options opt = default_options(1e-6, 1e-6);

    /* Residual returning -1 from t = 0.5 on: HYDAE_ERR_RESIDUAL. */
    failing_ctx fatal = {0.5, 0, 0};
    hy_dae dae = {1, failing_res, NULL, &fatal, NULL, NULL, NULL, NULL};
    run_result r = integrate(&dae, 0.0, &y0, &yp0, 1.0, &opt);
    CHECK(r.rc == HYDAE_ERR_RESIDUAL, "residual -1: rc %d, want HYDAE_ERR_RESIDUAL", r.rc);
    CHECK(r.t < 0.5 && r.t > 0.0, "residual -1: stopped at %g", r.t);
    CHECK(fatal.n_failures == 1, "residual -1 called again %d times after "
          "the first -1", fatal.n_failures - 1);

    /* NaN from t = 0.5 on: an error code, never success. */
    failing_ctx nan_ctx = {0.5, 1, 0};
    dae.ctx = &nan_ctx;
    r = integrate(&dae, 0.0, &y0, &yp0, 1.0, &opt);
    CHECK(r.rc < 0, "NaN residual: rc %d, want an error", r.rc);
    CHECK(!r.reached, "NaN residual reported reaching t_end");
    /* It is recognised as a residual failure, retried with smaller steps
    ** (more than once) and then reported as such. */
    CHECK(r.rc == HYDAE_ERR_RESIDUAL, "persistent NaN: rc %d, want HYDAE_ERR_RESIDUAL", r.rc);
    CHECK(nan_ctx.n_failures > 1, "NaN residual not retried");

    /* Same with an analytic-free FD Jacobian hitting the NaN region first:
    ** still an error, and the state before it is finite. */
    failing_ctx nan_early = {1e-9, 1, 0};
    dae.ctx = &nan_early;
    r = integrate(&dae, 0.0, &y0, &yp0, 1.0, &opt);
    CHECK(r.rc < 0, "NaN residual near t0: rc %d, want an error", r.rc);

    /* A single recoverable failure (+1) is absorbed: correct solution. */
    failing_ctx once = {0.5, 2, 0};
    dae.ctx = &once;
    r = integrate(&dae, 0.0, &y0, &yp0, 1.0, &opt);
    CHECK(r.reached, "residual +1 once: rc %d", r.rc);
    CHECK(once.n_failures == 1, "the +1 failure was not triggered");
    CHECK_NEAR(r.y[0], exp(-1.0), 10.0 * 1e-6, "y(1) after a +1 residual");
    CHECK(r.stats.n_conv_fails >= 1, "+1 residual not counted as failure");
}

/* Three uncoupled components; only the last one has fast behaviour, so it
** must be the one named by worst_component() after an error test failure. */
static int worst_res(double t, const double *y, const double *yp,
                     double *res, void *ctx)
{
    (void)ctx;
    res[0] = yp[0] + 0.01 * y[0];
    res[1] = yp[1];
    res[2] = yp[2] - 30.0 * cos(30.0 * t);
    return 0;
}

static void test_worst_component_and_restarts(void)
{
    hy_dae dae = {3, worst_res, NULL, NULL, NULL, NULL, NULL, NULL};
    double y0[3] = {1.0, 2.0, 0.0}, yp0[3] = {-0.01, 0.0, 30.0};
    hy_options opt = default_options(1e-6, 1e-6);
    void *mem = ops->create(3);
    CHECK(mem != NULL, "create failed");
    if (mem == NULL)
        return;
    CHECK(ops->worst_component(mem) == -1, "worst_component before any step");
    CHECK(ops->init(mem, &dae, 0.0, y0, yp0, &opt) == HYDAE_OK, "init");
    double t = 0.0;
    int rc = HYDAE_OK;
    while (rc == HYDAE_OK)
        rc = ops->step(mem, 2.0, &t);
    CHECK(rc == HY_TSTOP, "worst-component run: rc %d", rc);
    hy_stats first;
    ops->get_stats(mem, &first);
    CHECK(first.n_err_fails > 0, "expected some error test failures");
    CHECK(ops->worst_component(mem) == 2, "worst component %d, want 2",
          ops->worst_component(mem));
    double y[3];
    CHECK(ops->dense(mem, 2.0, y, NULL) == HYDAE_OK, "dense at 2");
    CHECK_NEAR(y[2], sin(60.0), 1e-4, "fast component at t = 2");

    /* Restart at t = 2 (as after an event): counters keep growing, the
    ** step history starts again at order 1. */
    double yp_restart[3] = {-0.01 * y[0], 0.0, 30.0 * cos(60.0)};
    CHECK(ops->init(mem, &dae, 2.0, y, yp_restart, &opt) == HYDAE_OK, "re-init");
    hy_stats after_init;
    ops->get_stats(mem, &after_init);
    CHECK(after_init.n_steps == first.n_steps, "init reset the step counter");
    rc = ops->step(mem, 3.0, &t);
    hy_stats one_more;
    ops->get_stats(mem, &one_more);
    CHECK(rc == HYDAE_OK && one_more.n_steps == first.n_steps + 1
              && one_more.order_last == 1,
          "first step after re-init: rc %d, steps %ld (want %ld), order %d",
          rc, one_more.n_steps, first.n_steps + 1, one_more.order_last);
    while (rc == HYDAE_OK)
        rc = ops->step(mem, 3.0, &t);
    CHECK(rc == HY_TSTOP && t == 3.0, "after restart: rc %d t %g", rc, t);
    CHECK(ops->dense(mem, 3.0, y, NULL) == HYDAE_OK, "dense at 3");
    CHECK_NEAR(y[0], exp(-0.03), 1e-5, "slow component at t = 3");
    CHECK_NEAR(y[1], 2.0, 1e-5, "constant component at t = 3");
    CHECK_NEAR(y[2], sin(90.0), 1e-4, "fast component at t = 3");
    ops->destroy(mem);
    ops->destroy(NULL);     /* must be harmless */
}

static void test_arguments(void)
{
    void *mem = ops->create(1);
    CHECK(mem != NULL, "create(1)");
    if (mem == NULL)
        return;
    static dahlquist_ctx nonstiff = {-1.0};
    hy_dae dahl = {1, dahlquist_res, NULL, &nonstiff, NULL, NULL, NULL, NULL};
    double y0 = 1.0, yp0 = -1.0, t = 0.0;
    hy_options opt = default_options(1e-6, 1e-6);
    CHECK(ops->step(mem, 1.0, &t) == HYDAE_ERR_ARG, "step before init");
    hy_dae wrong_n = dahl;
    wrong_n.n = 2;
    CHECK(ops->init(mem, &wrong_n, 0.0, &y0, &yp0, &opt) == HYDAE_ERR_ARG,
          "init with a different n");
    hy_options bad = opt;
    bad.max_order = -1;
    CHECK(ops->init(mem, &dahl, 0.0, &y0, &yp0, &bad) == HYDAE_ERR_ARG,
          "max_order -1");
    /* An order above 5 (ABAM's 12, say) is capped at BDF's 5. */
    bad = opt;
    bad.max_order = 12;
    CHECK(ops->init(mem, &dahl, 0.0, &y0, &yp0, &bad) == HYDAE_OK, "max_order 12 not capped");
    double t_cap = 0.0;
    int capped_order_seen = 0;
    while (t_cap < 1.0 && ops->step(mem, 1.0, &t_cap) >= 0) {
        hy_stats st_cap;
        ops->get_stats(mem, &st_cap);
        if (st_cap.order_last > capped_order_seen)
            capped_order_seen = st_cap.order_last;
    }
    CHECK(capped_order_seen >= 1 && capped_order_seen <= 5, "order %d used",
          capped_order_seen);
    bad = opt;
    bad.atol = 0.0;
    double y_zero = 0.0;
    CHECK(ops->init(mem, &dahl, 0.0, &y_zero, &yp0, &bad) == HYDAE_ERR_ARG,
          "zero weight (atol 0, y 0)");
    /* max_order 1 is honoured. */
    opt.max_order = 1;
    CHECK(ops->init(mem, &dahl, 0.0, &y0, &yp0, &opt) == HYDAE_OK, "init");
    int rc = HYDAE_OK, max_order_seen = 0;
    while (rc == HYDAE_OK) {
        rc = ops->step(mem, 1.0, &t);
        hy_stats st;
        ops->get_stats(mem, &st);
        if (st.order_last > max_order_seen)
            max_order_seen = st.order_last;
    }
    CHECK(rc == HY_TSTOP && max_order_seen == 1,
          "max_order 1: rc %d, order reached %d", rc, max_order_seen);
    double y;
    CHECK(ops->dense(mem, 1.0, &y, NULL) == HYDAE_OK, "dense");
    /* BDF1 keeps each local error near rtol over ~700 steps: global error
    ** about 2e-4 at rtol 1e-6 (first order: no tolerance proportionality).
    */
    CHECK_NEAR(y, exp(-1.0), 1e-3, "order-1 solution");
    ops->destroy(mem);
}

int main(void)
{
    test_closed_forms();
    test_robertson();
    test_tstop_landing();
    test_many_stops();
    test_step_size_rules();
    test_dense_output();
    test_h_max();
    test_failing_residuals();
    test_worst_component_and_restarts();
    test_arguments();
    return CHECK_DONE();
}
