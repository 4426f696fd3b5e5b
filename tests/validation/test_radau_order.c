/*
** RADAU's orders 5, 9 and 13 (radau_order fixed: Radau IIA with 3, 5, 7
** stages) measured on y' = -K cos(K t) y^2, y(0) = 1/2, K = 4, whose
** solution is 1/(2 + sin K t), to t = 40, in the residual form with its
** analytic Jacobian (order 13: in Prothero & Robinson's linear form with
** the same solution): fixed steps of 40/N (h0 = h_max, the component out
** of the error test so that every step is accepted; Newton at tolerance
** 1e-12, 50 iterations), and the order fitted to the largest error over
** the steps against N. Then the automatic order (radau_order 0): as accurate at
** rtol 1e-12 as order 5 in fewer steps, ending above order 5. (The Test
** Set at rtol 1e-10 and 1e-12: test_radau.c.)
*/
#include "integrators/integrator.h"

#include "check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define K 4.0

static double exact(double t)
{
    return 1.0 / (2.0 + sin(K * t));
}

static int oscillator_res(double t, const double *y, const double *yp, double *res, void *ctx)
{
    (void)ctx;
    res[0] = yp[0] + K * cos(K * t) * y[0] * y[0];
    return 0;
}

static int oscillator_jac(double t, double cj, const double *y, const double *yp, double *jac,
                          void *ctx)
{
    (void)yp;
    (void)ctx;
    jac[0] = 2.0 * K * cos(K * t) * y[0] + cj;
    return 0;
}

/* Prothero & Robinson's y' = -(y - g) + g' with g = exact: the same
** solution, linear in y (simplified Newton with its exact J converges in
** one iteration at any step), for order 13 on fixed steps. */
static int linear_res(double t, const double *y, const double *yp, double *res, void *ctx)
{
    (void)ctx;
    double g = exact(t), dg = -K * cos(K * t) * g * g;
    res[0] = yp[0] + (y[0] - g) - dg;
    return 0;
}

static int linear_jac(double t, double cj, const double *y, const double *yp, double *jac,
                      void *ctx)
{
    (void)t;
    (void)y;
    (void)yp;
    (void)ctx;
    jac[0] = 1.0 + cj;
    return 0;
}

/* The largest |y_n - exact| / exact over the steps with RADAU at order (0: automatic)
** and tolerance tol; with n_fixed > 0, n_fixed steps of t_end / n_fixed
** (h0 = h_max, the component out of the error test so that every step is
** accepted, tol still Newton's). The accepted steps into *n_steps, the
** last step's order into *order_last. -1 when the run fails. */
static double run_error(int order, int linear, double tol, double t_end, int n_fixed,
                        long *n_steps, int *order_last)
{
    hy_dae dae;
    memset(&dae, 0, sizeof dae);
    dae.n = 1;
    dae.res = linear ? linear_res : oscillator_res;
    dae.jac = linear ? linear_jac : oscillator_jac;
    hy_options opt;
    memset(&opt, 0, sizeof opt);
    opt.rtol = opt.atol = tol;
    opt.radau_order = order;
    unsigned char excluded = 1;
    if (n_fixed > 0) {
        opt.h0 = opt.h_max = t_end / n_fixed;
        opt.err_test_exclude = &excluded;
        opt.corrector_maxit = 50;
    }
    double y0 = exact(0.0), yp0 = -K * y0 * y0, t = 0.0, y = NAN, worst = 0.0;
    void *mem = hy_radau.create(1);
    int status = hy_radau.init(mem, &dae, 0.0, &y0, &yp0, &opt);
    while (status == HYDAE_OK) {
        status = hy_radau.step(mem, t_end, &t);
        if (status >= 0 && hy_radau.dense(mem, t, &y, NULL) == HYDAE_OK)
            worst = fmax(worst, fabs(y - exact(t)) / exact(t));
    }
    hy_stats st;
    hy_radau.get_stats(mem, &st);
    hy_radau.destroy(mem);
    *n_steps = st.n_steps;
    *order_last = st.order_last;
    return status >= 0 && t == t_end ? worst : -1.0;
}

/* The order: minus the least-squares slope of log(error) against
** log(steps) over fixed-step runs with the step counts of the list
** (chosen so that every error is above roundoff: errors of single runs
** wobble by their sign changes, the fit over a factor 2 or more in h does
** not). */
static double measured_order(int order, int linear, const int *n_list, int count)
{
    double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
    for (int k = 0; k < count; k++) {
        long steps;
        int last;
        double err = run_error(order, linear, 1e-12, 40.0, n_list[k], &steps, &last);
        CHECK(err > 0.0 && steps == n_list[k] && last == order,
              "order %d, %d steps: error %g, %ld steps taken, order %d", order, n_list[k], err,
              steps, last);
        printf("order %2d: %4d steps, largest relative error %.3e\n", order, n_list[k], err);
        double x = log((double)n_list[k]), y = log(err);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    return -(count * sxy - sx * sy) / (count * sxx - sx * sx);
}

int main(void)
{
    /* Step counts where the error is asymptotic and above roundoff; order
    ** 13 on the linear form (its simplified Newton with the frozen J of the
    ** nonlinear one fails now and then at these steps, h K = 0.5 to 1). */
    static const int n5[] = {320, 400, 640, 800, 1280, 1600};
    static const int n9[] = {240, 300, 320, 400, 500};
    static const int n13[] = {120, 150, 160, 200, 240, 280, 350};
    const int orders[3] = {5, 9, 13}, counts[3] = {6, 5, 7};
    const int *lists[3] = {n5, n9, n13};
    for (int k = 0; k < 3; k++) {
        double p = measured_order(orders[k], orders[k] == 13, lists[k], counts[k]);
        printf("order %d: measured %.2f\n", orders[k], p);
        CHECK(fabs(p - orders[k]) <= 0.5, "order %d: measured %.2f", orders[k], p);
    }
    long steps5, steps_auto;
    int last;
    double err5 = run_error(5, 0, 1e-12, 40.0, 0, &steps5, &last);
    double err_auto = run_error(0, 0, 1e-12, 40.0, 0, &steps_auto, &last);
    printf("rtol 1e-12: order 5 %ld steps, error %.2e; automatic %ld steps, error %.2e, "
           "last order %d\n", steps5, err5, steps_auto, err_auto, last);
    CHECK(err_auto >= 0.0 && err_auto < 1e-10, "automatic order: error %.3g", err_auto);
    CHECK(steps_auto < steps5, "automatic order: %ld steps, order 5 %ld", steps_auto, steps5);
    CHECK(last > 5, "automatic order stayed at 5");
    return CHECK_DONE();
}
