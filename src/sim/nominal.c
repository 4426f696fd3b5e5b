/*
** Nominal values set at run time (hydae_action_set_nominal): per sim, per
** slot of the model, an override of the variable's nominal value (FMI
** 2.0.4 section 3.2.2, fmi2GetNominalsOfContinuousStates after
** nominalsOfContinuousStatesChanged). The model is not written, so sims
** of one model on several threads keep their own. The configuration laid
** out after the event (build_config) takes its tolerances from here
** (hy_set_component_tolerances) and the integrator restarts with them.
*/
#include "sim.h"

#include <math.h>

int hydae_action_set_nominal(hydae_action *a, const char *name, double nominal)
{
    if (!a)
        return HYDAE_ERR_ARG;
    hydae_sim *s = a->sim;
    const hydae_model *m = s->model;
    int slot = name ? hy_model_find_slot(m, name) : -1;
    if (slot < m->n_globals) {
        hy_sim_fail(s, "at t = %.17g: cannot set the nominal value of '%s': it is not a "
                    "variable of the model", a->t, name ? name : "(null)");
        a->status = a->status ? a->status : HYDAE_ERR_ACTION;
        return HYDAE_ERR_ACTION;
    }
    if (!(nominal > 0.0) || !isfinite(nominal)) {
        hy_sim_fail(s, "at t = %.17g: the nominal value of '%s' must be a positive finite "
                    "number; it was %.17g", a->t, name, nominal);
        a->status = a->status ? a->status : HYDAE_ERR_ACTION;
        return HYDAE_ERR_ACTION;
    }
    if (!s->nominal_value) {
        s->nominal_value = hy_calloc((size_t)m->n_slots, sizeof *s->nominal_value);
        if (!s->nominal_value)
            return HYDAE_ERR_NOMEM;
    }
    s->nominal_value[slot] = nominal;
    return 0;
}

double hy_sim_nominal(const hydae_sim *s, const hy_var *var)
{
    double set = s->nominal_value ? s->nominal_value[var->slot] : 0.0;
    return set > 0.0 ? set : hy_var_nominal(s->model, var);
}

void hy_nominal_reset(hydae_sim *s)
{
    if (s->nominal_value)
        for (int i = 0; i < s->model->n_slots; i++)
            s->nominal_value[i] = 0.0;
}
