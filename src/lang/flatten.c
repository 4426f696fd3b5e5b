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
** prefix (copy_elements, mode_map). The simulated model's own modes,
** charts, transitions and experiment are copied first, unprefixed.
*/
#include "lang/flatten.h"

#include "core/core.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct modifier {
    int name;                /* relative to the instance it is pushed for */
    hy_expr_ref value;
    int scope_prefix;        /* string id of the prefix its names take, -1: none */
    int scope_cls;
    int line, column;
    int origin;              /* the modifier it was stripped from, or -1 */
    int used;
} modifier;

typedef struct connect_end {
    int name;                /* full name of the connector instance */
    int cls;                 /* its connector class */
    int inside;              /* reached through a component of the class */
} connect_end;

typedef struct connection {
    connect_end a, b;
    int line, column;
    int mode;                /* output mode it exists in, -1: always */
} connection;

typedef struct connector_inst {
    int name, cls;
    int mode;                /* output mode it exists in, -1: always */
} connector_inst;

typedef struct loop_value {
    int var;
    double value;
} loop_value;

/* Elements of one component array at most (a larger one is refused). */
#define HY_FLATTEN_MAX_ARRAY 1000000L

typedef struct flattener {
    const hy_syntax *in;
    hy_syntax *out;
    hy_strtab *strings;
    hy_diag *diag;
    int failed;
    int depth;
    int **class_decls, *n_class_decls;    /* decl indices by class */
    int **class_eqs, *n_class_eqs;        /* equation indices by class */
    unsigned char *class_refused;         /* modes etc. in a component class: said */
    modifier *mods;
    int n_mods, cap_mods;
    connection *connections;
    int n_connections, cap_connections;
    connector_inst *connectors;
    int n_connectors, cap_connectors;
    int *loop_map;                        /* input loop -> output loop, this instance */
    int *mode_map;                        /* input mode -> output mode, of the class
                                             being instantiated (a class never
                                             contains itself) */
    int *chart_map;                       /* input chart -> output chart (top class) */
    int *bound;                           /* variables bound around the item copied */
    int n_bound, cap_bound;
    loop_value *values;                   /* loop variables' values (connect() in loops) */
    int n_values, cap_values;
    int eval_prefix;                      /* the instance whose constants are evaluated */
    int inst_mode;                        /* output mode the instance being copied lives
                                             in (a component declared in a mode), -1 */
    int connect_mode;                     /* that of the connect() being collected */
} flattener;

static void error_at(flattener *f, int line, int column, const char *fmt, ...) HY_PRINTF(4, 5);

static void error_at(flattener *f, int line, int column, const char *fmt, ...)
{
    char message[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    hy_diag_error(f->diag, line, column, "%s", message);
}

static int nomem(flattener *f)
{
    if (!f->failed)
        hy_diag_nomem(f->diag);
    f->failed = 1;
    return -1;
}

static const char *text(const flattener *f, int id)
{
    return hy_strtab_get(f->strings, id);
}

/* The id of prefix + name (prefix -1: name itself). */
static int prefixed(flattener *f, int prefix, int name)
{
    if (prefix < 0 || name < 0)
        return name;
    int id = hy_strtab_intern_join(f->strings, text(f, prefix), text(f, name), "");
    return id < 0 ? nomem(f) : id;
}

/* The id of "prefix" + "name" + "." : the prefix of a component's names. */
static int instance_prefix(flattener *f, int prefix, int name)
{
    int id = hy_strtab_intern_join(f->strings, prefix < 0 ? "" : text(f, prefix), text(f, name),
                                   ".");
    return id < 0 ? nomem(f) : id;
}

/* The class a type name in class `context` means: the exact name
** ("Electrical.Resistor", or a class of the model file), then a class of
** the context's own library, then the one imported class of that short
** name. -1: none; -2: several libraries have it (said at line, column). */
static int find_class(flattener *f, int name, int context, int line, int column)
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
            error_at(f, line, column, "'%s' is ambiguous: both %s and %s (write the library's "
                     "name before it)", text(f, name), text(f, in->classes[found].name),
                     text(f, in->classes[c].name));
            return -2;
        }
        found = c;
    }
    return found;
}

/* The declaration of class cls called name, or -1. */
static int find_decl(const flattener *f, int cls, int name)
{
    for (int k = 0; k < f->n_class_decls[cls]; k++)
        if (f->in->decls[f->class_decls[cls][k]].name == name)
            return f->class_decls[cls][k];
    return -1;
}

/* ---------------------------------------------------------------- */
/* Constants: sizes of component arrays, indices in connect()       */

static int eval_in_class(flattener *f, int cls, hy_expr_ref e, int depth, double *out);

static int constant_name(flattener *f, int cls, const hy_syn *n, int depth, double *out)
{
    for (int i = f->n_values - 1; i >= 0; i--)
        if (f->values[i].var == n->name) {
            *out = f->values[i].value;
            return 0;
        }
    int decl = find_decl(f, cls, n->name);
    const hy_decl *d = decl >= 0 ? &f->in->decls[decl] : NULL;
    if (!d || (d->kind != DECL_CONSTANT && d->kind != DECL_PARAMETER) || d->size.root >= 0
        || d->value.root < 0 || d->mode >= 0) {
        error_at(f, n->line, n->column, "'%s' is not a constant or parameter of class '%s' or "
                 "the variable of an enclosing loop: component array sizes and connect() "
                 "indices are fixed when the model is compiled", text(f, n->name),
                 text(f, f->in->classes[cls].name));
        return -1;
    }
    if (d->kind == DECL_PARAMETER) { /* structural: frozen (hy_syntax_freeze_structural) */
        int name = prefixed(f, f->eval_prefix, n->name);
        if (name < 0 || hy_syntax_note_structural(f->out, name))
            return nomem(f);
    }
    if (depth >= 32) {
        error_at(f, n->line, n->column, "constant '%s' is defined through too many others (a "
                 "cycle?)", text(f, n->name));
        return -1;
    }
    return eval_in_class(f, cls, d->value, depth + 1, out);
}

/* The value of the constant expression e of class cls (numbers, its
** constants, loop variables, + - * / ^). 0, or -1 after reporting. */
static int eval_in_class(flattener *f, int cls, hy_expr_ref e, int depth, double *out)
{
    const hy_syn *nodes = f->in->nodes;
    int n = e.root - e.first + 1;
    double *value = hy_alloc_array((size_t)(n > 0 ? n : 1), sizeof *value);
    if (!value)
        return nomem(f);
    int rc = 0;
    for (int j = e.first; j <= e.root && rc == 0; j++) {
        const hy_syn *node = &nodes[j];
        double a = node->a >= e.first ? value[node->a - e.first] : 0.0;
        double b = node->b >= e.first ? value[node->b - e.first] : 0.0;
        double v = 0.0;
        switch (node->op) {
        case SYN_NUM: v = node->value; break;
        case SYN_NAME: rc = constant_name(f, cls, node, depth, &v); break;
        case SYN_NEG: case SYN_ADD: case SYN_SUB: case SYN_MUL: case SYN_DIV: case SYN_POW:
            hy_syn_arith((hy_syn_op)node->op, a, b, &v);
            break;
        default:
            error_at(f, node->line, node->column, "a component array's size or a connect() "
                     "index must be a constant expression (numbers, constants, loop "
                     "variables, + - * / ^)");
            rc = -1;
        }
        value[j - e.first] = v;
    }
    if (rc == 0)
        *out = value[n - 1];
    hy_free(value);
    return rc;
}

/* A whole number in [lo, hi] from e of class cls; what names it. */
static int integer_in_class(flattener *f, int cls, hy_expr_ref e, const char *what, long lo,
                            long hi, long *out)
{
    double v;
    if (eval_in_class(f, cls, e, 0, &v))
        return -1;
    const hy_syn *at = &f->in->nodes[e.first];
    if (!(v == floor(v)) || v < (double)lo || v > (double)hi) {
        error_at(f, at->line, at->column, "the %s is %.17g, not a whole number in %ld .. %ld",
                 what, v, lo, hi);
        return -1;
    }
    *out = (long)v;
    return 0;
}

/* The number of elements of component array d. */
static int array_size(flattener *f, const hy_decl *d, long *size)
{
    char what[200];
    snprintf(what, sizeof what, "size of component array '%s'", text(f, d->name));
    return integer_in_class(f, d->cls, d->size, what, 1, HY_FLATTEN_MAX_ARRAY, size);
}

/* The id of "name[k]". */
static int element_id(flattener *f, int name, long k)
{
    char index[32];
    snprintf(index, sizeof index, "[%ld]", k);
    int id = hy_strtab_intern_join(f->strings, text(f, name), index, "");
    return id < 0 ? nomem(f) : id;
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
        return nomem(f);
    f->bound[f->n_bound++] = var;
    return 0;
}

/* Copy nodes [first, root] with names prefixed (prefix -1: unchanged),
** except the variables bound by enclosing loops and by the reductions
** and comprehensions of the expression itself. */
static hy_expr_ref copy_expr(flattener *f, hy_expr_ref e, int prefix)
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
            nomem(f);
            return result;
        }
        hy_syn n = nodes[j];
#define MAPPED(k) ((k) >= first ? base + (k) - first : (k))
        n.a = n.a >= 0 ? MAPPED(n.a) : -1;
        n.b = n.b >= 0 ? MAPPED(n.b) : -1;
        n.c = n.c >= 0 ? MAPPED(n.c) : -1;
        if (n.first >= 0)
            n.first = MAPPED(n.first);
#undef MAPPED
        if ((n.op == SYN_NAME || n.op == SYN_INDEX) && prefix >= 0 && !is_bound(f, n.name)) {
            int local = 0; /* a reduction's or comprehension's own variable */
            for (int r = j + 1; has_local && r <= e.root && !local; r++) {
                const hy_syn *c = &nodes[r];
                local = (c->op == SYN_REDUCE || c->op == SYN_COMPREH) && c->var == n.name
                        && c->first <= j && j <= c->a;
            }
            if (!local) {
                n.name = prefixed(f, prefix, n.name);
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
static int map_loop(flattener *f, int loop, int prefix)
{
    if (loop < 0)
        return -1;
    if (f->loop_map[loop] >= 0)
        return f->loop_map[loop];
    const hy_loop_syn *l = &f->in->loops[loop];
    int parent = map_loop(f, l->parent, prefix);
    hy_loop_syn copy = *l;
    copy.parent = parent;
    int n_bound = f->n_bound;
    for (int p = l->parent; p >= 0; p = f->in->loops[p].parent)
        if (bind(f, f->in->loops[p].var))
            return -1;
    copy.from = copy_expr(f, l->from, prefix);
    copy.to = copy_expr(f, l->to, prefix);
    f->n_bound = n_bound;
    hy_syntax *out = f->out;
    if (f->failed
        || hy_grow((void **)&out->loops, &out->cap_loops, out->n_loops + 1, sizeof *out->loops))
        return nomem(f);
    out->loops[out->n_loops] = copy;
    return f->loop_map[loop] = out->n_loops++;
}

/* Bind the variables of loop and its parents (for copying an item). */
static int bind_loops(flattener *f, int loop)
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
        return nomem(f);
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
        return nomem(f);
    out->decls[out->n_decls++] = *d;
    return 0;
}

static int instantiate(flattener *f, int cls, int prefix, int mods_from, int mods_to);

/* ---------------------------------------------------------------- */
/* Modes, charts and transitions                                    */

/* A component class may have modes and transitions (its instances'
** charts) but no explicit chart and no experiment: said once per class. */
static void refuse_component_elements(flattener *f, int cls)
{
    const hy_syntax *in = f->in;
    for (int i = 0; i < in->n_charts && !f->class_refused[cls]; i++)
        if (in->charts[i].cls == cls) {
            f->class_refused[cls] = 1;
            error_at(f, in->charts[i].line, in->charts[i].column, "chart '%s' in class '%s', "
                     "which is used as a component: a component's modes form its own chart, "
                     "named after the instance (write the modes and transitions without "
                     "'chart')", text(f, in->charts[i].name), text(f, in->classes[cls].name));
        }
    for (int i = 0; i < in->n_settings && !f->class_refused[cls]; i++)
        if (in->settings[i].cls == cls) {
            f->class_refused[cls] = 1;
            error_at(f, in->settings[i].line, in->settings[i].column, "class '%s' is used as "
                     "a component: the experiment belongs to the simulated model",
                     text(f, in->classes[cls].name));
        }
}

static int class_has_modes(const flattener *f, int cls)
{
    for (int i = 0; i < f->in->n_modes; i++)
        if (f->in->modes[i].cls == cls)
            return 1;
    for (int i = 0; i < f->in->n_transitions; i++)
        if (f->in->transitions[i].cls == cls)
            return 1;
    return 0;
}

static int add_chart(flattener *f, int name, int line, int column)
{
    hy_syntax *out = f->out;
    if (hy_grow((void **)&out->charts, &out->cap_charts, out->n_charts + 1, sizeof *out->charts))
        return nomem(f);
    hy_chart_syn *c = &out->charts[out->n_charts];
    c->name = name;
    c->line = line;
    c->column = column;
    c->cls = 0;
    return out->n_charts++;
}

/* Statements `range` of the input, copied with the prefix to the end of
** the output's list: the copy's range. */
static hy_stmt_range copy_stmts(flattener *f, hy_stmt_range range, int prefix)
{
    hy_syntax *out = f->out;
    hy_stmt_range copy = range;
    copy.first = out->n_stmts;
    copy.count = 0;
    for (int k = 0; k < range.count && !f->failed; k++) {
        hy_stmt_syn st = f->in->stmts[range.first + k];
        int n_bound = f->n_bound;
        if (bind_loops(f, st.loop))
            break;
        st.loop = map_loop(f, st.loop, prefix);
        if (!st.is_raise)
            st.target = prefixed(f, prefix, st.target); /* events keep their names */
        st.value = copy_expr(f, st.value, prefix);
        st.target_index = copy_expr(f, st.target_index, prefix);
        f->n_bound = n_bound;
        if (f->failed
            || hy_grow((void **)&out->stmts, &out->cap_stmts, out->n_stmts + 1, sizeof *out->stmts)) {
            nomem(f);
            break;
        }
        out->stmts[out->n_stmts++] = st;
        copy.count++;
    }
    return copy;
}

/* The modes and transitions of class cls (and, for the simulated model,
** chart = -1, its charts and experiment), copied with the prefix: a
** component's go to its instance's chart `chart`, their names unchanged.
** Fills mode_map for the declarations and equations copied next. */
static void copy_elements(flattener *f, int cls, int prefix, int chart)
{
    const hy_syntax *in = f->in;
    hy_syntax *out = f->out;
    if (f->failed || (prefix >= 0 && chart < 0))
        return;
    for (int l = 0; l < in->n_loops; l++)
        f->loop_map[l] = -1;
    for (int i = 0; i < in->n_charts && chart < 0; i++)
        if (in->charts[i].cls == cls)
            f->chart_map[i] = add_chart(f, in->charts[i].name, in->charts[i].line,
                                        in->charts[i].column);
    for (int i = 0; i < in->n_modes && !f->failed; i++) {
        if (in->modes[i].cls != cls)
            continue;
        hy_mode_syn m = in->modes[i];
        m.cls = 0;
        m.chart = chart >= 0 ? chart : m.chart >= 0 ? f->chart_map[m.chart] : -1;
        m.entry = copy_stmts(f, m.entry, prefix);
        m.exit = copy_stmts(f, m.exit, prefix);
        if (f->failed
            || hy_grow((void **)&out->modes, &out->cap_modes, out->n_modes + 1, sizeof *out->modes)) {
            nomem(f);
            return;
        }
        f->mode_map[i] = out->n_modes;
        out->modes[out->n_modes++] = m;
    }
    for (int i = 0; i < in->n_transitions && !f->failed; i++) {
        if (in->transitions[i].cls != cls)
            continue;
        hy_transition_syn t = in->transitions[i];
        t.cls = 0;
        t.chart = chart >= 0 ? chart : t.chart >= 0 ? f->chart_map[t.chart] : -1;
        t.when = copy_expr(f, t.when, prefix);
        t.actions = copy_stmts(f, t.actions, prefix);
        if (f->failed
            || hy_grow((void **)&out->transitions, &out->cap_transitions, out->n_transitions + 1,
                       sizeof *out->transitions)) {
            nomem(f);
            return;
        }
        out->transitions[out->n_transitions++] = t;
    }
    for (int i = 0; i < in->n_settings && chart < 0 && !f->failed; i++) {
        if (in->settings[i].cls != cls)
            continue;
        hy_setting_syn st = in->settings[i];
        st.cls = 0;
        st.value = copy_expr(f, st.value, -1);
        if (f->failed
            || hy_grow((void **)&out->settings, &out->cap_settings, out->n_settings + 1,
                       sizeof *out->settings)) {
            nomem(f);
            return;
        }
        out->settings[out->n_settings++] = st;
    }
}

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
            error_at(f, line, column, "modifier '%s' of a component array: write a list {a, "
                     "b, ...} or one value for all (a comprehension is not supported here)",
                     text(f, name));
        return -1;
    }
    if (v->op != SYN_ARRAY)
        return 0;
    if (v->var != n) {
        if (k == 1)
            error_at(f, line, column, "modifier '%s' has %d values for %ld components",
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
    int type = find_class(f, d->type_name, d->cls, d->line, d->column);
    if (type < 0) {
        if (type == -1)
            error_at(f, d->line, d->column, "unknown class '%s' (of component '%s')",
                     text(f, d->type_name), text(f, d->name));
        return;
    }
    if (type == f->in->top) {
        error_at(f, d->line, d->column, "'%s' is the model being simulated (the last in the "
                 "file): it cannot also be a component", text(f, d->type_name));
        return;
    }
    const hy_class_syn *c = &f->in->classes[type];
    if (!f->class_refused[type])
        refuse_component_elements(f, type);
    int in_mode = d->mode >= 0 ? f->mode_map[d->mode] : f->inst_mode;
    if (in_mode >= 0 && class_has_modes(f, type)) {
        error_at(f, d->line, d->column, "component '%s' has modes of its own and is declared in "
                 "a mode: a chart inside a mode (hierarchical states) is not supported yet",
                 text(f, d->name));
        return;
    }
    int name = k > 0 ? element_id(f, d->name, k) : d->name;
    int inner = name < 0 ? -1 : instance_prefix(f, prefix, name);
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
            nomem(f);
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
        connector_inst ci = { prefixed(f, prefix, name), type, in_mode };
        if (hy_grow((void **)&f->connectors, &f->cap_connectors, f->n_connectors + 1,
                    sizeof *f->connectors))
            nomem(f);
        else
            f->connectors[f->n_connectors++] = ci;
    }
    if (!f->failed && class_has_modes(f, type)) {
        int chart_name = prefixed(f, prefix, name);
        if (chart_name >= 0)
            copy_elements(f, type, inner, add_chart(f, chart_name, d->line, d->column));
    }
    int outer_mode = f->inst_mode;
    f->inst_mode = in_mode; /* its declarations and equations live in that mode */
    if (!f->failed)
        instantiate(f, type, inner, pushed_from, pushed_to);
    f->inst_mode = outer_mode;
    for (int i = pushed_from; i < pushed_to && !f->failed; i++)
        if (!f->mods[i].used && f->mods[i].origin < 0)
            error_at(f, f->mods[i].line, f->mods[i].column, "class '%s' has no parameter or "
                     "variable '%s' (modifier of component '%s')", text(f, c->name),
                     text(f, f->mods[i].name), text(f, d->name));
    f->n_mods = pushed_from;
}

/* A component array: its elements d[1] .. d[n], and a declaration of its
** size for hy_unroll (J[i].w in equations and loops). */
static void instantiate_array(flattener *f, const hy_decl *d, int prefix, int mods_from,
                              int mods_to)
{
    long n = 0;
    f->eval_prefix = prefix;
    if (array_size(f, d, &n))
        return;
    hy_decl marker = *d;
    marker.cls = 0;
    marker.mode = d->mode >= 0 ? f->mode_map[d->mode] : f->inst_mode;
    marker.mod_count = 0;
    marker.name = prefixed(f, prefix, d->name);
    int size = hy_syntax_add_node(f->out, SYN_NUM, d->line, d->column, -1, -1, -1);
    if (size < 0 || marker.name < 0) {
        nomem(f);
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
        error_at(f, d->line, d->column, "'flow' belongs in a connector ('%s' is in %s '%s')",
                 text(f, d->name), f->in->classes[d->cls].kind == CLASS_BLOCK ? "block" : "model",
                 text(f, f->in->classes[d->cls].name));
        return;
    }
    hy_decl out = *d;
    out.cls = 0;
    /* A component declared in a mode has its unknowns there; its
    ** parameters, constants and discrete variables are the model's. */
    out.mode = d->mode >= 0 ? f->mode_map[d->mode]
               : d->kind == DECL_VARIABLE ? f->inst_mode : -1;
    out.name = prefixed(f, prefix, d->name);
    modifier *m = find_mod(f, mods_from, mods_to, d->name);
    if (m) {
        for (int i = (int)(m - f->mods); i < mods_to; i++)
            if (f->mods[i].name == d->name)
                mark_used(f, i); /* the first wins; those it overrides are not errors */
        out.value = copy_expr(f, m->value, m->scope_prefix);
        out.value_line = m->line;
        out.value_column = m->column;
    } else {
        out.value = copy_expr(f, d->value, prefix);
    }
    out.rtol = copy_expr(f, d->rtol, prefix);
    out.atol = copy_expr(f, d->atol, prefix);
    out.size = copy_expr(f, d->size, prefix);
    if (f->inst_mode >= 0 && out.mode < 0 && out.name >= 0)
        for (int i = 0; i < f->out->n_decls; i++)
            if (f->out->decls[i].name == out.name && f->out->decls[i].mode < 0)
                return; /* a component in several modes: one set of parameters, the first's */
    if (!f->failed && out.name >= 0)
        push_decl(f, &out);
}

/* Resolve connect()'s argument `name` in class cls at prefix. */
static int connect_end_of(flattener *f, int cls, int prefix, int name, int line, int column,
                          connect_end *end)
{
    const char *path = text(f, name);
    int cur = cls, depth = 0, cur_prefix = prefix; /* the instance of class cur */
    for (;;) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);
        const char *bracket = memchr(path, '[', len); /* "J[2]": an array's element */
        long index = bracket ? strtol(bracket + 1, NULL, 10) : 0;
        int segment = hy_strtab_intern(f->strings, path, bracket ? (size_t)(bracket - path) : len);
        if (segment < 0)
            return nomem(f);
        int decl = find_decl(f, cur, segment);
        const hy_decl *d = decl >= 0 ? &f->in->decls[decl] : NULL;
        int type = d && d->kind == DECL_COMPONENT
                       ? find_class(f, d->type_name, d->cls, line, column) : -1;
        if (type >= 0 && (bracket != NULL) != (d->size.root >= 0)) {
            error_at(f, line, column, bracket ? "connect(): '%s' is not an array of components"
                                              : "connect(): '%s' is an array of components: "
                                                "connect one of them ('%s[1]')",
                     text(f, segment), text(f, segment));
            return -1;
        }
        long size = 0;
        f->eval_prefix = cur_prefix;
        if (type >= 0 && bracket && array_size(f, d, &size) == 0
            && (index < 1 || index > size)) {
            error_at(f, line, column, "connect(): index %ld of '%s' is outside 1 .. %ld", index,
                     text(f, segment), size);
            return -1;
        }
        if (type < 0) {
            error_at(f, line, column, "connect(): '%s' is not a connector (no component '%s' "
                     "in class '%s')", text(f, name), text(f, segment),
                     text(f, f->in->classes[cur].name));
            return -1;
        }
        depth++;
        if (f->in->classes[type].kind == CLASS_CONNECTOR) {
            if (dot) {
                error_at(f, line, column, "connect(): '%s' goes inside connector '%.*s'",
                         text(f, name), (int)(dot - text(f, name)), text(f, name));
                return -1;
            }
            end->name = prefixed(f, prefix, name);
            end->cls = type;
            end->inside = depth > 1;
            return end->name < 0 ? -1 : 0;
        }
        if (!dot) {
            error_at(f, line, column, "connect(): '%s' is a component of class '%s', not a "
                     "connector", text(f, name), text(f, f->in->classes[type].name));
            return -1;
        }
        cur = type;
        int segment_with_index = hy_strtab_intern(f->strings, path, len);
        cur_prefix = segment_with_index < 0 ? -1
                                            : instance_prefix(f, cur_prefix, segment_with_index);
        if (cur_prefix < 0)
            return nomem(f);
        path = dot + 1;
    }
}

/* Two connector classes with the same variables (names, flow or not) in
** the same order connect (a RealOutput to a RealInput). */
static int same_variables(const flattener *f, int x, int y)
{
    if (f->n_class_decls[x] != f->n_class_decls[y])
        return 0;
    for (int k = 0; k < f->n_class_decls[x]; k++) {
        const hy_decl *dx = &f->in->decls[f->class_decls[x][k]];
        const hy_decl *dy = &f->in->decls[f->class_decls[y][k]];
        if (dx->name != dy->name || dx->kind != dy->kind || dx->is_flow != dy->is_flow)
            return 0;
    }
    return 1;
}

/* connect()'s argument: name itself, or "name[k]" and ".member" for an
** element of a component array, k from index with the loops' values. */
static int end_name(flattener *f, int cls, int name, hy_expr_ref index, int member)
{
    if (index.root < 0)
        return name;
    long k = 0;
    char what[200];
    snprintf(what, sizeof what, "index of '%s' in connect()", text(f, name));
    if (integer_in_class(f, cls, index, what, 1, HY_FLATTEN_MAX_ARRAY, &k))
        return -1;
    int id = element_id(f, name, k);
    if (id >= 0 && member >= 0) {
        id = hy_strtab_intern_join(f->strings, text(f, id), ".", text(f, member));
        if (id < 0)
            return nomem(f);
    }
    return id;
}

static void connect_once(flattener *f, int cls, int prefix, const hy_equation_syn *eq)
{
    f->eval_prefix = prefix;
    int name_a = end_name(f, cls, eq->connect_a, eq->connect_a_index, eq->connect_a_member);
    int name_b = end_name(f, cls, eq->connect_b, eq->connect_b_index, eq->connect_b_member);
    if (name_a < 0 || name_b < 0)
        return;
    connection c;
    memset(&c, 0, sizeof c);
    c.line = eq->line;
    c.column = eq->column;
    c.mode = f->connect_mode;
    if (connect_end_of(f, cls, prefix, name_a, eq->line, eq->column, &c.a)
        || connect_end_of(f, cls, prefix, name_b, eq->b_line, eq->b_column, &c.b))
        return;
    if (c.a.cls != c.b.cls && !same_variables(f, c.a.cls, c.b.cls)) {
        error_at(f, eq->line, eq->column, "connect(%s, %s): a '%s' cannot be connected to a "
                 "'%s'", text(f, name_a), text(f, name_b),
                 text(f, f->in->classes[c.a.cls].name), text(f, f->in->classes[c.b.cls].name));
        return;
    }
    if (hy_grow((void **)&f->connections, &f->cap_connections, f->n_connections + 1,
                sizeof *f->connections))
        nomem(f);
    else
        f->connections[f->n_connections++] = c;
}

/* connect() inside loops: once for every value of loop (and, inside it,
** of the loops it encloses down to the connect's own). */
static void connect_in_loops(flattener *f, int cls, int prefix, const hy_equation_syn *eq,
                             const int *chain, int depth)
{
    if (depth < 0) {
        connect_once(f, cls, prefix, eq);
        return;
    }
    const hy_loop_syn *l = &f->in->loops[chain[depth]];
    long lo = 0, hi = -1;
    f->eval_prefix = prefix;
    if (integer_in_class(f, cls, l->from, "start of the loop range", -HY_FLATTEN_MAX_ARRAY,
                         HY_FLATTEN_MAX_ARRAY, &lo)
        || integer_in_class(f, cls, l->to, "end of the loop range", -HY_FLATTEN_MAX_ARRAY,
                            HY_FLATTEN_MAX_ARRAY, &hi))
        return;
    if (hy_grow((void **)&f->values, &f->cap_values, f->n_values + 1, sizeof *f->values)) {
        nomem(f);
        return;
    }
    int slot = f->n_values++;
    f->values[slot].var = l->var;
    for (long v = lo; v <= hi && !f->failed; v++) {
        int n_errors = f->diag->n_errors;
        f->values[slot].value = (double)v;
        connect_in_loops(f, cls, prefix, eq, chain, depth - 1);
        if (f->diag->n_errors > n_errors)
            break; /* one report per loop */
    }
    f->n_values = slot;
}

static void collect_connection(flattener *f, int cls, int prefix, const hy_equation_syn *eq)
{
    f->connect_mode = eq->mode >= 0 ? f->mode_map[eq->mode] : f->inst_mode;
    int chain[64], n = 0; /* the enclosing loops, innermost first */
    for (int l = eq->loop; l >= 0; l = f->in->loops[l].parent) {
        if (n == 64) {
            error_at(f, eq->line, eq->column, "connect() inside more than 64 nested loops");
            return;
        }
        chain[n++] = l;
    }
    connect_in_loops(f, cls, prefix, eq, chain, n - 1);
}

static void copy_equation(flattener *f, const hy_equation_syn *eq, int prefix)
{
    hy_equation_syn out = *eq;
    out.cls = 0;
    out.mode = eq->mode >= 0 ? f->mode_map[eq->mode] : f->inst_mode;
    int n_bound = f->n_bound;
    if (bind_loops(f, eq->loop))
        return;
    out.loop = map_loop(f, eq->loop, prefix);
    if (eq->output_name >= 0)
        out.output_name = prefixed(f, prefix, eq->output_name);
    out.output_index = copy_expr(f, eq->output_index, prefix);
    out.lhs = copy_expr(f, eq->lhs, prefix);
    out.rhs = copy_expr(f, eq->rhs, prefix);
    f->n_bound = n_bound;
    hy_syntax *o = f->out;
    if (f->failed)
        return;
    if (hy_grow((void **)&o->equations, &o->cap_equations, o->n_equations + 1,
                sizeof *o->equations)) {
        nomem(f);
        return;
    }
    o->equations[o->n_equations++] = out;
}

static int instantiate(flattener *f, int cls, int prefix, int mods_from, int mods_to)
{
    if (f->depth >= HY_FLATTEN_MAX_DEPTH) {
        const hy_class_syn *c = &f->in->classes[cls];
        error_at(f, c->line, c->column, "components nested deeper than %d levels (does class "
                 "'%s' contain itself?)", HY_FLATTEN_MAX_DEPTH, text(f, c->name));
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
        if (eq->connect_a >= 0)
            collect_connection(f, cls, prefix, eq);
        else
            copy_equation(f, eq, prefix);
    }
    f->depth--;
    return f->failed ? -1 : 0;
}

/* ---------------------------------------------------------------- */
/* Connection sets                                                  */

/* Union-find root of element i. */
static int set_root(int *parent, int i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static int add_node(flattener *f, hy_syn_op op, int line, int column, int a, int b, int name)
{
    int node = hy_syntax_add_node(f->out, op, line, column, a, b, -1);
    if (node < 0)
        return nomem(f);
    f->out->nodes[node].name = name;
    return node;
}

/* The node of connector end's variable `var` (a name node). */
static int end_var(flattener *f, const connect_end *end, int var, int line, int column)
{
    int id = hy_strtab_intern_join(f->strings, text(f, end->name), ".", text(f, var));
    return id < 0 ? nomem(f) : add_node(f, SYN_NAME, line, column, -1, -1, id);
}

static void push_equation(flattener *f, int first, int lhs, int rhs, int line, int column,
                          int mode)
{
    hy_syntax *o = f->out;
    if (lhs < 0 || rhs < 0 || f->failed)
        return;
    if (hy_grow((void **)&o->equations, &o->cap_equations, o->n_equations + 1,
                sizeof *o->equations)) {
        nomem(f);
        return;
    }
    hy_equation_syn eq;
    memset(&eq, 0, sizeof eq);
    eq.lhs.first = first;
    eq.lhs.root = lhs;
    eq.rhs.first = lhs + 1;
    eq.rhs.root = rhs;
    eq.line = line;
    eq.column = column;
    eq.mode = mode;
    eq.output_name = eq.connect_a = eq.connect_b = -1;
    eq.output_index.root = -1;
    eq.loop = -1;
    o->equations[o->n_equations++] = eq;
}

/* One set's equations: e[0].v = e[k].v for each potential v, and the sum
** of the flows (inside +, outside -) = 0. */
static void set_equations(flattener *f, const connect_end *ends, int n, int line, int column,
                          int mode)
{
    int cls = ends[0].cls;
    for (int k = 0; k < f->n_class_decls[cls]; k++) {
        const hy_decl *d = &f->in->decls[f->class_decls[cls][k]];
        if (d->kind != DECL_VARIABLE)
            continue;
        if (!d->is_flow) {
            for (int i = 1; i < n; i++) {
                int first = f->out->n_nodes;
                int lhs = end_var(f, &ends[0], d->name, line, column);
                int rhs = end_var(f, &ends[i], d->name, line, column);
                push_equation(f, first, lhs, rhs, line, column, mode);
            }
            continue;
        }
        int first = f->out->n_nodes, sum = -1;
        for (int i = 0; i < n; i++) {
            int term = end_var(f, &ends[i], d->name, line, column);
            if (term < 0)
                return;
            if (sum < 0)
                sum = ends[i].inside ? term : add_node(f, SYN_NEG, line, column, term, -1, -1);
            else
                sum = add_node(f, ends[i].inside ? SYN_ADD : SYN_SUB, line, column, sum, term, -1);
            if (sum < 0)
                return;
        }
        int zero = add_node(f, SYN_NUM, line, column, -1, -1, -1);
        push_equation(f, first, sum, zero, line, column, mode);
    }
}

/* flow = 0 for every flow of connector ci (no connection reaches it from
** outside), in mode (-1: model level). */
static void open_connector(flattener *f, const connector_inst *ci, int mode)
{
    connect_end self = { ci->name, ci->cls, 1 };
    for (int j = 0; j < f->n_class_decls[ci->cls] && !f->failed; j++) {
        const hy_decl *d = &f->in->decls[f->class_decls[ci->cls][j]];
        if (d->kind != DECL_VARIABLE || !d->is_flow)
            continue;
        int first = f->out->n_nodes;
        int lhs = end_var(f, &self, d->name, d->line, d->column);
        int zero = add_node(f, SYN_NUM, d->line, d->column, -1, -1, -1);
        push_equation(f, first, lhs, zero, d->line, d->column, mode);
    }
}

static int same_end(const connect_end *x, const connect_end *y)
{
    return x->name == y->name && x->inside == y->inside;
}

/* The connection sets and their equations. Connections of no mode and
** connectors of components that always exist form the static sets, whose
** equations are the model's. A connection in a mode, or a connector of a
** component declared in one, is dynamic (seed 000, Fig. 4: connections
** that change): every set it touches is formed anew for each mode of that
** chart from the static connections and the mode's own, and its equations
** (and the flow = 0 of the connectors left open there) go into that mode.
** Sets touched from two charts would need one system per combination of
** their modes: refused. */
typedef struct set_work {
    connect_end *ends;       /* the distinct ends */
    int n;
    int *parent, *first_conn;
    int *key;                /* by end, then by static root: -1 static, chart + 1, -2 both */
    int *mode_of;            /* by end: the mode its connector exists in, -1 always,
                                -2 several (a component in several modes) */
    connect_end *members;
} set_work;

/* The index of end e, added when new (c: the connection it came from). */
static int end_index(set_work *w, const connect_end *e, int c)
{
    for (int i = 0; i < w->n; i++)
        if (same_end(&w->ends[i], e))
            return i;
    w->ends[w->n] = *e;
    w->parent[w->n] = w->n;
    w->first_conn[w->n] = c;
    w->key[w->n] = -1;
    w->mode_of[w->n] = -1;
    return w->n++;
}

/* Does end i's connector exist in mode? */
static int present(const flattener *f, const set_work *w, int i, int mode)
{
    if (w->mode_of[i] != -2)
        return w->mode_of[i] < 0 || w->mode_of[i] == mode;
    for (int k = 0; k < f->n_connectors; k++)
        if (f->connectors[k].name == w->ends[i].name && f->connectors[k].mode == mode)
            return 1;
    return 0;
}

static int chart_key(const flattener *f, int mode)
{
    return mode < 0 ? -1 : f->out->modes[mode].chart + 1;
}

/* The sets of partition `parent` with a member in region (by static root
** key == want, or all when want is -1 and the key is -1), present in mode
** (ends of connectors of other modes left out), into mode's equations. */
static void emit_sets(flattener *f, set_work *w, const int *static_root, int want, int mode)
{
    for (int r = 0; r < w->n && !f->failed; r++) {
        if (set_root(w->parent, r) != r || w->key[static_root[r]] != want)
            continue;
        int m = 0;
        for (int i = 0; i < w->n; i++)
            if (set_root(w->parent, i) == r && present(f, w, i, mode))
                w->members[m++] = w->ends[i];
        if (m < 2)
            continue;
        const connection *at = &f->connections[w->first_conn[r] >= 0 ? w->first_conn[r] : 0];
        set_equations(f, w->members, m, at->line, at->column, mode);
    }
}

/* Is connector ci's inside end in a set of two or more of partition parent? */
static int reached(const flattener *f, const set_work *w, int *parent, const connector_inst *ci,
                   int mode)
{
    for (int i = 0; i < w->n; i++) {
        if (w->ends[i].name != ci->name || !w->ends[i].inside)
            continue;
        int r = set_root(parent, i);
        for (int j = 0; j < w->n; j++)
            if (j != i && set_root(parent, j) == r && present(f, w, j, mode))
                return 1;
    }
    return 0;
}

static void connection_sets(flattener *f)
{
    int cap = 2 * f->n_connections + f->n_connectors + 1;
    set_work w;
    memset(&w, 0, sizeof w);
    w.ends = hy_calloc((size_t)cap, sizeof *w.ends);
    w.members = hy_calloc((size_t)cap, sizeof *w.members);
    w.parent = hy_calloc((size_t)cap, sizeof *w.parent);
    w.first_conn = hy_calloc((size_t)cap, sizeof *w.first_conn);
    w.key = hy_calloc((size_t)cap, sizeof *w.key);
    w.mode_of = hy_calloc((size_t)cap, sizeof *w.mode_of);
    int *static_root = hy_calloc((size_t)cap, sizeof *static_root);
    if (!w.ends || !w.members || !w.parent || !w.first_conn || !w.key || !w.mode_of
        || !static_root) {
        nomem(f);
        goto done;
    }
    /* The ends, the static partition, what is dynamic and in which chart. */
    for (int c = 0; c < f->n_connections; c++) {
        const connection *cn = &f->connections[c];
        int a = end_index(&w, &cn->a, c), b = end_index(&w, &cn->b, c);
        if (cn->mode < 0) {
            int ra = set_root(w.parent, a), rb = set_root(w.parent, b);
            if (ra != rb)
                w.parent[rb] = ra;
        }
    }
    for (int k = 0; k < f->n_connectors; k++) {
        const connector_inst *ci = &f->connectors[k];
        connect_end self = { ci->name, ci->cls, 1 };
        int i = end_index(&w, &self, -1);
        int seen = 0; /* an instance of this name met already (a component in two modes) */
        for (int j = 0; j < k && !seen && ci->mode >= 0; j++)
            seen = f->connectors[j].name == ci->name;
        for (int j = 0; j < w.n; j++) /* its outside end too: the same connector */
            if (w.ends[j].name == ci->name)
                w.mode_of[j] = !seen || w.mode_of[j] == ci->mode ? ci->mode
                               : w.mode_of[j] == -1 || ci->mode == -1 ? -1 : -2;
        (void)i;
    }
    int conflict = 0;
    for (int i = 0; i < w.n; i++)
        static_root[i] = set_root(w.parent, i);
    for (int i = 0; i < w.n; i++)
        w.key[i] = -1;
    for (int pass = 0; pass < 2; pass++) /* dynamic ends: in a mode's connection or connector */
        for (int i = 0; i < w.n; i++) {
            int key = -1;
            if (pass == 0 && w.mode_of[i] >= 0)
                key = chart_key(f, w.mode_of[i]);
            for (int c = 0; pass == 1 && c < f->n_connections; c++) {
                const connection *cn = &f->connections[c];
                if (cn->mode >= 0 && (same_end(&cn->a, &w.ends[i]) || same_end(&cn->b, &w.ends[i])))
                    key = key == -1 || key == chart_key(f, cn->mode) ? chart_key(f, cn->mode) : -2;
            }
            if (key == -1)
                continue;
            int *at = &w.key[static_root[i]];
            if (*at == -1 || *at == key)
                *at = key;
            else
                *at = -2;
        }
    for (int i = 0; i < w.n && !conflict; i++)
        if (w.key[static_root[i]] == -2) {
            const connection *at = &f->connections[w.first_conn[i] >= 0 ? w.first_conn[i] : 0];
            error_at(f, at->line, at->column, "connections of modes of two charts reach the "
                     "connection set of '%s': each set may change with the modes of one chart",
                     text(f, w.ends[i].name));
            conflict = 1;
        }
    if (conflict)
        goto done;
    /* Static sets and open connectors: the model's equations. */
    emit_sets(f, &w, static_root, -1, -1);
    for (int k = 0; k < f->n_connectors && !f->failed; k++) {
        const connector_inst *ci = &f->connectors[k];
        int dynamic = 0;
        for (int i = 0; i < w.n && !dynamic; i++)
            dynamic = w.ends[i].name == ci->name && w.key[static_root[i]] != -1;
        if (!dynamic && ci->mode < 0 && !reached(f, &w, w.parent, ci, -1))
            open_connector(f, ci, -1);
    }
    /* Each mode of a chart with dynamic sets: those sets as they are there. */
    int *mode_parent = hy_calloc((size_t)cap, sizeof *mode_parent);
    if (!mode_parent) {
        nomem(f);
        goto done;
    }
    for (int m = 0; m < f->out->n_modes && !f->failed; m++) {
        int key = chart_key(f, m), used = 0;
        for (int i = 0; i < w.n && !used; i++)
            used = w.key[static_root[i]] == key;
        if (!used)
            continue;
        for (int i = 0; i < w.n; i++)
            mode_parent[i] = i;
        for (int c = 0; c < f->n_connections; c++) {
            const connection *cn = &f->connections[c];
            if (cn->mode >= 0 && cn->mode != m)
                continue;
            int a = end_index(&w, &cn->a, c), b = end_index(&w, &cn->b, c);
            if (w.key[static_root[a]] != key)
                continue;
            int ra = set_root(mode_parent, a), rb = set_root(mode_parent, b);
            if (ra != rb)
                mode_parent[rb] = ra;
        }
        int *saved = w.parent;
        w.parent = mode_parent;
        emit_sets(f, &w, static_root, key, m);
        for (int k = 0; k < f->n_connectors && !f->failed; k++) {
            const connector_inst *ci = &f->connectors[k];
            int in_region = 0;
            for (int i = 0; i < w.n && !in_region; i++)
                in_region = w.ends[i].name == ci->name && w.key[static_root[i]] == key;
            if (in_region && (ci->mode < 0 || ci->mode == m) && !reached(f, &w, mode_parent, ci, m))
                open_connector(f, ci, m);
        }
        w.parent = saved;
    }
    hy_free(mode_parent);
done:
    hy_free(w.ends);
    hy_free(w.members);
    hy_free(w.parent);
    hy_free(w.first_conn);
    hy_free(w.key);
    hy_free(w.mode_of);
    hy_free(static_root);
}

/* ---------------------------------------------------------------- */

static int needs_flattening(const hy_syntax *s)
{
    if (s->n_classes > 1)
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
        return nomem(f);
    int *caps_d = hy_calloc((size_t)n, sizeof *caps_d), *caps_e = hy_calloc((size_t)n, sizeof *caps_e);
    int rc = caps_d && caps_e ? 0 : nomem(f);
    for (int i = 0; i < in->n_decls && rc == 0; i++) {
        int c = in->decls[i].cls;
        if (hy_grow((void **)&f->class_decls[c], &caps_d[c], f->n_class_decls[c] + 1, sizeof(int)))
            rc = nomem(f);
        else
            f->class_decls[c][f->n_class_decls[c]++] = i;
    }
    for (int i = 0; i < in->n_equations && rc == 0; i++) {
        int c = in->equations[i].cls;
        if (hy_grow((void **)&f->class_eqs[c], &caps_e[c], f->n_class_eqs[c] + 1, sizeof(int)))
            rc = nomem(f);
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
        copy_elements(&f, syntax->top, -1, -1);
        if (instantiate(&f, syntax->top, -1, 0, 0) == 0)
            connection_sets(&f);
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
