/*
** modelDescription.xml reader (src/fmi/description.c): hand-written
** descriptions of FMI 2.0 and 3.0 read into the right states, event
** indicators and experiment, and malformed ones refused with a message
** that says where (line:column) and what. Needs no FMU.
*/
#include "check.h"
#include "fmi/description.h"

#include <stdlib.h>
#include <string.h>

static const char good2[] =
    "<?xml version=\"1.0\"?>\n"
    "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"Ball\" guid=\"{g}\"\n"
    "    numberOfEventIndicators=\"1\">\n"
    "  <ModelExchange modelIdentifier=\"ball\" providesDirectionalDerivative=\"true\"/>\n"
    "  <DefaultExperiment startTime=\"0.5\" stopTime=\"3\" tolerance=\"1e-5\" stepSize=\"0.01\"/>\n"
    "  <ModelVariables>\n"
    "    <ScalarVariable name=\"time\" valueReference=\"0\" causality=\"independent\"><Real/></ScalarVariable>\n"
    "    <ScalarVariable name=\"h\" valueReference=\"1\" causality=\"output\" initial=\"exact\">\n"
    "      <Real start=\"1\" nominal=\"2\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"der(h)\" valueReference=\"2\"><Real derivative=\"2\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"v\" valueReference=\"3\" initial=\"exact\"><Real start=\"0\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"der(v)\" valueReference=\"4\"><Real derivative=\"4\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"e\" valueReference=\"5\" causality=\"parameter\" variability=\"tunable\">\n"
    "      <Real start=\"0.7\"/></ScalarVariable>\n"
    "    <ScalarVariable name=\"n\" valueReference=\"6\" causality=\"output\" variability=\"discrete\">\n"
    "      <Integer start=\"3\"/></ScalarVariable>\n"
    "  </ModelVariables>\n"
    "  <ModelStructure><Derivatives><Unknown index=\"5\"/><Unknown index=\"3\"/></Derivatives></ModelStructure>\n"
    "</fmiModelDescription>\n";

static const char good3[] =
    "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"Osc\" instantiationToken=\"t\">\n"
    "  <ModelExchange modelIdentifier=\"osc\" completedIntegratorStepNotNeeded=\"true\"/>\n"
    "  <CoSimulation modelIdentifier=\"osc_cs\"/>\n"
    "  <ModelVariables>\n"
    "    <Float64 name=\"x\" valueReference=\"10\" start=\"2\"/>\n"
    "    <Float64 name=\"der(x)\" valueReference=\"11\" derivative=\"10\"/>\n"
    "    <Float64 name=\"a\" valueReference=\"12\" start=\"1 2 3\"><Dimension start=\"3\"/></Float64>\n"
    "    <Boolean name=\"b\" valueReference=\"13\" causality=\"output\" start=\"true\"/>\n"
    "    <Int64 name=\"i\" valueReference=\"14\" start=\"-7\"/>\n"
    "  </ModelVariables>\n"
    "  <ModelStructure>\n"
    "    <ContinuousStateDerivative valueReference=\"11\"/>\n"
    "    <EventIndicator valueReference=\"10\"/><EventIndicator valueReference=\"14\"/>\n"
    "  </ModelStructure>\n"
    "</fmiModelDescription>\n";

static void check_good2(void)
{
    hy_fmi_description d;
    char err[512] = "";
    int status = hy_fmi_description_parse(good2, strlen(good2), "good2", &d, err, sizeof err);
    CHECK(status == 0, "good 2.0 description refused: %s", err);
    if (status)
        return;
    CHECK(d.fmi_major == 2 && strcmp(d.model_name, "Ball") == 0 && strcmp(d.token, "{g}") == 0,
          "version %d, name %s, guid %s", d.fmi_major, d.model_name, d.token);
    CHECK(d.me_identifier && strcmp(d.me_identifier, "ball") == 0 && !d.cs_identifier,
          "interfaces");
    CHECK(d.me_needs_completed_step == 1, "completedIntegratorStep needed by default");
    CHECK(d.me_directional == 1, "providesDirectionalDerivative");
    /* The states in the order of <Derivatives>: der(v) first, so v, h. */
    CHECK(d.n_states == 2, "n_states %d", d.n_states);
    if (d.n_states == 2) {
        CHECK(strcmp(d.vars[d.state_var[0]].name, "v") == 0
                  && strcmp(d.vars[d.state_var[1]].name, "h") == 0,
              "states %s, %s", d.vars[d.state_var[0]].name, d.vars[d.state_var[1]].name);
        CHECK(strcmp(d.vars[d.derivative_var[0]].name, "der(v)") == 0, "derivative of v");
    }
    CHECK(d.n_event_indicators == 1, "event indicators %d", d.n_event_indicators);
    int h = hy_fmi_description_find(&d, "h"), n = hy_fmi_description_find(&d, "n");
    CHECK(h >= 0 && d.vars[h].nominal == 2.0 && d.vars[h].start == 1.0
              && d.vars[h].initial == HY_FMI_EXACT && d.vars[h].causality == HY_FMI_OUTPUT,
          "h's attributes");
    CHECK(n >= 0 && d.vars[n].type == HY_FMI_INT32 && d.vars[n].start == 3.0
              && d.vars[n].variability == HY_FMI_DISCRETE, "n's attributes");
    CHECK(d.has_start_time && d.start_time == 0.5 && d.stop_time == 3 && d.tolerance == 1e-5
              && d.step_size == 0.01, "default experiment");
    hy_fmi_description_free(&d);
}

static void check_good3(void)
{
    hy_fmi_description d;
    char err[512] = "";
    int status = hy_fmi_description_parse(good3, strlen(good3), "good3", &d, err, sizeof err);
    CHECK(status == 0, "good 3.0 description refused: %s", err);
    if (status)
        return;
    CHECK(d.fmi_major == 3 && strcmp(d.token, "t") == 0, "3.0, token");
    CHECK(d.cs_identifier && strcmp(d.cs_identifier, "osc_cs") == 0, "CoSimulation identifier");
    CHECK(d.me_needs_completed_step == 0, "completedIntegratorStepNotNeeded");
    CHECK(d.me_directional == 0, "no providesDirectionalDerivatives");
    CHECK(d.n_states == 1 && strcmp(d.vars[d.state_var[0]].name, "x") == 0, "state x");
    CHECK(d.n_event_indicators == 2, "event indicators %d", d.n_event_indicators);
    int a = hy_fmi_description_find(&d, "a"), b = hy_fmi_description_find(&d, "b"),
        i = hy_fmi_description_find(&d, "i");
    CHECK(a >= 0 && d.vars[a].is_array && !d.vars[a].has_start, "array a");
    CHECK(b >= 0 && d.vars[b].type == HY_FMI_BOOLEAN && d.vars[b].start == 1.0, "Boolean b");
    CHECK(i >= 0 && d.vars[i].type == HY_FMI_INT64 && d.vars[i].start == -7.0, "Int64 i");
    CHECK(!d.has_start_time && !d.has_stop_time, "no default experiment");
    hy_fmi_description_free(&d);
}

#define HEAD2 "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"m\" guid=\"g\">" \
              "<ModelExchange modelIdentifier=\"m\"/>"
#define HEAD3 "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"m\" instantiationToken=\"g\">" \
              "<ModelExchange modelIdentifier=\"m\"/>"
#define TAIL "</fmiModelDescription>"
#define VARS2(body) HEAD2 "<ModelVariables>" body "</ModelVariables>"
#define REAL2(name, vr, attrs) \
    "<ScalarVariable name=\"" name "\" valueReference=\"" vr "\"><Real " attrs "/></ScalarVariable>"

typedef struct bad_case {
    const char *xml;
    const char *want; /* in the message */
} bad_case;

static const bad_case bad_cases[] = {
    { "", "no element found" },
    { "hello", "syntax error" },
    { "<foo/>", "the root element is <foo>" },
    { "<fmiModelDescription modelName=\"m\"/>", "no fmiVersion" },
    { "<fmiModelDescription fmiVersion=\"1.0\"/>", "fmiVersion \"1.0\" is not supported" },
    { "<fmiModelDescription fmiVersion=\"2.0\" guid=\"g\"><ModelExchange modelIdentifier=\"m\"/>"
      TAIL, "no modelName" },
    { "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"m\"><ModelExchange "
      "modelIdentifier=\"m\"/>" TAIL, "no guid" },
    { "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"m\" guid=\"g\"><ModelExchange "
      "modelIdentifier=\"m\"/>" TAIL, "no instantiationToken" },
    { "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"m\" guid=\"g\"/>", "no interface" },
    { "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"m\" guid=\"g\"><ModelExchange/>" TAIL,
      "has no modelIdentifier" },
    { "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"m\" guid=\"g\"><ModelExchange "
      "modelIdentifier=\"../evil\"/>" TAIL, "is not a file name" },
    { HEAD2 "<ModelExchange modelIdentifier=\"n\"/>" TAIL, "a second <ModelExchange>" },
    { VARS2("<ScalarVariable valueReference=\"1\"><Real/></ScalarVariable>") TAIL,
      "a variable without a name" },
    { VARS2(REAL2("x", "-1", "")) TAIL, "valueReference \"-1\"" },
    { VARS2(REAL2("x", "4294967296", "")) TAIL, "not an unsigned 32-bit" },
    { VARS2(REAL2("x", "1x", "")) TAIL, "valueReference \"1x\"" },
    { VARS2("<ScalarVariable name=\"x\" valueReference=\"1\"/>") TAIL, "has no type element" },
    { VARS2("<ScalarVariable name=\"x\" valueReference=\"1\"><Real/><Integer/></ScalarVariable>")
      TAIL, "has two types" },
    { VARS2("<ScalarVariable name=\"x\" valueReference=\"1\" causality=\"sideways\"><Real/>"
            "</ScalarVariable>") TAIL, "unknown causality \"sideways\"" },
    { VARS2("<ScalarVariable name=\"x\" valueReference=\"1\" variability=\"often\"><Real/>"
            "</ScalarVariable>") TAIL, "unknown variability" },
    { VARS2("<ScalarVariable name=\"x\" valueReference=\"1\" initial=\"later\"><Real/>"
            "</ScalarVariable>") TAIL, "unknown initial" },
    { VARS2(REAL2("x", "1", "start=\"one\"")) TAIL, "start \"one\" is not a numeric" },
    { VARS2(REAL2("x", "1", "start=\"nan\"")) TAIL, "is not a numeric" },
    { VARS2("<ScalarVariable name=\"b\" valueReference=\"1\"><Boolean start=\"yes\"/>"
            "</ScalarVariable>") TAIL, "not a Boolean" },
    { VARS2(REAL2("x", "1", "nominal=\"0\"")) TAIL, "nominal \"0\" is not a positive" },
    { VARS2(REAL2("x", "1", "derivative=\"0\"")) TAIL, "is not a variable index" },
    { VARS2(REAL2("x", "1", "derivative=\"99\"")) TAIL, "names no other Real" },
    { VARS2(REAL2("x", "1", "derivative=\"1\"")) TAIL, "names no other Real" },
    { VARS2(REAL2("x", "1", "") REAL2("x", "2", "")) TAIL, "two variables are called \"x\"" },
    { VARS2(REAL2("x", "1", "")) "<ModelStructure><Derivatives><Unknown index=\"1\"/>"
      "</Derivatives></ModelStructure>" TAIL, "is not a variable with a derivative" },
    { VARS2(REAL2("x", "1", "")) "<ModelStructure><Derivatives><Unknown index=\"7\"/>"
      "</Derivatives></ModelStructure>" TAIL, "is not a variable with a derivative" },
    { VARS2(REAL2("x", "1", "")) "<ModelStructure><Derivatives><Unknown/>"
      "</Derivatives></ModelStructure>" TAIL, "without a valid index" },
    { "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"m\" guid=\"g\" "
      "numberOfEventIndicators=\"-1\"/>", "numberOfEventIndicators \"-1\"" },
    { HEAD2 "<DefaultExperiment stopTime=\"soon\"/>" TAIL, "stopTime=\"soon\"" },
    { HEAD2 "<DefaultExperiment tolerance=\"0\"/>" TAIL, "not a positive number" },
    { HEAD2 "<ModelVariables>", "no element found" },
    { HEAD2 "<ModelVariables></ModelStructure>" TAIL, "mismatched tag" },
    { HEAD3 "<ModelVariables><Float64 name=\"x\" valueReference=\"1\"/></ModelVariables>"
      "<ModelStructure><ContinuousStateDerivative valueReference=\"5\"/></ModelStructure>" TAIL,
      "valueReference 5 is not a variable" },
    { HEAD3 "<ModelVariables><Float64 name=\"x\" valueReference=\"1\"><Dimension start=\"2\"/>"
      "</Float64><Float64 name=\"dx\" valueReference=\"2\" derivative=\"1\"><Dimension "
      "start=\"2\"/></Float64></ModelVariables><ModelStructure><ContinuousStateDerivative "
      "valueReference=\"2\"/></ModelStructure>" TAIL, "is an array" },
    { HEAD3 "<ModelVariables><Int32 name=\"x\" valueReference=\"1\"/><Float64 name=\"dx\" "
      "valueReference=\"2\" derivative=\"1\"/></ModelVariables>" TAIL, "names no other Float64" },
};

static void check_bad(void)
{
    int n = (int)(sizeof bad_cases / sizeof bad_cases[0]);
    for (int i = 0; i < n; i++) {
        hy_fmi_description d;
        char err[512] = "";
        const char *xml = bad_cases[i].xml;
        int status = hy_fmi_description_parse(xml, strlen(xml), "bad.xml", &d, err, sizeof err);
        CHECK(status != 0, "case %d accepted: %s", i, xml);
        CHECK(strstr(err, bad_cases[i].want) != NULL, "case %d: message '%s' lacks '%s'", i, err,
              bad_cases[i].want);
        CHECK(strncmp(err, "bad.xml:", 8) == 0, "case %d: message '%s' does not name the file",
              i, err);
        CHECK(d.n_vars == 0 && d.vars == NULL && d.model_name == NULL,
              "case %d: description not emptied", i);
    }
}

/* Positions: a defect on line 3 is reported on line 3. */
static void check_position(void)
{
    const char xml[] = "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"m\" guid=\"g\">\n"
                       "<ModelExchange modelIdentifier=\"m\"/><ModelVariables>\n"
                       "  <ScalarVariable name=\"x\" valueReference=\"q\"><Real/></ScalarVariable>\n"
                       "</ModelVariables></fmiModelDescription>\n";
    hy_fmi_description d;
    char err[512] = "";
    CHECK(hy_fmi_description_parse(xml, strlen(xml), "pos.xml", &d, err, sizeof err) != 0,
          "bad valueReference accepted");
    CHECK(strncmp(err, "pos.xml:3:3:", 12) == 0, "position: '%s', want pos.xml:3:3:", err);
}

/* Deep nesting and many variables: no recursion, no quadratic cost. */
static void check_large(void)
{
    enum { DEPTH = 20000, N_VARS = 50000 };
    size_t cap = (size_t)DEPTH * 16 + (size_t)N_VARS * 120 + 1024;
    char *xml = malloc(cap);
    if (!xml)
        return;
    size_t len = (size_t)snprintf(xml, cap, "%s<ModelVariables>", HEAD2);
    for (int i = 0; i < N_VARS; i++)
        len += (size_t)snprintf(xml + len, cap - len, "<ScalarVariable name=\"v%d\" "
                                "valueReference=\"%d\"><Real start=\"%d\"/></ScalarVariable>",
                                i, i, i);
    len += (size_t)snprintf(xml + len, cap - len, "</ModelVariables>");
    for (int i = 0; i < DEPTH; i++)
        len += (size_t)snprintf(xml + len, cap - len, "<a>");
    for (int i = 0; i < DEPTH; i++)
        len += (size_t)snprintf(xml + len, cap - len, "</a>");
    len += (size_t)snprintf(xml + len, cap - len, "%s", TAIL);
    hy_fmi_description d;
    char err[512] = "";
    int status = hy_fmi_description_parse(xml, len, "large.xml", &d, err, sizeof err);
    CHECK(status == 0, "large description refused: %s", err);
    if (!status) {
        CHECK(d.n_vars == N_VARS && d.vars[N_VARS - 1].start == N_VARS - 1, "%d variables",
              d.n_vars);
        hy_fmi_description_free(&d);
    }
    free(xml);
}

int main(void)
{
    check_good2();
    check_good3();
    check_bad();
    check_position();
    check_large();
    return CHECK_DONE();
}
