/*
** FMI 3.0 Model Exchange calls (FMI 3.0 section 3.2:
** fmi3InstantiateModelExchange, fmi3EnterInitializationMode with the
** experiment's times, fmi3UpdateDiscreteStates in event mode,
** fmi3SetTime / fmi3SetContinuousStates /
** fmi3GetContinuousStateDerivatives in continuous-time mode), and those of
** Co-Simulation (section 4: fmi3InstantiateCoSimulation without event
** mode or early return, fmi3DoStep).
*/
#include "fmi/binary.h"
#include "fmi/fmu.h"
#include "core/core.h"

#include <stdbool.h>

static void logger3(void *env, int status, const char *category, const char *message)
{
    hy_fmu_log(env, status, category, message ? message : "");
}

static int resolve3(hy_fmu *f, char *err, size_t err_size)
{
    return hy_fmi3_resolve(f->library, &f->f3, f->cosim, f->path, err, err_size);
}

static int instantiate3(hy_fmu *f)
{
    const char *resources = f->have_resources ? f->resources : NULL;
    if (f->cosim)
        f->instance = f->f3.instantiate_cs(f->identifier, f->desc.token, resources, false, false,
                                           false, false, NULL, 0, f, logger3, NULL);
    else
        f->instance = f->f3.instantiate_me(f->identifier, f->desc.token, resources, false, false,
                                           f, logger3);
    if (!f->instance) {
        hy_format(f->errmsg, sizeof f->errmsg, "%s: fmi3Instantiate%s returned NULL%s%s",
                  f->path, f->cosim ? "CoSimulation" : "ModelExchange",
                  f->logmsg[0] ? ": " : "", f->logmsg);
        return -1;
    }
    return 0;
}

static void free3(hy_fmu *f)
{
    f->f3.free_instance(f->instance);
}

static int enter_initialization3(hy_fmu *f, double t0)
{
    return hy_fmu_check(f, f->f3.enter_initialization_mode(f->instance, false, 0.0, t0, false,
                                                           0.0),
                        "fmi3EnterInitializationMode");
}

static int exit_initialization3(hy_fmu *f)
{
    return hy_fmu_check(f, f->f3.exit_initialization_mode(f->instance),
                        "fmi3ExitInitializationMode");
}

static int set_time3(hy_fmu *f, double t)
{
    return hy_fmu_check(f, f->f3.set_time(f->instance, t), "fmi3SetTime");
}

static int set_states3(hy_fmu *f, const double *x)
{
    return hy_fmu_check(f, f->f3.set_continuous_states(f->instance, x,
                                                        (size_t)f->desc.n_states),
                        "fmi3SetContinuousStates");
}

static int get_derivatives3(hy_fmu *f, double *dx)
{
    return hy_fmu_check(f, f->f3.get_derivatives(f->instance, dx, (size_t)f->desc.n_states),
                        "fmi3GetContinuousStateDerivatives");
}

static int get_indicators3(hy_fmu *f, double *z)
{
    return hy_fmu_check(f, f->f3.get_event_indicators(f->instance, z,
                                                       (size_t)f->desc.n_event_indicators),
                        "fmi3GetEventIndicators");
}

static int get_states3(hy_fmu *f, double *x)
{
    return hy_fmu_check(f, f->f3.get_continuous_states(f->instance, x,
                                                        (size_t)f->desc.n_states),
                        "fmi3GetContinuousStates");
}

static int enter_event_mode3(hy_fmu *f)
{
    return hy_fmu_check(f, f->f3.enter_event_mode(f->instance), "fmi3EnterEventMode");
}

static int update_discrete3(hy_fmu *f, hy_fmi_event *event)
{
    bool need = false, terminate = false, nominals = false, values = false, defined = false;
    double next = 0.0;
    int status = hy_fmu_check(f, f->f3.update_discrete_states(f->instance, &need, &terminate,
                                                              &nominals, &values, &defined,
                                                              &next),
                              "fmi3UpdateDiscreteStates");
    event->need_update = need;
    event->terminate = terminate;
    event->values_changed = values;
    event->next_time_defined = defined;
    event->next_time = next;
    event->nominals_changed = nominals;
    return status;
}

/* After an accepted step (3.0 section 3.2.3): does the FMU want event
** mode, or to end the run? */
static int completed_step3(hy_fmu *f, int *enter_event, int *terminate)
{
    bool event = false, end = false;
    int status = hy_fmu_check(f, f->f3.completed_integrator_step(f->instance, true, &event, &end),
                              "fmi3CompletedIntegratorStep");
    *enter_event = event;
    *terminate = end;
    return status;
}

/* One communication step from t over h (3.0 section 4.2.1). */
static int do_step3(hy_fmu *f, double t, double h, int *terminate)
{
    bool event = false, end = false, early = false;
    double last = t;
    int status = hy_fmu_check(f, f->f3.do_step(f->instance, t, h, true, &event, &end, &early,
                                               &last),
                              "fmi3DoStep");
    *terminate = end;
    return status;
}

static int enter_continuous3(hy_fmu *f)
{
    return hy_fmu_check(f, f->f3.enter_continuous_time_mode(f->instance),
                        "fmi3EnterContinuousTimeMode");
}

/* hy_fmu_check naming fmi3Get<Type> / fmi3Set<Type>. */
static int check_typed(hy_fmu *f, int status, const char *verb, hy_fmi_type type)
{
    static const char *const type_names[] = { "Float64", "Float32", "Int8",   "UInt8",
                                              "Int16",   "UInt16",  "Int32",  "UInt32",
                                              "Int64",   "UInt64",  "Boolean" };
    char call[64];
    hy_format(call, sizeof call, "fmi3%s%s", verb,
              type <= HY_FMI_BOOLEAN ? type_names[type] : "Int64"); /* Enumeration */
    return hy_fmu_check(f, status, call);
}

/* One scalar of any numeric type as a double (Enumeration is Int64). */
static int get_value3(hy_fmu *f, const hy_fmi_var *v, double *value)
{
    hy_fmi3_vr vr = v->vr;
    void *c = f->instance;
    int status;
#define GET3(fn, type)                                                                    \
    do {                                                                                  \
        type x = 0;                                                                       \
        status = f->f3.fn(c, &vr, 1, &x, 1);                                              \
        *value = (double)x;                                                               \
    } while (0)
    switch (v->type) {
    case HY_FMI_FLOAT64: GET3(get_float64, double); break;
    case HY_FMI_FLOAT32: GET3(get_float32, float); break;
    case HY_FMI_INT8: GET3(get_int8, int8_t); break;
    case HY_FMI_UINT8: GET3(get_uint8, uint8_t); break;
    case HY_FMI_INT16: GET3(get_int16, int16_t); break;
    case HY_FMI_UINT16: GET3(get_uint16, uint16_t); break;
    case HY_FMI_INT32: GET3(get_int32, int32_t); break;
    case HY_FMI_UINT32: GET3(get_uint32, uint32_t); break;
    case HY_FMI_UINT64: GET3(get_uint64, uint64_t); break;
    case HY_FMI_BOOLEAN: GET3(get_boolean, bool); break;
    default: GET3(get_int64, int64_t); break; /* Int64, Enumeration */
    }
#undef GET3
    return check_typed(f, status, "Get", v->type);
}

static int directional3(hy_fmu *f, const uint32_t *unknown, size_t n_unknown,
                        const uint32_t *known, size_t n_known, const double *seed,
                        double *sensitivity)
{
    return hy_fmu_check(f, f->f3.get_directional_derivative(f->instance, unknown, n_unknown,
                                                             known, n_known, seed, n_known,
                                                             sensitivity, n_unknown),
                        "fmi3GetDirectionalDerivative");
}

/* Any numeric type from a double (Enumeration is an Int64). */
static int set_value3(hy_fmu *f, const hy_fmi_var *v, double value)
{
    if (hy_fmu_check_value(f, v, value))
        return -1;
    hy_fmi3_vr vr = v->vr;
    void *c = f->instance;
    int status;
#define SET3(fn, type)                                                                    \
    do {                                                                                  \
        type x = (type)value;                                                             \
        status = f->f3.fn(c, &vr, 1, &x, 1);                                              \
    } while (0)
    switch (v->type) {
    case HY_FMI_FLOAT64: SET3(set_float64, double); break;
    case HY_FMI_FLOAT32: SET3(set_float32, float); break;
    case HY_FMI_INT8: SET3(set_int8, int8_t); break;
    case HY_FMI_UINT8: SET3(set_uint8, uint8_t); break;
    case HY_FMI_INT16: SET3(set_int16, int16_t); break;
    case HY_FMI_UINT16: SET3(set_uint16, uint16_t); break;
    case HY_FMI_INT32: SET3(set_int32, int32_t); break;
    case HY_FMI_UINT32: SET3(set_uint32, uint32_t); break;
    case HY_FMI_UINT64: SET3(set_uint64, uint64_t); break;
    case HY_FMI_BOOLEAN: SET3(set_boolean, bool); break;
    default: SET3(set_int64, int64_t); break; /* Int64, Enumeration */
    }
#undef SET3
    return check_typed(f, status, "Set", v->type);
}

static void terminate3(hy_fmu *f)
{
    (void)hy_fmu_check(f, f->f3.terminate(f->instance), "fmi3Terminate");
}

/* The states' nominal values after an event that changed them. */
static int get_nominals3(hy_fmu *f, double *nominal)
{
    if (!f->f3.get_nominals) {
        hy_format(f->errmsg, sizeof f->errmsg, "%s: the FMU reports "
                  "nominalsOfContinuousStatesChanged but does not export "
                  "fmi3GetNominalsOfContinuousStates", f->path);
        return -1;
    }
    return hy_fmu_check(f, f->f3.get_nominals(f->instance, nominal, (size_t)f->desc.n_states),
                        "fmi3GetNominalsOfContinuousStates");
}

const hy_fmi_instance_ops hy_fmi3_ops = {
    resolve3,           instantiate3,     free3,           enter_initialization3,
    exit_initialization3, set_time3,      set_states3,     get_derivatives3,
    get_indicators3,    get_states3,      enter_event_mode3, update_discrete3,
    enter_continuous3,  get_value3,       directional3,    set_value3,
    terminate3,         completed_step3,  do_step3,         get_nominals3,
};
