/*
** Symbolic Jacobians of the modes: for every equation i and every unknown
** j it mentions, the DAG node of dF_i/dy_j + cj dF_i/dy'_j (simplified, so
** structural zeros vanish), and the sparsity pattern: the (i, j) entries
** that are not identically zero. The engine wants the dense column-major
** matrix; the pattern is kept for a sparse solver later. An explicit mode
** (der(x_k) = f_k) also gets df/dy, the Jacobian the ODE integrators use.
** A mechanical mode has neither (the simulator forms its Jacobians).
*/
#include "lang/sema.h"
#include "lang/strtab.h"
#include "core/core.h"

#include <stdlib.h>

/* Up to this many unknowns in an equation, its derivatives are formed a
** forward pass per unknown (the simplest nodes); beyond, all at once by
** reverse accumulation, linear in the equation's size. */
enum { HY_FORWARD_MAX_UNKNOWNS = 32 };

static int compare_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* Is v[0..n) ascending? */
static int is_sorted(const int *v, int n)
{
    for (int k = 1; k < n; k++)
        if (v[k - 1] > v[k])
            return 0;
    return 1;
}

/* The unknowns the equation whose walk is list[0..n_list) mentions,
** ascending, into cols (their count returned); dy[j], dyp[j] get the
** leaves y_j, y'_j (entries of other unknowns stay -1). Linear in the
** equation's size, not in the mode's: a mode of 10^5 equations derives
** in O(10^5). */
static int mentioned_unknowns(const hy_expr *e, const int *list, int n_list, int *dy, int *dyp,
                              int *cols)
{
    int n_cols = 0;
    for (int k = 0; k < n_list; k++) {
        const hy_xnode leaf = hy_x_node(e, list[k]);
        if (leaf.op != X_Y && leaf.op != X_YP)
            continue;
        if (dy[leaf.a] < 0 && dyp[leaf.a] < 0)
            cols[n_cols++] = leaf.a;
        if (leaf.op == X_Y)
            dy[leaf.a] = list[k];
        else
            dyp[leaf.a] = list[k];
    }
    if (!is_sorted(cols, n_cols))
        qsort(cols, (size_t)n_cols, sizeof *cols, compare_int);
    return n_cols;
}

/* Append entry (row, col) = node to the mode's Jacobian. */
static int add_entry(hy_ir_mode *mode, int *cap, int row, int col, int node)
{
    int n = mode->n_jac_entries, cap_rows = *cap, cap_cols = *cap, cap_nodes = *cap;
    if (hy_grow((void **)&mode->jac_rows, &cap_rows, n + 1, sizeof(int))
        || hy_grow((void **)&mode->jac_cols, &cap_cols, n + 1, sizeof(int))
        || hy_grow((void **)&mode->jac_nodes, &cap_nodes, n + 1, sizeof(int)))
        return -1;
    *cap = cap_rows;
    mode->jac_rows[n] = row;
    mode->jac_cols[n] = col;
    mode->jac_nodes[n] = node;
    mode->n_jac_entries = n + 1;
    return 0;
}

static int derive_mode(hy_ir *ir, hy_ir_mode *mode)
{
    hy_expr *e = &ir->dag;
    int cap = 0, n = mode->n_vars, status = 0;
    int *dy = hy_malloc(sizeof *dy * (size_t)(n + 1));
    int *dyp = hy_malloc(sizeof *dyp * (size_t)(n + 1));
    int *cols = hy_malloc(sizeof *cols * (size_t)(n + 1));
    if (!dy || !dyp || !cols)
        status = -1;
    for (int j = 0; j < n && status == 0; j++)
        dy[j] = dyp[j] = -1;
    int cj = hy_x_leaf(e, X_CJ, 0), zero = hy_x_num(e, 0.0);
    for (int i = 0; i < mode->n_equations && status == 0; i++) {
        int root = mode->equations[i].residual;
        const int *list = NULL;
        int n_list = hy_x_walk(e, &root, 1, &list);
        if (n_list < 0) {
            status = -1;
            break;
        }
        /* the walk's buffer stays valid: only constructors run below */
        int n_cols = mentioned_unknowns(e, list, n_list, dy, dyp, cols);
        int reverse = n_cols > HY_FORWARD_MAX_UNKNOWNS;
        if (reverse && hy_x_adjoints_over(e, list, n_list) != 0) {
            status = -1;
            break;
        }
        for (int k = 0; k < n_cols; k++) {
            int j = cols[k];
            int d_y = dy[j] < 0 ? zero
                      : reverse ? hy_x_adjoint(e, dy[j])
                                : hy_x_derivative_over(e, list, n_list, dy[j]);
            int d_yp = dyp[j] < 0 ? zero
                       : reverse ? hy_x_adjoint(e, dyp[j])
                                 : hy_x_derivative_over(e, list, n_list, dyp[j]);
            int entry = hy_x_binary(e, X_ADD, d_y, hy_x_binary(e, X_MUL, cj, d_yp));
            dy[j] = dyp[j] = -1;
            if (status == 0 && entry < 0)
                status = -1;
            if (status == 0 && !hy_x_is_num(e, entry, 0.0))
                status = add_entry(mode, &cap, i, j, entry);
        }
    }
    hy_free(dy);
    hy_free(dyp);
    hy_free(cols);
    return status;
}

/* An explicit mode's df/dy: for every f_k and every y_j it mentions, the
** node of df_k/dy_j when it is not identically zero. */
static int derive_rhs(hy_ir *ir, hy_ir_mode *mode)
{
    hy_expr *e = &ir->dag;
    int cap_rows = 0, cap_cols = 0, cap_nodes = 0;
    for (int k = 0; k < mode->n_vars; k++) {
        int root = mode->rhs_nodes[k];
        const int *list = NULL;
        int n_list = hy_x_walk(e, &root, 1, &list);
        if (n_list < 0)
            return -1;
        /* the walk's buffer stays valid: only constructors run below */
        int n_leaves = 0;
        for (int l = 0; l < n_list; l++)
            n_leaves += hy_x_node(e, list[l]).op == X_Y;
        int reverse = n_leaves > HY_FORWARD_MAX_UNKNOWNS;
        if (reverse && hy_x_adjoints_over(e, list, n_list) != 0)
            return -1;
        for (int l = 0; l < n_list; l++) {
            const hy_xnode leaf = hy_x_node(e, list[l]);
            if (leaf.op != X_Y)
                continue;
            int column = leaf.a, n = mode->n_rhs_jac_entries;
            int entry = reverse ? hy_x_adjoint(e, list[l])
                                : hy_x_derivative_over(e, list, n_list, list[l]);
            if (entry < 0 || hy_grow((void **)&mode->rhs_jac_rows, &cap_rows, n + 1, sizeof(int))
                || hy_grow((void **)&mode->rhs_jac_cols, &cap_cols, n + 1, sizeof(int))
                || hy_grow((void **)&mode->rhs_jac_nodes, &cap_nodes, n + 1, sizeof(int)))
                return -1;
            if (hy_x_is_num(e, entry, 0.0))
                continue;
            mode->rhs_jac_rows[n] = k;
            mode->rhs_jac_cols[n] = column;
            mode->rhs_jac_nodes[n] = entry;
            mode->n_rhs_jac_entries = n + 1;
        }
    }
    return 0;
}

int hy_jacobian_derive(hy_ir *ir)
{
    for (int m = 0; m < ir->n_modes; m++) {
        if (ir->modes[m].is_mechanical)
            continue; /* its matrices come from mechanics.c; no residual */
        if (ir->modes[m].n_lane_equations > 0) {
            if (hy_jacobian_derive_lanes(ir, &ir->modes[m]) != 0)
                return -1;
            continue;
        }
        if (derive_mode(ir, &ir->modes[m]) != 0)
            return -1;
        if (ir->modes[m].is_explicit && derive_rhs(ir, &ir->modes[m]) != 0)
            return -1;
    }
    return 0;
}
