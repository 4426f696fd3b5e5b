/*
** An FMU for Model Exchange as a component of a model (docs/fmi.md, "An
** FMU as a component"): a chart of its own, named after the component,
** whose mode "on" has the FMU's continuous states, numeric outputs and
** numeric inputs as variables NAME.x, and as residuals
**
**     der(x) - f(t, x, u) = 0       (SetTime, SetContinuousStates, Set<Type>
**     y      - g(t, x, u) = 0        of the inputs, GetDerivatives, Get<Type>)
**
** with no equations for the inputs: the model's modes that declare the
** same names give them (shared unknowns, docs/engine.md). Event
** indicators, nextEventTime and CompletedIntegratorStep are handled by
** model.c's event transitions, as for a whole-model FMU.
**
** Declared in a mode (the host), the chart also has a mode "off" and
** follows the host: the host's entry action raises NAME.enter, on which
** the chart goes to "on", whose entry action instantiates and
** initialises the FMU from the values NAME.x have then (what the host's
** transition set, or carried by name); the host's exit action raises
** NAME.leave, on which it goes back to "off": the exit action of "on"
** terminates and frees the instance.
*/
#include "fmi/fmu.h"
#include "lang/fmu_component.h"
#include "model/model.h"
#include "core/core.h"

#include <math.h>
#include <string.h>

typedef struct component {
    hy_fmu *fmu;
    char *enter_event, *leave_event;
} component;

static void component_free(void *data)
{
    component *c = data;
    if (!c)
        return;
    hy_fmu_free(c->fmu);
    hy_free(c->enter_event);
    hy_free(c->leave_event);
    hy_free(c);
}

const char *hy_fmu_var_name(const hy_fmu *f, int var)
{
    return f->names ? f->names[var] : f->desc.vars[var].name;
}

/* Input k given the value u unless the FMU has it already. An integer
** or Boolean input takes u rounded (0 or 1): the unknown is real, and the
** solver's iterates and difference quotients are not whole numbers. */
static int give_input(hy_fmu *f, int k, double u)
{
    hy_fmi_type type = f->desc.vars[f->input_var[k]].type;
    if (type == HY_FMI_BOOLEAN)
        u = u > 0.5;
    else if (type != HY_FMI_FLOAT64 && type != HY_FMI_FLOAT32)
        u = nearbyint(u);
    if (f->inputs_valid && f->inputs_set[k] == u)
        return 0;
    if (f->ops->set_value(f, &f->desc.vars[f->input_var[k]], u))
        return -1;
    f->inputs_set[k] = u;
    return 0;
}

/* In continuous-time mode: the continuous inputs (a discrete one may be
** set only in event mode: it takes the model's value at events). */
static int give_inputs(hy_fmu *f, const double *u)
{
    for (int k = 0; k < f->n_inputs; k++)
        if (f->desc.vars[f->input_var[k]].variability == HY_FMI_CONTINUOUS
            && give_input(f, k, u[k]))
            return -1;
    return 0;
}

int hy_fmu_sync_inputs_by_name(hy_fmu *f, const hydae_action *a)
{
    for (int k = 0; k < f->n_inputs; k++) {
        const hy_fmi_var *v = &f->desc.vars[f->input_var[k]];
        double u = hydae_get(a, hy_fmu_var_name(f, f->input_var[k]));
        if (give_input(f, k, isnan(u) ? (v->has_start ? v->start : 0.0) : u))
            return -1;
    }
    f->inputs_valid = 1;
    return 0;
}

/* The FMU at time t with the mode's variables y = (states, outputs,
** inputs). */
static int sync_all(hy_fmu *f, double t, const double *y)
{
    int status = hy_fmu_sync(f, t, y);
    if (status)
        return status;
    return give_inputs(f, y + f->desc.n_states + f->n_outputs);
}

static int component_residual(double t, const double *y, const double *yp, const double *p,
                              double *res, void *user)
{
    hy_fmu *f = hy_fmu_for_sim(user, p);
    if (!f)
        return -1;
    int n_states = f->desc.n_states;
    int status = sync_all(f, t, y);
    if (!status && n_states > 0)
        status = f->ops->get_derivatives(f, res);
    for (int k = 0; k < n_states && !status; k++)
        res[k] = yp[k] - res[k];
    for (int k = 0; k < f->n_outputs && !status; k++) {
        double value;
        status = f->ops->get_value(f, &f->desc.vars[f->output_var[k]], &value);
        res[n_states + k] = y[n_states + k] - value;
    }
    return status;
}

static int component_guards(double t, const double *y, const double *yp, const double *p,
                            double *g, void *user)
{
    (void)yp;
    hy_fmu *f = hy_fmu_for_sim(user, p);
    if (!f)
        return -1;
    int status = sync_all(f, t, y);
    return status ? status : f->ops->get_indicators(f, g);
}

/* Entering "on": a fresh instance from the values the states have now. */
static int enter_on(hydae_action *a, void *user)
{
    hy_fmu *f = hy_fmu_for_action(user, a);
    return f ? hy_fmu_start(f, a) : -1;
}

/* Leaving "on": the instance terminated and freed, no time event left. */
static int leave_on(hydae_action *a, void *user)
{
    hy_fmu *f = hy_fmu_for_action(user, a);
    if (!f)
        return -1;
    hy_fmu_end_instance(f);
    return hydae_action_schedule(a, f->chart, INFINITY);
}

/* The host's entry and exit: the FMU's chart follows (not at t0, where
** its initial mode already matches the host's). */
static int host_entered(hydae_action *a, void *user)
{
    const component *c = user;
    return hydae_action_is_initial(a) ? 0 : hydae_raise(a, c->enter_event);
}

static int host_left(hydae_action *a, void *user)
{
    const component *c = user;
    return hydae_raise(a, c->leave_event);
}

static int no_equations(double t, const double *y, const double *yp, const double *p,
                        double *res, void *user)
{
    (void)t, (void)y, (void)yp, (void)p, (void)res, (void)user;
    return 0;
}

/* NAME.x for every variable of the description. */
static int name_variables(hy_fmu *f, const char *name)
{
    f->names = hy_calloc((size_t)f->desc.n_vars + 1, sizeof *f->names);
    if (!f->names)
        return -1;
    size_t prefix = strlen(name);
    for (int i = 0; i < f->desc.n_vars; i++) {
        size_t length = prefix + 1 + strlen(f->desc.vars[i].name) + 1;
        if (!(f->names[i] = hy_malloc(length)))
            return -1;
        hy_format(f->names[i], length, "%s.%s", name, f->desc.vars[i].name);
    }
    return 0;
}

/* Mode "on": states (with their nominal values), outputs, inputs. */
static int add_on_variables(hy_fmu *f, hydae_mode *on)
{
    const hy_fmi_description *d = &f->desc;
    for (int k = 0; k < d->n_states; k++) {
        const hy_fmi_var *v = &d->vars[d->state_var[k]];
        int var = hydae_mode_add_var(on, hy_fmu_var_name(f, d->state_var[k]),
                                     HYDAE_DIFFERENTIAL, v->has_start ? v->start : 0.0);
        if (var < 0 || (v->nominal != 1.0 && hydae_mode_set_nominal(on, var, v->nominal)))
            return -1;
    }
    for (int k = 0; k < f->n_outputs; k++) {
        const hy_fmi_var *v = &d->vars[f->output_var[k]];
        if (hydae_mode_add_var(on, hy_fmu_var_name(f, f->output_var[k]), HYDAE_ALGEBRAIC,
                               v->has_start ? v->start : 0.0) < 0)
            return -1;
    }
    for (int k = 0; k < f->n_inputs; k++) {
        const hy_fmi_var *v = &d->vars[f->input_var[k]];
        int var = hydae_mode_add_var(on, hy_fmu_var_name(f, f->input_var[k]), HYDAE_ALGEBRAIC,
                                     v->has_start ? v->start : 0.0);
        if (var < 0 || hydae_mode_set_start_fixed(on, var, 0))
            return -1;
    }
    return 0;
}

/* The FMU's account of a failed call, for the run's message. */
static const char *why_failed(void *user)
{
    return hy_fmu_errmsg_used_last(user);
}

/* J = dF/dy + cj dF/dy' of "on" from directional derivatives (FMI 2.0.4
** section 3.2.2 fmi2GetDirectionalDerivative, 3.0 section 3.2.3): F is
** (x' - f(x, u), y - g(x, u)), so J is cj I and I on the diagonal of the
** states' and outputs' rows, minus d(f, g)/d(x, u) with one column per
** seeded state or Float64 input (the other inputs are integers, Booleans:
** no derivative; their columns and the other outputs' rows stay as
** they are). */
static int component_jacobian(double t, double cj, const double *y, const double *yp,
                              const double *p, double *jac, void *user)
{
    (void)yp;
    hy_fmu *f = hy_fmu_for_sim(user, p);
    if (!f)
        return -1;
    int n_states = f->desc.n_states;
    size_t n_vars = (size_t)(n_states + f->n_outputs + f->n_inputs);
    memset(jac, 0, n_vars * n_vars * sizeof *jac);
    for (int k = 0; k < n_states; k++)
        jac[(size_t)k * (n_vars + 1)] = cj;
    for (int k = n_states; k < n_states + f->n_outputs; k++)
        jac[(size_t)k * (n_vars + 1)] = 1.0;
    int status = sync_all(f, t, y);
    size_t n_unknowns = (size_t)f->n_jac_unknowns, n_knowns = (size_t)f->n_jac_knowns;
    for (size_t c = 0; c < n_knowns && !status; c++) {
        memset(f->seed, 0, n_knowns * sizeof *f->seed);
        f->seed[c] = 1.0;
        status = f->ops->directional(f, f->jac_unknown_vr, n_unknowns, f->jac_known_vr,
                                     n_knowns, f->seed, f->sensitivity);
        double *column = jac + (size_t)f->jac_known_col[c] * n_vars;
        for (size_t u = 0; u < n_unknowns && !status; u++)
            column[f->jac_unknown_row[u]] -= f->sensitivity[u];
    }
    return status;
}

/* The unknowns (derivatives, Float64 outputs) and knowns (states, Float64
** inputs) of component_jacobian, when the FMU gives directional
** derivatives; 0 unknowns otherwise (finite differences). */
static int choose_directional(hy_fmu *f)
{
    const hy_fmi_description *d = &f->desc;
    int has_function = d->fmi_major == 2 ? f->f2.get_directional_derivative != NULL
                                         : f->f3.get_directional_derivative != NULL;
    if (!d->me_directional || !has_function || d->n_states + f->n_outputs == 0)
        return 0;
    size_t n = (size_t)(d->n_states + f->n_outputs + f->n_inputs) + 1;
    f->jac_unknown_vr = hy_alloc_array(n, sizeof *f->jac_unknown_vr);
    f->jac_known_vr = hy_alloc_array(n, sizeof *f->jac_known_vr);
    f->jac_unknown_row = hy_alloc_array(n, sizeof *f->jac_unknown_row);
    f->jac_known_col = hy_alloc_array(n, sizeof *f->jac_known_col);
    if (!f->jac_unknown_vr || !f->jac_known_vr || !f->jac_unknown_row || !f->jac_known_col)
        return -1;
    for (int k = 0; k < d->n_states; k++) {
        f->jac_unknown_vr[f->n_jac_unknowns] = f->derivative_vr[k];
        f->jac_unknown_row[f->n_jac_unknowns++] = k;
        f->jac_known_vr[f->n_jac_knowns] = f->state_vr[k];
        f->jac_known_col[f->n_jac_knowns++] = k;
    }
    for (int k = 0; k < f->n_outputs; k++) {
        const hy_fmi_var *v = &d->vars[f->output_var[k]];
        if (v->type == HY_FMI_FLOAT64) {
            f->jac_unknown_vr[f->n_jac_unknowns] = v->vr;
            f->jac_unknown_row[f->n_jac_unknowns++] = d->n_states + k;
        }
    }
    for (int k = 0; k < f->n_inputs; k++) {
        const hy_fmi_var *v = &d->vars[f->input_var[k]];
        if (v->type == HY_FMI_FLOAT64) {
            f->jac_known_vr[f->n_jac_knowns] = v->vr;
            f->jac_known_col[f->n_jac_knowns++] = d->n_states + f->n_outputs + k;
        }
    }
    return 0;
}

static int build_on(hy_fmu *f, hydae_mode *on, int directional)
{
    int n_equations = f->desc.n_states + f->n_outputs;
    int nz = f->desc.n_event_indicators;
    if (directional && choose_directional(f))
        return -1;
    if (f->n_jac_unknowns > 0 && f->n_jac_knowns > 0
        && hydae_mode_set_jacobian(on, component_jacobian))
        return -1;
    if (add_on_variables(f, on) || hydae_mode_set_residual(on, n_equations, component_residual, f)
        || (nz > 0 && hydae_mode_set_guards(on, nz, component_guards))
        || (f->desc.me_needs_completed_step && hydae_mode_set_after_step(on, hy_fmu_after_step))
        || hy_fmu_add_event_transitions(f, on) || hydae_mode_add_entry_action(on, enter_on, f)
        || hydae_mode_add_exit_action(on, leave_on, f) || hydae_mode_set_error_text(on, why_failed))
        return -1;
    return 0;
}

/* Modes "off" and "on" switched by the host's events. */
static int follow_host(component *c, hydae_mode *host, hydae_mode *on, const char *name)
{
    hy_fmu *f = c->fmu;
    size_t length = strlen(name) + sizeof ".enter";
    c->enter_event = hy_malloc(length);
    c->leave_event = hy_malloc(length);
    if (!c->enter_event || !c->leave_event)
        return -1;
    hy_format(c->enter_event, length, "%s.enter", name);
    hy_format(c->leave_event, length, "%s.leave", name);
    hydae_mode *off = hydae_chart_add_mode(f->chart, "off");
    if (!off || hydae_mode_set_residual(off, 0, no_equations, NULL))
        return -1;
    if (host->chart->initial != host && hydae_chart_set_initial(f->chart, off))
        return -1;
    hydae_transition *start = hydae_chart_add_transition(f->chart, "enter", off, on);
    hydae_transition *stop = hydae_chart_add_transition(f->chart, "leave", on, off);
    if (!start || !stop || hydae_transition_on_event(start, c->enter_event)
        || hydae_transition_on_event(stop, c->leave_event)
        || hydae_mode_add_entry_action(host, host_entered, c)
        || hydae_mode_add_exit_action(host, host_left, c))
        return -1;
    return 0;
}

/* The model's parameters NAME.p, the chart and its modes. */
static int build_component(component *c, hydae_model *m, hydae_mode *host,
                           const hy_lang_fmu *how, int with_params)
{
    const char *name = how->name;
    hy_fmu *f = c->fmu;
    f->component = 1;
    if (hy_fmu_choose_columns(f) || name_variables(f, name)
        || (with_params && hy_fmu_add_params(f, m)))
        return -1;
    f->chart = hydae_model_add_chart(m, name);
    hydae_mode *on = f->chart ? hydae_chart_add_mode(f->chart, "on") : NULL;
    if (!on || (f->cosim ? hy_fmu_build_cosim_on(f, on, how->step)
                         : build_on(f, on, !how->finite_differences)))
        return -1;
    return host ? follow_host(c, host, on, name) : 0;
}

/* The parameters NAME.p added to m (with_params), or declared already
** (a model file's). */
static hy_fmu *add_component(hydae_model *m, hydae_mode *host, const hy_lang_fmu *how,
                             int with_params, char *err, size_t err_size)
{
    const char *path = how->path;
    hy_fmu *f = hy_fmu_open(path, how->cosim ? HY_FMU_CO_SIMULATION : HY_FMU_MODEL_EXCHANGE,
                            err, err_size);
    if (!f)
        return NULL;
    component *c = hy_calloc(1, sizeof *c);
    if (!c || hydae_model_attach(m, c, component_free)) {
        hy_format(err, err_size, "%s: out of memory", path);
        hy_free(c);
        hy_fmu_free(f);
        return NULL;
    }
    c->fmu = f;
    if (build_component(c, m, host, how, with_params)) {
        hy_format(err, err_size, "%s: cannot add the FMU as component '%s': %s", path, how->name,
                  hydae_model_errmsg(m)[0] ? hydae_model_errmsg(m) : "out of memory");
        return NULL;
    }
    return f;
}

hy_fmu *hy_fmu_add_component(hydae_model *m, hydae_mode *host, const char *name,
                             const char *path, char *err, size_t err_size)
{
    hy_lang_fmu how = { .name = (char *)name, .path = (char *)path };
    return add_component(m, host, &how, 1, err, err_size);
}

/* ---- for the model language (lang/fmu_component.h) ---- */

static int push_var(hy_lang_fmu_var *vars, int *n, const hy_fmi_var *v,
                    hy_lang_fmu_var_kind kind)
{
    vars[*n].name = hy_strdup(v->name);
    vars[*n].kind = kind;
    vars[*n].start = v->has_start ? v->start : 0.0;
    return vars[(*n)++].name ? 0 : -1;
}

/* What a component of the FMU shows, from its description (the binary is
** loaded too, so that a file that cannot run is said at compile time). */
static int describe(const char *path, int *cosim, hy_lang_fmu_var **vars_out, int *n_vars,
                    char *err, size_t err_size)
{
    *vars_out = NULL;
    *n_vars = 0;
    hy_fmu *f = hy_fmu_open(path, *cosim ? HY_FMU_CO_SIMULATION : HY_FMU_AUTO, err, err_size);
    if (!f)
        return -1;
    *cosim = f->cosim;
    f->component = 1;
    const hy_fmi_description *d = &f->desc;
    hy_lang_fmu_var *vars = NULL;
    int status = hy_fmu_choose_columns(f);
    if (!status)
        vars = hy_calloc((size_t)d->n_vars + 1, sizeof *vars);
    status = vars ? 0 : -1;
    for (int k = 0; k < d->n_states && !status && !f->cosim; k++)
        status = push_var(vars, n_vars, &d->vars[d->state_var[k]], HY_LANG_FMU_STATE);
    for (int k = 0; k < f->n_outputs && !status; k++)
        status = push_var(vars, n_vars, &d->vars[f->output_var[k]], HY_LANG_FMU_OUTPUT);
    for (int k = 0; k < f->n_inputs && !status; k++)
        status = push_var(vars, n_vars, &d->vars[f->input_var[k]], HY_LANG_FMU_INPUT);
    for (int k = 0; k < f->n_params && !status; k++)
        status = push_var(vars, n_vars, &d->vars[f->param_var[k]], HY_LANG_FMU_PARAMETER);
    if (status) {
        hy_format(err, err_size, "%s: out of memory", path);
        hy_lang_fmu_vars_free(vars, *n_vars);
        vars = NULL;
        *n_vars = 0;
    }
    hy_fmu_free(f);
    *vars_out = vars;
    return status;
}

static int add(hydae_model *m, hydae_mode *host, const hy_lang_fmu *fmu, char *err,
               size_t err_size)
{
    hy_fmu *f = add_component(m, host, fmu, 0, err, err_size);
    return f ? 0 : -1;
}

const hy_lang_fmu_ops hy_fmu_lang_ops = { describe, add };
