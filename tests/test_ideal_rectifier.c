/*
** Issue 11's acceptance test for a mode with no differential unknown:
** examples/ideal_rectifier.hym, an ideal source vs = V sin(w t) feeding
** C || R through an ideal diode. Conducting, vc = vs(t) (0 states: solved,
** not integrated) and iD = C V w cos(w t) + vs / R; blocking,
** C vc' = -vc / R. Closed forms (w = 2 pi f, tau = R C):
**  - turn-off where iD falls through 0: tan(w t) = -w tau with w t in the
**    second quadrant, t_off,k = (pi - atan(w tau)) / w + k / f; it depends
**    on nothing integrated, so it must come out to the last bits at every
**    tolerance: within 1e-13 (1e-9 asked);
**  - turn-on where V sin(w t) rises above vc_off exp(-(t - t_off) / tau),
**    vc_off = V sin(w t_off): the root in [T, 5T/4] (T = 1/f) by bisection
**    to adjacent doubles, t_on,k = t_on,0 + k T; it inherits the blocking
**    mode's integration error, so within 0.1 rtol (the slope of vs - vc
**    there is ~2000 V/s and vc ~ 8 V: the integration error 8 rtol moves
**    it by ~4e-3 rtol).
** Every variable-step integrator (the blocking mode is an explicit ODE),
** rtol 1e-4 .. 1e-12, atol = rtol / 100: 5 turn-offs and 4 turn-ons over
** 0.1 s, none missed or repeated, and vc = vs at every grid row while
** conducting.
**
** And a nonlinear mode with no state, x^3 + x = sin(t) (Newton needs
** several iterations): x crosses 1/2 where sin(t) = 5/8, rising at
** asin(5/8) + 2 pi k and falling at pi - asin(5/8) + 2 pi k; over
** [0, 20] that is 4 rising and 3 falling crossings (plus none missed:
** counted by self-transitions), located within 1e-13 at rtol 1e-4 and
** 1e-10.
*/
#include "check.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "rows.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double V = 10.0, f = 50.0, R = 1000.0, C = 100e-6;
static const double pi = 3.141592653589793;

typedef struct closed_form {
    double t_off0, t_on0, period;
} closed_form;

static closed_form rectifier_times(void)
{
    closed_form cf;
    double w = 2.0 * pi * f, tau = R * C;
    cf.period = 1.0 / f;
    cf.t_off0 = (pi - atan(w * tau)) / w;
    double vc_off = V * sin(w * cf.t_off0);
    double lo = cf.period, hi = 1.25 * cf.period;  /* vs - vc < 0 at lo, > 0 at hi */
    for (int i = 0; i < 200; i++) {
        double mid = lo + 0.5 * (hi - lo);
        if (!(mid > lo && mid < hi))
            break;
        double g = V * sin(w * mid) - vc_off * exp(-(mid - cf.t_off0) / tau);
        if (g > 0.0)
            hi = mid;
        else
            lo = mid;
    }
    cf.t_on0 = hi;
    return cf;
}

static void run_rectifier(hydae_model *model, const char *solver, double rtol,
                          const closed_form *cf)
{
    int status;
    hydae_sim *s = hydae_sim_create(model, &status);
    test_rows rows;
    test_rows_init(&rows, model);
    int ok = s && hydae_sim_set_integrator(s, solver) == 0
             && hydae_sim_set_time(s, 0.0, 0.1) == 0
             && hydae_sim_set_output_interval(s, 1e-3) == 0
             && hydae_sim_set_tolerances(s, rtol, rtol * 1e-2) == 0
             && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0;
    int run_status = ok ? hydae_sim_run(s) : -1;
    CHECK(run_status == 0, "%s rtol %g: runs (%s)", solver, rtol, s ? hydae_sim_errmsg(s) : "");
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    /* Right-limit rows alternate: turn-off, turn-on, ... */
    int n_off = 0, n_on = 0;
    double err_off = 0.0, err_on = 0.0;
    for (int r = 0; r < rows.n_rows; r++) {
        if (rows.kind[r] != HYDAE_ROW_EVENT_RIGHT)
            continue;
        if ((n_off + n_on) % 2 == 0)
            err_off = fmax(err_off, fabs(rows.t[r] - (cf->t_off0 + n_off++ * cf->period)));
        else
            err_on = fmax(err_on, fabs(rows.t[r] - (cf->t_on0 + n_on++ * cf->period)));
    }
    CHECK(n_off == 5 && n_on == 4, "%s rtol %g: %d turn-offs, %d turn-ons, want 5, 4", solver,
          rtol, n_off, n_on);
    CHECK(err_off <= 1e-13, "%s rtol %g: turn-off times off by %.3g, want <= 1e-13", solver,
          rtol, err_off);
    CHECK(err_on <= 0.1 * rtol, "%s rtol %g: turn-on times off by %.3g, want <= %.3g", solver,
          rtol, err_on, 0.1 * rtol);
    /* While conducting (iD > 0 on a grid row), vc is vs. */
    int col_vc = test_column(model, "vc"), col_vs = test_column(model, "vs");
    int col_id = test_column(model, "iD");
    double err_tied = 0.0;
    for (int r = 0; r < rows.n_rows; r++)
        if (rows.kind[r] == HYDAE_ROW_GRID && test_value(&rows, r, col_id) > 0.0)
            err_tied = fmax(err_tied, fabs(test_value(&rows, r, col_vc)
                                           - test_value(&rows, r, col_vs)));
    CHECK(err_tied <= 1e-13, "%s rtol %g: conducting, |vc - vs| up to %.3g", solver, rtol,
          err_tied);
    printf("%-6s rtol %-6g steps %5ld (rejected %3ld)  turn-off err %.1e  turn-on err %.1e\n",
           solver, rtol, st.n_steps, st.n_rejected, err_off, err_on);
    test_rows_free(&rows);
    hydae_sim_free(s);
}

static void nonlinear_algebraic(double rtol)
{
    static const char source[] =
        "model cubic\n discrete Real n_up(start = 0);\n discrete Real n_down(start = 0);\n"
        " Real x(start = 0);\nequation\n x^3 + x = sin(time);\n"
        " transition up when x > 0.5 do n_up := n_up + 1; end;\n"
        " transition down when x < 0.5 do n_down := n_down + 1; end;\nend cubic;\n";
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(source, strlen(source), "cubic", stderr, NULL,
                                                &n_errors);
    CHECK(unit != NULL, "cubic compiles");
    if (!unit)
        return;
    hydae_model *model = hy_lang_unit_model(unit);
    int status;
    hydae_sim *s = hydae_sim_create(model, &status);
    test_rows rows;
    test_rows_init(&rows, model);
    int ok = s && hydae_sim_set_time(s, 0.0, 20.0) == 0
             && hydae_sim_set_output_interval(s, 20.0) == 0
             && hydae_sim_set_tolerances(s, rtol, rtol) == 0
             && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0;
    CHECK(ok && hydae_sim_run(s) == 0, "cubic rtol %g runs (%s)", rtol,
          s ? hydae_sim_errmsg(s) : "");
    double rise = asin(0.625), fall = pi - asin(0.625), err = 0.0;
    int n_events = 0;
    for (int r = 0; r < rows.n_rows; r++) {
        if (rows.kind[r] != HYDAE_ROW_EVENT_RIGHT)
            continue;
        int k = n_events / 2;
        double want = (n_events % 2 == 0 ? rise : fall) + 2.0 * pi * k;
        err = fmax(err, fabs(rows.t[r] - want));
        n_events++;
    }
    int last = rows.n_rows - 1;
    double n_up = test_value(&rows, last, test_column(model, "n_up"));
    double n_down = test_value(&rows, last, test_column(model, "n_down"));
    CHECK(n_events == 7 && n_up == 4.0 && n_down == 3.0,
          "cubic rtol %g: %d events (up %g, down %g), want 7 (4, 3)", rtol, n_events, n_up,
          n_down);
    CHECK(err <= 1e-13, "cubic rtol %g: crossings off by %.3g, want <= 1e-13", rtol, err);
    printf("cubic  rtol %-6g %d crossings, off by %.1e at most\n", rtol, n_events, err);
    test_rows_free(&rows);
    hydae_sim_free(s);
    hy_lang_unit_free(unit);
}

int main(void)
{
    char dir[1024], path[1200];
    lang_test_source_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/examples/ideal_rectifier.hym", dir);
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_file(path, stderr, NULL, &n_errors);
    CHECK(unit != NULL, "ideal_rectifier.hym compiles (%d errors)", n_errors);
    if (!unit)
        return CHECK_DONE();
    hydae_model *model = hy_lang_unit_model(unit);
    closed_form cf = rectifier_times();
    printf("closed form: t_off = %.17g + k T, t_on = %.17g + k T\n", cf.t_off0, cf.t_on0);
    static const char *const solvers[] = { "DSTIFF", "VSTIFF", "MSTIFF", "ABAM", "RK45" };
    static const double rtols[] = { 1e-4, 1e-6, 1e-8, 1e-10, 1e-12 };
    for (size_t m = 0; m < sizeof solvers / sizeof solvers[0]; m++)
        for (size_t i = 0; i < sizeof rtols / sizeof rtols[0]; i++)
            run_rectifier(model, solvers[m], rtols[i], &cf);
    hy_lang_unit_free(unit);
    nonlinear_algebraic(1e-4);
    nonlinear_algebraic(1e-10);
    return CHECK_DONE();
}
