/*
** The dense LU kernels of linalg/dense.c (real) and linalg/zdense.c
** (complex) at the sizes 1 .. 10 around their constant-n copies (n <= 8):
** random systems whose diagonal is zero, so that every step pivots, solved
** to a scaled residual ||A x - b||_inf / (||A||_inf ||x||_inf) of a few
** units of roundoff (computed here, in long double and complex
** arithmetic), and a zero column reported as singular with its index.
*/
#include "check.h"
#include "linalg/dense.h"
#include "linalg/zdense.h"

#include <complex.h>
#include <float.h>
#include <string.h>

#define MAX_N 10

/* A reproducible value in [-1, 1) (a linear congruential generator). */
static double next_value(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (double)(*state >> 8) / (double)(1u << 23) - 1.0;
}

static void check_real(int n, unsigned *state)
{
    double a[MAX_N * MAX_N], lu[MAX_N * MAX_N], b[MAX_N], x[MAX_N];
    int pivot[MAX_N];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            a[i + j * n] = i == j && n > 1 ? 0.0 : next_value(state);
    for (int i = 0; i < n; i++)
        b[i] = x[i] = next_value(state);
    memcpy(lu, a, sizeof(double) * (size_t)(n * n));
    int status = hy_lu_factor(n, lu, pivot);
    CHECK(status == 0, "real n %d: factor returned %d", n, status);
    hy_lu_solve(n, lu, pivot, x);
    long double norm_a = 0.0L, norm_x = 0.0L, norm_r = 0.0L;
    for (int i = 0; i < n; i++) {
        long double r = -(long double)b[i], row = 0.0L;
        for (int j = 0; j < n; j++) {
            r += (long double)a[i + j * n] * x[j];
            row += fabsl(a[i + j * n]);
        }
        norm_a = fmaxl(norm_a, row);
        norm_x = fmaxl(norm_x, fabsl(x[i]));
        norm_r = fmaxl(norm_r, fabsl(r));
    }
    double scaled = (double)(norm_r / (norm_a * norm_x));
    CHECK(scaled <= 8 * n * DBL_EPSILON, "real n %d: scaled residual %.3g", n, scaled);

    memcpy(lu, a, sizeof(double) * (size_t)(n * n));
    for (int i = 0; i < n; i++)
        lu[i + (n / 2) * n] = 0.0;
    status = hy_lu_factor(n, lu, pivot);
    CHECK(status == n / 2 + 1, "real n %d: zero column %d reported as %d", n, n / 2 + 1,
          status);
}

static void check_complex(int n, unsigned *state)
{
    double re[MAX_N * MAX_N], im[MAX_N * MAX_N], lu_re[MAX_N * MAX_N], lu_im[MAX_N * MAX_N];
    double x_re[MAX_N], x_im[MAX_N];
    double complex b[MAX_N];
    int pivot[MAX_N];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            int zero = i == j && n > 1;
            re[i + j * n] = zero ? 0.0 : next_value(state);
            im[i + j * n] = zero ? 0.0 : next_value(state);
        }
    for (int i = 0; i < n; i++) {
        x_re[i] = next_value(state);
        x_im[i] = next_value(state);
        b[i] = x_re[i] + I * x_im[i];
    }
    size_t bytes = sizeof(double) * (size_t)(n * n);
    memcpy(lu_re, re, bytes);
    memcpy(lu_im, im, bytes);
    int status = hy_zlu_factor(n, lu_re, lu_im, pivot);
    CHECK(status == 0, "complex n %d: factor returned %d", n, status);
    hy_zlu_solve(n, lu_re, lu_im, pivot, x_re, x_im);
    double norm_a = 0.0, norm_x = 0.0, norm_r = 0.0;
    for (int i = 0; i < n; i++) {
        double complex r = -b[i];
        double row = 0.0;
        for (int j = 0; j < n; j++) {
            double complex m = re[i + j * n] + I * im[i + j * n];
            r += m * (x_re[j] + I * x_im[j]);
            row += cabs(m);
        }
        norm_a = fmax(norm_a, row);
        norm_x = fmax(norm_x, cabs(x_re[i] + I * x_im[i]));
        norm_r = fmax(norm_r, cabs(r));
    }
    double scaled = norm_r / (norm_a * norm_x);
    CHECK(scaled <= 16 * n * DBL_EPSILON, "complex n %d: scaled residual %.3g", n, scaled);

    memcpy(lu_re, re, bytes);
    memcpy(lu_im, im, bytes);
    for (int i = 0; i < n; i++)
        lu_re[i + (n / 2) * n] = lu_im[i + (n / 2) * n] = 0.0;
    status = hy_zlu_factor(n, lu_re, lu_im, pivot);
    CHECK(status == n / 2 + 1, "complex n %d: zero column %d reported as %d", n, n / 2 + 1,
          status);
}

int main(void)
{
    unsigned state = 12345u;
    for (int n = 1; n <= MAX_N; n++)
        for (int repeat = 0; repeat < 20; repeat++) {
            check_real(n, &state);
            check_complex(n, &state);
        }
    return CHECK_DONE();
}
