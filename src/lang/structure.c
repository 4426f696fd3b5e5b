/*
** Structural analysis of each mode:
**  - solvability: a maximum bipartite matching between equations and
**    unknowns (an unknown counts if it or its derivative appears), by
**    augmenting paths (Kuhn's algorithm, with an explicit stack);
**  - the index: the same matching with the states known, the unknowns
**    being the derivatives of the states and the algebraic variables; if
**    it is not perfect the mode has index > 1 (Pantelides' criterion at
**    its first step), and Pantelides' algorithm (pantelides.c) says which
**    equations to differentiate; such a mode is accepted if it is a
**    mechanical system (mechanics.c), which the simulator reduces;
**  - the block lower triangular (BLT) form: Tarjan's strongly connected
**    components (iterative) of the equations' dependency graph under that
**    matching; blocks of several equations are algebraic loops.
** Tarjan, "Depth-first search and linear graph algorithms", SIAM J.
** Comput. 1 (1972); Duff & Reid, "An implementation of Tarjan's
** algorithm for the block triangularization of a matrix", ACM TOMS 4
** (1978).
*/
#include "lang/sema.h"
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Incidence in compressed rows: row i's columns adj[start[i]..start[i+1]). */
typedef struct incidence {
    int n;
    int *start, *adj;
} incidence;

static void incidence_free(incidence *g)
{
    hy_free(g->start);
    hy_free(g->adj);
}

/* index1 = 0: column j if y_j or y'_j appears; index1 = 1: column j if
** y'_j appears (j a state) or y_j appears (j algebraic). */
static int build_incidence(hy_ir *ir, const hy_ir_mode *mode, int index1, incidence *g)
{
    int n = mode->n_vars, cap = 0, count = 0;
    g->n = mode->n_equations;
    g->start = hy_malloc(sizeof *g->start * (size_t)(g->n + 1));
    g->adj = NULL;
    unsigned char *seen = hy_calloc((size_t)n + 1, 1);
    if (!g->start || !seen)
        goto nomem;
    for (int i = 0; i < g->n; i++) {
        g->start[i] = count;
        int root = mode->equations[i].residual;
        const int *list = NULL;
        int n_list = hy_x_walk(&ir->dag, &root, 1, &list);
        if (n_list < 0)
            goto nomem;
        for (int k = 0; k < n_list; k++) {
            const hy_xnode leaf = hy_x_node(&ir->dag, list[k]);
            if (leaf.op != X_Y && leaf.op != X_YP)
                continue;
            int j = leaf.a;
            if (index1 && (leaf.op == X_YP) != (mode->vars[j].is_differential != 0))
                continue;
            if (seen[j])
                continue;
            seen[j] = 1;
            if (hy_grow((void **)&g->adj, &cap, count + 1, sizeof *g->adj))
                goto nomem;
            g->adj[count++] = j;
        }
        for (int k = g->start[i]; k < count; k++)
            seen[g->adj[k]] = 0;
    }
    g->start[g->n] = count;
    hy_free(seen);
    return 0;
nomem:
    hy_free(seen);
    incidence_free(g);
    return -1;
}

/* Maximum matching; row_match[i] = column or -1, col_match[j] = row or -1.
** Returns the number of matched rows, or -1 when out of memory. */
/* Maximum matching of rows (equations) to columns (unknowns): a greedy
** start, then Hopcroft-Karp phases (SIAM J. Comput. 2 (1973) 225-231):
** a breadth-first layering from the free rows along alternating paths,
** then vertex-disjoint shortest augmenting paths by depth-first search
** along the layers, O(nnz sqrt(n)) in all (a plain depth-first search per
** row is quadratic on a chain of 10^4 components). The count, or -1. */
static int maximum_matching(const incidence *g, int n_cols, int *row_match, int *col_match)
{
    int n = g->n, matched = 0;
    int *dist = hy_malloc(sizeof *dist * (size_t)(n + 1));
    int *queue = hy_malloc(sizeof *queue * (size_t)(n + 1));
    int *next_arc = hy_malloc(sizeof *next_arc * (size_t)(n + 1));
    int *stack = hy_malloc(sizeof *stack * (size_t)(n + 1));
    if (!dist || !queue || !next_arc || !stack) {
        hy_free(dist);
        hy_free(queue);
        hy_free(next_arc);
        hy_free(stack);
        return -1;
    }
    for (int i = 0; i < n; i++)
        row_match[i] = -1;
    for (int j = 0; j < n_cols; j++)
        col_match[j] = -1;
    /* Cheap first pass: a free column for each row. */
    for (int i = 0; i < n; i++)
        for (int k = g->start[i]; k < g->start[i + 1]; k++)
            if (col_match[g->adj[k]] < 0) {
                col_match[g->adj[k]] = i;
                row_match[i] = g->adj[k];
                matched++;
                break;
            }
    const int far = n + 1; /* an unreached row's layer */
    for (;;) {
        /* Layers: free rows at 0; a matched row one past the row whose
        ** column it holds. */
        int head = 0, tail = 0, found = 0;
        for (int i = 0; i < n; i++) {
            dist[i] = row_match[i] < 0 ? 0 : far;
            if (row_match[i] < 0)
                queue[tail++] = i;
        }
        while (head < tail) {
            int r = queue[head++];
            for (int k = g->start[r]; k < g->start[r + 1]; k++) {
                int owner = col_match[g->adj[k]];
                if (owner < 0)
                    found = 1;
                else if (dist[owner] == far) {
                    dist[owner] = dist[r] + 1;
                    queue[tail++] = owner;
                }
            }
        }
        if (!found)
            break;
        /* Augment along shortest paths, each row used once. */
        int augmented = 0;
        for (int i = 0; i < n; i++)
            next_arc[i] = g->start[i];
        for (int root = 0; root < n; root++) {
            if (row_match[root] >= 0 || dist[root] != 0)
                continue;
            int depth = 0;
            stack[depth++] = root;
            while (depth > 0) {
                int r = stack[depth - 1];
                if (next_arc[r] == g->start[r + 1]) {
                    dist[r] = far; /* a dead end for this phase */
                    depth--;
                    continue;
                }
                int j = g->adj[next_arc[r]];
                int owner = col_match[j];
                if (owner >= 0 && dist[owner] != dist[r] + 1) {
                    next_arc[r]++;
                    continue;
                }
                if (owner >= 0) {
                    stack[depth++] = owner; /* deeper; the arc is taken when it returns */
                    continue;
                }
                /* A free column: flip the path, rows on the stack taking the
                ** column each reached the next one by. */
                for (int d = depth - 1; d >= 0; d--) {
                    int row = stack[d], col = g->adj[next_arc[row]];
                    row_match[row] = col;
                    col_match[col] = row;
                    dist[row] = far;
                }
                matched++;
                augmented = 1;
                break;
            }
        }
        if (!augmented)
            break;
    }
    hy_free(dist);
    hy_free(queue);
    hy_free(next_arc);
    hy_free(stack);
    return matched;
}

/* Tarjan's SCCs of the graph: equation i -> col_match[j] for j in row i.
** Components in solution order into s->block_start / block_eqs. */
static int blt(const incidence *g, const int *col_match, hy_ir_structure *st)
{
    int n = g->n;
    int *index = hy_malloc(sizeof *index * (size_t)(n + 1));
    int *low = hy_malloc(sizeof *low * (size_t)(n + 1));
    int *on_stack = hy_calloc((size_t)n + 1, sizeof *on_stack);
    int *scc_stack = hy_malloc(sizeof *scc_stack * (size_t)(n + 1));
    int *call_node = hy_malloc(sizeof *call_node * (size_t)(n + 1));
    int *call_pos = hy_malloc(sizeof *call_pos * (size_t)(n + 1));
    st->block_start = hy_malloc(sizeof *st->block_start * (size_t)(n + 2));
    st->block_eqs = hy_malloc(sizeof *st->block_eqs * (size_t)(n + 1));
    int ok = index && low && on_stack && scc_stack && call_node && call_pos && st->block_start
             && st->block_eqs;
    if (ok) {
        int counter = 0, n_scc = 0, n_out = 0;
        for (int v = 0; v < n; v++)
            index[v] = -1;
        for (int root = 0; root < n; root++) {
            if (index[root] >= 0)
                continue;
            int depth = 0;
            call_node[depth] = root;
            call_pos[depth] = g->start[root];
            depth = 1;
            index[root] = low[root] = counter++;
            scc_stack[n_scc++] = root;
            on_stack[root] = 1;
            while (depth > 0) {
                int v = call_node[depth - 1];
                if (call_pos[depth - 1] < g->start[v + 1]) {
                    int w = col_match[g->adj[call_pos[depth - 1]++]];
                    if (w < 0 || w == v)
                        continue;
                    if (index[w] < 0) {
                        index[w] = low[w] = counter++;
                        scc_stack[n_scc++] = w;
                        on_stack[w] = 1;
                        call_node[depth] = w;
                        call_pos[depth] = g->start[w];
                        depth++;
                    } else if (on_stack[w] && index[w] < low[v]) {
                        low[v] = index[w];
                    }
                    continue;
                }
                /* v is finished. */
                if (low[v] == index[v]) {
                    st->block_start[st->n_blocks] = n_out;
                    int w, size = 0;
                    do {
                        w = scc_stack[--n_scc];
                        on_stack[w] = 0;
                        st->block_eqs[n_out++] = w;
                        size++;
                    } while (w != v);
                    st->n_blocks++;
                    if (size > 1)
                        st->n_loops++;
                }
                depth--;
                if (depth > 0) {
                    int parent = call_node[depth - 1];
                    if (low[v] < low[parent])
                        low[parent] = low[v];
                }
            }
        }
        st->block_start[st->n_blocks] = n_out;
    }
    hy_free(index);
    hy_free(low);
    hy_free(on_stack);
    hy_free(scc_stack);
    hy_free(call_node);
    hy_free(call_pos);
    return ok ? 0 : -1;
}

static void list_lines(const hy_diag *diag, const hy_ir_mode *mode, const int *eqs, int n,
                       char *buf, size_t size)
{
    size_t used = 0;
    int k = 0;
    buf[0] = '\0';
    for (; k < n; k++) {
        char at[200];
        hy_diag_position(diag, mode->equations[eqs[k]].line, mode->equations[eqs[k]].column, at,
                         sizeof at);
        if (used + strlen(at) + 8 >= size)
            break;
        used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? ", " : "", at);
    }
    if (k < n)
        snprintf(buf + used, size - used, ", ...");
}

/* A structurally singular mode that reads as a mechanical system whose
** multiplier is declared but used nowhere: a hint to write it into the
** dynamics (docs/language.md, "Mechanical models"). */
static void multiplier_hint(hy_ir *ir, const hy_ir_mode *mode, const int *col_match, char *hint,
                            size_t size)
{
    /* one pass over the equations marks the unknowns they use (a pass per
    ** unmatched unknown would be quadratic in a large singular mode) */
    unsigned char *used = hy_calloc((size_t)mode->n_vars + 1, 1);
    if (!used)
        return; /* only a hint */
    for (int i = 0; i < mode->n_equations; i++) {
        const int *list = NULL;
        int n_list = hy_x_walk(&ir->dag, &mode->equations[i].residual, 1, &list);
        for (int k = 0; k < n_list; k++) {
            const hy_xnode x = hy_x_node(&ir->dag, list[k]);
            if (x.op == X_Y || x.op == X_YP)
                used[x.a] = 1;
        }
    }
    int unused = -1;
    for (int j = 0; j < mode->n_vars && unused < 0; j++)
        if (col_match[j] < 0 && !used[j])
            unused = j;
    hy_free(used);
    int constraint = unused >= 0 ? hy_mechanics_position_constraint(ir, mode) : -1;
    if (constraint < 0)
        return;
    const char *name = hy_strtab_get(ir->strings, mode->vars[unused].name);
    snprintf(hint, size,
             " ('%s' appears in no equation: if it is the multiplier of the constraint at %d:%d, "
             "write it into the dynamics, M der(u) = F - C %s)",
             name, mode->equations[constraint].line, mode->equations[constraint].column, name);
}

/* what: "mode 'NAME'" or "the initial configuration (...)", for messages;
** a configuration (is_configuration) is not reduced if its index is > 1:
** that is reported. */
static int analyse_mode(hy_ir *ir, hy_ir_mode *mode, hy_diag *diag, const char *what,
                        int is_configuration)
{
    hy_ir_structure *st = &mode->structure;
    int n = mode->n_vars, n_errors = 0;
    if (mode->n_equations != n || (mode->n_shared > 0 && !is_configuration))
        return 0; /* reported by sema; a mode with shared unknowns: in its configurations */
    st->analysed = 1;
    st->index_ok = 1;
    if (n == 0)
        return 0;
    incidence g;
    int *row_match = hy_malloc(sizeof *row_match * (size_t)n);
    int *col_match = hy_malloc(sizeof *col_match * (size_t)n);
    st->eq_unknown = row_match;
    if (!row_match || !col_match || build_incidence(ir, mode, 0, &g) != 0) {
        hy_free(col_match);
        hy_diag_nomem(diag);
        return 1;
    }
    int matched = maximum_matching(&g, n, row_match, col_match);
    incidence_free(&g);
    if (matched < 0) {
        hy_free(col_match);
        hy_diag_nomem(diag);
        return 1;
    }
    if (matched < n) {
        st->unmatched = hy_malloc(sizeof *st->unmatched * (size_t)n);
        char lines[300], unknowns[300] = "";
        size_t used = 0;
        for (int i = 0; i < n && st->unmatched; i++)
            if (row_match[i] < 0)
                st->unmatched[st->n_unmatched++] = i;
        for (int j = 0; j < n && used + 40 < sizeof unknowns; j++)
            if (col_match[j] < 0)
                used += (size_t)snprintf(unknowns + used, sizeof unknowns - used, "%s%s",
                                         used ? ", " : "", hy_strtab_get(ir->strings, mode->vars[j].name));
        list_lines(diag, mode, st->unmatched, st->n_unmatched, lines, sizeof lines);
        int first = st->unmatched ? st->unmatched[0] : 0;
        char hint[400] = "";
        multiplier_hint(ir, mode, col_match, hint, sizeof hint);
        hy_diag_error(diag, mode->equations[first].line, mode->equations[first].column,
                      "%s is structurally singular: the equation%s at %s cannot be "
                      "matched to an unknown; no equation determines %s%s",
                      what, st->n_unmatched == 1 ? "" : "s", lines, unknowns, hint);
        hy_free(col_match);
        return 1;
    }
    /* Index: states known, solve for derivatives and algebraic unknowns. */
    if (build_incidence(ir, mode, 1, &g) != 0) {
        hy_free(col_match);
        hy_diag_nomem(diag);
        return 1;
    }
    matched = maximum_matching(&g, n, row_match, col_match);
    if (matched >= 0 && matched < n)
        st->index_eqs = hy_malloc(sizeof *st->index_eqs * (size_t)n);
    if (matched < 0 || (matched < n && !st->index_eqs)) {
        hy_diag_nomem(diag); /* a failed matching was taken for index 1 */
        n_errors++;
    } else if (matched < n) {
        st->index_ok = 0;
        for (int i = 0; i < n; i++)
            if (row_match[i] < 0)
                st->index_eqs[st->n_index_eqs++] = i;
        if (is_configuration) {
            char lines[300];
            list_lines(diag, mode, st->index_eqs, st->n_index_eqs, lines, sizeof lines);
            hy_diag_error(diag, mode->equations[st->index_eqs[0]].line,
                          mode->equations[st->index_eqs[0]].column,
                          "%s has index > 1: the equation%s at %s cannot be solved for a "
                          "derivative or an algebraic unknown once the states are known; "
                          "differentiate a constraint by hand (modes that share unknowns are "
                          "not reduced as mechanical systems)",
                          what, st->n_index_eqs == 1 ? "" : "s", lines);
            incidence_free(&g);
            hy_free(col_match);
            return 1;
        }
        /* Which equations to differentiate; a mechanical system is then
        ** reduced by the simulator, anything else is refused. */
        if (hy_pantelides(ir, (int)(mode - ir->modes)) != 0) {
            hy_diag_nomem(diag);
            n_errors++;
        } else {
            n_errors += hy_mechanics_detect(ir, (int)(mode - ir->modes), diag);
        }
    } else if (matched == n && blt(&g, col_match, st) != 0) {
        hy_diag_nomem(diag);
        n_errors++;
    }
    incidence_free(&g);
    hy_free(col_match);
    return n_errors;
}

static void free_structure(hy_ir_structure *st)
{
    hy_free(st->unmatched);
    hy_free(st->index_eqs);
    hy_free(st->block_start);
    hy_free(st->block_eqs);
    hy_free(st->eq_unknown);
    hy_free(st->differentiations);
    memset(st, 0, sizeof *st);
}

/* Mode `from`'s equations appended to cfg, its unknowns merged into cfg's
** by name (config_var: name -> index in cfg, -1) and its y, y' leaves
** renumbered. 0, or -1 out of memory. */
static int add_to_configuration(hy_ir *ir, hy_ir_mode *cfg, const hy_ir_mode *from,
                                int *config_var)
{
    int cap_vars = cfg->n_vars, cap_eqs = cfg->n_equations;
    int *y = hy_malloc(sizeof *y * ((size_t)from->n_vars + 1));
    int *yp = hy_malloc(sizeof *yp * ((size_t)from->n_vars + 1));
    int status = y && yp ? 0 : -1;
    for (int k = 0; k < from->n_vars && status == 0; k++) {
        const hy_ir_var *v = &from->vars[k];
        int j = config_var[v->name];
        if (j < 0) {
            if (hy_grow((void **)&cfg->vars, &cap_vars, cfg->n_vars + 1, sizeof *cfg->vars)) {
                status = -1;
                break;
            }
            j = config_var[v->name] = cfg->n_vars++;
            cfg->vars[j] = *v;
        }
        cfg->vars[j].is_differential |= v->is_differential;
        y[k] = hy_x_leaf(&ir->dag, X_Y, j);
        yp[k] = hy_x_leaf(&ir->dag, X_YP, j);
        if (y[k] < 0 || yp[k] < 0)
            status = -1;
    }
    for (int i = 0; i < from->n_equations && status == 0; i++) {
        hy_ir_equation eq = from->equations[i];
        eq.residual = hy_x_substitute(&ir->dag, eq.residual, X_Y, y, from->n_vars);
        if (eq.residual >= 0)
            eq.residual = hy_x_substitute(&ir->dag, eq.residual, X_YP, yp, from->n_vars);
        if (eq.residual < 0
            || hy_grow((void **)&cfg->equations, &cap_eqs, cfg->n_equations + 1,
                       sizeof *cfg->equations)) {
            status = -1;
            break;
        }
        eq.explicit_state = eq.explicit_rhs = -1;
        cfg->equations[cfg->n_equations++] = eq;
    }
    hy_free(y);
    hy_free(yp);
    return status;
}

/* When modes share unknowns, the initial configuration (the initial mode
** of every chart) as one temporary mode, analysed as a mode is: a
** structurally singular or high-index start is said at compile time. (The
** simulator checks every configuration it enters.) */
static int analyse_initial_configuration(hy_ir *ir, hy_diag *diag)
{
    int shared = 0, external = 0;
    for (int c = 0; c < ir->n_charts; c++) {
        const hy_ir_mode *initial = ir->charts[c].initial >= 0 ? &ir->modes[ir->charts[c].initial]
                                                                : NULL;
        shared |= initial && initial->n_shared > 0;
        for (int k = 0; initial && k < initial->n_vars; k++)
            external |= initial->vars[k].is_external;
    }
    /* An FMU's equations are not known here: the simulator checks. */
    if (!shared || external)
        return 0;
    hy_ir_mode cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.name = ir->model_name;
    cfg.chart = -1;
    cfg.syntax_index = -1;
    int *config_var = hy_malloc(sizeof *config_var * ((size_t)ir->strings->n_strings + 1));
    char what[400];
    size_t used = (size_t)snprintf(what, sizeof what, "the initial configuration (");
    int status = config_var ? 0 : -1;
    for (int i = 0; config_var && i <= ir->strings->n_strings; i++)
        config_var[i] = -1;
    for (int c = 0; c < ir->n_charts && status == 0; c++) {
        int m = ir->charts[c].initial;
        if (m < 0)
            continue;
        status = add_to_configuration(ir, &cfg, &ir->modes[m], config_var);
        if (used + 80 < sizeof what)
            used += (size_t)snprintf(what + used, sizeof what - used, "%s%s of chart %s",
                                     c ? ", " : "", hy_strtab_get(ir->strings, ir->modes[m].name),
                                     hy_strtab_get(ir->strings, ir->charts[c].name));
        else if (used + 8 < sizeof what)
            used += (size_t)snprintf(what + used, sizeof what - used, ", ...");
    }
    if (used + 2 < sizeof what)
        snprintf(what + used, sizeof what - used, ")");
    int n_errors = 0;
    if (status != 0) {
        hy_diag_nomem(diag);
        n_errors = 1;
    } else {
        /* The counts were checked by sema per mode but not summed. */
        if (cfg.n_equations != cfg.n_vars) {
            int line = 0, column = 0; /* at the first initial mode that shares */
            for (int c = ir->n_charts - 1; c >= 0; c--) {
                const hy_ir_mode *m = ir->charts[c].initial >= 0 ? &ir->modes[ir->charts[c].initial]
                                                                 : NULL;
                if (m && m->n_shared > 0 && m->syntax_index >= 0) {
                    line = m->line;
                    column = m->column;
                }
            }
            hy_diag_error(diag, line, column, "%s has %d equation%s for %d unknown%s: the "
                          "system is %s", what, cfg.n_equations, cfg.n_equations == 1 ? "" : "s",
                          cfg.n_vars, cfg.n_vars == 1 ? "" : "s",
                          cfg.n_equations < cfg.n_vars ? "underdetermined" : "overdetermined");
            n_errors = 1;
        } else {
            n_errors = analyse_mode(ir, &cfg, diag, what, 1);
        }
        ir->initial_configuration.analysed = cfg.structure.analysed && n_errors == 0;
        ir->initial_configuration.n_vars = cfg.n_vars;
        ir->initial_configuration.n_equations = cfg.n_equations;
        ir->initial_configuration.n_loops = cfg.structure.n_loops;
    }
    free_structure(&cfg.structure);
    hy_free(cfg.vars);
    hy_free(cfg.equations);
    hy_free(config_var);
    return n_errors;
}

/* The incidence of a mode with lane equations (a loop kept as a loop),
** row by row: lane j of an equation has the unknowns of its lane 0, those
** of lane leaves moved by j, the graph build_incidence makes of the
** unrolled mode. */
static int build_lane_incidence(hy_ir *ir, const hy_ir_mode *mode, int index1, incidence *g)
{
    int n_rows = mode->n_rows, n_eqs = mode->n_equations, cap_leaves = 0, n_leaves = 0;
    int cap = 0, count = 0, status = 0;
    int *row_eq = hy_malloc(sizeof *row_eq * ((size_t)n_rows + 1));
    int *row_lane = hy_malloc(sizeof *row_lane * ((size_t)n_rows + 1));
    int *leaf_start = hy_malloc(sizeof *leaf_start * ((size_t)n_eqs + 1));
    int *leaves = NULL;      /* per leaf: 4 * unknown + 2 * moves + is y' */
    unsigned char *seen = hy_calloc((size_t)mode->n_vars + 1, 1);
    g->n = n_rows;
    g->start = hy_malloc(sizeof *g->start * ((size_t)n_rows + 1));
    g->adj = NULL;
    if (!row_eq || !row_lane || !leaf_start || !seen || !g->start)
        status = -1;
    for (int i = 0; i < n_eqs && status == 0; i++) {
        const hy_ir_equation *eq = &mode->equations[i];
        for (int j = 0; j < eq->lanes; j++) {
            row_eq[eq->row + j * eq->row_stride] = i;
            row_lane[eq->row + j * eq->row_stride] = j;
        }
        leaf_start[i] = n_leaves;
        const int *list = NULL;
        int n_list = hy_x_walk(&ir->dag, &eq->residual, 1, &list);
        status = n_list < 0 ? -1 : 0;
        for (int k = 0; k < n_list && status == 0; k++) {
            const hy_xnode leaf = hy_x_node(&ir->dag, list[k]);
            if (leaf.op != X_Y && leaf.op != X_YP)
                continue;
            status = hy_grow((void **)&leaves, &cap_leaves, n_leaves + 1, sizeof *leaves);
            if (status == 0)
                leaves[n_leaves++] = 4 * leaf.a + 2 * hy_x_is_lane_leaf((hy_xop)leaf.op, leaf.fn)
                                     + (leaf.op == X_YP);
        }
    }
    if (status == 0)
        leaf_start[n_eqs] = n_leaves;
    for (int r = 0; r < n_rows && status == 0; r++) {
        g->start[r] = count;
        int i = row_eq[r];
        for (int l = leaf_start[i]; l < leaf_start[i + 1] && status == 0; l++) {
            int j = leaves[l] / 4 + ((leaves[l] & 2) ? row_lane[r] : 0), is_yp = leaves[l] & 1;
            if ((index1 && is_yp != (mode->vars[j].is_differential != 0)) || seen[j])
                continue;
            seen[j] = 1;
            status = hy_grow((void **)&g->adj, &cap, count + 1, sizeof *g->adj);
            if (status == 0)
                g->adj[count++] = j;
        }
        for (int k = g->start[r]; k < count; k++)
            seen[g->adj[k]] = 0;
    }
    if (status == 0)
        g->start[n_rows] = count;
    hy_free(row_eq);
    hy_free(row_lane);
    hy_free(leaf_start);
    hy_free(leaves);
    hy_free(seen);
    if (status != 0)
        incidence_free(g);
    return status;
}

/* A mode with lane equations: matched as analyse_mode matches the
** unrolled mode, on the same graph. Both matchings perfect (structurally
** nonsingular, index <= 1): nothing to report, as for the unrolled mode;
** else refused, and compile.c compiles the model unrolled, which reports.
** (An explicit ODE always matches: its equation der(x_k) = f_k to x_k.) */
static int analyse_lane_mode(hy_ir *ir, hy_ir_mode *mode, hy_diag *diag)
{
    int n = mode->n_vars;
    if (mode->is_explicit || n == 0)
        return 0;
    int *row_match = hy_malloc(sizeof *row_match * ((size_t)mode->n_rows + 1));
    int *col_match = hy_malloc(sizeof *col_match * ((size_t)n + 1));
    int matched = row_match && col_match && mode->n_rows == n ? n : -1;
    for (int index1 = 0; index1 < 2 && matched == n; index1++) {
        incidence g;
        matched = build_lane_incidence(ir, mode, index1, &g) == 0
                      ? maximum_matching(&g, n, row_match, col_match) : -1;
        if (matched >= 0)
            incidence_free(&g);
    }
    hy_free(row_match);
    hy_free(col_match);
    if (matched == n) {
        mode->structure.analysed = 1;
        mode->structure.index_ok = 1;
        return 0;
    }
    hy_diag_error(diag, mode->line, mode->column, "mode '%s' is singular or of index > 1 "
                  "(a loop kept as a loop)", hy_strtab_get(ir->strings, mode->name));
    return 1;
}

int hy_structure_analyse(hy_ir *ir, hy_diag *diag)
{
    int n_errors = 0;
    for (int m = 0; m < ir->n_modes; m++) {
        if (ir->modes[m].n_lane_equations > 0) {
            n_errors += analyse_lane_mode(ir, &ir->modes[m], diag);
            continue;
        }
        char what[300];
        snprintf(what, sizeof what, "mode '%s'", hy_strtab_get(ir->strings, ir->modes[m].name));
        n_errors += analyse_mode(ir, &ir->modes[m], diag, what, 0);
    }
    if (n_errors == 0)
        n_errors += analyse_initial_configuration(ir, diag);
    return n_errors;
}
