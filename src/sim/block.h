/*
** Blocks: what the continuous part of an active mode is. The configuration
** is one block per chart; the simulator's loops (sim.c, events.c, init.c,
** jacobian.c) go through the block's descriptor and never ask what kind of
** block it is.
**
**   kind         y of the block                 file
**   residual     the mode's variables           block.c   F(t, y, y') = 0
**   ode          the mode's variables           block.c   y' = f(t, y)
**   mechanical   the formulation's (I3, SI1,    mechanics.c
**                or the ODE form's partition)
**
** An FMU (model exchange) fits as a fourth kind that owns its state: enter
** reads the FMU's continuous states, rhs calls its derivatives, after_step
** its completed-integrator-step, free its instance.
*/
#ifndef HY_BLOCK_H
#define HY_BLOCK_H

#include "integrators/integrator.h"
#include "model/model.h"

struct hydae_sim;
struct hy_matrix;
struct hy_pattern;
typedef struct hy_block hy_block;

typedef struct hy_block_ops {
    const char *kind;
    /* 1: enter builds the block's y and y' itself, consistent by
    ** construction and in its own layout (not the mode's variables one to
    ** one): consistent initialisation leaves its components alone, and a
    ** start value set by name is not compared with its y. 0: y is the
    ** mode's variables, loaded by name and made consistent by init.c. */
    int owns_state;
    /* Components of y the mode takes when solved with `method` (b->data
    ** may be NULL: called before enter, e.g. by validate.c). */
    int (*size)(const hy_block *b, const hy_integrator_ops *method);
    /* Take the mode on at s->t: instance data, y and y' at offset off of
    ** the configuration, and per component its tolerances, error-test
    ** exclusion, algebraic flag and index (s->rtol_vec ... s->var_index);
    ** sets b->is_explicit and b->uses_var_index. 0 or a hydae_status with
    ** the message set. */
    int (*enter)(hy_block *b, int off, const hy_integrator_ops *method);
    /* F(t, y, y') of the block's components; the user's status (non-zero:
    ** failed) unchanged. */
    int (*residual)(hy_block *b, double t, const double *y, const double *yp, double *res);
    /* y' = f(t, y); called only when b->is_explicit. */
    int (*rhs)(hy_block *b, double t, const double *y, double *ydot);
    /* The pattern of dF/dy + cj dF/dy' (CSC, the block's size), or NULL:
    ** dense. */
    const struct hy_pattern *(*pattern)(const hy_block *b);
    /* 1 if jacobian below gives dF/dy + cj dF/dy' analytically. */
    int (*has_jacobian)(const hy_block *b);
    /* The block's Jacobian into jac at rows and columns off.. (entries
    ** outside jac's storage dropped); the user's status, or -1 out of
    ** memory. Called only when has_jacobian says 1 (else may be NULL). */
    int (*jacobian)(hy_block *b, size_t off, double t, double cj, const double *y,
                    const double *yp, struct hy_matrix *jac);
    /* The mode's own variables and their derivatives at the block's (y,
    ** y'): pointers into y, yp or the block's storage. 0 or a hydae_status
    ** with the message set. */
    int (*expand)(hy_block *b, double t, const double *y, const double *yp,
                  const double **y_mode, const double **yp_mode);
    /* The mode's guards at the block's (y, y'). 0 or a hydae_status with
    ** the message set (HYDAE_ERR_GUARD: the guard function failed). */
    int (*guards)(hy_block *b, double t, const double *y, const double *yp, double *g);
    /* The mode's variables and outputs at the block's (y, y') into the
    ** value store. 0 or a hydae_status with the message set. */
    int (*store)(hy_block *b, double t, const double *y, const double *yp);
    /* Name of component i of the block's y. */
    const char *(*component_name)(const hy_block *b, int i);
    /* At an accepted point t (optional): projection, drift statistics,
    ** re-partition. 1 if the integrator must restart (y, y' changed
    ** meaning; they are updated), 0, or a negative hydae_status. */
    int (*after_step)(hy_block *b, double t, double *y, double *yp);
    /* Release the instance data (optional). */
    void (*free)(hy_block *b);
} hy_block_ops;

/* Contracts: ops other than size are called only between enter and
** free, on the block's own slice of y, y' (and of res, g: at its offsets);
** rhs only when is_explicit; jacobian only when has_jacobian; after_step
** and free may be NULL. A kind keeps what it needs in data and reaches
** the simulator's shared arrays (value store, tolerances, statistics)
** through sim. */
struct hy_block {
    const hy_block_ops *ops;    /* NULL: no mode entered yet */
    struct hydae_sim *sim;
    const hydae_mode *mode;
    void *data;                 /* the kind's instance data */
    int is_explicit;            /* rhs serves: y' = f(t, y) */
    int uses_var_index;         /* its var_index entries differ from 1 */
};

extern const hy_block_ops hy_block_residual, hy_block_ode, hy_block_mechanical;

/* The kind of a mode's continuous part. */
const hy_block_ops *hy_block_ops_for(const hydae_mode *mode);
/* A block for `mode` not entered yet (for size and pattern queries). */
hy_block hy_block_probe(struct hydae_sim *s, const hydae_mode *mode);
/* Leave the block's mode: free its instance data; b->ops becomes NULL. */
void hy_block_leave(hy_block *b);

/* Shared by the kinds (block.c): the mode's guards and store through
** ops->expand. */
int hy_block_mode_guards(hy_block *b, double t, const double *y, const double *yp, double *g);
int hy_block_mode_store(hy_block *b, double t, const double *y, const double *yp);

#endif
