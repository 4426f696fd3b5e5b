/*
** Construction of the run-time seams (docs/engine.md, "Run-time seams"):
** a mode's after-step function and its nominal values, and the triggers
** that the simulator fires from them (a step event, a scheduled time).
** The simulator's side is in sim/discrete.c and sim/sim.c. Also a mode's
** entry and exit actions (run by sim/discrete.c).
*/
#include "model.h"

#include "core/core.h"

#include <math.h>

int hydae_mode_set_after_step(hydae_mode *mode, hydae_after_step_fn fn)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (!fn)
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': an after-step function needs a "
                            "function", mode->name);
    mode->after_step = fn;
    return 0;
}

int hydae_mode_set_nominal(hydae_mode *mode, int var, double nominal)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (var < 0 || var >= mode->n_vars)
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': no variable number %d for a "
                            "nominal value", mode->name, var);
    if (!(fabs(nominal) > 0.0) || !isfinite(nominal))
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s', variable '%s': nominal value %g "
                            "(want a finite value other than 0)", mode->name,
                            mode->vars[var].name, nominal);
    hy_var_extra *extra;
    int status = hy_mode_var_extra(mode, var, &extra);
    if (status)
        return status;
    extra->nominal = fabs(nominal);
    return 0;
}

int hydae_transition_on_step_event(hydae_transition *tr)
{
    return tr ? hy_transition_set_trigger(tr, HY_TRIGGER_STEP) : HYDAE_ERR_ARG;
}

int hydae_transition_on_schedule(hydae_transition *tr)
{
    return tr ? hy_transition_set_trigger(tr, HY_TRIGGER_SCHEDULE) : HYDAE_ERR_ARG;
}

/* Append fn to the list at *list. */
static int add_hook(hydae_mode *mode, hy_mode_hook **list, hydae_action_fn fn, void *user,
                    const char *what)
{
    if (!mode)
        return HYDAE_ERR_ARG;
    if (!fn)
        return HY_ARG_ERROR(MODE_MODEL(mode), "mode '%s': an %s action needs a function",
                            mode->name, what);
    hy_mode_hook *hook = hy_malloc(sizeof *hook);
    if (!hook)
        return hy_model_fail(MODE_MODEL(mode), HYDAE_ERR_NOMEM, "mode '%s': out of memory "
                             "adding an %s action", mode->name, what);
    *hook = (hy_mode_hook){ fn, user, NULL };
    while (*list)
        list = &(*list)->next;
    *list = hook;
    return 0;
}

int hydae_mode_add_entry_action(hydae_mode *mode, hydae_action_fn fn, void *user)
{
    int status = add_hook(mode, mode ? &mode->entry_actions : NULL, fn, user, "entry");
    if (!status)
        MODE_MODEL(mode)->has_entry_actions = 1;
    return status;
}

int hydae_mode_add_exit_action(hydae_mode *mode, hydae_action_fn fn, void *user)
{
    return add_hook(mode, mode ? &mode->exit_actions : NULL, fn, user, "exit");
}

int hydae_mode_set_error_text(hydae_mode *mode, const char *(*why)(void *user))
{
    if (!mode)
        return HYDAE_ERR_ARG;
    mode->error_text = why;
    return 0;
}

void hy_mode_hooks_free(hy_mode_hook *hook)
{
    while (hook) {
        hy_mode_hook *next = hook->next;
        hy_free(hook);
        hook = next;
    }
}
