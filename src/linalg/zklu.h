/*
** Complex sparse LU through SuiteSparse KLU's complex interface (klu_zl_*),
** for RADAU's complex stage system (zlinsol.c). Values interleaved as KLU
** takes them: entry k of the pattern at [2k] (real) and [2k + 1]
** (imaginary); so are the right-hand sides. Compiled only with
** HYDAE_HAVE_KLU.
*/
#ifndef HY_ZKLU_H
#define HY_ZKLU_H

#include "linalg/linsol.h"

typedef struct hy_zklu hy_zklu;
/* NULL out of memory or when KLU's analysis fails. */
hy_zklu *hy_zklu_create(const hy_pattern *pattern);
/* 0; k > 0 singular (column k, 1-based, or 1); -1 out of memory. */
int hy_zklu_factor(hy_zklu *k, double *values);
/* b (2 n values, interleaved) overwritten by the solution. 0 or -1. */
int hy_zklu_solve(hy_zklu *k, double *b);
void hy_zklu_free(hy_zklu *k);

#endif
