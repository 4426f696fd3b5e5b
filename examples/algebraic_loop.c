/*
** The algebraic loop of J. H. Taylor, "Modeling & Simulation of Dynamic
** Systems - a Tutorial", eq. (10): G(s) = (s+1)/(s+10) in a unity-feedback
** loop with command r,
**     x' = -10 x + u,   y = -9 x + u,   u = r - y,
** where u and y each need the other. hydae solves it as a semi-explicit
** index-1 DAE (x differential, y and u algebraic) instead of rejecting it.
** The command steps from r = 0 to r = 1 at t = 0.5 (a time event whose
** action changes the parameter r). Closed form after the step:
** x = (1 - exp(-5.5 (t - 0.5)))/11, y = (r - 9x)/2, u = (r + 9x)/2.
*/
#include "examples.h"

enum { P_R };

static int loop_residual(double t, const double *y, const double *yp, const double *p,
                         double *res, void *user)
{
    (void)t;
    (void)user;
    double x = y[0], out = y[1], u = y[2];
    res[0] = yp[0] + 10.0 * x - u;
    res[1] = out - (-9.0 * x + u);
    res[2] = u - (p[P_R] - out);
    return 0;
}

static int loop_jacobian(double t, double cj, const double *y, const double *yp,
                         const double *p, double *jac, void *user)
{
    (void)t;
    (void)y;
    (void)yp;
    (void)p;
    (void)user;
    /* column 0: d/dx, column 1: d/dy, column 2: d/du */
    jac[0] = cj + 10.0; jac[1] = 9.0;  jac[2] = 0.0;
    jac[3] = 0.0;       jac[4] = 1.0;  jac[5] = 1.0;
    jac[6] = -1.0;      jac[7] = -1.0; jac[8] = 1.0;
    return 0;
}

static int step_command(hydae_action *a, void *user)
{
    (void)user;
    return hydae_set(a, "r", 1.0);
}

hydae_model *example_algebraic_loop(void)
{
    hydae_model *m = hydae_model_create("algebraic_loop");
    if (!m)
        return NULL;
    int ok = hydae_model_add_param(m, "r", 0.0) == P_R;
    hydae_chart *chart = hydae_model_add_chart(m, "loop");
    hydae_mode *mode = hydae_chart_add_mode(chart, "closed_loop");
    ok = ok && mode && hydae_mode_add_var(mode, "x", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_add_var(mode, "y", HYDAE_ALGEBRAIC, 0.0) == 1
         && hydae_mode_add_var(mode, "u", HYDAE_ALGEBRAIC, 0.0) == 2
         && hydae_mode_set_residual(mode, 3, loop_residual, NULL) == 0
         && hydae_mode_set_jacobian(mode, loop_jacobian) == 0;
    hydae_transition *step = hydae_chart_add_transition(chart, "command_step", mode, mode);
    ok = ok && step && hydae_transition_on_time(step, 0.5) == 0
         && hydae_transition_set_action(step, step_command, NULL) == 0;
    if (!ok) {
        hydae_model_free(m);
        return NULL;
    }
    return m;
}
