/*
** The native backend's driver: after a model is built on the bytecode,
** generate one C file of all its programs (emit.c), find its shared object
** in the cache or compile it (cache.c, compile.c), load it with dlopen and
** attach each function to its program, which from then on runs it (vm.c,
** hy_program_exec). With `auto`, anything missing (no compiler, a failing
** one) leaves the bytecode in place with a note; with `native` it is an
** error.
*/
#define _POSIX_C_SOURCE 200809L /* open_memstream, mkdtemp, clock_gettime */

#include "lang/native/native.h"

#include "core/core.h"
#include "lang/build.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct program_list {
    hy_program **items;
    unsigned char *needs_regs; /* of each, from the generator */
    int n, cap, failed;
} program_list;

static void collect(struct hy_program *prog, void *ctx)
{
    program_list *list = ctx;
    if (hy_grow((void **)&list->items, &list->cap, list->n + 1, sizeof *list->items)) {
        list->failed = 1;
        return;
    }
    list->items[list->n++] = prog;
}

/* Every program of the unit: modes, transitions, the initial action. */
static int collect_unit(hy_lang_unit *unit, program_list *list)
{
    for (int i = 0; i < unit->n_modes; i++)
        if (unit->modes[i].code)
            hy_eval_vm_mode_programs(unit->modes[i].code, collect, list);
    for (int i = 0; i < unit->n_transitions; i++)
        if (unit->transitions[i].code)
            hy_eval_vm_transition_programs(unit->transitions[i].code, collect, list);
    if (unit->initial.code)
        hy_eval_vm_transition_programs(unit->initial.code, collect, list);
    return list->failed ? -1 : 0;
}

/* The generated file of all programs, malloc'ed by the C library. */
static char *generate(program_list *list, size_t *length)
{
    char *text = NULL;
    list->needs_regs = hy_calloc((size_t)list->n + 1, 1);
    FILE *f = list->needs_regs ? open_memstream(&text, length) : NULL;
    if (!f)
        return NULL;
    hy_native_emit_prelude(f);
    int ok = 1;
    for (int k = 0; k < list->n && ok; k++) {
        int needs_regs = 1;
        ok = hy_native_emit_program(f, list->items[k], k, &needs_regs) == 0;
        list->needs_regs[k] = (unsigned char)needs_regs;
    }
    if (fclose(f) != 0 || !ok) {
        free(text);
        return NULL;
    }
    return text;
}

/* What one attempt needs and finds. */
typedef struct job {
    const char *source;
    size_t length;
    const hy_native_compiler *cc;
    uint64_t source_hash, key;
    char err[1024];
    int cache_hit, n_compiler_runs;
} job;

/* dir/KEY.ext */
static void key_path(char *path, const char *dir, uint64_t key, const char *ext)
{
    if (snprintf(path, HY_NATIVE_PATH_MAX, "%s/%016" PRIx64 ".%s", dir, key, ext)
        >= HY_NATIVE_PATH_MAX)
        path[0] = '\0';     /* opens nothing */
}

/* The object's hash, 0 when unreadable. */
static uint64_t file_hash(const char *path)
{
    size_t n = 0;
    char *data = hy_native_read_all(path, &n);
    uint64_t h = data ? hy_fnv1a(HY_FNV_OFFSET, data, n) : 0;
    hy_free(data);
    return h;
}

/* The sum file's text: the hashes of the source and of the object. */
static int sum_text(char *text, size_t size, uint64_t source_hash, uint64_t object_hash)
{
    return snprintf(text, size, "fnv1a64 %016" PRIx64 " %016" PRIx64 "\n", source_hash,
                    object_hash);
}

/* The cached object of the job, loaded, if its source is the job's and
** its sum file is exactly the hashes of that source and of the object;
** NULL otherwise. */
static void *cache_lookup(const char *dir, const job *jb)
{
    char path[HY_NATIVE_PATH_MAX], want[128];
    size_t n = 0;
    key_path(path, dir, jb->key, "c");
    char *cached = hy_native_read_all(path, &n);
    int ok = cached && n == jb->length && memcmp(cached, jb->source, n) == 0;
    hy_free(cached);
    if (!ok)
        return NULL;
    key_path(path, dir, jb->key, "so");
    int want_length = sum_text(want, sizeof want, jb->source_hash, file_hash(path));
    key_path(path, dir, jb->key, "sum");
    char *sum = hy_native_read_all(path, &n);
    ok = sum && n == (size_t)want_length && memcmp(sum, want, n) == 0;
    hy_free(sum);
    if (!ok)
        return NULL;
    key_path(path, dir, jb->key, "so");
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

/* Compile the job in dir: the source to KEY.c, the object to a name of
** this process, loaded, then renamed to KEY.so and recorded in KEY.sum
** (when keep; else removed). The handle, or NULL with jb->err. */
static void *build(const char *dir, job *jb, int keep)
{
    char src[HY_NATIVE_PATH_MAX], tmp[HY_NATIVE_PATH_MAX], so[HY_NATIVE_PATH_MAX];
    key_path(src, dir, jb->key, "c");
    key_path(so, dir, jb->key, "so");
    snprintf(tmp, sizeof tmp, "%s/%016" PRIx64 ".%ld.tmp.so", dir, jb->key, (long)getpid());
    if (hy_native_write_atomic(src, jb->source, jb->length) != 0) {
        snprintf(jb->err, sizeof jb->err, "cannot write %.900s: %s", src, strerror(errno));
        return NULL;
    }
    jb->n_compiler_runs++;
    if (hy_native_compile(jb->cc, src, tmp, jb->err, sizeof jb->err) != 0) {
        unlink(tmp);
        return NULL;
    }
    void *lib = dlopen(tmp, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(jb->err, sizeof jb->err, "cannot load the compiled code: %s", why ? why : "?");
    }
    if (lib && keep) {
        char sum[128], sum_path[HY_NATIVE_PATH_MAX];
        int n = sum_text(sum, sizeof sum, jb->source_hash, file_hash(tmp));
        key_path(sum_path, dir, jb->key, "sum");
        if (rename(tmp, so) != 0 || hy_native_write_atomic(sum_path, sum, (size_t)n) != 0)
            unlink(tmp); /* still loaded; the next run compiles again */
    } else {
        unlink(tmp);
    }
    if (!keep)
        unlink(src);
    return lib;
}

/* A private directory for an uncached build, removed afterwards. */
static void *build_uncached(job *jb)
{
    const char *tmpdir = getenv("TMPDIR");
    char dir[HY_NATIVE_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/hydae-native-XXXXXX", tmpdir && tmpdir[0] ? tmpdir : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(jb->err, sizeof jb->err, "cannot make a directory in %s: %s",
                 tmpdir && tmpdir[0] ? tmpdir : "/tmp", strerror(errno));
        return NULL;
    }
    void *lib = build(dir, jb, 0);
    rmdir(dir);
    return lib;
}

static void *find_or_build(job *jb, int no_cache)
{
    char dir[HY_NATIVE_PATH_MAX];
    if (no_cache || hy_native_cache_dir(dir, sizeof dir, jb->err, sizeof jb->err) != 0)
        return build_uncached(jb);
    void *lib = cache_lookup(dir, jb);
    if (lib) {
        jb->cache_hit = 1;
        return lib;
    }
    return build(dir, jb, 1);
}

/* Attach hy_f<k> of lib to program k. 0, or -1 with a message. */
static int attach(void *lib, const program_list *list, char *err, size_t err_size)
{
    for (int k = 0; k < list->n; k++) {
        char name[32];
        snprintf(name, sizeof name, "hy_f%d", k);
        void *fn = dlsym(lib, name);
        if (!fn) {
            snprintf(err, err_size, "the compiled code lacks %s", name);
            for (int j = 0; j < k; j++)
                list->items[j]->native = NULL;
            return -1;
        }
        /* POSIX: dlsym's object pointer converts to a function pointer. */
        hy_program *prog = list->items[k];
        memcpy(&prog->native, &fn, sizeof fn);
        prog->native_needs_regs = list->needs_regs[k];
        prog->native_tables[HY_TAB_OPERANDS] = prog->operands;
        prog->native_tables[HY_TAB_STORE_DST] = prog->stores.dst;
        prog->native_tables[HY_TAB_STORE_SRC] = prog->stores.src;
        for (int kind = 0; kind < HY_N_LOADS; kind++) {
            prog->native_tables[HY_TAB_LOAD_DST + kind] = prog->loads[kind].dst;
            prog->native_tables[HY_TAB_LOAD_SRC + kind] = prog->loads[kind].src;
        }
    }
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int hy_lang_backend_parse(const char *name)
{
    static const struct { const char *name; hy_lang_backend backend; } names[] = {
        { "vm", HY_BACKEND_VM }, { "native", HY_BACKEND_NATIVE }, { "auto", HY_BACKEND_AUTO }
    };
    for (size_t k = 0; name && k < sizeof names / sizeof *names; k++)
        if (strcmp(name, names[k].name) == 0)
            return names[k].backend;
    return -1;
}

/* The backend asked for: the option, else HYDAE_BACKEND, else the VM. */
static int resolve_backend(const hy_lang_options *options, hy_diag *diag)
{
    if (options && options->backend != HY_BACKEND_DEFAULT)
        return options->backend;
    const char *env = getenv("HYDAE_BACKEND");
    if (!env || !env[0])
        return HY_BACKEND_VM;
    int backend = hy_lang_backend_parse(env);
    if (backend < 0) {
        hy_diag_error(diag, 0, 0, "HYDAE_BACKEND=%.40s: not a backend (native, vm or auto)", env);
        return -1;
    }
    return backend;
}

static int no_cache_wanted(const hy_lang_options *options)
{
    const char *env = getenv("HYDAE_NO_CACHE");
    return (options && options->no_cache) || (env && strcmp(env, "1") == 0);
}

/* A failure: an error for `native`, a note and the bytecode for `auto`. */
static int give_up(hy_diag *diag, int backend, const char *why)
{
    if (backend == HY_BACKEND_NATIVE) {
        hy_diag_error(diag, 0, 0, "native backend: %s", why);
        return -1;
    }
    hy_diag_note(diag, 0, 0, "native backend unavailable (%s): running the bytecode", why);
    return 0;
}

int hy_native_attach(hy_lang_unit *unit, const hy_lang_options *options, hy_diag *diag)
{
    int backend = resolve_backend(options, diag);
    if (backend == HY_BACKEND_VM || backend < 0)
        return backend < 0 ? -1 : 0;
    double start = now();
    hy_native_compiler cc;
    char why[1200];
    if (hy_native_compiler_get(&cc, why, sizeof why) != 0)
        return give_up(diag, backend, why);
    snprintf(unit->native.compiler, sizeof unit->native.compiler, "%.255s", cc.line);
    if (!hy_native_compiler_found(&cc)) {
        snprintf(why, sizeof why, "no C compiler '%s' (set HYDAE_CC, or use --backend vm)",
                 cc.argv[0]);
        return give_up(diag, backend, why);
    }
    program_list list = { NULL, NULL, 0, 0, 0 };
    job jb;
    memset(&jb, 0, sizeof jb);
    char *source = collect_unit(unit, &list) == 0 ? generate(&list, &jb.length) : NULL;
    if (!source) {
        hy_free(list.items);
        hy_free(list.needs_regs);
        hy_diag_nomem(diag);
        return -1;
    }
    jb.source = source;
    jb.cc = &cc;
    jb.source_hash = hy_fnv1a(HY_FNV_OFFSET, source, jb.length);
    jb.key = hy_fnv1a(jb.source_hash, cc.line, strlen(cc.line) + 1);
    void *lib = find_or_build(&jb, no_cache_wanted(options));
    int status = 0;
    if (!lib || attach(lib, &list, jb.err, sizeof jb.err) != 0) {
        if (lib)
            dlclose(lib);
        status = give_up(diag, backend, jb.err);
    } else {
        unit->native_library = lib;
        unit->native.is_native = 1;
        unit->native.n_programs = list.n;
        unit->native.cache_hit = jb.cache_hit;
        unit->native.n_compiler_runs = jb.n_compiler_runs;
        unit->native.source_bytes = jb.length;
        unit->native.seconds = now() - start;
    }
    free(source);
    hy_free(list.items);
    hy_free(list.needs_regs);
    return status;
}
