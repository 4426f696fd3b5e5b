/*
** Parser of the model language, expressions: precedence climbing by one
** function per level (or, and, not, relations, sums, terms, unary, power,
** primary), calls, indices and slices, reductions `sum(e for i in a:b)`
** and the constructors {a, b} and {e for i in a:b}. Each nesting level
** (parentheses, calls, unary operators, if-expressions, powers) is counted
** against HY_PARSE_MAX_DEPTH; operator chains are loops.
*/
#include "lang/parse_internal.h"

#include "core/core.h"

#include <string.h>

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
    parse_next(ps); /* for */
    int var = parse_expect_name(ps, "the loop variable");
    if (var < 0 || !parse_expect_word(ps, "in"))
        return -1;
    int from = parse_expr(ps);
    if (ps->panic || !parse_expect(ps, TK_COLON))
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

/* A number node. */
static int num_node(hy_parser *ps, double value, int line, int column)
{
    int node = add_node(ps, SYN_NUM, line, column, -1, -1, -1);
    if (node >= 0)
        ps->syn->nodes[node].value = value;
    return node;
}

/* smooth_step(x, x0, h0, x1, h1): h0 up to x0, h1 from x1, between them
** h0 + (h1 - h0) d^2 (3 - 2 d), d = (x - x0) / (x1 - x0), C1 (MSC
** MotionSolve's STEP); smooth_step5: d^3 (10 - 15 d + 6 d^2), C2 (STEP5).
** Written as the expression itself, the arguments' nodes shared, inside
** noEvent(...): a smooth function needs no events. */
static int smooth_step(hy_parser *ps, int name, const int *arg, int line, int column)
{
    int quintic = strcmp(hy_strtab_get(ps->strings, name), "smooth_step5") == 0;
    int x = arg[0], x0 = arg[1], h0 = arg[2], x1 = arg[3], h1 = arg[4];
#define N2(op, a, b) add_node(ps, op, line, column, a, b, -1)
    int d = N2(SYN_DIV, N2(SYN_SUB, x, x0), N2(SYN_SUB, x1, x0));
    int shape;
    if (quintic) /* d^3 (10 + d (-15 + 6 d)) */
        shape = N2(SYN_MUL, N2(SYN_MUL, N2(SYN_MUL, d, d), d),
                   N2(SYN_ADD, num_node(ps, 10, line, column),
                      N2(SYN_MUL, d, N2(SYN_ADD, num_node(ps, -15, line, column),
                                        N2(SYN_MUL, num_node(ps, 6, line, column), d)))));
    else /* d^2 (3 - 2 d) */
        shape = N2(SYN_MUL, N2(SYN_MUL, d, d),
                   N2(SYN_SUB, num_node(ps, 3, line, column),
                      N2(SYN_MUL, num_node(ps, 2, line, column), d)));
    int between = N2(SYN_ADD, h0, N2(SYN_MUL, N2(SYN_SUB, h1, h0), shape));
    int above = add_node(ps, SYN_IF, line, column, N2(SYN_GE, x, x1), h1, between);
    int value = add_node(ps, SYN_IF, line, column, N2(SYN_LE, x, x0), h0, above);
#undef N2
    if (ps->panic)
        return -1;
    int quiet = add_node(ps, SYN_CALL, line, column, value, -1, -1);
    int no_event = hy_strtab_intern(ps->strings, "noEvent", 7);
    if (quiet < 0 || no_event < 0) {
        if (no_event < 0)
            hy_diag_nomem(ps->diag);
        ps->panic = 1;
        return -1;
    }
    ps->syn->nodes[quiet].name = no_event;
    ps->syn->nodes[quiet].n_args = 1;
    return quiet;
}

static int parse_call(hy_parser *ps, int name, int line, int column)
{
    int args[5] = { -1, -1, -1, -1, -1 }; /* five for smooth_step; nodes keep three */
    int n_args = 0;
    parse_next(ps); /* ( */
    if (ps->tk.kind != TK_RPAREN) {
        do {
            int first = ps->syn->n_nodes;
            int arg = parse_expr(ps);
            if (ps->panic)
                return -1;
            if (n_args == 0 && ps->tk.kind == TK_FOR) { /* sum(x[i] for i in 1:n) */
                int node = parse_for_clause(ps, SYN_REDUCE, name, first, arg, line, column);
                if (node < 0 || !parse_expect(ps, TK_RPAREN))
                    return -1;
                return node;
            }
            if (n_args < 5)
                args[n_args] = arg;
            if (n_args < 255)
                n_args++;
        } while (parse_accept(ps, TK_COMMA));
    }
    if (!parse_expect(ps, TK_RPAREN))
        return -1;
    const char *fname = hy_strtab_get(ps->strings, name);
    if (strcmp(fname, "smooth_step") == 0 || strcmp(fname, "smooth_step5") == 0) {
        if (n_args != 5) {
            ps->n_errors++;
            ps->panic = 1;
            hy_diag_error(ps->diag, line, column, "%s() takes 5 arguments (x, x0, h0, x1, h1), "
                          "got %d", fname, n_args);
            return -1;
        }
        return smooth_step(ps, name, args, line, column);
    }
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
    parse_next(ps); /* [ */
    int first = ps->syn->n_nodes;
    int index = parse_expr(ps);
    int last = -1;
    if (!ps->panic && parse_accept(ps, TK_COLON))
        last = parse_expr(ps);
    if (ps->panic || !parse_expect(ps, TK_RBRACKET))
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
        parse_next(ps);
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
    parse_next(ps); /* { */
    int first = ps->syn->n_nodes;
    int element = parse_expr(ps);
    if (ps->panic)
        return -1;
    if (ps->tk.kind == TK_FOR) {
        int node = parse_for_clause(ps, SYN_COMPREH, -1, first, element, line, column);
        if (node < 0 || !parse_expect(ps, TK_RBRACE))
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
        if (!parse_accept(ps, TK_COMMA))
            break;
        first = ps->syn->n_nodes;
        element = parse_expr(ps);
        if (ps->panic)
            goto done;
    }
    if (!parse_expect(ps, TK_RBRACE))
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
        parse_next(ps);
        int node = add_node(ps, SYN_NUM, line, column, -1, -1, -1);
        if (node >= 0)
            ps->syn->nodes[node].value = value;
        return node;
    }
    case TK_TIME:
        parse_next(ps);
        return add_node(ps, SYN_TIME, line, column, -1, -1, -1);
    case TK_EVENT: {
        parse_next(ps);
        int name = parse_expect_name(ps, "an event name");
        if (name < 0)
            return -1;
        int node = add_node(ps, SYN_EVENT, line, column, -1, -1, -1);
        if (node >= 0)
            ps->syn->nodes[node].name = name;
        return node;
    }
    case TK_NAME: {
        int name = ps->tk.id;
        parse_next(ps);
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
        parse_next(ps);
        int node = parse_expr(ps);
        ps->depth--;
        if (ps->panic || !parse_expect(ps, TK_RPAREN))
            return -1;
        return node;
    }
    case TK_IF: {
        if (!enter(ps))
            return -1;
        parse_next(ps);
        int cond = parse_expr(ps);
        int then_value = -1, else_value = -1;
        if (!ps->panic && parse_expect(ps, TK_THEN))
            then_value = parse_expr(ps);
        if (!ps->panic && parse_expect(ps, TK_ELSE))
            else_value = parse_expr(ps);
        ps->depth--;
        if (ps->panic)
            return -1;
        return add_node(ps, SYN_IF, line, column, cond, then_value, else_value);
    }
    default:
        parse_syntax_error(ps, "an expression");
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
    parse_next(ps);
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
        parse_next(ps);
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
        parse_next(ps);
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
        parse_next(ps);
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
    parse_next(ps);
    int right = parse_sum(ps);
    if (ps->panic)
        return -1;
    int node = add_node(ps, (hy_syn_op)op, line, column, left, right, -1);
    if (relation_op(ps->tk.kind) >= 0) {
        parse_syntax_error(ps, "an operator other than a comparison (a < b < c is not allowed)");
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
    parse_next(ps);
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
        parse_next(ps);
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
        parse_next(ps);
        int right = parse_and(ps);
        if (ps->panic)
            return -1;
        left = add_node(ps, SYN_OR, line, column, left, right, -1);
    }
    return ps->panic ? -1 : left;
}

/* An expression with its node range. */
hy_expr_ref parse_expr_ref(hy_parser *ps)
{
    hy_expr_ref ref;
    ref.first = ps->syn->n_nodes;
    ps->depth = 0;
    ref.root = parse_expr(ps);
    if (ps->panic)
        ref.root = -1;
    return ref;
}
