/*
** The FMI 3.0 Co-Simulation interface of the runtime library, written from
** the FMI 3.0 specification: section 2.2 (fmi3PlatformTypes.h,
** fmi3FunctionTypes.h: the types and the common functions), section 4
** (Co-Simulation: fmi3InstantiateCoSimulation, fmi3DoStep) and its state
** machine without event mode (hasEventMode is false: Instantiated,
** Initialization Mode, Step Mode, Terminated). The instance itself is
** slave.c; here are the types, the logger and resourcePath, a directory.
** Functions for what the description says the FMU does not have (other
** types, FMU state, derivatives, clocks, event and configuration modes)
** are there and return fmi3Error with a message.
*/
#include "slave.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *fmi3Instance;
typedef void *fmi3InstanceEnvironment;
typedef void *fmi3FMUState;
typedef uint32_t fmi3ValueReference;
typedef float fmi3Float32;
typedef double fmi3Float64;
typedef int8_t fmi3Int8;
typedef uint8_t fmi3UInt8;
typedef int16_t fmi3Int16;
typedef uint16_t fmi3UInt16;
typedef int32_t fmi3Int32;
typedef uint32_t fmi3UInt32;
typedef int64_t fmi3Int64;
typedef uint64_t fmi3UInt64;
typedef bool fmi3Boolean;
typedef char fmi3Char;
typedef const fmi3Char *fmi3String;
typedef uint8_t fmi3Byte;
typedef const fmi3Byte *fmi3Binary;
typedef bool fmi3Clock;

typedef enum { fmi3OK, fmi3Warning, fmi3Discard, fmi3Error, fmi3Fatal } fmi3Status;
typedef enum {
    fmi3Independent,
    fmi3Constant,
    fmi3Fixed,
    fmi3Tunable,
    fmi3Discrete,
    fmi3Dependent
} fmi3DependencyKind;
typedef enum { fmi3IntervalNotYetKnown, fmi3IntervalUnchanged, fmi3IntervalChanged }
    fmi3IntervalQualifier;

typedef void (*fmi3LogMessageCallback)(fmi3InstanceEnvironment, fmi3Status, fmi3String,
                                       fmi3String);
typedef void (*fmi3IntermediateUpdateCallback)(fmi3InstanceEnvironment, fmi3Float64, fmi3Boolean,
                                               fmi3Boolean, fmi3Boolean, fmi3Boolean,
                                               fmi3Boolean *, fmi3Float64 *);
typedef void (*fmi3ClockUpdateCallback)(fmi3InstanceEnvironment);
typedef void (*fmi3LockPreemptionCallback)(void);
typedef void (*fmi3UnlockPreemptionCallback)(void);

#define FMI3_EXPORT __attribute__((visibility("default")))

typedef struct api3 {
    fmi3LogMessageCallback log_message;
    fmi3InstanceEnvironment environment;
} api3;

static void log_fmi3(const slave *s, int status, const char *category, const char *message)
{
    const api3 *api = s->api;
    if (api->log_message)
        api->log_message(api->environment, (fmi3Status)status, category, message);
}

/* The model file in resourcePath, a directory (with or without its
** trailing separator). */
static char *model_file(const char *resource_dir)
{
    if (!resource_dir || resource_dir[0] != '/')
        return NULL;
    size_t n = strlen(resource_dir);
    char *path = malloc(n + sizeof "/" HY_EXPORT_RESOURCE_NAME);
    if (!path)
        return NULL;
    memcpy(path, resource_dir, n);
    if (n > 0 && path[n - 1] == '/')
        n--;
    strcpy(path + n, "/" HY_EXPORT_RESOURCE_NAME);
    return path;
}

static fmi3Status unsupported(fmi3Instance c, const char *function, const char *why)
{
    if (!slave_allowed(c, function, SLAVE_ANY_STATE))
        return fmi3Error;
    return (fmi3Status)slave_fail(c, "%s: %s", function, why);
}

/* ---- the common functions (section 2.2) ---- */

FMI3_EXPORT const char *fmi3GetVersion(void)
{
    return "3.0";
}

FMI3_EXPORT fmi3Status fmi3SetDebugLogging(fmi3Instance c, fmi3Boolean loggingOn,
                                           size_t nCategories, const fmi3String categories[])
{
    return (fmi3Status)slave_set_debug_logging(c, loggingOn, nCategories, categories,
                                               "fmi3SetDebugLogging");
}

FMI3_EXPORT fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate)
{
    (void)visible, (void)earlyReturnAllowed, (void)requiredIntermediateVariables;
    (void)intermediateUpdate;
    api3 api = { logMessage, instanceEnvironment };
    slave *s = slave_new(instanceName, log_fmi3, &api, sizeof api, loggingOn);
    if (!s) {
        if (logMessage)
            logMessage(instanceEnvironment, fmi3Error, "logStatusError", "out of memory");
        return NULL;
    }
    char *path = model_file(resourcePath);
    int failed = 1;
    if (eventModeUsed)
        slave_fail(s, "eventModeUsed: this FMU has no event mode (hasEventMode is false)");
    else if (nRequiredIntermediateVariables > 0)
        slave_fail(s, "requiredIntermediateVariables: this FMU provides no intermediate update");
    else if (!path)
        slave_fail(s, "resourcePath \"%s\" is no absolute directory",
                   resourcePath ? resourcePath : "(null)");
    else
        failed = slave_load(s, instantiationToken, path) != 0;
    free(path);
    if (failed) {
        slave_free(s);
        return NULL;
    }
    return s;
}

FMI3_EXPORT fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName,
                                                      fmi3String instantiationToken,
                                                      fmi3String resourcePath,
                                                      fmi3Boolean visible, fmi3Boolean loggingOn,
                                                      fmi3InstanceEnvironment instanceEnvironment,
                                                      fmi3LogMessageCallback logMessage)
{
    (void)instanceName, (void)instantiationToken, (void)resourcePath, (void)visible;
    (void)loggingOn;
    if (logMessage)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                   "this FMU is for Co-Simulation only");
    return NULL;
}

FMI3_EXPORT fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
    fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption)
{
    (void)clockUpdate, (void)lockPreemption, (void)unlockPreemption;
    return fmi3InstantiateModelExchange(instanceName, instantiationToken, resourcePath, visible,
                                        loggingOn, instanceEnvironment, logMessage);
}

FMI3_EXPORT void fmi3FreeInstance(fmi3Instance c)
{
    slave_free(c);
}

FMI3_EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance c, fmi3Boolean toleranceDefined,
                                                   fmi3Float64 tolerance, fmi3Float64 startTime,
                                                   fmi3Boolean stopTimeDefined,
                                                   fmi3Float64 stopTime)
{
    slave *s = c;
    if (!slave_allowed(s, "fmi3EnterInitializationMode", 1u << SLAVE_INSTANTIATED))
        return fmi3Error;
    int status = slave_setup(s, toleranceDefined, tolerance, startTime, stopTimeDefined, stopTime,
                             "fmi3EnterInitializationMode");
    if (status == SLAVE_OK)
        s->state = SLAVE_INITIALIZATION;
    return (fmi3Status)status;
}

FMI3_EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance c)
{
    if (!slave_allowed(c, "fmi3ExitInitializationMode", 1u << SLAVE_INITIALIZATION))
        return fmi3Error;
    return (fmi3Status)slave_exit_initialization(c);
}

FMI3_EXPORT fmi3Status fmi3EnterEventMode(fmi3Instance c)
{
    return unsupported(c, "fmi3EnterEventMode", "hasEventMode is false");
}

FMI3_EXPORT fmi3Status fmi3Terminate(fmi3Instance c)
{
    slave *s = c;
    if (!slave_allowed(s, "fmi3Terminate", 1u << SLAVE_STEPPING))
        return fmi3Error;
    s->state = SLAVE_TERMINATED;
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3Reset(fmi3Instance c)
{
    if (!slave_allowed(c, "fmi3Reset", SLAVE_ANY_STATE))
        return fmi3Error;
    return (fmi3Status)slave_reset(c);
}

/* ---- values: Float64 parameters and outputs, the modes as Int32 ---- */

/* nValues equals nvr: the FMU has no arrays. */
static int scalar_values(fmi3Instance c, size_t nvr, size_t nValues, const char *function)
{
    if (nValues == nvr)
        return 1;
    slave_fail(c, "%s: %zu values for %zu value references (the FMU has no arrays)", function,
               nValues, nvr);
    return 0;
}

FMI3_EXPORT fmi3Status fmi3GetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                      fmi3Float64 values[], size_t nValues)
{
    if (!slave_allowed(c, "fmi3GetFloat64", SLAVE_ANY_STATE)
        || !scalar_values(c, nvr, nValues, "fmi3GetFloat64"))
        return fmi3Error;
    return (fmi3Status)slave_get_float(c, vr, nvr, values, "fmi3GetFloat64");
}

FMI3_EXPORT fmi3Status fmi3GetInt32(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                    fmi3Int32 values[], size_t nValues)
{
    if (!slave_allowed(c, "fmi3GetInt32", SLAVE_ANY_STATE)
        || !scalar_values(c, nvr, nValues, "fmi3GetInt32"))
        return fmi3Error;
    return (fmi3Status)slave_get_modes(c, vr, nvr, values, "fmi3GetInt32");
}

FMI3_EXPORT fmi3Status fmi3SetFloat64(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                      const fmi3Float64 values[], size_t nValues)
{
    if (!slave_allowed(c, "fmi3SetFloat64", SLAVE_BEFORE_RUN | 1u << SLAVE_STEPPING)
        || !scalar_values(c, nvr, nValues, "fmi3SetFloat64"))
        return fmi3Error;
    return (fmi3Status)slave_set_float(c, vr, nvr, values, "fmi3SetFloat64");
}

#define NO_VARIABLES "the FMU has no variables of this type"

/* Get and set of the types the FMU has no variables of. */
#define NO_TYPE(Name, Type)                                                                      \
    FMI3_EXPORT fmi3Status fmi3Get##Name(fmi3Instance c, const fmi3ValueReference vr[],         \
                                         size_t nvr, Type values[], size_t nValues)             \
    {                                                                                            \
        (void)vr, (void)values, (void)nValues;                                                   \
        return nvr == 0 ? fmi3OK : unsupported(c, "fmi3Get" #Name, NO_VARIABLES);               \
    }                                                                                            \
    FMI3_EXPORT fmi3Status fmi3Set##Name(fmi3Instance c, const fmi3ValueReference vr[],         \
                                         size_t nvr, const Type values[], size_t nValues)       \
    {                                                                                            \
        (void)vr, (void)values, (void)nValues;                                                   \
        return nvr == 0 ? fmi3OK : unsupported(c, "fmi3Set" #Name, NO_VARIABLES);               \
    }

NO_TYPE(Float32, fmi3Float32)
NO_TYPE(Int8, fmi3Int8)
NO_TYPE(UInt8, fmi3UInt8)
NO_TYPE(Int16, fmi3Int16)
NO_TYPE(UInt16, fmi3UInt16)
NO_TYPE(UInt32, fmi3UInt32)
NO_TYPE(Int64, fmi3Int64)
NO_TYPE(UInt64, fmi3UInt64)
NO_TYPE(Boolean, fmi3Boolean)
NO_TYPE(String, fmi3String)

FMI3_EXPORT fmi3Status fmi3SetInt32(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                    const fmi3Int32 values[], size_t nValues)
{
    (void)vr, (void)values, (void)nValues;
    return nvr == 0 ? fmi3OK : unsupported(c, "fmi3SetInt32", "the Int32 variables are outputs");
}

FMI3_EXPORT fmi3Status fmi3GetBinary(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                     size_t valueSizes[], fmi3Binary values[], size_t nValues)
{
    (void)vr, (void)valueSizes, (void)values, (void)nValues;
    return nvr == 0 ? fmi3OK : unsupported(c, "fmi3GetBinary", NO_VARIABLES);
}

FMI3_EXPORT fmi3Status fmi3SetBinary(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                     const size_t valueSizes[], const fmi3Binary values[],
                                     size_t nValues)
{
    (void)vr, (void)valueSizes, (void)values, (void)nValues;
    return nvr == 0 ? fmi3OK : unsupported(c, "fmi3SetBinary", NO_VARIABLES);
}

FMI3_EXPORT fmi3Status fmi3GetClock(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                    fmi3Clock values[])
{
    (void)vr, (void)values;
    return nvr == 0 ? fmi3OK : unsupported(c, "fmi3GetClock", NO_VARIABLES);
}

FMI3_EXPORT fmi3Status fmi3SetClock(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                    const fmi3Clock values[])
{
    (void)vr, (void)values;
    return nvr == 0 ? fmi3OK : unsupported(c, "fmi3SetClock", NO_VARIABLES);
}

/* ---- what the description says the FMU cannot do ---- */

#define NO_DEPENDENCIES "the model structure gives no dependencies"
#define NO_STATE "canGetAndSetFMUState is false"
#define NO_CLOCKS "the FMU has no clocks"

FMI3_EXPORT fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance c,
                                                           fmi3ValueReference vr, size_t *n)
{
    (void)vr, (void)n;
    return unsupported(c, "fmi3GetNumberOfVariableDependencies", NO_DEPENDENCIES);
}

FMI3_EXPORT fmi3Status fmi3GetVariableDependencies(
    fmi3Instance c, fmi3ValueReference dependent, size_t elementIndicesOfDependent[],
    fmi3ValueReference independents[], size_t elementIndicesOfIndependents[],
    fmi3DependencyKind dependencyKinds[], size_t nDependencies)
{
    (void)dependent, (void)elementIndicesOfDependent, (void)independents;
    (void)elementIndicesOfIndependents, (void)dependencyKinds, (void)nDependencies;
    return unsupported(c, "fmi3GetVariableDependencies", NO_DEPENDENCIES);
}

FMI3_EXPORT fmi3Status fmi3GetFMUState(fmi3Instance c, fmi3FMUState *state)
{
    (void)state;
    return unsupported(c, "fmi3GetFMUState", NO_STATE);
}

FMI3_EXPORT fmi3Status fmi3SetFMUState(fmi3Instance c, fmi3FMUState state)
{
    (void)state;
    return unsupported(c, "fmi3SetFMUState", NO_STATE);
}

FMI3_EXPORT fmi3Status fmi3FreeFMUState(fmi3Instance c, fmi3FMUState *state)
{
    (void)state;
    return unsupported(c, "fmi3FreeFMUState", NO_STATE);
}

FMI3_EXPORT fmi3Status fmi3SerializedFMUStateSize(fmi3Instance c, fmi3FMUState state,
                                                  size_t *size)
{
    (void)state, (void)size;
    return unsupported(c, "fmi3SerializedFMUStateSize", NO_STATE);
}

FMI3_EXPORT fmi3Status fmi3SerializeFMUState(fmi3Instance c, fmi3FMUState state,
                                             fmi3Byte serializedState[], size_t size)
{
    (void)state, (void)serializedState, (void)size;
    return unsupported(c, "fmi3SerializeFMUState", NO_STATE);
}

FMI3_EXPORT fmi3Status fmi3DeserializeFMUState(fmi3Instance c, const fmi3Byte serializedState[],
                                               size_t size, fmi3FMUState *state)
{
    (void)serializedState, (void)size, (void)state;
    return unsupported(c, "fmi3DeserializeFMUState", NO_STATE);
}

/* fmi3GetDirectionalDerivative and fmi3GetAdjointDerivative share a type. */
#define NO_DERIVATIVE(Name, why)                                                                 \
    FMI3_EXPORT fmi3Status Name(fmi3Instance c, const fmi3ValueReference unknowns[],            \
                                size_t nUnknowns, const fmi3ValueReference knowns[],            \
                                size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,         \
                                fmi3Float64 sensitivity[], size_t nSensitivity)                 \
    {                                                                                            \
        (void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed;   \
        (void)sensitivity, (void)nSensitivity;                                                   \
        return unsupported(c, #Name, why);                                                       \
    }

NO_DERIVATIVE(fmi3GetDirectionalDerivative, "providesDirectionalDerivatives is false")
NO_DERIVATIVE(fmi3GetAdjointDerivative, "providesAdjointDerivatives is false")

FMI3_EXPORT fmi3Status fmi3EnterConfigurationMode(fmi3Instance c)
{
    return unsupported(c, "fmi3EnterConfigurationMode", "the FMU has no structural parameters");
}

FMI3_EXPORT fmi3Status fmi3ExitConfigurationMode(fmi3Instance c)
{
    return unsupported(c, "fmi3ExitConfigurationMode", "the FMU has no structural parameters");
}

FMI3_EXPORT fmi3Status fmi3GetIntervalDecimal(fmi3Instance c, const fmi3ValueReference vr[],
                                              size_t nvr, fmi3Float64 intervals[],
                                              fmi3IntervalQualifier qualifiers[])
{
    (void)vr, (void)nvr, (void)intervals, (void)qualifiers;
    return unsupported(c, "fmi3GetIntervalDecimal", NO_CLOCKS);
}

FMI3_EXPORT fmi3Status fmi3GetIntervalFraction(fmi3Instance c, const fmi3ValueReference vr[],
                                               size_t nvr, fmi3UInt64 counters[],
                                               fmi3UInt64 resolutions[],
                                               fmi3IntervalQualifier qualifiers[])
{
    (void)vr, (void)nvr, (void)counters, (void)resolutions, (void)qualifiers;
    return unsupported(c, "fmi3GetIntervalFraction", NO_CLOCKS);
}

FMI3_EXPORT fmi3Status fmi3GetShiftDecimal(fmi3Instance c, const fmi3ValueReference vr[],
                                           size_t nvr, fmi3Float64 shifts[])
{
    (void)vr, (void)nvr, (void)shifts;
    return unsupported(c, "fmi3GetShiftDecimal", NO_CLOCKS);
}

FMI3_EXPORT fmi3Status fmi3GetShiftFraction(fmi3Instance c, const fmi3ValueReference vr[],
                                            size_t nvr, fmi3UInt64 counters[],
                                            fmi3UInt64 resolutions[])
{
    (void)vr, (void)nvr, (void)counters, (void)resolutions;
    return unsupported(c, "fmi3GetShiftFraction", NO_CLOCKS);
}

FMI3_EXPORT fmi3Status fmi3SetIntervalDecimal(fmi3Instance c, const fmi3ValueReference vr[],
                                              size_t nvr, const fmi3Float64 intervals[])
{
    (void)vr, (void)nvr, (void)intervals;
    return unsupported(c, "fmi3SetIntervalDecimal", NO_CLOCKS);
}

FMI3_EXPORT fmi3Status fmi3SetIntervalFraction(fmi3Instance c, const fmi3ValueReference vr[],
                                               size_t nvr, const fmi3UInt64 counters[],
                                               const fmi3UInt64 resolutions[])
{
    (void)vr, (void)nvr, (void)counters, (void)resolutions;
    return unsupported(c, "fmi3SetIntervalFraction", NO_CLOCKS);
}

FMI3_EXPORT fmi3Status fmi3SetShiftDecimal(fmi3Instance c, const fmi3ValueReference vr[],
                                           size_t nvr, const fmi3Float64 shifts[])
{
    (void)vr, (void)nvr, (void)shifts;
    return unsupported(c, "fmi3SetShiftDecimal", NO_CLOCKS);
}

FMI3_EXPORT fmi3Status fmi3SetShiftFraction(fmi3Instance c, const fmi3ValueReference vr[],
                                            size_t nvr, const fmi3UInt64 counters[],
                                            const fmi3UInt64 resolutions[])
{
    (void)vr, (void)nvr, (void)counters, (void)resolutions;
    return unsupported(c, "fmi3SetShiftFraction", NO_CLOCKS);
}

FMI3_EXPORT fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance c)
{
    return unsupported(c, "fmi3EvaluateDiscreteStates", "hasEventMode is false");
}

FMI3_EXPORT fmi3Status fmi3UpdateDiscreteStates(fmi3Instance c,
                                                fmi3Boolean *discreteStatesNeedUpdate,
                                                fmi3Boolean *terminateSimulation,
                                                fmi3Boolean *nominalsOfContinuousStatesChanged,
                                                fmi3Boolean *valuesOfContinuousStatesChanged,
                                                fmi3Boolean *nextEventTimeDefined,
                                                fmi3Float64 *nextEventTime)
{
    (void)discreteStatesNeedUpdate, (void)terminateSimulation;
    (void)nominalsOfContinuousStatesChanged, (void)valuesOfContinuousStatesChanged;
    (void)nextEventTimeDefined, (void)nextEventTime;
    return unsupported(c, "fmi3UpdateDiscreteStates", "hasEventMode is false");
}

/* ---- Co-Simulation (section 4.2) ---- */

FMI3_EXPORT fmi3Status fmi3EnterStepMode(fmi3Instance c)
{
    return unsupported(c, "fmi3EnterStepMode", "hasEventMode is false: step mode follows "
                       "fmi3ExitInitializationMode");
}

FMI3_EXPORT fmi3Status fmi3GetOutputDerivatives(fmi3Instance c, const fmi3ValueReference vr[],
                                                size_t nvr, const fmi3Int32 orders[],
                                                fmi3Float64 values[], size_t nValues)
{
    (void)vr, (void)orders, (void)values, (void)nValues;
    return nvr == 0 ? fmi3OK
                    : unsupported(c, "fmi3GetOutputDerivatives", "maxOutputDerivativeOrder is 0");
}

FMI3_EXPORT fmi3Status fmi3DoStep(fmi3Instance c, fmi3Float64 currentCommunicationPoint,
                                  fmi3Float64 communicationStepSize,
                                  fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                  fmi3Boolean *eventHandlingNeeded,
                                  fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn,
                                  fmi3Float64 *lastSuccessfulTime)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    slave *s = c;
    if (!slave_allowed(s, "fmi3DoStep", 1u << SLAVE_STEPPING))
        return fmi3Error;
    int status = slave_do_step(s, currentCommunicationPoint, communicationStepSize,
                               "fmi3DoStep");
    /* Events are handled inside the step: none is left to the importer. */
    if (eventHandlingNeeded)
        *eventHandlingNeeded = false;
    if (terminateSimulation)
        *terminateSimulation = false;
    if (earlyReturn)
        *earlyReturn = false;
    if (lastSuccessfulTime)
        *lastSuccessfulTime = s->t;
    return (fmi3Status)status;
}
