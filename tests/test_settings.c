/*
** The transient-solver settings of Param_Transient (seed 002) through
** hydae_sim_set_option: every setting rejects a bad value with a message
** naming it; the per-class tolerance scaling of Table 1; dae_vel_ctrl; the
** Jacobian refresh rule (new Jacobian at corrector iteration M exactly when
** M mod dae_jacob_eval = 0 or M < dae_jacob_init), read back from the
** --debug-newton lines; dae_corrector_maxit; h0_max; dae_interpolation.
*/
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "check.h"
#include "examples.h"
#include "rows.h"

#include <stdlib.h>
#include <string.h>

/* Oscillator x' = v, v' = -x with v of the velocity class; closed form
** x = cos t. */
static int oscillator(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    ydot[0] = y[1];
    ydot[1] = -y[0];
    return 0;
}

static hydae_model *oscillator_model(void)
{
    hydae_model *m = hydae_model_create("oscillator");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *mode = hydae_chart_add_mode(c, "swing");
    CHECK(hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
              && hydae_mode_add_var(mode, "v", HYDAE_VELOCITY, 0.0) == 1
              && hydae_mode_set_rhs(mode, oscillator, NULL) == 0,
          "oscillator model");
    return m;
}

typedef struct run_result {
    long steps;
    double err_x;
    int status;
} run_result;

/* Run with settings "name=value" pairs; error of x at t_end = 10. */
static run_result run_with(hydae_model *m, const char *const *settings, int n_settings)
{
    run_result r = { 0, 0.0, 0 };
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(s && hydae_sim_set_time(s, 0.0, 10.0) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0,
          "setup");
    for (int i = 0; i < n_settings; i += 2)
        CHECK(hydae_sim_set_option(s, settings[i], settings[i + 1]) == 0, "%s = %s: %s",
              settings[i], settings[i + 1], hydae_sim_errmsg(s));
    r.status = hydae_sim_run(s);
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    r.steps = st.n_steps;
    int cx = test_column(m, "x");
    r.err_x = fabs(test_value(&rows, rows.n_rows - 1, cx) - cos(10.0));
    test_rows_free(&rows);
    hydae_sim_free(s);
    return r;
}

static void rejects_bad_values(void)
{
    hydae_model *m = oscillator_model();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    static const char *const bad[][2] = {
        { "integr_tol", "-1" },       { "integr_tol", "abc" },   { "h_max", "0" },
        { "h_min", "-0.1" },           { "max_order", "2.5" },     { "max_order", "13" },
        { "dae_index", "2" },          { "dae_vel_ctrl", "yes" }, { "dae_jacob_eval", "-1" },
        { "dae_corrector_maxit", "0" }, { "integrator_type", "EULER" },
        { "dae_interpolation", "maybe" }, { "rtol", "2" },        { "output", "sometimes" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int st = hydae_sim_set_option(s, bad[i][0], bad[i][1]);
        CHECK(st == HYDAE_ERR_ARG, "%s = %s accepted", bad[i][0], bad[i][1]);
        CHECK(strstr(hydae_sim_errmsg(s), bad[i][0]) || strcmp(bad[i][0], "integrator_type") == 0,
              "message for %s does not name it: %s", bad[i][0], hydae_sim_errmsg(s));
    }
    CHECK(hydae_sim_set_option(s, "no_such_setting", "1") == HYDAE_ERR_ARG
              && strstr(hydae_sim_errmsg(s), "no_such_setting"),
          "unknown setting: %s", hydae_sim_errmsg(s));
    /* Every setting of the table is documented and its name is settable. */
    int n = 0;
    for (int i = 0; hydae_option_name(i); i++, n++)
        CHECK(hydae_option_meaning(i)[0] && hydae_option_default(i)[0], "setting %s undocumented",
              hydae_option_name(i));
    CHECK(n >= 27, "only %d settings in the table", n);
    hydae_sim_free(s);
    hydae_model_free(m);
}

static void tolerance_classes(void)
{
    hydae_model *m = oscillator_model();
    const char *uniform[] = { "integr_tol", "1e-7", "vel_tol_factor", "1" };
    const char *scaled[] = { "integr_tol", "1e-7", "vel_tol_factor", "1000" };
    const char *no_vel[] = { "integr_tol", "1e-7", "vel_tol_factor", "1", "dae_vel_ctrl", "FALSE" };
    run_result a = run_with(m, uniform, 4), b = run_with(m, scaled, 4), c = run_with(m, no_vel, 6);
    printf("integr_tol 1e-7: velocity scale 1: %ld steps (err x %.2g); scale 1000: %ld steps "
           "(err %.2g); velocity out of the test: %ld steps (err %.2g)\n",
           a.steps, a.err_x, b.steps, b.err_x, c.steps, c.err_x);
    CHECK(a.status == 0 && b.status == 0 && c.status == 0, "runs failed");
    CHECK(b.steps < a.steps, "vel_tol_factor 1000 did not loosen the control (%ld vs %ld steps)",
          b.steps, a.steps);
    CHECK(c.steps < a.steps, "dae_vel_ctrl FALSE did not take v out (%ld vs %ld steps)", c.steps,
          a.steps);
    CHECK(a.err_x < 1e-4, "x error %g with everything controlled", a.err_x);
    hydae_model_free(m);
}

/* Parse "iter=M" and "jacobian=new|reused" from each --debug-newton line. */
static void check_refresh_rule(int jacob_eval, int jacob_init, int maxit)
{
    hydae_model *m = example_string_pendulum();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    char *text = NULL;
    size_t size = 0;
    FILE *debug = open_memstream(&text, &size);
    char eval_text[16], init_text[16], maxit_text[16];
    snprintf(eval_text, sizeof eval_text, "%d", jacob_eval);
    snprintf(init_text, sizeof init_text, "%d", jacob_init);
    snprintf(maxit_text, sizeof maxit_text, "%d", maxit);
    CHECK(s && debug && hydae_sim_set_time(s, 0.0, 2.0) == 0
              && hydae_sim_set_option(s, "rtol", "1e-4") == 0
              && hydae_sim_set_option(s, "dae_jacob_eval", eval_text) == 0
              && hydae_sim_set_option(s, "dae_jacob_init", init_text) == 0
              && hydae_sim_set_option(s, "dae_corrector_maxit", maxit_text) == 0
              && hydae_sim_set_option(s, "h0_max", "1e-4") == 0
              && hydae_sim_set_debug_newton(s, debug) == 0,
          "setup");
    status = hydae_sim_run(s);
    CHECK(status == 0, "run: %s", hydae_sim_errmsg(s));
    fclose(debug);
    int n_lines = 0, n_later = 0, n_wrong = 0, max_iter = 0, first = 1;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        int iter = -1;
        double h = 0.0;
        const char *pi = strstr(line, "iter="), *ph = strstr(line, " h=");
        if (!pi || !ph || sscanf(pi, "iter=%d", &iter) != 1 || sscanf(ph, " h=%lf", &h) != 1)
            continue;
        if (first)
            CHECK(h <= 1e-4 * (1 + 1e-12), "first step %g above h0_max 1e-4", h);
        first = 0;
        int fresh = strstr(line, "jacobian=new") != NULL;
        int rule = (jacob_eval > 0 && iter % jacob_eval == 0) || iter < jacob_init;
        n_lines++;
        n_later += iter > 0;
        if (iter > max_iter)
            max_iter = iter;
        /* The rule forces a new Jacobian; where it does not, the automatic
        ** choice still may at iteration 0 (a new step after a failure). */
        if (rule ? !fresh : (fresh && iter > 0))
            n_wrong++;
    }
    printf("dae_jacob_eval %d, dae_jacob_init %d, maxit %d: %d iterations, %d beyond the "
           "first, %d against the rule\n", jacob_eval, jacob_init, maxit, n_lines, n_later,
           n_wrong);
    CHECK(n_lines > 100 && n_later > 0, "too few corrector iterations to judge (%d, %d)",
          n_lines, n_later);
    CHECK(n_wrong == 0, "%d iterations broke the refresh rule", n_wrong);
    CHECK(max_iter < maxit, "iteration %d with dae_corrector_maxit %d", max_iter, maxit);
    free(text);
    hydae_sim_free(s);
    hydae_model_free(m);
}

static void step_onto_output_points(void)
{
    hydae_model *m = oscillator_model();
    const char *interp[] = { "rtol", "1e-6", "dt", "0.25" };
    const char *exact[] = { "rtol", "1e-6", "dt", "0.25", "dae_interpolation", "FALSE" };
    run_result a = run_with(m, interp, 4), b = run_with(m, exact, 6);
    CHECK(a.status == 0 && b.status == 0, "runs");
    CHECK(b.steps >= 40 && b.steps > a.steps,
          "dae_interpolation FALSE must stop at each of the 40 output points: %ld steps (%ld "
          "interpolating)", b.steps, a.steps);
    hydae_model_free(m);
}

/* The XML form: attributes of <Param_Transient/> inside a larger file;
** a bad value reported with file:line:column. */
static void xml_settings(void)
{
    hydae_model *m = oscillator_model();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    char good[] = "/tmp/hydae_settings_XXXXXX";
    int fd = mkstemp(good);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(out != NULL, "temporary file");
    if (!out)
        return;
    fputs("<?xml version=\"1.0\"?>\n<Model>\n  <Param_Transient integrator_type=\"DSTIFF\"\n"
          "    integr_tol=\"1e-7\" h_max=\"0.5\" dae_vel_ctrl=\"FALSE\"/>\n</Model>\n", out);
    fclose(out);
    status = hydae_sim_load_settings(s, good);
    CHECK(status == 0, "loading: %s", hydae_sim_errmsg(s));
    CHECK(hydae_sim_set_time(s, 0.0, 10.0) == 0 && hydae_sim_run(s) == 0, "run with XML");
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    /* integr_tol 1e-7 with v out of the test: as in tolerance_classes. */
    CHECK(st.n_steps > 50 && st.n_steps < 400, "%ld steps", st.n_steps);

    out = fopen(good, "w");
    fputs("<Model>\n<Param_Transient\n   h_max=\"-1\"/>\n</Model>\n", out);
    fclose(out);
    status = hydae_sim_load_settings(s, good);
    const char *msg = hydae_sim_errmsg(s);
    CHECK(status == HYDAE_ERR_ARG && strstr(msg, good) && strstr(msg, ":2:")
              && strstr(msg, "h_max"),
          "bad XML value: status %d, %s", status, msg);
    out = fopen(good, "w");
    fputs("<Model><Param_Transient h_max=\"1\"></Model>\n", out);
    fclose(out);
    status = hydae_sim_load_settings(s, good);
    CHECK(status == HYDAE_ERR_ARG && strstr(hydae_sim_errmsg(s), "mismatched tag"),
          "malformed XML: %s", hydae_sim_errmsg(s));
    remove(good);
    hydae_sim_free(s);
    hydae_model_free(m);
}

int main(void)
{
    xml_settings();
    rejects_bad_values();
    tolerance_classes();
    check_refresh_rule(1, 0, 4);
    check_refresh_rule(2, 2, 6);
    check_refresh_rule(3, 0, 7);
    check_refresh_rule(0, 1, 3);
    step_onto_output_points();
    return CHECK_DONE();
}
