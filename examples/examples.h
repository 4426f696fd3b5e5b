/*
** The built-in C examples: each builds a hydae_model with the C API and
** names the experiment it is meant for. `hydae run --example NAME` runs
** them; the tests use them too.
*/
#ifndef HYDAE_EXAMPLES_H
#define HYDAE_EXAMPLES_H

#include "hydae.h"

typedef struct hydae_example {
    const char *name;
    const char *summary;
    hydae_model *(*build)(void);
    double t_end;       /* suggested experiment */
    double dt_out;
    double rtol, atol;
} hydae_example;

extern const hydae_example hydae_examples[];
extern const int hydae_n_examples;

/* The example called name, or NULL. */
const hydae_example *hydae_example_find(const char *name);

hydae_model *example_string_pendulum(void);
hydae_model *example_string_pendulum_cartesian(void);
hydae_model *example_bouncing_ball(void);
hydae_model *example_relay(void);
hydae_model *example_algebraic_loop(void);
hydae_model *example_stick_slip(void);
hydae_model *example_dc_motor(void);
/* The 1-D Brusselator of 2M unknowns (brusselator.c), with its analytic
** sparse Jacobian or only its pattern; example_brusselator is M = 1000. */
hydae_model *example_brusselator_sized(long m, int analytic_jacobian);
hydae_model *example_brusselator(void);

#endif
