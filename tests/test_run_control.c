/*
** Stopping and refusing runs through the C API (issue 13, D8 and D13):
**  1. hydae_sim_interrupt during a run (called from a row sink, as a signal
**     handler would): HYDAE_INTERRUPTED at the next step boundary, the CSV
**     ends with its stopped-early line after whole rows; the request is
**     cleared, so the next run of the same sim reaches t_end with
**     x(1) = e^-1 (x' = -x, x(0) = 1, closed form);
**  2. an interrupt requested before the run stops it at t0;
**  3. hydae_sim_validate: contradicting settings named (t_end <= t0,
**     h_min > h_max, h0 > h_max, max_order out of the method's range,
**     RK4 without h_max), consistent ones accepted;
**  4. a singular iteration matrix in the corrector (the algebraic equation
**     a(t) (z - x) = 0 with a = 0 from t = 0.5 on leaves z undetermined):
**     the message says singular and names z.
*/
#include "check.h"
#include "hydae.h"

#include <stdlib.h>
#include <string.h>

static int decay_residual(double t, const double *y, const double *yp, const double *p,
                          double *res, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    res[0] = yp[0] + y[0];
    return 0;
}

/* The same as an explicit ODE, which every integrator solves. */
static int decay_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    ydot[0] = -y[0];
    return 0;
}

static hydae_model *decay_ode_model(void)
{
    hydae_model *m = hydae_model_create("decay");
    hydae_mode *mode = hydae_chart_add_mode(hydae_model_add_chart(m, "c"), "only");
    int ok = hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
             && hydae_mode_set_rhs(mode, decay_rhs, NULL) == 0;
    CHECK(ok, "decay ODE model: %s", hydae_model_errmsg(m));
    return m;
}

/* x' = -x + z, a(t) (z - x) = 0: for t >= 0.5 nothing determines z. */
static int vanishing_residual(double t, const double *y, const double *yp, const double *p,
                              double *res, void *user)
{
    (void)p;
    (void)user;
    double a = t < 0.5 ? 1.0 : 0.0;
    res[0] = yp[0] + y[0] - y[1];
    res[1] = a * (y[1] - y[0]);
    return 0;
}

static hydae_model *decay_model(void)
{
    hydae_model *m = hydae_model_create("decay");
    hydae_mode *mode = hydae_chart_add_mode(hydae_model_add_chart(m, "c"), "only");
    int ok = hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
             && hydae_mode_set_residual(mode, 1, decay_residual, NULL) == 0;
    CHECK(ok, "decay model: %s", hydae_model_errmsg(m));
    return m;
}

typedef struct interrupter {
    hydae_sim *sim;
    double t_request; /* interrupt at the first row at or after it */
    double t_last;    /* time of the last row */
    double x_last;    /* x in it (column 0) */
    long n_rows;
} interrupter;

static int interrupting_sink(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)kind;
    interrupter *in = user;
    in->t_last = t;
    in->x_last = values[0];
    in->n_rows++;
    if (t >= in->t_request)
        hydae_sim_interrupt(in->sim);
    return 0;
}

/* The whole stream as text. */
static char *read_all(FILE *f)
{
    long size = ftell(f);
    char *text = calloc((size_t)size + 1, 1);
    rewind(f);
    if (text && fread(text, 1, (size_t)size, f) != (size_t)size)
        text[0] = '\0';
    return text;
}

static void interrupt_during_run(void)
{
    hydae_model *m = decay_model();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    FILE *csv = tmpfile();
    interrupter in = { s, 0.3, -1.0, NAN, 0 };
    CHECK(s && csv && hydae_sim_set_time(s, 0.0, 1.0) == 0
              && hydae_sim_set_output_interval(s, 0.01) == 0
              && hydae_sim_add_csv(s, csv) == 0
              && hydae_sim_add_row_sink(s, interrupting_sink, &in) == 0,
          "setup: %s", s ? hydae_sim_errmsg(s) : "");
    if (!s || !csv)
        return;
    status = hydae_sim_run(s);
    CHECK(status == HYDAE_INTERRUPTED, "run: status %d (%s), want HYDAE_INTERRUPTED", status,
          hydae_sim_errmsg(s));
    CHECK(strstr(hydae_sim_errmsg(s), "interrupted at t = ") != NULL, "message '%s'",
          hydae_sim_errmsg(s));
    double t_stop = hydae_sim_time(s);
    CHECK(t_stop >= 0.3 && t_stop < 1.0, "stopped at t = %g, want in [0.3, 1)", t_stop);
    CHECK(in.t_last <= t_stop, "a row at t = %g after the stop at %g", in.t_last, t_stop);
    char *text = read_all(csv);
    const char *mark = text ? strstr(text, "# hydae: stopped early at t = ") : NULL;
    CHECK(mark != NULL && strstr(mark, "interrupted") != NULL && mark[strlen(mark) - 1] == '\n',
          "the CSV does not end with the stopped-early line");
    /* Every row before the mark is whole: "t,x\n" with two numbers. */
    long n_rows = 0, n_bad = 0;
    for (char *line = text ? strchr(text, '\n') + 1 : NULL; line && line < mark; n_rows++) {
        char *end = NULL;
        double t = strtod(line, &end);
        n_bad += *end != ',' || t > t_stop;
        strtod(end + 1, &end);
        n_bad += *end != '\n';
        line = end + 1;
    }
    CHECK(n_rows == in.n_rows && n_bad == 0, "%ld rows in the CSV (%ld bad), the sink saw %ld",
          n_rows, n_bad, in.n_rows);
    free(text);

    /* The request is cleared: the next run completes (its CSV follows in
    ** the same stream). */
    in.t_request = 2.0;
    in.n_rows = 0;
    status = hydae_sim_run(s);
    CHECK(status == 0, "second run: %s", hydae_sim_errmsg(s));
    CHECK(hydae_sim_time(s) == 1.0, "second run reached %g", hydae_sim_time(s));
    CHECK(strcmp(hydae_model_column_name(m, 0), "x") == 0, "column 0 is not x");
    CHECK_NEAR(in.x_last, exp(-1.0), 1e-5, "x(1) = e^-1 after the interrupted run");
    fclose(csv);
    hydae_sim_free(s);
    hydae_model_free(m);
}

static void interrupt_before_run(void)
{
    hydae_model *m = decay_model();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s && hydae_sim_set_time(s, 0.0, 1.0) == 0, "setup");
    if (!s)
        return;
    hydae_sim_interrupt(s);
    status = hydae_sim_run(s);
    CHECK(status == HYDAE_INTERRUPTED, "status %d, want HYDAE_INTERRUPTED", status);
    CHECK(hydae_sim_time(s) == 0.0, "stopped at %g, want t0 = 0", hydae_sim_time(s));
    hydae_sim_interrupt(NULL); /* accepted, does nothing */
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* Settings (name, value pairs) then validate, on the decay model as an
** ODE, or as a residual (as_dae): want_ok, or a message holding both
** `want1` and `want2`. */
static void expect_validate_on(int as_dae, const char *const *settings, int want_ok,
                               const char *want1, const char *want2)
{
    hydae_model *m = as_dae ? decay_model() : decay_ode_model();
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    if (!s)
        return;
    for (int i = 0; settings[i]; i += 2)
        CHECK(hydae_sim_set_option(s, settings[i], settings[i + 1]) == 0, "set %s = %s: %s",
              settings[i], settings[i + 1], hydae_sim_errmsg(s));
    status = hydae_sim_validate(s);
    if (want_ok) {
        CHECK(status == 0, "%s = %s: refused: %s", settings[0], settings[1], hydae_sim_errmsg(s));
    } else {
        CHECK(status == HYDAE_ERR_ARG, "%s = %s: status %d, want HYDAE_ERR_ARG", settings[0],
              settings[1], status);
        CHECK(strstr(hydae_sim_errmsg(s), want1) && strstr(hydae_sim_errmsg(s), want2),
              "message '%s' lacks '%s' or '%s'", hydae_sim_errmsg(s), want1, want2);
        /* hydae_sim_run refuses it too. */
        CHECK(hydae_sim_run(s) == HYDAE_ERR_ARG, "the run was not refused");
    }
    hydae_sim_free(s);
    hydae_model_free(m);
}

static void expect_validate(const char *const *settings, int want_ok, const char *want1,
                            const char *want2)
{
    expect_validate_on(0, settings, want_ok, want1, want2);
}

static void validate_settings(void)
{
    /* An integrator for explicit ODEs on a mode written as a residual: a
    ** usage error before the run (issue 18), naming both. */
    expect_validate_on(1, (const char *const[]){ "integrator_type", "RK45", NULL }, 0,
                       "RK45 solves explicit ODEs", "mode 'only' is written as a residual");
    expect_validate_on(1, (const char *const[]){ "integrator_type", "DSTIFF", NULL }, 1, NULL,
                       NULL);
    expect_validate((const char *const[]){ "t0", "2", "t_end", "1", NULL }, 0,
                    "t_end (1)", "t0 (2)");
    expect_validate((const char *const[]){ "h_min", "0.5", "h_max", "0.1", NULL }, 0,
                    "h_min (0.5)", "h_max (0.1)");
    expect_validate((const char *const[]){ "h0", "0.5", "h_max", "0.1", NULL }, 0, "h0 (0.5)",
                    "h_max (0.1)");
    expect_validate((const char *const[]){ "max_order", "6", NULL }, 0, "max_order (6)",
                    "DSTIFF: 1 to 5");
    expect_validate((const char *const[]){ "integrator_type", "MSTIFF", "max_order", "8", NULL },
                    0, "max_order (8)", "MSTIFF: 1 to 7");
    expect_validate((const char *const[]){ "integrator_type", "RK45", "max_order", "4", NULL },
                    0, "max_order (4)", "fixed order");
    expect_validate((const char *const[]){ "integrator_type", "RK4", NULL }, 0, "RK4",
                    "set h_max");
    expect_validate((const char *const[]){ "dae_corrector_minit", "5", "dae_corrector_maxit",
                                           "3", NULL },
                    0, "dae_corrector_minit (5)", "dae_corrector_maxit (3)");
    expect_validate((const char *const[]){ "integrator_type", "ABAM", "max_order", "12", NULL },
                    1, NULL, NULL);
    expect_validate((const char *const[]){ "h_min", "0.1", "h_max", "0.1", "h0", "0.1", NULL },
                    1, NULL, NULL);
}

static void singular_corrector(void)
{
    hydae_model *m = hydae_model_create("vanishing");
    hydae_mode *mode = hydae_chart_add_mode(hydae_model_add_chart(m, "c"), "only");
    int ok = hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
             && hydae_mode_add_var(mode, "z", HYDAE_ALGEBRAIC, 1.0) == 1
             && hydae_mode_set_residual(mode, 2, vanishing_residual, NULL) == 0;
    CHECK(ok, "model: %s", hydae_model_errmsg(m));
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s && hydae_sim_set_time(s, 0.0, 1.0) == 0, "setup");
    if (!s)
        return;
    status = hydae_sim_run(s);
    const char *msg = hydae_sim_errmsg(s);
    CHECK(status == HYDAE_ERR_SINGULAR, "status %d (%s), want HYDAE_ERR_SINGULAR", status, msg);
    CHECK(strstr(msg, "singular") && strstr(msg, "variable 'z'"),
          "the message does not say singular and name z: '%s'", msg);
    CHECK(hydae_sim_time(s) >= 0.49 && hydae_sim_time(s) <= 0.5, "failed at t = %g, want ~0.5",
          hydae_sim_time(s));
    hydae_sim_free(s);
    hydae_model_free(m);
}

int main(void)
{
    interrupt_during_run();
    interrupt_before_run();
    validate_settings();
    singular_corrector();
    return CHECK_DONE();
}
