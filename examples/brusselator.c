/*
** The 1-D Brusselator with diffusion (Hairer & Wanner, Solving ODEs II,
** 2nd ed., IV.1, eq. (1.6)): on 0 <= x <= 1 with M interior points x_i =
** i/(M+1), c = alpha (M+1)^2, alpha = 1/50,
**
**   u_i' = 1 + u_i^2 v_i - 4 u_i + c (u_{i-1} - 2 u_i + u_{i+1})
**   v_i' = 3 u_i - u_i^2 v_i     + c (v_{i-1} - 2 v_i + v_{i+1})
**
** u = 1, v = 3 on the boundary, u_i(0) = 1 + sin(2 pi x_i), v_i(0) = 3, on
** 0 <= t <= 10. The unknowns are interleaved (u_1, v_1, u_2, v_2, ...) so
** the Jacobian is a band of half-width 2; the mode gives its pattern and
** its analytic sparse Jacobian (or only the pattern: then finite
** differences by column groups, 5 evaluations a Jacobian). 2M unknowns:
** M = 10^6 is a model of two million.
*/
#include "examples.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct brusselator {
    long m;
    double c;
} brusselator;

static int rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    const brusselator *b = user;
    long m = b->m;
    double c = b->c;
    for (long i = 0; i < m; i++) {
        double u = y[2 * i], v = y[2 * i + 1];
        double u_left = i > 0 ? y[2 * i - 2] : 1.0, u_right = i < m - 1 ? y[2 * i + 2] : 1.0;
        double v_left = i > 0 ? y[2 * i - 1] : 3.0, v_right = i < m - 1 ? y[2 * i + 3] : 3.0;
        double uuv = u * u * v;
        ydot[2 * i] = 1.0 + uuv - 4.0 * u + c * (u_left - 2.0 * u + u_right);
        ydot[2 * i + 1] = 3.0 * u - uuv + c * (v_left - 2.0 * v + v_right);
    }
    return 0;
}

/* The pattern's entries of column 2i (u_i) and 2i+1 (v_i), rows ascending:
** u_i: u_{i-1}, u_i, v_i, u_{i+1}; v_i: v_{i-1}, u_i, v_i, v_{i+1}. */
static int64_t *build_pattern(long m, int64_t **rows_out)
{
    size_t n = 2 * (size_t)m;
    int64_t *col_start = malloc((n + 1) * sizeof *col_start);
    int64_t *row = malloc(4 * n * sizeof *row);
    if (!col_start || !row) {
        free(col_start);
        free(row);
        return NULL;
    }
    size_t k = 0;
    for (long i = 0; i < m; i++) {
        int64_t ui = 2 * i, vi = 2 * i + 1;
        col_start[ui] = (int64_t)k;
        if (i > 0)
            row[k++] = ui - 2;
        row[k++] = ui;
        row[k++] = vi;
        if (i < m - 1)
            row[k++] = ui + 2;
        col_start[vi] = (int64_t)k;
        if (i > 0)
            row[k++] = vi - 2;
        row[k++] = ui;
        row[k++] = vi;
        if (i < m - 1)
            row[k++] = vi + 2;
    }
    col_start[n] = (int64_t)k;
    *rows_out = row;
    return col_start;
}

/* df/dy in the order of build_pattern. */
static int jacobian(double t, double cj, const double *y, const double *yp, const double *p,
                    double *values, void *user)
{
    (void)t;
    (void)cj;
    (void)yp;
    (void)p;
    const brusselator *b = user;
    long m = b->m;
    double c = b->c;
    size_t k = 0;
    for (long i = 0; i < m; i++) {
        double u = y[2 * i], v = y[2 * i + 1];
        /* column u_i */
        if (i > 0)
            values[k++] = c;                       /* du_{i-1}'/du_i */
        values[k++] = 2.0 * u * v - 4.0 - 2.0 * c; /* du_i'/du_i */
        values[k++] = 3.0 - 2.0 * u * v;           /* dv_i'/du_i */
        if (i < m - 1)
            values[k++] = c;                       /* du_{i+1}'/du_i */
        /* column v_i */
        if (i > 0)
            values[k++] = c;                       /* dv_{i-1}'/dv_i */
        values[k++] = u * u;                       /* du_i'/dv_i */
        values[k++] = -u * u - 2.0 * c;            /* dv_i'/dv_i */
        if (i < m - 1)
            values[k++] = c;                       /* dv_{i+1}'/dv_i */
    }
    return 0;
}

hydae_model *example_brusselator_sized(long m, int analytic_jacobian)
{
    if (m < 1)
        return NULL;
    hydae_model *model = hydae_model_create("brusselator");
    brusselator *b = malloc(sizeof *b);
    if (!model || !b || hydae_model_attach(model, b, free)) {
        free(b);
        hydae_model_free(model);
        return NULL;
    }
    b->m = m;
    b->c = (double)(m + 1) * (double)(m + 1) / 50.0;
    hydae_chart *chart = hydae_model_add_chart(model, "main");
    hydae_mode *mode = hydae_chart_add_mode(chart, "reaction_diffusion");
    const double pi = 3.141592653589793;
    char name[32];
    int status = 0;
    for (long i = 0; i < m && status >= 0; i++) {
        double x = (double)(i + 1) / (double)(m + 1);
        snprintf(name, sizeof name, "u%ld", i + 1);
        status = hydae_mode_add_var(mode, name, HYDAE_DIFFERENTIAL, 1.0 + sin(2.0 * pi * x));
        snprintf(name, sizeof name, "v%ld", i + 1);
        if (status >= 0)
            status = hydae_mode_add_var(mode, name, HYDAE_DIFFERENTIAL, 3.0);
    }
    int64_t *row = NULL, *col_start = build_pattern(m, &row);
    if (status < 0 || !col_start || hydae_mode_set_rhs(mode, rhs, b)
        || hydae_mode_set_jacobian_pattern(mode, col_start, row)
        || (analytic_jacobian && hydae_mode_set_sparse_jacobian(mode, jacobian))) {
        free(col_start);
        free(row);
        hydae_model_free(model);
        return NULL;
    }
    free(col_start);
    free(row);
    return model;
}

hydae_model *example_brusselator(void)
{
    return example_brusselator_sized(1000, 1);
}
