/*
** One FMU state per sim. A model is shared by its sims, several threads at
** once (hydae sweep runs one sim per thread; docs/engine.md "Threads"),
** while an FMU instance and what hydae caches about it (the time, states
** and inputs it was given, its messages, the event being iterated) belong
** to one run. The first sim that calls the FMU uses the model's hy_fmu
** itself (so a model run by one sim behaves as before); every other sim a
** copy that shares the description, the library, the names and the
** columns and has its own instance, caches and messages (each copy
** instantiates its FMU in its own initial or entry action). A sim is known
** by its value store: the `p` of every callback, fixed for the sim's life.
** Copies are added under a lock and found without one (a list that only
** grows, published with release stores); they go with the model.
*/
#include "fmi/fmu.h"
#include "sim/sim.h"
#include "core/core.h"

#include <string.h>

struct hy_fmu_copy {
    const void *sim;            /* the sim's value store */
    hy_fmu *fmu;
    struct hy_fmu_copy *next;
};

/* The FMU (or copy) this thread used last: the mode's error text, which
** has only the model's FMU to go by, reads that one's message (the
** callback that failed ran just before on the same thread). */
static _Thread_local const hy_fmu *used_last;

int hy_fmu_per_sim_init(hy_fmu *f)
{
    if (pthread_mutex_init(&f->copies_lock, NULL))
        return -1;
    f->have_copies_lock = 1;
    return 0;
}

/* A copy's own buffers (the shared ones stay with the model's FMU). */
static void free_copy(hy_fmu *copy)
{
    hy_fmu_end_instance(copy);
    hy_free(copy->states_set);
    hy_free(copy->scratch);
    hy_free(copy->seed);
    hy_free(copy->sensitivity);
    hy_free(copy->inputs_set);
    hy_free(copy);
}

void hy_fmu_per_sim_free(hy_fmu *f)
{
    struct hy_fmu_copy *c = atomic_load_explicit(&f->copies, memory_order_acquire);
    while (c) {
        struct hy_fmu_copy *next = c->next;
        if (used_last == c->fmu)
            used_last = NULL;
        free_copy(c->fmu);
        hy_free(c);
        c = next;
    }
    atomic_store_explicit(&f->copies, NULL, memory_order_relaxed);
    if (f->have_copies_lock)
        pthread_mutex_destroy(&f->copies_lock);
    f->have_copies_lock = 0;
    if (used_last == f)
        used_last = NULL;
}

/* What a copy shares with the model's FMU: fixed once the model is built
** (the rest, written by the run that owns f, is not read here). */
static void copy_shared(hy_fmu *copy, const hy_fmu *f)
{
    copy->origin = (hy_fmu *)f;
    copy->path = f->path;
    memcpy(copy->dir, f->dir, sizeof copy->dir);
    copy->desc = f->desc;
    copy->identifier = f->identifier;
    copy->cosim = f->cosim;
    copy->library = f->library;
    copy->f2 = f->f2;
    copy->f3 = f->f3;
    copy->ops = f->ops;
    memcpy(copy->resources, f->resources, sizeof copy->resources);
    copy->have_resources = f->have_resources;
    copy->state_vr = f->state_vr;
    copy->derivative_vr = f->derivative_vr;
    copy->chart = f->chart;
    copy->cs_step = f->cs_step;
    copy->n_outputs = f->n_outputs;
    copy->n_params = f->n_params;
    copy->output_var = f->output_var;
    copy->param_var = f->param_var;
    copy->component = f->component;
    copy->names = f->names;
    copy->n_inputs = f->n_inputs;
    copy->input_var = f->input_var;
    copy->n_jac_unknowns = f->n_jac_unknowns;
    copy->n_jac_knowns = f->n_jac_knowns;
    copy->jac_unknown_vr = f->jac_unknown_vr;
    copy->jac_known_vr = f->jac_known_vr;
    copy->jac_unknown_row = f->jac_unknown_row;
    copy->jac_known_col = f->jac_known_col;
}

static hy_fmu *make_copy(hy_fmu *f)
{
    const hy_fmi_description *d = &f->desc;
    if (d->once_per_process[f->cosim]) {
        hy_format(f->errmsg, sizeof f->errmsg, "%s: the FMU can be instantiated only once per "
                  "process (canBeInstantiatedOnlyOncePerProcess): one sim at a time", f->path);
        return NULL;
    }
    hy_fmu *copy = hy_calloc(1, sizeof *copy);
    if (!copy)
        return NULL;
    copy_shared(copy, f);
    copy->states_set = hy_alloc_array((size_t)d->n_states + 1, sizeof *copy->states_set);
    copy->scratch = hy_alloc_array((size_t)d->n_states + 1, sizeof *copy->scratch);
    copy->seed = hy_alloc_array((size_t)d->n_vars + 1, sizeof *copy->seed);
    copy->sensitivity = hy_alloc_array((size_t)d->n_vars + 1, sizeof *copy->sensitivity);
    copy->inputs_set = hy_alloc_array((size_t)d->n_vars + 1, sizeof *copy->inputs_set);
    if (!copy->states_set || !copy->scratch || !copy->seed || !copy->sensitivity
        || !copy->inputs_set) {
        free_copy(copy);
        return NULL;
    }
    return copy;
}

/* The copy for sim, made and published under the lock. */
static hy_fmu *add_copy(hy_fmu *f, const void *sim)
{
    hy_fmu *found = NULL;
    pthread_mutex_lock(&f->copies_lock);
    struct hy_fmu_copy *head = atomic_load_explicit(&f->copies, memory_order_relaxed);
    for (struct hy_fmu_copy *c = head; c && !found; c = c->next)
        if (c->sim == sim)
            found = c->fmu;
    if (!found) {
        struct hy_fmu_copy *c = hy_malloc(sizeof *c);
        hy_fmu *copy = c ? make_copy(f) : NULL;
        if (copy) {
            *c = (struct hy_fmu_copy){ sim, copy, head };
            atomic_store_explicit(&f->copies, c, memory_order_release);
            found = copy;
        } else {
            hy_free(c);
            if (!f->errmsg[0])
                hy_format(f->errmsg, sizeof f->errmsg, "%s: out of memory", f->path);
        }
    }
    pthread_mutex_unlock(&f->copies_lock);
    return found;
}

hy_fmu *hy_fmu_for_sim(hy_fmu *f, const void *sim)
{
    const void *owner = atomic_load_explicit(&f->owner, memory_order_acquire);
    if (owner == sim || (!owner && atomic_compare_exchange_strong(&f->owner, &owner, sim))) {
        used_last = f;
        return f;
    }
    hy_fmu *found = NULL;
    for (struct hy_fmu_copy *c = atomic_load_explicit(&f->copies, memory_order_acquire);
         c && !found; c = c->next)
        if (c->sim == sim)
            found = c->fmu;
    if (!found && f->have_copies_lock)
        found = add_copy(f, sim);
    used_last = found ? found : f;
    return found;
}

hy_fmu *hy_fmu_for_action(hy_fmu *f, const hydae_action *a)
{
    return hy_fmu_for_sim(f, a->sim->store);
}

const char *hy_fmu_errmsg_used_last(const hy_fmu *f)
{
    const hy_fmu *last = used_last;
    if (last && (last == f || last->origin == f))
        return last->errmsg;
    return f->errmsg;
}
