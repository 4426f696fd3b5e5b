/*
** Relay with dead zone driving a linear plant, written in the schema of
** J. H. Taylor, "Modeling & Simulation of Dynamic Systems - a Tutorial",
** sec. 3 and Fig. 1: a model f(x, t, m), switching functions S(x, t, m)
** and state resets r(x, t, m), with the relay mode m a discrete variable:
**
**   f:  x' = v,  v' = -a v + F m         (plant driven by the relay)
**   S:  S0 = e - vs,  S1 = e + vs        (e = r_ref - x, the error)
**   r:  m := 0 / +1 / -1                 (the relay's new output level)
**
** The relay gives +F for e > vs, 0 inside the dead zone |e| < vs and -F
** for e < -vs; the four transitions are self-transitions of the one mode
** `plant`, each conditioned on the current m. Parameters: a = 1, F = 1,
** vs = 0.1, r_ref = 1; start x = v = 0, m = +1.
*/
#include "examples.h"

enum { P_A, P_F, P_VS, P_REF, D_M };

static int plant_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)user;
    ydot[0] = y[1];
    ydot[1] = -p[P_A] * y[1] + p[P_F] * p[D_M];
    return 0;
}

static int plant_guards(double t, const double *y, const double *yp, const double *p,
                        double *g, void *user)
{
    (void)t;
    (void)yp;
    (void)user;
    double error = p[P_REF] - y[0];
    g[0] = error - p[P_VS];
    g[1] = error + p[P_VS];
    return 0;
}

/* Conditions: the relay level the transition leaves. */
static int level_is(const hydae_action *a, double level)
{
    return hydae_get(a, "m") == level;
}
static int at_plus(const hydae_action *a, void *user) { (void)user; return level_is(a, 1.0); }
static int at_zero(const hydae_action *a, void *user) { (void)user; return level_is(a, 0.0); }
static int at_minus(const hydae_action *a, void *user) { (void)user; return level_is(a, -1.0); }

/* Resets: the level the relay switches to, passed as user data. */
static int set_level(hydae_action *a, void *user)
{
    return hydae_set(a, "m", *(const double *)user);
}

static const double level_plus = 1.0, level_zero = 0.0, level_minus = -1.0;

static int add_switch(hydae_chart *chart, hydae_mode *plant, const char *name, int guard,
                      hydae_direction dir, hydae_condition_fn from_level, const double *to_level)
{
    hydae_transition *tr = hydae_chart_add_transition(chart, name, plant, plant);
    return tr && hydae_transition_on_guard(tr, guard, dir) == 0
           && hydae_transition_set_condition(tr, from_level, NULL) == 0
           && hydae_transition_set_action(tr, set_level, (void *)to_level) == 0;
}

hydae_model *example_relay(void)
{
    hydae_model *m = hydae_model_create("relay");
    if (!m)
        return NULL;
    int ok = hydae_model_add_param(m, "a", 1.0) == P_A && hydae_model_add_param(m, "F", 1.0) == P_F
             && hydae_model_add_param(m, "vs", 0.1) == P_VS
             && hydae_model_add_param(m, "r_ref", 1.0) == P_REF
             && hydae_model_add_discrete(m, "m", 1.0) == D_M;
    hydae_chart *chart = hydae_model_add_chart(m, "relay");
    hydae_mode *plant = hydae_chart_add_mode(chart, "plant");
    ok = ok && plant && hydae_mode_add_var(plant, "x", HYDAE_DIFFERENTIAL, 0.0) == 0
         && hydae_mode_add_var(plant, "v", HYDAE_DIFFERENTIAL, 0.0) == 1
         && hydae_mode_set_rhs(plant, plant_rhs, NULL) == 0
         && hydae_mode_set_guards(plant, 2, plant_guards) == 0;
    ok = ok && add_switch(chart, plant, "plus_to_dead", 0, HYDAE_FALLING, at_plus, &level_zero)
         && add_switch(chart, plant, "dead_to_plus", 0, HYDAE_RISING, at_zero, &level_plus)
         && add_switch(chart, plant, "dead_to_minus", 1, HYDAE_FALLING, at_zero, &level_minus)
         && add_switch(chart, plant, "minus_to_dead", 1, HYDAE_RISING, at_minus, &level_zero);
    if (!ok) {
        hydae_model_free(m);
        return NULL;
    }
    return m;
}
