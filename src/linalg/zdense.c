/*
** Dense complex LU with partial pivoting: the column-oriented kji form of
** Golub & Van Loan, Matrix Computations, 4th ed., Algorithm 3.4.1 (as
** dense.c), in complex arithmetic on split real and imaginary parts. The
** pivot is the entry of largest |re| + |im| (a norm equivalent to the
** modulus, as LAPACK's zgetrf with izamax).
**
** Small systems. RADAU solves 1-3 complex systems of size n per Newton
** iteration, and for n of a few the loops' overhead (bounds, run-time alias
** checks of their vectorised forms, reloads after every store) cost more
** than the flops: 650 instructions for a solve of size 4. For n <= 8 the
** kernels below are compiled once per n as a constant
** (HY_BY_SMALL_CONSTANT), outer loops unrolled, on arrays declared restrict
** (the matrix and the right-hand side never overlap), and without the tests
** that skip a zero multiplier (a compare and a branch each, where the
** skipped update costs little more). Those updates subtract +-0 and leave
** every nonzero entry as it was, so the results are those of the general
** kernels but for the sign of an exact zero. Size 4: 200 instructions a
** solve, 350 a factorisation (AVX2 copy), from 650 and 870; size 8: 540 and
** 2300. (The factorisation's inner loops unrolled too: the same at size 4,
** 50 % more at size 8; so only its outer loop is.)
*/
#include "zdense.h"

#include "core/core.h"

#include <math.h>

#if defined(__GNUC__)
#define ZLU_INLINE static inline __attribute__((always_inline))
#define ZLU_UNROLL _Pragma("GCC unroll 8")
#else
#define ZLU_INLINE static inline
#define ZLU_UNROLL
#endif

/* Exchange entries a and b of the complex vector (re, im). */
ZLU_INLINE void swap_entries(double *re, double *im, long a, long b)
{
    double s = re[a];
    re[a] = re[b];
    re[b] = s;
    s = im[a];
    im[a] = im[b];
    im[b] = s;
}

/* P A = L U in place; skip_zeros: no update by a zero multiplier. */
ZLU_INLINE int zlu_factor(const int n, const int skip_zeros, double *restrict re,
                          double *restrict im, int *restrict pivot)
{
    ZLU_UNROLL
    for (int k = 0; k < n; k++) {
        double *cr = re + (long)k * n, *ci = im + (long)k * n;
        int p = k;
        double max_abs = fabs(cr[k]) + fabs(ci[k]);
        for (int i = k + 1; i < n; i++) {
            double v = fabs(cr[i]) + fabs(ci[i]);
            if (v > max_abs) {
                max_abs = v;
                p = i;
            }
        }
        pivot[k] = p;
        if (max_abs == 0.0)
            return k + 1;
        if (p != k) {
            for (int j = 0; j < n; j++)
                swap_entries(re, im, k + (long)j * n, p + (long)j * n);
        }
        /* 1 / (a + i b) = (a - i b) / (a^2 + b^2) */
        double den = cr[k] * cr[k] + ci[k] * ci[k];
        double inv_r = cr[k] / den, inv_i = -ci[k] / den;
        for (int i = k + 1; i < n; i++) {
            double r = cr[i], s = ci[i];
            cr[i] = r * inv_r - s * inv_i;
            ci[i] = r * inv_i + s * inv_r;
        }
        for (int j = k + 1; j < n; j++) {
            double *jr = re + (long)j * n, *ji = im + (long)j * n;
            double ur = jr[k], ui = ji[k];
            if (skip_zeros && ur == 0.0 && ui == 0.0)
                continue;
            for (int i = k + 1; i < n; i++) {
                jr[i] -= cr[i] * ur - ci[i] * ui;
                ji[i] -= cr[i] * ui + ci[i] * ur;
            }
        }
    }
    return 0;
}

/* x = A^-1 b from the factors, into b. */
ZLU_INLINE void zlu_solve(const int n, const int skip_zeros, const double *restrict re,
                          const double *restrict im, const int *restrict pivot,
                          double *restrict b_re, double *restrict b_im)
{
    for (int k = 0; k < n; k++) {
        if (pivot[k] != k)
            swap_entries(b_re, b_im, k, pivot[k]);
    }
    /* L y = P b, unit lower triangular. */
    ZLU_UNROLL
    for (int j = 0; j < n; j++) {
        const double *cr = re + (long)j * n, *ci = im + (long)j * n;
        double yr = b_re[j], yi = b_im[j];
        if (skip_zeros && yr == 0.0 && yi == 0.0)
            continue;
        for (int i = j + 1; i < n; i++) {
            b_re[i] -= cr[i] * yr - ci[i] * yi;
            b_im[i] -= cr[i] * yi + ci[i] * yr;
        }
    }
    /* U x = y, backward. */
    ZLU_UNROLL
    for (int j = n - 1; j >= 0; j--) {
        const double *cr = re + (long)j * n, *ci = im + (long)j * n;
        double den = cr[j] * cr[j] + ci[j] * ci[j];
        double r = b_re[j], s = b_im[j];
        double xr = (r * cr[j] + s * ci[j]) / den;
        double xi = (s * cr[j] - r * ci[j]) / den;
        b_re[j] = xr;
        b_im[j] = xi;
        if (skip_zeros && xr == 0.0 && xi == 0.0)
            continue;
        for (int i = 0; i < j; i++) {
            b_re[i] -= cr[i] * xr - ci[i] * xi;
            b_im[i] -= cr[i] * xi + ci[i] * xr;
        }
    }
}

/* The kernels for n, in the AVX2 and baseline copies (static: the copies
** and their resolver stay out of the library's exports). */
HY_VECTOR_CLONES
static int factor_by_size(int n, double *re, double *im, int *pivot)
{
    int status;
#define ZLU_FACTOR(m) status = zlu_factor((m), (m) > 8, re, im, pivot)
    HY_BY_SMALL_CONSTANT(n, ZLU_FACTOR, n)
#undef ZLU_FACTOR
    return status;
}

HY_VECTOR_CLONES
static void solve_by_size(int n, const double *re, const double *im, const int *pivot,
                          double *b_re, double *b_im)
{
#define ZLU_SOLVE(m) zlu_solve((m), (m) > 8, re, im, pivot, b_re, b_im)
    HY_BY_SMALL_CONSTANT(n, ZLU_SOLVE, n)
#undef ZLU_SOLVE
}

int hy_zlu_factor(int n, double *re, double *im, int *pivot)
{
    return factor_by_size(n, re, im, pivot);
}

void hy_zlu_solve(int n, const double *re, const double *im, const int *pivot, double *b_re,
                  double *b_im)
{
    solve_by_size(n, re, im, pivot, b_re, b_im);
}
