/*
** A string -> int map with open addressing (linear probing, FNV-1a hash),
** for name lookups that would otherwise be linear scans: the model's value
** slots and a mode's names. Keys are borrowed: they must outlive the map.
*/
#ifndef HY_STRMAP_H
#define HY_STRMAP_H

typedef struct hy_strmap {
    int cap;                    /* power of two, or 0 */
    int count;
    const char **keys;          /* NULL: empty */
    int *values;
} hy_strmap;

/* The value of key, or -1. */
int hy_strmap_get(const hy_strmap *m, const char *key);
/* Insert key -> value (value >= 0; a present key gets the new value).
** 0, or -1 when out of memory (the map is unchanged). */
int hy_strmap_put(hy_strmap *m, const char *key, int value);
void hy_strmap_free(hy_strmap *m);

#endif
