/*
** The model: statecharts, modes, transitions, and the value store layout
** that maps every name to one slot. Internal to the library.
**
** Store layout (built by hydae_model_check): slots [0, n_globals) hold the
** parameters and discrete variables (this prefix is the p array passed to
** every mode function); slots [n_globals, n_slots) hold every distinct
** name that is a variable or an output of some mode. Mapping values from an
** old mode to a new one "by name" is reading and writing the same slot.
*/
#ifndef HY_MODEL_H
#define HY_MODEL_H

#include "core/core.h"
#include "hydae.h"

#include <stddef.h>
#include <stdint.h>

struct hy_pattern;

typedef enum hy_trigger_kind {
    HY_TRIGGER_NONE,
    HY_TRIGGER_GUARD,
    HY_TRIGGER_TIME,
    HY_TRIGGER_SAMPLE,
    HY_TRIGGER_EVENT,
    HY_TRIGGER_SCHEDULE,        /* the time an action scheduled for the chart */
    HY_TRIGGER_STEP             /* the from-mode's after-step function asked */
} hy_trigger_kind;

struct hydae_transition {
    char *name;
    hydae_chart *chart;
    hydae_mode *from, *to;
    int index;                  /* in its chart */
    hy_trigger_kind trigger;
    int guard;                  /* HY_TRIGGER_GUARD: guard of `from` */
    hydae_direction direction;
    double t_event;             /* HY_TRIGGER_TIME */
    double t_start, period;     /* HY_TRIGGER_SAMPLE */
    char *event_name;           /* HY_TRIGGER_EVENT */
    int event_id;               /* interned by check */
    hydae_condition_fn condition;
    void *condition_user;
    hydae_action_fn action;
    void *action_user;
    int priority;               /* >= 1, lower fires first; 0: none (after those with one) */
    int fires_at_start;         /* guard trigger: a level test at t0 as well */
    int level;                  /* guard trigger: a level test after every
                                   (re)initialisation (hydae_transition_set_level) */
};

/* Names in one arena of large blocks, and hash indexes from a name to a
** value that store only the value: name_of(owner, value) gives its name
** (names_store.c). */
typedef struct hy_name_block hy_name_block;
/* A copy of name in the arena (freed with it), or NULL out of memory. */
const char *hy_names_copy(hy_name_block **blocks, const char *name);
void hy_names_free(hy_name_block **blocks);

typedef const char *(*hy_name_of_fn)(const void *owner, int value);
typedef struct hy_name_index {
    uint32_t cap;               /* power of two, or 0 */
    uint32_t count;
    uint32_t *buckets;          /* value + 1; 0: empty */
} hy_name_index;
/* The value of key, or -1. */
int hy_name_index_get(const hy_name_index *ix, const char *key, hy_name_of_fn name_of,
                      const void *owner);
/* key -> value (0 <= value < 2^31; name_of(owner, value) must be key from
** now on). 0, or -1 when out of memory (the index is unchanged). */
int hy_name_index_put(hy_name_index *ix, const char *key, int value, hy_name_of_fn name_of,
                      const void *owner);
void hy_name_index_free(hy_name_index *ix);

#define HY_VAR_EXTRA_BITS 25

/* A named value of a mode (variable or output) with its slot in the value
** store. One per variable of a model that may have millions, so 24 bytes:
** what few variables have (their own tolerances, a start derivative) is
** in the model's var_extras, read through hy_var_rtol and the like, and
** the flags share a word with the index there. */
typedef struct hy_var {
    const char *name;           /* in the model's name arena */
    double start;               /* variables: start value */
    int slot;                   /* store slot, set by check */
    unsigned kind : 2;          /* variables: a hydae_var_kind */
    signed start_fixed : 2;     /* at t0: 1 held, 0 free, -1 by kind */
    unsigned has_start_derivative : 1; /* at t0: y' held at its start derivative */
    unsigned start_set : 1;     /* start replaced by hydae_model_set_start (--set) */
    unsigned start_computed : 1; /* the model computes it from parameters (.hym) */
    unsigned extra : HY_VAR_EXTRA_BITS; /* 1 + index in the model's var_extras, 0: none */
} hy_var;

/* At most this many variables of a model have extras. */
#define HY_VAR_EXTRA_MAX ((1u << HY_VAR_EXTRA_BITS) - 2u)

typedef struct hy_var_extra {
    double rtol, atol;          /* 0 = the run's setting */
    double start_derivative;
    double nominal;             /* scales the run's atol; 0 = 1 (hydae_mode_set_nominal) */
} hy_var_extra;

typedef struct hy_global {
    char *name;
    double value;
    unsigned char is_discrete;
    unsigned char is_input;     /* a model file's `input Real u` (hy_model_mark_input) */
} hy_global;

/* A unit and a description (hydae_mode_set_var_info and the like, info.c):
** few names have them, so they are kept apart from hy_var, keyed by what
** they describe. */
typedef struct hy_var_info {
    const hydae_mode *mode;     /* NULL: a parameter or discrete variable */
    int index;                  /* variable, output (is_output) or global */
    int is_output;
    const char *unit, *description; /* in the model's name arena; NULL: none */
} hy_var_info;

struct hydae_mode {
    char *name;
    hydae_chart *chart;
    int index;                  /* in its chart */
    int n_vars, cap_vars;
    hy_var *vars;
    int n_outputs, cap_outputs;
    hy_var *out_vars;
    int n_equations;            /* -1 until a residual or rhs is set */
    hydae_residual_fn residual;
    hydae_rhs_fn rhs;
    hydae_jacobian_fn jacobian;
    /* hydae_mode_set_jacobian_pattern (jacobian.c): the normalised
    ** pattern, where the user's entry k lands in it (NULL: at k, the
    ** user's pattern was normalised already), and the values. */
    struct hy_pattern *pattern;
    int64_t *pattern_map;
    size_t pattern_user_nnz;
    hydae_sparse_jacobian_fn sparse_jacobian;
    void *user;
    int n_guards;
    hydae_eval_fn guards;
    hydae_eval_fn outputs;
    hydae_after_step_fn after_step; /* after every accepted step, or NULL (hooks.c) */
    const struct hy_integrator_ops *integrator;   /* preferred, or NULL */
    int is_mechanical;          /* hydae_mode_set_mechanics: mech, mech_user */
    int has_shared;             /* check: a variable is also one of another chart's modes
                                   (one unknown where both are active): its equations
                                   need not number its variables */
    hydae_mechanics mech;
    void *mech_user;
    hy_name_index names;        /* name -> 2 var_index, or 2 output_index + 1 */
    /* Run when the mode is entered (at t0 as an initial mode, by a
    ** transition from another mode) and left (hooks.c). */
    struct hy_mode_hook *entry_actions, *exit_actions;
    const char *(*error_text)(void *user); /* why a callback failed, or NULL */
};

/* One entry or exit action of a mode, in the order added. */
typedef struct hy_mode_hook {
    hydae_action_fn fn;
    void *user;
    struct hy_mode_hook *next;
} hy_mode_hook;
void hy_mode_hooks_free(hy_mode_hook *hook);

/* Data the model owns (hydae_model_attach), freed in the order attached. */
typedef struct hy_attachment {
    void *data;
    void (*free_fn)(void *);
} hy_attachment;

struct hydae_chart {
    char *name;
    hydae_model *model;
    int index;
    int n_modes, cap_modes;
    hydae_mode **modes;
    hydae_mode *initial;
    hydae_mode *resting;        /* entered on Zeno behaviour, or NULL */
    int n_transitions, cap_transitions;
    hydae_transition **transitions;
    hydae_transition **fire_order;  /* by priority, then declaration (check) */
};

struct hydae_model {
    char *name;
    char errmsg[1024];
    hy_name_block *var_names;   /* the text of the modes' variable and output names */
    int n_var_extras, cap_var_extras;
    hy_var_extra *var_extras;   /* of the variables that have them (hy_var.extra) */
    int build_error;            /* first construction error, sticky */
    int n_globals, cap_globals;
    hy_global *globals;
    int n_charts, cap_charts;
    hydae_chart **charts;
    /* Built by hydae_model_check. */
    hydae_action_fn initial_action;
    void *initial_action_user;
    hy_attachment *attached;    /* owned data, freed with the model */
    int n_attached, cap_attached;
    int has_entry_actions;      /* some initial mode may have entry actions */
    int checked;
    int n_slots;
    const char **slot_names;    /* borrowed from globals and modes */
    hy_name_index slot_map;     /* name -> slot */
    int n_columns;
    int *column_slot;           /* result column -> slot */
    int n_events;
    const char **event_names;   /* borrowed from transitions */
    /* Parameters of a model file fixed when it was compiled (they size
    ** arrays or bound loops): setting one is refused with the reason. */
    const char **structural;    /* in var_names */
    int n_structural, cap_structural;
    int n_infos, cap_infos;
    hy_var_info *infos;         /* units and descriptions (info.c) */
    int *slot_info;             /* per slot: its first info with a unit, -1 (check) */
    int *slot_description;      /* per slot: its first info with a description, -1 */
};

/* A variable's own tolerances (0: the run's setting) and start derivative. */
static inline double hy_var_rtol(const hydae_model *m, const hy_var *var)
{
    return var->extra ? m->var_extras[var->extra - 1].rtol : 0.0;
}
static inline double hy_var_atol(const hydae_model *m, const hy_var *var)
{
    return var->extra ? m->var_extras[var->extra - 1].atol : 0.0;
}
static inline double hy_var_nominal(const hydae_model *m, const hy_var *var)
{
    double nominal = var->extra ? m->var_extras[var->extra - 1].nominal : 0.0;
    return nominal > 0.0 ? nominal : 1.0;
}
static inline double hy_var_start_derivative(const hydae_model *m, const hy_var *var)
{
    return var->extra ? m->var_extras[var->extra - 1].start_derivative : 0.0;
}

/* The extras of variable var of mode into *extra, made (zero) on first
** use: 0, HYDAE_ERR_NOMEM or HYDAE_ERR_MODEL (too many), recorded on the
** model. */
int hy_mode_var_extra(hydae_mode *mode, int var, hy_var_extra **extra);
/* Give tr its trigger kind: 0, or HYDAE_ERR_MODEL if it has one already. */
int hy_transition_set_trigger(hydae_transition *tr, hy_trigger_kind kind);

/* Slot of a name, or -1. Valid after a successful check. */
int hy_model_find_slot(const hydae_model *m, const char *name);
/* Id of a named event, or -1. */
int hy_model_find_event(const hydae_model *m, const char *name);
/* 1 for the kinds whose derivative does not appear (algebraic, multiplier). */
int hy_var_is_algebraic(hydae_var_kind kind);
/* 1 if `name` is a variable of mode (sets *var_index), else 0. */
int hy_mode_find_var(const hydae_mode *mode, const char *name, int *var_index);

/* name is a structural parameter (the language, compile.c): 0 or -1. */
int hy_model_add_structural(hydae_model *m, const char *name);
/* Discrete variable g is an input: set from outside (an exported FMU's). */
void hy_model_mark_input(hydae_model *m, int g);
/* 1 if name is one. */
int hy_model_is_structural(const hydae_model *m, const char *name);

/* The first construction error, kept on the model (sticky, as SQLite keeps
** it on its handle): later ones do not overwrite it. Returns status. */
int hy_model_fail(hydae_model *m, int status, const char *fmt, ...) HY_PRINTF(3, 4);
#define HY_MODEL_ERROR(m, ...) hy_model_fail((m), HYDAE_ERR_MODEL, __VA_ARGS__)
#define HY_ARG_ERROR(m, ...) hy_model_fail((m), HYDAE_ERR_ARG, __VA_ARGS__)
#define MODE_MODEL(mode) ((mode)->chart->model)
#define TRANSITION_MODEL(tr) ((tr)->chart->model)

/* Index of the parameter or discrete variable named name, or -1. */
int hy_model_find_global(const hydae_model *m, const char *name);
/* info.c, from hydae_model_check: slot_info and slot_description. 0 or
** HYDAE_ERR_NOMEM. */
int hy_model_index_infos(hydae_model *m);
void hy_model_free_infos(hydae_model *m);
/* The unit and description of parameter or discrete variable `global`
** ("" if none; after a check). */
const char *hy_model_global_unit(const hydae_model *m, int global);
const char *hy_model_global_description(const hydae_model *m, int global);

/* jacobian.c: a mode's sparse Jacobian. */
void hy_mode_free_jacobian_pattern(hydae_mode *mode);
/* names.c: "no parameter, discrete variable or variable named 'x'; its
** names are: ..." (all, or the nearest by edit distance when many). */
void hy_model_describe_unknown(hydae_model *m, const char *name, char *out, size_t size);
/* The start value of the mode's variable var is computed from parameters
** by the model (a .hym start expression, evaluated by its actions at t0
** and on entry): hydae_model_set_start refuses it. */
void hy_mode_set_start_computed(hydae_mode *mode, int var);

#endif
