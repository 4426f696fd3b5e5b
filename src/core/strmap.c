/*
** String -> int map: open addressing with linear probing, grown to keep
** the load factor at most 1/2; FNV-1a hash (Fowler, Noll, Vo).
*/
#include "strmap.h"
#include "core/core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

static int find_index(const hy_strmap *m, const char *key)
{
    uint32_t mask = (uint32_t)m->cap - 1u;
    for (uint32_t i = fnv1a(key) & mask;; i = (i + 1u) & mask)
        if (!m->keys[i] || strcmp(m->keys[i], key) == 0)
            return (int)i;
}

int hy_strmap_get(const hy_strmap *m, const char *key)
{
    if (m->cap == 0)
        return -1;
    int i = find_index(m, key);
    return m->keys[i] ? m->values[i] : -1;
}

static int grow(hy_strmap *m)
{
    int cap = m->cap ? 2 * m->cap : 16;
    hy_strmap bigger = { cap, 0, hy_calloc((size_t)cap, sizeof(char *)),
                         hy_malloc(sizeof(int) * (size_t)cap) };
    if (!bigger.keys || !bigger.values) {
        hy_free(bigger.keys);
        hy_free(bigger.values);
        return -1;
    }
    for (int i = 0; i < m->cap; i++)
        if (m->keys[i]) {
            int j = find_index(&bigger, m->keys[i]);
            bigger.keys[j] = m->keys[i];
            bigger.values[j] = m->values[i];
            bigger.count++;
        }
    hy_strmap_free(m);
    *m = bigger;
    return 0;
}

int hy_strmap_put(hy_strmap *m, const char *key, int value)
{
    if (2 * (m->count + 1) > m->cap && grow(m))
        return -1;
    int i = find_index(m, key);
    if (!m->keys[i]) {
        m->keys[i] = key;
        m->count++;
    }
    m->values[i] = value;
    return 0;
}

void hy_strmap_free(hy_strmap *m)
{
    hy_free(m->keys);
    hy_free(m->values);
    m->keys = NULL;
    m->values = NULL;
    m->cap = m->count = 0;
}
