/*
** Loading an FMU's binary (FMI 2.0.4 section 2.3: binaries/linux64/
** <modelIdentifier>.so; FMI 3.0 section 2.5.1.4: binaries/x86_64-linux/)
** and resolving the functions Model Exchange or Co-Simulation needs
** (those of both, and those of the interface used). Every function the
** standard requires of an interface must be exported (2.0.4, 2.3: "all
** functions ... are present"), so a missing one is an error even when
** import would not call it in this run.
*/
#define _XOPEN_SOURCE 700

#include "fmi/binary.h"
#include "core/core.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct symbol {
    const char *name;
    size_t offset;
} symbol;

#define FN2(field, name) { name, offsetof(hy_fmi2_functions, field) }
static const symbol fmi2_symbols[] = {
    FN2(instantiate, "fmi2Instantiate"),
    FN2(free_instance, "fmi2FreeInstance"),
    FN2(setup_experiment, "fmi2SetupExperiment"),
    FN2(enter_initialization_mode, "fmi2EnterInitializationMode"),
    FN2(exit_initialization_mode, "fmi2ExitInitializationMode"),
    FN2(terminate, "fmi2Terminate"),
    FN2(get_real, "fmi2GetReal"),
    FN2(get_integer, "fmi2GetInteger"),
    FN2(get_boolean, "fmi2GetBoolean"),
    FN2(set_real, "fmi2SetReal"),
    FN2(set_integer, "fmi2SetInteger"),
    FN2(set_boolean, "fmi2SetBoolean"),
};
static const symbol fmi2_me_symbols[] = {
    FN2(enter_event_mode, "fmi2EnterEventMode"),
    FN2(new_discrete_states, "fmi2NewDiscreteStates"),
    FN2(enter_continuous_time_mode, "fmi2EnterContinuousTimeMode"),
    FN2(completed_integrator_step, "fmi2CompletedIntegratorStep"),
    FN2(set_time, "fmi2SetTime"),
    FN2(set_continuous_states, "fmi2SetContinuousStates"),
    FN2(get_derivatives, "fmi2GetDerivatives"),
    FN2(get_event_indicators, "fmi2GetEventIndicators"),
    FN2(get_continuous_states, "fmi2GetContinuousStates"),
};
static const symbol fmi2_cs_symbols[] = {
    FN2(do_step, "fmi2DoStep"),
    FN2(get_boolean_status, "fmi2GetBooleanStatus"),
};
#undef FN2

#define FN3(field, name) { name, offsetof(hy_fmi3_functions, field) }
static const symbol fmi3_symbols[] = {
    FN3(free_instance, "fmi3FreeInstance"),
    FN3(enter_initialization_mode, "fmi3EnterInitializationMode"),
    FN3(exit_initialization_mode, "fmi3ExitInitializationMode"),
    FN3(terminate, "fmi3Terminate"),
    FN3(get_float64, "fmi3GetFloat64"),
    FN3(get_float32, "fmi3GetFloat32"),
    FN3(get_int8, "fmi3GetInt8"),
    FN3(get_uint8, "fmi3GetUInt8"),
    FN3(get_int16, "fmi3GetInt16"),
    FN3(get_uint16, "fmi3GetUInt16"),
    FN3(get_int32, "fmi3GetInt32"),
    FN3(get_uint32, "fmi3GetUInt32"),
    FN3(get_int64, "fmi3GetInt64"),
    FN3(get_uint64, "fmi3GetUInt64"),
    FN3(get_boolean, "fmi3GetBoolean"),
    FN3(set_float64, "fmi3SetFloat64"),
    FN3(set_float32, "fmi3SetFloat32"),
    FN3(set_int8, "fmi3SetInt8"),
    FN3(set_uint8, "fmi3SetUInt8"),
    FN3(set_int16, "fmi3SetInt16"),
    FN3(set_uint16, "fmi3SetUInt16"),
    FN3(set_int32, "fmi3SetInt32"),
    FN3(set_uint32, "fmi3SetUInt32"),
    FN3(set_int64, "fmi3SetInt64"),
    FN3(set_uint64, "fmi3SetUInt64"),
    FN3(set_boolean, "fmi3SetBoolean"),
};
static const symbol fmi3_me_symbols[] = {
    FN3(instantiate_me, "fmi3InstantiateModelExchange"),
    FN3(enter_event_mode, "fmi3EnterEventMode"),
    FN3(update_discrete_states, "fmi3UpdateDiscreteStates"),
    FN3(enter_continuous_time_mode, "fmi3EnterContinuousTimeMode"),
    FN3(completed_integrator_step, "fmi3CompletedIntegratorStep"),
    FN3(set_time, "fmi3SetTime"),
    FN3(set_continuous_states, "fmi3SetContinuousStates"),
    FN3(get_derivatives, "fmi3GetContinuousStateDerivatives"),
    FN3(get_event_indicators, "fmi3GetEventIndicators"),
    FN3(get_continuous_states, "fmi3GetContinuousStates"),
};
static const symbol fmi3_cs_symbols[] = {
    FN3(instantiate_cs, "fmi3InstantiateCoSimulation"),
    FN3(do_step, "fmi3DoStep"),
};
#undef FN3

const char *hy_fmi_platform(int fmi_major)
{
#if defined(__linux__) && defined(__x86_64__)
    return fmi_major == 2 ? "linux64" : "x86_64-linux";
#elif defined(__linux__) && defined(__aarch64__)
    return fmi_major == 2 ? NULL : "aarch64-linux";
#else
    (void)fmi_major;
    return NULL;
#endif
}

/* The platform folders under binaries/, comma-separated, into out. */
static void list_platforms(const char *dir, char *out, size_t size)
{
    char path[4096];
    hy_format(path, sizeof path, "%s/binaries", dir);
    out[0] = '\0';
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        size_t used = strlen(out);
        hy_format(out + used, size - used, "%s%s", used ? ", " : "", e->d_name);
    }
    closedir(d);
}

int hy_fmi_binary_open(void **handle, const char *dir, int fmi_major, const char *identifier,
                       const char *fmu, char *err, size_t err_size)
{
    *handle = NULL;
    const char *platform = hy_fmi_platform(fmi_major);
    if (!platform) {
        hy_format(err, err_size, "%s: FMI %d.0 defines no binary folder for this platform",
                  fmu, fmi_major);
        return -1;
    }
    char path[4096];
    hy_format(path, sizeof path, "%s/binaries/%s/%s.so", dir, platform, identifier);
    struct stat st;
    if (stat(path, &st) != 0) {
        char platforms[512];
        list_platforms(dir, platforms, sizeof platforms);
        hy_format(err, err_size, "%s: no binary for this platform: binaries/%s/%s.so is "
                  "missing (the FMU has %s%s)", fmu, platform, identifier,
                  platforms[0] ? "binaries for " : "no binaries/ folder",
                  platforms[0] ? platforms : "; it may hold only sources, which import does "
                                             "not compile");
        return -1;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        hy_format(err, err_size, "%s: cannot load binaries/%s/%s.so: %s", fmu, platform,
                  identifier, why ? why : "unknown reason");
        return -1;
    }
    *handle = lib;
    return 0;
}

static int resolve(void *handle, void *table, const symbol *symbols, int n, int cosim,
                   const char *fmu, char *err, size_t err_size)
{
    for (int i = 0; i < n; i++) {
        dlerror();
        void *fn = dlsym(handle, symbols[i].name);
        if (!fn) {
            hy_format(err, err_size, "%s: the FMU's binary does not export %s, which FMI "
                      "%s requires", fmu, symbols[i].name,
                      cosim ? "Co-Simulation" : "Model Exchange");
            return -1;
        }
        /* POSIX: a data pointer from dlsym holds a function's address. */
        memcpy((char *)table + symbols[i].offset, &fn, sizeof fn);
    }
    return 0;
}

/* A function import can do without: NULL when not exported. */
static void resolve_optional(void *handle, void *slot, const char *name)
{
    void *fn = dlsym(handle, name);
    memcpy(slot, &fn, sizeof fn);
}

#define N_SYMBOLS(table) ((int)(sizeof table / sizeof *table))

int hy_fmi2_resolve(void *handle, hy_fmi2_functions *f, int cosim, const char *fmu, char *err,
                    size_t err_size)
{
    memset(f, 0, sizeof *f);
    if (resolve(handle, f, fmi2_symbols, N_SYMBOLS(fmi2_symbols), cosim, fmu, err, err_size)
        || (cosim ? resolve(handle, f, fmi2_cs_symbols, N_SYMBOLS(fmi2_cs_symbols), cosim, fmu,
                            err, err_size)
                  : resolve(handle, f, fmi2_me_symbols, N_SYMBOLS(fmi2_me_symbols), cosim, fmu,
                            err, err_size)))
        return -1;
    resolve_optional(handle, &f->get_directional_derivative, "fmi2GetDirectionalDerivative");
    resolve_optional(handle, &f->get_nominals, "fmi2GetNominalsOfContinuousStates");
    return 0;
}

int hy_fmi3_resolve(void *handle, hy_fmi3_functions *f, int cosim, const char *fmu, char *err,
                    size_t err_size)
{
    memset(f, 0, sizeof *f);
    if (resolve(handle, f, fmi3_symbols, N_SYMBOLS(fmi3_symbols), cosim, fmu, err, err_size)
        || (cosim ? resolve(handle, f, fmi3_cs_symbols, N_SYMBOLS(fmi3_cs_symbols), cosim, fmu,
                            err, err_size)
                  : resolve(handle, f, fmi3_me_symbols, N_SYMBOLS(fmi3_me_symbols), cosim, fmu,
                            err, err_size)))
        return -1;
    resolve_optional(handle, &f->get_directional_derivative, "fmi3GetDirectionalDerivative");
    resolve_optional(handle, &f->get_nominals, "fmi3GetNominalsOfContinuousStates");
    return 0;
}

void hy_fmi_binary_close(void *handle)
{
    if (handle)
        dlclose(handle);
}
