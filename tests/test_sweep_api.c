/*
** The C API of parameter studies (hydae_sweep_*, docs/sweep.md), checked
** against runs made independently of it:
**  - the string pendulum (examples/string_pendulum.hym) over a 3 x 3 grid
**    of L and kappa on 2 threads: every row's measures equal, bit for bit,
**    those this test computes itself from a fresh sim of the same
**    parameters: count(stretch) and count(unstretch) from the active mode
**    changing between rows, max(F), min(r), the final phi, integral(F) by
**    the trapezoid rule over the rows, first(unstretch) as the time of the
**    first row in mode free (within 1e-12: the event's time);
**  - the same table on 1 thread, bit for bit, and rows in run order;
**  - a sample (normal and uniform) reproducible on 1 and 3 threads and
**    inside its bounds; Latin hypercube: one run per stratum;
**  - the table as CSV and as MAT v4 (read back here from the format's
**    definition, MATLAB "MAT-File Format" level 4) holding the same doubles;
**  - a failing run (x' = a x^2 blows up at t = 1/a) is a row with its
**    message, the others ok; a callback that stops the sweep; bad input;
**  - each run's result file (hydae_sweep_set_runs_dir) the bytes a fresh
**    sim of its parameters writes with hydae_sim_add_csv.
*/
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "check.h"
#include "hydae.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* examples/ beside this file's tests/. */
static void example_path(char *buf, size_t size, const char *name)
{
    const char *file = __FILE__, *slash = strrchr(file, '/');
    int dir_len = slash ? (int)(slash - file) : 0;
    snprintf(buf, size, "%.*s%s../examples/%s", dir_len, file, slash ? "/" : "", name);
}

enum { N_MEASURES = 7 };
static const char *const MEASURES =
    "count(stretch),count(unstretch),first(unstretch),max(F),min(r),integral(F),phi";

/* The measures of one run, computed from its rows and active mode. */
typedef struct single_run {
    hydae_sim *sim;
    int col_F, col_r, col_phi;
    long n_rows, n_stretch, n_unstretch;
    char mode[32];
    double first_free, max_F, min_r, area_F, final_phi, t_prev, F_prev;
} single_run;

static int column_of(const hydae_model *m, const char *name)
{
    for (int c = 0; c < hydae_model_n_columns(m); c++)
        if (strcmp(hydae_model_column_name(m, c), name) == 0)
            return c;
    return -1;
}

static int single_row(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)kind;
    single_run *r = user;
    const char *mode = hydae_sim_mode_name(r->sim, 0);
    if (r->n_rows > 0 && strcmp(mode, r->mode) != 0) {
        if (strcmp(mode, "free") == 0) {
            r->n_unstretch++;
            if (isnan(r->first_free))
                r->first_free = t;
        } else {
            r->n_stretch++;
        }
    }
    snprintf(r->mode, sizeof r->mode, "%s", mode);
    double F = values[r->col_F], rr = values[r->col_r];
    if (r->n_rows == 0)
        r->area_F = 0.0;
    else if (!isnan(F) && !isnan(r->F_prev))
        r->area_F += 0.5 * (t - r->t_prev) * (F + r->F_prev);
    if (!isnan(F) && (isnan(r->max_F) || F > r->max_F))
        r->max_F = F;
    if (!isnan(rr) && (isnan(r->min_r) || rr < r->min_r))
        r->min_r = rr;
    r->final_phi = values[r->col_phi];
    r->t_prev = t;
    r->F_prev = F;
    r->n_rows++;
    return 0;
}

/* One run of (L, kappa) on a fresh sim: 0 or its status. */
static int run_single(hydae_model *m, const char *const *names, const double *params,
                      int n_params, double *measures)
{
    single_run r = { NULL, column_of(m, "F"), column_of(m, "r"), column_of(m, "phi"), 0, 0, 0,
                     "", NAN, NAN, NAN, 0.0, NAN, 0.0, NAN };
    int status = 0;
    r.sim = hydae_sim_create(m, &status);
    if (!r.sim)
        return status;
    status = hydae_sim_apply_experiment(r.sim);
    for (int k = 0; k < n_params && !status; k++)
        status = hydae_sim_set_param(r.sim, names[k], params[k]);
    if (!status)
        status = hydae_sim_add_row_sink(r.sim, single_row, &r);
    if (!status)
        status = hydae_sim_run(r.sim);
    hydae_sim_free(r.sim);
    double got[N_MEASURES] = { (double)r.n_stretch, (double)r.n_unstretch, r.first_free, r.max_F,
                               r.min_r, r.area_F, r.final_phi };
    memcpy(measures, got, sizeof got);
    return status;
}

/* Rows as the callback sees them: their order and a copy of each. */
typedef struct collected {
    long n, order_errors, next;
    double measures[64][N_MEASURES];
    double params[64][2];
    long stop_after;         /* > 0: stop the sweep after so many rows */
} collected;

static int collect_row(void *user, const hydae_sweep_row *row)
{
    collected *c = user;
    if (row->run < c->next)
        c->order_errors++;
    c->next = row->run + 1;
    if (row->run < 64) {
        memcpy(c->measures[row->run], row->measures, sizeof c->measures[0]);
        memcpy(c->params[row->run], row->params, sizeof(double) * 2);
    }
    c->n++;
    return c->stop_after > 0 && c->n >= c->stop_after;
}

static hydae_sweep *pendulum_grid(hydae_model *m, int n_threads)
{
    static const double L[] = { 0.8, 1.0, 1.2 };
    hydae_sweep *sw = hydae_sweep_create(m);
    int status = sw ? hydae_sweep_add_grid(sw, "L", L, 3) : -1;
    if (!status)
        status = hydae_sweep_add_grid_spec(sw, "kappa=0:0.05:0.1");
    if (!status)
        status = hydae_sweep_add_measures(sw, MEASURES);
    if (!status)
        status = hydae_sweep_set_threads(sw, n_threads);
    CHECK(status == 0, "grid set up: %s", sw ? hydae_sweep_errmsg(sw) : "no sweep");
    return sw;
}

static void test_grid_against_single_runs(hydae_model *m)
{
    hydae_sweep *two = pendulum_grid(m, 2), *one = pendulum_grid(m, 1);
    static collected c2, c1;
    CHECK(hydae_sweep_run(two, collect_row, &c2) == 0, "2 threads: %s", hydae_sweep_errmsg(two));
    CHECK(hydae_sweep_run(one, collect_row, &c1) == 0, "1 thread: %s", hydae_sweep_errmsg(one));
    CHECK(hydae_sweep_n_runs(two) == 9 && c2.n == 9 && c2.order_errors == 0,
          "9 rows in run order: %ld rows, %ld out of order", c2.n, c2.order_errors);
    CHECK(memcmp(c1.measures, c2.measures, sizeof c1.measures) == 0,
          "1 and 2 threads: the same measures, bit for bit");
    CHECK(hydae_sweep_n_params(two) == 2 && strcmp(hydae_sweep_param_name(two, 1), "kappa") == 0
              && hydae_sweep_n_measures(two) == N_MEASURES
              && strcmp(hydae_sweep_measure_name(two, 3), "max(F)") == 0,
          "the plan's names");
    const char *names[] = { "L", "kappa" };
    static const double L[] = { 0.8, 1.0, 1.2 }, kappa[] = { 0.0, 0.05, 0.1 };
    int n_slack = 0;
    for (long i = 0; i < 9; i++) {
        double want[N_MEASURES] = { 0 };
        const double *params = c2.params[i];
        CHECK(params[0] == L[i / 3] && params[1] == kappa[i % 3],
              "run %ld: L = %g, kappa = %g (the last axis fastest)", i, params[0], params[1]);
        CHECK(run_single(m, names, params, 2, want) == 0, "single run %ld", i);
        const double *got = c2.measures[i];
        n_slack += want[1] > 0;
        for (int k = 0; k < N_MEASURES; k++) {
            if (k == 2) {
                CHECK((isnan(got[k]) && isnan(want[k])) || fabs(got[k] - want[k]) <= 1e-12,
                      "run %ld first(unstretch) %.17g, its first row in free %.17g", i, got[k],
                      want[k]);
                continue;
            }
            CHECK(memcmp(&got[k], &want[k], sizeof(double)) == 0,
                  "run %ld measure %d: sweep %.17g, single run %.17g", i, k, got[k], want[k]);
        }
        hydae_sweep_row row;
        CHECK(hydae_sweep_get_row(two, i, &row) == 0 && row.run == i && !row.failed
                  && strcmp(row.status, "ok") == 0 && row.steps > 0
                  && memcmp(row.measures, got, sizeof(double) * N_MEASURES) == 0,
              "get_row %ld", i);
    }
    CHECK(n_slack > 0 && n_slack < 9, "some runs go slack, some do not: %d of 9", n_slack);
    hydae_sweep_row row;
    CHECK(hydae_sweep_get_row(two, 9, &row) == HYDAE_ERR_ARG, "no run 9");
    CHECK(hydae_sweep_run(two, NULL, NULL) == HYDAE_ERR_ARG, "a sweep runs once");
    hydae_sweep_free(one);
    hydae_sweep_free(two);
}

/* A MAT v4 matrix read back: header (type, rows, cols, imag, namelen),
** name, elements column after column. 0 on success. */
typedef struct mat_matrix {
    int32_t type, rows, cols;
    char name[64];
    unsigned char *data;
} mat_matrix;

static int read_matrix(FILE *in, mat_matrix *mx)
{
    int32_t h[5];
    if (fread(h, sizeof h, 1, in) != 1 || h[3] != 0 || h[4] <= 0 || h[4] > 64)
        return -1;
    mx->type = h[0];
    mx->rows = h[1];
    mx->cols = h[2];
    if (fread(mx->name, 1, (size_t)h[4], in) != (size_t)h[4] || mx->name[h[4] - 1] != '\0')
        return -1;
    size_t size = (size_t)mx->rows * (size_t)mx->cols * (mx->type == 0 ? 8 : 1);
    mx->data = malloc(size + 1);
    return mx->data && fread(mx->data, 1, size, in) == size ? 0 : -1;
}

/* Row r of a text matrix, trailing spaces dropped. */
static void text_row(const mat_matrix *mx, int r, char *buf, size_t size)
{
    size_t n = 0;
    for (int c = 0; c < mx->cols && n + 1 < size; c++)
        buf[n++] = (char)mx->data[(size_t)c * (size_t)mx->rows + (size_t)r];
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
}

static void test_table_files(hydae_model *m)
{
    hydae_sweep *sw = pendulum_grid(m, 2);
    CHECK(hydae_sweep_run(sw, NULL, NULL) == 0, "run: %s", hydae_sweep_errmsg(sw));
    FILE *csv = tmpfile(), *mat = tmpfile();
    CHECK(hydae_sweep_write_csv(sw, csv) == 0 && hydae_sweep_write_mat(sw, mat) == 0, "written");
    rewind(csv);
    rewind(mat);
    mat_matrix table = { 0 }, names = { 0 }, status = { 0 };
    int read = read_matrix(mat, &table) == 0 && read_matrix(mat, &names) == 0
               && read_matrix(mat, &status) == 0;
    CHECK(read && table.type == 0 && strcmp(table.name, "table") == 0 && table.rows == 9
              && table.cols == 2 + N_MEASURES + 3 && names.type == 51 && names.rows == table.cols
              && strcmp(status.name, "status") == 0 && status.rows == 9,
          "MAT: table 9 x %d, names, status", 2 + N_MEASURES + 3);
    char line[4096], header[4096] = "", cell[256];
    CHECK(fgets(header, sizeof header, csv) != NULL, "CSV header");
    /* The header is the names matrix with ",status" before steps. */
    char joined[4096] = "";
    for (int j = 0; read && j < names.rows; j++) {
        text_row(&names, j, cell, sizeof cell);
        if (strcmp(cell, "steps") == 0)
            strcat(joined, ",status");
        if (j > 0)
            strcat(joined, ",");
        strcat(joined, cell);
    }
    strcat(joined, "\n");
    CHECK(strcmp(header, joined) == 0, "CSV header '%s' from MAT names '%s'", header, joined);
    long row = 0, mismatches = 0;
    while (read && fgets(line, sizeof line, csv) && row < 9) {
        char *s = line;
        for (int j = 0; j < table.cols + 1; j++) {
            char *end = strchr(s, ',');
            if (end)
                *end = '\0';
            int col = j < table.cols - 2 ? j : j - 1; /* status sits before steps */
            if (j == table.cols - 2) {
                text_row(&status, (int)row, cell, sizeof cell);
                mismatches += strcmp(cell, s) != 0;
            } else {
                double x, want = *s ? strtod(s, NULL) : NAN;
                memcpy(&x, table.data + 8 * ((size_t)col * 9 + (size_t)row), sizeof x);
                if (j == table.cols) /* wall_s: 6 decimals in the CSV */
                    mismatches += fabs(x - want) > 5e-7;
                else
                    mismatches += !(x == want || (isnan(x) && isnan(want)));
            }
            s = end ? end + 1 : s;
        }
        row++;
    }
    CHECK(row == 9 && mismatches == 0, "MAT and CSV: the same 9 rows (%ld cells differ)",
          mismatches);
    free(table.data);
    free(names.data);
    free(status.data);
    fclose(csv);
    fclose(mat);
    hydae_sweep_free(sw);
}

static void sample_run(hydae_model *m, int n_threads, int lhs, collected *c)
{
    hydae_sweep *sw = hydae_sweep_create(m);
    int status = hydae_sweep_add_dist(sw, "kappa=normal(0.05,0.005)");
    if (!status)
        status = hydae_sweep_add_dist(sw, "L=uniform(0.9,1.1)");
    if (!status)
        status = hydae_sweep_set_samples(sw, 20, 7, lhs);
    if (!status)
        status = hydae_sweep_add_measures(sw, MEASURES);
    if (!status)
        status = hydae_sweep_set_threads(sw, n_threads);
    if (!status)
        status = hydae_sweep_run(sw, collect_row, c);
    CHECK(status == 0 && c->n == 20, "sample on %d threads: %s", n_threads,
          hydae_sweep_errmsg(sw));
    hydae_sweep_free(sw);
}

static void test_samples(hydae_model *m)
{
    static collected one, three, strata;
    sample_run(m, 1, 0, &one);
    sample_run(m, 3, 0, &three);
    CHECK(memcmp(one.params, three.params, sizeof(double) * 2 * 20) == 0
              && memcmp(one.measures, three.measures, sizeof(double) * N_MEASURES * 20) == 0,
          "a seeded sample: the same on 1 and 3 threads");
    int inside = 1;
    for (int i = 0; i < 20; i++)
        inside &= one.params[i][1] > 0.9 && one.params[i][1] < 1.1
                  && fabs(one.params[i][0] - 0.05) < 6 * 0.005;
    CHECK(inside, "L in (0.9, 1.1), kappa within 6 sd");
    sample_run(m, 2, 1, &strata);
    int seen[20] = { 0 }, once = 1;
    for (int i = 0; i < 20; i++) {
        int s = (int)((strata.params[i][1] - 0.9) / 0.01);
        if (s >= 0 && s < 20)
            seen[s]++;
    }
    for (int s = 0; s < 20; s++)
        once &= seen[s] == 1;
    CHECK(once, "Latin hypercube: one run in each twentieth of (0.9, 1.1)");
}

static hydae_sweep *sweep_to_interrupt;

static int interrupt_at_first(void *user, const hydae_sweep_row *row)
{
    (void)row;
    ++*(long *)user;
    hydae_sweep_interrupt(sweep_to_interrupt);
    return 0;
}

static const char BLOWUP[] = "model blowup\n"
                             "  parameter Real a = 1;\n"
                             "  Real x(start = 1);\n"
                             "equation\n"
                             "  der(x) = a * x^2;\n"
                             "  experiment t_end = 1, dt = 0.1;\n"
                             "end blowup;\n";

static void test_failures_and_bad_input(hydae_model *pendulum)
{
    hydae_model *m = hydae_model_load_string(BLOWUP, sizeof BLOWUP - 1, "blowup.hym", NULL, NULL);
    hydae_sweep *sw = hydae_sweep_create(m);
    static const double a[] = { 0.5, 2.0, 0.25 };
    int status = hydae_sweep_add_grid(sw, "a", a, 3);
    if (!status)
        status = hydae_sweep_add_measures(sw, "x");
    if (!status)
        status = hydae_sweep_run(sw, NULL, NULL);
    hydae_sweep_row row;
    CHECK(status == 0 && hydae_sweep_n_failed(sw) == 1, "one failed run of 3: %s",
          hydae_sweep_errmsg(sw));
    CHECK(hydae_sweep_get_row(sw, 1, &row) == 0 && row.failed && strstr(row.status, "t = ")
              && hydae_sweep_get_row(sw, 0, &row) == 0 && !row.failed,
          "run 1 (a = 2) failed with a message naming the time");
    /* x(1) = 1 / (1 - a) for a = 0.5: 2. */
    CHECK(hydae_sweep_get_row(sw, 0, &row) == 0 && fabs(row.measures[0] - 2.0) < 1e-4,
          "x(1) = %.9g for a = 0.5, want 2 (closed form)", row.measures[0]);
    hydae_sweep_free(sw);
    hydae_model_free(m);

    sw = hydae_sweep_create(pendulum);
    CHECK(hydae_sweep_add_grid_spec(sw, "L=1:-0.1:2") == HYDAE_ERR_ARG
              && strstr(hydae_sweep_errmsg(sw), "START:STEP:STOP"),
          "an unreachable stop: %s", hydae_sweep_errmsg(sw));
    CHECK(hydae_sweep_add_measures(sw, "count(jump)") == HYDAE_ERR_ARG
              && strstr(hydae_sweep_errmsg(sw), "no transition 'jump'"),
          "an unknown transition: %s", hydae_sweep_errmsg(sw));
    CHECK(hydae_sweep_add_grid_spec(sw, "nope=1,2") == 0 && hydae_sweep_prepare(sw) != 0
              && strstr(hydae_sweep_errmsg(sw), "nope"),
          "an unknown parameter, named at prepare: %s", hydae_sweep_errmsg(sw));
    CHECK(hydae_sweep_set_option(sw, "no_such_setting", "1") == HYDAE_ERR_ARG
              && strstr(hydae_sweep_errmsg(sw), "no_such_setting")
              && hydae_sweep_set_option(sw, "rtol", "1e-7") == 0,
          "settings checked when given: %s", hydae_sweep_errmsg(sw));
    hydae_sweep_free(sw);

    /* A callback that stops after 2 rows: the sweep stops early. */
    sw = pendulum_grid(pendulum, 2);
    static collected c;
    c.stop_after = 2;
    CHECK(hydae_sweep_run(sw, collect_row, &c) == HYDAE_ERR_CALLBACK && c.n >= 2
              && c.order_errors == 0,
          "a callback stops the sweep: %ld rows", c.n);
    FILE *csv = tmpfile();
    CHECK(hydae_sweep_write_csv(sw, csv) == 0, "the partial table");
    char line[4096], last[4096] = "";
    rewind(csv);
    while (fgets(line, sizeof line, csv))
        snprintf(last, sizeof last, "%s", line);
    CHECK(strncmp(last, "# hydae sweep: stopped", 22) == 0, "ends with a comment: %s", last);
    fclose(csv);
    hydae_sweep_free(sw);

    /* hydae_sweep_interrupt (as a signal handler would call it) at the
    ** first row (handed over after 64 runs, or 0.1 s): HYDAE_INTERRUPTED,
    ** the runs done in the table, the last runs of 400 not run. */
    sw = sweep_to_interrupt = hydae_sweep_create(pendulum);
    status = hydae_sweep_add_grid_spec(sw, "L=0.5:0.05:1.45");
    if (!status)
        status = hydae_sweep_add_grid_spec(sw, "kappa=0:0.01:0.19");
    if (!status)
        status = hydae_sweep_set_threads(sw, 1);
    long n_rows = 0;
    CHECK(status == 0 && hydae_sweep_run(sw, interrupt_at_first, &n_rows) == HYDAE_INTERRUPTED,
          "interrupted: %s", hydae_sweep_errmsg(sw));
    CHECK(hydae_sweep_get_row(sw, 0, &row) == 0 && hydae_sweep_get_row(sw, 399, &row) != 0
              && n_rows >= 1 && n_rows < 400,
          "run 0 in the table, run 399 not: %ld rows", n_rows);
    hydae_sweep_free(sw);
}

/* The whole of a stream, from its start, into buf: its length. */
static size_t slurp(FILE *f, char *buf, size_t size)
{
    rewind(f);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    return n;
}

static void test_runs_dir(hydae_model *m)
{
    char dir[] = "/tmp/hydae-sweep-runs-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "a scratch folder");
    hydae_sweep *sw = hydae_sweep_create(m);
    static const double L[] = { 0.9, 1.1 }, kappa[] = { 0.0, 0.05 };
    int status = hydae_sweep_add_grid(sw, "L", L, 2);
    if (!status)
        status = hydae_sweep_add_grid(sw, "kappa", kappa, 2);
    if (!status)
        status = hydae_sweep_set_runs_dir(sw, dir, "csv");
    if (!status)
        status = hydae_sweep_set_threads(sw, 2);
    if (!status)
        status = hydae_sweep_run(sw, NULL, NULL);
    CHECK(status == 0, "a sweep with a folder of results: %s", hydae_sweep_errmsg(sw));
    static char swept[1 << 20], single[1 << 20];
    for (long i = 0; i < 4; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/run_%ld.csv", dir, i);
        FILE *file = fopen(path, "r"), *mine = tmpfile();
        hydae_sim *s = hydae_sim_create(m, NULL);
        int ok = file && mine && s && hydae_sim_apply_experiment(s) == 0
                 && hydae_sim_set_param(s, "L", L[i / 2]) == 0
                 && hydae_sim_set_param(s, "kappa", kappa[i % 2]) == 0
                 && hydae_sim_add_csv(s, mine) == 0 && hydae_sim_run(s) == 0;
        size_t n_swept = ok ? slurp(file, swept, sizeof swept) : 0;
        size_t n_single = ok ? slurp(mine, single, sizeof single) : 1;
        CHECK(ok && n_swept == n_single && n_swept > 1000 && memcmp(swept, single, n_swept) == 0,
              "run %ld's file (%zu bytes) = a fresh sim's CSV (%zu bytes)", i, n_swept,
              n_single);
        hydae_sim_free(s);
        if (file)
            fclose(file);
        if (mine)
            fclose(mine);
        remove(path);
    }
    rmdir(dir);
    hydae_sweep_free(sw);
}

int main(void)
{
    char path[4096];
    example_path(path, sizeof path, "string_pendulum.hym");
    char *diagnostics = NULL;
    hydae_model *m = hydae_model_load_file(path, &diagnostics, NULL);
    CHECK(m != NULL, "load %s: %s", path, diagnostics ? diagnostics : "");
    hydae_string_free(diagnostics);
    if (!m)
        return CHECK_DONE();
    test_grid_against_single_runs(m);
    test_table_files(m);
    test_samples(m);
    test_failures_and_bad_input(m);
    test_runs_dir(m);
    hydae_model_free(m);
    return CHECK_DONE();
}
