/*
** `hydae export MODEL.hym -o MODEL.fmu`: the FMU as a ZIP archive written
** with libzip (FMI 2.0.4 section 2.3, FMI 3.0 section 2.5, "FMU
** Distribution"):
**
**   modelDescription.xml                  describe.c
**   binaries/linux64/<identifier>.so      the generic runtime (fmi2.c, fmi3.c,
**                                         slave.c); binaries/x86_64-linux/ in 3.0
**   resources/model.hym                   the model file, compiled by the
**                                         runtime at fmi2Instantiate
**   resources/F.fmu                       each FMU component's file, at its
**                                         path relative to the model file
**
** The model is compiled here first, so that a model with errors is refused
** at export time with the compiler's messages, and so that the variables
** listed are those the runtime will find.
*/
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "export.h"

#include "core/core.h"
#include "lang/build.h"
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

/* The description of a model text as a malloc'ed string, or NULL. */
static char *describe(int fmi_version, const hydae_model *m, const hy_lang_experiment *ex,
                      const char *identifier, const char *guid, size_t *size)
{
    char *xml = NULL;
    FILE *out = open_memstream(&xml, size);
    if (!out)
        return NULL;
    int status = hy_export_write_description(out, fmi_version, m, ex, identifier, guid);
    if (fclose(out) != 0 || status) {
        free(xml);
        return NULL;
    }
    return xml;
}

/* src as the archive's entry name (libzip frees src unless it fails). */
static int add_source(zip_t *zip, const char *name, zip_source_t *src)
{
    if (!src)
        return -1;
    if (zip_file_add(zip, name, src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8) < 0) {
        zip_source_free(src);
        return -1;
    }
    return 0;
}

/* The files of the model's FMU components (`Fmu c(file = "F.fmu")`,
** relative to the model file) into resources/ at the same relative
** paths, where the runtime's compiler looks for them beside
** resources/model.hym. 0, or -1 with the message written. */
static int add_fmu_components(zip_t *zip, const hy_lang_unit *unit, const char *model_path,
                              FILE *diagnostics)
{
    const char *slash = strrchr(model_path, '/');
    size_t dir = slash ? (size_t)(slash - model_path) + 1 : 0;
    for (int i = 0; i < unit->fmus.n; i++) {
        const hy_lang_fmu *fmu = &unit->fmus.list[i];
        const char *relative = fmu->path + dir;
        if (strncmp(fmu->path, model_path, dir) != 0 || relative[0] == '/'
            || strstr(relative, "..")) {
            fprintf(diagnostics, "hydae: %s: FMU component '%s': %s is not beside or below the "
                    "model file, so it cannot be packed into resources/\n", model_path,
                    fmu->name, fmu->path);
            return -1;
        }
        char entry[4200];
        hy_format(entry, sizeof entry, "resources/%s", relative);
        if (add_source(zip, entry, zip_source_file(zip, fmu->path, 0, -1)))
            return -1;
    }
    return 0;
}

/* The archive; the buffers must live until zip_close. 0 or 2. */
static int write_archive(const char *fmu_path, const char *platform, const char *xml,
                         size_t xml_size, const char *text, size_t text_size,
                         const char *identifier, const char *runtime_path,
                         const hy_lang_unit *unit, const char *model_path, FILE *diagnostics)
{
    int code = 0;
    zip_t *zip = zip_open(fmu_path, ZIP_CREATE | ZIP_TRUNCATE, &code);
    if (!zip) {
        zip_error_t error;
        zip_error_init_with_code(&error, code);
        fprintf(diagnostics, "hydae: %s: %s\n", fmu_path, zip_error_strerror(&error));
        zip_error_fini(&error);
        return 2;
    }
    char binary[512];
    char folder[64];
    hy_format(folder, sizeof folder, "binaries/%s", platform);
    hy_format(binary, sizeof binary, "%s/%s.so", folder, identifier);
    int failed = zip_dir_add(zip, "binaries", ZIP_FL_ENC_UTF_8) < 0
                 || zip_dir_add(zip, folder, ZIP_FL_ENC_UTF_8) < 0
                 || zip_dir_add(zip, "resources", ZIP_FL_ENC_UTF_8) < 0
                 || add_source(zip, "modelDescription.xml",
                               zip_source_buffer(zip, xml, xml_size, 0))
                 || add_source(zip, "resources/" HY_EXPORT_RESOURCE_NAME,
                               zip_source_buffer(zip, text, text_size, 0))
                 || add_source(zip, binary, zip_source_file(zip, runtime_path, 0, -1));
    if (!failed && add_fmu_components(zip, unit, model_path, diagnostics)) {
        zip_discard(zip);
        return 2;
    }
    if (failed) {
        fprintf(diagnostics, "hydae: %s: %s\n", fmu_path, zip_strerror(zip));
        zip_discard(zip);
        return 2;
    }
    if (zip_close(zip) != 0) {
        /* The runtime is read here: a missing one shows now. */
        fprintf(diagnostics, "hydae: %s: %s (runtime library %s)\n", fmu_path, zip_strerror(zip),
                runtime_path);
        zip_discard(zip);
        return 2;
    }
    return 0;
}

int hy_export_fmu(const char *model_path, const char *fmu_path, int fmi_version,
                  const char *runtime_path, FILE *diagnostics)
{
    size_t text_size = 0;
    char *text = hy_lang_read_file(model_path, &text_size, diagnostics);
    if (!text)
        return 2;
    hy_lang_experiment ex;
    int n_errors = 0;
    hy_lang_unit *unit = hy_lang_compile_string(text, text_size, model_path, diagnostics, &ex,
                                                &n_errors);
    if (!unit) {
        fprintf(diagnostics, "hydae: %s: %d error%s; no FMU written\n", model_path, n_errors,
                n_errors == 1 ? "" : "s");
        hy_free(text);
        return 2;
    }
    hydae_model *m = hy_lang_unit_model(unit);
    int status = 2;
    char *xml = NULL;
    size_t xml_size = 0;
    if (hydae_model_check(m) != 0) {
        fprintf(diagnostics, "hydae: %s: %s; no FMU written\n", model_path, hydae_model_errmsg(m));
    } else {
        char guid[39], identifier[256];
        hy_export_guid(text, text_size, guid);
        hy_export_identifier(m->name, identifier, sizeof identifier);
        xml = describe(fmi_version, m, &ex, identifier, guid, &xml_size);
        if (!xml)
            fprintf(diagnostics, "hydae: out of memory writing modelDescription.xml\n");
        else
            status = write_archive(fmu_path,
                                   fmi_version == HY_EXPORT_FMI3 ? "x86_64-linux" : "linux64",
                                   xml, xml_size, text, text_size, identifier, runtime_path,
                                   unit, model_path, diagnostics);
    }
    free(xml);
    hydae_model_free(m);
    hy_free(text);
    return status;
}
