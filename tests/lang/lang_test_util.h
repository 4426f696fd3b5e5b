/*
** Helpers of the model-language tests: the source tree's location (from
** this file's path), reading files, and capturing diagnostics in memory.
*/
#ifndef HY_LANG_TEST_UTIL_H
#define HY_LANG_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The source tree: __FILE__ up to its last "tests/" ("." if relative). */
static inline void lang_test_source_dir(char *buf, size_t size)
{
    const char *file = __FILE__, *last = NULL;
    for (const char *p = strstr(file, "tests/"); p; p = strstr(p + 1, "tests/"))
        last = p;
    size_t n = last ? (size_t)(last - file) : 0;
    if (n == 0) {
        snprintf(buf, size, ".");
        return;
    }
    if (n > 1 && file[n - 1] == '/')
        n--;
    snprintf(buf, size, "%.*s", (int)n, file);
}

/* The whole file, NUL-terminated; NULL if unreadable. */
static inline char *lang_test_read(const char *path, size_t *length)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *text = malloc(cap + 1);
    size_t got;
    while (text && (got = fread(text + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *grown = realloc(text, 2 * cap + 1);
            if (!grown) {
                free(text);
                text = NULL;
                break;
            }
            text = grown;
            cap *= 2;
        }
    }
    fclose(f);
    if (text) {
        text[n] = '\0';
        if (length)
            *length = n;
    }
    return text;
}

/* Everything written to a temporary stream, NUL-terminated. */
static inline char *lang_test_drain(FILE *f)
{
    long size = ftell(f);
    if (size < 0)
        return NULL;
    char *text = malloc((size_t)size + 1);
    if (!text)
        return NULL;
    rewind(f);
    size_t n = fread(text, 1, (size_t)size, f);
    text[n] = '\0';
    return text;
}

#endif
