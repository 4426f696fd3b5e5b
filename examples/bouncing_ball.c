/*
** Bouncing ball: h' = v, v' = -g; when h falls to 0 the transition
** `bounce` (from the mode `flight` to itself) resets h := 0 and
** v := -e v. The guard h is exactly zero right after each reset, which
** must not fire the transition again.
**
** Parameters: g = 9.81 m/s^2, restitution e = 0.8; start h = 1 m, v = 0.
** Impact k+1 comes 2 e^k v1 / g after impact k (v1 = sqrt(2 g h0)), so
** the impacts accumulate at t = t1 (1 + 2e/(1-e)) = 4.06 s (Zeno); the
** suggested experiment stops at 3.5 s, after 9 impacts. Past 4.06 s the
** run stops with a message, unless the setting zeno_policy = rest: then
** the chart enters its resting mode `rest` (no unknowns; outputs h = 0,
** v = 0), declared with hydae_chart_set_resting_mode.
*/
#include "examples.h"

enum { P_G, P_E };

static int flight_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)user;
    ydot[0] = y[1];
    ydot[1] = -p[P_G];
    return 0;
}

static int flight_jacobian(double t, double cj, const double *y, const double *yp,
                           const double *p, double *jac, void *user)
{
    (void)t;
    (void)cj;
    (void)y;
    (void)yp;
    (void)p;
    (void)user;
    jac[0] = 0.0; /* d h'/dh */
    jac[1] = 0.0; /* d v'/dh */
    jac[2] = 1.0; /* d h'/dv */
    jac[3] = 0.0; /* d v'/dv */
    return 0;
}

static int flight_guards(double t, const double *y, const double *yp, const double *p,
                         double *g, void *user)
{
    (void)t;
    (void)yp;
    (void)p;
    (void)user;
    g[0] = y[0];
    return 0;
}

/* The ball at rest on the floor: outputs h = 0, v = 0. */
static int rest_outputs(double t, const double *y, const double *yp, const double *p,
                        double *out, void *user)
{
    (void)t;
    (void)y;
    (void)yp;
    (void)p;
    (void)user;
    out[0] = 0.0;
    out[1] = 0.0;
    return 0;
}

static int bounce(hydae_action *a, void *user)
{
    (void)user;
    int status = hydae_set(a, "h", 0.0);
    status |= hydae_set(a, "v", -hydae_get(a, "e") * hydae_get(a, "v"));
    return status;
}

hydae_model *example_bouncing_ball(void)
{
    hydae_model *m = hydae_model_create("bouncing_ball");
    if (!m)
        return NULL;
    int ok = hydae_model_add_param(m, "g", 9.81) == P_G
             && hydae_model_add_param(m, "e", 0.8) == P_E;
    hydae_chart *chart = hydae_model_add_chart(m, "ball");
    hydae_mode *flight = hydae_chart_add_mode(chart, "flight");
    ok = ok && flight && hydae_mode_add_var(flight, "h", HYDAE_DIFFERENTIAL, 1.0) == 0
         && hydae_mode_add_var(flight, "v", HYDAE_DIFFERENTIAL, 0.0) == 1
         && hydae_mode_set_rhs(flight, flight_rhs, NULL) == 0
         && hydae_mode_set_jacobian(flight, flight_jacobian) == 0
         && hydae_mode_set_guards(flight, 1, flight_guards) == 0;
    hydae_mode *rest = hydae_chart_add_mode(chart, "rest");
    ok = ok && rest && hydae_mode_add_output(rest, "h") == 0 && hydae_mode_add_output(rest, "v") == 1
         && hydae_mode_set_outputs(rest, rest_outputs) == 0
         && hydae_chart_set_resting_mode(chart, rest) == 0;
    hydae_transition *tr = hydae_chart_add_transition(chart, "bounce", flight, flight);
    ok = ok && tr && hydae_transition_on_guard(tr, 0, HYDAE_FALLING) == 0
         && hydae_transition_set_action(tr, bounce, NULL) == 0;
    if (!ok) {
        hydae_model_free(m);
        return NULL;
    }
    return m;
}
