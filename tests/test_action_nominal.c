/*
** hydae_action_set_nominal (docs/engine.md, "Run-time seams"): x' = -x,
** x(0) = 1e-5; at t = 1 a time transition's action sets the nominal value
** of x to 1e-6 when the sim's parameter `tighten` is 1. The runs and the
** checks of tests/nominal_runs.h: the same rows up to the event; after it
** the closed form x(1) exp(1 - t) within 1e-8 and more steps, against a
** run that keeps the nominal; two sims of the model on two threads do not
** share it. Here also: a second run of the tightened sim with tighten 0
** is the kept run (the next run starts from the model's nominal values);
** a nominal that is not positive, or a name that is not a variable, ends
** the run with a message.
*/
#include "check.h"
#include "rows.h"
#include "nominal_runs.h"

#include <math.h>
#include <string.h>

static int decay_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    ydot[0] = -y[0];
    return 0;
}

/* Sets the nominal of `user` (NULL: x), -1 when the parameter bad is 1. */
static int tighten_action(hydae_action *a, void *user)
{
    const char *name = user ? user : "x";
    double nominal = hydae_get(a, "bad") != 0.0 ? -1.0 : 1e-6;
    if (hydae_get(a, "tighten") == 0.0)
        return 0;
    return hydae_action_set_nominal(a, name, nominal);
}

static hydae_model *decay_model(const char *name)
{
    hydae_model *m = hydae_model_create("nominal_at_event");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *a = hydae_chart_add_mode(c, "a");
    hydae_transition *tr = hydae_chart_add_transition(c, "tighten", a, a);
    if (hydae_model_add_param(m, "tighten", 0.0) < 0 || hydae_model_add_param(m, "bad", 0.0) < 0
        || hydae_mode_add_var(a, "x", HYDAE_DIFFERENTIAL, 1e-5) < 0
        || hydae_mode_set_rhs(a, decay_rhs, NULL) || !tr || hydae_transition_on_time(tr, 1.0)
        || hydae_transition_set_action(tr, tighten_action, (void *)name) || hydae_model_check(m)) {
        fprintf(stderr, "model: %s\n", hydae_model_errmsg(m));
        hydae_model_free(m);
        return NULL;
    }
    return m;
}

static void check_effect_and_threads(void)
{
    hydae_model *m = decay_model(NULL);
    nominal_runs r;
    int ok = m && nominal_runs_start(&r, m, "RK45", "tighten") == 0;
    CHECK(ok, "runs");
    if (ok) {
        nominal_runs_check(&r, test_column(m, "x"), "C API");
        /* The next run of the tightened sim starts from the model's. */
        r.changed.value = 0.0;
        nominal_run_execute(&r.changed);
        CHECK(r.changed.status == 0 && nominal_same_rows(&r.changed, &r.kept, -1),
              "a second run keeps the nominal value set in the first");
    }
    if (m)
        nominal_runs_free(&r);
    hydae_model_free(m);
}

static void check_refused(const char *name, double bad, const char *says)
{
    hydae_model *m = decay_model(name);
    nominal_run r;
    int ok = m && !nominal_run_setup(&r, m, "RK45", "tighten", 1.0)
             && !hydae_sim_set_param(r.sim, "bad", bad);
    CHECK(ok, "sim");
    if (ok) {
        nominal_run_execute(&r);
        const char *msg = hydae_sim_errmsg(r.sim);
        CHECK(r.status == HYDAE_ERR_ACTION && msg && strstr(msg, says),
              "refused (%d): %s", r.status, msg ? msg : "(none)");
    }
    if (m) {
        hydae_sim_free(r.sim);
        test_rows_free(&r.rows);
    }
    hydae_model_free(m);
}

int main(void)
{
    check_effect_and_threads();
    check_refused(NULL, 1.0, "positive finite");
    check_refused("tighten", 0.0, "not a variable");
    check_refused("nope", 0.0, "not a variable");
    return CHECK_DONE();
}
