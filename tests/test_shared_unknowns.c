/*
** Charts that share continuous unknowns (seed 000, section 4; assembly.c):
** a half-wave rectifier written as two charts, the circuit (capacitor C
** with load R, fed from a sine source through Rs and a switching element)
** and the element (on: w = 0; off: i = 0), which share the element's
** current i and voltage w. Against:
**  - the piecewise closed form of the circuit, its switching instants
**    found by bisection on the closed forms (independent of the solver);
**  - the same circuit written as one chart of two square modes.
** And a configuration whose equations do not number its unknowns is
** refused when it is entered, naming the modes.
*/
#include "check.h"
#include "rows.h"

#include <math.h>

enum { P_VM, P_W, P_RS, P_R, P_C };
static const double VM = 10, OMEGA = 2 * 3.141592653589793 * 50, RS = 1, R = 100, C = 1e-4;
static const double V0 = 5; /* the element is off at t = 0: vs(0) = 0 < v */

static double source(double t)
{
    return VM * sin(OMEGA * t);
}

/* The circuit: y = (v, i, w); C v' = i - v / R, w = vs - Rs i - v. */
static int circuit(double t, const double *y, const double *yp, const double *p, double *res,
                   void *user)
{
    (void)p, (void)user;
    res[0] = C * yp[0] - y[1] + y[0] / R;
    res[1] = y[2] - (source(t) - RS * y[1] - y[0]);
    return 0;
}

/* The element: y = (i, w). */
static int element_on(double t, const double *y, const double *yp, const double *p,
                      double *res, void *user)
{
    (void)t, (void)yp, (void)p, (void)user;
    res[0] = y[1];
    return 0;
}

static int element_off(double t, const double *y, const double *yp, const double *p,
                       double *res, void *user)
{
    (void)t, (void)yp, (void)p, (void)user;
    res[0] = y[0];
    return 0;
}

/* An element whose `on` mode says too much: w = 0 and i = vs / Rs. */
static int element_on_twice(double t, const double *y, const double *yp, const double *p,
                            double *res, void *user)
{
    (void)yp, (void)p, (void)user;
    res[0] = y[1];
    res[1] = y[0] - source(t) / RS;
    return 0;
}

/* Their Jacobians dF/dy + cj dF/dy' in the patterns' order (two_charts). */
static int circuit_jac(double t, double cj, const double *y, const double *yp, const double *p,
                       double *values, void *user)
{
    (void)t, (void)y, (void)yp, (void)p, (void)user;
    values[0] = cj * C + 1 / R; /* (0, v) */
    values[1] = 1;              /* (1, v) */
    values[2] = -1;             /* (0, i) */
    values[3] = RS;             /* (1, i) */
    values[4] = 1;              /* (1, w) */
    return 0;
}

static int element_jac(double t, double cj, const double *y, const double *yp, const double *p,
                       double *values, void *user)
{
    (void)t, (void)cj, (void)y, (void)yp, (void)p, (void)user;
    values[0] = 1; /* off: (0, i); on: (0, w) */
    return 0;
}

static int guard_current(double t, const double *y, const double *yp, const double *p,
                         double *g, void *user)
{
    (void)t, (void)yp, (void)p, (void)user;
    g[0] = y[0];
    return 0;
}

static int guard_voltage(double t, const double *y, const double *yp, const double *p,
                         double *g, void *user)
{
    (void)t, (void)yp, (void)p, (void)user;
    g[0] = y[1];
    return 0;
}

static int out_one(double t, const double *y, const double *yp, const double *p, double *out,
                   void *user);

/* variant 1: the element's `on` mode has two equations; 2: a third chart
** has an output named like the shared variable w; 4: analytic sparse
** Jacobians (else finite differences on the assembled pattern). */
static hydae_model *two_charts(int variant)
{
    int overdetermined = variant == 1;
    hydae_model *m = hydae_model_create("rectifier2");
    hydae_chart *circ = hydae_model_add_chart(m, "circuit");
    hydae_mode *rc = hydae_chart_add_mode(circ, "rc");
    int ok = hydae_mode_add_var(rc, "v", HYDAE_DIFFERENTIAL, V0) == 0
             && hydae_mode_add_var(rc, "i", HYDAE_ALGEBRAIC, 0) == 1
             && hydae_mode_add_var(rc, "w", HYDAE_ALGEBRAIC, 0) == 2
             && hydae_mode_set_residual(rc, 2, circuit, NULL) == 0;
    hydae_chart *sw = hydae_model_add_chart(m, "element");
    hydae_mode *off = hydae_chart_add_mode(sw, "off"), *on = hydae_chart_add_mode(sw, "on");
    hydae_mode *modes[2] = { off, on };
    for (int k = 0; k < 2; k++)
        ok = ok && hydae_mode_add_var(modes[k], "i", HYDAE_ALGEBRAIC, 0) == 0
             && hydae_mode_add_var(modes[k], "w", HYDAE_ALGEBRAIC, 0) == 1;
    ok = ok && hydae_mode_set_residual(off, 1, element_off, NULL) == 0
         && hydae_mode_set_guards(off, 1, guard_voltage) == 0
         && hydae_mode_set_guards(on, 1, guard_current) == 0;
    ok = ok && (overdetermined ? hydae_mode_set_residual(on, 2, element_on_twice, NULL)
                               : hydae_mode_set_residual(on, 1, element_on, NULL)) == 0;
    /* Patterns (CSC, rows are the mode's equations): the assembled one
    ** merges the columns of i and w. */
    static const int64_t rc_start[] = { 0, 2, 4, 5 }, rc_row[] = { 0, 1, 0, 1, 1 };
    static const int64_t off_start[] = { 0, 1, 1 }, off_row[] = { 0 };
    static const int64_t on_start[] = { 0, 0, 1 }, on_row[] = { 0 };
    ok = ok && hydae_mode_set_jacobian_pattern(rc, rc_start, rc_row) == 0
         && hydae_mode_set_jacobian_pattern(off, off_start, off_row) == 0
         && (overdetermined || hydae_mode_set_jacobian_pattern(on, on_start, on_row) == 0);
    if (variant == 4)
        ok = ok && hydae_mode_set_sparse_jacobian(rc, circuit_jac) == 0
             && hydae_mode_set_sparse_jacobian(off, element_jac) == 0
             && hydae_mode_set_sparse_jacobian(on, element_jac) == 0;
    hydae_transition *turn_on = hydae_chart_add_transition(sw, "turn_on", off, on);
    hydae_transition *turn_off = hydae_chart_add_transition(sw, "turn_off", on, off);
    ok = ok && hydae_transition_on_guard(turn_on, 0, HYDAE_RISING) == 0
         && hydae_transition_on_guard(turn_off, 0, HYDAE_FALLING) == 0;
    if (variant == 3) { /* a third chart: z in no equation, i = 0 said twice when off */
        hydae_mode *probe = hydae_chart_add_mode(hydae_model_add_chart(m, "probe"), "p");
        static const int64_t probe_start[] = { 0, 1, 1 }, probe_row[] = { 0 };
        ok = ok && hydae_mode_add_var(probe, "i", HYDAE_ALGEBRAIC, 0) == 0
             && hydae_mode_add_var(probe, "z", HYDAE_ALGEBRAIC, 0) == 1
             && hydae_mode_set_residual(probe, 1, element_off, NULL) == 0
             && hydae_mode_set_jacobian_pattern(probe, probe_start, probe_row) == 0;
    }
    if (variant == 2) {
        hydae_mode *x = hydae_chart_add_mode(hydae_model_add_chart(m, "extra"), "x");
        ok = ok && hydae_mode_add_output(x, "w") == 0 && hydae_mode_set_outputs(x, out_one) == 0;
        CHECK(ok, "building with an output w");
        return m;
    }
    CHECK(ok && hydae_model_check(m) == 0, "building the two-chart model: %s",
          hydae_model_errmsg(m));
    return m;
}

/* The same circuit as one chart: y = (v, i, w) in both modes. */
static int whole_on(double t, const double *y, const double *yp, const double *p, double *res,
                    void *user)
{
    circuit(t, y, yp, p, res, user);
    res[2] = y[2];
    return 0;
}

static int whole_off(double t, const double *y, const double *yp, const double *p, double *res,
                     void *user)
{
    circuit(t, y, yp, p, res, user);
    res[2] = y[1];
    return 0;
}

static int whole_guard_current(double t, const double *y, const double *yp, const double *p,
                               double *g, void *user)
{
    (void)t, (void)yp, (void)p, (void)user;
    g[0] = y[1];
    return 0;
}

static int whole_guard_voltage(double t, const double *y, const double *yp, const double *p,
                               double *g, void *user)
{
    (void)t, (void)yp, (void)p, (void)user;
    g[0] = y[2];
    return 0;
}

static hydae_model *one_chart(void)
{
    hydae_model *m = hydae_model_create("rectifier1");
    hydae_chart *ch = hydae_model_add_chart(m, "element");
    hydae_mode *off = hydae_chart_add_mode(ch, "off"), *on = hydae_chart_add_mode(ch, "on");
    hydae_mode *modes[2] = { off, on };
    int ok = 1;
    for (int k = 0; k < 2; k++)
        ok = ok && hydae_mode_add_var(modes[k], "v", HYDAE_DIFFERENTIAL, V0) == 0
             && hydae_mode_add_var(modes[k], "i", HYDAE_ALGEBRAIC, 0) == 1
             && hydae_mode_add_var(modes[k], "w", HYDAE_ALGEBRAIC, 0) == 2;
    ok = ok && hydae_mode_set_residual(off, 3, whole_off, NULL) == 0
         && hydae_mode_set_residual(on, 3, whole_on, NULL) == 0
         && hydae_mode_set_guards(off, 1, whole_guard_voltage) == 0
         && hydae_mode_set_guards(on, 1, whole_guard_current) == 0;
    hydae_transition *turn_on = hydae_chart_add_transition(ch, "turn_on", off, on);
    hydae_transition *turn_off = hydae_chart_add_transition(ch, "turn_off", on, off);
    ok = ok && hydae_transition_on_guard(turn_on, 0, HYDAE_RISING) == 0
         && hydae_transition_on_guard(turn_off, 0, HYDAE_FALLING) == 0;
    CHECK(ok && hydae_model_check(m) == 0, "building the one-chart model: %s",
          hydae_model_errmsg(m));
    return m;
}

/* ---- the closed form ---- */

/* Off (i = 0): v = v_a exp(-(t - t_a) / (R C)). On (w = 0): C v' = (vs - v)
** / Rs - v / R, i.e. v' = -a v + b vs with a = (1/Rs + 1/R) / C, b = 1 /
** (Rs C): v = K exp(-a (t - t_a)) + P(t), P the sinusoidal steady state. */
typedef struct phase {
    int on;
    double t_a, v_a;
} phase;

static double steady(double t)
{
    double a = (1 / RS + 1 / R) / C, b = 1 / (RS * C);
    return b * VM * (a * sin(OMEGA * t) - OMEGA * cos(OMEGA * t)) / (a * a + OMEGA * OMEGA);
}

static double phase_v(const phase *ph, double t)
{
    if (!ph->on)
        return ph->v_a * exp(-(t - ph->t_a) / (R * C));
    double a = (1 / RS + 1 / R) / C;
    return (ph->v_a - steady(ph->t_a)) * exp(-a * (t - ph->t_a)) + steady(t);
}

/* The switching function of the phase: w = vs - v while off (rises through
** 0 to turn on), i = (vs - v) / Rs while on (falls through 0). */
static double phase_guard(const phase *ph, double t)
{
    double v = phase_v(ph, t);
    return ph->on ? (source(t) - v) / RS : source(t) - v;
}

/* The end of the phase: the first crossing after t_a (scan, then bisection
** to adjacent doubles), or INFINITY before t_end. */
static double phase_end(const phase *ph, double t_end)
{
    double step = 1e-6, lo = ph->t_a + step;
    int want_positive = !ph->on;
    for (double t = lo; t < t_end; t += step) {
        double g = phase_guard(ph, t);
        if ((want_positive && g > 0) || (!want_positive && g < 0)) {
            double a = t - step, b = t;
            while (nextafter(a, b) < b) {
                double mid = 0.5 * (a + b);
                if (mid <= a || mid >= b)
                    break;
                double gm = phase_guard(ph, mid);
                if ((want_positive && gm > 0) || (!want_positive && gm < 0))
                    b = mid;
                else
                    a = mid;
            }
            return b;
        }
    }
    return INFINITY;
}

enum { MAX_PHASES = 64 };

static int closed_form(double t_end, phase *phases)
{
    int n = 0;
    phases[0] = (phase){ 0, 0.0, V0 };
    for (n = 1; n < MAX_PHASES; n++) {
        phase *ph = &phases[n - 1];
        double t = phase_end(ph, t_end);
        if (!isfinite(t))
            break;
        phases[n] = (phase){ !ph->on, t, phase_v(ph, t) };
    }
    return n;
}

static double closed_v(const phase *phases, int n, double t)
{
    int k = 0;
    while (k + 1 < n && phases[k + 1].t_a <= t)
        k++;
    return phase_v(&phases[k], t);
}

/* The distinct event instants of a run. */
static int event_times(const test_rows *rows, double *times, int cap)
{
    int n = 0;
    for (int r = 0; r < rows->n_rows; r++)
        if (rows->kind[r] == HYDAE_ROW_EVENT_LEFT && (n == 0 || rows->t[r] != times[n - 1])
            && n < cap)
            times[n++] = rows->t[r];
    return n;
}

static void against_closed_form(int variant)
{
    const double t_end = 0.06;
    phase phases[MAX_PHASES];
    int n_phases = closed_form(t_end, phases);
    CHECK(n_phases >= 6, "the closed form switches %d times by t = %g", n_phases - 1, t_end);

    hydae_model *shared = two_charts(variant), *single = one_chart();
    test_rows rows2, rows1;
    CHECK(test_run(shared, "DSTIFF", t_end, 1e-4, 1e-11, 1e-11, &rows2) == 0, "two charts run");
    CHECK(test_run(single, "DSTIFF", t_end, 1e-4, 1e-11, 1e-11, &rows1) == 0, "one chart run");
    double ev2[MAX_PHASES], ev1[MAX_PHASES];
    int n2 = event_times(&rows2, ev2, MAX_PHASES), n1 = event_times(&rows1, ev1, MAX_PHASES);
    CHECK(n2 == n_phases - 1 && n1 == n_phases - 1, "events: %d (two charts), %d (one), %d "
          "(closed form)", n2, n1, n_phases - 1);
    double worst_event = 0, worst_single = 0;
    for (int k = 0; k < n2 && k + 1 < n_phases; k++)
        worst_event = test_worse(worst_event, fabs(ev2[k] - phases[k + 1].t_a));
    for (int k = 0; k < n2 && k < n1; k++)
        worst_single = test_worse(worst_single, fabs(ev2[k] - ev1[k]));
    CHECK(worst_event < 1e-9, "switching instants off the closed form by %.3g s", worst_event);
    CHECK(worst_single < 1e-9, "switching instants of the two assemblies differ by %.3g s",
          worst_single);

    int cv2 = test_column(shared, "v"), ci2 = test_column(shared, "i");
    int cw2 = test_column(shared, "w"), cv1 = test_column(single, "v");
    CHECK(cv2 >= 0 && ci2 >= 0 && cw2 >= 0 && cv1 >= 0, "columns");
    double worst_v = 0, worst_kvl = 0, worst_vs_single = 0;
    int grid = 0;
    for (int r = 0; r < rows2.n_rows && cv2 >= 0 && ci2 >= 0 && cw2 >= 0; r++) {
        if (rows2.kind[r] != HYDAE_ROW_GRID)
            continue;
        double t = rows2.t[r], v = test_value(&rows2, r, cv2);
        worst_v = test_worse(worst_v, fabs(v - closed_v(phases, n_phases, t)) / VM);
        double kvl = test_value(&rows2, r, cw2)
                     - (source(t) - RS * test_value(&rows2, r, ci2) - v);
        worst_kvl = test_worse(worst_kvl, fabs(kvl) / VM);
        grid++;
    }
    for (int r = 0, q = 0; r < rows2.n_rows && cv1 >= 0 && cv2 >= 0; r++) {
        if (rows2.kind[r] != HYDAE_ROW_GRID)
            continue;
        while (q < rows1.n_rows && (rows1.kind[q] != HYDAE_ROW_GRID || rows1.t[q] < rows2.t[r]))
            q++;
        if (q < rows1.n_rows && rows1.t[q] == rows2.t[r])
            worst_vs_single = test_worse(worst_vs_single, fabs(test_value(&rows2, r, cv2)
                                                         - test_value(&rows1, q, cv1)) / VM);
    }
    CHECK(grid > 500, "%d grid rows", grid);
    CHECK(worst_v < 1e-8, "capacitor voltage off the closed form by %.3g (relative to Vm)",
          worst_v);
    CHECK(worst_kvl < 1e-9, "the circuit's mesh equation off by %.3g", worst_kvl);
    CHECK(worst_vs_single < 1e-8, "the two assemblies differ by %.3g", worst_vs_single);
    printf("shared unknowns (%s Jacobian): %d switchings, instants within %.2g s of the closed form, "
           "v within %.2g Vm; one chart vs two: %.2g s, %.2g Vm\n",
           variant == 4 ? "analytic" : "finite-difference", n2, worst_event, worst_v,
           worst_single, worst_vs_single);
    test_rows_free(&rows2);
    test_rows_free(&rows1);
    hydae_model_free(shared);
    hydae_model_free(single);
}

/* The element's `on` mode brings two equations: the configuration entered
** at the first turn-on has 4 for 3 unknowns. */
static void unbalanced_configuration(void)
{
    hydae_model *m = two_charts(1);
    test_rows rows;
    int status = test_run(m, "DSTIFF", 0.02, 1e-4, 1e-8, 1e-8, &rows);
    int st;
    hydae_sim *s = hydae_sim_create(m, &st);
    int ok = s && hydae_sim_set_time(s, 0.0, 0.02) == 0;
    int run = ok ? hydae_sim_run(s) : 0;
    const char *msg = s ? hydae_sim_errmsg(s) : "";
    CHECK(status == HYDAE_ERR_MODEL && run == HYDAE_ERR_MODEL, "status %d, %d", status, run);
    CHECK(strstr(msg, "4 equations for 3 unknowns") && strstr(msg, "overdetermined")
              && strstr(msg, "'on' of chart 'element'"),
          "message: %s", msg);
    /* It ran up to the first turn-on: the rows before it are there. */
    CHECK(rows.n_rows > 10, "%d rows before the failure", rows.n_rows);
    hydae_sim_free(s);
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* Square but structurally singular: refused at t0 naming what is left. */
static void structurally_singular(void)
{
    hydae_model *m = two_charts(3);
    test_rows rows;
    int status = test_run(m, "DSTIFF", 0.01, 1e-4, 1e-8, 1e-8, &rows);
    int st;
    hydae_sim *s = hydae_sim_create(m, &st);
    int run = s && hydae_sim_set_time(s, 0.0, 0.01) == 0 ? hydae_sim_run(s) : 0;
    const char *msg = s ? hydae_sim_errmsg(s) : "";
    CHECK(status == HYDAE_ERR_MODEL && run == HYDAE_ERR_MODEL, "status %d, %d", status, run);
    CHECK(strstr(msg, "structurally singular") && strstr(msg, "not determined: 'z'")
              && strstr(msg, "at t = 0"), "message: %s", msg);
    hydae_sim_free(s);
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* A name that is a variable of one chart and an output of another is
** refused by the model check. */
static int out_one(double t, const double *y, const double *yp, const double *p, double *out,
                   void *user)
{
    (void)t, (void)y, (void)yp, (void)p, (void)user;
    out[0] = 1;
    return 0;
}

static void output_and_variable(void)
{
    hydae_model *m = two_charts(2);
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(!s && status == HYDAE_ERR_MODEL
              && strstr(hydae_model_errmsg(m), "an output belongs to one chart"),
          "variable of one chart, output of another: %s", hydae_model_errmsg(m));
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* A method that needs y' = f(t, y) refuses an assembled DAE, naming DSTIFF. */
static void explicit_method_refused(void)
{
    hydae_model *m = two_charts(0);
    int st;
    hydae_sim *s = hydae_sim_create(m, &st);
    int ok = s && hydae_sim_set_time(s, 0.0, 0.01) == 0 && hydae_sim_set_integrator(s, "RK45") == 0;
    int run = ok ? hydae_sim_run(s) : 0;
    CHECK(run == HYDAE_ERR_ARG && strstr(hydae_sim_errmsg(s), "use DSTIFF"), "RK45: %d %s", run,
          s ? hydae_sim_errmsg(s) : "");
    hydae_sim_free(s);
    hydae_model_free(m);
}

int main(void)
{
    explicit_method_refused();
    against_closed_form(0);
    against_closed_form(4);
    unbalanced_configuration();
    structurally_singular();
    output_and_variable();
    return CHECK_DONE();
}
