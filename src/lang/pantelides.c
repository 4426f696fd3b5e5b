/*
** Structural index reduction of a mode of index > 1: which equations must
** be differentiated, and how often, for the extended system to be
** solvable for its highest derivatives. Pantelides' algorithm (C.C.
** Pantelides, "The consistent initialization of differential-algebraic
** systems", SIAM J. Sci. Stat. Comput. 9 (1988) 213-231): for each
** equation in turn, look for an augmenting path in the bipartite
** graph of the equations and the highest derivatives of the unknowns;
** when there is none, the equations and variables the search reached form
** a structurally singular subset: differentiate those equations, add the
** derivatives of those variables, and search again from the derivative of
** the equation. Structural only: the derivative of an equation is incident
** to each of its variables and to their derivatives.
**
** The structural index follows from the differentiation counts c_i and the
** highest orders d_j by Pryce's rule (J.D. Pryce, "A simple structural
** analysis method for DAEs", BIT 41 (2001) 364-394, whose c_i and d_j
** these are): max c_i, plus one if some unknown appears only
** undifferentiated.
**
** The augmenting-path search is iterative (an explicit stack); a chain of
** differentiations longer than the number of equations + 2 means the
** system is structurally singular at every order (the algorithm would not
** stop), and is reported as such.
*/
#include "lang/sema.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

/* A variable node: unknown `base` differentiated `order` times. */
typedef struct var_node {
    int base, order;
    int derivative;          /* the node of its derivative, -1 if none yet
                                (a node with one is no longer a highest
                                derivative: "deleted" in Pantelides' terms) */
    int assign;              /* the equation node it is matched to, or -1 */
    unsigned mark, seen;     /* colour of the current search; dedup stamp */
} var_node;

/* An equation node: equation `base` differentiated `order` times. */
typedef struct eq_node {
    int base, order;
    int derivative;          /* its derivative's node, -1 if none */
    int first, count;        /* its variables: adj[first .. first + count) */
    unsigned mark;
} eq_node;

typedef struct graph {
    int n_vars, cap_vars;
    var_node *vars;
    int n_eqs, cap_eqs;
    eq_node *eqs;
    int n_adj, cap_adj;
    int *adj;
    unsigned stamp, seen_stamp;
    /* The search: the nodes coloured, and its stack. */
    int n_colored_vars, cap_colored_vars, *colored_vars;
    int n_colored_eqs, cap_colored_eqs, *colored_eqs;
    int cap_stack_eq, cap_stack_pos, cap_stack_via;
    int *stack_eq, *stack_pos, *stack_via;
} graph;

static void graph_free(graph *g)
{
    hy_free(g->vars);
    hy_free(g->eqs);
    hy_free(g->adj);
    hy_free(g->colored_vars);
    hy_free(g->colored_eqs);
    hy_free(g->stack_eq);
    hy_free(g->stack_pos);
    hy_free(g->stack_via);
}

static int add_var(graph *g, int base, int order)
{
    if (hy_grow((void **)&g->vars, &g->cap_vars, g->n_vars + 1, sizeof *g->vars))
        return -1;
    var_node *v = &g->vars[g->n_vars];
    memset(v, 0, sizeof *v);
    v->base = base;
    v->order = order;
    v->derivative = v->assign = -1;
    return g->n_vars++;
}

static int add_eq(graph *g, int base, int order)
{
    if (hy_grow((void **)&g->eqs, &g->cap_eqs, g->n_eqs + 1, sizeof *g->eqs))
        return -1;
    eq_node *e = &g->eqs[g->n_eqs];
    memset(e, 0, sizeof *e);
    e->base = base;
    e->order = order;
    e->derivative = -1;
    e->first = g->n_adj;
    return g->n_eqs++;
}

/* Append variable v to the last equation unless it is there already
** (seen_stamp marks the variables of that equation). */
static int add_incidence(graph *g, int v)
{
    if (g->vars[v].seen == g->seen_stamp)
        return 0;
    g->vars[v].seen = g->seen_stamp;
    if (hy_grow((void **)&g->adj, &g->cap_adj, g->n_adj + 1, sizeof *g->adj))
        return -1;
    g->adj[g->n_adj++] = v;
    g->eqs[g->n_eqs - 1].count++;
    return 0;
}

static int is_highest(const graph *g, int v)
{
    return g->vars[v].derivative < 0;
}

/* Colour equation e, push it on the stack at `depth`; a free highest
** derivative among its variables, or -1. */
static int visit(graph *g, int e, int depth)
{
    g->eqs[e].mark = g->stamp;
    g->colored_eqs[g->n_colored_eqs++] = e;
    g->stack_eq[depth] = e;
    g->stack_pos[depth] = g->eqs[e].first;
    for (int k = g->eqs[e].first; k < g->eqs[e].first + g->eqs[e].count; k++) {
        int v = g->adj[k];
        if (is_highest(g, v) && g->vars[v].assign < 0)
            return v;
    }
    return -1;
}

/* Pantelides' AUGMENTPATH from equation root: 1 if a path was found and
** the matching augmented, 0 if not (the coloured nodes are the singular
** subset), -1 when out of memory. */
static int augment(graph *g, int root)
{
    int need = g->n_eqs + 1;
    if (hy_grow((void **)&g->stack_eq, &g->cap_stack_eq, need, sizeof(int))
        || hy_grow((void **)&g->stack_pos, &g->cap_stack_pos, need, sizeof(int))
        || hy_grow((void **)&g->stack_via, &g->cap_stack_via, need, sizeof(int))
        || hy_grow((void **)&g->colored_eqs, &g->cap_colored_eqs, need, sizeof(int))
        || hy_grow((void **)&g->colored_vars, &g->cap_colored_vars, g->n_vars + 1, sizeof(int)))
        return -1;
    g->stamp++;
    g->n_colored_vars = g->n_colored_eqs = 0;
    int free_var = visit(g, root, 0), depth = 1;
    while (free_var < 0 && depth > 0) {
        int top = depth - 1, e = g->stack_eq[top];
        if (g->stack_pos[top] == g->eqs[e].first + g->eqs[e].count) {
            depth--;
            continue;
        }
        int v = g->adj[g->stack_pos[top]++];
        if (!is_highest(g, v) || g->vars[v].mark == g->stamp)
            continue;
        g->vars[v].mark = g->stamp;
        g->colored_vars[g->n_colored_vars++] = v;
        g->stack_via[top] = v;
        /* v is not free (visit found none), so it leads to its equation,
        ** which no other variable leads to: not coloured yet. */
        free_var = visit(g, g->vars[v].assign, depth);
        depth++;
    }
    if (free_var < 0)
        return 0;
    g->vars[free_var].assign = g->stack_eq[depth - 1];
    for (int d = depth - 2; d >= 0; d--)
        g->vars[g->stack_via[d]].assign = g->stack_eq[d];
    return 1;
}

/* Differentiate the coloured subset (Pantelides' step 3(b)): a derivative
** for every coloured variable and equation, the derivatives matched as
** the originals were. */
static int differentiate(graph *g)
{
    for (int k = 0; k < g->n_colored_vars; k++) {
        int v = g->colored_vars[k];
        int d = add_var(g, g->vars[v].base, g->vars[v].order + 1);
        if (d < 0)
            return -1;
        g->vars[v].derivative = d;
    }
    for (int k = 0; k < g->n_colored_eqs; k++) {
        int l = g->colored_eqs[k];
        int d = add_eq(g, g->eqs[l].base, g->eqs[l].order + 1);
        if (d < 0)
            return -1;
        g->eqs[l].derivative = d;
        g->seen_stamp++;
        int first = g->eqs[l].first, count = g->eqs[l].count;
        for (int j = first; j < first + count; j++) {
            int v = g->adj[j];
            if (add_incidence(g, v) != 0
                || (g->vars[v].derivative >= 0 && add_incidence(g, g->vars[v].derivative) != 0))
                return -1;
        }
    }
    for (int k = 0; k < g->n_colored_vars; k++) {
        int v = g->colored_vars[k];
        g->vars[g->vars[v].derivative].assign = g->eqs[g->vars[v].assign].derivative;
    }
    return 0;
}

/* The mode's incidence: node j is y_j, and a differential unknown's y'_j
** is its derivative node; equation node i is equation i. */
static int build_graph(hy_ir *ir, const hy_ir_mode *mode, graph *g)
{
    int n = mode->n_vars;
    for (int j = 0; j < n; j++)
        if (add_var(g, j, 0) != j)
            return -1;
    for (int j = 0; j < n; j++) {
        if (!mode->vars[j].is_differential)
            continue;
        int d = add_var(g, j, 1);
        if (d < 0)
            return -1;
        g->vars[j].derivative = d;
    }
    for (int i = 0; i < mode->n_equations; i++) {
        if (add_eq(g, i, 0) != i)
            return -1;
        int root = mode->equations[i].residual, *leaves = NULL;
        int n_leaves = hy_x_reachable(&ir->dag, &root, 1, &leaves);
        if (n_leaves < 0)
            return -1;
        g->seen_stamp++;
        int status = 0;
        for (int k = 0; k < n_leaves && status == 0; k++) {
            const hy_xnode leaf = hy_x_node(&ir->dag, leaves[k]);
            if (leaf.op == X_Y)
                status = add_incidence(g, leaf.a);
            else if (leaf.op == X_YP && g->vars[leaf.a].derivative >= 0)
                status = add_incidence(g, g->vars[leaf.a].derivative);
        }
        hy_free(leaves);
        if (status != 0)
            return -1;
    }
    return 0;
}

int hy_pantelides(hy_ir *ir, int m)
{
    hy_ir_mode *mode = &ir->modes[m];
    hy_ir_structure *st = &mode->structure;
    int n_eq = mode->n_equations;
    st->reduced = 0;
    st->index = 0;
    st->stuck_equation = -1;
    hy_free(st->differentiations);
    st->differentiations = hy_calloc((size_t)n_eq + 1, sizeof *st->differentiations);
    if (!st->differentiations)
        return -1;
    graph g;
    memset(&g, 0, sizeof g);
    int status = build_graph(ir, mode, &g);
    for (int k = 0; k < n_eq && status == 0; k++) {
        int i = k;
        for (;;) {
            int found = augment(&g, i);
            if (found != 0) {
                status = found < 0 ? -1 : 0;
                break;
            }
            if (g.eqs[i].order >= n_eq + 2) {
                st->stuck_equation = k;
                status = 1;
                break;
            }
            if (differentiate(&g) != 0) {
                status = -1;
                break;
            }
            i = g.eqs[i].derivative;
        }
    }
    if (status == 0) {
        int max_count = 0, has_algebraic = 0;
        for (int i = 0; i < n_eq; i++) {
            int count = 0;
            for (int e = i; g.eqs[e].derivative >= 0; e = g.eqs[e].derivative)
                count++;
            st->differentiations[i] = count;
            if (count > max_count)
                max_count = count;
        }
        for (int j = 0; j < mode->n_vars; j++)
            has_algebraic |= g.vars[j].derivative < 0;
        st->index = max_count + (has_algebraic ? 1 : 0);
        st->reduced = 1;
    }
    graph_free(&g);
    return status < 0 ? -1 : 0;
}
