/*
** An FMU for Model Exchange as a hydae model, through the public C API
** only: one chart with one explicit-ODE mode whose variables are the FMU's
** continuous states (in state order) and whose right-hand side is
** fmi2SetTime / fmi2SetContinuousStates / fmi2GetDerivatives (3.0:
** fmi3GetContinuousStateDerivatives). Its guards are the event indicators,
** each with a self-transition on either direction; a time event
** (nextEventTime) is scheduled on the chart (hydae_action_schedule) with a
** self-transition on it, and CompletedIntegratorStep is the mode's
** after-step function, a step event with a self-transition on it. Their
** action is the event iteration of FMI 2.0.4 section 3.2.2 / FMI 3.0
** section 3.2.3: enter event mode, new discrete states until none are
** needed, enter continuous-time mode, read the states back as the mode's
** new values; terminateSimulation ends the run there (hydae_action_stop).
** The states' nominal values scale their absolute tolerances. The Jacobian
** comes from the FMU's directional derivatives when it provides them. The
** FMU is instantiated and initialised in the model's
** initial action, at t0 of every run. Its outputs are the mode's outputs,
** its numeric parameters and inputs the model's parameters (so --set
** reaches them; an input stays at its value for the whole run).
*/
#include "fmi/fmu.h"
#include "core/core.h"

#include <math.h>
#include <string.h>

enum { MAX_EVENT_ITERATIONS = 1000 };

static int not_running(hy_fmu *f)
{
    if (f->instance && !f->fatal)
        return 0;
    if (!f->errmsg[0])
        hy_format(f->errmsg, sizeof f->errmsg, "%s: the FMU is not instantiated", f->path);
    return -1;
}

/* Give the FMU time t and states y unless it has them already. */
int hy_fmu_sync(hy_fmu *f, double t, const double *y)
{
    int status = not_running(f);
    if (status)
        return status;
    if (!f->time_valid || f->time_set != t) {
        if ((status = f->ops->set_time(f, t)) != 0)
            return status;
        f->time_set = t;
        f->time_valid = 1;
    }
    size_t n = (size_t)f->desc.n_states;
    if (n > 0 && (!f->states_valid || memcmp(f->states_set, y, n * sizeof *y) != 0)) {
        if ((status = f->ops->set_states(f, y)) != 0)
            return status;
        memcpy(f->states_set, y, n * sizeof *y);
        f->states_valid = 1;
    }
    return 0;
}

static int fmu_rhs(double t, const double *y, const double *p, double *ydot, void *user)
{
    hy_fmu *f = hy_fmu_for_sim(user, p);
    if (!f)
        return -1;
    int status = hy_fmu_sync(f, t, y);
    return status ? status : f->ops->get_derivatives(f, ydot);
}

/* df/dy column by column from directional derivatives (2.0.4 section
** 3.2.2, fmi2GetDirectionalDerivative; 3.0 section 3.2.3): column j is the
** sensitivity of the derivatives to a unit seed on state j. */
static int fmu_jacobian(double t, double cj, const double *y, const double *yp, const double *p,
                        double *jac, void *user)
{
    (void)cj;
    (void)yp;
    hy_fmu *f = hy_fmu_for_sim(user, p);
    if (!f)
        return -1;
    int status = hy_fmu_sync(f, t, y);
    int n = f->desc.n_states;
    for (int j = 0; j < n && !status; j++) {
        memset(f->seed, 0, (size_t)n * sizeof *f->seed);
        f->seed[j] = 1.0;
        status = f->ops->directional(f, f->derivative_vr, (size_t)n, f->state_vr, (size_t)n,
                                     f->seed, jac + (size_t)j * (size_t)n);
    }
    return status;
}

static int fmu_guards(double t, const double *y, const double *yp, const double *p, double *g,
                      void *user)
{
    (void)yp;
    hy_fmu *f = hy_fmu_for_sim(user, p);
    if (!f)
        return -1;
    int status = hy_fmu_sync(f, t, y);
    if (status)
        return status;
    return f->ops->get_indicators(f, g);
}

/* CompletedIntegratorStep after every accepted step (2.0.4 section 3.2.2,
** 3.0 section 3.2.3; unless the FMU says it needs none): a step event
** when the FMU wants event mode or to end the run. */
int hy_fmu_after_step(double t, const double *y, const double *yp, const double *p,
                      void *user)
{
    (void)yp;
    hy_fmu *f = hy_fmu_for_sim(user, p);
    int enter_event = 0, terminate = 0;
    if (!f || hy_fmu_sync(f, t, y) || f->ops->completed_step(f, &enter_event, &terminate) < 0)
        return -1;
    f->step_terminate = terminate;
    return enter_event || terminate ? HYDAE_STEP_EVENT : HYDAE_STEP_CONTINUE;
}

static int fmu_outputs(double t, const double *y, const double *yp, const double *p,
                       double *out, void *user)
{
    (void)yp;
    hy_fmu *f = hy_fmu_for_sim(user, p);
    if (!f)
        return -1;
    if (!f->instance && !f->fatal) {
        /* Asked before the initial action instantiates the FMU: no values yet. */
        for (int k = 0; k < f->n_outputs; k++)
            out[k] = NAN;
        return 0;
    }
    int status = hy_fmu_sync(f, t, y);
    for (int k = 0; k < f->n_outputs && !status; k++)
        status = f->ops->get_value(f, &f->desc.vars[f->output_var[k]], &out[k]);
    return status;
}

/* The states as the FMU has them now at t, into states_set. */
static int read_states(hy_fmu *f, double t)
{
    if (f->desc.n_states > 0 && f->ops->get_states(f, f->scratch))
        return -1;
    memcpy(f->states_set, f->scratch, (size_t)f->desc.n_states * sizeof *f->scratch);
    f->states_valid = 1;
    f->time_set = t;
    f->time_valid = 1;
    f->have_event_time = 1;
    f->event_time = t;
    return 0;
}

/* terminateSimulation: the run ends at t, successfully, with the states
** the FMU has. */
static int end_run(hy_fmu *f, hydae_action *a, double t)
{
    f->terminated = 1;
    char reason[600];
    hy_format(reason, sizeof reason, "%s: the FMU ended the simulation at t = %.17g "
              "(terminateSimulation)%s%s", f->path, t, f->logmsg[0] ? ": " : "", f->logmsg);
    if (hydae_action_stop(a, reason))
        return -1;
    return read_states(f, t);
}

/* nextEventTime (when defined) as the chart's next time event. */
static int schedule_next(hy_fmu *f, hydae_action *a, double t, const hy_fmi_event *event)
{
    if (!event->next_time_defined)
        return hydae_action_schedule(a, f->chart, INFINITY);
    if (!(event->next_time > t)) {
        hy_format(f->errmsg, sizeof f->errmsg, "%s: the FMU's nextEventTime %.17g is not "
                  "after the event at t = %.17g", f->path, event->next_time, t);
        return -1;
    }
    return hydae_action_schedule(a, f->chart, event->next_time);
}

/* nominalsOfContinuousStatesChanged: the states' new nominal values
** (2.0.4 section 3.2.2, 3.0 section 3.2.3) scale their absolute
** tolerances from this event on, in this sim's run only. */
static int take_nominals(hy_fmu *f, hydae_action *a, double t)
{
    if (f->desc.n_states == 0)
        return 0;
    if (f->ops->get_nominals(f, f->scratch))
        return -1;
    for (int k = 0; k < f->desc.n_states; k++) {
        const char *name = hy_fmu_var_name(f, f->desc.state_var[k]);
        double nominal = f->scratch[k];
        if (!(nominal > 0.0) || !isfinite(nominal)) {
            hy_format(f->errmsg, sizeof f->errmsg, "%s: at t = %.17g the FMU gives state %s "
                      "the nominal value %.17g; a nominal value must be positive", f->path, t,
                      name, nominal);
            return -1;
        }
        if (hydae_action_set_nominal(a, name, nominal))
            return -1;
    }
    return 0;
}

/* New discrete states until the FMU needs no more (event mode), then the
** next time event and continuous-time mode, or the end of the run; the
** states are read back into states_set, new nominal values taken. */
static int event_iteration(hy_fmu *f, hydae_action *a, double t)
{
    hy_fmi_event event = { 1, 0, 0, 0, 0.0, 0 };
    int status = 0, rounds = 0, nominals_changed = 0;
    while (event.need_update && !event.terminate && !status) {
        if (++rounds > MAX_EVENT_ITERATIONS) {
            hy_format(f->errmsg, sizeof f->errmsg, "%s: the event iteration at t = %.17g did "
                      "not settle in %d rounds", f->path, t, MAX_EVENT_ITERATIONS);
            return -1;
        }
        status = f->ops->update_discrete(f, &event);
        nominals_changed |= event.nominals_changed;
    }
    if (status)
        return -1;
    if (event.terminate)
        return end_run(f, a, t);
    if ((nominals_changed && take_nominals(f, a, t)) || schedule_next(f, a, t, &event)
        || f->ops->enter_continuous(f))
        return -1;
    return read_states(f, t);
}

/* The states after the event iteration as the mode's new values. */
static int set_states_after_event(hy_fmu *f, hydae_action *a)
{
    for (int k = 0; k < f->desc.n_states; k++)
        if (hydae_set(a, hy_fmu_var_name(f, f->desc.state_var[k]), f->states_set[k]))
            return -1;
    return 0;
}

/* Every guard's transition runs this; the first of an instant iterates. */
static int fmu_event_action(hydae_action *a, void *user)
{
    hy_fmu *f = hy_fmu_for_action(user, a);
    double t = hydae_action_time(a);
    if (!f || not_running(f))
        return -1;
    if (f->have_event_time && f->event_time == t)
        return set_states_after_event(f, a);
    if (f->step_terminate) { /* CompletedIntegratorStep's terminateSimulation */
        f->step_terminate = 0;
        return end_run(f, a, t) ? -1 : set_states_after_event(f, a);
    }
    for (int k = 0; k < f->desc.n_states; k++)
        f->scratch[k] = hydae_get(a, hy_fmu_var_name(f, f->desc.state_var[k]));
    if (hy_fmu_sync(f, t, f->scratch) || f->ops->enter_event_mode(f)
        || hy_fmu_sync_inputs_by_name(f, a) || event_iteration(f, a, t))
        return -1;
    return set_states_after_event(f, a);
}

/* Parameters and (Model Exchange) the start values of states, as the run
** has them now. */
static int set_start_values(hy_fmu *f, hydae_action *a)
{
    for (int k = 0; k < f->n_params; k++) {
        const hy_fmi_var *v = &f->desc.vars[f->param_var[k]];
        if (f->ops->set_value(f, v, hydae_get(a, hy_fmu_var_name(f, f->param_var[k]))))
            return -1;
    }
    for (int k = 0; k < f->desc.n_states && !f->cosim; k++) {
        const hy_fmi_var *v = &f->desc.vars[f->desc.state_var[k]];
        /* A component's state with no value now (its mode entered again,
        ** the transition not setting it) takes its start value. */
        double x = hydae_get(a, hy_fmu_var_name(f, f->desc.state_var[k]));
        if (v->has_start && v->initial != HY_FMI_CALCULATED && v->variability != HY_FMI_CONSTANT
            && f->ops->set_value(f, v, isnan(x) ? v->start : x))
            return -1;
    }
    return hy_fmu_sync_inputs_by_name(f, a); /* a component's inputs */
}

int hy_fmu_initialise(hy_fmu *f, hydae_action *a, double t0)
{
    hy_fmu_end_instance(f);
    f->fatal = f->terminated = f->step_terminate = 0;
    f->errmsg[0] = f->logmsg[0] = '\0';
    f->time_valid = f->states_valid = f->inputs_valid = f->have_event_time = 0;
    if (f->ops->instantiate(f) || set_start_values(f, a) || f->ops->enter_initialization(f, t0)
        || f->ops->exit_initialization(f))
        return -1;
    return 0;
}

/* At t0 of every run: a fresh instance, initialised (2.0.4 section 3.2.1,
** 3.0 section 3.2.1), then the event iteration of the initial instant. */
int hy_fmu_start(hy_fmu *f, hydae_action *a)
{
    double t0 = hydae_action_time(a);
    if (hy_fmu_initialise(f, a, t0) || event_iteration(f, a, t0))
        return -1;
    f->have_event_time = 0; /* an event at t0 still iterates */
    return set_states_after_event(f, a);
}

static int fmu_initial_action(hydae_action *a, void *user)
{
    hy_fmu *f = hy_fmu_for_action(user, a);
    return f ? hy_fmu_start(f, a) : -1;
}

static void free_attached(void *data)
{
    hy_fmu_free(data);
}

/* Numeric parameters and inputs that may be set before initialisation;
** numeric outputs that are not states (Model Exchange's states are
** variables already). */
int hy_fmu_choose_columns(hy_fmu *f)
{
    const hy_fmi_description *d = &f->desc;
    f->param_var = hy_alloc_array((size_t)d->n_vars + 1, sizeof *f->param_var);
    f->input_var = hy_alloc_array((size_t)d->n_vars + 1, sizeof *f->input_var);
    f->inputs_set = hy_alloc_array((size_t)d->n_vars + 1, sizeof *f->inputs_set);
    f->output_var = hy_alloc_array((size_t)d->n_vars + 1, sizeof *f->output_var);
    f->states_set = hy_alloc_array((size_t)d->n_states + 1, sizeof *f->states_set);
    f->scratch = hy_alloc_array((size_t)d->n_states + 1, sizeof *f->scratch);
    f->seed = hy_alloc_array((size_t)d->n_vars + 1, sizeof *f->seed);
    f->sensitivity = hy_alloc_array((size_t)d->n_vars + 1, sizeof *f->sensitivity);
    f->state_vr = hy_alloc_array((size_t)d->n_states + 1, sizeof *f->state_vr);
    f->derivative_vr = hy_alloc_array((size_t)d->n_states + 1, sizeof *f->derivative_vr);
    char *is_state = hy_calloc((size_t)d->n_vars + 1, 1);
    if (!f->param_var || !f->input_var || !f->inputs_set || !f->output_var || !f->states_set
        || !f->scratch || !f->seed || !f->sensitivity || !f->state_vr || !f->derivative_vr
        || !is_state) {
        hy_free(is_state);
        return -1;
    }
    for (int k = 0; k < d->n_states; k++) {
        is_state[d->state_var[k]] = !f->cosim;
        f->state_vr[k] = d->vars[d->state_var[k]].vr;
        f->derivative_vr[k] = d->vars[d->derivative_var[k]].vr;
    }
    for (int i = 0; i < d->n_vars; i++) {
        const hy_fmi_var *v = &d->vars[i];
        if (v->is_array)
            continue;
        /* Inputs of a whole-model FMU are held at their parameter's value;
        ** a component's are unknowns the model defines (component.c). */
        int is_parameter = v->causality == HY_FMI_PARAMETER
                           && (v->variability == HY_FMI_FIXED || v->variability == HY_FMI_TUNABLE);
        int is_input = v->causality == HY_FMI_INPUT && hy_fmi_type_is_numeric(v->type);
        if (is_input && f->component)
            f->input_var[f->n_inputs++] = i;
        else if ((is_parameter || is_input) && hy_fmi_type_is_numeric(v->type) && v->has_start)
            f->param_var[f->n_params++] = i;
        if (v->causality == HY_FMI_OUTPUT && hy_fmi_type_is_numeric(v->type) && !is_state[i])
            f->output_var[f->n_outputs++] = i;
    }
    hy_free(is_state);
    return 0;
}

/* A self-transition of the FMU's mode running the event iteration, by
** trigger: guard k (k >= 0, either direction), a scheduled time (-1), a
** step event (-2). */
static int add_event_transition(hy_fmu *f, hydae_mode *mode, int k)
{
    char name[64];
    if (k >= 0)
        hy_format(name, sizeof name, "event_indicator_%d", k + 1);
    else
        hy_format(name, sizeof name, k == -1 ? "time_event" : "step_event");
    hydae_transition *tr = hydae_chart_add_transition(f->chart, name, mode, mode);
    if (!tr)
        return -1;
    int status = k >= 0 ? hydae_transition_on_guard(tr, k, HYDAE_BOTH)
                 : k == -1 ? hydae_transition_on_schedule(tr)
                           : hydae_transition_on_step_event(tr);
    return status ? status : hydae_transition_set_action(tr, fmu_event_action, f);
}

int hy_fmu_add_event_transitions(hy_fmu *f, hydae_mode *mode)
{
    for (int k = 0; k < f->desc.n_event_indicators; k++)
        if (add_event_transition(f, mode, k))
            return -1;
    if (add_event_transition(f, mode, -1)
        || (f->desc.me_needs_completed_step && add_event_transition(f, mode, -2)))
        return -1;
    return 0;
}

/* The mode's variables (states, with their nominal values) and outputs. */
static int add_variables(hy_fmu *f, hydae_mode *mode)
{
    const hy_fmi_description *d = &f->desc;
    for (int k = 0; k < d->n_states; k++) {
        const hy_fmi_var *v = &d->vars[d->state_var[k]];
        int var = hydae_mode_add_var(mode, hy_fmu_var_name(f, d->state_var[k]),
                                     HYDAE_DIFFERENTIAL, v->has_start ? v->start : 0.0);
        if (var < 0 || (v->nominal != 1.0 && hydae_mode_set_nominal(mode, var, v->nominal)))
            return -1;
    }
    for (int k = 0; k < f->n_outputs; k++)
        if (hydae_mode_add_output(mode, d->vars[f->output_var[k]].name) < 0)
            return -1;
    return 0;
}

int hy_fmu_add_params(hy_fmu *f, hydae_model *m)
{
    for (int k = 0; k < f->n_params; k++) {
        const hy_fmi_var *v = &f->desc.vars[f->param_var[k]];
        if (hydae_model_add_param(m, hy_fmu_var_name(f, f->param_var[k]), v->start) < 0)
            return -1;
    }
    return 0;
}

/* Chart, mode, variables, guards, hooks and transitions. */
static int build(hy_fmu *f, hydae_model *m)
{
    const hy_fmi_description *d = &f->desc;
    f->chart = hydae_model_add_chart(m, "fmu");
    hydae_mode *mode = f->chart ? hydae_chart_add_mode(f->chart, f->identifier) : NULL;
    if (!mode)
        return -1;
    if (hy_fmu_add_params(f, m))
        return -1;
    int nz = d->n_event_indicators;
    /* The rhs also carries `user` for the guards, outputs and after-step. */
    if (add_variables(f, mode) || hydae_mode_set_rhs(mode, fmu_rhs, f)
        || (f->n_outputs > 0 && hydae_mode_set_outputs(mode, fmu_outputs))
        || (nz > 0 && hydae_mode_set_guards(mode, nz, fmu_guards))
        || (d->me_needs_completed_step && hydae_mode_set_after_step(mode, hy_fmu_after_step)))
        return -1;
    /* The Jacobian from the FMU when it says it can (else finite differences). */
    int directional = f->desc.fmi_major == 2 ? f->f2.get_directional_derivative != NULL
                                             : f->f3.get_directional_derivative != NULL;
    if (d->me_directional && directional && d->n_states > 0
        && hydae_mode_set_jacobian(mode, fmu_jacobian))
        return -1;
    if (hy_fmu_add_event_transitions(f, mode))
        return -1;
    return hydae_model_set_initial_action(m, fmu_initial_action, f);
}

/* One instance made and freed at once: a GUID / instantiation token the
** binary does not accept, or a binary that cannot instantiate, is a load
** error rather than the failure of a run. */
static int try_instantiate(hy_fmu *f, char *err, size_t err_size)
{
    if (f->ops->instantiate(f)) {
        hy_format(err, err_size, "%s (a %s that does not match the binary?)", f->errmsg,
                  f->desc.fmi_major == 2 ? "guid" : "instantiationToken");
        return -1;
    }
    f->ops->free_instance(f);
    f->instance = NULL;
    f->logmsg[0] = '\0';
    return 0;
}

hydae_model *hy_fmu_open_model(const char *path, hy_fmu **fmu, char *err, size_t err_size)
{
    return hy_fmu_open_model_as(path, HY_FMU_AUTO, fmu, err, err_size);
}

hydae_model *hy_fmu_open_model_as(const char *path, hy_fmu_interface iface, hy_fmu **fmu,
                                  char *err, size_t err_size)
{
    if (fmu)
        *fmu = NULL;
    hy_fmu *f = hy_fmu_open(path, iface, err, err_size);
    if (!f)
        return NULL;
    if (try_instantiate(f, err, err_size)) {
        hy_fmu_free(f);
        return NULL;
    }
    hydae_model *m = hydae_model_create(f->desc.model_name);
    if (!m || hy_fmu_choose_columns(f)) {
        hy_format(err, err_size, "%s: out of memory", path);
        hydae_model_free(m);
        hy_fmu_free(f);
        return NULL;
    }
    if (hydae_model_attach(m, f, free_attached)) {
        hy_format(err, err_size, "%s: %s", path, hydae_model_errmsg(m));
        hydae_model_free(m);
        hy_fmu_free(f);
        return NULL;
    }
    if (f->cosim ? hy_fmu_build_cosim(f, m) : build(f, m)) {
        hy_format(err, err_size, "%s: cannot build the model: %s", path, hydae_model_errmsg(m));
        hydae_model_free(m); /* frees f */
        return NULL;
    }
    if (fmu)
        *fmu = f;
    return m;
}
