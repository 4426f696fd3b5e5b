/*
** The table of built-in examples.
*/
#include "examples.h"

#include <string.h>

const hydae_example hydae_examples[] = {
    { "string_pendulum",
      "string pendulum of Enge-Rosenblatt et al.: modes bound (phi) and free (x, y)",
      example_string_pendulum, 12.0, 0.01, 1e-8, 1e-10 },
    { "string_pendulum_cartesian",
      "the string pendulum with bound as a constrained mechanical system in x, y",
      example_string_pendulum_cartesian, 12.0, 0.01, 1e-8, 1e-10 },
    { "bouncing_ball", "ball dropped from 1 m, restitution 0.8, reset v := -e v",
      example_bouncing_ball, 3.5, 0.01, 1e-8, 1e-10 },
    { "relay", "relay with dead zone driving a linear plant, in Taylor's f/S/r schema",
      example_relay, 10.0, 0.01, 1e-8, 1e-10 },
    { "algebraic_loop", "Taylor's eq. 10: G(s) = (s+1)/(s+10) in unity feedback, as a DAE",
      example_algebraic_loop, 2.0, 0.01, 1e-8, 1e-10 },
    { "stick_slip", "block on a moving belt with Coulomb friction: stick and slip modes",
      example_stick_slip, 3.0, 0.005, 1e-8, 1e-10 },
    { "dc_motor", "DC motor switching between a detailed (with L) and a reduced model",
      example_dc_motor, 1.0, 0.001, 1e-8, 1e-10 },
    { "brusselator", "1-D Brusselator with diffusion, M = 1000 (2000 unknowns, banded Jacobian)",
      example_brusselator, 10.0, 0.1, 1e-6, 1e-6 },
};

const int hydae_n_examples = (int)(sizeof hydae_examples / sizeof hydae_examples[0]);

const hydae_example *hydae_example_find(const char *name)
{
    for (int i = 0; i < hydae_n_examples; i++)
        if (strcmp(hydae_examples[i].name, name) == 0)
            return &hydae_examples[i];
    return NULL;
}
