/*
** Parser of the model language, the body of a class: declarations
** (variables, parameters, constants, components with their modifiers),
** equations and connect(), statements of actions, for-loops around
** either, modes, charts, transitions (`from *` expanded to every other
** mode of the chart) and the experiment's settings.
*/
#include "lang/parse_internal.h"

#include "core/core.h"

#include <string.h>

/* ---------------------------------------------------------------- */
/* Declarations                                                     */

/* modifiers := '(' NAME '=' (expr | STRING) {',' ...} ')' */
static void parse_modifiers(hy_parser *ps, hy_decl *decl_copy)
{
    parse_next(ps); /* ( */
    do {
        int line = ps->tk.line, column = ps->tk.column;
        int name = parse_expect_name(ps, "a modifier name (start, unit, rtol, atol)");
        if (name < 0 || !parse_expect(ps, TK_EQUAL))
            return;
        const char *text = hy_strtab_get(ps->strings, name);
        if (strcmp(text, "unit") == 0) {
            if (ps->tk.kind != TK_STRING) {
                parse_syntax_error(ps, "a string for 'unit'");
                return;
            }
            decl_copy->unit = ps->tk.id;
            parse_next(ps);
        } else if (strcmp(text, "start") == 0 || strcmp(text, "rtol") == 0
                   || strcmp(text, "atol") == 0) {
            int value_line = ps->tk.line, value_column = ps->tk.column;
            hy_expr_ref value = parse_expr_ref(ps);
            if (ps->panic)
                return;
            if (text[0] == 's') {
                decl_copy->value = value;
                decl_copy->value_line = value_line;
                decl_copy->value_column = value_column;
            } else if (text[0] == 'r') {
                decl_copy->rtol = value;
            } else {
                decl_copy->atol = value;
            }
        } else {
            ps->panic = 1;
            ps->n_errors++;
            hy_diag_error(ps->diag, line, column,
                          "unknown modifier '%s' (known: start, unit, rtol, atol)", text);
            return;
        }
    } while (parse_accept(ps, TK_COMMA));
    parse_expect(ps, TK_RPAREN);
}

/* declaration := [parameter | constant | discrete] Real item {',' item} ';'
** item := NAME [modifiers] ['=' expr] [STRING] */
/* [STRING] after a declared item, then the item into the list; 0 when out
** of memory. */
static int push_decl(hy_parser *ps, hy_decl *decl)
{
    if (ps->tk.kind == TK_STRING) {
        decl->description = ps->tk.id;
        parse_next(ps);
    }
    int i = PUSH(ps, decls, n_decls, cap_decls);
    if (i < 0)
        return 0;
    ps->syn->decls[i] = *decl;
    return 1;
}

/* component-modifiers := '(' NAME '=' expr {',' NAME '=' expr} ')' */
static void parse_component_modifiers(hy_parser *ps, hy_decl *decl)
{
    /* An FMU's file is a string (fmu_component.c). */
    int is_fmu = strcmp(hy_strtab_get(ps->strings, decl->type_name), "Fmu") == 0;
    parse_next(ps); /* ( */
    decl->mod_first = ps->syn->n_mods;
    do {
        hy_mod_syn mod;
        memset(&mod, 0, sizeof mod);
        mod.line = ps->tk.line;
        mod.column = ps->tk.column;
        mod.string_value = -1;
        mod.name = parse_expect_name(ps, "the name of a parameter or variable of the component");
        if (mod.name < 0 || !parse_expect(ps, TK_EQUAL))
            return;
        if (ps->tk.kind == TK_STRING && is_fmu) { /* file = "F.fmu" */
            mod.string_value = ps->tk.id;
            mod.value.first = mod.value.root = -1;
            parse_next(ps);
        } else
            mod.value = parse_expr_ref(ps);
        if (ps->panic)
            return;
        int i = PUSH(ps, mods, n_mods, cap_mods);
        if (i < 0)
            return;
        ps->syn->mods[i] = mod;
        decl->mod_count++;
    } while (parse_accept(ps, TK_COMMA));
    parse_expect(ps, TK_RPAREN);
}

/* A declaration of kind (type_name: a component's class, else -1) at the
** current token, in the current class and mode, with nothing given yet. */
static hy_decl start_decl(const hy_parser *ps, hy_decl_kind kind, int type_name)
{
    hy_decl decl;
    memset(&decl, 0, sizeof decl);
    decl.kind = kind;
    decl.line = ps->tk.line;
    decl.column = ps->tk.column;
    decl.value.root = decl.rtol.root = decl.atol.root = decl.size.root = -1;
    decl.unit = decl.description = -1;
    decl.mode = ps->mode;
    decl.cls = ps->cls;
    decl.type_name = type_name;
    return decl;
}

/* NAME [ '[' size ']' ] into decl: 1, or 0 after a syntax error. */
static int named_with_size(hy_parser *ps, hy_decl *decl, const char *what)
{
    decl->name = parse_expect_name(ps, what);
    if (decl->name < 0)
        return 0;
    if (parse_accept(ps, TK_LBRACKET)) {
        decl->size = parse_expr_ref(ps);
        if (ps->panic || !parse_expect(ps, TK_RBRACKET))
            return 0;
    }
    return 1;
}

/* TYPE item {',' item} ';' with item := NAME [component-modifiers] [STRING] */
static void parse_components(hy_parser *ps)
{
    int type_name = ps->tk.id;
    parse_next(ps);
    do {
        /* an array of components: Inertia J[3](J = {1, 2, 3}) */
        hy_decl decl = start_decl(ps, DECL_COMPONENT, type_name);
        if (!named_with_size(ps, &decl, "the component's name"))
            return;
        if (ps->tk.kind == TK_LPAREN) {
            parse_component_modifiers(ps, &decl);
            if (ps->panic)
                return;
        }
        if (!push_decl(ps, &decl))
            return;
    } while (parse_accept(ps, TK_COMMA));
    parse_expect(ps, TK_SEMI);
}

static void parse_declaration(hy_parser *ps)
{
    int is_input = parse_at_input(ps); /* a discrete variable set from outside */
    if (is_input)
        parse_next(ps);
    else if (ps->tk.kind == TK_NAME) {
        parse_components(ps);
        return;
    }
    hy_decl_kind kind = is_input ? DECL_DISCRETE : DECL_VARIABLE;
    int is_flow = 0;
    if (is_input)
        ;
    else if (parse_accept(ps, TK_PARAMETER))
        kind = DECL_PARAMETER;
    else if (parse_accept(ps, TK_CONSTANT))
        kind = DECL_CONSTANT;
    else if (parse_accept(ps, TK_DISCRETE))
        kind = DECL_DISCRETE;
    else if (parse_accept(ps, TK_FLOW))
        is_flow = 1;
    if (!parse_expect(ps, TK_REAL))
        return;
    do {
        hy_decl decl = start_decl(ps, kind, -1);
        decl.is_flow = is_flow;
        decl.is_input = is_input;
        if (!named_with_size(ps, &decl, "a name"))
            return;
        if (ps->tk.kind == TK_LPAREN) {
            parse_modifiers(ps, &decl);
            if (ps->panic)
                return;
        }
        if (ps->tk.kind == TK_EQUAL) {
            parse_next(ps);
            decl.value_line = ps->tk.line;
            decl.value_column = ps->tk.column;
            if (decl.value.root >= 0 && !ps->panic) {
                ps->panic = 1;
                ps->n_errors++;
                hy_diag_error(ps->diag, decl.value_line, decl.value_column,
                              "'%s' has both a start modifier and '= value'",
                              hy_strtab_get(ps->strings, decl.name));
                return;
            }
            decl.value = parse_expr_ref(ps);
            if (ps->panic)
                return;
        }
        if (!push_decl(ps, &decl))
            return;
    } while (parse_accept(ps, TK_COMMA));
    parse_expect(ps, TK_SEMI);
}

/* ---------------------------------------------------------------- */
/* Equations, statements, for-loops                                 */

/* `connect(a, b)` parsed as the expression eq->lhs: fills connect_a/b. */
static int is_connect(hy_parser *ps, hy_equation_syn *eq)
{
    const hy_syn *call = &ps->syn->nodes[eq->lhs.root];
    if (call->op != SYN_CALL || strcmp(hy_strtab_get(ps->strings, call->name), "connect") != 0)
        return 0;
    eq->line = call->line;
    eq->column = call->column;
    const hy_syn *a = call->a >= 0 ? &ps->syn->nodes[call->a] : NULL;
    const hy_syn *b = call->b >= 0 ? &ps->syn->nodes[call->b] : NULL;
    int a_ok = a && (a->op == SYN_NAME || (a->op == SYN_INDEX && a->b < 0));
    int b_ok = b && (b->op == SYN_NAME || (b->op == SYN_INDEX && b->b < 0));
    if (call->n_args != 2 || !a_ok || !b_ok) {
        ps->n_errors++;
        ps->panic = 1;
        hy_diag_error(ps->diag, call->line, call->column,
                      "connect() takes two connectors: connect(a.p, b.n)");
        return 1;
    }
    eq->connect_a = a->name;
    eq->connect_b = b->name;
    if (a->op == SYN_INDEX) { /* connect(J[i].b, ...): an element of a component array */
        eq->connect_a_index = (hy_expr_ref){ a->first, a->a };
        eq->connect_a_member = a->var;
    }
    if (b->op == SYN_INDEX) {
        eq->connect_b_index = (hy_expr_ref){ b->first, b->a };
        eq->connect_b_member = b->var;
    }
    eq->line = a->line;
    eq->column = a->column;
    eq->b_line = b->line;
    eq->b_column = b->column;
    return 1;
}

/* equation := expr '=' expr ';' | output NAME '=' expr ';' | connect(a, b) ';' */
static void parse_equation(hy_parser *ps)
{
    hy_equation_syn eq;
    memset(&eq, 0, sizeof eq);
    eq.mode = ps->mode;
    eq.output_name = -1;
    eq.output_index.root = -1;
    eq.loop = ps->loop;
    eq.cls = ps->cls;
    eq.connect_a = eq.connect_b = -1;
    eq.connect_a_index.root = eq.connect_b_index.root = -1;
    eq.connect_a_member = eq.connect_b_member = -1;
    if (parse_accept(ps, TK_OUTPUT)) {
        eq.line = ps->tk.line;
        eq.column = ps->tk.column;
        eq.output_name = parse_expect_name(ps, "the output's name");
        if (eq.output_name < 0)
            return;
        if (parse_accept(ps, TK_LBRACKET)) {
            eq.output_index = parse_expr_ref(ps);
            if (ps->panic || !parse_expect(ps, TK_RBRACKET))
                return;
        }
        eq.lhs.root = -1;
        eq.lhs.first = ps->syn->n_nodes;
        if (!parse_expect(ps, TK_EQUAL))
            return;
        eq.rhs = parse_expr_ref(ps);
    } else {
        eq.lhs = parse_expr_ref(ps);
        if (ps->panic)
            return;
        if (ps->tk.kind == TK_SEMI && is_connect(ps, &eq)) {
            parse_next(ps);
            int i = PUSH(ps, equations, n_equations, cap_equations);
            if (i >= 0)
                ps->syn->equations[i] = eq;
            return;
        }
        eq.line = ps->tk.line;
        eq.column = ps->tk.column;
        if (ps->tk.kind == TK_ASSIGN) {
            parse_syntax_error(ps, "'=' (':=' assigns in actions, equations use '=')");
            return;
        }
        if (!parse_expect(ps, TK_EQUAL))
            return;
        eq.rhs = parse_expr_ref(ps);
    }
    if (ps->panic || !parse_expect(ps, TK_SEMI))
        return;
    int i = PUSH(ps, equations, n_equations, cap_equations);
    if (i >= 0)
        ps->syn->equations[i] = eq;
}

/* statement := NAME ':=' expr ';' | raise NAME ';' */
static void parse_statement(hy_parser *ps)
{
    hy_stmt_syn st;
    memset(&st, 0, sizeof st);
    st.line = ps->tk.line;
    st.column = ps->tk.column;
    st.value.root = -1;
    st.target_index.root = -1;
    st.loop = ps->loop;
    if (parse_accept(ps, TK_RAISE)) {
        st.is_raise = 1;
        st.target = parse_expect_name(ps, "an event name");
        if (st.target < 0)
            return;
    } else {
        st.target = parse_expect_name(ps, "an assignment 'name := value;' or 'raise EVENT;'");
        if (st.target < 0)
            return;
        if (parse_accept(ps, TK_LBRACKET)) {
            st.target_index = parse_expr_ref(ps);
            if (ps->panic || !parse_expect(ps, TK_RBRACKET))
                return;
        }
        if (ps->tk.kind == TK_EQUAL) {
            parse_syntax_error(ps, "':=' (actions assign with ':=')");
            return;
        }
        if (!parse_expect(ps, TK_ASSIGN))
            return;
        st.value = parse_expr_ref(ps);
        if (ps->panic)
            return;
    }
    if (!parse_expect(ps, TK_SEMI))
        return;
    int i = PUSH(ps, stmts, n_stmts, cap_stmts);
    if (i >= 0)
        ps->syn->stmts[i] = st;
}

/* `output` among statements: outputs are defined with a mode's
** equations, not by actions. Skipped up to the ';'. */
static void refuse_output_statement(hy_parser *ps)
{
    ps->n_errors++;
    hy_diag_error(ps->diag, ps->tk.line, ps->tk.column,
                  "'output' is not an action: outputs are defined among a mode's equations "
                  "(output NAME = expr;); actions assign with 'name := value;'");
    ps->panic = 1;
    parse_next(ps);
}

static void parse_statement_list(hy_parser *ps);
static void parse_equations(hy_parser *ps);

/* for NAME in expr ':' expr loop BODY end for ';' around equations
** (is_equation) or statements. */
static void parse_for(hy_parser *ps, int is_equation)
{
    hy_loop_syn loop;
    memset(&loop, 0, sizeof loop);
    loop.line = ps->tk.line;
    loop.column = ps->tk.column;
    loop.parent = ps->loop;
    loop.depth = ps->loop >= 0 ? ps->syn->loops[ps->loop].depth + 1 : 0;
    parse_next(ps); /* for */
    loop.var = parse_expect_name(ps, "the loop variable");
    if (loop.var < 0 || !parse_expect_word(ps, "in"))
        return;
    loop.from = parse_expr_ref(ps);
    if (ps->panic || !parse_expect(ps, TK_COLON))
        return;
    loop.to = parse_expr_ref(ps);
    if (ps->panic || !parse_expect_word(ps, "loop"))
        return;
    if (loop.depth >= HY_PARSE_MAX_DEPTH) {
        ps->n_errors++;
        ps->panic = 1;
        hy_diag_error(ps->diag, loop.line, loop.column, "for-loops nested too deeply "
                      "(more than %d levels)", HY_PARSE_MAX_DEPTH);
        return;
    }
    int index = PUSH(ps, loops, n_loops, cap_loops);
    if (index < 0)
        return;
    ps->syn->loops[index] = loop;
    int outer = ps->loop;
    ps->loop = index;
    if (is_equation)
        parse_equations(ps);
    else
        parse_statement_list(ps);
    ps->loop = outer;
    if (parse_expect(ps, TK_END) && parse_expect(ps, TK_FOR))
        parse_expect(ps, TK_SEMI);
}

/* Statements up to a token that starts an element or a section. */
static void parse_statement_list(hy_parser *ps)
{
    while ((!parse_starts_element(ps->tk.kind) || ps->tk.kind == TK_OUTPUT)
           && !parse_at_resting_mode(ps)) { /* `history mode` after entry actions */
        turn t = parse_turn_begin(ps);
        if (ps->tk.kind == TK_OUTPUT)
            refuse_output_statement(ps);
        else if (ps->tk.kind == TK_FOR)
            parse_for(ps, 0);
        else
            parse_statement(ps);
        parse_synchronize(ps);
        parse_turn_end(ps, t);
    }
}

static void parse_statements(hy_parser *ps, hy_stmt_range *range)
{
    range->first = ps->syn->n_stmts;
    parse_statement_list(ps);
    range->count = ps->syn->n_stmts - range->first;
}

/* ---------------------------------------------------------------- */
/* Modes, transitions, the experiment, charts, the class            */

/* 'end' [NAME] ';' closing `what` called `name` (-1: no name expected). */
static void parse_end(hy_parser *ps, const char *what, int name, int name_required)
{
    if (!parse_expect(ps, TK_END))
        return;
    /* A name that is not one (end 2nd;) was reported where it was declared:
    ** here it closes quietly, or it is a mismatch. */
    hy_token closing = ps->tk;
    parse_not_a_name kind;
    int closing_name = parse_name_like(ps, name, &kind);
    if (closing_name >= 0) {
        if (name >= 0 && closing_name != name && !ps->panic) {
            ps->n_errors++;
            hy_diag_error(ps->diag, closing.line, closing.column, "'end %s' closes %s '%s'",
                          hy_strtab_get(ps->strings, closing_name), what,
                          hy_strtab_get(ps->strings, name));
        }
    } else if (name_required) {
        char expected[160];
        snprintf(expected, sizeof expected, "'%s' after 'end' (closing %s '%s')",
                 hy_strtab_get(ps->strings, name), what, hy_strtab_get(ps->strings, name));
        parse_syntax_error(ps, expected);
        return;
    }
    parse_expect(ps, TK_SEMI);
}

/* Equations up to a token that starts an element. */
static void parse_equations(hy_parser *ps)
{
    while (!parse_starts_element(ps->tk.kind) || ps->tk.kind == TK_OUTPUT) {
        if (parse_at_component(ps) || parse_at_resting_mode(ps))
            break; /* TYPE NAME: a declaration after the equations; `history mode` */
        turn t = parse_turn_begin(ps);
        if (ps->tk.kind == TK_FOR)
            parse_for(ps, 1);
        else
            parse_equation(ps);
        parse_synchronize(ps);
        parse_turn_end(ps, t);
    }
}

static void section_twice(hy_parser *ps, const char *section)
{
    ps->n_errors++;
    hy_diag_error(ps->diag, ps->tk.line, ps->tk.column, "a second '%s' section in mode '%s'",
                  section, hy_strtab_get(ps->strings, ps->syn->modes[ps->mode].name));
}

static void parse_transition(hy_parser *ps);

/* A token that begins a mode's body (after its name). */
static int mode_body_starts(hy_token_kind kind)
{
    return kind == TK_EQUATION || kind == TK_ENTRY || kind == TK_EXIT || kind == TK_REAL
           || kind == TK_OUTPUT || kind == TK_END;
}

/* Modes nested in modes (sub-charts) at most this deep. */
enum { HY_MAX_MODE_DEPTH = 32 };

/* mode := [initial] [resting | history] mode NAME {declaration |
**         equation-section | entry statements | exit statements | mode |
**         transition} end NAME ';'
** The modes and transitions inside form the mode's sub-chart (flattened
** by hierarchy.c). */
static void parse_mode(hy_parser *ps)
{
    int is_initial = parse_accept(ps, TK_INITIAL);
    int word_line = 0, word_column = 0, is_history = 0;
    if (parse_at_resting_mode(ps)) {
        is_history = parse_at_word(ps, "history");
        word_line = ps->tk.line;
        word_column = ps->tk.column;
        parse_next(ps);
    }
    if (!parse_expect(ps, TK_MODE))
        return;
    int line = ps->tk.line, column = ps->tk.column;
    int name = parse_expect_name(ps, "the mode's name");
    if (name < 0 && !mode_body_starts(ps->tk.kind))
        return;
    if (name < 0) { /* said; the body is read under a stand-in name, quietly closed */
        name = hy_strtab_intern(ps->strings, "?", 1);
        if (name < 0)
            return;
        ps->panic = 0;
    }
    if (ps->mode_depth >= HY_MAX_MODE_DEPTH) {
        ps->n_errors++;
        hy_diag_error(ps->diag, line, column, "mode '%s' is nested deeper than %d modes",
                      hy_strtab_get(ps->strings, name), HY_MAX_MODE_DEPTH);
        while (ps->tk.kind != TK_EOF) /* the rest would only repeat it */
            parse_next(ps);
        ps->abandoned = 1;
        return;
    }
    int index = PUSH(ps, modes, n_modes, cap_modes);
    if (index < 0)
        return;
    hy_mode_syn *mode = &ps->syn->modes[index];
    mode->name = name;
    mode->line = line;
    mode->column = column;
    mode->chart = ps->chart;
    mode->parent = ps->mode;
    mode->is_initial = is_initial;
    mode->is_resting = word_line > 0 && !is_history;
    mode->has_history = is_history;
    mode->resting_line = mode->history_line = word_line;
    mode->resting_column = mode->history_column = word_column;
    mode->cls = ps->cls;
    int outer_mode = ps->mode;
    ps->mode = index;
    ps->mode_depth++;
    for (;;) {
        hy_token_kind kind = ps->tk.kind;
        if (kind == TK_END || kind == TK_EOF)
            break;
        turn t = parse_turn_begin(ps);
        if (kind == TK_MODE || kind == TK_INITIAL || parse_at_resting_mode(ps)) {
            parse_mode(ps);
            parse_synchronize(ps);
        } else if (kind == TK_TRANSITION) {
            parse_transition(ps);
            parse_synchronize(ps);
        } else if (kind == TK_EQUATION) {
            parse_next(ps);
            parse_equations(ps);
        } else if (kind == TK_ENTRY || kind == TK_EXIT) {
            hy_stmt_range *range = kind == TK_ENTRY ? &ps->syn->modes[index].entry
                                                    : &ps->syn->modes[index].exit;
            if (range->line)
                section_twice(ps, kind == TK_ENTRY ? "entry" : "exit");
            int section_line = ps->tk.line, section_column = ps->tk.column;
            parse_next(ps);
            hy_stmt_range parsed;
            parse_statements(ps, &parsed);
            range = kind == TK_ENTRY ? &ps->syn->modes[index].entry : &ps->syn->modes[index].exit;
            *range = parsed;
            range->line = section_line;
            range->column = section_column;
        } else if (kind == TK_PARAMETER || kind == TK_CONSTANT || kind == TK_DISCRETE) {
            ps->n_errors++;
            hy_diag_error(ps->diag, ps->tk.line, ps->tk.column,
                          "%s declarations belong to the model, not to mode '%s'",
                          hy_lex_kind_name(kind), hy_strtab_get(ps->strings, name));
            parse_declaration(ps); /* consumed; sema ignores it */
            parse_synchronize(ps);
        } else if (kind == TK_REAL || parse_at_component(ps)) {
            parse_declaration(ps);
            parse_synchronize(ps);
        } else if (kind == TK_OUTPUT) {
            parse_equation(ps);
            parse_synchronize(ps);
        } else {
            parse_syntax_error(ps, "a declaration, 'equation', 'entry', 'exit', 'mode', "
                                   "'transition' or 'end'");
            parse_synchronize(ps);
            if (parse_starts_element(ps->tk.kind) && ps->tk.kind != TK_END
                && ps->tk.kind != TK_REAL && ps->tk.kind != TK_EQUATION && ps->tk.kind != TK_ENTRY
                && ps->tk.kind != TK_EXIT && ps->tk.kind != TK_OUTPUT && ps->tk.kind != TK_MODE
                && ps->tk.kind != TK_INITIAL && ps->tk.kind != TK_TRANSITION)
                break; /* a chart or the experiment begins: this mode lacks its end */
        }
        parse_turn_end(ps, t);
    }
    ps->mode_depth--;
    ps->mode = outer_mode;
    int unnamed = strcmp(hy_strtab_get(ps->strings, name), "?") == 0;
    parse_end(ps, "mode", unnamed ? -1 : name, !unnamed);
}

/* transition := transition NAME [from (NAME | '*') to NAME] [priority NUMBER]
**               [initial] when expr [do statements] end [NAME] ';' */
static void parse_transition(hy_parser *ps)
{
    parse_next(ps); /* transition */
    hy_transition_syn tr;
    memset(&tr, 0, sizeof tr);
    tr.line = ps->tk.line;
    tr.column = ps->tk.column;
    tr.chart = ps->chart;
    tr.region = ps->mode;
    tr.cls = ps->cls;
    tr.from = tr.to = -1;
    tr.when.root = -1;
    tr.name = parse_expect_name(ps, "the transition's name");
    if (tr.name < 0)
        return;
    if (parse_accept(ps, TK_FROM)) {
        tr.from_line = ps->tk.line;
        tr.from_column = ps->tk.column;
        if (parse_accept(ps, TK_STAR))
            tr.from_any = 1; /* expanded by parse_expand_from_any */
        else if ((tr.from = parse_expect_name(ps, "the mode the transition leaves, or '*' "
                                                  "(every other mode of the chart)")) < 0)
            return;
        if (!parse_expect(ps, TK_TO))
            return;
        tr.to_line = ps->tk.line;
        tr.to_column = ps->tk.column;
        tr.to = parse_expect_name(ps, "the mode the transition enters");
        if (tr.to < 0)
            return;
    }
    if (parse_at_word(ps, "priority")) {
        tr.priority_line = ps->tk.line;
        tr.priority_column = ps->tk.column;
        parse_next(ps);
        if (ps->tk.kind != TK_NUMBER) {
            parse_syntax_error(ps, "a number after 'priority' (1 fires first)");
            return;
        }
        tr.priority = ps->tk.number;
        parse_next(ps);
    }
    if (ps->tk.kind == TK_INITIAL) {
        tr.fires_at_start = 1;
        tr.initial_line = ps->tk.line;
        tr.initial_column = ps->tk.column;
        parse_next(ps);
    }
    if (!parse_expect(ps, TK_WHEN))
        return;
    tr.when = parse_expr_ref(ps);
    if (ps->panic)
        return;
    tr.actions.first = ps->syn->n_stmts;
    if (ps->tk.kind == TK_DO) {
        tr.actions.line = ps->tk.line;
        tr.actions.column = ps->tk.column;
        parse_next(ps);
        parse_statements(ps, &tr.actions);
    }
    int i = PUSH(ps, transitions, n_transitions, cap_transitions);
    if (i < 0)
        return;
    ps->syn->transitions[i] = tr;
    parse_end(ps, "transition", tr.name, 0);
}

/* experiment := experiment setting {',' setting} ';'
** setting := NAME '=' (expr | STRING) */
static void parse_experiment(hy_parser *ps)
{
    parse_next(ps); /* experiment */
    do {
        hy_setting_syn st;
        memset(&st, 0, sizeof st);
        st.line = ps->tk.line;
        st.column = ps->tk.column;
        st.string_value = -1;
        st.cls = ps->cls;
        st.value.root = -1;
        st.name = parse_expect_name(ps, "a setting name");
        if (st.name < 0 || !parse_expect(ps, TK_EQUAL))
            return;
        if (ps->tk.kind == TK_STRING) {
            st.string_value = ps->tk.id;
            parse_next(ps);
        } else {
            st.value = parse_expr_ref(ps);
            if (ps->panic)
                return;
        }
        int i = PUSH(ps, settings, n_settings, cap_settings);
        if (i < 0)
            return;
        ps->syn->settings[i] = st;
    } while (parse_accept(ps, TK_COMMA));
    parse_expect(ps, TK_SEMI);
}

/* chart := chart NAME {mode | transition} end NAME ';' */
static void parse_chart(hy_parser *ps)
{
    parse_next(ps); /* chart */
    int line = ps->tk.line, column = ps->tk.column;
    int name = parse_expect_name(ps, "the chart's name");
    if (name < 0)
        return;
    if (ps->chart >= 0) {
        ps->n_errors++;
        hy_diag_error(ps->diag, line, column, "chart '%s' inside chart '%s': charts do not nest",
                      hy_strtab_get(ps->strings, name),
                      hy_strtab_get(ps->strings, ps->syn->charts[ps->chart].name));
    }
    int index = PUSH(ps, charts, n_charts, cap_charts);
    if (index < 0)
        return;
    ps->syn->charts[index].name = name;
    ps->syn->charts[index].line = line;
    ps->syn->charts[index].column = column;
    ps->syn->charts[index].cls = ps->cls;
    int outer = ps->chart;
    ps->chart = index;
    while (ps->tk.kind != TK_END && ps->tk.kind != TK_EOF) {
        turn t = parse_turn_begin(ps);
        if (ps->tk.kind == TK_MODE || ps->tk.kind == TK_INITIAL || parse_at_resting_mode(ps))
            parse_mode(ps);
        else if (ps->tk.kind == TK_TRANSITION)
            parse_transition(ps);
        else
            parse_syntax_error(ps, "'mode', 'initial mode', 'resting mode', 'transition' or "
                                   "'end' in a chart");
        parse_synchronize(ps);
        if (ps->panic)
            break;
        if (ps->tk.kind != TK_END && ps->tk.kind != TK_EOF && ps->tk.kind != TK_MODE
            && ps->tk.kind != TK_INITIAL && ps->tk.kind != TK_TRANSITION
            && !parse_at_resting_mode(ps)) {
            parse_syntax_error(ps, "'mode', 'initial mode', 'resting mode', 'transition' or "
                                   "'end' in a chart");
            ps->panic = 0;
            parse_next(ps);
        }
        parse_turn_end(ps, t);
    }
    ps->chart = outer;
    parse_end(ps, "chart", name, 1);
}

void parse_model_body(hy_parser *ps, int model_name)
{
    const char *what = ps->syn->classes[ps->cls].kind == CLASS_CONNECTOR ? "connector"
                       : ps->syn->classes[ps->cls].kind == CLASS_BLOCK   ? "block"
                                                                         : "model";
    for (;;) {
        turn t = parse_turn_begin(ps);
        switch (ps->tk.kind) {
        case TK_EOF:
            parse_syntax_error(ps, "'end' closing the model");
            return;
        case TK_END:
            parse_end(ps, what, model_name, 1);
            return;
        case TK_PARAMETER: case TK_CONSTANT: case TK_DISCRETE: case TK_REAL: case TK_FLOW:
            parse_declaration(ps);
            break;
        case TK_NAME:
            if (parse_at_resting_mode(ps)) {
                parse_mode(ps);
                break;
            }
            if (parse_at_component(ps) || parse_at_input(ps)) {
                parse_declaration(ps);
                break;
            }
            parse_syntax_error(ps, "a declaration, 'equation', 'mode', 'chart', "
                                   "'transition', 'experiment' or 'end'");
            parse_next(ps);
            break;
        case TK_EQUATION:
            parse_next(ps);
            parse_equations(ps);
            break;
        case TK_OUTPUT:
            parse_equation(ps);
            break;
        case TK_MODE: case TK_INITIAL:
            parse_mode(ps);
            break;
        case TK_CHART:
            parse_chart(ps);
            break;
        case TK_TRANSITION:
            parse_transition(ps);
            break;
        case TK_EXPERIMENT:
            parse_experiment(ps);
            break;
        case TK_ENTRY: case TK_EXIT:
            ps->n_errors++;
            hy_diag_error(ps->diag, ps->tk.line, ps->tk.column,
                          "'%s' actions belong to a mode", hy_lex_kind_name(ps->tk.kind));
            ps->panic = 1;
            parse_next(ps);
            break;
        default:
            parse_syntax_error(ps, "a declaration, 'equation', 'mode', 'chart', "
                                   "'transition', 'experiment' or 'end'");
            if (ps->tk.kind != TK_SEMI)
                parse_next(ps);
            break;
        }
        parse_synchronize(ps);
        parse_turn_end(ps, t);
    }
}

/* Each `transition T from * to M` of class cls becomes one transition from
** every other mode of its chart (in the order of the modes), in its place;
** it stays as it is (from -1, for sema to report) when M is not a mode of
** the chart or no other mode exists. */
void parse_expand_from_any(hy_parser *ps, int cls)
{
    hy_syntax *syn = ps->syn;
    for (int i = 0; i < syn->n_transitions; i++) {
        hy_transition_syn any = syn->transitions[i];
        if (any.cls != cls || !any.from_any || any.from >= 0)
            continue;
        int n_sources = 0, has_target = 0;
        for (int m = 0; m < syn->n_modes; m++) {
            const hy_mode_syn *mode = &syn->modes[m];
            if (mode->cls != cls || mode->chart != any.chart || mode->parent != any.region)
                continue;
            if (mode->name == any.to)
                has_target = 1;
            else
                n_sources++;
        }
        if (!has_target || n_sources == 0)
            continue;
        if (hy_grow((void **)&syn->transitions, &syn->cap_transitions,
                    syn->n_transitions + n_sources - 1, sizeof *syn->transitions)) {
            ps->n_errors++;
            hy_diag_nomem(ps->diag);
            return;
        }
        memmove(&syn->transitions[i + n_sources], &syn->transitions[i + 1],
                sizeof *syn->transitions * (size_t)(syn->n_transitions - i - 1));
        syn->n_transitions += n_sources - 1;
        int k = i;
        for (int m = 0; m < syn->n_modes; m++) {
            const hy_mode_syn *mode = &syn->modes[m];
            if (mode->cls != cls || mode->chart != any.chart || mode->parent != any.region
                || mode->name == any.to)
                continue;
            syn->transitions[k] = any;
            syn->transitions[k++].from = mode->name;
        }
        i = k - 1;
    }
}
