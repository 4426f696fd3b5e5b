/*
** The C interface of FMUs as the standards define it, declared here under
** hydae's own names: FMI 2.0.4 section 2.1 (fmi2TypesPlatform.h,
** fmi2FunctionTypes.h) and FMI 3.0 section 2.2 (fmi3PlatformTypes.h,
** fmi3FunctionTypes.h). Only the functions Model Exchange import calls.
** The tables are filled by name with dlsym (binary.c).
*/
#ifndef HY_FMI_API_H
#define HY_FMI_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Status codes, the same numbers in 2.0 and 3.0: OK, Warning, Discard,
** Error, Fatal (2.0 also Pending). */
enum { HY_FMI_OK = 0, HY_FMI_WARNING = 1, HY_FMI_DISCARD = 2, HY_FMI_ERROR = 3,
       HY_FMI_FATAL = 4 };

/* ---- FMI 2.0 ---- */
typedef void *hy_fmi2_component;
typedef unsigned int hy_fmi2_vr;
typedef int hy_fmi2_boolean; /* fmi2True 1, fmi2False 0 */
enum { HY_FMI2_MODEL_EXCHANGE = 0, HY_FMI2_CO_SIMULATION = 1 };
enum { HY_FMI2_TERMINATED = 3 }; /* fmi2StatusKind fmi2Terminated */

typedef struct hy_fmi2_callbacks {
    void (*logger)(void *env, const char *instance, int status, const char *category,
                   const char *message, ...);
    void *(*allocate)(size_t n, size_t size);
    void (*free_memory)(void *p);
    void (*step_finished)(void *env, int status);
    void *env;
} hy_fmi2_callbacks;

typedef struct hy_fmi2_event_info {
    hy_fmi2_boolean new_discrete_states_needed;
    hy_fmi2_boolean terminate_simulation;
    hy_fmi2_boolean nominals_changed;
    hy_fmi2_boolean values_changed;
    hy_fmi2_boolean next_event_time_defined;
    double next_event_time;
} hy_fmi2_event_info;

typedef struct hy_fmi2_functions {
    hy_fmi2_component (*instantiate)(const char *name, int type, const char *guid,
                                     const char *resource_uri, const hy_fmi2_callbacks *cb,
                                     hy_fmi2_boolean visible, hy_fmi2_boolean logging_on);
    void (*free_instance)(hy_fmi2_component c);
    int (*setup_experiment)(hy_fmi2_component c, hy_fmi2_boolean tolerance_defined,
                            double tolerance, double start, hy_fmi2_boolean stop_defined,
                            double stop);
    int (*enter_initialization_mode)(hy_fmi2_component c);
    int (*exit_initialization_mode)(hy_fmi2_component c);
    int (*terminate)(hy_fmi2_component c);
    int (*get_real)(hy_fmi2_component c, const hy_fmi2_vr vr[], size_t n, double v[]);
    int (*get_integer)(hy_fmi2_component c, const hy_fmi2_vr vr[], size_t n, int v[]);
    int (*get_boolean)(hy_fmi2_component c, const hy_fmi2_vr vr[], size_t n,
                       hy_fmi2_boolean v[]);
    int (*set_real)(hy_fmi2_component c, const hy_fmi2_vr vr[], size_t n, const double v[]);
    int (*set_integer)(hy_fmi2_component c, const hy_fmi2_vr vr[], size_t n, const int v[]);
    int (*set_boolean)(hy_fmi2_component c, const hy_fmi2_vr vr[], size_t n,
                       const hy_fmi2_boolean v[]);
    int (*enter_event_mode)(hy_fmi2_component c);
    int (*new_discrete_states)(hy_fmi2_component c, hy_fmi2_event_info *info);
    int (*enter_continuous_time_mode)(hy_fmi2_component c);
    int (*completed_integrator_step)(hy_fmi2_component c, hy_fmi2_boolean no_set_state_prior,
                                     hy_fmi2_boolean *enter_event_mode,
                                     hy_fmi2_boolean *terminate_simulation);
    int (*set_time)(hy_fmi2_component c, double t);
    int (*set_continuous_states)(hy_fmi2_component c, const double x[], size_t n);
    int (*get_derivatives)(hy_fmi2_component c, double dx[], size_t n);
    int (*get_event_indicators)(hy_fmi2_component c, double z[], size_t n);
    int (*get_continuous_states)(hy_fmi2_component c, double x[], size_t n);
    /* Co-Simulation (2.0.4 section 4.2). */
    int (*do_step)(hy_fmi2_component c, double current_point, double step_size,
                   hy_fmi2_boolean no_set_state_prior);
    int (*get_boolean_status)(hy_fmi2_component c, int kind, hy_fmi2_boolean *value);
    /* Optional here (resolved apart): used when the description says
    ** providesDirectionalDerivative. */
    int (*get_directional_derivative)(hy_fmi2_component c, const hy_fmi2_vr unknown[],
                                      size_t n_unknown, const hy_fmi2_vr known[],
                                      size_t n_known, const double seed[],
                                      double sensitivity[]);
    /* Optional here too: needed when an event reports
    ** nominalsOfContinuousStatesChanged (2.0.4 section 3.2.2). */
    int (*get_nominals)(hy_fmi2_component c, double x_nominal[], size_t n);
} hy_fmi2_functions;

/* ---- FMI 3.0 ---- */
typedef void *hy_fmi3_instance;
typedef uint32_t hy_fmi3_vr;

typedef void (*hy_fmi3_log_fn)(void *env, int status, const char *category,
                               const char *message);

#define HY_FMI3_GETTER(name, type)                                                        \
    int (*name)(hy_fmi3_instance c, const hy_fmi3_vr vr[], size_t n_vr, type v[], size_t n)

#define HY_FMI3_SETTER(name, type)                                                        \
    int (*name)(hy_fmi3_instance c, const hy_fmi3_vr vr[], size_t n_vr, const type v[],    \
                size_t n)

typedef struct hy_fmi3_functions {
    hy_fmi3_instance (*instantiate_me)(const char *name, const char *token,
                                       const char *resource_path, bool visible,
                                       bool logging_on, void *env, hy_fmi3_log_fn log);
    void (*free_instance)(hy_fmi3_instance c);
    int (*enter_initialization_mode)(hy_fmi3_instance c, bool tolerance_defined,
                                     double tolerance, double start, bool stop_defined,
                                     double stop);
    int (*exit_initialization_mode)(hy_fmi3_instance c);
    int (*terminate)(hy_fmi3_instance c);
    HY_FMI3_GETTER(get_float64, double);
    HY_FMI3_GETTER(get_float32, float);
    HY_FMI3_GETTER(get_int8, int8_t);
    HY_FMI3_GETTER(get_uint8, uint8_t);
    HY_FMI3_GETTER(get_int16, int16_t);
    HY_FMI3_GETTER(get_uint16, uint16_t);
    HY_FMI3_GETTER(get_int32, int32_t);
    HY_FMI3_GETTER(get_uint32, uint32_t);
    HY_FMI3_GETTER(get_int64, int64_t);
    HY_FMI3_GETTER(get_uint64, uint64_t);
    HY_FMI3_GETTER(get_boolean, bool);
    HY_FMI3_SETTER(set_float64, double);
    HY_FMI3_SETTER(set_float32, float);
    HY_FMI3_SETTER(set_int8, int8_t);
    HY_FMI3_SETTER(set_uint8, uint8_t);
    HY_FMI3_SETTER(set_int16, int16_t);
    HY_FMI3_SETTER(set_uint16, uint16_t);
    HY_FMI3_SETTER(set_int32, int32_t);
    HY_FMI3_SETTER(set_uint32, uint32_t);
    HY_FMI3_SETTER(set_int64, int64_t);
    HY_FMI3_SETTER(set_uint64, uint64_t);
    HY_FMI3_SETTER(set_boolean, bool);
    int (*enter_event_mode)(hy_fmi3_instance c);
    int (*update_discrete_states)(hy_fmi3_instance c, bool *discrete_states_need_update,
                                  bool *terminate_simulation, bool *nominals_changed,
                                  bool *values_changed, bool *next_event_time_defined,
                                  double *next_event_time);
    int (*enter_continuous_time_mode)(hy_fmi3_instance c);
    int (*completed_integrator_step)(hy_fmi3_instance c, bool no_set_state_prior,
                                     bool *enter_event_mode, bool *terminate_simulation);
    int (*set_time)(hy_fmi3_instance c, double t);
    int (*set_continuous_states)(hy_fmi3_instance c, const double x[], size_t n);
    int (*get_derivatives)(hy_fmi3_instance c, double dx[], size_t n);
    int (*get_event_indicators)(hy_fmi3_instance c, double z[], size_t n);
    int (*get_continuous_states)(hy_fmi3_instance c, double x[], size_t n);
    /* Co-Simulation (3.0 section 4). */
    hy_fmi3_instance (*instantiate_cs)(const char *name, const char *token,
                                       const char *resource_path, bool visible,
                                       bool logging_on, bool event_mode_used,
                                       bool early_return_allowed,
                                       const hy_fmi3_vr required_intermediate[],
                                       size_t n_required_intermediate, void *env,
                                       hy_fmi3_log_fn log, void *intermediate_update);
    int (*do_step)(hy_fmi3_instance c, double current_point, double step_size,
                   bool no_set_state_prior, bool *event_handling_needed,
                   bool *terminate_simulation, bool *early_return,
                   double *last_successful_time);
    int (*get_directional_derivative)(hy_fmi3_instance c, const hy_fmi3_vr unknown[],
                                      size_t n_unknown, const hy_fmi3_vr known[],
                                      size_t n_known, const double seed[], size_t n_seed,
                                      double sensitivity[], size_t n_sensitivity);
    /* Optional here: needed when fmi3UpdateDiscreteStates reports
    ** nominalsOfContinuousStatesChanged (3.0 section 3.2.3). */
    int (*get_nominals)(hy_fmi3_instance c, double nominals[], size_t n);
} hy_fmi3_functions;

#undef HY_FMI3_GETTER
#undef HY_FMI3_SETTER

#endif
