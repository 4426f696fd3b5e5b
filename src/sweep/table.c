/*
** The public face of parameter studies (hydae_sweep_* of hydae.h): the
** handle, its setters and getters, and the table as CSV or MAT v4.
**
** MAT v4 (MATLAB "MAT-File Format", level 4; the header as src/io/mat4.c
** writes it): "table", a double matrix with a row per run done (run,
** parameters, measures, steps, wall_s: the CSV's columns but the status),
** "names", a text matrix with a row per column of table (space-padded),
** and "status", a text matrix with a row per run ("ok" or the message).
** Octave's `load`, scipy.io.loadmat and python/hydae read it.
*/
#define _POSIX_C_SOURCE 200809L /* stat */
#include "sweep.h"

#include "core/core.h"
#include "io/columns.h"
#include "io/mat4.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

hydae_sweep *hydae_sweep_create(hydae_model *m)
{
    if (!m)
        return NULL;
    hydae_sweep *sw = hy_calloc(1, sizeof *sw);
    if (!sw)
        return NULL;
    sw->model = m;
    sw->n_ranks = 1;
    if (pthread_mutex_init(&sw->lock, NULL) != 0) {
        hy_free(sw);
        return NULL;
    }
    if (pthread_cond_init(&sw->finished, NULL) != 0) {
        pthread_mutex_destroy(&sw->lock);
        hy_free(sw);
        return NULL;
    }
    return sw;
}

void hydae_sweep_free(hydae_sweep *sw)
{
    if (!sw)
        return;
    hy_sweep_plan_free(&sw->plan);
    for (int k = 0; k < sw->n_options; k++) {
        hy_free(sw->option_names[k]);
        hy_free(sw->option_values[k]);
    }
    hy_free(sw->runs_dir);
    hy_free(sw->rows);
    hy_free(sw->measure_values);
    pthread_cond_destroy(&sw->finished);
    pthread_mutex_destroy(&sw->lock);
    hy_free(sw);
}

const char *hydae_sweep_errmsg(const hydae_sweep *sw)
{
    return sw ? sw->errmsg : "no sweep";
}

/* A change of the plan: refused once prepared. */
static int plan_open(hydae_sweep *sw)
{
    if (!sw)
        return HYDAE_ERR_ARG;
    if (sw->prepared)
        return hy_sweep_fail(sw, HYDAE_ERR_ARG, "the sweep is prepared: its plan is fixed");
    return 0;
}

/* A plan function's result: 0, or HYDAE_ERR_ARG with its message. */
static int plan_result(hydae_sweep *sw, int failed)
{
    return failed ? hy_sweep_fail(sw, HYDAE_ERR_ARG, "%s", sw->plan.errmsg) : 0;
}

int hydae_sweep_add_grid(hydae_sweep *sw, const char *name, const double *values, int n_values)
{
    int status = plan_open(sw);
    return status ? status
                  : plan_result(sw, hy_sweep_add_grid_values(&sw->plan, name, values, n_values));
}

int hydae_sweep_add_grid_spec(hydae_sweep *sw, const char *spec)
{
    int status = plan_open(sw);
    if (!status && !spec)
        status = hy_sweep_fail(sw, HYDAE_ERR_ARG, "no grid given");
    return status ? status : plan_result(sw, hy_sweep_add_grid(&sw->plan, spec));
}

int hydae_sweep_add_dist(hydae_sweep *sw, const char *spec)
{
    int status = plan_open(sw);
    if (!status && !spec)
        status = hy_sweep_fail(sw, HYDAE_ERR_ARG, "no distribution given");
    return status ? status : plan_result(sw, hy_sweep_add_dist(&sw->plan, spec));
}

int hydae_sweep_set_samples(hydae_sweep *sw, long n_runs, uint64_t seed, int latin_hypercube)
{
    int status = plan_open(sw);
    if (!status && n_runs <= 0)
        status = hy_sweep_fail(sw, HYDAE_ERR_ARG, "samples: %ld runs (at least 1)", n_runs);
    if (status)
        return status;
    sw->plan.n_runs = n_runs;
    sw->plan.seed = seed;
    sw->plan.lhs = latin_hypercube != 0;
    return 0;
}

int hydae_sweep_add_measures(hydae_sweep *sw, const char *spec)
{
    int status = plan_open(sw);
    if (!status && !spec)
        status = hy_sweep_fail(sw, HYDAE_ERR_ARG, "no measure given");
    return status ? status : plan_result(sw, hy_sweep_add_measures(&sw->plan, sw->model, spec));
}

int hydae_sweep_set_threads(hydae_sweep *sw, int n_threads)
{
    int status = plan_open(sw);
    if (!status && (n_threads < 0 || n_threads > SWEEP_MAX_THREADS))
        status = hy_sweep_fail(sw, HYDAE_ERR_ARG, "threads: %d (0 to %d; 0: every core)",
                               n_threads, SWEEP_MAX_THREADS);
    if (!status)
        sw->n_threads = n_threads;
    return status;
}

int hydae_sweep_set_option(hydae_sweep *sw, const char *name, const char *value)
{
    int status = plan_open(sw);
    if (status)
        return status;
    if (!name || !value)
        return hy_sweep_fail(sw, HYDAE_ERR_ARG, "an option needs a name and a value");
    if (sw->n_options == SWEEP_MAX_OPTIONS)
        return hy_sweep_fail(sw, HYDAE_ERR_ARG, "more than %d options", SWEEP_MAX_OPTIONS);
    /* Checked now on a sim of the model, so that no run fails on it. */
    hydae_sim *probe = hydae_sim_create(sw->model, &status);
    if (!probe)
        return hy_sweep_fail(sw, status < 0 ? status : HYDAE_ERR_NOMEM, "%s",
                             hydae_model_errmsg(sw->model));
    status = hydae_sim_set_option(probe, name, value);
    if (status)
        hy_sweep_fail(sw, status, "%s", hydae_sim_errmsg(probe));
    hydae_sim_free(probe);
    if (status)
        return status;
    char *name_copy = hy_strdup(name), *value_copy = hy_strdup(value);
    if (!name_copy || !value_copy) {
        hy_free(name_copy);
        hy_free(value_copy);
        return hy_sweep_fail(sw, HYDAE_ERR_NOMEM, "out of memory");
    }
    sw->option_names[sw->n_options] = name_copy;
    sw->option_values[sw->n_options++] = value_copy;
    return 0;
}

int hydae_sweep_set_runs_dir(hydae_sweep *sw, const char *dir, const char *format)
{
    int status = plan_open(sw);
    if (status)
        return status;
    int mat = format && strcmp(format, "mat") == 0;
    if (dir && (!format || (!mat && strcmp(format, "csv") != 0)))
        return hy_sweep_fail(sw, HYDAE_ERR_ARG, "runs' result files: format '%s' (csv or mat)",
                             format ? format : "(none)");
    struct stat st;
    if (dir && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        return hy_sweep_fail(sw, HYDAE_ERR_ARG, "runs' result files: '%s' is not a folder",
                             dir);
    char *copy = dir ? hy_strdup(dir) : NULL;
    if (dir && !copy)
        return hy_sweep_fail(sw, HYDAE_ERR_NOMEM, "out of memory");
    hy_free(sw->runs_dir);
    sw->runs_dir = copy;
    sw->runs_mat = mat;
    return 0;
}

int hydae_sweep_prepare(hydae_sweep *sw)
{
    return sw ? hy_sweep_prepare(sw) : HYDAE_ERR_ARG;
}

long hydae_sweep_n_runs(const hydae_sweep *sw)
{
    return sw && sw->prepared ? sw->plan.n_runs : 0;
}

int hydae_sweep_n_params(const hydae_sweep *sw)
{
    return sw ? sw->plan.n_params : 0;
}

const char *hydae_sweep_param_name(const hydae_sweep *sw, int k)
{
    return sw && k >= 0 && k < sw->plan.n_params ? sw->plan.params[k].name : NULL;
}

int hydae_sweep_n_measures(const hydae_sweep *sw)
{
    return sw ? sw->plan.n_measures : 0;
}

const char *hydae_sweep_measure_name(const hydae_sweep *sw, int k)
{
    return sw && k >= 0 && k < sw->plan.n_measures ? sw->plan.measures[k].label : NULL;
}

int hydae_sweep_run(hydae_sweep *sw, hydae_sweep_row_fn fn, void *user)
{
    if (!sw)
        return HYDAE_ERR_ARG;
    if (sw->ran)
        return hy_sweep_fail(sw, HYDAE_ERR_ARG, "the sweep has run (a sweep runs once)");
    int status = hy_sweep_prepare(sw);
    if (status)
        return status;
    sw->ran = 1;
    return hy_sweep_execute(sw, fn, user);
}

void hydae_sweep_interrupt(hydae_sweep *sw)
{
    if (sw)
        atomic_store(&sw->interrupt_requested, 1);
}

long hydae_sweep_n_failed(const hydae_sweep *sw)
{
    return sw ? sw->n_failed : 0;
}

int hydae_sweep_get_row(hydae_sweep *sw, long run, hydae_sweep_row *row)
{
    if (!sw || !row || !sw->prepared || run < 0 || run >= sw->plan.n_runs || !sw->rows[run].done)
        return HYDAE_ERR_ARG;
    hy_sweep_row_view(sw, run, sw->row_params, row);
    return 0;
}

void hy_sweep_csv_header(const hydae_sweep *sw, FILE *out)
{
    fputs("run", out);
    for (int k = 0; k < sw->plan.n_params; k++) {
        fputc(',', out);
        hy_csv_write_text(out, sw->plan.params[k].name);
    }
    for (int k = 0; k < sw->plan.n_measures; k++) {
        fputc(',', out);
        hy_csv_write_text(out, sw->plan.measures[k].label);
    }
    fputs(",status,steps,wall_s\n", out);
}

/* Numbers with 17 significant digits: the table holds the doubles exactly. */
void hy_sweep_csv_row(const hydae_sweep *sw, const hydae_sweep_row *row, FILE *out)
{
    fprintf(out, "%ld", row->run);
    for (int k = 0; k < sw->plan.n_params; k++)
        fprintf(out, ",%.17g", row->params[k]);
    for (int k = 0; k < sw->plan.n_measures; k++)
        fprintf(out, isnan(row->measures[k]) ? "," : ",%.17g", row->measures[k]);
    fputc(',', out);
    hy_csv_write_text(out, row->status);
    fprintf(out, ",%ld,%.6f\n", row->steps, row->wall_seconds);
}

int hydae_sweep_write_csv(const hydae_sweep *sw, FILE *out)
{
    if (!sw || !out || !sw->prepared)
        return HYDAE_ERR_ARG;
    hy_sweep_csv_header(sw, out);
    double params[SWEEP_MAX_PARAMS];
    hydae_sweep_row view;
    long n_written = 0;
    for (long i = 0; i < sw->plan.n_runs; i++)
        if (sw->rows[i].done) {
            hy_sweep_row_view(sw, i, params, &view);
            hy_sweep_csv_row(sw, &view, out);
            n_written++;
        }
    if (sw->stopped)
        fprintf(out, "# hydae sweep: stopped: %ld of %ld runs in the table\n", n_written,
                sw->plan.n_runs);
    return fflush(out) != 0 || ferror(out) ? HYDAE_ERR_IO : 0;
}

/* The name of column j of the MAT table. */
static const char *mat_column_name(const hydae_sweep *sw, int j)
{
    int n_params = sw->plan.n_params, n_measures = sw->plan.n_measures;
    if (j == 0)
        return "run";
    if (j <= n_params)
        return sw->plan.params[j - 1].name;
    if (j <= n_params + n_measures)
        return sw->plan.measures[j - 1 - n_params].label;
    return j == n_params + n_measures + 1 ? "steps" : "wall_s";
}

/* A text matrix of n rows, row r texts[r] padded with spaces. */
static void write_text_rows(FILE *out, const char *name, long n, const char *const *texts)
{
    size_t width = 1;
    for (long r = 0; r < n; r++)
        if (strlen(texts[r]) > width)
            width = strlen(texts[r]);
    hy_mat4_write_header(out, HY_MAT4_TEXT, n, (long)width, name);
    for (size_t c = 0; c < width; c++) /* column after column */
        for (long r = 0; r < n; r++)
            fputc(c < strlen(texts[r]) ? (unsigned char)texts[r][c] : ' ', out);
}

/* The matrix "table": its n_done rows are the runs done, in run order. */
static void write_table_matrix(const hydae_sweep *sw, FILE *out, const long *runs, long n_done)
{
    int n_params = sw->plan.n_params, n_cols = n_params + sw->plan.n_measures + 3;
    hy_mat4_write_header(out, HY_MAT4_DOUBLE, n_done, n_cols, "table");
    double params[SWEEP_MAX_PARAMS];
    for (int j = 0; j < n_cols; j++)
        for (long k = 0; k < n_done; k++) {
            const sweep_row *row = &sw->rows[runs[k]];
            double x;
            if (j == 0)
                x = (double)runs[k];
            else if (j <= n_params)
                hy_sweep_run_values(&sw->plan, runs[k], params), x = params[j - 1];
            else if (j < n_cols - 2)
                x = row->measures[j - 1 - n_params];
            else
                x = j == n_cols - 2 ? (double)row->steps : row->wall;
            fwrite(&x, sizeof x, 1, out);
        }
}

int hydae_sweep_write_mat(const hydae_sweep *sw, FILE *out)
{
    if (!sw || !out || !sw->prepared)
        return HYDAE_ERR_ARG;
    long n_runs = sw->plan.n_runs, n_done = 0;
    int n_cols = sw->plan.n_params + sw->plan.n_measures + 3;
    long *runs = hy_malloc(sizeof *runs * (size_t)(n_runs + 1));
    const char **texts = hy_malloc(sizeof *texts * (size_t)(n_runs + n_cols + 1));
    if (!runs || !texts) {
        hy_free(runs);
        hy_free(texts);
        return HYDAE_ERR_NOMEM;
    }
    for (long i = 0; i < n_runs; i++)
        if (sw->rows[i].done)
            runs[n_done++] = i;
    write_table_matrix(sw, out, runs, n_done);
    for (int j = 0; j < n_cols; j++)
        texts[j] = mat_column_name(sw, j);
    write_text_rows(out, "names", n_cols, texts);
    for (long k = 0; k < n_done; k++)
        texts[k] = sw->rows[runs[k]].status;
    write_text_rows(out, "status", n_done, texts);
    hy_free(runs);
    hy_free(texts);
    return fflush(out) != 0 || ferror(out) ? HYDAE_ERR_IO : 0;
}
