/*
** libFuzzer target: an FMU's modelDescription.xml (src/fmi/description.c,
** expat), as `hydae run X.fmu` reads it once the archive is unpacked. The
** input is the XML file. A description that is accepted must be
** consistent, else the target aborts (a finding like a crash): every
** state and derivative index names a variable, a state's derivative
** variable points back at it, the counts are not negative, every name is
** found again, and a refusal always carries a message naming the source.
*/
#include "fmi/description.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_fmi_description: inconsistent description: %s\n", what);
        abort();
    }
}

static void check_consistent(const hy_fmi_description *d)
{
    require(d->fmi_major == 2 || d->fmi_major == 3, "fmi_major");
    require(d->model_name && d->token && d->fmi_version, "names");
    require(d->me_identifier || d->cs_identifier, "an interface");
    require(d->n_vars >= 0 && d->n_states >= 0 && d->n_event_indicators >= 0, "counts");
    for (int k = 0; k < d->n_states; k++) {
        int s = d->state_var[k], der = d->derivative_var[k];
        require(s >= 0 && s < d->n_vars && der >= 0 && der < d->n_vars, "state index");
        require(d->vars[der].derivative_of == s, "derivative points at its state");
        require(d->vars[s].type == HY_FMI_FLOAT64 && !d->vars[s].is_array, "state type");
    }
    for (int i = 0; i < d->n_vars; i++) {
        const hy_fmi_var *v = &d->vars[i];
        require(v->name && v->name[0], "variable name");
        require(v->derivative_of >= -1 && v->derivative_of < d->n_vars, "derivative_of");
        require(v->nominal > 0, "nominal");
        int found = hy_fmi_description_find(d, v->name);
        require(found == i, "names are unique and found again");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hy_fmi_description d;
    char err[1024];
    err[0] = '\0';
    if (hy_fmi_description_parse((const char *)data, size, "fuzz.xml", &d, err, sizeof err) == 0) {
        check_consistent(&d);
        hy_fmi_description_free(&d);
    } else {
        require(strncmp(err, "fuzz.xml", 8) == 0, "a refusal names the source");
        require(d.vars == NULL && d.model_name == NULL, "a refusal leaves nothing");
    }
    return 0;
}
