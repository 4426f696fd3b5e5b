/*
** Model files through the public API (hydae.h, "Model files"): compile a
** .hym file or text into a hydae_model with its diagnostics as text the
** caller owns, and apply the file's experiment block to a sim.
*/
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "lang/lang.h"

#include "core/core.h"
#include "sim/sim.h" /* the sim's model */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the compiler writes its messages: a memory stream when the caller
** wants them, nothing otherwise. */
typedef struct diag_capture {
    FILE *stream;
    char *buffer; /* open_memstream's, malloc'ed by the C library */
    size_t size;
} diag_capture;

static int capture_open(diag_capture *c, char **diagnostics)
{
    memset(c, 0, sizeof *c);
    if (!diagnostics)
        return 0;
    *diagnostics = NULL;
    c->stream = open_memstream(&c->buffer, &c->size);
    return c->stream ? 0 : -1;
}

/* Close the stream; the text (if any) into *diagnostics through the
** library's allocator, so that hydae_string_free frees it. */
static void capture_close(diag_capture *c, char **diagnostics)
{
    if (!c->stream)
        return;
    fclose(c->stream);
    if (c->size > 0)
        *diagnostics = hy_strdup(c->buffer);
    free(c->buffer);
}

/* A load that failed before compiling (a NULL argument, or no stream for
** the diagnostics): one error. */
static hydae_model *load_failed(int *n_errors)
{
    if (n_errors)
        *n_errors = 1;
    return NULL;
}

hydae_model *hydae_model_load_string(const char *text, size_t length, const char *name,
                                     char **diagnostics, int *n_errors)
{
    if (n_errors)
        *n_errors = 0;
    if (!text && length > 0) {
        if (diagnostics)
            *diagnostics = hy_strdup("error: hydae_model_load_string: text is NULL\n");
        return load_failed(n_errors);
    }
    diag_capture capture;
    if (capture_open(&capture, diagnostics) != 0)
        return load_failed(n_errors);
    hy_lang_unit *unit = hy_lang_compile_string(text ? text : "", length, name ? name : "<input>",
                                                capture.stream, NULL, n_errors);
    capture_close(&capture, diagnostics);
    return hy_lang_unit_model(unit);
}

/* A file compiled with options; who names the caller in messages. */
static hydae_model *load_file(const char *who, const char *path, const hy_lang_options *options,
                              char **diagnostics, int *n_errors)
{
    if (!path) {
        if (diagnostics) {
            char message[128];
            snprintf(message, sizeof message, "error: %s: path is NULL\n", who);
            *diagnostics = hy_strdup(message);
        }
        return load_failed(n_errors);
    }
    diag_capture capture;
    if (capture_open(&capture, diagnostics) != 0)
        return load_failed(n_errors);
    hy_lang_unit *unit = hy_lang_compile_file_opts(path, capture.stream, NULL, n_errors, NULL,
                                                   options);
    capture_close(&capture, diagnostics);
    return hy_lang_unit_model(unit);
}

hydae_model *hydae_model_load_file(const char *path, char **diagnostics, int *n_errors)
{
    if (n_errors)
        *n_errors = 0;
    return load_file("hydae_model_load_file", path, NULL, diagnostics, n_errors);
}

hydae_model *hydae_model_load_file_backend(const char *path, const char *backend,
                                           char **diagnostics, int *n_errors)
{
    hy_lang_options options = { HY_BACKEND_DEFAULT, 0 };
    if (n_errors)
        *n_errors = 0;
    if (backend) {
        int parsed = hy_lang_backend_parse(backend);
        if (parsed < 0) {
            if (diagnostics)
                *diagnostics = hy_strdup("error: hydae_model_load_file_backend: the backend is "
                                         "\"native\", \"vm\" or \"auto\"\n");
            return load_failed(n_errors);
        }
        options.backend = (hy_lang_backend)parsed;
    }
    return load_file("hydae_model_load_file_backend", path, &options, diagnostics, n_errors);
}

void hydae_string_free(char *text)
{
    hy_free(text);
}

const char *hydae_model_experiment_setting(const hydae_model *m, int i, const char **value)
{
    const hy_lang_experiment *ex = hy_lang_model_experiment(m);
    if (value)
        *value = NULL;
    if (!ex || i < 0 || i >= ex->n_settings)
        return NULL;
    if (value)
        *value = ex->settings[i].value;
    return ex->settings[i].name;
}

int hydae_sim_apply_experiment(hydae_sim *s)
{
    if (!s)
        return HYDAE_ERR_ARG;
    const hy_lang_experiment *ex = hy_lang_model_experiment(s->model);
    return ex ? hy_lang_experiment_apply(ex, s, NULL) : 0;
}
