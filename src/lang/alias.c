/*
** Alias elimination for flattened models (alias.h): the equations that
** only say two model-level variables are equal or opposite (x = y,
** x = -y, x + y = 0, x - y = 0, the bulk of what connections and two-pin
** components produce) are removed with one of the two variables, and the
** trivial ones that fix a class of aliases to a number (x = 0 of a ground,
** an open connector's flow) with the whole class. The
** classes of aliases are found by union-find with signs (x = s r for the
** class's representative r); the representative is a state if the class
** has one (a class with two states keeps its equation: that is a
** constraint, not an alias), else a variable an action assigns, else the
** first declared. Every other expression has the eliminated names replaced
** by +-r (der(x) by +-der(r)), and each eliminated name becomes an output
** x = s r, so the results, guards and actions still see it.
*/
#include "lang/alias.h"

#include "core/core.h"

#include <math.h>
#include <string.h>

enum { PIN_SOFT = 1, PIN_HARD = 2 };

typedef struct aliases {
    hy_syntax *syn;
    hy_diag *diag;
    int der;                 /* the name id of der, or -1 */
    int n_names;
    int *decl_of;            /* by name: model-level scalar variable's decl + 1 */
    unsigned char *pinned;   /* by name: PIN_HARD, PIN_SOFT or 0 (mark_pinned) */
    int *parent;             /* by name: union-find parent (itself: a root) */
    signed char *sign;       /* by name: x = sign * parent */
    unsigned char *fixed;    /* by root: its class equals the expression value[root] */
    unsigned char *in_modes; /* by name, then by root: in a mode's equations */
    unsigned char *is_known; /* by name: a model-level parameter, constant or discrete */
    hy_expr_ref *value;
    int failed;
} aliases;

static int nomem(aliases *a)
{
    if (!a->failed)
        hy_diag_nomem(a->diag);
    a->failed = 1;
    return -1;
}

/* The root of x and the sign with x = *s root. */
static int find(const aliases *a, int x, int *s)
{
    *s = 1;
    while (a->parent[x] != x) {
        *s *= a->sign[x];
        x = a->parent[x];
    }
    return x;
}

static int variable(const aliases *a, const hy_syn *n)
{
    return n->op == SYN_NAME && n->name >= 0 && n->name < a->n_names && a->decl_of[n->name]
               ? n->name
               : -1;
}

/* A side that is a variable or its negation: the name, *s its sign. */
static int signed_variable(const aliases *a, int node, int *s)
{
    const hy_syn *n = &a->syn->nodes[node];
    *s = 1;
    if (n->op == SYN_NEG) {
        *s = -1;
        n = &a->syn->nodes[n->a];
    }
    return variable(a, n);
}

static int is_zero(const aliases *a, int node)
{
    const hy_syn *n = &a->syn->nodes[node];
    return n->op == SYN_NUM && n->value == 0.0;
}

/* An equation x = s y: 0 with *x, *y, *s set, or -1. */
static int alias_form(const aliases *a, const hy_equation_syn *eq, int *x, int *y, int *s)
{
    if (eq->mode >= 0 || eq->output_name >= 0 || eq->lhs.root < 0 || eq->rhs.root < 0)
        return -1;
    int lhs = eq->lhs.root, rhs = eq->rhs.root;
    if (is_zero(a, lhs)) {
        lhs = eq->rhs.root;
        rhs = eq->lhs.root;
    }
    int sx, sy;
    if (is_zero(a, rhs)) { /* x + y = 0 or x - y = 0, either one negated */
        const hy_syn *n = &a->syn->nodes[lhs];
        if (n->op != SYN_ADD && n->op != SYN_SUB)
            return -1;
        *x = signed_variable(a, n->a, &sx);
        *y = signed_variable(a, n->b, &sy);
        if (n->op == SYN_SUB)
            sy = -sy;
        *s = -sx * sy; /* sx x + sy y = 0 */
    } else {
        *x = signed_variable(a, lhs, &sx);
        *y = signed_variable(a, rhs, &sy);
        *s = sx * sy;
    }
    return *x >= 0 && *y >= 0 && *x != *y ? 0 : -1;
}

/* An expression of no unknown (numbers, parameters, constants, discrete
** variables, time, functions of them; no der): the value a trivial
** equation gives its variable. */
static int known(const aliases *a, hy_expr_ref e)
{
    const hy_syn *nodes = a->syn->nodes;
    for (int j = e.first; j <= e.root; j++) {
        const hy_syn *n = &nodes[j];
        switch (n->op) {
        case SYN_NUM: case SYN_TIME:
            break;
        case SYN_NAME:
            if (n->name < 0 || n->name >= a->n_names || !a->is_known[n->name])
                return 0;
            break;
        case SYN_CALL:
            if (n->name == a->der)
                return 0;
            break;
        case SYN_EVENT:
            return 0;
        default:
            if (n->op >= SYN_INDEX)
                return 0;
        }
    }
    return 1;
}

/* A trivial equation x = e (either side, x possibly negated, e of no
** unknown): 0 with *x, *sx and the side e set, or -1. */
static int trivial_form(const aliases *a, const hy_equation_syn *eq, int *x, int *sx,
                        hy_expr_ref *e)
{
    if (eq->mode >= 0 || eq->output_name >= 0 || eq->lhs.root < 0 || eq->rhs.root < 0)
        return -1;
    if ((*x = signed_variable(a, eq->lhs.root, sx)) >= 0 && known(a, eq->rhs))
        *e = eq->rhs;
    else if ((*x = signed_variable(a, eq->rhs.root, sx)) >= 0 && known(a, eq->lhs))
        *e = eq->lhs;
    else
        return -1;
    return 0;
}

/* sx x = e fixes x's class (x = s r, so r = s sx e) unless one of it is a state
** or assigned (pinned: the root is the most pinned of its class), appears
** in a mode's equations (they keep their unknowns, and a mode that says
** too much is said so by the checker), or the class is fixed already (the
** equation stays: redundant or contradictory, the checker says which). 0
** if it did, -1 if the equation stays. */
static int fix(aliases *a, int x, int sx, hy_expr_ref e)
{
    int s, root = find(a, x, &s);
    if (a->pinned[root] || a->fixed[root] || a->in_modes[root])
        return -1;
    a->fixed[root] = 1;
    a->sign[root] = (signed char)(s * sx); /* sx x = e and x = s root: root = s sx e */
    a->value[root] = e;
    return 0;
}

/* Join the classes of x and y by x = s y; 0, or -1 when the equation must
** stay (same class already, or two pinned roots). */
static int join(aliases *a, int x, int y, int s)
{
    int sx, sy;
    int rx = find(a, x, &sx), ry = find(a, y, &sy);
    if (rx == ry || (a->pinned[rx] == PIN_HARD && a->pinned[ry] == PIN_HARD)
        || a->fixed[rx] || a->fixed[ry])
        return -1;
    /* rx = k ry with k = s sy / sx = s sy sx (signs are +-1) */
    int k = s * sy * sx;
    int keep_x = a->pinned[rx] > a->pinned[ry]
                 || (a->pinned[rx] == a->pinned[ry] && a->decl_of[rx] < a->decl_of[ry]);
    if (keep_x) {
        a->parent[ry] = rx;
        a->sign[ry] = (signed char)k;
    } else {
        a->parent[rx] = ry;
        a->sign[rx] = (signed char)k;
    }
    return 0;
}

/* A state of the model level or a variable an action assigns is pinned
** hard (two of them joined are a constraint, the equation stays); one
** differentiated only in a mode's equations softly: it is the preferred
** representative, but x = y with a state y of the model level is an
** alias all the same, der(x) in the mode becoming der(y) (a component's
** der(b.w) = der(a.w) on the flanges of two inertias). */
static int mark_pinned(aliases *a)
{
    const hy_syntax *syn = a->syn;
    unsigned char *in_mode = hy_calloc((size_t)syn->n_nodes + 1, 1);
    if (!in_mode)
        return nomem(a);
    for (int i = 0; i < syn->n_equations; i++) {
        const hy_equation_syn *eq = &syn->equations[i];
        if (eq->mode < 0 || eq->output_name >= 0)
            continue;
        for (int j = eq->lhs.root >= 0 ? eq->lhs.first : 0; eq->lhs.root >= 0 && j <= eq->lhs.root; j++)
            in_mode[j] = 1;
        for (int j = eq->rhs.root >= 0 ? eq->rhs.first : 0; eq->rhs.root >= 0 && j <= eq->rhs.root; j++)
            in_mode[j] = 1;
    }
    for (int i = 0; i < syn->n_nodes; i++) {
        const hy_syn *n = &syn->nodes[i];
        if (in_mode[i] && variable(a, n) >= 0)
            a->in_modes[n->name] = 1;
        if (n->op == SYN_CALL && n->name == a->der && a->der >= 0 && n->a >= 0
            && variable(a, &syn->nodes[n->a]) >= 0) {
            unsigned char *pin = &a->pinned[syn->nodes[n->a].name];
            unsigned char level = in_mode[i] ? PIN_SOFT : PIN_HARD;
            if (*pin < level)
                *pin = level;
        }
    }
    hy_free(in_mode);
    for (int i = 0; i < syn->n_stmts; i++)
        if (!syn->stmts[i].is_raise && syn->stmts[i].target >= 0
            && syn->stmts[i].target < a->n_names)
            a->pinned[syn->stmts[i].target] = PIN_HARD;
    /* An FMU component's variables are shared by name with its chart. */
    for (int i = 0; i < syn->n_decls; i++)
        if (syn->decls[i].fmu_kind && syn->decls[i].kind == DECL_VARIABLE
            && syn->decls[i].name < a->n_names)
            a->pinned[syn->decls[i].name] = PIN_HARD;
    return 0;
}

static int eliminated(const aliases *a, int name)
{
    if (name < 0 || name >= a->n_names || !a->decl_of[name])
        return 0;
    int s;
    return a->parent[name] != name || a->fixed[find(a, name, &s)];
}

static int add_node(aliases *a, const hy_syn *like, hy_syn_op op, int operand, int name)
{
    int node = hy_syntax_add_node(a->syn, op, like->line, like->column, operand, -1, -1);
    if (node < 0)
        return nomem(a);
    a->syn->nodes[node].name = name;
    return node;
}

/* A copy of the expression of a fixed class for x = s r (negated when s
** times the root's sign is -1), at the end of the arena: its root. */
static int fixed_node(aliases *a, int s, int root)
{
    hy_expr_ref e = a->value[root];
    int first = e.first;
    int base = a->syn->n_nodes, shift = base - first;
    for (int j = first; j <= e.root; j++) {
        if (hy_grow((void **)&a->syn->nodes, &a->syn->cap_nodes, a->syn->n_nodes + 1,
                    sizeof *a->syn->nodes))
            return nomem(a);
        hy_syn node = a->syn->nodes[j];
        node.a = node.a >= first ? node.a + shift : node.a;
        node.b = node.b >= first ? node.b + shift : node.b;
        node.c = node.c >= first ? node.c + shift : node.c;
        a->syn->nodes[a->syn->n_nodes++] = node;
    }
    int made = a->syn->n_nodes - 1;
    if (s * a->sign[root] < 0)
        made = add_node(a, &a->syn->nodes[made], SYN_NEG, made, -1);
    return made;
}

/* e with eliminated names replaced by +-root, copied to the end of the
** arena (unchanged when it has none). A negation follows its operand at
** once, so every operand's nodes stay one range, before the next
** operand's (compile_trigger splits a relation that way); der(x) of a
** negated x is -der(r). */
static hy_expr_ref rewrite(aliases *a, hy_expr_ref e)
{
    if (e.root < 0 || a->failed)
        return e;
    int any = 0;
    for (int j = e.first; j <= e.root && !any; j++)
        any = a->syn->nodes[j].op == SYN_NAME && eliminated(a, a->syn->nodes[j].name);
    if (!any)
        return e;
    size_t n = (size_t)(e.root - e.first + 1);
    int *map = hy_alloc_array(n, sizeof *map);
    unsigned char *negated = hy_calloc(n, 1);     /* der(x)'s x: -r, written later */
    unsigned char *der_argument = hy_calloc(n, 1);
    hy_expr_ref out = { a->syn->n_nodes, -1 };
    if (!map || !negated || !der_argument) {
        nomem(a);
        goto done;
    }
    for (int j = e.first; j <= e.root; j++) {
        const hy_syn *node = &a->syn->nodes[j];
        if (node->op == SYN_CALL && node->name == a->der && node->a >= e.first)
            der_argument[node->a - e.first] = 1;
    }
    for (int j = e.first; j <= e.root; j++) {
        hy_syn node = a->syn->nodes[j]; /* a copy: the arena may move */
        int k = j - e.first, made, negative = 0;
        if (node.op == SYN_NAME && eliminated(a, node.name)) {
            int s, root = find(a, node.name, &s);
            if (a->fixed[root]) {
                made = fixed_node(a, s, root);
            } else {
                made = add_node(a, &node, SYN_NAME, -1, root);
                negative = s < 0;
            }
        } else {
            int operand[3] = { node.a, node.b, node.c };
            for (int o = 0; o < 3; o++)
                if (operand[o] >= e.first)
                    operand[o] = map[operand[o] - e.first];
            made = add_node(a, &node, (hy_syn_op)node.op, operand[0], -1);
            if (made >= 0) {
                hy_syn *copy = &a->syn->nodes[made];
                copy->b = operand[1];
                copy->c = operand[2];
                copy->name = node.name;
                copy->value = node.value;
                copy->n_args = node.n_args;
                negative = node.op == SYN_CALL && node.name == a->der && node.a >= e.first
                           && negated[node.a - e.first];
            }
        }
        if (made >= 0 && negative && !der_argument[k]) {
            made = add_node(a, &node, SYN_NEG, made, -1);
            negative = 0;
        }
        if (made < 0)
            goto done;
        negated[k] = (unsigned char)negative;
        map[k] = made;
    }
    out.root = map[n - 1];
done:
    hy_free(map);
    hy_free(negated);
    hy_free(der_argument);
    return out;
}

/* The output x = s r of an eliminated name, and r's start from x's when
** r has none. */
static int alias_output(aliases *a, int x, hy_equation_syn *eq)
{
    int s, root = find(a, x, &s);
    const hy_decl *dx = &a->syn->decls[a->decl_of[x] - 1];
    hy_decl *dr = &a->syn->decls[a->decl_of[root] - 1];
    if (!a->fixed[root] && dr->value.root < 0 && dx->value.root >= 0) {
        /* r = s x: copy x's start, negated when s = -1 */
        hy_expr_ref start = { a->syn->n_nodes, -1 };
        size_t n = (size_t)(dx->value.root - dx->value.first + 1);
        int base = a->syn->n_nodes;
        for (size_t k = 0; k < n; k++) {
            hy_syn node = a->syn->nodes[dx->value.first + (int)k];
            int shift = base - dx->value.first;
            node.a = node.a >= dx->value.first ? node.a + shift : node.a;
            node.b = node.b >= dx->value.first ? node.b + shift : node.b;
            node.c = node.c >= dx->value.first ? node.c + shift : node.c;
            if (hy_grow((void **)&a->syn->nodes, &a->syn->cap_nodes, a->syn->n_nodes + 1,
                        sizeof *a->syn->nodes))
                return nomem(a);
            a->syn->nodes[a->syn->n_nodes++] = node;
        }
        start.root = a->syn->n_nodes - 1;
        if (s < 0)
            start.root = add_node(a, &a->syn->nodes[start.root], SYN_NEG, start.root, -1);
        dr = &a->syn->decls[a->decl_of[root] - 1];
        dx = &a->syn->decls[a->decl_of[x] - 1];
        dr->value = start;
        dr->value_line = dx->value_line;
        dr->value_column = dx->value_column;
    }
    memset(eq, 0, sizeof *eq);
    eq->line = dx->line;
    eq->column = dx->column;
    eq->mode = -1;
    eq->loop = -1;
    eq->connect_a = eq->connect_b = -1;
    eq->output_index.root = -1;
    eq->output_name = x;
    eq->lhs.first = a->syn->n_nodes;
    eq->lhs.root = -1;
    hy_syn like = { 0 };
    like.line = dx->line;
    like.column = dx->column;
    eq->rhs.first = a->syn->n_nodes;
    if (a->fixed[root]) {
        eq->rhs.root = fixed_node(a, s, root);
        return eq->rhs.root < 0 ? -1 : 0;
    }
    eq->rhs.root = add_node(a, &like, SYN_NAME, -1, root);
    if (s < 0 && eq->rhs.root >= 0)
        eq->rhs.root = add_node(a, &like, SYN_NEG, eq->rhs.root, -1);
    return eq->rhs.root < 0 ? -1 : 0;
}

static void apply(aliases *a, const unsigned char *removed)
{
    hy_syntax *syn = a->syn;
    for (int i = 0; i < syn->n_equations; i++)
        if (!removed[i]) {
            syn->equations[i].lhs = rewrite(a, syn->equations[i].lhs);
            syn->equations[i].rhs = rewrite(a, syn->equations[i].rhs);
        }
    for (int i = 0; i < syn->n_transitions; i++)
        syn->transitions[i].when = rewrite(a, syn->transitions[i].when);
    for (int i = 0; i < syn->n_stmts; i++)
        syn->stmts[i].value = rewrite(a, syn->stmts[i].value);
    /* one output per removed equation (one variable each) and the rest */
    hy_equation_syn *equations = hy_calloc((size_t)syn->n_equations, sizeof *equations);
    if (!equations || a->failed) {
        hy_free(equations);
        nomem(a);
        return;
    }
    int n = 0;
    for (int i = 0; i < syn->n_decls && !a->failed; i++) {
        const hy_decl *d = &syn->decls[i];
        if (d->kind == DECL_VARIABLE && eliminated(a, d->name) && a->decl_of[d->name] == i + 1)
            alias_output(a, d->name, &equations[n++]);
    }
    for (int i = 0; i < syn->n_equations; i++)
        if (!removed[i])
            equations[n++] = syn->equations[i];
    int kept = 0;
    for (int i = 0; i < syn->n_decls; i++) {
        const hy_decl *d = &syn->decls[i];
        if (!(d->kind == DECL_VARIABLE && eliminated(a, d->name) && a->decl_of[d->name] == i + 1))
            syn->decls[kept++] = *d;
    }
    if (a->failed) {
        hy_free(equations);
        return;
    }
    syn->n_decls = kept;
    hy_free(syn->equations);
    syn->equations = equations;
    syn->n_equations = syn->cap_equations = n;
}

int hy_alias_eliminate(hy_syntax *syn, hy_strtab *strings, hy_diag *diag)
{
    aliases a;
    memset(&a, 0, sizeof a);
    a.syn = syn;
    a.diag = diag;
    a.n_names = strings->n_strings;
    a.der = hy_strtab_find(strings, "der");
    size_t n = (size_t)(a.n_names > 0 ? a.n_names : 1);
    a.decl_of = hy_calloc(n, sizeof *a.decl_of);
    a.pinned = hy_calloc(n, 1);
    a.parent = hy_alloc_array(n, sizeof *a.parent);
    a.sign = hy_alloc_array(n, 1);
    a.fixed = hy_calloc(n, 1);
    a.in_modes = hy_calloc(n, 1);
    a.is_known = hy_calloc(n, 1);
    a.value = hy_calloc(n, sizeof *a.value);
    unsigned char *removed = hy_calloc((size_t)(syn->n_equations > 0 ? syn->n_equations : 1), 1);
    int n_removed = 0, n_trivial = 0;
    if (!a.decl_of || !a.pinned || !a.parent || !a.sign || !a.fixed || !a.in_modes
        || !a.is_known || !a.value || !removed) {
        nomem(&a);
        goto done;
    }
    for (int i = 0; i < a.n_names; i++) {
        a.parent[i] = i;
        a.sign[i] = 1;
    }
    for (int i = 0; i < syn->n_decls; i++) {
        const hy_decl *d = &syn->decls[i];
        if (d->kind == DECL_VARIABLE && d->mode < 0 && d->size.root < 0 && d->name >= 0
            && d->name < a.n_names && !a.decl_of[d->name])
            a.decl_of[d->name] = i + 1;
    }
    if (mark_pinned(&a) != 0)
        goto done;
    for (int i = 0; i < syn->n_equations; i++) {
        int x, y, s;
        if (alias_form(&a, &syn->equations[i], &x, &y, &s) == 0 && join(&a, x, y, s) == 0) {
            removed[i] = 1;
            n_removed++;
        }
    }
    /* After every alias is joined: a trivial equation fixes a whole class. */
    for (int x = 0; x < a.n_names; x++) {
        int sx;
        if (a.decl_of[x] && a.in_modes[x])
            a.in_modes[find(&a, x, &sx)] = 1;
    }
    for (int i = 0; i < syn->n_decls; i++) {
        const hy_decl *d = &syn->decls[i];
        if ((d->kind == DECL_PARAMETER || d->kind == DECL_CONSTANT || d->kind == DECL_DISCRETE)
            && d->mode < 0 && d->name >= 0 && d->name < a.n_names)
            a.is_known[d->name] = 1;
    }
    for (int i = 0; i < syn->n_equations; i++) {
        int x, sx;
        hy_expr_ref e;
        if (!removed[i] && trivial_form(&a, &syn->equations[i], &x, &sx, &e) == 0
            && fix(&a, x, sx, e) == 0) {
            removed[i] = 1;
            n_trivial++;
        }
    }
    if (n_removed + n_trivial > 0)
        apply(&a, removed);
    syn->n_aliases = a.failed ? 0 : n_removed;
    syn->n_trivial = a.failed ? 0 : n_trivial;
done:
    hy_free(a.decl_of);
    hy_free(a.pinned);
    hy_free(a.parent);
    hy_free(a.sign);
    hy_free(a.fixed);
    hy_free(a.in_modes);
    hy_free(a.is_known);
    hy_free(a.value);
    hy_free(removed);
    return a.failed ? -1 : n_removed + n_trivial;
}
