/*
** Parser of the model language, internal to src/lang/parse*.c: the
** parser's state and what its files share: the token helpers and error
** recovery (parse.c), expressions (parse_expr.c) and the body of a class
** (parse_model.c). parse.h is the interface the rest of the language sees.
*/
#ifndef HY_LANG_PARSE_INTERNAL_H
#define HY_LANG_PARSE_INTERNAL_H

#include "lang/lex.h"
#include "lang/parse.h"

#include <stddef.h>

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
    int mode_depth;       /* modes nested around the current one */
    int abandoned;        /* the rest of the file was skipped after an error */
    int chart;            /* chart being parsed, -1 outside */
    int loop;             /* innermost for-loop being parsed, -1 outside */
    int cls;              /* class being parsed */
    long n_tokens;        /* tokens consumed so far */
} hy_parser;

/* ---------------------------------------------------------------- */
/* Tokens and error recovery (parse.c)                              */

/* Move to the next token. */
void parse_next(hy_parser *ps);
/* The current token is the name `word` (a word with a meaning in one
** place only, not reserved: "priority", "resting"). */
int parse_at_word(const hy_parser *ps, const char *word);
/* `resting mode` or `history mode` starts here. */
int parse_at_resting_mode(hy_parser *ps);
/* `input Real`: an input's declaration starts here. */
int parse_at_input(hy_parser *ps);
/* TYPE NAME: a component declaration starts here. */
int parse_at_component(hy_parser *ps);
/* "expected EXPECTED, found TOKEN" at the current token, unless an error
** of this statement was reported already (panic mode, which it enters). */
void parse_syntax_error(hy_parser *ps, const char *expected);
/* Consume a token of this kind: 1, or 0 (nothing consumed). */
int parse_accept(hy_parser *ps, hy_token_kind kind);
/* Consume a token of this kind: 1, or 0 after reporting. */
int parse_expect(hy_parser *ps, hy_token_kind kind);
/* A name: its id, or -1 after reporting. A token meant as a name (see
** parse_name_like) is reported, saying what a name may be, and taken as
** the name, so that parsing goes on without a cascade of errors. */
int parse_expect_name(hy_parser *ps, const char *what);
/* How a token meant as a name is not one. */
typedef enum parse_not_a_name {
    NAME_OK, NAME_HYPHEN, NAME_STRING, NAME_NUMBER, NAME_KEYWORD
} parse_not_a_name;
/* The current token as the name it was meant as, consumed, without
** reporting: a name, or (*kind) a name with hyphens, a string, a number,
** or a keyword that is `expected` (>= 0) or, with none expected, is
** followed by a keyword or what starts an element. Its id, or -1 with
** nothing consumed. */
int parse_name_like(hy_parser *ps, int expected, parse_not_a_name *kind);
/* A word that is a keyword only where the grammar expects it (`in`, `loop`
** of a for-loop; elsewhere they are names, e.g. a chart called loop). */
int parse_expect_word(hy_parser *ps, const char *word);
/* A token of this kind starts an element of a class (or ends it). */
int parse_starts_element(hy_token_kind kind);
/* After an error: skip to just past the next ';', or to a token that
** starts an element (not consumed). Clears panic mode. */
void parse_synchronize(hy_parser *ps);

/* Where a turn of a loop over statements, equations or elements began. */
typedef struct turn {
    long n_tokens;
    int n_errors;
} turn;

turn parse_turn_begin(const hy_parser *ps);
/* Every such loop ends its turn with this: a turn that consumed no token
** skips one (reported if nothing else was), so the loop ends. */
void parse_turn_end(hy_parser *ps, turn t);

/* A new zeroed element of a list of the syntax: its index, or -1 after
** reporting out of memory. */
int parse_push(hy_parser *ps, void **array, int *n, int *cap, size_t size);
#define PUSH(ps, field, n, cap) parse_push((ps), (void **)&(ps)->syn->field, &(ps)->syn->n, \
                                           &(ps)->syn->cap, sizeof *(ps)->syn->field)

/* ---------------------------------------------------------------- */
/* Expressions (parse_expr.c)                                       */

/* An expression with its node range (root -1 after an error). */
hy_expr_ref parse_expr_ref(hy_parser *ps);

/* ---------------------------------------------------------------- */
/* The body of a class (parse_model.c)                              */

/* Elements of the class ps->cls up to its 'end NAME;'. */
void parse_model_body(hy_parser *ps, int model_name);
/* Each `transition T from * to M` of class cls becomes one transition
** from every other mode of its chart. */
void parse_expand_from_any(hy_parser *ps, int cls);

#endif
