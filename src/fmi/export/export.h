/*
** FMI 2.0 Co-Simulation export (docs/fmi.md, "Export"): a model file
** packed as an FMU whose binary is one generic runtime (runtime.c) that
** compiles the model file it finds in the FMU's resources.
**
** What the packer (describe.c, package.c) and the runtime agree on is here
** (variables.c): the FMU's variables of a compiled model, in a fixed order,
** with value references that follow from the model text alone, and the
** GUID, a hash of that text. Internal to hydae.
*/
#ifndef HY_FMI_EXPORT_H
#define HY_FMI_EXPORT_H

#include "hydae.h"
#include "lang/lang.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The model file's name inside the FMU's resources folder. */
#define HY_EXPORT_RESOURCE_NAME "model.hym"

typedef enum hy_export_kind {
    HY_EXPORT_PARAMETER,  /* a parameter: causality parameter, variability tunable */
    HY_EXPORT_CONSTANT,   /* a parameter fixed when the model was compiled (it sizes
                          ** arrays): causality local, variability constant */
    HY_EXPORT_OUTPUT,     /* a result column: causality output */
    HY_EXPORT_INPUT,      /* a discrete variable declared `input`: causality input */
    HY_EXPORT_MODE,       /* the active mode of a chart, an integer output (1-based) */
    HY_EXPORT_TIME        /* time, the independent variable */
} hy_export_kind;

typedef struct hy_export_var {
    hy_export_kind kind;
    const char *name;    /* borrowed from the model */
    uint32_t vr;         /* value reference: the model's slot, n_slots + chart for a
                         ** mode, n_slots + n_charts for time */
    int index;           /* the parameter's or input's index in p, the column, or the chart */
    int is_discrete;     /* an output that changes only at events */
    double start;        /* a parameter's value, an input's start */
} hy_export_var;

/* Variables of a checked model (hydae_model_check): the parameters, the
** result columns, one mode variable per chart, time, in this order. */
int hy_export_n_vars(const hydae_model *m);
void hy_export_var_at(const hydae_model *m, int i, hy_export_var *v);
/* The largest value reference + 1. */
uint32_t hy_export_vr_limit(const hydae_model *m);

/* The FMI versions written: 2 (2.0) and 3 (3.0). */
enum { HY_EXPORT_FMI2 = 2, HY_EXPORT_FMI3 = 3 };

/* The GUID of a model text, "{8-4-4-4-12 hex digits}" (39 bytes with the
** NUL): two 64-bit FNV-1a hashes of it. */
void hy_export_guid(const char *text, size_t length, char guid[39]);

/* A C identifier made of the model's name (modelIdentifier). */
void hy_export_identifier(const char *model_name, char *out, size_t size);

/* modelDescription.xml of the model (FMI 2.0 or 3.0, Co-Simulation) to out. */
int hy_export_write_description(FILE *out, int fmi_version, const hydae_model *m,
                                const hy_lang_experiment *experiment,
                                const char *identifier, const char *guid);

/* `hydae export`: compile model_path (diagnostics to `diagnostics`), write
** the FMU for fmi_version at fmu_path with runtime_path as its binary. 0, or 2 after a
** message on `diagnostics`. */
int hy_export_fmu(const char *model_path, const char *fmu_path, int fmi_version,
                  const char *runtime_path, FILE *diagnostics);

#endif
