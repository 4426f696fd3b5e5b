/*
** Library files for `import` (imports.h).
*/
#define _GNU_SOURCE /* dladdr; access, readlink */

#include "lang/imports.h"

#include "core/core.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { HY_LANG_MAX_LIBRARY = 64 * 1024 * 1024 };

/* The library in the source tree (a build that is not installed). */
#ifndef HYDAE_LIB_DIR
#define HYDAE_LIB_DIR "lib"
#endif
/* The installed library (cmake --install, docs/install.md): relative to
** the directory of libhydae.so and of an executable in bin/, and where the
** build meant to install it. */
#ifndef HYDAE_LIB_FROM_LIBDIR
#define HYDAE_LIB_FROM_LIBDIR "../share/hydae/lib"
#endif
#ifndef HYDAE_LIB_FROM_BINDIR
#define HYDAE_LIB_FROM_BINDIR "../share/hydae/lib"
#endif
#ifndef HYDAE_INSTALLED_LIB_DIR
#define HYDAE_INSTALLED_LIB_DIR "/usr/local/share/hydae/lib"
#endif

void hy_lang_imports_init(hy_lang_imports *im, const char *model_path)
{
    memset(im, 0, sizeof *im);
    im->model_path = model_path;
}

void hy_lang_imports_free(hy_lang_imports *im)
{
    for (int i = 0; i < im->n_texts; i++)
        hy_free(im->texts[i]);
    hy_free(im->texts);
    memset(im, 0, sizeof *im);
}

static int keep(hy_lang_imports *im, char *text)
{
    if (hy_grow((void **)&im->texts, &im->cap_texts, im->n_texts + 1, sizeof *im->texts)) {
        hy_free(text);
        return -1;
    }
    im->texts[im->n_texts++] = text;
    return 0;
}

/* dir/name.hym into path; 0 if it is a readable file. */
static int candidate(char *path, size_t size, const char *dir, size_t dir_len, const char *name)
{
    int n = snprintf(path, size, "%.*s%s%s.hym", (int)dir_len, dir, dir_len ? "/" : "", name);
    return n > 0 && (size_t)n < size && access(path, R_OK) == 0 ? 0 : -1;
}

/* The library installed with the code that runs: DIR/relative/name.hym
** for DIR the directory of the file holding this function (libhydae.so,
** or the executable libhydae.a is linked into) and of the executable, so
** that an installed tree may be moved as a whole. */
static int find_installed(const char *name, char *path, size_t size)
{
    static const char *const relative[] = { HYDAE_LIB_FROM_LIBDIR, HYDAE_LIB_FROM_BINDIR };
    static const char in_this_object = 0; /* an address dladdr can place */
    const char *objects[2] = { NULL, NULL };
    Dl_info info;
    if (dladdr(&in_this_object, &info) && info.dli_fname)
        objects[0] = info.dli_fname;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        objects[1] = exe;
    }
    for (int k = 0; k < 2; k++) {
        const char *slash = objects[k] ? strrchr(objects[k], '/') : NULL;
        for (int r = 0; slash && r < 2; r++) {
            char dir[4096];
            int len = snprintf(dir, sizeof dir, "%.*s/%s", (int)(slash - objects[k]), objects[k],
                               relative[r]);
            if (len > 0 && (size_t)len < sizeof dir
                && candidate(path, size, dir, (size_t)len, name) == 0)
                return 0;
        }
    }
    return -1;
}

static int find(hy_lang_imports *im, const char *name, char *path, size_t size)
{
    const char *model = im->model_path ? im->model_path : "";
    const char *slash = strrchr(model, '/');
    if (slash ? candidate(path, size, model, (size_t)(slash - model), name) == 0
              : candidate(path, size, "", 0, name) == 0)
        return 0;
    const char *search = getenv("HYDAE_PATH");
    while (search && *search) {
        const char *colon = strchr(search, ':');
        size_t len = colon ? (size_t)(colon - search) : strlen(search);
        if (len > 0 && candidate(path, size, search, len, name) == 0)
            return 0;
        search = colon ? colon + 1 : NULL;
    }
    static const char installed[] = HYDAE_INSTALLED_LIB_DIR;
    if (find_installed(name, path, size) == 0
        || candidate(path, size, HYDAE_LIB_DIR, strlen(HYDAE_LIB_DIR), name) == 0
        || candidate(path, size, installed, sizeof installed - 1, name) == 0)
        return 0;
    snprintf(im->message, sizeof im->message, "no %.200s.hym next to the model, in HYDAE_PATH "
             "or in hydae's lib/", name);
    return -1;
}

static int load(void *user, const char *name, const char **text, size_t *len,
                const char **file_name)
{
    hy_lang_imports *im = user;
    char path[4096];
    if (find(im, name, path, sizeof path) != 0) {
        *file_name = im->message;
        return -1;
    }
    FILE *f = fopen(path, "rb");
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (!f || size < 0 || size > HY_LANG_MAX_LIBRARY || fseek(f, 0, SEEK_SET) != 0) {
        if (f)
            fclose(f);
        snprintf(im->message, sizeof im->message, "%.900s could not be read", path);
        *file_name = im->message;
        return -1;
    }
    char *contents = hy_malloc((size_t)size + 1);
    size_t got = contents ? fread(contents, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!contents)
        return -2;
    contents[got] = '\0';
    *len = got;
    char *shown = NULL;
    if (keep(im, contents) != 0 || !(shown = hy_strdup(path)) || keep(im, shown) != 0)
        return -2;
    *text = contents;
    *file_name = shown;
    return 0;
}

hy_import_loader hy_lang_imports_loader(hy_lang_imports *im)
{
    hy_import_loader loader = { load, im };
    return loader;
}
