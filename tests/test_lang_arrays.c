/*
** Arrays and for-loops in model files (src/lang/unroll.c), against closed
** forms and against the same system written by hand in C:
**  - the heat rod (examples/heat_rod.hym, method of lines) follows the
**    exact solution of its semi-discrete system, T_i(t) = exp(-lambda t)
**    sin(pi x_i), lambda = (4/dx^2) sin^2(pi dx / 2), at N = 100 and
**    N = 10^4, and its output sum() is the mean of that solution;
**  - the Brusselator with arrays (examples/brusselator.hym) equals the C
**    model of examples/brusselator.c (analytic Jacobian, interleaved
**    unknowns) at every output point;
**  - for-loops in actions, nested loops, nested reductions and array
**    constructors give the values they spell out.
*/
#include "check.h"
#include "examples.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "rows.h"

#include <math.h>

static char source_dir[1024];

/* text (freed) with its first `from` replaced by `to`. */
static char *replace_text(char *text, const char *name, const char *from, const char *to)
{
    if (!text || !from)
        return text;
    char *at = strstr(text, from);
    CHECK(at != NULL, "%s: no '%s'", name, from);
    if (!at)
        return text;
    size_t head = (size_t)(at - text), tail = strlen(at + strlen(from));
    char *out = malloc(head + strlen(to) + tail + 1);
    memcpy(out, text, head);
    memcpy(out + head, to, strlen(to));
    memcpy(out + head + strlen(to), at + strlen(from), tail + 1);
    free(text);
    return out;
}

/* The example's text with its first `from` replaced by `to`. */
static char *example_text(const char *name, const char *from, const char *to)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/examples/%s.hym", source_dir, name);
    size_t length;
    char *text = lang_test_read(path, &length);
    CHECK(text != NULL, "cannot read %s", path);
    return replace_text(text, name, from, to);
}

static hy_lang_unit *compile(const char *text, const char *name)
{
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(text, strlen(text), name, stderr, NULL, &n_errors);
    CHECK(unit != NULL, "%s: %d errors", name, n_errors);
    return unit;
}

/* slices: the interior equations as one equation between slices, the
** mean as sum(T) (whole-array expressions), the same model. */
static void heat_rod(long n, double t_end, const char *solver, int slices)
{
    char size[64];
    snprintf(size, sizeof size, "constant Real N = %ld;", n);
    char *text = example_text("heat_rod", "constant Real N = 100;", size);
    if (slices) {
        text = replace_text(text, "heat_rod", "  for i in 2:N - 1 loop\n"
                            "    der(T[i]) = (T[i - 1] - 2 * T[i] + T[i + 1]) / dx^2;\n"
                            "  end for;\n",
                            "  der(T[2:N - 1]) = (T[1:N - 2] - 2 * T[2:N - 1] + T[3:N]) / dx^2;\n");
        text = replace_text(text, "heat_rod", "sum(T[i] for i in 1:N) / N", "sum(T) / N");
    }
    hy_lang_unit *unit = text ? compile(text, "heat_rod.hym") : NULL;
    free(text);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    int status = test_run(m, solver, t_end, t_end, 1e-8, 1e-10, &rows);
    CHECK(status == 0, "heat rod N = %ld (%s): status %d", n, solver, status);
    double dx = 1.0 / (double)(n + 1), pi = 3.141592653589793;
    double lambda = 4.0 / (dx * dx) * pow(sin(pi * dx / 2.0), 2);
    int last = rows.n_rows - 1;
    CHECK(last > 0 && fabs(rows.t[last] - t_end) < 1e-12, "heat rod: ends at %g",
          last >= 0 ? rows.t[last] : -1.0);
    double worst = 0.0, mean = 0.0;
    for (long i = 1; i <= n && last > 0; i++) {
        char name[32];
        snprintf(name, sizeof name, "T[%ld]", i);
        int c = test_column(m, name);
        CHECK(c >= 0, "no column %s", name);
        if (c < 0)
            break;
        double exact = exp(-lambda * t_end) * sin(pi * (double)i * dx);
        worst = test_worse(worst, fabs(test_value(&rows, last, c) - exact));
        mean += exact / (double)n;
    }
    int c_mean = test_column(m, "T_mean");
    CHECK(worst < 1e-6, "heat rod N = %ld (%s): max error %.3g", n, solver, worst);
    CHECK(c_mean >= 0 && last > 0 && fabs(test_value(&rows, last, c_mean) - mean) < 1e-6,
          "heat rod: T_mean %.12g, exact %.12g", c_mean >= 0 && last > 0
              ? test_value(&rows, last, c_mean) : NAN, mean);
    printf("heat rod N = %ld, %s%s: max |T_i - exact| = %.3g at t = %g\n", n, solver,
           slices ? " (slices)" : "", worst, t_end);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

static void brusselator_as_c(long m_points)
{
    char size[64];
    snprintf(size, sizeof size, "constant Real M = %ld;", m_points);
    char *text = example_text("brusselator", "constant Real M = 100;", size);
    hy_lang_unit *unit = text ? compile(text, "brusselator.hym") : NULL;
    free(text);
    hydae_model *from_c = example_brusselator_sized(m_points, 1);
    CHECK(from_c != NULL, "C Brusselator");
    if (!unit || !from_c) {
        hy_lang_unit_free(unit);
        hydae_model_free(from_c);
        return;
    }
    hydae_model *from_file = hy_lang_unit_model(unit);
    CHECK(hydae_model_check(from_c) == 0, "C Brusselator: %s", hydae_model_errmsg(from_c));
    test_rows a, b;
    hydae_stats file_stats, c_stats;
    CHECK(test_run_stats(from_file, "DSTIFF", 10.0, 1.0, 1e-9, 1e-9, &a, &file_stats) == 0,
          "Brusselator .hym run");
    CHECK(test_run_stats(from_c, "DSTIFF", 10.0, 1.0, 1e-9, 1e-9, &b, &c_stats) == 0,
          "Brusselator C run");
    /* u[1..M] then v[1..M]: a band of width M, which the band solver
    ** narrows by reverse Cuthill-McKee (docs/solver.md) instead of KLU; the
    ** C model's interleaved unknowns are narrow already. */
    CHECK(file_stats.n_band_orderings >= 1 && file_stats.n_symbolic_analyses == 0,
          "Brusselator .hym: %ld band orderings, %ld KLU analyses", file_stats.n_band_orderings,
          file_stats.n_symbolic_analyses);
    CHECK(c_stats.n_band_orderings == 0 && c_stats.n_symbolic_analyses == 0,
          "Brusselator C: %ld band orderings, %ld KLU analyses", c_stats.n_band_orderings,
          c_stats.n_symbolic_analyses);
    CHECK(a.n_rows == b.n_rows && a.n_rows == 11, "rows %d and %d", a.n_rows, b.n_rows);
    double worst = 0.0;
    for (long i = 1; i <= m_points; i++)
        for (int uv = 0; uv < 2; uv++) {
            char file_name[32], c_name[32];
            snprintf(file_name, sizeof file_name, "%c[%ld]", uv ? 'v' : 'u', i);
            snprintf(c_name, sizeof c_name, "%c%ld", uv ? 'v' : 'u', i);
            int ca = test_column(from_file, file_name), cb = test_column(from_c, c_name);
            CHECK(ca >= 0 && cb >= 0, "columns %s / %s", file_name, c_name);
            for (int r = 0; r < a.n_rows && r < b.n_rows && ca >= 0 && cb >= 0; r++) {
                CHECK(a.t[r] == b.t[r], "row %d at t = %g and %g", r, a.t[r], b.t[r]);
                worst = test_worse(worst, fabs(test_value(&a, r, ca) - test_value(&b, r, cb)));
            }
        }
    CHECK(worst < 1e-6, "Brusselator M = %ld: .hym and C differ by %.3g", m_points, worst);
    printf("Brusselator M = %ld: .hym vs C, max difference %.3g\n", m_points, worst);
    test_rows_free(&a);
    test_rows_free(&b);
    hy_lang_unit_free(unit);
    hydae_model_free(from_c);
}

/* Loops in actions, nested loops and reductions, constructors. */
static void spelled_out(void)
{
    static const char text[] =
        "model spelled\n"
        "  constant Real n = 3;\n"
        "  Real x[n](start = {1, 2, 3});\n"
        "  Real w[2 * n](start = {i^2 for i in 1:2 * n});\n"
        "equation\n"
        "  for i in 1:n loop\n"
        "    der(x[i]) = 1;\n"
        "  end for;\n"
        "  for k in 1:2 loop\n"
        "    for j in 1:n loop\n"
        "      der(w[(k - 1) * n + j]) = k * j;\n"
        "    end for;\n"
        "  end for;\n"
        "  output s = sum(sum(i * j for j in 1:n) for i in 1:2);\n"
        "  output p = product(x[i] for i in 1:n);\n"
        "  output top = max(w[i] for i in 1:2 * n);\n"
        "  transition reset when time >= 1 do\n"
        "    for i in 1:n loop\n"
        "      x[i] := 10 * i;\n"
        "    end for;\n"
        "  end;\n"
        "end spelled;\n";
    hy_lang_unit *unit = compile(text, "spelled.hym");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, "RK45", 2.0, 0.5, 1e-10, 1e-12, &rows) == 0, "spelled run");
    int last = rows.n_rows - 1;
    CHECK(last > 0 && rows.t[last] == 2.0, "ends at %g", last > 0 ? rows.t[last] : -1.0);
    for (int i = 1; i <= 3 && last > 0; i++) {
        char name[16];
        snprintf(name, sizeof name, "x[%d]", i);
        int c = test_column(m, name);
        CHECK(c >= 0 && fabs(test_value(&rows, last, c) - (10.0 * i + 1.0)) < 1e-9,
              "%s = %g after the reset, expected %g", name,
              c >= 0 ? test_value(&rows, last, c) : NAN, 10.0 * i + 1.0);
    }
    for (int k = 1; k <= 2 && last > 0; k++)
        for (int j = 1; j <= 3; j++) {
            int i = (k - 1) * 3 + j;
            char name[16];
            snprintf(name, sizeof name, "w[%d]", i);
            int c = test_column(m, name);
            double expected = (double)(i * i) + 2.0 * k * j;
            CHECK(c >= 0 && fabs(test_value(&rows, last, c) - expected) < 1e-9,
                  "%s = %g, expected %g", name, c >= 0 ? test_value(&rows, last, c) : NAN,
                  expected);
        }
    int cs = test_column(m, "s"), cp = test_column(m, "p"), ct = test_column(m, "top");
    CHECK(cs >= 0 && test_value(&rows, 0, cs) == 18.0, "s = %g, expected 18",
          cs >= 0 ? test_value(&rows, 0, cs) : NAN);
    CHECK(cp >= 0 && test_value(&rows, 0, cp) == 6.0, "p = %g at t = 0, expected 6",
          cp >= 0 ? test_value(&rows, 0, cp) : NAN);
    CHECK(ct >= 0 && fabs(test_value(&rows, last, ct) - (36.0 + 12.0)) < 1e-9,
          "top = %g, expected 48", ct >= 0 ? test_value(&rows, last, ct) : NAN);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

/* Equations between whole arrays and slices, reductions of arrays, and an
** assignment to a whole array, against the closed form x_i = x_i(0)
** exp(-k t) (and x = 0 after the reset at t = 1). */
static void whole_arrays(void)
{
    static const char text[] =
        "model whole\n"
        "  constant Real n = 5;\n"
        "  parameter Real k = 0.5;\n"
        "  Real x[n](start = {i for i in 1:n});\n"
        "  Real y[n - 1](start = {2 * i for i in 1:n - 1});\n"
        "equation\n"
        "  der(x) = -k * x;\n"
        "  der(y[1:2]) = -k * x[2:3] + 0 * y[3:4];\n"
        "  der(y[3:n - 1]) = -k * y[3:4];\n"
        "  output s = sum(x);\n"
        "  output s24 = sum(x[2:4]);\n"
        "  output big = max(x);\n"
        "  output p = product(x[1:3]);\n"
        "  transition reset when time >= 1 do\n"
        "    x := 0;\n"
        "    y := x[2:n];\n"
        "  end;\n"
        "end whole;\n";
    hy_lang_unit *unit = compile(text, "whole.hym");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    test_rows rows;
    CHECK(test_run(m, "DSTIFF", 2.0, 0.5, 1e-11, 1e-13, &rows) == 0, "whole-array run");
    const double k = 0.5;
    double worst = 0.0;
    int checked = 0;
    for (int r = 0; r < rows.n_rows; r++) {
        double t = rows.t[r];
        if (rows.kind[r] != HYDAE_ROW_GRID || (t != 0.5 && t != 2.0))
            continue;
        double decay = exp(-k * t), before = t < 1;
        double want[32];
        int n_want = 0;
        for (int i = 1; i <= 5; i++) /* x */
            want[n_want++] = before ? i * decay : 0.0;
        for (int j = 1; j <= 4; j++) /* y */
            want[n_want++] = before ? (j <= 2 ? 2.0 * j + (j + 1) * (decay - 1) : 2.0 * j * decay)
                                    : (j <= 2 ? (j + 1) * exp(-k) : (j + 1) * exp(-k) * exp(-k * (t - 1)));
        want[n_want++] = before ? 15 * decay : 0; /* s */
        want[n_want++] = before ? 9 * decay : 0;  /* s24 */
        want[n_want++] = before ? 5 * decay : 0;  /* big */
        want[n_want++] = before ? 6 * decay * decay * decay : 0; /* p */
        static const char *names[] = { "x[1]", "x[2]", "x[3]", "x[4]", "x[5]", "y[1]", "y[2]",
                                       "y[3]", "y[4]", "s", "s24", "big", "p" };
        for (int q = 0; q < n_want; q++) {
            int c = test_column(m, names[q]);
            CHECK(c >= 0, "no column %s", names[q]);
            double err = c >= 0 ? fabs(test_value(&rows, r, c) - want[q]) : INFINITY;
            CHECK(err < 1e-8, "%s at t = %g: %.15g, closed form %.15g", names[q], t,
                  c >= 0 ? test_value(&rows, r, c) : NAN, want[q]);
            worst = test_worse(worst, err);
        }
        checked++;
    }
    CHECK(checked == 2, "checked %d rows", checked);
    printf("whole arrays and slices: max error %.3g against the closed form\n", worst);
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

/* A parameter that sizes an array is structural: the rod with `parameter
** Real N = 30` is the rod with the constant (the same numbers), and
** setting N afterwards is refused, naming why; a parameter the arrays do
** not depend on stays settable. */
static void structural_parameter(void)
{
    char *with_constant = example_text("heat_rod", "constant Real N = 100;", "constant Real N = 30;");
    char *with_parameter = example_text("heat_rod", "constant Real N = 100;",
                                        "parameter Real N = 30;\n  parameter Real unused = 1;");
    hy_lang_unit *uc = with_constant ? compile(with_constant, "rod_c.hym") : NULL;
    hy_lang_unit *up = with_parameter ? compile(with_parameter, "rod_p.hym") : NULL;
    free(with_constant);
    free(with_parameter);
    if (!uc || !up) {
        hy_lang_unit_free(uc);
        hy_lang_unit_free(up);
        return;
    }
    hydae_model *mc = hy_lang_unit_model(uc), *mp = hy_lang_unit_model(up);
    CHECK(hydae_model_set_param(mp, "N", 10) == HYDAE_ERR_ARG
              && strstr(hydae_model_errmsg(mp), "'N' is a structural parameter"),
          "setting N: %s", hydae_model_errmsg(mp));
    CHECK(hydae_model_set_param(mp, "unused", 2) == 0, "setting a plain parameter: %s",
          hydae_model_errmsg(mp));
    test_rows rc, rp;
    CHECK(test_run(mc, "DSTIFF", 0.05, 0.01, 1e-8, 1e-10, &rc) == 0, "rod (constant N)");
    CHECK(test_run(mp, "DSTIFF", 0.05, 0.01, 1e-8, 1e-10, &rp) == 0, "rod (parameter N)");
    double worst = rc.n_rows == rp.n_rows ? 0 : INFINITY;
    for (int r = 0; r < rc.n_rows && r < rp.n_rows; r++)
        for (int i = 1; i <= 30; i++) {
            char name[16];
            snprintf(name, sizeof name, "T[%d]", i);
            int a = test_column(mc, name), b = test_column(mp, name);
            worst = a >= 0 && b >= 0 ? fmax(worst, fabs(test_value(&rc, r, a) - test_value(&rp, r, b)))
                                     : INFINITY;
        }
    CHECK(worst == 0.0, "the rod with a parameter N differs from the constant one by %g", worst);
    test_rows_free(&rc);
    test_rows_free(&rp);
    hy_lang_unit_free(uc);
    hy_lang_unit_free(up);
}

/* Sizes from div, rem and integer (Modelica: div and rem truncate toward
** zero, integer is floor): 7 div 2 = 3, rem(-7, 3) = -1, integer(-0.5) = -1,
** so x has 3 - 1 - 1 + 2 = 3 elements, each decaying as exp(-t). */
static void integer_sizes(void)
{
    static const char text[] = "model sizes\n"
                               "  parameter Real n = 7;\n"
                               "  Real x[div(n, 2) + rem(-7, 3) + integer(-0.5) + 2](start = 1);\n"
                               "equation\n"
                               "  der(x) = -x;\n"
                               "end sizes;\n";
    hy_lang_unit *unit = compile(text, "sizes.hym");
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    CHECK(test_column(m, "x[3]") >= 0 && test_column(m, "x[4]") < 0, "x has 3 elements");
    test_rows rows;
    CHECK(test_run(m, NULL, 1.0, 0.5, 1e-10, 1e-12, &rows) == 0, "sizes run");
    int c = test_column(m, "x[3]");
    if (c >= 0 && rows.n_rows > 0)
        CHECK(fabs(test_value(&rows, rows.n_rows - 1, c) - exp(-1.0)) < 1e-8, "x[3](1) = %.10g",
              test_value(&rows, rows.n_rows - 1, c));
    test_rows_free(&rows);
    hy_lang_unit_free(unit);
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    integer_sizes();
    spelled_out();
    heat_rod(100, 0.1, "DSTIFF", 0);
    heat_rod(100, 0.1, "VSTIFF", 0);
    heat_rod(100, 0.1, "DSTIFF", 1);
    heat_rod(10000, 1e-3, "DSTIFF", 0);
    whole_arrays();
    structural_parameter();
    brusselator_as_c(50);
    brusselator_as_c(1000);
    return CHECK_DONE();
}
