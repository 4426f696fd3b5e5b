/*
** Dense complex LU with partial pivoting, for the complex stage system of
** RADAU (integrators/radau.c). The matrix is held as two real column-major
** arrays, re[i + j*n] + i im[i + j*n], so no complex type is needed.
*/
#ifndef HY_ZDENSE_H
#define HY_ZDENSE_H

/* Factor (re + i im) in place as P A = L U. Returns 0, or k > 0 when
** column k (1-based) has an exactly zero pivot. */
int hy_zlu_factor(int n, double *re, double *im, int *pivot);

/* Solve A x = b with the factors of hy_zlu_factor; b = b_re + i b_im is
** overwritten by x. */
void hy_zlu_solve(int n, const double *re, const double *im, const int *pivot, double *b_re,
                  double *b_im);

#endif
