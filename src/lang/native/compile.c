/*
** The native backend's compiler driver: the system C compiler (HYDAE_CC,
** default cc, with HYDAE_CFLAGS, default -O3 -ffp-contract=off) run
** without a shell (posix_spawnp) on a generated file, its messages into a
** file beside the object, so that a failure is said with the compiler's
** own words.
*/
#define _POSIX_C_SOURCE 200809L /* posix_spawn, waitpid */

#include "lang/native/native.h"

#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Append the blank-separated words of s to cc. 0, or -1 if too many. */
static int add_words(hy_native_compiler *cc, const char *s, size_t *used)
{
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        size_t n = strcspn(s, " \t");
        if (n == 0)
            break;
        if (*used + n + 1 > sizeof cc->text
            || cc->n_words + 8 >= (int)(sizeof cc->argv / sizeof *cc->argv))
            return -1;
        memcpy(cc->text + *used, s, n);
        cc->text[*used + n] = '\0';
        cc->argv[cc->n_words++] = cc->text + *used;
        *used += n + 1;
        s += n;
    }
    return 0;
}

int hy_native_compiler_get(hy_native_compiler *cc, char *err, size_t err_size)
{
    memset(cc, 0, sizeof *cc);
    const char *compiler = getenv("HYDAE_CC"), *flags = getenv("HYDAE_CFLAGS");
    if (!compiler || !compiler[0])
        compiler = "cc";
    if (!flags)
        flags = HY_NATIVE_CFLAGS;
    size_t used = 0;
    if (add_words(cc, compiler, &used) != 0 || add_words(cc, flags, &used) != 0
        || cc->n_words == 0) {
        snprintf(err, err_size, "HYDAE_CC or HYDAE_CFLAGS: too long or empty");
        return -1;
    }
    size_t at = 0;
    for (int k = 0; k < cc->n_words && at < sizeof cc->line; k++)
        at += (size_t)snprintf(cc->line + at, sizeof cc->line - at, "%s%s", k ? " " : "",
                               cc->argv[k]);
    return 0;
}

int hy_native_compiler_found(const hy_native_compiler *cc)
{
    const char *program = cc->argv[0];
    if (strchr(program, '/'))
        return access(program, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char candidate[HY_NATIVE_PATH_MAX];
        struct stat st;
        if (n > 0 && (size_t)snprintf(candidate, sizeof candidate, "%.*s/%s", (int)n, path, program)
                         < sizeof candidate
            && stat(candidate, &st) == 0 && S_ISREG(st.st_mode) && access(candidate, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

/* The first lines of the compiler's messages into err. */
static void messages_of(const char *log, char *err, size_t err_size)
{
    size_t n = 0;
    char *text = hy_native_read_all(log, &n);
    size_t at = strlen(err);
    if (text && n > 0 && at + 2 < err_size)
        snprintf(err + at, err_size - at, ":\n%.600s", text);
    hy_free(text);
}

int hy_native_compile(const hy_native_compiler *cc, const char *src, const char *so, char *err,
                      size_t err_size)
{
    char *argv[sizeof cc->argv / sizeof *cc->argv];
    int argc = 0;
    for (int k = 0; k < cc->n_words; k++)
        argv[argc++] = cc->argv[k];
    char *rest[] = { "-fPIC", "-shared", "-o", (char *)so, (char *)src, "-lm", NULL };
    for (int k = 0; rest[k]; k++)
        argv[argc++] = rest[k];
    argv[argc] = NULL;
    char log[HY_NATIVE_PATH_MAX];
    snprintf(log, sizeof log, "%s.log", so);
    posix_spawn_file_actions_t actions;
    if (posix_spawn_file_actions_init(&actions) != 0) {
        snprintf(err, err_size, "cannot run the C compiler: out of memory");
        return -1;
    }
    posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid;
    int spawned = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        snprintf(err, err_size, "cannot run the C compiler '%s': %s", argv[0], strerror(spawned));
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            snprintf(err, err_size, "waiting for the C compiler: %s", strerror(errno));
            return -1;
        }
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, err_size, "the C compiler failed (%s)", cc->line);
        messages_of(log, err, err_size);
        unlink(log);
        return -1;
    }
    unlink(log);
    return 0;
}
