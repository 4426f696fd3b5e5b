/*
** The register files of the bytecode VM, one set per thread, so a compiled
** program (read-only once built) runs in many threads at once.
**
** A thread keeps a direct-mapped table of HY_N_REGFILES register files keyed by
** program id (ids come from one atomic counter and are never reused, so a
** freed program's file can never be taken for a new program's). A run
** looks up the slot of its id: when the slot holds that program, its
** registers are used as they are (the constants are still in place: a run
** writes only leaf and result registers); otherwise the slot is refilled,
** grown if needed, from the program's constants, its scratch zeroed. So
** after the first run of each program a thread pays one table look-up per
** run; the results are those of registers owned by the program, to the bit.
** A thread's table is freed when the thread ends (a pthread key's
** destructor; pthread_once, which ThreadSanitizer understands).
**
** The files come from the C library's malloc, not the allocator hook
** (hydae_set_allocator): they belong to the thread, not to a model, and
** outlive every model it ran, so a hook that counts or pools a model's
** memory must not see them.
*/
#include "lang/vm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* Process-wide, but no mutable state shared by runs: the id counter is
** atomic, the key is created once, and each thread reaches only its table. */
static atomic_ullong next_program_id = 1;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t files_key;
static int have_files_key;
_Thread_local hy_regfile *hy_thread_regfiles;

unsigned long long hy_program_new_id(void)
{
    return atomic_fetch_add_explicit(&next_program_id, 1, memory_order_relaxed);
}

static void files_free(void *data)
{
    hy_regfile *table = data;
    if (!table)
        return;
    for (int k = 0; k < HY_N_REGFILES; k++)
        free(table[k].regs);
    free(table);
}

static void make_key(void)
{
    have_files_key = pthread_key_create(&files_key, files_free) == 0;
}

/* This thread's table, made on its first run. NULL when out of memory. */
static hy_regfile *files_of_thread(void)
{
    if (hy_thread_regfiles)
        return hy_thread_regfiles;
    pthread_once(&key_once, make_key);
    hy_regfile *table = calloc(HY_N_REGFILES, sizeof *table);
    if (!table)
        return NULL;
    /* Registered for freeing at thread exit (without a key, the table of a
    ** thread that ends is lost: it still works). */
    if (have_files_key)
        pthread_setspecific(files_key, table);
    hy_thread_regfiles = table;
    return table;
}

double *hy_program_refill(const hy_program *prog)
{
    hy_regfile *table = files_of_thread();
    if (!table)
        return NULL;
    hy_regfile *f = &table[prog->id & (HY_N_REGFILES - 1)];
    size_t need = (size_t)prog->n_regs + (size_t)prog->n_scratch;
    if (need > f->capacity) {
        double *grown = need < SIZE_MAX / sizeof *grown ? malloc((need + 1) * sizeof *grown) : NULL;
        if (!grown)
            return NULL;
        free(f->regs);
        f->regs = grown;
        f->capacity = need;
    }
    f->program_id = prog->id;
    /* the registers below the first result; every result is written
    ** before it is read */
    memcpy(f->regs, prog->constants, (size_t)prog->first_result * sizeof *f->regs);
    memset(f->regs + prog->n_regs, 0, (size_t)prog->n_scratch * sizeof *f->regs);
    return f->regs;
}
