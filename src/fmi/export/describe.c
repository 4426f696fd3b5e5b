/*
** modelDescription.xml of an exported model for Co-Simulation, FMI 2.0
** (FMI 2.0.4 sections 2.2 and 4.3.1) or 3.0 (FMI 3.0 sections 2.4 and
** 4.3.1): <CoSimulation> with the runtime's capabilities,
** <DefaultExperiment> from the model's experiment block, the variables of
** export.h (2.0 <ScalarVariable>s, 3.0 <Float64> and <Int32>), and
** <ModelStructure> listing every output as an output and an initial
** unknown (dependencies left out: each may depend on every parameter).
*/
#include "export.h"

#include <stdio.h>

/* Text with &, <, > and " escaped, for an attribute value. */
static void put_escaped(FILE *out, const char *text)
{
    for (const char *c = text; *c; c++) {
        switch (*c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*c, out);
        }
    }
}

static void put_experiment(FILE *out, const hy_lang_experiment *ex)
{
    if (!ex || !(ex->has_t0 || ex->has_t_end || ex->has_rtol || ex->has_dt))
        return;
    fputs("  <DefaultExperiment", out);
    if (ex->has_t0)
        fprintf(out, " startTime=\"%.17g\"", ex->t0);
    if (ex->has_t_end)
        fprintf(out, " stopTime=\"%.17g\"", ex->t_end);
    if (ex->has_rtol)
        fprintf(out, " tolerance=\"%.17g\"", ex->rtol);
    if (ex->has_dt)
        fprintf(out, " stepSize=\"%.17g\"", ex->dt);
    fputs("/>\n", out);
}

/* The attributes every version writes the same way, after the name. */
/* causality, variability and initial of a variable. */
static const char *attributes(const hy_export_var *v)
{
    switch (v->kind) {
    case HY_EXPORT_PARAMETER:
        return "causality=\"parameter\" variability=\"tunable\" initial=\"exact\"";
    case HY_EXPORT_CONSTANT:
        return "causality=\"local\" variability=\"constant\" initial=\"exact\"";
    case HY_EXPORT_OUTPUT:
        return v->is_discrete
                   ? "causality=\"output\" variability=\"discrete\" initial=\"calculated\""
                   : "causality=\"output\" variability=\"continuous\" initial=\"calculated\"";
    case HY_EXPORT_INPUT:
        return "causality=\"input\" variability=\"continuous\"";
    case HY_EXPORT_MODE:
        return "causality=\"output\" variability=\"discrete\" initial=\"calculated\" "
               "description=\"the active mode, 1-based in declaration order\"";
    case HY_EXPORT_TIME:
        break;
    }
    return "causality=\"independent\" variability=\"continuous\"";
}

/* The attributes every version writes the same way, after the name. */
static void put_causality(FILE *out, const hy_export_var *v)
{
    fprintf(out, " valueReference=\"%u\" %s", (unsigned)v->vr, attributes(v));
}

static void put_name(FILE *out, const hy_export_var *v)
{
    fputs(" name=\"", out);
    if (v->kind == HY_EXPORT_MODE)
        fputs("mode(", out);
    put_escaped(out, v->name);
    fputs(v->kind == HY_EXPORT_MODE ? ")\"" : "\"", out);
}

static int has_start(const hy_export_var *v)
{
    return v->kind == HY_EXPORT_PARAMETER || v->kind == HY_EXPORT_CONSTANT
           || v->kind == HY_EXPORT_INPUT;
}

/* FMI 2.0: <ScalarVariable ...><Real start/></ScalarVariable>. */
static void put_variable2(FILE *out, const hy_export_var *v)
{
    fputs("    <ScalarVariable", out);
    put_name(out, v);
    put_causality(out, v);
    fprintf(out, ">\n      <%s", v->kind == HY_EXPORT_MODE ? "Integer" : "Real");
    if (has_start(v))
        fprintf(out, " start=\"%.17g\"", v->start);
    fputs("/>\n    </ScalarVariable>\n", out);
}

/* FMI 3.0: <Float64 ... start/> or <Int32 .../>. */
static void put_variable3(FILE *out, const hy_export_var *v)
{
    fputs(v->kind == HY_EXPORT_MODE ? "    <Int32" : "    <Float64", out);
    put_name(out, v);
    put_causality(out, v);
    if (has_start(v))
        fprintf(out, " start=\"%.17g\"", v->start);
    fputs("/>\n", out);
}

/* The outputs, as outputs and initial unknowns: by 1-based index in 2.0,
** by value reference in 3.0. */
static void put_structure(FILE *out, int fmi_version, const hydae_model *m)
{
    int n = hy_export_n_vars(m);
    fputs("  <ModelStructure>\n", out);
    for (int pass = 0; pass < 2; pass++) {
        if (fmi_version == HY_EXPORT_FMI2)
            fputs(pass == 0 ? "    <Outputs>\n" : "    <InitialUnknowns>\n", out);
        for (int i = 0; i < n; i++) {
            hy_export_var v;
            hy_export_var_at(m, i, &v);
            if (v.kind != HY_EXPORT_OUTPUT && v.kind != HY_EXPORT_MODE)
                continue;
            if (fmi_version == HY_EXPORT_FMI2)
                fprintf(out, "      <Unknown index=\"%d\"/>\n", i + 1);
            else
                fprintf(out, "    <%s valueReference=\"%u\"/>\n",
                        pass == 0 ? "Output" : "InitialUnknown", (unsigned)v.vr);
        }
        if (fmi_version == HY_EXPORT_FMI2)
            fputs(pass == 0 ? "    </Outputs>\n" : "    </InitialUnknowns>\n", out);
    }
    fputs("  </ModelStructure>\n", out);
}

/* The root element's attributes and <CoSimulation>: what the runtime
** (slave.c) can do. */
static void put_interface(FILE *out, int fmi_version, const char *identifier, const char *guid)
{
    int v3 = fmi_version == HY_EXPORT_FMI3;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription", out);
    fprintf(out, " fmiVersion=\"%s\" modelName=\"", v3 ? "3.0" : "2.0");
    put_escaped(out, identifier);
    fprintf(out, "\" %s=\"%s\"\n  generationTool=\"hydae %s\"", v3 ? "instantiationToken" : "guid",
            guid, hydae_version());
    fprintf(out, " variableNamingConvention=\"flat\"%s>\n",
            v3 ? "" : " numberOfEventIndicators=\"0\"");
    fprintf(out, "  <CoSimulation modelIdentifier=\"%s\" needsExecutionTool=\"false\"\n"
                 "    canHandleVariableCommunicationStepSize=\"true\"\n"
                 "    maxOutputDerivativeOrder=\"0\" canBeInstantiatedOnlyOncePerProcess=\"false\"",
            identifier);
    if (v3)
        fputs(" canGetAndSetFMUState=\"false\" canSerializeFMUState=\"false\"\n"
              "    providesDirectionalDerivatives=\"false\" providesAdjointDerivatives=\"false\"\n"
              "    hasEventMode=\"false\" providesIntermediateUpdate=\"false\"\n"
              "    mightReturnEarlyFromDoStep=\"false\"\n"
              "    canReturnEarlyAfterIntermediateUpdate=\"false\"/>\n", out);
    else
        fputs(" canNotUseMemoryManagementFunctions=\"true\"\n"
              "    canGetAndSetFMUstate=\"false\" canSerializeFMUstate=\"false\"\n"
              "    providesDirectionalDerivative=\"false\" canInterpolateInputs=\"false\"/>\n",
              out);
}

int hy_export_write_description(FILE *out, int fmi_version, const hydae_model *m,
                                const hy_lang_experiment *experiment,
                                const char *identifier, const char *guid)
{
    put_interface(out, fmi_version, identifier, guid);
    fputs("  <LogCategories>\n"
          "    <Category name=\"logEvents\"\n"
          "      description=\"event instants and the modes entered\"/>\n"
          "    <Category name=\"logStatusError\" description=\"errors\"/>\n"
          "  </LogCategories>\n", out);
    put_experiment(out, experiment);
    fputs("  <ModelVariables>\n", out);
    int n = hy_export_n_vars(m);
    for (int i = 0; i < n; i++) {
        hy_export_var v;
        hy_export_var_at(m, i, &v);
        if (fmi_version == HY_EXPORT_FMI3)
            put_variable3(out, &v);
        else
            put_variable2(out, &v);
    }
    fputs("  </ModelVariables>\n", out);
    put_structure(out, fmi_version, m);
    fputs("</fmiModelDescription>\n", out);
    return ferror(out) ? -1 : 0;
}
