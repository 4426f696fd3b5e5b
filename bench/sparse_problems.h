/*
** The problems of the sparse benchmark (bench_sparse, issue 12) as the
** SUNDIALS side and hydae's integrators see them: an explicit ODE
** y' = f(t, y) with df/dy on a fixed sparsity pattern (compressed sparse
** columns, rows ascending, the diagonal always present) and its lower and
** upper bandwidths.
**
**   - the 1-D Brusselator of examples/brusselator.c (hydae runs that
**     example through the public API; this is the same system written
**     again for SUNDIALS), 2M unknowns u1, v1, u2, v2, ...;
**   - Medical Akzo Nobel (MEDAKZO) of the Test Set for IVP Solvers
**     (Mazzia & Magherini, release 2.4, 2008, sec. II.4 of part II), an
**     ODE of 400 unknowns, band half-width 2, with its published
**     reference solution at t = 20.
*/
#ifndef HY_BENCH_SPARSE_PROBLEMS_H
#define HY_BENCH_SPARSE_PROBLEMS_H

#include <stddef.h>
#include <stdint.h>

typedef int (*sp_rhs_fn)(double t, const double *y, double *ydot, void *ctx);
/* df/dy at (t, y): values[k] for the pattern's entry k (row row[k] of the
** column k lies in). */
typedef int (*sp_dfdy_fn)(double t, const double *y, double *values, void *ctx);

typedef struct sp_problem {
    const char *name;
    size_t n;
    double t0, t_end;
    double *y0;                 /* n */
    int64_t *col_start;         /* n + 1 */
    int64_t *row;               /* nnz */
    int64_t *diag;              /* n: position of entry (j, j) */
    size_t nnz;
    size_t ml, mu;              /* bandwidths of the pattern */
    sp_rhs_fn rhs;
    sp_dfdy_fn dfdy;
    void *ctx;                  /* owned */
} sp_problem;

/* 0, or -1 on out of memory (then nothing is left allocated). */
int sp_brusselator_create(sp_problem *p, long m);
int sp_medakzo_create(sp_problem *p);
void sp_problem_free(sp_problem *p);

#define SP_MEDAKZO_N 400
/* y(20) computed by the test set's authors with PSIDE at rtol = atol =
** 1e-10 (Cray C90 double precision), as published with the problem. */
extern const double sp_medakzo_reference[SP_MEDAKZO_N];

#endif
