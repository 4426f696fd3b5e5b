/*
** The workspace of consistent initialisation (init.c): which components
** are its equations, its unknowns (values or derivatives), the Newton
** matrix kept between calls, and scratch. Owned by init.c.
*/
#ifndef HY_INIT_H
#define HY_INIT_H

struct hy_init_matrix;

typedef struct hy_init_work {
    int cap;                    /* components the arrays hold */
    int *rows;                  /* its equations: the components of blocks that
                                ** do not own their state (block.h) */
    int n;                      /* their count, and the unknowns' */
    double **unknowns;          /* the n unknowns: pointers into y or yp */
    int *component;             /* the component each belongs to */
    double *work;               /* 6 n */
    /* The Newton matrix, kept while the unknowns and the configuration's
    ** pattern stay the same. */
    struct hy_init_matrix *matrix;
} hy_init_work;

/* Room for a configuration of n components: 0 or HYDAE_ERR_NOMEM. */
int hy_init_reserve(hy_init_work *w, int n);
void hy_init_work_free(hy_init_work *w);

#endif
