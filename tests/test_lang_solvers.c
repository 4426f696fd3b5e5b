/*
** Model files whose modes are explicit ODEs (der(x) = f for every unknown)
** are compiled as right-hand sides, so every integrator runs them:
** examples/bouncing_ball.hym and examples/relay.hym with each of DSTIFF,
** VSTIFF, MSTIFF, ABAM, RK45 and RK4 give the same event times.
**  - the bouncing ball's impacts against the closed form: first at
**    t1 = sqrt(2 h0 / g), then every 2 e^k v1 / g later (v1 = g t1);
**  - the relay's switching times against DSTIFF's.
** Tolerance: event times within 1e-6 (1 + t) at rtol 1e-10, atol 1e-12;
** RK4 (fixed step h_max = 1e-3, local error O(h^5) = 1e-15 per step) is
** held to the same bound. A mode with an algebraic unknown is refused by
** RK45 with a message naming the mode.
*/
#include "check.h"
#include "lang/lang.h"
#include "lang/lang_test_util.h"
#include "rows.h"

#include <math.h>

enum { MAX_EVENTS = 64 };

static char source_dir[1024];

typedef struct event_times {
    int n;
    double t[MAX_EVENTS];
} event_times;

static hydae_model *compile_example(const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/examples/%s.hym", source_dir, name);
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_file(path, stderr, NULL, &n_errors);
    CHECK(unit != NULL, "%s.hym: %d errors", name, n_errors);
    return hy_lang_unit_model(unit);
}

/* The times of the right-limit rows (one per event instant). */
static int run(const char *name, const char *integrator, double t_end, event_times *events,
               char *message, size_t message_size)
{
    hydae_model *m = compile_example(name);
    if (!m)
        return -1;
    int status;
    test_rows rows;
    test_rows_init(&rows, m);
    hydae_sim *s = hydae_sim_create(m, &status);
    CHECK(s != NULL, "create: %s", hydae_model_errmsg(m));
    if (!s) {
        hydae_model_free(m);
        return -1;
    }
    CHECK(hydae_sim_set_integrator(s, integrator) == 0 && hydae_sim_set_time(s, 0.0, t_end) == 0
              && hydae_sim_set_output_interval(s, 0.05) == 0
              && hydae_sim_set_tolerances(s, 1e-10, 1e-12) == 0
              && hydae_sim_add_row_sink(s, test_rows_sink, &rows) == 0,
          "%s settings", integrator);
    if (strcmp(integrator, "RK4") == 0)
        CHECK(hydae_sim_set_option(s, "h_max", "1e-3") == 0, "RK4 h_max");
    status = hydae_sim_run(s);
    if (message)
        snprintf(message, message_size, "%s", hydae_sim_errmsg(s));
    events->n = 0;
    for (int i = 0; i < rows.n_rows; i++)
        if (rows.kind[i] == HYDAE_ROW_EVENT_RIGHT && events->n < MAX_EVENTS)
            events->t[events->n++] = rows.t[i];
    test_rows_free(&rows);
    hydae_sim_free(s);
    hydae_model_free(m);
    return status;
}

static const char *const integrators[] = { "DSTIFF", "VSTIFF", "MSTIFF", "ABAM", "RK45", "RK4" };
enum { N_INTEGRATORS = sizeof integrators / sizeof integrators[0] };

static double compare(const char *name, const char *integrator, const event_times *got,
                      const event_times *want)
{
    CHECK(got->n == want->n, "%s with %s: %d events, want %d", name, integrator, got->n, want->n);
    double worst = 0.0;
    for (int k = 0; k < got->n && k < want->n; k++) {
        double err = fabs(got->t[k] - want->t[k]) / (1.0 + fabs(want->t[k]));
        CHECK(err <= 1e-6, "%s with %s: event %d at t = %.12g, want %.12g", name, integrator, k,
              got->t[k], want->t[k]);
        worst = fmax(worst, err);
    }
    return worst;
}

static void bouncing_ball(void)
{
    const double g = 9.81, e = 0.8, h0 = 1.0, t_end = 3.5;
    event_times exact = { 0, { 0 } };
    double t = sqrt(2.0 * h0 / g), v = g * t;
    while (t < t_end && exact.n < MAX_EVENTS) {
        exact.t[exact.n++] = t;
        v *= e;
        t += 2.0 * v / g;
    }
    for (int i = 0; i < N_INTEGRATORS; i++) {
        event_times got;
        int status = run("bouncing_ball", integrators[i], t_end, &got, NULL, 0);
        CHECK(status == 0, "bouncing_ball with %s: status %d", integrators[i], status);
        double worst = compare("bouncing_ball", integrators[i], &got, &exact);
        printf("bouncing_ball %-6s %2d impacts, largest difference from the closed form %.2g\n",
               integrators[i], got.n, worst);
    }
}

static void relay(void)
{
    event_times reference;
    int status = run("relay", "DSTIFF", 10.0, &reference, NULL, 0);
    CHECK(status == 0 && reference.n >= 5, "relay with DSTIFF: status %d, %d events", status,
          reference.n);
    for (int i = 1; i < N_INTEGRATORS; i++) {
        event_times got;
        status = run("relay", integrators[i], 10.0, &got, NULL, 0);
        CHECK(status == 0, "relay with %s: status %d", integrators[i], status);
        double worst = compare("relay", integrators[i], &got, &reference);
        printf("relay         %-6s %2d switches, largest difference from DSTIFF %.2g\n",
               integrators[i], got.n, worst);
    }
}

static void algebraic_mode_refused(void)
{
    event_times got;
    char message[512] = "";
    int status = run("algebraic_loop", "RK45", 1.0, &got, message, sizeof message);
    CHECK(status != 0, "algebraic_loop with RK45 ran");
    CHECK(strstr(message, "closed_loop") != NULL && strstr(message, "RK45") != NULL,
          "the refusal names neither the mode nor the integrator: %s", message);
    printf("algebraic_loop RK45: %s\n", message);
}

int main(void)
{
    lang_test_source_dir(source_dir, sizeof source_dir);
    bouncing_ball();
    relay();
    algebraic_mode_refused();
    return CHECK_DONE();
}
