/*
** The discrete phase: a time event and a state event at the same instant
** are handled in one discrete phase; named events raised by an action fire
** a parallel chart's transition in the same instant; a cycle of raised
** events stops at the cascade limit with a report naming the transitions;
** a sample clock ticks at t_start + k period, t_end included.
*/
#include "check.h"
#include "hydae.h"

#include <string.h>

/* Chart "clock": mode idle, no unknowns, leaves at t = 1 by a time event.
** Chart "plant": mode rising, y' = 1, y(0) = 0; leaves when y - 1 rises
** through 0, i.e. at t = 1 as well. Each action records its time. */
static int ramp(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)y;
    (void)p;
    (void)user;
    ydot[0] = 1.0;
    return 0;
}

static int ramp_guard(double t, const double *y, const double *yp, const double *p, double *g,
                      void *user)
{
    (void)t;
    (void)yp;
    (void)p;
    (void)user;
    g[0] = y[0] - 1.0;
    return 0;
}

static int record_time(hydae_action *a, void *user)
{
    return hydae_set(a, (const char *)user, hydae_action_time(a));
}

static int raise_named(hydae_action *a, void *user)
{
    return hydae_raise(a, (const char *)user);
}

static void simultaneous_time_and_state_event(void)
{
    hydae_model *m = hydae_model_create("simultaneous");
    int ok = hydae_model_add_discrete(m, "t_time", -1.0) >= 0
             && hydae_model_add_discrete(m, "t_state", -1.0) >= 0;
    hydae_chart *clock = hydae_model_add_chart(m, "clock");
    hydae_mode *idle = hydae_chart_add_mode(clock, "idle");
    hydae_mode *done = hydae_chart_add_mode(clock, "done");
    hydae_transition *at_one = hydae_chart_add_transition(clock, "at_one", idle, done);
    ok = ok && hydae_transition_on_time(at_one, 1.0) == 0
         && hydae_transition_set_action(at_one, record_time, "t_time") == 0;
    hydae_chart *plant = hydae_model_add_chart(m, "plant");
    hydae_mode *rising = hydae_chart_add_mode(plant, "rising");
    hydae_mode *above = hydae_chart_add_mode(plant, "above");
    ok = ok && hydae_mode_add_var(rising, "y", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_set_rhs(rising, ramp, NULL) == 0
         && hydae_mode_set_guards(rising, 1, ramp_guard) == 0
         && hydae_mode_add_var(above, "y", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_set_rhs(above, ramp, NULL) == 0;
    hydae_transition *crossing = hydae_chart_add_transition(plant, "crossing", rising, above);
    ok = ok && hydae_transition_on_guard(crossing, 0, HYDAE_RISING) == 0
         && hydae_transition_set_action(crossing, record_time, "t_state") == 0;
    CHECK(ok, "building: %s", hydae_model_errmsg(m));
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s != NULL, "create: %s", hydae_model_errmsg(m));
    CHECK(hydae_sim_set_time(s, 0.0, 2.0) == 0, "time");
    /* Record the discrete values through a sink: the last row has them. */
    status = hydae_sim_run(s);
    CHECK(status == 0, "run: %s", hydae_sim_errmsg(s));
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    CHECK(st.n_events == 1, "%ld event instants, want 1 (both in one discrete phase)",
          st.n_events);
    CHECK(st.n_transitions == 2, "%ld transitions, want 2", st.n_transitions);
    CHECK(strcmp(hydae_sim_mode_name(s, 0), "done") == 0
              && strcmp(hydae_sim_mode_name(s, 1), "above") == 0,
          "final modes %s, %s", hydae_sim_mode_name(s, 0), hydae_sim_mode_name(s, 1));
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* Chart A fires at t = 1 and raises "go"; chart B waits for "go". Then a
** cycle: ping raises pong, pong raises ping, forever. */
static void raised_events_and_cascade_limit(void)
{
    hydae_model *m = hydae_model_create("cascade");
    hydae_chart *a = hydae_model_add_chart(m, "a");
    hydae_mode *a0 = hydae_chart_add_mode(a, "a0");
    hydae_mode *a1 = hydae_chart_add_mode(a, "a1");
    hydae_chart *b = hydae_model_add_chart(m, "b");
    hydae_mode *b0 = hydae_chart_add_mode(b, "b0");
    hydae_mode *b1 = hydae_chart_add_mode(b, "b1");
    hydae_transition *start = hydae_chart_add_transition(a, "start", a0, a1);
    hydae_transition *follow = hydae_chart_add_transition(b, "follow", b0, b1);
    int ok = hydae_transition_on_time(start, 1.0) == 0
             && hydae_transition_set_action(start, raise_named, "go") == 0
             && hydae_transition_on_event(follow, "go") == 0;
    /* The cycle, from t = 2: a1 -ping-> a1 raises pong; b1 -pong-> b1 raises ping. */
    hydae_transition *kick = hydae_chart_add_transition(a, "kick", a1, a1);
    hydae_transition *ping = hydae_chart_add_transition(a, "ping", a1, a1);
    hydae_transition *pong = hydae_chart_add_transition(b, "pong", b1, b1);
    ok = ok && hydae_transition_on_time(kick, 2.0) == 0
         && hydae_transition_set_action(kick, raise_named, "pong_event") == 0
         && hydae_transition_on_event(ping, "ping_event") == 0
         && hydae_transition_set_action(ping, raise_named, "pong_event") == 0
         && hydae_transition_on_event(pong, "pong_event") == 0
         && hydae_transition_set_action(pong, raise_named, "ping_event") == 0;
    CHECK(ok, "building: %s", hydae_model_errmsg(m));
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s != NULL, "create: %s", hydae_model_errmsg(m));
    CHECK(hydae_sim_set_time(s, 0.0, 1.5) == 0 && hydae_sim_set_cascade_limit(s, 50) == 0,
          "settings");
    status = hydae_sim_run(s);
    CHECK(status == 0, "run to 1.5: %s", hydae_sim_errmsg(s));
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    CHECK(st.n_events == 1 && st.n_transitions == 2,
          "raised event: %ld instants, %ld transitions, want 1 and 2", st.n_events,
          st.n_transitions);
    CHECK(strcmp(hydae_sim_mode_name(s, 1), "b1") == 0, "chart b is in %s, want b1",
          hydae_sim_mode_name(s, 1));
    CHECK(hydae_sim_set_time(s, 0.0, 3.0) == 0, "t_end 3");
    status = hydae_sim_run(s);
    CHECK(status == HYDAE_ERR_CASCADE, "cycle: status %d (%s), want HYDAE_ERR_CASCADE", status,
          hydae_sim_errmsg(s));
    const char *msg = hydae_sim_errmsg(s);
    CHECK(strstr(msg, "'ping'") && strstr(msg, "'pong'") && strstr(msg, "t = 2"),
          "cascade message does not name the cycle and time: %s", msg);
    hydae_sim_free(s);
    hydae_model_free(m);
}

static int count_tick(hydae_action *a, void *user)
{
    (void)user;
    return hydae_set(a, "ticks", hydae_get(a, "ticks") + 1.0);
}

static void sample_clock(void)
{
    hydae_model *m = hydae_model_create("sampler");
    int ok = hydae_model_add_discrete(m, "ticks", 0.0) >= 0;
    hydae_chart *c = hydae_model_add_chart(m, "clock");
    hydae_mode *run = hydae_chart_add_mode(c, "run");
    hydae_transition *tick = hydae_chart_add_transition(c, "tick", run, run);
    ok = ok && hydae_transition_on_sample(tick, 0.0, 0.1) == 0
         && hydae_transition_set_action(tick, count_tick, NULL) == 0;
    CHECK(ok, "building: %s", hydae_model_errmsg(m));
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s && hydae_sim_set_time(s, 0.0, 1.0) == 0, "create");
    status = hydae_sim_run(s);
    CHECK(status == 0, "run: %s", hydae_sim_errmsg(s));
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    CHECK(st.n_transitions == 11, "%ld ticks in [0, 1] with period 0.1, want 11",
          st.n_transitions);
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* Two charts whose guards cross at the same instant t = 1 (y = t and
** z = 2t reach 1 and 2): one event instant, both transitions fired, and
** the order of the charts is the order of firing. */
static int ramp_double(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)y;
    (void)p;
    (void)user;
    ydot[0] = 2.0;
    return 0;
}

static int double_guard(double t, const double *y, const double *yp, const double *p, double *g,
                        void *user)
{
    (void)t;
    (void)yp;
    (void)p;
    (void)user;
    g[0] = y[0] - 2.0;
    return 0;
}

static int append_order(hydae_action *a, void *user)
{
    /* order := 10 order + chart number: reads which fired first. */
    return hydae_set(a, "order", 10.0 * hydae_get(a, "order") + *(const double *)user);
}

static int read_order(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)kind;
    (void)t;
    *(double *)user = values[0];
    return 0;
}

static void simultaneous_guards(void)
{
    static const double one = 1.0, two = 2.0;
    hydae_model *m = hydae_model_create("two_guards");
    int ok = hydae_model_add_discrete(m, "order", 0.0) == 0;
    hydae_chart *ca = hydae_model_add_chart(m, "a");
    hydae_mode *a0 = hydae_chart_add_mode(ca, "a0"), *a1 = hydae_chart_add_mode(ca, "a1");
    hydae_chart *cb = hydae_model_add_chart(m, "b");
    hydae_mode *b0 = hydae_chart_add_mode(cb, "b0"), *b1 = hydae_chart_add_mode(cb, "b1");
    ok = ok && hydae_mode_add_var(a0, "y", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_set_rhs(a0, ramp, NULL) == 0 && hydae_mode_set_guards(a0, 1, ramp_guard) == 0
         && hydae_mode_add_var(b0, "z", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_set_rhs(b0, ramp_double, NULL) == 0
         && hydae_mode_set_guards(b0, 1, double_guard) == 0;
    hydae_transition *ta = hydae_chart_add_transition(ca, "ya", a0, a1);
    hydae_transition *tb = hydae_chart_add_transition(cb, "zb", b0, b1);
    ok = ok && hydae_transition_on_guard(ta, 0, HYDAE_RISING) == 0
         && hydae_transition_set_action(ta, append_order, (void *)&one) == 0
         && hydae_transition_on_guard(tb, 0, HYDAE_RISING) == 0
         && hydae_transition_set_action(tb, append_order, (void *)&two) == 0;
    CHECK(ok, "building: %s", hydae_model_errmsg(m));
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    double order = -1.0;
    CHECK(s && hydae_sim_set_time(s, 0.0, 2.0) == 0
              && hydae_sim_add_row_sink(s, read_order, &order) == 0,
          "setup");
    status = hydae_sim_run(s);
    CHECK(status == 0, "run: %s", hydae_sim_errmsg(s));
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    CHECK(st.n_events == 1 && st.n_transitions == 2,
          "%ld event instants and %ld transitions, want 1 and 2", st.n_events, st.n_transitions);
    CHECK(order == 12.0, "firing order %g, want 12 (chart a, then chart b)", order);
    hydae_sim_free(s);
    hydae_model_free(m);
}

int main(void)
{
    simultaneous_time_and_state_event();
    simultaneous_guards();
    raised_events_and_cascade_limit();
    sample_clock();
    return CHECK_DONE();
}
