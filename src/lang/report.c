/*
** What `hydae check model.hym` prints: the diagnostics, then per chart and
** mode the unknowns, equations, outputs, guards, the structural index and
** the algebraic loops (BLT blocks of more than one equation), the Jacobian's
** sparsity, and the transitions with their triggers. A mode of index > 1
** shows how often Pantelides' algorithm differentiates each equation; a
** mechanical one its positions, velocities, multipliers and the roles of
** its equations.
*/
#include "lang/alias.h"
#include "lang/flatten.h"
#include "lang/imports.h"
#include "lang/unroll.h"
#include "lang/build.h"
#include "lang/parse.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

#define NAME(ir, id) hy_strtab_get((ir)->strings, (id))

/* The source text and where its lines start (hy_line_starts). */
typedef struct source_text {
    const char *text;
    size_t len;
    size_t *line_starts;
    int n_lines;
    const hy_diag *diag;     /* the imported files' lines */
} source_text;

/* The source line `line`, without leading blanks, into buf. */
static void source_line(const source_text *source, int line, char *buf, size_t size)
{
    if (line > source->n_lines && source->diag) {
        hy_diag_line_text(source->diag, line, buf, size);
        return;
    }
    const char *src = source->text;
    size_t len = source->len;
    size_t i = line >= 1 && line <= source->n_lines ? source->line_starts[line - 1] : len;
    while (i < len && (src[i] == ' ' || src[i] == '\t'))
        i++;
    size_t n = 0;
    while (i < len && src[i] != '\n' && src[i] != '\r' && n + 1 < size)
        buf[n++] = src[i++];
    buf[n] = '\0';
}

static const char *trigger_text(const hy_ir *ir, const hy_ir_transition *tr, char *buf, size_t size)
{
    switch (tr->trigger) {
    case HY_IR_GUARD:
        snprintf(buf, size, "guard %d of '%s' %s", tr->guard, NAME(ir, ir->modes[tr->from].name),
                 tr->direction == HYDAE_RISING ? "rises through 0"
                 : tr->direction == HYDAE_FALLING ? "falls through 0" : "crosses 0");
        break;
    case HY_IR_TIME:
        snprintf(buf, size, "time event at t = %.17g", tr->t_event);
        break;
    case HY_IR_SAMPLE:
        snprintf(buf, size, "sample clock t = %.17g + k * %.17g", tr->t_start, tr->period);
        break;
    case HY_IR_EVENT:
        snprintf(buf, size, "event '%s'", NAME(ir, tr->event));
        break;
    }
    return buf;
}

static void print_mode(const hy_ir *ir, const hy_ir_mode *mode, const source_text *source,
                       FILE *out)
{
    char line[200];
    const hy_ir_structure *st = &mode->structure;
    const hy_ir_mechanics *mech = &mode->mech;
    fprintf(out, "  mode %s: %d unknown%s, %d equation%s", NAME(ir, mode->name), mode->n_vars,
            mode->n_vars == 1 ? "" : "s", mode->n_equations, mode->n_equations == 1 ? "" : "s");
    if (mode->n_shared > 0)
        fprintf(out, ", %d shared with other charts (analysed in its configurations)",
                mode->n_shared);
    else if (st->analysed && st->index_ok)
        fprintf(out, ", index <= 1, %d algebraic loop%s", st->n_loops, st->n_loops == 1 ? "" : "s");
    else if (st->analysed && mode->is_mechanical)
        fprintf(out, ", index %d, a mechanical system (%d position%s, %d constraint%s)", st->index,
                mech->n_q, mech->n_q == 1 ? "" : "s", mech->n_c, mech->n_c == 1 ? "" : "s");
    else if (st->analysed && st->reduced)
        fprintf(out, ", index %d", st->index);
    else if (st->analysed)
        fprintf(out, ", index > 1");
    fputc('\n', out);
    for (int k = 0; k < mode->n_vars; k++) {
        const hy_ir_var *v = &mode->vars[k];
        const char *kind = v->is_differential ? "state" : "algebraic";
        if (mode->is_mechanical)
            kind = k < mech->n_q ? "position" : k < 2 * mech->n_q ? "velocity" : "multiplier";
        fprintf(out, "    unknown %-12s %-10s start %.17g", NAME(ir, v->name), kind, v->start);
        if (v->unit >= 0)
            fprintf(out, "  unit \"%s\"", NAME(ir, v->unit));
        if (v->description >= 0)
            fprintf(out, "  \"%s\"", NAME(ir, v->description));
        if (v->is_shared)
            fprintf(out, "  (shared with other charts)");
        fputc('\n', out);
    }
    for (int i = 0; i < mode->n_equations; i++) {
        source_line(source, mode->equations[i].line, line, sizeof line);
        char at[300];
        hy_diag_position(source->diag, mode->equations[i].line, mode->equations[i].column, at,
                         sizeof at);
        fprintf(out, "    equation %d (%s): %s", i, at, line);
        const char *role = NULL;
        for (int k = 0; mode->is_mechanical && k < mech->n_q; k++)
            role = mech->kinematics[k] == i ? "kinematics" : mech->dynamics[k] == i ? "dynamics" : role;
        for (int k = 0; mode->is_mechanical && k < mech->n_c; k++)
            role = mech->constraints[k] == i ? "constraint" : role;
        /* How often Pantelides' algorithm differentiates it (index > 1). */
        int count = !st->index_ok && st->reduced ? st->differentiations[i] : 0;
        char times[32] = "";
        if (count > 0)
            snprintf(times, sizeof times, "differentiated %s", count == 1 ? "once"
                     : count == 2 ? "twice" : "");
        if (count > 2)
            snprintf(times, sizeof times, "differentiated %d times", count);
        if (role || count > 0)
            fprintf(out, "   [%s%s%s]", role ? role : "", role && count > 0 ? ", " : "", times);
        fputc('\n', out);
    }
    for (int k = 0; k < mode->n_outputs; k++) {
        char at[300];
        hy_diag_position(source->diag, mode->outputs[k].line, mode->outputs[k].column, at,
                         sizeof at);
        fprintf(out, "    output %s (%s)\n", NAME(ir, mode->outputs[k].name), at);
    }
    for (int k = 0; k < mode->n_guards; k++) {
        fprintf(out, "    guard %d:", k);
        for (int t = 0; t < ir->n_transitions; t++) {
            const hy_ir_transition *tr = &ir->transitions[t];
            if (tr->from == mode - ir->modes && tr->trigger == HY_IR_GUARD && tr->guard == k)
                fprintf(out, " %s%s", NAME(ir, tr->name), tr->is_hidden ? " (if-condition)" : "");
        }
        fputc('\n', out);
    }
    for (int b = 0; b < st->n_blocks; b++) {
        int first = st->block_start[b], n = st->block_start[b + 1] - first;
        if (n < 2)
            continue;
        fprintf(out, "    algebraic loop of %d equations:", n);
        for (int k = 0; k < n; k++) {
            int i = st->block_eqs[first + k];
            char at[300];
            hy_diag_position(source->diag, mode->equations[i].line, mode->equations[i].column,
                             at, sizeof at);
            fprintf(out, " %s", at);
        }
        fprintf(out, "; unknowns");
        for (int k = 0; k < n; k++) {
            int i = st->block_eqs[first + k], j = st->eq_unknown[i];
            if (j >= 0)
                fprintf(out, " %s%s%s", mode->vars[j].is_differential ? "der(" : "",
                        NAME(ir, mode->vars[j].name), mode->vars[j].is_differential ? ")" : "");
        }
        fputc('\n', out);
    }
    if (mode->is_mechanical) {
        fprintf(out, "    M der(u) = F - C lambda, Phi = 0 (Pantelides: constraints "
                "differentiated twice): M %d non-zero entries of %.0f, C %d of %.0f, "
                "Phi_q %d of %.0f; "
                "Phi %s on time\n",
                mech->mass.n, (double)mech->n_q * mech->n_q, mech->multiplier_matrix.n,
                (double)mech->n_q * mech->n_c, mech->constraint_jac.n,
                (double)mech->n_c * mech->n_q,
                mech->constraint_t ? "depends" : "does not depend");
        fprintf(out, "    formulation chosen by the run: I3 or SI1 with DSTIFF (dae_index 3 or 1), "
                "the ODE form by coordinate partitioning with VSTIFF, MSTIFF, ABAM, RK45\n");
    } else if (mode->n_vars > 0) {
        fprintf(out, "    Jacobian: %d non-zero entries of %.0f\n", mode->n_jac_entries,
                (double)mode->n_equations * mode->n_vars);
    }
}

/* Is hidden global g the integer part of floor, ceil, mod, integer, div or
** rem (not the truth of a relation)? */
static int hidden_is_integer_part(const hy_ir *ir, int g)
{
    for (int m = 0; m < ir->n_modes; m++)
        for (int r = 0; r < ir->modes[m].n_relations; r++)
            if (ir->modes[m].relations[r].global == g)
                return ir->modes[m].relations[r].is_floor;
    return 0;
}

static void print_report(const hy_ir *ir, const source_text *source, FILE *out)
{
    fprintf(out, "model %s\n", NAME(ir, ir->model_name));
    for (int g = 0; g < ir->n_globals; g++) {
        const hy_ir_global *gl = &ir->globals[g];
        fprintf(out, "  %s %s = %.17g%s\n",
                gl->is_hidden ? "hidden discrete" : gl->is_discrete ? "discrete" : "parameter",
                NAME(ir, gl->name), gl->value, !gl->is_hidden                  ? ""
                : hidden_is_integer_part(ir, g) ? " (integer part, stepped at events)"
                                                : " (value of an if-condition)");
    }
    if (ir->initial_configuration.analysed)
        fprintf(out, "  initial configuration (the initial mode of every chart): %d unknowns, "
                "%d equations, index <= 1, %d algebraic loop%s\n",
                ir->initial_configuration.n_vars, ir->initial_configuration.n_equations,
                ir->initial_configuration.n_loops, ir->initial_configuration.n_loops == 1 ? "" : "s");
    for (int c = 0; c < ir->n_charts; c++) {
        const hy_ir_chart *ch = &ir->charts[c];
        fprintf(out, "chart %s (initial mode %s)\n", NAME(ir, ch->name),
                ch->initial >= 0 ? NAME(ir, ir->modes[ch->initial].name) : "-");
        for (int m = 0; m < ir->n_modes; m++)
            if (ir->modes[m].chart == c)
                print_mode(ir, &ir->modes[m], source, out);
        for (int t = 0; t < ir->n_transitions; t++) {
            const hy_ir_transition *tr = &ir->transitions[t];
            if (tr->chart != c || tr->from < 0 || tr->to < 0)
                continue;
            char trigger[200];
            fprintf(out, "  transition %s: %s -> %s on %s%s, %d action%s\n", NAME(ir, tr->name),
                    NAME(ir, ir->modes[tr->from].name), NAME(ir, ir->modes[tr->to].name),
                    trigger_text(ir, tr, trigger, sizeof trigger),
                    tr->condition >= 0 ? " if its condition holds" : "", tr->n_stmts,
                    tr->n_stmts == 1 ? "" : "s");
        }
    }
}

static int check_report_string(const char *source, size_t length, const char *display_name,
                               FILE *out, const hy_lang_fmu_ops *fmu)
{
    hy_diag diag;
    hy_diag_init(&diag, out, display_name, source, length);
    hy_strtab strings;
    hy_strtab_init(&strings);
    hy_syntax syntax;
    hy_lang_imports imports;
    hy_lang_imports_init(&imports, display_name);
    hy_import_loader loader = hy_lang_imports_loader(&imports);
    hy_lang_fmus fmus = { fmu, display_name, NULL, 0, 0 };
    hy_lang_front_end(source, length, &diag, &strings, &loader, &fmus, &syntax, 0);
    hy_lang_fmus_free(&fmus);
    if (diag.n_errors == 0) {
        hy_ir ir;
        hy_sema(&syntax, &strings, &diag, &ir, NULL);
        int n_aliases = syntax.n_aliases, n_trivial = syntax.n_trivial;
        int n_structural = syntax.n_structural;
        hy_syntax_free(&syntax);
        if (diag.n_errors == 0)
            hy_structure_analyse(&ir, &diag);
        if (diag.n_errors == 0 && hy_jacobian_derive(&ir) != 0)
            hy_diag_nomem(&diag);
        source_text text = { source, length, NULL, 0, &diag };
        text.n_lines = hy_line_starts(source, length, &text.line_starts);
        if (text.n_lines < 0)
            hy_diag_nomem(&diag);
        else
            print_report(&ir, &text, out);
        if (n_aliases > 0)
            fprintf(out, "alias elimination: %d equations x = y or x = -y removed with one of "
                    "their variables (shown as outputs)\n", n_aliases);
        if (n_trivial > 0)
            fprintf(out, "trivial equations: %d equation%s x = (a number, parameter or "
                    "function of them) removed with their variables and the aliases of those "
                    "(shown as outputs)\n", n_trivial, n_trivial == 1 ? "" : "s");
        if (n_structural > 0)
            fprintf(out, "structural parameters: %d (they size arrays or bound loops: fixed "
                    "when compiled)\n", n_structural);
        hy_free(text.line_starts);
        hy_ir_free(&ir);
    }
    hy_syntax_free(&syntax);
    hy_strtab_free(&strings);
    fprintf(out, "%d error%s, %d warning%s\n", diag.n_errors, diag.n_errors == 1 ? "" : "s",
            diag.n_warnings, diag.n_warnings == 1 ? "" : "s");
    hy_lang_imports_free(&imports);
    hy_diag_free(&diag);
    return diag.n_errors;
}

int hy_lang_check_report_string(const char *source, size_t length, const char *display_name,
                                FILE *out)
{
    return check_report_string(source, length, display_name, out, NULL);
}

int hy_lang_check_report(const char *path, FILE *out)
{
    return hy_lang_check_report_fmi(path, out, NULL);
}

int hy_lang_check_report_fmi(const char *path, FILE *out, const hy_lang_fmu_ops *fmu)
{
    size_t length = 0;
    char *text = hy_lang_read_file(path, &length, out);
    if (!text)
        return 1;
    int n_errors = check_report_string(text, length, path, out, fmu);
    hy_free(text);
    return n_errors;
}
