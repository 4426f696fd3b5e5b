/*
** Which start values are held at t0 (Modelica's `fixed`):
**  1. a steady start: x' = -x + u with x'(0) held at 0 and x's start value
**     free gives x(0) = u, and x stays at u (closed form: constant);
**  2. an algebraic start value held, a differential one freed: x' = -x + z,
**     0 = z - 2x with z(0) held at 4 gives x(0) = 2; then x' = x, so
**     x = 2 e^t;
**  3. holding a value without freeing another: an error naming the counts.
*/
#include "check.h"
#include "rows.h"

#include <string.h>

static int steady_residual(double t, const double *y, const double *yp, const double *p,
                           double *res, void *user)
{
    (void)t;
    (void)user;
    res[0] = yp[0] + y[0] - p[0];
    return 0;
}

static int loop_residual(double t, const double *y, const double *yp, const double *p,
                         double *res, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    res[0] = yp[0] + y[0] - y[1];
    res[1] = y[1] - 2.0 * y[0];
    return 0;
}

static double value_at(hydae_model *m, test_rows *rows, int row, const char *name)
{
    return test_value(rows, row, test_column(m, name));
}

int main(void)
{
    /* 1. Steady start. */
    hydae_model *m = hydae_model_create("steady");
    int ok = hydae_model_add_param(m, "u", 3.0) == 0;
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *mode = hydae_chart_add_mode(c, "only");
    ok = ok && hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_set_residual(mode, 1, steady_residual, NULL) == 0
         && hydae_mode_set_start_derivative(mode, 0, 0.0) == 0
         && hydae_mode_set_start_fixed(mode, 0, 0) == 0;
    CHECK(ok, "model 1: %s", hydae_model_errmsg(m));
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(s && hydae_sim_set_time(s, 0.0, 1.0) == 0 && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0
              && hydae_sim_run(s) == 0,
          "run 1: %s", s ? hydae_sim_errmsg(s) : "");
    CHECK_NEAR(value_at(m, &rows, 0, "x"), 3.0, 1e-9, "steady x(0)");
    CHECK_NEAR(value_at(m, &rows, rows.n_rows - 1, "x"), 3.0, 1e-9, "steady x(1)");
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);

    /* 2. Algebraic start held, differential freed. */
    m = hydae_model_create("held_algebraic");
    c = hydae_model_add_chart(m, "c");
    mode = hydae_chart_add_mode(c, "only");
    ok = hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_add_var(mode, "z", HYDAE_ALGEBRAIC, 4.0) == 1
         && hydae_mode_set_residual(mode, 2, loop_residual, NULL) == 0
         && hydae_mode_set_start_fixed(mode, 1, 1) == 0 && hydae_mode_set_start_fixed(mode, 0, 0) == 0;
    CHECK(ok, "model 2: %s", hydae_model_errmsg(m));
    s = hydae_sim_create(m, &status);
    test_rows_init(&rows, m);
    CHECK(s && hydae_sim_set_time(s, 0.0, 1.0) == 0 && hydae_sim_set_tolerances(s, 1e-9, 1e-10) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0 && hydae_sim_run(s) == 0,
          "run 2: %s", s ? hydae_sim_errmsg(s) : "");
    CHECK_NEAR(value_at(m, &rows, 0, "x"), 2.0, 1e-9, "x(0) from the held z(0) = 4");
    CHECK_NEAR(value_at(m, &rows, 0, "z"), 4.0, 1e-12, "z(0) held");
    CHECK_NEAR(value_at(m, &rows, rows.n_rows - 1, "x"), 2.0 * exp(1.0), 1e-7, "x(1) = 2 e");
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);

    /* 3. Holding z without freeing x: 1 unknown for 2 equations. */
    m = hydae_model_create("overheld");
    c = hydae_model_add_chart(m, "c");
    mode = hydae_chart_add_mode(c, "only");
    ok = hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_add_var(mode, "z", HYDAE_ALGEBRAIC, 4.0) == 1
         && hydae_mode_set_residual(mode, 2, loop_residual, NULL) == 0
         && hydae_mode_set_start_fixed(mode, 1, 1) == 0;
    CHECK(ok, "model 3");
    s = hydae_sim_create(m, &status);
    status = s ? hydae_sim_run(s) : -1;
    CHECK(status == HYDAE_ERR_INIT && strstr(hydae_sim_errmsg(s), "1 unknowns for 2 equations"),
          "over-held start: status %d, %s", status, hydae_sim_errmsg(s));
    hydae_sim_free(s);
    hydae_model_free(m);
    return CHECK_DONE();
}
