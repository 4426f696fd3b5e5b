/*
** Edge cases of event handling, each a defect once found by review:
**  1. a crossing no transition takes (condition false) must not hide a
**     time event at the end of the same step, nor a second crossing later
**     in that step;
**  2. one monotone crossing fires a self-transition once, not twice;
**  3. a parallel chart's events (a 1 ms sample clock) do not disarm
**     another chart's guard that sits near zero;
**  4. a time event at t_end comes before the grid row at t_end, which
**     shows the value after the event;
**  5. a second run with the default output interval recomputes it.
** Plant of all: x' = rate (1 unless said), x(0) = 0, counters as
** discrete variables.
*/
#include "check.h"
#include "rows.h"

#include <string.h>

static int unit_rate(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)y;
    (void)user;
    ydot[0] = p[2]; /* rate */
    return 0;
}

/* Guards x - level_k for the levels passed as user data. */
typedef struct levels { int n; double level[4]; } levels;

static int level_guards(double t, const double *y, const double *yp, const double *p, double *g,
                        void *user)
{
    (void)t;
    (void)yp;
    (void)p;
    const levels *lv = user;
    for (int k = 0; k < lv->n; k++)
        g[k] = y[0] - lv->level[k];
    return 0;
}

static int never(const hydae_action *a, void *user)
{
    (void)a;
    (void)user;
    return 0;
}

static int count(hydae_action *a, void *user)
{
    const char *name = user;
    return hydae_set(a, name, hydae_get(a, name) + 1.0);
}

/* A model with one chart "plant", mode "run" (x' = 1) with the given guard
** levels, and discrete counters k and j. */
static hydae_model *plant(levels *lv, hydae_chart **chart, hydae_mode **mode)
{
    hydae_model *m = hydae_model_create("edges");
    int ok = hydae_model_add_discrete(m, "k", 0.0) == 0 && hydae_model_add_discrete(m, "j", 0.0) == 1
             && hydae_model_add_param(m, "rate", 1.0) == 2;
    *chart = hydae_model_add_chart(m, "plant");
    *mode = hydae_chart_add_mode(*chart, "run");
    ok = ok && hydae_mode_add_var(*mode, "x", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_set_rhs(*mode, unit_rate, lv) == 0
         && hydae_mode_set_guards(*mode, lv->n, level_guards) == 0;
    CHECK(ok, "building plant: %s", hydae_model_errmsg(m));
    return m;
}

static hydae_transition *self(hydae_chart *c, hydae_mode *mode, const char *name)
{
    return hydae_chart_add_transition(c, name, mode, mode);
}

static double final_value(hydae_model *m, double t_end, double dt, const char *name,
                          test_rows *rows, int *status)
{
    hydae_sim *s = hydae_sim_create(m, status);
    test_rows_init(rows, m);
    CHECK(s && hydae_sim_set_time(s, 0.0, t_end) == 0
              && (dt <= 0.0 || hydae_sim_set_output_interval(s, dt) == 0)
              && hydae_sim_add_row_sink(s, test_rows_sink, rows) == 0,
          "setup");
    *status = s ? hydae_sim_run(s) : -1;
    CHECK(*status == 0, "run: %s", s ? hydae_sim_errmsg(s) : "no sim");
    int col = test_column(m, name);
    double v = rows->n_rows > 0 ? test_value(rows, rows->n_rows - 1, col) : NAN;
    hydae_sim_free(s);
    return v;
}

static void untaken_crossing_hides_nothing(void)
{
    /* Guard x - 0.3 with a false condition; a time event at 0.3001 (likely
    ** the end of the step that contains the crossing); and a second guard
    ** x - 0.30001 that must fire. */
    static levels lv = { 2, { 0.3, 0.30001 } };
    hydae_chart *c;
    hydae_mode *run;
    hydae_model *m = plant(&lv, &c, &run);
    hydae_transition *blocked = self(c, run, "blocked");
    hydae_transition *second = self(c, run, "second");
    hydae_transition *timed = self(c, run, "timed");
    CHECK(hydae_transition_on_guard(blocked, 0, HYDAE_RISING) == 0
              && hydae_transition_set_condition(blocked, never, NULL) == 0
              && hydae_transition_on_guard(second, 1, HYDAE_RISING) == 0
              && hydae_transition_set_action(second, count, "j") == 0
              && hydae_transition_on_time(timed, 0.3001) == 0
              && hydae_transition_set_action(timed, count, "k") == 0,
          "transitions");
    test_rows rows;
    int status;
    double k = final_value(m, 1.0, 0.0, "k", &rows, &status);
    double j = test_value(&rows, rows.n_rows - 1, test_column(m, "j"));
    CHECK(k == 1.0, "the time event at 0.3001 fired %g times, want 1", k);
    CHECK(j == 1.0, "the second crossing (x = 0.30001) fired %g times, want 1", j);
    test_rows_free(&rows);
    hydae_model_free(m);
}

static void monotone_crossing_fires_once(void)
{
    static levels lv = { 1, { 0.35 } };
    hydae_chart *c;
    hydae_mode *run;
    hydae_model *m = plant(&lv, &c, &run);
    hydae_transition *tr = self(c, run, "counter");
    CHECK(hydae_transition_on_guard(tr, 0, HYDAE_RISING) == 0
              && hydae_transition_set_action(tr, count, "k") == 0,
          "transition");
    test_rows rows;
    int status;
    double k = final_value(m, 1.0, 0.0, "k", &rows, &status);
    CHECK(k == 1.0, "x - 0.35 crossed once, the counter fired %g times", k);
    test_rows_free(&rows);
    hydae_model_free(m);
}

static void parallel_clock_keeps_guards_armed(void)
{
    /* Chart "plant": x' = 1e-4, guard x - 1e-5 (BOTH, then RISING) -> k += 1
    ** at t = 0.1; it stays inside the arming band (1e-7) for 2 ms. Chart
    ** "clock": a 1 ms no-op sample clock restarting the integrator. */
    for (int dir = 0; dir < 2; dir++) {
        static levels lv = { 1, { 1e-5 } };
        hydae_chart *c;
        hydae_mode *run;
        hydae_model *m = plant(&lv, &c, &run);
        hydae_transition *tr = self(c, run, "cross_zero");
        CHECK(hydae_transition_on_guard(tr, 0, dir ? HYDAE_RISING : HYDAE_BOTH) == 0
                  && hydae_transition_set_action(tr, count, "k") == 0,
              "transition");
        hydae_chart *clock = hydae_model_add_chart(m, "clock");
        hydae_mode *ticking = hydae_chart_add_mode(clock, "ticking");
        hydae_transition *tick = self(clock, ticking, "tick");
        CHECK(hydae_transition_on_sample(tick, 0.0, 1e-3) == 0, "clock");
        CHECK(hydae_model_set_param(m, "rate", 1e-4) == 0, "rate");
        test_rows rows;
        int status;
        double k = final_value(m, 0.2, 0.0, "k", &rows, &status);
        CHECK(k == 1.0, "%s: the crossing fired %g times with a parallel clock, want 1",
              dir ? "rising" : "both", k);
        int ck = test_column(m, "k");
        for (int i = 0; i < rows.n_rows; i++)
            if (rows.kind[i] == HYDAE_ROW_EVENT_RIGHT && test_value(&rows, i, ck) == 1.0
                && (i == 0 || test_value(&rows, i - 1, ck) == 0.0)) {
                CHECK(fabs(rows.t[i] - 0.1) < 1e-9, "the crossing fired at t = %.12g, want 0.1",
                      rows.t[i]);
                break;
            }
        test_rows_free(&rows);
        hydae_model_free(m);
    }
}

static void time_event_at_t_end(void)
{
    static levels lv = { 0, { 0.0 } };
    hydae_chart *c;
    hydae_mode *run;
    hydae_model *m = plant(&lv, &c, &run);
    hydae_transition *tick = self(c, run, "tick");
    CHECK(hydae_transition_on_sample(tick, 0.5, 0.5) == 0
              && hydae_transition_set_action(tick, count, "k") == 0,
          "transition");
    test_rows rows;
    int status;
    double k = final_value(m, 1.0, 0.25, "k", &rows, &status);
    CHECK(k == 2.0, "ticks at 0.5 and 1: k = %g at the end, want 2", k);
    CHECK(rows.n_rows >= 3 && rows.kind[rows.n_rows - 1] == HYDAE_ROW_GRID
              && rows.kind[rows.n_rows - 2] == HYDAE_ROW_EVENT_RIGHT
              && rows.kind[rows.n_rows - 3] == HYDAE_ROW_EVENT_LEFT,
          "the last rows must be left limit, right limit, grid row at t_end");
    test_rows_free(&rows);
    hydae_model_free(m);
}

static void default_interval_recomputed(void)
{
    static levels lv = { 0, { 0.0 } };
    hydae_chart *c;
    hydae_mode *run;
    hydae_model *m = plant(&lv, &c, &run);
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(s && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0
              && hydae_sim_set_time(s, 0.0, 1.0) == 0 && hydae_sim_run(s) == 0,
          "first run");
    int first = rows.n_rows;
    rows.n_rows = 0;
    CHECK(hydae_sim_set_time(s, 0.0, 100.0) == 0 && hydae_sim_run(s) == 0, "second run");
    CHECK(first == 501 && rows.n_rows == 501, "grid rows %d and %d, want 501 each", first,
          rows.n_rows);
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* Output at steps: one row per accepted step (t0 and t_end as grid rows),
** strictly increasing in time, as many as the statistics count. */
static void output_at_steps(void)
{
    static levels lv = { 0, { 0.0 } };
    hydae_chart *c;
    hydae_mode *run;
    hydae_model *m = plant(&lv, &c, &run);
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(s && hydae_sim_set_output_steps(s, 1) == 0 && hydae_sim_set_time(s, 0.0, 3.0) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0 && hydae_sim_run(s) == 0,
          "run");
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    int n_step_rows = 0, increasing = 1;
    for (int i = 0; i < rows.n_rows; i++) {
        n_step_rows += rows.kind[i] == HYDAE_ROW_STEP;
        if (i > 0 && !(rows.t[i] > rows.t[i - 1]))
            increasing = 0;
    }
    CHECK(rows.n_rows >= 3 && rows.kind[0] == HYDAE_ROW_GRID && rows.t[0] == 0.0
              && rows.kind[rows.n_rows - 1] == HYDAE_ROW_GRID && rows.t[rows.n_rows - 1] == 3.0,
          "first and last rows are the grid rows at t0 and t_end");
    CHECK(n_step_rows == st.n_steps - 1, "%d step rows for %ld steps (the last is t_end)",
          n_step_rows, st.n_steps);
    CHECK(increasing, "rows not strictly increasing in time");
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* Guards (t - 1)^2 (touches zero at t = 1) with a time event at exactly
** t = 1 forcing a step to end there: no crossing, no transition. */
static int touching_guard(double t, const double *y, const double *yp, const double *p,
                          double *g, void *user)
{
    (void)y;
    (void)yp;
    (void)p;
    (void)user;
    g[0] = (t - 1.0) * (t - 1.0);
    return 0;
}

static void touching_zero_is_no_crossing(void)
{
    static levels lv = { 0, { 0.0 } };
    hydae_chart *c;
    hydae_mode *run;
    hydae_model *m = plant(&lv, &c, &run);
    hydae_chart *watch = hydae_model_add_chart(m, "watch");
    hydae_mode *w = hydae_chart_add_mode(watch, "w");
    hydae_transition *touch = self(watch, w, "touch");
    hydae_transition *tick = self(c, run, "tick_at_one");
    CHECK(hydae_mode_set_guards(w, 1, touching_guard) == 0
              && hydae_transition_on_guard(touch, 0, HYDAE_BOTH) == 0
              && hydae_transition_set_action(touch, count, "j") == 0
              && hydae_transition_on_time(tick, 1.0) == 0,
          "transitions");
    test_rows rows;
    int status;
    double j = final_value(m, 2.0, 0.0, "j", &rows, &status);
    CHECK(j == 0.0, "a guard touching zero fired %g times", j);
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* A time event at t0 fires in the initial discrete phase (left and right
** limit rows at t0); one on an output point gives left, right, then the
** grid row with the right limit. */
static void events_at_t0_and_on_output_points(void)
{
    static levels lv = { 0, { 0.0 } };
    hydae_chart *c;
    hydae_mode *run;
    hydae_model *m = plant(&lv, &c, &run);
    hydae_transition *at_start = self(c, run, "at_start");
    hydae_transition *on_grid = self(c, run, "on_grid");
    CHECK(hydae_transition_on_time(at_start, 0.0) == 0
              && hydae_transition_set_action(at_start, count, "k") == 0
              && hydae_transition_on_time(on_grid, 0.5) == 0
              && hydae_transition_set_action(on_grid, count, "k") == 0,
          "transitions");
    test_rows rows;
    int status;
    double k = final_value(m, 1.0, 0.1, "k", &rows, &status);
    CHECK(k == 2.0, "k = %g, want 2", k);
    int ck = test_column(m, "k");
    CHECK(rows.n_rows > 3 && rows.kind[0] == HYDAE_ROW_EVENT_LEFT && rows.t[0] == 0.0
              && test_value(&rows, 0, ck) == 0.0 && rows.kind[1] == HYDAE_ROW_EVENT_RIGHT
              && rows.t[1] == 0.0 && test_value(&rows, 1, ck) == 1.0,
          "the rows at t0 must be the left (k = 0) and right (k = 1) limits");
    int found = 0;
    for (int i = 2; i + 2 < rows.n_rows; i++)
        if (rows.kind[i] == HYDAE_ROW_EVENT_LEFT && rows.t[i] == 0.5) {
            found = rows.kind[i + 1] == HYDAE_ROW_EVENT_RIGHT && rows.kind[i + 2] == HYDAE_ROW_GRID
                    && rows.t[i + 2] == 0.5 && test_value(&rows, i + 2, ck) == 2.0
                    && rows.kind[i - 1] == HYDAE_ROW_GRID && fabs(rows.t[i - 1] - 0.4) < 1e-12;
        }
    CHECK(found, "at t = 0.5: grid 0.4, left, right, grid 0.5 with the right limit");
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* Guard 0.01 - (x - 0.5)^2: positive only for x in (0.4, 0.6). With the
** first step covering all of [0, 1] (h0 = 1; x' = 1 has no error to
** shrink it), the guard crosses twice inside that one step: found through
** the interior samples (the default), missed without them. */
static int window_guard(double t, const double *y, const double *yp, const double *p, double *g,
                        void *user)
{
    (void)t;
    (void)yp;
    (void)p;
    (void)user;
    g[0] = 0.01 - (y[0] - 0.5) * (y[0] - 0.5);
    return 0;
}

static void double_crossing_in_one_step(int guard_samples)
{
    hydae_model *m = hydae_model_create("window");
    int ok = hydae_model_add_discrete(m, "k", 0.0) == 0 && hydae_model_add_discrete(m, "j", 0.0) == 1
             && hydae_model_add_param(m, "rate", 1.0) == 2;
    hydae_chart *c = hydae_model_add_chart(m, "plant");
    hydae_mode *run = hydae_chart_add_mode(c, "run");
    ok = ok && hydae_mode_add_var(run, "x", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_set_rhs(run, unit_rate, NULL) == 0
         && hydae_mode_set_guards(run, 1, window_guard) == 0;
    hydae_transition *opens = self(c, run, "opens"), *closes = self(c, run, "closes");
    ok = ok && hydae_transition_on_guard(opens, 0, HYDAE_RISING) == 0
         && hydae_transition_set_action(opens, count, "k") == 0
         && hydae_transition_on_guard(closes, 0, HYDAE_FALLING) == 0
         && hydae_transition_set_action(closes, count, "j") == 0;
    CHECK(ok, "model");
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    char samples[16];
    snprintf(samples, sizeof samples, "%d", guard_samples);
    CHECK(s && hydae_sim_set_time(s, 0.0, 1.0) == 0 && hydae_sim_set_option(s, "h0", "1") == 0
              && hydae_sim_set_option(s, "guard_samples", samples) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0 && hydae_sim_run(s) == 0,
          "run: %s", s ? hydae_sim_errmsg(s) : "");
    double k = test_value(&rows, rows.n_rows - 1, 0), j = test_value(&rows, rows.n_rows - 1, 1);
    /* Both crossings, also with no sample inside the step: the guard's
    ** extremum is searched (issue 11, fault 1). */
    CHECK(k == 1.0 && j == 1.0, "samples %d: opened %g, closed %g times, want 1 and 1",
          guard_samples, k, j);
    int n_right = 0;
    for (int i = 0; i < rows.n_rows; i++)
        if (rows.kind[i] == HYDAE_ROW_EVENT_RIGHT) {
            double want = n_right == 0 ? 0.4 : 0.6;
            CHECK(fabs(rows.t[i] - want) < 1e-9, "event %d at %.12g, want %g", n_right + 1,
                  rows.t[i], want);
            n_right++;
        }
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* Two guards crossing at different times inside one step (x = 0.3 and
** x = 0.30001): the earlier fires first, the later at its own time, as
** two event instants. */
static void earliest_crossing_first(void)
{
    static levels lv = { 2, { 0.30001, 0.3 } }; /* declared later-first on purpose */
    hydae_chart *c;
    hydae_mode *run;
    hydae_model *m = plant(&lv, &c, &run);
    hydae_transition *late = self(c, run, "late"), *early = self(c, run, "early");
    CHECK(hydae_transition_on_guard(late, 0, HYDAE_RISING) == 0
              && hydae_transition_set_action(late, count, "j") == 0
              && hydae_transition_on_guard(early, 1, HYDAE_RISING) == 0
              && hydae_transition_set_action(early, count, "k") == 0,
          "transitions");
    test_rows rows;
    int status;
    final_value(m, 1.0, 0.0, "k", &rows, &status);
    int ck = test_column(m, "k"), cj = test_column(m, "j"), n_right = 0;
    for (int i = 0; i < rows.n_rows; i++)
        if (rows.kind[i] == HYDAE_ROW_EVENT_RIGHT) {
            if (n_right == 0)
                CHECK(fabs(rows.t[i] - 0.3) < 1e-12 && test_value(&rows, i, ck) == 1.0
                          && test_value(&rows, i, cj) == 0.0,
                      "first event at %.15g (k %g, j %g): want x = 0.3 alone", rows.t[i],
                      test_value(&rows, i, ck), test_value(&rows, i, cj));
            if (n_right == 1)
                CHECK(fabs(rows.t[i] - 0.30001) < 1e-12 && test_value(&rows, i, cj) == 1.0,
                      "second event at %.15g, want 0.30001", rows.t[i]);
            n_right++;
        }
    CHECK(n_right == 2, "%d event instants, want 2", n_right);
    test_rows_free(&rows);
    hydae_model_free(m);
}

int main(void)
{
    earliest_crossing_first();
    double_crossing_in_one_step(3);
    double_crossing_in_one_step(0);
    touching_zero_is_no_crossing();
    events_at_t0_and_on_output_points();
    output_at_steps();
    untaken_crossing_hides_nothing();
    monotone_crossing_fires_once();
    parallel_clock_keeps_guards_armed();
    time_event_at_t_end();
    default_interval_recomputed();
    return CHECK_DONE();
}
