/*
** Lexical analyser of the model language (.hym): turns the source text
** into tokens with their line and column. Comments are // to the end of
** the line and slash-star ... star-slash (not nested).
*/
#ifndef HY_LANG_LEX_H
#define HY_LANG_LEX_H

#include "lang/diag.h"
#include "lang/strtab.h"

/* X(token, spelling): keywords first (their spelling is the word). */
#define HY_KEYWORD_LIST(X)                                                   \
    X(TK_AND, "and") X(TK_BLOCK, "block") X(TK_CHART, "chart")                \
    X(TK_CONNECTOR, "connector") X(TK_CONSTANT, "constant")                  \
    X(TK_DISCRETE, "discrete") X(TK_DO, "do") X(TK_ELSE, "else")             \
    X(TK_END, "end") X(TK_ENTRY, "entry") X(TK_EQUATION, "equation")         \
    X(TK_EVENT, "event") X(TK_EXIT, "exit") X(TK_EXPERIMENT, "experiment")   \
    X(TK_FALSE, "false") X(TK_FLOW, "flow") X(TK_FOR, "for") X(TK_FROM, "from") \
    X(TK_IF, "if") X(TK_IMPORT, "import")                                    \
    X(TK_INITIAL, "initial") X(TK_MODE, "mode") X(TK_MODEL, "model")         \
    X(TK_NOT, "not") X(TK_OR, "or") X(TK_OUTPUT, "output")                   \
    X(TK_PARAMETER, "parameter") X(TK_RAISE, "raise") X(TK_REAL, "Real")     \
    X(TK_THEN, "then") X(TK_TIME, "time") X(TK_TO, "to")                     \
    X(TK_TRANSITION, "transition") X(TK_TRUE, "true") X(TK_WHEN, "when")

#define HY_SYMBOL_LIST(X)                                                    \
    X(TK_PLUS, "+") X(TK_MINUS, "-") X(TK_STAR, "*") X(TK_SLASH, "/")        \
    X(TK_CARET, "^") X(TK_LPAREN, "(") X(TK_RPAREN, ")") X(TK_COMMA, ",")    \
    X(TK_SEMI, ";") X(TK_ASSIGN, ":=") X(TK_EQUAL, "=") X(TK_LT, "<")        \
    X(TK_LE, "<=") X(TK_GT, ">") X(TK_GE, ">=") X(TK_EQEQ, "==")             \
    X(TK_NE, "<>") X(TK_LBRACKET, "[") X(TK_RBRACKET, "]")                  \
    X(TK_LBRACE, "{") X(TK_RBRACE, "}") X(TK_COLON, ":")

typedef enum hy_token_kind {
    TK_EOF,
    TK_NAME,
    TK_NUMBER,
    TK_STRING,
    TK_MEMBER,               /* ".b" or ".p.v" after ']': id is "b", "p.v" */
#define HY_TOKEN_ENUM_(tok, text) tok,
    HY_KEYWORD_LIST(HY_TOKEN_ENUM_) HY_SYMBOL_LIST(HY_TOKEN_ENUM_)
#undef HY_TOKEN_ENUM_
    TK_N_KINDS
} hy_token_kind;

typedef struct hy_token {
    hy_token_kind kind;
    int line, column;
    const char *text;   /* into the source */
    int text_len;
    double number;      /* TK_NUMBER */
    int id;             /* TK_NAME, TK_STRING: interned text */
} hy_token;

typedef struct hy_lexer {
    const char *source, *end, *pos;
    const char *line_start;
    int line;
    hy_diag *diag;
    hy_strtab *strings;
    char *scratch;      /* unescaped string literals */
    int cap_scratch;
} hy_lexer;

void hy_lex_init(hy_lexer *lx, const char *source, size_t len, hy_diag *diag,
                 hy_strtab *strings);
void hy_lex_free(hy_lexer *lx);
/* The next token; malformed input is reported and skipped. */
void hy_lex_next(hy_lexer *lx, hy_token *tk);
/* How a token kind is shown in messages: "'end'", "a name", "end of file". */
const char *hy_lex_kind_name(hy_token_kind kind);

#endif
