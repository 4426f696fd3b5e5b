/*
** The syntax of a parsed model file: an arena of expression nodes and the
** lists of declarations, equations, statements, modes, charts, transitions
** and experiment settings, all with their source positions. Names are ids
** of the string table.
**
** Expression nodes are appended in the order the parser finishes them, so
** a node's operands always come before it and every expression occupies a
** contiguous range [first, root] of the arena. Later passes walk these
** ranges in index order instead of recursing.
*/
#ifndef HY_LANG_SYNTAX_H
#define HY_LANG_SYNTAX_H

#include "lang/strtab.h"

typedef enum hy_syn_op {
    SYN_NUM, SYN_NAME, SYN_TIME, SYN_EVENT, /* leaves; SYN_EVENT: `event NAME` */
    SYN_NEG, SYN_NOT,                        /* a */
    SYN_ADD, SYN_SUB, SYN_MUL, SYN_DIV, SYN_POW,
    SYN_LT, SYN_LE, SYN_GT, SYN_GE, SYN_EQ, SYN_NE,
    SYN_AND, SYN_OR,                         /* a, b */
    SYN_IF,                                  /* if a then b else c */
    SYN_CALL,                                /* name(a, b, c): n_args given */
    /* Array constructs, gone after hy_unroll (unroll.c): */
    SYN_INDEX,                               /* name[a], or the slice name[a:b] if b >= 0 */
    SYN_REDUCE,                              /* name(a for var in b:c), name sum/min/max/product */
    SYN_ARRAY,                               /* {a, ...}: a is one element, b the next link or -1 */
    SYN_COMPREH                              /* {a for var in b:c} */
} hy_syn_op;

enum { HY_SYN_MAX_ARGS = 3 };

/* 40 bytes (48 before value shared its bytes with first and var): an
** unrolled array model holds tens of millions of these at its peak. Read
** value only of SYN_NUM, first and var only of the array constructs
** (op >= SYN_INDEX). */
typedef struct hy_syn {
    unsigned char op;
    unsigned char n_args;    /* SYN_CALL: arguments given, up to 255 counted */
    unsigned char lane;      /* SYN_NAME of a loop kept as a loop (unroll_lanes.c):
                                the element at the first value of the loop variable,
                                the next one at the next; var: the element at the last */
    int line, column;
    int a, b, c;             /* operand node indices, -1 if none */
    int name;                /* SYN_NAME, SYN_CALL, SYN_EVENT */
    union {
        double value;        /* SYN_NUM */
        struct {
            int first;       /* array constructs: first node of a's range (b's
                                starts at a + 1, c's at b + 1) */
            int var;         /* SYN_REDUCE, SYN_COMPREH: the loop variable;
                                SYN_INDEX: the member after it ("w" of J[i].w), or -1;
                                SYN_ARRAY: the elements from this link on (the
                                links are consecutive nodes, the last
                                element's first); SYN_NAME with lane set:
                                the name of the element at the last lane */
        };
    };
} hy_syn;

/* An expression: nodes [first, root]; root -1 if absent. */
typedef struct hy_expr_ref {
    int first, root;
} hy_expr_ref;

typedef enum hy_decl_kind {
    DECL_PARAMETER, DECL_CONSTANT, DECL_DISCRETE, DECL_VARIABLE,
    DECL_COMPONENT           /* TYPE NAME(modifiers): an instance of a class */
} hy_decl_kind;

/* `name = expr` in a component's modifiers: name (dotted to reach into
** its sub-components) is a parameter or constant (its value) or a
** variable (its start) of the instance. */
typedef struct hy_mod_syn {
    int name, line, column;
    hy_expr_ref value;
    int string_value;        /* `file = "F.fmu"` of an Fmu: the string id (value
                                root -1), else -1 */
} hy_mod_syn;

typedef struct hy_decl {
    hy_decl_kind kind;
    int name, line, column;
    hy_expr_ref value;       /* parameter/constant: value; variable/discrete: start */
    int value_line, value_column;
    int unit, description;   /* string ids or -1 */
    hy_expr_ref rtol, atol;  /* variable tolerances, root -1 if not given */
    int mode;                /* -1: model level */
    hy_expr_ref size;        /* `NAME[size]`: an array; root -1: a scalar */
    int cls;                 /* the class it belongs to */
    int is_flow;             /* `flow Real i;` in a connector */
    int is_input;            /* `input Real u;`: a discrete variable set from outside
                                (an exported FMU's input) */
    int type_name;           /* DECL_COMPONENT: the class instantiated */
    int mod_first, mod_count; /* DECL_COMPONENT: its modifiers */
    int inherited;           /* declared in a mode with sub-modes, copied to each (hierarchy.c) */
    int fmu_kind;            /* a variable of an Fmu component (fmu_component.c), its
                                equations given by the FMU: HY_FMU_* below, 0: none */
} hy_decl;

enum { HY_FMU_STATE = 1, HY_FMU_OUTPUT, HY_FMU_INPUT, HY_FMU_PARAMETER };

typedef struct hy_equation_syn {
    hy_expr_ref lhs, rhs;
    int line, column;        /* of the '=' */
    int mode;                /* -1: model level */
    int output_name;         /* `output NAME = expr;`: the name, else -1 */
    hy_expr_ref output_index; /* `output NAME[index] = ...`; root -1 if none */
    int loop;                /* innermost enclosing for-loop, -1 if none */
    int cls;                 /* the class it belongs to */
    int connect_a, connect_b; /* `connect(a, b);`: the connectors; else -1 */
    /* connect(J[i].b, ...): connect_a is "J", its index and member "b" (-1) */
    hy_expr_ref connect_a_index, connect_b_index;
    int connect_a_member, connect_b_member;
    int b_line, b_column;    /* of connect's second argument */
    /* An equation of a for-loop kept as a loop (unroll_lanes.c): written
    ** for the loop variable's first value, it stands for `lanes` equations
    ** (0: one); it is equation lane_pos of the lane_body the loop holds,
    ** which the unrolled model would number body by body. */
    int lanes, lane_body, lane_pos;
} hy_equation_syn;

typedef struct hy_stmt_syn {
    int is_raise;
    int target;              /* the assigned name or the raised event */
    int line, column;
    hy_expr_ref value;       /* assignment */
    hy_expr_ref target_index; /* `NAME[index] := ...`; root -1 if none */
    int loop;                /* innermost enclosing for-loop, -1 if none */
} hy_stmt_syn;

/* `for var in from:to loop ... end for;` around equations or statements;
** the loops of one section nest through parent (depth 0: outermost). */
typedef struct hy_loop_syn {
    int var, line, column;
    hy_expr_ref from, to;
    int parent, depth;
} hy_loop_syn;

/* A range of statements in the statement list. */
typedef struct hy_stmt_range {
    int first, count;
    int line, column;        /* of the section keyword; line 0 if absent */
} hy_stmt_range;

typedef struct hy_mode_syn {
    int name, line, column;
    int chart;               /* -1: the implicit chart of the model */
    int is_initial;
    hy_stmt_range entry, exit;
    int cls;                 /* the class it belongs to */
    int is_resting;          /* `resting mode`: entered when events accumulate
                                (zeno_policy = rest) */
    int resting_line, resting_column;
    /* Hierarchy (hierarchy.c flattens it before anything else sees it):
    ** the mode whose sub-chart this one belongs to, -1 at the top. */
    int parent;
    int has_history;         /* `history mode`: re-entered in the sub-mode last active */
    int history_line, history_column;
    /* The entry actions of the enclosing modes, outermost first, that run
    ** before the mode's own at t0 when it is a flattened chart's initial
    ** mode (count 0: none). */
    hy_stmt_range start_entry;
} hy_mode_syn;

typedef struct hy_chart_syn {
    int name, line, column;
    int cls;                 /* the class it belongs to */
} hy_chart_syn;

typedef struct hy_transition_syn {
    int name, line, column;
    int chart;               /* -1: the implicit chart */
    int from, to;            /* mode names, -1 if omitted */
    int from_line, from_column, to_line, to_column;
    hy_expr_ref when;
    hy_stmt_range actions;
    double priority;         /* `priority N`; 0 if absent */
    int priority_line, priority_column;
    int fires_at_start;      /* `initial`: a level test at t0 as well */
    int initial_line, initial_column;
    int cls;                 /* the class it belongs to */
    /* `from * to M`: one copy per other mode of the chart, made when the
    ** class is parsed (its from and from_line/column: the '*'); from_any
    ** stays set on the copies. from -1: none made (no other mode, or M is
    ** not one: sema reports). */
    int from_any;
    int region;              /* the mode whose sub-chart declares it, -1: the chart's top */
    int is_copy;             /* one of the transitions hierarchy.c made of one written */
} hy_transition_syn;

typedef enum hy_class_kind { CLASS_MODEL, CLASS_BLOCK, CLASS_CONNECTOR } hy_class_kind;

/* `model | block | connector NAME ... end NAME;`: a file holds one or more;
** the last model is the one simulated, the others are instantiated as
** components (flatten_modes.c; a component's modes and transitions become a
** chart of its own). */
typedef struct hy_class_syn {
    int name, line, column;  /* name: "Library.Class" for an imported one */
    int short_name;          /* "Class" */
    int package;             /* the library it was imported from, -1: the file's own */
    hy_class_kind kind;
} hy_class_syn;

typedef struct hy_setting_syn {
    int name, line, column;
    hy_expr_ref value;       /* a number */
    int string_value;        /* a string id, or -1 */
    int cls;                 /* the class it belongs to */
} hy_setting_syn;

typedef struct hy_syntax {
    int model_name, line, column;
    int n_nodes, cap_nodes;
    hy_syn *nodes;
    int n_decls, cap_decls;
    hy_decl *decls;
    int n_equations, cap_equations;
    hy_equation_syn *equations;
    int n_stmts, cap_stmts;
    hy_stmt_syn *stmts;
    int n_modes, cap_modes;
    hy_mode_syn *modes;
    int n_charts, cap_charts;
    hy_chart_syn *charts;
    int n_transitions, cap_transitions;
    hy_transition_syn *transitions;
    int n_settings, cap_settings;
    hy_setting_syn *settings;
    int n_loops, cap_loops;
    hy_loop_syn *loops;
    int n_classes, cap_classes;
    hy_class_syn *classes;   /* model_name is the simulated one's name */
    int top;                 /* its index */
    int n_mods, cap_mods;
    hy_mod_syn *mods;
    int flattened;           /* components were expanded (flatten.c) */
    int *structural;         /* parameters that size arrays or bound loops (their
                                names' ids): frozen as constants, hy_syntax_freeze */
    int n_structural, cap_structural;
    int n_aliases;           /* alias equations removed (alias.c) */
    int n_trivial;           /* trivial equations x = number removed (alias.c) */
    int hierarchical;        /* modes with sub-modes were flattened (hierarchy.c) */
    int n_kept_loops;        /* loops kept as loops (unroll_lanes.c), errors or not */
} hy_syntax;

/* Append a node (name, first, var -1; the rest zero): its index, or -1
** when out of memory (syntax.c). */
int hy_syntax_add_node(hy_syntax *s, hy_syn_op op, int line, int column, int a, int b, int c);
void hy_syntax_free(hy_syntax *s);
/* Node n of a range starting at node `first`, copied into one starting at
** `base`: its operands (and its `first`) inside the range moved with it. */
void hy_syn_move_operands(hy_syn *n, int first, int base);
/* a op b (or op a) for the arithmetic of constant expressions (NEG, ADD,
** SUB, MUL, DIV, POW) into *value: 1, or 0 for another op (syntax.c). */
int hy_syn_arith(hy_syn_op op, double a, double b, double *value);
/* name was used as a structural parameter: 0, or -1 when out of memory. */
int hy_syntax_note_structural(hy_syntax *s, int name);
/* The parameters noted structural become constants (syntax.c). */
void hy_syntax_freeze_structural(hy_syntax *s);

#endif
