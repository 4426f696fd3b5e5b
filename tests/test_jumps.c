/*
** Jumps of variables that are no event variables (Enge-Rosenblatt et al.,
** sec. 4.3): an algebraic z = u(t), u a unit step at t = 1 written into the
** residual without any guard, drives x' = z. Integrating across the jump
** makes the step collapse; with dt_min = 1e-6 the run restarts at the
** jump + dt_min with new consistent values, counts the restart, and x
** follows the closed form x = max(0, t - 1) to within dt_min plus the
** tolerance. Without dt_min and with h_min = 1e-6 the same run fails with
** a message naming the time, instead of creeping.
*/
#include "check.h"
#include "rows.h"

#include <string.h>

static int step_residual(double t, const double *y, const double *yp, const double *p,
                         double *res, void *user)
{
    (void)p;
    (void)user;
    res[0] = yp[0] - y[1];
    res[1] = y[1] - (t < 1.0 ? 0.0 : 1.0);
    return 0;
}

static hydae_model *model(void)
{
    hydae_model *m = hydae_model_create("jump");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *mode = hydae_chart_add_mode(c, "only");
    CHECK(hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 0.0) == 0
              && hydae_mode_add_var(mode, "z", HYDAE_ALGEBRAIC, 0.0) == 1
              && hydae_mode_set_residual(mode, 2, step_residual, NULL) == 0,
          "model");
    return m;
}

int main(void)
{
    hydae_model *m = model();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(s && hydae_sim_set_time(s, 0.0, 2.0) == 0 && hydae_sim_set_option(s, "dt_min", "1e-6") == 0
              && hydae_sim_set_option(s, "rtol", "1e-8") == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0,
          "setup");
    status = hydae_sim_run(s);
    CHECK(status == 0, "run with dt_min: %s", hydae_sim_errmsg(s));
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    CHECK(st.n_jump_restarts >= 1, "%ld restarts after jumps, want >= 1", st.n_jump_restarts);
    int cx = test_column(m, "x");
    double worst = 0.0;
    for (int i = 0; i < rows.n_rows; i++)
        worst = fmax(worst, fabs(test_value(&rows, i, cx) - fmax(0.0, rows.t[i] - 1.0)));
    CHECK(worst <= 2e-6, "x off the closed form by %g (dt_min 1e-6)", worst);
    printf("jump: %ld restarts, max error of x %.3g, %ld steps\n", st.n_jump_restarts, worst,
           st.n_steps);
    test_rows_free(&rows);
    hydae_sim_free(s);

    s = hydae_sim_create(m, &status);
    CHECK(s && hydae_sim_set_time(s, 0.0, 2.0) == 0 && hydae_sim_set_option(s, "h_min", "1e-6") == 0,
          "setup 2");
    status = hydae_sim_run(s);
    const char *msg = hydae_sim_errmsg(s);
    CHECK(status < 0 && strstr(msg, "t = 0.99") && strstr(msg, "'only'"),
          "without dt_min: status %d, %s", status, msg);
    hydae_sim_free(s);
    hydae_model_free(m);
    return CHECK_DONE();
}
