/*
** Semantic analysis of the model language: from the syntax to the
** compiled model (the "IR"): name resolution, the parameters and discrete
** variables, each mode's unknowns and residual equations as DAG nodes,
** outputs, guards, hidden condition variables for relations inside
** equations, and transitions with their triggers, conditions and actions.
** Reports undefined and duplicate names, count mismatches, unknown and
** unreachable modes, bad assignments, arity errors and more.
*/
#ifndef HY_LANG_SEMA_H
#define HY_LANG_SEMA_H

#include "lang/diag.h"
#include "lang/expr.h"
#include "lang/lang.h"
#include "lang/syntax.h"

typedef struct hy_ir_var {
    int name;
    int is_differential;     /* der(name) appears in the mode's equations */
    double start;            /* with the parameters' default values */
    int start_node;          /* DAG node of a start value that uses parameters,
                                -1: constant (set again at t0 / on entry if not) */
    double rtol, atol;       /* 0: the run's */
    int unit, description;   /* string ids or -1 */
    int line, column;
    int is_shared;           /* a model-level variable that modes of other
                                charts use too: one unknown of every
                                configuration with those modes active */
    int is_external;         /* a variable of an FMU component: its equations are
                                the FMU's, in a chart the build adds */
} hy_ir_var;

typedef struct hy_ir_equation {
    int residual;            /* DAG node: lhs - rhs */
    int explicit_state;      /* der(x) = f with f free of der(): x's index, else -1 */
    int explicit_rhs;        /* that f (DAG node), else -1 */
    int line, column;        /* of the '=' */
    /* An equation of a loop kept as a loop (unroll_lanes.c): lanes > 1
    ** equations, lane j's unknowns those of lane 0 (its leaves
    ** hy_x_lane_leaf) moved by j, its row row + j row_stride, its state
    ** explicit_state + j. lanes 0 or 1: one equation, row its index. */
    int lanes, row, row_stride;
} hy_ir_equation;

/* A Jacobian entry of a mode with lane equations: lanes entries, lane j's
** at (row + j row_stride, col + j col_moves), the node lane 0's. */
typedef struct hy_ir_lane_entry {
    int row, col, node, lanes, row_stride, col_moves;
} hy_ir_lane_entry;

typedef struct hy_ir_output {
    int name, node, line, column;
} hy_ir_output;

/* A relation inside an equation, replaced by a hidden discrete variable. */
typedef struct hy_ir_relation {
    int guard;               /* index into the mode's guards: lhs - rhs */
    int difference;          /* its DAG node */
    int true_when_rising;    /* '>' '>=': true above zero; '<' '<=': below */
    int global;              /* the hidden discrete variable */
    int relation_node;       /* the live comparison (mode context) */
    /* An integer part of x (is_floor): the global holds the integer k =
    ** floor(x) or trunc(x); guard is x minus the upper end of k's interval
    ** (floor: k + 1), rising: k + 1; guard_down is x minus its lower end
    ** (floor: k), falling: k - 1 (sema_expr.c, event_integer);
    ** relation_node is the live floor(x) or div(a, b). */
    int is_floor, guard_down;
} hy_ir_relation;

/* Result of the structural analysis of a mode (structure.c). */
typedef struct hy_ir_structure {
    int analysed;
    int n_unmatched;         /* equations the matching left without an unknown */
    int *unmatched;          /* their indices */
    int index_ok;            /* 1: index <= 1 (structurally) */
    int n_index_eqs;         /* equations that fail the index-1 matching */
    int *index_eqs;
    int n_blocks;            /* BLT blocks, in solution order */
    int *block_start;        /* n_blocks + 1 offsets into block_eqs */
    int *block_eqs;          /* equations, grouped by block */
    int *eq_unknown;         /* equation -> matched unknown of the index-1 problem:
                                k < n_vars: y'[k]; k >= n_vars: y[k - n_vars] */
    int n_loops;             /* blocks of more than one equation */
    /* Index > 1 (index_ok == 0): Pantelides' algorithm (pantelides.c). */
    int reduced;             /* 1: it finished; 0: structurally singular at
                                higher derivatives (or not run) */
    int *differentiations;   /* per equation: how often it is differentiated */
    int index;               /* structural index (Pryce's rule on the result) */
    int stuck_equation;      /* reduced == 0: the equation whose derivatives
                                never become solvable, else -1 */
} hy_ir_structure;

/* A sparse matrix of DAG nodes: entry k is (rows[k], cols[k]) = nodes[k];
** the entries not listed are identically zero. */
typedef struct hy_ir_sparse {
    int n, cap;
    int *rows, *cols, *nodes;
} hy_ir_sparse;

/* A mode recognised as a constrained mechanical system (mechanics.c):
**     M(q) u' = F(q, u, t) - C(q, t) lambda,   q' = u,   Phi(q, t) = 0.
** Its unknowns are reordered to n_q positions, their n_q velocities, then
** n_c multipliers (vars[], and every y / y' leaf of its equations, guards
** and outputs). The DAG nodes below use that order: q_k = y[k], u_k =
** y[n_q + k]; lambda_k = y[2 n_q + k] does not occur in them. */
typedef struct hy_ir_mechanics {
    int n_q, n_c;
    int *kinematics;         /* n_q: the equation der(q_k) = u_k */
    int *dynamics;           /* n_q: the equations with der(u), in file order */
    int *constraints;        /* n_c: the position constraints, in file order */
    hy_ir_sparse mass;       /* n_q x n_q: d r_i / d der(u_j) */
    hy_ir_sparse multiplier_matrix; /* C, n_q x n_c: d r_i / d lambda_k */
    hy_ir_sparse constraint_jac;    /* Phi_q, n_c x n_q */
    int *force;              /* n_q: F_i = -r_i(der(u) = 0, lambda = 0) */
    int *constraint;         /* n_c: Phi_k, written lhs - rhs */
    int *constraint_t;       /* n_c: dPhi_k/dt; NULL if Phi does not depend on t */
    int *accel_rhs;          /* n_c: gamma = -(v_q u + v_t), v = Phi_q u + Phi_t */
} hy_ir_mechanics;

typedef struct hy_ir_mode {
    int name, line, column;
    int chart;
    int n_vars, cap_vars;
    hy_ir_var *vars;
    int n_shared;            /* vars with is_shared: then n_equations may
                                differ from n_vars (the configuration is
                                square, checked by structure.c at the start
                                and by the simulator at every event) */
    int n_equations, cap_equations;
    hy_ir_equation *equations;
    int n_outputs, cap_outputs;
    hy_ir_output *outputs;
    int n_guards, cap_guards;
    int *guards;             /* DAG nodes */
    int n_relations, cap_relations;
    hy_ir_relation *relations;
    hy_stmt_range entry, exit;
    hy_stmt_range start_entry; /* enclosing modes' entry actions at t0 (hierarchy.c) */
    int syntax_index;        /* in syntax->modes, -1 if implicit */
    hy_ir_structure structure;
    /* Jacobian sparsity: entries (row, column) that are not zero. */
    int n_jac_entries;
    int *jac_rows, *jac_cols;
    int *jac_nodes;          /* DAG: dF_i/dy_j + cj dF_i/dy'_j */
    /* An explicit ODE (every equation der(x_k) = f_k(t, y, p), one per
    ** unknown): f_k (DAG node, by state) and the non-zeros of df/dy. */
    int is_explicit;
    int *rhs_nodes;
    int n_rhs_jac_entries;
    int *rhs_jac_rows, *rhs_jac_cols, *rhs_jac_nodes;
    /* Lane equations (n_lane_equations > 0): the equations stand for
    ** n_rows rows, and the Jacobians are the entries below instead of
    ** jac_* and rhs_* (jacobian_lanes.c; rhs_nodes NULL: an explicit
    ** mode's f is each equation's explicit_rhs); structure only says
    ** whether both matchings are perfect (structure.c: no blocks). */
    int n_lane_equations, n_rows;
    int n_lane_jac, n_lane_rhs_jac;
    hy_ir_lane_entry *lane_jac, *lane_rhs_jac;
    /* Index > 1 reduced as a mechanical system (no residual, no Jacobian). */
    int is_mechanical;
    hy_ir_mechanics mech;
} hy_ir_mode;

typedef enum hy_ir_trigger {
    HY_IR_GUARD, HY_IR_TIME, HY_IR_SAMPLE, HY_IR_EVENT
} hy_ir_trigger;

typedef struct hy_ir_stmt {
    int is_raise;
    int target;              /* name id (assignment) or event name id */
    int value;               /* DAG node in action context */
} hy_ir_stmt;

typedef struct hy_ir_transition {
    int name, line, column;
    int chart, from, to;     /* mode indices */
    hy_ir_trigger trigger;
    int guard;               /* HY_IR_GUARD: index in the from-mode's guards */
    int direction;           /* hydae_direction */
    double t_event, t_start, period;
    int event;               /* HY_IR_EVENT: name id */
    int condition;           /* DAG node in action context, -1: none */
    int n_reads, cap_reads;
    int *reads;              /* in[k] = hydae_get(reads[k]) (name ids) */
    int n_stmts, cap_stmts;
    hy_ir_stmt *stmts;
    int is_hidden;           /* generated for an if-condition */
    int priority;            /* `priority N`, 0 if absent */
    int fires_at_start;      /* `initial` */
} hy_ir_transition;

typedef struct hy_ir_global {
    int name;
    int is_discrete, is_hidden;
    int is_input;            /* `input Real u`: set from outside (an exported FMU) */
    double value;            /* parameter value or discrete start */
    int start_node;          /* discrete: DAG node of a start that uses
                                parameters (set by the initial action), -1 */
    int unit, description;
    int line, column;
} hy_ir_global;

typedef struct hy_ir_chart {
    int name, line, column;
    int initial;             /* mode index */
    int resting;             /* `resting mode`: mode index, -1 if none */
} hy_ir_chart;

typedef struct hy_ir {
    hy_strtab *strings;      /* borrowed */
    hy_expr dag;
    int model_name;
    int n_globals, cap_globals;
    hy_ir_global *globals;
    int n_charts, cap_charts;
    hy_ir_chart *charts;
    int n_modes, cap_modes;
    hy_ir_mode *modes;
    int n_transitions, cap_transitions;
    hy_ir_transition *transitions;
    /* The initial action (run at t0 of every run, after --set): start
    ** values that use parameters, the initial modes' entry actions and the
    ** initial truth of their hidden condition variables. No statements: none. */
    hy_ir_transition initial;
    /* Modes sharing unknowns: the initial configuration, as structure.c
    ** analysed it (analysed 0: no shared unknowns, or refused). */
    struct {
        int analysed, n_vars, n_equations, n_loops;
    } initial_configuration;
} hy_ir;

/* Analyse a parsed model. Errors go to diag; returns their number (the IR
** is usable only if 0). experiment may be NULL. */
int hy_sema(const hy_syntax *syntax, hy_strtab *strings, hy_diag *diag, hy_ir *ir,
            hy_lang_experiment *experiment);
void hy_ir_free(hy_ir *ir);

/* Structural analysis of every mode (structure.c): matching, index, BLT.
** Reports structurally singular and high-index modes to diag; returns the
** number of errors. */
int hy_structure_analyse(hy_ir *ir, hy_diag *diag);

/* Pantelides' algorithm on mode m's equations (pantelides.c): fills
** structure.differentiations, .index and .reduced. 0, or -1 when out of
** memory. */
int hy_pantelides(hy_ir *ir, int m);

/* Mode m has index > 1 (after hy_pantelides): recognise it as a
** mechanical system and derive its matrices (mechanics.c), or report what
** keeps it from being one and what to change. Returns the number of
** errors (0: mode->is_mechanical is set). */
int hy_mechanics_detect(hy_ir *ir, int m, hy_diag *diag);
void hy_ir_mechanics_free(hy_ir_mechanics *mech);
/* For hints: an equation of mode that constrains positions only (no der(),
** every unknown it uses has an equation der(q) = u), or -1. */
int hy_mechanics_position_constraint(hy_ir *ir, const hy_ir_mode *mode);

/* The Jacobians of a mode with lane equations (jacobian_lanes.c): each
** equation derived once. 0 or -1 out of memory. */
int hy_jacobian_derive_lanes(hy_ir *ir, hy_ir_mode *mode);

/* The Jacobian entries of every mode (jacobian.c): symbolic derivatives
** dF/dy + cj dF/dy' and the sparsity pattern; for an explicit mode also
** its right-hand side f by state and df/dy. 0 or -1 out of memory. */
int hy_jacobian_derive(hy_ir *ir);

#endif
