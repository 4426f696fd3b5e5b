/*
** Diagnostics of the model-language compiler: messages in the form
**     file:line:column: error: message
** followed by the source line and a caret under the column, as gcc and
** clang print them. Counts errors; stops printing after a limit.
*/
#ifndef HY_LANG_DIAG_H
#define HY_LANG_DIAG_H

#include <stddef.h>
#include <stdio.h>

#if defined(__GNUC__)
#define HY_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define HY_PRINTF(fmt_index, first_arg)
#endif

enum { HY_DIAG_MAX_ERRORS = 50 };

/* The length of the line break at p (p < end): 2 for CR LF, 1 for LF or a
** CR alone, 0 if p is not at one. The lexer, the quoted lines of
** diagnostics and `hydae check` all count lines this way. */
static inline int hy_line_break(const char *p, const char *end)
{
    if (*p == '\n')
        return 1;
    if (*p != '\r')
        return 0;
    return p + 1 < end && p[1] == '\n' ? 2 : 1;
}

/* A file read besides the main one (an imported library): its lines are
** numbered on from line_base + 1, so one int says file and line. */
typedef struct hy_diag_source {
    char *file_name;        /* owned */
    const char *text;       /* borrowed: must outlive the diagnostics */
    size_t len;
    int line_base;
} hy_diag_source;

typedef struct hy_diag {
    FILE *out;              /* NULL: count only */
    const char *file_name;  /* shown before line:column */
    const char *source;     /* the text, for quoting lines */
    size_t source_len;
    hy_diag_source *more;   /* imported files, by ascending line_base */
    int n_more, cap_more;
    int next_line_base;     /* where the next added file starts */
    int n_errors, n_warnings;
    int out_of_memory;      /* set once; the compile then fails */
    unsigned long long last_hash; /* of the last error printed: a repeat of it */
    int has_last;                 /* (same place, same text) is counted, not shown */
} hy_diag;

void hy_diag_init(hy_diag *d, FILE *out, const char *file_name, const char *source,
                  size_t source_len);
/* line and column are 1-based; line 0 means no position. */
void hy_diag_error(hy_diag *d, int line, int column, const char *fmt, ...) HY_PRINTF(4, 5);
void hy_diag_warning(hy_diag *d, int line, int column, const char *fmt, ...) HY_PRINTF(4, 5);
/* "line:column" of a position in the main file, "file:line:column" in an
** imported one, into buf. */
void hy_diag_position(const hy_diag *d, int line, int column, char *buf, size_t size);
/* The text of line `line` of any file, leading blanks skipped, into buf. */
void hy_diag_line_text(const hy_diag *d, int line, char *buf, size_t size);
/* A note that belongs to the previous message (no caret line). */
void hy_diag_note(hy_diag *d, int line, int column, const char *fmt, ...) HY_PRINTF(4, 5);
/* Another file's text (an import): the line its first line gets (lex it
** from there), or -1 when out of memory or past the line range. */
int hy_diag_add_source(hy_diag *d, const char *file_name, const char *text, size_t len);
void hy_diag_free(hy_diag *d);
/* Record an allocation failure (reported once as an error). */
void hy_diag_nomem(hy_diag *d);
/* Past HY_DIAG_MAX_ERRORS errors: the input is not worth reading on (the
** lexer then ends it, so every loop over tokens ends). */
static inline int hy_diag_gave_up(const hy_diag *d)
{
    return d->n_errors > HY_DIAG_MAX_ERRORS;
}

/* The offset of the first byte of every line of source[0..len) (line k at
** [k - 1]) into *starts (malloc'ed, caller frees): the number of lines, or
** -1 when out of memory. */
int hy_line_starts(const char *source, size_t len, size_t **starts);

#endif
