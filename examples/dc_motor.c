/*
** Model switching for accuracy (Enge-Rosenblatt et al., Fig. 3; Taylor,
** eqs. 8-9): a DC motor simulated with its detailed model only while the
** electrical transient matters, and with a reduced one otherwise.
**   detailed: unknowns i, w (current, speed), a stiff ODE
**               L i' = V - R i - k w,   J w' = k i - b w;
**   reduced:  the inductance neglected (L/R = 1 ms << J R/k^2): i becomes
**             algebraic, a semi-explicit DAE
**               0 = V - R i - k w,      J w' = k i - b w.
** Chart "motor" starts detailed and switches to reduced 20 ms after it
** entered detailed (a guard on time since entry: 20 time constants);
** chart "supply" switches the voltage off at t = 0.5 s (V := 0) and raises
** `supply_changed`, which sends the motor back to the detailed model for
** the new transient. Values move by name: the current stays continuous
** into the detailed model and is recomputed when it becomes algebraic.
**
** Parameters: R = 1 ohm, L = 1 mH, k = 0.1 V s/rad, J = 0.01 kg m^2,
** b = 0.001 N m s/rad, V = 12 V.
*/
#include "examples.h"

enum { P_R, P_L, P_K, P_J, P_B, P_SETTLE, D_V, D_T_ENTERED };

static int detailed_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)user;
    double i = y[0], w = y[1];
    ydot[0] = (p[D_V] - p[P_R] * i - p[P_K] * w) / p[P_L];
    ydot[1] = (p[P_K] * i - p[P_B] * w) / p[P_J];
    return 0;
}

static int detailed_jacobian(double t, double cj, const double *y, const double *yp,
                             const double *p, double *jac, void *user)
{
    (void)t;
    (void)cj;
    (void)y;
    (void)yp;
    (void)user;
    jac[0] = -p[P_R] / p[P_L]; /* d i'/di */
    jac[1] = p[P_K] / p[P_J];  /* d w'/di */
    jac[2] = -p[P_K] / p[P_L]; /* d i'/dw */
    jac[3] = -p[P_B] / p[P_J]; /* d w'/dw */
    return 0;
}

/* Time since the detailed model was entered, minus the settling time. */
static int detailed_guards(double t, const double *y, const double *yp, const double *p,
                           double *g, void *user)
{
    (void)y;
    (void)yp;
    (void)user;
    g[0] = t - p[D_T_ENTERED] - p[P_SETTLE];
    return 0;
}

/* Reduced: y = (w, i). */
static int reduced_residual(double t, const double *y, const double *yp, const double *p,
                            double *res, void *user)
{
    (void)t;
    (void)user;
    double w = y[0], i = y[1];
    res[0] = p[P_J] * yp[0] - (p[P_K] * i - p[P_B] * w);
    res[1] = p[D_V] - p[P_R] * i - p[P_K] * w;
    return 0;
}

static int reduced_jacobian(double t, double cj, const double *y, const double *yp,
                            const double *p, double *jac, void *user)
{
    (void)t;
    (void)y;
    (void)yp;
    (void)user;
    jac[0] = cj * p[P_J] + p[P_B]; /* d res0/dw */
    jac[1] = -p[P_K];              /* d res1/dw */
    jac[2] = -p[P_K];              /* d res0/di */
    jac[3] = -p[P_R];              /* d res1/di */
    return 0;
}

static int enter_detailed(hydae_action *a, void *user)
{
    (void)user;
    return hydae_set(a, "t_entered", hydae_action_time(a));
}

static int supply_off(hydae_action *a, void *user)
{
    (void)user;
    int status = hydae_set(a, "V", 0.0);
    return status ? status : hydae_raise(a, "supply_changed");
}

hydae_model *example_dc_motor(void)
{
    hydae_model *m = hydae_model_create("dc_motor");
    if (!m)
        return NULL;
    int ok = hydae_model_add_param(m, "R", 1.0) == P_R && hydae_model_add_param(m, "L", 1e-3) == P_L
             && hydae_model_add_param(m, "k", 0.1) == P_K
             && hydae_model_add_param(m, "J", 0.01) == P_J
             && hydae_model_add_param(m, "b", 1e-3) == P_B
             && hydae_model_add_param(m, "settle", 0.02) == P_SETTLE
             && hydae_model_add_discrete(m, "V", 12.0) == D_V
             && hydae_model_add_discrete(m, "t_entered", 0.0) == D_T_ENTERED;
    hydae_chart *motor = hydae_model_add_chart(m, "motor");
    hydae_mode *detailed = hydae_chart_add_mode(motor, "detailed");
    hydae_mode *reduced = hydae_chart_add_mode(motor, "reduced");
    ok = ok && detailed && reduced
         && hydae_mode_add_var(detailed, "i", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_add_var(detailed, "w", HYDAE_DIFFERENTIAL, 0.0) == 1
         && hydae_mode_set_rhs(detailed, detailed_rhs, NULL) == 0
         && hydae_mode_set_jacobian(detailed, detailed_jacobian) == 0
         && hydae_mode_set_guards(detailed, 1, detailed_guards) == 0
         && hydae_mode_add_var(reduced, "w", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_add_var(reduced, "i", HYDAE_ALGEBRAIC, 0.0) == 1
         && hydae_mode_set_residual(reduced, 2, reduced_residual, NULL) == 0
         && hydae_mode_set_jacobian(reduced, reduced_jacobian) == 0;
    hydae_transition *simplify = hydae_chart_add_transition(motor, "simplify", detailed, reduced);
    hydae_transition *refine = hydae_chart_add_transition(motor, "refine", reduced, detailed);
    ok = ok && simplify && refine && hydae_transition_on_guard(simplify, 0, HYDAE_RISING) == 0
         && hydae_transition_on_event(refine, "supply_changed") == 0
         && hydae_transition_set_action(refine, enter_detailed, NULL) == 0;
    hydae_chart *supply = hydae_model_add_chart(m, "supply");
    hydae_mode *on = hydae_chart_add_mode(supply, "on");
    hydae_mode *off = hydae_chart_add_mode(supply, "off");
    hydae_transition *switch_off = hydae_chart_add_transition(supply, "switch_off", on, off);
    ok = ok && on && off && switch_off && hydae_transition_on_time(switch_off, 0.5) == 0
         && hydae_transition_set_action(switch_off, supply_off, NULL) == 0;
    if (!ok) {
        hydae_model_free(m);
        return NULL;
    }
    return m;
}
