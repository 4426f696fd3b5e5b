/*
** Co-Simulation FMUs as sampled components of model files (`Fmu d(file =
** "F.fmu", cosim = true, step = h)`, src/fmi/cosim.c), loaded through the
** public API (hydae_model_load_file):
** - Dahlquist (x' = -k x, FMI 2.0 and 3.0) with k = 2, step 0.1: the
**   Reference FMUs integrate it with explicit Euler at their fixed solver
**   step 0.1, so at t_n = n h its output is the closed form (1 - k h)^n
**   (held between points); swept over k on 1 and 2 threads, equal tables.
** - VanDerPol (3.0) at step 0.01 against the explicit Euler recurrence of
**   x0' = x1, x1' = mu (1 - x0^2) x1 - x0 computed here, and against the
**   same FMU as a Model Exchange component (rtol 1e-8) within 0.05 at t = 5
**   (explicit Euler's first-order error at h = 0.01).
** - Feedthrough (3.0) with its input 2 t from the model's equation: read
**   at each communication point, its output after the point is 2 t_k.
** And the Jacobian of a Model Exchange component's mode from directional
** derivatives (VanDerPol, FMI 2.0 and 3.0, mu = 5: stiff enough for a
** Newton iteration to need it) against the same model with `directional
** = false` (finite differences): the two trajectories within 100 rtol
** max|x| of each other, the same Newton iterations, fewer residual
** evaluations (none for the Jacobian's 2 columns).
** - Errors at file:line:column: a step that is not positive, a step for a
**   Model Exchange component, a Co-Simulation component in a mode.
** Skipped (77) without the FMUs.
*/
#define _POSIX_C_SOURCE 200809L /* mkdtemp, symlink */

#include "check.h"
#include "fmu_tests.h"
#include "rows.h"
#include "hydae.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char work[] = "/tmp/hydae-fmu-cosim-XXXXXX";

/* text as work/NAME.hym beside a link to the FMU version/fmu, loaded;
** *diagnostics (may be NULL) gets the compiler's messages. */
static hydae_model *load_beside(const char *version, const char *fmu, const char *name,
                                const char *text, char **diagnostics)
{
    char path[1200];
    CHECK(fmu_test_beside(work, version, fmu, name, text, path, sizeof path) == 0, "%s", path);
    return hydae_model_load_file(path, diagnostics, NULL);
}

static hydae_model *load_ok(const char *version, const char *fmu, const char *name,
                            const char *text)
{
    char *diagnostics = NULL;
    hydae_model *m = load_beside(version, fmu, name, text, &diagnostics);
    CHECK(m != NULL, "%s %s.hym: %s", version, name, diagnostics ? diagnostics : "");
    hydae_string_free(diagnostics);
    return m;
}

/* The communication point at or before the row at t (points at n h). */
static int point_before(double t, double h)
{
    return (int)floor(t / h + 1e-9);
}

static const char dahlquist_model[] =
    "model dq\n"
    "  Fmu d(file = \"Dahlquist.fmu\", cosim = true, step = 0.1, k = 2);\n"
    "  experiment t_end = 2, dt = 0.05;\n"
    "end dq;\n";

static void check_dahlquist(const char *version)
{
    hydae_model *m = load_ok(version, "Dahlquist", "dq", dahlquist_model);
    test_rows rows;
    if (!m || test_run(m, NULL, 2.0, 0.05, 1e-6, 1e-8, &rows) != 0) {
        CHECK(0, "%s Dahlquist: run", version);
        hydae_model_free(m);
        return;
    }
    int x = test_column(m, "d.x"), n_checked = 0;
    double worst = 0;
    for (int r = 0; r < rows.n_rows; r++) {
        if (rows.kind[r] == HYDAE_ROW_EVENT_LEFT)
            continue;
        double exact = pow(1.0 - 2.0 * 0.1, point_before(rows.t[r], 0.1));
        worst = test_worse(worst, fabs(test_value(&rows, r, x) - exact));
        n_checked++;
    }
    printf("%s Dahlquist, cosim step 0.1: %d rows, max |x - (1 - k h)^n| = %.3g\n", version,
           n_checked, worst);
    CHECK(worst <= 1e-14 && n_checked >= 41, "%s Dahlquist: %.3g", version, worst);
    test_rows_free(&rows);

    /* Swept over k on 1 and 2 threads: the same table, each the closed form. */
    static const double k[] = { 0.5, 1.0, 1.5, 2.0, 2.5, 3.0 };
    double finals[2][6];
    for (int threads = 1; threads <= 2; threads++) {
        hydae_sweep *sw = hydae_sweep_create(m);
        int status = sw ? 0 : -1;
        if (!status)
            status = hydae_sweep_add_grid(sw, "d.k", k, 6);
        if (!status)
            status = hydae_sweep_add_measures(sw, "final(d.x)");
        if (!status)
            status = hydae_sweep_set_threads(sw, threads);
        if (!status)
            status = hydae_sweep_run(sw, NULL, NULL);
        CHECK(status == 0, "sweep: %s", sw ? hydae_sweep_errmsg(sw) : "out of memory");
        for (int r = 0; r < 6 && !status; r++) {
            hydae_sweep_row row;
            status = hydae_sweep_get_row(sw, r, &row);
            finals[threads - 1][r] = status || row.failed ? NAN : row.measures[0];
            CHECK_NEAR(finals[threads - 1][r], pow(1.0 - k[r] * 0.1, 20), 1e-14, "final x");
        }
        hydae_sweep_free(sw);
    }
    CHECK(memcmp(finals[0], finals[1], sizeof finals[0]) == 0, "1 and 2 threads differ");
    hydae_model_free(m);
}

static void check_vanderpol(void)
{
    hydae_model *cs = load_ok("3.0", "VanDerPol", "vcs",
                              "model vcs\n"
                              "  Fmu v(file = \"VanDerPol.fmu\", cosim = true, step = 0.01);\n"
                              "end vcs;\n");
    hydae_model *me = load_ok("3.0", "VanDerPol", "vme",
                              "model vme\n  Fmu v(file = \"VanDerPol.fmu\");\nend vme;\n");
    test_rows rows, me_rows;
    int ok = cs && me && test_run(cs, NULL, 5.0, 0.01, 1e-6, 1e-8, &rows) == 0
             && test_run(me, NULL, 5.0, 0.01, 1e-8, 1e-10, &me_rows) == 0;
    CHECK(ok, "VanDerPol runs");
    if (ok) {
        int c0 = test_column(cs, "v.x0"), c1 = test_column(cs, "v.x1");
        double x0 = 2.0, x1 = 0.0, mu = 1.0, worst = 0;
        int n = 0;
        for (int r = 0; r < rows.n_rows; r++) {
            if (rows.kind[r] != HYDAE_ROW_GRID)
                continue;
            for (; n < point_before(rows.t[r], 0.01); n++) { /* explicit Euler, h = 0.01 */
                double dx0 = x1, dx1 = mu * (1 - x0 * x0) * x1 - x0;
                x0 += 0.01 * dx0;
                x1 += 0.01 * dx1;
            }
            worst = test_worse(worst, fabs(test_value(&rows, r, c0) - x0));
            worst = test_worse(worst, fabs(test_value(&rows, r, c1) - x1));
        }
        int last = rows.n_rows - 1, me_last = me_rows.n_rows - 1;
        double gap = fmax(fabs(test_value(&rows, last, c0)
                               - test_value(&me_rows, me_last, test_column(me, "v.x0"))),
                          fabs(test_value(&rows, last, c1)
                               - test_value(&me_rows, me_last, test_column(me, "v.x1"))));
        printf("VanDerPol cosim step 0.01: %d points, max |x - Euler| = %.3g; "
               "|cosim - Model Exchange| at t = 5: %.3g\n", n, worst, gap);
        CHECK(worst <= 1e-12 && n == 500, "VanDerPol against Euler: %.3g (%d points)", worst, n);
        CHECK(gap <= 0.05, "VanDerPol against Model Exchange: %.3g", gap);
        test_rows_free(&rows);
        test_rows_free(&me_rows);
    }
    hydae_model_free(cs);
    hydae_model_free(me);
}

static const char feedthrough_model[] =
    "model ft\n"
    "  Fmu f(file = \"Feedthrough.fmu\", cosim = true, step = 0.1);\n"
    "equation\n"
    "  f.Float64_continuous_input = 2 * time;\n"
    "  f.Float32_continuous_input = 0;\n"
    "  f.Float32_discrete_input = 0;\n"
    "  f.Float64_discrete_input = 0;\n"
    "  f.Int8_input = 0;\n"
    "  f.UInt8_input = 0;\n"
    "  f.Int16_input = 0;\n"
    "  f.UInt16_input = 0;\n"
    "  f.Int32_input = 0;\n"
    "  f.UInt32_input = 0;\n"
    "  f.Int64_input = 0;\n"
    "  f.UInt64_input = 0;\n"
    "  f.Boolean_input = 0;\n"
    "  f.Enumeration_input = 1;\n"
    "end ft;\n";

static void check_feedthrough(void)
{
    hydae_model *m = load_ok("3.0", "Feedthrough", "ft", feedthrough_model);
    test_rows rows;
    if (!m || test_run(m, NULL, 1.0, 0.05, 1e-6, 1e-8, &rows) != 0) {
        CHECK(0, "Feedthrough: run");
        hydae_model_free(m);
        return;
    }
    int y = test_column(m, "f.Float64_continuous_output"), n_checked = 0;
    double worst = 0;
    for (int r = 0; r < rows.n_rows; r++) {
        if (rows.kind[r] == HYDAE_ROW_EVENT_LEFT)
            continue;
        double held = 2.0 * (point_before(rows.t[r], 0.1) * 0.1);
        worst = test_worse(worst, fabs(test_value(&rows, r, y) - held));
        n_checked++;
    }
    printf("Feedthrough cosim: %d rows, max |y - 2 t_k| = %.3g\n", n_checked, worst);
    CHECK(worst <= 1e-15 && n_checked >= 21, "Feedthrough: %.3g", worst);
    test_rows_free(&rows);
    hydae_model_free(m);
}

static void check_directional(const char *version)
{
    static const char *const texts[] = {
        "model jd\n  Fmu v(file = \"VanDerPol.fmu\", mu = 5);\nend jd;\n",
        "model jf\n  Fmu v(file = \"VanDerPol.fmu\", mu = 5, directional = false);\n"
        "end jf;\n" };
    test_rows rows[2];
    hydae_stats stats[2];
    hydae_model *m[2];
    int ok = 1;
    for (int i = 0; i < 2; i++) {
        m[i] = load_ok(version, "VanDerPol", i ? "jf" : "jd", texts[i]);
        ok = ok && m[i] && test_run_stats(m[i], NULL, 10.0, 0.1, 1e-8, 1e-10, &rows[i],
                                          &stats[i]) == 0;
    }
    CHECK(ok, "%s VanDerPol mu = 5: runs", version);
    if (ok) {
        double worst = 0, scale = 0;
        int c[2] = { test_column(m[0], "v.x0"), test_column(m[1], "v.x0") };
        for (int r = 0, s = 0; r < rows[0].n_rows && s < rows[1].n_rows; r++, s++) {
            while (r < rows[0].n_rows && rows[0].kind[r] != HYDAE_ROW_GRID)
                r++;
            while (s < rows[1].n_rows && rows[1].kind[s] != HYDAE_ROW_GRID)
                s++;
            if (r == rows[0].n_rows || s == rows[1].n_rows)
                break;
            CHECK(rows[0].t[r] == rows[1].t[s], "grid rows at %g and %g", rows[0].t[r],
                  rows[1].t[s]);
            worst = test_worse(worst, fabs(test_value(&rows[0], r, c[0])
                                           - test_value(&rows[1], s, c[1])));
            scale = fmax(scale, fabs(test_value(&rows[1], s, c[1])));
        }
        printf("%s VanDerPol mu = 5: directional %ld residuals %ld Jacobians, finite "
               "differences %ld residuals %ld Jacobians; max |x0 difference| = %.3g\n", version,
               stats[0].n_res_evals, stats[0].n_jac_evals, stats[1].n_res_evals,
               stats[1].n_jac_evals, worst);
        CHECK(worst <= 100 * 1e-8 * scale, "%s: directional against finite differences: %.3g",
              version, worst);
        CHECK(stats[0].n_jac_evals > 0 && stats[0].n_res_evals < stats[1].n_res_evals,
              "%s: %ld residuals with directional derivatives, %ld without", version,
              stats[0].n_res_evals, stats[1].n_res_evals);
        /* The same Newton iterations (a wrong Jacobian converges slower):
        ** what differs is the 2 residuals of each difference quotient. */
        CHECK(stats[1].n_res_evals - stats[0].n_res_evals == 2 * stats[1].n_jac_evals
              && stats[0].n_jac_evals == stats[1].n_jac_evals,
              "%s: not the same iterations", version);
        test_rows_free(&rows[0]);
        test_rows_free(&rows[1]);
    }
    hydae_model_free(m[0]);
    hydae_model_free(m[1]);
}

static void check_error(const char *fmu, const char *text, const char *expect)
{
    char *diagnostics = NULL;
    hydae_model *m = load_beside("3.0", fmu, "bad", text, &diagnostics);
    CHECK(!m && diagnostics && strstr(diagnostics, expect), "want \"%s\" in:\n%s", expect,
          diagnostics ? diagnostics : "(none)");
    hydae_string_free(diagnostics);
    hydae_model_free(m);
}

int main(void)
{
    char path[1200];
    int start = fmu_test_start(work, "3.0/Dahlquist.fmu");
    if (start)
        return start;
    check_dahlquist("2.0");
    check_dahlquist("3.0");
    check_vanderpol();
    check_feedthrough();
    check_directional("2.0");
    check_directional("3.0");
    check_error("Dahlquist", "model bad\n  Fmu d(file = \"Dahlquist.fmu\", cosim = true, "
                "step = -1);\nend bad;\n", "bad.hym:2:47: error: the step of FMU component "
                "'d' is -1, not positive");
    check_error("Dahlquist", "model bad\n  Fmu d(file = \"Dahlquist.fmu\", step = 0.1);\n"
                "end bad;\n", "bad.hym:2:7: error: FMU component 'd' runs through Model "
                "Exchange: a step is for Co-Simulation");
    check_error("Dahlquist", "model bad\n  initial mode a\n    Fmu d(file = \"Dahlquist.fmu\", "
                "cosim = true);\n  end a;\nend bad;\n", "runs through Co-Simulation: declare "
                "it in the model, not in a mode");
    static const char *const files[] = { "Dahlquist.fmu", "VanDerPol.fmu", "Feedthrough.fmu",
                                         "dq.hym", "vcs.hym", "vme.hym", "ft.hym", "bad.hym",
                                         "jd.hym", "jf.hym" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", work, files[i]);
        unlink(path);
    }
    rmdir(work);
    return CHECK_DONE();
}
