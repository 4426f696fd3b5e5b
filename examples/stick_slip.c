/*
** Stick-slip: a block of mass m on a belt moving at v_b, held back by a
** spring k, with Coulomb friction (static mu_s, kinetic mu_k < mu_s).
** Three modes of different size:
**   stick:     the block rides on the belt: unknown x (spring elongation),
**              x' = v_b; outputs v = v_b and the friction force k x that
**              holds it;
**   slip:      slower than the belt: unknowns x, v,
**              m v' = -k x + mu_k m g (friction drags it forward);
**   slip_fast: faster than the belt: m v' = -k x - mu_k m g.
** Transitions: stick -> slip when the spring force k x reaches mu_s m g
** (rising), stick -> slip_fast when k x falls to -mu_s m g; from a slip
** mode back to stick when the relative velocity v - v_b reaches 0 and the
** spring force can be held (|k x| <= mu_s m g), else to the other slip
** mode. Being modes, not a sign function in one ODE, the friction switch
** never chatters.
**
** Parameters: m = 1 kg, k = 100 N/m, g = 9.81 m/s^2, mu_s = 0.6,
** mu_k = 0.4, v_b = 0.2 m/s; start stuck at x = 0. The limit cycle: stick
** until x_s = mu_s m g / k (t = 0.294 s), slip for (2 pi - 2 phi)/omega
** with omega = sqrt(k/m), phi = atan2(omega (x_s - x_k), v_b),
** x_k = mu_k m g / k, ending at x = 2 x_k - x_s; then stick for
** 2 (x_s - x_k) / v_b, and so on.
*/
#include "examples.h"

#include <math.h>

enum { P_M, P_K, P_G, P_MU_S, P_MU_K, P_VB };

static int stick_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)y;
    (void)user;
    ydot[0] = p[P_VB];
    return 0;
}

/* Outputs of stick: v, friction. */
static int stick_outputs(double t, const double *y, const double *yp, const double *p,
                         double *out, void *user)
{
    (void)t;
    (void)yp;
    (void)user;
    out[0] = p[P_VB];
    out[1] = p[P_K] * y[0];
    return 0;
}

/* Guards of stick: k x - mu_s m g (rising: breaks forward), k x + mu_s m g
** (falling: breaks backward). */
static int stick_guards(double t, const double *y, const double *yp, const double *p,
                        double *g, void *user)
{
    (void)t;
    (void)yp;
    (void)user;
    double hold = p[P_MU_S] * p[P_M] * p[P_G];
    g[0] = p[P_K] * y[0] - hold;
    g[1] = p[P_K] * y[0] + hold;
    return 0;
}

/* The friction sign is the mode's: +1 in slip, -1 in slip_fast. */
static int slip_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    double friction_sign = *(const double *)user;
    ydot[0] = y[1];
    ydot[1] = (-p[P_K] * y[0] + friction_sign * p[P_MU_K] * p[P_M] * p[P_G]) / p[P_M];
    return 0;
}

static int slip_outputs(double t, const double *y, const double *yp, const double *p,
                        double *out, void *user)
{
    (void)t;
    (void)y;
    (void)yp;
    (void)user;
    out[0] = (y[1] < p[P_VB] ? 1.0 : -1.0) * p[P_MU_K] * p[P_M] * p[P_G];
    return 0;
}

/* Guard of both slip modes: the relative velocity v - v_b. */
static int slip_guards(double t, const double *y, const double *yp, const double *p,
                       double *g, void *user)
{
    (void)t;
    (void)yp;
    (void)user;
    g[0] = y[1] - p[P_VB];
    return 0;
}

static int can_hold(const hydae_action *a, void *user)
{
    (void)user;
    return fabs(hydae_get(a, "k") * hydae_get(a, "x"))
           <= hydae_get(a, "mu_s") * hydae_get(a, "m") * hydae_get(a, "g");
}

static int cannot_hold(const hydae_action *a, void *user)
{
    return !can_hold(a, user);
}

static const double forward = 1.0, backward = -1.0;

hydae_model *example_stick_slip(void)
{
    hydae_model *m = hydae_model_create("stick_slip");
    if (!m)
        return NULL;
    int ok = hydae_model_add_param(m, "m", 1.0) == P_M && hydae_model_add_param(m, "k", 100.0) == P_K
             && hydae_model_add_param(m, "g", 9.81) == P_G
             && hydae_model_add_param(m, "mu_s", 0.6) == P_MU_S
             && hydae_model_add_param(m, "mu_k", 0.4) == P_MU_K
             && hydae_model_add_param(m, "v_b", 0.2) == P_VB;
    hydae_chart *c = hydae_model_add_chart(m, "friction");
    hydae_mode *stick = hydae_chart_add_mode(c, "stick");
    hydae_mode *slip = hydae_chart_add_mode(c, "slip");
    hydae_mode *slip_fast = hydae_chart_add_mode(c, "slip_fast");
    ok = ok && stick && slip && slip_fast
         && hydae_mode_add_var(stick, "x", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_add_output(stick, "v") == 0 && hydae_mode_add_output(stick, "friction") == 1
         && hydae_mode_set_rhs(stick, stick_rhs, NULL) == 0
         && hydae_mode_set_outputs(stick, stick_outputs) == 0
         && hydae_mode_set_guards(stick, 2, stick_guards) == 0;
    hydae_mode *slips[2] = { slip, slip_fast };
    const double *signs[2] = { &forward, &backward };
    for (int i = 0; i < 2 && ok; i++)
        ok = hydae_mode_add_var(slips[i], "x", HYDAE_DIFFERENTIAL, 0.0) == 0
             && hydae_mode_add_var(slips[i], "v", HYDAE_DIFFERENTIAL, 0.0) == 1
             && hydae_mode_add_output(slips[i], "friction") == 0
             && hydae_mode_set_rhs(slips[i], slip_rhs, (void *)signs[i]) == 0
             && hydae_mode_set_outputs(slips[i], slip_outputs) == 0
             && hydae_mode_set_guards(slips[i], 1, slip_guards) == 0;
    hydae_transition *breaks = hydae_chart_add_transition(c, "breaks_loose", stick, slip);
    hydae_transition *breaks_back = hydae_chart_add_transition(c, "breaks_back", stick, slip_fast);
    hydae_transition *catches = hydae_chart_add_transition(c, "catches", slip, stick);
    hydae_transition *overshoots = hydae_chart_add_transition(c, "overshoots", slip, slip_fast);
    hydae_transition *catches_back = hydae_chart_add_transition(c, "catches_back", slip_fast, stick);
    hydae_transition *falls_back = hydae_chart_add_transition(c, "falls_back", slip_fast, slip);
    ok = ok && breaks && breaks_back && catches && overshoots && catches_back && falls_back
         && hydae_transition_on_guard(breaks, 0, HYDAE_RISING) == 0
         && hydae_transition_on_guard(breaks_back, 1, HYDAE_FALLING) == 0
         && hydae_transition_on_guard(catches, 0, HYDAE_RISING) == 0
         && hydae_transition_set_condition(catches, can_hold, NULL) == 0
         && hydae_transition_on_guard(overshoots, 0, HYDAE_RISING) == 0
         && hydae_transition_set_condition(overshoots, cannot_hold, NULL) == 0
         && hydae_transition_on_guard(catches_back, 0, HYDAE_FALLING) == 0
         && hydae_transition_set_condition(catches_back, can_hold, NULL) == 0
         && hydae_transition_on_guard(falls_back, 0, HYDAE_FALLING) == 0
         && hydae_transition_set_condition(falls_back, cannot_hold, NULL) == 0;
    if (!ok) {
        hydae_model_free(m);
        return NULL;
    }
    return m;
}
