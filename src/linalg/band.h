/*
** The two band LU implementations behind hy_band_factor (backends.h): our
** own and LAPACK's dgbtrf. hy_band_factor chooses between them by size;
** these are exposed so the tests can check both and bench_linsol can time
** both. Both leave the same storage (the factors in the band storage of
** linsol.h, U's diagonal as its reciprocals 1/U_kk, pivots 0-based), so
** hy_band_solve solves with either.
*/
#ifndef HY_LINALG_BAND_H
#define HY_LINALG_BAND_H

#include "linsol.h"

/* Our own unblocked band LU with partial pivoting. 0, or k > 0: zero pivot
** in column k (1-based). */
int hy_band_factor_own(hy_matrix *m, int64_t *pivot);

/* LAPACK's dgbtrf (HYDAE_HAVE_LAPACK only; without it, and when n or ld
** exceeds INT_MAX or the int pivot buffer cannot be allocated, the own
** factorisation). Same result convention. */
int hy_band_factor_lapack(hy_matrix *m, int64_t *pivot);

/* 1 when hy_band_factor hands this shape to LAPACK (never without it). */
int hy_band_uses_lapack(size_t n, size_t ml, size_t mu);

#endif
