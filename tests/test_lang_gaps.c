/*
** Issue 15's small language gaps, each against a closed form:
**  - `when crosses(x - 0.5)`: x = sin(w t) (an oscillator x' = w y,
**    y' = -w x) crosses 0.5 upwards at w t = pi/6 + 2 pi k and downwards
**    at 5 pi/6 + 2 pi k; the counter fires at every one of them over
**    [0, 10] (14 with w = 4.4), at the closed-form instants to 1e-8 s,
**    directions alternating; `when x > 0.5` fires at the 7 upward ones.
**  - `transition reset from * to idle`: a chart a, b, c, idle driven by
**    sample clocks; the reset (priority 2) leaves a, b and c at the ticks
**    1, 2, ... s, except at t = 2 where b -> c (priority 1) wins: the
**    mode sequence and the exit-action counters are derived by hand in
**    any_mode_reset().
**  - `resting mode`: examples/bouncing_ball_zeno.hym (h0 = 1 m, g = 9.81,
**    e = 0.8, zeno_policy = "rest" in its experiment line) runs to t = 10
**    and enters its resting mode `ground` at the accumulation time
**    t_inf = t1 + 2 e v1 / (g (1 - e)), t1 = sqrt(2 h0 / g), v1 = g t1,
**    to 1e-8 s (the first row whose mode column shows `ground`); the
**    impacts before it at t1 + sum 2 e^j v1 / g to 1e-8 s; h = v = 0 after.
**    The same ball as a block with a resting mode and a `from *` bounce,
**    instantiated twice (e = 0.8, 0.5): each chart rests at its own t_inf.
*/
#include "check.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.141592653589793;
static char source_dir[1024];

enum { MODE_NAME_LEN = 32 };

/* A run's rows and the active mode of one chart at each row. */
typedef struct run_result {
    test_rows rows;
    char (*mode)[MODE_NAME_LEN];
    int n_mode_rows;
    hydae_stats stats;
} run_result;

static void run_result_free(run_result *r)
{
    test_rows_free(&r->rows);
    free(r->mode);
}

/* Run m with the file's experiment ex applied, rows into r and the mode of
** `chart` read back from the CSV writer's mode(chart) column. 0 or the
** run's status. */
static int run_model(hydae_model *m, const hy_lang_experiment *ex, const char *chart,
                     run_result *r)
{
    int status;
    memset(r, 0, sizeof *r);
    test_rows_init(&r->rows, m);
    hydae_sim *s = hydae_sim_create(m, &status);
    if (!s) {
        fprintf(stderr, "create: %s\n", hydae_model_errmsg(m));
        return status ? status : -1;
    }
    char mode_var[96];
    snprintf(mode_var, sizeof mode_var, "mode(%s)", chart);
    FILE *csv = tmpfile();
    status = csv ? hy_lang_experiment_apply(ex, s, stderr) : -1;
    if (!status)
        status = hydae_sim_set_time(s, ex->has_t0 ? ex->t0 : 0.0, ex->t_end);
    if (!status)
        status = hydae_sim_add_row_sink(s, test_rows_sink, &r->rows);
    if (!status)
        status = hydae_sim_add_csv_vars(s, csv, mode_var, 0);
    if (!status)
        status = hydae_sim_run(s);
    if (status)
        fprintf(stderr, "run: %s\n", hydae_sim_errmsg(s));
    hydae_sim_get_stats(s, &r->stats);
    hydae_sim_free(s);
    if (status) {
        if (csv)
            fclose(csv);
        return status;
    }
    r->mode = calloc((size_t)r->rows.n_rows + 1, sizeof *r->mode);
    rewind(csv);
    char line[512];
    int header = 1;
    while (r->mode && fgets(line, sizeof line, csv)) {
        if (header || line[0] == '#') {
            header = 0;
            continue;
        }
        if (r->n_mode_rows == r->rows.n_rows) {
            r->n_mode_rows++; /* more CSV lines than rows: reported below */
            break;
        }
        const char *field = strchr(line, ',');
        if (field)
            snprintf(r->mode[r->n_mode_rows], MODE_NAME_LEN, "%.*s",
                     (int)strcspn(field + 1, ",\r\n"), field + 1);
        r->n_mode_rows++;
    }
    fclose(csv);
    CHECK(r->mode && r->n_mode_rows == r->rows.n_rows, "%d CSV mode rows for %d result rows",
          r->n_mode_rows, r->rows.n_rows);
    return r->mode && r->n_mode_rows == r->rows.n_rows ? 0 : -1;
}

static hy_lang_unit *compile_source(const char *name, const char *source, hy_lang_experiment *ex)
{
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(source, strlen(source), name, stderr, ex,
                                                &n_errors);
    CHECK(unit != NULL, "%s compiles (%d errors)", name, n_errors);
    return unit;
}

/* ---------------------------------------------------------------------- */
/* crosses(): either direction                                            */

static const char crossing_model[] =
    "model crossings\n"
    "  parameter Real w = 4.4;\n"
    "  discrete Real n = 0;\n"
    "  mode osc\n"
    "    Real x(start = 0);\n"
    "    Real y(start = 1);\n"
    "  equation\n"
    "    der(x) = w * y;\n"
    "    der(y) = -w * x;\n"
    "  end osc;\n"
    "  transition count from osc to osc when %s do\n"
    "    n := n + 1;\n"
    "  end;\n"
    "  experiment t_end = 10, dt = 0.1, rtol = 1e-11, atol = 1e-13;\n"
    "end crossings;\n";

/* The instants in (0, t_end] where sin(w t) = 1/2, rising (pi/6) and,
** unless rising_only, falling (5 pi / 6); sorted. Their number. */
static int sine_crossings(double w, double t_end, int rising_only, double *times, int cap)
{
    int n = 0;
    for (int k = 0; k < 1000; k++)
        for (int side = 0; side < (rising_only ? 1 : 2); side++) {
            double t = ((side ? 5.0 * pi / 6.0 : pi / 6.0) + 2.0 * pi * k) / w;
            if (t <= t_end && n < cap)
                times[n++] = t;
        }
    for (int i = 1; i < n; i++) /* insertion sort: the two phases interleave */
        for (int j = i; j > 0 && times[j] < times[j - 1]; j--) {
            double swap = times[j];
            times[j] = times[j - 1];
            times[j - 1] = swap;
        }
    return n;
}

static void crossing_run(const char *trigger, int rising_only)
{
    char source[sizeof crossing_model + 64];
    snprintf(source, sizeof source, crossing_model, trigger);
    hy_lang_experiment ex;
    hy_lang_unit *unit = compile_source("crossings.hym", source, &ex);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    run_result r;
    int status = run_model(m, &ex, "main", &r); /* the implicit chart */
    CHECK(status == 0, "%s: runs (status %d)", trigger, status);
    double want[64];
    int n_want = sine_crossings(4.4, 10.0, rising_only, want, 64);
    CHECK(n_want == (rising_only ? 7 : 14), "closed form: %d crossings", n_want);
    int n = test_column(m, "n"), y = test_column(m, "y");
    int k = 0;
    for (int i = 0; status == 0 && i < r.rows.n_rows; i++) {
        if (r.rows.kind[i] != HYDAE_ROW_EVENT_RIGHT)
            continue;
        char what[96];
        if (k < n_want) {
            snprintf(what, sizeof what, "%s: crossing %d time", trigger, k + 1);
            CHECK_NEAR(r.rows.t[i], want[k], 1e-8, what);
            /* Upwards y = cos(w t) > 0, downwards < 0. */
            int rising = fmod(4.4 * want[k], 2.0 * pi) < pi / 2.0;
            CHECK(rising ? test_value(&r.rows, i, y) > 0.5 : test_value(&r.rows, i, y) < -0.5,
                  "%s: crossing %d at t = %.9g goes %s, y = %g", trigger, k + 1, r.rows.t[i],
                  rising ? "up" : "down", test_value(&r.rows, i, y));
        }
        k++;
    }
    CHECK(k == n_want, "%s: %d crossings, closed form %d", trigger, k, n_want);
    if (status == 0 && r.rows.n_rows > 0)
        CHECK(test_value(&r.rows, r.rows.n_rows - 1, n) == n_want, "%s: counter %g, want %d",
              trigger, test_value(&r.rows, r.rows.n_rows - 1, n), n_want);
    run_result_free(&r);
    hy_lang_unit_free(unit);
}

/* ---------------------------------------------------------------------- */
/* transition ... from * to idle                                          */

static const char any_model[] =
    "model any_reset\n"
    "  discrete Real k = 0;\n"
    "  discrete Real na = 0;\n"
    "  discrete Real nb = 0;\n"
    "  discrete Real nc = 0;\n"
    "  chart ch\n"
    "    initial mode a\n"
    "      Real x(start = 0);\n"
    "    equation\n"
    "      der(x) = 1;\n"
    "    exit\n"
    "      na := na + 1;\n"
    "    end a;\n"
    "    mode b\n"
    "      Real x(start = 0);\n"
    "    equation\n"
    "      der(x) = 1;\n"
    "    exit\n"
    "      nb := nb + 1;\n"
    "    end b;\n"
    "    mode c\n"
    "      Real x(start = 0);\n"
    "    equation\n"
    "      der(x) = 1;\n"
    "    exit\n"
    "      nc := nc + 1;\n"
    "    end c;\n"
    "    mode idle\n"
    "      Real x(start = 0);\n"
    "    equation\n"
    "      der(x) = 1;\n"
    "    end idle;\n"
    "    transition reset from * to idle priority 2 when sample(1, 1) do\n"
    "      k := k + 1;\n"
    "    end;\n"
    "    transition b_to_c from b to c priority 1 when sample(2, 10) end;\n"
    "    transition go_b from idle to b when sample(1.5, 3) end;\n"
    "    transition go_c from idle to c when sample(2.5, 3) end;\n"
    "    transition go_a from idle to a when sample(3.5, 3) end;\n"
    "  end ch;\n"
    "  experiment t_end = 7.2, dt = 0.1;\n"
    "end any_reset;\n";

/* The schedule by hand: a at 0; the reset tick at 1 leaves a; go_b (1.5,
** 4.5) enters b; at 2 both b_to_c and reset are due from b: b_to_c has
** priority 1 and wins; 3 resets from c; go_a (3.5) enters a; 4 resets
** from a; 4.5 -> b; 5 resets from b; go_c (5.5) -> c; 6 resets from c;
** 6.5 -> a; 7 resets from a. go_c at 2.5 finds c active (not idle): no
** transition. Resets: 1 (a), 3 (c), 4 (a), 5 (b), 6 (c), 7 (a): k = 6;
** exits of a at 1, 4, 7; of b at 2, 5; of c at 3, 6. */
static void any_mode_reset(void)
{
    static const struct {
        double t;
        const char *mode;
    } schedule[] = {
        { 0, "a" }, { 1, "idle" }, { 1.5, "b" }, { 2, "c" }, { 3, "idle" }, { 3.5, "a" },
        { 4, "idle" }, { 4.5, "b" }, { 5, "idle" }, { 5.5, "c" }, { 6, "idle" }, { 6.5, "a" },
        { 7, "idle" },
    };
    enum { N_SCHEDULE = (int)(sizeof schedule / sizeof schedule[0]) };
    hy_lang_experiment ex;
    hy_lang_unit *unit = compile_source("any_reset.hym", any_model, &ex);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    run_result r;
    int status = run_model(m, &ex, "ch", &r);
    CHECK(status == 0, "any_reset runs (status %d)", status);
    int n_changes = 0;
    for (int i = 0; status == 0 && i < r.rows.n_rows; i++) {
        if (i > 0 && strcmp(r.mode[i], r.mode[i - 1]) == 0)
            continue;
        if (n_changes < N_SCHEDULE) {
            CHECK(fabs(r.rows.t[i] - schedule[n_changes].t) < 1e-12
                      && strcmp(r.mode[i], schedule[n_changes].mode) == 0,
                  "mode change %d: %s at t = %.17g, want %s at %g", n_changes, r.mode[i],
                  r.rows.t[i], schedule[n_changes].mode, schedule[n_changes].t);
        }
        n_changes++;
    }
    CHECK(n_changes == N_SCHEDULE, "%d mode changes, want %d", n_changes, N_SCHEDULE);
    static const struct {
        const char *name;
        double want;
    } counters[] = { { "k", 6 }, { "na", 3 }, { "nb", 2 }, { "nc", 2 } };
    for (int i = 0; status == 0 && i < 4; i++) {
        int column = test_column(m, counters[i].name);
        double got = column >= 0 ? test_value(&r.rows, r.rows.n_rows - 1, column) : NAN;
        CHECK(got == counters[i].want, "%s = %g at the end, want %g", counters[i].name, got,
              counters[i].want);
    }
    CHECK(r.stats.n_priority_conflicts >= 1, "the b_to_c / reset tie at t = 2 counted as a "
          "priority conflict (%ld)", r.stats.n_priority_conflicts);
    run_result_free(&r);
    hy_lang_unit_free(unit);
}

/* ---------------------------------------------------------------------- */
/* resting mode: the Zeno bouncing ball                                   */

static void zeno_ball(void)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/examples/bouncing_ball_zeno.hym", source_dir);
    hy_lang_experiment ex;
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_file(path, stderr, &ex, &n_errors);
    CHECK(unit != NULL, "bouncing_ball_zeno.hym compiles (%d errors)", n_errors);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    run_result r;
    int status = run_model(m, &ex, "ball", &r);
    CHECK(status == 0, "bouncing_ball_zeno runs with its experiment (status %d)", status);
    CHECK(ex.has_t_end && ex.t_end == 10.0, "t_end %g", ex.t_end);
    const double h0 = 1.0, g = 9.81, e = 0.8;
    const double t1 = sqrt(2.0 * h0 / g), v1 = g * t1;
    const double t_inf = t1 + 2.0 * e * v1 / (g * (1.0 - e));
    int h = test_column(m, "h"), v = test_column(m, "v");
    double t_rest = NAN, t_impact = t1, flight = 2.0 * e * v1 / g;
    int n_impacts = 0, rows_not_at_rest = 0;
    for (int i = 0; status == 0 && i < r.rows.n_rows; i++) {
        int resting = strcmp(r.mode[i], "ground") == 0;
        if (resting && isnan(t_rest))
            t_rest = r.rows.t[i];
        if (resting && (test_value(&r.rows, i, h) != 0.0 || test_value(&r.rows, i, v) != 0.0))
            rows_not_at_rest++;
        if (!resting && r.rows.kind[i] == HYDAE_ROW_EVENT_RIGHT && strcmp(r.mode[i], "flight") == 0
            && i > 0 && strcmp(r.mode[i - 1], "flight") == 0) {
            if (n_impacts < 40) {
                char what[64];
                snprintf(what, sizeof what, "impact %d time", n_impacts + 1);
                CHECK_NEAR(r.rows.t[i], t_impact, 1e-8, what);
            }
            n_impacts++;
            t_impact += flight;
            flight *= e;
        }
    }
    printf("resting mode entered at t = %.17g, t_inf = %.17g, error %.3g s (after %d impacts)\n",
           t_rest, t_inf, t_rest - t_inf, n_impacts);
    CHECK_NEAR(t_rest, t_inf, 1e-8, "resting mode entered at the accumulation time");
    CHECK(rows_not_at_rest == 0, "%d rows in the resting mode with h or v not 0", rows_not_at_rest);
    CHECK(r.stats.n_zeno_rests == 1, "%ld resting modes entered, want 1", r.stats.n_zeno_rests);
    CHECK(status == 0 && r.rows.n_rows > 0 && r.rows.t[r.rows.n_rows - 1] == 10.0,
          "rows end at t = %g", r.rows.n_rows > 0 ? r.rows.t[r.rows.n_rows - 1] : NAN);
    run_result_free(&r);
    hy_lang_unit_free(unit);
}

/* The same in components: a block Ball whose resting mode and `from *`
** transition are copied into the chart of each instance (b1: e = 0.8,
** b2: e = 0.5); each chart enters its own resting mode at its own
** accumulation time t1 (1 + 2 e / (1 - e)). `bounce` leaves slow and ground
** (never flight: the target), `again` is flight's own bounce. */
static const char ball_component_model[] =
    "block Ball\n"
    "  parameter Real e = 0.8;\n"
    "  initial mode flight\n"
    "    Real h(start = 1);\n"
    "    Real v(start = 0);\n"
    "  equation\n"
    "    der(h) = v;\n"
    "    der(v) = -9.81;\n"
    "  end flight;\n"
    "  mode slow\n"
    "    Real h(start = 1);\n"
    "    Real v(start = 0);\n"
    "  equation\n"
    "    der(h) = v;\n"
    "    der(v) = -9.81;\n"
    "  end slow;\n"
    "  resting mode ground\n"
    "    Real h(start = 0);\n"
    "    Real v(start = 0);\n"
    "  equation\n"
    "    der(h) = 0;\n"
    "    v = 0;\n"
    "  end ground;\n"
    "  transition bounce from * to flight when h < 0 do\n"
    "    h := 0;\n"
    "    v := -e * v;\n"
    "  end;\n"
    "  transition again from flight to flight when h < 0 do\n"
    "    h := 0;\n"
    "    v := -e * v;\n"
    "  end;\n"
    "  transition to_slow from flight to slow when time >= 100 end;\n"
    "end Ball;\n"
    "model two_balls\n"
    "  Ball b1;\n"
    "  Ball b2(e = 0.5);\n"
    "  experiment t_end = 6, zeno_policy = \"rest\", rtol = 1e-10, atol = 1e-12;\n"
    "end two_balls;\n";

static void zeno_ball_components(void)
{
    hy_lang_experiment ex;
    hy_lang_unit *unit = compile_source("two_balls.hym", ball_component_model, &ex);
    if (!unit)
        return;
    hydae_model *m = hy_lang_unit_model(unit);
    static const struct {
        const char *chart;
        double e;
    } balls[] = { { "b1", 0.8 }, { "b2", 0.5 } };
    for (int b = 0; b < 2; b++) {
        run_result r;
        int status = run_model(m, &ex, balls[b].chart, &r);
        CHECK(status == 0, "two_balls runs (status %d)", status);
        double t1 = sqrt(2.0 / 9.81), t_inf = t1 * (1.0 + 2.0 * balls[b].e / (1.0 - balls[b].e));
        double t_rest = NAN;
        for (int i = 0; status == 0 && i < r.rows.n_rows && isnan(t_rest); i++)
            if (strcmp(r.mode[i], "ground") == 0)
                t_rest = r.rows.t[i];
        char what[64];
        snprintf(what, sizeof what, "%s (e = %g) enters its resting mode", balls[b].chart,
                 balls[b].e);
        CHECK_NEAR(t_rest, t_inf, 1e-8, what);
        CHECK(r.stats.n_zeno_rests == 2, "%ld resting modes entered, want 2",
              r.stats.n_zeno_rests);
        run_result_free(&r);
    }
    hy_lang_unit_free(unit);
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    crossing_run("crosses(x - 0.5)", 0);
    crossing_run("x > 0.5", 1);
    any_mode_reset();
    zeno_ball();
    zeno_ball_components();
    return CHECK_DONE();
}
