/*
** Lexical analyser of the model language: identifiers and keywords,
** numbers (decimal with optional fraction and exponent), string literals
** with escapes, operators, line comments and block comments. Positions
** are 1-based lines and byte columns.
*/
#include "lang/lex.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[TK_N_KINDS] = {
    [TK_EOF] = "end of file", [TK_NAME] = "a name", [TK_NUMBER] = "a number",
    [TK_STRING] = "a string",
#define HY_TOKEN_NAME_(tok, text) [tok] = "'" text "'",
    HY_KEYWORD_LIST(HY_TOKEN_NAME_) HY_SYMBOL_LIST(HY_TOKEN_NAME_)
#undef HY_TOKEN_NAME_
};

static const struct {
    const char *word;
    hy_token_kind kind;
} keywords[] = {
#define HY_KEYWORD_ENTRY_(tok, text) { text, tok },
    HY_KEYWORD_LIST(HY_KEYWORD_ENTRY_)
#undef HY_KEYWORD_ENTRY_
};

const char *hy_lex_kind_name(hy_token_kind kind)
{
    return kind >= 0 && kind < TK_N_KINDS ? kind_names[kind] : "?";
}

void hy_lex_init(hy_lexer *lx, const char *source, size_t len, hy_diag *diag,
                 hy_strtab *strings)
{
    memset(lx, 0, sizeof *lx);
    lx->source = lx->pos = lx->line_start = source;
    lx->end = source + len;
    lx->line = 1;
    lx->diag = diag;
    lx->strings = strings;
}

void hy_lex_free(hy_lexer *lx)
{
    free(lx->scratch);
    lx->scratch = NULL;
}

static int column_of(const hy_lexer *lx, const char *p)
{
    return (int)(p - lx->line_start) + 1;
}

static void newline(hy_lexer *lx, const char *after)
{
    lx->line++;
    lx->line_start = after;
}

static int is_name_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* Skip blanks and comments; report an unterminated block comment. */
static void skip_space(hy_lexer *lx)
{
    for (;;) {
        const char *p = lx->pos;
        if (p >= lx->end)
            return;
        if (*p == '\n') {
            lx->pos = p + 1;
            newline(lx, lx->pos);
        } else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') {
            lx->pos = p + 1;
        } else if (*p == '/' && p + 1 < lx->end && p[1] == '/') {
            while (p < lx->end && *p != '\n')
                p++;
            lx->pos = p;
        } else if (*p == '/' && p + 1 < lx->end && p[1] == '*') {
            int line = lx->line, column = column_of(lx, p);
            p += 2;
            while (p < lx->end && !(*p == '*' && p + 1 < lx->end && p[1] == '/')) {
                if (*p == '\n')
                    newline(lx, p + 1);
                p++;
            }
            if (p >= lx->end) {
                hy_diag_error(lx->diag, line, column, "unterminated comment");
                lx->pos = lx->end;
                return;
            }
            lx->pos = p + 2;
        } else {
            return;
        }
    }
}

static void lex_number(hy_lexer *lx, hy_token *tk)
{
    const char *p = lx->pos;
    while (p < lx->end && is_digit(*p))
        p++;
    if (p < lx->end && *p == '.') {
        p++;
        while (p < lx->end && is_digit(*p))
            p++;
    }
    int malformed = 0;
    if (p < lx->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < lx->end && (*p == '+' || *p == '-'))
            p++;
        if (p >= lx->end || !is_digit(*p))
            malformed = 1;
        while (p < lx->end && is_digit(*p))
            p++;
    }
    if (p < lx->end && (is_name_start(*p) || *p == '.'))
        malformed = 1;
    while (p < lx->end && (is_name_start(*p) || is_digit(*p) || *p == '.'))
        p++;
    tk->kind = TK_NUMBER;
    tk->text_len = (int)(p - lx->pos);
    tk->number = 0.0;
    if (malformed || tk->text_len > 300) {
        hy_diag_error(lx->diag, tk->line, tk->column, "malformed number '%.*s'",
                      tk->text_len > 40 ? 40 : tk->text_len, lx->pos);
    } else {
        char buf[320];
        memcpy(buf, lx->pos, (size_t)tk->text_len);
        buf[tk->text_len] = '\0';
        tk->number = strtod(buf, NULL);
    }
    lx->pos = p;
}

static void lex_string(hy_lexer *lx, hy_token *tk)
{
    const char *p = lx->pos + 1;
    int n = 0;
    for (;;) {
        if (p >= lx->end || *p == '\n') {
            hy_diag_error(lx->diag, tk->line, tk->column, "unterminated string");
            break;
        }
        char c = *p++;
        if (c == '"')
            break;
        if (c == '\\' && p < lx->end) {
            char e = *p++;
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
        }
        if (hy_grow((void **)&lx->scratch, &lx->cap_scratch, n + 1, 1)) {
            hy_diag_nomem(lx->diag);
            break;
        }
        lx->scratch[n++] = c;
    }
    tk->kind = TK_STRING;
    tk->id = hy_strtab_intern(lx->strings, n ? lx->scratch : "", (size_t)n);
    if (tk->id < 0)
        hy_diag_nomem(lx->diag);
    tk->text_len = (int)(p - lx->pos);
    lx->pos = p;
}

static hy_token_kind keyword_or_name(const char *text, int len)
{
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if ((int)strlen(keywords[i].word) == len && memcmp(keywords[i].word, text, (size_t)len) == 0)
            return keywords[i].kind;
    return TK_NAME;
}

void hy_lex_next(hy_lexer *lx, hy_token *tk)
{
    for (;;) {
        skip_space(lx);
        const char *p = lx->pos;
        tk->line = lx->line;
        tk->column = column_of(lx, p);
        tk->text = p;
        tk->text_len = 0;
        tk->id = -1;
        if (p >= lx->end) {
            tk->kind = TK_EOF;
            return;
        }
        char c = *p;
        if (is_name_start(c)) {
            const char *q = p;
            while (q < lx->end && (is_name_start(*q) || is_digit(*q)))
                q++;
            tk->text_len = (int)(q - p);
            tk->kind = keyword_or_name(p, tk->text_len);
            if (tk->kind == TK_NAME) {
                tk->id = hy_strtab_intern(lx->strings, p, (size_t)tk->text_len);
                if (tk->id < 0)
                    hy_diag_nomem(lx->diag);
            }
            lx->pos = q;
            return;
        }
        if (is_digit(c) || (c == '.' && p + 1 < lx->end && is_digit(p[1]))) {
            lex_number(lx, tk);
            return;
        }
        if (c == '"') {
            lex_string(lx, tk);
            return;
        }
        char next = p + 1 < lx->end ? p[1] : '\0';
        int len = 1;
        switch (c) {
        case '+': tk->kind = TK_PLUS; break;
        case '-': tk->kind = TK_MINUS; break;
        case '*': tk->kind = TK_STAR; break;
        case '/': tk->kind = TK_SLASH; break;
        case '^': tk->kind = TK_CARET; break;
        case '(': tk->kind = TK_LPAREN; break;
        case ')': tk->kind = TK_RPAREN; break;
        case ',': tk->kind = TK_COMMA; break;
        case ';': tk->kind = TK_SEMI; break;
        case ':':
            if (next != '=') {
                hy_diag_error(lx->diag, tk->line, tk->column, "unexpected ':' (assignment is ':=')");
                lx->pos = p + 1;
                continue;
            }
            tk->kind = TK_ASSIGN;
            len = 2;
            break;
        case '=':
            tk->kind = next == '=' ? TK_EQEQ : TK_EQUAL;
            len = next == '=' ? 2 : 1;
            break;
        case '<':
            tk->kind = next == '=' ? TK_LE : next == '>' ? TK_NE : TK_LT;
            len = next == '=' || next == '>' ? 2 : 1;
            break;
        case '>':
            tk->kind = next == '=' ? TK_GE : TK_GT;
            len = next == '=' ? 2 : 1;
            break;
        default:
            if ((unsigned char)c >= 32 && (unsigned char)c < 127)
                hy_diag_error(lx->diag, tk->line, tk->column, "unexpected character '%c'", c);
            else
                hy_diag_error(lx->diag, tk->line, tk->column,
                              "unexpected character (byte 0x%02x)", (unsigned)(unsigned char)c);
            lx->pos = p + 1;
            continue;
        }
        tk->text_len = len;
        lx->pos = p + len;
        return;
    }
}
