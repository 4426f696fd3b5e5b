/*
** The FMI 2.0 Model Exchange functions that the tests' own FMUs
** (failing_fmu.c, nominal_fmu.c) have alike: included by each after its
** `instance` (with cb, t, x), EXPORT and OK, so that each FMU still exports
** every function itself. Written from the FMI 2.0.4 specification's
** function signatures (section 2.1).
*/
#ifndef HY_TEST_FMU2_COMMON_H
#define HY_TEST_FMU2_COMMON_H

EXPORT void fmi2FreeInstance(void *c)
{
    free(c);
}

EXPORT int fmi2SetupExperiment(void *c, int tol_defined, double tol, double start,
                               int stop_defined, double stop)
{
    (void)tol_defined;
    (void)tol;
    (void)stop_defined;
    (void)stop;
    ((instance *)c)->t = start;
    return OK;
}

EXPORT int fmi2EnterInitializationMode(void *c)
{
    (void)c;
    return OK;
}

EXPORT int fmi2ExitInitializationMode(void *c)
{
    (void)c;
    return OK;
}

EXPORT int fmi2Terminate(void *c)
{
    (void)c;
    return OK;
}

EXPORT int fmi2GetInteger(void *c, const unsigned vr[], size_t n, int v[])
{
    (void)c;
    (void)vr;
    memset(v, 0, n * sizeof *v);
    return OK;
}

EXPORT int fmi2GetBoolean(void *c, const unsigned vr[], size_t n, int v[])
{
    return fmi2GetInteger(c, vr, n, v);
}

EXPORT int fmi2SetInteger(void *c, const unsigned vr[], size_t n, const int v[])
{
    (void)c;
    (void)vr;
    (void)n;
    (void)v;
    return OK;
}

EXPORT int fmi2SetBoolean(void *c, const unsigned vr[], size_t n, const int v[])
{
    return fmi2SetInteger(c, vr, n, v);
}

EXPORT int fmi2EnterEventMode(void *c)
{
    (void)c;
    return OK;
}

EXPORT int fmi2EnterContinuousTimeMode(void *c)
{
    (void)c;
    return OK;
}

EXPORT int fmi2SetTime(void *c, double t)
{
    ((instance *)c)->t = t;
    return OK;
}

EXPORT int fmi2SetContinuousStates(void *c, const double x[], size_t n)
{
    if (n == 1)
        ((instance *)c)->x = x[0];
    return OK;
}

EXPORT int fmi2GetEventIndicators(void *c, double z[], size_t n)
{
    (void)c;
    (void)z;
    (void)n;
    return OK;
}

EXPORT int fmi2GetContinuousStates(void *c, double x[], size_t n)
{
    if (n == 1)
        x[0] = ((instance *)c)->x;
    return OK;
}

#endif
