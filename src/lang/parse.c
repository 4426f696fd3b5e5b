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
** elements ends each turn with parse_turn_end(), which skips the current
** token when the turn consumed none; and after too many errors the lexer
** ends the input (hy_diag_gave_up), so recovery cannot go on forever.
**
** This file: the entry points, the token helpers and error recovery the
** other parts share, classes and imports. Expressions are parsed in
** parse_expr.c, the body of a class in parse_model.c (parse_internal.h).
*/
#include "lang/parse_internal.h"

#include "core/core.h"

#include <string.h>

void parse_next(hy_parser *ps)
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
int parse_at_word(const hy_parser *ps, const char *word)
{
    return ps->tk.kind == TK_NAME && strcmp(hy_strtab_get(ps->strings, ps->tk.id), word) == 0;
}

/* `resting mode` or `history mode` starts here. */
int parse_at_resting_mode(hy_parser *ps)
{
    return (parse_at_word(ps, "resting") || parse_at_word(ps, "history"))
           && peek(ps)->kind == TK_MODE;
}

/* `input Real`: an input's declaration starts here. */
int parse_at_input(hy_parser *ps)
{
    return parse_at_word(ps, "input") && peek(ps)->kind == TK_REAL;
}

/* TYPE NAME: a component declaration starts here. */
int parse_at_component(hy_parser *ps)
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

void parse_syntax_error(hy_parser *ps, const char *expected)
{
    if (ps->panic || ps->abandoned)
        return;
    ps->panic = 1;
    ps->n_errors++;
    char found[64];
    describe(&ps->tk, found, sizeof found);
    hy_diag_error(ps->diag, ps->tk.line, ps->tk.column, "expected %s, found %s", expected, found);
}

int parse_accept(hy_parser *ps, hy_token_kind kind)
{
    if (ps->tk.kind != kind)
        return 0;
    parse_next(ps);
    return 1;
}

int parse_expect(hy_parser *ps, hy_token_kind kind)
{
    if (parse_accept(ps, kind))
        return 1;
    parse_syntax_error(ps, hy_lex_kind_name(kind));
    return 0;
}

static int is_keyword(hy_token_kind kind)
{
    return kind >= TK_AND && kind <= TK_WHEN;
}

static int is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The current name token goes on with '-' and a word, no space between
** (slack-thread): where a name is read, never a subtraction. */
static int hyphen_follows(hy_parser *ps)
{
    const hy_token *next = peek(ps);
    return next->kind == TK_MINUS && next->text == ps->tk.text + ps->tk.text_len
           && next->text + 1 < ps->lex.end && is_word_char(next->text[1]);
}

/* The current token as the name it was meant as, consumed: a name, or one
** of these (kind set): a name with hyphens (its words and hyphens taken
** together), a string, a number (2nd), or a keyword. The keyword must be
** the name `expected` (>= 0: the name an `end` closes), or with none
** expected be followed by a keyword or what starts an element (`mode when`
** then `equation`, `to when when`; but `to when x` lacks a name, and
** `mode` then `end;` ends a mode without one). Its id, or -1 with nothing
** consumed. */
int parse_name_like(hy_parser *ps, int expected, parse_not_a_name *kind)
{
    *kind = NAME_OK;
    const char *start = ps->tk.text;
    if (ps->tk.kind == TK_NAME && !hyphen_follows(ps)) {
        int id = ps->tk.id;
        parse_next(ps);
        return id;
    }
    int id = -1;
    if (ps->tk.kind == TK_NAME) {
        *kind = NAME_HYPHEN;
        do { /* from the word before a '-' to the word after it */
            parse_next(ps);
            parse_next(ps);
        } while (hyphen_follows(ps));
        const char *end = ps->tk.text + ps->tk.text_len;
        parse_next(ps);
        return hy_strtab_intern(ps->strings, start, (size_t)(end - start));
    }
    if (ps->tk.kind == TK_STRING) {
        *kind = NAME_STRING;
        id = ps->tk.id;
    } else if (ps->tk.kind == TK_NUMBER) {
        *kind = NAME_NUMBER;
        id = hy_strtab_intern(ps->strings, start, (size_t)ps->tk.text_len);
    } else if (is_keyword(ps->tk.kind)) {
        hy_token_kind next = peek(ps)->kind;
        id = hy_strtab_intern(ps->strings, start, (size_t)ps->tk.text_len);
        if (expected >= 0 ? id != expected : !is_keyword(next) && !parse_starts_element(next))
            id = -1;
        *kind = id < 0 ? NAME_OK : NAME_KEYWORD;
    }
    if (id >= 0)
        parse_next(ps);
    return id;
}

/* A name: its id, or -1 after reporting. A token meant as a name (see
** parse_name_like) is reported with what a name may be and taken as the
** name, so that parsing goes on without a cascade of errors. */
int parse_expect_name(hy_parser *ps, const char *what)
{
    hy_token found = ps->tk;
    parse_not_a_name kind;
    int id = parse_name_like(ps, -1, &kind);
    if (id >= 0 && kind == NAME_OK)
        return id;
    if (id < 0 && kind != NAME_OK) { /* its text not interned */
        hy_diag_nomem(ps->diag);
        ps->n_errors++;
        return -1;
    }
    if (id < 0 && !is_keyword(found.kind)) {
        parse_syntax_error(ps, what);
        return -1;
    }
    static const char rule[] = "a letter or '_' followed by letters, digits or '_', and not a "
                               "keyword";
    int length = found.text_len > 40 ? 40 : found.text_len;
    if (ps->panic)
        return id;
    ps->panic = id < 0;
    ps->n_errors++;
    if (kind == NAME_HYPHEN)
        hy_diag_error(ps->diag, found.line, found.column,
                      "expected %s, found '%.60s' (with '-'): a name is %s", what,
                      hy_strtab_get(ps->strings, id), rule);
    else if (kind == NAME_STRING)
        hy_diag_error(ps->diag, found.line, found.column,
                      "expected %s, found the string \"%.40s\": a name is written without quotes "
                      "and is %s", what, hy_strtab_get(ps->strings, id), rule);
    else
        hy_diag_error(ps->diag, found.line, found.column,
                      "expected %s, found '%.*s'%s: a name is %s", what, length, found.text,
                      is_keyword(found.kind) ? " (a keyword)" : "", rule);
    return id;
}

/* A word that is a keyword only where the grammar expects it (`in`, `loop`
** of a for-loop; elsewhere they are names, e.g. a chart called loop). */
int parse_expect_word(hy_parser *ps, const char *word)
{
    if (ps->tk.kind == TK_NAME && strcmp(hy_strtab_get(ps->strings, ps->tk.id), word) == 0) {
        parse_next(ps);
        return 1;
    }
    char expected[32];
    snprintf(expected, sizeof expected, "'%s'", word);
    parse_syntax_error(ps, expected);
    return 0;
}

int parse_starts_element(hy_token_kind kind)
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
void parse_synchronize(hy_parser *ps)
{
    if (!ps->panic)
        return;
    while (ps->tk.kind != TK_EOF) {
        if (ps->tk.kind == TK_SEMI) {
            parse_next(ps);
            break;
        }
        if (parse_starts_element(ps->tk.kind) && ps->tk.kind != TK_END)
            break;
        if (ps->tk.kind == TK_END) {
            /* `end NAME;` or `end;` closes something: leave it. */
            break;
        }
        parse_next(ps);
    }
    ps->panic = 0;
}

turn parse_turn_begin(const hy_parser *ps)
{
    turn t = { ps->n_tokens, ps->diag->n_errors };
    return t;
}

/* Every such loop ends its turn with this, so each turn consumes a token
** or the loop ends at end of file: a turn that consumed nothing (an error
** left the parser on a token the loop does not handle) would repeat
** forever, so that token is skipped, reported if nothing else was. */
void parse_turn_end(hy_parser *ps, turn t)
{
    if (ps->n_tokens != t.n_tokens || ps->tk.kind == TK_EOF)
        return;
    if (ps->diag->n_errors == t.n_errors) {
        ps->panic = 0;
        parse_syntax_error(ps, "a declaration, an equation or 'end'");
    }
    ps->panic = 0;
    parse_next(ps);
}

/* ---------------------------------------------------------------- */
/* Lists of the syntax                                              */

int parse_push(hy_parser *ps, void **array, int *n, int *cap, size_t size)
{
    if (hy_grow(array, cap, *n + 1, size)) {
        hy_diag_nomem(ps->diag);
        ps->panic = 1;
        return -1;
    }
    memset((char *)*array + (size_t)*n * size, 0, size);
    return (*n)++;
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
    parse_next(ps); /* import */
    int name = parse_expect_name(ps, "a library name");
    if (name < 0 || !parse_expect(ps, TK_SEMI))
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
    parse_next(&sub);
    imports->depth++;
    parse_classes(&sub, name, imports);
    imports->depth--;
    if (!sub.panic && sub.tk.kind != TK_EOF)
        parse_syntax_error(&sub, "end of file after the library's last class");
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
            parse_synchronize(ps);
            continue;
        }
        if (ps->tk.kind != TK_MODEL && ps->tk.kind != TK_BLOCK && ps->tk.kind != TK_CONNECTOR) {
            if (n_parsed == 0)
                parse_expect(ps, TK_MODEL);
            return;
        }
        hy_class_kind kind = ps->tk.kind == TK_CONNECTOR ? CLASS_CONNECTOR
                             : ps->tk.kind == TK_BLOCK   ? CLASS_BLOCK
                                                         : CLASS_MODEL;
        parse_next(ps);
        int index = PUSH(ps, classes, n_classes, cap_classes);
        if (index < 0)
            return;
        n_parsed++;
        hy_class_syn *c = &syntax->classes[index];
        c->kind = kind;
        c->line = ps->tk.line;
        c->column = ps->tk.column;
        c->package = package;
        c->short_name = c->name = parse_expect_name(ps, "the class's name");
        if (c->name < 0)
            return;
        ps->cls = index;
        parse_model_body(ps, c->short_name);
        parse_expand_from_any(ps, index);
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
    parse_next(&ps);
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
        parse_syntax_error(&ps, "end of file after the model's 'end'");
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
