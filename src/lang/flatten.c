/*
** Components and connections flattened into one model (flatten.h).
**
** instantiate() walks a class for one instance prefix ("" for the
** simulated model, "R1." for its component R1, "R1.p." deeper): its
** declarations are copied with the prefix (a component recurses), its
** equations and for-loops are copied with every name prefixed except loop
** variables, and its connect() equations are collected. Modifiers are a
** stack: an instance looks up a name in the modifiers pushed for it, the
** outer ones first, so `Circuit c(R1.R = 5)` wins over `Resistor R1(R = 1)`
** inside Circuit. Connection sets are formed after the walk (union-find
** over the connector ends), the Kirchhoff equations appended at model
** level (Modelica 3.6, section 9.2: potentials equal, sum of inside flows
** minus outside flows = 0; an unconnected flow = 0).
**
** A component whose class has modes and transitions becomes a chart of
** the flat model named by the instance path ("D1", "sub.D3"): its modes
** and transitions are copied there with their names, their declarations,
** equations, entry and exit actions, guards and actions renamed with the
** prefix (flatten_copy_elements, mode_map). The simulated model's own
** modes, charts, transitions and experiment are copied first, unprefixed.
**
** This file: the shared helpers (errors, names, class and declaration
** lookup), copying expressions and loops with a prefix, instances and
** their modifiers (components, arrays of components, declarations,
** equations), the class index and the entry. Modes and charts of
** components are in flatten_modes.c, constant expressions in
** flatten_eval.c, connect() and the connection sets in flatten_connect.c
** (flatten_internal.h).
*/
#include "lang/flatten_internal.h"

#include "core/core.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- */
/* Shared helpers                                                   */

void flatten_error_at(flattener *f, int line, int column, const char *fmt, ...)
{
    char message[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    hy_diag_error(f->diag, line, column, "%s", message);
}

int flatten_nomem(flattener *f)
{
    if (!f->failed)
        hy_diag_nomem(f->diag);
    f->failed = 1;
    return -1;
}

/* The id of prefix + name (prefix -1: name itself). */
int flatten_prefixed(flattener *f, int prefix, int name)
{
    if (prefix < 0 || name < 0)
        return name;
    int id = hy_strtab_intern_join(f->strings, text(f, prefix), text(f, name), "");
    return id < 0 ? flatten_nomem(f) : id;
}

/* The id of "prefix" + "name" + "." : the prefix of a component's names. */
int flatten_instance_prefix(flattener *f, int prefix, int name)
{
    int id = hy_strtab_intern_join(f->strings, prefix < 0 ? "" : text(f, prefix), text(f, name),
                                   ".");
    return id < 0 ? flatten_nomem(f) : id;
}

/* The id of "name[k]". */
int flatten_element_id(flattener *f, int name, long k)
{
    char index[32];
    snprintf(index, sizeof index, "[%ld]", k);
    int id = hy_strtab_intern_join(f->strings, text(f, name), index, "");
    return id < 0 ? flatten_nomem(f) : id;
}

/* The class a type name in class `context` means: the exact name
** ("Electrical.Resistor", or a class of the model file), then a class of
** the context's own library, then the one imported class of that short
** name. -1: none; -2: several libraries have it (said at line, column). */
int flatten_find_class(flattener *f, int name, int context, int line, int column)
{
    const hy_syntax *in = f->in;
    for (int c = in->n_classes - 1; c >= 0; c--)
        if (in->classes[c].name == name && in->classes[c].package < 0)
            return c;
    for (int c = in->n_classes - 1; c >= 0; c--)
        if (in->classes[c].name == name)
            return c;
    int package = context >= 0 ? in->classes[context].package : -1;
    if (package >= 0)
        for (int c = 0; c < in->n_classes; c++)
            if (in->classes[c].package == package && in->classes[c].short_name == name)
                return c;
    int found = -1;
    for (int c = 0; c < in->n_classes; c++) {
        if (in->classes[c].package < 0 || in->classes[c].short_name != name)
            continue;
        if (found >= 0) {
            flatten_error_at(f, line, column, "'%s' is ambiguous: both %s and %s (write the "
                             "library's name before it)", text(f, name),
                             text(f, in->classes[found].name), text(f, in->classes[c].name));
            return -2;
        }
        found = c;
    }
    return found;
}

/* The declaration of class cls called name, or -1. */
int flatten_find_decl(const flattener *f, int cls, int name)
{
    for (int k = 0; k < f->n_class_decls[cls]; k++)
        if (f->in->decls[f->class_decls[cls][k]].name == name)
            return f->class_decls[cls][k];
    return -1;
}

/* ---------------------------------------------------------------- */
/* Expressions                                                      */

static int is_bound(const flattener *f, int name)
{
    for (int i = f->n_bound - 1; i >= 0; i--)
        if (f->bound[i] == name)
            return 1;
    return 0;
}

static int bind(flattener *f, int var)
{
    if (hy_grow((void **)&f->bound, &f->cap_bound, f->n_bound + 1, sizeof *f->bound))
        return flatten_nomem(f);
    f->bound[f->n_bound++] = var;
    return 0;
}

/* Copy nodes [first, root] with names prefixed (prefix -1: unchanged),
** except the variables bound by enclosing loops and by the reductions
** and comprehensions of the expression itself. */
hy_expr_ref flatten_copy_expr(flattener *f, hy_expr_ref e, int prefix)
{
    hy_syntax *out = f->out;
    hy_expr_ref result = { out->n_nodes, -1 };
    if (e.root < 0 || f->failed)
        return result;
    const hy_syn *nodes = f->in->nodes;
    int base = out->n_nodes, first = e.first;
    int has_local = 0; /* reductions or comprehensions with their own variable */
    for (int j = first; j <= e.root && !has_local; j++)
        has_local = nodes[j].op == SYN_REDUCE || nodes[j].op == SYN_COMPREH;
    for (int j = first; j <= e.root; j++) {
        if (hy_grow((void **)&out->nodes, &out->cap_nodes, out->n_nodes + 1, sizeof *out->nodes)) {
            flatten_nomem(f);
            return result;
        }
        hy_syn n = nodes[j];
        hy_syn_move_operands(&n, first, base);
        if ((n.op == SYN_NAME || n.op == SYN_INDEX) && prefix >= 0 && !is_bound(f, n.name)) {
            int local = 0; /* a reduction's or comprehension's own variable */
            for (int r = j + 1; has_local && r <= e.root && !local; r++) {
                const hy_syn *c = &nodes[r];
                local = (c->op == SYN_REDUCE || c->op == SYN_COMPREH) && c->var == n.name
                        && c->first <= j && j <= c->a;
            }
            if (!local) {
                n.name = flatten_prefixed(f, prefix, n.name);
                if (n.name < 0)
                    return result;
            }
        }
        out->nodes[out->n_nodes++] = n;
    }
    result.root = base + e.root - first;
    return result;
}

/* The output copy of input loop `loop` (and of its parents) for this
** instance, its range copied with the prefix. */
int flatten_map_loop(flattener *f, int loop, int prefix)
{
    if (loop < 0)
        return -1;
    if (f->loop_map[loop] >= 0)
        return f->loop_map[loop];
    const hy_loop_syn *l = &f->in->loops[loop];
    int parent = flatten_map_loop(f, l->parent, prefix);
    hy_loop_syn copy = *l;
    copy.parent = parent;
    int n_bound = f->n_bound;
    for (int p = l->parent; p >= 0; p = f->in->loops[p].parent)
        if (bind(f, f->in->loops[p].var))
            return -1;
    copy.from = flatten_copy_expr(f, l->from, prefix);
    copy.to = flatten_copy_expr(f, l->to, prefix);
    f->n_bound = n_bound;
    hy_syntax *out = f->out;
    if (f->failed
        || hy_grow((void **)&out->loops, &out->cap_loops, out->n_loops + 1, sizeof *out->loops))
        return flatten_nomem(f);
    out->loops[out->n_loops] = copy;
    return f->loop_map[loop] = out->n_loops++;
}

/* Bind the variables of loop and its parents (for copying an item). */
int flatten_bind_loops(flattener *f, int loop)
{
    for (; loop >= 0; loop = f->in->loops[loop].parent)
        if (bind(f, f->in->loops[loop].var))
            return -1;
    return 0;
}

/* ---------------------------------------------------------------- */
/* Instances                                                        */

static int push_mod(flattener *f, const modifier *m)
{
    if (hy_grow((void **)&f->mods, &f->cap_mods, f->n_mods + 1, sizeof *f->mods))
        return flatten_nomem(f);
    f->mods[f->n_mods++] = *m;
    return 0;
}

/* The first modifier in [from, to) for name, or NULL. */
static modifier *find_mod(flattener *f, int from, int to, int name)
{
    for (int i = from; i < to; i++)
        if (f->mods[i].name == name)
            return &f->mods[i];
    return NULL;
}

static void mark_used(flattener *f, int index)
{
    while (index >= 0) {
        f->mods[index].used = 1;
        index = f->mods[index].origin;
    }
}

static int push_decl(flattener *f, const hy_decl *d)
{
    hy_syntax *out = f->out;
    if (hy_grow((void **)&out->decls, &out->cap_decls, out->n_decls + 1, sizeof *out->decls))
        return flatten_nomem(f);
    out->decls[out->n_decls++] = *d;
    return 0;
}

static int instantiate(flattener *f, int cls, int prefix, int mods_from, int mods_to);

/* The value of a modifier for element k of a component array of n (k = 0:
** not an array): a list gives its k-th entry, one value serves all. */
static int element_modifier(flattener *f, hy_expr_ref value, long k, long n, int line,
                            int column, int name, hy_expr_ref *out)
{
    *out = value;
    if (k == 0 || value.root < 0)
        return 0;
    const hy_syn *v = &f->in->nodes[value.root];
    if (v->op == SYN_COMPREH) {
        if (k == 1)
            flatten_error_at(f, line, column, "modifier '%s' of a component array: write a "
                             "list {a, b, ...} or one value for all (a comprehension is not "
                             "supported here)", text(f, name));
        return -1;
    }
    if (v->op != SYN_ARRAY)
        return 0;
    if (v->var != n) {
        if (k == 1)
            flatten_error_at(f, line, column, "modifier '%s' has %d values for %ld components",
                             text(f, name), v->var, n);
        return -1;
    }
    const hy_syn *pick = &f->in->nodes[value.root - (k - 1)]; /* links are consecutive */
    *out = (hy_expr_ref){ pick->first, pick->a };
    return 0;
}

/* Component d of class cls (element k of n when d is an array, else k = 0):
** push the modifiers that reach into it (the outer ones first, stripped
** of "d." or "d[k]."), then its own, and instantiate. */
static void instantiate_component(flattener *f, const hy_decl *d, long k, long n, int prefix,
                                  int mods_from, int mods_to)
{
    int type = flatten_find_class(f, d->type_name, d->cls, d->line, d->column);
    if (type < 0) {
        if (type == -1)
            flatten_error_at(f, d->line, d->column, "unknown class '%s' (of component '%s')",
                             text(f, d->type_name), text(f, d->name));
        return;
    }
    if (type == f->in->top) {
        flatten_error_at(f, d->line, d->column, "'%s' is the model being simulated (the last "
                         "in the file): it cannot also be a component", text(f, d->type_name));
        return;
    }
    const hy_class_syn *c = &f->in->classes[type];
    if (!f->class_refused[type])
        flatten_refuse_component_elements(f, type);
    int in_mode = d->mode >= 0 ? f->mode_map[d->mode] : f->inst_mode;
    if (in_mode >= 0 && flatten_class_has_modes(f, type) && d->inherited) {
        flatten_error_at(f, d->line, d->column, "component '%s' has modes of its own and is "
                         "declared in a mode with sub-modes: declare it in each sub-mode, or "
                         "at model level", text(f, d->name));
        return;
    }
    if (in_mode >= 0 && flatten_class_has_modes(f, type)) {
        for (int m = 0; m < f->out->n_modes; m++)
            if (f->out->modes[m].parent == in_mode) {
                flatten_error_at(f, d->line, d->column, "component '%s' has modes of its own "
                                 "and is declared in mode '%s', which has a component with "
                                 "modes already: a mode holds one sub-chart (parallel charts "
                                 "inside a mode are not supported)", text(f, d->name),
                                 text(f, f->out->modes[in_mode].name));
                return;
            }
    }
    int name = k > 0 ? flatten_element_id(f, d->name, k) : d->name;
    int inner = name < 0 ? -1 : flatten_instance_prefix(f, prefix, name);
    if (inner < 0)
        return;
    int pushed_from = f->n_mods;
    const char *owns[2] = { text(f, name), k > 0 ? text(f, d->name) : NULL };
    for (int i = mods_from; i < mods_to && !f->failed; i++) {
        const char *target = text(f, f->mods[i].name);
        size_t own_len = 0;
        for (int o = 0; o < 2 && !own_len; o++) /* "J[2].x" for one element, "J.x" for all */
            if (owns[o] && strncmp(target, owns[o], strlen(owns[o])) == 0
                && target[strlen(owns[o])] == '.')
                own_len = strlen(owns[o]);
        if (!own_len)
            continue;
        modifier m = f->mods[i];
        m.name = hy_strtab_intern(f->strings, target + own_len + 1, strlen(target + own_len + 1));
        m.origin = i;
        m.used = 0;
        if (m.name < 0)
            flatten_nomem(f);
        else if (element_modifier(f, f->mods[i].value, k, n, m.line, m.column, m.name,
                                  &m.value) == 0)
            push_mod(f, &m);
    }
    for (int j = 0; j < d->mod_count && !f->failed; j++) {
        const hy_mod_syn *ms = &f->in->mods[d->mod_first + j];
        modifier m = { ms->name, ms->value, prefix, d->cls, ms->line, ms->column, -1, 0 };
        if (element_modifier(f, ms->value, k, n, ms->line, ms->column, ms->name, &m.value) == 0)
            push_mod(f, &m);
    }
    int pushed_to = f->n_mods;
    if (c->kind == CLASS_CONNECTOR) {
        connector_inst ci = { flatten_prefixed(f, prefix, name), type, in_mode };
        if (hy_grow((void **)&f->connectors, &f->cap_connectors, f->n_connectors + 1,
                    sizeof *f->connectors))
            flatten_nomem(f);
        else
            f->connectors[f->n_connectors++] = ci;
    }
    if (!f->failed && flatten_class_has_modes(f, type) && in_mode >= 0) {
        flatten_copy_elements(f, type, inner, f->out->modes[in_mode].chart, in_mode);
    } else if (!f->failed && flatten_class_has_modes(f, type)) {
        int chart_name = flatten_prefixed(f, prefix, name);
        if (chart_name >= 0)
            flatten_copy_elements(f, type, inner,
                                  flatten_add_chart(f, chart_name, d->line, d->column), -1);
    }
    int outer_mode = f->inst_mode;
    f->inst_mode = in_mode; /* its declarations and equations live in that mode */
    if (!f->failed)
        instantiate(f, type, inner, pushed_from, pushed_to);
    f->inst_mode = outer_mode;
    for (int i = pushed_from; i < pushed_to && !f->failed; i++)
        if (!f->mods[i].used && f->mods[i].origin < 0)
            flatten_error_at(f, f->mods[i].line, f->mods[i].column, "class '%s' has no "
                             "parameter or variable '%s' (modifier of component '%s')",
                             text(f, c->name), text(f, f->mods[i].name), text(f, d->name));
    f->n_mods = pushed_from;
}

/* A component array: its elements d[1] .. d[n], and a declaration of its
** size for hy_unroll (J[i].w in equations and loops). */
static void instantiate_array(flattener *f, const hy_decl *d, int prefix, int mods_from,
                              int mods_to)
{
    long n = 0;
    f->eval_prefix = prefix;
    if (flatten_array_size(f, d, &n))
        return;
    hy_decl marker = *d;
    marker.cls = 0;
    marker.mode = d->mode >= 0 ? f->mode_map[d->mode] : f->inst_mode;
    marker.mod_count = 0;
    marker.name = flatten_prefixed(f, prefix, d->name);
    int size = hy_syntax_add_node(f->out, SYN_NUM, d->line, d->column, -1, -1, -1);
    if (size < 0 || marker.name < 0) {
        flatten_nomem(f);
        return;
    }
    f->out->nodes[size].value = (double)n;
    marker.size = (hy_expr_ref){ size, size };
    marker.value.root = marker.rtol.root = marker.atol.root = -1;
    if (push_decl(f, &marker))
        return;
    for (long k = 1; k <= n && !f->failed; k++) {
        int n_errors = f->diag->n_errors;
        instantiate_component(f, d, k, n, prefix, mods_from, mods_to);
        if (f->diag->n_errors > n_errors)
            break; /* said once, not for every element */
    }
}

static void copy_decl(flattener *f, const hy_decl *d, int prefix, int mods_from, int mods_to)
{
    if (d->is_flow && f->in->classes[d->cls].kind != CLASS_CONNECTOR) {
        flatten_error_at(f, d->line, d->column,
                         "'flow' belongs in a connector ('%s' is in %s '%s')", text(f, d->name),
                         f->in->classes[d->cls].kind == CLASS_BLOCK ? "block" : "model",
                         text(f, f->in->classes[d->cls].name));
        return;
    }
    hy_decl out = *d;
    out.cls = 0;
    /* A component declared in a mode has its unknowns there; its
    ** parameters, constants and discrete variables are the model's. */
    out.mode = d->mode >= 0 ? f->mode_map[d->mode]
               : d->kind == DECL_VARIABLE ? f->inst_mode : -1;
    out.name = flatten_prefixed(f, prefix, d->name);
    modifier *m = find_mod(f, mods_from, mods_to, d->name);
    if (m) {
        for (int i = (int)(m - f->mods); i < mods_to; i++)
            if (f->mods[i].name == d->name)
                mark_used(f, i); /* the first wins; those it overrides are not errors */
        out.value = flatten_copy_expr(f, m->value, m->scope_prefix);
        out.value_line = m->line;
        out.value_column = m->column;
    } else {
        out.value = flatten_copy_expr(f, d->value, prefix);
    }
    out.rtol = flatten_copy_expr(f, d->rtol, prefix);
    out.atol = flatten_copy_expr(f, d->atol, prefix);
    out.size = flatten_copy_expr(f, d->size, prefix);
    if (f->inst_mode >= 0 && out.mode < 0 && out.name >= 0)
        for (int i = 0; i < f->out->n_decls; i++)
            if (f->out->decls[i].name == out.name && f->out->decls[i].mode < 0)
                return; /* a component in several modes: one set of parameters, the first's */
    if (!f->failed && out.name >= 0)
        push_decl(f, &out);
}

static void copy_equation(flattener *f, const hy_equation_syn *eq, int prefix)
{
    hy_equation_syn out = *eq;
    out.cls = 0;
    out.mode = eq->mode >= 0 ? f->mode_map[eq->mode] : f->inst_mode;
    int n_bound = f->n_bound;
    if (flatten_bind_loops(f, eq->loop))
        return;
    out.loop = flatten_map_loop(f, eq->loop, prefix);
    if (eq->output_name >= 0)
        out.output_name = flatten_prefixed(f, prefix, eq->output_name);
    out.output_index = flatten_copy_expr(f, eq->output_index, prefix);
    out.lhs = flatten_copy_expr(f, eq->lhs, prefix);
    out.rhs = flatten_copy_expr(f, eq->rhs, prefix);
    f->n_bound = n_bound;
    hy_syntax *o = f->out;
    if (f->failed)
        return;
    if (hy_grow((void **)&o->equations, &o->cap_equations, o->n_equations + 1,
                sizeof *o->equations)) {
        flatten_nomem(f);
        return;
    }
    o->equations[o->n_equations++] = out;
}

static int instantiate(flattener *f, int cls, int prefix, int mods_from, int mods_to)
{
    if (f->depth >= HY_FLATTEN_MAX_DEPTH) {
        const hy_class_syn *c = &f->in->classes[cls];
        flatten_error_at(f, c->line, c->column, "components nested deeper than %d levels (does "
                         "class '%s' contain itself?)", HY_FLATTEN_MAX_DEPTH, text(f, c->name));
        f->failed = 1;
        return -1;
    }
    f->depth++;
    for (int k = 0; k < f->n_class_decls[cls] && !f->failed; k++) {
        const hy_decl *d = &f->in->decls[f->class_decls[cls][k]];
        if (d->kind == DECL_COMPONENT && d->size.root >= 0)
            instantiate_array(f, d, prefix, mods_from, mods_to);
        else if (d->kind == DECL_COMPONENT)
            instantiate_component(f, d, 0, 0, prefix, mods_from, mods_to);
        else
            copy_decl(f, d, prefix, mods_from, mods_to);
    }
    for (int l = 0; l < f->in->n_loops; l++)
        f->loop_map[l] = -1;
    for (int k = 0; k < f->n_class_eqs[cls] && !f->failed; k++) {
        const hy_equation_syn *eq = &f->in->equations[f->class_eqs[cls][k]];
        if (eq->connect_a >= 0 && eq->mode >= 0 && f->out->modes[f->mode_map[eq->mode]].parent >= 0)
            flatten_error_at(f, eq->line, eq->column, "connect() in a mode of a component "
                             "declared in a mode is not supported (connect in its class's "
                             "equations, or declare the component at model level)");
        else if (eq->connect_a >= 0)
            flatten_collect_connection(f, cls, prefix, eq);
        else
            copy_equation(f, eq, prefix);
    }
    f->depth--;
    return f->failed ? -1 : 0;
}

/* ---------------------------------------------------------------- */

static int needs_flattening(const hy_syntax *s)
{
    if (s->n_classes > 1 || s->hierarchical) /* hierarchy.c shares nodes between copies */
        return 1;
    for (int i = 0; i < s->n_decls; i++)
        if (s->decls[i].kind == DECL_COMPONENT || s->decls[i].is_flow)
            return 1;
    for (int i = 0; i < s->n_equations; i++)
        if (s->equations[i].connect_a >= 0)
            return 1;
    return 0;
}

static int index_classes(flattener *f)
{
    const hy_syntax *in = f->in;
    int n = in->n_classes;
    f->class_decls = hy_calloc((size_t)n, sizeof *f->class_decls);
    f->n_class_decls = hy_calloc((size_t)n, sizeof *f->n_class_decls);
    f->class_eqs = hy_calloc((size_t)n, sizeof *f->class_eqs);
    f->n_class_eqs = hy_calloc((size_t)n, sizeof *f->n_class_eqs);
    f->class_refused = hy_calloc((size_t)n, 1);
    f->loop_map = hy_calloc((size_t)(in->n_loops > 0 ? in->n_loops : 1), sizeof *f->loop_map);
    f->mode_map = hy_calloc((size_t)in->n_modes + 1, sizeof *f->mode_map);
    f->chart_map = hy_calloc((size_t)in->n_charts + 1, sizeof *f->chart_map);
    if (!f->class_decls || !f->n_class_decls || !f->class_eqs || !f->n_class_eqs
        || !f->class_refused || !f->loop_map || !f->mode_map || !f->chart_map)
        return flatten_nomem(f);
    int *caps_d = hy_calloc((size_t)n, sizeof *caps_d), *caps_e = hy_calloc((size_t)n, sizeof *caps_e);
    int rc = caps_d && caps_e ? 0 : flatten_nomem(f);
    for (int i = 0; i < in->n_decls && rc == 0; i++) {
        int c = in->decls[i].cls;
        if (hy_grow((void **)&f->class_decls[c], &caps_d[c], f->n_class_decls[c] + 1, sizeof(int)))
            rc = flatten_nomem(f);
        else
            f->class_decls[c][f->n_class_decls[c]++] = i;
    }
    for (int i = 0; i < in->n_equations && rc == 0; i++) {
        int c = in->equations[i].cls;
        if (hy_grow((void **)&f->class_eqs[c], &caps_e[c], f->n_class_eqs[c] + 1, sizeof(int)))
            rc = flatten_nomem(f);
        else
            f->class_eqs[c][f->n_class_eqs[c]++] = i;
    }
    hy_free(caps_d);
    hy_free(caps_e);
    return rc;
}

int hy_flatten(hy_syntax *syntax, hy_strtab *strings, hy_diag *diag)
{
    if (!needs_flattening(syntax) || syntax->top < 0)
        return 0;
    hy_syntax out;
    memset(&out, 0, sizeof out);
    flattener f;
    memset(&f, 0, sizeof f);
    f.in = syntax;
    f.out = &out;
    f.strings = strings;
    f.diag = diag;
    f.inst_mode = f.connect_mode = -1;
    int n_errors = diag->n_errors;
    const hy_class_syn *top = &syntax->classes[syntax->top];
    out.model_name = top->name;
    out.line = top->line;
    out.column = top->column;
    if (index_classes(&f) == 0) {
        flatten_copy_elements(&f, syntax->top, -1, -1, -1);
        if (instantiate(&f, syntax->top, -1, 0, 0) == 0)
            flatten_connection_sets(&f);
    }
    hy_class_syn only = *top;
    if (!f.failed && hy_grow((void **)&out.classes, &out.cap_classes, 1, sizeof only) == 0) {
        out.classes[0] = only;
        out.n_classes = 1;
        out.top = 0;
    }
    for (int c = 0; f.class_decls && c < syntax->n_classes; c++) {
        hy_free(f.class_decls[c]);
        hy_free(f.class_eqs ? f.class_eqs[c] : NULL);
    }
    hy_free(f.class_decls);
    hy_free(f.n_class_decls);
    hy_free(f.class_eqs);
    hy_free(f.n_class_eqs);
    hy_free(f.class_refused);
    hy_free(f.values);
    hy_free(f.mods);
    hy_free(f.connections);
    hy_free(f.connectors);
    hy_free(f.loop_map);
    hy_free(f.mode_map);
    hy_free(f.chart_map);
    hy_free(f.bound);
    if (f.failed && diag->n_errors == n_errors)
        hy_diag_nomem(diag);
    hy_syntax_free(syntax);
    out.flattened = 1;
    *syntax = out;
    return diag->n_errors - n_errors;
}
