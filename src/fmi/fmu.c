/*
** Opening an FMU for Model Exchange: unpack it, read and check its
** modelDescription.xml, load its binary and resolve its functions; and
** closing it again. Every failure names the FMU file and the piece that
** is missing or wrong, and leaves nothing behind.
*/
#include "fmi/fmu.h"
#include "fmi/archive.h"
#include "fmi/binary.h"
#include "core/core.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *status_name(int status)
{
    static const char *const names[] = { "OK", "Warning", "Discard", "Error", "Fatal" };
    return status >= 0 && status <= 4 ? names[status] : "an unknown status";
}

int hy_fmu_check(hy_fmu *f, int status, const char *call)
{
    if (status == HY_FMI_OK || status == HY_FMI_WARNING)
        return 0;
    const char *prefix = f->desc.fmi_major == 2 ? "fmi2" : "fmi3";
    hy_format(f->errmsg, sizeof f->errmsg, "%s: %s returned %s%s%s%s", f->path, call, prefix,
              status_name(status), f->logmsg[0] ? ": " : "", f->logmsg);
    if (status == HY_FMI_DISCARD)
        return 1;
    if (status == HY_FMI_FATAL || status < 0 || status > 4)
        f->fatal = 1;
    return -1;
}

int hy_fmu_check_value(hy_fmu *f, const hy_fmi_var *v, double value)
{
    /* Ranges of the integer types, in the order of hy_fmi_type from INT8. */
    static const double lo[] = { -128, 0, -32768, 0, -2147483648.0, 0, -9223372036854775808.0, 0 };
    static const double hi[] = { 127, 255, 32767, 65535, 2147483647.0, 4294967295.0,
                                 9223372036854775807.0, 18446744073709551615.0 };
    if (v->type == HY_FMI_FLOAT64 || v->type == HY_FMI_FLOAT32)
        return 0;
    int ok;
    if (v->type == HY_FMI_BOOLEAN)
        ok = value == 0.0 || value == 1.0;
    else if (v->type >= HY_FMI_INT8 && v->type <= HY_FMI_UINT64)
        ok = value == floor(value) && value >= lo[v->type - HY_FMI_INT8]
             && value <= hi[v->type - HY_FMI_INT8];
    else /* Enumeration: an Int32 in 2.0, an Int64 in 3.0 */
        ok = value == floor(value) && fabs(value) <= 2147483647.0;
    if (!ok)
        hy_format(f->errmsg, sizeof f->errmsg, "%s: %s cannot take the value %.17g (%s)",
                  f->path, v->name, value,
                  v->type == HY_FMI_BOOLEAN ? "a Boolean is 0 or 1" : "not an integer in range");
    return ok ? 0 : -1;
}

void hy_fmu_log(hy_fmu *f, int status, const char *category, const char *message)
{
    if (!f)
        return;
    if (status >= HY_FMI_WARNING || f->logmsg[0] == '\0')
        hy_format(f->logmsg, sizeof f->logmsg, "%s%s%s", category && category[0] ? category : "",
                  category && category[0] ? ": " : "", message);
}

const char *hy_fmu_errmsg(const hy_fmu *f)
{
    return f ? f->errmsg : "";
}

int hy_fmu_terminated(const hy_fmu *f)
{
    return f && f->terminated;
}

int hy_fmu_is_cosim(const hy_fmu *f)
{
    return f && f->cosim;
}

const hy_fmi_description *hy_fmu_description(const hy_fmu *f)
{
    return &f->desc;
}

/* The interface to import: iface, or Model Exchange when there is one. */
static int choose_interface(hy_fmu *f, hy_fmu_interface iface, char *err, size_t err_size)
{
    const hy_fmi_description *d = &f->desc;
    if (iface == HY_FMU_AUTO)
        iface = d->me_identifier ? HY_FMU_MODEL_EXCHANGE : HY_FMU_CO_SIMULATION;
    f->cosim = iface == HY_FMU_CO_SIMULATION;
    f->identifier = f->cosim ? d->cs_identifier : d->me_identifier;
    if (f->identifier)
        return 0;
    /* The description has one of them (description.c refuses none). */
    hy_format(err, err_size, "%s: the FMU has no %s interface (only %s)", f->path,
              f->cosim ? "Co-Simulation" : "Model Exchange",
              f->cosim ? "Model Exchange" : "Co-Simulation");
    return -1;
}

/* modelDescription.xml of the unpacked FMU, read and checked for the
** interface iface on this version. */
static int read_description(hy_fmu *f, hy_fmu_interface iface, char *err, size_t err_size)
{
    char path[4200], source[4200];
    hy_format(path, sizeof path, "%s/modelDescription.xml", f->dir);
    hy_format(source, sizeof source, "%s: modelDescription.xml", f->path);
    size_t size = 0;
    char *xml = hy_fmi_read_file(path, &size);
    if (!xml) {
        hy_format(err, err_size, "%s: %s", source,
                  errno == ENOENT ? "missing (every FMU has one at its root)" : strerror(errno));
        return -1;
    }
    int status = hy_fmi_description_parse(xml, size, source, &f->desc, err, err_size);
    hy_free(xml);
    if (status || choose_interface(f, iface, err, err_size))
        return -1;
    f->ops = f->desc.fmi_major == 2 ? &hy_fmi2_ops : &hy_fmi3_ops;
    return 0;
}

/* path as a file URI (RFC 3986): bytes other than unreserved ones and '/'
** percent-encoded. */
static void file_uri(const char *path, char *out, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = (size_t)snprintf(out, size, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p && n + 4 < size; p++) {
        int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
                    || (*p >= '0' && *p <= '9') || strchr("-._~/", *p);
        if (plain) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        }
    }
    out[n] = '\0';
}

/* The resource location: 2.0 a file URI (2.0.4 section 2.1.5), given even
** when there is no resources/ (a URI need not name an existing directory);
** 3.0 a native path ending in '/' (3.0 section 2.3.1), NULL without one. */
static void locate_resources(hy_fmu *f)
{
    char path[4200];
    hy_format(path, sizeof path, "%s/resources", f->dir);
    struct stat st;
    int exists = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    if (f->desc.fmi_major == 2) {
        file_uri(path, f->resources, sizeof f->resources);
        f->have_resources = 1;
    } else {
        hy_format(f->resources, sizeof f->resources, "%s/", path);
        f->have_resources = exists;
    }
}

void hy_fmu_end_instance(hy_fmu *f)
{
    if (f->instance && !f->fatal) {
        f->ops->terminate(f);
        f->ops->free_instance(f);
    }
    f->instance = NULL;
}

static void close_fmu(hy_fmu *f)
{
    hy_fmu_end_instance(f);
    hy_fmi_binary_close(f->library);
    f->library = NULL;
    hy_fmi_archive_remove(f->dir);
    f->dir[0] = '\0';
}

void hy_fmu_free(hy_fmu *f)
{
    if (!f)
        return;
    hy_fmu_per_sim_free(f);
    close_fmu(f);
    for (int i = 0; f->names && i < f->desc.n_vars; i++)
        hy_free(f->names[i]);
    hy_free(f->names);
    hy_fmi_description_free(&f->desc);
    hy_free(f->states_set);
    hy_free(f->scratch);
    hy_free(f->seed);
    hy_free(f->sensitivity);
    hy_free(f->jac_unknown_vr);
    hy_free(f->jac_known_vr);
    hy_free(f->jac_unknown_row);
    hy_free(f->jac_known_col);
    hy_free(f->state_vr);
    hy_free(f->derivative_vr);
    hy_free(f->output_var);
    hy_free(f->param_var);
    hy_free(f->input_var);
    hy_free(f->inputs_set);
    hy_free(f->path);
    hy_free(f);
}

hy_fmu *hy_fmu_open(const char *path, hy_fmu_interface iface, char *err, size_t err_size)
{
    hy_fmu *f = hy_calloc(1, sizeof *f);
    if (!f || !(f->path = hy_strdup(path)) || hy_fmu_per_sim_init(f)) {
        if (f)
            hy_free(f->path);
        hy_free(f);
        hy_format(err, err_size, "%s: out of memory", path);
        return NULL;
    }
    if (hy_fmi_archive_extract(path, f->dir, sizeof f->dir, err, err_size)) {
        f->dir[0] = '\0';
        hy_fmu_free(f);
        return NULL;
    }
    if (read_description(f, iface, err, err_size)
        || hy_fmi_binary_open(&f->library, f->dir, f->desc.fmi_major, f->identifier, path, err,
                              err_size)
        || f->ops->resolve(f, err, err_size)) {
        hy_fmu_free(f);
        return NULL;
    }
    locate_resources(f);
    return f;
}
