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

#include <stdlib.h>

static int derive_mode(hy_ir *ir, hy_ir_mode *mode)
{
    hy_expr *e = &ir->dag;
    int cap = 0, n = mode->n_vars;
    int *dy = malloc(sizeof *dy * (size_t)(n + 1));
    int *dyp = malloc(sizeof *dyp * (size_t)(n + 1));
    if (!dy || !dyp)
        goto nomem;
    int cj = hy_x_leaf(e, X_CJ, 0);
    for (int i = 0; i < mode->n_equations; i++) {
        int root = mode->equations[i].residual;
        int *list = NULL;
        int n_list = hy_x_reachable(e, &root, 1, &list);
        if (n_list < 0)
            goto nomem;
        for (int j = 0; j < n; j++)
            dy[j] = dyp[j] = -1;
        for (int k = 0; k < n_list; k++) {
            const hy_xnode *leaf = hy_x_node(e, list[k]);
            if (leaf->op == X_Y)
                dy[leaf->a] = list[k];
            else if (leaf->op == X_YP)
                dyp[leaf->a] = list[k];
        }
        free(list);
        for (int j = 0; j < n; j++) {
            if (dy[j] < 0 && dyp[j] < 0)
                continue;
            int d_y = dy[j] >= 0 ? hy_x_derivative(e, root, dy[j]) : hy_x_num(e, 0.0);
            int d_yp = dyp[j] >= 0 ? hy_x_derivative(e, root, dyp[j]) : hy_x_num(e, 0.0);
            int entry = hy_x_binary(e, X_ADD, d_y, hy_x_binary(e, X_MUL, cj, d_yp));
            if (entry < 0)
                goto nomem;
            if (hy_x_is_num(e, entry, 0.0))
                continue;
            if (mode->n_jac_entries == cap) {
                int new_cap = cap ? 2 * cap : 16;
                int *rows = realloc(mode->jac_rows, sizeof(int) * (size_t)new_cap);
                if (rows)
                    mode->jac_rows = rows;
                int *cols = realloc(mode->jac_cols, sizeof(int) * (size_t)new_cap);
                if (cols)
                    mode->jac_cols = cols;
                int *nodes = realloc(mode->jac_nodes, sizeof(int) * (size_t)new_cap);
                if (nodes)
                    mode->jac_nodes = nodes;
                if (!rows || !cols || !nodes)
                    goto nomem;
                cap = new_cap;
            }
            mode->jac_rows[mode->n_jac_entries] = i;
            mode->jac_cols[mode->n_jac_entries] = j;
            mode->jac_nodes[mode->n_jac_entries] = entry;
            mode->n_jac_entries++;
        }
    }
    free(dy);
    free(dyp);
    return 0;
nomem:
    free(dy);
    free(dyp);
    return -1;
}

/* An explicit mode's df/dy: for every f_k and every y_j it mentions, the
** node of df_k/dy_j when it is not identically zero. */
static int derive_rhs(hy_ir *ir, hy_ir_mode *mode)
{
    hy_expr *e = &ir->dag;
    int cap_rows = 0, cap_cols = 0, cap_nodes = 0;
    for (int k = 0; k < mode->n_vars; k++) {
        int root = mode->rhs_nodes[k];
        int *list = NULL;
        int n_list = hy_x_reachable(e, &root, 1, &list);
        if (n_list < 0)
            return -1;
        for (int l = 0; l < n_list; l++) {
            const hy_xnode *leaf = hy_x_node(e, list[l]);
            if (leaf->op != X_Y)
                continue;
            int column = leaf->a, n = mode->n_rhs_jac_entries;
            int entry = hy_x_derivative(e, root, list[l]);
            if (entry < 0 || hy_grow((void **)&mode->rhs_jac_rows, &cap_rows, n + 1, sizeof(int))
                || hy_grow((void **)&mode->rhs_jac_cols, &cap_cols, n + 1, sizeof(int))
                || hy_grow((void **)&mode->rhs_jac_nodes, &cap_nodes, n + 1, sizeof(int))) {
                free(list);
                return -1;
            }
            if (hy_x_is_num(e, entry, 0.0))
                continue;
            mode->rhs_jac_rows[n] = k;
            mode->rhs_jac_cols[n] = column;
            mode->rhs_jac_nodes[n] = entry;
            mode->n_rhs_jac_entries = n + 1;
        }
        free(list);
    }
    return 0;
}

int hy_jacobian_derive(hy_ir *ir)
{
    for (int m = 0; m < ir->n_modes; m++) {
        if (ir->modes[m].is_mechanical)
            continue; /* its matrices come from mechanics.c; no residual */
        if (derive_mode(ir, &ir->modes[m]) != 0)
            return -1;
        if (ir->modes[m].is_explicit && derive_rhs(ir, &ir->modes[m]) != 0)
            return -1;
    }
    return 0;
}
