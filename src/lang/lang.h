/*
** The model language (.hym files): compile a model file into a
** hydae_model through the public C API, and print what `hydae check`
** shows. Internal to hydae; its users are the command (src/cli) and the
** public API of model files (load.c: hydae_model_load_file, ...).
**
** How the command uses it:
**
**   hydae run model.hym [--set p=v]... [options]
**       hy_lang_experiment ex;
**       int n_errors;
**       hy_lang_unit *unit = hy_lang_compile_file(path, stderr, &ex, &n_errors);
**       if (!unit) exit(2);                        (diagnostics already printed)
**       hydae_model *m = hy_lang_unit_model(unit);
**       for each --set NAME=VALUE: hydae_model_set_param(m, NAME, VALUE),
**                                  else hydae_model_set_start (a start value;
**                                  failure: usage error naming NAME)
**       hydae_sim *s = hydae_sim_create(m, &status);
**       hy_lang_experiment_apply(&ex, s, stderr);   (the file's experiment)
**       then the command-line options override (--tend, --dt, --rtol, ...),
**       then run as for --example; finally hydae_sim_free(s) and
**       hydae_model_free(m) (the compiled code is attached to the model and
**       freed with it; hy_lang_unit_free(unit) does the same: call one).
**
**   hydae check model.hym
**       int n_errors = hy_lang_check_report(path, stdout);
**       exit status 0 if n_errors == 0, else 2. Diagnostics go to `out` too.
**
** Start values that use parameters, parameters computed from others, the
** initial modes' entry actions and the initial truth of hidden `if`
** conditions are evaluated at t0 of every run by the model's initial action
** (hydae_model_set_initial_action), so --set moves them. Sample clocks and
** the experiment use the parameters' default values; see docs/language.md.
*/
#ifndef HY_LANG_H
#define HY_LANG_H

#include "hydae.h"

#include <stddef.h>
#include <stdio.h>

enum { HY_LANG_MAX_SETTINGS = 64 };

/* The experiment block of a model file: `experiment t_end = 12, dt = 0.01,
** integrator_type = "DSTIFF";`. Every setting is also listed in
** settings[] as written (numbers printed with %.17g). */
typedef struct hy_lang_setting {
    char name[64];
    char value[128];
    int is_string;
    int line, column;
} hy_lang_setting;

typedef struct hy_lang_experiment {
    double t0, t_end, dt, rtol, atol, h_max, h_min, h0;
    int max_order;
    char integrator_type[64];
    int has_t0, has_t_end, has_dt, has_rtol, has_atol, has_h_max, has_h_min, has_h0,
        has_max_order, has_integrator_type;
    int n_settings;
    hy_lang_setting settings[HY_LANG_MAX_SETTINGS];
} hy_lang_experiment;

/* A compiled model: the hydae_model and the evaluation code its callbacks
** use. The unit is attached to the model: hydae_model_free(model) frees
** both, and so does hy_lang_unit_free(unit) (one of them, once). */
typedef struct hy_lang_unit hy_lang_unit;
/* How FMU components (`Fmu NAME(file = ...)`) are read and built:
** src/fmi's hy_fmu_lang_ops (lang/fmu_component.h). */
typedef struct hy_lang_fmu_ops hy_lang_fmu_ops;

/* Compile a file. Diagnostics (file:line:column: error: ...) go to
** `diagnostics` (may be NULL); *n_errors (may be NULL) gets their count.
** `experiment` (may be NULL) receives the experiment block. NULL on any
** error. */
hy_lang_unit *hy_lang_compile_file(const char *path, FILE *diagnostics,
                                   hy_lang_experiment *experiment, int *n_errors);
/* The same from a string; display_name is shown in diagnostics. */
hy_lang_unit *hy_lang_compile_string(const char *source, size_t length,
                                     const char *display_name, FILE *diagnostics,
                                     hy_lang_experiment *experiment, int *n_errors);
/* The same with FMU components read and built through fmu (NULL, and the
** functions above: the library's own, src/fmi, when built with FMI
** support; without it an Fmu declaration is an error). */
hy_lang_unit *hy_lang_compile_file_fmi(const char *path, FILE *diagnostics,
                                       hy_lang_experiment *experiment, int *n_errors,
                                       const hy_lang_fmu_ops *fmu);
hy_lang_unit *hy_lang_compile_string_fmi(const char *source, size_t length,
                                         const char *display_name, FILE *diagnostics,
                                         hy_lang_experiment *experiment, int *n_errors,
                                         const hy_lang_fmu_ops *fmu);
hydae_model *hy_lang_unit_model(const hy_lang_unit *unit);

/* The evaluation backend (docs/language.md, "Backends"): the bytecode VM,
** or native code (generated C compiled by the system C compiler and
** cached); auto is native when a compiler is found, else the VM. */
typedef enum hy_lang_backend {
    HY_BACKEND_DEFAULT,      /* the environment's HYDAE_BACKEND, else the VM */
    HY_BACKEND_VM, HY_BACKEND_NATIVE, HY_BACKEND_AUTO
} hy_lang_backend;
typedef struct hy_lang_options {
    hy_lang_backend backend;
    int no_cache;            /* compile afresh, keep nothing (also HYDAE_NO_CACHE=1) */
} hy_lang_options;
/* "vm", "native" or "auto"; -1 for anything else. */
int hy_lang_backend_parse(const char *name);
/* hy_lang_compile_file and _string with FMU components (fmu, may be NULL,
** as the _fmi ones) and options (NULL: the defaults). */
hy_lang_unit *hy_lang_compile_file_opts(const char *path, FILE *diagnostics,
                                        hy_lang_experiment *experiment, int *n_errors,
                                        const hy_lang_fmu_ops *fmu, const hy_lang_options *options);
hy_lang_unit *hy_lang_compile_string_opts(const char *source, size_t length,
                                          const char *display_name, FILE *diagnostics,
                                          hy_lang_experiment *experiment, int *n_errors,
                                          const hy_lang_fmu_ops *fmu,
                                          const hy_lang_options *options);

/* What the native backend did for a compiled model. */
typedef struct hy_lang_native_stats {
    int is_native;           /* the programs run native code */
    int n_programs;
    int cache_hit;           /* loaded from the cache, no compiler run */
    int n_compiler_runs;
    double seconds;          /* wall time: generate, compile (or look up), load */
    size_t source_bytes;
    char compiler[256];      /* the command line's words */
} hy_lang_native_stats;
/* NULL for a model not compiled from a model file. */
const hy_lang_native_stats *hy_lang_model_native(const hydae_model *model);
/* Remove the cache's files (`hydae cache clean`); the number removed, or
** -1 with a message on err. */
int hy_lang_cache_clean(FILE *err);
void hy_lang_unit_free(hy_lang_unit *unit);

/* Apply every setting of the experiment to a sim through
** hydae_sim_set_option (the transient-solver settings of docs/solver.md).
** 0, or the failing setting's status with the sim's message saying "line
** L, column C: ..." (also written to `warnings`, which may be NULL). */
int hy_lang_experiment_apply(const hy_lang_experiment *experiment, hydae_sim *sim,
                             FILE *warnings);

/* The experiment block of a model compiled by hy_lang_compile_*, or NULL
** for a model built otherwise (through the C API). */
const hy_lang_experiment *hy_lang_model_experiment(const hydae_model *model);

/* What `hydae check model.hym` prints: per chart and mode the unknowns
** (with kind, start, unit), equations, outputs, guards (event variables),
** structural index and algebraic loops; the transitions with triggers; the
** parameters and discrete variables, after the diagnostics. Returns the
** number of errors (0: the model compiles). */
int hy_lang_check_report(const char *path, FILE *out);
/* The same with FMU components read through fmu. */
int hy_lang_check_report_fmi(const char *path, FILE *out, const hy_lang_fmu_ops *fmu);
/* The same from a string. */
int hy_lang_check_report_string(const char *source, size_t length, const char *display_name,
                                FILE *out);

#endif
