/*
** Zeros of a guard along a step's dense output: bracketing a crossing to
** the floating-point limit, and searching a guard's extremum for a pair of
** crossings that leaves both ends of an interval on the same side.
**
** Root location is the Anderson-Bjorck variant of regula falsi
** (N. Anderson and A. Bjorck, "A new high order method of regula falsi
** type for computing a root of an equation", BIT 13 (1973) 253-264,
** eq. (3.4): when the same end is kept twice, the other end's value is
** scaled by m = 1 - f(c)/f(b), or 1/2 when m <= 0), with a bisection step
** whenever an iteration fails to halve the bracket twice in a row (which
** bounds the iteration count by ~2 x 64). The bracket shrinks until no
** double lies strictly inside it (adjacent doubles, or 2 ulps), so the
** right end is the first representable time at which the guard has
** crossed.
**
** The guard's time derivative along the interpolant, dG/dt = grad g . y' +
** dg/dt, is the directional difference g(t + d, y + d y') - g(t, y) over d
** (one extra guard evaluation, no extra interpolation); only its sign is
** used. An extremum inside [a, b] is bracketed by the sign change of
** dG/dt and located by the Illinois method (Dahlquist & Bjorck, Numerical
** Methods, 1974, sec. 6.2.2) on dG/dt; the search stops as soon as G is
** seen past zero.
*/
#include "sim.h"

#include <float.h>
#include <math.h>

int hy_guards_at(hydae_sim *s, double t, double *g)
{
    int status = hy_interpolate(s, t, s->y_work, s->yp_work);
    if (status)
        return status;
    return hy_guards_eval(s, t, s->y_work, s->yp_work, g);
}

/* The probe distance for dG/dt at t: small against the sub-interval of
** width `width`, large against the spacing of doubles near t. */
static double slope_probe(double t, double width)
{
    double ulp = nextafter(fabs(t), INFINITY) - fabs(t);
    return fmax(1e-6 * width, 1e3 * ulp);
}

int hy_guards_at_with_slopes(hydae_sim *s, double t, double width, double *g, double *slope)
{
    int status = hy_guards_at(s, t, g);
    if (status)
        return status;
    double d = slope_probe(t, width);
    for (int i = 0; i < s->n; i++)
        s->y_work[i] += d * s->yp_work[i];
    status = hy_guards_eval(s, t + d, s->y_work, s->yp_work, slope);
    if (status)
        return status;
    for (int k = 0; k < s->n_guards; k++)
        slope[k] = (slope[k] - g[k]) / d;
    return 0;
}

/* No double strictly between lo and hi (or they are 2 ulps apart). */
static int bracket_closed(double lo, double hi)
{
    double mid = lo + 0.5 * (hi - lo);
    return !(mid > lo && mid < hi);
}

int hy_root_bracket(hydae_sim *s, int k, int dir, double level, double t_lo, double g_lo,
                    double t_hi, double g_hi, double *t_root)
{
    int side = 0, n_slow = 0;
    for (int iter = 0; iter < 400 && !bracket_closed(t_lo, t_hi); iter++) {
        double width = t_hi - t_lo;
        double t_mid = g_hi != g_lo ? t_hi - g_hi * width / (g_hi - g_lo) : NAN;
        if (n_slow >= 2 || !(t_mid > t_lo && t_mid < t_hi)) {
            t_mid = t_lo + 0.5 * width;     /* bisection */
            n_slow = 0;
        }
        int status = hy_guards_at(s, t_mid, s->guards.g_work);
        if (status)
            return status;
        double g_mid = s->guards.g_work[k] - level;
        int crossed = dir > 0 ? g_mid > 0.0 : g_mid < 0.0;
        if (crossed) {
            if (side == -1) {
                double m = 1.0 - g_mid / g_hi;
                g_lo *= m > 0.0 ? m : 0.5;
            }
            t_hi = t_mid;
            g_hi = g_mid;
            side = -1;
        } else {
            if (side == 1) {
                double m = 1.0 - g_mid / g_lo;
                g_hi *= m > 0.0 ? m : 0.5;
            }
            t_lo = t_mid;
            g_lo = g_mid;
            side = 1;
        }
        n_slow = t_hi - t_lo > 0.5 * width ? n_slow + 1 : 0;
    }
    *t_root = t_hi;
    return 0;
}

double hy_dip_floor(double g_a, double g_b)
{
    return 64.0 * DBL_EPSILON * fmax(1.0, fmax(fabs(g_a), fabs(g_b)));
}

int hy_guard_dip(hydae_sim *s, int k, int sign, double a, double g_a, double slope_a, double b,
                 double g_b, double slope_b, double floor_value, double *t_past, double *g_past)
{
    /* In units of `sign`: v = sign G falls (f = sign G' < 0) at lo and
    ** rises at hi. With G' monotone between them (at most one extremum),
    ** the extremum lies in [lo, hi] and v there is at least v_lo + f_lo
    ** (hi - lo) and v_hi - f_hi (hi - lo): when either bound is above the
    ** floor, the guard cannot reach zero and the search ends. */
    double lo = a, hi = b, f_lo = sign * slope_a, f_hi = sign * slope_b;
    double v_lo = sign * g_a, v_hi = sign * g_b;
    int side = 0;
    for (int iter = 0; iter < 200 && !bracket_closed(lo, hi); iter++) {
        double width = hi - lo;
        if (v_lo + f_lo * width > floor_value || v_hi - f_hi * width > floor_value)
            return 0;
        double t_mid = lo - f_lo * width / (f_hi - f_lo);
        if (!(t_mid > lo && t_mid < hi))
            t_mid = lo + 0.5 * width;
        int status = hy_guards_at_with_slopes(s, t_mid, b - a, s->guards.g_work, s->guards.g_probe);
        if (status)
            return status;
        double v_mid = sign * s->guards.g_work[k];
        if (v_mid < -floor_value) {
            *t_past = t_mid;
            *g_past = s->guards.g_work[k];
            return 1;
        }
        double f_mid = sign * s->guards.g_probe[k];
        if (f_mid < 0.0) {
            lo = t_mid, f_lo = f_mid, v_lo = v_mid;
            if (side == 1)
                f_hi *= 0.5;
            side = 1;
        } else {
            hi = t_mid, f_hi = f_mid, v_hi = v_mid;
            if (side == -1)
                f_lo *= 0.5;
            side = -1;
        }
        if (f_lo == 0.0 || f_hi == 0.0 || f_hi == f_lo)
            break;
    }
    return 0;
}
