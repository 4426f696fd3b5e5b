/*
** The factorisations behind hy_linsol (linsol.c dispatches on the kind):
** one file each. Private to src/linalg.
*/
#ifndef HY_LINALG_BACKENDS_H
#define HY_LINALG_BACKENDS_H

#include "linsol.h"

/* Band LU with partial pivoting on the band storage of linsol.h (ld =
** 2 ml + mu + 1; the top ml rows are fill-in space), U's diagonal left as
** its reciprocals: our own or LAPACK's dgbtrf (band.c chooses), the solve
** always our own. pivot has n entries. 0, or k > 0: zero pivot in column
** k (1-based). */
int hy_band_factor(hy_matrix *m, int64_t *pivot);
void hy_band_solve(const hy_matrix *m, const int64_t *pivot, double *b);

/* Dense LU through LAPACK dgetrf / dgetrs for n above the crossover where
** it beats dense.c (HYDAE_HAVE_LAPACK only; 0 = never). */
size_t hy_dense_lapack_crossover(void);
int hy_dense_lapack_factor(hy_matrix *m, int *pivot);
void hy_dense_lapack_solve(const hy_matrix *m, const int *pivot, double *b);

/* A symmetric permutation that narrows the band (rcm.c: reverse
** Cuthill-McKee): row and column i of A are row and column new_of_old[i]
** of P A P^T, whose bandwidths are ml, mu. */
typedef struct hy_band_ordering {
    size_t n;
    int64_t *old_of_new;     /* n */
    int64_t *new_of_old;     /* n */
    size_t ml, mu;
    int counted;             /* in the pattern's n_band_orderings: a band
                                solver took it (linsol.c) */
} hy_band_ordering;

/* The ordering of p: the one it keeps, else computed (and given to p to
** keep if it keeps its symbolic work, else returned in *owned for the
** caller to free). NULL out of memory. */
const hy_band_ordering *hy_band_ordering_get(const hy_pattern *p, hy_band_ordering **owned);
void hy_band_ordering_free(hy_band_ordering *o);

/* The symbolic work a pattern keeps (hy_pattern_keep_symbolic): its
** column groups (color_start NULL until made), KLU's analysis (a
** klu_l_symbolic, NULL until made) and its band ordering (NULL until
** made), all read only once made. */
struct hy_pattern_memo {
    hy_coloring coloring;
    void *klu_symbolic;
    hy_band_ordering *band_ordering;
};

/* KLU (SuiteSparse, HYDAE_HAVE_KLU): the symbolic analysis once per
** pattern (the one the pattern keeps, if it does), then numeric
** factorisations; klu_refactor reuses the pivot order while it stays
** stable. */
typedef struct hy_klu hy_klu;
hy_klu *hy_klu_create(const hy_pattern *pattern);
/* 0; k > 0 singular (column k, 1-based, when KLU names it, else 1); -1
** out of memory. */
int hy_klu_factor(hy_klu *k, const hy_matrix *m);
int hy_klu_solve(hy_klu *k, double *b);
void hy_klu_free(hy_klu *k);
/* Free an analysis kept by a pattern (NULL: nothing). */
void hy_klu_symbolic_free(void *symbolic);

#endif
