/*
** Components and connectors in model files (src/lang/flatten*.c), against
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
#include "lang/lang_check.h"

#include <math.h>

static char source_dir[1024];

#define compile_text lang_check_compile
#define value lang_check_value

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
        worst_i = test_worse(worst_i, fabs(value(m, &rows, r, "L1.i") - i));
        worst_v = test_worse(worst_v, fabs(value(m, &rows, r, "C1.v") - vc));
        /* the loop current through every element; connected pins at one potential */
        double k = fabs(value(m, &rows, r, "R1.i") - value(m, &rows, r, "C1.i"))
                   + fabs(value(m, &rows, r, "src.i") + value(m, &rows, r, "R1.i"))
                   + fabs(value(m, &rows, r, "R1.n.v") - value(m, &rows, r, "L1.p.v"))
                   + fabs(value(m, &rows, r, "C1.n.v") - value(m, &rows, r, "gnd.p.v"))
                   + fabs(value(m, &rows, r, "gnd.p.v"));
        worst_kirchhoff = test_worse(worst_kirchhoff, k);
    }
    CHECK(rows.n_rows == 101, "%d rows", rows.n_rows);
    CHECK(worst_i < 1e-6 && worst_v < 1e-6, "RLC: |i - exact| %.3g, |v_C - exact| %.3g",
          worst_i, worst_v);
    CHECK(worst_kirchhoff < 1e-9, "RLC: Kirchhoff residual %.3g", worst_kirchhoff);
    printf("RLC from components: max |i - exact| %.3g, |v_C - exact| %.3g, Kirchhoff %.3g\n",
           worst_i, worst_v, worst_kirchhoff);
    /* The source's v = V is a trivial equation, removed with src.v
    ** (docs/language.md): setting V afterwards must still reach the
    ** circuit, whose response is linear in V. */
    test_rows rows2;
    CHECK(hydae_model_set_param(m, "src.V", 20) == 0, "set src.V: %s", hydae_model_errmsg(m));
    CHECK(test_run(m, NULL, 5.0, 0.05, 1e-9, 1e-11, &rows2) == 0, "rlc run, V = 20");
    double worst_scaled = rows2.n_rows == rows.n_rows ? 0 : INFINITY;
    for (int r = 0; r < rows.n_rows && r < rows2.n_rows; r++)
        worst_scaled = test_worse(worst_scaled, fabs(value(m, &rows2, r, "L1.i")
                                               - 2 * value(m, &rows, r, "L1.i"))
                                              + fabs(value(m, &rows2, r, "src.v") - 20));
    CHECK(worst_scaled < 1e-6, "RLC with V = 20: not twice the current of V = 10 (%.3g)",
          worst_scaled);
    test_rows_free(&rows2);
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

/* Component arrays: a chain of three inertias joined by two springs,
** connected in a for-loop, is the same model as the chain written
** component by component (the same equations, so the same numbers), and
** keeps its invariants: the momentum sum J_i w_i and the energy. */
static void component_arrays(void)
{
    static const char chain[] =
        "import Rotational;\n"
        "model chain\n"
        "  constant Real N = 3;\n"
        "  Inertia J[N](J = {1, 2, 3}, w0 = {1, 0, -0.5});\n"
        "  Spring S[N - 1](c = 4);\n"
        "equation\n"
        "  for i in 1:N - 1 loop\n"
        "    connect(J[i].b, S[i].a);\n"
        "    connect(S[i].b, J[i + 1].a);\n"
        "  end for;\n"
        "  output p = sum(J[i].J * J[i].w for i in 1:N);\n"
        "  output E = sum(J[i].J * J[i].w^2 / 2 for i in 1:N)\n"
        "             + sum(S[i].c * (J[i + 1].phi - J[i].phi)^2 / 2 for i in 1:N - 1);\n"
        "end chain;\n";
    static const char flat[] =
        "import Rotational;\n"
        "model chain_flat\n"
        "  Inertia J1(J = 1, w0 = 1), J2(J = 2, w0 = 0), J3(J = 3, w0 = -0.5);\n"
        "  Spring S1(c = 4), S2(c = 4);\n"
        "equation\n"
        "  connect(J1.b, S1.a);\n"
        "  connect(S1.b, J2.a);\n"
        "  connect(J2.b, S2.a);\n"
        "  connect(S2.b, J3.a);\n"
        "end chain_flat;\n";
    hy_lang_unit *unit = compile_text(chain, "chain.hym");
    hy_lang_unit *unit_flat = compile_text(flat, "chain_flat.hym");
    if (!unit || !unit_flat) {
        hy_lang_unit_free(unit);
        hy_lang_unit_free(unit_flat);
        return;
    }
    hydae_model *m = hy_lang_unit_model(unit), *mf = hy_lang_unit_model(unit_flat);
    test_rows rows, rows_flat;
    CHECK(test_run(m, "DSTIFF", 5.0, 0.01, 1e-10, 1e-12, &rows) == 0, "chain run");
    CHECK(test_run(mf, "DSTIFF", 5.0, 0.01, 1e-10, 1e-12, &rows_flat) == 0, "flat chain run");
    CHECK(rows.n_rows == rows_flat.n_rows && rows.n_rows > 400, "rows %d and %d", rows.n_rows,
          rows_flat.n_rows);
    double worst_same = 0, worst_p = 0, worst_e = 0;
    const double p0 = 1 * 1 + 2 * 0 + 3 * -0.5, e0 = (1 * 1 + 3 * 0.25) / 2;
    for (int r = 0; r < rows.n_rows && r < rows_flat.n_rows; r++) {
        for (int k = 1; k <= 3; k++) {
            char a[16], b[16];
            snprintf(a, sizeof a, "J[%d].w", k);
            snprintf(b, sizeof b, "J%d.w", k);
            worst_same = test_worse(worst_same, fabs(value(m, &rows, r, a) - value(mf, &rows_flat, r, b)));
            snprintf(a, sizeof a, "J[%d].phi", k);
            snprintf(b, sizeof b, "J%d.phi", k);
            worst_same = test_worse(worst_same, fabs(value(m, &rows, r, a) - value(mf, &rows_flat, r, b)));
        }
        worst_p = test_worse(worst_p, fabs(value(m, &rows, r, "p") - p0));
        worst_e = test_worse(worst_e, fabs(value(m, &rows, r, "E") - e0));
    }
    CHECK(worst_same < 1e-12, "array and component-by-component chains differ by %.3g",
          worst_same);
    CHECK(worst_p < 1e-9, "momentum off %g by %.3g", p0, worst_p);
    CHECK(worst_e < 1e-7, "energy off %g by %.3g", e0, worst_e);
    printf("component arrays: chain vs flat %.2g, momentum %.2g, energy %.2g\n", worst_same,
           worst_p, worst_e);
    test_rows_free(&rows);
    test_rows_free(&rows_flat);
    hy_lang_unit_free(unit);
    hy_lang_unit_free(unit_flat);
}

/* A ladder of resistors in series, R[k] = k, across 10 V: the current is
** 10 / sum(k) = 1 A and R[k] drops k volts; an element's member by a
** constant index outside a loop (R[3].v). */
static void resistor_ladder(void)
{
    static const char text[] =
        "import Electrical;\n"
        "model ladder\n"
        "  constant Real n = 4;\n"
        "  ConstantVoltage src(V = 10);\n"
        "  Resistor R[n](R = {1, 2, 3, 4});\n"
        "  Ground g;\n"
        "equation\n"
        "  connect(src.p, R[1].p);\n"
        "  for k in 1:n - 1 loop\n"
        "    connect(R[k].n, R[k + 1].p);\n"
        "  end for;\n"
        "  connect(R[n].n, src.n);\n"
        "  connect(src.n, g.p);\n"
        "  output v3 = R[3].v;\n"
        "end ladder;\n";
    hy_lang_unit *unit = compile_text(text, "ladder.hym");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, 1.0, 0.5, 1e-9, 1e-11, &rows) == 0, "ladder run");
    int last = rows.n_rows - 1;
    for (int k = 1; k <= 4 && last > 0; k++) {
        char name[16];
        snprintf(name, sizeof name, "R[%d].v", k);
        CHECK(fabs(value(m, &rows, last, name) - k) < 1e-12, "%s = %g, expected %d", name,
              value(m, &rows, last, name), k);
        snprintf(name, sizeof name, "R[%d].i", k);
        CHECK(fabs(value(m, &rows, last, name) - 1.0) < 1e-12, "%s = %g, expected 1", name,
              value(m, &rows, last, name));
    }
    CHECK(last > 0 && fabs(value(m, &rows, last, "v3") - 3.0) < 1e-12, "v3 = %g",
          last > 0 ? value(m, &rows, last, "v3") : NAN);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

/* An array of components with modes: D[1] and D[2] are two charts. Two
** branches, a diode and R = 10 each, the diodes opposed, across a 10 V
** sine: D[1] carries the positive half-waves, D[2] the negative ones,
** |vs| / (R + Ron) while conducting, Goff v (1e-4 A) while blocking. */
static void moded_array(void)
{
    static const char text[] =
        "import Electrical;\n"
        "model opposed\n"
        "  SineVoltage src(V = 10, f = 50);\n"
        "  IdealDiode D[2];\n"
        "  Resistor R[2](R = 10);\n"
        "  Ground g;\n"
        "equation\n"
        "  connect(src.p, D[1].p);\n"
        "  connect(D[1].n, R[1].p);\n"
        "  connect(R[1].n, src.n);\n"
        "  connect(src.n, D[2].p);\n"
        "  connect(D[2].n, R[2].p);\n"
        "  connect(R[2].n, src.p);\n"
        "  connect(src.n, g.p);\n"
        "end opposed;\n";
    hy_lang_unit *unit = compile_text(text, "opposed.hym");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, "DSTIFF", 0.04, 1e-4, 1e-8, 1e-8, &rows) == 0, "opposed diodes run");
    double worst = 0;
    for (int r = 0; r < rows.n_rows; r++) {
        double vs = 10 * sin(2 * 3.141592653589793 * 50 * rows.t[r]);
        double i1 = value(m, &rows, r, "D[1].i"), i2 = value(m, &rows, r, "D[2].i");
        worst = test_worse(worst, fabs(i1 - fmax(vs, 0) / (10 + 1e-5)));
        worst = test_worse(worst, fabs(i2 - fmax(-vs, 0) / (10 + 1e-5)));
    }
    CHECK(rows.n_rows > 400 && worst < 2e-4, "diode currents off |vs| / R by %.3g A", worst);
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s && hydae_sim_check_vars(s, "mode(D[1]),mode(D[2])") == 0
              && hydae_sim_check_vars(s, "mode(D[3])") != 0,
          "charts D[1] and D[2] (and no D[3]): %s", s ? hydae_sim_errmsg(s) : "");
    hydae_sim_free(s);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

/* A bank of 40 diodes in parallel branches switches at one instant: each
** of the 4 switchings of a 40 ms run (the sine's zeros at 10, 20, 30 ms
** and the first turn-on just after 0) is one event instant firing all 40
** transitions, and every branch current follows max(vs, 0) / R. */
static void diode_bank(void)
{
    static const char text[] =
        "import Electrical;\n"
        "model bank\n"
        "  constant Real N = 40;\n"
        "  SineVoltage src(V = 10, f = 50);\n"
        "  IdealDiode D[N];\n"
        "  Resistor R[N](R = 10);\n"
        "  Ground g;\n"
        "equation\n"
        "  for k in 1:N loop\n"
        "    connect(src.p, D[k].p);\n"
        "    connect(D[k].n, R[k].p);\n"
        "    connect(R[k].n, src.n);\n"
        "  end for;\n"
        "  connect(src.n, g.p);\n"
        "end bank;\n";
    hy_lang_unit *unit = compile_text(text, "bank.hym");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    hydae_stats st;
    CHECK(test_run_stats(m, NULL, 0.04, 1e-4, 1e-8, 1e-8, &rows, &st) == 0, "bank run");
    CHECK(st.n_events == 4 && st.n_transitions == 160, "%ld event instants, %ld transitions "
          "(expected 4 and 160)", st.n_events, st.n_transitions);
    double worst = 0;
    for (int r = 0; r < rows.n_rows; r++) {
        double vs = 10 * sin(2 * 3.141592653589793 * 50 * rows.t[r]);
        for (int k = 1; k <= 40; k += 13) {
            char name[16];
            snprintf(name, sizeof name, "D[%d].i", k);
            worst = test_worse(worst, fabs(value(m, &rows, r, name) - fmax(vs, 0) / (10 + 1e-5)));
        }
    }
    CHECK(rows.n_rows > 400 && worst < 2e-4, "branch currents off max(vs, 0) / R by %.3g A",
          worst);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    rlc();
    open_pin();
    nested_modifiers();
    component_arrays();
    resistor_ladder();
    moded_array();
    diode_bank();
    return CHECK_DONE();
}
