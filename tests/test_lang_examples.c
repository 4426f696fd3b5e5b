/*
** The example model files (examples/NAME.hym):
**  - each one that also exists in C (string pendulum, bouncing ball, relay,
**    algebraic loop) gives the same results as the C model: the same
**    columns, the same rows (grid points, event left and right limits) at
**    the same times, values within 1e-6 (1 + |value|) and event times
**    within 1e-8 (1 + t), both run with rtol 1e-10, atol 1e-12;
**  - the symbolic Jacobian of every mode of every example agrees with
**    central finite differences of its residual, dF/dy + cj dF/dy', to a
**    relative 1e-6 at several states; for the explicit modes (compiled as
**    right-hand sides) also df/dy against differences of f, and f against
**    the residual: F(t, y, f(t, y)) = 0;
**  - closed forms: the sampled PI loop follows the exact zero-order-hold
**    recurrence, the two spring-mass systems their analytic solutions, and
**    the rectifier's capacitor discharges as exp(-t/(R C)) while blocking;
**  - an if-expression on continuous values switches exactly at the
**    crossings (hidden condition variables): der(y) = if x > 1 and time < 3
**    then 2 else 0 with x = t gives y = 2 clamp(t - 1, 0, 2) and events at
**    t = 1 and t = 3 only.
*/
#include "check.h"
#include "examples.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "lang/build.h"
#include "rows.h"

#include <math.h>

static char source_dir[1024];

static hy_lang_unit *compile_example(const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/examples/%s.hym", source_dir, name);
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_file(path, stderr, NULL, &n_errors);
    CHECK(unit != NULL, "%s.hym: %d errors", name, n_errors);
    return unit;
}

static int run(hydae_model *m, double t_end, double dt, double rtol, double atol, test_rows *rows)
{
    int status;
    test_rows_init(rows, m);
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s != NULL, "create: %s", hydae_model_errmsg(m));
    if (!s)
        return -1;
    CHECK(hydae_sim_set_time(s, 0.0, t_end) == 0 && hydae_sim_set_output_interval(s, dt) == 0
              && hydae_sim_set_tolerances(s, rtol, atol) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, rows) == 0,
          "settings");
    status = hydae_sim_run(s);
    if (status != 0)
        fprintf(stderr, "run: %s\n", hydae_sim_errmsg(s));
    hydae_sim_free(s);
    return status;
}

static void same_as_c(const char *name, double t_end)
{
    hy_lang_unit *unit = compile_example(name);
    const hydae_example *ex = hydae_example_find(name);
    CHECK(ex != NULL, "no C example %s", name);
    if (!unit || !ex) {
        hy_lang_unit_free(unit);
        return;
    }
    hydae_model *from_file = hy_lang_unit_model(unit), *from_c = ex->build();
    CHECK(hydae_model_check(from_c) == 0, "%s: C model check", name);
    int n_columns = hydae_model_n_columns(from_c);
    CHECK(hydae_model_n_columns(from_file) == n_columns, "%s: %d columns, C has %d", name,
          hydae_model_n_columns(from_file), n_columns);
    for (int c = 0; c < n_columns && c < hydae_model_n_columns(from_file); c++)
        CHECK(strcmp(hydae_model_column_name(from_file, c), hydae_model_column_name(from_c, c)) == 0,
              "%s: column %d is '%s', C has '%s'", name, c, hydae_model_column_name(from_file, c),
              hydae_model_column_name(from_c, c));
    test_rows a, b;
    int status_file = run(from_file, t_end, 0.01, 1e-10, 1e-12, &a);
    int status_c = run(from_c, t_end, 0.01, 1e-10, 1e-12, &b);
    CHECK(status_file == 0 && status_c == 0, "%s: runs %d, %d", name, status_file, status_c);
    CHECK(a.n_rows == b.n_rows, "%s: %d rows, C has %d", name, a.n_rows, b.n_rows);
    double worst = 0.0, worst_event = 0.0;
    int n_events = 0;
    for (int i = 0; i < a.n_rows && i < b.n_rows; i++) {
        CHECK(a.kind[i] == b.kind[i], "%s: row %d is of kind %d, C %d", name, i, a.kind[i], b.kind[i]);
        double dt = fabs(a.t[i] - b.t[i]);
        if (a.kind[i] != HYDAE_ROW_GRID) {
            n_events += a.kind[i] == HYDAE_ROW_EVENT_RIGHT;
            worst_event = fmax(worst_event, dt / (1.0 + fabs(b.t[i])));
        } else {
            CHECK(dt == 0.0, "%s: grid row %d at t = %.17g, C at %.17g", name, i, a.t[i], b.t[i]);
        }
        for (int c = 0; c < n_columns; c++) {
            double va = test_value(&a, i, c), vb = test_value(&b, i, c);
            if (isnan(va) || isnan(vb)) {
                CHECK(isnan(va) && isnan(vb), "%s: row %d column %s: %g vs C %g", name, i,
                      hydae_model_column_name(from_c, c), va, vb);
                continue;
            }
            worst = fmax(worst, fabs(va - vb) / (1.0 + fabs(vb)));
        }
    }
    CHECK(worst <= 1e-6, "%s: values differ from C by %.3g (relative to 1 + |value|)", name, worst);
    CHECK(worst_event <= 1e-8, "%s: event times differ from C by %.3g", name, worst_event);
    printf("%-16s %5d rows, %2d events: largest difference %.2g, event times %.2g\n", name, a.n_rows,
           n_events, worst, worst_event);
    test_rows_free(&a);
    test_rows_free(&b);
    hydae_model_free(from_c);
    hy_lang_unit_free(unit);
}

/* An explicit mode: df/dy by central differences of f against its
** Jacobian, and F(t, y, f(t, y)) = 0. The largest relative difference. */
static double rhs_jacobian_matches(const char *name, int k, const hy_binding *mode, const double *p,
                                   int *n_compared)
{
    enum { MAX_N = 64 };
    int n = mode->n_unknowns;
    double y[MAX_N], f[MAX_N], res[MAX_N], f_plus[MAX_N], f_minus[MAX_N], jac[MAX_N * MAX_N];
    double worst = 0.0;
    CHECK(n <= MAX_N, "%s mode %d: %d unknowns", name, k, n);
    for (int state = 0; state < 4 && n <= MAX_N; state++) {
        double t = 0.021 + 0.29 * state;
        for (int j = 0; j < n; j++)
            y[j] = 0.5 + 0.45 * sin(1.7 * j + 1.9 * state + 0.3);
        CHECK(mode->ops->rhs(mode->code, t, y, p, f) == 0, "rhs");
        CHECK(mode->ops->residual(mode->code, t, y, f, p, res) == 0, "residual");
        for (int i = 0; i < n; i++)
            CHECK(fabs(res[i]) <= 1e-12 * (1.0 + fabs(f[i])), "%s mode %d: F(y, f(y))[%d] = %g", name,
                  k, i, res[i]);
        CHECK(mode->ops->rhs_jacobian(mode->code, t, y, p, jac) == 0, "rhs jacobian");
        for (int j = 0; j < n; j++) {
            double saved = y[j], h = 1e-5 * (1.0 + fabs(saved));
            y[j] = saved + h;
            mode->ops->rhs(mode->code, t, y, p, f_plus);
            y[j] = saved - h;
            mode->ops->rhs(mode->code, t, y, p, f_minus);
            y[j] = saved;
            for (int i = 0; i < n; i++) {
                double want = (f_plus[i] - f_minus[i]) / (2.0 * h), got = jac[i + j * n];
                double err = fabs(got - want) / fmax(1.0, fabs(want));
                CHECK(err <= 1e-6, "%s mode %d: df%d/dy%d = %.10g, differences give %.10g", name, k, i,
                      j, got, want);
                worst = fmax(worst, err);
                (*n_compared)++;
            }
        }
    }
    return worst;
}

/* dF/dy + cj dF/dy' by central differences against the mode's Jacobian. */
static void jacobian_matches(const char *name)
{
    hy_lang_unit *unit = compile_example(name);
    if (!unit)
        return;
    const double *p = unit->global_values;
    double worst = 0.0;
    int n_compared = 0;
    for (int k = 0; k < unit->n_modes; k++) {
        {
            const hy_binding *mode = &unit->modes[k];
            int n = mode->n_unknowns;
            if (n == 0)
                continue;
            double *y = calloc((size_t)n, sizeof *y), *yp = calloc((size_t)n, sizeof *yp);
            double *jac = calloc((size_t)n * (size_t)n, sizeof *jac);
            double *r_plus = calloc((size_t)n, sizeof *r_plus), *r_minus = calloc((size_t)n, sizeof *r_minus);
            if (!y || !yp || !jac || !r_plus || !r_minus)
                return;
            for (int state = 0; state < 4; state++) {
                double cj = 0.5 + 1.7 * state, t = 0.013 + 0.31 * state;
                for (int j = 0; j < n; j++) {
                    y[j] = 0.6 + 0.4 * sin(1.3 * j + 2.1 * state + 0.7);
                    yp[j] = 0.8 * cos(0.9 * j + 1.1 * state);
                }
                CHECK(mode->ops->jacobian(mode->code, t, cj, y, yp, p, jac) == 0, "jacobian");
                for (int j = 0; j < n; j++) {
                    double fd[2][64];
                    for (int which = 0; which < 2; which++) {
                        double *v = which == 0 ? y : yp, saved = v[j];
                        double h = 1e-5 * (1.0 + fabs(saved));
                        v[j] = saved + h;
                        mode->ops->residual(mode->code, t, y, yp, p, r_plus);
                        v[j] = saved - h;
                        mode->ops->residual(mode->code, t, y, yp, p, r_minus);
                        v[j] = saved;
                        for (int i = 0; i < n && i < 64; i++)
                            fd[which][i] = (r_plus[i] - r_minus[i]) / (2.0 * h);
                    }
                    for (int i = 0; i < n && i < 64; i++) {
                        double want = fd[0][i] + cj * fd[1][i], got = jac[i + j * n];
                        double err = fabs(got - want) / fmax(1.0, fabs(want));
                        CHECK(err <= 1e-6, "%s mode %d: J[%d][%d] = %.10g, differences give %.10g", name,
                              k, i, j, got, want);
                        worst = fmax(worst, err);
                        n_compared++;
                    }
                }
            }
            if (mode->is_explicit)
                worst = fmax(worst, rhs_jacobian_matches(name, k, mode, p, &n_compared));
            free(y);
            free(yp);
            free(jac);
            free(r_plus);
            free(r_minus);
        }
    }
    CHECK(n_compared > 0, "%s: no Jacobian compared", name);
    printf("%-20s Jacobian: %4d entries compared, largest relative difference %.2g\n", name,
           n_compared, worst);
    hy_lang_unit_free(unit);
}

/* The sampled PI loop against its exact recurrence: between ticks
** y = K u + (y_k - K u) exp(-(t - t_k)/tau). */
static void sampled_pi(void)
{
    hy_lang_unit *unit = compile_example("sampled_pi");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(run(m, 5.0, 0.01, 1e-10, 1e-12, &rows) == 0, "sampled_pi run");
    const double tau = 1, K = 2, Kp = 0.8, Ti = 0.5, r = 1, Ts = 0.1;
    int cy = test_column(m, "y"), cu = test_column(m, "u");
    CHECK(cy >= 0 && cu >= 0, "columns y, u");
    double worst = 0.0;
    int n_grid = 0;
    for (int i = 0; i < rows.n_rows && cy >= 0 && cu >= 0; i++) {
        if (rows.kind[i] != HYDAE_ROW_GRID)
            continue;
        double t = rows.t[i];
        /* Replay the recurrence up to the last tick at or before t. */
        double y = 0.0, u = 0.0, integral = 0.0, t_k = 0.0;
        /* The clock ticks at k * Ts exactly as the engine computes them. */
        int last_tick = (int)floor(t / Ts + 0.5);
        while (last_tick * Ts > t)
            last_tick--;
        while ((last_tick + 1) * Ts <= t)
            last_tick++;
        for (int k = 0; k <= last_tick; k++) {
            t_k = k * Ts;
            double e = r - y;
            u = Kp * (e + integral / Ti);
            integral += Ts * e;
            double t_next = (k + 1) * Ts;
            if (k < last_tick)
                y = K * u + (y - K * u) * exp(-(t_next - t_k) / tau);
        }
        double y_exact = K * u + (y - K * u) * exp(-(t - t_k) / tau);
        worst = fmax(worst, fmax(fabs(test_value(&rows, i, cy) - y_exact), fabs(test_value(&rows, i, cu) - u)));
        n_grid++;
    }
    CHECK(n_grid > 400, "sampled_pi: %d grid rows", n_grid);
    CHECK(worst <= 1e-6, "sampled_pi: off the zero-order-hold recurrence by %.3g", worst);
    printf("sampled_pi: %d grid rows, largest error %.2g\n", n_grid, worst);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

static void two_spring_masses(void)
{
    hy_lang_unit *unit = compile_example("two_spring_masses");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(run(m, 1.0, 0.001, 1e-10, 1e-12, &rows) == 0, "two_spring_masses run");
    int c1 = test_column(m, "x1"), c2 = test_column(m, "x2");
    CHECK(c1 >= 0 && c2 >= 0, "columns x1, x2");
    /* x1: damped oscillation, decay rate C1/(2 M1) = 1, frequency sqrt(1e4 - 1).
    ** x2: critically damped, double eigenvalue -1e4. */
    const double wd = sqrt(1e4 - 1.0);
    double worst = 0.0;
    for (int i = 0; i < rows.n_rows && c1 >= 0 && c2 >= 0; i++) {
        double t = rows.t[i];
        double x1 = exp(-t) * (0.1 * cos(wd * t) + 0.1 / wd * sin(wd * t));
        double x2 = (0.1 + 1e4 * 0.1 * t) * exp(-1e4 * t);
        worst = fmax(worst, fmax(fabs(test_value(&rows, i, c1) - x1), fabs(test_value(&rows, i, c2) - x2)));
    }
    CHECK(worst <= 1e-6, "two_spring_masses: off the closed form by %.3g", worst);
    printf("two_spring_masses: largest error %.2g\n", worst);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

static void rectifier(void)
{
    hy_lang_unit *unit = compile_example("half_wave_rectifier");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(run(m, 0.1, 1e-4, 1e-9, 1e-11, &rows) == 0, "rectifier run");
    int cv = test_column(m, "vc"), ci = test_column(m, "i");
    CHECK(cv >= 0 && ci >= 0, "columns vc, i");
    const double RC = 1000 * 100e-6;
    double worst = 0.0, t_off = -1.0, v_off = 0.0;
    int n_blocking_rows = 0, n_off = 0;
    for (int i = 0; i < rows.n_rows && cv >= 0 && ci >= 0; i++) {
        if (rows.kind[i] == HYDAE_ROW_EVENT_LEFT)
            continue;
        if (rows.kind[i] == HYDAE_ROW_EVENT_RIGHT) {
            int blocking = test_value(&rows, i, ci) == 0.0 && i > 0 && test_value(&rows, i - 1, ci) != 0.0;
            t_off = blocking ? rows.t[i] : -1.0;
            v_off = test_value(&rows, i, cv);
            n_off += blocking;
            continue;
        }
        if (t_off < 0)
            continue;
        double v_exact = v_off * exp(-(rows.t[i] - t_off) / RC);
        worst = fmax(worst, fabs(test_value(&rows, i, cv) - v_exact));
        n_blocking_rows++;
    }
    CHECK(n_off >= 4, "rectifier: the diode stopped conducting %d times in 5 periods", n_off);
    CHECK(n_blocking_rows > 100, "rectifier: %d rows while blocking", n_blocking_rows);
    CHECK(worst <= 1e-6, "rectifier: discharge off exp(-t/RC) by %.3g V", worst);
    printf("half_wave_rectifier: %d turn-offs, %d blocking rows, largest error %.2g V\n", n_off,
           n_blocking_rows, worst);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

static void if_expression(void)
{
    static const char source[] =
        "model ifm\n"
        "  Real x(start = 0), y(start = 0);\n"
        "equation\n"
        "  der(x) = 1;\n"
        "  der(y) = if x > 1 and time < 3 then 2 else 0;\n"
        "end ifm;\n";
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(source, sizeof source - 1, "ifm.hym", stderr, NULL,
                                                &n_errors);
    CHECK(unit != NULL, "if-expression model: %d errors", n_errors);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(run(m, 4.0, 0.05, 1e-10, 1e-12, &rows) == 0, "if-expression run");
    int cy = test_column(m, "y");
    CHECK(cy >= 0, "column y");
    double worst = 0.0;
    int n_events = 0;
    for (int i = 0; i < rows.n_rows && cy >= 0; i++) {
        double t = rows.t[i], want = 2.0 * fmin(fmax(t - 1.0, 0.0), 2.0);
        worst = fmax(worst, fabs(test_value(&rows, i, cy) - want));
        if (rows.kind[i] == HYDAE_ROW_EVENT_RIGHT) {
            n_events++;
            CHECK(fabs(t - 1.0) < 1e-9 || fabs(t - 3.0) < 1e-9, "if-expression: event at t = %.17g", t);
        }
    }
    CHECK(n_events == 2, "if-expression: %d events, want 2", n_events);
    CHECK(worst <= 1e-8, "if-expression: y off 2 clamp(t - 1, 0, 2) by %.3g", worst);
    printf("if-expression: %d events, largest error %.2g\n", n_events, worst);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    same_as_c("string_pendulum", 12.0);
    same_as_c("bouncing_ball", 3.5);
    same_as_c("relay", 10.0);
    same_as_c("algebraic_loop", 2.0);
    static const char *const all[] = { "string_pendulum", "bouncing_ball", "relay", "algebraic_loop",
                                       "half_wave_rectifier", "sampled_pi", "two_spring_masses",
                                       "ideal_rectifier", "quantizer" };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        jacobian_matches(all[i]);
    sampled_pi();
    two_spring_masses();
    rectifier();
    if_expression();
    return CHECK_DONE();
}
