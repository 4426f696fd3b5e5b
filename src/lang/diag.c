/*
** Diagnostics of the model-language compiler: "file:line:column: error:
** message", the quoted source line and a caret under the column.
*/
#include "lang/diag.h"

#include "lang/strtab.h"
#include "core/core.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void hy_diag_init(hy_diag *d, FILE *out, const char *file_name, const char *source,
                  size_t source_len)
{
    memset(d, 0, sizeof *d);
    d->out = out;
    d->file_name = file_name ? file_name : "<input>";
    d->source = source;
    d->source_len = source_len;
    d->next_line_base = 1 << 24; /* imported files number their lines from here */
}

int hy_diag_add_source(hy_diag *d, const char *file_name, const char *text, size_t len)
{
    int lines = 1;
    for (size_t i = 0; i < len && lines < INT_MAX / 2;) {
        int brk = hy_line_break(text + i, text + len);
        i += brk ? (size_t)brk : 1;
        lines += brk != 0;
    }
    if (d->next_line_base > INT_MAX - lines - 2
        || hy_grow((void **)&d->more, &d->cap_more, d->n_more + 1, sizeof *d->more))
        return -1;
    char *name = hy_strdup(file_name);
    if (!name)
        return -1;
    hy_diag_source *s = &d->more[d->n_more++];
    s->file_name = name;
    s->text = text;
    s->len = len;
    s->line_base = d->next_line_base;
    d->next_line_base += lines + 1;
    return s->line_base + 1;
}

void hy_diag_free(hy_diag *d)
{
    for (int i = 0; i < d->n_more; i++)
        hy_free(d->more[i].file_name);
    hy_free(d->more);
    d->more = NULL;
    d->n_more = d->cap_more = 0;
}

/* The file of a line: its name, text and the line within it. */
/* Where line `local` (1-based) of text begins. */
static size_t line_start(const char *text, size_t len, int local)
{
    const char *src_end = text + len;
    size_t i = 0;
    for (int l = 1; l < local && i < len;) {
        int brk = hy_line_break(text + i, src_end);
        i += brk ? (size_t)brk : 1;
        l += brk != 0;
    }
    return i;
}

static void locate(const hy_diag *d, int line, const char **name, const char **text,
                   size_t *len, int *local)
{
    *name = d->file_name;
    *text = d->source;
    *len = d->source_len;
    *local = line;
    for (int i = d->n_more - 1; i >= 0; i--)
        if (line > d->more[i].line_base) {
            *name = d->more[i].file_name;
            *text = d->more[i].text;
            *len = d->more[i].len;
            *local = line - d->more[i].line_base;
            return;
        }
}

/* "line:column" of a position in the main file, "file:line:column" in an
** imported one (its name as given, e.g. the library's path). */
void hy_diag_position(const hy_diag *d, int line, int column, char *buf, size_t size)
{
    const char *name, *text;
    size_t len;
    int local;
    locate(d, line, &name, &text, &len, &local);
    if (local == line)
        snprintf(buf, size, "%d:%d", line, column);
    else
        snprintf(buf, size, "%s:%d:%d", name, local, column);
}

/* The text of line `line` (of any file), without leading blanks, into buf
** ("" if there is none). */
void hy_diag_line_text(const hy_diag *d, int line, char *buf, size_t size)
{
    const char *name, *text;
    size_t len;
    int local;
    locate(d, line, &name, &text, &len, &local);
    buf[0] = '\0';
    if (!text || local <= 0 || size == 0)
        return;
    size_t i = line_start(text, len, local);
    while (i < len && (text[i] == ' ' || text[i] == '\t'))
        i++;
    size_t n = 0;
    while (i < len && text[i] != '\n' && text[i] != '\r' && n + 1 < size)
        buf[n++] = text[i++];
    buf[n] = '\0';
}

/* Print the source line `line` and a caret under `column`. */
static void quote_line(const hy_diag *d, int line, int column)
{
    const char *name, *text;
    size_t len;
    int local;
    locate(d, line, &name, &text, &len, &local);
    if (!text || local <= 0)
        return;
    size_t i = line_start(text, len, local);
    size_t end = i;
    while (end < len && text[end] != '\n' && text[end] != '\r')
        end++;
    if (end - i > 400)
        end = i + 400; /* very long lines are cut in the quote */
    fputs(" ", d->out);
    for (size_t k = i; k < end; k++) {
        unsigned char c = (unsigned char)text[k];
        fputc(c == '\t' || c >= 32 ? (int)c : '?', d->out);
    }
    fputs("\n ", d->out);
    for (int k = 1; k < column && (size_t)(k - 1) < end - i; k++)
        fputc(text[i + (size_t)k - 1] == '\t' ? '\t' : ' ', d->out);
    fputs("^\n", d->out);
}

static void emit(hy_diag *d, const char *kind, int line, int column, int quote, const char *fmt,
                 va_list ap)
{
    if (!d->out)
        return;
    const char *name, *text;
    size_t len;
    int local;
    locate(d, line, &name, &text, &len, &local);
    if (line > 0)
        fprintf(d->out, "%s:%d:%d: %s: ", name, local, column, kind);
    else
        fprintf(d->out, "%s: %s: ", d->file_name, kind);
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
    if (quote)
        quote_line(d, line, column);
}

/* FNV-1a of the position and text of a message. */
static unsigned long long message_hash(int line, int column, const char *text)
{
    unsigned long long h = 14695981039346656037ull;
    unsigned long long parts[2] = { (unsigned)line, (unsigned)column };
    for (int k = 0; k < 2; k++)
        h = (h ^ parts[k]) * 1099511628211ull;
    for (; *text; text++)
        h = (h ^ (unsigned char)*text) * 1099511628211ull;
    return h;
}

static void emit_text(hy_diag *d, int line, int column, const char *fmt, ...) HY_PRINTF(4, 5);

static void emit_text(hy_diag *d, int line, int column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(d, "error", line, column, 1, fmt, ap);
    va_end(ap);
}

void hy_diag_error(hy_diag *d, int line, int column, const char *fmt, ...)
{
    d->n_errors++;
    if (d->n_errors > HY_DIAG_MAX_ERRORS) {
        if (d->n_errors == HY_DIAG_MAX_ERRORS + 1 && d->out)
            fprintf(d->out, "%s: error: too many errors, stopping\n", d->file_name);
        return;
    }
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* The same message at the same place again says nothing new. */
    unsigned long long h = message_hash(line, column, text);
    if (d->has_last && h == d->last_hash)
        return;
    d->has_last = 1;
    d->last_hash = h;
    emit_text(d, line, column, "%s", text);
}

void hy_diag_warning(hy_diag *d, int line, int column, const char *fmt, ...)
{
    d->n_warnings++;
    if (d->n_errors > HY_DIAG_MAX_ERRORS)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(d, "warning", line, column, 1, fmt, ap);
    va_end(ap);
}

void hy_diag_note(hy_diag *d, int line, int column, const char *fmt, ...)
{
    if (d->n_errors > HY_DIAG_MAX_ERRORS)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(d, "note", line, column, 0, fmt, ap);
    va_end(ap);
}

void hy_diag_nomem(hy_diag *d)
{
    if (d->out_of_memory)
        return;
    d->out_of_memory = 1;
    hy_diag_error(d, 0, 0, "out of memory");
}

int hy_line_starts(const char *source, size_t len, size_t **starts)
{
    int n = 1, cap = 0;
    *starts = NULL;
    if (hy_grow((void **)starts, &cap, 1, sizeof **starts))
        return -1;
    (*starts)[0] = 0;
    for (size_t i = 0; i < len;) {
        int brk = hy_line_break(source + i, source + len);
        i += brk ? (size_t)brk : 1;
        if (!brk)
            continue;
        if (n == INT_MAX || hy_grow((void **)starts, &cap, n + 1, sizeof **starts)) {
            hy_free(*starts);
            *starts = NULL;
            return -1;
        }
        (*starts)[n++] = i;
    }
    return n;
}
