/*
** Parameters set after compiling (hydae_model_set_param, `--set`) reach
** everything that depends on them, through the compiled model's initial
** action and its transitions:
**  - a start value `Real x(start = 2*a)`: x(t) = 2a + t;
**  - a parameter computed from another, b = 3*a, in an equation and a start
**    value: z' = b, z(0) = b, so z(t) = 3a (1 + t);
**  - the initial mode's entry action reads the start value of the run:
**    `entry w := x + a;` gives w = 2a + a = 3a;
**  - a discrete variable with start a + 1 is written to the results as such;
**  - an `if` condition true at t0 only because of the set parameter:
**    y' = if x > c then 1 else 0 with x(0) = 2a: with a = 1, c = 2.5 it is
**    false (y stays 0) until x = 2 + t reaches 2.5 at t = 0.5 (y = t - 0.5
**    after), with c = 1 it is true from the start (y = t, no event);
**  - a mode entered later takes a start value that uses parameters with
**    the parameters of the run: after `time >= 1`, u(start = 10*a) gives
**    u(t) = 10a - (t - 1).
** Every expected value is the closed form above. The compiled model is
** then freed through hydae_model_free alone (the code is attached to it);
** LeakSanitizer and AddressSanitizer check that nothing leaks or is freed
** twice.
*/
#include "check.h"
#include "lang/lang.h"
#include "rows.h"

#include <math.h>

static const char source[] =
    "model params\n"
    "  parameter Real a = 1;\n"
    "  parameter Real b = 3 * a;\n"
    "  parameter Real c = 2.5;\n"
    "  discrete Real d(start = a + 1);\n"
    "  chart main\n"
    "    initial mode one\n"
    "      Real x(start = 2 * a), z(start = b), w(start = 0), y(start = 0);\n"
    "    equation\n"
    "      der(x) = 1;\n"
    "      der(z) = b;\n"
    "      der(w) = 0;\n"
    "      der(y) = if x > c then 1 else 0;\n"
    "    entry\n"
    "      w := x + a;\n"
    "    end one;\n"
    "    mode two\n"
    "      Real u(start = 10 * a);\n"
    "    equation\n"
    "      der(u) = -1;\n"
    "    end two;\n"
    "    transition later from one to two when time >= 1 end;\n"
    "  end main;\n"
    "end params;\n";

static int run(hydae_model *m, test_rows *rows)
{
    int status;
    test_rows_init(rows, m);
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s != NULL, "create: %s", hydae_model_errmsg(m));
    if (!s)
        return -1;
    CHECK(hydae_sim_set_time(s, 0.0, 2.0) == 0 && hydae_sim_set_output_interval(s, 0.125) == 0
              && hydae_sim_set_tolerances(s, 1e-10, 1e-12) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, rows) == 0,
          "settings");
    status = hydae_sim_run(s);
    if (status != 0)
        fprintf(stderr, "run: %s\n", hydae_sim_errmsg(s));
    hydae_sim_free(s);
    return status;
}

/* One run with parameter a (set after compiling unless a == 1) and c. */
static void check_run(double a, double c)
{
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(source, sizeof source - 1, "params.hym", stderr,
                                                NULL, &n_errors);
    CHECK(unit != NULL, "params.hym: %d errors", n_errors);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    if (a != 1.0)
        CHECK(hydae_model_set_param(m, "a", a) == 0, "set a");
    if (c != 2.5)
        CHECK(hydae_model_set_param(m, "c", c) == 0, "set c");
    test_rows rows;
    CHECK(run(m, &rows) == 0, "run with a = %g, c = %g", a, c);
    int cx = test_column(m, "x"), cz = test_column(m, "z"), cw = test_column(m, "w"),
        cy = test_column(m, "y"), cd = test_column(m, "d"), cu = test_column(m, "u");
    CHECK(cx >= 0 && cz >= 0 && cw >= 0 && cy >= 0 && cd >= 0 && cu >= 0, "columns");
    double t_on = fmax(c - 2.0 * a, 0.0); /* x = 2a + t crosses c */
    double worst = 0.0;
    int n_checked = 0, n_events_before_1 = 0;
    for (int i = 0; i < rows.n_rows && cx >= 0 && cz >= 0 && cw >= 0 && cy >= 0 && cd >= 0
                    && cu >= 0; i++) {
        double t = rows.t[i];
        if (rows.kind[i] == HYDAE_ROW_EVENT_RIGHT && t < 1.0 - 1e-9)
            n_events_before_1++;
        CHECK(fabs(test_value(&rows, i, cd) - (a + 1.0)) <= 1e-12, "a = %g: d = %.17g at t = %g", a,
              test_value(&rows, i, cd), t);
        int in_one = t < 1.0 || (t == 1.0 && rows.kind[i] == HYDAE_ROW_EVENT_LEFT);
        if (in_one) {
            worst = fmax(worst, fabs(test_value(&rows, i, cx) - (2.0 * a + t)));
            worst = fmax(worst, fabs(test_value(&rows, i, cz) - 3.0 * a * (1.0 + t)));
            worst = fmax(worst, fabs(test_value(&rows, i, cw) - 3.0 * a));
            worst = fmax(worst, fabs(test_value(&rows, i, cy) - fmax(t - t_on, 0.0)));
            CHECK(isnan(test_value(&rows, i, cu)), "u has no value in mode one");
        } else {
            worst = fmax(worst, fabs(test_value(&rows, i, cu) - (10.0 * a - (t - 1.0))));
            CHECK(isnan(test_value(&rows, i, cx)), "x has no value in mode two");
        }
        n_checked++;
    }
    CHECK(n_checked >= 17, "a = %g: %d rows", a, n_checked);
    CHECK(worst <= 1e-8, "a = %g, c = %g: off the closed forms by %.3g", a, c, worst);
    int want_events = t_on > 0.0 && t_on < 1.0 ? 1 : 0;
    CHECK(n_events_before_1 == want_events, "a = %g, c = %g: %d events before t = 1, want %d", a, c,
          n_events_before_1, want_events);
    printf("a = %g, c = %g: %d rows, %d events before t = 1, largest error %.2g\n", a, c, n_checked,
           n_events_before_1, worst);
    test_rows_free(&rows);
    hydae_model_free(m); /* frees the compiled code too */
}

int main(void)
{
    check_run(1.0, 2.5); /* the defaults: the condition turns true at t = 0.5 */
    check_run(1.0, 1.0); /* true from the start */
    check_run(2.0, 2.5); /* 2a = 4 > 2.5: true at t0 only because of --set a */
    check_run(0.5, 2.5); /* x = 1 + t reaches 2.5 at t = 1.5: not in mode one */
    return CHECK_DONE();
}
