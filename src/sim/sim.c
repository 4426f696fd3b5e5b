/*
** The hybrid loop (Enge-Rosenblatt, Bastian, Clauss, Schwarz, "Numerical
** simulation of continuous systems with structural dynamics", sec. 4,
** Figs. 5-7): a discrete phase at frozen time fires transitions until no
** event is waiting; a continuous phase builds the active configuration's
** DAE, finds consistent initial values, and integrates it, checking the
** guards after every accepted step and locating the first crossing on the
** step's dense output, so that no step is ever accepted past an event.
*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "sim.h"

#include "linalg/linsol.h"
#include "core/core.h"


#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- creation and settings ---- */

/* hydae_sim_create out of memory: the message goes on the model. */
static hydae_sim *create_nomem(hydae_model *m, int *status)
{
    hy_format(m->errmsg, sizeof m->errmsg, "model '%s': out of memory creating a simulation",
              m->name);
    if (status)
        *status = HYDAE_ERR_NOMEM;
    return NULL;
}

hydae_sim *hydae_sim_create(hydae_model *m, int *status)
{
    int st = m ? hydae_model_check(m) : HYDAE_ERR_ARG;
    if (status)
        *status = st;
    if (st)
        return NULL;
    hydae_sim *s = hy_calloc(1, sizeof *s);
    if (!s)
        return create_nomem(m, status);
    s->model = m;
    s->config_cache_capacity = HY_CONFIG_CACHE_SIZE;
    s->config_active = -1;
    hy_settings_default(&s->set);
    int n_charts = m->n_charts, n_slots = m->n_slots > 0 ? m->n_slots : 1;
    int n_events = m->n_events > 0 ? m->n_events : 1;
    s->store = hy_malloc(sizeof(double) * (size_t)n_slots);
    s->active = hy_calloc((size_t)n_charts, sizeof(hydae_mode *));
    s->var_offset = hy_calloc((size_t)n_charts + 1, sizeof(int));
    s->guard_offset = hy_calloc((size_t)n_charts + 1, sizeof(int));
    s->blocks = hy_calloc((size_t)n_charts + 1, sizeof *s->blocks);
    s->event_active = hy_calloc((size_t)n_events, 1);
    s->event_waiting = hy_calloc((size_t)n_events, 1);
    s->scheduled = hy_calloc((size_t)n_charts + 1, sizeof *s->scheduled);
    s->schedule_due = hy_calloc((size_t)n_charts + 1, 1);
    s->step_event = hy_calloc((size_t)n_charts + 1, 1);
    int failed = hy_output_reserve(&s->out, m) || hy_guard_set_create(&s->guards, n_charts)
                 || hy_assembly_reserve(&s->assembly, n_charts, m->n_slots)
                 || hy_mode_patterns_copy(s);
    if (failed || !s->store || !s->active || !s->var_offset || !s->guard_offset
        || !s->event_active || !s->event_waiting || !s->blocks || !s->scheduled
        || !s->schedule_due || !s->step_event) {
        hydae_sim_free(s);
        return create_nomem(m, status);
    }
    return s;
}

void hydae_sim_free(hydae_sim *s)
{
    if (!s)
        return;
    hy_output_free(&s->out);
    if (s->integ)
        s->integ_method->destroy(s->integ);
    if (s->blocks)
        for (int c = 0; c < s->model->n_charts; c++)
            hy_block_leave(&s->blocks[c]);
    hy_guard_set_free(&s->guards);
    hy_init_work_free(&s->init);
    hy_jac_work_free(&s->jac);
    hy_assembly_free(&s->assembly);
    hy_config_cache_free(s);
    hy_mode_patterns_free(s);
    void *arrays[] = { s->blocks, s->y, s->yp, s->y_work, s->yp_work, s->res_work,
                       s->is_algebraic, s->rtol_vec, s->atol_vec, s->err_exclude,
                       s->var_index, s->out_work, s->store, s->active, s->var_offset,
                       s->guard_offset, s->event_active, s->event_waiting, s->fired_log,
                       s->scheduled, s->schedule_due, s->step_event, s->param_value,
                       s->param_is_set, s->nominal_value };
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        hy_free(arrays[i]);
    hy_free(s);
}

const char *hydae_sim_errmsg(const hydae_sim *s)
{
    return s ? s->errmsg : "no simulation";
}

void hy_sim_fail(hydae_sim *s, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(s->errmsg, sizeof s->errmsg, fmt, args);
    va_end(args);
}

void hydae_sim_interrupt(hydae_sim *s)
{
    if (s)
        s->interrupt_requested = 1;
}

int hy_sim_interrupted(hydae_sim *s, double t)
{
    hy_sim_fail(s, "interrupted at t = %.17g (a signal, or hydae_sim_interrupt); the rows "
                "up to there are complete", t);
    return HYDAE_INTERRUPTED;
}

double hydae_sim_time(const hydae_sim *s)
{
    return s ? s->t : NAN;
}

const char *hydae_sim_mode_name(const hydae_sim *s, int chart)
{
    if (!s || chart < 0 || chart >= s->model->n_charts || !s->active[chart])
        return NULL;
    return s->active[chart]->name;
}

/* ---- the configuration's DAE ---- */

double hy_event_group_tol(double t)
{
    return 8.0 * (nextafter(fabs(t), INFINITY) - fabs(t));
}

const char *hy_component_name(const hydae_sim *s, int i, const hydae_mode **mode)
{
    const hydae_model *m = s->model;
    if (i >= 0 && i < s->n)
        i = hy_local_of(s, i);
    for (int c = 0; c < m->n_charts; c++) {
        int off = s->var_offset[c];
        if (i >= off && i < s->var_offset[c + 1]) {
            if (mode)
                *mode = s->active[c];
            return s->blocks[c].ops->component_name(&s->blocks[c], i - off);
        }
    }
    if (mode)
        *mode = NULL;
    return "?";
}

int hy_block_outcome(hydae_sim *s, int c, double t, int status, const double *values, int n)
{
    if (status != 0) {
        s->bad_chart = c;
        s->bad_equation = -1;
        s->bad_t = t;
        s->bad_is_nan = 0;
        return status;
    }
    for (int i = 0; i < n; i++)
        if (!isfinite(values[i])) {
            s->bad_chart = c;
            s->bad_equation = i;
            s->bad_t = t;
            s->bad_is_nan = 1;
            return 1;
        }
    return 0;
}

int hy_config_residual(double t, const double *y, const double *yp, double *res, void *ctx)
{
    hydae_sim *s = ctx;
    const double *y_local, *yp_local;
    hy_config_local(s, y, yp, &y_local, &yp_local);
    for (int c = 0; c < s->model->n_charts; c++) {
        hy_block *b = &s->blocks[c];
        int off = s->var_offset[c], row = s->assembly.row_offset[c];
        int n_rows = s->assembly.row_offset[c + 1] - row;
        if (s->var_offset[c + 1] == off && n_rows == 0)
            continue;
        int status = b->ops->residual(b, t, y_local + off, yp_local + off, res + row);
        status = hy_block_outcome(s, c, t, status, res + row, n_rows);
        if (status != 0)
            return status;
    }
    return 0;
}

/* *p resized to n elements of elem_size (at least one). */
static int resize(void **p, int n, size_t elem_size)
{
    size_t bytes;
    if (hy_mul_size((size_t)(n > 0 ? n : 1), elem_size, &bytes))
        return -1;
    void *grown = hy_realloc(*p, bytes);
    if (!grown)
        return -1;
    *p = grown;
    return 0;
}

/* Size the layout's arrays and the parts' for the current configuration. */
static int reserve_config(hydae_sim *s)
{
    int n = s->n;
    if (n > s->cap_n || !s->y) {
        double **vecs[] = { &s->y, &s->yp, &s->y_work, &s->yp_work, &s->res_work,
                            &s->rtol_vec, &s->atol_vec };
        for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
            if (resize((void **)vecs[i], n, sizeof(double)))
                return HYDAE_ERR_NOMEM;
        unsigned char **flags[] = { &s->is_algebraic, &s->err_exclude, &s->var_index };
        for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
            if (resize((void **)flags[i], n, 1))
                return HYDAE_ERR_NOMEM;
        s->cap_n = n;
    }
    if (hy_init_reserve(&s->init, n) || hy_guard_set_reserve(&s->guards, s->n_guards, n))
        return HYDAE_ERR_NOMEM;
    size_t max_block = 0, max_sparse = 0;
    int max_out = 0;
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        if (mode->jacobian && (size_t)mode->n_vars > max_block)
            max_block = (size_t)mode->n_vars; /* a dense Jacobian of its own */
        size_t sparse_values = mode->sparse_jacobian && mode->pattern
                                   ? mode->pattern_user_nnz
                                         + (mode->pattern_map ? mode->pattern->nnz : 0)
                                   : 0; /* what sparse_block (block.c) needs */
        if (sparse_values > max_sparse)
            max_sparse = sparse_values;
        if (mode->n_outputs > max_out)
            max_out = mode->n_outputs;
    }
    if (hy_jac_work_reserve(&s->jac, max_block, max_sparse))
        return HYDAE_ERR_NOMEM;
    if (max_out > s->cap_out_work) {
        if (resize((void **)&s->out_work, max_out, sizeof(double)))
            return HYDAE_ERR_NOMEM;
        s->cap_out_work = max_out;
    }
    return 0;
}

/* Lay out the active configuration and load y from the store by name (a
** variable with no value there takes its start value). Slots of names that
** are not in the configuration are cleared to NaN afterwards. */
static int build_config(hydae_sim *s)
{
    const hydae_model *m = s->model;
    const hy_integrator_ops *method = hy_configuration_method(s);
    int status = hy_check_dense_size(s, method);
    if (status)
        return status;
    int n = 0, ng = 0;
    for (int c = 0; c < m->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        hy_block probe = hy_block_probe(s, mode);
        s->var_offset[c] = n;
        s->guard_offset[c] = ng;
        n += probe.ops->size(&probe, method);
        ng += mode->n_guards;
    }
    s->var_offset[m->n_charts] = n;
    s->guard_offset[m->n_charts] = ng;
    status = hy_assembly_layout(s, n);
    if (status)
        return status;
    s->n = n; /* the blocks enter in their own layout, folded below */
    s->n_guards = ng;
    status = reserve_config(s);
    if (status)
        return status;
    s->has_var_index = 0;
    s->init.n = 0;
    s->tol_uniform = -1;
    for (int c = 0; c < m->n_charts; c++) {
        hy_block *b = &s->blocks[c];
        int off = s->var_offset[c];
        hy_block_leave(b);
        *b = hy_block_probe(s, s->active[c]);
        status = b->ops->enter(b, off, method);
        if (status)
            return status;
        s->has_var_index |= b->uses_var_index;
        if (!b->ops->owns_state)
            for (int i = s->assembly.row_offset[c]; i < s->assembly.row_offset[c + 1]; i++)
                s->init.rows[s->init.n++] = i;
    }
    hy_assembly_fold(s);
    for (int i = m->n_globals; i < m->n_slots; i++)
        s->store[i] = NAN;
    s->stats.n_configurations++;
    if (hy_config_cache_find(s, method)) { /* pattern and structure known */
        s->stats.n_config_cache_hits++;
        return 0;
    }
    status = hy_config_build_pattern(s);
    if (!status)
        status = hy_assembly_check_structure(s);
    return status ? status : hy_config_cache_add(s, method);
}

int hy_store_state(hydae_sim *s, double t, const double *y, const double *yp)
{
    const double *y_local, *yp_local;
    hy_config_local(s, y, yp, &y_local, &yp_local);
    for (int c = 0; c < s->model->n_charts; c++) {
        hy_block *b = &s->blocks[c];
        int off = s->var_offset[c];
        int status = b->ops->store(b, t, y_local + off, yp_local + off);
        if (status)
            return status;
    }
    return 0;
}

/* ---- the run ---- */

/* After transitions fired at s->t: snapshot the left limit, rebuild the
** configuration, find consistent values, emit both rows, restart. */
static int settle_after_event(hydae_sim *s, const double *left_row, int config_changed)
{
    if (config_changed)
        s->stats.n_mode_switches++;
    int status = hy_send_row(s, HYDAE_ROW_EVENT_LEFT, s->t, left_row);
    if (status)
        return status;
    status = build_config(s);
    if (status)
        return status;
    status = hy_consistent_init(s, s->t, 0);
    if (status)
        return status;
    status = hy_emit_state_row(s, HYDAE_ROW_EVENT_RIGHT, s->t, s->y, s->yp);
    if (status)
        return status;
    status = hy_emit_grid_at_current(s);
    if (status || s->stop_requested) /* hydae_action_stop: the run ends here */
        return status;
    status = hy_restart_integrator(s);
    if (status)
        return status;
    return hy_guards_arm(s);
}

/* Discrete phase at s->t with the state (s->y, s->yp) as left limit. The
** layout and guard signs before it are kept for re-arming (events.c). */
static int event_instant(hydae_sim *s, int *n_fired)
{
    const hydae_model *m = s->model;
    int n_total = 0;
    /* A round per discrete phase: after each, the level transitions left
    ** past zero by the new consistent values fire in the next. */
    for (int round = 0;; round++) {
        int status = hy_store_state(s, s->t, s->y, s->yp);
        if (status)
            return status;
        hy_gather_row(s, s->out.row_left);
        hy_guards_snapshot(s);
        status = hy_discrete_phase(s, s->t, n_fired);
        n_total += *n_fired;
        if (status || *n_fired == 0) {
            *n_fired = n_total;
            return status;
        }
        int changed = 0;
        for (int c = 0; c < m->n_charts; c++)
            changed |= s->active[c] != s->guards.prev_active[c];
        s->stats.n_events++;
        status = settle_after_event(s, s->out.row_left, changed);
        int n_marked = 0;
        if (!status && !s->stop_requested) /* the guards were armed */
            status = hy_guards_mark_levels(s, &n_marked);
        if (status || n_marked == 0) {
            *n_fired = n_total;
            return status;
        }
        if (round + 1 >= s->set.cascade_limit) {
            hy_sim_fail(s, "the relations of the equations do not settle at t = %.17g: after %d "
                        "rounds of events, level transitions still find their guards past zero",
                        s->t, round + 1);
            return HYDAE_ERR_CASCADE;
        }
    }
}

/* The model's initial action at t0; a start value set by
** hydae_model_set_start (--set) that the action then replaces (an initial
** mode's entry action assigning it) would be ignored without a word: that
** is an error naming it. */
static int initial_action_keeping_set_starts(hydae_sim *s)
{
    const hydae_model *m = s->model;
    int status = hy_initial_action(s, s->t);
    if (!status && m->has_entry_actions)
        status = hy_initial_entry_actions(s, s->t);
    for (int c = 0; c < m->n_charts && !status; c++) {
        const hydae_mode *mode = s->active[c];
        for (int i = 0; i < mode->n_vars; i++) {
            const hy_var *var = &mode->vars[i];
            double now = s->store[var->slot];
            if (!var->start_set || now == s->y[hy_unknown_of(s, s->var_offset[c] + i)]
                || s->blocks[c].ops->owns_state)
                continue;
            hy_sim_fail(s, "the start value %.17g set for '%s' of mode '%s' is replaced at "
                        "t0 by the model's initial action (now %.17g: the mode's entry "
                        "actions assign it)", var->start, var->name, mode->name, now);
            return HYDAE_ERR_ARG;
        }
    }
    return status;
}

static int start_run(hydae_sim *s)
{
    const hydae_model *m = s->model;
    s->t = s->set.t0;
    s->bad_chart = -1;
    s->n_fired_log = 0;
    s->guards.armed = 0;
    s->guards.have_prev = 0;
    s->t_time_instant = -INFINITY;
    hy_seams_reset(s);
    memset(&s->integ_base, 0, sizeof s->integ_base);
    if (s->integ) {
        s->integ_method->destroy(s->integ);
        s->integ = NULL;
    }
    hy_params_start(s);
    for (int i = m->n_globals; i < m->n_slots; i++)
        s->store[i] = NAN;
    for (int c = 0; c < m->n_charts; c++)
        s->active[c] = m->charts[c]->initial;
    int status = hy_output_start(s);
    if (!status)
        status = hy_check_sample_periods(s);
    if (!status)
        status = hy_output_begin(s);
    if (!status)
        status = build_config(s);
    if (!status && (m->initial_action || m->has_entry_actions)) {
        /* The initial action sees the start values and the parameters as
        ** they are now (after hydae_model_set_param); what it sets is the
        ** start of the run. */
        for (int i = 0; i < s->n; i++)
            s->yp[i] = 0.0;
        status = hy_store_state(s, s->t, s->y, s->yp);
        if (!status)
            status = initial_action_keeping_set_starts(s);
        if (!status)
            status = build_config(s);
    }
    if (!status)
        status = hy_consistent_init(s, s->t, 1);
    if (status)
        return status;
    status = hy_guards_mark_at_start(s);
    if (status)
        return status;
    int n_fired = 0;
    status = event_instant(s, &n_fired);
    if (status || n_fired > 0)
        return status;
    status = hy_emit_grid_at_current(s);
    if (!status && !s->stop_requested)
        status = hy_restart_integrator(s);
    if (!status && !s->stop_requested)
        status = hy_guards_arm(s);
    return status;
}

/* Zeno policy "rest": chart c goes to its resting mode now, values moving
** by name as on a transition. */
static int enter_resting_mode(hydae_sim *s, int c)
{
    int status = hy_store_state(s, s->t, s->y, s->yp);
    if (status)
        return status;
    hy_gather_row(s, s->out.row_left);
    s->active[c] = s->model->charts[c]->resting;
    s->guards.have_prev = 0;
    s->stats.n_zeno_rests++;
    s->stats.n_events++;
    return settle_after_event(s, s->out.row_left, 1);
}

/* Chattering and Zeno behaviour (chatter.c). Policy "stop" (default) ends
** the run with a message; "rest" sends the chart of the last transition to
** its resting mode. */
static int check_accumulation(hydae_sim *s)
{
    const hydae_transition *last = s->n_fired_log > 0 ? s->fired_log[s->n_fired_log - 1] : NULL;
    hy_chatter_kind kind = hy_chatter_note(s, s->guards.event_from_band,
                                           s->n_fired_log > 0 ? s->fired_log[0] : NULL);
    if (kind == HY_CHATTER_NONE)
        return 0;
    if (kind == HY_CHATTER_PINGPONG)
        return hy_chatter_pingpong_failure(s);
    const hydae_chart *chart = last ? last->chart : NULL;
    if (s->set.zeno_rest && chart && chart->resting && s->active[chart->index] != chart->resting) {
        hy_chatter_reset(&s->chatter);
        return enter_resting_mode(s, chart->index);
    }
    hy_sim_fail(s, "events accumulate at t = %.17g (chattering or Zeno behaviour: %s); the "
                "last transition fired was '%s' of chart '%s'%s", s->t,
                s->chatter.n_in_window > s->set.zeno_events ? "too many event instants within the "
                "zeno_window" : "the gaps between event instants shrink geometrically towards "
                "this point", last ? last->name : "?", chart ? chart->name : "?",
                s->set.zeno_rest && chart && !chart->resting ? ", which declares no resting mode"
                                                         : "");
    return HYDAE_ERR_ZENO;
}

/* A jump of a variable that is not an event variable (Enge-Rosenblatt et
** al., sec. 4.3): the step would have to shrink below dt_min, so restart
** at t + dt_min with the differential states held and new consistent
** values. Output points inside the gap show the values before it; a guard
** that crossed inside the gap fires at the restart time. */
static int jump_restart(hydae_sim *s, double t_stop)
{
    double t_restart = fmin(s->t + s->set.dt_min, t_stop);
    if (!(t_restart > s->t)) {
        hy_sim_fail(s, "cannot restart past a jump at t = %.17g (dt_min = %g)", s->t,
                    s->set.dt_min);
        return HYDAE_ERR_HMIN;
    }
    s->integ_started = 0;       /* rows in the gap from the state at s->t */
    while (s->out.k_out <= s->out.n_out && hy_grid_time(s, s->out.k_out) < t_restart) {
        int status = hy_emit_state_row(s, HYDAE_ROW_GRID, hy_grid_time(s, s->out.k_out), s->y, s->yp);
        if (status)
            return status;
        s->out.k_out++;
    }
    s->stats.n_jump_restarts++;
    s->t = t_restart;
    int status = hy_consistent_init(s, s->t, 0);
    if (status)
        return status;
    /* Guards across the gap: crossings fire here. */
    memset(s->guards.g_crossed, 0, (size_t)s->n_guards);
    int crossed = 0;
    if (s->n_guards > 0) {
        status = hy_guards_eval(s, s->t, s->y, s->yp, s->guards.g_end);
        if (status)
            return status;
        crossed = hy_guards_mark_crossings(s, s->guards.g_end);
    }
    if (crossed) {
        int n_fired = 0;
        status = event_instant(s, &n_fired);
        if (status || n_fired > 0)
            return status;
    }
    status = hy_emit_grid_at_current(s);
    if (!status)
        status = hy_restart_integrator(s);
    if (!status)
        status = hy_guards_arm(s);
    return status;
}

/* Examine the step that ended at t_new for events, from s->t on. A crossing
** that no transition takes moves the scan to it, and the rest of the step
** is examined again, so a later crossing or a time event at the step's end
** is not lost. Sets *restarted when transitions fired (the integrator was
** restarted at the event). */
static int scan_step(hydae_sim *s, double t_new, double t_stop, int *restarted)
{
    *restarted = 0;
    for (;;) {
        double t_event = t_new;
        memset(s->guards.g_crossed, 0, (size_t)s->n_guards);
        int found = hy_guards_locate(s, t_new, &t_event);
        if (found < 0)
            return found;
        /* A crossing within tolerance of a time event the step reached is
        ** that instant. */
        if (found && t_new == t_stop && fabs(t_event - t_stop) <= 2.0 * hy_time_tol(t_stop))
            t_event = t_stop;
        double t_reached = found ? t_event : t_new;
        int at_time_event = t_reached == t_stop && t_new == t_stop
                            && hy_time_event_pending(s, t_stop);
        int status = hy_emit_grid_until(s, t_reached, !(found || at_time_event));
        if (!status)
            status = hy_interpolate(s, t_reached, s->y, s->yp);
        if (status)
            return status;
        s->t = t_reached;
        if (!found && !at_time_event) {
            hy_guards_advance(s);
            if (s->set.output_steps && s->t < s->set.t_end)
                return hy_emit_state_row(s, HYDAE_ROW_STEP, s->t, s->y, s->yp);
            return 0;
        }
        status = hy_guards_join_instant(s);
        if (status)
            return status;
        int n_fired = 0;
        status = event_instant(s, &n_fired);
        if (status)
            return status;
        if (n_fired > 0) {
            *restarted = 1;
            return 0;
        }
        status = hy_emit_grid_at_current(s);
        if (status)
            return status;
        if (t_reached == t_new) {
            hy_guards_advance(s);
            return 0;
        }
        status = hy_guards_restart_scan(s);
        if (status)
            return status;
    }
}

/* The blocks' after-step hooks at the accepted point s->t (mechanics:
** constraint drift, the ODE form's re-partition). 1 if the integrator
** must restart, 0, or < 0. */
static int blocks_after_step(hydae_sim *s)
{
    int restart = 0;
    for (int c = 0; c < s->model->n_charts; c++) {
        hy_block *b = &s->blocks[c];
        if (!b->ops->after_step)
            continue;
        /* A block with after_step owns its state: its unknowns are its own,
        ** in a row. */
        int off = hy_unknown_of(s, s->var_offset[c]);
        int status = b->ops->after_step(b, s->t, s->y + off, s->yp + off);
        if (status < 0)
            return status;
        restart |= status;
    }
    return restart;
}

/* After a mode's after-step function asked to restart: new consistent
** values (what the equations compute changed), the integrator and the
** guards' signs from there. */
static int restart_after_step(hydae_sim *s)
{
    int status = hy_consistent_init(s, s->t, 0);
    if (!status)
        status = hy_restart_integrator(s);
    return status ? status : hy_guards_arm(s);
}

/* What the active modes' after-step functions ask for at the accepted
** point s->t (hydae_mode_set_after_step): HYDAE_STEP_EVENT marks the
** chart's step event, HYDAE_STEP_RESTART asks for a restart. 0 or a
** negative status. */
static int call_after_step(hydae_sim *s, int *any_event, int *restart)
{
    int any = 0;
    for (int c = 0; c < s->model->n_charts && !any; c++)
        any = s->active[c]->after_step != NULL;
    if (!any)
        return 0; /* (nothing gathered for the usual model) */
    const double *y_local, *yp_local;
    hy_config_local(s, s->y, s->yp, &y_local, &yp_local);
    for (int c = 0; c < s->model->n_charts; c++) {
        const hydae_mode *mode = s->active[c];
        hy_block *b = &s->blocks[c];
        if (!mode->after_step)
            continue;
        const double *y_mode, *yp_mode;
        int off = s->var_offset[c];
        int status = b->ops->expand(b, s->t, y_local + off, yp_local + off, &y_mode, &yp_mode);
        if (status)
            return status;
        int request = mode->after_step(s->t, y_mode, yp_mode, s->store, mode->user);
        if (request < 0 || request > HYDAE_STEP_RESTART) {
            hy_sim_fail(s, "the after-step function of mode '%s' returned %d at t = %.17g%s%s%s",
                        mode->name, request, s->t, request > 0 ? " (want a hydae_step_request)"
                                                              : "",
                        hy_mode_error_sep(mode), hy_mode_error_text(mode));
            return HYDAE_ERR_CALLBACK;
        }
        s->step_event[c] = request == HYDAE_STEP_EVENT;
        *any_event |= request == HYDAE_STEP_EVENT;
        *restart |= request == HYDAE_STEP_RESTART;
    }
    return 0;
}

/* The modes' after-step functions at s->t; a step event is an event
** instant there (*restarted set when transitions fired). */
static int modes_after_step(hydae_sim *s, int *restarted)
{
    int any_event = 0, restart = 0;
    int status = call_after_step(s, &any_event, &restart);
    if (!status && any_event) {
        int n_fired = 0;
        memset(s->guards.g_crossed, 0, (size_t)s->n_guards);
        status = event_instant(s, &n_fired);
        *restarted = n_fired > 0;
    }
    for (int c = 0; c < s->model->n_charts; c++)
        s->step_event[c] = 0;
    if (!status && restart && !*restarted && !s->stop_requested)
        status = restart_after_step(s);
    return status;
}

/* The loop from s->t until t_limit (<= t_end): each step ends at the next
** time event or t_limit at the latest, and what follows it (events,
** grid rows). s->n_loop_steps counts the steps of the whole run. */
static int loop_until(hydae_sim *s, double t_limit)
{
    int status = 0;
    while (s->t < t_limit && !s->stop_requested) {
        if (s->interrupt_requested)
            return hy_sim_interrupted(s, s->t);
        if (++s->n_loop_steps > s->set.max_steps) {
            hy_sim_fail(s, "more than max_steps = %ld steps before t_end; stopped at t = %.17g",
                        s->set.max_steps, s->t);
            return HYDAE_ERR_MAXSTEPS;
        }
        double t_stop = fmin(hy_next_time_event(s, s->t), t_limit);
        if (!s->set.interpolation) {
            /* dae_interpolation = FALSE: step exactly onto the output points. */
            double t_grid = hy_grid_time(s, s->out.k_out);
            if (t_grid > s->t && t_grid < t_stop)
                t_stop = t_grid;
        }
        double t_new = t_stop;
        if (s->n > 0) {
            int code = s->integ_method->step(s->integ, t_stop, &t_new);
            if (code < 0 && s->set.dt_min > 0.0
                && (code == HYDAE_ERR_HMIN || code == HYDAE_ERR_CONV || code == HYDAE_ERR_ERRTEST)) {
                status = jump_restart(s, t_stop);
                if (status)
                    return status;
                continue;
            }
            if (code < 0)
                return hy_integrator_failure(s, code);
            s->bad_chart = -1;
            if (code == HY_TSTOP)
                t_new = t_stop;
        }
        s->integ_started = 1;
        int restarted = 0;
        status = scan_step(s, t_new, t_stop, &restarted);
        if (!status && !restarted && s->n > 0) {
            status = blocks_after_step(s);
            if (status == 1)
                status = hy_restart_integrator(s);
        }
        if (!status && !restarted && !s->stop_requested)
            status = modes_after_step(s, &restarted);
        if (!status && restarted)
            status = check_accumulation(s);
        if (status)
            return status;
    }
    return 0;
}

static int begin_run(hydae_sim *s)
{
    memset(&s->stats, 0, sizeof s->stats);
    s->errmsg[0] = '\0';
    s->n_loop_steps = 0;
    s->n_res_evals_integ = 0;
    s->params_changed = 0; /* hy_params_start takes the values set */
    int status = hydae_sim_validate(s);
    if (!status)
        status = start_run(s);
    hy_chatter_reset(&s->chatter);
    return status;
}

/* The statistics of the run so far, the wall time of this call added. */
static void collect_stats(hydae_sim *s, const struct timespec *start)
{
    struct timespec end;
    clock_gettime(CLOCK_MONOTONIC, &end);
    hy_stats st;
    hy_integ_stats(s, &st);
    s->stats.n_steps = st.n_steps;
    s->stats.n_rejected = st.n_err_fails + st.n_conv_fails;
    /* stats.n_res_evals counts the sim's own as they happen; the
    ** integrators' are added as they grow. */
    s->stats.n_res_evals += st.n_res_evals - s->n_res_evals_integ;
    s->n_res_evals_integ = st.n_res_evals;
    s->stats.n_jac_evals = st.n_jac_evals;
    s->stats.n_lu = st.n_lu;
    s->stats.n_stiff_detections = st.n_stiff_detections;
    s->stats.t_first_stiff = st.n_stiff_detections > 0 ? st.t_first_stiff : NAN;
    s->stats.wall_seconds += (double)(end.tv_sec - start->tv_sec)
                             + 1e-9 * (double)(end.tv_nsec - start->tv_nsec);
}

/* The end of a run (its last grid rows on success): the sinks complete. */
static int end_run(hydae_sim *s, int status)
{
    if (!status)
        status = hy_emit_grid_at_current(s);
    if (status && s->errmsg[0] == '\0')
        hy_sim_fail(s, "%s at t = %.17g", hydae_status_string(status), s->t);
    status = hy_output_finish(s, status);
    s->interrupt_requested = 0;
    s->advancing = 0;
    return status;
}

int hydae_sim_run(hydae_sim *s)
{
    if (!s)
        return HYDAE_ERR_ARG;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    s->advancing = 0;
    int status = begin_run(s);
    if (!status)
        status = loop_until(s, s->set.t_end);
    collect_stats(s, &start);
    return end_run(s, status);
}

/* Parameters changed between two advances (hydae_sim_set_param): the
** states kept, the rest solved again at s->t, the integrator and the
** guards' reference signs started afresh there. */
static int restart_after_params(hydae_sim *s)
{
    s->params_changed = 0;
    hy_guards_snapshot(s);
    int status = hy_consistent_init(s, s->t, 0);
    if (!status)
        status = hy_restart_integrator(s);
    return status ? status : hy_guards_arm(s);
}

int hydae_sim_advance(hydae_sim *s, double t_target, double *values)
{
    if (!s)
        return HYDAE_ERR_ARG;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int status = 0;
    if (!s->advancing) {
        status = begin_run(s);
        if (status) {
            collect_stats(s, &start);
            return end_run(s, status);
        }
        s->advancing = 1;
    } else if (s->params_changed) {
        status = restart_after_params(s);
        if (status) {
            collect_stats(s, &start);
            return end_run(s, status);
        }
    }
    double tol = hy_time_tol(s->set.t_end);
    if (!(t_target >= s->t) || !(t_target <= s->set.t_end + tol)) {
        hy_sim_fail(s, "cannot advance to t = %.17g: the run stands at t = %.17g and ends at "
                    "t_end = %.17g", t_target, s->t, s->set.t_end);
        return HYDAE_ERR_ARG;
    }
    int at_end = t_target >= s->set.t_end - tol;
    status = loop_until(s, at_end ? s->set.t_end : t_target);
    collect_stats(s, &start);
    if (!status && values) {
        status = hy_store_state(s, s->t, s->y, s->yp);
        hy_gather_row(s, values);
    }
    if (status || at_end || s->stop_requested) /* hydae_action_stop ends it here */
        return end_run(s, status);
    return 0;
}

void hydae_sim_get_stats(const hydae_sim *s, hydae_stats *out)
{
    if (s && out)
        *out = s->stats;
}

static int model_has_mechanics(const hydae_model *m)
{
    for (int c = 0; c < m->n_charts; c++)
        for (int i = 0; i < m->charts[c]->n_modes; i++)
            if (m->charts[c]->modes[i]->is_mechanical)
                return 1;
    return 0;
}

void hydae_sim_print_stats(const hydae_sim *s, FILE *out)
{
    if (!s || !out)
        return;
    const hydae_stats *st = &s->stats;
    fprintf(out, "%-24s %12ld\n", "steps", st->n_steps);
    fprintf(out, "%-24s %12ld\n", "rejected steps", st->n_rejected);
    fprintf(out, "%-24s %12ld\n", "residual evaluations", st->n_res_evals);
    fprintf(out, "%-24s %12ld\n", "Jacobian evaluations", st->n_jac_evals);
    fprintf(out, "%-24s %12ld\n", "LU factorisations", st->n_lu);
    fprintf(out, "%-24s %12ld\n", "events", st->n_events);
    fprintf(out, "%-24s %12ld\n", "event triggers", st->n_triggers);
    fprintf(out, "%-24s %12ld\n", "priority conflicts", st->n_priority_conflicts);
    fprintf(out, "%-24s %12ld\n", "transitions fired", st->n_transitions);
    fprintf(out, "%-24s %12ld\n", "mode switches", st->n_mode_switches);
    fprintf(out, "%-24s %12ld\n", "integrator restarts", st->n_restarts);
    fprintf(out, "%-24s %12ld\n", "homotopy steps", st->n_homotopy_steps);
    fprintf(out, "%-24s %12ld\n", "restarts after jumps", st->n_jump_restarts);
    if (st->n_stiff_detections > 0)
        fprintf(out, "%-24s %12ld (first at t = %g)\n", "found stiff", st->n_stiff_detections,
                st->t_first_stiff);
    fprintf(out, "%-24s %12ld\n", "resting modes entered", st->n_zeno_rests);
    fprintf(out, "%-24s %12ld\n", "configurations entered", st->n_configurations);
    fprintf(out, "%-24s %12ld\n", "configuration cache hits", st->n_config_cache_hits);
    fprintf(out, "%-24s %12ld\n", "column colourings", st->n_colorings);
    fprintf(out, "%-24s %12ld\n", "sparse LU analyses", st->n_symbolic_analyses);
    if (st->n_band_orderings > 0)
        fprintf(out, "%-24s %12ld\n", "band orderings (RCM)", st->n_band_orderings);
    if (model_has_mechanics(s->model)) {
        fprintf(out, "%-24s %12.3e\n", "max constraint violation", st->max_constraint_violation);
        fprintf(out, "%-24s %12ld\n", "coordinate partitions", st->n_partitions);
    }
    if (s->stop_requested)
        fprintf(out, "%-24s %12.6g\n", "ended by an action at t", s->t);
    fprintf(out, "%-24s %12.6f\n", "wall time [s]", st->wall_seconds);
}
