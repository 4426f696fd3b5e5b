/*
** Unpacking an FMU (FMI 2.0.4 section 2.3, FMI 3.0 section 2.5: a ZIP
** archive with modelDescription.xml at its root) with libzip into a
** private directory. Entry names are checked before anything is written:
** no absolute name, no ".." component ("zip slip"), "./" prefixes and
** backslash separators tolerated as the FMI implementers' guide asks.
*/
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw, O_NOFOLLOW */

#include "fmi/archive.h"
#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

enum { MAX_ENTRIES = 100000 };
#define MAX_UNPACKED_BYTES (4.0 * 1024 * 1024 * 1024)

/* The entry's name made relative and checked, into out: 1 for a file, 2 for
** a directory, 0 to skip (the root itself), -1 for a name that leaves the
** directory. */
static int clean_entry_name(const char *name, char *out, size_t out_size)
{
    size_t len = strlen(name);
    if (len == 0 || len >= out_size || name[0] == '/' || name[0] == '\\'
        || (len >= 2 && name[1] == ':'))
        return -1;
    for (size_t i = 0; i <= len; i++)
        out[i] = name[i] == '\\' ? '/' : name[i];
    char *p = out;
    while (p[0] == '.' && p[1] == '/')
        p += 2;
    memmove(out, p, strlen(p) + 1);
    if (out[0] == '\0')
        return 0;
    int is_dir = out[strlen(out) - 1] == '/';
    /* Every component: not "..", not empty in the middle ("a//b" is fine). */
    for (const char *c = out; *c;) {
        const char *slash = strchr(c, '/');
        size_t n = slash ? (size_t)(slash - c) : strlen(c);
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return -1;
        c += n + (slash != NULL);
    }
    return is_dir ? 2 : 1;
}

/* mkdir -p of the directories of rel (up to its last '/') under root. */
static int make_parents(const char *root, const char *rel, int include_last)
{
    char path[4096];
    size_t root_len = strlen(root);
    if (root_len + 1 + strlen(rel) >= sizeof path)
        return -1;
    memcpy(path, root, root_len);
    path[root_len] = '/';
    strcpy(path + root_len + 1, rel);
    for (char *p = path + root_len + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (include_last && mkdir(path, 0700) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

static int write_entry(zip_t *zip, zip_uint64_t index, const char *root, const char *rel,
                       char *err, size_t err_size, const char *path)
{
    char target[4096];
    hy_format(target, sizeof target, "%s/%s", root, rel);
    if (make_parents(root, rel, 0)) {
        hy_format(err, err_size, "%s: cannot create the directories of %s: %s", path, rel,
                  strerror(errno));
        return -1;
    }
    zip_file_t *entry = zip_fopen_index(zip, index, 0);
    if (!entry) {
        hy_format(err, err_size, "%s: cannot read %s from the archive: %s", path, rel,
                  zip_strerror(zip));
        return -1;
    }
    int fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (fd < 0) {
        hy_format(err, err_size, "%s: cannot write %s: %s", path, rel,
                  errno == EEXIST ? "the archive holds it twice" : strerror(errno));
        zip_fclose(entry);
        return -1;
    }
    char buffer[65536];
    int status = 0;
    for (;;) {
        zip_int64_t got = zip_fread(entry, buffer, sizeof buffer);
        if (got < 0) {
            hy_format(err, err_size, "%s: %s is damaged in the archive: %s", path, rel,
                      zip_file_strerror(entry));
            status = -1;
            break;
        }
        if (got == 0)
            break;
        if (write(fd, buffer, (size_t)got) != (ssize_t)got) {
            hy_format(err, err_size, "%s: cannot write %s: %s", path, rel, strerror(errno));
            status = -1;
            break;
        }
    }
    if (close(fd) != 0 && status == 0) {
        hy_format(err, err_size, "%s: cannot write %s: %s", path, rel, strerror(errno));
        status = -1;
    }
    zip_fclose(entry);
    return status;
}

static zip_t *open_archive(const char *path, char *err, size_t err_size)
{
    int code = 0;
    zip_t *zip = zip_open(path, ZIP_RDONLY, &code);
    if (zip)
        return zip;
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    const char *why = code == ZIP_ER_NOZIP ? "not a ZIP archive (an FMU is one)"
                                           : zip_error_strerror(&error);
    hy_format(err, err_size, "%s: %s", path, why);
    zip_error_fini(&error);
    return NULL;
}

/* Check every name and the total size first, then write. */
static int unpack(zip_t *zip, const char *path, const char *dir, char *err, size_t err_size)
{
    zip_int64_t n = zip_get_num_entries(zip, 0);
    if (n < 0 || n > MAX_ENTRIES) {
        hy_format(err, err_size, "%s: %lld entries in the archive (at most %d)", path,
                  (long long)n, MAX_ENTRIES);
        return -1;
    }
    double total = 0;
    char rel[4096];
    for (zip_int64_t i = 0; i < n; i++) {
        const char *name = zip_get_name(zip, (zip_uint64_t)i, 0);
        if (!name || clean_entry_name(name, rel, sizeof rel) < 0) {
            hy_format(err, err_size, "%s: the archive entry \"%s\" would be written outside "
                      "its directory; refused", path, name ? name : "?");
            return -1;
        }
        zip_stat_t st;
        if (zip_stat_index(zip, (zip_uint64_t)i, 0, &st) == 0 && (st.valid & ZIP_STAT_SIZE))
            total += (double)st.size;
    }
    if (total > MAX_UNPACKED_BYTES) {
        hy_format(err, err_size, "%s: %.0f bytes unpacked (at most 4 GiB); refused", path, total);
        return -1;
    }
    for (zip_int64_t i = 0; i < n; i++) {
        int kind = clean_entry_name(zip_get_name(zip, (zip_uint64_t)i, 0), rel, sizeof rel);
        if (kind == 2 && make_parents(dir, rel, 1)) {
            hy_format(err, err_size, "%s: cannot create %s: %s", path, rel, strerror(errno));
            return -1;
        }
        if (kind == 1 && write_entry(zip, (zip_uint64_t)i, dir, rel, err, err_size, path))
            return -1;
    }
    return 0;
}

int hy_fmi_archive_extract(const char *path, char *dir, size_t dir_size, char *err,
                           size_t err_size)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        hy_format(err, err_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        hy_format(err, err_size, "%s: not a file", path);
        return -1;
    }
    zip_t *zip = open_archive(path, err, err_size);
    if (!zip)
        return -1;
    const char *tmp = getenv("TMPDIR");
    hy_format(dir, dir_size, "%s/hydae-fmu-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        hy_format(err, err_size, "%s: cannot create a temporary directory %s: %s", path, dir,
                  strerror(errno));
        zip_discard(zip);
        return -1;
    }
    int status = unpack(zip, path, dir, err, err_size);
    zip_discard(zip);
    if (status)
        hy_fmi_archive_remove(dir);
    return status;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) != 0 ? -1 : 0;
}

int hy_fmi_archive_remove(const char *dir)
{
    if (!dir || !dir[0])
        return 0;
    return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

char *hy_fmi_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = NULL;
    size_t used = 0, cap = 0;
    for (;;) {
        if (used + 65536 + 1 > cap) {
            size_t new_cap = cap ? 2 * cap : 65536 + 1;
            char *grown = hy_realloc(data, new_cap);
            if (!grown) {
                hy_free(data);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            data = grown;
            cap = new_cap;
        }
        size_t got = fread(data + used, 1, 65536, f);
        used += got;
        if (got < 65536)
            break;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        hy_free(data);
        errno = EIO;
        return NULL;
    }
    data[used] = '\0';
    *size = used;
    return data;
}
