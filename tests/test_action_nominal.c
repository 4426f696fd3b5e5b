/*
** hydae_action_set_nominal (docs/engine.md, "Run-time seams"): x' = -x,
** x(0) = 1e-5, rtol = 1e-6, atol = 1e-3, so the absolute tolerance decides the
** steps; at t = 1 a time transition's action sets the nominal value of x
** to 1e-6 when the sim's parameter `tighten` is 1 (atol 1e-9 from then).
** Against the closed form x = 1e-5 exp(-t):
**   - before t = 1 the run is the same, bit for bit, as one without it;
**   - after t = 1 the error is below 1e-8 (ten times the tighter atol,
**     room for the local errors adding up over the steps), the run
**     without it errs by ten times more, and takes fewer steps;
**   - two sims of one model on two threads (tighten 1 and 0) give the
**     same rows as the two runs one after the other: no sharing;
**   - a second run of the same sim with tighten 0 is the plain run (the
**     next run starts from the model's nominal values);
**   - a nominal that is not positive, or a name that is not a variable,
**     ends the run with a message.
*/
#include "check.h"
#include "rows.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

static int decay_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    ydot[0] = -y[0];
    return 0;
}

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

typedef struct run {
    hydae_sim *sim;
    double tighten;
    test_rows rows;
    hydae_stats stats;
    int status;
} run;

static int setup(run *r, hydae_model *m, double tighten)
{
    memset(r, 0, sizeof *r);
    r->tighten = tighten;
    test_rows_init(&r->rows, m);
    r->sim = hydae_sim_create(m, &r->status);
    if (!r->sim)
        return -1;
    r->status = hydae_sim_set_time(r->sim, 0.0, 4.0);
    if (!r->status)
        r->status = hydae_sim_set_tolerances(r->sim, 1e-6, 1e-3);
    if (!r->status)
        r->status = hydae_sim_set_integrator(r->sim, "RK45");
    if (!r->status)
        r->status = hydae_sim_set_output_steps(r->sim, 1);
    if (!r->status)
        r->status = hydae_sim_add_row_sink(r->sim, test_rows_sink, &r->rows);
    return r->status;
}

static void *execute(void *arg)
{
    run *r = arg;
    r->rows.n_rows = 0;
    r->status = hydae_sim_set_param(r->sim, "tighten", r->tighten);
    if (!r->status)
        r->status = hydae_sim_run(r->sim);
    hydae_sim_get_stats(r->sim, &r->stats);
    return NULL;
}

static void finish(run *r)
{
    hydae_sim_free(r->sim);
    test_rows_free(&r->rows);
}

/* Largest |x - 1e-5 exp(-t)| over the rows at t > after, and their count. */
static double error_after(const run *r, int x, double after, int *n_rows)
{
    double worst = 0.0;
    *n_rows = 0;
    for (int i = 0; i < r->rows.n_rows; i++) {
        if (!(r->rows.t[i] > after))
            continue;
        (*n_rows)++;
        double err = fabs(test_value(&r->rows, i, x) - 1e-5 * exp(-r->rows.t[i]));
        worst = fmax(worst, err);
    }
    return worst;
}

static int same_rows(const run *a, const run *b)
{
    if (a->rows.n_rows != b->rows.n_rows)
        return 0;
    size_t n = (size_t)a->rows.n_rows * (size_t)a->rows.n_columns;
    return memcmp(a->rows.t, b->rows.t, sizeof(double) * (size_t)a->rows.n_rows) == 0
           && memcmp(a->rows.values, b->rows.values, sizeof(double) * n) == 0;
}

/* The same rows up to (and with) the left limit at t = 1. */
static int same_before_event(const run *a, const run *b)
{
    int i = 0;
    for (; i < a->rows.n_rows && i < b->rows.n_rows && a->rows.kind[i] != HYDAE_ROW_EVENT_RIGHT;
         i++)
        if (a->rows.t[i] != b->rows.t[i]
            || memcmp(a->rows.values + (size_t)i * (size_t)a->rows.n_columns,
                      b->rows.values + (size_t)i * (size_t)b->rows.n_columns,
                      sizeof(double) * (size_t)a->rows.n_columns) != 0)
            return 0;
    return i >= 2; /* the start and the left limit at least */
}

static void check_effect_and_threads(void)
{
    hydae_model *m = decay_model(NULL);
    CHECK(m != NULL, "model");
    if (!m)
        return;
    int x = test_column(m, "x");
    run plain, tight, par_tight, par_plain;
    int ok = !setup(&plain, m, 0.0) && !setup(&tight, m, 1.0) && !setup(&par_tight, m, 1.0)
             && !setup(&par_plain, m, 0.0);
    CHECK(ok, "sims");
    if (ok) {
        execute(&plain);
        execute(&tight);
        CHECK(plain.status == 0 && tight.status == 0, "runs: %d %d", plain.status, tight.status);
        int n_plain = 0, n_tight = 0;
        double err_plain = error_after(&plain, x, 1.0, &n_plain);
        double err_tight = error_after(&tight, x, 1.0, &n_tight);
        printf("after t = 1: nominal 1e-6 set: %d steps, max error %.3g; model's nominal: %d "
               "steps, max error %.3g\n", n_tight, err_tight, n_plain, err_plain);
        CHECK(same_before_event(&plain, &tight), "the runs differ before t = 1");
        CHECK(err_tight < 1e-8, "error with atol 1e-9 after t = 1: %.3g", err_tight);
        CHECK(err_plain > 10.0 * err_tight, "the plain run is as accurate (%.3g, %.3g)",
              err_plain, err_tight);
        CHECK(n_tight > 2 * n_plain, "steps after t = 1: %d with nominal 1e-6, %d without",
              n_tight, n_plain);
        /* One sim of the model per thread, at the same time. */
        pthread_t th[2];
        int started0 = pthread_create(&th[0], NULL, execute, &par_tight) == 0;
        int started1 = pthread_create(&th[1], NULL, execute, &par_plain) == 0;
        if (started0)
            pthread_join(th[0], NULL);
        if (started1)
            pthread_join(th[1], NULL);
        CHECK(started0 && started1 && par_tight.status == 0 && par_plain.status == 0,
              "threaded runs");
        CHECK(same_rows(&par_tight, &tight) && same_rows(&par_plain, &plain),
              "a sim on another thread sees the other's nominal value");
        /* The next run of the tightened sim starts from the model's. */
        tight.tighten = 0.0;
        execute(&tight);
        CHECK(tight.status == 0 && same_rows(&tight, &plain), "a second run keeps the nominal");
    }
    finish(&plain);
    finish(&tight);
    finish(&par_tight);
    finish(&par_plain);
    hydae_model_free(m);
}

static void check_refused(const char *name, double bad, const char *says)
{
    hydae_model *m = decay_model(name);
    run r;
    int ok = m && !setup(&r, m, 1.0) && !hydae_sim_set_param(r.sim, "bad", bad);
    CHECK(ok, "sim");
    if (ok) {
        execute(&r);
        const char *msg = hydae_sim_errmsg(r.sim);
        CHECK(r.status == HYDAE_ERR_ACTION && msg && strstr(msg, says),
              "refused (%d): %s", r.status, msg ? msg : "(none)");
    }
    if (m)
        finish(&r);
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
