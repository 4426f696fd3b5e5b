/*
** hydae's component library (lib/NAME.hym, `import NAME;`), each domain
** against a closed form:
**  - Electrical: an RC circuit charging, v_C = V (1 - exp(-t / (R C)));
**  - Rotational: an inertia on a spring to a fixed flange, with a damper,
**    the underdamped free response of J phi'' + d phi' + c phi = 0;
**  - Translational: the same for a mass, spring and damper, with the
**    library's classes named by their library (Translational.Mass);
**  - Thermal: a heat capacitor cooling through a conductor to a fixed
**    temperature, T = T_amb + (T0 - T_amb) exp(-G t / C);
**  - Blocks: a constant into an integrator (y = k c t), and a feedback
**    loop y' = k (r - y) built from Feedback, Gain and Integrator;
**  - an error inside a library found next to the model is reported at the
**    library file's own line and column, with its line quoted.
*/
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "check.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "rows.h"

#include <math.h>

static char source_dir[1024];

typedef double (*exact_fn)(double t);

/* Compile text as if it were a file in the source tree's tests/ (imports
** are found in lib/), run it to t_end and compare `column` with exact. */
static void check_model(const char *name, const char *text, const char *column, exact_fn exact,
                        double t_end, double tol)
{
    char display[1200];
    snprintf(display, sizeof display, "%s/tests/%s.hym", source_dir, name);
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(text, strlen(text), display, stderr, NULL,
                                                &n_errors);
    CHECK(unit != NULL, "%s: %d errors", name, n_errors);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, t_end, t_end / 50, 1e-9, 1e-11, &rows) == 0, "%s: run", name);
    int c = test_column(m, column);
    CHECK(c >= 0, "%s: no column %s", name, column);
    double worst = 0.0;
    for (int r = 0; r < rows.n_rows && c >= 0; r++)
        worst = test_worse(worst, fabs(test_value(&rows, r, c) - exact(rows.t[r])));
    CHECK(rows.n_rows == 51 && worst < tol, "%s: %s off the closed form by %.3g (%d rows)",
          name, column, worst, rows.n_rows);
    printf("%-14s %-8s max |error| %.3g\n", name, column, worst);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

static double rc_exact(double t)
{
    return 5.0 * (1.0 - exp(-t / (1000.0 * 1e-3)));
}

/* J phi'' + d phi' + c phi = 0, phi(0) = 1, phi'(0) = 0 with J = 2, d = 0.4, c = 8. */
static double damped_exact(double t)
{
    double omega0 = 2.0, zeta = 0.4 / (2.0 * sqrt(8.0 * 2.0));
    double decay = zeta * omega0, omega_d = omega0 * sqrt(1 - zeta * zeta);
    return exp(-decay * t) * (cos(omega_d * t) + decay / omega_d * sin(omega_d * t));
}

static double cooling_exact(double t)
{
    return 300.0 + 100.0 * exp(-2.0 * t / 10.0);
}

static double ramp_exact(double t)
{
    return 2.0 * 3.0 * t;
}

static double loop_exact(double t)
{
    return 4.0 * (1.0 - exp(-0.5 * t));
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void error_in_library(void)
{
    char dir[] = "/tmp/hydae_lib_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char lib[256], model[256];
    snprintf(lib, sizeof lib, "%s/Broken.hym", dir);
    snprintf(model, sizeof model, "%s/uses_broken.hym", dir);
    write_file(lib, "// a library with a mistake\nmodel Leak\n  Real x(start = 1);\n"
                    "equation\n  der(x) = -k * x;\nend Leak;\n");
    write_file(model, "import Broken;\nmodel uses_broken\n  Leak a;\nend uses_broken;\n");
    FILE *out = tmpfile();
    int n_errors = 0;
    hy_lang_unit *unit = out ? hy_lang_compile_file(model, out, NULL, &n_errors) : NULL;
    CHECK(unit == NULL && n_errors == 1, "a broken library compiled (%d errors)", n_errors);
    char *text = out ? lang_test_drain(out) : NULL;
    char want[512];
    snprintf(want, sizeof want, "%s:5:13: error: undefined name 'a.k'\n   der(x) = -k * x;\n", lib);
    CHECK(text && strstr(text, want), "want:\n%sgot:\n%s", want, text ? text : "(none)");
    free(text);
    if (out)
        fclose(out);
    hy_lang_unit_free(unit);
    remove(lib);
    remove(model);
    remove(dir);
}

static hy_lang_unit *compile_in_tests(const char *name, const char *text)
{
    char display[1200];
    snprintf(display, sizeof display, "%s/tests/%s.hym", source_dir, name);
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(text, strlen(text), display, stderr, NULL,
                                                &n_errors);
    CHECK(unit != NULL, "%s: %d errors", name, n_errors);
    return unit;
}

/* Rotational.Backlash between J1 = 1 (at 2 rad/s) and J2 = 3 (at rest),
** play 0.2 rad, contact stiffness 100: free flight until the play closes
** (|phi_rel| = 0.1), then half a period pi / omega of the contact spring,
** omega^2 = c (1/J1 + 1/J2), after which the speeds are those of an
** elastic collision; the switches follow from that, momentum stays 2 and
** the energy 2. */
static void backlash(void)
{
    hy_lang_unit *unit = compile_in_tests("backlash",
        "import Rotational;\n"
        "model backlash\n"
        "  Inertia J1(J = 1, w0 = 2), J2(J = 3, w0 = 0);\n"
        "  Backlash G(c = 100, gap = 0.2);\n"
        "equation\n"
        "  connect(J1.b, G.a);\n"
        "  connect(G.b, J2.a);\n"
        "  output p = J1.J * J1.w + J2.J * J2.w;\n"
        "  output E = J1.J * J1.w^2 / 2 + J2.J * J2.w^2 / 2 + G.tau^2 / (2 * G.c);\n"
        "end backlash;\n");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, "DSTIFF", 1.0, 0.01, 1e-11, 1e-11, &rows) == 0, "backlash run");
    const double half = 3.141592653589793 / sqrt(100.0 * (1.0 + 1.0 / 3.0));
    /* closing at relative speed 2 over 0.1 rad, then 0.2 rad each way */
    const double expected[5] = { 0.05, 0.05 + half, 0.15 + half, 0.15 + 2 * half,
                                 0.25 + 2 * half };
    int n = 0, cp = test_column(m, "p"), ce = test_column(m, "E");
    double worst_t = 0, worst_p = 0, worst_e = 0;
    for (int r = 0; r < rows.n_rows; r++) {
        if (rows.kind[r] == HYDAE_ROW_EVENT_LEFT) {
            if (n < 5)
                worst_t = test_worse(worst_t, fabs(rows.t[r] - expected[n]));
            n++;
        }
        if (cp >= 0 && ce >= 0) {
            worst_p = test_worse(worst_p, fabs(test_value(&rows, r, cp) - 2.0));
            worst_e = test_worse(worst_e, fabs(test_value(&rows, r, ce) - 2.0));
        }
    }
    CHECK(n == 5 && worst_t < 1e-9, "backlash: %d switches, off the closed form by %.3g s", n,
          worst_t);
    CHECK(worst_p < 1e-9 && worst_e < 1e-6, "backlash: momentum off by %.3g, energy by %.3g",
          worst_p, worst_e);
    printf("backlash       switches within %.2g s; momentum %.2g, energy %.2g\n", worst_t,
           worst_p, worst_e);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

/* Blocks.SampleHold of a 1 Hz sine every 0.25 s: between samples the
** output is the sine at the last sample time. */
static void sample_hold(void)
{
    hy_lang_unit *unit = compile_in_tests("sample_hold",
        "import Blocks;\n"
        "model sample_hold\n"
        "  Sine src(A = 1, f = 1);\n"
        "  SampleHold S(T = 0.25);\n"
        "equation\n"
        "  connect(src.y, S.u);\n"
        "end sample_hold;\n");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, 1.1, 0.01, 1e-9, 1e-11, &rows) == 0, "sample-hold run");
    int c = test_column(m, "S.y.u"), checked = 0;
    double worst = 0;
    for (int r = 0; r < rows.n_rows && c >= 0; r++) {
        double t = rows.t[r], k = floor(t / 0.25 + 1e-9);
        if (rows.kind[r] != HYDAE_ROW_GRID || fabs(t / 0.25 - floor(t / 0.25 + 0.5)) < 1e-6)
            continue; /* at a sample instant both values are right */
        worst = test_worse(worst, fabs(test_value(&rows, r, c) - sin(2 * 3.141592653589793 * k * 0.25)));
        checked++;
    }
    CHECK(c >= 0 && checked > 90 && worst < 1e-12, "sample-hold off by %.3g (%d rows)", worst,
          checked);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    backlash();
    sample_hold();
    check_model("rc", "import Electrical;\n"
                      "model rc\n"
                      "  ConstantVoltage src(V = 5);\n  Resistor R(R = 1000);\n"
                      "  Capacitor C(C = 1e-3);\n  Ground g;\n"
                      "equation\n"
                      "  connect(src.p, R.p);\n  connect(R.n, C.p);\n"
                      "  connect(C.n, src.n);\n  connect(src.n, g.p);\n"
                      "end rc;\n",
                "C.v", rc_exact, 5.0, 1e-6);
    check_model("torsion", "import Rotational;\n"
                           "model torsion\n"
                           "  Fixed ground;\n  Spring k(c = 8);\n  Damper d(d = 0.4);\n"
                           "  Inertia J(J = 2, phi0 = 1);\n"
                           "equation\n"
                           "  connect(ground.a, k.a);\n  connect(k.b, J.a);\n"
                           "  connect(ground.a, d.a);\n  connect(d.b, J.a);\n"
                           "end torsion;\n",
                "J.phi", damped_exact, 10.0, 1e-6);
    check_model("oscillator", "import Translational;\nimport Rotational;\n"
                              "model oscillator\n"
                              "  Translational.Fixed wall;\n"
                              "  Translational.Spring k(c = 8);\n"
                              "  Translational.Damper d(d = 0.4);\n"
                              "  Translational.Mass m(m = 2, s0 = 1);\n"
                              "equation\n"
                              "  connect(wall.a, k.a);\n  connect(k.b, m.a);\n"
                              "  connect(wall.a, d.a);\n  connect(d.b, m.a);\n"
                              "end oscillator;\n",
                "m.s", damped_exact, 10.0, 1e-6);
    check_model("cooling", "import Thermal;\n"
                           "model cooling\n"
                           "  HeatCapacitor body(C = 10, T0 = 400);\n"
                           "  ThermalConductor wall(G = 2);\n"
                           "  FixedTemperature air(T = 300);\n"
                           "equation\n"
                           "  connect(body.port, wall.a);\n  connect(wall.b, air.port);\n"
                           "end cooling;\n",
                "body.T", cooling_exact, 20.0, 1e-6);
    check_model("ramp", "import Blocks;\n"
                        "model ramp\n"
                        "  Constant c(k = 3);\n  Integrator I(k = 2);\n"
                        "equation\n"
                        "  connect(c.y, I.u);\n"
                        "end ramp;\n",
                "I.y.u", ramp_exact, 5.0, 1e-9);
    check_model("loop", "import Blocks;\n"
                        "model loop\n"
                        "  Constant r(k = 4);\n  Feedback e;\n  Gain g(k = 0.5);\n"
                        "  Integrator I;\n"
                        "equation\n"
                        "  connect(r.y, e.u1);\n  connect(I.y, e.u2);\n"
                        "  connect(e.y, g.u);\n  connect(g.y, I.u);\n"
                        "end loop;\n",
                "I.y.u", loop_exact, 10.0, 1e-6);
    error_in_library();
    return CHECK_DONE();
}
