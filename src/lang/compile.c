/*
** The model-language compiler's entry points: read a file, parse, analyse
** (names, modes, structure, Jacobians), build the hydae_model with the
** bytecode backend; apply an experiment block to a sim.
*/
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, open_memstream */

#include "lang/build.h"
#include "lang/parse.h"
#include "lang/alias.h"
#include "lang/flatten.h"
#include "lang/hierarchy.h"
#include "lang/imports.h"
#include "lang/unroll.h"
#include "lang/native/native.h"
#include "model/model.h"
#include "sim/sim.h" /* the sim's message */
#include "core/core.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

enum { HY_LANG_MAX_FILE = 256 * 1024 * 1024 };

hydae_model *hy_lang_unit_model(const hy_lang_unit *unit)
{
    return unit ? unit->model : NULL;
}

void hy_lang_unit_free_code(void *data)
{
    hy_lang_unit *unit = data;
    if (!unit)
        return;
    for (int i = 0; i < unit->n_modes; i++)
        if (unit->modes[i].code)
            unit->modes[i].ops->free_mode(unit->modes[i].code);
    for (int i = 0; i < unit->n_transitions; i++)
        if (unit->transitions[i].code)
            unit->transitions[i].ops->free_transition(unit->transitions[i].code);
    if (unit->initial.code)
        unit->initial.ops->free_transition(unit->initial.code);
    if (unit->native_library) /* after the programs that ran it */
        dlclose(unit->native_library);
    hy_free(unit->modes);
    hy_free(unit->transitions);
    hy_free(unit->global_values);
    hy_lang_fmus_free(&unit->fmus);
    hy_strtab_free(&unit->strings);
    hy_free(unit);
}

void hy_lang_unit_free(hy_lang_unit *unit)
{
    if (!unit)
        return;
    if (unit->model)
        hydae_model_free(unit->model); /* frees the unit, attached to it */
    else
        hy_lang_unit_free_code(unit);
}

/* HYDAE_LANG_PHASES=1: each phase's wall time and the peak RSS so far on
** stderr (how the front end's cost was measured, bench/README.md). */
void hy_lang_phase_mark(const char *phase)
{
    static double last; /* written only when asked for (one compile at a time) */
    const char *env = getenv("HYDAE_LANG_PHASES");
    if (!(env && *env && *env != '0'))
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    if (phase)
        fprintf(stderr, "phase %-10s %8.3f s  peak RSS %7.1f MB\n", phase, now - last,
                (double)usage.ru_maxrss / 1024.0);
    last = now;
}

void hy_lang_front_end(const char *source, size_t length, hy_diag *diag, hy_strtab *strings,
                       const hy_import_loader *loader, hy_lang_fmus *fmus, hy_syntax *syntax,
                       int keep_loops)
{
    hy_lang_phase_mark(NULL);
    hy_parse_with_imports(source, length, diag, strings, loader, syntax);
    hy_lang_phase_mark("parse");
    if (diag->n_errors == 0)
        hy_lang_fmus_expand(fmus, syntax, strings, diag);
    if (diag->n_errors == 0)
        hy_hierarchy_flatten(syntax, strings, diag);
    if (diag->n_errors == 0)
        hy_flatten(syntax, strings, diag);
    if (diag->n_errors == 0) /* components with modes declared in modes */
        hy_hierarchy_flatten(syntax, strings, diag);
    hy_lang_phase_mark("flatten");
    if (diag->n_errors == 0)
        hy_unroll_keep_loops(syntax, strings, diag, keep_loops);
    hy_lang_phase_mark("unroll");
    if (diag->n_errors == 0 && syntax->flattened)
        hy_alias_eliminate(syntax, strings, diag);
    hy_lang_phase_mark("alias");
    /* Parameters that size arrays or bound loops are fixed from here on:
    ** constants for the checker, names the model refuses to set. */
    hy_syntax_freeze_structural(syntax);
}

hy_lang_unit *hy_lang_compile_string(const char *source, size_t length, const char *display_name,
                                     FILE *diagnostics, hy_lang_experiment *experiment,
                                     int *n_errors)
{
    return hy_lang_compile_string_opts(source, length, display_name, diagnostics, experiment,
                                       n_errors, NULL, NULL);
}

hy_lang_unit *hy_lang_compile_string_fmi(const char *source, size_t length,
                                         const char *display_name, FILE *diagnostics,
                                         hy_lang_experiment *experiment, int *n_errors,
                                         const hy_lang_fmu_ops *fmu)
{
    return hy_lang_compile_string_opts(source, length, display_name, diagnostics, experiment,
                                       n_errors, fmu, NULL);
}

/* One compilation, with loops kept as loops (keep_loops) or unrolled;
** *kept: a loop was kept. */
static hy_lang_unit *compile_once(const char *source, size_t length, const char *display_name,
                                  FILE *diagnostics, hy_lang_experiment *experiment,
                                  int *n_errors, const hy_lang_fmu_ops *fmu,
                                  const hy_lang_options *options, int keep_loops, int *kept)
{
    hy_diag diag;
    hy_diag_init(&diag, diagnostics, display_name, source, length);
    if (experiment)
        memset(experiment, 0, sizeof *experiment);
    hy_lang_unit *unit = hy_calloc(1, sizeof *unit);
    if (!unit) {
        hy_diag_nomem(&diag);
        if (n_errors)
            *n_errors = diag.n_errors;
        return NULL;
    }
    hy_strtab_init(&unit->strings);
    unit->fmus.ops = fmu;
    unit->fmus.model_path = display_name;
    hy_syntax syntax;
    hy_lang_imports imports;
    hy_lang_imports_init(&imports, display_name);
    hy_import_loader loader = hy_lang_imports_loader(&imports);
    hy_lang_front_end(source, length, &diag, &unit->strings, &loader, &unit->fmus, &syntax,
                      keep_loops);
    *kept = syntax.n_kept_loops > 0;
    unit->n_kept_loops = syntax.n_kept_loops;
    unit->fmus.model_path = NULL; /* the caller's */
    int n_structural = syntax.n_structural, *structural = syntax.structural;
    syntax.structural = NULL;
    syntax.n_structural = syntax.cap_structural = 0;
    if (diag.n_errors == 0) {
        hy_ir ir;
        hy_sema(&syntax, &unit->strings, &diag, &ir, &unit->experiment);
        hy_syntax_free(&syntax); /* the largest part at the peak of a big model's build */
        hy_lang_phase_mark("sema");
        if (diag.n_errors == 0)
            hy_structure_analyse(&ir, &diag);
        hy_lang_phase_mark("structure");
        if (diag.n_errors == 0 && hy_jacobian_derive(&ir) != 0)
            hy_diag_nomem(&diag);
        hy_lang_phase_mark("jacobian");
        if (diag.n_errors == 0)
            hy_build_model(unit, &ir, &hy_eval_vm, &diag);
        hy_lang_phase_mark("build");
        if (diag.n_errors == 0)
            hy_native_attach(unit, options, &diag);
        hy_lang_phase_mark("native");
        for (int i = 0; i < n_structural && diag.n_errors == 0 && unit->model; i++)
            if (hy_model_add_structural(unit->model,
                                        hy_strtab_get(&unit->strings, structural[i])))
                hy_diag_nomem(&diag);
        hy_ir_free(&ir);
    }
    hy_free(structural);
    hy_syntax_free(&syntax);
    hy_lang_imports_free(&imports);
    hy_diag_free(&diag);
    if (n_errors)
        *n_errors = diag.n_errors;
    if (diag.n_errors > 0) {
        hy_lang_unit_free(unit);
        return NULL;
    }
    if (experiment)
        *experiment = unit->experiment;
    return unit;
}

/* HYDAE_LANG_UNROLL=1: every loop unrolled (the path before loops were
** kept, for comparing the two). */
static int keep_loops_allowed(void)
{
    const char *env = getenv("HYDAE_LANG_UNROLL");
    return !(env && *env && *env != '0');
}

hy_lang_unit *hy_lang_compile_string_opts(const char *source, size_t length,
                                          const char *display_name, FILE *diagnostics,
                                          hy_lang_experiment *experiment, int *n_errors,
                                          const hy_lang_fmu_ops *fmu,
                                          const hy_lang_options *options)
{
    /* Loops kept as loops first, the messages held back: if a loop was
    ** kept and the checker or a later phase refuses it (its rules are
    ** narrower than the language's, unroll_lanes.c), the model is
    ** compiled again unrolled, and only that compilation speaks. */
    int kept = 0;
    if (keep_loops_allowed()) {
        char *text = NULL;
        size_t size = 0;
        FILE *held = open_memstream(&text, &size);
        hy_lang_unit *unit = held ? compile_once(source, length, display_name, held, experiment,
                                                 n_errors, fmu, options, 1, &kept)
                                  : NULL;
        if (held)
            fclose(held);
        if (held && (unit || !kept)) {
            if (diagnostics && size > 0)
                fwrite(text, 1, size, diagnostics);
            free(text);
            return unit;
        }
        free(text);
    }
    return compile_once(source, length, display_name, diagnostics, experiment, n_errors, fmu,
                        options, 0, &kept);
}

/* A model file that can be opened but is no file of text (a directory):
** said, instead of a bare read error. */
static int not_a_file(FILE *f, const char *path, FILE *diagnostics)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    if (diagnostics)
        fprintf(diagnostics, "%s: error: is a directory, not a model file\n", path);
    return 1;
}

/* The whole file in a malloc'ed buffer; NULL with a message. */
char *hy_lang_read_file(const char *path, size_t *length, FILE *diagnostics)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (diagnostics)
            fprintf(diagnostics, "%s: error: cannot open: %s\n", path, strerror(errno));
        return NULL;
    }
    if (not_a_file(f, path, diagnostics)) {
        fclose(f);
        return NULL;
    }
    size_t cap = 65536, n = 0;
    char *text = hy_malloc(cap);
    while (text) {
        size_t got = fread(text + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        if (cap >= HY_LANG_MAX_FILE) {
            hy_free(text);
            text = NULL;
            if (diagnostics)
                fprintf(diagnostics, "%s: error: file larger than %d bytes\n", path, HY_LANG_MAX_FILE);
            fclose(f);
            return NULL;
        }
        char *grown = hy_realloc(text, cap * 2);
        if (!grown) {
            hy_free(text);
            text = NULL;
            break;
        }
        text = grown;
        cap *= 2;
    }
    int read_error = ferror(f) ? errno : 0;
    fclose(f);
    if (!text || read_error) {
        if (diagnostics)
            fprintf(diagnostics, "%s: error: %s%s\n", path, text ? "read error: " : "out of memory",
                    text ? strerror(read_error) : "");
        hy_free(text);
        return NULL;
    }
    *length = n;
    return text;
}

hy_lang_unit *hy_lang_compile_file(const char *path, FILE *diagnostics,
                                   hy_lang_experiment *experiment, int *n_errors)
{
    return hy_lang_compile_file_opts(path, diagnostics, experiment, n_errors, NULL, NULL);
}

hy_lang_unit *hy_lang_compile_file_fmi(const char *path, FILE *diagnostics,
                                       hy_lang_experiment *experiment, int *n_errors,
                                       const hy_lang_fmu_ops *fmu)
{
    return hy_lang_compile_file_opts(path, diagnostics, experiment, n_errors, fmu, NULL);
}

hy_lang_unit *hy_lang_compile_file_opts(const char *path, FILE *diagnostics,
                                        hy_lang_experiment *experiment, int *n_errors,
                                        const hy_lang_fmu_ops *fmu, const hy_lang_options *options)
{
    size_t length = 0;
    char *text = hy_lang_read_file(path, &length, diagnostics);
    if (!text) {
        if (n_errors)
            *n_errors = 1;
        if (experiment)
            memset(experiment, 0, sizeof *experiment);
        return NULL;
    }
    hy_lang_unit *unit = hy_lang_compile_string_opts(text, length, path, diagnostics, experiment,
                                                     n_errors, fmu, options);
    hy_free(text);
    return unit;
}

const hy_lang_experiment *hy_lang_model_experiment(const hydae_model *model)
{
    /* A compiled model carries its unit as the attached data. */
    if (!model || model->n_attached == 0 || model->attached[0].free_fn != hy_lang_unit_free_code)
        return NULL;
    return &((const hy_lang_unit *)model->attached[0].data)->experiment;
}

const hy_lang_native_stats *hy_lang_model_native(const hydae_model *model)
{
    if (!model || model->n_attached == 0 || model->attached[0].free_fn != hy_lang_unit_free_code)
        return NULL;
    return &((const hy_lang_unit *)model->attached[0].data)->native;
}

int hy_lang_experiment_apply(const hy_lang_experiment *ex, hydae_sim *sim, FILE *warnings)
{
    /* Every setting through the engine's one table of settings, so the
    ** names, ranges and messages are those of the command line and the
    ** Param_Transient XML. */
    for (int i = 0; i < ex->n_settings; i++) {
        const hy_lang_setting *setting = &ex->settings[i];
        int status = hydae_sim_set_option(sim, setting->name, setting->value);
        if (status) {
            /* The sim's message says where in the file, then what. */
            char message[sizeof sim->errmsg];
            snprintf(message, sizeof message, "line %d, column %d: %.960s", setting->line,
                     setting->column, sim->errmsg);
            memcpy(sim->errmsg, message, sizeof message);
            if (warnings)
                fprintf(warnings, "experiment, %s\n", sim->errmsg);
            return status;
        }
    }
    return 0;
}
