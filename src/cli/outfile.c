/*
** Output files written safely (see outfile.h): temporary file plus
** rename() for regular files, direct writes for special files, and the
** check that no output overwrites an input or another output.
*/
#define _XOPEN_SOURCE 700 /* realpath, mkstemp, fchmod, lstat */

#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef NAME_MAX
#define NAME_MAX 255 /* POSIX leaves it undefined where it varies */
#endif

static int is_stdout_name(const char *path)
{
    return strcmp(path, "-") == 0;
}

/* Device nodes and the process's own descriptors are written in place. */
static int is_special_name(const char *path)
{
    return is_stdout_name(path) || strncmp(path, "/dev/", 5) == 0
           || strncmp(path, "/proc/", 6) == 0;
}

/* The directory part of path ("." when none), into dir. */
static int directory_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    int len = !slash ? snprintf(dir, size, ".")
              : slash == path ? snprintf(dir, size, "/")
                              : snprintf(dir, size, "%.*s", (int)(slash - path), path);
    return len < 0 || (size_t)len >= size ? -1 : 0;
}

/* The absolute path path would have: its directory resolved, its last
** component kept. Falls back to path itself when the directory does not
** resolve. */
static void normalised_path(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    const char *base = slash ? slash + 1 : path;
    if (directory_of(path, dir, sizeof dir)) {
        snprintf(out, size, "%s", path);
        return;
    }
    char resolved[PATH_MAX];
    size_t dir_len = realpath(dir, resolved) ? strlen(resolved) : 0;
    if (dir_len == 0 || dir_len + strlen(base) + 2 > size) {
        snprintf(out, size, "%s", path);
        return;
    }
    memcpy(out, resolved, dir_len);
    if (strcmp(resolved, "/") != 0)
        out[dir_len++] = '/';
    memcpy(out + dir_len, base, strlen(base) + 1);
}

/* 1 if a and b name one file (1 never for character devices). */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int a_exists = stat(a, &sa) == 0, b_exists = stat(b, &sb) == 0;
    if (a_exists && b_exists)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !S_ISCHR(sa.st_mode);
    if (a_exists || b_exists)
        return 0;
    char na[PATH_MAX], nb[PATH_MAX];
    normalised_path(a, na, sizeof na);
    normalised_path(b, nb, sizeof nb);
    return strcmp(na, nb) == 0;
}

int hy_check_distinct_files(const hy_named_file *files, int n, const char *prog)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const hy_named_file *a = &files[i], *b = &files[j];
            if (!a->path || !b->path || !(a->is_output || b->is_output)
                || is_stdout_name(a->path) || is_stdout_name(b->path))
                continue;
            if (same_file(a->path, b->path)) {
                fprintf(stderr, "%s: %s '%s' and %s '%s' are the same file; %s\n", prog,
                        a->option, a->path, b->option, b->path,
                        a->is_output && b->is_output
                            ? "two outputs cannot share a file"
                            : "the output would destroy the input; choose another name");
                return 2;
            }
        }
    return 0;
}

static int open_failure(const hy_outfile *o, const char *prog)
{
    fprintf(stderr, "%s: cannot write '%s': %s\n", prog, o->path, strerror(errno));
    return 2;
}

/* A temporary file ".NAME.XXXXXX" beside o->final_path, with the mode the
** file has (or a new file would get). */
static int open_temporary(hy_outfile *o, const char *mode, const struct stat *existing)
{
    char dir[PATH_MAX];
    if (directory_of(o->final_path, dir, sizeof dir))
        return errno = ENAMETOOLONG, -1;
    const char *slash = strrchr(o->final_path, '/');
    const char *base = slash ? slash + 1 : o->final_path;
    /* ".NAME.XXXXXX", or ".hydae.XXXXXX" when that would exceed NAME_MAX. */
    int short_name = strlen(base) + 9 > NAME_MAX;
    int len = snprintf(o->temp_path, sizeof o->temp_path, "%s/.%s.XXXXXX", dir,
                       short_name ? "hydae" : base);
    if (len < 0 || (size_t)len >= sizeof o->temp_path)
        return errno = ENAMETOOLONG, -1;
    int fd = mkstemp(o->temp_path);
    if (fd < 0) {
        o->temp_path[0] = '\0';
        return -1;
    }
    mode_t permissions;
    if (existing) {
        permissions = existing->st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        permissions = 0666 & ~mask;
    }
    if (fchmod(fd, permissions) != 0 || !(o->file = fdopen(fd, mode))) {
        int saved = errno;
        close(fd);
        remove(o->temp_path);
        o->temp_path[0] = '\0';
        errno = saved;
        return -1;
    }
    return 0;
}

int hy_outfile_open(hy_outfile *o, const char *mode, const char *prog)
{
    o->file = NULL;
    o->temp_path[0] = '\0';
    o->final_path[0] = '\0';
    if (!o->path)
        return 0;
    if (is_stdout_name(o->path)) {
        o->file = stdout;
        return 0;
    }
    struct stat st, lst;
    int exists = stat(o->path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return open_failure(o, prog);
    }
    if (is_special_name(o->path) || (exists && !S_ISREG(st.st_mode))) {
        o->file = fopen(o->path, mode);
        return o->file ? 0 : open_failure(o, prog);
    }
    if (exists && access(o->path, W_OK) != 0)
        return open_failure(o, prog); /* a write-protected file is not replaced */
    int is_link = lstat(o->path, &lst) == 0 && S_ISLNK(lst.st_mode);
    if (is_link && !(exists && realpath(o->path, o->final_path))) {
        /* A dangling link: written through, as fopen would. */
        o->file = fopen(o->path, mode);
        return o->file ? 0 : open_failure(o, prog);
    }
    if (!is_link
        && snprintf(o->final_path, sizeof o->final_path, "%s", o->path)
               >= (int)sizeof o->final_path) {
        errno = ENAMETOOLONG;
        return open_failure(o, prog);
    }
    if (open_temporary(o, mode, exists ? &st : NULL) == 0)
        return 0;
    /* A writable file in a directory we may not create files in: written
    ** in place, as before (it is truncated now, not replaced at the end). */
    if (exists && (errno == EACCES || errno == EPERM) && access(o->path, W_OK) == 0) {
        o->file = fopen(o->path, mode);
        if (o->file)
            return 0;
    }
    return open_failure(o, prog);
}

int hy_outfile_close(hy_outfile *o, int keep)
{
    if (!o->file)
        return 0;
    int failed = fflush(o->file) != 0 || ferror(o->file);
    int saved = errno;
    if (o->file != stdout && fclose(o->file) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    o->file = NULL;
    if (o->temp_path[0]) {
        if (keep && !failed && rename(o->temp_path, o->final_path) != 0) {
            failed = 1;
            saved = errno;
        }
        if (!keep || failed)
            remove(o->temp_path);
        o->temp_path[0] = '\0';
    }
    errno = saved;
    return failed ? -1 : 0;
}

int hy_finish_stdout(int status, const char *prog)
{
    errno = 0;
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int saved = errno;
    if (fclose(stdout) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (!failed)
        return status;
    fprintf(stderr, "%s: error writing standard output: %s\n", prog,
            saved ? strerror(saved) : "write error");
    return status ? status : 1;
}
