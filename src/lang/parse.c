/*
** Parser of the model language (.hym): recursive descent with one token
** of lookahead, in the manner of Lua's lparser.c. The grammar is in
** docs/language.md. Errors name the file, line, column and the token found
** ("expected ';', found 'end'"); after an error the parser skips to the
** next ';' or to the start of the next element and goes on, so one run
** reports several errors. Within one statement only the first error is
** reported (panic mode).
**
** Every loop ends: an expression loop and a list loop (a, b, c) consume
** their operator or comma each turn; a loop over statements, equations or
** elements ends each turn with turn_end(), which skips the current token
** when the turn consumed none; and after too many errors the lexer ends
** the input (hy_diag_gave_up), so recovery cannot go on forever.
*/
#include "lang/parse.h"

#include "lang/lex.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct hy_parser {
    hy_lexer lex;
    hy_token tk;          /* current token */
    hy_token ahead;       /* lookahead, valid if has_ahead */
    int has_ahead;
    hy_diag *diag;
    hy_strtab *strings;
    hy_syntax *syn;
    int depth;            /* expression nesting */
    int panic;            /* an error in this statement was reported */
    int n_errors;
    int mode;             /* mode being parsed, -1 at model level */
    int chart;            /* chart being parsed, -1 outside */
    int loop;             /* innermost for-loop being parsed, -1 outside */
    int cls;              /* class being parsed */
    long n_tokens;        /* tokens consumed so far */
} hy_parser;

static void next(hy_parser *ps)
{
    ps->n_tokens++;
    if (ps->has_ahead) {
        ps->tk = ps->ahead;
        ps->has_ahead = 0;
    } else {
        hy_lex_next(&ps->lex, &ps->tk);
    }
}

/* The token after the current one (read once, kept in ahead). */
static const hy_token *peek(hy_parser *ps)
{
    if (!ps->has_ahead) {
        hy_lex_next(&ps->lex, &ps->ahead);
        ps->has_ahead = 1;
    }
    return &ps->ahead;
}

/* The current token is the name `word` (a word with a meaning in one
** place only, not reserved: "priority", "resting"). */
static int at_word(const hy_parser *ps, const char *word)
{
    return ps->tk.kind == TK_NAME && strcmp(hy_strtab_get(ps->strings, ps->tk.id), word) == 0;
}

/* `resting mode` starts here. */
static int at_resting_mode(hy_parser *ps)
{
    return at_word(ps, "resting") && peek(ps)->kind == TK_MODE;
}

/* TYPE NAME: a component declaration starts here. */
static int at_component(hy_parser *ps)
{
    return ps->tk.kind == TK_NAME && peek(ps)->kind == TK_NAME;
}

/* How the current token is shown: "'x'", "'12.5'", "'end'", "end of file". */
static void describe(const hy_token *tk, char *buf, size_t size)
{
    if (tk->kind == TK_NAME || tk->kind == TK_NUMBER)
        snprintf(buf, size, "'%.*s'", tk->text_len > 40 ? 40 : tk->text_len, tk->text);
    else
        snprintf(buf, size, "%s", hy_lex_kind_name(tk->kind));
}

static void syntax_error(hy_parser *ps, const char *expected)
{
    if (ps->panic)
        return;
    ps->panic = 1;
    ps->n_errors++;
    char found[64];
    describe(&ps->tk, found, sizeof found);
    hy_diag_error(ps->diag, ps->tk.line, ps->tk.column, "expected %s, found %s", expected, found);
}

static int accept(hy_parser *ps, hy_token_kind kind)
{
    if (ps->tk.kind != kind)
        return 0;
    next(ps);
    return 1;
}

static int expect(hy_parser *ps, hy_token_kind kind)
{
    if (accept(ps, kind))
        return 1;
    syntax_error(ps, hy_lex_kind_name(kind));
    return 0;
}

/* A name: its id, or -1 after reporting. */
static int expect_name(hy_parser *ps, const char *what)
{
    if (ps->tk.kind != TK_NAME) {
        syntax_error(ps, what);
        return -1;
    }
    int id = ps->tk.id;
    next(ps);
    return id;
}

/* A word that is a keyword only where the grammar expects it (`in`, `loop`
** of a for-loop; elsewhere they are names, e.g. a chart called loop). */
static int expect_word(hy_parser *ps, const char *word)
{
    if (ps->tk.kind == TK_NAME && strcmp(hy_strtab_get(ps->strings, ps->tk.id), word) == 0) {
        next(ps);
        return 1;
    }
    char expected[32];
    snprintf(expected, sizeof expected, "'%s'", word);
    syntax_error(ps, expected);
    return 0;
}

static int starts_element(hy_token_kind kind)
{
    switch (kind) {
    case TK_PARAMETER: case TK_CONSTANT: case TK_DISCRETE: case TK_REAL: case TK_EQUATION:
    case TK_FLOW: case TK_MODEL: case TK_BLOCK: case TK_CONNECTOR: case TK_IMPORT:
    case TK_MODE: case TK_INITIAL: case TK_CHART: case TK_TRANSITION: case TK_EXPERIMENT:
    case TK_ENTRY: case TK_EXIT: case TK_OUTPUT: case TK_END: case TK_EOF:
        return 1;
    default:
        return 0;
    }
}

/* After an error: skip to just past the next ';', or to a token that
** starts an element (not consumed). Clears panic mode. */
static void synchronize(hy_parser *ps)
{
    if (!ps->panic)
        return;
    while (ps->tk.kind != TK_EOF) {
        if (ps->tk.kind == TK_SEMI) {
            next(ps);
            break;
        }
        if (starts_element(ps->tk.kind) && ps->tk.kind != TK_END)
            break;
        if (ps->tk.kind == TK_END) {
            /* `end NAME;` or `end;` closes something: leave it. */
            break;
        }
        next(ps);
    }
    ps->panic = 0;
}

/* Where a turn of a loop over statements, equations or elements began. */
typedef struct turn {
    long n_tokens;
    int n_errors;
} turn;

static turn turn_begin(const hy_parser *ps)
{
    turn t = { ps->n_tokens, ps->diag->n_errors };
    return t;
}

/* Every such loop ends its turn with this, so each turn consumes a token
** or the loop ends at end of file: a turn that consumed nothing (an error
** left the parser on a token the loop does not handle) would repeat
** forever, so that token is skipped, reported if nothing else was. */
static void turn_end(hy_parser *ps, turn t)
{
    if (ps->n_tokens != t.n_tokens || ps->tk.kind == TK_EOF)
        return;
    if (ps->diag->n_errors == t.n_errors) {
        ps->panic = 0;
        syntax_error(ps, "a declaration, an equation or 'end'");
    }
    ps->panic = 0;
    next(ps);
}

/* ---------------------------------------------------------------- */
/* Expressions                                                      */

static int add_node(hy_parser *ps, hy_syn_op op, int line, int column, int a, int b, int c)
{
    int node = hy_syntax_add_node(ps->syn, op, line, column, a, b, c);
    if (node < 0) {
        hy_diag_nomem(ps->diag);
        ps->panic = 1;
    }
    return node;
}

static int parse_expr(hy_parser *ps);

/* Enter one level of nesting; 0 if the limit is reached (reported). */
static int enter(hy_parser *ps)
{
    if (ps->depth >= HY_PARSE_MAX_DEPTH) {
        if (!ps->panic) {
            ps->panic = 1;
            ps->n_errors++;
            hy_diag_error(ps->diag, ps->tk.line, ps->tk.column,
                          "expression nested too deeply (more than %d levels)",
                          HY_PARSE_MAX_DEPTH);
        }
        return 0;
    }
    ps->depth++;
    return 1;
}

/* `for NAME in from:to` of a reduction or comprehension whose body is
** node body (its range starting at first): the node op with name, var,
** a = body, b = from, c = to. */
static int parse_for_clause(hy_parser *ps, hy_syn_op op, int name, int first, int body,
                            int line, int column)
{
    next(ps); /* for */
    int var = expect_name(ps, "the loop variable");
    if (var < 0 || !expect_word(ps, "in"))
        return -1;
    int from = parse_expr(ps);
    if (ps->panic || !expect(ps, TK_COLON))
        return -1;
    int to = parse_expr(ps);
    if (ps->panic)
        return -1;
    int node = add_node(ps, op, line, column, body, from, to);
    if (node >= 0) {
        ps->syn->nodes[node].name = name;
        ps->syn->nodes[node].var = var;
        ps->syn->nodes[node].first = first;
    }
    return node;
}

static int parse_call(hy_parser *ps, int name, int line, int column)
{
    int args[HY_SYN_MAX_ARGS] = { -1, -1, -1 };
    int n_args = 0;
    next(ps); /* ( */
    if (ps->tk.kind != TK_RPAREN) {
        do {
            int first = ps->syn->n_nodes;
            int arg = parse_expr(ps);
            if (ps->panic)
                return -1;
            if (n_args == 0 && ps->tk.kind == TK_FOR) { /* sum(x[i] for i in 1:n) */
                int node = parse_for_clause(ps, SYN_REDUCE, name, first, arg, line, column);
                if (node < 0 || !expect(ps, TK_RPAREN))
                    return -1;
                return node;
            }
            if (n_args < HY_SYN_MAX_ARGS)
                args[n_args] = arg;
            if (n_args < 255)
                n_args++;
        } while (accept(ps, TK_COMMA));
    }
    if (!expect(ps, TK_RPAREN))
        return -1;
    int node = add_node(ps, SYN_CALL, line, column, args[0], args[1], args[2]);
    if (node >= 0) {
        ps->syn->nodes[node].name = name;
        ps->syn->nodes[node].n_args = (unsigned char)n_args;
    }
    return node;
}

/* name '[' expr ']' | name '[' expr ':' expr ']' (a slice) */
static int parse_index(hy_parser *ps, int name, int line, int column)
{
    next(ps); /* [ */
    int first = ps->syn->n_nodes;
    int index = parse_expr(ps);
    int last = -1;
    if (!ps->panic && accept(ps, TK_COLON))
        last = parse_expr(ps);
    if (ps->panic || !expect(ps, TK_RBRACKET))
        return -1;
    int member = -1;
    if (ps->tk.kind == TK_MEMBER) { /* J[i].w: a variable of a component array's element */
        if (last >= 0) {
            ps->n_errors++;
            ps->panic = 1;
            hy_diag_error(ps->diag, ps->tk.line, ps->tk.column, "a slice of components has no "
                          "members: write '%s[i]%.*s' in a loop or in sum(... for i in a:b)",
                          hy_strtab_get(ps->strings, name), ps->tk.text_len, ps->tk.text);
            return -1;
        }
        member = ps->tk.id;
        next(ps);
    }
    int node = add_node(ps, SYN_INDEX, line, column, index, last, -1);
    if (node >= 0) {
        ps->syn->nodes[node].name = name;
        ps->syn->nodes[node].first = first;
        ps->syn->nodes[node].var = member;
    }
    return node;
}

/* '{' expr {',' expr} '}' | '{' expr for NAME in expr ':' expr '}'. The
** constructor's links are added after all elements, last element first,
** so that every link's operands come before it. */
static int parse_braces(hy_parser *ps)
{
    int line = ps->tk.line, column = ps->tk.column;
    next(ps); /* { */
    int first = ps->syn->n_nodes;
    int element = parse_expr(ps);
    if (ps->panic)
        return -1;
    if (ps->tk.kind == TK_FOR) {
        int node = parse_for_clause(ps, SYN_COMPREH, -1, first, element, line, column);
        if (node < 0 || !expect(ps, TK_RBRACE))
            return -1;
        return node;
    }
    int n = 0, cap = 0, *elements = NULL, *firsts = NULL, cap_firsts = 0;
    int link = -1;
    for (;;) {
        if (hy_grow((void **)&elements, &cap, n + 1, sizeof *elements)
            || hy_grow((void **)&firsts, &cap_firsts, n + 1, sizeof *firsts)) {
            hy_diag_nomem(ps->diag);
            ps->panic = 1;
            goto done;
        }
        elements[n] = element;
        firsts[n++] = first;
        if (!accept(ps, TK_COMMA))
            break;
        first = ps->syn->n_nodes;
        element = parse_expr(ps);
        if (ps->panic)
            goto done;
    }
    if (!expect(ps, TK_RBRACE))
        goto done;
    for (int k = n - 1; k >= 0; k--) {
        link = add_node(ps, SYN_ARRAY, line, column, elements[k], link, -1);
        if (link < 0)
            break;
        ps->syn->nodes[link].first = firsts[k];
        ps->syn->nodes[link].var = n - k; /* elements from this link on */
    }
done:
    hy_free(elements);
    hy_free(firsts);
    return ps->panic ? -1 : link;
}

static int parse_primary(hy_parser *ps)
{
    int line = ps->tk.line, column = ps->tk.column;
    switch (ps->tk.kind) {
    case TK_NUMBER:
    case TK_TRUE:
    case TK_FALSE: {
        double value = ps->tk.kind == TK_NUMBER ? ps->tk.number : ps->tk.kind == TK_TRUE;
        next(ps);
        int node = add_node(ps, SYN_NUM, line, column, -1, -1, -1);
        if (node >= 0)
            ps->syn->nodes[node].value = value;
        return node;
    }
    case TK_TIME:
        next(ps);
        return add_node(ps, SYN_TIME, line, column, -1, -1, -1);
    case TK_EVENT: {
        next(ps);
        int name = expect_name(ps, "an event name");
        if (name < 0)
            return -1;
        int node = add_node(ps, SYN_EVENT, line, column, -1, -1, -1);
        if (node >= 0)
            ps->syn->nodes[node].name = name;
        return node;
    }
    case TK_NAME: {
        int name = ps->tk.id;
        next(ps);
        if (ps->tk.kind == TK_LPAREN) {
            if (!enter(ps))
                return -1;
            int node = parse_call(ps, name, line, column);
            ps->depth--;
            return node;
        }
        if (ps->tk.kind == TK_LBRACKET)
            return parse_index(ps, name, line, column);
        int node = add_node(ps, SYN_NAME, line, column, -1, -1, -1);
        if (node >= 0)
            ps->syn->nodes[node].name = name;
        return node;
    }
    case TK_LBRACE: {
        if (!enter(ps))
            return -1;
        int node = parse_braces(ps);
        ps->depth--;
        return node;
    }
    case TK_LPAREN: {
        if (!enter(ps))
            return -1;
        next(ps);
        int node = parse_expr(ps);
        ps->depth--;
        if (ps->panic || !expect(ps, TK_RPAREN))
            return -1;
        return node;
    }
    case TK_IF: {
        if (!enter(ps))
            return -1;
        next(ps);
        int cond = parse_expr(ps);
        int then_value = -1, else_value = -1;
        if (!ps->panic && expect(ps, TK_THEN))
            then_value = parse_expr(ps);
        if (!ps->panic && expect(ps, TK_ELSE))
            else_value = parse_expr(ps);
        ps->depth--;
        if (ps->panic)
            return -1;
        return add_node(ps, SYN_IF, line, column, cond, then_value, else_value);
    }
    default:
        syntax_error(ps, "an expression");
        return -1;
    }
}

/* power := primary ['^' unary]  (right-associative through unary) */
static int parse_unary(hy_parser *ps);

static int parse_power(hy_parser *ps)
{
    int base = parse_primary(ps);
    if (ps->panic || ps->tk.kind != TK_CARET)
        return base;
    int line = ps->tk.line, column = ps->tk.column;
    if (!enter(ps))
        return -1;
    next(ps);
    int exponent = parse_unary(ps);
    ps->depth--;
    if (ps->panic)
        return -1;
    return add_node(ps, SYN_POW, line, column, base, exponent, -1);
}

/* unary := ('-' | '+') unary | power */
static int parse_unary(hy_parser *ps)
{
    if (ps->tk.kind == TK_MINUS || ps->tk.kind == TK_PLUS) {
        int negate = ps->tk.kind == TK_MINUS;
        int line = ps->tk.line, column = ps->tk.column;
        if (!enter(ps))
            return -1;
        next(ps);
        int operand = parse_unary(ps);
        ps->depth--;
        if (ps->panic)
            return -1;
        return negate ? add_node(ps, SYN_NEG, line, column, operand, -1, -1) : operand;
    }
    return parse_power(ps);
}

static int parse_term(hy_parser *ps)
{
    int left = parse_unary(ps);
    while (!ps->panic && (ps->tk.kind == TK_STAR || ps->tk.kind == TK_SLASH)) {
        hy_syn_op op = ps->tk.kind == TK_STAR ? SYN_MUL : SYN_DIV;
        int line = ps->tk.line, column = ps->tk.column;
        next(ps);
        int right = parse_unary(ps);
        if (ps->panic)
            return -1;
        left = add_node(ps, op, line, column, left, right, -1);
    }
    return left;
}

static int parse_sum(hy_parser *ps)
{
    int left = parse_term(ps);
    while (!ps->panic && (ps->tk.kind == TK_PLUS || ps->tk.kind == TK_MINUS)) {
        hy_syn_op op = ps->tk.kind == TK_PLUS ? SYN_ADD : SYN_SUB;
        int line = ps->tk.line, column = ps->tk.column;
        next(ps);
        int right = parse_term(ps);
        if (ps->panic)
            return -1;
        left = add_node(ps, op, line, column, left, right, -1);
    }
    return left;
}

static int relation_op(hy_token_kind kind)
{
    switch (kind) {
    case TK_LT: return SYN_LT;
    case TK_LE: return SYN_LE;
    case TK_GT: return SYN_GT;
    case TK_GE: return SYN_GE;
    case TK_EQEQ: return SYN_EQ;
    case TK_NE: return SYN_NE;
    default: return -1;
    }
}

/* relation := sum [relop sum]  (not associative) */
static int parse_relation(hy_parser *ps)
{
    int left = parse_sum(ps);
    int op = relation_op(ps->tk.kind);
    if (ps->panic || op < 0)
        return left;
    int line = ps->tk.line, column = ps->tk.column;
    next(ps);
    int right = parse_sum(ps);
    if (ps->panic)
        return -1;
    int node = add_node(ps, (hy_syn_op)op, line, column, left, right, -1);
    if (relation_op(ps->tk.kind) >= 0) {
        syntax_error(ps, "an operator other than a comparison (a < b < c is not allowed)");
        return -1;
    }
    return node;
}

static int parse_not(hy_parser *ps)
{
    if (ps->tk.kind != TK_NOT)
        return parse_relation(ps);
    int line = ps->tk.line, column = ps->tk.column;
    if (!enter(ps))
        return -1;
    next(ps);
    int operand = parse_not(ps);
    ps->depth--;
    if (ps->panic)
        return -1;
    return add_node(ps, SYN_NOT, line, column, operand, -1, -1);
}

static int parse_and(hy_parser *ps)
{
    int left = parse_not(ps);
    while (!ps->panic && ps->tk.kind == TK_AND) {
        int line = ps->tk.line, column = ps->tk.column;
        next(ps);
        int right = parse_not(ps);
        if (ps->panic)
            return -1;
        left = add_node(ps, SYN_AND, line, column, left, right, -1);
    }
    return left;
}

static int parse_expr(hy_parser *ps)
{
    int left = parse_and(ps);
    while (!ps->panic && ps->tk.kind == TK_OR) {
        int line = ps->tk.line, column = ps->tk.column;
        next(ps);
        int right = parse_and(ps);
        if (ps->panic)
            return -1;
        left = add_node(ps, SYN_OR, line, column, left, right, -1);
    }
    return ps->panic ? -1 : left;
}

/* An expression with its node range. */
static hy_expr_ref parse_expr_ref(hy_parser *ps)
{
    hy_expr_ref ref;
    ref.first = ps->syn->n_nodes;
    ps->depth = 0;
    ref.root = parse_expr(ps);
    if (ps->panic)
        ref.root = -1;
    return ref;
}

/* ---------------------------------------------------------------- */
/* Declarations, equations, statements                              */

static int push(hy_parser *ps, void **array, int *n, int *cap, size_t size)
{
    if (hy_grow(array, cap, *n + 1, size)) {
        hy_diag_nomem(ps->diag);
        ps->panic = 1;
        return -1;
    }
    memset((char *)*array + (size_t)*n * size, 0, size);
    return (*n)++;
}

#define PUSH(ps, field, n, cap) push((ps), (void **)&(ps)->syn->field, &(ps)->syn->n, \
                                     &(ps)->syn->cap, sizeof *(ps)->syn->field)

/* modifiers := '(' NAME '=' (expr | STRING) {',' ...} ')' */
static void parse_modifiers(hy_parser *ps, hy_decl *decl_copy)
{
    next(ps); /* ( */
    do {
        int line = ps->tk.line, column = ps->tk.column;
        int name = expect_name(ps, "a modifier name (start, unit, rtol, atol)");
        if (name < 0 || !expect(ps, TK_EQUAL))
            return;
        const char *text = hy_strtab_get(ps->strings, name);
        if (strcmp(text, "unit") == 0) {
            if (ps->tk.kind != TK_STRING) {
                syntax_error(ps, "a string for 'unit'");
                return;
            }
            decl_copy->unit = ps->tk.id;
            next(ps);
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
    } while (accept(ps, TK_COMMA));
    expect(ps, TK_RPAREN);
}

/* declaration := [parameter | constant | discrete] Real item {',' item} ';'
** item := NAME [modifiers] ['=' expr] [STRING] */
/* [STRING] after a declared item, then the item into the list; 0 when out
** of memory. */
static int push_decl(hy_parser *ps, hy_decl *decl)
{
    if (ps->tk.kind == TK_STRING) {
        decl->description = ps->tk.id;
        next(ps);
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
    next(ps); /* ( */
    decl->mod_first = ps->syn->n_mods;
    do {
        hy_mod_syn mod;
        memset(&mod, 0, sizeof mod);
        mod.line = ps->tk.line;
        mod.column = ps->tk.column;
        mod.name = expect_name(ps, "the name of a parameter or variable of the component");
        if (mod.name < 0 || !expect(ps, TK_EQUAL))
            return;
        mod.value = parse_expr_ref(ps);
        if (ps->panic)
            return;
        int i = PUSH(ps, mods, n_mods, cap_mods);
        if (i < 0)
            return;
        ps->syn->mods[i] = mod;
        decl->mod_count++;
    } while (accept(ps, TK_COMMA));
    expect(ps, TK_RPAREN);
}

/* TYPE item {',' item} ';' with item := NAME [component-modifiers] [STRING] */
static void parse_components(hy_parser *ps)
{
    int type_name = ps->tk.id;
    next(ps);
    do {
        hy_decl decl;
        memset(&decl, 0, sizeof decl);
        decl.kind = DECL_COMPONENT;
        decl.line = ps->tk.line;
        decl.column = ps->tk.column;
        decl.value.root = decl.rtol.root = decl.atol.root = decl.size.root = -1;
        decl.unit = decl.description = -1;
        decl.mode = ps->mode;
        decl.cls = ps->cls;
        decl.type_name = type_name;
        decl.name = expect_name(ps, "the component's name");
        if (decl.name < 0)
            return;
        if (accept(ps, TK_LBRACKET)) { /* an array of components: Inertia J[3](J = {1, 2, 3}) */
            decl.size = parse_expr_ref(ps);
            if (ps->panic || !expect(ps, TK_RBRACKET))
                return;
        }
        if (ps->tk.kind == TK_LPAREN) {
            parse_component_modifiers(ps, &decl);
            if (ps->panic)
                return;
        }
        if (!push_decl(ps, &decl))
            return;
    } while (accept(ps, TK_COMMA));
    expect(ps, TK_SEMI);
}

static void parse_declaration(hy_parser *ps)
{
    if (ps->tk.kind == TK_NAME) {
        parse_components(ps);
        return;
    }
    hy_decl_kind kind = DECL_VARIABLE;
    int is_flow = 0;
    if (accept(ps, TK_PARAMETER))
        kind = DECL_PARAMETER;
    else if (accept(ps, TK_CONSTANT))
        kind = DECL_CONSTANT;
    else if (accept(ps, TK_DISCRETE))
        kind = DECL_DISCRETE;
    else if (accept(ps, TK_FLOW))
        is_flow = 1;
    if (!expect(ps, TK_REAL))
        return;
    do {
        hy_decl decl;
        memset(&decl, 0, sizeof decl);
        decl.kind = kind;
        decl.is_flow = is_flow;
        decl.cls = ps->cls;
        decl.type_name = -1;
        decl.line = ps->tk.line;
        decl.column = ps->tk.column;
        decl.value.root = decl.rtol.root = decl.atol.root = -1;
        decl.unit = decl.description = -1;
        decl.mode = ps->mode;
        decl.size.root = -1;
        decl.name = expect_name(ps, "a name");
        if (decl.name < 0)
            return;
        if (accept(ps, TK_LBRACKET)) {
            decl.size = parse_expr_ref(ps);
            if (ps->panic || !expect(ps, TK_RBRACKET))
                return;
        }
        if (ps->tk.kind == TK_LPAREN) {
            parse_modifiers(ps, &decl);
            if (ps->panic)
                return;
        }
        if (ps->tk.kind == TK_EQUAL) {
            next(ps);
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
    } while (accept(ps, TK_COMMA));
    expect(ps, TK_SEMI);
}

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
    if (accept(ps, TK_OUTPUT)) {
        eq.line = ps->tk.line;
        eq.column = ps->tk.column;
        eq.output_name = expect_name(ps, "the output's name");
        if (eq.output_name < 0)
            return;
        if (accept(ps, TK_LBRACKET)) {
            eq.output_index = parse_expr_ref(ps);
            if (ps->panic || !expect(ps, TK_RBRACKET))
                return;
        }
        eq.lhs.root = -1;
        eq.lhs.first = ps->syn->n_nodes;
        if (!expect(ps, TK_EQUAL))
            return;
        eq.rhs = parse_expr_ref(ps);
    } else {
        eq.lhs = parse_expr_ref(ps);
        if (ps->panic)
            return;
        if (ps->tk.kind == TK_SEMI && is_connect(ps, &eq)) {
            next(ps);
            int i = PUSH(ps, equations, n_equations, cap_equations);
            if (i >= 0)
                ps->syn->equations[i] = eq;
            return;
        }
        eq.line = ps->tk.line;
        eq.column = ps->tk.column;
        if (ps->tk.kind == TK_ASSIGN) {
            syntax_error(ps, "'=' (':=' assigns in actions, equations use '=')");
            return;
        }
        if (!expect(ps, TK_EQUAL))
            return;
        eq.rhs = parse_expr_ref(ps);
    }
    if (ps->panic || !expect(ps, TK_SEMI))
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
    if (accept(ps, TK_RAISE)) {
        st.is_raise = 1;
        st.target = expect_name(ps, "an event name");
        if (st.target < 0)
            return;
    } else {
        st.target = expect_name(ps, "an assignment 'name := value;' or 'raise EVENT;'");
        if (st.target < 0)
            return;
        if (accept(ps, TK_LBRACKET)) {
            st.target_index = parse_expr_ref(ps);
            if (ps->panic || !expect(ps, TK_RBRACKET))
                return;
        }
        if (ps->tk.kind == TK_EQUAL) {
            syntax_error(ps, "':=' (actions assign with ':=')");
            return;
        }
        if (!expect(ps, TK_ASSIGN))
            return;
        st.value = parse_expr_ref(ps);
        if (ps->panic)
            return;
    }
    if (!expect(ps, TK_SEMI))
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
    next(ps);
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
    next(ps); /* for */
    loop.var = expect_name(ps, "the loop variable");
    if (loop.var < 0 || !expect_word(ps, "in"))
        return;
    loop.from = parse_expr_ref(ps);
    if (ps->panic || !expect(ps, TK_COLON))
        return;
    loop.to = parse_expr_ref(ps);
    if (ps->panic || !expect_word(ps, "loop"))
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
    if (expect(ps, TK_END) && expect(ps, TK_FOR))
        expect(ps, TK_SEMI);
}

/* Statements up to a token that starts an element or a section. */
static void parse_statement_list(hy_parser *ps)
{
    while (!starts_element(ps->tk.kind) || ps->tk.kind == TK_OUTPUT) {
        turn t = turn_begin(ps);
        if (ps->tk.kind == TK_OUTPUT)
            refuse_output_statement(ps);
        else if (ps->tk.kind == TK_FOR)
            parse_for(ps, 0);
        else
            parse_statement(ps);
        synchronize(ps);
        turn_end(ps, t);
    }
}

static void parse_statements(hy_parser *ps, hy_stmt_range *range)
{
    range->first = ps->syn->n_stmts;
    parse_statement_list(ps);
    range->count = ps->syn->n_stmts - range->first;
}

/* 'end' [NAME] ';' closing `what` called `name` (-1: no name expected). */
static void parse_end(hy_parser *ps, const char *what, int name, int name_required)
{
    if (!expect(ps, TK_END))
        return;
    if (ps->tk.kind == TK_NAME) {
        if (name >= 0 && ps->tk.id != name && !ps->panic) {
            ps->n_errors++;
            hy_diag_error(ps->diag, ps->tk.line, ps->tk.column, "'end %s' closes %s '%s'",
                          hy_strtab_get(ps->strings, ps->tk.id), what,
                          hy_strtab_get(ps->strings, name));
        }
        next(ps);
    } else if (name_required) {
        char expected[160];
        snprintf(expected, sizeof expected, "'%s' after 'end' (closing %s '%s')",
                 hy_strtab_get(ps->strings, name), what, hy_strtab_get(ps->strings, name));
        syntax_error(ps, expected);
        return;
    }
    expect(ps, TK_SEMI);
}

/* Equations up to a token that starts an element. */
static void parse_equations(hy_parser *ps)
{
    while (!starts_element(ps->tk.kind) || ps->tk.kind == TK_OUTPUT) {
        if (at_component(ps))
            break; /* TYPE NAME: a declaration after the equations */
        turn t = turn_begin(ps);
        if (ps->tk.kind == TK_FOR)
            parse_for(ps, 1);
        else
            parse_equation(ps);
        synchronize(ps);
        turn_end(ps, t);
    }
}

static void section_twice(hy_parser *ps, const char *section)
{
    ps->n_errors++;
    hy_diag_error(ps->diag, ps->tk.line, ps->tk.column, "a second '%s' section in mode '%s'",
                  section, hy_strtab_get(ps->strings, ps->syn->modes[ps->mode].name));
}

/* mode := [initial] [resting] mode NAME {declaration | equation-section |
**         entry statements | exit statements} end NAME ';' */
static void parse_mode(hy_parser *ps)
{
    int is_initial = accept(ps, TK_INITIAL);
    int resting_line = 0, resting_column = 0;
    if (at_resting_mode(ps)) {
        resting_line = ps->tk.line;
        resting_column = ps->tk.column;
        next(ps);
    }
    if (!expect(ps, TK_MODE))
        return;
    int line = ps->tk.line, column = ps->tk.column;
    int name = expect_name(ps, "the mode's name");
    if (name < 0)
        return;
    int index = PUSH(ps, modes, n_modes, cap_modes);
    if (index < 0)
        return;
    hy_mode_syn *mode = &ps->syn->modes[index];
    mode->name = name;
    mode->line = line;
    mode->column = column;
    mode->chart = ps->chart;
    mode->is_initial = is_initial;
    mode->is_resting = resting_line > 0;
    mode->resting_line = resting_line;
    mode->resting_column = resting_column;
    mode->cls = ps->cls;
    int outer_mode = ps->mode;
    ps->mode = index;
    for (;;) {
        hy_token_kind kind = ps->tk.kind;
        if (kind == TK_END || kind == TK_EOF)
            break;
        turn t = turn_begin(ps);
        if (kind == TK_EQUATION) {
            next(ps);
            parse_equations(ps);
        } else if (kind == TK_ENTRY || kind == TK_EXIT) {
            hy_stmt_range *range = kind == TK_ENTRY ? &ps->syn->modes[index].entry
                                                    : &ps->syn->modes[index].exit;
            if (range->line)
                section_twice(ps, kind == TK_ENTRY ? "entry" : "exit");
            int section_line = ps->tk.line, section_column = ps->tk.column;
            next(ps);
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
            synchronize(ps);
        } else if (kind == TK_REAL || at_component(ps)) {
            parse_declaration(ps);
            synchronize(ps);
        } else if (kind == TK_OUTPUT) {
            parse_equation(ps);
            synchronize(ps);
        } else {
            syntax_error(ps, "a declaration, 'equation', 'entry', 'exit' or 'end'");
            synchronize(ps);
            if (starts_element(ps->tk.kind) && ps->tk.kind != TK_END && ps->tk.kind != TK_REAL
                && ps->tk.kind != TK_EQUATION && ps->tk.kind != TK_ENTRY
                && ps->tk.kind != TK_EXIT && ps->tk.kind != TK_OUTPUT)
                break; /* a mode or transition begins: this mode lacks its end */
        }
        turn_end(ps, t);
    }
    ps->mode = outer_mode;
    parse_end(ps, "mode", name, 1);
}

/* transition := transition NAME [from (NAME | '*') to NAME] [priority NUMBER]
**               [initial] when expr [do statements] end [NAME] ';' */
static void parse_transition(hy_parser *ps)
{
    next(ps); /* transition */
    hy_transition_syn tr;
    memset(&tr, 0, sizeof tr);
    tr.line = ps->tk.line;
    tr.column = ps->tk.column;
    tr.chart = ps->chart;
    tr.cls = ps->cls;
    tr.from = tr.to = -1;
    tr.when.root = -1;
    tr.name = expect_name(ps, "the transition's name");
    if (tr.name < 0)
        return;
    if (accept(ps, TK_FROM)) {
        tr.from_line = ps->tk.line;
        tr.from_column = ps->tk.column;
        if (accept(ps, TK_STAR))
            tr.from_any = 1; /* expanded by expand_from_any */
        else if ((tr.from = expect_name(ps, "the mode the transition leaves, or '*' (every "
                                            "other mode of the chart)")) < 0)
            return;
        if (!expect(ps, TK_TO))
            return;
        tr.to_line = ps->tk.line;
        tr.to_column = ps->tk.column;
        tr.to = expect_name(ps, "the mode the transition enters");
        if (tr.to < 0)
            return;
    }
    if (at_word(ps, "priority")) {
        tr.priority_line = ps->tk.line;
        tr.priority_column = ps->tk.column;
        next(ps);
        if (ps->tk.kind != TK_NUMBER) {
            syntax_error(ps, "a number after 'priority' (1 fires first)");
            return;
        }
        tr.priority = ps->tk.number;
        next(ps);
    }
    if (ps->tk.kind == TK_INITIAL) {
        tr.fires_at_start = 1;
        tr.initial_line = ps->tk.line;
        tr.initial_column = ps->tk.column;
        next(ps);
    }
    if (!expect(ps, TK_WHEN))
        return;
    tr.when = parse_expr_ref(ps);
    if (ps->panic)
        return;
    tr.actions.first = ps->syn->n_stmts;
    if (ps->tk.kind == TK_DO) {
        tr.actions.line = ps->tk.line;
        tr.actions.column = ps->tk.column;
        next(ps);
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
    next(ps); /* experiment */
    do {
        hy_setting_syn st;
        memset(&st, 0, sizeof st);
        st.line = ps->tk.line;
        st.column = ps->tk.column;
        st.string_value = -1;
        st.cls = ps->cls;
        st.value.root = -1;
        st.name = expect_name(ps, "a setting name");
        if (st.name < 0 || !expect(ps, TK_EQUAL))
            return;
        if (ps->tk.kind == TK_STRING) {
            st.string_value = ps->tk.id;
            next(ps);
        } else {
            st.value = parse_expr_ref(ps);
            if (ps->panic)
                return;
        }
        int i = PUSH(ps, settings, n_settings, cap_settings);
        if (i < 0)
            return;
        ps->syn->settings[i] = st;
    } while (accept(ps, TK_COMMA));
    expect(ps, TK_SEMI);
}

/* chart := chart NAME {mode | transition} end NAME ';' */
static void parse_chart(hy_parser *ps)
{
    next(ps); /* chart */
    int line = ps->tk.line, column = ps->tk.column;
    int name = expect_name(ps, "the chart's name");
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
        turn t = turn_begin(ps);
        if (ps->tk.kind == TK_MODE || ps->tk.kind == TK_INITIAL || at_resting_mode(ps))
            parse_mode(ps);
        else if (ps->tk.kind == TK_TRANSITION)
            parse_transition(ps);
        else
            syntax_error(ps, "'mode', 'initial mode', 'resting mode', 'transition' or 'end' in "
                             "a chart");
        synchronize(ps);
        if (ps->panic)
            break;
        if (ps->tk.kind != TK_END && ps->tk.kind != TK_EOF && ps->tk.kind != TK_MODE
            && ps->tk.kind != TK_INITIAL && ps->tk.kind != TK_TRANSITION && !at_resting_mode(ps)) {
            syntax_error(ps, "'mode', 'initial mode', 'resting mode', 'transition' or 'end' in "
                             "a chart");
            ps->panic = 0;
            next(ps);
        }
        turn_end(ps, t);
    }
    ps->chart = outer;
    parse_end(ps, "chart", name, 1);
}

static void parse_model_body(hy_parser *ps, int model_name)
{
    const char *what = ps->syn->classes[ps->cls].kind == CLASS_CONNECTOR ? "connector"
                       : ps->syn->classes[ps->cls].kind == CLASS_BLOCK   ? "block"
                                                                         : "model";
    for (;;) {
        turn t = turn_begin(ps);
        switch (ps->tk.kind) {
        case TK_EOF:
            syntax_error(ps, "'end' closing the model");
            return;
        case TK_END:
            parse_end(ps, what, model_name, 1);
            return;
        case TK_PARAMETER: case TK_CONSTANT: case TK_DISCRETE: case TK_REAL: case TK_FLOW:
            parse_declaration(ps);
            break;
        case TK_NAME:
            if (at_resting_mode(ps)) {
                parse_mode(ps);
                break;
            }
            if (at_component(ps)) {
                parse_declaration(ps);
                break;
            }
            syntax_error(ps, "a declaration, 'equation', 'mode', 'chart', 'transition', "
                             "'experiment' or 'end'");
            next(ps);
            break;
        case TK_EQUATION:
            next(ps);
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
            next(ps);
            break;
        default:
            syntax_error(ps, "a declaration, 'equation', 'mode', 'chart', 'transition', "
                             "'experiment' or 'end'");
            if (ps->tk.kind != TK_SEMI)
                next(ps);
            break;
        }
        synchronize(ps);
        turn_end(ps, t);
    }
}

/* Each `transition T from * to M` of class cls becomes one transition from
** every other mode of its chart (in the order of the modes), in its place;
** it stays as it is (from -1, for sema to report) when M is not a mode of
** the chart or no other mode exists. */
static void expand_from_any(hy_parser *ps, int cls)
{
    hy_syntax *syn = ps->syn;
    for (int i = 0; i < syn->n_transitions; i++) {
        hy_transition_syn any = syn->transitions[i];
        if (any.cls != cls || !any.from_any || any.from >= 0)
            continue;
        int n_sources = 0, has_target = 0;
        for (int m = 0; m < syn->n_modes; m++) {
            const hy_mode_syn *mode = &syn->modes[m];
            if (mode->cls != cls || mode->chart != any.chart)
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
            if (mode->cls != cls || mode->chart != any.chart || mode->name == any.to)
                continue;
            syn->transitions[k] = any;
            syn->transitions[k++].from = mode->name;
        }
        i = k - 1;
    }
}

/* The libraries imported so far, shared by the parsers of one compile. */
typedef struct import_state {
    const hy_import_loader *loader;
    int *done;               /* library name ids */
    int n_done, cap_done;
    int depth;
} import_state;

static void parse_classes(hy_parser *ps, int package, import_state *imports);

/* import NAME ';' : parse the library's classes into the same syntax. */
static void parse_import(hy_parser *ps, import_state *imports)
{
    int line = ps->tk.line, column = ps->tk.column;
    next(ps); /* import */
    int name = expect_name(ps, "a library name");
    if (name < 0 || !expect(ps, TK_SEMI))
        return;
    for (int i = 0; i < imports->n_done; i++)
        if (imports->done[i] == name)
            return; /* imported already */
    if (!imports->loader) {
        ps->n_errors++;
        hy_diag_error(ps->diag, line, column, "import needs a model file (libraries are "
                      "found next to it, in HYDAE_PATH and in hydae's lib/)");
        return;
    }
    if (imports->depth >= 16) {
        ps->n_errors++;
        hy_diag_error(ps->diag, line, column, "libraries import each other more than 16 deep");
        return;
    }
    if (hy_grow((void **)&imports->done, &imports->cap_done, imports->n_done + 1, sizeof(int))) {
        hy_diag_nomem(ps->diag);
        return;
    }
    imports->done[imports->n_done++] = name;
    const char *text = NULL, *file_name = NULL;
    size_t len = 0;
    int found = imports->loader->load(imports->loader->user, hy_strtab_get(ps->strings, name),
                                      &text, &len, &file_name);
    if (found == -2) {
        hy_diag_nomem(ps->diag);
        return;
    }
    if (found != 0) {
        ps->n_errors++;
        hy_diag_error(ps->diag, line, column, "cannot find library '%s' (%s)",
                      hy_strtab_get(ps->strings, name), file_name ? file_name : "not found");
        return;
    }
    int first_line = hy_diag_add_source(ps->diag, file_name, text, len);
    if (first_line < 0) {
        hy_diag_nomem(ps->diag);
        return;
    }
    hy_parser sub;
    memset(&sub, 0, sizeof sub);
    sub.diag = ps->diag;
    sub.strings = ps->strings;
    sub.syn = ps->syn;
    sub.mode = sub.chart = sub.loop = -1;
    hy_lex_init(&sub.lex, text, len, ps->diag, ps->strings);
    sub.lex.line = first_line;
    next(&sub);
    imports->depth++;
    parse_classes(&sub, name, imports);
    imports->depth--;
    if (!sub.panic && sub.tk.kind != TK_EOF)
        syntax_error(&sub, "end of file after the library's last class");
    hy_lex_free(&sub.lex);
    ps->n_errors += sub.n_errors;
}

/* A qualified class name: "Library.Class". */
static int qualified_name(hy_parser *ps, int package, int name)
{
    int id = hy_strtab_intern_join(ps->strings, hy_strtab_get(ps->strings, package), ".",
                                   hy_strtab_get(ps->strings, name));
    if (id < 0)
        hy_diag_nomem(ps->diag);
    return id;
}

/* { import | class } of one file; package -1 for the model file itself. */
static void parse_classes(hy_parser *ps, int package, import_state *imports)
{
    hy_syntax *syntax = ps->syn;
    int n_parsed = 0;
    for (;;) {
        if (ps->tk.kind == TK_IMPORT) {
            parse_import(ps, imports);
            synchronize(ps);
            continue;
        }
        if (ps->tk.kind != TK_MODEL && ps->tk.kind != TK_BLOCK && ps->tk.kind != TK_CONNECTOR) {
            if (n_parsed == 0)
                expect(ps, TK_MODEL);
            return;
        }
        hy_class_kind kind = ps->tk.kind == TK_CONNECTOR ? CLASS_CONNECTOR
                             : ps->tk.kind == TK_BLOCK   ? CLASS_BLOCK
                                                         : CLASS_MODEL;
        next(ps);
        int index = PUSH(ps, classes, n_classes, cap_classes);
        if (index < 0)
            return;
        n_parsed++;
        hy_class_syn *c = &syntax->classes[index];
        c->kind = kind;
        c->line = ps->tk.line;
        c->column = ps->tk.column;
        c->package = package;
        c->short_name = c->name = expect_name(ps, "the class's name");
        if (c->name < 0)
            return;
        ps->cls = index;
        parse_model_body(ps, c->short_name);
        expand_from_any(ps, index);
        c = &syntax->classes[index];
        if (package >= 0)
            c->name = qualified_name(ps, package, c->short_name);
        else if (kind == CLASS_MODEL)
            syntax->top = index; /* the file's last model is simulated */
        if (ps->panic)
            return;
    }
}

int hy_parse_with_imports(const char *source, size_t len, hy_diag *diag, hy_strtab *strings,
                          const hy_import_loader *loader, hy_syntax *syntax)
{
    hy_parser ps;
    memset(&ps, 0, sizeof ps);
    memset(syntax, 0, sizeof *syntax);
    syntax->model_name = -1;
    syntax->top = -1;
    ps.diag = diag;
    ps.strings = strings;
    ps.syn = syntax;
    ps.mode = ps.chart = ps.loop = -1;
    int lex_errors_before = diag->n_errors;
    hy_lex_init(&ps.lex, source, len, diag, strings);
    next(&ps);
    import_state imports = { loader, NULL, 0, 0, 0 };
    parse_classes(&ps, -1, &imports);
    hy_free(imports.done);
    if (syntax->top >= 0) {
        const hy_class_syn *top = &syntax->classes[syntax->top];
        syntax->model_name = top->name;
        syntax->line = top->line;
        syntax->column = top->column;
    } else if (syntax->n_classes > 0 && ps.n_errors == 0) {
        int own = 0;
        while (own < syntax->n_classes - 1 && syntax->classes[own].package >= 0)
            own++;
        ps.n_errors++;
        hy_diag_error(diag, syntax->classes[own].line, syntax->classes[own].column,
                      "no model to simulate in the file (only blocks and connectors)");
    }
    if (!ps.panic && ps.tk.kind != TK_EOF)
        syntax_error(&ps, "end of file after the model's 'end'");
    hy_lex_free(&ps.lex);
    /* Lexical errors are counted by diag; count them here too. */
    int n_lex = diag->n_errors - lex_errors_before - ps.n_errors;
    return ps.n_errors + (n_lex > 0 ? n_lex : 0);
}

int hy_parse(const char *source, size_t len, hy_diag *diag, hy_strtab *strings,
             hy_syntax *syntax)
{
    return hy_parse_with_imports(source, len, diag, strings, NULL, syntax);
}

int hy_syntax_add_node(hy_syntax *s, hy_syn_op op, int line, int column, int a, int b, int c)
{
    if (hy_grow((void **)&s->nodes, &s->cap_nodes, s->n_nodes + 1, sizeof *s->nodes))
        return -1;
    hy_syn *n = &s->nodes[s->n_nodes];
    memset(n, 0, sizeof *n);
    n->op = (unsigned char)op;
    n->line = line;
    n->column = column;
    n->a = a;
    n->b = b;
    n->c = c;
    n->name = n->first = n->var = -1;
    return s->n_nodes++;
}

int hy_syn_arith(hy_syn_op op, double a, double b, double *value)
{
    switch (op) {
    case SYN_NEG: *value = -a; return 1;
    case SYN_ADD: *value = a + b; return 1;
    case SYN_SUB: *value = a - b; return 1;
    case SYN_MUL: *value = a * b; return 1;
    case SYN_DIV: *value = a / b; return 1;
    case SYN_POW: *value = pow(a, b); return 1;
    default: return 0;
    }
}

int hy_syntax_note_structural(hy_syntax *s, int name)
{
    for (int i = 0; i < s->n_structural; i++)
        if (s->structural[i] == name)
            return 0;
    if (hy_grow((void **)&s->structural, &s->cap_structural, s->n_structural + 1,
                sizeof *s->structural))
        return -1;
    s->structural[s->n_structural++] = name;
    return 0;
}

void hy_syntax_freeze_structural(hy_syntax *s)
{
    for (int k = 0; k < s->n_structural; k++)
        for (int i = 0; i < s->n_decls; i++)
            if (s->decls[i].name == s->structural[k] && s->decls[i].kind == DECL_PARAMETER
                && s->decls[i].mode < 0)
                s->decls[i].kind = DECL_CONSTANT;
}

void hy_syntax_free(hy_syntax *s)
{
    hy_free(s->structural);
    hy_free(s->nodes);
    hy_free(s->decls);
    hy_free(s->equations);
    hy_free(s->stmts);
    hy_free(s->modes);
    hy_free(s->charts);
    hy_free(s->transitions);
    hy_free(s->settings);
    hy_free(s->loops);
    hy_free(s->classes);
    hy_free(s->mods);
    memset(s, 0, sizeof *s);
}
