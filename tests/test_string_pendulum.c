/*
** String pendulum (examples/string_pendulum.c, Enge-Rosenblatt et al.,
** sec. 5): exactly 4 structural changes in the documented scenario, in
** the order bound -> free -> bound -> free -> bound; with air drag k = 0
** every free flight is the closed-form parabola
**     x = xs + vxs (t - ts),  y = ys + vys (t - ts) - g (t - ts)^2 / 2
** from the state right after `unstretch`; and r <= L (1 + 1e-6) during
** every free phase.
*/
#include "check.h"
#include "examples.h"
#include "rows.h"

static void scenario(double rtol)
{
    hydae_model *m = example_string_pendulum();
    CHECK(hydae_model_set_param(m, "k", 0.0) == 0, "set k");
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s != NULL, "create: %s", hydae_model_errmsg(m));
    if (!s)
        return;
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(hydae_sim_set_time(s, 0.0, 12.0) == 0 && hydae_sim_set_output_interval(s, 0.005) == 0
              && hydae_sim_set_tolerances(s, rtol, rtol * 1e-2) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0,
          "settings");
    status = hydae_sim_run(s);
    CHECK(status == 0, "rtol %g run: %s", rtol, hydae_sim_errmsg(s));
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    CHECK(st.n_mode_switches == 4, "rtol %g: %ld structural changes, want 4", rtol,
          st.n_mode_switches);
    CHECK(st.n_events == 4, "rtol %g: %ld events, want 4", rtol, st.n_events);

    int cx = test_column(m, "x"), cy = test_column(m, "y"), cvx = test_column(m, "vx");
    int cvy = test_column(m, "vy"), cr = test_column(m, "r"), cphi = test_column(m, "phi");
    CHECK(cx >= 0 && cy >= 0 && cvx >= 0 && cvy >= 0 && cr >= 0 && cphi >= 0, "columns");
    const double g = 9.81, L = 1.0;
    int n_free_phases = 0, in_free = 0, n_right = 0;
    double ts = 0, xs = 0, ys = 0, vxs = 0, vys = 0, worst_parabola = 0.0, r_max = 0.0;
    for (int i = 0; i < rows.n_rows; i++) {
        int free_row = !isnan(test_value(&rows, i, cvx));
        /* Every row has x, y, phi and r: as unknowns or as outputs. */
        CHECK(!isnan(test_value(&rows, i, cx)) && !isnan(test_value(&rows, i, cphi))
                  && !isnan(test_value(&rows, i, cr)),
              "row %d at t = %g lacks x, phi or r", i, rows.t[i]);
        if (rows.kind[i] == HYDAE_ROW_EVENT_RIGHT) {
            n_right++;
            /* Alternation: right limits of events 1 and 3 are free. */
            CHECK(free_row == (n_right % 2 == 1), "event %d at t = %g enters the wrong mode",
                  n_right, rows.t[i]);
            if (free_row) {
                n_free_phases++;
                in_free = 1;
                ts = rows.t[i];
                xs = test_value(&rows, i, cx);
                ys = test_value(&rows, i, cy);
                vxs = test_value(&rows, i, cvx);
                vys = test_value(&rows, i, cvy);
            } else {
                in_free = 0;
            }
            continue;
        }
        if (!in_free || !free_row)
            continue;
        double tau = rows.t[i] - ts;
        double x_exact = xs + vxs * tau, y_exact = ys + vys * tau - 0.5 * g * tau * tau;
        double err = fmax(fabs(test_value(&rows, i, cx) - x_exact),
                          fabs(test_value(&rows, i, cy) - y_exact));
        worst_parabola = fmax(worst_parabola, err);
        r_max = fmax(r_max, test_value(&rows, i, cr));
    }
    CHECK(n_free_phases == 2, "rtol %g: %d free phases, want 2", rtol, n_free_phases);
    CHECK(worst_parabola <= 100.0 * rtol, "rtol %g: free flight is off the parabola by %g",
          rtol, worst_parabola);
    CHECK(r_max <= L * (1.0 + 1e-6), "rtol %g: r reached %.12g > L (1 + 1e-6)", rtol, r_max);
    printf("rtol %g: %ld steps, parabola error %.3g, max r - L in free %.3g\n", rtol,
           st.n_steps, worst_parabola, r_max - L);
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
}

int main(void)
{
    scenario(1e-6);
    scenario(1e-8);
    scenario(1e-10);
    return CHECK_DONE();
}
