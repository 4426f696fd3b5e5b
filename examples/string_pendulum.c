/*
** String pendulum (Enge-Rosenblatt, Bastian, Clauss, Schwarz, "Numerical
** simulation of continuous systems with structural dynamics", sec. 5,
** Figs. 9-15): a point mass on a thread of length L. Two modes of
** different size:
**   bound: the thread is taut; unknowns phi, omega (= phi'), written as a
**          residual F(t, y, y') = 0 with an analytic Jacobian:
**            phi' = omega,  omega' = -(g/L) sin(phi) - kappa omega.
**          Outputs x = L sin(phi), y = -L cos(phi), the thread force
**          F = m (L omega^2 + g cos(phi)) and r = L.
**   free:  the thread is slack; unknowns x, y, vx, vy, an explicit ODE:
**            x'' = -(k/m) x',  y'' = -g - (k/m) y'.
**          Outputs phi = atan2(x, -y), omega, r = sqrt(x^2 + y^2), F = 0.
** Transitions: `unstretch` bound -> free when F falls below 0 (positions
** and velocities from phi, omega); `stretch` free -> bound when r reaches
** L (the radial velocity is lost: phi and omega from x, y, vx, vy).
**
** Parameters: m = 1 kg, L = 1 m, g = 9.81 m/s^2, kappa = 0.1 1/s (angular
** damping while bound), k = 0 kg/s (air drag while free). The mass starts
** at the rest position phi = 0 with omega = 5 rad/s (5 m/s in +x): between
** sqrt(2 g L) = 4.43 m/s (reaching the horizontal) and sqrt(5 g L) = 7 m/s
** (looping), so it swings past the horizontal until the thread goes slack
** (t = 0.4966 s, change 1), flies free and is caught again (t = 0.9665 s,
** change 2, losing the radial velocity); the same happens once more on the
** way back (t = 1.7960 s and 1.9512 s, changes 3 and 4); the energy lost at
** the catches and to kappa then leaves too little for a third slack phase,
** and the pendulum swings on, taut, with decreasing amplitude (Fig. 11).
** Exactly 4 changes for omega0 in [4.9, 5.1] and kappa in [0.08, 0.10].
**
** string_pendulum_cartesian: the same pendulum with `bound` written as a
** constrained mechanical system (hydae_mode_set_mechanics) in the free
** flight's own coordinates: positions x, y, velocities vx, vy and the
** multiplier lambda of Phi = (x^2 + y^2 - L^2) / 2 = 0,
**     m vx' = -m kappa vx - x lambda,   m vy' = -m g - m kappa vy - y lambda
** (the damping force -m kappa v is the angle form's -kappa omega: v is
** tangential on the circle). The thread force is F = lambda L. The values
** move by name; the simulator projects the velocity onto the circle when
** the thread catches the mass (the radial velocity is lost), so neither
** transition needs an action. It runs as I3 or SI1 with DSTIFF (dae_index)
** or in the ODE form with VSTIFF, MSTIFF, ABAM or RK45.
*/
#include "examples.h"

#include <math.h>

enum { P_M, P_L, P_G, P_KAPPA, P_K };

static int bound_residual(double t, const double *y, const double *yp, const double *p,
                          double *res, void *user)
{
    (void)t;
    (void)user;
    double phi = y[0], omega = y[1];
    res[0] = yp[0] - omega;
    res[1] = yp[1] + p[P_G] / p[P_L] * sin(phi) + p[P_KAPPA] * omega;
    return 0;
}

static int bound_jacobian(double t, double cj, const double *y, const double *yp,
                          const double *p, double *jac, void *user)
{
    (void)t;
    (void)yp;
    (void)user;
    jac[0 + 0 * 2] = cj;
    jac[1 + 0 * 2] = p[P_G] / p[P_L] * cos(y[0]);
    jac[0 + 1 * 2] = -1.0;
    jac[1 + 1 * 2] = cj + p[P_KAPPA];
    return 0;
}

static double thread_force(const double *y, const double *p)
{
    return p[P_M] * (p[P_L] * y[1] * y[1] + p[P_G] * cos(y[0]));
}

static int bound_guards(double t, const double *y, const double *yp, const double *p,
                        double *g, void *user)
{
    (void)t;
    (void)yp;
    (void)user;
    g[0] = thread_force(y, p);
    return 0;
}

/* Outputs of bound, in the order declared: x, y, F, r. */
static int bound_outputs(double t, const double *y, const double *yp, const double *p,
                         double *out, void *user)
{
    (void)t;
    (void)yp;
    (void)user;
    out[0] = p[P_L] * sin(y[0]);
    out[1] = -p[P_L] * cos(y[0]);
    out[2] = thread_force(y, p);
    out[3] = p[P_L];
    return 0;
}

static int free_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)user;
    double drag = p[P_K] / p[P_M];
    ydot[0] = y[2];
    ydot[1] = y[3];
    ydot[2] = -drag * y[2];
    ydot[3] = -p[P_G] - drag * y[3];
    return 0;
}

/* df/dy of the free flight, column-major 4 x 4. */
static int free_jacobian(double t, double cj, const double *y, const double *yp,
                         const double *p, double *jac, void *user)
{
    (void)t;
    (void)cj;
    (void)y;
    (void)yp;
    (void)user;
    double drag = p[P_K] / p[P_M];
    for (int i = 0; i < 16; i++)
        jac[i] = 0.0;
    jac[0 + 2 * 4] = 1.0;
    jac[1 + 3 * 4] = 1.0;
    jac[2 + 2 * 4] = -drag;
    jac[3 + 3 * 4] = -drag;
    return 0;
}

static int free_guards(double t, const double *y, const double *yp, const double *p,
                       double *g, void *user)
{
    (void)t;
    (void)yp;
    (void)user;
    g[0] = sqrt(y[0] * y[0] + y[1] * y[1]) - p[P_L];
    return 0;
}

/* Outputs of free, in the order declared: phi, omega, F, r. */
static int free_outputs(double t, const double *y, const double *yp, const double *p,
                        double *out, void *user)
{
    (void)t;
    (void)yp;
    (void)p;
    (void)user;
    double r2 = y[0] * y[0] + y[1] * y[1];
    out[0] = atan2(y[0], -y[1]);
    out[1] = (y[0] * y[3] - y[1] * y[2]) / r2;
    out[2] = 0.0;
    out[3] = sqrt(r2);
    return 0;
}

/* ---- bound as a constrained mechanical system (the Cartesian variant) ---- */

static int cart_mass(double t, const double *q, const double *p, double *mass, void *user)
{
    (void)t, (void)q, (void)user;
    mass[0] = mass[3] = p[P_M];
    mass[1] = mass[2] = 0.0;
    return 0;
}

static int cart_force(double t, const double *q, const double *u, const double *p, double *f,
                      void *user)
{
    (void)t, (void)q, (void)user;
    f[0] = -p[P_M] * p[P_KAPPA] * u[0];
    f[1] = -p[P_M] * p[P_G] - p[P_M] * p[P_KAPPA] * u[1];
    return 0;
}

static int cart_constraint(double t, const double *q, const double *p, double *phi, void *user)
{
    (void)t, (void)user;
    phi[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - p[P_L] * p[P_L]);
    return 0;
}

static int cart_constraint_jac(double t, const double *q, const double *p, double *g,
                               void *user)
{
    (void)t, (void)p, (void)user;
    g[0] = q[0];
    g[1] = q[1];
    return 0;
}

/* gamma = -(Phi_q u)_q u = -(vx^2 + vy^2). */
static int cart_accel_rhs(double t, const double *q, const double *u, const double *p,
                          double *gamma, void *user)
{
    (void)t, (void)q, (void)p, (void)user;
    gamma[0] = -(u[0] * u[0] + u[1] * u[1]);
    return 0;
}

/* y = (x, y, vx, vy, lambda): the thread force lambda L. */
static int cart_guards(double t, const double *y, const double *yp, const double *p, double *g,
                       void *user)
{
    (void)t, (void)yp, (void)user;
    g[0] = y[4] * p[P_L];
    return 0;
}

/* Outputs of the Cartesian bound: phi, omega, F, r. */
static int cart_outputs(double t, const double *y, const double *yp, const double *p,
                        double *out, void *user)
{
    (void)t, (void)yp, (void)user;
    double r2 = y[0] * y[0] + y[1] * y[1];
    out[0] = atan2(y[0], -y[1]);
    out[1] = (y[0] * y[3] - y[1] * y[2]) / r2;
    out[2] = y[4] * p[P_L];
    out[3] = sqrt(r2);
    return 0;
}

static int add_cartesian_bound(hydae_mode *bound)
{
    static const hydae_mechanics mech = {
        .n_q = 2, .n_c = 1, .mass = cart_mass, .force = cart_force,
        .constraint = cart_constraint, .constraint_jac = cart_constraint_jac,
        .constraint_t = NULL, .accel_rhs = cart_accel_rhs, .multiplier_matrix = NULL,
    };
    return hydae_mode_add_var(bound, "x", HYDAE_DIFFERENTIAL, 0.0) == 0
           && hydae_mode_add_var(bound, "y", HYDAE_DIFFERENTIAL, -1.0) == 1
           && hydae_mode_add_var(bound, "vx", HYDAE_VELOCITY, 5.0) == 2
           && hydae_mode_add_var(bound, "vy", HYDAE_VELOCITY, 0.0) == 3
           && hydae_mode_add_var(bound, "lambda", HYDAE_MULTIPLIER, 0.0) == 4
           && hydae_mode_add_output(bound, "phi") == 0
           && hydae_mode_add_output(bound, "omega") == 1
           && hydae_mode_add_output(bound, "F") == 2 && hydae_mode_add_output(bound, "r") == 3
           && hydae_mode_set_mechanics(bound, &mech, NULL) == 0
           && hydae_mode_set_guards(bound, 1, cart_guards) == 0
           && hydae_mode_set_outputs(bound, cart_outputs) == 0;
}

static int unstretch(hydae_action *a, void *user)
{
    (void)user;
    double L = hydae_get(a, "L"), phi = hydae_get(a, "phi"), omega = hydae_get(a, "omega");
    int status = hydae_set(a, "x", L * sin(phi));
    status |= hydae_set(a, "y", -L * cos(phi));
    status |= hydae_set(a, "vx", L * omega * cos(phi));
    status |= hydae_set(a, "vy", L * omega * sin(phi));
    return status;
}

static int stretch(hydae_action *a, void *user)
{
    (void)user;
    double x = hydae_get(a, "x"), y = hydae_get(a, "y");
    double vx = hydae_get(a, "vx"), vy = hydae_get(a, "vy");
    int status = hydae_set(a, "phi", atan2(x, -y));
    status |= hydae_set(a, "omega", (x * vy - y * vx) / (x * x + y * y));
    return status;
}

static hydae_model *build(int cartesian)
{
    hydae_model *m = hydae_model_create(cartesian ? "string_pendulum_cartesian"
                                                  : "string_pendulum");
    if (!m)
        return NULL;
    int ok = hydae_model_add_param(m, "m", 1.0) == P_M
             && hydae_model_add_param(m, "L", 1.0) == P_L
             && hydae_model_add_param(m, "g", 9.81) == P_G
             && hydae_model_add_param(m, "kappa", 0.1) == P_KAPPA
             && hydae_model_add_param(m, "k", 0.0) == P_K;
    hydae_chart *chart = hydae_model_add_chart(m, "thread");
    hydae_mode *bound = hydae_chart_add_mode(chart, "bound");
    hydae_mode *free_flight = hydae_chart_add_mode(chart, "free");
    ok = ok && bound && free_flight;
    if (cartesian)
        ok = ok && add_cartesian_bound(bound);
    else
        ok = ok && hydae_mode_add_var(bound, "phi", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_add_var(bound, "omega", HYDAE_DIFFERENTIAL, 5.0) == 1
         && hydae_mode_add_output(bound, "x") == 0 && hydae_mode_add_output(bound, "y") == 1
         && hydae_mode_add_output(bound, "F") == 2 && hydae_mode_add_output(bound, "r") == 3
         && hydae_mode_set_residual(bound, 2, bound_residual, NULL) == 0
         && hydae_mode_set_jacobian(bound, bound_jacobian) == 0
         && hydae_mode_set_guards(bound, 1, bound_guards) == 0
         && hydae_mode_set_outputs(bound, bound_outputs) == 0;
    ok = ok && hydae_mode_add_var(free_flight, "x", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_add_var(free_flight, "y", HYDAE_DIFFERENTIAL, -1.0) == 1
         && hydae_mode_add_var(free_flight, "vx", HYDAE_DIFFERENTIAL, 0.0) == 2
         && hydae_mode_add_var(free_flight, "vy", HYDAE_DIFFERENTIAL, 0.0) == 3
         && hydae_mode_add_output(free_flight, "phi") == 0
         && hydae_mode_add_output(free_flight, "omega") == 1
         && hydae_mode_add_output(free_flight, "F") == 2
         && hydae_mode_add_output(free_flight, "r") == 3
         && hydae_mode_set_rhs(free_flight, free_rhs, NULL) == 0
         && hydae_mode_set_jacobian(free_flight, free_jacobian) == 0
         && hydae_mode_set_guards(free_flight, 1, free_guards) == 0
         && hydae_mode_set_outputs(free_flight, free_outputs) == 0;
    hydae_transition *to_free = hydae_chart_add_transition(chart, "unstretch", bound, free_flight);
    hydae_transition *to_bound = hydae_chart_add_transition(chart, "stretch", free_flight, bound);
    ok = ok && to_free && to_bound
         && hydae_transition_on_guard(to_free, 0, HYDAE_FALLING) == 0
         && hydae_transition_on_guard(to_bound, 0, HYDAE_RISING) == 0
         && (cartesian || (hydae_transition_set_action(to_free, unstretch, NULL) == 0
                           && hydae_transition_set_action(to_bound, stretch, NULL) == 0));
    if (!ok) {
        hydae_model_free(m);
        return NULL;
    }
    return m;
}

hydae_model *example_string_pendulum(void)
{
    return build(0);
}

hydae_model *example_string_pendulum_cartesian(void)
{
    return build(1);
}
