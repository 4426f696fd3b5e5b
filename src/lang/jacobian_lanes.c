/*
** The Jacobians of a mode with lane equations (a loop kept as a loop,
** unroll_lanes.c): each equation derived once, as jacobian.c derives an
** unrolled one (the same forward or reverse accumulation, the same
** entries in the same order, zero entries left out), its entries standing
** for every lane: the column of a lane leaf moves with the lane, that of
** any other leaf stays. A leaf of either kind on one unknown in one
** equation would make one entry of two in some lane: refused (-1; the
** model is then compiled unrolled).
*/
#include "lang/sema.h"
#include "lang/strtab.h" /* hy_grow */
#include "core/core.h"

#include <stdlib.h>

enum { HY_FORWARD_MAX_UNKNOWNS = 32 }; /* as jacobian.c's */

static int compare_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

typedef struct lane_entries {
    hy_ir_lane_entry *entries;
    int n, cap;
} lane_entries;

static int add_entry(lane_entries *list, hy_ir_lane_entry entry)
{
    if (hy_grow((void **)&list->entries, &list->cap, list->n + 1, sizeof *list->entries))
        return -1;
    list->entries[list->n++] = entry;
    return 0;
}

/* Per unknown of the mode while one equation is derived: its y and y'
** leaves and whether they move with the lane (-1: none yet). */
typedef struct leaves {
    int *dy, *dyp;
    signed char *moves;
    int *cols;
} leaves;

/* The unknowns the walk list[0..n_list) mentions, ascending, into
** cols; -1 when a lane leaf and a fixed one share an unknown. */
static int mentioned(const hy_expr *e, const int *list, int n_list, leaves *lv)
{
    int n_cols = 0;
    for (int k = 0; k < n_list; k++) {
        const hy_xnode leaf = hy_x_node(e, list[k]);
        if (leaf.op != X_Y && leaf.op != X_YP)
            continue;
        int moves = hy_x_is_lane_leaf((hy_xop)leaf.op, leaf.fn);
        if (lv->moves[leaf.a] < 0)
            lv->cols[n_cols++] = leaf.a;
        else if (lv->moves[leaf.a] != moves)
            return -1;
        lv->moves[leaf.a] = (signed char)moves;
        if (leaf.op == X_Y)
            lv->dy[leaf.a] = list[k];
        else
            lv->dyp[leaf.a] = list[k];
    }
    qsort(lv->cols, (size_t)n_cols, sizeof *lv->cols, compare_int);
    return n_cols;
}

/* Clear the unknowns of one equation's columns. */
static void forget(leaves *lv, const int *cols, int n_cols)
{
    for (int k = 0; k < n_cols; k++) {
        int j = cols[k];
        lv->dy[j] = lv->dyp[j] = -1;
        lv->moves[j] = -1;
    }
}

/* dF/dy + cj dF/dy' of one equation, as jacobian.c's derive_mode. */
static int derive_equation(hy_expr *e, const hy_ir_equation *eq, leaves *lv, int cj, int zero,
                           lane_entries *out)
{
    int root = eq->residual;
    const int *list = NULL;
    int n_list = hy_x_walk(e, &root, 1, &list);
    if (n_list < 0)
        return -1;
    int n_cols = mentioned(e, list, n_list, lv);
    if (n_cols < 0)
        return -1; /* the clash's columns stay marked: the attempt is abandoned */
    int reverse = n_cols > HY_FORWARD_MAX_UNKNOWNS, status = 0;
    if (reverse && hy_x_adjoints_over(e, list, n_list) != 0)
        status = -1;
    for (int k = 0; k < n_cols && status == 0; k++) {
        int j = lv->cols[k];
        int d_y = lv->dy[j] < 0 ? zero
                  : reverse ? hy_x_adjoint(e, lv->dy[j])
                            : hy_x_derivative_over(e, list, n_list, lv->dy[j]);
        int d_yp = lv->dyp[j] < 0 ? zero
                   : reverse ? hy_x_adjoint(e, lv->dyp[j])
                             : hy_x_derivative_over(e, list, n_list, lv->dyp[j]);
        int entry = hy_x_binary(e, X_ADD, d_y, hy_x_binary(e, X_MUL, cj, d_yp));
        hy_ir_lane_entry added = { eq->row, j, entry, eq->lanes, eq->row_stride, lv->moves[j] };
        if (entry < 0)
            status = -1;
        else if (!hy_x_is_num(e, entry, 0.0))
            status = add_entry(out, added);
    }
    forget(lv, lv->cols, n_cols);
    return status;
}

/* df/dy of one explicit equation, as jacobian.c's derive_rhs: one entry
** per y leaf in walk order. */
static int derive_rhs_equation(hy_expr *e, const hy_ir_equation *eq, leaves *lv,
                               lane_entries *out)
{
    int root = eq->explicit_rhs;
    const int *list = NULL;
    int n_list = hy_x_walk(e, &root, 1, &list);
    if (n_list < 0)
        return -1;
    int n_leaves = 0, status = 0;
    for (int l = 0; l < n_list && status == 0; l++) {
        const hy_xnode leaf = hy_x_node(e, list[l]);
        if (leaf.op != X_Y)
            continue;
        n_leaves++;
        status = lv->moves[leaf.a] >= 0 ? -1 : 0; /* a lane and a fixed leaf of one unknown */
        lv->moves[leaf.a] = (signed char)hy_x_is_lane_leaf(X_Y, leaf.fn);
    }
    int reverse = n_leaves > HY_FORWARD_MAX_UNKNOWNS;
    if (status == 0 && reverse && hy_x_adjoints_over(e, list, n_list) != 0)
        status = -1;
    for (int l = 0; l < n_list && status == 0; l++) {
        const hy_xnode leaf = hy_x_node(e, list[l]);
        if (leaf.op != X_Y)
            continue;
        int entry = reverse ? hy_x_adjoint(e, list[l])
                            : hy_x_derivative_over(e, list, n_list, list[l]);
        hy_ir_lane_entry added = { eq->explicit_state, leaf.a, entry, eq->lanes, 1,
                                   hy_x_is_lane_leaf(X_Y, leaf.fn) };
        if (entry < 0)
            status = -1;
        else if (!hy_x_is_num(e, entry, 0.0))
            status = add_entry(out, added);
    }
    for (int l = 0; l < n_list; l++) {
        const hy_xnode leaf = hy_x_node(e, list[l]);
        if (leaf.op == X_Y)
            lv->moves[leaf.a] = -1;
    }
    return status;
}

int hy_jacobian_derive_lanes(hy_ir *ir, hy_ir_mode *mode)
{
    hy_expr *e = &ir->dag;
    int n = mode->n_vars, status = 0;
    leaves lv;
    lv.dy = hy_malloc(sizeof *lv.dy * (size_t)(n + 1));
    lv.dyp = hy_malloc(sizeof *lv.dyp * (size_t)(n + 1));
    lv.cols = hy_malloc(sizeof *lv.cols * (size_t)(n + 1));
    lv.moves = hy_malloc((size_t)n + 1);
    if (!lv.dy || !lv.dyp || !lv.cols || !lv.moves)
        status = -1;
    for (int j = 0; j < n && status == 0; j++) {
        lv.dy[j] = lv.dyp[j] = -1;
        lv.moves[j] = -1;
    }
    int cj = hy_x_leaf(e, X_CJ, 0), zero = hy_x_num(e, 0.0);
    lane_entries jac = { NULL, 0, 0 }, rhs_jac = { NULL, 0, 0 };
    for (int i = 0; i < mode->n_equations && status == 0; i++)
        status = derive_equation(e, &mode->equations[i], &lv, cj, zero, &jac);
    for (int i = 0; i < mode->n_equations && status == 0 && mode->is_explicit; i++)
        status = derive_rhs_equation(e, &mode->equations[i], &lv, &rhs_jac);
    hy_free(lv.dy);
    hy_free(lv.dyp);
    hy_free(lv.cols);
    hy_free(lv.moves);
    mode->lane_jac = jac.entries;
    mode->n_lane_jac = jac.n;
    mode->lane_rhs_jac = rhs_jac.entries;
    mode->n_lane_rhs_jac = rhs_jac.n;
    return status;
}
