/*
** Model switching for accuracy (examples/dc_motor.c). Closed forms, with
** x = (i, w):
**   detailed: x' = A x + B V, A = [-R/L -k/L; k/J -b/J], B = (1/L, 0):
**     x(t) = x_ss + exp(A (t - t0)) (x(t0) - x_ss), x_ss = -A^-1 B V, the
**     2x2 exponential from its two real eigenvalues;
**   reduced:  w' = a w + c, a = -(k^2/R + b)/J, c = k V / (R J).
** Checked: the mode sequence and switching times (0.02 s, 0.5 s, 0.52 s);
** each segment against its own model's closed form from the state where
** the segment starts; and the whole run against the detailed model
** throughout, which the reduced segments may leave only by the neglected
** inductance's effect, of order (L/R) / (J R / k^2) ~ 1e-3.
*/
#include "check.h"
#include "examples.h"
#include "rows.h"

#include <string.h>

static const double R = 1.0, L = 1e-3, k = 0.1, J = 0.01, b = 1e-3;

/* x(t0 + dt) of the detailed model from x0 under constant V. */
static void detailed_solution(const double x0[2], double V, double dt, double x[2])
{
    double a11 = -R / L, a12 = -k / L, a21 = k / J, a22 = -b / J;
    double det = a11 * a22 - a12 * a21, tr = a11 + a22;
    double disc = sqrt(tr * tr - 4.0 * det);
    double l1 = 0.5 * (tr + disc), l2 = 0.5 * (tr - disc);
    /* Steady state: A x_ss = -B V. */
    double rhs1 = -V / L, rhs2 = 0.0;
    double xs1 = (rhs1 * a22 - a12 * rhs2) / det, xs2 = (a11 * rhs2 - a21 * rhs1) / det;
    double d1 = x0[0] - xs1, d2 = x0[1] - xs2;
    double e1 = exp(l1 * dt), e2 = exp(l2 * dt);
    /* exp(A dt) = (e1 (A - l2 I) - e2 (A - l1 I)) / (l1 - l2). */
    double m11 = (e1 * (a11 - l2) - e2 * (a11 - l1)) / (l1 - l2);
    double m12 = (e1 - e2) * a12 / (l1 - l2);
    double m21 = (e1 - e2) * a21 / (l1 - l2);
    double m22 = (e1 * (a22 - l2) - e2 * (a22 - l1)) / (l1 - l2);
    x[0] = xs1 + m11 * d1 + m12 * d2;
    x[1] = xs2 + m21 * d1 + m22 * d2;
}

static double reduced_solution(double w0, double V, double dt)
{
    double a = -(k * k / R + b) / J, c = k * V / (R * J);
    double w_ss = -c / a;
    return w_ss + (w0 - w_ss) * exp(a * dt);
}

/* Per-mode integrators: the stiff ODE mode with VSTIFF, the DAE mode with
** DSTIFF (the closed forms checked in run_and_check); and a DAE mode asking
** for an explicit-ODE method is refused before the run (hydae_sim_validate,
** and hydae_sim_run, which validates first), by name, although it becomes
** active only at t = 0.02. */
static int run_and_check(hydae_model *m);

static int count_rows(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)kind;
    (void)t;
    (void)values;
    ++*(long *)user;
    return 0;
}

static void per_mode_integrators(void)
{
    hydae_model *m = example_dc_motor();
    CHECK(hydae_mode_set_integrator(hydae_model_mode(m, "detailed"), "VSTIFF") == 0
              && hydae_mode_set_integrator(hydae_model_mode(m, "reduced"), "DSTIFF") == 0,
          "per-mode integrators: %s", hydae_model_errmsg(m));
    CHECK(run_and_check(m) == 0, "VSTIFF/DSTIFF per mode");
    hydae_model_free(m);

    m = example_dc_motor();
    CHECK(hydae_mode_set_integrator(hydae_model_mode(m, "reduced"), "RK45") == 0, "RK45");
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s && hydae_sim_set_time(s, 0.0, 1.0) == 0, "setup");
    CHECK(hydae_sim_validate(s) == HYDAE_ERR_ARG, "refused by hydae_sim_validate");
    long n_rows = 0;
    CHECK(hydae_sim_add_row_sink(s, count_rows, &n_rows) == 0, "row sink");
    status = hydae_sim_run(s);
    CHECK(status == HYDAE_ERR_ARG && strstr(hydae_sim_errmsg(s), "RK45")
              && strstr(hydae_sim_errmsg(s), "mode 'reduced'") && !strstr(hydae_sim_errmsg(s), "t = "),
          "a DAE mode asking for RK45: status %d, %s", status, hydae_sim_errmsg(s));
    CHECK(n_rows == 0, "refused before the run: %ld rows", n_rows);
    hydae_sim_free(s);
    hydae_model_free(m);
}

int main(void)
{
    hydae_model *m = example_dc_motor();
    run_and_check(m);
    hydae_model_free(m);
    per_mode_integrators();
    return CHECK_DONE();
}

static int run_and_check(hydae_model *m)
{
    int n_failed_before = check_n_failed;
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(s && hydae_sim_set_time(s, 0.0, 1.0) == 0 && hydae_sim_set_output_interval(s, 0.001) == 0
              && hydae_sim_set_tolerances(s, 1e-9, 1e-10) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0,
          "setup");
    status = hydae_sim_run(s);
    CHECK(status == 0, "run: %s", hydae_sim_errmsg(s));
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    CHECK(st.n_mode_switches == 3, "%ld mode switches, want 3", st.n_mode_switches);
    int ci = test_column(m, "i"), cw = test_column(m, "w"), cV = test_column(m, "V");
    const double switch_times[3] = { 0.02, 0.5, 0.52 };
    int n_switch = 0, detailed = 1;
    double seg_t0 = 0.0, seg_x0[2] = { 0.0, 0.0 }, seg_V = 12.0;
    double worst_segment = 0.0, worst_vs_detailed = 0.0, w_max = 0.0;
    double x_half[2];
    detailed_solution((const double[2]){ 0.0, 0.0 }, 12.0, 0.5, x_half);
    for (int i = 0; i < rows.n_rows; i++) {
        double t = rows.t[i], cur_i = test_value(&rows, i, ci), w = test_value(&rows, i, cw);
        if (rows.kind[i] == HYDAE_ROW_EVENT_LEFT)
            continue;
        if (rows.kind[i] == HYDAE_ROW_EVENT_RIGHT) {
            if (n_switch < 3)
                CHECK(fabs(t - switch_times[n_switch]) < 1e-9, "switch %d at %.12g, want %g",
                      n_switch + 1, t, switch_times[n_switch]);
            n_switch++;
            detailed = n_switch == 2; /* detailed again after the supply event only */
            seg_t0 = t;
            seg_x0[0] = cur_i;
            seg_x0[1] = w;
            seg_V = test_value(&rows, i, cV);
            continue;
        }
        double expect_w;
        if (detailed) {
            double x[2];
            detailed_solution(seg_x0, seg_V, t - seg_t0, x);
            expect_w = x[1];
            worst_segment = fmax(worst_segment, fabs(cur_i - x[0]) * R / 12.0);
        } else {
            expect_w = reduced_solution(seg_x0[1], seg_V, t - seg_t0);
            /* i is algebraic there: (V - k w) / R exactly. */
            worst_segment = fmax(worst_segment, fabs(cur_i - (seg_V - k * w) / R) * R / 12.0);
        }
        worst_segment = fmax(worst_segment, fabs(w - expect_w) / 120.0);
        double x_ref[2];
        if (t <= 0.5)
            detailed_solution((const double[2]){ 0.0, 0.0 }, 12.0, t, x_ref);
        else
            detailed_solution(x_half, 0.0, t - 0.5, x_ref);
        worst_vs_detailed = fmax(worst_vs_detailed, fabs(w - x_ref[1]));
        w_max = fmax(w_max, fabs(x_ref[1]));
    }
    CHECK(n_switch == 3, "%d switches in the rows", n_switch);
    CHECK(worst_segment < 1e-6, "a segment is off its model's closed form by %g (relative)",
          worst_segment);
    CHECK(worst_vs_detailed / w_max < 5e-3 && worst_vs_detailed / w_max > 1e-6,
          "switched run vs detailed model: %g relative (the reduction error should be ~1e-3)",
          worst_vs_detailed / w_max);
    printf("dc motor: segments within %.2g of their closed forms; switched vs detailed "
           "throughout: %.3g relative; %ld steps\n", worst_segment, worst_vs_detailed / w_max,
           st.n_steps);
    test_rows_free(&rows);
    hydae_sim_free(s);
    return check_n_failed - n_failed_before;
}
