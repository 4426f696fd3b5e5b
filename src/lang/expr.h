/*
** Symbolic expressions of the model-language compiler: a hash-consed DAG
** (each distinct node exists once, so common subexpressions are shared)
** whose constructors fold constants and simplify 0 and 1 terms. A node's
** operands always have smaller indices than the node, so every pass is a
** loop over indices, never a recursion over the input's depth.
**
** Leaves: numbers, the unknowns y[k] and their derivatives y'[k] of the
** mode being compiled, p[k] (parameters and discrete variables), time, cj
** (the Jacobian's coefficient) and in[k] (values an action reads by name).
*/
#ifndef HY_LANG_EXPR_H
#define HY_LANG_EXPR_H

#include <stddef.h>
#include <stdint.h>

/* Built-in functions: X(id, name, arity). */
#define HY_FUNCTION_LIST(X)                                                  \
    X(FN_SIN, "sin", 1) X(FN_COS, "cos", 1) X(FN_TAN, "tan", 1)              \
    X(FN_ASIN, "asin", 1) X(FN_ACOS, "acos", 1) X(FN_ATAN, "atan", 1)        \
    X(FN_SINH, "sinh", 1) X(FN_COSH, "cosh", 1) X(FN_TANH, "tanh", 1)        \
    X(FN_EXP, "exp", 1) X(FN_LOG, "log", 1) X(FN_LOG10, "log10", 1)          \
    X(FN_SQRT, "sqrt", 1) X(FN_ABS, "abs", 1) X(FN_SIGN, "sign", 1)          \
    X(FN_FLOOR, "floor", 1) X(FN_CEIL, "ceil", 1)                            \
    X(FN_ATAN2, "atan2", 2) X(FN_MIN, "min", 2) X(FN_MAX, "max", 2)          \
    X(FN_MOD, "mod", 2) X(FN_REM, "rem", 2)                                  \
    X(FN_INTEGER, "integer", 1) X(FN_DIV, "div", 2)

typedef enum hy_function {
#define HY_FUNCTION_ENUM_(id, name, arity) id,
    HY_FUNCTION_LIST(HY_FUNCTION_ENUM_)
#undef HY_FUNCTION_ENUM_
    FN_N_FUNCTIONS
} hy_function;

/* The function called name (FN_N_FUNCTIONS if none) and its arity. */
hy_function hy_function_find(const char *name);
int hy_function_arity(hy_function fn);
const char *hy_function_name(hy_function fn);
/* Apply a built-in function (b unused for unary ones). */
double hy_function_apply(hy_function fn, double a, double b);

typedef enum hy_xop {
    X_NUM, X_Y, X_YP, X_P, X_T, X_CJ, X_IN,  /* leaves; index in a */
    X_NEG, X_NOT, X_FN1,                     /* a (X_FN1: fn) */
    X_ADD, X_SUB, X_MUL, X_DIV, X_POW,
    X_LT, X_LE, X_GT, X_GE, X_EQ, X_NE, X_AND, X_OR,
    X_FN2,                                   /* a, b (fn) */
    X_IF                                     /* a ? b : c */
} hy_xop;

/* Flags: what a node depends on. */
enum {
    HY_DEP_STATE = 1,  /* y, y' or time: changes during integration */
    HY_DEP_P = 2,      /* parameters or discrete variables */
    HY_DEP_IN = 4,     /* in[] */
    HY_DEP_YP = 8      /* y' in particular */
};

/* 16 bytes: a number's value shares its bytes with the operands b and c,
** which a leaf does not have (read b and c only of operations, value
** only of X_NUM). */
typedef struct hy_xnode {
    unsigned char op, fn, deps;
    int a;
    union {
        struct {
            int b, c;
        };
        double value;  /* X_NUM */
    };
} hy_xnode;

/* A hash-table slot: the node's hash beside its index, so that a probe
** that misses does not read the node array. */
typedef struct hy_xslot {
    uint32_t hash;
    int node_plus1;    /* 0: empty */
} hy_xslot;

/* A node is named by its index (a handle): the node array moves whenever
** a constructor appends to it, so no pointer into it leaves expr.c; other
** files read a node as a copy with hy_x_node(). */
typedef struct hy_expr {
    int n_nodes, cap_nodes;
    hy_xnode *node_array;  /* private to expr.c */
    hy_xslot *slots;   /* open addressing, linear probing, load <= 3/4;
                          NULL: dropped, rebuilt by the next constructor */
    int n_slots;
    unsigned *stamp;   /* per node: visited in walk number `epoch` */
    int *scratch;      /* per node: a walk's result, valid where stamped */
    unsigned epoch;
    int *walk_list, *walk_stack; /* hy_x_walk's buffers, reused */
    int cap_walk_list, cap_walk_stack;
    int zero_plus1, one_plus1; /* the nodes of 0 and 1, + 1 (0: not yet made) */
    int failed;        /* out of memory: constructors return -1 from then on */
} hy_expr;

void hy_expr_init(hy_expr *e);
void hy_expr_free(hy_expr *e);
/* Free the hash table (the largest part of e after the nodes) while only
** walks run, as when the programs are built; a constructor called later
** rebuilds it. */
void hy_expr_drop_table(hy_expr *e);

/* Constructors: the node index, or -1 when out of memory (or an operand
** is -1). They fold constants and simplify (x + 0, x * 1, x * 0, --x,
** x ^ 1, ...) and order the operands of + and * canonically. */
int hy_x_num(hy_expr *e, double value);
int hy_x_leaf(hy_expr *e, hy_xop op, int index);   /* X_Y X_YP X_P X_T X_CJ X_IN */
/* A leaf of a loop kept as a loop (X_Y, X_YP): y[index + j] in its lane j
** (fn HY_LANE_LEAF); a node that uses one is computed once per lane
** (vm_lanes.c). Other passes must not meet them (they read y[index]). */
enum { HY_LANE_LEAF = 1 };
int hy_x_lane_leaf(hy_expr *e, hy_xop op, int index);
static inline int hy_x_is_lane_leaf(hy_xop op, int fn)
{
    return (op == X_Y || op == X_YP) && fn == HY_LANE_LEAF;
}
int hy_x_unary(hy_expr *e, hy_xop op, int a);      /* X_NEG X_NOT */
int hy_x_binary(hy_expr *e, hy_xop op, int a, int b);
int hy_x_fn(hy_expr *e, hy_function fn, int a, int b); /* b = -1 for unary */
/* What hy_x_binary folds two numbers to (X_ADD ... X_OR). */
double hy_x_fold(hy_xop op, double x, double y);
int hy_x_if(hy_expr *e, int cond, int then_value, int else_value);

/* A copy of node i, valid whatever is appended afterwards. */
static inline hy_xnode hy_x_node(const hy_expr *e, int i)
{
    return e->node_array[i];
}
static inline int hy_x_is_num(const hy_expr *e, int i, double value)
{
    return e->node_array[i].op == X_NUM && e->node_array[i].value == value;
}

/* The nodes reachable from roots[0..n_roots) (ignoring -1), in increasing
** index order (operands first), into *out (malloc'ed, caller frees).
** Returns the count, or -1 when out of memory. Iterative. */
int hy_x_reachable(hy_expr *e, const int *roots, int n_roots, int **out);

/* The same walk into a buffer of e's (*list; no allocation once it has
** grown), valid until the next walk: hy_x_walk, hy_x_reachable,
** hy_x_derivative or hy_x_substitute. Constructors leave it alone. */
int hy_x_walk(hy_expr *e, const int *roots, int n_roots, const int **list);

/* d(root)/d(leaf), leaf an X_Y or X_YP (or X_IN) node: the derivative's
** node, or -1 when out of memory. Iterative over the reachable nodes. */
int hy_x_derivative(hy_expr *e, int root, int leaf);
/* The same over list[0..n_list), root's nodes as a walk gives them (root
** last), so that the derivatives of one root by several leaves share one
** walk; the walk of only the nodes at or above the leaf's index. */
int hy_x_derivative_over(hy_expr *e, const int *list, int n_list, int leaf);
/* The derivatives of root = list[n_list - 1] by every node of the walk
** list at once, by reverse accumulation: afterwards hy_x_adjoint(e, leaf)
** is d(root)/d(leaf) for a y or y' leaf in the list, until the next walk
** or derivative. Linear in the list, where a forward pass per leaf costs
** the list once per leaf (quadratic for an equation such as
** der(s) = sum(x[i] for i in 1:n)); its nodes differ from the forward
** ones (equal values, rounded differently). 0, or -1 out of memory. */
int hy_x_adjoints_over(hy_expr *e, const int *list, int n_list);
static inline int hy_x_adjoint(const hy_expr *e, int leaf)
{
    return e->scratch[leaf];
}

/* Copy of root with every leaf of kind leaf_op (X_Y, X_YP or X_IN) with
** index k replaced by subst[k] (n_subst long; -1 keeps the leaf).
** Iterative. -1 when out of memory. */
int hy_x_substitute(hy_expr *e, int root, hy_xop leaf_op, const int *subst, int n_subst);

#endif
