/*
** Taylor's algebraic loop (examples/algebraic_loop.c) solved as an index-1
** DAE against its closed form: before the command step at t = 0.5 all is
** zero; after it x = (1 - exp(-5.5 (t - 0.5))) / 11, y = (1 - 9x)/2,
** u = (1 + 9x)/2. At t = 0.5 the algebraic y and u jump (left limit 0,
** right limit 1/2) while x stays continuous.
*/
#include "check.h"
#include "examples.h"
#include "rows.h"

int main(void)
{
    const double tols[] = { 1e-4, 1e-6, 1e-8, 1e-10 };
    double err_by_tol[4];
    for (int q = 0; q < 4; q++) {
        hydae_model *m = example_algebraic_loop();
        int status;
        hydae_sim *s = hydae_sim_create(m, &status);
        CHECK(s != NULL, "create: %s", hydae_model_errmsg(m));
        if (!s)
            return CHECK_DONE();
        test_rows rows;
        test_rows_init(&rows, m);
        CHECK(hydae_sim_set_time(s, 0.0, 2.0) == 0 && hydae_sim_set_output_interval(s, 0.01) == 0
                  && hydae_sim_set_tolerances(s, tols[q], tols[q]) == 0
                  && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0,
              "settings");
        status = hydae_sim_run(s);
        CHECK(status == 0, "run: %s", hydae_sim_errmsg(s));
        int cx = test_column(m, "x"), cy = test_column(m, "y"), cu = test_column(m, "u");
        double worst = 0.0;
        int n_left = 0, n_right = 0;
        for (int i = 0; i < rows.n_rows; i++) {
            double t = rows.t[i];
            int after = t > 0.5 || rows.kind[i] == HYDAE_ROW_EVENT_RIGHT
                        || (t == 0.5 && rows.kind[i] == HYDAE_ROW_GRID);
            double r = after ? 1.0 : 0.0;
            double x = after ? (1.0 - exp(-5.5 * (t - 0.5))) / 11.0 : 0.0;
            double err = fmax(fabs(test_value(&rows, i, cx) - x),
                              fmax(fabs(test_value(&rows, i, cy) - (r - 9.0 * x) / 2.0),
                                   fabs(test_value(&rows, i, cu) - (r + 9.0 * x) / 2.0)));
            worst = fmax(worst, err);
            if (rows.kind[i] == HYDAE_ROW_EVENT_LEFT) {
                n_left++;
                CHECK(t == 0.5 && test_value(&rows, i, cy) == 0.0, "left limit at %g", t);
            }
            if (rows.kind[i] == HYDAE_ROW_EVENT_RIGHT) {
                n_right++;
                CHECK(t == 0.5, "the time event fired at t = %.17g, not exactly 0.5", t);
                CHECK_NEAR(test_value(&rows, i, cy), 0.5, 1e-12, "right limit of y");
            }
        }
        CHECK(n_left == 1 && n_right == 1, "%d left and %d right event rows, want 1 and 1",
              n_left, n_right);
        CHECK(worst <= 10.0 * tols[q], "tol %g: error %g beyond 10 x tol", tols[q], worst);
        err_by_tol[q] = worst;
        printf("tol %g: max error %.3g\n", tols[q], worst);
        test_rows_free(&rows);
        hydae_sim_free(s);
        hydae_model_free(m);
    }
    CHECK(err_by_tol[3] < err_by_tol[1] && err_by_tol[1] < err_by_tol[0],
          "the error does not shrink with the tolerance: %g %g %g", err_by_tol[0],
          err_by_tol[1], err_by_tol[3]);
    return CHECK_DONE();
}
