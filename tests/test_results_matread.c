/*
** hydae's MAT reader (src/io/matread.c, for `hydae plot FILE.mat`) against
** the rows of the run that wrote the file: the string pendulum (units given
** here through hydae_mode_set_var_info) written by hydae_sim_add_mat with
** its modes while a row sink keeps every row; the table read back must hold
** every row's time and every value bit for bit (NaN where the row has
** none), the rows' kinds (left and right limits at the 4 events), the mode
** column as the names bound and free, the units from the descriptions, the
** parameters at their values; a run that stopped early its mark; a file
** cut anywhere is refused with a message, never read in part.
*/
#include "check.h"
#include "examples.h"
#include "io/matread.h"
#include "rows.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The string pendulum with units, run with a MAT file to `mat` and every
** row kept in rows. The run's status. */
static int run_pendulum(FILE *mat, test_rows *rows, double L)
{
    hydae_model *m = example_string_pendulum();
    hydae_mode *bound = hydae_model_mode(m, "bound");
    CHECK(hydae_mode_set_var_info(bound, 0, "rad", "angle") == 0
              && hydae_mode_set_var_info(bound, 1, "rad/s", NULL) == 0
              && hydae_model_set_param(m, "L", L) == 0,
          "units: %s", hydae_model_errmsg(m));
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    test_rows_init(rows, m);
    CHECK(s && hydae_sim_set_time(s, 0.0, 12.0) == 0 && hydae_sim_set_output_interval(s, 0.05) == 0
              && hydae_sim_add_mat(s, mat, NULL, 1) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, rows) == 0,
          "setup: %s", s ? hydae_sim_errmsg(s) : "");
    status = s ? hydae_sim_run(s) : -1;
    hydae_sim_free(s);
    hydae_model_free(m);
    return status;
}

static int same(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

static void compare(const hy_results *r, const test_rows *rows, const hydae_model *m)
{
    CHECK(r->n_rows == rows->n_rows, "%ld rows read, %d written", r->n_rows, rows->n_rows);
    int n_events = 0, bad_values = 0, bad_kinds = 0;
    for (long k = 0; k < r->n_rows && k < rows->n_rows; k++) {
        CHECK(r->t[k] == rows->t[k], "row %ld: t %.17g, want %.17g", k, r->t[k], rows->t[k]);
        int want_left = rows->kind[k] == HYDAE_ROW_EVENT_LEFT;
        int want_right = rows->kind[k] == HYDAE_ROW_EVENT_RIGHT;
        bad_kinds += want_left != (r->kind[k] == HYDAE_ROW_EVENT_LEFT)
                     || want_right != (r->kind[k] == HYDAE_ROW_EVENT_RIGHT);
        n_events += want_left;
        for (int c = 0; c < rows->n_columns; c++) {
            int var = hy_results_find(r, hydae_model_column_name(m, c));
            bad_values += var < 0 || !same(hy_results_value(r, k, var),
                                           rows->values[(size_t)k * (size_t)rows->n_columns + (size_t)c]);
        }
    }
    CHECK(bad_values == 0, "%d values differ", bad_values);
    CHECK(bad_kinds == 0, "%d row kinds differ", bad_kinds);
    CHECK(n_events == 4, "%d events, want 4", n_events);
}

int main(void)
{
    FILE *mat = tmpfile();
    test_rows rows;
    CHECK(run_pendulum(mat, &rows, 1.0) == 0, "the run");
    hydae_model *m = example_string_pendulum(); /* for the column names */
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    rewind(mat);
    hy_results r;
    hy_results_init(&r);
    char err[1024];
    CHECK(hy_mat_read(&r, mat, "sp.mat", err, sizeof err) == 0, "read: %s", err);
    compare(&r, &rows, m);
    int phi = hy_results_find(&r, "phi"), omega = hy_results_find(&r, "omega");
    int mode = hy_results_find(&r, "mode(thread)"), L = hy_results_find(&r, "L");
    CHECK(phi >= 0 && strcmp(r.vars[phi].unit, "rad") == 0
              && strcmp(r.vars[phi].description, "angle") == 0,
          "phi: unit and description");
    CHECK(omega >= 0 && strcmp(r.vars[omega].unit, "rad/s") == 0, "omega's unit");
    CHECK(mode >= 0 && r.vars[mode].is_mode && r.vars[mode].n_labels == 2
              && strcmp(r.vars[mode].labels[0], "bound") == 0
              && strcmp(r.vars[mode].labels[1], "free") == 0,
          "the mode column's names");
    CHECK(mode >= 0 && hy_results_value(&r, 0, mode) == 0.0, "bound at t = 0");
    CHECK(L >= 0 && r.vars[L].is_param && hy_results_value(&r, r.n_rows - 1, L) == 1.0,
          "the parameter L = 1 in every row");
    CHECK(!r.stopped_early, "not stopped early");
    hy_results_free(&r);

    /* Cut anywhere: refused, with the file named. */
    fseek(mat, 0, SEEK_END);
    long size = ftell(mat);
    int n_refused = 0, n_cuts = 0;
    for (long cut = 0; cut < size; cut += size / 97 + 1) {
        rewind(mat);
        char buf[65536];
        FILE *part = tmpfile();
        for (long done = 0; done < cut;) {
            size_t n = fread(buf, 1, (size_t)(cut - done) < sizeof buf ? (size_t)(cut - done)
                                                                        : sizeof buf, mat);
            fwrite(buf, 1, n, part);
            done += (long)n;
        }
        rewind(part);
        hy_results_init(&r);
        n_cuts++;
        n_refused += hy_mat_read(&r, part, "cut.mat", err, sizeof err) == HYDAE_ERR_ARG
                     && strncmp(err, "cut.mat: ", 9) == 0;
        hy_results_free(&r);
        fclose(part);
    }
    CHECK(n_refused == n_cuts, "%d of %d cut files refused", n_refused, n_cuts);
    test_rows_free(&rows);
    fclose(mat);

    /* A run that fails at its start: the mark, no rows. */
    mat = tmpfile();
    CHECK(run_pendulum(mat, &rows, 0.0) != 0, "L = 0 fails");
    rewind(mat);
    hy_results_init(&r);
    CHECK(hy_mat_read(&r, mat, "bad.mat", err, sizeof err) == 0, "read: %s", err);
    CHECK(r.stopped_early && r.t_stopped == 0.0 && strstr(r.stop_message, "not finite"),
          "stopped early at 0: '%s'", r.stop_message);
    CHECK(r.n_rows == (long)rows.n_rows, "%ld rows, %d written", r.n_rows, rows.n_rows);
    hy_results_free(&r);
    test_rows_free(&rows);
    fclose(mat);
    hydae_sim_free(s);
    hydae_model_free(m);
    return CHECK_DONE();
}
