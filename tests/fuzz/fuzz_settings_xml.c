/*
** libFuzzer target: the <Param_Transient .../> settings reader
** (src/io/param_xml.c, expat) as `hydae run --settings FILE.xml` uses it.
** The input is an XML file read from memory into a fresh sim of each of
** two small models compiled once: a bouncing ball with a sample clock
** (an explicit ODE with events and time events, for every integrator) and the
** Cartesian pendulum (a mechanical index-3 mode: dae_index, the velocity
** and multiplier tolerances, the ODE form with the explicit methods). When
** the file is accepted, the settings are validated and a short bounded run
** made (fuzz_bounds.h), so that every accepted combination of settings
** reaches the integrators.
*/
#include "fuzz_bounds.h"
#include "io/param_xml.h"
#include "lang/lang.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { N_MODELS = 2, XML_MAX_STEPS = 300 };
#define XML_MAX_SPAN 2.0

static const char *const model_sources[N_MODELS] = {
    "model fuzz_ball\n"
    "  parameter Real g = 9.81;\n"
    "  discrete Real k(start = 0);\n"
    "  chart ball\n"
    "    mode flight\n"
    "      Real h(start = 1, unit = \"m\");\n"
    "      Real v(start = 0, rtol = 1e-7);\n"
    "    equation\n"
    "      der(h) = v;\n"
    "      der(v) = -g - 0.01 * v * abs(v);\n"
    "      output energy = g * h + v^2 / 2;\n"
    "    end flight;\n"
    "    transition bounce from flight to flight when h < 0 do\n"
    "      h := 0;\n"
    "      v := -0.8 * v;\n"
    "    end;\n"
    "  end ball;\n"
    "  chart clock\n"
    "    mode ticking\n"
    "    end ticking;\n"
    "    transition tick when sample(0, 0.25) do k := k + 1; end;\n"
    "  end clock;\n"
    "end fuzz_ball;\n",

    "model fuzz_pendulum\n"
    "  Real x(start = 1), y(start = 0), vx(start = 0), vy(start = 1);\n"
    "  Real lambda;\n"
    "equation\n"
    "  der(x) = vx;\n"
    "  der(y) = vy;\n"
    "  der(vx) = -x * lambda;\n"
    "  der(vy) = -1 - y * lambda;\n"
    "  x^2 + y^2 = 1;\n"
    "end fuzz_pendulum;\n",
};

static hydae_model *models[N_MODELS];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_bounds_init();
    for (int i = 0; i < N_MODELS; i++) {
        int n_errors = 0;
        hy_lang_unit *unit = hy_lang_compile_string(model_sources[i], strlen(model_sources[i]),
                                                    "fuzz_settings_xml", stderr, NULL, &n_errors);
        if (!unit) {
            fprintf(stderr, "fuzz_settings_xml: model %d does not compile\n", i);
            abort();
        }
        models[i] = hy_lang_unit_model(unit); /* kept for the process's life */
    }
    return 0;
}

static void settings_into(hydae_model *model, const uint8_t *data, size_t size)
{
    int status = 0;
    hydae_sim *sim = hydae_sim_create(model, &status);
    if (!sim)
        abort(); /* the models are valid: creating a sim of them cannot fail */
    /* fmemopen refuses a zero-sized buffer: an empty file is one byte
    ** short of a NUL, which expat refuses just the same. */
    static const char empty[1] = "";
    FILE *in = fmemopen(size ? (void *)data : (void *)empty, size ? size : 1, "rb");
    if (!in)
        abort();
    status = hy_settings_read_xml(sim, in, "fuzz.xml");
    fclose(in);
    if (status == 0)
        (void)fuzz_bounded_run(sim, XML_MAX_STEPS, XML_MAX_SPAN);
    hydae_sim_free(sim);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int i = 0; i < N_MODELS; i++)
        settings_into(models[i], data, size);
    return 0;
}
