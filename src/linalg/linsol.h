/*
** Matrices and linear solvers behind one interface (issue 12).
**
** The integrators and consistent initialisation solve with an iteration
** matrix A = dF/dy + cj dF/dy' (DSTIFF, initialisation) or I - gamma J
** (VSTIFF, MSTIFF). A hy_matrix is that matrix in one of three storages:
**
**   dense  column-major n x n: a[i + j n]
**   band   lower and upper bandwidths ml, mu, stored by columns with
**          ld = 2 ml + mu + 1 rows (ml spare rows on top for the fill-in
**          of partial pivoting, as LAPACK's dgbtrf): A(i, j) at
**          values[(ml + mu + i - j) + j ld] for max(0, j - mu) <= i <=
**          min(n - 1, j + ml). That is the solver's matrix; a band matrix
**          of hy_matrix_alloc is only filled and copied (the ODE methods'
**          df/dy), so it has no spare rows: ld = ml + mu + 1, A(i, j) at
**          values[(mu + i - j) + j ld] (without_fill = 1).
**   csc    compressed sparse columns on a shared pattern (hy_pattern),
**          values in pattern order; the pattern always holds the diagonal
**
** A hy_linsol owns its matrix; the caller fills hy_linsol_matrix(ls), then
** factors and solves (a band solver on a wide band may factor P A P^T, P a
** reverse Cuthill-McKee ordering: its matrix is then csc, see
** hy_linsol_name). Which storage (and which factorisation: own dense
** LU, LAPACK dgetrf for large dense, own or LAPACK band LU, KLU for csc)
** is chosen by hy_linsol_choose from size and pattern, or by the setting
** linear_solver. Every size product is checked (core.h's hy_mul_size); n and the
** number of entries are size_t, csc indices int64_t (KLU's long interface).
*/
#ifndef HY_LINSOL_H
#define HY_LINSOL_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

/* ------------------------------------------------------------------ */
/* Sparsity patterns                                                   */

/* A square n x n CSC pattern: rows row[col_start[j] .. col_start[j+1]) of
** column j, sorted ascending, no duplicates, the diagonal always present.
** Reference-counted: a configuration's pattern is shared by the solver,
** the finite-difference colouring and the integrators.
**
** The symbolic work done on a pattern, the colouring of
** hy_coloring_create, KLU's analysis (BTF and AMD ordering) and the band
** solver's reverse Cuthill-McKee ordering, depends on nothing else; once
** hy_pattern_keep_symbolic is called it is done once and kept with the
** pattern (in memo) until the pattern is freed, so a solver or colouring
** created again on it (a configuration entered again, sim/assembly.c)
** reuses it. n_colorings, n_analyses and n_band_orderings count the work
** done on it, kept or not (the run's statistics). Like refs, these are
** written through const pointers: a pattern is used by one thread. */
struct hy_pattern_memo;
typedef struct hy_pattern {
    size_t n;
    size_t nnz;
    int64_t *col_start;      /* n + 1 */
    int64_t *row;            /* nnz */
    size_t ml, mu;           /* its lower and upper bandwidth */
    int refs;
    long n_colorings;        /* hy_coloring_create computations on it */
    long n_analyses;         /* sparse LU symbolic analyses of it */
    long n_band_orderings;   /* band orderings (reverse Cuthill-McKee) of it
                                that the band solver took */
    struct hy_pattern_memo *memo; /* the kept symbolic work, or NULL */
} hy_pattern;

/* A pattern from the columns given (any order within a column, duplicates
** allowed, the diagonal added); NULL on out of memory or an index out of
** range (then *bad_index, if not NULL, is set to the offending entry). */
hy_pattern *hy_pattern_create(size_t n, const int64_t *col_start,
                              const int64_t *row, size_t *bad_index);
/* The full n x n pattern (a mode that gives no pattern). */
hy_pattern *hy_pattern_dense(size_t n);
/* Block-diagonal concatenation of n_blocks patterns (the configuration of
** several charts). */
hy_pattern *hy_pattern_block_diag(hy_pattern *const *blocks, int n_blocks);
/* A copy of p without its kept symbolic work (NULL: out of memory). */
hy_pattern *hy_pattern_copy(const hy_pattern *p);
hy_pattern *hy_pattern_ref(hy_pattern *p);
void hy_pattern_unref(hy_pattern *p);
/* Keep the symbolic work on p from now on (see above). 0, or -1 out of
** memory. */
int hy_pattern_keep_symbolic(hy_pattern *p);
/* Position of entry (i, j) in the pattern's value order, or -1. */
int64_t hy_pattern_find(const hy_pattern *p, size_t i, size_t j);

/* ------------------------------------------------------------------ */
/* Matrices                                                            */

typedef enum hy_mat_kind { HY_MAT_DENSE, HY_MAT_BAND, HY_MAT_CSC } hy_mat_kind;

typedef struct hy_matrix {
    hy_mat_kind kind;
    size_t n;
    size_t ml, mu, ld;       /* band only */
    int without_fill;        /* band: no fill-in rows on top (ld = ml + mu + 1) */
    const hy_pattern *pattern; /* csc only (borrowed) */
    double *values;
} hy_matrix;

/* Allocate a matrix of the kind (band takes ml, mu, and has no fill-in
** rows: not for factoring; csc the pattern), zeroed. 0, or -1 on out of
** memory or a size that overflows size_t. */
int hy_matrix_alloc(hy_matrix *m, hy_mat_kind kind, size_t n, size_t ml,
                    size_t mu, const hy_pattern *pattern);
/* The same with the fill-in rows of a band LU (the linear solver's). */
int hy_matrix_alloc_for_lu(hy_matrix *m, hy_mat_kind kind, size_t n, size_t ml, size_t mu,
                           const hy_pattern *pattern);
void hy_matrix_free(hy_matrix *m);
void hy_matrix_zero(hy_matrix *m);
/* Number of stored values (n*n, ld*n or nnz). */
size_t hy_matrix_n_values(const hy_matrix *m);
/* Address of entry (i, j), or NULL when the storage has no place for it. */
double *hy_matrix_at(hy_matrix *m, size_t i, size_t j);
/* dst = a src + b I, dst and src of the same kind and shape (band: with or
** without fill-in rows each; dst's fill-in rows become 0). */
void hy_matrix_axpi(hy_matrix *dst, double a, const hy_matrix *src, double b);
/* Column j of m from (f1 - f0) * scale at the rows of pattern p (every
** row when p is NULL: m is then dense): a finite-difference column. */
void hy_matrix_set_column_diff(hy_matrix *m, const hy_pattern *p, size_t j, const double *f1,
                               const double *f0, double scale);
/* Index of the first non-finite value, or -1. */
int64_t hy_matrix_first_nonfinite(const hy_matrix *m);

/* ------------------------------------------------------------------ */
/* Linear solvers                                                      */

typedef enum hy_ls_kind {
    HY_LS_AUTO = 0,
    HY_LS_DENSE,
    HY_LS_BAND,
    HY_LS_KLU
} hy_ls_kind;

/* The storage and solver for an n x n system with this pattern (NULL:
** dense), given the user's choice (HY_LS_AUTO: from size and pattern).
** Fills *kind with the solver to create; 0, or -1 with why[] explaining a
** choice that cannot be honoured (klu without KLU built in, a dense
** matrix that does not fit in memory ...). */
int hy_linsol_choose(hy_ls_kind wanted, size_t n, const hy_pattern *pattern,
                     hy_ls_kind *kind, char *why, size_t why_size);

typedef struct hy_linsol hy_linsol;

/* A solver of the kind (not AUTO) for n unknowns; pattern needed for band
** (its bandwidths) and klu. NULL on out of memory. */
hy_linsol *hy_linsol_create(hy_ls_kind kind, size_t n, const hy_pattern *pattern);
/* The matrix the caller fills before hy_linsol_factor. */
hy_matrix *hy_linsol_matrix(hy_linsol *ls);
hy_ls_kind hy_linsol_kind(const hy_linsol *ls);
/* Factor the matrix. 0; k > 0 when the matrix is singular with no pivot
** in column k (1-based; the column of the unknown it does not determine);
** -1 out of memory. The matrix' values are consumed (dense and band
** factor in place): fill it again before the next factorisation. */
int hy_linsol_factor(hy_linsol *ls);
/* Solve A x = b with the last factors; b is overwritten by x. 0 or -1. */
int hy_linsol_solve(hy_linsol *ls, double *b);
void hy_linsol_free(hy_linsol *ls);
/* The solver's name: hy_ls_kind_name's, or "band (RCM)" for a band solver
** that factors P A P^T, P the reverse Cuthill-McKee ordering of the
** pattern (taken where it narrows a wide band enough to pay; its matrix
** is then csc on the pattern, as KLU's, and permuted into the band storage
** at each factorisation). */
const char *hy_linsol_name(const hy_linsol *ls);
/* "dense", "band", "klu" ("auto" for HY_LS_AUTO). */
const char *hy_ls_kind_name(hy_ls_kind kind);
/* 1 when the build has the solver (KLU and LAPACK are optional). */
int hy_ls_available(hy_ls_kind kind);

/* ------------------------------------------------------------------ */
/* Finite-difference Jacobians by column groups                        */

/* Curtis, Powell & Reid (1974): columns that share no row are perturbed
** together, so a banded or sparse Jacobian costs a few function
** evaluations instead of n. Greedy colouring in column order (a band of
** width w gets w colours: column j gets j mod (ml + mu + 1)). */
typedef struct hy_coloring {
    size_t n;
    size_t n_colors;
    int64_t *color_start;    /* n_colors + 1 */
    int64_t *column;         /* n: the columns of each colour in turn */
} hy_coloring;

/* The groups of pattern (a copy of the ones it keeps, if it does). 0 or
** -1. */
int hy_coloring_create(hy_coloring *c, const hy_pattern *pattern);
/* One group per column (no pattern: a dense matrix). 0 or -1. */
int hy_coloring_identity(hy_coloring *c, size_t n);
void hy_coloring_free(hy_coloring *c);

#endif
