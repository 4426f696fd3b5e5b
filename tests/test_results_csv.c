/*
** CSV with chosen columns (hydae_sim_add_csv_vars) and reading CSV back
** (io/csvread.h, used by `hydae plot`):
**   - every column chosen gives the very bytes hydae_sim_add_csv writes;
**   - mode(thread) is "free" exactly where vx has a value (vx exists only
**     in free), and a left limit keeps the mode of the row before it;
**   - a run read back gives every value the engine delivered (17 digits
**     round-trip a double) and the row kinds from repeated times;
**   - a hand-written file: quoted names, empty cells, a mode column, a
**     stop note; malformed files are refused naming file and line.
*/
#include "check.h"
#include "examples.h"
#include "io/csvread.h"
#include "rows.h"

#include <stdlib.h>
#include <string.h>

static char *slurp(FILE *f, long *size)
{
    rewind(f);
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    rewind(f);
    char *text = malloc((size_t)*size + 1);
    if (text && fread(text, 1, (size_t)*size, f) == (size_t)*size)
        text[*size] = '\0';
    return text;
}

static hydae_sim *pendulum_sim(hydae_model *m)
{
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s != NULL, "create");
    if (s)
        CHECK(hydae_sim_set_time(s, 0.0, 12.0) == 0
                  && hydae_sim_set_output_interval(s, 0.01) == 0,
              "settings");
    return s;
}

static void same_bytes_as_add_csv(void)
{
    hydae_model *m = example_string_pendulum();
    hydae_sim *s = pendulum_sim(m);
    FILE *plain = tmpfile(), *chosen = tmpfile();
    if (!s || !plain || !chosen)
        return;
    CHECK(hydae_sim_add_csv(s, plain) == 0, "add_csv");
    CHECK(hydae_sim_add_csv_vars(s, chosen, "phi,omega,x,y,F,r,vx,vy", 0) == 0, "add_csv_vars");
    CHECK(hydae_sim_run(s) == 0, "run: %s", hydae_sim_errmsg(s));
    long n_plain = 0, n_chosen = 0;
    char *a = slurp(plain, &n_plain), *b = slurp(chosen, &n_chosen);
    CHECK(a && b && n_plain == n_chosen && memcmp(a, b, (size_t)n_plain) == 0,
          "the two CSV writers differ (%ld and %ld bytes)", n_plain, n_chosen);
    free(a);
    free(b);
    fclose(plain);
    fclose(chosen);
    hydae_sim_free(s);
    hydae_model_free(m);
}

static void round_trip_with_modes(void)
{
    hydae_model *m = example_string_pendulum();
    hydae_sim *s = pendulum_sim(m);
    FILE *f = tmpfile();
    if (!s || !f)
        return;
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0, "row sink");
    CHECK(hydae_sim_add_csv_vars(s, f, NULL, 1) == 0, "add_csv_vars");
    CHECK(hydae_sim_run(s) == 0, "run: %s", hydae_sim_errmsg(s));
    rewind(f);
    hy_results r;
    hy_results_init(&r);
    char err[256];
    CHECK(hy_csv_read(&r, f, "run.csv", err, sizeof err) == 0, "read back: %s", err);
    int n_columns = hydae_model_n_columns(m);
    CHECK(r.n_vars == n_columns + 1, "%d columns read, want %d", r.n_vars, n_columns + 1);
    CHECK(r.n_rows == rows.n_rows, "%ld rows read, the run gave %d", r.n_rows, rows.n_rows);
    int mode_var = hy_results_find(&r, "mode(thread)"), c_vx = test_column(m, "vx");
    CHECK(mode_var == n_columns && r.vars[mode_var].is_mode, "mode(thread) is not the last column");
    if (r.n_rows == rows.n_rows && mode_var == n_columns) {
        int n_differ = 0, n_kind = 0, n_mode = 0;
        for (long k = 0; k < r.n_rows; k++) {
            n_differ += r.t[k] != rows.t[k];
            for (int c = 0; c < n_columns; c++) {
                double got = hy_results_value(&r, k, c), want = test_value(&rows, (int)k, c);
                n_differ += !(got == want || (isnan(got) && isnan(want)));
            }
            n_kind += r.kind[k] != (unsigned char)rows.kind[k];
            const char *mode = r.vars[mode_var].labels[(int)hy_results_value(&r, k, mode_var)];
            const char *want = isnan(test_value(&rows, (int)k, c_vx)) ? "bound" : "free";
            if (rows.kind[k] == HYDAE_ROW_EVENT_LEFT && k > 0)
                want = r.vars[mode_var].labels[(int)hy_results_value(&r, k - 1, mode_var)];
            n_mode += strcmp(mode, want) != 0;
        }
        CHECK(n_differ == 0, "%d values differ after the round trip", n_differ);
        CHECK(n_kind == 0, "%d row kinds differ (events are told by repeated times)", n_kind);
        CHECK(n_mode == 0, "the mode is wrong in %d rows", n_mode);
    }
    hy_results_free(&r);
    fclose(f);
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* Parse text as a CSV file; the status, the message in err. */
static int parse(const char *text, hy_results *r, char *err, size_t size)
{
    FILE *f = tmpfile();
    if (!f)
        return -100;
    fputs(text, f);
    rewind(f);
    hy_results_init(r);
    int status = hy_csv_read(r, f, "t.csv", err, size);
    fclose(f);
    return status;
}

static void hand_written(void)
{
    const char *text = "time,\"a,b\",\"say \"\"hi\"\"\",mode(c)\n"
                       "0,1.5,,one\n"
                       "\n"
                       "1,-2e-3,7,one\n"
                       "1,3,7,\"t,wo\"\n"
                       "1,3,7,\"t,wo\"\n"
                       "2,4,,\n"
                       "# hydae: stopped early at t = 2.5: it broke\n";
    hy_results r;
    char err[256];
    CHECK(parse(text, &r, err, sizeof err) == 0, "parse: %s", err);
    CHECK(r.n_vars == 3 && strcmp(r.vars[0].name, "a,b") == 0
              && strcmp(r.vars[1].name, "say \"hi\"") == 0 && r.vars[2].is_mode,
          "header misread");
    CHECK(r.n_rows == 5, "%ld rows, want 5", r.n_rows);
    if (r.n_rows == 5 && r.n_vars == 3) {
        CHECK(hy_results_value(&r, 0, 0) == 1.5 && isnan(hy_results_value(&r, 0, 1))
                  && hy_results_value(&r, 1, 0) == -2e-3 && hy_results_value(&r, 1, 1) == 7.0,
              "values misread");
        CHECK(r.vars[2].n_labels == 2 && strcmp(r.vars[2].labels[1], "t,wo") == 0
                  && hy_results_value(&r, 2, 2) == 1.0 && isnan(hy_results_value(&r, 4, 2)),
              "mode column misread");
        CHECK(r.kind[0] == HYDAE_ROW_GRID && r.kind[1] == HYDAE_ROW_EVENT_LEFT
                  && r.kind[2] == HYDAE_ROW_EVENT_RIGHT && r.kind[3] == HYDAE_ROW_GRID
                  && r.kind[4] == HYDAE_ROW_GRID,
              "row kinds from repeated times");
        CHECK(r.stopped_early && r.t_stopped == 2.5 && strcmp(r.stop_message, "it broke") == 0,
              "stop note misread");
    }
    hy_results_free(&r);

    const struct { const char *text, *message; } bad[] = {
        { "x,y\n1,2\n", "t.csv:1: the first column is 'x'" },
        { "time,y\n1,2\n2\n", "t.csv:3: 1 cells, but the header has 2" },
        { "time,y\n1,abc\n", "t.csv:2: 'abc' in column 'y' is not a number" },
        { "time,y\n1,2\n0,2\n", "t.csv:3: time 0 goes back" },
        { "time,y\n,2\n", "t.csv:2: '' in column 'time' is not a number" },
        { "", "t.csv: empty" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int status = parse(bad[i].text, &r, err, sizeof err);
        CHECK(status == HYDAE_ERR_ARG && strstr(err, bad[i].message),
              "bad file %zu: status %d, message '%s', want '%s'", i, status, err,
              bad[i].message);
        hy_results_free(&r);
    }
}

int main(void)
{
    same_bytes_as_add_csv();
    round_trip_with_modes();
    hand_written();
    return CHECK_DONE();
}
