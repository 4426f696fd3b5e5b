/*
** FMI 2.0 Model Exchange calls (FMI 2.0.4 section 3.2: fmi2Instantiate
** with fmi2ModelExchange, fmi2SetupExperiment, the initialization mode,
** fmi2NewDiscreteStates in event mode, fmi2SetTime /
** fmi2SetContinuousStates / fmi2GetDerivatives in continuous-time mode),
** and those of Co-Simulation (section 4.2: fmi2Instantiate with
** fmi2CoSimulation, fmi2DoStep, fmi2GetBooleanStatus(fmi2Terminated)).
*/
#include "fmi/binary.h"
#include "fmi/fmu.h"
#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* fmi2CallbackLogger: printf-style with the FMU's own format. */
static void logger2(void *env, const char *instance, int status, const char *category,
                    const char *message, ...)
{
    (void)instance;
    char text[512];
    va_list ap;
    va_start(ap, message);
    vsnprintf(text, sizeof text, message ? message : "", ap);
    va_end(ap);
    hy_fmu_log(env, status, category, text);
}

static void *allocate2(size_t n, size_t size)
{
    return calloc(n, size);
}

static int resolve2(hy_fmu *f, char *err, size_t err_size)
{
    return hy_fmi2_resolve(f->library, &f->f2, f->cosim, f->path, err, err_size);
}

static int instantiate2(hy_fmu *f)
{
    f->callbacks2 = (hy_fmi2_callbacks){ logger2, allocate2, free, NULL, f };
    int type = f->cosim ? HY_FMI2_CO_SIMULATION : HY_FMI2_MODEL_EXCHANGE;
    f->instance = f->f2.instantiate(f->identifier, type, f->desc.token,
                                    f->have_resources ? f->resources : NULL, &f->callbacks2,
                                    0, 0);
    if (!f->instance) {
        hy_format(f->errmsg, sizeof f->errmsg, "%s: fmi2Instantiate returned NULL%s%s", f->path,
                  f->logmsg[0] ? ": " : "", f->logmsg);
        return -1;
    }
    return 0;
}

static void free2(hy_fmu *f)
{
    f->f2.free_instance(f->instance);
}

static int enter_initialization2(hy_fmu *f, double t0)
{
    int status = hy_fmu_check(f, f->f2.setup_experiment(f->instance, 0, 0.0, t0, 0, 0.0),
                              "fmi2SetupExperiment");
    if (status)
        return status;
    return hy_fmu_check(f, f->f2.enter_initialization_mode(f->instance),
                        "fmi2EnterInitializationMode");
}

static int exit_initialization2(hy_fmu *f)
{
    return hy_fmu_check(f, f->f2.exit_initialization_mode(f->instance),
                        "fmi2ExitInitializationMode");
}

static int set_time2(hy_fmu *f, double t)
{
    return hy_fmu_check(f, f->f2.set_time(f->instance, t), "fmi2SetTime");
}

static int set_states2(hy_fmu *f, const double *x)
{
    return hy_fmu_check(f, f->f2.set_continuous_states(f->instance, x,
                                                        (size_t)f->desc.n_states),
                        "fmi2SetContinuousStates");
}

static int get_derivatives2(hy_fmu *f, double *dx)
{
    return hy_fmu_check(f, f->f2.get_derivatives(f->instance, dx, (size_t)f->desc.n_states),
                        "fmi2GetDerivatives");
}

static int get_indicators2(hy_fmu *f, double *z)
{
    return hy_fmu_check(f, f->f2.get_event_indicators(f->instance, z,
                                                       (size_t)f->desc.n_event_indicators),
                        "fmi2GetEventIndicators");
}

static int get_states2(hy_fmu *f, double *x)
{
    return hy_fmu_check(f, f->f2.get_continuous_states(f->instance, x,
                                                        (size_t)f->desc.n_states),
                        "fmi2GetContinuousStates");
}

static int enter_event_mode2(hy_fmu *f)
{
    return hy_fmu_check(f, f->f2.enter_event_mode(f->instance), "fmi2EnterEventMode");
}

static int update_discrete2(hy_fmu *f, hy_fmi_event *event)
{
    hy_fmi2_event_info info = { 0, 0, 0, 0, 0, 0.0 };
    int status = hy_fmu_check(f, f->f2.new_discrete_states(f->instance, &info),
                              "fmi2NewDiscreteStates");
    event->need_update = info.new_discrete_states_needed != 0;
    event->terminate = info.terminate_simulation != 0;
    event->values_changed = info.values_changed != 0;
    event->next_time_defined = info.next_event_time_defined != 0;
    event->next_time = info.next_event_time;
    event->nominals_changed = info.nominals_changed != 0;
    return status;
}

/* After an accepted step (2.0.4 section 3.2.2): does the FMU want event
** mode, or to end the run? */
static int completed_step2(hy_fmu *f, int *enter_event, int *terminate)
{
    hy_fmi2_boolean event = 0, end = 0;
    int status = hy_fmu_check(f, f->f2.completed_integrator_step(f->instance, 1, &event, &end),
                              "fmi2CompletedIntegratorStep");
    *enter_event = event != 0;
    *terminate = end != 0;
    return status;
}

/* One communication step from t over h (2.0.4 section 4.2.2): Discard
** with fmi2Terminated true is the FMU ending the run. */
static int do_step2(hy_fmu *f, double t, double h, int *terminate)
{
    *terminate = 0;
    int status = f->f2.do_step(f->instance, t, h, 1);
    if (status == HY_FMI_DISCARD) {
        hy_fmi2_boolean ended = 0;
        if (f->f2.get_boolean_status(f->instance, HY_FMI2_TERMINATED, &ended) == HY_FMI_OK
            && ended) {
            *terminate = 1;
            return 0;
        }
    }
    return hy_fmu_check(f, status, "fmi2DoStep");
}

static int enter_continuous2(hy_fmu *f)
{
    return hy_fmu_check(f, f->f2.enter_continuous_time_mode(f->instance),
                        "fmi2EnterContinuousTimeMode");
}

/* Real, Integer, Enumeration and Boolean as a double. */
static int get_value2(hy_fmu *f, const hy_fmi_var *v, double *value)
{
    hy_fmi2_vr vr = v->vr;
    int status;
    if (v->type == HY_FMI_FLOAT64) {
        status = f->f2.get_real(f->instance, &vr, 1, value);
    } else if (v->type == HY_FMI_BOOLEAN) {
        hy_fmi2_boolean b = 0;
        status = f->f2.get_boolean(f->instance, &vr, 1, &b);
        *value = b != 0;
    } else {
        int i = 0;
        status = f->f2.get_integer(f->instance, &vr, 1, &i);
        *value = i;
    }
    return hy_fmu_check(f, status, v->type == HY_FMI_FLOAT64 ? "fmi2GetReal"
                                   : v->type == HY_FMI_BOOLEAN ? "fmi2GetBoolean"
                                                               : "fmi2GetInteger");
}

static int directional2(hy_fmu *f, const uint32_t *unknown, size_t n_unknown,
                        const uint32_t *known, size_t n_known, const double *seed,
                        double *sensitivity)
{
    return hy_fmu_check(f, f->f2.get_directional_derivative(f->instance, unknown, n_unknown,
                                                             known, n_known, seed, sensitivity),
                        "fmi2GetDirectionalDerivative");
}

/* Real, Integer, Enumeration (as Integer) and Boolean from a double. */
static int set_value2(hy_fmu *f, const hy_fmi_var *v, double value)
{
    hy_fmi2_vr vr = v->vr;
    if (hy_fmu_check_value(f, v, value))
        return -1;
    if (v->type == HY_FMI_FLOAT64)
        return hy_fmu_check(f, f->f2.set_real(f->instance, &vr, 1, &value), "fmi2SetReal");
    int i = (int)value;
    if (v->type == HY_FMI_BOOLEAN)
        return hy_fmu_check(f, f->f2.set_boolean(f->instance, &vr, 1, &i), "fmi2SetBoolean");
    return hy_fmu_check(f, f->f2.set_integer(f->instance, &vr, 1, &i), "fmi2SetInteger");
}

static void terminate2(hy_fmu *f)
{
    (void)hy_fmu_check(f, f->f2.terminate(f->instance), "fmi2Terminate");
}

/* The states' nominal values after an event that changed them. */
static int get_nominals2(hy_fmu *f, double *nominal)
{
    if (!f->f2.get_nominals) {
        hy_format(f->errmsg, sizeof f->errmsg, "%s: the FMU reports "
                  "nominalsOfContinuousStatesChanged but does not export "
                  "fmi2GetNominalsOfContinuousStates", f->path);
        return -1;
    }
    return hy_fmu_check(f, f->f2.get_nominals(f->instance, nominal, (size_t)f->desc.n_states),
                        "fmi2GetNominalsOfContinuousStates");
}

const hy_fmi_instance_ops hy_fmi2_ops = {
    resolve2,           instantiate2,     free2,           enter_initialization2,
    exit_initialization2, set_time2,      set_states2,     get_derivatives2,
    get_indicators2,    get_states2,      enter_event_mode2, update_discrete2,
    enter_continuous2,  get_value2,       directional2,    set_value2,
    terminate2,         completed_step2,  do_step2,         get_nominals2,
};
