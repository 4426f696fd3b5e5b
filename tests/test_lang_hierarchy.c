/*
** Hierarchical charts (src/lang/hierarchy.c): modes holding modes.
**  - examples/gearbox.hym, `driving` holding gear1 .. gear3 beside
**    `neutral`: the speed against the piecewise closed form of
**    m v' = F - c v, the up-shift instants where it reaches v12 and v23, and
**    after the clutch period the gear it left (history mode), or gear1 when
**    the same file has no `history`;
**  - the order of exit and entry actions: the leaf's exit, the enclosing
**    modes' exits innermost first, the transition's actions, the entered
**    modes' entries outermost first, observed through the name each
**    assigns last (actions of one transition read the values before it),
**    and counts showing that a transition inside a mode does not leave it;
**  - three levels with a history mode inside a plain one: shallow history
**    kept while its parent is left, an external self-transition, a
**    transition straight to a sub-mode (no history), `from *` inside a
**    mode, and an outer transition taking precedence over an inner one at
**    the same instant; against the mode sequence worked out by hand;
**  - a component class with a hierarchical chart, instantiated twice: each
**    instance's chart switches on its own (closed form);
**  - a component with modes (an ideal diode) declared inside a mode: its
**    modes become that mode's sub-modes; a half-wave rectifier whose
**    diode exists until t = 4, against max(sin t, 0) / R.
*/
#include "lang/lang_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define value lang_check_value

/* The last row at or before t. */
static int row_at(const test_rows *rows, double t)
{
    int found = 0;
    for (int r = 0; r < rows->n_rows; r++)
        if (rows->t[r] <= t)
            found = r;
    return found;
}

/* ---------------------------------------------------------------- */
/* The gearbox against its closed form                               */

static const double PI = 3.14159265358979323846;

enum { M_CAR = 1000, C_DRAG = 50, F0 = 6000, V12 = 10, V23 = 20 };

/* m v' = F - c v from v(t0) = v0: v(t) and the time it reaches v_target. */
static double speed(double F, double t0, double v0, double t)
{
    double v_inf = F / C_DRAG;
    return v_inf + (v0 - v_inf) * exp(-(double)C_DRAG * (t - t0) / M_CAR);
}

static double time_to_reach(double F, double t0, double v0, double v_target)
{
    double v_inf = F / C_DRAG;
    return t0 - (double)M_CAR / C_DRAG * log((v_target - v_inf) / (v0 - v_inf));
}

static void gearbox(const char *text, int with_history)
{
    hy_lang_unit *unit = lang_check_compile(text, "gearbox");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, 12.0, 0.01, 1e-10, 1e-10, &rows) == 0, "gearbox run");
    /* The phases: gear1 from 0, gear2 from t12, gear3 from t23, neutral 8..9,
    ** then gear3 again (history) or gear1. */
    double t12 = time_to_reach(F0, 0.0, 0.0, V12);
    double t23 = time_to_reach(F0 / 2.0, t12, V12, V23);
    double v8 = speed(F0 / 3.0, t23, V23, 8.0);
    double v9 = speed(0.0, 8.0, v8, 9.0);
    double F_after = with_history ? F0 / 3.0 : F0;
    CHECK(t23 < 8.0, "the closed form reaches gear3 before the clutch (t23 = %g)", t23);
    double worst_v = 0.0, worst_F = 0.0, t_seen12 = NAN, t_seen23 = NAN;
    for (int r = 0; r < rows.n_rows; r++) {
        double t = rows.t[r], v, F;
        if (t < t12)
            v = speed(F0, 0.0, 0.0, t), F = F0;
        else if (t < t23)
            v = speed(F0 / 2.0, t12, V12, t), F = F0 / 2.0;
        else if (t < 8.0)
            v = speed(F0 / 3.0, t23, V23, t), F = F0 / 3.0;
        else if (t < 9.0)
            v = speed(0.0, 8.0, v8, t), F = 0.0;
        else
            v = speed(F_after, 9.0, v9, t), F = F_after;
        worst_v = test_worse(worst_v, fabs(value(m, &rows, r, "v") - v));
        /* rows at a switching instant show the mode before or after it */
        if (fabs(t - t12) > 1e-8 && fabs(t - t23) > 1e-8 && t != 8.0 && t != 9.0)
            worst_F = test_worse(worst_F, fabs(value(m, &rows, r, "F") - F));
        if (isnan(t_seen12) && value(m, &rows, r, "F") == F0 / 2.0)
            t_seen12 = t;
        if (isnan(t_seen23) && value(m, &rows, r, "F") == F0 / 3.0)
            t_seen23 = t;
    }
    printf("gearbox (%s history): speed within %.2e m/s, up-shifts at %.12f (%.1e), %.12f "
           "(%.1e)\n", with_history ? "with" : "without", worst_v, t_seen12,
           fabs(t_seen12 - t12), t_seen23, fabs(t_seen23 - t23));
    CHECK(worst_v < 1e-7, "speed within %g of the closed form", worst_v);
    CHECK(worst_F == 0.0, "traction force of the active gear (off by %g)", worst_F);
    CHECK(fabs(t_seen12 - t12) < 1e-8, "up-shift 1 -> 2 at %.12g, closed form %.12g", t_seen12, t12);
    CHECK(fabs(t_seen23 - t23) < 1e-8, "up-shift 2 -> 3 at %.12g, closed form %.12g", t_seen23, t23);
    int last = rows.n_rows - 1;
    CHECK(value(m, &rows, last, "engaged") == 2.0, "driving entered twice (at t0 and t = 9)");
    if (with_history)
        CHECK(value(m, &rows, last, "driving.history") == 3.0, "history remembers gear3");
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

static void gearbox_example(void)
{
    char dir[1024], path[1200];
    lang_test_source_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/examples/gearbox.hym", dir);
    char *text = lang_test_read(path, NULL);
    CHECK(text != NULL, "read %s", path);
    if (!text)
        return;
    gearbox(text, 1);
    char *history = strstr(text, "initial history mode driving");
    CHECK(history != NULL, "the example's history mode");
    if (history) {
        memcpy(history + strlen("initial "), "       ", strlen("history")); /* a plain mode */
        gearbox(text, 0);
    }
    free(text);
}

/* ---------------------------------------------------------------- */
/* The order of actions                                              */

static const char order_model[] =
    "model order\n"
    "  discrete Real a(start = 0), b(start = 0), c(start = 0), d(start = 0);\n"
    "  discrete Real n_outer(start = 0), n_inner(start = 0), n_exit(start = 0);\n"
    "  Real x(start = 0);\n"
    "equation\n"
    "  der(x) = 1;\n"
    "  initial mode P\n"
    "    entry\n"
    "      n_outer := n_outer + 1;\n"
    "      d := 1;\n"
    "    exit\n"
    "      a := 2;\n"
    "      b := 1;\n"
    "      n_exit := n_exit + 1;\n"
    "    initial mode P1\n"
    "      entry\n"
    "        d := 2;\n"
    "        n_inner := n_inner + 1;\n"
    "      exit\n"
    "        a := 1;\n"
    "    end P1;\n"
    "    mode P2\n"
    "      exit\n"
    "        a := 1;\n"
    "    end P2;\n"
    "    transition inner from P1 to P2 when time >= 1 end;\n"
    "  end P;\n"
    "  mode Q\n"
    "    entry\n"
    "      c := 2;\n"
    "  end Q;\n"
    "  transition out from P to Q when time >= 2 do\n"
    "    b := 2;\n"
    "    c := 1;\n"
    "  end;\n"
    "  transition back from Q to P when time >= 3 end;\n"
    "  experiment t_end = 4;\n"
    "end order;\n";

static void action_order(void)
{
    hy_lang_unit *unit = lang_check_compile(order_model, "order");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, 4.0, 0.25, 1e-8, 1e-8, &rows) == 0, "order run");
    /* t0: P's entry, then P1's (d := 2 wins). */
    int r = row_at(&rows, 0.5);
    CHECK(value(m, &rows, r, "n_outer") == 1 && value(m, &rows, r, "n_inner") == 1
          && value(m, &rows, r, "d") == 2, "t0: entries of P then P1");
    /* t = 1, P1 -> P2 inside P: P is neither left nor entered. */
    r = row_at(&rows, 1.5);
    CHECK(value(m, &rows, r, "a") == 1 && value(m, &rows, r, "n_exit") == 0
          && value(m, &rows, r, "n_outer") == 1, "t = 1: only P1's exit");
    /* t = 2, P -> Q from P2: P2's exit, P's exit (a := 2 wins, b := 1), the
    ** action (b := 2 wins, c := 1), Q's entry (c := 2 wins). */
    r = row_at(&rows, 2.5);
    CHECK(value(m, &rows, r, "a") == 2, "outer exit after inner exit (a = %g)",
          value(m, &rows, r, "a"));
    CHECK(value(m, &rows, r, "b") == 2, "action after exits (b = %g)", value(m, &rows, r, "b"));
    CHECK(value(m, &rows, r, "c") == 2, "entry after action (c = %g)", value(m, &rows, r, "c"));
    CHECK(value(m, &rows, r, "n_exit") == 1, "P left once");
    /* t = 3, Q -> P: P's entry then P1's (no history: the initial sub-mode). */
    r = rows.n_rows - 1;
    CHECK(value(m, &rows, r, "n_outer") == 2 && value(m, &rows, r, "n_inner") == 2
          && value(m, &rows, r, "d") == 2, "t = 3: entries of P then P1 again");
    CHECK_NEAR(value(m, &rows, r, "x"), 4.0, 1e-9, "x = time through every switch");
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

/* ---------------------------------------------------------------- */
/* Three levels, history, direct entry, from *, outer first           */

static const char deep_model[] =
    "model deep\n"
    "  Real x(start = 0);\n"
    "  discrete Real where(start = 0), n_A(start = 0), n_B(start = 0);\n"
    "equation\n"
    "  der(x) = 1;\n"
    "  initial mode A\n"
    "    entry\n"
    "      n_A := n_A + 1;\n"
    "    history mode B\n"
    "      entry\n"
    "        n_B := n_B + 1;\n"
    "      mode B1\n"
    "        entry\n"
    "          where := 1;\n"
    "      end B1;\n"
    "      mode B2\n"
    "        entry\n"
    "          where := 2;\n"
    "      end B2;\n"
    "      transition b12 from B1 to B2 when time >= 1 end;\n"
    "    end B;\n"
    "    mode C\n"
    "      entry\n"
    "        where := 3;\n"
    "    end C;\n"
    "    transition bc from B to C when time >= 2 end;\n"
    "    transition cb from C to B when time >= 3 end;\n"
    "    transition bb from B to B when time >= 6 end;\n"
    "    transition star from * to C when time >= 10 end;\n"
    "  end A;\n"
    "  mode Z\n"
    "    entry\n"
    "      where := 4;\n"
    "  end Z;\n"
    "  transition az from A to Z when time >= 4 end;\n"
    "  transition za from Z to A when time >= 5 end;\n"
    "  transition to_b1 from A to B1 when time >= 7 end;\n"
    "  transition az2 from A to Z when time >= 8 end;\n"
    "  transition za2 from Z to A when time >= 9 end;\n"
    "  transition outer from A to Z when time >= 10 end;\n"
    "end deep;\n";

static void deep_chart(void)
{
    hy_lang_unit *unit = lang_check_compile(deep_model, "deep");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    hydae_stats stats;
    CHECK(test_run_stats(m, NULL, 10.5, 0.25, 1e-8, 1e-8, &rows, &stats) == 0, "deep run");
    /* where, by hand: B1 (initial of B, initial of A); B2 at 1; C at 2; B2
    ** at 3 (history); Z at 4; B2 at 5 (A's initial B, B's history); B2 at 6
    ** (B left and re-entered: history); B1 at 7 (entered directly); Z at 8;
    ** B1 at 9 (history); Z at 10 (outer before star). The entry actions at
    ** t0 set where := 1. */
    static const double where[] = { 1, 2, 3, 2, 4, 2, 2, 1, 4, 1, 4 };
    for (int k = 0; k <= 10; k++) {
        int r = row_at(&rows, k + 0.5);
        CHECK(value(m, &rows, r, "where") == where[k], "t = %d.5: mode %g, want %g", k,
              value(m, &rows, r, "where"), where[k]);
    }
    int last = rows.n_rows - 1;
    /* A entered at 0, 5, 7, 9; B at 0, 3, 5, 6, 7, 9. */
    CHECK(value(m, &rows, last, "n_A") == 4, "A entered %g times, want 4",
          value(m, &rows, last, "n_A"));
    CHECK(value(m, &rows, last, "n_B") == 6, "B entered %g times, want 6",
          value(m, &rows, last, "n_B"));
    CHECK(stats.n_priority_conflicts >= 1, "star lost to outer at t = 10 (%ld conflicts)",
          stats.n_priority_conflicts);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

/* ---------------------------------------------------------------- */
/* A component whose modes nest                                       */

static const char component_model[] =
    "model Sw\n"
    "  parameter Real rate = 2;\n"
    "  Real y(start = 0);\n"
    "  initial mode on\n"
    "    initial mode fast\n"
    "    equation\n"
    "      der(y) = rate;\n"
    "    end fast;\n"
    "    mode slow\n"
    "    equation\n"
    "      der(y) = 1;\n"
    "    end slow;\n"
    "    transition fs from fast to slow when y > 1 end;\n"
    "  end on;\n"
    "  mode off\n"
    "  equation\n"
    "    der(y) = 0;\n"
    "  end off;\n"
    "  transition stop from on to off when time >= 2 end;\n"
    "end Sw;\n"
    "model top\n"
    "  Sw a, b(rate = 4);\n"
    "end top;\n";

static void component_chart(void)
{
    hy_lang_unit *unit = lang_check_compile(component_model, "component");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, 3.0, 0.05, 1e-10, 1e-10, &rows) == 0, "component run");
    /* y = rate t until y = 1, then 1 + (t - 1/rate) until t = 2, then held. */
    double worst = 0.0;
    for (int r = 0; r < rows.n_rows; r++) {
        double t = rows.t[r] < 2.0 ? rows.t[r] : 2.0;
        double ya = t < 0.5 ? 2.0 * t : 1.0 + (t - 0.5), yb = t < 0.25 ? 4.0 * t : 1.0 + (t - 0.25);
        worst = test_worse(worst, fabs(value(m, &rows, r, "a.y") - ya));
        worst = test_worse(worst, fabs(value(m, &rows, r, "b.y") - yb));
    }
    CHECK(worst < 1e-8, "two instances' charts within %g of the closed form", worst);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

/* ---------------------------------------------------------------- */
/* A component with modes declared in a mode                          */

static const char diode_in_mode_model[] =
    "model Diode\n"
    "  Real v, i;\n"
    "  initial mode off\n"
    "  equation\n"
    "    i = 0;\n"
    "  end off;\n"
    "  mode on\n"
    "  equation\n"
    "    v = 0;\n"
    "  end on;\n"
    "  transition conduct from off to on when v > 0 end;\n"
    "  transition stop from on to off when i < 0 end;\n"
    "end Diode;\n"
    "model circuit\n"
    "  parameter Real R = 2;\n"
    "  Real u, iR;\n"
    "equation\n"
    "  u = sin(time);\n"
    "  initial mode wired\n"
    "    Diode D;\n"
    "  equation\n"
    "    D.v = u - R * D.i;\n"
    "    iR = D.i;\n"
    "  end wired;\n"
    "  mode open\n"
    "  equation\n"
    "    iR = 0;\n"
    "  end open;\n"
    "  transition cut from wired to open when time >= 4 end;\n"
    "end circuit;\n";

static void diode_in_mode(void)
{
    hy_lang_unit *unit = lang_check_compile(diode_in_mode_model, "diode_in_mode");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, NULL, 6.0, 0.01, 1e-10, 1e-10, &rows) == 0, "diode in a mode run");
    double worst = 0.0, t_off = NAN;
    int absent_ok = 1;
    for (int r = 0; r < rows.n_rows; r++) {
        double t = rows.t[r], i = value(m, &rows, r, "iR");
        double want = t < 4.0 ? fmax(sin(t), 0.0) / 2.0 : 0.0;
        if (fabs(t - PI) > 1e-9 && t != 4.0)
            worst = test_worse(worst, fabs(i - want));
        if (isnan(t_off) && t > 1.0 && value(m, &rows, r, "D.v") != 0.0)
            t_off = t;
        if (t > 4.0)
            absent_ok &= isnan(value(m, &rows, r, "D.i"));
    }
    printf("diode in a mode: current within %.2e A, diode off at %.15f (pi %+.1e)\n", worst,
           t_off, t_off - PI);
    CHECK(worst < 1e-8, "rectified current within %g of max(sin t, 0) / R", worst);
    CHECK(fabs(t_off - PI) < 1e-9, "the diode blocks at %.15g, not pi", t_off);
    CHECK(absent_ok, "the diode's variables are absent once its mode is left");
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

int main(void)
{
    gearbox_example();
    action_order();
    deep_chart();
    component_chart();
    diode_in_mode();
    return CHECK_DONE();
}
