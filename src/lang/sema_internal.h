/*
** Semantic analysis, internal to src/lang/sema*.c: the checker's state,
** the context an expression is lowered in, and the functions the files of
** the checker share. sema.h is the interface the rest of the language sees.
*/
#ifndef HY_LANG_SEMA_INTERNAL_H
#define HY_LANG_SEMA_INTERNAL_H

#include "core/core.h"
#include "lang/sema.h"

#include <stddef.h>

typedef enum global_kind {
    G_NONE, G_PARAMETER, G_DISCRETE, G_CONSTANT, G_DERIVED,
    G_INVALID  /* declared, but its value was refused (reported): uses are silent */
} global_kind;

typedef enum ctx_kind {
    CTX_CONST,      /* values of constants, parameters, starts, settings */
    CTX_EQUATION,   /* a mode's equations: names are its unknowns */
    CTX_OUTPUT,     /* a mode's output equations */
    CTX_GUARD,      /* a transition trigger, in its from-mode */
    CTX_ACTION      /* conditions and actions: names read with hydae_get */
} ctx_kind;

typedef struct ctx {
    ctx_kind kind;
    int allow_params;        /* CTX_CONST: parameters allowed */
    int mode;                /* mode contexts */
    hy_ir_transition *tr;    /* CTX_ACTION: where reads are collected */
    int quiet;               /* do not report (already reported once) */
    int uses_param;          /* out */
    const char *what;        /* for messages: "a constant expression" */
    int no_event;            /* inside noEvent(...): relations and abs, sign, min, max
                                of unknowns are evaluated as they are, no events */
    int lanes;               /* CTX_EQUATION of a lane equation: its lanes, else 0 */
} ctx;

typedef struct sema {
    const hy_syntax *syn;
    hy_strtab *strings;
    hy_diag *diag;
    hy_ir *ir;
    int n_names;
    unsigned char *gkind;    /* per name: global_kind */
    int *gref;               /* per name: p index or DAG node */
    int *var_of;             /* per name: unknown index in the current mode */
    int *output_of;          /* per name: output node in the current mode */
    int *owner_mode;         /* per name: first mode with it as variable/output */
    int *read_slot;          /* per name: in[] index in the current action */
    int *first_line, *first_column; /* per name: first declaration as global */
    double t0;
    int shared_mode_chart;   /* chart receiving the model-level equations, -1 */
    int implicit_chart;      /* chart of top-level modes, -1 */
    unsigned char *entry_checked, *exit_checked; /* per mode */
    unsigned *mark;          /* per name: == mark_stamp when in the current set */
    double *eval_p;          /* the globals' values for sema_evaluate, the first */
    int n_eval_p, cap_eval_p; /* n_eval_p of them copied (they grow as declared) */
    unsigned mark_stamp;
    int n_errors;
} sema;

#define NAME(s, id) hy_strtab_get((s)->strings, (id))

static inline int valid_name(const sema *s, int name)
{
    return name >= 0 && name < s->n_names;
}

/* ---------------------------------------------------------------- */
/* Shared helpers (sema.c)                                          */

/* A position for a message: "line:column", "file:line:column" in an
** imported library. */
typedef struct position_text {
    char text[300];
} position_text;

position_text sema_position(const sema *s, int line, int column);
/* An error at line:column, unless c is quiet (c may be NULL). */
void sema_error(sema *s, const ctx *c, int line, int column, const char *fmt, ...)
    HY_PRINTF(5, 6);
/* hy_grow, reporting when out of memory: 0 or -1. */
int sema_grow(sema *s, void **array, int *cap, int need, size_t size);
#define GROW(s, arr, n, cap) sema_grow((s), (void **)&(arr), &(cap), (n) + 1, sizeof *(arr))
/* A new, empty set of marked names (s->mark[name] == the stamp returned). */
unsigned sema_next_mark(sema *s);
/* The string id of text, reporting when out of memory: -1. */
int sema_intern(sema *s, const char *text);
/* Out of memory, said: -1. */
int sema_nomem(sema *s);

/* ---------------------------------------------------------------- */
/* Expressions (sema_expr.c)                                        */

/* Value of node with p = the globals' current values, y = y_values,
** in = in_values (either may be NULL if unused), time = t0. */
double sema_evaluate(sema *s, int node, const double *y_values, int n_y, const double *in_values);
/* The in[] slot of name in tr's reads, added if new; -1 out of memory. */
int sema_add_read(sema *s, hy_ir_transition *tr, int name);
/* Forget tr's read slots (after compiling it). */
void sema_clear_reads(sema *s, const hy_ir_transition *tr);
/* Lower the expression [first, root] of the syntax in context c: its DAG
** node, or -1 after reporting. */
int sema_lower(sema *s, ctx *c, int first, int root);
int sema_lower_ref(sema *s, ctx *c, hy_expr_ref ref);
/* A constant (allow_params: or parameter) expression's value with the
** parameters' default values; NAN and *ok = 0 after reporting. *param_node
** (may be NULL) gets its DAG node when it uses parameters, else -1. */
double sema_const_value_node(sema *s, hy_expr_ref ref, int allow_params, const char *what,
                             int *ok, int *param_node);
double sema_const_value(sema *s, hy_expr_ref ref, int allow_params, const char *what, int *ok);
/* A constant expression of numbers, constants, + - * / ^ and built-in
** functions with a finite value: 1 and *value, as lowering would fold it
** (sema_fold.c); else 0 (lower it). */
int sema_fold_constant(const sema *s, hy_expr_ref ref, double *value);
/* A new global (parameter or discrete variable): its index, -1 out of memory. */
int sema_add_global(sema *s, int name, int is_discrete, double value, int line, int column);
/* The index of guard node in mode's guards, added if new; -1 out of memory. */
int sema_add_guard(sema *s, hy_ir_mode *mode, int node);
/* Mode m's equations, outputs and the triggers of the transitions leaving it. */
void sema_compile_mode(sema *s, int m);

/* ---------------------------------------------------------------- */
/* Declarations (sema_decls.c): phases of hy_sema and their helpers  */

void sema_declare_globals(sema *s);
/* The experiment's settings into ex (may be NULL); sets s->t0. */
void sema_read_experiment(sema *s, hy_lang_experiment *ex);
void sema_build_charts(sema *s);
void sema_declare_variables(sema *s);
void sema_share_model_variables(sema *s);
void sema_check_integrator(sema *s);
/* Does the syntax scope `scope` (a syntax mode index, -1 model level)
** contribute to IR mode m? */
int sema_scope_in_mode(const sema *s, int scope, int m);
/* The index of the unknown `name` in mode, or -1. */
int sema_find_var(const hy_ir_mode *mode, int name);

/* ---------------------------------------------------------------- */
/* Transitions (sema_transitions.c): phases of hy_sema and helpers  */

void sema_resolve_transitions(sema *s);
/* The trigger of transition i, in its from-mode's context (by sema_compile_mode). */
void sema_compile_trigger(sema *s, int i);
/* `priority N` and `initial` of transition i (after its trigger). */
void sema_transition_options(sema *s, int i);
void sema_check_reachability(sema *s);
void sema_compile_actions(sema *s);
void sema_build_initial_action(sema *s);
void sema_check_unused_actions(sema *s);
void sema_add_relation_transitions(sema *s);
void sema_check_events(sema *s);

#endif
