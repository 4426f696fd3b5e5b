/*
** Complex sparse LU through SuiteSparse KLU (Davis & Palamadai Natarajan,
** "Algorithm 907: KLU", ACM TOMS 37(3), 2010), its complex long-index
** interface klu_zl_*: see zklu.h. As klu.c does for real matrices: KLU's
** symbolic analysis once (the one the pattern keeps when it keeps its
** symbolic work: the analysis depends only on the pattern, so the real and
** the complex factorisations share it), a full klu_zl_factor first, then
** klu_zl_refactor with the old pivots while they stay good (rcond above
** roundoff^(2/3) and the pivot growth above a tenth of the last full
** factorisation's; klu.c says why both), else a full factorisation again.
** Pivot tolerance 0.1 as in klu.c.
*/
#ifdef HYDAE_HAVE_KLU

#include "linalg/zklu.h"
#include "linalg/backends.h"
#include "core/core.h"

#include <float.h>
#include <limits.h>
#include <math.h>

#include <klu.h>

struct hy_zklu {
    hy_pattern *pattern; /* a reference */
    klu_l_common common;
    klu_l_symbolic *symbolic;
    int owns_symbolic;
    klu_l_numeric *numeric;
    int numeric_valid;
    double rcond_min, rgrowth_full;
};

static SuiteSparse_long *cols(const hy_zklu *k)
{
    return (SuiteSparse_long *)k->pattern->col_start;
}

static SuiteSparse_long *rows(const hy_zklu *k)
{
    return (SuiteSparse_long *)k->pattern->row;
}

hy_zklu *hy_zklu_create(const hy_pattern *pattern)
{
    /* hy_klu_create routes SuiteSparse's allocations through hydae's hook
    ** once per process: make sure that has happened first. */
    hy_klu *real = hy_klu_create(pattern);
    if (real == NULL)
        return NULL;
    hy_klu_free(real);
    hy_zklu *k = hy_calloc(1, sizeof *k);
    if (k == NULL)
        return NULL;
    klu_l_defaults(&k->common);
    k->common.tol = 0.1;
    k->rcond_min = pow(DBL_EPSILON, 2.0 / 3.0);
    k->pattern = hy_pattern_ref((hy_pattern *)pattern);
    if (pattern->n == 0)
        return k;
    struct hy_pattern_memo *memo = pattern->memo;
    if (memo && memo->klu_symbolic) {
        k->symbolic = memo->klu_symbolic;
        return k;
    }
    k->symbolic = klu_l_analyze((SuiteSparse_long)pattern->n, cols(k), rows(k), &k->common);
    k->owns_symbolic = 1;
    if (k->symbolic == NULL) {
        hy_zklu_free(k);
        return NULL;
    }
    return k;
}

static int singular_column(const hy_zklu *k)
{
    SuiteSparse_long col = k->common.singular_col;
    if (col >= 0 && (size_t)col < k->pattern->n && col < INT_MAX)
        return (int)col + 1;
    return 1;
}

static int full_factor(hy_zklu *k, double *values)
{
    if (k->numeric != NULL)
        klu_zl_free_numeric(&k->numeric, &k->common);
    k->numeric_valid = 0;
    k->numeric = klu_zl_factor(cols(k), rows(k), values, k->symbolic, &k->common);
    if (k->numeric == NULL)
        return k->common.status == KLU_SINGULAR ? singular_column(k) : -1;
    k->numeric_valid = 1;
    k->rgrowth_full = 0.0;
    if (klu_zl_rgrowth(cols(k), rows(k), values, k->symbolic, k->numeric, &k->common))
        k->rgrowth_full = k->common.rgrowth;
    return 0;
}

static int refactor_is_stable(hy_zklu *k, double *values)
{
    if (!klu_zl_rcond(k->symbolic, k->numeric, &k->common) || !(k->common.rcond >= k->rcond_min))
        return 0;
    if (!klu_zl_rgrowth(cols(k), rows(k), values, k->symbolic, k->numeric, &k->common))
        return 0;
    return k->common.rgrowth >= 0.1 * k->rgrowth_full;
}

int hy_zklu_factor(hy_zklu *k, double *values)
{
    if (k->pattern->n == 0)
        return 0;
    if (k->numeric == NULL)
        return full_factor(k, values);
    k->numeric_valid = 0;
    if (klu_zl_refactor(cols(k), rows(k), values, k->symbolic, k->numeric, &k->common)) {
        if (refactor_is_stable(k, values)) {
            k->numeric_valid = 1;
            return 0;
        }
    } else if (k->common.status != KLU_SINGULAR) {
        return -1;
    }
    return full_factor(k, values);
}

int hy_zklu_solve(hy_zklu *k, double *b)
{
    if (k->pattern->n == 0)
        return 0;
    if (!k->numeric_valid)
        return -1;
    return klu_zl_solve(k->symbolic, k->numeric, (SuiteSparse_long)k->pattern->n, 1, b,
                        &k->common)
               ? 0
               : -1;
}

void hy_zklu_free(hy_zklu *k)
{
    if (k == NULL)
        return;
    if (k->numeric != NULL)
        klu_zl_free_numeric(&k->numeric, &k->common);
    if (k->symbolic != NULL && k->owns_symbolic)
        klu_l_free_symbolic(&k->symbolic, &k->common);
    hy_pattern_unref(k->pattern);
    hy_free(k);
}

#else

typedef int hy_zklu_not_built;

#endif
