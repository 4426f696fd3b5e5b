/*
** Every failure of a run surfaces with its true category (issue 12, item
** 5), through the public API:
**  - a residual that fails at t0 stops consistent initialisation with
**    HYDAE_ERR_RESIDUAL;
**  - a configuration without states whose residual is NaN a moment after
**    t0: the start of its integration (y' by F_y y' = -F_t, a difference
**    in t) meets the residual, HYDAE_ERR_RESIDUAL (it was HYDAE_ERR_ARG,
**    "refused the tolerances");
**  - out of memory anywhere in hydae_sim_create and hydae_sim_run, with
**    DSTIFF and with VSTIFF (whose init sets up its linear solver) on a
**    model with a sparse pattern and events: HYDAE_ERR_NOMEM, for every
**    allocation failed in turn (integrator set-up failures were
**    HYDAE_ERR_ARG).
*/
#include "check.h"
#include "hydae.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- an allocator that fails the N-th allocation when armed ---- */

static long n_allocations, fail_at = -1;

static void *counting_alloc(void *ud, void *ptr, size_t new_size)
{
    (void)ud;
    if (new_size == 0) {
        free(ptr);
        return NULL;
    }
    if (fail_at >= 0 && n_allocations++ == fail_at)
        return NULL;
    return realloc(ptr, new_size);
}

/* ---- models ---- */

/* 0 = x - 1 at t0 = 0; an error (or NaN) elsewhere, as the user says. */
static int fails_after_t0(double t, const double *y, const double *yp, const double *p,
                          double *res, void *user)
{
    (void)yp;
    (void)p;
    int nan_instead = *(const int *)user;
    if (t == 0.0) {
        res[0] = y[0] - 1.0;
        return 0;
    }
    if (nan_instead) {
        res[0] = NAN;
        return 0;
    }
    return -1;
}

static int fails_always(double t, const double *y, const double *yp, const double *p,
                        double *res, void *user)
{
    (void)t;
    (void)y;
    (void)yp;
    (void)p;
    (void)user;
    res[0] = 0.0;
    return -1;
}

static hydae_model *one_algebraic_mode(hydae_residual_fn fn, void *user, int differential)
{
    hydae_model *m = hydae_model_create("categories");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *mode = hydae_chart_add_mode(c, "only");
    CHECK(hydae_mode_add_var(mode, "x", differential ? HYDAE_DIFFERENTIAL : HYDAE_ALGEBRAIC,
                             1.0) == 0
              && hydae_mode_set_residual(mode, 1, fn, user) == 0,
          "model");
    return m;
}

/* A damped oscillator x' = v, v' = -x - 0.1 v with a guard x = 0.5 that
** restarts it (an event), its Jacobian's pattern given (a sparse path). */
static int oscillator(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)p;
    (void)user;
    ydot[0] = y[1];
    ydot[1] = -y[0] - 0.1 * y[1];
    return 0;
}

static int crossing(double t, const double *y, const double *yp, const double *p, double *g,
                    void *user)
{
    (void)t;
    (void)yp;
    (void)p;
    (void)user;
    g[0] = y[0] - 0.5;
    return 0;
}

static hydae_model *oscillator_model(void)
{
    static const int64_t col_start[] = { 0, 2, 4 };
    static const int64_t row[] = { 0, 1, 0, 1 };
    hydae_model *m = hydae_model_create("oscillator");
    hydae_chart *c = hydae_model_add_chart(m, "c");
    hydae_mode *mode = hydae_chart_add_mode(c, "swing");
    hydae_transition *tr = hydae_chart_add_transition(c, "pass", mode, mode);
    CHECK(hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
              && hydae_mode_add_var(mode, "v", HYDAE_DIFFERENTIAL, 0.0) == 1
              && hydae_mode_set_rhs(mode, oscillator, NULL) == 0
              && hydae_mode_set_jacobian_pattern(mode, col_start, row) == 0
              && hydae_mode_set_guards(mode, 1, crossing) == 0 && tr
              && hydae_transition_on_guard(tr, 0, HYDAE_BOTH) == 0,
          "oscillator model");
    return m;
}

/* ---- the checks ---- */

static int run_status(hydae_model *m, const char *integrator, char *message, size_t size)
{
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    if (!s)
        return status;
    status = hydae_sim_set_time(s, 0.0, 6.0);
    if (!status && integrator)
        status = hydae_sim_set_integrator(s, integrator);
    if (!status)
        status = hydae_sim_run(s);
    snprintf(message, size, "%s", hydae_sim_errmsg(s));
    hydae_sim_free(s);
    return status;
}

static void check_residual_categories(void)
{
    char message[1024];
    hydae_model *m = one_algebraic_mode(fails_always, NULL, 1);
    int status = run_status(m, NULL, message, sizeof message);
    CHECK(status == HYDAE_ERR_RESIDUAL, "residual failing at t0: %s (%d), want %s: %s",
          hydae_status_string(status), status, hydae_status_string(HYDAE_ERR_RESIDUAL),
          message);
    hydae_model_free(m);

    for (int nan_instead = 0; nan_instead <= 1; nan_instead++) {
        m = one_algebraic_mode(fails_after_t0, &nan_instead, 0);
        status = run_status(m, NULL, message, sizeof message);
        CHECK(status == HYDAE_ERR_RESIDUAL,
              "residual %s after t0 (no states): %s (%d), want %s: %s",
              nan_instead ? "NaN" : "failing", hydae_status_string(status), status,
              hydae_status_string(HYDAE_ERR_RESIDUAL), message);
        CHECK(strstr(message, "only") != NULL, "the message names the mode: %s", message);
        hydae_model_free(m);
    }
}

/* Fail allocation 0, 1, 2, ... of hydae_sim_create + hydae_sim_run until
** a run gets through: every failure is HYDAE_ERR_NOMEM. */
static void check_out_of_memory(const char *integrator)
{
    hydae_model *m = oscillator_model();
    char message[1024];
    int n_failures = 0, n_wrong = 0, status = -1;
    for (long k = 0; k < 100000; k++) {
        n_allocations = 0;
        fail_at = k;
        status = run_status(m, integrator, message, sizeof message);
        int reached = n_allocations > k;
        fail_at = -1;
        if (!reached) /* allocation k was never made: the run got through */
            break;
        n_failures++;
        if (status != HYDAE_ERR_NOMEM && n_wrong++ < 5)
            CHECK(0, "%s, allocation %ld failed: %s (%d), want %s: %s", integrator, k,
                  hydae_status_string(status), status, hydae_status_string(HYDAE_ERR_NOMEM),
                  message);
    }
    CHECK(status == 0, "%s: the run with no failed allocation: %s", integrator, message);
    CHECK(n_failures > 10 && n_wrong == 0, "%s: %d of %d failed allocations not reported as "
          "out of memory", integrator, n_wrong, n_failures);
    printf("%s: %d allocations failed in turn, each HYDAE_ERR_NOMEM: %s\n", integrator,
           n_failures, n_wrong == 0 ? "yes" : "no");
    hydae_model_free(m);
}

int main(void)
{
    hydae_set_allocator(counting_alloc, NULL);
    check_residual_categories();
    check_out_of_memory("DSTIFF");
    check_out_of_memory("VSTIFF");
    hydae_set_allocator(NULL, NULL);
    return CHECK_DONE();
}
