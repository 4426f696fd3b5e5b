/*
** Issue 11's acceptance tests for events, each against a closed form worked
** out here by hand:
**  1. a guard (t - 3)^2 - 1e-8 on x' = 2 (t - 3) (the steps grow past the
**     2e-4 window): both crossings, at 3 -+ 1e-4, with every integrator
**     that needs no h_max, at the default tolerance and rtol 1e-4, 1e-8,
**     1e-12; a guard that only touches zero ((t - 3)^2, and (t - 3)^2 -
**     1e-17 whose dip is rounding) gives no event;
**  2. a time event at t = 2 and two crossings whose exact times are t = 2
**     (x' = 1 from -2, w' = 3 t^2 from -8), each with its reset, one of
**     them a mode change: one event instant, three events, final state the
**     closed form (RK45 integrates these polynomials exactly, so their
**     crossings are located at 2 to the last bits at every rtol; DSTIFF
**     from rtol 1e-10, where its integration error is below the grouping
**     tolerance 1e-12 t);
**  3. two transitions leaving one mode at one instant: priority decides,
**     one conflict counted;
**  4. the bouncing ball e = 0.8 with and without h := 0 at every rtol from
**     1e-4 to 1e-12: no false chattering (every impact before the Zeno
**     point, none missed or repeated); the first 20 impacts within 1e-13
**     relative of the closed form at rtol 1e-10; e = 1 over 1e4 s at rtol
**     1e-10: the number of impacts exact, the last within 0.01 s;
**  5. `initial`: a guard already past zero at t0 fires there; without it,
**     never.
*/
#include "check.h"
#include "lang/lang.h"
#include "rows.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct run_result {
    int status;
    hydae_stats stats;
    test_rows rows;
    hydae_model *model;
    hy_lang_unit *unit;
} run_result;

/* Compile `source` and run it to t_end; rtol = atol = tol unless tol is 0. */
static int run_source(const char *source, const char *solver, double tol, double t_end,
                      run_result *r)
{
    memset(r, 0, sizeof *r);
    int n_errors = 0;
    r->unit = hy_lang_compile_string(source, strlen(source), "test", stderr, NULL, &n_errors);
    if (!r->unit)
        return -1;
    r->model = hy_lang_unit_model(r->unit);
    int status;
    hydae_sim *s = hydae_sim_create(r->model, &status);
    if (!s)
        return -1;
    test_rows_init(&r->rows, r->model);
    int ok = hydae_sim_set_integrator(s, solver) == 0
             && hydae_sim_set_time(s, 0.0, t_end) == 0
             && hydae_sim_set_output_interval(s, t_end) == 0
             && (tol == 0.0 || hydae_sim_set_tolerances(s, tol, tol) == 0)
             && hydae_sim_add_row_sink(s, test_rows_sink, &r->rows) == 0;
    r->status = ok ? hydae_sim_run(s) : -1;
    if (r->status)
        fprintf(stderr, "  (%s, tol %g: %s)\n", solver, tol, hydae_sim_errmsg(s));
    hydae_sim_get_stats(s, &r->stats);
    hydae_sim_free(s);
    return 0;
}

static void run_free(run_result *r)
{
    test_rows_free(&r->rows);
    hy_lang_unit_free(r->unit);
}

static double final_value(const run_result *r, const char *name)
{
    return test_value(&r->rows, r->rows.n_rows - 1, test_column(r->model, name));
}

/* Times of the right-limit rows, at most max_events of them. */
static int event_times(const run_result *r, double *times, int max_events)
{
    int n = 0;
    for (int i = 0; i < r->rows.n_rows; i++)
        if (r->rows.kind[i] == HYDAE_ROW_EVENT_RIGHT) {
            if (n < max_events)
                times[n] = r->rows.t[i];
            n++;
        }
    return n;
}

static const char *const solvers[] = { "DSTIFF", "VSTIFF", "MSTIFF", "ABAM", "RK45" };
enum { N_SOLVERS = sizeof solvers / sizeof solvers[0] };

static void window_in_one_step(void)
{
    static const char dip[] =
        "model dip\n discrete Real n_down(start = 0);\n discrete Real n_up(start = 0);\n"
        " Real x(start = 9);\nequation\n der(x) = 2 * (time - 3);\n"
        " transition down when (time - 3)^2 - 1e-8 < 0 do n_down := n_down + 1; end;\n"
        " transition up when (time - 3)^2 - 1e-8 > 0 do n_up := n_up + 1; end;\nend dip;\n";
    const double tols[] = { 0.0, 1e-4, 1e-8, 1e-12 };
    const double root_down = 3.0 - 1e-4, root_up = 3.0 + 1e-4;  /* sqrt(1e-8) = 1e-4 */
    for (int m = 0; m < N_SOLVERS; m++)
        for (int i = 0; i < 4; i++) {
            run_result r;
            CHECK(run_source(dip, solvers[m], tols[i], 6.0, &r) == 0 && r.status == 0,
                  "dip %s tol %g: runs", solvers[m], tols[i]);
            double times[4];
            int n = event_times(&r, times, 4);
            CHECK(n == 2 && final_value(&r, "n_down") == 1.0 && final_value(&r, "n_up") == 1.0,
                  "dip %s tol %g: %d events (down %g, up %g), want 1 + 1", solvers[m], tols[i],
                  n, final_value(&r, "n_down"), final_value(&r, "n_up"));
            if (n == 2) {
                CHECK(fabs(times[0] - root_down) <= 1e-13 * 3.0
                          && fabs(times[1] - root_up) <= 1e-13 * 3.0,
                      "dip %s tol %g: events at %.17g, %.17g, want 3 -+ 1e-4", solvers[m],
                      tols[i], times[0], times[1]);
            }
            run_free(&r);
        }
    /* Touching zero is no crossing, also when the dip is rounding. */
    const char *offsets[] = { "", " - 1e-17" };
    for (int o = 0; o < 2; o++)
        for (int m = 0; m < N_SOLVERS; m++) {
            char source[sizeof dip + 64];
            snprintf(source, sizeof source,
                     "model touch\n discrete Real n(start = 0);\n Real x(start = 9);\n"
                     "equation\n der(x) = 2 * (time - 3);\n"
                     " transition down when (time - 3)^2%s < 0 do n := n + 1; end;\n"
                     " transition up when (time - 3)^2%s > 0 do n := n + 1; end;\nend touch;\n",
                     offsets[o], offsets[o]);
            run_result r;
            CHECK(run_source(source, solvers[m], 0.0, 6.0, &r) == 0 && r.status == 0
                      && final_value(&r, "n") == 0.0 && r.stats.n_events == 0,
                  "touch '%s' %s: %g events, want none", offsets[o], solvers[m],
                  final_value(&r, "n"));
            run_free(&r);
        }
}

static void simultaneous(void)
{
    static const char model[] =
        "model simultaneous\n discrete Real k(start = 0);\n chart c\n"
        "  initial mode a\n   Real x(start = -2);\n   Real w(start = -8);\n  equation\n"
        "   der(x) = 1;\n   der(w) = 3 * time^2;\n  end a;\n"
        "  mode b\n   Real x(start = 0);\n   Real w(start = 0);\n  equation\n"
        "   der(x) = -1;\n   der(w) = 3 * time^2;\n  end b;\n"
        "  transition clock from a to a when time >= 2 do k := k + 1; end;\n"
        "  transition xr from a to a when x > 0 do x := x - 10; end;\n"
        "  transition wr from a to b when w > 0 do w := w - 100; end;\n"
        " end c;\nend simultaneous;\n";
    /* At t = 2: k = 1, x = 0 - 10, w = 0 - 100, mode b. Then x' = -1:
    ** x(3) = -11; w' = 3 t^2: w(3) = -100 + (27 - 8) = -81. */
    struct { const char *solver; double tol; } cases[] = {
        { "RK45", 1e-4 }, { "RK45", 1e-6 }, { "RK45", 1e-8 }, { "RK45", 1e-10 },
        { "RK45", 1e-12 }, { "DSTIFF", 1e-10 }, { "DSTIFF", 1e-12 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r;
        CHECK(run_source(model, cases[i].solver, cases[i].tol, 3.0, &r) == 0 && r.status == 0,
              "simultaneous %s %g: runs", cases[i].solver, cases[i].tol);
        CHECK(r.stats.n_events == 1 && r.stats.n_triggers == 3 && r.stats.n_transitions == 3
                  && r.stats.n_priority_conflicts == 0,
              "simultaneous %s %g: %ld instants, %ld events, %ld transitions, want 1, 3, 3",
              cases[i].solver, cases[i].tol, r.stats.n_events, r.stats.n_triggers,
              r.stats.n_transitions);
        double tol = 1e-12 * 100;
        CHECK(final_value(&r, "k") == 1.0 && fabs(final_value(&r, "x") + 11.0) <= tol
                  && fabs(final_value(&r, "w") + 81.0) <= fmax(tol, 10 * cases[i].tol * 81),
              "simultaneous %s %g: k %g, x %.17g, w %.17g; want 1, -11, -81", cases[i].solver,
              cases[i].tol, final_value(&r, "k"), final_value(&r, "x"), final_value(&r, "w"));
        run_free(&r);
    }
}

static void priority_conflict(void)
{
    static const char model[] =
        "model conflict\n chart c\n  initial mode a\n   Real x(start = 0);\n  equation\n"
        "   der(x) = 1;\n  end a;\n  mode b\n   Real x(start = 0);\n  equation\n"
        "   der(x) = 2;\n  end b;\n  mode d\n   Real x(start = 0);\n  equation\n"
        "   der(x) = 3;\n  end d;\n"
        "  transition to_b from a to b priority 2 when time >= 1 do x := 10; end;\n"
        "  transition to_d from a to d priority 1 when x > 1 do x := 20; end;\n"
        " end c;\nend conflict;\n";
    /* x = t reaches 1 at t = 1 with the time event: to_d (priority 1)
    ** fires, to_b is a conflict; then x = 20 + 3 (t - 1): x(2) = 23. */
    run_result r;
    CHECK(run_source(model, "RK45", 1e-10, 2.0, &r) == 0 && r.status == 0, "conflict: runs");
    CHECK(r.stats.n_priority_conflicts == 1 && r.stats.n_transitions == 1,
          "conflict: %ld conflicts, %ld transitions, want 1 and 1", r.stats.n_priority_conflicts,
          r.stats.n_transitions);
    CHECK(fabs(final_value(&r, "x") - 23.0) <= 1e-10, "conflict: x(2) = %.17g, want 23",
          final_value(&r, "x"));
    run_free(&r);
}

static void ball_source(char *out, size_t size, double e, int reset_h)
{
    snprintf(out, size,
             "model ball\n parameter Real g = 9.81;\n parameter Real e = %.17g;\n"
             " Real h(start = 1);\n Real v(start = 0);\nequation\n der(h) = v;\n der(v) = -g;\n"
             " transition bounce when h < 0 do %s v := -e * v; end;\nend ball;\n",
             e, reset_h ? "h := 0;" : "");
}

static void bouncing_ball(void)
{
    const double g = 9.81, e = 0.8, t1 = sqrt(2.0 / g);
    /* Impact k + 1 at t1 + 2 t1 (e + ... + e^k); the Zeno point is
    ** t1 (1 + 2 e / (1 - e)) = 4.0637 s. Stop at 4.06. */
    double impacts[64];
    int n_impacts = 0;
    for (double t = t1, e_k = e; t < 4.06 && n_impacts < 64; e_k *= e) {
        impacts[n_impacts++] = t;
        t += 2.0 * t1 * e_k;
    }
    char source[512];
    for (int reset_h = 0; reset_h <= 1; reset_h++) {
        ball_source(source, sizeof source, e, reset_h);
        for (double tol = 1e-4; tol >= 1e-12 * 0.99; tol *= 0.01) {
            run_result r;
            CHECK(run_source(source, "DSTIFF", tol, 4.06, &r) == 0 && r.status == 0,
                  "ball%s rtol %g: runs to 4.06", reset_h ? "" : " without h := 0", tol);
            double times[64];
            int n = event_times(&r, times, 64);
            CHECK(n == n_impacts, "ball%s rtol %g: %d impacts, want %d",
                  reset_h ? "" : " without h := 0", tol, n, n_impacts);
            if (tol < 1.01e-10 && tol > 0.99e-10 && n >= 20) {
                double worst = 0.0;
                for (int k = 0; k < 20; k++)
                    worst = fmax(worst, fabs(times[k] - impacts[k]) / impacts[k]);
                CHECK(worst <= 1e-13, "ball%s rtol 1e-10: first 20 impacts within %.3g "
                      "relative, want 1e-13", reset_h ? "" : " without h := 0", worst);
            }
            run_free(&r);
        }
    }
    /* e = 1 over 1e4 s: impacts at t1 + 2 k t1. */
    ball_source(source, sizeof source, 1.0, 1);
    run_result r;
    CHECK(run_source(source, "DSTIFF", 1e-10, 1e4, &r) == 0 && r.status == 0, "ball e = 1 runs");
    int want = (int)floor((1e4 - t1) / (2.0 * t1)) + 1;
    double t_last = t1 + 2.0 * t1 * (want - 1), last = NAN;
    int n = 0;
    for (int i = 0; i < r.rows.n_rows; i++)
        if (r.rows.kind[i] == HYDAE_ROW_EVENT_RIGHT) {
            n++;
            last = r.rows.t[i];
        }
    CHECK(n == want, "ball e = 1: %d impacts over 1e4 s, want %d", n, want);
    CHECK(fabs(last - t_last) <= 0.01, "ball e = 1: last impact at %.12g, want %.12g", last,
          t_last);
    printf("ball e = 1, DSTIFF rtol 1e-10: %d impacts, last off by %.3g s\n", n, last - t_last);
    run_free(&r);
}

static void initial_trigger(void)
{
    /* x = 1 + t is past the guard x > 0 from the start. */
    const char *forms[] = { "", "initial " };
    for (int f = 0; f < 2; f++) {
        char source[400];
        snprintf(source, sizeof source,
                 "model start\n discrete Real n(start = 0);\n Real x(start = 1);\nequation\n"
                 " der(x) = 1;\n transition fire %swhen x > 0 do n := n + 1; end;\nend start;\n",
                 forms[f]);
        run_result r;
        CHECK(run_source(source, "DSTIFF", 0.0, 1.0, &r) == 0 && r.status == 0, "start: runs");
        double times[2];
        int n = event_times(&r, times, 2);
        CHECK(final_value(&r, "n") == (double)f && n == f && (f == 0 || times[0] == 0.0),
              "%sguard past zero at t0: fired %g times, want %d", forms[f],
              final_value(&r, "n"), f);
        run_free(&r);
    }
}

int main(void)
{
    window_in_one_step();
    simultaneous();
    priority_conflict();
    bouncing_ball();
    initial_trigger();
    return CHECK_DONE();
}
