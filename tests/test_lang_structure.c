/*
** Structure that changes with modes (seed 000, Fig. 4; src/lang/flatten.c,
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
**    resistor on the port that exists, 0 through the other.
*/
#include "check.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "rows.h"

#include <math.h>

static char source_dir[1024];

static hy_lang_unit *compile_example(const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/examples/%s.hym", source_dir, name);
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_file(path, stderr, NULL, &n_errors);
    CHECK(unit != NULL, "%s: %d errors", name, n_errors);
    return unit;
}

static double value(const hydae_model *m, const test_rows *rows, int row, const char *name)
{
    int c = test_column(m, name);
    CHECK(c >= 0, "no column %s", name);
    return c >= 0 ? test_value(rows, row, c) : NAN;
}

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
        worst1 = fmax(worst1, fabs(value(m, &rows, r, "C1.v") - v1));
        double got2 = value(m, &rows, r, "C2.v");
        if (isnan(v2)) {
            absent_ok &= isnan(got2); /* C2 exists only in `both` */
        } else {
            worst2 = fmax(worst2, fabs(got2 - v2));
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
        worst = fmax(worst, fabs(value(m, &rows, r, "C.v") - v));
        open_current = fmax(open_current, fabs(value(m, &rows, r, before ? "RB.i" : "RA.i")));
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
        worst = fmax(worst, fabs(value(m, &rows, r, "Ra.i") - want_a)
                                + fabs(value(m, &rows, r, "Rb.i") - want_b)
                                + fabs(value(m, &rows, r, "src.i") + want_a + want_b));
    }
    CHECK(n_events == 1 && worst < 1e-12, "currents off by %.3g (%d events)", worst, n_events);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    switched_capacitor();
    changeover();
    changing_ports();
    return CHECK_DONE();
}
