/*
** FMU components of a model file: `Fmu NAME(file = "F.fmu", mods)` at
** model level or in a mode (docs/fmi.md, "An FMU as a component"). The
** compiler knows an FMU only through hy_lang_fmu_ops (src/fmi supplies
** them: the core links no FMI code): its description at compile time, the
** chart that runs it when the model is built.
*/
#ifndef HY_LANG_FMU_COMPONENT_H
#define HY_LANG_FMU_COMPONENT_H

#include "lang/diag.h"
#include "lang/lang.h"
#include "lang/sema.h"
#include "lang/strtab.h"
#include "lang/syntax.h"

#include <stddef.h>

/* A variable of an FMU that a component shows (numeric, scalar). */
typedef enum hy_lang_fmu_var_kind {
    HY_LANG_FMU_STATE, HY_LANG_FMU_OUTPUT, HY_LANG_FMU_INPUT, HY_LANG_FMU_PARAMETER
} hy_lang_fmu_var_kind;

typedef struct hy_lang_fmu_var {
    char *name;                  /* its FMI name */
    hy_lang_fmu_var_kind kind;
    double start;                /* 0 when it has none */
} hy_lang_fmu_var;

struct hy_lang_fmu_ops {
    /* The variables a component of the FMU at path shows, *vars allocated
    ** with hy_alloc (each name too; hy_lang_fmu_vars_free frees them). 0,
    ** or -1 with a message naming the file in err. */
    int (*describe)(const char *path, hy_lang_fmu_var **vars, int *n_vars, char *err,
                    size_t err_size);
    /* Add the FMU at path to m as the chart `name`, active while host is
    ** (NULL: always). 0, or -1 with a message in err. */
    int (*add)(hydae_model *m, hydae_mode *host, const char *name, const char *path, char *err,
               size_t err_size);
};

void hy_lang_fmu_vars_free(hy_lang_fmu_var *vars, int n_vars);

/* One FMU component, kept from the syntax to the build. */
typedef struct hy_lang_fmu {
    char *name, *path;           /* the component; the file, relative to the model's directory */
    int first_var;               /* a name id of one of its variables, -1: none */
    int at_model_level;
    int line, column;
} hy_lang_fmu;

typedef struct hy_lang_fmus {
    const hy_lang_fmu_ops *ops; /* NULL: an Fmu declaration is an error */
    const char *model_path;      /* files are relative to its directory */
    hy_lang_fmu *list;
    int n, cap;
} hy_lang_fmus;

/* Replace every Fmu declaration of syn by the declarations it stands for:
** NAME.p parameters at model level, NAME.x variables where it is declared
** (fmu_kind set: their equations are the FMU's), recorded in fmus.
** Errors (a file that is no FMU, a modifier the FMU lacks, an Fmu in a
** component class) at the declaration's or modifier's file:line:column. */
void hy_lang_fmus_expand(hy_lang_fmus *fmus, hy_syntax *syn, hy_strtab *strings, hy_diag *diag);
/* Each FMU's chart added to m (modes[i]: IR mode i), following the mode
** that declares its variables. 0, or -1 with an error on diag. */
int hy_lang_fmus_build(const hy_lang_fmus *fmus, const hy_ir *ir, hydae_model *m,
                       hydae_mode **modes, hy_diag *diag);
void hy_lang_fmus_free(hy_lang_fmus *fmus);

#endif
