/*
** Parser of the model language: recursive descent over the tokens of the
** lexer, building a hy_syntax. Expression nesting (parentheses, calls,
** unary operators, if-expressions, powers) is limited to
** HY_PARSE_MAX_DEPTH levels; deeper input is refused with a message, never
** a stack overflow. Long operator chains (a + b + c + ...) are parsed by
** loops and are not limited.
*/
#ifndef HY_LANG_PARSE_H
#define HY_LANG_PARSE_H

#include "lang/diag.h"
#include "lang/syntax.h"

enum { HY_PARSE_MAX_DEPTH = 200 };

/* Finds the text of a library for `import NAME;`: 0 with *text, *len and
** *file_name set (they must outlive the diagnostics), -1 with a message
** of what was tried in *file_name, or -2 when out of memory. */
typedef struct hy_import_loader {
    int (*load)(void *user, const char *name, const char **text, size_t *len,
                const char **file_name);
    void *user;
} hy_import_loader;

/* Parse source into *syntax (zeroed first). Errors go to diag; parsing
** recovers at ';' and 'end' to report several. Returns the number of
** errors found while parsing. Without a loader, `import` is an error. */
int hy_parse(const char *source, size_t len, hy_diag *diag, hy_strtab *strings,
             hy_syntax *syntax);
int hy_parse_with_imports(const char *source, size_t len, hy_diag *diag, hy_strtab *strings,
                          const hy_import_loader *loader, hy_syntax *syntax);

#endif
