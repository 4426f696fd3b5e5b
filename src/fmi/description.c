/*
** modelDescription.xml reader (expat). Follows the schema of FMI 2.0.4
** (section 2.2: <ScalarVariable> with a typed child <Real start nominal
** derivative>, <ModelStructure><Derivatives><Unknown index>, the attribute
** numberOfEventIndicators) and FMI 3.0 (section 2.4: typed variables
** <Float64 start nominal derivative> directly under <ModelVariables>,
** <ModelStructure><ContinuousStateDerivative valueReference> and
** <EventIndicator>). Only what import needs is kept; unknown elements and
** attributes are skipped, as the standard's extensibility asks. Every
** defect is reported as source:line:column.
*/
#include "fmi/description.h"
#include "core/core.h"
#include "core/strmap.h"

#include <expat.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_TRACKED_DEPTH = 8 };

/* What an open element is, for the elements whose children matter. */
typedef enum element_kind {
    EL_OTHER,
    EL_ROOT,
    EL_MODEL_VARIABLES,
    EL_SCALAR_VARIABLE, /* 2.0 */
    EL_VARIABLE3,       /* 3.0 typed variable */
    EL_MODEL_STRUCTURE,
    EL_DERIVATIVES      /* 2.0 <Derivatives> */
} element_kind;

typedef struct reader {
    XML_Parser parser;
    hy_fmi_description *d;
    const char *source;
    char *err;
    size_t err_size;
    int failed;
    int depth;
    element_kind open[MAX_TRACKED_DEPTH];
    int cap_vars;
    int current_var;          /* 2.0: the <ScalarVariable> being read, else -1 */
    int have_type;            /* 2.0: its typed child seen */
    int64_t *state_refs;      /* derivatives listed in the model structure */
    int n_state_refs, cap_state_refs;
    int n_indicator_elements; /* 3.0 <EventIndicator> */
    int have_indicator_count; /* 2.0 numberOfEventIndicators */
    unsigned long root_line, root_column;
} reader;

static void fail(reader *r, const char *fmt, ...) HY_PRINTF(2, 3);

static void fail(reader *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = 1;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (r->parser)
        hy_format(r->err, r->err_size, "%s:%lu:%lu: %s", r->source,
                  (unsigned long)XML_GetCurrentLineNumber(r->parser),
                  (unsigned long)XML_GetCurrentColumnNumber(r->parser) + 1, what);
    else
        hy_format(r->err, r->err_size, "%s: %s", r->source, what);
    if (r->parser)
        XML_StopParser(r->parser, XML_FALSE);
}

static const char *attribute(const char **attrs, const char *name)
{
    for (int i = 0; attrs[i]; i += 2)
        if (strcmp(attrs[i], name) == 0)
            return attrs[i + 1];
    return NULL;
}

/* A whole-string finite double. */
static int parse_double(const char *text, double *out)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(value))
        return -1;
    *out = value;
    return 0;
}

/* A whole-string integer in [lo, hi]. */
static int parse_integer(const char *text, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || value < lo || value > hi)
        return -1;
    *out = value;
    return 0;
}

static char *copy_attribute(reader *r, const char *text)
{
    char *copy = hy_strdup(text);
    if (!copy)
        fail(r, "out of memory");
    return copy;
}

static int lookup(const char *text, const char *const names[], int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(text, names[i]) == 0)
            return i;
    return -1;
}

/* fmiVersion, names and counts of <fmiModelDescription>. */
static void read_root(reader *r, const char **attrs)
{
    hy_fmi_description *d = r->d;
    r->root_line = XML_GetCurrentLineNumber(r->parser);
    r->root_column = XML_GetCurrentColumnNumber(r->parser) + 1;
    const char *version = attribute(attrs, "fmiVersion");
    if (!version) {
        fail(r, "<fmiModelDescription> has no fmiVersion attribute");
        return;
    }
    if (strncmp(version, "2.", 2) == 0)
        d->fmi_major = 2;
    else if (strncmp(version, "3.", 2) == 0)
        d->fmi_major = 3;
    else {
        fail(r, "fmiVersion \"%s\" is not supported (FMI 2.0 and 3.0 are)", version);
        return;
    }
    const char *name = attribute(attrs, "modelName");
    const char *token = attribute(attrs, d->fmi_major == 2 ? "guid" : "instantiationToken");
    d->fmi_version = copy_attribute(r, version);
    if (name)
        d->model_name = copy_attribute(r, name);
    if (token)
        d->token = copy_attribute(r, token);
    const char *count = attribute(attrs, "numberOfEventIndicators");
    if (count && d->fmi_major == 2) {
        long long n;
        if (parse_integer(count, 0, INT_MAX / 2, &n)) {
            fail(r, "numberOfEventIndicators \"%s\" is not a count", count);
            return;
        }
        d->n_event_indicators = (int)n;
        r->have_indicator_count = 1;
    }
}

static void read_interface(reader *r, const char **attrs, int is_me)
{
    const char *id = attribute(attrs, "modelIdentifier");
    if (!id || !id[0]) {
        fail(r, "<%s> has no modelIdentifier", is_me ? "ModelExchange" : "CoSimulation");
        return;
    }
    /* The identifier names a file: no path separators, no dot-dot. */
    if (strchr(id, '/') || strchr(id, '\\') || strcmp(id, "..") == 0 || strcmp(id, ".") == 0) {
        fail(r, "modelIdentifier \"%s\" is not a file name", id);
        return;
    }
    char **slot = is_me ? &r->d->me_identifier : &r->d->cs_identifier;
    if (*slot) {
        fail(r, "a second <%s> element", is_me ? "ModelExchange" : "CoSimulation");
        return;
    }
    *slot = copy_attribute(r, id);
    const char *once = attribute(attrs, "canBeInstantiatedOnlyOncePerProcess");
    r->d->once_per_process[is_me ? 0 : 1] = once && strcmp(once, "true") == 0;
    if (is_me) {
        const char *not_needed = attribute(attrs, "completedIntegratorStepNotNeeded");
        r->d->me_needs_completed_step = !(not_needed && strcmp(not_needed, "true") == 0);
        const char *directional = attribute(attrs, r->d->fmi_major == 2
                                                       ? "providesDirectionalDerivative"
                                                       : "providesDirectionalDerivatives");
        r->d->me_directional = directional && strcmp(directional, "true") == 0;
    }
}

static void read_experiment(reader *r, const char **attrs)
{
    hy_fmi_description *d = r->d;
    static const char *const names[] = { "startTime", "stopTime", "tolerance", "stepSize" };
    double *values[] = { &d->start_time, &d->stop_time, &d->tolerance, &d->step_size };
    int *flags[] = { &d->has_start_time, &d->has_stop_time, &d->has_tolerance,
                     &d->has_step_size };
    for (int i = 0; i < 4; i++) {
        const char *text = attribute(attrs, names[i]);
        if (!text)
            continue;
        if (parse_double(text, values[i]) || (i >= 2 && *values[i] <= 0)) {
            fail(r, "<DefaultExperiment %s=\"%s\">: not a %s number", names[i], text,
                 i >= 2 ? "positive" : "finite");
            return;
        }
        *flags[i] = 1;
    }
}

/* The type of a 2.0 <ScalarVariable>'s child or a 3.0 variable element;
** -1 for another element. */
static int type_of_element(int fmi_major, const char *name)
{
    if (fmi_major == 2) {
        static const char *const names2[] = { "Real", "Integer", "Boolean", "String",
                                              "Enumeration" };
        static const hy_fmi_type types2[] = { HY_FMI_FLOAT64, HY_FMI_INT32, HY_FMI_BOOLEAN,
                                              HY_FMI_STRING, HY_FMI_ENUMERATION };
        int k = lookup(name, names2, 5);
        return k < 0 ? -1 : (int)types2[k];
    }
    static const char *const names3[] = { "Float64", "Float32", "Int8", "UInt8", "Int16",
                                          "UInt16", "Int32", "UInt32", "Int64", "UInt64",
                                          "Boolean", "String", "Enumeration", "Binary",
                                          "Clock" };
    return lookup(name, names3, 15); /* in the order of hy_fmi_type */
}

/* name, valueReference, causality, variability, initial: common to both. */
static void read_variable_header(reader *r, const char **attrs, hy_fmi_var *v)
{
    static const char *const causalities[] = { "local", "parameter", "calculatedParameter",
                                               "structuralParameter", "input", "output",
                                               "independent" };
    static const char *const variabilities[] = { "continuous", "constant", "fixed", "tunable",
                                                 "discrete" };
    static const char *const initials[] = { "", "exact", "approx", "calculated" };
    const char *name = attribute(attrs, "name");
    const char *vr = attribute(attrs, "valueReference");
    if (!name || !name[0]) {
        fail(r, "a variable without a name");
        return;
    }
    long long ref;
    if (!vr || parse_integer(vr, 0, UINT32_MAX, &ref)) {
        fail(r, "variable \"%s\": valueReference %s%s%s is missing or not an unsigned 32-bit "
             "integer", name, vr ? "\"" : "", vr ? vr : "", vr ? "\"" : "");
        return;
    }
    v->vr = (uint32_t)ref;
    v->name = copy_attribute(r, name);
    const char *text;
    int k;
    if ((text = attribute(attrs, "causality"))
        && (k = lookup(text, causalities, 7)) >= 0)
        v->causality = (hy_fmi_causality)k;
    else if (text)
        fail(r, "variable \"%s\": unknown causality \"%s\"", name, text);
    if ((text = attribute(attrs, "variability")) && (k = lookup(text, variabilities, 5)) >= 0)
        v->variability = (hy_fmi_variability)k;
    else if (text)
        fail(r, "variable \"%s\": unknown variability \"%s\"", name, text);
    if ((text = attribute(attrs, "initial")) && (k = lookup(text, initials, 4)) > 0)
        v->initial = (hy_fmi_initial)k;
    else if (text)
        fail(r, "variable \"%s\": unknown initial \"%s\"", name, text);
}

/* start, nominal and derivative: on the typed child in 2.0, on the
** variable itself in 3.0. */
static void read_variable_values(reader *r, const char **attrs, hy_fmi_var *v)
{
    const char *start = attribute(attrs, "start");
    if (start && hy_fmi_type_is_numeric(v->type)) {
        if (v->type == HY_FMI_BOOLEAN) {
            v->has_start = strcmp(start, "true") == 0 || strcmp(start, "false") == 0
                           || strcmp(start, "1") == 0 || strcmp(start, "0") == 0;
            v->start = strcmp(start, "true") == 0 || strcmp(start, "1") == 0;
        } else {
            v->has_start = parse_double(start, &v->start) == 0;
        }
        /* An array's start is a list: checked when <Dimension> is absent. */
        if (!v->has_start && r->d->fmi_major == 2)
            fail(r, "variable \"%s\": start \"%s\" is not a %s value", v->name, start,
                 v->type == HY_FMI_BOOLEAN ? "Boolean" : "numeric");
    }
    const char *nominal = attribute(attrs, "nominal");
    if (nominal && (parse_double(nominal, &v->nominal) || v->nominal <= 0))
        fail(r, "variable \"%s\": nominal \"%s\" is not a positive number", v->name, nominal);
    const char *derivative = attribute(attrs, "derivative");
    if (derivative) {
        long long ref;
        if (parse_integer(derivative, r->d->fmi_major == 2 ? 1 : 0,
                          r->d->fmi_major == 2 ? INT_MAX : UINT32_MAX, &ref))
            fail(r, "variable \"%s\": derivative \"%s\" is not a %s", v->name, derivative,
                 r->d->fmi_major == 2 ? "variable index (1, 2, ...)" : "value reference");
        else
            v->derivative_ref = ref;
    }
}

static hy_fmi_var *new_variable(reader *r)
{
    hy_fmi_description *d = r->d;
    if (hy_reserve((void **)&d->vars, &r->cap_vars, d->n_vars + 1, sizeof *d->vars)) {
        fail(r, "out of memory");
        return NULL;
    }
    hy_fmi_var *v = &d->vars[d->n_vars++];
    memset(v, 0, sizeof *v);
    v->nominal = 1.0;
    v->derivative_ref = -1;
    v->derivative_of = -1;
    return v;
}

static void add_state_ref(reader *r, const char **attrs, const char *attr_name)
{
    const char *text = attribute(attrs, attr_name);
    long long ref;
    if (!text || parse_integer(text, r->d->fmi_major == 2 ? 1 : 0,
                               r->d->fmi_major == 2 ? INT_MAX : UINT32_MAX, &ref)) {
        fail(r, "a state derivative in <ModelStructure> without a valid %s", attr_name);
        return;
    }
    if (hy_reserve((void **)&r->state_refs, &r->cap_state_refs, r->n_state_refs + 1,
                   sizeof *r->state_refs)) {
        fail(r, "out of memory");
        return;
    }
    r->state_refs[r->n_state_refs++] = ref;
}

/* A start tag inside <ModelVariables> (depth 2) or a 2.0 variable (3). */
static element_kind start_in_variables(reader *r, element_kind parent, const char *name,
                                       const char **attrs)
{
    int major = r->d->fmi_major;
    if (parent == EL_MODEL_VARIABLES && major == 2) {
        if (strcmp(name, "ScalarVariable") != 0)
            return EL_OTHER;
        hy_fmi_var *v = new_variable(r);
        if (v)
            read_variable_header(r, attrs, v);
        r->current_var = r->d->n_vars - 1;
        r->have_type = 0;
        return EL_SCALAR_VARIABLE;
    }
    if (parent == EL_MODEL_VARIABLES) {
        int type = type_of_element(3, name);
        if (type < 0)
            return EL_OTHER;
        hy_fmi_var *v = new_variable(r);
        if (!v)
            return EL_OTHER;
        v->type = (hy_fmi_type)type;
        read_variable_header(r, attrs, v);
        if (!r->failed)
            read_variable_values(r, attrs, v);
        return EL_VARIABLE3;
    }
    if (parent == EL_VARIABLE3) {
        if (strcmp(name, "Dimension") == 0)
            r->d->vars[r->d->n_vars - 1].is_array = 1;
        return EL_OTHER;
    }
    /* parent == EL_SCALAR_VARIABLE: the typed child of 2.0. */
    int type = type_of_element(2, name);
    if (type < 0 || r->current_var < 0)
        return EL_OTHER;
    if (r->have_type) {
        fail(r, "variable \"%s\" has two types", r->d->vars[r->current_var].name);
        return EL_OTHER;
    }
    r->have_type = 1;
    hy_fmi_var *v = &r->d->vars[r->current_var];
    v->type = (hy_fmi_type)type;
    read_variable_values(r, attrs, v);
    return EL_OTHER;
}

static element_kind start_in_structure(reader *r, element_kind parent, const char *name,
                                       const char **attrs)
{
    if (r->d->fmi_major == 2) {
        if (parent == EL_MODEL_STRUCTURE && strcmp(name, "Derivatives") == 0)
            return EL_DERIVATIVES;
        if (parent == EL_DERIVATIVES && strcmp(name, "Unknown") == 0)
            add_state_ref(r, attrs, "index");
        return EL_OTHER;
    }
    if (parent != EL_MODEL_STRUCTURE)
        return EL_OTHER;
    if (strcmp(name, "ContinuousStateDerivative") == 0)
        add_state_ref(r, attrs, "valueReference");
    else if (strcmp(name, "EventIndicator") == 0)
        r->n_indicator_elements++;
    return EL_OTHER;
}

static void XMLCALL start_element(void *user, const XML_Char *name, const XML_Char **attrs)
{
    reader *r = user;
    if (r->failed)
        return;
    element_kind parent = r->depth > 0 && r->depth <= MAX_TRACKED_DEPTH
                              ? r->open[r->depth - 1] : EL_OTHER;
    element_kind kind = EL_OTHER;
    if (r->depth == 0) {
        if (strcmp(name, "fmiModelDescription") != 0) {
            fail(r, "the root element is <%s>, not <fmiModelDescription>", name);
            return;
        }
        read_root(r, attrs);
        kind = EL_ROOT;
    } else if (parent == EL_ROOT) {
        if (strcmp(name, "ModelExchange") == 0 || strcmp(name, "CoSimulation") == 0)
            read_interface(r, attrs, name[0] == 'M');
        else if (strcmp(name, "DefaultExperiment") == 0)
            read_experiment(r, attrs);
        else if (strcmp(name, "ModelVariables") == 0)
            kind = EL_MODEL_VARIABLES;
        else if (strcmp(name, "ModelStructure") == 0)
            kind = EL_MODEL_STRUCTURE;
    } else if (parent == EL_MODEL_VARIABLES || parent == EL_SCALAR_VARIABLE
               || parent == EL_VARIABLE3) {
        kind = start_in_variables(r, parent, name, attrs);
    } else if (parent == EL_MODEL_STRUCTURE || parent == EL_DERIVATIVES) {
        kind = start_in_structure(r, parent, name, attrs);
    }
    if (r->depth < MAX_TRACKED_DEPTH)
        r->open[r->depth] = kind;
    r->depth++;
}

static void XMLCALL end_element(void *user, const XML_Char *name)
{
    reader *r = user;
    (void)name;
    if (r->failed || r->depth <= 0)
        return;
    r->depth--;
    element_kind kind = r->depth < MAX_TRACKED_DEPTH ? r->open[r->depth] : EL_OTHER;
    if (kind == EL_SCALAR_VARIABLE) {
        if (!r->have_type)
            fail(r, "variable \"%s\" has no type element (<Real/>, <Integer/> ...)",
                 r->d->vars[r->current_var].name);
        r->current_var = -1;
    }
}

typedef struct vr_entry {
    uint32_t vr;
    int index;
} vr_entry;

static int compare_vr(const void *a, const void *b)
{
    const vr_entry *x = a, *y = b;
    if (x->vr != y->vr)
        return x->vr < y->vr ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The first variable (in document order) with value reference vr, or -1. */
static int find_vr(const vr_entry *sorted, int n, uint32_t vr)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (sorted[mid].vr < vr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && sorted[lo].vr == vr ? sorted[lo].index : -1;
}

/* The variable a derivative reference names (2.0: 1-based index, 3.0:
** value reference), or -1. */
static int resolve_ref(const hy_fmi_description *d, const vr_entry *sorted, int64_t ref)
{
    if (d->fmi_major == 2)
        return ref >= 1 && ref <= d->n_vars ? (int)(ref - 1) : -1;
    return ref >= 0 && ref <= UINT32_MAX ? find_vr(sorted, d->n_vars, (uint32_t)ref) : -1;
}

static int check_names(reader *r)
{
    hy_strmap names = { 0 };
    int status = 0;
    for (int i = 0; i < r->d->n_vars && !status; i++) {
        if (hy_strmap_get(&names, r->d->vars[i].name) >= 0) {
            fail(r, "two variables are called \"%s\"", r->d->vars[i].name);
            status = -1;
        } else if (hy_strmap_put(&names, r->d->vars[i].name, i)) {
            fail(r, "out of memory");
            status = -1;
        }
    }
    hy_strmap_free(&names);
    return status;
}

/* derivative attributes and the model structure's states. */
static int resolve_states(reader *r, const vr_entry *sorted)
{
    hy_fmi_description *d = r->d;
    for (int i = 0; i < d->n_vars; i++) {
        hy_fmi_var *v = &d->vars[i];
        if (v->derivative_ref < 0)
            continue;
        int of = resolve_ref(d, sorted, v->derivative_ref);
        if (of < 0 || of == i || d->vars[of].type != HY_FMI_FLOAT64) {
            fail(r, "variable \"%s\": derivative=\"%lld\" names no other %s variable", v->name,
                 (long long)v->derivative_ref, d->fmi_major == 2 ? "Real" : "Float64");
            return -1;
        }
        v->derivative_of = of;
    }
    if (r->n_state_refs == 0)
        return 0;
    d->state_var = hy_alloc_array((size_t)r->n_state_refs, sizeof *d->state_var);
    d->derivative_var = hy_alloc_array((size_t)r->n_state_refs, sizeof *d->derivative_var);
    if (!d->state_var || !d->derivative_var) {
        fail(r, "out of memory");
        return -1;
    }
    for (int k = 0; k < r->n_state_refs; k++) {
        int der = resolve_ref(d, sorted, r->state_refs[k]);
        if (der < 0 || d->vars[der].derivative_of < 0) {
            fail(r, "<ModelStructure>: state derivative %s %lld is not a variable with a "
                 "derivative attribute", d->fmi_major == 2 ? "index" : "valueReference",
                 (long long)r->state_refs[k]);
            return -1;
        }
        if (d->vars[d->vars[der].derivative_of].is_array || d->vars[der].is_array) {
            fail(r, "state \"%s\" is an array: array variables are not imported yet",
                 d->vars[d->vars[der].derivative_of].name);
            return -1;
        }
        d->derivative_var[k] = der;
        d->state_var[k] = d->vars[der].derivative_of;
        d->n_states++;
    }
    return 0;
}

/* What must be there once the whole document is read. */
static int finish(reader *r)
{
    hy_fmi_description *d = r->d;
    r->parser = NULL; /* messages now without a position */
    char where[64];
    hy_format(where, sizeof where, "(<fmiModelDescription>, line %lu)", r->root_line);
    if (!d->model_name || !d->model_name[0]) {
        fail(r, "no modelName %s", where);
        return -1;
    }
    if (!d->token || !d->token[0]) {
        fail(r, "no %s %s", d->fmi_major == 2 ? "guid" : "instantiationToken", where);
        return -1;
    }
    if (!d->me_identifier && !d->cs_identifier) {
        fail(r, "neither <ModelExchange> nor <CoSimulation>: the FMU has no interface");
        return -1;
    }
    if (d->fmi_major == 3)
        d->n_event_indicators = r->n_indicator_elements;
    if (check_names(r))
        return -1;
    vr_entry *sorted = NULL;
    if (d->n_vars > 0) {
        sorted = hy_alloc_array((size_t)d->n_vars, sizeof *sorted);
        if (!sorted) {
            fail(r, "out of memory");
            return -1;
        }
        for (int i = 0; i < d->n_vars; i++)
            sorted[i] = (vr_entry){ d->vars[i].vr, i };
        qsort(sorted, (size_t)d->n_vars, sizeof *sorted, compare_vr);
    }
    int status = resolve_states(r, sorted);
    hy_free(sorted);
    return status;
}

int hy_fmi_description_parse(const char *xml, size_t size, const char *source,
                             hy_fmi_description *d, char *err, size_t err_size)
{
    memset(d, 0, sizeof *d);
    reader r = { 0 };
    r.d = d;
    r.source = source;
    r.err = err;
    r.err_size = err_size;
    r.current_var = -1;
    static const XML_Memory_Handling_Suite memory = { hy_malloc, hy_realloc, hy_free };
    r.parser = XML_ParserCreate_MM(NULL, &memory, NULL);
    if (!r.parser) {
        hy_format(err, err_size, "%s: out of memory", source);
        return -1;
    }
    XML_SetUserData(r.parser, &r);
    XML_SetElementHandler(r.parser, start_element, end_element);
    /* expat takes an int length: feed large documents in pieces. */
    const size_t chunk = 1u << 24;
    size_t done = 0;
    do {
        size_t piece = size - done < chunk ? size - done : chunk;
        int last = done + piece == size;
        if (XML_Parse(r.parser, xml + done, (int)piece, last) == XML_STATUS_ERROR && !r.failed) {
            enum XML_Error code = XML_GetErrorCode(r.parser);
            fail(&r, "%s", code == XML_ERROR_NO_MEMORY ? "out of memory" : XML_ErrorString(code));
        }
        done += piece;
    } while (done < size && !r.failed);
    if (!r.failed && r.depth != 0)
        fail(&r, "the document ends inside an element");
    XML_ParserFree(r.parser);
    r.parser = NULL;
    if (!r.failed && !d->fmi_version)
        fail(&r, "no <fmiModelDescription> element (an empty document?)");
    if (!r.failed)
        finish(&r);
    hy_free(r.state_refs);
    if (r.failed) {
        hy_fmi_description_free(d);
        return -1;
    }
    return 0;
}

void hy_fmi_description_free(hy_fmi_description *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->n_vars; i++)
        hy_free(d->vars[i].name);
    hy_free(d->vars);
    hy_free(d->state_var);
    hy_free(d->derivative_var);
    hy_free(d->fmi_version);
    hy_free(d->model_name);
    hy_free(d->token);
    hy_free(d->me_identifier);
    hy_free(d->cs_identifier);
    memset(d, 0, sizeof *d);
}

int hy_fmi_description_find(const hy_fmi_description *d, const char *name)
{
    for (int i = 0; i < d->n_vars; i++)
        if (strcmp(d->vars[i].name, name) == 0)
            return i;
    return -1;
}

int hy_fmi_type_is_numeric(hy_fmi_type type)
{
    return type != HY_FMI_STRING && type != HY_FMI_BINARY && type != HY_FMI_CLOCK;
}
