/*
** Consistent initial values with the homotopy fallback (Enge-Rosenblatt et
** al., sec. 4.4, eq. (3), Fig. 8). The algebraic equation
**     0 = tanh(z) - 0.99 exp(-(z - 20)^2)
** has its root at z = 0 (to 1e-170); from the start value z = -3 the
** derivative is tiny, the full Newton step lands near z = 20 where |F|
** has a spurious local minimum (F = 0.01 > 0), and damped Newton stalls
** there. The continuation H(z) - (1 - lambda) H(z0) = 0 follows the
** monotone branch to z = 0. An equation with no real root (z^2 + 1 = 0)
** must fail with a report naming the equation, its variable and residual.
*/
#include "check.h"
#include "rows.h"

#include <string.h>

static int trap_residual(double t, const double *y, const double *yp, const double *p,
                         double *res, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    res[0] = yp[0] + y[0] - y[1];
    res[1] = tanh(y[1]) - 0.99 * exp(-(y[1] - 20.0) * (y[1] - 20.0));
    return 0;
}

static int no_root_residual(double t, const double *y, const double *yp, const double *p,
                            double *res, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    res[0] = yp[0] + y[0];
    res[1] = y[1] * y[1] + 1.0;
    return 0;
}

static hydae_model *model(hydae_residual_fn res, double z_start)
{
    hydae_model *m = hydae_model_create("init");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *mode = hydae_chart_add_mode(c, "start");
    CHECK(hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
              && hydae_mode_add_var(mode, "z", HYDAE_ALGEBRAIC, z_start) == 1
              && hydae_mode_set_residual(mode, 2, res, NULL) == 0,
          "model");
    return m;
}

int main(void)
{
    hydae_model *m = model(trap_residual, -3.0);
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(s && hydae_sim_set_time(s, 0.0, 1.0) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0,
          "setup");
    status = hydae_sim_run(s);
    CHECK(status == 0, "run: %s", hydae_sim_errmsg(s));
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    int cz = test_column(m, "z"), cx = test_column(m, "x");
    CHECK(rows.n_rows > 0 && fabs(test_value(&rows, 0, cz)) < 1e-8,
          "z at t0 = %g, want the root 0", rows.n_rows ? test_value(&rows, 0, cz) : NAN);
    CHECK(st.n_homotopy_steps > 0, "the homotopy was not used (%ld steps)", st.n_homotopy_steps);
    /* With z = 0 throughout, x = exp(-t). */
    CHECK_NEAR(test_value(&rows, rows.n_rows - 1, cx), exp(-1.0), 1e-5, "x(1)");
    printf("homotopy: %ld continuation steps, z(0) = %.3g\n", st.n_homotopy_steps,
           test_value(&rows, 0, cz));
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);

    m = model(no_root_residual, 0.5);
    s = hydae_sim_create(m, &status);
    CHECK(s && hydae_sim_set_time(s, 0.0, 1.0) == 0, "setup 2");
    status = hydae_sim_run(s);
    const char *msg = hydae_sim_errmsg(s);
    CHECK(status == HYDAE_ERR_INIT, "no root: status %d (%s)", status, msg);
    CHECK(strstr(msg, "equation 1 of mode 'start' (paired with variable 'z')") && strstr(msg, "homotopy")
              && strstr(msg, "residual"),
          "report: %s", msg);
    hydae_sim_free(s);
    hydae_model_free(m);
    return CHECK_DONE();
}
