/*
** Unit tests of the linear-solver backends of src/linalg (issue 12): the
** band LU (own and LAPACK dgbtrf), the dense LAPACK path, KLU and the
** Curtis-Powell-Reid column colouring. Every solve is checked against a
** plain dense Gaussian elimination written here: the scaled residual
** ||A x - b|| / (||A|| ||x||) (infinity norms) below 1e2 eps, and, for the
** sizes where the exact condition number is affordable, the distance to the
** reference solution within cond(A) times a small multiple of eps. Singular
** matrices must name the column. The patterns are built by hand here (the
** hy_pattern_* functions live in pattern.c, not used by the backends).
** Parts not built (KLU, LAPACK) are skipped with a message.
*/
#include "check.h"

#include "linalg/backends.h"
#include "linalg/band.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ */
/* Random numbers (splitmix64), reproducible                           */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1). */
static double rng_unit(void)
{
    return (double)(rng_next() >> 11) * 0x1.0p-52 - 1.0;
}

static size_t rng_below(size_t k)
{
    return (size_t)(rng_next() % k);
}

static void *xmalloc(size_t size)
{
    void *p = malloc(size > 0 ? size : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* ------------------------------------------------------------------ */
/* The reference: dense column-major Gaussian elimination              */

/* Solves A x = b (A n x n column-major, not modified) by elimination with
** partial pivoting on a copy; 0, or -1 when a pivot is exactly zero. */
static int ref_solve(size_t n, const double *a, const double *b, double *x)
{
    double *lu = xmalloc(n * n * sizeof *lu);
    memcpy(lu, a, n * n * sizeof *lu);
    memcpy(x, b, n * sizeof *x);
    int status = 0;
    for (size_t k = 0; k < n && status == 0; k++) {
        size_t p = k;
        for (size_t i = k + 1; i < n; i++)
            if (fabs(lu[i + k * n]) > fabs(lu[p + k * n]))
                p = i;
        if (lu[p + k * n] == 0.0) {
            status = -1;
            break;
        }
        for (size_t j = 0; j < n; j++) {
            double t = lu[k + j * n];
            lu[k + j * n] = lu[p + j * n];
            lu[p + j * n] = t;
        }
        double t = x[k];
        x[k] = x[p];
        x[p] = t;
        for (size_t i = k + 1; i < n; i++) {
            double l = lu[i + k * n] / lu[k + k * n];
            if (l == 0.0)
                continue;
            for (size_t j = k + 1; j < n; j++)
                lu[i + j * n] -= l * lu[k + j * n];
            x[i] -= l * x[k];
        }
    }
    for (size_t k = n; status == 0 && k-- > 0;) {
        double s = x[k];
        for (size_t j = k + 1; j < n; j++)
            s -= lu[k + j * n] * x[j];
        x[k] = s / lu[k + k * n];
    }
    free(lu);
    return status;
}

static double norm_inf_vec(size_t n, const double *v)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        if (fabs(v[i]) > m)
            m = fabs(v[i]);
    return m;
}

static double norm_inf_mat(size_t n, const double *a)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++) {
        double s = 0.0;
        for (size_t j = 0; j < n; j++)
            s += fabs(a[i + j * n]);
        if (s > m)
            m = s;
    }
    return m;
}

/* ||A x - b|| / (||A|| ||x||), infinity norms. */
static double scaled_residual(size_t n, const double *a, const double *x,
                              const double *b)
{
    double r_max = 0.0;
    for (size_t i = 0; i < n; i++) {
        double r = -b[i];
        for (size_t j = 0; j < n; j++)
            r += a[i + j * n] * x[j];
        if (fabs(r) > r_max)
            r_max = fabs(r);
    }
    double scale = norm_inf_mat(n, a) * norm_inf_vec(n, x);
    return scale > 0.0 ? r_max / scale : r_max;
}

/* cond_inf(A) through the columns of A^-1 (n reference solves). */
static double condition(size_t n, const double *a)
{
    double *e = xmalloc(n * sizeof *e), *col = xmalloc(n * sizeof *col);
    double *row_sum = calloc(n > 0 ? n : 1, sizeof *row_sum);
    if (row_sum == NULL)
        exit(2);
    double cond = INFINITY;
    for (size_t j = 0; j < n; j++) {
        memset(e, 0, n * sizeof *e);
        e[j] = 1.0;
        if (ref_solve(n, a, e, col) != 0)
            goto done;
        for (size_t i = 0; i < n; i++)
            row_sum[i] += fabs(col[i]);
    }
    cond = norm_inf_mat(n, a) * norm_inf_vec(n, row_sum);
done:
    free(e);
    free(col);
    free(row_sum);
    return cond;
}

static const double residual_bound = 1e2 * DBL_EPSILON;
enum { COND_MAX_N = 300 }; /* exact condition numbers up to this size */

/* The checks of one solution x of A x = b, with x_ref the reference's and
** cond the condition number (0: not computed): the scaled residual below
** bound, the error within 1e3 eps cond. */
static void check_solution_within(const char *what, size_t n, const double *a,
                                  const double *b, const double *x,
                                  const double *x_ref, double cond,
                                  double bound)
{
    double res = scaled_residual(n, a, x, b);
    CHECK(res < bound, "%s: scaled residual %.3g >= %.3g", what, res, bound);
    if (cond > 0.0 && isfinite(cond)) {
        double diff = 0.0;
        for (size_t i = 0; i < n; i++)
            if (fabs(x[i] - x_ref[i]) > diff)
                diff = fabs(x[i] - x_ref[i]);
        double rel = diff / norm_inf_vec(n, x_ref);
        CHECK(rel <= 1e3 * DBL_EPSILON * cond,
              "%s: |x - x_ref| / |x_ref| = %.3g > 1e3 eps cond (cond %.3g)",
              what, rel, cond);
    }
}

static void check_solution(const char *what, size_t n, const double *a,
                           const double *b, const double *x,
                           const double *x_ref, double cond)
{
    check_solution_within(what, n, a, b, x, x_ref, cond, residual_bound);
}

/* ------------------------------------------------------------------ */
/* Band matrices                                                       */

/* A random n x n matrix with bandwidths ml, mu (dense, column-major). */
static double *random_band_dense(size_t n, size_t ml, size_t mu)
{
    double *a = calloc(n * n > 0 ? n * n : 1, sizeof *a);
    if (a == NULL)
        exit(2);
    for (size_t j = 0; j < n; j++)
        for (size_t i = j > mu ? j - mu : 0; i < n && i <= j + ml; i++)
            a[i + j * n] = rng_unit();
    return a;
}

/* The band storage of a: the band's entries, NaN everywhere else (the
** fill-in rows and the corners outside the matrix must not be read before
** they are written). */
static hy_matrix band_from_dense(size_t n, size_t ml, size_t mu, const double *a)
{
    hy_matrix m;
    memset(&m, 0, sizeof m);
    m.kind = HY_MAT_BAND;
    m.n = n;
    m.ml = ml;
    m.mu = mu;
    m.ld = 2 * ml + mu + 1;
    m.values = xmalloc(m.ld * n * sizeof *m.values);
    for (size_t q = 0; q < m.ld * n; q++)
        m.values[q] = NAN;
    for (size_t j = 0; j < n; j++)
        for (size_t i = j > mu ? j - mu : 0; i < n && i <= j + ml; i++)
            m.values[(ml + mu + i - j) + j * m.ld] = a[i + j * n];
    return m;
}

typedef int (*band_factor_fn)(hy_matrix *m, int64_t *pivot);

/* Factor and solve one band system with factor; check against the
** reference. Returns the number of row interchanges. */
static size_t band_case(const char *name, band_factor_fn factor, size_t n,
                        size_t ml, size_t mu, const double *a, const double *b,
                        const double *x_ref, double cond)
{
    char what[160];
    snprintf(what, sizeof what, "%s n %zu ml %zu mu %zu", name, n, ml, mu);
    hy_matrix m = band_from_dense(n, ml, mu, a);
    int64_t *pivot = xmalloc(n * sizeof *pivot);
    double *x = xmalloc(n * sizeof *x);
    size_t n_swaps = 0;
    int status = factor(&m, pivot);
    CHECK(status == 0, "%s: factor returned %d", what, status);
    if (status == 0) {
        for (size_t k = 0; k < n; k++) {
            CHECK(pivot[k] >= (int64_t)k && pivot[k] <= (int64_t)(k + ml)
                      && pivot[k] < (int64_t)n,
                  "%s: pivot[%zu] = %lld", what, k, (long long)pivot[k]);
            n_swaps += pivot[k] != (int64_t)k;
        }
        memcpy(x, b, n * sizeof *x);
        hy_band_solve(&m, pivot, x);
        check_solution(what, n, a, b, x, x_ref, cond);
        /* A second right-hand side with the same factors. */
        double *b2 = xmalloc(n * sizeof *b2), *x2_ref = xmalloc(n * sizeof *x2_ref);
        for (size_t i = 0; i < n; i++)
            b2[i] = (double)i - 0.5 * (double)n;
        if (ref_solve(n, a, b2, x2_ref) == 0) {
            memcpy(x, b2, n * sizeof *x);
            hy_band_solve(&m, pivot, x);
            check_solution(what, n, a, b2, x, x2_ref, cond);
        }
        free(b2);
        free(x2_ref);
    }
    free(m.values);
    free(pivot);
    free(x);
    return n_swaps;
}

static void test_band(void)
{
    static const size_t shapes[][3] = {
        /* n, ml, mu */
        { 1, 0, 0 },   { 1, 2, 1 },    { 2, 1, 0 },    { 2, 0, 1 },
        { 2, 1, 1 },   { 5, 0, 0 },    { 7, 0, 3 },    { 7, 3, 0 },
        { 10, 1, 1 },  { 20, 5, 2 },   { 20, 2, 5 },   { 30, 29, 29 },
        { 50, 10, 3 }, { 100, 4, 4 },  { 120, 40, 40 }, { 200, 70, 10 },
        { 200, 10, 70 }, { 300, 0, 50 }, { 300, 50, 0 }, { 300, 90, 20 },
        { 1000, 35, 33 },
        { 2000, 2, 1 },
    };
    size_t total_swaps = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const size_t n = shapes[s][0], ml = shapes[s][1], mu = shapes[s][2];
        double *a = random_band_dense(n, ml, mu);
        double *b = xmalloc(n * sizeof *b), *x_ref = xmalloc(n * sizeof *x_ref);
        for (size_t i = 0; i < n; i++)
            b[i] = rng_unit();
        CHECK(ref_solve(n, a, b, x_ref) == 0, "reference: singular band matrix");
        CHECK(scaled_residual(n, a, x_ref, b) < residual_bound,
              "reference solve n %zu: residual %.3g", n,
              scaled_residual(n, a, x_ref, b));
        double cond = n <= COND_MAX_N ? condition(n, a) : 0.0;
        total_swaps += band_case("band own", hy_band_factor_own, n, ml, mu, a,
                                 b, x_ref, cond);
#ifdef HYDAE_HAVE_LAPACK
        band_case("band dgbtrf", hy_band_factor_lapack, n, ml, mu, a, b, x_ref,
                  cond);
#endif
        band_case("band dispatch", hy_band_factor, n, ml, mu, a, b, x_ref, cond);
        free(a);
        free(b);
        free(x_ref);
    }
    /* Random diagonals are not dominant: partial pivoting must have
    ** interchanged rows. */
    CHECK(total_swaps > 1000, "only %zu row interchanges in the band tests",
          total_swaps);
#ifndef HYDAE_HAVE_LAPACK
    printf("band: LAPACK not built in, dgbtrf path skipped\n");
#endif
    printf("band: %zu shapes, %zu row interchanges (own)\n",
           sizeof shapes / sizeof shapes[0], total_swaps);
}

/* Singular band matrices: an exactly zero column c is reported as column
** c + 1 (1-based) by both factorisations; a zero row somewhere. */
static void test_band_singular(void)
{
    static const size_t shapes[][4] = {
        /* n, ml, mu, zero column */
        { 1, 0, 0, 0 }, { 6, 2, 1, 0 }, { 6, 2, 1, 3 }, { 6, 2, 1, 5 },
        { 40, 3, 5, 17 }, { 40, 0, 4, 39 }, { 40, 4, 0, 20 }, { 200, 40, 40, 150 },
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const size_t n = shapes[s][0], ml = shapes[s][1], mu = shapes[s][2];
        const size_t zero_col = shapes[s][3];
        double *a = random_band_dense(n, ml, mu);
        for (size_t i = 0; i < n; i++)
            a[i + zero_col * n] = 0.0;
        int64_t *pivot = xmalloc(n * sizeof *pivot);
        band_factor_fn factors[] = { hy_band_factor_own, hy_band_factor_lapack,
                                     hy_band_factor };
#ifdef HYDAE_HAVE_LAPACK
        const char *names[] = { "own", "dgbtrf", "dispatch" };
#else
        const char *names[] = { "own", "own (no LAPACK)", "dispatch" };
#endif
        for (int f = 0; f < 3; f++) {
            hy_matrix m = band_from_dense(n, ml, mu, a);
            int status = factors[f](&m, pivot);
            CHECK(status == (int)zero_col + 1,
                  "band %s n %zu ml %zu mu %zu, column %zu zero: factor "
                  "returned %d, want %zu",
                  names[f], n, ml, mu, zero_col, status, zero_col + 1);
            free(m.values);
        }
        /* A zero row instead: some column is reported. */
        free(a);
        a = random_band_dense(n, ml, mu);
        const size_t zero_row = n / 2;
        for (size_t j = 0; j < n; j++)
            a[zero_row + j * n] = 0.0;
        for (int f = 0; f < 3; f++) {
            hy_matrix m = band_from_dense(n, ml, mu, a);
            int status = factors[f](&m, pivot);
            CHECK(status >= 1 && status <= (int)n,
                  "band %s n %zu, row %zu zero: factor returned %d", names[f],
                  n, zero_row, status);
            free(m.values);
        }
        free(a);
        free(pivot);
    }
}

/* ------------------------------------------------------------------ */
/* Dense LAPACK                                                        */

static void test_dense_lapack(void)
{
#ifdef HYDAE_HAVE_LAPACK
    static const size_t sizes[] = { 1, 2, 3, 10, 50, 130, 257 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t n = sizes[s];
        double *a = random_band_dense(n, n - 1, n - 1);
        double *b = xmalloc(n * sizeof *b), *x_ref = xmalloc(n * sizeof *x_ref);
        for (size_t i = 0; i < n; i++)
            b[i] = rng_unit();
        CHECK(ref_solve(n, a, b, x_ref) == 0, "reference: singular");
        hy_matrix m;
        memset(&m, 0, sizeof m);
        m.kind = HY_MAT_DENSE;
        m.n = n;
        m.values = xmalloc(n * n * sizeof *m.values);
        memcpy(m.values, a, n * n * sizeof *a);
        int *pivot = xmalloc(n * sizeof *pivot);
        int status = hy_dense_lapack_factor(&m, pivot);
        CHECK(status == 0, "dgetrf n %zu: %d", n, status);
        if (status == 0) {
            double *x = xmalloc(n * sizeof *x);
            memcpy(x, b, n * sizeof *x);
            hy_dense_lapack_solve(&m, pivot, x);
            char what[64];
            snprintf(what, sizeof what, "dgetrf/dgetrs n %zu", n);
            check_solution(what, n, a, b, x, x_ref, condition(n, a));
            free(x);
        }
        /* Column n/2 zero: reported as column n/2 + 1. */
        for (size_t i = 0; i < n; i++)
            a[i + (n / 2) * n] = 0.0;
        memcpy(m.values, a, n * n * sizeof *a);
        status = hy_dense_lapack_factor(&m, pivot);
        CHECK(status == (int)(n / 2) + 1, "dgetrf n %zu, column %zu zero: %d",
              n, n / 2, status);
        free(m.values);
        free(pivot);
        free(a);
        free(b);
        free(x_ref);
    }
    printf("dense LAPACK: crossover n = %zu\n", hy_dense_lapack_crossover());
#else
    CHECK(hy_dense_lapack_crossover() == 0, "crossover without LAPACK");
    printf("dense LAPACK: not built in, skipped (crossover 0)\n");
#endif
}

/* ------------------------------------------------------------------ */
/* Hand-built patterns                                                 */

static hy_pattern *pattern_alloc(size_t n, size_t nnz)
{
    hy_pattern *p = calloc(1, sizeof *p);
    if (p == NULL)
        exit(2);
    p->n = n;
    p->nnz = nnz;
    p->col_start = xmalloc((n + 1) * sizeof *p->col_start);
    p->row = xmalloc(nnz * sizeof *p->row);
    p->refs = 1;
    return p;
}

static void pattern_free(hy_pattern *p)
{
    if (p == NULL)
        return;
    free(p->col_start);
    free(p->row);
    free(p);
}

static void pattern_set_bandwidths(hy_pattern *p)
{
    p->ml = p->mu = 0;
    for (size_t j = 0; j < p->n; j++)
        for (int64_t q = p->col_start[j]; q < p->col_start[j + 1]; q++) {
            size_t i = (size_t)p->row[q];
            if (i > j && i - j > p->ml)
                p->ml = i - j;
            if (j > i && j - i > p->mu)
                p->mu = j - i;
        }
}

/* The pattern of the nonzero mask (n x n column-major), diagonal added. */
static hy_pattern *pattern_from_mask(size_t n, const unsigned char *mask)
{
    size_t nnz = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            nnz += mask[i + j * n] || i == j;
    hy_pattern *p = pattern_alloc(n, nnz);
    size_t q = 0;
    for (size_t j = 0; j < n; j++) {
        p->col_start[j] = (int64_t)q;
        for (size_t i = 0; i < n; i++)
            if (mask[i + j * n] || i == j)
                p->row[q++] = (int64_t)i;
    }
    p->col_start[n] = (int64_t)q;
    pattern_set_bandwidths(p);
    return p;
}

static hy_pattern *pattern_band(size_t n, size_t ml, size_t mu)
{
    size_t nnz = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = j > mu ? j - mu : 0; i < n && i <= j + ml; i++)
            nnz++;
    hy_pattern *p = pattern_alloc(n, nnz);
    size_t q = 0;
    for (size_t j = 0; j < n; j++) {
        p->col_start[j] = (int64_t)q;
        for (size_t i = j > mu ? j - mu : 0; i < n && i <= j + ml; i++)
            p->row[q++] = (int64_t)i;
    }
    p->col_start[n] = (int64_t)q;
    pattern_set_bandwidths(p);
    return p;
}

/* The 5-point Laplacian on an nx x ny grid, unknown x + nx y. */
static hy_pattern *pattern_laplacian_2d(size_t nx, size_t ny)
{
    const size_t n = nx * ny;
    hy_pattern *p = pattern_alloc(n, 5 * n);
    size_t q = 0;
    for (size_t y = 0; y < ny; y++)
        for (size_t x = 0; x < nx; x++) {
            size_t j = x + nx * y;
            p->col_start[j] = (int64_t)q;
            if (y > 0)
                p->row[q++] = (int64_t)(j - nx);
            if (x > 0)
                p->row[q++] = (int64_t)(j - 1);
            p->row[q++] = (int64_t)j;
            if (x + 1 < nx)
                p->row[q++] = (int64_t)(j + 1);
            if (y + 1 < ny)
                p->row[q++] = (int64_t)(j + nx);
        }
    p->col_start[n] = (int64_t)q;
    p->nnz = q;
    p->ml = p->mu = n > 1 ? (ny > 1 ? nx : 1) : 0;
    return p;
}

/* A random pattern: the diagonal and about per_col other rows a column. */
static hy_pattern *pattern_random(size_t n, size_t per_col)
{
    unsigned char *mask = calloc(n * n > 0 ? n * n : 1, 1);
    if (mask == NULL)
        exit(2);
    for (size_t j = 0; j < n; j++)
        for (size_t k = 0; k < per_col; k++)
            mask[rng_below(n) + j * n] = 1;
    hy_pattern *p = pattern_from_mask(n, mask);
    free(mask);
    return p;
}

/* ------------------------------------------------------------------ */
/* KLU                                                                 */

#ifdef HYDAE_HAVE_KLU

/* The dense matrix of pattern p with values v (in pattern order). */
static double *dense_of_csc(const hy_pattern *p, const double *v)
{
    const size_t n = p->n;
    double *a = calloc(n * n > 0 ? n * n : 1, sizeof *a);
    if (a == NULL)
        exit(2);
    for (size_t j = 0; j < n; j++)
        for (int64_t q = p->col_start[j]; q < p->col_start[j + 1]; q++)
            a[(size_t)p->row[q] + j * n] = v[q];
    return a;
}

static hy_matrix csc_matrix(const hy_pattern *p)
{
    hy_matrix m;
    memset(&m, 0, sizeof m);
    m.kind = HY_MAT_CSC;
    m.n = p->n;
    m.pattern = p;
    m.values = xmalloc(p->nnz * sizeof *m.values);
    return m;
}

/* Factor m with k, solve against the reference (scaled residual below
** bound; the error checked only with the default bound); factor's status
** returned. */
static int klu_case_within(const char *what, hy_klu *k, const hy_matrix *m,
                           double bound)
{
    const size_t n = m->n;
    double *a = dense_of_csc(m->pattern, m->values);
    double *b = xmalloc(n * sizeof *b), *x = xmalloc(n * sizeof *x);
    double *x_ref = xmalloc(n * sizeof *x_ref);
    for (size_t i = 0; i < n; i++)
        b[i] = rng_unit();
    int status = hy_klu_factor(k, m);
    if (status == 0 && ref_solve(n, a, b, x_ref) == 0) {
        memcpy(x, b, n * sizeof *x);
        int solved = hy_klu_solve(k, x);
        CHECK(solved == 0, "%s: solve returned %d", what, solved);
        double cond = n <= COND_MAX_N && bound == residual_bound
                          ? condition(n, a)
                          : 0.0;
        if (solved == 0)
            check_solution_within(what, n, a, b, x, x_ref, cond, bound);
    }
    free(a);
    free(b);
    free(x);
    free(x_ref);
    return status;
}

static int klu_case(const char *what, hy_klu *k, const hy_matrix *m)
{
    return klu_case_within(what, k, m, residual_bound);
}

static void test_klu_random(void)
{
    static const size_t sizes[][2] = {
        /* n, extra entries per column */
        { 1, 0 }, { 2, 1 }, { 5, 2 }, { 10, 3 }, { 100, 3 }, { 250, 5 }, { 1000, 2 },
    };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t n = sizes[s][0];
        hy_pattern *p = pattern_random(n, sizes[s][1]);
        hy_klu *k = hy_klu_create(p);
        CHECK(k != NULL, "hy_klu_create n %zu", n);
        if (k == NULL) {
            pattern_free(p);
            continue;
        }
        hy_matrix m = csc_matrix(p);
        /* The first factorisation (a full one: scaled residual below 1e2
        ** eps), then refactorisations of an iteration matrix c I + J whose
        ** c changes (as with the step size and order). A refactorisation
        ** keeps the first pivot order, chosen for other values: on these
        ** random matrices (entries of J uniform in [-1, 1], no dominant
        ** diagonal) that costs accuracy, scaled residuals up to 2e-12 in
        ** 60 seeds (up to 1e-9 without the rcond and growth guards of
        ** klu.c). Bound 1e-10: far below what a Newton iteration needs. */
        static const double shifts[] = { 1.0, 0.7, 1.6, 3.0, 0.4 };
        double *jac = xmalloc(p->nnz * sizeof *jac);
        for (size_t q = 0; q < p->nnz; q++)
            jac[q] = rng_unit();
        for (int round = 0; round < 5; round++) {
            for (size_t j = 0; j < n; j++)
                for (int64_t q = p->col_start[j]; q < p->col_start[j + 1]; q++)
                    m.values[q] = jac[q] + ((size_t)p->row[q] == j ? shifts[round] : 0.0);
            char what[96];
            snprintf(what, sizeof what, "KLU n %zu nnz %zu, c I + J, c = %g", n,
                     p->nnz, shifts[round]);
            int status = klu_case_within(what, k, &m,
                                         round == 0 ? residual_bound : 1e-10);
            CHECK(status == 0, "%s: factor returned %d", what, status);
        }
        free(jac);
        /* Fresh random values: the old pivot order may now be a poor one;
        ** the guards catch large growth, as above. */
        for (int round = 0; round < 3; round++) {
            for (size_t q = 0; q < p->nnz; q++)
                m.values[q] = rng_unit();
            char what[96];
            snprintf(what, sizeof what, "KLU n %zu nnz %zu fresh values %d", n,
                     p->nnz, round);
            int status = klu_case_within(what, k, &m, 1e-10);
            CHECK(status == 0, "%s: factor returned %d", what, status);
        }
        /* Singular: a zero column c is named. */
        const size_t c = n / 3;
        for (int64_t q = p->col_start[c]; q < p->col_start[c + 1]; q++)
            m.values[q] = 0.0;
        int status = hy_klu_factor(k, &m);
        CHECK(status == (int)c + 1, "KLU n %zu, column %zu zero: factor "
              "returned %d", n, c, status);
        /* And it recovers with regular values. */
        for (size_t q = 0; q < p->nnz; q++)
            m.values[q] = rng_unit();
        status = klu_case("KLU after singular", k, &m);
        CHECK(status == 0, "KLU n %zu after a singular matrix: %d", n, status);
        free(m.values);
        hy_klu_free(k);
        pattern_free(p);
    }
    hy_klu_free(NULL);
}

/* The refactorisation keeps the pivot order of the first factorisation:
** values that make that order bad must lead to a full factorisation
** (rcond below roundoff^(2/3), or an exactly zero pivot). */
static void test_klu_refactor(void)
{
    unsigned char full[4] = { 1, 1, 1, 1 };
    hy_pattern *p = pattern_from_mask(2, full);
    hy_klu *k = hy_klu_create(p);
    CHECK(k != NULL, "hy_klu_create 2 x 2");
    if (k == NULL) {
        pattern_free(p);
        return;
    }
    hy_matrix m = csc_matrix(p);
    /* Values in pattern order: (0,0), (1,0), (0,1), (1,1). */
    const double diagonal[4] = { 1.0, 0.1, 0.1, 1.0 };
    const double tiny_pivot[4] = { 1e-20, 1.0, 1.0, 1.0 };
    const double zero_pivot[4] = { 0.0, 1.0, 1.0, 1.0 };
    const double singular[4] = { 1.0, 1.0, 1.0, 1.0 };
    const double *sequence[] = { diagonal, tiny_pivot, diagonal, zero_pivot,
                                 diagonal, singular, zero_pivot };
    const int expect[] = { 0, 0, 0, 0, 0, 2, 0 };
    for (int s = 0; s < 7; s++) {
        memcpy(m.values, sequence[s], sizeof diagonal);
        char what[64];
        snprintf(what, sizeof what, "KLU 2 x 2, matrix %d", s);
        int status = klu_case(what, k, &m);
        CHECK(status == expect[s], "%s: factor returned %d, want %d", what,
              status, expect[s]);
    }
    free(m.values);
    hy_klu_free(k);
    pattern_free(p);

    /* Another pattern than the one analysed: analysed anew. */
    hy_pattern *p1 = pattern_band(30, 1, 1), *p2 = pattern_random(30, 4);
    k = hy_klu_create(p1);
    CHECK(k != NULL, "hy_klu_create band 30");
    if (k != NULL) {
        hy_matrix m1 = csc_matrix(p1), m2 = csc_matrix(p2);
        for (size_t q = 0; q < p1->nnz; q++)
            m1.values[q] = rng_unit();
        for (size_t q = 0; q < p2->nnz; q++)
            m2.values[q] = rng_unit();
        CHECK(klu_case("KLU pattern 1", k, &m1) == 0, "KLU pattern 1");
        CHECK(klu_case("KLU pattern 2", k, &m2) == 0, "KLU pattern 2");
        CHECK(klu_case("KLU pattern 1 again", k, &m1) == 0, "KLU pattern 1 again");
        free(m1.values);
        free(m2.values);
        hy_klu_free(k);
    }
    pattern_free(p1);
    pattern_free(p2);
}

#endif

static void test_klu(void)
{
#ifdef HYDAE_HAVE_KLU
    test_klu_random();
    test_klu_refactor();
#else
    printf("KLU: not built in, skipped\n");
#endif
}

/* ------------------------------------------------------------------ */
/* Colouring                                                           */

/* No two columns of one colour share a row; every column has exactly one
** colour. Returns 1 when valid. */
static int check_coloring(const char *what, const hy_pattern *p,
                          const hy_coloring *c)
{
    const size_t n = p->n;
    int ok = 1;
    CHECK(c->n == n, "%s: coloring of %zu columns, want %zu", what, c->n, n);
    CHECK(c->n_colors <= n && (n == 0 || c->n_colors >= 1),
          "%s: %zu colours for %zu columns", what, c->n_colors, n);
    if (c->n != n || c->n_colors > n)
        return 0;
    CHECK(c->color_start[0] == 0 && c->color_start[c->n_colors] == (int64_t)n,
          "%s: colour starts 0 .. %lld, want 0 .. %zu", what,
          (long long)c->color_start[c->n_colors], n);
    int64_t *color_of = xmalloc(n * sizeof *color_of);
    int64_t *row_seen = xmalloc(n * sizeof *row_seen);
    for (size_t j = 0; j < n; j++)
        color_of[j] = -1;
    for (size_t k = 0; k < c->n_colors; k++) {
        if (c->color_start[k + 1] <= c->color_start[k])
            ok = 0; /* an empty colour */
        for (int64_t q = c->color_start[k]; q < c->color_start[k + 1]; q++) {
            int64_t j = c->column[q];
            if (j < 0 || (size_t)j >= n || color_of[j] != -1) {
                ok = 0;
                continue;
            }
            color_of[j] = (int64_t)k;
        }
    }
    for (size_t j = 0; j < n; j++)
        if (color_of[j] == -1)
            ok = 0;
    CHECK(ok, "%s: a column without exactly one colour, or an empty colour",
          what);
    /* row_seen[i] = the last colour k whose columns touched row i. */
    int shared = 0;
    for (size_t i = 0; i < n; i++)
        row_seen[i] = -1;
    for (size_t k = 0; ok && k < c->n_colors; k++)
        for (int64_t q = c->color_start[k]; q < c->color_start[k + 1]; q++) {
            size_t j = (size_t)c->column[q];
            for (int64_t r = p->col_start[j]; r < p->col_start[j + 1]; r++) {
                size_t i = (size_t)p->row[r];
                if (row_seen[i] == (int64_t)k)
                    shared = 1;
                row_seen[i] = (int64_t)k;
            }
        }
    CHECK(!shared, "%s: two columns of one colour share a row", what);
    free(color_of);
    free(row_seen);
    return ok && !shared;
}

/* The greedy colouring in column order computed the plain way, from the
** definition: column j gets the smallest colour no earlier column sharing
** a row with it has (O(n^2 nnz), for small n). */
static void naive_greedy(const hy_pattern *p, size_t *color)
{
    const size_t n = p->n;
    unsigned char *taken = xmalloc(n + 1);
    for (size_t j = 0; j < n; j++) {
        memset(taken, 0, n + 1);
        for (size_t k = 0; k < j; k++) {
            int share = 0;
            for (int64_t a = p->col_start[j]; a < p->col_start[j + 1] && !share; a++)
                for (int64_t b = p->col_start[k]; b < p->col_start[k + 1]; b++)
                    if (p->row[a] == p->row[b])
                        share = 1;
            if (share)
                taken[color[k]] = 1;
        }
        size_t c = 0;
        while (taken[c])
            c++;
        color[j] = c;
    }
    free(taken);
}

/* The colouring is the greedy one exactly (both of coloring.c's ways:
** up to 64 colours by row words, beyond by the transpose). */
static void check_greedy(const char *what, const hy_pattern *p, const hy_coloring *c)
{
    size_t *want = xmalloc((p->n > 0 ? p->n : 1) * sizeof *want);
    naive_greedy(p, want);
    size_t n_want = 0;
    for (size_t j = 0; j < p->n; j++)
        if (want[j] + 1 > n_want)
            n_want = want[j] + 1;
    int same = c->n_colors == n_want;
    for (size_t k = 0; same && k < c->n_colors; k++)
        for (int64_t q = c->color_start[k]; q < c->color_start[k + 1]; q++)
            if (want[c->column[q]] != k || (q > c->color_start[k] && c->column[q] <= c->column[q - 1]))
                same = 0;
    CHECK(same, "%s: %zu colours, not the greedy colouring (%zu colours)", what, c->n_colors,
          n_want);
    free(want);
}

static void test_coloring(void)
{
    static const size_t bands[][3] = {
        { 0, 0, 0 },  { 1, 0, 0 }, { 5, 0, 0 },   { 10, 1, 1 }, { 10, 9, 9 },
        { 50, 3, 0 }, { 50, 0, 4 }, { 100, 2, 7 }, { 1000, 10, 10 },
    };
    for (size_t s = 0; s < sizeof bands / sizeof bands[0]; s++) {
        const size_t n = bands[s][0], ml = bands[s][1], mu = bands[s][2];
        hy_pattern *p = pattern_band(n, ml, mu);
        hy_coloring c;
        char what[64];
        snprintf(what, sizeof what, "band n %zu ml %zu mu %zu", n, ml, mu);
        int status = hy_coloring_create(&c, p);
        CHECK(status == 0, "%s: coloring returned %d", what, status);
        if (status == 0 && check_coloring(what, p, &c)) {
            const size_t w = ml + mu + 1;
            CHECK(c.n_colors == (n < w ? n : w), "%s: %zu colours, want %zu",
                  what, c.n_colors, n < w ? n : w);
            int mod_ok = 1;
            for (size_t k = 0; k < c.n_colors; k++)
                for (int64_t q = c.color_start[k]; q < c.color_start[k + 1]; q++)
                    if ((size_t)c.column[q] % w != k)
                        mod_ok = 0;
            CHECK(mod_ok, "%s: column j does not get colour j mod %zu", what, w);
        }
        hy_coloring_free(&c);
        pattern_free(p);
    }
    for (int r = 0; r < 20; r++) {
        const size_t n = 1 + rng_below(300), per_col = rng_below(6);
        hy_pattern *p = pattern_random(n, per_col);
        hy_coloring c;
        char what[64];
        snprintf(what, sizeof what, "random n %zu nnz %zu", n, p->nnz);
        int status = hy_coloring_create(&c, p);
        CHECK(status == 0, "%s: coloring returned %d", what, status);
        if (status == 0 && check_coloring(what, p, &c))
            check_greedy(what, p, &c);
        hy_coloring_free(&c);
        pattern_free(p);
    }
    {
        unsigned char *mask = xmalloc(40 * 40);
        memset(mask, 1, 40 * 40);
        hy_pattern *p = pattern_from_mask(40, mask);
        hy_coloring c;
        CHECK(hy_coloring_create(&c, p) == 0 && check_coloring("dense 40", p, &c)
                  && c.n_colors == 40,
              "dense 40: %zu colours", c.n_colors);
        hy_coloring_free(&c);
        pattern_free(p);
        free(mask);
    }
    /* Dense patterns and random ones with many entries a column: from a
    ** few colours to more than 64 (the general way). */
    static const size_t many[][2] = { { 63, 63 }, { 64, 64 }, { 65, 65 }, { 100, 100 },
                                      { 150, 12 }, { 200, 20 }, { 300, 4 } };
    for (size_t s = 0; s < sizeof many / sizeof many[0]; s++) {
        const size_t n = many[s][0], per_col = many[s][1];
        hy_pattern *p;
        if (per_col == n) {
            unsigned char *mask = xmalloc(n * n);
            memset(mask, 1, n * n);
            p = pattern_from_mask(n, mask);
            free(mask);
        } else {
            p = pattern_random(n, per_col);
        }
        hy_coloring c;
        char what[64];
        snprintf(what, sizeof what, "n %zu, %zu a column", n, per_col);
        int status = hy_coloring_create(&c, p);
        CHECK(status == 0, "%s: coloring returned %d", what, status);
        if (status == 0 && check_coloring(what, p, &c))
            check_greedy(what, p, &c);
        CHECK(per_col != n || c.n_colors == n, "%s: %zu colours for a dense pattern", what,
              c.n_colors);
        hy_coloring_free(&c);
        pattern_free(p);
    }
    static const size_t grids[][2] = { { 1, 1 }, { 1, 7 }, { 7, 1 }, { 30, 40 }, { 1414, 1415 } };
    for (size_t s = 0; s < sizeof grids / sizeof grids[0]; s++) {
        hy_pattern *p = pattern_laplacian_2d(grids[s][0], grids[s][1]);
        hy_coloring c;
        char what[64];
        snprintf(what, sizeof what, "5-point %zu x %zu", grids[s][0], grids[s][1]);
        clock_t t0 = clock();
        int status = hy_coloring_create(&c, p);
        double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
        CHECK(status == 0, "%s: coloring returned %d", what, status);
        if (status == 0 && check_coloring(what, p, &c)) {
            /* A column meets the columns within grid distance 2; six of
            ** them come before it in the column order, so the greedy
            ** colouring needs at most 7 colours (5 would be optimal). */
            CHECK(c.n_colors <= 7, "%s: %zu colours", what, c.n_colors);
            printf("coloring %s (n %zu, nnz %zu): %zu colours in %.3f s\n",
                   what, p->n, p->nnz, c.n_colors, seconds);
        }
        hy_coloring_free(&c);
        pattern_free(p);
    }
    hy_coloring_free(NULL);
}

/* ------------------------------------------------------------------ */
/* The automatic choice                                                */

/* 1-D reaction-diffusion with w species interleaved: a dense w x w block
** per grid point, and diffusion to the neighbouring points of every species
** (all_diffuse) or of the first one only (Medical Akzo with w = 2). */
static hy_pattern *pattern_species(size_t n, size_t w, int all_diffuse)
{
    unsigned char *mask = calloc(n * n, 1);
    if (mask == NULL)
        exit(2);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            int same_point = i / w == j / w, first_j = j % w == 0;
            if (same_point)
                mask[i + j * n] = all_diffuse || first_j || i % w == 0 || i == j;
            else
                mask[i + j * n] = (i + w == j || j + w == i) && (all_diffuse || first_j);
        }
    hy_pattern *p = pattern_from_mask(n, mask);
    free(mask);
    return p;
}

/* hy_linsol_choose's automatic choice on shapes whose faster solver
** bench/rule.sh measured (instruction counts of a factorisation and ten
** solves, KLU / band): Medical Akzo's shape 0.78 and wider ones of its kind
** 0.38 .. 0.65, and the 2-D 5-point grid, go to KLU; the Brusselator's
** (1.05), tridiagonal (1.00), full bands (1.09 .. 1.83) and many species
** (1.20 .. 1.61) to band; no pattern, small n, a dense pattern to dense. */
static void test_auto_choice(void)
{
    struct {
        const char *what;
        hy_pattern *p;
        hy_ls_kind want;
    } cases[] = {
        { "Medical Akzo (n 400, 2 species, one diffuses)", pattern_species(400, 2, 0), HY_LS_KLU },
        { "4 species, one diffuses (n 1000)", pattern_species(1000, 4, 0), HY_LS_KLU },
        { "5-point 30 x 30", pattern_laplacian_2d(30, 30), HY_LS_KLU },
        { "Brusselator (n 2000, 2 species)", pattern_species(2000, 2, 1), HY_LS_BAND },
        { "8 species (n 800)", pattern_species(800, 8, 1), HY_LS_BAND },
        { "tridiagonal (n 1000)", pattern_band(1000, 1, 1), HY_LS_BAND },
        { "full band ml = mu = 4 (n 500)", pattern_band(500, 4, 4), HY_LS_BAND },
        { "full band ml = 10, mu = 3 (n 500)", pattern_band(500, 10, 3), HY_LS_BAND },
        { "Medical Akzo's shape at n 60 (<= 64)", pattern_species(60, 2, 0), HY_LS_DENSE },
        { "dense pattern (n 100)", pattern_band(100, 99, 99), HY_LS_DENSE },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        hy_ls_kind want = cases[k].want, got = HY_LS_AUTO;
        if (want == HY_LS_KLU && !hy_ls_available(HY_LS_KLU))
            want = HY_LS_BAND;
        char why[256];
        int status = hy_linsol_choose(HY_LS_AUTO, cases[k].p->n, cases[k].p, &got, why,
                                      sizeof why);
        CHECK(status == 0 && got == want, "auto on %s: %s (want %s) %s", cases[k].what,
              hy_ls_kind_name(got), hy_ls_kind_name(want), why);
        /* An explicit choice is kept. */
        status = hy_linsol_choose(HY_LS_BAND, cases[k].p->n, cases[k].p, &got, why, sizeof why);
        CHECK(status == 0 && got == HY_LS_BAND, "band on %s: %s", cases[k].what,
              hy_ls_kind_name(got));
        pattern_free(cases[k].p);
    }
    hy_ls_kind got = HY_LS_AUTO;
    char why[256];
    CHECK(hy_linsol_choose(HY_LS_AUTO, 5000, NULL, &got, why, sizeof why) == 0
              && got == HY_LS_DENSE,
          "auto without a pattern: %s", hy_ls_kind_name(got));
}

/* An optional argument: another seed for the random matrices. */
int main(int argc, char **argv)
{
    if (argc > 1)
        rng_state = strtoull(argv[1], NULL, 0);
    test_band();
    test_band_singular();
    test_dense_lapack();
    test_klu();
    test_coloring();
    test_auto_choice();
    return CHECK_DONE();
}
