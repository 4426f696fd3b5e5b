/*
** The discrete phase (Enge-Rosenblatt et al., sec. 4.2, Fig. 6): time is
** frozen; one update fires, in every chart in declaration order, the first
** transition of its active mode whose trigger is among the active events
** and whose condition holds. Events raised by actions are collected as
** waiting events; while any are waiting they become the active events of
** another update. The number of updates is bounded by the cascade limit,
** beyond which the run stops with the transitions that kept firing.
**
** Actions read and write values by name through the value store, so
** mapping the old mode's values onto the new mode is reading the same slot.
*/
#include "sim.h"

#include <math.h>
#include <string.h>

double hydae_action_time(const hydae_action *a)
{
    return a ? a->t : NAN;
}

int hydae_action_is_initial(const hydae_action *a)
{
    return a && !a->tr;
}

double hydae_get(const hydae_action *a, const char *name)
{
    if (!a || !name)
        return NAN;
    int slot = hy_model_find_slot(a->sim->model, name);
    return slot < 0 ? NAN : a->sim->store[slot];
}

static int action_error(hydae_action *a, int status, const char *what, const char *name)
{
    const hydae_transition *tr = a->tr;
    if (tr)
        hy_sim_fail(a->sim, "transition '%s' (%s -> %s) at t = %.17g: %s '%s'", tr->name,
                    tr->from->name, tr->to->name, a->t, what, name ? name : "(null)");
    else
        hy_sim_fail(a->sim, "initial action at t = %.17g: %s '%s'", a->t, what,
                    name ? name : "(null)");
    if (a->status == 0)
        a->status = status;
    return status;
}

/* The initial action sets the start values (those computed from the
** parameters of the run): one that is not finite is named as such. */
static int start_not_finite(hydae_action *a, const char *name, double value)
{
    const hydae_mode *mode = NULL;
    for (int c = 0; c < a->sim->model->n_charts && !mode; c++)
        if (hy_mode_find_var(a->sim->active[c], name, NULL))
            mode = a->sim->active[c];
    char where[300] = "";
    if (mode)
        hy_format(where, sizeof where, " of mode '%s'", mode->name);
    hy_sim_fail(a->sim, "the start value of %s '%s'%s is not finite (%s) at t = %.17g, as the "
                "initial action computed it from the parameters of the run; give it a finite "
                "start value", mode ? "variable" : "discrete variable", name, where,
                isnan(value) ? "NaN" : value > 0 ? "+inf" : "-inf", a->t);
    if (a->status == 0)
        a->status = HYDAE_ERR_ACTION;
    return HYDAE_ERR_ACTION;
}

int hydae_set(hydae_action *a, const char *name, double value)
{
    if (!a)
        return HYDAE_ERR_ARG;
    if (!name)
        return action_error(a, HYDAE_ERR_ACTION, "cannot set", name);
    const hydae_model *m = a->sim->model;
    int slot = hy_model_find_slot(m, name);
    int is_global = slot >= 0 && slot < m->n_globals;
    if (!is_global && a->tr && !hy_mode_find_var(a->tr->to, name, NULL)) {
        char what[200];
        hy_format(what, sizeof what, "cannot set a name that is neither a variable of mode "
                  "'%s' nor a parameter or discrete variable:", a->tr->to->name);
        return action_error(a, HYDAE_ERR_ACTION, what, name);
    }
    if (!is_global && !a->tr) {
        /* The initial action: a variable of any initial mode. */
        int found = 0;
        for (int c = 0; c < m->n_charts && !found; c++)
            found = hy_mode_find_var(a->sim->active[c], name, NULL);
        if (!found)
            return action_error(a, HYDAE_ERR_ACTION, "cannot set a name that is neither a "
                                "variable of an initial mode nor a parameter or discrete "
                                "variable:", name);
    }
    if (!isfinite(value) && !a->tr)
        return start_not_finite(a, name, value);
    if (!isfinite(value))
        return action_error(a, HYDAE_ERR_ACTION, "a value that is not finite was set for",
                            name);
    a->sim->store[slot] = value;
    return 0;
}

int hydae_raise(hydae_action *a, const char *event)
{
    if (!a)
        return HYDAE_ERR_ARG;
    if (!a->tr)
        return action_error(a, HYDAE_ERR_ACTION, "cannot raise events; it raised", event);
    int id = event ? hy_model_find_event(a->sim->model, event) : -1;
    if (id < 0)
        return action_error(a, HYDAE_ERR_ACTION, "no transition listens to the raised event",
                            event);
    a->sim->event_waiting[id] = 1;
    return 0;
}

/* ---- run-time seams: scheduled time events, a stop on request ---- */

void hy_seams_reset(hydae_sim *s)
{
    for (int c = 0; c < s->model->n_charts; c++) {
        s->scheduled[c] = INFINITY;
        s->schedule_due[c] = s->step_event[c] = 0;
    }
    s->stop_requested = 0;
    s->stop_reason[0] = '\0';
    hy_nominal_reset(s);
}

double hy_scheduled_after(const hydae_sim *s, int c, double t)
{
    return s->scheduled[c] > t + hy_time_tol(t) ? s->scheduled[c] : INFINITY;
}

int hy_schedule_due(const hydae_sim *s, int c, double t)
{
    return isfinite(s->scheduled[c]) && fabs(t - s->scheduled[c]) <= hy_time_tol(t);
}

int hydae_action_schedule(hydae_action *a, const hydae_chart *chart, double t)
{
    if (!a)
        return HYDAE_ERR_ARG;
    if (!chart && a->tr)
        chart = a->tr->chart;
    if (!chart || chart->model != a->sim->model)
        return action_error(a, HYDAE_ERR_ACTION, "a time can only be scheduled for a chart of "
                            "the model (the initial action names it); chart",
                            chart ? chart->name : "(none)");
    if (isnan(t) || !(t > a->t + hy_time_tol(a->t))) {
        char what[160];
        hy_format(what, sizeof what, "a scheduled time must lie after now (%.17g); it was "
                  "%.17g, for chart", a->t, t);
        return action_error(a, HYDAE_ERR_ACTION, what, chart->name);
    }
    a->sim->scheduled[chart->index] = t;
    return 0;
}

int hydae_action_stop(hydae_action *a, const char *reason)
{
    if (!a)
        return HYDAE_ERR_ARG;
    hydae_sim *s = a->sim;
    if (!s->stop_requested)
        hy_format(s->stop_reason, sizeof s->stop_reason, "%s", reason && reason[0] ? reason
                  : "stopped by an action");
    s->stop_requested = 1;
    return 0;
}

const char *hydae_sim_stop_reason(const hydae_sim *s)
{
    return s && s->stop_requested ? s->stop_reason : NULL;
}

/* Time events scheduled for now are due in this phase, and used up. */
static void take_due_schedules(hydae_sim *s, double t)
{
    for (int c = 0; c < s->model->n_charts; c++) {
        s->schedule_due[c] = (unsigned char)hy_schedule_due(s, c, t);
        if (s->schedule_due[c])
            s->scheduled[c] = INFINITY;
    }
}

/* Is transition tr (from the active mode of its chart) triggered? */
static int triggered(const hydae_sim *s, const hydae_transition *tr, int round, double t)
{
    switch (tr->trigger) {
    case HY_TRIGGER_GUARD: {
        if (round > 0)
            return 0;
        int dir = s->guards.g_crossed[s->guard_offset[tr->chart->index] + tr->guard];
        return dir != 0 && (tr->direction == HYDAE_BOTH || (int)tr->direction == dir);
    }
    case HY_TRIGGER_TIME:
    case HY_TRIGGER_SAMPLE:
        /* Once per instant: a crossing located a rounding error after a
        ** time event's instant is not the time event again. */
        return round == 0 && hy_time_event_due(tr, t)
               && !(t != s->t_time_instant && fabs(t - s->t_time_instant) <= 2.0 * hy_time_tol(t));
    case HY_TRIGGER_EVENT:
        return s->event_active[tr->event_id];
    case HY_TRIGGER_SCHEDULE:
        return round == 0 && s->schedule_due[tr->chart->index];
    case HY_TRIGGER_STEP:
        return round == 0 && s->step_event[tr->chart->index];
    default:
        return 0;
    }
}

int hydae_sim_set_fired_hook(hydae_sim *s, hydae_fired_fn fn, void *user)
{
    if (!s)
        return HYDAE_ERR_ARG;
    s->fired_fn = fn;
    s->fired_user = user;
    return 0;
}

static int log_fired(hydae_sim *s, const hydae_transition *tr)
{
    if (hy_reserve((void **)&s->fired_log, &s->cap_fired_log, s->n_fired_log + 1,
                   sizeof(hydae_transition *)))
        return HYDAE_ERR_NOMEM;
    s->fired_log[s->n_fired_log++] = tr;
    return 0;
}

void hy_describe_transitions(char *out, size_t size, const hydae_transition *const *list,
                             int n)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n && used < size - 1; i++) {
        const hydae_transition *tr = list[i];
        int seen = !tr;
        for (int j = 0; j < i; j++)
            seen |= list[j] == tr;
        if (seen)
            continue;
        int written = snprintf(out + used, size - used, "%s'%s' (%s -> %s)", used ? ", " : "",
                               tr->name, tr->from->name, tr->to->name);
        if (written < 0)
            break;
        used += (size_t)written;
    }
}

/* The cycle: the distinct transitions among the last firings. */
static int cascade_failure(hydae_sim *s, double t)
{
    enum { CYCLE_WINDOW = 16 };
    int first = s->n_fired_log > CYCLE_WINDOW ? s->n_fired_log - CYCLE_WINDOW : 0;
    char cycle[640];
    hy_describe_transitions(cycle, sizeof cycle, s->fired_log + first, s->n_fired_log - first);
    hy_sim_fail(s, "event cascade limit (%d updates) reached at t = %.17g: the transitions "
                "%s keep raising events for each other", s->set.cascade_limit, t, cycle);
    return HYDAE_ERR_CASCADE;
}

int hy_initial_action(hydae_sim *s, double t)
{
    const hydae_model *m = s->model;
    if (!m->initial_action)
        return 0;
    hydae_action ctx = { s, NULL, t, 0 };
    int status = m->initial_action(&ctx, m->initial_action_user);
    if (ctx.status)
        return ctx.status;
    if (status < 0) {
        hy_sim_fail(s, "the initial action returned %d at t = %.17g", status, t);
        return HYDAE_ERR_ACTION;
    }
    return 0;
}

/* A mode's entry or exit actions, in order, with ctx (the transition's,
** or the initial action's at t0). */
static int run_mode_hooks(hydae_sim *s, hydae_action *ctx, const hydae_mode *mode,
                          const hy_mode_hook *hook, const char *what)
{
    for (; hook; hook = hook->next) {
        int status = hook->fn(ctx, hook->user);
        if (ctx->status)
            return ctx->status;
        if (status < 0) {
            hy_sim_fail(s, "the %s action of mode '%s' returned %d at t = %.17g", what,
                        mode->name, status, ctx->t);
            return HYDAE_ERR_ACTION;
        }
    }
    return 0;
}

const char *hy_mode_error_text(const hydae_mode *mode)
{
    const char *why = mode->error_text ? mode->error_text(mode->user) : NULL;
    return why ? why : "";
}

const char *hy_mode_error_sep(const hydae_mode *mode)
{
    return hy_mode_error_text(mode)[0] ? ": " : "";
}

int hy_initial_entry_actions(hydae_sim *s, double t)
{
    hydae_action ctx = { s, NULL, t, 0 };
    for (int c = 0; c < s->model->n_charts; c++) {
        int status = run_mode_hooks(s, &ctx, s->active[c], s->active[c]->entry_actions,
                                    "entry");
        if (status)
            return status;
    }
    return 0;
}

/* Run transition tr's condition and action at t. 1 if it fired, 0 if its
** condition is false, < 0 on error. */
static int fire(hydae_sim *s, const hydae_transition *tr, double t)
{
    hydae_action ctx = { s, tr, t, 0 };
    if (tr->condition) {
        int holds = tr->condition(&ctx, tr->condition_user);
        if (ctx.status)
            return ctx.status;
        if (!holds)
            return 0;
    }
    int changes_mode = tr->to != tr->from;
    if (changes_mode && tr->from->exit_actions) {
        int status = run_mode_hooks(s, &ctx, tr->from, tr->from->exit_actions, "exit");
        if (status)
            return status;
    }
    if (tr->action) {
        int status = tr->action(&ctx, tr->action_user);
        if (ctx.status)
            return ctx.status;
        if (status < 0) {
            hy_sim_fail(s, "transition '%s' (%s -> %s) at t = %.17g: the action returned %d",
                        tr->name, tr->from->name, tr->to->name, t, status);
            return HYDAE_ERR_ACTION;
        }
    }
    if (changes_mode && tr->to->entry_actions) {
        int status = run_mode_hooks(s, &ctx, tr->to, tr->to->entry_actions, "entry");
        if (status)
            return status;
    }
    s->stats.n_transitions++;
    if (s->fired_fn && s->fired_fn(s->fired_user, t, tr->chart->name, tr->name)) {
        hy_sim_fail(s, "the fired-transition hook stopped the run at transition '%s', t = %.17g",
                    tr->name, t);
        return HYDAE_ERR_CALLBACK;
    }
    return log_fired(s, tr) ? HYDAE_ERR_NOMEM : 1;
}

/* One update of chart c: every transition of its active mode whose
** trigger is active fires, in the chart's fire order (priority, then
** declaration); once one has left the mode, the others still enabled
** are priority conflicts and do not fire. */
static int update_chart(hydae_sim *s, int c, int round, double t, int *n_fired)
{
    const hydae_chart *chart = s->model->charts[c];
    const hydae_mode *mode = s->active[c];
    int left = 0;
    for (int i = 0; i < chart->n_transitions; i++) {
        const hydae_transition *tr = chart->fire_order[i];
        if (tr->from != mode || !triggered(s, tr, round, t))
            continue;
        if (left) {
            /* Enabled too? Then it loses to the one that left. */
            hydae_action ctx = { s, tr, t, 0 };
            int holds = !tr->condition || tr->condition(&ctx, tr->condition_user);
            if (ctx.status)
                return ctx.status;
            s->stats.n_priority_conflicts += holds != 0;
            continue;
        }
        int fired = fire(s, tr, t);
        if (fired < 0)
            return fired;
        if (!fired)
            continue;
        (*n_fired)++;
        s->guards.chart_fired[c] = 1;
        if (tr->to != mode) {
            s->active[c] = tr->to;
            left = 1;
        }
    }
    return 0;
}

/* The events of round 0 at t: crossings and due time events or ticks of
** the active modes' transitions (a guard counts once however many
** transitions listen to it). */
static long count_round0_events(const hydae_sim *s, double t, long *n_time)
{
    long n = 0;
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_chart *chart = s->model->charts[c];
        for (int i = 0; i < chart->n_transitions; i++) {
            const hydae_transition *tr = chart->transitions[i];
            n += tr->from == s->active[c] && triggered(s, tr, 0, t)
                 && (tr->trigger == HY_TRIGGER_TIME || tr->trigger == HY_TRIGGER_SAMPLE);
        }
    }
    *n_time = n;
    /* A due schedule and a step event count once per chart. */
    for (int c = 0; c < s->model->n_charts; c++)
        n += s->schedule_due[c] + s->step_event[c];
    for (int k = 0; k < s->n_guards; k++)
        n += s->guards.g_crossed[k] != 0;
    return n;
}

int hy_discrete_phase(hydae_sim *s, double t, int *n_fired)
{
    const hydae_model *m = s->model;
    size_t n_event_bytes = (size_t)(m->n_events > 0 ? m->n_events : 1);
    memset(s->event_active, 0, n_event_bytes);
    memset(s->event_waiting, 0, n_event_bytes);
    s->n_fired_log = 0;
    *n_fired = 0;
    take_due_schedules(s, t);
    long n_time_events = 0, n_events = count_round0_events(s, t, &n_time_events);
    for (int round = 0;; round++) {
        for (int c = 0; c < m->n_charts; c++) {
            int status = update_chart(s, c, round, t, n_fired);
            if (status)
                return status;
        }
        int any_waiting = 0;
        for (int e = 0; e < m->n_events; e++) {
            s->event_active[e] = s->event_waiting[e];
            any_waiting |= s->event_waiting[e];
            n_events += s->event_waiting[e];
            s->event_waiting[e] = 0;
        }
        if (!any_waiting) {
            if (*n_fired > 0)
                s->stats.n_triggers += n_events;
            if (n_time_events > 0)
                s->t_time_instant = t;
            return 0;
        }
        if (s->interrupt_requested)
            return hy_sim_interrupted(s, t);
        if (round + 1 >= s->set.cascade_limit)
            return cascade_failure(s, t);
    }
}
