/*
** Mode entry and exit actions and several attachments (include/hydae.h,
** docs/engine.md "Entry and exit actions"), against a closed form:
** chart main, x' = -x in modes a and b, a -> b at t = 1, b -> a at t = 2;
** b's entry action doubles x, so x = exp(-t) before 1 and 2 exp(-t) after.
** The order at a switch is: exit actions of the mode left, the
** transition's action, entry actions of the mode entered; a's entry runs
** at t0 (after the initial action) and at t = 2; self-transitions run
** none. b's entry raises "go", on which chart follower goes off -> on: its
** entry runs at t = 1 in the next update. Two attachments are both freed.
** Also: a mode's error text (hydae_mode_set_error_text) ends the message
** of a run its failing right-hand side stops; a parameter set between two
** hydae_sim_advance calls applies from there (x' = -k x, k from 1 to 2 at
** t = 1: x(2) = exp(-3)).
*/
#include "check.h"
#include "rows.h"

#include <math.h>
#include <string.h>

enum { MAX_LOG = 32 };
typedef struct journal {
    char what[MAX_LOG][16];
    double t[MAX_LOG];
    int n;
} journal;

static void note(journal *j, const char *what, double t)
{
    if (j->n < MAX_LOG) {
        strncpy(j->what[j->n], what, sizeof j->what[0] - 1);
        j->t[j->n] = t;
    }
    j->n++;
}

static journal log_;

static int decay_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    ydot[0] = -y[0];
    return 0;
}

static int no_equations(double t, const double *y, const double *yp, const double *p,
                        double *res, void *user)
{
    (void)t, (void)y, (void)yp, (void)p, (void)res, (void)user;
    return 0;
}

static int logging_action(hydae_action *a, void *user)
{
    note(&log_, user, hydae_action_time(a));
    return 0;
}

static int initial_action(hydae_action *a, void *user)
{
    (void)user;
    note(&log_, "initial", hydae_action_time(a));
    return 0;
}

static int enter_b(hydae_action *a, void *user)
{
    (void)user;
    note(&log_, "enter b", hydae_action_time(a));
    if (hydae_set(a, "x", 2.0 * hydae_get(a, "x")))
        return -1;
    return hydae_raise(a, "go");
}

static int n_freed;
static void count_free(void *data)
{
    n_freed += *(int *)data;
}

static hydae_model *two_mode_model(int *one, int *two)
{
    hydae_model *m = hydae_model_create("entry");
    hydae_chart *main_chart = hydae_model_add_chart(m, "main");
    hydae_mode *a = hydae_chart_add_mode(main_chart, "a");
    hydae_mode *b = hydae_chart_add_mode(main_chart, "b");
    hydae_chart *follower = hydae_model_add_chart(m, "follower");
    hydae_mode *off = hydae_chart_add_mode(follower, "off");
    hydae_mode *on = hydae_chart_add_mode(follower, "on");
    int ok = hydae_mode_add_var(a, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
             && hydae_mode_add_var(b, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
             && hydae_mode_set_rhs(a, decay_rhs, NULL) == 0
             && hydae_mode_set_rhs(b, decay_rhs, NULL) == 0
             && hydae_mode_set_residual(off, 0, no_equations, NULL) == 0
             && hydae_mode_set_residual(on, 0, no_equations, NULL) == 0;
    hydae_transition *ab = hydae_chart_add_transition(main_chart, "ab", a, b);
    hydae_transition *ba = hydae_chart_add_transition(main_chart, "ba", b, a);
    hydae_transition *aa = hydae_chart_add_transition(main_chart, "aa", a, a);
    hydae_transition *go = hydae_chart_add_transition(follower, "go", off, on);
    ok = ok && hydae_transition_on_time(ab, 1.0) == 0 && hydae_transition_on_time(ba, 2.0) == 0
         && hydae_transition_on_time(aa, 0.5) == 0 && hydae_transition_on_event(go, "go") == 0
         && hydae_transition_set_action(ab, logging_action, "action ab") == 0
         && hydae_transition_set_action(aa, logging_action, "action aa") == 0
         && hydae_mode_add_exit_action(a, logging_action, "exit a") == 0
         && hydae_mode_add_entry_action(a, logging_action, "enter a") == 0
         && hydae_mode_add_entry_action(b, enter_b, NULL) == 0
         && hydae_mode_add_exit_action(b, logging_action, "exit b") == 0
         && hydae_mode_add_entry_action(on, logging_action, "enter on") == 0
         && hydae_model_set_initial_action(m, initial_action, NULL) == 0
         && hydae_model_attach(m, one, count_free) == 0
         && hydae_model_attach(m, two, count_free) == 0;
    CHECK(ok, "building the model: %s", hydae_model_errmsg(m));
    return m;
}

/* A right-hand side that fails past t = 0.5, and why. */
static int failing_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)p;
    (void)user;
    ydot[0] = -y[0];
    return t > 0.5 ? -1 : 0;
}

static const char *why_failing(void *user)
{
    return user ? "the pump's bearing seized" : "";
}

/* hydae_mode_set_error_text: the run's message ends with the mode's words. */
static void check_error_text(void)
{
    hydae_model *m = hydae_model_create("fails");
    hydae_mode *mode = hydae_chart_add_mode(hydae_model_add_chart(m, "c"), "pump");
    int ok = hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
             && hydae_mode_set_rhs(mode, failing_rhs, "user") == 0
             && hydae_mode_set_error_text(mode, why_failing) == 0 && hydae_model_check(m) == 0;
    CHECK(ok, "the failing model: %s", hydae_model_errmsg(m));
    int status;
    hydae_sim *sim = hydae_sim_create(m, &status);
    ok = sim && hydae_sim_set_time(sim, 0.0, 1.0) == 0;
    status = ok ? hydae_sim_run(sim) : 0;
    const char *message = sim ? hydae_sim_errmsg(sim) : "";
    CHECK(status < 0 && strstr(message, "mode 'pump'")
              && strstr(message, ": the pump's bearing seized"),
          "a failing mode's words in the message: %d, %s", status, message);
    hydae_sim_free(sim);
    hydae_model_free(m);
}

static int decay_k_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)user;
    ydot[0] = -p[0] * y[0];
    return 0;
}

/* hydae_sim_set_param between two hydae_sim_advance calls (a tunable
** parameter): x' = -k x, k = 1 to t = 1, then 2: x(2) = exp(-1) exp(-2). */
static void check_tuned_parameter(void)
{
    hydae_model *m = hydae_model_create("tuned");
    hydae_mode *mode = hydae_chart_add_mode(hydae_model_add_chart(m, "c"), "decay");
    int ok = hydae_model_add_param(m, "k", 1.0) == 0
             && hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
             && hydae_mode_set_rhs(mode, decay_k_rhs, NULL) == 0 && hydae_model_check(m) == 0;
    int status;
    hydae_sim *sim = ok ? hydae_sim_create(m, &status) : NULL;
    double x1[4] = { 0 }, x2[4] = { 0 };
    int x = test_column(m, "x");
    ok = sim && x >= 0 && hydae_model_n_columns(m) <= 4 && hydae_sim_set_time(sim, 0.0, 2.0) == 0
         && hydae_sim_set_tolerances(sim, 1e-10, 1e-12) == 0
         && hydae_sim_advance(sim, 1.0, x1) == 0 && hydae_sim_set_param(sim, "k", 2.0) == 0
         && hydae_sim_advance(sim, 2.0, x2) == 0;
    CHECK(ok, "the tuned run: %s", sim ? hydae_sim_errmsg(sim) : hydae_model_errmsg(m));
    CHECK(ok && fabs(x1[x] - exp(-1.0)) < 1e-8 && fabs(x2[x] - exp(-3.0)) < 1e-8,
          "x(1) = %.17g, want exp(-1); x(2) = %.17g, want exp(-3)", x1[x], x2[x]);
    hydae_sim_free(sim);
    hydae_model_free(m);
}

int main(void)
{
    check_error_text();
    check_tuned_parameter();
    int one = 1, two = 10;
    hydae_model *m = two_mode_model(&one, &two);
    test_rows rows;
    CHECK(hydae_model_check(m) == 0, "check: %s", hydae_model_errmsg(m));
    CHECK(test_run(m, NULL, 3.0, 0.25, 1e-10, 1e-12, &rows) == 0, "the run");

    static const struct { const char *what; double t; } want[] = {
        { "initial", 0 }, { "enter a", 0 }, { "action aa", 0.5 }, { "exit a", 1 },
        { "action ab", 1 }, { "enter b", 1 }, { "enter on", 1 }, { "exit b", 2 },
        { "enter a", 2 },
    };
    int n_want = (int)(sizeof want / sizeof want[0]);
    CHECK(log_.n == n_want, "%d actions ran, want %d", log_.n, n_want);
    for (int k = 0; k < n_want && k < log_.n; k++)
        CHECK(strcmp(log_.what[k], want[k].what) == 0 && log_.t[k] == want[k].t,
              "action %d: '%s' at %g, want '%s' at %g", k, log_.what[k], log_.t[k],
              want[k].what, want[k].t);

    int x = test_column(m, "x");
    double worst = 0.0;
    for (int r = 0; r < rows.n_rows && x >= 0; r++) {
        double t = rows.t[r];
        int after = t > 1.0 || (t == 1.0 && rows.kind[r] != HYDAE_ROW_EVENT_LEFT);
        double exact = (after ? 2.0 : 1.0) * exp(-t);
        worst = fmax(worst, fabs(test_value(&rows, r, x) - exact));
    }
    CHECK(x >= 0 && rows.n_rows > 10, "x in %d rows", rows.n_rows);
    CHECK(worst < 1e-8, "x against (1 or 2) exp(-t): max error %.3g", worst);

    test_rows_free(&rows);
    hydae_model_free(m);
    hydae_model *bad = hydae_model_create("bad");
    hydae_mode *mode = hydae_chart_add_mode(hydae_model_add_chart(bad, "c"), "m");
    CHECK(hydae_mode_add_entry_action(mode, NULL, NULL) == HYDAE_ERR_ARG
          && strstr(hydae_model_errmsg(bad), "entry action needs a function"),
          "an entry action without a function is refused: %s", hydae_model_errmsg(bad));
    hydae_model_free(bad);
    CHECK(n_freed == 11, "attachments freed: %d, want 1 + 10", n_freed);
    return CHECK_DONE();
}
