/*
** Model files through the public API (hydae.h, "Model files"):
** hydae_model_load_file / hydae_model_load_string, their diagnostics,
** the experiment block (hydae_model_experiment_setting,
** hydae_sim_apply_experiment), and allocation failures while loading.
** Only hydae.h is used, as a program linked with libhydae would.
*/
#include "check.h"
#include "fault_alloc.h"
#include "lang/lang_test_util.h"

#include "hydae.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char source_dir[1024];

/* The times of the event rows (left limits) of a run. */
typedef struct event_times {
    int n;
    double t[16];
} event_times;

static int record_events(void *user, hydae_row_kind kind, double t, const double *values)
{
    event_times *ev = user;
    (void)values;
    if (kind == HYDAE_ROW_EVENT_LEFT && ev->n < 16)
        ev->t[ev->n++] = t;
    return 0;
}

/* The number of lines of text that hold "error:". */
static int count_errors(const char *text)
{
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, "error:")); p += 6)
        n++;
    return n;
}

/* examples/bouncing_ball.hym with its experiment (t_end = 3.5, rtol 1e-8):
** dropped from h = 1 with g = 9.81, the ball hits the ground at
** t1 = sqrt(2 h / g) and, bouncing back with e = 0.8 times the impact
** speed, again at t1 (1 + 2 e). */
static void test_file_with_experiment(void)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/examples/bouncing_ball.hym", source_dir);
    char *diagnostics = (char *)"unset";
    int n_errors = -1;
    hydae_model *m = hydae_model_load_file(path, &diagnostics, &n_errors);
    CHECK(m != NULL, "bouncing_ball.hym did not load: %s", diagnostics ? diagnostics : "");
    CHECK(n_errors == 0, "n_errors %d for a model that loads", n_errors);
    CHECK(diagnostics == NULL, "diagnostics for a clean model: %s", diagnostics);
    hydae_string_free(diagnostics);
    if (!m)
        return;

    /* The settings as written: t_end = 3.5, dt = 0.01, rtol = 1e-8, atol = 1e-10. */
    static const char *const names[] = { "t_end", "dt", "rtol", "atol" };
    static const double values[] = { 3.5, 0.01, 1e-8, 1e-10 };
    int i = 0;
    const char *name, *value;
    for (; (name = hydae_model_experiment_setting(m, i, &value)); i++)
        if (i < 4) {
            CHECK(strcmp(name, names[i]) == 0, "setting %d is %s, want %s", i, name, names[i]);
            CHECK(value && strtod(value, NULL) == values[i], "%s = %s", name, value);
        }
    CHECK(i == 4, "%d experiment settings, want 4", i);
    CHECK(hydae_model_experiment_setting(m, -1, &value) == NULL && value == NULL,
          "setting -1 exists");

    int status = 0;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s != NULL, "sim: %d", status);
    event_times ev = { 0 };
    if (s && hydae_sim_apply_experiment(s) == 0
        && hydae_sim_add_row_sink(s, record_events, &ev) == 0
        && hydae_sim_run(s) == 0) {
        double g = 9.81, e = 0.8, t1 = sqrt(2.0 * 1.0 / g);
        CHECK(hydae_sim_time(s) == 3.5, "ran to %.17g, not the experiment's t_end 3.5",
              hydae_sim_time(s));
        CHECK(ev.n >= 2, "%d events", ev.n);
        CHECK_NEAR(ev.t[0], t1, 1e-7, "first impact");
        CHECK_NEAR(ev.t[1], t1 * (1 + 2 * e), 1e-7, "second impact");
    } else {
        CHECK(0, "the run: %s", s ? hydae_sim_errmsg(s) : "no sim");
    }
    hydae_sim_free(s);

    /* Settings after the experiment override it, as `hydae run`'s options do. */
    s = hydae_sim_create(m, &status);
    CHECK(s && hydae_sim_apply_experiment(s) == 0 && hydae_sim_set_option(s, "t_end", "1") == 0
              && hydae_sim_run(s) == 0 && hydae_sim_time(s) == 1.0,
          "t_end = 1 after the experiment: ran to %.17g", s ? hydae_sim_time(s) : NAN);
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* Errors: no model, the count, file:line:column of each. */
static void test_errors(void)
{
    /* Two errors: undefined names at 2:22 and 5:13, in this order. */
    static const char text[] = "model bad\n"
                               "  parameter Real p = q;\n"
                               "  Real x(start = 1);\n"
                               "equation\n"
                               "  der(x) = -k * p * x;\n"
                               "end bad;\n";
    char *diagnostics = NULL;
    int n_errors = 0;
    hydae_model *m = hydae_model_load_string(text, strlen(text), "dir/bad.hym", &diagnostics,
                                             &n_errors);
    CHECK(m == NULL, "a model with undefined names loaded");
    CHECK(n_errors == 2, "n_errors %d, want 2", n_errors);
    CHECK(count_errors(diagnostics) == 2, "%d errors in the text", count_errors(diagnostics));
    const char *second = diagnostics ? strstr(diagnostics, "dir/bad.hym:5:13: error: ") : NULL;
    static const char first[] = "dir/bad.hym:2:22: error: undefined name 'q'\n";
    CHECK(diagnostics && strncmp(diagnostics, first, sizeof first - 1) == 0,
          "first diagnostic: %s", diagnostics ? diagnostics : "(none)");
    CHECK(second && strstr(second, "undefined name 'k'\n   der(x) = -k * p * x;\n"),
          "second diagnostic, with its quoted line: %s", diagnostics ? diagnostics : "(none)");
    hydae_string_free(diagnostics);

    /* A syntax error, and no name given: "<input>". */
    static const char broken[] = "model m\n  Real x\nend m;\n";
    n_errors = 0;
    diagnostics = NULL;
    m = hydae_model_load_string(broken, strlen(broken), NULL, &diagnostics, &n_errors);
    CHECK(m == NULL && n_errors >= 1, "a syntax error: model %p, %d errors", (void *)m, n_errors);
    CHECK(diagnostics && strncmp(diagnostics, "<input>:", 8) == 0, "diagnostic: %s",
          diagnostics ? diagnostics : "(none)");
    CHECK(count_errors(diagnostics) == n_errors, "%d errors counted, %d in the text: %s",
          n_errors, count_errors(diagnostics), diagnostics ? diagnostics : "");
    hydae_string_free(diagnostics);

    /* Neither out-parameter is required. */
    CHECK(hydae_model_load_string(broken, strlen(broken), "x.hym", NULL, NULL) == NULL,
          "a syntax error loaded without out-parameters");

    /* A file that is not there; a NULL path. */
    n_errors = 0;
    m = hydae_model_load_file("/nonexistent/model.hym", &diagnostics, &n_errors);
    CHECK(m == NULL && n_errors == 1, "missing file: %d errors", n_errors);
    CHECK(diagnostics && strstr(diagnostics, "/nonexistent/model.hym: error: cannot open"),
          "missing file: %s", diagnostics ? diagnostics : "(none)");
    hydae_string_free(diagnostics);
    CHECK(hydae_model_load_file(NULL, &diagnostics, &n_errors) == NULL && n_errors == 1
              && diagnostics && strstr(diagnostics, "path is NULL"),
          "NULL path");
    hydae_string_free(diagnostics);
    hydae_string_free(NULL);
}

/* An experiment setting the engine refuses: the sim's message says which
** and where (line 5, column 24); a model built through the C API has no
** experiment, and applying it changes nothing. */
static void test_experiment_errors(void)
{
    static const char text[] = "model decay\n"
                               "  Real x(start = 1);\n"
                               "equation\n"
                               "  der(x) = -x;\n"
                               "  experiment dt = 0.1, zeno_policy = \"sometimes\";\n"
                               "end decay;\n";
    int n_errors = -1;
    hydae_model *m = hydae_model_load_string(text, strlen(text), "decay.hym", NULL, &n_errors);
    CHECK(m != NULL && n_errors == 0, "decay did not load: %d errors", n_errors);
    int status = 0;
    hydae_sim *s = m ? hydae_sim_create(m, &status) : NULL;
    if (s) {
        CHECK(hydae_sim_apply_experiment(s) == HYDAE_ERR_ARG, "zeno_policy 'sometimes' applied");
        const char *message = hydae_sim_errmsg(s);
        CHECK(strncmp(message, "line 5, column 24: ", 19) == 0 && strstr(message, "zeno_policy")
                  && strstr(message, "sometimes"),
              "message: %s", message);
    }
    hydae_sim_free(s);
    hydae_model_free(m);

    hydae_model *built = hydae_model_create("by_hand");
    hydae_chart *chart = built ? hydae_model_add_chart(built, "c") : NULL;
    hydae_mode *mode = chart ? hydae_chart_add_mode(chart, "only") : NULL;
    CHECK(mode != NULL, "a model by hand");
    const char *value = "unset";
    CHECK(hydae_model_experiment_setting(built, 0, &value) == NULL && value == NULL,
          "a model by hand has experiment settings");
    CHECK(hydae_model_experiment_setting(NULL, 0, NULL) == NULL, "NULL model");
    CHECK(hydae_sim_apply_experiment(NULL) == HYDAE_ERR_ARG, "NULL sim");
    hydae_model_free(built);
}

/* Loading examples/lowpass.hym (an import, components, an experiment)
** with the N-th allocation and every later one failing, for every N up to
** the count of a whole load: a model, or NULL with errors counted (and the
** diagnostics, when they could be allocated, saying "out of memory");
** after freeing, no block left. */
static void test_allocation_failures(void)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/examples/lowpass.hym", source_dir);
    fault_allocator f = { 0 };
    hydae_set_allocator(fault_alloc, &f);
    hydae_model *m = hydae_model_load_file(path, NULL, NULL);
    long n_total = f.n_calls;
    CHECK(m != NULL && n_total > 10, "lowpass.hym: %ld allocations", n_total);
    hydae_model_free(m);
    int n_bad = 0, n_loaded = 0;
    for (long n = 1; n <= n_total; n++) {
        f.n_calls = 0;
        f.fail_at = n;
        f.fail_rest = 1;
        char *diagnostics = NULL;
        int n_errors = 0;
        m = hydae_model_load_file(path, &diagnostics, &n_errors);
        int clean = m ? n_errors == 0
                      : n_errors >= 1 && (!diagnostics || strstr(diagnostics, "out of memory"));
        int loaded = m != NULL;
        n_loaded += loaded;
        hydae_model_free(m);
        hydae_string_free(diagnostics);
        if ((!clean || f.n_live != 0) && n_bad++ < 5)
            CHECK(0, "allocation %ld failing: model %s, %d errors, %ld blocks left", n,
                  loaded ? "loaded" : "NULL", n_errors, f.n_live);
    }
    hydae_set_allocator(NULL, NULL);
    CHECK(n_bad == 0, "%d of %ld failing allocations ended badly", n_bad, n_total);
    CHECK(n_loaded < n_total, "every load succeeded with allocations failing");
    printf("load of lowpass.hym: %ld allocations, each failing in turn: %d loads still succeeded\n",
           n_total, n_loaded);
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    test_file_with_experiment();
    test_errors();
    test_experiment_errors();
    test_allocation_failures();
    return CHECK_DONE();
}
