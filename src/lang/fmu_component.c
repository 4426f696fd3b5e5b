/*
** FMU components of a model file (fmu_component.h, docs/fmi.md "An FMU as
** a component"). `Fmu vdp(file = "VanDerPol.fmu", mu = 2)` stands for
**
**     parameter Real vdp.mu = 2;           (model level)
**     Real vdp.x0(start = 2), vdp.x1;      (where the Fmu is declared)
**
** with the FMU's states, numeric outputs and numeric inputs as variables
** whose equations the FMU gives (der(x) = f(t, x, u), y = g(t, x, u)):
** sema counts them as shared unknowns of their mode, so the mode needs no
** equations of its own for them, and the built model adds the FMU's chart
** (src/fmi/component.c), which shares them by name and runs while that
** mode is active. The inputs need equations from the model.
*/
#include "lang/fmu_component.h"

#include "core/core.h"

#include <math.h>
#include <string.h>

#define TEXT(strings, id) hy_strtab_get((strings), (id))

void hy_lang_fmu_vars_free(hy_lang_fmu_var *vars, int n_vars)
{
    for (int i = 0; vars && i < n_vars; i++)
        hy_free(vars[i].name);
    hy_free(vars);
}

void hy_lang_fmus_free(hy_lang_fmus *fmus)
{
    for (int i = 0; i < fmus->n; i++) {
        hy_free(fmus->list[i].name);
        hy_free(fmus->list[i].path);
    }
    hy_free(fmus->list);
    fmus->list = NULL;
    fmus->n = fmus->cap = 0;
}

typedef struct expander {
    hy_lang_fmus *fmus;
    hy_syntax *syn;
    hy_strtab *strings;
    hy_diag *diag;
} expander;

/* A name the language can write: letters, digits, '_' (FMI names such as
** der(x) or a[1] are not shown). */
static int writable_name(const char *name)
{
    if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z')
          || name[0] == '_'))
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')
              || *p == '_'))
            return 0;
    return 1;
}

/* The file of an Fmu relative to the model file's directory. */
static char *resolve_path(const char *model_path, const char *file)
{
    const char *slash = model_path ? strrchr(model_path, '/') : NULL;
    size_t dir = file[0] == '/' || !slash ? 0 : (size_t)(slash - model_path) + 1;
    size_t length = dir + strlen(file) + 1;
    char *path = hy_malloc(length);
    if (path) {
        memcpy(path, model_path, dir);
        memcpy(path + dir, file, strlen(file) + 1);
    }
    return path;
}

/* Declaration `kind NAME.v` after (or, first, in place of) the Fmu. */
static int push_decl(expander *e, int slot, const hy_decl *fmu, hy_decl_kind kind, int fmu_kind,
                     const char *var, hy_expr_ref value)
{
    hy_syntax *syn = e->syn;
    int name = hy_strtab_intern_join(e->strings, TEXT(e->strings, fmu->name), ".", var);
    if (name < 0 || (slot < 0 && hy_grow((void **)&syn->decls, &syn->cap_decls,
                                         syn->n_decls + 1, sizeof *syn->decls)))
        return -1;
    hy_decl d = *fmu;
    d.kind = kind;
    d.name = name;
    d.value = value;
    d.value_line = fmu->line;
    d.value_column = fmu->column;
    d.type_name = -1;
    d.mod_first = d.mod_count = 0;
    d.fmu_kind = fmu_kind;
    if (kind == DECL_PARAMETER || kind == DECL_DISCRETE)
        d.mode = -1;
    syn->decls[slot >= 0 ? slot : syn->n_decls++] = d;
    return name;
}

/* The modifier of fmu named var, or NULL; marked used. */
static const hy_mod_syn *modifier(const expander *e, const hy_decl *fmu, const char *var,
                                  unsigned char *used)
{
    for (int j = 0; j < fmu->mod_count; j++) {
        const hy_mod_syn *m = &e->syn->mods[fmu->mod_first + j];
        if (strcmp(TEXT(e->strings, m->name), var) == 0) {
            used[j] = 1;
            return m;
        }
    }
    return NULL;
}

/* The value of variable v: its modifier's expression, else its start. */
static int value_of(expander *e, const hy_decl *fmu, const hy_lang_fmu_var *v,
                    unsigned char *used, hy_expr_ref *value)
{
    const hy_mod_syn *m = modifier(e, fmu, v->name, used);
    if (m && v->kind == HY_LANG_FMU_OUTPUT) {
        hy_diag_error(e->diag, m->line, m->column, "'%s' is an output of FMU component '%s': "
                      "the FMU computes it", v->name, TEXT(e->strings, fmu->name));
        return 1;
    }
    if (m && m->string_value >= 0) {
        hy_diag_error(e->diag, m->line, m->column, "'%s' of FMU component '%s' takes a number",
                      v->name, TEXT(e->strings, fmu->name));
        return 1;
    }
    if (m) {
        *value = m->value;
        return 0;
    }
    int node = hy_syntax_add_node(e->syn, SYN_NUM, fmu->line, fmu->column, -1, -1, -1);
    if (node < 0)
        return -1;
    e->syn->nodes[node].value = v->start;
    value->first = value->root = node;
    return 0;
}

/* How variable v is declared: an FMU for Model Exchange gives equations
** (fmu_kind); one for Co-Simulation (cosim.c) sets its outputs, discrete
** variables held between communication points, and reads its inputs,
** unknowns the model defines. */
static hy_decl_kind declaration_of(const hy_lang_fmu_var *v, int cosim, int *fmu_kind)
{
    static const int kinds[] = { HY_FMU_STATE, HY_FMU_OUTPUT, HY_FMU_INPUT, HY_FMU_PARAMETER };
    *fmu_kind = kinds[v->kind];
    if (v->kind == HY_LANG_FMU_PARAMETER)
        return DECL_PARAMETER;
    if (!cosim)
        return DECL_VARIABLE;
    *fmu_kind = 0;
    return v->kind == HY_LANG_FMU_OUTPUT ? DECL_DISCRETE : DECL_VARIABLE;
}

/* The declarations of fmu's variables; the first replaces the Fmu at
** slot. Modifiers that name no variable are errors. */
static int declare_variables(expander *e, int slot, const hy_decl *fmu, const hy_lang_fmu_var *vars,
                             int n_vars, hy_lang_fmu *record)
{
    unsigned char *used = hy_calloc((size_t)fmu->mod_count + 1, 1);
    if (!used)
        return -1;
    int status = 0;
    for (int i = 0; i < n_vars && status == 0; i++) {
        const hy_lang_fmu_var *v = &vars[i];
        hy_expr_ref value;
        if (!writable_name(v->name) || (status = value_of(e, fmu, v, used, &value)) != 0)
            continue;
        int fmu_kind;
        hy_decl_kind kind = declaration_of(v, record->cosim, &fmu_kind);
        int name = push_decl(e, slot, fmu, kind, fmu_kind, v->name, value);
        status = name < 0 ? -1 : 0;
        slot = -1;
        if (kind == DECL_VARIABLE && record->first_var < 0)
            record->first_var = name;
    }
    for (int j = 0; j < fmu->mod_count && status == 0; j++) {
        const hy_mod_syn *m = &e->syn->mods[fmu->mod_first + j];
        const char *mod = TEXT(e->strings, m->name);
        if (used[j] || strcmp(mod, "file") == 0 || strcmp(mod, "cosim") == 0
            || strcmp(mod, "step") == 0 || strcmp(mod, "directional") == 0)
            continue;
        hy_diag_error(e->diag, m->line, m->column, "FMU component '%s' has no parameter, state "
                      "or input '%s' (%s)", TEXT(e->strings, fmu->name),
                      TEXT(e->strings, m->name), record->path);
        status = 1;
    }
    if (slot >= 0 && status == 0) {
        hy_diag_error(e->diag, fmu->line, fmu->column, "FMU component '%s' shows nothing: %s "
                      "has no numeric state, output, input or parameter",
                      TEXT(e->strings, fmu->name), record->path);
        status = 1;
    }
    hy_free(used);
    return status;
}

/* The file modifier's text, or NULL after an error. */
static const char *file_of(expander *e, const hy_decl *fmu)
{
    for (int j = 0; j < fmu->mod_count; j++) {
        const hy_mod_syn *m = &e->syn->mods[fmu->mod_first + j];
        if (strcmp(TEXT(e->strings, m->name), "file") != 0)
            continue;
        if (m->string_value < 0) {
            hy_diag_error(e->diag, m->line, m->column, "the file of FMU component '%s' is a "
                          "string: file = \"F.fmu\"", TEXT(e->strings, fmu->name));
            return NULL;
        }
        return TEXT(e->strings, m->string_value);
    }
    hy_diag_error(e->diag, fmu->line, fmu->column, "FMU component '%s' needs its file: "
                  "Fmu %s(file = \"F.fmu\")", TEXT(e->strings, fmu->name),
                  TEXT(e->strings, fmu->name));
    return NULL;
}

/* The literal value of modifier `what` of fmu into *value (a number, or
** true / false), left alone when there is none. 0, or 1 after an error. */
static int literal(expander *e, const hy_decl *fmu, const char *what, double *value)
{
    for (int j = 0; j < fmu->mod_count; j++) {
        const hy_mod_syn *m = &e->syn->mods[fmu->mod_first + j];
        if (strcmp(TEXT(e->strings, m->name), what) != 0)
            continue;
        const hy_syn *node = m->value.root >= 0 ? &e->syn->nodes[m->value.root] : NULL;
        const char *name = node && node->op == SYN_NAME ? TEXT(e->strings, node->name) : "";
        const hy_syn *operand = node && node->op == SYN_NEG && node->a >= 0
                                ? &e->syn->nodes[node->a] : NULL;
        if (node && node->op == SYN_NUM) {
            *value = node->value;
        } else if (operand && operand->op == SYN_NUM) {
            *value = -operand->value;
        } else if (strcmp(name, "true") == 0 || strcmp(name, "false") == 0) {
            *value = name[0] == 't';
        } else {
            hy_diag_error(e->diag, m->line, m->column, "'%s' of FMU component '%s' is a "
                          "literal (cosim = true, step = 0.01)", what,
                          TEXT(e->strings, fmu->name));
            return 1;
        }
        if (strcmp(what, "step") == 0 && !(*value > 0.0 && isfinite(*value))) {
            hy_diag_error(e->diag, m->line, m->column, "the step of FMU component '%s' is "
                          "%g, not positive", TEXT(e->strings, fmu->name), *value);
            return 1;
        }
    }
    return 0;
}

/* How fmu runs, into record: cosim = true forces Co-Simulation, step
** gives its communication step, directional = false a Model Exchange
** Jacobian by finite differences. 0, or 1 after an error. */
static int run_options(expander *e, const hy_decl *fmu, hy_lang_fmu *record)
{
    double cosim = 0.0, directional = 1.0;
    if (literal(e, fmu, "cosim", &cosim) || literal(e, fmu, "step", &record->step)
        || literal(e, fmu, "directional", &directional))
        return 1;
    record->cosim = cosim != 0.0;
    record->finite_differences = directional == 0.0;
    return 0;
}

/* The Fmu at decls[slot]: described, recorded, replaced. -1 when out of
** memory (errors are on diag). */
static int expand_one(expander *e, int slot)
{
    hy_decl fmu = e->syn->decls[slot];
    if (fmu.cls != e->syn->top || fmu.size.root >= 0) {
        hy_diag_error(e->diag, fmu.line, fmu.column, "an Fmu is declared in the simulated "
                      "model, one at a time (not in a component class or as an array, yet)");
        return 0;
    }
    const char *file = file_of(e, &fmu);
    if (!file)
        return 0;
    hy_lang_fmus *fmus = e->fmus;
    if (hy_grow((void **)&fmus->list, &fmus->cap, fmus->n + 1, sizeof *fmus->list))
        return -1;
    hy_lang_fmu *record = &fmus->list[fmus->n];
    memset(record, 0, sizeof *record);
    record->first_var = -1;
    record->at_model_level = fmu.mode < 0;
    record->line = fmu.line;
    record->column = fmu.column;
    record->name = hy_strdup(TEXT(e->strings, fmu.name));
    record->path = resolve_path(fmus->model_path, file);
    fmus->n++;
    if (!record->name || !record->path)
        return -1;
    char err[1200];
    hy_lang_fmu_var *vars = NULL;
    int n_vars = 0;
    if (run_options(e, &fmu, record))
        return 0;
    if (fmus->ops->describe(record->path, &record->cosim, &vars, &n_vars, err, sizeof err)) {
        hy_diag_error(e->diag, fmu.line, fmu.column, "FMU component '%s': %s",
                      record->name, err);
        return 0;
    }
    if (!record->cosim && record->step > 0.0) {
        hy_diag_error(e->diag, fmu.line, fmu.column, "FMU component '%s' runs through Model "
                      "Exchange: a step is for Co-Simulation (cosim = true)", record->name);
        hy_lang_fmu_vars_free(vars, n_vars);
        return 0;
    }
    if (record->cosim && !record->at_model_level) {
        hy_diag_error(e->diag, fmu.line, fmu.column, "FMU component '%s' runs through "
                      "Co-Simulation: declare it in the model, not in a mode (yet)",
                      record->name);
        hy_lang_fmu_vars_free(vars, n_vars);
        return 0;
    }
    int status = declare_variables(e, slot, &fmu, vars, n_vars, record);
    hy_lang_fmu_vars_free(vars, n_vars);
    return status < 0 ? -1 : 0;
}

#ifdef HYDAE_HAVE_FMI
extern const hy_lang_fmu_ops hy_fmu_lang_ops; /* src/fmi/component.c, in the library */
#endif

/* The FMU support the library was built with (NULL: none). */
static const hy_lang_fmu_ops *built_in_ops(void)
{
#ifdef HYDAE_HAVE_FMI
    return &hy_fmu_lang_ops;
#else
    return NULL;
#endif
}

void hy_lang_fmus_expand(hy_lang_fmus *fmus, hy_syntax *syn, hy_strtab *strings, hy_diag *diag)
{
    if (fmus && !fmus->ops)
        fmus->ops = built_in_ops();
    int fmu_type = hy_strtab_find(strings, "Fmu");
    for (int c = 0; c < syn->n_classes && fmu_type >= 0; c++)
        if (syn->classes[c].name == fmu_type)
            return; /* a class of that name is used as such */
    expander e = { fmus, syn, strings, diag };
    int n_decls = syn->n_decls;
    for (int i = 0; i < n_decls && fmu_type >= 0; i++) {
        if (syn->decls[i].kind != DECL_COMPONENT || syn->decls[i].type_name != fmu_type)
            continue;
        if (!fmus || !fmus->ops) {
            hy_diag_error(diag, syn->decls[i].line, syn->decls[i].column, "FMU component '%s' "
                          "needs FMI support, which this build of hydae does not have (it needs "
                          "libzip and expat when hydae is built)",
                          TEXT(strings, syn->decls[i].name));
            continue;
        }
        if (expand_one(&e, i) < 0) {
            hy_diag_nomem(diag);
            return;
        }
    }
}

/* The mode that declares variable name, or -1 (none, or several). */
static int declaring_mode(const hy_ir *ir, int name, int *n_found)
{
    int found = -1;
    *n_found = 0;
    for (int m = 0; m < ir->n_modes; m++)
        for (int k = 0; k < ir->modes[m].n_vars; k++)
            if (ir->modes[m].vars[k].name == name) {
                found = m;
                (*n_found)++;
            }
    return *n_found == 1 ? found : -1;
}

int hy_lang_fmus_build(const hy_lang_fmus *fmus, const hy_ir *ir, hydae_model *m,
                       hydae_mode **modes, hy_diag *diag)
{
    for (int i = 0; i < fmus->n; i++) {
        const hy_lang_fmu *fmu = &fmus->list[i];
        int n_found = 0;
        int host = fmu->first_var >= 0 ? declaring_mode(ir, fmu->first_var, &n_found) : -1;
        if (!fmu->at_model_level && host < 0) {
            hy_diag_error(diag, fmu->line, fmu->column, "FMU component '%s' is declared in "
                          "%d modes (a mode with sub-modes?): one mode only, yet",
                          fmu->name, n_found);
            return -1;
        }
        char err[1200];
        if (fmus->ops->add(m, fmu->at_model_level ? NULL : modes[host], fmu, err, sizeof err)) {
            hy_diag_error(diag, fmu->line, fmu->column, "FMU component '%s': %s", fmu->name,
                          err);
            return -1;
        }
    }
    return 0;
}
