/*
** MAT result files (hydae_sim_add_mat) read back by a reader written here
** from the format's description alone (MATLAB level 4: five int32 header
** fields type, mrows, ncols, imagf, namlen, the name, then the elements
** column after column; OpenModelica User's Guide, "The MATv4 Result File
** Format": Aclass, name, description, dataInfo, data_1, data_2). Every
** value is compared with the rows the engine delivered to a row sink in
** the same run; parameters with the values examples/ documents; the mode
** column with the mode seen in the rows (vx has a value only while free);
** a parameter changed by an action (algebraic_loop: r from 0 to 1 at
** t = 0.5) becomes a trajectory with its left and right limits; a run
** that fails before its first row still names its parameters' values.
** tests/cli_results.sh reads the same files with scipy.io.loadmat.
*/
#include "check.h"
#include "examples.h"
#include "rows.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a MAT v4 reader, independent of src/io/mat4.c ---- */

typedef struct matrix {
    char name[64];
    int32_t type, mrows, ncols;
    double *values; /* numeric matrices, column after column */
    char *text;     /* text matrices, column after column */
} matrix;

enum { N_MATRICES = 6, MAX_MATRICES = 7 }; /* the 7th: hydae_status */

static int read_matrix(FILE *f, matrix *mx)
{
    int32_t header[5];
    memset(mx, 0, sizeof *mx);
    if (fread(header, sizeof header, 1, f) != 1)
        return -1;
    mx->type = header[0];
    mx->mrows = header[1];
    mx->ncols = header[2];
    if (header[3] != 0 || header[4] < 1 || header[4] > (int32_t)sizeof mx->name
        || mx->mrows < 0 || mx->ncols < 0)
        return -1;
    if (fread(mx->name, 1, (size_t)header[4], f) != (size_t)header[4]
        || mx->name[header[4] - 1] != '\0')
        return -1;
    size_t n = (size_t)mx->mrows * (size_t)mx->ncols;
    int precision = (mx->type / 10) % 10, is_text = mx->type % 10 == 1;
    mx->values = malloc(sizeof(double) * (n ? n : 1));
    mx->text = malloc(n + 1);
    if (!mx->values || !mx->text)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (precision == 0) {
            if (fread(&mx->values[i], sizeof(double), 1, f) != 1)
                return -1;
        } else if (precision == 2) {
            int32_t v;
            if (fread(&v, sizeof v, 1, f) != 1)
                return -1;
            mx->values[i] = v;
        } else if (precision == 5) {
            unsigned char c;
            if (fread(&c, 1, 1, f) != 1)
                return -1;
            mx->values[i] = c;
            mx->text[i] = (char)c;
        } else {
            return -1;
        }
    }
    mx->text[n] = '\0';
    (void)is_text;
    return 0;
}

static void free_matrices(matrix *mx)
{
    for (int i = 0; i < MAX_MATRICES; i++) {
        free(mx[i].values);
        free(mx[i].text);
    }
}

/* Column j of a text matrix, trailing spaces removed. */
static void text_column(const matrix *mx, int j, char *buf, size_t size)
{
    size_t len = (size_t)mx->mrows < size - 1 ? (size_t)mx->mrows : size - 1;
    memcpy(buf, mx->text + (size_t)j * (size_t)mx->mrows, len);
    buf[len] = '\0';
    while (len > 0 && buf[len - 1] == ' ')
        buf[--len] = '\0';
}

static double element(const matrix *mx, int row, int col)
{
    return mx->values[(size_t)col * (size_t)mx->mrows + (size_t)row];
}

/* Read the six matrices; check their names, types and the Aclass rows. */
static int read_file(FILE *f, matrix *mx)
{
    static const char *const names[N_MATRICES] = { "Aclass", "name", "description",
                                                   "dataInfo", "data_1", "data_2" };
    static const int types[N_MATRICES] = { 51, 51, 51, 20, 0, 0 };
    rewind(f);
    for (int i = 0; i < N_MATRICES; i++) {
        if (read_matrix(f, &mx[i]) != 0) {
            CHECK(0, "matrix %d (%s) could not be read", i, names[i]);
            return -1;
        }
        CHECK(strcmp(mx[i].name, names[i]) == 0, "matrix %d is '%s', want '%s'", i, mx[i].name,
              names[i]);
        CHECK(mx[i].type == types[i], "matrix %s: type %d, want %d", names[i], mx[i].type,
              types[i]);
    }
    /* After data_2 only the stopped-early mark of a failed run. */
    int next = fgetc(f);
    if (next != EOF) {
        ungetc(next, f);
        CHECK(read_matrix(f, &mx[N_MATRICES]) == 0, "a matrix after data_2 could not be read");
        CHECK(strcmp(mx[N_MATRICES].name, "hydae_status") == 0 && mx[N_MATRICES].type == 51
              && mx[N_MATRICES].mrows == 1, "after data_2: '%s' (type %d), want the text "
              "matrix hydae_status", mx[N_MATRICES].name, mx[N_MATRICES].type);
        CHECK(fgetc(f) == EOF, "bytes after hydae_status");
    }
    /* Aclass is stored as rows: element (r, c) at c * 4 + r. */
    static const char *const aclass[4] = { "Atrajectory", "1.1", "", "binTrans" };
    CHECK(mx[0].mrows == 4, "Aclass has %d rows", mx[0].mrows);
    for (int r = 0; r < 4 && mx[0].mrows == 4; r++) {
        char row[32];
        int len = 0;
        for (int c = 0; c < mx[0].ncols && c < 31; c++)
            row[len++] = mx[0].text[c * 4 + r];
        row[len] = '\0';
        while (len > 0 && row[len - 1] == ' ')
            row[--len] = '\0';
        CHECK(strcmp(row, aclass[r]) == 0, "Aclass row %d is '%s', want '%s'", r + 1, row,
              aclass[r]);
    }
    int n = mx[1].ncols;
    CHECK(mx[2].ncols == n && mx[3].ncols == n && mx[3].mrows == 4,
          "name, description and dataInfo disagree on the number of variables");
    CHECK(mx[4].ncols == 2, "data_1 has %d columns, want 2 (start, end)", mx[4].ncols);
    return 0;
}

/* The variable called name: its position j, or -1. */
static int find_variable(const matrix *mx, const char *name)
{
    for (int j = 0; j < mx[1].ncols; j++) {
        char here[256];
        text_column(&mx[1], j, here, sizeof here);
        if (strcmp(here, name) == 0)
            return j;
    }
    return -1;
}

/* The value of variable j at output row k (k is ignored for data_1). */
static double value_of(const matrix *mx, int j, int k)
{
    int block = (int)element(&mx[3], 0, j), index = (int)element(&mx[3], 1, j);
    const matrix *data = block == 1 ? &mx[4] : &mx[5];
    if (block == 0)
        return element(&mx[5], 0, k);
    return block == 1 ? element(data, index - 1, 0) : element(data, index - 1, k);
}

static int same(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

static hydae_sim *make_sim(hydae_model *m, double t_end)
{
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s != NULL, "create: %s", hydae_model_errmsg(m));
    if (s)
        CHECK(hydae_sim_set_time(s, 0.0, t_end) == 0
                  && hydae_sim_set_output_interval(s, 0.01) == 0
                  && hydae_sim_set_tolerances(s, 1e-8, 1e-10) == 0,
              "settings");
    return s;
}

/* The pendulum with every column, the parameters and the mode. */
static void pendulum_everything(void)
{
    hydae_model *m = example_string_pendulum();
    hydae_sim *s = make_sim(m, 12.0);
    FILE *f = tmpfile();
    CHECK(f != NULL, "tmpfile");
    if (!s || !f)
        return;
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0, "row sink");
    CHECK(hydae_sim_add_mat(s, f, NULL, 1) == 0, "add_mat: %s", hydae_sim_errmsg(s));
    CHECK(hydae_sim_run(s) == 0, "run: %s", hydae_sim_errmsg(s));
    CHECK(!ferror(f), "the MAT file could not be written");
    matrix mx[MAX_MATRICES];
    memset(mx, 0, sizeof mx);
    if (read_file(f, mx) == 0) {
        int n_columns = hydae_model_n_columns(m);
        /* time, the result columns, m L g kappa k, mode(thread) */
        CHECK(mx[1].ncols == 1 + n_columns + 5 + 1, "%d variables, want %d", mx[1].ncols,
              1 + n_columns + 6);
        CHECK(mx[5].ncols == rows.n_rows, "data_2 has %d rows of output, the run gave %d",
              mx[5].ncols, rows.n_rows);
        CHECK(find_variable(mx, "time") == 0, "time is not variable 1");
        int time_ok = 1;
        for (int k = 0; k < rows.n_rows && k < mx[5].ncols; k++)
            time_ok &= value_of(mx, 0, k) == rows.t[k];
        CHECK(time_ok, "time in data_2 differs from the rows' times");
        CHECK(element(&mx[4], 0, 0) == 0.0 && element(&mx[4], 0, 1) == 12.0,
              "data_1 time: %g %g, want 0 12", element(&mx[4], 0, 0), element(&mx[4], 0, 1));
        /* Every value of every result column. */
        for (int c = 0; c < n_columns; c++) {
            const char *name = hydae_model_column_name(m, c);
            int j = find_variable(mx, name);
            CHECK(j > 0 && element(&mx[3], 0, j) == 2, "%s: not a trajectory in data_2", name);
            if (j <= 0)
                continue;
            int n_differ = 0;
            for (int k = 0; k < rows.n_rows && k < mx[5].ncols; k++)
                n_differ += !same(value_of(mx, j, k), test_value(&rows, k, c));
            CHECK(n_differ == 0, "%s: %d of %d values differ from the rows", name, n_differ,
                  rows.n_rows);
        }
        /* Parameters, as examples/string_pendulum.c documents them. */
        const struct { const char *name; double value; } params[] = {
            { "m", 1.0 }, { "L", 1.0 }, { "g", 9.81 }, { "kappa", 0.1 }, { "k", 0.0 }
        };
        for (int i = 0; i < 5; i++) {
            int j = find_variable(mx, params[i].name);
            CHECK(j > 0 && element(&mx[3], 0, j) == 1 && element(&mx[3], 3, j) == 0,
                  "parameter %s: not in data_1 with extrapolation 0", params[i].name);
            if (j > 0) {
                int row = (int)element(&mx[3], 1, j) - 1;
                CHECK(element(&mx[4], row, 0) == params[i].value
                          && element(&mx[4], row, 1) == params[i].value,
                      "parameter %s: %g, %g, want %g", params[i].name, element(&mx[4], row, 0),
                      element(&mx[4], row, 1), params[i].value);
            }
        }
        /* The mode: 2 (free) exactly where vx has a value; a left limit
        ** keeps the mode of the row before it. */
        int j_mode = find_variable(mx, "mode(thread)"), c_vx = test_column(m, "vx");
        CHECK(j_mode > 0, "no mode(thread)");
        char description[200];
        if (j_mode > 0) {
            text_column(&mx[2], j_mode, description, sizeof description);
            CHECK(strstr(description, "1 bound") && strstr(description, "2 free"),
                  "mode description '%s' does not number the modes", description);
            int n_wrong = 0;
            for (int k = 0; k < rows.n_rows && k < mx[5].ncols; k++) {
                double mode = value_of(mx, j_mode, k);
                double want = isnan(test_value(&rows, k, c_vx)) ? 1.0 : 2.0;
                if (rows.kind[k] == HYDAE_ROW_EVENT_LEFT && k > 0)
                    want = value_of(mx, j_mode, k - 1);
                n_wrong += mode != want;
            }
            CHECK(n_wrong == 0, "mode(thread) wrong in %d rows", n_wrong);
        }
        int j_vx = find_variable(mx, "vx");
        if (j_vx > 0) {
            text_column(&mx[2], j_vx, description, sizeof description);
            CHECK(strcmp(description, "variable in free") == 0, "description of vx: '%s'",
                  description);
        }
    }
    free_matrices(mx);
    fclose(f);
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* A parameter an action changes is a trajectory, with its left limit. */
static void changed_parameter(void)
{
    hydae_model *m = example_algebraic_loop();
    hydae_sim *s = make_sim(m, 1.0);
    FILE *f = tmpfile();
    if (!s || !f)
        return;
    test_rows rows;
    test_rows_init(&rows, m);
    CHECK(hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0, "row sink");
    CHECK(hydae_sim_add_mat(s, f, "x, r", 0) == 0, "add_mat: %s", hydae_sim_errmsg(s));
    CHECK(hydae_sim_run(s) == 0, "run: %s", hydae_sim_errmsg(s));
    matrix mx[MAX_MATRICES];
    memset(mx, 0, sizeof mx);
    if (read_file(f, mx) == 0) {
        CHECK(mx[1].ncols == 3, "%d variables, want time, x, r", mx[1].ncols);
        int j = find_variable(mx, "r");
        CHECK(j == 2 && element(&mx[3], 0, j) == 2, "r is not a trajectory");
        int n_wrong = 0, n_left = 0;
        for (int k = 0; j == 2 && k < mx[5].ncols; k++) {
            double t = rows.t[k], want = t < 0.5 ? 0.0 : 1.0;
            if (rows.kind[k] == HYDAE_ROW_EVENT_LEFT) {
                n_left++;
                want = 0.0; /* just before the step */
            }
            n_wrong += value_of(mx, j, k) != want;
        }
        CHECK(n_left == 1, "%d left limits, want 1 (the step at t = 0.5)", n_left);
        CHECK(n_wrong == 0, "r wrong in %d rows", n_wrong);
    }
    free_matrices(mx);
    fclose(f);
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
}

/* L = 0 fails at t = 0, before any row: the file still says L = 0. */
static void failed_at_start(void)
{
    hydae_model *m = example_string_pendulum();
    CHECK(hydae_model_set_param(m, "L", 0.0) == 0, "set L");
    hydae_sim *s = make_sim(m, 12.0);
    FILE *f = tmpfile();
    if (!s || !f)
        return;
    CHECK(hydae_sim_add_mat(s, f, "phi,L", 0) == 0, "add_mat: %s", hydae_sim_errmsg(s));
    CHECK(hydae_sim_run(s) != 0, "the run should fail");
    matrix mx[MAX_MATRICES];
    memset(mx, 0, sizeof mx);
    if (read_file(f, mx) == 0) {
        CHECK(mx[5].ncols == 0, "data_2 has %d rows, want 0", mx[5].ncols);
        int j = find_variable(mx, "L");
        CHECK(j > 0 && element(&mx[3], 0, j) == 1, "L not in data_1");
        if (j > 0)
            CHECK(element(&mx[4], (int)element(&mx[3], 1, j) - 1, 0) == 0.0, "L should be 0");
        char description[1400];
        text_column(&mx[2], 0, description, sizeof description);
        CHECK(strstr(description, "stopped early at t = 0") != NULL,
              "time's description does not say the run stopped early: '%s'", description);
        char status_text[1400] = "";
        if (mx[N_MATRICES].text)
            for (int c = 0; c < mx[N_MATRICES].ncols && c < (int)sizeof status_text - 1; c++)
                status_text[c] = mx[N_MATRICES].text[c];
        CHECK(strncmp(status_text, "stopped early at t = 0: ", 24) == 0,
              "hydae_status is '%s', want 'stopped early at t = 0: ...'", status_text);
    }
    free_matrices(mx);
    fclose(f);
    hydae_sim_free(s);
    hydae_model_free(m);
}

static void unknown_name(void)
{
    hydae_model *m = example_string_pendulum();
    hydae_sim *s = make_sim(m, 1.0);
    if (!s)
        return;
    CHECK(hydae_sim_add_mat(s, stdout, "x,nope", 0) == HYDAE_ERR_ARG, "unknown name accepted");
    CHECK(strstr(hydae_sim_errmsg(s), "'nope'") && strstr(hydae_sim_errmsg(s), "mode(thread)"),
          "message: %s", hydae_sim_errmsg(s));
    CHECK(hydae_sim_add_mat(s, stdout, "x,,y", 0) == HYDAE_ERR_ARG, "empty name accepted");
    CHECK(hydae_sim_check_vars(s, "time, x ,mode(thread),kappa") == 0, "check_vars: %s",
          hydae_sim_errmsg(s));
    CHECK(hydae_sim_check_vars(s, "mode(nope)") == HYDAE_ERR_ARG, "mode(nope) accepted");
    hydae_sim_free(s);
    hydae_model_free(m);
}

int main(void)
{
    pendulum_everything();
    changed_parameter();
    failed_at_start();
    unknown_name();
    return CHECK_DONE();
}
