/*
** Diagnostics of the model-language compiler: "file:line:column: error:
** message", the quoted source line and a caret under the column.
*/
#include "lang/diag.h"

#include <stdarg.h>
#include <string.h>

void hy_diag_init(hy_diag *d, FILE *out, const char *file_name, const char *source,
                  size_t source_len)
{
    memset(d, 0, sizeof *d);
    d->out = out;
    d->file_name = file_name ? file_name : "<input>";
    d->source = source;
    d->source_len = source_len;
}

/* Print the source line `line` and a caret under `column`. */
static void quote_line(const hy_diag *d, int line, int column)
{
    if (!d->source || line <= 0)
        return;
    size_t i = 0;
    for (int l = 1; l < line && i < d->source_len; i++)
        if (d->source[i] == '\n')
            l++;
    size_t end = i;
    while (end < d->source_len && d->source[end] != '\n' && d->source[end] != '\r')
        end++;
    if (end - i > 400)
        end = i + 400; /* very long lines are cut in the quote */
    fputs(" ", d->out);
    for (size_t k = i; k < end; k++) {
        unsigned char c = (unsigned char)d->source[k];
        fputc(c == '\t' || c >= 32 ? (int)c : '?', d->out);
    }
    fputs("\n ", d->out);
    for (int k = 1; k < column && (size_t)(k - 1) < end - i; k++)
        fputc(d->source[i + (size_t)k - 1] == '\t' ? '\t' : ' ', d->out);
    fputs("^\n", d->out);
}

static void emit(hy_diag *d, const char *kind, int line, int column, int quote, const char *fmt,
                 va_list ap)
{
    if (!d->out)
        return;
    if (line > 0)
        fprintf(d->out, "%s:%d:%d: %s: ", d->file_name, line, column, kind);
    else
        fprintf(d->out, "%s: %s: ", d->file_name, kind);
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
    if (quote)
        quote_line(d, line, column);
}

void hy_diag_error(hy_diag *d, int line, int column, const char *fmt, ...)
{
    d->n_errors++;
    if (d->n_errors > HY_DIAG_MAX_ERRORS) {
        if (d->n_errors == HY_DIAG_MAX_ERRORS + 1 && d->out)
            fprintf(d->out, "%s: error: too many errors, stopping\n", d->file_name);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    emit(d, "error", line, column, 1, fmt, ap);
    va_end(ap);
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
