/*
** Lexical analyser of the model language: identifiers and keywords,
** numbers (decimal with optional fraction and exponent), string literals
** with escapes, operators, line comments and block comments. Positions
** are 1-based lines and byte columns.
*/
#include "lang/lex.h"
#include "core/core.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[TK_N_KINDS] = {
    [TK_EOF] = "end of file", [TK_NAME] = "a name", [TK_NUMBER] = "a number",
    [TK_STRING] = "a string", [TK_MEMBER] = "'.' and a name",
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
    hy_free(lx->scratch);
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

/* A NUL byte at p: reported where it is (a model file is text; the
** string table and C strings could not hold it). */
static void nul_byte(hy_lexer *lx, const char *p, const char *where)
{
    hy_diag_error(lx->diag, lx->line, column_of(lx, p), "NUL byte (0x00) %s: a model file is text",
                  where);
}

/* Past the comment body that starts at p (after its opening): up to the
** line break of a line comment, past the closing of a block comment.
** Counts the lines and reports NUL bytes on the way. */
static const char *skip_comment_body(hy_lexer *lx, const char *p, int block)
{
    while (p < lx->end) {
        if (block && *p == '*' && p + 1 < lx->end && p[1] == '/')
            return p + 2;
        int brk = hy_line_break(p, lx->end);
        if (brk && !block)
            return p;
        if (*p == '\0')
            nul_byte(lx, p, "in a comment");
        p += brk ? brk : 1;
        if (brk)
            newline(lx, p);
    }
    return NULL;
}

/* Skip blanks and comments; report an unterminated block comment. */
static void skip_space(hy_lexer *lx)
{
    for (;;) {
        const char *p = lx->pos;
        if (p >= lx->end)
            return;
        int brk = hy_line_break(p, lx->end);
        if (brk) {
            lx->pos = p + brk;
            newline(lx, lx->pos);
        } else if (*p == ' ' || *p == '\t' || *p == '\f' || *p == '\v') {
            lx->pos = p + 1;
        } else if (*p == '/' && p + 1 < lx->end && (p[1] == '/' || p[1] == '*')) {
            int block = p[1] == '*', line = lx->line, column = column_of(lx, p);
            const char *after = skip_comment_body(lx, p + 2, block);
            if (!after && block) {
                hy_diag_error(lx->diag, line, column, "unterminated comment");
                lx->pos = lx->end;
                return;
            }
            lx->pos = after ? after : lx->end;
        } else {
            return;
        }
    }
}

/* Does the literal have a non-zero digit before its exponent? */
static int has_nonzero_digit(const char *text)
{
    for (; *text && *text != 'e' && *text != 'E'; text++)
        if (*text >= '1' && *text <= '9')
            return 1;
    return 0;
}

/* A literal must be a finite double that keeps full precision: not past
** DBL_MAX (strtod gives inf), not below DBL_MIN (strtod gives 0 or a
** denormal whose relative precision is lost). */
static void check_number_range(hy_lexer *lx, hy_token *tk, const char *text)
{
    double v = tk->number;
    if (isinf(v))
        hy_diag_error(lx->diag, tk->line, tk->column,
                      "number '%s' is too large: the largest double is %.6g", text, DBL_MAX);
    else if ((v == 0.0 && has_nonzero_digit(text)) || (v != 0.0 && v < DBL_MIN))
        hy_diag_error(lx->diag, tk->line, tk->column,
                      "number '%s' is too small: below the smallest normal double %.6g it %s "
                      "(write 0 if zero is meant)",
                      text, DBL_MIN, v == 0.0 ? "would be rounded to 0" : "would lose precision");
    else
        return;
    tk->number = 0.0;
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
        check_number_range(lx, tk, buf);
    }
    lx->pos = p;
}

static void lex_string(hy_lexer *lx, hy_token *tk)
{
    const char *p = lx->pos + 1;
    int n = 0;
    for (;;) {
        if (p >= lx->end || hy_line_break(p, lx->end)) {
            hy_diag_error(lx->diag, tk->line, tk->column, "unterminated string");
            break;
        }
        if (*p == '\0' || (*p == '\\' && p + 1 < lx->end && p[1] == '\0')) {
            p += *p == '\0' ? 0 : 1;
            nul_byte(lx, p++, "in a string literal");
            continue;
        }
        char c = *p++;
        if (c == '"')
            break;
        if (c == '\\' && p < lx->end && !hy_line_break(p, lx->end)) {
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
        if (p >= lx->end || hy_diag_gave_up(lx->diag)) {
            tk->kind = TK_EOF;
            return;
        }
        char c = *p;
        if (is_name_start(c)) {
            const char *q = p;
            /* a.b.c is one name: a component's element */
            while (q < lx->end && (is_name_start(*q) || is_digit(*q)
                                   || (*q == '.' && q + 1 < lx->end && is_name_start(q[1]))))
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
        if (c == '.' && p + 1 < lx->end && is_name_start(p[1])) {
            /* x[i].p.v: the element's member, one token like a dotted name */
            const char *start = p + 1, *q = start;
            while (q < lx->end && (is_name_start(*q) || is_digit(*q)
                                   || (*q == '.' && q + 1 < lx->end && is_name_start(q[1]))))
                q++;
            tk->kind = TK_MEMBER;
            tk->text_len = (int)(q - p);
            tk->id = hy_strtab_intern(lx->strings, start, (size_t)(q - start));
            if (tk->id < 0)
                hy_diag_nomem(lx->diag);
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
        case '[': tk->kind = TK_LBRACKET; break;
        case ']': tk->kind = TK_RBRACKET; break;
        case '{': tk->kind = TK_LBRACE; break;
        case '}': tk->kind = TK_RBRACE; break;
        case ':':
            tk->kind = next == '=' ? TK_ASSIGN : TK_COLON;
            len = next == '=' ? 2 : 1;
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
            if (c == '\0')
                nul_byte(lx, p, "in the source");
            else if ((unsigned char)c >= 32 && (unsigned char)c < 127)
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
