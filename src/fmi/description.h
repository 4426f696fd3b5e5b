/*
** An FMU's modelDescription.xml, as much of it as import needs (FMI 2.0.4
** section 2.2, FMI 3.0 section 2.4): the version, the names, the
** interfaces, the scalar variables, the continuous states and event
** indicators of the model structure, the default experiment.
*/
#ifndef HY_FMI_DESCRIPTION_H
#define HY_FMI_DESCRIPTION_H

#include <stddef.h>
#include <stdint.h>

typedef enum hy_fmi_type {
    HY_FMI_FLOAT64, /* 2.0 Real */
    HY_FMI_FLOAT32,
    HY_FMI_INT8,
    HY_FMI_UINT8,
    HY_FMI_INT16,
    HY_FMI_UINT16,
    HY_FMI_INT32, /* 2.0 Integer */
    HY_FMI_UINT32,
    HY_FMI_INT64,
    HY_FMI_UINT64,
    HY_FMI_BOOLEAN,
    HY_FMI_STRING,
    HY_FMI_ENUMERATION, /* Int32 in 2.0, Int64 in 3.0 */
    HY_FMI_BINARY,
    HY_FMI_CLOCK
} hy_fmi_type;

typedef enum hy_fmi_causality {
    HY_FMI_LOCAL, /* the default */
    HY_FMI_PARAMETER,
    HY_FMI_CALCULATED_PARAMETER,
    HY_FMI_STRUCTURAL_PARAMETER,
    HY_FMI_INPUT,
    HY_FMI_OUTPUT,
    HY_FMI_INDEPENDENT
} hy_fmi_causality;

typedef enum hy_fmi_variability {
    HY_FMI_CONTINUOUS, /* the default for Real / Float */
    HY_FMI_CONSTANT,
    HY_FMI_FIXED,
    HY_FMI_TUNABLE,
    HY_FMI_DISCRETE
} hy_fmi_variability;

typedef enum hy_fmi_initial {
    HY_FMI_INITIAL_UNSET,
    HY_FMI_EXACT,
    HY_FMI_APPROX,
    HY_FMI_CALCULATED
} hy_fmi_initial;

typedef struct hy_fmi_var {
    char *name;
    uint32_t vr;
    hy_fmi_type type;
    hy_fmi_causality causality;
    hy_fmi_variability variability;
    hy_fmi_initial initial;
    int is_array;       /* 3.0: has <Dimension> (not imported) */
    int has_start;      /* numeric start value in `start` */
    double start;
    double nominal;     /* 1 unless given */
    int64_t derivative_ref; /* 2.0: 1-based index, 3.0: value reference; -1 none */
    int derivative_of;  /* resolved: the variable this one is the derivative of, or -1 */
} hy_fmi_var;

typedef struct hy_fmi_description {
    int fmi_major;          /* 2 or 3 */
    char *fmi_version;
    char *model_name;
    char *token;            /* 2.0 guid, 3.0 instantiationToken */
    char *me_identifier;    /* <ModelExchange modelIdentifier>, NULL when absent */
    char *cs_identifier;    /* <CoSimulation modelIdentifier>, NULL when absent */
    int me_needs_completed_step; /* !completedIntegratorStepNotNeeded */
    int me_directional;     /* providesDirectionalDerivative(s) on <ModelExchange> */
    int once_per_process[2]; /* canBeInstantiatedOnlyOncePerProcess: [0] ME, [1] CS */
    int n_vars;
    hy_fmi_var *vars;
    int n_states;
    int *state_var;         /* the continuous states' variables, in state order */
    int *derivative_var;    /* their derivatives' variables */
    int n_event_indicators;
    int has_start_time, has_stop_time, has_tolerance, has_step_size;
    double start_time, stop_time, tolerance, step_size;
} hy_fmi_description;

/* Parse a modelDescription.xml held in memory. `source` names it in
** messages ("pump.fmu: modelDescription.xml"). 0, or -1 with a message
** "source:line:column: what is wrong" in err (and *d empty). */
int hy_fmi_description_parse(const char *xml, size_t size, const char *source,
                             hy_fmi_description *d, char *err, size_t err_size);
void hy_fmi_description_free(hy_fmi_description *d);

/* The index of the variable called name, or -1. */
int hy_fmi_description_find(const hy_fmi_description *d, const char *name);
/* A variable of a numeric type that fits in a double (Float64, Float32,
** the integers, Boolean, Enumeration): readable as a result column. */
int hy_fmi_type_is_numeric(hy_fmi_type type);

#endif
