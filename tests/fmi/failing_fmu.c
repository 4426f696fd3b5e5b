/*
** A minimal FMI 2.0 Model Exchange FMU for the tests of import's failure
** paths (tests/fmi/cli_fmi.sh zips it with a modelDescription.xml):
** x' = -x, x(0) = 1, one state, no event indicators. It fails on purpose:
**   - fmi2Instantiate returns NULL when the GUID is "{null}";
**   - fmi2GetDerivatives returns fmi2Error (and logs why) once time has
**     passed the parameter t_fail (valueReference 2, default 1.0).
** And it has step events: fmi2CompletedIntegratorStep asks for event mode
** at the first step at or past the parameter t_step (valueReference 3),
** where fmi2NewDiscreteStates flips the sign of x; and for the end of the
** run at the first step at or past t_stop (valueReference 4).
** Written from the FMI 2.0.4 specification's function signatures (section
** 2.1); the types are spelled out in plain C, apart from the importer's
** src/fmi/fmi_api.h, so that a wrong declaration there would show.
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

enum { OK = 0, ERROR = 3 };

typedef struct callbacks {
    void (*logger)(void *env, const char *instance, int status, const char *category,
                   const char *message, ...);
    void *(*allocate)(size_t n, size_t size);
    void (*free_memory)(void *p);
    void (*step_finished)(void *env, int status);
    void *env;
} callbacks;

typedef struct event_info {
    int new_discrete_states_needed, terminate_simulation, nominals_changed, values_changed,
        next_event_time_defined;
    double next_event_time;
} event_info;

typedef struct instance {
    callbacks cb;
    double t, x, t_fail, t_step, t_stop;
    int stepped;           /* the step event happened */
} instance;

#include "fmu2_common.h"

EXPORT void *fmi2Instantiate(const char *name, int type, const char *guid,
                             const char *resources, const callbacks *cb, int visible,
                             int logging_on)
{
    (void)name;
    (void)resources;
    (void)visible;
    (void)logging_on;
    if (type != 0 || !guid || strcmp(guid, "{null}") == 0 || !cb)
        return NULL;
    instance *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->cb = *cb;
    c->x = 1.0;
    c->t_fail = 1.0;
    c->t_step = c->t_stop = 1e300;
    return c;
}

EXPORT int fmi2GetReal(void *c, const unsigned vr[], size_t n, double v[])
{
    instance *inst = c;
    for (size_t i = 0; i < n; i++)
        v[i] = vr[i] == 0 ? inst->x : vr[i] == 1 ? -inst->x : vr[i] == 2 ? inst->t_fail
               : vr[i] == 3 ? inst->t_step : inst->t_stop;
    return OK;
}

EXPORT int fmi2SetReal(void *c, const unsigned vr[], size_t n, const double v[])
{
    instance *inst = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] == 0)
            inst->x = v[i];
        else if (vr[i] == 2)
            inst->t_fail = v[i];
        else if (vr[i] == 3)
            inst->t_step = v[i];
        else if (vr[i] == 4)
            inst->t_stop = v[i];
    }
    return OK;
}

EXPORT int fmi2NewDiscreteStates(void *c, event_info *info)
{
    instance *inst = c;
    memset(info, 0, sizeof *info);
    if (inst->t >= inst->t_step && !inst->stepped) {
        inst->stepped = 1;
        inst->x = -inst->x;
        info->values_changed = 1;
    }
    return OK;
}

EXPORT int fmi2CompletedIntegratorStep(void *c, int no_prior, int *enter_event, int *terminate)
{
    instance *inst = c;
    (void)no_prior;
    *enter_event = inst->t >= inst->t_step && !inst->stepped;
    *terminate = inst->t >= inst->t_stop;
    return OK;
}

EXPORT int fmi2GetDerivatives(void *c, double dx[], size_t n)
{
    instance *inst = c;
    if (inst->t > inst->t_fail) {
        inst->cb.logger(inst->cb.env, "failing", ERROR, "logStatusError",
                        "failing on purpose past t = %g", inst->t_fail);
        return ERROR;
    }
    if (n == 1)
        dx[0] = -inst->x;
    return OK;
}

