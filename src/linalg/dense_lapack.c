/*
** Dense LU through LAPACK's dgetrf / dgetrs (HYDAE_HAVE_LAPACK), for the
** sizes where it beats our own dense.c; see hy_dense_lapack_crossover for
** the measurement. Without LAPACK the crossover is 0 (never) and factor /
** solve are never called; they are still defined (factor returns -1,
** solve does nothing) so that the dispatch links.
**
** Pivots are LAPACK's: 1-based, as dgetrf leaves them for dgetrs.
*/
#include "linalg/backends.h"

#include <limits.h>
#include <stddef.h>

#ifdef HYDAE_HAVE_LAPACK

/* LAPACK (Fortran): column-major, 1-based pivots. dgetrs takes the hidden
** length of its character argument last (size_t with gfortran >= 8). */
extern void dgetrf_(const int *m, const int *n, double *a, const int *lda,
                    int *ipiv, int *info);
extern void dgetrs_(const char *trans, const int *n, const int *nrhs,
                    const double *a, const int *lda, const int *ipiv,
                    double *b, const int *ldb, int *info, size_t trans_len);

/* Factorisation time of dense.c's hy_lu_factor over dgetrf's (CPU time,
** random matrices, AMD EPYC, 2 cores shared; bench/bench_linsol, the best
** of three batches; two runs, bench/README.md "Linear solvers"):
**
**     n         10    20    50   100   200   500  1000  1200  1500  2000
**   reference  0.3   0.4   0.5   0.5   0.6   0.6   1.0   1.1-  1.9   2.4
**                                                        1.2
**   OpenBLAS   0.4   0.5   1.0   1.5   2.2   3.1   5.5     -     -    17
**   (n = 64: 1.0, 80: 1.3)
**
** Reference LAPACK (Debian's liblapack3 + libblas3, what liblapack-dev
** links by default) blocks dgetrf with dgemm, but its dgemm is not tuned:
** our unblocked column LU keeps up until the matrix leaves the cache, n ~
** 1000. OpenBLAS (single-threaded) wins from n ~ 64. The solves are within
** a factor 2 either way and not worth a separate switch. */
size_t hy_dense_lapack_crossover(void)
{
#ifdef HYDAE_LAPACK_OPTIMIZED
    return 64;
#else
    return 1000;
#endif
}

int hy_dense_lapack_factor(hy_matrix *m, int *pivot)
{
    if (m->n == 0)
        return 0;
    if (m->n > INT_MAX)
        return -1;
    const int n = (int)m->n;
    int info = 0;
    dgetrf_(&n, &n, m->values, &n, pivot, &info);
    /* info < 0 (a bad argument) cannot happen with n >= 1 and lda = n. */
    return info > 0 ? info : 0;
}

void hy_dense_lapack_solve(const hy_matrix *m, const int *pivot, double *b)
{
    if (m->n == 0 || m->n > INT_MAX)
        return;
    const int n = (int)m->n, nrhs = 1;
    int info = 0;
    dgetrs_("N", &n, &nrhs, m->values, &n, pivot, b, &n, &info, 1);
}

#else

size_t hy_dense_lapack_crossover(void)
{
    return 0;
}

int hy_dense_lapack_factor(hy_matrix *m, int *pivot)
{
    (void)m;
    (void)pivot;
    return -1;
}

void hy_dense_lapack_solve(const hy_matrix *m, const int *pivot, double *b)
{
    (void)m;
    (void)pivot;
    (void)b;
}

#endif
