/*
** Sparse LU through SuiteSparse KLU (Davis & Palamadai Natarajan, "Algorithm
** 907: KLU, a direct sparse solver for circuit simulation problems", ACM
** TOMS 37(3), 2010), with its long-index interface (klu_l_*): int64_t
** indices as in hy_pattern. Compiled only with HYDAE_HAVE_KLU.
**
** The symbolic analysis (BTF, then AMD ordering of each block) is done once
** for the pattern at creation, or taken from the pattern when it keeps its
** symbolic work (linsol.h; KLU's factor, refactor and solve only read it).
** The first factorisation is a full klu_l_factor (it chooses the pivots),
** also with a kept analysis; the next ones are klu_l_refactor,
** which keeps those pivots and only recomputes the values, while the
** pattern is the same. Stale pivots can be bad ones, and KLU's refactor
** does not check; so after each refactorisation
**   - the cheap estimate klu_l_rcond (min |U_kk| / max |U_kk|) is compared
**     with roundoff^(2/3), and
**   - the reciprocal pivot growth klu_l_rgrowth (min over columns of
**     max |A(:, j)| / max |U(:, j)|, one pass over A and U) with a tenth of
**     the one of the last full factorisation,
** and when either is below, the matrix is factored again from scratch; so
** is a matrix on which the refactorisation meets an exactly zero pivot (a
** new pivot order may find it regular) before it is reported singular.
** The growth test is needed: on random sparse matrices refactored with
** fresh values, rcond stayed above its bound while the scaled residual
** ||A x - b|| / (||A|| ||x||) reached 1e-9; the growth had dropped 10^2 to
** 10^5 times below the full factorisation's (tests/test_linsol_backends.c).
**
** Pivoting threshold: KLU's default tol = 0.001 (prefer the diagonal unless
** it is 1000 times smaller than the column's largest entry) gave scaled
** residuals up to 3e-12 (1e4 eps) on random sparse matrices with n = 100 ..
** 1000; tol = 0.1 keeps them below 1e2 eps, and an iteration matrix whose
** diagonal dominates still pivots on its diagonal.
**
** Memory: KLU (with AMD, COLAMD, BTF) allocates through SuiteSparse's
** process-wide configuration; the first hy_klu_create points it at
** hy_malloc / hy_calloc / hy_realloc / hy_free, so KLU's memory goes
** through the allocator hook too (hydae_set_allocator) and its failures
** reach the caller as out of memory. This changes SuiteSparse for the whole
** process: other code using SuiteSparse then allocates through the hook
** as well (see docs/engine.md, "Memory").
*/
#ifdef HYDAE_HAVE_KLU

#include "linalg/backends.h"
#include "core/core.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include <klu.h>
#ifndef __STDC_NO_THREADS__
#include <threads.h>
#endif

/* hy_pattern's indices are handed to KLU as they are. */
_Static_assert(sizeof(SuiteSparse_long) == sizeof(int64_t),
               "KLU's long index is not 64 bits");

struct hy_klu {
    hy_pattern *pattern;       /* the analysed pattern (a reference) */
    size_t n, nnz;             /* its size, to notice another pattern */
    klu_l_common common;
    klu_l_symbolic *symbolic;  /* its analysis: the pattern's, when it keeps one */
    int owns_symbolic;         /* else borrowed from the pattern's memo */
    klu_l_numeric *numeric;    /* NULL until a full factorisation succeeds */
    int numeric_valid;         /* numeric holds the factors of the last matrix */
    double rcond_min;          /* below it, refactor -> full factor */
    double rgrowth_full;       /* the pivot growth of the last full factor */
};

/* KLU's pointers are not const-qualified; it does not write the pattern. */
static SuiteSparse_long *col_start_of(const hy_pattern *p)
{
    return (SuiteSparse_long *)p->col_start;
}

static SuiteSparse_long *row_of(const hy_pattern *p)
{
    return (SuiteSparse_long *)p->row;
}

static void release_analysis(hy_klu *k)
{
    if (k->numeric != NULL)
        klu_l_free_numeric(&k->numeric, &k->common);
    if (k->symbolic != NULL && k->owns_symbolic)
        klu_l_free_symbolic(&k->symbolic, &k->common);
    k->symbolic = NULL;
    k->numeric_valid = 0;
    hy_pattern_unref(k->pattern);
    k->pattern = NULL;
}

/* The analysis of pattern: the one it keeps, else made (and given to it
** to keep, if it keeps its symbolic work). The pattern is held while it is
** k's: a borrowed analysis lives as long as its pattern. */
static int analyze(hy_klu *k, const hy_pattern *pattern)
{
    release_analysis(k);
    k->pattern = hy_pattern_ref((hy_pattern *)pattern);
    k->n = pattern->n;
    k->nnz = pattern->nnz;
    if (pattern->n == 0)
        return 0;
    if (pattern->n > (size_t)INT64_MAX)
        return -1;
    struct hy_pattern_memo *memo = pattern->memo;
    if (memo && memo->klu_symbolic) {
        k->symbolic = memo->klu_symbolic;
        k->owns_symbolic = 0;
        return 0;
    }
    k->symbolic = klu_l_analyze((SuiteSparse_long)pattern->n,
                                col_start_of(pattern), row_of(pattern),
                                &k->common);
    if (k->symbolic == NULL)
        return -1;
    k->pattern->n_analyses++;
    k->owns_symbolic = memo == NULL;
    if (memo)
        memo->klu_symbolic = k->symbolic;
    return 0;
}

void hy_klu_symbolic_free(void *symbolic)
{
    if (symbolic == NULL)
        return;
    klu_l_common common;
    klu_l_defaults(&common);
    klu_l_symbolic *analysis = symbolic;
    klu_l_free_symbolic(&analysis, &common);
}

/* SuiteSparse's allocation functions become the library's (see above). */
static void route_allocations(void)
{
#if SUITESPARSE_MAIN_VERSION >= 7
    SuiteSparse_config_malloc_func_set(hy_malloc);
    SuiteSparse_config_calloc_func_set(hy_calloc);
    SuiteSparse_config_realloc_func_set(hy_realloc);
    SuiteSparse_config_free_func_set(hy_free);
#else
    SuiteSparse_config.malloc_func = hy_malloc;
    SuiteSparse_config.calloc_func = hy_calloc;
    SuiteSparse_config.realloc_func = hy_realloc;
    SuiteSparse_config.free_func = hy_free;
#endif
}

/* Once, before KLU allocates anything for hydae: a block allocated by
** malloc must never reach hy_free. */
static void route_allocations_once(void)
{
#ifndef __STDC_NO_THREADS__
    static once_flag routed = ONCE_FLAG_INIT;
    call_once(&routed, route_allocations);
#else
    static volatile int routed; /* without C11 threads: first use on one thread */
    if (!routed) {
        route_allocations();
        routed = 1;
    }
#endif
}

hy_klu *hy_klu_create(const hy_pattern *pattern)
{
    route_allocations_once();
    hy_klu *k = hy_calloc(1, sizeof *k);
    if (k == NULL)
        return NULL;
    klu_l_defaults(&k->common);
    k->common.tol = 0.1;
    k->rcond_min = pow(DBL_EPSILON, 2.0 / 3.0);
    if (analyze(k, pattern) != 0) {
        hy_klu_free(k);
        return NULL;
    }
    return k;
}

/* The column KLU names as singular, 1-based (1 when it names none). */
static int singular_column(const hy_klu *k)
{
    SuiteSparse_long col = k->common.singular_col;
    if (col >= 0 && (size_t)col < k->n && col < INT_MAX)
        return (int)col + 1;
    return 1;
}

static int full_factor(hy_klu *k, const hy_matrix *m)
{
    if (k->numeric != NULL)
        klu_l_free_numeric(&k->numeric, &k->common);
    k->numeric_valid = 0;
    k->numeric = klu_l_factor(col_start_of(k->pattern), row_of(k->pattern),
                              m->values, k->symbolic, &k->common);
    if (k->numeric == NULL)
        return k->common.status == KLU_SINGULAR ? singular_column(k) : -1;
    k->numeric_valid = 1;
    k->rgrowth_full = 0.0;
    if (klu_l_rgrowth(col_start_of(k->pattern), row_of(k->pattern), m->values,
                      k->symbolic, k->numeric, &k->common))
        k->rgrowth_full = k->common.rgrowth;
    return 0;
}

/* The refactorisation's pivots are still good ones. */
static int refactor_is_stable(hy_klu *k, const hy_matrix *m)
{
    if (!klu_l_rcond(k->symbolic, k->numeric, &k->common)
        || !(k->common.rcond >= k->rcond_min))
        return 0;
    if (!klu_l_rgrowth(col_start_of(k->pattern), row_of(k->pattern), m->values,
                       k->symbolic, k->numeric, &k->common))
        return 0;
    return k->common.rgrowth >= 0.1 * k->rgrowth_full;
}

int hy_klu_factor(hy_klu *k, const hy_matrix *m)
{
    const hy_pattern *p = m->pattern;
    if (p == NULL || p->n != m->n)
        return -1;
    if (p->n == 0)
        return 0;
    if (k->symbolic == NULL || p != k->pattern || p->n != k->n
        || p->nnz != k->nnz) {
        if (analyze(k, p) != 0)
            return -1;
    }
    if (k->numeric == NULL)
        return full_factor(k, m);
    k->numeric_valid = 0;
    if (klu_l_refactor(col_start_of(p), row_of(p), m->values, k->symbolic,
                       k->numeric, &k->common)) {
        if (refactor_is_stable(k, m)) {
            k->numeric_valid = 1;
            return 0;
        }
    } else if (k->common.status != KLU_SINGULAR) {
        return -1;
    }
    /* A small or zero pivot, or a large growth, in the old order (or NaN
    ** values): choose the pivots anew. */
    return full_factor(k, m);
}

int hy_klu_solve(hy_klu *k, double *b)
{
    if (k->n == 0)
        return 0;
    if (!k->numeric_valid)
        return -1;
    return klu_l_solve(k->symbolic, k->numeric, (SuiteSparse_long)k->n, 1, b,
                       &k->common)
               ? 0
               : -1;
}

void hy_klu_free(hy_klu *k)
{
    if (k == NULL)
        return;
    release_analysis(k);
    hy_free(k);
}

#else

/* ISO C forbids an empty translation unit. */
typedef int hy_klu_not_built;

#endif
