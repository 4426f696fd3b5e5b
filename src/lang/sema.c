/*
** Semantic analysis of the model language: the entry point hy_sema and the
** order of its phases, the checker's state and the helpers every phase
** shares (messages, growing arrays, names). The phases live by concern:
** sema_decls.c (globals, the experiment, charts, modes and their
** variables), sema_expr.c (expressions lowered to the DAG, each mode's
** equations and outputs), sema_transitions.c (triggers, conditions,
** actions, the initial action and the checks on the result). The
** semantics are those of docs/language.md.
*/
#include "core/core.h"
#include "lang/sema_internal.h"

#include <stdarg.h>
#include <string.h>

position_text sema_position(const sema *s, int line, int column)
{
    position_text p;
    hy_diag_position(s->diag, line, column, p.text, sizeof p.text);
    return p;
}

void sema_error(sema *s, const ctx *c, int line, int column, const char *fmt, ...)
{
    if (c && c->quiet)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    hy_diag_error(s->diag, line, column, "%s", msg);
    s->n_errors++;
}

int sema_grow(sema *s, void **array, int *cap, int need, size_t size)
{
    if (hy_grow(array, cap, need, size)) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
        return -1;
    }
    return 0;
}

/* A new, empty set of marked names. */
unsigned sema_next_mark(sema *s)
{
    if (++s->mark_stamp == 0) {
        memset(s->mark, 0, sizeof *s->mark * ((size_t)s->n_names + 1));
        s->mark_stamp = 1;
    }
    return s->mark_stamp;
}

int sema_intern(sema *s, const char *text)
{
    int id = hy_strtab_intern(s->strings, text, strlen(text));
    if (id < 0) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
    }
    return id;
}

/* ---------------------------------------------------------------- */
/* The phases                                                       */

/* Has an allocation failed (a failed expression node included)? */
static int out_of_memory(sema *s)
{
    if (s->ir->dag.failed && !s->diag->out_of_memory) {
        hy_diag_nomem(s->diag);
        s->n_errors++;
    }
    return s->diag->out_of_memory;
}

static void compile_modes(sema *s)
{
    for (int m = 0; m < s->ir->n_modes && !out_of_memory(s); m++)
        sema_compile_mode(s, m);
}

int hy_sema(const hy_syntax *syntax, hy_strtab *strings, hy_diag *diag, hy_ir *ir,
            hy_lang_experiment *experiment)
{
    memset(ir, 0, sizeof *ir);
    ir->strings = strings;
    ir->model_name = syntax->model_name;
    hy_expr_init(&ir->dag);
    sema s;
    memset(&s, 0, sizeof s);
    s.syn = syntax;
    s.strings = strings;
    s.diag = diag;
    s.ir = ir;
    s.n_names = strings->n_strings;
    size_t n = (size_t)s.n_names + 1;
    s.gkind = hy_calloc(n, 1);
    s.gref = hy_malloc(n * sizeof(int));
    s.var_of = hy_malloc(n * sizeof(int));
    s.output_of = hy_malloc(n * sizeof(int));
    s.owner_mode = hy_malloc(n * sizeof(int));
    s.read_slot = hy_malloc(n * sizeof(int));
    s.first_line = hy_calloc(n, sizeof(int));
    s.first_column = hy_calloc(n, sizeof(int));
    s.mark = hy_calloc(n, sizeof *s.mark);
    if (!s.gkind || !s.gref || !s.var_of || !s.output_of || !s.owner_mode || !s.read_slot
        || !s.first_line || !s.first_column || !s.mark) {
        hy_diag_nomem(diag);
        s.n_errors++;
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        s.gref[i] = s.var_of[i] = s.output_of[i] = s.owner_mode[i] = s.read_slot[i] = -1;
    sema_declare_globals(&s);
    sema_read_experiment(&s, experiment);
    sema_build_charts(&s);
    if (out_of_memory(&s))
        goto done;
    s.entry_checked = hy_calloc((size_t)ir->n_modes + 1, 1);
    s.exit_checked = hy_calloc((size_t)ir->n_modes + 1, 1);
    if (!s.entry_checked || !s.exit_checked) {
        hy_diag_nomem(diag);
        s.n_errors++;
        goto done;
    }
    /* The phases go on after a model error, to report more of them; after
    ** running out of memory they stop: what a phase left half built is no
    ** ground for the next one. */
    static void (*const phases[])(sema *) = {
        sema_declare_variables, sema_resolve_transitions, sema_share_model_variables, compile_modes,
        sema_check_integrator, sema_check_reachability,
        sema_compile_actions, sema_build_initial_action, sema_check_unused_actions,
        sema_add_relation_transitions, sema_check_events,
    };
    for (size_t p = 0; p < sizeof phases / sizeof phases[0] && !out_of_memory(&s); p++)
        phases[p](&s);
done:
    hy_free(s.gkind);
    hy_free(s.gref);
    hy_free(s.var_of);
    hy_free(s.output_of);
    hy_free(s.owner_mode);
    hy_free(s.read_slot);
    hy_free(s.first_line);
    hy_free(s.first_column);
    hy_free(s.mark);
    hy_free(s.eval_p);
    hy_free(s.entry_checked);
    hy_free(s.exit_checked);
    if (ir->dag.failed && !diag->out_of_memory) {
        hy_diag_nomem(diag);
        s.n_errors++;
    }
    return s.n_errors;
}

void hy_ir_free(hy_ir *ir)
{
    for (int m = 0; m < ir->n_modes; m++) {
        hy_ir_mode *mode = &ir->modes[m];
        hy_free(mode->vars);
        hy_free(mode->equations);
        hy_free(mode->outputs);
        hy_free(mode->guards);
        hy_free(mode->relations);
        hy_free(mode->structure.unmatched);
        hy_free(mode->structure.index_eqs);
        hy_free(mode->structure.block_start);
        hy_free(mode->structure.block_eqs);
        hy_free(mode->structure.eq_unknown);
        hy_free(mode->structure.differentiations);
        hy_ir_mechanics_free(&mode->mech);
        hy_free(mode->jac_rows);
        hy_free(mode->jac_cols);
        hy_free(mode->jac_nodes);
        hy_free(mode->rhs_nodes);
        hy_free(mode->rhs_jac_rows);
        hy_free(mode->rhs_jac_cols);
        hy_free(mode->rhs_jac_nodes);
        hy_free(mode->lane_jac);
        hy_free(mode->lane_rhs_jac);
    }
    hy_free(ir->initial.reads);
    hy_free(ir->initial.stmts);
    for (int t = 0; t < ir->n_transitions; t++) {
        hy_free(ir->transitions[t].reads);
        hy_free(ir->transitions[t].stmts);
    }
    hy_free(ir->modes);
    hy_free(ir->transitions);
    hy_free(ir->globals);
    hy_free(ir->charts);
    hy_expr_free(&ir->dag);
    memset(ir, 0, sizeof *ir);
}
