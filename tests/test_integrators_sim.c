/*
** Every registered integrator through the simulator: the bouncing ball's
** first impacts against the closed form t1 = sqrt(2 h0 / g), t_{k+1} =
** t_k + 2 e^k v1 / g; the Zeno point ending the run with HYDAE_ERR_ZENO,
** the ball never below the floor; the relay's switching count. Methods for
** explicit ODEs only refuse the pendulum's residual mode with a message.
** RK4 steps h_max = 1e-4.
*/
#include "check.h"
#include "examples.h"
#include "integrators/integrator.h"
#include "rows.h"

#include <string.h>

static void ball(const char *method)
{
    hydae_model *m = example_bouncing_ball();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    int fixed = hy_integrator_find(method)->fixed_step;
    CHECK(s && hydae_sim_set_integrator(s, method) == 0 && hydae_sim_set_time(s, 0.0, 5.0) == 0
              && hydae_sim_set_tolerances(s, 1e-9, 1e-11) == 0
              && (!fixed || hydae_sim_set_option(s, "h_max", "1e-4") == 0)
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0,
          "%s: setup", method);
    status = hydae_sim_run(s);
    CHECK(status == HYDAE_ERR_ZENO, "%s: status %d (%s), want the Zeno stop", method, status,
          hydae_sim_errmsg(s));
    const double g = 9.81, e = 0.8, t1 = sqrt(2.0 / g), v1 = g * t1;
    double t_impact = t1, e_k = e, h_min = INFINITY;
    int k = 0, ch = test_column(m, "h");
    for (int i = 0; i < rows.n_rows; i++) {
        h_min = fmin(h_min, test_value(&rows, i, ch));
        if (rows.kind[i] != HYDAE_ROW_EVENT_RIGHT || k >= 10)
            continue;
        CHECK(fabs(rows.t[i] - t_impact) < 1e-8, "%s: impact %d at %.12g, want %.12g", method,
              k + 1, rows.t[i], t_impact);
        t_impact += 2.0 * e_k * v1 / g;
        e_k *= e;
        k++;
    }
    CHECK(k == 10, "%s: %d impacts seen", method, k);
    CHECK(h_min >= -1e-9, "%s: the ball went to h = %g", method, h_min);
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
}

static void relay(const char *method)
{
    hydae_model *m = example_relay();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    int fixed = hy_integrator_find(method)->fixed_step;
    CHECK(s && hydae_sim_set_integrator(s, method) == 0 && hydae_sim_set_time(s, 0.0, 10.0) == 0
              && hydae_sim_set_tolerances(s, 1e-9, 1e-11) == 0
              && (!fixed || hydae_sim_set_option(s, "h_max", "1e-3") == 0),
          "%s: setup", method);
    status = hydae_sim_run(s);
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    /* 7 switches in 10 s (tests/test_relay.c computes them independently). */
    CHECK(status == 0 && st.n_events == 7, "%s: status %d, %ld switches, want 7", method, status,
          st.n_events);
    hydae_sim_free(s);
    hydae_model_free(m);
}

static void refuses_residual_modes(const char *method)
{
    hydae_model *m = example_string_pendulum();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s && hydae_sim_set_integrator(s, method) == 0
              && hydae_sim_set_option(s, "h_max", "1e-3") == 0,
          "%s: setup", method);
    status = hydae_sim_run(s);
    CHECK(status == HYDAE_ERR_ARG && strstr(hydae_sim_errmsg(s), "mode 'bound'"),
          "%s: status %d, %s", method, status, hydae_sim_errmsg(s));
    hydae_sim_free(s);
    hydae_model_free(m);
}

int main(void)
{
    int n = 0;
    for (int i = 0; hy_integrators[i]; i++, n++) {
        const char *method = hy_integrators[i]->name;
        ball(method);
        relay(method);
        if (hy_integrators[i]->needs_rhs)
            refuses_residual_modes(method);
    }
    CHECK(n == 8, "%d integrators registered, want DSTIFF, VSTIFF, MSTIFF, ABAM, RK45, RK853, RK4, "
          "RADAU", n);
    return CHECK_DONE();
}
