/*
** Run statistics as JSON (hydae_sim_write_stats_json), for scripts: the
** counters of hydae_stats, the wall time, the time reached and the error
** message of the last run (null when it succeeded), and for a model file
** its backend (docs/language.md, "Backends": native or bytecode, the
** compile or cache-lookup time, whether the cache had it). RFC 8259 syntax:
** strings escaped, non-finite numbers written as null.
*/
#include "hydae.h"

#include "lang/lang.h"
#include "sim/sim.h"

#include <math.h>
#include <stdio.h>

static void write_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c == '\n')
            fputs("\\n", out);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

static void write_number(FILE *out, double value)
{
    if (isfinite(value))
        fprintf(out, "%.17g", value);
    else
        fputs("null", out);
}

/* "backend": null for a model not from a model file, else "bytecode" or
** "native" with the native code's figures. */
static void write_backend(FILE *out, const hydae_model *model)
{
    const hy_lang_native_stats *native = hy_lang_model_native(model);
    fputs(",\n  \"backend\": ", out);
    if (!native) {
        fputs("null", out);
        return;
    }
    write_string(out, native->is_native ? "native" : "bytecode");
    if (!native->is_native)
        return;
    fputs(",\n  \"native_compile_seconds\": ", out);
    write_number(out, native->seconds);
    fprintf(out, ",\n  \"native_cache_hit\": %s", native->cache_hit ? "true" : "false");
    fprintf(out, ",\n  \"native_compiler_runs\": %d", native->n_compiler_runs);
    fprintf(out, ",\n  \"native_programs\": %d", native->n_programs);
    fprintf(out, ",\n  \"native_source_bytes\": %zu", native->source_bytes);
    fputs(",\n  \"native_compiler\": ", out);
    write_string(out, native->compiler);
}

int hydae_sim_write_stats_json(const hydae_sim *s, FILE *out)
{
    if (!s || !out)
        return HYDAE_ERR_ARG;
    hydae_stats st;
    hydae_sim_get_stats(s, &st);
    const struct { const char *name; long value; } counters[] = {
        { "steps", st.n_steps },
        { "rejected_steps", st.n_rejected },
        { "residual_evaluations", st.n_res_evals },
        { "jacobian_evaluations", st.n_jac_evals },
        { "lu_factorisations", st.n_lu },
        { "events", st.n_events },
        { "event_triggers", st.n_triggers },
        { "priority_conflicts", st.n_priority_conflicts },
        { "transitions_fired", st.n_transitions },
        { "mode_switches", st.n_mode_switches },
        { "integrator_restarts", st.n_restarts },
        { "homotopy_steps", st.n_homotopy_steps },
        { "jump_restarts", st.n_jump_restarts },
        { "resting_modes_entered", st.n_zeno_rests },
        { "configurations_entered", st.n_configurations },
        { "configuration_cache_hits", st.n_config_cache_hits },
        { "column_colourings", st.n_colorings },
        { "symbolic_analyses", st.n_symbolic_analyses },
        { "coordinate_partitions", st.n_partitions },
        { "stiffness_detections", st.n_stiff_detections },
        { "band_orderings", st.n_band_orderings },
    };
    fputs("{\n", out);
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
        fprintf(out, "  \"%s\": %ld,\n", counters[i].name, counters[i].value);
    fputs("  \"max_constraint_violation\": ", out);
    write_number(out, st.max_constraint_violation);
    fputs(",\n  \"wall_seconds\": ", out);
    write_number(out, st.wall_seconds);
    fputs(",\n  \"t_reached\": ", out);
    write_number(out, hydae_sim_time(s));
    fputs(",\n  \"error\": ", out);
    const char *message = hydae_sim_errmsg(s);
    if (message && message[0])
        write_string(out, message);
    else
        fputs("null", out);
    write_backend(out, s->model);
    fputs("\n}\n", out);
    return ferror(out) ? HYDAE_ERR_IO : 0;
}
