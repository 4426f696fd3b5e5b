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

/* hy_matrix_alloc; a band matrix with the fill-in rows when with_fill. */
static int matrix_alloc(hy_matrix *m, hy_mat_kind kind, size_t n, size_t ml, size_t mu,
                        const hy_pattern *pattern, int with_fill)
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
        m->without_fill = !with_fill;
        m->ld = (with_fill ? 2 * ml : ml) + mu + 1;
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

int hy_matrix_alloc(hy_matrix *m, hy_mat_kind kind, size_t n, size_t ml, size_t mu,
                    const hy_pattern *pattern)
{
    return matrix_alloc(m, kind, n, ml, mu, pattern, 0);
}

int hy_matrix_alloc_for_lu(hy_matrix *m, hy_mat_kind kind, size_t n, size_t ml, size_t mu,
                           const hy_pattern *pattern)
{
    return matrix_alloc(m, kind, n, ml, mu, pattern, 1);
}

/* Row of the band storage where column j keeps row j: below the fill-in
** rows (if any) and the mu rows above the diagonal. */
static size_t band_diagonal_row(const hy_matrix *m)
{
    return (m->without_fill ? 0 : m->ml) + m->mu;
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
        return m->values + (band_diagonal_row(m) + i - j) + j * m->ld;
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
    if (dst->kind == HY_MAT_BAND && dst->ld != src->ld) {
        /* Column by column: the band's ml + mu + 1 rows under dst's
        ** fill-in rows. */
        size_t rows = src->ml + src->mu + 1;
        size_t dst_top = dst->without_fill ? 0 : dst->ml;
        size_t src_top = src->without_fill ? 0 : src->ml;
        for (size_t j = 0; j < n; j++) {
            double *to = dst->values + j * dst->ld;
            const double *from = src->values + j * src->ld + src_top;
            for (size_t r = 0; r < dst_top; r++)
                to[r] = 0.0;
            for (size_t r = 0; r < rows; r++)
                to[dst_top + r] = a * from[r];
        }
    } else {
        for (size_t k = 0; k < count; k++)
            dst->values[k] = a * src->values[k];
    }
    switch (dst->kind) {
    case HY_MAT_DENSE:
        for (size_t i = 0; i < n; i++)
            dst->values[i + i * n] += b;
        break;
    case HY_MAT_BAND:
        for (size_t i = 0; i < n; i++)
            dst->values[band_diagonal_row(dst) + i * dst->ld] += b;
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
