/*
** Settings that are each valid but contradict each other or the chosen
** integrator (t_end <= t0, h_min > h_max, max_order beyond the method's
** range, ...): refused before a run with a message naming the settings,
** instead of an integrator's bare status code later.
*/
#include "sim.h"

#include <math.h>

#define HY_CONFLICT(s, ...) (hy_sim_fail((s), __VA_ARGS__), HYDAE_ERR_ARG)

static int check_times(hydae_sim *s)
{
    if (!isfinite(s->t0) || !isfinite(s->t_end))
        return HY_CONFLICT(s, "t0 (%g) and t_end (%g) must be finite", s->t0, s->t_end);
    if (!(s->t_end > s->t0))
        return HY_CONFLICT(s, "t_end (%.17g) must be greater than t0 (%.17g)", s->t_end, s->t0);
    return 0;
}

static int check_steps(hydae_sim *s)
{
    if (s->h_min > s->h_max)
        return HY_CONFLICT(s, "h_min (%g) is greater than h_max (%g): no step size satisfies "
                           "both", s->h_min, s->h_max);
    if (s->h0 > 0.0 && s->h0 > s->h_max)
        return HY_CONFLICT(s, "h0 (%g), the first step, is greater than h_max (%g)", s->h0,
                           s->h_max);
    if (s->h0 > 0.0 && s->h0 < s->h_min)
        return HY_CONFLICT(s, "h0 (%g), the first step, is smaller than h_min (%g)", s->h0,
                           s->h_min);
    if (s->corrector_minit > 0 && s->corrector_maxit > 0
        && s->corrector_minit > s->corrector_maxit)
        return HY_CONFLICT(s, "dae_corrector_minit (%d) is greater than dae_corrector_maxit "
                           "(%d)", s->corrector_minit, s->corrector_maxit);
    return 0;
}

/* max_order and h_max against what the integrator can do. */
static int check_method(hydae_sim *s)
{
    const hy_integrator_ops *method = s->method;
    if (s->max_order > 0 && method->max_order == 0)
        return HY_CONFLICT(s, "max_order (%d) does not apply to %s, a method of fixed order; "
                           "leave max_order out", s->max_order, method->name);
    if (s->max_order > method->max_order && method->max_order > 0)
        return HY_CONFLICT(s, "max_order (%d) is out of range for %s: 1 to %d", s->max_order,
                           method->name, method->max_order);
    if (method->fixed_step && !isfinite(s->h_max))
        return HY_CONFLICT(s, "%s takes fixed steps of length h_max: set h_max", method->name);
    return 0;
}

int hydae_sim_validate(hydae_sim *s)
{
    if (!s)
        return HYDAE_ERR_ARG;
    int status = check_times(s);
    if (!status)
        status = check_steps(s);
    if (!status)
        status = check_method(s);
    return status;
}
