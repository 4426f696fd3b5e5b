/*
** A sim's own parameter values (hydae_sim_set_param): the model's values
** are only read, so the sims of one model, each with its parameters, may
** run on several threads at once.
*/
#include "sim.h"

#include "core/core.h"
#include "model/model.h"

int hydae_sim_set_param(hydae_sim *s, const char *name, double value)
{
    if (!s || !name)
        return HYDAE_ERR_ARG;
    hydae_model *m = s->model;
    int i = hy_model_find_global(m, name);
    if (i < 0) {
        hy_model_describe_unknown(m, name, s->errmsg, sizeof s->errmsg);
        return HYDAE_ERR_ARG;
    }
    if (!s->param_value) {
        size_t n = (size_t)m->n_globals;
        s->param_value = hy_calloc(n, sizeof *s->param_value);
        s->param_is_set = hy_calloc(n, sizeof *s->param_is_set);
        if (!s->param_value || !s->param_is_set) {
            hy_free(s->param_value);
            hy_free(s->param_is_set);
            s->param_value = NULL;
            s->param_is_set = NULL;
            hy_format(s->errmsg, sizeof s->errmsg, "out of memory setting '%s'", name);
            return HYDAE_ERR_NOMEM;
        }
    }
    s->param_value[i] = value;
    s->param_is_set[i] = 1;
    if (s->advancing) { /* from where the run stands (hydae_sim_advance) */
        s->store[i] = value;
        s->params_changed = 1;
    }
    return 0;
}

void hy_params_start(hydae_sim *s)
{
    const hydae_model *m = s->model;
    for (int i = 0; i < m->n_globals; i++)
        s->store[i] = s->param_is_set && s->param_is_set[i] ? s->param_value[i]
                                                            : m->globals[i].value;
}
