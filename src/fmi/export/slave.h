/*
** One instance of an exported FMU, whichever FMI version calls it
** (fmi2.c, fmi3.c): the model file compiled, the run in pieces, the
** values by value reference, the state machine's states, and messages
** through the version's logger. Statuses are the numbers both versions
** give them: 0 OK, 3 Error. Internal to the runtime library.
*/
#ifndef HY_FMI_EXPORT_SLAVE_H
#define HY_FMI_EXPORT_SLAVE_H

#include "export.h"

#include "core/core.h"

#include <stddef.h>
#include <stdint.h>

enum { SLAVE_OK = 0, SLAVE_ERROR = 3 };

/* The states of a slave (FMI 2.0.4 Fig. 10; FMI 3.0 Fig. 22 without event
** mode): a call names the states it is allowed in as a mask of bits. */
typedef enum slave_state {
    SLAVE_INSTANTIATED,
    SLAVE_INITIALIZATION,
    SLAVE_STEPPING,
    SLAVE_TERMINATED,
    SLAVE_FAILED
} slave_state;

#define SLAVE_ANY_STATE 0x1fu
#define SLAVE_BEFORE_RUN ((1u << SLAVE_INSTANTIATED) | (1u << SLAVE_INITIALIZATION))

typedef struct slave slave;
/* The version's logger: message is plain text. */
typedef void (*slave_log_fn)(const slave *s, int status, const char *category,
                             const char *message);

struct slave {
    char *name;
    slave_log_fn log;
    void *api;                  /* the version's callbacks (fmi2.c, fmi3.c) */
    int logging_on, log_events;
    char *text;                 /* the model file */
    size_t text_size;
    char *path;                 /* where it is, for messages */
    hydae_model *model;
    hy_lang_experiment experiment;
    int n_vars;
    hy_export_var *vars;
    int *var_of_vr;             /* value reference -> index in vars, or -1 */
    uint32_t vr_limit;
    double *row, *held;         /* the last row; each column's last value */
    double t_start, t_stop, tolerance;
    double t_end;               /* of the run: t_stop, or t_start + 1e9 */
    int has_stop, has_tolerance;
    hydae_sim *sim;             /* the run, from the end of initialisation */
    double t;                   /* the current communication point */
    slave_state state;
    int run_ended;              /* t_end reached */
};

/* A new instance (NULL when out of memory); api (api_size bytes) copied. */
slave *slave_new(const char *name, slave_log_fn log, const void *api, size_t api_size,
                 int logging_on);
void slave_free(slave *s);
/* A message (status 0: only with logging on and logEvents). */
void slave_say(const slave *s, int status, const char *category, const char *fmt, ...)
    HY_PRINTF(4, 5);
/* An error through the logger: SLAVE_ERROR. */
int slave_fail(slave *s, const char *fmt, ...) HY_PRINTF(2, 3);
/* 1 if the call may be made in s's state, else 0 with a message. */
int slave_allowed(slave *s, const char *function, unsigned mask);

/* The model file at model_path: read, its GUID checked against token,
** compiled. 0 or -1 with a message. */
int slave_load(slave *s, const char *token, const char *model_path);
int slave_set_debug_logging(slave *s, int on, size_t n, const char *const categories[],
                            const char *function);
int slave_setup(slave *s, int tolerance_defined, double tolerance, double t_start,
                int stop_defined, double t_stop, const char *function);
/* The end of initialisation: the run starts. */
int slave_exit_initialization(slave *s);
int slave_reset(slave *s);
int slave_do_step(slave *s, double t, double h, const char *function);

int slave_get_float(slave *s, const uint32_t vr[], size_t n, double values[],
                    const char *function);
int slave_set_float(slave *s, const uint32_t vr[], size_t n, const double values[],
                    const char *function);
/* The mode variables (1-based mode numbers). */
int slave_get_modes(slave *s, const uint32_t vr[], size_t n, int32_t values[],
                    const char *function);

#endif
