/*
** Matrices in dense, band or CSC storage (layouts in linsol.h).
*/
#include "linsol.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t hy_matrix_n_values(const hy_matrix *m)
{
    switch (m->kind) {
    case HY_MAT_DENSE:
        return m->n * m->n;
    case HY_MAT_BAND:
        return m->ld * m->n;
    case HY_MAT_CSC:
        return m->pattern->nnz;
    }
    return 0;
}

int hy_matrix_alloc(hy_matrix *m, hy_mat_kind kind, size_t n, size_t ml, size_t mu,
                    const hy_pattern *pattern)
{
    memset(m, 0, sizeof *m);
    m->kind = kind;
    m->n = n;
    size_t count = 0, bytes;
    switch (kind) {
    case HY_MAT_DENSE:
        if (hy_mul_size(n, n, &count))
            return -1;
        break;
    case HY_MAT_BAND:
        if (ml >= n && n > 0)
            ml = n - 1;
        if (mu >= n && n > 0)
            mu = n - 1;
        m->ml = ml;
        m->mu = mu;
        m->ld = 2 * ml + mu + 1;
        if (hy_mul_size(m->ld, n, &count))
            return -1;
        break;
    case HY_MAT_CSC:
        m->pattern = pattern;
        count = pattern->nnz;
        break;
    }
    if (hy_mul_size(count > 0 ? count : 1, sizeof(double), &bytes))
        return -1;
    m->values = hy_calloc(1, bytes);
    return m->values ? 0 : -1;
}

void hy_matrix_free(hy_matrix *m)
{
    hy_free(m->values);
    m->values = NULL;
}

void hy_matrix_zero(hy_matrix *m)
{
    memset(m->values, 0, hy_matrix_n_values(m) * sizeof(double));
}

double *hy_matrix_at(hy_matrix *m, size_t i, size_t j)
{
    switch (m->kind) {
    case HY_MAT_DENSE:
        return m->values + i + j * m->n;
    case HY_MAT_BAND:
        if (i + m->mu < j || i > j + m->ml)
            return NULL;
        return m->values + (m->ml + m->mu + i - j) + j * m->ld;
    case HY_MAT_CSC: {
        int64_t k = hy_pattern_find(m->pattern, i, j);
        return k < 0 ? NULL : m->values + k;
    }
    }
    return NULL;
}

void hy_matrix_axpi(hy_matrix *dst, double a, const hy_matrix *src, double b)
{
    size_t count = hy_matrix_n_values(src), n = src->n;
    for (size_t k = 0; k < count; k++)
        dst->values[k] = a * src->values[k];
    switch (dst->kind) {
    case HY_MAT_DENSE:
        for (size_t i = 0; i < n; i++)
            dst->values[i + i * n] += b;
        break;
    case HY_MAT_BAND:
        for (size_t i = 0; i < n; i++)
            dst->values[(dst->ml + dst->mu) + i * dst->ld] += b;
        break;
    case HY_MAT_CSC:
        for (size_t i = 0; i < n; i++)
            dst->values[hy_pattern_find(dst->pattern, i, i)] += b;
        break;
    }
}

void hy_matrix_set_column_diff(hy_matrix *m, const hy_pattern *p, size_t j, const double *f1,
                               const double *f0, double scale)
{
    if (!p) {
        double *col = m->values + j * m->n;
        for (size_t i = 0; i < m->n; i++)
            col[i] = (f1[i] - f0[i]) * scale;
        return;
    }
    for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
        size_t i = (size_t)p->row[k];
        double v = (f1[i] - f0[i]) * scale;
        if (m->kind == HY_MAT_CSC)
            m->values[k] = v;
        else
            *hy_matrix_at(m, i, j) = v;
    }
}

int64_t hy_matrix_first_nonfinite(const hy_matrix *m)
{
    size_t count = hy_matrix_n_values(m);
    for (size_t k = 0; k < count; k++)
        if (!isfinite(m->values[k]))
            return (int64_t)k;
    return -1;
}
