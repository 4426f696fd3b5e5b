/*
** Components and connections flattened into one model, internal to
** src/lang/flatten*.c: the flattener's state and what its files share:
** helpers, copying expressions, instances and the entry (flatten.c), modes
** and charts of components (flatten_modes.c), constant expressions
** (flatten_eval.c), connect() and the connection sets (flatten_connect.c).
** flatten.h is the interface the rest of the language sees.
*/
#ifndef HY_LANG_FLATTEN_INTERNAL_H
#define HY_LANG_FLATTEN_INTERNAL_H

#include "core/core.h"
#include "lang/flatten.h"

typedef struct modifier {
    int name;                /* relative to the instance it is pushed for */
    hy_expr_ref value;
    int scope_prefix;        /* string id of the prefix its names take, -1: none */
    int scope_cls;
    int line, column;
    int origin;              /* the modifier it was stripped from, or -1 */
    int used;
} modifier;

typedef struct connect_end {
    int name;                /* full name of the connector instance */
    int cls;                 /* its connector class */
    int inside;              /* reached through a component of the class */
} connect_end;

typedef struct connection {
    connect_end a, b;
    int line, column;
    int mode;                /* output mode it exists in, -1: always */
} connection;

typedef struct connector_inst {
    int name, cls;
    int mode;                /* output mode it exists in, -1: always */
} connector_inst;

typedef struct loop_value {
    int var;
    double value;
} loop_value;

/* Elements of one component array at most (a larger one is refused). */
#define HY_FLATTEN_MAX_ARRAY 1000000L

typedef struct flattener {
    const hy_syntax *in;
    hy_syntax *out;
    hy_strtab *strings;
    hy_diag *diag;
    int failed;
    int depth;
    int **class_decls, *n_class_decls;    /* decl indices by class */
    int **class_eqs, *n_class_eqs;        /* equation indices by class */
    unsigned char *class_refused;         /* modes etc. in a component class: said */
    modifier *mods;
    int n_mods, cap_mods;
    connection *connections;
    int n_connections, cap_connections;
    connector_inst *connectors;
    int n_connectors, cap_connectors;
    int *loop_map;                        /* input loop -> output loop, this instance */
    int *mode_map;                        /* input mode -> output mode, of the class
                                             being instantiated (a class never
                                             contains itself) */
    int *chart_map;                       /* input chart -> output chart (top class) */
    int *bound;                           /* variables bound around the item copied */
    int n_bound, cap_bound;
    loop_value *values;                   /* loop variables' values (connect() in loops) */
    int n_values, cap_values;
    int eval_prefix;                      /* the instance whose constants are evaluated */
    int inst_mode;                        /* output mode the instance being copied lives
                                             in (a component declared in a mode), -1 */
    int connect_mode;                     /* that of the connect() being collected */
} flattener;

static inline const char *text(const flattener *f, int id)
{
    return hy_strtab_get(f->strings, id);
}

/* ---------------------------------------------------------------- */
/* Shared helpers, expressions (flatten.c)                          */

/* An error at line:column. */
void flatten_error_at(flattener *f, int line, int column, const char *fmt, ...) HY_PRINTF(4, 5);
/* Out of memory (reported once; f->failed set): returns -1. */
int flatten_nomem(flattener *f);
/* The id of prefix + name (prefix -1: name itself). */
int flatten_prefixed(flattener *f, int prefix, int name);
/* The id of "prefix" + "name" + "." : the prefix of a component's names. */
int flatten_instance_prefix(flattener *f, int prefix, int name);
/* The id of "name[k]". */
int flatten_element_id(flattener *f, int name, long k);
/* The class a type name in class `context` means; -1: none; -2: several
** libraries have it (said at line, column). */
int flatten_find_class(flattener *f, int name, int context, int line, int column);
/* The declaration of class cls called name, or -1. */
int flatten_find_decl(const flattener *f, int cls, int name);
/* Nodes of e copied with names prefixed (prefix -1: unchanged), except
** the variables bound by enclosing loops and by e's own reductions and
** comprehensions. */
hy_expr_ref flatten_copy_expr(flattener *f, hy_expr_ref e, int prefix);
/* The output copy of input loop `loop` (and of its parents) for this
** instance, its range copied with the prefix; -1 for none or an error. */
int flatten_map_loop(flattener *f, int loop, int prefix);
/* Bind the variables of loop and its parents (for copying an item): 0, or -1. */
int flatten_bind_loops(flattener *f, int loop);

/* ---------------------------------------------------------------- */
/* Modes, charts and transitions (flatten_modes.c)                  */

/* A component class may have modes and transitions but no explicit chart
** and no experiment: said once per class. */
void flatten_refuse_component_elements(flattener *f, int cls);
/* Does class cls have modes or transitions? */
int flatten_class_has_modes(const flattener *f, int cls);
/* A new chart of the output: its index, or -1. */
int flatten_add_chart(flattener *f, int name, int line, int column);
/* The modes and transitions of class cls (chart -1, the simulated model:
** also its charts and experiment) copied with the prefix into chart;
** fills mode_map. parent >= 0: a component declared in that output mode,
** whose modes become its sub-modes (named and prefixed like its
** transitions, flattened by hierarchy.c); chart is then parent's. */
void flatten_copy_elements(flattener *f, int cls, int prefix, int chart, int parent);

/* ---------------------------------------------------------------- */
/* Constants (flatten_eval.c)                                       */

/* A whole number in [lo, hi] from the constant expression e of class cls
** (what names it): 0 with *out, or -1 after reporting. */
int flatten_integer_in_class(flattener *f, int cls, hy_expr_ref e, const char *what, long lo,
                             long hi, long *out);
/* The number of elements of component array d: 0, or -1 after reporting. */
int flatten_array_size(flattener *f, const hy_decl *d, long *size);

/* ---------------------------------------------------------------- */
/* Connections (flatten_connect.c)                                  */

/* connect() equation eq of class cls at prefix, once for every value of
** the loops around it: its connections collected. */
void flatten_collect_connection(flattener *f, int cls, int prefix, const hy_equation_syn *eq);
/* The connection sets and their equations, and flow = 0 for the open
** connectors, after the walk. */
void flatten_connection_sets(flattener *f);

#endif
