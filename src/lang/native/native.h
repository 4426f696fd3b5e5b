/*
** The native backend (docs/language.md, "Backends"): the compiled model's
** programs (vm.h) as generated C (emit.c), compiled by the system C
** compiler into a shared object (compile.c), cached per user under a hash
** of the source, the compiler and its flags (cache.c), loaded with dlopen
** and attached to the programs (attach.c), which then run machine code
** with the bytecode's results to the bit.
*/
#ifndef HY_LANG_NATIVE_H
#define HY_LANG_NATIVE_H

#include "lang/lang.h"
#include "lang/vm.h"

#include <stdint.h>
#include <stdio.h>

/* emit.c: the file's head (includes, helpers), then one function per
** program, void hy_f<name>(r, t, cj, y, yp, p, in, out) (hy_native_fn);
** *needs_regs: whether it uses the register file r. 0, or -1 out of memory
** or when writing fails. */
void hy_native_emit_prelude(FILE *f);
int hy_native_emit_program(FILE *f, const hy_program *prog, int name, int *needs_regs);

/* cache.c: FNV-1a, 64 bits (Fowler, Noll, Vo; IETF draft-eastlake-fnv),
** continued from h (start with HY_FNV_OFFSET). */
enum { HY_NATIVE_PATH_MAX = 4096 };
#define HY_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t hy_fnv1a(uint64_t h, const void *data, size_t n);
/* The cache directory ($XDG_CACHE_HOME/hydae, else $HOME/.cache/hydae),
** made with mode 0700 if missing; refused (-1, a message in err) unless it
** is a directory of this user that no one else may write. */
int hy_native_cache_dir(char *dir, size_t size, char *err, size_t err_size);
/* A whole file into a malloc'ed buffer (hy_malloc); NULL if unreadable. */
char *hy_native_read_all(const char *path, size_t *length);
/* Write data to path through a temporary name and a rename, so that
** readers see the old file or the whole new one. 0, or -1. */
int hy_native_write_atomic(const char *path, const void *data, size_t n);

/* compile.c: the compiler's command words from HYDAE_CC (default "cc")
** and HYDAE_CFLAGS (default HY_NATIVE_CFLAGS), split at blanks. */
#define HY_NATIVE_CFLAGS "-O3 -ffp-contract=off"
typedef struct hy_native_compiler {
    char text[1024];         /* the words, NUL-separated */
    char *argv[64];          /* the words then room for the rest, NULL-ended */
    int n_words;
    char line[1024];         /* "cc -O3 ...", for keys and messages */
} hy_native_compiler;
int hy_native_compiler_get(hy_native_compiler *cc, char *err, size_t err_size);
/* Is the compiler's program found (a path, or on PATH)? */
int hy_native_compiler_found(const hy_native_compiler *cc);
/* Compile source file src into shared object so (-fPIC -shared, -lm). 0,
** or -1 with the compiler's first lines of messages in err. */
int hy_native_compile(const hy_native_compiler *cc, const char *src, const char *so, char *err,
                      size_t err_size);

/* attach.c: compile the programs of a unit built on the bytecode to
** native code and attach them, as the options (or HYDAE_BACKEND) ask. 0
** (native code attached, or the bytecode kept: the VM, or auto with a note
** on diag), or -1 with an error on diag. */
struct hy_diag;
int hy_native_attach(hy_lang_unit *unit, const hy_lang_options *options, struct hy_diag *diag);

#endif
