/*
** Mechanical modes through the simulator (hydae_mode_set_mechanics,
** src/sim/mechanics.c): the formulation chosen by dae_index and the
** integrator (I3, SI1, ODE form), checked against independent solutions.
**
**  1. Cash's pendulum (m = g = L = 1) let go at rest from the horizontal:
**     the energy (vx^2 + vy^2)/2 + y = 0 and the multiplier of Phi =
**     (x^2 + y^2 - 1)/2, lambda = T / L = 3 m g cos(phi) = -3 y (tension
**     from the energy), hold along the run; x(t) against the angle ODE
**     phi'' = -sin(phi) integrated here by classical RK4 with tiny steps.
**  2. The string pendulum with `bound` in Cartesian coordinates
**     (examples/string_pendulum.c) against the angle form: the same four
**     switch times and the same x(t), y(t).
**  3. A mechanical chart next to a chart with an algebraic equation (the
**     consistent initialisation leaves the mechanical block alone).
**  4. Bad input: wrong variables, unreachable constraints.
*/
#include "check.h"
#include "examples.h"
#include "rows.h"

#include <math.h>
#include <string.h>

/* ---- Cash's pendulum as a mechanical mode ---- */

static int pend_mass(double t, const double *q, const double *p, double *mass, void *user)
{
    (void)t, (void)q, (void)p, (void)user;
    mass[0] = mass[3] = 1.0;
    mass[1] = mass[2] = 0.0;
    return 0;
}

static int pend_force(double t, const double *q, const double *u, const double *p, double *f,
                      void *user)
{
    (void)t, (void)q, (void)u, (void)p, (void)user;
    f[0] = 0.0;
    f[1] = -1.0;
    return 0;
}

static int pend_phi(double t, const double *q, const double *p, double *phi, void *user)
{
    (void)t, (void)p, (void)user;
    phi[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - 1.0);
    return 0;
}

static int pend_g(double t, const double *q, const double *p, double *g, void *user)
{
    (void)t, (void)p, (void)user;
    g[0] = q[0];
    g[1] = q[1];
    return 0;
}

static int pend_gamma(double t, const double *q, const double *u, const double *p,
                      double *gamma, void *user)
{
    (void)t, (void)q, (void)p, (void)user;
    gamma[0] = -(u[0] * u[0] + u[1] * u[1]);
    return 0;
}

/* An unreachable constraint: x^2 + y^2 + 1 = 0. */
static int bad_phi(double t, const double *q, const double *p, double *phi, void *user)
{
    (void)t, (void)p, (void)user;
    phi[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] + 1.0);
    return 0;
}

static const hydae_mechanics pendulum_mech = {
    .n_q = 2, .n_c = 1, .mass = pend_mass, .force = pend_force, .constraint = pend_phi,
    .constraint_jac = pend_g, .constraint_t = NULL, .accel_rhs = pend_gamma,
    .multiplier_matrix = NULL,
};

/* A second chart: z' = -z, w = 2 z (w algebraic). */
static int decay_residual(double t, const double *y, const double *yp, const double *p,
                          double *res, void *user)
{
    (void)t, (void)p, (void)user;
    res[0] = yp[0] + y[0];
    res[1] = y[1] - 2.0 * y[0];
    return 0;
}

/* The pendulum model; with_decay adds the second chart, mech (if not NULL)
** replaces the pendulum's mechanics, x0 its start. */
static hydae_model *pendulum_model(int with_decay, const hydae_mechanics *mech, double x0)
{
    hydae_model *m = hydae_model_create("pendulum");
    hydae_chart *c = hydae_model_add_chart(m, "arm");
    hydae_mode *mode = hydae_chart_add_mode(c, "swing");
    int ok = mode && hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, x0) == 0
             && hydae_mode_add_var(mode, "y", HYDAE_DIFFERENTIAL, 0.0) == 1
             && hydae_mode_add_var(mode, "vx", HYDAE_VELOCITY, 0.0) == 2
             && hydae_mode_add_var(mode, "vy", HYDAE_VELOCITY, 0.0) == 3
             && hydae_mode_add_var(mode, "lambda", HYDAE_MULTIPLIER, 0.0) == 4
             && hydae_mode_set_mechanics(mode, mech ? mech : &pendulum_mech, NULL) == 0;
    if (ok && with_decay) {
        hydae_chart *c2 = hydae_model_add_chart(m, "other");
        hydae_mode *decay = hydae_chart_add_mode(c2, "decay");
        ok = decay && hydae_mode_add_var(decay, "z", HYDAE_DIFFERENTIAL, 1.0) == 0
             && hydae_mode_add_var(decay, "w", HYDAE_ALGEBRAIC, 0.0) == 1
             && hydae_mode_set_residual(decay, 2, decay_residual, NULL) == 0;
    }
    CHECK(ok, "building the pendulum model");
    return m;
}

typedef struct method {
    const char *label, *integrator, *dae_index;
} method;

static const method methods[] = {
    { "I3", "DSTIFF", "3" },     { "SI1", "DSTIFF", "1" },  { "ODE/VSTIFF", "VSTIFF", "3" },
    { "ODE/MSTIFF", "MSTIFF", "3" }, { "ODE/ABAM", "ABAM", "3" }, { "ODE/RK45", "RK45", "3" },
};
enum { N_METHODS = sizeof methods / sizeof methods[0] };

static int is_ode_form(const method *me)
{
    return strcmp(me->integrator, "DSTIFF") != 0;
}

/* Run m with the method at rtol/atol; rows into r. */
static int run(hydae_model *m, const method *me, double t_end, double dt, double rtol,
               double atol, test_rows *r, hydae_stats *st, char *msg, size_t msg_len)
{
    int status;
    hydae_sim *s = hydae_sim_create(m, &status);
    if (!s) {
        snprintf(msg, msg_len, "%s", hydae_model_errmsg(m));
        return status;
    }
    test_rows_init(r, m);
    status = hydae_sim_set_time(s, 0.0, t_end);
    status |= hydae_sim_set_output_interval(s, dt);
    status |= hydae_sim_set_tolerances(s, rtol, atol);
    status |= hydae_sim_set_integrator(s, me->integrator);
    status |= hydae_sim_set_option(s, "dae_index", me->dae_index);
    status |= hydae_sim_add_row_sink(s, test_rows_sink, r);
    if (status == 0)
        status = hydae_sim_run(s);
    hydae_sim_get_stats(s, st);
    snprintf(msg, msg_len, "%s", hydae_sim_errmsg(s));
    hydae_sim_free(s);
    return status;
}

/* phi'' = -sin(phi), phi from the downward vertical, by classical RK4
** with n steps over [0, t]; phi(0) = pi/2, phi'(0) = 0. */
static void angle_rk4(double t, int n, double *phi_out)
{
    double phi = 2.0 * atan(1.0), omega = 0.0, h = t / n;
    for (int k = 0; k < n; k++) {
        double k1p = omega, k1w = -sin(phi);
        double k2p = omega + 0.5 * h * k1w, k2w = -sin(phi + 0.5 * h * k1p);
        double k3p = omega + 0.5 * h * k2w, k3w = -sin(phi + 0.5 * h * k2p);
        double k4p = omega + h * k3w, k4w = -sin(phi + h * k3p);
        phi += h / 6.0 * (k1p + 2.0 * k2p + 2.0 * k3p + k4p);
        omega += h / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w);
    }
    *phi_out = phi;
}

static void test_pendulum(void)
{
    /* Asserted bounds at rtol 1e-8, atol 1e-10 (measured, in the order of
    ** methods[]: see the printout): position error against RK4, energy
    ** error, |lambda + 3 y|. I3 tests q only and its velocities carry the
    ** O(h^k) errors of index-2 variables (docs/mechanics.md). */
    static const double pos_bound[N_METHODS] = { 5e-5, 2e-6, 2e-6, 2e-6, 2e-6, 2e-6 };
    static const double energy_bound[N_METHODS] = { 5e-4, 2e-6, 2e-6, 2e-6, 2e-6, 2e-6 };
    double t_end = 3.0;
    for (int k = 0; k < N_METHODS; k++) {
        const method *me = &methods[k];
        hydae_model *m = pendulum_model(0, NULL, 1.0);
        test_rows r;
        hydae_stats st;
        char msg[1024];
        int status = run(m, me, t_end, 0.1, 1e-8, 1e-10, &r, &st, msg, sizeof msg);
        CHECK(status == 0, "pendulum %s: %s", me->label, msg);
        int cx = test_column(m, "x"), cy = test_column(m, "y"), cvx = test_column(m, "vx");
        int cvy = test_column(m, "vy"), cl = test_column(m, "lambda");
        double pos_err = 0.0, energy_err = 0.0, lambda_err = 0.0;
        for (int i = 0; i < r.n_rows; i++) {
            double x = test_value(&r, i, cx), y = test_value(&r, i, cy);
            double vx = test_value(&r, i, cvx), vy = test_value(&r, i, cvy);
            double phi;
            angle_rk4(r.t[i], 2000, &phi);
            pos_err = fmax(pos_err, fmax(fabs(x - sin(phi)), fabs(y + cos(phi))));
            energy_err = fmax(energy_err, fabs(0.5 * (vx * vx + vy * vy) + y));
            lambda_err = fmax(lambda_err, fabs(test_value(&r, i, cl) + 3.0 * y));
        }
        printf("pendulum %-10s rows %4d steps %5ld  |x - x_rk4| %.2e  energy %.2e  "
               "|lambda + 3y| %.2e  max|Phi| %.2e  partitions %ld\n",
               me->label, r.n_rows, st.n_steps, pos_err, energy_err, lambda_err,
               st.max_constraint_violation, st.n_partitions);
        CHECK(r.n_rows >= 31, "pendulum %s: %d rows", me->label, r.n_rows);
        CHECK(pos_err <= pos_bound[k], "pendulum %s: position error %.3g > %.3g", me->label,
              pos_err, pos_bound[k]);
        CHECK(energy_err <= energy_bound[k], "pendulum %s: energy error %.3g", me->label,
              energy_err);
        /* lambda is solved from the index-1 system at (q, u): as good as u. */
        CHECK(lambda_err <= 3.0 * energy_bound[k], "pendulum %s: |lambda + 3 y| %.3g",
              me->label, lambda_err);
        CHECK(st.max_constraint_violation > 0.0 && st.max_constraint_violation <= 1e-7,
              "pendulum %s: max constraint violation %.3g", me->label,
              st.max_constraint_violation);
        if (is_ode_form(me))
            CHECK(st.max_constraint_violation <= 1.01e-10 && st.n_partitions >= 2,
                  "pendulum %s: ODE form at dae_constr_tol 1e-10 (%.3g), partitions %ld "
                  "(x and y trade places at the bottom)",
                  me->label, st.max_constraint_violation, st.n_partitions);
        else
            CHECK(st.n_partitions == 0, "pendulum %s: no partitions", me->label);
        test_rows_free(&r);
        hydae_model_free(m);
    }
}

/* ---- the string pendulum, angle form against Cartesian ---- */

typedef struct trajectory {
    int n_events;
    double t_event[8];
    test_rows rows;
    int cx, cy;
} trajectory;

static int string_run(int cartesian, const method *me, double rtol, trajectory *tr,
                      hydae_model **mp)
{
    hydae_model *m = cartesian ? example_string_pendulum_cartesian() : example_string_pendulum();
    hydae_stats st;
    char msg[1024];
    int status = run(m, me, 3.0, 0.01, rtol, rtol * 1e-2, &tr->rows, &st, msg, sizeof msg);
    CHECK(status == 0, "string pendulum (%s) %s: %s", cartesian ? "Cartesian" : "angle",
          me->label, msg);
    tr->n_events = 0;
    for (int i = 0; i < tr->rows.n_rows; i++)
        if (tr->rows.kind[i] == HYDAE_ROW_EVENT_LEFT && tr->n_events < 8)
            tr->t_event[tr->n_events++] = tr->rows.t[i];
    tr->cx = test_column(m, "x");
    tr->cy = test_column(m, "y");
    if (cartesian)
        CHECK(st.max_constraint_violation <= 1e-7, "string pendulum %s: max |Phi| %.3g",
              me->label, st.max_constraint_violation);
    *mp = m;
    return status;
}

static void test_string_pendulum(void)
{
    /* The angle form at tight tolerance is the reference. */
    static const method dstiff = { "angle", "DSTIFF", "3" };
    trajectory ref;
    hydae_model *m_ref;
    string_run(0, &dstiff, 1e-11, &ref, &m_ref);
    CHECK(ref.n_events == 4, "angle form: %d switches, want 4", ref.n_events);
    /* Bounds at rtol 1e-8 (measured: I3 9.2e-5 in t, 2.3e-4 in x; SI1
    ** 5.6e-8, 2.6e-7; ODE forms <= 4.4e-7, 2.6e-6). */
    for (int k = 0; k < N_METHODS; k++) {
        const method *me = &methods[k];
        double t_bound = k == 0 ? 3e-4 : 3e-6, x_bound = k == 0 ? 1e-3 : 1e-5;
        trajectory tr;
        hydae_model *m;
        string_run(1, me, 1e-8, &tr, &m);
        CHECK(tr.n_events == ref.n_events, "Cartesian %s: %d switches, the angle form %d",
              me->label, tr.n_events, ref.n_events);
        double dt_max = 0.0, dx_max = 0.0;
        for (int e = 0; e < tr.n_events && e < ref.n_events; e++)
            dt_max = fmax(dt_max, fabs(tr.t_event[e] - ref.t_event[e]));
        /* Grid rows at equal times (rows at events excluded). */
        int j = 0;
        for (int i = 0; i < tr.rows.n_rows; i++) {
            if (tr.rows.kind[i] != HYDAE_ROW_GRID)
                continue;
            while (j < ref.rows.n_rows
                   && (ref.rows.kind[j] != HYDAE_ROW_GRID || ref.rows.t[j] < tr.rows.t[i]))
                j++;
            if (j < ref.rows.n_rows && ref.rows.t[j] == tr.rows.t[i])
                dx_max = fmax(dx_max,
                              fmax(fabs(test_value(&tr.rows, i, tr.cx)
                                        - test_value(&ref.rows, j, ref.cx)),
                                   fabs(test_value(&tr.rows, i, tr.cy)
                                        - test_value(&ref.rows, j, ref.cy))));
        }
        printf("string pendulum Cartesian %-10s switches %d  max |dt_switch| %.2e  "
               "max |dx| %.2e\n", me->label, tr.n_events, dt_max, dx_max);
        CHECK(dt_max <= t_bound, "Cartesian %s: switch times differ by %.3g > %.3g", me->label,
              dt_max, t_bound);
        CHECK(dx_max > 0.0 && dx_max <= x_bound, "Cartesian %s: x, y differ by %.3g > %.3g",
              me->label, dx_max, x_bound);
        test_rows_free(&tr.rows);
        hydae_model_free(m);
    }
    test_rows_free(&ref.rows);
    hydae_model_free(m_ref);
}

/* ---- a mechanical chart beside a DAE chart ---- */

static void test_two_charts(void)
{
    for (int k = 0; k < 2; k++) {
        const method *me = &methods[k];
        hydae_model *m = pendulum_model(1, NULL, 1.0);
        test_rows r;
        hydae_stats st;
        char msg[1024];
        int status = run(m, me, 1.0, 0.1, 1e-8, 1e-10, &r, &st, msg, sizeof msg);
        CHECK(status == 0, "two charts %s: %s", me->label, msg);
        int cz = test_column(m, "z"), cw = test_column(m, "w"), cy = test_column(m, "y");
        double err = 0.0;
        for (int i = 0; i < r.n_rows; i++) {
            double z = test_value(&r, i, cz);
            err = fmax(err, fmax(fabs(z - exp(-r.t[i])), fabs(test_value(&r, i, cw) - 2.0 * z)));
        }
        CHECK(r.n_rows > 0 && err <= 1e-6, "two charts %s: z, w error %.3g", me->label, err);
        double phi_end;
        angle_rk4(1.0, 1000, &phi_end);
        CHECK(r.n_rows > 0 && fabs(test_value(&r, r.n_rows - 1, cy) + cos(phi_end)) <= 1e-4,
              "two charts %s: y(1) = %.10g, RK4 %.10g", me->label,
              r.n_rows > 0 ? test_value(&r, r.n_rows - 1, cy) : NAN, -cos(phi_end));
        test_rows_free(&r);
        hydae_model_free(m);
    }
}

/* ---- bad input ---- */

static void test_bad_input(void)
{
    int status;
    /* Too few variables. */
    hydae_model *m = hydae_model_create("short");
    hydae_mode *mode = hydae_chart_add_mode(hydae_model_add_chart(m, "c"), "swing");
    CHECK(hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
              && hydae_mode_add_var(mode, "y", HYDAE_DIFFERENTIAL, 0.0) == 1
              && hydae_mode_set_mechanics(mode, &pendulum_mech, NULL) == 0,
          "building 'short'");
    CHECK(hydae_sim_create(m, &status) == NULL && status == HYDAE_ERR_MODEL
              && strstr(hydae_model_errmsg(m), "needs 5 variables") != NULL,
          "2 variables for n_q = 2, n_c = 1: %s", hydae_model_errmsg(m));
    hydae_model_free(m);

    /* A multiplier declared as a velocity. */
    m = hydae_model_create("kinds");
    mode = hydae_chart_add_mode(hydae_model_add_chart(m, "c"), "swing");
    CHECK(hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 1.0) == 0
              && hydae_mode_add_var(mode, "y", HYDAE_DIFFERENTIAL, 0.0) == 1
              && hydae_mode_add_var(mode, "vx", HYDAE_VELOCITY, 0.0) == 2
              && hydae_mode_add_var(mode, "vy", HYDAE_VELOCITY, 0.0) == 3
              && hydae_mode_add_var(mode, "lambda", HYDAE_VELOCITY, 0.0) == 4
              && hydae_mode_set_mechanics(mode, &pendulum_mech, NULL) == 0,
          "building 'kinds'");
    CHECK(hydae_sim_create(m, &status) == NULL
              && strstr(hydae_model_errmsg(m), "'lambda' must be a multiplier") != NULL,
          "lambda as a velocity: %s", hydae_model_errmsg(m));
    hydae_model_free(m);

    /* Bad counts at the call. */
    m = hydae_model_create("counts");
    mode = hydae_chart_add_mode(hydae_model_add_chart(m, "c"), "swing");
    hydae_mechanics wrong = pendulum_mech;
    wrong.n_c = 2;
    CHECK(hydae_mode_set_mechanics(mode, &wrong, NULL) == HYDAE_ERR_ARG
              && strstr(hydae_model_errmsg(m), "n_c < n_q") != NULL,
          "n_c = n_q refused: %s", hydae_model_errmsg(m));
    hydae_model_free(m);

    /* Constraints no position satisfies: a message naming the mode, at t0,
    ** in every formulation. */
    hydae_mechanics unreachable = pendulum_mech;
    unreachable.constraint = bad_phi;
    for (int k = 0; k < N_METHODS; k++) {
        m = pendulum_model(0, &unreachable, 1.0);
        test_rows r;
        hydae_stats st;
        char msg[1024];
        status = run(m, &methods[k], 1.0, 0.1, 1e-8, 1e-10, &r, &st, msg, sizeof msg);
        CHECK(status == HYDAE_ERR_INIT && strstr(msg, "mode 'swing'") != NULL
                  && strstr(msg, "t = 0") != NULL && strstr(msg, "constraints") != NULL,
              "unreachable constraint, %s: status %d, %s", methods[k].label, status, msg);
        test_rows_free(&r);
        hydae_model_free(m);
    }

    /* Inconsistent start values are projected: x0 = 2 is brought to the
    ** circle (x = 1 at y = 0). */
    m = pendulum_model(0, NULL, 2.0);
    test_rows r;
    hydae_stats st;
    char msg[1024];
    status = run(m, &methods[1], 0.5, 0.1, 1e-8, 1e-10, &r, &st, msg, sizeof msg);
    CHECK(status == 0 && r.n_rows > 0
              && fabs(test_value(&r, 0, test_column(m, "x")) - 1.0) <= 1e-10,
          "projected start: status %d, x(0) = %.17g", status,
          r.n_rows > 0 ? test_value(&r, 0, test_column(m, "x")) : NAN);
    test_rows_free(&r);
    hydae_model_free(m);
}

int main(void)
{
    test_pendulum();
    test_string_pendulum();
    test_two_charts();
    test_bad_input();
    return CHECK_DONE();
}
