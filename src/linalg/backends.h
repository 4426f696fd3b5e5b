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

/* The symbolic work a pattern keeps (hy_pattern_keep_symbolic): its
** column groups (color_start NULL until made) and KLU's analysis (a
** klu_l_symbolic, NULL until made), both read only once made. */
struct hy_pattern_memo {
    hy_coloring coloring;
    void *klu_symbolic;
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
