/*
** Arrays and for-loops expanded to scalars, internal to src/lang/unroll*.c:
** the expander's state and what its files share: helpers and the entry
** (unroll.c), names and constant expressions (unroll_eval.c), copying
** expressions (unroll_expr.c). unroll.h is the interface the rest of the
** language sees.
*/
#ifndef HY_LANG_UNROLL_INTERNAL_H
#define HY_LANG_UNROLL_INTERNAL_H

#include "core/core.h"
#include "lang/unroll.h"

#include <stddef.h>

typedef struct array_info {
    int name, mode;          /* mode -1: model level */
    long size;               /* -1: its size was refused */
    int *element_ids;        /* "name[k]" id + 1 by k - 1, made on first use */
} array_info;

typedef struct binding {
    int var;
    double value;
} binding;

typedef struct unroller {
    const hy_syntax *in;
    hy_syntax *out;
    hy_strtab *strings;
    hy_diag *diag;
    int mode;                /* scope of array names: this mode, then the model */
    long elem;               /* > 0: the element of an array equation being written
                                (whole arrays and slices stand for their elem-th) */
    binding *env;            /* loop variables, innermost last */
    int n_env, cap_env;
    array_info *arrays;
    int n_arrays, cap_arrays;
    unsigned char *is_array; /* by string id: some array has this name */
    int n_is_array;
    int *constant_decl;      /* by string id: model-level constant's decl + 1 */
    int n_constant_decl;
    int const_depth;         /* constants evaluated through constants */
    long n_items;
    int failed;              /* out of memory or over the limits: stop */
    int keep_loops;          /* hy_unroll_keep_loops */
    int lane_var;            /* a loop kept as a loop being written: its variable, else -1 */
    long lane_n;             /* and its number of values */
    /* Scratch stacks of copy_range and eval_constant (they nest through
    ** reductions and constants): a frame is [base, base + size), reached by
    ** index because a nested frame may move the array. */
    int *ints;
    int n_ints, cap_ints;
    double *reals;
    int n_reals, cap_reals;
} unroller;

static inline const char *name_of(const unroller *u, int id)
{
    return hy_strtab_get(u->strings, id);
}

/* ---------------------------------------------------------------- */
/* Shared helpers (unroll.c)                                        */

/* An error at line:column: returns -1. */
int unroll_error_at(unroller *u, int line, int column, const char *fmt, ...) HY_PRINTF(4, 5);
/* Out of memory (reported once; u->failed set): returns -1. */
int unroll_nomem(unroller *u);
/* One more element, equation, statement or sum term: 0, or -1 past
** hy_unroll_max_items (reported once; u->failed set). */
int unroll_count_item(unroller *u, int line, int column);

/* ---------------------------------------------------------------- */
/* Names and constant expressions (unroll_eval.c)                   */

/* The array called name in the current mode, else at model level, else
** in any mode; NULL if none. */
array_info *unroll_find_array(const unroller *u, int name);
/* The id of "name[index]" of array a (1 <= index <= a->size), interned
** once and kept; -1 out of memory. */
int unroll_element_name(unroller *u, array_info *a, long index);
/* The innermost binding of loop variable var, or NULL. */
const binding *unroll_find_binding(const unroller *u, int var);
/* Bind var to value (innermost; u->n_env-- unbinds): 0, or -1. */
int unroll_bind(unroller *u, int var, double value);
/* The base of a new frame of `size` ints on u->ints, or -1. */
int unroll_push_ints(unroller *u, size_t size);
/* A whole number in [lo, hi] (what names it: "index", "size", ...): 0
** with *out, or -1 after reporting. */
int unroll_eval_integer(unroller *u, hy_expr_ref e, int line, int column, const char *what,
                        long lo, long hi, long *out);
/* The same, the thing named "WHAT 'NAME'" in a message (name: a string
** id, -1: none), the text composed only for the message. */
int unroll_eval_integer_of(unroller *u, hy_expr_ref e, int line, int column, const char *what,
                           int name, long lo, long hi, long *out);

/* ---------------------------------------------------------------- */
/* Loops kept as loops (unroll_lanes.c)                             */

/* Equations [first, end) of the input, the whole body of loop `loop`:
** written once as lanes equations (1), or not eligible (0: expand them). */
int unroll_keep_loop(unroller *u, int first, int end, int loop, long lo, long hi);
/* Append an equation to the output (unroll.c). */
void unroll_push_equation(unroller *u, const hy_equation_syn *out);
/* Does the input range [first, root] use variable var? */
int unroll_range_uses(const unroller *u, int first, int root, int var);

/* ---------------------------------------------------------------- */
/* Expressions (unroll_expr.c)                                      */

/* Expression e copied to the output (root -1 after an error or if e has none). */
hy_expr_ref unroll_copy_expr(unroller *u, hy_expr_ref e);
/* The number of elements e stands for: 0 for one value, n for whole
** arrays or slices of n elements; -1 after reporting. */
long unroll_expr_length(unroller *u, hy_expr_ref e);

#endif
