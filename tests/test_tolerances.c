/*
** Per-variable tolerances (hydae_mode_set_tolerances): x' = -x and
** z' = -2 z, closed form exp(-t), exp(-2t). With the run at rtol = atol =
** 1e-3 and z alone at 1e-9, z's global error must meet 10 x 1e-9 and the
** run must take more steps than with the loose setting everywhere. Invalid
** tolerances are refused with a message naming mode and variable.
*/
#include "check.h"
#include "rows.h"

#include <string.h>

static int decay(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    ydot[0] = -y[0];
    ydot[1] = -2.0 * y[1];
    return 0;
}

static double run(double z_tol, long *n_steps, double *err_x, double *err_z)
{
    hydae_model *m = hydae_model_create("decays");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *mode = hydae_chart_add_mode(c, "both");
    int ok = hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
             && hydae_mode_add_var(mode, "z", HYDAE_DIFFERENTIAL, 1.0) == 1
             && hydae_mode_set_rhs(mode, decay, NULL) == 0
             && (z_tol == 0.0 || hydae_mode_set_tolerances(mode, 1, z_tol, z_tol) == 0);
    CHECK(ok, "building: %s", hydae_model_errmsg(m));
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(s && hydae_sim_set_time(s, 0.0, 2.0) == 0 && hydae_sim_set_tolerances(s, 1e-3, 1e-3) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0,
          "setup");
    status = hydae_sim_run(s);
    CHECK(status == 0, "run: %s", hydae_sim_errmsg(s));
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    *n_steps = st.n_steps;
    *err_x = *err_z = 0.0;
    for (int i = 0; i < rows.n_rows; i++) {
        int cx = test_column(m, "x"), cz = test_column(m, "z");
        *err_x = fmax(*err_x, fabs(test_value(&rows, i, cx) - exp(-rows.t[i])));
        *err_z = fmax(*err_z, fabs(test_value(&rows, i, cz) - exp(-2.0 * rows.t[i])));
    }
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
    return *err_z;
}

int main(void)
{
    long steps_loose, steps_tight;
    double ex_loose, ez_loose, ex_tight, ez_tight;
    run(0.0, &steps_loose, &ex_loose, &ez_loose);
    run(1e-9, &steps_tight, &ex_tight, &ez_tight);
    printf("loose: %ld steps, err z %.3g; z at 1e-9: %ld steps, err z %.3g\n", steps_loose,
           ez_loose, steps_tight, ez_tight);
    CHECK(ez_loose > 1e-6, "the loose run is suspiciously accurate (%g)", ez_loose);
    CHECK(ez_tight <= 1e-8, "z at 1e-9: error %g beyond 10 x tol", ez_tight);
    CHECK(steps_tight > 3 * steps_loose, "tight z took %ld steps, loose %ld", steps_tight,
          steps_loose);

    hydae_model *m = hydae_model_create("bad");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *mode = hydae_chart_add_mode(c, "only");
    CHECK(hydae_mode_add_var(mode, "q", HYDAE_DIFFERENTIAL, 0.0) == 0, "var");
    CHECK(hydae_mode_set_tolerances(mode, 0, 2.0, 1e-6) == HYDAE_ERR_ARG, "rtol 2 accepted");
    CHECK(hydae_mode_set_tolerances(mode, 5, 1e-6, 1e-6) == HYDAE_ERR_ARG, "index 5 accepted");
    CHECK(strstr(hydae_model_errmsg(m), "'only'") && strstr(hydae_model_errmsg(m), "'q'"),
          "message: %s", hydae_model_errmsg(m));
    hydae_model_free(m);
    return CHECK_DONE();
}
