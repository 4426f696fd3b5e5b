/*
** Complex systems (A + c B) x = b (see zlinsol.h): a complex dense LU
** (zdense.c), a complex band LU (zband.c) on the band of the pattern, or of
** its reverse Cuthill-McKee permutation P A P^T (rcm.c) when that band is
** narrower (the ordering the pattern keeps, the real band solver's too), or
** KLU's complex LU (zklu.c). No real 2n form: a complex band LU costs about
** half its flops.
*/
#include "linalg/zlinsol.h"

#include "linalg/backends.h"
#include "linalg/zband.h"
#include "linalg/zdense.h"
#include "linalg/zklu.h"
#include "core/core.h"

#include <string.h>

struct hy_zlinsol {
    hy_ls_kind kind;
    size_t n;
    hy_pattern *pattern;     /* a reference; NULL for dense */
    /* dense: n x n; band: n ld (ld = 2 ml + mu + 1) */
    double *lu_re, *lu_im;
    int *pivot;
    /* band */
    size_t ml, mu, ld;
    int64_t *band_pivot;
    const hy_band_ordering *order; /* NULL: the band in the given order */
    hy_band_ordering *owned_order;
    /* klu: 2 nnz interleaved values, then the interleaved right-hand side */
    double *values2, *rhs2;
    hy_zklu *klu;
};

/* The ordering to factor p's band with, or NULL: reverse Cuthill-McKee's
** when it narrows a band wider than band.c's narrow kernels (ml + mu > 8)
** so that the factorisation's flops, about n ml (ml + mu), drop by 10 %. */
static const hy_band_ordering *band_ordering(const hy_pattern *p, hy_band_ordering **owned)
{
    *owned = NULL;
    if (p->ml + p->mu <= 8)
        return NULL;
    const hy_band_ordering *o = hy_band_ordering_get(p, owned);
    double cost = (double)(p->ml + 1) * (double)(p->ml + p->mu + 1);
    if (o && (double)(o->ml + 1) * (double)(o->ml + o->mu + 1) < 0.9 * cost)
        return o;
    hy_band_ordering_free(*owned);
    *owned = NULL;
    return NULL;
}

static int alloc_dense(hy_zlinsol *z, size_t n)
{
    size_t bytes;
    if (hy_mul3_size(n > 0 ? n : 1, n > 0 ? n : 1, sizeof(double), &bytes) == 0) {
        z->lu_re = hy_malloc(bytes);
        z->lu_im = hy_malloc(bytes);
    }
    z->pivot = hy_malloc((n > 0 ? n : 1) * sizeof(int));
    return z->lu_re && z->lu_im && z->pivot ? 0 : -1;
}

static int alloc_band(hy_zlinsol *z, size_t n)
{
    z->order = band_ordering(z->pattern, &z->owned_order);
    z->ml = z->order ? z->order->ml : z->pattern->ml;
    z->mu = z->order ? z->order->mu : z->pattern->mu;
    z->ld = 2 * z->ml + z->mu + 1;
    size_t bytes;
    if (hy_mul3_size(n > 0 ? n : 1, z->ld, sizeof(double), &bytes) == 0) {
        z->lu_re = hy_malloc(bytes);
        z->lu_im = hy_malloc(bytes);
    }
    z->band_pivot = hy_malloc((n > 0 ? n : 1) * sizeof(int64_t));
    z->rhs2 = hy_malloc((n > 0 ? n : 1) * 2 * sizeof(double));
    return z->lu_re && z->lu_im && z->band_pivot && z->rhs2 ? 0 : -1;
}

static int alloc_klu(hy_zlinsol *z, size_t n)
{
#ifdef HYDAE_HAVE_KLU
    size_t nnz = z->pattern->nnz;
    z->values2 = hy_malloc((nnz > 0 ? nnz : 1) * 2 * sizeof(double));
    z->rhs2 = hy_malloc((n > 0 ? n : 1) * 2 * sizeof(double));
    z->klu = hy_zklu_create(z->pattern);
    return z->values2 && z->rhs2 && z->klu ? 0 : -1;
#else
    (void)z;
    (void)n;
    return -1;
#endif
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
    if (kind != HY_LS_DENSE)
        z->pattern = hy_pattern_ref(pattern);
    int failed = kind == HY_LS_DENSE ? alloc_dense(z, n)
                 : kind == HY_LS_BAND ? alloc_band(z, n)
                                      : alloc_klu(z, n);
    if (failed) {
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
    hy_free(z->band_pivot);
    hy_band_ordering_free(z->owned_order);
    hy_free(z->values2);
    hy_free(z->rhs2);
#ifdef HYDAE_HAVE_KLU
    hy_zklu_free(z->klu);
#endif
    hy_pattern_unref(z->pattern);
    hy_free(z);
}

/* Entry k = (i, j) of the pattern p of m: m's value, 0 outside its band. */
static double value_at(const hy_matrix *m, const hy_pattern *p, int64_t k, size_t i, size_t j)
{
    if (m->kind == HY_MAT_CSC && m->pattern == p)
        return m->values[k];
    const double *v = hy_matrix_at((hy_matrix *)m, i, j);
    return v ? *v : 0.0;
}

/* A + c B into the (permuted) band storage, other entries 0. */
static void fill_band(hy_zlinsol *z, const hy_matrix *a, const hy_matrix *b, double c_re,
                      double c_im)
{
    const hy_pattern *p = z->pattern;
    const size_t ld = z->ld, kv = z->ml + z->mu;
    for (size_t j = 0; j < z->n; j++) {
        memset(z->lu_re + j * ld + z->ml, 0, (kv + 1) * sizeof(double));
        memset(z->lu_im + j * ld + z->ml, 0, (kv + 1) * sizeof(double));
    }
    for (size_t j = 0; j < p->n; j++) {
        size_t pj = z->order ? (size_t)z->order->new_of_old[j] : j;
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
            size_t i = (size_t)p->row[k];
            size_t pi = z->order ? (size_t)z->order->new_of_old[i] : i;
            double bv = value_at(b, p, k, i, j);
            size_t at = pj * ld + kv + pi - pj;
            z->lu_re[at] = value_at(a, p, k, i, j) + c_re * bv;
            z->lu_im[at] = c_im * bv;
        }
    }
}

static int factor_band(hy_zlinsol *z, const hy_matrix *a, const hy_matrix *b, double c_re,
                       double c_im)
{
    fill_band(z, a, b, c_re, c_im);
    int col = hy_zband_factor(z->n, z->ml, z->mu, z->lu_re, z->lu_im, z->band_pivot);
    if (col <= 0 || !z->order)
        return col;
    return (int)z->order->old_of_new[col - 1] + 1;
}

static int factor_klu(hy_zlinsol *z, const hy_matrix *a, const hy_matrix *b, double c_re,
                      double c_im)
{
#ifdef HYDAE_HAVE_KLU
    const hy_pattern *p = z->pattern;
    for (size_t j = 0; j < p->n; j++)
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
            size_t i = (size_t)p->row[k];
            double bv = value_at(b, p, k, i, j);
            z->values2[2 * k] = value_at(a, p, k, i, j) + c_re * bv;
            z->values2[2 * k + 1] = c_im * bv;
        }
    return hy_zklu_factor(z->klu, z->values2);
#else
    (void)z, (void)a, (void)b, (void)c_re, (void)c_im;
    return -1;
#endif
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
    if (z->kind == HY_LS_BAND)
        return factor_band(z, a, b, c_re, c_im);
    return factor_klu(z, a, b, c_re, c_im);
}

/* x = (P A P^T)^-1 P b, scattered back: the band solve in the ordering. */
static void solve_band(hy_zlinsol *z, double *re, double *im)
{
    if (!z->order) {
        hy_zband_solve(z->n, z->ml, z->mu, z->lu_re, z->lu_im, z->band_pivot, re, im);
        return;
    }
    double *pre = z->rhs2, *pim = z->rhs2 + z->n;
    const int64_t *new_of_old = z->order->new_of_old;
    for (size_t i = 0; i < z->n; i++) {
        pre[new_of_old[i]] = re[i];
        pim[new_of_old[i]] = im[i];
    }
    hy_zband_solve(z->n, z->ml, z->mu, z->lu_re, z->lu_im, z->band_pivot, pre, pim);
    for (size_t i = 0; i < z->n; i++) {
        re[i] = pre[new_of_old[i]];
        im[i] = pim[new_of_old[i]];
    }
}

void hy_zlinsol_solve(hy_zlinsol *z, double *re, double *im)
{
    if (z->kind == HY_LS_DENSE) {
        hy_zlu_solve((int)z->n, z->lu_re, z->lu_im, z->pivot, re, im);
        return;
    }
    if (z->kind == HY_LS_BAND) {
        solve_band(z, re, im);
        return;
    }
#ifdef HYDAE_HAVE_KLU
    for (size_t i = 0; i < z->n; i++) {
        z->rhs2[2 * i] = re[i];
        z->rhs2[2 * i + 1] = im[i];
    }
    if (hy_zklu_solve(z->klu, z->rhs2) == 0)
        for (size_t i = 0; i < z->n; i++) {
            re[i] = z->rhs2[2 * i];
            im[i] = z->rhs2[2 * i + 1];
        }
#endif
}
