/*
** Band LU with partial pivoting on the band storage of linsol.h: ld =
** 2 ml + mu + 1 rows per column, A(i, j) at values[(ml + mu + i - j) +
** j ld], the top ml rows fill-in space.
**
** Our own factorisation is the unblocked column algorithm of Golub & Van
** Loan, Matrix Computations, 4th ed., sec. 4.3.5 ("Band Gaussian
** elimination with partial pivoting"): at step k the pivot is searched
** among the ml entries below the diagonal, the two rows are swapped in the
** columns the pivot row reaches, and the multipliers update the columns
** k+1 .. ju. With pivoting U gets upper bandwidth ml + mu (rows 0 .. ml+mu
** of the storage); L keeps its ml multipliers per column below the
** diagonal, not permuted by later interchanges, so the solve applies the
** interchanges and the eliminations of L alternately, as the
** factorisation did. U's diagonal is left as its reciprocal (1/U_kk is
** computed for the multipliers anyway; the solve then multiplies where it
** would divide). LAPACK's dgbtrf leaves the same storage and convention
** (its pivots 1-based) but U_kk itself: hy_band_factor_lapack inverts the
** diagonal after it, so one solve serves both.
**
** When LAPACK is built in (HYDAE_HAVE_LAPACK), dgbtrf factors the shapes
** where it is faster; see hy_band_uses_lapack for the measurement: with
** the reference BLAS never, with an optimised one (OpenBLAS) from ml = 80
** (and ml + mu >= 96). The solve is always ours: dgbtrs is not faster on the
** same factors (bench/README.md) and would need the pivots as int.
*/
#include "linalg/band.h"
#include "linalg/backends.h"
#include "core/core.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* All offsets below are j ld + r with j < n and r < ld: below n ld, the
** number of values the matrix was allocated with (a checked product), so
** they cannot overflow. */

int hy_band_factor_own(hy_matrix *m, int64_t *pivot)
{
    const size_t n = m->n, ml = m->ml, mu = m->mu, ld = m->ld;
    const size_t kv = ml + mu; /* the diagonal's row in the storage */
    double *ab = m->values;

    /* The fill-in rows start at zero (the caller need not clear them). */
    if (ml > 0)
        for (size_t j = 0; j < n; j++)
            memset(ab + j * ld, 0, ml * sizeof *ab);

    size_t ju = 0; /* the last column that rows 0 .. k of U reach */
    for (size_t k = 0; k < n; k++) {
        double *col_k = ab + k * ld + kv; /* col_k[i]: row k + i */
        const size_t km = ml < n - 1 - k ? ml : n - 1 - k;
        size_t p = 0;
        double max_abs = fabs(col_k[0]);
        for (size_t i = 1; i <= km; i++) {
            double v = fabs(col_k[i]);
            if (v > max_abs) {
                max_abs = v;
                p = i;
            }
        }
        pivot[k] = (int64_t)(k + p);
        if (max_abs == 0.0)
            return k + 1 <= INT_MAX ? (int)(k + 1) : INT_MAX;
        if (km == 0) {
            /* Nothing below the diagonal: no swap, no update. */
            col_k[0] = 1.0 / col_k[0];
            continue;
        }
        /* Row k + p reaches column k + p + mu (kept rows and earlier pivot
        ** rows reach no further than ju). */
        size_t reach = k + p + mu < n - 1 ? k + p + mu : n - 1;
        if (reach > ju)
            ju = reach;
        if (p != 0) {
            /* Swap rows k and k + p in columns k .. ju: row k of column j
            ** is at offset kv + k - j, and j - k <= kv. */
            for (size_t j = k; j <= ju; j++) {
                double *row_k = ab + j * ld + (kv + k - j);
                double swap = row_k[0];
                row_k[0] = row_k[p];
                row_k[p] = swap;
            }
        }
        double inv_pivot = 1.0 / col_k[0];
        col_k[0] = inv_pivot; /* U_kk is not needed again: its reciprocal */
        for (size_t i = 1; i <= km; i++)
            col_k[i] *= inv_pivot;
        for (size_t j = k + 1; j <= ju; j++) {
            double *row_k = ab + j * ld + (kv + k - j);
            double u_kj = row_k[0];
            if (u_kj == 0.0)
                continue;
            for (size_t i = 1; i <= km; i++)
                row_k[i] -= col_k[i] * u_kj;
        }
    }
    return 0;
}

/* L y = P b, columns k0 .. k1 - 1 (k1 < n) with ml_k >= 1 multipliers
** each (see hy_band_solve). Inlined with ml_k a constant for narrow bands,
** so that the loop over the multipliers unrolls. b[k + 1], which the next
** column reads first, is carried in a register (it is stored when the
** next column is done with it); its update from column k is the last of
** the column's, the others go to memory: the same operations as column by
** column. */
static inline void forward_columns(const double *ab, size_t ld, size_t kv,
                                   const int64_t *pivot, double *b, size_t k0,
                                   size_t k1, size_t ml_k)
{
    if (k0 >= k1)
        return;
    double carry = b[k0]; /* b[k], up to date */
    for (size_t k = k0; k < k1; k++) {
        size_t p = (size_t)pivot[k];
        double y_k = carry;
        if (p != k) {
            y_k = b[p];
            b[p] = carry;
        }
        b[k] = y_k;
        double *below = b + k;
        carry = below[1];
        if (y_k == 0.0)
            continue;
        const double *col_k = ab + k * ld + kv;
        for (size_t i = 2; i <= ml_k; i++)
            below[i] -= col_k[i] * y_k;
        carry -= col_k[1] * y_k;
    }
    b[k1] = carry;
}

/* U x = y, columns j1 - 1 down to j0, each with the n_above rows above its
** diagonal (see hy_band_solve). */
static void backward_columns(const double *ab, size_t ld, size_t kv,
                             double *b, size_t j0, size_t j1, size_t n_above)
{
    for (size_t j = j1; j-- > j0;) {
        const double *col_j = ab + j * ld + kv;
        double x_j = b[j] * col_j[0];
        b[j] = x_j;
        if (x_j == 0.0)
            continue;
        double *above = b + j;
        for (size_t d = 1; d <= n_above; d++)
            above[-(ptrdiff_t)d] -= col_j[-(ptrdiff_t)d] * x_j;
    }
}

/* U x = y for the rows j1 - 1 down to j0, each with its n_right entries
** right of the diagonal (see hy_band_solve); n_right a constant for
** narrow bands. Row j subtracts U(j, j + d) x_{j+d} for d = n_right .. 1
** in that order, as the columns j + n_right .. j + 1 of a column-oriented
** substitution would: the same sums. x_{j+1}, the only term that waits on
** the row before, is carried in a register and subtracted last. */
static inline void backward_rows(const double *ab, size_t ld, size_t kv,
                                 double *b, size_t j0, size_t j1,
                                 size_t n_right)
{
    /* x_{j1}, solved already when row j1 - 1 has entries right of it. */
    double x_next = n_right > 0 && j1 > j0 ? b[j1] : 0.0;
    for (size_t j = j1; j-- > j0;) {
        /* U(j, j + d) is at row kv - d of column j + d. */
        const double *row_j = ab + j * ld + kv;
        const size_t step = ld - 1;
        double sum = b[j];
        for (size_t d = n_right; d >= 2; d--)
            sum -= row_j[d * step] * b[j + d];
        if (n_right >= 1)
            sum -= row_j[step] * x_next;
        x_next = sum * row_j[0];
        b[j] = x_next;
    }
}

void hy_band_solve(const hy_matrix *m, const int64_t *pivot, double *b)
{
    const size_t n = m->n, ml = m->ml, ld = m->ld;
    const size_t kv = ml + m->mu;
    const double *ab = m->values;

    /* L y = P b: interchange k, then eliminate with column k of L: ml
    ** multipliers in columns 0 .. n - 1 - ml, then one fewer per column. */
    if (ml > 0 && n > 1) {
        size_t k_full = n > ml ? n - ml : 0; /* columns with ml multipliers */
#define BAND_FORWARD(w) forward_columns(ab, ld, kv, pivot, b, 0, k_full, (w))
        HY_BY_SMALL_CONSTANT(ml, BAND_FORWARD, ml)
#undef BAND_FORWARD
        for (size_t k = k_full; k + 1 < n; k++)
            forward_columns(ab, ld, kv, pivot, b, k, k + 1, n - 1 - k);
    }
    /* U x = y, backward; U(i, j) at offset kv + i - j, the diagonal
    ** stored as its reciprocal (a multiplication where a division would
    ** hold up the next row). Narrow bands by rows (the last n - kv rows
    ** have kv entries right of the diagonal, the first ones n - 1 - j),
    ** wide ones by columns, the rows going upwards from j - 1: b[j - 1],
    ** which the next column scales first, is then ready while the rest of
    ** the update runs (upwards order took 2 - 4 times as long for mu >=
    ** 64). */
    if (kv <= 8) {
        size_t j_full = n > kv ? n - kv : 0; /* rows with kv entries */
        for (size_t j = n; j-- > j_full;)
            backward_rows(ab, ld, kv, b, j, j + 1, n - 1 - j);
#define BAND_BACKWARD(w) backward_rows(ab, ld, kv, b, 0, j_full, (w))
        HY_BY_SMALL_CONSTANT(kv, BAND_BACKWARD, kv)
#undef BAND_BACKWARD
    } else {
        size_t j_full = kv < n ? kv : n;
        backward_columns(ab, ld, kv, b, j_full, n, kv);
        for (size_t j = j_full; j-- > 0;)
            backward_columns(ab, ld, kv, b, j, j + 1, j);
    }
}

#ifdef HYDAE_HAVE_LAPACK

/* LAPACK's band LU (Fortran, column-major, 1-based pivots). */
extern void dgbtrf_(const int *m, const int *n, const int *kl, const int *ku,
                    double *ab, const int *ldab, int *ipiv, int *info);

/* Factorisation time of hy_band_factor_own over dgbtrf's (CPU time, random
** band matrices, n = 10,000; AMD EPYC, 2 cores shared with other work;
** bench/bench_linsol, the best of three batches, the range over two to four
** runs; the tables in bench/README.md, "Linear solvers"):
**
**   ml, mu    1,1  8,8  16,16 32,32 48,48 64,64 80,80 100,100 300,300
**   reference 0.8- 0.8- 0.4-  0.5-  0.7-  0.7-  0.5   0.5-    0.6-
**             0.9  0.9  0.7   0.9   0.9   1.0         0.7     0.7
**   OpenBLAS  0.4- 0.5  0.7-  0.7-  0.8-  0.7-  1.3-  1.5-    2.8-
**             0.5       0.9   1.0   1.0   1.3   1.4   2.2     4.1
**
**   ml, mu    40,4 4,40 8,64 10,100 64,0 64,8 80,8 96,0 96,8 100,10
**   reference 0.8- 0.7- 0.8- 0.6-   0.7- 0.7- 0.8  0.4- 0.6- 0.7-
**             1.0  1.0  1.0  0.8    1.0  1.0       0.8  0.8  0.9
**   OpenBLAS  0.7- 0.4- 0.4- 0.4-   0.9- 0.7- 1.0- 1.1- 0.9- 1.1-
**             1.0  0.5  0.5  0.6    1.3  1.4  1.1  1.2  1.1  1.5
**
** (n = 1000 and 100,000 give the same picture.) dgbtrf is unblocked
** (dgbtf2: BLAS calls per column) for kl <= 32 and blocked above, with
** dgemm on the fill-in triangles: with the reference BLAS that never beats
** our loops; with OpenBLAS it does once the blocks are large: it ties at
** ml = 64 and wins from ml = 80 (by 1.1 when mu is small, 1.35 at 80,80,
** 1.5 - 2 at 100,100). With ml = 0 there is nothing to eliminate and our
** loop only checks the diagonal. */
int hy_band_uses_lapack(size_t n, size_t ml, size_t mu)
{
    (void)n;
#ifdef HYDAE_LAPACK_OPTIMIZED
    return ml >= 80 && ml + mu >= 96;
#else
    (void)ml;
    (void)mu;
    return 0;
#endif
}

int hy_band_factor_lapack(hy_matrix *m, int64_t *pivot)
{
    if (m->n == 0 || m->n > INT_MAX || m->ld > INT_MAX)
        return hy_band_factor_own(m, pivot);
    int *ipiv = hy_malloc(m->n * sizeof *ipiv); /* n <= INT_MAX: no overflow */
    if (ipiv == NULL)
        return hy_band_factor_own(m, pivot);
    const int n = (int)m->n, kl = (int)m->ml, ku = (int)m->mu, ldab = (int)m->ld;
    int info = 0;
    dgbtrf_(&n, &n, &kl, &ku, m->values, &ldab, ipiv, &info);
    for (int k = 0; k < n; k++)
        pivot[k] = (int64_t)ipiv[k] - 1;
    hy_free(ipiv);
    /* U's diagonal as its reciprocal, as hy_band_factor_own leaves it. */
    if (info == 0)
        for (size_t j = 0; j < m->n; j++) {
            double *diag = m->values + j * m->ld + (m->ml + m->mu);
            *diag = 1.0 / *diag;
        }
    /* info < 0 would be a bad argument, impossible with the checks above. */
    return info > 0 ? info : 0;
}

#else

int hy_band_uses_lapack(size_t n, size_t ml, size_t mu)
{
    (void)n;
    (void)ml;
    (void)mu;
    return 0;
}

int hy_band_factor_lapack(hy_matrix *m, int64_t *pivot)
{
    return hy_band_factor_own(m, pivot);
}

#endif

int hy_band_factor(hy_matrix *m, int64_t *pivot)
{
    if (hy_band_uses_lapack(m->n, m->ml, m->mu))
        return hy_band_factor_lapack(m, pivot);
    return hy_band_factor_own(m, pivot);
}
