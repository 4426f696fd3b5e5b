/*
** The configuration cache (sim/assembly.c) keeps each configuration's
** symbolic work with its patterns: a model toggling between two
** configurations N times colours its columns and analyses its sparse
** matrices (KLU) once per configuration, not once per switch, and gives
** the same numbers as with nothing cached.
**
** The model: two charts that share the unknown u. The plant, M first-order
** lags x_i' = k_i (u - x_i); the source, u = 1 (mode `high`) or u = 0
** (`low`), switched by sample events every HALF seconds. No analytic
** Jacobian: the iteration matrix and the consistent initialisation's are
** formed by finite differences over column groups, and factored by KLU
** when it is built in. Between switches x_i relaxes exponentially to u:
** x_i(t) = u + (x_i(t_j) - u) exp(-k_i (t - t_j)), the closed form the
** results are checked against.
*/
#include "check.h"
#include "rows.h"
#include "linalg/linsol.h"
#include "sim/sim.h"

#include <math.h>

enum { M = 40, N_SWITCHES = 20 };
static const double HALF = 0.1;

static double rate(int i)
{
    return 1.0 + 0.5 * i;
}

static double x_start(int i)
{
    return 0.5 + 0.01 * i;
}

/* y = (x_0 .. x_{M-1}, u). */
static int plant(double t, const double *y, const double *yp, const double *p, double *res,
                 void *user)
{
    (void)t, (void)p, (void)user;
    for (int i = 0; i < M; i++)
        res[i] = yp[i] - rate(i) * (y[M] - y[i]);
    return 0;
}

static int source_high(double t, const double *y, const double *yp, const double *p,
                       double *res, void *user)
{
    (void)t, (void)yp, (void)p, (void)user;
    res[0] = y[0] - 1.0;
    return 0;
}

static int source_low(double t, const double *y, const double *yp, const double *p,
                      double *res, void *user)
{
    (void)t, (void)yp, (void)p, (void)user;
    res[0] = y[0];
    return 0;
}

static hydae_model *toggling_model(void)
{
    hydae_model *m = hydae_model_create("toggle");
    hydae_mode *lags = hydae_chart_add_mode(hydae_model_add_chart(m, "plant"), "lags");
    int ok = 1;
    for (int i = 0; i < M; i++) {
        char name[16];
        snprintf(name, sizeof name, "x%d", i);
        ok = ok && hydae_mode_add_var(lags, name, HYDAE_DIFFERENTIAL, x_start(i)) == i;
    }
    ok = ok && hydae_mode_add_var(lags, "u", HYDAE_ALGEBRAIC, 1.0) == M
         && hydae_mode_set_residual(lags, M, plant, NULL) == 0;
    /* Column x_i: row i; column u: every row. */
    int64_t col_start[M + 2], row[2 * M];
    for (int i = 0; i < M; i++) {
        col_start[i] = i;
        row[i] = i;
        row[M + i] = i;
    }
    col_start[M] = M;
    col_start[M + 1] = 2 * M;
    ok = ok && hydae_mode_set_jacobian_pattern(lags, col_start, row) == 0;

    hydae_chart *source = hydae_model_add_chart(m, "source");
    hydae_mode *high = hydae_chart_add_mode(source, "high");
    hydae_mode *low = hydae_chart_add_mode(source, "low");
    static const int64_t u_start[] = { 0, 1 }, u_row[] = { 0 };
    ok = ok && hydae_mode_add_var(high, "u", HYDAE_ALGEBRAIC, 1.0) == 0
         && hydae_mode_add_var(low, "u", HYDAE_ALGEBRAIC, 0.0) == 0
         && hydae_mode_set_residual(high, 1, source_high, NULL) == 0
         && hydae_mode_set_residual(low, 1, source_low, NULL) == 0
         && hydae_mode_set_jacobian_pattern(high, u_start, u_row) == 0
         && hydae_mode_set_jacobian_pattern(low, u_start, u_row) == 0;
    /* high -> low at HALF, 3 HALF, ...; low -> high at 2 HALF, 4 HALF, ... */
    hydae_transition *fall = hydae_chart_add_transition(source, "fall", high, low);
    hydae_transition *rise = hydae_chart_add_transition(source, "rise", low, high);
    ok = ok && fall && rise && hydae_transition_on_sample(fall, HALF, 2 * HALF) == 0
         && hydae_transition_on_sample(rise, 2 * HALF, 2 * HALF) == 0;
    if (!ok || hydae_model_check(m) != 0) { /* checked: its result columns are known */
        fprintf(stderr, "model: %s\n", hydae_model_errmsg(m));
        hydae_model_free(m);
        return NULL;
    }
    return m;
}

/* The closed form of x_i at t: u = 1 on [2j HALF, (2j+1) HALF), else 0. */
static double x_exact(int i, double t)
{
    double x = x_start(i);
    for (int j = 0; j <= N_SWITCHES && j * HALF < t; j++) {
        double u = j % 2 == 0 ? 1.0 : 0.0, end = fmin(t, (j + 1) * HALF);
        x = u + (x - u) * exp(-rate(i) * (end - j * HALF));
    }
    return x;
}

/* A run with `capacity` cache entries: its rows and statistics. */
static int run(hydae_model *m, int capacity, test_rows *rows, hydae_stats *stats)
{
    int status;
    test_rows_init(rows, m);
    memset(stats, 0, sizeof *stats);
    hydae_sim *s = hydae_sim_create(m, &status);
    if (!s)
        return status ? status : -1;
    s->config_cache_capacity = capacity; /* internal (sim.h) */
    status = hydae_sim_set_time(s, 0.0, (N_SWITCHES + 0.5) * HALF);
    if (!status)
        status = hydae_sim_set_output_interval(s, HALF / 4);
    if (!status)
        status = hydae_sim_set_tolerances(s, 1e-9, 1e-11);
    if (!status && hy_ls_available(HY_LS_KLU))
        status = hydae_sim_set_option(s, "linear_solver", "klu");
    if (!status)
        status = hydae_sim_add_row_sink(s, test_rows_sink, rows);
    if (!status)
        status = hydae_sim_run(s);
    if (status)
        fprintf(stderr, "run (cache of %d): %s\n", capacity, hydae_sim_errmsg(s));
    hydae_sim_get_stats(s, stats);
    hydae_sim_free(s);
    return status;
}

static int same_rows(const test_rows *a, const test_rows *b)
{
    if (a->n_rows != b->n_rows || a->n_columns != b->n_columns)
        return 0;
    size_t count = (size_t)a->n_rows * (size_t)a->n_columns;
    return memcmp(a->t, b->t, sizeof(double) * (size_t)a->n_rows) == 0
           && memcmp(a->values, b->values, sizeof(double) * count) == 0;
}

int main(void)
{
    hydae_model *m = toggling_model();
    CHECK(m != NULL, "the model");
    if (!m)
        return CHECK_DONE();
    long analyses_each = hy_ls_available(HY_LS_KLU) ? 1 : 0;

    /* Cached: each of the two configurations once, for the integrator's
    ** iteration matrix and for consistent initialisation: 4. */
    test_rows cached;
    hydae_stats st;
    CHECK(run(m, HY_CONFIG_CACHE_SIZE, &cached, &st) == 0, "the cached run");
    CHECK(st.n_mode_switches == N_SWITCHES, "%ld mode switches, want %d", st.n_mode_switches,
          N_SWITCHES);
    CHECK(st.n_configurations == N_SWITCHES + 1 && st.n_config_cache_hits == N_SWITCHES - 1,
          "%ld configurations entered, %ld cache hits; want %d and %d", st.n_configurations,
          st.n_config_cache_hits, N_SWITCHES + 1, N_SWITCHES - 1);
    CHECK(st.n_colorings == 2 * 2, "cached: %ld colourings, want 4 (2 configurations x "
          "iteration matrix and initialisation)", st.n_colorings);
    CHECK(st.n_symbolic_analyses == 2 * 2 * analyses_each, "cached: %ld KLU analyses, want %ld",
          st.n_symbolic_analyses, 4 * analyses_each);
    printf("cached: %ld switches, %ld colourings, %ld analyses\n", st.n_mode_switches,
           st.n_colorings, st.n_symbolic_analyses);

    /* Against the closed form at every row. */
    double worst = 0.0;
    int columns[M];
    for (int i = 0; i < M; i++) {
        char name[16];
        snprintf(name, sizeof name, "x%d", i);
        columns[i] = test_column(m, name);
    }
    for (int r = 0; r < cached.n_rows; r++)
        for (int i = 0; i < M; i++) {
            double x = cached.values[(size_t)r * (size_t)cached.n_columns + (size_t)columns[i]];
            worst = test_worse(worst, fabs(x - x_exact(i, cached.t[r])));
        }
    CHECK(cached.n_rows > 4 * N_SWITCHES && worst <= 1e-7,
          "%d rows, worst |x - closed form| %.3g (bound 1e-7)", cached.n_rows, worst);
    printf("worst error against the closed form: %.3g over %d rows\n", worst, cached.n_rows);

    /* Nothing cached, and one entry (each switch evicts the configuration
    ** the integrator still holds): the work on every entry, the same
    ** numbers to the bit. */
    static const int capacities[] = { 0, 1 };
    for (int c = 0; c < 2; c++) {
        test_rows rows;
        hydae_stats sc;
        CHECK(run(m, capacities[c], &rows, &sc) == 0, "the run with %d entries", capacities[c]);
        long entered = N_SWITCHES + 1;
        CHECK(sc.n_configurations == entered && sc.n_config_cache_hits == 0,
              "%d entries: %ld configurations, %ld hits", capacities[c], sc.n_configurations,
              sc.n_config_cache_hits);
        CHECK(sc.n_colorings == 2 * entered
                  && sc.n_symbolic_analyses == 2 * entered * analyses_each,
              "%d entries: %ld colourings, %ld analyses; want %ld, %ld", capacities[c],
              sc.n_colorings, sc.n_symbolic_analyses, 2 * entered, 2 * entered * analyses_each);
        CHECK(same_rows(&cached, &rows), "%d entries: results differ from the cached run's",
              capacities[c]);
        test_rows_free(&rows);
    }
    test_rows_free(&cached);
    hydae_model_free(m);
    return CHECK_DONE();
}
