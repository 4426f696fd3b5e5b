/*
** From the compiled IR to a hydae_model through the public C API, with
** the callbacks bound to an evaluation backend; and the compiled unit
** that owns both.
*/
#ifndef HY_LANG_BUILD_H
#define HY_LANG_BUILD_H

#include "lang/eval.h"
#include "lang/fmu_component.h"
#include "lang/lang.h"
#include "lang/parse.h"

typedef struct hy_binding {
    const hy_eval_ops *ops;
    void *code;
    int n_unknowns;          /* modes: the size of y */
    int is_explicit;         /* modes: given as ydot = f(t, y, p) (ops->rhs) */
} hy_binding;

/* The compiled unit: the model and the code behind its callbacks. The
** unit is attached to its model (hydae_model_attach), so freeing the model
** frees the unit; hy_lang_unit_free frees the model. */
struct hy_lang_unit {
    hydae_model *model;
    hy_strtab strings;       /* names used by the action code at run time */
    int n_modes;
    hy_binding *modes;
    int n_transitions;
    hy_binding *transitions;
    hy_binding initial;      /* the initial action; code NULL if it has none */
    int n_globals;
    double *global_values;   /* parameters and discrete starts as compiled */
    hy_lang_experiment experiment; /* the file's experiment block */
    hy_lang_fmus fmus;       /* its FMU components (fmu_component.h) */
    void *native_library;    /* dlopen's handle of the native code, or NULL */
    hy_lang_native_stats native;
    int n_kept_loops;        /* for-loops compiled as loops (unroll_lanes.c) */
};

/* Free the code and the unit, not the model (the model's attached free
** function; also used when no model was created). */
void hy_lang_unit_free_code(void *unit);

/* Build unit->model from ir with the backend ops and attach the unit to
** it. 0, or -1 with a message on diag (unit->model may then be set: free
** with hy_lang_unit_free). */
int hy_build_model(hy_lang_unit *unit, hy_ir *ir, const hy_eval_ops *ops, hy_diag *diag);

/* Source to the syntax the checker takes: parse (with imports), flatten,
** unroll (keep_loops: loops of explicit equations kept as loops where
** allowed, unroll.h), alias and trivial-equation elimination, structural
** parameters frozen (compile.c; `hydae check` runs the same, unrolled). */
void hy_lang_front_end(const char *source, size_t length, hy_diag *diag, hy_strtab *strings,
                       const hy_import_loader *loader, hy_lang_fmus *fmus, hy_syntax *syntax,
                       int keep_loops);

/* With HYDAE_LANG_PHASES=1 in the environment: the wall time since the
** last mark and the peak RSS, "phase NAME ...", on stderr (NULL: start
** the clock, print nothing). */
void hy_lang_phase_mark(const char *phase);

/* The whole file in a malloc'ed buffer (compile.c); NULL after printing
** "path: error: ..." to diagnostics (may be NULL). */
char *hy_lang_read_file(const char *path, size_t *length, FILE *diagnostics);

#endif
