/*
** Dense complex LU with partial pivoting: the column-oriented kji form of
** Golub & Van Loan, Matrix Computations, 4th ed., Algorithm 3.4.1 (as
** dense.c), in complex arithmetic on split real and imaginary parts. The
** pivot is the entry of largest |re| + |im| (a norm equivalent to the
** modulus, as LAPACK's zgetrf with izamax).
*/
#include "zdense.h"

#include <math.h>

static void swap_rows(int n, double *re, double *im, int k, int p)
{
    for (int j = 0; j < n; j++) {
        long kj = k + (long)j * n, pj = p + (long)j * n;
        double s = re[kj];
        re[kj] = re[pj];
        re[pj] = s;
        s = im[kj];
        im[kj] = im[pj];
        im[pj] = s;
    }
}

int hy_zlu_factor(int n, double *re, double *im, int *pivot)
{
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
        if (p != k)
            swap_rows(n, re, im, k, p);
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
            if (ur == 0.0 && ui == 0.0)
                continue;
            for (int i = k + 1; i < n; i++) {
                jr[i] -= cr[i] * ur - ci[i] * ui;
                ji[i] -= cr[i] * ui + ci[i] * ur;
            }
        }
    }
    return 0;
}

void hy_zlu_solve(int n, const double *re, const double *im, const int *pivot, double *b_re,
                  double *b_im)
{
    for (int k = 0; k < n; k++) {
        int p = pivot[k];
        if (p != k) {
            double s = b_re[k];
            b_re[k] = b_re[p];
            b_re[p] = s;
            s = b_im[k];
            b_im[k] = b_im[p];
            b_im[p] = s;
        }
    }
    /* L y = P b, unit lower triangular. */
    for (int j = 0; j < n; j++) {
        const double *cr = re + (long)j * n, *ci = im + (long)j * n;
        double yr = b_re[j], yi = b_im[j];
        if (yr == 0.0 && yi == 0.0)
            continue;
        for (int i = j + 1; i < n; i++) {
            b_re[i] -= cr[i] * yr - ci[i] * yi;
            b_im[i] -= cr[i] * yi + ci[i] * yr;
        }
    }
    /* U x = y, backward. */
    for (int j = n - 1; j >= 0; j--) {
        const double *cr = re + (long)j * n, *ci = im + (long)j * n;
        double den = cr[j] * cr[j] + ci[j] * ci[j];
        double r = b_re[j], s = b_im[j];
        double xr = (r * cr[j] + s * ci[j]) / den;
        double xi = (s * cr[j] - r * ci[j]) / den;
        b_re[j] = xr;
        b_im[j] = xi;
        if (xr == 0.0 && xi == 0.0)
            continue;
        for (int i = 0; i < j; i++) {
            b_re[i] -= cr[i] * xr - ci[i] * xi;
            b_im[i] -= cr[i] * xi + ci[i] * xr;
        }
    }
}
