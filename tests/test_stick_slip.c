/*
** Stick-slip (examples/stick_slip.c) against its closed-form limit cycle:
** stick to x_s = mu_s m g / k at speed v_b; slip, a harmonic swing about
** x_k = mu_k m g / k with omega = sqrt(k/m), for tau = (2 pi - 2 phi) /
** omega, phi = atan2(omega (x_s - x_k), v_b), ending at x = 2 x_k - x_s;
** stick again for 2 (x_s - x_k) / v_b. Every switching time over 3 s, the
** mode sequence, the number of events (no chattering) and x during slip.
*/
#include "check.h"
#include "examples.h"
#include "rows.h"

int main(void)
{
    const double m = 1.0, k = 100.0, g = 9.81, mu_s = 0.6, mu_k = 0.4, v_b = 0.2;
    const double omega = sqrt(k / m), x_s = mu_s * m * g / k, x_k = mu_k * m * g / k;
    const double amp = x_s - x_k, phi = atan2(omega * amp, v_b);
    const double pi = acos(-1.0);
    const double slip_time = (2.0 * pi - 2.0 * phi) / omega, stick_time = 2.0 * amp / v_b;
    const double t_end = 3.0;
    double expected[64];
    int n_expected = 0;
    for (double t = x_s / v_b; t < t_end && n_expected < 62;) {
        expected[n_expected++] = t; /* breaks loose */
        t += slip_time;
        if (t >= t_end)
            break;
        expected[n_expected++] = t; /* catches */
        t += stick_time;
    }
    hydae_model *model = example_stick_slip();
    int status;
    hydae_sim *s = hydae_sim_create(model, &status);
    test_rows rows;
    test_rows_init(&rows, model);
    CHECK(s && hydae_sim_set_time(s, 0.0, t_end) == 0 && hydae_sim_set_tolerances(s, 1e-9, 1e-11) == 0
              && hydae_sim_set_output_interval(s, 0.001) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0,
          "setup");
    status = hydae_sim_run(s);
    CHECK(status == 0, "run: %s", hydae_sim_errmsg(s));
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    CHECK(st.n_events == n_expected, "%ld events, the cycle has %d in %g s", st.n_events,
          n_expected, t_end);
    int cx = test_column(model, "x"), cv = test_column(model, "v");
    int n_event = 0;
    double worst_slip = 0.0, t_slip = 0.0;
    int slipping = 0;
    for (int i = 0; i < rows.n_rows; i++) {
        if (rows.kind[i] == HYDAE_ROW_EVENT_RIGHT) {
            if (n_event < n_expected)
                CHECK(fabs(rows.t[i] - expected[n_event]) < 1e-7,
                      "event %d at %.10f, closed form %.10f", n_event + 1, rows.t[i],
                      expected[n_event]);
            slipping = n_event % 2 == 0; /* events 1, 3, ...: breaks loose */
            t_slip = rows.t[i];
            n_event++;
            continue;
        }
        if (slipping && rows.kind[i] == HYDAE_ROW_GRID) {
            double tau = rows.t[i] - t_slip;
            double x = x_k + amp * cos(omega * tau) + v_b / omega * sin(omega * tau);
            double v = -omega * amp * sin(omega * tau) + v_b * cos(omega * tau);
            worst_slip = fmax(worst_slip, fmax(fabs(test_value(&rows, i, cx) - x),
                                               fabs(test_value(&rows, i, cv) - v) / omega));
        }
        if (!slipping && rows.kind[i] == HYDAE_ROW_GRID)
            CHECK(test_value(&rows, i, cv) == v_b, "stuck at t = %g with v = %g", rows.t[i],
                  test_value(&rows, i, cv));
    }
    CHECK(worst_slip < 1e-7, "slip off the closed form by %g", worst_slip);
    printf("stick-slip: %d events (closed form %d), slip error %.3g, %ld steps\n", n_event,
           n_expected, worst_slip, st.n_steps);
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(model);
    return CHECK_DONE();
}
