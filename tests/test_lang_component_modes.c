/*
** Components with their own modes (src/lang/flatten_modes.c, sema_decls.c,
** structure.c; docs/language.md, "Components with modes"), against closed
** forms:
**  - a half-wave rectifier from the library (SineVoltage 10 V 50 Hz,
**    IdealDiode, R = 100 Ohm parallel to C = 1e-4 F): the diode is a chart
**    named D1 with modes blocking/conducting (the result column
**    mode(D1)); it turns off where the current R C v' + v / R through it
**    crosses zero, omega t = pi - atan(omega R C), and while it blocks the
**    capacitor follows C v' = -v / R + Goff (V sin(omega t) - v), a linear
**    ODE whose solution is the sinusoidal particular solution plus a
**    decaying exponential (within 1e-4 V at rtol 1e-6: the leak Goff
**    instead of Goff / 2 below would be 3e-3 V off);
**  - the same with an IdealSwitch in series that opens at 30 ms: two
**    component charts sharing the model-level unknowns (the core's
**    assembled configuration, DSTIFF); after the switch opens, switch and
**    diode block in series, the leak is Goff / 2, and the capacitor
**    follows the same closed form with Goff / 2;
**  - components with modes nested in a subcircuit are charts named by
**    their path (sub.D3), and the check report says which unknowns are
**    shared and analyses the initial configuration.
*/
#include "check.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "rows.h"

#include <math.h>

static char source_dir[1024];

enum { MAX_CHARTS = 4 };

typedef struct mode_rows {
    test_rows rows;
    hydae_sim *sim;
    int n_charts;
    const char **modes;          /* per row and chart */
    int cap;
} mode_rows;

static int mode_sink(void *user, hydae_row_kind kind, double t, const double *values)
{
    mode_rows *r = user;
    if (r->rows.n_rows == r->cap) {
        int cap = r->cap ? 2 * r->cap : 256;
        const char **grown = realloc(r->modes, sizeof *grown * (size_t)cap * MAX_CHARTS);
        if (!grown)
            return -1;
        r->modes = grown;
        r->cap = cap;
    }
    for (int c = 0; c < MAX_CHARTS; c++)
        r->modes[(size_t)r->rows.n_rows * MAX_CHARTS + (size_t)c] =
            c < r->n_charts ? hydae_sim_mode_name(r->sim, c) : NULL;
    return test_rows_sink(&r->rows, kind, t, values);
}

static const char *mode_at(const mode_rows *r, int row, int chart)
{
    return r->modes[(size_t)row * MAX_CHARTS + (size_t)chart];
}

static hy_lang_unit *compile(const char *name, const char *text)
{
    char display[1200];
    snprintf(display, sizeof display, "%s/tests/%s.hym", source_dir, name);
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(text, strlen(text), display, stderr, NULL,
                                                &n_errors);
    CHECK(unit != NULL, "%s: %d errors", name, n_errors);
    return unit;
}

/* Run to t_end with DSTIFF and the tolerances (atol 1e-4 here: the
** diode's current v / Ron amplifies the capacitor's error by 1 / Ron =
** 1e5, and an error test on it at atol 1e-8 rejects 99% of the steps, in
** a hand-written flat model as well: the core's error control, not the
** components), rows every dt and the active modes of the
** first n_charts charts; the mode(CHART) names must be result columns. */
static int run(hydae_model *m, int n_charts, const char *mode_columns, double t_end, double dt,
               double rtol, double atol, mode_rows *out)
{
    int status;
    memset(out, 0, sizeof *out);
    test_rows_init(&out->rows, m);
    out->n_charts = n_charts;
    hydae_sim *s = hydae_sim_create(m, &status);
    if (!s)
        return status ? status : -1;
    out->sim = s;
    status = hydae_sim_check_vars(s, mode_columns);
    CHECK(status == 0, "columns %s: %s", mode_columns, hydae_sim_errmsg(s));
    if (!status)
        status = hydae_sim_set_time(s, 0.0, t_end);
    if (!status)
        status = hydae_sim_set_output_interval(s, dt);
    if (!status)
        status = hydae_sim_set_tolerances(s, rtol, atol);
    if (!status)
        status = hydae_sim_set_integrator(s, "DSTIFF");
    if (!status)
        status = hydae_sim_add_row_sink(s, mode_sink, out);
    if (!status)
        status = hydae_sim_run(s);
    if (status)
        fprintf(stderr, "run: %s\n", hydae_sim_errmsg(s));
    hydae_sim_free(s);
    out->sim = NULL;
    return status;
}

static void mode_rows_free(mode_rows *r)
{
    test_rows_free(&r->rows);
    free(r->modes);
}

static const double V = 10, omega = 2 * 3.141592653589793 * 50, R = 100, C = 1e-4,
                    Goff = 1e-5;

/* C v' = -v / R + G (V sin(omega t) - v) from v(t0) = v0. */
static double leaking_decay(double G, double t0, double v0, double t)
{
    double a = (1 / R + G) / C, b = G * V / C;
    double p0 = b * (a * sin(omega * t0) - omega * cos(omega * t0)) / (a * a + omega * omega);
    double p = b * (a * sin(omega * t) - omega * cos(omega * t)) / (a * a + omega * omega);
    return p + (v0 - p0) * exp(-a * (t - t0));
}

/* Over rows [first, last) (one phase), the largest |C.v - closed form|
** from the phase's first row. */
static double phase_error(const hydae_model *m, const mode_rows *r, int first, int last, double G)
{
    int cv = test_column(m, "C.v");
    CHECK(cv >= 0, "no column C.v");
    if (cv < 0 || first >= last)
        return INFINITY;
    double t0 = r->rows.t[first], v0 = test_value(&r->rows, first, cv), worst = 0;
    for (int k = first; k < last; k++)
        worst = test_worse(worst, fabs(test_value(&r->rows, k, cv) - leaking_decay(G, t0, v0,
                                                                               r->rows.t[k])));
    return worst;
}

/* The first row at or after `from` where chart's mode becomes `name`. */
static int first_row_in(const mode_rows *r, int from, int chart, const char *name)
{
    for (int k = from; k < r->rows.n_rows; k++)
        if (mode_at(r, k, chart) && strcmp(mode_at(r, k, chart), name) == 0)
            return k;
    return r->rows.n_rows;
}

static const char half_wave[] =
    "import Electrical;\n"
    "model half_wave\n"
    "  SineVoltage src(V = 10, f = 50);\n"
    "  IdealDiode D1;\n"
    "  Resistor R(R = 100);\n"
    "  Capacitor C(C = 1e-4);\n"
    "  Ground G;\n"
    "equation\n"
    "  connect(src.p, D1.p);\n"
    "  connect(D1.n, R.p);\n"
    "  connect(D1.n, C.p);\n"
    "  connect(R.n, src.n);\n"
    "  connect(C.n, src.n);\n"
    "  connect(src.n, G.p);\n"
    "end half_wave;\n";

static void one_diode(void)
{
    hy_lang_unit *unit = compile("half_wave", half_wave);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    mode_rows r;
    CHECK(run(m, 1, "mode(D1)", 0.1, 1e-4, 1e-6, 1e-4, &r) == 0, "half wave: run");
    /* D1 is chart 0: blocking at t0, conducting from the first rise */
    int on = first_row_in(&r, 0, 0, "conducting");
    int off = first_row_in(&r, on, 0, "blocking");
    int on_again = first_row_in(&r, off, 0, "conducting");
    CHECK(r.rows.n_rows > 0 && strcmp(mode_at(&r, 0, 0), "blocking") == 0, "starts blocking");
    CHECK(on < 3 && off < r.rows.n_rows && on_again < r.rows.n_rows,
          "half wave: rows %d %d %d of %d", on, off, on_again, r.rows.n_rows);
    /* the turn-off time, bracketed by the output rows around it */
    double t_off = (3.141592653589793 - atan(omega * R * C)) / omega;
    CHECK(off > 0 && r.rows.t[off - 1] < t_off + 1e-7 && r.rows.t[off] >= t_off - 1e-7,
          "turn-off at %.9g, rows %.9g .. %.9g", t_off, r.rows.t[off - 1], r.rows.t[off]);
    double blocking = phase_error(m, &r, off, on_again, Goff);
    CHECK(blocking < 1e-4, "blocking phase off the closed form by %.3g", blocking);
    printf("half wave, one diode chart: turn-off at %.6f s (closed form %.6f), blocking phase "
           "max |v_C - exact| %.3g V\n", r.rows.t[off], t_off, blocking);
    mode_rows_free(&r);
    hy_lang_unit_free(unit);
}

static const char half_wave_switch[] =
    "import Electrical;\n"
    "model half_wave_switch\n"
    "  SineVoltage src(V = 10, f = 50);\n"
    "  IdealSwitch S(t_open = 0.03);\n"
    "  IdealDiode D1;\n"
    "  Resistor R(R = 100);\n"
    "  Capacitor C(C = 1e-4);\n"
    "  Ground G;\n"
    "equation\n"
    "  connect(src.p, S.p);\n"
    "  connect(S.n, D1.p);\n"
    "  connect(D1.n, R.p);\n"
    "  connect(D1.n, C.p);\n"
    "  connect(R.n, src.n);\n"
    "  connect(C.n, src.n);\n"
    "  connect(src.n, G.p);\n"
    "end half_wave_switch;\n";

static void switch_and_diode(void)
{
    hy_lang_unit *unit = compile("half_wave_switch", half_wave_switch);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    mode_rows r;
    /* charts: S, D1, then the model's own (the model-level equations) */
    CHECK(run(m, 3, "mode(S),mode(D1),mode(half_wave_switch)", 0.1, 1e-4, 1e-6, 1e-4,
              &r) == 0,
          "switch and diode: run");
    int off = first_row_in(&r, first_row_in(&r, 0, 1, "conducting"), 1, "blocking");
    int on_again = first_row_in(&r, off, 1, "conducting");
    double closed_phase = phase_error(m, &r, off, on_again, Goff);
    int opened = first_row_in(&r, 0, 0, "open");
    int on_after_open = first_row_in(&r, opened, 1, "conducting");
    CHECK(opened < r.rows.n_rows && fabs(r.rows.t[opened] - 0.03) < 1e-9,
          "the switch opens at %.9g", opened < r.rows.n_rows ? r.rows.t[opened] : NAN);
    CHECK(opened < r.rows.n_rows && strcmp(mode_at(&r, opened, 1), "blocking") == 0,
          "the diode blocks when the switch opens");
    double open_phase = phase_error(m, &r, opened, on_after_open, Goff / 2);
    CHECK(closed_phase < 1e-4 && open_phase < 1e-4,
          "off the closed forms: switch closed %.3g, switch open %.3g", closed_phase,
          open_phase);
    CHECK(on_after_open - opened > 50, "the open phase lasts %d rows", on_after_open - opened);
    printf("half wave, switch and diode (two charts sharing unknowns, DSTIFF): blocking with "
           "the switch closed max |v_C - exact| %.3g V, with it open (leak Goff/2) %.3g V "
           "over %.4f s\n", closed_phase, open_phase,
           r.rows.t[on_after_open - 1] - r.rows.t[opened]);
    mode_rows_free(&r);
    hy_lang_unit_free(unit);
}

/* The report of a text, NUL-terminated (caller frees), and its errors. */
static char *report(const char *name, const char *text, int *n_errors)
{
    char display[1200];
    snprintf(display, sizeof display, "%s/tests/%s.hym", source_dir, name);
    FILE *f = tmpfile();
    CHECK(f != NULL, "tmpfile");
    if (!f)
        return NULL;
    *n_errors = hy_lang_check_report_string(text, strlen(text), display, f);
    char *out = lang_test_drain(f);
    fclose(f);
    return out;
}

static void nested(void)
{
    static const char text[] =
        "import Electrical;\n"
        "model Rectifier\n"
        "  Pin p, n;\n"
        "  IdealDiode D3;\n"
        "  Resistor R(R = 10);\n"
        "equation\n"
        "  connect(p, D3.p);\n"
        "  connect(D3.n, R.p);\n"
        "  connect(R.n, n);\n"
        "end Rectifier;\n"
        "model nested\n"
        "  SineVoltage src;\n"
        "  Rectifier sub;\n"
        "  IdealDiode D1;\n"
        "  Resistor load;\n"
        "  Ground G;\n"
        "equation\n"
        "  connect(src.p, sub.p);\n"
        "  connect(src.p, D1.p);\n"
        "  connect(D1.n, load.p);\n"
        "  connect(sub.n, src.n);\n"
        "  connect(load.n, src.n);\n"
        "  connect(src.n, G.p);\n"
        "end nested;\n";
    int n_errors = -1;
    char *out = report("nested", text, &n_errors);
    CHECK(n_errors == 0, "nested: %d errors:\n%s", n_errors, out ? out : "");
    CHECK(out && strstr(out, "chart sub.D3 (initial mode blocking)"), "no chart sub.D3:\n%s",
          out ? out : "");
    CHECK(out && strstr(out, "chart D1 (initial mode blocking)"), "no chart D1");
    CHECK(out && strstr(out, "chart nested (initial mode nested)"), "no model chart");
    CHECK(out && strstr(out, "initial configuration (the initial mode of every chart): "),
          "no initial configuration");
    CHECK(out && strstr(out, "  (shared with other charts)\n"), "no shared unknown");
    free(out);
    /* and it runs: both diodes conduct in the positive half wave */
    hy_lang_unit *unit = compile("nested", text);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    mode_rows r;
    CHECK(run(m, 2, "mode(D1),mode(sub.D3)", 1.0, 0.01, 1e-6, 1e-4, &r) == 0, "nested: run");
    int both = 0;
    for (int k = 0; k < r.rows.n_rows; k++)
        both += r.rows.t[k] > 0.05 && r.rows.t[k] < 0.45
                && strcmp(mode_at(&r, k, 0), "conducting") == 0
                && strcmp(mode_at(&r, k, 1), "conducting") == 0;
    CHECK(both == 39, "both diodes conduct in (0.05, 0.45): %d rows of 39", both);
    mode_rows_free(&r);
    hy_lang_unit_free(unit);
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    one_diode();
    switch_and_diode();
    nested();
    return CHECK_DONE();
}
