/*
** An FMU for Co-Simulation as a hydae model: a sampled component. The FMU
** integrates itself; hydae asks it to step from one communication point
** to the next (FMI 2.0.4 section 4.2.2, fmi2DoStep; FMI 3.0 section
** 4.2.1, fmi3DoStep) at t0 + k h, k = 1, 2, ..., each point a time event
** scheduled on the FMU's chart (hydae_action_schedule), and holds the
** outputs read after each step until the next: they are the model's
** discrete variables, written to the results, with the value before and
** after each point as its left and right limits. The mode has no
** variables. terminateSimulation (2.0: DoStep returning Discard with
** fmi2Terminated true; 3.0: DoStep's terminateSimulation) ends the run at
** that point (hydae_action_stop). Parameters and inputs are the model's
** parameters, as for Model Exchange (model.c).
*/
#include "fmi/fmu.h"
#include "model/model.h"
#include "core/core.h"

#include <math.h>

int hy_fmu_set_communication_step(hy_fmu *f, double h)
{
    if (!f || !(h > 0.0) || !isfinite(h))
        return -1;
    f->cs_step = h;
    return 0;
}

/* The outputs as the FMU has them now into their discrete variables. */
static int read_outputs(hy_fmu *f, hydae_action *a)
{
    for (int k = 0; k < f->n_outputs; k++) {
        const hy_fmi_var *v = &f->desc.vars[f->output_var[k]];
        double value;
        if (f->ops->get_value(f, v, &value)
            || hydae_set(a, hy_fmu_var_name(f, f->output_var[k]), value))
            return -1;
    }
    return 0;
}

/* The next communication point, t0 + (k + 1) h (a product, so that the
** points do not drift by repeated addition). */
static int schedule_next_point(hy_fmu *f, hydae_action *a)
{
    return hydae_action_schedule(a, f->chart, f->cs_t0 + (double)(f->cs_k + 1) * f->cs_step);
}

/* At t0 of every run: a fresh instance, initialised, its outputs read,
** the first communication point scheduled. */
static int cosim_initial_action(hydae_action *a, void *user)
{
    hy_fmu *f = hy_fmu_for_action(user, a);
    double t0 = hydae_action_time(a);
    if (!f)
        return -1;
    if (!(f->cs_step > 0.0)) {
        hy_format(f->errmsg, sizeof f->errmsg, "%s: no communication step (the FMU's "
                  "<DefaultExperiment> has no stepSize): give one (--dt; step = h for a "
                  "component)", f->path);
        return -1;
    }
    f->cs_t0 = f->cs_time = t0;
    f->cs_k = 0;
    if (hy_fmu_initialise(f, a, t0) || read_outputs(f, a))
        return -1;
    return schedule_next_point(f, a);
}

/* At a communication point t: one step from the last one to t, the
** outputs read, the next point scheduled, or the end of the run. */
static int cosim_step_action(hydae_action *a, void *user)
{
    hy_fmu *f = hy_fmu_for_action(user, a);
    double t = hydae_action_time(a);
    int terminate = 0;
    if (!f || !f->instance || f->fatal
        || f->ops->do_step(f, f->cs_time, t - f->cs_time, &terminate))
        return -1;
    f->cs_time = t;
    f->cs_k++;
    /* A component's inputs as the model has them at t (held over the next
    ** step), then the outputs at t (a direct feedthrough sees them). */
    if (hy_fmu_sync_inputs_by_name(f, a) || read_outputs(f, a))
        return -1;
    if (!terminate)
        return schedule_next_point(f, a);
    f->terminated = 1;
    char reason[600];
    hy_format(reason, sizeof reason, "%s: the FMU ended the simulation at t = %.17g "
              "(terminateSimulation)%s%s", f->path, t, f->logmsg[0] ? ": " : "", f->logmsg);
    return hydae_action_stop(a, reason);
}

/* A mode without variables has no equations to evaluate. */
static int no_equations(double t, const double *y, const double *p, double *ydot, void *user)
{
    (void)t;
    (void)y;
    (void)p;
    (void)ydot;
    (void)user;
    return 0;
}

/* The communication-point transition of the FMU's mode. */
static int add_communication_points(hy_fmu *f, hydae_mode *mode)
{
    hydae_transition *tr = hydae_chart_add_transition(f->chart, "communication_point", mode,
                                                      mode);
    if (!tr || hydae_transition_on_schedule(tr)
        || hydae_transition_set_action(tr, cosim_step_action, f))
        return -1;
    return 0;
}

int hy_fmu_build_cosim_on(hy_fmu *f, hydae_mode *on, double step)
{
    /* The outputs a model file cannot name (`c.der(x)`, `c.a.b`) are
    ** discrete variables all the same (result columns). */
    for (int k = 0; k < f->n_outputs; k++) {
        const hy_fmi_var *v = &f->desc.vars[f->output_var[k]];
        const char *name = hy_fmu_var_name(f, f->output_var[k]);
        if (hy_model_find_global(on->chart->model, name) < 0
            && hydae_model_add_discrete(on->chart->model, name, v->has_start ? v->start : 0.0)
                   < 0)
            return -1;
    }
    f->cs_step = step > 0.0 ? step : f->desc.has_step_size ? f->desc.step_size : 0.0;
    if (hydae_mode_set_rhs(on, no_equations, f) || add_communication_points(f, on)
        || hydae_mode_add_entry_action(on, cosim_initial_action, f))
        return -1;
    return 0;
}

int hy_fmu_build_cosim(hy_fmu *f, hydae_model *m)
{
    f->chart = hydae_model_add_chart(m, "fmu");
    hydae_mode *mode = f->chart ? hydae_chart_add_mode(f->chart, f->identifier) : NULL;
    if (!mode || hy_fmu_add_params(f, m) || hydae_mode_set_rhs(mode, no_equations, f))
        return -1;
    for (int k = 0; k < f->n_outputs; k++) {
        const hy_fmi_var *v = &f->desc.vars[f->output_var[k]];
        if (hydae_model_add_discrete(m, v->name, v->has_start ? v->start : 0.0) < 0)
            return -1;
    }
    if (f->desc.has_step_size)
        f->cs_step = f->desc.step_size;
    if (add_communication_points(f, mode))
        return -1;
    return hydae_model_set_initial_action(m, cosim_initial_action, f);
}
