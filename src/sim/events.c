/*
** Event variables (guards) and time events.
**
** A guard triggers on a sign change in its direction, looked for at the
** guard_samples interior points of an accepted step and at its end, or on
** a dip past zero and back between two of them (hy_guards_locate); the
** crossing is then bracketed on the step's dense output to adjacent doubles
** by the Anderson-Bjorck regula falsi (roots.c), and the event time is the
** bracket's right end, where the condition holds. The earliest crossing
** wins; guards whose crossing lies within hy_event_group_tol of it fire
** together. For a configuration without states the "dense output" is the
** algebraic solution itself, solved at each time asked (algebraic.c).
**
** Arming. Right after a (re)start a guard often sits at zero up to
** round-off (r - L when the thread has just gone slack, h := 0 after a
** bounce), and its sign there is noise. After a discrete phase:
**  - the guards of a chart that took no transition keep their signs;
**  - a guard with |g| > 10 atol (the band) takes its sign;
**  - a guard that crossed at this instant, in a chart that stayed in its
**    mode: if the transition left the chart's state as it was, the
**    crossing continues (the guard has crossed; no second firing); if an
**    action reset the state (a bouncing ball), the guard is back on the
**    side it came from, and crossing again fires again (a ball that keeps
**    meeting the floor ends as Zeno behaviour, never below the floor);
**  - any other guard is unarmed until it leaves the band.
** An unarmed guard that leaves the band on the side a rising or falling
** trigger fires into has crossed all the same (a mode entered with its
** guard at zero that then goes decisively past it): it is located at the
** band's edge. (Guards are assumed scaled like the unknowns.)
*/
#include "sim.h"

#include "core/core.h"

#include <math.h>
#include <string.h>

/* ---- the guard set ---- */

int hy_guard_set_create(hy_guard_set *gs, int n_charts)
{
    gs->prev_active = hy_calloc((size_t)n_charts + 1, sizeof(hydae_mode *));
    gs->prev_guard_offset = hy_calloc((size_t)n_charts + 1, sizeof(int));
    gs->prev_var_offset = hy_calloc((size_t)n_charts + 1, sizeof(int));
    gs->chart_fired = hy_calloc((size_t)n_charts + 1, 1);
    if (!gs->prev_active || !gs->prev_guard_offset || !gs->prev_var_offset || !gs->chart_fired)
        return HYDAE_ERR_NOMEM;
    return 0;
}

/* *p resized to count elements of elem_size (at least one). */
static int resize(void **p, size_t count, size_t elem_size)
{
    size_t bytes;
    if (hy_mul_size(count > 0 ? count : 1, elem_size, &bytes))
        return -1;
    void *grown = hy_realloc(*p, bytes);
    if (!grown)
        return -1;
    *p = grown;
    return 0;
}

int hy_guard_set_reserve(hy_guard_set *gs, int n_guards, int n)
{
    if (n > gs->cap_prev_y || !gs->prev_y) {
        if (resize((void **)&gs->prev_y, (size_t)n, sizeof(double)))
            return HYDAE_ERR_NOMEM;
        gs->cap_prev_y = n;
    }
    if (n_guards <= gs->cap && gs->g_sign)
        return 0;
    size_t ng = (size_t)n_guards;
    double **values[] = { &gs->g_start, &gs->g_end, &gs->g_work, &gs->g_root,
                          &gs->g_slope_start, &gs->g_slope_end, &gs->g_probe,
                          &gs->g_up, &gs->g_left };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        if (resize((void **)values[i], ng, sizeof(double)))
            return HYDAE_ERR_NOMEM;
    signed char **flags[] = { &gs->g_sign, &gs->g_crossed, &gs->prev_sign, &gs->prev_crossed,
                              (signed char **)&gs->g_state };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (resize((void **)flags[i], ng, 1))
            return HYDAE_ERR_NOMEM;
    gs->cap = n_guards;
    return 0;
}

void hy_guard_set_free(hy_guard_set *gs)
{
    void *arrays[] = { gs->g_start, gs->g_end, gs->g_work, gs->g_root, gs->g_slope_start,
                       gs->g_slope_end, gs->g_probe, gs->g_up, gs->g_left, gs->g_state,
                       gs->g_sign, gs->g_crossed,
                       gs->prev_active, gs->prev_guard_offset, gs->prev_var_offset,
                       gs->prev_y, gs->prev_sign, gs->prev_crossed, gs->chart_fired };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        hy_free(arrays[i]);
    memset(gs, 0, sizeof *gs);
}

void hy_guards_snapshot(hydae_sim *s)
{
    hy_guard_set *gs = &s->guards;
    size_t n_charts = (size_t)s->model->n_charts;
    memcpy(gs->prev_active, s->active, sizeof(hydae_mode *) * n_charts);
    memcpy(gs->prev_guard_offset, s->guard_offset, sizeof(int) * (n_charts + 1));
    memcpy(gs->prev_var_offset, s->var_offset, sizeof(int) * (n_charts + 1));
    const double *y_local;
    hy_config_local(s, s->y, NULL, &y_local, NULL);
    int n_local = s->var_offset[n_charts];
    if (n_local > 0) /* in the blocks' layout, as prev_var_offset says */
        memcpy(gs->prev_y, y_local, sizeof(double) * (size_t)n_local);
    memcpy(gs->prev_sign, gs->g_sign, (size_t)s->n_guards);
    memcpy(gs->prev_crossed, gs->g_crossed, (size_t)s->n_guards);
    gs->have_prev = gs->armed;
    memset(gs->chart_fired, 0, n_charts);
}

/* ---- guards ---- */

int hy_interpolate(hydae_sim *s, double t, double *y, double *yp)
{
    if (s->n == 0)
        return 0;
    if (!s->integ_started || t == s->t) {
        if (y != s->y)
            memcpy(y, s->y, sizeof(double) * (size_t)s->n);
        if (yp != s->yp)
            memcpy(yp, s->yp, sizeof(double) * (size_t)s->n);
        return 0;
    }
    int code = s->integ_method->dense(s->integ, t, y, yp);
    if (code) {
        /* Its own category: a configuration without states solves F(t, y)
        ** = 0 here, and that may meet a residual that fails. */
        char detail[512] = "";
        if (s->bad_chart >= 0)
            hy_format(detail, sizeof detail, " in mode '%s'", s->active[s->bad_chart]->name);
        hy_sim_fail(s, "dense output failed at t = %.17g%s: %s", t, detail,
                    hydae_status_string(code));
        return code < 0 ? code : HYDAE_ERR_ARG;
    }
    return 0;
}

int hy_guards_eval(hydae_sim *s, double t, const double *y, const double *yp, double *g)
{
    if (s->n_guards > 0)
        hy_config_local(s, y, yp, &y, &yp);
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        if (mode->n_guards == 0)
            continue;
        int off = s->var_offset[c], goff = s->guard_offset[c];
        hy_block *b = &s->blocks[c];
        int status = b->ops->guards(b, t, y + off, yp + off, g + goff);
        if (status)
            return status;
        for (int k = 0; k < mode->n_guards; k++)
            if (isnan(g[goff + k])) {
                hy_sim_fail(s, "guard %d of mode '%s' is NaN at t = %.17g", k, mode->name, t);
                return HYDAE_ERR_GUARD;
            }
    }
    return 0;
}

static signed char sign_of(double v)
{
    return v > 0.0 ? 1 : (v < 0.0 ? -1 : 0);
}

/* Half-width of the band around zero inside which a guard does not arm. */
static double arming_band(const hydae_sim *s)
{
    return 10.0 * hy_base_atol(s);
}

static int look_ahead(hydae_sim *s, double t);

/* Did the discrete phase change the state of chart c (same mode before
** and after)? Differential components are held by consistent
** initialisation, so any change of theirs is an action's reset; algebraic
** ones are recomputed, and compared in the error weights so that round-off
** is no change. */
static int chart_state_changed(const hydae_sim *s, int c)
{
    int off = s->var_offset[c], prev_off = s->guards.prev_var_offset[c];
    for (int v = 0; v < s->var_offset[c + 1] - off; v++) {
        int i = hy_unknown_of(s, off + v);
        double before = s->guards.prev_y[prev_off + v], after = s->y[i];
        if (!s->is_algebraic[i]) {
            if (after != before)
                return 1;
            continue;
        }
        double weight = hy_component_rtol(s, i) * fabs(before) + hy_component_atol(s, i);
        if (fabs(after - before) > 10.0 * weight)
            return 1;
    }
    return 0;
}

/* Sign of guard k (chart c, its j-th) after a discrete phase, when a
** reference from before it exists (see the head comment); g is its value
** now and g_ahead its value a moment later along y + delta y'. */
static int sign_after_event(const hydae_sim *s, int c, int j, double g, double g_ahead)
{
    int prev_k = s->guards.prev_guard_offset[c] + j;
    int same_mode = s->guards.prev_active[c] == s->active[c];
    if (same_mode && !s->guards.chart_fired[c])
        return s->guards.prev_sign[prev_k];
    if (fabs(g) > arming_band(s))
        return sign_of(g);
    int crossed_dir = s->guards.prev_crossed[prev_k];
    if (!same_mode || crossed_dir == 0)
        return 0;
    /* It crossed at this instant. On the crossed side and turned back by
    ** a reset (a ball without h := 0, left a rounding error below the
    ** floor), or moving on unchanged: it has crossed, and fires again only
    ** after truly coming back. Short of zero and moving on (a crossing of
    ** the same instant located a few ulps later): it has crossed all the
    ** same. At zero (h := 0), short of zero moving back, or past zero with
    ** a reset that did not turn it back: it is on the side it came from,
    ** and its next crossing fires. */
    double motion = g_ahead - g;
    int reset = chart_state_changed(s, c);
    if (sign_of(g) == crossed_dir)
        return sign_of(motion) == crossed_dir && reset ? -crossed_dir : crossed_dir;
    if (g != 0.0)
        return sign_of(motion) == crossed_dir ? crossed_dir : -crossed_dir;
    return reset ? -crossed_dir : crossed_dir;
}

int hy_guards_arm(hydae_sim *s)
{
    s->guards.armed = 1;
    s->guards.slopes_valid = 0;
    if (s->n_guards == 0)
        return 0;
    int status = hy_guards_eval(s, s->t, s->y, s->yp, s->guards.g_start);
    if (status)
        return status;
    if (s->guards.have_prev) {
        status = look_ahead(s, s->t);
        if (status)
            return status;
    }
    for (int c = 0; c < s->model->n_charts; c++)
        for (int j = 0; j < s->active[c]->n_guards; j++) {
            int k = s->guard_offset[c] + j;
            double g = s->guards.g_start[k];
            int sign = s->guards.have_prev ? sign_after_event(s, c, j, g, s->guards.g_work[k])
                                    : (fabs(g) > arming_band(s) ? sign_of(g) : 0);
            s->guards.g_sign[k] = (signed char)sign;
        }
    return 0;
}

/* Does a transition of the active mode listen to guard k crossing in
** direction dir? With directional_only, transitions on HYDAE_BOTH do not
** count. */
static int listens(const hydae_sim *s, int k, int dir, int directional_only)
{
    for (int c = 0; c < s->model->n_charts; c++) {
        int goff = s->guard_offset[c];
        const hydae_mode *mode = s->active[c];
        if (k < goff || k >= goff + mode->n_guards)
            continue;
        const hydae_chart *chart = mode->chart;
        for (int i = 0; i < chart->n_transitions; i++) {
            const hydae_transition *tr = chart->transitions[i];
            if (tr->from != mode || tr->trigger != HY_TRIGGER_GUARD || tr->guard != k - goff)
                continue;
            if ((int)tr->direction == dir || (tr->direction == HYDAE_BOTH && !directional_only))
                return 1;
        }
    }
    return 0;
}

/* Direction of a relevant crossing of guard k whose value is now g, or 0.
** An armed guard crosses when its sign changes strictly (touching zero
** and turning back is no crossing). An
** unarmed guard crosses when it leaves the band on the side a directional
** trigger fires into: it came from zero and went decisively there (a ball
** whose bounces have become smaller than the band still hits the floor). */
static int crossing(const hydae_sim *s, int k, double g)
{
    int dir = 0;
    if (s->guards.g_sign[k] < 0 && g > 0.0)
        dir = 1;
    else if (s->guards.g_sign[k] > 0 && g < 0.0)
        dir = -1;
    if (dir != 0)
        return listens(s, k, dir, 0) ? dir : 0;
    if (s->guards.g_sign[k] == 0 && fabs(g) > arming_band(s)) {
        dir = g > 0.0 ? 1 : -1;
        return listens(s, k, dir, 1) ? dir : 0;
    }
    return 0;
}

static void follow_signs(hydae_sim *s, const double *g);

/* Guards a moment after t along y + delta y' (from the dense output at t),
** into g_work. */
static int look_ahead(hydae_sim *s, double t)
{
    int status = hy_interpolate(s, t, s->y_work, s->yp_work);
    if (status)
        return status;
    double delta = 1e-8 * fmax(1.0, fabs(t));
    for (int i = 0; i < s->n; i++)
        s->y_work[i] += delta * s->yp_work[i];
    return hy_guards_eval(s, t + delta, s->y_work, s->yp_work, s->guards.g_work);
}

/* Guard k keeps its sign at both ends of [t_a, t_b]: does it dip across
** zero and back in between (an extremum on the far side of zero)? If a
** transition listens to one of the two crossings, the earlier of those it
** listens to is bracketed into *t_lo, *t_hi (values g_lo, g_hi) with its
** direction in *dir. Returns 1 when found, 0 if not, < 0 on error. */
static int dip_crossing(hydae_sim *s, int k, double t_a, double t_b, int *dir, double *t_lo,
                        double *g_lo, double *t_hi, double *g_hi)
{
    int sign = s->guards.g_sign[k];
    double g_a = s->guards.g_start[k], g_b = s->guards.g_end[k];
    if (sign == 0 || sign_of(g_a) != sign || sign_of(g_b) != sign)
        return 0;
    /* Moving towards zero at t_a and away from it at t_b. */
    if (!(sign * s->guards.g_slope_start[k] < 0.0 && sign * s->guards.g_slope_end[k] > 0.0))
        return 0;
    int down = listens(s, k, -sign, 0), back = listens(s, k, sign, 0);
    if (!down && !back)
        return 0;
    double t_past, g_past;
    int found = hy_guard_dip(s, k, sign, t_a, g_a, s->guards.g_slope_start[k], t_b, g_b,
                             s->guards.g_slope_end[k], hy_dip_floor(g_a, g_b), &t_past, &g_past);
    if (found <= 0)
        return found;
    if (down) {
        *dir = -sign;
        *t_lo = t_a, *g_lo = g_a, *t_hi = t_past, *g_hi = g_past;
    } else {
        *dir = sign;
        *t_lo = t_past, *g_lo = g_past, *t_hi = t_b, *g_hi = g_b;
    }
    return 1;
}

/* Where guard k crosses in [t_a, t_b] (the candidate direction into
** g_crossed[k], the located time into g_root[k]); 0 or < 0 on error. */
static int guard_root(hydae_sim *s, int k, double t_a, double t_b, int at_step_end,
                      int *looked_ahead)
{
    double *roots = s->guards.g_root;
    int dir = crossing(s, k, s->guards.g_end[k]);
    roots[k] = INFINITY;
    s->guards.g_crossed[k] = 0;
    if (dir == 0 && at_step_end && s->guards.g_end[k] == 0.0 && s->guards.g_sign[k] != 0) {
        /* Exactly zero at the step's end: crossing here if it goes on to
        ** the other side, touching if it turns back. */
        if (!*looked_ahead) {
            int status = look_ahead(s, t_b);
            if (status)
                return status;
            *looked_ahead = 1;
        }
        int ahead = sign_of(s->guards.g_work[k]);
        if (ahead == -s->guards.g_sign[k] && listens(s, k, ahead, 0)) {
            roots[k] = t_b;
            s->guards.g_crossed[k] = (signed char)ahead;
        }
        return 0;
    }
    double t_lo = t_a, t_hi = t_b, g_lo, g_hi, level = 0.0;
    if (dir == 0) {
        if (s->guards.g_end[k] == 0.0)
            return 0;
        int found = dip_crossing(s, k, t_a, t_b, &dir, &t_lo, &g_lo, &t_hi, &g_hi);
        if (found <= 0)
            return found;
    } else {
        /* The zero crossing; for an unarmed guard that started inside the
        ** band on the crossed side, the band's edge. */
        if (s->guards.g_sign[k] == 0 && dir * s->guards.g_start[k] >= 0.0)
            level = dir * arming_band(s);
        g_lo = s->guards.g_start[k] - level;
        g_hi = s->guards.g_end[k] - level;
    }
    int status = hy_root_bracket(s, k, dir, level, t_lo, g_lo, t_hi, g_hi, &roots[k]);
    if (status)
        return status;
    s->guards.g_crossed[k] = (signed char)dir;
    return 0;
}

/* The level a plain crossing of guard k in direction dir is measured
** from: zero, or for an unarmed guard that started inside the band on the
** crossed side, the band's edge. */
static double crossing_level(const hydae_sim *s, int k, int dir)
{
    if (s->guards.g_sign[k] == 0 && dir * s->guards.g_start[k] >= 0.0)
        return dir * arming_band(s);
    return 0.0;
}

static int past_level(double g, int dir, double level)
{
    return dir > 0 ? g - level > 0.0 : g - level < 0.0;
}

/* Plain crossings (a sign change over the interval) waiting in locate_in. */
enum { GUARD_DONE = 0, GUARD_WAITING = 1, GUARD_IN_INSTANT = 2 };

/* The waiting guard whose crossing the secant through its ends puts
** first, or -1. */
static int earliest_waiting(const hydae_sim *s, double t_a, double t_b)
{
    const hy_guard_set *gs = &s->guards;
    int best = -1;
    double best_t = INFINITY;
    for (int k = 0; k < s->n_guards; k++) {
        if (gs->g_state[k] != GUARD_WAITING)
            continue;
        double level = crossing_level(s, k, gs->g_crossed[k]);
        double g_a = gs->g_start[k] - level, g_b = gs->g_end[k] - level;
        double t_est = g_b != g_a ? t_a - g_a * (t_b - t_a) / (g_b - g_a) : t_a;
        if (best < 0 || t_est < best_t)
            best = k, best_t = t_est;
    }
    return best;
}

/* Bracket waiting guard k's crossing between t_a (values g_start) and t_hi
** (values g_hi). */
static int bracket_waiting(hydae_sim *s, int k, double t_a, double t_hi, const double *g_hi)
{
    hy_guard_set *gs = &s->guards;
    int dir = gs->g_crossed[k];
    double level = crossing_level(s, k, dir);
    gs->g_state[k] = GUARD_DONE;
    return hy_root_bracket(s, k, dir, level, t_a, gs->g_start[k] - level, t_hi,
                           g_hi[k] - level, &gs->g_root[k]);
}

/* The waiting crossings against the first located one, t_first: with the
** guards evaluated at the instant's end (t_first + its grouping tolerance)
** and just before t_first, a guard that has not crossed at the end crosses
** after the instant; one that crosses between the two belongs to it (its
** exact time is not needed); one that crossed before t_first is bracketed
** and is the new first, and the sorting starts again. Two evaluations of
** the guards instead of a bracket per guard: a bank of diodes switching at
** one instant costs O(G) evaluations, not O(G^2). */
static int sort_waiting(hydae_sim *s, double t_a, double t_b, double *t_first)
{
    hy_guard_set *gs = &s->guards;
    for (;;) {
        int any = 0;
        for (int k = 0; k < s->n_guards && !any; k++)
            any = gs->g_state[k] == GUARD_WAITING;
        if (!any)
            return 0;
        double t_up = fmin(t_b, *t_first + hy_event_group_tol(*t_first));
        double t_left = nextafter(*t_first, -INFINITY);
        const double *g_up = gs->g_end, *g_left = gs->g_start;
        int status = 0;
        if (t_up < t_b) {
            status = hy_guards_at(s, t_up, gs->g_up);
            g_up = gs->g_up;
        }
        if (!status && t_left > t_a) {
            status = hy_guards_at(s, t_left, gs->g_left);
            g_left = gs->g_left;
        }
        if (status)
            return status;
        int earlier = -1;
        for (int k = 0; k < s->n_guards; k++) {
            if (gs->g_state[k] != GUARD_WAITING)
                continue;
            int dir = gs->g_crossed[k];
            double level = crossing_level(s, k, dir);
            if (!past_level(g_up[k], dir, level)) {
                gs->g_state[k] = GUARD_DONE; /* after the instant */
                gs->g_crossed[k] = 0;
                gs->g_root[k] = INFINITY;
            } else if (!past_level(g_left[k], dir, level)) {
                gs->g_state[k] = GUARD_IN_INSTANT;
                gs->g_root[k] = *t_first;
            } else if (earlier < 0) {
                earlier = k;
            }
        }
        if (earlier < 0)
            return 0;
        status = bracket_waiting(s, earlier, t_a, t_left, g_left);
        if (status)
            return status;
        *t_first = fmin(*t_first, gs->g_root[earlier]);
        for (int k = 0; k < s->n_guards; k++) /* sorted against the old first: again */
            if (gs->g_state[k] == GUARD_IN_INSTANT)
                gs->g_state[k] = GUARD_WAITING;
    }
}

/* The first relevant crossing in [t_a, t_b], with g_start the guards at
** t_a and g_end at t_b; at_step_end: t_b ends the integrator's step. */
static int locate_in(hydae_sim *s, double t_a, double t_b, int at_step_end, double *t_event)
{
    hy_guard_set *gs = &s->guards;
    int looked_ahead = 0;
    double t_first = INFINITY;
    for (int k = 0; k < s->n_guards; k++) {
        int dir = crossing(s, k, gs->g_end[k]);
        gs->g_state[k] = dir != 0 ? GUARD_WAITING : GUARD_DONE;
        if (dir != 0) { /* a sign change: bracketed or sorted below */
            gs->g_crossed[k] = (signed char)dir;
            gs->g_root[k] = INFINITY;
            continue;
        }
        int status = guard_root(s, k, t_a, t_b, at_step_end, &looked_ahead);
        if (status)
            return status;
        t_first = fmin(t_first, gs->g_root[k]);
    }
    int first = earliest_waiting(s, t_a, t_b);
    if (first >= 0) {
        int status = bracket_waiting(s, first, t_a, t_b, gs->g_end);
        if (status)
            return status;
        t_first = fmin(t_first, gs->g_root[first]);
        status = sort_waiting(s, t_a, t_b, &t_first);
        if (status)
            return status;
    }
    for (int k = 0; k < s->n_guards; k++)
        gs->g_state[k] = GUARD_DONE;
    if (t_first == INFINITY)
        return 0;
    /* Crossings located within the grouping tolerance of the first belong
    ** to its instant. */
    double tol = hy_event_group_tol(t_first);
    for (int k = 0; k < s->n_guards; k++) {
        if (gs->g_root[k] > t_first + tol)
            gs->g_crossed[k] = 0;
        else if (gs->g_crossed[k] != 0 && gs->g_sign[k] == 0)
            gs->event_from_band = 1;
    }
    *t_event = t_first;
    return 1;
}

/* Guards are sampled at guard_samples interior points of the step's dense
** output as well as at its end, with their time derivatives along it. In
** each sub-interval a crossing is a sign change, or, with both ends on the
** same side, an extremum on the far side of zero (dip_crossing): a guard
** whose derivative along the solution changes sign at most once per
** sub-interval cannot be missed. */
int hy_guards_locate(hydae_sim *s, double t_new, double *t_event)
{
    if (s->n_guards == 0)
        return 0;
    s->guards.event_from_band = 0;
    int n_parts = s->set.guard_samples + 1;
    double t_a = s->t, width = t_new - s->t, part = width / n_parts;
    int status;
    if (!s->guards.slopes_valid) {
        status = hy_guards_at_with_slopes(s, t_a, part, s->guards.g_work, s->guards.g_slope_start);
        if (status)
            return status;
    }
    for (int j = 1; j <= n_parts; j++) {
        double t_b = j == n_parts ? t_new : s->t + width * j / n_parts;
        status = hy_guards_at_with_slopes(s, t_b, part, s->guards.g_end, s->guards.g_slope_end);
        if (status)
            return status;
        int found = locate_in(s, t_a, t_b, j == n_parts, t_event);
        if (found) {
            s->guards.slopes_valid = 0;
            return found;
        }
        if (j < n_parts) {
            follow_signs(s, s->guards.g_end);
            memcpy(s->guards.g_start, s->guards.g_end, sizeof(double) * (size_t)s->n_guards);
            memcpy(s->guards.g_slope_start, s->guards.g_slope_end, sizeof(double) * (size_t)s->n_guards);
            t_a = t_b;
        }
    }
    return 0;
}

/* After an examined interval ending at s->t with guard values g: crossed
** guards take their crossing's sign; an armed guard follows its sign; an
** unarmed one arms outside the band. */
static void follow_signs(hydae_sim *s, const double *g)
{
    double band = arming_band(s);
    for (int k = 0; k < s->n_guards; k++) {
        signed char sg = sign_of(g[k]);
        if (s->guards.g_crossed[k] != 0)
            s->guards.g_sign[k] = s->guards.g_crossed[k];
        else if (sg != 0 && (s->guards.g_sign[k] != 0 || fabs(g[k]) > band))
            s->guards.g_sign[k] = sg;
    }
}

int hy_guards_mark_crossings(hydae_sim *s, const double *g)
{
    int n_marked = 0;
    for (int k = 0; k < s->n_guards; k++) {
        s->guards.g_crossed[k] = (signed char)crossing(s, k, g[k]);
        n_marked += s->guards.g_crossed[k] != 0;
    }
    return n_marked;
}

int hy_guards_join_instant(hydae_sim *s)
{
    if (s->n_guards == 0)
        return 0;
    int status = hy_guards_eval(s, s->t, s->y, s->yp, s->guards.g_end);
    if (!status)
        status = look_ahead(s, s->t);
    if (status)
        return status;
    double delta = 1e-8 * fmax(1.0, fabs(s->t)), tol = hy_time_tol(s->t);
    for (int k = 0; k < s->n_guards; k++) {
        double g = s->guards.g_end[k], slope = (s->guards.g_work[k] - g) / delta;
        int dir = -s->guards.g_sign[k];
        if (s->guards.g_crossed[k] != 0 || dir == 0 || sign_of(g) == dir || sign_of(slope) != dir)
            continue;
        if (fabs(g) <= fabs(slope) * tol && listens(s, k, dir, 0))
            s->guards.g_crossed[k] = (signed char)dir;
    }
    return 0;
}

/* Mark the guards of the active modes' transitions that fire on being
** past zero now, every other mark cleared (those of the discrete phase
** just run): at t0 (at_start) those that fire at the start, and the level
** transitions past the arming band (after an event from the values
** hy_guards_arm took). Their number into *n_marked. */
static int mark_levels(hydae_sim *s, int at_start, int *n_marked)
{
    *n_marked = 0;
    memset(s->guards.g_crossed, 0, (size_t)s->n_guards);
    if (s->n_guards == 0)
        return 0;
    const double *values = s->guards.g_start;
    if (at_start) {
        int status = hy_guards_eval(s, s->t, s->y, s->yp, s->guards.g_work);
        if (status)
            return status;
        values = s->guards.g_work;
    }
    double band = arming_band(s);
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_chart *chart = s->active[c]->chart;
        for (int i = 0; i < chart->n_transitions; i++) {
            const hydae_transition *tr = chart->transitions[i];
            if (tr->from != s->active[c] || tr->trigger != HY_TRIGGER_GUARD)
                continue;
            int k = s->guard_offset[c] + tr->guard;
            double g = values[k];
            int side = sign_of(g);
            int past = (at_start && tr->fires_at_start) || (tr->level && fabs(g) > band);
            if (!past || side == 0 || s->guards.g_crossed[k] != 0
                || !(tr->direction == HYDAE_BOTH || (int)tr->direction == side))
                continue;
            if (tr->level && tr->condition) { /* a level test fires only where it would */
                hydae_action ctx = { s, tr, s->t, 0 };
                int holds = tr->condition(&ctx, tr->condition_user);
                if (ctx.status)
                    return ctx.status;
                if (!holds)
                    continue;
            }
            s->guards.g_crossed[k] = (signed char)side;
            (*n_marked)++;
        }
    }
    return 0;
}

int hy_guards_mark_at_start(hydae_sim *s)
{
    int n_marked;
    return mark_levels(s, 1, &n_marked);
}

int hy_guards_mark_levels(hydae_sim *s, int *n_marked)
{
    return mark_levels(s, 0, n_marked);
}

void hy_guards_advance(hydae_sim *s)
{
    follow_signs(s, s->guards.g_end);
    memcpy(s->guards.g_start, s->guards.g_end, sizeof(double) * (size_t)s->n_guards);
    memcpy(s->guards.g_slope_start, s->guards.g_slope_end, sizeof(double) * (size_t)s->n_guards);
    s->guards.slopes_valid = 1;
}

int hy_guards_restart_scan(hydae_sim *s)
{
    if (s->n_guards == 0)
        return 0;
    s->guards.slopes_valid = 0;
    int status = hy_guards_eval(s, s->t, s->y, s->yp, s->guards.g_start);
    if (status)
        return status;
    follow_signs(s, s->guards.g_start);
    return 0;
}

/* ---- time events ---- */

int hy_check_sample_periods(hydae_sim *s)
{
    double t_far = fmax(fabs(s->set.t0), fabs(s->set.t_end));
    double resolution = 2.0 * hy_time_tol(t_far);
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_chart *chart = s->model->charts[c];
        for (int i = 0; i < chart->n_transitions; i++) {
            const hydae_transition *tr = chart->transitions[i];
            if (tr->trigger == HY_TRIGGER_SAMPLE && !(tr->period > resolution)) {
                hy_sim_fail(s, "transition '%s' (%s -> %s): the sample period %g is below the "
                            "time resolution of event times over [%g, %g] (%g): its ticks "
                            "cannot be told apart", tr->name, tr->from->name, tr->to->name,
                            tr->period, s->set.t0, s->set.t_end, resolution);
                return HYDAE_ERR_ARG;
            }
        }
    }
    return 0;
}

/* The first tick of a sample clock strictly after t (+ tolerance). */
static double next_tick(const hydae_transition *tr, double t)
{
    double tol = hy_time_tol(t);
    if (tr->t_start > t + tol)
        return tr->t_start;
    double k = floor((t - tr->t_start) / tr->period);
    double tick = tr->t_start + k * tr->period;
    while (tick <= t + tol)
        tick = tr->t_start + (++k) * tr->period;
    return tick;
}

int hy_time_event_due(const hydae_transition *tr, double t)
{
    double tol = hy_time_tol(t);
    if (tr->trigger == HY_TRIGGER_TIME)
        return fabs(t - tr->t_event) <= tol;
    if (tr->trigger == HY_TRIGGER_SAMPLE) {
        if (t < tr->t_start - tol)
            return 0;
        double k = nearbyint((t - tr->t_start) / tr->period);
        return fabs(tr->t_start + k * tr->period - t) <= tol;
    }
    return 0;
}

int hy_time_event_pending(const hydae_sim *s, double t)
{
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        for (int i = 0; i < mode->chart->n_transitions; i++) {
            const hydae_transition *tr = mode->chart->transitions[i];
            if (tr->from == mode && hy_time_event_due(tr, t))
                return 1;
        }
        if (hy_schedule_due(s, c, t))
            return 1;
    }
    return 0;
}

double hy_next_time_event(const hydae_sim *s, double t)
{
    double t_next = s->set.t_end;
    double tol = hy_time_tol(t);
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        const hydae_chart *chart = mode->chart;
        for (int i = 0; i < chart->n_transitions; i++) {
            const hydae_transition *tr = chart->transitions[i];
            if (tr->from != mode)
                continue;
            double te = INFINITY;
            if (tr->trigger == HY_TRIGGER_TIME && tr->t_event > t + tol)
                te = tr->t_event;
            else if (tr->trigger == HY_TRIGGER_SAMPLE)
                te = next_tick(tr, t);
            if (te < t_next)
                t_next = te;
        }
        t_next = fmin(t_next, hy_scheduled_after(s, c, t)); /* hydae_action_schedule */
    }
    return t_next;
}
