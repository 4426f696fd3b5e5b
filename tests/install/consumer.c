/*
** A program built against an installed hydae (tests/install_test.sh), as a
** user's would be: only <hydae.h>, only hydae_* functions.
**
**   consumer MODEL.hym
**
** loads rc_discharge.hym (a capacitor discharging through a resistor from
** the installed component library), runs it with the file's experiment and
** checks v_C(t_end) against v0 exp(-t_end / (R C)); then checks that a
** model with an error gives no model and a file:line:column diagnostic.
** Exit 0 when every check holds.
*/
#include <hydae.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct last_row {
    int column; /* of C.v among the values */
    double t, v;
} last_row;

static int keep_last(void *user, hydae_row_kind kind, double t, const double *values)
{
    last_row *row = user;
    (void)kind;
    row->t = t;
    row->v = values[row->column];
    return 0;
}

static int fail(const char *what)
{
    fprintf(stderr, "consumer: FAILED: %s\n", what);
    return 1;
}

/* The experiment's t_end as the model reports it; NaN if absent. */
static double experiment_t_end(const hydae_model *m)
{
    const char *name, *value;
    for (int i = 0; (name = hydae_model_experiment_setting(m, i, &value)); i++)
        if (strcmp(name, "t_end") == 0)
            return atof(value);
    return NAN;
}

static int run_model(const char *path)
{
    char *diagnostics = NULL;
    int n_errors = -1;
    hydae_model *m = hydae_model_load_file(path, &diagnostics, &n_errors);
    if (!m) {
        fprintf(stderr, "%s", diagnostics ? diagnostics : "");
        hydae_string_free(diagnostics);
        return fail("the model did not load");
    }
    hydae_string_free(diagnostics);
    if (n_errors != 0)
        return fail("a model that loads reports errors");
    double t_end = experiment_t_end(m);
    last_row row = { -1, NAN, NAN };
    for (int c = 0; c < hydae_model_n_columns(m); c++)
        if (strcmp(hydae_model_column_name(m, c), "C.v") == 0)
            row.column = c;
    int status = 0;
    hydae_sim *s = row.column >= 0 ? hydae_sim_create(m, &status) : NULL;
    if (!s) {
        hydae_model_free(m);
        return fail("no column C.v, or no sim");
    }
    if (hydae_sim_apply_experiment(s) || hydae_sim_add_row_sink(s, keep_last, &row)
        || hydae_sim_run(s)) {
        fprintf(stderr, "consumer: %s\n", hydae_sim_errmsg(s));
        hydae_sim_free(s);
        hydae_model_free(m);
        return fail("the run");
    }
    /* R C = 1000 Ohm * 1e-3 F = 1 s, v0 = 1 V (rc_discharge.hym). */
    double exact = exp(-t_end / 1.0);
    double error = fabs(row.v - exact);
    printf("consumer: %s (hydae %s): t = %.17g, C.v = %.17g, exp(-t) = %.17g, error %.3g\n",
           path, hydae_version(), row.t, row.v, exact, error);
    int failed = 0;
    if (!(t_end == 2.0) || !(row.t == t_end) || !(hydae_sim_time(s) == t_end))
        failed = fail("the experiment's t_end = 2 was not applied");
    else if (!(error < 1e-6))
        failed = fail("C.v(t_end) differs from exp(-t_end) by 1e-6 or more");
    hydae_sim_free(s);
    hydae_model_free(m);
    return failed;
}

/* A model whose line 3 uses an undeclared name: no model, one error or
** more, and the diagnostic names the file, the line and a column. */
static int check_error_model(void)
{
    static const char text[] = "model bad\n"
                               "  Real x(start = 1);\n"
                               "equation\n"
                               "  der(x) = -k * x;\n"
                               "end bad;\n";
    char *diagnostics = NULL;
    int n_errors = 0;
    hydae_model *m = hydae_model_load_string(text, strlen(text), "bad.hym", &diagnostics,
                                             &n_errors);
    int line = 0, column = 0;
    int parsed = diagnostics && sscanf(diagnostics, "bad.hym:%d:%d: error:", &line, &column) == 2;
    printf("consumer: error case: %d error(s): %s", n_errors, diagnostics ? diagnostics : "\n");
    int failed = 0;
    if (m || n_errors < 1 || !parsed || line != 4 || column < 1)
        failed = fail("an undeclared name did not give bad.hym:4:COLUMN: error:");
    hydae_model_free(m);
    hydae_string_free(diagnostics);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: consumer MODEL.hym\n");
        return 2;
    }
    int failed = run_model(argv[1]);
    failed |= check_error_model();
    return failed;
}
