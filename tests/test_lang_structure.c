/*
** Structure that changes with modes (seed 000, Fig. 4; src/lang/flatten_connect.c,
** connection_sets), against closed forms:
**  - row 2, components added and removed: examples/switched_capacitor.hym,
**    a branch R2 + C2 switched in parallel with C1 from t = 1 to t = 2 (C2
**    starting empty): C1 charges as one RC circuit, then as the linear
**    two-capacitor system (its eigen-solution), then as one RC again; C2 is
**    absent from the results outside its mode;
**  - row 3, connections changed, components kept: examples/changeover.hym,
**    a load fed from source A, then from source B: piecewise exponentials,
**    and the source left open carries no current (flow = 0, seed 000);
**  - row 5, ports that change: examples/changing_ports.hym, a switch whose
**    port a exists in one mode and b in the other: 10 V / R through the
**    resistor on the port that exists, 0 through the other;
**  - row 4, model detail that changes: examples/motor_levels.hym, a DC
**    motor whose armature gains an inductor (a component of the mode) at
**    t = 0.5 and its shaft a bearing damper at t = 1: each phase against
**    the solution of its linear system (2 x 2 matrix exponential), and the
**    energy J w^2 / 2 + L i^2 / 2 continuous at both switches;
**  - three half-wave rectifiers as three diode charts (component arrays of
**    the library's IdealDiode) switch at the same instants as the same
**    circuit written by hand as one chart of 8 modes, and the configuration
**    cache serves the repeated configurations.
*/
#include "lang/lang_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


static hy_lang_unit *compile_example(const char *name)
{
    char relative[200];
    snprintf(relative, sizeof relative, "examples/%s.hym", name);
    return lang_check_compile_file(relative);
}

#define value lang_check_value

static void switched_capacitor(void)
{
    hy_lang_unit *unit = compile_example("switched_capacitor");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, 3.0, 0.01, 1e-10, 1e-10, &rows) == 0, "switched capacitor run");
    const double V = 10, R = 1, C1 = 1, R2 = 0.5, C2 = 2;
    /* t in [1, 2]: x' = A x + b, x = (v1, v2), equilibrium (V, V); x - x* =
    ** c1 e^(l1 s) u1 + c2 e^(l2 s) u2 with the eigenpairs of A. */
    const double a11 = -(1 / R + 1 / R2) / C1, a12 = 1 / (R2 * C1), a21 = 1 / (R2 * C2),
                 a22 = -1 / (R2 * C2);
    const double tr = a11 + a22, det = a11 * a22 - a12 * a21, d = sqrt(tr * tr / 4 - det);
    const double l1 = tr / 2 + d, l2 = tr / 2 - d;
    const double u1[2] = { a12, l1 - a11 }, u2[2] = { a12, l2 - a11 };
    const double v1_at_1 = V * (1 - exp(-1 / (R * C1)));
    const double e0[2] = { v1_at_1 - V, 0 - V }, D = u1[0] * u2[1] - u2[0] * u1[1];
    const double c1 = (e0[0] * u2[1] - u2[0] * e0[1]) / D, c2 = (u1[0] * e0[1] - e0[0] * u1[1]) / D;
    double v1_at_2 = V + c1 * exp(l1) * u1[0] + c2 * exp(l2) * u2[0];
    double worst1 = 0, worst2 = 0;
    int absent_ok = 1, n_both = 0, phase = 0; /* the rows after the k-th event: phase k */
    for (int r = 0; r < rows.n_rows; r++) {
        double t = rows.t[r], v1, v2 = NAN;
        phase += rows.kind[r] == HYDAE_ROW_EVENT_RIGHT;
        if (phase == 0) {
            v1 = V * (1 - exp(-t / (R * C1)));
        } else if (phase == 1) {
            double s = t - 1;
            v1 = V + c1 * exp(l1 * s) * u1[0] + c2 * exp(l2 * s) * u2[0];
            v2 = V + c1 * exp(l1 * s) * u1[1] + c2 * exp(l2 * s) * u2[1];
        } else {
            v1 = V + (v1_at_2 - V) * exp(-(t - 2) / (R * C1));
        }
        worst1 = test_worse(worst1, fabs(value(m, &rows, r, "C1.v") - v1));
        double got2 = value(m, &rows, r, "C2.v");
        if (isnan(v2)) {
            absent_ok &= isnan(got2); /* C2 exists only in `both` */
        } else {
            worst2 = test_worse(worst2, fabs(got2 - v2));
            n_both++;
        }
    }
    CHECK(worst1 < 1e-7 && worst2 < 1e-7, "C1 off the closed form by %.3g, C2 by %.3g", worst1,
          worst2);
    CHECK(absent_ok && n_both > 90 && phase == 2, "C2 in the results outside its mode, or %d "
          "rows in it, %d events", n_both, phase);
    printf("switched capacitor: C1 within %.2g of its closed form, C2 within %.2g\n", worst1,
           worst2);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

static void changeover(void)
{
    hy_lang_unit *unit = compile_example("changeover");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, 3.0, 0.01, 1e-10, 1e-10, &rows) == 0, "changeover run");
    const double VA = 10, VB = 5, RA = 1, RB = 2, RL = 4, C = 0.5;
    const double vinf_a = VA * RL / (RA + RL), tau_a = C * RA * RL / (RA + RL);
    const double vinf_b = VB * RL / (RB + RL), tau_b = C * RB * RL / (RB + RL);
    const double v_at_1 = vinf_a * (1 - exp(-1 / tau_a));
    double worst = 0, open_current = 0;
    int n_events = 0;
    for (int r = 0; r < rows.n_rows; r++) {
        double t = rows.t[r];
        n_events += rows.kind[r] == HYDAE_ROW_EVENT_RIGHT;
        int before = n_events == 0;
        double v = before ? vinf_a * (1 - exp(-t / tau_a))
                          : vinf_b + (v_at_1 - vinf_b) * exp(-(t - 1) / tau_b);
        worst = test_worse(worst, fabs(value(m, &rows, r, "C.v") - v));
        open_current = test_worse(open_current, fabs(value(m, &rows, r, before ? "RB.i" : "RA.i")));
    }
    CHECK(worst < 1e-7 && n_events == 1, "load voltage off the closed form by %.3g (%d events)",
          worst, n_events);
    CHECK(open_current == 0.0 || open_current < 1e-15, "the open source carries %.3g A",
          open_current);
    printf("changeover: load within %.2g of its closed form, open source %.2g A\n", worst,
           open_current);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

static void changing_ports(void)
{
    hy_lang_unit *unit = compile_example("changing_ports");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, 2.0, 0.1, 1e-10, 1e-10, &rows) == 0, "changing ports run");
    double worst = 0;
    int n_events = 0;
    for (int r = 0; r < rows.n_rows; r++) {
        n_events += rows.kind[r] == HYDAE_ROW_EVENT_RIGHT;
        double want_a = n_events == 0 ? 10.0 / 2 : 0, want_b = n_events == 0 ? 0 : 10.0 / 5;
        worst = test_worse(worst, fabs(value(m, &rows, r, "Ra.i") - want_a)
                                + fabs(value(m, &rows, r, "Rb.i") - want_b)
                                + fabs(value(m, &rows, r, "src.i") + want_a + want_b));
    }
    CHECK(n_events == 1 && worst < 1e-12, "currents off by %.3g (%d events)", worst, n_events);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

/* x(s) = x* + e^(A s) (x0 - x*), x* = -A^-1 b, for a 2 x 2 A: e^(A s) =
** e^(mu s) (c I + sh (A - mu I)), mu = tr A / 2, c = cosh(delta s), sh =
** sinh(delta s) / delta with delta^2 = mu^2 - det A (cos and sin when
** negative). */
static void linear2(const double A[2][2], const double b[2], const double x0[2], double s,
                    double x[2])
{
    double mu = (A[0][0] + A[1][1]) / 2, det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
    double disc = mu * mu - det, c, sh;
    if (disc >= 0) {
        double delta = sqrt(disc);
        c = cosh(delta * s);
        sh = delta > 0 ? sinh(delta * s) / delta : s;
    } else {
        double delta = sqrt(-disc);
        c = cos(delta * s);
        sh = sin(delta * s) / delta;
    }
    double e = exp(mu * s);
    double xs[2] = { -(A[1][1] * b[0] - A[0][1] * b[1]) / det,
                     -(-A[1][0] * b[0] + A[0][0] * b[1]) / det };
    double y[2] = { x0[0] - xs[0], x0[1] - xs[1] };
    x[0] = xs[0] + e * ((c + sh * (A[0][0] - mu)) * y[0] + sh * A[0][1] * y[1]);
    x[1] = xs[1] + e * (sh * A[1][0] * y[0] + (c + sh * (A[1][1] - mu)) * y[1]);
}

static void motor_levels(void)
{
    hy_lang_unit *unit = compile_example("motor_levels");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, 2.0, 0.01, 1e-10, 1e-10, &rows) == 0, "motor levels run");
    const double V = 10, R = 1, L = 0.05, k = 0.5, J = 0.1, d = 0.02, tau = R * J / (k * k);
    /* level 1: w = (V / k)(1 - e^(-t / tau)), i = (V - k w) / R; levels 2, 3:
    ** x = (i, w), L i' = V - R i - k w, J w' = k i (- d w). */
    const double w1 = V / k * (1 - exp(-0.5 / tau)), x1[2] = { (V - k * w1) / R, w1 };
    const double A2[2][2] = { { -R / L, -k / L }, { k / J, 0 } };
    const double A3[2][2] = { { -R / L, -k / L }, { k / J, -d / J } };
    const double b[2] = { V / L, 0 };
    double x2[2];
    linear2(A2, b, x1, 0.5, x2);
    double worst = 0, worst_energy_jump = 0, energy_left = NAN;
    int phase = 0;
    for (int r = 0; r < rows.n_rows; r++) {
        double t = rows.t[r], x[2];
        phase += rows.kind[r] == HYDAE_ROW_EVENT_RIGHT;
        if (phase == 0) {
            x[1] = V / k * (1 - exp(-t / tau));
            x[0] = (V - k * x[1]) / R;
        } else if (phase == 1) {
            linear2(A2, b, x1, t - 0.5, x);
        } else {
            linear2(A3, b, x2, t - 1, x);
        }
        double i = value(m, &rows, r, "Ra.i"), w = value(m, &rows, r, "J.w");
        worst = test_worse(worst, fabs(i - x[0]) / 10);
        worst = test_worse(worst, fabs(w - x[1]) / 20);
        double energy = J * w * w / 2 + L * i * i / 2;
        if (rows.kind[r] == HYDAE_ROW_EVENT_LEFT)
            energy_left = energy;
        if (rows.kind[r] == HYDAE_ROW_EVENT_RIGHT)
            worst_energy_jump = test_worse(worst_energy_jump, fabs(energy - energy_left) / energy);
    }
    CHECK(phase == 2 && worst < 1e-8, "%d switches; current and speed off the closed form by %.3g "
          "(relative to 10 A, 20 rad/s)", phase, worst);
    CHECK(worst_energy_jump < 1e-12, "the stored energy jumps by %.3g at a switch",
          worst_energy_jump);
    printf("motor levels: within %.2g of the closed form, energy jump at the switches %.2g\n",
           worst, worst_energy_jump);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

/* The event instants of a run (the left rows of event instants). */
static int event_times(const test_rows *rows, double *times, int cap)
{
    int n = 0;
    for (int r = 0; r < rows->n_rows; r++)
        if (rows->kind[r] == HYDAE_ROW_EVENT_LEFT && (n == 0 || rows->t[r] != times[n - 1])
            && n < cap)
            times[n++] = rows->t[r];
    return n;
}

/* The three branches written by hand: one chart, a mode per combination
** of diode states (bit k: diode k conducts), a transition per diode from
** each. Branch k: vs_k = V sin(w t + phase_k) through Rs and the diode into
** C || RL; v_k the diode's voltage, i_k its current. */
static char *eight_mode_text(void)
{
    size_t cap = 64 * 1024, used = 0;
    char *text = malloc(cap);
    if (!text)
        return NULL;
#define OUT(...) used += (size_t)snprintf(text + used, cap - used, __VA_ARGS__)
    OUT("model three_flat\n  constant Real pi = 3.141592653589793;\n"
        "  parameter Real V = 10, f = 50, Rs = 1, C = 1e-4, RL = 100, Ron = 1e-5, Goff = 1e-5;\n");
    for (int k = 1; k <= 3; k++)
        OUT("  Real vC%d(start = 0), v%d, i%d;\n", k, k, k);
    OUT("equation\n");
    for (int k = 1; k <= 3; k++)
        OUT("  v%d = V * sin(2 * pi * f * time + %d * 2 * pi / 3) - Rs * i%d - vC%d;\n"
            "  C * der(vC%d) = i%d - vC%d / RL;\n", k, k - 1, k, k, k, k, k);
    for (int b = 0; b < 8; b++) {
        OUT("  %smode m%d\n  equation\n", b == 0 ? "initial " : "", b);
        for (int k = 1; k <= 3; k++)
            OUT(b >> (k - 1) & 1 ? "    v%d = Ron * i%d;\n" : "    i%d = Goff * v%d;\n", k, k);
        OUT("  end m%d;\n", b);
    }
    for (int b = 0; b < 8; b++)
        for (int k = 1; k <= 3; k++) {
            int on = b >> (k - 1) & 1;
            OUT("  transition t%d_%d from m%d to m%d when %s%d %s 0 end;\n", b, k, b,
                b ^ (1 << (k - 1)), on ? "i" : "v", k, on ? "<" : ">");
        }
    OUT("end three_flat;\n");
#undef OUT
    return text;
}

static void three_diodes(void)
{
    static const char components[] =
        "import Electrical;\n"
        "model three\n"
        "  constant Real pi = 3.141592653589793;\n"
        "  SineVoltage src[3](V = 10, f = 50, phase = {0, 2 * pi / 3, 4 * pi / 3});\n"
        "  Resistor Rs[3](R = 1), RL[3](R = 100);\n"
        "  IdealDiode D[3];\n"
        "  Capacitor C[3](C = 1e-4);\n"
        "  Ground g;\n"
        "equation\n"
        "  for k in 1:3 loop\n"
        "    connect(src[k].p, Rs[k].p);\n"
        "    connect(Rs[k].n, D[k].p);\n"
        "    connect(D[k].n, C[k].p);\n"
        "    connect(C[k].p, RL[k].p);\n"
        "    connect(C[k].n, RL[k].n);\n"
        "    connect(C[k].n, src[k].n);\n"
        "    connect(src[k].n, g.p);\n"
        "  end for;\n"
        "end three;\n";
    char *flat = eight_mode_text();
    int n_errors = 0;
    hy_lang_unit *uc = hy_lang_compile_string(components, strlen(components), "three.hym",
                                              stderr, NULL, &n_errors);
    hy_lang_unit *uf = flat ? hy_lang_compile_string(flat, strlen(flat), "three_flat.hym",
                                                     stderr, NULL, &n_errors)
                            : NULL;
    free(flat);
    CHECK(uc && uf, "compiling the two versions");
    if (!uc || !uf) {
        hy_lang_unit_free(uc);
        hy_lang_unit_free(uf);
        return;
    }
    hydae_model *mc = hy_lang_unit_model(uc), *mf = hy_lang_unit_model(uf);
    test_rows rc, rf;
    hydae_stats st;
    CHECK(test_run_stats(mc, NULL, 0.1, 1e-3, 1e-12, 1e-12, &rc, &st) == 0, "three charts");
    CHECK(test_run(mf, "DSTIFF", 0.1, 1e-3, 1e-12, 1e-12, &rf) == 0, "one chart of 8 modes");
    double tc[256], tf[256];
    int nc = event_times(&rc, tc, 256), nf = event_times(&rf, tf, 256);
    double worst = nc == nf ? 0 : INFINITY;
    for (int k = 0; k < nc && k < nf; k++)
        worst = test_worse(worst, fabs(tc[k] - tf[k]));
    CHECK(nc == nf && nc >= 20 && worst < 1e-10, "events: %d (three charts) and %d (8 modes), "
          "instants differ by %.3g s", nc, nf, worst);
    /* one per event instant, and at t0 (twice with an initial action) */
    CHECK(st.n_configurations >= nc + 1 && st.n_configurations <= nc + 2
              && st.n_config_cache_hits >= st.n_configurations - 8,
          "configurations entered %ld, cache hits %ld (at most 8 configurations exist)",
          st.n_configurations, st.n_config_cache_hits);
    printf("three diode charts vs one chart of 8 modes: %d events, instants within %.2g s; "
           "configuration cache %ld hits of %ld\n", nc, worst, st.n_config_cache_hits,
           st.n_configurations);
    test_rows_free(&rc);
    test_rows_free(&rf);
    hy_lang_unit_free(uc);
    hy_lang_unit_free(uf);
}

int main(void)
{
    switched_capacitor();
    changeover();
    changing_ports();
    motor_levels();
    three_diodes();
    return CHECK_DONE();
}
