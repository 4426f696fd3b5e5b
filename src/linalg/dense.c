/*
** Dense LU with partial pivoting (Golub & Van Loan, Matrix Computations,
** 4th ed., Algorithm 3.4.1, the column-oriented "gaxpy" kji form so the
** inner loops run down contiguous columns).
**
** For n <= 8 both are compiled once per n as a constant
** (HY_BY_SMALL_CONSTANT: the outer loops unrolled, the arrays restrict),
** the operations those for any n, so the results are bit-identical. RADAU and the BDF
** codes solve once per Newton iteration, and at n = 4 the loops' overhead
** was most of the 300 instructions of a solve (now 110).
*/
#include "dense.h"

#include "core/core.h"

#include <math.h>

#if defined(__GNUC__)
#define LU_INLINE static inline __attribute__((always_inline))
#define LU_UNROLL _Pragma("GCC unroll 8")
#else
#define LU_INLINE static inline
#define LU_UNROLL
#endif

LU_INLINE int lu_factor(const int n, double *restrict a, int *restrict pivot)
{
    LU_UNROLL
    for (int k = 0; k < n; k++) {
        double *col_k = a + (long)k * n;
        int p = k;
        double max_abs = fabs(col_k[k]);
        for (int i = k + 1; i < n; i++) {
            double v = fabs(col_k[i]);
            if (v > max_abs) {
                max_abs = v;
                p = i;
            }
        }
        pivot[k] = p;
        if (max_abs == 0.0)
            return k + 1;
        if (p != k) {
            for (int j = 0; j < n; j++) {
                double *col = a + (long)j * n;
                double swap = col[k];
                col[k] = col[p];
                col[p] = swap;
            }
        }
        double inv_pivot = 1.0 / col_k[k];
        for (int i = k + 1; i < n; i++)
            col_k[i] *= inv_pivot;
        for (int j = k + 1; j < n; j++) {
            double *col_j = a + (long)j * n;
            double u_kj = col_j[k];
            if (u_kj == 0.0)
                continue;
            for (int i = k + 1; i < n; i++)
                col_j[i] -= col_k[i] * u_kj;
        }
    }
    return 0;
}

LU_INLINE void lu_solve(const int n, const double *restrict lu, const int *restrict pivot,
                        double *restrict b)
{
    for (int k = 0; k < n; k++) {
        int p = pivot[k];
        if (p != k) {
            double swap = b[k];
            b[k] = b[p];
            b[p] = swap;
        }
    }
    /* L y = P b, unit lower triangular, column by column. */
    LU_UNROLL
    for (int j = 0; j < n; j++) {
        const double *col = lu + (long)j * n;
        double y_j = b[j];
        if (y_j != 0.0)
            for (int i = j + 1; i < n; i++)
                b[i] -= col[i] * y_j;
    }
    /* U x = y, backward, column by column. */
    LU_UNROLL
    for (int j = n - 1; j >= 0; j--) {
        const double *col = lu + (long)j * n;
        b[j] /= col[j];
        double x_j = b[j];
        if (x_j != 0.0)
            for (int i = 0; i < j; i++)
                b[i] -= col[i] * x_j;
    }
}

int hy_lu_factor(int n, double *a, int *pivot)
{
    int status;
#define LU_FACTOR(m) status = lu_factor((m), a, pivot)
    HY_BY_SMALL_CONSTANT(n, LU_FACTOR, n)
#undef LU_FACTOR
    return status;
}

void hy_lu_solve(int n, const double *lu, const int *pivot, double *b)
{
#define LU_SOLVE(m) lu_solve((m), lu, pivot, b)
    HY_BY_SMALL_CONSTANT(n, LU_SOLVE, n)
#undef LU_SOLVE
}
