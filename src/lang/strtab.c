/*
** String table of the model-language compiler: interning of identifiers
** and string literals (open addressing, FNV-1a), and the growth helper of
** the compiler's dynamic arrays.
*/
#include "lang/strtab.h"
#include "core/core.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int hy_grow_to(void **array, int *cap, int need, size_t elem_size)
{
    if (need <= *cap)
        return 0;
    if (need > INT_MAX / 2)
        return -1;
    int new_cap = *cap ? *cap : 8;
    while (new_cap < need)
        new_cap *= 2;
    if ((size_t)new_cap > SIZE_MAX / elem_size)
        return -1;
    void *grown = hy_realloc(*array, (size_t)new_cap * elem_size);
    if (!grown)
        return -1;
    *array = grown;
    *cap = new_cap;
    return 0;
}

static uint32_t hash_text(const char *text, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)text[i];
        h *= 16777619u;
    }
    return h;
}

void hy_strtab_init(hy_strtab *t)
{
    memset(t, 0, sizeof *t);
}

enum { HY_STRTAB_CHUNK = 64 * 1024 };

void hy_strtab_free(hy_strtab *t)
{
    for (char *chunk = t->chunk; chunk;) {
        char *before;
        memcpy(&before, chunk, sizeof before);
        hy_free(chunk);
        chunk = before;
    }
    hy_free(t->strings);
    hy_free(t->lengths);
    hy_free(t->slots);
    memset(t, 0, sizeof *t);
}

static int rehash(hy_strtab *t)
{
    int n_slots = t->n_slots ? 2 * t->n_slots : 64;
    int *slots = hy_calloc((size_t)n_slots, sizeof *slots);
    if (!slots)
        return -1;
    for (int id = 0; id < t->n_strings; id++) {
        uint32_t i = hash_text(t->strings[id], t->lengths[id]) & (uint32_t)(n_slots - 1);
        while (slots[i])
            i = (i + 1) & (uint32_t)(n_slots - 1);
        slots[i] = id + 1;
    }
    hy_free(t->slots);
    t->slots = slots;
    t->n_slots = n_slots;
    return 0;
}

static int lookup(const hy_strtab *t, const char *text, size_t len, uint32_t *slot_out)
{
    if (!t->n_slots)
        return -1;
    uint32_t mask = (uint32_t)(t->n_slots - 1), i = hash_text(text, len) & mask;
    while (t->slots[i]) {
        int id = t->slots[i] - 1;
        if (t->lengths[id] == len && memcmp(t->strings[id], text, len) == 0)
            return id;
        i = (i + 1) & mask;
    }
    if (slot_out)
        *slot_out = i;
    return -1;
}

/* Room for `bytes` bytes of text that never moves, or NULL. */
static char *text_room(hy_strtab *t, size_t bytes)
{
    if (bytes > t->chunk_left) {
        size_t head = sizeof(char *), size = HY_STRTAB_CHUNK;
        if (bytes > size - head)
            size = bytes + head; /* a long text: a chunk of its own */
        char *chunk = hy_malloc(size);
        if (!chunk)
            return NULL;
        memcpy(chunk, &t->chunk, sizeof t->chunk);
        t->chunk = chunk;
        t->chunk_free = chunk + head;
        t->chunk_left = size - head;
    }
    char *room = t->chunk_free;
    t->chunk_free += bytes;
    t->chunk_left -= bytes;
    return room;
}

int hy_strtab_intern(hy_strtab *t, const char *text, size_t len)
{
    uint32_t slot = 0;
    int id = lookup(t, text, len, &slot);
    if (id >= 0)
        return id;
    if (2 * (t->n_strings + 1) > t->n_slots) {
        if (rehash(t) != 0)
            return -1;
        (void)lookup(t, text, len, &slot); /* its slot in the new table */
    }
    if (hy_grow((void **)&t->strings, &t->cap_strings, t->n_strings + 1, sizeof *t->strings)
        || hy_grow((void **)&t->lengths, &t->cap_lengths, t->n_strings + 1, sizeof *t->lengths)
        || len == SIZE_MAX)
        return -1;
    char *copy = text_room(t, len + 1);
    if (!copy)
        return -1;
    memcpy(copy, text, len);
    copy[len] = '\0';
    t->strings[t->n_strings] = copy;
    t->lengths[t->n_strings] = len;
    t->slots[slot] = t->n_strings + 1;
    return t->n_strings++;
}

int hy_strtab_find(const hy_strtab *t, const char *text)
{
    return lookup(t, text, strlen(text), NULL);
}

const char *hy_strtab_get(const hy_strtab *t, int id)
{
    return id >= 0 && id < t->n_strings ? t->strings[id] : "?";
}

int hy_strtab_intern_join(hy_strtab *t, const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c), len;
    if (hy_add_size(la, lb, &len) || hy_add_size(len, lc, &len) || len == SIZE_MAX)
        return -1;
    char *text = hy_malloc(len + 1);
    if (!text)
        return -1;
    memcpy(text, a, la);
    memcpy(text + la, b, lb);
    memcpy(text + la + lb, c, lc + 1);
    int id = hy_strtab_intern(t, text, len);
    hy_free(text);
    return id;
}
