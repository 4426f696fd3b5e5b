/*
** Complex systems (A + c B) x = b: a complex dense LU, or the real 2n form
** through a real solver (see zlinsol.h).
*/
#include "linalg/zlinsol.h"

#include "linalg/zdense.h"

#include <string.h>

struct hy_zlinsol {
    hy_ls_kind kind;
    size_t n;
    hy_pattern *pattern;     /* a reference; NULL for dense */
    /* dense */
    double *lu_re, *lu_im;
    int *pivot;
    /* band, klu: the real form */
    hy_pattern *pattern2;
    hy_linsol *ls2;
    double *rhs2;
};

/* The pattern of the real form: each entry (i, j) of p becomes the block
** of rows 2i, 2i+1 and columns 2j, 2j+1. */
static hy_pattern *real_form_pattern(const hy_pattern *p)
{
    size_t n2 = 2 * p->n, nnz2 = 4 * p->nnz;
    int64_t *col_start = hy_malloc((n2 + 1) * sizeof(int64_t));
    int64_t *row = hy_malloc((nnz2 > 0 ? nnz2 : 1) * sizeof(int64_t));
    hy_pattern *p2 = NULL;
    if (col_start && row) {
        size_t k2 = 0;
        for (size_t j2 = 0; j2 < n2; j2++) {
            col_start[j2] = (int64_t)k2;
            size_t j = j2 / 2;
            for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
                row[k2++] = 2 * p->row[k];
                row[k2++] = 2 * p->row[k] + 1;
            }
        }
        col_start[n2] = (int64_t)k2;
        p2 = hy_pattern_create(n2, col_start, row, NULL);
    }
    hy_free(col_start);
    hy_free(row);
    return p2;
}

hy_zlinsol *hy_zlinsol_create(hy_ls_kind kind, size_t n, hy_pattern *pattern)
{
    if (kind != HY_LS_DENSE && pattern == NULL)
        return NULL;
    hy_zlinsol *z = hy_calloc(1, sizeof *z);
    if (z == NULL)
        return NULL;
    z->kind = kind;
    z->n = n;
    if (kind == HY_LS_DENSE) {
        size_t bytes;
        if (hy_mul3_size(n > 0 ? n : 1, n > 0 ? n : 1, sizeof(double), &bytes) == 0) {
            z->lu_re = hy_malloc(bytes);
            z->lu_im = hy_malloc(bytes);
        }
        z->pivot = hy_malloc((n > 0 ? n : 1) * sizeof(int));
        if (!z->lu_re || !z->lu_im || !z->pivot) {
            hy_zlinsol_free(z);
            return NULL;
        }
        return z;
    }
    z->pattern = hy_pattern_ref(pattern);
    z->pattern2 = real_form_pattern(pattern);
    z->rhs2 = hy_malloc((2 * n > 0 ? 2 * n : 1) * sizeof(double));
    if (z->pattern2)
        z->ls2 = hy_linsol_create(kind, 2 * n, z->pattern2);
    if (!z->ls2 || !z->rhs2) {
        hy_zlinsol_free(z);
        return NULL;
    }
    return z;
}

int hy_zlinsol_fits(const hy_zlinsol *z, hy_ls_kind kind, size_t n, const hy_pattern *pattern)
{
    return z != NULL && z->kind == kind && z->n == n
           && (kind == HY_LS_DENSE || z->pattern == pattern);
}

void hy_zlinsol_free(hy_zlinsol *z)
{
    if (z == NULL)
        return;
    hy_free(z->lu_re);
    hy_free(z->lu_im);
    hy_free(z->pivot);
    hy_linsol_free(z->ls2);
    hy_pattern_unref(z->pattern2);
    hy_pattern_unref(z->pattern);
    hy_free(z->rhs2);
    hy_free(z);
}

/* A + c B in the real form, entry by entry of the pattern. */
static void fill_real_form(hy_zlinsol *z, const hy_matrix *a, const hy_matrix *b, double c_re,
                           double c_im)
{
    const hy_pattern *p = z->pattern;
    hy_matrix *m2 = hy_linsol_matrix(z->ls2);
    hy_matrix_zero(m2);
    for (size_t j = 0; j < p->n; j++)
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
            size_t i = (size_t)p->row[k];
            double *a_ij = hy_matrix_at((hy_matrix *)a, i, j);
            double *b_ij = hy_matrix_at((hy_matrix *)b, i, j);
            if (a_ij == NULL || b_ij == NULL)
                continue;
            double re = *a_ij + c_re * *b_ij, im = c_im * *b_ij;
            *hy_matrix_at(m2, 2 * i, 2 * j) = re;
            *hy_matrix_at(m2, 2 * i, 2 * j + 1) = -im;
            *hy_matrix_at(m2, 2 * i + 1, 2 * j) = im;
            *hy_matrix_at(m2, 2 * i + 1, 2 * j + 1) = re;
        }
}

int hy_zlinsol_factor(hy_zlinsol *z, const hy_matrix *a, const hy_matrix *b, double c_re,
                      double c_im)
{
    if (z->kind == HY_LS_DENSE) {
        size_t count = z->n * z->n;
        for (size_t k = 0; k < count; k++) {
            z->lu_re[k] = a->values[k] + c_re * b->values[k];
            z->lu_im[k] = c_im * b->values[k];
        }
        return hy_zlu_factor((int)z->n, z->lu_re, z->lu_im, z->pivot);
    }
    fill_real_form(z, a, b, c_re, c_im);
    int col = hy_linsol_factor(z->ls2);
    return col > 0 ? (col + 1) / 2 : col;
}

void hy_zlinsol_solve(hy_zlinsol *z, double *re, double *im)
{
    if (z->kind == HY_LS_DENSE) {
        hy_zlu_solve((int)z->n, z->lu_re, z->lu_im, z->pivot, re, im);
        return;
    }
    for (size_t i = 0; i < z->n; i++) {
        z->rhs2[2 * i] = re[i];
        z->rhs2[2 * i + 1] = im[i];
    }
    hy_linsol_solve(z->ls2, z->rhs2);
    for (size_t i = 0; i < z->n; i++) {
        re[i] = z->rhs2[2 * i];
        im[i] = z->rhs2[2 * i + 1];
    }
}
