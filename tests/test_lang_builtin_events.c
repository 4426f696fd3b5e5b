/*
** Events from built-in functions (src/lang/sema_expr.c, event_function):
** abs, sign, min and max of unknowns or time in equations switch at
** located crossings (Modelica's event semantics), noEvent(...) keeps the
** plain function. Against closed forms:
**  - der(x) = max(x, 0.5), x(0) = 0.25: x = 0.25 + t / 2 until t = 0.5,
**    then 0.5 e^(t - 0.5); one event, at t = 0.5;
**  - der(y) = abs(time - 1): y = t - t^2 / 2, then 1/2 + (t - 1)^2 / 2;
**  - der(z) = sign(cos(time)): the triangle wave of slope +-1 with
**    corners at pi/2 + k pi;
** and the same models with noEvent(...) take no events and reject at least
** as many steps (the statistics). Then floor, ceil and mod of time:
**  - der(a) = floor(time): a = n (n - 1) / 2 + n (t - n), n = floor(t);
**  - der(b) = ceil(time): b = n (n + 1) / 2 + (n + 1)(t - n);
**  - der(c) = mod(time, 0.75): c = q P^2 / 2 + r^2 / 2, q = floor(t / P),
**    r = t - q P, P = 0.75;
** their events are the integers and the multiples of 0.75 (11 instants
** before t = 5.9) and ceil's jump just after t = 0 (ceil(0) = 0, 1 after):
** 12. Then integer (floor), div and rem (truncation toward zero, Modelica
** 3.7 section 3.7.2) of time and of a state, through zero and below:
**  - der(a) = integer(2.25 - time), der(b) = div(2.5 - time, 1.5),
**    der(c) = rem(2.75 - time, 1): piecewise constant or linear in t, so
**    integrated exactly by the midpoint rule between the crossings;
**  - x = 2.5 cos t (der(x) = v, der(v) = -x), der(d) = div(x, 1),
**    der(r) = rem(x, 1): d integrates trunc(2.5 cos s) between the
**    instants acos(+-0.8), acos(+-0.4) (and 2 pi minus them), and r =
**    2.5 sin t - d;
**  - der(k) = rem(-7, 3) + 10 div(-7, 3) + 100 integer(-2.5) = -1 - 20 -
**    300 (Modelica's examples' signs), so k = -321 t.
** Truncation steps at nonzero integers only (div(2.5 - t, 1.5) keeps 0
** from t = 1 to 4): 6 + 3 + 5 time events and 8 of x, each at its instant.
*/
#include "lang/lang_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.141592653589793;

static double closed_x(double t)
{
    return t <= 0.5 ? 0.25 + t / 2 : 0.5 * exp(t - 0.5);
}

static double closed_y(double t)
{
    return t <= 1 ? t - t * t / 2 : 0.5 + (t - 1) * (t - 1) / 2;
}

static double closed_z(double t)
{
    /* +1 on (-pi/2, pi/2) + 2k pi, -1 between: a triangle wave of height 1 */
    double s = fmod(t + PI / 2, 2 * PI); /* time since the last rising corner */
    return s <= PI ? s - PI / 2 : 3 * PI / 2 - s;
}

/* text compiled and run with DSTIFF (rtol = atol = 1e-9, a row every 0.01)
** to t_end: its unit (NULL after a CHECK failed), rows and statistics. */
static hy_lang_unit *compile_run(const char *text, double t_end, test_rows *rows,
                                 hydae_stats *st)
{
    hy_lang_unit *unit = lang_check_compile(text, "builtins.hym");
    memset(st, 0, sizeof *st);
    if (!unit)
        return NULL;
    CHECK(test_run_stats(hy_lang_unit_model(unit), "DSTIFF", t_end, 0.01, 1e-9, 1e-9, rows, st)
              == 0,
          "run");
    return unit;
}

static void run(const char *wrap_open, const char *wrap_close, hydae_stats *st, double *worst,
                double *first_event)
{
    char text[2048];
    snprintf(text, sizeof text,
             "model builtins\n"
             "  Real x(start = 0.25), y(start = 0), z(start = 0);\n"
             "equation\n"
             "  der(x) = %smax(x, 0.5)%s;\n"
             "  der(y) = %sabs(time - 1)%s;\n"
             "  der(z) = %ssign(cos(time))%s;\n"
             "end builtins;\n",
             wrap_open, wrap_close, wrap_open, wrap_close, wrap_open, wrap_close);
    test_rows rows;
    *worst = INFINITY;
    *first_event = NAN;
    hy_lang_unit *unit = compile_run(text, 6.0, &rows, st);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    int cx = test_column(m, "x"), cy = test_column(m, "y"), cz = test_column(m, "z");
    *worst = 0;
    for (int r = 0; r < rows.n_rows && cx >= 0 && cy >= 0 && cz >= 0; r++) {
        double t = rows.t[r];
        if (rows.kind[r] == HYDAE_ROW_EVENT_LEFT && isnan(*first_event))
            *first_event = t;
        if (t > 1.0)
            continue; /* x grows as e^t: compared up to t = 1 */
        *worst = test_worse(*worst, fabs(test_value(&rows, r, cx) - closed_x(t)));
    }
    for (int r = 0; r < rows.n_rows && cy >= 0 && cz >= 0; r++) {
        double t = rows.t[r];
        *worst = test_worse(*worst, fabs(test_value(&rows, r, cy) - closed_y(t)));
        *worst = test_worse(*worst, fabs(test_value(&rows, r, cz) - closed_z(t)));
    }
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

static double closed_floor(double t)
{
    double n = floor(t);
    return n * (n - 1) / 2 + n * (t - n);
}

static double closed_ceil(double t)
{
    double n = floor(t);
    return n * (n + 1) / 2 + (n + 1) * (t - n);
}

static double closed_mod(double t)
{
    double P = 0.75, q = floor(t / P), r = t - q * P;
    return q * P * P / 2 + r * r / 2;
}

static void run_integer(const char *open, const char *close, hydae_stats *st, double *worst)
{
    char text[2048];
    snprintf(text, sizeof text,
             "model integer_parts\n"
             "  Real a(start = 0), b(start = 0), c(start = 0);\n"
             "equation\n"
             "  der(a) = %sfloor(time)%s;\n"
             "  der(b) = %sceil(time)%s;\n"
             "  der(c) = %smod(time, 0.75)%s;\n"
             "end integer_parts;\n",
             open, close, open, close, open, close);
    test_rows rows;
    *worst = INFINITY;
    hy_lang_unit *unit = compile_run(text, 5.9, &rows, st);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    int ca = test_column(m, "a"), cb = test_column(m, "b"), cc = test_column(m, "c");
    *worst = 0;
    for (int r = 0; r < rows.n_rows && ca >= 0 && cb >= 0 && cc >= 0; r++) {
        double t = rows.t[r];
        *worst = test_worse(*worst, fabs(test_value(&rows, r, ca) - closed_floor(t)));
        *worst = test_worse(*worst, fabs(test_value(&rows, r, cb) - closed_ceil(t)));
        *worst = test_worse(*worst, fabs(test_value(&rows, r, cc) - closed_mod(t)));
    }
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

/* The instants where the integer parts of the truncation model change:
** 2.25 - t crosses an integer, (2.5 - t) / 1.5 a nonzero one, 2.75 - t a
** nonzero one, 2.5 cos t one of +-1, +-2; sorted, below t_end = 5.9. */
enum { N_TRUNC_EVENTS = 22 };

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void trunc_event_instants(double instants[N_TRUNC_EVENTS])
{
    int n = 0;
    for (int k = 0; k < 6; k++)
        instants[n++] = 0.25 + k;          /* integer(2.25 - t) */
    instants[n++] = 1.0;                   /* div(2.5 - t, 1.5): 1, -1, -2 */
    instants[n++] = 4.0;
    instants[n++] = 5.5;
    for (int k = 0; k < 5; k++)
        instants[n++] = 0.75 + k + (k >= 2); /* rem(2.75 - t, 1): not at 2.75 */
    static const double levels[4] = { 0.8, 0.4, -0.4, -0.8 }; /* x / 2.5 */
    for (int k = 0; k < 4; k++) {
        instants[n++] = acos(levels[k]);
        instants[n++] = 2 * PI - acos(levels[k]);
    }
    qsort(instants, (size_t)n, sizeof instants[0], compare_doubles);
}

static double integer_part_a(double t) { return floor(2.25 - t); }
static double div_b(double t) { return trunc((2.5 - t) / 1.5); }
static double rem_c(double t) { return (2.75 - t) - trunc(2.75 - t); }
static double div_x(double t) { return trunc(2.5 * cos(t)); }

/* The integral over [0, t] of g, constant or linear between the instants
** (or their sub-intervals): the midpoint rule is exact on each piece. */
static double piecewise_integral(double (*g)(double), const double *instants, int n, double t)
{
    double sum = 0, from = 0;
    for (int k = 0; k <= n && from < t; k++) {
        double to = k < n && instants[k] < t ? instants[k] : t;
        sum += (to - from) * g((from + to) / 2);
        from = to;
    }
    return sum;
}

/* The truncation model with its functions wrapped in open ... close, run
** to 5.9: statistics, the largest error against the closed forms, and how
** many event rows fell off the expected instants (by more than 1e-7). */
static void run_truncation(const char *open, const char *close, hydae_stats *st, double *worst,
                           int *n_misplaced)
{
    char text[2048];
    snprintf(text, sizeof text,
             "model truncation\n"
             "  Real a(start = 0), b(start = 0), c(start = 0), k(start = 0);\n"
             "  Real x(start = 2.5), v(start = 0), d(start = 0), r(start = 0);\n"
             "equation\n"
             "  der(a) = %sinteger(2.25 - time)%s;\n"
             "  der(b) = %sdiv(2.5 - time, 1.5)%s;\n"
             "  der(c) = %srem(2.75 - time, 1)%s;\n"
             "  der(k) = rem(-7, 3) + 10 * div(-7, 3) + 100 * integer(-2.5);\n"
             "  der(x) = v;\n"
             "  der(v) = -x;\n"
             "  der(d) = %sdiv(x, 1)%s;\n"
             "  der(r) = %srem(x, 1)%s;\n"
             "end truncation;\n",
             open, close, open, close, open, close, open, close, open, close);
    double instants[N_TRUNC_EVENTS];
    trunc_event_instants(instants);
    test_rows rows;
    *worst = INFINITY;
    *n_misplaced = -1;
    hy_lang_unit *unit = compile_run(text, 5.9, &rows, st);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    int col[6] = { test_column(m, "a"), test_column(m, "b"), test_column(m, "c"),
                   test_column(m, "k"), test_column(m, "d"), test_column(m, "r") };
    int found = 1;
    for (int i = 0; i < 6; i++)
        found &= col[i] >= 0;
    *worst = 0;
    *n_misplaced = 0;
    for (int row = 0; row < rows.n_rows && found; row++) {
        double t = rows.t[row], d = piecewise_integral(div_x, instants, N_TRUNC_EVENTS, t);
        double closed[6] = { piecewise_integral(integer_part_a, instants, N_TRUNC_EVENTS, t),
                             piecewise_integral(div_b, instants, N_TRUNC_EVENTS, t),
                             piecewise_integral(rem_c, instants, N_TRUNC_EVENTS, t), -321 * t, d,
                             2.5 * sin(t) - d };
        for (int i = 0; i < 6; i++)
            *worst = test_worse(*worst, fabs(test_value(&rows, row, col[i]) - closed[i]));
        if (rows.kind[row] != HYDAE_ROW_EVENT_LEFT)
            continue;
        double nearest = INFINITY;
        for (int e = 0; e < N_TRUNC_EVENTS; e++)
            nearest = fmin(nearest, fabs(t - instants[e]));
        *n_misplaced += !(nearest < 1e-7); /* x's crossings carry its error, ~1e-8 */
    }
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

static void truncation(void)
{
    hydae_stats with_events, without;
    double worst, worst_plain;
    int n_misplaced, n_misplaced_plain;
    run_truncation("", "", &with_events, &worst, &n_misplaced);
    run_truncation("noEvent(", ")", &without, &worst_plain, &n_misplaced_plain);
    CHECK(with_events.n_events == N_TRUNC_EVENTS, "integer, div, rem: %ld events, expected %d",
          with_events.n_events, (int)N_TRUNC_EVENTS);
    CHECK(n_misplaced == 0, "%d events off their instants", n_misplaced);
    CHECK(worst < 1e-7, "integer, div, rem off the closed forms by %.3g", worst);
    CHECK(without.n_events == 0 && with_events.n_rejected <= without.n_rejected,
          "noEvent: %ld events; rejected steps %ld with events, %ld without", without.n_events,
          with_events.n_rejected, without.n_rejected);
    printf("integer, div, rem of time and of a state: %ld events at their instants, closed forms "
           "within %.2g; rejected steps %ld (events) vs %ld (noEvent, within %.2g)\n",
           with_events.n_events, worst, with_events.n_rejected, without.n_rejected, worst_plain);
}

/* smooth_step(time, 1, 0, 2, 1) (C1, MotionSolve's STEP) and smooth_step5
** (C2): their integrals d^3 - d^4 / 2 and 5 d^4 / 2 - 3 d^5 + d^6 on
** d = t - 1 in [0, 1], 0 before, 1/2 + (t - 2) after; no events. */
static void smooth_steps(void)
{
    static const char text[] =
        "model steps\n"
        "  Real x(start = 0), y(start = 0);\n"
        "equation\n"
        "  der(x) = smooth_step(time, 1, 0, 2, 1);\n"
        "  der(y) = smooth_step5(time, 1, 0, 2, 1);\n"
        "end steps;\n";
    hy_lang_unit *unit = lang_check_compile(text, "steps.hym");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, "DSTIFF", 3.0, 0.01, 1e-10, 1e-10, &rows) == 0, "smooth steps run");
    int cx = test_column(m, "x"), cy = test_column(m, "y"), n_events = 0;
    double worst = 0;
    for (int r = 0; r < rows.n_rows && cx >= 0 && cy >= 0; r++) {
        double t = rows.t[r], d = t - 1, x, y;
        n_events += rows.kind[r] == HYDAE_ROW_EVENT_LEFT;
        if (t <= 1) {
            x = y = 0;
        } else if (t <= 2) {
            x = d * d * d - d * d * d * d / 2;
            y = 2.5 * d * d * d * d - 3 * d * d * d * d * d + d * d * d * d * d * d;
        } else {
            x = y = 0.5 + (t - 2);
        }
        worst = test_worse(worst, fabs(test_value(&rows, r, cx) - x));
        worst = test_worse(worst, fabs(test_value(&rows, r, cy) - y));
    }
    CHECK(n_events == 0 && worst < 1e-7, "smooth steps: %d events, off the closed forms by %.3g",
          n_events, worst);
    printf("smooth_step, smooth_step5: no events, closed forms within %.2g\n", worst);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

/* Relations of algebraic unknowns whose start values are not their
** consistent values (the default start 0): the hidden variables follow the
** consistent values at t0 and on entering a mode, not the start values
** (a relation computed from v = 0 held i = 0 for the whole run before).
**   i = if v > 0 then v / 2 else 0, v = 5 - t: i = max(5 - t, 0) / 2;
**   y' = floor(x), x = 3 cos t + 0.5: y piecewise linear, switching where
**   x passes an integer (cos t = (n - 0.5) / 3);
**   in mode `late`, entered at t = 1: w = 10 - t and z' = if w > 5 then 1
**   else 0, so z = t - 1 from the entry until t = 5, then constant. */
static void inconsistent_starts(void)
{
    static const char text[] =
        "model starts\n"
        "  Real v, i, x, y(start = 0);\n"
        "equation\n"
        "  v = 5 - time;\n"
        "  i = if v > 0 then v / 2 else 0;\n"
        "  x = 3 * cos(time) + 0.5;\n"
        "  der(y) = floor(x);\n"
        "  initial mode early\n"
        "  end early;\n"
        "  mode late\n"
        "    Real w, z(start = 0);\n"
        "  equation\n"
        "    w = 10 - time;\n"
        "    der(z) = if w > 5 then 1 else 0;\n"
        "  end late;\n"
        "  transition go from early to late when time >= 1 end;\n"
        "end starts;\n";
    test_rows rows;
    hydae_stats st;
    hy_lang_unit *unit = compile_run(text, 6.0, &rows, &st);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    /* floor(x) changes where cos t = (n - 0.5) / 3, n = -2 .. 3: at acos(c)
    ** and 2 pi - acos(c); between, it is constant (taken at the middle). */
    double breaks[16];
    int n_breaks = 0;
    breaks[n_breaks++] = 0.0;
    for (int n = -2; n <= 3; n++) {
        double a = acos((n - 0.5) / 3.0);
        breaks[n_breaks++] = a;
        breaks[n_breaks++] = 2 * PI - a;
    }
    breaks[n_breaks++] = 6.0;
    for (int a = 1; a < n_breaks; a++) /* insertion sort */
        for (int b = a; b > 0 && breaks[b] < breaks[b - 1]; b--) {
            double swap = breaks[b];
            breaks[b] = breaks[b - 1];
            breaks[b - 1] = swap;
        }
    double worst_i = 0.0, worst_y = 0.0, worst_z = 0.0;
    for (int r = 0; r < rows.n_rows; r++) {
        double t = rows.t[r];
        if (rows.kind[r] == HYDAE_ROW_EVENT_LEFT || t == 0.0)
            continue; /* the left limits at an event, the start values at t0 */
        worst_i = test_worse(worst_i, fabs(lang_check_value(m, &rows, r, "i")
                                           - (t < 5.0 ? (5.0 - t) / 2.0 : 0.0)));
        double y = 0.0;
        for (int b = 0; b + 1 < n_breaks && breaks[b] < t; b++) {
            double lo = breaks[b], hi = fmin(breaks[b + 1], t);
            y += floor(3 * cos(0.5 * (breaks[b] + breaks[b + 1])) + 0.5) * (hi - lo);
        }
        worst_y = test_worse(worst_y, fabs(lang_check_value(m, &rows, r, "y") - y));
        if (t > 1.0)
            worst_z = test_worse(worst_z, fabs(lang_check_value(m, &rows, r, "z")
                                               - (fmin(t, 5.0) - 1.0)));
    }
    printf("relations of algebraic unknowns from inconsistent starts: i within %.2g, y within "
           "%.2g, z (mode entered at t = 1) within %.2g\n", worst_i, worst_y, worst_z);
    CHECK(worst_i < 1e-8, "if on v from its consistent value at t0: off by %g", worst_i);
    CHECK(worst_y < 1e-7, "floor of x from its consistent value at t0: off by %g", worst_y);
    CHECK(worst_z < 1e-7, "if on w from its consistent value on entry: off by %g", worst_z);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

int main(void)
{
    inconsistent_starts();
    smooth_steps();
    hydae_stats with_events, without;
    double worst_events, worst_plain, first_event, first_plain;
    run("", "", &with_events, &worst_events, &first_event);
    run("noEvent(", ")", &without, &worst_plain, &first_plain);
    /* max switches at t = 0.5, abs at 1, sign at pi/2 and 3 pi/2 (5 pi/2 > 6) */
    CHECK(with_events.n_events == 4, "%ld events, expected 4", with_events.n_events);
    CHECK(fabs(first_event - 0.5) < 1e-9, "max(x, 0.5) switched at t = %.17g", first_event);
    CHECK(worst_events < 1e-7, "off the closed forms by %.3g", worst_events);
    CHECK(without.n_events == 0, "noEvent: %ld events", without.n_events);
    CHECK(with_events.n_rejected <= without.n_rejected, "rejected steps: %ld with events, %ld "
          "with noEvent", with_events.n_rejected, without.n_rejected);
    printf("built-in events: 4 events, first at %.3g, closed forms within %.2g; rejected steps "
           "%ld (events) vs %ld (noEvent, within %.2g)\n", first_event, worst_events,
           with_events.n_rejected, without.n_rejected, worst_plain);
    double worst_int, worst_int_plain;
    run_integer("", "", &with_events, &worst_int);
    run_integer("noEvent(", ")", &without, &worst_int_plain);
    CHECK(with_events.n_events == 12, "floor, ceil, mod: %ld events, expected 12",
          with_events.n_events);
    CHECK(worst_int < 1e-7, "floor, ceil, mod off the closed forms by %.3g", worst_int);
    CHECK(without.n_events == 0 && with_events.n_rejected <= without.n_rejected,
          "noEvent: %ld events; rejected steps %ld with events, %ld without", without.n_events,
          with_events.n_rejected, without.n_rejected);
    printf("floor, ceil, mod of time: 12 events, closed forms within %.2g; rejected steps %ld "
           "(events) vs %ld (noEvent, within %.2g)\n", worst_int, with_events.n_rejected,
           without.n_rejected, worst_int_plain);
    truncation();
    return CHECK_DONE();
}
