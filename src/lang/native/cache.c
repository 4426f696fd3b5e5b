/*
** The native backend's cache: a per-user directory (mode 0700) of shared
** objects named by a 64-bit FNV-1a hash of their generated source, the
** compiler and its flags, each beside its source (KEY.c) and a sum file
** (KEY.sum: the hashes of the source and of the object) written last;
** attach.c loads an object only when its source is the one it generated
** and the object's hash is the one recorded. Files are written under a
** temporary name and renamed, so two processes may fill the cache at once.
*/
#define _POSIX_C_SOURCE 200809L /* mkdir, lstat, mkstemp, fsync */

#include "lang/native/native.h"

#include "core/core.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* FNV-1a 64: h = (h ^ byte) * 2^40 + 2^8 + 0xb3 (the FNV prime). */
uint64_t hy_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *bytes = data;
    for (size_t k = 0; k < n; k++) {
        h ^= bytes[k];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Make dir (mode 0700) if missing; 0 when it exists afterwards. */
static int make_dir(const char *dir)
{
    return mkdir(dir, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

int hy_native_cache_dir(char *dir, size_t size, char *err, size_t err_size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char parent[HY_NATIVE_PATH_MAX];
    if (xdg && xdg[0] == '/') {
        snprintf(parent, sizeof parent, "%s", xdg);
    } else if (home && home[0] == '/') {
        snprintf(parent, sizeof parent, "%s/.cache", home);
    } else {
        snprintf(err, err_size, "no cache directory: neither XDG_CACHE_HOME nor HOME is an "
                 "absolute path");
        return -1;
    }
    if ((size_t)snprintf(dir, size, "%s/hydae", parent) >= size) {
        snprintf(err, err_size, "cache directory path too long");
        return -1;
    }
    if (make_dir(parent) != 0 || make_dir(dir) != 0) {
        snprintf(err, err_size, "cannot make the cache directory %s: %s", dir, strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid()
        || (st.st_mode & 077) != 0) {
        snprintf(err, err_size, "refusing the cache directory %s: not a directory of this user "
                 "with mode 0700", dir);
        return -1;
    }
    return 0;
}

char *hy_native_read_all(const char *path, size_t *length)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct stat st;
    char *data = NULL;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        size_t n = (size_t)st.st_size;
        data = hy_malloc(n + 1);
        if (data && fread(data, 1, n, f) != n) {
            hy_free(data);
            data = NULL;
        }
        if (data) {
            data[n] = '\0';
            *length = n;
        }
    }
    fclose(f);
    return data;
}

int hy_native_write_atomic(const char *path, const void *data, size_t n)
{
    char tmp[HY_NATIVE_PATH_MAX];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= sizeof tmp)
        return -1;
    int fd = mkstemp(tmp);
    if (fd < 0)
        return -1;
    const char *bytes = data;
    size_t done = 0;
    while (done < n) {
        ssize_t wrote = write(fd, bytes + done, n - done);
        if (wrote <= 0 && errno != EINTR)
            break;
        if (wrote > 0)
            done += (size_t)wrote;
    }
    int ok = done == n && close(fd) == 0;
    if (ok && rename(tmp, path) == 0)
        return 0;
    if (done != n)
        close(fd);
    unlink(tmp);
    return -1;
}

/* A name the cache writes: 16 hexadecimal digits, then a dot. */
static int is_cache_file(const char *name)
{
    for (int k = 0; k < 16; k++)
        if (!strchr("0123456789abcdef", name[k]) || !name[k])
            return 0;
    return name[16] == '.';
}

int hy_lang_cache_clean(FILE *err)
{
    char dir[HY_NATIVE_PATH_MAX], why[HY_NATIVE_PATH_MAX + 128];
    if (hy_native_cache_dir(dir, sizeof dir, why, sizeof why) != 0) {
        if (err)
            fprintf(err, "hydae: %s\n", why);
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        if (err)
            fprintf(err, "hydae: cannot read %s: %s\n", dir, strerror(errno));
        return -1;
    }
    int n_removed = 0;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL) {
        char path[HY_NATIVE_PATH_MAX];
        if (!is_cache_file(entry->d_name)
            || (size_t)snprintf(path, sizeof path, "%s/%s", dir, entry->d_name) >= sizeof path)
            continue;
        if (unlink(path) == 0)
            n_removed++;
    }
    closedir(d);
    return n_removed;
}
