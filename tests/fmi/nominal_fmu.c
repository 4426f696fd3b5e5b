/*
** A minimal FMI 2.0 Model Exchange FMU whose state's nominal value changes
** at an event (tests/fmi/test_fmi_nominal.c zips it with a
** modelDescription.xml): x' = -x, x(0) = 1e-5, one state, no event
** indicators, a time event at t = 1 (nextEventTime). There
** fmi2NewDiscreteStates reports nominalsOfContinuousStatesChanged when
** the parameter `change` (valueReference 2, default 1) is not 0, and
** fmi2GetNominalsOfContinuousStates gives the parameter `nominal`
** (valueReference 4, default 1e-6) from then on, 1 before. The output
** n_nominals (valueReference 3) counts the calls of
** fmi2GetNominalsOfContinuousStates.
** Written from the FMI 2.0.4 specification's function signatures (section
** 2.1 and 3.2); the types are spelled out in plain C, apart from the
** importer's src/fmi/fmi_api.h.
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

enum { OK = 0 };

typedef struct event_info {
    int new_discrete_states_needed, terminate_simulation, nominals_changed, values_changed,
        next_event_time_defined;
    double next_event_time;
} event_info;

typedef struct instance {
    double t, x, change, nominal;
    int changed;           /* the event at t = 1 happened */
    int n_nominals;        /* calls of fmi2GetNominalsOfContinuousStates */
} instance;

#include "fmu2_common.h"

EXPORT void *fmi2Instantiate(const char *name, int type, const char *guid,
                             const char *resources, const void *cb, int visible,
                             int logging_on)
{
    (void)name;
    (void)resources;
    (void)visible;
    (void)logging_on;
    if (type != 0 || !guid || !cb)
        return NULL;
    instance *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->x = 1e-5;
    c->change = 1.0;
    c->nominal = 1e-6;
    return c;
}

EXPORT int fmi2GetReal(void *c, const unsigned vr[], size_t n, double v[])
{
    instance *inst = c;
    for (size_t i = 0; i < n; i++)
        v[i] = vr[i] == 0 ? inst->x : vr[i] == 1 ? -inst->x : vr[i] == 2 ? inst->change
               : vr[i] == 3 ? (double)inst->n_nominals : inst->nominal;
    return OK;
}

EXPORT int fmi2SetReal(void *c, const unsigned vr[], size_t n, const double v[])
{
    instance *inst = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] == 0)
            inst->x = v[i];
        else if (vr[i] == 2)
            inst->change = v[i];
        else if (vr[i] == 4)
            inst->nominal = v[i];
    }
    return OK;
}

/* A time event at t = 1 (announced until it is reached). */
EXPORT int fmi2NewDiscreteStates(void *c, event_info *info)
{
    instance *inst = c;
    memset(info, 0, sizeof *info);
    if (inst->t >= 1.0 && !inst->changed) {
        inst->changed = 1;
        info->nominals_changed = inst->change != 0.0;
    }
    if (!inst->changed) {
        info->next_event_time_defined = 1;
        info->next_event_time = 1.0;
    }
    return OK;
}

EXPORT int fmi2CompletedIntegratorStep(void *c, int no_prior, int *enter_event, int *terminate)
{
    (void)c;
    (void)no_prior;
    *enter_event = *terminate = 0;
    return OK;
}

EXPORT int fmi2GetDerivatives(void *c, double dx[], size_t n)
{
    if (n == 1)
        dx[0] = -((instance *)c)->x;
    return OK;
}

EXPORT int fmi2GetNominalsOfContinuousStates(void *c, double x_nominal[], size_t n)
{
    instance *inst = c;
    inst->n_nominals++;
    if (n == 1)
        x_nominal[0] = inst->changed ? inst->nominal : 1.0;
    return OK;
}
