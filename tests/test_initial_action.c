/*
** The model's initial action (hydae_model_set_initial_action) and owned
** data (hydae_model_attach): x' = -x with x(0) := x0, a parameter changed
** after the model was built; the action sees the parameter's value of the
** run, sets the start value and a discrete variable; x = x0 exp(-t). An
** unknown name or a raised event in the initial action is refused with a
** message. Data attached to the model is freed with it (LeakSanitizer in
** CI would report it otherwise).
*/
#include "check.h"
#include "rows.h"

#include <stdlib.h>
#include <string.h>

static int decay(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    ydot[0] = -y[0];
    return 0;
}

static int start_from_parameter(hydae_action *a, void *user)
{
    (void)user;
    int status = hydae_set(a, "x", hydae_get(a, "x0"));
    return status ? status : hydae_set(a, "started_at", hydae_action_time(a));
}

static int set_unknown(hydae_action *a, void *user)
{
    (void)user;
    return hydae_set(a, "nope", 1.0);
}

static int raise_something(hydae_action *a, void *user)
{
    (void)user;
    return hydae_raise(a, "go");
}

static hydae_model *model(hydae_action_fn init)
{
    hydae_model *m = hydae_model_create("initial");
    int ok = hydae_model_add_param(m, "x0", 1.0) == 0
             && hydae_model_add_discrete(m, "started_at", -1.0) == 1;
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *mode = hydae_chart_add_mode(c, "only");
    hydae_mode *other = hydae_chart_add_mode(c, "other");
    hydae_transition *tr = hydae_chart_add_transition(c, "go", mode, other);
    ok = ok && hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
         && hydae_mode_set_rhs(mode, decay, NULL) == 0 && hydae_transition_on_event(tr, "go") == 0
         && hydae_model_set_initial_action(m, init, NULL) == 0
         && hydae_model_attach(m, malloc(64), free) == 0;
    CHECK(ok, "model: %s", hydae_model_errmsg(m));
    return m;
}

int main(void)
{
    hydae_model *m = model(start_from_parameter);
    CHECK(hydae_model_set_param(m, "x0", 5.0) == 0, "set x0");
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(s && hydae_sim_set_time(s, 0.5, 2.0) == 0 && hydae_sim_set_tolerances(s, 1e-9, 1e-11) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0 && hydae_sim_run(s) == 0,
          "run: %s", s ? hydae_sim_errmsg(s) : "");
    int cx = test_column(m, "x"), cs = test_column(m, "started_at");
    CHECK_NEAR(test_value(&rows, 0, cx), 5.0, 1e-12, "x(t0) from x0 set after building");
    CHECK_NEAR(test_value(&rows, rows.n_rows - 1, cx), 5.0 * exp(-1.5), 1e-7, "x(2)");
    CHECK(test_value(&rows, 0, cs) == 0.5, "started_at = %g, want t0 = 0.5",
          test_value(&rows, 0, cs));
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);

    m = model(set_unknown);
    s = hydae_sim_create(m, &status);
    status = s ? hydae_sim_run(s) : -1;
    CHECK(status == HYDAE_ERR_ACTION && strstr(hydae_sim_errmsg(s), "initial action")
              && strstr(hydae_sim_errmsg(s), "'nope'"),
          "unknown name: %d %s", status, hydae_sim_errmsg(s));
    hydae_sim_free(s);
    hydae_model_free(m);

    m = model(raise_something);
    s = hydae_sim_create(m, &status);
    status = s ? hydae_sim_run(s) : -1;
    CHECK(status == HYDAE_ERR_ACTION && strstr(hydae_sim_errmsg(s), "cannot raise"),
          "raise in the initial action: %d %s", status, hydae_sim_errmsg(s));
    hydae_sim_free(s);
    hydae_model_free(m);
    return CHECK_DONE();
}
