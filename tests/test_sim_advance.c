/*
** hydae_sim_advance, a run in pieces: advancing to every output point of
** the grid gives the rows of one hydae_sim_run with dae_interpolation =
** FALSE (which also steps onto the output points) bit for bit, and each
** call's values equal that run's grid row; irregular pieces of the
** bouncing ball match the closed-form free fall h = 1 - g t^2 / 2 before
** the first impact at t = sqrt(2 / g); a target behind the run is
** refused and the run goes on.
*/
#include "check.h"
#include "examples.h"
#include "rows.h"

#include <string.h>

static hydae_sim *make_sim(hydae_model *m, const hydae_example *ex, test_rows *rows)
{
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s != NULL, "%s: create: %s", ex->name, hydae_model_errmsg(m));
    if (!s)
        return NULL;
    test_rows_init(rows, m);
    CHECK(hydae_sim_set_time(s, 0.0, ex->t_end) == 0
              && hydae_sim_set_output_interval(s, ex->dt_out) == 0
              && hydae_sim_set_tolerances(s, ex->rtol, ex->atol) == 0
              && hydae_sim_set_option(s, "dae_interpolation", "FALSE") == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, rows) == 0,
          "%s: settings", ex->name);
    return s;
}

/* Same doubles, NaN equal to NaN. */
static int same_bits(const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i]))))
            return 0;
    return 1;
}

static void pieces_equal_one_run(const char *name)
{
    const hydae_example *ex = hydae_example_find(name);
    hydae_model *m = ex->build();
    test_rows whole, pieces;
    hydae_sim *s = make_sim(m, ex, &whole);
    CHECK(s && hydae_sim_run(s) == 0, "%s: one run: %s", name, s ? hydae_sim_errmsg(s) : "");
    hydae_stats st_whole;
    hydae_sim_get_stats(s, &st_whole);
    hydae_sim_free(s);

    s = make_sim(m, ex, &pieces);
    int n_cols = hydae_model_n_columns(m);
    double *values = malloc(sizeof(double) * (size_t)n_cols);
    long n_grid = (long)ceil(ex->t_end / ex->dt_out - 1e-9);
    int n_values_differ = 0;
    for (long k = 0; k <= n_grid && s; k++) {
        /* The grid's times as the engine makes them (output.c). */
        double t_k = k >= n_grid ? ex->t_end : (double)k * ex->dt_out;
        int status = hydae_sim_advance(s, t_k, values);
        CHECK(status == 0, "%s: advance to %g: %s", name, t_k, hydae_sim_errmsg(s));
        if (status)
            break;
        /* The last grid row sent is the one at t_k. */
        int last_grid = pieces.n_rows - 1;
        while (last_grid >= 0 && pieces.kind[last_grid] != HYDAE_ROW_GRID)
            last_grid--;
        if (last_grid < 0 || pieces.t[last_grid] != t_k
            || !same_bits(values, pieces.values + (size_t)last_grid * (size_t)n_cols, n_cols))
            n_values_differ++;
    }
    CHECK(n_values_differ == 0, "%s: %d advances whose values are not the grid row", name,
          n_values_differ);
    CHECK(pieces.n_rows == whole.n_rows, "%s: %d rows in pieces, %d in one run", name,
          pieces.n_rows, whole.n_rows);
    int n_rows_differ = 0;
    for (int i = 0; i < pieces.n_rows && i < whole.n_rows; i++)
        if (pieces.kind[i] != whole.kind[i] || pieces.t[i] != whole.t[i]
            || !same_bits(pieces.values + (size_t)i * (size_t)n_cols,
                          whole.values + (size_t)i * (size_t)n_cols, n_cols))
            n_rows_differ++;
    CHECK(n_rows_differ == 0, "%s: %d rows differ from one run", name, n_rows_differ);
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    CHECK(st.n_steps == st_whole.n_steps && st.n_events == st_whole.n_events
              && st.n_res_evals == st_whole.n_res_evals,
          "%s: steps %ld/%ld, events %ld/%ld, residuals %ld/%ld in pieces/one run", name,
          st.n_steps, st_whole.n_steps, st.n_events, st_whole.n_events, st.n_res_evals,
          st_whole.n_res_evals);
    CHECK(st.n_events > 0, "%s: the scenario has events", name);
    printf("%s: %d rows, %ld steps, %ld events, the same in %ld pieces\n", name, pieces.n_rows,
           st.n_steps, st.n_events, n_grid + 1);
    free(values);
    hydae_sim_free(s);
    hydae_model_free(m);
    test_rows_free(&whole);
    test_rows_free(&pieces);
}

static void irregular_pieces(void)
{
    const hydae_example *ex = hydae_example_find("bouncing_ball");
    hydae_model *m = ex->build();
    test_rows rows;
    hydae_sim *s = make_sim(m, ex, &rows);
    int ch = test_column(m, "h"), cv = test_column(m, "v");
    double values[16];
    CHECK(hydae_model_n_columns(m) <= 16 && ch >= 0 && cv >= 0, "columns");
    const double g = 9.81, t_impact = sqrt(2.0 / g);
    double t = 0.0, worst = 0.0;
    for (int k = 1; t < 0.95 * t_impact; k++) {
        t += 0.0123 * k; /* pieces of growing length, off the grid */
        t = fmin(t, 0.95 * t_impact);
        CHECK(hydae_sim_advance(s, t, values) == 0, "advance to %g: %s", t, hydae_sim_errmsg(s));
        worst = fmax(worst, fabs(values[ch] - (1.0 - 0.5 * g * t * t)));
        worst = fmax(worst, fabs(values[cv] + g * t));
    }
    CHECK(worst < 1e-7, "free fall in pieces: worst error %.3g", worst);
    CHECK(hydae_sim_time(s) == t, "time reached %.17g, want %.17g", hydae_sim_time(s), t);
    int status = hydae_sim_advance(s, 0.1, values);
    CHECK(status == HYDAE_ERR_ARG && strstr(hydae_sim_errmsg(s), "cannot advance"),
          "a target behind the run: %d %s", status, hydae_sim_errmsg(s));
    /* Across the impact to the end. */
    CHECK(hydae_sim_advance(s, t_impact + 0.1, values) == 0, "past the impact: %s",
          hydae_sim_errmsg(s));
    CHECK(values[cv] > 0.0, "the ball rises after the impact (v = %g)", values[cv]);
    CHECK(hydae_sim_advance(s, ex->t_end, values) == 0, "to t_end: %s", hydae_sim_errmsg(s));
    hydae_sim_free(s);
    hydae_model_free(m);
    test_rows_free(&rows);
}

int main(void)
{
    pieces_equal_one_run("bouncing_ball");
    pieces_equal_one_run("string_pendulum");
    pieces_equal_one_run("relay");
    irregular_pieces();
    return CHECK_DONE();
}
