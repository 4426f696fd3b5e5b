/*
** Dense LU factorisation with partial pivoting, for the small systems of a
** mode (n up to ~50) where call overhead dominates. Column-major storage:
** a[i + j*n] is row i, column j.
*/
#ifndef HY_DENSE_H
#define HY_DENSE_H

/* Factor a in place as P A = L U. Returns 0, or k > 0 when column k
** (1-based) has an exactly zero pivot (a is then not usable). */
int hy_lu_factor(int n, double *a, int *pivot);

/* Solve A x = b with the factors from hy_lu_factor; b is overwritten by x. */
void hy_lu_solve(int n, const double *lu, const int *pivot, double *b);

#endif
