/*
** The complex solvers of zlinsol.h for band (zband.c, with and without the
** reverse Cuthill-McKee ordering) and KLU (zklu.c) patterns, against the
** complex dense LU (zdense.c) on random systems (A + c B) x = b: the
** scaled residual ||(A + c B) x - b||_inf / (||A + c B||_inf ||x||_inf)
** of each solution, computed here in complex arithmetic, and the
** difference to the dense solution. A refactorisation with new values
** (KLU's refactor path) is checked too.
*/
#include "check.h"
#include "linsol_patterns.h"
#include "linalg/zlinsol.h"

#include <complex.h>
#include <float.h>

/* A's and B's values on pattern p, in the dense and in the storage of
** kind (band without fill-in rows, or csc). */
typedef struct zsystem {
    hy_matrix a_dense, b_dense, a, b;
    double c_re, c_im;
    double *rhs_re, *rhs_im;
} zsystem;

static void system_make(zsystem *s, hy_pattern *p, hy_mat_kind kind, double diag)
{
    size_t n = p->n;
    if (hy_matrix_alloc(&s->a_dense, HY_MAT_DENSE, n, 0, 0, NULL)
        || hy_matrix_alloc(&s->b_dense, HY_MAT_DENSE, n, 0, 0, NULL)
        || hy_matrix_alloc(&s->a, kind, n, p->ml, p->mu, p)
        || hy_matrix_alloc(&s->b, kind, n, p->ml, p->mu, p))
        exit(2);
    for (size_t j = 0; j < n; j++)
        for (int64_t k = p->col_start[j]; k < p->col_start[j + 1]; k++) {
            size_t i = (size_t)p->row[k];
            double av = rng_unit() + (i == j ? diag : 0.0), bv = rng_unit();
            *hy_matrix_at(&s->a_dense, i, j) = *hy_matrix_at(&s->a, i, j) = av;
            *hy_matrix_at(&s->b_dense, i, j) = *hy_matrix_at(&s->b, i, j) = bv;
        }
    s->c_re = 2.0 * rng_unit();
    s->c_im = 3.0 * rng_unit();
    s->rhs_re = xmalloc(n * sizeof(double));
    s->rhs_im = xmalloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        s->rhs_re[i] = rng_unit();
        s->rhs_im[i] = rng_unit();
    }
}

static void system_free(zsystem *s)
{
    hy_matrix_free(&s->a_dense);
    hy_matrix_free(&s->b_dense);
    hy_matrix_free(&s->a);
    hy_matrix_free(&s->b);
    free(s->rhs_re);
    free(s->rhs_im);
}

/* The scaled residual of x = x_re + i x_im, from the dense copies. */
static double scaled_residual(const zsystem *s, const double *x_re, const double *x_im)
{
    size_t n = s->a_dense.n;
    double norm_m = 0.0, norm_x = 0.0, norm_r = 0.0;
    for (size_t i = 0; i < n; i++) {
        double complex r = -(s->rhs_re[i] + I * s->rhs_im[i]);
        double row_sum = 0.0;
        for (size_t j = 0; j < n; j++) {
            double complex m = s->a_dense.values[i + j * n]
                               + (s->c_re + I * s->c_im) * s->b_dense.values[i + j * n];
            r += m * (x_re[j] + I * x_im[j]);
            row_sum += cabs(m);
        }
        norm_m = fmax(norm_m, row_sum);
        norm_x = fmax(norm_x, cabs(x_re[i] + I * x_im[i]));
        norm_r = fmax(norm_r, cabs(r));
    }
    return norm_r / (norm_m * norm_x);
}

/* Solve s with the solver of kind and with the dense one; compare. */
static void check_against_dense(const char *what, hy_ls_kind kind, hy_pattern *p, zsystem *s)
{
    size_t n = p->n;
    hy_zlinsol *dense = hy_zlinsol_create(HY_LS_DENSE, n, NULL);
    hy_zlinsol *z = hy_zlinsol_create(kind, n, p);
    CHECK(dense && z, "%s: create", what);
    if (!dense || !z)
        exit(2);
    double *d_re = xmalloc(n * sizeof(double)), *d_im = xmalloc(n * sizeof(double));
    double *x_re = xmalloc(n * sizeof(double)), *x_im = xmalloc(n * sizeof(double));
    memcpy(d_re, s->rhs_re, n * sizeof(double));
    memcpy(d_im, s->rhs_im, n * sizeof(double));
    memcpy(x_re, s->rhs_re, n * sizeof(double));
    memcpy(x_im, s->rhs_im, n * sizeof(double));
    CHECK(hy_zlinsol_factor(dense, &s->a_dense, &s->b_dense, s->c_re, s->c_im) == 0,
          "%s: dense factor", what);
    hy_zlinsol_solve(dense, d_re, d_im);
    CHECK(hy_zlinsol_factor(z, &s->a, &s->b, s->c_re, s->c_im) == 0, "%s: factor", what);
    hy_zlinsol_solve(z, x_re, x_im);
    double res = scaled_residual(s, x_re, x_im), res_dense = scaled_residual(s, d_re, d_im);
    CHECK(res < 100 * DBL_EPSILON, "%s: scaled residual %.3g (dense LU %.3g)", what, res,
          res_dense);
    double diff = 0.0, size = 0.0;
    for (size_t i = 0; i < n; i++) {
        diff = fmax(diff, cabs((x_re[i] - d_re[i]) + I * (x_im[i] - d_im[i])));
        size = fmax(size, cabs(d_re[i] + I * d_im[i]));
    }
    CHECK(diff <= 1e-9 * size, "%s: |x - x_dense| %.3g, |x_dense| %.3g", what, diff, size);
    printf("%-34s n %4zu  residual %.2e (dense %.2e)  |x - x_dense|/|x| %.2e\n", what, n, res,
           res_dense, diff / size);
    free(d_re);
    free(d_im);
    free(x_re);
    free(x_im);
    hy_zlinsol_free(dense);
    hy_zlinsol_free(z);
}

static void check_pattern(const char *what, hy_pattern *p, double diag)
{
    char name[64];
    zsystem s;
    system_make(&s, p, HY_MAT_BAND, diag);
    snprintf(name, sizeof name, "band, %s", what);
    check_against_dense(name, HY_LS_BAND, p, &s);
    system_free(&s);
    if (!hy_ls_available(HY_LS_KLU))
        return;
    system_make(&s, p, HY_MAT_CSC, diag);
    snprintf(name, sizeof name, "klu, %s", what);
    check_against_dense(name, HY_LS_KLU, p, &s);
    system_free(&s);
}

/* KLU's second factorisation (a refactor with the first's pivots) of new
** values with the same solver. */
static void check_klu_refactor(void)
{
    if (!hy_ls_available(HY_LS_KLU))
        return;
    hy_pattern *p = pattern_random(120, 4);
    hy_zlinsol *z = hy_zlinsol_create(HY_LS_KLU, p->n, p);
    CHECK(z != NULL, "klu refactor: create");
    for (int round = 0; round < 3 && z; round++) {
        zsystem s;
        system_make(&s, p, HY_MAT_CSC, 4.0);
        double *x_re = xmalloc(p->n * sizeof(double)), *x_im = xmalloc(p->n * sizeof(double));
        memcpy(x_re, s.rhs_re, p->n * sizeof(double));
        memcpy(x_im, s.rhs_im, p->n * sizeof(double));
        CHECK(hy_zlinsol_factor(z, &s.a, &s.b, s.c_re, s.c_im) == 0, "klu refactor: factor");
        hy_zlinsol_solve(z, x_re, x_im);
        double res = scaled_residual(&s, x_re, x_im);
        CHECK(res < 100 * DBL_EPSILON, "klu refactor round %d: residual %.3g", round, res);
        free(x_re);
        free(x_im);
        system_free(&s);
    }
    hy_zlinsol_free(z);
    pattern_free(p);
}

/* A matrix with an empty column is singular: the factorisation says so. */
static void check_singular(void)
{
    hy_pattern *p = pattern_band(40, 2, 1);
    zsystem s;
    system_make(&s, p, HY_MAT_BAND, 0.0);
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = 0; j < p->n; j++)
            if (j == 17 && hy_matrix_at(&s.a, i, j)) {
                *hy_matrix_at(&s.a, i, j) = 0.0;
                *hy_matrix_at(&s.b, i, j) = 0.0;
            }
    hy_zlinsol *z = hy_zlinsol_create(HY_LS_BAND, p->n, p);
    int col = z ? hy_zlinsol_factor(z, &s.a, &s.b, 1.0, 1.0) : -1;
    CHECK(col > 0, "a zero column is reported singular (got %d)", col);
    hy_zlinsol_free(z);
    system_free(&s);
    pattern_free(p);
}

int main(void)
{
    struct {
        const char *what;
        hy_pattern *p;
        double diag;
    } cases[] = {
        {"tridiagonal, no dominance", pattern_band(300, 1, 1), 0.0},
        {"band ml 3 mu 2, no dominance", pattern_band(257, 3, 2), 0.0},
        {"band ml 7 mu 11", pattern_band(200, 7, 11), 1.0},
        {"scrambled band w 3 (RCM)", pattern_scrambled_band(150, 3, 3), 2.0},
        {"2-D Laplacian 12 x 10", pattern_laplacian_2d(12, 10), 0.5},
        {"random, 4 a column", pattern_random(180, 4), 3.0},
        {"n 1", pattern_band(1, 0, 0), 1.0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        check_pattern(cases[c].what, cases[c].p, cases[c].diag);
        pattern_free(cases[c].p);
    }
    check_klu_refactor();
    check_singular();
    return CHECK_DONE();
}
