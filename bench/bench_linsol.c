/*
** The linear-solver backends of src/linalg (issue 12), timed to choose
** between them:
**   dense   dense.c's hy_lu_factor / hy_lu_solve against LAPACK's dgetrf /
**           dgetrs, n = 10 .. 1000 (gives hy_dense_lapack_crossover);
**   band    band.c's own band LU against LAPACK's dgbtrf (and the own
**           solve against dgbtrs), over bandwidths and n (gives
**           hy_band_uses_lapack);
**   klu     KLU's full factorisation, refactorisation and hydae's
**           refactorisation with its rcond and growth guards on the 2-D
**           5-point c I + J, against the band LU of the same matrix;
**   color   the Curtis-Powell-Reid colouring of a 5-point pattern with
**           n = 2,000,000.
** CPU time (CLOCK_PROCESS_CPUTIME_ID), each operation repeated until the
** repetitions took >= --min-time seconds (default 0.3), the best of three
** such batches per entry (the machine is shared). A factorisation is timed
** with the copy of the matrix it needs, minus the copy timed alone. Random
** matrices: entries uniform in [-1, 1], no dominant diagonal (so partial
** pivoting interchanges rows). A solve is timed with the copy of its
** right-hand side, minus that copy. Needs no SUNDIALS; without LAPACK or KLU
** their columns say "-". Usage: bench_linsol [--min-time S] [dense|band|klu|color]...
**   rule    bench_linsol rule SOLVER KIND N W ROUNDS SOLVES COUNT: one band or
**           KLU solver on one banded shape, for callgrind's instruction
**           counts (bench/rule.sh measures the crossover of the automatic
**           choice with it).
*/
#define _POSIX_C_SOURCE 200809L

#include "linalg/backends.h"
#include "linalg/band.h"
#include "linalg/dense.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HYDAE_HAVE_KLU
#include <klu.h>
#endif

/* Counting instructions of one operation under callgrind (no-ops when not
** under valgrind, and without valgrind's header). */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define COUNT_TOGGLE() CALLGRIND_TOGGLE_COLLECT
#endif
#endif
#ifndef COUNT_TOGGLE
#define COUNT_TOGGLE() ((void)0)
#endif

#ifdef HYDAE_HAVE_LAPACK
extern void dgbtrs_(const char *trans, const int *n, const int *kl,
                    const int *ku, const int *nrhs, const double *ab,
                    const int *ldab, const int *ipiv, double *b, const int *ldb,
                    int *info, size_t trans_len);
#endif

static double min_time = 0.3;

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state = 12345;

static double rng_unit(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

static void *xmalloc(size_t size)
{
    void *p = malloc(size > 0 ? size : 1);
    if (p == NULL) {
        fprintf(stderr, "bench_linsol: out of memory (%zu bytes)\n", size);
        exit(2);
    }
    return p;
}

/* One timed operation: run(ctx) repeatedly. */
typedef void (*op_fn)(void *ctx);

/* Seconds per call: the best of three batches of >= min_time / 3. */
static double time_op(op_fn run, void *ctx)
{
    double best = 1e300;
    for (int batch = 0; batch < 3; batch++) {
        long reps = 0;
        double t0 = cpu_seconds(), t;
        do {
            run(ctx);
            reps++;
            t = cpu_seconds() - t0;
        } while (t < min_time / 3.0);
        if (t / (double)reps < best)
            best = t / (double)reps;
    }
    return best;
}

/* ------------------------------------------------------------------ */
/* Dense                                                               */

typedef struct dense_ctx {
    size_t n;
    const double *a0;
    hy_matrix m;
    int *pivot;
    const double *b0;
    double *b;
} dense_ctx;

static void dense_copy(void *p)
{
    dense_ctx *c = p;
    memcpy(c->m.values, c->a0, c->n * c->n * sizeof *c->a0);
}

static void dense_own_factor(void *p)
{
    dense_ctx *c = p;
    dense_copy(c);
    if (hy_lu_factor((int)c->n, c->m.values, c->pivot) != 0)
        exit(3);
}

static void dense_copy_b(void *p)
{
    dense_ctx *c = p;
    memcpy(c->b, c->b0, c->n * sizeof *c->b);
}

static void dense_own_solve(void *p)
{
    dense_ctx *c = p;
    dense_copy_b(c);
    hy_lu_solve((int)c->n, c->m.values, c->pivot, c->b);
}

static void dense_lapack_factor(void *p)
{
    dense_ctx *c = p;
    dense_copy(c);
    if (hy_dense_lapack_factor(&c->m, c->pivot) != 0)
        exit(3);
}

static void dense_lapack_solve(void *p)
{
    dense_ctx *c = p;
    dense_copy_b(c);
    hy_dense_lapack_solve(&c->m, c->pivot, c->b);
}

static void bench_dense(void)
{
    static const size_t sizes[] = { 10, 20, 50, 64, 80, 100, 200, 500, 1000, 1200, 1500, 2000 };
    printf("\n## dense LU: dense.c (own) vs LAPACK dgetrf/dgetrs\n\n");
    printf("| n | own factor | dgetrf | own/dgetrf | own solve | dgetrs | own/dgetrs |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        dense_ctx c;
        memset(&c, 0, sizeof c);
        c.n = sizes[s];
        double *a0 = xmalloc(c.n * c.n * sizeof *a0);
        for (size_t q = 0; q < c.n * c.n; q++)
            a0[q] = rng_unit();
        c.a0 = a0;
        c.m.kind = HY_MAT_DENSE;
        c.m.n = c.n;
        c.m.values = xmalloc(c.n * c.n * sizeof *c.m.values);
        c.pivot = xmalloc(c.n * sizeof *c.pivot);
        c.b = xmalloc(c.n * sizeof *c.b);
        double *b0 = xmalloc(c.n * sizeof *b0);
        for (size_t i = 0; i < c.n; i++)
            b0[i] = rng_unit();
        c.b0 = b0;
        double t_copy = time_op(dense_copy, &c);
        double t_copy_b = time_op(dense_copy_b, &c);
        double t_own = time_op(dense_own_factor, &c) - t_copy;
        double t_own_solve = time_op(dense_own_solve, &c) - t_copy_b;
#ifdef HYDAE_HAVE_LAPACK
        double t_lapack = time_op(dense_lapack_factor, &c) - t_copy;
        double t_lapack_solve = time_op(dense_lapack_solve, &c) - t_copy_b;
        printf("| %zu | %.4g ms | %.4g ms | %.2f | %.3g us | %.3g us | %.2f |\n",
               c.n, 1e3 * t_own, 1e3 * t_lapack, t_own / t_lapack,
               1e6 * t_own_solve, 1e6 * t_lapack_solve,
               t_own_solve / t_lapack_solve);
#else
        (void)dense_lapack_factor;
        (void)dense_lapack_solve;
        printf("| %zu | %.4g ms | - | - | %.3g us | - | - |\n", c.n, 1e3 * t_own,
               1e6 * t_own_solve);
#endif
        free(a0);
        free(b0);
        free(c.m.values);
        free(c.pivot);
        free(c.b);
    }
    printf("\nhy_dense_lapack_crossover() = %zu\n", hy_dense_lapack_crossover());
}

/* ------------------------------------------------------------------ */
/* Band                                                                */

typedef struct band_ctx {
    const double *a0;
    size_t n_values;
    hy_matrix m;
    int64_t *pivot;
    int *ipiv;
    const double *b0;
    double *b;
} band_ctx;

static void band_copy(void *p)
{
    band_ctx *c = p;
    memcpy(c->m.values, c->a0, c->n_values * sizeof *c->a0);
}

static void band_own_factor(void *p)
{
    band_ctx *c = p;
    band_copy(c);
    if (hy_band_factor_own(&c->m, c->pivot) != 0)
        exit(3);
}

static void band_lapack_factor(void *p)
{
    band_ctx *c = p;
    band_copy(c);
    if (hy_band_factor_lapack(&c->m, c->pivot) != 0)
        exit(3);
}

static void band_copy_b(void *p)
{
    band_ctx *c = p;
    memcpy(c->b, c->b0, c->m.n * sizeof *c->b);
}

static void band_own_solve(void *p)
{
    band_ctx *c = p;
    band_copy_b(c);
    hy_band_solve(&c->m, c->pivot, c->b);
}

#ifdef HYDAE_HAVE_LAPACK
static void band_lapack_solve(void *p)
{
    band_ctx *c = p;
    const int n = (int)c->m.n, kl = (int)c->m.ml, ku = (int)c->m.mu;
    const int ldab = (int)c->m.ld, nrhs = 1;
    int info;
    band_copy_b(c);
    dgbtrs_("N", &n, &kl, &ku, &nrhs, c->m.values, &ldab, c->ipiv, c->b, &n,
            &info, 1);
}
#endif

static void bench_band(void)
{
    static const size_t shapes[][3] = {
        /* n, ml, mu */
        { 10000, 1, 1 },    { 10000, 2, 2 },    { 10000, 4, 4 },
        { 10000, 8, 8 },    { 10000, 16, 16 },  { 10000, 24, 24 },
        { 10000, 31, 31 },  { 10000, 32, 32 },  { 10000, 40, 40 },
        { 10000, 48, 48 },  { 10000, 64, 64 },  { 10000, 80, 80 },
        { 10000, 96, 96 },  { 10000, 100, 100 },
        { 10000, 150, 150 }, { 10000, 200, 200 }, { 10000, 300, 300 },
        { 10000, 40, 4 },   { 10000, 4, 40 },   { 10000, 64, 8 },
        { 10000, 8, 64 },   { 10000, 80, 8 },   { 10000, 96, 8 },
        { 10000, 100, 10 }, { 10000, 10, 100 }, { 10000, 96, 0 },
        { 10000, 0, 64 },   { 10000, 64, 0 },
        { 200, 32, 32 },    { 200, 64, 64 },    { 1000, 32, 32 },
        { 1000, 64, 64 },   { 1000, 100, 100 }, { 100000, 32, 32 },
        { 100000, 64, 64 },
    };
    printf("\n## band LU: band.c (own) vs LAPACK dgbtrf, own solve vs dgbtrs\n\n");
    printf("| n | ml | mu | own factor | dgbtrf | own/dgbtrf | own solve | dgbtrs | own/dgbtrs | chosen |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        band_ctx c;
        memset(&c, 0, sizeof c);
        const size_t n = shapes[s][0], ml = shapes[s][1], mu = shapes[s][2];
        c.m.kind = HY_MAT_BAND;
        c.m.n = n;
        c.m.ml = ml;
        c.m.mu = mu;
        c.m.ld = 2 * ml + mu + 1;
        c.n_values = c.m.ld * n;
        double *a0 = xmalloc(c.n_values * sizeof *a0);
        for (size_t q = 0; q < c.n_values; q++)
            a0[q] = rng_unit();
        c.a0 = a0;
        c.m.values = xmalloc(c.n_values * sizeof *c.m.values);
        c.pivot = xmalloc(n * sizeof *c.pivot);
        c.ipiv = xmalloc(n * sizeof *c.ipiv);
        c.b = xmalloc(n * sizeof *c.b);
        double *b0 = xmalloc(n * sizeof *b0);
        for (size_t i = 0; i < n; i++)
            b0[i] = rng_unit();
        c.b0 = b0;
        double t_copy = time_op(band_copy, &c);
        double t_copy_b = time_op(band_copy_b, &c);
        double t_own = time_op(band_own_factor, &c) - t_copy;
        double t_own_solve = time_op(band_own_solve, &c) - t_copy_b;
        const char *chosen = hy_band_uses_lapack(n, ml, mu) ? "dgbtrf" : "own";
#ifdef HYDAE_HAVE_LAPACK
        double t_lapack = time_op(band_lapack_factor, &c) - t_copy;
        for (size_t k = 0; k < n; k++)
            c.ipiv[k] = (int)c.pivot[k] + 1;
        double t_lapack_solve = time_op(band_lapack_solve, &c) - t_copy_b;
        printf("| %zu | %zu | %zu | %.4g ms | %.4g ms | %.2f | %.4g ms | %.4g ms | %.2f | %s |\n",
               n, ml, mu, 1e3 * t_own, 1e3 * t_lapack, t_own / t_lapack,
               1e3 * t_own_solve, 1e3 * t_lapack_solve,
               t_own_solve / t_lapack_solve, chosen);
#else
        (void)band_lapack_factor;
        printf("| %zu | %zu | %zu | %.4g ms | - | - | %.4g ms | - | - | %s |\n", n,
               ml, mu, 1e3 * t_own, 1e3 * t_own_solve, chosen);
#endif
        free(a0);
        free(b0);
        free(c.m.values);
        free(c.pivot);
        free(c.ipiv);
        free(c.b);
    }
}

/* ------------------------------------------------------------------ */
/* The 5-point pattern, KLU and colouring                              */

static hy_pattern *laplacian_2d(size_t nx)
{
    const size_t n = nx * nx;
    hy_pattern *p = xmalloc(sizeof *p);
    memset(p, 0, sizeof *p);
    p->n = n;
    p->col_start = xmalloc((n + 1) * sizeof *p->col_start);
    p->row = xmalloc(5 * n * sizeof *p->row);
    size_t q = 0;
    for (size_t j = 0; j < n; j++) {
        const size_t x = j % nx, y = j / nx;
        p->col_start[j] = (int64_t)q;
        if (y > 0)
            p->row[q++] = (int64_t)(j - nx);
        if (x > 0)
            p->row[q++] = (int64_t)(j - 1);
        p->row[q++] = (int64_t)j;
        if (x + 1 < nx)
            p->row[q++] = (int64_t)(j + 1);
        if (y + 1 < nx)
            p->row[q++] = (int64_t)(j + nx);
    }
    p->col_start[n] = (int64_t)q;
    p->nnz = q;
    p->ml = p->mu = nx;
    p->refs = 1;
    return p;
}

static void pattern_free(hy_pattern *p)
{
    free(p->col_start);
    free(p->row);
    free(p);
}

/* c I + J, J the 5-point stencil with random weights, c = shift. */
static void laplacian_values(const hy_pattern *p, const double *jac, double shift,
                             double *values)
{
    for (size_t j = 0; j < p->n; j++)
        for (int64_t q = p->col_start[j]; q < p->col_start[j + 1]; q++)
            values[q] = jac[q] + ((size_t)p->row[q] == j ? shift : 0.0);
}

#ifdef HYDAE_HAVE_KLU
typedef struct klu_ctx {
    const hy_pattern *p;
    hy_matrix m;
    hy_klu *klu;
    int fresh;   /* 1: a new hy_klu each time (analysis + full factor) */
} klu_ctx;

static void klu_factor_op(void *ptr)
{
    klu_ctx *c = ptr;
    if (c->fresh) {
        hy_klu_free(c->klu);
        c->klu = hy_klu_create(c->p);
    }
    if (c->klu == NULL || hy_klu_factor(c->klu, &c->m) != 0)
        exit(3);
}

/* klu_l_refactor alone, without hydae's guards. */
typedef struct klu_raw_ctx {
    const hy_pattern *p;
    double *values;
    klu_l_common common;
    klu_l_symbolic *symbolic;
    klu_l_numeric *numeric;
} klu_raw_ctx;

static void klu_raw_refactor_op(void *ptr)
{
    klu_raw_ctx *c = ptr;
    if (!klu_l_refactor((SuiteSparse_long *)c->p->col_start,
                        (SuiteSparse_long *)c->p->row, c->values, c->symbolic,
                        c->numeric, &c->common))
        exit(3);
}

static double time_raw_refactor(const hy_pattern *p, double *values)
{
    klu_raw_ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.values = values;
    klu_l_defaults(&c.common);
    c.common.tol = 0.1;
    SuiteSparse_long *col_start = (SuiteSparse_long *)p->col_start;
    SuiteSparse_long *row = (SuiteSparse_long *)p->row;
    c.symbolic = klu_l_analyze((SuiteSparse_long)p->n, col_start, row, &c.common);
    if (c.symbolic == NULL)
        exit(3);
    c.numeric = klu_l_factor(col_start, row, values, c.symbolic, &c.common);
    if (c.numeric == NULL)
        exit(3);
    double t = time_op(klu_raw_refactor_op, &c);
    klu_l_free_numeric(&c.numeric, &c.common);
    klu_l_free_symbolic(&c.symbolic, &c.common);
    return t;
}
#endif

static void bench_klu(void)
{
    static const size_t grids[] = { 30, 100, 150, 300 };
    printf("\n## 2-D 5-point c I + J (nx x nx grid): KLU vs band LU\n\n");
    printf("| nx | n | KLU analyse+factor | hy_klu_factor (refactor + guards) | klu_l_refactor alone | band LU (ml = mu = nx) |\n");
    printf("|---:|---:|---:|---:|---:|---:|\n");
    for (size_t s = 0; s < sizeof grids / sizeof grids[0]; s++) {
        const size_t nx = grids[s];
        hy_pattern *p = laplacian_2d(nx);
        double *jac = xmalloc(p->nnz * sizeof *jac);
        for (size_t q = 0; q < p->nnz; q++)
            jac[q] = rng_unit();
        char klu_full[32] = "-", klu_refactor[32] = "-", klu_raw[32] = "-";
        char band[32] = "-";
#ifdef HYDAE_HAVE_KLU
        klu_ctx c;
        memset(&c, 0, sizeof c);
        c.p = p;
        c.m.kind = HY_MAT_CSC;
        c.m.n = p->n;
        c.m.pattern = p;
        c.m.values = xmalloc(p->nnz * sizeof *c.m.values);
        laplacian_values(p, jac, 4.0, c.m.values);
        c.fresh = 1;
        snprintf(klu_full, sizeof klu_full, "%.4g ms", 1e3 * time_op(klu_factor_op, &c));
        c.fresh = 0;
        snprintf(klu_refactor, sizeof klu_refactor, "%.4g ms",
                 1e3 * time_op(klu_factor_op, &c));
        hy_klu_free(c.klu);
        snprintf(klu_raw, sizeof klu_raw, "%.4g ms",
                 1e3 * time_raw_refactor(p, c.m.values));
        free(c.m.values);
#endif
        if (nx <= 150) {
            band_ctx b;
            memset(&b, 0, sizeof b);
            b.m.kind = HY_MAT_BAND;
            b.m.n = p->n;
            b.m.ml = b.m.mu = nx;
            b.m.ld = 3 * nx + 1;
            b.n_values = b.m.ld * p->n;
            double *a0 = xmalloc(b.n_values * sizeof *a0);
            memset(a0, 0, b.n_values * sizeof *a0);
            double *v = xmalloc(p->nnz * sizeof *v);
            laplacian_values(p, jac, 4.0, v);
            for (size_t j = 0; j < p->n; j++)
                for (int64_t q = p->col_start[j]; q < p->col_start[j + 1]; q++)
                    a0[(2 * nx + (size_t)p->row[q] - j) + j * b.m.ld] = v[q];
            b.a0 = a0;
            b.m.values = xmalloc(b.n_values * sizeof *b.m.values);
            b.pivot = xmalloc(p->n * sizeof *b.pivot);
            double t_copy = time_op(band_copy, &b);
            double t = hy_band_uses_lapack(p->n, nx, nx)
                           ? time_op(band_lapack_factor, &b)
                           : time_op(band_own_factor, &b);
            snprintf(band, sizeof band, "%.4g ms", 1e3 * (t - t_copy));
            free(a0);
            free(v);
            free(b.m.values);
            free(b.pivot);
        }
        printf("| %zu | %zu | %s | %s | %s | %s |\n", nx, p->n, klu_full,
               klu_refactor, klu_raw, band);
        free(jac);
        pattern_free(p);
    }
}

/* ------------------------------------------------------------------ */
/* The automatic choice band / KLU                                     */

/* Banded shapes of the problems that choose between band and KLU: 1-D
** reaction-diffusion with k species interleaved (a dense k x k reaction
** block, diffusion of every species to the neighbours: ml = mu = k, k + 2
** entries a column), the same with diffusion of the first species only
** (Medical Akzo: k = 2, 3 entries a column on average), and full bands. */
typedef enum shape_kind { SHAPE_SPECIES, SHAPE_MEDAKZO, SHAPE_FULL } shape_kind;

static hy_pattern *shape_pattern(shape_kind kind, size_t n, size_t w)
{
    hy_pattern *p = xmalloc(sizeof *p);
    memset(p, 0, sizeof *p);
    p->n = n;
    p->col_start = xmalloc((n + 1) * sizeof *p->col_start);
    p->row = xmalloc((2 * w + 3) * n * sizeof *p->row);
    size_t q = 0;
    for (size_t j = 0; j < n; j++) {
        p->col_start[j] = (int64_t)q;
        size_t lo = j > w ? j - w : 0, hi = j + w < n ? j + w : n - 1;
        for (size_t i = lo; i <= hi; i++) {
            size_t point_i = i / w, point_j = j / w, species_j = j % w;
            int keep;
            if (kind == SHAPE_FULL)
                keep = 1;
            else if (point_i == point_j)
                keep = kind == SHAPE_SPECIES || species_j == 0 || i % w == species_j
                       || i % w == 0;
            else
                keep = (i == j + w || j == i + w) && (kind == SHAPE_SPECIES || species_j == 0);
            if (keep)
                p->row[q++] = (int64_t)i;
        }
    }
    p->col_start[n] = (int64_t)q;
    p->nnz = q;
    p->ml = p->mu = w < n ? w : n - 1;
    p->refs = 1;
    return p;
}

/* An iteration matrix on the pattern: 4 + r on the diagonal, r off it, r
** uniform in [-1, 1] (partial pivoting keeps the diagonal mostly). */
static void shape_values(const hy_pattern *p, double *values)
{
    for (size_t j = 0; j < p->n; j++)
        for (int64_t q = p->col_start[j]; q < p->col_start[j + 1]; q++)
            values[q] = rng_unit() + ((size_t)p->row[q] == j ? 4.0 : 0.0);
}

/* One solver on one shape: a factorisation of the matrix as the
** integrators fill it (for KLU: the analysis and a full factorisation),
** then n_rounds of (fill, factor, n_solves solves). Under callgrind with
** --collect-atstart=no, the instructions of the rounds' factorisations
** (count "factor") or solves (count "solve") are collected, the filling
** not (it is the same for both solvers): bench/rule.sh. */
static void bench_rule_case(const char *solver, shape_kind kind, size_t n, size_t w,
                            int n_rounds, int n_solves, const char *count)
{
    hy_pattern *p = shape_pattern(kind, n, w);
    double *values = xmalloc(p->nnz * sizeof *values);
    double *b = xmalloc(n * sizeof *b);
    shape_values(p, values);
    hy_ls_kind ls_kind = strcmp(solver, "klu") == 0 ? HY_LS_KLU : HY_LS_BAND;
    hy_linsol *ls = hy_linsol_create(ls_kind, n, p);
    if (ls == NULL) {
        fprintf(stderr, "bench_linsol: no %s solver for n %zu\n", solver, n);
        exit(3);
    }
    int count_factor = strcmp(count, "factor") == 0;
    hy_matrix *a = hy_linsol_matrix(ls);
    for (int round = 0; round <= n_rounds; round++) {
        hy_matrix_zero(a);
        for (size_t j = 0; j < n; j++)
            for (int64_t q = p->col_start[j]; q < p->col_start[j + 1]; q++)
                *hy_matrix_at(a, (size_t)p->row[q], j) = values[q] * (1.0 + 1e-3 * round);
        if (round > 0 && count_factor)
            COUNT_TOGGLE();
        int status = hy_linsol_factor(ls);
        if (round > 0 && count_factor)
            COUNT_TOGGLE();
        if (status != 0)
            exit(3);
        for (int k = 0; round > 0 && k < n_solves; k++) {
            for (size_t i = 0; i < n; i++)
                b[i] = 1.0 + (double)(i % 7);
            if (!count_factor)
                COUNT_TOGGLE();
            hy_linsol_solve(ls, b);
            if (!count_factor)
                COUNT_TOGGLE();
        }
    }
    printf("rule %s kind %d n %zu w %zu nnz %zu rounds %d solves %d\n", solver, (int)kind, n, w,
           p->nnz, n_rounds, n_solves);
    hy_linsol_free(ls);
    free(values);
    free(b);
    pattern_free(p);
}

static void bench_color(void)
{
    hy_pattern *p = laplacian_2d(1415);
    hy_coloring c;
    double t0 = cpu_seconds();
    int status = hy_coloring_create(&c, p);
    double t = cpu_seconds() - t0;
    printf("\n## colouring\n\n5-point pattern, n %zu, nnz %zu: %s, %zu colours, %.3f s\n",
           p->n, p->nnz, status == 0 ? "ok" : "FAILED", c.n_colors, t);
    hy_coloring_free(&c);
    pattern_free(p);
}

int main(int argc, char **argv)
{
    int run_dense = 0, run_band = 0, run_klu = 0, run_color = 0, any = 0;
    if (argc == 9 && strcmp(argv[1], "rule") == 0) {
        /* rule SOLVER KIND N W ROUNDS SOLVES factor|solve: one case (bench/rule.sh) */
        bench_rule_case(argv[2], (shape_kind)atoi(argv[3]), (size_t)atol(argv[4]),
                        (size_t)atol(argv[5]), atoi(argv[6]), atoi(argv[7]), argv[8]);
        return 0;
    }
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--min-time") == 0 && a + 1 < argc) {
            min_time = atof(argv[++a]);
        } else if (strcmp(argv[a], "dense") == 0) {
            run_dense = any = 1;
        } else if (strcmp(argv[a], "band") == 0) {
            run_band = any = 1;
        } else if (strcmp(argv[a], "klu") == 0) {
            run_klu = any = 1;
        } else if (strcmp(argv[a], "color") == 0) {
            run_color = any = 1;
        } else {
            fprintf(stderr, "usage: bench_linsol [--min-time S] [dense|band|klu|color]...\n");
            return 2;
        }
    }
    if (run_dense || !any)
        bench_dense();
    if (run_band || !any)
        bench_band();
    if (run_klu || !any)
        bench_klu();
    if (run_color || !any)
        bench_color();
    return 0;
}
