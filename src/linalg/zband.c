/*
** Complex band LU with partial pivoting (see zband.h): the unblocked column
** algorithm of Golub & Van Loan, Matrix Computations, 4th ed., sec. 4.3.5
** (band Gaussian elimination with partial pivoting; the band solve of sec.
** 4.3.2 with the interchanges applied as the factorisation made them), in
** complex arithmetic on split real and imaginary arrays, as band.c does it
** in real arithmetic. With pivoting U gets upper bandwidth ml + mu; L keeps
** its ml multipliers per column below the diagonal, not permuted by later
** interchanges. The pivot is the entry of largest |re| + |im| (LAPACK's
** zgbtrf uses the same cabs1 measure).
*/
#include "linalg/zband.h"

#include <limits.h>
#include <math.h>
#include <string.h>

static void swap_values(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* Row k's entries of columns k .. ju: multiply the multipliers below the
** pivot by 1/pivot and update columns k+1 .. ju (a rank-one update). */
static void eliminate_column(size_t k, size_t km, size_t ju, size_t ld, size_t kv, double *re,
                             double *im)
{
    double *cr = re + k * ld + kv, *ci = im + k * ld + kv;
    double den = cr[0] * cr[0] + ci[0] * ci[0];
    double inv_re = cr[0] / den, inv_im = -ci[0] / den;
    for (size_t i = 1; i <= km; i++) {
        double r = cr[i] * inv_re - ci[i] * inv_im;
        ci[i] = cr[i] * inv_im + ci[i] * inv_re;
        cr[i] = r;
    }
    for (size_t j = k + 1; j <= ju; j++) {
        size_t at = j * ld + (kv + k - j);
        double *rr = re + at, *ri = im + at;
        double u_re = rr[0], u_im = ri[0];
        if (u_re == 0.0 && u_im == 0.0)
            continue;
        for (size_t i = 1; i <= km; i++) {
            rr[i] -= cr[i] * u_re - ci[i] * u_im;
            ri[i] -= cr[i] * u_im + ci[i] * u_re;
        }
    }
}

int hy_zband_factor(size_t n, size_t ml, size_t mu, double *re, double *im, int64_t *pivot)
{
    const size_t ld = 2 * ml + mu + 1, kv = ml + mu;
    if (ml > 0)
        for (size_t j = 0; j < n; j++) {
            memset(re + j * ld, 0, ml * sizeof *re);
            memset(im + j * ld, 0, ml * sizeof *im);
        }
    size_t ju = 0; /* the last column rows 0 .. k of U reach */
    for (size_t k = 0; k < n; k++) {
        const double *cr = re + k * ld + kv, *ci = im + k * ld + kv;
        const size_t km = ml < n - 1 - k ? ml : n - 1 - k;
        size_t p = 0;
        double max_abs = fabs(cr[0]) + fabs(ci[0]);
        for (size_t i = 1; i <= km; i++) {
            double v = fabs(cr[i]) + fabs(ci[i]);
            if (v > max_abs) {
                max_abs = v;
                p = i;
            }
        }
        pivot[k] = (int64_t)(k + p);
        if (max_abs == 0.0)
            return k + 1 <= INT_MAX ? (int)(k + 1) : INT_MAX;
        if (km == 0)
            continue;
        size_t reach = k + p + mu < n - 1 ? k + p + mu : n - 1;
        if (reach > ju)
            ju = reach;
        if (p != 0)
            for (size_t j = k; j <= ju; j++) {
                size_t at = j * ld + (kv + k - j);
                swap_values(re + at, re + at + p);
                swap_values(im + at, im + at + p);
            }
        eliminate_column(k, km, ju, ld, kv, re, im);
    }
    return 0;
}

void hy_zband_solve(size_t n, size_t ml, size_t mu, const double *re, const double *im,
                    const int64_t *pivot, double *b_re, double *b_im)
{
    const size_t ld = 2 * ml + mu + 1, kv = ml + mu;
    /* L y = P b: interchange, then eliminate below, column by column. */
    for (size_t k = 0; k + 1 < n; k++) {
        size_t p = (size_t)pivot[k];
        if (p != k) {
            swap_values(b_re + k, b_re + p);
            swap_values(b_im + k, b_im + p);
        }
        double y_re = b_re[k], y_im = b_im[k];
        if (y_re == 0.0 && y_im == 0.0)
            continue;
        const size_t km = ml < n - 1 - k ? ml : n - 1 - k;
        const double *cr = re + k * ld + kv, *ci = im + k * ld + kv;
        for (size_t i = 1; i <= km; i++) {
            b_re[k + i] -= cr[i] * y_re - ci[i] * y_im;
            b_im[k + i] -= cr[i] * y_im + ci[i] * y_re;
        }
    }
    /* U x = y, column by column from the last; U has kv rows above its
    ** diagonal. */
    for (size_t j = n; j-- > 0;) {
        const double *cr = re + j * ld + kv, *ci = im + j * ld + kv;
        double den = cr[0] * cr[0] + ci[0] * ci[0];
        double x_re = (b_re[j] * cr[0] + b_im[j] * ci[0]) / den;
        double x_im = (b_im[j] * cr[0] - b_re[j] * ci[0]) / den;
        b_re[j] = x_re;
        b_im[j] = x_im;
        if (x_re == 0.0 && x_im == 0.0)
            continue;
        size_t n_above = kv < j ? kv : j;
        for (size_t d = 1; d <= n_above; d++) {
            b_re[j - d] -= cr[-(ptrdiff_t)d] * x_re - ci[-(ptrdiff_t)d] * x_im;
            b_im[j - d] -= cr[-(ptrdiff_t)d] * x_im + ci[-(ptrdiff_t)d] * x_re;
        }
    }
}
