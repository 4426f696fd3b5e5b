/*
** Complex band LU with partial pivoting, for RADAU's complex stage system
** (zlinsol.c). The matrix is two real arrays re, im in the band storage of
** linsol.h: ld = 2 ml + mu + 1 rows per column, A(i, j) at [(ml + mu + i -
** j) + j ld], the top ml rows fill-in space.
*/
#ifndef HY_ZBAND_H
#define HY_ZBAND_H

#include <stddef.h>
#include <stdint.h>

/* Factor in place as P A = L U (U's diagonal kept as it is). pivot has n
** entries. 0, or k > 0: zero pivot in column k (1-based). */
int hy_zband_factor(size_t n, size_t ml, size_t mu, double *re, double *im, int64_t *pivot);

/* A x = b with the factors of hy_zband_factor; b = b_re + i b_im is
** overwritten by x. */
void hy_zband_solve(size_t n, size_t ml, size_t mu, const double *re, const double *im,
                    const int64_t *pivot, double *b_re, double *b_im);

#endif
