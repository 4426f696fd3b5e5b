/*
** Bouncing ball (examples/bouncing_ball.c): the first 10 impact times
** against the closed form t1 = sqrt(2 h0 / g), t_{k+1} = t_k + 2 e^k v1 / g
** with v1 = g t1; no spurious re-firing after the reset h := 0; the ball
** never sinks below the floor by more than the location tolerance; with
** the default integrator and with RK853.
*/
#include "check.h"
#include "examples.h"
#include "rows.h"

#include <string.h>

/* With the run's default integrator (integrator NULL) or the one named. */
static void run_ball(double rtol, const char *integrator)
{
    hydae_model *m = example_bouncing_ball();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s != NULL, "create: %s", hydae_model_errmsg(m));
    if (!s)
        return;
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(hydae_sim_set_time(s, 0.0, 3.65) == 0, "set time");
    CHECK(hydae_sim_set_tolerances(s, rtol, rtol * 1e-2) == 0, "set tolerances");
    CHECK(integrator == NULL || hydae_sim_set_integrator(s, integrator) == 0,
          "integrator %s", integrator);
    CHECK(hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0, "sink");
    status = hydae_sim_run(s);
    CHECK(status == 0, "run: %s", hydae_sim_errmsg(s));

    const double g = 9.81, e = 0.8, h0 = 1.0;
    double t_impact = sqrt(2.0 * h0 / g), v1 = g * t_impact, e_k = e;
    double want[11];
    for (int k = 0; k < 11; k++) {
        want[k] = t_impact;
        t_impact += 2.0 * e_k * v1 / g;
        e_k *= e;
    }
    /* Impact 11 is at 3.677 s, past t_end = 3.65: exactly 10 events. */
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    CHECK(st.n_events == 10, "rtol %g: %ld events, want 10", rtol, st.n_events);
    int h = test_column(m, "h"), v = test_column(m, "v");
    int k = 0;
    double h_min = INFINITY;
    for (int i = 0; i < rows.n_rows; i++) {
        h_min = fmin(h_min, test_value(&rows, i, h));
        if (rows.kind[i] != HYDAE_ROW_EVENT_RIGHT)
            continue;
        if (k < 10) {
            char what[64];
            snprintf(what, sizeof what, "rtol %g impact %d time", rtol, k + 1);
            CHECK_NEAR(rows.t[i], want[k], 1e-9, what);
            /* The rebound speed is e times the impact speed of the closed form. */
            double v_impact = v1 * pow(e, k);
            snprintf(what, sizeof what, "rtol %g impact %d rebound", rtol, k + 1);
            CHECK_NEAR(test_value(&rows, i, v), e * v_impact, 1e-6 * v1, what);
            CHECK(rows.kind[i - 1] == HYDAE_ROW_EVENT_LEFT && rows.t[i - 1] == rows.t[i],
                  "event %d: left limit row right before the right limit", k + 1);
        }
        k++;
    }
    CHECK(k == 10, "rtol %g: %d event rows, want 10", rtol, k);
    CHECK(h_min > -1e-9, "rtol %g: ball sank to h = %g", rtol, h_min);
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* The impacts accumulate at t_z = t1 (1 + 2e/(1-e)) = 4.0639 s (Zeno): the
** run must stop there with HYDAE_ERR_ZENO and a message saying so, having
** never let the ball pass the floor. */
static void zeno_point(void)
{
    hydae_model *m = example_bouncing_ball();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(s && hydae_sim_set_time(s, 0.0, 5.0) == 0
              && hydae_sim_set_tolerances(s, 1e-8, 1e-10) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0,
          "setup");
    status = hydae_sim_run(s);
    const double t1 = sqrt(2.0 / 9.81), e = 0.8, t_zeno = t1 * (1.0 + 2.0 * e / (1.0 - e));
    CHECK(status == HYDAE_ERR_ZENO, "status %d (%s), want HYDAE_ERR_ZENO", status,
          hydae_sim_errmsg(s));
    CHECK(fabs(hydae_sim_time(s) - t_zeno) < 1e-6, "stopped at t = %.12g, Zeno point %.12g",
          hydae_sim_time(s), t_zeno);
    CHECK(strstr(hydae_sim_errmsg(s), "'bounce'") != NULL, "message: %s", hydae_sim_errmsg(s));
    int h = test_column(m, "h");
    double h_min = INFINITY;
    for (int i = 0; i < rows.n_rows; i++)
        h_min = fmin(h_min, test_value(&rows, i, h));
    CHECK(h_min >= -1e-9, "the ball passed the floor: h = %g", h_min);
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* Policy "rest": the ball enters its resting mode at the Zeno point and
** lies there (h = v = 0) to t_end; the run succeeds. */
static void zeno_rest(void)
{
    hydae_model *m = example_bouncing_ball();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(s && hydae_sim_set_time(s, 0.0, 5.0) == 0
              && hydae_sim_set_tolerances(s, 1e-8, 1e-10) == 0
              && hydae_sim_set_option(s, "zeno_policy", "rest") == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0,
          "setup");
    status = hydae_sim_run(s);
    CHECK(status == 0, "run with zeno_policy rest: %s", hydae_sim_errmsg(s));
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    CHECK(st.n_zeno_rests == 1, "%ld resting modes entered, want 1", st.n_zeno_rests);
    const double t1 = sqrt(2.0 / 9.81), e = 0.8, t_zeno = t1 * (1.0 + 2.0 * e / (1.0 - e));
    int h = test_column(m, "h"), v = test_column(m, "v");
    double t_rest = NAN;
    int resting_rows_wrong = 0;
    for (int i = 0; i < rows.n_rows; i++) {
        if (rows.t[i] > t_zeno + 1e-3)
            resting_rows_wrong += test_value(&rows, i, h) != 0.0 || test_value(&rows, i, v) != 0.0;
        if (isnan(t_rest) && rows.kind[i] == HYDAE_ROW_EVENT_RIGHT && rows.t[i] > 4.0
            && test_value(&rows, i, v) == 0.0 && test_value(&rows, i, h) == 0.0)
            t_rest = rows.t[i];
    }
    CHECK(fabs(t_rest - t_zeno) < 1e-6, "rest entered at %.12g, Zeno point %.12g", t_rest, t_zeno);
    CHECK(resting_rows_wrong == 0, "%d rows after the Zeno point with h or v not 0",
          resting_rows_wrong);
    CHECK(rows.t[rows.n_rows - 1] == 5.0, "rows end at %g", rows.t[rows.n_rows - 1]);
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
}

int main(void)
{
    zeno_rest();
    run_ball(1e-6, NULL);
    run_ball(1e-10, NULL);
    /* The explicit RK853 locates on its 7th-order dense output. */
    run_ball(1e-6, "RK853");
    run_ball(1e-10, "RK853");
    zeno_point();
    return CHECK_DONE();
}
