/*
** String table of the model-language compiler: interns identifiers and
** string literals so that every distinct text has one dense id (0, 1, ...)
** and names compare as integers. Open addressing with FNV-1a hashing.
*/
#ifndef HY_LANG_STRTAB_H
#define HY_LANG_STRTAB_H

#include <stddef.h>

typedef struct hy_strtab {
    int n_strings, cap_strings;
    char **strings;      /* id -> NUL-terminated text (owned) */
    size_t *lengths;     /* id -> its length: texts compare by length and
                            bytes, never by reading up to a NUL */
    int cap_lengths;
    int *slots;          /* hash slot -> id + 1 (0: empty) */
    int n_slots;         /* a power of two */
    /* The texts live in chunks of at least HY_STRTAB_CHUNK bytes, each
    ** starting with a pointer to the one before (an array model interns a
    ** name per element: one malloc each cost 32 bytes and a call) */
    char *chunk;         /* the newest chunk, NULL: none */
    char *chunk_free;    /* its first free byte */
    size_t chunk_left;   /* bytes free from there */
} hy_strtab;

void hy_strtab_init(hy_strtab *t);
void hy_strtab_free(hy_strtab *t);
/* The id of text[0..len), added if new; -1 when out of memory. */
int hy_strtab_intern(hy_strtab *t, const char *text, size_t len);
/* The id of a NUL-terminated text if present, else -1 (never adds). */
int hy_strtab_find(const hy_strtab *t, const char *text);
const char *hy_strtab_get(const hy_strtab *t, int id);
/* The id of the text a b c (NUL-terminated parts), added if new; -1 when
** out of memory. */
int hy_strtab_intern_join(hy_strtab *t, const char *a, const char *b, const char *c);

/* Grow *array (of elem_size-byte elements, capacity *cap) to hold at least
** `need` elements. 0 on success, -1 when out of memory or too large.
** Inline where nothing is to be done: the compiler's loops call it once
** per element appended. */
int hy_grow_to(void **array, int *cap, int need, size_t elem_size);
static inline int hy_grow(void **array, int *cap, int need, size_t elem_size)
{
    return need <= *cap ? 0 : hy_grow_to(array, cap, need, elem_size);
}

#endif
