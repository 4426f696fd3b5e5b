/*
** Components and connectors in model files (src/lang/flatten.c), against
** closed forms:
**  - the series RLC circuit of examples/rlc_circuit.hym (source, resistor,
**    inductor, capacitor, ground joined by connect()) follows the
**    underdamped step response i(t), v_C(t) of its circuit equations, and
**    Kirchhoff's laws hold at every point (the source's current is the
**    loop current; the potentials of connected pins are equal);
**  - an unconnected pin carries no current: a source driving a resistor
**    whose other pin is left open gives i = 0 and v = V across it;
**  - modifiers reach nested components, the outer one winning (a
**    subcircuit with an inner R = 1 set to 3 from outside halves ... the
**    current V / (R_a + R_b) says which R was used);
**  - components inside components (a two-resistor divider class used
**    twice) flatten with dotted names to any depth.
*/
#include "check.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "rows.h"

#include <math.h>

static char source_dir[1024];

static hy_lang_unit *compile_text(const char *text, const char *name)
{
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(text, strlen(text), name, stderr, NULL, &n_errors);
    CHECK(unit != NULL, "%s: %d errors", name, n_errors);
    return unit;
}

static double value(const hydae_model *m, const test_rows *rows, int row, const char *name)
{
    int c = test_column(m, name);
    CHECK(c >= 0, "no column %s", name);
    return c >= 0 ? test_value(rows, row, c) : NAN;
}

static void rlc(void)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/examples/rlc_circuit.hym", source_dir);
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_file(path, stderr, NULL, &n_errors);
    CHECK(unit != NULL, "rlc_circuit.hym: %d errors", n_errors);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, 5.0, 0.05, 1e-9, 1e-11, &rows) == 0, "rlc run");
    const double V = 10, R = 2, L = 1, C = 0.25, alpha = R / (2 * L);
    const double omega = sqrt(1 / (L * C) - alpha * alpha);
    double worst_i = 0, worst_v = 0, worst_kirchhoff = 0;
    for (int r = 0; r < rows.n_rows; r++) {
        double t = rows.t[r], decay = exp(-alpha * t);
        double i = V / (L * omega) * decay * sin(omega * t);
        double vc = V * (1 - decay * (cos(omega * t) + alpha / omega * sin(omega * t)));
        worst_i = fmax(worst_i, fabs(value(m, &rows, r, "L1.i") - i));
        worst_v = fmax(worst_v, fabs(value(m, &rows, r, "C1.v") - vc));
        /* the loop current through every element; connected pins at one potential */
        double k = fabs(value(m, &rows, r, "R1.i") - value(m, &rows, r, "C1.i"))
                   + fabs(value(m, &rows, r, "src.i") + value(m, &rows, r, "R1.i"))
                   + fabs(value(m, &rows, r, "R1.n.v") - value(m, &rows, r, "L1.p.v"))
                   + fabs(value(m, &rows, r, "C1.n.v") - value(m, &rows, r, "gnd.p.v"))
                   + fabs(value(m, &rows, r, "gnd.p.v"));
        worst_kirchhoff = fmax(worst_kirchhoff, k);
    }
    CHECK(rows.n_rows == 101, "%d rows", rows.n_rows);
    CHECK(worst_i < 1e-6 && worst_v < 1e-6, "RLC: |i - exact| %.3g, |v_C - exact| %.3g",
          worst_i, worst_v);
    CHECK(worst_kirchhoff < 1e-9, "RLC: Kirchhoff residual %.3g", worst_kirchhoff);
    printf("RLC from components: max |i - exact| %.3g, |v_C - exact| %.3g, Kirchhoff %.3g\n",
           worst_i, worst_v, worst_kirchhoff);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

static const char library[] =
    "connector Pin\n"
    "  Real v;\n"
    "  flow Real i;\n"
    "end Pin;\n"
    "model Resistor\n"
    "  parameter Real R = 1;\n"
    "  Pin p, n;\n"
    "  Real v, i;\n"
    "equation\n"
    "  v = p.v - n.v;\n"
    "  0 = p.i + n.i;\n"
    "  i = p.i;\n"
    "  v = R * i;\n"
    "end Resistor;\n"
    "model Source\n"
    "  parameter Real V = 1;\n"
    "  Pin p, n;\n"
    "  Real i;\n"
    "equation\n"
    "  p.v - n.v = V * (1 + 0 * time);\n"
    "  0 = p.i + n.i;\n"
    "  i = p.i;\n"
    "end Source;\n"
    "model Ground\n"
    "  Pin p;\n"
    "equation\n"
    "  p.v = 0;\n"
    "end Ground;\n"
    "model Divider\n"
    "  Resistor a(R = 1), b(R = 1);\n"
    "  Pin top, bottom;\n"
    "equation\n"
    "  connect(top, a.p);\n"
    "  connect(a.n, b.p);\n"
    "  connect(b.n, bottom);\n"
    "end Divider;\n";

/* One state so that the integrators have something to do. */
static const char clock[] = "  Real clock(start = 0);\nequation\n  der(clock) = 1;\n";

static void open_pin(void)
{
    char text[4096];
    snprintf(text, sizeof text,
             "%smodel open\n  Source src(V = 5);\n  Resistor R1(R = 10);\n  Ground g;\n%s"
             "  connect(src.p, R1.p);\n  connect(src.n, g.p);\nend open;\n",
             library, clock);
    hy_lang_unit *unit = compile_text(text, "open.hym");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, 1.0, 0.5, 1e-9, 1e-11, &rows) == 0, "open-pin run");
    int last = rows.n_rows - 1;
    CHECK(last > 0 && fabs(value(m, &rows, last, "R1.i")) < 1e-12
              && fabs(value(m, &rows, last, "R1.n.i")) < 1e-12,
          "an open pin carries current %g", last > 0 ? value(m, &rows, last, "R1.n.i") : NAN);
    CHECK(last > 0 && fabs(value(m, &rows, last, "R1.n.v") - 5.0) < 1e-12,
          "the open end is at %g, expected the source's 5 V",
          last > 0 ? value(m, &rows, last, "R1.n.v") : NAN);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

/* Two dividers in series across 12 V: the outer modifier d1.a.R = 3
** overrides the class's a(R = 1); I = 12 / (3 + 1 + 1 + 1) = 2. */
static void nested_modifiers(void)
{
    char text[4096];
    snprintf(text, sizeof text,
             "%smodel nested\n  Source src(V = 12);\n  Divider d1(a.R = 3), d2;\n  Ground g;\n"
             "%s  connect(src.p, d1.top);\n  connect(d1.bottom, d2.top);\n"
             "  connect(d2.bottom, src.n);\n  connect(src.n, g.p);\nend nested;\n",
             library, clock);
    hy_lang_unit *unit = compile_text(text, "nested.hym");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, 1.0, 0.5, 1e-9, 1e-11, &rows) == 0, "nested run");
    int last = rows.n_rows - 1;
    if (last > 0) {
        CHECK(fabs(value(m, &rows, last, "src.i") + 2.0) < 1e-12, "source current %g, "
              "expected -2", value(m, &rows, last, "src.i"));
        CHECK(fabs(value(m, &rows, last, "d1.a.v") - 6.0) < 1e-12
                  && fabs(value(m, &rows, last, "d1.b.v") - 2.0) < 1e-12
                  && fabs(value(m, &rows, last, "d2.a.v") - 2.0) < 1e-12,
              "voltages %g %g %g, expected 6 2 2", value(m, &rows, last, "d1.a.v"),
              value(m, &rows, last, "d1.b.v"), value(m, &rows, last, "d2.a.v"));
        CHECK(fabs(value(m, &rows, last, "d1.bottom.v") - 4.0) < 1e-12,
              "midpoint at %g V, expected 4", value(m, &rows, last, "d1.bottom.v"));
    }
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    rlc();
    open_pin();
    nested_modifiers();
    return CHECK_DONE();
}
