/*
** The FMI 2.0 Co-Simulation interface of the runtime library, written from
** the FMI 2.0.4 specification: section 2.1 (fmi2TypesPlatform.h,
** fmi2FunctionTypes.h: the types and every common function), section 4.2
** (the Co-Simulation functions) and the state machine of a slave (section
** 4.2.4, Fig. 10). The instance itself is slave.c; here are the types,
** the logger and fmuResourceLocation, a file URI.
*/
#include "slave.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *fmi2Component;
typedef void *fmi2ComponentEnvironment;
typedef void *fmi2FMUstate;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char *fmi2String;
typedef char fmi2Byte;

typedef enum { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending } fmi2Status;
typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;
typedef enum {
    fmi2DoStepStatus,
    fmi2PendingStatus,
    fmi2LastSuccessfulTime,
    fmi2Terminated
} fmi2StatusKind;

typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment, fmi2String, fmi2Status, fmi2String,
                                   fmi2String, ...);
typedef struct {
    fmi2CallbackLogger logger;
    void *(*allocateMemory)(size_t, size_t);
    void (*freeMemory)(void *);
    void (*stepFinished)(fmi2ComponentEnvironment, fmi2Status);
    fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

#define FMI2_EXPORT __attribute__((visibility("default")))

/* The logger takes a printf format: the message goes as "%s"'s argument. */
static void log_fmi2(const slave *s, int status, const char *category, const char *message)
{
    const fmi2CallbackFunctions *cb = s->api;
    if (cb->logger)
        cb->logger(cb->componentEnvironment, s->name, (fmi2Status)status, category, "%s",
                   message);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The model file's path from fmuResourceLocation, a file URI (RFC 8089:
** file:///path, file://localhost/path, file:/path), %XX decoded. NULL if
** it is no file URI. */
static char *resource_path(const char *uri)
{
    const char *p;
    if (!uri || strncmp(uri, "file:", 5) != 0)
        return NULL;
    p = uri + 5;
    if (strncmp(p, "//localhost/", 12) == 0)
        p += 11;
    else if (strncmp(p, "///", 3) == 0)
        p += 2;
    else if (strncmp(p, "//", 2) == 0)
        return NULL; /* another host */
    if (*p != '/')
        return NULL;
    size_t n = strlen(p);
    char *path = malloc(n + sizeof "/" HY_EXPORT_RESOURCE_NAME);
    if (!path)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int hi, lo;
        if (p[i] == '%' && i + 2 < n && (hi = hex_digit(p[i + 1])) >= 0
            && (lo = hex_digit(p[i + 2])) >= 0) {
            path[k++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            path[k++] = p[i];
        }
    }
    if (k > 0 && path[k - 1] == '/')
        k--;
    strcpy(path + k, "/" HY_EXPORT_RESOURCE_NAME);
    return path;
}


/* ---- the common functions (section 2.1) ---- */

FMI2_EXPORT const char *fmi2GetTypesPlatform(void)
{
    return "default";
}

FMI2_EXPORT const char *fmi2GetVersion(void)
{
    return "2.0";
}

FMI2_EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn,
                                           size_t nCategories, const fmi2String categories[])
{
    return (fmi2Status)slave_set_debug_logging(c, loggingOn, nCategories, categories,
                                               "fmi2SetDebugLogging");
}

FMI2_EXPORT fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType,
                                          fmi2String fmuGUID, fmi2String fmuResourceLocation,
                                          const fmi2CallbackFunctions *functions,
                                          fmi2Boolean visible, fmi2Boolean loggingOn)
{
    (void)visible;
    if (!functions)
        return NULL;
    slave *s = slave_new(instanceName, log_fmi2, functions, sizeof *functions, loggingOn);
    if (!s) {
        if (functions->logger)
            functions->logger(functions->componentEnvironment, instanceName, fmi2Error,
                              "logStatusError", "out of memory");
        return NULL;
    }
    char *path = resource_path(fmuResourceLocation);
    int failed = 1;
    if (fmuType != fmi2CoSimulation)
        slave_fail(s, "this FMU is for Co-Simulation only (fmuType %d asked)", (int)fmuType);
    else if (!path)
        slave_fail(s, "fmuResourceLocation \"%s\" is no file URI (file:///...)",
                   fmuResourceLocation ? fmuResourceLocation : "(null)");
    else
        failed = slave_load(s, fmuGUID, path) != 0;
    free(path);
    if (failed) {
        slave_free(s);
        return NULL;
    }
    return s;
}

FMI2_EXPORT void fmi2FreeInstance(fmi2Component c)
{
    slave_free(c);
}

FMI2_EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined,
                                           fmi2Real tolerance, fmi2Real startTime,
                                           fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    if (!slave_allowed(c, "fmi2SetupExperiment", 1u << SLAVE_INSTANTIATED))
        return fmi2Error;
    return (fmi2Status)slave_setup(c, toleranceDefined, tolerance, startTime, stopTimeDefined,
                                   stopTime, "fmi2SetupExperiment");
}

FMI2_EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    slave *s = c;
    if (!slave_allowed(s, "fmi2EnterInitializationMode", 1u << SLAVE_INSTANTIATED))
        return fmi2Error;
    s->state = SLAVE_INITIALIZATION;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    if (!slave_allowed(c, "fmi2ExitInitializationMode", 1u << SLAVE_INITIALIZATION))
        return fmi2Error;
    return (fmi2Status)slave_exit_initialization(c);
}

FMI2_EXPORT fmi2Status fmi2Terminate(fmi2Component c)
{
    slave *s = c;
    if (!slave_allowed(s, "fmi2Terminate", 1u << SLAVE_STEPPING))
        return fmi2Error;
    s->state = SLAVE_TERMINATED;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2Reset(fmi2Component c)
{
    if (!slave_allowed(c, "fmi2Reset", SLAVE_ANY_STATE))
        return fmi2Error;
    return (fmi2Status)slave_reset(c);
}

/* ---- values: Real parameters and outputs, the modes as Integers ---- */

FMI2_EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                   fmi2Real value[])
{
    if (!slave_allowed(c, "fmi2GetReal", SLAVE_ANY_STATE))
        return fmi2Error;
    return (fmi2Status)slave_get_float(c, vr, nvr, value, "fmi2GetReal");
}

FMI2_EXPORT fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[],
                                      size_t nvr, fmi2Integer value[])
{
    if (!slave_allowed(c, "fmi2GetInteger", SLAVE_ANY_STATE))
        return fmi2Error;
    return (fmi2Status)slave_get_modes(c, vr, nvr, value, "fmi2GetInteger");
}

FMI2_EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                   const fmi2Real value[])
{
    if (!slave_allowed(c, "fmi2SetReal", SLAVE_BEFORE_RUN | 1u << SLAVE_STEPPING))
        return fmi2Error;
    return (fmi2Status)slave_set_float(c, vr, nvr, value, "fmi2SetReal");
}

static fmi2Status unsupported(fmi2Component c, const char *function, const char *why)
{
    if (!slave_allowed(c, function, SLAVE_ANY_STATE))
        return fmi2Error;
    return (fmi2Status)slave_fail(c, "%s: %s", function, why);
}

#define NO_VARIABLES "the FMU has no variables of this type"

FMI2_EXPORT fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[],
                                      size_t nvr, fmi2Boolean value[])
{
    (void)vr, (void)value;
    return nvr == 0 ? fmi2OK : unsupported(c, "fmi2GetBoolean", NO_VARIABLES);
}

FMI2_EXPORT fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[],
                                     size_t nvr, fmi2String value[])
{
    (void)vr, (void)value;
    return nvr == 0 ? fmi2OK : unsupported(c, "fmi2GetString", NO_VARIABLES);
}

FMI2_EXPORT fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[],
                                      size_t nvr, const fmi2Integer value[])
{
    (void)vr, (void)value;
    return nvr == 0 ? fmi2OK
                    : unsupported(c, "fmi2SetInteger", "the Integer variables are outputs");
}

FMI2_EXPORT fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[],
                                      size_t nvr, const fmi2Boolean value[])
{
    (void)vr, (void)value;
    return nvr == 0 ? fmi2OK : unsupported(c, "fmi2SetBoolean", NO_VARIABLES);
}

FMI2_EXPORT fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[],
                                     size_t nvr, const fmi2String value[])
{
    (void)vr, (void)value;
    return nvr == 0 ? fmi2OK : unsupported(c, "fmi2SetString", NO_VARIABLES);
}

/* ---- what the description says the FMU cannot do ---- */

#define NO_STATE "canGetAndSetFMUstate is false"

FMI2_EXPORT fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    (void)state;
    return unsupported(c, "fmi2GetFMUstate", NO_STATE);
}

FMI2_EXPORT fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state)
{
    (void)state;
    return unsupported(c, "fmi2SetFMUstate", NO_STATE);
}

FMI2_EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *state)
{
    (void)state;
    return unsupported(c, "fmi2FreeFMUstate", NO_STATE);
}

FMI2_EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate state,
                                                  size_t *size)
{
    (void)state, (void)size;
    return unsupported(c, "fmi2SerializedFMUstateSize", NO_STATE);
}

FMI2_EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate state,
                                             fmi2Byte serialized[], size_t size)
{
    (void)state, (void)serialized, (void)size;
    return unsupported(c, "fmi2SerializeFMUstate", NO_STATE);
}

FMI2_EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serialized[],
                                               size_t size, fmi2FMUstate *state)
{
    (void)serialized, (void)size, (void)state;
    return unsupported(c, "fmi2DeSerializeFMUstate", NO_STATE);
}

FMI2_EXPORT fmi2Status fmi2GetDirectionalDerivative(
    fmi2Component c, const fmi2ValueReference unknown[], size_t n_unknown,
    const fmi2ValueReference known[], size_t n_known, const fmi2Real seed[],
    fmi2Real sensitivity[])
{
    (void)unknown, (void)n_unknown, (void)known, (void)n_known, (void)seed, (void)sensitivity;
    return unsupported(c, "fmi2GetDirectionalDerivative", "providesDirectionalDerivative is false");
}

FMI2_EXPORT fmi2Status fmi2SetRealInputDerivatives(fmi2Component c,
                                                   const fmi2ValueReference vr[], size_t nvr,
                                                   const fmi2Integer order[],
                                                   const fmi2Real value[])
{
    (void)vr, (void)order, (void)value;
    return nvr == 0 ? fmi2OK
                    : unsupported(c, "fmi2SetRealInputDerivatives",
                                  "canInterpolateInputs is false");
}

FMI2_EXPORT fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c,
                                                    const fmi2ValueReference vr[], size_t nvr,
                                                    const fmi2Integer order[], fmi2Real value[])
{
    (void)vr, (void)order, (void)value;
    return nvr == 0 ? fmi2OK
                    : unsupported(c, "fmi2GetRealOutputDerivatives",
                                  "maxOutputDerivativeOrder is 0");
}

/* ---- Co-Simulation (section 4.2.2) ---- */

FMI2_EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                                  fmi2Real communicationStepSize,
                                  fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!slave_allowed(c, "fmi2DoStep", 1u << SLAVE_STEPPING))
        return fmi2Error;
    return (fmi2Status)slave_do_step(c, currentCommunicationPoint, communicationStepSize,
                                     "fmi2DoStep");
}

FMI2_EXPORT fmi2Status fmi2CancelStep(fmi2Component c)
{
    return unsupported(c, "fmi2CancelStep", "fmi2DoStep never returns fmi2Pending");
}

FMI2_EXPORT fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind kind,
                                     fmi2Status *value)
{
    (void)kind, (void)value;
    return unsupported(c, "fmi2GetStatus", "fmi2DoStep never returns fmi2Pending");
}

FMI2_EXPORT fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind kind,
                                         fmi2Real *value)
{
    slave *s = c;
    if (s && kind == fmi2LastSuccessfulTime && value) {
        *value = s->t;
        return fmi2OK;
    }
    return unsupported(c, "fmi2GetRealStatus", "only fmi2LastSuccessfulTime is a Real status");
}

FMI2_EXPORT fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind kind,
                                            fmi2Integer *value)
{
    (void)kind, (void)value;
    return unsupported(c, "fmi2GetIntegerStatus", "there is no Integer status");
}

FMI2_EXPORT fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind kind,
                                            fmi2Boolean *value)
{
    slave *s = c;
    if (s && kind == fmi2Terminated && value) {
        *value = 0; /* the model never asks to end the run */
        return fmi2OK;
    }
    return unsupported(c, "fmi2GetBooleanStatus", "only fmi2Terminated is a Boolean status");
}

FMI2_EXPORT fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind kind,
                                           fmi2String *value)
{
    (void)kind, (void)value;
    return unsupported(c, "fmi2GetStringStatus", "fmi2DoStep never returns fmi2Pending");
}
