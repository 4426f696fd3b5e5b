/*
** The run-time seams of the C API (docs/engine.md, "Run-time seams"),
** each against a closed form or an independent run:
**   after-step   called once per accepted step, at the step rows' times
**                and values; a step event fires the mode's step-event
**                transition at that step; a restart request makes the
**                integrator start again (x' = -k x with k changed by the
**                function: x = exp(-t_s) exp(-2 (t - t_s)));
**   schedule     time events scheduled by actions at t_k = sqrt(k) come
**                out at exactly those doubles (x' = 1 reset to 0 there),
**                INFINITY cancels, a time not after now is refused;
**   stop         an action ends the run at t = 2.5: status 0, the right
**                limit is the last row, the CSV has no "stopped early"
**                line, the reason is kept;
**   nominal      atol with nominal 1e-6 is the same run, bit for bit, as
**                the variable's own atol of atol * 1e-6.
*/
#include "check.h"
#include "rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- after-step ---- */
enum { MAX_CALLS = 4096 };
typedef struct decay {
    double k;            /* x' = -k x */
    double t_switch;     /* the first call at t >= t_switch asks for ... */
    int request;         /* ... this (HYDAE_STEP_EVENT or _RESTART), once */
    double t_asked;      /* when it did (NaN: not yet) */
    int n_calls;
    double worst_yp;     /* max |y' + k y| / |y| seen */
    double t[MAX_CALLS], x[MAX_CALLS];
} decay;

static int decay_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    ydot[0] = -((decay *)user)->k * y[0];
    return 0;
}

static int rise_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)y;
    (void)p;
    (void)user;
    ydot[0] = 1.0;
    return 0;
}

static int decay_after_step(double t, const double *y, const double *yp, const double *p,
                            void *user)
{
    (void)p;
    decay *d = user;
    if (d->n_calls < MAX_CALLS) {
        d->t[d->n_calls] = t;
        d->x[d->n_calls] = y[0];
    }
    d->n_calls++;
    /* y' is the mode's derivative at (t, y), as the method has it. */
    d->worst_yp = fmax(d->worst_yp, fabs(yp[0] + d->k * y[0]) / fabs(y[0]));
    if (t >= d->t_switch && isnan(d->t_asked)) {
        d->t_asked = t;
        if (d->request == HYDAE_STEP_RESTART)
            d->k = 2.0;
        return d->request;
    }
    return HYDAE_STEP_CONTINUE;
}

/* Mode "decay" (x' = -k x, after-step function) and, with a step event,
** mode "rise" (x' = 1) entered on it. */
static hydae_model *decay_model(decay *d, int with_event)
{
    hydae_model *m = hydae_model_create("decay");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *a = hydae_chart_add_mode(c, "decay");
    hydae_mode *b = hydae_chart_add_mode(c, "rise");
    int failed = hydae_mode_add_var(a, "x", HYDAE_DIFFERENTIAL, 1.0) < 0
                 || hydae_mode_set_rhs(a, decay_rhs, d)
                 || hydae_mode_set_after_step(a, decay_after_step)
                 || hydae_mode_add_var(b, "x", HYDAE_DIFFERENTIAL, 0.0) < 0
                 || hydae_mode_set_rhs(b, rise_rhs, NULL);
    if (!failed && with_event) {
        hydae_transition *tr = hydae_chart_add_transition(c, "step", a, b);
        failed = !tr || hydae_transition_on_step_event(tr);
    }
    if (failed || hydae_model_check(m)) {
        fprintf(stderr, "decay model: %s\n", hydae_model_errmsg(m));
        hydae_model_free(m);
        return NULL;
    }
    return m;
}

/* Run with rows at every step (RK45, or integrator); status. */
static int run_steps_with(hydae_model *m, const char *integrator, double t_end, test_rows *rows,
                          hydae_stats *stats)
{
    int status;
    test_rows_init(rows, m);
    hydae_sim *s = hydae_sim_create(m, &status);
    if (!s)
        return status;
    status = hydae_sim_set_time(s, 0.0, t_end);
    if (!status)
        status = hydae_sim_set_tolerances(s, 1e-10, 1e-12);
    if (!status)
        status = hydae_sim_set_output_steps(s, 1);
    if (!status)
        status = hydae_sim_set_integrator(s, integrator);
    if (!status)
        status = hydae_sim_add_row_sink(s, test_rows_sink, rows);
    if (!status)
        status = hydae_sim_run(s);
    if (status)
        fprintf(stderr, "run: %s\n", hydae_sim_errmsg(s));
    hydae_sim_get_stats(s, stats);
    hydae_sim_free(s);
    return status;
}

static int run_steps(hydae_model *m, double t_end, test_rows *rows, hydae_stats *stats)
{
    return run_steps_with(m, "RK45", t_end, rows, stats);
}

static void check_after_step_calls(const char *integrator)
{
    decay d = { 1.0, INFINITY, 0, NAN, 0, 0.0, { 0 }, { 0 } };
    hydae_model *m = decay_model(&d, 0);
    test_rows rows;
    hydae_stats st;
    int status = m ? run_steps_with(m, integrator, 3.0, &rows, &st) : -1;
    CHECK(status == 0, "after-step run: %d", status);
    /* Every step row (t < t_end) is one call, with the same t and x; the
    ** step reaching t_end is the last call. */
    int x = m ? test_column(m, "x") : -1, k = 0, n_wrong = 0;
    for (int i = 0; i < rows.n_rows && x >= 0; i++) {
        if (rows.kind[i] != HYDAE_ROW_STEP)
            continue;
        n_wrong += k >= d.n_calls || d.t[k] != rows.t[i] || d.x[k] != test_value(&rows, i, x);
        k++;
    }
    printf("after-step (%s): %d calls, %d step rows, %ld steps, %d differ, max |y' + y| / |y| "
           "= %.3g\n", integrator, d.n_calls, k, st.n_steps, n_wrong, d.worst_yp);
    CHECK(d.worst_yp < 1e-6, "after-step (%s): y' is not the derivative (%.3g)", integrator,
          d.worst_yp);
    CHECK(d.n_calls == st.n_steps && d.n_calls == k + 1 && n_wrong == 0 && k > 10,
          "after-step: %d calls for %ld steps and %d step rows (%d differ)", d.n_calls,
          st.n_steps, k, n_wrong);
    CHECK(d.n_calls <= MAX_CALLS && d.t[d.n_calls - 1] == 3.0, "the last call at t_end");
    if (m)
        test_rows_free(&rows);
    hydae_model_free(m);
}

static void check_step_event(void)
{
    decay d = { 1.0, 0.5, HYDAE_STEP_EVENT, NAN, 0, 0.0, { 0 }, { 0 } };
    hydae_model *m = decay_model(&d, 1);
    test_rows rows;
    hydae_stats st;
    int status = m ? run_steps(m, 2.0, &rows, &st) : -1;
    CHECK(status == 0, "step event run: %d", status);
    int x = m ? test_column(m, "x") : -1, n_left = 0;
    double t_left = NAN, x_left = NAN, x_right = NAN;
    for (int i = 0; i < rows.n_rows && x >= 0; i++) {
        if (rows.kind[i] == HYDAE_ROW_EVENT_LEFT) {
            n_left++;
            t_left = rows.t[i];
            x_left = test_value(&rows, i, x);
        } else if (rows.kind[i] == HYDAE_ROW_EVENT_RIGHT) {
            x_right = test_value(&rows, i, x);
        }
    }
    /* At the step the function asked at, x = exp(-t) on the left, then
    ** mode rise: x(2) = x_right + (2 - t_e). */
    CHECK(n_left == 1 && t_left == d.t_asked && t_left >= 0.5 && st.n_transitions == 1,
          "step event: %d events, at %.17g, asked at %.17g", n_left, t_left, d.t_asked);
    CHECK_NEAR(x_left, exp(-t_left), 1e-8, "x at the step event");
    CHECK(x_right == x_left, "x carried over by name: %.17g, %.17g", x_left, x_right);
    int last = rows.n_rows - 1;
    CHECK(last > 0 && x >= 0 && fabs(test_value(&rows, last, x) - (x_left + 2.0 - t_left)) < 1e-9,
          "x(2) in mode rise");
    /* Only the steps of mode decay call the function. */
    int n_after = 0;
    for (int k = 0; k < d.n_calls && k < MAX_CALLS; k++)
        n_after += d.t[k] > t_left;
    CHECK(n_after == 0, "%d calls after leaving the mode", n_after);
    if (m)
        test_rows_free(&rows);
    hydae_model_free(m);
}

static void check_step_restart(void)
{
    decay d = { 1.0, 1.0, HYDAE_STEP_RESTART, NAN, 0, 0.0, { 0 }, { 0 } };
    hydae_model *m = decay_model(&d, 0);
    test_rows rows;
    hydae_stats st;
    int status = m ? run_steps(m, 3.0, &rows, &st) : -1;
    CHECK(status == 0, "restart run: %d", status);
    int x = m ? test_column(m, "x") : -1, last = rows.n_rows - 1;
    double want = exp(-d.t_asked) * exp(-2.0 * (3.0 - d.t_asked));
    CHECK(last > 0 && x >= 0 && rows.t[last] == 3.0, "restart: ends at 3");
    if (last > 0 && x >= 0)
        CHECK_NEAR(test_value(&rows, last, x), want, 1e-9, "x(3) after k = 2 from the restart");
    CHECK(st.n_restarts == 2, "restart: %ld integrator starts, want 2", st.n_restarts);
    if (m)
        test_rows_free(&rows);
    hydae_model_free(m);
}

static void check_step_event_needs_function(void)
{
    hydae_model *m = hydae_model_create("bad");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *a = hydae_chart_add_mode(c, "a");
    hydae_transition *tr = hydae_chart_add_transition(c, "t", a, a);
    int built = hydae_mode_add_var(a, "x", HYDAE_DIFFERENTIAL, 1.0) >= 0
                && hydae_mode_set_rhs(a, rise_rhs, NULL) == 0 && tr
                && hydae_transition_on_step_event(tr) == 0;
    CHECK(built && hydae_model_check(m) == HYDAE_ERR_MODEL
              && strstr(hydae_model_errmsg(m), "no after-step function"),
          "a step event without an after-step function: %s", hydae_model_errmsg(m));
    hydae_model_free(m);
}

/* ---- scheduled time events ---- */
typedef struct sched {
    hydae_chart *chart;
    int k;          /* events so far */
    int k_cancel;   /* at this event, cancel */
    double bad_t;   /* if finite, the first event schedules this instead */
} sched;

static int sched_initial(hydae_action *a, void *user)
{
    sched *sc = user;
    return hydae_action_schedule(a, sc->chart, 1.0); /* sqrt(1) */
}

static int sched_action(hydae_action *a, void *user)
{
    sched *sc = user;
    sc->k++;
    if (hydae_set(a, "x", 0.0))
        return -1;
    if (isfinite(sc->bad_t))
        return hydae_action_schedule(a, NULL, sc->bad_t);
    return hydae_action_schedule(a, NULL, sc->k == sc->k_cancel ? INFINITY : sqrt(sc->k + 1.0));
}

static hydae_model *sched_model(sched *sc)
{
    hydae_model *m = hydae_model_create("sched");
    sc->chart = hydae_model_add_chart(m, "c");
    hydae_mode *a = hydae_chart_add_mode(sc->chart, "a");
    hydae_transition *tr = hydae_chart_add_transition(sc->chart, "tick", a, a);
    if (hydae_mode_add_var(a, "x", HYDAE_DIFFERENTIAL, 0.0) < 0
        || hydae_mode_set_rhs(a, rise_rhs, NULL) || !tr || hydae_transition_on_schedule(tr)
        || hydae_transition_set_action(tr, sched_action, sc)
        || hydae_model_set_initial_action(m, sched_initial, sc) || hydae_model_check(m)) {
        fprintf(stderr, "sched model: %s\n", hydae_model_errmsg(m));
        hydae_model_free(m);
        return NULL;
    }
    return m;
}

static void check_schedule(void)
{
    sched sc = { NULL, 0, 6, INFINITY };
    hydae_model *m = sched_model(&sc);
    test_rows rows;
    /* A grid (0.07) that never meets sqrt(k). */
    int status = m ? test_run(m, NULL, 4.0, 0.07, 1e-8, 1e-10, &rows) : -1;
    CHECK(status == 0, "schedule run: %d", status);
    int x = m ? test_column(m, "x") : -1, n_left = 0, n_wrong = 0;
    for (int i = 0; i < rows.n_rows && x >= 0; i++) {
        if (rows.kind[i] != HYDAE_ROW_EVENT_LEFT)
            continue;
        n_left++;
        /* Exactly at sqrt(k), x = sqrt(k) - sqrt(k - 1) on the left. */
        double t_k = sqrt((double)n_left), t_prev = sqrt(n_left - 1.0);
        n_wrong += rows.t[i] != t_k || fabs(test_value(&rows, i, x) - (t_k - t_prev)) > 1e-9;
    }
    int last = rows.n_rows - 1;
    printf("schedule: %d events at sqrt(k), %d wrong\n", n_left, n_wrong);
    CHECK(n_left == 6 && n_wrong == 0, "schedule: %d events (want 6, cancelled at the 6th), "
          "%d wrong", n_left, n_wrong);
    CHECK(last > 0 && x >= 0 && fabs(test_value(&rows, last, x) - (4.0 - sqrt(6.0))) < 1e-9,
          "x(4) = 4 - sqrt(6) after the cancel");
    if (m)
        test_rows_free(&rows);
    hydae_model_free(m);

    sched past = { NULL, 0, 100, 0.5 }; /* at t = 1, schedule 0.5 */
    m = sched_model(&past);
    int status_past = m ? test_run(m, NULL, 4.0, 0.5, 1e-8, 1e-10, &rows) : 0;
    CHECK(status_past == HYDAE_ERR_ACTION, "a time in the past: status %d", status_past);
    if (m)
        test_rows_free(&rows);
    hydae_model_free(m);
}

/* ---- stop ---- */
static int stop_action(hydae_action *a, void *user)
{
    (void)user;
    if (hydae_set(a, "x", 10.0))
        return -1;
    return hydae_action_stop(a, "enough");
}

static void check_stop(void)
{
    hydae_model *m = hydae_model_create("stop");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *a = hydae_chart_add_mode(c, "a");
    hydae_transition *tr = hydae_chart_add_transition(c, "end", a, a);
    if (hydae_mode_add_var(a, "x", HYDAE_DIFFERENTIAL, 0.0) < 0
        || hydae_mode_set_rhs(a, rise_rhs, NULL) || !tr || hydae_transition_on_time(tr, 2.5)
        || hydae_transition_set_action(tr, stop_action, NULL) || hydae_model_check(m)) {
        CHECK(0, "stop model: %s", hydae_model_errmsg(m));
        hydae_model_free(m);
        return;
    }
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    FILE *csv = tmpfile();
    status = s && csv ? 0 : -1;
    if (!status)
        status = hydae_sim_set_time(s, 0.0, 10.0);
    if (!status)
        status = hydae_sim_set_output_interval(s, 1.0);
    if (!status)
        status = hydae_sim_add_row_sink(s, test_rows_sink, &rows);
    if (!status)
        status = hydae_sim_add_csv(s, csv);
    CHECK(status == 0, "stop: setup");
    CHECK(s && hydae_sim_stop_reason(s) == NULL, "no stop before the run");
    if (!status)
        status = hydae_sim_run(s);
    CHECK(status == 0, "stop: run %d: %s", status, s ? hydae_sim_errmsg(s) : "");
    const char *reason = s ? hydae_sim_stop_reason(s) : NULL;
    CHECK(reason && strcmp(reason, "enough") == 0, "stop reason %s", reason ? reason : "NULL");
    CHECK(s && hydae_sim_time(s) == 2.5, "stopped at %.17g", s ? hydae_sim_time(s) : NAN);
    int last = rows.n_rows - 1, x = test_column(m, "x");
    CHECK(last > 0 && rows.kind[last] == HYDAE_ROW_EVENT_RIGHT && rows.t[last] == 2.5
              && test_value(&rows, last, x) == 10.0 && rows.kind[last - 1] == HYDAE_ROW_EVENT_LEFT
              && fabs(test_value(&rows, last - 1, x) - 2.5) < 1e-9,
          "stop: the last rows are the event's left (x = 2.5) and right (x = 10) limits");
    char text[4096] = "";
    if (csv) {
        rewind(csv);
        size_t n = fread(text, 1, sizeof text - 1, csv);
        text[n] = '\0';
        fseek(csv, 0, SEEK_END); /* the next run writes after it */
    }
    CHECK(strstr(text, "2.5,10") && !strstr(text, "stopped early"),
          "stop: the CSV ends with the right limit, unmarked:\n%s", text);
    /* A second run starts with no stop request. */
    test_rows_free(&rows);
    test_rows_init(&rows, m);
    status = s ? hydae_sim_set_time(s, 0.0, 2.0) : -1;
    if (!status)
        status = hydae_sim_run(s);
    CHECK(status == 0 && hydae_sim_stop_reason(s) == NULL && hydae_sim_time(s) == 2.0,
          "a run that reaches t_end has no stop reason: %d %s, t = %g", status,
          s ? hydae_sim_errmsg(s) : "", s ? hydae_sim_time(s) : NAN);
    test_rows_free(&rows);
    hydae_sim_free(s);
    if (csv)
        fclose(csv);
    hydae_model_free(m);
}

/* The initial action may end the run at t0: one row, status 0. */
static int stop_at_start(hydae_action *a, void *user)
{
    (void)user;
    return hydae_action_stop(a, NULL);
}

static void check_stop_at_start(void)
{
    hydae_model *m = hydae_model_create("stop0");
    hydae_mode *a = hydae_chart_add_mode(hydae_model_add_chart(m, "c"), "a");
    if (hydae_mode_add_var(a, "x", HYDAE_DIFFERENTIAL, 1.0) < 0
        || hydae_mode_set_rhs(a, rise_rhs, NULL)
        || hydae_model_set_initial_action(m, stop_at_start, NULL) || hydae_model_check(m)) {
        CHECK(0, "stop0 model: %s", hydae_model_errmsg(m));
        hydae_model_free(m);
        return;
    }
    test_rows rows;
    int status = test_run(m, NULL, 5.0, 1.0, 1e-8, 1e-10, &rows);
    CHECK(status == 0 && rows.n_rows == 1 && rows.t[0] == 0.0,
          "a stop in the initial action: status %d, %d rows", status, rows.n_rows);
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* ---- nominal values ---- */
static hydae_model *nominal_model(double nominal, double own_atol)
{
    hydae_model *m = hydae_model_create("nominal");
    hydae_mode *a = hydae_chart_add_mode(hydae_model_add_chart(m, "c"), "a");
    static decay d = { 1.0, INFINITY, 0, NAN, 0, 0.0, { 0 }, { 0 } };
    int x = hydae_mode_add_var(a, "x", HYDAE_DIFFERENTIAL, 1e-5);
    if (x < 0 || hydae_mode_set_rhs(a, decay_rhs, &d)
        || (nominal > 0 && hydae_mode_set_nominal(a, x, nominal))
        || (own_atol > 0 && hydae_mode_set_tolerances(a, x, 0.0, own_atol))
        || hydae_model_check(m)) {
        fprintf(stderr, "nominal model: %s\n", hydae_model_errmsg(m));
        hydae_model_free(m);
        return NULL;
    }
    return m;
}

static void check_nominal(void)
{
    /* x = 1e-5 exp(-t): the absolute tolerance decides the steps. */
    hydae_model *scaled = nominal_model(1e-6, 0), *own = nominal_model(0, 1e-3 * 1e-6);
    hydae_model *plain = nominal_model(0, 0), *both = nominal_model(1e6, 1e-3 * 1e-6);
    test_rows r_scaled, r_own, r_plain, r_both;
    hydae_stats s_scaled, s_own, s_plain, s_both;
    int ok = scaled && own && plain && both
             && test_run_stats(scaled, "RK45", 5.0, 0.5, 1e-3, 1e-3, &r_scaled, &s_scaled) == 0
             && test_run_stats(own, "RK45", 5.0, 0.5, 1e-3, 1e-3, &r_own, &s_own) == 0
             && test_run_stats(plain, "RK45", 5.0, 0.5, 1e-3, 1e-3, &r_plain, &s_plain) == 0
             && test_run_stats(both, "RK45", 5.0, 0.5, 1e-3, 1e-3, &r_both, &s_both) == 0;
    CHECK(ok, "nominal runs");
    if (!ok)
        return;
    int same = r_scaled.n_rows == r_own.n_rows && r_both.n_rows == r_own.n_rows;
    for (int i = 0; same && i < r_own.n_rows; i++)
        same = r_scaled.values[i] == r_own.values[i] && r_both.values[i] == r_own.values[i];
    printf("nominal: %ld steps with atol 1e-3 * nominal 1e-6, %ld with atol 1e-3\n",
           s_scaled.n_steps, s_plain.n_steps);
    CHECK(same && s_scaled.n_steps == s_own.n_steps && s_both.n_steps == s_own.n_steps,
          "atol * nominal is the variable's own atol of that value (%ld, %ld steps)",
          s_scaled.n_steps, s_own.n_steps);
    CHECK(s_scaled.n_steps > s_plain.n_steps, "the nominal value tightens the error test "
          "(%ld steps, %ld without)", s_scaled.n_steps, s_plain.n_steps);
    int last = r_scaled.n_rows - 1, x = test_column(scaled, "x");
    CHECK_NEAR(test_value(&r_scaled, last, x), 1e-5 * exp(-5.0), 1e-9, "x(5) with nominal");
    CHECK(hydae_mode_set_nominal(hydae_model_mode(plain, "a"), 0, 0.0) == HYDAE_ERR_ARG,
          "nominal 0 refused");
    test_rows_free(&r_scaled);
    test_rows_free(&r_own);
    test_rows_free(&r_plain);
    test_rows_free(&r_both);
    hydae_model_free(scaled);
    hydae_model_free(own);
    hydae_model_free(plain);
    hydae_model_free(both);
}

int main(void)
{
    check_after_step_calls("RK45");
    check_after_step_calls("DSTIFF");
    check_stop_at_start();
    check_step_event();
    check_step_restart();
    check_step_event_needs_function();
    check_schedule();
    check_stop();
    check_nominal();
    return CHECK_DONE();
}
