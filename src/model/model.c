/*
** Model construction and validation: charts, modes, variables, transitions,
** and the name -> store-slot layout shared by the simulator and results.
*/
#include "model.h"

#include "core/core.h"
#include "integrators/integrator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>
#include <stdio.h>

/* One per variable of models of millions (model.h). */
_Static_assert(sizeof(hy_var) <= 24, "hy_var grew past 24 bytes");

/* Record the first construction error on the model; later errors do not
** overwrite it, and hydae_model_check reports it even if the caller ignored
** the return value (a sticky error, as SQLite keeps on its handle). */
int hy_model_fail(hydae_model *m, int status, const char *fmt, ...)
{
    if (m->build_error == 0) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(m->errmsg, sizeof m->errmsg, fmt, args);
        va_end(args);
        m->build_error = status;
    }
    return status;
}


hydae_model *hydae_model_create(const char *name)
{
    hydae_model *m = hy_calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->name = hy_strdup(name ? name : "model");
    if (!m->name) {
        hy_free(m);
        return NULL;
    }
    return m;
}

static void free_mode(hydae_mode *mode)
{
    /* The names' text is in the model's arena. */
    hy_free(mode->vars);
    hy_free(mode->out_vars);
    hy_mode_hooks_free(mode->entry_actions);
    hy_mode_hooks_free(mode->exit_actions);
    hy_mode_free_jacobian_pattern(mode);
    hy_name_index_free(&mode->names);
    hy_free(mode->name);
    hy_free(mode);
}

void hydae_model_free(hydae_model *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->n_attached; i++)
        if (m->attached[i].free_fn)
            m->attached[i].free_fn(m->attached[i].data);
    hy_free(m->attached);
    for (int c = 0; c < m->n_charts; c++) {
        hydae_chart *chart = m->charts[c];
        for (int i = 0; i < chart->n_modes; i++)
            free_mode(chart->modes[i]);
        for (int i = 0; i < chart->n_transitions; i++) {
            hy_free(chart->transitions[i]->name);
            hy_free(chart->transitions[i]->event_name);
            hy_free(chart->transitions[i]);
        }
        hy_free(chart->modes);
        hy_free(chart->transitions);
        hy_free(chart->fire_order);
        hy_free(chart->name);
        hy_free(chart);
    }
    for (int i = 0; i < m->n_globals; i++)
        hy_free(m->globals[i].name);
    hy_free(m->globals);
    hy_free(m->charts);
    hy_free(m->slot_names);
    hy_name_index_free(&m->slot_map);
    hy_free(m->column_slot);
    hy_free(m->event_names);
    hy_free(m->structural);
    hy_names_free(&m->var_names);
    hy_free(m->var_extras);
    hy_model_free_infos(m);
    hy_free(m->name);
    hy_free(m);
}

const char *hydae_model_errmsg(const hydae_model *m)
{
    return m ? m->errmsg : "no model";
}

static int valid_name(const char *name)
{
    return name && name[0] != '\0';
}

int hy_model_find_global(const hydae_model *m, const char *name)
{
    for (int i = 0; i < m->n_globals; i++)
        if (strcmp(m->globals[i].name, name) == 0)
            return i;
    return -1;
}

static int add_global(hydae_model *m, const char *name, double value,
                      int is_discrete)
{
    if (!m)
        return HYDAE_ERR_ARG;
    if (!valid_name(name))
        return HY_ARG_ERROR(m, "a parameter or discrete variable needs a non-empty name");
    if (m->checked)
        return HY_ARG_ERROR(m, "cannot add '%s': the model is already in use", name);
    if (hy_model_find_global(m, name) >= 0) {
        HY_MODEL_ERROR(m, "'%s' is declared twice", name);
        return HYDAE_ERR_MODEL;
    }
    char *copy = hy_strdup(name);
    if (!copy || hy_reserve((void **)&m->globals, &m->cap_globals, m->n_globals + 1,
                            sizeof(hy_global))) {
        hy_free(copy);
        return hy_model_fail(m, HYDAE_ERR_NOMEM, "out of memory adding '%s'", name);
    }
    m->globals[m->n_globals] = (hy_global){ copy, value, (unsigned char)is_discrete, 0 };
    return m->n_globals++;
}

int hydae_model_add_param(hydae_model *m, const char *name, double value)
{
    return add_global(m, name, value, 0);
}

int hydae_model_add_discrete(hydae_model *m, const char *name, double start)
{
    return add_global(m, name, start, 1);
}

int hydae_model_set_param(hydae_model *m, const char *name, double value)
{
    if (!m || !name)
        return HYDAE_ERR_ARG;
    int i = hy_model_find_global(m, name);
    if (i < 0) {
        /* Not a construction error: the model stays usable. */
        if (!m->build_error)
            hy_model_describe_unknown(m, name, m->errmsg, sizeof m->errmsg);
        return HYDAE_ERR_ARG;
    }
    m->globals[i].value = value;
    return 0;
}

void hy_model_mark_input(hydae_model *m, int g)
{
    if (m && g >= 0 && g < m->n_globals && m->globals[g].is_discrete)
        m->globals[g].is_input = 1;
}

int hy_model_add_structural(hydae_model *m, const char *name)
{
    const char *copy = hy_names_copy(&m->var_names, name);
    if (!copy || hy_reserve((void **)&m->structural, &m->cap_structural, m->n_structural + 1,
                            sizeof *m->structural))
        return -1;
    m->structural[m->n_structural++] = copy;
    return 0;
}

int hy_model_is_structural(const hydae_model *m, const char *name)
{
    for (int i = 0; i < m->n_structural; i++)
        if (strcmp(m->structural[i], name) == 0)
            return 1;
    return 0;
}

int hydae_model_set_initial_action(hydae_model *m, hydae_action_fn action, void *user)
{
    if (!m)
        return HYDAE_ERR_ARG;
    if (!action)
        return HY_ARG_ERROR(m, "model '%s': no initial action function", m->name);
    m->initial_action = action;
    m->initial_action_user = user;
    return 0;
}

int hydae_model_attach(hydae_model *m, void *data, void (*free_fn)(void *))
{
    if (!m)
        return HYDAE_ERR_ARG;
    if (m->n_attached == m->cap_attached) {
        int cap = m->cap_attached ? 2 * m->cap_attached : 4;
        hy_attachment *grown = hy_realloc(m->attached, (size_t)cap * sizeof *grown);
        if (!grown) /* the caller keeps data */
            return hy_model_fail(m, HYDAE_ERR_NOMEM, "out of memory attaching data");
        m->attached = grown;
        m->cap_attached = cap;
    }
    m->attached[m->n_attached++] = (hy_attachment){ data, free_fn };
    return 0;
}

hydae_chart *hydae_model_add_chart(hydae_model *m, const char *name)
{
    if (!m)
        return NULL;
    if (!valid_name(name) || m->checked) {
        hy_model_fail(m, HYDAE_ERR_ARG, "a chart needs a non-empty name and an unused model");
        return NULL;
    }
    hydae_chart *c = NULL;
    if (hy_reserve((void **)&m->charts, &m->cap_charts, m->n_charts + 1, sizeof(hydae_chart *))
        || !(c = hy_calloc(1, sizeof *c)) || !(c->name = hy_strdup(name))) {
        hy_free(c);
        hy_model_fail(m, HYDAE_ERR_NOMEM, "out of memory adding chart '%s'", name);
        return NULL;
    }
    c->model = m;
    c->index = m->n_charts;
    m->charts[m->n_charts++] = c;
    return c;
}

hydae_mode *hydae_chart_add_mode(hydae_chart *c, const char *name)
{
    if (!c)
        return NULL;
    if (!valid_name(name) || c->model->checked) {
        hy_model_fail(c->model, HYDAE_ERR_ARG, "chart '%s': a mode needs a non-empty name "
                   "and an unused model", c->name);
        return NULL;
    }
    for (int i = 0; i < c->n_modes; i++)
        if (strcmp(c->modes[i]->name, name) == 0) {
            HY_MODEL_ERROR(c->model, "chart '%s': mode '%s' is declared twice",
                           c->name, name);
            return NULL;
        }
    hydae_mode *mode = NULL;
    if (hy_reserve((void **)&c->modes, &c->cap_modes, c->n_modes + 1, sizeof(hydae_mode *))
        || !(mode = hy_calloc(1, sizeof *mode)) || !(mode->name = hy_strdup(name))) {
        hy_free(mode);
        hy_model_fail(c->model, HYDAE_ERR_NOMEM, "out of memory adding mode '%s'", name);
        return NULL;
    }
    mode->chart = c;
    mode->index = c->n_modes;
    mode->n_equations = -1;
    c->modes[c->n_modes++] = mode;
    if (!c->initial)
        c->initial = mode;
    return mode;
}

hydae_mode *hydae_model_mode(hydae_model *m, const char *name)
{
    if (!m || !name)
        return NULL;
    for (int c = 0; c < m->n_charts; c++)
        for (int i = 0; i < m->charts[c]->n_modes; i++)
            if (strcmp(m->charts[c]->modes[i]->name, name) == 0)
                return m->charts[c]->modes[i];
    return NULL;
}

int hydae_chart_set_initial(hydae_chart *c, hydae_mode *mode)
{
    if (!c)
        return HYDAE_ERR_ARG;
    if (!mode || mode->chart != c)
        return HY_ARG_ERROR(c->model, "chart '%s': the initial mode must be one of its modes",
                            c->name);
    c->initial = mode;
    return 0;
}

int hydae_chart_set_resting_mode(hydae_chart *c, hydae_mode *mode)
{
    if (!c)
        return HYDAE_ERR_ARG;
    if (!mode || mode->chart != c)
        return HY_ARG_ERROR(c->model, "chart '%s': the resting mode must be one of its modes",
                            c->name);
    c->resting = mode;
    return 0;
}

int hy_var_is_algebraic(hydae_var_kind kind)
{
    return kind == HYDAE_ALGEBRAIC || kind == HYDAE_MULTIPLIER;
}

/* The name of a mode's name code: 2 var_index, or 2 output_index + 1. */
static const char *mode_name_of(const void *owner, int code)
{
    const hydae_mode *mode = owner;
    return (code % 2 ? mode->out_vars : mode->vars)[code / 2].name;
}

int hy_mode_find_var(const hydae_mode *mode, const char *name, int *var_index)
{
    int code = hy_name_index_get(&mode->names, name, mode_name_of, mode);
    if (code < 0 || code % 2 != 0)
        return 0;
    if (var_index)
        *var_index = code / 2;
    return 1;
}

static int mode_has_name(const hydae_mode *mode, const char *name)
{
    return hy_name_index_get(&mode->names, name, mode_name_of, mode) >= 0;
}

/* Append a name to one of the mode's lists (variables or outputs); its
** index, or < 0. Names are unique within the mode. */
static int append_name(hydae_mode *mode, hy_var **list, int *n, int *cap, const char *name,
                       hydae_var_kind kind, double start)
{
    hydae_model *m = mode->chart->model;
    if (m->checked)
        return hy_model_fail(m, HYDAE_ERR_ARG, "mode '%s': cannot add '%s' to a model in use",
                          mode->name, name);
    if (mode_has_name(mode, name))
        return HY_MODEL_ERROR(m, "mode '%s': '%s' is declared twice", mode->name, name);
    /* The entry first (the index finds names through it); it counts once
    ** the index has it. A copy left in the arena by a failure is freed with
    ** the model. */
    const char *copy = hy_names_copy(&m->var_names, name);
    int code = 2 * *n + (list == &mode->out_vars);
    if (!copy || hy_reserve((void **)list, cap, *n + 1, sizeof(hy_var)))
        return hy_model_fail(m, HYDAE_ERR_NOMEM, "out of memory adding '%s'", name);
    (*list)[*n] = (hy_var){ .name = copy, .kind = (unsigned char)kind, .start = start,
                            .start_fixed = -1, .slot = -1 };
    if (hy_name_index_put(&mode->names, copy, code, mode_name_of, mode))
        return hy_model_fail(m, HYDAE_ERR_NOMEM, "out of memory adding '%s'", name);
    return (*n)++;
}

int hydae_mode_add_var(hydae_mode *mode, const char *name, hydae_var_kind kind,
                       double start)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (!valid_name(name) || (kind != HYDAE_DIFFERENTIAL && kind != HYDAE_ALGEBRAIC
                              && kind != HYDAE_VELOCITY && kind != HYDAE_MULTIPLIER))
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': a variable needs a non-empty name "
                            "and a kind of hydae_var_kind", mode->name);
    return append_name(mode, &mode->vars, &mode->n_vars, &mode->cap_vars, name, kind, start);
}

int hydae_mode_add_output(hydae_mode *mode, const char *name)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (!valid_name(name))
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': an output needs a non-empty name",
                            mode->name);
    return append_name(mode, &mode->out_vars, &mode->n_outputs, &mode->cap_outputs, name,
                       HYDAE_ALGEBRAIC, 0.0);
}

int hy_mode_var_extra(hydae_mode *mode, int var, hy_var_extra **extra)
{
    hydae_model *m = MODE_MODEL(mode);
    hy_var *v = &mode->vars[var];
    if (!v->extra) {
        if ((unsigned)m->n_var_extras >= HY_VAR_EXTRA_MAX)
            return HY_MODEL_ERROR(m, "more than %u variables with their own tolerances or "
                                  "start derivatives", HY_VAR_EXTRA_MAX);
        if (hy_reserve((void **)&m->var_extras, &m->cap_var_extras, m->n_var_extras + 1,
                       sizeof(hy_var_extra)))
            return hy_model_fail(m, HYDAE_ERR_NOMEM, "out of memory setting '%s'", v->name);
        m->var_extras[m->n_var_extras] = (hy_var_extra){ 0.0, 0.0, 0.0, 0.0 };
        v->extra = (unsigned)++m->n_var_extras & ((1u << HY_VAR_EXTRA_BITS) - 1u);
    }
    *extra = &m->var_extras[v->extra - 1];
    return 0;
}

int hydae_mode_set_start_fixed(hydae_mode *mode, int var, int fixed)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (var < 0 || var >= mode->n_vars || (fixed != 0 && fixed != 1))
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': start_fixed(%d, %d): want a variable "
                            "index and 0 or 1", mode->name, var, fixed);
    mode->vars[var].start_fixed = (signed char)fixed;
    return 0;
}

int hydae_mode_set_start_derivative(hydae_mode *mode, int var, double value)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (var < 0 || var >= mode->n_vars || !isfinite(value)
        || hy_var_is_algebraic(mode->vars[var].kind))
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': a start derivative needs a "
                            "differential variable and a finite value", mode->name);
    hy_var_extra *extra;
    int status = hy_mode_var_extra(mode, var, &extra);
    if (status)
        return status;
    mode->vars[var].has_start_derivative = 1;
    extra->start_derivative = value;
    return 0;
}

int hydae_mode_set_integrator(hydae_mode *mode, const char *name)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    const hy_integrator_ops *method = hy_integrator_find(name);
    if (!method)
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': no integrator '%s' (see `hydae "
                            "solvers`)", mode->name, name ? name : "(null)");
    mode->integrator = method;
    return 0;
}

int hydae_mode_set_tolerances(hydae_mode *mode, int var, double rtol, double atol)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (var < 0 || var >= mode->n_vars)
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': no variable number %d for "
                            "tolerances", mode->name, var);
    if (!(rtol >= 0.0 && rtol < 1.0) || !(atol >= 0.0) || !isfinite(atol))
        return hy_model_fail(mode->chart->model, HYDAE_ERR_ARG, "mode '%s', variable '%s': "
                          "tolerances rtol = %g, atol = %g (want 0 <= rtol < 1, atol >= 0)",
                          mode->name, mode->vars[var].name, rtol, atol);
    hy_var_extra *extra;
    int status = hy_mode_var_extra(mode, var, &extra);
    if (status)
        return status;
    extra->rtol = rtol;
    extra->atol = atol;
    return 0;
}

int hydae_mode_set_residual(hydae_mode *mode, int n_equations,
                            hydae_residual_fn res, void *user)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (!res || n_equations < 0)
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': a residual needs a function and "
                            "a count of equations >= 0", mode->name);
    mode->residual = res;
    mode->rhs = NULL;
    mode->is_mechanical = 0;
    mode->n_equations = n_equations;
    mode->user = user;
    return 0;
}

int hydae_mode_set_rhs(hydae_mode *mode, hydae_rhs_fn rhs, void *user)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (!rhs)
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': no right-hand side function",
                            mode->name);
    mode->rhs = rhs;
    mode->residual = NULL;
    mode->is_mechanical = 0;
    mode->n_equations = -2; /* one per variable, fixed by check */
    mode->user = user;
    return 0;
}

int hydae_mode_set_mechanics(hydae_mode *mode, const hydae_mechanics *mech, void *user)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (!mech || mech->n_q < 1 || mech->n_c < 0 || mech->n_c >= mech->n_q || !mech->mass
        || !mech->force || (mech->n_c > 0 && (!mech->constraint || !mech->constraint_jac
                                              || !mech->accel_rhs)))
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': mechanics need n_q >= 1, 0 <= n_c "
                            "< n_q, mass and force functions, and with constraints their "
                            "function, Jacobian and accel_rhs", mode->name);
    mode->mech = *mech;
    mode->mech_user = user;
    mode->user = user; /* the mode's guards and outputs get it too */
    mode->is_mechanical = 1;
    mode->residual = NULL;
    mode->rhs = NULL;
    mode->n_equations = -2; /* one per variable, fixed by check */
    return 0;
}

int hydae_mode_set_jacobian(hydae_mode *mode, hydae_jacobian_fn jac)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (!jac)
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': no Jacobian function", mode->name);
    mode->jacobian = jac;
    return 0;
}

int hydae_mode_set_guards(hydae_mode *mode, int n_guards, hydae_eval_fn guards)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (n_guards < 0 || (n_guards > 0 && !guards))
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': %d guards with %s function",
                            mode->name, n_guards, guards ? "a" : "no");
    mode->n_guards = n_guards;
    mode->guards = guards;
    return 0;
}

int hydae_mode_set_outputs(hydae_mode *mode, hydae_eval_fn outputs)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (!outputs)
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': no output function", mode->name);
    mode->outputs = outputs;
    return 0;
}

hydae_transition *hydae_chart_add_transition(hydae_chart *c, const char *name,
                                             hydae_mode *from, hydae_mode *to)
{
    if (!c)
        return NULL;
    if (!valid_name(name) || c->model->checked) {
        hy_model_fail(c->model, HYDAE_ERR_ARG, "chart '%s': a transition needs a non-empty "
                   "name and an unused model", c->name);
        return NULL;
    }
    if (!from || !to || from->chart != c || to->chart != c) {
        int bad_from = !from || from->chart != c;
        const hydae_mode *bad = bad_from ? from : to;
        HY_MODEL_ERROR(c->model, "transition '%s' of chart '%s': %s mode %s%s%s is not "
                       "defined in this chart", name, c->name, bad_from ? "source" : "target",
                       bad ? "'" : "", bad ? bad->name : "(undefined)", bad ? "'" : "");
        return NULL;
    }
    hydae_transition *tr = NULL;
    if (hy_reserve((void **)&c->transitions, &c->cap_transitions, c->n_transitions + 1,
                   sizeof(hydae_transition *))
        || !(tr = hy_calloc(1, sizeof *tr)) || !(tr->name = hy_strdup(name))) {
        hy_free(tr);
        hy_model_fail(c->model, HYDAE_ERR_NOMEM, "out of memory adding transition '%s'", name);
        return NULL;
    }
    tr->chart = c;
    tr->from = from;
    tr->to = to;
    tr->index = c->n_transitions;
    tr->event_id = -1;
    c->transitions[c->n_transitions++] = tr;
    return tr;
}

int hy_transition_set_trigger(hydae_transition *tr, hy_trigger_kind kind)
{
    if (tr->trigger != HY_TRIGGER_NONE) {
        HY_MODEL_ERROR(tr->chart->model, "transition '%s' has a trigger already", tr->name);
        return HYDAE_ERR_MODEL;
    }
    tr->trigger = kind;
    return 0;
}

int hydae_transition_on_guard(hydae_transition *tr, int guard, hydae_direction dir)
{
    if (!tr)
        return HYDAE_ERR_ARG;
    if (guard < 0 || (dir != HYDAE_RISING && dir != HYDAE_FALLING && dir != HYDAE_BOTH))
        return HY_ARG_ERROR(TRANSITION_MODEL(tr), "transition '%s': guard %d, direction %d "
                            "(want a guard >= 0 and RISING, FALLING or BOTH)", tr->name, guard,
                            (int)dir);
    int status = hy_transition_set_trigger(tr, HY_TRIGGER_GUARD);
    tr->guard = guard;
    tr->direction = dir;
    return status;
}

int hydae_transition_on_time(hydae_transition *tr, double t_event)
{
    if (!tr)
        return HYDAE_ERR_ARG;
    if (!isfinite(t_event))
        return HY_ARG_ERROR(TRANSITION_MODEL(tr), "transition '%s': time event at %g",
                            tr->name, t_event);
    int status = hy_transition_set_trigger(tr, HY_TRIGGER_TIME);
    tr->t_event = t_event;
    return status;
}

int hydae_transition_on_sample(hydae_transition *tr, double t_start, double period)
{
    if (!tr)
        return HYDAE_ERR_ARG;
    if (!isfinite(t_start) || !(period > 0.0) || !isfinite(period))
        return HY_ARG_ERROR(TRANSITION_MODEL(tr), "transition '%s': sample clock from %g "
                            "with period %g (want finite, period > 0)", tr->name, t_start,
                            period);
    int status = hy_transition_set_trigger(tr, HY_TRIGGER_SAMPLE);
    tr->t_start = t_start;
    tr->period = period;
    return status;
}

int hydae_transition_on_event(hydae_transition *tr, const char *event)
{
    if (!tr)
        return HYDAE_ERR_ARG;
    if (!valid_name(event))
        return HY_ARG_ERROR(TRANSITION_MODEL(tr), "transition '%s': an event needs a "
                            "non-empty name", tr->name);
    int status = hy_transition_set_trigger(tr, HY_TRIGGER_EVENT);
    if (status)
        return status;
    if (!(tr->event_name = hy_strdup(event)))
        return hy_model_fail(TRANSITION_MODEL(tr), HYDAE_ERR_NOMEM,
                             "transition '%s': out of memory", tr->name);
    return 0;
}

int hydae_transition_set_condition(hydae_transition *tr, hydae_condition_fn cond, void *user)
{
    if (!tr)
        return HYDAE_ERR_ARG;
    if (!cond)
        return HY_ARG_ERROR(TRANSITION_MODEL(tr), "transition '%s': no condition function",
                            tr->name);
    tr->condition = cond;
    tr->condition_user = user;
    return 0;
}

int hydae_transition_set_action(hydae_transition *tr, hydae_action_fn action, void *user)
{
    if (!tr)
        return HYDAE_ERR_ARG;
    if (!action)
        return HY_ARG_ERROR(TRANSITION_MODEL(tr), "transition '%s': no action function",
                            tr->name);
    tr->action = action;
    tr->action_user = user;
    return 0;
}

int hydae_transition_set_priority(hydae_transition *tr, int priority)
{
    if (!tr)
        return HYDAE_ERR_ARG;
    if (priority < 1)
        return HY_ARG_ERROR(TRANSITION_MODEL(tr), "transition '%s': priority %d (want >= 1; "
                            "1 fires first)", tr->name, priority);
    tr->priority = priority;
    return 0;
}

int hydae_transition_set_fires_at_start(hydae_transition *tr, int on)
{
    if (!tr)
        return HYDAE_ERR_ARG;
    tr->fires_at_start = on != 0;
    return 0;
}

int hydae_transition_set_level(hydae_transition *tr, int on)
{
    if (!tr)
        return HYDAE_ERR_ARG;
    tr->level = on != 0;
    return 0;
}

/* ---- validation and layout ---- */

/* The order in which a chart's transitions fire at one instant: explicit
** priorities ascending, then those without one, each group in declaration
** order (a stable insertion sort). */
static int build_fire_order(hydae_chart *chart)
{
    hy_free(chart->fire_order);
    size_t n = (size_t)(chart->n_transitions > 0 ? chart->n_transitions : 1);
    chart->fire_order = hy_malloc(sizeof(hydae_transition *) * n);
    if (!chart->fire_order)
        return HYDAE_ERR_NOMEM;
    for (int i = 0; i < chart->n_transitions; i++) {
        hydae_transition *tr = chart->transitions[i];
        unsigned key = tr->priority > 0 ? (unsigned)tr->priority : ~0u;
        int j = i;
        while (j > 0 && (chart->fire_order[j - 1]->priority > 0
                             ? (unsigned)chart->fire_order[j - 1]->priority : ~0u) > key) {
            chart->fire_order[j] = chart->fire_order[j - 1];
            j--;
        }
        chart->fire_order[j] = tr;
    }
    return 0;
}

static const char *slot_name_of(const void *owner, int slot)
{
    return ((const hydae_model *)owner)->slot_names[slot];
}

int hy_model_find_slot(const hydae_model *m, const char *name)
{
    return hy_name_index_get(&m->slot_map, name, slot_name_of, m);
}

int hy_model_find_event(const hydae_model *m, const char *name)
{
    for (int i = 0; i < m->n_events; i++)
        if (strcmp(m->event_names[i], name) == 0)
            return i;
    return -1;
}

/* Slot for a mode-level name, adding it if new. -1 on out of memory. */
static int intern_slot(hydae_model *m, const char *name, int *cap_slots)
{
    int slot = hy_model_find_slot(m, name);
    if (slot >= 0)
        return slot;
    if (hy_reserve((void **)&m->slot_names, cap_slots, m->n_slots + 1, sizeof(char *)))
        return -1;
    m->slot_names[m->n_slots] = name;
    if (hy_name_index_put(&m->slot_map, name, m->n_slots, slot_name_of, m))
        return -1;
    return m->n_slots++;
}

/* A mode's equations number its unknowns, unless it shares some with other
** charts' modes (then each configuration is checked when entered). */
static int check_mode_size(hydae_model *m, const hydae_mode *mode)
{
    const char *chart = mode->chart->name;
    if (mode->has_shared && mode->is_mechanical)
        return HY_MODEL_ERROR(m, "mode '%s' (chart '%s') is mechanical and shares variables "
                              "with modes of other charts ('%s', ...): a mechanical mode's "
                              "unknowns are its own", mode->name, chart,
                              mode->n_vars > 0 ? mode->vars[0].name : "?");
    if (mode->has_shared || mode->n_equations < 0 || mode->n_equations == mode->n_vars)
        return 0;
    return HY_MODEL_ERROR(m, "mode '%s' (chart '%s') has %d equations for %d unknowns: "
                          "the system is %s", mode->name, chart, mode->n_equations,
                          mode->n_vars,
                          mode->n_equations < mode->n_vars ? "underdetermined"
                                                           : "overdetermined");
}

static int check_mode(hydae_model *m, const hydae_mode *mode)
{
    const char *chart = mode->chart->name;
    if (mode->n_equations == -1 && mode->n_vars > 0) {
        HY_MODEL_ERROR(m, "mode '%s' (chart '%s') has %d unknowns but no equations "
                       "(set a residual or a right-hand side)", mode->name, chart, mode->n_vars);
        return HYDAE_ERR_MODEL;
    }
    if (mode->is_mechanical) {
        const hydae_mechanics *mech = &mode->mech;
        if (mode->n_vars != 2 * mech->n_q + mech->n_c)
            return HY_MODEL_ERROR(m, "mode '%s' (chart '%s') is mechanical with %d coordinates "
                                  "and %d constraints, so it needs %d variables (positions, "
                                  "velocities, multipliers), not %d", mode->name, chart,
                                  mech->n_q, mech->n_c, 2 * mech->n_q + mech->n_c,
                                  mode->n_vars);
        for (int i = 0; i < mode->n_vars; i++) {
            hydae_var_kind kind = mode->vars[i].kind;
            int ok = i < mech->n_q       ? !hy_var_is_algebraic(kind)
                     : i < 2 * mech->n_q ? kind == HYDAE_VELOCITY
                                         : kind == HYDAE_MULTIPLIER;
            if (!ok)
                return HY_MODEL_ERROR(m, "mode '%s': variable %d '%s' must be %s (a mechanical "
                                      "mode's variables are n_q positions, n_q velocities, "
                                      "n_c multipliers)", mode->name, i, mode->vars[i].name,
                                      i < mech->n_q       ? "a position (differential)"
                                      : i < 2 * mech->n_q ? "a velocity (HYDAE_VELOCITY)"
                                                          : "a multiplier (HYDAE_MULTIPLIER)");
        }
        if (mode->jacobian)
            return HY_MODEL_ERROR(m, "mode '%s' is mechanical: its Jacobian is formed by the "
                                  "simulator; do not set one", mode->name);
    }
    if (mode->rhs)
        for (int i = 0; i < mode->n_vars; i++)
            if (hy_var_is_algebraic(mode->vars[i].kind)) {
                HY_MODEL_ERROR(m, "mode '%s': variable '%s' is algebraic but the mode is "
                               "an explicit ODE (use a residual)", mode->name,
                               mode->vars[i].name);
                return HYDAE_ERR_MODEL;
            }
    if (mode->n_outputs > 0 && !mode->outputs) {
        HY_MODEL_ERROR(m, "mode '%s' declares outputs ('%s', ...) but no output function",
                       mode->name, mode->out_vars[0].name);
        return HYDAE_ERR_MODEL;
    }
    for (int i = 0; i < mode->n_vars + mode->n_outputs; i++) {
        const char *name = i < mode->n_vars ? mode->vars[i].name
                                            : mode->out_vars[i - mode->n_vars].name;
        if (hy_model_find_global(m, name) >= 0)
            return HY_MODEL_ERROR(m, "mode '%s': %s '%s' has the name of a parameter or "
                                  "discrete variable", mode->name,
                                  i < mode->n_vars ? "variable" : "output", name);
    }
    return 0;
}

static int check_transition(hydae_model *m, const hydae_transition *tr)
{
    switch (tr->trigger) {
    case HY_TRIGGER_NONE:
        HY_MODEL_ERROR(m, "transition '%s' (%s -> %s) has no trigger", tr->name,
                       tr->from->name, tr->to->name);
        return HYDAE_ERR_MODEL;
    case HY_TRIGGER_GUARD:
        if (tr->guard >= tr->from->n_guards) {
            HY_MODEL_ERROR(m, "transition '%s' uses guard %d of mode '%s', which has %d "
                           "guard%s", tr->name, tr->guard, tr->from->name,
                           tr->from->n_guards, tr->from->n_guards == 1 ? "" : "s");
            return HYDAE_ERR_MODEL;
        }
        break;
    case HY_TRIGGER_STEP:
        if (!tr->from->after_step) {
            HY_MODEL_ERROR(m, "transition '%s' fires on a step event of mode '%s', which has "
                           "no after-step function (hydae_mode_set_after_step)", tr->name,
                           tr->from->name);
            return HYDAE_ERR_MODEL;
        }
        break;
    default:
        break;
    }
    return 0;
}

static int check_nomem(hydae_model *m);

/* A name that is a variable of modes of several charts is one unknown of
** every configuration where they are active together (seed 000, section
** 4: a configuration's DAE is assembled from the active modes of all
** charts); its modes are marked has_shared. An output belongs to one
** chart: two charts' modes could both define it. Slots must be set. */
static int check_slot_owners(hydae_model *m)
{
    size_t n = (size_t)m->n_slots + 1;
    const hydae_mode **first = hy_calloc(n, sizeof *first); /* the first mode naming a slot */
    unsigned char *flags = hy_calloc(n, 1);
    enum { FIRST_IS_OUTPUT = 1, SHARED = 2 };
    int status = 0;
    if (!first || !flags) {
        status = check_nomem(m);
        goto done;
    }
    for (int c = 0; c < m->n_charts && !status; c++)
        for (int i = 0; i < m->charts[c]->n_modes && !status; i++) {
            const hydae_mode *mode = m->charts[c]->modes[i];
            for (int v = 0; v < mode->n_vars + mode->n_outputs; v++) {
                int is_output = v >= mode->n_vars;
                const hy_var *var = is_output ? &mode->out_vars[v - mode->n_vars] : &mode->vars[v];
                const hydae_mode *was = first[var->slot];
                if (!was) {
                    first[var->slot] = mode;
                    flags[var->slot] = is_output ? FIRST_IS_OUTPUT : 0;
                    continue;
                }
                if (was->chart == mode->chart)
                    continue;
                if ((flags[var->slot] & FIRST_IS_OUTPUT) || is_output) {
                    status = HY_MODEL_ERROR(m, "'%s' is defined in mode '%s' (chart '%s', as %s) "
                                            "and in mode '%s' (chart '%s', as %s), which can be "
                                            "active together: an output belongs to one chart",
                                            var->name, was->name, was->chart->name,
                                            (flags[var->slot] & FIRST_IS_OUTPUT) ? "an output"
                                                                                 : "a variable",
                                            mode->name, mode->chart->name,
                                            is_output ? "an output" : "a variable");
                    break;
                }
                flags[var->slot] |= SHARED;
            }
        }
    for (int c = 0; c < m->n_charts && !status; c++)
        for (int i = 0; i < m->charts[c]->n_modes; i++) {
            hydae_mode *mode = m->charts[c]->modes[i];
            mode->has_shared = 0;
            for (int v = 0; v < mode->n_vars; v++)
                mode->has_shared |= (flags[mode->vars[v].slot] & SHARED) != 0;
            status = check_mode_size(m, mode);
            if (status)
                break;
        }
done:
    hy_free(first);
    hy_free(flags);
    return status;
}

/* Reallocate an array of cap items to its n (> 0) items. 0, or -1 when
** that fails (the array is kept: an allocator that fails is out of memory,
** and every failed allocation says so). */
static int shrink_to_fit(void **items, int *cap, int n, size_t item_size)
{
    if (n <= 0 || n >= *cap)
        return 0;
    void *fitted = hy_realloc(*items, (size_t)n * item_size);
    if (!fitted)
        return -1;
    *items = fitted;
    *cap = n;
    return 0;
}

/* Out of memory while checking: a message, but not a construction error
** (hy_model_fail's is sticky), so that a later check may succeed. */
static int check_nomem(hydae_model *m)
{
    hy_format(m->errmsg, sizeof m->errmsg, "model '%s': out of memory checking it", m->name);
    return HYDAE_ERR_NOMEM;
}

int hydae_model_check(hydae_model *m)
{
    if (!m)
        return HYDAE_ERR_ARG;
    if (m->checked)
        return 0;
    if (m->build_error)
        return m->build_error;
    if (m->n_charts == 0) {
        HY_MODEL_ERROR(m, "model '%s' has no statechart", m->name);
        return HYDAE_ERR_MODEL;
    }
    for (int c = 0; c < m->n_charts; c++) {
        hydae_chart *chart = m->charts[c];
        if (chart->n_modes == 0) {
            HY_MODEL_ERROR(m, "chart '%s' has no mode", chart->name);
            return HYDAE_ERR_MODEL;
        }
        for (int i = 0; i < chart->n_modes; i++) {
            int status = check_mode(m, chart->modes[i]);
            if (status)
                return status;
        }
        for (int i = 0; i < chart->n_transitions; i++) {
            int status = check_transition(m, chart->transitions[i]);
            if (status)
                return status;
        }
        if (build_fire_order(chart))
            return check_nomem(m);
    }
    /* The modes are complete: their variable arrays lose the room that
    ** growing by doubling left (up to half of them). */
    for (int c = 0; c < m->n_charts; c++)
        for (int i = 0; i < m->charts[c]->n_modes; i++) {
            hydae_mode *mode = m->charts[c]->modes[i];
            if (shrink_to_fit((void **)&mode->vars, &mode->cap_vars, mode->n_vars,
                              sizeof(hy_var))
                || shrink_to_fit((void **)&mode->out_vars, &mode->cap_outputs,
                                 mode->n_outputs, sizeof(hy_var)))
                return check_nomem(m);
        }

    /* Slots: globals first, then every mode name in order of declaration. */
    int cap_slots = 0;
    m->n_slots = 0;
    hy_name_index_free(&m->slot_map);
    for (int i = 0; i < m->n_globals; i++)
        if (intern_slot(m, m->globals[i].name, &cap_slots) < 0)
            return check_nomem(m);
    for (int c = 0; c < m->n_charts; c++)
        for (int i = 0; i < m->charts[c]->n_modes; i++) {
            hydae_mode *mode = m->charts[c]->modes[i];
            if (mode->n_equations == -2)
                mode->n_equations = mode->n_vars;
            for (int v = 0; v < mode->n_vars; v++)
                if ((mode->vars[v].slot = intern_slot(m, mode->vars[v].name, &cap_slots)) < 0)
                    return check_nomem(m);
            for (int o = 0; o < mode->n_outputs; o++)
                if ((mode->out_vars[o].slot = intern_slot(m, mode->out_vars[o].name, &cap_slots)) < 0)
                    return check_nomem(m);
        }
    if (shrink_to_fit((void **)&m->slot_names, &cap_slots, m->n_slots, sizeof(char *)))
        return check_nomem(m);
    int status = check_slot_owners(m);
    if (status)
        return status;
    /* Columns: discrete variables, then all mode names. */
    hy_free(m->column_slot); /* from a check that ran out of memory */
    m->column_slot = hy_malloc(sizeof(int) * (size_t)(m->n_slots > 0 ? m->n_slots : 1));
    if (!m->column_slot)
        return check_nomem(m);
    m->n_columns = 0;
    for (int i = 0; i < m->n_slots; i++)
        if (i >= m->n_globals || m->globals[i].is_discrete)
            m->column_slot[m->n_columns++] = i;
    if (hy_model_index_infos(m))
        return check_nomem(m);
    /* Named events. */
    int cap_events = 0;
    for (int c = 0; c < m->n_charts; c++)
        for (int i = 0; i < m->charts[c]->n_transitions; i++) {
            hydae_transition *tr = m->charts[c]->transitions[i];
            if (tr->trigger != HY_TRIGGER_EVENT)
                continue;
            tr->event_id = hy_model_find_event(m, tr->event_name);
            if (tr->event_id < 0) {
                if (hy_reserve((void **)&m->event_names, &cap_events, m->n_events + 1,
                               sizeof(char *)))
                    return check_nomem(m);
                m->event_names[m->n_events] = tr->event_name;
                tr->event_id = m->n_events++;
            }
        }
    m->checked = 1;
    return 0;
}

int hydae_model_n_columns(const hydae_model *m)
{
    return m && m->checked ? m->n_columns : 0;
}

const char *hydae_model_column_name(const hydae_model *m, int column)
{
    if (!m || !m->checked || column < 0 || column >= m->n_columns)
        return NULL;
    return m->slot_names[m->column_slot[column]];
}
