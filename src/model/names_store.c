/*
** Where a model keeps its many names: the text of variable and output names
** in one arena of large blocks (no allocation per name), and name lookups
** through hash indexes that hold only the value (the name is found through
** it), so that a model of two million variables costs a few bytes per name
** beside the text.
**
** The index is open addressing with linear probing, kept at most half
** full, FNV-1a hash (Fowler, Noll, Vo), as core/strmap.c, but a bucket is
** one 32-bit word, value + 1 (0: empty), where strmap keeps a key pointer
** and a value (12 bytes).
*/
#include "model.h"

#include "core/core.h"

#include <stdlib.h>
#include <string.h>

/* ---- the arena ---- */

/* Blocks of this size (a longer name gets a block of its own). */
enum { NAME_BLOCK_BYTES = 64 * 1024 };

struct hy_name_block {
    struct hy_name_block *next;
    size_t used, cap;
    char text[];
};

const char *hy_names_copy(hy_name_block **blocks, const char *name)
{
    size_t len = strlen(name) + 1;
    hy_name_block *block = *blocks;
    if (!block || block->cap - block->used < len) {
        size_t cap = len > NAME_BLOCK_BYTES ? len : NAME_BLOCK_BYTES, bytes;
        if (hy_add_size(sizeof *block, cap, &bytes) || !(block = hy_malloc(bytes)))
            return NULL;
        block->used = 0;
        block->cap = cap;
        /* A full block goes behind the new one; a block with room left
        ** (passed over for one long name) stays first. */
        if (*blocks && (*blocks)->cap - (*blocks)->used >= 64) {
            block->next = (*blocks)->next;
            (*blocks)->next = block;
        } else {
            block->next = *blocks;
            *blocks = block;
        }
    }
    char *copy = block->text + block->used;
    memcpy(copy, name, len);
    block->used += len;
    return copy;
}

void hy_names_free(hy_name_block **blocks)
{
    for (hy_name_block *block = *blocks, *next; block; block = next) {
        next = block->next;
        hy_free(block);
    }
    *blocks = NULL;
}

/* ---- the index ---- */

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

/* The bucket of key: where it is, or the empty one where it would go. */
static uint32_t find_bucket(const hy_name_index *ix, const char *key, uint32_t hash,
                            hy_name_of_fn name_of, const void *owner)
{
    uint32_t mask = ix->cap - 1u;
    for (uint32_t i = hash & mask;; i = (i + 1u) & mask)
        if (ix->buckets[i] == 0 || strcmp(name_of(owner, (int)(ix->buckets[i] - 1u)), key) == 0)
            return i;
}

int hy_name_index_get(const hy_name_index *ix, const char *key, hy_name_of_fn name_of,
                      const void *owner)
{
    if (ix->cap == 0)
        return -1;
    uint32_t i = find_bucket(ix, key, fnv1a(key), name_of, owner);
    return (int)ix->buckets[i] - 1;
}

/* Room for count entries at most half full: a new table with the entries
** rehashed. 0 or -1 (out of memory; the index is unchanged). */
static int index_resize(hy_name_index *ix, uint32_t count, hy_name_of_fn name_of,
                        const void *owner)
{
    uint32_t cap = 16;
    while (cap / 2 < count) {
        if (cap > UINT32_MAX / 4)
            return -1;
        cap *= 2;
    }
    uint32_t *buckets = hy_calloc(cap, sizeof *buckets);
    if (!buckets)
        return -1;
    hy_name_index bigger = { cap, ix->count, buckets };
    for (uint32_t i = 0; i < ix->cap; i++)
        if (ix->buckets[i]) {
            const char *key = name_of(owner, (int)(ix->buckets[i] - 1u));
            bigger.buckets[find_bucket(&bigger, key, fnv1a(key), name_of, owner)] =
                ix->buckets[i];
        }
    hy_free(ix->buckets);
    *ix = bigger;
    return 0;
}

int hy_name_index_put(hy_name_index *ix, const char *key, int value, hy_name_of_fn name_of,
                      const void *owner)
{
    if (value < 0 || (uint32_t)value >= UINT32_MAX - 1u || ix->count >= INT32_MAX)
        return -1;
    if (2u * (ix->count + 1u) > ix->cap && index_resize(ix, ix->count + 1u, name_of, owner))
        return -1;
    uint32_t i = find_bucket(ix, key, fnv1a(key), name_of, owner);
    if (ix->buckets[i] == 0)
        ix->count++;
    ix->buckets[i] = (uint32_t)value + 1u;
    return 0;
}

void hy_name_index_free(hy_name_index *ix)
{
    hy_free(ix->buckets);
    ix->buckets = NULL;
    ix->cap = ix->count = 0;
}
