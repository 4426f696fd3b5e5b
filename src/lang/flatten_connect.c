/*
** Components and connections flattened into one model (flatten.h),
** connections: each connect() is resolved to its two connector ends (an
** end reached through a component of the class is inside), once for
** every value of the loops around it; after the walk the ends are
** partitioned into connection sets (union-find), statically and, for
** connections or connectors that exist in a mode, per mode of that
** chart, and each set becomes equations (Modelica 3.6, section 9.2:
** potentials equal, the sum of the inside flows minus the outside flows
** = 0); a connector no connection reaches from outside gets flow = 0.
*/
#include "lang/flatten_internal.h"

#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- */
/* connect(): its ends, in loops                                    */

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
            return flatten_nomem(f);
        int decl = flatten_find_decl(f, cur, segment);
        const hy_decl *d = decl >= 0 ? &f->in->decls[decl] : NULL;
        int type = d && d->kind == DECL_COMPONENT
                       ? flatten_find_class(f, d->type_name, d->cls, line, column) : -1;
        if (type >= 0 && (bracket != NULL) != (d->size.root >= 0)) {
            flatten_error_at(f, line, column,
                             bracket ? "connect(): '%s' is not an array of components"
                                     : "connect(): '%s' is an array of components: "
                                       "connect one of them ('%s[1]')",
                             text(f, segment), text(f, segment));
            return -1;
        }
        long size = 0;
        f->eval_prefix = cur_prefix;
        if (type >= 0 && bracket && flatten_array_size(f, d, &size) == 0
            && (index < 1 || index > size)) {
            flatten_error_at(f, line, column, "connect(): index %ld of '%s' is outside 1 .. %ld",
                             index, text(f, segment), size);
            return -1;
        }
        if (type < 0) {
            flatten_error_at(f, line, column, "connect(): '%s' is not a connector (no "
                             "component '%s' in class '%s')", text(f, name), text(f, segment),
                             text(f, f->in->classes[cur].name));
            return -1;
        }
        depth++;
        if (f->in->classes[type].kind == CLASS_CONNECTOR) {
            if (dot) {
                flatten_error_at(f, line, column, "connect(): '%s' goes inside connector '%.*s'",
                                 text(f, name), (int)(dot - text(f, name)), text(f, name));
                return -1;
            }
            end->name = flatten_prefixed(f, prefix, name);
            end->cls = type;
            end->inside = depth > 1;
            return end->name < 0 ? -1 : 0;
        }
        if (!dot) {
            flatten_error_at(f, line, column, "connect(): '%s' is a component of class '%s', "
                             "not a connector", text(f, name), text(f, f->in->classes[type].name));
            return -1;
        }
        cur = type;
        int segment_with_index = hy_strtab_intern(f->strings, path, len);
        cur_prefix = segment_with_index < 0
                         ? -1 : flatten_instance_prefix(f, cur_prefix, segment_with_index);
        if (cur_prefix < 0)
            return flatten_nomem(f);
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
    if (flatten_integer_in_class(f, cls, index, what, 1, HY_FLATTEN_MAX_ARRAY, &k))
        return -1;
    int id = flatten_element_id(f, name, k);
    if (id >= 0 && member >= 0) {
        id = hy_strtab_intern_join(f->strings, text(f, id), ".", text(f, member));
        if (id < 0)
            return flatten_nomem(f);
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
        flatten_error_at(f, eq->line, eq->column, "connect(%s, %s): a '%s' cannot be connected "
                         "to a '%s'", text(f, name_a), text(f, name_b),
                         text(f, f->in->classes[c.a.cls].name),
                         text(f, f->in->classes[c.b.cls].name));
        return;
    }
    if (hy_grow((void **)&f->connections, &f->cap_connections, f->n_connections + 1,
                sizeof *f->connections))
        flatten_nomem(f);
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
    if (flatten_integer_in_class(f, cls, l->from, "start of the loop range",
                                 -HY_FLATTEN_MAX_ARRAY, HY_FLATTEN_MAX_ARRAY, &lo)
        || flatten_integer_in_class(f, cls, l->to, "end of the loop range",
                                    -HY_FLATTEN_MAX_ARRAY, HY_FLATTEN_MAX_ARRAY, &hi))
        return;
    if (hy_grow((void **)&f->values, &f->cap_values, f->n_values + 1, sizeof *f->values)) {
        flatten_nomem(f);
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

void flatten_collect_connection(flattener *f, int cls, int prefix, const hy_equation_syn *eq)
{
    f->connect_mode = eq->mode >= 0 ? f->mode_map[eq->mode] : f->inst_mode;
    int chain[64], n = 0; /* the enclosing loops, innermost first */
    for (int l = eq->loop; l >= 0; l = f->in->loops[l].parent) {
        if (n == 64) {
            flatten_error_at(f, eq->line, eq->column, "connect() inside more than 64 nested loops");
            return;
        }
        chain[n++] = l;
    }
    connect_in_loops(f, cls, prefix, eq, chain, n - 1);
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
        return flatten_nomem(f);
    f->out->nodes[node].name = name;
    return node;
}

/* The node of connector end's variable `var` (a name node). */
static int end_var(flattener *f, const connect_end *end, int var, int line, int column)
{
    int id = hy_strtab_intern_join(f->strings, text(f, end->name), ".", text(f, var));
    return id < 0 ? flatten_nomem(f) : add_node(f, SYN_NAME, line, column, -1, -1, id);
}

static void push_equation(flattener *f, int first, int lhs, int rhs, int line, int column,
                          int mode)
{
    hy_syntax *o = f->out;
    if (lhs < 0 || rhs < 0 || f->failed)
        return;
    if (hy_grow((void **)&o->equations, &o->cap_equations, o->n_equations + 1,
                sizeof *o->equations)) {
        flatten_nomem(f);
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
    int *by_name[2];         /* by name id and inside: the end's index, or -1 */
    int n_names;
    int *head, *next, *count; /* sets as lists of their ends (emit_sets) */
    connect_end *members;
} set_work;

/* The index of end e, added when new (c: the connection it came from). */
static int end_index(set_work *w, const connect_end *e, int c)
{
    int *at = &w->by_name[e->inside ? 1 : 0][e->name];
    if (*at >= 0)
        return *at;
    w->ends[w->n] = *e;
    w->parent[w->n] = w->n;
    w->first_conn[w->n] = c;
    w->key[w->n] = -1;
    w->mode_of[w->n] = -1;
    return *at = w->n++;
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

/* The sets of partition `parent` whose static root has key `want`, with
** their ends present in mode (ends of connectors of other modes left out),
** into mode's equations; count[root] gets the present ends of each set. One
** pass to list the sets' ends, one to emit: linear in the ends. */
static void emit_sets(flattener *f, set_work *w, const int *static_root, int want, int mode)
{
    for (int i = 0; i < w->n; i++) {
        w->head[i] = -1;
        w->count[i] = 0;
    }
    for (int i = w->n - 1; i >= 0; i--) { /* each list in index order */
        if (w->key[static_root[i]] != want)
            continue;
        int r = set_root(w->parent, i);
        w->next[i] = w->head[r];
        w->head[r] = i;
        w->count[r] += present(f, w, i, mode);
    }
    for (int r = 0; r < w->n && !f->failed; r++) {
        if (w->count[r] < 2)
            continue;
        int m = 0;
        for (int i = w->head[r]; i >= 0; i = w->next[i])
            if (present(f, w, i, mode))
                w->members[m++] = w->ends[i];
        const connection *at = &f->connections[w->first_conn[r] >= 0 ? w->first_conn[r] : 0];
        set_equations(f, w->members, m, at->line, at->column, mode);
    }
}

/* Is connector ci (present in the mode) reached from outside in partition
** parent: its inside end in a set of two or more present ends (the counts
** of the last emit_sets)? */
static int reached(const set_work *w, const connector_inst *ci)
{
    int i = w->by_name[1][ci->name];
    return i >= 0 && w->count[set_root(w->parent, i)] >= 2;
}

/* The key of the static set of connector ci's ends (-1: static). */
static int connector_key(const set_work *w, const int *static_root, const connector_inst *ci)
{
    for (int side = 0; side < 2; side++) {
        int i = w->by_name[side][ci->name];
        if (i >= 0 && w->key[static_root[i]] != -1)
            return w->key[static_root[i]];
    }
    return -1;
}

/* Mark the static set of end i with chart key `key` (-2 when two charts). */
static void mark_key(set_work *w, const int *static_root, int i, int key)
{
    int *at = &w->key[static_root[i]];
    *at = *at == -1 || *at == key ? key : -2;
}

void flatten_connection_sets(flattener *f)
{
    int cap = 2 * f->n_connections + f->n_connectors + 1;
    set_work w;
    memset(&w, 0, sizeof w);
    w.n_names = f->strings->n_strings + 1;
    w.ends = hy_calloc((size_t)cap, sizeof *w.ends);
    w.members = hy_calloc((size_t)cap, sizeof *w.members);
    w.parent = hy_calloc((size_t)cap, sizeof *w.parent);
    w.first_conn = hy_calloc((size_t)cap, sizeof *w.first_conn);
    w.key = hy_calloc((size_t)cap, sizeof *w.key);
    w.mode_of = hy_calloc((size_t)cap, sizeof *w.mode_of);
    w.head = hy_calloc((size_t)cap, sizeof *w.head);
    w.next = hy_calloc((size_t)cap, sizeof *w.next);
    w.count = hy_calloc((size_t)cap, sizeof *w.count);
    w.by_name[0] = hy_alloc_array((size_t)w.n_names, sizeof(int));
    w.by_name[1] = hy_alloc_array((size_t)w.n_names, sizeof(int));
    int *name_mode = hy_alloc_array((size_t)w.n_names, sizeof(int));
    int *static_root = hy_calloc((size_t)cap, sizeof *static_root);
    int *mode_parent = hy_calloc((size_t)cap, sizeof *mode_parent);
    if (!w.ends || !w.members || !w.parent || !w.first_conn || !w.key || !w.mode_of || !w.head
        || !w.next || !w.count || !w.by_name[0] || !w.by_name[1] || !name_mode || !static_root
        || !mode_parent) {
        flatten_nomem(f);
        goto done;
    }
    for (int i = 0; i < w.n_names; i++) {
        w.by_name[0][i] = w.by_name[1][i] = -1;
        name_mode[i] = -3; /* no connector of that name (yet) */
    }
    /* The ends and the static partition. */
    for (int c = 0; c < f->n_connections; c++) {
        const connection *cn = &f->connections[c];
        int a = end_index(&w, &cn->a, c), b = end_index(&w, &cn->b, c);
        if (cn->mode < 0) {
            int ra = set_root(w.parent, a), rb = set_root(w.parent, b);
            if (ra != rb)
                w.parent[rb] = ra;
        }
    }
    /* The modes connectors exist in (one name may be a component of several
    ** modes: -2), given to both ends of the name. */
    for (int k = 0; k < f->n_connectors; k++) {
        const connector_inst *ci = &f->connectors[k];
        connect_end self = { ci->name, ci->cls, 1 };
        end_index(&w, &self, -1);
        int *nm = &name_mode[ci->name];
        *nm = *nm == -3 || *nm == ci->mode ? ci->mode : *nm == -1 || ci->mode == -1 ? -1 : -2;
    }
    for (int i = 0; i < w.n; i++) {
        int nm = name_mode[w.ends[i].name];
        w.mode_of[i] = nm == -3 ? -1 : nm;
        static_root[i] = set_root(w.parent, i);
        w.key[i] = -1;
    }
    /* What is dynamic, and in which chart: a connector of a mode, an end of
    ** a mode's connection. */
    for (int i = 0; i < w.n; i++)
        if (w.mode_of[i] >= 0)
            mark_key(&w, static_root, i, chart_key(f, w.mode_of[i]));
    for (int c = 0; c < f->n_connections; c++) {
        const connection *cn = &f->connections[c];
        if (cn->mode < 0)
            continue;
        mark_key(&w, static_root, end_index(&w, &cn->a, c), chart_key(f, cn->mode));
        mark_key(&w, static_root, end_index(&w, &cn->b, c), chart_key(f, cn->mode));
    }
    for (int i = 0; i < w.n; i++)
        if (w.key[static_root[i]] == -2) {
            const connection *at = &f->connections[w.first_conn[i] >= 0 ? w.first_conn[i] : 0];
            flatten_error_at(f, at->line, at->column, "connections of modes of two charts reach "
                             "the connection set of '%s': each set may change with the modes of "
                             "one chart", text(f, w.ends[i].name));
            goto done;
        }
    /* Static sets and open connectors: the model's equations. */
    emit_sets(f, &w, static_root, -1, -1);
    for (int k = 0; k < f->n_connectors && !f->failed; k++) {
        const connector_inst *ci = &f->connectors[k];
        if (ci->mode < 0 && connector_key(&w, static_root, ci) == -1 && !reached(&w, ci))
            open_connector(f, ci, -1);
    }
    /* Each mode of a chart with dynamic sets: those sets as they are there. */
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
            if (connector_key(&w, static_root, ci) == key && (ci->mode < 0 || ci->mode == m)
                && !reached(&w, ci))
                open_connector(f, ci, m);
        }
        w.parent = saved;
    }
done:
    hy_free(w.ends);
    hy_free(w.members);
    hy_free(w.parent);
    hy_free(w.first_conn);
    hy_free(w.key);
    hy_free(w.mode_of);
    hy_free(w.head);
    hy_free(w.next);
    hy_free(w.count);
    hy_free(w.by_name[0]);
    hy_free(w.by_name[1]);
    hy_free(name_mode);
    hy_free(static_root);
    hy_free(mode_parent);
}
