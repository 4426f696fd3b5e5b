/*
** modelDescription.xml of an exported model, FMI 2.0 Co-Simulation (FMI
** 2.0.4, sections 2.2 and 4.3.1): <CoSimulation> with the runtime's
** capabilities, <DefaultExperiment> from the model's experiment block,
** the variables of export.h as <ScalarVariable>s, and <ModelStructure>
** listing every output as an output and an initial unknown (dependencies
** left out: each may depend on every parameter).
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

static void put_variable(FILE *out, const hy_export_var *v)
{
    fputs("    <ScalarVariable name=\"", out);
    if (v->kind == HY_EXPORT_MODE)
        fputs("mode(", out);
    put_escaped(out, v->name);
    fprintf(out, "%s\" valueReference=\"%u\"", v->kind == HY_EXPORT_MODE ? ")" : "",
            (unsigned)v->vr);
    switch (v->kind) {
    case HY_EXPORT_PARAMETER:
        fprintf(out, " causality=\"parameter\" variability=\"fixed\" initial=\"exact\">\n"
                     "      <Real start=\"%.17g\"/>\n", v->start);
        break;
    case HY_EXPORT_CONSTANT:
        fprintf(out, " causality=\"local\" variability=\"constant\" initial=\"exact\">\n"
                     "      <Real start=\"%.17g\"/>\n", v->start);
        break;
    case HY_EXPORT_OUTPUT:
        fprintf(out, " causality=\"output\" variability=\"%s\" initial=\"calculated\">\n"
                     "      <Real/>\n", v->is_discrete ? "discrete" : "continuous");
        break;
    case HY_EXPORT_MODE:
        fputs(" causality=\"output\" variability=\"discrete\" initial=\"calculated\""
              " description=\"the active mode, 1-based in declaration order\">\n"
              "      <Integer/>\n", out);
        break;
    }
    fputs("    </ScalarVariable>\n", out);
}

/* <Outputs> and <InitialUnknowns>: the outputs by 1-based index. */
static void put_structure(FILE *out, const hydae_model *m)
{
    int n = hy_export_n_vars(m);
    fputs("  <ModelStructure>\n", out);
    for (int pass = 0; pass < 2; pass++) {
        fputs(pass == 0 ? "    <Outputs>\n" : "    <InitialUnknowns>\n", out);
        for (int i = 0; i < n; i++) {
            hy_export_var v;
            hy_export_var_at(m, i, &v);
            if (v.kind == HY_EXPORT_OUTPUT || v.kind == HY_EXPORT_MODE)
                fprintf(out, "      <Unknown index=\"%d\"/>\n", i + 1);
        }
        fputs(pass == 0 ? "    </Outputs>\n" : "    </InitialUnknowns>\n", out);
    }
    fputs("  </ModelStructure>\n", out);
}

int hy_export_write_description(FILE *out, const hydae_model *m,
                                const hy_lang_experiment *experiment,
                                const char *identifier, const char *guid)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"", out);
    put_escaped(out, identifier);
    fprintf(out, "\" guid=\"%s\"\n  generationTool=\"hydae %s\" variableNamingConvention=\"flat\""
                 " numberOfEventIndicators=\"0\">\n", guid, hydae_version());
    fprintf(out, "  <CoSimulation modelIdentifier=\"%s\" needsExecutionTool=\"false\"\n"
                 "    canHandleVariableCommunicationStepSize=\"true\" canInterpolateInputs=\"false\"\n"
                 "    maxOutputDerivativeOrder=\"0\" canBeInstantiatedOnlyOncePerProcess=\"false\"\n"
                 "    canNotUseMemoryManagementFunctions=\"true\" canGetAndSetFMUstate=\"false\"\n"
                 "    canSerializeFMUstate=\"false\" providesDirectionalDerivative=\"false\"/>\n",
            identifier);
    fputs("  <LogCategories>\n"
          "    <Category name=\"logEvents\" description=\"event instants and the modes entered\"/>\n"
          "    <Category name=\"logStatusError\" description=\"errors\"/>\n"
          "  </LogCategories>\n", out);
    put_experiment(out, experiment);
    fputs("  <ModelVariables>\n", out);
    int n = hy_export_n_vars(m);
    for (int i = 0; i < n; i++) {
        hy_export_var v;
        hy_export_var_at(m, i, &v);
        put_variable(out, &v);
    }
    fputs("  </ModelVariables>\n", out);
    put_structure(out, m);
    fputs("</fmiModelDescription>\n", out);
    return ferror(out) ? -1 : 0;
}
