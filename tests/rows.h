/*
** Test helper: a result sink that keeps every row in memory, and lookups
** of columns by name.
*/
#ifndef HY_TEST_ROWS_H
#define HY_TEST_ROWS_H

#include "hydae.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct test_rows {
    int n_columns;
    int n_rows, cap_rows;
    hydae_row_kind *kind;
    double *t;
    double *values; /* n_rows x n_columns */
} test_rows;

static inline int test_rows_sink(void *user, hydae_row_kind kind, double t, const double *values)
{
    test_rows *r = user;
    if (r->n_rows == r->cap_rows) {
        int cap = r->cap_rows ? 2 * r->cap_rows : 256;
        hydae_row_kind *k = realloc(r->kind, sizeof *k * (size_t)cap);
        if (k)
            r->kind = k;
        double *tt = realloc(r->t, sizeof *tt * (size_t)cap);
        if (tt)
            r->t = tt;
        double *v = realloc(r->values, sizeof *v * (size_t)cap * (size_t)(r->n_columns + 1));
        if (v)
            r->values = v;
        if (!k || !tt || !v)
            return -1;
        r->cap_rows = cap;
    }
    r->kind[r->n_rows] = kind;
    r->t[r->n_rows] = t;
    memcpy(r->values + (size_t)r->n_rows * (size_t)r->n_columns, values,
           sizeof(double) * (size_t)r->n_columns);
    r->n_rows++;
    return 0;
}

static inline void test_rows_init(test_rows *r, const hydae_model *m)
{
    memset(r, 0, sizeof *r);
    r->n_columns = hydae_model_n_columns(m);
}

static inline void test_rows_free(test_rows *r)
{
    free(r->kind);
    free(r->t);
    free(r->values);
}

static inline int test_column(const hydae_model *m, const char *name)
{
    for (int c = 0; c < hydae_model_n_columns(m); c++)
        if (strcmp(hydae_model_column_name(m, c), name) == 0)
            return c;
    return -1;
}

/* Run m from 0 to t_end with output every dt, the given tolerances and
** integrator (NULL: the default), its rows into *rows (initialised here;
** the caller frees them). The run's status; a failure is printed. */
static inline int test_run_stats(hydae_model *m, const char *integrator, double t_end,
                                 double dt, double rtol, double atol, test_rows *rows,
                                 hydae_stats *stats);

static inline int test_run(hydae_model *m, const char *integrator, double t_end, double dt,
                           double rtol, double atol, test_rows *rows)
{
    return test_run_stats(m, integrator, t_end, dt, rtol, atol, rows, NULL);
}

/* The same, with the run's statistics into *stats (zeroed if there is no
** run; stats may be NULL). */
static inline int test_run_stats(hydae_model *m, const char *integrator, double t_end,
                                 double dt, double rtol, double atol, test_rows *rows,
                                 hydae_stats *stats)
{
    if (stats)
        memset(stats, 0, sizeof *stats);
    int status;
    test_rows_init(rows, m);
    hydae_sim *s = hydae_sim_create(m, &status);
    if (!s) {
        fprintf(stderr, "create: %s\n", hydae_model_errmsg(m));
        return status ? status : -1;
    }
    status = hydae_sim_set_time(s, 0.0, t_end);
    if (!status)
        status = hydae_sim_set_output_interval(s, dt);
    if (!status)
        status = hydae_sim_set_tolerances(s, rtol, atol);
    if (!status && integrator)
        status = hydae_sim_set_integrator(s, integrator);
    if (!status)
        status = hydae_sim_add_row_sink(s, test_rows_sink, rows);
    if (!status)
        status = hydae_sim_run(s);
    if (status)
        fprintf(stderr, "run: %s\n", hydae_sim_errmsg(s));
    if (stats)
        hydae_sim_get_stats(s, stats);
    hydae_sim_free(s);
    return status;
}

/* The larger of the worst error so far and err, with a NaN err as the
** worst of all (fmax would drop it, and a run gone NaN would pass). */
static inline double test_worse(double worst, double err)
{
    if (err != err)
        return 1.0 / 0.0;
    return err > worst ? err : worst;
}

static inline double test_value(const test_rows *r, int row, int column)
{
    return r->values[(size_t)row * (size_t)r->n_columns + (size_t)column];
}

#endif
