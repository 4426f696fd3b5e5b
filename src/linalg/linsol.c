/*
** The linear-solver object: one matrix, one factorisation, dispatched on
** the kind (dense.c, dense_lapack.c, band.c, klu.c).
*/
#include "linsol.h"

#include "backends.h"
#include "dense.h"
#include "core/core.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Below this order a dense matrix is cheaper than any bookkeeping. */
#define SMALL_DENSE 64
/* The largest dense or band matrix hydae allocates (bytes): 16384^2
** doubles, 2.1 GB (sim/validate.c refuses patternless modes above 16384
** unknowns before a run); beyond it a run is refused with a message
** instead of exhausting memory. */
#define MAX_MATRIX_BYTES ((size_t)16384 * 16384 * sizeof(double))

struct hy_linsol {
    hy_ls_kind kind;
    hy_matrix a;
    hy_pattern *pattern;   /* band, klu: a reference */
    int *dense_pivot;      /* dense: int, as dense.c and LAPACK take */
    int use_lapack;        /* dense: factor with LAPACK (n above crossover) */
    int64_t *band_pivot;
    hy_klu *klu;
    /* band on a permuted pattern: a is csc, band holds P A P^T */
    const hy_band_ordering *order;  /* NULL: band in the given order */
    hy_band_ordering *owned_order;  /* order, when the pattern does not keep it */
    hy_matrix band;
    double *permuted_rhs;           /* n */
};

const char *hy_ls_kind_name(hy_ls_kind kind)
{
    switch (kind) {
    case HY_LS_AUTO:
        return "auto";
    case HY_LS_DENSE:
        return "dense";
    case HY_LS_BAND:
        return "band";
    case HY_LS_KLU:
        return "klu";
    }
    return "?";
}

int hy_ls_available(hy_ls_kind kind)
{
#ifdef HYDAE_HAVE_KLU
    (void)kind;
    return 1;
#else
    return kind != HY_LS_KLU;
#endif
}

/* Bytes of the storage of a dense (ld 0) or band (ld > 0) matrix, or
** SIZE_MAX when the product overflows. */
static size_t storage_bytes(size_t n, size_t ld)
{
    size_t values, bytes;
    if (hy_mul_size(n, ld > 0 ? ld : n, &values) || hy_mul_size(values, sizeof(double), &bytes))
        return SIZE_MAX;
    return bytes;
}

static int refuse_size(size_t n, size_t bytes, const char *what, char *why, size_t why_size)
{
    if (bytes == SIZE_MAX)
        snprintf(why, why_size, "%zu unknowns: the %s matrix's size overflows", n, what);
    else
        snprintf(why, why_size,
                 "%zu unknowns: the %s matrix would need %.3g GB (limit %.3g GB); give the "
                 "Jacobian's sparsity pattern so a sparse solver can be used",
                 n, what, (double)bytes / 1e9, (double)MAX_MATRIX_BYTES / 1e9);
    return -1;
}

/* Band or KLU: the one with the smaller estimated cost of a factorisation
** and the solves that follow it, per unknown, in instructions. Measured
** with callgrind (bench/rule.sh, results in bench/results/rule.csv), band.c's
** LU and solve (narrow widths as constants) against KLU's refactorisation
** with hydae's guards (klu.c), on banded shapes with ml = mu = w from n =
** 400 to 40,000 (per unknown the counts did not depend on n):
**
**   band  factor 60 + 25 (ml + mu) + 2 ml (ml + mu)   (w 1: 123, 2: 187,
**                                    4: 306, 8: 637, 16: 1689, 32: 6429)
**         solve  14 + 7 (ml + mu) up to ml + mu = 8 (w 1: 28, 2: 42, 4:
**                69), else 35 + 8 (ml + mu) (w 6: 129, 8: 161, 16: 296,
**                32: 542)
**   KLU   factor 110 e, solve 20 e, e = nnz / n  (e 3: 331 and 60; a
**         sparse band, e 4: 441 and 80; dense blocks fill in: e 18,
**         4080 and 359; a full band solves for 11 e)
**
** with SOLVES_PER_FACTOR solves a factorisation (the Brusselator: 10 to
** 14, Medical Akzo 7 to 11). Measured totals, KLU / band: Medical Akzo's
** shape (2 species interleaved, one diffusing: w 2, e 3) 1.54, the same
** kind with w 3, 4, 6, 8: 1.15, 0.96, 0.55, 0.43; the Brusselator's (w
** species, each diffusing: e = w + 2) 2.04 (w 2), 1.93 (4), 1.57 (8), 1.65
** (16); full bands 2.31 (w 1) .. 1.81 (w 32); the estimates below put each
** of these on the same side (w 4 of Medical Akzo's kind, a tie, on band).
** KLU is taken only when it is estimated 10 % cheaper: at a tie the band
** solver needs no analysis and less memory. The counts are for band.c's
** kernels as of this measurement: re-run bench/rule.sh when they change
** (before its narrow-band solve, band solved 2-3 times slower for w <= 4
** and Medical Akzo's shape went to KLU, 0.78). */
#define SOLVES_PER_FACTOR 10.0

static double band_cost(size_t ml, size_t mu)
{
    double l = (double)ml, width = (double)(ml + mu);
    double solve = ml + mu <= 8 ? 14.0 + 7.0 * width : 35.0 + 8.0 * width;
    return 60.0 + 25.0 * width + 2.0 * l * width + SOLVES_PER_FACTOR * solve;
}

static double klu_cost(size_t n, size_t nnz)
{
    double per_column = (double)nnz / (double)(n > 0 ? n : 1);
    return 110.0 * per_column + SOLVES_PER_FACTOR * 20.0 * per_column;
}

/* A band wider than this (ml + mu) is worth trying to narrow: below it
** the narrow kernels of band.c serve it. */
#define NARROW_BAND 8

/* The symmetric permutation to factor p's band with, or NULL: the reverse
** Cuthill-McKee ordering (rcm.c) when it cuts the band's estimated cost
** (band_cost) by 10 % or more. Its band is measured once per pattern (kept
** with the pattern's symbolic work, if it keeps it; else *owned is set for
** the caller to free). Out of memory: NULL, the given order. */
static const hy_band_ordering *band_ordering(const hy_pattern *p, hy_band_ordering **owned)
{
    *owned = NULL;
    if (p->ml + p->mu <= NARROW_BAND)
        return NULL;
    const hy_band_ordering *o = hy_band_ordering_get(p, owned);
    if (o && band_cost(o->ml, o->mu) < 0.9 * band_cost(p->ml, p->mu))
        return o;
    hy_band_ordering_free(*owned);
    *owned = NULL;
    return NULL;
}

/* The band solver's bandwidths for p: permuted when band_ordering says. */
static void band_widths(const hy_pattern *p, size_t *ml, size_t *mu)
{
    hy_band_ordering *owned;
    const hy_band_ordering *o = band_ordering(p, &owned);
    *ml = o ? o->ml : p->ml;
    *mu = o ? o->mu : p->mu;
    hy_band_ordering_free(owned);
}

int hy_linsol_choose(hy_ls_kind wanted, size_t n, const hy_pattern *pattern, hy_ls_kind *kind,
                     char *why, size_t why_size)
{
    if (why_size > 0)
        why[0] = '\0';
    hy_ls_kind chosen = wanted;
    int dense = !pattern || n <= SMALL_DENSE || pattern->nnz >= n * (n / 4);
    size_t ml = 0, mu = 0; /* the band solver's, permuted or not */
    if (pattern && (wanted == HY_LS_BAND || (wanted == HY_LS_AUTO && !dense)))
        band_widths(pattern, &ml, &mu);
    if (wanted == HY_LS_AUTO) {
        if (dense)
            chosen = HY_LS_DENSE;
        else if (klu_cost(n, pattern->nnz) < 0.9 * band_cost(ml, mu)
                 && hy_ls_available(HY_LS_KLU))
            chosen = HY_LS_KLU;
        else
            chosen = HY_LS_BAND;
        /* Without KLU a wide band may not fit where a dense matrix would
        ** not either: say so below. */
    }
    if ((chosen == HY_LS_BAND || chosen == HY_LS_KLU) && !pattern) {
        snprintf(why, why_size,
                 "linear_solver %s needs the Jacobian's sparsity pattern, and no active mode "
                 "gives one",
                 hy_ls_kind_name(chosen));
        return -1;
    }
    if (chosen == HY_LS_KLU && !hy_ls_available(HY_LS_KLU)) {
        snprintf(why, why_size,
                 "linear_solver klu: this hydae was built without SuiteSparse KLU (install "
                 "libsuitesparse-dev and rebuild)");
        return -1;
    }
    if (chosen == HY_LS_DENSE) {
        size_t bytes = storage_bytes(n, 0);
        if (bytes > MAX_MATRIX_BYTES)
            return refuse_size(n, bytes, "dense", why, why_size);
    }
    if (chosen == HY_LS_BAND) {
        size_t bytes = storage_bytes(n, 2 * ml + mu + 1);
        if (bytes > MAX_MATRIX_BYTES)
            return refuse_size(n, bytes, "band", why, why_size);
    }
    *kind = chosen;
    return 0;
}

hy_linsol *hy_linsol_create(hy_ls_kind kind, size_t n, const hy_pattern *pattern)
{
    hy_linsol *ls = hy_calloc(1, sizeof *ls);
    if (!ls)
        return NULL;
    ls->kind = kind;
    int failed = 0;
    size_t pivot_bytes;
    switch (kind) {
    case HY_LS_AUTO:
    case HY_LS_DENSE:
        ls->kind = HY_LS_DENSE;
        failed = n > INT_MAX || hy_matrix_alloc(&ls->a, HY_MAT_DENSE, n, 0, 0, NULL)
            || hy_mul_size(n > 0 ? n : 1, sizeof(int), &pivot_bytes)
            || !(ls->dense_pivot = hy_malloc(pivot_bytes));
        ls->use_lapack = hy_dense_lapack_crossover() > 0 && n >= hy_dense_lapack_crossover();
        break;
    case HY_LS_BAND:
        ls->pattern = hy_pattern_ref((hy_pattern *)pattern);
        failed = hy_mul_size(n > 0 ? n : 1, sizeof(int64_t), &pivot_bytes)
            || !(ls->band_pivot = hy_malloc(pivot_bytes));
        ls->order = band_ordering(pattern, &ls->owned_order);
        if (ls->order && !ls->order->counted) { /* once per pattern that keeps it */
            ((hy_pattern *)pattern)->n_band_orderings++;
            ((hy_band_ordering *)ls->order)->counted = 1;
        }
        if (!ls->order)
            failed = failed
                || hy_matrix_alloc_for_lu(&ls->a, HY_MAT_BAND, n, pattern->ml, pattern->mu, NULL);
        else /* pivot_bytes: n doubles fit as well */
            failed = failed || hy_matrix_alloc(&ls->a, HY_MAT_CSC, n, 0, 0, pattern)
                || hy_matrix_alloc_for_lu(&ls->band, HY_MAT_BAND, n, ls->order->ml,
                                          ls->order->mu, NULL)
                || !(ls->permuted_rhs = hy_malloc(pivot_bytes));
        break;
    case HY_LS_KLU:
        ls->pattern = hy_pattern_ref((hy_pattern *)pattern);
        failed = hy_matrix_alloc(&ls->a, HY_MAT_CSC, n, 0, 0, pattern)
#ifdef HYDAE_HAVE_KLU
            || !(ls->klu = hy_klu_create(pattern))
#else
            || 1
#endif
            ;
        break;
    }
    if (failed) {
        hy_linsol_free(ls);
        return NULL;
    }
    return ls;
}

hy_matrix *hy_linsol_matrix(hy_linsol *ls)
{
    return &ls->a;
}

hy_ls_kind hy_linsol_kind(const hy_linsol *ls)
{
    return ls->kind;
}

const char *hy_linsol_name(const hy_linsol *ls)
{
    return ls->order ? "band (RCM)" : hy_ls_kind_name(ls->kind);
}

/* P A P^T into the band storage, from A's csc values: entry (i, j) of A to
** (new_of_old[i], new_of_old[j]); the band's other entries 0 (the fill-in
** rows on top are the factorisation's to clear, as band.c says). */
static void fill_permuted_band(hy_linsol *ls)
{
    const hy_pattern *p = ls->pattern;
    const int64_t *new_of_old = ls->order->new_of_old;
    hy_matrix *band = &ls->band;
    const size_t ld = band->ld, diagonal_row = band->ml + band->mu;
    for (size_t j = 0; j < p->n; j++)
        memset(band->values + j * ld + band->ml, 0, (band->ml + band->mu + 1) * sizeof(double));
    for (size_t j = 0; j < p->n; j++) {
        int64_t pj = new_of_old[j];
        double *diagonal = band->values + (size_t)pj * ld + diagonal_row;
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++)
            diagonal[new_of_old[p->row[k]] - pj] = ls->a.values[k];
    }
}

/* The permuted band's factorisation; a zero pivot is named by the column
** of A (the unknown) it belongs to. */
static int factor_permuted_band(hy_linsol *ls)
{
    fill_permuted_band(ls);
    int column = hy_band_factor(&ls->band, ls->band_pivot);
    if (column <= 0)
        return column;
    int64_t original = ls->order->old_of_new[column - 1];
    return original < INT_MAX ? (int)original + 1 : INT_MAX;
}

/* A x = b as (P A P^T)(P x) = P b. */
static void solve_permuted_band(hy_linsol *ls, double *b)
{
    const int64_t *new_of_old = ls->order->new_of_old;
    double *pb = ls->permuted_rhs;
    const size_t n = ls->a.n;
    for (size_t i = 0; i < n; i++)
        pb[new_of_old[i]] = b[i];
    hy_band_solve(&ls->band, ls->band_pivot, pb);
    for (size_t i = 0; i < n; i++)
        b[i] = pb[new_of_old[i]];
}

int hy_linsol_factor(hy_linsol *ls)
{
    switch (ls->kind) {
    case HY_LS_AUTO:
    case HY_LS_DENSE:
        if (ls->use_lapack)
            return hy_dense_lapack_factor(&ls->a, ls->dense_pivot);
        return hy_lu_factor((int)ls->a.n, ls->a.values, ls->dense_pivot);
    case HY_LS_BAND:
        if (ls->order)
            return factor_permuted_band(ls);
        return hy_band_factor(&ls->a, ls->band_pivot);
    case HY_LS_KLU:
#ifdef HYDAE_HAVE_KLU
        return hy_klu_factor(ls->klu, &ls->a);
#else
        return -1;
#endif
    }
    return -1;
}

int hy_linsol_solve(hy_linsol *ls, double *b)
{
    switch (ls->kind) {
    case HY_LS_AUTO:
    case HY_LS_DENSE:
        if (ls->use_lapack)
            hy_dense_lapack_solve(&ls->a, ls->dense_pivot, b);
        else
            hy_lu_solve((int)ls->a.n, ls->a.values, ls->dense_pivot, b);
        return 0;
    case HY_LS_BAND:
        if (ls->order)
            solve_permuted_band(ls, b);
        else
            hy_band_solve(&ls->a, ls->band_pivot, b);
        return 0;
    case HY_LS_KLU:
#ifdef HYDAE_HAVE_KLU
        return hy_klu_solve(ls->klu, b);
#else
        return -1;
#endif
    }
    return -1;
}

void hy_linsol_free(hy_linsol *ls)
{
    if (!ls)
        return;
    hy_matrix_free(&ls->a);
    hy_free(ls->dense_pivot);
    hy_free(ls->band_pivot);
    hy_matrix_free(&ls->band);
    hy_free(ls->permuted_rhs);
    hy_band_ordering_free(ls->owned_order);
#ifdef HYDAE_HAVE_KLU
    hy_klu_free(ls->klu);
#endif
    hy_pattern_unref(ls->pattern);
    hy_free(ls);
}
