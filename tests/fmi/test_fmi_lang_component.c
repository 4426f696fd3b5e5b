/*
** FMU components of model files (`Fmu vdp(file = "VanDerPol.fmu")`,
** src/lang/fmu_component.c, src/fmi/component.c): examples/fmi/
** vanderpol_switch.hym, copied into a temporary directory beside the
** Reference FMUs' VanDerPol (FMI 2.0 and 3.0; the file is relative to the
** model file), has the FMU active in mode with_fmu and hand-written
** equations in mode by_hand, switching at t = 5 and 12. Its states must
** match the same oscillator written by hand in both modes, at every grid
** row, to within 100 rtol max|x| (rtol 1e-8, atol 1e-10: each run's
** global error is of the order of rtol max|x|, with a factor for its
** growth over the 3 periods of 20 s), with mu = 1 and mu = 2 (set as
** the model's parameter, reaching the FMU through `mu = mu`); so must the
** hand-written mode first, the FMU entered by a transition. The FMU's
** columns have values exactly while its mode is active. Feedthrough's
** continuous input and output, used in equations, give y = 2 exp(-t);
** BouncingBall's impacts (its event indicator a guard) come at the closed
** form's times; --set vdp.x0 sets the state the FMU starts from; two
** FMUs in one mode entered again start from what the transition sets,
** else their start values.
** Errors are said
** at file:line:column: a missing file, a modifier the FMU lacks, a value
** for an output, a file that is no string. Skipped (77) without the FMUs.
*/
#define _POSIX_C_SOURCE 200809L /* mkdtemp, symlink */

#include "check.h"
#include "fmu_tests.h"
#include "rows.h"
#include "fmi/fmu.h"
#include "lang/lang.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RTOL 1e-8
#define ATOL 1e-10

static char work[] = "/tmp/hydae-fmu-lang-XXXXXX";

/* The example with by_hand as the initial mode. */
static const char hand_first_model[] =
    "model hand_first\n"
    "  parameter Real mu = 1;\n"
    "  mode with_fmu\n"
    "    Fmu vdp(file = \"VanDerPol.fmu\", mu = mu);\n"
    "  end with_fmu;\n"
    "  initial mode by_hand\n"
    "    Real x0(start = 2), x1(start = 0);\n"
    "  equation\n"
    "    der(x0) = x1;\n"
    "    der(x1) = mu * (1 - x0^2) * x1 - x0;\n"
    "  end by_hand;\n"
    "  transition to_fmu from by_hand to with_fmu when time >= 5 do\n"
    "    vdp.x0 := x0;\n"
    "    vdp.x1 := x1;\n"
    "  end;\n"
    "  transition to_hand from with_fmu to by_hand when time >= 12 do\n"
    "    x0 := vdp.x0;\n"
    "    x1 := vdp.x1;\n"
    "  end;\n"
    "end hand_first;\n";

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = calloc(1, 1 << 16);
    size_t n = text ? fread(text, 1, (1 << 16) - 1, f) : 0;
    (void)n;
    fclose(f);
    return text;
}

/* The model file at path compiled with FMU support; its diagnostics into
** diagnostics (size bytes). */
static hydae_model *compile(const char *path, char *diagnostics, size_t size)
{
    FILE *out = tmpfile();
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_file_fmi(path, out, NULL, &n_errors, &hy_fmu_lang_ops);
    diagnostics[0] = '\0';
    if (out) {
        rewind(out);
        size_t n = fread(diagnostics, 1, size - 1, out);
        diagnostics[n] = '\0';
        fclose(out);
    }
    hydae_model *m = hy_lang_unit_model(unit);
    if (m && hydae_model_check(m)) {
        hydae_model_free(m);
        return NULL;
    }
    return m;
}

/* x_k at row r: the hand-written column, or the FMU's where that is empty. */
static double state(const hydae_model *m, const test_rows *rows, int r, int k)
{
    int hand = test_column(m, k ? "x1" : "x0"), fmu = test_column(m, k ? "vdp.x1" : "vdp.x0");
    double value = test_value(rows, r, hand);
    return isnan(value) && fmu >= 0 ? test_value(rows, r, fmu) : value;
}

/* The model file `file` in work (FMU first unless hand_first) against the
** hand-written one. */
static void check_switching(const char *version, const char *file, int fmu_first, double mu)
{
    char path[1200], diagnostics[4096];
    snprintf(path, sizeof path, "%s/%s", work, file);
    hydae_model *m = compile(path, diagnostics, sizeof diagnostics);
    snprintf(path, sizeof path, "%s/hand.hym", work);
    hydae_model *ref = compile(path, diagnostics + strlen(diagnostics),
                               sizeof diagnostics - strlen(diagnostics));
    CHECK(m && ref, "%s: compile: %s", file, diagnostics);
    test_rows rows, ref_rows;
    int ok = m && ref && hydae_model_set_param(m, "mu", mu) == 0
             && hydae_model_set_param(ref, "mu", mu) == 0
             && test_run(m, NULL, 20.0, 0.1, RTOL, ATOL, &rows) == 0
             && test_run(ref, NULL, 20.0, 0.1, RTOL, ATOL, &ref_rows) == 0;
    CHECK(ok, "%s %s: runs", version, file);
    if (!ok) {
        hydae_model_free(m);
        hydae_model_free(ref);
        return;
    }
    CHECK(rows.n_rows == ref_rows.n_rows, "%d rows, %d hand-written", rows.n_rows,
          ref_rows.n_rows);
    double worst = 0, scale = 0;
    int n_fmu_rows = 0, fmu_col = test_column(m, "vdp.x0");
    for (int r = 0; r < rows.n_rows && r < ref_rows.n_rows; r++) {
        CHECK(rows.t[r] == ref_rows.t[r], "row %d at %g and %g", r, rows.t[r], ref_rows.t[r]);
        for (int k = 0; k < 2; k++) {
            worst = fmax(worst, fabs(state(m, &rows, r, k) - state(ref, &ref_rows, r, k)));
            scale = fmax(scale, fabs(state(ref, &ref_rows, r, k)));
        }
        int in_fmu_time = (rows.t[r] >= 5.0 && rows.t[r] < 12.0) != fmu_first;
        if (rows.kind[r] == HYDAE_ROW_GRID) {
            CHECK((!isnan(test_value(&rows, r, fmu_col))) == in_fmu_time,
                  "%s: vdp.x0 = %g at t = %g", file, test_value(&rows, r, fmu_col), rows.t[r]);
            n_fmu_rows += in_fmu_time;
        }
    }
    double tol = 100 * RTOL * scale;
    printf("%s %s, mu = %g: %d rows (%d with the FMU), max |file - hand-written| = %.3g "
           "(tolerance %.3g)\n", version, file, mu, rows.n_rows, n_fmu_rows, worst, tol);
    CHECK(worst <= tol && !isnan(worst) && n_fmu_rows > 50, "%s %s: %.3g from the hand-written "
          "model, %d rows with the FMU", version, file, worst, n_fmu_rows);
    test_rows_free(&rows);
    test_rows_free(&ref_rows);
    hydae_model_free(m);
    hydae_model_free(ref);
}

/* text as work/NAME.hym beside a link to the test FMU (version, fmu),
** compiled and run to t = 2 (rows every 0.1) into *rows; NULL after a
** failed check. */
static hydae_model *run_beside(const char *version, const char *fmu, const char *name,
                               const char *text, double rtol, double atol, test_rows *rows)
{
    char path[1200], diagnostics[4096];
    CHECK(fmu_test_beside(work, version, fmu, name, text, path, sizeof path) == 0, "%s", path);
    hydae_model *m = compile(path, diagnostics, sizeof diagnostics);
    CHECK(m != NULL, "%s.hym: %s", name, diagnostics);
    if (m && test_run(m, NULL, 2.0, 0.1, rtol, atol, rows) == 0)
        return m;
    CHECK(0, "%s.hym: the run", name);
    if (m)
        test_rows_free(rows);
    hydae_model_free(m);
    return NULL;
}

/* Feedthrough (FMI 2.0) at model level: its continuous input driven by
** x = exp(-t), its output read in an equation, y = 2 exp(-t). */
static void check_inputs_and_outputs(void)
{
    static const char text[] =
        "model ft\n"
        "  Fmu f(file = \"Feedthrough.fmu\");\n"
        "  Real x(start = 1), y;\n"
        "equation\n"
        "  der(x) = -x;\n"
        "  f.Float64_continuous_input = x;\n"
        "  f.Float64_discrete_input = 2;\n"
        "  f.Int32_input = 3;\n"
        "  f.Boolean_input = 1;\n"
        "  f.Enumeration_input = 2;\n"
        "  y = 2 * f.Float64_continuous_output;\n"
        "end ft;\n";
    test_rows rows;
    hydae_model *m = run_beside("2.0", "Feedthrough", "ft", text, RTOL, ATOL, &rows);
    if (!m)
        return;
    int y = test_column(m, "y");
    double worst = 0;
    for (int r = 0; r < rows.n_rows && y >= 0; r++)
        worst = fmax(worst, fabs(test_value(&rows, r, y) - 2 * exp(-rows.t[r])));
    printf("Feedthrough 2.0 as a component: max |y - 2 exp(-t)| = %.3g over %d rows\n", worst,
           rows.n_rows);
    CHECK(y >= 0 && rows.n_rows == 21 && worst < 100 * RTOL, "y = 2 f.out, f.in = exp(-t): %.3g",
          worst);
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* BouncingBall (FMI 3.0) at model level: its event indicator is a guard
** of its chart, the event iteration resets v; the impacts come at the
** closed form's times t_1 = sqrt(2 h0 / g), t_k+1 = t_k + 2 e v_k / g
** (g = 9.81, e = 0.7, h0 = 1; v_1 = g t_1). */
static void check_events(void)
{
    static const char text[] =
        "model bb\n"
        "  Fmu ball(file = \"BouncingBall.fmu\");\n"
        "  Real z;\n"
        "equation\n"
        "  z = 2 * ball.h;\n"
        "end bb;\n";
    test_rows rows;
    hydae_model *m = run_beside("3.0", "BouncingBall", "bb", text, 1e-10, 1e-12, &rows);
    if (!m)
        return;
    const double g = 9.81, e = 0.7;
    double t_impact = sqrt(2.0 / g), v = g * t_impact, worst = 0;
    int n_impacts = 0;
    for (int r = 0; r < rows.n_rows; r++) {
        if (rows.kind[r] != HYDAE_ROW_EVENT_LEFT)
            continue;
        worst = fmax(worst, fabs(rows.t[r] - t_impact));
        n_impacts++;
        v *= e;
        t_impact += 2 * v / g;
    }
    printf("BouncingBall 3.0 as a component: %d impacts to t = 2, max |t - closed form| = "
           "%.3g s\n", n_impacts, worst);
    CHECK(n_impacts == 4 && worst < 1e-8, "%d impacts, %.3g from the closed form", n_impacts,
          worst);
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* --set vdp.x0=1 (a dotted name, no MODE.NAME): the FMU starts from it,
** the first row x0 = 1 and x0' = x1 = 0 there. */
static void check_start_value(void)
{
    char path[1200], diagnostics[4096];
    snprintf(path, sizeof path, "%s/vanderpol_switch.hym", work);
    hydae_model *m = compile(path, diagnostics, sizeof diagnostics);
    CHECK(m && hydae_model_set_start(m, "vdp.x0", 1.0) == 0, "set vdp.x0: %s",
          m ? hydae_model_errmsg(m) : diagnostics);
    test_rows rows;
    if (m && test_run(m, NULL, 1.0, 0.5, RTOL, ATOL, &rows) == 0) {
        int x0 = test_column(m, "vdp.x0");
        CHECK(x0 >= 0 && test_value(&rows, 0, x0) == 1.0, "vdp.x0 at t0: %g",
              test_value(&rows, 0, x0));
        test_rows_free(&rows);
    } else
        CHECK(0, "the run with vdp.x0 = 1");
    hydae_model_free(m);
}

/* Two FMUs in one mode, left at 0.5 and entered again at 1 (FMI 2.0):
** Dahlquist (k = 2 as a modifier) restarts from d.x := 1 that the
** transition sets, VanDerPol, whose states the transition leaves, from
** their start values (x0 = 2, x1 = 0); d.x = exp(-2 (t - 1)) after. */
static void check_two_fmus(void)
{
    static const char text[] =
        "model two\n"
        "  initial mode a\n"
        "    Fmu vdp(file = \"VanDerPol.fmu\");\n"
        "    Fmu d(file = \"Dahlquist.fmu\", k = 2);\n"
        "  end a;\n"
        "  mode b\n"
        "    Real y(start = 0);\n"
        "  equation\n"
        "    der(y) = 1;\n"
        "  end b;\n"
        "  transition ab from a to b when time >= 0.5 end;\n"
        "  transition ba from b to a when time >= 1 do d.x := 1; end;\n"
        "end two;\n";
    char path[1200], target[1200];
    snprintf(path, sizeof path, "%s/Dahlquist.fmu", work);
    snprintf(target, sizeof target, "%s/2.0/Dahlquist.fmu", HYDAE_FMU_DIR);
    CHECK(symlink(target, path) == 0, "link %s", target);
    test_rows rows;
    hydae_model *m = run_beside("2.0", "VanDerPol", "two", text, RTOL, ATOL, &rows);
    if (!m)
        return;
    int x0 = test_column(m, "vdp.x0"), x1 = test_column(m, "vdp.x1"), d = test_column(m, "d.x");
    double worst = 0;
    int n_after = 0, restarted = 0;
    for (int r = 0; r < rows.n_rows; r++) {
        if (rows.t[r] < 1.0 || (rows.t[r] == 1.0 && rows.kind[r] == HYDAE_ROW_EVENT_LEFT))
            continue;
        worst = fmax(worst, fabs(test_value(&rows, r, d) - exp(-2 * (rows.t[r] - 1))));
        restarted += rows.t[r] == 1.0 && test_value(&rows, r, x0) == 2.0
                     && test_value(&rows, r, x1) == 0.0;
        n_after++;
    }
    printf("two FMUs in one mode, entered again: %d rows after, max |d.x - exp(-2 (t - 1))| = "
           "%.3g\n", n_after, worst);
    CHECK(n_after >= 10 && restarted >= 1 && worst < 100 * RTOL, "two FMUs: %d rows after t = 1, "
          "VanDerPol from its start: %d, Dahlquist %.3g", n_after, restarted, worst);
    test_rows_free(&rows);
    hydae_model_free(m);
}

/* A model file with one Fmu declaration whose diagnostics must hold want. */
static void check_error(const char *declaration, const char *want)
{
    char text[1024], path[1200], diagnostics[4096];
    snprintf(text, sizeof text, "model bad\n  Real y(start = 1);\nequation\n  der(y) = -y;\n"
             "  %s\nend bad;\n", declaration);
    snprintf(path, sizeof path, "%s/bad.hym", work);
    CHECK(fmu_test_write(path, text) == 0, "write %s", path);
    hydae_model *m = compile(path, diagnostics, sizeof diagnostics);
    CHECK(!m && strstr(diagnostics, want), "%s: want \"%s\" in:\n%s", declaration, want,
          diagnostics);
    hydae_model_free(m);
}

int main(void)
{
    char fmu[1200], link[1200], path[1200];
    int start = fmu_test_start(work, "2.0/VanDerPol.fmu");
    if (start)
        return start;
    char *example = read_all(HYDAE_EXAMPLES_DIR "/fmi/vanderpol_switch.hym");
    CHECK(example != NULL, "read the example");
    snprintf(path, sizeof path, "%s/vanderpol_switch.hym", work);
    CHECK(example && fmu_test_write(path, example) == 0, "copy the example");
    snprintf(path, sizeof path, "%s/hand.hym", work);
    CHECK(fmu_test_write(path, fmu_test_vdp_hand) == 0, "write hand.hym");
    snprintf(path, sizeof path, "%s/hand_first.hym", work);
    CHECK(fmu_test_write(path, hand_first_model) == 0, "write hand_first.hym");
    snprintf(link, sizeof link, "%s/VanDerPol.fmu", work);
    static const char *const versions[] = { "2.0", "3.0" };
    for (int v = 0; v < 2; v++) {
        snprintf(fmu, sizeof fmu, "%s/%s/VanDerPol.fmu", HYDAE_FMU_DIR, versions[v]);
        unlink(link);
        CHECK(symlink(fmu, link) == 0, "link %s", fmu);
        check_switching(versions[v], "vanderpol_switch.hym", 1, 1.0);
        check_switching(versions[v], "hand_first.hym", 0, 1.0);
    }
    check_switching("3.0", "vanderpol_switch.hym", 1, 2.0);
    check_start_value();
    check_inputs_and_outputs();
    check_events();
    check_two_fmus();

    check_error("Fmu p(file = \"nope.fmu\");", "bad.hym:5:7: error: FMU component 'p': ");
    check_error("Fmu p(file = \"nope.fmu\");", "nope.fmu: No such file or directory");
    check_error("Fmu p(file = \"VanDerPol.fmu\", k = 2);", "bad.hym:5:33: error: FMU component "
                "'p' has no parameter, state or input 'k'");
    check_error("Fmu p(file = 3);", "bad.hym:5:9: error: the file of FMU component 'p' is a "
                "string");
    check_error("Fmu p(mu = 3);", "bad.hym:5:7: error: FMU component 'p' needs its file");
    check_error("Resistor r(file = \"x\");", "bad.hym:5:21: error:");

    free(example);
    char command[1400];
    snprintf(command, sizeof command, "rm -rf '%s'", work);
    CHECK(system(command) == 0, "remove %s", work);
    return CHECK_DONE();
}
