/*
** Bad input gets a clear message and an error status, never a crash:
** a mode with fewer equations than unknowns, a transition to an undefined
** mode, an action setting a name the target mode lacks, a residual that
** turns NaN mid-run (message naming mode, variable and time; the CSV is
** complete up to the failure and says it stopped early).
*/
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "check.h"
#include "hydae.h"

#include <stdlib.h>
#include <string.h>

static int two_unknowns_one_equation(double t, const double *y, const double *yp,
                                     const double *p, double *res, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    res[0] = yp[0] - y[1];
    return 0;
}

static void underdetermined_mode(void)
{
    hydae_model *m = hydae_model_create("under");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *mode = hydae_chart_add_mode(c, "short_of_one");
    int ok = hydae_mode_add_var(mode, "a", HYDAE_DIFFERENTIAL, 0.0) == 0
             && hydae_mode_add_var(mode, "b", HYDAE_ALGEBRAIC, 0.0) == 1
             && hydae_mode_set_residual(mode, 1, two_unknowns_one_equation, NULL) == 0;
    CHECK(ok, "building");
    int status = 0;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s == NULL && status == HYDAE_ERR_MODEL, "status %d, want HYDAE_ERR_MODEL", status);
    const char *msg = hydae_model_errmsg(m);
    CHECK(strstr(msg, "'short_of_one'") && strstr(msg, "1 equations for 2 unknowns"),
          "message: %s", msg);
    hydae_sim_free(s);
    hydae_model_free(m);
}

static void transition_to_undefined_mode(void)
{
    hydae_model *m = hydae_model_create("undefined_target");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_chart *other = hydae_model_add_chart(m, "other");
    hydae_mode *here = hydae_chart_add_mode(c, "here");
    hydae_mode *elsewhere = hydae_chart_add_mode(other, "elsewhere");
    hydae_transition *missing = hydae_chart_add_transition(c, "go_nowhere", here, NULL);
    CHECK(missing == NULL, "a transition to no mode was accepted");
    int status = 0;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s == NULL && status == HYDAE_ERR_MODEL, "status %d, want HYDAE_ERR_MODEL", status);
    const char *msg = hydae_model_errmsg(m);
    CHECK(strstr(msg, "'go_nowhere'") && strstr(msg, "target mode"), "message: %s", msg);
    hydae_model_free(m);

    m = hydae_model_create("foreign_target");
    c = hydae_model_add_chart(m, "c");
    other = hydae_model_add_chart(m, "other");
    here = hydae_chart_add_mode(c, "here");
    elsewhere = hydae_chart_add_mode(other, "elsewhere");
    CHECK(hydae_chart_add_transition(c, "jump", here, elsewhere) == NULL,
          "a transition into another chart's mode was accepted");
    s = hydae_sim_create(m, &status);
    msg = hydae_model_errmsg(m);
    CHECK(s == NULL && strstr(msg, "'elsewhere'") && strstr(msg, "not defined in this chart"),
          "message: %s", msg);
    hydae_model_free(m);
}

/* x' = 1 until t = 1, then the residual is NaN. */
static int nan_after_one(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)y;
    (void)p;
    (void)user;
    ydot[0] = t < 1.0 ? 1.0 : NAN;
    return 0;
}

static void residual_nan(void)
{
    hydae_model *m = hydae_model_create("nan");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *mode = hydae_chart_add_mode(c, "poisoned");
    int ok = hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 0.0) == 0
             && hydae_mode_set_rhs(mode, nan_after_one, NULL) == 0;
    CHECK(ok, "building");
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    char *buffer = NULL;
    size_t size = 0;
    FILE *csv = open_memstream(&buffer, &size);
    CHECK(s && csv && hydae_sim_set_time(s, 0.0, 2.0) == 0
              && hydae_sim_set_output_interval(s, 0.1) == 0 && hydae_sim_add_csv(s, csv) == 0,
          "setup");
    status = hydae_sim_run(s);
    CHECK(status == HYDAE_ERR_RESIDUAL, "status %d (%s), want HYDAE_ERR_RESIDUAL", status,
          hydae_sim_errmsg(s));
    const char *msg = hydae_sim_errmsg(s);
    CHECK(strstr(msg, "'poisoned'") && strstr(msg, "'x'") && strstr(msg, "t = 1"),
          "message names mode, variable and time: %s", msg);
    double t_failed = hydae_sim_time(s);
    CHECK(t_failed > 0.99 && t_failed <= 1.0, "stopped at t = %g, want just below 1",
          t_failed);
    fclose(csv);
    /* Grid rows 0, 0.1, ..., 0.9 and then the stop line. */
    int n_rows = 0;
    const char *last_line = NULL;
    for (char *line = strtok(buffer, "\n"); line; line = strtok(NULL, "\n")) {
        last_line = line;
        if (line[0] != '#' && strncmp(line, "time", 4) != 0)
            n_rows++;
    }
    CHECK(n_rows == 10, "%d data rows before the failure, want 10", n_rows);
    CHECK(last_line && strncmp(last_line, "# hydae: stopped early at t = ", 30) == 0
              && strstr(last_line, "'poisoned'"),
          "last CSV line: %s", last_line ? last_line : "(none)");
    free(buffer);
    hydae_sim_free(s);
    hydae_model_free(m);
}

static int set_missing(hydae_action *a, void *user)
{
    (void)user;
    return hydae_set(a, "not_here", 1.0);
}

static void action_sets_unknown_name(void)
{
    hydae_model *m = hydae_model_create("bad_action");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *a = hydae_chart_add_mode(c, "a");
    hydae_mode *b = hydae_chart_add_mode(c, "b");
    hydae_transition *tr = hydae_chart_add_transition(c, "switch_over", a, b);
    CHECK(tr && hydae_transition_on_time(tr, 0.5) == 0
              && hydae_transition_set_action(tr, set_missing, NULL) == 0,
          "building");
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s && hydae_sim_set_time(s, 0.0, 1.0) == 0, "setup");
    status = hydae_sim_run(s);
    const char *msg = hydae_sim_errmsg(s);
    CHECK(status == HYDAE_ERR_ACTION && strstr(msg, "'switch_over'") && strstr(msg, "'not_here'")
              && strstr(msg, "t = 0.5"),
          "status %d, message: %s", status, msg);
    hydae_sim_free(s);
    hydae_model_free(m);
}

static void invalid_settings(void)
{
    hydae_model *m = hydae_model_create("settings");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    CHECK(hydae_chart_add_mode(c, "only") != NULL, "mode");
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(hydae_sim_set_time(s, 1.0, 0.5) == HYDAE_ERR_ARG, "t_end < t0 accepted");
    CHECK(hydae_sim_set_tolerances(s, -1.0, 1e-6) == HYDAE_ERR_ARG, "negative rtol accepted");
    CHECK(strstr(hydae_sim_errmsg(s), "rtol") != NULL, "message: %s", hydae_sim_errmsg(s));
    CHECK(hydae_sim_set_tolerances(s, 1e-6, NAN) == HYDAE_ERR_ARG, "NaN atol accepted");
    CHECK(hydae_sim_set_step_limits(s, 1.0, 0.5, 0.0) == HYDAE_ERR_ARG, "h_max < h_min accepted");
    CHECK(hydae_sim_set_max_order(s, 13) == HYDAE_ERR_ARG, "order 13 accepted");
    CHECK(hydae_sim_set_integrator(s, "NOPE") == HYDAE_ERR_ARG && strstr(hydae_sim_errmsg(s), "DSTIFF"),
          "unknown integrator: %s", hydae_sim_errmsg(s));
    CHECK(hydae_sim_set_output_interval(s, 0.0) == HYDAE_ERR_ARG, "dt 0 accepted");
    hydae_sim_free(s);
    hydae_sim_free(NULL);
    hydae_model_free(m);
    hydae_model_free(NULL);
}

static int out_hundred(double tt, const double *y, const double *yp, const double *p,
                       double *out, void *user)
{
    (void)tt;
    (void)y;
    (void)yp;
    (void)p;
    (void)user;
    out[0] = 100.0;
    return 0;
}

/* Names that would share a value slot: an output named like a parameter,
** and the same name in modes of two parallel charts. */
static void clashing_names(void)
{
    hydae_model *m = hydae_model_create("clash");
    int ok = hydae_model_add_param(m, "c", 1.0) == 0;
    hydae_chart *ch = hydae_model_add_chart(m, "a");
    hydae_mode *mode = hydae_chart_add_mode(ch, "a0");
    ok = ok && hydae_mode_add_output(mode, "c") == 0
         && hydae_mode_set_outputs(mode, out_hundred) == 0;
    CHECK(ok, "building");
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(!s && status == HYDAE_ERR_MODEL && strstr(hydae_model_errmsg(m), "output 'c'"),
          "output named like a parameter: %s", hydae_model_errmsg(m));
    hydae_model_free(m);

    m = hydae_model_create("clash2");
    hydae_chart *a = hydae_model_add_chart(m, "a"), *b = hydae_model_add_chart(m, "b");
    hydae_mode *a0 = hydae_chart_add_mode(a, "a0"), *b0 = hydae_chart_add_mode(b, "b0");
    ok = hydae_mode_add_output(a0, "F") == 0 && hydae_mode_set_outputs(a0, out_hundred) == 0
         && hydae_mode_add_output(b0, "F") == 0 && hydae_mode_set_outputs(b0, out_hundred) == 0;
    CHECK(ok, "building 2");
    s = hydae_sim_create(m, &status);
    CHECK(!s && strstr(hydae_model_errmsg(m), "'F' is defined in mode 'a0'"),
          "one output name in two charts: %s", hydae_model_errmsg(m));
    hydae_model_free(m);
}

/* A bad argument whose return value is ignored still fails the check. */
static void sticky_argument_errors(void)
{
    hydae_model *m = hydae_model_create("sticky");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *mode = hydae_chart_add_mode(c, "m0");
    int ignored = hydae_mode_add_var(mode, "", HYDAE_DIFFERENTIAL, 0.0);
    (void)ignored;
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(!s && status == HYDAE_ERR_ARG && strstr(hydae_model_errmsg(m), "'m0'"),
          "an empty variable name passed the check: status %d, %s", status,
          hydae_model_errmsg(m));
    hydae_model_free(m);

    m = hydae_model_create("sticky2");
    c = hydae_model_add_chart(m, "c");
    mode = hydae_chart_add_mode(c, "m0");
    hydae_transition *tr = hydae_chart_add_transition(c, "t0", mode, mode);
    ignored = hydae_transition_on_time(tr, 1.0);
    ignored = hydae_transition_set_action(tr, NULL, NULL);
    s = hydae_sim_create(m, &status);
    CHECK(!s && strstr(hydae_model_errmsg(m), "'t0'"), "a NULL action passed the check: %s",
          hydae_model_errmsg(m));
    hydae_model_free(m);
}

int main(void)
{
    clashing_names();
    sticky_argument_errors();
    underdetermined_mode();
    transition_to_undefined_mode();
    residual_nan();
    action_sets_unknown_name();
    invalid_settings();
    return CHECK_DONE();
}
