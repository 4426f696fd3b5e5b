/*
** Tests of VSTIFF (src/integrators/vstiff.c), driven through its
** descriptor: closed-form problems (Dahlquist's y' = lambda y for lambda =
** -1 and -1e4, a stiff linear system with a known eigen-solution, an
** oscillator for dense output), the error shrinking with the tolerance,
** landing on t_stop bit-exactly, restarts by repeated init(), options
** (h_max, h_min, max_order, per-component tolerances) and failing
** right-hand sides.
**
** test_mstiff.c runs the same tests on MSTIFF: it defines TEST_OPS and
** the method's constants, then includes this file.
*/
#include "integrators/integrator.h"

#include "check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#ifndef TEST_OPS
#define TEST_OPS hy_vstiff
#define TEST_METHOD_MAX_ORDER 5
#endif

extern const hy_integrator_ops TEST_OPS;
static const hy_integrator_ops *const ops = &TEST_OPS;

#define MAX_N 2
#define STEP_LIMIT 100000L

/* ------------------------------------------------------------------------
** Problems. Each is an explicit ODE; res is F = y' - f for completeness,
** jac gives -df/dy + cj I.
*/

/* 1. Dahlquist: y' = lambda y, y = y0 e^(lambda t). */
typedef struct problem_ctx {
    double lambda;
    double nan_after;       /* f returns NaN in component 1 for t > this */
    int fail_fatal;         /* f returns -1 */
} problem_ctx;

static int dahlquist_rhs(double t, const double *y, double *f, void *ctx)
{
    (void)t;
    const problem_ctx *c = ctx;
    f[0] = c->lambda * y[0];
    return 0;
}

static int dahlquist_res(double t, const double *y, const double *yp,
                         double *res, void *ctx)
{
    dahlquist_rhs(t, y, res, ctx);
    res[0] = yp[0] - res[0];
    return 0;
}

static int dahlquist_jac(double t, double cj, const double *y,
                         const double *yp, double *jac, void *ctx)
{
    (void)t;
    (void)y;
    (void)yp;
    const problem_ctx *c = ctx;
    jac[0] = -c->lambda + cj;
    return 0;
}

/* 2. Stiff linear system with eigenvalues -1 and -1e4:
**   y1' = -5000.5 y1 + 4999.5 y2,   y2' = 4999.5 y1 - 5000.5 y2.
** A = V diag(-1, -1e4) V^-1 with V = [[1, 1], [1, -1]], since
** V diag(a, b) V^-1 = 1/2 [[a+b, a-b], [a-b, a+b]] = [[-5000.5, 4999.5],
** [4999.5, -5000.5]]. With y(0) = (2, 0) = (1,1) + (1,-1):
**   y1 = e^-t + e^(-1e4 t),   y2 = e^-t - e^(-1e4 t).  */
static int stiff2_rhs(double t, const double *y, double *f, void *ctx)
{
    (void)t;
    const problem_ctx *c = ctx;
    if (c != NULL && c->fail_fatal)
        return -1;
    f[0] = -5000.5 * y[0] + 4999.5 * y[1];
    f[1] = 4999.5 * y[0] - 5000.5 * y[1];
    if (c != NULL && t > c->nan_after)
        f[1] = NAN;
    return 0;
}

static int stiff2_res(double t, const double *y, const double *yp,
                      double *res, void *ctx)
{
    int status = stiff2_rhs(t, y, res, ctx);
    res[0] = yp[0] - res[0];
    res[1] = yp[1] - res[1];
    return status;
}

static int stiff2_jac(double t, double cj, const double *y, const double *yp,
                      double *jac, void *ctx)
{
    (void)t;
    (void)y;
    (void)yp;
    (void)ctx;
    jac[0] = 5000.5 + cj;
    jac[1] = -4999.5;
    jac[2] = -4999.5;
    jac[3] = 5000.5 + cj;
    return 0;
}

static void stiff2_exact(double t, double *y)
{
    y[0] = exp(-t) + exp(-1e4 * t);
    y[1] = exp(-t) - exp(-1e4 * t);
}

/* 3. Oscillator y1' = y2, y2' = -4 y1, y(0) = (1, 0):
** y = (cos 2t, -2 sin 2t). */
static int osc_rhs(double t, const double *y, double *f, void *ctx)
{
    (void)t;
    (void)ctx;
    f[0] = y[1];
    f[1] = -4.0 * y[0];
    return 0;
}

static int osc_res(double t, const double *y, const double *yp, double *res,
                   void *ctx)
{
    osc_rhs(t, y, res, ctx);
    res[0] = yp[0] - res[0];
    res[1] = yp[1] - res[1];
    return 0;
}

static void osc_exact(double t, double *y, double *yp)
{
    y[0] = cos(2.0 * t);
    y[1] = -2.0 * sin(2.0 * t);
    yp[0] = y[1];
    yp[1] = -4.0 * y[0];
}

/* ------------------------------------------------------------------------
** Driver
*/

typedef struct run_result {
    int status;             /* last step() return */
    double t;               /* time reached */
    double y[MAX_N];
    hy_stats stats;
    int passed_stop;        /* some step ended after t_stop */
    int max_order_seen;
    double max_h_seen;
} run_result;

static hy_options default_options(double rtol, double atol)
{
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol = rtol;
    opt.atol = atol;
    return opt;
}

/* Steps from t0 to t_end; mem may be given (restart tests) or NULL. */
static run_result run(const hy_dae *dae, const double *y0, double t0,
                      double t_end, const hy_options *opt)
{
    run_result r;
    memset(&r, 0, sizeof r);
    void *mem = ops->create(dae->n);
    double yp0[MAX_N] = {0.0, 0.0};
    r.status = ops->init(mem, dae, t0, y0, yp0, opt);
    r.t = t0;
    long n = 0;
    while (r.status == HYDAE_OK && n++ < STEP_LIMIT) {
        r.status = ops->step(mem, t_end, &r.t);
        if (r.t > t_end)
            r.passed_stop = 1;
        hy_stats s;
        ops->get_stats(mem, &s);
        if (s.order_last > r.max_order_seen)
            r.max_order_seen = s.order_last;
        if (s.h_last > r.max_h_seen)
            r.max_h_seen = s.h_last;
    }
    ops->dense(mem, r.t, r.y, NULL);
    ops->get_stats(mem, &r.stats);
    ops->destroy(mem);
    return r;
}

static hy_dae make_dae(int n, hy_rhs_fn rhs, hy_res_fn res, hy_jac_fn jac,
                       void *ctx)
{
    hy_dae dae;
    memset(&dae, 0, sizeof dae);
    dae.n = n;
    dae.rhs = rhs;
    dae.res = res;
    dae.jac = jac;
    dae.ctx = ctx;
    return dae;
}

/* ------------------------------------------------------------------------
** Tests
*/

/* y' = -y on [0, 10]: the error at t = 10 relative to e^-10 is within a
** small multiple of rtol and shrinks as rtol does. */
static void test_dahlquist_nonstiff(void)
{
    problem_ctx c = {-1.0, INFINITY, 0};
    hy_dae dae = make_dae(1, dahlquist_rhs, dahlquist_res, dahlquist_jac, &c);
    double y0 = 1.0, exact = exp(-10.0);
    double rtols[3] = {1e-4, 1e-6, 1e-8};
    double errs[3];
    for (int k = 0; k < 3; k++) {
        hy_options opt = default_options(rtols[k], rtols[k] * 1e-6);
        run_result r = run(&dae, &y0, 0.0, 10.0, &opt);
        CHECK(r.status == HY_TSTOP, "%s dahlquist -1 rtol %g: status %d",
              ops->name, rtols[k], r.status);
        errs[k] = fabs(r.y[0] - exact) / exact;
        /* Global error: BDF codes keep it within ~100 rtol here. */
        CHECK(errs[k] <= 100.0 * rtols[k],
              "%s dahlquist -1 rtol %g: relative error %.3g > 100 rtol",
              ops->name, rtols[k], errs[k]);
    }
    CHECK(errs[1] < errs[0] && errs[2] < errs[1],
          "%s dahlquist -1: errors %.3g %.3g %.3g do not shrink", ops->name,
          errs[0], errs[1], errs[2]);
    /* Two decades of rtol gain at least one decade of accuracy. */
    CHECK(errs[2] < 0.1 * errs[0], "%s dahlquist -1: %.3g vs %.3g",
          ops->name, errs[2], errs[0]);
}

/* y' = -1e4 y on [0, 1]: stiff decay. A stable implicit method follows
** the transient and then takes large steps: far fewer than the 1e4 steps
** an explicit method's stability limit (h < 2e-4 for Euler) would need,
** and the result is below the absolute tolerance. */
static void test_dahlquist_stiff(void)
{
    problem_ctx c = {-1e4, INFINITY, 0};
    hy_dae dae = make_dae(1, dahlquist_rhs, dahlquist_res, dahlquist_jac, &c);
    double y0 = 1.0;
    hy_options opt = default_options(1e-6, 1e-10);
    run_result r = run(&dae, &y0, 0.0, 1.0, &opt);
    CHECK(r.status == HY_TSTOP, "%s dahlquist -1e4: status %d", ops->name,
          r.status);
    CHECK(fabs(r.y[0]) <= 1e-8, "%s dahlquist -1e4: y(1) = %.3g", ops->name,
          r.y[0]);
    CHECK(r.stats.n_steps < 400, "%s dahlquist -1e4: %ld steps", ops->name,
          r.stats.n_steps);
    /* In the transient, at t = 2e-4 (y = e^-2), check accuracy too. */
    run_result r2 = run(&dae, &y0, 0.0, 2e-4, &opt);
    double exact = exp(-2.0);
    CHECK(fabs(r2.y[0] - exact) <= 1e-4 * exact,
          "%s dahlquist -1e4 at 2e-4: %.10g vs %.10g", ops->name, r2.y[0],
          exact);
}

/* The stiff 2x2 system, analytic and finite-difference Jacobians, over
** [0, 5] (slow mode e^-5 after the fast one has died out). */
static void test_stiff_system(void)
{
    double y0[2] = {2.0, 0.0};
    double exact[2];
    stiff2_exact(5.0, exact);
    double errs[2][3];
    double rtols[3] = {1e-4, 1e-6, 1e-8};
    for (int use_fd = 0; use_fd <= 1; use_fd++) {
        hy_dae dae = make_dae(2, stiff2_rhs, stiff2_res,
                              use_fd ? NULL : stiff2_jac, NULL);
        for (int k = 0; k < 3; k++) {
            hy_options opt = default_options(rtols[k], rtols[k] * 1e-2);
            run_result r = run(&dae, y0, 0.0, 5.0, &opt);
            CHECK(r.status == HY_TSTOP, "%s stiff2 fd=%d rtol %g: status %d",
                  ops->name, use_fd, rtols[k], r.status);
            double err = 0.0;
            for (int i = 0; i < 2; i++)
                err = fmax(err, fabs(r.y[i] - exact[i]) / fabs(exact[i]));
            errs[use_fd][k] = err;
                CHECK(err <= 100.0 * rtols[k],
                  "%s stiff2 fd=%d rtol %g: relative error %.3g", ops->name,
                  use_fd, rtols[k], err);
            CHECK(r.stats.n_steps < 2000, "%s stiff2: %ld steps", ops->name,
                  r.stats.n_steps);
            CHECK(r.stats.n_jac_evals >= 1 && r.stats.n_lu >= r.stats.n_jac_evals,
                  "%s stiff2: %ld Jacobians, %ld LU", ops->name,
                  r.stats.n_jac_evals, r.stats.n_lu);
            /* The Jacobian is reused: far fewer than one per step. */
            CHECK(r.stats.n_jac_evals * 5 < r.stats.n_steps,
                  "%s stiff2: %ld Jacobians for %ld steps", ops->name,
                  r.stats.n_jac_evals, r.stats.n_steps);
        }
        CHECK(errs[use_fd][2] < errs[use_fd][0],
              "%s stiff2 fd=%d: error %.3g at 1e-8 not below %.3g at 1e-4",
              ops->name, use_fd, errs[use_fd][2], errs[use_fd][0]);
    }
}

/* Landing on t_stop: every step ends at or before t_stop and the last one
** returns HY_TSTOP with t exactly t_stop; a second stop a few ulps later
** is reached without a step; a later t_stop continues. */
static void test_tstop(void)
{
    hy_dae dae = make_dae(2, osc_rhs, osc_res, NULL, NULL);
    double y0[2] = {1.0, 0.0};
    hy_options opt = default_options(1e-7, 1e-9);
    void *mem = ops->create(2);
    double yp0[2] = {0.0, -4.0};
    CHECK(ops->init(mem, &dae, 0.0, y0, yp0, &opt) == HYDAE_OK, "init");
    double stops[3] = {0.1 * 3.141592653589793, 1.0 / 3.0 + 1.0, 2.718281828459045};
    double t = 0.0;
    for (int s = 0; s < 3; s++) {
        int status = HYDAE_OK, passed = 0;
        long n = 0;
        while (status == HYDAE_OK && n++ < STEP_LIMIT) {
            status = ops->step(mem, stops[s], &t);
            if (t > stops[s])
                passed = 1;
        }
        CHECK(status == HY_TSTOP, "%s tstop %d: status %d", ops->name, s,
              status);
        CHECK(t == stops[s], "%s tstop %d: t = %.17g, want %.17g", ops->name,
              s, t, stops[s]);
        CHECK(!passed, "%s tstop %d: a step passed t_stop", ops->name, s);
        double y[2], yex[2], ypex[2];
        ops->dense(mem, t, y, NULL);
        osc_exact(t, yex, ypex);
        CHECK(fabs(y[0] - yex[0]) < 1e-5 && fabs(y[1] - yex[1]) < 2e-5,
              "%s tstop %d: y = (%g, %g), want (%g, %g)", ops->name, s, y[0],
              y[1], yex[0], yex[1]);
    }
    /* t_stop below t is an argument error. */
    CHECK(ops->step(mem, 1.0, &t) == HYDAE_ERR_ARG, "%s: t_stop < t accepted",
          ops->name);
    ops->destroy(mem);
}

/* Dense output within each step against the exact oscillator: y and y'
** at three points inside every step. */
static void test_dense(void)
{
    hy_dae dae = make_dae(2, osc_rhs, osc_res, NULL, NULL);
    double y0[2] = {1.0, 0.0};
    double rtols[2] = {1e-5, 1e-8};
    /* Bounds on y' from the interpolant, one order lower than y: about
    ** three times the largest error measured for either method. */
    double yp_bounds[2] = {1.5e-2, 1.2e-4};
    double worst[2] = {0.0, 0.0};
    for (int k = 0; k < 2; k++) {
        hy_options opt = default_options(rtols[k], rtols[k]);
        void *mem = ops->create(2);
        double yp0[2] = {0.0, -4.0};
        ops->init(mem, &dae, 0.0, y0, yp0, &opt);
        double t = 0.0, t_prev = 0.0, worst_yp = 0.0;
        int status = HYDAE_OK;
        long n = 0;
        int dense_status_ok = 1;
        while (status == HYDAE_OK && n++ < STEP_LIMIT) {
            status = ops->step(mem, 5.0, &t);
            for (int p = 1; p <= 3; p++) {
                double tp = t_prev + 0.25 * p * (t - t_prev);
                double y[2], yp[2], yex[2], ypex[2];
                if (ops->dense(mem, tp, y, yp) != HYDAE_OK)
                    dense_status_ok = 0;
                osc_exact(tp, yex, ypex);
                for (int i = 0; i < 2; i++) {
                    worst[k] = fmax(worst[k], fabs(y[i] - yex[i]));
                    worst_yp = fmax(worst_yp, fabs(yp[i] - ypex[i]));
                }
            }
            t_prev = t;
        }
        CHECK(dense_status_ok, "%s dense: a call inside the step failed",
              ops->name);
        /* Outside the last step: argument error. */
        double y[2];
        CHECK(ops->dense(mem, t + 0.5, y, NULL) == HYDAE_ERR_ARG,
              "%s dense beyond t accepted", ops->name);
        /* The oscillator does not damp errors: the global error grows to
        ** a few hundred rtol on [0, 5] (rtol = atol); the interpolant adds
        ** a local error of the step's size. */
        CHECK(worst[k] <= 500.0 * rtols[k], "%s dense rtol %g: error %.3g",
              ops->name, rtols[k], worst[k]);
        CHECK(worst_yp <= yp_bounds[k], "%s dense rtol %g: y' error %.3g",
              ops->name, rtols[k], worst_yp);
        ops->destroy(mem);
    }
    CHECK(worst[1] < 0.01 * worst[0], "%s dense: %.3g then %.3g", ops->name,
          worst[0], worst[1]);
}

/* Restarts: integrate y' = -y to t = 1, init() again there with the value
** reached, continue to 2: the result is still accurate, the counters
** accumulate, and the new start takes order 1 again. */
static void test_restart(void)
{
    problem_ctx c = {-1.0, INFINITY, 0};
    hy_dae dae = make_dae(1, dahlquist_rhs, dahlquist_res, dahlquist_jac, &c);
    hy_options opt = default_options(1e-8, 1e-10);
    void *mem = ops->create(1);
    double y = 1.0, yp = -1.0, t = 0.0;
    hy_stats s1, s2;
    for (int leg = 0; leg < 3; leg++) {
        CHECK(ops->init(mem, &dae, t, &y, &yp, &opt) == HYDAE_OK, "init %d", leg);
        int status = HYDAE_OK;
        long n = 0;
        while (status == HYDAE_OK && n++ < STEP_LIMIT)
            status = ops->step(mem, t + 1.0 >= 3.0 ? 3.0 : leg + 1.0, &t);
        CHECK(status == HY_TSTOP, "%s restart leg %d: %d", ops->name, leg,
              status);
        ops->dense(mem, t, &y, &yp);
        if (leg == 0)
            ops->get_stats(mem, &s1);
    }
    ops->get_stats(mem, &s2);
    CHECK(t == 3.0, "%s restart: t = %.17g", ops->name, t);
    CHECK(fabs(y - exp(-3.0)) <= 1e-6 * exp(-3.0), "%s restart: %.12g vs %.12g",
          ops->name, y, exp(-3.0));
    CHECK(s2.n_steps > s1.n_steps && s2.n_res_evals > s1.n_res_evals
              && s2.n_jac_evals > s1.n_jac_evals,
          "%s restart: counters did not accumulate (%ld %ld)", ops->name,
          s1.n_steps, s2.n_steps);
    /* Three legs each start at order 1 and h chosen afresh: more steps
    ** than one leg of the same length. */
    CHECK(s2.n_steps >= 2 * s1.n_steps, "%s restart: %ld then %ld steps",
          ops->name, s1.n_steps, s2.n_steps);
    ops->destroy(mem);
}

/* Options: h_max bounds every step, max_order bounds the order (and a
** large value is capped at the method's), h0 is the first step, h_min
** too large for the stiff transient stops with HYDAE_ERR_HMIN, per-component
** tolerances equal to the scalars give the same run. */
static void test_options(void)
{
    double y0[2] = {2.0, 0.0};
    hy_dae dae = make_dae(2, stiff2_rhs, stiff2_res, stiff2_jac, NULL);

    hy_options opt = default_options(1e-9, 1e-11);
    run_result free_run = run(&dae, y0, 0.0, 5.0, &opt);
    CHECK(free_run.max_order_seen >= 3, "%s: order %d only at rtol 1e-9",
          ops->name, free_run.max_order_seen);
    CHECK(free_run.max_order_seen <= TEST_METHOD_MAX_ORDER,
          "%s: order %d > %d", ops->name, free_run.max_order_seen,
          TEST_METHOD_MAX_ORDER);

    opt.h_max = 0.05;
    run_result capped = run(&dae, y0, 0.0, 5.0, &opt);
    CHECK(capped.status == HY_TSTOP && capped.max_h_seen <= 0.05,
          "%s h_max: status %d, largest step %g", ops->name, capped.status,
          capped.max_h_seen);
    CHECK(capped.stats.n_steps >= 100, "%s h_max 0.05: %ld steps", ops->name,
          capped.stats.n_steps);

    opt = default_options(1e-9, 1e-11);
    opt.max_order = 2;
    run_result low = run(&dae, y0, 0.0, 5.0, &opt);
    CHECK(low.status == HY_TSTOP && low.max_order_seen <= 2,
          "%s max_order 2: status %d, order %d", ops->name, low.status,
          low.max_order_seen);
    CHECK(low.stats.n_steps > free_run.stats.n_steps,
          "%s: order <= 2 took %ld steps, free %ld", ops->name,
          low.stats.n_steps, free_run.stats.n_steps);
    opt.max_order = 99;
    run_result high = run(&dae, y0, 0.0, 5.0, &opt);
    CHECK(high.status == HY_TSTOP && high.stats.n_steps == free_run.stats.n_steps,
          "%s max_order 99: %ld steps vs %ld", ops->name, high.stats.n_steps,
          free_run.stats.n_steps);

    /* h0: the first accepted step is h0 when it passes the error test. */
    opt = default_options(1e-6, 1e-8);
    opt.h0 = 1e-9;
    {
        void *mem = ops->create(2);
        double yp0[2] = {0.0, 0.0}, t = 0.0;
        ops->init(mem, &dae, 0.0, y0, yp0, &opt);
        int status = ops->step(mem, 5.0, &t);
        hy_stats s;
        ops->get_stats(mem, &s);
        CHECK(status == HYDAE_OK && s.h_last == 1e-9 && t == 1e-9,
              "%s h0: status %d, first step %g", ops->name, status, s.h_last);
        ops->destroy(mem);
    }

    /* h_min = 0.01 cannot resolve the 1e-4 transient at rtol 1e-8. */
    opt = default_options(1e-8, 1e-10);
    opt.h_min = 0.01;
    run_result hmin = run(&dae, y0, 0.0, 5.0, &opt);
    CHECK(hmin.status == HYDAE_ERR_HMIN, "%s h_min: status %d at t %g",
          ops->name, hmin.status, hmin.t);

    /* Vectors equal to the scalars: the very same steps. */
    double rtol_vec[2] = {1e-7, 1e-7}, atol_vec[2] = {1e-9, 1e-9};
    opt = default_options(1e-7, 1e-9);
    run_result scalars = run(&dae, y0, 0.0, 5.0, &opt);
    opt.rtol = 0.5;
    opt.atol = 0.5;
    opt.rtol_vec = rtol_vec;
    opt.atol_vec = atol_vec;
    run_result vectors = run(&dae, y0, 0.0, 5.0, &opt);
    CHECK(vectors.stats.n_steps == scalars.stats.n_steps
              && vectors.y[0] == scalars.y[0],
          "%s tolerance vectors: %ld steps vs %ld", ops->name,
          vectors.stats.n_steps, scalars.stats.n_steps);
    /* A loose tolerance on component 2 only changes the run. */
    atol_vec[1] = 1e-3;
    rtol_vec[1] = 1e-3;
    run_result loose = run(&dae, y0, 0.0, 5.0, &opt);
    CHECK(loose.stats.n_steps != scalars.stats.n_steps,
          "%s: component tolerances ignored (%ld steps)", ops->name,
          loose.stats.n_steps);
}

/* Failing right-hand sides and bad arguments. */
static void test_failures(void)
{
    double y0[2] = {2.0, 0.0}, yp0[2] = {0.0, 0.0};
    /* NaN in component 1 from t > 0.5 on: an error code, not a result. */
    problem_ctx c = {0.0, 0.5, 0};
    hy_dae dae = make_dae(2, stiff2_rhs, stiff2_res, stiff2_jac, &c);
    hy_options opt = default_options(1e-6, 1e-8);
    void *mem = ops->create(2);
    ops->init(mem, &dae, 0.0, y0, yp0, &opt);
    double t = 0.0;
    int status = HYDAE_OK;
    long n = 0;
    while (status == HYDAE_OK && n++ < STEP_LIMIT)
        status = ops->step(mem, 2.0, &t);
    CHECK(status == HYDAE_ERR_RESIDUAL, "%s NaN: status %d", ops->name, status);
    CHECK(t <= 0.5, "%s NaN: reached t = %g past 0.5", ops->name, t);
    CHECK(ops->worst_component(mem) == 1, "%s NaN: worst component %d",
          ops->name, ops->worst_component(mem));
    ops->destroy(mem);

    /* f returning < 0: fatal at once. */
    c.nan_after = INFINITY;
    c.fail_fatal = 1;
    mem = ops->create(2);
    ops->init(mem, &dae, 0.0, y0, yp0, &opt);
    CHECK(ops->step(mem, 2.0, &t) == HYDAE_ERR_RESIDUAL, "%s: f < 0 not reported",
          ops->name);
    ops->destroy(mem);

    /* No rhs, wrong size, negative tolerance: HYDAE_ERR_ARG. */
    mem = ops->create(2);
    hy_dae no_rhs = make_dae(2, NULL, stiff2_res, NULL, NULL);
    CHECK(ops->init(mem, &no_rhs, 0.0, y0, yp0, &opt) == HYDAE_ERR_ARG,
          "%s: init without rhs accepted", ops->name);
    hy_dae wrong_n = make_dae(1, stiff2_rhs, stiff2_res, NULL, NULL);
    CHECK(ops->init(mem, &wrong_n, 0.0, y0, yp0, &opt) == HYDAE_ERR_ARG,
          "%s: init with n = 1 accepted for n = 2", ops->name);
    hy_options bad = default_options(-1e-6, 1e-8);
    hy_dae good = make_dae(2, stiff2_rhs, stiff2_res, NULL, NULL);
    CHECK(ops->init(mem, &good, 0.0, y0, yp0, &bad) == HYDAE_ERR_ARG,
          "%s: negative rtol accepted", ops->name);
    CHECK(ops->step(mem, 1.0, &t) == HYDAE_ERR_ARG,
          "%s: step after failed init accepted", ops->name);
    ops->destroy(mem);
    CHECK(ops->needs_rhs == 1 && ops->fixed_step == 0, "%s capabilities",
          ops->name);
}

int main(void)
{
    test_dahlquist_nonstiff();
    test_dahlquist_stiff();
    test_stiff_system();
    test_tstop();
    test_dense();
    test_restart();
    test_options();
    test_failures();
    return CHECK_DONE();
}
