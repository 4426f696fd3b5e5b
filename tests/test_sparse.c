/*
** Sparse Jacobians end to end (issue 12): the 1-D Brusselator
** (examples/brusselator.c) with DSTIFF, VSTIFF and MSTIFF on every linear
** solver (dense, band, KLU), with its analytic sparse Jacobian and with
** finite differences by column groups, against RK45 (no linear algebra at
** all) at a tight tolerance; the cost of a banded finite-difference
** Jacobian (5 evaluations, not n); M = 10^5 (2 10^5 unknowns) under an
** address-space limit of 2 GB; the pattern's argument checks.
*/
#include "check.h"
#include "examples.h"
#include "hydae.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

typedef struct last_row {
    int n_columns;
    double t;
    double *values;
} last_row;

static int keep_last(void *user, hydae_row_kind kind, double t, const double *values)
{
    (void)kind;
    last_row *r = user;
    r->t = t;
    memcpy(r->values, values, (size_t)r->n_columns * sizeof(double));
    return 0;
}

/* Run the Brusselator of size m; the final row into *out (allocated).
** 0, or the run's status. */
static int run(long m, int analytic, const char *solver, const char *linear_solver,
               double rtol, hydae_stats *stats, last_row *out)
{
    hydae_model *model = example_brusselator_sized(m, analytic);
    int status = HYDAE_ERR_NOMEM;
    hydae_sim *sim = model ? hydae_sim_create(model, &status) : NULL;
    if (!sim) {
        hydae_model_free(model);
        return status;
    }
    out->n_columns = hydae_model_n_columns(model);
    out->values = malloc((size_t)out->n_columns * sizeof(double));
    out->t = NAN;
    status = hydae_sim_set_time(sim, 0.0, 10.0);
    if (!status)
        status = hydae_sim_set_output_interval(sim, 10.0);
    if (!status)
        status = hydae_sim_set_tolerances(sim, rtol, rtol);
    if (!status)
        status = hydae_sim_set_integrator(sim, solver);
    if (!status && linear_solver)
        status = hydae_sim_set_option(sim, "linear_solver", linear_solver);
    if (!status)
        status = hydae_sim_add_row_sink(sim, keep_last, out);
    if (!status)
        status = hydae_sim_run(sim);
    if (status)
        fprintf(stderr, "  %s/%s: %s\n", solver, linear_solver ? linear_solver : "auto",
                hydae_sim_errmsg(sim));
    hydae_sim_get_stats(sim, stats);
    hydae_sim_free(sim);
    hydae_model_free(model);
    return status;
}

/* Largest |a - b| / (1 + |b|) over the unknowns (columns 1..). */
static double max_rel_diff(const last_row *a, const last_row *b)
{
    double worst = 0.0;
    for (int c = 0; c < a->n_columns; c++)
        worst = fmax(worst, fabs(a->values[c] - b->values[c]) / (1.0 + fabs(b->values[c])));
    return worst;
}

static void solvers_agree(void)
{
    const long m = 100;
    hydae_stats stats;
    last_row ref;
    CHECK(run(m, 0, "RK45", NULL, 1e-10, &stats, &ref) == 0, "RK45 reference run");
    static const char *const solvers[] = { "DSTIFF", "VSTIFF", "MSTIFF" };
    static const char *const linear[] = { "dense", "band", "klu", "auto" };
    for (int s = 0; s < 3; s++)
        for (int l = 0; l < 4; l++)
            for (int analytic = 0; analytic <= 1; analytic++) {
                last_row got;
                int rc = run(m, analytic, solvers[s], linear[l], 1e-7, &stats, &got);
                if (rc != 0 && strcmp(linear[l], "klu") == 0) {
                    /* built without KLU: refused with a message, not run */
                    CHECK(rc == HYDAE_ERR_ARG, "%s klu without KLU: status %d", solvers[s], rc);
                    free(got.values);
                    continue;
                }
                CHECK(rc == 0, "%s %s analytic %d: status %d", solvers[s], linear[l], analytic,
                      rc);
                double diff = max_rel_diff(&got, &ref);
                CHECK(diff < 2e-5, "%s %s analytic %d: max relative difference to RK45 %.3g",
                      solvers[s], linear[l], analytic, diff);
                CHECK(got.t == 10.0, "%s %s: ended at t = %g", solvers[s], linear[l], got.t);
                /* Finite differences by column groups: a band of half-width
                ** 2 is 5 groups, so a Jacobian costs 5 evaluations, not
                ** 2M = 200. */
                if (!analytic && stats.n_jac_evals > 0)
                    CHECK(stats.n_res_evals <= 10 * stats.n_steps + 6 * stats.n_jac_evals + 50,
                          "%s %s: %ld evaluations for %ld steps and %ld Jacobians",
                          solvers[s], linear[l], stats.n_res_evals, stats.n_steps,
                          stats.n_jac_evals);
                free(got.values);
            }
    free(ref.values);
}

/* Two hundred thousand unknowns in 2 GB of address space: no n x n
** matrix anywhere (a dense one would be 320 GB). Under AddressSanitizer
** (whose shadow memory needs terabytes of address space) without the limit
** and at M = 2 10^4, to keep the sanitizer run short. */
static void large_in_little_memory(void)
{
    const long m = UNDER_ASAN ? 20000 : 100000;
    if (!UNDER_ASAN) {
        struct rlimit limit = { (rlim_t)2 << 30, (rlim_t)2 << 30 };
        CHECK(setrlimit(RLIMIT_AS, &limit) == 0, "setrlimit");
    }
    static const char *const solvers[] = { "DSTIFF", "VSTIFF" };
    last_row got[2];
    for (int s = 0; s < 2; s++) {
        hydae_stats stats;
        int rc = run(m, 1, solvers[s], NULL, 1e-6, &stats, &got[s]);
        CHECK(rc == 0, "M = %ld with %s: status %d", m, solvers[s], rc);
        CHECK(got[s].t == 10.0, "M = %ld with %s: ended at t = %g", m, solvers[s], got[s].t);
        printf("M = %ld %s: %ld steps, %ld Jacobians, %ld factorisations\n", m, solvers[s],
               stats.n_steps, stats.n_jac_evals, stats.n_lu);
    }
    double diff = max_rel_diff(&got[0], &got[1]);
    CHECK(diff < 1e-3, "M = %ld: DSTIFF and VSTIFF differ by %.3g", m, diff);
    free(got[0].values);
    free(got[1].values);
}

/* A model with one mode of two differential variables a, b. */
static hydae_mode *two_variables(hydae_model **model)
{
    *model = hydae_model_create("p");
    hydae_mode *mode = hydae_chart_add_mode(hydae_model_add_chart(*model, "c"), "m");
    CHECK(hydae_mode_add_var(mode, "a", HYDAE_DIFFERENTIAL, 0.0) == 0, "var a");
    CHECK(hydae_mode_add_var(mode, "b", HYDAE_DIFFERENTIAL, 0.0) == 1, "var b");
    return mode;
}

/* One pattern on a fresh two-variable mode: its status, the message. */
static int try_pattern(const int64_t *col_start, const int64_t *row, const char *message)
{
    hydae_model *model;
    hydae_mode *mode = two_variables(&model);
    int status = hydae_mode_set_jacobian_pattern(mode, col_start, row);
    if (message)
        CHECK(strstr(hydae_model_errmsg(model), message) != NULL, "message has '%s': %s",
              message, hydae_model_errmsg(model));
    hydae_model_free(model);
    return status;
}

static void pattern_checks(void)
{
    hydae_model *empty = hydae_model_create("e");
    hydae_mode *no_vars = hydae_chart_add_mode(hydae_model_add_chart(empty, "c"), "m");
    int64_t col_start[3] = { 0, 1, 2 }, bad_row[2] = { 0, 2 };
    CHECK(hydae_mode_set_jacobian_pattern(no_vars, col_start, bad_row) == HYDAE_ERR_ARG,
          "a pattern before the variables is refused");
    hydae_model_free(empty);
    CHECK(try_pattern(col_start, bad_row, "row 2") == HYDAE_ERR_ARG,
          "row 2 of a 2 x 2 pattern is refused");
    int64_t decreasing[3] = { 0, 2, 1 }, rows[2] = { 0, 1 };
    CHECK(try_pattern(decreasing, rows, "never decrease") == HYDAE_ERR_ARG,
          "decreasing col_start is refused");
    /* Unsorted, a duplicate, no diagonal in column 1: accepted. */
    int64_t loose_start[3] = { 0, 3, 3 }, loose_rows[3] = { 1, 0, 1 };
    CHECK(try_pattern(loose_start, loose_rows, NULL) == 0, "an unsorted pattern is accepted");
}

static int decay(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    long n = *(const long *)user;
    for (long i = 0; i < n; i++)
        ydot[i] = -y[i];
    return 0;
}

/* A C-API mode of 20,000 unknowns without a pattern is refused before the
** run (its dense matrix would be 3.2 GB), naming the way out; with the
** diagonal pattern it runs, x(1) = e^-1. */
static void dense_limit(void)
{
    static long n = 20000;
    for (int with_pattern = 0; with_pattern <= 1; with_pattern++) {
        hydae_model *model = hydae_model_create("wide");
        hydae_mode *mode = hydae_chart_add_mode(hydae_model_add_chart(model, "c"), "m");
        char name[32];
        for (long i = 0; i < n; i++) {
            snprintf(name, sizeof name, "x%ld", i);
            CHECK(hydae_mode_add_var(mode, name, HYDAE_DIFFERENTIAL, 1.0) == i, "var");
        }
        CHECK(hydae_mode_set_rhs(mode, decay, &n) == 0, "rhs");
        if (with_pattern) {
            int64_t *col_start = malloc((size_t)(n + 1) * sizeof *col_start);
            int64_t *row = malloc((size_t)n * sizeof *row);
            for (long i = 0; i <= n; i++)
                col_start[i] = i;
            for (long i = 0; i < n; i++)
                row[i] = i;
            CHECK(hydae_mode_set_jacobian_pattern(mode, col_start, row) == 0, "pattern");
            free(col_start);
            free(row);
        }
        int status;
        hydae_sim *sim = hydae_sim_create(model, &status);
        CHECK(sim != NULL, "sim");
        CHECK(hydae_sim_set_time(sim, 0.0, 1.0) == 0, "time");
        status = hydae_sim_validate(sim);
        if (!with_pattern) {
            CHECK(status == HYDAE_ERR_ARG, "20000 unknowns without a pattern: status %d", status);
            CHECK(strstr(hydae_sim_errmsg(sim), "mode 'm' has 20000 unknowns") != NULL
                      && strstr(hydae_sim_errmsg(sim), "give the Jacobian's sparsity pattern"),
                  "the message: %s", hydae_sim_errmsg(sim));
        } else {
            last_row got = { hydae_model_n_columns(model), NAN, NULL };
            got.values = malloc((size_t)got.n_columns * sizeof(double));
            CHECK(status == 0, "with the pattern: validate %d (%s)", status,
                  hydae_sim_errmsg(sim));
            CHECK(hydae_sim_add_row_sink(sim, keep_last, &got) == 0, "sink");
            CHECK(hydae_sim_run(sim) == 0, "with the pattern: run (%s)", hydae_sim_errmsg(sim));
            CHECK_NEAR(got.values[n - 1], exp(-1.0), 1e-5, "x(1)");
            free(got.values);
        }
        hydae_sim_free(sim);
        hydae_model_free(model);
    }
}

/* y' = A y, A = [-1 0; 1000 -1000] (stiff), with its analytic sparse
** Jacobian given twice: sorted with the diagonal, and unsorted with the
** entry A21 split into two halves (0.5 + 0.5 sums exactly). The mode's map
** must place and sum them into the same matrix: the runs are bit-identical,
** and y(1) agrees with the closed form. */
static int stiff_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    ydot[0] = -y[0];
    ydot[1] = 1000.0 * y[0] - 1000.0 * y[1];
    return 0;
}

static int sorted_jac(double t, double cj, const double *y, const double *yp, const double *p,
                      double *values, void *user)
{
    (void)t, (void)cj, (void)y, (void)yp, (void)p, (void)user;
    values[0] = -1.0;    /* (0,0) */
    values[1] = 1000.0;  /* (1,0) */
    values[2] = -1000.0; /* (1,1) */
    return 0;
}

static int loose_jac(double t, double cj, const double *y, const double *yp, const double *p,
                     double *values, void *user)
{
    (void)t, (void)cj, (void)y, (void)yp, (void)p, (void)user;
    values[0] = 500.0;   /* (1,0), half */
    values[1] = -1.0;    /* (0,0) */
    values[2] = 500.0;   /* (1,0), the other half */
    values[3] = -1000.0; /* (1,1) */
    return 0;
}

static void run_stiff(int loose, double *y_end)
{
    int64_t sorted_start[3] = { 0, 2, 3 }, sorted_rows[3] = { 0, 1, 1 };
    int64_t loose_start[3] = { 0, 3, 4 }, loose_rows[4] = { 1, 0, 1, 1 };
    hydae_model *model = hydae_model_create("stiff");
    hydae_mode *mode = hydae_chart_add_mode(hydae_model_add_chart(model, "c"), "m");
    CHECK(hydae_mode_add_var(mode, "y1", HYDAE_DIFFERENTIAL, 1.0) == 0, "y1");
    CHECK(hydae_mode_add_var(mode, "y2", HYDAE_DIFFERENTIAL, 0.0) == 1, "y2");
    CHECK(hydae_mode_set_rhs(mode, stiff_rhs, NULL) == 0, "rhs");
    CHECK(hydae_mode_set_jacobian_pattern(mode, loose ? loose_start : sorted_start,
                                          loose ? loose_rows : sorted_rows) == 0, "pattern");
    CHECK(hydae_mode_set_sparse_jacobian(mode, loose ? loose_jac : sorted_jac) == 0, "jac");
    int status;
    hydae_sim *sim = hydae_sim_create(model, &status);
    last_row got = { hydae_model_n_columns(model), NAN, NULL };
    got.values = malloc((size_t)got.n_columns * sizeof(double));
    CHECK(sim && hydae_sim_set_time(sim, 0.0, 1.0) == 0
              && hydae_sim_set_tolerances(sim, 1e-8, 1e-10) == 0
              && hydae_sim_set_integrator(sim, "VSTIFF") == 0
              && hydae_sim_add_row_sink(sim, keep_last, &got) == 0 && hydae_sim_run(sim) == 0,
          "stiff run (loose %d)", loose);
    y_end[0] = got.values[0];
    y_end[1] = got.values[1];
    free(got.values);
    hydae_sim_free(sim);
    hydae_model_free(model);
}

static void pattern_map(void)
{
    double sorted[2], loose[2];
    run_stiff(0, sorted);
    run_stiff(1, loose);
    CHECK(sorted[0] == loose[0] && sorted[1] == loose[1],
          "unsorted, split entries give the same run: %.17g %.17g vs %.17g %.17g", sorted[0],
          sorted[1], loose[0], loose[1]);
    /* y2 = 1000/999 (e^-t - e^-1000t). */
    CHECK_NEAR(sorted[0], exp(-1.0), 1e-6, "y1(1)");
    CHECK_NEAR(sorted[1], 1000.0 / 999.0 * (exp(-1.0) - exp(-1000.0)), 1e-6, "y2(1)");
}

/* The same system as a residual, F = y' - A y, with dF/dy + cj dF/dy' =
** cj I - A given on the pattern: the values reach the solver's storage as
** they are (no d(y' - f)/dy conversion), written straight into the band
** and CSC matrices. DSTIFF on dense, band and KLU agrees with the closed
** form and with itself. */
static int stiff_res(double t, const double *y, const double *yp, const double *p, double *res,
                     void *user)
{
    (void)t;
    (void)p;
    (void)user;
    res[0] = yp[0] + y[0];
    res[1] = yp[1] - 1000.0 * y[0] + 1000.0 * y[1];
    return 0;
}

static int stiff_res_jac(double t, double cj, const double *y, const double *yp,
                         const double *p, double *values, void *user)
{
    (void)t, (void)y, (void)yp, (void)p, (void)user;
    values[0] = cj + 1.0;    /* (0,0) */
    values[1] = -1000.0;     /* (1,0) */
    values[2] = cj + 1000.0; /* (1,1) */
    return 0;
}

static void residual_on_every_solver(void)
{
    static const char *const solvers[] = { "dense", "band", "klu" };
    double first[2] = { NAN, NAN };
    for (int k = 0; k < 3; k++) {
        int64_t col_start[3] = { 0, 2, 3 }, rows[3] = { 0, 1, 1 };
        hydae_model *model = hydae_model_create("stiff_residual");
        hydae_mode *mode = hydae_chart_add_mode(hydae_model_add_chart(model, "c"), "m");
        int built = hydae_mode_add_var(mode, "y1", HYDAE_DIFFERENTIAL, 1.0) == 0
                    && hydae_mode_add_var(mode, "y2", HYDAE_DIFFERENTIAL, 0.0) == 1
                    && hydae_mode_set_residual(mode, 2, stiff_res, NULL) == 0
                    && hydae_mode_set_jacobian_pattern(mode, col_start, rows) == 0
                    && hydae_mode_set_sparse_jacobian(mode, stiff_res_jac) == 0;
        CHECK(built, "residual model: %s", hydae_model_errmsg(model));
        int status;
        hydae_sim *sim = hydae_sim_create(model, &status);
        last_row got = { hydae_model_n_columns(model), NAN, NULL };
        got.values = malloc((size_t)got.n_columns * sizeof(double));
        status = sim ? hydae_sim_set_time(sim, 0.0, 1.0) : HYDAE_ERR_NOMEM;
        if (!status)
            status = hydae_sim_set_tolerances(sim, 1e-8, 1e-10);
        if (!status)
            status = hydae_sim_set_option(sim, "linear_solver", solvers[k]);
        if (!status)
            status = hydae_sim_add_row_sink(sim, keep_last, &got);
        if (!status)
            status = hydae_sim_run(sim);
        int skipped = k == 2 && status == HYDAE_ERR_ARG
                      && strstr(hydae_sim_errmsg(sim), "built without SuiteSparse KLU");
        CHECK(status == 0 || skipped, "residual, %s: %s", solvers[k], hydae_sim_errmsg(sim));
        if (status == 0) {
            CHECK_NEAR(got.values[0], exp(-1.0), 1e-6, "residual y1(1)");
            CHECK_NEAR(got.values[1], 1000.0 / 999.0 * (exp(-1.0) - exp(-1000.0)), 1e-6,
                       "residual y2(1)");
            if (k == 0) {
                first[0] = got.values[0];
                first[1] = got.values[1];
            } else {
                CHECK(fabs(got.values[0] - first[0]) <= 1e-12
                          && fabs(got.values[1] - first[1]) <= 1e-12,
                      "residual, %s against dense: %.17g %.17g vs %.17g %.17g", solvers[k],
                      got.values[0], got.values[1], first[0], first[1]);
            }
        }
        free(got.values);
        hydae_sim_free(sim);
        hydae_model_free(model);
    }
}

int main(void)
{
    pattern_checks();
    pattern_map();
    residual_on_every_solver();
    dense_limit();
    solvers_agree();
    large_in_little_memory();
    return CHECK_DONE();
}
