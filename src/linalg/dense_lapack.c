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
** random matrices; AMD EPYC, 2 cores shared with other work;
** bench/bench_linsol, the best of three batches, the range over two to four
** runs; all of it in bench/README.md, "Linear solvers"):
**
**     n        10   20   50   64   80  100  200  500  1000  1200  1500  2000
**   reference  0.3  0.4  0.5- 0.9  0.7  0.5- 0.5- 0.6- 0.8-  1.1-  1.8-  2.1-
**                        0.7            0.7  0.8  0.7  1.0*  1.4   1.9   2.8
**   OpenBLAS   0.2- 0.5  1.0- 1.0- 1.3- 1.5- 2.2- 3.1- 5.5-  6.9   16    17-
**              0.5       1.6  1.2  1.8  2.2  3.1  3.9  11                19
**
** (* once 1.4, in a run where n = 850 gave 0.5: the machine was busy.)
** Reference LAPACK (Debian's liblapack3 + libblas3, what liblapack-dev
** links by default) blocks dgetrf with dgemm, but its dgemm is not tuned:
** our unblocked column LU keeps up until the matrix leaves the cache, n ~
** 1000. OpenBLAS (single-threaded) wins from n ~ 64. The solves: dgetrs
** takes 2 - 3 times our hy_lu_solve's time up to n = 1000 with the
** reference BLAS and about the same above; with OpenBLAS 0.3 - 0.7 times
** from n = 200 on. Next to the factorisation that is small either way, so
** the LAPACK path simply solves with dgetrs. */
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
